/*
 * sqlite_cluster.c: the SQLite store's part for several processes on one
 * file (docs/deploy.md): leases, the fence a commit checks, session
 * stamps, and the claims on due sessions and outbox messages.  SQLite has
 * one writer at a time, so each claim is a page read and taken in one
 * BEGIN IMMEDIATE transaction.
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

/* ---------------------------------------------------- several processes */

/* Inside a write transaction: the fence lease must be held by holder. */
int sqlite_fence_check(struct sqlite_store *ss, const char *lease, const char *holder,
		       struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_LEASE_CHECK);
	int rc;

	sqlite_bind_str(st, 1, lease);
	sqlite_bind_str(st, 2, holder);
	sqlite3_bind_int64(st, 3, store_now_ms());
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		sqlite_fail(ss, err, "checking a lease");
	else if (rc == SQLITE_DONE)
		seterr(err, "store: the lease %s is not held by this process: nothing stored",
		       lease);
	sqlite_st_done(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? STORE_FENCED : -1;
}

int sqlite_session_stamp(struct store *s, const char *platform, const char *room,
			 int64_t *id, int64_t *version, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_SESSION_STAMP);
	int rc;

	*id = *version = 0;
	sqlite_bind_str(st, 1, platform);
	sqlite_bind_str(st, 2, room);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*version = sqlite3_column_int64(st, 1);
	} else if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "reading a session's version");
	}
	sqlite_st_done(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int sqlite_lease(struct store *s, const char *name, const char *holder,
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
		st = sqlite_st(ss, ST_LEASE_DROP);
		sqlite_bind_str(st, 1, name);
		sqlite_bind_str(st, 2, holder);
		return sqlite_st_run(ss, st, err, "giving up a lease");
	}
	st = sqlite_st(ss, ST_LEASE_TAKE);
	sqlite_bind_str(st, 1, name);
	sqlite_bind_str(st, 2, holder);
	sqlite3_bind_int64(st, 3, now + ttl_ms);
	sqlite3_bind_int64(st, 4, now);
	if (sqlite_st_run(ss, st, err, "taking a lease"))
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
	if (sqlite_st_run(ss, sqlite_st(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	st = sqlite_st(ss, ST_CLAIM_DUE_PAGE);
	sqlite3_bind_int64(st, 1, until);
	sqlite3_bind_int64(st, 2, after_due);
	sqlite3_bind_int64(st, 3, after_id);
	sqlite_bind_str(st, 4, owner);
	sqlite_bind_str(st, 5, list);
	sqlite3_bind_int64(st, 6, store_now_ms());
	sqlite3_bind_int(st, 7, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[*n] = sqlite3_column_int64(st, 0);
		dues[(*n)++] = sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "claiming due sessions");
		sqlite_st_done(st);
		goto fail;
	}
	sqlite_st_done(st);
	st = sqlite_st(ss, ST_CLAIM_SESSION);
	for (i = 0; i < *n; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		sqlite_bind_str(st, 2, owner);
		if (sqlite_st_run(ss, st, err, "claiming a session"))
			goto fail;
	}
	if (sqlite_st_run(ss, sqlite_st(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	sqlite_rollback(ss);
	*n = 0;
	return -1;
}

int sqlite_sessions_claim_due(struct store *s, int64_t until, const char *owner,
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
		rc = sqlite_deliver_due_page(s, ids, dues, n, &after_due, &after_id, &rec, cb, ctx, err);
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
	if (sqlite_st_run(ss, sqlite_st(ss, ST_BEGIN), err, "starting a transaction"))
		return -1;
	st = sqlite_st(ss, ST_CLAIM_OUTBOX_PAGE);
	sqlite3_bind_int64(st, 1, after);
	sqlite_bind_str(st, 2, owner);
	sqlite_bind_str(st, 3, list);
	sqlite3_bind_int64(st, 4, store_now_ms());
	sqlite3_bind_int(st, 5, PAGE_ROWS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite_read_outbox(st, &page[(*n)++], err)) {
			sqlite_st_done(st);
			goto fail;
		}
	if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "claiming outbox messages");
		sqlite_st_done(st);
		goto fail;
	}
	sqlite_st_done(st);
	st = sqlite_st(ss, ST_CLAIM_OUTBOX);
	for (i = 0; i < *n; i++) {
		sqlite3_bind_int64(st, 1, page[i].id);
		sqlite_bind_str(st, 2, owner);
		if (sqlite_st_run(ss, st, err, "claiming a message"))
			goto fail;
	}
	if (sqlite_st_run(ss, sqlite_st(ss, ST_COMMIT), err, "committing"))
		goto fail;
	return 0;
fail:
	sqlite_rollback(ss);
	return -1;
}

int sqlite_outbox_claim(struct store *s, const char *owner,
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
