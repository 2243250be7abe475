#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);

	memcpy(p, s, n);
	return p;
}

void buf_init(struct buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void buf_release(struct buf *b)
{
	size_t max = b->max;

	free(b->s);
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->toobig = 0;
	if (b->s)
		b->s[0] = '\0';
}

char *buf_detach(struct buf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	size_t max = b->max;

	memset(b, 0, sizeof(*b));
	b->max = max;
	return s;
}

const char *buf_str(const struct buf *b)
{
	return b->s ? b->s : "";
}

static int buf_grow(struct buf *b, size_t extra)
{
	size_t max = b->max ? b->max : BUF_DEFAULT_MAX;
	size_t need;

	if (b->toobig)
		return -1;
	if (extra > max || b->len > max - extra) {
		b->toobig = 1;
		return -1;
	}
	need = b->len + extra + 1;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < need)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	return 0;
}

int buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n))
		return -1;
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if (buf_grow(b, (size_t)n))
		return -1;
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

int buf_setf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!b)
		return -1;
	buf_reset(b);
	va_start(ap, fmt);
	r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

int buf_addpad(struct buf *b, const char *s, int width)
{
	int cols = (int)utf8_width(s);

	if (buf_addstr(b, s))
		return -1;
	while (cols++ < width)
		if (buf_addch(b, ' '))
			return -1;
	return 0;
}
