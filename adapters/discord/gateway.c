/*
 * gateway: the Discord gateway state machine (see gateway.h and
 * docs/discord-gateway.md).  Every function here only reads its arguments
 * and `g`, and writes actions to g's queue.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/gateway.h"

#include "adapters/http.h"
#include "util/meters.h"

enum {
	OP_DISPATCH = 0,
	OP_HEARTBEAT = 1,
	OP_IDENTIFY = 2,
	OP_RESUME = 6,
	OP_RECONNECT = 7,
	OP_INVALID_SESSION = 9,
	OP_HELLO = 10,
	OP_HEARTBEAT_ACK = 11,
};

/* A Hello interval outside this range is treated as malformed. */
#define HB_INTERVAL_MAX_MS 3600000

/* ------------------------------------------------------------------ */
/* action queue */

void gateway_action_release(struct gateway_action *a)
{
	free(a->text);
	a->text = NULL;
	if (a->d)
		json_decref(a->d);
	a->d = NULL;
}

/* Takes ownership of text and d. */
static void push(struct gateway *g, enum gateway_action_kind kind, char *text,
		 json_t *d, int code, uint64_t ms)
{
	struct gateway_action *a;

	if (g->qhead == g->qlen)
		g->qhead = g->qlen = 0;
	if (g->qlen == g->qcap) {
		g->qcap = g->qcap ? 2 * g->qcap : 8;
		g->q = xrealloc(g->q, g->qcap * sizeof(*g->q));
	}
	a = &g->q[g->qlen++];
	a->kind = kind;
	a->text = text;
	a->d = d;
	a->code = code;
	a->ms = ms;
}

int gateway_next_action(struct gateway *g, struct gateway_action *out)
{
	if (g->qhead == g->qlen)
		return 0;
	*out = g->q[g->qhead++];
	return 1;
}

static void logf_(struct gateway *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_(struct gateway *g, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_addstr(&b, "discord gateway: ");
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	push(g, GATEWAY_LOG, buf_detach(&b), NULL, 0, 0);
}

/* Takes ownership of payload. */
static void send_json(struct gateway *g, json_t *payload)
{
	char *s = json_dumps(payload, JSON_COMPACT);

	json_decref(payload);
	if (!s)
		abort();	/* only on out-of-memory */
	push(g, GATEWAY_SEND, s, NULL, 0, 0);
}

/* ------------------------------------------------------------------ */
/* lifecycle */

static char *url_with_query(const char *url)
{
	struct buf b = BUF_INIT;

	buf_addstr(&b, url);
	if (!strchr(url, '?')) {
		const char *host = strstr(url, "://");

		/* "wss://host" gets its "/"; "ws://host:1/gateway" keeps its path */
		if (!host || !strchr(host + 3, '/'))
			buf_addch(&b, '/');
		buf_addstr(&b, GATEWAY_QUERY);
	}
	return buf_detach(&b);
}

void gateway_init(struct gateway *g, const char *token, unsigned intents,
		  int shard_id, int shard_count, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->state = GATEWAY_DISCONNECTED;
	g->token = xstrdup(token);
	g->intents = intents;
	g->shard_id = shard_id;
	g->shard_count = shard_count;
	rng_seed(&g->rng, seed, 0x6761746577617931ULL);
	g->base_url = xstrdup(GATEWAY_URL_DEFAULT);
	g->seq = -1;
	buf_init(&g->frame, GATEWAY_FRAME_MAX);
	push(g, GATEWAY_CONNECT, xstrdup(g->base_url), NULL, 0, 0);
}

static void clear_session(struct gateway *g)
{
	free(g->session_id);
	free(g->resume_url);
	g->session_id = g->resume_url = NULL;
	g->seq = -1;
}

void gateway_release(struct gateway *g)
{
	struct gateway_action a;

	while (gateway_next_action(g, &a))
		gateway_action_release(&a);
	free(g->q);
	clear_session(g);
	free(g->app_id);
	free(g->base_url);
	if (g->token) {
		memset(g->token, 0, strlen(g->token));
		free(g->token);
	}
	buf_release(&g->frame);
	memset(g, 0, sizeof(*g));
}

void gateway_set_base_url(struct gateway *g, const char *url)
{
	size_t i;

	/* the first CONNECT, queued by gateway_init() before the driver could
	 * learn the URL, goes to the new one too */
	for (i = g->qhead; i < g->qlen; i++) {
		struct gateway_action *a = &g->q[i];

		if (a->kind == GATEWAY_CONNECT && a->text && !strcmp(a->text, g->base_url)) {
			free(a->text);
			a->text = url_with_query(url);
		}
	}
	free(g->base_url);
	g->base_url = url_with_query(url);
}

int gateway_will_identify(const struct gateway *g) { return !g->session_id; }
enum gateway_state gateway_state(const struct gateway *g) { return g->state; }
const char *gateway_session_id(const struct gateway *g) { return g->session_id; }
const char *gateway_resume_url(const struct gateway *g) { return g->resume_url; }
const char *gateway_application_id(const struct gateway *g) { return g->app_id; }
int64_t gateway_seq(const struct gateway *g) { return g->seq; }

/* ------------------------------------------------------------------ */
/* reconnecting */

static uint64_t backoff(struct gateway *g)
{
	uint64_t b = GATEWAY_BACKOFF_MAX_MS;

	if (g->attempts < 7)
		b = (uint64_t)GATEWAY_BACKOFF_BASE_MS << g->attempts;
	if (b > GATEWAY_BACKOFF_MAX_MS)
		b = GATEWAY_BACKOFF_MAX_MS;
	g->attempts++;
	return b / 2 + rng_below(&g->rng, (uint32_t)(b / 2));
}

/* ---- session starts ---- */

#define DAY_MS (24ULL * 3600 * 1000)

long gateway_start_reserve(const struct gateway *g)
{
	long r = g->limit_total / 10;

	return r > 0 ? r : 1;
}

/* Our view of the budget at now: after Discord's reset it is full again. */
static void budget_roll(struct gateway *g, uint64_t now)
{
	if (g->limit_known && now >= g->limit_reset_at) {
		g->limit_remaining = g->limit_total;
		g->limit_reset_at = now + DAY_MS;
	}
}

/*
 * Before an Identify: FATAL (and 1) when the budget is down to the
 * reserve.  The message says when it refills, never anything secret.
 */
static int budget_exhausted(struct gateway *g, uint64_t now)
{
	struct buf b = BUF_INIT;
	uint64_t left;

	if (!g->limit_known)
		return 0;
	budget_roll(g, now);
	if (g->limit_remaining > gateway_start_reserve(g))
		return 0;
	left = (g->limit_reset_at - now + 59999) / 60000;
	buf_printf(&b, "discord gateway: only %ld of the day's %ld session starts (Identify) are "
		   "left, the reserve kept for restarts; stopping rather than spend them (Discord "
		   "resets the token of a bot that runs out). The budget refills in %llu h %02llu min; "
		   "find out from this log why the bot kept identifying, then start it again",
		   g->limit_remaining, g->limit_total, (unsigned long long)(left / 60),
		   (unsigned long long)(left % 60));
	g->state = GATEWAY_DEAD;
	g->hb_active = 0;
	push(g, GATEWAY_FATAL, buf_detach(&b), NULL, GATEWAY_EXIT_IDENTIFY_BUDGET, 0);
	return 1;
}

/* How long until the next Identify may go, at least `delay` (see
 * GATEWAY_IDENTIFY_GAP_MS). */
static uint64_t identify_delay(struct gateway *g, uint64_t delay, uint64_t now)
{
	uint64_t gap = GATEWAY_IDENTIFY_GAP_MS, at;
	unsigned i;

	if (!g->identified)
		return delay;
	for (i = 1; i < g->identify_fails && gap < GATEWAY_IDENTIFY_GAP_MAX_MS; i++)
		gap *= 2;
	if (gap > GATEWAY_IDENTIFY_GAP_MAX_MS)
		gap = GATEWAY_IDENTIFY_GAP_MAX_MS;
	gap += rng_below(&g->rng, (uint32_t)(gap / 2));
	at = g->last_identify + gap;
	if (at > now + delay) {
		delay = at - now;
		if (g->identify_fails)
			logf_(g, "%u Identify call%s in a row got no READY; the next one in %llu ms",
			      g->identify_fails, g->identify_fails == 1 ? "" : "s",
			      (unsigned long long)delay);
	}
	return delay;
}

void gateway_set_start_limit(struct gateway *g, long total, long remaining,
			     uint64_t reset_after_ms, long max_concurrency, uint64_t now)
{
	size_t i;

	if (g->state == GATEWAY_DEAD)
		return;
	if (total < 1 || remaining < 0 || remaining > total || max_concurrency < 1 ||
	    max_concurrency > 65536 || reset_after_ms > 7 * DAY_MS) {
		logf_(g, "session_start_limit out of range, ignored");
		return;
	}
	g->limit_known = 1;
	g->limit_total = total;
	g->limit_remaining = remaining;
	g->limit_concurrency = (unsigned)max_concurrency;
	g->limit_reset_at = now + reset_after_ms;
	/* the first Identify of a shard waits its turn in its bucket; the
	 * CONNECT gateway_init() queued is still ours to change */
	if (!g->identified && g->shard_count > 1) {
		uint64_t turn = (uint64_t)(g->shard_id / g->limit_concurrency) *
			GATEWAY_IDENTIFY_GAP_MS;

		for (i = g->qhead; i < g->qlen; i++)
			if (g->q[i].kind == GATEWAY_CONNECT && g->q[i].ms < turn)
				g->q[i].ms = turn;
	}
	if (!g->session_id && g->state == GATEWAY_DISCONNECTED)
		budget_exhausted(g, now);
}

/* Resume on resume_gateway_url when we have a session, else identify on
 * the base URL (paced, and only while the budget lasts). */
static void connect_after(struct gateway *g, uint64_t delay, uint64_t now)
{
	const char *url = g->session_id && g->resume_url ? g->resume_url
							  : g->base_url;

	metric_inc(&met_gateway_reconnects, 0, 0);	/* only ever after a close */

	g->state = GATEWAY_DISCONNECTED;
	g->hb_active = 0;
	g->connected_at = 0;
	if (!g->session_id) {
		if (budget_exhausted(g, now))
			return;
		delay = identify_delay(g, delay, now);
	}
	push(g, GATEWAY_CONNECT, url_with_query(url), NULL, 0, delay);
}

/* Close the socket ourselves; the CONNECT follows gateway_on_close(). */
static void close_and_reconnect(struct gateway *g, int code, uint64_t delay)
{
	metric_set(&met_platform_connected, METER_DISCORD, 0, 0);
	g->state = GATEWAY_CLOSING;
	g->hb_active = 0;
	g->pending_delay = delay;
	g->frame_skip = 0;
	buf_reset(&g->frame);
	push(g, GATEWAY_CLOSE, NULL, NULL, code, 0);
}

static const struct {
	int close_code, exit_code;
	const char *why;
} fatal_codes[] = {
	{ 4004, GATEWAY_EXIT_AUTH_FAILED,
	  "authentication failed: the bot token is invalid (check DISCORD_TOKEN)" },
	{ 4010, GATEWAY_EXIT_INVALID_SHARD,
	  "invalid shard: check the shard id and count" },
	{ 4011, GATEWAY_EXIT_SHARDING_REQUIRED,
	  "sharding required: the bot is in too many guilds for one shard" },
	{ 4012, GATEWAY_EXIT_INVALID_API_VERSION,
	  "invalid API version: this build speaks gateway v10" },
	{ 4013, GATEWAY_EXIT_INVALID_INTENTS,
	  "invalid intents: the intents value is not valid" },
	{ 4014, GATEWAY_EXIT_DISALLOWED_INTENTS,
	  "disallowed intents: an intent is not enabled for this application" },
};

void gateway_on_close(struct gateway *g, int code, uint64_t now)
{
	size_t i;

	if (g->state == GATEWAY_DEAD)
		return;
	metric_set(&met_platform_connected, METER_DISCORD, 0, 0);
	buf_reset(&g->frame);
	g->frame_skip = 0;
	if (g->state == GATEWAY_CLOSING) {	/* our own close */
		connect_after(g, g->pending_delay, now);
		return;
	}
	for (i = 0; i < sizeof(fatal_codes) / sizeof(fatal_codes[0]); i++) {
		if (fatal_codes[i].close_code == code) {
			struct buf b = BUF_INIT;

			buf_printf(&b, "discord gateway: closed with %d, %s; "
				   "not reconnecting", code, fatal_codes[i].why);
			g->state = GATEWAY_DEAD;
			g->hb_active = 0;
			push(g, GATEWAY_FATAL, buf_detach(&b), NULL,
			     fatal_codes[i].exit_code, 0);
			return;
		}
	}
	if (code == 4007 || code == 4009)	/* invalid seq, session timed out */
		clear_session(g);
	connect_after(g, backoff(g), now);
}

void gateway_on_open(struct gateway *g, uint64_t now)
{
	if (g->state != GATEWAY_DISCONNECTED)
		return;
	g->state = GATEWAY_WAIT_HELLO;
	g->hb_active = 0;
	g->ack_pending = 0;
	g->frame_skip = 0;
	buf_reset(&g->frame);
}

/* ------------------------------------------------------------------ */
/* heartbeating */

static json_t *seq_json(const struct gateway *g)
{
	return g->seq >= 0 ? json_integer(g->seq) : json_null();
}

static void send_heartbeat(struct gateway *g)
{
	json_t *p = json_object();

	json_object_set_new(p, "op", json_integer(OP_HEARTBEAT));
	json_object_set_new(p, "d", seq_json(g));
	send_json(g, p);
	g->ack_pending = 1;
}

void gateway_on_timer(struct gateway *g, uint64_t now)
{
	if (!g->hb_active)
		return;
	if (now < g->hb_next) {
		push(g, GATEWAY_TIMER, NULL, NULL, 0, g->hb_next);
		return;
	}
	if (g->ack_pending) {
		/* No ACK since the last beat: a zombie connection.  Close with
		 * a non-1000 code so the session stays resumable. */
		logf_(g, "no heartbeat ACK, reconnecting");
		close_and_reconnect(g, GATEWAY_CLOSE_RESUMABLE, backoff(g));
		return;
	}
	send_heartbeat(g);
	g->hb_next = now + g->hb_interval;
	push(g, GATEWAY_TIMER, NULL, NULL, 0, g->hb_next);
}

/* ------------------------------------------------------------------ */
/* messages from the server */

static void send_identify(struct gateway *g, uint64_t now)
{
	json_t *d, *p;

	if (budget_exhausted(g, now))
		return;
	d = json_object();
	p = json_object();

	json_object_set_new(d, "token", json_string(g->token));
	json_object_set_new(d, "intents", json_integer(g->intents));
	json_object_set_new(d, "properties",
			    json_pack("{s:s,s:s,s:s}", "os", "linux",
				      "browser", "tabula", "device", "tabula"));
	if (g->shard_count > 0)
		json_object_set_new(d, "shard", json_pack("[i,i]", g->shard_id,
							  g->shard_count));
	json_object_set_new(p, "op", json_integer(OP_IDENTIFY));
	json_object_set_new(p, "d", d);
	send_json(g, p);
	g->state = GATEWAY_IDENTIFYING;
	g->identified = 1;
	g->last_identify = now;
	g->identify_fails++;
	if (g->limit_known && g->limit_remaining > 0)
		g->limit_remaining--;
}

static void send_resume(struct gateway *g)
{
	json_t *d = json_object(), *p = json_object();

	json_object_set_new(d, "token", json_string(g->token));
	json_object_set_new(d, "session_id", json_string(g->session_id));
	json_object_set_new(d, "seq", seq_json(g));
	json_object_set_new(p, "op", json_integer(OP_RESUME));
	json_object_set_new(p, "d", d);
	send_json(g, p);
	g->state = GATEWAY_RESUMING;
}

static void on_hello(struct gateway *g, json_t *d, uint64_t now)
{
	json_t *iv = json_object_get(d, "heartbeat_interval");
	json_int_t ms;
	double jitter;

	if (g->state != GATEWAY_WAIT_HELLO) {
		logf_(g, "unexpected Hello, ignored");
		return;
	}
	if (!json_is_integer(iv) || (ms = json_integer_value(iv)) <= 0 ||
	    ms > HB_INTERVAL_MAX_MS) {
		logf_(g, "Hello without a valid heartbeat_interval, ignored");
		return;
	}
	g->hb_interval = (uint64_t)ms;
	jitter = rng_next(&g->rng) / 4294967296.0;	/* [0, 1) */
	g->hb_next = now + (uint64_t)(jitter * (double)ms);
	g->hb_active = 1;
	g->ack_pending = 0;
	if (g->session_id) {
		send_resume(g);
	} else {
		send_identify(g, now);
		if (g->state == GATEWAY_DEAD)
			return;
	}
	push(g, GATEWAY_TIMER, NULL, NULL, 0, g->hb_next);
}

/* Replaces *dst with a copy of d[key] if it is a non-empty string. */
static int take_string(char **dst, json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);

	if (!json_is_string(v) || !json_string_length(v))
		return -1;
	free(*dst);
	*dst = xstrdup(json_string_value(v));
	return 0;
}

static void on_ready(struct gateway *g, json_t *d, uint64_t now)
{
	json_t *v;

	if (take_string(&g->session_id, d, "session_id") < 0)
		logf_(g, "READY without session_id");
	v = json_object_get(d, "resume_gateway_url");
	/* wss:// anywhere; ws:// only to loopback (a test's fake) */
	if (json_is_string(v) && http_url_allowed(json_string_value(v), NULL) &&
	    (!strncmp(json_string_value(v), "wss://", 6) ||
	     !strncmp(json_string_value(v), "ws://", 5)))
		take_string(&g->resume_url, d, "resume_gateway_url");
	else
		logf_(g, "READY without a wss:// resume_gateway_url");
	if (take_string(&g->app_id, json_object_get(d, "application"), "id") < 0)
		logf_(g, "READY without application.id");
	metric_set(&met_platform_connected, METER_DISCORD, 0, 1);
	g->state = GATEWAY_CONNECTED;
	g->attempts = 0;
	g->identify_fails = 0;
	g->connected_at = now;
}

/* The events the bot reads; the others only advance the sequence. */
static int wanted(const char *t)
{
	return !strcmp(t, "INTERACTION_CREATE") || !strcmp(t, "READY") ||
	       !strcmp(t, "RESUMED");
}

static void on_dispatch(struct gateway *g, json_t *msg, uint64_t now)
{
	json_t *s = json_object_get(msg, "s"), *t = json_object_get(msg, "t");
	json_t *d = json_object_get(msg, "d");
	const char *name;

	if (json_is_integer(s) && json_integer_value(s) >= 0)
		g->seq = json_integer_value(s);
	else if (s && !json_is_null(s))
		logf_(g, "dispatch with a non-integer sequence");
	if (!json_is_string(t)) {
		logf_(g, "dispatch without an event name, ignored");
		return;
	}
	name = json_string_value(t);
	if (!strcmp(name, "READY")) {
		if (!json_is_object(d)) {
			logf_(g, "READY without an object, ignored");
			return;
		}
		on_ready(g, d, now);
	} else if (!strcmp(name, "RESUMED")) {
		metric_inc(&met_gateway_resumes, 0, 0);
		metric_set(&met_platform_connected, METER_DISCORD, 0, 1);
		g->state = GATEWAY_CONNECTED;
		g->attempts = 0;
		g->connected_at = now;
	}
	if (!wanted(name))
		return;
	if (!d)
		d = json_null();
	else
		json_incref(d);
	push(g, GATEWAY_DISPATCH, xstrdup(name), d, 0, 0);
}

static void on_invalid_session(struct gateway *g, json_t *d)
{
	if (!json_is_boolean(d)) {
		logf_(g, "Invalid Session without a boolean, ignored");
		return;
	}
	if (json_is_true(d)) {
		close_and_reconnect(g, GATEWAY_CLOSE_RESUMABLE, backoff(g));
	} else {
		/* The session is gone: identify anew after 1-5 s. */
		clear_session(g);
		g->attempts++;
		close_and_reconnect(g, GATEWAY_CLOSE_NORMAL,
				    1000 + rng_below(&g->rng, 4001));
	}
}

void gateway_on_text(struct gateway *g, const char *text, size_t len,
		     uint64_t now)
{
	json_t *msg, *op, *d;
	json_error_t jerr;

	switch (g->state) {
	case GATEWAY_WAIT_HELLO: case GATEWAY_IDENTIFYING:
	case GATEWAY_RESUMING: case GATEWAY_CONNECTED:
		break;
	default:
		return;	/* not connected, or on the way out */
	}
	msg = json_loadb(text, len, 0, &jerr);
	if (!msg) {
		logf_(g, "malformed JSON ignored (line %d, column %d)",
		      jerr.line, jerr.column);
		return;
	}
	op = json_object_get(msg, "op");
	if (!json_is_object(msg) || !json_is_integer(op)) {
		logf_(g, "message without an integer op, ignored");
		goto done;
	}
	d = json_object_get(msg, "d");
	switch (json_integer_value(op)) {
	case OP_DISPATCH:
		on_dispatch(g, msg, now);
		break;
	case OP_HEARTBEAT:	/* the server asks for a beat right now */
		if (g->hb_active)
			send_heartbeat(g);
		break;
	case OP_RECONNECT:
		close_and_reconnect(g, GATEWAY_CLOSE_RESUMABLE, backoff(g));
		break;
	case OP_INVALID_SESSION:
		on_invalid_session(g, d);
		break;
	case OP_HELLO:
		if (!json_is_object(d))
			logf_(g, "Hello without an object, ignored");
		else
			on_hello(g, d, now);
		break;
	case OP_HEARTBEAT_ACK:
		g->ack_pending = 0;
		if (g->state == GATEWAY_CONNECTED && now - g->connected_at >= GATEWAY_STABLE_MS)
			g->big_strikes = 0;	/* settled: old trouble forgotten */
		break;
	default:
		logf_(g, "unknown op %lld ignored",
		      (long long)json_integer_value(op));
	}
done:
	json_decref(msg);
}

/* One message over GATEWAY_FRAME_MAX: see gateway.h for the escalation. */
static void oversized(struct gateway *g, uint64_t now)
{
	uint64_t delay;
	unsigned k;

	if (g->state == GATEWAY_CONNECTED && now - g->connected_at >= GATEWAY_STABLE_MS)
		g->big_strikes = 0;
	g->big_strikes++;
	if (g->big_strikes == 1) {
		logf_(g, "message over %zu bytes dropped; resuming", (size_t)GATEWAY_FRAME_MAX);
		close_and_reconnect(g, GATEWAY_CLOSE_RESUMABLE, backoff(g));
		return;
	}
	/* a resume replays the same message: give the session up */
	clear_session(g);
	if (g->big_strikes == 2) {
		logf_(g, "message over %zu bytes again before the connection settled; dropping the "
		      "session (events meanwhile are lost) and identifying anew",
		      (size_t)GATEWAY_FRAME_MAX);
		close_and_reconnect(g, GATEWAY_CLOSE_NORMAL, backoff(g));
		return;
	}
	delay = GATEWAY_BIG_BACKOFF_MS;
	for (k = 3; k < g->big_strikes && delay < GATEWAY_BIG_BACKOFF_MAX_MS; k++)
		delay *= 2;
	if (delay > GATEWAY_BIG_BACKOFF_MAX_MS)
		delay = GATEWAY_BIG_BACKOFF_MAX_MS;
	delay = delay / 2 + rng_below(&g->rng, (uint32_t)(delay / 2));
	logf_(g, "message over %zu bytes on %u connections in a row; identifying again in %llu s",
	      (size_t)GATEWAY_FRAME_MAX, g->big_strikes, (unsigned long long)(delay / 1000));
	close_and_reconnect(g, GATEWAY_CLOSE_NORMAL, delay);
}

void gateway_frame_append(struct gateway *g, const void *data, size_t len,
			  int is_final, uint64_t now)
{
	if (g->frame_skip) {
		if (is_final)
			g->frame_skip = 0;
		return;
	}
	if (buf_add(&g->frame, data, len) < 0) {
		buf_release(&g->frame);	/* give the big storage back */
		buf_init(&g->frame, GATEWAY_FRAME_MAX);
		if (g->state != GATEWAY_CLOSING && g->state != GATEWAY_DEAD &&
		    g->state != GATEWAY_DISCONNECTED)
			oversized(g, now);
		g->frame_skip = !is_final;
		return;
	}
	if (!is_final)
		return;
	/* Hand over a copy-free view, then reset (on_text may not append). */
	gateway_on_text(g, g->frame.s ? g->frame.s : "", g->frame.len, now);
	buf_reset(&g->frame);
}
