/*
 * paint text: what a painting thread keeps from one picture to the next —
 * its pango context and fonts, the cache of laid-out texts, and a card
 * back's pattern — and setting and drawing a text through them.
 *
 * Text goes through PangoLayouts (DejaVu Sans), positioned with
 * cairo_move_to: the transformation matrix stays the identity, so one
 * pango context fits every surface.  Shaping is most of the cost of a
 * picture's text, and boards repeat their texts (names, labels, numbers:
 * between the two passes, and from one board to the next), so each thread
 * keeps its context and a cache of laid-out texts (struct lay), keyed by
 * the text and how it is set; a text is shaped once per thread until the
 * cache fills and starts again (LAY_MAX).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paint/paint_int.h"

static const struct { int px; int bold; } fonts[F_COUNT] = {
	[F_TITLE] = { 28, 1 }, [F_TEXT] = { 19, 0 }, [F_BOLD] = { 19, 1 }, [F_NOTE] = { 15, 0 },
	[F_AREA] = { 20, 1 }, [F_LABEL] = { 15, 1 }, [F_CARD] = { 17, 1 }, [F_BAND] = { 13, 1 },
	[F_SUB] = { 13, 0 }, [F_CORNER] = { 17, 1 }, [F_CHIP] = { 15, 0 }, [F_CHIPV] = { 16, 1 },
	[F_PIP] = { 12, 1 }, [F_MARK] = { 15, 1 }, [F_NUM] = { 12, 0 }, [F_CELL] = { 17, 0 },
	[F_HEAD] = { 17, 1 },
};

/* A text laid out: the layout, its size, and how it was set (the key). */
struct lay {
	struct lay *next;	/* hash chain */
	uint64_t hash;
	PangoLayout *layout;
	int w, h;
	short f, px, lines, align;
	int width;
	char text[];
};

#define LAY_BITS 12
#define LAY_MAX 4096		/* texts kept per thread (a few MB) */

/* What a painting thread keeps from one picture to the next. */
static _Thread_local struct {
	PangoContext *ctx;
	PangoFontDescription *fd[F_COUNT];
	struct lay *tab[1u << LAY_BITS];
	size_t n;
	/* a layout for a text too long to keep (never cached) */
	PangoLayout *spare;
	cairo_pattern_t *stripes;	/* a card's back (pnt_card_draw) */
} kept;

/* The thread's pango context and fonts, made on its first picture. */
void pnt_kept_init(void)
{
	cairo_font_options_t *fo;
	cairo_surface_t *img;
	cairo_t *cr;
	int f;

	if (kept.ctx)
		return;
	kept.ctx = pango_font_map_create_context(pango_cairo_font_map_get_default());
	fo = cairo_font_options_create();
	/* grey antialiasing, no hinting: the same pixels on every machine
	 * with the same fonts, and no colour fringes */
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	pango_cairo_context_set_font_options(kept.ctx, fo);
	cairo_font_options_destroy(fo);
	/* every surface is drawn with the identity matrix: the context set
	 * once for one fits them all, and laid-out texts stay valid */
	img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cr = cairo_create(img);
	pango_cairo_update_context(cr, kept.ctx);
	cairo_destroy(cr);
	cairo_surface_destroy(img);
	for (f = 0; f < F_COUNT; f++) {
		kept.fd[f] = pango_font_description_from_string(FONT);
		pango_font_description_set_absolute_size(kept.fd[f], fonts[f].px * PANGO_SCALE);
		pango_font_description_set_weight(kept.fd[f], fonts[f].bold ? PANGO_WEIGHT_BOLD
								    : PANGO_WEIGHT_NORMAL);
	}
}

static void kept_clear(void)
{
	size_t i;

	for (i = 0; i < (1u << LAY_BITS); i++) {
		struct lay *l = kept.tab[i], *next;

		for (; l; l = next) {
			next = l->next;
			g_object_unref(l->layout);
			free(l);
		}
		kept.tab[i] = NULL;
	}
	kept.n = 0;
}

int pnt_kept_painted(void)
{
	return kept.ctx != NULL;
}

void pnt_kept_release(void)
{
	int f;

	kept_clear();
	if (kept.spare)
		g_object_unref(kept.spare);
	kept.spare = NULL;
	if (kept.stripes)
		cairo_pattern_destroy(kept.stripes);
	kept.stripes = NULL;
	for (f = 0; f < F_COUNT; f++) {
		if (kept.fd[f])
			pango_font_description_free(kept.fd[f]);
		kept.fd[f] = NULL;
	}
	if (kept.ctx)
		g_object_unref(kept.ctx);
	kept.ctx = NULL;
}

/* FNV-1a over the text and how it is set. */
static uint64_t lay_hash(const char *s, size_t n, int f, int px, int width, int lines, int align)
{
	uint64_t h = 1469598103934665603ULL;
	int v[5] = { f, px, width, lines, align }, k;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	for (k = 0; k < 5; k++)
		h = (h ^ (uint64_t)(unsigned)v[k]) * 1099511628211ULL;
	return h;
}

/* Sets l to s as the key says. */
static void lay_setup(PangoLayout *l, const char *s, enum font f, int px, int width, int lines,
		      PangoAlignment align)
{
	if (px != fonts[f].px) {
		PangoFontDescription *fd = pango_font_description_copy_static(kept.fd[f]);

		pango_font_description_set_absolute_size(fd, px * PANGO_SCALE);
		pango_layout_set_font_description(l, fd);
		pango_font_description_free(fd);
	} else {
		pango_layout_set_font_description(l, kept.fd[f]);
	}
	pango_layout_set_text(l, s, -1);
	pango_layout_set_width(l, width > 0 ? width * PANGO_SCALE : -1);
	pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
	pango_layout_set_alignment(l, align);
	if (lines > 0 && width > 0) {
		pango_layout_set_height(l, -lines);
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
	} else {
		pango_layout_set_height(l, -1);
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_NONE);
	}
}

/*
 * Sets the layout to s in font f (at px pixels; 0: the font's size),
 * wrapped at width (0: no wrap), at most lines lines (0: any; past them
 * an ellipsis), aligned (PANGO_ALIGN_*): p->lay is it, for pnt_text_draw.
 * Returns the pixel height; *w the pixel width when w is not NULL.
 */
int pnt_text_set_px(struct painter *p, const char *s, enum font f, int px, int width,
		    int lines, PangoAlignment align, int *w)
{
	size_t n;
	uint64_t h;
	struct lay *l, **slot;
	int tw, th;

	s = s ? s : "";
	n = strlen(s);
	px = px ? px : fonts[f].px;
	if (width <= 0)
		width = 0;
	if (n > SCENE_TEXT_MAX) {
		/* a text longer than any scene's piece (never, in practice):
		 * laid out each time */
		if (!kept.spare)
			kept.spare = pango_layout_new(kept.ctx);
		lay_setup(kept.spare, s, f, px, width, lines, align);
		pango_layout_get_pixel_size(kept.spare, &tw, &th);
		p->lay = kept.spare;
		if (w)
			*w = tw;
		return th;
	}
	h = lay_hash(s, n, f, px, width, lines, align);
	slot = &kept.tab[h & ((1u << LAY_BITS) - 1)];
	for (l = *slot; l; l = l->next)
		if (l->hash == h && l->f == (short)f && l->px == px && l->width == width &&
		    l->lines == lines && l->align == (short)align && !strcmp(l->text, s))
			break;
	if (!l) {
		if (kept.n >= LAY_MAX) {
			kept_clear();
			slot = &kept.tab[h & ((1u << LAY_BITS) - 1)];
		}
		l = xmalloc(sizeof(*l) + n + 1);
		memcpy(l->text, s, n + 1);
		l->hash = h;
		l->f = (short)f;
		l->px = (short)px;
		l->width = width;
		l->lines = (short)lines;
		l->align = (short)align;
		l->layout = pango_layout_new(kept.ctx);
		lay_setup(l->layout, s, f, px, width, lines, align);
		pango_layout_get_pixel_size(l->layout, &l->w, &l->h);
		l->next = *slot;
		*slot = l;
		kept.n++;
	}
	p->lay = l->layout;
	if (w)
		*w = l->w;
	return l->h;
}

int pnt_text_set(struct painter *p, const char *s, enum font f, int width, int lines,
		 PangoAlignment align, int *w)
{
	return pnt_text_set_px(p, s, f, 0, width, lines, align, w);
}

/* The size of font f (at most its own, at least min) at which every word
 * of s fits in width: a long name is set smaller rather than broken. */
int pnt_fit_px(struct painter *p, const char *s, enum font f, int width, int min)
{
	char word[SCENE_TEXT_MAX + 1];
	int px = fonts[f].px;

	while (s && *s) {
		size_t n = strcspn(s, " ");
		int ww;

		if (n) {
			memcpy(word, s, n);
			word[n] = '\0';
			while (px > min) {
				pnt_text_set_px(p, word, f, px, 0, 0, PANGO_ALIGN_LEFT, &ww);
				if (ww <= width)
					break;
				px--;
			}
		}
		s += n;
		s += strspn(s, " ");
	}
	return px;
}

void pnt_text_draw(struct painter *p, cairo_t *cr, double x, double y, const unsigned char *rgb)
{
	if (p->dry)
		return;
	pnt_set_rgb(cr, rgb);
	cairo_move_to(cr, x, y);
	pango_cairo_show_layout(cr, p->lay);
}

/* One line of s in font f, cut with an ellipsis at width; returns its width. */
int pnt_line_draw(struct painter *p, cairo_t *cr, const char *s, enum font f, double x,
		  double y, int width, const unsigned char *rgb)
{
	int w;

	pnt_text_set(p, s, f, width, 1, PANGO_ALIGN_LEFT, &w);
	pnt_text_draw(p, cr, x, y, rgb);
	return w;
}

/* The tile of a card's back: white lines 6 wide along u + v = 16 n, at
 * 10 % (seamless when repeated: the lines go on 16 pixels further). */
cairo_pattern_t *pnt_stripes(void)
{
	cairo_surface_t *t;
	cairo_t *c;
	int k;

	if (kept.stripes)
		return kept.stripes;
	t = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 16, 16);
	c = cairo_create(t);
	cairo_set_source_rgba(c, 1, 1, 1, 0.10);
	cairo_set_line_width(c, 6);
	for (k = -16; k <= 48; k += 16) {	/* u + v = k, across the tile */
		cairo_move_to(c, k + 16, -16);
		cairo_line_to(c, k - 32, 32);
	}
	cairo_stroke(c);
	cairo_destroy(c);
	kept.stripes = cairo_pattern_create_for_surface(t);
	cairo_surface_destroy(t);
	cairo_pattern_set_extend(kept.stripes, CAIRO_EXTEND_REPEAT);
	cairo_pattern_set_filter(kept.stripes, CAIRO_FILTER_NEAREST);
	return kept.stripes;
}
