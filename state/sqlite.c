/*
 * sqlite.c: the embedded store (state/store.h) on one SQLite connection.
 *
 * Durability: files run in WAL mode with synchronous=NORMAL (a crash of the
 * process loses no committed transaction; a power cut may lose the last few)
 * or, with TABULA_DB_SYNC=full, synchronous=FULL (every commit is fsynced).
 * See docs/store.md.
 *
 * The schema grows only through the numbered migrations of state/schema.c,
 * shared with PostgreSQL.  Statements are prepared once at open and reused,
 * because commit and session_current run on every chat command.
 *
 * The file holds every hidden hand: it is created 0600 (SQLite gives its
 * -wal and -shm the database's mode), an existing one is made 0600, a
 * symbolic link is refused, and a database that is not tabula's (another
 * application_id, or someone else's tables) is refused untouched.
 *
 * Iterators (sessions_open, sessions_due, sessions_of_user, actions,
 * outbox_pending) read a page of rows, reset their statement and only then
 * call the callback, so a callback may call back into the store (typically
 * outbox_done from inside outbox_pending) without disturbing the iteration.
 */
#include "state/store.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "state/rows.h"
#include "state/schema.h"
#include "state/store_int.h"
#include "state/walckpt.h"

#define BUSY_TIMEOUT_MS 5000
#define PAGE_ROWS 64

/* ---------------------------------------------------------------- schema */

/* The schema and its migrations are state/schema.c's, shared with
 * PostgreSQL; here the version is PRAGMA user_version. */
int store_sqlite_schema_version(void)
{
	return schema_version();
}

/* ------------------------------------------------------------ statements */

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
	ST_COUNT
};

/*
 * A session is read with its seats in one statement (one implicit read
 * transaction, so the two are a consistent snapshot even with another
 * process writing).  Column order is enum rows_session_col (state/rows.h).
 */
#define SESSION_SELECT \
	"SELECT s.id, s.platform, s.room, s.game, s.options, s.creator," \
	" s.locale, s.status, s.seed, s.version, s.created, s.updated, s.state," \
	" s.settings, s.due, s.votes," \
	" t.seat, t.user, t.name, t.is_bot, t.notify_dm" \
	" FROM sessions s LEFT JOIN seats t ON t.session = s.id"

static const char *const stmt_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_SESSION_INSERT] =
		"INSERT INTO sessions (platform, room, game, options, creator,"
		" locale, status, seed, version, created, updated, state, settings,"
		" due, votes)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?12, ?9, ?10, ?11, ?13,"
		" ?15, ?16)",
	/* Optimistic concurrency: the caller bumps the version it read by one,
	 * so a change made from a stale copy matches nothing. */
	[ST_SESSION_UPDATE] =
		"UPDATE sessions SET platform = ?1, room = ?2, game = ?3,"
		" options = ?4, creator = ?5, locale = ?6, status = ?7, seed = ?8,"
		" created = ?9, updated = ?10, state = ?11, version = ?12,"
		" settings = ?13, due = ?15, votes = ?16"
		" WHERE id = ?14 AND version = ?12 - 1",
	[ST_SESSION_VERSION] = "SELECT version FROM sessions WHERE id = ?1",
	[ST_SEATS_DELETE] = "DELETE FROM seats WHERE session = ?1",
	[ST_SEAT_INSERT] =
		"INSERT INTO seats (session, seat, user, name, is_bot, notify_dm)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_ACTION_INSERT] =
		"INSERT INTO actions (session, seq, seat, move, user, at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_ACTIONS_TRUNCATE] = "DELETE FROM actions WHERE session = ?1 AND seq > ?2",
	[ST_OUTBOX_INSERT] =
		"INSERT INTO outbox (platform, room, user, key, payload, created, owner)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_CURSOR_SET] =
		"INSERT INTO cursors (key, value) VALUES (?1, ?2)"
		" ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	[ST_SESSION_GET] = SESSION_SELECT " WHERE s.id = ?1 ORDER BY t.seat",
	[ST_SESSION_CURRENT] = SESSION_SELECT
		" WHERE s.id = (SELECT id FROM sessions"
		" WHERE platform = ?1 AND room = ?2 ORDER BY id DESC LIMIT 1)"
		" ORDER BY t.seat",
	[ST_SESSIONS_OPEN] =
		"SELECT id FROM sessions WHERE status IN (0, 1) AND id > ?1"
		" ORDER BY id LIMIT ?2",
	[ST_ACTIONS] =
		"SELECT seq, seat, move, user, at FROM actions"
		" WHERE session = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
	[ST_OUTBOX_PENDING] =
		"SELECT id, platform, room, user, key, payload, created FROM outbox"
		" WHERE sent_at IS NULL AND id > ?1 ORDER BY id LIMIT ?2",
	/* Idempotent: a second call keeps the first delivery time.  The
	 * payload goes: nothing reads a sent message again, and payloads
	 * were 93-95 % of a store (docs/performance.md). */
	[ST_OUTBOX_DONE] =
		"UPDATE outbox SET sent_at ="
		" coalesce(sent_at, CAST(strftime('%s', 'now') AS INTEGER)),"
		" payload = '' WHERE id = ?1",
	[ST_CURSOR_GET] = "SELECT value FROM cursors WHERE key = ?1",
	/* Keyset paging on (due, id), both ascending, through sessions_due;
	 * "due > 0" is spelled out so that the partial index applies. */
	[ST_SESSIONS_DUE] =
		"SELECT id, due FROM sessions"
		" WHERE due > 0 AND due <= ?1 AND (due, id) > (?2, ?3)"
		" ORDER BY due, id LIMIT ?4",
	[ST_NEXT_DUE] =
		"SELECT due FROM sessions WHERE due > 0 ORDER BY due LIMIT 1",
	/* Keyset paging on the session id; "is_bot = 0" is spelled out so
	 * that the partial index seats_user applies. */
	[ST_SESSIONS_OF_USER] =
		"SELECT DISTINCT t.session FROM seats t JOIN sessions s ON s.id = t.session"
		" WHERE t.user = ?1 AND t.is_bot = 0 AND s.platform = ?2"
		" AND s.status IN (0, 1) AND t.session > ?3"
		" ORDER BY t.session LIMIT ?4",
	[ST_COUNT_LOBBIES] =
		"SELECT count(*) FROM sessions WHERE platform = ?1 AND status = 0",
	[ST_STATS_OUTBOX] =
		"SELECT count(*), coalesce(min(created), 0) FROM outbox WHERE sent_at IS NULL",
	[ST_STATS_GAMES] =
		"SELECT game, status, count(*) FROM sessions WHERE status IN (0, 1)"
		" GROUP BY game, status",
	[ST_SESSION_STAMP] =
		"SELECT id, version FROM sessions WHERE platform = ?1 AND room = ?2"
		" ORDER BY id DESC LIMIT 1",
	/* taken when free, expired (?4: now) or already the holder's */
	[ST_LEASE_TAKE] =
		"INSERT INTO leases (name, holder, until) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
		" until = excluded.until"
		" WHERE leases.holder = excluded.holder OR leases.until <= ?4",
	[ST_LEASE_DROP] = "DELETE FROM leases WHERE name = ?1 AND holder = ?2",
	[ST_LEASE_CHECK] =
		"SELECT 1 FROM leases WHERE name = ?1 AND holder = ?2 AND until > ?3",
	/*
	 * Claims.  ?5 is the platforms as "\nname\nname\n" (names hold no
	 * newline), so one prepared statement takes any list; a claim is free
	 * when '' or its node's lease is gone or expired (?6: now).
	 */
	[ST_CLAIM_DUE_PAGE] =
		"SELECT s.id, s.due FROM sessions s"
		" WHERE s.due > 0 AND s.due <= ?1 AND (s.due, s.id) > (?2, ?3)"
		" AND instr(?5, char(10) || s.platform || char(10)) > 0"
		" AND (s.claim = ?4 OR NOT EXISTS (SELECT 1 FROM leases l"
		"  WHERE l.name = s.claim AND l.until > ?6))"
		" ORDER BY s.due, s.id LIMIT ?7",
	[ST_CLAIM_SESSION] =
		"UPDATE sessions SET claim = ?2 WHERE id = ?1 AND claim <> ?2",
	[ST_CLAIM_OUTBOX_PAGE] =
		"SELECT o.id, o.platform, o.room, o.user, o.key, o.payload, o.created"
		" FROM outbox o WHERE o.sent_at IS NULL AND o.id > ?1"
		" AND instr(?3, char(10) || o.platform || char(10)) > 0"
		" AND o.owner <> ?2 AND NOT EXISTS (SELECT 1 FROM leases l"
		"  WHERE l.name = o.owner AND l.until > ?4)"
		" ORDER BY o.id LIMIT ?5",
	[ST_CLAIM_OUTBOX] = "UPDATE outbox SET owner = ?2 WHERE id = ?1",
	[ST_DUMP_SESSIONS] = "SELECT id FROM sessions WHERE id > ?1 ORDER BY id LIMIT ?2",
	[ST_DUMP_ACTIONS] =
		"SELECT session, seq, seat, move, user, at FROM actions"
		" WHERE (session, seq) > (?1, ?2) ORDER BY session, seq LIMIT ?3",
	[ST_DUMP_OUTBOX] =
		"SELECT id, platform, room, user, key, payload, created, sent_at FROM outbox"
		" WHERE id > ?1 ORDER BY id LIMIT ?2",
	[ST_DUMP_CURSORS] =
		"SELECT key, value FROM cursors WHERE key > ?1 ORDER BY key LIMIT ?2",
	[ST_IMPORT_SESSION] =
		"INSERT INTO sessions (id, platform, room, game, options, creator,"
		" locale, status, seed, version, created, updated, state, settings,"
		" due, votes)"
		" VALUES (?14, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?12, ?9, ?10, ?11, ?13,"
		" ?15, ?16)",
	[ST_IMPORT_OUTBOX] =
		"INSERT INTO outbox (id, platform, room, user, key, payload, created, sent_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_COUNT_RECORDS] =
		"SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM outbox)"
		" + (SELECT count(*) FROM cursors)",
	[ST_CURSOR_DELETE] = "DELETE FROM cursors WHERE key = ?1",
	/* keys compare bytewise (BINARY): [prefix, prefix's successor) is
	 * one range of the primary key; one row more than the bound tells
	 * that it is exceeded */
	[ST_CURSORS_PREFIX] =
		"SELECT key, value FROM cursors WHERE key >= ?1 AND key < ?2 LIMIT ?3",
};

struct sqlite_store {
	struct store base;
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	struct walckpt *ckpt;	/* files only; NULL in memory */
};

static const struct store_ops sqlite_ops;

static struct sqlite_store *sqlite_downcast(struct store *s)
{
	assert(s && s->ops == &sqlite_ops);
	return (struct sqlite_store *)s;
}

/* ---------------------------------------------------------------- helpers */

/* Reports the connection's last error; call before resetting the statement. */
static int db_fail(struct sqlite_store *ss, struct buf *err, const char *what)
{
	seterr(err, "store: %s: %s", what, sqlite3_errmsg(ss->db));
	return -1;
}

/* A cached statement, ready to bind. */
static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss->st[id];
}

/* Returns a cached statement to rest; safe to call twice. */
static void stmt_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows. */
static int stmt_run(struct sqlite_store *ss, sqlite3_stmt *st, struct buf *err,
		    const char *what)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		db_fail(ss, err, what);
		stmt_done(st);
		return -1;
	}
	stmt_done(st);
	return 0;
}

/* Steps a cached statement that returns one integer into *out. */
static int pragma_int_st(struct sqlite_store *ss, sqlite3_stmt *st, int *out, struct buf *err)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_ROW) {
		db_fail(ss, err, "counting");
		stmt_done(st);
		return -1;
	}
	*out = sqlite3_column_int(st, 0);
	stmt_done(st);
	return 0;
}

static int exec_sql(struct sqlite_store *ss, const char *sql, struct buf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(ss->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		seterr(err, "store: %s: %s", sql,
		       msg ? msg : sqlite3_errmsg(ss->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Ends a failed write transaction, if one is still open. */
static void rollback(struct sqlite_store *ss)
{
	if (!sqlite3_get_autocommit(ss->db)) {
		sqlite3_stmt *st = stmt(ss, ST_ROLLBACK);

		sqlite3_step(st);
		stmt_done(st);
	}
	/* Should ROLLBACK itself fail, do not leave the connection inside a
	 * transaction: every later write would fail. */
	if (!sqlite3_get_autocommit(ss->db))
		sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
}

/* A new heap copy of a text column, or NULL for SQL NULL. */
static char *col_strdup(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	size_t n = (size_t)sqlite3_column_bytes(st, col);
	char *p;

	if (!t)
		return NULL;
	p = xmalloc(n + 1);
	memcpy(p, t, n);
	p[n] = '\0';
	return p;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/* The row codecs' driver calls (state/rows.h): the row is the statement. */
static int64_t row_i64(void *row, int col)
{
	return sqlite3_column_int64(row, col);
}

static int row_is_null(void *row, int col)
{
	return sqlite3_column_type(row, col) == SQLITE_NULL;
}

/* text first, then its length: the order SQLite's documentation asks */
static const char *row_text(void *row, int col, size_t *len)
{
	const char *t = (const char *)sqlite3_column_text(row, col);

	*len = (size_t)sqlite3_column_bytes(row, col);
	return t;
}

static struct rows_reader reader(sqlite3_stmt *st)
{
	struct rows_reader r = { st, row_i64, row_is_null, row_text };

	return r;
}

/* Binds parameters ?1, ?2, ... in order. */
struct binder {
	sqlite3_stmt *st;
	int n;
};

static void put_i64(void *ctx, int64_t v)
{
	struct binder *b = ctx;

	sqlite3_bind_int64(b->st, ++b->n, v);
}

static void put_text(void *ctx, const char *s)
{
	struct binder *b = ctx;

	if (s)
		bind_text(b->st, ++b->n, s);
	else
		sqlite3_bind_null(b->st, ++b->n);
}

#define WRITER(b) { &(b), put_i64, put_text }

/* ------------------------------------------------------------------ reads */

/*
 * Steps a bound SESSION_SELECT statement into out (released first).
 * Returns 1, 0 (no such session, out left empty) or -1; resets st.
 */
static int read_session(struct sqlite_store *ss, sqlite3_stmt *st,
			struct session_rec *out, struct buf *err)
{
	struct rows_reader r = reader(st);
	int rc, rows = 0;

	session_rec_release(out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (rows_session(&r, !rows++, out, err))
			goto fail;
	if (rc != SQLITE_DONE) {
		db_fail(ss, err, "reading a session");
		goto fail;
	}
	stmt_done(st);
	return rows ? 1 : 0;
fail:
	stmt_done(st);
	session_rec_release(out);
	return -1;
}

static int sqlite_session_get(struct store *s, int64_t id, struct session_rec *out,
			      struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_SESSION_GET);

	sqlite3_bind_int64(st, 1, id);
	return read_session(ss, st, out, err);
}

static int sqlite_session_current(struct store *s, const char *platform,
				  const char *room, struct session_rec *out,
				  struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_SESSION_CURRENT);

	bind_text(st, 1, platform);
	bind_text(st, 2, room);
	return read_session(ss, st, out, err);
}

/* Reads the next page of open session ids after *last into ids[]. */
static int open_page(struct sqlite_store *ss, int64_t after, int64_t *ids, int *n,
		     struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_SESSIONS_OPEN);
	int rc;

	*n = 0;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	if (rc != SQLITE_DONE) {
		db_fail(ss, err, "listing open sessions");
		stmt_done(st);
		return -1;
	}
	stmt_done(st);
	return 0;
}

static int sqlite_sessions_open(struct store *s, store_session_cb cb, void *ctx,
				struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, i, ret = -1;

	session_rec_init(&rec);
	do {
		if (open_page(ss, after, ids, &n, err))
			goto fail;
		for (i = 0; i < n; i++) {
			int found = sqlite_session_get(s, ids[i], &rec, err);

			after = ids[i];
			if (found < 0)
				goto fail;
			/* A callback may have closed it since the page was read. */
			if (!found || (rec.status != SESSION_LOBBY &&
				       rec.status != SESSION_ACTIVE))
				continue;
			if (cb(ctx, &rec))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	session_rec_release(&rec);
	return ret;
}

static int sqlite_actions(struct store *s, int64_t session, int64_t after,
			  store_action_cb cb, void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_ACTIONS);
	struct action_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	struct rows_reader r = reader(st);
	int n, i, rc, ret = -1;

	do {
		n = 0;
		sqlite3_bind_int64(st, 1, session);
		sqlite3_bind_int64(st, 2, after);
		sqlite3_bind_int(st, 3, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (rows_action(&r, 0, &page[n], err))
				goto fail;
			page[n++].session = session;
		}
		if (rc != SQLITE_DONE) {
			db_fail(ss, err, "reading actions");
			goto fail;
		}
		stmt_done(st);
		for (i = 0; i < n; i++) {
			after = page[i].seq;
			if (cb(ctx, &page[i]))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	stmt_done(st);
	free(page);
	return ret;
}

/* A page of due sessions after (after_due, after_id), as ids and dues. */
static int due_page(struct sqlite_store *ss, int64_t until, int64_t after_due,
		    int64_t after_id, int64_t *ids, int64_t *dues, int *n,
		    struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_SESSIONS_DUE);
	int rc;

	*n = 0;
	sqlite3_bind_int64(st, 1, until);
	sqlite3_bind_int64(st, 2, after_due);
	sqlite3_bind_int64(st, 3, after_id);
	sqlite3_bind_int(st, 4, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[*n] = sqlite3_column_int64(st, 0);
		dues[(*n)++] = sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE) {
		db_fail(ss, err, "listing due sessions");
		stmt_done(st);
		return -1;
	}
	stmt_done(st);
	return 0;
}

/*
 * Hands each session of a (due, id) page to cb, read whole, and moves the
 * key past it; a session whose due changed since the page was read is
 * skipped.  1: cb asked to stop; 0: go on; -1: error (err).
 */
static int deliver_due_page(struct store *s, const int64_t *ids, const int64_t *dues, int n,
			    int64_t *after_due, int64_t *after_id, struct session_rec *rec,
			    store_session_cb cb, void *ctx, struct buf *err)
{
	int i;

	for (i = 0; i < n; i++) {
		int found = sqlite_session_get(s, ids[i], rec, err);

		*after_due = dues[i];
		*after_id = ids[i];
		if (found < 0)
			return -1;
		if (!found || rec->due != dues[i])
			continue;
		if (cb(ctx, rec))
			return 1;
	}
	return 0;
}

/*
 * Like sessions_open: a page of (due, id) keys, then each session read
 * whole with its seats.  A session whose due a callback changed since the
 * page was read is skipped if no longer in range; one moved to a later due
 * still <= until comes again at its new place (the key only grows, so the
 * iteration ends).
 */
static int sqlite_sessions_due(struct store *s, int64_t until, store_session_cb cb,
			       void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], dues[PAGE_ROWS], after_due = 0, after_id = 0;
	int n, rc, ret = -1;

	session_rec_init(&rec);
	do {
		if (due_page(ss, until, after_due, after_id, ids, dues, &n, err))
			goto fail;
		rc = deliver_due_page(s, ids, dues, n, &after_due, &after_id, &rec, cb, ctx, err);
		if (rc < 0)
			goto fail;
	} while (!rc && n == PAGE_ROWS);
	ret = 0;
fail:
	session_rec_release(&rec);
	return ret;
}

static int sqlite_next_due(struct store *s, int64_t *out, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_NEXT_DUE);
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
	} else if (rc == SQLITE_DONE) {
		*out = 0;
	} else {
		db_fail(ss, err, "reading the next due time");
		stmt_done(st);
		return -1;
	}
	stmt_done(st);
	return 0;
}

/* A page of the user's open session ids after `after` into ids[]. */
static int user_page(struct sqlite_store *ss, const char *platform, const char *user,
		     int64_t after, int64_t *ids, int *n, struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_SESSIONS_OF_USER);
	int rc;

	*n = 0;
	bind_text(st, 1, user);
	bind_text(st, 2, platform);
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int(st, 4, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	if (rc != SQLITE_DONE) {
		db_fail(ss, err, "listing a user's sessions");
		stmt_done(st);
		return -1;
	}
	stmt_done(st);
	return 0;
}

/*
 * Like sessions_open, restricted by the seats_user index: a page of ids,
 * then each session read whole.  One a callback closed or left (its seat
 * gone) since the page was read is skipped.
 */
static int sqlite_sessions_of_user(struct store *s, const char *platform, const char *user,
				   store_session_cb cb, void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, i, k, ret = -1;

	session_rec_init(&rec);
	do {
		if (user_page(ss, platform, user, after, ids, &n, err))
			goto fail;
		for (i = 0; i < n; i++) {
			int found = sqlite_session_get(s, ids[i], &rec, err), seated = 0;

			after = ids[i];
			if (found < 0)
				goto fail;
			for (k = 0; found && k < rec.nseats; k++)
				seated |= !rec.seats[k].is_bot && !strcmp(rec.seats[k].user, user);
			if (!found || !seated || (rec.status != SESSION_LOBBY &&
						  rec.status != SESSION_ACTIVE))
				continue;
			if (cb(ctx, &rec))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	session_rec_release(&rec);
	return ret;
}

static int sqlite_count_lobbies(struct store *s, const char *platform, int64_t *out,
				struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_COUNT_LOBBIES);
	int rc;

	bind_text(st, 1, platform);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_fail(ss, err, "counting lobbies");
		stmt_done(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	stmt_done(st);
	return 0;
}

static int sqlite_stats(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
			struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_STATS_OUTBOX);
	int rc;

	if (sqlite3_step(st) != SQLITE_ROW) {
		db_fail(ss, err, "counting the outbox");
		stmt_done(st);
		return -1;
	}
	out->outbox_pending = sqlite3_column_int64(st, 0);
	out->outbox_oldest = sqlite3_column_int64(st, 1);
	stmt_done(st);
	st = stmt(ss, ST_STATS_GAMES);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *game = (const char *)sqlite3_column_text(st, 0);

		if (cb && cb(ctx, game ? game : "", sqlite3_column_int(st, 1),
			     sqlite3_column_int64(st, 2)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_fail(ss, err, "counting the games");
		stmt_done(st);
		return -1;
	}
	stmt_done(st);
	return 0;
}

static int read_outbox_row(sqlite3_stmt *st, struct outbox_rec *o, struct buf *err)
{
	struct rows_reader r = reader(st);

	return rows_outbox(&r, o, err);
}

static int sqlite_outbox_pending(struct store *s, store_outbox_cb cb, void *ctx,
				 struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_OUTBOX_PENDING);
	struct outbox_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	int64_t after = 0;
	int n = 0, i, rc, ret = -1;

	do {
		for (i = 0; i < n; i++)
			outbox_rec_release(&page[i]);
		n = 0;
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (read_outbox_row(st, &page[n++], err))
				goto fail;
		if (rc != SQLITE_DONE) {
			db_fail(ss, err, "reading the outbox");
			goto fail;
		}
		stmt_done(st);
		for (i = 0; i < n; i++) {
			after = page[i].id;
			if (cb(ctx, &page[i]))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	stmt_done(st);
	for (i = 0; i < n; i++)
		outbox_rec_release(&page[i]);
	free(page);
	return ret;
}

static int sqlite_cursor_get(struct store *s, const char *key, struct buf *value,
			     struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_CURSOR_GET);
	int rc, ret = -1;

	bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = 0;
	} else if (rc != SQLITE_ROW) {
		db_fail(ss, err, "reading a cursor");
	} else {
		buf_reset(value);
		if (buf_add(value, sqlite3_column_text(st, 0),
			    (size_t)sqlite3_column_bytes(st, 0)))
			seterr(err, "store: cursor %s does not fit its buffer", key);
		else
			ret = 1;
	}
	stmt_done(st);
	return ret;
}

/* ----------------------------------------------------------------- writes */

/* ?14, the id, matters to session_update and the import only */
static void bind_session(sqlite3_stmt *st, const struct session_rec *s)
{
	struct binder b = { st, 0 };
	struct rows_writer w = WRITER(b);

	rows_put_session(&w, s, s->id);
}

/* Inserts a new session; *id gets its id. */
static int session_insert(struct sqlite_store *ss, const struct session_rec *s,
			  int64_t *id, struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_SESSION_INSERT);

	bind_session(st, s);
	if (stmt_run(ss, st, err, "inserting a session"))
		return -1;
	*id = sqlite3_last_insert_rowid(ss->db);
	return 0;
}

/* Explains why an UPDATE by id and version matched nothing: STORE_CONFLICT
 * when the session is there at another version, else -1. */
static int session_update_missed(struct sqlite_store *ss, const struct session_rec *s,
				 struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_SESSION_VERSION);
	int rc, ret = -1;

	sqlite3_bind_int64(st, 1, s->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		seterr(err, "store: session %lld was changed elsewhere"
		       " (stored version %lld; this change, version %lld, must follow"
		       " version %lld)",
		       (long long)s->id, (long long)sqlite3_column_int64(st, 0),
		       (long long)s->version, (long long)s->version - 1);
		ret = STORE_CONFLICT;
	} else if (rc == SQLITE_DONE) {
		seterr(err, "store: no session %lld to update", (long long)s->id);
	} else {
		db_fail(ss, err, "checking a session");
	}
	stmt_done(st);
	return ret;
}

static int session_update(struct sqlite_store *ss, const struct session_rec *s,
			  struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_SESSION_UPDATE);

	bind_session(st, s);
	if (stmt_run(ss, st, err, "updating a session"))
		return -1;
	if (sqlite3_changes(ss->db) != 1)
		return session_update_missed(ss, s, err);
	return 0;
}

static int seats_replace(struct sqlite_store *ss, int64_t id,
			 const struct session_rec *s, int existed, struct buf *err)
{
	sqlite3_stmt *st;
	int i;

	if (existed) {
		st = stmt(ss, ST_SEATS_DELETE);
		sqlite3_bind_int64(st, 1, id);
		if (stmt_run(ss, st, err, "clearing seats"))
			return -1;
	}
	st = stmt(ss, ST_SEAT_INSERT);
	for (i = 0; i < s->nseats; i++) {
		struct binder b = { st, 0 };
		struct rows_writer w = WRITER(b);

		rows_put_seat(&w, id, i, &s->seats[i]);
		if (stmt_run(ss, st, err, "storing a seat"))
			return -1;
	}
	return 0;
}

static int action_append(struct sqlite_store *ss, int64_t session,
			 const struct action_rec *a, struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_ACTION_INSERT);
	struct binder b = { st, 0 };
	struct rows_writer w = WRITER(b);
	int rc;

	rows_put_action(&w, session, a);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		seterr(err, "store: session %lld already has action %lld",
		       (long long)session, (long long)a->seq);
	else if (rc != SQLITE_DONE)
		db_fail(ss, err, "appending an action");
	stmt_done(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Deletes the session's actions with seq > after (undo). */
static int actions_truncate(struct sqlite_store *ss, int64_t session, int64_t after,
			    struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_ACTIONS_TRUNCATE);

	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, after);
	return stmt_run(ss, st, err, "truncating actions");
}

static int outbox_insert(struct sqlite_store *ss, const struct outbox_rec *o,
			 const char *owner, int64_t *id, struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_OUTBOX_INSERT);
	struct binder b = { st, 0 };
	struct rows_writer w = WRITER(b);
	int rc;

	rows_put_outbox(&w, o, owner);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		seterr(err, "store: outbox key %s is already used", o->key);
	else if (rc != SQLITE_DONE)
		db_fail(ss, err, "queueing a message");
	stmt_done(st);
	if (rc != SQLITE_DONE)
		return -1;
	*id = sqlite3_last_insert_rowid(ss->db);
	return 0;
}

static int cursor_put(struct sqlite_store *ss, const char *key, const char *value,
		      struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_CURSOR_SET);

	bind_text(st, 1, key);
	bind_text(st, 2, value);
	return stmt_run(ss, st, err, "setting a cursor");
}

static int cursor_del(struct sqlite_store *ss, const char *key, struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_CURSOR_DELETE);

	bind_text(st, 1, key);
	return stmt_run(ss, st, err, "deleting a cursor");
}

static int fence_check(struct sqlite_store *ss, const char *lease, const char *holder,
		       struct buf *err);

/*
 * The caller's records are touched (session id, outbox ids) only once
 * COMMIT has succeeded, so a failed commit can be retried as is.  The
 * session's version is the caller's: it bumps it by one per change.
 * Order: session and seats, truncation (undo), actions, outbox, cursor.
 */
static int sqlite_commit(struct store *s, struct store_commit *c, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct session_rec *sess = c->session;
	int64_t sid = 0, *ids = NULL;
	size_t i;
	int rc = -1;

	if (store_check_commit(c, err))
		return -1;
	if (c->noutbox)
		ids = xcalloc(c->noutbox, sizeof(*ids));
	if (stmt_run(ss, stmt(ss, ST_BEGIN), err, "starting a transaction"))
		goto fail;
	/* under BEGIN IMMEDIATE's write lock: nobody takes the lease before
	 * this transaction ends */
	if (c->fence_lease) {
		rc = fence_check(ss, c->fence_lease, c->fence_holder, err);
		if (rc)
			goto fail;
		rc = -1;
	}
	if (sess) {
		if (sess->id == 0) {
			if (session_insert(ss, sess, &sid, err))
				goto fail;
		} else {
			sid = sess->id;
			rc = session_update(ss, sess, err);
			if (rc)
				goto fail;
			rc = -1;
		}
		if (seats_replace(ss, sid, sess, sess->id != 0, err))
			goto fail;
	}
	/* check_commit() made sure truncate comes with a stored session. */
	if (c->truncate && actions_truncate(ss, sid, c->truncate_after, err))
		goto fail;
	for (i = 0; i < c->nactions; i++)
		if (action_append(ss, sid, &c->actions[i], err))
			goto fail;
	for (i = 0; i < c->noutbox; i++)
		if (outbox_insert(ss, &c->outbox[i], c->owner, &ids[i], err))
			goto fail;
	if (c->cursor_key && (c->cursor_delete ? cursor_del(ss, c->cursor_key, err) :
			      cursor_put(ss, c->cursor_key, c->cursor_value, err)))
		goto fail;
	if (stmt_run(ss, stmt(ss, ST_COMMIT), err, "committing"))
		goto fail;

	if (sess)
		sess->id = sid;
	for (i = 0; i < c->noutbox; i++)
		c->outbox[i].id = ids[i];
	free(ids);
	return 0;
fail:
	rollback(ss);
	free(ids);
	return rc;
}

static int sqlite_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);

	sqlite3_bind_int64(stmt(ss, ST_OUTBOX_DONE), 1, id);
	if (stmt_run(ss, stmt(ss, ST_OUTBOX_DONE), err, "marking a message sent"))
		return -1;
	if (sqlite3_changes(ss->db) != 1) {
		seterr(err, "store: no outbox message %lld", (long long)id);
		return -1;
	}
	return 0;
}

static int sqlite_cursor_set(struct store *s, const char *key, const char *value,
			     struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);

	if (!value) {
		seterr(err, "store: cursor %s without a value", key);
		return -1;
	}
	return cursor_put(ss, key, value, err);
}

static int sqlite_cursor_delete(struct store *s, const char *key, struct buf *err)
{
	return cursor_del(sqlite_downcast(s), key, err);
}

/* The smallest string above every string that starts with prefix
 * (bytewise), into out: -1 when there is none (prefix all 0xff). */
static int prefix_successor(const char *prefix, struct buf *out)
{
	size_t n = strlen(prefix);

	while (n && (unsigned char)prefix[n - 1] == 0xff)
		n--;
	if (!n)
		return -1;
	buf_reset(out);
	buf_add(out, prefix, n);
	out->s[n - 1] = (char)((unsigned char)out->s[n - 1] + 1);
	return 0;
}

static int sqlite_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
				 void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_CURSORS_PREFIX);
	struct buf upper = BUF_INIT;
	char **rows = NULL;
	size_t n = 0, cap = 0, i;
	int rc, ret = -1;

	if (!prefix || !*prefix || prefix_successor(prefix, &upper)) {
		seterr(err, "store: listing cursors needs a prefix");
		buf_release(&upper);
		return -1;
	}
	bind_text(st, 1, prefix);
	bind_text(st, 2, buf_str(&upper));
	sqlite3_bind_int(st, 3, STORE_PREFIX_MAX + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 32;
			rows = xrealloc(rows, cap * sizeof(*rows));
		}
		rows[n++] = col_strdup(st, 0);
		rows[n++] = col_strdup(st, 1);
	}
	if (rc != SQLITE_DONE)
		db_fail(ss, err, "listing cursors");
	stmt_done(st);
	buf_release(&upper);
	if (rc != SQLITE_DONE)
		goto out;
	if (n / 2 > STORE_PREFIX_MAX) {
		seterr(err, "store: more than %d cursors start with %s", STORE_PREFIX_MAX, prefix);
		goto out;
	}
	ret = 0;
	for (i = 0; i < n; i += 2)
		if (rows[i] && cb(ctx, rows[i], rows[i + 1] ? rows[i + 1] : ""))
			break;
out:
	for (i = 0; i < n; i++) {
		/* the values may be pickles: wiped */
		if (rows[i])
			explicit_bzero(rows[i], strlen(rows[i]));
		free(rows[i]);
	}
	free(rows);
	return ret;
}

/* ---------------------------------------------------- several processes */

/* Inside a write transaction: the fence lease must be held by holder. */
static int fence_check(struct sqlite_store *ss, const char *lease, const char *holder,
		       struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_LEASE_CHECK);
	int rc;

	bind_text(st, 1, lease);
	bind_text(st, 2, holder);
	sqlite3_bind_int64(st, 3, store_now_ms());
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_fail(ss, err, "checking a lease");
	else if (rc == SQLITE_DONE)
		seterr(err, "store: the lease %s is not held by this process: nothing stored",
		       lease);
	stmt_done(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? STORE_FENCED : -1;
}

static int sqlite_session_stamp(struct store *s, const char *platform, const char *room,
				int64_t *id, int64_t *version, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = stmt(ss, ST_SESSION_STAMP);
	int rc;

	*id = *version = 0;
	bind_text(st, 1, platform);
	bind_text(st, 2, room);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*version = sqlite3_column_int64(st, 1);
	} else if (rc != SQLITE_DONE) {
		db_fail(ss, err, "reading a session's version");
	}
	stmt_done(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static int sqlite_lease(struct store *s, const char *name, const char *holder,
			int64_t ttl_ms, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	int64_t now = store_now_ms();
	sqlite3_stmt *st;

	if (store_check_name(name, "a lease name", err) ||
	    store_check_name(holder, "a lease holder", err))
		return -1;
	if (ttl_ms < 0) {
		seterr(err, "store: a lease cannot last %lld ms", (long long)ttl_ms);
		return -1;
	}
	if (!ttl_ms) {
		st = stmt(ss, ST_LEASE_DROP);
		bind_text(st, 1, name);
		bind_text(st, 2, holder);
		return stmt_run(ss, st, err, "giving up a lease");
	}
	st = stmt(ss, ST_LEASE_TAKE);
	bind_text(st, 1, name);
	bind_text(st, 2, holder);
	sqlite3_bind_int64(st, 3, now + ttl_ms);
	sqlite3_bind_int64(st, 4, now);
	if (stmt_run(ss, st, err, "taking a lease"))
		return -1;
	return sqlite3_changes(ss->db) == 1;
}

/* One page of due sessions claimed for owner, in one write transaction. */
static int claim_due_page(struct sqlite_store *ss, int64_t until, const char *owner,
			  const char *list, int64_t after_due, int64_t after_id,
			  int64_t *ids, int64_t *dues, int *n, struct buf *err)
{
	sqlite3_stmt *st;
	int rc, i;

	*n = 0;
	if (stmt_run(ss, stmt(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	st = stmt(ss, ST_CLAIM_DUE_PAGE);
	sqlite3_bind_int64(st, 1, until);
	sqlite3_bind_int64(st, 2, after_due);
	sqlite3_bind_int64(st, 3, after_id);
	bind_text(st, 4, owner);
	bind_text(st, 5, list);
	sqlite3_bind_int64(st, 6, store_now_ms());
	sqlite3_bind_int(st, 7, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[*n] = sqlite3_column_int64(st, 0);
		dues[(*n)++] = sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE) {
		db_fail(ss, err, "claiming due sessions");
		stmt_done(st);
		goto fail;
	}
	stmt_done(st);
	st = stmt(ss, ST_CLAIM_SESSION);
	for (i = 0; i < *n; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		bind_text(st, 2, owner);
		if (stmt_run(ss, st, err, "claiming a session"))
			goto fail;
	}
	if (stmt_run(ss, stmt(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	rollback(ss);
	*n = 0;
	return -1;
}

static int sqlite_sessions_claim_due(struct store *s, int64_t until, const char *owner,
				     const char *const *platforms, store_session_cb cb,
				     void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct session_rec rec;
	struct buf list = BUF_INIT;
	int64_t ids[PAGE_ROWS], dues[PAGE_ROWS], after_due = 0, after_id = 0;
	int n, rc, ret = -1;

	session_rec_init(&rec);
	if (store_check_name(owner, "a claim owner", err) ||
	    store_platform_list(platforms, &list, err))
		goto fail;
	do {
		if (claim_due_page(ss, until, owner, buf_str(&list), after_due, after_id, ids,
				   dues, &n, err))
			goto fail;
		rc = deliver_due_page(s, ids, dues, n, &after_due, &after_id, &rec, cb, ctx, err);
		if (rc < 0)
			goto fail;
	} while (!rc && n == PAGE_ROWS);
	ret = 0;
fail:
	session_rec_release(&rec);
	buf_release(&list);
	return ret;
}

/* One page of orphaned outbox rows made owner's, in one write transaction. */
static int claim_outbox_page(struct sqlite_store *ss, const char *owner, const char *list,
			     int64_t after, struct outbox_rec *page, int *n, struct buf *err)
{
	sqlite3_stmt *st;
	int rc, i;

	*n = 0;
	if (stmt_run(ss, stmt(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	st = stmt(ss, ST_CLAIM_OUTBOX_PAGE);
	sqlite3_bind_int64(st, 1, after);
	bind_text(st, 2, owner);
	bind_text(st, 3, list);
	sqlite3_bind_int64(st, 4, store_now_ms());
	sqlite3_bind_int(st, 5, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (read_outbox_row(st, &page[(*n)++], err)) {
			stmt_done(st);
			goto fail;
		}
	if (rc != SQLITE_DONE) {
		db_fail(ss, err, "claiming outbox messages");
		stmt_done(st);
		goto fail;
	}
	stmt_done(st);
	st = stmt(ss, ST_CLAIM_OUTBOX);
	for (i = 0; i < *n; i++) {
		sqlite3_bind_int64(st, 1, page[i].id);
		bind_text(st, 2, owner);
		if (stmt_run(ss, st, err, "claiming a message"))
			goto fail;
	}
	if (stmt_run(ss, stmt(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	rollback(ss);
	return -1;
}

static int sqlite_outbox_claim(struct store *s, const char *owner,
			       const char *const *platforms, store_outbox_cb cb, void *ctx,
			       struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct outbox_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	struct buf list = BUF_INIT;
	int64_t after = 0;
	int n = 0, i, ret = -1;

	if (store_check_name(owner, "a claim owner", err) ||
	    store_platform_list(platforms, &list, err))
		goto fail;
	do {
		for (i = 0; i < n; i++)
			outbox_rec_release(&page[i]);
		if (claim_outbox_page(ss, owner, buf_str(&list), after, page, &n, err))
			goto fail;
		for (i = 0; i < n; i++) {
			after = page[i].id;
			if (cb(ctx, &page[i]))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	for (i = 0; i < PAGE_ROWS; i++)
		outbox_rec_release(&page[i]);
	free(page);
	buf_release(&list);
	return ret;
}

/* ------------------------------------------------------- dump and import */

static int dump_sessions(struct sqlite_store *ss, store_item_cb cb, void *ctx,
			 struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_DUMP_SESSIONS);
	struct store_item it = { .kind = STORE_ITEM_SESSION };
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, i, rc, ret = -1;

	session_rec_init(&rec);
	do {
		n = 0;
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			ids[n++] = sqlite3_column_int64(st, 0);
		if (rc != SQLITE_DONE) {
			db_fail(ss, err, "listing sessions");
			stmt_done(st);
			goto fail;
		}
		stmt_done(st);
		for (i = 0; i < n; i++) {
			after = ids[i];
			if (sqlite_session_get(&ss->base, ids[i], &rec, err) != 1)
				goto fail;
			it.session = &rec;
			if (cb(ctx, &it))
				goto fail;
		}
	} while (n == PAGE_ROWS);
	ret = 0;
fail:
	session_rec_release(&rec);
	return ret;
}

static int dump_actions(struct sqlite_store *ss, store_item_cb cb, void *ctx,
			struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_DUMP_ACTIONS);
	struct action_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	struct rows_reader r = reader(st);
	struct store_item it = { .kind = STORE_ITEM_ACTION };
	int64_t after_s = 0, after_q = 0;
	int n, i, rc, ret = -1;

	do {
		n = 0;
		sqlite3_bind_int64(st, 1, after_s);
		sqlite3_bind_int64(st, 2, after_q);
		sqlite3_bind_int(st, 3, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (rows_action(&r, 1, &page[n], err)) {
				stmt_done(st);
				goto fail;
			}
			page[n++].session = sqlite3_column_int64(st, 0);
		}
		if (rc != SQLITE_DONE) {
			db_fail(ss, err, "reading actions");
			stmt_done(st);
			goto fail;
		}
		stmt_done(st);
		for (i = 0; i < n; i++) {
			after_s = page[i].session;
			after_q = page[i].seq;
			it.action = &page[i];
			if (cb(ctx, &it))
				goto fail;
		}
	} while (n == PAGE_ROWS);
	ret = 0;
fail:
	free(page);
	return ret;
}

static int dump_outbox(struct sqlite_store *ss, store_item_cb cb, void *ctx,
		       struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_DUMP_OUTBOX);
	struct outbox_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	int64_t sent[PAGE_ROWS], after = 0;
	struct store_item it = { .kind = STORE_ITEM_OUTBOX };
	int n = 0, i, rc, ret = -1;

	do {
		for (i = 0; i < n; i++)
			outbox_rec_release(&page[i]);
		n = 0;
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			sent[n] = sqlite3_column_int64(st, 7);
			if (read_outbox_row(st, &page[n++], err)) {
				stmt_done(st);
				goto fail;
			}
		}
		if (rc != SQLITE_DONE) {
			db_fail(ss, err, "reading the outbox");
			stmt_done(st);
			goto fail;
		}
		stmt_done(st);
		for (i = 0; i < n; i++) {
			after = page[i].id;
			it.outbox = &page[i];
			it.sent_at = sent[i];
			if (cb(ctx, &it))
				goto fail;
		}
	} while (n == PAGE_ROWS);
	ret = 0;
fail:
	for (i = 0; i < PAGE_ROWS; i++)
		outbox_rec_release(&page[i]);
	free(page);
	return ret;
}

static int dump_cursors(struct sqlite_store *ss, store_item_cb cb, void *ctx,
			struct buf *err)
{
	sqlite3_stmt *st = stmt(ss, ST_DUMP_CURSORS);
	struct store_item it = { .kind = STORE_ITEM_CURSOR };
	char *keys[PAGE_ROWS], *values[PAGE_ROWS];
	struct buf after = BUF_INIT;
	int n = 0, i, rc, ret = -1;

	buf_addstr(&after, "");
	do {
		for (i = 0; i < n; i++) {
			free(keys[i]);
			free(values[i]);
		}
		n = 0;
		bind_text(st, 1, buf_str(&after));
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			keys[n] = col_strdup(st, 0);
			values[n++] = col_strdup(st, 1);
		}
		if (rc != SQLITE_DONE) {
			db_fail(ss, err, "reading cursors");
			stmt_done(st);
			goto fail;
		}
		stmt_done(st);
		for (i = 0; i < n; i++) {
			buf_reset(&after);
			buf_addstr(&after, keys[i]);
			it.key = keys[i];
			it.value = values[i];
			if (cb(ctx, &it))
				goto fail;
		}
	} while (n == PAGE_ROWS);
	ret = 0;
fail:
	for (i = 0; i < n; i++) {
		free(keys[i]);
		free(values[i]);
	}
	buf_release(&after);
	return ret;
}

/* A callback that stops (returns non-zero) makes dump fail: a partial dump
 * is never a whole store.  err says why when the callback filled it. */
static int sqlite_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);

	if (dump_sessions(ss, cb, ctx, err) || dump_actions(ss, cb, ctx, err) ||
	    dump_outbox(ss, cb, ctx, err) || dump_cursors(ss, cb, ctx, err))
		return -1;
	return 0;
}

struct import_ctx {
	struct sqlite_store *ss;
	struct buf *err;
	long n;
};

static int import_item(void *ctx, const struct store_item *it)
{
	struct import_ctx *x = ctx;
	struct sqlite_store *ss = x->ss;
	struct buf *err = x->err;
	sqlite3_stmt *st;
	struct store_commit c = { 0 };
	struct binder b = { NULL, 0 };
	struct rows_writer w = WRITER(b);

	x->n++;
	switch (it->kind) {
	case STORE_ITEM_SESSION:
		c.session = (struct session_rec *)it->session;
		if (store_check_commit(&c, err))
			return 1;
		st = stmt(ss, ST_IMPORT_SESSION);
		bind_session(st, it->session);
		if (stmt_run(ss, st, err, "copying a session"))
			return 1;
		return seats_replace(ss, it->session->id, it->session, 0, err) ? 1 : 0;
	case STORE_ITEM_ACTION:
		return action_append(ss, it->action->session, it->action, err) ? 1 : 0;
	case STORE_ITEM_OUTBOX:
		st = stmt(ss, ST_IMPORT_OUTBOX);
		b.st = st;
		rows_put_outbox_copy(&w, it->outbox, it->sent_at);
		return stmt_run(ss, st, err, "copying an outbox message") ? 1 : 0;
	case STORE_ITEM_CURSOR:
		return cursor_put(ss, it->key, it->value, err) ? 1 : 0;
	}
	seterr(err, "store: unknown record kind %d", (int)it->kind);
	return 1;
}

static int sqlite_import(struct store *s, struct store *from, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct import_ctx x = { ss, err, 0 };
	int records;

	if (stmt_run(ss, stmt(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	if (pragma_int_st(ss, stmt(ss, ST_COUNT_RECORDS), &records, err))
		goto fail;
	if (records) {
		seterr(err, "store: the target store is not empty (it holds %d sessions, outbox messages"
		       " and cursors); copy into an empty one", records);
		goto fail;
	}
	buf_reset(err);
	if (store_dump(from, import_item, &x, err)) {
		if (!err || !err->len)
			seterr(err, "store: copying stopped after %ld records", x.n);
		goto fail;
	}
	if (stmt_run(ss, stmt(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	rollback(ss);
	return -1;
}

/* ------------------------------------------------------------ open, close */

static void sqlite_close(struct store *s)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	int i;

	/* First: its hook points into ss.  Closing db then checkpoints all. */
	walckpt_stop(ss->ckpt);
	for (i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(ss->st[i]);
	/* Every statement is finalized, so this cannot be SQLITE_BUSY. */
	sqlite3_close(ss->db);
	free(ss);
}

static int pragma_int(struct sqlite_store *ss, const char *sql, int *out,
		      struct buf *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(ss->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(ss, err, sql);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_fail(ss, err, sql);
		sqlite3_finalize(st);
		return -1;
	}
	*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/*
 * WAL lets readers run beside the writer and makes commits cheap; its
 * checkpoints move to a thread (state/walckpt.h).
 */
static int set_wal(struct sqlite_store *ss, const char *path, const char *sync,
		   struct buf *err)
{
	sqlite3_stmt *st = NULL;
	const char *file, *mode;
	int ok;

	/* In-memory and temporary databases have no file name and no WAL.
	 * The name is absolute, so the checkpointer finds the same file. */
	file = sqlite3_db_filename(ss->db, "main");
	if (!file || !file[0])
		return 0;
	if (sqlite3_prepare_v2(ss->db, "PRAGMA journal_mode = WAL", -1, &st, NULL)
	    != SQLITE_OK)
		return db_fail(ss, err, "PRAGMA journal_mode");
	if (sqlite3_step(st) != SQLITE_ROW) {
		db_fail(ss, err, "PRAGMA journal_mode");
		sqlite3_finalize(st);
		return -1;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	ok = mode && !strcmp(mode, "wal");
	if (!ok)
		seterr(err, "store: %s cannot use WAL mode (journal mode stays %s)",
		       path, mode ? mode : "unknown");
	sqlite3_finalize(st);
	if (!ok)
		return -1;
	ss->ckpt = walckpt_start(ss->db, file, sync, err);
	return ss->ckpt ? 0 : -1;
}

/* TABULA_DB_SYNC: "normal" (default) or "full".  Returns the pragma. */
static const char *sync_pragma(struct buf *err)
{
	const char *v = getenv("TABULA_DB_SYNC");

	if (!v || !v[0] || !strcmp(v, "normal"))
		return "PRAGMA synchronous = NORMAL";
	if (!strcmp(v, "full"))
		return "PRAGMA synchronous = FULL";
	seterr(err, "store: TABULA_DB_SYNC=%s: expected normal or full", v);
	return NULL;
}

/* The migration loop's calls (state/schema.h). */
struct sqlite_migration {
	struct sqlite_store *ss;
	const char *path;
};

static int mig_begin(void *ctx, struct buf *err)
{
	return exec_sql(((struct sqlite_migration *)ctx)->ss, "BEGIN IMMEDIATE", err);
}

static int mig_version(void *ctx, long long *v, struct buf *err)
{
	int n;

	if (pragma_int(((struct sqlite_migration *)ctx)->ss, "PRAGMA user_version", &n, err))
		return -1;
	*v = n;
	return 0;
}

static int mig_exec(void *ctx, const char *sql, struct buf *err)
{
	return exec_sql(((struct sqlite_migration *)ctx)->ss, sql, err);
}

static int mig_set_version(void *ctx, long long v, struct buf *err)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld", v);
	return exec_sql(((struct sqlite_migration *)ctx)->ss, sql, err);
}

static int mig_commit(void *ctx, struct buf *err)
{
	return exec_sql(((struct sqlite_migration *)ctx)->ss, "COMMIT", err);
}

static void mig_rollback(void *ctx)
{
	struct sqlite_store *ss = ((struct sqlite_migration *)ctx)->ss;

	if (!sqlite3_get_autocommit(ss->db))
		sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
}

static void mig_too_new(void *ctx, long long v, struct buf *err)
{
	seterr(err, "store: %s is at schema version %lld, newer than this program"
	       " knows (%d); run a newer tabula or restore a backup",
	       ((struct sqlite_migration *)ctx)->path, v, schema_version());
}

static const struct schema_driver sqlite_migrations = {
	.dialect = SCHEMA_SQLITE,
	.begin = mig_begin,
	.version = mig_version,
	.exec = mig_exec,
	.set_version = mig_set_version,
	.commit = mig_commit,
	.rollback = mig_rollback,
	.too_new = mig_too_new,
};

/* Applies the missing migrations (state/schema.c). */
static int migrate(struct sqlite_store *ss, const char *path, struct buf *err)
{
	struct sqlite_migration m = { ss, path };

	return schema_migrate(&sqlite_migrations, &m, err);
}

/*
 * The database must be tabula's.  PRAGMA application_id says whose a
 * SQLite file is; tabula's is STORE_APPLICATION_ID.  An empty file is new:
 * stamped.  A file with id 0 that holds tabula's tables and a schema
 * version was written by a tabula from before the id: adopted and stamped.
 * Any other file (another program's id, or someone else's tables) is
 * refused as it is: migrating it would write tabula's tables into another
 * program's data.  Under BEGIN IMMEDIATE, so two processes opening a new
 * file at once agree.
 */
static int claim(struct sqlite_store *ss, const char *path, struct buf *err)
{
	char sql[64];
	int id, version, objects, tables;

	if (exec_sql(ss, "BEGIN IMMEDIATE", err))
		return -1;
	if (pragma_int(ss, "PRAGMA application_id", &id, err) ||
	    pragma_int(ss, "PRAGMA user_version", &version, err) ||
	    pragma_int(ss, "SELECT count(*) FROM sqlite_master", &objects, err) ||
	    pragma_int(ss, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name"
		       " IN ('sessions', 'seats', 'actions', 'outbox', 'cursors')", &tables, err))
		goto fail;
	if (id == STORE_APPLICATION_ID)
		return exec_sql(ss, "COMMIT", err) ? -1 : 0;
	if (id != 0) {
		seterr(err, "store: %s is not a tabula database (its SQLite application_id is"
		       " 0x%08x; tabula's is 0x%08x, \"tabu\"); give tabula a file of its own",
		       path, (unsigned)id, (unsigned)STORE_APPLICATION_ID);
		goto fail;
	}
	if ((objects || version) && !(version >= 1 && tables == 5)) {
		seterr(err, "store: %s is not a tabula database (it holds other data and no"
		       " tabula application_id); give tabula a file of its own", path);
		goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APPLICATION_ID);
	if (exec_sql(ss, sql, err) || exec_sql(ss, "COMMIT", err))
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(ss->db))
		sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/*
 * Makes the file at p private to the operator: a regular file, not a
 * symbolic link, mode 0600 at most.  create: a missing p is created 0600
 * (then SQLite gives its -wal and -shm the same mode); else a missing p is
 * fine.  Works on an open descriptor (O_NOFOLLOW), so the file checked is
 * the file changed.
 */
static int private_file(const char *p, int create, struct buf *err)
{
	struct stat st;
	int fd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);

	if (fd < 0) {
		if (errno == ENOENT && !create)
			return 0;
		if (errno == ELOOP || errno == EMLINK)
			seterr(err, "store: %s is a symbolic link; give the real path (the store"
			       " holds every hidden hand, a link could put it anywhere)", p);
		else
			seterr(err, "store: cannot open %s: %s", p, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		seterr(err, "store: cannot check %s: %s", p, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, "store: %s is not a regular file", p);
		goto fail;
	}
	if ((st.st_mode & 077) && fchmod(fd, st.st_mode & 0700)) {
		seterr(err, "store: %s can be read by others and cannot be made private (%s);"
		       " chmod 600 it", p, strerror(errno));
		goto fail;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

/* The database and the side files SQLite may have left next to it. */
static int make_private(const char *path, struct buf *err)
{
	static const char *const sides[] = { "-wal", "-shm", "-journal" };
	struct buf side = BUF_INIT;
	size_t i;
	int rc = 0;

	if (!strcmp(path, ":memory:"))
		return 0;
	for (i = 0; i < sizeof(sides) / sizeof(sides[0]) && !rc; i++) {
		buf_reset(&side);
		buf_printf(&side, "%s%s", path, sides[i]);
		rc = private_file(buf_str(&side), 0, err);
	}
	buf_release(&side);
	return rc ? -1 : private_file(path, 1, err);
}

static int prepare_all(struct sqlite_store *ss, struct buf *err)
{
	int i;

	for (i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(ss->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &ss->st[i], NULL) != SQLITE_OK)
			return db_fail(ss, err, stmt_sql[i]);
	return 0;
}

struct store *store_sqlite_open(const char *path, struct buf *err)
{
	struct sqlite_store *ss;
	const char *sync = sync_pragma(err);
	int rc;

	if (!sync)
		return NULL;
	if (!path || !path[0]) {
		seterr(err, "store: no database path");
		return NULL;
	}
	if (make_private(path, err))
		return NULL;
	ss = xcalloc(1, sizeof(*ss));
	ss->base.ops = &sqlite_ops;
	rc = sqlite3_open_v2(path, &ss->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		seterr(err, "store: cannot open %s: %s", path,
		       ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* Extended codes tell a duplicate action from a duplicate outbox key. */
	sqlite3_extended_result_codes(ss->db, 1);
	sqlite3_busy_timeout(ss->db, BUSY_TIMEOUT_MS);
	if (exec_sql(ss, "PRAGMA foreign_keys = ON", err) ||
	    exec_sql(ss, sync, err) ||
	    claim(ss, path, err) ||
	    migrate(ss, path, err) ||
	    set_wal(ss, path, sync, err) ||
	    prepare_all(ss, err))
		goto fail;
	return &ss->base;
fail:
	sqlite_close(&ss->base);
	return NULL;
}

static const struct store_ops sqlite_ops = {
	.api_version = STORE_API_VERSION,
	.name = "sqlite",
	.caps = 0,
	.close = sqlite_close,
	.commit = sqlite_commit,
	.session_current = sqlite_session_current,
	.session_get = sqlite_session_get,
	.sessions_open = sqlite_sessions_open,
	.actions = sqlite_actions,
	.outbox_pending = sqlite_outbox_pending,
	.outbox_done = sqlite_outbox_done,
	.cursor_get = sqlite_cursor_get,
	.sessions_due = sqlite_sessions_due,
	.next_due = sqlite_next_due,
	.cursor_set = sqlite_cursor_set,
	.cursors_prefix = sqlite_cursors_prefix,
	.cursor_delete = sqlite_cursor_delete,
	.sessions_of_user = sqlite_sessions_of_user,
	.count_lobbies = sqlite_count_lobbies,
	.stats = sqlite_stats,
	.session_stamp = sqlite_session_stamp,
	.lease = sqlite_lease,
	.sessions_claim_due = sqlite_sessions_claim_due,
	.outbox_claim = sqlite_outbox_claim,
	.dump = sqlite_dump,
	.import = sqlite_import,
};
