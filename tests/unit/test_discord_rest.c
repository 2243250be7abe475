/*
 * adapters/discord/rest: the REST queue against a fake Discord on 127.0.0.1
 * (ephemeral port) running on the same loop.  Nothing else is contacted.
 * Every test runs under a guard timer: a hang fails instead of blocking.
 * Times are compared in loop time (uv_now), the clock the queue uses.
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
#include <unistd.h>
#include <uv.h>

#include "adapters/discord/rest.h"
#include "tests/support/fake_http.h"
#include "util/buf.h"
#include "util/version.h"

#define GUARD_MS 15000
#define TOKEN "SECRET.tok-123"

/* ---- the fake Discord's answers ---- */

static void fk_reply(struct fake_http_conn *fc, int status, const char *extra,
		     const char *body)
{
	char hdrs[256];

	snprintf(hdrs, sizeof(hdrs), "Content-Type: application/json\r\n%s", extra);
	fake_http_reply(fc, status, hdrs, body, strlen(body));
}

/* Requests seen so far on path (before the current one). */
static int fk_count(const struct fake_http_server *srv, const char *path, int upto)
{
	return fake_http_count(srv, path, upto);
}

static int fk_count_body(const struct fake_http_server *srv, const char *path,
			 const char *body, int upto)
{
	int i, n = 0;

	for (i = 0; i < upto && i < srv->nreq; i++)
		n += !strcmp(srv->recs[i].path, path) &&
			!strcmp(srv->recs[i].body, body);
	return n;
}

/* The request carried exactly this header line. */
static int fk_has_line(const struct fake_http_req *rec, const char *line)
{
	char want[320];

	snprintf(want, sizeof(want), "\r\n%s\r\n", line);
	return strstr(rec->head, want) != NULL;
}

/* This server answers everything 502, as a proxy does while its Discord
 * cannot be reached (scripts/discord-proxy/proxy.mjs). */
static const struct fake_http_server *fk_down_srv;

static void fk_handle(void *ctx, const struct fake_http_req *rec,
		      struct fake_http_conn *fc)
{
	const struct fake_http_server *srv = ctx;
	int idx = srv->nreq - 1, before = fk_count(srv, rec->path, idx);

	if (srv == fk_down_srv) {
		fake_http_reply(fc, 502, "", "", 0);
	} else if (!strcmp(rec->path, "/api/v10/channels/50/messages") && !before) {
		/* @discordjs/proxy's own 429: Retry-After in seconds with a
		 * fraction, no body, no scope, no bucket */
		fake_http_reply(fc, 429, "Retry-After: 0.25\r\n", "", 0);
	} else if (!strcmp(rec->path, "/api/v10/channels/2/messages") && !before) {
		fk_reply(fc, 429, "X-RateLimit-Scope: user\r\n",
			 "{\"message\": \"You are being rate limited.\", "
			 "\"retry_after\": 0.2, \"global\": false}");
	} else if ((!strcmp(rec->path, "/api/v10/channels/3/messages") && !before) ||
		   (!strcmp(rec->path, "/api/v10/channels/20/messages") &&
		    !strcmp(rec->body, "1") &&
		    !fk_count_body(srv, rec->path, "1", idx))) {
		fk_reply(fc, 502, "", "bad gateway");
	} else if (!strcmp(rec->path, "/api/v10/channels/10/messages") ||
		   !strcmp(rec->path, "/api/v10/channels/11/messages")) {
		char extra[192];

		snprintf(extra, sizeof(extra),
			 "X-RateLimit-Limit: 2\r\nX-RateLimit-Remaining: %d\r\n"
			 "X-RateLimit-Reset-After: 0.3\r\n"
			 "X-RateLimit-Bucket: abcd1234\r\n", before % 2 ? 0 : 1);
		fk_reply(fc, 200, extra, "{\"id\": \"5\"}");
	} else if (!strcmp(rec->path, "/api/v10/channels/30/messages")) {
		fk_reply(fc, 500, "", "{\"message\": \"oops\"}");
	} else if (!strcmp(rec->path, "/api/v10/channels/40/messages")) {
		/* never answers */
	} else if (!strcmp(rec->path, "/api/v10/channels/404")) {
		fk_reply(fc, 404, "", "{\"message\": \"Unknown Channel\", \"code\": 10003}");
	} else {
		fk_reply(fc, 200, "", "{\"id\": \"1\"}");
	}
}

/* ---- harness ---- */

struct t {
	uv_loop_t loop;
	uv_timer_t guard;
	int guard_fired;
	struct fake_http_server srv;
	struct discord_rest *q;
	int done;		/* callbacks so far */
};

struct result {
	struct t *t;
	int called;
	int seq;		/* t->done when called */
	long status;
	char *error;
	char *body;
	unsigned attempts;
	uint64_t at;
	int free_queue;		/* free the queue from this callback */
};

static void on_guard(uv_timer_t *g)
{
	struct t *t = g->data;

	t->guard_fired = 1;
	fprintf(stderr, "test_discord_rest: guard timer fired (hang)\n");
	uv_stop(&t->loop);
}

static struct discord_rest *q_new(struct t *t, int port, uint64_t retry_cap)
{
	char base[64];
	struct discord_rest_config cfg = {
		.token = TOKEN, .base_url = base, .timeout_ms = 5000,
		.seed = 42, .retry_cap_ms = retry_cap,
	};
	struct buf err = BUF_INIT;
	struct discord_rest *q;

	snprintf(base, sizeof(base), "http://127.0.0.1:%d/api/v10/", port);
	q = discord_rest_new(&t->loop, &cfg, &err);
	assert_non_null(q);
	buf_release(&err);
	return q;
}

static struct t *t_new(uint64_t retry_cap)
{
	struct t *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	assert_int_equal(uv_loop_init(&t->loop), 0);
	uv_timer_init(&t->loop, &t->guard);
	t->guard.data = t;
	uv_timer_start(&t->guard, on_guard, GUARD_MS, 0);
	uv_unref((uv_handle_t *)&t->guard);
	fake_http_start(&t->srv, &t->loop, fk_handle, &t->srv);
	t->q = q_new(t, t->srv.port, retry_cap);
	return t;
}

static void t_free(struct t *t)
{
	discord_rest_free(t->q);
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

static void on_tick(uv_timer_t *tm)
{
	*(int *)tm->data = 1;
}

/* Runs the loop for about ms milliseconds. */
static void run_for(struct t *t, uint64_t ms)
{
	uv_timer_t tm;
	int fired = 0;

	uv_timer_init(&t->loop, &tm);
	tm.data = &fired;
	/* from now, not from the loop's cached time: a timer already due fires
	 * before the poll, which then blocks until the guard (seen under
	 * valgrind in test_refused, where the loop had not run yet) */
	uv_update_time(&t->loop);
	uv_timer_start(&tm, on_tick, ms, 0);
	run_until(t, &fired, 1);
	uv_close((uv_handle_t *)&tm, NULL);
	uv_run(&t->loop, UV_RUN_NOWAIT);
}

static void result_release(struct result *r)
{
	free(r->error);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

static void on_done(const struct discord_rest_resp *resp, void *ctx)
{
	struct result *r = ctx;

	r->called++;
	r->seq = r->t->done++;
	r->status = resp->status;
	r->error = resp->error ? strdup(resp->error) : NULL;
	r->body = buf_detach(resp->body);
	if (!r->body)
		r->body = strdup("");
	r->attempts = resp->attempts;
	r->at = uv_now(&r->t->loop);
	if (r->free_queue) {
		discord_rest_free(r->t->q);
		r->t->q = NULL;
	}
}

static void submit(struct t *t, struct result *r, const char *method,
		   const char *path, const char *json)
{
	struct buf err = BUF_INIT;

	r->t = t;
	if (discord_rest_submit(t->q, method, path, json, on_done, r, &err))
		fail_msg("submit %s %s: %s", method, path, buf_str(&err));
	buf_release(&err);
}

static const struct fake_http_req *rec_nth(const struct t *t, const char *path, int n)
{
	int i;

	for (i = 0; i < t->srv.nreq; i++)
		if (!strcmp(t->srv.recs[i].path, path) && !n--)
			return &t->srv.recs[i];
	return NULL;
}

/* ---- tests ---- */

static void test_post(void **state)
{
	struct t *t = t_new(0);
	struct result r = { 0 }, g = { 0 }, nf = { 0 };
	static const char json[] = "{\"content\": \"h\\u00e9llo\"}";
	const struct fake_http_req *rec;

	(void)state;
	submit(t, &r, "POST", "/channels/1/messages", json);
	assert_int_equal(discord_rest_pending(t->q), 1);
	assert_int_equal(r.called, 0);	/* never from inside submit */
	run_until(t, &t->done, 1);
	assert_int_equal(r.called, 1);
	assert_null(r.error);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 1);
	assert_string_equal(r.body, "{\"id\": \"1\"}");
	assert_int_equal(discord_rest_pending(t->q), 0);
	assert_int_equal(t->srv.nreq, 1);
	rec = &t->srv.recs[0];
	assert_string_equal(rec->method, "POST");
	assert_string_equal(rec->path, "/api/v10/channels/1/messages");
	assert_string_equal(rec->body, json);
	assert_true(fk_has_line(rec, "Authorization: Bot " TOKEN));
	assert_true(fk_has_line(rec, "Content-Type: application/json"));
	{
		char ua[256];

		/* Discord's form: DiscordBot ($url, $versionNumber) */
		snprintf(ua, sizeof(ua), "User-Agent: DiscordBot (%s, %s)", tabula_url,
			 tabula_version);
		assert_true(fk_has_line(rec, ua));
		assert_true(!strncmp(tabula_url, "https://", 8));
		assert_true(tabula_version[0] >= '0' && tabula_version[0] <= '9');
	}

	/* A GET with a query string; a 404 is a final answer, not an error. */
	submit(t, &g, "GET", "/channels/1/messages?limit=5", NULL);
	submit(t, &nf, "GET", "/channels/404", NULL);
	run_until(t, &t->done, 3);
	assert_int_equal(g.status, 200);
	assert_null(g.error);
	assert_string_equal(t->srv.recs[1].method, "GET");
	assert_string_equal(rec_nth(t, "/api/v10/channels/1/messages?limit=5", 0)->body, "");
	assert_int_equal(nf.status, 404);
	assert_null(nf.error);
	assert_int_equal(nf.attempts, 1);
	assert_non_null(strstr(nf.body, "Unknown Channel"));
	result_release(&r);
	result_release(&g);
	result_release(&nf);
	t_free(t);
}

static void test_429_retry_after(void **state)
{
	struct t *t = t_new(0);
	struct result r = { 0 };
	const char *p = "/api/v10/channels/2/messages";

	(void)state;
	submit(t, &r, "POST", "/channels/2/messages", "{\"content\": \"x\"}");
	run_until(t, &t->done, 1);
	run_for(t, 50);		/* no second callback */
	assert_int_equal(r.called, 1);
	assert_null(r.error);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(fk_count(&t->srv, p, t->srv.nreq), 2);
	assert_true(rec_nth(t, p, 1)->at - rec_nth(t, p, 0)->at >= 200);
	assert_true(rec_nth(t, p, 1)->at - rec_nth(t, p, 0)->at < 2000);
	assert_string_equal(rec_nth(t, p, 1)->body, "{\"content\": \"x\"}");
	result_release(&r);
	t_free(t);
}

static void test_502_retry(void **state)
{
	struct t *t = t_new(0);	/* the limiter's real backoff: 250..500 ms */
	struct result r = { 0 };
	const char *p = "/api/v10/channels/3/messages";

	(void)state;
	submit(t, &r, "POST", "/channels/3/messages", "{}");
	run_until(t, &t->done, 1);
	assert_int_equal(r.called, 1);
	assert_null(r.error);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(fk_count(&t->srv, p, t->srv.nreq), 2);
	assert_true(rec_nth(t, p, 1)->at - rec_nth(t, p, 0)->at >= 250);
	result_release(&r);
	t_free(t);
}

static void test_bucket(void **state)
{
	struct t *t = t_new(0);
	struct result a[3], other = { 0 };
	const char *p10 = "/api/v10/channels/10/messages";
	const char *p11 = "/api/v10/channels/11/messages";
	uint64_t t0;
	int i;

	(void)state;
	memset(a, 0, sizeof(a));
	uv_update_time(&t->loop);
	t0 = uv_now(&t->loop);
	for (i = 0; i < 3; i++)
		submit(t, &a[i], "POST", "/channels/10/messages", "{}");
	submit(t, &other, "POST", "/channels/11/messages", "{}");
	run_until(t, &t->done, 4);
	for (i = 0; i < 3; i++) {
		assert_int_equal(a[i].status, 200);
		assert_int_equal(a[i].attempts, 1);
	}
	assert_int_equal(other.status, 200);
	/* The third on channel 10 waited for the bucket to reset ... */
	assert_true(rec_nth(t, p10, 2)->at - rec_nth(t, p10, 1)->at >= 300);
	/* ... while channel 11 went at once. */
	assert_true(rec_nth(t, p11, 0)->at - t0 < 200);
	assert_true(rec_nth(t, p11, 0)->at < rec_nth(t, p10, 2)->at);
	assert_true(other.seq < a[2].seq);
	assert_int_equal(t->srv.nreq, 4);	/* never a 429 */
	for (i = 0; i < 3; i++)
		result_release(&a[i]);
	result_release(&other);
	t_free(t);
}

#define NORDER 6

static void test_order(void **state)
{
	struct t *t = t_new(20);
	struct result r[NORDER];
	char body[NORDER][16];
	const char *p = "/api/v10/channels/20/messages";
	static const char *const want[] = { "0", "1", "1", "2", "3", "4", "5" };
	int i;

	(void)state;
	memset(r, 0, sizeof(r));
	for (i = 0; i < NORDER; i++) {
		snprintf(body[i], sizeof(body[i]), "%d", i);
		submit(t, &r[i], "POST", "/channels/20/messages", body[i]);
	}
	run_until(t, &t->done, NORDER);
	for (i = 0; i < NORDER; i++) {
		assert_int_equal(r[i].called, 1);
		assert_int_equal(r[i].seq, i);
		assert_int_equal(r[i].status, 200);
		assert_int_equal(r[i].attempts, i == 1 ? 2 : 1);
		result_release(&r[i]);
	}
	/* The 502'd "1" was retried before "2" was sent. */
	assert_int_equal(fk_count(&t->srv, p, t->srv.nreq), NORDER + 1);
	for (i = 0; i < NORDER + 1; i++)
		assert_string_equal(rec_nth(t, p, i)->body, want[i]);
	t_free(t);
}

static void test_give_up(void **state)
{
	struct t *t = t_new(20);
	struct result r = { 0 };
	const char *p = "/api/v10/channels/30/messages";

	(void)state;
	submit(t, &r, "POST", "/channels/30/messages", "{}");
	run_until(t, &t->done, 1);
	run_for(t, 100);
	assert_int_equal(r.called, 1);
	assert_int_equal(r.status, 500);
	assert_int_equal(r.attempts, 5);
	assert_non_null(r.error);
	assert_non_null(strstr(r.error, "500"));
	assert_null(strstr(r.error, TOKEN));
	assert_null(strstr(r.error, "SECRET"));
	assert_string_equal(r.body, "{\"message\": \"oops\"}");
	assert_int_equal(fk_count(&t->srv, p, t->srv.nreq), 5);
	assert_int_equal(discord_rest_pending(t->q), 0);
	result_release(&r);
	t_free(t);
}

/* What on_down told, in order. */
struct downs {
	int n;
	int v[8];
};

static void on_down(void *ctx, int down)
{
	struct downs *d = ctx;

	if (d->n < 8)
		d->v[d->n] = down;
	d->n++;
}

static struct discord_rest *q_new_cfg(struct t *t, const char *base, uint64_t retry_cap,
				      int proxy, const char *direct, struct downs *downs)
{
	struct discord_rest_config cfg = {
		.token = TOKEN, .base_url = base, .timeout_ms = 5000, .seed = 42,
		.retry_cap_ms = retry_cap, .proxy = proxy, .direct_url = direct,
		.on_down = on_down, .ctx = downs,
	};
	struct buf err = BUF_INIT;
	struct discord_rest *q = discord_rest_new(&t->loop, &cfg, &err);

	if (!q)
		fail_msg("discord_rest_new: %s", buf_str(&err));
	buf_release(&err);
	return q;
}

/* Connections refused: after DISCORD_REST_DOWN_AFTER failures the queue is
 * down, and the request is not given up however often it fails (it waits
 * for Discord, or the proxy, to come back). */
static void test_unreachable_waits(void **state)
{
	struct t *t = t_new(20);
	struct result r = { 0 };
	struct downs downs = { 0 };
	uv_tcp_t closed;
	char base[64];
	int port;

	(void)state;
	/* Bound but not listening: every connect is refused. */
	port = fake_http_bind_loopback(&t->loop, &closed);
	discord_rest_free(t->q);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d/api/v10", port);
	t->q = q_new_cfg(t, base, 20, 0, NULL, &downs);
	submit(t, &r, "DELETE", "/channels/1/messages/2", NULL);
	assert_int_equal(discord_rest_down(t->q), 0);
	while (discord_rest_stats(t->q)->failures < 8 && !t->guard_fired)
		uv_run(&t->loop, UV_RUN_ONCE);
	assert_int_equal(r.called, 0);		/* not given up after 5 */
	assert_int_equal(discord_rest_down(t->q), 1);
	assert_int_equal(downs.n, 1);
	assert_int_equal(downs.v[0], 1);
	assert_int_equal(discord_rest_pending(t->q), 1);
	uv_close((uv_handle_t *)&closed, NULL);
	result_release(&r);
	t_free(t);		/* freed with the request still waiting */
	assert_int_equal(r.called, 0);
}

/* A proxy whose Discord is unreachable answers 502: the queue goes down,
 * probes one request at a time at the retry delay, gives nothing up, and
 * when answers come back sends everything, lanes in order. */
static void test_down_and_back(void **state)
{
	struct t *t = t_new(100);
	struct result r[5];
	struct downs downs = { 0 };
	char base[64];
	int i, seen;

	(void)state;
	memset(r, 0, sizeof(r));
	discord_rest_free(t->q);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d/api/v10", t->srv.port);
	t->q = q_new_cfg(t, base, 100, 1, NULL, &downs);
	fk_down_srv = &t->srv;
	for (i = 0; i < 3; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/channels/%d/messages", 60 + i);
		submit(t, &r[i], "POST", path, "{}");
	}
	submit(t, &r[3], "POST", "/channels/60/messages", "{\"n\": 2}");
	submit(t, &r[4], "POST", "/channels/60/messages", "{\"n\": 3}");
	while (!discord_rest_down(t->q) && !t->guard_fired)
		uv_run(&t->loop, UV_RUN_ONCE);
	assert_int_equal(downs.n, 1);
	seen = t->srv.nreq;
	assert_true(seen >= 3 && seen <= 4);	/* the three lanes' heads, maybe one more */
	run_for(t, 1000);
	/* one probe per 100 ms (the capped delay), not a storm */
	assert_true(t->srv.nreq - seen >= 5);
	assert_true(t->srv.nreq - seen <= 12);
	for (i = 0; i < 5; i++)
		assert_int_equal(r[i].called, 0);
	assert_int_equal(discord_rest_pending(t->q), 5);

	fk_down_srv = NULL;	/* Discord answers again */
	run_until(t, &t->done, 5);
	assert_int_equal(discord_rest_down(t->q), 0);
	assert_int_equal(downs.n, 2);
	assert_int_equal(downs.v[1], 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(r[i].status, 200);
		assert_null(r[i].error);
	}
	/* channel 60's three in order */
	assert_true(r[0].seq < r[3].seq && r[3].seq < r[4].seq);
	assert_true(discord_rest_stats(t->q)->failures >= 8);
	for (i = 0; i < 5; i++)
		result_release(&r[i]);
	t_free(t);
}

/* A 429 of the proxy's own (Retry-After: 0.25, nothing else): waited for,
 * then sent again; counted as a wait and a 429. */
static void test_proxy_429(void **state)
{
	struct t *t = t_new(0);
	struct result r = { 0 };
	const char *p = "/api/v10/channels/50/messages";

	(void)state;
	submit(t, &r, "POST", "/channels/50/messages", "{}");
	run_until(t, &t->done, 1);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_true(rec_nth(t, p, 1)->at - rec_nth(t, p, 0)->at >= 250);
	assert_true(rec_nth(t, p, 1)->at - rec_nth(t, p, 0)->at < 1500);
	assert_int_equal(discord_rest_stats(t->q)->answers_429, 1);
	assert_true(discord_rest_stats(t->q)->waits >= 1);
	assert_int_equal(discord_rest_down(t->q), 0);
	result_release(&r);
	t_free(t);
}

/* Through a proxy, interaction callbacks go to the direct URL: answered
 * while the proxy's side is down, and not held by its down state. */
static void test_callbacks_around_the_proxy(void **state)
{
	struct t *t = t_new(50);
	struct fake_http_server direct;
	struct result cb = { 0 }, msg = { 0 }, msg2 = { 0 }, cb2 = { 0 };
	struct downs downs = { 0 };
	char base[64], dbase[64];

	(void)state;
	fake_http_start(&direct, &t->loop, fk_handle, &direct);
	discord_rest_free(t->q);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d/api/v10", t->srv.port);
	snprintf(dbase, sizeof(dbase), "http://127.0.0.1:%d/api/v10", direct.port);
	t->q = q_new_cfg(t, base, 50, 1, dbase, &downs);
	submit(t, &msg, "POST", "/channels/1/messages", "{}");
	submit(t, &cb, "POST", "/interactions/77/itok/callback", "{\"type\": 4}");
	run_until(t, &t->done, 2);
	assert_int_equal(t->srv.nreq, 1);
	assert_string_equal(t->srv.recs[0].path, "/api/v10/channels/1/messages");
	assert_int_equal(direct.nreq, 1);
	assert_string_equal(direct.recs[0].path, "/api/v10/interactions/77/itok/callback");
	assert_true(fk_has_line(&direct.recs[0], "Authorization: Bot " TOKEN));

	fk_down_srv = &t->srv;		/* the proxy's Discord is out of reach */
	submit(t, &msg2, "POST", "/channels/1/messages", "{}");
	while (!discord_rest_down(t->q) && !t->guard_fired)
		uv_run(&t->loop, UV_RUN_ONCE);
	submit(t, &cb2, "POST", "/interactions/78/itok2/callback", "{\"type\": 4}");
	run_until(t, &t->done, 3);
	assert_int_equal(cb2.status, 200);	/* answered while down */
	assert_int_equal(msg2.called, 0);
	assert_int_equal(discord_rest_down(t->q), 1);
	fk_down_srv = NULL;
	run_until(t, &t->done, 4);
	assert_int_equal(msg2.status, 200);
	result_release(&cb);
	result_release(&msg);
	result_release(&cb2);
	result_release(&msg2);
	fake_http_stop(&direct);
	t_free(t);
}

/* A proxy on a Unix socket: unix:/path, the requests' paths under /api/v10. */
static void test_unix_socket(void **state)
{
	struct t *t = t_new(0);
	struct fake_http_server sock;
	struct result r = { 0 };
	char path[64], base[80];

	(void)state;
	snprintf(path, sizeof(path), "/tmp/tabula-test-rest-%d.sock", (int)getpid());
	fake_http_start_unix(&sock, &t->loop, path, fk_handle, &sock);
	discord_rest_free(t->q);
	snprintf(base, sizeof(base), "unix:%s", path);
	t->q = q_new_cfg(t, base, 0, 1, NULL, NULL);
	submit(t, &r, "POST", "/channels/1/messages", "{}");
	run_until(t, &t->done, 1);
	assert_int_equal(r.status, 200);
	assert_int_equal(sock.nreq, 1);
	assert_string_equal(sock.recs[0].path, "/api/v10/channels/1/messages");
	assert_true(fk_has_line(&sock.recs[0], "Authorization: Bot " TOKEN));
	result_release(&r);
	fake_http_stop(&sock);
	t_free(t);
	unlink(path);
}

/* Which base URLs a queue takes, with and without proxy. */
static void test_proxy_urls(void **state)
{
	static const char *const with_proxy_only[] = {
		"http://10.1.2.3:8080/api/v10", "http://172.16.0.9/api/v10",
		"http://172.31.255.1/api/v10", "http://192.168.1.20:80/api/v10",
		"http://[fd12:3456::1]:8080/api/v10", "http://[::ffff:10.0.0.1]/api/v10",
		"http://discord-proxy:8080/api/v10", "unix:/run/tabula/proxy.sock",
		"unix:///run/tabula/proxy.sock",
	};
	static const char *const never[] = {
		"http://8.8.8.8/api/v10", "http://172.32.0.1/api/v10", "http://11.0.0.1/",
		"http://[2001:db8::1]/api/v10", "http://[fe80::1]/", "http://169.254.0.1/",
		"http://[::ffff:8.8.8.8]/", "http://192.169.0.1/", "ftp://10.0.0.1/",
		"unix:relative.sock", "http://u:p@10.0.0.1/",
	};
	struct t *t = t_new(0);
	struct discord_rest_config cfg = { .token = TOKEN };
	struct buf err = BUF_INIT;
	struct discord_rest *q;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(with_proxy_only) / sizeof(with_proxy_only[0]); i++) {
		cfg.base_url = with_proxy_only[i];
		cfg.proxy = 0;
		buf_reset(&err);
		q = discord_rest_new(&t->loop, &cfg, &err);
		if (q)
			fail_msg("took %s without proxy", with_proxy_only[i]);
		cfg.proxy = 1;
		q = discord_rest_new(&t->loop, &cfg, &err);
		if (!q)
			fail_msg("refused %s with proxy: %s", with_proxy_only[i], buf_str(&err));
		discord_rest_free(q);
	}
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		cfg.base_url = never[i];
		cfg.proxy = 1;
		buf_reset(&err);
		q = discord_rest_new(&t->loop, &cfg, &err);
		if (q)
			fail_msg("took %s with proxy", never[i]);
		assert_true(err.len > 0);
	}
	/* the direct URL is held to the plain rules */
	cfg.base_url = "http://10.0.0.1/api/v10";
	cfg.direct_url = "http://10.0.0.2/api/v10";
	assert_null(discord_rest_new(&t->loop, &cfg, &err));
	buf_release(&err);
	t_free(t);
}

static void test_free_pending(void **state)
{
	struct t *t = t_new(0);
	struct result r[5];
	int i;

	(void)state;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 3; i++)	/* one on the wire, two queued behind it */
		submit(t, &r[i], "POST", "/channels/40/messages", "{}");
	submit(t, &r[3], "POST", "/channels/2/messages", "{}");	/* 429 */
	run_until(t, &t->srv.nreq, 2);
	run_for(t, 50);		/* the 429 is in: waiting on the timer */
	submit(t, &r[4], "GET", "/channels/1/messages", NULL);	/* not sent yet */
	assert_int_equal(discord_rest_pending(t->q), 5);
	discord_rest_free(t->q);
	t->q = NULL;
	t_free(t);		/* runs the loop dry: no callback may come */
	for (i = 0; i < 5; i++)
		assert_int_equal(r[i].called, 0);
}

static void test_free_from_callback(void **state)
{
	struct t *t = t_new(0);
	struct result first = { .free_queue = 1 }, rest[3];
	int i;

	(void)state;
	memset(rest, 0, sizeof(rest));
	for (i = 0; i < 2; i++)
		submit(t, &rest[i], "POST", "/channels/40/messages", "{}");
	submit(t, &first, "POST", "/channels/1/messages", "{}");
	submit(t, &rest[2], "POST", "/channels/1/messages", "{}");
	run_until(t, &t->done, 1);
	assert_null(t->q);
	assert_int_equal(first.status, 200);
	t_free(t);
	for (i = 0; i < 3; i++)
		assert_int_equal(rest[i].called, 0);
	result_release(&first);
}

/* A bounded queue: past max_pending a submit fails at once, the callback
 * never runs, and room comes back as answers arrive. */
static void test_queue_full(void **state)
{
	struct t *t = t_new(0);
	struct result r[3] = { { 0 } }, late = { 0 };
	struct discord_rest_config cfg = {
		.token = TOKEN, .timeout_ms = 5000, .seed = 1, .max_pending = 3,
	};
	struct buf err = BUF_INIT;
	char base[64];
	int i;

	(void)state;
	discord_rest_free(t->q);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d/api/v10", t->srv.port);
	cfg.base_url = base;
	t->q = discord_rest_new(&t->loop, &cfg, &err);
	assert_non_null(t->q);
	for (i = 0; i < 3; i++)
		submit(t, &r[i], "POST", "/channels/1/messages", "{}");
	late.t = t;
	assert_int_equal(discord_rest_submit(t->q, "POST", "/channels/2/messages", "{}",
					     on_done, &late, &err), -1);
	assert_non_null(strstr(buf_str(&err), "full"));
	assert_int_equal(discord_rest_pending(t->q), 3);
	run_until(t, &t->done, 3);
	assert_int_equal(late.called, 0);
	assert_int_equal(discord_rest_pending(t->q), 0);
	submit(t, &late, "POST", "/channels/2/messages", "{}");
	run_until(t, &t->done, 4);
	assert_int_equal(late.status, 200);
	for (i = 0; i < 3; i++)
		result_release(&r[i]);
	result_release(&late);
	buf_release(&err);
	t_free(t);
}

static void test_refused(void **state)
{
	struct t *t = t_new(0);
	struct result r = { 0 };
	struct buf err = BUF_INIT;
	struct discord_rest_config cfg = { .token = TOKEN "\r\nX-Evil: 1" };
	static const char *const bad_paths[] = {
		"channels/1/messages", "/channels/1/mess ages",
		"/channels/1/messages\r\nX: y", "",
	};
	size_t i;

	(void)state;
	assert_null(discord_rest_new(&t->loop, &cfg, &err));
	assert_true(err.len > 0);
	assert_null(strstr(buf_str(&err), "SECRET"));
	cfg.token = "";
	assert_null(discord_rest_new(&t->loop, &cfg, &err));
	cfg.token = NULL;
	assert_null(discord_rest_new(&t->loop, &cfg, &err));
	cfg.token = TOKEN;
	cfg.base_url = "http://example.com/api/v10";
	assert_null(discord_rest_new(&t->loop, &cfg, &err));
	assert_non_null(strstr(buf_str(&err), "loopback"));
	assert_null(strstr(buf_str(&err), "SECRET"));

	r.t = t;
	for (i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++) {
		buf_reset(&err);
		assert_int_equal(discord_rest_submit(t->q, "POST", bad_paths[i],
						     "{}", on_done, &r, &err), -1);
		assert_true(err.len > 0);
		assert_null(strstr(buf_str(&err), "SECRET"));
	}
	assert_int_equal(discord_rest_submit(t->q, "post", "/channels/1/messages",
					     NULL, on_done, &r, &err), -1);
	assert_int_equal(discord_rest_submit(t->q, NULL, "/channels/1/messages",
					     NULL, on_done, &r, &err), -1);
	assert_int_equal(discord_rest_pending(t->q), 0);
	run_for(t, 20);
	assert_int_equal(r.called, 0);
	assert_int_equal(t->srv.nreq, 0);
	buf_release(&err);
	t_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_post),
		cmocka_unit_test(test_429_retry_after),
		cmocka_unit_test(test_502_retry),
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_give_up),
		cmocka_unit_test(test_unreachable_waits),
		cmocka_unit_test(test_down_and_back),
		cmocka_unit_test(test_proxy_429),
		cmocka_unit_test(test_callbacks_around_the_proxy),
		cmocka_unit_test(test_unix_socket),
		cmocka_unit_test(test_proxy_urls),
		cmocka_unit_test(test_free_pending),
		cmocka_unit_test(test_free_from_callback),
		cmocka_unit_test(test_queue_full),
		cmocka_unit_test(test_refused),
	};

	/* The fake server writes to sockets the client may have closed. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("discord_rest", tests, NULL, NULL);
}
