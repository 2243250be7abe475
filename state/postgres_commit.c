/*
 * postgres_commit.c: the PostgreSQL store's writes: a commit's statements
 * in one pipeline ending with one Sync (one implicit transaction, one
 * round trip), what a refused statement means, the resolution of a commit
 * whose answer was lost, and the cursor writes.
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

/* ----------------------------------------------------------------- writes */

/* The session's columns as $1..$17 ($14 the id, set by the caller). */
void pg_session_params(struct pg_params *p, const struct session_rec *s, int64_t id)
{
	struct rows_writer w = pg_writer(p);

	rows_put_session(&w, s, id);
}

void pg_seat_params(struct pg_params *p, int64_t sid, int i, const struct seat_rec *seat)
{
	struct rows_writer w = pg_writer(p);

	rows_put_seat(&w, sid, i, seat);
}

void pg_action_params(struct pg_params *p, int64_t sid, const struct action_rec *a)
{
	struct rows_writer w = pg_writer(p);

	rows_put_action(&w, sid, a);
}

/* What a failed statement of a commit means, into err; its return code. */
static int commit_error(const PGresult *r, int stmt_kind, const struct store_commit *c,
			size_t index, struct buf *err)
{
	const char *state = pg_sqlstate(r);
	const char *cons = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : NULL;

	if (!strcmp(state, STATE_CONFLICT) || !strcmp(state, STATE_NO_SESSION) ||
	    !strcmp(state, STATE_FENCED)) {
		/* the schema's own words, the same as state/sqlite.c's */
		seterr(err, "store: %s", PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
		return !strcmp(state, STATE_CONFLICT) ? STORE_CONFLICT :
		       !strcmp(state, STATE_FENCED) ? STORE_FENCED : -1;
	}
	if (!strcmp(state, STATE_UNIQUE) && stmt_kind == P_RESULT_INSERT) {
		seterr(err, "store: session %lld already has a result (a game is rated once):"
		       " nothing stored", (long long)(c->result->result->session ?
						      c->result->result->session :
						      c->session ? c->session->id : 0));
		return STORE_CONFLICT;
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
	pg_result_error(r, err, "commit");
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
	struct pg_params p = { 0 };
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
	pg_param_i64(&p, sid);
	r = pg_run(ps, P_VERSION_OF, &p, 1, err);
	if (!r) {
		seterr(err, "%s; the connection was lost while committing and PostgreSQL cannot"
		       " say whether the change was stored", buf_str(&why));
		buf_release(&why);
		return -1;
	}
	stored = PQntuples(r) == 1 && pg_col_i64(r, 0, 0) == c->session->version;
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
		pg_param_text(&p, c->outbox[i].key);
		r = pg_run(ps, P_OUTBOX_BY_KEY, &p, 1, err);
		if (r && PQntuples(r) == 1)
			ids[i] = pg_col_i64(r, 0, 0);
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
	struct pg_params p;
	size_t i;

#define SEND(stmt_id, idx) \
	do { \
		if (pg_send(ps, (stmt_id), &p, err)) \
			return -1; \
		sent[*nsent].id = (stmt_id); \
		sent[(*nsent)++].index = (idx); \
	} while (0)
	if (c->fence_lease) {
		p.n = 0;
		pg_param_text(&p, c->fence_lease);
		pg_param_text(&p, c->fence_holder);
		SEND(P_FENCE, 0);
	}
	if (sess) {
		if (sess->id) {
			p.n = 0;
			pg_param_i64(&p, sid);
			pg_param_i64(&p, sess->version);
			SEND(P_EXPECT, 0);
			pg_session_params(&p, sess, sid);
			SEND(P_SESSION_UPDATE, 0);
			p.n = 0;
			pg_param_i64(&p, sid);
			pg_param_i64(&p, sess->nseats);
			SEND(P_SEATS_TRIM, 0);
		} else {
			pg_session_params(&p, sess, sid);
			SEND(P_SESSION_INSERT, 0);
		}
		for (i = 0; i < (size_t)sess->nseats; i++) {
			pg_seat_params(&p, sid, (int)i, &sess->seats[i]);
			SEND(sess->id ? P_SEAT_UPSERT : P_SEAT_INSERT, i);
		}
	}
	if (c->truncate) {
		p.n = 0;
		pg_param_i64(&p, sid);
		pg_param_i64(&p, c->truncate_after);
		SEND(P_ACTIONS_TRUNCATE, 0);
	}
	for (i = 0; i < c->nactions; i++) {
		pg_action_params(&p, sid, &c->actions[i]);
		SEND(P_ACTION_INSERT, i);
	}
	for (i = 0; i < c->noutbox; i++) {
		struct rows_writer w = pg_writer(&p);

		rows_put_outbox(&w, &c->outbox[i], c->owner);
		SEND(P_OUTBOX_INSERT, i);
	}
	if (c->cursor_key && c->cursor_delete) {
		p.n = 0;
		pg_param_text(&p, c->cursor_key);
		SEND(P_CURSOR_DELETE, 0);
	} else if (c->cursor_key) {
		p.n = 0;
		pg_param_text(&p, c->cursor_key);
		pg_param_text(&p, c->cursor_value);
		SEND(P_CURSOR_SET, 0);
	}
	if (c->result) {
		const struct store_result *sr = c->result;
		int64_t rsid = sr->result->session ? sr->result->session : sid;
		struct rows_writer w = pg_writer(&p);

		rows_put_result(&w, sr->result, rsid);
		SEND(P_RESULT_INSERT, 0);
		for (i = 0; i < (size_t)sr->result->nseats; i++) {
			w = pg_writer(&p);
			rows_put_result_seat(&w, rsid, &sr->result->seats[i]);
			SEND(P_RESULT_SEAT_INSERT, i);
		}
		/* tabula_rating_put raises TB001 for a row that moved */
		for (i = 0; i < sr->nratings; i++) {
			w = pg_writer(&p);
			rows_put_rating(&w, &sr->ratings[i]);
			SEND(P_RATING_PUT, i);
		}
		for (i = 0; i < sr->npoints; i++) {
			w = pg_writer(&p);
			rows_put_point(&w, &sr->points[i],
				       sr->points[i].session ? sr->points[i].session : rsid);
			SEND(P_POINT_INSERT, i);
		}
	}
#undef SEND
	return 0;
}

/*
 * One pipeline, one Sync, one implicit transaction.  Order as in SQLite:
 * fence, session (checked and locked by tabula_expect) and seats,
 * truncation, actions, outbox, cursor, result (its ratings checked by
 * tabula_rating_put).  The caller's records are touched
 * only once the Sync came back clean.
 */
int pg_commit(struct store *s, struct store_commit *c, struct buf *err)
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
	if (pg_ready(ps, err))
		return -1;
	if (sess && sess->id == 0) {
		/* the id first: seats, actions and a lost answer need it */
		r = pg_run(ps, P_NEXT_ID, NULL, 1, err);
		if (!r)
			return -1;
		sid = pg_col_i64(r, 0, 0);
		PQclear(r);
	} else if (sess) {
		sid = sess->id;
	}
	cap = 8 + (sess ? (size_t)sess->nseats : 0) + c->nactions + c->noutbox;
	if (c->result)
		cap += 1 + (size_t)c->result->result->nseats + c->result->nratings +
		       c->result->npoints;
	sent = xcalloc(cap, sizeof(*sent));
	if (c->noutbox)
		ids = xcalloc(c->noutbox, sizeof(*ids));
	if (!PQenterPipelineMode(ps->conn)) {
		pg_conn_error(ps, err, "commit");
		pg_disconnect(ps);
		goto out;
	}
	if (commit_send(ps, c, sid, sent, &nsent, err))
		goto out;
	deadline = pg_mono_ms() + (uint64_t)ps->timeout_ms;
	if (!PQpipelineSync(ps->conn)) {
		pg_conn_error(ps, err, "commit");
		pg_disconnect(ps);
		goto out;
	}
	if (pg_flush_out(ps, deadline, err, "commit")) {
		lost = 1;
		goto out;
	}
	if (ps->lose_answer) {
		/* tests: the server has answered (so it committed), and the
		 * answer is lost with the connection */
		ps->lose_answer = 0;
		if (!pg_wait_sock(ps, POLLIN, deadline, err, "commit"))
			pg_disconnect(ps);
		seterr(err, "store: commit: the connection was lost (a test)");
		lost = 1;
		goto out;
	}
	for (k = 0; k < nsent && !lost; k++) {
		r = pg_next_result(ps, deadline, &lost, err, "commit");
		if (lost)
			break;
		if (!failed && !pg_ok_status(r)) {
			if (PQresultStatus(r) == PGRES_PIPELINE_ABORTED || !r) {
				pg_result_error(r, err, "commit");
			} else {
				rc = commit_error(r, sent[k].id, c, sent[k].index, err);
			}
			failed = 1;
		} else if (!failed && sent[k].id == P_OUTBOX_INSERT && PQntuples(r) == 1) {
			ids[sent[k].index] = pg_col_i64(r, 0, 0);
		}
		PQclear(r);
		r = pg_next_result(ps, deadline, &lost, err, "commit");
		PQclear(r);
	}
	if (!lost) {
		r = pg_next_result(ps, deadline, &lost, err, "commit");
		synced = !lost && r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
		PQclear(r);
	}
	if (lost || !synced || !PQexitPipelineMode(ps->conn)) {
		if (!lost && ps->conn) {
			pg_conn_error(ps, err, "commit");
			pg_disconnect(ps);
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
		pg_disconnect(ps);
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

int pg_cursor_set(struct store *s, const char *key, const char *value,
		  struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;

	if (!value) {
		seterr(err, "store: cursor %s without a value", key);
		return -1;
	}
	pg_param_text(&p, key);
	pg_param_text(&p, value);
	r = pg_run(ps, P_CURSOR_SET, &p, 1, err);
	PQclear(r);
	return r ? 0 : -1;
}

int pg_cursor_delete(struct store *s, const char *key, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;

	pg_param_text(&p, key);
	r = pg_run(ps, P_CURSOR_DELETE, &p, 1, err);
	PQclear(r);
	return r ? 0 : -1;
}

int pg_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
		      void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;
	char **rows;
	int n, i;

	if (!prefix || !*prefix) {
		seterr(err, "store: listing cursors needs a prefix");
		return -1;
	}
	pg_param_text(&p, prefix);
	pg_param_i64(&p, STORE_PREFIX_MAX + 1);
	r = pg_run(ps, P_CURSORS_PREFIX, &p, 1, err);
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
