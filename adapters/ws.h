/*
 * ws: a websocket client, libwebsockets driven by the program's one libuv
 * loop (lws's "foreign loop" mode: lws adds its own uv handles to our loop
 * and never runs a loop of its own).  The Discord gateway driver is the
 * user: it feeds on_text pieces to its reassembler, sends JSON with
 * ws_send_text() and reconnects from on_close.
 *
 *	struct ws_callbacks cb = { .on_open = opened, .on_text = got_text,
 *				   .on_close = closed };
 *	struct ws_client *ws = ws_client_new(loop, &err);
 *	if (ws_connect(ws, "wss://gateway.discord.gg/?v=10", NULL, 0,
 *		       &cb, drv, &err))
 *		report err;	// on_close will not be called
 *	...
 *	ws_client_free(ws);	// no callback after this
 *	uv_run(loop, UV_RUN_DEFAULT);	// lets lws close its handles
 *	uv_loop_close(loop);
 *
 * One client holds one lws context and at most one connection at a time.
 *
 * Callbacks are called from the loop only, never from inside ws_connect(),
 * ws_send_text() or ws_close().  From on_open and on_text the caller may
 * ws_send_text() and ws_close(); from on_close it may ws_connect() again
 * (reconnect); from any of them it may ws_client_free() (nothing is
 * called back after that).
 *
 * Security and logging:
 *  - wss:// verifies the server against the system CA store, with SNI and
 *    host name checks; ws:// is accepted only where http_url_allowed()
 *    (adapters/http.h) says so, i.e. to loopback hosts.
 *  - lws's own logging is switched off process-wide (lws_set_log_level(0)):
 *    its error lines may quote host names and paths, and the URL query or
 *    the extra headers may carry tokens.  Nothing here logs; error texts
 *    never quote the URL or a header value.
 *
 * Limits: host names are resolved with a blocking getaddrinfo() (Debian's
 * lws 4.1.6 is built without LWS_WITH_SYS_ASYNC_DNS), so a slow resolver
 * stalls the loop for that long; literal addresses do not.
 *
 * Single-threaded: every function must be called on the loop's thread.
 */
#ifndef ADAPTERS_WS_H
#define ADAPTERS_WS_H

#include <stddef.h>
#include <uv.h>

#include "util/buf.h"

/* Queued, not yet written text may not exceed this (ws_send_text). */
#define WS_MAX_QUEUED_BYTES ((size_t)8 << 20)
/* After ws_close(), how long the peer has to answer our close frame. */
#define WS_CLOSE_TIMEOUT_MS 2000
/* The code on_close gets when there was no close frame (RFC 6455 7.4.1). */
#define WS_CLOSE_ABNORMAL 1006

struct ws_client;	/* one lws context on a borrowed uv loop */

struct ws_callbacks {
	/* The handshake is done; ws_send_text() works from now on. */
	void (*on_open)(void *ctx);
	/*
	 * Every received piece of a TEXT message, in order; is_final is 1 on
	 * the piece that ends the message (and only there).  An empty message
	 * may arrive as one piece of length 0.  data is borrowed for the call
	 * and not NUL-terminated.  Binary messages are dropped (counted in
	 * ws_stats.binary_dropped).  Pieces are at most one lws rx buffer; a
	 * message of any size arrives, so the caller enforces its own cap.
	 */
	void (*on_text)(void *ctx, const void *data, size_t len, int is_final);
	/*
	 * The connection is gone or the attempt failed.  code: the close
	 * code the peer sent (e.g. 4004; 1005 if its close frame had none),
	 * or ours if we closed first (ws_close; also when the peer never
	 * answered it), or WS_CLOSE_ABNORMAL (1006) when the attempt failed
	 * or the connection dropped without a close frame.  Called exactly
	 * once per ws_connect() that returned 0, and always from the loop.
	 */
	void (*on_close)(void *ctx, int code);
};

struct ws_stats {
	unsigned long connects;		/* ws_connect() calls that returned 0 */
	unsigned long opens;		/* handshakes completed */
	unsigned long text_pieces;	/* on_text calls */
	unsigned long binary_dropped;	/* binary messages not delivered */
	unsigned long sent;		/* messages handed to lws_write() */
	unsigned long close_timeouts;	/* peers that never answered our close */
};

/*
 * Returns a new client on loop, or NULL with err filled.  The loop is
 * borrowed and must outlive the client (see ws_client_free).
 */
struct ws_client *ws_client_new(uv_loop_t *loop, struct buf *err);

/*
 * Starts connecting to url: wss://host[:port][/path][?query] (TLS, system
 * CA store, SNI), or ws:// only when http_url_allowed(url) accepts it
 * (loopback hosts).  extra_headers: NULL or n "Name: value" lines (no
 * CR/LF), copied, sent with the upgrade request.  cb is copied; ctx is
 * passed to every callback.
 *
 * Returns 0 and calls cb->on_close exactly once later (the connection may
 * still fail: on_close(1006)); or returns -1 with err filled and never
 * calls back: bad or refused URL, malformed header, a connection already
 * open/opening (or its on_close not yet delivered), lws failure.
 */
int ws_connect(struct ws_client *c, const char *url,
	       const char *const *extra_headers, size_t n,
	       const struct ws_callbacks *cb, void *ctx, struct buf *err);

/*
 * Queues one complete TEXT message (copied); queued messages go out in
 * order, one per writable event.  Returns 0, or -1 with err filled when
 * the connection is not open (or closing), or when the message would take
 * the queued bytes over WS_MAX_QUEUED_BYTES.  A message that is queued
 * but not yet written when the connection ends is dropped.
 */
int ws_send_text(struct ws_client *c, const char *text, size_t len,
		 struct buf *err);

/*
 * Starts a close handshake with code (a 4xxx or 1000, ...; no reason
 * text); messages still queued are dropped.  on_close(code) follows from
 * the loop, once: when the peer answers, or after WS_CLOSE_TIMEOUT_MS
 * when it does not (the TCP connection is then dropped).  While still
 * connecting there is nothing to close politely: the attempt is abandoned
 * and on_close(code) follows all the same.  A no-op when there is no
 * connection or a close is already under way.
 */
void ws_close(struct ws_client *c, int code);

/*
 * Drops any connection without calling on_close (no callback at all
 * follows), then tears down the lws context and the client's own uv
 * handles from the loop: lws on a foreign loop finishes its teardown in
 * uv close callbacks over a few loop turns, and the client's memory goes
 * only once lws has freed the context.  So the caller must run the loop
 * afterwards (uv_run(loop, UV_RUN_DEFAULT) until it returns, which it
 * does once nothing else is active) before uv_loop_close().  May be
 * called from inside any callback.  NULL is a no-op.
 */
void ws_client_free(struct ws_client *c);

/* Counters since ws_client_new(), for tests and diagnostics. */
void ws_client_stats(const struct ws_client *c, struct ws_stats *out);

#endif
