#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tests/support/fake_http.h"
#include "util/buf.h"

struct fake_http_conn {
	union {
		uv_tcp_t tcp;
		uv_pipe_t pipe;		/* fake_http_start_unix() */
	} h;
	struct fake_http_server *srv;
	struct buf in;
	int closing;
	struct fake_http_conn *prev, *next;
};

struct fh_write {
	uv_write_t req;
	char *data;
	int close_after;
};

static void conn_closed(uv_handle_t *h)
{
	struct fake_http_conn *fc = h->data;

	buf_release(&fc->in);
	free(fc);
}

void fake_http_close(struct fake_http_conn *fc)
{
	if (fc->closing)
		return;
	fc->closing = 1;
	if (fc->prev)
		fc->prev->next = fc->next;
	else
		fc->srv->conns = fc->next;
	if (fc->next)
		fc->next->prev = fc->prev;
	uv_close((uv_handle_t *)&fc->h, conn_closed);
}

static void on_written(uv_write_t *req, int status)
{
	struct fh_write *w = (struct fh_write *)req;
	struct fake_http_conn *fc = req->data;

	if (status < 0 || w->close_after)
		fake_http_close(fc);
	free(w->data);
	free(w);
}

/* Takes ownership of data (malloc'd). */
static void send_owned(struct fake_http_conn *fc, char *data, size_t len,
		       int close_after)
{
	struct fh_write *w = calloc(1, sizeof(*w));
	uv_buf_t b = uv_buf_init(data, (unsigned)len);

	assert_non_null(w);
	w->data = data;
	w->close_after = close_after;
	w->req.data = fc;
	if (fc->closing ||
	    uv_write(&w->req, (uv_stream_t *)&fc->h, &b, 1, on_written)) {
		free(data);
		free(w);
		fake_http_close(fc);
	}
}

void fake_http_send_raw(struct fake_http_conn *fc, const void *data,
			size_t len, int close_after)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	if (len)
		memcpy(copy, data, len);
	send_owned(fc, copy, len, close_after);
}

void fake_http_reply(struct fake_http_conn *fc, int status,
		     const char *extra_headers, const void *body, size_t len)
{
	struct buf out = BUF_INIT;

	assert_int_equal(buf_printf(&out, "HTTP/1.1 %d Fake\r\nContent-Length: %zu\r\n%s\r\n",
				    status, len, extra_headers ? extra_headers : ""), 0);
	assert_int_equal(buf_add(&out, body, len), 0);
	len = out.len;
	send_owned(fc, buf_detach(&out), len, 0);
}

void fake_http_reply_big(struct fake_http_conn *fc, size_t size, int with_length)
{
	struct buf out = BUF_INIT;
	size_t len;

	if (with_length)
		assert_int_equal(buf_printf(&out, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n",
					    size), 0);
	else	/* length unknown: only the client's cap can stop it */
		assert_int_equal(buf_addstr(&out, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"), 0);
	len = out.len;
	{
		char *data = realloc(buf_detach(&out), len + size);

		assert_non_null(data);
		memset(data + len, 'x', size);
		send_owned(fc, data, len + size, !with_length);
	}
}

int fake_http_count(const struct fake_http_server *srv, const char *path,
		    int upto)
{
	int i, n = 0;

	for (i = 0; i < upto && i < srv->nreq; i++)
		n += !strcmp(srv->recs[i].path, path);
	return n;
}

static struct fake_http_req *record(struct fake_http_server *srv,
				    const char *head, size_t headlen,
				    const char *body, size_t blen)
{
	struct fake_http_req *r;

	if ((size_t)srv->nreq == srv->recs_cap) {
		size_t cap = srv->recs_cap ? 2 * srv->recs_cap : 16;
		struct fake_http_req *v = realloc(srv->recs, cap * sizeof(*v));

		assert_non_null(v);
		srv->recs = v;
		srv->recs_cap = cap;
	}
	r = &srv->recs[srv->nreq];
	memset(r, 0, sizeof(*r));
	r->head = malloc(headlen + 1);
	r->body = malloc(blen + 1);
	assert_non_null(r->head);
	assert_non_null(r->body);
	memcpy(r->head, head, headlen);
	r->head[headlen] = '\0';
	r->head_len = headlen;
	memcpy(r->body, body, blen);
	r->body[blen] = '\0';
	r->body_len = blen;
	assert_int_equal(sscanf(r->head, "%15s %255s", r->method, r->path), 2);
	r->at = uv_now(srv->loop);
	srv->nreq++;
	return r;
}

/* Serves every complete request in fc->in (keep-alive: maybe several). */
static void serve(struct fake_http_conn *fc)
{
	struct fake_http_server *srv = fc->srv;

	for (;;) {
		const char *s = buf_str(&fc->in), *end, *cl;
		size_t headlen, blen = 0, total;
		struct fake_http_req *r;

		end = strstr(s, "\r\n\r\n");
		if (!end)
			return;
		headlen = (size_t)(end - s) + 4;
		for (cl = s; (cl = strchr(cl, '\n')) && cl < end; cl++)
			if (!strncasecmp(cl + 1, "Content-Length:", 15))
				blen = strtoul(cl + 16, NULL, 10);
		total = headlen + blen;
		if (fc->in.len < total)
			return;
		r = record(srv, s, headlen, s + headlen, blen);
		srv->handler(srv->ctx, r, fc);
		if (fc->closing)
			return;
		memmove(fc->in.s, fc->in.s + total, fc->in.len - total);
		fc->in.len -= total;
		fc->in.s[fc->in.len] = '\0';
	}
}

static void on_alloc(uv_handle_t *h, size_t size, uv_buf_t *b)
{
	(void)h;
	b->base = malloc(size);
	b->len = b->base ? size : 0;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct fake_http_conn *fc = st->data;

	if (n < 0) {
		fake_http_close(fc);
	} else if (n > 0) {
		assert_int_equal(buf_add(&fc->in, b->base, (size_t)n), 0);
		serve(fc);
	}
	free(b->base);
}

static void on_connection(uv_stream_t *st, int status)
{
	struct fake_http_server *srv = st->data;
	struct fake_http_conn *fc;

	if (status < 0)
		return;
	fc = calloc(1, sizeof(*fc));
	assert_non_null(fc);
	fc->srv = srv;
	if (srv->is_unix) {
		assert_int_equal(uv_pipe_init(st->loop, &fc->h.pipe, 0), 0);
		fc->h.pipe.data = fc;
	} else {
		assert_int_equal(uv_tcp_init(st->loop, &fc->h.tcp), 0);
		fc->h.tcp.data = fc;
	}
	assert_int_equal(uv_accept(st, (uv_stream_t *)&fc->h), 0);
	fc->next = srv->conns;
	if (srv->conns)
		srv->conns->prev = fc;
	srv->conns = fc;
	uv_read_start((uv_stream_t *)&fc->h, on_alloc, on_read);
}

int fake_http_bind_loopback(uv_loop_t *loop, uv_tcp_t *tcp)
{
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof(got);

	assert_int_equal(uv_tcp_init(loop, tcp), 0);
	assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &a), 0);
	assert_int_equal(uv_tcp_bind(tcp, (const struct sockaddr *)&a, 0), 0);
	assert_int_equal(uv_tcp_getsockname(tcp, (struct sockaddr *)&got, &len), 0);
	return ntohs(((struct sockaddr_in *)&got)->sin_port);
}

void fake_http_start(struct fake_http_server *srv, uv_loop_t *loop,
		     fake_http_handler *handler, void *ctx)
{
	memset(srv, 0, sizeof(*srv));
	srv->loop = loop;
	srv->handler = handler;
	srv->ctx = ctx;
	srv->port = fake_http_bind_loopback(loop, &srv->tcp);
	srv->tcp.data = srv;
	assert_int_equal(uv_listen((uv_stream_t *)&srv->tcp, 64, on_connection), 0);
}

void fake_http_start_unix(struct fake_http_server *srv, uv_loop_t *loop, const char *path,
			  fake_http_handler *handler, void *ctx)
{
	memset(srv, 0, sizeof(*srv));
	srv->loop = loop;
	srv->handler = handler;
	srv->ctx = ctx;
	srv->is_unix = 1;
	unlink(path);
	assert_int_equal(uv_pipe_init(loop, &srv->pipe, 0), 0);
	assert_int_equal(uv_pipe_bind(&srv->pipe, path), 0);
	srv->pipe.data = srv;
	assert_int_equal(uv_listen((uv_stream_t *)&srv->pipe, 64, on_connection), 0);
}

void fake_http_stop(struct fake_http_server *srv)
{
	int i;

	while (srv->conns)
		fake_http_close(srv->conns);
	uv_close(srv->is_unix ? (uv_handle_t *)&srv->pipe : (uv_handle_t *)&srv->tcp, NULL);
	for (i = 0; i < srv->nreq; i++) {
		free(srv->recs[i].head);
		free(srv->recs[i].body);
	}
	free(srv->recs);
	srv->nreq = 0;
	srv->recs = NULL;
	srv->recs_cap = 0;
}
