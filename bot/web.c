/*
 * web: each game's page on the HTTP listener (bot/web.h): the answers of
 * /g/<token>[/state.json|/board.png|/events] and /static/, the events a
 * commit publishes, the glue to adapters/httpd.h.  The view of a position
 * is bot/webview.c's.  A services-layer file: the core reaches it only
 * through session_hooks.committed and session_mgr.web_gone.
 */
#include "bot/web_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/httpd.h"
#include "bot/core.h"
#include "bot/paintjob.h"
#include "bot/roomset.h"
#include "paint/paint.h"
#include "util/logging.h"

/* ---- the answers ---- */

#define NOT_FOUND "Not found\n"

void web_answer_init(struct web_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->status = 200;
	buf_init(&a->body, 0);
}

void web_answer_release(struct web_answer *a)
{
	buf_release(&a->body);
}

static void answer_text(struct web_answer *out, int status, const char *text)
{
	out->status = status;
	out->type = "text/plain; charset=utf-8";
	buf_reset(&out->body);
	buf_addstr(&out->body, text);
}

/* Every "no such page" is this one answer, whatever the reason. */
static void not_found(struct web_answer *out)
{
	answer_text(out, 404, NOT_FOUND);
}

static int token_ok(const char *t, size_t n)
{
	size_t i;

	if (n < WEB_TOKEN_MIN || n > WEB_TOKEN_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
		      (t[i] >= '0' && t[i] <= '9') || t[i] == '-' || t[i] == '_'))
			return 0;
	return 1;
}

int web_enabled(const struct session_rec *rec)
{
	struct room_settings rs;

	roomset_read(rec, &rs);
	return rs.web;
}

/* The session of token into rec: 1, 0 when there is none to show (no
 * such token, or the page is off), -1 + err (the store). */
static int session_of(struct web *w, const char *token, struct session_rec *rec,
		      struct buf *err)
{
	int64_t id;
	int r = store_web_find(w->m->store, token, &id, err);

	if (r)
		return r == 1 ? 0 : -1;
	r = store_session_get(w->m->store, id, rec, err);
	if (r <= 0)
		return r;
	return web_enabled(rec) ? 1 : 0;
}

/*
 * The query's `at`: -1 when absent, else a position (0 or more), or -2
 * when it is no whole number.  The rest of the query is ignored.
 */
static long query_at(const char *q)
{
	while (q && *q) {
		const char *amp = strchr(q, '&');
		size_t n = amp ? (size_t)(amp - q) : strlen(q);

		if (n >= 3 && !memcmp(q, "at=", 3)) {
			long v = 0;
			size_t i;

			if (n == 3 || n > 3 + 9)
				return -2;
			for (i = 3; i < n; i++) {
				if (q[i] < '0' || q[i] > '9')
					return -2;
				v = v * 10 + (q[i] - '0');
			}
			return v;
		}
		q = amp ? amp + 1 : NULL;
	}
	return -1;
}

static void bad_at(struct web_answer *out, long npos)
{
	char msg[128];

	if (npos > 0)
		snprintf(msg, sizeof(msg),
			 "Bad request: at must be a whole number from 0 to %ld.\n", npos - 1);
	else
		snprintf(msg, sizeof(msg), "Bad request: this game has no position yet.\n");
	answer_text(out, 400, msg);
}

static void html_escape(struct buf *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			buf_addstr(out, "&amp;");
			break;
		case '<':
			buf_addstr(out, "&lt;");
			break;
		case '>':
			buf_addstr(out, "&gt;");
			break;
		case '"':
			buf_addstr(out, "&quot;");
			break;
		case '\'':
			buf_addstr(out, "&#39;");
			break;
		default:
			buf_addch(out, *s);
		}
}

static const struct web_asset *asset(const char *name)
{
	size_t i;

	for (i = 0; i < web_nassets; i++)
		if (!strcmp(web_assets[i].name, name))
			return &web_assets[i];
	return NULL;
}

/* The value of placeholder key ("title", "t:log") from the view, or NULL
 * (left as it is). */
static const char *placeholder(const json_t *view, const char *base, const char *key,
			       size_t n, enum locale loc)
{
	static const char *const fields[] = { "lang", "title", "board_text", "status_text" };
	char k[64];
	size_t i;

	if (n >= sizeof(k))
		return NULL;
	memcpy(k, key, n);
	k[n] = 0;
	if (!strcmp(k, "base"))
		return base;
	if (!strncmp(k, "t:", 2))
		return webview_label(k + 2, loc);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(k, fields[i]))
			return json_string_value(json_object_get(view, k));
	return NULL;
}

/* web/page.html with its placeholders filled from the latest view. */
static void page_html(const json_t *view, const char *base, struct web_answer *out)
{
	const struct web_asset *tpl = asset("page.html");
	const char *p, *open, *close;
	enum locale loc = LOC_EN;

	locale_parse(json_string_value(json_object_get(view, "lang")), &loc);
	out->type = "text/html; charset=utf-8";
	p = tpl ? (const char *)tpl->data : "";
	while ((open = strstr(p, "{{")) && (close = strstr(open + 2, "}}"))) {
		const char *v = placeholder(view, base, open + 2, (size_t)(close - open - 2), loc);

		buf_add(&out->body, p, (size_t)(open - p));
		if (v)
			html_escape(&out->body, v);
		else
			buf_add(&out->body, open, (size_t)(close + 2 - open));
		p = close + 2;
	}
	buf_addstr(&out->body, p);
}

/* Whether one more picture may be painted on the loop now. */
static int paint_allowed(struct web *w)
{
	int64_t now = w->now_ms(w->now_ctx);

	if (w->paint_ms && now > w->paint_ms)
		w->paint_tokens += (double)(now - w->paint_ms) * WEB_PAINTS_PER_S / 1000.0;
	if (w->paint_tokens > WEB_PAINTS_BURST)
		w->paint_tokens = WEB_PAINTS_BURST;
	w->paint_ms = now;
	if (w->paint_tokens < 1) {
		w->stats.paints_refused++;
		return 0;
	}
	w->paint_tokens -= 1;
	return 1;
}

/* board.png of position at (-1: the latest); the last one painted is
 * kept. */
static void board_png(struct web *w, const struct session_rec *rec, long at,
		      struct web_answer *out)
{
	const struct web_pic *pic;
	struct web_game *g;
	struct scene sc;
	struct paint_image im;
	struct buf err = BUF_INIT;

	g = webview_game(w, rec, &err);
	if (!g || !webview_positions(g) || !g->ops->scene) {
		not_found(out);
		goto out;
	}
	if (at < 0)
		at = webview_positions(g) - 1;
	if (at >= webview_positions(g)) {
		bad_at(out, webview_positions(g));
		goto out;
	}
	if ((pic = webview_pic_get(w, g, at))) {
		w->stats.paint_hits++;
	} else if (!paint_allowed(w)) {
		answer_text(out, 503, "Busy painting other boards; try again in a moment.\n");
		goto out;
	} else {
		scene_init(&sc);
		memset(&im, 0, sizeof(im));
		if (web_scene(w, rec, at, &sc, &err) || paint_scene(&sc, 0, &im, &err)) {
			log_warn("web: session %lld position %ld: no picture: %s",
				 (long long)rec->id, at, buf_str(&err));
			scene_release(&sc);
			answer_text(out, 500, "The picture could not be painted.\n");
			goto out;
		}
		scene_release(&sc);
		webview_pic_put(w, g, at, im.png, im.len);	/* taken */
		im.png = NULL;
		pic = webview_pic_get(w, g, at);
		paint_image_release(&im);
		w->stats.paints++;
	}
	out->type = "image/png";
	buf_add(&out->body, pic->png, pic->len);
out:
	buf_release(&err);
}

void web_game_answer(struct web *w, const char *rest, const char *query,
		     struct web_answer *out)
{
	const char *slash = strchr(rest, '/');
	size_t tn = slash ? (size_t)(slash - rest) : strlen(rest);
	const char *what = slash ? slash + 1 : "";
	char token[WEB_TOKEN_MAX + 1], base[WEB_TOKEN_MAX + 8];
	struct session_rec rec;
	struct buf err = BUF_INIT;
	long at = query_at(query), npos = -1;
	struct web_game *g = NULL;
	json_t *view;
	int r;

	session_rec_init(&rec);
	if (!token_ok(rest, tn) || (strcmp(what, "") && strcmp(what, "state.json") &&
				    strcmp(what, "board.png") && strcmp(what, "events"))) {
		not_found(out);
		goto out;
	}
	memcpy(token, rest, tn);
	token[tn] = 0;
	snprintf(base, sizeof(base), "/g/%s", token);
	r = session_of(w, token, &rec, &err);
	if (r < 0) {
		log_warn("web: the store: %s", buf_str(&err));
		answer_text(out, 503, "The bot cannot read its store just now; try again.\n");
		goto out;
	}
	if (r == 0) {
		not_found(out);
		goto out;
	}
	if (!strcmp(what, "events")) {
		out->type = "text/event-stream";
		snprintf(out->stream, sizeof(out->stream), "g:%lld", (long long)rec.id);
		buf_addstr(&out->body, "retry: 5000\n\n");
		webwatch_add(w, &rec, token);
		goto out;
	}
	if (at == -2 && strcmp(what, "")) {
		g = webview_game(w, &rec, &err);
		bad_at(out, g ? webview_positions(g) : 0);
		goto out;
	}
	if (!strcmp(what, "board.png")) {
		board_png(w, &rec, at, out);
		goto out;
	}
	view = webview_of(w, &rec, base, what[0] ? at : -1, &npos, &g, &err);
	if (!view && npos >= 0) {	/* the one failure once the game is read */
		bad_at(out, npos);
	} else if (!view) {
		log_warn("web: session %lld: %s", (long long)rec.id, buf_str(&err));
		not_found(out);
	} else if (!what[0]) {
		page_html(view, base, out);
	} else {
		out->type = "application/json";
		webview_state_json(g, view, &out->body);
	}
	json_decref(view);
out:
	session_rec_release(&rec);
	buf_release(&err);
}

void web_static_answer(const char *name, struct web_answer *out)
{
	const struct web_asset *a = asset(name);
	size_t n = strlen(name);

	/* the template is no page of its own */
	if (!a || (n >= 5 && !strcmp(name + n - 5, ".html"))) {
		not_found(out);
		return;
	}
	out->type = a->type;
	out->cache_seconds = WEB_STATIC_MAX_AGE;
	buf_add(&out->body, a->data, a->len);
}

/* ---- events ---- */

static void topic_of(int64_t id, char out[32])
{
	snprintf(out, 32, "g:%lld", (long long)id);
}

void web_gone(struct session_mgr *m, int64_t session)
{
	struct web *w = m->web;
	char topic[32];

	if (!w)
		return;
	webview_drop(w, session);
	webwatch_forget(w, session);
	if (!w->close_topic)
		return;
	topic_of(session, topic);
	w->close_topic(w->pub_ctx, topic, "event: gone\ndata: {}\n\n");
	w->stats.closed++;
}

/* A picture painted off the loop is back: kept as g's latest when the
 * session has not changed since. */
static void prepaint_done(void *ctx, struct paint_job *job)
{
	struct web *w = ctx;
	struct web_prepaint *p = job->owner;
	struct web_game *g = webview_cached(w, p->session);

	if (g && g->gen == p->gen && !job->failed) {
		webview_pic_put(w, g, p->at, job->im.png, job->im.len);	/* taken */
		job->im.png = NULL;
		w->stats.prepaints_kept++;
	}
	p->session = 0;
	paint_job_free(job);
}

/* The new latest picture of c's game (position at), painted off the loop
 * for its viewers. */
static void prepaint(struct web *w, const struct change *c, struct web_game *g, long at)
{
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct web_prepaint *p = NULL;
	struct paint_job *job;
	struct scene sc;
	size_t i;
	int k;

	if (!w->paint || !c->s->ops || !c->s->ops->scene)
		return;
	for (i = 0; i < WEB_PREPAINTS && !p; i++)
		if (!w->prepaint[i].session)
			p = &w->prepaint[i];
	if (!p)
		return;		/* busy: painted when asked for */
	for (k = 0; k < GAME_MAX_SEATS; k++)
		names[k] = k < c->rec.nseats ? c->rec.seats[k].name : NULL;
	v.loc = g->loc;
	v.nseats = c->rec.nseats;
	v.names = names;
	scene_init(&sc);
	if (c->s->ops->scene(c->st, -1, &v, &sc)) {
		scene_release(&sc);
		return;
	}
	job = paint_job_new((uint64_t)c->rec.id, &sc);
	p->session = c->rec.id;
	p->at = at;
	p->gen = g->gen;
	job->owner = p;
	job->done = prepaint_done;
	job->done_ctx = w;
	if (w->paint(w->paint_ctx, job)) {
		p->session = 0;
		paint_job_free(job);
		return;
	}
	w->stats.prepaints++;
}

void web_committed(struct session_mgr *m, const struct change *c)
{
	struct web *w = m->web;
	const struct session_rec *old = &c->s->rec;
	struct room_settings a, b;
	struct web_game *g;
	char topic[32], ev[96];
	int64_t last;
	size_t viewers;
	int n;

	if (!w || !c->rec.id)
		return;
	last = (c->truncate ? c->truncate_after : c->s->last_seq) + (int64_t)c->nactions;
	webwatch_committed(w, &c->rec, last);
	if (c->rec.status == SESSION_LOBBY)
		return;
	if (!web_enabled(&c->rec)) {
		if (web_enabled(old) || old->id != c->rec.id)
			web_gone(m, c->rec.id);
		return;
	}
	roomset_read(old, &a);
	roomset_read(&c->rec, &b);
	/* what the page shows changed: a move (or an undo), the game's
	 * status, the pause */
	if (!c->nactions && !c->truncate && old->id == c->rec.id && old->status == c->rec.status &&
	    a.paused == b.paused)
		return;
	g = webview_cached(w, c->rec.id);
	if (g)
		g->gen++;	/* a picture painted before this commit is not kept */
	if (!w->publish)
		return;
	topic_of(c->rec.id, topic);
	n = snprintf(ev, sizeof(ev), "event: move\ndata: {\"positions\":%lld}\n\n",
		     (long long)last + 1);
	viewers = w->publish(w->pub_ctx, topic, ev, (size_t)n);
	w->stats.published++;
	if (viewers && g && c->st && (c->nactions || c->truncate))
		prepaint(w, c, g, (long)last);
}

/* ---- on the HTTP server ---- */

static size_t http_publish(void *ctx, const char *topic, const char *text, size_t len)
{
	return httpd_publish(ctx, topic, text, len);
}

static void http_close_topic(void *ctx, const char *topic, const char *text)
{
	httpd_close_topic(ctx, topic, text);
}

static unsigned http_streams(void *ctx, const char *topic)
{
	return httpd_topic_streams(ctx, topic);
}

static void to_response(struct web *w, const struct web_answer *a, struct httpd_response *rs)
{
	rs->status = a->status;
	rs->type = a->type;
	rs->cache_seconds = a->cache_seconds;
	buf_reset(&rs->body);
	if (a->body.len)
		buf_add(&rs->body, a->body.s, a->body.len);
	if (a->stream[0]) {	/* httpd copies it when the handler returns */
		snprintf(w->topic, sizeof(w->topic), "%s", a->stream);
		rs->stream = w->topic;
	}
}

static void serve_game(void *ctx, const struct httpd_request *rq, struct httpd_response *rs)
{
	struct web *w = ctx;
	struct web_answer a;

	web_answer_init(&a);
	web_game_answer(w, rq->rest, rq->query, &a);
	to_response(w, &a, rs);
	web_answer_release(&a);
}

static void serve_static(void *ctx, const struct httpd_request *rq, struct httpd_response *rs)
{
	struct web_answer a;

	web_answer_init(&a);
	web_static_answer(rq->rest, &a);
	to_response(ctx, &a, rs);
	web_answer_release(&a);
}

int web_attach(struct web *w, struct httpd *h, struct buf *err)
{
	if (httpd_route_prefix(h, "/g/", serve_game, w) ||
	    httpd_route_prefix(h, "/static/", serve_static, w)) {
		buf_setf(err, "the HTTP server's route table is full");
		return -1;
	}
	w->publish = http_publish;
	w->close_topic = http_close_topic;
	w->streams = http_streams;
	w->pub_ctx = h;
	/* another process may commit what the viewers here watch */
	w->watch_shared = store_shared(w->m->store);
	return 0;
}

/* ---- set-up ---- */

/* session_mgr.web_gone: `game web off` or `game web reset` took the
 * page away (bot/settings.c). */
static void page_taken_away(void *ctx, const struct session *s)
{
	web_gone(ctx, s->rec.id);
}

static int64_t monotonic_ms(void *ctx)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void web_init(struct web *w, struct session_mgr *m)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->now_ms = monotonic_ms;
	w->paint_tokens = WEB_PAINTS_BURST;
	m->web = w;
	m->web_gone = page_taken_away;
	m->web_gone_ctx = m;
}

void web_release(struct web *w)
{
	size_t i;

	for (i = 0; i < WEB_CACHE_GAMES; i++)
		webview_free(w->games[i]);
	webwatch_release(w);
	if (w->m && w->m->web == w) {
		w->m->web = NULL;
		w->m->web_gone = NULL;
		w->m->web_gone_ctx = NULL;
	}
	memset(w, 0, sizeof(*w));
}
