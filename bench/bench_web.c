/*
 * The game pages' server (issue 27): adapters/httpd on its own thread
 * running a libuv loop, as in the bot, and its clients in this thread on
 * 127.0.0.1 (non-blocking sockets, one epoll):
 *
 *   web.sse.<N>viewers.latency.p50/p99  ms from httpd_publish() on the
 *                                       loop to the event read by each of
 *                                       N viewers (BENCH_WEB_VIEWERS,
 *                                       1,000) of one topic, over
 *                                       BENCH_WEB_EVENTS events (50); the
 *                                       p99 against its goal (<= 100 ms)
 *   web.sse.bytes_per_viewer            the process's RSS grown by the N
 *                                       streams, per stream (the server's
 *                                       side, and the little the bench's
 *                                       client keeps: 0 bytes per socket
 *                                       beyond the kernel's)
 *   web.page.latency.p50/p99            ms for a game's page (bot/web.c:
 *                                       the template filled), request to
 *                                       its last byte, BENCH_WEB_PAGES
 *                                       (2,000) sequential GETs on one
 *                                       keep-alive connection; the p99
 *                                       against its goal (<= 5 ms)
 *
 *   web.state.latency.p50/p99           ms for state.json at a random
 *                                       position of the same game (the
 *                                       replay cache stepping to it), the
 *                                       same way; against the page's goal
 *
 * The pages are bot/web.c's: a Glory to Rome game of AI seats played to
 * its end (seeded) in an in-memory SQLite store, its page and its
 * state.json answered by web_game_answer() as on the bot's listener.
 *
 * A goal missed is printed "MISSED"; it fails the run with BENCH_STRICT=1
 * (VM speed varies, as bench_image), and always when missed fourfold.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "bench/bench_util.h"
#include <unistd.h>
#include <fcntl.h>

#include <uv.h>

#include "adapters/httpd.h"
#include "bot/web.h"
#include "util/buf.h"

#define SSE_GOAL_MS 100.0
#define PAGE_GOAL_MS 5.0
#define TOPIC "g:1"
#define PAGE_BYTES 30000

/* ---- the server's thread ---- */

enum cmd { CMD_NONE, CMD_PUBLISH, CMD_STOP };

static uv_loop_t loop;
static uv_async_t wake;
static struct httpd *srv;
static int srv_gone;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static enum cmd pending;
static int pending_event;
static double *published;	/* when event k was handed to httpd_publish */
static size_t last_count;	/* streams the last publish reached */

/* The game whose page is asked for (game_setup). */
static struct store *store;
static struct session_mgr mgr;
static struct web web;
static char token[STORE_WEB_TOKEN_MAX];
static long npositions;

/* The page and its state.json through bot/web.c; the events stream on the
 * bench's own topic (what is measured there is httpd_publish). */
static void page_handler(void *ctx, const struct httpd_request *rq, struct httpd_response *rs)
{
	struct web_answer a;
	char rest[256];

	if (!strcmp(rq->rest, "bench/events")) {
		rs->stream = TOPIC;
		buf_addstr(&rs->body, "retry: 5000\n\n");
		return;
	}
	snprintf(rest, sizeof(rest), "%s%s", token, !strncmp(rq->rest, "bench", 5) ? rq->rest + 5 : "");
	web_answer_init(&a);
	web_game_answer(&web, rest, rq->query, &a);
	rs->status = a.status;
	rs->type = a.type;
	buf_add(&rs->body, a.body.s, a.body.len);
	web_answer_release(&a);
}

/* A finished Glory to Rome game of three AI seats in store: 0, or -1. */
static int game_setup(void)
{
	const struct game_ops *g = game_find("gtr");
	struct session_rec rec;
	struct store_commit c;
	struct action_rec *acts = NULL;
	struct buf err = BUF_INIT, id = BUF_INIT;
	struct rng r;
	void *st;
	size_t n = 0, cap = 0;
	json_t *j;
	int i, rc = -1;

	store = store_sqlite_open(":memory:", &err);
	if (!store || !g)
		goto out;
	session_mgr_init(&mgr, store, 1);
	web_init(&web, &mgr);
	session_rec_init(&rec);
	snprintf(rec.platform, sizeof(rec.platform), "console");
	snprintf(rec.room, sizeof(rec.room), "bench");
	snprintf(rec.game, sizeof(rec.game), "gtr");
	snprintf(rec.locale, sizeof(rec.locale), "en");
	snprintf(rec.settings, sizeof(rec.settings), "{\"rules\": %u}",
		 g->rules_version ? g->rules_version : 1);
	rec.seed = 27;
	rec.nseats = 3;
	rec.version = 1;
	for (i = 0; i < 3; i++) {
		snprintf(rec.seats[i].name, sizeof(rec.seats[i].name), "Player %d", i + 1);
		rec.seats[i].is_bot = 1;
	}
	st = game_state_new(g);
	rng_seed(&r, 27, 1);
	if (g->setup(st, 3, rec.seed, "", &err))
		goto out_st;
	while (g->awaiting(st)) {
		unsigned aw = g->awaiting(st);
		struct move m;
		int seat = 0;

		while (!(aw & (1u << seat)))
			seat++;
		if (g->bot_move(st, seat, &r, &m))
			goto out_st;
		buf_reset(&id);
		g->move_id(st, seat, m, &id);
		if (g->apply(st, seat, m, NULL, &err))
			goto out_st;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			acts = realloc(acts, cap * sizeof(*acts));
		}
		memset(&acts[n], 0, sizeof(acts[n]));
		acts[n].seq = (int64_t)n + 1;
		acts[n].seat = seat;
		snprintf(acts[n].move, sizeof(acts[n].move), "%s", buf_str(&id));
		n++;
	}
	rec.status = SESSION_FINISHED;
	j = g->save(st);
	rec.state = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	memset(&c, 0, sizeof(c));
	c.session = &rec;
	c.actions = acts;
	c.nactions = n;
	if (store_commit(store, &c, &err) ||
	    store_web_reset(store, rec.id, token, sizeof(token), &err))
		goto out_st;
	npositions = (long)n + 1;
	rc = 0;
out_st:
	free(st);
	free(acts);
	session_rec_release(&rec);
out:
	if (rc)
		fprintf(stderr, "bench_web: the game: %s\n", buf_str(&err));
	buf_release(&err);
	buf_release(&id);
	return rc;
}

static void game_teardown(void)
{
	web_release(&web);
	session_mgr_release(&mgr);
	if (store)
		store_close(store);
}

static void on_wake(uv_async_t *a)
{
	char ev[96];
	enum cmd c;
	int k;

	pthread_mutex_lock(&mu);
	c = pending;
	k = pending_event;
	pending = CMD_NONE;
	pthread_mutex_unlock(&mu);
	if (c == CMD_PUBLISH) {
		int n = snprintf(ev, sizeof(ev), "event: move\ndata: {\"positions\":%d}\n\n", k);
		size_t got;

		/* before: the first viewers may read it before publish returns */
		pthread_mutex_lock(&mu);
		published[k] = bench_now();
		pthread_mutex_unlock(&mu);
		got = httpd_publish(srv, TOPIC, ev, (size_t)n);
		pthread_mutex_lock(&mu);
		last_count = got;
		pthread_mutex_unlock(&mu);
	} else if (c == CMD_STOP) {
		httpd_free(srv);
		uv_close((uv_handle_t *)&wake, NULL);
	}
}

static void *serve(void *arg)
{
	uv_run(&loop, UV_RUN_DEFAULT);
	return NULL;
}

static void command(enum cmd c, int k)
{
	pthread_mutex_lock(&mu);
	pending = c;
	pending_event = k;
	pthread_mutex_unlock(&mu);
	uv_async_send(&wake);
}

/* ---- the clients ---- */

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(0x7f000001);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Prints p50 and p99 (ms) with the goal; 0 met, 1 missed, 2 fourfold. */
static int report(const char *name, double *t, size_t n, double goal)
{
	double p50, p99;

	if (!n) {
		printf("%s: no sample\n", name);
		return 2;
	}
	qsort(t, n, sizeof(*t), cmp_double);
	p50 = t[n / 2] * 1e3;
	p99 = t[n * 99 / 100] * 1e3;
	printf("%s.p50 %.3f ms\n", name, p50);
	printf("%s.p99 %.3f ms (goal <= %.0f ms: %s)\n", name, p99, goal,
	       p99 <= goal ? "met" : "MISSED");
	return p99 > 4 * goal ? 2 : p99 > goal;
}

/*
 * Each viewer's socket and what it got: the event numbers are parsed from
 * "positions":K, so an event split across reads is found once whole.
 */
struct viewer {
	int fd;
	int ready;		/* the stream's first answer is in */
	int next;		/* the next event it waits for */
	char tail[128];		/* an event's start, cut by a read */
	size_t ntail;
};

static int scan(struct viewer *v, const char *data, size_t n, double t, double *lat,
		size_t *nlat)
{
	char buf[65536 + 128], *p, *q;
	size_t len = v->ntail + n;
	int got = 0;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, v->tail, v->ntail);
	memcpy(buf + v->ntail, data, n);
	buf[len] = '\0';
	p = buf;
	if (!v->ready) {
		q = strstr(p, "retry: 5000\n\n");
		if (!q) {
			v->ntail = len < sizeof(v->tail) ? len : 0;
			memcpy(v->tail, buf, v->ntail);
			return 0;
		}
		v->ready = 1;
		p = q + 13;
	}
	while ((q = strstr(p, "\n\n"))) {
		const char *k = strstr(p, "\"positions\":");

		if (k && k < q) {
			int e = atoi(k + 12);
			double at;

			if (e == v->next) {
				pthread_mutex_lock(&mu);
				at = published[e];
				pthread_mutex_unlock(&mu);
				lat[(*nlat)++] = t - at;
				v->next++;
				got++;
			}
		}
		p = q + 2;
	}
	v->ntail = strlen(p);
	if (v->ntail >= sizeof(v->tail))
		return -1;
	memcpy(v->tail, p, v->ntail);
	return got;
}

/* Reads whatever the viewers have; returns how many events were whole. */
static int poll_viewers(int ep, struct viewer *vs, int ms, double *lat, size_t *nlat)
{
	struct epoll_event evs[256];
	char data[65536];
	int n, i, got = 0, r;
	ssize_t k;

	n = epoll_wait(ep, evs, 256, ms);
	for (i = 0; i < n; i++) {
		struct viewer *v = &vs[evs[i].data.u32];

		while ((k = read(v->fd, data, sizeof(data))) > 0) {
			r = scan(v, data, (size_t)k, bench_now(), lat, nlat);
			if (r < 0)
				return -1;
			got += r;
		}
		if (k == 0)
			return -1;	/* a stream closed */
	}
	return got;
}

static int bench_sse(int port, int nview, int nevents, double *lat, size_t *nlat,
		     double *per_viewer)
{
	struct viewer *vs = calloc((size_t)nview, sizeof(*vs));
	struct epoll_event ev = { .events = EPOLLIN };
	static const char req[] = "GET /g/bench/events HTTP/1.1\r\nHost: bench\r\n"
				  "Accept: text/event-stream\r\n\r\n";
	int ep = epoll_create1(0), i, e, ready = 0, rc = 0;
	long before = bench_rss();
	double end;

	for (i = 0; i < nview; i++) {
		vs[i].fd = dial(port);
		if (vs[i].fd < 0 || write(vs[i].fd, req, sizeof(req) - 1) != sizeof(req) - 1) {
			fprintf(stderr, "bench_web: viewer %d: %s\n", i, strerror(errno));
			rc = 1;
			goto out;
		}
		fcntl(vs[i].fd, F_SETFL, O_NONBLOCK);
		ev.data.u32 = (uint32_t)i;
		epoll_ctl(ep, EPOLL_CTL_ADD, vs[i].fd, &ev);
	}
	end = bench_now() + 30;
	while (ready < nview && bench_now() < end) {
		if (poll_viewers(ep, vs, 100, lat, nlat) < 0) {
			rc = 1;
			goto out;
		}
		for (ready = i = 0; i < nview; i++)
			ready += vs[i].ready;
	}
	if (ready < nview) {
		fprintf(stderr, "bench_web: %d of %d viewers subscribed\n", ready, nview);
		rc = 1;
		goto out;
	}
	*per_viewer = (double)(bench_rss() - before) / nview;
	for (e = 0; e < nevents; e++) {
		size_t want = *nlat + (size_t)nview;

		command(CMD_PUBLISH, e);
		end = bench_now() + 10;
		while (*nlat < want && bench_now() < end)
			if (poll_viewers(ep, vs, 100, lat, nlat) < 0) {
				rc = 1;
				goto out;
			}
		if (*nlat < want) {
			fprintf(stderr, "bench_web: event %d reached %zu of %d viewers\n", e,
				*nlat + nview - want, nview);
			rc = 1;
			goto out;
		}
		usleep(20000);	/* moves come apart, not in a burst */
	}
	pthread_mutex_lock(&mu);
	if (last_count != (size_t)nview) {
		fprintf(stderr, "bench_web: the last publish reached %zu streams\n", last_count);
		rc = 1;
	}
	pthread_mutex_unlock(&mu);
out:
	for (i = 0; i < nview; i++)
		if (vs[i].fd > 0)
			close(vs[i].fd);
	close(ep);
	free(vs);
	return rc;
}

/* One GET of path on fd (blocking), its whole answer read; 0 or -1. */
static int get_page(int fd, const char *path, char *buf, size_t bufsz)
{
	char req[256];
	int len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: bench\r\n\r\n", path);
	size_t have = 0, need = 0;
	ssize_t k;
	char *hend, *cl;

	if (write(fd, req, (size_t)len) != len)
		return -1;
	for (;;) {
		k = read(fd, buf + have, bufsz - 1 - have);
		if (k <= 0)
			return -1;
		have += (size_t)k;
		buf[have] = '\0';
		hend = strstr(buf, "\r\n\r\n");
		if (hend && !need) {
			cl = strstr(buf, "content-length: ");
			if (!cl || strncmp(buf, "HTTP/1.1 200", 12))
				return -1;
			need = (size_t)(hend + 4 - buf) + (size_t)atol(cl + 16);
		}
		if (need && have >= need)
			return have == need ? 0 : -1;
		if (have == bufsz - 1)
			return -1;
	}
}

/* n GETs of the page (json 0) or of state.json at random positions. */
static int bench_page(int port, int n, int json, double *lat)
{
	static char buf[PAGE_BYTES * 8];
	int fd = dial(port), i;
	char path[64];
	double t;

	if (fd < 0)
		return 1;
	srand(27);
	for (i = 0; i < n; i++) {
		if (json)
			snprintf(path, sizeof(path), "/g/bench/state.json?at=%ld",
				 (long)rand() % npositions);
		else
			snprintf(path, sizeof(path), "/g/bench");
		t = bench_now();
		if (get_page(fd, path, buf, sizeof(buf))) {
			fprintf(stderr, "bench_web: page %d: no whole answer\n", i);
			close(fd);
			return 1;
		}
		lat[i] = bench_now() - t;
	}
	close(fd);
	return 0;
}

int main(void)
{
	int nview = (int)bench_env("BENCH_WEB_VIEWERS", 1000), nevents = (int)bench_env("BENCH_WEB_EVENTS", 50),
	    npages = (int)bench_env("BENCH_WEB_PAGES", 2000), missed = 0, m, rc = 0;
	double *lat = calloc((size_t)nview * (size_t)nevents + 1, sizeof(double));
	double *plat = calloc((size_t)npages + 1, sizeof(double)), per_viewer = 0;
	struct httpd_limits l;
	struct buf err = BUF_INIT;
	const char *strict = getenv("BENCH_STRICT");
	size_t nlat = 0;
	pthread_t th;
	char name[64];

	published = calloc((size_t)nevents + 1, sizeof(double));
	if (game_setup())
		return 1;
	uv_loop_init(&loop);
	srv = httpd_new(&loop, "127.0.0.1:0", 0, &srv_gone, &err);
	if (!srv) {
		fprintf(stderr, "bench_web: %s\n", buf_str(&err));
		return 1;
	}
	/* one client address for all: no per-address cap or rate limit */
	httpd_default_limits(&l);
	l.per_second = 0;
	l.streams_per_addr = l.max_streams;
	httpd_set_limits(srv, &l);
	httpd_route_prefix(srv, "/g/", page_handler, NULL);
	uv_async_init(&loop, &wake, on_wake);
	pthread_create(&th, NULL, serve, NULL);

	rc |= bench_sse(httpd_port(srv), nview, nevents, lat, &nlat, &per_viewer);
	if (!rc) {
		snprintf(name, sizeof(name), "web.sse.%dviewers.latency", nview);
		m = report(name, lat, nlat, SSE_GOAL_MS);
		missed = m > missed ? m : missed;
		printf("web.sse.bytes_per_viewer %.0f\n", per_viewer);
	}
	if (!rc)
		rc |= bench_page(httpd_port(srv), npages, 0, plat);
	if (!rc) {
		m = report("web.page.latency", plat, (size_t)npages, PAGE_GOAL_MS);
		missed = m > missed ? m : missed;
	}
	if (!rc)
		rc |= bench_page(httpd_port(srv), npages, 1, plat);
	if (!rc) {
		printf("web.state.positions %ld\n", npositions);
		m = report("web.state.latency", plat, (size_t)npages, PAGE_GOAL_MS);
		missed = m > missed ? m : missed;
	}
	command(CMD_STOP, 0);
	pthread_join(th, NULL);
	uv_loop_close(&loop);
	game_teardown();
	free(lat);
	free(plat);
	free(published);
	buf_release(&err);
	if (!rc && missed) {
		int fail = missed > 1 || (strict && !strcmp(strict, "1"));

		fprintf(stderr, "web: a time goal was MISSED%s\n",
			missed > 1 ? " by more than fourfold: failing" :
			fail ? " (BENCH_STRICT=1: failing)" :
			" (BENCH_STRICT=1 makes that fail the run; docs/performance.md)");
		rc = fail;
	}
	return rc;
}
