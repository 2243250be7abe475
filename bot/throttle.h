/*
 * throttle: a per-user command throttle, one token bucket per platform and
 * user (docs/async.md, "Throttle").  A user may send `burst` commands at
 * once, then one every `period_ms`; a command beyond that is refused.  The
 * buckets of other users are untouched, so one user's flood slows nobody
 * else.
 *
 * Implemented as the generic cell rate algorithm: each bucket is a single
 * "theoretical arrival time" (tat); a command is allowed when
 * tat + period - now <= burst * period, and then moves tat one period on.
 * A bucket whose tat is in the past is full again and carries no
 * information, so the table drops such buckets when it grows: its memory
 * follows the users active in the last burst * period, not all users ever.
 */
#ifndef BOT_THROTTLE_H
#define BOT_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

enum throttle_verdict {
	THROTTLE_OK = 0,	/* run the command */
	THROTTLE_WARN,		/* refused; the first refusal since the last
				 * command allowed: tell the user to slow down */
	THROTTLE_REFUSED,	/* refused again; the user was told already */
};

struct throttle_entry;

struct throttle {
	unsigned burst;		/* 0: off, every command is allowed */
	int64_t period_ms;
	struct throttle_entry **buckets;	/* owned; nbuckets chains */
	size_t nbuckets, count, sweep_at;
};

/* Sets up in place; burst 0 (or period_ms <= 0) turns the throttle off. */
void throttle_init(struct throttle *t, unsigned burst, int64_t period_ms);
/* Frees the buckets. */
void throttle_release(struct throttle *t);

/* Counts one command of user on platform at now_ms (a monotonic clock).
 * *wait_ms, when refused: how long until the next command is allowed. */
enum throttle_verdict throttle_take(struct throttle *t, const char *platform,
				    const char *user, int64_t now_ms, int64_t *wait_ms);

/* Users with a bucket now (tests: the table forgets idle users). */
size_t throttle_tracked(const struct throttle *t);

#endif
