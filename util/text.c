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
		/* a minus sign (or a dash typed for one) that starts a word
		 * and a number stays: "offer -3" must not read as "offer 3" */
		if ((cp == '-' || cp == 0x2212 || cp == 0x2013) && (!any || pending_space) &&
		    i < n && p[i] >= '0' && p[i] <= '9') {
			if (pending_space && buf_addch(out, ' '))
				return -1;
			pending_space = 0;
			any = 1;
			if (buf_addch(out, '-'))
				return -1;
			continue;
		}
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
	const char *p = *s, *start;
	size_t len, cut;

	while (*p == ' ' || *p == '\t')
		p++;
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	len = (size_t)(p - start);
	if (n) {
		/* a word cut short ends before the character that does not fit
		 * whole: the copy of valid UTF-8 stays valid (callers echo it) */
		cut = len < n ? len : n - 1;
		while (cut < len && cut && ((unsigned char)start[cut] & 0xC0) == 0x80)
			cut--;
		memcpy(word, start, cut);
		word[cut] = '\0';
	}
	while (*p == ' ' || *p == '\t')
		p++;
	*s = p;
	return len;
}

/* Characters a name may not carry: they are invisible, reorder the text
 * around them, or break lines.  (Controls are caught before this.) */
static int name_drops(unsigned cp)
{
	return cp == 0xad ||			/* soft hyphen */
	       cp == 0x34f ||			/* combining grapheme joiner */
	       cp == 0x61c ||			/* Arabic letter mark */
	       cp == 0x115f || cp == 0x1160 ||	/* Hangul fillers */
	       (cp >= 0x17b4 && cp <= 0x17b5) ||
	       (cp >= 0x180b && cp <= 0x180f) ||	/* Mongolian selectors */
	       (cp >= 0x200b && cp <= 0x200f) ||	/* zero width, LRM, RLM */
	       (cp >= 0x2028 && cp <= 0x202e) ||	/* separators, embeddings */
	       (cp >= 0x2060 && cp <= 0x206f) ||	/* joiners, isolates */
	       cp == 0x3164 || cp == 0xffa0 ||	/* Hangul fillers */
	       (cp >= 0xfe00 && cp <= 0xfe0f) ||	/* variation selectors */
	       cp == 0xfeff ||			/* BOM, zero-width no-break */
	       (cp >= 0xfff0 && cp <= 0xfffb) ||	/* interlinear, specials */
	       (cp >= 0x1d173 && cp <= 0x1d17a) ||	/* musical format */
	       (cp >= 0xe0000 && cp <= 0xe0fff) ||	/* tags, selectors */
	       (cp >= 0xd800 && cp <= 0xdfff);
}

static int name_space(unsigned cp)
{
	return cp == ' ' || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

static int name_mark(unsigned cp)
{
	return (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x1ab0 && cp <= 0x1aff) ||
	       (cp >= 0x1dc0 && cp <= 0x1dff) || (cp >= 0x20d0 && cp <= 0x20ff) ||
	       (cp >= 0xfe20 && cp <= 0xfe2f);
}

size_t text_clean_name(const char *in, size_t n, char *out, size_t outsz)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0, len = 0, chars = 0;
	int pending_space = 0, marks = 0;

	if (!outsz)
		return 0;
	while (i < n && chars < TEXT_NAME_MAX_CHARS) {
		unsigned cp;
		size_t k = utf8_decode(p + i, n - i, &cp);

		if (!k) {		/* not UTF-8: skip the byte */
			i++;
			continue;
		}
		i += k;
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || name_space(cp)) {
			/* tabs and newlines separate words; other controls
			 * vanish, but do not glue words either */
			pending_space = len > 0;
			continue;
		}
		if (name_drops(cp))
			continue;
		if (name_mark(cp)) {
			if (!len || pending_space || marks >= TEXT_NAME_MAX_MARKS)
				continue;
			marks++;
		} else {
			marks = 0;
		}
		if (pending_space) {
			if (len + 1 >= outsz || chars + 1 >= TEXT_NAME_MAX_CHARS)
				break;
			out[len++] = ' ';
			chars++;
			pending_space = 0;
		}
		if (len + k >= outsz)
			break;
		memcpy(out + len, p + i - k, k);
		len += k;
		chars++;
	}
	out[len] = '\0';
	return len;
}
