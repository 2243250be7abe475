/* adapters/httpd: prefix routes and what their handler is told, the headers
 * on every answer, the paths and methods refused, event streams (publish,
 * close, keep-alive, the viewer that does not read), the rate limit and the
 * caps.  Real sockets on 127.0.0.1; the test's client sockets are
 * non-blocking and the loop is turned while they wait. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "adapters/httpd.h"
#include "util/buf.h"

#define EVENT_TOPIC "g:42"

static uv_loop_t loop;
static struct httpd *srv;
static int gone;
static int calls;		/* prefix handler calls */
/* when set, the requests' X-Forwarded-For (with trust_proxy: a client
 * other than this loopback one, which is not limited per address) */
static const char *as_client;
static char seen_path[2048], seen_rest[2048], seen_query[1100], seen_peer[64];

static void on_page(void *ctx, const struct httpd_request *rq, struct httpd_response *rs)
{
	calls++;
	snprintf(seen_path, sizeof(seen_path), "%s", rq->path);
	snprintf(seen_rest, sizeof(seen_rest), "%s", rq->rest);
	snprintf(seen_query, sizeof(seen_query), "%s", rq->query);
	snprintf(seen_peer, sizeof(seen_peer), "%s", rq->peer);
	if (!strcmp(rq->rest, "abc/events")) {
		rs->stream = EVENT_TOPIC;
		rs->type = "text/event-stream";
		buf_addstr(&rs->body, "retry: 5000\n\n");
	} else if (!strcmp(rq->rest, "cached")) {
		rs->cache_seconds = 3600;
		buf_addstr(&rs->body, "cached body");
	} else {
		rs->type = "text/html; charset=utf-8";
		buf_printf(&rs->body, "page %s", rq->rest);
	}
}

static void on_health(void *ctx, struct httpd_response *rs)
{
	buf_addstr(&rs->body, "ok\n");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void pump(int ms)
{
	double end = now_ms() + ms;

	do {
		uv_run(&loop, UV_RUN_NOWAIT);
		usleep(500);
	} while (now_ms() < end);
}

/* No limit but the connections' unless a test says so. */
static void limits(unsigned burst, unsigned per_second, unsigned per_addr, unsigned max_conns)
{
	struct httpd_limits l;

	httpd_default_limits(&l);
	/* a viewer's close is seen at its next keep-alive */
	l.keepalive_ms = 100;
	l.burst = burst;
	l.per_second = per_second;
	l.streams_per_addr = per_addr;
	l.max_conns = max_conns;
	l.trust_proxy = 1;
	httpd_set_limits(srv, &l);
}

static int setup(void **state)
{
	struct buf err = BUF_INIT;

	assert_int_equal(uv_loop_init(&loop), 0);
	srv = httpd_new(&loop, "127.0.0.1:0", 0, &gone, &err);
	assert_non_null(srv);
	buf_release(&err);
	assert_int_equal(httpd_route(srv, "/healthz", on_health, NULL), 0);
	assert_int_equal(httpd_route_prefix(srv, "/g/", on_page, NULL), 0);
	limits(1000, 0, 1000, HTTPD_MAX_CONNS);
	calls = 0;
	as_client = NULL;
	return 0;
}

static int teardown(void **state)
{
	double end = now_ms() + 5000;

	httpd_free(srv);
	while (!gone && now_ms() < end)
		uv_run(&loop, UV_RUN_NOWAIT);
	assert_true(gone);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
	return 0;
}

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	a.sin_port = htons((uint16_t)httpd_port(srv));
	a.sin_addr.s_addr = htonl(0x7f000001);
	/* the kernel completes it from the listen backlog: no loop needed */
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

static void say(int fd, const char *s)
{
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

/* Reads into out while the loop turns, until want is in it (when not
 * NULL), the peer closes, or ms pass; 1 when the peer closed. */
static int hear(int fd, struct buf *out, const char *want, int ms)
{
	double end = now_ms() + ms;
	char b[65536];
	ssize_t n;

	while (now_ms() < end) {
		uv_run(&loop, UV_RUN_NOWAIT);
		n = read(fd, b, sizeof(b));
		if (n > 0) {
			buf_add(out, b, (size_t)n);
			if (want && strstr(buf_str(out), want))
				return 0;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return 1;
		usleep(300);
	}
	return 0;
}

/* One request on its own connection; the whole answer into out, its
 * status returned (0: none). */
static int request(const char *method, const char *path, const char *extra, struct buf *out)
{
	char req[4096];
	int fd = dial(), status = 0;

	buf_reset(out);
	snprintf(req, sizeof(req),
		 "%s %s HTTP/1.1\r\nHost: x\r\n%s%s%s%sConnection: close\r\n\r\n", method,
		 path, extra ? extra : "", as_client ? "X-Forwarded-For: " : "",
		 as_client ? as_client : "", as_client ? "\r\n" : "");
	say(fd, req);
	assert_int_equal(hear(fd, out, NULL, 3000), 1);
	close(fd);
	sscanf(buf_str(out), "HTTP/1.1 %d", &status);
	return status;
}

static int get(const char *path, struct buf *out)
{
	return request("GET", path, NULL, out);
}

static const char csp[] =
	"content-security-policy: default-src 'none'; script-src 'self'; style-src 'self'; "
	"img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
	"frame-ancestors 'none'\r\n";

static void assert_safe_headers(const char *answer)
{
	const char *end = strstr(answer, "\r\n\r\n");

	assert_non_null(end);
	assert_non_null(strstr(answer, csp));
	assert_non_null(strstr(answer, "referrer-policy: no-referrer\r\n"));
	assert_non_null(strstr(answer, "x-content-type-options: nosniff\r\n"));
	assert_non_null(strstr(answer, "x-robots-tag: noindex, nofollow\r\n"));
	assert_null(strstr(answer, "set-cookie"));
	assert_null(strstr(answer, "Set-Cookie"));
}

static void test_prefix_route_request(void **state)
{
	struct buf out = BUF_INIT;

	assert_int_equal(get("/g/abc/state.json?at=3", &out), 200);
	assert_non_null(strstr(buf_str(&out), "\r\n\r\npage abc/state.json"));
	assert_string_equal(seen_path, "/g/abc/state.json");
	assert_string_equal(seen_rest, "abc/state.json");
	assert_string_equal(seen_query, "at=3");
	assert_string_equal(seen_peer, "127.0.0.1");
	assert_int_equal(get("/g/abc/board.png?at=3&x=y", &out), 200);
	assert_string_equal(seen_query, "at=3&x=y");
	assert_int_equal(get("/g/abc?a=%41&b=c+d", &out), 200);
	/* lws decodes each part (the contract said raw: lws keeps no raw copy) */
	assert_string_equal(seen_query, "a=A&b=c d");
	assert_int_equal(get("/g/abc", &out), 200);
	assert_string_equal(seen_query, "");
	assert_string_equal(seen_rest, "abc");
	/* the exact routes answer as before, the rest is 404 */
	assert_int_equal(get("/healthz", &out), 200);
	assert_int_equal(get("/gx", &out), 404);
	assert_int_equal(get("/", &out), 404);
	assert_int_equal(calls, 4);
	buf_release(&out);
}

static void test_headers_on_every_answer(void **state)
{
	struct buf out = BUF_INIT;

	assert_int_equal(get("/g/abc", &out), 200);
	assert_safe_headers(buf_str(&out));
	assert_non_null(strstr(buf_str(&out), "cache-control: no-store\r\n"));
	assert_int_equal(get("/g/cached", &out), 200);
	assert_safe_headers(buf_str(&out));
	assert_non_null(strstr(buf_str(&out), "cache-control: public, max-age=3600\r\n"));
	assert_int_equal(get("/healthz", &out), 200);
	assert_safe_headers(buf_str(&out));
	assert_int_equal(get("/nope", &out), 404);
	assert_safe_headers(buf_str(&out));
	assert_int_equal(request("POST", "/g/abc", "Content-Length: 0\r\n", &out), 405);
	assert_safe_headers(buf_str(&out));
	assert_non_null(strstr(buf_str(&out), "allow: GET, HEAD\r\n"));
	assert_int_equal(get("/g/a..b", &out), 400);
	assert_safe_headers(buf_str(&out));
	/* HEAD: the same headers, no body */
	assert_int_equal(request("HEAD", "/g/abc", NULL, &out), 200);
	assert_safe_headers(buf_str(&out));
	assert_non_null(strstr(buf_str(&out), "content-length: 8\r\n"));
	assert_null(strstr(buf_str(&out), "page abc"));
	buf_release(&out);
}

static void test_bad_paths_refused(void **state)
{
	struct buf out = BUF_INIT;
	char path[1200];

	/* a ".." that lws leaves (it folds "/../" segments itself) */
	assert_int_equal(get("/g/abc/..", &out) == 200 ? 0 : 1, 1);
	assert_int_equal(get("/g/a..b/state.json", &out), 400);
	assert_int_equal(get("/g/%2e%2e/x", &out) == 200 && strstr(seen_path, "..") ? 0 : 1, 1);
	assert_int_equal(get("/g/a%01b", &out), 400);
	assert_int_equal(get("/g/a%7fb", &out), 400);
	/* a NUL inside: lws refuses it or the path is refused */
	assert_true(get("/g/a%00b", &out) != 200);
	memset(path, 'a', sizeof(path) - 1);
	memcpy(path, "/g/", 3);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(get(path, &out), 414);
	assert_int_equal(calls, 0);
	/* whatever lws folds, no handler sees a ".." */
	assert_int_equal(get("/g/x/../../g/y", &out), 200);
	assert_null(strstr(seen_path, ".."));
	/* another method: 405, and the handler is not called */
	assert_int_equal(request("POST", "/g/abc", "Content-Length: 3\r\n", &out), 405);
	assert_int_equal(request("DELETE", "/g/abc", NULL, &out), 405);
	assert_int_equal(calls, 1);
	buf_release(&out);
}

/* Opens the stream of EVENT_TOPIC; its answer so far into out. */
static int open_stream(struct buf *out)
{
	char req[512];
	int fd = dial();

	buf_reset(out);
	snprintf(req, sizeof(req),
		 "GET /g/abc/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
		 "%s%s%s\r\n", as_client ? "X-Forwarded-For: " : "", as_client ? as_client : "",
		 as_client ? "\r\n" : "");
	say(fd, req);
	assert_int_equal(hear(fd, out, "retry: 5000\n\n", 3000), 0);
	return fd;
}

static void test_stream_publish_close(void **state)
{
	static const char move[] = "event: move\ndata: {\"positions\":38}\n\n";
	static const char gone_ev[] = "event: gone\ndata: {}\n\n";
	struct buf out = BUF_INIT;
	struct httpd_stats st;
	int fd = open_stream(&out);

	assert_non_null(strstr(buf_str(&out), "HTTP/1.1 200 "));
	assert_non_null(strstr(buf_str(&out), "content-type: text/event-stream\r\n"));
	assert_non_null(strstr(buf_str(&out), "cache-control: no-store\r\n"));
	assert_null(strstr(buf_str(&out), "content-length"));
	assert_safe_headers(buf_str(&out));
	httpd_stats(srv, &st);
	assert_int_equal(st.streams, 1);
	assert_int_equal(httpd_publish(srv, "g:43", move, strlen(move)), 0);
	assert_int_equal(httpd_publish(srv, EVENT_TOPIC, move, strlen(move)), 1);
	buf_reset(&out);
	assert_int_equal(hear(fd, &out, move, 3000), 0);
	assert_string_equal(buf_str(&out), move);
	/* a second viewer of the same topic gets the next one too */
	{
		struct buf out2 = BUF_INIT;
		int fd2 = open_stream(&out2);

		assert_int_equal(httpd_publish(srv, EVENT_TOPIC, "data: 2\n\n", 9), 2);
		buf_reset(&out2);
		assert_int_equal(hear(fd2, &out2, "data: 2\n\n", 3000), 0);
		close(fd2);
		buf_release(&out2);
		pump(250);
	}
	buf_reset(&out);
	assert_int_equal(hear(fd, &out, "data: 2\n\n", 3000), 0);
	httpd_stats(srv, &st);
	assert_int_equal(st.streams, 1);	/* the one that left is gone */
	httpd_close_topic(srv, EVENT_TOPIC, gone_ev);
	buf_reset(&out);
	assert_int_equal(hear(fd, &out, NULL, 3000), 1);	/* then EOF */
	assert_string_equal(buf_str(&out), gone_ev);
	close(fd);
	pump(250);
	httpd_stats(srv, &st);
	assert_int_equal(st.streams, 0);
	assert_int_equal(httpd_publish(srv, EVENT_TOPIC, move, strlen(move)), 0);
	buf_release(&out);
}

static void test_stream_keepalive_and_head(void **state)
{
	struct httpd_limits l;
	struct buf out = BUF_INIT;
	struct httpd_stats st;
	int fd;

	httpd_default_limits(&l);
	l.per_second = 0;
	l.keepalive_ms = 100;
	httpd_set_limits(srv, &l);
	fd = open_stream(&out);
	buf_reset(&out);
	assert_int_equal(hear(fd, &out, ": keepalive\n\n: keepalive\n\n", 3000), 0);
	close(fd);
	/* HEAD of a stream: the headers only, nothing subscribed */
	assert_int_equal(request("HEAD", "/g/abc/events", NULL, &out), 200);
	assert_null(strstr(buf_str(&out), "retry:"));
	pump(250);
	httpd_stats(srv, &st);
	assert_int_equal(st.streams, 0);
	buf_release(&out);
}

/* A viewer that does not read is dropped once HTTPD_STREAM_PENDING_MAX
 * bytes wait for it; the one that reads gets every event meanwhile. */
static void test_slow_reader_dropped(void **state)
{
	struct buf out = BUF_INIT, fast = BUF_INIT;
	struct httpd_limits l;
	struct httpd_stats st;
	char ev[4096];
	int small = 4096, slow, quick, i, sent = 0, got = 0;
	size_t n;

	memset(ev, 'x', sizeof(ev));
	memcpy(ev, "data: ", 6);
	ev[sizeof(ev) - 2] = ev[sizeof(ev) - 1] = '\n';
	/* no keep-alive in the count */
	httpd_default_limits(&l);
	l.per_second = 0;
	httpd_set_limits(srv, &l);
	slow = open_stream(&out);
	setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	quick = open_stream(&fast);
	buf_release(&fast);
	buf_init(&fast, (size_t)256 << 20);
	for (i = 0; i < 20000; i++) {
		n = httpd_publish(srv, EVENT_TOPIC, ev, sizeof(ev));
		sent++;
		buf_reset(&fast);
		hear(quick, &fast, NULL, 1);
		got += (int)fast.len;
		httpd_stats(srv, &st);
		if (st.streams_dropped)
			break;
		assert_int_equal(n, 2);
	}
	assert_int_equal(st.streams_dropped, 1);
	/* the slow one is closed (its kernel may take long to hand the bytes
	 * it holds to a reader with so small a window: not waited for); the
	 * quick one still gets what follows */
	pump(250);
	httpd_stats(srv, &st);
	assert_int_equal(st.streams, 1);
	assert_int_equal(httpd_publish(srv, EVENT_TOPIC, ev, sizeof(ev)), 1);
	sent++;
	buf_reset(&fast);
	while (got + (int)fast.len < sent * (int)sizeof(ev) && !hear(quick, &fast, NULL, 50))
		if (fast.len > (size_t)sent * sizeof(ev))
			break;
	assert_int_equal(got + (int)fast.len, sent * (int)sizeof(ev));
	close(slow);
	close(quick);
	buf_release(&out);
	buf_release(&fast);
}

static void test_rate_limit(void **state)
{
	struct buf out = BUF_INIT;
	int i;

	limits(5, 1, 16, HTTPD_MAX_CONNS);
	as_client = "198.51.100.9";
	for (i = 0; i < 5; i++)
		assert_int_equal(get("/g/abc", &out), 200);
	assert_int_equal(get("/g/abc", &out), 429);
	assert_non_null(strstr(buf_str(&out), "retry-after: 1\r\n"));
	assert_safe_headers(buf_str(&out));
	assert_int_equal(get("/nope", &out), 429);
	assert_int_equal(calls, 5);
	/* the operators' routes are never turned away */
	assert_int_equal(get("/healthz", &out), 200);
	/* a second later, one more */
	pump(1100);
	assert_int_equal(get("/g/abc", &out), 200);
	assert_int_equal(get("/g/abc", &out), 429);
	/* another client is not held up */
	as_client = "198.51.100.10";
	assert_int_equal(get("/g/abc", &out), 200);
	/* this machine's, untrusted: a proxy, all clients in one; not limited
	 * per address */
	as_client = NULL;
	{
		struct httpd_limits l;

		httpd_default_limits(&l);
		l.burst = 5;
		l.per_second = 1;
		l.trust_proxy = 0;
		httpd_set_limits(srv, &l);
	}
	for (i = 0; i < 10; i++)
		assert_int_equal(get("/g/abc", &out), 200);
	buf_release(&out);
}

static void test_stream_caps(void **state)
{
	struct buf out = BUF_INIT;
	struct httpd_limits l;
	struct httpd_stats st;
	int fd[3], i;

	limits(1000, 0, 2, HTTPD_MAX_CONNS);
	as_client = "198.51.100.9";
	for (i = 0; i < 2; i++)
		fd[i] = open_stream(&out);
	/* a third from the same address: refused, the two others live on */
	assert_int_equal(get("/g/abc/events", &out), 429);
	assert_non_null(strstr(buf_str(&out), "retry-after: "));
	httpd_stats(srv, &st);
	assert_int_equal(st.streams, 2);
	assert_int_equal(st.streams_refused, 1);
	assert_int_equal(httpd_publish(srv, EVENT_TOPIC, "data: 1\n\n", 9), 2);
	/* one gone, one may come again */
	close(fd[0]);
	pump(250);
	fd[2] = open_stream(&out);
	/* another client may */
	as_client = "198.51.100.10";
	fd[0] = open_stream(&out);
	/* the cap on every address's streams */
	httpd_default_limits(&l);
	l.per_second = 0;
	l.max_streams = 3;
	l.trust_proxy = 1;
	httpd_set_limits(srv, &l);
	as_client = "198.51.100.11";
	assert_int_equal(get("/g/abc/events", &out), 503);
	/* normal requests go on */
	assert_int_equal(get("/g/abc", &out), 200);
	close(fd[0]);
	close(fd[1]);
	close(fd[2]);
	buf_release(&out);
}

static void test_connection_cap(void **state)
{
	struct buf out = BUF_INIT;
	struct httpd_stats st;
	int fd[4], extra, i;

	limits(1000, 0, 16, 4);
	for (i = 0; i < 4; i++)
		fd[i] = dial();
	pump(50);
	extra = dial();
	/* turned away at once: closed without an answer */
	say(extra, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
	assert_int_equal(hear(extra, &out, NULL, 2000), 1);
	assert_int_equal(out.len, 0);
	close(extra);
	httpd_stats(srv, &st);
	assert_true(st.turned_away >= 1);
	for (i = 0; i < 4; i++)
		close(fd[i]);
	pump(50);
	assert_int_equal(get("/healthz", &out), 200);
	buf_release(&out);
}

static void test_forwarded_for(void **state)
{
	struct httpd_limits l;
	struct buf out = BUF_INIT;

	/* not trusted: the peer */
	httpd_default_limits(&l);
	l.per_second = 0;
	l.trust_proxy = 0;
	httpd_set_limits(srv, &l);
	assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: 203.0.113.7\r\n", &out), 200);
	assert_string_equal(seen_peer, "127.0.0.1");
	httpd_default_limits(&l);
	l.per_second = 0;
	l.trust_proxy = 1;
	httpd_set_limits(srv, &l);
	/* trusted: the last hop, the address the proxy saw */
	assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: 10.9.9.9, 203.0.113.7\r\n",
				 &out), 200);
	assert_string_equal(seen_peer, "203.0.113.7");
	assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: 2001:db8::1\r\n", &out), 200);
	assert_string_equal(seen_peer, "2001:db8::1");
	/* not an address: the peer */
	assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: evil\r\n", &out), 200);
	assert_string_equal(seen_peer, "127.0.0.1");
	assert_int_equal(request("GET", "/g/a", NULL, &out), 200);
	assert_string_equal(seen_peer, "127.0.0.1");
	/* each forwarded client has its own bucket */
	l.burst = 2;
	l.per_second = 1;
	httpd_set_limits(srv, &l);
	for (int i = 0; i < 2; i++)
		assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: 198.51.100.1\r\n", &out),
				 200);
	assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: 198.51.100.1\r\n", &out), 429);
	assert_int_equal(request("GET", "/g/a", "X-Forwarded-For: 198.51.100.2\r\n", &out), 200);
	buf_release(&out);
}

static void test_route_table(void **state)
{
	assert_int_equal(httpd_route_prefix(srv, "/static", on_page, NULL), -1);
	assert_int_equal(httpd_route_prefix(srv, "static/", on_page, NULL), -1);
	assert_int_equal(httpd_route_prefix(srv, "/static/", on_page, NULL), 0);
	assert_int_equal(httpd_route(srv, "x", on_health, NULL), -1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_prefix_route_request),
		T(test_headers_on_every_answer),
		T(test_bad_paths_refused),
		T(test_stream_publish_close),
		T(test_stream_keepalive_and_head),
		T(test_slow_reader_dropped),
		T(test_rate_limit),
		T(test_stream_caps),
		T(test_connection_cap),
		T(test_forwarded_for),
		T(test_route_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
