/*
 * mxreq: requests to the homeserver and their lanes.  Owns queueing a
 * request (mxm_call, mxm_call_ex), the lanes that send one room's requests
 * one at a time and in order, the send queue's size and its back-pressure
 * (the sync pauses while it is full), retries with backoff, the answers
 * (on_http: a refused token parks requests until a new login, mxm_unpark), and
 * what a request does just before it goes (mxm_req_start: a private part
 * checked again, a message sealed for an encrypted room, an edit given the
 * event id it replaces).
 */

#include "adapters/matrix/mxint.h"

/* ---- the send queue ---- */

size_t mxm_sendq_len(const struct matrix *m)
{
	return m->nqueued + m->nwaiting;
}

static void on_resume(uv_timer_t *t)
{
	struct matrix *m = t->data;

	if (m->batch.on && m->batch.paused) {
		m->batch.paused = 0;
		log_debug("matrix: the send queue is down to %zu; reading commands again",
			  mxm_sendq_len(m));
		mxm_batch_step(m);
	}
}

/* A request or a waiting part is gone: commands may flow again. */
void mxm_sendq_shrunk(struct matrix *m)
{
	if (m->sendq_full_told && !mxm_sendq_len(m)) {
		m->sendq_full_told = 0;
		log_info("matrix: the send queue has drained");
	}
	if (m->batch.paused && !m->stopping && mxm_sendq_len(m) <= m->sendq_max / 2 &&
	    !uv_is_active((uv_handle_t *)&m->resume_timer))
		uv_timer_start(&m->resume_timer, on_resume, 0, 0);
}

/* ---- requests ---- */

static void on_timer_closed(uv_handle_t *h);

void mxm_img_unref(struct mximg *im)
{
	if (!im || --im->refs > 0)
		return;
	free(im->png);
	free(im->alt);
	free(im);
}

void mxm_req_free(struct mxreq *q)
{
	struct matrix *m = q->m;

	live_del(&q->live);
	free(q->path);
	if (q->body && !q->body_len)
		memset(q->body, 0, strlen(q->body));	/* a login holds the password */
	free(q->body);
	if (q->plain)
		explicit_bzero(q->plain, strlen(q->plain));	/* a hand */
	free(q->plain);
	if (q->img && q->img->waiter == q)
		q->img->waiter = NULL;
	mxm_img_unref(q->img);
	mxm_img_unref(q->upload_of);
	if (q->att)
		mxa_wipe(q->att);
	free(q->att);
	if (q->counted) {
		m->nqueued--;
		mxm_sendq_shrunk(m);
	}
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
	mxm_req_free((struct mxreq *)l);
}

static struct lane *lane_get(struct matrix *m, const char *room)
{
	struct lane *l = strmap_get(&m->lanes, room);

	if (l)
		return l;
	l = xcalloc(1, sizeof(*l));
	copy_id(l->room, sizeof(l->room), room);
	strmap_put(&m->lanes, l->room, l);
	return l;
}

/* Queues a request.  lane_room: requests of one room go one at a time, in
 * order; NULL: independent.  body: JSON (borrowed) or NULL.  priv_user: a
 * private message part for that user (its txn id before the room's tag),
 * checked again when it starts (mxm_req_start).  flags: REQ_*.  Returns the
 * request when it waits behind others in its lane, else NULL (it may be
 * finished already). */
struct mxreq *mxm_call_ex(struct matrix *m, const char *method, const char *path,
			  json_t *body, const char *lane_room, long timeout_ms, unsigned flags,
			  mx_fn cb, void *ctx, const char *priv_user, const char *priv_txn)
{
	struct mxreq *q = xcalloc(1, sizeof(*q));

	q->m = m;
	if (priv_user) {
		copy_id(q->priv_user, sizeof(q->priv_user), priv_user);
		copy_id(q->priv_txn, sizeof(q->priv_txn), priv_txn);
	}
	snprintf(q->method, sizeof(q->method), "%s", method);
	q->path = xstrdup(path);
	q->body = body ? json_dumps(body, JSON_COMPACT) : NULL;
	q->auth = !(flags & REQ_NOAUTH);
	q->room_msg = !!(flags & REQ_ROOM_MSG);
	q->refusal = !!(flags & REQ_REFUSAL);
	q->timeout_ms = timeout_ms;
	q->cb = cb;
	q->ctx = ctx;
	q->counted = !(flags & REQ_UNCOUNTED);
	return mxm_req_queue(m, q, lane_room);
}

/* Queues q (see mxm_call_ex), whose fields are filled. */
struct mxreq *mxm_req_queue(struct matrix *m, struct mxreq *q, const char *lane_room)
{
	live_add(m, &q->live, req_release);
	q->live.is_req = 1;
	m->nqueued += q->counted;
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
	mxm_req_start(q);
	return NULL;
}

struct mxreq *mxm_call(struct matrix *m, const char *method, const char *path,
		       json_t *body, const char *lane_room, long timeout_ms, mx_fn cb,
		       void *ctx)
{
	return mxm_call_ex(m, method, path, body, lane_room, timeout_ms, 0, cb, ctx, NULL, NULL);
}

void mxm_lane_advance(struct mxreq *q)
{
	struct lane *l = q->lane;

	if (!l)
		return;
	q->lane = NULL;
	l->head = q->next;
	if (l->head) {
		mxm_req_start(l->head);
		return;
	}
	/* An empty lane goes: one kept for every room ever written to (a
	 * thousand game rooms and as many direct chats) would only grow.  The
	 * next request to the room makes a new one. */
	l->tail = NULL;
	strmap_del(&q->m->lanes, l->room);
	free(l);
}

void mxm_finish(struct mxreq *q, long status, const char *errcode, const char *body,
		size_t len)
{
	struct matrix *m = q->m;

	if (q->cb && !m->stopping)
		q->cb(m, status, errcode, body, len, q->ctx);
	mxm_lane_advance(q);
	mxm_req_free(q);
}

static void on_retry(uv_timer_t *t)
{
	mxm_req_start(t->data);
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

void mxm_fatal(struct matrix *m, const char *why)
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
	meters_request(METER_MATRIX, resp->too_big ? 200 : status);
	if (resp->too_big) {
		/* the same again if retried: the caller decides */
		mxm_finish(q, STATUS_TOO_BIG, NULL, "", 0);
		return;
	}
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
			metric_inc(&met_ratelimit_waits, METER_MATRIX, 0);
			log_info("matrix: rate limited; retrying in %llu ms", (unsigned long long)wait);
			retry_later(q, wait);
			json_decref(j);
			return;
		}
	} else if (status == 401 && errcode && !strcmp(errcode, "M_UNKNOWN_TOKEN") && q->auth) {
		json_decref(j);
		if (!m->password) {
			mxm_fatal(m, "the access token was refused (M_UNKNOWN_TOKEN)");
			return;
		}
		q->parked = 1;
		mxm_relogin(m);
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
	mxm_finish(q, status, errcode, resp->body.s ? resp->body.s : "", resp->body.len);
	json_decref(j);
}

/* Fills in the event an edit replaces, now that the answer before it in the
 * lane has landed; without one (it failed) the edit becomes a new message. */
static void patch_edit(struct mxreq *q)
{
	struct mroom *r = mxm_room_get(q->m, q->edit_room, 0);
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

void mxm_req_start(struct mxreq *q)
{
	struct matrix *m = q->m;
	struct buf url = BUF_INIT, auth = BUF_INIT, err = BUF_INIT, ctype = BUF_INIT;
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
	if ((q->room_msg || q->upload_of) && !m->rooms_known) {
		q->early = 1;	/* is its room encrypted? the first sync says */
		return;
	}
	if (q->upload_of && !q->att && q->lane &&
	    mxm_room_unusable(mxm_room_get(m, q->lane->room, 1))) {
		/* a picture is never uploaded in clear from where the bot
		 * cannot encrypt: its event is failed by mxm_seal() */
		mxm_img_as_text(q->upload_of);
		q->cb = NULL;
		mxm_finish(q, 0, NULL, "", 0);
		return;
	}
	if (q->upload_of && !q->att && q->lane &&
	    mxm_room_encrypted(m, mxm_room_get(m, q->lane->room, 1)) && mxm_upload_encrypt(q)) {
		/* no picture in clear from an encrypted room: the text board */
		mxm_img_as_text(q->upload_of);
		q->cb = NULL;
		mxm_finish(q, 0, NULL, "", 0);
		return;
	}
	/* a direct chat made encrypted that the bot cannot encrypt for now (a
	 * token without a device, a homeserver without the key API): not the
	 * player's direct chat any more; a new one, which says it is not
	 * encrypted, gets this */
	if (q->priv_user[0] && q->lane && !mxe2e_usable(m->e2e) &&
	    mxm_room_encrypted(m, mxm_room_get(m, q->lane->room, 1))) {
		struct dm *d = mxm_dm_get(m, q->priv_user, 0);

		if (d && !strcmp(d->room, q->lane->room))
			mxm_dm_forget(m, d);
	}
	/* the last moment to find that a private chat is private no more */
	if (q->priv_user[0] && q->lane && !mxm_dm_still_private(m, q->lane->room, q->priv_user)) {
		mxm_dm_requeue(m, q);
		return;
	}
	if (q->edit_room[0])
		patch_edit(q);
	if (q->room_msg && !q->sealed && q->lane) {
		switch (mxm_seal(m, q)) {
		case SEAL_WAIT:
			return;		/* q may be gone already: not touched again */
		case SEAL_FAIL:
			mxm_finish(q, 0, NULL, "", 0);
			return;
		}
	}
	if (q->has_key && !q->sealed)
		mxm_unseal_key(q);
	buf_printf(&url, "%s%s", m->homeserver, q->path);
	if (q->auth) {
		buf_printf(&auth, "Authorization: Bearer %s", m->token);
		hdrs[nh++] = buf_str(&auth);
	}
	buf_printf(&ctype, "Content-Type: %s", q->ctype ? q->ctype : "application/json");
	hdrs[nh++] = buf_str(&ctype);
	memset(&r, 0, sizeof(r));
	r.method = q->method;
	r.url = buf_str(&url);
	r.headers = hdrs;
	r.nheaders = nh;
	r.body = q->body;
	r.body_len = q->body_len ? q->body_len : q->body ? strlen(q->body) : 0;
	r.timeout_ms = q->timeout_ms;
	if (http_request(m->http, &r, on_http, q, &err)) {
		log_warn("matrix: request not sent: %s", buf_str(&err));
		mxm_finish(q, 0, NULL, "", 0);
	}
	if (auth.s)
		memset(auth.s, 0, auth.len);
	buf_release(&url);
	buf_release(&auth);
	buf_release(&err);
	buf_release(&ctype);
}

/* Restarts every request that waited for a login.  Starting one may free
 * others (a private part going back to its player's queue starts the next
 * of its lane), so each pass starts one and begins again. */
void mxm_unpark(struct matrix *m)
{
	struct live *l;
	int again = 1;

	while (again && !m->stopping) {
		again = 0;
		for (l = m->live.next; l != &m->live; l = l->next) {
			struct mxreq *q = (struct mxreq *)l;

			if (l->is_req && q->parked) {
				mxm_req_start(q);
				again = 1;	/* q may be gone now */
				break;
			}
		}
		if (m->logging_in || !m->token)
			break;	/* they park again until the next login */
	}
}

/* Restarts the messages that waited for the first sync (see mxm_req_start). */
void mxm_unpark_early(struct matrix *m)
{
	struct live *l;
	int again = 1;

	while (again && !m->stopping) {
		again = 0;
		for (l = m->live.next; l != &m->live; l = l->next) {
			struct mxreq *q = (struct mxreq *)l;

			if (l->is_req && q->early) {
				q->early = 0;
				mxm_req_start(q);
				again = 1;	/* q may be gone now */
				break;
			}
		}
	}
}
