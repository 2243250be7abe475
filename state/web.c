/*
 * web.c: the games' web links, once for both backends (state/store.h,
 * store_web_*): a new token from the system's random bytes, its SHA-256,
 * the check of a token given by a stranger, and the wrappers over the
 * backends' web_get, web_put and web_find (get, reset, ensure, find).
 *
 * The backends keep the token and its hash and know nothing else of
 * them: what a token is (its length, its alphabet) and how it is hashed
 * are this file's.  A lookup goes by the hash: an index finds a row by
 * bytes that have nothing to do with how close a guess came.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>

#include "state/store_int.h"

static const char alnum[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

int store_web_token_ok(const char *token)
{
	size_t n = 0;
	int bad = 0;

	if (!token)
		return 0;
	/* no early exit on a bad character: a guess's first bad byte must
	 * not show in the time the check takes */
	for (; token[n] && n < STORE_WEB_TOKEN_MAX; n++) {
		unsigned char c = (unsigned char)token[n];

		bad |= !((c >= 'A' && c <= 'Z') | (c >= 'a' && c <= 'z') |
			 (c >= '0' && c <= '9') | (c == '-') | (c == '_'));
	}
	return !bad && n > 0 && n < STORE_WEB_TOKEN_MAX;
}

int store_web_hash(const char *token, char hex[65], struct buf *err)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	if (EVP_Digest(token, strlen(token), md, &len, EVP_sha256(), NULL) != 1 || len != 32) {
		seterr(err, "store: cannot hash a web token (SHA-256 failed)");
		return -1;
	}
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
	return 0;
}

/*
 * A fresh token: STORE_WEB_TOKEN_LEN letters and digits, each drawn
 * uniformly (a byte of 248 or more is drawn again) from the system's
 * random bytes, never from the bot's seeded generator (TABULA_SEED fixes
 * that one in tests): 32 x log2(62) = 190 bits.  base64url's '-' and '_'
 * are left out although a token may hold them: chat platforms read '_'
 * as markdown (Discord escapes it, which would break the link).
 */
static int new_token(char *token, size_t tokensz, struct buf *err)
{
	unsigned char raw[64];
	size_t o = 0, i;

	if (tokensz < STORE_WEB_TOKEN_LEN + 1) {
		seterr(err, "store: a web token needs a buffer of %d bytes", STORE_WEB_TOKEN_MAX);
		return -1;
	}
	while (o < STORE_WEB_TOKEN_LEN) {
		ssize_t n = getrandom(raw, sizeof(raw), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			seterr(err, "store: no random bytes from the system: %s", strerror(errno));
			return -1;
		}
		for (i = 0; i < (size_t)n && o < STORE_WEB_TOKEN_LEN; i++)
			if (raw[i] < 248)
				token[o++] = alnum[raw[i] % 62];
	}
	token[o] = '\0';
	explicit_bzero(raw, sizeof(raw));
	return 0;
}

int store_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
		  struct buf *err)
{
	if (tokensz)
		token[0] = '\0';
	if (tokensz < STORE_WEB_TOKEN_MAX) {
		seterr(err, "store: a web token needs a buffer of %d bytes", STORE_WEB_TOKEN_MAX);
		return -1;
	}
	return s->ops->web_get(s, session, token, tokensz, err);
}

int store_web_reset(struct store *s, int64_t session, char *token, size_t tokensz,
		    struct buf *err)
{
	char fresh[STORE_WEB_TOKEN_MAX], hex[65];

	if (tokensz < STORE_WEB_TOKEN_MAX) {
		seterr(err, "store: a web token needs a buffer of %d bytes", STORE_WEB_TOKEN_MAX);
		return -1;
	}
	if (session <= 0) {
		seterr(err, "store: a web link needs a stored session (id %lld)",
		       (long long)session);
		return -1;
	}
	if (new_token(fresh, sizeof(fresh), err) || store_web_hash(fresh, hex, err) ||
	    s->ops->web_put(s, session, fresh, hex, 0, err))
		return -1;
	snprintf(token, tokensz, "%s", fresh);
	return 0;
}

int store_web_ensure(struct store *s, int64_t session, char *token, size_t tokensz,
		     struct buf *err)
{
	char fresh[STORE_WEB_TOKEN_MAX], hex[65];

	if (store_web_get(s, session, token, tokensz, err))
		return -1;
	if (token[0])
		return 0;
	if (session <= 0) {
		seterr(err, "store: a web link needs a stored session (id %lld)",
		       (long long)session);
		return -1;
	}
	/* kept only if nobody stored one meanwhile: read back what won */
	if (new_token(fresh, sizeof(fresh), err) || store_web_hash(fresh, hex, err) ||
	    s->ops->web_put(s, session, fresh, hex, 1, err) ||
	    store_web_get(s, session, token, tokensz, err))
		return -1;
	if (!token[0]) {
		seterr(err, "store: the web link of session %lld was not stored", (long long)session);
		return -1;
	}
	return 0;
}

int store_web_find(struct store *s, const char *token, int64_t *session, struct buf *err)
{
	char hex[65];

	*session = 0;
	if (!store_web_token_ok(token))
		return 1;
	if (store_web_hash(token, hex, err))
		return -1;
	return s->ops->web_find(s, hex, session, err);
}

static int mark_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct store_web_mark *)a)->session;
	int64_t y = ((const struct store_web_mark *)b)->session;

	return x < y ? -1 : x > y;
}

int store_web_marks(struct store *s, struct store_web_mark *marks, size_t n, struct buf *err)
{
	size_t i;

	if (n > STORE_WEB_MARKS_MAX) {
		seterr(err, "store: %zu web marks asked at once (at most %d)", n,
		       STORE_WEB_MARKS_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		marks[i].version = -1;
		marks[i].last_seq = -1;
		marks[i].hash[0] = '\0';
	}
	/* sorted, so that a backend finds a row's mark by bsearch */
	qsort(marks, n, sizeof(*marks), mark_cmp);
	return n ? s->ops->web_marks(s, marks, n, err) : 0;
}

/* The mark of session in marks[n] (sorted by store_web_marks), or NULL. */
struct store_web_mark *store_web_mark_find(struct store_web_mark *marks, size_t n,
					 int64_t session)
{
	struct store_web_mark key = { .session = session };

	return bsearch(&key, marks, n, sizeof(*marks), mark_cmp);
}
