/*
 * buf: one growable byte buffer with a size cap, used for every string the
 * program builds (messages, JSON, error texts).
 *
 * The cap exists so that hostile input (a 10 MB chat line, a huge JSON body)
 * fails cleanly instead of eating memory: once an append would cross `max`,
 * the buffer keeps what it had, sets `toobig`, and every later append fails.
 *
 * Ownership: a buf owns `s`. buf_release() frees it; buf_detach() hands it
 * to the caller ("you now own the storage").  `s` is always NUL-terminated
 * once anything was added; buf_str() returns "" for a never-used buffer.
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

#define BUF_DEFAULT_MAX ((size_t)16 << 20)

struct buf {
	char *s;
	size_t len, cap;
	size_t max;	/* 0 means BUF_DEFAULT_MAX */
	int toobig;
};

#define BUF_INIT { 0 }

void buf_init(struct buf *b, size_t max);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);		/* len = 0, keeps storage, clears toobig */
char *buf_detach(struct buf *b);	/* caller frees; b is reset to empty */
const char *buf_str(const struct buf *b);

/* Appends; return 0, or -1 (and set toobig) when the cap would be crossed. */
int buf_add(struct buf *b, const void *p, size_t n);
int buf_addstr(struct buf *b, const char *s);
int buf_addch(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Replaces the contents (buf_reset + buf_printf): the usual way to fill an err. */
int buf_setf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Pads with spaces to `width` display columns (UTF-8 aware) after appending s. */
int buf_addpad(struct buf *b, const char *s, int width);

/* Allocation that aborts on out-of-memory: callers never check. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
