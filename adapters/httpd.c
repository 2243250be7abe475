/*
 * httpd: see httpd.h.  One lws context with one vhost listening on the
 * operator's address; one protocol whose callback answers every request
 * from the route table.  A response is built whole by the handler (the
 * bodies are small: /metrics is tens of KB), its headers written at once
 * and its body in pieces of HTTPD_CHUNK bytes, one per WRITEABLE callback.
 */
#include "adapters/httpd.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "adapters/lwsctx.h"
#include "util/meters.h"

#define HTTPD_CHUNK 16384
#define HTTPD_PATH_MAX 128

struct route {
	char path[HTTPD_PATH_MAX];
	httpd_fn fn;
	void *ctx;
	unsigned meter;		/* the route label's index */
};

struct httpd {
	uv_loop_t *loop;
	struct lwsctx lx;
	struct route routes[HTTPD_MAX_ROUTES];
	int nroutes;
	int port;
	int dead;
	int *gone;		/* httpd_new()'s flag: set when torn down */
	struct httpd_stats st;
};

/* Per connection (lws's per-session data, zeroed when bound). */
struct conn {
	unsigned char *body;	/* LWS_PRE free bytes, then the body */
	size_t len, off;
	int close_after;	/* close once the answer is out (a 405) */
};

/* ---- the address ---- */

static int is_loopback(const char *host, int v6)
{
	unsigned char a[16];
	static const unsigned char one[16] = { [15] = 1 };
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!v6)
		return inet_pton(AF_INET, host, a) == 1 && a[0] == 127;
	if (inet_pton(AF_INET6, host, a) != 1)
		return 0;
	return !memcmp(a, one, 16) || (!memcmp(a, mapped, 12) && a[12] == 127);
}

int httpd_parse_addr(const char *spec, int allow_public, char *host, size_t hostsz, int *port,
		     int *v6, struct buf *err)
{
	unsigned char a[16];
	const char *colon, *h = spec, *p;
	size_t hl;
	char *end;
	long n;

	*v6 = 0;
	if (!spec || !*spec)
		goto bad;
	if (*spec == '[') {
		colon = strstr(spec, "]:");
		if (!colon)
			goto bad;
		h = spec + 1;
		hl = (size_t)(colon - h);
		p = colon + 2;
		*v6 = 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', (size_t)(colon - spec)))
			goto bad;	/* an IPv6 literal needs its brackets */
		hl = (size_t)(colon - spec);
		p = colon + 1;
	}
	if (!hl || hl >= hostsz || !*p || *p == '-' || *p == '+')
		goto bad;
	n = strtol(p, &end, 10);
	if (*end || n < 0 || n > 65535)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (!*v6 && !strcmp(host, "localhost"))
		snprintf(host, hostsz, "127.0.0.1");
	if (inet_pton(*v6 ? AF_INET6 : AF_INET, host, a) != 1)
		goto bad;
	*port = (int)n;
	if (!allow_public && !is_loopback(host, *v6)) {
		buf_setf(err, "%s is not a loopback address: the listener would be reachable from"
			 " other machines; set TABULA_HTTP_PUBLIC=1 to allow it", spec);
		return -1;
	}
	return 0;
bad:
	buf_setf(err, "the listen address must be HOST:PORT with HOST an IP address "
		 "(IPv6 in brackets: [::1]:9464) or localhost");
	return -1;
}

/* ---- answering ---- */

static void conn_reset(struct conn *c)
{
	free(c->body);
	c->body = NULL;
	c->len = c->off = 0;
}

static const struct route *find_route(const struct httpd *h, const char *path)
{
	int i;

	for (i = 0; i < h->nroutes; i++)
		if (!strcmp(h->routes[i].path, path))
			return &h->routes[i];
	return NULL;
}

/*
 * Writes the headers of the answer and keeps its body for WRITEABLE.
 * Returns what the lws callback must return.
 */
static int respond(struct httpd *h, struct lws *wsi, struct conn *c, int head,
		   struct httpd_response *rs, unsigned meter)
{
	unsigned char hdr[LWS_PRE + 1024], *start = hdr + LWS_PRE, *p = start,
		      *end = hdr + sizeof(hdr) - 1;
	size_t len = rs->body.len;

	metric_inc(&met_listener_requests, meter, meters_status(rs->status));
	h->st.requests++;
	if (lws_add_http_common_headers(wsi, (unsigned)rs->status, rs->type, len, &p, end) ||
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
					(const unsigned char *)"no-store", 8, &p, end) ||
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
					(const unsigned char *)"nosniff", 7, &p, end) ||
	    (rs->status == 405 &&
	     (lws_add_http_header_by_name(wsi, (const unsigned char *)"allow:",
					  (const unsigned char *)"GET, HEAD", 9, &p, end) ||
	      lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
					  (const unsigned char *)"close", 5, &p, end))) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	if (head || !len)
		return c->close_after || lws_http_transaction_completed(wsi) ? -1 : 0;
	c->body = xmalloc(LWS_PRE + len);
	memcpy(c->body + LWS_PRE, rs->body.s, len);
	c->len = len;
	c->off = 0;
	/* a reader that does not read gets HTTPD_TIMEOUT_S to do so */
	lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, HTTPD_TIMEOUT_S);
	lws_callback_on_writable(wsi);
	return 0;
}

static int write_more(struct lws *wsi, struct conn *c)
{
	unsigned char chunk[LWS_PRE + HTTPD_CHUNK];
	size_t n = c->len - c->off;
	int last;

	if (!c->body)
		return 0;
	if (n > HTTPD_CHUNK)
		n = HTTPD_CHUNK;
	last = c->off + n == c->len;
	memcpy(chunk + LWS_PRE, c->body + LWS_PRE + c->off, n);
	if (lws_write(wsi, chunk + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
	    (int)n)
		return -1;
	c->off += n;
	if (!last) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	conn_reset(c);
	if (c->close_after)
		return -1;	/* the small answer went out whole with the write */
	lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int on_request(struct httpd *h, struct lws *wsi, struct conn *c, const char *uri)
{
	struct httpd_response rs = { .status = 200, .type = "text/plain; charset=utf-8" };
	const struct route *r;
	unsigned meter = metric_value(&met_listener_requests, 0, "other");
	int head = 0, ret;

	conn_reset(c);
	c->close_after = 0;
	buf_init(&rs.body, HTTPD_BODY_MAX);
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0)
		head = 1;
	r = find_route(h, uri ? uri : "");
	if (r)
		meter = r->meter;
	if (!head && lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) {
		/* its body (a POST's) is not read: the connection ends with
		 * the answer rather than parse that body as a request */
		c->close_after = 1;
		rs.status = 405;
		buf_addstr(&rs.body, "method not allowed: GET or HEAD\n");
	} else if (!r) {
		rs.status = 404;
		buf_addstr(&rs.body, "not found\n");
	} else {
		r->fn(r->ctx, &rs);
		if (rs.body.toobig) {
			rs.status = 500;
			buf_reset(&rs.body);
			buf_addstr(&rs.body, "answer too large\n");
		}
	}
	ret = respond(h, wsi, c, head, &rs, meter);
	buf_release(&rs.body);
	return ret;
}

static int httpd_callback(struct lws *wsi, enum lws_callback_reasons why, void *user, void *in,
			  size_t len)
{
	struct lws_context *lc = lws_get_context(wsi);
	struct httpd *h = lc ? lws_context_user(lc) : NULL;
	struct conn *c = user;

	if (!h)
		return 0;
	switch (why) {
	case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
		/* before lws makes anything of an accepted socket */
		if (h->dead || h->st.conns >= HTTPD_MAX_CONNS) {
			h->st.turned_away++;
			return 1;
		}
		return 0;
	case LWS_CALLBACK_WSI_CREATE:
		/* every accepted connection, from its accept to its end
		 * (WSI_DESTROY), silent ones included */
		h->st.conns++;
		h->st.accepted++;
		return 0;
	case LWS_CALLBACK_WSI_DESTROY:
		if (h->st.conns)
			h->st.conns--;
		return 0;
	case LWS_CALLBACK_HTTP:
		if (h->dead || !c)
			return -1;
		return on_request(h, wsi, c, in);
	case LWS_CALLBACK_HTTP_BODY:
		return 0;	/* only 405s have bodies, and they close */
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (h->dead || !c)
			return -1;
		return write_more(wsi, c);
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
	case LWS_CALLBACK_CLOSED_HTTP:
		if (c)
			conn_reset(c);
		return 0;
	default:
		return 0;
	}
}

static const struct lws_protocols httpd_protocols[] = {
	{ .name = "tabula-http", .callback = httpd_callback,
	  .per_session_data_size = sizeof(struct conn), .rx_buffer_size = 4096 },
	{ .name = NULL },
};

/* ---- the server ---- */

struct httpd *httpd_new(uv_loop_t *loop, const char *spec, int allow_public, int *gone,
			struct buf *err)
{
	struct lws_context_creation_info info;
	struct lws_vhost *vh;
	struct httpd *h;
	char host[64];
	int port, v6;

	if (gone)
		*gone = 1;
	if (httpd_parse_addr(spec, allow_public, host, sizeof(host), &port, &v6, err))
		return NULL;
	/* process-wide, as in adapters/ws.c: lws's lines may quote peers */
	lws_set_log_level(getenv("WSDBG") ? 0x7ff : 0, NULL);
	h = xcalloc(1, sizeof(*h));
	h->loop = loop;
	h->gone = gone;
	memset(&info, 0, sizeof(info));
	info.port = port;	/* 0: the kernel picks a free one */
	info.iface = host;
	info.protocols = httpd_protocols;
	info.gid = (gid_t)-1;
	info.uid = (uid_t)-1;
	info.user = h;
	/* the vhost is made below, so that a port in use is an error rather
	 * than a context that silently listens nowhere */
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
		       LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
		       (v6 ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
	info.max_http_header_data = HTTPD_HEADER_MAX;
	info.max_http_header_pool = HTTPD_MAX_CONNS;
	info.timeout_secs = HTTPD_TIMEOUT_S;
	info.timeout_secs_ah_idle = HTTPD_TIMEOUT_S;
	info.keepalive_timeout = HTTPD_TIMEOUT_S;
	/* the listener, the event pipe and the connections */
	info.fd_limit_per_thread = HTTPD_MAX_CONNS + 8;
	info.server_string = "tabula";
	if (lwsctx_create(&h->lx, loop, &info)) {
		buf_setf(err, "cannot start the HTTP server (libuv event plugin missing?)");
		free(h);
		return NULL;
	}
	if (gone)
		*gone = 0;	/* from now on the teardown takes loop turns */
	vh = lws_create_vhost(h->lx.lws, &info);
	h->port = vh ? lws_get_vhost_listen_port(vh) : 0;
	if (h->port <= 0) {
		buf_setf(err, "cannot listen on %s (in use, or not an address of this machine?)",
			 spec);
		httpd_free(h);
		return NULL;
	}
	return h;
}

int httpd_route(struct httpd *h, const char *path, httpd_fn fn, void *ctx)
{
	struct route *r;
	unsigned m;

	if (h->nroutes == HTTPD_MAX_ROUTES || !path || path[0] != '/' ||
	    strlen(path) >= HTTPD_PATH_MAX)
		return -1;
	r = &h->routes[h->nroutes++];
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->fn = fn;
	r->ctx = ctx;
	m = metric_value(&met_listener_requests, 0, path + 1);
	r->meter = m < met_listener_requests.labels[0].n ? m
		: metric_value(&met_listener_requests, 0, "other");
	return 0;
}

int httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_stats(const struct httpd *h, struct httpd_stats *out)
{
	*out = h->st;
}

static void on_gone(struct lwsctx *x)
{
	struct httpd *h = (struct httpd *)((char *)x - offsetof(struct httpd, lx));

	if (h->gone)
		*h->gone = 1;
	if (!x->lws)
		free(h);	/* else lws never let go: leaked, not freed under it */
}

void httpd_free(struct httpd *h)
{
	if (!h || h->dead)
		return;
	h->dead = 1;
	lwsctx_destroy(&h->lx, on_gone);
}
