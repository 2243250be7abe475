/*
 * meters: the catalog of the bot's metrics (see meters.h; the names, types
 * and meanings are listed for operators in docs/deploy.md, "Metrics").
 */
#include "util/meters.h"

#include <string.h>
#include <time.h>

#include <uv.h>

#include "util/version.h"

static const char *const platforms[] = { "console", "discord", "matrix", "other" };
static const char *const outcomes[] = { "ok", "answered", "refused", "throttled", "failed" };
static const char *const commits[] = { "ok", "conflict", "fenced", "failed" };
/* HTTP status classes; "none": no answer (connection refused, time-out) */
static const char *const statuses[] = { "none", "1xx", "2xx", "3xx", "4xx", "429", "5xx" };
static const char *const game_states[] = { "lobby", "active" };
/* the operators' routes, then the games' pages (/g/…) and their files
 * (/static/…) */
static const char *const routes[] = { "healthz", "readyz", "metrics", "g", "static", "other" };
static const char *const refusals[] = { "rate", "streams", "dropped" };
/* the build's (VERSION) */
static const char *const versions[] = { tabula_version };
/* the registry's ids, then "other" (meters_init) */
static const char *game_values[METER_MAX_GAMES + 1] = { "other" };

#define L_PLATFORM { "platform", platforms, METER_NPLATFORMS }
/* latency buckets in microseconds: 0.5 ms to 5 s */
#define LATENCY_BOUNDS { 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, \
			 500000, 1000000, 2500000, 5000000 }

struct metric met_commands = {
	.name = "tabula_commands_total",
	.help = "Commands handled, by platform and outcome.",
	.type = METRIC_COUNTER, .nlabels = 2,
	.labels = { L_PLATFORM, { "outcome", outcomes, METER_NOUTCOMES } },
};

struct metric met_command_seconds = {
	.name = "tabula_command_duration_seconds",
	.help = "Time the event loop spent on one command, store commit included.",
	.type = METRIC_HISTOGRAM, .nlabels = 1, .labels = { L_PLATFORM },
	.bounds = LATENCY_BOUNDS, .nbounds = 13, .scale = 1e6,
};

struct metric met_commit_seconds = {
	.name = "tabula_store_commit_duration_seconds",
	.help = "Time of one store commit (a move, its messages, the game's state).",
	.type = METRIC_HISTOGRAM,
	.bounds = LATENCY_BOUNDS, .nbounds = 13, .scale = 1e6,
};

struct metric met_commits = {
	.name = "tabula_store_commits_total",
	.help = "Store commits, by outcome.",
	.type = METRIC_COUNTER, .nlabels = 1,
	.labels = { { "outcome", commits, METER_NCOMMITS } },
};

struct metric met_outbox_pending = {
	.name = "tabula_outbox_pending",
	.help = "Messages committed but not yet confirmed delivered (the whole store).",
	.type = METRIC_GAUGE,
};

struct metric met_outbox_oldest_age = {
	.name = "tabula_outbox_oldest_age_seconds",
	.help = "Age of the oldest message not yet delivered; 0 when none waits.",
	.type = METRIC_GAUGE,
};

struct metric met_platform_requests = {
	.name = "tabula_platform_requests_total",
	.help = "HTTP requests to a platform's API (Discord REST, Matrix), by status class.",
	.type = METRIC_COUNTER, .nlabels = 2,
	.labels = { L_PLATFORM, { "status", statuses, 7 } },
};

struct metric met_ratelimit_waits = {
	.name = "tabula_ratelimit_waits_total",
	.help = "Requests that waited for a rate limit before they were sent.",
	.type = METRIC_COUNTER, .nlabels = 1, .labels = { L_PLATFORM },
};

struct metric met_gateway_reconnects = {
	.name = "tabula_discord_gateway_reconnects_total",
	.help = "Discord gateway connections opened again after one ended.",
	.type = METRIC_COUNTER,
};

struct metric met_gateway_resumes = {
	.name = "tabula_discord_gateway_resumes_total",
	.help = "Discord gateway sessions resumed (RESUMED received).",
	.type = METRIC_COUNTER,
};

struct metric met_platform_connected = {
	.name = "tabula_platform_connected",
	.help = "1 while the platform is connected (Discord gateway ready, Matrix syncing).",
	.type = METRIC_GAUGE, .nlabels = 1, .labels = { L_PLATFORM },
};

struct metric met_platform_configured = {
	.name = "tabula_platform_configured",
	.help = "1 for the platforms this process is configured to serve (Discord, Matrix).",
	.type = METRIC_GAUGE, .nlabels = 1, .labels = { L_PLATFORM },
};

struct metric met_matrix_last_sync = {
	.name = "tabula_matrix_last_sync_timestamp_seconds",
	.help = "When the Matrix homeserver last answered a /sync (unix time).",
	.type = METRIC_GAUGE, .scale = 1000,
};

struct metric met_matrix_sync_lag = {
	.name = "tabula_matrix_sync_lag_seconds",
	.help = "Seconds since the last /sync answer (a long poll answers within 30 s).",
	.type = METRIC_GAUGE, .scale = 1000,
};

struct metric met_matrix_held = {
	.name = "tabula_matrix_held_events",
	.help = "Encrypted Matrix events held until their room key arrives.",
	.type = METRIC_GAUGE,
};

struct metric met_leases_held = {
	.name = "tabula_leases_held",
	.help = "Store leases this process holds (its node, a Discord shard, the Matrix sync).",
	.type = METRIC_GAUGE,
};

struct metric met_ai_queue = {
	.name = "tabula_ai_queue_depth",
	.help = "AI searches queued or running on worker threads.",
	.type = METRIC_GAUGE,
};

/* The session manager's picture streams set it (bot/pictures.c): pictures
 * whose text went, waiting for a painter or being painted. */
struct metric met_paint_queue = {
	.name = "tabula_paint_queue_depth",
	.help = "Pictures waiting to be painted or being painted.",
	.type = METRIC_GAUGE,
};

struct metric met_games = {
	.name = "tabula_games",
	.help = "Games open in the store, by game and state (the whole store).",
	.type = METRIC_GAUGE, .nlabels = 2,
	.labels = { { "game", game_values, 1 }, { "state", game_states, METER_NGAME_STATES } },
};

struct metric met_listener_requests = {
	.name = "tabula_http_requests_total",
	.help = "Requests to this operator listener, by route and status class.",
	.type = METRIC_COUNTER, .nlabels = 2,
	.labels = { { "route", routes, 6 }, { "status", statuses, 7 } },
};

struct metric met_web_streams = {
	.name = "tabula_web_streams",
	.help = "Event streams open on this listener: the viewers of the games' pages.",
	.type = METRIC_GAUGE,
};

struct metric met_web_refused = {
	.name = "tabula_http_refused_total",
	.help = "Requests or streams this listener refused, by why: rate (429 to one address), "
		"streams (over a stream cap), dropped (a viewer that did not read).",
	.type = METRIC_COUNTER, .nlabels = 1, .labels = { { "why", refusals, 3 } },
};

struct metric met_start_time = {
	.name = "tabula_start_time_seconds",
	.help = "When this process started (unix time).",
	.type = METRIC_GAUGE,
};

struct metric met_build_info = {
	.name = "tabula_build_info",
	.help = "Always 1; the version is the label.",
	.type = METRIC_GAUGE, .nlabels = 1, .labels = { { "version", versions, 1 } },
};

struct metric *const meters_all[] = {
	&met_commands, &met_command_seconds, &met_commit_seconds, &met_commits,
	&met_outbox_pending, &met_outbox_oldest_age, &met_platform_requests,
	&met_ratelimit_waits, &met_gateway_reconnects, &met_gateway_resumes,
	&met_platform_connected, &met_platform_configured, &met_matrix_last_sync, &met_matrix_sync_lag,
	&met_matrix_held, &met_leases_held, &met_ai_queue, &met_paint_queue, &met_games,
	&met_listener_requests, &met_web_streams, &met_web_refused, &met_start_time,
	&met_build_info,
};
const unsigned meters_count = sizeof(meters_all) / sizeof(meters_all[0]);

void meters_init(const char *const *game_ids, unsigned n)
{
	unsigned i;

	if (n > METER_MAX_GAMES)
		n = METER_MAX_GAMES;
	for (i = 0; i < n; i++)
		game_values[i] = game_ids[i];
	game_values[n] = "other";
	met_games.labels[0].n = n + 1;
	metric_set(&met_build_info, 0, 0, 1);
}

unsigned meters_platform(const char *name)
{
	unsigned i = metric_value(&met_commands, 0, name);

	return i < METER_NPLATFORMS ? i : METER_PLATFORM_OTHER;
}

unsigned meters_game(const char *id)
{
	unsigned i = metric_value(&met_games, 0, id);

	return i < met_games.labels[0].n ? i : met_games.labels[0].n - 1;
}

unsigned meters_status(long status)
{
	if (status == 429)
		return 5;
	if (status < 100 || status > 599)
		return 0;
	return status >= 500 ? 6 : (unsigned)(status / 100);
}

void meters_request(unsigned platform, long status)
{
	metric_inc(&met_platform_requests, platform, meters_status(status));
}

int64_t meters_since_us(uint64_t start_ns)
{
	return (int64_t)((uv_hrtime() - start_ns) / 1000);
}

int64_t meters_unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
