/*
 * postgres_cluster.c: the PostgreSQL store's part for several processes
 * (docs/deploy.md): leases on the server's clock, and the claims on due
 * sessions and outbox messages, each one statement that chooses and takes
 * its page (SKIP LOCKED).
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

/* ---------------------------------------------------- several processes */

int pg_lease(struct store *s, const char *name, const char *holder, int64_t ttl_ms,
	     struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct pg_params p = { 0 };
	PGresult *r;
	int held;

	if (store_check_name(name, "a lease name", err) ||
	    store_check_name(holder, "a lease holder", err))
		return -1;
	if (ttl_ms < 0) {
		seterr(err, "store: a lease cannot last %lld ms", (long long)ttl_ms);
		return -1;
	}
	pg_param_text(&p, name);
	pg_param_text(&p, holder);
	if (!ttl_ms) {
		r = pg_run(ps, P_LEASE_DROP, &p, 1, err);
		PQclear(r);
		return r ? 0 : -1;
	}
	pg_param_i64(&p, ttl_ms);
	r = pg_run(ps, P_LEASE_TAKE, &p, 1, err);
	if (!r)
		return -1;
	held = PQntuples(r) == 1;
	PQclear(r);
	return held;
}

int pg_sessions_claim_due(struct store *s, int64_t until, const char *owner,
			  const char *const *platforms, store_session_cb cb, void *ctx,
			  struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct session_rec rec;
	struct buf arr = BUF_INIT;
	int64_t ids[PAGE_ROWS], dues[PAGE_ROWS], after_due = 0, after_id = 0;
	int n, i, rc = 0;

	if (store_check_name(owner, "a claim owner", err) ||
	    pg_platform_array(platforms, &arr, err)) {
		buf_release(&arr);
		return -1;
	}
	session_rec_init(&rec);
	do {
		struct pg_params p = { 0 };
		PGresult *r;

		pg_param_i64(&p, until);
		pg_param_i64(&p, after_due);
		pg_param_i64(&p, after_id);
		pg_param_text(&p, owner);
		pg_param_text(&p, buf_str(&arr));
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_CLAIM_DUE, &p, 1, err);
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
	buf_release(&arr);
	return rc < 0 ? -1 : 0;
}

static int cmp_outbox_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int pg_outbox_claim(struct store *s, const char *owner, const char *const *platforms,
		    store_outbox_cb cb, void *ctx, struct buf *err)
{
	struct pg_store *ps = pg_downcast(s);
	struct buf arr = BUF_INIT;
	int64_t after = 0;
	int n, rc = 0;

	if (store_check_name(owner, "a claim owner", err) ||
	    pg_platform_array(platforms, &arr, err)) {
		buf_release(&arr);
		return -1;
	}
	do {
		struct pg_params p = { 0 };
		struct outbox_rec *page;
		PGresult *r;
		int i;

		pg_param_i64(&p, after);
		pg_param_text(&p, owner);
		pg_param_text(&p, buf_str(&arr));
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_CLAIM_OUTBOX, &p, 1, err);
		if (!r) {
			rc = -1;
			break;
		}
		/* RETURNING comes in no particular order: oldest first here */
		n = PQntuples(r);
		page = xcalloc((size_t)n + 1, sizeof(*page));
		for (i = 0; i < n && rc >= 0; i++)
			if (pg_read_outbox(r, i, &page[i], err))
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
