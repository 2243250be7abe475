/*
 * postgres_ratings.c: the PostgreSQL store's finished games and ratings
 * (schema migration 6, API version 5): their statements, the reads
 * (leaderboards, a player's rows, the rating curve, a room's last games),
 * hiding and forgetting a player, and their share of dump and import.
 * A result is written by the commit's pipeline (state/postgres_commit.c);
 * the check that a rating row did not move is the schema's function
 * tabula_rating_put, forgetting is tabula_forget (one statement, one
 * transaction).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/postgres_int.h"
#include "state/store_int.h"

#define RESULT_SELECT "SELECT " ROWS_RESULT_COLS

const char *const pg_ratings_sql[P_WEB_FIRST - P_RATINGS_FIRST] = {
#define S(id) [(id) - P_RATINGS_FIRST]
	S(P_RESULT_INSERT) =
		"INSERT INTO results (session, platform, room, community, game, options,"
		" created, finished_at, moves, rated)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
	S(P_RESULT_SEAT_INSERT) =
		"INSERT INTO result_seats (session, seat, player, name, is_bot, place, score,"
		" winner, nwinners, last) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
	S(P_RATING_PUT) =
		"SELECT tabula_rating_put($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
		" $13, $14, $15, $16)",
	S(P_POINT_INSERT) =
		"INSERT INTO rating_history (" ROWS_POINT_COLS ")"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
	S(P_RATING_GET) =
		"SELECT " ROWS_RATING_COLS " FROM ratings"
		" WHERE platform = $1 AND scope = $2 AND game = $3 AND player = ANY ($4::text[])",
	/* the ratings_board index in order; hidden players are few */
	S(P_LEADERBOARD) =
		"SELECT " ROWS_RATING_COLS " FROM ratings r"
		" WHERE r.platform = $1 AND r.scope = $2 AND r.game = $3 AND r.games >= $4"
		" AND NOT EXISTS (SELECT 1 FROM players p WHERE p.platform = r.platform"
		"  AND p.player = r.player AND p.hidden = 1)"
		" ORDER BY r.conservative DESC, r.player LIMIT $5",
	/* every board at once, each read as P_LEADERBOARD reads it */
	S(P_LEADERBOARDS) =
		"SELECT " ROWS_RATING_COLS " FROM unnest($2::text[]) WITH ORDINALITY s(sc, si)"
		" CROSS JOIN unnest($3::text[]) WITH ORDINALITY g(gm, gi)"
		" CROSS JOIN LATERAL (SELECT * FROM ratings r"
		"  WHERE r.platform = $1 AND r.scope = s.sc AND r.game = g.gm AND r.games >= $4"
		"  AND NOT EXISTS (SELECT 1 FROM players p WHERE p.platform = r.platform"
		"   AND p.player = r.player AND p.hidden = 1)"
		"  ORDER BY r.conservative DESC, r.player LIMIT $5) b"
		" ORDER BY s.si, g.gi, b.conservative DESC, b.player",
	S(P_PLAYER_RATINGS) =
		"SELECT " ROWS_RATING_COLS " FROM ratings"
		" WHERE platform = $1 AND player = $3 AND scope = $2 ORDER BY game",
	S(P_RATING_POINTS) =
		"SELECT " ROWS_POINT_COLS " FROM (SELECT " ROWS_POINT_COLS " FROM rating_history"
		"  WHERE platform = $1 AND scope = $2 AND game = $3 AND player = $4"
		"  ORDER BY at DESC, session DESC LIMIT $5) h"
		" ORDER BY at, session",
	S(P_RESULTS_RECENT) =
		RESULT_SELECT " FROM (SELECT * FROM results WHERE platform = $1 AND room = $2"
		"  ORDER BY finished_at DESC, session DESC LIMIT $3) r"
		" LEFT JOIN result_seats t ON t.session = r.session"
		" ORDER BY r.finished_at DESC, r.session DESC, t.seat",
	S(P_RESULT_GET) =
		RESULT_SELECT " FROM results r LEFT JOIN result_seats t ON t.session = r.session"
		" WHERE r.session = $1 ORDER BY t.seat",
	S(P_PLAYER_HIDE) =
		"INSERT INTO players (platform, player, hidden) VALUES ($1, $2, $3)"
		" ON CONFLICT (platform, player) DO UPDATE SET hidden = excluded.hidden",
	S(P_FORGET) = "SELECT tabula_forget($1, $2)",
	S(P_DUMP_RESULTS) =
		"SELECT session FROM results WHERE session > $1 ORDER BY session LIMIT $2",
	S(P_DUMP_RATINGS) =
		"SELECT " ROWS_RATING_COLS " FROM ratings"
		" WHERE (platform, scope, game, player) > ($1, $2, $3, $4)"
		" ORDER BY platform, scope, game, player LIMIT $5",
	S(P_DUMP_POINTS) =
		"SELECT " ROWS_POINT_COLS " FROM rating_history"
		" WHERE (platform, scope, game, player, session) > ($1, $2, $3, $4, $5)"
		" ORDER BY platform, scope, game, player, session LIMIT $6",
	S(P_DUMP_PLAYERS) =
		"SELECT platform, player, hidden FROM players WHERE (platform, player) > ($1, $2)"
		" ORDER BY platform, player LIMIT $3",
#undef S
};

static int check_limit(int limit, struct buf *err)
{
	if (limit < 1 || limit > STORE_LIST_MAX) {
		seterr(err, "store: a list's limit must be 1 to %d, not %d", STORE_LIST_MAX, limit);
		return -1;
	}
	return 0;
}

/* The rows of a ROWS_RATING_COLS result into a new array *out of *n. */
static int pg_rows_ratings(PGresult *r, struct rating_rec **out, size_t *n, struct buf *err)
{
	int i, rows = PQntuples(r);

	*n = 0;
	*out = xcalloc((size_t)rows + 1, sizeof(**out));
	for (i = 0; i < rows; i++) {
		struct pg_row x = { r, i };
		struct rows_reader rr = PG_READER(x);

		if (rows_rating(&rr, &(*out)[(*n)++], err)) {
			free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

/* Runs a ratings statement, then hands each row to cb (which may stop). */
static int deliver_ratings(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p,
			   store_rating_cb cb, void *ctx, struct buf *err)
{
	PGresult *r = pg_run(ps, id, p, 1, err);
	struct rating_rec *rows;
	size_t n, i;
	int rc;

	if (!r)
		return -1;
	rc = pg_rows_ratings(r, &rows, &n, err);
	PQclear(r);
	if (rc)
		return -1;
	for (i = 0; i < n; i++)
		if (cb(ctx, &rows[i]))
			break;
	free(rows);
	return 0;
}

/* The players as a text[] literal: each quoted, " and \ escaped. */
static void text_array(const char *const *v, size_t n, struct buf *out)
{
	size_t i;
	const char *c;

	buf_reset(out);
	buf_addch(out, '{');
	for (i = 0; i < n; i++) {
		buf_addstr(out, i ? ",\"" : "\"");
		for (c = v[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				buf_addch(out, '\\');
			buf_addch(out, *c);
		}
		buf_addch(out, '"');
	}
	buf_addch(out, '}');
}

int pg_ratings_get(struct store *s, const char *platform, const char *scope,
		   const char *game, const char *const *players, size_t n,
		   struct rating_rec *out, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	struct buf arr = BUF_INIT;
	struct rating_rec *rows;
	size_t nrows, i, k;
	PGresult *r;
	int rc;

	text_array(players, n, &arr);
	pg_param_text(&p, platform);
	pg_param_text(&p, scope);
	pg_param_text(&p, game);
	pg_param_text(&p, buf_str(&arr));
	r = pg_run(ps, P_RATING_GET, &p, 1, err);
	buf_release(&arr);
	if (!r)
		return -1;
	rc = pg_rows_ratings(r, &rows, &nrows, err);
	PQclear(r);
	if (rc)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		snprintf(out[i].platform, sizeof(out[i].platform), "%s", platform);
		snprintf(out[i].scope, sizeof(out[i].scope), "%s", scope);
		snprintf(out[i].game, sizeof(out[i].game), "%s", game);
		snprintf(out[i].player, sizeof(out[i].player), "%s", players[i]);
		for (k = 0; k < nrows; k++)
			if (!strcmp(rows[k].player, players[i]))
				out[i] = rows[k];
	}
	free(rows);
	return 0;
}

int pg_leaderboard(struct store *s, const char *platform, const char *scope,
		   const char *game, int64_t min_games, int limit, store_rating_cb cb,
		   void *ctx, struct buf *err)
{
	struct pg_params p = { 0 };

	if (check_limit(limit, err))
		return -1;
	pg_param_text(&p, platform);
	pg_param_text(&p, scope);
	pg_param_text(&p, game);
	pg_param_i64(&p, min_games);
	pg_param_i64(&p, limit);
	return deliver_ratings(pg_downcast(s), P_LEADERBOARD, &p, cb, ctx, err);
}

int pg_leaderboards(struct store *s, const char *platform, const char *const *scopes,
		    size_t nscopes, const char *const *games, size_t ngames, int64_t min_games,
		    int limit, store_rating_cb cb, void *ctx, struct buf *err)
{
	struct pg_params p = { 0 };
	struct buf sc = BUF_INIT, gm = BUF_INIT;
	int rc;

	if (nscopes < 1 || nscopes > STORE_BOARDS_MAX || ngames < 1 || ngames > STORE_BOARDS_MAX) {
		seterr(err, "store: leaderboards take 1 to %d scopes and games, not %zu and %zu",
			 STORE_BOARDS_MAX, nscopes, ngames);
		return -1;
	}
	if (check_limit(limit, err))
		return -1;
	text_array(scopes, nscopes, &sc);
	text_array(games, ngames, &gm);
	pg_param_text(&p, platform);
	pg_param_text(&p, buf_str(&sc));
	pg_param_text(&p, buf_str(&gm));
	pg_param_i64(&p, min_games);
	pg_param_i64(&p, limit);
	rc = deliver_ratings(pg_downcast(s), P_LEADERBOARDS, &p, cb, ctx, err);
	buf_release(&sc);
	buf_release(&gm);
	return rc;
}

int pg_player_ratings(struct store *s, const char *platform, const char *scope,
		      const char *player, store_rating_cb cb, void *ctx, struct buf *err)
{
	struct pg_params p = { 0 };

	pg_param_text(&p, platform);
	pg_param_text(&p, scope);
	pg_param_text(&p, player);
	return deliver_ratings(pg_downcast(s), P_PLAYER_RATINGS, &p, cb, ctx, err);
}

/* The rows of a ROWS_POINT_COLS result, each to cb; *last gets the last
 * one read (for paging).  0 or -1; *stopped when cb stopped. */
static int deliver_points(PGresult *r, store_point_cb cb, void *ctx,
			  struct rating_point_rec *last, int *stopped, struct buf *err)
{
	int i, n = PQntuples(r);
	struct rating_point_rec *rows = xcalloc((size_t)n + 1, sizeof(*rows));

	*stopped = 0;
	for (i = 0; i < n; i++) {
		struct pg_row x = { r, i };
		struct rows_reader rr = PG_READER(x);

		if (rows_point(&rr, &rows[i], err)) {
			free(rows);
			return -1;
		}
	}
	PQclear(r);
	for (i = 0; i < n && !*stopped; i++) {
		if (last)
			*last = rows[i];
		*stopped = cb(ctx, &rows[i]) != 0;
	}
	free(rows);
	return 0;
}

int pg_rating_points(struct store *s, const char *platform, const char *scope,
		     const char *game, const char *player, int limit, store_point_cb cb,
		     void *ctx, struct buf *err)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int stopped;

	if (check_limit(limit, err))
		return -1;
	pg_param_text(&p, platform);
	pg_param_text(&p, scope);
	pg_param_text(&p, game);
	pg_param_text(&p, player);
	pg_param_i64(&p, limit);
	r = pg_run(pg_downcast(s), P_RATING_POINTS, &p, 1, err);
	if (!r)
		return -1;
	if (deliver_points(r, cb, ctx, NULL, &stopped, err)) {
		PQclear(r);
		return -1;
	}
	return 0;
}

/* A result of ROWS_RESULT_COLS rows (grouped by session) into a new array. */
static int pg_rows_results(PGresult *r, struct result_rec **out, size_t *n, struct buf *err)
{
	int i, rows = PQntuples(r);

	*n = 0;
	*out = xcalloc((size_t)rows + 1, sizeof(**out));
	for (i = 0; i < rows; i++) {
		struct pg_row x = { r, i };
		struct rows_reader rr = PG_READER(x);
		int first = !*n || (*out)[*n - 1].session != pg_col_i64(r, i, 0);

		if (first)
			++*n;
		if (rows_result(&rr, first, &(*out)[*n - 1], err)) {
			free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

int pg_results_recent(struct store *s, const char *platform, const char *room,
		      int limit, store_result_cb cb, void *ctx, struct buf *err)
{
	struct pg_params p = { 0 };
	struct result_rec *rows;
	size_t n, i;
	PGresult *r;
	int rc;

	if (check_limit(limit, err))
		return -1;
	pg_param_text(&p, platform);
	pg_param_text(&p, room);
	pg_param_i64(&p, limit);
	r = pg_run(pg_downcast(s), P_RESULTS_RECENT, &p, 1, err);
	if (!r)
		return -1;
	rc = pg_rows_results(r, &rows, &n, err);
	PQclear(r);
	if (rc)
		return -1;
	for (i = 0; i < n; i++)
		if (cb(ctx, &rows[i]))
			break;
	free(rows);
	return 0;
}

int pg_result_get(struct store *s, int64_t session, struct result_rec *out,
		  struct buf *err)
{
	struct pg_params p = { 0 };
	struct result_rec *rows;
	size_t n;
	PGresult *r;
	int rc;

	pg_param_i64(&p, session);
	r = pg_run(pg_downcast(s), P_RESULT_GET, &p, 1, err);
	if (!r)
		return -1;
	rc = pg_rows_results(r, &rows, &n, err);
	PQclear(r);
	if (rc)
		return -1;
	if (n)
		*out = rows[0];
	free(rows);
	return n ? 1 : 0;
}

/* One statement that returns nothing to read: 0 or -1. */
static int run_plain(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p,
		     int retry, struct buf *err)
{
	PGresult *r = pg_run(ps, id, p, retry, err);

	PQclear(r);
	return r ? 0 : -1;
}

int pg_player_hide(struct store *s, const char *platform, const char *player,
		   int hidden, struct buf *err)
{
	struct pg_params p = { 0 };

	pg_param_text(&p, platform);
	pg_param_text(&p, player);
	pg_param_i64(&p, hidden ? 1 : 0);
	return run_plain(pg_downcast(s), P_PLAYER_HIDE, &p, 1, err);
}

/* tabula_forget is idempotent, so running it again after a lost answer
 * is safe */
int pg_player_forget(struct store *s, const char *platform, const char *player,
		     struct buf *err)
{
	struct pg_params p = { 0 };

	if (!player || !*player) {
		seterr(err, "store: forgetting needs a player");
		return -1;
	}
	pg_param_text(&p, platform);
	pg_param_text(&p, player);
	return run_plain(pg_downcast(s), P_FORGET, &p, 1, err);
}

/* ------------------------------------------------------- dump and import */

static int dump_results(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err)
{
	struct store_item it = { .kind = STORE_ITEM_RESULT };
	struct result_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, i;

	do {
		struct pg_params p = { 0 };

		pg_param_i64(&p, after);
		pg_param_i64(&p, PAGE_ROWS);
		if (pg_id_page(ps, P_DUMP_RESULTS, &p, ids, &n, err))
			return -1;
		for (i = 0; i < n; i++) {
			after = ids[i];
			if (pg_result_get(&ps->base, ids[i], &rec, err) != 1)
				return -1;
			it.result = &rec;
			if (cb(ctx, &it))
				return -1;
		}
	} while (n == PAGE_ROWS);
	return 0;
}

static int dump_rating_rows(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err)
{
	struct store_item it = { .kind = STORE_ITEM_RATING };
	struct rating_rec last = { .platform = "" }, *rows;
	size_t n, i;
	PGresult *r;
	int rc;

	do {
		struct pg_params p = { 0 };

		pg_param_text(&p, last.platform);
		pg_param_text(&p, last.scope);
		pg_param_text(&p, last.game);
		pg_param_text(&p, last.player);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_RATINGS, &p, 1, err);
		if (!r)
			return -1;
		rc = pg_rows_ratings(r, &rows, &n, err);
		PQclear(r);
		if (rc)
			return -1;
		for (i = 0; i < n; i++) {
			it.rating = &rows[i];
			if (cb(ctx, &it)) {
				free(rows);
				return -1;
			}
		}
		if (n)
			last = rows[n - 1];
		free(rows);
	} while (n == PAGE_ROWS);
	return 0;
}

struct point_dump {
	store_item_cb cb;
	void *ctx;
};

static int point_item(void *ctx, const struct rating_point_rec *pt)
{
	struct point_dump *d = ctx;
	struct store_item it = { .kind = STORE_ITEM_POINT, .point = pt };

	return d->cb(d->ctx, &it);
}

static int dump_points(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err)
{
	struct point_dump d = { cb, ctx };
	struct rating_point_rec last = { .platform = "" };
	PGresult *r;
	int n, stopped;

	do {
		struct pg_params p = { 0 };

		pg_param_text(&p, last.platform);
		pg_param_text(&p, last.scope);
		pg_param_text(&p, last.game);
		pg_param_text(&p, last.player);
		pg_param_i64(&p, last.session);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_POINTS, &p, 1, err);
		if (!r)
			return -1;
		n = PQntuples(r);
		if (deliver_points(r, point_item, &d, &last, &stopped, err)) {
			PQclear(r);
			return -1;
		}
		if (stopped)
			return -1;
	} while (n == PAGE_ROWS);
	return 0;
}

static int dump_players(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err)
{
	struct store_item it = { .kind = STORE_ITEM_PLAYER };
	char *ap = xstrdup(""), *aw = xstrdup("");
	PGresult *r;
	int n, i, ret = -1;

	do {
		struct pg_params p = { 0 };

		pg_param_text(&p, ap);
		pg_param_text(&p, aw);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_PLAYERS, &p, 1, err);
		if (!r)
			goto out;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			it.key = PQgetvalue(r, i, 0);
			it.value = PQgetvalue(r, i, 1);
			it.hidden = (int)pg_col_i64(r, i, 2);
			if (cb(ctx, &it)) {
				PQclear(r);
				goto out;
			}
		}
		if (n) {
			free(ap);
			free(aw);
			ap = xstrdup(PQgetvalue(r, n - 1, 0));
			aw = xstrdup(PQgetvalue(r, n - 1, 1));
		}
		PQclear(r);
	} while (n == PAGE_ROWS);
	ret = 0;
out:
	free(ap);
	free(aw);
	return ret;
}

/* After sessions, actions, outbox and cursors (state/postgres_copy.c). */
int pg_dump_ratings(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err)
{
	if (dump_results(ps, cb, ctx, err) || dump_rating_rows(ps, cb, ctx, err) ||
	    dump_points(ps, cb, ctx, err) || dump_players(ps, cb, ctx, err))
		return -1;
	return 0;
}

/* One record of those kinds inside the import's transaction (no retry:
 * a lost connection fails the copy).  0 or -1. */
int pg_import_rating_item(struct pg_store *ps, const struct store_item *it, struct buf *err)
{
	struct store_result sr = { 0 };
	struct store_commit c = { 0 };
	struct pg_params p = { 0 };
	struct rows_writer w = pg_writer(&p);
	struct rating_rec copy;
	int i;

	switch (it->kind) {
	case STORE_ITEM_RESULT:
		sr.result = it->result;
		c.result = &sr;
		if (store_check_commit(&c, err))
			return -1;
		rows_put_result(&w, it->result, it->result->session);
		if (run_plain(ps, P_RESULT_INSERT, &p, 0, err))
			return -1;
		for (i = 0; i < it->result->nseats; i++) {
			w = pg_writer(&p);
			rows_put_result_seat(&w, it->result->session, &it->result->seats[i]);
			if (run_plain(ps, P_RESULT_SEAT_INSERT, &p, 0, err))
				return -1;
		}
		return 0;
	case STORE_ITEM_RATING:
		/* a new row in the empty target: read after 0 games */
		copy = *it->rating;
		copy.read_games = 0;
		rows_put_rating(&w, &copy);
		return run_plain(ps, P_RATING_PUT, &p, 0, err);
	case STORE_ITEM_POINT:
		rows_put_point(&w, it->point, it->point->session);
		return run_plain(ps, P_POINT_INSERT, &p, 0, err);
	case STORE_ITEM_PLAYER:
		pg_param_text(&p, it->key);
		pg_param_text(&p, it->value);
		pg_param_i64(&p, it->hidden);
		return run_plain(ps, P_PLAYER_HIDE, &p, 0, err);
	default:
		seterr(err, "store: unknown record kind %d", (int)it->kind);
		return -1;
	}
}
