/*
 * discord: the adapter's wiring — the adapter_ops table, its start, stop
 * and free, the configuration's checks, and what every room of the adapter
 * shares (discord_int.h): the list of requests in flight and the pictures
 * that follow.  See discord.h for what the adapter does and
 * docs/discord.md for its rooms and request flows.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord_int.h"
#include "adapters/http.h"
#include "util/meters.h"

struct follow *dsc_follow_add(struct discord *d, uint64_t id, enum follow_where where)
{
	struct follow *f = xcalloc(1, sizeof(*f));

	f->id = id;
	f->where = where;
	f->next = d->follows;
	d->follows = f;
	return f;
}

/* Takes the follow of id out of the list (NULL: not there). */
struct follow *dsc_follow_take(struct discord *d, uint64_t id)
{
	struct follow **at = &d->follows, *f;

	while ((f = *at) && f->id != id)
		at = &f->next;
	if (f)
		*at = f->next;
	return f;
}

/* Forgets the follows of a post or interaction being freed. */
void dsc_follow_forget(struct discord *d, const struct post *p, const struct ix *x)
{
	struct follow **at = &d->follows, *f;

	while ((f = *at)) {
		if ((p && f->p == p) || (x && f->x == x)) {
			*at = f->next;
			free(f);
		} else {
			at = &f->next;
		}
	}
}

void dsc_live_add(struct discord *d, struct live *l, void (*release)(struct live *))
{
	l->release = release;
	l->next = d->live.next;
	l->prev = &d->live;
	d->live.next->prev = l;
	d->live.next = l;
}

void dsc_live_del(struct live *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = l;
}

struct discord *dsc_downcast(struct adapter *a)
{
	return (struct discord *)a;
}

int dsc_is_snowflake(const char *s)
{
	size_t n = 0;

	if (!s || !*s)
		return 0;
	for (; s[n]; n++)
		if (s[n] < '0' || s[n] > '9')
			return 0;
	return n < DISCORD_SNOWFLAKE_SIZE;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

int discord_shard_parse(const char *s, int *id, int *count)
{
	char *end;
	long a, b;

	if (!s || !*s)
		return -1;
	errno = 0;
	a = strtol(s, &end, 10);
	if (end == s || *end != '/' || errno)
		return -1;
	s = end + 1;
	b = strtol(s, &end, 10);
	if (end == s || *end || errno || a < 0 || b < 1 || a >= b || b > 65535)
		return -1;
	*id = (int)a;
	*count = (int)b;
	return 0;
}

static void on_handle_closed(uv_handle_t *h)
{
	struct discord *d = h->data;

	d->nhandles_open--;
}

static int discord_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	struct discord *d = dsc_downcast(a);
	struct discord_rest_config rc;
	uv_timer_t *timers[] = { &d->gw_timer, &d->connect_timer, &d->send_timer,
				 &d->retry_timer };
	size_t i;

	d->loop = loop;
	memset(&rc, 0, sizeof(rc));
	rc.token = d->token;
	rc.base_url = d->api_url;
	rc.proxy = d->api_proxy;
	rc.direct_url = d->direct_url;
	rc.on_down = dsc_on_rest_down;
	rc.ctx = d;
	rc.seed = d->seed;
	rc.max_pending = d->rest_max;
	d->rest = discord_rest_new(loop, &rc, err);
	if (!d->rest)
		return -1;
	d->ws = ws_client_new(loop, err);
	if (!d->ws) {
		discord_rest_free(d->rest);
		d->rest = NULL;
		return -1;
	}
	for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		uv_timer_init(loop, timers[i]);
		timers[i]->data = d;
		d->nhandles_open++;
	}
	d->started = 1;
	ratelimit_window_init(&d->window, RATELIMIT_GATEWAY_SENDS, RATELIMIT_GATEWAY_PERIOD_MS);
	gateway_init(&d->gw, d->token, GATEWAY_INTENTS_DEFAULT, d->shard_id, d->shard_count,
		     d->seed);
	dsc_register_commands(d);
	dsc_ask_gateway_url(d);
	return 0;
}

static void discord_stop(struct adapter *a)
{
	struct discord *d = dsc_downcast(a);
	uv_timer_t *timers[] = { &d->gw_timer, &d->connect_timer, &d->send_timer,
				 &d->retry_timer };
	size_t i;

	if (!d->started || d->stopping)
		return;
	d->stopping = 1;
	metric_set(&met_platform_connected, METER_DISCORD, 0, 0);
	dsc_sendq_clear(d);
	for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++)
		uv_close((uv_handle_t *)timers[i], on_handle_closed);
	ws_client_free(d->ws);
	d->ws = NULL;
	discord_rest_free(d->rest);
	d->rest = NULL;
	while (d->live.next != &d->live)
		d->live.next->release(d->live.next);
}

static void discord_free(struct adapter *a)
{
	struct discord *d = dsc_downcast(a);

	if (d->started)
		gateway_release(&d->gw);
	while (d->follows) {	/* none left by stop(); an adapter never started */
		struct follow *f = d->follows;

		d->follows = f->next;
		free(f);
	}
	free(d->connect_url);
	if (d->token) {
		memset(d->token, 0, strlen(d->token));
		free(d->token);
	}
	free(d->app_id);
	free(d->api_url);
	free(d->direct_url);
	free(d->gateway_url);
	free(d->guild_id);
	free(d);
}

static const struct adapter_ops discord_ops = {
	.api_version = ADAPTER_API_VERSION,
	.name = "discord",
	.caps = ADAPTER_CAP_PRIVATE_ON_DEMAND | ADAPTER_CAP_IMAGES,
	.start = discord_start,
	.stop = discord_stop,
	.send = dsc_send,
	.reply = dsc_reply,
	.free = discord_free,
	.reply_image = dsc_reply_image,
	.picture = dsc_picture,
};

/* A REST base: http(s) as http_url_allowed() says, or with proxy also to a
 * private address or a proxy's Unix socket (unix:/path; rest.c checks it). */
static int api_url_ok(const char *url, int proxy)
{
	if (proxy && !strncmp(url, "unix:/", 6))
		return 1;
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7))
		return 0;
	return proxy ? http_url_allowed_private(url, NULL) : http_url_allowed(url, NULL);
}

struct adapter *discord_adapter_new(const struct discord_config *cfg, struct buf *err)
{
	struct discord *d;

	if (!cfg->token || !*cfg->token) {
		buf_setf(err, "DISCORD_TOKEN is empty");
		return NULL;
	}
	if (strlen(cfg->token) > 256 || strpbrk(cfg->token, " \t\r\n")) {
		buf_setf(err, "DISCORD_TOKEN does not look like a bot token");
		return NULL;
	}
	if (cfg->application_id && *cfg->application_id && !dsc_is_snowflake(cfg->application_id)) {
		buf_setf(err, "DISCORD_APPLICATION_ID must be a numeric id");
		return NULL;
	}
	if (cfg->guild_id && *cfg->guild_id && !dsc_is_snowflake(cfg->guild_id)) {
		buf_setf(err, "DISCORD_GUILD_ID must be a numeric id");
		return NULL;
	}
	if (cfg->gateway_url && *cfg->gateway_url &&
	    (!http_url_allowed(cfg->gateway_url, err) ||
	     (strncmp(cfg->gateway_url, "wss://", 6) && strncmp(cfg->gateway_url, "ws://", 5)))) {
		buf_setf(err, "DISCORD_GATEWAY_URL must be wss://, or ws:// to a loopback address");
		return NULL;
	}
	if (cfg->api_url && *cfg->api_url && !api_url_ok(cfg->api_url, cfg->api_proxy)) {
		buf_setf(err, cfg->api_proxy
			 ? "DISCORD_API_URL must be https://, http:// to a private address (RFC "
			   "1918, loopback, unique-local IPv6) or unix:/path of the proxy's socket"
			 : "DISCORD_API_URL must be https://, or http:// to a loopback address (a "
			   "REST proxy on a private address: DISCORD_API_PROXY=1)");
		return NULL;
	}
	if (cfg->direct_url && *cfg->direct_url && !api_url_ok(cfg->direct_url, 0)) {
		buf_setf(err, "the direct REST URL must be https://, or http:// to a loopback "
			 "address");
		return NULL;
	}
	if (cfg->shard_count < 0 || (cfg->shard_count &&
				     (cfg->shard_id < 0 || cfg->shard_id >= cfg->shard_count))) {
		buf_setf(err, "DISCORD_SHARD must be id/count with 0 <= id < count");
		return NULL;
	}
	if (cfg->rest_queue && (cfg->rest_queue < DISCORD_REST_QUEUE_MIN ||
				cfg->rest_queue > DISCORD_REST_QUEUE_MAX)) {
		buf_setf(err, "DISCORD_REST_QUEUE must be from %d to %d", DISCORD_REST_QUEUE_MIN,
			 DISCORD_REST_QUEUE_MAX);
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->base.ops = &discord_ops;
	d->live.next = d->live.prev = &d->live;
	d->token = xstrdup(cfg->token);
	d->app_id = dup_or_null(cfg->application_id);
	d->api_url = dup_or_null(cfg->api_url);
	d->api_proxy = cfg->api_proxy != 0;
	d->direct_url = dup_or_null(cfg->direct_url);
	d->gateway_url = dup_or_null(cfg->gateway_url);
	d->guild_id = dup_or_null(cfg->guild_id);
	d->shard_id = cfg->shard_id;
	d->shard_count = cfg->shard_count;
	d->seed = cfg->seed;
	d->rest_max = cfg->rest_queue ? cfg->rest_queue : DISCORD_REST_QUEUE_DEFAULT;
	return &d->base;
}

const struct discord_rest_stats *discord_adapter_rest_stats(const struct adapter *a)
{
	const struct discord *d = (const struct discord *)a;

	return d->rest ? discord_rest_stats(d->rest) : NULL;
}

int discord_adapter_exit_code(const struct adapter *a)
{
	return ((const struct discord *)a)->exit_code;
}
