/*
 * gateway: the Discord gateway protocol (v10, JSON encoding) as a pure state
 * machine.  No sockets, no clock, no globals: the driver (the libwebsockets
 * layer) feeds events in with the current time in milliseconds and drains
 * the actions they produce with gateway_next_action().  Randomness (heartbeat
 * jitter, backoff jitter) comes from a seeded struct rng, so a test replays
 * exactly.  See docs/discord-gateway.md for the protocol walk-through.
 *
 * Driver contract:
 *   - gateway_init() queues the first CONNECT.  For every CONNECT, open a
 *     websocket on `text` after `ms` milliseconds, then call
 *     gateway_on_open(); if the attempt fails call gateway_on_close() with
 *     code 0 (or 1006).
 *   - Feed every complete text message to gateway_on_text(), or every
 *     fragment to gateway_frame_append(), which reassembles them.
 *   - SEND: write `text` as one text message.  CLOSE: close the socket with
 *     `code` and call gateway_on_close() once it is gone (whatever code the
 *     socket reports; the machine already knows what to do next).
 *   - TIMER: call gateway_on_timer() at or after absolute time `ms`.  A TIMER
 *     replaces any earlier one; spurious or late calls are harmless.
 *   - DISPATCH: an event for the bot (`text` = event name, `d` = payload).
 *   - LOG: something unexpected from the server that was ignored; log `text`.
 *   - FATAL: stop the adapter, print `text`, exit with status `code`.
 *     Nothing else happens afterwards (all events are ignored).
 *   After each event, drain the queue until gateway_next_action() returns 0.
 *
 * Secrets: the token appears only inside the Identify and Resume payloads
 * (SEND actions); no LOG or FATAL text ever contains it.
 */
#ifndef ADAPTERS_DISCORD_GATEWAY_H
#define ADAPTERS_DISCORD_GATEWAY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"
#include "util/rng.h"

#define GATEWAY_URL_DEFAULT "wss://gateway.discord.gg/?v=10&encoding=json"
#define GATEWAY_QUERY "?v=10&encoding=json"

/*
 * Intents.  The bot reads READY, RESUMED and INTERACTION_CREATE only, and
 * interactions need no intent, so it subscribes to none: no GUILD_CREATE
 * (GUILDS), whose size grows with a guild and which a resume replays, and
 * no MESSAGE_CREATE (DIRECT_MESSAGES), which nothing reads.  The values
 * are here for the documentation.
 */
enum gateway_intents {
	GATEWAY_INTENT_GUILDS = 1 << 0,
	GATEWAY_INTENT_DIRECT_MESSAGES = 1 << 12,
};
#define GATEWAY_INTENTS_DEFAULT 0

/* Reassembled frames larger than this are refused (see gateway_frame_append). */
#define GATEWAY_FRAME_MAX ((size_t)4 << 20)
/* A connection CONNECTED this long has settled: an oversized message after
 * that is a new problem, not the same one again. */
#define GATEWAY_STABLE_MS 60000
/* The third oversized message in a row waits up to this long (jittered
 * down to half) before identifying again, doubling each time up to the
 * cap. */
#define GATEWAY_BIG_BACKOFF_MS 30000
#define GATEWAY_BIG_BACKOFF_MAX_MS 900000

/*
 * Identify pacing: Discord allows max_concurrency Identify calls per 5 s,
 * and answers more with Invalid Session.  Identifies from one machine are
 * at least GATEWAY_IDENTIFY_GAP_MS apart (jittered up to +50%); each one
 * in a row that is not answered with READY doubles the gap, up to the cap,
 * so an endless Invalid Session loop costs at most ~300 Identifies a day,
 * under Discord's usual daily 1000.
 */
#define GATEWAY_IDENTIFY_GAP_MS 5000
#define GATEWAY_IDENTIFY_GAP_MAX_MS 300000

/* Close code we use when we want the session to stay resumable (anything
 * but 1000/1001, which make Discord invalidate the session). */
#define GATEWAY_CLOSE_RESUMABLE 4900
/* Close code when the session is dead anyway (Invalid Session, d:false). */
#define GATEWAY_CLOSE_NORMAL 1000

/*
 * Exit codes of FATAL actions: the close code minus 3990, so each
 * non-reconnectable close code has its own status.
 */
enum gateway_exit {
	GATEWAY_EXIT_AUTH_FAILED = 14,		/* 4004 */
	GATEWAY_EXIT_INVALID_SHARD = 20,	/* 4010 */
	GATEWAY_EXIT_SHARDING_REQUIRED = 21,	/* 4011 */
	GATEWAY_EXIT_INVALID_API_VERSION = 22,	/* 4012 */
	GATEWAY_EXIT_INVALID_INTENTS = 23,	/* 4013 */
	GATEWAY_EXIT_DISALLOWED_INTENTS = 24,	/* 4014 */
	/* not a close code: the day's session starts are down to the reserve
	 * (gateway_set_start_limit) */
	GATEWAY_EXIT_IDENTIFY_BUDGET = 25,
};

/* Reconnect backoff: attempt n (0-based, since the last READY/RESUMED)
 * waits a uniform delay in [b/2, b) with b = min(BASE << n, MAX). */
#define GATEWAY_BACKOFF_BASE_MS 1000
#define GATEWAY_BACKOFF_MAX_MS 64000

enum gateway_action_kind {
	GATEWAY_SEND,		/* text: JSON payload */
	GATEWAY_CLOSE,		/* code: websocket close code */
	GATEWAY_CONNECT,	/* text: wss URL; ms: delay before connecting */
	GATEWAY_TIMER,		/* ms: absolute time for gateway_on_timer() */
	GATEWAY_DISPATCH,	/* text: event name ("READY"); d: payload */
	GATEWAY_LOG,		/* text: message about ignored server input */
	GATEWAY_FATAL,		/* code: exit status; text: message */
};

/*
 * One action.  Once returned by gateway_next_action() the caller owns it:
 * `text` (malloc'd, may be NULL) and the `d` reference (a new reference,
 * NULL unless DISPATCH) are released by gateway_action_release(), or the
 * caller may take them (set the field to NULL first).
 */
struct gateway_action {
	enum gateway_action_kind kind;
	char *text;
	json_t *d;
	int code;
	uint64_t ms;
};

void gateway_action_release(struct gateway_action *a);

enum gateway_state {
	GATEWAY_DISCONNECTED,	/* a CONNECT is pending */
	GATEWAY_WAIT_HELLO,	/* socket open, Hello not yet seen */
	GATEWAY_IDENTIFYING,	/* Identify sent, waiting for READY */
	GATEWAY_RESUMING,	/* Resume sent, waiting for RESUMED */
	GATEWAY_CONNECTED,	/* READY or RESUMED seen */
	GATEWAY_CLOSING,	/* we sent CLOSE, waiting for gateway_on_close() */
	GATEWAY_DEAD,		/* FATAL was emitted */
};

/* Fields are private to gateway.c; use the accessors below. */
struct gateway {
	enum gateway_state state;
	char *token;
	unsigned intents;
	int shard_id, shard_count;
	struct rng rng;
	char *base_url;

	/* session, kept across reconnects for resuming */
	char *session_id, *resume_url, *app_id;
	int64_t seq;		/* -1: none yet */

	/* heartbeating */
	int hb_active, ack_pending;
	uint64_t hb_interval, hb_next;

	/* reconnecting */
	unsigned attempts;
	uint64_t pending_delay;	/* used by the CONNECT after our own CLOSE */
	uint64_t connected_at;	/* when READY/RESUMED came */

	/* session starts: Discord's budget and our pacing */
	int limit_known;
	long limit_total, limit_remaining;
	unsigned limit_concurrency;
	uint64_t limit_reset_at;
	int identified;		/* an Identify was sent at last_identify */
	uint64_t last_identify;
	unsigned identify_fails;	/* Identifies since the last READY */

	/* frame reassembly */
	struct buf frame;
	int frame_skip;
	unsigned big_strikes;	/* oversized messages with no settled
				 * connection in between */

	/* action queue */
	struct gateway_action *q;
	size_t qhead, qlen, qcap;
};

/*
 * Sets up `g` in place.  Copies `token` (required, non-empty).  `intents`
 * is normally GATEWAY_INTENTS_DEFAULT.  shard_count 0 sends no "shard"
 * field; otherwise 0 <= shard_id < shard_count.  `seed` seeds the jitter.
 * Queues the first CONNECT (base URL, no delay).
 */
void gateway_init(struct gateway *g, const char *token, unsigned intents,
		  int shard_id, int shard_count, uint64_t seed);
/* Frees everything g owns, including undrained actions. */
void gateway_release(struct gateway *g);

/* Replaces the base URL (from GET /gateway/bot, or a test fake); copied.
 * GATEWAY_QUERY is appended when the URL has no '?'.  Affects later
 * CONNECTs, and a CONNECT to the old base URL still in the queue (the
 * first one, when the driver learns the URL before draining). */
void gateway_set_base_url(struct gateway *g, const char *url);

/*
 * What GET /gateway/bot said in session_start_limit: `total` Identify calls
 * a day, `remaining` of them now, the budget refills in `reset_after_ms`,
 * `max_concurrency` Identifies per 5 s.  Out-of-range figures are ignored
 * with a LOG.  The machine counts its own Identifies down from there (a
 * later call replaces the figures: other shards spend the same budget) and
 * never sends one while remaining <= gateway_start_reserve(): it emits
 * FATAL with GATEWAY_EXIT_IDENTIFY_BUDGET instead, at once when an Identify
 * is the next thing to do, so that the operator can restart the bot after
 * fixing what makes it reconnect, before Discord resets the token.  With
 * shards, the first Identify waits (shard_id / max_concurrency) x 5 s, the
 * order Discord expects shards of one bucket to start in.
 */
void gateway_set_start_limit(struct gateway *g, long total, long remaining,
			     uint64_t reset_after_ms, long max_concurrency, uint64_t now);
/* The Identifies kept in reserve: total / 10, at least 1. */
long gateway_start_reserve(const struct gateway *g);
/* 1 when the next connection will Identify (no session to resume). */
int gateway_will_identify(const struct gateway *g);

/* Events.  `now` is a monotonic time in milliseconds. */
void gateway_on_open(struct gateway *g, uint64_t now);
/* One complete text message (not NUL-terminated necessarily). */
void gateway_on_text(struct gateway *g, const char *text, size_t len,
		     uint64_t now);
/* The socket is gone: `code` is the close code (0 if none, e.g. a failed
 * connect). */
void gateway_on_close(struct gateway *g, int code, uint64_t now);
void gateway_on_timer(struct gateway *g, uint64_t now);

/*
 * Collects one fragment of a text message; on the final fragment hands the
 * whole message to gateway_on_text().  A message over GATEWAY_FRAME_MAX is
 * dropped (its later fragments too) with a LOG and a CLOSE.  A resume would
 * replay the same message, so repeats escalate, never looping: the first
 * one resumes; another before a connection settles (GATEWAY_STABLE_MS
 * CONNECTED) drops the session and identifies anew (what happened in
 * between is lost, and logged as such); from the third on, each waits
 * GATEWAY_BIG_BACKOFF_MS doubling to GATEWAY_BIG_BACKOFF_MAX_MS (jittered)
 * before identifying.
 */
void gateway_frame_append(struct gateway *g, const void *data, size_t len,
			  int is_final, uint64_t now);

/* Moves the oldest queued action into *out (caller owns it, see above) and
 * returns 1; returns 0 when the queue is empty. */
int gateway_next_action(struct gateway *g, struct gateway_action *out);

/* Read-only views (borrowed, valid until the next event; NULL if none). */
enum gateway_state gateway_state(const struct gateway *g);
const char *gateway_session_id(const struct gateway *g);
const char *gateway_resume_url(const struct gateway *g);
const char *gateway_application_id(const struct gateway *g);
int64_t gateway_seq(const struct gateway *g);	/* -1 if none */

#endif
