/*
 * httpd: a small HTTP/1.1 server on the program's libuv loop (libwebsockets
 * as a server, a context of its own: adapters/lwsctx.h), for operators
 * (/healthz, /readyz, /metrics: bot/ops.c) and, later, each game's page.
 *
 *	struct httpd *h = httpd_new(loop, "127.0.0.1:9464", 0, &gone, &err);
 *	httpd_route(h, "/healthz", healthz, ctx);
 *	...
 *	httpd_free(h);			// no callback after this
 *	while (!gone)			// lws closes its handles
 *		uv_run(loop, UV_RUN_NOWAIT);
 *
 * Routes are exact paths answered synchronously on the loop: the handler
 * fills a status, a content type and a body.  GET and HEAD only (HEAD:
 * the same headers, no body); another method is answered 405, an unknown
 * path 404.  The query string is ignored.
 *
 * It must not be a way to stall or crash the bot: at most HTTPD_MAX_CONNS
 * connections at once (more are turned away as they arrive), request
 * headers of at most HTTPD_HEADER_MAX bytes, and HTTPD_TIMEOUT_S seconds
 * for a request to arrive, for its answer to be read and for an idle
 * keep-alive connection; lws's own logging is off (docs/ws.md).
 *
 * Single-threaded: every function on the loop's thread.
 */
#ifndef ADAPTERS_HTTPD_H
#define ADAPTERS_HTTPD_H

#include <uv.h>

#include "util/buf.h"

#define HTTPD_MAX_CONNS 16
#define HTTPD_HEADER_MAX 4096
#define HTTPD_TIMEOUT_S 5
#define HTTPD_MAX_ROUTES 16
#define HTTPD_BODY_MAX ((size_t)4 << 20)	/* a handler's body is cut there */

struct httpd;

struct httpd_response {
	int status;		/* 200 unless the handler says otherwise */
	const char *type;	/* Content-Type; borrowed, static */
	struct buf body;	/* capped at HTTPD_BODY_MAX */
};

typedef void (*httpd_fn)(void *ctx, struct httpd_response *rs);

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
/* The port it listens on. */
int httpd_port(const struct httpd *h);
/* Closes every connection and the listener; nothing is called back after
 * this.  The teardown takes a few loop turns (httpd_new's gone). */
void httpd_free(struct httpd *h);

struct httpd_stats {
	unsigned long accepted, turned_away, requests;
	unsigned conns;		/* open now */
};
void httpd_stats(const struct httpd *h, struct httpd_stats *out);

#endif
