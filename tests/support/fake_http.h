/*
 * fake_http: a loopback HTTP/1.1 server for tests, on the test's uv loop.
 * Listens on 127.0.0.1 only, on an ephemeral port.  Parses requests
 * (request line, headers, Content-Length body, keep-alive), records every
 * one in srv->recs, then calls the test's handler, which answers with the
 * fake_http_reply* / fake_http_send_raw helpers, closes, or never answers.
 * Any failure of the fake fails the test (cmocka asserts).
 */
#ifndef TESTS_FAKE_HTTP_H
#define TESTS_FAKE_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct fake_http_conn;

struct fake_http_req {
	char method[16];
	char path[256];
	char *head;		/* request line and headers, raw, NUL-terminated,
				 * final blank line included */
	size_t head_len;
	char *body;		/* NUL-terminated ("" when none) */
	size_t body_len;
	uint64_t at;		/* uv_now() of arrival */
};

/* Called once per complete request; req is srv->recs[srv->nreq - 1] and
 * stays valid only for the call (later requests may move the array). */
typedef void fake_http_handler(void *ctx, const struct fake_http_req *req,
			       struct fake_http_conn *conn);

struct fake_http_server {
	int port;
	int nreq;			/* complete requests received */
	struct fake_http_req *recs;	/* recs[0 .. nreq - 1] */
	/* internal */
	uv_tcp_t tcp;
	uv_pipe_t pipe;			/* fake_http_start_unix() */
	int is_unix;
	uv_loop_t *loop;
	size_t recs_cap;
	struct fake_http_conn *conns;
	fake_http_handler *handler;
	void *ctx;
};

void fake_http_start(struct fake_http_server *srv, uv_loop_t *loop,
		     fake_http_handler *handler, void *ctx);
/* The same on a Unix socket at path (removed first if it exists); port 0. */
void fake_http_start_unix(struct fake_http_server *srv, uv_loop_t *loop, const char *path,
			  fake_http_handler *handler, void *ctx);
/* Closes the listener and every connection and frees the records; run the
 * loop afterwards to finish the closes. */
void fake_http_stop(struct fake_http_server *srv);

/* "HTTP/1.1 <status> Fake", Content-Length: len, then extra_headers (whole
 * "Name: value\r\n" lines, may be ""), then the body. */
void fake_http_reply(struct fake_http_conn *conn, int status,
		     const char *extra_headers, const void *body, size_t len);
/* A 200 with a body of `size` 'x' bytes, written in one go.  Without
 * Content-Length it says "Connection: close" and closes once written. */
void fake_http_reply_big(struct fake_http_conn *conn, size_t size,
			 int with_length);
/* Writes len bytes of data (copied) as they are; closes once written if
 * close_after. */
void fake_http_send_raw(struct fake_http_conn *conn, const void *data,
			size_t len, int close_after);
void fake_http_close(struct fake_http_conn *conn);

/* Requests on path among the first upto recorded. */
int fake_http_count(const struct fake_http_server *srv, const char *path,
		    int upto);

/* Initialises tcp on loop, binds it to 127.0.0.1 on an ephemeral port
 * (without listening) and returns the port. */
int fake_http_bind_loopback(uv_loop_t *loop, uv_tcp_t *tcp);

#endif
