/*
 * postgres_copy.c: the PostgreSQL store's dump and import (--migrate-store
 * and backups): every record in pages, and a copy into an empty schema in
 * one explicit transaction.
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

/* ------------------------------------------------------- dump and import */

int pg_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
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
		struct pg_params p = { 0 };

		pg_param_i64(&p, last);
		pg_param_i64(&p, PAGE_ROWS);
		if (pg_id_page(ps, P_DUMP_SESSIONS, &p, ids, &n, err))
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
		struct pg_params p = { 0 };

		pg_param_i64(&p, last);
		pg_param_i64(&p, last2);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_ACTIONS, &p, 1, err);
		if (!r)
			goto fail;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			struct pg_row x = { r, i };
			struct rows_reader rr = PG_READER(x);

			if (rows_action(&rr, 1, &a, err))
				goto fail;
			a.session = last = pg_col_i64(r, i, 0);
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
		struct pg_params p = { 0 };

		pg_param_i64(&p, last);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_OUTBOX, &p, 1, err);
		if (!r)
			goto fail;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			if (pg_read_outbox(r, i, &o, err))
				goto fail;
			last = o.id;
			it.outbox = &o;
			it.sent_at = PQgetisnull(r, i, 7) ? 0 : pg_col_i64(r, i, 7);
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
		struct pg_params p = { 0 };

		pg_param_text(&p, buf_str(&after));
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_CURSORS, &p, 1, err);
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
	if (pg_dump_ratings(ps, cb, ctx, err) || pg_dump_web(ps, cb, ctx, err))
		goto fail;
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
static int import_run(struct pg_store *ps, enum pg_stmt id, const struct pg_params *p,
		      struct buf *err)
{
	PGresult *r = pg_run(ps, id, p, 0, err);

	PQclear(r);
	return r ? 0 : 1;
}

static int import_item(void *ctx, const struct store_item *it)
{
	struct import_ctx *x = ctx;
	struct pg_store *ps = x->ps;
	struct store_commit c = { 0 };
	struct pg_params p = { 0 };
	struct rows_writer w;
	int i;

	x->n++;
	switch (it->kind) {
	case STORE_ITEM_SESSION:
		c.session = (struct session_rec *)it->session;
		if (store_check_commit(&c, x->err))
			return 1;
		pg_session_params(&p, it->session, it->session->id);
		if (import_run(ps, P_SESSION_INSERT, &p, x->err))
			return 1;
		for (i = 0; i < it->session->nseats; i++) {
			pg_seat_params(&p, it->session->id, i, &it->session->seats[i]);
			if (import_run(ps, P_SEAT_INSERT, &p, x->err))
				return 1;
		}
		return 0;
	case STORE_ITEM_ACTION:
		pg_action_params(&p, it->action->session, it->action);
		return import_run(ps, P_ACTION_INSERT, &p, x->err);
	case STORE_ITEM_OUTBOX:
		w = pg_writer(&p);
		rows_put_outbox_copy(&w, it->outbox, it->sent_at);
		return import_run(ps, P_IMPORT_OUTBOX, &p, x->err);
	case STORE_ITEM_CURSOR:
		pg_param_text(&p, it->key);
		pg_param_text(&p, it->value);
		return import_run(ps, P_CURSOR_SET, &p, x->err);
	case STORE_ITEM_WEB:
		return pg_import_web(ps, it, x->err) ? 1 : 0;
	default:
		return pg_import_rating_item(ps, it, x->err) ? 1 : 0;
	}
}

/*
 * Statistics for the tables a copy filled.  Until autovacuum gets to them
 * (a minute or more) the planner believes them empty: a leaderboard's
 * hidden-player check then scans every hidden player of the platform for
 * each row instead of looking it up (0.4 ms a board at 10,000 players,
 * not 0.05: docs/performance.md, issue 26).  The copy is committed
 * already: a failure here only leaves that to autovacuum.
 */
static void analyze(struct pg_store *ps)
{
	struct buf ignore = BUF_INIT;

	pg_exec_simple(ps, "ANALYZE sessions, seats, actions, outbox, cursors, results,"
		       " result_seats, ratings, rating_history, players, web_links", NULL, &ignore);
	buf_release(&ignore);
}

/* One explicit transaction on this connection (no statement of it is run
 * twice: a lost connection fails the copy, which then stored nothing). */
int pg_import(struct store *s, struct store *from, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct import_ctx x = { ps, err, 0 };
	PGresult *r;
	long long records;

	if (pg_ready(ps, err) || pg_exec_simple(ps, "BEGIN", NULL, err))
		return -1;
	ps->pinned = 1;
	r = pg_run(ps, P_COUNT_RECORDS, NULL, 0, err);
	if (!r)
		goto fail;
	records = (long long)pg_col_i64(r, 0, 0);
	PQclear(r);
	if (records) {
		seterr(err, "store: the target store is not empty (it holds %lld sessions, outbox messages,"
		       " cursors, results, ratings and players); copy into an empty one", records);
		goto fail;
	}
	buf_reset(err);
	if (store_dump(from, import_item, &x, err)) {
		if (!err || !err->len)
			seterr(err, "store: copying stopped after %ld records", x.n);
		goto fail;
	}
	r = pg_run(ps, P_SETVAL, NULL, 0, err);
	if (!r)
		goto fail;
	PQclear(r);
	if (pg_exec_simple(ps, "COMMIT", NULL, err))
		goto fail;
	ps->pinned = 0;
	analyze(ps);
	return 0;
fail:
	ps->pinned = 0;
	if (ps->conn && PQtransactionStatus(ps->conn) != PQTRANS_IDLE) {
		struct buf ignore = BUF_INIT;

		if (pg_exec_simple(ps, "ROLLBACK", NULL, &ignore))
			pg_disconnect(ps);
		buf_release(&ignore);
	}
	return -1;
}
