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
#include <libpq-fe.h>

#include "bench/bench_common.h"
#include "util/rng.h"

#define READS 1000
#define SCOPES 10

/* ---- a store that only dumps: the generated records ---- */

struct gen_store {
	struct store base;
	long games, players;
};

static void player_key(long i, char *out, size_t n)
{
	snprintf(out, n, "u-%06ld", i);
}

static int gen_results(const struct gen_store *g, store_item_cb cb, void *ctx)
{
	struct store_item it = { .kind = STORE_ITEM_RESULT };
	struct result_rec r;
	long i;
	int k;

	memset(&r, 0, sizeof(r));
	snprintf(r.platform, sizeof(r.platform), "discord");
	snprintf(r.game, sizeof(r.game), "fortuna");
	r.nseats = 2;
	r.rated = 1;
	it.result = &r;
	for (i = 0; i < g->games; i++) {
		r.session = i + 1;
		snprintf(r.room, sizeof(r.room), "chan-%ld", i % 500);
		snprintf(r.community, sizeof(r.community), "guild-%ld", i % SCOPES);
		r.created = 1700000000 + i * 60;
		r.finished_at = r.created + 1800;
		r.moves = 40 + i % 30;
		for (k = 0; k < 2; k++) {
			struct result_seat_rec *t = &r.seats[k];

			t->seat = k;
			player_key((i * 7 + k * 3331) % g->players, t->player, sizeof(t->player));
			snprintf(t->name, sizeof(t->name), "Player %.100s", t->player + 2);
			t->place = k + 1;
			t->score = 30 - k * 10;
			t->winner = !k;
			t->nwinners = 1;
		}
		if (cb(ctx, &it))
			return -1;
	}
	return 0;
}

static int gen_ratings(const struct gen_store *g, store_item_cb cb, void *ctx)
{
	struct store_item it = { .kind = STORE_ITEM_RATING };
	struct rating_rec x;
	struct rng r;
	long i;
	int s;

	rng_seed(&r, 5, 6);
	memset(&x, 0, sizeof(x));
	snprintf(x.platform, sizeof(x.platform), "discord");
	snprintf(x.game, sizeof(x.game), "fortuna");
	it.rating = &x;
	for (i = 0; i < g->players; i++) {
		player_key(i, x.player, sizeof(x.player));
		snprintf(x.name, sizeof(x.name), "Player %ld", i);
		for (s = 0; s < 2; s++) {
			snprintf(x.scope, sizeof(x.scope), s ? "guild-%ld" : "", i % SCOPES);
			x.games = 1 + (int64_t)rng_below(&r, 40);
			x.mu = 15.0 + (double)rng_below(&r, 20000) / 1000.0;
			x.sigma = 8.333 / (1.0 + (double)x.games / 10.0);
			x.wins = (double)x.games / 2;
			x.place_sum = x.games * 2;
			x.score_sum = x.games * 20;
			x.best_score = 40;
			x.last_at = 1700000000 + i;
			if (cb(ctx, &it))
				return -1;
		}
	}
	return 0;
}

static int gen_players(const struct gen_store *g, store_item_cb cb, void *ctx)
{
	struct store_item it = { .kind = STORE_ITEM_PLAYER, .key = "discord", .hidden = 1 };
	char who[32];
	long i;

	it.value = who;
	for (i = 0; i < g->players; i += 100) {
		player_key(i, who, sizeof(who));
		if (cb(ctx, &it))
			return -1;
	}
	return 0;
}

static int gen_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	const struct gen_store *g = (const struct gen_store *)s;

	if (gen_results(g, cb, ctx) || gen_ratings(g, cb, ctx) || gen_players(g, cb, ctx))
		return -1;
	return 0;
}

static const struct store_ops gen_ops = {
	.api_version = STORE_API_VERSION,
	.name = "generator",
	.dump = gen_dump,
};

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
	struct gen_store g = { { &gen_ops }, games, players };
	struct buf err = BUF_INIT;
	double *t = xcalloc(READS, sizeof(*t)), t0;
	struct rng r;
	char scope[32], who[32];
	long rows = 0;
	int i, rc = -1;

	t0 = bench_now();
	if (store_migrate(&g.base, st, &err)) {
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
		player_key((long)rng_below(&r, (uint32_t)players), who, sizeof(who));
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

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* A fresh schema in the server TABULA_TEST_PG names (its URI into uri),
 * or with drop set, that schema dropped. */
static int pg_schema(char *uri, size_t n, int drop)
{
	const char *base = getenv("TABULA_TEST_PG");
	PGconn *c;
	PGresult *r;
	char sql[128];
	int ok;

	if (!base || !*base) {
		fprintf(stderr, "bench: TABULA_TEST_PG is not set: run me through"
			" scripts/pg-test-server.sh run --durable (make bench does)\n");
		return -1;
	}
	c = PQconnectdb(base);
	PQsetNoticeProcessor(c, quiet, NULL);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS ratings_%d CASCADE%s%d", (int)getpid(),
		 drop ? "; SELECT " : "; CREATE SCHEMA ratings_", (int)getpid());
	r = PQexec(c, sql);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	if (!ok)
		fprintf(stderr, "bench: %s: %s\n", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	snprintf(uri, n, "%s&options=-csearch_path%%3Dratings_%d", base, (int)getpid());
	return ok ? 0 : -1;
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
	if (rc || pg_schema(uri, sizeof(uri), 0))
		return 1;
	st = store_pg_open(uri, &err);
	if (!st)
		fprintf(stderr, "bench: %s\n", buf_str(&err));
	rc = !st || run("postgres", st, games, players);
	store_close(st);
	buf_release(&err);
	pg_schema(uri, sizeof(uri), 1);
	return rc;
}
