/*
 * mxsend: messages on their way out.  Owns a message being sent (struct
 * post: its parts counted as they land, a picture that follows it in
 * m->follows), transaction ids (mxm_new_txn: unique across restarts, so a
 * retried PUT is not sent twice), the parts of a room message queued in
 * its lane, their answers (mxm_on_sent, which confirms the outbox message),
 * notices, and telling a game room where a player's private message went.
 */

#include "adapters/matrix/mxint.h"

static void follow_unlink(struct matrix *m, struct post *p);

static void post_release(struct live *l)
{
	struct post *p = (struct post *)l;

	live_del(l);
	if (p->follow)
		follow_unlink(p->m, p);
	free(l);
}

struct post *mxm_post_new(struct matrix *m, int64_t outbox_id, size_t parts)
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
void mxm_post_part_done(struct matrix *m, struct post *p, int ok)
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

struct post *mxm_follow_take(struct matrix *m, uint64_t id)
{
	struct post *p;

	for (p = m->follows; p && p->follow != id; p = p->fnext)
		;
	if (p)
		follow_unlink(m, p);
	return p;
}

/* p's picture follows under id: its part stays pending until then. */
void mxm_follow_keep(struct matrix *m, struct post *p, uint64_t id, const char *room,
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

void mxm_on_sent(struct matrix *m, long status, const char *errcode, const char *body,
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
		struct mroom *r = mxm_room_get(m, p->room, 0);

		if (r && !strcmp(r->last_title, p->title))
			r->answer_pending = 0;
	}
	if (p->title[0] && status == 200) {
		json_t *j = json_loadb(body, len, 0, NULL);
		const char *ev = json_string_value(json_object_get(j, "event_id"));
		struct mroom *r = mxm_room_get(m, p->room, 1);

		if (ev && strlen(ev) < MX_ID_SIZE && !strcmp(r->last_title, p->title))
			copy_id(r->last_event, MX_ID_SIZE, ev);
		json_decref(j);
	}
	mxm_post_part_done(m, p, ok);
}

void mxm_send_path(struct buf *path, const char *room, const char *txn)
{
	buf_addstr(path, API "/rooms/");
	enc(path, room);
	buf_addstr(path, "/send/m.room.message/");
	enc(path, txn);
}

/* Sends the events of contents (an array, borrowed) to room as p's parts
 * first, first + 1, ... (txn ids txn.<part>).  img: the last one is the
 * m.image of that picture (uploaded just before it), or NULL. */
void mxm_post_parts(struct matrix *m, struct post *p, const char *room, json_t *contents,
		    const char *txn, size_t first, struct mximg *img)
{
	size_t i, n = json_array_size(contents);

	for (i = 0; i < n; i++) {
		struct buf path = BUF_INIT, t = BUF_INIT;
		int pic = img && i + 1 == n;
		json_t *c = json_incref(json_array_get(contents, i));

		buf_printf(&t, "%s.%zu", txn, first + i);
		mxm_send_path(&path, room, buf_str(&t));
		if (pic)
			mxm_img_upload(m, img, room);
		mxm_img_attach(pic ? img : NULL,
			       mxm_call_ex(m, "PUT", buf_str(&path), c, room, 0,
					   REQ_ROOM_MSG, mxm_on_sent, p, NULL, NULL));
		json_decref(c);
		buf_release(&path);
		buf_release(&t);
	}
}

/* An answer with no part and nothing to follow is delivered already: the
 * outbox hears so at once rather than wait for a post that never ends.
 * Returns 1 when it was. */
int mxm_sent_if_empty(struct matrix *m, size_t n, uint64_t follow, int64_t outbox_id)
{
	if (n || follow)
		return 0;
	if (outbox_id > 0 && m->base.on_sent)
		m->base.on_sent(m->base.ctx, &m->base, outbox_id);
	return 1;
}

/* Sends the messages of contents (an array, borrowed) to room, with txn ids
 * txn.0, txn.1, ...; mxm_on_sent(outbox_id) when all landed.  img: the last
 * one is the m.image of that picture (uploaded just before it), or NULL.
 * follow: the picture follows under that id (matrix_picture), as the
 * next part; 0: none. */
void mxm_send_contents_t(struct matrix *m, const char *room, json_t *contents,
			 const char *txn, int64_t outbox_id, const char *title,
			 struct mximg *img, uint64_t follow)
{
	size_t n = json_array_size(contents);
	struct post *p;

	if (mxm_sent_if_empty(m, n, follow, outbox_id))
		return;
	p = mxm_post_new(m, outbox_id, n);
	copy_id(p->room, MX_ID_SIZE, room);
	if (title && n == 1 && !follow)
		snprintf(p->title, sizeof(p->title), "%s", title);
	if (follow)
		mxm_follow_keep(m, p, follow, room, NULL, NULL, txn, n);
	mxm_post_parts(m, p, room, contents, txn, 0, img);
}

void mxm_new_txn(struct matrix *m, char *out, size_t n)
{
	snprintf(out, n, "tabula.r.%llu.%u", (unsigned long long)m->txn_base, ++m->txn_counter);
}

void mxm_send_contents(struct matrix *m, const char *room, json_t *contents, const char *txn,
		       int64_t outbox_id)
{
	mxm_send_contents_t(m, room, contents, txn, outbox_id, NULL, NULL, 0);
}

/* A bilingual notice to room, outside any outbox. */
void mxm_send_notice(struct matrix *m, const char *room, const struct rich *body)
{
	json_t *c = mx_notice_contents(body);
	char txn[96];

	mxm_new_txn(m, txn, sizeof(txn));
	mxm_send_contents(m, room, c, txn, 0);
	json_decref(c);
}

/* "@user: your private messages are in a direct chat with me" in the game
 * room, once per DM room, while the player has not joined it. */
void mxm_tell_where(struct matrix *m, struct dm *d, const char *origin_room)
{
	struct mroom *r = mxm_room_get(m, d->room, 0);
	const struct mx_member *mm = r ? mx_members_get(&r->mem, d->user) : NULL;
	struct rich body = RICH_INIT;
	char name[MX_NAME_SIZE];

	if (d->told || !origin_room || !*origin_room || !strcmp(origin_room, d->room) ||
	    (mm && mm->membership == MXM_JOIN))
		return;
	d->told = 1;
	mxm_dm_remember(m, d->user, d->room, 1);
	rich_mention(&body, d->user, mxm_display_name(m, origin_room, d->user, name, sizeof(name)));
	rich_text(&body, ": I sent you a private message (your hand and your moves). Accept my "
		  "invitation to a direct chat to read it. / Te he enviado un mensaje privado: "
		  "acepta mi invitación a un chat directo para leerlo.");
	mxm_send_notice(m, origin_room, &body);
	rich_release(&body);
}
