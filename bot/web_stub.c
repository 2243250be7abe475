/*
 * TEMPORARY (issue 27): an in-memory stand-in for the store's web links
 * (bot/web_stub.h); deleted when branch i27-store is merged.
 */
#include "bot/web_stub.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#define STUB_MAX 256

static struct {
	int64_t session;
	char token[STORE_WEB_TOKEN_MAX];
} links[STUB_MAX];

int store_web_get(struct store *s, int64_t session, char *token, size_t tokensz, struct buf *err)
{
	int i;

	snprintf(token, tokensz, "%s", "");
	for (i = 0; i < STUB_MAX; i++)
		if (links[i].session == session)
			snprintf(token, tokensz, "%s", links[i].token);
	return 0;
}

int store_web_reset(struct store *s, int64_t session, char *token, size_t tokensz,
		    struct buf *err)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char r[22];
	int i, slot = -1;

	for (i = 0; i < STUB_MAX; i++)
		if (links[i].session == session || (slot < 0 && !links[i].session))
			slot = i;
	if (slot < 0 || getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		buf_setf(err, "no room for a link");
		return -1;
	}
	links[slot].session = session;
	for (i = 0; i < 22; i++)
		links[slot].token[i] = b64[r[i] & 63];
	links[slot].token[22] = 0;
	snprintf(token, tokensz, "%s", links[slot].token);
	return 0;
}

int store_web_find(struct store *s, const char *token, int64_t *session, struct buf *err)
{
	int i;

	for (i = 0; i < STUB_MAX; i++)
		if (links[i].session && !strcmp(links[i].token, token)) {
			*session = links[i].session;
			return 0;
		}
	return 1;
}
