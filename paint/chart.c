/*
 * paint chart: a scene's line chart (SCENE_CHART and its POINTs) — the
 * legend, the plot with round-number ticks, the band from each point's lo
 * to its hi, the line through its y with the points marked, the x labels
 * thinned until none touches another, and the last value beside its point.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "paint/paint_int.h"

#define PLOT_H 250		/* the plot's height */
#define INSET 14		/* between the plot's sides and its first and last points */
#define LEGEND_H 26
#define XLAB_H 22		/* the x labels under the plot */
#define BAND_ALPHA 0.24
#define MAX_TICKS 12

static const unsigned char WHITE[3] = { 0xFF, 0xFF, 0xFF };

static const unsigned char *line_rgb(int c)
{
	return pnt_swatch_of(c == SCOL_NONE ? SCOL_BLUE : c)->rgb;
}

void paint_line_rgb(enum scene_colour c, unsigned char rgb[3])
{
	memcpy(rgb, line_rgb((int)c), 3);
}

void paint_row_rgb(unsigned char rgb[3])
{
	memcpy(rgb, MARKROW, 3);
}

void paint_band_rgb(enum scene_colour c, unsigned char rgb[3])
{
	const unsigned char *l = line_rgb((int)c);
	int k;

	for (k = 0; k < 3; k++)
		rgb[k] = (unsigned char)lround(CARD[k] * (1 - BAND_ALPHA) + l[k] * BAND_ALPHA);
}

/* A round step near span / 4: 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
	double e = pow(10, floor(log10(span / 4))), f = span / 4 / e;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
}

struct axis {
	double lo, hi;		/* the plot's bottom and top values */
	double tick[MAX_TICKS];
	int nticks;
};

/* The y axis for values from mn to mx: round ticks that hold them all. */
static void axis_make(double mn, double mx, struct axis *ax)
{
	double step, t;
	int k;

	if (mx - mn <= fabs(mx) * 1e-9 || mx - mn == 0) {
		/* a flat series: a little room either side of it */
		double pad = mx != 0 ? fabs(mx) * 0.1 : 1;

		mn -= pad;
		mx += pad;
	}
	step = nice_step(mx - mn);
	ax->lo = floor(mn / step) * step;
	ax->hi = ceil(mx / step) * step;
	ax->nticks = 0;
	if (!isfinite(step) || step <= 0 || (ax->hi - ax->lo) / step > MAX_TICKS - 1 ||
	    ax->hi <= ax->lo) {
		/* precision ran out (values far from zero, close together) */
		ax->lo = mn;
		ax->hi = mx;
		ax->tick[ax->nticks++] = mn;
		ax->tick[ax->nticks++] = mx;
		return;
	}
	for (k = 0; k < MAX_TICKS; k++) {
		t = ax->lo + k * step;
		if (t > ax->hi + step / 2)
			break;
		ax->tick[ax->nticks++] = fabs(t) < step * 1e-6 ? 0 : t;
	}
}

struct plot {
	double x, y, w, h;	/* the plot's box */
	struct axis ax;
	size_t first;		/* the chart's first point */
	int n;
};

static double px_of(const struct plot *pl, int k)
{
	if (pl->n == 1)
		return pl->x + pl->w / 2;
	return pl->x + INSET + k * (pl->w - 2 * INSET) / (pl->n - 1);
}

static double py_of(const struct plot *pl, double v)
{
	return pl->y + pl->h - (v - pl->ax.lo) / (pl->ax.hi - pl->ax.lo) * pl->h;
}

/* The legend: the line with a marker and the value's name, the band's
 * swatch and what it means.  Its height. */
static int legend_draw(struct painter *p, cairo_t *cr, const struct scene_item *ch, double x,
		       double y, int w)
{
	const unsigned char *rgb = line_rgb(ch->colour);
	unsigned char band[3];
	double lx = x;
	int tw;

	if ((!ch->sub || !*ch->sub) && (!ch->band || !*ch->band))
		return 0;
	if (ch->sub && *ch->sub) {
		cairo_move_to(cr, lx, y + 10.5);
		cairo_line_to(cr, lx + 28, y + 10.5);
		pnt_set_rgb(cr, rgb);
		cairo_set_line_width(cr, 3);
		cairo_stroke(cr);
		cairo_new_path(cr);
		cairo_arc(cr, lx + 14, y + 10.5, 4.5, 0, 2 * M_PI);
		cairo_fill(cr);
		pnt_text_set(p, ch->sub, F_NOTE, w / 2, 1, PANGO_ALIGN_LEFT, &tw);
		pnt_text_draw(p, cr, lx + 36, y + 1, INK);
		lx += 36 + tw + 24;
	}
	if (ch->band && *ch->band) {
		paint_band_rgb(ch->colour, band);
		cairo_rectangle(cr, lx, y + 3, 28, 15);
		pnt_set_rgb(cr, band);
		cairo_fill(cr);
		pnt_set_rgb(cr, rgb);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, lx, y + 3.5);
		cairo_line_to(cr, lx + 28, y + 3.5);
		cairo_move_to(cr, lx, y + 17.5);
		cairo_line_to(cr, lx + 28, y + 17.5);
		cairo_stroke(cr);
		pnt_text_set(p, ch->band, F_NOTE, (int)(x + w - lx - 36), 1, PANGO_ALIGN_LEFT, NULL);
		pnt_text_draw(p, cr, lx + 36, y + 1, INK);
	}
	return LEGEND_H;
}

/* The grid and the y axis's tick labels, right-aligned left of the plot. */
static void grid_draw(struct painter *p, cairo_t *cr, const struct plot *pl)
{
	int k, tw, th;

	for (k = 0; k < pl->ax.nticks; k++) {
		double ty = round(py_of(pl, pl->ax.tick[k])) + 0.5;
		char num[32];

		cairo_move_to(cr, pl->x, ty);
		cairo_line_to(cr, pl->x + pl->w, ty);
		pnt_set_rgb(cr, pnt_swatch_of(SCOL_NONE)->rgb);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		scene_number(pl->ax.tick[k], num);
		th = pnt_text_set(p, num, F_NUM, 0, 0, PANGO_ALIGN_LEFT, &tw);
		pnt_text_draw(p, cr, pl->x - 8 - tw, ty - th / 2.0, FAINT);
	}
}

/* The band from lo to hi: along the his, back along the los. */
static void band_draw(cairo_t *cr, const struct scene *sc, const struct plot *pl, int colour)
{
	int k;

	cairo_new_path(cr);
	if (pl->n == 1) {
		const struct scene_item *it = &sc->v[pl->first];

		cairo_rectangle(cr, px_of(pl, 0) - 10, py_of(pl, it->hi), 20,
				py_of(pl, it->lo) - py_of(pl, it->hi));
	} else {
		for (k = 0; k < pl->n; k++)
			cairo_line_to(cr, px_of(pl, k), py_of(pl, sc->v[pl->first + k].hi));
		for (k = pl->n - 1; k >= 0; k--)
			cairo_line_to(cr, px_of(pl, k), py_of(pl, sc->v[pl->first + k].lo));
		cairo_close_path(cr);
	}
	pnt_set_rgba(cr, line_rgb(colour), BAND_ALPHA);
	cairo_fill(cr);
}

/* The line, its markers (where there is room for them) and the last one. */
static void line_draw(cairo_t *cr, const struct scene *sc, const struct plot *pl, int colour)
{
	const unsigned char *rgb = line_rgb(colour);
	double gap = pl->n > 1 ? (pl->w - 2 * INSET) / (pl->n - 1) : pl->w;
	int k;

	cairo_new_path(cr);
	for (k = 0; k < pl->n; k++)
		cairo_line_to(cr, px_of(pl, k), py_of(pl, sc->v[pl->first + k].y));
	pnt_set_rgb(cr, rgb);
	cairo_set_line_width(cr, pl->n > 60 ? 2 : 3);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_stroke(cr);
	for (k = 0; k < pl->n; k++) {
		int last = k == pl->n - 1;

		if (!last && gap < 9)
			continue;
		cairo_new_path(cr);
		cairo_arc(cr, px_of(pl, k), py_of(pl, sc->v[pl->first + k].y), last ? 6 : 4, 0,
			  2 * M_PI);
		pnt_set_rgb(cr, rgb);
		cairo_fill_preserve(cr);
		pnt_set_rgb(cr, CARD);
		cairo_set_line_width(cr, last ? 2 : 1.5);
		cairo_stroke(cr);
	}
}

/* The x labels under their points, each drawn only if it clears the one
 * before (and, from the right, the last one, which is always drawn). */
static void xlabels_draw(struct painter *p, cairo_t *cr, const struct plot *pl)
{
	const struct scene *sc = p->sc;
	double gap = pl->n > 1 ? (pl->w - 2 * INSET) / (pl->n - 1) : pl->w, right = -1e9, last_l;
	int k, widest = 1, step, tw;

	for (k = 0; k < pl->n; k++) {
		pnt_text_set(p, sc->v[pl->first + k].text, F_NUM, 0, 0, PANGO_ALIGN_LEFT, &tw);
		if (tw > widest)
			widest = tw;
	}
	/* every step-th label, counted from the last, so the spacing is even */
	step = (int)ceil((widest + 14) / gap);
	if (step < 1)
		step = 1;
	pnt_text_set(p, sc->v[pl->first + pl->n - 1].text, F_NUM, 0, 0, PANGO_ALIGN_LEFT, &tw);
	last_l = px_of(pl, pl->n - 1) - tw / 2.0;
	if (last_l + tw > pl->x + pl->w)
		last_l = pl->x + pl->w - tw;
	for (k = 0; k < pl->n; k++) {
		const char *s = sc->v[pl->first + k].text;
		double lx;

		if ((pl->n - 1 - k) % step || !s || !*s)
			continue;
		pnt_text_set(p, s, F_NUM, 0, 0, PANGO_ALIGN_LEFT, &tw);
		lx = px_of(pl, k) - tw / 2.0;
		if (lx < pl->x)
			lx = pl->x;
		if (lx + tw > pl->x + pl->w)
			lx = pl->x + pl->w - tw;
		if (lx < right + 10 || (k < pl->n - 1 && lx + tw + 10 > last_l))
			continue;
		cairo_move_to(cr, round(px_of(pl, k)) + 0.5, pl->y + pl->h);
		cairo_line_to(cr, round(px_of(pl, k)) + 0.5, pl->y + pl->h + 4);
		pnt_set_rgb(cr, EDGE);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		pnt_text_draw(p, cr, lx, pl->y + pl->h + 5, FAINT);
		right = lx + tw;
	}
}

/* The last value in a tag of the line's colour, right of its point. */
static void last_draw(struct painter *p, cairo_t *cr, const struct plot *pl, int colour)
{
	const struct scene_item *it = &p->sc->v[pl->first + pl->n - 1];
	const struct swatch *sw = pnt_swatch_of(colour == SCOL_NONE ? SCOL_BLUE : colour);
	double ly = py_of(pl, it->y);
	int tw, th;

	if (!it->corner || !*it->corner)
		return;
	th = pnt_text_set(p, it->corner, F_LABEL, 0, 0, PANGO_ALIGN_LEFT, &tw);
	if (ly - th / 2.0 - 3 < pl->y)
		ly = pl->y + th / 2.0 + 3;
	if (ly + th / 2.0 + 3 > pl->y + pl->h)
		ly = pl->y + pl->h - th / 2.0 - 3;
	pnt_rounded(cr, px_of(pl, pl->n - 1) + 16, ly - th / 2.0 - 3, tw + 14, th + 6, 6);
	pnt_set_rgb(cr, sw->rgb);
	cairo_fill(cr);
	pnt_text_draw(p, cr, px_of(pl, pl->n - 1) + 23, ly - th / 2.0, sw->dark ? WHITE : INK);
}

/* The chart at *i and its points, drawn at (x, y), w wide; its height. */
int pnt_chart_draw(struct painter *p, cairo_t *cr, size_t *i, double x, double y, int w)
{
	const struct scene *sc = p->sc;
	const struct scene_item *ch = &sc->v[*i];
	struct plot pl;
	double mn = INFINITY, mx = -INFINITY, yy = y;
	int k, gutter = 0, tw, lastw = 0;
	size_t end;

	for (end = *i + 1; end < sc->n && sc->v[end].kind == SCENE_POINT; end++) {
		if (sc->v[end].lo < mn)
			mn = sc->v[end].lo;
		if (sc->v[end].hi > mx)
			mx = sc->v[end].hi;
	}
	memset(&pl, 0, sizeof(pl));
	pl.first = *i + 1;
	pl.n = (int)(end - pl.first);
	*i = end;
	if (ch->text && *ch->text) {
		pnt_text_set(p, ch->text, F_BOLD, w, 2, PANGO_ALIGN_LEFT, NULL);
		pnt_text_draw(p, cr, x, yy, INK);
		yy += pnt_text_set(p, ch->text, F_BOLD, w, 2, PANGO_ALIGN_LEFT, NULL) + 6;
	}
	yy += legend_draw(p, cr, ch, x, yy, w);
	if (p->dry)
		return (int)(yy - y) + PLOT_H + XLAB_H;
	if (pl.n > 0) {
		axis_make(mn, mx, &pl.ax);
		for (k = 0; k < pl.ax.nticks; k++) {
			char num[32];

			scene_number(pl.ax.tick[k], num);
			pnt_text_set(p, num, F_NUM, 0, 0, PANGO_ALIGN_LEFT, &tw);
			if (tw > gutter)
				gutter = tw;
		}
		if (sc->v[end - 1].corner)
			pnt_text_set(p, sc->v[end - 1].corner, F_LABEL, 0, 0, PANGO_ALIGN_LEFT, &lastw);
	}
	pl.x = x + (gutter ? gutter + 10 : 0);
	pl.y = yy + 2;
	pl.w = w - (pl.x - x) - (lastw ? lastw + 34 : 0);
	pl.h = PLOT_H - 4;
	if (pl.w < 40)
		pl.w = 40;
	cairo_rectangle(cr, pl.x, pl.y, pl.w, pl.h);
	pnt_set_rgb(cr, CARD);
	cairo_fill(cr);
	if (pl.n == 0) {
		const char *note = ch->corner && *ch->corner ? ch->corner : "\xE2\x80\x94";	/* — */
		int th = pnt_text_set(p, note, F_TEXT, (int)pl.w - 20, 2, PANGO_ALIGN_CENTER, &tw);

		pnt_text_draw(p, cr, pl.x + 10, pl.y + (pl.h - th) / 2, FAINT);
	} else {
		grid_draw(p, cr, &pl);
		band_draw(cr, sc, &pl, ch->colour);
		line_draw(cr, sc, &pl, ch->colour);
		xlabels_draw(p, cr, &pl);
		last_draw(p, cr, &pl, ch->colour);
	}
	cairo_rectangle(cr, pl.x + 0.5, pl.y + 0.5, pl.w - 1, pl.h - 1);
	pnt_set_rgb(cr, EDGE);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
	return (int)(yy - y) + PLOT_H + XLAB_H;
}
