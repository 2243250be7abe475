/*
 * scene: the display list (util/scene.h): building, reading, JSON.
 */
#include "util/scene.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

static const char *const kind_names[SCENE_KIND_COUNT] = {
	[SCENE_TITLE] = "title", [SCENE_LINE] = "line", [SCENE_AREA] = "area",
	[SCENE_END] = "end", [SCENE_ROW] = "row", [SCENE_CARD] = "card",
	[SCENE_CHIP] = "chip", [SCENE_PIP] = "pip", [SCENE_TRACK] = "track",
	[SCENE_ZONE] = "zone", [SCENE_MARK] = "mark", [SCENE_TABLE] = "table",
	[SCENE_CELL] = "cell", [SCENE_CHART] = "chart", [SCENE_POINT] = "point",
};

void scene_init(struct scene *sc)
{
	memset(sc, 0, sizeof(*sc));
}

static void item_release(struct scene_item *it)
{
	free(it->text);
	free(it->band);
	free(it->sub);
	free(it->corner);
	free(it->alt);
}

void scene_release(struct scene *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		item_release(&sc->v[i]);
	item_release(&sc->spare);
	free(sc->v);
	memset(sc, 0, sizeof(*sc));
}

/* A copy of s of at most SCENE_TEXT_MAX bytes, cut before a character. */
static char *cut_dup(const char *s)
{
	size_t n = strlen(s);
	char *out;

	if (n > SCENE_TEXT_MAX) {
		n = SCENE_TEXT_MAX;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	out = xmalloc(n + 1);
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static char *vfmt(const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;
	char *out;

	buf_vprintf(&b, fmt, ap);
	out = cut_dup(buf_str(&b));
	buf_release(&b);
	return out;
}

/* A new item of kind at the end, or the spare one past the cap (dropped:
 * the adders never fail, and a scene that large is a game's bug). */
static struct scene_item *add(struct scene *sc, enum scene_kind kind, enum scene_colour c)
{
	struct scene_item *it;

	if (sc->n >= SCENE_MAX_ITEMS) {
		it = &sc->spare;
		item_release(it);
	} else {
		if (sc->n == sc->cap) {
			sc->cap = sc->cap ? sc->cap * 2 : 64;
			sc->v = xrealloc(sc->v, sc->cap * sizeof(*sc->v));
		}
		it = &sc->v[sc->n++];
	}
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	it->colour = (uint8_t)(c < SCOL_COUNT ? c : SCOL_NONE);
	return it;
}

void scene_title(struct scene *sc, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_TITLE, SCOL_NONE);
	va_list ap;

	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

void scene_line(struct scene *sc, unsigned flags, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_LINE, SCOL_NONE);
	va_list ap;

	it->flags = (uint16_t)(flags & SCENE_FLAGS_ALL);
	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

void scene_area(struct scene *sc, enum scene_colour c, unsigned flags, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_AREA, c);
	va_list ap;

	it->flags = (uint16_t)(flags & SCENE_FLAGS_ALL);
	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

void scene_end(struct scene *sc)
{
	add(sc, SCENE_END, SCOL_NONE);
}

void scene_row(struct scene *sc, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_ROW, SCOL_NONE);
	va_list ap;

	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

struct scene_item *scene_card(struct scene *sc, enum scene_colour c, const char *title)
{
	struct scene_item *it = add(sc, SCENE_CARD, c);

	it->text = cut_dup(title ? title : "");
	it->count = 1;
	return it;
}

struct scene_item *scene_chip(struct scene *sc, enum scene_colour c, const char *label,
			      const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_CHIP, c);
	va_list ap;

	it->text = cut_dup(label ? label : "");
	va_start(ap, fmt);
	it->corner = vfmt(fmt, ap);
	va_end(ap);
	return it;
}

void scene_pip(struct scene *sc, enum scene_colour c, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_PIP, c);
	va_list ap;

	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

static int16_t clamp16(int v)
{
	return (int16_t)(v < -30000 ? -30000 : v > 30000 ? 30000 : v);
}

void scene_track(struct scene *sc, int lo, int hi, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_TRACK, SCOL_NONE);
	va_list ap;

	it->a = clamp16(lo);
	it->b = clamp16(hi);
	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

void scene_zone(struct scene *sc, int from, int to, enum scene_colour c, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_ZONE, c);
	va_list ap;

	it->a = clamp16(from);
	it->b = clamp16(to);
	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
}

struct scene_item *scene_mark(struct scene *sc, int pos, enum scene_colour c, const char *label,
			      const char *alt)
{
	struct scene_item *it = add(sc, SCENE_MARK, c);

	it->a = clamp16(pos);
	it->text = cut_dup(label ? label : "");
	if (alt)
		it->alt = cut_dup(alt);
	return it;
}

void scene_table(struct scene *sc, int ncols, unsigned flags)
{
	struct scene_item *it = add(sc, SCENE_TABLE, SCOL_NONE);

	it->a = clamp16(ncols < 1 ? 1 : ncols);
	it->flags = (uint16_t)(flags & SCENE_FLAGS_ALL);
}

struct scene_item *scene_cell(struct scene *sc, const char *fmt, ...)
{
	struct scene_item *it = add(sc, SCENE_CELL, SCOL_NONE);
	va_list ap;

	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
	return it;
}

struct scene_item *scene_chart(struct scene *sc, enum scene_colour c, const char *title,
			       const char *y_label)
{
	struct scene_item *it = add(sc, SCENE_CHART, c);

	it->text = cut_dup(title ? title : "");
	it->sub = cut_dup(y_label ? y_label : "");
	return it;
}

void scene_number(double v, char out[32])
{
	double a = fabs(v);
	int dec;
	char *p;

	if (!isfinite(v)) {
		snprintf(out, 32, "?");
		return;
	}
	if (a == 0) {
		snprintf(out, 32, "0");	/* never "-0" */
		return;
	}
	if (a >= 1e6 || a < 1e-3) {
		snprintf(out, 32, "%.3g", v);
		return;
	}
	dec = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : a >= 0.01 ? 4 : 5;
	snprintf(out, 32, "%.*f", dec, v);
	if (dec) {
		/* no needless zeros: "25.30" -> "25.3", "2.00" -> "2" */
		p = out + strlen(out) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	if (!strcmp(out, "-0"))
		snprintf(out, 32, "0");
}

/* The index of the chart the scene's last items belong to, or -1. */
static long last_chart(const struct scene *sc)
{
	size_t i = sc->n;

	while (i > 0 && sc->v[i - 1].kind == SCENE_POINT && sc->n - i <= SCENE_CHART_POINTS)
		i--;
	if (i > 0 && sc->v[i - 1].kind == SCENE_CHART)
		return (long)(i - 1);
	return -1;
}

static int point_ok(double y, double lo, double hi)
{
	return isfinite(y) && isfinite(lo) && isfinite(hi) && fabs(y) <= SCENE_CHART_ABS &&
	       fabs(lo) <= SCENE_CHART_ABS && fabs(hi) <= SCENE_CHART_ABS && lo <= y && y <= hi;
}

/* Its printed numbers, from y, lo and hi (corner, sub). */
static void point_print(struct scene_item *it)
{
	char a[32], b[32];

	scene_number(it->y, a);
	it->corner = xstrdup(a);
	if (it->lo != it->y || it->hi != it->y) {
		scene_number(it->lo, a);
		scene_number(it->hi, b);
		size_t n = strlen(a) + strlen(b) + 4;

		it->sub = xmalloc(n);
		snprintf(it->sub, n, "%s\xE2\x80\x93%s", a, b);	/* an en dash */
	}
}

int scene_chart_point(struct scene *sc, const char *x_label, double y, double lo, double hi)
{
	long c = last_chart(sc);
	struct scene_item *it;

	if (c < 0 || sc->v[c].count >= SCENE_CHART_POINTS || !point_ok(y, lo, hi) ||
	    sc->n >= SCENE_MAX_ITEMS)
		return -1;
	sc->v[c].count++;
	it = add(sc, SCENE_POINT, SCOL_NONE);
	it->text = cut_dup(x_label ? x_label : "");
	it->y = y;
	it->lo = lo;
	it->hi = hi;
	point_print(it);
	return 0;
}

void scene_initial(const char *name, char out[8])
{
	size_t n = 1;
	unsigned char c = name ? (unsigned char)name[0] : 0;

	if (!c) {
		snprintf(out, 8, "?");
		return;
	}
	if (c >= 0xF0)
		n = 4;
	else if (c >= 0xE0)
		n = 3;
	else if (c >= 0xC0)
		n = 2;
	if (strlen(name) < n || !utf8_valid(name, n)) {
		snprintf(out, 8, "?");
		return;
	}
	memcpy(out, name, n);
	out[n] = '\0';
	if (n == 1 && c >= 'a' && c <= 'z')
		out[0] = (char)(c - 'a' + 'A');
}

#define SETTER(name, field)						\
	void name(struct scene_item *it, const char *fmt, ...)		\
	{								\
		va_list ap;						\
									\
		free(it->field);					\
		va_start(ap, fmt);					\
		it->field = vfmt(fmt, ap);				\
		va_end(ap);						\
	}

SETTER(scene_set_band, band)
SETTER(scene_set_sub, sub)
SETTER(scene_set_corner, corner)
SETTER(scene_set_alt, alt)

/* ---- reading ---- */

static void text_line(const char *s, struct buf *out)
{
	const char *p;

	if (!s || !*s)
		return;
	for (p = s; *p; p++)
		buf_addch(out, *p == '\n' || *p == '\r' ? ' ' : *p);
	buf_addch(out, '\n');
}

void scene_texts(const struct scene *sc, struct buf *out)
{
	size_t i;

	for (i = 0; i < sc->n; i++) {
		const struct scene_item *it = &sc->v[i];

		text_line(it->band, out);
		text_line(it->text, out);
		text_line(it->sub, out);
		text_line(it->corner, out);
		text_line(it->alt, out);
	}
}

/* ---- JSON ---- */

json_t *scene_to_json(const struct scene *sc)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < sc->n; i++) {
		const struct scene_item *it = &sc->v[i];
		json_t *o = json_pack("{s:s}", "k", kind_names[it->kind]);

		if (it->colour)
			json_object_set_new(o, "c", json_integer(it->colour));
		if (it->flags)
			json_object_set_new(o, "f", json_integer(it->flags));
		if (it->a)
			json_object_set_new(o, "a", json_integer(it->a));
		if (it->b)
			json_object_set_new(o, "b", json_integer(it->b));
		if (it->count != 0 && !(it->kind == SCENE_CARD && it->count == 1))
			json_object_set_new(o, "n", json_integer(it->count));
		if (it->text)
			json_object_set_new(o, "t", json_string(it->text));
		if (it->band)
			json_object_set_new(o, "bd", json_string(it->band));
		if (it->sub)
			json_object_set_new(o, "s", json_string(it->sub));
		if (it->corner)
			json_object_set_new(o, "cn", json_string(it->corner));
		if (it->alt)
			json_object_set_new(o, "alt", json_string(it->alt));
		if (it->kind == SCENE_POINT) {
			json_object_set_new(o, "y", json_real(it->y));
			json_object_set_new(o, "lo", json_real(it->lo));
			json_object_set_new(o, "hi", json_real(it->hi));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static int get_int(const json_t *o, const char *key, int lo, int hi, int def, int *out)
{
	const json_t *v = json_object_get(o, key);

	if (!v) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return -1;
	*out = (int)json_integer_value(v);
	return 0;
}

static int get_str(const json_t *o, const char *key, char **out)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) > SCENE_TEXT_MAX ||
	    !utf8_valid(json_string_value(v), json_string_length(v)) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -1;
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int get_num(const json_t *o, const char *key, double *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

/* A point's values, checked as scene_chart_point checks them, under the
 * chart it follows (*chart, -1 when none). */
static int point_from_json(struct scene *sc, const json_t *o, struct scene_item *it, long chart)
{
	if (chart < 0 || sc->v[chart].count >= SCENE_CHART_POINTS || get_num(o, "y", &it->y) ||
	    get_num(o, "lo", &it->lo) || get_num(o, "hi", &it->hi) ||
	    !point_ok(it->y, it->lo, it->hi))
		return -1;
	sc->v[chart].count++;
	return 0;
}

int scene_from_json(struct scene *sc, const json_t *j, struct buf *err)
{
	size_t i;
	long chart = -1;

	scene_init(sc);
	if (!json_is_array(j) || json_array_size(j) > SCENE_MAX_ITEMS) {
		buf_setf(err, "a scene is an array of at most %d items", SCENE_MAX_ITEMS);
		return -1;
	}
	for (i = 0; i < json_array_size(j); i++) {
		const json_t *o = json_array_get(j, i);
		const char *k = json_string_value(json_object_get(o, "k"));
		struct scene_item *it;
		int kind, c, f, a, b, n;

		for (kind = 0; k && kind < SCENE_KIND_COUNT; kind++)
			if (!strcmp(k, kind_names[kind]))
				break;
		if (!k || kind == SCENE_KIND_COUNT ||
		    get_int(o, "c", 0, SCOL_COUNT - 1, 0, &c) ||
		    get_int(o, "f", 0, SCENE_FLAGS_ALL, 0, &f) ||
		    get_int(o, "a", -30000, 30000, 0, &a) ||
		    get_int(o, "b", -30000, 30000, 0, &b) ||
		    get_int(o, "n", -30000, 30000, kind == SCENE_CARD ? 1 : 0, &n)) {
			buf_setf(err, "scene item %zu is malformed", i);
			scene_release(sc);
			return -1;
		}
		if (kind == SCENE_POINT && (chart < 0 || sc->v[chart].count >= SCENE_CHART_POINTS)) {
			buf_setf(err, "scene item %zu is a point out of a chart, or past %d",
				 i, SCENE_CHART_POINTS);
			scene_release(sc);
			return -1;
		}
		it = add(sc, (enum scene_kind)kind, (enum scene_colour)c);
		it->flags = (uint16_t)f;
		it->a = (int16_t)a;
		it->b = (int16_t)b;
		it->count = (int16_t)n;
		if (kind == SCENE_CHART) {
			it->count = 0;	/* counted again from its points */
			chart = (long)(sc->n - 1);
		} else if (kind == SCENE_POINT) {
			if (point_from_json(sc, o, it, chart)) {
				buf_setf(err, "scene item %zu is a malformed point", i);
				scene_release(sc);
				return -1;
			}
		} else {
			chart = -1;
		}
		if (get_str(o, "t", &it->text) || get_str(o, "bd", &it->band) ||
		    get_str(o, "s", &it->sub) || get_str(o, "cn", &it->corner) ||
		    get_str(o, "alt", &it->alt)) {
			buf_setf(err, "scene item %zu has a bad string", i);
			scene_release(sc);
			return -1;
		}
	}
	return 0;
}
