/*
 * Start-up time to ready with BENCH_STARTUP_SESSIONS (default 100,000) open
 * sessions stored: what bot/main.c does before its loop runs (store open,
 * session_mgr_init, session_mgr_flush_outbox, session_mgr_load_open), on a
 * temporary store whose sessions are copies of one real session (made
 * through the manager, then copied in SQL in one transaction).  Two stores:
 * Fortuna games in play (3 seats: 1 human, 2 AI; BENCH_STARTUP_MOVES, default 8, human moves in) and lobbies.
 *   startup.100k.active.ready   ms
 *   startup.100k.active.rss     MB (after loading)
 *   startup.100k.lobby.ready    ms
 * BENCH_STARTUP_PARTS=1 also times the parts of load_open one by one
 * (stderr): iterating sessions_open, reading the action logs, parsing and
 * loading the snapshots.
 */
#include "bench/bench_common.h"

/* The parts of load_open, timed one by one after it (diagnostics). */
struct parts {
	struct store *store;
	int mode;		/* 0 iterate, 1 + read the actions, 2 + parse and load the state */
	long actions;
};

static int count_one(void *ctx, const struct action_rec *a)
{
	((struct parts *)ctx)->actions++;
	return 0;
}

static int part_one(void *ctx, const struct session_rec *rec)
{
	struct parts *p = ctx;
	struct buf err = BUF_INIT;

	if (p->mode >= 1)
		store_actions(p->store, rec->id, 0, count_one, p, &err);
	if (p->mode >= 2 && rec->state) {
		const struct game_ops *ops = game_find(rec->game);
		json_t *j = json_loads(rec->state, 0, NULL);
		void *st = game_state_new(ops);

		if (!j || ops->load(st, j, &err))
			fprintf(stderr, "bench: state does not load\n");
		json_decref(j);
		free(st);
	}
	buf_release(&err);
	return 0;
}

static void parts(struct store *store, const char *kind, long n)
{
	struct parts p = { .store = store };
	struct buf err = BUF_INIT;
	double t[3], t0;

	for (p.mode = 0; p.mode < 3; p.mode++) {
		p.actions = 0;
		t0 = bench_now();
		store_sessions_open(store, part_one, &p, &err);
		t[p.mode] = bench_now() - t0;
	}
	fprintf(stderr, "startup.%s: sessions_open alone %.0f ms; + reading %ld actions %.0f ms;"
		" + parsing and loading the snapshots %.0f ms\n", kind, t[0] * 1e3, p.actions,
		t[1] * 1e3, t[2] * 1e3);
	buf_release(&err);
}

static int run(long n, const char *kind, int moves)
{
	struct bench_db db;
	struct store *store;
	struct session_mgr *m;
	struct buf err = BUF_INIT;
	double t0, t1, t2, t3;
	int rc = -1;

	if (bench_db_make(&db, "startup"))
		return -1;
	t0 = bench_now();
	if (bench_make_store(db.path, n, "fortuna", 3, moves))
		goto out;
	fprintf(stderr, "startup.%s: store of %ld sessions made in %.1f s\n", kind, n,
		bench_now() - t0);
	t0 = bench_now();
	store = bench_store_open(db.path, "normal");
	if (!store)
		goto out;
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 1);
	t1 = bench_now();
	if (session_mgr_flush_outbox(m, &err))
		fprintf(stderr, "bench: outbox: %s\n", buf_str(&err));
	t2 = bench_now();
	if (session_mgr_load_open(m, &err)) {
		fprintf(stderr, "bench: load_open: %s\n", buf_str(&err));
	} else {
		t3 = bench_now();
		printf("startup.%ldk.%s.ready %.0f ms\n", n / 1000, kind, (t3 - t0) * 1e3);
		if (moves)
			printf("startup.%ldk.%s.rss %.0f MB\n", n / 1000, kind,
			       bench_rss() / 1048576.0);
		fprintf(stderr, "startup.%s: open+init %.1f ms, flush_outbox %.1f ms, "
			"load_open %.1f ms (%.1f us/session)\n", kind, (t1 - t0) * 1e3,
			(t2 - t1) * 1e3, (t3 - t2) * 1e3, (t3 - t2) * 1e6 / (double)n);
		rc = 0;
		if (bench_env("BENCH_STARTUP_PARTS", 0))
			parts(store, kind, n);
	}
	session_mgr_release(m);
	free(m);
	store_close(store);
out:
	bench_db_remove(&db);
	buf_release(&err);
	return rc;
}

int main(void)
{
	long n = (long)bench_env("BENCH_STARTUP_SESSIONS", 100000);

	if (run(n, "active", (int)bench_env("BENCH_STARTUP_MOVES", 8)) || run(n, "lobby", 0))
		return 1;
	return 0;
}
