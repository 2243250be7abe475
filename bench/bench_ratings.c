/*
 * Rating reads on a full store: each backend is filled with
 * BENCH_RATING_GAMES finished games (default 100,000; two seats each) and
 * BENCH_RATING_PLAYERS players (default 10,000) rated in the whole
 * platform and in one of ten communities, 1 % of them hidden, then 1,000
 * leaderboard reads (top 10, at least 5 games, a random scope) and 1,000
 * player_ratings reads (a random player's rows) are timed one by one.
 * The fill is the store's own import (--migrate-store) from a generator,
 * so it is one transaction.  SQLite (a file, synchronous=NORMAL) and
 * PostgreSQL (the server TABULA_TEST_PG names: `make bench` runs one):
 *   ratings.<backend>.fill                 s
 *   ratings.<backend>.leaderboard.p50/p99  ms
 *   ratings.<backend>.player.p50/p99       ms
 */
#include "bench/bench_fill.h"

#define READS 1000
#define SCOPES FILL_SCOPES

/* ---- the reads ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int count_row(void *ctx, const struct rating_rec *x)
{
	(*(long *)ctx)++;
	return 0;
}

static void report(const char *tag, const char *what, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("ratings.%s.%s.p50 %.3f ms\n", tag, what, t[n / 2] * 1e3);
	printf("ratings.%s.%s.p99 %.3f ms\n", tag, what, t[n * 99 / 100] * 1e3);
}

static int run(const char *tag, struct store *st, long games, long players)
{
	static const char *const fortuna[] = { "fortuna" };
	struct gen_store g = { .platform = "discord", .games = games, .players = players,
			       .kinds = fortuna, .nkinds = 1 };
	struct buf err = BUF_INIT;
	double *t = xcalloc(READS, sizeof(*t)), t0;
	struct rng r;
	char scope[32], who[32];
	long rows = 0;
	int i, rc = -1;

	t0 = bench_now();
	if (bench_fill(&g, st, &err)) {
		fprintf(stderr, "bench: filling %s: %s\n", tag, buf_str(&err));
		goto out;
	}
	printf("ratings.%s.fill %.1f s\n", tag, bench_now() - t0);
	rng_seed(&r, 7, 8);
	for (i = 0; i < READS; i++) {
		long s = (long)rng_below(&r, SCOPES + 1);

		snprintf(scope, sizeof(scope), s == SCOPES ? "" : "guild-%ld", s);
		t0 = bench_now();
		if (store_leaderboard(st, "discord", scope, "fortuna", 5, 10, count_row, &rows,
				      &err)) {
			fprintf(stderr, "bench: leaderboard: %s\n", buf_str(&err));
			goto out;
		}
		t[i] = bench_now() - t0;
	}
	if (rows < READS * 5) {
		fprintf(stderr, "bench: the leaderboards came back short (%ld rows)\n", rows);
		goto out;
	}
	report(tag, "leaderboard", t, READS);
	rows = 0;
	for (i = 0; i < READS; i++) {
		fill_player_key((long)rng_below(&r, (uint32_t)players), who, sizeof(who));
		t0 = bench_now();
		if (store_player_ratings(st, "discord", "", who, count_row, &rows, &err)) {
			fprintf(stderr, "bench: player_ratings: %s\n", buf_str(&err));
			goto out;
		}
		t[i] = bench_now() - t0;
	}
	if (rows != READS) {
		fprintf(stderr, "bench: %ld player rows for %d reads\n", rows, READS);
		goto out;
	}
	report(tag, "player", t, READS);
	rc = 0;
out:
	free(t);
	buf_release(&err);
	return rc;
}

int main(void)
{
	long games = (long)bench_env("BENCH_RATING_GAMES", 100000);
	long players = (long)bench_env("BENCH_RATING_PLAYERS", 10000);
	struct bench_db db;
	struct store *st;
	struct buf err = BUF_INIT;
	char uri[512];
	int rc;

	if (games < 1 || players < 100 || bench_db_make(&db, "ratings"))
		return 1;
	st = bench_store_open(db.path, "normal");
	rc = !st || run("sqlite", st, games, players);
	store_close(st);
	bench_db_remove(&db);
	if (rc || bench_pg_schema("ratings", uri, sizeof(uri), 0))
		return 1;
	st = store_pg_open(uri, &err);
	if (!st)
		fprintf(stderr, "bench: %s\n", buf_str(&err));
	rc = !st || run("postgres", st, games, players);
	store_close(st);
	buf_release(&err);
	bench_pg_schema("ratings", uri, sizeof(uri), 1);
	return rc;
}
