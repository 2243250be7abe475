#include "util/logging.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tags[] = { "debug", "info", "warn", "error" };
	char stamp[32];
	struct tm tm;
	time_t t;
	va_list ap;

	if (level < threshold)
		return;
	t = time(NULL);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s tabula %s: ", stamp, tags[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
