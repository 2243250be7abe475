/*
 * paint: the one painter.  Turns a scene (util/scene.h) into a PNG picture
 * with cairo and pango, whatever game described it: it lays out blocks down
 * a page PAINT_WIDTH pixels wide (areas marked SCENE_HALF two by two, rows
 * of cards wrapped to the width), draws each colour with its shape beside
 * it (colour-blind players read the shape or the text), and writes the PNG
 * itself (paint/png.c) with the scene's texts as its Description.
 *
 *	struct paint_image im;
 *	if (paint_scene(&sc, 0, &im, &err) == 0)
 *		send(im.png, im.len, im.width, im.height);
 *	paint_image_release(&im);
 *
 * It knows no rule and reads nothing but the scene.  Fonts: DejaVu Sans
 * (Debian fonts-dejavu-core) through fontconfig; another sans-serif if it
 * is missing.  Several threads may paint at once: what painting keeps
 * (pango's font map, the scratch memory, the caches of shaped text) is
 * per thread, and cairo's and fontconfig's shared caches lock themselves.
 * The bot paints on worker threads (bot/workers.h).
 */
#ifndef PAINT_PAINT_H
#define PAINT_PAINT_H

#include <stddef.h>

#include "util/buf.h"
#include "util/scene.h"

#define PAINT_WIDTH 1000
#define PAINT_MAX_HEIGHT 8000	/* taller scenes are cut (and say so) */

enum paint_flags {
	PAINT_BOXES = 1 << 0,	/* fill paint_image.boxes (tests) */
	PAINT_NO_PNG = 1 << 1,	/* lay out and draw, skip the encoding (bench) */
};

/* Where a piece (CARD, CHIP, MARK, PIP) landed, in picture pixels. */
struct paint_box {
	size_t item;		/* index in the scene */
	int x, y, w, h;
};

struct paint_image {
	unsigned char *png;	/* the PNG file, owned */
	size_t len;
	int width, height;
	struct paint_box *boxes;	/* PAINT_BOXES only, owned */
	size_t nboxes;
};

/*
 * Paints sc.  Returns 0 and fills *out (release it), or -1 with err (cairo
 * or the compressor failed: out of memory, a surface too large).  Never reads
 * anything but sc; a scene with nothing drawable is a small blank picture.
 */
int paint_scene(const struct scene *sc, unsigned flags, struct paint_image *out,
		struct buf *err);
void paint_image_release(struct paint_image *im);

/*
 * Makes the next n calls of paint_scene fail (err "injected failure"), on
 * any thread: the tests of what happens when a picture cannot be made
 * (the bot sends the text board and logs it), through the real binary
 * (TABULA_TEST_PAINT_FAIL=n).  0 turns it off.
 */
void paint_inject_failures(unsigned n);

/* The RGB the painter fills colour c with (tests probe the pixels). */
void paint_rgb(enum scene_colour c, unsigned char rgb[3]);
/* The RGB of a chart's band of colour c (SCOL_NONE: the default blue) on
 * the plot's ground, and of its line (tests probe the pixels). */
void paint_band_rgb(enum scene_colour c, unsigned char rgb[3]);
void paint_line_rgb(enum scene_colour c, unsigned char rgb[3]);
/* The RGB of a table's row holding a SCENE_MARKED cell. */
void paint_row_rgb(unsigned char rgb[3]);

/*
 * The painter's scratch memory: a picture's pixels and its PNG rows, kept
 * per thread from one picture to the next (a board is megabytes of
 * pixels; fresh pages each time cost more than drawing them).  At most the
 * largest picture painted, per kind.  paint_scratch returns at least n
 * bytes (contents undefined), or NULL out of memory; paint_scratch_free
 * gives the calling thread's back (at exit, for leak checkers).
 */
enum paint_scratch_kind {
	PAINT_SCRATCH_PIXELS,
	PAINT_SCRATCH_ROWS,
	PAINT_SCRATCH_DEFLATE,	/* the compressed rows, before they are copied */
	PAINT_SCRATCH_KINDS
};
void *paint_scratch(enum paint_scratch_kind k, size_t n);
void paint_scratch_free(void);

/*
 * Gives back what painting keeps for the calling thread: its scratch
 * memory, its caches, pango's font map of that thread.  A worker thread
 * calls it as it ends.
 */
void paint_thread_cleanup(void);

/*
 * Gives back everything painting keeps for the process: the calling
 * thread's (paint_thread_cleanup), then cairo's and fontconfig's caches.
 * At exit only, after the last picture of every thread (leak checkers
 * would count them); a later paint_scene starts them again.
 */
void paint_cleanup(void);

/* ---- png.c ---- */

/*
 * Encodes w x h pixels of cairo's RGB24 (xRGB in native 32-bit words,
 * stride bytes a row) as an 8-bit indexed PNG into out, with text (may be
 * NULL) as a compressed iTXt "Description" chunk.  0, or -1 with err.
 */
int paint_png_encode(const unsigned char *pixels, int w, int h, int stride, const char *text,
		     struct buf *out, struct buf *err);
/* Gives back the calling thread's compressors (paint_thread_cleanup). */
void paint_png_thread_cleanup(void);

#endif
