/*
 * paint: a scene as a picture (paint/paint.h).
 *
 * Layout runs down the page.  Each block is drawn where it starts, at the
 * page's (or its panel's) width, and says how tall it was.  The page is
 * laid out twice: a measuring pass (dry: nothing drawn, on a surface one
 * pixel wide) learns the page's height and every area's, so that the
 * drawing pass can fill a panel behind its contents at its final height
 * (two SCENE_HALF areas side by side take the taller one's) straight onto
 * an image surface of the page's height; then png.c encodes it.  Text is
 * shaped twice; cairo's recording surfaces, which would save that, cost
 * more to play back than the shaping.  Texts: text.c; pieces: cards.c;
 * the blocks of the display list: blocks.c.
 */
#include "paint/paint.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>

#include "paint/paint_int.h"

void pnt_box(struct painter *p, size_t item, double x, double y, double w, double h)
{
	if (!(p->flags & PAINT_BOXES) || p->dry)
		return;
	if (p->nboxes == p->capboxes) {
		p->capboxes = p->capboxes ? p->capboxes * 2 : 64;
		p->boxes = xrealloc(p->boxes, p->capboxes * sizeof(*p->boxes));
	}
	p->boxes[p->nboxes].item = item;
	p->boxes[p->nboxes].x = (int)lround(x);
	p->boxes[p->nboxes].y = (int)lround(y);
	p->boxes[p->nboxes].w = (int)lround(w);
	p->boxes[p->nboxes].h = (int)lround(h);
	p->nboxes++;
}

static _Thread_local struct {
	void *p;
	size_t cap;
} scratch[PAINT_SCRATCH_KINDS];

void *paint_scratch(enum paint_scratch_kind k, size_t n)
{
	if (scratch[k].cap < n) {
		free(scratch[k].p);
		scratch[k].p = malloc(n);
		scratch[k].cap = scratch[k].p ? n : 0;
	}
	return scratch[k].p;
}

void paint_scratch_free(void)
{
	int k;

	for (k = 0; k < PAINT_SCRATCH_KINDS; k++) {
		free(scratch[k].p);
		scratch[k].p = NULL;
		scratch[k].cap = 0;
	}
}

static void fontmap_gone(gpointer data, GObject *was)
{
	atomic_store((atomic_int *)data, 1);
}

/*
 * Lets go of the thread's font map and waits (a second at most) until it
 * is finalized: 1 when it is.  Pango 1.48+ sorts fonts on a thread of its
 * own whose pending work holds the map, so our last unref may not be the
 * last one; cairo's and fontconfig's caches may be reset only once the
 * map, which holds their fonts, is gone (else cairo asserts at exit, and
 * FcFini would pull fontconfig from under that thread).
 */
static int fontmap_release(void)
{
	static atomic_int gone;
	PangoFontMap *fm;
	int i;

	if (!pnt_kept_painted())
		return 1;	/* no map made on this thread: nothing to wait for */
	fm = pango_cairo_font_map_get_default();
	atomic_store(&gone, 0);
	g_object_weak_ref(G_OBJECT(fm), fontmap_gone, &gone);
	pnt_kept_release();
	pango_cairo_font_map_set_default(NULL);
	for (i = 0; i < 1000 && !atomic_load(&gone); i++)
		g_usleep(1000);
	return atomic_load(&gone);
}

void paint_thread_cleanup(void)
{
	paint_scratch_free();
	paint_png_thread_cleanup();
	fontmap_release();
	pnt_kept_release();
}

void paint_cleanup(void)
{
	/* pango's font map holds cairo's font faces, which hold fontconfig's
	 * patterns: let go of them in that order, then fontconfig itself */
	paint_scratch_free();
	paint_png_thread_cleanup();
	if (!fontmap_release())
		return;	/* still held: leave the caches rather than assert */
	cairo_debug_reset_static_data();
	FcFini();
}

static void painter_release(struct painter *p)
{
	free(p->boxes);
}

/* paint_inject_failures: pictures still to refuse (tests). */
static atomic_uint injected;

void paint_inject_failures(unsigned n)
{
	atomic_store(&injected, n);
}

/* 1 when this picture is to fail (and counts it). */
static int injected_failure(void)
{
	unsigned n = atomic_load(&injected);

	while (n && !atomic_compare_exchange_weak(&injected, &n, n - 1))
		;
	return n > 0;
}

int paint_scene(const struct scene *sc, unsigned flags, struct paint_image *out, struct buf *err)
{
	struct painter p;
	cairo_surface_t *img = NULL;
	cairo_t *cr;
	struct buf png = BUF_INIT, text = BUF_INIT;
	size_t i = 0;
	int h, rc = -1;

	memset(out, 0, sizeof(*out));
	if (injected_failure())
		return buf_setf(err, "injected failure (TABULA_TEST_PAINT_FAIL)"), -1;
	memset(&p, 0, sizeof(p));
	p.sc = sc;
	p.flags = flags;
	pnt_kept_init();
	/* measure (every height, on a surface one pixel wide), then draw */
	p.area_h = xcalloc(sc->n + 1, sizeof(*p.area_h));
	p.card_h = xcalloc(sc->n + 1, sizeof(*p.card_h));
	p.title_px = xcalloc(sc->n + 1, sizeof(*p.title_px));
	p.dry = 1;
	img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cr = cairo_create(img);
	h = pnt_blocks(&p, cr, &i, MARGIN, MARGIN, PAINT_WIDTH - 2 * MARGIN, 0) + 2 * MARGIN;
	cairo_destroy(cr);
	cairo_surface_destroy(img);
	img = NULL;
	if (p.cut)
		h += 30;
	if (h > PAINT_MAX_HEIGHT)
		h = PAINT_MAX_HEIGHT;
	if (h < 2 * MARGIN)
		h = 2 * MARGIN;
	{
		int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, PAINT_WIDTH);
		unsigned char *px = paint_scratch(PAINT_SCRATCH_PIXELS, (size_t)stride * h);

		if (!px) {
			buf_setf(err, "out of memory for a %dx%d picture", PAINT_WIDTH, h);
			goto fail;
		}
		img = cairo_image_surface_create_for_data(px, CAIRO_FORMAT_RGB24, PAINT_WIDTH, h,
							  stride);
	}
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		buf_setf(err, "cairo: %s", cairo_status_to_string(cairo_surface_status(img)));
		goto fail;
	}
	cr = cairo_create(img);
	/* curves flattened to half a pixel, and shapes' edges smoothed on a
	 * 4x4 grid rather than a 15x17 one: a card's corner or a shape is as
	 * round to the eye at a third of the cost (strokes and fills were
	 * most of the drawing).  Text has its own antialiasing (pnt_kept_init). */
	cairo_set_tolerance(cr, 0.5);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
	pnt_set_rgb(cr, PAGE);
	cairo_paint(cr);
	p.dry = 0;
	p.cut = 0;
	i = 0;
	pnt_blocks(&p, cr, &i, MARGIN, MARGIN, PAINT_WIDTH - 2 * MARGIN, 0);
	if (p.cut) {
		pnt_text_set(&p, "\xE2\x80\xA6", F_TITLE, 0, 0, PANGO_ALIGN_LEFT, NULL);	/* … */
		pnt_text_draw(&p, cr, MARGIN, h - 40, INK);
	}
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		buf_setf(err, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
		cairo_destroy(cr);
		goto fail;
	}
	cairo_destroy(cr);
	cairo_surface_flush(img);
	out->width = PAINT_WIDTH;
	out->height = h;
	if (!(flags & PAINT_NO_PNG)) {
		scene_texts(sc, &text);
		if (paint_png_encode(cairo_image_surface_get_data(img), PAINT_WIDTH, h,
				     cairo_image_surface_get_stride(img), buf_str(&text), &png, err))
			goto fail;
		out->len = png.len;
		out->png = (unsigned char *)buf_detach(&png);
	}
	out->boxes = p.boxes;
	out->nboxes = p.nboxes;
	p.boxes = NULL;
	rc = 0;
fail:
	if (rc)
		memset(out, 0, sizeof(*out));
	if (img)
		cairo_surface_destroy(img);
	free(p.area_h);
	free(p.card_h);
	free(p.title_px);
	buf_release(&png);
	buf_release(&text);
	painter_release(&p);
	return rc;
}

void paint_image_release(struct paint_image *im)
{
	free(im->png);
	free(im->boxes);
	memset(im, 0, sizeof(*im));
}
