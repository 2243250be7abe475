/*
 * matrix: the adapter.  See matrix.h and docs/matrix.md.
 */
#include "adapters/matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <uv.h>

#include "adapters/http.h"
#include "adapters/matrix/mxhtml.h"
#include "adapters/matrix/mxsync.h"
#include "util/logging.h"
#include "util/rng.h"
#include "util/text.h"

#define API "/_matrix/client/v3"
#define CURSOR_SINCE "matrix.since"
#define CURSOR_DEVICE "matrix.device"
#define CURSOR_DM_PREFIX "matrix.dm."
#define MAX_ATTEMPTS 8
#define BACKOFF_BASE_MS 500
#define BACKOFF_CAP_MS 30000
#define SYNC_RETRY_MS 5000
#define DONE_MAX 512		/* events handled within one sync batch */

/* Request contexts in flight, freed at stop (the HTTP client drops them
 * without calling back). */
struct live {
	struct live *prev, *next;
	void (*release)(struct live *l);
	int is_req;		/* a struct mxreq (unpark looks for those) */
};

struct member {
	char user[MX_ID_SIZE];
	char name[MX_NAME_SIZE];
	char membership[16];
};

struct mroom {
	char id[MX_ID_SIZE];
	struct member *mem;
	size_t n, cap;
	int encrypted;		/* told and left */
	int touched;		/* membership changed in this batch */
	/* the bot's last public answer here, which a newer answer with the
	 * same first line replaces (m.replace) while the room has moved on by
	 * at most EDIT_WINDOW other messages: lobby and status summaries */
	char last_event[MX_ID_SIZE];
	char last_title[128];
	int since_last;
	int answer_pending;	/* that answer is on its way; no event id yet */
};

#define EDIT_WINDOW 4

struct dm {
	char user[MX_ID_SIZE];
	char room[MX_ID_SIZE];	/* "" while being created */
	int told;		/* the game room was told where to look */
	struct pending_msg *waiting;	/* messages until the room exists */
};

struct matrix;
typedef void (*mx_fn)(struct matrix *m, long status, const char *errcode,
		      const char *body, size_t len, void *ctx);

struct lane;

struct mxreq {
	struct live live;	/* first */
	struct matrix *m;
	char method[8];
	char *path;
	char *body;
	struct lane *lane;
	struct mxreq *next;	/* in its lane */
	int attempts;
	int auth;
	long timeout_ms;
	mx_fn cb;
	void *ctx;
	uv_timer_t timer;
	int timer_on;		/* initialised: must be closed */
	int parked;		/* waiting for a new login */
	/* an m.replace of the room's last answer, whose event id was not
	 * known yet when queued (see send_public_answer) */
	char edit_room[MX_ID_SIZE];
};

struct lane {
	char room[MX_ID_SIZE];
	struct mxreq *head, *tail;
	struct lane *next;
};

struct matrix {
	struct adapter base;
	uv_loop_t *loop;
	struct http_client *http;
	struct store *store;
	char *homeserver, *token, *user, *password, *prefix, *allow;
	char me[MX_ID_SIZE];
	char device[64];
	int started, stopping, exit_code;
	int logging_in;
	int synced;		/* a sync succeeded in this process */
	struct rng rng;
	uint64_t txn_base;
	unsigned txn_counter;

	char *since;		/* NULL before the first sync */
	char done[DONE_MAX][MX_ID_SIZE];
	size_t ndone;
	json_t *direct;		/* our m.direct content */
	int direct_busy;	/* a PUT of it is in flight */
	int direct_dirty;	/* it changed since that PUT was made */

	struct mroom *rooms;
	size_t nrooms, caprooms;
	struct dm *dms;
	size_t ndms, capdms;
	struct lane *lanes;
	uv_timer_t sync_timer;
	struct live live;
};

/* A message waiting for its DM room. */
struct pending_msg {
	struct pending_msg *next;
	json_t *contents;	/* array */
	char txn[96];
	int64_t outbox_id;
	char origin_room[MX_ID_SIZE];	/* where to say "look in your DMs" */
};

static struct matrix *downcast(struct adapter *a)
{
	return (struct matrix *)a;
}

static void live_add(struct matrix *m, struct live *l, void (*release)(struct live *))
{
	l->release = release;
	l->next = m->live.next;
	l->prev = &m->live;
	m->live.next->prev = l;
	m->live.next = l;
}

static void live_del(struct live *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = l;
}

/* Percent-encodes a path segment or query value. */
static void enc(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~')
			buf_addch(b, (char)c);
		else
			buf_printf(b, "%%%02X", c);
	}
}

static void copy_id(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

int matrix_allowed(const char *allow, const char *inviter, const char *room)
{
	const char *p = allow, *server;
	size_t n;

	if (!allow || !*allow)
		return 1;
	server = inviter ? strchr(inviter, ':') : NULL;
	while (*p) {
		while (*p == ',' || *p == ' ')
			p++;
		n = strcspn(p, ", ");
		if (!n)
			break;
		if (inviter && strlen(inviter) == n && !strncmp(inviter, p, n))
			return 1;
		if (server && p[0] != '@' && strlen(server + 1) == n && !strncmp(server + 1, p, n))
			return 1;
		p += n;
	}
	(void)room;
	return 0;
}

/* ---- rooms and members ---- */

static struct mroom *room_get(struct matrix *m, const char *id, int create)
{
	size_t i;

	for (i = 0; i < m->nrooms; i++)
		if (!strcmp(m->rooms[i].id, id))
			return &m->rooms[i];
	if (!create)
		return NULL;
	if (m->nrooms == m->caprooms) {
		m->caprooms = m->caprooms ? m->caprooms * 2 : 16;
		m->rooms = xrealloc(m->rooms, m->caprooms * sizeof(*m->rooms));
	}
	memset(&m->rooms[m->nrooms], 0, sizeof(m->rooms[0]));
	copy_id(m->rooms[m->nrooms].id, MX_ID_SIZE, id);
	return &m->rooms[m->nrooms++];
}

static void room_drop(struct matrix *m, const char *id)
{
	size_t i;

	for (i = 0; i < m->nrooms; i++) {
		if (strcmp(m->rooms[i].id, id))
			continue;
		free(m->rooms[i].mem);
		m->rooms[i] = m->rooms[--m->nrooms];
		return;
	}
}

static struct member *member_get(struct mroom *r, const char *user, int create)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->mem[i].user, user))
			return &r->mem[i];
	if (!create)
		return NULL;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->mem = xrealloc(r->mem, r->cap * sizeof(*r->mem));
	}
	memset(&r->mem[r->n], 0, sizeof(r->mem[0]));
	copy_id(r->mem[r->n].user, MX_ID_SIZE, user);
	return &r->mem[r->n++];
}

static const char *display_name(struct matrix *m, const char *room, const char *user)
{
	struct mroom *r = room_get(m, room, 0);
	struct member *mm = r ? member_get(r, user, 0) : NULL;

	return mm && mm->name[0] ? mm->name : user;
}

/* ---- DM rooms ---- */

static struct dm *dm_get(struct matrix *m, const char *user, int create)
{
	struct buf key = BUF_INIT, val = BUF_INIT, err = BUF_INIT;
	size_t i;
	struct dm *d;

	for (i = 0; i < m->ndms; i++)
		if (!strcmp(m->dms[i].user, user))
			return &m->dms[i];
	buf_printf(&key, CURSOR_DM_PREFIX "%s", user);
	if (store_cursor_get(m->store, buf_str(&key), &val, &err) < 0)
		log_warn("matrix: reading the DM room of a player: %s", buf_str(&err));
	if (!val.len && !create) {
		buf_release(&key);
		buf_release(&val);
		buf_release(&err);
		return NULL;
	}
	if (m->ndms == m->capdms) {
		m->capdms = m->capdms ? m->capdms * 2 : 16;
		m->dms = xrealloc(m->dms, m->capdms * sizeof(*m->dms));
	}
	d = &m->dms[m->ndms++];
	memset(d, 0, sizeof(*d));
	copy_id(d->user, MX_ID_SIZE, user);
	{
		/* "room" or "room\ntold" */
		const char *nl = strchr(buf_str(&val), '\n');

		snprintf(d->room, MX_ID_SIZE, "%.*s",
			 (int)(nl ? (size_t)(nl - buf_str(&val)) : val.len), buf_str(&val));
		d->told = nl && !strcmp(nl + 1, "told");
	}
	buf_release(&key);
	buf_release(&val);
	buf_release(&err);
	return d;
}

static void dm_remember(struct matrix *m, const char *user, const char *room, int told)
{
	struct buf key = BUF_INIT, err = BUF_INIT, val = BUF_INIT;

	buf_printf(&key, CURSOR_DM_PREFIX "%s", user);
	buf_printf(&val, "%s%s", room, told && *room ? "\ntold" : "");
	if (store_cursor_set(m->store, buf_str(&key), buf_str(&val), &err) < 0)
		log_warn("matrix: storing a DM room: %s", buf_str(&err));
	buf_release(&key);
	buf_release(&val);
	buf_release(&err);
}

static int is_dm_room(struct matrix *m, const char *room, const char *user)
{
	struct dm *d = dm_get(m, user, 0);
	json_t *rooms, *v;
	size_t i;

	if (d && !strcmp(d->room, room))
		return 1;
	rooms = m->direct ? json_object_get(m->direct, user) : NULL;
	json_array_foreach(rooms, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), room))
			return 1;
	return 0;
}

/* ---- requests ---- */

static void req_start(struct mxreq *q);
static void on_timer_closed(uv_handle_t *h);

static void req_free(struct mxreq *q)
{
	live_del(&q->live);
	free(q->path);
	if (q->body)
		memset(q->body, 0, strlen(q->body));	/* a login holds the password */
	free(q->body);
	if (q->timer_on) {
		uv_close((uv_handle_t *)&q->timer, on_timer_closed);
		return;
	}
	free(q);
}

static void on_timer_closed(uv_handle_t *h)
{
	free(h->data);
}

static void req_release(struct live *l)
{
	req_free((struct mxreq *)l);
}

static struct lane *lane_get(struct matrix *m, const char *room)
{
	struct lane *l;

	for (l = m->lanes; l; l = l->next)
		if (!strcmp(l->room, room))
			return l;
	l = xcalloc(1, sizeof(*l));
	copy_id(l->room, sizeof(l->room), room);
	l->next = m->lanes;
	m->lanes = l;
	return l;
}

/* Queues a request.  lane_room: requests of one room go one at a time, in
 * order; NULL: independent.  body: JSON (borrowed) or NULL. */
static struct mxreq *mx_call_ex(struct matrix *m, const char *method, const char *path,
				json_t *body, const char *lane_room, long timeout_ms, int auth,
				mx_fn cb, void *ctx)
{
	struct mxreq *q = xcalloc(1, sizeof(*q));

	q->m = m;
	snprintf(q->method, sizeof(q->method), "%s", method);
	q->path = xstrdup(path);
	q->body = body ? json_dumps(body, JSON_COMPACT) : NULL;
	q->auth = auth;
	q->timeout_ms = timeout_ms;
	q->cb = cb;
	q->ctx = ctx;
	live_add(m, &q->live, req_release);
	q->live.is_req = 1;
	if (lane_room) {
		q->lane = lane_get(m, lane_room);
		if (q->lane->tail)
			q->lane->tail->next = q;
		else
			q->lane->head = q;
		q->lane->tail = q;
		if (q->lane->head != q)
			return q;	/* starts when the ones before it are done */
	}
	req_start(q);
	return NULL;	/* may be finished already */
}

static struct mxreq *mx_call(struct matrix *m, const char *method, const char *path,
			     json_t *body, const char *lane_room, long timeout_ms, mx_fn cb,
			     void *ctx)
{
	return mx_call_ex(m, method, path, body, lane_room, timeout_ms, 1, cb, ctx);
}

static void lane_advance(struct mxreq *q)
{
	struct lane *l = q->lane, **pp;

	if (!l)
		return;
	q->lane = NULL;
	l->head = q->next;
	if (l->head) {
		req_start(l->head);
		return;
	}
	/* An empty lane goes: lane_get scans the list for every request, and
	 * with a lane kept for every room ever written to (a thousand game
	 * rooms and as many direct chats) that scan was 8 % of the bot's time
	 * per command.  The next request to the room makes a new one. */
	for (pp = &q->m->lanes; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			free(l);
			break;
		}
	}
}

static void finish(struct mxreq *q, long status, const char *errcode, const char *body,
		   size_t len)
{
	struct matrix *m = q->m;

	if (q->cb && !m->stopping)
		q->cb(m, status, errcode, body, len, q->ctx);
	lane_advance(q);
	req_free(q);
}

static void on_retry(uv_timer_t *t)
{
	req_start(t->data);
}

static void retry_later(struct mxreq *q, uint64_t ms)
{
	if (!q->timer_on) {
		uv_timer_init(q->m->loop, &q->timer);
		q->timer.data = q;
		q->timer_on = 1;
	}
	uv_timer_start(&q->timer, on_retry, ms, 0);
}

static uint64_t backoff(struct matrix *m, int attempts)
{
	uint64_t b = (uint64_t)BACKOFF_BASE_MS << (attempts < 10 ? attempts : 10);

	if (b > BACKOFF_CAP_MS)
		b = BACKOFF_CAP_MS;
	return b / 2 + rng_next(&m->rng) % (b / 2 + 1);
}

static void relogin(struct matrix *m);

static void fatal(struct matrix *m, const char *why)
{
	log_err("matrix: %s (exit %d)", why, MATRIX_EXIT_AUTH);
	m->exit_code = MATRIX_EXIT_AUTH;
	uv_stop(m->loop);
}

static void on_http(struct http_resp *resp, void *ctx)
{
	struct mxreq *q = ctx;
	struct matrix *m = q->m;
	json_t *j = NULL;
	const char *errcode = NULL;
	long status = resp->status;

	if (m->stopping)
		return;
	if (status >= 400)
		j = json_loadb(resp->body.s ? resp->body.s : "", resp->body.len, 0, NULL);
	errcode = json_string_value(json_object_get(j, "errcode"));
	if (status == 429 || (errcode && !strcmp(errcode, "M_LIMIT_EXCEEDED"))) {
		json_t *ra = json_object_get(j, "retry_after_ms");
		size_t hl;
		const char *h = http_resp_header(resp, "Retry-After", &hl);
		uint64_t wait = 1000;

		if (json_is_integer(ra) && json_integer_value(ra) >= 0)
			wait = (uint64_t)json_integer_value(ra);
		else if (h)
			wait = (uint64_t)strtoul(h, NULL, 10) * 1000;
		if (wait > 600000)
			wait = 600000;
		if (++q->attempts < MAX_ATTEMPTS * 2) {
			log_info("matrix: rate limited; retrying in %llu ms", (unsigned long long)wait);
			retry_later(q, wait);
			json_decref(j);
			return;
		}
	} else if (status == 401 && errcode && !strcmp(errcode, "M_UNKNOWN_TOKEN") && q->auth) {
		json_decref(j);
		if (!m->password) {
			fatal(m, "the access token was refused (M_UNKNOWN_TOKEN)");
			return;
		}
		q->parked = 1;
		relogin(m);
		return;
	} else if (status == 0 || status >= 500) {
		if (++q->attempts < MAX_ATTEMPTS) {
			uint64_t wait = backoff(m, q->attempts);

			log_info("matrix: %s failed (%s); retrying in %llu ms",
				 q->method, status ? "server error" : resp->error,
				 (unsigned long long)wait);
			retry_later(q, wait);
			json_decref(j);
			return;
		}
	}
	finish(q, status, errcode, resp->body.s ? resp->body.s : "", resp->body.len);
	json_decref(j);
}

static struct mroom *room_get(struct matrix *m, const char *id, int create);

/* Fills in the event an edit replaces, now that the answer before it in the
 * lane has landed; without one (it failed) the edit becomes a new message. */
static void patch_edit(struct mxreq *q)
{
	struct mroom *r = room_get(q->m, q->edit_room, 0);
	json_t *j = json_loads(q->body, 0, NULL);

	q->edit_room[0] = '\0';
	if (!j)
		return;
	if (r && r->last_event[0]) {
		json_object_set_new(json_object_get(j, "m.relates_to"), "event_id",
				    json_string(r->last_event));
	} else {
		json_t *nc = json_incref(json_object_get(j, "m.new_content"));

		json_decref(j);
		j = nc;
	}
	free(q->body);
	q->body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
}

static void req_start(struct mxreq *q)
{
	struct matrix *m = q->m;
	struct buf url = BUF_INIT, auth = BUF_INIT, err = BUF_INIT;
	const char *hdrs[2];
	struct http_req r;
	size_t nh = 0;

	if (m->stopping)
		return;
	if (q->auth && (!m->token || m->logging_in)) {
		q->parked = 1;	/* resumed after the login */
		return;
	}
	q->parked = 0;
	if (q->edit_room[0])
		patch_edit(q);
	buf_printf(&url, "%s%s", m->homeserver, q->path);
	if (q->auth) {
		buf_printf(&auth, "Authorization: Bearer %s", m->token);
		hdrs[nh++] = buf_str(&auth);
	}
	hdrs[nh++] = "Content-Type: application/json";
	memset(&r, 0, sizeof(r));
	r.method = q->method;
	r.url = buf_str(&url);
	r.headers = hdrs;
	r.nheaders = nh;
	r.body = q->body;
	r.body_len = q->body ? strlen(q->body) : 0;
	r.timeout_ms = q->timeout_ms;
	if (http_request(m->http, &r, on_http, q, &err)) {
		log_warn("matrix: request not sent: %s", buf_str(&err));
		finish(q, 0, NULL, "", 0);
	}
	if (auth.s)
		memset(auth.s, 0, auth.len);
	buf_release(&url);
	buf_release(&auth);
	buf_release(&err);
}

/* Restarts every request that waited for a login. */
static void unpark(struct matrix *m)
{
	struct live *l, *next;

	for (l = m->live.next; l != &m->live; l = next) {
		struct mxreq *q = (struct mxreq *)l;

		next = l->next;
		if (l->is_req && q->parked)
			req_start(q);
	}
}

/* ---- sending ---- */

struct post {
	struct live live;	/* first */
	struct matrix *m;
	int64_t outbox_id;
	size_t pending;
	int failed;
	/* a one-message public answer: remember its event for later edits */
	char room[MX_ID_SIZE];
	char title[128];
};

static void post_release(struct live *l)
{
	live_del(l);
	free(l);
}

static void on_sent(struct matrix *m, long status, const char *errcode, const char *body,
		    size_t len, void *ctx)
{
	struct post *p = ctx;

	if (status == 0 || status >= 500 || status == 429) {
		log_warn("matrix: message not delivered (HTTP %ld); kept for the next start", status);
		p->failed = 1;
	} else if (status >= 400) {
		log_warn("matrix: message refused (HTTP %ld %s); dropped", status,
			 errcode ? errcode : "");
	}
	if (p->title[0]) {
		struct mroom *r = room_get(m, p->room, 0);

		if (r && !strcmp(r->last_title, p->title))
			r->answer_pending = 0;
	}
	if (p->title[0] && status == 200) {
		json_t *j = json_loadb(body, len, 0, NULL);
		const char *ev = json_string_value(json_object_get(j, "event_id"));
		struct mroom *r = room_get(m, p->room, 1);

		if (ev && strlen(ev) < MX_ID_SIZE && !strcmp(r->last_title, p->title))
			copy_id(r->last_event, MX_ID_SIZE, ev);
		json_decref(j);
	}
	if (--p->pending)
		return;
	if (!p->failed && p->outbox_id > 0 && m->base.on_sent)
		m->base.on_sent(m->base.ctx, &m->base, p->outbox_id);
	live_del(&p->live);
	free(p);
}

/* Sends the messages of contents (an array, borrowed) to room, with txn ids
 * txn.0, txn.1, ...; on_sent(outbox_id) when all landed. */
static void send_contents_t(struct matrix *m, const char *room, json_t *contents,
			    const char *txn, int64_t outbox_id, const char *title)
{
	struct post *p = xcalloc(1, sizeof(*p));
	size_t i, n = json_array_size(contents);

	p->m = m;
	p->outbox_id = outbox_id;
	copy_id(p->room, MX_ID_SIZE, room);
	if (title && n == 1)
		snprintf(p->title, sizeof(p->title), "%s", title);
	p->pending = n;
	live_add(m, &p->live, post_release);
	for (i = 0; i < n; i++) {
		struct buf path = BUF_INIT, t = BUF_INIT;

		buf_printf(&t, "%s.%zu", txn, i);
		buf_addstr(&path, API "/rooms/");
		enc(&path, room);
		buf_addstr(&path, "/send/m.room.message/");
		enc(&path, buf_str(&t));
		mx_call(m, "PUT", buf_str(&path), json_array_get(contents, i), room, 0, on_sent, p);
		buf_release(&path);
		buf_release(&t);
	}
	if (!n) {
		live_del(&p->live);
		free(p);
		if (outbox_id > 0 && m->base.on_sent)
			m->base.on_sent(m->base.ctx, &m->base, outbox_id);
	}
}

static void new_txn(struct matrix *m, char *out, size_t n)
{
	snprintf(out, n, "tabula.r.%llu.%u", (unsigned long long)m->txn_base, ++m->txn_counter);
}

static void send_contents(struct matrix *m, const char *room, json_t *contents, const char *txn,
			  int64_t outbox_id)
{
	send_contents_t(m, room, contents, txn, outbox_id, NULL);
}

/* "@user: your private messages are in a direct chat with me" in the game
 * room, once per DM room, while the player has not joined it. */
static void tell_where(struct matrix *m, struct dm *d, const char *origin_room)
{
	struct mroom *r = room_get(m, d->room, 0);
	struct member *mm = r ? member_get(r, d->user, 0) : NULL;
	struct rich body = RICH_INIT;
	char txn[96];
	json_t *c;

	if (d->told || !origin_room || !*origin_room || !strcmp(origin_room, d->room) ||
	    (mm && !strcmp(mm->membership, "join")))
		return;
	d->told = 1;
	dm_remember(m, d->user, d->room, 1);
	rich_mention(&body, d->user, display_name(m, origin_room, d->user));
	rich_text(&body, ": I sent you a private message (your hand and your moves). Accept my "
		  "invitation to a direct chat to read it. / Te he enviado un mensaje privado: "
		  "acepta mi invitación a un chat directo para leerlo.");
	c = mx_notice_contents(&body);
	new_txn(m, txn, sizeof(txn));
	send_contents(m, origin_room, c, txn, 0);
	json_decref(c);
	rich_release(&body);
}

static void flush_waiting(struct matrix *m, struct dm *d)
{
	struct pending_msg *p = d->waiting, *next;

	d->waiting = NULL;
	for (; p; p = next) {
		next = p->next;
		if (d->room[0]) {
			send_contents(m, d->room, p->contents, p->txn, p->outbox_id);
			tell_where(m, d, p->origin_room);
		}
		json_decref(p->contents);
		free(p);
	}
}

struct dmctx {
	struct live live;	/* first */
	char user[MX_ID_SIZE];
};

static void dmctx_release(struct live *l)
{
	live_del(l);
	free(l);
}

static void put_direct(struct matrix *m);

static void on_direct_put(struct matrix *m, long status, const char *errcode, const char *body,
			  size_t len, void *ctx)
{
	if (status < 200 || status >= 300)
		log_warn("matrix: could not update m.direct (HTTP %ld)", status);
	m->direct_busy = 0;
	if (m->direct_dirty)
		put_direct(m);
}

/*
 * Writes our m.direct, whole.  One PUT at a time: PUTs in parallel (one per
 * new DM room) land in any order, and an older list landing last dropped
 * rooms (250 of 1000 in the benchmark).  Changes made while one is in flight
 * go in one more PUT after it.
 */
static void put_direct(struct matrix *m)
{
	struct buf path = BUF_INIT;

	if (m->direct_busy) {
		m->direct_dirty = 1;
		return;
	}
	m->direct_busy = 1;
	m->direct_dirty = 0;
	buf_addstr(&path, API "/user/");
	enc(&path, m->me);
	buf_addstr(&path, "/account_data/m.direct");
	mx_call(m, "PUT", buf_str(&path), m->direct, NULL, 0, on_direct_put, NULL);
	buf_release(&path);
}

static int has_string(json_t *arr, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/*
 * Takes the server's m.direct from a sync, keeping the DM rooms we recorded
 * that it lacks: the sync can carry a copy older than our last PUT (they
 * race on different connections), and taking it as it is would drop those
 * rooms from the next PUT.  If it lacked any, they are written back.  (A
 * room another client removed from the bot's m.direct comes back: the bot
 * never removes any.)
 */
static void merge_direct(struct matrix *m, json_t *server)
{
	json_t *merged = json_deep_copy(server), *list, *v;
	const char *user;
	size_t i;
	int missing = 0;

	json_object_foreach(m->direct, user, list) {
		json_t *theirs = json_object_get(merged, user);

		json_array_foreach(list, i, v) {
			if (!json_is_string(v) || has_string(theirs, json_string_value(v)))
				continue;
			if (!json_is_array(theirs)) {
				theirs = json_array();
				json_object_set_new(merged, user, theirs);
			}
			json_array_append(theirs, v);
			missing = 1;
		}
	}
	json_decref(m->direct);
	m->direct = merged;
	if (missing)
		put_direct(m);
}

static void record_direct(struct matrix *m, const char *user, const char *room)
{
	json_t *list;

	if (!m->direct)
		m->direct = json_object();
	list = json_object_get(m->direct, user);
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(m->direct, user, list);
	}
	json_array_append_new(list, json_string(room));
	put_direct(m);
}

static void on_room_created(struct matrix *m, long status, const char *errcode,
			    const char *body, size_t len, void *ctx)
{
	struct dmctx *c = ctx;
	struct dm *d = dm_get(m, c->user, 1);
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *room = json_string_value(json_object_get(j, "room_id"));

	live_del(&c->live);
	if (status == 200 && room && strlen(room) < MX_ID_SIZE) {
		struct mroom *r = room_get(m, room, 1);
		struct member *mm = member_get(r, c->user, 1);

		copy_id(d->room, MX_ID_SIZE, room);
		snprintf(mm->membership, sizeof(mm->membership), "invite");
		dm_remember(m, c->user, room, 0);
		record_direct(m, c->user, room);
		log_info("matrix: created a direct chat for a player");
	} else {
		log_warn("matrix: could not create a direct chat (HTTP %ld %s)", status,
			 errcode ? errcode : "");
	}
	flush_waiting(m, d);	/* without a room the messages stay in the outbox */
	json_decref(j);
	free(c);
}

/* Sends contents privately to user, creating their DM room if needed. */
static void send_private(struct matrix *m, const char *user, json_t *contents, const char *txn,
			 int64_t outbox_id, const char *origin_room)
{
	struct dm *d = dm_get(m, user, 1);
	struct pending_msg *p;

	if (d->room[0]) {
		send_contents(m, d->room, contents, txn, outbox_id);
		tell_where(m, d, origin_room);
		return;
	}
	p = xcalloc(1, sizeof(*p));
	p->contents = json_incref(contents);
	snprintf(p->txn, sizeof(p->txn), "%s", txn);
	p->outbox_id = outbox_id;
	copy_id(p->origin_room, MX_ID_SIZE, origin_room);
	if (!d->waiting) {
		struct dmctx *c = xcalloc(1, sizeof(*c));
		json_t *req = json_pack("{s:s, s:b, s:[s], s:s}", "preset", "trusted_private_chat",
					"is_direct", 1, "invite", user, "name", "tabula");

		copy_id(c->user, MX_ID_SIZE, user);
		live_add(m, &c->live, dmctx_release);
		mx_call(m, "POST", API "/createRoom", req, NULL, 0, on_room_created, c);
		json_decref(req);
	}
	{
		struct pending_msg **tail = &d->waiting;

		while (*tail)
			tail = &(*tail)->next;
		*tail = p;
	}
}

static int matrix_send(struct adapter *a, const struct outmsg *msg, struct buf *err)
{
	struct matrix *m = downcast(a);
	json_t *c = mx_notice_contents(msg->body);
	char txn[96];

	snprintf(txn, sizeof(txn), "%s", msg->key && *msg->key ? msg->key : "");
	if (!txn[0])
		new_txn(m, txn, sizeof(txn));
	if (msg->user) {
		send_private(m, msg->user, c, txn, msg->outbox_id, msg->room);
	} else {
		struct mroom *r = room_get(m, msg->room, 0);

		if (r) {
			r->last_event[0] = '\0';	/* answers above a board stay */
			r->last_title[0] = '\0';
			r->answer_pending = 0;
		}
		send_contents(m, msg->room, c, txn, msg->outbox_id);
	}
	json_decref(c);
	return 0;
}

/*
 * A public answer (not a board: those stay, each with what just happened).
 * When it starts like the bot's previous answer in the room and little was
 * said since, it replaces that one (m.replace): a lobby filling up is one
 * message that changes, not one message per seat.
 */
static void send_public_answer(struct matrix *m, const char *room, json_t *contents,
			       const char *txn)
{
	struct mroom *r = room_get(m, room, 0);
	json_t *c0 = json_array_get(contents, 0);
	const char *body = json_string_value(json_object_get(c0, "body"));
	char title[128];
	size_t tl;

	if (json_array_size(contents) != 1 || !body) {
		send_contents(m, room, contents, txn, 0);
		return;
	}
	tl = strcspn(body, "\n");
	if (tl >= sizeof(title))
		tl = sizeof(title) - 1;
	while (tl && ((unsigned char)body[tl] & 0xC0) == 0x80)
		tl--;	/* never cut a character */
	memcpy(title, body, tl);
	title[tl] = '\0';
	if (r && (r->last_event[0] || r->answer_pending) && tl && !strcmp(r->last_title, title) &&
	    r->since_last <= EDIT_WINDOW) {
		struct buf b = BUF_INIT, fb = BUF_INIT;
		json_t *edit, *arr = json_array();
		const char *f = json_string_value(json_object_get(c0, "formatted_body"));

		buf_printf(&b, "* %s", body);
		buf_printf(&fb, "* %s", f ? f : "");
		edit = json_pack("{s:s, s:s, s:s, s:s, s:O, s:{s:s, s:s}, s:O}",
				 "msgtype", "m.notice", "body", buf_str(&b),
				 "format", "org.matrix.custom.html", "formatted_body", buf_str(&fb),
				 "m.new_content", c0, "m.relates_to", "rel_type", "m.replace",
				 "event_id", r->last_event,
				 "m.mentions", json_object_get(c0, "m.mentions"));
		json_array_append_new(arr, edit);
		if (r->last_event[0]) {
			send_contents(m, room, arr, txn, 0);
		} else {
			/* the answer it replaces is still in this room's lane */
			struct post *p = xcalloc(1, sizeof(*p));
			struct buf path = BUF_INIT, t = BUF_INIT;
			struct mxreq *q;

			p->m = m;
			p->pending = 1;
			live_add(m, &p->live, post_release);
			buf_printf(&t, "%s.0", txn);
			buf_addstr(&path, API "/rooms/");
			enc(&path, room);
			buf_addstr(&path, "/send/m.room.message/");
			enc(&path, buf_str(&t));
			q = mx_call(m, "PUT", buf_str(&path), edit, room, 0, on_sent, p);
			if (q)
				copy_id(q->edit_room, MX_ID_SIZE, room);
			buf_release(&path);
			buf_release(&t);
		}
		json_decref(arr);
		buf_release(&b);
		buf_release(&fb);
		return;
	}
	if (!r)
		r = room_get(m, room, 1);
	snprintf(r->last_title, sizeof(r->last_title), "%s", title);
	r->last_event[0] = '\0';
	r->answer_pending = 1;
	r->since_last = 0;
	send_contents_t(m, room, contents, txn, 0, title);
}

static int matrix_reply(struct adapter *a, const struct command *cmd, int private_,
			const struct rich *body, struct buf *err)
{
	struct matrix *m = downcast(a);
	json_t *c = mx_notice_contents(body);
	char txn[96];

	new_txn(m, txn, sizeof(txn));
	if (private_)
		send_private(m, cmd->user, c, txn, 0, cmd->room);
	else
		send_public_answer(m, cmd->room, c, txn);
	json_decref(c);
	return 0;
}

/* ---- rooms: join, leave ---- */

static void on_left(struct matrix *m, long status, const char *errcode, const char *body,
		    size_t len, void *ctx)
{
	if (status != 200)
		log_warn("matrix: leaving a room failed (HTTP %ld)", status);
}

static void leave_room(struct matrix *m, const char *room)
{
	struct buf path = BUF_INIT;
	json_t *empty = json_object();

	buf_addstr(&path, API "/rooms/");
	enc(&path, room);
	buf_addstr(&path, "/leave");
	/* in the room's lane: a notice queued before it goes out first */
	mx_call(m, "POST", buf_str(&path), empty, room, 0, on_left, NULL);
	json_decref(empty);
	buf_release(&path);
}

struct joinctx {
	struct live live;	/* first */
	char room[MX_ID_SIZE];
	char inviter[MX_ID_SIZE];
	int is_direct;
};

static void joinctx_release(struct live *l)
{
	live_del(l);
	free(l);
}

static void on_joined(struct matrix *m, long status, const char *errcode, const char *body,
		      size_t len, void *ctx)
{
	struct joinctx *c = ctx;

	live_del(&c->live);
	if (status == 200) {
		log_info("matrix: joined a room");
		if (c->is_direct && c->inviter[0]) {
			struct dm *d = dm_get(m, c->inviter, 1);

			if (!d->room[0]) {
				copy_id(d->room, MX_ID_SIZE, c->room);
				dm_remember(m, c->inviter, c->room, 0);
				record_direct(m, c->inviter, c->room);
			}
		}
	} else {
		log_warn("matrix: could not join a room (HTTP %ld %s)", status,
			 errcode ? errcode : "");
	}
	free(c);
}

static void join_room(struct matrix *m, const struct mx_item *it)
{
	struct joinctx *c = xcalloc(1, sizeof(*c));
	struct buf path = BUF_INIT;
	json_t *empty = json_object();

	copy_id(c->room, MX_ID_SIZE, it->room);
	copy_id(c->inviter, MX_ID_SIZE, it->sender);
	c->is_direct = it->is_direct;
	live_add(m, &c->live, joinctx_release);
	buf_addstr(&path, API "/rooms/");
	enc(&path, it->room);
	buf_addstr(&path, "/join");
	mx_call(m, "POST", buf_str(&path), empty, NULL, 0, on_joined, c);
	json_decref(empty);
	buf_release(&path);
}

static void say_encrypted_and_leave(struct matrix *m, struct mroom *r)
{
	struct rich body = RICH_INIT;
	char txn[96];
	json_t *c;

	if (r->encrypted)
		return;
	r->encrypted = 1;
	rich_text(&body, "This room is end-to-end encrypted, and tabula cannot read encrypted "
		  "messages, so it is leaving. Invite it to a room without encryption to play. / "
		  "Esta sala está cifrada de extremo a extremo y tabula no puede leer mensajes "
		  "cifrados, así que se va. Invítalo a una sala sin cifrado para jugar.");
	c = mx_notice_contents(&body);
	new_txn(m, txn, sizeof(txn));
	send_contents(m, r->id, c, txn, 0);
	leave_room(m, r->id);
	json_decref(c);
	rich_release(&body);
	log_info("matrix: left an encrypted room");
}

/* ---- sync ---- */

static void sync_now(struct matrix *m);

static void save_since(struct matrix *m, const char *value)
{
	struct buf err = BUF_INIT;

	if (store_cursor_set(m->store, CURSOR_SINCE, value, &err))
		log_warn("matrix: storing the sync position: %s", buf_str(&err));
	buf_release(&err);
}

/* The cursor value after handling event_id in the batch after m->since. */
static void done_value(struct matrix *m, struct buf *out)
{
	size_t i;

	buf_addstr(out, m->since);
	for (i = 0; i < m->ndone; i++)
		buf_printf(out, "\n%s", m->done[i]);
}

static int is_done(struct matrix *m, const char *event_id)
{
	size_t i;

	for (i = 0; i < m->ndone; i++)
		if (!strcmp(m->done[i], event_id))
			return 1;
	return 0;
}

static void run_message(struct matrix *m, const struct mx_item *it)
{
	struct command cmd;
	struct buf val = BUF_INIT, err = BUF_INIT;
	const char *text = it->text;
	size_t len = it->text_len, plen = strlen(m->prefix);
	int dm = is_dm_room(m, it->room, it->sender);

	if (it->bad_utf8) {
		text = "\xff";	/* the manager answers "not valid text" */
		len = 1;
	} else if (it->too_long) {
		text = "";
		len = COMMAND_MAX_BYTES + 1;	/* the manager answers "too long" */
	} else if (len >= plen && !strncmp(text, m->prefix, plen)) {
		text += plen;
		len -= plen;
	} else if (!dm) {
		return;		/* conversation, not a command */
	}
	if (!it->bad_utf8 && !it->too_long && !len)
		return;
	log_debug("matrix: a command in %s", dm ? "a direct chat" : "a room");
	if (m->ndone < DONE_MAX && it->event_id[0])
		copy_id(m->done[m->ndone++], MX_ID_SIZE, it->event_id);
	done_value(m, &val);
	memset(&cmd, 0, sizeof(cmd));
	cmd.platform = "matrix";
	cmd.room = it->room;
	cmd.user = it->sender;
	cmd.name = display_name(m, it->room, it->sender);
	cmd.locale = NULL;
	cmd.text = text;
	cmd.text_len = len;
	cmd.direct = dm;
	cmd.cursor_key = CURSOR_SINCE;
	cmd.cursor_value = buf_str(&val);
	if (m->base.on_command)
		m->base.on_command(m->base.ctx, &m->base, &cmd);
	/* a command that changed nothing committed nothing: record it here */
	if (store_cursor_set(m->store, CURSOR_SINCE, buf_str(&val), &err))
		log_warn("matrix: storing the sync position: %s", buf_str(&err));
	buf_release(&val);
	buf_release(&err);
}

static void handle_member(struct matrix *m, const struct mx_item *it)
{
	struct mroom *r = room_get(m, it->room, 1);
	struct member *mm = member_get(r, it->state_key, 1);

	snprintf(mm->membership, sizeof(mm->membership), "%s", it->membership);
	if (it->displayname[0])
		snprintf(mm->name, sizeof(mm->name), "%s", it->displayname);
	r->touched = 1;
}

/* Leaves touched rooms where nobody else is joined or invited. */
static void leave_lonely(struct matrix *m)
{
	size_t i, k;

	for (i = 0; i < m->nrooms; i++) {
		struct mroom *r = &m->rooms[i];
		int others = 0, me = 0;

		if (!r->touched)
			continue;
		r->touched = 0;
		for (k = 0; k < r->n; k++) {
			int active = !strcmp(r->mem[k].membership, "join") ||
				     !strcmp(r->mem[k].membership, "invite");

			if (!strcmp(r->mem[k].user, m->me))
				me = !strcmp(r->mem[k].membership, "join");
			else
				others += active;
		}
		if (me && !others && !r->encrypted) {
			size_t d;

			log_info("matrix: alone in a room; leaving it");
			for (d = 0; d < m->ndms; d++) {
				if (!strcmp(m->dms[d].room, r->id)) {
					m->dms[d].room[0] = '\0';
					m->dms[d].told = 0;
					dm_remember(m, m->dms[d].user, "", 0);
				}
			}
			leave_room(m, r->id);
			room_drop(m, r->id);
			i--;
		}
	}
}

static void process(struct matrix *m, struct mx_sync *s, int initial)
{
	size_t i, *join_at = xcalloc(s->nitems ? s->nitems : 1, sizeof(*join_at));

	if (s->direct)
		merge_direct(m, s->direct);
	/* pass 1: where the bot joined a room in this batch; what came before
	 * its join is not for it */
	for (i = 0; i < s->nitems; i++) {
		const struct mx_item *it = &s->items[i];
		struct mroom *r;
		struct member *mm;

		join_at[i] = 0;
		if (it->kind != MX_MEMBER || !it->from_timeline || strcmp(it->state_key, m->me) ||
		    strcmp(it->membership, "join"))
			continue;
		r = room_get(m, it->room, 0);
		mm = r ? member_get(r, m->me, 0) : NULL;
		if (!mm || strcmp(mm->membership, "join"))
			join_at[i] = 1;
	}
	for (i = 0; i < s->nitems; i++) {
		const struct mx_item *it = &s->items[i];
		struct mroom *r;
		size_t k;
		int before_join = 0;

		switch (it->kind) {
		case MX_INVITE:
			if (matrix_allowed(m->allow, it->sender, it->room))
				join_room(m, it);
			else
				leave_room(m, it->room);	/* declines the invite */
			break;
		case MX_LEFT:
			room_drop(m, it->room);
			break;
		case MX_ENCRYPTED:
			say_encrypted_and_leave(m, room_get(m, it->room, 1));
			break;
		case MX_MEMBER:
			handle_member(m, it);
			break;
		case MX_LIMITED:
			log_info("matrix: a room's timeline was limited; older messages skipped");
			break;
		case MX_MESSAGE:
			if (strcmp(it->sender, m->me) && (r = room_get(m, it->room, 0)))
				r->since_last++;
			if (initial || !it->from_timeline || it->is_edit || !strcmp(it->sender, m->me) ||
			    strcmp(it->msgtype, "m.text") || is_done(m, it->event_id))
				break;
			r = room_get(m, it->room, 0);
			if (r && r->encrypted)
				break;
			for (k = i + 1; k < s->nitems; k++)
				if (join_at[k] && !strcmp(s->items[k].room, it->room))
					before_join = 1;
			if (!before_join)
				run_message(m, it);
			break;
		}
	}
	leave_lonely(m);
	free(join_at);
}

static void on_sync_timer(uv_timer_t *t)
{
	sync_now(t->data);
}

static void on_sync(struct matrix *m, long status, const char *errcode, const char *body,
		    size_t len, void *ctx)
{
	struct buf err = BUF_INIT;
	struct mx_sync s;
	int initial = m->since == NULL;

	if (status != 200 || mx_sync_parse(body, len, &s, &err)) {
		log_warn("matrix: sync failed (HTTP %ld%s%s); again in %d ms", status,
			 err.len ? ": " : "", buf_str(&err), SYNC_RETRY_MS);
		uv_timer_start(&m->sync_timer, on_sync_timer, SYNC_RETRY_MS, 0);
		buf_release(&err);
		return;
	}
	if (initial)
		log_info("matrix: first sync; earlier messages are not commands");
	log_debug("matrix: sync: %zu items", s.nitems);
	process(m, &s, initial);
	m->synced = 1;
	free(m->since);
	m->since = xstrdup(s.next_batch);
	m->ndone = 0;
	save_since(m, m->since);
	mx_sync_release(&s);
	buf_release(&err);
	if (!m->stopping)
		sync_now(m);
}

static void sync_now(struct matrix *m)
{
	struct buf path = BUF_INIT;
	json_t *f = mx_sync_filter(MATRIX_TIMELINE_LIMIT);
	char *ftext = json_dumps(f, JSON_COMPACT);

	buf_printf(&path, API "/sync?timeout=%d&filter=", m->since ? MATRIX_SYNC_TIMEOUT_MS : 0);
	enc(&path, ftext);
	if (m->since) {
		buf_addstr(&path, "&since=");
		enc(&path, m->since);
		/* a new process knows no members, names or encryption yet */
		if (!m->synced)
			buf_addstr(&path, "&full_state=true");
	}
	mx_call(m, "GET", buf_str(&path), NULL, NULL, MATRIX_SYNC_TIMEOUT_MS + 30000, on_sync, NULL);
	free(ftext);
	json_decref(f);
	buf_release(&path);
}

/* Reads back the sync position: the token, then the events of its batch
 * already handled (a crash in the middle of a batch). */
static void load_since(struct matrix *m)
{
	struct buf v = BUF_INIT, err = BUF_INIT;
	const char *p, *nl;

	if (store_cursor_get(m->store, CURSOR_SINCE, &v, &err) < 0)
		log_warn("matrix: reading the sync position: %s", buf_str(&err));
	/* "token", then one line per event already handled */
	for (p = buf_str(&v); v.len && *p; p = nl + 1) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (!m->since) {
			m->since = xmalloc(n + 1);
			memcpy(m->since, p, n);
			m->since[n] = '\0';
		} else if (m->ndone < DONE_MAX) {
			snprintf(m->done[m->ndone++], MX_ID_SIZE, "%.*s", (int)n, p);
		}
		if (!nl)
			break;
	}
	buf_release(&v);
	buf_release(&err);
}

/* ---- login ---- */

static void on_whoami(struct matrix *m, long status, const char *errcode, const char *body,
		      size_t len, void *ctx)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *uid = json_string_value(json_object_get(j, "user_id"));

	if (status != 200 || !uid || !mx_user_id_valid(uid)) {
		json_decref(j);
		if (status == 401 || status == 403)
			fatal(m, "the access token was refused");
		else
			fatal(m, "whoami failed: is MATRIX_HOMESERVER right?");
		return;
	}
	copy_id(m->me, MX_ID_SIZE, uid);
	log_info("matrix: logged in as %s", m->me);
	json_decref(j);
	unpark(m);
	sync_now(m);
}

static void on_login(struct matrix *m, long status, const char *errcode, const char *body,
		     size_t len, void *ctx)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *tok = json_string_value(json_object_get(j, "access_token"));
	const char *uid = json_string_value(json_object_get(j, "user_id"));
	int first = !m->me[0];

	m->logging_in = 0;
	if (status != 200 || !tok || !uid || !mx_user_id_valid(uid)) {
		json_decref(j);
		if (status == 403 || status == 401)
			fatal(m, "the homeserver refused MATRIX_USER / MATRIX_PASSWORD");
		else
			fatal(m, "login failed: is MATRIX_HOMESERVER right?");
		return;
	}
	if (m->token) {
		memset(m->token, 0, strlen(m->token));
		free(m->token);
	}
	m->token = xstrdup(tok);
	copy_id(m->me, MX_ID_SIZE, uid);
	json_decref(j);
	log_info("matrix: logged in as %s (device %s)", m->me, m->device);
	/* requests queued before the login (the outbox re-sent at start-up)
	 * or refused with the old token go now */
	unpark(m);
	if (first)
		sync_now(m);
}

static void login(struct matrix *m)
{
	json_t *req = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:s}", "type", "m.login.password",
				"identifier", "type", "m.id.user", "user", m->user,
				"password", m->password, "device_id", m->device,
				"initial_device_display_name", "tabula");
	m->logging_in = 1;
	mx_call_ex(m, "POST", API "/login", req, NULL, 0, 0, on_login, NULL);
	json_decref(req);
}

static void relogin(struct matrix *m)
{
	if (m->logging_in)
		return;
	log_info("matrix: the access token expired; logging in again");
	if (m->token) {
		memset(m->token, 0, strlen(m->token));
		free(m->token);
		m->token = NULL;
	}
	login(m);
}

static void load_device(struct matrix *m)
{
	struct buf v = BUF_INIT, err = BUF_INIT;

	if (store_cursor_get(m->store, CURSOR_DEVICE, &v, &err) < 0)
		log_warn("matrix: reading the device id: %s", buf_str(&err));
	if (v.len && v.len < sizeof(m->device)) {
		snprintf(m->device, sizeof(m->device), "%s", buf_str(&v));
	} else {
		snprintf(m->device, sizeof(m->device), "TABULA%08X", rng_next(&m->rng));
		if (store_cursor_set(m->store, CURSOR_DEVICE, m->device, &err))
			log_warn("matrix: storing the device id: %s", buf_str(&err));
	}
	buf_release(&v);
	buf_release(&err);
}

/* ---- lifecycle ---- */

static int matrix_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	struct matrix *m = downcast(a);
	struct timespec ts;

	m->loop = loop;
	m->http = http_client_new(loop, err);
	if (!m->http)
		return -1;
	uv_timer_init(loop, &m->sync_timer);
	m->sync_timer.data = m;
	m->started = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	m->txn_base = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	load_since(m);
	if (m->token) {
		mx_call(m, "GET", API "/account/whoami", NULL, NULL, 0, on_whoami, NULL);
	} else {
		load_device(m);
		login(m);
	}
	return 0;
}

static void matrix_stop(struct adapter *a)
{
	struct matrix *m = downcast(a);
	struct lane *l, *next;

	if (!m->started || m->stopping)
		return;
	m->stopping = 1;
	uv_close((uv_handle_t *)&m->sync_timer, NULL);
	http_client_free(m->http);
	m->http = NULL;
	while (m->live.next != &m->live)
		m->live.next->release(m->live.next);
	for (l = m->lanes; l; l = next) {
		next = l->next;
		free(l);
	}
	m->lanes = NULL;
}

static void matrix_free(struct adapter *a)
{
	struct matrix *m = downcast(a);
	size_t i;

	for (i = 0; i < m->nrooms; i++)
		free(m->rooms[i].mem);
	free(m->rooms);
	for (i = 0; i < m->ndms; i++) {
		struct pending_msg *p = m->dms[i].waiting, *next;

		for (; p; p = next) {
			next = p->next;
			json_decref(p->contents);
			free(p);
		}
	}
	free(m->dms);
	json_decref(m->direct);
	free(m->since);
	if (m->token) {
		memset(m->token, 0, strlen(m->token));
		free(m->token);
	}
	if (m->password) {
		memset(m->password, 0, strlen(m->password));
		free(m->password);
	}
	free(m->homeserver);
	free(m->user);
	free(m->prefix);
	free(m->allow);
	free(m);
}

static const struct adapter_ops matrix_ops = {
	.api_version = ADAPTER_API_VERSION,
	.name = "matrix",
	.caps = 0,
	.start = matrix_start,
	.stop = matrix_stop,
	.send = matrix_send,
	.reply = matrix_reply,
	.free = matrix_free,
};

struct adapter *matrix_adapter_new(const struct matrix_config *cfg, struct buf *err)
{
	struct matrix *m;
	size_t n;

	if (!cfg->homeserver || !*cfg->homeserver ||
	    (strncmp(cfg->homeserver, "https://", 8) && strncmp(cfg->homeserver, "http://", 7)) ||
	    !http_url_allowed(cfg->homeserver, NULL)) {
		buf_setf(err, "MATRIX_HOMESERVER must be https://..., or http:// to a loopback "
			 "address");
		return NULL;
	}
	if (!(cfg->access_token && *cfg->access_token) &&
	    !(cfg->user && *cfg->user && cfg->password && *cfg->password)) {
		buf_setf(err, "set MATRIX_ACCESS_TOKEN, or MATRIX_USER and MATRIX_PASSWORD");
		return NULL;
	}
	if (cfg->user && *cfg->user && !(cfg->access_token && *cfg->access_token) &&
	    cfg->user[0] == '@' && !mx_user_id_valid(cfg->user)) {
		buf_setf(err, "MATRIX_USER must be a user id (@name:server) or a local name");
		return NULL;
	}
	if (cfg->prefix && (strlen(cfg->prefix) > 8 || strpbrk(cfg->prefix, " \t\r\n"))) {
		buf_setf(err, "MATRIX_PREFIX must be 1 to 8 characters without spaces");
		return NULL;
	}
	if (!cfg->store) {
		buf_setf(err, "the Matrix adapter needs the store");
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	m->base.ops = &matrix_ops;
	m->live.next = m->live.prev = &m->live;
	m->homeserver = xstrdup(cfg->homeserver);
	n = strlen(m->homeserver);
	while (n && m->homeserver[n - 1] == '/')
		m->homeserver[--n] = '\0';
	if (cfg->access_token && *cfg->access_token) {
		m->token = xstrdup(cfg->access_token);
	} else {
		m->user = xstrdup(cfg->user);
		m->password = xstrdup(cfg->password);
	}
	m->prefix = xstrdup(cfg->prefix && *cfg->prefix ? cfg->prefix : "!");
	m->allow = cfg->allow && *cfg->allow ? xstrdup(cfg->allow) : NULL;
	m->store = cfg->store;
	rng_seed(&m->rng, cfg->seed, 0x6d78);
	return &m->base;
}

int matrix_adapter_exit_code(const struct adapter *a)
{
	return ((const struct matrix *)a)->exit_code;
}
