/*
 * png: the PNG writer (paint/paint.h, paint_png_encode).  cairo has one,
 * but it cannot carry a text chunk and writes 24-bit colour: boards are
 * flat colour and text, which a 256-colour palette holds in a third of
 * the bytes and of the time (docs/performance.md, "image").  The deflate
 * stream is libdeflate's: at its level 4 a board is an eighth smaller than
 * zlib's level 3 made it, in three quarters of the time (the compression
 * was most of a picture's cost).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "paint/paint.h"

#define PNG_LEVEL 4		/* libdeflate level: see docs/performance.md, "image" */
#define TEXT_LEVEL 9		/* the Description: a few KB of text, once */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* One chunk: length, type, data, CRC of type and data. */
static int chunk(struct buf *out, const char *type, const unsigned char *data, size_t len)
{
	unsigned char head[8], tail[4];
	uint32_t crc;

	if (len > 0x7fffffffu)
		return -1;
	put32(head, (uint32_t)len);
	memcpy(head + 4, type, 4);
	crc = libdeflate_crc32(0, type, 4);
	if (len)
		crc = libdeflate_crc32(crc, data, len);
	put32(tail, crc);
	if (buf_add(out, head, 8) || (len && buf_add(out, data, len)) || buf_add(out, tail, 4))
		return -1;
	return 0;
}

/* The calling thread's compressor at each level used, kept from one
 * picture to the next (making one allocates its hash tables). */
static _Thread_local struct libdeflate_compressor *compressors[13];

void paint_png_thread_cleanup(void)
{
	size_t i;

	for (i = 0; i < sizeof(compressors) / sizeof(compressors[0]); i++) {
		if (compressors[i])
			libdeflate_free_compressor(compressors[i]);
		compressors[i] = NULL;
	}
}

/* Appends in (n bytes) as a zlib stream, compressed at level, to out.
 * 0, or -1. */
static int deflate_to(const unsigned char *in, size_t n, int level, struct buf *out)
{
	struct libdeflate_compressor *c;
	size_t bound, len;
	void *z;

	if (!compressors[level] && !(compressors[level] = libdeflate_alloc_compressor(level)))
		return -1;
	c = compressors[level];
	bound = libdeflate_zlib_compress_bound(c, n);
	if (!(z = paint_scratch(PAINT_SCRATCH_DEFLATE, bound)))
		return -1;
	len = libdeflate_zlib_compress(c, in, n, z, bound);
	return len && !buf_add(out, z, len) ? 0 : -1;
}

/* ---- the palette ---- */

/*
 * Boards are flat colours and text: a few dozen colours cover nearly
 * every pixel, and the rest are the antialiased edges of letters and
 * shapes, blends of two of them.  The 256 most frequent colours make the
 * palette; every other colour is written as its nearest palette colour (a
 * letter's edge a shade off), so a pixel is one byte instead of three and
 * zlib has a third of the work.  Flat colours stay exact.
 */
#define HASH_BITS 16

struct slot {
	uint32_t rgb;		/* 0xFFFFFFFF: empty */
	uint32_t count;
	uint8_t index;		/* its palette entry */
};

struct hist {
	struct slot *v;
	size_t cap, n;
};

static size_t hash_rgb(uint32_t rgb, size_t cap)
{
	return (size_t)((rgb * 2654435761u) >> 7) & (cap - 1);
}

static struct slot *hist_find(struct hist *h, uint32_t rgb)
{
	size_t i = hash_rgb(rgb, h->cap);

	while (h->v[i].rgb != rgb && h->v[i].rgb != 0xFFFFFFFFu)
		i = (i + 1) & (h->cap - 1);
	return &h->v[i];
}

static int hist_grow(struct hist *h)
{
	struct slot *old = h->v;
	size_t oldcap = h->cap, i;

	h->cap = oldcap ? oldcap * 2 : (size_t)1 << HASH_BITS;
	h->v = malloc(h->cap * sizeof(*h->v));
	if (!h->v)
		return -1;
	memset(h->v, 0xFF, h->cap * sizeof(*h->v));
	for (i = 0; i < oldcap; i++)
		if (old[i].rgb != 0xFFFFFFFFu)
			*hist_find(h, old[i].rgb) = old[i];
	free(old);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct slot *x = *(const struct slot *const *)a, *y = *(const struct slot *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->rgb < y->rgb ? -1 : x->rgb > y->rgb;
}

static unsigned dist(uint32_t a, uint32_t b)
{
	int dr = (int)((a >> 16) & 255) - (int)((b >> 16) & 255);
	int dg = (int)((a >> 8) & 255) - (int)((b >> 8) & 255);
	int db = (int)(a & 255) - (int)(b & 255);

	return (unsigned)(2 * dr * dr + 4 * dg * dg + 3 * db * db);
}

/*
 * The palette sorted by green (the channel weighted most in dist), so that
 * nearest() looks at the entries whose green is close first and stops
 * when green alone is farther than the best found: a few dozen distances
 * instead of 256, for each of the thousands of edge colours of a board.
 */
struct by_green {
	int n;
	uint8_t g[256];		/* green of each, ascending */
	uint8_t index[256];	/* its palette entry */
};

static void by_green_init(struct by_green *bg, const uint32_t *pal, int npal)
{
	int j, k;

	bg->n = npal;
	for (j = 0; j < npal; j++) {	/* insertion sort: 256 at most, once */
		uint8_t g = (uint8_t)(pal[j] >> 8);

		for (k = j; k > 0 && bg->g[k - 1] > g; k--) {
			bg->g[k] = bg->g[k - 1];
			bg->index[k] = bg->index[k - 1];
		}
		bg->g[k] = g;
		bg->index[k] = (uint8_t)j;
	}
}

static uint8_t nearest(uint32_t rgb, const uint32_t *pal, const struct by_green *bg)
{
	int g = (int)((rgb >> 8) & 255), lo, hi, mid;
	unsigned best = ~0u;
	uint8_t at = 0;

	/* the first entry with green >= g, then outwards both ways */
	lo = 0;
	hi = bg->n;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (bg->g[mid] < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo;
	lo--;
	while (lo >= 0 || hi < bg->n) {
		if (hi < bg->n) {
			int dg = bg->g[hi] - g;

			if ((unsigned)(4 * dg * dg) >= best) {
				hi = bg->n;
			} else {
				unsigned d = dist(rgb, pal[bg->index[hi]]);

				if (d < best) {
					best = d;
					at = bg->index[hi];
				}
				hi++;
			}
		}
		if (lo >= 0) {
			int dg = g - bg->g[lo];

			if ((unsigned)(4 * dg * dg) >= best) {
				lo = -1;
			} else {
				unsigned d = dist(rgb, pal[bg->index[lo]]);

				if (d < best) {
					best = d;
					at = bg->index[lo];
				}
				lo--;
			}
		}
	}
	return at;
}

/*
 * Maps the picture to palette indices: pal[0..*npal) the palette (RGB),
 * raw the PNG's rows (each its filter byte, 0: none, then w indices).
 * 0, or -1 out of memory.
 */
static int quantise(const unsigned char *pixels, int w, int h, int stride, uint32_t pal[256],
		    int *npal, unsigned char *idx)
{
	struct hist hs = { 0 };
	struct by_green bg;
	struct slot **order = NULL;
	struct slot *ls;
	size_t i, k;
	int x, y;

	if (hist_grow(&hs))
		return -1;
	/* the palette from every third row: frequencies, not an inventory
	 * (a colour first met below is mapped when it is); counted a run of
	 * one colour at a time, as the rows are mostly runs */
	for (y = 0; y < h; y += 3) {
		const uint32_t *px = (const uint32_t *)(const void *)(pixels + (size_t)y * stride);

		for (x = 0; x < w;) {
			uint32_t c = px[x] & 0xFFFFFFu;
			int x0 = x;

			while (++x < w && (px[x] & 0xFFFFFFu) == c)
				;
			ls = hist_find(&hs, c);
			if (ls->rgb == 0xFFFFFFFFu) {
				if (2 * (hs.n + 1) > hs.cap) {
					if (hist_grow(&hs))
						goto fail;
					ls = hist_find(&hs, c);
				}
				ls->rgb = c;
				ls->count = 0;
				hs.n++;
			}
			ls->count += (uint32_t)(x - x0);
		}
	}
	order = malloc(hs.n * sizeof(*order));
	if (!order)
		goto fail;
	for (i = k = 0; i < hs.cap; i++)
		if (hs.v[i].rgb != 0xFFFFFFFFu)
			order[k++] = &hs.v[i];
	qsort(order, hs.n, sizeof(*order), by_count);
	*npal = hs.n < 256 ? (int)hs.n : 256;
	for (i = 0; i < hs.n && i < 256; i++) {
		pal[i] = order[i]->rgb;
		order[i]->index = (uint8_t)i;
	}
	by_green_init(&bg, pal, *npal);
	for (; i < hs.n; i++)
		order[i]->index = nearest(order[i]->rgb, pal, &bg);
	free(order);
	order = NULL;
	for (y = 0; y < h; y++) {
		const uint32_t *px = (const uint32_t *)(const void *)(pixels + (size_t)y * stride);
		unsigned char *dst = idx + (size_t)y * (w + 1) + 1;

		/* no filter: the rows of an indexed picture repeat whole, which
		 * zlib's matches catch, and filters on indices only add noise */
		dst[-1] = 0;
		if (y && !memcmp(px, pixels + (size_t)(y - 1) * stride, (size_t)w * 4)) {
			/* a row like the one above (margins, panels, gaps) */
			memcpy(dst, dst - (w + 1), (size_t)w);
			continue;
		}
		for (x = 0; x < w;) {
			uint32_t c = px[x] & 0xFFFFFFu;
			unsigned char at;

			ls = hist_find(&hs, c);
			if (ls->rgb == 0xFFFFFFFFu) {	/* not in the sampled rows */
				if (2 * (hs.n + 1) > hs.cap) {
					if (hist_grow(&hs))
						goto fail;
					ls = hist_find(&hs, c);
				}
				ls->rgb = c;
				ls->count = 1;
				ls->index = nearest(c, pal, &bg);
				hs.n++;
			}
			at = ls->index;
			do
				dst[x] = at;
			while (++x < w && (px[x] & 0xFFFFFFu) == c);
		}
	}
	free(hs.v);
	return 0;
fail:
	free(order);
	free(hs.v);
	return -1;
}

int paint_png_encode(const unsigned char *pixels, int w, int h, int stride, const char *text,
		     struct buf *out, struct buf *err)
{
	size_t n = (size_t)h * ((size_t)w + 1);
	struct buf z = BUF_INIT;
	unsigned char *raw, ihdr[13], plte[3 * 256];
	uint32_t pal[256];
	int npal = 0, k;

	if (w <= 0 || h <= 0) {
		buf_setf(err, "an empty picture");
		return -1;
	}
	raw = paint_scratch(PAINT_SCRATCH_ROWS, n);
	if (!raw || quantise(pixels, w, h, stride, pal, &npal, raw)) {
		buf_setf(err, "out of memory for a %dx%d picture", w, h);
		return -1;
	}
	if (deflate_to(raw, n, PNG_LEVEL, &z)) {
		buf_release(&z);
		buf_setf(err, "zlib could not compress the picture");
		return -1;
	}
	put32(ihdr, (uint32_t)w);
	put32(ihdr + 4, (uint32_t)h);
	ihdr[8] = 8;		/* bits per index */
	ihdr[9] = 3;		/* indexed colour */
	ihdr[10] = ihdr[11] = ihdr[12] = 0;
	for (k = 0; k < npal; k++) {
		plte[3 * k] = (unsigned char)(pal[k] >> 16);
		plte[3 * k + 1] = (unsigned char)(pal[k] >> 8);
		plte[3 * k + 2] = (unsigned char)pal[k];
	}
	if (buf_add(out, "\x89PNG\r\n\x1a\n", 8) || chunk(out, "IHDR", ihdr, sizeof(ihdr)) ||
	    chunk(out, "PLTE", plte, (size_t)npal * 3)) {
		buf_release(&z);
		buf_setf(err, "the picture is too large");
		return -1;
	}
	if (text && *text) {
		/* iTXt: keyword, NUL, compressed, method 0, no language, no
		 * translated keyword, then the UTF-8 text, deflated */
		static const char kw[] = "Description";
		struct buf t = BUF_INIT;

		buf_add(&t, kw, sizeof(kw));	/* with its NUL */
		buf_add(&t, "\1\0\0\0", 4);
		if (deflate_to((const unsigned char *)text, strlen(text), TEXT_LEVEL, &t) ||
		    t.toobig ||
		    chunk(out, "iTXt", (const unsigned char *)t.s, t.len)) {
			buf_release(&t);
			buf_release(&z);
			buf_setf(err, "the picture's description is too large");
			return -1;
		}
		buf_release(&t);
	}
	if (chunk(out, "IDAT", (const unsigned char *)z.s, z.len) || chunk(out, "IEND", NULL, 0)) {
		buf_release(&z);
		buf_setf(err, "the picture is too large");
		return -1;
	}
	buf_release(&z);
	return 0;
}
