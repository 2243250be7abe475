/*
 * http: libcurl's multi interface on the libuv loop.  See http.h.
 *
 * Lifetimes: a client owns its transfers (struct http_xfer, one easy handle
 * each), one uv_poll_t per socket curl asks us to watch (struct http_sock)
 * and one uv_timer_t.  libuv handles are freed only in their close
 * callbacks, so the client struct lives until the last of them has closed:
 * `handles` counts the open ones and `dead` says http_client_free() ran.
 */
#include "adapters/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

/* All response header lines together may not exceed this. */
#define HTTP_MAX_HEADER_BYTES ((size_t)256 << 10)

struct http_sock {
	uv_poll_t poll;
	curl_socket_t fd;
	struct http_client *c;
	struct http_sock *prev, *next;
};

struct http_xfer {
	struct http_client *c;
	CURL *easy;
	struct curl_slist *hdrs;
	http_done_fn cb;
	void *ctx;
	long timeout_ms;
	size_t max;
	struct buf body;
	char **lines;
	size_t nlines, lines_cap, header_bytes;
	int too_big, headers_too_big;
	int private_only;	/* plain http to a private address only */
	int refused_public;	/* ... and it resolved to a public one */
	char errbuf[CURL_ERROR_SIZE];
	struct http_xfer *prev, *next;
};

struct http_client {
	uv_loop_t *loop;
	CURLM *multi;
	uv_timer_t timer;
	struct http_xfer *xfers;
	struct http_sock *socks;
	int handles;	/* open uv handles: the timer + every sock */
	int dead;	/* http_client_free() was called */
};

/* ---- transfers ---- */

static void xfer_clear_lines(struct http_xfer *x)
{
	size_t i;

	for (i = 0; i < x->nlines; i++)
		free(x->lines[i]);
	x->nlines = 0;
	x->header_bytes = 0;
}

static void xfer_unlink(struct http_xfer *x)
{
	struct http_client *c = x->c;

	if (x->prev)
		x->prev->next = x->next;
	else if (c->xfers == x)
		c->xfers = x->next;
	if (x->next)
		x->next->prev = x->prev;
	x->prev = x->next = NULL;
}

/* Frees x; it must be unlinked and out of the multi handle already. */
static void xfer_free(struct http_xfer *x)
{
	if (x->easy)
		curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->hdrs);
	buf_release(&x->body);
	xfer_clear_lines(x);
	free(x->lines);
	free(x);
}

static size_t on_body(char *p, size_t size, size_t n, void *userp)
{
	struct http_xfer *x = userp;
	size_t len = size * n;

	if (buf_add(&x->body, p, len)) {
		x->too_big = 1;
		return 0;	/* CURLE_WRITE_ERROR */
	}
	return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *userp)
{
	struct http_xfer *x = userp;
	size_t len = size * n;
	char *line;

	/* A new status line starts a new response (after a 1xx): keep only
	 * the final one's headers. */
	if (len >= 5 && !memcmp(p, "HTTP/", 5))
		xfer_clear_lines(x);
	if (len == 2 && p[0] == '\r' && p[1] == '\n')
		return len;	/* the blank line ending the block */
	if (x->nlines >= HTTP_MAX_HEADER_LINES ||
	    len > HTTP_MAX_HEADER_BYTES - x->header_bytes) {
		x->headers_too_big = 1;
		return 0;
	}
	if (x->nlines == x->lines_cap) {
		x->lines_cap = x->lines_cap ? 2 * x->lines_cap : 16;
		x->lines = xrealloc(x->lines, x->lines_cap * sizeof(*x->lines));
	}
	line = xmalloc(len + 1);
	memcpy(line, p, len);
	line[len] = '\0';
	x->lines[x->nlines++] = line;
	x->header_bytes += len;
	return len;
}

static void describe_error(struct http_xfer *x, CURLcode rc, struct buf *msg)
{
	if (x->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		buf_setf(msg, "http: response body larger than %zu bytes", x->max);
	else if (x->headers_too_big)
		buf_setf(msg, "http: response headers too large");
	else if (x->refused_public)
		buf_setf(msg, "http: plain-text http:// refused: the host's address is not "
			 "private (RFC 1918, loopback or unique-local IPv6)");
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		buf_setf(msg, "http: timed out after %ld ms", x->timeout_ms);
	else
		buf_setf(msg, "http: %s",
			 x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
}

/* x is finished and already unlinked and removed from the multi handle. */
static void xfer_done(struct http_xfer *x, CURLcode rc)
{
	struct http_resp resp;
	struct buf msg = BUF_INIT;

	memset(&resp, 0, sizeof(resp));
	buf_init(&resp.body, x->max);
	if (rc == CURLE_OK && !x->too_big && !x->headers_too_big) {
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &resp.status);
		resp.body = x->body;
		buf_init(&x->body, x->max);
		resp.headers = x->lines;
		resp.nheaders = x->nlines;
	} else {
		describe_error(x, rc, &msg);
		resp.error = buf_str(&msg);
		resp.too_big = x->too_big || rc == CURLE_FILESIZE_EXCEEDED;
	}
	x->cb(&resp, x->ctx);
	buf_release(&resp.body);
	buf_release(&msg);
	xfer_free(x);
}

/*
 * Delivers every finished transfer.  A callback may free the client: then
 * stop touching curl (c itself stays allocated until its handles close,
 * which cannot happen before we return to the loop).
 */
static void drain(struct http_client *c)
{
	CURLMsg *m;
	int left;

	while (!c->dead && (m = curl_multi_info_read(c->multi, &left))) {
		struct http_xfer *x = NULL;
		CURLcode rc;

		if (m->msg != CURLMSG_DONE)
			continue;
		rc = m->data.result;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		curl_multi_remove_handle(c->multi, m->easy_handle);
		xfer_unlink(x);
		xfer_done(x, rc);
	}
}

/* ---- sockets and the timer (curl's callbacks) ---- */

static void maybe_free_client(struct http_client *c)
{
	if (c->dead && c->handles == 0) {
		free(c);
		curl_global_cleanup();
	}
}

static void on_handle_closed(uv_handle_t *h)
{
	struct http_client *c;

	if (h->type == UV_POLL) {
		struct http_sock *s = h->data;

		c = s->c;
		free(s);
	} else {
		c = h->data;
	}
	c->handles--;
	maybe_free_client(c);
}

static void sock_close(struct http_sock *s)
{
	struct http_client *c = s->c;

	if (s->prev)
		s->prev->next = s->next;
	else
		c->socks = s->next;
	if (s->next)
		s->next->prev = s->prev;
	uv_poll_stop(&s->poll);
	uv_close((uv_handle_t *)&s->poll, on_handle_closed);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
	struct http_sock *s = p->data;
	struct http_client *c = s->c;
	curl_socket_t fd = s->fd;
	int flags = 0, running;

	if (c->dead)
		return;
	if (status < 0)
		flags |= CURL_CSELECT_ERR;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	/* May close s (CURL_POLL_REMOVE); its memory lasts until on_handle_closed. */
	curl_multi_socket_action(c->multi, fd, flags, &running);
	drain(c);
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp,
		     void *socketp)
{
	struct http_client *c = userp;
	struct http_sock *s = socketp;
	int events = 0;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		/* curl forgets socketp itself after this call. */
		if (s)
			sock_close(s);
		return 0;
	}
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->c = c;
		s->fd = fd;
		if (uv_poll_init_socket(c->loop, &s->poll, fd)) {
			free(s);
			return -1;
		}
		s->poll.data = s;
		s->next = c->socks;
		if (c->socks)
			c->socks->prev = s;
		c->socks = s;
		c->handles++;
		curl_multi_assign(c->multi, fd, s);
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	uv_poll_start(&s->poll, events, on_poll);
	return 0;
}

static void on_timer(uv_timer_t *t)
{
	struct http_client *c = t->data;
	int running;

	if (c->dead)
		return;
	curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	drain(c);
}

static int on_timer_set(CURLM *multi, long timeout_ms, void *userp)
{
	struct http_client *c = userp;

	(void)multi;
	if (timeout_ms < 0)
		uv_timer_stop(&c->timer);
	else	/* 0 too: curl must not be re-entered from its own callback */
		uv_timer_start(&c->timer, on_timer, (uint64_t)timeout_ms, 0);
	return 0;
}

/* ---- the client ---- */

struct http_client *http_client_new(uv_loop_t *loop, struct buf *err)
{
	struct http_client *c;

	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		buf_setf(err, "http: curl_global_init failed");
		return NULL;
	}
	c = xcalloc(1, sizeof(*c));
	c->loop = loop;
	c->multi = curl_multi_init();
	if (!c->multi) {
		buf_setf(err, "http: curl_multi_init failed");
		free(c);
		curl_global_cleanup();
		return NULL;
	}
	uv_timer_init(loop, &c->timer);
	c->timer.data = c;
	c->handles = 1;
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_timer_set);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
	return c;
}

void http_client_free(struct http_client *c)
{
	if (!c || c->dead)
		return;
	c->dead = 1;
	while (c->xfers) {
		struct http_xfer *x = c->xfers;

		xfer_unlink(x);
		curl_multi_remove_handle(c->multi, x->easy);
		xfer_free(x);
	}
	/* Closes cached connections; their CURL_POLL_REMOVE closes socks. */
	curl_multi_cleanup(c->multi);
	c->multi = NULL;
	while (c->socks)
		sock_close(c->socks);
	uv_timer_stop(&c->timer);
	uv_close((uv_handle_t *)&c->timer, on_handle_closed);
}

static int method_ok(const char *m)
{
	if (!*m)
		return 0;
	for (; *m; m++)
		if (*m < 'A' || *m > 'Z')
			return 0;
	return 1;
}

static int header_ok(const char *h)
{
	return strchr(h, ':') && !strpbrk(h, "\r\n");
}

/*
 * curl's socket for a request that may use plain http to private addresses
 * only: the address it is about to connect to is checked here, after name
 * resolution, so a name that resolves to a public address never gets the
 * request (and its Authorization header) in clear text.
 */
static curl_socket_t open_private(void *userp, curlsocktype purpose,
				  struct curl_sockaddr *a)
{
	struct http_xfer *x = userp;

	(void)purpose;
	if (!http_addr_private(&a->addr)) {
		x->refused_public = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

#define SETOPT(opt, val) do { \
	if (curl_easy_setopt(x->easy, opt, val) != CURLE_OK) \
		goto setopt_failed; \
} while (0)

int http_request(struct http_client *c, const struct http_req *req,
		 http_done_fn cb, void *ctx, struct buf *err)
{
	const char *method = req->method ? req->method : "GET";
	struct http_xfer *x = NULL;
	size_t i;

	if (c->dead) {
		buf_setf(err, "http: client is shutting down");
		return -1;
	}
	if (!(req->private_http ? http_url_allowed_private(req->url, err)
				: http_url_allowed(req->url, err)))
		goto refused;
	if (strncasecmp(req->url, "http://", 7) &&
	    strncasecmp(req->url, "https://", 8)) {
		buf_setf(err, "http: only http:// and https:// URLs can be requested");
		goto refused;
	}
	if (!method_ok(method)) {
		buf_setf(err, "http: bad method");
		goto refused;
	}

	x = xcalloc(1, sizeof(*x));
	x->c = c;
	x->cb = cb;
	x->ctx = ctx;
	/* https is TLS whatever the address; plain http is checked at
	 * connect time unless it goes over a Unix socket */
	x->private_only = req->private_http && !req->unix_socket &&
		!strncasecmp(req->url, "http://", 7);
	x->timeout_ms = req->timeout_ms > 0 ? req->timeout_ms : HTTP_DEFAULT_TIMEOUT_MS;
	x->max = req->max_response_bytes ? req->max_response_bytes
					 : HTTP_DEFAULT_MAX_RESPONSE;
	buf_init(&x->body, x->max);
	for (i = 0; i < req->nheaders; i++) {
		struct curl_slist *l;

		if (!header_ok(req->headers[i])) {
			/* Names only: header values may be tokens. */
			buf_setf(err, "http: malformed request header #%zu", i);
			goto fail;
		}
		l = curl_slist_append(x->hdrs, req->headers[i]);
		if (!l)
			goto oom;
		x->hdrs = l;
	}
	{
		/* No "Expect: 100-continue" round trip for large bodies. */
		struct curl_slist *l = curl_slist_append(x->hdrs, "Expect:");

		if (!l)
			goto oom;
		x->hdrs = l;
	}

	x->easy = curl_easy_init();
	if (!x->easy)
		goto oom;
	SETOPT(CURLOPT_URL, req->url);
	SETOPT(CURLOPT_PRIVATE, (char *)x);
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
	SETOPT(CURLOPT_TIMEOUT_MS, x->timeout_ms);
	SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max);
	SETOPT(CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(CURLOPT_WRITEDATA, x);
	SETOPT(CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(CURLOPT_HEADERDATA, x);
	SETOPT(CURLOPT_ERRORBUFFER, x->errbuf);
	SETOPT(CURLOPT_HTTPHEADER, x->hdrs);
	if (x->private_only) {
		SETOPT(CURLOPT_OPENSOCKETFUNCTION, open_private);
		SETOPT(CURLOPT_OPENSOCKETDATA, x);
	}
	if (req->unix_socket)
		SETOPT(CURLOPT_UNIX_SOCKET_PATH, req->unix_socket);
	if (!strcmp(method, "GET")) {
		SETOPT(CURLOPT_HTTPGET, 1L);
	} else if (!strcmp(method, "HEAD")) {
		SETOPT(CURLOPT_NOBODY, 1L);
	} else {
		/* Every other method sends a body, maybe empty (Content-Length: 0). */
		SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
		SETOPT(CURLOPT_COPYPOSTFIELDS, req->body_len ? req->body : "");
		if (strcmp(method, "POST"))
			SETOPT(CURLOPT_CUSTOMREQUEST, method);
	}

	if (curl_multi_add_handle(c->multi, x->easy) != CURLM_OK) {
		buf_setf(err, "http: curl_multi_add_handle failed");
		goto fail;
	}
	x->next = c->xfers;
	if (c->xfers)
		c->xfers->prev = x;
	c->xfers = x;
	return 0;

setopt_failed:
	buf_setf(err, "http: libcurl refused an option (too old?)");
	goto fail;
oom:
	buf_setf(err, "http: out of memory");
fail:
	xfer_free(x);
	return -1;
refused:
	return -1;
}

/* ---- URLs and headers ---- */

static int host_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char inner[64];
	size_t n;

	if (!strcasecmp(host, "localhost"))
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	n = strlen(host);
	if (n < 3 || host[0] != '[' || host[n - 1] != ']' || n - 2 >= sizeof(inner))
		return 0;
	memcpy(inner, host + 1, n - 2);
	inner[n - 2] = '\0';
	return inet_pton(AF_INET6, inner, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

static int v4_private(uint32_t a)
{
	return (a >> 24) == 10 || (a >> 20) == 0xac1 || (a >> 16) == 0xc0a8 ||
		(a >> 24) == 127;
}

static int v6_private(const struct in6_addr *a)
{
	uint32_t v4;

	if (IN6_IS_ADDR_LOOPBACK(a) || (a->s6_addr[0] & 0xfe) == 0xfc)
		return 1;
	if (!IN6_IS_ADDR_V4MAPPED(a))
		return 0;
	memcpy(&v4, a->s6_addr + 12, 4);
	return v4_private(ntohl(v4));
}

int http_addr_private(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return v4_private(ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr));
	if (addr->sa_family == AF_INET6)
		return v6_private(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	return 0;
}

/* 1: a private literal (or localhost); 0: a public literal or a bad one;
 * 2: a name, to be checked when it is resolved. */
static int host_private(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char inner[64];
	size_t n = strlen(host);

	if (host_is_loopback(host))
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return v4_private(ntohl(a4.s_addr));
	if (host[0] == '[') {
		if (n < 3 || host[n - 1] != ']' || n - 2 >= sizeof(inner))
			return 0;
		memcpy(inner, host + 1, n - 2);
		inner[n - 2] = '\0';
		return inet_pton(AF_INET6, inner, &a6) == 1 && v6_private(&a6);
	}
	/* curl writes every numeric IPv4 form as a dotted quad: a name has a
	 * letter or a hyphen in it */
	return strspn(host, "0123456789.") == n ? 0 : 2;
}

static int url_check(const char *url, int private_ok, struct buf *err)
{
	CURLU *u = NULL;
	char *scheme = NULL, *host = NULL, *user = NULL;
	struct buf dummy = BUF_INIT;
	int ok = 0;

	if (!err)
		err = &dummy;
	if (!url || !*url) {
		buf_setf(err, "http: empty URL");
		goto out;
	}
	u = curl_url();
	if (!u) {
		buf_setf(err, "http: out of memory");
		goto out;
	}
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) || !*host) {
		buf_setf(err, "http: malformed URL");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) {
		buf_setf(err, "http: credentials in URLs are not accepted");
		goto out;
	}
	if (!strcmp(scheme, "https") || !strcmp(scheme, "wss")) {
		ok = 1;
	} else if (private_ok && !strcmp(scheme, "http")) {
		ok = host_private(host) != 0;
		if (!ok)
			buf_setf(err, "http: plain-text http:// is accepted for private "
				 "addresses only (RFC 1918, loopback, unique-local IPv6); "
				 "use https://");
	} else if (!strcmp(scheme, "http") || !strcmp(scheme, "ws")) {
		ok = host_is_loopback(host);
		if (!ok)
			buf_setf(err, "http: plain-text %s:// is accepted for loopback "
				 "addresses only; use %s://", scheme,
				 scheme[0] == 'w' ? "wss" : "https");
	} else {
		buf_setf(err, "http: unsupported URL scheme");
	}
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_url_cleanup(u);
	buf_release(&dummy);
	return ok;
}

int http_url_allowed(const char *url, struct buf *err)
{
	return url_check(url, 0, err);
}

int http_url_allowed_private(const char *url, struct buf *err)
{
	return url_check(url, 1, err);
}

const char *http_resp_header(const struct http_resp *resp, const char *name,
			     size_t *len)
{
	size_t n = strlen(name), i;

	for (i = 0; i < resp->nheaders; i++) {
		const char *l = resp->headers[i], *v, *end;

		if (strncasecmp(l, name, n) || l[n] != ':')
			continue;
		v = l + n + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		end = v + strlen(v);
		while (end > v && (end[-1] == '\r' || end[-1] == '\n' ||
				   end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (len)
			*len = (size_t)(end - v);
		return v;
	}
	return NULL;
}
