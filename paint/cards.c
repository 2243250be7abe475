/*
 * paint cards: the palette (a colour and a shape per scene colour), the
 * shapes, and the pieces drawn in a row — cards (title, band, pips, a back
 * for a face-down one) and chips.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paint/paint_int.h"

/* Colours that stay apart for the common colour blindnesses as far as a
 * palette of thirteen can, and a shape each so that none has to. */
static const struct swatch swatches[SCOL_COUNT] = {
	[SCOL_NONE] = { { 0xE6, 0xDC, 0xC3 }, 0, SH_NONE },
	[SCOL_YELLOW] = { { 0xF2, 0xC9, 0x3B }, 0, SH_CIRCLE },
	[SCOL_BROWN] = { { 0x8B, 0x5A, 0x2B }, 1, SH_SQUARE },
	[SCOL_RED] = { { 0xC4, 0x3C, 0x2C }, 1, SH_TRIANGLE },
	[SCOL_ORANGE] = { { 0xEA, 0x8A, 0x32 }, 0, SH_DIAMOND },
	[SCOL_GREY] = { { 0x9A, 0x9D, 0xA1 }, 0, SH_HEXAGON },
	[SCOL_BLUE] = { { 0x2F, 0x6D, 0xC2 }, 1, SH_PENTAGON },
	[SCOL_PURPLE] = { { 0x7E, 0x4F, 0xB0 }, 1, SH_STAR },
	[SCOL_GREEN] = { { 0x2E, 0x8B, 0x4E }, 1, SH_PLUS },
	[SCOL_TEAL] = { { 0x1F, 0x9A, 0x9A }, 1, SH_TRIANGLE_DOWN },
	[SCOL_PINK] = { { 0xE8, 0x8F, 0xB8 }, 0, SH_RING },
	[SCOL_BLACK] = { { 0x33, 0x33, 0x36 }, 1, SH_BAR },
	[SCOL_WHITE] = { { 0xFA, 0xFA, 0xF5 }, 0, SH_SQUARE_OPEN },
	[SCOL_GOLD] = { { 0xD4, 0xA7, 0x2C }, 0, SH_SPARKLE },
	/* players: Okabe and Ito's palette, and the letter in the marker */
	[SCOL_SEAT + 0] = { { 0xE6, 0x9F, 0x00 }, 0, SH_CIRCLE },
	[SCOL_SEAT + 1] = { { 0x56, 0xB4, 0xE9 }, 0, SH_CIRCLE },
	[SCOL_SEAT + 2] = { { 0x00, 0x9E, 0x73 }, 1, SH_CIRCLE },
	[SCOL_SEAT + 3] = { { 0xF0, 0xE4, 0x42 }, 0, SH_CIRCLE },
	[SCOL_SEAT + 4] = { { 0x00, 0x72, 0xB2 }, 1, SH_CIRCLE },
	[SCOL_SEAT + 5] = { { 0xD5, 0x5E, 0x00 }, 1, SH_CIRCLE },
	[SCOL_SEAT + 6] = { { 0xCC, 0x79, 0xA7 }, 0, SH_CIRCLE },
	[SCOL_SEAT + 7] = { { 0x99, 0x99, 0x99 }, 0, SH_CIRCLE },
};

void paint_rgb(enum scene_colour c, unsigned char rgb[3])
{
	memcpy(rgb, swatches[c < SCOL_COUNT ? c : SCOL_NONE].rgb, 3);
}

void pnt_set_rgb(cairo_t *cr, const unsigned char rgb[3])
{
	cairo_set_source_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
}

void pnt_set_rgba(cairo_t *cr, const unsigned char rgb[3], double a)
{
	cairo_set_source_rgba(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0, a);
}

const struct swatch *pnt_swatch_of(int c)
{
	return &swatches[c >= 0 && c < SCOL_COUNT ? c : SCOL_NONE];
}

void pnt_rounded(cairo_t *cr, double x, double y, double w, double h, double r)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
	cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
	cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
	cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
	cairo_close_path(cr);
}

static void polygon(cairo_t *cr, double cx, double cy, double r, int n, double turn)
{
	int k;

	for (k = 0; k < n; k++) {
		double a = turn + 2 * M_PI * k / n;

		if (k)
			cairo_line_to(cr, cx + r * cos(a), cy + r * sin(a));
		else
			cairo_move_to(cr, cx + r * cos(a), cy + r * sin(a));
	}
	cairo_close_path(cr);
}

static void star(cairo_t *cr, double cx, double cy, double r, int points, double inner)
{
	int k;

	for (k = 0; k < 2 * points; k++) {
		double a = -M_PI / 2 + M_PI * k / points, rr = k % 2 ? r * inner : r;

		if (k)
			cairo_line_to(cr, cx + rr * cos(a), cy + rr * sin(a));
		else
			cairo_move_to(cr, cx + rr * cos(a), cy + rr * sin(a));
	}
	cairo_close_path(cr);
}

/* The shape of colour c, size s, centred at (cx, cy): filled with the
 * colour and outlined in ink (on a band of the same colour, ink = the
 * band's text colour, so it shows). */
void pnt_shape(cairo_t *cr, int c, double cx, double cy, double s, const unsigned char *ink)
{
	const struct swatch *sw = pnt_swatch_of(c);
	double r = s / 2;

	cairo_new_path(cr);
	switch (sw->shape) {
	case SH_NONE:
		return;
	case SH_CIRCLE:
	case SH_RING:
		cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
		break;
	case SH_SQUARE:
	case SH_SQUARE_OPEN:
		cairo_rectangle(cr, cx - r * 0.85, cy - r * 0.85, r * 1.7, r * 1.7);
		break;
	case SH_TRIANGLE:
		polygon(cr, cx, cy + r * 0.15, r * 1.05, 3, -M_PI / 2);
		break;
	case SH_TRIANGLE_DOWN:
		polygon(cr, cx, cy - r * 0.15, r * 1.05, 3, M_PI / 2);
		break;
	case SH_DIAMOND:
		polygon(cr, cx, cy, r * 1.05, 4, -M_PI / 2);
		break;
	case SH_HEXAGON:
		polygon(cr, cx, cy, r, 6, 0);
		break;
	case SH_PENTAGON:
		polygon(cr, cx, cy + r * 0.08, r, 5, -M_PI / 2);
		break;
	case SH_STAR:
		star(cr, cx, cy + r * 0.05, r * 1.05, 5, 0.45);
		break;
	case SH_SPARKLE:
		star(cr, cx, cy, r * 1.05, 4, 0.38);
		break;
	case SH_PLUS:
		cairo_rectangle(cr, cx - r * 0.32, cy - r, r * 0.64, 2 * r);
		cairo_rectangle(cr, cx - r, cy - r * 0.32, 2 * r, r * 0.64);
		break;
	case SH_BAR:
		cairo_rectangle(cr, cx - r, cy - r * 0.35, 2 * r, r * 0.7);
		break;
	}
	if (sw->shape == SH_RING || sw->shape == SH_SQUARE_OPEN) {
		pnt_set_rgb(cr, ink);
		cairo_set_line_width(cr, s * 0.22);
		cairo_stroke(cr);
		return;
	}
	pnt_set_rgb(cr, sw->rgb);
	cairo_fill_preserve(cr);
	pnt_set_rgb(cr, ink);
	cairo_set_line_width(cr, 1.6);
	cairo_stroke(cr);
}

int pnt_is_piece(int kind)
{
	return kind == SCENE_CARD || kind == SCENE_CHIP;
}

/* The pips after card i: [i + 1, *end). */
static void pips_of(const struct scene *sc, size_t i, size_t *end)
{
	size_t j = i + 1;

	while (j < sc->n && sc->v[j].kind == SCENE_PIP)
		j++;
	*end = j;
}

static int pip_width(struct painter *p, const struct scene_item *it)
{
	int w;

	pnt_text_set(p, it->text, F_PIP, 0, 0, PANGO_ALIGN_LEFT, &w);
	return w + 9;
}

/* Rows of pips in a card of inner width w. */
static int pip_lines(struct painter *p, size_t i, int w)
{
	size_t j, end;
	int x = 0, lines = 0;

	pips_of(p->sc, i, &end);
	for (j = i + 1; j < end; j++) {
		int pw = pip_width(p, &p->sc->v[j]);

		if (!lines || x + pw > w) {
			lines++;
			x = 0;
		}
		x += pw + 3;
	}
	return lines;
}

/* The size card i's title is set in (fitted once). */
int pnt_title_px(struct painter *p, size_t i)
{
	if (!p->title_px[i])
		p->title_px[i] = (short)pnt_fit_px(p, p->sc->v[i].text, F_CARD, CARD_W - 16, 12);
	return p->title_px[i];
}

/* The height card i needs (measured once). */
int pnt_card_height(struct painter *p, size_t i)
{
	const struct scene_item *it = &p->sc->v[i];
	int h = BAND_H + 6, inner = CARD_W - 16;

	if (p->card_h[i])
		return p->card_h[i];
	h += pnt_text_set_px(p, it->text, F_CARD, pnt_title_px(p, i), inner, 3, PANGO_ALIGN_LEFT, NULL);
	if (it->sub && *it->sub)
		h += 2 + pnt_text_set(p, it->sub, F_SUB, inner, 3, PANGO_ALIGN_LEFT, NULL);
	h += pip_lines(p, i, inner) * (PIP_H + 4);
	if (it->count > 1)
		h += 6;
	h = h + 8 < 78 ? 78 : h + 8;
	p->card_h[i] = (short)h;
	return h;
}

void pnt_card_draw(struct painter *p, cairo_t *cr, size_t i, double x, double y, int h)
{
	const struct scene_item *it = &p->sc->v[i];
	const struct swatch *sw = pnt_swatch_of(it->colour);
	const unsigned char *ink = sw->dark ? (const unsigned char *)"\xFF\xFF\xFF" : INK;
	int down = (it->flags & SCENE_DOWN) != 0, inner = CARD_W - 16, bx;
	double ty;
	size_t j, end;

	if (p->dry)
		return;

	/* the card */
	pnt_rounded(cr, x, y, CARD_W, h, 9);
	pnt_set_rgb(cr, down ? BACK : CARD);
	cairo_fill_preserve(cr);
	if (it->flags & SCENE_MARKED) {
		pnt_set_rgb(cr, HILITE);
		cairo_set_line_width(cr, 5);
	} else {
		pnt_set_rgb(cr, EDGE);
		cairo_set_line_width(cr, 1.5);
	}
	cairo_stroke(cr);
	if (down) {
		/* a back: diagonal stripes (x + y = 16 n from the card's
		 * corner), so it never reads as a face: a rectangle inside the
		 * pnt_rounded corners filled with a tile of them (drawing the lines
		 * themselves, clipped, cost more than the rest of the card) */
		cairo_matrix_t mx;

		cairo_save(cr);
		cairo_rectangle(cr, x + 5, y + 5, CARD_W - 10, h - 10);
		cairo_matrix_init_translate(&mx, -(x + y), 0);
		cairo_pattern_set_matrix(pnt_stripes(), &mx);
		cairo_set_source(cr, pnt_stripes());
		cairo_fill(cr);
		cairo_restore(cr);
	} else {
		/* the band: the suit's colour, its shape, its words, the value;
		 * the card's top with its pnt_rounded corners, filled (no clip) */
		cairo_new_sub_path(cr);
		cairo_arc(cr, x + 9, y + 9, 9, M_PI, 3 * M_PI / 2);
		cairo_arc(cr, x + CARD_W - 9, y + 9, 9, -M_PI / 2, 0);
		cairo_line_to(cr, x + CARD_W, y + BAND_H);
		cairo_line_to(cr, x, y + BAND_H);
		cairo_close_path(cr);
		pnt_set_rgb(cr, sw->rgb);
		cairo_fill(cr);
		bx = 8;
		if (sw->shape != SH_NONE) {
			pnt_shape(cr, it->colour, x + bx + 9, y + BAND_H / 2.0, 16, ink);
			bx += 24;
		}
		if (it->corner && *it->corner) {
			int cw;

			pnt_text_set(p, it->corner, F_CORNER, 0, 0, PANGO_ALIGN_LEFT, &cw);
			pnt_text_draw(p, cr, x + CARD_W - 8 - cw, y + (BAND_H - 21) / 2.0, ink);
			inner -= cw + 6;
		}
		if (it->band && *it->band)
			pnt_line_draw(p, cr, it->band, F_BAND, x + bx, y + (BAND_H - 16) / 2.0,
				      inner - bx + 8, ink);
		inner = CARD_W - 16;
	}
	ty = y + BAND_H + 4;
	ty += pnt_text_set_px(p, it->text, F_CARD, pnt_title_px(p, i), inner, 3, PANGO_ALIGN_LEFT, NULL);
	pnt_text_draw(p, cr, x + 8, y + BAND_H + 4, down ? (const unsigned char *)"\xF0\xF0\xF0" : INK);
	if (it->sub && *it->sub) {
		int sh = pnt_text_set(p, it->sub, F_SUB, inner, 3, PANGO_ALIGN_LEFT, NULL);

		pnt_text_draw(p, cr, x + 8, ty + 2, down ? (const unsigned char *)"\xD8\xD8\xD8" : FAINT);
		ty += 2 + sh;
	}
	/* pips at the foot */
	pips_of(p->sc, i, &end);
	if (end > i + 1) {
		double px = 0, py = ty + 4;

		for (j = i + 1; j < end; j++) {
			const struct scene_item *pip = &p->sc->v[j];
			const struct swatch *ps = pnt_swatch_of(pip->colour);
			int pw = pip_width(p, pip);

			if (px && px + pw > inner) {
				px = 0;
				py += PIP_H + 4;
			}
			pnt_rounded(cr, x + 8 + px, py, pw, PIP_H, 5);
			pnt_set_rgb(cr, ps->rgb);
			cairo_fill_preserve(cr);
			pnt_set_rgba(cr, INK, 0.5);
			cairo_set_line_width(cr, 1);
			cairo_stroke(cr);
			pnt_text_set(p, pip->text, F_PIP, 0, 0, PANGO_ALIGN_LEFT, NULL);
			pnt_text_draw(p, cr, x + 8 + px + 4.5, py + 3.5,
				      ps->dark ? (const unsigned char *)"\xFF\xFF\xFF" : INK);
			pnt_box(p, j, x + 8 + px, py, pw, PIP_H);
			px += pw + 3;
		}
	}
	if (it->count > 1) {
		char n[16];
		int cw;

		snprintf(n, sizeof(n), "\xC3\x97%d", it->count);	/* ×n */
		pnt_text_set(p, n, F_CORNER, 0, 0, PANGO_ALIGN_LEFT, &cw);
		pnt_rounded(cr, x + CARD_W - cw - 16, y + h - 30, cw + 10, 24, 8);
		pnt_set_rgb(cr, INK);
		cairo_fill(cr);
		pnt_text_draw(p, cr, x + CARD_W - cw - 11, y + h - 29, (const unsigned char *)"\xFF\xFF\xFF");
	}
	if (it->flags & SCENE_DIM) {
		pnt_rounded(cr, x, y, CARD_W, h, 9);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.55);
		cairo_fill(cr);
	}
	pnt_box(p, i, x, y, CARD_W, h);
}

int pnt_chip_width(struct painter *p, const struct scene_item *it)
{
	int lw = 0, vw = 0, w = 18;

	if (pnt_swatch_of(it->colour)->shape != SH_NONE)
		w += 26;
	if (it->text && *it->text)
		pnt_text_set(p, it->text, F_CHIP, 0, 0, PANGO_ALIGN_LEFT, &lw);
	if (it->corner && *it->corner)
		pnt_text_set(p, it->corner, F_CHIPV, 0, 0, PANGO_ALIGN_LEFT, &vw);
	w += lw + vw + (lw && vw ? 6 : 0);
	return w > PAINT_WIDTH - 2 * MARGIN - 2 * PAD ? PAINT_WIDTH - 2 * MARGIN - 2 * PAD : w;
}

void pnt_chip_draw(struct painter *p, cairo_t *cr, size_t i, double x, double y, int w)
{
	const struct scene_item *it = &p->sc->v[i];
	double tx = x + 9;
	int lw = 0;

	if (p->dry)
		return;

	pnt_rounded(cr, x, y, w, CHIP_H, CHIP_H / 2.0);
	pnt_set_rgb(cr, CARD);
	cairo_fill_preserve(cr);
	if (it->flags & SCENE_MARKED) {
		pnt_set_rgb(cr, HILITE);
		cairo_set_line_width(cr, 4);
	} else {
		pnt_set_rgb(cr, EDGE);
		cairo_set_line_width(cr, 1.5);
	}
	cairo_stroke(cr);
	if (pnt_swatch_of(it->colour)->shape != SH_NONE) {
		pnt_shape(cr, it->colour, tx + 10, y + CHIP_H / 2.0, 20, INK);
		tx += 26;
	}
	if (it->text && *it->text) {
		lw = pnt_line_draw(p, cr, it->text, F_CHIP, tx, y + (CHIP_H - 18) / 2.0,
				   (int)(x + w - tx - 8), INK);
		tx += lw + 6;
	}
	if (it->corner && *it->corner)
		pnt_line_draw(p, cr, it->corner, F_CHIPV, tx, y + (CHIP_H - 20) / 2.0,
			      (int)(x + w - tx - 6), INK);
	if (it->flags & SCENE_DIM) {
		pnt_rounded(cr, x, y, w, CHIP_H, CHIP_H / 2.0);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.55);
		cairo_fill(cr);
	}
	pnt_box(p, i, x, y, w, CHIP_H);
}
