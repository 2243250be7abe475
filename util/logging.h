/*
 * logging: operator log lines on stderr, one per event, with a level.
 * Never pass a secret (token, password) to these: nothing here masks them.
 * TABULA_LOG=debug|info|warn|error sets the threshold (default info).
 *
 * One call is one line, whatever it holds: remote strings (user and device
 * ids, display names, error texts of servers) may be logged as they are,
 * since every control character, newline included, every bidi override or
 * invisible character and every byte that is not UTF-8 is written escaped
 * (log_escape).  A message over LOG_LINE_MAX bytes is cut, marked [cut].
 */
#ifndef UTIL_LOGGING_H
#define UTIL_LOGGING_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERR };

#include <stddef.h>

#define LOG_LINE_MAX 4096

void log_set_level(enum log_level level);
/*
 * in[0..n) as it is logged into out (size bytes, NUL-terminated, cut at a
 * whole escape): UTF-8 text as is; a backslash as \\; a C0 control or DEL
 * as \xNN; a C1 control, bidi control, zero-width or line-separator
 * character as \u{N}; a byte that is not UTF-8 as \xNN.  Returns the
 * bytes written.
 */
size_t log_escape(const char *in, size_t n, char *out, size_t size);
int log_level_parse(const char *s, enum log_level *out);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)

#endif
