/*
 * adapters/http: the libcurl-on-libuv client against a fake HTTP/1.1 server
 * on 127.0.0.1 (ephemeral port) running on the same loop.  Nothing else is
 * ever contacted.  Every test runs under a guard timer: a hang fails the
 * test instead of blocking.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <uv.h>

#include "adapters/http.h"
#include "tests/support/fake_http.h"
#include "util/buf.h"

#define GUARD_MS 15000
#define BIG_BYTES ((size_t)2 << 20)
#define CAP_BYTES ((size_t)1 << 20)

/* ---- the fake server's answers ---- */

static void handle(void *ctx, const struct fake_http_req *req,
		   struct fake_http_conn *fc)
{
	const char *path = req->path;

	(void)ctx;
	if (!strcmp(path, "/get")) {
		fake_http_reply(fc, 200, "X-Test: yes\r\nX-RateLimit-Remaining: 4\r\n",
				"hello", 5);
	} else if (!strcmp(path, "/echo")) {
		char extra[64];

		snprintf(extra, sizeof(extra), "X-Method: %s\r\n", req->method);
		fake_http_reply(fc, 200, extra, req->body, req->body_len);
	} else if (!strcmp(path, "/reqhead")) {
		fake_http_reply(fc, 200, "", req->head, req->head_len);
	} else if (!strcmp(path, "/429")) {
		fake_http_reply(fc, 429, "Retry-After: 7\r\nContent-Type: application/json\r\n",
				"{\"retry_after\": 7.5}", 20);
	} else if (!strcmp(path, "/502")) {
		fake_http_reply(fc, 502, "", "bad gateway", 11);
	} else if (!strcmp(path, "/big")) {
		fake_http_reply_big(fc, BIG_BYTES, 1);
	} else if (!strcmp(path, "/bigstream")) {
		fake_http_reply_big(fc, BIG_BYTES, 0);
	} else if (!strcmp(path, "/hang")) {
		/* never answers */
	} else {
		fake_http_reply(fc, 404, "", "", 0);
	}
}

/* ---- harness ---- */

struct t {
	uv_loop_t loop;
	uv_timer_t guard;
	int guard_fired;
	struct fake_http_server srv;
	struct http_client *c;
	int done;		/* callbacks so far */
};

struct result {
	struct t *t;
	int called;
	long status;
	char *error;
	int too_big;
	char *body;
	size_t body_len;
	char *retry_after;
	char *first_line;	/* raw, CRLF included */
	int nheaders;
	uint64_t elapsed_ms;
	uint64_t started;
	int free_client;	/* free the client from this callback */
	const char *expect_body;
};

static void on_guard(uv_timer_t *g)
{
	struct t *t = g->data;

	t->guard_fired = 1;
	fprintf(stderr, "test_http: guard timer fired (hang)\n");
	uv_stop(&t->loop);
}

static struct t *t_new(void)
{
	struct t *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;

	assert_non_null(t);
	assert_int_equal(uv_loop_init(&t->loop), 0);
	uv_timer_init(&t->loop, &t->guard);
	t->guard.data = t;
	uv_timer_start(&t->guard, on_guard, GUARD_MS, 0);
	uv_unref((uv_handle_t *)&t->guard);
	fake_http_start(&t->srv, &t->loop, handle, t);
	t->c = http_client_new(&t->loop, &err);
	assert_non_null(t->c);
	buf_release(&err);
	return t;
}

/* Frees the client and the server and runs the loop dry, still guarded. */
static void t_free(struct t *t)
{
	http_client_free(t->c);
	fake_http_stop(&t->srv);
	uv_run(&t->loop, UV_RUN_DEFAULT);
	assert_false(t->guard_fired);
	uv_close((uv_handle_t *)&t->guard, NULL);
	uv_run(&t->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&t->loop), 0);
	free(t);
}

static void run_until(struct t *t, const int *counter, int target)
{
	while (*counter < target && !t->guard_fired)
		if (!uv_run(&t->loop, UV_RUN_ONCE))
			break;
	assert_false(t->guard_fired);
	assert_int_equal(*counter, target);
}

static void result_release(struct result *r)
{
	free(r->error);
	free(r->body);
	free(r->retry_after);
	free(r->first_line);
	memset(r, 0, sizeof(*r));
}

static void on_done(struct http_resp *resp, void *ctx)
{
	struct result *r = ctx;
	size_t len;
	const char *v;

	r->called++;
	r->t->done++;
	r->status = resp->status;
	r->error = resp->error ? strdup(resp->error) : NULL;
	r->too_big = resp->too_big;
	r->body_len = resp->body.len;
	r->body = buf_detach(&resp->body);
	r->nheaders = (int)resp->nheaders;
	if (resp->nheaders)
		r->first_line = strdup(resp->headers[0]);
	v = http_resp_header(resp, "retry-after", &len);
	if (v)
		r->retry_after = strndup(v, len);
	r->elapsed_ms = (uv_hrtime() - r->started) / 1000000;
	if (r->free_client) {
		http_client_free(r->t->c);
		r->t->c = NULL;
	}
}

static void start(struct t *t, struct result *r, const char *method,
		  const char *path, const char *body, long timeout_ms, size_t cap)
{
	char url[128];
	static const char *const hdrs[] = {
		"Authorization: Bot secret-token",
		"Content-Type: application/json",
	};
	struct http_req req = {
		.method = method, .url = url, .headers = hdrs, .nheaders = 2,
		.body = body, .body_len = body ? strlen(body) : 0,
		.timeout_ms = timeout_ms, .max_response_bytes = cap,
	};
	struct buf err = BUF_INIT;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", t->srv.port, path);
	r->t = t;
	r->started = uv_hrtime();
	assert_int_equal(http_request(t->c, &req, on_done, r, &err), 0);
	buf_release(&err);
}

/* ---- tests ---- */

static void test_get(void **state)
{
	struct t *t = t_new();
	struct result r = { 0 };

	(void)state;
	start(t, &r, NULL, "/get", NULL, 5000, 0);
	run_until(t, &t->done, 1);
	assert_int_equal(r.called, 1);
	assert_null(r.error);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 5);
	assert_string_equal(r.body, "hello");
	assert_non_null(r.first_line);
	assert_true(!strncmp(r.first_line, "HTTP/1.1 200", 12));
	result_release(&r);

	/* Raw header lines and the request headers we sent. */
	start(t, &r, "GET", "/reqhead", NULL, 5000, 0);
	run_until(t, &t->done, 2);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "GET /reqhead HTTP/1.1\r\n"));
	assert_non_null(strstr(r.body, "\r\nAuthorization: Bot secret-token\r\n"));
	assert_null(strstr(r.body, "Expect:"));
	result_release(&r);
	t_free(t);
}

struct hdr_check {
	struct t *t;
	int called, saw_test, saw_rl, crlf;
	long status;
};

static void on_headers(struct http_resp *resp, void *ctx)
{
	struct hdr_check *h = ctx;
	size_t i, len;
	const char *v;

	h->called++;
	h->t->done++;
	h->status = resp->status;
	for (i = 0; i < resp->nheaders; i++) {
		const char *l = resp->headers[i];
		size_t n = strlen(l);

		h->crlf += n >= 2 && l[n - 2] == '\r' && l[n - 1] == '\n';
		h->saw_test += !strcmp(l, "X-Test: yes\r\n");
		h->saw_rl += !strcmp(l, "X-RateLimit-Remaining: 4\r\n");
	}
	assert_int_equal(h->crlf, (int)resp->nheaders);
	v = http_resp_header(resp, "x-ratelimit-remaining", &len);
	assert_non_null(v);
	assert_int_equal(len, 1);
	assert_int_equal(v[0], '4');
	assert_null(http_resp_header(resp, "X-Absent", &len));
}

static void test_response_headers(void **state)
{
	struct t *t = t_new();
	struct hdr_check h = { .t = t };
	char url[64];
	struct http_req req = { .url = url };
	struct buf err = BUF_INIT;

	(void)state;
	snprintf(url, sizeof(url), "http://localhost:%d/get", t->srv.port);
	assert_int_equal(http_request(t->c, &req, on_headers, &h, &err), 0);
	run_until(t, &t->done, 1);
	/* localhost may resolve to ::1 first; curl falls back to 127.0.0.1. */
	assert_int_equal(h.status, 200);
	assert_int_equal(h.saw_test, 1);
	assert_int_equal(h.saw_rl, 1);
	buf_release(&err);
	t_free(t);
}

static void test_post_echo(void **state)
{
	struct t *t = t_new();
	struct result r = { 0 };
	static const char body[] = "{\"content\": \"h\\u00e9llo\"}";

	(void)state;
	start(t, &r, "POST", "/echo", body, 5000, 0);
	run_until(t, &t->done, 1);
	assert_null(r.error);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, strlen(body));
	assert_string_equal(r.body, body);
	result_release(&r);

	/* Other methods carry bodies too; an empty body is Content-Length: 0. */
	start(t, &r, "PATCH", "/echo", "{}", 5000, 0);
	run_until(t, &t->done, 2);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{}");
	result_release(&r);
	start(t, &r, "PUT", "/echo", NULL, 5000, 0);
	run_until(t, &t->done, 3);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "");
	result_release(&r);
	t_free(t);
}

static void test_429_and_502(void **state)
{
	struct t *t = t_new();
	struct result a = { 0 }, b = { 0 };

	(void)state;
	start(t, &a, "POST", "/429", "{}", 5000, 0);
	start(t, &b, "DELETE", "/502", NULL, 5000, 0);
	run_until(t, &t->done, 2);
	/* HTTP errors are responses, not failures. */
	assert_null(a.error);
	assert_int_equal(a.status, 429);
	assert_non_null(a.retry_after);
	assert_string_equal(a.retry_after, "7");
	assert_string_equal(a.body, "{\"retry_after\": 7.5}");
	assert_null(b.error);
	assert_int_equal(b.status, 502);
	assert_string_equal(b.body, "bad gateway");
	result_release(&a);
	result_release(&b);
	t_free(t);
}

static void test_connection_refused(void **state)
{
	struct t *t = t_new();
	struct result r = { 0 };
	uv_tcp_t closed;
	char url[64];
	struct http_req req = { .url = url, .timeout_ms = 5000 };
	struct buf err = BUF_INIT;
	int port;

	(void)state;
	/* Bound but not listening: a connect gets RST. */
	port = fake_http_bind_loopback(&t->loop, &closed);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/get", port);
	r.t = t;
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), 0);
	run_until(t, &t->done, 1);
	assert_int_equal(r.status, 0);
	assert_non_null(r.error);
	assert_non_null(strstr(r.error, "http: "));
	assert_int_equal(r.body_len, 0);
	assert_int_equal(r.nheaders, 0);
	uv_close((uv_handle_t *)&closed, NULL);
	result_release(&r);
	buf_release(&err);
	t_free(t);
}

static void test_response_cap(void **state)
{
	struct t *t = t_new();
	struct result a = { 0 }, b = { 0 }, c = { 0 };

	(void)state;
	start(t, &a, "GET", "/big", NULL, 5000, CAP_BYTES);
	start(t, &b, "GET", "/bigstream", NULL, 5000, CAP_BYTES);
	start(t, &c, "GET", "/get", NULL, 5000, 5);	/* exactly the cap */
	run_until(t, &t->done, 3);
	assert_int_equal(a.status, 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, "larger than 1048576 bytes"));
	assert_true(a.too_big);
	assert_int_equal(a.body_len, 0);
	assert_int_equal(b.status, 0);
	assert_non_null(b.error);
	assert_non_null(strstr(b.error, "larger than 1048576 bytes"));
	assert_true(b.too_big);
	assert_int_equal(b.body_len, 0);
	assert_null(c.error);
	assert_false(c.too_big);
	assert_string_equal(c.body, "hello");
	result_release(&a);
	result_release(&b);
	result_release(&c);
	t_free(t);
}

static void test_timeout(void **state)
{
	struct t *t = t_new();
	struct result r = { 0 };

	(void)state;
	start(t, &r, "GET", "/hang", NULL, 300, 0);
	run_until(t, &t->done, 1);
	assert_int_equal(r.status, 0);
	assert_non_null(r.error);
	assert_string_equal(r.error, "http: timed out after 300 ms");
	assert_true(r.elapsed_ms >= 250);
	assert_true(r.elapsed_ms < 3000);
	result_release(&r);
	t_free(t);
}

#define NCONC 20

static void test_concurrent(void **state)
{
	struct t *t = t_new();
	struct result r[NCONC];
	char bodies[NCONC][32];
	int i;

	(void)state;
	memset(r, 0, sizeof(r));
	for (i = 0; i < NCONC; i++) {
		snprintf(bodies[i], sizeof(bodies[i]), "request %d", i);
		start(t, &r[i], "POST", "/echo", bodies[i], 5000, 0);
	}
	run_until(t, &t->done, NCONC);
	for (i = 0; i < NCONC; i++) {
		assert_int_equal(r[i].called, 1);
		assert_null(r[i].error);
		assert_int_equal(r[i].status, 200);
		assert_string_equal(r[i].body, bodies[i]);
		result_release(&r[i]);
	}
	t_free(t);
}

static void test_free_in_flight(void **state)
{
	struct t *t = t_new();
	struct result r[5];
	int i;

	(void)state;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 5; i++)
		start(t, &r[i], "GET", "/hang", NULL, 5000, 0);
	run_until(t, &t->srv.nreq, 5);	/* all five are on the wire */
	http_client_free(t->c);
	t->c = NULL;
	t_free(t);	/* runs the loop dry: no callback may come */
	for (i = 0; i < 5; i++)
		assert_int_equal(r[i].called, 0);
}

static void test_free_from_callback(void **state)
{
	struct t *t = t_new();
	struct result first = { .free_client = 1 }, rest[3];
	int i;

	(void)state;
	memset(rest, 0, sizeof(rest));
	for (i = 0; i < 3; i++)
		start(t, &rest[i], "GET", "/hang", NULL, 5000, 0);
	start(t, &first, "GET", "/get", NULL, 5000, 0);
	run_until(t, &t->done, 1);
	assert_null(t->c);
	assert_int_equal(first.status, 200);
	t_free(t);
	for (i = 0; i < 3; i++)
		assert_int_equal(rest[i].called, 0);
	result_release(&first);
}

static void test_request_refused(void **state)
{
	struct t *t = t_new();
	struct result r = { 0 };
	static const char *const bad_hdr[] = { "X-Evil: a\r\nHost: b" };
	struct http_req req = { .url = "http://example.com/" };
	struct buf err = BUF_INIT;

	(void)state;
	r.t = t;
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), -1);
	assert_non_null(strstr(buf_str(&err), "loopback"));
	req.url = "ws://127.0.0.1/";	/* allowed URL, but not for HTTP */
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), -1);
	req.url = "ftp://127.0.0.1/";
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), -1);
	req.url = "http://127.0.0.1:1/";
	req.headers = bad_hdr;
	req.nheaders = 1;
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), -1);
	assert_null(strstr(buf_str(&err), "Evil"));
	req.nheaders = 0;
	req.method = "get me";
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), -1);
	uv_run(&t->loop, UV_RUN_NOWAIT);
	assert_int_equal(r.called, 0);
	buf_release(&err);
	t_free(t);
}

static void test_url_allowed(void **state)
{
	static const char *const ok[] = {
		"https://discord.com/api/v10/channels/1/messages",
		"HTTPS://Example.COM",
		"wss://gateway.discord.gg/?v=10&encoding=json",
		"http://127.0.0.1:8080/x",
		"http://127.1.2.3/",
		"http://localhost/_matrix/client/versions",
		"http://LOCALHOST:8008",
		"http://[::1]:8008/x",
		"ws://127.0.0.1:9000/",
		"ws://[::1]/",
	};
	static const char *const bad[] = {
		"http://example.com/",
		"http://10.0.0.1/",
		"ws://10.0.0.1/",
		"http://128.0.0.1/",
		"http://127.0.0.1.evil.com/",
		"http://localhost.evil.com/",
		"http://127.0.0.1@evil.com/",
		"http://evil.com@127.0.0.1/",
		"https://user:pw@example.com/",
		"http://[::2]/",
		"http://[::ffff:10.0.0.1]/",
		"ftp://127.0.0.1/",
		"file:///etc/passwd",
		"gopher://localhost/",
		"garbage",
		"https://",
		"http:// 127.0.0.1/",
		"",
	};
	struct buf err = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (!http_url_allowed(ok[i], &err))
			fail_msg("refused %s: %s", ok[i], buf_str(&err));
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&err);
		if (http_url_allowed(bad[i], &err))
			fail_msg("accepted %s", bad[i]);
		assert_true(err.len > 0);
	}
	assert_int_equal(http_url_allowed(NULL, NULL), 0);
	assert_int_equal(http_url_allowed("http://example.com", NULL), 0);
	http_url_allowed("http://example.com/?access_token=SECRET", &err);
	assert_null(strstr(buf_str(&err), "SECRET"));
	assert_non_null(strstr(buf_str(&err), "loopback"));
	buf_release(&err);
}

/* http:// to private addresses, for a REST proxy named explicitly: the
 * URL's literal, and the address curl connects to. */
static void test_private_http(void **state)
{
	static const char *const ok[] = {
		"http://10.0.0.1/", "http://10.255.255.255:8080/x", "http://172.16.0.1/",
		"http://172.31.9.9/", "http://192.168.0.1/", "http://127.0.0.1:9/",
		"http://localhost/", "http://[::1]/", "http://[fc00::1]/", "http://[fdff::9]:80/",
		"http://[::ffff:192.168.1.1]/", "http://discord-proxy:8080/api/v10",
		"https://example.com/",
	};
	static const char *const bad[] = {
		"http://8.8.8.8/", "http://172.15.255.255/", "http://172.32.0.0/",
		"http://192.169.0.1/", "http://9.255.255.255/", "http://11.0.0.0/",
		"http://[fe80::1]/", "http://[2001:db8::1]/", "http://[fbff::1]/",
		"http://[::ffff:8.8.8.8]/", "http://169.254.1.1/", "http://100.64.0.1/",
		"ws://10.0.0.1/", "http://u:p@10.0.0.1/", "ftp://10.0.0.1/",
	};
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct t *t = t_new();
	struct result r = { 0 };
	struct buf err = BUF_INIT;
	char url[128];
	struct http_req req = { .url = url, .private_http = 1 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!http_url_allowed_private(ok[i], &err))
			fail_msg("refused %s: %s", ok[i], buf_str(&err));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&err);
		if (http_url_allowed_private(bad[i], &err))
			fail_msg("accepted %s", bad[i]);
		assert_true(err.len > 0);
	}
	/* without the mark, the loopback rule as before */
	assert_int_equal(http_url_allowed("http://10.0.0.1/", NULL), 0);

	/* the address connected to */
	inet_pton(AF_INET, "192.168.7.7", &a4.sin_addr);
	assert_true(http_addr_private((struct sockaddr *)&a4));
	inet_pton(AF_INET, "93.184.216.34", &a4.sin_addr);
	assert_false(http_addr_private((struct sockaddr *)&a4));
	inet_pton(AF_INET6, "fd00::5", &a6.sin6_addr);
	assert_true(http_addr_private((struct sockaddr *)&a6));
	inet_pton(AF_INET6, "::ffff:172.20.0.1", &a6.sin6_addr);
	assert_true(http_addr_private((struct sockaddr *)&a6));
	inet_pton(AF_INET6, "2606:4700::1", &a6.sin6_addr);
	assert_false(http_addr_private((struct sockaddr *)&a6));

	/* a marked request to a name that resolves to loopback goes through
	 * the connect-time check */
	snprintf(url, sizeof(url), "http://localhost:%d/get", t->srv.port);
	r.t = t;
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), 0);
	run_until(t, &t->done, 1);
	assert_null(r.error);
	assert_int_equal(r.status, 200);
	result_release(&r);
	/* a public literal is refused before anything is sent */
	snprintf(url, sizeof(url), "http://93.184.216.34/get");
	buf_reset(&err);
	assert_int_equal(http_request(t->c, &req, on_done, &r, &err), -1);
	assert_non_null(strstr(buf_str(&err), "private"));
	buf_release(&err);
	t_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_allowed),
		cmocka_unit_test(test_private_http),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_response_headers),
		cmocka_unit_test(test_post_echo),
		cmocka_unit_test(test_429_and_502),
		cmocka_unit_test(test_connection_refused),
		cmocka_unit_test(test_response_cap),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_free_in_flight),
		cmocka_unit_test(test_free_from_callback),
		cmocka_unit_test(test_request_refused),
	};

	/* The fake server writes to sockets the client may have closed. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
