/*
 * httpd: a small HTTP/1.1 server on the program's libuv loop (libwebsockets
 * as a server, a context of its own: adapters/lwsctx.h), for operators
 * (/healthz, /readyz, /metrics: bot/ops.c) and each game's page (bot/web.c:
 * /g/, /static/).
 *
 *	struct httpd *h = httpd_new(loop, "127.0.0.1:9464", 0, &gone, &err);
 *	httpd_route(h, "/healthz", healthz, ctx);
 *	...
 *	httpd_free(h);			// no callback after this
 *	while (!gone)			// lws closes its handles
 *		uv_run(loop, UV_RUN_NOWAIT);
 *
 * Routes are exact paths (httpd_route: the operators' ones) or prefixes
 * (httpd_route_prefix: the game pages, "/g/"), answered synchronously on
 * the loop: the handler fills a status, a content type and a body.  GET
 * and HEAD only (HEAD: the same headers, no body); another method is
 * answered 405, an unknown path 404, a path with "..", a NUL or a control
 * character 400, one longer than HTTPD_PATH_CAP 414 (lws has decoded %XX
 * and folded "/../" before).  The query string is split off; a prefix
 * route's handler sees it as lws gives it: each '&'-separated part
 * %XX-decoded ('+' a space), the parts joined by '&' again.
 *
 * Every answer carries the headers of a page that shows nothing to anyone
 * else: a Content-Security-Policy allowing only this origin, no Referer,
 * nosniff, noindex; no cookie is ever set.
 *
 * Event streams (server-sent events): a prefix handler that sets
 * rs->stream makes its answer a text/event-stream subscribed to that
 * topic; the body goes first and the connection stays open.
 * httpd_publish() queues whole events to every stream of a topic,
 * httpd_close_topic() ends them.  A stream gets ": keepalive" every
 * HTTPD_KEEPALIVE_S seconds; a viewer that does not read is dropped once
 * HTTPD_STREAM_PENDING_MAX bytes wait for it (the others never wait).
 *
 * It must not be a way to stall or crash the bot: at most max_conns
 * connections at once (more are turned away as they arrive), of which at
 * most max_streams streams and streams_per_addr per client address;
 * request headers of at most HTTPD_HEADER_MAX bytes and no body; a token
 * bucket per client address (burst, then per_second requests; beyond it
 * 429 with Retry-After) for every request but the exact routes' (a
 * scraper is never turned away); HTTPD_TIMEOUT_S seconds for a request to arrive,
 * for its answer to be read and for an idle keep-alive connection (not for
 * a stream); lws's own logging is off (docs/ws.md).
 *
 * The client's address is the peer's, or with trust_proxy
 * (TABULA_HTTP_TRUST_PROXY=1: behind a reverse proxy on this machine) the
 * last address of X-Forwarded-For (the one the proxy saw).  Without it a
 * peer on this machine (a proxy: every client would be one) is not
 * limited per address.  IPv6 clients share their /64 for the rate limit
 * and the stream cap.
 *
 * Single-threaded: every function on the loop's thread.
 */
#ifndef ADAPTERS_HTTPD_H
#define ADAPTERS_HTTPD_H

#include <uv.h>

#include "util/buf.h"

#define HTTPD_MAX_CONNS 4096		/* the defaults of struct httpd_limits */
#define HTTPD_MAX_STREAMS 2048
#define HTTPD_STREAMS_PER_ADDR 16
#define HTTPD_RATE_BURST 60
#define HTTPD_RATE_PER_S 20
#define HTTPD_HEADER_MAX 4096
#define HTTPD_HEADER_POOL 64		/* requests being parsed at once */
#define HTTPD_PATH_CAP 1024		/* a longer path: 414 */
#define HTTPD_TIMEOUT_S 5
#define HTTPD_KEEPALIVE_S 25
#define HTTPD_STREAM_PENDING_MAX ((size_t)64 << 10)
#define HTTPD_MAX_ROUTES 16
#define HTTPD_TOPIC_MAX 64		/* a topic's name, NUL included */
#define HTTPD_BODY_MAX ((size_t)4 << 20)	/* a handler's body is cut there */

struct httpd;

struct httpd_response {
	int status;		/* 200 unless the handler says otherwise */
	const char *type;	/* Content-Type; borrowed, static */
	struct buf body;	/* capped at HTTPD_BODY_MAX */
	/* > 0: Cache-Control: public, max-age=cache_seconds; else no-store */
	int cache_seconds;
	/* set by a prefix handler with status 200: the answer is an event
	 * stream subscribed to this topic (copied, < HTTPD_TOPIC_MAX bytes);
	 * the body is sent first and the connection stays open (a HEAD gets
	 * the headers only; beyond the caps: 503 or 429, Retry-After) */
	const char *stream;
};

/* What a prefix route's handler is told; every string borrowed for the
 * call only. */
struct httpd_request {
	const char *path;	/* without the query ("/g/abc/state.json") */
	const char *rest;	/* the path after the prefix ("abc/state.json") */
	const char *query;	/* after '?', "" when none (decoded by lws: above) */
	const char *peer;	/* the client's address ("127.0.0.1"; see trust_proxy) */
};

typedef void (*httpd_fn)(void *ctx, struct httpd_response *rs);
typedef void (*httpd_req_fn)(void *ctx, const struct httpd_request *rq,
			     struct httpd_response *rs);

struct httpd_limits {
	unsigned max_conns;		/* connections open at once */
	unsigned max_streams;		/* of which event streams */
	unsigned streams_per_addr;	/* streams of one client address */
	unsigned burst;			/* requests an address may make at once, */
	unsigned per_second;		/* then this many a second; 0: no limit */
	int trust_proxy;		/* the client is X-Forwarded-For's last */
	unsigned keepalive_ms;		/* between a stream's keep-alives */
};

/*
 * Where to listen: "HOST:PORT" with HOST an IPv4 literal, a bracketed
 * IPv6 literal ("[::1]:9464") or "localhost", PORT 0 to 65535 (0: any free
 * port, httpd_port() tells which).  A HOST that is not a loopback address
 * (127.0.0.0/8, ::1) is refused unless allow_public: the operator must say
 * so (TABULA_HTTP_PUBLIC=1, docs/deploy.md).  Fills host (no brackets),
 * *port and *v6; 0, or -1 + err.
 */
int httpd_parse_addr(const char *spec, int allow_public, char *host, size_t hostsz, int *port,
		     int *v6, struct buf *err);

/*
 * Listens on spec (httpd_parse_addr); NULL + err when it cannot.  *gone
 * (when not NULL) is set to 1 once the server's teardown is over: at once
 * on most failures, a few loop turns later after httpd_free() or when the
 * address could not be bound.  Until then the caller runs the loop.
 */
struct httpd *httpd_new(uv_loop_t *loop, const char *spec, int allow_public, int *gone,
			struct buf *err);
/* Answers GET and HEAD of path ("/metrics") with fn(ctx); 0, or -1 when
 * the table is full or path is no absolute path. */
int httpd_route(struct httpd *h, const char *path, httpd_fn fn, void *ctx);
/* Answers GET and HEAD of every path starting with prefix ("/g/"; it must
 * start and end with '/') with fn(ctx, request); exact routes are tried
 * first, then the longest prefix.  0, or -1 as httpd_route. */
int httpd_route_prefix(struct httpd *h, const char *prefix, httpd_req_fn fn, void *ctx);
/* The defaults (the HTTPD_ constants; trust_proxy from
 * TABULA_HTTP_TRUST_PROXY=1), and setting others (for tests and benches:
 * what is open already is not closed). */
void httpd_default_limits(struct httpd_limits *l);
void httpd_set_limits(struct httpd *h, const struct httpd_limits *l);
/* Sends text (whole SSE events, "event: move\ndata: {}\n\n") to every
 * stream subscribed to topic; returns how many streams it was queued to
 * (a stream whose viewer lags beyond HTTPD_STREAM_PENDING_MAX is dropped
 * instead). */
size_t httpd_publish(struct httpd *h, const char *topic, const char *text, size_t len);
/* Ends every stream of topic, after sending text to them (when not NULL). */
void httpd_close_topic(struct httpd *h, const char *topic, const char *text);
/* How many streams of topic are open. */
unsigned httpd_topic_streams(struct httpd *h, const char *topic);
/* The port it listens on. */
int httpd_port(const struct httpd *h);
/* Closes every connection and the listener; nothing is called back after
 * this.  The teardown takes a few loop turns (httpd_new's gone). */
void httpd_free(struct httpd *h);

struct httpd_stats {
	unsigned long accepted, turned_away, requests;
	unsigned long rate_limited, streams_refused, streams_dropped;
	unsigned conns;		/* open now */
	unsigned streams;	/* of which event streams */
};
void httpd_stats(const struct httpd *h, struct httpd_stats *out);

#endif
