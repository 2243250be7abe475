/*
 * open.c: which backend a TABULA_DB value names, and how it may be shown
 * in a log line (state/store.h).
 */
#include "state/store_int.h"

#include <string.h>

int store_is_postgres(const char *where)
{
	return where && (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11));
}

struct store *store_open(const char *where, struct buf *err)
{
	if (store_is_postgres(where))
		return store_pg_open(where, err);
	return store_sqlite_open(where, err);
}

/*
 * A URI's userinfo may carry a password ("postgresql://bot:pw@db/tabula"),
 * and so may its query ("?password=pw"): both are replaced by ***, so that
 * an error or a debug line can name the store.
 */
void store_describe(const char *where, struct buf *out)
{
	const char *p, *rest, *at, *colon, *q;

	buf_reset(out);
	if (!where) {
		buf_addstr(out, "(none)");
		return;
	}
	if (!store_is_postgres(where)) {
		buf_addstr(out, where);
		return;
	}
	rest = strstr(where, "://") + 3;
	buf_add(out, where, (size_t)(rest - where));
	at = strpbrk(rest, "@/?");
	if (at && *at == '@') {
		colon = memchr(rest, ':', (size_t)(at - rest));
		if (colon) {
			buf_add(out, rest, (size_t)(colon - rest));
			buf_addstr(out, ":***");
		} else {
			buf_add(out, rest, (size_t)(at - rest));
		}
		rest = at;
	}
	/* the query: every password= value goes */
	for (p = rest; (q = strstr(p, "password=")); p = q) {
		if (q != p && q[-1] != '?' && q[-1] != '&') {
			q += 9;
			buf_add(out, p, (size_t)(q - p));
			continue;
		}
		q += 9;
		buf_add(out, p, (size_t)(q - p));
		buf_addstr(out, "***");
		q += strcspn(q, "&");
	}
	buf_addstr(out, p);
}

int store_migrate(struct store *from, struct store *to, struct buf *err)
{
	if (from == to) {
		seterr(err, "store: cannot copy a store into itself");
		return -1;
	}
	return to->ops->import(to, from, err);
}
