/*
 * postgres_conn.c: the PostgreSQL store's connection: connecting and
 * preparing the statements, every wait a poll() bounded by
 * TABULA_DB_TIMEOUT, a lost connection dropped and made again on the next
 * call (after a pause), and one prepared statement run with a retry where
 * running it twice does no harm.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "state/postgres_int.h"
#include "state/schema.h"
#include "state/store_int.h"

/* ------------------------------------------------------- the connection */

uint64_t pg_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void pg_disconnect(struct pg_store *ps)
{
	if (ps->conn)
		PQfinish(ps->conn);
	ps->conn = NULL;
}

/* The connection's last error, one line, without libpq's trailing newline. */
/* libpq's own message, which may quote the URI or a part of it: redacted
 * (store_redact) before anyone can log or print it. */
void pg_conn_error(struct pg_store *ps, struct buf *err, const char *what)
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
int pg_wait_sock(struct pg_store *ps, short ev, uint64_t deadline, struct buf *err,
		 const char *what)
{
	struct pollfd p;
	int rc;

	for (;;) {
		uint64_t now = pg_mono_ms();

		if (now >= deadline) {
			seterr(err, "store: %s: PostgreSQL did not answer within %d ms", what,
			       ps->timeout_ms);
			pg_disconnect(ps);
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
			pg_disconnect(ps);
			return -1;
		}
	}
}

/* Sends what libpq has buffered.  0, or -1 with the connection dropped. */
int pg_flush_out(struct pg_store *ps, uint64_t deadline, struct buf *err,
		 const char *what)
{
	int rc;

	/* every caller waits for the answer to what this sends: one round
	 * trip (a commit's whole pipeline included) */
	ps->round_trips++;
	while ((rc = PQflush(ps->conn)) == 1) {
		if (pg_wait_sock(ps, POLLOUT | POLLIN, deadline, err, what))
			return -1;
		/* the server may be waiting for us to read before it reads */
		if (!PQconsumeInput(ps->conn)) {
			pg_conn_error(ps, err, what);
			pg_disconnect(ps);
			return -1;
		}
	}
	if (rc < 0) {
		pg_conn_error(ps, err, what);
		pg_disconnect(ps);
		return -1;
	}
	return 0;
}

/*
 * The next result (NULL at the end of a query's results), waiting at most
 * until the deadline.  *lost is set when the connection failed (the
 * caller can no longer know what the server did).
 */
PGresult *pg_next_result(struct pg_store *ps, uint64_t deadline, int *lost,
			 struct buf *err, const char *what)
{
	while (PQisBusy(ps->conn)) {
		if (pg_wait_sock(ps, POLLIN, deadline, err, what) || !PQconsumeInput(ps->conn)) {
			if (ps->conn) {
				pg_conn_error(ps, err, what);
				pg_disconnect(ps);
			}
			*lost = 1;
			return NULL;
		}
	}
	return PQgetResult(ps->conn);
}

/* The SQLSTATE of a failed result, or "". */
const char *pg_sqlstate(const PGresult *r)
{
	const char *s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return s ? s : "";
}

/* A failed result's primary message into err. */
void pg_result_error(const PGresult *r, struct buf *err, const char *what)
{
	const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	seterr(err, "store: %s: %s", what, m ? m : "PostgreSQL failed");
}

int pg_ok_status(const PGresult *r)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

/* Runs simple SQL (no parameters, several statements allowed) to its end. */
int pg_exec_simple(struct pg_store *ps, const char *sql, PGresult **last, struct buf *err)
{
	uint64_t deadline = pg_mono_ms() + (uint64_t)ps->timeout_ms;
	PGresult *r, *keep = NULL;
	int lost = 0, ok = 1;

	if (!PQsendQuery(ps->conn, sql)) {
		pg_conn_error(ps, err, "sending a query");
		pg_disconnect(ps);
		return -1;
	}
	if (pg_flush_out(ps, deadline, err, "sending a query"))
		return -1;
	while ((r = pg_next_result(ps, deadline, &lost, err, "running a query"))) {
		if (ok && !pg_ok_status(r)) {
			pg_result_error(r, err, "running a query");
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

int pg_prepare_all(struct pg_store *ps, struct buf *err)
{
	uint64_t deadline = pg_mono_ms() + (uint64_t)ps->timeout_ms;
	char name[16];
	PGresult *r;
	int i, lost = 0, ok = 1;

	if (!PQenterPipelineMode(ps->conn)) {
		pg_conn_error(ps, err, "preparing statements");
		return -1;
	}
	for (i = 0; i < P_COUNT; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		if (!PQsendPrepare(ps->conn, name, pg_stmt_text(i), 0, NULL)) {
			pg_conn_error(ps, err, "preparing statements");
			pg_disconnect(ps);
			return -1;
		}
	}
	if (!PQpipelineSync(ps->conn) || pg_flush_out(ps, deadline, err, "preparing statements")) {
		if (ps->conn) {
			pg_conn_error(ps, err, "preparing statements");
			pg_disconnect(ps);
		}
		return -1;
	}
	for (i = 0; i <= P_COUNT; i++) {
		r = pg_next_result(ps, deadline, &lost, err, "preparing statements");
		if (lost)
			return -1;
		if (i == P_COUNT) {
			ok = ok && r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
			PQclear(r);
			break;
		}
		if (ok && !pg_ok_status(r)) {
			pg_result_error(r, err, pg_stmt_text(i));
			ok = 0;
		}
		PQclear(r);
		r = pg_next_result(ps, deadline, &lost, err, "preparing statements");
		if (lost)
			return -1;
		PQclear(r);	/* the NULL that ends each query's results */
	}
	if (!PQexitPipelineMode(ps->conn)) {
		pg_conn_error(ps, err, "preparing statements");
		pg_disconnect(ps);
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
int pg_connect_now(struct pg_store *ps, struct buf *err)
{
	static const char *const keys[] = {
		"application_name", "connect_timeout", "keepalives", "keepalives_idle",
		"keepalives_interval", "keepalives_count", "dbname", NULL
	};
	const char *values[8];
	char ctimeout[16], sql[512];
	uint64_t deadline = pg_mono_ms() + (uint64_t)ps->timeout_ms;
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
		pg_conn_error(ps, err, "cannot connect");
		goto fail;
	}
	while (st != PGRES_POLLING_OK) {
		if (st == PGRES_POLLING_FAILED) {
			pg_conn_error(ps, err, "cannot connect");
			goto fail;
		}
		if (pg_wait_sock(ps, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline, err,
				 "connecting"))
			goto fail;
		st = PQconnectPoll(ps->conn);
	}
	/* the server's notices are for people at a psql prompt */
	PQsetNoticeProcessor(ps->conn, no_notice, NULL);
	if (PQsetnonblocking(ps->conn, 1)) {
		pg_conn_error(ps, err, "connecting");
		goto fail;
	}
	/* the server gives up what the client gave up on */
	snprintf(sql, sizeof(sql),
		 "SET client_encoding = 'UTF8'; SET statement_timeout = %d;"
		 " SET lock_timeout = %d; SET idle_in_transaction_session_timeout = 60000;"
		 " SET client_connection_check_interval = 1000; SHOW server_encoding",
		 ps->timeout_ms, ps->timeout_ms);
	if (pg_exec_simple(ps, sql, &r, err))
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
	pg_disconnect(ps);
	return -1;
}

/*
 * Makes sure there is a connection with every statement prepared: after a
 * failure (a restarted server, a cut network) the next call reconnects,
 * but not more often than every RECONNECT_PAUSE_MS, so a dead server costs
 * a command a fast error, not a timeout each.
 */
int pg_ready(struct pg_store *ps, struct buf *err)
{
	if (ps->conn && PQstatus(ps->conn) == CONNECTION_OK)
		return 0;
	pg_disconnect(ps);
	if (ps->pinned) {
		/* a new connection would go on outside the transaction */
		seterr(err, "store: the connection to PostgreSQL was lost in a transaction");
		return -1;
	}
	if (pg_mono_ms() < ps->pause_until) {
		seterr(err, "store: PostgreSQL is unreachable (reconnecting)");
		return -1;
	}
	if (pg_connect_now(ps, err) || pg_prepare_all(ps, err)) {
		pg_disconnect(ps);
		ps->pause_until = pg_mono_ms() + RECONNECT_PAUSE_MS;
		return -1;
	}
	return 0;
}

void pg_param_text(struct pg_params *p, const char *s)
{
	assert(p->n < MAX_PARAMS);
	p->v[p->n++] = s;
}

void pg_param_i64(struct pg_params *p, int64_t x)
{
	assert(p->n < MAX_PARAMS);
	snprintf(p->num[p->n], sizeof(p->num[0]), "%" PRId64, x);
	p->v[p->n] = p->num[p->n];
	p->n++;
}

void pg_param_f64(struct pg_params *p, double x)
{
	assert(p->n < MAX_PARAMS);
	snprintf(p->num[p->n], sizeof(p->num[0]), "%.17g", x);
	p->v[p->n] = p->num[p->n];
	p->n++;
}

int pg_send(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p,
	    struct buf *err)
{
	char name[16];

	snprintf(name, sizeof(name), "t%d", (int)id);
	if (!PQsendQueryPrepared(ps->conn, name, p ? p->n : 0, p ? p->v : NULL, NULL, NULL, 0)) {
		pg_conn_error(ps, err, "sending a statement");
		pg_disconnect(ps);
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
PGresult *pg_run(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p, int retry,
		 struct buf *err)
{
	const char *what = "running a statement";
	uint64_t deadline;
	PGresult *r, *extra;
	int lost, attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (pg_ready(ps, err))
			return NULL;
		deadline = pg_mono_ms() + (uint64_t)ps->timeout_ms;
		lost = 0;
		if (pg_send(ps, id, p, err) || pg_flush_out(ps, deadline, err, what)) {
			if (retry)
				continue;
			return NULL;
		}
		r = pg_next_result(ps, deadline, &lost, err, what);
		if (!lost && r) {
			extra = pg_next_result(ps, deadline, &lost, err, what);
			PQclear(extra);
		}
		if (lost) {
			PQclear(r);
			if (retry)
				continue;
			return NULL;
		}
		if (!pg_ok_status(r)) {
			if (PQstatus(ps->conn) != CONNECTION_OK) {
				pg_conn_error(ps, err, what);
				pg_disconnect(ps);
				PQclear(r);
				if (retry)
					continue;
				return NULL;
			}
			pg_result_error(r, err, what);
			PQclear(r);
			return NULL;
		}
		return r;
	}
	return NULL;
}
