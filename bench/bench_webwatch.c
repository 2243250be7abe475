/*
 * What watching the games' pages for other processes' commits costs
 * (bot/webwatch.c): BENCH_WATCH_SESSIONS active sessions (default 1,000),
 * each with 40 moves and a web link, each with an event stream open on
 * this process; then web_watch_tick() is timed (one store_web_marks read
 * of them all) when nothing changed, and when 1 % of the games moved
 * elsewhere (a session read and an event each).  PostgreSQL (the server
 * TABULA_TEST_PG names: `make bench` runs one) and SQLite (a file):
 *   webwatch.<backend>.tick.p50/p99          ms   nothing changed
 *   webwatch.<backend>.tick_moved.p50/p99    ms   1 % moved
 * The tick runs once a second while a stream is open: the figure is the
 * share of the loop it takes (1 ms = 0.1 %).
 */
#include "bench/bench_fill.h"

#include "bot/web.h"

#define MOVES 40
#define TICKS 200

static size_t events;

static size_t count_publish(void *ctx, const char *topic, const char *text, size_t len)
{
	events++;
	return 1;
}

static void count_close(void *ctx, const char *topic, const char *text)
{
}

static unsigned one_stream(void *ctx, const char *topic)
{
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *tag, const char *what, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("webwatch.%s.%s.p50 %.3f ms\n", tag, what, t[n / 2] * 1e3);
	printf("webwatch.%s.%s.p99 %.3f ms\n", tag, what, t[n * 99 / 100] * 1e3);
}

/* Session i: active, two seats, MOVES moves; its token into tok. */
static int make_session(struct store *st, long i, struct session_rec *rec, char *tok,
			struct buf *err)
{
	struct action_rec acts[MOVES];
	struct store_commit c;
	int k;

	session_rec_init(rec);
	snprintf(rec->platform, sizeof(rec->platform), "discord");
	snprintf(rec->room, sizeof(rec->room), "chan-%ld", i);
	snprintf(rec->game, sizeof(rec->game), "fortuna");
	rec->status = SESSION_ACTIVE;
	rec->seed = (uint64_t)i + 1;
	rec->nseats = 2;
	snprintf(rec->seats[0].name, sizeof(rec->seats[0].name), "ana");
	snprintf(rec->seats[1].name, sizeof(rec->seats[1].name), "ben");
	memset(acts, 0, sizeof(acts));
	for (k = 0; k < MOVES; k++) {
		acts[k].seq = k + 1;
		acts[k].seat = k % 2;
		snprintf(acts[k].move, sizeof(acts[k].move), "m%d", k);
	}
	memset(&c, 0, sizeof(c));
	rec->version++;		/* the caller's, bumped per change */
	c.session = rec;
	c.actions = acts;
	c.nactions = MOVES;
	if (store_commit(st, &c, err))
		return -1;
	return store_web_reset(st, rec->id, tok, STORE_WEB_TOKEN_MAX, err);
}

/* One more move of rec, committed as another process would. */
static int move_elsewhere(struct store *st, struct session_rec *rec, int64_t seq,
			  struct buf *err)
{
	struct action_rec a;
	struct store_commit c;

	memset(&a, 0, sizeof(a));
	a.seq = seq;
	snprintf(a.move, sizeof(a.move), "x%lld", (long long)seq);
	memset(&c, 0, sizeof(c));
	rec->version++;
	c.session = rec;
	c.actions = &a;
	c.nactions = 1;
	return store_commit(st, &c, err);
}

static int run(const char *tag, struct store *st, long n)
{
	struct session_mgr mgr;
	struct web w;
	struct session_rec *recs = xcalloc((size_t)n, sizeof(*recs));
	char tok[STORE_WEB_TOKEN_MAX], rest[STORE_WEB_TOKEN_MAX + 16];
	struct buf err = BUF_INIT;
	double *t = xcalloc(TICKS, sizeof(*t)), t0;
	struct web_answer a;
	int64_t *last = xcalloc((size_t)n, sizeof(*last));
	long i, moved = n / 100 ? n / 100 : 1;
	int k, rc = -1;

	events = 0;
	session_mgr_init(&mgr, st, 1);
	web_init(&w, &mgr);
	w.publish = count_publish;
	w.close_topic = count_close;
	w.streams = one_stream;
	w.watch_shared = 1;
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		if (make_session(st, i, &recs[i], tok, &err)) {
			fprintf(stderr, "bench: %s: %s\n", tag, buf_str(&err));
			goto out;
		}
		last[i] = MOVES;
		snprintf(rest, sizeof(rest), "%s/events", tok);
		web_answer_init(&a);
		web_game_answer(&w, rest, "", &a);
		web_answer_release(&a);
	}
	printf("webwatch.%s.fill %.1f s\n", tag, bench_now() - t0);
	if (web_watch_count(&w) != (size_t)n) {
		fprintf(stderr, "bench: %s: %zu watched of %ld\n", tag, web_watch_count(&w), n);
		goto out;
	}
	for (k = 0; k < TICKS; k++) {
		t0 = bench_now();
		web_watch_tick(&w);
		t[k] = bench_now() - t0;
	}
	if (events) {
		fprintf(stderr, "bench: %s: %zu events with nothing moved\n", tag, events);
		goto out;
	}
	report(tag, "tick", t, TICKS);
	for (k = 0; k < TICKS; k++) {
		for (i = 0; i < moved; i++) {
			long j = (k * moved + i) % n;

			if (move_elsewhere(st, &recs[j], ++last[j], &err))
				break;
		}
		t0 = bench_now();
		web_watch_tick(&w);
		t[k] = bench_now() - t0;
	}
	if (buf_str(&err)[0]) {
		fprintf(stderr, "bench: %s: %s\n", tag, buf_str(&err));
		goto out;
	}
	report(tag, "tick_moved", t, TICKS);
	printf("webwatch.%s.events %zu\n", tag, events);
	if (events != (size_t)(TICKS * moved)) {
		fprintf(stderr, "bench: %s: %zu events for %ld moves\n", tag, events,
			(long)TICKS * moved);
		goto out;
	}
	rc = 0;
out:
	web_release(&w);
	session_mgr_release(&mgr);
	for (i = 0; i < n; i++)
		session_rec_release(&recs[i]);
	free(recs);
	free(last);
	free(t);
	buf_release(&err);
	return rc;
}

int main(void)
{
	long n = (long)bench_env("BENCH_WATCH_SESSIONS", 1000);
	struct bench_db db;
	struct store *st;
	struct buf err = BUF_INIT;
	char uri[512];
	int rc;

	if (n < 1 || bench_db_make(&db, "webwatch"))
		return 1;
	st = bench_store_open(db.path, "normal");
	rc = !st || run("sqlite", st, n);
	store_close(st);
	bench_db_remove(&db);
	if (rc || bench_pg_schema("webwatch", uri, sizeof(uri), 0))
		return 1;
	st = store_pg_open(uri, &err);
	if (!st)
		fprintf(stderr, "bench: %s\n", buf_str(&err));
	rc = !st || run("postgres", st, n);
	store_close(st);
	buf_release(&err);
	bench_pg_schema("webwatch", uri, sizeof(uri), 1);
	return rc;
}
