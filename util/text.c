#include "util/text.h"

#include <ctype.h>
#include <string.h>

size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf && n >= 2 && (s[1] & 0xc0) == 0x80) {
		*cp = ((c & 0x1f) << 6) | (s[1] & 0x3f);
		return 2;
	}
	if (c >= 0xe0 && c <= 0xef && n >= 3 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80) {
		unsigned v = ((c & 0x0f) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3f);

		if (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))
			return 0;
		*cp = v;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4 && n >= 4 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80) {
		unsigned v = ((c & 0x07) << 18) | ((s[1] & 0x3fu) << 12) |
			     ((s[2] & 0x3fu) << 6) | (s[3] & 0x3f);

		if (v < 0x10000 || v > 0x10ffff)
			return 0;
		*cp = v;
		return 4;
	}
	return 0;
}

int utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned cp;
		size_t k = utf8_decode(p + i, n - i, &cp);

		if (!k)
			return 0;
		if (cp < 0x20 && cp != '\t' && cp != '\n')
			return 0;
		if (cp == 0x7f)
			return 0;
		i += k;
	}
	return 1;
}

size_t utf8_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, w = 0;

	while (i < n) {
		unsigned cp;
		size_t k = utf8_decode(p + i, n - i, &cp);

		if (!k) {
			i++;
			w++;
			continue;
		}
		if (!(cp >= 0x300 && cp <= 0x36f))
			w++;
		i += k;
	}
	return w;
}

/* Latin-1 supplement letters to their base ASCII letter, lower case. */
static int fold_latin(unsigned cp)
{
	static const char map[64] =
		"aaaaaaaceeeeiiii"	/* U+00C0..U+00CF */
		"dnooooo ouuuuyts"	/* U+00D0..U+00DF */
		"aaaaaaaceeeeiiii"	/* U+00E0..U+00EF */
		"dnooooo ouuuuyty";	/* U+00F0..U+00FF */

	if (cp >= 0xc0 && cp <= 0xff && map[cp - 0xc0] != ' ')
		return map[cp - 0xc0];
	return 0;
}

int text_fold(const char *in, struct buf *out)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = strlen(in), i = 0;
	int pending_space = 0, any = 0;

	while (i < n) {
		unsigned cp;
		size_t k = utf8_decode(p + i, n - i, &cp);
		int c;

		if (!k) {	/* keep stray bytes as they are */
			cp = p[i];
			k = 1;
		}
		i += k;
		if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' ||
		    cp == '_' || cp == '-' || cp == 0xa0) {
			pending_space = any;
			continue;
		}
		if (cp >= 0x300 && cp <= 0x36f)	/* combining accents */
			continue;
		if (pending_space) {
			if (buf_addch(out, ' '))
				return -1;
			pending_space = 0;
		}
		any = 1;
		if (cp < 0x80)
			c = tolower((int)cp);
		else
			c = fold_latin(cp);
		if (c) {
			if (buf_addch(out, (char)c))
				return -1;
		} else if (buf_add(out, p + i - k, k)) {
			return -1;
		}
	}
	return 0;
}

int text_eq(const char *a, const char *b)
{
	struct buf fa = BUF_INIT, fb = BUF_INIT;
	int eq;

	text_fold(a, &fa);
	text_fold(b, &fb);
	eq = strcmp(buf_str(&fa), buf_str(&fb)) == 0;
	buf_release(&fa);
	buf_release(&fb);
	return eq;
}

size_t text_word(const char **s, char *word, size_t n)
{
	const char *p = *s;
	size_t len = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	while (*p && *p != ' ' && *p != '\t') {
		if (len + 1 < n)
			word[len] = *p;
		len++;
		p++;
	}
	if (n)
		word[len < n ? len : n - 1] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	*s = p;
	return len;
}
