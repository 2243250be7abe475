/*
 * discord: the Discord adapter (struct adapter_ops) — the gateway state
 * machine (gateway.h) driven over a websocket (adapters/ws.h), the REST
 * queue (rest.h) and the interaction codecs (interaction.h), on the
 * program's one libuv loop.  docs/discord.md walks through it.
 *
 *	struct discord_config cfg = { .token = token };
 *	struct adapter *a = discord_adapter_new(&cfg, &err);
 *	adapter_start(a, loop, &err);
 *	uv_run(loop, UV_RUN_DEFAULT);	// until a signal or a fatal close
 *	code = discord_adapter_exit_code(a);
 *	adapter_stop(a); uv_run(loop, UV_RUN_DEFAULT); adapter_free(a);
 *
 * What players see:
 *   - a slash command is answered by its interaction: private answers and
 *     errors ephemeral, public ones visible; an interaction that arrives
 *     late (its snowflake older than DISCORD_DEFER_AFTER_MS) is deferred
 *     first and completed by editing the original response;
 *   - `/play move` autocompletes from the caller's legal moves;
 *   - board messages carry "My hand" / "My moves" buttons, nothing else;
 *     their custom_id names the session and version, so the manager
 *     refuses stale clicks;
 *   - the private answer to My moves or /moves carries a select of the
 *     caller's moves (at most 25, from on_complete), named by session,
 *     position (on_position) and user: never on a public message;
 *   - display names are cleaned where interactions are decoded;
 *   - private updates go by DM only to players who turned DM notifications
 *     on; a refused DM (50007) becomes a channel mention with the buttons.
 *
 * Secrets: the bot token goes only to the REST queue and the gateway
 * machine; interaction tokens only into request paths.  Nothing logged
 * here contains either.
 */
#ifndef ADAPTERS_DISCORD_DISCORD_H
#define ADAPTERS_DISCORD_DISCORD_H

#include <stdint.h>

#include "adapters/adapter.h"
#include "util/buf.h"

/* Interactions older than this when they reach us are deferred first. */
#define DISCORD_DEFER_AFTER_MS 1500
/* A failed GET /gateway/bot is retried after this long. */
#define DISCORD_GATEWAY_BOT_RETRY_MS 5000

/* Exit status when Discord refuses the token over REST (as 4004 does). */
#define DISCORD_EXIT_AUTH 14

struct discord_config {
	const char *token;		/* required, without "Bot " */
	const char *application_id;	/* NULL: learnt from READY */
	const char *api_url;		/* NULL: DISCORD_REST_DEFAULT_BASE */
	/* 1: api_url names a shared REST proxy (DISCORD_API_PROXY=1,
	 * docs/deploy.md): it may then be plain http:// to a private address
	 * or unix:/path, and interaction callbacks go to direct_url */
	int api_proxy;
	const char *direct_url;		/* NULL: DISCORD_REST_DEFAULT_BASE */
	const char *gateway_url;	/* NULL: asked with GET /gateway/bot */
	const char *guild_id;		/* commands per guild; NULL: global */
	int shard_id, shard_count;	/* shard_count 0: no sharding */
	uint64_t seed;			/* jitter of backoffs and heartbeats */
	/* REST requests queued or in flight at most (DISCORD_REST_QUEUE);
	 * 0: DISCORD_REST_QUEUE_DEFAULT.  See discord_adapter_new(). */
	size_t rest_queue;
};

#define DISCORD_REST_QUEUE_DEFAULT 4096
#define DISCORD_REST_QUEUE_MIN 16
#define DISCORD_REST_QUEUE_MAX 1000000

/*
 * A new, unstarted adapter (every string copied), or NULL with err filled
 * for a bad configuration: missing token, ids that are not snowflakes, a
 * URL refused by http_url_allowed() (plain http/ws only to loopback), a
 * shard or a rest_queue out of range.  Free with adapter_free().
 *
 * Back-pressure: the REST queue holds at most rest_queue requests, and its
 * last eighth (at least 4) is kept for answering interactions.  When Discord
 * takes requests more slowly than they come (an outage, a rate-limited
 * channel) and only that reserve and a command's headroom are left, the
 * adapter is "busy": commands
 * and clicks are answered privately "try again in a minute" without being
 * run (so nothing new piles up), autocompletion offers nothing, and an
 * outbox message that does not fit is refused to the manager, which keeps
 * it in the store's outbox (sent again at the next start).  Entering and
 * leaving that state (at half the queue) are logged once each.
 * The adapter is busy too while Discord does not answer through the REST
 * queue (discord_rest_down(): Discord, or the proxy, out of reach): the
 * queued messages wait, none is given up, and they go when it answers.
 */
struct adapter *discord_adapter_new(const struct discord_config *cfg, struct buf *err);

/* 0 while running; after the gateway said the bot must not reconnect
 * (a bad token, disallowed intents...), the exit status to end with. */
int discord_adapter_exit_code(const struct adapter *a);

/* The REST queue's counters (rate-limit waits, 429s, failures) while the
 * adapter runs, else NULL. */
struct discord_rest_stats;
const struct discord_rest_stats *discord_adapter_rest_stats(const struct adapter *a);

/* Parses DISCORD_SHARD's "id/count"; 0, or -1 when malformed. */
int discord_shard_parse(const char *s, int *id, int *count);

#endif
