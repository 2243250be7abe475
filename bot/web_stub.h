/*
 * TEMPORARY (issue 27): the store's web links as the contract declares
 * them (state/store.h, branch i27-store), kept in memory until that branch
 * is merged.  THE LEAD DELETES bot/web_stub.[ch] AT THE MERGE (and the
 * include in bot/web.c, and "web_stub" in tests/lint/layers.py).
 */
#ifndef BOT_WEB_STUB_H
#define BOT_WEB_STUB_H

#include <stddef.h>
#include <stdint.h>

#include "state/store.h"

#define STORE_WEB_TOKEN_MAX 64

int store_web_get(struct store *s, int64_t session, char *token, size_t tokensz, struct buf *err);
int store_web_reset(struct store *s, int64_t session, char *token, size_t tokensz,
		    struct buf *err);
int store_web_find(struct store *s, const char *token, int64_t *session, struct buf *err);

#endif
