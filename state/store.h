/*
 * store.h: where sessions, seats, the move log, the outbox and platform
 * cursors live.  An interface (struct store_ops) with SQLite as the embedded
 * backend (state/sqlite.c); a fault-injecting wrapper (state/fault.c) proves
 * that a failed write loses nothing.
 *
 * The one write that matters is store_commit(): a session's new snapshot,
 * the moves appended to its log, the messages to send (outbox) and an
 * optional cursor, all in one transaction.  Nothing is sent before it
 * returns 0; if it fails, nothing of it is stored.
 *
 * Return values: 0 success, -1 error with err filled; lookups return 1 found,
 * 0 not found, -1 error.  Records are plain structs; the few heap strings in
 * them are owned by the record and freed with the *_release functions.
 */
#ifndef STATE_STORE_H
#define STATE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define STORE_API_VERSION 2	/* 2: votes, sessions_of_user, count_lobbies */
#define STORE_MAX_SEATS 8
#define STORE_VOTES_MAX 16384	/* bytes of session_rec.votes, NUL excluded */

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

struct store_commit {
	struct session_rec *session;	/* upserted; id filled on insert */
	const struct action_rec *actions;
	size_t nactions;
	struct outbox_rec *outbox;	/* ids filled */
	size_t noutbox;
	const char *cursor_key;		/* optional: set with the rest */
	const char *cursor_value;
	/* optional (undo): when truncate is set, the session's actions with
	 * seq > truncate_after are deleted first, in the same transaction */
	int truncate;
	int64_t truncate_after;
};

struct store;

typedef int (*store_session_cb)(void *ctx, const struct session_rec *s);
typedef int (*store_action_cb)(void *ctx, const struct action_rec *a);
typedef int (*store_outbox_cb)(void *ctx, const struct outbox_rec *o);

/* Callbacks return 0 to go on, non-zero to stop early (not an error). */
struct store_ops {
	unsigned api_version;
	const char *name;
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
};

struct store {
	const struct store_ops *ops;
};

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

/* Wraps inner so that the write numbered fail_at (1-based: commit,
 * outbox_done, cursor_set count as writes) and every later one fail
 * without touching inner, until store_fault_heal().  Takes ownership of
 * inner. */
struct store *store_fault_wrap(struct store *inner, int fail_at);
void store_fault_heal(struct store *s);
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

#endif
