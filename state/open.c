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
 * Where a URI's password is: the userinfo runs to the last '@' before the
 * query (a password may hold an unencoded '/' or '@'), the password from
 * its first ':'.  *pw and *n, or 0 when there is none.
 */
static int userinfo_password(const char *rest, const char **pw, size_t *n)
{
	size_t end = strcspn(rest, "?");
	const char *at = NULL, *colon, *p;

	for (p = rest; p < rest + end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return 0;
	colon = memchr(rest, ':', (size_t)(at - rest));
	if (!colon)
		return 0;
	*pw = colon + 1;
	*n = (size_t)(at - colon - 1);
	return 1;
}

/*
 * A URI's userinfo may carry a password ("postgresql://bot:pw@db/tabula"),
 * and so may its query ("?password=pw"): both are replaced by ***, so that
 * an error or a debug line can name the store.
 */
void store_describe(const char *where, struct buf *out)
{
	const char *p, *rest, *q, *pw;
	size_t n;

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
	if (userinfo_password(rest, &pw, &n)) {
		buf_add(out, rest, (size_t)(pw - rest));
		buf_addstr(out, "***");
		rest = pw + n;
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n) and its percent-decoded form (when it differs and decodes) into
 * v, which has room for two more. */
static void add_secret(struct buf *v, size_t *nv, const char *s, size_t n)
{
	size_t i;

	if (!n)
		return;
	buf_reset(&v[*nv]);
	buf_add(&v[*nv], s, n);
	(*nv)++;
	if (!memchr(s, '%', n))
		return;
	buf_reset(&v[*nv]);
	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			buf_addch(&v[*nv], (char)(hi * 16 + lo));
			i += 2;
		} else {
			buf_addch(&v[*nv], s[i]);
		}
	}
	if (v[*nv].len)
		(*nv)++;
}

void store_redact(const char *where, const char *msg, struct buf *out)
{
	struct buf secrets[8] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT,
				  BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	struct buf shown = BUF_INIT, tmp = BUF_INIT;
	const char *rest, *p, *q, *pw;
	size_t nv = 0, n, i;

	buf_reset(out);
	buf_addstr(out, msg ? msg : "");
	if (!store_is_postgres(where))
		return;
	/* libpq quotes a URI it cannot parse whole */
	store_describe(where, &shown);
	for (p = buf_str(out); (q = strstr(p, where));) {
		buf_add(&tmp, p, (size_t)(q - p));
		buf_addstr(&tmp, buf_str(&shown));
		p = q + strlen(where);
	}
	if (tmp.len) {
		buf_addstr(&tmp, p);
		buf_reset(out);
		buf_addstr(out, buf_str(&tmp));
	}
	/* and a token of it (a password it could not decode, say) */
	rest = strstr(where, "://") + 3;
	if (userinfo_password(rest, &pw, &n))
		add_secret(secrets, &nv, pw, n);
	for (p = rest; nv + 2 <= 8 && (q = strstr(p, "password=")); p = q) {
		q += 9;
		if (q - 9 != rest && q[-10] != '?' && q[-10] != '&')
			continue;
		add_secret(secrets, &nv, q, strcspn(q, "&"));
	}
	for (i = 0; i < nv; i++) {
		buf_reset(&tmp);
		for (p = buf_str(out); (q = strstr(p, buf_str(&secrets[i])));) {
			buf_add(&tmp, p, (size_t)(q - p));
			buf_addstr(&tmp, "***");
			p = q + secrets[i].len;
		}
		if (p != buf_str(out)) {
			buf_addstr(&tmp, p);
			buf_reset(out);
			buf_addstr(out, buf_str(&tmp));
		}
	}
	for (i = 0; i < 8; i++) {
		if (secrets[i].s)
			explicit_bzero(secrets[i].s, secrets[i].len);
		buf_release(&secrets[i]);
	}
	buf_release(&shown);
	buf_release(&tmp);
}

int store_migrate(struct store *from, struct store *to, struct buf *err)
{
	if (from == to) {
		seterr(err, "store: cannot copy a store into itself");
		return -1;
	}
	return to->ops->import(to, from, err);
}
