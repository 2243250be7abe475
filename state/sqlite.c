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
 *
 * This file holds the statements, the reads, the writes and the store_ops
 * wiring; the other parts are named in state/sqlite_int.h.
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
#include "state/sqlite_int.h"
#include "state/walckpt.h"

/* ---------------------------------------------------------------- schema */

/* The schema and its migrations are state/schema.c's, shared with
 * PostgreSQL; here the version is PRAGMA user_version. */
int store_sqlite_schema_version(void)
{
	return schema_version();
}

/* ------------------------------------------------------------ statements */

/*
 * A session is read with its seats in one statement (one implicit read
 * transaction, so the two are a consistent snapshot even with another
 * process writing).  Column order is enum rows_session_col (state/rows.h).
 */
#define SESSION_SELECT \
	"SELECT s.id, s.platform, s.room, s.game, s.options, s.creator," \
	" s.locale, s.status, s.seed, s.version, s.created, s.updated, s.state," \
	" s.settings, s.due, s.votes, s.community," \
	" t.seat, t.user, t.name, t.is_bot, t.notify_dm" \
	" FROM sessions s LEFT JOIN seats t ON t.session = s.id"

static const char *const stmt_sql[ST_RATINGS_FIRST] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_SESSION_INSERT] =
		"INSERT INTO sessions (platform, room, game, options, creator,"
		" locale, status, seed, version, created, updated, state, settings,"
		" due, votes, community)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?12, ?9, ?10, ?11, ?13,"
		" ?15, ?16, ?17)",
	/* Optimistic concurrency: the caller bumps the version it read by one,
	 * so a change made from a stale copy matches nothing. */
	[ST_SESSION_UPDATE] =
		"UPDATE sessions SET platform = ?1, room = ?2, game = ?3,"
		" options = ?4, creator = ?5, locale = ?6, status = ?7, seed = ?8,"
		" created = ?9, updated = ?10, state = ?11, version = ?12,"
		" settings = ?13, due = ?15, votes = ?16, community = ?17"
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
		" due, votes, community)"
		" VALUES (?14, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?12, ?9, ?10, ?11, ?13,"
		" ?15, ?16, ?17)",
	[ST_IMPORT_OUTBOX] =
		"INSERT INTO outbox (id, platform, room, user, key, payload, created, sent_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_COUNT_RECORDS] =
		"SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM outbox)"
		" + (SELECT count(*) FROM cursors) + (SELECT count(*) FROM results)"
		" + (SELECT count(*) FROM ratings) + (SELECT count(*) FROM rating_history)"
		" + (SELECT count(*) FROM players)",
	[ST_CURSOR_DELETE] = "DELETE FROM cursors WHERE key = ?1",
	/* keys compare bytewise (BINARY): [prefix, prefix's successor) is
	 * one range of the primary key; one row more than the bound tells
	 * that it is exceeded */
	[ST_CURSORS_PREFIX] =
		"SELECT key, value FROM cursors WHERE key >= ?1 AND key < ?2 LIMIT ?3",
};

struct sqlite_store *sqlite_downcast(struct store *s)
{
	assert(s && s->ops == &sqlite_ops);
	return (struct sqlite_store *)s;
}

int sqlite_prepare_all(struct sqlite_store *ss, struct buf *err)
{
	int i;

	for (i = 0; i < ST_COUNT; i++) {
		const char *sql = i < ST_RATINGS_FIRST ? stmt_sql[i] :
			i < ST_WEB_FIRST ? sqlite_ratings_sql[i - ST_RATINGS_FIRST] :
			sqlite_web_sql[i - ST_WEB_FIRST];

		if (sqlite3_prepare_v3(ss->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				       &ss->st[i], NULL) != SQLITE_OK)
			return sqlite_fail(ss, err, sql);
	}
	return 0;
}

/* ---------------------------------------------------------------- helpers */

/* Reports the connection's last error; call before resetting the statement. */
int sqlite_fail(struct sqlite_store *ss, struct buf *err, const char *what)
{
	seterr(err, "store: %s: %s", what, sqlite3_errmsg(ss->db));
	return -1;
}

/* A cached statement, ready to bind. */
sqlite3_stmt *sqlite_st(struct sqlite_store *ss, enum stmt_id id)
{
	return ss->st[id];
}

/* Returns a cached statement to rest; safe to call twice. */
void sqlite_st_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows. */
int sqlite_st_run(struct sqlite_store *ss, sqlite3_stmt *st, struct buf *err,
		  const char *what)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sqlite_fail(ss, err, what);
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	return 0;
}

/* Steps a cached statement that returns one integer into *out. */
int sqlite_int_st(struct sqlite_store *ss, sqlite3_stmt *st, int *out, struct buf *err)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_ROW) {
		sqlite_fail(ss, err, "counting");
		sqlite_st_done(st);
		return -1;
	}
	*out = sqlite3_column_int(st, 0);
	sqlite_st_done(st);
	return 0;
}

int sqlite_exec_sql(struct sqlite_store *ss, const char *sql, struct buf *err)
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
void sqlite_rollback(struct sqlite_store *ss)
{
	if (!sqlite3_get_autocommit(ss->db)) {
		sqlite3_stmt *st = sqlite_st(ss, ST_ROLLBACK);

		sqlite3_step(st);
		sqlite_st_done(st);
	}
	/* Should ROLLBACK itself fail, do not leave the connection inside a
	 * transaction: every later write would fail. */
	if (!sqlite3_get_autocommit(ss->db))
		sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
}

/* A new heap copy of a text column, or NULL for SQL NULL. */
char *sqlite_col_strdup(sqlite3_stmt *st, int col)
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

void sqlite_bind_str(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/* The row codecs' driver calls (state/rows.h): the row is the statement. */
static int64_t row_i64(void *row, int col)
{
	return sqlite3_column_int64(row, col);
}

static double row_f64(void *row, int col)
{
	return sqlite3_column_double(row, col);
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

struct rows_reader sqlite_reader(sqlite3_stmt *st)
{
	struct rows_reader r = { st, row_i64, row_is_null, row_text, row_f64 };

	return r;
}

void sqlite_put_i64(void *ctx, int64_t v)
{
	struct sqlite_binder *b = ctx;

	sqlite3_bind_int64(b->st, ++b->n, v);
}

void sqlite_put_f64(void *ctx, double v)
{
	struct sqlite_binder *b = ctx;

	sqlite3_bind_double(b->st, ++b->n, v);
}

void sqlite_put_text(void *ctx, const char *s)
{
	struct sqlite_binder *b = ctx;

	if (s)
		sqlite_bind_str(b->st, ++b->n, s);
	else
		sqlite3_bind_null(b->st, ++b->n);
}

/* ------------------------------------------------------------------ reads */

/*
 * Steps a bound SESSION_SELECT statement into out (released first).
 * Returns 1, 0 (no such session, out left empty) or -1; resets st.
 */
static int sqlite_read_session(struct sqlite_store *ss, sqlite3_stmt *st,
			       struct session_rec *out, struct buf *err)
{
	struct rows_reader r = sqlite_reader(st);
	int rc, rows = 0;

	session_rec_release(out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (rows_session(&r, !rows++, out, err))
			goto fail;
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "reading a session");
		goto fail;
	}
	sqlite_st_done(st);
	return rows ? 1 : 0;
fail:
	sqlite_st_done(st);
	session_rec_release(out);
	return -1;
}

int sqlite_session_get(struct store *s, int64_t id, struct session_rec *out,
		       struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSION_GET);

	sqlite3_bind_int64(st, 1, id);
	return sqlite_read_session(ss, st, out, err);
}

static int sqlite_session_current(struct store *s, const char *platform,
				  const char *room, struct session_rec *out,
				  struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSION_CURRENT);

	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, room);
	return sqlite_read_session(ss, st, out, err);
}

/* Reads the next page of open session ids after *last into ids[]. */
static int open_page(struct sqlite_store *ss, int64_t after, int64_t *ids, int *n,
		     struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSIONS_OPEN);
	int rc;

	*n = 0;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "listing open sessions");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_ACTIONS);
	struct action_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	struct rows_reader r = sqlite_reader(st);
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
			sqlite_fail(ss, err, "reading actions");
			goto fail;
		}
		sqlite_st_done(st);
		for (i = 0; i < n; i++) {
			after = page[i].seq;
			if (cb(ctx, &page[i]))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	sqlite_st_done(st);
	free(page);
	return ret;
}

/* A page of due sessions after (after_due, after_id), as ids and dues. */
static int due_page(struct sqlite_store *ss, int64_t until, int64_t after_due,
		    int64_t after_id, int64_t *ids, int64_t *dues, int *n,
		    struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSIONS_DUE);
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
		sqlite_fail(ss, err, "listing due sessions");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	return 0;
}

/*
 * Hands each session of a (due, id) page to cb, read whole, and moves the
 * key past it; a session whose due changed since the page was read is
 * skipped.  1: cb asked to stop; 0: go on; -1: error (err).
 */
int sqlite_deliver_due_page(struct store *s, const int64_t *ids, const int64_t *dues, int n,
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
		rc = sqlite_deliver_due_page(s, ids, dues, n, &after_due, &after_id, &rec, cb, ctx, err);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_NEXT_DUE);
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
	} else if (rc == SQLITE_DONE) {
		*out = 0;
	} else {
		sqlite_fail(ss, err, "reading the next due time");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	return 0;
}

/* A page of the user's open session ids after `after` into ids[]. */
static int user_page(struct sqlite_store *ss, const char *platform, const char *user,
		     int64_t after, int64_t *ids, int *n, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSIONS_OF_USER);
	int rc;

	*n = 0;
	sqlite_bind_str(st, 1, user);
	sqlite_bind_str(st, 2, platform);
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int(st, 4, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "listing a user's sessions");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_COUNT_LOBBIES);
	int rc;

	sqlite_bind_str(st, 1, platform);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite_fail(ss, err, "counting lobbies");
		sqlite_st_done(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite_st_done(st);
	return 0;
}

static int sqlite_stats(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
			struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_STATS_OUTBOX);
	int rc;

	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite_fail(ss, err, "counting the outbox");
		sqlite_st_done(st);
		return -1;
	}
	out->outbox_pending = sqlite3_column_int64(st, 0);
	out->outbox_oldest = sqlite3_column_int64(st, 1);
	sqlite_st_done(st);
	st = sqlite_st(ss, ST_STATS_GAMES);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *game = (const char *)sqlite3_column_text(st, 0);

		if (cb && cb(ctx, game ? game : "", sqlite3_column_int(st, 1),
			     sqlite3_column_int64(st, 2)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "counting the games");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	return 0;
}

int sqlite_read_outbox(sqlite3_stmt *st, struct outbox_rec *o, struct buf *err)
{
	struct rows_reader r = sqlite_reader(st);

	return rows_outbox(&r, o, err);
}

static int sqlite_outbox_pending(struct store *s, store_outbox_cb cb, void *ctx,
				 struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_OUTBOX_PENDING);
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
			if (sqlite_read_outbox(st, &page[n++], err))
				goto fail;
		if (rc != SQLITE_DONE) {
			sqlite_fail(ss, err, "reading the outbox");
			goto fail;
		}
		sqlite_st_done(st);
		for (i = 0; i < n; i++) {
			after = page[i].id;
			if (cb(ctx, &page[i]))
				goto done;
		}
	} while (n == PAGE_ROWS);
done:
	ret = 0;
fail:
	sqlite_st_done(st);
	for (i = 0; i < n; i++)
		outbox_rec_release(&page[i]);
	free(page);
	return ret;
}

static int sqlite_cursor_get(struct store *s, const char *key, struct buf *value,
			     struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_CURSOR_GET);
	int rc, ret = -1;

	sqlite_bind_str(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = 0;
	} else if (rc != SQLITE_ROW) {
		sqlite_fail(ss, err, "reading a cursor");
	} else {
		buf_reset(value);
		if (buf_add(value, sqlite3_column_text(st, 0),
			    (size_t)sqlite3_column_bytes(st, 0)))
			seterr(err, "store: cursor %s does not fit its buffer", key);
		else
			ret = 1;
	}
	sqlite_st_done(st);
	return ret;
}

/* ----------------------------------------------------------------- writes */

/* ?14, the id, matters to session_update and the import only */
void sqlite_bind_session(sqlite3_stmt *st, const struct session_rec *s)
{
	struct sqlite_binder b = { st, 0 };
	struct rows_writer w = SQLITE_WRITER(b);

	rows_put_session(&w, s, s->id);
}

/* Inserts a new session; *id gets its id. */
static int session_insert(struct sqlite_store *ss, const struct session_rec *s,
			  int64_t *id, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSION_INSERT);

	sqlite_bind_session(st, s);
	if (sqlite_st_run(ss, st, err, "inserting a session"))
		return -1;
	*id = sqlite3_last_insert_rowid(ss->db);
	return 0;
}

/* Explains why an UPDATE by id and version matched nothing: STORE_CONFLICT
 * when the session is there at another version, else -1. */
static int session_update_missed(struct sqlite_store *ss, const struct session_rec *s,
				 struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSION_VERSION);
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
		sqlite_fail(ss, err, "checking a session");
	}
	sqlite_st_done(st);
	return ret;
}

static int session_update(struct sqlite_store *ss, const struct session_rec *s,
			  struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSION_UPDATE);

	sqlite_bind_session(st, s);
	if (sqlite_st_run(ss, st, err, "updating a session"))
		return -1;
	if (sqlite3_changes(ss->db) != 1)
		return session_update_missed(ss, s, err);
	return 0;
}

int sqlite_seats_replace(struct sqlite_store *ss, int64_t id,
			 const struct session_rec *s, int existed, struct buf *err)
{
	sqlite3_stmt *st;
	int i;

	if (existed) {
		st = sqlite_st(ss, ST_SEATS_DELETE);
		sqlite3_bind_int64(st, 1, id);
		if (sqlite_st_run(ss, st, err, "clearing seats"))
			return -1;
	}
	st = sqlite_st(ss, ST_SEAT_INSERT);
	for (i = 0; i < s->nseats; i++) {
		struct sqlite_binder b = { st, 0 };
		struct rows_writer w = SQLITE_WRITER(b);

		rows_put_seat(&w, id, i, &s->seats[i]);
		if (sqlite_st_run(ss, st, err, "storing a seat"))
			return -1;
	}
	return 0;
}

int sqlite_action_append(struct sqlite_store *ss, int64_t session,
			 const struct action_rec *a, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_ACTION_INSERT);
	struct sqlite_binder b = { st, 0 };
	struct rows_writer w = SQLITE_WRITER(b);
	int rc;

	rows_put_action(&w, session, a);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		seterr(err, "store: session %lld already has action %lld",
		       (long long)session, (long long)a->seq);
	else if (rc != SQLITE_DONE)
		sqlite_fail(ss, err, "appending an action");
	sqlite_st_done(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Deletes the session's actions with seq > after (undo). */
static int actions_truncate(struct sqlite_store *ss, int64_t session, int64_t after,
			    struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_ACTIONS_TRUNCATE);

	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, after);
	return sqlite_st_run(ss, st, err, "truncating actions");
}

static int outbox_insert(struct sqlite_store *ss, const struct outbox_rec *o,
			 const char *owner, int64_t *id, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_OUTBOX_INSERT);
	struct sqlite_binder b = { st, 0 };
	struct rows_writer w = SQLITE_WRITER(b);
	int rc;

	rows_put_outbox(&w, o, owner);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		seterr(err, "store: outbox key %s is already used", o->key);
	else if (rc != SQLITE_DONE)
		sqlite_fail(ss, err, "queueing a message");
	sqlite_st_done(st);
	if (rc != SQLITE_DONE)
		return -1;
	*id = sqlite3_last_insert_rowid(ss->db);
	return 0;
}

int sqlite_cursor_put(struct sqlite_store *ss, const char *key, const char *value,
		      struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_CURSOR_SET);

	sqlite_bind_str(st, 1, key);
	sqlite_bind_str(st, 2, value);
	return sqlite_st_run(ss, st, err, "setting a cursor");
}

static int cursor_del(struct sqlite_store *ss, const char *key, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_CURSOR_DELETE);

	sqlite_bind_str(st, 1, key);
	return sqlite_st_run(ss, st, err, "deleting a cursor");
}


/*
 * The caller's records are touched (session id, outbox ids) only once
 * COMMIT has succeeded, so a failed commit can be retried as is.  The
 * session's version is the caller's: it bumps it by one per change.
 * Order: session and seats, truncation (undo), actions, outbox, cursor,
 * result (its ratings checked under the write lock).
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
	if (sqlite_st_run(ss, sqlite_st(ss, ST_BEGIN), err, "starting a transaction"))
		goto fail;
	/* under BEGIN IMMEDIATE's write lock: nobody takes the lease before
	 * this transaction ends */
	if (c->fence_lease) {
		rc = sqlite_fence_check(ss, c->fence_lease, c->fence_holder, err);
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
		if (sqlite_seats_replace(ss, sid, sess, sess->id != 0, err))
			goto fail;
	}
	/* check_commit() made sure truncate comes with a stored session. */
	if (c->truncate && actions_truncate(ss, sid, c->truncate_after, err))
		goto fail;
	for (i = 0; i < c->nactions; i++)
		if (sqlite_action_append(ss, sid, &c->actions[i], err))
			goto fail;
	for (i = 0; i < c->noutbox; i++)
		if (outbox_insert(ss, &c->outbox[i], c->owner, &ids[i], err))
			goto fail;
	if (c->cursor_key && (c->cursor_delete ? cursor_del(ss, c->cursor_key, err) :
			      sqlite_cursor_put(ss, c->cursor_key, c->cursor_value, err)))
		goto fail;
	if (c->result) {
		rc = sqlite_result_store(ss, c->result, sid, err);
		if (rc)
			goto fail;
		rc = -1;
	}
	if (sqlite_st_run(ss, sqlite_st(ss, ST_COMMIT), err, "committing"))
		goto fail;

	if (sess)
		sess->id = sid;
	for (i = 0; i < c->noutbox; i++)
		c->outbox[i].id = ids[i];
	free(ids);
	return 0;
fail:
	sqlite_rollback(ss);
	free(ids);
	return rc;
}

static int sqlite_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);

	sqlite3_bind_int64(sqlite_st(ss, ST_OUTBOX_DONE), 1, id);
	if (sqlite_st_run(ss, sqlite_st(ss, ST_OUTBOX_DONE), err, "marking a message sent"))
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
	return sqlite_cursor_put(ss, key, value, err);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_CURSORS_PREFIX);
	struct buf upper = BUF_INIT;
	char **rows = NULL;
	size_t n = 0, cap = 0, i;
	int rc, ret = -1;

	if (!prefix || !*prefix || prefix_successor(prefix, &upper)) {
		seterr(err, "store: listing cursors needs a prefix");
		buf_release(&upper);
		return -1;
	}
	sqlite_bind_str(st, 1, prefix);
	sqlite_bind_str(st, 2, buf_str(&upper));
	sqlite3_bind_int(st, 3, STORE_PREFIX_MAX + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 32;
			rows = xrealloc(rows, cap * sizeof(*rows));
		}
		rows[n++] = sqlite_col_strdup(st, 0);
		rows[n++] = sqlite_col_strdup(st, 1);
	}
	if (rc != SQLITE_DONE)
		sqlite_fail(ss, err, "listing cursors");
	sqlite_st_done(st);
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

const struct store_ops sqlite_ops = {
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
	.ratings_get = sqlite_ratings_get,
	.leaderboard = sqlite_leaderboard,
	.leaderboards = sqlite_leaderboards,
	.player_ratings = sqlite_player_ratings,
	.rating_points = sqlite_rating_points,
	.results_recent = sqlite_results_recent,
	.result_get = sqlite_result_get,
	.player_hide = sqlite_player_hide,
	.player_forget = sqlite_player_forget,
	.web_get = sqlite_web_get,
	.web_put = sqlite_web_put,
	.web_find = sqlite_web_find,
	.web_marks = sqlite_web_marks,
};
