/*
 * ws: a libwebsockets client on the libuv loop.  See ws.h.
 *
 * Lifetimes: a client owns one lws context (created with our loop as its
 * "foreign" loop), at most one connection (c->wsi) and three uv handles of
 * its own: `notify` (delivers on_close from the loop), `close_timer` (gives
 * up on a peer that never answers our close) and the context's reaper
 * (adapters/lwsctx.c: finishes the teardown, see ws_client_free).
 *
 * Which wsi is ours: lws may still call back for a connection we have
 * already given up on (killed after a close timeout, or abandoned while
 * connecting, while the caller has connected again).  Every wsi callback
 * is therefore checked against c->wsi, and c->wsi is cleared the moment a
 * connection is finished (conn_finish), so one connection can end only
 * once and on_close is scheduled exactly once.
 *
 * on_close always goes through the `notify` timer: the caller reconnects
 * from on_close, and lws_client_connect_via_info() must not run inside an
 * lws callback for the connection that is dying.
 */
#include "adapters/ws.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <libwebsockets.h>

#include "adapters/http.h"
#include "adapters/lwsctx.h"

/*
 * lws's own LWS_WRITE_CLOSE: private in 4.1 ("handled by
 * lws_close_reason()"), but its value is fixed by the ABI (the public
 * enum lws_write_protocol leaves 4 out for it).  See write_one().
 */
#define WS_WRITE_CLOSE ((enum lws_write_protocol)4)

/* Received data arrives in pieces of at most this many bytes. */
#define WS_RX_BUFFER 16384

enum ws_state {
	WS_IDLE,	/* no connection */
	WS_CONNECTING,	/* ws_connect() returned 0, no handshake yet */
	WS_OPEN,
	WS_CLOSING,	/* ws_close() ran; our close frame is queued or sent */
};

struct ws_msg {
	struct ws_msg *next;
	size_t len;
	unsigned char data[];	/* LWS_PRE bytes of headroom, then the text */
};

struct ws_client {
	uv_loop_t *loop;
	/* the context, its teardown (lx.lws: NULL once lws has freed it) */
	struct lwsctx lx;
	struct lws *wsi;		/* the current connection, or NULL */
	enum ws_state state;
	struct ws_callbacks cb;
	void *ctx;

	/* The upgrade request's extra headers: "Name:" and the value. */
	char **hdr_names, **hdr_values;
	size_t nhdrs;

	struct ws_msg *head, *tail;	/* send queue */
	size_t queued;			/* bytes in it */

	int close_code;		/* ours, once ws_close() ran */
	int close_sent;		/* our close frame went to lws_write() */
	int peer_code;		/* from the peer's close frame, 0: none yet */

	uv_timer_t notify;
	int notify_pending;	/* on_close(notify_code) is scheduled */
	int notify_code;
	uv_timer_t close_timer;

	int handles;		/* our open uv handles, and the context */
	int dead;		/* ws_client_free() ran */
	struct ws_stats stats;
};

/* ---- the send queue ---- */

static void queue_drop(struct ws_client *c)
{
	while (c->head) {
		struct ws_msg *m = c->head;

		c->head = m->next;
		free(m);
	}
	c->tail = NULL;
	c->queued = 0;
}

static struct ws_msg *queue_pop(struct ws_client *c)
{
	struct ws_msg *m = c->head;

	if (m) {
		c->head = m->next;
		if (!c->head)
			c->tail = NULL;
		c->queued -= m->len;
	}
	return m;
}

/* ---- ending a connection ---- */

static void on_notify(uv_timer_t *t)
{
	struct ws_client *c = t->data;
	void (*on_close)(void *, int) = c->cb.on_close;

	if (c->dead || !c->notify_pending)
		return;
	/* Cleared first: on_close may ws_connect() again. */
	c->notify_pending = 0;
	if (on_close)
		on_close(c->ctx, c->notify_code);
}

/*
 * The current connection is over: forget its wsi (lws closes or has closed
 * it) and schedule on_close(code).  The caller may still hold the wsi to
 * kill it.
 */
static void conn_finish(struct ws_client *c, int code)
{
	c->wsi = NULL;
	c->state = WS_IDLE;
	queue_drop(c);
	uv_timer_stop(&c->close_timer);
	c->notify_pending = 1;
	c->notify_code = code;
	uv_timer_start(&c->notify, on_notify, 0, 0);
}

/* Asks lws to close wsi soon, from its own loop turn, without a close frame. */
static void wsi_kill(struct lws *wsi)
{
	lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, LWS_TO_KILL_ASYNC);
}

static void on_close_timeout(uv_timer_t *t)
{
	struct ws_client *c = t->data;
	struct lws *wsi = c->wsi;

	if (c->dead || c->state != WS_CLOSING || !wsi)
		return;
	c->stats.close_timeouts++;
	conn_finish(c, c->close_code);
	wsi_kill(wsi);
}

/* ---- the lws protocol callback ---- */

static int add_headers(struct ws_client *c, struct lws *wsi, void *in,
		       size_t len)
{
	unsigned char **p = in, *end = *p + len;
	size_t i;

	for (i = 0; i < c->nhdrs; i++)
		if (lws_add_http_header_by_name(wsi,
				(const unsigned char *)c->hdr_names[i],
				(const unsigned char *)c->hdr_values[i],
				(int)strlen(c->hdr_values[i]), p, end))
			return -1;	/* no room: the attempt fails */
	return 0;
}

static int write_one(struct ws_client *c, struct lws *wsi)
{
	struct ws_msg *m;
	int n;

	if (c->state == WS_CLOSING) {
		unsigned char frame[LWS_PRE + 2];

		/*
		 * We write the close frame ourselves rather than the usual
		 * lws_close_reason() + return -1: Debian's lws 4.1.6 is built
		 * with _DEBUG, and with libuv its service loop then closes a
		 * wsi twice ("uv repeat test"); the second call finds the
		 * close frame still unsent and kills the connection, so the
		 * frame never goes out.  The peer's answer ends the
		 * connection in LWS_CALLBACK_WS_PEER_INITIATED_CLOSE.
		 */
		if (c->close_sent)
			return 0;
		frame[LWS_PRE] = (unsigned char)(c->close_code >> 8);
		frame[LWS_PRE + 1] = (unsigned char)c->close_code;
		c->close_sent = 1;
		return lws_write(wsi, frame + LWS_PRE, 2, WS_WRITE_CLOSE) < 0
			? -1 : 0;
	}
	m = queue_pop(c);
	if (!m)
		return 0;
	/* One lws_write() per message: lws keeps whatever the socket did not
	 * take and sends it before the next WRITEABLE callback. */
	n = lws_write(wsi, m->data + LWS_PRE, m->len, LWS_WRITE_TEXT);
	free(m);
	if (n < 0)
		return -1;	/* lws closes: on_close(1006) */
	c->stats.sent++;
	if (c->head)
		lws_callback_on_writable(wsi);
	return 0;
}

static void receive(struct ws_client *c, struct lws *wsi, const void *in,
		    size_t len)
{
	int is_final = lws_is_final_fragment(wsi) &&
		       !lws_remaining_packet_payload(wsi);

	if (c->state != WS_OPEN)
		return;		/* closing: the caller has lost interest */
	if (lws_frame_is_binary(wsi)) {
		if (is_final)
			c->stats.binary_dropped++;
		return;
	}
	c->stats.text_pieces++;
	if (c->cb.on_text)
		c->cb.on_text(c->ctx, in, len, is_final);
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason,
		       void *user, void *in, size_t len)
{
	struct lws_context *lc = lws_get_context(wsi);
	struct ws_client *c = lc ? lws_context_user(lc) : NULL;
	const unsigned char *b = in;

	(void)user;
	if (!c || c->dead)
		return 0;
	/* lws_client_connect_via_info() may call back before it returns
	 * (a refused connection); c->wsi is set early through info.pwsi, and
	 * "connecting with no wsi yet" counts as ours too. */
	if (wsi != c->wsi && !(c->state == WS_CONNECTING && !c->wsi))
		return 0;

	switch (reason) {
	case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
		return add_headers(c, wsi, in, len);

	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		if (c->state != WS_CONNECTING)
			return 0;
		c->state = WS_OPEN;
		c->stats.opens++;
		if (c->cb.on_open)
			c->cb.on_open(c->ctx);
		return 0;

	case LWS_CALLBACK_CLIENT_RECEIVE:
		receive(c, wsi, in, len);
		return 0;

	case LWS_CALLBACK_CLIENT_WRITEABLE:
		return write_one(c, wsi);

	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		/* The answer to our close frame (lws does not know we sent
		 * one): the handshake is complete, hang up. */
		if (c->state == WS_CLOSING)
			return -1;
		/* The payload is the peer's code (big-endian) and reason;
		 * returning 0 lets lws echo the close and hang up. */
		c->peer_code = len >= 2 ? (b[0] << 8) | b[1] : 1005;
		return 0;

	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		conn_finish(c, WS_CLOSE_ABNORMAL);
		return 0;

	case LWS_CALLBACK_CLIENT_CLOSED:
	case LWS_CALLBACK_WSI_DESTROY:	/* in case no CLOSED came first */
		if (c->state == WS_CLOSING)
			conn_finish(c, c->close_code);
		else if (c->state == WS_OPEN && c->peer_code)
			conn_finish(c, c->peer_code);
		else
			conn_finish(c, WS_CLOSE_ABNORMAL);
		return 0;

	default:
		return 0;
	}
}

static const struct lws_protocols ws_protocols[] = {
	{ .name = "tabula-ws", .callback = ws_callback,
	  .rx_buffer_size = WS_RX_BUFFER },
	{ .name = NULL },
};

/* ---- the client ---- */

struct ws_client *ws_client_new(uv_loop_t *loop, struct buf *err)
{
	struct lws_context_creation_info info;
	struct ws_client *c;

	/* Process-wide; see ws.h for why nothing of lws's may be printed. */
	lws_set_log_level(getenv("WSDBG") ? 0x7ff : 0, NULL);

	c = xcalloc(1, sizeof(*c));
	c->loop = loop;
	memset(&info, 0, sizeof(info));
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = ws_protocols;
	info.gid = (gid_t)-1;
	info.uid = (uid_t)-1;
	info.options = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.user = c;
	if (lwsctx_create(&c->lx, loop, &info)) {
		buf_setf(err, "ws: lws_create_context failed (libuv event "
			 "plugin missing?)");
		free(c);
		return NULL;
	}
	uv_timer_init(loop, &c->notify);
	c->notify.data = c;
	uv_timer_init(loop, &c->close_timer);
	c->close_timer.data = c;
	c->handles = 3;
	return c;
}

static void free_headers(struct ws_client *c)
{
	size_t i;

	for (i = 0; i < c->nhdrs; i++) {
		free(c->hdr_names[i]);
		free(c->hdr_values[i]);
	}
	free(c->hdr_names);
	free(c->hdr_values);
	c->hdr_names = c->hdr_values = NULL;
	c->nhdrs = 0;
}

static void release(struct ws_client *c)
{
	/* The context goes last, after lws freed it; if the teardown gave
	 * up (lx.lws still set) lws may yet call back into c: keep it. */
	if (--c->handles == 0 && !c->lx.lws) {
		free_headers(c);
		free(c);
	}
}

static void on_handle_closed(uv_handle_t *h)
{
	release(h->data);
}

static void on_context_gone(struct lwsctx *x)
{
	release((struct ws_client *)((char *)x - offsetof(struct ws_client, lx)));
}

void ws_client_free(struct ws_client *c)
{
	if (!c || c->dead)
		return;
	c->dead = 1;
	c->wsi = NULL;
	c->state = WS_IDLE;
	queue_drop(c);
	uv_timer_stop(&c->notify);
	uv_close((uv_handle_t *)&c->notify, on_handle_closed);
	uv_timer_stop(&c->close_timer);
	uv_close((uv_handle_t *)&c->close_timer, on_handle_closed);
	/* lws_context_destroy() from the loop: this may be inside a callback */
	lwsctx_destroy(&c->lx, on_context_gone);
}

void ws_client_stats(const struct ws_client *c, struct ws_stats *out)
{
	*out = c->stats;
}

/* ---- connecting ---- */

static int header_ok(const char *h)
{
	const char *colon = strchr(h, ':');

	return colon && colon > h && !strpbrk(h, "\r\n");
}

static void set_headers(struct ws_client *c, const char *const *h, size_t n)
{
	size_t i;

	free_headers(c);
	if (!n)
		return;
	c->hdr_names = xcalloc(n, sizeof(*c->hdr_names));
	c->hdr_values = xcalloc(n, sizeof(*c->hdr_values));
	for (i = 0; i < n; i++) {
		const char *colon = strchr(h[i], ':'), *v = colon + 1;
		size_t nl = (size_t)(colon - h[i]) + 1;	/* with the colon */

		while (*v == ' ' || *v == '\t')
			v++;
		c->hdr_names[i] = xmalloc(nl + 1);
		memcpy(c->hdr_names[i], h[i], nl);
		c->hdr_names[i][nl] = '\0';
		c->hdr_values[i] = xstrdup(v);
	}
	c->nhdrs = n;
}

/* The pieces of a URL lws needs, split by libcurl's parser (the same one
 * http_url_allowed() used, so both see the same host). */
struct ws_url {
	int tls;
	int port;
	char address[256];	/* to connect to: no brackets around IPv6 */
	char host[300];		/* Host: header, [v6] and :port as needed */
	char path[4096];	/* path and ?query */
};

static int parse_url(const char *url, struct ws_url *u, struct buf *err)
{
	CURLU *h = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL,
	     *query = NULL;
	size_t hl;
	int rc = -1, def;

	if (!h) {
		buf_setf(err, "ws: out of memory");
		return -1;
	}
	if (curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) ||
	    curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(h, CURLUPART_HOST, &host, 0)) {
		buf_setf(err, "ws: malformed URL");
		goto out;
	}
	if (!strcmp(scheme, "wss"))
		u->tls = 1;
	else if (!strcmp(scheme, "ws"))
		u->tls = 0;
	else {
		buf_setf(err, "ws: only ws:// and wss:// URLs can be opened");
		goto out;
	}
	def = u->tls ? 443 : 80;
	u->port = def;
	if (curl_url_get(h, CURLUPART_PORT, &port, 0) == CURLUE_OK)
		u->port = atoi(port);
	curl_url_get(h, CURLUPART_PATH, &path, 0);
	curl_url_get(h, CURLUPART_QUERY, &query, 0);

	hl = strlen(host);
	if (host[0] == '[' && hl >= 2) {
		if (hl - 2 >= sizeof(u->address))
			goto too_long;
		memcpy(u->address, host + 1, hl - 2);
		u->address[hl - 2] = '\0';
	} else if ((size_t)snprintf(u->address, sizeof(u->address), "%s",
				    host) >= sizeof(u->address)) {
		goto too_long;
	}
	if (u->port == def)
		snprintf(u->host, sizeof(u->host), "%s", host);
	else
		snprintf(u->host, sizeof(u->host), "%s:%d", host, u->port);
	if ((size_t)snprintf(u->path, sizeof(u->path), "%s%s%s",
			     path && *path ? path : "/", query ? "?" : "",
			     query ? query : "") >= sizeof(u->path))
		goto too_long;
	rc = 0;
	goto out;
too_long:
	buf_setf(err, "ws: URL too long");
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_url_cleanup(h);
	return rc;
}

int ws_connect(struct ws_client *c, const char *url,
	       const char *const *extra_headers, size_t n,
	       const struct ws_callbacks *cb, void *ctx, struct buf *err)
{
	struct lws_client_connect_info i;
	struct ws_url *u = NULL;
	struct lws *wsi;
	size_t k;

	if (c->dead) {
		buf_setf(err, "ws: client is shutting down");
		return -1;
	}
	if (c->state != WS_IDLE || c->notify_pending) {
		buf_setf(err, "ws: already connected or connecting");
		return -1;
	}
	if (!http_url_allowed(url, err))
		return -1;
	for (k = 0; k < n; k++)
		if (!header_ok(extra_headers[k])) {
			/* Names only: header values may be tokens. */
			buf_setf(err, "ws: malformed header #%zu", k);
			return -1;
		}
	u = xcalloc(1, sizeof(*u));
	if (parse_url(url, u, err))
		goto fail;
	set_headers(c, extra_headers, n);

	c->cb = *cb;
	c->ctx = ctx;
	c->peer_code = 0;
	c->close_code = 0;
	c->close_sent = 0;
	c->state = WS_CONNECTING;
	c->wsi = NULL;

	memset(&i, 0, sizeof(i));
	i.context = c->lx.lws;
	i.address = u->address;
	i.port = u->port;
	i.ssl_connection = u->tls ? LCCSCF_USE_SSL : 0;
	i.path = u->path;
	i.host = u->host;
	i.origin = NULL;
	i.protocol = NULL;	/* no Sec-WebSocket-Protocol */
	i.local_protocol_name = ws_protocols[0].name;
	i.ietf_version_or_minus_one = -1;
	i.pwsi = &c->wsi;	/* set before any callback can run */
	wsi = lws_client_connect_via_info(&i);
	free(u);
	if (!wsi && c->state == WS_CONNECTING) {
		/* Failed before any callback: nothing will follow. */
		c->state = WS_IDLE;
		c->wsi = NULL;
		buf_setf(err, "ws: could not start the connection");
		return -1;
	}
	/* Otherwise on_close comes later, even if the attempt already
	 * failed inside lws_client_connect_via_info (conn_finish ran). */
	c->stats.connects++;
	return 0;
fail:
	free(u);
	return -1;
}

/* ---- sending and closing ---- */

int ws_send_text(struct ws_client *c, const char *text, size_t len,
		 struct buf *err)
{
	struct ws_msg *m;

	if (c->dead || c->state != WS_OPEN || !c->wsi) {
		buf_setf(err, "ws: not connected");
		return -1;
	}
	if (len > WS_MAX_QUEUED_BYTES - c->queued) {
		buf_setf(err, "ws: send queue full (%zu bytes queued)", c->queued);
		return -1;
	}
	m = xmalloc(sizeof(*m) + LWS_PRE + len);
	m->next = NULL;
	m->len = len;
	if (len)
		memcpy(m->data + LWS_PRE, text, len);
	if (c->tail)
		c->tail->next = m;
	else
		c->head = m;
	c->tail = m;
	c->queued += len;
	lws_callback_on_writable(c->wsi);
	return 0;
}

void ws_close(struct ws_client *c, int code)
{
	struct lws *wsi;

	if (!c || c->dead)
		return;
	wsi = c->wsi;
	switch (c->state) {
	case WS_CONNECTING:
		/* No handshake yet, so no close frame: just abandon it. */
		conn_finish(c, code);
		if (wsi)
			wsi_kill(wsi);
		return;
	case WS_OPEN:
		c->state = WS_CLOSING;
		c->close_code = code;
		queue_drop(c);
		lws_callback_on_writable(wsi);
		uv_timer_start(&c->close_timer, on_close_timeout,
			       WS_CLOSE_TIMEOUT_MS, 0);
		return;
	case WS_IDLE:
	case WS_CLOSING:
		return;
	}
}
