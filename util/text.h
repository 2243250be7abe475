/*
 * text: the few UTF-8 operations the bot needs to read people's input.
 */
#ifndef UTIL_TEXT_H
#define UTIL_TEXT_H

#include <stddef.h>

#include "util/buf.h"

/* 1 when s[0..n) is well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF)
 * with no NUL byte and no C0 control other than tab/newline. */
int utf8_valid(const char *s, size_t n);

/* Decodes the code point at s (n > 0 bytes left) into *cp; returns its
 * length, or 0 when malformed (overlong, surrogate, > U+10FFFF, cut). */
size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp);

/* Display columns of a UTF-8 string (one per code point; combining marks 0). */
size_t utf8_width(const char *s);

/*
 * Folds text for forgiving comparison: lower case, Latin accents removed
 * (á→a, ñ→n, ü→u ...), '_' and '-' read as spaces, runs of white space
 * collapsed to one space, leading/trailing space dropped.  A minus sign
 * that starts a word and a number ("-3"; also U+2212 and the en dash a
 * phone may type for it) stays '-', so that a negative number is never
 * read as a positive one.  Appends to out.  Returns 0, or -1 when out hit
 * its cap.
 */
int text_fold(const char *in, struct buf *out);

/* text_fold of a and b compare equal. */
int text_eq(const char *a, const char *b);

/* Splits off the first whitespace-delimited word of *s: copies it (at most
 * n-1 bytes, cut short at a UTF-8 character boundary) into word, advances
 * *s past it and the following spaces.  Returns the word's whole length,
 * 0 when there is none. */
size_t text_word(const char **s, char *word, size_t n);

/*
 * Display names are untrusted text: a name with a newline, a bidi override
 * or a zero-width character can forge lines or words in the bot's messages.
 * text_clean_name() writes into out (outsz bytes, NUL-terminated) the name
 * as the bot may show it: invalid UTF-8 and control, format, bidi-control,
 * zero-width and line/paragraph-separator characters dropped (a combining
 * mark survives only after a visible character and at most
 * TEXT_NAME_MAX_MARKS in a row, so "Zalgo" text cannot stack up), every run
 * of white space (Unicode spaces included) made one ASCII space, no leading
 * or trailing space, at most TEXT_NAME_MAX_CHARS code points (cut at a
 * character boundary; outsz bounds the bytes too).  Returns the length
 * written; 0 when nothing visible is left (the caller picks a fallback,
 * e.g. the user id).
 */
#define TEXT_NAME_MAX_CHARS 32
#define TEXT_NAME_MAX_MARKS 2
size_t text_clean_name(const char *in, size_t n, char *out, size_t outsz);

#endif
