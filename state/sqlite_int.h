/*
 * sqlite_int.h: what the SQLite store's files share (state/sqlite*.c only):
 * the connection and its prepared statements, and the helpers every part
 * uses to run them.  state/sqlite.c holds the statements, reads, writes
 * and the store_ops wiring; sqlite_open.c opening (the file's privacy,
 * tabula's claim, migrations, WAL) and closing; sqlite_cluster.c leases
 * and claims (several processes); sqlite_copy.c dump and import;
 * sqlite_ratings.c finished games and ratings; sqlite_web.c the games'
 * web links.
 */
#ifndef STATE_SQLITE_INT_H
#define STATE_SQLITE_INT_H

#include <sqlite3.h>

#include "state/rows.h"
#include "state/store.h"

#define PAGE_ROWS 64

enum stmt_id {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_SESSION_INSERT,
	ST_SESSION_UPDATE,
	ST_SESSION_VERSION,
	ST_SEATS_DELETE,
	ST_SEAT_INSERT,
	ST_ACTION_INSERT,
	ST_ACTIONS_TRUNCATE,
	ST_OUTBOX_INSERT,
	ST_CURSOR_SET,
	ST_SESSION_GET,
	ST_SESSION_CURRENT,
	ST_SESSIONS_OPEN,
	ST_ACTIONS,
	ST_OUTBOX_PENDING,
	ST_OUTBOX_DONE,
	ST_CURSOR_GET,
	ST_SESSIONS_DUE,
	ST_NEXT_DUE,
	ST_SESSIONS_OF_USER,
	ST_COUNT_LOBBIES,
	ST_STATS_OUTBOX,
	ST_STATS_GAMES,
	ST_SESSION_STAMP,
	ST_LEASE_TAKE,
	ST_LEASE_DROP,
	ST_LEASE_CHECK,
	ST_CLAIM_DUE_PAGE,
	ST_CLAIM_SESSION,
	ST_CLAIM_OUTBOX_PAGE,
	ST_CLAIM_OUTBOX,
	ST_DUMP_SESSIONS,
	ST_DUMP_ACTIONS,
	ST_DUMP_OUTBOX,
	ST_DUMP_CURSORS,
	ST_IMPORT_SESSION,
	ST_IMPORT_OUTBOX,
	ST_COUNT_RECORDS,
	ST_CURSOR_DELETE,
	ST_CURSORS_PREFIX,
	/* state/sqlite_ratings.c's */
	ST_RATINGS_FIRST,
	ST_RESULT_INSERT = ST_RATINGS_FIRST,
	ST_RESULT_SEAT_INSERT,
	ST_RATING_GAMES,
	ST_RATING_PUT,
	ST_POINT_INSERT,
	ST_RATING_GET,
	ST_LEADERBOARD,
	ST_PLAYER_RATINGS,
	ST_RATING_POINTS,
	ST_RESULTS_RECENT,
	ST_RESULT_GET,
	ST_PLAYER_HIDE,
	ST_FORGET_RATINGS,
	ST_FORGET_HISTORY,
	ST_FORGET_PLAYER,
	ST_FORGET_RESULTS,
	ST_FORGET_SEATS,
	ST_DUMP_RESULTS,
	ST_DUMP_RATINGS,
	ST_DUMP_POINTS,
	ST_DUMP_PLAYERS,
	/* state/sqlite_web.c's */
	ST_WEB_FIRST,
	ST_WEB_GET = ST_WEB_FIRST,
	ST_WEB_PUT,
	ST_WEB_ADD,
	ST_WEB_FIND,
	ST_DUMP_WEB,
	ST_WEB_MARK,
	ST_COUNT
};

struct sqlite_store {
	struct store base;
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	struct walckpt *ckpt;	/* files only; NULL in memory */
};

extern const struct store_ops sqlite_ops;

struct sqlite_store *sqlite_downcast(struct store *s);

/* Prepares every statement of the table in state/sqlite.c. */
int sqlite_prepare_all(struct sqlite_store *ss, struct buf *err);

/* Binds parameters ?1, ?2, ... in order (a struct rows_writer). */
struct sqlite_binder {
	sqlite3_stmt *st;
	int n;
};

#define SQLITE_WRITER(b) { &(b), sqlite_put_i64, sqlite_put_text, sqlite_put_f64 }

/* helpers: state/sqlite.c */
int sqlite_fail(struct sqlite_store *ss, struct buf *err, const char *what);
sqlite3_stmt *sqlite_st(struct sqlite_store *ss, enum stmt_id id);
void sqlite_st_done(sqlite3_stmt *st);
int sqlite_st_run(struct sqlite_store *ss, sqlite3_stmt *st, struct buf *err,
		  const char *what);
int sqlite_int_st(struct sqlite_store *ss, sqlite3_stmt *st, int *out, struct buf *err);
int sqlite_exec_sql(struct sqlite_store *ss, const char *sql, struct buf *err);
void sqlite_rollback(struct sqlite_store *ss);
char *sqlite_col_strdup(sqlite3_stmt *st, int col);
void sqlite_bind_str(sqlite3_stmt *st, int i, const char *s);
struct rows_reader sqlite_reader(sqlite3_stmt *st);
int sqlite_session_get(struct store *s, int64_t id, struct session_rec *out,
		       struct buf *err);
int sqlite_deliver_due_page(struct store *s, const int64_t *ids, const int64_t *dues, int n,
			    int64_t *after_due, int64_t *after_id, struct session_rec *rec,
			    store_session_cb cb, void *ctx, struct buf *err);
int sqlite_read_outbox(sqlite3_stmt *st, struct outbox_rec *o, struct buf *err);
void sqlite_bind_session(sqlite3_stmt *st, const struct session_rec *s);
int sqlite_seats_replace(struct sqlite_store *ss, int64_t id,
			 const struct session_rec *s, int existed, struct buf *err);
int sqlite_action_append(struct sqlite_store *ss, int64_t session,
			 const struct action_rec *a, struct buf *err);
int sqlite_cursor_put(struct sqlite_store *ss, const char *key, const char *value,
		      struct buf *err);
void sqlite_put_i64(void *ctx, int64_t v);
void sqlite_put_text(void *ctx, const char *s);
void sqlite_put_f64(void *ctx, double v);

/* several processes: state/sqlite_cluster.c */
int sqlite_fence_check(struct sqlite_store *ss, const char *lease, const char *holder,
		       struct buf *err);
int sqlite_session_stamp(struct store *s, const char *platform, const char *room,
			 int64_t *id, int64_t *version, struct buf *err);
int sqlite_lease(struct store *s, const char *name, const char *holder,
		 int64_t ttl_ms, struct buf *err);
int sqlite_sessions_claim_due(struct store *s, int64_t until, const char *owner,
			      const char *const *platforms, store_session_cb cb,
			      void *ctx, struct buf *err);
int sqlite_outbox_claim(struct store *s, const char *owner,
			const char *const *platforms, store_outbox_cb cb, void *ctx,
			struct buf *err);

/* dump and import: state/sqlite_copy.c */
int sqlite_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err);
int sqlite_import(struct store *s, struct store *from, struct buf *err);

/* finished games and ratings: state/sqlite_ratings.c */
extern const char *const sqlite_ratings_sql[ST_WEB_FIRST - ST_RATINGS_FIRST];
int sqlite_result_store(struct sqlite_store *ss, const struct store_result *sr, int64_t sid,
			struct buf *err);
int sqlite_ratings_get(struct store *s, const char *platform, const char *scope,
		       const char *game, const char *const *players, size_t n,
		       struct rating_rec *out, struct buf *err);
int sqlite_leaderboard(struct store *s, const char *platform, const char *scope,
		       const char *game, int64_t min_games, int limit, store_rating_cb cb,
		       void *ctx, struct buf *err);
int sqlite_leaderboards(struct store *s, const char *platform, const char *const *scopes,
			size_t nscopes, const char *const *games, size_t ngames, int64_t min_games,
			int limit, store_rating_cb cb, void *ctx, struct buf *err);
int sqlite_player_ratings(struct store *s, const char *platform, const char *scope,
			  const char *player, store_rating_cb cb, void *ctx, struct buf *err);
int sqlite_rating_points(struct store *s, const char *platform, const char *scope,
			 const char *game, const char *player, int limit, store_point_cb cb,
			 void *ctx, struct buf *err);
int sqlite_results_recent(struct store *s, const char *platform, const char *room,
			  int limit, store_result_cb cb, void *ctx, struct buf *err);
int sqlite_result_get(struct store *s, int64_t session, struct result_rec *out,
		      struct buf *err);
int sqlite_player_hide(struct store *s, const char *platform, const char *player,
		       int hidden, struct buf *err);
int sqlite_player_forget(struct store *s, const char *platform, const char *player,
			 struct buf *err);
int sqlite_dump_ratings(struct sqlite_store *ss, store_item_cb cb, void *ctx,
			struct buf *err);
int sqlite_import_rating_item(struct sqlite_store *ss, const struct store_item *it,
			      struct buf *err);

/* the games' web links: state/sqlite_web.c */
extern const char *const sqlite_web_sql[ST_COUNT - ST_WEB_FIRST];
int sqlite_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
		   struct buf *err);
int sqlite_web_put(struct store *s, int64_t session, const char *token, const char *hash,
		   int keep, struct buf *err);
int sqlite_web_find(struct store *s, const char *hash, int64_t *session, struct buf *err);
int sqlite_web_marks(struct store *s, struct store_web_mark *marks, size_t n,
		     struct buf *err);
int sqlite_dump_web(struct sqlite_store *ss, store_item_cb cb, void *ctx, struct buf *err);
int sqlite_import_web(struct sqlite_store *ss, const struct store_item *it, struct buf *err);

/* state/sqlite_open.c */
void sqlite_close(struct store *s);

#endif
