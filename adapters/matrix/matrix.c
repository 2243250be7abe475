/*
 * matrix: the adapter.  See matrix.h and docs/matrix.md.  Owns the
 * adapter_ops wiring (start, stop, free; sending an outbox message, a
 * command's answer and a picture), the public answers a newer one replaces
 * (m.replace), the rooms map and what is known of each room's encryption.
 * The state every room of the adapter shares is in mxint.h; the rest lives
 * in rooms of its own: requests and lanes (mxreq.c), messages on their way
 * out (mxsend.c), pictures (mxpicture.c), direct chats (mxdm.c), m.direct
 * (mxdirect.c), membership and invites (mxmember.c), what one sync item
 * does (mxdispatch.c), the sync loop, batches and backfill (mxbatch.c),
 * the adapter's side of encryption (mxseal.c), login and device
 * (mxlogin.c).
 */
#include "adapters/matrix/mxint.h"

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

struct mroom *mxm_room_get(struct matrix *m, const char *id, int create)
{
	struct mroom *r = strmap_get(&m->rooms, id);

	if (r || !create)
		return r;
	if (m->nrooms == m->caprooms) {
		m->caprooms = m->caprooms ? m->caprooms * 2 : 16;
		m->roomv = xrealloc(m->roomv, m->caprooms * sizeof(*m->roomv));
	}
	r = xcalloc(1, sizeof(*r));
	copy_id(r->id, MX_ID_SIZE, id);
	mx_members_init(&r->mem, m->k0, m->k1);
	r->index = m->nrooms;
	m->roomv[m->nrooms++] = r;
	strmap_put(&m->rooms, r->id, r);
	return r;
}

static void room_free(struct mroom *r)
{
	mx_members_release(&r->mem);
	free(r);
}

void mxm_room_drop(struct matrix *m, const char *id)
{
	struct mroom *r = strmap_del(&m->rooms, id);

	if (!r)
		return;
	m->roomv[r->index] = m->roomv[--m->nrooms];
	m->roomv[r->index]->index = r->index;
	room_free(r);
}

/* The name to show for user (cleaned; see mx_clean_name), into out. */
const char *mxm_display_name(struct matrix *m, const char *room, const char *user,
			     char *out, size_t n)
{
	struct mroom *r = mxm_room_get(m, room, 0);
	const struct mx_member *mm = r ? mx_members_get(&r->mem, user) : NULL;

	return mx_clean_name(mm ? mm->name : NULL, user, out, n);
}

/*
 * r has m.room.encryption (ev, an MX_ENCRYPTED item; NULL: the one the bot
 * put in a room it created).  Megolm: known, and stored (mxe2e) so that a
 * restart knows before any sync.  Encryption cannot be turned off or
 * changed once on (the specification): in a room known as Megolm-encrypted
 * (this run, or the store), an event naming another algorithm, or none, is
 * a homeserver's forgery (it can send state events to the bot alone): it
 * is logged and changes nothing.  In a room never known as encrypted it
 * makes the room foreign: the bot says it cannot take part and leaves
 * (mxm_handle_item), and nothing else goes there.  -1 when the bot cannot take
 * part.
 */
int mxm_room_mark_encrypted(struct matrix *m, struct mroom *r, const struct mx_item *ev)
{
	struct mx_item it;

	if (ev && strcmp(ev->algorithm, MXC_MEGOLM_ALGORITHM)) {
		if (mxm_room_encrypted(m, r)) {
			log_warn("matrix: an m.room.encryption event would change a Megolm-encrypted "
				 "room's encryption (to \"%s\"); ignored: encryption is never turned "
				 "off, the room stays encrypted", ev->algorithm);
			return 0;
		}
		r->foreign = 1;
		return -1;
	}
	r->encrypted = r->enc_known = 1;
	r->foreign = 0;
	if (!mxe2e_started(m->e2e))
		return -1;
	if (!ev) {
		memset(&it, 0, sizeof(it));
		it.kind = MX_ENCRYPTED;
		it.room = r->id;
		it.algorithm = MXC_MEGOLM_ALGORITHM;
		it.rotation_ms = it.rotation_msgs = -1;
		ev = &it;
	}
	return mxe2e_room_encrypted(m->e2e, ev);
}

/* Whether nothing but the refusal notice may go to r. */
int mxm_room_unusable(const struct mroom *r)
{
	return r->foreign || r->refused;
}

/* Whether room r is Megolm-encrypted: what a sync said, else what the
 * store remembers of earlier runs. */
int mxm_room_encrypted(struct matrix *m, struct mroom *r)
{
	if (!r->enc_known && m->e2e) {
		r->encrypted = mxe2e_room_stored_encrypted(m->e2e, r->id);
		r->enc_known = 1;
	}
	return r->encrypted;
}

/* An outbox message: its notices, then the m.image of its picture (now,
 * or as the next part when the picture follows: matrix_picture). */
static int matrix_send(struct adapter *a, const struct outmsg *msg, struct buf *err)
{
	struct matrix *m = downcast(a);
	uint64_t follow = msg->image ? msg->image->follow : 0;
	struct mximg *im = msg->image && !follow ? mxm_img_new(msg->image) : NULL;
	json_t *c = follow && !msg->body->n ? json_array() : mxm_picture_contents(msg->body, im);
	char txn[96];

	snprintf(txn, sizeof(txn), "%s", msg->key && *msg->key ? msg->key : "");
	if (!txn[0])
		mxm_new_txn(m, txn, sizeof(txn));
	if (msg->user) {
		mxm_send_private(m, msg->user, c, txn, msg->outbox_id, msg->room, im, follow);
	} else {
		mxm_board_posted(m, msg->room);
		mxm_send_contents_t(m, msg->room, c, txn, msg->outbox_id, NULL, im, follow);
	}
	mxm_img_unref(im);
	json_decref(c);
	return 0;
}

/* A board's picture, answering a command (`board`, `hand`): the body's
 * notices then the m.image, privately in the player's direct chat or in
 * the room, where it stays like a board. */
static int matrix_reply_image(struct adapter *a, const struct command *cmd, int private_,
			      const struct rich *body, const struct adapter_image *img,
			      struct buf *err)
{
	struct matrix *m = downcast(a);
	struct mximg *im = img->follow ? NULL : mxm_img_new(img);
	json_t *c = img->follow && !body->n ? json_array() : mxm_picture_contents(body, im);
	char txn[96];

	mxm_new_txn(m, txn, sizeof(txn));
	if (private_) {
		mxm_send_private(m, cmd->user, c, txn, 0, cmd->room, im, img->follow);
	} else {
		mxm_board_posted(m, cmd->room);
		mxm_send_contents_t(m, cmd->room, c, txn, 0, NULL, im, img->follow);
	}
	mxm_img_unref(im);
	json_decref(c);
	return 0;
}

/*
 * The picture of a message sent with img->follow (adapter.h): its m.image
 * (uploaded just before it, encrypted where the room is, as every picture)
 * as the message's next part, in the same lane, or the notices of the
 * text in its place; the message is confirmed when that landed.  Its txn
 * id is the message's own plus its part number: a restart that sends the
 * message again sends the same ids, and the homeserver drops what it has.
 */
static int matrix_picture(struct adapter *a, uint64_t id, const struct adapter_image *img,
			  const struct rich *text, struct buf *err)
{
	struct matrix *m = downcast(a);
	struct post *p = mxm_follow_take(m, id);
	struct mximg *im = NULL;
	json_t *c;
	size_t n;

	if (!p)
		return 0;	/* its message is gone (a stop) */
	if (p->failed) {
		/* its text did not land: the outbox keeps the message, and the
		 * next start sends it all again */
		mxm_post_part_done(m, p, 0);
		return 0;
	}
	if (img && img->png) {
		struct rich none = RICH_INIT;

		im = mxm_img_new(img);
		c = mxm_picture_contents(&none, im);
	} else if (text && text->n) {
		c = mx_notice_contents(text);
	} else {
		mxm_post_part_done(m, p, 1);	/* nothing follows after all */
		return 0;
	}
	n = json_array_size(c);
	if (!n) {
		json_decref(c);
		mxm_img_unref(im);
		mxm_post_part_done(m, p, 1);
		return 0;
	}
	p->pending += n - 1;	/* the part kept for it, and any more */
	if (p->user[0]) {
		mxm_private_parts(m, p, p->user, c, p->txn, p->nparts, p->origin_room, im);
	} else {
		mxm_post_parts(m, p, p->room, c, p->txn, p->nparts, im);
	}
	mxm_img_unref(im);
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
	struct mroom *r = mxm_room_get(m, room, 0);
	json_t *c0 = json_array_get(contents, 0);
	const char *body = json_string_value(json_object_get(c0, "body"));
	char title[128];
	size_t tl;

	if (json_array_size(contents) != 1 || !body) {
		mxm_send_contents(m, room, contents, txn, 0);
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
			mxm_send_contents(m, room, arr, txn, 0);
		} else {
			/* the answer it replaces is still in this room's lane */
			struct post *p = mxm_post_new(m, 0, 1);
			struct buf path = BUF_INIT, t = BUF_INIT;
			struct mxreq *q;

			buf_printf(&t, "%s.0", txn);
			mxm_send_path(&path, room, buf_str(&t));
			q = mxm_call_ex(m, "PUT", buf_str(&path), edit, room, 0, REQ_ROOM_MSG,
					mxm_on_sent, p, NULL, NULL);
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
		r = mxm_room_get(m, room, 1);
	snprintf(r->last_title, sizeof(r->last_title), "%s", title);
	r->last_event[0] = '\0';
	r->answer_pending = 1;
	r->since_last = 0;
	mxm_send_contents_t(m, room, contents, txn, 0, title, NULL, 0);
}

static int matrix_reply(struct adapter *a, const struct command *cmd, int private_,
			const struct rich *body, struct buf *err)
{
	struct matrix *m = downcast(a);
	json_t *c = mx_notice_contents(body);
	char txn[96];

	mxm_new_txn(m, txn, sizeof(txn));
	if (private_)
		mxm_send_private(m, cmd->user, c, txn, 0, cmd->room, NULL, 0);
	else
		send_public_answer(m, cmd->room, c, txn);
	json_decref(c);
	return 0;
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
	uv_timer_init(loop, &m->resume_timer);
	m->resume_timer.data = m;
	m->started = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	m->txn_base = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	mxm_load_since(m);
	if (m->token) {
		mxm_call(m, "GET", API "/account/whoami", NULL, NULL, 0, mxm_on_whoami, NULL);
	} else {
		mxm_load_device(m);
		mxm_login(m);
	}
	return 0;
}

static void matrix_stop(struct adapter *a)
{
	struct matrix *m = downcast(a);
	size_t i;
	void *v;

	if (!m->started || m->stopping)
		return;
	m->stopping = 1;
	metric_set(&met_platform_connected, METER_MATRIX, 0, 0);
	uv_close((uv_handle_t *)&m->sync_timer, NULL);
	uv_close((uv_handle_t *)&m->resume_timer, NULL);
	http_client_free(m->http);
	m->http = NULL;
	while (m->live.next != &m->live)
		m->live.next->release(m->live.next);
	/* the requests are gone: so are their lanes */
	for (i = 0; (i = strmap_next(&m->lanes, i, &v));)
		free(v);
	strmap_release(&m->lanes);
}

static void matrix_free(struct adapter *a)
{
	struct matrix *m = downcast(a);
	size_t i;
	void *v;

	for (i = 0; i < m->nrooms; i++)
		room_free(m->roomv[i]);
	free(m->roomv);
	strmap_release(&m->rooms);
	for (i = 0; (i = strmap_next(&m->dms, i, &v));) {
		struct dm *d = v;
		struct part *pt, *next;

		for (pt = d->waiting; pt; pt = next) {
			next = pt->next;
			mxm_part_free(pt);
		}
		free(d);
	}
	strmap_release(&m->dms);
	strmap_release(&m->dm_rooms);
	strmap_release(&m->lanes);
	mxm_units_free(m->batch.run);
	mxm_units_free(m->batch.pages);
	mx_sync_release(&m->batch.main);
	free(m->batch.main_before_join);
	free(m->batch.gap_room);
	free(m->batch.gap_from);
	free(m->touched);
	json_decref(m->undirect);
	json_decref(m->direct);
	mxe2e_free(m->e2e);
	free(m->refs);
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
	.caps = ADAPTER_CAP_IMAGES,
	.start = matrix_start,
	.stop = matrix_stop,
	.send = matrix_send,
	.reply = matrix_reply,
	.reply_image = matrix_reply_image,
	.picture = matrix_picture,
	.free = matrix_free,
};

struct adapter *matrix_adapter_new(const struct matrix_config *cfg, struct buf *err)
{
	struct mxe2e_io io = { 0 };
	struct mxc_key key;
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
	if (mxc_pickle_key_load(cfg->pickle_key, cfg->key_file, &key, err))
		return NULL;
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
	m->sendq_max = cfg->sendq_max ? cfg->sendq_max : MATRIX_SENDQ_MAX;
	rng_seed(&m->rng, cfg->seed, 0x6d78);
	/* the hash tables' key: ids come from anyone on any homeserver */
	m->k0 = rng_next(&m->rng);
	m->k0 = m->k0 << 32 | rng_next(&m->rng);
	m->k1 = rng_next(&m->rng);
	m->k1 = m->k1 << 32 | rng_next(&m->rng);
	strmap_init(&m->rooms, m->k0, m->k1);
	strmap_init(&m->dms, m->k0, m->k1);
	strmap_init(&m->dm_rooms, m->k0, m->k1);
	strmap_init(&m->lanes, m->k0, m->k1);
	m->undirect = json_object();
	io.ctx = m;
	io.call = mxm_e2e_call;
	io.is_joined = mxm_e2e_is_joined;
	io.new_device = mxm_e2e_new_device;
	io.may_hold = mxm_e2e_may_hold;
	io.settled = mxm_e2e_settled;
	io.store = cfg->store;
	if (cfg->now) {
		m->now = cfg->now;
		m->now_ctx = cfg->now_ctx;
		io.now_ms = mxm_e2e_now_ms;
	}
	m->e2e = mxe2e_new(&io, &key, m->k0, m->k1, cfg->hold_max, cfg->hold_ms);
	mxc_key_wipe(&key);
	return &m->base;
}

int matrix_adapter_exit_code(const struct adapter *a)
{
	return ((const struct matrix *)a)->exit_code;
}
