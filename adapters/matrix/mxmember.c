/*
 * mxmember: the bot's rooms and who is in them.  Owns joining a room it is
 * invited to (when MATRIX_ALLOW lets the inviter in) and leaving one,
 * refusing a room whose encryption it cannot take part in (told, then
 * left), and the member events of a sync: applied to each room's members
 * (struct mx_members) before its items, the rooms they touched looked at
 * again after the batch (a DM room no longer private, a room the bot is
 * alone in).
 */

#include "adapters/matrix/mxint.h"

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
	mxm_call(m, "POST", buf_str(&path), empty, room, 0, on_left, NULL);
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
		if (c->is_direct && mx_user_id_valid(c->inviter)) {
			struct dm *d = mxm_dm_get(m, c->inviter, 1);

			/* the inviter's DM room only if nobody else is in it:
			 * ask for its members first */
			if (!d->room[0] && d->busy == DM_IDLE) {
				struct dmctx *dc = mxm_dmctx_new(m, c->inviter, c->room);

				dc->adopt = 1;
				mxm_fetch_members(m, dc);
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
	mxm_call(m, "POST", buf_str(&path), empty, NULL, 0, on_joined, c);
	json_decref(empty);
	buf_release(&path);
}

/* An invite: accepted when its (checked) sender passes MATRIX_ALLOW. */
void mxm_handle_invite(struct matrix *m, const struct mx_item *it)
{
	if (it->forged) {
		log_warn("matrix: an invite whose stripped state contradicts itself; declined");
		leave_room(m, it->room);
	} else if (!it->sender[0]) {
		log_warn("matrix: an invite without its invite event; declined");
		leave_room(m, it->room);
	} else if (!matrix_allowed(m->allow, it->sender, it->room)) {
		log_info("matrix: an invite from outside MATRIX_ALLOW; declined");
		leave_room(m, it->room);	/* declines the invite */
	} else {
		join_room(m, it);
	}
}

/* An encrypted room the bot cannot take part in (no device of its own, or
 * an algorithm other than Megolm v1 in a room it never knew as Megolm):
 * it says so, in clear (a fixed text: nothing of a game), and leaves. */
void mxm_say_encrypted_and_leave(struct matrix *m, struct mroom *r)
{
	struct rich body = RICH_INIT;
	struct buf path = BUF_INIT;
	struct dm *d;
	json_t *c, *one;
	char txn[96];

	if (r->refused)
		return;
	r->refused = 1;
	/* a player's direct chat no more: their private messages go to a
	 * new one (the ones waiting here go back to their queue) */
	if ((d = strmap_get(&m->dm_rooms, r->id)))
		mxm_dm_forget(m, d);
	rich_text(&body, "This room's end-to-end encryption is one tabula cannot take part in, "
		  "so it is leaving. Invite it to a room with the usual encryption (or none) to "
		  "play. / Tabula no puede participar en el cifrado de extremo a extremo de esta "
		  "sala, así que se va. Invítalo a una sala con el cifrado habitual (o sin "
		  "cifrado) para jugar.");
	c = mx_notice_contents(&body);
	one = json_array_get(c, 0);
	mxm_new_txn(m, txn, sizeof(txn));
	mxm_send_path(&path, r->id, txn);
	mxm_call_ex(m, "PUT", buf_str(&path), one, r->id, 0, REQ_ROOM_MSG | REQ_REFUSAL,
		    mxm_on_sent, mxm_post_new(m, 0, 1), NULL, NULL);
	json_decref(c);
	buf_release(&path);
	leave_room(m, r->id);
	rich_release(&body);
	log_info("matrix: left an encrypted room");
}

static void touch(struct matrix *m, struct mroom *r)
{
	if (r->touched)
		return;
	r->touched = 1;
	if (m->ntouched == m->captouched) {
		m->captouched = m->captouched ? m->captouched * 2 : 16;
		m->touched = xrealloc(m->touched, m->captouched * sizeof(*m->touched));
	}
	copy_id(m->touched[m->ntouched++], MX_ID_SIZE, r->id);
}

static void handle_member(struct matrix *m, const struct mx_item *it)
{
	struct mroom *r = mxm_room_get(m, it->room, 1);
	enum mx_membership mb = mx_membership_of(it->membership);

	mx_members_set(&r->mem, it->state_key, mb, it->displayname);
	touch(m, r);
	/* whoever leaves does not read the room's next messages */
	if (mb != MXM_JOIN && mb != MXM_INVITE && mxm_room_encrypted(m, r))
		mxe2e_member_left(m->e2e, it->room, it->state_key);
}

/*
 * After a batch, in the rooms whose members changed: a private chat that
 * gained someone is private no more; a room where the bot is alone is left.
 */
void mxm_after_batch(struct matrix *m)
{
	size_t i;

	for (i = 0; i < m->ntouched; i++) {
		struct mroom *r = mxm_room_get(m, m->touched[i], 0);
		struct dm *d;

		if (!r || !r->touched)
			continue;
		r->touched = 0;
		d = strmap_get(&m->dm_rooms, r->id);
		if (mx_members_alone(&r->mem, m->me) == MX_YES && !r->refused) {
			log_info("matrix: alone in a room; leaving it");
			if (d)
				mxm_dm_forget(m, d);	/* the next private message makes a new one */
			leave_room(m, r->id);
			mxm_room_drop(m, r->id);
			if (d)
				mxm_dm_pump(m, d);
			continue;
		}
		if (d && mxm_dm_verdict(m, r->id, d->user) == MX_NO) {
			mxm_dm_abandon(m, d, 1);
			mxm_dm_pump(m, d);
		}
	}
	m->ntouched = 0;
}

/* The bot's own join to it->room (not a profile change while joined). */
int mxm_is_my_join(struct matrix *m, const struct mx_item *it, int use_memory)
{
	struct mroom *r;
	const struct mx_member *mm;

	if (it->kind != MX_MEMBER || !it->from_timeline || strcmp(it->state_key, m->me) ||
	    strcmp(it->membership, "join"))
		return 0;
	if (it->prev_membership[0] || !use_memory)
		return strcmp(it->prev_membership, "join") != 0;
	r = mxm_room_get(m, it->room, 0);
	mm = r ? mx_members_get(&r->mem, m->me) : NULL;
	return !mm || mm->membership != MXM_JOIN;
}

/* Per item of s: 1 when the bot joins its room later in s (what came
 * before its join is not for it). */
unsigned char *mxm_before_join_of(struct matrix *m, const struct mx_sync *s)
{
	unsigned char *bj = xcalloc(s->nitems ? s->nitems : 1, 1);
	struct strmap later;
	size_t i;

	strmap_init(&later, m->k0, m->k1);
	for (i = s->nitems; i-- > 0;) {
		const struct mx_item *it = &s->items[i];

		bj[i] = strmap_get(&later, it->room) != NULL;
		if (mxm_is_my_join(m, it, 1))
			strmap_put(&later, it->room, (void *)it);
	}
	strmap_release(&later);
	return bj;
}

/*
 * Memberships are taken from the whole response before any of its messages
 * is handled (mxm_apply_members), so a private message sent because of a
 * command early in the batch already knows that its chat gained a member
 * later in the same batch (rooms come one after another in a response,
 * not in the order things happened).  A limited timeline's gap may have
 * hidden changes (lazy-loaded members): the counts are forgotten too,
 * unless this response's summary gives them again.
 */
void mxm_apply_members(struct matrix *m, const struct mx_sync *s)
{
	size_t i;
	struct mroom *r;

	for (i = 0; i < s->nitems; i++) {
		const struct mx_item *it = &s->items[i];

		switch (it->kind) {
		case MX_MEMBER:
			handle_member(m, it);
			break;
		case MX_LIMITED:
			if ((r = mxm_room_get(m, it->room, 0))) {
				r->mem.complete = 0;
				r->mem.sum_joined = r->mem.sum_invited = -1;
			}
			break;
		case MX_SPACE_PARENT:
			/* before the batch's commands: the first parent seen
			 * stays (a room in several spaces is rated in one) */
			r = mxm_room_get(m, it->room, 1);
			if (!r->space[0])
				snprintf(r->space, sizeof(r->space), "%s", it->state_key);
			break;
		case MX_SUMMARY:
			r = mxm_room_get(m, it->room, 1);
			mx_members_summary(&r->mem, it->joined, it->invited);
			touch(m, r);
			break;
		case MX_ENCRYPTED:
			/* before any message of the batch is answered: the
			 * answers to this room are encrypted (or, when the bot
			 * cannot take part, mxm_handle_item says so and leaves) */
			mxm_room_mark_encrypted(m, mxm_room_get(m, it->room, 1), it);
			break;
		default:
			break;
		}
	}
}
