#include "util/logging.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/text.h"

static enum log_level threshold = LOG_INFO;

void log_set_level(enum log_level level)
{
	threshold = level;
}

int log_level_parse(const char *s, enum log_level *out)
{
	static const char *const names[] = { "debug", "info", "warn", "error" };
	int i;

	for (i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

/* Characters that reorder, hide or break a line on a terminal or in a log
 * viewer: shown as \u{...} rather than acted upon. */
static int invisible(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || cp == 0x061c ||
	       (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb);
}

size_t log_escape(const char *in, size_t n, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0;
	char tmp[16];

	if (!size)
		return 0;
	while (i < n) {
		unsigned cp;
		size_t len = utf8_decode(s + i, n - i, &cp);
		const char *put = tmp;
		size_t k;

		if (!len) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);	/* not UTF-8 */
			len = 1;
		} else if (cp == '\\') {
			put = "\\\\";
		} else if (cp < 0x20 || cp == 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", cp);
		} else if (invisible(cp)) {
			snprintf(tmp, sizeof(tmp), "\\u{%x}", cp);
		} else {
			if (o + len >= size)
				break;
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
			continue;
		}
		k = strlen(put);
		if (o + k >= size)
			break;
		memcpy(out + o, put, k);
		o += k;
		i += len;
	}
	out[o] = '\0';
	return o;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tags[] = { "debug", "info", "warn", "error" };
	/* what a remote party put in a message (an id, a name, an error
	 * text) must not write a line of its own: every control character,
	 * bidi override and byte that is not UTF-8 is shown escaped */
	char raw[LOG_LINE_MAX], line[LOG_LINE_MAX * 2];
	char stamp[32];
	struct tm tm;
	time_t t;
	va_list ap;
	int n;

	if (level < threshold)
		return;
	t = time(NULL);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	va_start(ap, fmt);
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	log_escape(raw, (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw) - 1, line,
		   sizeof(line));
	/* one write: lines of several threads do not interleave */
	fprintf(stderr, "%s tabula %s: %s%s\n", stamp, tags[level], line,
		(size_t)n >= sizeof(raw) ? " [cut]" : "");
}
