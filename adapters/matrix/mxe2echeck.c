/*
 * mxe2echeck: room keys checked before they are taken.  Owns a room key
 * that came over Olm (mxe_room_key_in) until it is judged: its sender must
 * be in the room and the session must come from a device of theirs, so
 * it waits (struct pending, in memory and in the store) for the homeserver
 * to say whether the sender is a member and for the sender's device list,
 * then is accepted into the inbound sessions or dropped; mxe2e_checking
 * tells a caller when nothing waits any more.
 */

#include "adapters/matrix/mxe2eint.h"

enum { PK_WAIT, PK_ACCEPT, PK_DROP };

/* The membership io: 1 joined, 2 invited, 0 neither, -1 unknown. */
static int joined(struct mxe2e *e, const char *room, const char *user)
{
	return e->io.is_joined ? e->io.is_joined(e->io.ctx, room, user) : -1;
}

static void pk_skey(struct mxe2e *e, struct buf *b, const struct pending *p)
{
	buf_reset(b);
	buf_printf(b, "matrix.e2e.%s.pk.%s %s %s %s", e->device, p->room, p->sid, p->user,
		   p->scurve);
}

static void pk_save(struct mxe2e *e, const struct pending *p)
{
	struct buf k = BUF_INIT;
	json_t *j = json_pack("{s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I}",
			      "p", mxe_pickle_json(mxc_in_pickle(p->in, &e->key)), "r", p->room,
			      "s", p->sid, "u", p->user, "dc", p->dcurve, "de", p->ded,
			      "sc", p->scurve, "se", p->sed, "t", (json_int_t)p->t);

	pk_skey(e, &k, p);
	mxe_kv_set_json(e, buf_str(&k), j);
	mxe_json_wipe_decref(j, "p");
	buf_release(&k);
}

/* Takes the pending key i out (from the store too). */
void mxe_pk_remove(struct mxe2e *e, size_t i)
{
	struct buf k = BUF_INIT;

	pk_skey(e, &k, &e->pk[i]);
	mxe_kv_del(e, buf_str(&k));
	buf_release(&k);
	mxc_in_free(e->pk[i].in);
	memmove(&e->pk[i], &e->pk[i + 1], (e->npk - i - 1) * sizeof(*e->pk));
	e->npk--;
}

static int pk_same(const struct pending *a, const struct pending *b)
{
	return !strcmp(a->room, b->room) && !strcmp(a->sid, b->sid) &&
	       !strcmp(a->scurve, b->scurve) && !strcmp(a->user, b->user);
}

/*
 * Holds p (its session moves in) until its checks are done.  Bounded: a
 * sender's 17th pushes their own oldest out; when the list is full, the
 * oldest of whoever holds the most goes (nobody's one key is pushed out by
 * a crowd of others').
 */
static void pk_add(struct mxe2e *e, struct pending *p)
{
	size_t i, mine = 0, victim = e->npk;

	for (i = 0; i < e->npk; i++) {
		if (pk_same(&e->pk[i], p)) {
			mxc_in_free(p->in);	/* the same key waits already */
			p->in = NULL;
			return;
		}
		if (!strcmp(e->pk[i].user, p->user) && mine++ == 0)
			victim = i;
	}
	if (mine < PENDING_PER_SENDER)
		victim = e->npk;
	if (victim == e->npk && e->npk >= PENDING_MAX) {
		size_t best = 0, bi = 0, j;

		for (i = 0; i < e->npk; i++) {
			size_t n = 0;

			for (j = 0; j < e->npk; j++)
				n += !strcmp(e->pk[j].user, e->pk[i].user);
			if (n > best) {
				best = n;
				bi = i;	/* the first (oldest) of theirs */
			}
		}
		victim = bi;
	}
	if (victim < e->npk) {
		log_warn("matrix: too many room keys wait for their checks; an older one is dropped");
		mxe_pk_remove(e, victim);
	}
	e->pk = xrealloc(e->pk, (e->npk + 1) * sizeof(*e->pk));
	e->pk[e->npk] = *p;
	p->in = NULL;
	pk_save(e, &e->pk[e->npk]);
	e->npk++;
}

/* URL path segment encoding. */
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

static void on_member(void *ctx, long status, const char *body, size_t len)
{
	struct pend *p = ctx;
	struct mxe2e *e = p->e;
	json_t *j = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
	const char *mb = json_string_value(json_object_get(j, "membership"));
	/* 200: what it is; 403 (the bot is not in the room), 404 (never a
	 * member): no; anything else: asked again at the next sync */
	int v = status == 200 ? (mb && (!strcmp(mb, "join") || !strcmp(mb, "invite")) ? 1 : -1) :
		status == 403 || status == 404 ? -1 : 0;
	size_t i;

	for (i = 0; i < e->npk; i++) {
		struct pending *k = &e->pk[i];

		if (!k->asking || strcmp(k->room, p->room) || strcmp(k->user, p->user))
			continue;
		k->asking = 0;
		if (v)
			k->member = v;
		else
			k->failed = 1;
	}
	if (!v)
		log_warn("matrix: could not ask whether a room key's sender is in its room (HTTP "
			 "%ld); again after the next sync", status);
	json_decref(j);
	mxe_pend_free(p);
	mxe_pk_run(e);
}

/* Asks the homeserver whether p's sender is in p's room (the bot knows
 * only the members it has seen: lazy loading). */
static void member_ask(struct mxe2e *e, struct pending *p)
{
	struct buf path = BUF_INIT;
	struct pend *q;
	size_t i;

	for (i = 0; i < e->npk; i++)
		if (e->pk[i].asking && !strcmp(e->pk[i].room, p->room) &&
		    !strcmp(e->pk[i].user, p->user)) {
			p->asking = 1;	/* that answer is this one's too */
			return;
		}
	p->asking = 1;
	q = mxe_pend_new(e, p->room);
	snprintf(q->user, sizeof(q->user), "%s", p->user);
	buf_addstr(&path, API "/rooms/");
	enc(&path, p->room);
	buf_addstr(&path, "/state/m.room.member/");
	enc(&path, p->user);
	mxe_call(e, "GET", buf_str(&path), NULL, on_member, q);
	buf_release(&path);
}

/*
 * The checks of a room key (m.room_key: bound to its sender, as the spec
 * and matrix-sdk-crypto bind it; docs/matrix.md, "Reading"): the bot is in
 * the room, the sender is a member (asked for when the bot has not seen),
 * and the Olm message came from a listed, usable device of the sender
 * whose ed25519 key is the one the payload names (the sender's devices are
 * asked for when not known to be fresh, or when the device is not in the
 * list: it may be new).  dry: no request is made (PK_WAIT says one is
 * needed).
 */
static int pk_judge(struct mxe2e *e, struct pending *p, int dry, const char **why)
{
	int b = joined(e, p->room, e->user);
	int s = joined(e, p->room, p->user);
	struct mxk_user *u;
	const struct mxk_device *d;

	if (b == 0 || b == 2) {
		*why = "is for a room the bot is not in";
		return PK_DROP;
	}
	if (s == 0 || p->member < 0) {
		*why = "came from someone who is not in its room";
		return PK_DROP;
	}
	if ((b < 0 || s < 0) && p->member <= 0) {
		if (!dry && !p->asking && !p->failed)
			member_ask(e, p);
		return PK_WAIT;
	}
	u = mxe_user_get(e, p->user);
	d = mxk_by_curve(u, p->dcurve);
	if (!u->fresh || (!d && !p->queried)) {
		if (!dry && !p->failed) {
			u->fresh = 0;	/* a device not listed: maybe a new one */
			p->queried = 1;
			mxe_query_add(e, p->user);
		}
		return PK_WAIT;
	}
	if (!d || !mxk_usable(d) || strcmp(d->ed, p->ded)) {
		*why = "came from a device its sender does not list (or one blocked, or with "
		       "other keys)";
		return PK_DROP;
	}
	return PK_ACCEPT;
}

/*
 * Takes p's room key: a new session, or a copy of one the bot has that
 * reads further back (p's session moves out of p).  Then the sender's
 * oldest beyond IN_PER_SENDER in that room go.
 */
static void room_key_store(struct mxe2e *e, struct pending *p)
{
	const char *user = p->user;
	struct insess *s = mxe_in_get(e, p->room, p->sid, user, p->scurve);

	if (s) {
		if (mxc_in_first_index(p->in) < mxc_in_first_index(s->s)) {
			mxc_in_free(s->s);	/* the same session, from further back */
			s->s = p->in;
			p->in = NULL;
			mxe_insess_save(e, s);
		}
		return;
	}
	s = mxe_insess_new(e, p->room, p->sid, user, p->scurve);
	s->s = p->in;
	p->in = NULL;
	snprintf(s->ed, sizeof(s->ed), "%s", p->sed);
	s->t = mxe_now_ms(e);
	s->floor = mxc_in_first_index(s->s);
	mxe_insess_save(e, s);
	log_debug("matrix: a room key arrived");
	mxe_cap_sender(e, p->room, user);
}

static void pk_accept(struct mxe2e *e, struct pending *p)
{
	struct olmdev *od = strmap_get(&e->olm, p->dcurve);

	room_key_store(e, p);
	/* the Olm session it came by is kept now (see to_device) */
	if (od && od->n)
		mxe_olmdev_save(e, od);
}

static void pk_drop(struct mxe2e *e, struct pending *p, const char *why)
{
	struct buf k = BUF_INIT;
	struct mxk_user *u = mxe_user_peek(e, p->user);

	log_info("matrix: a room key %s; ignored", why);
	/* the Olm session it came by is not kept either, unless its device
	 * is one the bot lists */
	if (!u || !mxk_by_curve(u, p->dcurve)) {
		struct olmdev *od = strmap_del(&e->olm, p->dcurve);

		if (od)
			mxe_olmdev_free(od);
		mxe_kv_del(e, mxe_ekey(e, &k, "olm", p->dcurve, NULL));
	}
	buf_release(&k);
}

static int pk_checking(const struct mxe2e *e)
{
	size_t i;

	for (i = 0; i < e->npk; i++)
		if (e->pk[i].waiting)
			return 1;
	return 0;
}

/* Judges every waiting key again (an answer came, a sync): each is taken,
 * dropped, or waits; the batch waiting for them goes on once none waits
 * for an answer. */
void mxe_pk_run(struct mxe2e *e)
{
	int64_t now = mxe_now_ms(e);
	size_t i = 0;

	while (i < e->npk) {
		struct pending *p = &e->pk[i];
		const char *why = NULL;
		int v;

		if (now - p->t >= PENDING_MS || p->t > now + PENDING_MS) {
			why = "waited too long for its checks";
			v = PK_DROP;
		} else {
			v = pk_judge(e, p, 0, &why);
		}
		if (v == PK_WAIT) {
			p->waiting = !p->failed;
			i++;
			continue;
		}
		if (v == PK_ACCEPT)
			pk_accept(e, p);
		else
			pk_drop(e, p, why);
		mxe_pk_remove(e, i);
	}
	mxe_query_start(e);
	if (e->checked_fn && !pk_checking(e)) {
		void (*fn)(void *ctx) = e->checked_fn;

		e->checked_fn = NULL;
		fn(e->checked_ctx);
	}
}

int mxe2e_checking(struct mxe2e *e, void (*fn)(void *ctx), void *ctx)
{
	if (!e->started || !pk_checking(e))
		return 0;
	e->checked_fn = fn;
	e->checked_ctx = ctx;
	return 1;
}

/*
 * A room key arrived over Olm from m's device: taken at once when its
 * checks can be made now, dropped when they fail, else held until the
 * answers come (mxe_pk_run).  1 when it was taken or waits (the Olm session it
 * came by is kept), 0 when it was dropped.
 */
int mxe_room_key_in(struct mxe2e *e, const struct mx_olm_payload *pl,
		    const struct mx_olm_msg *m)
{
	struct buf err = BUF_INIT;
	struct pending k;
	const char *why = NULL;
	int v;

	if (!mxe_plain_id(pl->room) || !mxe_plain_id(pl->session_id) || !mxe_plain_id(m->sender) ||
	    !strcmp(m->sender, "*") || !mxe_plain_id(m->sender_key)) {
		log_info("matrix: a room key whose ids the bot cannot file; ignored");
		return 0;
	}
	memset(&k, 0, sizeof(k));
	k.in = mxc_in_new(pl->session_key, 0, &err);
	if (!k.in) {
		log_info("matrix: %s", buf_str(&err));
		buf_release(&err);
		return 0;
	}
	buf_release(&err);
	if (strcmp(mxc_in_id(k.in), pl->session_id)) {
		log_warn("matrix: a room key that is not the session it names; ignored");
		mxc_in_free(k.in);
		return 0;
	}
	snprintf(k.room, sizeof(k.room), "%s", pl->room);
	snprintf(k.sid, sizeof(k.sid), "%s", pl->session_id);
	snprintf(k.user, sizeof(k.user), "%s", m->sender);
	snprintf(k.dcurve, sizeof(k.dcurve), "%s", m->sender_key);
	snprintf(k.ded, sizeof(k.ded), "%s", pl->sender_ed);
	snprintf(k.scurve, sizeof(k.scurve), "%s", m->sender_key);
	snprintf(k.sed, sizeof(k.sed), "%s", pl->sender_ed);
	k.t = mxe_now_ms(e);
	v = pk_judge(e, &k, 1, &why);
	if (v == PK_ACCEPT)
		room_key_store(e, &k);
	else if (v == PK_DROP)
		log_info("matrix: a room key %s; ignored", why);
	else
		pk_add(e, &k);
	mxc_in_free(k.in);
	return v != PK_DROP;
}
