/*
 * http: an asynchronous HTTP client, libcurl's multi interface driven by the
 * program's one libuv loop (the pattern of curl's docs/examples/multi-uv.c).
 *
 * curl tells us which sockets to watch (CURLMOPT_SOCKETFUNCTION: one
 * uv_poll_t per socket) and when to wake it up (CURLMOPT_TIMERFUNCTION: one
 * uv_timer_t); readiness goes back through curl_multi_socket_action() and
 * finished transfers come out of curl_multi_info_read() as callbacks.
 * Nothing blocks: DNS, connect, TLS and transfer all run on the loop.
 *
 *	struct http_req req = { .method = "POST", .url = url,
 *				.headers = hdrs, .nheaders = 2,
 *				.body = json, .body_len = strlen(json) };
 *	if (http_request(client, &req, on_done, ctx, &err))
 *		report err;	// on_done will not be called
 *
 * Security:
 *  - Only https:// goes anywhere; plain http:// (and ws://, for callers that
 *    check websocket URLs with http_url_allowed()) only to loopback hosts.
 *    A request marked private_http may also go over plain http:// to a
 *    private address (a REST proxy the operator named: RFC 1918, loopback,
 *    unique-local IPv6), checked on the address curl actually connects to,
 *    so a host name that resolves to a public address is refused; or it
 *    goes over a Unix socket.
 *  - libcurl is restricted to http and https and never follows redirects;
 *    a 3xx is handed to the caller like any other status.
 *  - Nothing here logs: header values carry tokens, and error texts never
 *    quote the URL (a Matrix access token may sit in its query string).
 *
 * Single-threaded: every function must be called on the loop's thread.
 */
#ifndef ADAPTERS_HTTP_H
#define ADAPTERS_HTTP_H

#include <stddef.h>
#include <sys/socket.h>
#include <uv.h>

#include "util/buf.h"

/* Used when a request leaves the field 0. */
#define HTTP_DEFAULT_TIMEOUT_MS 30000L
#define HTTP_DEFAULT_MAX_RESPONSE ((size_t)8 << 20)
/* Response header lines beyond this many fail the request. */
#define HTTP_MAX_HEADER_LINES 256

struct http_client;

struct http_req {
	const char *method;		/* "GET", "POST", ...; NULL means GET */
	const char *url;		/* must pass http_url_allowed() */
	const char *const *headers;	/* "Name: value" lines, no CRLF */
	size_t nheaders;
	const void *body;		/* may be NULL; copied by http_request */
	size_t body_len;
	long timeout_ms;		/* whole transfer; 0: the default */
	size_t max_response_bytes;	/* body cap; 0: the default (8 MiB) */
	/* 1: url may be http:// to a private address (http_url_allowed_private);
	 * the address connected to must be private too. */
	int private_http;
	/* Not NULL: connect to this Unix socket instead of the URL's host
	 * (the URL, which must then be http://localhost/..., still gives the
	 * path and the Host header). */
	const char *unix_socket;
};

struct http_resp {
	/* The HTTP status, or 0 when the request failed (error is set). */
	long status;
	/* NULL on success (any status, 429 and 5xx included); otherwise a
	 * message for an operator: refused connection, timeout, response
	 * over the cap, ...  The body and headers are then empty. */
	const char *error;
	/* 1 when the request failed because the response body was over the
	 * cap (error says so too): retrying the same request gets the same. */
	int too_big;
	/* The response body, NUL-terminated.  The callback may take it with
	 * buf_detach(); otherwise it is freed when the callback returns. */
	struct buf body;
	/* Raw header lines of the final response, exactly as the server sent
	 * them ("Name: value\r\n"; the status line first), NUL-terminated,
	 * for ratelimit_headers_parse() and http_resp_header(). */
	char **headers;
	size_t nheaders;
};

/*
 * Called once per accepted request, from the loop, when it finishes.  resp
 * is borrowed for the duration of the call.  The callback may start new
 * requests and may even http_client_free() the client.
 */
typedef void (*http_done_fn)(struct http_resp *resp, void *ctx);

/*
 * Returns a new client on loop, or NULL with err filled.  The loop is
 * borrowed and must outlive the client's handles (see http_client_free).
 */
struct http_client *http_client_new(uv_loop_t *loop, struct buf *err);

/*
 * Cancels every request in flight without calling its callback, and starts
 * closing the client's libuv handles.  The memory goes when their close
 * callbacks have run, so run the loop afterwards (uv_run until it returns)
 * before uv_loop_close().  NULL is a no-op.
 */
void http_client_free(struct http_client *c);

/*
 * Starts a request.  req and everything it points to is borrowed only for
 * this call (headers and body are copied).  Returns 0 and later calls
 * cb(resp, ctx) exactly once (unless the client is freed first), or
 * returns -1 with err filled and never calls cb: a URL refused by
 * http_url_allowed() or a scheme other than http/https, a malformed header
 * line, or a libcurl setup failure.
 */
int http_request(struct http_client *c, const struct http_req *req,
		 http_done_fn cb, void *ctx, struct buf *err);

/*
 * Whether url may be used at all: 1 for https:// and wss:// to any host;
 * http:// and ws:// only to a loopback host (127.0.0.0/8, localhost, [::1]);
 * 0 for anything else, including user@host tricks and unparsable text.
 * On 0, err (may be NULL) says why, without quoting the URL.
 */
int http_url_allowed(const char *url, struct buf *err);

/*
 * Like http_url_allowed(), and also http:// to a private address: an IPv4
 * literal in 10/8, 172.16/12, 192.168/16 or 127/8, an IPv6 literal in
 * fc00::/7 or ::1 (IPv4-mapped ones too), or a host name, whose address is
 * checked when a request marked private_http connects.  Never a public
 * literal.  For a REST proxy the operator configured explicitly.
 */
int http_url_allowed_private(const char *url, struct buf *err);

/* 1 when addr (a struct sockaddr_in or sockaddr_in6) is one of the private
 * addresses above. */
int http_addr_private(const struct sockaddr *addr);

/*
 * The value of the first response header called name (case-insensitive), or
 * NULL.  Writes its length, trimmed of spaces and CRLF, to *len.  The
 * pointer is into resp->headers and not NUL-terminated at len.
 */
const char *http_resp_header(const struct http_resp *resp, const char *name,
			     size_t *len);

#endif
