/*
 * In-process command latency through the session manager
 * (session_mgr_handle), with the SQLite store in a temporary file in WAL
 * mode, for TABULA_DB_SYNC=normal and full.
 *
 * BENCH_ROOMS rooms (default 200; half Fortuna, half Glory to Rome, each
 * 2 human seats and 1 AI seat) get a random stream of commands: 3 in 4 are
 * a legal `play` of an awaited human (a uniformly random move, by its
 * canonical id; the AI seats answer inside the same command), 1 in 4 a
 * `board` or `moves` query.  A finished game is replaced by a new one
 * (those lobby commands are not timed, but count in the throughput).  The
 * latency is that of session_mgr_handle (commit included); the outbox
 * confirmations (one write each, asynchronous on a real platform) are made
 * after each command, outside the timed call but inside the throughput.
 *
 * BENCH_SESSION_SECONDS (default 3) per sync mode.  Figures:
 *   session.<sync>.play.p50|p99|max  us
 *   session.<sync>.query.p50|p99|max us
 *   session.<sync>.throughput        commands/s
 */
#include "bench/bench_common.h"

struct samples {
	double *v;
	size_t n, cap;
};

static void add_sample(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const struct samples *s, double p)
{
	size_t i = (size_t)(p * (double)(s->n - 1) + 0.5);

	return s->n ? s->v[i] : 0;
}

static void report(const char *sync, const char *what, struct samples *s)
{
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	printf("session.%s.%s.p50 %.0f us\n", sync, what, pct(s, 0.50) * 1e6);
	printf("session.%s.%s.p99 %.0f us\n", sync, what, pct(s, 0.99) * 1e6);
	printf("session.%s.%s.max %.0f us\n", sync, what, s->n ? s->v[s->n - 1] * 1e6 : 0);
	fprintf(stderr, "session.%s.%s: %zu samples\n", sync, what, s->n);
}

static const char *game_of(int room)
{
	return room % 2 ? "gtr" : "fortuna";
}

static int run(const char *sync, int nrooms, double seconds)
{
	struct bench_db db;
	struct store *store;
	struct session_mgr *m;
	struct bench_adapter *b;
	struct samples play = { 0 }, query = { 0 }, bygame[2] = { { 0 }, { 0 } };
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct rng r;
	char room[32], user[64];
	long commands = 0, failed = 0, games = 0;
	double t0, t, c0;
	int i, rc = -1;

	if (bench_db_make(&db, sync))
		return -1;
	store = bench_store_open(db.path, sync);
	if (!store)
		goto out;
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 1234);
	b = bench_adapter_new(m);
	rng_seed(&r, 99, 3);
	for (i = 0; i < nrooms; i++) {
		snprintf(room, sizeof(room), "room%d", i);
		if (!bench_open_game(m, b, room, game_of(i), 2, 1))
			goto release;
		bench_confirm(m, b);
	}
	t0 = bench_now();
	do {
		struct session *s;
		int seat, k = (int)rng_below(&r, (uint32_t)nrooms);
		int64_t seq;

		snprintf(room, sizeof(room), "room%d", k);
		s = session_mgr_find(m, "console", room, &err);
		seat = s ? bench_human_awaited(s) : -1;
		if (seat < 0) {
			if (!bench_open_game(m, b, room, game_of(k), 2, 1))
				goto release;
			bench_confirm(m, b);
			commands += 5;
			games++;
			t = bench_now() - t0;
			continue;
		}
		snprintf(user, sizeof(user), "%s", s->rec.seats[seat].user);
		if (rng_below(&r, 4) == 0) {
			const char *q = rng_below(&r, 2) ? "board" : "moves";

			c0 = bench_now();
			bench_cmd(m, b, room, user, q);
			add_sample(&query, bench_now() - c0);
		} else {
			bench_pick_play(s, seat, &r, 0, ml, &text);
			seq = s->last_seq;
			c0 = bench_now();
			bench_cmd(m, b, room, user, buf_str(&text));
			add_sample(&play, bench_now() - c0);
			add_sample(&bygame[k % 2], play.v[play.n - 1]);
			/* the command may have replaced s (finished games stay) */
			s = session_mgr_find(m, "console", room, &err);
			if (!s || s->last_seq <= seq) {
				if (failed++ < 3)
					fprintf(stderr, "bench: %s: '%s' did not apply\n", room,
						buf_str(&text));
			}
		}
		bench_confirm(m, b);
		commands++;
		t = bench_now() - t0;
	} while (t < seconds);
	for (i = 0; i < 2; i++) {
		qsort(bygame[i].v, bygame[i].n, sizeof(double), cmp_double);
		fprintf(stderr, "session.%s.play %s: p50 %.0f us, p99 %.0f us, %zu samples\n", sync,
			game_of(i), pct(&bygame[i], 0.5) * 1e6, pct(&bygame[i], 0.99) * 1e6,
			bygame[i].n);
		free(bygame[i].v);
	}
	report(sync, "play", &play);
	report(sync, "query", &query);
	printf("session.%s.throughput %.0f commands/s\n", sync, commands / t);
	fprintf(stderr, "session.%s: %d rooms, %ld commands in %.1f s, %ld new games, "
		"%ld plays not applied\n", sync, nrooms, commands, t, games, failed);
	rc = failed ? -1 : 0;
release:
	session_mgr_release(m);
	free(m);
	adapter_free(&b->base);
	store_close(store);
out:
	bench_db_remove(&db);
	free(play.v);
	free(query.v);
	free(ml);
	buf_release(&text);
	buf_release(&err);
	return rc;
}

int main(void)
{
	int nrooms = (int)bench_env("BENCH_ROOMS", 200);
	double seconds = bench_env("BENCH_SESSION_SECONDS", 3);

	if (run("normal", nrooms, seconds) || run("full", nrooms, seconds))
		return 1;
	return 0;
}
