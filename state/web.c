/*
 * web.c: the games' web links, once for both backends (state/store.h,
 * store_web_*): a new token from the system's random bytes, its SHA-256,
 * the check of a token given by a stranger, and the wrappers over the
 * backends' web_get, web_put and web_find.
 *
 * The backends keep the token and its hash and know nothing else of
 * them: what a token is (its length, its alphabet) and how it is hashed
 * are this file's.  A lookup goes by the hash: an index finds a row by
 * bytes that have nothing to do with how close a guess came.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>

#include "state/store_int.h"

static const char b64url[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

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

/* A fresh token: STORE_WEB_TOKEN_BYTES of the system's random bytes
 * (never the bot's seeded generator: TABULA_SEED fixes that one in
 * tests), base64url without padding. */
static int new_token(char *token, size_t tokensz, struct buf *err)
{
	unsigned char raw[STORE_WEB_TOKEN_BYTES];
	size_t got = 0, i, o = 0;
	unsigned acc = 0;
	int bits = 0;

	if (tokensz < STORE_WEB_TOKEN_LEN + 1) {
		seterr(err, "store: a web token needs a buffer of %d bytes", STORE_WEB_TOKEN_MAX);
		return -1;
	}
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			seterr(err, "store: no random bytes from the system: %s", strerror(errno));
			return -1;
		}
		got += (size_t)n;
	}
	for (i = 0; i < sizeof(raw); i++) {
		acc = (acc << 8) | raw[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			token[o++] = b64url[(acc >> bits) & 63];
		}
	}
	if (bits)
		token[o++] = b64url[(acc << (6 - bits)) & 63];
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
	    s->ops->web_put(s, session, fresh, hex, err))
		return -1;
	snprintf(token, tokensz, "%s", fresh);
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
