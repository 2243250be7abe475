/*
 * The pictures: util/scene (the display list and its JSON form) and
 * paint/ (the painter and its PNG writer).  The PNGs are read back with
 * cairo's own PNG reader (libpng), an independent decoder, and probed at
 * the places the painter says it put each piece.
 *
 * TABULA_PAINT_DIR=dir writes every picture test_every_game_paints makes
 * into dir (to look at them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <zlib.h>

#include "games/game.h"
#include "paint/paint.h"
#include "util/scene.h"

static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal" };

/* ---- reading a PNG back ---- */

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

/* The decoded picture (cairo's reader); fails the test if it does not
 * decode. */
static cairo_surface_t *decode(const struct paint_image *im)
{
	struct reader r = { im->png, im->len, 0 };
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &r);

	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
		fail_msg("the PNG does not decode: %s",
			 cairo_status_to_string(cairo_surface_status(s)));
	assert_int_equal(cairo_image_surface_get_width(s), im->width);
	assert_int_equal(cairo_image_surface_get_height(s), im->height);
	return s;
}

static void pixel(cairo_surface_t *s, int x, int y, unsigned char rgb[3])
{
	const unsigned char *d = cairo_image_surface_get_data(s);
	uint32_t px;

	assert_in_range(x, 0, cairo_image_surface_get_width(s) - 1);
	assert_in_range(y, 0, cairo_image_surface_get_height(s) - 1);
	memcpy(&px, d + (size_t)y * cairo_image_surface_get_stride(s) + 4 * (size_t)x, 4);
	rgb[0] = (unsigned char)(px >> 16);
	rgb[1] = (unsigned char)(px >> 8);
	rgb[2] = (unsigned char)px;
}

static int near(const unsigned char a[3], const unsigned char b[3])
{
	int k;

	for (k = 0; k < 3; k++)
		if (abs(a[k] - b[k]) > 6)
			return 0;
	return 1;
}

/* The PNG's iTXt Description, inflated (a new string), or NULL. */
static char *description(const struct paint_image *im)
{
	size_t at = 8;

	while (at + 12 <= im->len) {
		const unsigned char *c = im->png + at;
		size_t len = (size_t)c[0] << 24 | (size_t)c[1] << 16 | (size_t)c[2] << 8 | c[3];

		if (at + 12 + len > im->len)
			break;
		if (!memcmp(c + 4, "iTXt", 4) && len > 16 && !memcmp(c + 8, "Description\0\1\0\0\0", 16)) {
			uLongf out = 1 << 20;
			char *text = calloc(1, out + 1);

			assert_int_equal(uncompress((Bytef *)text, &out, c + 8 + 16, (uLong)(len - 16)),
					 Z_OK);
			return text;
		}
		at += 12 + len;
	}
	return NULL;
}

static const struct paint_box *box_of(const struct paint_image *im, size_t item)
{
	size_t i;

	for (i = 0; i < im->nboxes; i++)
		if (im->boxes[i].item == item)
			return &im->boxes[i];
	return NULL;
}

/*
 * Every card of sc has its colour in its band, where the painter put it,
 * and every chip and marker its box inside the picture; a face-down card
 * shows no band.
 */
static void probe_cards(const struct scene *sc, const struct paint_image *im, cairo_surface_t *s)
{
	size_t i;

	for (i = 0; i < sc->n; i++) {
		const struct scene_item *it = &sc->v[i];
		const struct paint_box *b;
		unsigned char want[3], got[3];

		if (it->kind != SCENE_CARD && it->kind != SCENE_CHIP && it->kind != SCENE_MARK)
			continue;
		b = box_of(im, i);
		if (!b) {
			/* only what the page could not hold goes unpainted */
			assert_true(im->height >= PAINT_MAX_HEIGHT - 100);
			continue;
		}
		if (!(b->x >= 0 && b->y >= 0 && b->x + b->w <= im->width &&
		      b->y + b->h <= im->height))
			fail_msg("item %zu (kind %d) at %d,%d %dx%d is outside the %dx%d picture", i,
				 it->kind, b->x, b->y, b->w, b->h, im->width, im->height);
		if (it->kind != SCENE_CARD || (it->flags & (SCENE_DOWN | SCENE_DIM)))
			continue;
		/* the band's right half, below its top edge and clear of the
		 * corner value: the suit's colour */
		paint_rgb((enum scene_colour)it->colour, want);
		pixel(s, b->x + b->w / 2 + 4, b->y + 5, got);
		if (!near(got, want))
			fail_msg("card %zu \"%s\": band pixel %02x%02x%02x, want %02x%02x%02x", i,
				 it->text, got[0], got[1], got[2], want[0], want[1], want[2]);
	}
}

/* ---- the scene ---- */

static void sample(struct scene *sc)
{
	struct scene_item *it;

	scene_title(sc, "Glory to Rome: turn %d", 3);
	scene_line(sc, SCENE_EMPH, "Now: %s", "Ana");
	scene_area(sc, SCOL_NONE, 0, "Pool");
	scene_row(sc, "%s", "");
	it = scene_card(sc, SCOL_YELLOW, "Insula");
	scene_set_band(it, "Rubble");
	scene_set_corner(it, "1");
	scene_set_sub(it, "Laborer");
	scene_set_alt(it, "Insula (rubble · Laborer)");
	it->count = 2;
	it = scene_card(sc, SCOL_BLUE, "Bath");
	scene_set_band(it, "Stone");
	scene_pip(sc, SCOL_RED, "B1");
	scene_chip(sc, SCOL_BLACK, "Deck", "%d", 40);
	scene_end(sc);
	scene_area(sc, SCOL_SEAT + 1, SCENE_HALF | SCENE_ACTIVE, "Ben");
	scene_track(sc, 0, 15, "Road");
	scene_zone(sc, 10, 15, SCOL_GOLD, "Rome");
	scene_mark(sc, 12, SCOL_SEAT + 1, "B", "Ben 12");
	scene_end(sc);
	scene_area(sc, SCOL_SEAT + 2, SCENE_HALF, "Cy");
	scene_row(sc, "Hand");
	it = scene_card(sc, SCOL_NONE, "");
	it->flags |= SCENE_DOWN;
	scene_end(sc);
	scene_table(sc, 2, SCENE_EMPH);
	scene_cell(sc, "Player");
	scene_cell(sc, "VP");
	scene_cell(sc, "Ana");
	scene_cell(sc, "%d", 12);
}

static void test_scene_json(void **state)
{
	struct scene a = SCENE_INIT, b = SCENE_INIT;
	struct buf ta = BUF_INIT, tb = BUF_INIT, err = BUF_INIT;
	json_t *j, *k, *bad;
	size_t i;

	sample(&a);
	j = scene_to_json(&a);
	assert_int_equal(scene_from_json(&b, j, &err), 0);
	k = scene_to_json(&b);
	assert_true(json_equal(j, k));
	assert_int_equal(a.n, b.n);
	scene_texts(&a, &ta);
	scene_texts(&b, &tb);
	assert_string_equal(buf_str(&ta), buf_str(&tb));
	assert_non_null(strstr(buf_str(&ta), "Insula (rubble · Laborer)\n"));
	assert_non_null(strstr(buf_str(&ta), "Ben 12\n"));
	scene_release(&b);
	/* malformed: refused whole, the scene left empty */
	bad = json_pack("[{s:s}]", "k", "nonsense");
	assert_int_equal(scene_from_json(&b, bad, &err), -1);
	assert_int_equal(b.n, 0);
	json_decref(bad);
	bad = json_pack("[{s:s, s:i}]", "k", "card", "c", SCOL_COUNT);
	assert_int_equal(scene_from_json(&b, bad, &err), -1);
	json_decref(bad);
	bad = json_pack("[{s:s, s:s#}]", "k", "card", "t", "a\0b", (size_t)3);
	assert_int_equal(scene_from_json(&b, bad, &err), -1);
	json_decref(bad);
	bad = json_array();
	for (i = 0; i <= SCENE_MAX_ITEMS; i++)
		json_array_append_new(bad, json_pack("{s:s}", "k", "end"));
	assert_int_equal(scene_from_json(&b, bad, &err), -1);
	json_decref(bad);
	assert_int_equal(scene_from_json(&b, json_object_get(j, "x"), &err), -1);
	json_decref(j);
	json_decref(k);
	scene_release(&a);
	buf_release(&ta);
	buf_release(&tb);
	buf_release(&err);
}

/* Past the cap, adders drop items rather than fail; long text is cut at a
 * character boundary. */
static void test_scene_caps(void **state)
{
	struct scene sc = SCENE_INIT;
	char big[SCENE_TEXT_MAX + 8];
	int i;

	memset(big, 'a', sizeof(big) - 3);
	memcpy(big + SCENE_TEXT_MAX - 1, "\xc3\xa9", 3);	/* é across the cap */
	scene_line(&sc, 0, "%s", big);
	assert_int_equal(strlen(sc.v[0].text), SCENE_TEXT_MAX - 1);
	for (i = 0; i < SCENE_MAX_ITEMS + 10; i++)
		scene_card(&sc, SCOL_RED, "x");
	assert_int_equal(sc.n, SCENE_MAX_ITEMS);
	scene_release(&sc);
}

/* ---- the painter ---- */

static void test_paint_probes(void **state)
{
	struct scene sc = SCENE_INIT;
	struct paint_image im;
	struct buf err = BUF_INIT, texts = BUF_INIT;
	cairo_surface_t *s;
	const struct paint_box *b;
	unsigned char got[3], want[3];
	char *desc;

	sample(&sc);
	assert_int_equal(paint_scene(&sc, PAINT_BOXES, &im, &err), 0);
	assert_int_equal(im.width, PAINT_WIDTH);
	assert_true(im.height > 200 && im.height < 1200);
	assert_memory_equal(im.png, "\x89PNG\r\n\x1a\n", 8);
	s = decode(&im);
	probe_cards(&sc, &im, s);
	/* the Insula: yellow band, parchment-white face under its name */
	b = box_of(&im, 4);
	assert_non_null(b);
	assert_int_equal(sc.v[4].colour, SCOL_YELLOW);
	paint_rgb(SCOL_YELLOW, want);
	pixel(s, b->x + 70, b->y + 4, got);
	assert_true(near(got, want));
	pixel(s, b->x + b->w - 6, b->y + b->h / 2 + 6, got);
	assert_true(got[0] > 0xF0 && got[1] > 0xF0 && got[2] > 0xE0);
	/* the Bath's pip: red */
	b = box_of(&im, 6);
	assert_non_null(b);
	paint_rgb(SCOL_RED, want);
	pixel(s, b->x + 2, b->y + b->h / 2, got);
	assert_true(near(got, want));
	/* Ben's marker on 12, inside his half of the page */
	b = box_of(&im, 12);
	assert_non_null(b);
	assert_true(b->x + b->w < PAINT_WIDTH / 2);
	paint_rgb(SCOL_SEAT + 1, want);
	pixel(s, b->x + 4, b->y + b->h / 2, got);
	assert_true(near(got, want));
	/* Cy's face-down card: a back, not a yellow or white face */
	b = box_of(&im, 16);
	assert_non_null(b);
	assert_true(b->x > PAINT_WIDTH / 2);
	pixel(s, b->x + b->w / 2, b->y + b->h / 2, got);
	assert_true(got[0] < 0x80 && got[1] < 0x80);
	/* the description holds every text of the scene */
	desc = description(&im);
	assert_non_null(desc);
	scene_texts(&sc, &texts);
	assert_string_equal(desc, buf_str(&texts));
	free(desc);
	cairo_surface_destroy(s);
	paint_image_release(&im);
	/* an empty scene is a small blank picture */
	scene_release(&sc);
	assert_int_equal(paint_scene(&sc, 0, &im, &err), 0);
	assert_true(im.height > 0 && im.height < 100);
	s = decode(&im);
	cairo_surface_destroy(s);
	paint_image_release(&im);
	buf_release(&err);
	buf_release(&texts);
}

/* ---- every game ---- */

static void save_png(const struct paint_image *im, const char *game, const char *when,
		     const char *who, enum locale loc)
{
	const char *dir = getenv("TABULA_PAINT_DIR");
	char path[512];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s-%s-%s-%s.png", dir, game, when, who, locale_code(loc));
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(im->png, 1, im->len, f), im->len);
	fclose(f);
}

/* Paints the public board and every seat's view of st in both languages,
 * decodes each and probes its cards. */
static void paint_all(const struct game_ops *g, const void *st, int n, const char *when)
{
	int seat, l;

	for (l = 0; l < LOC_COUNT; l++)
		for (seat = -1; seat < n; seat++) {
			struct game_view v = { (enum locale)l, n, names };
			struct scene sc = SCENE_INIT;
			struct paint_image im;
			struct buf err = BUF_INIT;
			cairo_surface_t *s;
			char who[16];

			assert_int_equal(g->scene(st, seat, &v, &sc), 0);
			assert_true(sc.n >= 2);
			if (paint_scene(&sc, PAINT_BOXES, &im, &err))
				fail_msg("%s %s: %s", g->id, when, buf_str(&err));
			assert_true(im.height < PAINT_MAX_HEIGHT);	/* nothing was cut */
			s = decode(&im);
			probe_cards(&sc, &im, s);
			snprintf(who, sizeof(who), seat < 0 ? "board" : "seat%d", seat);
			if (seat <= 0)
				save_png(&im, g->id, when, who, (enum locale)l);
			cairo_surface_destroy(s);
			paint_image_release(&im);
			scene_release(&sc);
			buf_release(&err);
		}
}

static int play_to(const struct game_ops *g, void *st, int n, uint64_t seed, int stop)
{
	struct buf err = BUF_INIT;
	struct rng r;
	int moves = 0;

	rng_seed(&r, seed, 7);
	assert_int_equal(g->setup(st, n, seed, "", &err), 0);
	while (g->awaiting(st) && moves != stop) {
		unsigned aw = g->awaiting(st);
		int seat = 0;
		struct move m;

		while (!(aw & (1u << seat)))
			seat++;
		assert_int_equal(g->bot_move(st, seat, &r, &m), 0);
		assert_int_equal(g->apply(st, seat, m, NULL, &err), 0);
		moves++;
	}
	buf_release(&err);
	return moves;
}

/* Every game's board and views at its start, in the middle and at the end
 * paint, decode, and show each card's colour where the layout put it. */
static void test_every_game_paints(void **state)
{
	const struct game_ops *const *all = game_all();
	size_t i;

	for (i = 0; all[i]; i++) {
		const struct game_ops *g = all[i];
		int n = g->max_players > 4 ? 4 : g->max_players, total;
		void *st = game_state_new(g);

		/* every game has pictures (issue 17): a new game without its
		 * scene fails here, not silently on every platform */
		if (!g->scene)
			fail_msg("%s has no scene", g->id);
		total = play_to(g, st, n, 42, 0);
		paint_all(g, st, n, "start");
		memset(st, 0, g->state_size);
		total = play_to(g, st, n, 42, -1);
		memset(st, 0, g->state_size);
		play_to(g, st, n, 42, total / 2);
		paint_all(g, st, n, "mid");
		memset(st, 0, g->state_size);
		play_to(g, st, n, 42, -1);
		paint_all(g, st, n, "end");
		free(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scene_json),
		cmocka_unit_test(test_scene_caps),
		cmocka_unit_test(test_paint_probes),
		cmocka_unit_test(test_every_game_paints),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	paint_cleanup();
	return rc;
}
