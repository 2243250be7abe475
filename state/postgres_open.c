/*
 * postgres_open.c: opening and closing the PostgreSQL store: connected,
 * the schema claimed as tabula's (tabula_meta), brought to the current
 * version through state/schema.c's migrations under an advisory lock; and
 * the hooks the tests and benchmarks read.
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

/* ------------------------------------------------------------ open, close */

void pg_close(struct store *s)
{
	struct pg_store *ps = pg_downcast(s);

	pg_disconnect(ps);
	if (ps->uri) {
		/* it may hold a password */
		memset(ps->uri, 0, strlen(ps->uri));
		free(ps->uri);
	}
	free(ps);
}

/* One integer of simple SQL (no parameters). */
static int pg_simple_int(struct pg_store *ps, const char *sql, long long *out, struct buf *err)
{
	PGresult *r = NULL;

	if (pg_exec_simple(ps, sql, &r, err))
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

static void pg_rollback_quietly(struct pg_store *ps)
{
	struct buf ignore = BUF_INIT;

	if (ps->conn && PQtransactionStatus(ps->conn) != PQTRANS_IDLE &&
	    pg_exec_simple(ps, "ROLLBACK", NULL, &ignore))
		pg_disconnect(ps);
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

	if (pg_exec_simple(ps, "BEGIN", NULL, err))
		return -1;
	if (pg_exec_simple(ps, "SELECT current_schema() IS NOT NULL", &r, err))
		goto fail;
	if (strcmp(PQgetvalue(r, 0, 0), "t")) {
		seterr(err, "store: the connection's search_path names no existing schema to"
		       " hold tabula's tables (create one, or set search_path)");
		goto fail;
	}
	PQclear(r);
	r = NULL;
	if (pg_exec_simple(ps, LOCK_SQL, NULL, err) ||
	    pg_simple_int(ps, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
		       &tables, err) ||
	    pg_simple_int(ps, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
		       " AND tablename = 'tabula_meta'", &has_meta, err))
		goto fail;
	if (has_meta) {
		if (pg_exec_simple(ps, "SELECT value FROM tabula_meta WHERE key = 'application_id'",
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
	} else if (pg_exec_simple(ps, "CREATE TABLE tabula_meta (key TEXT PRIMARY KEY,"
				  " value TEXT NOT NULL);"
				  " INSERT INTO tabula_meta VALUES ('application_id', '" APPLICATION_ID
				  "'), ('schema_version', '0')", NULL, err)) {
		goto fail;
	}
	if (pg_exec_simple(ps, "COMMIT", NULL, err))
		goto fail;
	return 0;
fail:
	PQclear(r);
	pg_rollback_quietly(ps);
	return -1;
}

/* The migration loop's calls (state/schema.h); ctx is the pg_store. */
static int mig_begin(void *ctx, struct buf *err)
{
	struct pg_store *ps = ctx;

	if (pg_exec_simple(ps, "BEGIN", NULL, err))
		return -1;
	if (pg_exec_simple(ps, LOCK_SQL, NULL, err)) {
		pg_rollback_quietly(ps);
		return -1;
	}
	return 0;
}

static int mig_version(void *ctx, long long *v, struct buf *err)
{
	return pg_simple_int(ctx, "SELECT value::bigint FROM tabula_meta"
			  " WHERE key = 'schema_version'", v, err);
}

static int mig_exec(void *ctx, const char *sql, struct buf *err)
{
	return pg_exec_simple(ctx, sql, NULL, err);
}

static int mig_set_version(void *ctx, long long v, struct buf *err)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "UPDATE tabula_meta SET value = '%lld'"
		 " WHERE key = 'schema_version'", v);
	return pg_exec_simple(ctx, sql, NULL, err);
}

static int mig_commit(void *ctx, struct buf *err)
{
	return pg_exec_simple(ctx, "COMMIT", NULL, err);
}

static void mig_rollback(void *ctx)
{
	pg_rollback_quietly(ctx);
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
	if (pg_connect_now(ps, err) || claim(ps, err) ||
	    schema_migrate(&pg_migrations, ps, err) || pg_prepare_all(ps, err))
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
