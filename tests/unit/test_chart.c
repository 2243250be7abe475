/*
 * Charts and leaderboards in pictures (issue 26): the chart items of
 * util/scene (building, the cap and what is refused, JSON both ways,
 * scene_texts) and their painting (paint/chart.c, the tables of
 * paint/blocks.c).
 *
 * TABULA_PAINT_DIR=dir writes the sample pictures (docs/images'
 * stats-chart.png and leaderboard.png: scripts/doc-images.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "paint/paint.h"
#include "util/scene.h"

/* A rating after k games: from 25 climbing, its uncertainty narrowing. */
static void rating_at(int k, double *mu, double *sigma)
{
	*mu = 25 + 7 * (1 - exp(-k / 14.0)) + 1.4 * sin(k * 0.9) * exp(-k / 60.0);
	*sigma = 8.33 * exp(-k / 18.0) + 1.6;
}

/* A chart of n points of that rating. */
static void rating_chart(struct scene *sc, const char *title, int n)
{
	struct scene_item *ch;
	int k;

	ch = scene_chart(sc, SCOL_NONE, title, "Rating μ");
	scene_set_band(ch, "uncertainty μ ± 3σ");
	scene_set_corner(ch, "No rated games yet");
	for (k = 0; k < n; k++) {
		double mu, sigma;
		char day[16];

		rating_at(k, &mu, &sigma);
		snprintf(day, sizeof(day), "%d %s", 1 + k % 28, k / 28 % 2 ? "Apr" : "Mar");
		assert_int_equal(scene_chart_point(sc, day, mu, mu - 3 * sigma, mu + 3 * sigma), 0);
	}
}

static void test_chart_build(void **state)
{
	struct scene sc = SCENE_INIT;
	int k;

	/* a point needs a chart just before it */
	assert_int_equal(scene_chart_point(&sc, "x", 1, 0, 2), -1);
	scene_title(&sc, "Stats");
	assert_int_equal(scene_chart_point(&sc, "x", 1, 0, 2), -1);
	assert_int_equal(sc.n, 1);
	scene_chart(&sc, SCOL_GREEN, "Rating", "μ");
	assert_int_equal(scene_chart_point(&sc, "1 Mar", 25, 20, 30), 0);
	assert_int_equal(sc.v[1].kind, SCENE_CHART);
	assert_int_equal(sc.v[1].count, 1);
	assert_string_equal(sc.v[2].text, "1 Mar");
	assert_string_equal(sc.v[2].corner, "25");
	assert_string_equal(sc.v[2].sub, "20\xE2\x80\x93" "30");
	assert_true(sc.v[2].y == 25 && sc.v[2].lo == 20 && sc.v[2].hi == 30);
	/* refused: not finite, beyond the bound, y outside its band */
	assert_int_equal(scene_chart_point(&sc, "x", NAN, 0, 1), -1);
	assert_int_equal(scene_chart_point(&sc, "x", 1, -INFINITY, 1), -1);
	assert_int_equal(scene_chart_point(&sc, "x", 1, 0, INFINITY), -1);
	assert_int_equal(scene_chart_point(&sc, "x", 2e15, 0, 3e15), -1);
	assert_int_equal(scene_chart_point(&sc, "x", 5, 6, 7), -1);
	assert_int_equal(scene_chart_point(&sc, "x", 5, 3, 4), -1);
	assert_int_equal(sc.n, 3);
	/* a flat point prints no band */
	assert_int_equal(scene_chart_point(&sc, "x", 7, 7, 7), 0);
	assert_null(sc.v[3].sub);
	/* the cap: SCENE_CHART_POINTS, then refused and nothing added */
	for (k = 2; k < SCENE_CHART_POINTS; k++)
		assert_int_equal(scene_chart_point(&sc, "x", k, k, k), 0);
	assert_int_equal(sc.v[1].count, SCENE_CHART_POINTS);
	assert_int_equal(scene_chart_point(&sc, "x", 1, 1, 1), -1);
	assert_int_equal(sc.n, 2 + SCENE_CHART_POINTS);
	/* a second chart has its own count */
	scene_chart(&sc, SCOL_NONE, "again", "");
	assert_int_equal(scene_chart_point(&sc, "x", 1, 1, 1), 0);
	assert_int_equal(sc.v[sc.n - 2].count, 1);
	scene_release(&sc);
}

static void test_chart_numbers(void **state)
{
	static const struct { double v; const char *s; } want[] = {
		{ 0, "0" }, { -0.0, "0" }, { 1523.4, "1523" }, { 25.34, "25.3" }, { 2, "2" },
		{ 2.5, "2.5" }, { 0.0042, "0.0042" }, { -7.25, "-7.25" }, { 1.234e12, "1.23e+12" },
		{ 4.2e-6, "4.2e-06" }, { 999999, "999999" }, { 0.1, "0.1" },
	};
	char out[32];
	size_t k;

	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		scene_number(want[k].v, out);
		assert_string_equal(out, want[k].s);
	}
}

static void test_chart_json(void **state)
{
	struct scene a = SCENE_INIT, b = SCENE_INIT;
	struct buf ta = BUF_INIT, tb = BUF_INIT, err = BUF_INIT;
	json_t *j;
	char *s;
	size_t i;

	scene_title(&a, "Leaderboard");
	scene_table(&a, 3, SCENE_EMPH);
	scene_cell(&a, "#");
	scene_cell(&a, "Player");
	scene_cell(&a, "Rating");
	scene_cell(&a, "1");
	scene_cell(&a, "Ana")->flags |= SCENE_MARKED;
	scene_cell(&a, "%.1f", 31.25);
	rating_chart(&a, "Ana · Glory to Rome", 30);
	assert_int_equal(scene_chart_point(&a, "tiny", 1e-9, -1e-9, 3.3e-9), 0);
	j = scene_to_json(&a);
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	j = json_loads(s, 0, NULL);
	free(s);
	assert_int_equal(scene_from_json(&b, j, &err), 0);
	json_decref(j);
	assert_int_equal(a.n, b.n);
	for (i = 0; i < a.n; i++) {
		assert_int_equal(a.v[i].kind, b.v[i].kind);
		assert_int_equal(a.v[i].flags, b.v[i].flags);
		assert_int_equal(a.v[i].count, b.v[i].count);
		/* doubles come back exactly */
		assert_true(a.v[i].y == b.v[i].y && a.v[i].lo == b.v[i].lo && a.v[i].hi == b.v[i].hi);
	}
	assert_int_equal(b.v[8].kind, SCENE_CHART);
	assert_int_equal(b.v[8].count, 31);
	scene_texts(&a, &ta);
	scene_texts(&b, &tb);
	assert_string_equal(buf_str(&ta), buf_str(&tb));
	/* the texts the scanner reads: title, the axis, the band, labels and
	 * every number as printed */
	assert_non_null(strstr(buf_str(&ta), "Ana · Glory to Rome\n"));
	assert_non_null(strstr(buf_str(&ta), "Rating μ\n"));
	assert_non_null(strstr(buf_str(&ta), "uncertainty μ ± 3σ\n"));
	assert_non_null(strstr(buf_str(&ta), "No rated games yet\n"));
	assert_non_null(strstr(buf_str(&ta), "\n1 Mar\n"));
	assert_non_null(strstr(buf_str(&ta), "\n25\n"));	/* the first y */
	assert_non_null(strstr(buf_str(&ta), "\n1e-09\n"));
	assert_non_null(strstr(buf_str(&ta), "\n-1e-09\xE2\x80\x93" "3.3e-09\n"));
	scene_release(&a);
	scene_release(&b);
	buf_release(&ta);
	buf_release(&tb);
	buf_release(&err);
}

/* Each of these is refused with a message, the scene left empty. */
static void test_chart_bad_json(void **state)
{
	static const char *const bad[] = {
		"[{\"k\":\"point\",\"t\":\"x\",\"y\":1,\"lo\":0,\"hi\":2}]",	/* no chart */
		"[{\"k\":\"title\",\"t\":\"a\"},{\"k\":\"point\",\"y\":1,\"lo\":0,\"hi\":2}]",
		"[{\"k\":\"chart\"},{\"k\":\"title\"},{\"k\":\"point\",\"y\":1,\"lo\":0,\"hi\":2}]",
		"[{\"k\":\"chart\"},{\"k\":\"point\",\"lo\":0,\"hi\":2}]",	/* no y */
		"[{\"k\":\"chart\"},{\"k\":\"point\",\"y\":\"1\",\"lo\":0,\"hi\":2}]",
		"[{\"k\":\"chart\"},{\"k\":\"point\",\"y\":3,\"lo\":0,\"hi\":2}]",	/* y > hi */
		"[{\"k\":\"chart\"},{\"k\":\"point\",\"y\":1,\"lo\":0,\"hi\":1e300}]",
		"[{\"k\":\"chart\"},{\"k\":\"point\",\"y\":1,\"lo\":0,\"hi\":2,\"t\":7}]",
		"[{\"k\":\"chart\",\"t\":[]}]",
		"[{\"k\":\"chart\",\"c\":99}]",
		"{\"k\":\"chart\"}",
		"[{\"k\":\"charts\"}]",
	};
	struct buf err = BUF_INIT;
	struct scene sc;
	json_t *j, *many;
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		j = json_loads(bad[k], 0, NULL);
		assert_non_null(j);
		buf_reset(&err);
		if (scene_from_json(&sc, j, &err) != -1)
			fail_msg("accepted: %s", bad[k]);
		assert_true(err.len > 0);
		assert_int_equal(sc.n, 0);
		json_decref(j);
	}
	/* one point past the cap */
	many = json_array();
	json_array_append_new(many, json_pack("{s:s}", "k", "chart"));
	for (k = 0; k <= SCENE_CHART_POINTS; k++)
		json_array_append_new(many, json_pack("{s:s,s:f,s:f,s:f}", "k", "point", "y", 1.0,
						      "lo", 0.5, "hi", 2.0));
	assert_int_equal(scene_from_json(&sc, many, &err), -1);
	assert_int_equal(sc.n, 0);
	/* and at the cap it is fine */
	json_array_remove(many, 0);
	json_array_insert_new(many, 0, json_pack("{s:s}", "k", "chart"));
	json_array_remove(many, json_array_size(many) - 1);
	assert_int_equal(scene_from_json(&sc, many, &err), 0);
	assert_int_equal(sc.v[0].count, SCENE_CHART_POINTS);
	scene_release(&sc);
	json_decref(many);
	buf_release(&err);
}

/* ---- painting ---- */

struct reader {
	const unsigned char *p;
	size_t n, at;
};

static cairo_status_t read_png(void *ctx, unsigned char *data, unsigned int len)
{
	struct reader *r = ctx;

	if (r->at + len > r->n)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->p + r->at, len);
	r->at += len;
	return CAIRO_STATUS_SUCCESS;
}

/* Pixels of the decoded picture within 4 of rgb (each channel). */
static long count_rgb(cairo_surface_t *s, const unsigned char rgb[3])
{
	const unsigned char *d = cairo_image_surface_get_data(s);
	int x, y, st = cairo_image_surface_get_stride(s);
	long n = 0;

	for (y = 0; y < cairo_image_surface_get_height(s); y++)
		for (x = 0; x < cairo_image_surface_get_width(s); x++) {
			uint32_t px;

			memcpy(&px, d + (size_t)y * st + 4 * (size_t)x, 4);
			if (abs((int)(px >> 16 & 0xFF) - rgb[0]) <= 4 &&
			    abs((int)(px >> 8 & 0xFF) - rgb[1]) <= 4 && abs((int)(px & 0xFF) - rgb[2]) <= 4)
				n++;
		}
	return n;
}

static void save_png(const struct paint_image *im, const char *name)
{
	const char *dir = getenv("TABULA_PAINT_DIR");
	char path[512];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.png", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(im->png, 1, im->len, f), im->len);
	fclose(f);
}

/* Paints sc, checks its size, decodes it; the surface (destroy it). */
static cairo_surface_t *paint_check(const struct scene *sc, const char *name, int hmin, int hmax)
{
	struct paint_image im;
	struct buf err = BUF_INIT;
	struct reader r;
	cairo_surface_t *s;

	if (paint_scene(sc, 0, &im, &err))
		fail_msg("%s: %s", name, buf_str(&err));
	if (im.height < hmin || im.height > hmax)
		fail_msg("%s: %d px tall, want %d..%d", name, im.height, hmin, hmax);
	assert_int_equal(im.width, PAINT_WIDTH);
	save_png(&im, name);
	r = (struct reader){ im.png, im.len, 0 };
	s = cairo_image_surface_create_from_png_stream(read_png, &r);
	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_height(s), im.height);
	paint_image_release(&im);
	buf_release(&err);
	return s;
}

/* A chart of 0, 1, 30 and 200 points: a band and a line (and markers)
 * of their colours where there are points, neither where there are
 * none. */
static void test_chart_paints(void **state)
{
	static const int sizes[] = { 0, 1, 30, 200 };
	unsigned char band[3], line[3];
	size_t k;

	paint_band_rgb(SCOL_NONE, band);
	paint_line_rgb(SCOL_NONE, line);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct scene sc = SCENE_INIT;
		cairo_surface_t *s;
		char name[32];
		long nb, nl;

		rating_chart(&sc, "Ana · Glory to Rome", sizes[k]);
		snprintf(name, sizeof(name), "chart-%d", sizes[k]);
		s = paint_check(&sc, name, 300, 420);
		nb = count_rgb(s, band);
		nl = count_rgb(s, line);
		if (sizes[k] == 0) {
			/* the legend's swatches only */
			assert_in_range(nb, 1, 28 * 15);
			assert_in_range(nl, 1, 40 * 8);
		} else {
			if (nb < 28 * 15 + 150 || nl < 40 * 8 + 30)
				fail_msg("%d points: %ld band, %ld line pixels", sizes[k], nb, nl);
		}
		cairo_surface_destroy(s);
		scene_release(&sc);
	}
}

/* Flat series, huge and tiny values, negative ones: they paint, with
 * their line. */
static void test_chart_ranges(void **state)
{
	static const double base[] = { 1500, 1.2e12, 3e-9, -40, 0 };
	unsigned char line[3];
	size_t k;
	int j;

	paint_line_rgb(SCOL_GREEN, line);
	for (k = 0; k < sizeof(base) / sizeof(base[0]); k++) {
		struct scene sc = SCENE_INIT;
		cairo_surface_t *s;

		scene_chart(&sc, SCOL_GREEN, "", "");
		for (j = 0; j < 12; j++) {
			/* the first flat, then each with a tiny wobble */
			double v = base[k] + (k % 2 ? j * base[k] * 1e-3 : 0);

			assert_int_equal(scene_chart_point(&sc, "d", v, v, v), 0);
		}
		s = paint_check(&sc, "chart-range", 250, 320);
		if (count_rgb(s, line) < 300)
			fail_msg("base %g: no line", base[k]);
		cairo_surface_destroy(s);
		scene_release(&sc);
	}
}

/* The pictures of the docs: a player's stats and a leaderboard. */
static void stats_sample(struct scene *sc)
{
	double mu, sigma;

	rating_at(41, &mu, &sigma);
	scene_title(sc, "Ana · Glory to Rome");
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_NONE, "Played", "42");
	scene_chip(sc, SCOL_GOLD, "Wins", "17.5");
	scene_chip(sc, SCOL_NONE, "Win rate", "42%%");
	scene_chip(sc, SCOL_NONE, "Average place", "1.9");
	scene_chip(sc, SCOL_NONE, "Streak", "W3");
	scene_line(sc, SCENE_NOTE, "Rating %.1f ± %.1f (μ − 3σ: %.1f) · best score 31 · last played 14 Apr",
		   mu, sigma, mu - 3 * sigma);
	rating_chart(sc, "Rating over 42 games", 42);
}

static void leaderboard_sample(struct scene *sc)
{
	static const struct { const char *who; double mu, sigma; int games, wins; } rows[] = {
		{ "Ben", 36.1, 1.9, 58, 24 }, { "AI strong", 33.0, 1.2, 120, 41 },
		{ "Ana", 31.1, 2.5, 42, 17 }, { "Dee", 29.8, 2.6, 31, 10 },
		{ "Eve", 26.5, 2.4, 35, 8 }, { "Cy", 28.2, 3.1, 19, 6 },
		{ "AI basic", 22.0, 1.1, 140, 22 }, { "Fay", 24.9, 4.0, 11, 3 },
	};
	size_t k;

	scene_title(sc, "Leaderboard · Glory to Rome");
	scene_line(sc, SCENE_NOTE, "This server · conservative rating μ − 3σ · at least 10 games");
	scene_table(sc, 6, SCENE_EMPH);
	scene_cell(sc, "#");
	scene_cell(sc, "Player");
	scene_cell(sc, "Rating");
	scene_cell(sc, "μ ± σ");
	scene_cell(sc, "Games");
	scene_cell(sc, "Win rate");
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct scene_item *it;

		scene_cell(sc, "%zu", k + 1);
		it = scene_cell(sc, "%s", rows[k].who);
		if (!strcmp(rows[k].who, "Ana"))
			it->flags |= SCENE_MARKED;
		scene_cell(sc, "%.1f", rows[k].mu - 3 * rows[k].sigma);
		scene_cell(sc, "%.1f ± %.1f", rows[k].mu, rows[k].sigma);
		scene_cell(sc, "%d", rows[k].games);
		scene_cell(sc, "%d%%", 100 * rows[k].wins / rows[k].games);
	}
}

static void test_samples_paint(void **state)
{
	struct scene sc = SCENE_INIT;
	cairo_surface_t *s;
	unsigned char hilite[3];

	stats_sample(&sc);
	s = paint_check(&sc, "stats-chart", 400, 600);
	cairo_surface_destroy(s);
	scene_release(&sc);
	leaderboard_sample(&sc);
	s = paint_check(&sc, "leaderboard", 250, 450);
	/* the asking player's row is highlighted */
	paint_row_rgb(hilite);
	assert_true(count_rgb(s, hilite) > 2000);
	cairo_surface_destroy(s);
	scene_release(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chart_build),
		cmocka_unit_test(test_chart_numbers),
		cmocka_unit_test(test_chart_json),
		cmocka_unit_test(test_chart_bad_json),
		cmocka_unit_test(test_chart_paints),
		cmocka_unit_test(test_chart_ranges),
		cmocka_unit_test(test_samples_paint),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	paint_cleanup();
	return rc;
}
