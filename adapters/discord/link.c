/*
 * discord link: the gateway machine (gateway.h) driven over the websocket —
 * the paced send queue, the socket's callbacks and timers, the machine's
 * actions and dispatches, GET /gateway/bot (the URL, the day's session
 * starts, the recommended shard count) and the slash commands' registration.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord_int.h"
#include "adapters/discord/interaction.h"
#include "adapters/http.h"
#include "games/game.h"
#include "util/logging.h"
#include "util/text.h"

static void on_retry_timer(uv_timer_t *t);

void dsc_register_commands(struct discord *d)
{
	const struct game_ops *const *all = game_all();
	struct discord_game_choice games[DISCORD_CHOICES_MAX + 1];
	char path[160];
	size_t n = 0;
	json_t *cmds;

	if (d->registered || !d->app_id)
		return;
	/* one bot, one command list: with several shard processes the
	 * first shard registers it (the same bulk overwrite from each would
	 * only spend the rate limit) */
	if (d->shard_count > 1 && d->shard_id != 0) {
		d->registered = 1;
		return;
	}
	if (!d->base.commands) {
		/* an empty bulk overwrite would delete every command */
		log_warn("discord: no command table: slash commands not registered");
		return;
	}
	for (; all[n] && n < DISCORD_CHOICES_MAX; n++) {
		games[n].id = all[n]->id;
		games[n].name = all[n]->name[LOC_EN];
		games[n].name_es = all[n]->name[LOC_ES];
	}
	games[n].id = NULL;
	if (d->guild_id)
		snprintf(path, sizeof(path), "/applications/%s/guilds/%s/commands", d->app_id,
			 d->guild_id);
	else
		snprintf(path, sizeof(path), "/applications/%s/commands", d->app_id);
	cmds = discord_commands_json(d->base.commands, games);
	dsc_submit_noted(d, "PUT", path, cmds, "registering the slash commands");
	json_decref(cmds);
	d->registered = 1;
	log_info("discord: slash commands registered %s%s", d->guild_id ? "in guild " : "globally",
		 d->guild_id ? d->guild_id : "");
}

static void drain(struct discord *d);

void dsc_sendq_clear(struct discord *d)
{
	while (d->sendq_len) {
		free(d->sendq[d->sendq_head]);
		d->sendq_head = (d->sendq_head + 1) % SENDQ_MAX;
		d->sendq_len--;
	}
	if (d->started)
		uv_timer_stop(&d->send_timer);
}

static void on_send_timer(uv_timer_t *t);

static void sendq_pump(struct discord *d)
{
	struct buf err = BUF_INIT;

	while (d->sendq_len) {
		char *text = d->sendq[d->sendq_head];
		uint64_t wait;

		if (ratelimit_window_acquire(&d->window, uv_now(d->loop), &wait)) {
			uv_timer_start(&d->send_timer, on_send_timer, wait, 0);
			break;
		}
		d->sendq_head = (d->sendq_head + 1) % SENDQ_MAX;
		d->sendq_len--;
		if (ws_send_text(d->ws, text, strlen(text), &err))
			log_warn("discord: gateway send dropped: %s", buf_str(&err));
		/* the Identify and Resume payloads hold the token: wipe them */
		memset(text, 0, strlen(text));
		free(text);
	}
	buf_release(&err);
}

static void on_send_timer(uv_timer_t *t)
{
	sendq_pump(t->data);
}

static void gw_send(struct discord *d, char *text)
{
	if (d->sendq_len == SENDQ_MAX) {
		log_warn("discord: gateway send queue full; payload dropped");
		free(text);
		return;
	}
	d->sendq[(d->sendq_head + d->sendq_len) % SENDQ_MAX] = text;
	d->sendq_len++;
	sendq_pump(d);
}

static void on_ws_open(void *ctx)
{
	struct discord *d = ctx;

	log_debug("discord: gateway socket open");
	gateway_on_open(&d->gw, uv_now(d->loop));
	drain(d);
}

static void on_ws_text(void *ctx, const void *data, size_t len, int is_final)
{
	struct discord *d = ctx;

	gateway_frame_append(&d->gw, data, len, is_final, uv_now(d->loop));
	drain(d);
}

static void on_ws_close(void *ctx, int code)
{
	struct discord *d = ctx;

	log_info("discord: gateway connection closed (code %d)", code);
	dsc_sendq_clear(d);
	if (d->stopping)
		return;
	gateway_on_close(&d->gw, code, uv_now(d->loop));
	drain(d);
}

static const struct ws_callbacks ws_cbs = {
	.on_open = on_ws_open,
	.on_text = on_ws_text,
	.on_close = on_ws_close,
};

static void on_connect_timer(uv_timer_t *t)
{
	struct discord *d = t->data;
	struct buf err = BUF_INIT;

	if (!d->connect_url || d->stopping)
		return;
	if (ws_connect(d->ws, d->connect_url, NULL, 0, &ws_cbs, d, &err)) {
		log_warn("discord: cannot connect to the gateway: %s", buf_str(&err));
		gateway_on_close(&d->gw, 0, uv_now(d->loop));
		drain(d);
	}
	buf_release(&err);
}

static void on_gw_timer(uv_timer_t *t)
{
	struct discord *d = t->data;

	gateway_on_timer(&d->gw, uv_now(d->loop));
	drain(d);
}

static void dispatch(struct discord *d, const char *event, const json_t *payload)
{
	if (!strcmp(event, "READY")) {
		const char *app = gateway_application_id(&d->gw);
		json_t *user = json_object_get(payload, "user");
		json_t *name = json_object_get(user, "username");
		char shown[TEXT_NAME_MAX_CHARS * 4 + 1];

		/* a name is anybody's text, even in a log line */
		log_info("discord: connected as %s",
			 json_is_string(name) && text_clean_name(json_string_value(name),
								 json_string_length(name), shown,
								 sizeof(shown))
			 ? shown : "(unknown)");
		if (!d->app_id && app && dsc_is_snowflake(app))
			d->app_id = xstrdup(app);
		dsc_register_commands(d);
	} else if (!strcmp(event, "RESUMED")) {
		log_info("discord: session resumed");
	} else if (!strcmp(event, "INTERACTION_CREATE")) {
		dsc_ix_handle(d, payload);
	}
}

static void drain(struct discord *d)
{
	struct gateway_action act;

	if (d->draining || !d->gw_started)
		return;
	d->draining = 1;
	while (gateway_next_action(&d->gw, &act)) {
		uint64_t now = uv_now(d->loop);

		switch (act.kind) {
		case GATEWAY_SEND:
			gw_send(d, act.text);
			act.text = NULL;
			break;
		case GATEWAY_CLOSE:
			ws_close(d->ws, act.code);
			break;
		case GATEWAY_CONNECT:
			free(d->connect_url);
			d->connect_url = act.text;
			act.text = NULL;
			if (act.ms)
				log_info("discord: reconnecting in %llu ms", (unsigned long long)act.ms);
			uv_timer_start(&d->connect_timer, on_connect_timer, act.ms, 0);
			/* other shards spend the same session starts: fresh
			 * figures before every Identify but the first */
			if (gateway_will_identify(&d->gw) && !d->fetching &&
			    now - d->fetched_at >= GATEWAY_IDENTIFY_GAP_MS)
				dsc_ask_gateway_url(d);
			break;
		case GATEWAY_TIMER:
			uv_timer_start(&d->gw_timer, on_gw_timer, act.ms > now ? act.ms - now : 0, 0);
			break;
		case GATEWAY_DISPATCH:
			if (act.text && !d->stopping)
				dispatch(d, act.text, act.d);
			break;
		case GATEWAY_LOG:
			log_warn("discord: %s", act.text ? act.text : "gateway note");
			break;
		case GATEWAY_FATAL:
			log_err("discord: %s (exit %d)", act.text ? act.text : "fatal gateway close",
				act.code);
			d->exit_code = act.code;
			uv_stop(d->loop);
			break;
		}
		gateway_action_release(&act);
	}
	d->draining = 0;
}

/* session_start_limit of a GET /gateway/bot answer, to the machine. */
static void take_start_limit(struct discord *d, const json_t *j)
{
	const json_t *l = json_object_get(j, "session_start_limit");
	const json_t *total = json_object_get(l, "total");
	const json_t *left = json_object_get(l, "remaining");
	const json_t *reset = json_object_get(l, "reset_after");
	const json_t *conc = json_object_get(l, "max_concurrency");

	if (!json_is_integer(total) || !json_is_integer(left) || !json_is_integer(reset) ||
	    !json_is_integer(conc) || json_integer_value(reset) < 0) {
		if (!d->warned_no_limit)
			log_warn("discord: GET /gateway/bot gave no session_start_limit; Identify "
				 "calls are paced but not counted");
		d->warned_no_limit = 1;
		return;
	}
	log_info("discord: %lld of %lld session starts left today (refill in %lld s)",
		 (long long)json_integer_value(left), (long long)json_integer_value(total),
		 (long long)json_integer_value(reset) / 1000);
	gateway_set_start_limit(&d->gw, (long)json_integer_value(total),
				(long)json_integer_value(left),
				(uint64_t)json_integer_value(reset),
				(long)json_integer_value(conc), uv_now(d->loop));
}

/*
 * GET /gateway/bot's recommended shard count: Discord closes a gateway
 * with too few shards (4011) once the bot is in 2,500 guilds; before that
 * it says how many it wants.  Told once per count, with what to do
 * (docs/deploy.md: one process per shard, DISCORD_SHARD=i/n or auto/n).
 */
static void check_shards(struct discord *d, const json_t *j)
{
	const json_t *v = json_object_get(j, "shards");
	json_int_t want = json_is_integer(v) ? json_integer_value(v) : 0;
	int have = d->shard_count ? d->shard_count : 1;

	if (want <= have || want > 65535 || want == d->shards_told)
		return;
	d->shards_told = (int)want;
	log_warn("discord: Discord recommends %lld shards and this bot runs %d: run %lld"
		 " processes with DISCORD_SHARD=i/%lld (or auto/%lld), see docs/deploy.md",
		 (long long)want, have, (long long)want, (long long)want, (long long)want);
}

/*
 * GET /gateway/bot: at start the gateway URL (unless DISCORD_GATEWAY_URL
 * names one) and, then and before later Identifies, the day's budget of
 * session starts.  Nothing connects before the first answer.
 */
static void on_gateway_bot(const struct discord_rest_resp *resp, void *ctx)
{
	struct discord *d = ctx;
	json_t *j;
	const char *url;

	d->fetching = 0;
	if (d->stopping)
		return;
	if (resp->status == 401) {
		log_err("discord: the token was refused (HTTP 401): check DISCORD_TOKEN (exit %d)",
			DISCORD_EXIT_AUTH);
		d->exit_code = DISCORD_EXIT_AUTH;
		uv_stop(d->loop);
		return;
	}
	j = resp->status == 200 ? json_loads(buf_str(resp->body), 0, NULL) : NULL;
	url = d->gateway_url ? d->gateway_url : json_string_value(json_object_get(j, "url"));
	if (!j || !url || !http_url_allowed(url, NULL)) {
		json_decref(j);
		if (d->gw_started) {	/* a refresh: the count we keep will do */
			log_warn("discord: GET /gateway/bot failed (HTTP %ld)", resp->status);
			return;
		}
		log_warn("discord: GET /gateway/bot failed (HTTP %ld); retrying in %d ms",
			 resp->status, DISCORD_GATEWAY_BOT_RETRY_MS);
		uv_timer_start(&d->retry_timer, on_retry_timer, DISCORD_GATEWAY_BOT_RETRY_MS, 0);
		return;
	}
	d->fetched_at = uv_now(d->loop);
	if (!d->gw_started)
		gateway_set_base_url(&d->gw, url);
	take_start_limit(d, j);
	check_shards(d, j);
	json_decref(j);
	d->gw_started = 1;
	drain(d);
}

void dsc_ask_gateway_url(struct discord *d)
{
	struct buf err = BUF_INIT;

	if (discord_rest_submit(d->rest, "GET", "/gateway/bot", NULL, on_gateway_bot, d, &err)) {
		log_warn("discord: GET /gateway/bot: %s", buf_str(&err));
		if (!d->gw_started)
			uv_timer_start(&d->retry_timer, on_retry_timer,
				       DISCORD_GATEWAY_BOT_RETRY_MS, 0);
	} else {
		d->fetching = 1;
	}
	buf_release(&err);
}

static void on_retry_timer(uv_timer_t *t)
{
	dsc_ask_gateway_url(t->data);
}
