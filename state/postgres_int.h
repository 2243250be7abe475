/*
 * postgres_int.h: what the PostgreSQL store's files share (state/postgres*.c
 * only): the connection, the prepared statements and the helpers that run
 * them.  state/postgres.c holds the statements, reads and the store_ops
 * wiring; postgres_conn.c the connection (bounded waits, reconnecting,
 * running a statement); postgres_commit.c the pipelined commit and the
 * cursor writes; postgres_cluster.c leases and claims; postgres_copy.c
 * dump and import; postgres_open.c opening: tabula's claim on the schema,
 * migrations (state/schema.c), closing; postgres_ratings.c finished
 * games and ratings (their statements too, after P_RATINGS_FIRST);
 * postgres_web.c the games' web links (after P_WEB_FIRST).
 */
#ifndef STATE_POSTGRES_INT_H
#define STATE_POSTGRES_INT_H

#include <libpq-fe.h>

#include "state/rows.h"
#include "state/store.h"

#define PAGE_ROWS 64
#define TIMEOUT_DEFAULT_MS 5000
#define TIMEOUT_MIN_MS 100
#define TIMEOUT_MAX_MS 600000
/* after a failed connection, calls fail at once for this long */
#define RECONNECT_PAUSE_MS 1000
#define APPLICATION_ID "74616275"	/* STORE_APPLICATION_ID, "tabu" */
#define MAX_PARAMS 20

/* Custom SQLSTATEs raised by the schema's functions (migration 5). */
#define STATE_CONFLICT "TB001"
#define STATE_NO_SESSION "TB002"
#define STATE_FENCED "TB003"
#define STATE_UNIQUE "23505"

enum pg_stmt {
	P_NEXT_ID,
	P_EXPECT,
	P_FENCE,
	P_SESSION_INSERT,
	P_SESSION_UPDATE,
	P_SEATS_TRIM,
	P_SEAT_INSERT,
	P_SEAT_UPSERT,
	P_ACTION_INSERT,
	P_ACTIONS_TRUNCATE,
	P_OUTBOX_INSERT,
	P_CURSOR_SET,
	P_SESSION_GET,
	P_SESSION_CURRENT,
	P_SESSIONS_OPEN,
	P_ACTIONS,
	P_OUTBOX_PENDING,
	P_OUTBOX_DONE,
	P_CURSOR_GET,
	P_SESSIONS_DUE,
	P_NEXT_DUE,
	P_SESSIONS_OF_USER,
	P_COUNT_LOBBIES,
	P_STATS_OUTBOX,
	P_STATS_GAMES,
	P_SESSION_STAMP,
	P_LEASE_TAKE,
	P_LEASE_DROP,
	P_CLAIM_DUE,
	P_CLAIM_OUTBOX,
	P_DUMP_SESSIONS,
	P_DUMP_ACTIONS,
	P_DUMP_OUTBOX,
	P_DUMP_CURSORS,
	P_IMPORT_OUTBOX,
	P_COUNT_RECORDS,
	P_SETVAL,
	P_VERSION_OF,
	P_OUTBOX_BY_KEY,
	P_CURSOR_DELETE,
	P_CURSORS_PREFIX,
	/* state/postgres_ratings.c's */
	P_RATINGS_FIRST,
	P_RESULT_INSERT = P_RATINGS_FIRST,
	P_RESULT_SEAT_INSERT,
	P_RATING_PUT,
	P_POINT_INSERT,
	P_RATING_GET,
	P_LEADERBOARD,
	P_LEADERBOARDS,
	P_PLAYER_RATINGS,
	P_RATING_POINTS,
	P_RESULTS_RECENT,
	P_RESULT_GET,
	P_PLAYER_HIDE,
	P_FORGET,
	P_DUMP_RESULTS,
	P_DUMP_RATINGS,
	P_DUMP_POINTS,
	P_DUMP_PLAYERS,
	/* state/postgres_web.c's */
	P_WEB_FIRST,
	P_WEB_GET = P_WEB_FIRST,
	P_WEB_PUT,
	P_WEB_ADD,
	P_WEB_FIND,
	P_DUMP_WEB,
	P_WEB_MARKS,
	P_COUNT
};

/* The SQL of each statement, prepared on every connection as "t<id>":
 * pg_stmt_sql's below P_RATINGS_FIRST, pg_ratings_sql's from it,
 * pg_web_sql's from P_WEB_FIRST. */
extern const char *const pg_stmt_sql[P_RATINGS_FIRST];
extern const char *const pg_ratings_sql[P_WEB_FIRST - P_RATINGS_FIRST];
extern const char *const pg_web_sql[P_COUNT - P_WEB_FIRST];
const char *pg_stmt_text(int id);

struct pg_store {
	struct store base;
	PGconn *conn;		/* NULL while disconnected */
	char *uri;
	int timeout_ms;
	uint64_t pause_until;	/* monotonic ms: no reconnect before */
	int pinned;		/* in an explicit transaction: never reconnect */
	int lose_answer;	/* tests: drop the next commit's answer */
	unsigned generation;	/* connections made so far (tests) */
	uint64_t round_trips;	/* requests sent and waited for (benches) */
};

extern const struct store_ops pg_ops;

struct pg_store *pg_downcast(struct store *s);

/* Parameters of one statement, as text. */
struct pg_params {
	const char *v[MAX_PARAMS];
	char num[MAX_PARAMS][32];	/* an int64 or a double (%.17g) */
	int n;
};

/* The row codecs' driver calls (state/rows.h): a row of a result. */
struct pg_row {
	const PGresult *r;
	int i;
};

#define PG_READER(x) { &(x), pg_row_i64, pg_row_is_null, pg_row_text, pg_row_f64 }

/* Whether a session read again is passed over (changed since its page). */
typedef int (*pg_skip_fn)(const struct session_rec *rec, const void *arg, int i);

/* the connection: state/postgres_conn.c */
uint64_t pg_mono_ms(void);
void pg_disconnect(struct pg_store *ps);
void pg_conn_error(struct pg_store *ps, struct buf *err, const char *what);
int pg_wait_sock(struct pg_store *ps, short ev, uint64_t deadline, struct buf *err,
		 const char *what);
int pg_flush_out(struct pg_store *ps, uint64_t deadline, struct buf *err,
		 const char *what);
PGresult *pg_next_result(struct pg_store *ps, uint64_t deadline, int *lost,
			 struct buf *err, const char *what);
const char *pg_sqlstate(const PGresult *r);
void pg_result_error(const PGresult *r, struct buf *err, const char *what);
int pg_ok_status(const PGresult *r);
int pg_exec_simple(struct pg_store *ps, const char *sql, PGresult **last, struct buf *err);
int pg_prepare_all(struct pg_store *ps, struct buf *err);
int pg_connect_now(struct pg_store *ps, struct buf *err);
int pg_ready(struct pg_store *ps, struct buf *err);
void pg_param_text(struct pg_params *p, const char *s);
void pg_param_i64(struct pg_params *p, int64_t x);
void pg_param_f64(struct pg_params *p, double x);
int pg_send(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p,
	    struct buf *err);
PGresult *pg_run(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p, int retry,
		 struct buf *err);

/* reading rows: state/postgres.c */
int64_t pg_col_i64(const PGresult *r, int row, int col);
struct rows_writer pg_writer(struct pg_params *p);
int pg_platform_array(const char *const *platforms, struct buf *out, struct buf *err);
int pg_session_get(struct store *s, int64_t id, struct session_rec *out,
		   struct buf *err);
int pg_id_page(struct pg_store *ps, enum pg_stmt id, struct pg_params *p, int64_t *ids,
	       int *n, struct buf *err);
int pg_deliver_page(struct store *s, const int64_t *ids, int n, struct session_rec *rec,
		    pg_skip_fn skip, const void *arg, store_session_cb cb, void *ctx,
		    struct buf *err);
/* a pg_skip_fn: the session's due is no longer the page's dues[i] */
int pg_due_changed(const struct session_rec *rec, const void *arg, int i);
int pg_read_outbox(const PGresult *r, int row, struct outbox_rec *o, struct buf *err);
int64_t pg_row_i64(void *row, int col);
double pg_row_f64(void *row, int col);
int pg_row_is_null(void *row, int col);
const char *pg_row_text(void *row, int col, size_t *len);

/* writes: state/postgres_commit.c */
void pg_session_params(struct pg_params *p, const struct session_rec *s, int64_t id);
void pg_seat_params(struct pg_params *p, int64_t sid, int i, const struct seat_rec *seat);
void pg_action_params(struct pg_params *p, int64_t sid, const struct action_rec *a);
int pg_commit(struct store *s, struct store_commit *c, struct buf *err);
int pg_cursor_set(struct store *s, const char *key, const char *value,
		  struct buf *err);
int pg_cursor_delete(struct store *s, const char *key, struct buf *err);
int pg_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
		      void *ctx, struct buf *err);

/* several processes: state/postgres_cluster.c */
int pg_lease(struct store *s, const char *name, const char *holder, int64_t ttl_ms,
	     struct buf *err);
int pg_sessions_claim_due(struct store *s, int64_t until, const char *owner,
			  const char *const *platforms, store_session_cb cb, void *ctx,
			  struct buf *err);
int pg_outbox_claim(struct store *s, const char *owner, const char *const *platforms,
		    store_outbox_cb cb, void *ctx, struct buf *err);

/* dump and import: state/postgres_copy.c */
int pg_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err);
int pg_import(struct store *s, struct store *from, struct buf *err);

/* finished games and ratings: state/postgres_ratings.c */
int pg_ratings_get(struct store *s, const char *platform, const char *scope,
		   const char *game, const char *const *players, size_t n,
		   struct rating_rec *out, struct buf *err);
int pg_leaderboard(struct store *s, const char *platform, const char *scope,
		   const char *game, int64_t min_games, int limit, store_rating_cb cb,
		   void *ctx, struct buf *err);
int pg_leaderboards(struct store *s, const char *platform, const char *const *scopes,
		    size_t nscopes, const char *const *games, size_t ngames, int64_t min_games,
		    int limit, store_rating_cb cb, void *ctx, struct buf *err);
int pg_player_ratings(struct store *s, const char *platform, const char *scope,
		      const char *player, store_rating_cb cb, void *ctx, struct buf *err);
int pg_rating_points(struct store *s, const char *platform, const char *scope,
		     const char *game, const char *player, int limit, store_point_cb cb,
		     void *ctx, struct buf *err);
int pg_results_recent(struct store *s, const char *platform, const char *room,
		      int limit, store_result_cb cb, void *ctx, struct buf *err);
int pg_result_get(struct store *s, int64_t session, struct result_rec *out,
		  struct buf *err);
int pg_player_hide(struct store *s, const char *platform, const char *player,
		   int hidden, struct buf *err);
int pg_player_forget(struct store *s, const char *platform, const char *player,
		     struct buf *err);
int pg_dump_ratings(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err);
int pg_import_rating_item(struct pg_store *ps, const struct store_item *it,
			  struct buf *err);

/* the games' web links: state/postgres_web.c */
int pg_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
	       struct buf *err);
int pg_web_put(struct store *s, int64_t session, const char *token, const char *hash,
	       int keep, struct buf *err);
int pg_web_find(struct store *s, const char *hash, int64_t *session, struct buf *err);
int pg_web_marks(struct store *s, struct store_web_mark *marks, size_t n, struct buf *err);
int pg_dump_web(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err);
/* one web link of a dump, in the import's transaction (never retried) */
int pg_import_web(struct pg_store *ps, const struct store_item *it, struct buf *err);

/* state/postgres_open.c */
void pg_close(struct store *s);

#endif
