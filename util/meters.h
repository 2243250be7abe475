/*
 * meters: the bot's metrics, the catalog (util/metrics.h is the registry).
 * Every metric the bot exposes is declared here and defined in meters.c,
 * with its labels' fixed value sets; docs/deploy.md lists them for
 * operators.  Modules bump them with one line each, e.g.
 *
 *	metric_inc(&met_gateway_resumes, 0, 0);
 *	metric_observe(&met_commit_seconds, 0, 0, elapsed_us);
 *
 * Labels: platform (METER_PLATFORM_*), outcome, status class, game id (the
 * registry's, set by meters_init) — never a user, room or token.
 */
#ifndef UTIL_METERS_H
#define UTIL_METERS_H

#include <stdint.h>

#include "util/metrics.h"

/* label "platform" */
enum meter_platform {
	METER_CONSOLE,
	METER_DISCORD,
	METER_MATRIX,
	METER_PLATFORM_OTHER,
	METER_NPLATFORMS,
};

/* label "outcome" of a command (docs/deploy.md says what each means) */
enum meter_outcome {
	METER_OK,		/* it changed something (stored) */
	METER_ANSWERED,		/* answered, nothing to change: a view, help */
	METER_REFUSED,		/* bad text, not allowed now, an illegal move */
	METER_THROTTLED,	/* the per-user throttle refused it */
	METER_FAILED,		/* the store failed, or an internal error */
	METER_NOUTCOMES,
};

/* label "outcome" of a store commit */
enum meter_commit {
	METER_COMMIT_OK,
	METER_COMMIT_CONFLICT,	/* another process changed the game first */
	METER_COMMIT_FENCED,	/* this process no longer holds the lease */
	METER_COMMIT_FAILED,
	METER_NCOMMITS,
};

/* label "state" of a game */
enum meter_game_state { METER_GAME_LOBBY, METER_GAME_ACTIVE, METER_NGAME_STATES };

#define METER_MAX_GAMES 15	/* the game label's values; one more: "other" */

extern struct metric met_commands;		/* {platform, outcome} */
extern struct metric met_command_seconds;	/* {platform} */
extern struct metric met_commit_seconds;
extern struct metric met_commits;		/* {outcome} */
extern struct metric met_outbox_pending;
extern struct metric met_outbox_oldest_age;	/* seconds */
extern struct metric met_platform_requests;	/* {platform, status}: HTTP requests */
extern struct metric met_ratelimit_waits;	/* {platform} */
extern struct metric met_gateway_reconnects;
extern struct metric met_gateway_resumes;
extern struct metric met_platform_connected;	/* {platform}: 0 or 1 */
extern struct metric met_platform_configured;	/* {platform}: 0 or 1 */
extern struct metric met_matrix_last_sync;	/* unix ms of the last /sync answer */
extern struct metric met_matrix_sync_lag;	/* ms since then (set at scrape) */
extern struct metric met_matrix_held;
extern struct metric met_leases_held;
extern struct metric met_ai_queue;
extern struct metric met_paint_queue;
/* bot/ops.c sets them from the listener's counts (httpd_stats) */
extern struct metric met_web_streams;
extern struct metric met_web_refused;
extern struct metric met_games;			/* {game, state} */
extern struct metric met_listener_requests;	/* {route, status} */
extern struct metric met_start_time;
extern struct metric met_build_info;		/* {version} */

/* Every metric above, for the exposition and the tests. */
extern struct metric *const meters_all[];
extern const unsigned meters_count;

/*
 * The game label's values: the registry's ids (borrowed for ever; at most
 * METER_MAX_GAMES, the rest count as "other").  Call once, before a scrape.
 */
void meters_init(const char *const *game_ids, unsigned n);

/* Label indexes from strings: an unknown platform is METER_PLATFORM_OTHER,
 * an unknown game "other". */
unsigned meters_platform(const char *name);
unsigned meters_game(const char *id);
/* The status label's index for an HTTP status (0: no answer at all). */
unsigned meters_status(long status);

/* One HTTP request a platform adapter made: the one-line bump. */
void meters_request(unsigned platform, long status);

/* The time now, unix milliseconds (wall clock). */
int64_t meters_unix_ms(void);
/* Microseconds from a uv_hrtime()-style nanosecond stamp to now. */
int64_t meters_since_us(uint64_t start_ns);

#endif
