/*
 * postgres_web.c: the PostgreSQL store's web links (schema migration 7,
 * API version 7; state/web.c makes and hashes the tokens): a session's
 * token, replacing it, finding a session by a token's hash, and their
 * share of dump and import.  Each is one statement, so a lost answer is
 * simply asked again (storing the same token twice stores it once).
 */
#include <stdio.h>
#include <string.h>

#include "state/postgres_int.h"
#include "state/store_int.h"

const char *const pg_web_sql[P_COUNT - P_WEB_FIRST] = {
#define S(id) [(id) - P_WEB_FIRST]
	S(P_WEB_GET) = "SELECT token FROM web_links WHERE session = $1",
	S(P_WEB_PUT) =
		"INSERT INTO web_links (session, hash, token) VALUES ($1, $2, $3)"
		" ON CONFLICT (session) DO UPDATE SET hash = excluded.hash, token = excluded.token",
	S(P_WEB_ADD) =
		"INSERT INTO web_links (session, hash, token) VALUES ($1, $2, $3)"
		" ON CONFLICT (session) DO NOTHING",
	/* the UNIQUE index on hash */
	S(P_WEB_FIND) = "SELECT session FROM web_links WHERE hash = $1",
	S(P_DUMP_WEB) =
		"SELECT session, token FROM web_links WHERE session > $1 ORDER BY session LIMIT $2",
	/* the primary keys of sessions and web_links: two index probes per
	 * session; actions (session, seq) only for one whose version moved
	 * (CASE evaluates its subquery only then) */
	S(P_WEB_MARKS) =
		"SELECT s.id, s.version,"
		" CASE WHEN s.version <> k.known THEN"
		"  COALESCE((SELECT max(a.seq) FROM actions a WHERE a.session = s.id), 0)"
		" ELSE -1 END,"
		" COALESCE(w.hash, '')"
		" FROM unnest($1::bigint[], $2::bigint[]) AS k (id, known)"
		" JOIN sessions s ON s.id = k.id LEFT JOIN web_links w ON w.session = s.id",
#undef S
};

int pg_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
	       struct buf *err)
{
	struct pg_params p = { 0 };
	PGresult *r;

	token[0] = '\0';
	pg_param_i64(&p, session);
	r = pg_run(pg_downcast(s), P_WEB_GET, &p, 1, err);
	if (!r)
		return -1;
	if (PQntuples(r))
		snprintf(token, tokensz, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return 0;
}

static void put_params(struct pg_params *p, int64_t session, const char *token,
		       const char *hash)
{
	pg_param_i64(p, session);
	pg_param_text(p, hash);
	pg_param_text(p, token);
}

int pg_web_put(struct store *s, int64_t session, const char *token, const char *hash,
	       int keep, struct buf *err)
{
	struct pg_params p = { 0 };
	PGresult *r;

	put_params(&p, session, token, hash);
	r = pg_run(pg_downcast(s), keep ? P_WEB_ADD : P_WEB_PUT, &p, 1, err);
	PQclear(r);
	return r ? 0 : -1;
}

int pg_web_find(struct store *s, const char *hash, int64_t *session, struct buf *err)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int ret = 1;

	*session = 0;
	pg_param_text(&p, hash);
	r = pg_run(pg_downcast(s), P_WEB_FIND, &p, 1, err);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*session = pg_col_i64(r, 0, 0);
		ret = 0;
	}
	PQclear(r);
	return ret;
}

int pg_dump_web(struct pg_store *ps, store_item_cb cb, void *ctx, struct buf *err)
{
	struct store_item it = { .kind = STORE_ITEM_WEB };
	int64_t after = 0;
	int n, i;

	do {
		struct pg_params p = { 0 };
		PGresult *r;

		pg_param_i64(&p, after);
		pg_param_i64(&p, PAGE_ROWS);
		r = pg_run(ps, P_DUMP_WEB, &p, 1, err);
		if (!r)
			return -1;
		n = PQntuples(r);
		for (i = 0; i < n; i++) {
			it.ref = after = pg_col_i64(r, i, 0);
			it.value = PQgetvalue(r, i, 1);
			if (cb(ctx, &it)) {
				PQclear(r);
				return -1;
			}
		}
		PQclear(r);
	} while (n == PAGE_ROWS);
	return 0;
}

int pg_import_web(struct pg_store *ps, const struct store_item *it, struct buf *err)
{
	struct pg_params p = { 0 };
	char hex[65];
	PGresult *r;

	/* the hash is made again from the token: one rule for it */
	if (!store_web_token_ok(it->value)) {
		seterr(err, "store: session %lld has a malformed web token", (long long)it->ref);
		return -1;
	}
	if (store_web_hash(it->value, hex, err))
		return -1;
	put_params(&p, it->ref, it->value, hex);
	r = pg_run(ps, P_WEB_PUT, &p, 0, err);
	PQclear(r);
	return r ? 0 : -1;
}

int pg_web_marks(struct store *s, struct store_web_mark *marks, size_t n, struct buf *err)
{
	struct pg_params p = { 0 };
	struct buf ids = BUF_INIT, known = BUF_INIT;
	struct store_web_mark *m;
	PGresult *r;
	size_t i;
	int rows, k;

	buf_addch(&ids, '{');
	buf_addch(&known, '{');
	for (i = 0; i < n; i++) {
		buf_printf(&ids, "%s%lld", i ? "," : "", (long long)marks[i].session);
		buf_printf(&known, "%s%lld", i ? "," : "", (long long)marks[i].known);
	}
	buf_addch(&ids, '}');
	buf_addch(&known, '}');
	pg_param_text(&p, buf_str(&ids));
	pg_param_text(&p, buf_str(&known));
	r = pg_run(pg_downcast(s), P_WEB_MARKS, &p, 1, err);
	buf_release(&ids);
	buf_release(&known);
	if (!r)
		return -1;
	rows = PQntuples(r);
	for (k = 0; k < rows; k++) {
		m = store_web_mark_find(marks, n, pg_col_i64(r, k, 0));
		if (!m)
			continue;
		m->version = pg_col_i64(r, k, 1);
		m->last_seq = pg_col_i64(r, k, 2);
		snprintf(m->hash, sizeof(m->hash), "%s", PQgetvalue(r, k, 3));
	}
	PQclear(r);
	return 0;
}
