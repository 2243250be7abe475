/*
 * platenv: the platforms' settings from the environment (docs/deploy.md):
 * Discord's (DISCORD_*), the Matrix adapter's (MATRIX_*, the key file
 * beside the store), where the console's pictures go, and the public
 * address of the games' web pages (TABULA_PUBLIC_URL).  main() decides
 * which platforms run; this file only reads and checks their settings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/console/console.h"
#include "bot/platenv.h"
#include "bot/weblink.h"
#include "state/store.h"

int platenv_discord(struct discord_config *cfg, int *auto_n, uint64_t seed, struct buf *err)
{
	const char *shard = getenv("DISCORD_SHARD");
	const char *queue = getenv("DISCORD_REST_QUEUE");
	const char *proxy = getenv("DISCORD_API_PROXY");

	memset(cfg, 0, sizeof(*cfg));
	*auto_n = 0;
	cfg->token = getenv("DISCORD_TOKEN");
	cfg->application_id = getenv("DISCORD_APPLICATION_ID");
	cfg->api_url = getenv("DISCORD_API_URL");
	cfg->direct_url = getenv("TABULA_TEST_DISCORD_DIRECT_URL");
	if (proxy && *proxy && strcmp(proxy, "0") && strcmp(proxy, "1")) {
		buf_setf(err, "DISCORD_API_PROXY must be 1 (DISCORD_API_URL is a shared REST proxy)"
			 " or 0");
		return -1;
	}
	cfg->api_proxy = proxy && !strcmp(proxy, "1");
	cfg->gateway_url = getenv("DISCORD_GATEWAY_URL");
	cfg->guild_id = getenv("DISCORD_GUILD_ID");
	cfg->seed = seed;
	if (shard && !strncmp(shard, "auto/", 5)) {
		char spec[32];
		int id;

		/* parsed as 0/n: the same rules for n */
		snprintf(spec, sizeof(spec), "0/%.20s", shard + 5);
		if (discord_shard_parse(spec, &id, auto_n)) {
			buf_setf(err, "DISCORD_SHARD must be id/count or auto/count, e.g. 0/2");
			return -1;
		}
		cfg->shard_count = *auto_n;
	} else if (shard && *shard &&
		   discord_shard_parse(shard, &cfg->shard_id, &cfg->shard_count)) {
		buf_setf(err, "DISCORD_SHARD must be id/count or auto/count, e.g. 0/2");
		return -1;
	}
	if (queue && *queue) {
		char *end;
		unsigned long long n;

		errno = 0;
		n = strtoull(queue, &end, 10);
		if (errno || *end || end == queue || *queue == '-' ||
		    n < DISCORD_REST_QUEUE_MIN || n > DISCORD_REST_QUEUE_MAX) {
			buf_setf(err, "DISCORD_REST_QUEUE must be a number from %d to %d",
				 DISCORD_REST_QUEUE_MIN, DISCORD_REST_QUEUE_MAX);
			return -1;
		}
		cfg->rest_queue = (size_t)n;
	}
	return 0;
}

struct adapter *platenv_matrix(struct store *store, const char *db, uint64_t seed,
			       int64_t (*test_now)(void *ctx), struct buf *err)
{
	struct matrix_config cfg;
	struct buf keyfile = BUF_INIT;
	struct adapter *a;

	memset(&cfg, 0, sizeof(cfg));
	cfg.homeserver = getenv("MATRIX_HOMESERVER");
	cfg.access_token = getenv("MATRIX_ACCESS_TOKEN");
	cfg.user = getenv("MATRIX_USER");
	cfg.password = getenv("MATRIX_PASSWORD");
	cfg.prefix = getenv("MATRIX_PREFIX");
	cfg.allow = getenv("MATRIX_ALLOW");
	cfg.store = store;
	cfg.seed = seed;
	/* tests only: a small send queue, to see commands wait */
	if (getenv("TABULA_TEST_MATRIX_SENDQ"))
		cfg.sendq_max = (size_t)strtoul(getenv("TABULA_TEST_MATRIX_SENDQ"), NULL, 10);
	/* tests only: how long an encrypted message waits for its key */
	if (getenv("TABULA_TEST_MATRIX_HOLD_MS"))
		cfg.hold_ms = strtoll(getenv("TABULA_TEST_MATRIX_HOLD_MS"), NULL, 10);
	if (getenv("TABULA_TEST_MATRIX_HOLD_MAX"))
		cfg.hold_max = (size_t)strtoul(getenv("TABULA_TEST_MATRIX_HOLD_MAX"), NULL, 10);
	/* tests only: room keys rotate by the test clock */
	if (test_now)
		cfg.now = test_now;
	cfg.pickle_key = getenv("MATRIX_PICKLE_KEY");
	if (store_is_postgres(db) && !(cfg.pickle_key && *cfg.pickle_key)) {
		/* a standby on another machine must open the same keys: a key
		 * file beside one process would not be there */
		buf_setf(err, "with a PostgreSQL store, MATRIX_PICKLE_KEY must be set (the same"
			 " key in every process that may serve Matrix)");
		return NULL;
	}
	if (strcmp(db, ":memory:") && !store_is_postgres(db)) {
		buf_printf(&keyfile, "%s.matrix-key", db);
		cfg.key_file = buf_str(&keyfile);
	}
	a = matrix_adapter_new(&cfg, err);
	buf_release(&keyfile);
	return a;
}

void platenv_console_boards(struct adapter *a, const char *db)
{
	const char *env = getenv("TABULA_BOARDS"), *slash = strrchr(db, '/');
	struct buf dir = BUF_INIT;

	if (env && *env)
		buf_addstr(&dir, env);
	else if (slash && !store_is_postgres(db))
		buf_printf(&dir, "%.*s/boards", (int)(slash - db), db);
	else
		buf_addstr(&dir, "boards");
	console_set_boards_dir(a, buf_str(&dir));
	buf_release(&dir);
}

int platenv_public_url(char *out, size_t n, struct buf *err)
{
	return weblink_base_parse(getenv("TABULA_PUBLIC_URL"), out, n, err);
}
