/*
 * logging: operator log lines on stderr, one per event, with a level.
 * Never pass a secret (token, password) to these: nothing here masks them.
 * TABULA_LOG=debug|info|warn|error sets the threshold (default info).
 */
#ifndef UTIL_LOGGING_H
#define UTIL_LOGGING_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERR };

void log_set_level(enum log_level level);
int log_level_parse(const char *s, enum log_level *out);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)

#endif
