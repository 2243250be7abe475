/*
 * ops: health, readiness and metrics over HTTP.  See ops.h.
 */
#include "bot/ops.h"

#include <string.h>

#include "games/game.h"
#include "util/logging.h"
#include "util/meters.h"

#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

static int count_game(void *ctx, const char *game, int status, int64_t n)
{
	unsigned g = meters_game(game);

	if (status == 0 || status == 1)
		/* "other" may gather several unknown games: add, not set */
		metric_add(&met_games, g, status == 0 ? METER_GAME_LOBBY : METER_GAME_ACTIVE, n);
	return 0;
}

/* Reads the store's figures unless they are fresh (OPS_STORE_EVERY_MS). */
static void read_store(struct ops *o)
{
	struct buf err = BUF_INIT;
	uint64_t now;
	unsigned g, st;

	uv_update_time(o->loop);
	now = uv_now(o->loop);
	if (o->read_at && now - o->read_at < OPS_STORE_EVERY_MS)
		return;
	o->read_at = now;
	for (g = 0; g < met_games.labels[0].n; g++)
		for (st = 0; st < METER_NGAME_STATES; st++)
			metric_set(&met_games, g, st, 0);
	memset(&o->stats, 0, sizeof(o->stats));
	if (store_stats(o->store, &o->stats, count_game, NULL, &err)) {
		if (o->store_ok)	/* told once per outage */
			log_warn("ops: the store does not answer: %s", buf_str(&err));
		o->store_ok = 0;
	} else {
		o->store_ok = 1;
	}
	buf_release(&err);
	metric_set(&met_outbox_pending, 0, 0, o->stats.outbox_pending);
	if (o->stats.outbox_oldest > 0) {
		int64_t age = o->now(o->now_ctx) - o->stats.outbox_oldest;

		metric_set(&met_outbox_oldest_age, 0, 0, age > 0 ? age : 0);
	} else {
		metric_set(&met_outbox_oldest_age, 0, 0, 0);
	}
}

int ops_ready(struct ops *o, struct buf *why)
{
	buf_reset(why);
	read_store(o);
	if (!o->store_ok)
		buf_addstr(why, "store: not answering\n");
	if (o->discord && !metric_get(&met_platform_connected, METER_DISCORD, 0))
		buf_addstr(why, "discord: the gateway is not connected (or this process stands"
			   " by for another's shard)\n");
	if (o->matrix && !metric_get(&met_platform_connected, METER_MATRIX, 0))
		buf_addstr(why, "matrix: not syncing (or this process stands by)\n");
	return why->len == 0;
}

void ops_metrics(struct ops *o, struct buf *out)
{
	int64_t last;

	read_store(o);
	last = metric_get(&met_matrix_last_sync, 0, 0);
	if (o->matrix)
		metric_set(&met_matrix_sync_lag, 0, 0,
			   last ? meters_unix_ms() - last
			   : meters_unix_ms() - metric_get(&met_start_time, 0, 0) * 1000);
	if (o->http) {
		struct httpd_stats hs;

		httpd_stats(o->http, &hs);
		metric_set(&met_web_streams, 0, 0, (int64_t)hs.streams);
		metric_set(&met_web_refused, 0, 0, (int64_t)hs.rate_limited);
		metric_set(&met_web_refused, 1, 0, (int64_t)hs.streams_refused);
		metric_set(&met_web_refused, 2, 0, (int64_t)hs.streams_dropped);
	}
	metrics_write(out, meters_all, meters_count);
}

static void on_healthz(void *ctx, struct httpd_response *rs)
{
	buf_addstr(&rs->body, "ok\n");
}

static void on_readyz(void *ctx, struct httpd_response *rs)
{
	if (ops_ready(ctx, &rs->body)) {
		buf_addstr(&rs->body, "ready\n");
	} else {
		rs->status = 503;
	}
}

static void on_metrics(void *ctx, struct httpd_response *rs)
{
	rs->type = PROM_TYPE;
	ops_metrics(ctx, &rs->body);
}

int ops_start(struct ops *o, uv_loop_t *loop, const char *spec, int allow_public,
	      struct buf *err)
{
	const struct game_ops *const *all = game_all();
	const char *ids[METER_MAX_GAMES];
	unsigned n = 0;

	while (all[n] && n < METER_MAX_GAMES) {
		ids[n] = all[n]->id;
		n++;
	}
	meters_init(ids, n);
	metric_set(&met_start_time, 0, 0, meters_unix_ms() / 1000);
	metric_set(&met_platform_configured, METER_DISCORD, 0, o->discord);
	metric_set(&met_platform_configured, METER_MATRIX, 0, o->matrix);
	o->loop = loop;
	o->gone = 0;
	o->store_ok = 1;
	o->http = httpd_new(loop, spec, allow_public, &o->gone, err);
	if (!o->http)
		return -1;	/* o->gone follows (the loop runs in main) */
	if (httpd_route(o->http, "/healthz", on_healthz, o) ||
	    httpd_route(o->http, "/readyz", on_readyz, o) ||
	    httpd_route(o->http, "/metrics", on_metrics, o)) {
		buf_setf(err, "http: the route table is full");
		ops_stop(o);
		return -1;
	}
	return 0;
}

int ops_port(const struct ops *o)
{
	return o->http ? httpd_port(o->http) : 0;
}

void ops_stop(struct ops *o)
{
	httpd_free(o->http);	/* o->gone follows */
	o->http = NULL;
}
