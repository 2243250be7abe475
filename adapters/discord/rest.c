/*
 * rest: the Discord REST queue.  Lanes (route + major parameter) hold
 * requests in submission order; only a lane's head is ever sent or waiting,
 * so order is kept through retries.  One uv_timer wakes the queue when the
 * limiter or a retry delay says so.
 */
#include "adapters/discord/rest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "adapters/discord/ratelimit.h"
#include "adapters/http.h"
#include "util/meters.h"
#include "util/version.h"

#define TOKEN_MAX 512
/* The base of requests over a proxy's Unix socket. */
#define UNIX_BASE "http://localhost/api/v10"
/* sizeof(struct sockaddr_un.sun_path) on Linux */
#define UNIX_PATH_MAX 108

struct rest_lane;

struct rest_req {
	struct discord_rest *q;
	struct rest_lane *lane;		/* NULL once off its lane */
	struct rest_req *next;		/* in the lane, or the failed list */
	struct ratelimit_key key;
	char *method, *url, *body;
	size_t body_len;
	char *ctype;			/* Content-Type line */
	unsigned attempts;		/* tries answered so far */
	unsigned forgiven;		/* ... of which failed while down: they
					 * do not count towards giving up */
	int inflight;			/* sent, no answer yet */
	int direct;			/* to direct_url, not through the proxy */
	int held;			/* the limiter holds it (counted once) */
	int down_wait;			/* not_before is a retry while down */
	uint64_t not_before;		/* retry delay (loop time) */
	char *error;			/* send failure, on the failed list */
	discord_rest_fn cb;
	void *ctx;
};

/* The requests of one route + major, oldest first; exists while non-empty. */
struct rest_lane {
	struct rest_lane *prev, *next;
	struct rest_req *head, *tail;
};

struct discord_rest {
	uv_loop_t *loop;
	uv_timer_t timer;		/* the one wake-up */
	struct http_client *http;	/* owned */
	struct ratelimit rl;
	char *auth;			/* "Authorization: Bot <token>" */
	char *ua;			/* "User-Agent: DiscordBot (url, version)" */
	char *base;			/* no trailing slash */
	char *direct;			/* interaction callbacks; NULL: base */
	char *unix_path;		/* the proxy's Unix socket, or NULL */
	int proxy;			/* base names a shared proxy */
	int down;			/* see rest.h */
	unsigned fail_streak;		/* unreachable answers in a row */
	uint64_t probe_at;		/* down: the next probe's time */
	size_t inflight_base;		/* requests out to base */
	struct discord_rest_stats stats;
	void (*on_down)(void *ctx, int down);
	void *ctx;
	long timeout_ms;
	size_t max_pending;
	uint64_t retry_cap_ms;
	struct rest_lane *lanes, *lanes_tail;
	struct rest_req *failed, *failed_tail;	/* to report from the timer */
	size_t pending;
	int dead;			/* discord_rest_free() ran */
};

/* memset that the compiler may not drop: the token must not linger. */
static void wipe(char *s)
{
	volatile char *p = s;

	if (!s)
		return;
	while (*p)
		*p++ = '\0';
}

static void req_free(struct rest_req *r)
{
	free(r->method);
	free(r->url);
	free(r->body);
	free(r->ctype);
	free(r->error);
	free(r);
}

/* ---- lanes ---- */

static int same_lane(const struct ratelimit_key *a,
		     const struct ratelimit_key *b)
{
	return !strcmp(a->route, b->route) && !strcmp(a->major, b->major);
}

static void lane_append(struct discord_rest *q, struct rest_req *r)
{
	struct rest_lane *l;

	for (l = q->lanes; l; l = l->next)
		if (same_lane(&l->head->key, &r->key))
			break;
	if (!l) {
		l = xcalloc(1, sizeof(*l));
		l->prev = q->lanes_tail;
		if (q->lanes_tail)
			q->lanes_tail->next = l;
		else
			q->lanes = l;
		q->lanes_tail = l;
	}
	r->lane = l;
	r->next = NULL;
	if (l->tail)
		l->tail->next = r;
	else
		l->head = r;
	l->tail = r;
}

/* Takes the head r off its lane, dropping the lane if it empties. */
static void lane_pop(struct discord_rest *q, struct rest_req *r)
{
	struct rest_lane *l = r->lane;

	l->head = r->next;
	if (!l->head)
		l->tail = NULL;
	r->next = NULL;
	r->lane = NULL;
	if (l->head)
		return;
	if (l->prev)
		l->prev->next = l->next;
	else
		q->lanes = l->next;
	if (l->next)
		l->next->prev = l->prev;
	else
		q->lanes_tail = l->prev;
	free(l);
}

/* ---- completion ---- */

/* Calls r's callback (pending already counted down) and frees r. */
static void deliver(struct rest_req *r, long status, const char *error,
		    struct buf *body)
{
	struct buf empty = BUF_INIT;
	struct discord_rest_resp resp = {
		.status = status, .error = error,
		.body = body ? body : &empty, .attempts = r->attempts,
	};

	r->cb(&resp, r->ctx);
	buf_release(&empty);
	req_free(r);
}

/* ---- scheduling ---- */

static void on_http_done(struct http_resp *resp, void *ctx);
static void on_timer(uv_timer_t *t);

static int send_req(struct discord_rest *q, struct rest_req *r,
		    struct buf *err)
{
	const char *hdrs[3];
	struct http_req hr = {
		.method = r->method, .url = r->url,
		.headers = hdrs, .nheaders = 3,
		.body = r->body, .body_len = r->body_len,
		.timeout_ms = q->timeout_ms,
	};

	hdrs[0] = q->auth;
	hdrs[1] = r->ctype ? r->ctype : "Content-Type: application/json";
	hdrs[2] = q->ua;
	if (!r->direct) {
		hr.private_http = q->proxy;
		hr.unix_socket = q->unix_path;
	}
	return http_request(q->http, &hr, on_http_done, r, err);
}

/*
 * Sends every lane head the limiter allows now and arms the timer for the
 * earliest moment anything else may move.
 */
static void pump(struct discord_rest *q)
{
	uint64_t now = uv_now(q->loop), wake = UINT64_MAX, wait;
	struct rest_lane *l, *next;

	if (q->dead)
		return;
	if (q->failed)
		wake = now;
	for (l = q->lanes; l; l = next) {
		struct rest_req *r = l->head;
		struct buf err = BUF_INIT;

		next = l->next;
		if (r->inflight)
			continue;
		/* down: one probe at a time, at most one per retry delay;
		 * its answer pumps again */
		if (q->down && !r->direct) {
			if (q->inflight_base)
				continue;
			if (q->probe_at > now) {
				if (q->probe_at < wake)
					wake = q->probe_at;
				continue;
			}
		}
		if (r->not_before > now) {
			if (r->not_before < wake)
				wake = r->not_before;
			continue;
		}
		if (ratelimit_acquire(&q->rl, &r->key, now, &wait)) {
			if (!r->held) {
				q->stats.waits++;
				metric_inc(&met_ratelimit_waits, METER_DISCORD, 0);
			}
			r->held = 1;
			if (now + wait < wake)
				wake = now + wait;
			continue;
		}
		r->held = 0;
		if (!send_req(q, r, &err)) {
			r->inflight = 1;
			q->inflight_base += !r->direct;
			q->stats.sent++;
			continue;
		}
		/* Never sent: give the slot back; report from the loop. */
		ratelimit_cancel(&q->rl, &r->key);
		if (!err.len)
			buf_setf(&err, "discord: request not sent");
		r->error = xstrdup(buf_str(&err));
		buf_release(&err);
		lane_pop(q, r);
		if (q->failed_tail)
			q->failed_tail->next = r;
		else
			q->failed = r;
		q->failed_tail = r;
		wake = now;
	}
	if (wake == UINT64_MAX)
		uv_timer_stop(&q->timer);
	else
		uv_timer_start(&q->timer, on_timer, wake - now, 0);
}

static void on_timer(uv_timer_t *t)
{
	struct discord_rest *q = t->data;

	while (q->failed && !q->dead) {
		struct rest_req *r = q->failed;

		q->failed = r->next;
		if (!q->failed)
			q->failed_tail = NULL;
		r->next = NULL;
		q->pending--;
		deliver(r, 0, r->error, NULL);
	}
	pump(q);
}

/* A 429's JSON body: {"retry_after": 0.2, "global": false, ...}. */
static void parse_429_body(struct ratelimit_headers *h, const struct buf *body)
{
	json_error_t jerr;
	json_t *j, *v;

	if (!body->len)
		return;
	j = json_loadb(body->s, body->len, 0, &jerr);
	if (json_is_object(j)) {
		v = json_object_get(j, "retry_after");
		if (json_is_number(v) && json_number_value(v) >= 0 &&
		    json_number_value(v) <= 1e7)
			h->retry_after = json_number_value(v);
		if (json_is_true(json_object_get(j, "global")))
			h->global = 1;
	}
	json_decref(j);
}

/* Network errors and the gateway statuses: Discord (or the proxy's Discord)
 * did not answer this request.  A 500 is an answer. */
static int unreachable(int status)
{
	return status == 0 || status == 502 || status == 503 || status == 504;
}

/* One answer through the base URL: the down state (rest.h). */
static void note_health(struct discord_rest *q, int failed)
{
	struct rest_lane *l;

	if (failed) {
		if (++q->fail_streak >= DISCORD_REST_DOWN_AFTER && !q->down) {
			q->down = 1;
			if (q->on_down)
				q->on_down(q->ctx, 1);
		}
		return;
	}
	q->fail_streak = 0;
	if (!q->down)
		return;
	q->down = 0;
	/* everything that waited for the outage to end goes now */
	for (l = q->lanes; l; l = l->next)
		if (l->head->down_wait) {
			l->head->down_wait = 0;
			l->head->not_before = 0;
		}
	if (q->on_down)
		q->on_down(q->ctx, 0);
}

static void on_http_done(struct http_resp *resp, void *ctx)
{
	struct rest_req *r = ctx;
	struct discord_rest *q = r->q;
	struct ratelimit_headers h;
	enum ratelimit_action act;
	uint64_t now, retry = 0;
	struct buf msg = BUF_INIT;
	size_t i;

	/* The loop's clock is as old as this iteration, which may have spent
	 * milliseconds committing moves: a reset time learned from a stale
	 * clock comes early, and the next request then breaks the bucket. */
	uv_update_time(q->loop);
	now = uv_now(q->loop);

	r->inflight = 0;
	if (!r->direct)
		q->inflight_base--;
	r->attempts++;
	ratelimit_headers_init(&h);
	h.status = resp->error ? 0 : (int)resp->status;
	meters_request(METER_DISCORD, h.status);
	for (i = 0; i < resp->nheaders; i++)
		ratelimit_headers_parse(&h, resp->headers[i],
					strlen(resp->headers[i]));
	if (h.status == 429)
		parse_429_body(&h, &resp->body);
	act = ratelimit_update(&q->rl, &r->key, now, &h, r->attempts - r->forgiven, &retry);
	if (h.status == 429) {
		q->stats.answers_429++;
		q->stats.waits++;
	} else if (h.status == 0 || h.status >= 500) {
		q->stats.failures++;
	}
	if (!r->direct) {
		note_health(q, unreachable(h.status));
		if (q->down && unreachable(h.status)) {
			/* nothing is given up while Discord is out of reach, and
			 * the next try of anything waits the probe's delay */
			retry = DISCORD_REST_DOWN_RETRY_MS;
			if (q->retry_cap_ms && retry > q->retry_cap_ms)
				retry = q->retry_cap_ms;
			act = RATELIMIT_RETRY;
			r->down_wait = 1;
			r->forgiven = r->attempts;
			q->probe_at = now + retry;
		}
	}

	if (act == RATELIMIT_RETRY) {
		if (q->retry_cap_ms && h.status != 429 && retry > q->retry_cap_ms)
			retry = q->retry_cap_ms;
		r->not_before = now + retry;
		pump(q);
		return;
	}

	lane_pop(q, r);
	q->pending--;
	if (act == RATELIMIT_GIVE_UP) {
		if (h.status == 0)
			buf_setf(&msg, "discord: %s (gave up after %u attempts)",
				 resp->error ? resp->error : "network error",
				 r->attempts);
		else if (h.status == 429)
			buf_setf(&msg, "discord: still rate limited after %u attempts",
				 r->attempts);
		else
			buf_setf(&msg, "discord: HTTP %d (gave up after %u attempts)",
				 h.status, r->attempts);
	}
	deliver(r, h.status, act == RATELIMIT_GIVE_UP ? buf_str(&msg) : NULL,
		&resp->body);
	buf_release(&msg);
	pump(q);	/* a no-op if the callback freed the queue */
}

/* ---- API ---- */

static void on_closed(uv_handle_t *h)
{
	free(h->data);
}

struct discord_rest *discord_rest_new(uv_loop_t *loop,
				      const struct discord_rest_config *cfg,
				      struct buf *err)
{
	const char *base = cfg->base_url ? cfg->base_url : DISCORD_REST_DEFAULT_BASE;
	const char *direct = cfg->direct_url ? cfg->direct_url : DISCORD_REST_DEFAULT_BASE;
	const char *unix_path = NULL;
	struct discord_rest *q;
	struct buf b = BUF_INIT;
	size_t i, n;

	if (!cfg->token || !*cfg->token) {
		buf_setf(err, "discord: no bot token");
		return NULL;
	}
	n = strlen(cfg->token);
	if (n > TOKEN_MAX) {
		buf_setf(err, "discord: the bot token is too long");
		return NULL;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)cfg->token[i] <= 0x20 ||
		    (unsigned char)cfg->token[i] >= 0x7f) {
			buf_setf(err, "discord: the bot token contains a space "
				 "or a control character");
			return NULL;
		}
	if (cfg->proxy && !strncmp(base, "unix:", 5)) {
		unix_path = base + 5;
		if (!strncmp(unix_path, "///", 3))
			unix_path += 2;		/* unix:///run/x.sock */
		if (unix_path[0] != '/' || strlen(unix_path) >= UNIX_PATH_MAX) {
			buf_setf(err, "discord: a proxy's Unix socket is unix:/absolute/path "
				 "(shorter than %d characters)", UNIX_PATH_MAX);
			return NULL;
		}
		base = UNIX_BASE;
	}
	if (!(cfg->proxy ? http_url_allowed_private(base, err) : http_url_allowed(base, err)) ||
	    (cfg->proxy && !http_url_allowed(direct, err))) {
		struct buf why = BUF_INIT;

		buf_addstr(&why, buf_str(err));
		buf_setf(err, "discord: base URL refused: %s", buf_str(&why));
		buf_release(&why);
		return NULL;
	}

	q = xcalloc(1, sizeof(*q));
	q->http = http_client_new(loop, err);
	if (!q->http) {
		free(q);
		return NULL;
	}
	q->loop = loop;
	uv_timer_init(loop, &q->timer);
	q->timer.data = q;
	ratelimit_init(&q->rl, cfg->seed);
	buf_printf(&b, "Authorization: Bot %s", cfg->token);
	q->auth = buf_detach(&b);
	buf_printf(&b, "User-Agent: DiscordBot (%s, %s)", tabula_url, tabula_version);
	q->ua = buf_detach(&b);
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	buf_add(&b, base, n);
	q->base = buf_detach(&b);
	if (cfg->proxy) {
		n = strlen(direct);
		while (n && direct[n - 1] == '/')
			n--;
		buf_add(&b, direct, n);
		q->direct = buf_detach(&b);
		q->unix_path = unix_path ? xstrdup(unix_path) : NULL;
		q->proxy = 1;
	}
	q->on_down = cfg->on_down;
	q->ctx = cfg->ctx;
	q->timeout_ms = cfg->timeout_ms;
	q->max_pending = cfg->max_pending ? cfg->max_pending :
		DISCORD_REST_DEFAULT_MAX_PENDING;
	q->retry_cap_ms = cfg->retry_cap_ms;
	return q;
}

void discord_rest_free(struct discord_rest *q)
{
	struct rest_req *r, *rn;

	if (!q || q->dead)
		return;
	q->dead = 1;
	while (q->lanes) {
		struct rest_lane *l = q->lanes;

		for (r = l->head; r; r = rn) {
			rn = r->next;
			req_free(r);
		}
		q->lanes = l->next;
		free(l);
	}
	q->lanes_tail = NULL;
	for (r = q->failed; r; r = rn) {
		rn = r->next;
		req_free(r);
	}
	q->failed = q->failed_tail = NULL;
	q->pending = 0;
	http_client_free(q->http);	/* no callback comes after this */
	q->http = NULL;
	ratelimit_release(&q->rl);
	wipe(q->auth);
	free(q->auth);
	q->auth = NULL;
	free(q->base);
	q->base = NULL;
	free(q->ua);
	free(q->direct);
	free(q->unix_path);
	q->ua = q->direct = q->unix_path = NULL;
	uv_timer_stop(&q->timer);
	uv_close((uv_handle_t *)&q->timer, on_closed);	/* frees q */
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return 0;	/* skips the old-message check */
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* An interaction callback: POST /interactions/{id}/{token}/callback. */
static int is_callback(const char *route)
{
	static const char tail[] = "/callback";
	size_t n = strlen(route);

	return !strncmp(route, "POST /interactions/", 19) && n > sizeof(tail) &&
		!strcmp(route + n - (sizeof(tail) - 1), tail);
}

int discord_rest_submit(struct discord_rest *q, const char *method,
			const char *path, const char *json,
			discord_rest_fn cb, void *ctx, struct buf *err)
{
	return discord_rest_submit_raw(q, method, path, NULL, json, json ? strlen(json) : 0,
				       cb, ctx, err);
}

int discord_rest_submit_raw(struct discord_rest *q, const char *method, const char *path,
			    const char *content_type, const void *body, size_t len,
			    discord_rest_fn cb, void *ctx, struct buf *err)
{
	struct ratelimit_key key;
	struct rest_req *r;
	struct buf url = BUF_INIT;
	const char *p;
	int direct;

	if (!q || q->dead) {
		buf_setf(err, "discord: the REST queue is closed");
		return -1;
	}
	if (!cb) {
		buf_setf(err, "discord: no callback");
		return -1;
	}
	if (q->pending >= q->max_pending) {
		buf_setf(err, "discord: REST queue full (%zu requests)",
			 q->pending);
		return -1;
	}
	if (!path || path[0] != '/') {
		buf_setf(err, "discord: the path must start with '/'");
		return -1;
	}
	for (p = path; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
			buf_setf(err, "discord: the path contains a space or "
				 "a control character");
			return -1;
		}
	if (ratelimit_route_key(method, path, wall_ms(), &key, err))
		return -1;
	direct = q->direct && is_callback(key.route);
	buf_printf(&url, "%s%s", direct ? q->direct : q->base, path);
	if (url.toobig || !(q->proxy && !direct ? http_url_allowed_private(buf_str(&url), err)
			    : http_url_allowed(buf_str(&url), err))) {
		if (url.toobig)
			buf_setf(err, "discord: URL too long");
		buf_release(&url);
		return -1;
	}

	r = xcalloc(1, sizeof(*r));
	r->q = q;
	r->key = key;
	r->direct = direct;
	r->method = xstrdup(method);
	r->url = buf_detach(&url);
	if (body) {
		r->body_len = len;
		r->body = xmalloc(len + 1);
		memcpy(r->body, body, len);
		r->body[len] = '\0';
	}
	if (content_type) {
		struct buf ct = BUF_INIT;

		buf_printf(&ct, "Content-Type: %s", content_type);
		r->ctype = buf_detach(&ct);
	}
	r->cb = cb;
	r->ctx = ctx;
	lane_append(q, r);
	q->pending++;
	pump(q);
	return 0;
}

size_t discord_rest_pending(const struct discord_rest *q)
{
	return q ? q->pending : 0;
}

int discord_rest_down(const struct discord_rest *q)
{
	return q ? q->down : 0;
}

const struct discord_rest_stats *discord_rest_stats(const struct discord_rest *q)
{
	return &q->stats;
}
