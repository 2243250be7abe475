/*
 * paint blocks: the runner of a scene's display list — rows of pieces,
 * tracks with their markers, tables, and areas (panels, two halves side by
 * side), each drawn where it starts and saying how tall it was.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paint/paint_int.h"

/* A row: its label, then its cards and chips from *i, wrapped at w. */
static int row_draw(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w)
{
	const struct scene *sc = p->sc;
	double cx = x, cy = y, line_h = 0;
	int card_h = 0;
	size_t j, end;

	if (sc->v[*i].kind == SCENE_ROW) {
		if (sc->v[*i].text && *sc->v[*i].text) {
			pnt_text_set(p, sc->v[*i].text, F_LABEL, w, 2, PANGO_ALIGN_LEFT, NULL);
			cy += pnt_text_set(p, sc->v[*i].text, F_LABEL, w, 2, PANGO_ALIGN_LEFT, NULL);
			pnt_text_draw(p, cr, x, y, FAINT);
			cy += 3;
		}
		(*i)++;
	}
	/* the pieces: one height for the row's cards */
	for (end = *i; end < sc->n && (pnt_is_piece(sc->v[end].kind) || sc->v[end].kind == SCENE_PIP);
	     end++)
		if (sc->v[end].kind == SCENE_CARD) {
			int h = pnt_card_height(p, end);

			if (h > card_h)
				card_h = h;
		}
	for (j = *i; j < end; j++) {
		const struct scene_item *it = &sc->v[j];
		int pw, ph;

		if (it->kind == SCENE_PIP)
			continue;
		pw = it->kind == SCENE_CARD ? CARD_W : pnt_chip_width(p, it);
		ph = it->kind == SCENE_CARD ? card_h : CHIP_H;
		if (cx > x && cx + pw > x + w) {
			cx = x;
			cy += line_h + CARD_GAP;
			line_h = 0;
		}
		if (it->kind == SCENE_CARD)
			pnt_card_draw(p, cr, j, cx, cy, card_h);
		else
			pnt_chip_draw(p, cr, j, cx, cy, pw);
		cx += pw + CARD_GAP;
		if (ph > line_h)
			line_h = ph;
	}
	*i = end;
	return (int)(cy + line_h - y);
}

static void mark_draw(struct painter *p, cairo_t *cr, size_t i, double cx, double cy)
{
	const struct scene_item *it = &p->sc->v[i];
	const struct swatch *sw = pnt_swatch_of(it->colour);
	int tw, th;

	if (p->dry)
		return;

	cairo_new_path(cr);
	cairo_arc(cr, cx, cy, MARK_R, 0, 2 * M_PI);
	pnt_set_rgb(cr, sw->rgb);
	cairo_fill_preserve(cr);
	pnt_set_rgb(cr, INK);
	cairo_set_line_width(cr, 2);
	cairo_stroke(cr);
	th = pnt_text_set(p, it->text, F_MARK, 0, 0, PANGO_ALIGN_LEFT, &tw);
	pnt_text_draw(p, cr, cx - tw / 2.0, cy - th / 2.0,
		      sw->dark ? (const unsigned char *)"\xFF\xFF\xFF" : INK);
	pnt_box(p, i, cx - MARK_R, cy - MARK_R, 2 * MARK_R, 2 * MARK_R);
}

/* A track with its zones and markers, from *i. */
static int track_draw(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w)
{
	const struct scene *sc = p->sc;
	const struct scene_item *t = &sc->v[*i];
	int lo = t->a, hi = t->b < t->a ? t->a : t->b, n = hi - lo + 1, stack = 1, k;
	double cw, by, ty = y;
	int *at;
	size_t j, end;

	if (n > 200)
		n = 200, hi = lo + 199;
	cw = (double)w / n;
	if (cw > CELL_MAX)
		cw = CELL_MAX;
	if (t->text && *t->text) {
		pnt_text_set(p, t->text, F_BOLD, w, 2, PANGO_ALIGN_LEFT, NULL);
		pnt_text_draw(p, cr, x, y, INK);
		ty += pnt_text_set(p, t->text, F_BOLD, w, 2, PANGO_ALIGN_LEFT, NULL) + 6;
	}
	for (end = *i + 1; end < sc->n && (sc->v[end].kind == SCENE_ZONE ||
					   sc->v[end].kind == SCENE_MARK); end++)
		;
	at = xcalloc((size_t)n, sizeof(*at));
	for (j = *i + 1; j < end; j++)
		if (sc->v[j].kind == SCENE_MARK && sc->v[j].a >= lo && sc->v[j].a <= hi &&
		    ++at[sc->v[j].a - lo] > stack)
			stack = at[sc->v[j].a - lo];
	by = ty + (stack - 1) * (2 * MARK_R + 2);
	/* cells and zones */
	for (k = 0; k < n; k++) {
		cairo_rectangle(cr, x + k * cw, by, cw, 2 * MARK_R + 8);
		pnt_set_rgb(cr, k % 2 ? PANEL : CARD);
		cairo_fill(cr);
	}
	for (j = *i + 1; j < end; j++) {
		const struct scene_item *z = &sc->v[j];
		int a = z->a < lo ? lo : z->a, b = z->b > hi ? hi : z->b;

		if (z->kind != SCENE_ZONE || b < a)
			continue;
		cairo_rectangle(cr, x + (a - lo) * cw, by, (b - a + 1) * cw, 2 * MARK_R + 8);
		pnt_set_rgba(cr, pnt_swatch_of(z->colour)->rgb, 0.45);
		cairo_fill(cr);
	}
	for (k = 0; k < n; k++) {
		char num[16];
		int tw;

		cairo_rectangle(cr, x + k * cw + 0.5, by + 0.5, cw, 2 * MARK_R + 8);
		pnt_set_rgb(cr, EDGE);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		snprintf(num, sizeof(num), "%d", lo + k);
		pnt_text_set(p, num, F_NUM, 0, 0, PANGO_ALIGN_LEFT, &tw);
		pnt_text_draw(p, cr, x + (k + 1) * cw - tw - 3, by + 2 * MARK_R + 8 - 15, FAINT);
	}
	/* zone labels under the bar */
	ty = by + 2 * MARK_R + 8 + 3;
	{
		double lx = x - 1;
		int any = 0;

		for (j = *i + 1; j < end; j++) {
			const struct scene_item *z = &sc->v[j];
			int tw;
			double zx;

			if (z->kind != SCENE_ZONE || !z->text || !*z->text)
				continue;
			zx = x + ((z->a < lo ? lo : z->a) - lo) * cw;
			if (zx < lx)
				zx = lx;
			pnt_text_set(p, z->text, F_NOTE, 0, 0, PANGO_ALIGN_LEFT, &tw);
			pnt_shape(cr, z->colour, zx + 8, ty + 10, 13, INK);
			pnt_text_draw(p, cr, zx + 18, ty, FAINT);
			lx = zx + 18 + tw + 12;
			any = 1;
		}
		if (any)
			ty += 22;
	}
	/* markers: the first on its cell, the others stacked above */
	memset(at, 0, (size_t)n * sizeof(*at));
	for (j = *i + 1; j < end; j++) {
		const struct scene_item *m = &sc->v[j];

		if (m->kind != SCENE_MARK || m->a < lo || m->a > hi)
			continue;
		mark_draw(p, cr, j, x + (m->a - lo + 0.5) * cw,
			  by + MARK_R + 4 - at[m->a - lo] * (2 * MARK_R + 2));
		at[m->a - lo]++;
	}
	free(at);
	*i = end;
	return (int)(ty - y);
}

/* A number as a table prints one ("12", "-3.5", "42%", "33.4 ± 2.2"):
 * digits, signs, points, commas, spaces, % and ± only, and a digit: 1;
 * -1 for those without a digit (a "-" for none), which say nothing of
 * their column; 0 for the rest. */
static int numeric(const char *s)
{
	int digit = 0;

	for (; s && *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = 1;
		else if (!strncmp(s, "\xC2\xB1", 2))	/* ± */
			s += 1;
		else if (!strncmp(s, "\xE2\x88\x92", 3) || !strncmp(s, "\xE2\x80\x93", 3))
			s += 2;	/* − – */
		else if (!strchr(".,+-% ", *s))
			return 0;
	}
	return digit ? 1 : -1;
}

/* 1 when row r of the table whose cells start at first holds a marked cell. */
static int row_marked(const struct scene *sc, size_t first, size_t end, int ncols, int r)
{
	size_t k = first + (size_t)r * (size_t)ncols;

	for (; k < end && k < first + (size_t)(r + 1) * (size_t)ncols; k++)
		if (sc->v[k].flags & SCENE_MARKED)
			return 1;
	return 0;
}

/*
 * A table from *i: its cells, the first row bold when SCENE_EMPH; a
 * column of numbers (below its header) right-aligned, so that units
 * line up; a row with a SCENE_MARKED cell highlighted and bold (the
 * player who asked, in a leaderboard).
 */
static int table_draw(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w)
{
	const struct scene *sc = p->sc;
	int ncols = sc->v[*i].a < 1 ? 1 : sc->v[*i].a > 32 ? 32 : sc->v[*i].a;
	int head = (sc->v[*i].flags & SCENE_EMPH) != 0, cwid[32] = { 0 }, total = 0, c, r;
	int num[32], tw;
	size_t first = *i + 1, end, j;
	double cx;

	for (c = 0; c < ncols; c++)
		num[c] = -1;	/* not known yet */
	for (end = first; end < sc->n && sc->v[end].kind == SCENE_CELL; end++)
		;
	for (j = first; j < end; j++) {
		int hd = head && j - first < (size_t)ncols;
		int bold = hd || row_marked(sc, first, end, ncols, (int)((j - first) / (size_t)ncols));

		c = (int)((j - first) % (size_t)ncols);
		pnt_text_set(p, sc->v[j].text, bold ? F_HEAD : F_CELL, 0, 0, PANGO_ALIGN_LEFT, &tw);
		if (tw + 20 > cwid[c])
			cwid[c] = tw + 20;
		if (!hd && sc->v[j].text && *sc->v[j].text && numeric(sc->v[j].text) >= 0)
			num[c] = num[c] != 0 && numeric(sc->v[j].text);
	}
	for (c = 0; c < ncols; c++)
		total += cwid[c];
	if (total > w)
		for (c = 0; c < ncols; c++)
			cwid[c] = cwid[c] * w / total;
	for (j = first, r = 0; j < end; r++) {
		double ry = y + r * ROW_H;
		int marked = row_marked(sc, first, end, ncols, r), hd = r == 0 && head;

		if (hd)
			pnt_set_rgb(cr, pnt_swatch_of(SCOL_NONE)->rgb);
		else
			pnt_set_rgb(cr, marked ? MARKROW : r % 2 ? PANEL : CARD);
		cairo_rectangle(cr, x, ry, total < w ? total : w, ROW_H);
		cairo_fill(cr);
		if (marked) {
			cairo_rectangle(cr, x, ry, 5, ROW_H);
			pnt_set_rgb(cr, HILITE);
			cairo_fill(cr);
		}
		for (c = 0, cx = x; c < ncols && j < end; c++, j++) {
			int right = num[c] == 1;

			pnt_text_set(p, sc->v[j].text, hd || marked ? F_HEAD : F_CELL, cwid[c] - 14, 1,
				     right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT, NULL);
			pnt_text_draw(p, cr, cx + (right ? 4 : 10), ry + (ROW_H - 21) / 2.0, INK);
			cx += cwid[c];
		}
	}
	if (r) {
		cairo_rectangle(cr, x + 0.5, y + 0.5, (total < w ? total : w) - 1, r * ROW_H - 1);
		pnt_set_rgb(cr, EDGE);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
	}
	*i = end;
	return r * ROW_H;
}

/* The item after the END that closes the AREA at i (or the list's end). */
static size_t area_after(const struct scene *sc, size_t i)
{
	int depth = 0;

	for (; i < sc->n; i++) {
		if (sc->v[i].kind == SCENE_AREA)
			depth++;
		else if (sc->v[i].kind == SCENE_END && --depth == 0)
			return i + 1;
	}
	return sc->n;
}

/*
 * The area at *i drawn at (x, y), w wide: its panel h tall (0 in the
 * measuring pass, which has no height yet), its title, its blocks.
 * Returns the height it needs, and keeps it for the drawing pass.
 */
static int area_draw(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w,
		     int h)
{
	const struct scene_item *it = &p->sc->v[*i];
	size_t item = *i;
	int active = (it->flags & SCENE_ACTIVE) != 0, yy = PAD, tx = PAD;

	if (!p->dry && h > 0) {
		pnt_rounded(cr, x, y, w, h, 12);
		pnt_set_rgb(cr, PANEL);
		cairo_fill_preserve(cr);
		pnt_set_rgb(cr, active ? ACCENT : EDGE);
		cairo_set_line_width(cr, active ? 4 : 1.5);
		cairo_stroke(cr);
	}
	if (it->colour >= SCOL_SEAT) {
		/* the player's colour, as on the tracks */
		if (!p->dry) {
			cairo_new_path(cr);
			cairo_arc(cr, x + PAD + 11, y + PAD + 13, 11, 0, 2 * M_PI);
			pnt_set_rgb(cr, pnt_swatch_of(it->colour)->rgb);
			cairo_fill_preserve(cr);
			pnt_set_rgb(cr, INK);
			cairo_set_line_width(cr, 1.5);
			cairo_stroke(cr);
		}
		tx += 30;
	}
	if (it->text && *it->text) {
		int th = pnt_text_set(p, it->text, F_AREA, w - tx - PAD, 2, PANGO_ALIGN_LEFT, NULL);

		if (!p->dry)
			pnt_text_draw(p, cr, x + tx, y + yy, active ? ACCENT : INK);
		yy += th + 6;
	}
	(*i)++;
	yy += pnt_blocks(p, cr, i, x + PAD, y + yy, w - 2 * PAD, 1);
	if (*i < p->sc->n && p->sc->v[*i].kind == SCENE_END)
		(*i)++;
	yy += PAD;
	if (p->dry)
		p->area_h[item] = yy;
	return yy;
}

/* The blocks from *i down to the end (or, in_area, to the area's END). */
int pnt_blocks(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w,
	       int in_area)
{
	const struct scene *sc = p->sc;
	double y0 = y;
	int first = 1;

	while (*i < sc->n && y - y0 < PAINT_MAX_HEIGHT) {
		const struct scene_item *it = &sc->v[*i];
		int h = 0, gap = first ? 0 : GAP;

		switch (it->kind) {
		case SCENE_END:
			if (in_area)
				return (int)(y - y0);
			(*i)++;
			continue;
		case SCENE_TITLE:
			y += gap;
			h = pnt_text_set(p, it->text, F_TITLE, w, 3, PANGO_ALIGN_LEFT, NULL);
			pnt_text_draw(p, cr, x, y, INK);
			cairo_rectangle(cr, x, y + h + 4, w, 3);
			pnt_set_rgb(cr, HILITE);
			cairo_fill(cr);
			h += 7;
			(*i)++;
			break;
		case SCENE_LINE:
			y += first ? 0 : 6;
			gap = 0;
			h = pnt_text_set(p, it->text, it->flags & SCENE_NOTE ? F_NOTE
					 : it->flags & SCENE_EMPH ? F_BOLD : F_TEXT, w, 0,
					 PANGO_ALIGN_LEFT, NULL);
			pnt_text_draw(p, cr, x, y, it->flags & SCENE_NOTE ? FAINT : INK);
			(*i)++;
			break;
		case SCENE_AREA:
			y += gap;
			if ((it->flags & SCENE_HALF) && !in_area) {
				/* two halves side by side, as tall as the taller */
				size_t a = *i, b = area_after(sc, a);
				int hw = (w - HALF_GAP) / 2, pair = b < sc->n &&
					 sc->v[b].kind == SCENE_AREA && (sc->v[b].flags & SCENE_HALF);

				h = p->area_h[a];
				if (pair && p->area_h[b] > h)
					h = p->area_h[b];
				area_draw(p, cr, i, x, y, hw, h);
				if (pair)
					area_draw(p, cr, i, x + hw + HALF_GAP, y, hw, h);
				if (p->dry) {
					h = p->area_h[a];
					if (pair && p->area_h[b] > h)
						h = p->area_h[b];
				}
			} else {
				h = area_draw(p, cr, i, x, y, w, p->area_h[*i]);
			}
			break;
		case SCENE_ROW:
		case SCENE_CARD:
		case SCENE_CHIP:
			y += gap;
			h = row_draw(p, cr, i, x, y, w);
			break;
		case SCENE_TRACK:
			y += gap;
			h = track_draw(p, cr, i, x, y, w);
			break;
		case SCENE_TABLE:
			y += gap;
			h = table_draw(p, cr, i, x, y, w);
			break;
		case SCENE_CHART:
			y += gap;
			h = pnt_chart_draw(p, cr, i, x, y, w);
			break;
		default:	/* a pip, zone, mark, cell or point out of place */
			(*i)++;
			continue;
		}
		y += h;
		first = 0;
	}
	if (*i < sc->n && !in_area)
		p->cut = 1;
	return (int)(y - y0);
}
