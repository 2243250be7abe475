/*
 * adapters/ws: the libwebsockets-on-libuv client against a small RFC 6455
 * server written here on uv_tcp (127.0.0.1, ephemeral port, the same
 * loop), so the tests control every frame: fragments, close codes, a
 * close that is never answered, a TCP drop without a close frame.
 * Nothing but 127.0.0.1 is ever contacted.  Every test runs under a guard
 * timer: a hang fails the test instead of blocking.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

#include <libwebsockets.h>

#include "adapters/ws.h"
#include "util/buf.h"

#define GUARD_MS 10000
#define BIG_BYTES ((size_t)1 << 20)
#define MAX_CONNS 8

/* ---- the test server ---- */

enum srv_mode {
	SRV_ECHO,		/* echoes every text message in one frame */
	SRV_FRAGMENTS,		/* on open: one text message in 3 frames */
	SRV_CLOSE_4004,		/* on open: close frame 4004 */
	SRV_DROP,		/* on open: drops TCP, no close frame */
	SRV_BINARY,		/* on open: a binary message, then text "after" */
	SRV_IGNORE_CLOSE,	/* echoes, but never answers a close frame */
};

struct t;

struct sconn {
	uv_tcp_t tcp;
	struct t *t;
	int slot;
	unsigned char *in;
	size_t in_len, in_cap;
	int upgraded;
	unsigned char *msg;	/* message being reassembled */
	size_t msg_len, msg_cap;
	int msg_op;
};

struct wreq {
	uv_write_t req;
	struct sconn *sc;
	int close_after;
	unsigned char *bytes;
};

struct t {
	uv_loop_t loop;
	uv_timer_t guard;
	int guard_fired;
	struct ws_client *c;

	/* server */
	uv_tcp_t listener;
	int port;
	enum srv_mode mode, next_mode;	/* next_mode: for the 2nd connection */
	struct sconn *conns[MAX_CONNS];
	int srv_accepted;
	int srv_msgs;
	unsigned char *srv_last;	/* last complete message received */
	size_t srv_last_len;
	int srv_close_code;		/* from the client's close frame */
	char *srv_head;			/* the last upgrade request */

	/* client observations */
	int opens, closes, close_code;
	int pieces, finals, nmsgs, last_pieces, cur_pieces;
	unsigned char *cur, *last;
	size_t cur_len, cur_cap, last_len;
	int closes_at_return;		/* closes seen right after ws_close() */
	/* client behaviour */
	const char *send_on_open;
	const char *send_on_first_text;
	int reconnect_left;		/* ws_connect() again from on_close */
	int reconnect_rc;
	int free_on_text;		/* ws_client_free() from on_text */
	int free_on_close;		/* ws_client_free() from on_close */
	int srv_not_http;		/* connections that did not start "GET" */
};

static void grow(unsigned char **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return;
	*cap = need * 2 > 4096 ? need * 2 : 4096;
	*p = realloc(*p, *cap);
	assert_non_null(*p);
}

static void on_sconn_closed(uv_handle_t *h)
{
	struct sconn *sc = h->data;

	free(sc->in);
	free(sc->msg);
	free(sc);
}

static void sconn_close(struct sconn *sc)
{
	if (uv_is_closing((uv_handle_t *)&sc->tcp))
		return;
	sc->t->conns[sc->slot] = NULL;
	uv_close((uv_handle_t *)&sc->tcp, on_sconn_closed);
}

static void on_written(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;

	(void)status;
	if (w->close_after)
		sconn_close(w->sc);
	free(w->bytes);
	free(w);
}

static void sconn_write(struct sconn *sc, const void *p, size_t n,
			int close_after)
{
	struct wreq *w = calloc(1, sizeof(*w));
	uv_buf_t b;

	assert_non_null(w);
	if (uv_is_closing((uv_handle_t *)&sc->tcp)) {
		free(w);
		return;
	}
	w->sc = sc;
	w->close_after = close_after;
	w->bytes = malloc(n ? n : 1);
	assert_non_null(w->bytes);
	memcpy(w->bytes, p, n);
	b = uv_buf_init((char *)w->bytes, (unsigned)n);
	assert_int_equal(uv_write(&w->req, (uv_stream_t *)&sc->tcp, &b, 1,
				  on_written), 0);
}

/* One unmasked server frame: b0 is FIN | opcode. */
static void send_frame(struct sconn *sc, unsigned b0, const void *p, size_t n,
		       int close_after)
{
	unsigned char *f = malloc(n + 10);
	size_t h = 0;
	int i;

	assert_non_null(f);
	f[h++] = (unsigned char)b0;
	if (n < 126) {
		f[h++] = (unsigned char)n;
	} else if (n < 65536) {
		f[h++] = 126;
		f[h++] = (unsigned char)(n >> 8);
		f[h++] = (unsigned char)n;
	} else {
		f[h++] = 127;
		for (i = 7; i >= 0; i--)
			f[h++] = (unsigned char)((uint64_t)n >> (8 * i));
	}
	if (n)
		memcpy(f + h, p, n);
	sconn_write(sc, f, h + n, close_after);
	free(f);
}

static void send_close(struct sconn *sc, int code, int close_after)
{
	unsigned char p[2] = { (unsigned char)(code >> 8), (unsigned char)code };

	send_frame(sc, 0x88, p, 2, close_after);
}

static void srv_opened(struct sconn *sc)
{
	static const unsigned char bin[] = { 0, 1, 2, 0xff };

	switch (sc->t->mode) {
	case SRV_FRAGMENTS:
		send_frame(sc, 0x01, "hello, ", 7, 0);		/* TEXT, no FIN */
		send_frame(sc, 0x00, "fragmented ", 11, 0);	/* CONT */
		send_frame(sc, 0x80, "world", 5, 0);		/* CONT, FIN */
		break;
	case SRV_CLOSE_4004:
		send_close(sc, 4004, 0);
		break;
	case SRV_DROP:
		sconn_close(sc);
		break;
	case SRV_BINARY:
		send_frame(sc, 0x82, bin, sizeof(bin), 0);
		send_frame(sc, 0x81, "after", 5, 0);
		break;
	case SRV_ECHO:
	case SRV_IGNORE_CLOSE:
		break;
	}
}

static void srv_message(struct sconn *sc)
{
	struct t *t = sc->t;

	t->srv_msgs++;
	free(t->srv_last);
	t->srv_last = malloc(sc->msg_len + 1);
	assert_non_null(t->srv_last);
	memcpy(t->srv_last, sc->msg, sc->msg_len);
	t->srv_last_len = sc->msg_len;
	if (sc->msg_op == 1 && (t->mode == SRV_ECHO || t->mode == SRV_IGNORE_CLOSE))
		send_frame(sc, 0x81, sc->msg, sc->msg_len, 0);
}

/* Header value of name in the request head, copied into out. */
static int find_header(const char *head, const char *name, char *out,
		       size_t outsz)
{
	size_t nl = strlen(name);
	const char *l = strstr(head, "\r\n");

	while (l && l[2] != '\r') {
		const char *line = l + 2, *end = strstr(line, "\r\n");

		if (!end)
			return -1;
		if (!strncasecmp(line, name, nl) && line[nl] == ':') {
			const char *v = line + nl + 1;

			while (*v == ' ')
				v++;
			if ((size_t)(end - v) >= outsz)
				return -1;
			memcpy(out, v, (size_t)(end - v));
			out[end - v] = '\0';
			return 0;
		}
		l = end;
	}
	return -1;
}

static int srv_handshake(struct sconn *sc)
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	char key[128], cat[256], accept[64], resp[256];
	unsigned char md[20];
	size_t i, hl;
	int n;

	for (i = 0; i + 3 < sc->in_len; i++)
		if (!memcmp(sc->in + i, "\r\n\r\n", 4))
			break;
	if (i + 3 >= sc->in_len)
		return 0;	/* need more */
	hl = i + 4;
	free(sc->t->srv_head);
	sc->t->srv_head = malloc(hl + 1);
	assert_non_null(sc->t->srv_head);
	memcpy(sc->t->srv_head, sc->in, hl);
	sc->t->srv_head[hl] = '\0';
	assert_int_equal(find_header(sc->t->srv_head, "Sec-WebSocket-Key",
				     key, sizeof(key)), 0);
	n = snprintf(cat, sizeof(cat), "%s%s", key, guid);
	lws_SHA1((const unsigned char *)cat, (size_t)n, md);
	assert_true(lws_b64_encode_string((const char *)md, 20, accept,
					  sizeof(accept)) > 0);
	n = snprintf(resp, sizeof(resp),
		     "HTTP/1.1 101 Switching Protocols\r\n"
		     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
		     "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
	sconn_write(sc, resp, (size_t)n, 0);
	memmove(sc->in, sc->in + hl, sc->in_len - hl);
	sc->in_len -= hl;
	sc->upgraded = 1;
	srv_opened(sc);
	return 1;
}

/* Parses one client frame; 0 when more bytes are needed. */
static int srv_frame(struct sconn *sc)
{
	unsigned char *p = sc->in, mask[4];
	size_t h = 2, n, i;
	int op, fin;

	if (sc->in_len < 2)
		return 0;
	fin = p[0] & 0x80;
	op = p[0] & 0x0f;
	assert_true(p[1] & 0x80);	/* clients must mask */
	n = p[1] & 0x7f;
	if (n == 126) {
		if (sc->in_len < 4)
			return 0;
		n = (size_t)p[2] << 8 | p[3];
		h = 4;
	} else if (n == 127) {
		if (sc->in_len < 10)
			return 0;
		n = 0;
		for (i = 0; i < 8; i++)
			n = n << 8 | p[2 + i];
		h = 10;
	}
	if (sc->in_len < h + 4 + n)
		return 0;
	memcpy(mask, p + h, 4);
	h += 4;
	for (i = 0; i < n; i++)
		p[h + i] ^= mask[i & 3];

	if (op == 8) {
		sc->t->srv_close_code = n >= 2 ? (p[h] << 8 | p[h + 1]) : 1005;
		if (sc->t->mode != SRV_IGNORE_CLOSE)
			send_close(sc, sc->t->srv_close_code, 1);
	} else if (op == 9) {
		send_frame(sc, 0x8a, p + h, n, 0);
	} else if (op < 8) {
		if (op != 0) {
			sc->msg_op = op;
			sc->msg_len = 0;
		}
		grow(&sc->msg, &sc->msg_cap, sc->msg_len + n + 1);
		memcpy(sc->msg + sc->msg_len, p + h, n);
		sc->msg_len += n;
		if (fin)
			srv_message(sc);
	}
	memmove(sc->in, sc->in + h + n, sc->in_len - h - n);
	sc->in_len -= h + n;
	return 1;
}

static void srv_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	struct sconn *sc = h->data;

	(void)hint;
	grow(&sc->in, &sc->in_cap, sc->in_len + 65536);
	*b = uv_buf_init((char *)sc->in + sc->in_len, 65536);
}

static void srv_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct sconn *sc = s->data;

	(void)b;
	if (n < 0) {
		sconn_close(sc);
		return;
	}
	sc->in_len += (size_t)n;
	if (!sc->upgraded && sc->in_len && sc->in[0] != 'G') {
		sc->t->srv_not_http++;	/* a TLS ClientHello: hang up */
		sconn_close(sc);
		return;
	}
	if (!sc->upgraded && !srv_handshake(sc))
		return;
	while (!uv_is_closing((uv_handle_t *)&sc->tcp) && srv_frame(sc))
		;
}

static void srv_accept(uv_stream_t *l, int status)
{
	struct t *t = l->data;
	struct sconn *sc;
	int i;

	assert_int_equal(status, 0);
	sc = calloc(1, sizeof(*sc));
	assert_non_null(sc);
	sc->t = t;
	uv_tcp_init(&t->loop, &sc->tcp);
	sc->tcp.data = sc;
	assert_int_equal(uv_accept(l, (uv_stream_t *)&sc->tcp), 0);
	for (i = 0; i < MAX_CONNS && t->conns[i]; i++)
		;
	assert_true(i < MAX_CONNS);
	t->conns[i] = sc;
	sc->slot = i;
	if (t->srv_accepted++ == 1)
		t->mode = t->next_mode;
	uv_read_start((uv_stream_t *)&sc->tcp, srv_alloc, srv_read);
}

static void srv_start(struct t *t)
{
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof(got);

	assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &a), 0);
	uv_tcp_init(&t->loop, &t->listener);
	t->listener.data = t;
	assert_int_equal(uv_tcp_bind(&t->listener, (struct sockaddr *)&a, 0), 0);
	assert_int_equal(uv_listen((uv_stream_t *)&t->listener, 8, srv_accept), 0);
	assert_int_equal(uv_tcp_getsockname(&t->listener,
					    (struct sockaddr *)&got, &len), 0);
	t->port = ntohs(((struct sockaddr_in *)&got)->sin_port);
}

static void srv_stop(struct t *t)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		if (t->conns[i])
			sconn_close(t->conns[i]);
	uv_close((uv_handle_t *)&t->listener, NULL);
}

/* ---- the client's callbacks ---- */

static void connect_to(struct t *t, const char *path);

static void on_open(void *ctx)
{
	struct t *t = ctx;
	struct buf err = BUF_INIT;

	t->opens++;
	if (t->send_on_open)
		assert_int_equal(ws_send_text(t->c, t->send_on_open,
					      strlen(t->send_on_open), &err), 0);
	buf_release(&err);
}

static void on_text(void *ctx, const void *data, size_t len, int is_final)
{
	struct t *t = ctx;

	t->pieces++;
	t->cur_pieces++;
	grow(&t->cur, &t->cur_cap, t->cur_len + len + 1);
	if (len)
		memcpy(t->cur + t->cur_len, data, len);
	t->cur_len += len;
	if (!is_final)
		return;
	t->finals++;
	t->nmsgs++;
	t->cur[t->cur_len] = '\0';
	free(t->last);
	t->last = t->cur;
	t->last_len = t->cur_len;
	t->last_pieces = t->cur_pieces;
	t->cur = NULL;
	t->cur_len = t->cur_cap = 0;
	t->cur_pieces = 0;
	if (t->free_on_text) {
		ws_client_free(t->c);
		t->c = NULL;
		return;
	}
	if (t->nmsgs == 1 && t->send_on_first_text) {
		struct buf err = BUF_INIT;

		assert_int_equal(ws_send_text(t->c, t->send_on_first_text,
					      strlen(t->send_on_first_text),
					      &err), 0);
		buf_release(&err);
	}
}

static void on_close(void *ctx, int code)
{
	struct t *t = ctx;

	t->closes++;
	t->close_code = code;
	if (t->free_on_close) {
		ws_client_free(t->c);
		t->c = NULL;
		return;
	}
	if (t->reconnect_left > 0) {
		t->reconnect_left--;
		connect_to(t, "/again");
	}
}

static const struct ws_callbacks callbacks = {
	.on_open = on_open, .on_text = on_text, .on_close = on_close,
};

/* ---- harness ---- */

static void on_guard(uv_timer_t *g)
{
	struct t *t = g->data;

	t->guard_fired = 1;
	fprintf(stderr, "test_ws: guard timer fired (hang)\n");
	uv_stop(&t->loop);
}

static struct t *t_new(enum srv_mode mode)
{
	struct t *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;

	assert_non_null(t);
	assert_int_equal(uv_loop_init(&t->loop), 0);
	uv_timer_init(&t->loop, &t->guard);
	t->guard.data = t;
	uv_timer_start(&t->guard, on_guard, GUARD_MS, 0);
	uv_unref((uv_handle_t *)&t->guard);
	t->mode = t->next_mode = mode;
	srv_start(t);
	t->c = ws_client_new(&t->loop, &err);
	assert_non_null(t->c);
	buf_release(&err);
	return t;
}

/* Frees the client and the server and runs the loop dry, still guarded:
 * uv_loop_close() == 0 proves lws closed every handle it had. */
static void t_free(struct t *t)
{
	ws_client_free(t->c);
	srv_stop(t);
	uv_run(&t->loop, UV_RUN_DEFAULT);
	assert_false(t->guard_fired);
	uv_close((uv_handle_t *)&t->guard, NULL);
	uv_run(&t->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&t->loop), 0);
	free(t->srv_last);
	free(t->srv_head);
	free(t->cur);
	free(t->last);
	free(t);
}

static void run_until(struct t *t, const int *counter, int target)
{
	while (*counter < target && !t->guard_fired)
		uv_run(&t->loop, UV_RUN_ONCE);
	assert_false(t->guard_fired);
	assert_int_equal(*counter, target);
}

static void on_settle(uv_timer_t *tm)
{
	(void)tm;
}

/* Runs the loop for ms more, so late or duplicate callbacks would show. */
static void settle(struct t *t, uint64_t ms)
{
	uv_timer_t tm;
	int fired = 0;

	uv_timer_init(&t->loop, &tm);
	tm.data = &fired;
	uv_timer_start(&tm, on_settle, ms, 0);
	while (uv_is_active((uv_handle_t *)&tm) && !t->guard_fired)
		uv_run(&t->loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&tm, NULL);
	uv_run(&t->loop, UV_RUN_NOWAIT);
	(void)fired;
}

static void connect_to(struct t *t, const char *path)
{
	static const char *const hdrs[] = { "X-Test: yes", "Authorization: Bot x" };
	char url[128];
	struct buf err = BUF_INIT;

	snprintf(url, sizeof(url), "ws://127.0.0.1:%d%s", t->port, path);
	t->reconnect_rc = ws_connect(t->c, url, hdrs, 2, &callbacks, t, &err);
	assert_int_equal(t->reconnect_rc, 0);
	buf_release(&err);
}

static char *pattern(size_t n, unsigned seed)
{
	char *p = malloc(n + 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (char)('a' + (seed >> 16) % 26);
	}
	p[n] = '\0';
	return p;
}

/* ---- tests ---- */

static void test_echo(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;
	char hv[64];

	(void)state;
	t->send_on_open = "hello";		/* from inside on_open */
	t->send_on_first_text = "again";	/* from inside on_text */
	connect_to(t, "/gw?v=10&encoding=json");
	run_until(t, &t->nmsgs, 2);
	assert_int_equal(t->opens, 1);
	assert_string_equal((char *)t->last, "again");
	assert_int_equal(t->srv_msgs, 2);
	assert_memory_equal(t->srv_last, "again", 5);
	/* The path, query and extra headers reached the server. */
	assert_non_null(strstr(t->srv_head, "GET /gw?v=10&encoding=json HTTP/1.1"));
	assert_int_equal(find_header(t->srv_head, "X-Test", hv, sizeof(hv)), 0);
	assert_string_equal(hv, "yes");
	assert_int_equal(find_header(t->srv_head, "Authorization", hv, sizeof(hv)), 0);
	assert_string_equal(hv, "Bot x");

	/* And from outside any callback. */
	assert_int_equal(ws_send_text(t->c, "third", 5, &err), 0);
	run_until(t, &t->nmsgs, 3);
	assert_string_equal((char *)t->last, "third");
	/* An empty message is a message too. */
	assert_int_equal(ws_send_text(t->c, "", 0, &err), 0);
	run_until(t, &t->nmsgs, 4);
	assert_int_equal(t->last_len, 0);

	ws_close(t->c, 1000);
	assert_int_equal(t->closes, 0);
	run_until(t, &t->closes, 1);
	assert_int_equal(t->close_code, 1000);
	settle(t, 100);	/* the server reads after our notify timer ran */
	assert_int_equal(t->srv_close_code, 1000);
	assert_int_equal(t->closes, 1);
	buf_release(&err);
	t_free(t);
}

static void test_fragments(void **state)
{
	struct t *t = t_new(SRV_FRAGMENTS);

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->nmsgs, 1);
	assert_string_equal((char *)t->last, "hello, fragmented world");
	/* Three frames, at least three pieces, is_final on the last only. */
	assert_true(t->last_pieces >= 3);
	assert_int_equal(t->finals, 1);
	assert_int_equal(t->pieces, t->last_pieces);
	t_free(t);
}

static void test_big_both_ways(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;
	char *big = pattern(BIG_BYTES, 7);

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->opens, 1);
	assert_int_equal(ws_send_text(t->c, big, BIG_BYTES, &err), 0);
	run_until(t, &t->nmsgs, 1);
	assert_int_equal(t->srv_msgs, 1);
	assert_int_equal(t->srv_last_len, BIG_BYTES);
	assert_memory_equal(t->srv_last, big, BIG_BYTES);
	assert_int_equal(t->last_len, BIG_BYTES);
	assert_memory_equal(t->last, big, BIG_BYTES);
	assert_true(t->last_pieces > 1);	/* delivered piecewise */
	assert_int_equal(t->finals, 1);
	/* Several queued at once go out in order. */
	assert_int_equal(ws_send_text(t->c, "one", 3, &err), 0);
	assert_int_equal(ws_send_text(t->c, big, BIG_BYTES, &err), 0);
	assert_int_equal(ws_send_text(t->c, "three", 5, &err), 0);
	run_until(t, &t->nmsgs, 4);
	assert_string_equal((char *)t->last, "three");
	assert_int_equal(t->srv_msgs, 4);
	free(big);
	buf_release(&err);
	t_free(t);
}

static void test_queue_cap(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->opens, 1);
	/* Refused before the text is read: no buffer of that size needed. */
	assert_int_equal(ws_send_text(t->c, "x", WS_MAX_QUEUED_BYTES + 1, &err), -1);
	assert_non_null(strstr(buf_str(&err), "queue"));
	buf_release(&err);
	t_free(t);
}

static void test_server_close_4004(void **state)
{
	struct t *t = t_new(SRV_CLOSE_4004);

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->closes, 1);
	assert_int_equal(t->opens, 1);
	assert_int_equal(t->close_code, 4004);
	settle(t, 100);
	assert_int_equal(t->closes, 1);
	/* lws answered the close with the same code. */
	assert_int_equal(t->srv_close_code, 4004);
	t_free(t);
}

static void test_server_drop(void **state)
{
	struct t *t = t_new(SRV_DROP);

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->closes, 1);
	assert_true(t->close_code == 0 || t->close_code == WS_CLOSE_ABNORMAL);
	settle(t, 100);
	assert_int_equal(t->closes, 1);
	t_free(t);
}

static void test_client_close(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->opens, 1);
	ws_close(t->c, 4900);
	assert_int_equal(t->closes, 0);		/* never from inside ws_close */
	ws_close(t->c, 4901);			/* a second close is a no-op */
	assert_int_equal(ws_send_text(t->c, "late", 4, &err), -1);
	run_until(t, &t->closes, 1);
	assert_int_equal(t->close_code, 4900);
	settle(t, 100);
	assert_int_equal(t->closes, 1);
	assert_int_equal(t->srv_close_code, 4900);
	ws_close(t->c, 4902);			/* not connected: no-op */
	settle(t, 20);
	assert_int_equal(t->closes, 1);
	buf_release(&err);
	t_free(t);
}

static void test_close_unanswered(void **state)
{
	struct t *t = t_new(SRV_IGNORE_CLOSE);
	struct ws_stats st;
	uint64_t t0;

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->opens, 1);
	t0 = uv_hrtime();
	ws_close(t->c, 4900);
	run_until(t, &t->closes, 1);
	assert_int_equal(t->close_code, 4900);
	assert_int_equal(t->srv_close_code, 4900);	/* the frame went out */
	assert_true((uv_hrtime() - t0) / 1000000 >= WS_CLOSE_TIMEOUT_MS - 100);
	ws_client_stats(t->c, &st);
	assert_int_equal(st.close_timeouts, 1);
	settle(t, 200);
	assert_int_equal(t->closes, 1);
	t_free(t);
}

static void test_close_while_connecting(void **state)
{
	struct t *t = t_new(SRV_ECHO);

	(void)state;
	connect_to(t, "/");
	ws_close(t->c, 4000);
	assert_int_equal(t->closes, 0);
	run_until(t, &t->closes, 1);
	assert_int_equal(t->close_code, 4000);
	settle(t, 100);
	assert_int_equal(t->closes, 1);
	assert_int_equal(t->opens, 0);
	t_free(t);
}

static void test_reconnect_from_on_close(void **state)
{
	struct t *t = t_new(SRV_CLOSE_4004);

	(void)state;
	t->next_mode = SRV_ECHO;
	t->reconnect_left = 1;
	t->send_on_open = "hi";
	connect_to(t, "/");
	run_until(t, &t->opens, 2);
	assert_int_equal(t->closes, 1);
	assert_int_equal(t->close_code, 4004);
	run_until(t, &t->nmsgs, 1);		/* the echo on connection 2 */
	assert_string_equal((char *)t->last, "hi");
	assert_non_null(strstr(t->srv_head, "GET /again "));
	ws_close(t->c, 1000);
	run_until(t, &t->closes, 2);
	assert_int_equal(t->close_code, 1000);
	assert_int_equal(t->srv_accepted, 2);
	t_free(t);
}

static void test_connect_refused(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;
	uv_tcp_t probe;
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof(got), port, rc;
	char url[64];

	(void)state;
	/* A port that was free a moment ago and has nobody listening. */
	uv_ip4_addr("127.0.0.1", 0, &a);
	uv_tcp_init(&t->loop, &probe);
	assert_int_equal(uv_tcp_bind(&probe, (struct sockaddr *)&a, 0), 0);
	uv_tcp_getsockname(&probe, (struct sockaddr *)&got, &len);
	port = ntohs(((struct sockaddr_in *)&got)->sin_port);
	uv_close((uv_handle_t *)&probe, NULL);
	uv_run(&t->loop, UV_RUN_NOWAIT);

	snprintf(url, sizeof(url), "ws://127.0.0.1:%d/", port);
	rc = ws_connect(t->c, url, NULL, 0, &callbacks, t, &err);
	assert_int_equal(t->closes, 0);		/* never from inside ws_connect */
	if (rc == 0) {
		run_until(t, &t->closes, 1);
		assert_true(t->close_code == 0 || t->close_code == WS_CLOSE_ABNORMAL);
		settle(t, 100);
		assert_int_equal(t->closes, 1);
	} else {
		assert_true(err.len > 0);
	}
	assert_int_equal(t->opens, 0);
	/* The client is usable afterwards. */
	connect_to(t, "/");
	run_until(t, &t->opens, 1);
	buf_release(&err);
	t_free(t);
}

static void test_refused_urls(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;
	static const char *const bad_hdr[] = { "NoColonHere" };
	static const char *const crlf_hdr[] = { "X-A: b\r\nX-Evil: 1" };
	char url[64];

	(void)state;
	/* Refused before any network access: no DNS, no connect. */
	assert_int_equal(ws_connect(t->c, "ws://example.com/", NULL, 0,
				    &callbacks, t, &err), -1);
	assert_non_null(strstr(buf_str(&err), "loopback"));
	assert_null(strstr(buf_str(&err), "example"));	/* URL not quoted */
	assert_int_equal(ws_connect(t->c, "http://127.0.0.1/", NULL, 0,
				    &callbacks, t, &err), -1);
	assert_int_equal(ws_connect(t->c, "ftp://127.0.0.1/", NULL, 0,
				    &callbacks, t, &err), -1);
	assert_int_equal(ws_connect(t->c, "not a url", NULL, 0,
				    &callbacks, t, &err), -1);
	assert_int_equal(ws_connect(t->c, "ws://user:pw@127.0.0.1/", NULL, 0,
				    &callbacks, t, &err), -1);
	snprintf(url, sizeof(url), "ws://127.0.0.1:%d/", t->port);
	assert_int_equal(ws_connect(t->c, url, bad_hdr, 1, &callbacks, t, &err), -1);
	assert_int_equal(ws_connect(t->c, url, crlf_hdr, 1, &callbacks, t, &err), -1);
	/* Not connected: send fails, close is a no-op. */
	assert_int_equal(ws_send_text(t->c, "x", 1, &err), -1);
	ws_close(t->c, 1000);
	/* One connection at a time. */
	assert_int_equal(ws_connect(t->c, url, NULL, 0, &callbacks, t, &err), 0);
	assert_int_equal(ws_connect(t->c, url, NULL, 0, &callbacks, t, &err), -1);
	assert_non_null(strstr(buf_str(&err), "already"));
	run_until(t, &t->opens, 1);
	assert_int_equal(ws_connect(t->c, url, NULL, 0, &callbacks, t, &err), -1);
	settle(t, 50);
	assert_int_equal(t->closes, 0);
	assert_int_equal(t->srv_accepted, 1);
	buf_release(&err);
	t_free(t);
}

static void test_binary_dropped(void **state)
{
	struct t *t = t_new(SRV_BINARY);
	struct ws_stats st;

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->nmsgs, 1);
	assert_string_equal((char *)t->last, "after");
	assert_int_equal(t->pieces, 1);
	ws_client_stats(t->c, &st);
	assert_int_equal(st.binary_dropped, 1);
	assert_int_equal(st.text_pieces, 1);
	t_free(t);
}

static void test_free_while_connected(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;
	char *big = pattern(BIG_BYTES, 3);

	(void)state;
	connect_to(t, "/");
	run_until(t, &t->opens, 1);
	/* Leave queued and half-written data behind too. */
	assert_int_equal(ws_send_text(t->c, big, BIG_BYTES, &err), 0);
	assert_int_equal(ws_send_text(t->c, "tail", 4, &err), 0);
	ws_client_free(t->c);
	t->c = NULL;
	settle(t, 50);
	assert_int_equal(t->closes, 0);		/* free never calls on_close */
	free(big);
	buf_release(&err);
	t_free(t);	/* uv_loop_close() == 0: no handle left behind */
}

static void test_free_while_connecting(void **state)
{
	struct t *t = t_new(SRV_ECHO);

	(void)state;
	connect_to(t, "/");
	ws_client_free(t->c);
	t->c = NULL;
	settle(t, 50);
	assert_int_equal(t->closes, 0);
	assert_int_equal(t->opens, 0);
	t_free(t);
}

static void test_free_from_callbacks(void **state)
{
	struct t *t = t_new(SRV_FRAGMENTS);

	(void)state;
	/* From inside on_text, while lws is servicing the connection. */
	t->free_on_text = 1;
	connect_to(t, "/");
	run_until(t, &t->nmsgs, 1);
	assert_null(t->c);
	settle(t, 50);
	assert_int_equal(t->closes, 0);
	assert_int_equal(t->nmsgs, 1);
	t_free(t);

	/* From inside on_close. */
	t = t_new(SRV_CLOSE_4004);
	t->free_on_close = 1;
	connect_to(t, "/");
	run_until(t, &t->closes, 1);
	assert_null(t->c);
	settle(t, 50);
	assert_int_equal(t->closes, 1);
	t_free(t);
}

static void test_wss_to_plain_server(void **state)
{
	struct t *t = t_new(SRV_ECHO);
	struct buf err = BUF_INIT;
	char url[64];

	(void)state;
	/* The TLS path (client SSL_CTX, SNI, verification) runs, and a
	 * peer that is not TLS ends in on_close(1006), not a hang. */
	snprintf(url, sizeof(url), "wss://127.0.0.1:%d/", t->port);
	assert_int_equal(ws_connect(t->c, url, NULL, 0, &callbacks, t, &err), 0);
	run_until(t, &t->closes, 1);
	assert_true(t->close_code == 0 || t->close_code == WS_CLOSE_ABNORMAL);
	assert_int_equal(t->opens, 0);
	assert_int_equal(t->srv_not_http, 1);
	settle(t, 50);
	assert_int_equal(t->closes, 1);
	buf_release(&err);
	t_free(t);
}

static void test_new_free_idle(void **state)
{
	struct t *t = t_new(SRV_ECHO);

	(void)state;
	ws_client_free(NULL);
	t_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_free_idle),
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_big_both_ways),
		cmocka_unit_test(test_queue_cap),
		cmocka_unit_test(test_server_close_4004),
		cmocka_unit_test(test_server_drop),
		cmocka_unit_test(test_client_close),
		cmocka_unit_test(test_close_unanswered),
		cmocka_unit_test(test_close_while_connecting),
		cmocka_unit_test(test_reconnect_from_on_close),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_refused_urls),
		cmocka_unit_test(test_binary_dropped),
		cmocka_unit_test(test_free_while_connected),
		cmocka_unit_test(test_free_while_connecting),
		cmocka_unit_test(test_free_from_callbacks),
		cmocka_unit_test(test_wss_to_plain_server),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
