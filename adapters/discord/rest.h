/*
 * rest: the Discord REST request queue.  Joins the pure rate limiter
 * (adapters/discord/ratelimit.h) to the async HTTP client (adapters/http.h)
 * on the program's one libuv loop.
 *
 *	struct discord_rest_config cfg = { .token = token };
 *	struct discord_rest *q = discord_rest_new(loop, &cfg, &err);
 *	discord_rest_submit(q, "POST", "/channels/123/messages",
 *			    "{\"content\":\"hi\"}", on_sent, ctx, &err);
 *
 * Each request is keyed by its route and major parameter (a "lane").  A lane
 * is strictly sequential: its head is sent when the limiter allows it, and
 * the next one only after the head has its final answer, so requests on
 * one channel (one route) go out and complete in submission order, retries
 * included.  Different lanes run in parallel, subject to the limiter.
 *
 * When the limiter says wait, one uv_timer for the whole queue wakes it at
 * the earliest time anything may move; responses and submissions also
 * re-examine the queue.  Nothing polls.  Time is uv_now(loop).
 *
 * Every response's header lines go to ratelimit_headers_parse(), a 429's JSON
 * body supplies retry_after (and global), and ratelimit_update() decides:
 * deliver, retry after a delay (429, 5xx, network error), or give up after
 * RATELIMIT_MAX_ATTEMPTS tries.
 *
 * Unreachable: DISCORD_REST_DOWN_AFTER answers in a row that were network
 * errors or 502/503/504 (a proxy whose Discord does not answer says so with
 * those) make the queue "down": it tells cfg->on_down, gives up on nothing
 * that fails that way (a failed request waits DISCORD_REST_DOWN_RETRY_MS and
 * tries again), and sends one request at a time, as a probe.  The first
 * other answer ends it: cfg->on_down again, and everything waiting goes at
 * once, lanes in order.  So an outage of Discord or of the proxy loses
 * nothing that was queued, and does not hammer either.
 *
 * A shared proxy (cfg->proxy, docs/deploy.md): base_url may be plain http://
 * to a private address or a Unix socket ("unix:/path"), and interaction
 * callbacks go to cfg->direct_url instead: Discord exempts them from the
 * global limit, they have a bucket per interaction, and the bot can then
 * answer a player "try again" while the proxy is down.
 *
 * Secrets: the token lives only in the Authorization header line this
 * module builds (wiped on free); nothing here logs, and no error text ever
 * contains it.
 *
 * Single-threaded: every function must be called on the loop's thread.
 */
#ifndef ADAPTERS_DISCORD_REST_H
#define ADAPTERS_DISCORD_REST_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "util/buf.h"

#define DISCORD_REST_DEFAULT_BASE	"https://discord.com/api/v10"
/* The User-Agent is "DiscordBot (<tabula_url>, <tabula_version>)"
 * (util/version.h), the form Discord asks for. */
/* Failures in a row (network errors, 502/503/504) that make the queue down. */
#define DISCORD_REST_DOWN_AFTER		3
/* While down, how long a failed request waits before it is tried again. */
#define DISCORD_REST_DOWN_RETRY_MS	2000
/* Used when the config leaves max_pending 0. */
#define DISCORD_REST_DEFAULT_MAX_PENDING 4096

struct discord_rest;

struct discord_rest_config {
	/* Required: the bot token, without the "Bot " prefix.  Copied. */
	const char *token;
	/* NULL: DISCORD_REST_DEFAULT_BASE.  Must pass http_url_allowed()
	 * (https anywhere, http only to loopback); no trailing slash needed.
	 * Copied. */
	const char *base_url;
	/* Per attempt; 0: HTTP_DEFAULT_TIMEOUT_MS. */
	long timeout_ms;
	/* Requests queued or in flight at most; 0: the default. */
	size_t max_pending;
	/* Backoff jitter seed. */
	uint64_t seed;
	/* 0: retries after 5xx and network errors wait as long as the limiter
	 * says.  Otherwise at most this many ms (for tests; 429 delays, which
	 * the server dictates, are never shortened). */
	uint64_t retry_cap_ms;
	/* 1: base_url names a shared REST proxy the operator runs
	 * (DISCORD_API_PROXY=1): it may also be plain http:// to a private
	 * address (http_url_allowed_private(), checked again on the address
	 * connected to) or "unix:/path/to.sock", a Unix socket (requests then
	 * go to http://localhost/api/v10/... over it); and interaction
	 * callbacks go to direct_url instead. */
	int proxy;
	/* With proxy: where interaction callbacks go; NULL:
	 * DISCORD_REST_DEFAULT_BASE.  Must pass http_url_allowed().  Copied. */
	const char *direct_url;
	/* Told (from the loop, never from inside a call of this API) when the
	 * queue becomes down (1) and when it is up again (0); may be NULL. */
	void (*on_down)(void *ctx, int down);
	void *ctx;
};

/* What the queue did, since it was made (for the operator's metrics). */
struct discord_rest_stats {
	uint64_t sent;		/* attempts sent */
	uint64_t waits;		/* a request held back by its bucket, the global
				 * cap or a 429's pause: counted once per wait */
	uint64_t answers_429;	/* 429 answers */
	uint64_t failures;	/* network errors and 5xx answers */
};

struct discord_rest_resp {
	/* The final HTTP status (any: 2xx, 4xx, or the last 429/5xx when the
	 * queue gave up), or 0 when no response came (network error, or the
	 * request could not be sent). */
	long status;
	/* NULL when Discord's answer is final (2xx or a 4xx such as 403/404:
	 * look at status).  Otherwise why the request failed: gave up after
	 * retries, network error, ...  Never contains the token. */
	const char *error;
	/* The body of the last response (may be empty), NUL-terminated.
	 * The callback may take it with buf_detach(). */
	struct buf *body;
	/* Tries made (1 = no retry). */
	unsigned attempts;
};

/*
 * Called exactly once per accepted request, from the loop (never from inside
 * discord_rest_submit()), unless the queue is freed first.  resp is
 * borrowed for the call.  The callback may submit more requests and may
 * discord_rest_free() the queue.
 */
typedef void (*discord_rest_fn)(const struct discord_rest_resp *resp,
				void *ctx);

/*
 * A new queue on loop with its own HTTP client, or NULL with err filled (a
 * missing or malformed token, a base URL refused by http_url_allowed(), or
 * with cfg->proxy by http_url_allowed_private(), a direct URL refused, a
 * client setup failure).  The loop is borrowed.
 */
struct discord_rest *discord_rest_new(uv_loop_t *loop,
				      const struct discord_rest_config *cfg,
				      struct buf *err);

/*
 * Drops every request, queued or in flight, without calling its callback,
 * and starts closing the queue's libuv handles; the memory goes when their
 * close callbacks have run, so run the loop afterwards (uv_run until it
 * returns) before uv_loop_close().  May be called from a callback.  NULL is
 * a no-op.
 */
void discord_rest_free(struct discord_rest *q);

/*
 * Queues a request: method ("GET", "POST", "PATCH", "PUT", "DELETE"), path
 * relative to the base URL ("/channels/123/messages", query string
 * allowed), json (NULL for no body; copied).  Returns 0 and later calls
 * cb(resp, ctx) once, or -1 with err filled (malformed method or path, the
 * queue full or freed) and never calls cb.  Borrows its arguments only for
 * the call.
 */
int discord_rest_submit(struct discord_rest *q, const char *method,
			const char *path, const char *json,
			discord_rest_fn cb, void *ctx, struct buf *err);

/*
 * The same with any body: len bytes of body (copied; may hold NULs) sent
 * with content_type (NULL: application/json).  For multipart uploads
 * (attachments).
 */
int discord_rest_submit_raw(struct discord_rest *q, const char *method, const char *path,
			    const char *content_type, const void *body, size_t len,
			    discord_rest_fn cb, void *ctx, struct buf *err);

/* Requests accepted and not yet completed (queued, waiting or in flight). */
size_t discord_rest_pending(const struct discord_rest *q);

/* 1 while the queue is down (above): Discord does not answer through the
 * base URL.  Interaction callbacks to a direct URL are not held by it. */
int discord_rest_down(const struct discord_rest *q);

/* The counters above; valid as long as q. */
const struct discord_rest_stats *discord_rest_stats(const struct discord_rest *q);

#endif
