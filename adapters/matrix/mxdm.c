/*
 * mxdm: direct chats, the private room each player reads their hand and
 * private messages in.  Owns the DM rooms in memory (m->dms, m->dm_rooms:
 * which room is whose, and whether the game room was told where to look),
 * the private parts waiting until their room is known to be private, making
 * a room (createRoom) or adopting one a player invited the bot to, checking
 * its members before anything private goes there, restricting its history,
 * and dropping a room that stopped being private (its parts go to a new
 * one).  m.direct is mxdirect's.
 */

#include "adapters/matrix/mxint.h"

/* ---- DM rooms ---- */

static void dm_set_room(struct matrix *m, struct dm *d, const char *room)
{
	if (d->room[0] && strmap_get(&m->dm_rooms, d->room) == d)
		strmap_del(&m->dm_rooms, d->room);
	copy_id(d->room, MX_ID_SIZE, room);
	if (d->room[0])
		strmap_put(&m->dm_rooms, d->room, d);
}

struct dm *mxm_dm_get(struct matrix *m, const char *user, int create)
{
	struct buf key = BUF_INIT, val = BUF_INIT, err = BUF_INIT;
	struct dm *d = strmap_get(&m->dms, user);
	char room[MX_ID_SIZE];

	if (d)
		return d;
	buf_printf(&key, CURSOR_DM_PREFIX "%s", user);
	if (store_cursor_get(m->store, buf_str(&key), &val, &err) < 0)
		log_warn("matrix: reading the DM room of a player: %s", buf_str(&err));
	if (!val.len && !create) {
		buf_release(&key);
		buf_release(&val);
		buf_release(&err);
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	copy_id(d->user, MX_ID_SIZE, user);
	d->tail = &d->waiting;
	strmap_put(&m->dms, d->user, d);
	{
		/* "room" or "room\ntold" */
		const char *nl = strchr(buf_str(&val), '\n');

		snprintf(room, MX_ID_SIZE, "%.*s",
			 (int)(nl ? (size_t)(nl - buf_str(&val)) : val.len), buf_str(&val));
		d->told = nl && !strcmp(nl + 1, "told");
	}
	dm_set_room(m, d, room);
	buf_release(&key);
	buf_release(&val);
	buf_release(&err);
	return d;
}

void mxm_dm_remember(struct matrix *m, const char *user, const char *room, int told)
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

/* Whether room is exactly {the bot, user} as far as the bot knows. */
enum mx_verdict mxm_dm_verdict(struct matrix *m, const char *room, const char *user)
{
	struct mroom *r = mxm_room_get(m, room, 0);

	return r ? mx_members_exactly(&r->mem, m->me, user) : MX_UNKNOWN;
}

/* A message in room from user is in their private chat with the bot (the
 * prefix is optional there): the room is theirs in the store or m.direct,
 * and not known to hold anyone else. */
int mxm_is_dm_room(struct matrix *m, const char *room, const char *user)
{
	struct dm *d = mxm_dm_get(m, user, 0);
	json_t *rooms, *v;
	size_t i;
	int listed = d && !strcmp(d->room, room);

	rooms = m->direct ? json_object_get(m->direct, user) : NULL;
	json_array_foreach(rooms, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), room))
			listed = 1;
	return listed && mxm_dm_verdict(m, room, user) != MX_NO;
}

/* ---- private messages ---- */

/*
 * A private part's txn id ends with a tag of the room it goes to: sent again
 * to the same room (a retry, a restart) it is deduplicated by the server;
 * sent to a new direct chat after the old one stopped being private, it is
 * a new event there, not a duplicate of one that never went.
 */
static uint32_t room_tag(const char *room)
{
	return (uint32_t)strmap_siphash(0, 0, room, strlen(room));
}

void mxm_part_free(struct part *pt)
{
	json_decref(pt->content);
	mxm_img_unref(pt->img);
	free(pt);
}

static void send_part(struct matrix *m, struct dm *d, struct part *pt)
{
	struct buf path = BUF_INIT, t = BUF_INIT;

	buf_printf(&t, "%s.%08x", pt->txn, room_tag(d->room));
	mxm_send_path(&path, d->room, buf_str(&t));
	if (pt->img)
		mxm_img_upload(m, pt->img, d->room);
	mxm_img_attach(pt->img, mxm_call_ex(m, "PUT", buf_str(&path), pt->content, d->room, 0,
					    REQ_ROOM_MSG, mxm_on_sent, pt->post, d->user, pt->txn));
	mxm_tell_where(m, d, pt->origin_room);
	buf_release(&path);
	buf_release(&t);
	mxm_part_free(pt);
}

/* Puts list (a chain of parts, oldest first) before d's waiting parts. */
static void dm_unshift(struct matrix *m, struct dm *d, struct part *list)
{
	struct part *last = list;
	size_t n = 1;

	if (!list)
		return;
	while (last->next) {
		last = last->next;
		n++;
	}
	last->next = d->waiting;
	if (!d->waiting)
		d->tail = &last->next;
	d->waiting = list;
	m->nwaiting += n;
}

static struct part *part_of_req(struct mxreq *q)
{
	struct part *pt = xcalloc(1, sizeof(*pt));

	/* a sealed part goes back as it was: it is sealed again for its room */
	pt->content = json_loads(q->plain ? q->plain : q->body ? q->body : "", 0, NULL);
	copy_id(pt->txn, sizeof(pt->txn), q->priv_txn);
	pt->post = q->ctx;
	if ((pt->img = q->img)) {
		pt->img->refs++;
		/* where its picture was, and the key of an encrypted one: it
		 * is uploaded again for the room it goes to, which sets them */
		json_object_del(pt->content, "file");
		json_object_set_new(pt->content, "url", json_string(""));
	}
	return pt;
}

/*
 * Takes the private parts for user out of room's lane (all but the head,
 * which may be on the wire) and returns them as a chain, in order.
 */
static struct part *lane_pull_private(struct matrix *m, const char *room, const char *user)
{
	struct lane *l = strmap_get(&m->lanes, room);
	struct part *list = NULL, **tail = &list;
	struct mxreq *prev, *q, *next;

	if (!l || !l->head)
		return NULL;
	prev = l->head;
	for (q = prev->next; q; q = next) {
		next = q->next;
		if (strcmp(q->priv_user, user)) {
			prev = q;
			continue;
		}
		prev->next = next;
		if (l->tail == q)
			l->tail = prev;
		q->lane = NULL;
		*tail = part_of_req(q);
		tail = &(*tail)->next;
		mxm_req_free(q);
	}
	return list;
}

/* mxm_req_start found q, a private part, bound for a room that is not (or not
 * known to be) the player's private chat: it goes back to the player's
 * queue with the ones behind it, and the room is looked at again. */
void mxm_dm_requeue(struct matrix *m, struct mxreq *q)
{
	struct dm *d = mxm_dm_get(m, q->priv_user, 1);
	struct part *pt = part_of_req(q);

	log_info("matrix: a private message held back: its chat is not known to be private now");
	pt->next = lane_pull_private(m, q->lane->room, q->priv_user);
	dm_unshift(m, d, pt);
	q->cb = NULL;
	mxm_lane_advance(q);
	mxm_req_free(q);
	mxm_dm_pump(m, d);
}

int mxm_dm_still_private(struct matrix *m, const char *room, const char *user)
{
	struct dm *d = mxm_dm_get(m, user, 0);

	return d && !strcmp(d->room, room) && mxm_dm_verdict(m, room, user) == MX_YES;
}

/* Drops d's waiting parts as undelivered (the outbox keeps them). */
static void dm_fail_waiting(struct matrix *m, struct dm *d)
{
	struct part *pt;

	while ((pt = d->waiting)) {
		d->waiting = pt->next;
		m->nwaiting--;
		mxm_post_part_done(m, pt->post, 0);
		mxm_part_free(pt);
	}
	d->tail = &d->waiting;
	mxm_sendq_shrunk(m);
}

static void dmctx_release(struct live *l)
{
	live_del(l);
	free(l);
}

struct dmctx *mxm_dmctx_new(struct matrix *m, const char *user, const char *room)
{
	struct dmctx *c = xcalloc(1, sizeof(*c));

	copy_id(c->user, MX_ID_SIZE, user);
	copy_id(c->room, MX_ID_SIZE, room);
	live_add(m, &c->live, dmctx_release);
	return c;
}

static void say_not_encrypted(struct matrix *m, const char *room);

static void on_room_created(struct matrix *m, long status, const char *errcode,
			    const char *body, size_t len, void *ctx)
{
	struct dmctx *c = ctx;
	struct dm *d = mxm_dm_get(m, c->user, 1);
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *room = json_string_value(json_object_get(j, "room_id"));

	live_del(&c->live);
	d->busy = DM_IDLE;
	if (status == 200 && room && strlen(room) < MX_ID_SIZE) {
		struct mroom *r = mxm_room_get(m, room, 1);

		/* the bot made it: exactly the two of them, for a fact */
		mx_members_set(&r->mem, m->me, MXM_JOIN, NULL);
		mx_members_set(&r->mem, c->user, MXM_INVITE, NULL);
		r->mem.complete = 1;
		if (mxe2e_usable(m->e2e))
			mxm_room_mark_encrypted(m, r, NULL);
		else
			say_not_encrypted(m, room);
		dm_set_room(m, d, room);
		d->told = 0;
		mxm_dm_remember(m, c->user, room, 0);
		mxm_record_direct(m, c->user, room);
		log_info("matrix: created a direct chat for a player");
	} else {
		log_warn("matrix: could not create a direct chat (HTTP %ld %s)", status,
			 errcode ? errcode : "");
		dm_fail_waiting(m, d);	/* they stay in the outbox */
	}
	mxm_dm_pump(m, d);
	json_decref(j);
	free(c);
}

/* The first message of a direct chat the bot could not encrypt: its
 * player is told, before their hand comes, who else can read it. */
static void say_not_encrypted(struct matrix *m, const char *room)
{
	struct rich body = RICH_INIT;

	rich_text(&body, "This chat is not end-to-end encrypted: tabula cannot encrypt on this "
		  "homeserver (it offers no encryption keys, or the bot's login has no device), "
		  "so the homeserver can read what I send you here, your hand included. / Este "
		  "chat no está cifrado de extremo a extremo: tabula no puede cifrar en este "
		  "servidor (no ofrece claves de cifrado, o la sesión del bot no tiene "
		  "dispositivo), así que el servidor puede leer lo que te envío aquí, también tu "
		  "mano.");
	mxm_send_notice(m, room, &body);
	rich_release(&body);
	log_warn("matrix: made a direct chat without encryption (the bot cannot encrypt on "
		 "this homeserver); its player is told");
}

static void dm_create(struct matrix *m, struct dm *d)
{
	json_t *req = json_pack("{s:s, s:b, s:[s], s:s, s:[{s:s, s:s, s:{s:s}}]}",
				"preset", "trusted_private_chat", "is_direct", 1,
				"invite", d->user, "name", "tabula", "initial_state",
				"type", "m.room.history_visibility", "state_key", "",
				"content", "history_visibility", "invited");

	/* the hands travel there: encrypted from its first event */
	if (mxe2e_usable(m->e2e))
		json_array_append_new(json_object_get(req, "initial_state"),
				      json_pack("{s:s, s:s, s:{s:s}}", "type", "m.room.encryption",
						"state_key", "", "content", "algorithm",
						MXC_MEGOLM_ALGORITHM));
	d->busy = DM_CREATING;
	mxm_call(m, "POST", API "/createRoom", req, NULL, 0, on_room_created,
		 mxm_dmctx_new(m, d->user, ""));
	json_decref(req);
}

/* Loads a GET /members answer into room's members: the whole list. */
int mxm_load_members(struct matrix *m, const char *room, const char *body, size_t len)
{
	struct mroom *r = mxm_room_get(m, room, 1);
	struct buf err = BUF_INIT;
	struct mx_sync s;
	size_t i;

	if (mx_messages_parse(body, len, room, &s, &err)) {
		log_warn("matrix: a member list: %s", buf_str(&err));
		buf_release(&err);
		mx_sync_release(&s);
		return -1;
	}
	mx_members_clear(&r->mem);
	for (i = 0; i < s.nitems; i++)
		if (s.items[i].kind == MX_MEMBER)
			mx_members_set(&r->mem, s.items[i].state_key,
				       mx_membership_of(s.items[i].membership),
				       s.items[i].displayname);
	r->mem.complete = 1;
	mx_sync_release(&s);
	buf_release(&err);
	return 0;
}

static void restrict_history(struct matrix *m, struct dmctx *c);

static void on_members(struct matrix *m, long status, const char *errcode, const char *body,
		       size_t len, void *ctx)
{
	struct dmctx *c = ctx;
	struct dm *d = mxm_dm_get(m, c->user, 1);
	int ok = status == 200 && !mxm_load_members(m, c->room, body, len);

	live_del(&c->live);
	if (c->adopt) {
		/* a room the player made and invited the bot to, as a direct
		 * chat: theirs only if nobody else is in it, and once what is
		 * said there is hidden from whoever comes later */
		if (ok && !d->room[0] && d->busy == DM_IDLE &&
		    mxm_dm_verdict(m, c->room, c->user) == MX_YES) {
			restrict_history(m, c);
			return;
		} else if (ok) {
			log_info("matrix: a direct chat invitation to a room with other members; "
				 "not used for private messages");
		}
		free(c);
		return;
	}
	d->busy = DM_IDLE;
	if (strcmp(d->room, c->room)) {
		/* moved on meanwhile */
	} else if (ok) {
		if (mxm_dm_verdict(m, c->room, c->user) != MX_YES)
			mxm_dm_abandon(m, d, 1);
	} else if (status == STATUS_TOO_BIG) {
		mxm_dm_abandon(m, d, 1);	/* a member list over 8 MiB */
	} else if (status >= 400 && status < 500 && status != 429) {
		/* the bot may not read it (not in the room any more) */
		mxm_dm_abandon(m, d, 0);
	} else {
		log_warn("matrix: could not check a direct chat's members (HTTP %ld %s); "
			 "its private messages wait for the next start", status,
			 errcode ? errcode : "");
		dm_fail_waiting(m, d);
	}
	mxm_dm_pump(m, d);
	free(c);
}

static void on_history_set(struct matrix *m, long status, const char *errcode,
			   const char *body, size_t len, void *ctx)
{
	struct dmctx *c = ctx;
	struct dm *d = mxm_dm_get(m, c->user, 1);

	live_del(&c->live);
	if (status < 200 || status >= 300) {
		log_info("matrix: a direct chat invitation not used for private messages: the "
			 "bot may not hide its history from later members (HTTP %ld)", status);
	} else if (!d->room[0] && d->busy == DM_IDLE &&
		   mxm_dm_verdict(m, c->room, c->user) == MX_YES) {
		dm_set_room(m, d, c->room);
		d->told = 0;
		mxm_dm_remember(m, c->user, c->room, 0);
		mxm_record_direct(m, c->user, c->room);
		log_info("matrix: a player's direct chat invitation accepted as their DM room");
		mxm_dm_pump(m, d);
	}
	free(c);
}

/*
 * History visibility "invited": someone who joins later cannot read what
 * was said before their invitation (hands sent while the chat was
 * private).  Set in the rooms the bot creates, and before adopting one.
 */
static void restrict_history(struct matrix *m, struct dmctx *c)
{
	struct buf path = BUF_INIT;
	json_t *body = json_pack("{s:s}", "history_visibility", "invited");

	live_add(m, &c->live, dmctx_release);
	buf_addstr(&path, API "/rooms/");
	enc(&path, c->room);
	buf_addstr(&path, "/state/m.room.history_visibility/");
	mxm_call(m, "PUT", buf_str(&path), body, c->room, 0, on_history_set, c);
	json_decref(body);
	buf_release(&path);
}

void mxm_fetch_members(struct matrix *m, struct dmctx *c)
{
	struct buf path = BUF_INIT;

	buf_addstr(&path, API "/rooms/");
	enc(&path, c->room);
	buf_addstr(&path, "/members?not_membership=leave");
	mxm_call(m, "GET", buf_str(&path), NULL, NULL, 0, on_members, c);
	buf_release(&path);
}

static void dm_check(struct matrix *m, struct dm *d)
{
	d->busy = DM_CHECKING;
	mxm_fetch_members(m, mxm_dmctx_new(m, d->user, d->room));
}

/* The bot stops using d's room as d's private chat: store, memory and
 * m.direct.  Private parts still queued for it come back to d. */
void mxm_dm_forget(struct matrix *m, struct dm *d)
{
	char old[MX_ID_SIZE];

	copy_id(old, sizeof(old), d->room);
	if (!old[0])
		return;
	dm_unshift(m, d, lane_pull_private(m, old, d->user));
	mxm_unrecord_direct(m, d->user, old);
	dm_set_room(m, d, "");
	d->told = 0;
	mxm_dm_remember(m, d->user, "", 0);
}

/* d's room has (or may have) someone else in it: never used privately
 * again; the player's next private message opens a new direct chat.
 * tell: say so in that room (the bot is still in it). */
void mxm_dm_abandon(struct matrix *m, struct dm *d, int tell)
{
	char old[MX_ID_SIZE];
	struct rich body = RICH_INIT;

	copy_id(old, sizeof(old), d->room);
	if (!old[0])
		return;
	log_info("matrix: a player's direct chat is not private any more; their private "
		 "messages go to a new one");
	mxm_dm_forget(m, d);
	if (!tell)
		return;
	rich_text(&body, "This chat is not private any more (someone else is in it), so I no "
		  "longer send private messages here: they go to a new direct chat. / Este chat "
		  "ya no es privado (hay alguien más), así que no envío aquí mensajes privados: "
		  "irán a un chat directo nuevo.");
	mxm_send_notice(m, old, &body);
	rich_release(&body);
}

/* Sends what waits for d once its room is known to be private: creates
 * the room, checks its members, or leaves it for a new one first. */
void mxm_dm_pump(struct matrix *m, struct dm *d)
{
	struct part *pt;

	if (d->busy != DM_IDLE || !d->waiting || m->stopping)
		return;
	if (!d->room[0]) {
		/* encrypted or not: known once the keys' upload was answered
		 * (mxm_e2e_settled pumps again) */
		if (mxe2e_settled(m->e2e))
			dm_create(m, d);
		return;
	}
	switch (mxm_dm_verdict(m, d->room, d->user)) {
	case MX_UNKNOWN:
		dm_check(m, d);
		return;
	case MX_NO:
		mxm_dm_abandon(m, d, 1);
		if (mxe2e_settled(m->e2e))
			dm_create(m, d);
		return;
	case MX_YES:
		break;
	}
	while ((pt = d->waiting)) {
		d->waiting = pt->next;
		m->nwaiting--;
		send_part(m, d, pt);
	}
	d->tail = &d->waiting;
}

/* Queues the events of contents (an array, borrowed) for user's direct
 * chat as p's parts first, first + 1, ...; img: the last one is the
 * m.image of that picture, or NULL. */
void mxm_private_parts(struct matrix *m, struct post *p, const char *user, json_t *contents,
		       const char *txn, size_t first, const char *origin_room,
		       struct mximg *img)
{
	struct dm *d = mxm_dm_get(m, user, 1);
	size_t i, n = json_array_size(contents);

	for (i = 0; i < n; i++) {
		struct part *pt = xcalloc(1, sizeof(*pt));

		pt->content = json_incref(json_array_get(contents, i));
		snprintf(pt->txn, sizeof(pt->txn), "%s.%zu", txn, first + i);
		pt->post = p;
		if (img && i + 1 == n) {
			pt->img = img;
			img->refs++;
		}
		copy_id(pt->origin_room, MX_ID_SIZE, origin_room);
		*d->tail = pt;
		d->tail = &pt->next;
		m->nwaiting++;
	}
	mxm_dm_pump(m, d);
}

/* Sends contents (an array, borrowed) privately to user; img: the last
 * one is the m.image of that picture, or NULL; follow: the picture
 * follows under that id, as the next part (0: none). */
void mxm_send_private(struct matrix *m, const char *user, json_t *contents, const char *txn,
		      int64_t outbox_id, const char *origin_room, struct mximg *img,
		      uint64_t follow)
{
	size_t n = json_array_size(contents);
	struct post *p;

	if (mxm_sent_if_empty(m, n, follow, outbox_id))
		return;
	p = mxm_post_new(m, outbox_id, n);
	if (follow)
		mxm_follow_keep(m, p, follow, NULL, user, origin_room, txn, n);
	mxm_private_parts(m, p, user, contents, txn, 0, origin_room, img);
}
