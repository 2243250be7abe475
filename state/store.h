/*
 * store.h: where sessions, seats, the move log, the outbox and platform
 * cursors live.  An interface (struct store_ops) with SQLite as the embedded
 * backend (state/sqlite.c) and PostgreSQL as the shared one
 * (state/postgres.c, several bot processes on one store); a fault-injecting
 * wrapper (state/fault.c) proves that a failed write loses nothing.
 *
 * The one write that matters is store_commit(): a session's new snapshot,
 * the moves appended to its log, the messages to send (outbox) and an
 * optional cursor, all in one transaction, and when a game ends its result
 * and the ratings it moves (so a game is rated once or not at all).
 * Nothing is sent before it returns 0; if it fails, nothing of it is stored.
 *
 * Return values: 0 success, -1 error with err filled; lookups return 1 found,
 * 0 not found, -1 error.  store_commit() tells two failures apart, because
 * the caller reacts differently: STORE_CONFLICT (the session changed since
 * it was read: reload and retry) and STORE_FENCED (the commit's lease is
 * not held: this process must not write for that platform any more).
 * Records are plain structs; the few heap strings in them are owned by the
 * record and freed with the *_release functions.
 *
 * Several processes (docs/deploy.md): a store with STORE_CAP_SHARED may be
 * written by other processes at any time.  Leases (a name held by one
 * holder until an expiry on the store's clock) say who does what: a node
 * lease per process, whose name is that process's `owner` of outbox rows
 * and due work; role leases ("matrix", "discord.shard.1.2") for what only
 * one process may do.  Claims hand due work and orphaned outbox rows to a
 * live node.  Every backend implements all of it (the contract suite runs
 * against each); the manager uses claims only when it is told its node.
 */
#ifndef STATE_STORE_H
#define STATE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* 2: votes, sessions_of_user, count_lobbies; 3: caps, conflict and fence
 * codes, session_stamp, leases, claims, dump and import; 4: cursors by
 * prefix, deleting a cursor (in a commit too); 5: finished games, ratings
 * and their history (a result in a commit), leaderboards, hiding and
 * forgetting a player; 7: the games' web links (store_web_*) */
#define STORE_API_VERSION 7
#define STORE_MAX_SEATS 8
#define STORE_VOTES_MAX 16384	/* bytes of session_rec.votes, NUL excluded */

/* store_commit()'s failures that the caller tells apart (any other: -1) */
#define STORE_CONFLICT (-2)	/* the session's stored version moved */
#define STORE_FENCED (-3)	/* the commit's fence lease is not held */

enum store_caps {
	/* other processes may write the store at any time (PostgreSQL) */
	STORE_CAP_SHARED = 1 << 0,
};

/* Lease and owner names: at most this many bytes, NUL excluded. */
#define STORE_NAME_MAX 127

enum session_status {
	SESSION_LOBBY = 0,
	SESSION_ACTIVE = 1,
	SESSION_FINISHED = 2,
	SESSION_ABORTED = 3,
};

struct seat_rec {
	char user[128];		/* platform user id; "" for an AI seat */
	char name[128];		/* display name as last seen */
	int is_bot;
	int notify_dm;
};

struct session_rec {
	int64_t id;		/* 0 until first stored */
	char platform[16];	/* "console", "discord", "matrix" */
	char room[256];		/* platform room/channel id */
	char game[32];		/* game id */
	char options[256];
	char creator[128];	/* user id of who opened the lobby */
	char locale[8];		/* "en", "es" */
	enum session_status status;
	uint64_t seed;
	int64_t version;	/* bumped on every committed change */
	int64_t created, updated;	/* unix seconds, set by the caller */
	int nseats;
	struct seat_rec seats[STORE_MAX_SEATS];
	char *state;		/* game save() as JSON text; NULL in the lobby; owned */
	/* room settings as a JSON object text (reminders, timeouts, pause:
	 * bot/settings.c reads it); "" = all defaults.  Schema migration 2. */
	char settings[512];
	/* when the session next needs the bot's attention (a reminder, a
	 * timeout), unix seconds; 0 = never.  Set by the caller on every
	 * commit; indexed (schema migration 3) so start-up reads one row. */
	int64_t due;
	/* the open votes of the session (abort, kick, settings) as a JSON
	 * object text keyed by the voters' user ids: bot/votes.c reads it,
	 * the store does not.  NULL or "" = none (read back as NULL); at most
	 * STORE_VOTES_MAX bytes; owned, like state.  Schema migration 4. */
	char *votes;
	/* the community the room belongs to (a Discord guild, a Matrix
	 * space), what its finished game is rated in; "" = none.  Schema
	 * migration 6. */
	char community[128];
};

struct action_rec {
	int64_t session;	/* filled by commit from the session */
	int64_t seq;		/* 1, 2, ... within the session */
	int seat;
	char move[256];		/* canonical move id */
	char user[128];		/* who sent it ("" for an AI seat) */
	int64_t at;
};

struct outbox_rec {
	int64_t id;		/* filled by commit */
	char platform[16];
	char room[256];
	char user[128];		/* "" = to the room; else a private message */
	char key[64];		/* idempotency key (Matrix txnId, Discord nonce) */
	char *payload;		/* JSON text (rich_to_json); owned */
	int64_t created;
};

/* ---- finished games and ratings (API version 5, schema migration 6) ---- */

/* One seat of a finished game.  place: 1 = best, ties share a place;
 * score in the game's own units; a shared win counts 1/nwinners. */
struct result_seat_rec {
	int seat;		/* 0, 1, ... as in the session */
	char player[128];	/* user id, "ai:basic"/"ai:strong"; "" once forgotten */
	char name[128];		/* display name then; "" once forgotten */
	int is_bot;
	int place;		/* >= 1 */
	int64_t score;
	int winner;		/* 0/1 */
	int nwinners;		/* how many shared the win (0 when nobody won) */
	int last;		/* 0/1: kicked or timed out, counted last */
};

/* A finished game: one per session, never rewritten (but by forget). */
struct result_rec {
	int64_t session;	/* the session's id; 0 in a commit = its session's */
	char platform[16];
	char room[256];
	char community[128];	/* a Discord guild, a Matrix space; "" = none */
	char game[32];
	char options[256];
	int64_t created;	/* the session's, unix seconds */
	int64_t finished_at;
	int64_t moves;		/* actions played */
	int rated;		/* 0/1: it moved the ratings */
	int nseats;
	struct result_seat_rec seats[STORE_MAX_SEATS];
};

/*
 * A player's rating in one game within a scope: "" = the whole platform,
 * else a community id.  conservative = mu - 3 sigma is the store's (set on
 * every write, what leaderboards sort by).  read_games is what a commit
 * checks: the games count the row had when it was read (0 for a new row;
 * ratings_get sets it to games), so two processes never rate from the
 * same old row.
 */
struct rating_rec {
	char platform[16];
	char scope[128];
	char game[32];
	char player[128];
	char name[128];		/* display name as last seen */
	double mu, sigma, conservative;
	int64_t games;
	double wins;		/* a shared win counts 1/k */
	int64_t place_sum, score_sum, best_score;
	int64_t streak;		/* +n wins in a row, -n losses in a row */
	int64_t last_at;	/* unix seconds of the last rated game */
	int64_t read_games;	/* commits only: see above */
	int found;		/* ratings_get: 1 when the row exists */
};

/* One point of a player's rating curve: after session, at `at`. */
struct rating_point_rec {
	char platform[16];
	char scope[128];
	char game[32];
	char player[128];
	int64_t session;
	int64_t at;
	double mu, sigma;
};

/* What a commit stores when a game ends (store_commit.result). */
struct store_result {
	const struct result_rec *result;
	const struct rating_rec *ratings;	/* upserted, each checked */
	size_t nratings;
	const struct rating_point_rec *points;	/* appended */
	size_t npoints;
};

/* the bound on a list's limit (leaderboard, results_recent, rating_points) */
#define STORE_LIST_MAX 1000
/* the bound on store_leaderboards' scopes and games (each) */
#define STORE_BOARDS_MAX 16

struct store_commit {
	struct session_rec *session;	/* upserted; id filled on insert */
	const struct action_rec *actions;
	size_t nactions;
	struct outbox_rec *outbox;	/* ids filled */
	size_t noutbox;
	const char *cursor_key;		/* optional: set with the rest */
	const char *cursor_value;
	/* with cursor_key: the cursor is deleted instead (cursor_value NULL);
	 * deleting one that is not there is no error */
	int cursor_delete;
	/* optional (undo): when truncate is set, the session's actions with
	 * seq > truncate_after are deleted first, in the same transaction */
	int truncate;
	int64_t truncate_after;
	/* optional: the node that delivers the outbox rows (its lease name,
	 * see outbox_claim); NULL or "" = none, any node may adopt them */
	const char *owner;
	/* optional fence: when fence_lease is set, the commit is stored only
	 * if that lease is held by fence_holder and unexpired when the
	 * transaction checks it (and nobody can take it over before the
	 * transaction ends); otherwise STORE_FENCED and nothing is stored */
	const char *fence_lease, *fence_holder;
	/* optional: a finished game, its ratings and their history, stored
	 * with the rest (so a game is rated once or not at all).  STORE_CONFLICT
	 * and nothing stored when the session already has a result or a
	 * rating row's games count is no longer its read_games.  Without a
	 * session in the commit the result's session id must be set. */
	const struct store_result *result;
};

/* One record of a whole store, as dump() delivers it (--migrate-store). */
enum store_item_kind {
	STORE_ITEM_SESSION,	/* session: read whole, seats and votes in it */
	STORE_ITEM_ACTION,	/* action */
	STORE_ITEM_OUTBOX,	/* outbox, with sent_at */
	STORE_ITEM_CURSOR,	/* key, value */
	STORE_ITEM_RESULT,	/* result, with its seats */
	STORE_ITEM_RATING,	/* rating */
	STORE_ITEM_POINT,	/* point */
	STORE_ITEM_PLAYER,	/* key = platform, value = player, hidden */
	STORE_ITEM_WEB,		/* ref = the session, value = its web token */
};

struct store_item {
	enum store_item_kind kind;
	const struct session_rec *session;
	const struct action_rec *action;
	const struct outbox_rec *outbox;
	int64_t sent_at;	/* OUTBOX: unix seconds, 0 while undelivered */
	const char *key, *value;
	const struct result_rec *result;
	const struct rating_rec *rating;
	const struct rating_point_rec *point;
	int hidden;		/* PLAYER */
	int64_t ref;		/* WEB: the session */
};

struct store;

typedef int (*store_session_cb)(void *ctx, const struct session_rec *s);
typedef int (*store_action_cb)(void *ctx, const struct action_rec *a);
typedef int (*store_outbox_cb)(void *ctx, const struct outbox_rec *o);
typedef int (*store_item_cb)(void *ctx, const struct store_item *it);
typedef int (*store_cursor_cb)(void *ctx, const char *key, const char *value);
typedef int (*store_games_cb)(void *ctx, const char *game, int status, int64_t n);
typedef int (*store_result_cb)(void *ctx, const struct result_rec *r);
typedef int (*store_rating_cb)(void *ctx, const struct rating_rec *r);
typedef int (*store_point_cb)(void *ctx, const struct rating_point_rec *p);

/* store_stats()'s figures, for the whole store */
struct store_stats {
	int64_t outbox_pending;		/* rows not yet delivered */
	int64_t outbox_oldest;		/* the oldest one's created (unix s), 0: none */
};

/*
 * What a game page's viewers were last shown of a session, to notice a
 * change committed by another process (bot/webwatch.c): session and
 * known are asked, the rest answered.  The last seq is read only when the
 * version is not the known one: a session that did not change costs two
 * index probes, none of them in its moves.
 */
struct store_web_mark {
	int64_t session;
	int64_t known;		/* the version the caller knows (-1: none) */
	int64_t version;	/* -1: no such session (deleted) */
	int64_t last_seq;	/* its last action's seq, 0: none; -1: not read
				 * (version == known) */
	char hash[65];		/* its web token's SHA-256 (hex), "": no link */
};

/* Callbacks return 0 to go on, non-zero to stop early (not an error). */
struct store_ops {
	unsigned api_version;
	const char *name;
	unsigned caps;				/* enum store_caps */
	void (*close)(struct store *s);		/* frees s */
	int (*commit)(struct store *s, struct store_commit *c, struct buf *err);
	/* The newest session of a room, whatever its status. */
	int (*session_current)(struct store *s, const char *platform, const char *room,
			       struct session_rec *out, struct buf *err);
	int (*session_get)(struct store *s, int64_t id, struct session_rec *out,
			   struct buf *err);
	/* Every session in the lobby or active, oldest first. */
	int (*sessions_open)(struct store *s, store_session_cb cb, void *ctx,
			     struct buf *err);
	/* The actions of a session with seq > after, in order. */
	int (*actions)(struct store *s, int64_t session, int64_t after,
		       store_action_cb cb, void *ctx, struct buf *err);
	/* Undelivered outbox messages, oldest first. */
	int (*outbox_pending)(struct store *s, store_outbox_cb cb, void *ctx,
			      struct buf *err);
	int (*outbox_done)(struct store *s, int64_t id, struct buf *err);
	int (*cursor_get)(struct store *s, const char *key, struct buf *value,
			  struct buf *err);
	/* Sessions with 0 < due <= until, earliest first (cb may stop). */
	int (*sessions_due)(struct store *s, int64_t until, store_session_cb cb, void *ctx,
			    struct buf *err);
	/* The smallest due > 0 of all sessions into *out, 0 when none. */
	int (*next_due)(struct store *s, int64_t *out, struct buf *err);
	int (*cursor_set)(struct store *s, const char *key, const char *value,
			  struct buf *err);
	/* Every open session (lobby or active) of platform in which user
	 * holds a human seat, oldest first, each read whole like session_get
	 * (an index on seats(user): no scan of the other sessions). */
	int (*sessions_of_user)(struct store *s, const char *platform, const char *user,
				store_session_cb cb, void *ctx, struct buf *err);
	/* The number of lobbies (status 0) open on platform into *out. */
	int (*count_lobbies)(struct store *s, const char *platform, int64_t *out,
			     struct buf *err);

	/* ---- API version 3 ---- */

	/* The id and version of the newest session of a room (what
	 * session_current would read) without reading it: 1, 0 (none: *id
	 * and *version 0), -1.  Tells a cached session it is stale. */
	int (*session_stamp)(struct store *s, const char *platform, const char *room,
			     int64_t *id, int64_t *version, struct buf *err);
	/*
	 * ttl_ms > 0: takes or renews the lease `name` for holder until
	 * now + ttl_ms on the store's clock (PostgreSQL's, so processes on
	 * several machines agree).  1 when holder holds it now, 0 when
	 * another holder's lease is unexpired (nothing changed), -1 error.
	 * ttl_ms == 0: gives it up if holder holds it; 0 (or -1).
	 */
	int (*lease)(struct store *s, const char *name, const char *holder, int64_t ttl_ms,
		     struct buf *err);
	/*
	 * Due work for a node: the sessions with 0 < due <= until on one of
	 * platforms (a NULL-terminated list) that are unclaimed, owner's, or
	 * claimed by a node whose lease has expired (a dead process) become
	 * owner's (a claim stays until another node takes it that way) and
	 * are delivered like sessions_due (earliest first, each read whole).
	 * Sessions a live other node claimed, or another process is committing
	 * right now, are skipped.
	 */
	int (*sessions_claim_due)(struct store *s, int64_t until, const char *owner,
				  const char *const *platforms, store_session_cb cb, void *ctx,
				  struct buf *err);
	/*
	 * Orphaned outbox messages for a node: those undelivered on one of
	 * platforms whose owner is "" or a node whose lease has expired become
	 * owner's and are delivered oldest first (not owner's own: it is
	 * alive and sending them).
	 */
	int (*outbox_claim)(struct store *s, const char *owner, const char *const *platforms,
			    store_outbox_cb cb, void *ctx, struct buf *err);
	/* Every record: all sessions (by id), actions (by session, seq), outbox
	 * rows (by id, sent ones too) and cursors (by key), in that order.
	 * Leases, claims and outbox owners are not part of it. */
	int (*dump)(struct store *s, store_item_cb cb, void *ctx, struct buf *err);
	/* Copies every record of `from` (its dump) into this store, ids kept,
	 * in one transaction; refused unless this store holds no session,
	 * outbox row or cursor.  0 or -1 (nothing copied). */
	int (*import)(struct store *s, struct store *from, struct buf *err);

	/* ---- API version 4 ---- */

	/*
	 * Every cursor whose key starts with prefix (not empty), in no
	 * promised order: cb(ctx, key, value), both valid during the call.
	 * The rows are read before the first call, so cb may write the store
	 * (set or delete cursors, even of this prefix).  Meant for small
	 * families of keys (one room's keys, the held events): at most
	 * STORE_PREFIX_MAX rows; more is an error and no callback runs.
	 */
	int (*cursors_prefix)(struct store *s, const char *prefix, store_cursor_cb cb,
			      void *ctx, struct buf *err);
	/* Deletes the cursor key: 0 (also when there was none) or -1. */
	int (*cursor_delete)(struct store *s, const char *key, struct buf *err);

	/* ---- API version 5: finished games and ratings ---- */

	/*
	 * The rating rows of players[0..n) in (platform, scope, game) into
	 * out[0..n): found 1 with the row (read_games = games), or found 0
	 * with the key fields set and the rest zero.  0 or -1.
	 */
	int (*ratings_get)(struct store *s, const char *platform, const char *scope,
			   const char *game, const char *const *players, size_t n,
			   struct rating_rec *out, struct buf *err);
	/* The best `limit` (1..STORE_LIST_MAX) rows of (platform, scope, game)
	 * with games >= min_games, by conservative (highest first, then by
	 * player), hidden players left out.  Rows are read before cb runs. */
	int (*leaderboard)(struct store *s, const char *platform, const char *scope,
			   const char *game, int64_t min_games, int limit, store_rating_cb cb,
			   void *ctx, struct buf *err);
	/* What leaderboard gives for every scope and every game at once:
	 * for each scope in order, each game in order, its rows.  One read
	 * (on PostgreSQL one round trip: `leaderboard` asks for every game
	 * of two scopes).  1..STORE_BOARDS_MAX scopes and games. */
	int (*leaderboards)(struct store *s, const char *platform, const char *const *scopes,
			    size_t nscopes, const char *const *games, size_t ngames,
			    int64_t min_games, int limit, store_rating_cb cb, void *ctx,
			    struct buf *err);
	/* Every row of player in (platform, scope), one per game, by game
	 * (hidden or not: it is their own). */
	int (*player_ratings)(struct store *s, const char *platform, const char *scope,
			      const char *player, store_rating_cb cb, void *ctx, struct buf *err);
	/* The newest `limit` points of a player's curve, oldest first. */
	int (*rating_points)(struct store *s, const char *platform, const char *scope,
			     const char *game, const char *player, int limit, store_point_cb cb,
			     void *ctx, struct buf *err);
	/* The last `limit` finished games of a room with their seats, newest
	 * (finished_at, then session) first. */
	int (*results_recent)(struct store *s, const char *platform, const char *room,
			      int limit, store_result_cb cb, void *ctx, struct buf *err);
	/* The result of a session: 1 found, 0 none, -1. */
	int (*result_get)(struct store *s, int64_t session, struct result_rec *out,
			  struct buf *err);
	/* Leaves (hidden 1) or rejoins (0) the leaderboards of platform. */
	int (*player_hide)(struct store *s, const char *platform, const char *player,
			   int hidden, struct buf *err);
	/*
	 * Forgets a player of platform, in one transaction: their ratings,
	 * history and hidden flag go; in results their player key and name
	 * become "" (a former player), and so does their name in the seats of
	 * closed (finished, aborted) sessions.  The games themselves (moves,
	 * hidden information) are untouched.  0 or -1.
	 */
	int (*player_forget)(struct store *s, const char *platform, const char *player,
			     struct buf *err);

	/* ---- API version 7: the games' web links (store_web_get, ...) ---- */

	/* The session's token into token[tokensz] ("" when it has none): 0, -1. */
	int (*web_get)(struct store *s, int64_t session, char *token, size_t tokensz,
		       struct buf *err);
	/* Stores token (already checked) as the session's, with its hash
	 * (64 hex digits of its SHA-256), replacing any other; keep: only
	 * when the session has none (another stays).  0, -1. */
	int (*web_put)(struct store *s, int64_t session, const char *token, const char *hash,
		       int keep, struct buf *err);
	/* The session whose token hashes to hash: 0 + *session, 1 none, -1. */
	int (*web_find)(struct store *s, const char *hash, int64_t *session, struct buf *err);
	/* marks[i].session's version, last seq and link hash, for every i,
	 * in one read (store_web_marks).  0, -1. */
	int (*web_marks)(struct store *s, struct store_web_mark *marks, size_t n,
			 struct buf *err);

	/* ---- optional (NULL: store_stats() says it cannot) ---- */

	/*
	 * What an operator's scrape shows (bot/ops.c): the undelivered
	 * outbox rows and the oldest one's time, and cb(ctx, game, status, n)
	 * once per game and open status (lobby, active) with open sessions.
	 * Two short reads over partial indexes.
	 */
	int (*stats)(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
		     struct buf *err);
};

/*
 * A game's web link (docs/web.md, "Links and tokens"): an unguessable
 * token per session, in the URL of its page.  A token is base64url
 * (A-Z a-z 0-9 - _); a new one is STORE_WEB_TOKEN_LEN letters and digits
 * drawn from the system's random bytes (getrandom), about 190 bits; a
 * buffer for one is STORE_WEB_TOKEN_MAX bytes, NUL included.  The store keeps the
 * token (the bot posts the link again on the final board) and its SHA-256,
 * and finds a session by the hash, so that how long a lookup takes says
 * nothing about how much of a guess was right.
 */
#define STORE_WEB_TOKEN_LEN 32		/* 32 x log2(62): 190 bits */
#define STORE_WEB_TOKEN_MAX 64

/* store_ops.cursors_prefix's bound on one family of keys */
#define STORE_PREFIX_MAX 65536

struct store {
	const struct store_ops *ops;
};

/*
 * Opens the store that `where` names: a postgresql:// or postgres:// URI
 * is PostgreSQL (store_pg_open), anything else a SQLite path.  NULL + err.
 */
struct store *store_open(const char *where, struct buf *err);
/* Whether where names a PostgreSQL store. */
int store_is_postgres(const char *where);
/* where as it may be logged: a password in a URI is replaced by "***". */
void store_describe(const char *where, struct buf *out);
/*
 * msg (an error text of libpq, which quotes what it could not parse: the
 * whole URI, a host, a token of the userinfo) as it may be logged, into
 * out: where itself is replaced by store_describe's form, then every copy
 * of its password (as written, and percent-decoded) by "***".
 */
void store_redact(const char *where, const char *msg, struct buf *out);

/*
 * Opens (creating and migrating) a SQLite store; ":memory:" works.
 * Returns a new store, or NULL with err.  The store holds every hidden
 * hand, so a file is private: created 0600 (its -wal and -shm follow the
 * database's mode), an existing one readable by others is made 0600, and
 * a path whose last component (or its -wal/-shm) is a symbolic link is
 * refused.  The file must be tabula's: its SQLite application_id is
 * STORE_APPLICATION_ID; an empty file, or a file of an older tabula (id 0
 * and tabula's tables), is stamped; anything else is refused untouched.
 */
#define STORE_APPLICATION_ID 0x74616275	/* "tabu" */
struct store *store_sqlite_open(const char *path, struct buf *err);

/* The schema version a SQLite file is at (for tests and --help). */
int store_sqlite_schema_version(void);

/*
 * Opens (creating and migrating) a PostgreSQL store: uri is a libpq
 * connection URI (postgresql://user@host/db?sslmode=verify-full, or with a
 * Unix socket: postgresql:///db?host=/run/postgresql).  The tables live in
 * the connection's current schema (search_path), which must be empty or
 * tabula's (its tabula_meta table names STORE_APPLICATION_ID); anything
 * else is refused untouched.  Every call is synchronous, bounded by
 * TABULA_DB_TIMEOUT (docs/store.md).  NULL + err.
 */
struct store *store_pg_open(const char *uri, struct buf *err);
/* The schema version of this program's PostgreSQL schema. */
int store_pg_schema_version(void);
/* Tests only: the next commit's answer is lost after PostgreSQL sent it
 * (so the commit is stored and the store must find that out). */
void store_pg_test_lose_answer(struct store *s);
/* How many connections the store has made (1 after open; tests). */
unsigned store_pg_connections(struct store *s);
/* How many round trips to the server the store has made since it was
 * opened: requests sent and waited for, a commit's pipeline counting one
 * (the connection's own start-up not counted).  bench_session divides it
 * by the commands it ran (docs/performance.md). */
uint64_t store_pg_round_trips(struct store *s);

/*
 * A store whose writes (commit, cursor_set) are stored only while the
 * lease `lease` is held by holder (struct store_commit's fence: otherwise
 * STORE_FENCED).  Borrows inner, which must outlive it; the names are
 * copied.  NULL for a NULL inner or a bad name.
 */
struct store *store_fence_wrap(struct store *inner, const char *lease, const char *holder);

/* Copies every record of from into to (see store_ops.import). */
int store_migrate(struct store *from, struct store *to, struct buf *err);

/* Wraps inner so that the write numbered fail_at (1-based: commit,
 * outbox_done, cursor_set, cursor_delete, player_hide, player_forget, web_put count
 * as writes) and every later
 * one fail without touching inner, until store_fault_heal().  Takes
 * ownership of inner. */
struct store *store_fault_wrap(struct store *inner, int fail_at);
void store_fault_heal(struct store *s);
/* The next n commits that update a stored session fail with STORE_CONFLICT
 * (as if another process had changed it), storing nothing. */
void store_fault_conflicts(struct store *s, int n);
int store_fault_writes(const struct store *s);	/* writes attempted so far */

void session_rec_init(struct session_rec *s);
void session_rec_release(struct session_rec *s);	/* frees state and votes */
void session_rec_copy(struct session_rec *dst, const struct session_rec *src);
const char *session_status_name(enum session_status st);
void outbox_rec_release(struct outbox_rec *o);

/* Call-site wrappers: the one place for logging and checks. */
static inline void store_close(struct store *s)
{
	if (s)
		s->ops->close(s);
}

static inline int store_commit(struct store *s, struct store_commit *c, struct buf *err)
{
	return s->ops->commit(s, c, err);
}

static inline int store_session_current(struct store *s, const char *platform,
					const char *room, struct session_rec *out,
					struct buf *err)
{
	return s->ops->session_current(s, platform, room, out, err);
}

static inline int store_session_get(struct store *s, int64_t id,
				    struct session_rec *out, struct buf *err)
{
	return s->ops->session_get(s, id, out, err);
}

static inline int store_sessions_open(struct store *s, store_session_cb cb, void *ctx,
				      struct buf *err)
{
	return s->ops->sessions_open(s, cb, ctx, err);
}

static inline int store_actions(struct store *s, int64_t session, int64_t after,
				store_action_cb cb, void *ctx, struct buf *err)
{
	return s->ops->actions(s, session, after, cb, ctx, err);
}

static inline int store_outbox_pending(struct store *s, store_outbox_cb cb, void *ctx,
				       struct buf *err)
{
	return s->ops->outbox_pending(s, cb, ctx, err);
}

static inline int store_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	return s->ops->outbox_done(s, id, err);
}

static inline int store_cursor_get(struct store *s, const char *key, struct buf *value,
				   struct buf *err)
{
	return s->ops->cursor_get(s, key, value, err);
}

static inline int store_sessions_due(struct store *s, int64_t until, store_session_cb cb,
				     void *ctx, struct buf *err)
{
	return s->ops->sessions_due(s, until, cb, ctx, err);
}

static inline int store_next_due(struct store *s, int64_t *out, struct buf *err)
{
	return s->ops->next_due(s, out, err);
}

static inline int store_cursor_set(struct store *s, const char *key, const char *value,
				   struct buf *err)
{
	return s->ops->cursor_set(s, key, value, err);
}

static inline int store_sessions_of_user(struct store *s, const char *platform,
					 const char *user, store_session_cb cb, void *ctx,
					 struct buf *err)
{
	return s->ops->sessions_of_user(s, platform, user, cb, ctx, err);
}

static inline int store_count_lobbies(struct store *s, const char *platform, int64_t *out,
				      struct buf *err)
{
	return s->ops->count_lobbies(s, platform, out, err);
}

static inline int store_stats(struct store *s, struct store_stats *out, store_games_cb cb,
			      void *ctx, struct buf *err)
{
	if (!s->ops->stats) {
		buf_setf(err, "the %s store keeps no figures", s->ops->name);
		return -1;
	}
	return s->ops->stats(s, out, cb, ctx, err);
}

static inline int store_ratings_get(struct store *s, const char *platform, const char *scope,
				    const char *game, const char *const *players, size_t n,
				    struct rating_rec *out, struct buf *err)
{
	return s->ops->ratings_get(s, platform, scope, game, players, n, out, err);
}

static inline int store_leaderboard(struct store *s, const char *platform, const char *scope,
				    const char *game, int64_t min_games, int limit,
				    store_rating_cb cb, void *ctx, struct buf *err)
{
	return s->ops->leaderboard(s, platform, scope, game, min_games, limit, cb, ctx, err);
}

static inline int store_leaderboards(struct store *s, const char *platform,
				     const char *const *scopes, size_t nscopes,
				     const char *const *games, size_t ngames, int64_t min_games,
				     int limit, store_rating_cb cb, void *ctx, struct buf *err)
{
	return s->ops->leaderboards(s, platform, scopes, nscopes, games, ngames, min_games, limit,
				    cb, ctx, err);
}

static inline int store_player_ratings(struct store *s, const char *platform,
				       const char *scope, const char *player,
				       store_rating_cb cb, void *ctx, struct buf *err)
{
	return s->ops->player_ratings(s, platform, scope, player, cb, ctx, err);
}

static inline int store_rating_points(struct store *s, const char *platform, const char *scope,
				      const char *game, const char *player, int limit,
				      store_point_cb cb, void *ctx, struct buf *err)
{
	return s->ops->rating_points(s, platform, scope, game, player, limit, cb, ctx, err);
}

static inline int store_results_recent(struct store *s, const char *platform, const char *room,
				       int limit, store_result_cb cb, void *ctx,
				       struct buf *err)
{
	return s->ops->results_recent(s, platform, room, limit, cb, ctx, err);
}

static inline int store_result_get(struct store *s, int64_t session, struct result_rec *out,
				   struct buf *err)
{
	return s->ops->result_get(s, session, out, err);
}

static inline int store_player_hide(struct store *s, const char *platform, const char *player,
				    int hidden, struct buf *err)
{
	return s->ops->player_hide(s, platform, player, hidden, err);
}

static inline int store_player_forget(struct store *s, const char *platform,
				      const char *player, struct buf *err)
{
	return s->ops->player_forget(s, platform, player, err);
}

/* The session's web token into token[tokensz] (at least
 * STORE_WEB_TOKEN_MAX bytes): 0 and the token, "" when the session has
 * none yet; -1 + err. */
int store_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
		  struct buf *err);
/* Gives the session a new token (the old one finds nothing from now on):
 * 0 and the token, -1 + err (nothing changed). */
int store_web_reset(struct store *s, int64_t session, char *token, size_t tokensz,
		    struct buf *err);
/* The session's token, made now when it has none (store_web_get, else a
 * new one as store_web_reset makes it, but one that several processes
 * asking at once all read back the same: the first stored).  0, -1 + err. */
int store_web_ensure(struct store *s, int64_t session, char *token, size_t tokensz,
		     struct buf *err);
/* The session of token: 0 + *session; 1 when no session has it (also a
 * token that cannot be one: too long, empty, a character outside
 * base64url); -1 + err.  Looks it up by its SHA-256. */
int store_web_find(struct store *s, const char *token, int64_t *session, struct buf *err);
/* The SHA-256 of token as 64 lowercase hex digits (hex[65]), as the
 * store keeps it: 0, -1 + err. */
int store_web_hash(const char *token, char hex[65], struct buf *err);
/* For every marks[i].session (n distinct ones, n <= STORE_WEB_MARKS_MAX),
 * its version, web link's hash and, when the version is not marks[i].known,
 * its last action's seq, in one read: what a
 * process polls to see the games its page viewers watch move elsewhere.
 * marks come back sorted by session.  0, -1 + err (n too big). */
#define STORE_WEB_MARKS_MAX 4096
int store_web_marks(struct store *s, struct store_web_mark *marks, size_t n, struct buf *err);
/* The mark of session in marks[n] (as store_web_marks sorted them), or
 * NULL. */
struct store_web_mark *store_web_mark_find(struct store_web_mark *marks, size_t n,
					   int64_t session);

static inline int store_shared(const struct store *s)
{
	return (s->ops->caps & STORE_CAP_SHARED) != 0;
}

static inline int store_session_stamp(struct store *s, const char *platform, const char *room,
				      int64_t *id, int64_t *version, struct buf *err)
{
	return s->ops->session_stamp(s, platform, room, id, version, err);
}

static inline int store_lease(struct store *s, const char *name, const char *holder,
			      int64_t ttl_ms, struct buf *err)
{
	return s->ops->lease(s, name, holder, ttl_ms, err);
}

static inline int store_sessions_claim_due(struct store *s, int64_t until, const char *owner,
					   const char *const *platforms, store_session_cb cb,
					   void *ctx, struct buf *err)
{
	return s->ops->sessions_claim_due(s, until, owner, platforms, cb, ctx, err);
}

static inline int store_outbox_claim(struct store *s, const char *owner,
				     const char *const *platforms, store_outbox_cb cb,
				     void *ctx, struct buf *err)
{
	return s->ops->outbox_claim(s, owner, platforms, cb, ctx, err);
}

static inline int store_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	return s->ops->dump(s, cb, ctx, err);
}

static inline int store_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
				       void *ctx, struct buf *err)
{
	return s->ops->cursors_prefix(s, prefix, cb, ctx, err);
}

static inline int store_cursor_delete(struct store *s, const char *key, struct buf *err)
{
	return s->ops->cursor_delete(s, key, err);
}

#endif
