/*
 * sqlite_copy.c: the SQLite store's dump and import (--migrate-store and
 * backups): every record in pages, and a copy into an empty store in one
 * transaction.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/schema.h"
#include "state/sqlite_int.h"
#include "state/store_int.h"
#include "state/walckpt.h"

/* ------------------------------------------------------- dump and import */

static int dump_sessions(struct sqlite_store *ss, store_item_cb cb, void *ctx,
			 struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_SESSIONS);
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
			sqlite_fail(ss, err, "listing sessions");
			sqlite_st_done(st);
			goto fail;
		}
		sqlite_st_done(st);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_ACTIONS);
	struct action_rec *page = xcalloc(PAGE_ROWS, sizeof(*page));
	struct rows_reader r = sqlite_reader(st);
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
				sqlite_st_done(st);
				goto fail;
			}
			page[n++].session = sqlite3_column_int64(st, 0);
		}
		if (rc != SQLITE_DONE) {
			sqlite_fail(ss, err, "reading actions");
			sqlite_st_done(st);
			goto fail;
		}
		sqlite_st_done(st);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_OUTBOX);
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
			if (sqlite_read_outbox(st, &page[n++], err)) {
				sqlite_st_done(st);
				goto fail;
			}
		}
		if (rc != SQLITE_DONE) {
			sqlite_fail(ss, err, "reading the outbox");
			sqlite_st_done(st);
			goto fail;
		}
		sqlite_st_done(st);
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
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_CURSORS);
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
		sqlite_bind_str(st, 1, buf_str(&after));
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			keys[n] = sqlite_col_strdup(st, 0);
			values[n++] = sqlite_col_strdup(st, 1);
		}
		if (rc != SQLITE_DONE) {
			sqlite_fail(ss, err, "reading cursors");
			sqlite_st_done(st);
			goto fail;
		}
		sqlite_st_done(st);
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
int sqlite_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);

	if (dump_sessions(ss, cb, ctx, err) || dump_actions(ss, cb, ctx, err) ||
	    dump_outbox(ss, cb, ctx, err) || dump_cursors(ss, cb, ctx, err) ||
	    sqlite_dump_ratings(ss, cb, ctx, err) || sqlite_dump_web(ss, cb, ctx, err))
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
	struct sqlite_binder b = { NULL, 0 };
	struct rows_writer w = SQLITE_WRITER(b);

	x->n++;
	switch (it->kind) {
	case STORE_ITEM_SESSION:
		c.session = (struct session_rec *)it->session;
		if (store_check_commit(&c, err))
			return 1;
		st = sqlite_st(ss, ST_IMPORT_SESSION);
		sqlite_bind_session(st, it->session);
		if (sqlite_st_run(ss, st, err, "copying a session"))
			return 1;
		return sqlite_seats_replace(ss, it->session->id, it->session, 0, err) ? 1 : 0;
	case STORE_ITEM_ACTION:
		return sqlite_action_append(ss, it->action->session, it->action, err) ? 1 : 0;
	case STORE_ITEM_OUTBOX:
		st = sqlite_st(ss, ST_IMPORT_OUTBOX);
		b.st = st;
		rows_put_outbox_copy(&w, it->outbox, it->sent_at);
		return sqlite_st_run(ss, st, err, "copying an outbox message") ? 1 : 0;
	case STORE_ITEM_CURSOR:
		return sqlite_cursor_put(ss, it->key, it->value, err) ? 1 : 0;
	case STORE_ITEM_WEB:
		return sqlite_import_web(ss, it, err) ? 1 : 0;
	default:
		return sqlite_import_rating_item(ss, it, err) ? 1 : 0;
	}
}

int sqlite_import(struct store *s, struct store *from, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	struct import_ctx x = { ss, err, 0 };
	int records;

	if (sqlite_st_run(ss, sqlite_st(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	if (sqlite_int_st(ss, sqlite_st(ss, ST_COUNT_RECORDS), &records, err))
		goto fail;
	if (records) {
		seterr(err, "store: the target store is not empty (it holds %d sessions, outbox messages,"
		       " cursors, results, ratings and players); copy into an empty one", records);
		goto fail;
	}
	buf_reset(err);
	if (store_dump(from, import_item, &x, err)) {
		if (!err || !err->len)
			seterr(err, "store: copying stopped after %ld records", x.n);
		goto fail;
	}
	if (sqlite_st_run(ss, sqlite_st(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	sqlite_rollback(ss);
	return -1;
}
