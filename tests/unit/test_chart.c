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

#include "util/scene.h"

/* A chart of n points: a rating from 25 climbing, its band narrowing. */
static void rating_chart(struct scene *sc, int n)
{
	struct scene_item *ch;
	int k;

	ch = scene_chart(sc, SCOL_NONE, "Ana · Glory to Rome", "Rating");
	scene_set_band(ch, "uncertainty (±3σ)");
	scene_set_corner(ch, "No rated games yet");
	for (k = 0; k < n; k++) {
		double mu = 25 + 6 * (1 - exp(-k / 12.0)) + 1.5 * sin(k * 0.9);
		double sigma = 8.33 * exp(-k / 25.0) + 1;
		char day[16];

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
	rating_chart(&a, 30);
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
	assert_non_null(strstr(buf_str(&ta), "Rating\n"));
	assert_non_null(strstr(buf_str(&ta), "uncertainty (±3σ)\n"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chart_build),
		cmocka_unit_test(test_chart_numbers),
		cmocka_unit_test(test_chart_json),
		cmocka_unit_test(test_chart_bad_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
