/*
 * platenv: the platforms' settings from the environment (bot/platenv.c),
 * for main().
 */
#ifndef BOT_PLATENV_H
#define BOT_PLATENV_H

#include <stdint.h>

#include "adapters/discord/discord.h"
#include "adapters/matrix/matrix.h"
#include "util/buf.h"

/*
 * The Discord configuration the environment gives, into cfg (its strings
 * borrowed from the environment).  DISCORD_SHARD "auto/n" sets *auto_n
 * (the shard is chosen later, from the store's leases); 0, or -1 + err.
 */
int platenv_discord(struct discord_config *cfg, int *auto_n, uint64_t seed, struct buf *err);

/* The Matrix adapter as the environment configures it, or NULL + err.  db:
 * the store's path (the encryption keys' key file goes beside it);
 * test_now: the tests' clock (TABULA_TEST_CLOCK), or NULL. */
struct adapter *platenv_matrix(struct store *store, const char *db, uint64_t seed,
			       int64_t (*test_now)(void *ctx), struct buf *err);

/* Where the HTTP listener runs when TABULA_PUBLIC_URL is set and
 * TABULA_HTTP is not: loopback, for the proxy in front of it. */
#define PLATENV_WEB_HTTP "127.0.0.1:9464"

/* TABULA_PUBLIC_URL (the games' web pages, docs/web.md) checked into
 * out[n] without its trailing slash; "" when unset.  0, or -1 + err. */
int platenv_public_url(char *out, size_t n, struct buf *err);

/* The console's pictures go to TABULA_BOARDS, else boards/ beside the
 * store (./var/boards for ./var/tabula.db). */
void platenv_console_boards(struct adapter *a, const char *db);

#endif
