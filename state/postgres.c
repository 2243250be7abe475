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
 */
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

/* ---------------------------------------------------------------- schema */

/* The schema and its migrations are state/schema.c's, shared with SQLite;
 * here the version is tabula_meta's schema_version. */
int store_pg_schema_version(void)
{
	return schema_version();
}

/* ------------------------------------------------------------ statements */

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
	P_COUNT
};

/* Column order of SESSION_SELECT: enum rows_session_col (state/rows.h). */
#define SESSION_SELECT \
	"SELECT s.id, s.platform, s.room, s.game, s.options, s.creator," \
	" s.locale, s.status, s.seed, s.version, s.created, s.updated, s.state," \
	" s.settings, s.due, s.votes," \
	" t.seat, t.\"user\", t.name, t.is_bot, t.notify_dm" \
	" FROM sessions s LEFT JOIN seats t ON t.session = s.id"

/* The session columns a write binds, $1..$15 (the id is $14). */
#define SESSION_COLS \
	"platform, room, game, options, creator, locale, status, seed, created," \
	" updated, state, version, settings, due, votes"

static const char *const stmt_sql[P_COUNT] = {
	[P_NEXT_ID] = "SELECT nextval(pg_get_serial_sequence('sessions', 'id'))",
	[P_EXPECT] = "SELECT tabula_expect($1, $2)",
	[P_FENCE] = "SELECT tabula_fence($1, $2)",
	[P_SESSION_INSERT] =
		"INSERT INTO sessions (id, " SESSION_COLS ")"
		" VALUES ($14, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15,"
		" $16)",
	[P_SESSION_UPDATE] =
		"UPDATE sessions SET platform = $1, room = $2, game = $3, options = $4,"
		" creator = $5, locale = $6, status = $7, seed = $8, created = $9,"
		" updated = $10, state = $11, version = $12, settings = $13, due = $15,"
		" votes = $16 WHERE id = $14",
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
		" + (SELECT count(*) FROM cursors)",
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

static const struct store_ops pg_ops;

static struct pg_store *pg_downcast(struct store *s)
{
	assert(s && s->ops == &pg_ops);
	return (struct pg_store *)s;
}

/* ------------------------------------------------------- the connection */

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void disconnect(struct pg_store *ps)
{
	if (ps->conn)
		PQfinish(ps->conn);
	ps->conn = NULL;
}

/* The connection's last error, one line, without libpq's trailing newline. */
/* libpq's own message, which may quote the URI or a part of it: redacted
 * (store_redact) before anyone can log or print it. */
static void conn_error(struct pg_store *ps, struct buf *err, const char *what)
{
	const char *m = ps->conn ? PQerrorMessage(ps->conn) : "not connected";
	struct buf safe = BUF_INIT;
	size_t n;

	store_redact(ps->uri, m, &safe);
	n = safe.len;
	while (n && (safe.s[n - 1] == '\n' || safe.s[n - 1] == ' '))
		n--;
	seterr(err, "store: %s: %.*s", what, (int)n, buf_str(&safe));
	buf_release(&safe);
}

/*
 * Waits until the socket is ready for ev (POLLIN / POLLOUT) or the
 * deadline passes.  0 ready, -1 timeout or poll failure (err filled, the
 * connection dropped: its state is unknown).
 */
static int wait_sock(struct pg_store *ps, short ev, uint64_t deadline, struct buf *err,
		     const char *what)
{
	struct pollfd p;
	int rc;

	for (;;) {
		uint64_t now = mono_ms();

		if (now >= deadline) {
			seterr(err, "store: %s: PostgreSQL did not answer within %d ms", what,
			       ps->timeout_ms);
			disconnect(ps);
			return -1;
		}
		p.fd = PQsocket(ps->conn);
		p.events = ev;
		p.revents = 0;
		rc = poll(&p, 1, (int)(deadline - now));
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR) {
			seterr(err, "store: %s: poll: %s", what, strerror(errno));
			disconnect(ps);
			return -1;
		}
	}
}

/* Sends what libpq has buffered.  0, or -1 with the connection dropped. */
static int flush_out(struct pg_store *ps, uint64_t deadline, struct buf *err,
		     const char *what)
{
	int rc;

	/* every caller waits for the answer to what this sends: one round
	 * trip (a commit's whole pipeline included) */
	ps->round_trips++;
	while ((rc = PQflush(ps->conn)) == 1) {
		if (wait_sock(ps, POLLOUT | POLLIN, deadline, err, what))
			return -1;
		/* the server may be waiting for us to read before it reads */
		if (!PQconsumeInput(ps->conn)) {
			conn_error(ps, err, what);
			disconnect(ps);
			return -1;
		}
	}
	if (rc < 0) {
		conn_error(ps, err, what);
		disconnect(ps);
		return -1;
	}
	return 0;
}

/*
 * The next result (NULL at the end of a query's results), waiting at most
 * until the deadline.  *lost is set when the connection failed (the
 * caller can no longer know what the server did).
 */
static PGresult *next_result(struct pg_store *ps, uint64_t deadline, int *lost,
			     struct buf *err, const char *what)
{
	while (PQisBusy(ps->conn)) {
		if (wait_sock(ps, POLLIN, deadline, err, what) || !PQconsumeInput(ps->conn)) {
			if (ps->conn) {
				conn_error(ps, err, what);
				disconnect(ps);
			}
			*lost = 1;
			return NULL;
		}
	}
	return PQgetResult(ps->conn);
}

/* The SQLSTATE of a failed result, or "". */
static const char *sqlstate(const PGresult *r)
{
	const char *s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return s ? s : "";
}

/* A failed result's primary message into err. */
static void result_error(const PGresult *r, struct buf *err, const char *what)
{
	const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	seterr(err, "store: %s: %s", what, m ? m : "PostgreSQL failed");
}

static int ok_status(const PGresult *r)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

/* Runs simple SQL (no parameters, several statements allowed) to its end. */
static int exec_simple(struct pg_store *ps, const char *sql, PGresult **last, struct buf *err)
{
	uint64_t deadline = mono_ms() + (uint64_t)ps->timeout_ms;
	PGresult *r, *keep = NULL;
	int lost = 0, ok = 1;

	if (!PQsendQuery(ps->conn, sql)) {
		conn_error(ps, err, "sending a query");
		disconnect(ps);
		return -1;
	}
	if (flush_out(ps, deadline, err, "sending a query"))
		return -1;
	while ((r = next_result(ps, deadline, &lost, err, "running a query"))) {
		if (ok && !ok_status(r)) {
			result_error(r, err, "running a query");
			ok = 0;
		}
		PQclear(keep);
		keep = r;
	}
	if (lost) {
		PQclear(keep);
		return -1;
	}
	if (last && ok)
		*last = keep;
	else
		PQclear(keep);
	return ok ? 0 : -1;
}

static int prepare_all(struct pg_store *ps, struct buf *err)
{
	uint64_t deadline = mono_ms() + (uint64_t)ps->timeout_ms;
	char name[16];
	PGresult *r;
	int i, lost = 0, ok = 1;

	if (!PQenterPipelineMode(ps->conn)) {
		conn_error(ps, err, "preparing statements");
		return -1;
	}
	for (i = 0; i < P_COUNT; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		if (!PQsendPrepare(ps->conn, name, stmt_sql[i], 0, NULL)) {
			conn_error(ps, err, "preparing statements");
			disconnect(ps);
			return -1;
		}
	}
	if (!PQpipelineSync(ps->conn) || flush_out(ps, deadline, err, "preparing statements")) {
		if (ps->conn) {
			conn_error(ps, err, "preparing statements");
			disconnect(ps);
		}
		return -1;
	}
	for (i = 0; i <= P_COUNT; i++) {
		r = next_result(ps, deadline, &lost, err, "preparing statements");
		if (lost)
			return -1;
		if (i == P_COUNT) {
			ok = ok && r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
			PQclear(r);
			break;
		}
		if (ok && !ok_status(r)) {
			result_error(r, err, stmt_sql[i]);
			ok = 0;
		}
		PQclear(r);
		r = next_result(ps, deadline, &lost, err, "preparing statements");
		if (lost)
			return -1;
		PQclear(r);	/* the NULL that ends each query's results */
	}
	if (!PQexitPipelineMode(ps->conn)) {
		conn_error(ps, err, "preparing statements");
		disconnect(ps);
		return -1;
	}
	return ok ? 0 : -1;
}

static void no_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/*
 * Connects within the deadline: libpq's non-blocking connect driven by
 * poll().  The URI's own settings win over these defaults (they come
 * later in the arrays).  Then the session: UTF-8, the server-side bounds
 * of a statement, and the prepared statements.
 */
static int connect_now(struct pg_store *ps, struct buf *err)
{
	static const char *const keys[] = {
		"application_name", "connect_timeout", "keepalives", "keepalives_idle",
		"keepalives_interval", "keepalives_count", "dbname", NULL
	};
	const char *values[8];
	char ctimeout[16], sql[512];
	uint64_t deadline = mono_ms() + (uint64_t)ps->timeout_ms;
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	PGresult *r = NULL;

	snprintf(ctimeout, sizeof(ctimeout), "%d", (ps->timeout_ms + 999) / 1000);
	values[0] = "tabula";
	values[1] = ctimeout;
	values[2] = "1";
	values[3] = "10";
	values[4] = "5";
	values[5] = "3";
	values[6] = ps->uri;
	values[7] = NULL;
	ps->conn = PQconnectStartParams(keys, values, 1);
	if (!ps->conn || PQstatus(ps->conn) == CONNECTION_BAD) {
		conn_error(ps, err, "cannot connect");
		goto fail;
	}
	while (st != PGRES_POLLING_OK) {
		if (st == PGRES_POLLING_FAILED) {
			conn_error(ps, err, "cannot connect");
			goto fail;
		}
		if (wait_sock(ps, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline, err,
			      "connecting"))
			goto fail;
		st = PQconnectPoll(ps->conn);
	}
	/* the server's notices are for people at a psql prompt */
	PQsetNoticeProcessor(ps->conn, no_notice, NULL);
	if (PQsetnonblocking(ps->conn, 1)) {
		conn_error(ps, err, "connecting");
		goto fail;
	}
	/* the server gives up what the client gave up on */
	snprintf(sql, sizeof(sql),
		 "SET client_encoding = 'UTF8'; SET statement_timeout = %d;"
		 " SET lock_timeout = %d; SET idle_in_transaction_session_timeout = 60000;"
		 " SET client_connection_check_interval = 1000; SHOW server_encoding",
		 ps->timeout_ms, ps->timeout_ms);
	if (exec_simple(ps, sql, &r, err))
		goto fail;
	if (PQntuples(r) != 1 || strcmp(PQgetvalue(r, 0, 0), "UTF8")) {
		seterr(err, "store: the database's encoding is %s; tabula needs UTF8 (CREATE"
		       " DATABASE ... ENCODING 'UTF8')", PQntuples(r) ? PQgetvalue(r, 0, 0) : "?");
		PQclear(r);
		goto fail;
	}
	PQclear(r);
	ps->generation++;
	return 0;
fail:
	disconnect(ps);
	return -1;
}

/*
 * Makes sure there is a connection with every statement prepared: after a
 * failure (a restarted server, a cut network) the next call reconnects,
 * but not more often than every RECONNECT_PAUSE_MS, so a dead server costs
 * a command a fast error, not a timeout each.
 */
static int ready(struct pg_store *ps, struct buf *err)
{
	if (ps->conn && PQstatus(ps->conn) == CONNECTION_OK)
		return 0;
	disconnect(ps);
	if (ps->pinned) {
		/* a new connection would go on outside the transaction */
		seterr(err, "store: the connection to PostgreSQL was lost in a transaction");
		return -1;
	}
	if (mono_ms() < ps->pause_until) {
		seterr(err, "store: PostgreSQL is unreachable (reconnecting)");
		return -1;
	}
	if (connect_now(ps, err) || prepare_all(ps, err)) {
		disconnect(ps);
		ps->pause_until = mono_ms() + RECONNECT_PAUSE_MS;
		return -1;
	}
	return 0;
}

/* Parameters of one statement, as text. */
struct params {
	const char *v[MAX_PARAMS];
	char num[MAX_PARAMS][24];
	int n;
};

static void p_text(struct params *p, const char *s)
{
	assert(p->n < MAX_PARAMS);
	p->v[p->n++] = s;
}

static void p_i64(struct params *p, int64_t x)
{
	assert(p->n < MAX_PARAMS);
	snprintf(p->num[p->n], sizeof(p->num[0]), "%" PRId64, x);
	p->v[p->n] = p->num[p->n];
	p->n++;
}

static int send_stmt(struct pg_store *ps, enum pg_stmt id, const struct params *p,
		     struct buf *err)
{
	char name[16];

	snprintf(name, sizeof(name), "t%d", (int)id);
	if (!PQsendQueryPrepared(ps->conn, name, p ? p->n : 0, p ? p->v : NULL, NULL, NULL, 0)) {
		conn_error(ps, err, "sending a statement");
		disconnect(ps);
		return -1;
	}
	return 0;
}

/*
 * Runs one prepared statement: its result (PQclear it) or NULL with err.
 * A statement that failed because the connection did is run once more on a
 * new connection when retry is set (reads, and writes that do the same
 * thing twice: marking a message sent, setting a cursor, a lease).
 */
static PGresult *run(struct pg_store *ps, enum pg_stmt id, const struct params *p, int retry,
		     struct buf *err)
{
	const char *what = "running a statement";
	uint64_t deadline;
	PGresult *r, *extra;
	int lost, attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (ready(ps, err))
			return NULL;
		deadline = mono_ms() + (uint64_t)ps->timeout_ms;
		lost = 0;
		if (send_stmt(ps, id, p, err) || flush_out(ps, deadline, err, what)) {
			if (retry)
				continue;
			return NULL;
		}
		r = next_result(ps, deadline, &lost, err, what);
		if (!lost && r) {
			extra = next_result(ps, deadline, &lost, err, what);
			PQclear(extra);
		}
		if (lost) {
			PQclear(r);
			if (retry)
				continue;
			return NULL;
		}
		if (!ok_status(r)) {
			if (PQstatus(ps->conn) != CONNECTION_OK) {
				conn_error(ps, err, what);
				disconnect(ps);
				PQclear(r);
				if (retry)
					continue;
				return NULL;
			}
			result_error(r, err, what);
			PQclear(r);
			return NULL;
		}
		return r;
	}
	return NULL;
}

static int64_t col_i64(const PGresult *r, int row, int col)
{
	return (int64_t)strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* The row codecs' driver calls (state/rows.h): a row of a result. */
struct pg_row {
	const PGresult *r;
	int i;
};

static int64_t row_i64(void *row, int col)
{
	struct pg_row *x = row;

	return col_i64(x->r, x->i, col);
}

static int row_is_null(void *row, int col)
{
	struct pg_row *x = row;

	return PQgetisnull(x->r, x->i, col);
}

static const char *row_text(void *row, int col, size_t *len)
{
	struct pg_row *x = row;

	*len = (size_t)PQgetlength(x->r, x->i, col);
	return PQgetisnull(x->r, x->i, col) ? NULL : PQgetvalue(x->r, x->i, col);
}

#define READER(x) { &(x), row_i64, row_is_null, row_text }

/* Adds parameters in order ($1, $2, ...). */
static void put_i64(void *ctx, int64_t v)
{
	p_i64(ctx, v);
}

static void put_text(void *ctx, const char *s)
{
	p_text(ctx, s);
}

/* A writer that starts p afresh. */
static struct rows_writer writer(struct params *p)
{
	struct rows_writer w = { p, put_i64, put_text };

	p->n = 0;
	return w;
}

/* The platforms as a text[] literal: {"a","b"} (names are checked plain). */
static int platform_array(const char *const *platforms, struct buf *out, struct buf *err)
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
static int read_session(PGresult *r, struct session_rec *out, struct buf *err)
{
	int i, n;

	session_rec_release(out);
	if (!r)
		return -1;
	n = PQntuples(r);
	for (i = 0; i < n; i++) {
		struct pg_row x = { r, i };
		struct rows_reader rr = READER(x);

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

static int pg_session_get(struct store *s, int64_t id, struct session_rec *out,
			  struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };

	p_i64(&p, id);
	return read_session(run(ps, P_SESSION_GET, &p, 1, err), out, err);
}

static int pg_session_current(struct store *s, const char *platform, const char *room,
			      struct session_rec *out, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };

	p_text(&p, platform);
	p_text(&p, room);
	return read_session(run(ps, P_SESSION_CURRENT, &p, 1, err), out, err);
}

/* A page of ids (column 0) of a statement whose last two parameters are
 * (after, limit) or which the caller filled. */
static int id_page(struct pg_store *ps, enum pg_stmt id, struct params *p, int64_t *ids,
		   int *n, struct buf *err)
{
	PGresult *r = run(ps, id, p, 1, err);
	int i;

	*n = 0;
	if (!r)
		return -1;
	for (i = 0; i < PQntuples(r) && i < PAGE_ROWS; i++)
		ids[(*n)++] = col_i64(r, i, 0);
	PQclear(r);
	return 0;
}

/*
 * Delivers the sessions of a page of ids, each read whole; skip() says
 * which no longer qualify (a callback may have changed them).  Returns 1
 * when a callback stopped, 0 to go on, -1 on error.
 */
typedef int (*skip_fn)(const struct session_rec *rec, const void *arg, int i);

static int deliver_page(struct store *s, const int64_t *ids, int n, struct session_rec *rec,
			skip_fn skip, const void *arg, store_session_cb cb, void *ctx,
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
		struct params p = { 0 };

		p_i64(&p, after);
		p_i64(&p, PAGE_ROWS);
		if (id_page(ps, P_SESSIONS_OPEN, &p, ids, &n, err)) {
			rc = -1;
			break;
		}
		if (n)
			after = ids[n - 1];
		rc = deliver_page(s, ids, n, &rec, not_open, NULL, cb, ctx, err);
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
		struct params p = { 0 };
		PGresult *r;

		p_i64(&p, session);
		p_i64(&p, after);
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_ACTIONS, &p, 1, err);
		if (!r)
			return -1;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			struct pg_row x = { r, i };
			struct rows_reader rr = READER(x);

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
static int read_outbox_row(const PGresult *r, int row, struct outbox_rec *o, struct buf *err)
{
	struct pg_row x = { r, row };
	struct rows_reader rr = READER(x);

	return rows_outbox(&rr, o, err);
}

/* Delivers the outbox rows of r in id order; 1 stopped, 0 on, -1 error.
 * *after gets the last id delivered. */
static int outbox_rows(PGresult *r, int64_t *after, store_outbox_cb cb, void *ctx,
		       struct buf *err)
{
	struct outbox_rec o;
	int i, n = PQntuples(r), rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (read_outbox_row(r, i, &o, err)) {
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
		struct params p = { 0 };
		PGresult *r;

		p_i64(&p, after);
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_OUTBOX_PENDING, &p, 1, err);
		if (!r)
			return -1;
		n = PQntuples(r);
		rc = outbox_rows(r, &after, cb, ctx, err);
		PQclear(r);
		if (rc)
			return rc < 0 ? -1 : 0;
	} while (n == PAGE_ROWS);
	return 0;
}

static int pg_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;
	int changed;

	p_i64(&p, id);
	r = run(ps, P_OUTBOX_DONE, &p, 1, err);
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
	struct params p = { 0 };
	PGresult *r;
	int ret = 0;

	p_text(&p, key);
	r = run(ps, P_CURSOR_GET, &p, 1, err);
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

static int due_changed(const struct session_rec *rec, const void *arg, int i)
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
		struct params p = { 0 };
		PGresult *r;

		p_i64(&p, until);
		p_i64(&p, after_due);
		p_i64(&p, after_id);
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_SESSIONS_DUE, &p, 1, err);
		if (!r) {
			rc = -1;
			break;
		}
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			ids[i] = col_i64(r, i, 0);
			dues[i] = col_i64(r, i, 1);
		}
		PQclear(r);
		if (n) {
			after_due = dues[n - 1];
			after_id = ids[n - 1];
		}
		rc = deliver_page(s, ids, n, &rec, due_changed, dues, cb, ctx, err);
	} while (!rc && n == PAGE_ROWS);
	session_rec_release(&rec);
	return rc < 0 ? -1 : 0;
}

static int pg_next_due(struct store *s, int64_t *out, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	PGresult *r = run(ps, P_NEXT_DUE, NULL, 1, err);

	if (!r)
		return -1;
	*out = PQntuples(r) ? col_i64(r, 0, 0) : 0;
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
		struct params p = { 0 };

		p_text(&p, user);
		p_text(&p, platform);
		p_i64(&p, after);
		p_i64(&p, PAGE_ROWS);
		if (id_page(ps, P_SESSIONS_OF_USER, &p, ids, &n, err)) {
			rc = -1;
			break;
		}
		if (n)
			after = ids[n - 1];
		rc = deliver_page(s, ids, n, &rec, not_seated, &u, cb, ctx, err);
	} while (!rc && n == PAGE_ROWS);
	session_rec_release(&rec);
	return rc < 0 ? -1 : 0;
}

static int pg_count_lobbies(struct store *s, const char *platform, int64_t *out,
			    struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;

	p_text(&p, platform);
	r = run(ps, P_COUNT_LOBBIES, &p, 1, err);
	if (!r)
		return -1;
	*out = col_i64(r, 0, 0);
	PQclear(r);
	return 0;
}

static int pg_stats(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
		    struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;
	int i;

	r = run(ps, P_STATS_OUTBOX, &p, 1, err);
	if (!r)
		return -1;
	out->outbox_pending = col_i64(r, 0, 0);
	out->outbox_oldest = col_i64(r, 0, 1);
	PQclear(r);
	r = run(ps, P_STATS_GAMES, &p, 1, err);
	if (!r)
		return -1;
	for (i = 0; i < PQntuples(r); i++)
		if (cb && cb(ctx, PQgetvalue(r, i, 0), (int)col_i64(r, i, 1), col_i64(r, i, 2)))
			break;
	PQclear(r);
	return 0;
}

static int pg_session_stamp(struct store *s, const char *platform, const char *room,
			    int64_t *id, int64_t *version, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;
	int found;

	*id = *version = 0;
	p_text(&p, platform);
	p_text(&p, room);
	r = run(ps, P_SESSION_STAMP, &p, 1, err);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found) {
		*id = col_i64(r, 0, 0);
		*version = col_i64(r, 0, 1);
	}
	PQclear(r);
	return found;
}

/* ----------------------------------------------------------------- writes */

/* The session's columns as $1..$16 ($14 the id, set by the caller). */
static void session_params(struct params *p, const struct session_rec *s, int64_t id)
{
	struct rows_writer w = writer(p);

	rows_put_session(&w, s, id);
}

static void seat_params(struct params *p, int64_t sid, int i, const struct seat_rec *seat)
{
	struct rows_writer w = writer(p);

	rows_put_seat(&w, sid, i, seat);
}

static void action_params(struct params *p, int64_t sid, const struct action_rec *a)
{
	struct rows_writer w = writer(p);

	rows_put_action(&w, sid, a);
}

/* What a failed statement of a commit means, into err; its return code. */
static int commit_error(const PGresult *r, int stmt_kind, const struct store_commit *c,
			size_t index, struct buf *err)
{
	const char *state = sqlstate(r);
	const char *cons = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : NULL;

	if (!strcmp(state, STATE_CONFLICT) || !strcmp(state, STATE_NO_SESSION) ||
	    !strcmp(state, STATE_FENCED)) {
		/* the schema's own words, the same as state/sqlite.c's */
		seterr(err, "store: %s", PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
		return !strcmp(state, STATE_CONFLICT) ? STORE_CONFLICT :
		       !strcmp(state, STATE_FENCED) ? STORE_FENCED : -1;
	}
	if (!strcmp(state, STATE_UNIQUE) && stmt_kind == P_ACTION_INSERT) {
		seterr(err, "store: session %lld already has action %lld",
		       (long long)(c->session ? c->session->id : 0),
		       (long long)c->actions[index].seq);
		return -1;
	}
	if (!strcmp(state, STATE_UNIQUE) && stmt_kind == P_OUTBOX_INSERT &&
	    cons && strstr(cons, "key")) {
		seterr(err, "store: outbox key %s is already used", c->outbox[index].key);
		return -1;
	}
	result_error(r, err, "commit");
	return -1;
}

/* What the statements of a pipelined commit were, to read their answers. */
struct sent {
	enum pg_stmt id;
	size_t index;		/* which action / outbox row */
};

/*
 * The answer of a commit was lost with the connection: did it happen?  A
 * commit with a session is stored iff the session is at its new version
 * (versions only grow by one per commit, and the id was known before
 * sending, even for a new session); the outbox ids are read back by key.
 * 0 stored (ids filled), -1 not stored or unknown (err says which).
 */
static int commit_resolve(struct pg_store *ps, struct store_commit *c, int64_t sid,
			  int64_t *ids, struct buf *err)
{
	struct buf why = BUF_INIT;
	struct params p = { 0 };
	PGresult *r;
	size_t i;
	int stored;

	buf_addstr(&why, err ? buf_str(err) : "");
	if (!c->session) {
		seterr(err, "%s; the connection was lost while committing, so whether the change"
		       " was stored is unknown", buf_str(&why));
		buf_release(&why);
		return -1;
	}
	p_i64(&p, sid);
	r = run(ps, P_VERSION_OF, &p, 1, err);
	if (!r) {
		seterr(err, "%s; the connection was lost while committing and PostgreSQL cannot"
		       " say whether the change was stored", buf_str(&why));
		buf_release(&why);
		return -1;
	}
	stored = PQntuples(r) == 1 && col_i64(r, 0, 0) == c->session->version;
	PQclear(r);
	if (!stored) {
		seterr(err, "%s (nothing stored)", buf_str(&why));
		buf_release(&why);
		return -1;
	}
	for (i = 0; i < c->noutbox; i++) {
		ids[i] = 0;
		if (!c->outbox[i].key[0])
			continue;
		p.n = 0;
		p_text(&p, c->outbox[i].key);
		r = run(ps, P_OUTBOX_BY_KEY, &p, 1, err);
		if (r && PQntuples(r) == 1)
			ids[i] = col_i64(r, 0, 0);
		PQclear(r);
	}
	buf_release(&why);
	buf_reset(err);
	return 0;
}

/* Sends a commit's statements into the pipeline, noting each in sent[]
 * (*nsent of them) to read its answer. */
static int commit_send(struct pg_store *ps, const struct store_commit *c, int64_t sid,
		       struct sent *sent, size_t *nsent, struct buf *err)
{
	const struct session_rec *sess = c->session;
	struct params p;
	size_t i;

#define SEND(stmt_id, idx) \
	do { \
		if (send_stmt(ps, (stmt_id), &p, err)) \
			return -1; \
		sent[*nsent].id = (stmt_id); \
		sent[(*nsent)++].index = (idx); \
	} while (0)
	if (c->fence_lease) {
		p.n = 0;
		p_text(&p, c->fence_lease);
		p_text(&p, c->fence_holder);
		SEND(P_FENCE, 0);
	}
	if (sess) {
		if (sess->id) {
			p.n = 0;
			p_i64(&p, sid);
			p_i64(&p, sess->version);
			SEND(P_EXPECT, 0);
			session_params(&p, sess, sid);
			SEND(P_SESSION_UPDATE, 0);
			p.n = 0;
			p_i64(&p, sid);
			p_i64(&p, sess->nseats);
			SEND(P_SEATS_TRIM, 0);
		} else {
			session_params(&p, sess, sid);
			SEND(P_SESSION_INSERT, 0);
		}
		for (i = 0; i < (size_t)sess->nseats; i++) {
			seat_params(&p, sid, (int)i, &sess->seats[i]);
			SEND(sess->id ? P_SEAT_UPSERT : P_SEAT_INSERT, i);
		}
	}
	if (c->truncate) {
		p.n = 0;
		p_i64(&p, sid);
		p_i64(&p, c->truncate_after);
		SEND(P_ACTIONS_TRUNCATE, 0);
	}
	for (i = 0; i < c->nactions; i++) {
		action_params(&p, sid, &c->actions[i]);
		SEND(P_ACTION_INSERT, i);
	}
	for (i = 0; i < c->noutbox; i++) {
		struct rows_writer w = writer(&p);

		rows_put_outbox(&w, &c->outbox[i], c->owner);
		SEND(P_OUTBOX_INSERT, i);
	}
	if (c->cursor_key && c->cursor_delete) {
		p.n = 0;
		p_text(&p, c->cursor_key);
		SEND(P_CURSOR_DELETE, 0);
	} else if (c->cursor_key) {
		p.n = 0;
		p_text(&p, c->cursor_key);
		p_text(&p, c->cursor_value);
		SEND(P_CURSOR_SET, 0);
	}
#undef SEND
	return 0;
}

/*
 * One pipeline, one Sync, one implicit transaction.  Order as in SQLite:
 * fence, session (checked and locked by tabula_expect) and seats,
 * truncation, actions, outbox, cursor.  The caller's records are touched
 * only once the Sync came back clean.
 */
static int pg_commit(struct store *s, struct store_commit *c, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct session_rec *sess = c->session;
	struct sent *sent = NULL;
	int64_t sid = 0, *ids = NULL;
	size_t nsent = 0, cap, i, k;
	uint64_t deadline;
	int rc = -1, lost = 0, failed = 0, synced = 0;
	PGresult *r;

	if (store_check_commit(c, err))
		return -1;
	if (ready(ps, err))
		return -1;
	if (sess && sess->id == 0) {
		/* the id first: seats, actions and a lost answer need it */
		r = run(ps, P_NEXT_ID, NULL, 1, err);
		if (!r)
			return -1;
		sid = col_i64(r, 0, 0);
		PQclear(r);
	} else if (sess) {
		sid = sess->id;
	}
	cap = 8 + (sess ? (size_t)sess->nseats : 0) + c->nactions + c->noutbox;
	sent = xcalloc(cap, sizeof(*sent));
	if (c->noutbox)
		ids = xcalloc(c->noutbox, sizeof(*ids));
	if (!PQenterPipelineMode(ps->conn)) {
		conn_error(ps, err, "commit");
		disconnect(ps);
		goto out;
	}
	if (commit_send(ps, c, sid, sent, &nsent, err))
		goto out;
	deadline = mono_ms() + (uint64_t)ps->timeout_ms;
	if (!PQpipelineSync(ps->conn)) {
		conn_error(ps, err, "commit");
		disconnect(ps);
		goto out;
	}
	if (flush_out(ps, deadline, err, "commit")) {
		lost = 1;
		goto out;
	}
	if (ps->lose_answer) {
		/* tests: the server has answered (so it committed), and the
		 * answer is lost with the connection */
		ps->lose_answer = 0;
		if (!wait_sock(ps, POLLIN, deadline, err, "commit"))
			disconnect(ps);
		seterr(err, "store: commit: the connection was lost (a test)");
		lost = 1;
		goto out;
	}
	for (k = 0; k < nsent && !lost; k++) {
		r = next_result(ps, deadline, &lost, err, "commit");
		if (lost)
			break;
		if (!failed && !ok_status(r)) {
			if (PQresultStatus(r) == PGRES_PIPELINE_ABORTED || !r) {
				result_error(r, err, "commit");
			} else {
				rc = commit_error(r, sent[k].id, c, sent[k].index, err);
			}
			failed = 1;
		} else if (!failed && sent[k].id == P_OUTBOX_INSERT && PQntuples(r) == 1) {
			ids[sent[k].index] = col_i64(r, 0, 0);
		}
		PQclear(r);
		r = next_result(ps, deadline, &lost, err, "commit");
		PQclear(r);
	}
	if (!lost) {
		r = next_result(ps, deadline, &lost, err, "commit");
		synced = !lost && r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
		PQclear(r);
	}
	if (lost || !synced || !PQexitPipelineMode(ps->conn)) {
		if (!lost && ps->conn) {
			conn_error(ps, err, "commit");
			disconnect(ps);
		}
		lost = 1;
		goto out;
	}
	if (failed)
		goto out;
	rc = 0;
out:
	if (ps->conn && PQpipelineStatus(ps->conn) != PQ_PIPELINE_OFF) {
		/* a half-read pipeline: the connection's state is not ours */
		disconnect(ps);
		if (!lost && !failed)
			lost = 1;
	}
	if (lost && !failed && nsent)
		rc = commit_resolve(ps, c, sid, ids, err);
	if (!rc) {
		if (sess)
			sess->id = sid;
		for (i = 0; i < c->noutbox; i++)
			c->outbox[i].id = ids[i];
	}
	free(sent);
	free(ids);
	return rc;
}

static int pg_cursor_set(struct store *s, const char *key, const char *value,
			 struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;

	if (!value) {
		seterr(err, "store: cursor %s without a value", key);
		return -1;
	}
	p_text(&p, key);
	p_text(&p, value);
	r = run(ps, P_CURSOR_SET, &p, 1, err);
	PQclear(r);
	return r ? 0 : -1;
}

static int pg_cursor_delete(struct store *s, const char *key, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;

	p_text(&p, key);
	r = run(ps, P_CURSOR_DELETE, &p, 1, err);
	PQclear(r);
	return r ? 0 : -1;
}

static int pg_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
			     void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;
	char **rows;
	int n, i;

	if (!prefix || !*prefix) {
		seterr(err, "store: listing cursors needs a prefix");
		return -1;
	}
	p_text(&p, prefix);
	p_i64(&p, STORE_PREFIX_MAX + 1);
	r = run(ps, P_CURSORS_PREFIX, &p, 1, err);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n > STORE_PREFIX_MAX) {
		PQclear(r);
		seterr(err, "store: more than %d cursors start with %s", STORE_PREFIX_MAX, prefix);
		return -1;
	}
	/* copied out first: cb may use the connection */
	rows = xcalloc((size_t)n * 2 + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[2 * i] = xstrdup(PQgetvalue(r, i, 0));
		rows[2 * i + 1] = xstrdup(PQgetvalue(r, i, 1));
	}
	PQclear(r);
	for (i = 0; i < n; i++)
		if (cb(ctx, rows[2 * i], rows[2 * i + 1]))
			break;
	for (i = 0; i < 2 * n; i++) {
		explicit_bzero(rows[i], strlen(rows[i]));
		free(rows[i]);
	}
	free(rows);
	return 0;
}

/* ---------------------------------------------------- several processes */

static int pg_lease(struct store *s, const char *name, const char *holder, int64_t ttl_ms,
		    struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct params p = { 0 };
	PGresult *r;
	int held;

	if (store_check_name(name, "a lease name", err) ||
	    store_check_name(holder, "a lease holder", err))
		return -1;
	if (ttl_ms < 0) {
		seterr(err, "store: a lease cannot last %lld ms", (long long)ttl_ms);
		return -1;
	}
	p_text(&p, name);
	p_text(&p, holder);
	if (!ttl_ms) {
		r = run(ps, P_LEASE_DROP, &p, 1, err);
		PQclear(r);
		return r ? 0 : -1;
	}
	p_i64(&p, ttl_ms);
	r = run(ps, P_LEASE_TAKE, &p, 1, err);
	if (!r)
		return -1;
	held = PQntuples(r) == 1;
	PQclear(r);
	return held;
}

static int pg_sessions_claim_due(struct store *s, int64_t until, const char *owner,
				 const char *const *platforms, store_session_cb cb, void *ctx,
				 struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct session_rec rec;
	struct buf arr = BUF_INIT;
	int64_t ids[PAGE_ROWS], dues[PAGE_ROWS], after_due = 0, after_id = 0;
	int n, i, rc = 0;

	if (store_check_name(owner, "a claim owner", err) ||
	    platform_array(platforms, &arr, err)) {
		buf_release(&arr);
		return -1;
	}
	session_rec_init(&rec);
	do {
		struct params p = { 0 };
		PGresult *r;

		p_i64(&p, until);
		p_i64(&p, after_due);
		p_i64(&p, after_id);
		p_text(&p, owner);
		p_text(&p, buf_str(&arr));
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_CLAIM_DUE, &p, 1, err);
		if (!r) {
			rc = -1;
			break;
		}
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			ids[i] = col_i64(r, i, 0);
			dues[i] = col_i64(r, i, 1);
		}
		PQclear(r);
		if (n) {
			after_due = dues[n - 1];
			after_id = ids[n - 1];
		}
		rc = deliver_page(s, ids, n, &rec, due_changed, dues, cb, ctx, err);
	} while (!rc && n == PAGE_ROWS);
	session_rec_release(&rec);
	buf_release(&arr);
	return rc < 0 ? -1 : 0;
}

static int cmp_outbox_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int pg_outbox_claim(struct store *s, const char *owner, const char *const *platforms,
			   store_outbox_cb cb, void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct buf arr = BUF_INIT;
	int64_t after = 0;
	int n, rc = 0;

	if (store_check_name(owner, "a claim owner", err) ||
	    platform_array(platforms, &arr, err)) {
		buf_release(&arr);
		return -1;
	}
	do {
		struct params p = { 0 };
		struct outbox_rec *page;
		PGresult *r;
		int i;

		p_i64(&p, after);
		p_text(&p, owner);
		p_text(&p, buf_str(&arr));
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_CLAIM_OUTBOX, &p, 1, err);
		if (!r) {
			rc = -1;
			break;
		}
		/* RETURNING comes in no particular order: oldest first here */
		n = PQntuples(r);
		page = xcalloc((size_t)n + 1, sizeof(*page));
		for (i = 0; i < n && rc >= 0; i++)
			if (read_outbox_row(r, i, &page[i], err))
				rc = -1;
		PQclear(r);
		if (rc >= 0) {
			qsort(page, (size_t)n, sizeof(*page), cmp_outbox_id);
			for (i = 0; i < n && !rc; i++) {
				after = page[i].id;
				rc = cb(ctx, &page[i]) ? 1 : 0;
			}
		}
		for (i = 0; i < n; i++)
			outbox_rec_release(&page[i]);
		free(page);
	} while (!rc && n == PAGE_ROWS);
	buf_release(&arr);
	return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------- dump and import */

static int pg_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct store_item it;
	struct session_rec rec;
	struct action_rec a;
	struct outbox_rec o;
	struct buf after = BUF_INIT;
	int64_t ids[PAGE_ROWS], last = 0, last2 = 0;
	int n, i, ret = -1;
	PGresult *r = NULL;

	session_rec_init(&rec);
	memset(&o, 0, sizeof(o));
	memset(&it, 0, sizeof(it));
	it.kind = STORE_ITEM_SESSION;
	do {
		struct params p = { 0 };

		p_i64(&p, last);
		p_i64(&p, PAGE_ROWS);
		if (id_page(ps, P_DUMP_SESSIONS, &p, ids, &n, err))
			goto fail;
		for (i = 0; i < n; i++) {
			last = ids[i];
			if (pg_session_get(s, ids[i], &rec, err) != 1)
				goto fail;
			it.session = &rec;
			if (cb(ctx, &it))
				goto fail;
		}
	} while (n == PAGE_ROWS);
	it.kind = STORE_ITEM_ACTION;
	last = 0;
	do {
		struct params p = { 0 };

		p_i64(&p, last);
		p_i64(&p, last2);
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_DUMP_ACTIONS, &p, 1, err);
		if (!r)
			goto fail;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			struct pg_row x = { r, i };
			struct rows_reader rr = READER(x);

			if (rows_action(&rr, 1, &a, err))
				goto fail;
			a.session = last = col_i64(r, i, 0);
			last2 = a.seq;
			it.action = &a;
			if (cb(ctx, &it))
				goto fail;
		}
		PQclear(r);
		r = NULL;
	} while (n == PAGE_ROWS);
	it.kind = STORE_ITEM_OUTBOX;
	last = 0;
	do {
		struct params p = { 0 };

		p_i64(&p, last);
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_DUMP_OUTBOX, &p, 1, err);
		if (!r)
			goto fail;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			if (read_outbox_row(r, i, &o, err))
				goto fail;
			last = o.id;
			it.outbox = &o;
			it.sent_at = PQgetisnull(r, i, 7) ? 0 : col_i64(r, i, 7);
			if (cb(ctx, &it))
				goto fail;
			outbox_rec_release(&o);
		}
		PQclear(r);
		r = NULL;
	} while (n == PAGE_ROWS);
	it.kind = STORE_ITEM_CURSOR;
	buf_addstr(&after, "");
	do {
		struct params p = { 0 };

		p_text(&p, buf_str(&after));
		p_i64(&p, PAGE_ROWS);
		r = run(ps, P_DUMP_CURSORS, &p, 1, err);
		if (!r)
			goto fail;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			it.key = PQgetvalue(r, i, 0);
			it.value = PQgetvalue(r, i, 1);
			if (cb(ctx, &it))
				goto fail;
		}
		if (n) {
			buf_reset(&after);
			buf_addstr(&after, PQgetvalue(r, n - 1, 0));
		}
		PQclear(r);
		r = NULL;
	} while (n == PAGE_ROWS);
	ret = 0;
fail:
	PQclear(r);
	outbox_rec_release(&o);
	session_rec_release(&rec);
	buf_release(&after);
	return ret;
}

struct import_ctx {
	struct pg_store *ps;
	struct buf *err;
	long n;
};

/* Runs one statement of the import's transaction; 0 or 1 (stop). */
static int import_run(struct pg_store *ps, enum pg_stmt id, const struct params *p,
		      struct buf *err)
{
	PGresult *r = run(ps, id, p, 0, err);

	PQclear(r);
	return r ? 0 : 1;
}

static int import_item(void *ctx, const struct store_item *it)
{
	struct import_ctx *x = ctx;
	struct pg_store *ps = x->ps;
	struct store_commit c = { 0 };
	struct params p = { 0 };
	struct rows_writer w;
	int i;

	x->n++;
	switch (it->kind) {
	case STORE_ITEM_SESSION:
		c.session = (struct session_rec *)it->session;
		if (store_check_commit(&c, x->err))
			return 1;
		session_params(&p, it->session, it->session->id);
		if (import_run(ps, P_SESSION_INSERT, &p, x->err))
			return 1;
		for (i = 0; i < it->session->nseats; i++) {
			seat_params(&p, it->session->id, i, &it->session->seats[i]);
			if (import_run(ps, P_SEAT_INSERT, &p, x->err))
				return 1;
		}
		return 0;
	case STORE_ITEM_ACTION:
		action_params(&p, it->action->session, it->action);
		return import_run(ps, P_ACTION_INSERT, &p, x->err);
	case STORE_ITEM_OUTBOX:
		w = writer(&p);
		rows_put_outbox_copy(&w, it->outbox, it->sent_at);
		return import_run(ps, P_IMPORT_OUTBOX, &p, x->err);
	case STORE_ITEM_CURSOR:
		p_text(&p, it->key);
		p_text(&p, it->value);
		return import_run(ps, P_CURSOR_SET, &p, x->err);
	}
	seterr(x->err, "store: unknown record kind %d", (int)it->kind);
	return 1;
}

/* One explicit transaction on this connection (no statement of it is run
 * twice: a lost connection fails the copy, which then stored nothing). */
static int pg_import(struct store *s, struct store *from, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct import_ctx x = { ps, err, 0 };
	PGresult *r;
	long long records;

	if (ready(ps, err) || exec_simple(ps, "BEGIN", NULL, err))
		return -1;
	ps->pinned = 1;
	r = run(ps, P_COUNT_RECORDS, NULL, 0, err);
	if (!r)
		goto fail;
	records = (long long)col_i64(r, 0, 0);
	PQclear(r);
	if (records) {
		seterr(err, "store: the target store is not empty (it holds %lld sessions, outbox messages"
		       " and cursors); copy into an empty one", records);
		goto fail;
	}
	buf_reset(err);
	if (store_dump(from, import_item, &x, err)) {
		if (!err || !err->len)
			seterr(err, "store: copying stopped after %ld records", x.n);
		goto fail;
	}
	r = run(ps, P_SETVAL, NULL, 0, err);
	if (!r)
		goto fail;
	PQclear(r);
	if (exec_simple(ps, "COMMIT", NULL, err))
		goto fail;
	ps->pinned = 0;
	return 0;
fail:
	ps->pinned = 0;
	if (ps->conn && PQtransactionStatus(ps->conn) != PQTRANS_IDLE) {
		struct buf ignore = BUF_INIT;

		if (exec_simple(ps, "ROLLBACK", NULL, &ignore))
			disconnect(ps);
		buf_release(&ignore);
	}
	return -1;
}

/* ------------------------------------------------------------ open, close */

static void pg_close(struct store *s)
{
	struct pg_store *ps = pg_downcast(s);

	disconnect(ps);
	if (ps->uri) {
		/* it may hold a password */
		memset(ps->uri, 0, strlen(ps->uri));
		free(ps->uri);
	}
	free(ps);
}

/* One integer of simple SQL (no parameters). */
static int simple_int(struct pg_store *ps, const char *sql, long long *out, struct buf *err)
{
	PGresult *r = NULL;

	if (exec_simple(ps, sql, &r, err))
		return -1;
	if (!r || PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
		seterr(err, "store: %s: no answer", sql);
		PQclear(r);
		return -1;
	}
	*out = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

static void rollback_quietly(struct pg_store *ps)
{
	struct buf ignore = BUF_INIT;

	if (ps->conn && PQtransactionStatus(ps->conn) != PQTRANS_IDLE &&
	    exec_simple(ps, "ROLLBACK", NULL, &ignore))
		disconnect(ps);
	buf_release(&ignore);
}

/* Serialises migrations of one schema across processes. */
#define LOCK_SQL "SELECT pg_advisory_xact_lock(7628, hashtext(current_schema()))"

/*
 * The schema must be tabula's.  tabula_meta's application_id says so; an
 * empty schema is new: stamped (version 0).  A schema holding other
 * tables, or a tabula_meta of another application, is refused untouched:
 * migrating it would write tabula's tables into someone else's data.
 */
static int claim(struct pg_store *ps, struct buf *err)
{
	PGresult *r = NULL;
	long long tables, has_meta;

	if (exec_simple(ps, "BEGIN", NULL, err))
		return -1;
	if (exec_simple(ps, "SELECT current_schema() IS NOT NULL", &r, err))
		goto fail;
	if (strcmp(PQgetvalue(r, 0, 0), "t")) {
		seterr(err, "store: the connection's search_path names no existing schema to"
		       " hold tabula's tables (create one, or set search_path)");
		goto fail;
	}
	PQclear(r);
	r = NULL;
	if (exec_simple(ps, LOCK_SQL, NULL, err) ||
	    simple_int(ps, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
		       &tables, err) ||
	    simple_int(ps, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
		       " AND tablename = 'tabula_meta'", &has_meta, err))
		goto fail;
	if (has_meta) {
		if (exec_simple(ps, "SELECT value FROM tabula_meta WHERE key = 'application_id'",
				&r, err))
			goto fail;
		if (PQntuples(r) != 1 || strcmp(PQgetvalue(r, 0, 0), APPLICATION_ID)) {
			seterr(err, "store: this schema's tabula_meta is not tabula's (application_id"
			       " %s; tabula's is %s, \"tabu\"); give tabula a schema of its own",
			       PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "missing", APPLICATION_ID);
			goto fail;
		}
		PQclear(r);
		r = NULL;
	} else if (tables) {
		seterr(err, "store: the schema holds %lld tables and none is tabula's (no"
		       " tabula_meta); give tabula a schema of its own", tables);
		goto fail;
	} else if (exec_simple(ps, "CREATE TABLE tabula_meta (key TEXT PRIMARY KEY,"
			       " value TEXT NOT NULL);"
			       " INSERT INTO tabula_meta VALUES ('application_id', '" APPLICATION_ID
			       "'), ('schema_version', '0')", NULL, err)) {
		goto fail;
	}
	if (exec_simple(ps, "COMMIT", NULL, err))
		goto fail;
	return 0;
fail:
	PQclear(r);
	rollback_quietly(ps);
	return -1;
}

/* The migration loop's calls (state/schema.h); ctx is the pg_store. */
static int mig_begin(void *ctx, struct buf *err)
{
	struct pg_store *ps = ctx;

	if (exec_simple(ps, "BEGIN", NULL, err))
		return -1;
	if (exec_simple(ps, LOCK_SQL, NULL, err)) {
		rollback_quietly(ps);
		return -1;
	}
	return 0;
}

static int mig_version(void *ctx, long long *v, struct buf *err)
{
	return simple_int(ctx, "SELECT value::bigint FROM tabula_meta"
			  " WHERE key = 'schema_version'", v, err);
}

static int mig_exec(void *ctx, const char *sql, struct buf *err)
{
	return exec_simple(ctx, sql, NULL, err);
}

static int mig_set_version(void *ctx, long long v, struct buf *err)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "UPDATE tabula_meta SET value = '%lld'"
		 " WHERE key = 'schema_version'", v);
	return exec_simple(ctx, sql, NULL, err);
}

static int mig_commit(void *ctx, struct buf *err)
{
	return exec_simple(ctx, "COMMIT", NULL, err);
}

static void mig_rollback(void *ctx)
{
	rollback_quietly(ctx);
}

static void mig_too_new(void *ctx, long long v, struct buf *err)
{
	seterr(err, "store: the PostgreSQL schema is at version %lld, newer than this program"
	       " knows (%d); run a newer tabula or restore a backup", v, schema_version());
}

static const struct schema_driver pg_migrations = {
	.dialect = SCHEMA_POSTGRES,
	.begin = mig_begin,
	.version = mig_version,
	.exec = mig_exec,
	.set_version = mig_set_version,
	.commit = mig_commit,
	.rollback = mig_rollback,
	.too_new = mig_too_new,
};

/* TABULA_DB_TIMEOUT: milliseconds, TIMEOUT_MIN_MS..TIMEOUT_MAX_MS. */
static int timeout_from_env(int *out, struct buf *err)
{
	const char *v = getenv("TABULA_DB_TIMEOUT");
	char *end;
	long n;

	*out = TIMEOUT_DEFAULT_MS;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < TIMEOUT_MIN_MS || n > TIMEOUT_MAX_MS) {
		seterr(err, "store: TABULA_DB_TIMEOUT must be %d to %d (milliseconds)",
		       TIMEOUT_MIN_MS, TIMEOUT_MAX_MS);
		return -1;
	}
	*out = (int)n;
	return 0;
}

struct store *store_pg_open(const char *uri, struct buf *err)
{
	struct pg_store *ps;
	int timeout;

	if (!store_is_postgres(uri)) {
		seterr(err, "store: not a postgresql:// URI");
		return NULL;
	}
	if (timeout_from_env(&timeout, err))
		return NULL;
	ps = xcalloc(1, sizeof(*ps));
	ps->base.ops = &pg_ops;
	ps->uri = xstrdup(uri);
	ps->timeout_ms = timeout;
	if (connect_now(ps, err) || claim(ps, err) ||
	    schema_migrate(&pg_migrations, ps, err) || prepare_all(ps, err))
		goto fail;
	return &ps->base;
fail:
	pg_close(&ps->base);
	return NULL;
}

void store_pg_test_lose_answer(struct store *s)
{
	pg_downcast(s)->lose_answer = 1;
}

unsigned store_pg_connections(struct store *s)
{
	return pg_downcast(s)->generation;
}

uint64_t store_pg_round_trips(struct store *s)
{
	return pg_downcast(s)->round_trips;
}

static const struct store_ops pg_ops = {
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
};
