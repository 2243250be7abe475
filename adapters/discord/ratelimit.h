/*
 * ratelimit: Discord REST and gateway rate limiting, as a pure module.
 *
 * Nothing here does I/O, reads a clock or touches global state: the caller
 * passes the time in milliseconds (a monotonic clock such as uv_now()) and
 * the response headers it parsed; jitter comes from a seeded struct rng.  The
 * adapter's libcurl layer drives it:
 *
 *	struct ratelimit_key k;
 *	if (ratelimit_route_key("POST", "/channels/123/messages", now, &k, &err))
 *		fail;
 *	for (attempt = 1;; attempt++) {
 *		while (ratelimit_acquire(rl, &k, now, &wait))
 *			sleep wait ms (a uv timer), refresh now;
 *		send; parse headers with ratelimit_headers_parse() per line, set
 *		h.status (0 for a network error) and, from a JSON 429 body,
 *		h.retry_after (more precise than the Retry-After header);
 *		switch (ratelimit_update(rl, &k, now, &h, attempt, &wait)) {
 *		case RATELIMIT_DONE:    deliver the response; stop
 *		case RATELIMIT_RETRY:   sleep wait ms, go round again
 *		case RATELIMIT_GIVE_UP: report the error; stop
 *		}
 *	}
 *
 * Model (see docs/discord-ratelimit.md):
 *  - A route ("POST /channels/{id}/messages") maps to a bucket hash learned
 *    from X-RateLimit-Bucket; several routes may share one hash.  Budgets
 *    live in buckets keyed by (hash, major parameter).
 *  - Until a route's hash is known, and for a (hash, major) pair that has not
 *    answered yet, requests are serialised: one in flight, so the first
 *    response teaches limit/remaining/reset.  Such a first request also
 *    waits while a known bucket of its major parameter is empty: routes may
 *    share a bucket (a channel's posts and edits) before we can know it.
 *  - A global sliding window of 50 requests per second covers every route
 *    except interaction callbacks (Discord exempts those).
 *  - 429: global (X-RateLimit-Global or scope "global") pauses everything;
 *    scope "shared" blocks the bucket for retry_after but leaves our own
 *    remaining count alone; otherwise the bucket is empty until retry_after.
 *  - 5xx and network errors: exponential backoff with jitter, attempts
 *    capped at RATELIMIT_MAX_ATTEMPTS.
 *  - Memory is bounded: fixed tables of RATELIMIT_MAX_BUCKETS buckets and
 *    RATELIMIT_MAX_ROUTES routes, allocated once by ratelimit_init(); idle
 *    entries are evicted least recently used first.
 */
#ifndef ADAPTERS_DISCORD_RATELIMIT_H
#define ADAPTERS_DISCORD_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

struct buf;

#define RATELIMIT_MAX_BUCKETS	1024
#define RATELIMIT_MAX_ROUTES	256
#define RATELIMIT_ROUTE_MAX	128	/* normalised route, NUL included */
#define RATELIMIT_MAJOR_MAX	512	/* "id/token" for webhooks, NUL included */
#define RATELIMIT_HASH_MAX	64	/* X-RateLimit-Bucket, NUL included */

#define RATELIMIT_GLOBAL_PER_SEC	50
#define RATELIMIT_MAX_ATTEMPTS		5	/* total tries of one request */
#define RATELIMIT_BACKOFF_BASE_MS	500
#define RATELIMIT_BACKOFF_CAP_MS	30000
/* Wait hint while a serialised request is in flight: re-ask then, or sooner
 * when a response on the same route arrives. */
#define RATELIMIT_POLL_MS		50
/* Retry delay for a 429 that carries neither Retry-After nor reset-after. */
#define RATELIMIT_DEFAULT_RETRY_MS	1000
/*
 * Added to every time the server dictates (X-RateLimit-Reset-After, a 429's
 * retry_after).  Those come rounded to the millisecond, and uv_now() is the
 * time truncated to the millisecond, so a reset computed from them can fall
 * up to 1.5 ms before the server's; on a fast link the request sent at that
 * instant reaches the server still inside the old window (the flaky 429 of
 * test_faults_mid_game).  50 ms also covers a distributed server's own
 * slack, as other Discord libraries do, for a few percent of throughput on
 * the tightest buckets.
 */
#define RATELIMIT_RESET_MARGIN_MS	50

#define RATELIMIT_GATEWAY_SENDS		120
#define RATELIMIT_GATEWAY_PERIOD_MS	60000
#define RATELIMIT_WINDOW_MAX		120	/* largest window limit */

/* ---- sliding window (gateway sends, and the global 50/s cap) ---- */

struct ratelimit_window {
	unsigned limit;		/* at most `limit` events ... */
	uint64_t period_ms;	/* ... in any `period_ms` */
	unsigned head, count;	/* ring of the last `count` event times */
	uint64_t t[RATELIMIT_WINDOW_MAX];
};

/* 0 < limit <= RATELIMIT_WINDOW_MAX; period_ms > 0. */
void ratelimit_window_init(struct ratelimit_window *w, unsigned limit,
			   uint64_t period_ms);
/*
 * Returns 0 and records an event at now_ms when one may happen now, or 1
 * with *wait_ms > 0: ask again after that long.  now_ms must not go back.
 * For the gateway: init(w, RATELIMIT_GATEWAY_SENDS, RATELIMIT_GATEWAY_PERIOD_MS).
 */
int ratelimit_window_acquire(struct ratelimit_window *w, uint64_t now_ms,
			     uint64_t *wait_ms);

/* ---- route keys ---- */

struct ratelimit_key {
	char route[RATELIMIT_ROUTE_MAX];	/* "POST /channels/{id}/messages" */
	char major[RATELIMIT_MAJOR_MAX];	/* "123", "id/token" or "" */
};

/*
 * Normalises a request into route + major parameter.  `path` may carry an
 * "/api" or "/api/vN" prefix and a query string; both are dropped.  Numeric
 * segments become {id}, webhook and interaction tokens {token}, the emoji
 * after /reactions/ {emoji}, an invite code {code}.  The major parameter is
 * the id after a leading channels/guilds segment, or "id/token" after a
 * leading webhooks/interactions segment.
 * DELETE of a message older than 14 days has its own bucket on Discord; when
 * now_ms (Unix milliseconds here, not the monotonic clock) is nonzero the
 * route gets an " (old)" suffix for those.  Pass 0 to skip the check.
 * Returns 0, or -1 with a message in err (may be NULL) for a malformed or
 * too long input.  Borrows method and path.
 */
int ratelimit_route_key(const char *method, const char *path, uint64_t now_ms,
			struct ratelimit_key *out, struct buf *err);

/* ---- response headers ---- */

enum ratelimit_scope {
	RATELIMIT_SCOPE_NONE = 0,	/* header absent */
	RATELIMIT_SCOPE_USER,
	RATELIMIT_SCOPE_GLOBAL,
	RATELIMIT_SCOPE_SHARED,
};

/* What the caller learned from one response; absent numbers are < 0. */
struct ratelimit_headers {
	int status;			/* HTTP status; 0 = network error */
	char bucket[RATELIMIT_HASH_MAX];	/* X-RateLimit-Bucket or "" */
	long limit;			/* X-RateLimit-Limit */
	long remaining;			/* X-RateLimit-Remaining */
	double reset_after;		/* X-RateLimit-Reset-After, seconds */
	double retry_after;		/* Retry-After or JSON retry_after, s */
	int global;			/* X-RateLimit-Global: true */
	enum ratelimit_scope scope;	/* X-RateLimit-Scope */
};

/* Sets every field to "absent" and status to 0. */
void ratelimit_headers_init(struct ratelimit_headers *h);
/*
 * Feeds one raw header line ("Name: value\r\n", as libcurl's header callback
 * gives it; need not be NUL-terminated).  Names match case-insensitively.
 * Returns 1 if the line was a rate-limit header, 0 otherwise.  Numbers are
 * parsed in the C locale.  An HTTP-date Retry-After is ignored.
 */
int ratelimit_headers_parse(struct ratelimit_headers *h, const char *line,
			    size_t len);

/* ---- the REST limiter ---- */

struct ratelimit_route;		/* route -> bucket hash, private */
struct ratelimit_bucket;	/* one (hash, major) budget, private */

struct ratelimit {
	struct ratelimit_route *routes;		/* owned, RATELIMIT_MAX_ROUTES */
	struct ratelimit_bucket *buckets;	/* owned, RATELIMIT_MAX_BUCKETS */
	struct ratelimit_window global;		/* 50 requests per second */
	uint64_t global_until;			/* global 429 pause */
	struct rng rng;				/* backoff jitter */
};

/* Sets up in place; allocates the fixed tables (aborts on OOM). */
void ratelimit_init(struct ratelimit *rl, uint64_t seed);
/* Frees the tables; rl may be initialised again afterwards. */
void ratelimit_release(struct ratelimit *rl);

/*
 * May a request for k be sent at now_ms?  Returns 0 and takes the slot (one
 * in-flight request on the bucket and one global-window event), or 1 with
 * *wait_ms > 0 and nothing taken: ask again after that long.  Every 0 must be
 * matched by one ratelimit_update() or ratelimit_cancel().  Borrows k.
 */
int ratelimit_acquire(struct ratelimit *rl, const struct ratelimit_key *k,
		      uint64_t now_ms, uint64_t *wait_ms);

enum ratelimit_action {
	RATELIMIT_DONE = 0,	/* the response is final (2xx, or a 4xx error) */
	RATELIMIT_RETRY,	/* send again after *retry_ms (acquire first) */
	RATELIMIT_GIVE_UP,	/* retryable failure, but attempts exhausted */
};

/*
 * Records the response to a request acquired for k: releases its slot,
 * learns the bucket from h (its reset RATELIMIT_RESET_MARGIN_MS after the
 * server's), and says what to do.  `attempt` is 1 for the
 * first try of this request, 2 for the first retry, and so on; after
 * RATELIMIT_MAX_ATTEMPTS tries a 429, 5xx or network error gives up.
 * *retry_ms is set only for RATELIMIT_RETRY (a 429's includes the margin).  Borrows k and h.
 */
enum ratelimit_action ratelimit_update(struct ratelimit *rl,
				       const struct ratelimit_key *k,
				       uint64_t now_ms,
				       const struct ratelimit_headers *h,
				       unsigned attempt, uint64_t *retry_ms);

/* Gives back a slot from ratelimit_acquire() whose request was never sent. */
void ratelimit_cancel(struct ratelimit *rl, const struct ratelimit_key *k);

/*
 * The jittered delay before retry `attempt` (>= 1): with
 * d = min(RATELIMIT_BACKOFF_CAP_MS, RATELIMIT_BACKOFF_BASE_MS << (attempt-1)),
 * uniform in [d/2, d].  Advances rl->rng.
 */
uint64_t ratelimit_backoff_ms(struct ratelimit *rl, unsigned attempt);

/* Buckets currently held (for tests and diagnostics). */
unsigned ratelimit_bucket_count(const struct ratelimit *rl);

#endif
