/*
 * bench_fill.h: the generated store of finished games and ratings that the
 * rating benches share (bench_ratings, bench_stats): a store that only
 * dumps, so that store_migrate() imports it in one transaction.  Header
 * only, as bench_common.h (each bench is built alone).
 *
 * Game i (1-based session i + 1) is of game kinds[i % nkinds], in room
 * "chan-<i % 500>" of community "guild-<i % 10>", two seats: player
 * (i * 7) % players wins against player (i * 7 + 3331) % players.  Every
 * player has a rating row per scope (the platform's, "", and its
 * community's) and game kind; 1 % of them are hidden.  With points set,
 * each game also leaves a rating point per seat and scope (as a rated
 * game does), so a player has about 40 points per scope.
 */
#ifndef BENCH_FILL_H
#define BENCH_FILL_H

#include <libpq-fe.h>

#include "bench/bench_common.h"
#include "util/rng.h"

#define FILL_SCOPES 10
#define FILL_ROOMS 500

struct gen_store {
	struct store base;
	const char *platform;
	long games, players;
	const char *const *kinds;
	int nkinds;
	int points;
};

static inline void fill_player_key(long i, char *out, size_t n)
{
	snprintf(out, n, "u-%06ld", i);
}

/* The player of seat k (0 won, 1 lost) of game i. */
static inline long fill_seat_player(const struct gen_store *g, long i, int k)
{
	return (i * 7 + k * 3331) % g->players;
}

static int fill_results(const struct gen_store *g, store_item_cb cb, void *ctx)
{
	struct store_item it = { .kind = STORE_ITEM_RESULT };
	struct store_item pt = { .kind = STORE_ITEM_POINT };
	struct result_rec r;
	struct rating_point_rec p;
	long i;
	int k, s;

	memset(&r, 0, sizeof(r));
	memset(&p, 0, sizeof(p));
	snprintf(r.platform, sizeof(r.platform), "%s", g->platform);
	snprintf(p.platform, sizeof(p.platform), "%s", g->platform);
	r.nseats = 2;
	r.rated = 1;
	it.result = &r;
	pt.point = &p;
	for (i = 0; i < g->games; i++) {
		r.session = i + 1;
		snprintf(r.game, sizeof(r.game), "%s", g->kinds[i % g->nkinds]);
		snprintf(r.room, sizeof(r.room), "chan-%ld", i % FILL_ROOMS);
		snprintf(r.community, sizeof(r.community), "guild-%ld", i % FILL_SCOPES);
		r.created = 1700000000 + i * 60;
		r.finished_at = r.created + 1800;
		r.moves = 40 + i % 30;
		for (k = 0; k < 2; k++) {
			struct result_seat_rec *t = &r.seats[k];

			t->seat = k;
			fill_player_key(fill_seat_player(g, i, k), t->player, sizeof(t->player));
			snprintf(t->name, sizeof(t->name), "Player %.100s", t->player + 2);
			t->place = k + 1;
			t->score = 30 - k * 10;
			t->winner = !k;
			t->nwinners = 1;
		}
		if (cb(ctx, &it))
			return -1;
		for (k = 0; g->points && k < 2; k++)
			for (s = 0; s < 2; s++) {
				snprintf(p.scope, sizeof(p.scope), "%s", s ? r.community : "");
				snprintf(p.game, sizeof(p.game), "%s", r.game);
				snprintf(p.player, sizeof(p.player), "%s", r.seats[k].player);
				p.session = r.session;
				p.at = r.finished_at;
				p.mu = 25.0 + (k ? -0.5 : 0.5) * (double)(i % 7);
				p.sigma = 8.333 / (1.0 + (double)(i % 40) / 10.0);
				if (cb(ctx, &pt))
					return -1;
			}
	}
	return 0;
}

static int fill_ratings(const struct gen_store *g, store_item_cb cb, void *ctx)
{
	struct store_item it = { .kind = STORE_ITEM_RATING };
	struct rating_rec x;
	struct rng r;
	long i;
	int s, k;

	rng_seed(&r, 5, 6);
	memset(&x, 0, sizeof(x));
	snprintf(x.platform, sizeof(x.platform), "%s", g->platform);
	it.rating = &x;
	for (i = 0; i < g->players; i++) {
		fill_player_key(i, x.player, sizeof(x.player));
		snprintf(x.name, sizeof(x.name), "Player %ld", i);
		for (k = 0; k < g->nkinds; k++)
			for (s = 0; s < 2; s++) {
				snprintf(x.game, sizeof(x.game), "%s", g->kinds[k]);
				snprintf(x.scope, sizeof(x.scope), s ? "guild-%ld" : "",
					 i % FILL_SCOPES);
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

static int fill_players(const struct gen_store *g, store_item_cb cb, void *ctx)
{
	struct store_item it = { .kind = STORE_ITEM_PLAYER, .key = g->platform, .hidden = 1 };
	char who[32];
	long i;

	it.value = who;
	for (i = 0; i < g->players; i += 100) {
		fill_player_key(i, who, sizeof(who));
		if (cb(ctx, &it))
			return -1;
	}
	return 0;
}

static int fill_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	const struct gen_store *g = (const struct gen_store *)s;

	if (fill_results(g, cb, ctx) || fill_ratings(g, cb, ctx) || fill_players(g, cb, ctx))
		return -1;
	return 0;
}

static const struct store_ops fill_ops = {
	.api_version = STORE_API_VERSION,
	.name = "generator",
	.dump = fill_dump,
};

/* Fills st (empty, its schema made) from g, whose base this sets. */
static inline int bench_fill(struct gen_store *g, struct store *st, struct buf *err)
{
	g->base.ops = &fill_ops;
	return store_migrate(&g->base, st, err);
}

static void bench_pg_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* A fresh schema "<tag>_<pid>" in the server TABULA_TEST_PG names (its
 * URI into uri), or with drop set, that schema dropped. */
static inline int bench_pg_schema(const char *tag, char *uri, size_t n, int drop)
{
	const char *base = getenv("TABULA_TEST_PG");
	PGconn *c;
	PGresult *r;
	char sql[192];
	int ok;

	if (!base || !*base) {
		fprintf(stderr, "bench: TABULA_TEST_PG is not set: run me through"
			" scripts/pg-test-server.sh run --durable (make bench does)\n");
		return -1;
	}
	c = PQconnectdb(base);
	PQsetNoticeProcessor(c, bench_pg_quiet, NULL);
	if (drop)
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s_%d CASCADE", tag,
			 (int)getpid());
	else
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s_%d CASCADE; CREATE SCHEMA %s_%d",
			 tag, (int)getpid(), tag, (int)getpid());
	r = PQexec(c, sql);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	if (!ok)
		fprintf(stderr, "bench: %s: %s\n", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	snprintf(uri, n, "%s&options=-csearch_path%%3D%s_%d", base, tag, (int)getpid());
	return ok ? 0 : -1;
}

#endif
