/*
 * postgres.c: the shared store (state/store.h) on one libpq connection,
 * for several bot processes on one database (docs/deploy.md).
 *
 * Synchronous, with a hard bound.  The store interface is synchronous (a
 * command commits before anything is sent), so every call here blocks the
 * caller's loop until PostgreSQL answers, and at most TABULA_DB_TIMEOUT
 * (default 5 s): the socket is non-blocking and every wait is a poll()
 * with that deadline; a server that does not answer in time costs the
 * connection (the next call reconnects) and the server gives up the
 * statement itself (statement_timeout, client_connection_check_interval).
 * docs/store.md has the choice and the figures.
 *
 * One round trip per commit: the statements of a commit go out in libpq's
 * pipeline mode and end with one Sync, which PostgreSQL runs as one
 * implicit transaction: any failure rolls all of it back.  Version checks
 * and fences are functions of the schema (migration 5) that raise their
 * own SQLSTATEs, so that a refused check aborts the pipeline too.
 *
 * The tables live in the connection's current schema; tabula_meta says the
 * schema is tabula's and at which version.  The migrations are
 * state/schema.c's, shared with SQLite, each in one transaction under an
 * advisory lock.
 *
 * Iterators read a page into a PGresult and only then call back, so a
 * callback may use the store (outbox_done inside outbox_pending).
 *
 * This file holds the statements, the reads and the store_ops wiring; the
 * other parts are named in state/postgres_int.h.
 */
#include "state/postgres_int.h"
#include "state/rows.h"
#include "state/schema.h"
#include "state/store_int.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

/* ---------------------------------------------------------------- schema */

/* The schema and its migrations are state/schema.c's, shared with SQLite;
 * here the version is tabula_meta's schema_version. */
int store_pg_schema_version(void)
{
	return schema_version();
}

/* ------------------------------------------------------------ statements */

/* Column order of SESSION_SELECT: enum rows_session_col (state/rows.h). */
#define SESSION_SELECT \
	"SELECT s.id, s.platform, s.room, s.game, s.options, s.creator," \
	" s.locale, s.status, s.seed, s.version, s.created, s.updated, s.state," \
	" s.settings, s.due, s.votes, s.community," \
	" t.seat, t.\"user\", t.name, t.is_bot, t.notify_dm" \
	" FROM sessions s LEFT JOIN seats t ON t.session = s.id"

/* The session columns a write binds, $1..$17 (the id is $14). */
#define SESSION_COLS \
	"platform, room, game, options, creator, locale, status, seed, created," \
	" updated, state, version, settings, due, votes, community"

const char *const pg_stmt_sql[P_RATINGS_FIRST] = {
	[P_NEXT_ID] = "SELECT nextval(pg_get_serial_sequence('sessions', 'id'))",
	[P_EXPECT] = "SELECT tabula_expect($1, $2)",
	[P_FENCE] = "SELECT tabula_fence($1, $2)",
	[P_SESSION_INSERT] =
		"INSERT INTO sessions (id, " SESSION_COLS ")"
		" VALUES ($14, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15,"
		" $16, $17)",
	[P_SESSION_UPDATE] =
		"UPDATE sessions SET platform = $1, room = $2, game = $3, options = $4,"
		" creator = $5, locale = $6, status = $7, seed = $8, created = $9,"
		" updated = $10, state = $11, version = $12, settings = $13, due = $15,"
		" votes = $16, community = $17 WHERE id = $14",
	/* a commit rewrites only the seats that changed (they seldom do):
	 * the ones past the count go, the others are upserted unless equal */
	[P_SEATS_TRIM] = "DELETE FROM seats WHERE session = $1 AND seat >= $2",
	[P_SEAT_INSERT] =
		"INSERT INTO seats (session, seat, \"user\", name, is_bot, notify_dm)"
		" VALUES ($1, $2, $3, $4, $5, $6)",
	[P_SEAT_UPSERT] =
		"INSERT INTO seats AS t (session, seat, \"user\", name, is_bot, notify_dm)"
		" VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session, seat) DO UPDATE"
		" SET \"user\" = excluded.\"user\", name = excluded.name,"
		" is_bot = excluded.is_bot, notify_dm = excluded.notify_dm"
		" WHERE (t.\"user\", t.name, t.is_bot, t.notify_dm) IS DISTINCT FROM"
		" (excluded.\"user\", excluded.name, excluded.is_bot, excluded.notify_dm)",
	[P_ACTION_INSERT] =
		"INSERT INTO actions (session, seq, seat, move, \"user\", at)"
		" VALUES ($1, $2, $3, $4, $5, $6)",
	[P_ACTIONS_TRUNCATE] = "DELETE FROM actions WHERE session = $1 AND seq > $2",
	[P_OUTBOX_INSERT] =
		"INSERT INTO outbox (platform, room, \"user\", key, payload, created, owner)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
	[P_CURSOR_SET] =
		"INSERT INTO cursors (key, value) VALUES ($1, $2)"
		" ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	[P_SESSION_GET] = SESSION_SELECT " WHERE s.id = $1 ORDER BY t.seat",
	[P_SESSION_CURRENT] = SESSION_SELECT
		" WHERE s.id = (SELECT id FROM sessions"
		" WHERE platform = $1 AND room = $2 ORDER BY id DESC LIMIT 1)"
		" ORDER BY t.seat",
	[P_SESSIONS_OPEN] =
		"SELECT id FROM sessions WHERE status IN (0, 1) AND id > $1"
		" ORDER BY id LIMIT $2",
	[P_ACTIONS] =
		"SELECT seq, seat, move, \"user\", at FROM actions"
		" WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3",
	[P_OUTBOX_PENDING] =
		"SELECT id, platform, room, \"user\", key, payload, created FROM outbox"
		" WHERE sent_at IS NULL AND id > $1 ORDER BY id LIMIT $2",
	/* Not waited for on disk (asynchronous commit, set for this
	 * transaction only: the setting at commit time is what counts): a
	 * server crash may forget the last marks, and those messages go out
	 * again with the same idempotency key.  Every mark waiting for its
	 * own fsync cost a third of the throughput (docs/store.md). */
	[P_OUTBOX_DONE] =
		"UPDATE outbox SET sent_at = coalesce(sent_at, extract(epoch FROM now())::bigint),"
		" payload = '' WHERE id = $1"
		" RETURNING set_config('synchronous_commit', 'off', true)",
	[P_CURSOR_GET] = "SELECT value FROM cursors WHERE key = $1",
	[P_SESSIONS_DUE] =
		"SELECT id, due FROM sessions"
		" WHERE due > 0 AND due <= $1 AND (due, id) > ($2, $3)"
		" ORDER BY due, id LIMIT $4",
	[P_NEXT_DUE] = "SELECT due FROM sessions WHERE due > 0 ORDER BY due LIMIT 1",
	[P_SESSIONS_OF_USER] =
		"SELECT DISTINCT t.session FROM seats t JOIN sessions s ON s.id = t.session"
		" WHERE t.\"user\" = $1 AND t.is_bot = 0 AND s.platform = $2"
		" AND s.status IN (0, 1) AND t.session > $3"
		" ORDER BY t.session LIMIT $4",
	[P_COUNT_LOBBIES] = "SELECT count(*) FROM sessions WHERE platform = $1 AND status = 0",
	[P_STATS_OUTBOX] =
		"SELECT count(*), coalesce(min(created), 0) FROM outbox WHERE sent_at IS NULL",
	[P_STATS_GAMES] =
		"SELECT game, status, count(*) FROM sessions WHERE status IN (0, 1)"
		" GROUP BY game, status",
	[P_SESSION_STAMP] =
		"SELECT id, version FROM sessions WHERE platform = $1 AND room = $2"
		" ORDER BY id DESC LIMIT 1",
	/* a row comes back when the lease was taken or renewed */
	[P_LEASE_TAKE] =
		"INSERT INTO leases AS l (name, holder, until)"
		" VALUES ($1, $2, tabula_now_ms() + $3)"
		" ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
		" until = excluded.until"
		" WHERE l.holder = excluded.holder OR l.until <= tabula_now_ms()"
		" RETURNING 1",
	[P_LEASE_DROP] = "DELETE FROM leases WHERE name = $1 AND holder = $2",
	/*
	 * Claims: one statement each, so the page is chosen and taken
	 * atomically; SKIP LOCKED passes over rows another process is
	 * committing or claiming right now.  $n::text[] is the platforms.
	 */
	[P_CLAIM_DUE] =
		"WITH c AS (SELECT s.id, s.due, s.claim FROM sessions s"
		"  WHERE s.due > 0 AND s.due <= $1 AND (s.due, s.id) > ($2, $3)"
		"  AND s.platform = ANY ($5::text[])"
		"  AND (s.claim = $4 OR NOT EXISTS (SELECT 1 FROM leases l"
		"   WHERE l.name = s.claim AND l.until > tabula_now_ms()))"
		"  ORDER BY s.due, s.id LIMIT $6 FOR UPDATE OF s SKIP LOCKED),"
		" u AS (UPDATE sessions SET claim = $4 FROM c"
		"  WHERE sessions.id = c.id AND c.claim <> $4)"
		" SELECT id, due FROM c ORDER BY due, id",
	[P_CLAIM_OUTBOX] =
		"WITH c AS (SELECT o.id FROM outbox o"
		"  WHERE o.sent_at IS NULL AND o.id > $1 AND o.platform = ANY ($3::text[])"
		"  AND o.owner <> $2 AND NOT EXISTS (SELECT 1 FROM leases l"
		"   WHERE l.name = o.owner AND l.until > tabula_now_ms())"
		"  ORDER BY o.id LIMIT $4 FOR UPDATE OF o SKIP LOCKED)"
		" UPDATE outbox SET owner = $2 FROM c WHERE outbox.id = c.id"
		" RETURNING outbox.id, outbox.platform, outbox.room, outbox.\"user\","
		" outbox.key, outbox.payload, outbox.created",
	[P_DUMP_SESSIONS] = "SELECT id FROM sessions WHERE id > $1 ORDER BY id LIMIT $2",
	[P_DUMP_ACTIONS] =
		"SELECT session, seq, seat, move, \"user\", at FROM actions"
		" WHERE (session, seq) > ($1, $2) ORDER BY session, seq LIMIT $3",
	[P_DUMP_OUTBOX] =
		"SELECT id, platform, room, \"user\", key, payload, created, sent_at"
		" FROM outbox WHERE id > $1 ORDER BY id LIMIT $2",
	[P_DUMP_CURSORS] =
		"SELECT key, value FROM cursors WHERE key > $1 ORDER BY key LIMIT $2",
	[P_CURSOR_DELETE] = "DELETE FROM cursors WHERE key = $1",
	/* whatever the database's collation: starts_with compares the
	 * characters; one row more than the bound tells it is exceeded */
	[P_CURSORS_PREFIX] = "SELECT key, value FROM cursors WHERE starts_with(key, $1) LIMIT $2",
	[P_IMPORT_OUTBOX] =
		"INSERT INTO outbox (id, platform, room, \"user\", key, payload, created, sent_at)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
	[P_COUNT_RECORDS] =
		"SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM outbox)"
		" + (SELECT count(*) FROM cursors) + (SELECT count(*) FROM results)"
		" + (SELECT count(*) FROM ratings) + (SELECT count(*) FROM rating_history)"
		" + (SELECT count(*) FROM players)",
	/* after import: new ids continue after the copied ones */
	[P_SETVAL] =
		"SELECT setval(pg_get_serial_sequence('sessions', 'id'),"
		"  (SELECT coalesce(max(id), 0) + 1 FROM sessions), false),"
		" setval(pg_get_serial_sequence('outbox', 'id'),"
		"  (SELECT coalesce(max(id), 0) + 1 FROM outbox), false)",
	/* a commit whose answer was lost: waits for a transaction still
	 * holding the row (tabula_expect locked it), then reads */
	[P_VERSION_OF] = "SELECT version FROM sessions WHERE id = $1 FOR SHARE",
	[P_OUTBOX_BY_KEY] = "SELECT id FROM outbox WHERE key = $1",
};

const char *pg_stmt_text(int id)
{
	return id < P_RATINGS_FIRST ? pg_stmt_sql[id] :
	       id < P_WEB_FIRST ? pg_ratings_sql[id - P_RATINGS_FIRST] : pg_web_sql[id - P_WEB_FIRST];
}

struct pg_store *pg_downcast(struct store *s)
{
	assert(s && s->ops == &pg_ops);
	return (struct pg_store *)s;
}

/* ---------------------------------------------------------- reading rows */

int64_t pg_col_i64(const PGresult *r, int row, int col)
{
	return (int64_t)strtoll(PQgetvalue(r, row, col), NULL, 10);
}

int64_t pg_row_i64(void *row, int col)
{
	struct pg_row *x = row;

	return pg_col_i64(x->r, x->i, col);
}

/* float8 as text: "%.17g"-like digits, or Infinity and NaN (strtod
 * reads all of them) */
double pg_row_f64(void *row, int col)
{
	struct pg_row *x = row;

	return strtod(PQgetvalue(x->r, x->i, col), NULL);
}

int pg_row_is_null(void *row, int col)
{
	struct pg_row *x = row;

	return PQgetisnull(x->r, x->i, col);
}

const char *pg_row_text(void *row, int col, size_t *len)
{
	struct pg_row *x = row;

	*len = (size_t)PQgetlength(x->r, x->i, col);
	return PQgetisnull(x->r, x->i, col) ? NULL : PQgetvalue(x->r, x->i, col);
}

/* Adds parameters in order ($1, $2, ...). */
static void put_i64(void *ctx, int64_t v)
{
	pg_param_i64(ctx, v);
}

static void put_text(void *ctx, const char *s)
{
	pg_param_text(ctx, s);
}

static void put_f64(void *ctx, double v)
{
	pg_param_f64(ctx, v);
}

/* A writer that starts p afresh. */
struct rows_writer pg_writer(struct pg_params *p)
{
	struct rows_writer w = { p, put_i64, put_text, put_f64 };

	p->n = 0;
	return w;
}

/* The platforms as a text[] literal: {"a","b"} (names are checked plain). */
int pg_platform_array(const char *const *platforms, struct buf *out, struct buf *err)
{
	struct buf list = BUF_INIT;
	size_t i;

	if (store_platform_list(platforms, &list, err)) {
		buf_release(&list);
		return -1;
	}
	buf_release(&list);
	buf_reset(out);
	buf_addch(out, '{');
	for (i = 0; platforms[i]; i++)
		buf_printf(out, "%s\"%s\"", i ? "," : "", platforms[i]);
	buf_addch(out, '}');
	return 0;
}

/* ------------------------------------------------------------------ reads */

/* A SESSION_SELECT result into out (released first): 1, 0 or -1. */
static int pg_read_session(PGresult *r, struct session_rec *out, struct buf *err)
{
	int i, n;

	session_rec_release(out);
	if (!r)
		return -1;
	n = PQntuples(r);
	for (i = 0; i < n; i++) {
		struct pg_row x = { r, i };
		struct rows_reader rr = PG_READER(x);

		if (rows_session(&rr, !i, out, err))
			goto fail;
	}
	PQclear(r);
	return n ? 1 : 0;
fail:
	PQclear(r);
	session_rec_release(out);
	return -1;
}

int pg_session_get(struct store *s, int64_t id, struct session_rec *out,
		   struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };

	pg_param_i64(&p, id);
	return pg_read_session(pg_run(ps, P_SESSION_GET, &p, 1, err), out, err);
}

static int pg_session_current(struct store *s, const char *platform, const char *room,
			      struct session_rec *out, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };

	pg_param_text(&p, platform);
	pg_param_text(&p, room);
	return pg_read_session(pg_run(ps, P_SESSION_CURRENT, &p, 1, err), out, err);
}

/* A page of ids (column 0) of a statement whose last two parameters are
 * (after, limit) or which the caller filled. */
int pg_id_page(struct pg_store *ps, enum pg_stmt id, struct pg_params *p, int64_t *ids,
	       int *n, struct buf *err)
{
	PGresult *r = pg_run(ps, id, p, 1, err);
	int i;

	*n = 0;
	if (!r)
		return -1;
	for (i = 0; i < PQntuples(r) && i < PAGE_ROWS; i++)
		ids[(*n)++] = pg_col_i64(r, i, 0);
	PQclear(r);
	return 0;
}

/*
 * Delivers the sessions of a page of ids, each read whole; skip() says
 * which no longer qualify (a callback may have changed them).  Returns 1
 * when a callback stopped, 0 to go on, -1 on error.
 */
int pg_deliver_page(struct store *s, const int64_t *ids, int n, struct session_rec *rec,
		    pg_skip_fn skip, const void *arg, store_session_cb cb, void *ctx,
		    struct buf *err)
{
	int i, found;

	for (i = 0; i < n; i++) {
		found = pg_session_get(s, ids[i], rec, err);
		if (found < 0)
			return -1;
		if (!found || skip(rec, arg, i))
			continue;
		if (cb(ctx, rec))
			return 1;
	}
	return 0;
}

static int not_open(const struct session_rec *rec, const void *arg, int i)
{
	return rec->status != SESSION_LOBBY && rec->status != SESSION_ACTIVE;
}

static int pg_sessions_open(struct store *s, store_session_cb cb, void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, rc = 0;

	session_rec_init(&rec);
	do {
		struct pg_params p = { 0 };

		pg_param_i64(&p, after);
		pg_param_i64(&p, PAGE_ROWS);
		if (pg_id_page(ps, P_SESSIONS_OPEN, &p, ids, &n, err)) {
			rc = -1;
			break;
		}
		if (n)
			after = ids[n - 1];
		rc = pg_deliver_page(s, ids, n, &rec, not_open, NULL, cb, ctx, err);
	} while (!rc && n == PAGE_ROWS);
	session_rec_release(&rec);
	return rc < 0 ? -1 : 0;
}

static int pg_actions(struct store *s, int64_t session, int64_t after, store_action_cb cb,
		      void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct action_rec a;
	int n, i;

	do {
		struct pg_params p = { 0 };
		PGresult *r;

		pg_param_i64(&p, session);
		pg_param_i64(&p, after);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_ACTIONS, &p, 1, err);
		if (!r)
			return -1;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			struct pg_row x = { r, i };
			struct rows_reader rr = PG_READER(x);

			if (rows_action(&rr, 0, &a, err)) {
				PQclear(r);
				return -1;
			}
			a.session = session;
			after = a.seq;
			/* the result is all in memory: the callback may use the store */
			if (cb(ctx, &a)) {
				PQclear(r);
				return 0;
			}
		}
		PQclear(r);
	} while (n == PAGE_ROWS);
	return 0;
}

/* Columns 0-6: id, platform, room, user, key, payload, created. */
int pg_read_outbox(const PGresult *r, int row, struct outbox_rec *o, struct buf *err)
{
	struct pg_row x = { r, row };
	struct rows_reader rr = PG_READER(x);

	return rows_outbox(&rr, o, err);
}

/* Delivers the outbox rows of r in id order; 1 stopped, 0 on, -1 error.
 * *after gets the last id delivered. */
static int pg_outbox_rows(PGresult *r, int64_t *after, store_outbox_cb cb, void *ctx,
		       struct buf *err)
{
	struct outbox_rec o;
	int i, n = PQntuples(r), rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (pg_read_outbox(r, i, &o, err)) {
			outbox_rec_release(&o);
			return -1;
		}
		*after = o.id;
		rc = cb(ctx, &o) ? 1 : 0;
		outbox_rec_release(&o);
	}
	return rc;
}

static int pg_outbox_pending(struct store *s, store_outbox_cb cb, void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	int64_t after = 0;
	int n, rc;

	do {
		struct pg_params p = { 0 };
		PGresult *r;

		pg_param_i64(&p, after);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_OUTBOX_PENDING, &p, 1, err);
		if (!r)
			return -1;
		n = PQntuples(r);
		rc = pg_outbox_rows(r, &after, cb, ctx, err);
		PQclear(r);
		if (rc)
			return rc < 0 ? -1 : 0;
	} while (n == PAGE_ROWS);
	return 0;
}

static int pg_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;
	int changed;

	pg_param_i64(&p, id);
	r = pg_run(ps, P_OUTBOX_DONE, &p, 1, err);
	if (!r)
		return -1;
	changed = atoi(PQcmdTuples(r));
	PQclear(r);
	if (changed != 1) {
		seterr(err, "store: no outbox message %lld", (long long)id);
		return -1;
	}
	return 0;
}

static int pg_cursor_get(struct store *s, const char *key, struct buf *value, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;
	int ret = 0;

	pg_param_text(&p, key);
	r = pg_run(ps, P_CURSOR_GET, &p, 1, err);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		buf_reset(value);
		if (buf_add(value, PQgetvalue(r, 0, 0), (size_t)PQgetlength(r, 0, 0))) {
			seterr(err, "store: cursor %s does not fit its buffer", key);
			ret = -1;
		} else {
			ret = 1;
		}
	}
	PQclear(r);
	return ret;
}

int pg_due_changed(const struct session_rec *rec, const void *arg, int i)
{
	return rec->due != ((const int64_t *)arg)[i];
}

/* Like state/sqlite.c: a page of (due, id) keys, then each read whole. */
static int pg_sessions_due(struct store *s, int64_t until, store_session_cb cb, void *ctx,
			   struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], dues[PAGE_ROWS], after_due = 0, after_id = 0;
	int n, i, rc = 0;

	session_rec_init(&rec);
	do {
		struct pg_params p = { 0 };
		PGresult *r;

		pg_param_i64(&p, until);
		pg_param_i64(&p, after_due);
		pg_param_i64(&p, after_id);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_SESSIONS_DUE, &p, 1, err);
		if (!r) {
			rc = -1;
			break;
		}
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			ids[i] = pg_col_i64(r, i, 0);
			dues[i] = pg_col_i64(r, i, 1);
		}
		PQclear(r);
		if (n) {
			after_due = dues[n - 1];
			after_id = ids[n - 1];
		}
		rc = pg_deliver_page(s, ids, n, &rec, pg_due_changed, dues, cb, ctx, err);
	} while (!rc && n == PAGE_ROWS);
	session_rec_release(&rec);
	return rc < 0 ? -1 : 0;
}

static int pg_next_due(struct store *s, int64_t *out, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	PGresult *r = pg_run(ps, P_NEXT_DUE, NULL, 1, err);

	if (!r)
		return -1;
	*out = PQntuples(r) ? pg_col_i64(r, 0, 0) : 0;
	PQclear(r);
	return 0;
}

struct user_arg {
	const char *user;
};

static int not_seated(const struct session_rec *rec, const void *arg, int i)
{
	const struct user_arg *u = arg;
	int k, seated = 0;

	for (k = 0; k < rec->nseats; k++)
		seated |= !rec->seats[k].is_bot && !strcmp(rec->seats[k].user, u->user);
	return !seated || not_open(rec, NULL, i);
}

static int pg_sessions_of_user(struct store *s, const char *platform, const char *user,
			       store_session_cb cb, void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct user_arg u = { user };
	struct session_rec rec;
	int64_t ids[PAGE_ROWS], after = 0;
	int n, rc = 0;

	session_rec_init(&rec);
	do {
		struct pg_params p = { 0 };

		pg_param_text(&p, user);
		pg_param_text(&p, platform);
		pg_param_i64(&p, after);
		pg_param_i64(&p, PAGE_ROWS);
		if (pg_id_page(ps, P_SESSIONS_OF_USER, &p, ids, &n, err)) {
			rc = -1;
			break;
		}
		if (n)
			after = ids[n - 1];
		rc = pg_deliver_page(s, ids, n, &rec, not_seated, &u, cb, ctx, err);
	} while (!rc && n == PAGE_ROWS);
	session_rec_release(&rec);
	return rc < 0 ? -1 : 0;
}

static int pg_count_lobbies(struct store *s, const char *platform, int64_t *out,
			    struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;

	pg_param_text(&p, platform);
	r = pg_run(ps, P_COUNT_LOBBIES, &p, 1, err);
	if (!r)
		return -1;
	*out = pg_col_i64(r, 0, 0);
	PQclear(r);
	return 0;
}

static int pg_stats(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
		    struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;
	int i;

	r = pg_run(ps, P_STATS_OUTBOX, &p, 1, err);
	if (!r)
		return -1;
	out->outbox_pending = pg_col_i64(r, 0, 0);
	out->outbox_oldest = pg_col_i64(r, 0, 1);
	PQclear(r);
	r = pg_run(ps, P_STATS_GAMES, &p, 1, err);
	if (!r)
		return -1;
	for (i = 0; i < PQntuples(r); i++)
		if (cb && cb(ctx, PQgetvalue(r, i, 0), (int)pg_col_i64(r, i, 1), pg_col_i64(r, i, 2)))
			break;
	PQclear(r);
	return 0;
}

static int pg_session_stamp(struct store *s, const char *platform, const char *room,
			    int64_t *id, int64_t *version, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;
	int found;

	*id = *version = 0;
	pg_param_text(&p, platform);
	pg_param_text(&p, room);
	r = pg_run(ps, P_SESSION_STAMP, &p, 1, err);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found) {
		*id = pg_col_i64(r, 0, 0);
		*version = pg_col_i64(r, 0, 1);
	}
	PQclear(r);
	return found;
}

const struct store_ops pg_ops = {
	.api_version = STORE_API_VERSION,
	.name = "postgres",
	.caps = STORE_CAP_SHARED,
	.close = pg_close,
	.commit = pg_commit,
	.session_current = pg_session_current,
	.session_get = pg_session_get,
	.sessions_open = pg_sessions_open,
	.actions = pg_actions,
	.outbox_pending = pg_outbox_pending,
	.outbox_done = pg_outbox_done,
	.cursor_get = pg_cursor_get,
	.sessions_due = pg_sessions_due,
	.next_due = pg_next_due,
	.cursor_set = pg_cursor_set,
	.cursors_prefix = pg_cursors_prefix,
	.cursor_delete = pg_cursor_delete,
	.sessions_of_user = pg_sessions_of_user,
	.count_lobbies = pg_count_lobbies,
	.stats = pg_stats,
	.session_stamp = pg_session_stamp,
	.lease = pg_lease,
	.sessions_claim_due = pg_sessions_claim_due,
	.outbox_claim = pg_outbox_claim,
	.dump = pg_dump,
	.import = pg_import,
	.ratings_get = pg_ratings_get,
	.leaderboard = pg_leaderboard,
	.leaderboards = pg_leaderboards,
	.player_ratings = pg_player_ratings,
	.rating_points = pg_rating_points,
	.results_recent = pg_results_recent,
	.result_get = pg_result_get,
	.player_hide = pg_player_hide,
	.player_forget = pg_player_forget,
	.web_get = pg_web_get,
	.web_put = pg_web_put,
	.web_find = pg_web_find,
	.web_marks = pg_web_marks,
};
