/*
 * paint_int: what the rooms of the painter share (private to paint/) — the
 * page's measures, the colours of its furniture, the fonts, the painter's
 * state for one picture, and the functions one room calls in another, each
 * named pnt_.  paint.c runs a picture; text.c keeps and sets texts;
 * cards.c draws colours, shapes and pieces; chart.c draws line charts;
 * blocks.c runs the display list.
 */
#ifndef PAINT_PAINT_INT_H
#define PAINT_PAINT_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>
#include <pango/pangocairo.h>

#include "paint/paint.h"

#define MARGIN 18		/* page margin */
#define GAP 10			/* between blocks */
#define PAD 12			/* inside a panel */
#define HALF_GAP 12		/* between two half panels */
#define CARD_W 138
#define CARD_GAP 10
#define BAND_H 26
#define CHIP_H 32
#define PIP_H 22
#define MARK_R 13
#define CELL_MAX 62
#define ROW_H 30		/* a table row */

#define FONT "DejaVu Sans"

enum shape {
	SH_NONE, SH_CIRCLE, SH_SQUARE, SH_TRIANGLE, SH_DIAMOND, SH_HEXAGON, SH_PENTAGON,
	SH_STAR, SH_PLUS, SH_TRIANGLE_DOWN, SH_RING, SH_BAR, SH_SQUARE_OPEN, SH_SPARKLE,
};

struct swatch {
	unsigned char rgb[3];
	int dark;		/* text on it is white */
	enum shape shape;
};

static const unsigned char PAGE[3] = { 0xF3, 0xEC, 0xDC };	/* parchment */
static const unsigned char PANEL[3] = { 0xFD, 0xFA, 0xF2 };
static const unsigned char CARD[3] = { 0xFF, 0xFE, 0xF9 };
static const unsigned char BACK[3] = { 0x4A, 0x52, 0x5E };	/* a card's back */
static const unsigned char INK[3] = { 0x24, 0x22, 0x1E };
static const unsigned char FAINT[3] = { 0x6E, 0x62, 0x4B };
static const unsigned char EDGE[3] = { 0xA8, 0x99, 0x78 };
static const unsigned char ACCENT[3] = { 0xB0, 0x3A, 0x2E };	/* whose turn */
static const unsigned char HILITE[3] = { 0xD4, 0xA7, 0x2C };
static const unsigned char MARKROW[3] = { 0xF6, 0xE6, 0xB4 };	/* a table's marked row */

enum font { F_TITLE, F_TEXT, F_BOLD, F_NOTE, F_AREA, F_LABEL, F_CARD, F_BAND, F_SUB, F_CORNER,
	    F_CHIP, F_CHIPV, F_PIP, F_MARK, F_NUM, F_CELL, F_HEAD, F_COUNT };

struct painter {
	const struct scene *sc;
	PangoLayout *lay;	/* the text last set (kept's, borrowed) */
	unsigned flags;
	struct paint_box *boxes;
	size_t nboxes, capboxes;
	int cut;		/* the page reached PAINT_MAX_HEIGHT */
	int dry;		/* the measuring pass: nothing lands anywhere */
	int *area_h;		/* per item: an AREA's height, from the measuring pass */
	short *card_h;		/* per item: a CARD's height (0: not measured yet) */
	short *title_px;	/* per item: its title's font size (0: not fitted yet) */
};

/* paint.c: the picture */
void pnt_box(struct painter *p, size_t item, double x, double y, double w, double h);

/* text.c: texts */
void pnt_kept_init(void);
void pnt_kept_release(void);
/* 1 when this thread has made its pango context (and so a font map). */
int pnt_kept_painted(void);
int pnt_text_set_px(struct painter *p, const char *s, enum font f, int px, int width,
		    int lines, PangoAlignment align, int *w);
int pnt_text_set(struct painter *p, const char *s, enum font f, int width, int lines,
		 PangoAlignment align, int *w);
int pnt_fit_px(struct painter *p, const char *s, enum font f, int width, int min);
void pnt_text_draw(struct painter *p, cairo_t *cr, double x, double y, const unsigned char *rgb);
int pnt_line_draw(struct painter *p, cairo_t *cr, const char *s, enum font f, double x,
		  double y, int width, const unsigned char *rgb);
cairo_pattern_t *pnt_stripes(void);

/* cards.c: colours, shapes, pieces */
void pnt_set_rgb(cairo_t *cr, const unsigned char rgb[3]);
void pnt_set_rgba(cairo_t *cr, const unsigned char rgb[3], double a);
const struct swatch *pnt_swatch_of(int c);
void pnt_rounded(cairo_t *cr, double x, double y, double w, double h, double r);
void pnt_shape(cairo_t *cr, int c, double cx, double cy, double s, const unsigned char *ink);
int pnt_is_piece(int kind);
int pnt_title_px(struct painter *p, size_t i);
int pnt_card_height(struct painter *p, size_t i);
void pnt_card_draw(struct painter *p, cairo_t *cr, size_t i, double x, double y, int h);
int pnt_chip_width(struct painter *p, const struct scene_item *it);
void pnt_chip_draw(struct painter *p, cairo_t *cr, size_t i, double x, double y, int w);

/* chart.c: line charts */
int pnt_chart_draw(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w);

/* blocks.c: the display list */
int pnt_blocks(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w,
	       int in_area);

#endif
