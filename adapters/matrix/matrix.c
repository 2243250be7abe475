/*
 * matrix: the adapter.  See matrix.h and docs/matrix.md.
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

struct mroom *room_get(struct matrix *m, const char *id, int create)
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

void room_drop(struct matrix *m, const char *id)
{
	struct mroom *r = strmap_del(&m->rooms, id);

	if (!r)
		return;
	m->roomv[r->index] = m->roomv[--m->nrooms];
	m->roomv[r->index]->index = r->index;
	room_free(r);
}

/* The name to show for user (cleaned; see mx_clean_name), into out. */
const char *display_name(struct matrix *m, const char *room, const char *user,
				char *out, size_t n)
{
	struct mroom *r = room_get(m, room, 0);
	const struct mx_member *mm = r ? mx_members_get(&r->mem, user) : NULL;

	return mx_clean_name(mm ? mm->name : NULL, user, out, n);
}

/* ---- sending ---- */

static void follow_unlink(struct matrix *m, struct post *p);

static void post_release(struct live *l)
{
	struct post *p = (struct post *)l;

	live_del(l);
	if (p->follow)
		follow_unlink(p->m, p);
	free(l);
}

struct post *post_new(struct matrix *m, int64_t outbox_id, size_t parts)
{
	struct post *p = xcalloc(1, sizeof(*p));

	p->m = m;
	p->outbox_id = outbox_id;
	p->pending = parts;
	live_add(m, &p->live, post_release);
	return p;
}

/* One part of p is settled: delivered (ok), or not (the outbox keeps the
 * message for the next start).  The last one reports the message sent. */
void post_part_done(struct matrix *m, struct post *p, int ok)
{
	if (!ok)
		p->failed = 1;
	if (--p->pending)
		return;
	if (!p->failed && p->outbox_id > 0 && m->base.on_sent)
		m->base.on_sent(m->base.ctx, &m->base, p->outbox_id);
	live_del(&p->live);
	free(p);
}

/* Messages whose picture follows (struct post.follow). */
static void follow_unlink(struct matrix *m, struct post *p)
{
	struct post **at = &m->follows;

	while (*at && *at != p)
		at = &(*at)->fnext;
	if (*at)
		*at = p->fnext;
	p->follow = 0;
}

static struct post *follow_take(struct matrix *m, uint64_t id)
{
	struct post *p;

	for (p = m->follows; p && p->follow != id; p = p->fnext)
		;
	if (p)
		follow_unlink(m, p);
	return p;
}

/* p's picture follows under id: its part stays pending until then. */
void follow_keep(struct matrix *m, struct post *p, uint64_t id, const char *room,
			const char *user, const char *origin_room, const char *txn, size_t nparts)
{
	p->follow = id;
	p->pending++;
	copy_id(p->room, MX_ID_SIZE, room ? room : "");
	copy_id(p->user, MX_ID_SIZE, user ? user : "");
	copy_id(p->origin_room, MX_ID_SIZE, origin_room ? origin_room : "");
	snprintf(p->txn, sizeof(p->txn), "%s", txn);
	p->nparts = nparts;
	p->fnext = m->follows;
	m->follows = p;
}

void on_sent(struct matrix *m, long status, const char *errcode, const char *body,
		    size_t len, void *ctx)
{
	struct post *p = ctx;
	int ok = 1;

	if (status == 0 || status >= 500 || status == 429 || status == STATUS_TOO_BIG) {
		log_warn("matrix: message not delivered (HTTP %ld); kept for the next start", status);
		ok = 0;
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
	post_part_done(m, p, ok);
}

void send_path(struct buf *path, const char *room, const char *txn)
{
	buf_addstr(path, API "/rooms/");
	enc(path, room);
	buf_addstr(path, "/send/m.room.message/");
	enc(path, txn);
}

/* Sends the events of contents (an array, borrowed) to room as p's parts
 * first, first + 1, ... (txn ids txn.<part>).  img: the last one is the
 * m.image of that picture (uploaded just before it), or NULL. */
static void post_parts(struct matrix *m, struct post *p, const char *room, json_t *contents,
		       const char *txn, size_t first, struct mximg *img)
{
	size_t i, n = json_array_size(contents);

	for (i = 0; i < n; i++) {
		struct buf path = BUF_INIT, t = BUF_INIT;
		int pic = img && i + 1 == n;
		json_t *c = json_incref(json_array_get(contents, i));

		buf_printf(&t, "%s.%zu", txn, first + i);
		send_path(&path, room, buf_str(&t));
		if (pic)
			img_upload(m, img, room);
		img_attach(pic ? img : NULL, mx_call_ex(m, "PUT", buf_str(&path), c, room, 0,
							REQ_ROOM_MSG, on_sent, p, NULL, NULL));
		json_decref(c);
		buf_release(&path);
		buf_release(&t);
	}
}

/* Sends the messages of contents (an array, borrowed) to room, with txn ids
 * txn.0, txn.1, ...; on_sent(outbox_id) when all landed.  img: the last
 * one is the m.image of that picture (uploaded just before it), or NULL.
 * follow: the picture follows under that id (matrix_picture), as the
 * next part; 0: none. */
static void send_contents_t(struct matrix *m, const char *room, json_t *contents,
			    const char *txn, int64_t outbox_id, const char *title,
			    struct mximg *img, uint64_t follow)
{
	size_t n = json_array_size(contents);
	struct post *p;

	if (!n && !follow) {
		if (outbox_id > 0 && m->base.on_sent)
			m->base.on_sent(m->base.ctx, &m->base, outbox_id);
		return;
	}
	p = post_new(m, outbox_id, n);
	copy_id(p->room, MX_ID_SIZE, room);
	if (title && n == 1 && !follow)
		snprintf(p->title, sizeof(p->title), "%s", title);
	if (follow)
		follow_keep(m, p, follow, room, NULL, NULL, txn, n);
	post_parts(m, p, room, contents, txn, 0, img);
}

void new_txn(struct matrix *m, char *out, size_t n)
{
	snprintf(out, n, "tabula.r.%llu.%u", (unsigned long long)m->txn_base, ++m->txn_counter);
}

static void send_contents(struct matrix *m, const char *room, json_t *contents, const char *txn,
			  int64_t outbox_id)
{
	send_contents_t(m, room, contents, txn, outbox_id, NULL, NULL, 0);
}

/* A bilingual notice to room, outside any outbox. */
void send_notice(struct matrix *m, const char *room, const struct rich *body)
{
	json_t *c = mx_notice_contents(body);
	char txn[96];

	new_txn(m, txn, sizeof(txn));
	send_contents(m, room, c, txn, 0);
	json_decref(c);
}

/* "@user: your private messages are in a direct chat with me" in the game
 * room, once per DM room, while the player has not joined it. */
void tell_where(struct matrix *m, struct dm *d, const char *origin_room)
{
	struct mroom *r = room_get(m, d->room, 0);
	const struct mx_member *mm = r ? mx_members_get(&r->mem, d->user) : NULL;
	struct rich body = RICH_INIT;
	char name[MX_NAME_SIZE];

	if (d->told || !origin_room || !*origin_room || !strcmp(origin_room, d->room) ||
	    (mm && mm->membership == MXM_JOIN))
		return;
	d->told = 1;
	dm_remember(m, d->user, d->room, 1);
	rich_mention(&body, d->user, display_name(m, origin_room, d->user, name, sizeof(name)));
	rich_text(&body, ": I sent you a private message (your hand and your moves). Accept my "
		  "invitation to a direct chat to read it. / Te he enviado un mensaje privado: "
		  "acepta mi invitación a un chat directo para leerlo.");
	send_notice(m, origin_room, &body);
	rich_release(&body);
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
 * (handle_item), and nothing else goes there.  -1 when the bot cannot take
 * part.
 */
int room_mark_encrypted(struct matrix *m, struct mroom *r, const struct mx_item *ev)
{
	struct mx_item it;

	if (ev && strcmp(ev->algorithm, MXC_MEGOLM_ALGORITHM)) {
		if (room_encrypted(m, r)) {
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
int room_unusable(const struct mroom *r)
{
	return r->foreign || r->refused;
}

/* Whether room r is Megolm-encrypted: what a sync said, else what the
 * store remembers of earlier runs. */
int room_encrypted(struct matrix *m, struct mroom *r)
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
	struct mximg *im = msg->image && !follow ? img_new(msg->image) : NULL;
	json_t *c = follow && !msg->body->n ? json_array() : picture_contents(msg->body, im);
	char txn[96];

	snprintf(txn, sizeof(txn), "%s", msg->key && *msg->key ? msg->key : "");
	if (!txn[0])
		new_txn(m, txn, sizeof(txn));
	if (msg->user) {
		send_private(m, msg->user, c, txn, msg->outbox_id, msg->room, im, follow);
	} else {
		board_posted(m, msg->room);
		send_contents_t(m, msg->room, c, txn, msg->outbox_id, NULL, im, follow);
	}
	img_unref(im);
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
	struct mximg *im = img->follow ? NULL : img_new(img);
	json_t *c = img->follow && !body->n ? json_array() : picture_contents(body, im);
	char txn[96];

	new_txn(m, txn, sizeof(txn));
	if (private_) {
		send_private(m, cmd->user, c, txn, 0, cmd->room, im, img->follow);
	} else {
		board_posted(m, cmd->room);
		send_contents_t(m, cmd->room, c, txn, 0, NULL, im, img->follow);
	}
	img_unref(im);
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
	struct post *p = follow_take(m, id);
	struct mximg *im = NULL;
	json_t *c;
	size_t n;

	if (!p)
		return 0;	/* its message is gone (a stop) */
	if (p->failed) {
		/* its text did not land: the outbox keeps the message, and the
		 * next start sends it all again */
		post_part_done(m, p, 0);
		return 0;
	}
	if (img && img->png) {
		struct rich none = RICH_INIT;

		im = img_new(img);
		c = picture_contents(&none, im);
	} else if (text && text->n) {
		c = mx_notice_contents(text);
	} else {
		post_part_done(m, p, 1);	/* nothing follows after all */
		return 0;
	}
	n = json_array_size(c);
	if (!n) {
		json_decref(c);
		img_unref(im);
		post_part_done(m, p, 1);
		return 0;
	}
	p->pending += n - 1;	/* the part kept for it, and any more */
	if (p->user[0]) {
		private_parts(m, p, p->user, c, p->txn, p->nparts, p->origin_room, im);
	} else {
		post_parts(m, p, p->room, c, p->txn, p->nparts, im);
	}
	img_unref(im);
	json_decref(c);
	return 0;
}

/*
 * A public answer (not a board: those stay, each with what just happened).
 * When it starts like the bot's previous answer in the room and little was
 * said since, it replaces that one (m.replace): a lobby filling up is one
 * message that changes, not one message per seat.
 */
void send_public_answer(struct matrix *m, const char *room, json_t *contents,
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
			struct post *p = post_new(m, 0, 1);
			struct buf path = BUF_INIT, t = BUF_INIT;
			struct mxreq *q;

			buf_printf(&t, "%s.0", txn);
			send_path(&path, room, buf_str(&t));
			q = mx_call_ex(m, "PUT", buf_str(&path), edit, room, 0, REQ_ROOM_MSG,
				       on_sent, p, NULL, NULL);
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
	send_contents_t(m, room, contents, txn, 0, title, NULL, 0);
}

static int matrix_reply(struct adapter *a, const struct command *cmd, int private_,
			const struct rich *body, struct buf *err)
{
	struct matrix *m = downcast(a);
	json_t *c = mx_notice_contents(body);
	char txn[96];

	new_txn(m, txn, sizeof(txn));
	if (private_)
		send_private(m, cmd->user, c, txn, 0, cmd->room, NULL, 0);
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
	load_since(m);
	if (m->token) {
		mx_call(m, "GET", API "/account/whoami", NULL, NULL, 0, on_whoami, NULL);
	} else {
		load_device(m);
		mx_login(m);
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
			part_free(pt);
		}
		free(d);
	}
	strmap_release(&m->dms);
	strmap_release(&m->dm_rooms);
	strmap_release(&m->lanes);
	units_free(m->batch.run);
	units_free(m->batch.pages);
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
	io.call = e2e_call;
	io.is_joined = e2e_is_joined;
	io.new_device = e2e_new_device;
	io.may_hold = e2e_may_hold;
	io.settled = e2e_settled;
	io.store = cfg->store;
	if (cfg->now) {
		m->now = cfg->now;
		m->now_ctx = cfg->now_ctx;
		io.now_ms = e2e_now_ms;
	}
	m->e2e = mxe2e_new(&io, &key, m->k0, m->k1, cfg->hold_max, cfg->hold_ms);
	mxc_key_wipe(&key);
	return &m->base;
}

int matrix_adapter_exit_code(const struct adapter *a)
{
	return ((const struct matrix *)a)->exit_code;
}
