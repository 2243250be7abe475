/*
 * sqlite_web.c: the SQLite store's web links (schema migration 7, API
 * version 7; state/web.c makes and hashes the tokens): a session's token,
 * replacing it, finding a session by a token's hash, and their share of
 * dump and import.
 */
#include <stdio.h>
#include <string.h>

#include "state/sqlite_int.h"
#include "state/store_int.h"

const char *const sqlite_web_sql[ST_COUNT - ST_WEB_FIRST] = {
#define S(id) [(id) - ST_WEB_FIRST]
	S(ST_WEB_GET) = "SELECT token FROM web_links WHERE session = ?1",
	S(ST_WEB_PUT) =
		"INSERT INTO web_links (session, hash, token) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (session) DO UPDATE SET hash = excluded.hash, token = excluded.token",
	S(ST_WEB_ADD) =
		"INSERT INTO web_links (session, hash, token) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (session) DO NOTHING",
	/* the UNIQUE index on hash */
	S(ST_WEB_FIND) = "SELECT session FROM web_links WHERE hash = ?1",
	S(ST_DUMP_WEB) =
		"SELECT session, token FROM web_links WHERE session > ?1 ORDER BY session LIMIT ?2",
	S(ST_WEB_MARK) =
		"SELECT s.version,"
		" CASE WHEN s.version <> ?2 THEN"
		"  COALESCE((SELECT max(a.seq) FROM actions a WHERE a.session = s.id), 0)"
		" ELSE -1 END,"
		" COALESCE(w.hash, '')"
		" FROM sessions s LEFT JOIN web_links w ON w.session = s.id WHERE s.id = ?1",
#undef S
};

int sqlite_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
		   struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_WEB_GET);
	int rc;

	token[0] = '\0';
	sqlite3_bind_int64(st, 1, session);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		snprintf(token, tokensz, "%s", t ? (const char *)t : "");
	} else if (rc != SQLITE_DONE) {
		sqlite_fail(ss, err, "reading a web link");
		sqlite_st_done(st);
		return -1;
	}
	sqlite_st_done(st);
	return 0;
}

int sqlite_web_put(struct store *s, int64_t session, const char *token, const char *hash,
		   int keep, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, keep ? ST_WEB_ADD : ST_WEB_PUT);

	sqlite3_bind_int64(st, 1, session);
	sqlite_bind_str(st, 2, hash);
	sqlite_bind_str(st, 3, token);
	return sqlite_st_run(ss, st, err, "storing a web link");
}

int sqlite_web_find(struct store *s, const char *hash, int64_t *session, struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_WEB_FIND);
	int rc, ret = 1;

	*session = 0;
	sqlite_bind_str(st, 1, hash);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*session = sqlite3_column_int64(st, 0);
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		ret = sqlite_fail(ss, err, "finding a web link");
	}
	sqlite_st_done(st);
	return ret;
}

int sqlite_dump_web(struct sqlite_store *ss, store_item_cb cb, void *ctx, struct buf *err)
{
	sqlite3_stmt *st = sqlite_st(ss, ST_DUMP_WEB);
	struct store_item it = { .kind = STORE_ITEM_WEB };
	int64_t ids[PAGE_ROWS], after = 0;
	char tokens[PAGE_ROWS][STORE_WEB_TOKEN_MAX];
	int n, i, rc;

	do {
		n = 0;
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, PAGE_ROWS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const unsigned char *t = sqlite3_column_text(st, 1);

			ids[n] = sqlite3_column_int64(st, 0);
			snprintf(tokens[n++], STORE_WEB_TOKEN_MAX, "%s", t ? (const char *)t : "");
		}
		if (rc != SQLITE_DONE) {
			sqlite_fail(ss, err, "listing web links");
			sqlite_st_done(st);
			return -1;
		}
		sqlite_st_done(st);
		for (i = 0; i < n; i++) {
			after = ids[i];
			it.ref = ids[i];
			it.value = tokens[i];
			if (cb(ctx, &it))
				return -1;
		}
	} while (n == PAGE_ROWS);
	return 0;
}

/* The hash is made again from the token: one rule for it (state/web.c). */
int sqlite_import_web(struct sqlite_store *ss, const struct store_item *it, struct buf *err)
{
	char hex[65];

	if (!store_web_token_ok(it->value)) {
		seterr(err, "store: session %lld has a malformed web token", (long long)it->ref);
		return -1;
	}
	if (store_web_hash(it->value, hex, err))
		return -1;
	return sqlite_web_put(&ss->base, it->ref, it->value, hex, 0, err);
}

/* One probe per session: in one process, with no round trip to save. */
int sqlite_web_marks(struct store *s, struct store_web_mark *marks, size_t n,
		     struct buf *err)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	sqlite3_stmt *st = sqlite_st(ss, ST_WEB_MARK);
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, marks[i].session);
		sqlite3_bind_int64(st, 2, marks[i].known);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			const unsigned char *h = sqlite3_column_text(st, 2);

			marks[i].version = sqlite3_column_int64(st, 0);
			marks[i].last_seq = sqlite3_column_int64(st, 1);
			snprintf(marks[i].hash, sizeof(marks[i].hash), "%s",
				 h ? (const char *)h : "");
		} else if (rc != SQLITE_DONE) {
			rc = sqlite_fail(ss, err, "reading the web marks");
			sqlite_st_done(st);
			return rc;
		}
		sqlite_st_done(st);
	}
	return 0;
}
