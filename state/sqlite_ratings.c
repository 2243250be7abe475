/*
 * sqlite_ratings.c: the SQLite store's finished games and ratings (schema
 * migration 6, API version 5): their statements, the part of a commit
 * that stores a result with its ratings (checked under the commit's write
 * lock), the reads (leaderboards, a player's rows, the rating curve, a
 * room's last games), hiding and forgetting a player, and their share of
 * dump and import.
 *
 * Reads collect their rows and reset the statement before any callback
 * runs, so a callback may use the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/sqlite_int.h"
#include "state/store_int.h"

#define RESULT_SELECT "SELECT " ROWS_RESULT_COLS

#define FORGET(table, col) \
	"UPDATE " table " SET " col " WHERE player = ?2"

const char *const sqlite_ratings_sql[ST_WEB_FIRST - ST_RATINGS_FIRST] = {
#define S(id) [(id) - ST_RATINGS_FIRST]
	S(ST_RESULT_INSERT) =
		"INSERT INTO results (session, platform, room, community, game, options,"
		" created, finished_at, moves, rated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	S(ST_RESULT_SEAT_INSERT) =
		"INSERT INTO result_seats (session, seat, player, name, is_bot, place, score,"
		" winner, nwinners, last) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	S(ST_RATING_GAMES) =
		"SELECT games FROM ratings"
		" WHERE platform = ?1 AND scope = ?2 AND game = ?3 AND player = ?4",
	/* ?16 (read_games) is the commit's check, made before */
	S(ST_RATING_PUT) =
		"INSERT INTO ratings (" ROWS_RATING_COLS ")"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
		" ON CONFLICT (platform, scope, game, player) DO UPDATE SET"
		" name = excluded.name, mu = excluded.mu, sigma = excluded.sigma,"
		" conservative = excluded.conservative, games = excluded.games,"
		" wins = excluded.wins, place_sum = excluded.place_sum,"
		" score_sum = excluded.score_sum, best_score = excluded.best_score,"
		" streak = excluded.streak, last_at = excluded.last_at",
	S(ST_POINT_INSERT) =
		"INSERT INTO rating_history (" ROWS_POINT_COLS ")"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	S(ST_RATING_GET) =
		"SELECT " ROWS_RATING_COLS " FROM ratings"
		" WHERE platform = ?1 AND scope = ?2 AND game = ?3 AND player = ?4",
	/* the ratings_board index in order; hidden players are few */
	S(ST_LEADERBOARD) =
		"SELECT " ROWS_RATING_COLS " FROM ratings r"
		" WHERE r.platform = ?1 AND r.scope = ?2 AND r.game = ?3 AND r.games >= ?4"
		" AND NOT EXISTS (SELECT 1 FROM players p WHERE p.platform = r.platform"
		"  AND p.player = r.player AND p.hidden = 1)"
		" ORDER BY r.conservative DESC, r.player LIMIT ?5",
	/* without statistics SQLite prefers the covering primary key
	 * (platform, scope: every player of the scope, 1 ms at 10,000) */
	S(ST_PLAYER_RATINGS) =
		"SELECT " ROWS_RATING_COLS " FROM ratings INDEXED BY ratings_player"
		" WHERE platform = ?1 AND player = ?3 AND scope = ?2 ORDER BY game",
	S(ST_RATING_POINTS) =
		"SELECT " ROWS_POINT_COLS " FROM (SELECT " ROWS_POINT_COLS " FROM rating_history"
		"  WHERE platform = ?1 AND scope = ?2 AND game = ?3 AND player = ?4"
		"  ORDER BY at DESC, session DESC LIMIT ?5)"
		" ORDER BY at, session",
	S(ST_RESULTS_RECENT) =
		RESULT_SELECT " FROM (SELECT * FROM results WHERE platform = ?1 AND room = ?2"
		"  ORDER BY finished_at DESC, session DESC LIMIT ?3) r"
		" LEFT JOIN result_seats t ON t.session = r.session"
		" ORDER BY r.finished_at DESC, r.session DESC, t.seat",
	S(ST_RESULT_GET) =
		RESULT_SELECT " FROM results r LEFT JOIN result_seats t ON t.session = r.session"
		" WHERE r.session = ?1 ORDER BY t.seat",
	S(ST_PLAYER_HIDE) =
		"INSERT INTO players (platform, player, hidden) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (platform, player) DO UPDATE SET hidden = excluded.hidden",
	S(ST_FORGET_RATINGS) = "DELETE FROM ratings WHERE platform = ?1 AND player = ?2",
	S(ST_FORGET_HISTORY) = "DELETE FROM rating_history WHERE platform = ?1 AND player = ?2",
	S(ST_FORGET_PLAYER) = "DELETE FROM players WHERE platform = ?1 AND player = ?2",
	S(ST_FORGET_RESULTS) =
		FORGET("result_seats", "player = '', name = ''")
		" AND session IN (SELECT session FROM results WHERE platform = ?1)",
	S(ST_FORGET_SEATS) =
		"UPDATE seats SET name = '' WHERE \"user\" = ?2 AND is_bot = 0"
		" AND session IN (SELECT id FROM sessions WHERE platform = ?1"
		" AND status IN (2, 3))",
	S(ST_DUMP_RESULTS) = "SELECT session FROM results WHERE session > ?1 ORDER BY session LIMIT ?2",
	S(ST_DUMP_RATINGS) =
		"SELECT " ROWS_RATING_COLS " FROM ratings"
		" WHERE (platform, scope, game, player) > (?1, ?2, ?3, ?4)"
		" ORDER BY platform, scope, game, player LIMIT ?5",
	S(ST_DUMP_POINTS) =
		"SELECT " ROWS_POINT_COLS " FROM rating_history"
		" WHERE (platform, scope, game, player, session) > (?1, ?2, ?3, ?4, ?5)"
		" ORDER BY platform, scope, game, player, session LIMIT ?6",
	S(ST_DUMP_PLAYERS) =
		"SELECT platform, player, hidden FROM players WHERE (platform, player) > (?1, ?2)"
		" ORDER BY platform, player LIMIT ?3",
#undef S
};

static int check_boards(size_t nscopes, size_t ngames, struct buf *err)
{
	if (nscopes < 1 || nscopes > STORE_BOARDS_MAX || ngames < 1 || ngames > STORE_BOARDS_MAX) {
		seterr(err, "store: leaderboards take 1 to %d scopes and games, not %zu and %zu",
		       STORE_BOARDS_MAX, nscopes, ngames);
		return -1;
	}
	return 0;
}

/* cb, remembering that it stopped (the boards after it are not read). */
struct board_stop {
	store_rating_cb cb;
	void *ctx;
	int stopped;
};

static int board_row(void *ctx, const struct rating_rec *x)
{
	struct board_stop *b = ctx;

	b->stopped = b->cb(b->ctx, x) != 0;
	return b->stopped;
}

static int check_limit(int limit, struct buf *err)
{
	if (limit < 1 || limit > STORE_LIST_MAX) {
		seterr(err, "store: a list's limit must be 1 to %d, not %d", STORE_LIST_MAX, limit);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------------- commit */

static int result_insert(struct sqlite_store *ss, const struct result_rec *r, int64_t rsid,
			 struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_RESULT_INSERT);
	struct sqlite_binder b = { st, 0 };
	struct rows_writer w = SQLITE_WRITER(b);
	int rc, i;

	rows_put_result(&w, r, rsid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
		seterr(err, "store: session %lld already has a result (a game is rated once):"
		       " nothing stored", (long long)rsid);
		sqlite_st_done(st);
		return STORE_CONFLICT;
	}
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "storing a result");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	st = sqlite_st(ss, ST_RESULT_SEAT_INSERT);
	for (i = 0; i < r->nseats; i++) {
		b.st = st;
		b.n = 0;
		rows_put_result_seat(&w, rsid, &r->seats[i]);
		if (sqlite_st_run(ss, st, err, "storing a result's seat"))
			return -1;
	}
	return 0;
}

/* Whether the row is still at read_games: 0, STORE_CONFLICT or -1. */
static int rating_check(struct sqlite_store *ss, const struct rating_rec *x, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_RATING_GAMES);
	int64_t cur = 0;
	int rc;

	sqlite_bind_str(st, 1, x->platform);
	sqlite_bind_str(st, 2, x->scope);
	sqlite_bind_str(st, 3, x->game);
	sqlite_bind_str(st, 4, x->player);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		cur = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "checking a rating");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	if (cur != x->read_games) {
		seterr(err, "store: the rating of %s in %s (scope \"%s\") was changed elsewhere"
		       " (read after %lld games): nothing stored", x->player, x->game, x->scope,
		       (long long)x->read_games);
		return STORE_CONFLICT;
	}
	return 0;
}

static int rating_put(struct sqlite_store *ss, const struct rating_rec *x, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_RATING_PUT);
	struct sqlite_binder b = { st, 0 };
	struct rows_writer w = SQLITE_WRITER(b);

	rows_put_rating(&w, x);
	return sqlite_st_run(ss, st, err, "storing a rating");
}

static int point_put(struct sqlite_store *ss, const struct rating_point_rec *p, int64_t session,
		     struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_POINT_INSERT);
	struct sqlite_binder b = { st, 0 };
	struct rows_writer w = SQLITE_WRITER(b);

	rows_put_point(&w, p, session);
	return sqlite_st_run(ss, st, err, "storing a rating point");
}

/* Inside the commit's transaction (BEGIN IMMEDIATE: no other writer until
 * it ends, so a checked row stays as checked).  0, STORE_CONFLICT or -1. */
int sqlite_result_store(struct sqlite_store *ss, const struct store_result *sr, int64_t sid,
			struct buf *err)
{
	int64_t rsid = sr->result->session ? sr->result->session : sid;
	size_t i;
	int rc = result_insert(ss, sr->result, rsid, err);

	if (rc)
		return rc;
	for (i = 0; i < sr->nratings; i++) {
		rc = rating_check(ss, &sr->ratings[i], err);
		if (rc)
			return rc;
		if (rating_put(ss, &sr->ratings[i], err))
			return -1;
	}
	for (i = 0; i < sr->npoints; i++)
		if (point_put(ss, &sr->points[i],
			      sr->points[i].session ? sr->points[i].session : rsid, err))
			return -1;
	return 0;
}

/* ------------------------------------------------------------------ reads */

/* Every row of a bound statement of ROWS_RATING_COLS into *out (n of
 * them, a new array the caller frees); resets st.  0 or -1. */
static int read_ratings(struct sqlite_store *ss, sqlite3_stmt *st, struct rating_rec **out,
			size_t *n, struct buf *err)
{
	struct rows_reader r = sqlite_reader(st);
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		if (rows_rating(&r, &(*out)[(*n)++], err))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "reading ratings");
		goto fail;
	}
	sqlite_st_done(st);
	return 0;
fail:
	sqlite_st_done(st);
	free(*out);
	*out = NULL;
	return -1;
}

/* Reads st's ratings, then hands each to cb (which may stop). */
static int deliver_ratings(struct sqlite_store *ss, sqlite3_stmt *st, store_rating_cb cb,
			   void *ctx, struct buf *err)
{
	struct rating_rec *rows;
	size_t n, i;

	if (read_ratings(ss, st, &rows, &n, err))
		return -1;
	for (i = 0; i < n; i++)
		if (cb(ctx, &rows[i]))
			break;
	free(rows);
	return 0;
}

int sqlite_ratings_get(struct store *s, const char *platform, const char *scope,
		       const char *game, const char *const *players, size_t n,
		       struct rating_rec *out, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_RATING_GET);
	struct rating_rec *rows;
	size_t i, k;

	for (i = 0; i < n; i++) {
		sqlite_bind_str(st, 1, platform);
		sqlite_bind_str(st, 2, scope);
		sqlite_bind_str(st, 3, game);
		sqlite_bind_str(st, 4, players[i]);
		if (read_ratings(ss, st, &rows, &k, err))
			return -1;
		if (k) {
			out[i] = rows[0];
		} else {
			memset(&out[i], 0, sizeof(out[i]));
			snprintf(out[i].platform, sizeof(out[i].platform), "%s", platform);
			snprintf(out[i].scope, sizeof(out[i].scope), "%s", scope);
			snprintf(out[i].game, sizeof(out[i].game), "%s", game);
			snprintf(out[i].player, sizeof(out[i].player), "%s", players[i]);
		}
		free(rows);
	}
	return 0;
}

int sqlite_leaderboard(struct store *s, const char *platform, const char *scope,
		       const char *game, int64_t min_games, int limit, store_rating_cb cb,
		       void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_LEADERBOARD);

	if (check_limit(limit, err))
		return -1;
	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, scope);
	sqlite_bind_str(st, 3, game);
	sqlite3_bind_int64(st, 4, min_games);
	sqlite3_bind_int(st, 5, limit);
	return deliver_ratings(ss, st, cb, ctx, err);
}

/* SQLite answers in process: one statement per board costs no round trip. */
int sqlite_leaderboards(struct store *s, const char *platform, const char *const *scopes,
			size_t nscopes, const char *const *games, size_t ngames, int64_t min_games,
			int limit, store_rating_cb cb, void *ctx, struct buf *err)
{
	struct board_stop stop = { cb, ctx, 0 };
	size_t i, k;

	if (check_boards(nscopes, ngames, err) || check_limit(limit, err))
		return -1;
	for (i = 0; i < nscopes && !stop.stopped; i++)
		for (k = 0; k < ngames && !stop.stopped; k++)
			if (sqlite_leaderboard(s, platform, scopes[i], games[k], min_games, limit,
					       board_row, &stop, err))
				return -1;
	return 0;
}

int sqlite_player_ratings(struct store *s, const char *platform, const char *scope,
			  const char *player, store_rating_cb cb, void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_PLAYER_RATINGS);

	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, scope);
	sqlite_bind_str(st, 3, player);
	return deliver_ratings(ss, st, cb, ctx, err);
}

/* Every row of a bound statement of ROWS_POINT_COLS, like read_ratings. */
static int read_points(struct sqlite_store *ss, sqlite3_stmt *st,
		       struct rating_point_rec **out, size_t *n, struct buf *err)
{
	struct rows_reader r = sqlite_reader(st);
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		if (rows_point(&r, &(*out)[(*n)++], err))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "reading rating points");
		goto fail;
	}
	sqlite_st_done(st);
	return 0;
fail:
	sqlite_st_done(st);
	free(*out);
	*out = NULL;
	return -1;
}

int sqlite_rating_points(struct store *s, const char *platform, const char *scope,
			 const char *game, const char *player, int limit, store_point_cb cb,
			 void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_RATING_POINTS);
	struct rating_point_rec *rows;
	size_t n, i;

	if (check_limit(limit, err))
		return -1;
	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, scope);
	sqlite_bind_str(st, 3, game);
	sqlite_bind_str(st, 4, player);
	sqlite3_bind_int(st, 5, limit);
	if (read_points(ss, st, &rows, &n, err))
		return -1;
	for (i = 0; i < n; i++)
		if (cb(ctx, &rows[i]))
			break;
	free(rows);
	return 0;
}

/* Results with their seats (ROWS_RESULT_COLS, grouped by session) into a
 * new array *out of *n; resets st.  0 or -1. */
static int read_results(struct sqlite_store *ss, sqlite3_stmt *st, struct result_rec **out,
			size_t *n, struct buf *err)
{
	struct rows_reader r = sqlite_reader(st);
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int first = !*n || (*out)[*n - 1].session != sqlite3_column_int64(st, 0);

		if (first && *n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		if (first)
			++*n;
		if (rows_result(&r, first, &(*out)[*n - 1], err))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "reading results");
		goto fail;
	}
	sqlite_st_done(st);
	return 0;
fail:
	sqlite_st_done(st);
	free(*out);
	*out = NULL;
	return -1;
}

int sqlite_results_recent(struct store *s, const char *platform, const char *room,
			  int limit, store_result_cb cb, void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_RESULTS_RECENT);
	struct result_rec *rows;
	size_t n, i;

	if (check_limit(limit, err))
		return -1;
	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, room);
	sqlite3_bind_int(st, 3, limit);
	if (read_results(ss, st, &rows, &n, err))
		return -1;
	for (i = 0; i < n; i++)
		if (cb(ctx, &rows[i]))
			break;
	free(rows);
	return 0;
}

int sqlite_result_get(struct store *s, int64_t session, struct result_rec *out,
		      struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_RESULT_GET);
	struct result_rec *rows;
	size_t n;

	sqlite3_bind_int64(st, 1, session);
	if (read_results(ss, st, &rows, &n, err))
		return -1;
	if (n)
		*out = rows[0];
	free(rows);
	return n ? 1 : 0;
}

/* ----------------------------------------------------------------- writes */

int sqlite_player_hide(struct store *s, const char *platform, const char *player,
		       int hidden, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_PLAYER_HIDE);

	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, player);
	sqlite3_bind_int(st, 3, hidden ? 1 : 0);
	return sqlite_st_run(ss, st, err, "hiding a player");
}

int sqlite_player_forget(struct store *s, const char *platform, const char *player,
			 struct buf *err)
{
	static const enum stmt_id steps[] = {
		ST_FORGET_RATINGS, ST_FORGET_HISTORY, ST_FORGET_PLAYER, ST_FORGET_RESULTS,
		ST_FORGET_SEATS,
	};
	struct sqlite_store *ss = sqlite_downcast(s);
	size_t i;

	if (!player || !*player) {
		seterr(err, "store: forgetting needs a player");
		return -1;
	}
	if (sqlite_st_run(ss, sqlite_st(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		sqlite3_stmt *st = sqlite_st(ss, steps[i]);

		sqlite_bind_str(st, 1, platform);
		sqlite_bind_str(st, 2, player);
		if (sqlite_st_run(ss, st, err, "forgetting a player"))
			goto fail;
	}
	if (sqlite_st_run(ss, sqlite_st(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	sqlite_rollback(ss);
	return -1;
}

/* ------------------------------------------------------- dump and import */

static int dump_results(struct sqlite_store *ss, store_item_cb cb, void *ctx, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_RESULTS);
	struct store_item it = { .kind = STORE_ITEM_RESULT };
	struct result_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, i, rc;

	do {
		n = 0;
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			ids[n++] = sqlite3_column_int64(st, 0);
		if (rc != SQLITE_DONE) {
			sqlite_fail(ss, err, "listing results");
			sqlite_st_done(st);
			return -1;
		}
		sqlite_st_done(st);
		for (i = 0; i < n; i++) {
			after = ids[i];
			if (sqlite_result_get(&ss->base, ids[i], &rec, err) != 1)
				return -1;
			it.result = &rec;
			if (cb(ctx, &it))
				return -1;
		}
	} while (n == PAGE_ROWS);
	return 0;
}

static int dump_rating_rows(struct sqlite_store *ss, store_item_cb cb, void *ctx,
			    struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_RATINGS);
	struct store_item it = { .kind = STORE_ITEM_RATING };
	struct rating_rec last = { .platform = "" }, *rows;
	size_t n, i;

	do {
		sqlite_bind_str(st, 1, last.platform);
		sqlite_bind_str(st, 2, last.scope);
		sqlite_bind_str(st, 3, last.game);
		sqlite_bind_str(st, 4, last.player);
		sqlite3_bind_int(st, 5, PAGE_ROWS);
		if (read_ratings(ss, st, &rows, &n, err))
			return -1;
		for (i = 0; i < n; i++) {
			last = rows[i];
			it.rating = &rows[i];
			if (cb(ctx, &it)) {
				free(rows);
				return -1;
			}
		}
		free(rows);
	} while (n == PAGE_ROWS);
	return 0;
}

static int dump_points(struct sqlite_store *ss, store_item_cb cb, void *ctx, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_POINTS);
	struct store_item it = { .kind = STORE_ITEM_POINT };
	struct rating_point_rec last = { .platform = "" }, *rows;
	size_t n, i;

	do {
		sqlite_bind_str(st, 1, last.platform);
		sqlite_bind_str(st, 2, last.scope);
		sqlite_bind_str(st, 3, last.game);
		sqlite_bind_str(st, 4, last.player);
		sqlite3_bind_int64(st, 5, last.session);
		sqlite3_bind_int(st, 6, PAGE_ROWS);
		if (read_points(ss, st, &rows, &n, err))
			return -1;
		for (i = 0; i < n; i++) {
			last = rows[i];
			it.point = &rows[i];
			if (cb(ctx, &it)) {
				free(rows);
				return -1;
			}
		}
		free(rows);
	} while (n == PAGE_ROWS);
	return 0;
}

static int dump_players(struct sqlite_store *ss, store_item_cb cb, void *ctx, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_PLAYERS);
	struct store_item it = { .kind = STORE_ITEM_PLAYER };
	char *plat[PAGE_ROWS], *who[PAGE_ROWS], *ap = xstrdup(""), *aw = xstrdup("");
	int hidden[PAGE_ROWS], n = 0, i, rc, ret = -1;

	do {
		n = 0;
		sqlite_bind_str(st, 1, ap);
		sqlite_bind_str(st, 2, aw);
		sqlite3_bind_int(st, 3, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			plat[n] = sqlite_col_strdup(st, 0);
			who[n] = sqlite_col_strdup(st, 1);
			hidden[n++] = sqlite3_column_int(st, 2);
		}
		sqlite_st_done(st);
		if (rc != SQLITE_DONE) {
			seterr(err, "store: reading players failed");
			goto out;
		}
		for (i = 0; i < n; i++) {
			it.key = plat[i];
			it.value = who[i];
			it.hidden = hidden[i];
			if (cb(ctx, &it))
				goto out;
		}
		if (n) {
			free(ap);
			free(aw);
			ap = xstrdup(plat[n - 1]);
			aw = xstrdup(who[n - 1]);
		}
		for (i = 0; i < n; i++) {
			free(plat[i]);
			free(who[i]);
		}
	} while (n == PAGE_ROWS);
	n = 0;
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		free(plat[i]);
		free(who[i]);
	}
	free(ap);
	free(aw);
	return ret;
}

/* After sessions, actions, outbox and cursors (state/sqlite_copy.c). */
int sqlite_dump_ratings(struct sqlite_store *ss, store_item_cb cb, void *ctx, struct buf *err)
{
	if (dump_results(ss, cb, ctx, err) || dump_rating_rows(ss, cb, ctx, err) ||
	    dump_points(ss, cb, ctx, err) || dump_players(ss, cb, ctx, err))
		return -1;
	return 0;
}

/* One record of those kinds, inside the import's transaction: 0 or -1. */
int sqlite_import_rating_item(struct sqlite_store *ss, const struct store_item *it,
			      struct buf *err)
{
	struct store_result sr = { 0 };
	struct store_commit c = { 0 };

	switch (it->kind) {
	case STORE_ITEM_RESULT:
		sr.result = it->result;
		c.result = &sr;
		if (store_check_commit(&c, err))
			return -1;
		return result_insert(ss, it->result, it->result->session, err) ? -1 : 0;
	case STORE_ITEM_RATING:
		return rating_put(ss, it->rating, err);
	case STORE_ITEM_POINT:
		return point_put(ss, it->point, it->point->session, err);
	case STORE_ITEM_PLAYER:
		return sqlite_player_hide(&ss->base, it->key, it->value, it->hidden, err);
	default:
		seterr(err, "store: unknown record kind %d", (int)it->kind);
		return -1;
	}
}
