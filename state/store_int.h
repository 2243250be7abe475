/*
 * store_int.h: what the store backends share (state/ only): the checks a
 * commit passes before any backend touches its database, and the error
 * helper.  Both backends refuse the same records with the same words.
 */
#ifndef STATE_STORE_INT_H
#define STATE_STORE_INT_H

#include "state/store.h"

/* Replaces err's text (err may be NULL). */
void seterr(struct buf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Everything about a commit that can be checked without the database:
 * fixed-size fields that fill their array without a NUL ("longer than N
 * bytes": nothing is ever cut), votes over STORE_VOTES_MAX, unknown
 * statuses, seat counts, actions without a session, truncation rules,
 * outbox rows without payload, a cursor without value, owner and fence
 * names.  0 or -1 with err.
 */
int store_check_commit(const struct store_commit *c, struct buf *err);

/* A lease, owner or holder name: 1 to STORE_NAME_MAX bytes. 0 or -1. */
int store_check_name(const char *name, const char *what, struct buf *err);

/* The platforms of a claim as "\nname\nname\n" into out; -1 when the list
 * is NULL, empty, or a name is empty, too long or holds a newline. */
int store_platform_list(const char *const *platforms, struct buf *out, struct buf *err);

/* Whether token can be a web token: 1 to STORE_WEB_TOKEN_MAX - 1
 * characters of base64url.  Every character is looked at, whatever the
 * first bad one. */
int store_web_token_ok(const char *token);

/* Unix milliseconds on this machine's clock (SQLite's lease clock). */
int64_t store_now_ms(void);

#endif
