/*
 * mxe2eout: the bot's own Megolm sessions, one per room it sends to
 * encrypted.  Owns struct outroom (its session, rotation settings, the
 * devices that hold its key, those without one-time keys; in memory and in
 * the store), what the rooms' state says of encryption (an encrypted
 * room, a member who left, a room left), sharing the key before a
 * message goes (mxe2e_prepare: the members' devices that lack it, one-time
 * keys claimed, the key sent over Olm, callers waiting until it is out),
 * rotation, and sealing a message (mxe2e_seal).
 */

#include "adapters/matrix/mxe2eint.h"

/* ---- rooms ---- */

static void outroom_clear_members(struct outroom *r)
{
	size_t i;

	for (i = 0; i < r->nmembers; i++)
		free(r->members[i]);
	free(r->members);
	r->members = NULL;
	r->nmembers = 0;
}

void mxe_outroom_free(struct outroom *r)
{
	struct waiter *w, *next;

	mxc_out_free(r->out);
	free(r->sh);
	free(r->inflight);
	free(r->unr);
	outroom_clear_members(r);
	for (w = r->waiters; w; w = next) {
		next = w->next;
		free(w);
	}
	free(r);
}

static void settings_load(struct mxe2e *e, struct outroom *r)
{
	struct buf k = BUF_INIT;
	char *text;
	json_t *j, *ms, *n;

	buf_printf(&k, "matrix.enc.%s", r->room);
	text = mxe_kv_get(e, buf_str(&k));
	j = text ? json_loads(text, 0, NULL) : NULL;
	ms = json_object_get(j, "rotation_period_ms");
	n = json_object_get(j, "rotation_period_msgs");
	r->rot_ms = json_is_integer(ms) && json_integer_value(ms) > 0 ?
		    (int64_t)json_integer_value(ms) : MXE_ROTATION_MS_DEFAULT;
	r->rot_msgs = json_is_integer(n) && json_integer_value(n) > 0 ?
		      (long)json_integer_value(n) : MXE_ROTATION_MSGS_DEFAULT;
	if (r->rot_ms < MXE_ROTATION_MS_MIN)
		r->rot_ms = MXE_ROTATION_MS_MIN;
	if (r->rot_ms > MXE_ROTATION_MS_DEFAULT)
		r->rot_ms = MXE_ROTATION_MS_DEFAULT;
	if (r->rot_msgs > MXE_ROTATION_MSGS_MAX)
		r->rot_msgs = MXE_ROTATION_MSGS_MAX;
	json_decref(j);
	free(text);
	buf_release(&k);
}

static int out_save(struct mxe2e *e, struct outroom *r)
{
	struct buf k = BUF_INIT;
	json_t *j, *sh;
	size_t i;
	int rc;

	mxe_ekey(e, &k, "out", r->room, NULL);
	if (!r->out) {
		rc = mxe_kv_set(e, buf_str(&k), "");
		buf_release(&k);
		return rc;
	}
	sh = json_array();
	for (i = 0; i < r->nsh; i++)
		json_array_append_new(sh, json_pack("[s,s,s]", r->sh[i].user, r->sh[i].device,
						    r->sh[i].curve));
	j = json_pack("{s:o, s:I, s:o}", "p", mxe_pickle_json(mxc_out_pickle(r->out, &e->key)),
		      "t", (json_int_t)r->created, "s", sh);
	rc = mxe_kv_set_json(e, buf_str(&k), j);
	mxe_json_wipe_decref(j, "p");
	buf_release(&k);
	return rc;
}

static void devref_set(struct devref *d, const char *user, const char *device,
		       const char *curve)
{
	snprintf(d->user, sizeof(d->user), "%s", user);
	snprintf(d->device, sizeof(d->device), "%s", device);
	snprintf(d->curve, sizeof(d->curve), "%s", curve);
}

/* The room's outbound state (read from the store the first time). */
static struct outroom *outroom_get(struct mxe2e *e, const char *room)
{
	struct outroom *r = strmap_get(&e->out, room);
	struct buf k = BUF_INIT, err = BUF_INIT;
	char *text;
	json_t *j, *v;
	size_t i;

	if (r)
		return r;
	r = xcalloc(1, sizeof(*r) + strlen(room) + 1);
	memcpy(r->room, room, strlen(room) + 1);
	strmap_put(&e->out, r->room, r);
	settings_load(e, r);
	text = mxe_kv_get(e, mxe_ekey(e, &k, "out", room, NULL));
	j = text ? json_loads(text, 0, NULL) : NULL;
	mxc_free_secret(text);
	if (json_is_string(json_object_get(j, "p"))) {
		r->out = mxc_out_unpickle(&e->key, json_string_value(json_object_get(j, "p")), &err);
		if (!r->out)
			log_warn("matrix: %s; a new one is made", buf_str(&err));
		r->created = (int64_t)json_integer_value(json_object_get(j, "t"));
		json_array_foreach(json_object_get(j, "s"), i, v) {
			const char *u = json_string_value(json_array_get(v, 0));
			const char *d = json_string_value(json_array_get(v, 1));
			const char *c = json_string_value(json_array_get(v, 2));

			if (!r->out || !u || !d || !c)
				continue;
			r->sh = xrealloc(r->sh, (r->nsh + 1) * sizeof(*r->sh));
			devref_set(&r->sh[r->nsh++], u, d, c);
		}
	}
	mxe_json_wipe_decref(j, "p");
	buf_release(&k);
	buf_release(&err);
	return r;
}

int mxe2e_room_encrypted(struct mxe2e *e, const struct mx_item *it)
{
	struct buf k = BUF_INIT;
	struct outroom *r;
	json_t *j;

	if (strcmp(it->algorithm, MXC_MEGOLM_ALGORITHM))
		return -1;
	j = json_pack("{s:s}", "algorithm", it->algorithm);
	if (it->rotation_ms > 0)
		json_object_set_new(j, "rotation_period_ms", json_integer(it->rotation_ms));
	if (it->rotation_msgs > 0)
		json_object_set_new(j, "rotation_period_msgs", json_integer(it->rotation_msgs));
	buf_printf(&k, "matrix.enc.%s", it->room);
	mxe_kv_set_json(e, buf_str(&k), j);
	json_decref(j);
	buf_release(&k);
	if ((r = strmap_get(&e->out, it->room)))
		settings_load(e, r);
	return 0;
}

int mxe2e_room_stored_encrypted(struct mxe2e *e, const char *room)
{
	struct buf k = BUF_INIT;
	char *text;
	int yes;

	buf_printf(&k, "matrix.enc.%s", room);
	text = mxe_kv_get(e, buf_str(&k));
	yes = text != NULL;
	free(text);
	buf_release(&k);
	return yes;
}

/* The room's outbound session is not used again (it goes from the store
 * too): the next message starts a new one. */
static void discard(struct mxe2e *e, struct outroom *r, const char *why)
{
	if (!r->out)
		return;
	log_info("matrix: a room's encryption key is replaced (%s)", why);
	mxc_out_free(r->out);
	r->out = NULL;
	r->nsh = 0;
	r->nunr = 0;
	out_save(e, r);
}

void mxe2e_member_left(struct mxe2e *e, const char *room, const char *user)
{
	struct outroom *r = e->started ? outroom_get(e, room) : NULL;
	size_t i;

	for (i = 0; r && r->out && i < r->nsh; i++)
		if (!strcmp(r->sh[i].user, user)) {
			discard(e, r, "a member left");
			return;
		}
}

struct delscan {
	struct mxe2e *e;
	size_t n;
};

static int on_delscan(void *ctx, const char *key, const char *value)
{
	struct delscan *d = ctx;

	mxe_kv_del(d->e, key);
	d->n++;
	return 0;
}

/* Deletes every stored key starting with prefix; how many. */
static size_t kv_del_prefix(struct mxe2e *e, const char *prefix)
{
	struct buf err = BUF_INIT;
	struct delscan d = { e, 0 };

	if (store_cursors_prefix(e->io.store, prefix, on_delscan, &d, &err))
		log_warn("matrix: reading the room keys: %s", buf_str(&err));
	buf_release(&err);
	return d.n;
}

void mxe2e_room_left(struct mxe2e *e, const char *room)
{
	struct buf k = BUF_INIT;
	struct insess **gone = NULL;
	struct outroom *r;
	size_t i, n = 0, nd;
	void *v;

	if (!e || !e->started)
		return;
	for (i = 0; i < e->npk;)
		if (!strcmp(e->pk[i].room, room))
			mxe_pk_remove(e, i);
		else
			i++;
	for (i = 0; (i = strmap_next(&e->in, i, &v));) {
		struct insess *s = v;

		if (!strcmp(s->room, room)) {
			gone = xrealloc(gone, (n + 1) * sizeof(*gone));
			gone[n++] = s;
		}
	}
	for (i = 0; i < n; i++) {
		strmap_del(&e->in, gone[i]->key);
		mxe_insess_free(gone[i]);
	}
	free(gone);
	/* today's keys and an older version's: "<room> " begins both */
	buf_printf(&k, "matrix.e2e.%s.in.%s ", e->device, room);
	nd = kv_del_prefix(e, buf_str(&k));
	if (nd)
		log_info("matrix: left a room: its %zu room keys are deleted", nd);
	if ((r = strmap_get(&e->out, room)))
		discard(e, r, "the bot left the room");
	else
		mxe_kv_del(e, mxe_ekey(e, &k, "out", room, NULL));
	buf_release(&k);
}

/* ---- sharing the room key ---- */

static int is_member(const struct outroom *r, const char *user)
{
	size_t i;

	for (i = 0; i < r->nmembers; i++)
		if (!strcmp(r->members[i], user))
			return 1;
	return 0;
}

static int has_key(const struct outroom *r, const char *user, const char *device,
		   const char *curve)
{
	size_t i;

	for (i = 0; i < r->nsh; i++)
		if (!strcmp(r->sh[i].device, device) && !strcmp(r->sh[i].user, user) &&
		    !strcmp(r->sh[i].curve, curve))
			return 1;
	return 0;
}

static int unreachable(struct mxe2e *e, const struct outroom *r, const char *curve)
{
	size_t i;

	for (i = 0; i < r->nunr; i++)
		if (!strcmp(r->unr[i].curve, curve) && r->unr[i].until > mxe_now_ms(e))
			return 1;
	return 0;
}

static void mark_unreachable(struct mxe2e *e, struct outroom *r, const char *curve)
{
	r->unr = xrealloc(r->unr, (r->nunr + 1) * sizeof(*r->unr));
	snprintf(r->unr[r->nunr].curve, MX_KEY_SIZE, "%s", curve);
	r->unr[r->nunr++].until = mxe_now_ms(e) + UNREACHABLE_MS;
}

/* Rotation: the session is not used again when it is old or has said
 * enough, or when someone who has it left or a device of theirs is gone
 * or changed. */
static void maybe_rotate(struct mxe2e *e, struct outroom *r)
{
	size_t i;

	if (!r->out)
		return;
	if (mxe_now_ms(e) - r->created >= r->rot_ms || r->created > mxe_now_ms(e) + 60000) {
		discard(e, r, "its time is up");
		return;
	}
	if ((long)mxc_out_index(r->out) >= r->rot_msgs) {
		discard(e, r, "enough messages");
		return;
	}
	for (i = 0; i < r->nsh; i++) {
		const struct mxk_user *u;
		size_t k;
		int ok = 0;

		if (!is_member(r, r->sh[i].user)) {
			discard(e, r, "a member left");
			return;
		}
		if (r->priv[0] && !strcmp(r->sh[i].user, e->user)) {
			/* shared before private chats were kept from the bot's
			 * own other devices (missing()) */
			discard(e, r, "a private chat's key is kept from the bot's other devices");
			return;
		}
		u = mxk_get(&e->keys, r->sh[i].user);
		if (!u || !u->fresh)
			continue;	/* judged once the list is fresh */
		for (k = 0; k < u->ndev; k++)
			if (!strcmp(u->dev[k].id, r->sh[i].device))
				ok = mxk_usable(&u->dev[k]) && !strcmp(u->dev[k].curve,
								       r->sh[i].curve);
		if (!ok) {
			discard(e, r, "a device was signed out or changed");
			return;
		}
		/* one that had it before its player's rule said otherwise
		 * (cross-signing published, a device that lost its signature) */
		for (k = 0; !strcmp(u->user, r->priv) && k < u->ndev; k++)
			if (!strcmp(u->dev[k].id, r->sh[i].device) &&
			    !mxk_private_ok(u, &u->dev[k])) {
				discard(e, r, "a device may not read a private chat any more");
				return;
			}
	}
}

void mxe_notify(struct outroom *r, int ok)
{
	struct waiter *w = r->waiters, *next;

	r->waiters = NULL;
	for (; w; w = next) {
		next = w->next;
		w->fn(w->ctx, ok);
		free(w);
	}
}

/* The devices of the room's members that should have the key and do not. */
static size_t missing(struct mxe2e *e, struct outroom *r, struct devref **out)
{
	size_t i, k, n = 0;

	*out = NULL;
	for (i = 0; i < r->nmembers; i++) {
		const struct mxk_user *u = mxk_get(&e->keys, r->members[i]);

		for (k = 0; u && k < u->ndev; k++) {
			const struct mxk_device *d = &u->dev[k];

			if (!mxk_usable(d) || (!strcmp(u->user, e->user) && !strcmp(d->id, e->device)) ||
			    has_key(r, u->user, d->id, d->curve) || unreachable(e, r, d->curve))
				continue;
			/* a player's private chat: only the devices they trust,
			 * and none of the bot's own account (the homeserver can
			 * add a device there as to anyone's, and nobody would
			 * approve it; the operator reads the store anyway) */
			if (r->priv[0] && (!strcmp(u->user, e->user) ||
					   (!strcmp(u->user, r->priv) && !mxk_private_ok(u, d))))
				continue;
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			devref_set(&(*out)[n++], u->user, d->id, d->curve);
		}
	}
	return n;
}

static const struct mxk_device *device_of(struct mxe2e *e, const struct devref *d)
{
	const struct mxk_user *u = mxk_get(&e->keys, d->user);
	size_t i;

	for (i = 0; u && i < u->ndev; i++)
		if (!strcmp(u->dev[i].id, d->device))
			return &u->dev[i];
	return NULL;
}

static void on_claimed(void *ctx, long status, const char *body, size_t len)
{
	struct pend *p = ctx;
	struct mxe2e *e = p->e;
	struct outroom *r = strmap_get(&e->out, p->room);
	json_t *j = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
	struct buf err = BUF_INIT;
	size_t i;

	mxe_pend_free(p);
	if (!r) {
		json_decref(j);
		return;
	}
	r->busy = 0;
	for (i = 0; i < r->ninflight; i++) {
		const struct devref *d = &r->inflight[i];
		const struct mxk_device *dev = device_of(e, d);
		char otk[MX_KEY_SIZE];
		struct mxc_olm *s;
		struct olmdev *od;

		if (!dev || mxk_claimed(j, d->user, dev, otk)) {
			log_info("matrix: no one-time key for a device of %s: it cannot read this "
				 "room's next messages for now", d->user);
			mark_unreachable(e, r, d->curve);
			continue;
		}
		s = mxc_olm_outbound(e->acc, dev->curve, otk, &err);
		if (!s) {
			log_info("matrix: %s", buf_str(&err));
			mark_unreachable(e, r, d->curve);
			continue;
		}
		od = mxe_olmdev_get(e, dev->curve);
		mxe_olmdev_front(od, s);
		mxe_olmdev_save(e, od);
	}
	free(r->inflight);
	r->inflight = NULL;
	r->ninflight = 0;
	json_decref(j);
	buf_release(&err);
	mxe_room_kick(e, r);
}

static void on_keys_sent(void *ctx, long status, const char *body, size_t len)
{
	struct pend *p = ctx;
	struct mxe2e *e = p->e;
	struct outroom *r = strmap_get(&e->out, p->room);

	mxe_pend_free(p);
	if (!r)
		return;
	r->busy = 0;
	if (status == 200 && r->out) {
		r->sh = xrealloc(r->sh, (r->nsh + r->ninflight) * sizeof(*r->sh));
		memcpy(r->sh + r->nsh, r->inflight, r->ninflight * sizeof(*r->sh));
		r->nsh += r->ninflight;
		out_save(e, r);
		free(r->inflight);
		r->inflight = NULL;
		r->ninflight = 0;
		mxe_room_kick(e, r);
		return;
	}
	log_warn("matrix: could not send a room's key to its members (HTTP %ld); its messages "
		 "wait for the next start", status);
	free(r->inflight);
	r->inflight = NULL;
	r->ninflight = 0;
	mxe_notify(r, 0);
}

/* The m.room_key for d, Olm-encrypted, as a to-device content (new
 * reference), or NULL (*unstored set when the Olm session's new state
 * could not be stored: nothing may go then). */
static json_t *key_for(struct mxe2e *e, struct outroom *r, const struct devref *d,
		       const char *session_key, int *unstored)
{
	const struct mxk_device *dev = device_of(e, d);
	struct olmdev *od = dev ? mxe_olmdev_get(e, d->curve) : NULL;
	struct buf err = BUF_INIT;
	json_t *payload, *content = NULL;
	char *text, *ct;
	int type;

	if (!od || !od->n)
		return NULL;
	payload = json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:{s:s}, s:s, s:{s:s}}",
			    "type", "m.room_key", "content", "algorithm", MXC_MEGOLM_ALGORITHM,
			    "room_id", r->room, "session_id", mxc_out_id(r->out),
			    "session_key", session_key, "sender", e->user,
			    "sender_device", e->device, "keys", "ed25519", mxc_account_ed(e->acc),
			    "recipient", d->user, "recipient_keys", "ed25519", dev->ed);
	text = json_dumps(payload, JSON_COMPACT);
	mxe_json_wipe_decref(json_incref(json_object_get(payload, "content")), "session_key");
	json_decref(payload);
	if (text && !mxc_olm_encrypt(od->s[0], text, strlen(text), &type, &ct, &err)) {
		content = json_pack("{s:s, s:s, s:{s:{s:i, s:s}}}", "algorithm", MXC_OLM_ALGORITHM,
				    "sender_key", mxc_account_curve(e->acc), "ciphertext", d->curve,
				    "type", type, "body", ct);
		free(ct);
		/* stored before the message goes: a crash must not reuse the
		 * chain step this used */
		if (mxe_olmdev_save(e, od)) {
			json_decref(content);
			content = NULL;
			*unstored = 1;
		}
	} else if (text) {
		log_warn("matrix: %s", buf_str(&err));
	}
	mxc_free_secret(text);
	buf_release(&err);
	return content;
}

/* Sends the room key to the devices in r->inflight: 1 on its way (busy),
 * 0 none could be sent to (they are marked unreachable), -1 the store
 * failed (nothing goes). */
static int share(struct mxe2e *e, struct outroom *r)
{
	char *skey = mxc_out_key(r->out), txn[48];
	unsigned char rnd[8];
	json_t *messages = json_object(), *body;
	struct buf path = BUF_INIT;
	size_t i, n = 0;
	int unstored = 0;

	for (i = 0; i < r->ninflight && !unstored; i++) {
		const struct devref *d = &r->inflight[i];
		json_t *c = skey ? key_for(e, r, d, skey, &unstored) : NULL, *mine;

		if (unstored)
			break;
		if (!c) {
			mark_unreachable(e, r, d->curve);
			memmove(&r->inflight[i], &r->inflight[i + 1],
				(r->ninflight - i - 1) * sizeof(*r->inflight));
			r->ninflight--;
			i--;
			continue;
		}
		mine = json_object_get(messages, d->user);
		if (!mine) {
			mine = json_object();
			json_object_set_new(messages, d->user, mine);
		}
		json_object_set_new(mine, d->device, c);
		n++;
	}
	mxc_free_secret(skey);
	if (!n || unstored) {
		if (unstored)
			log_warn("matrix: a room key was not sent: the store failed");
		json_decref(messages);
		free(r->inflight);
		r->inflight = NULL;
		r->ninflight = 0;
		return unstored ? -1 : 0;
	}
	mxc_random(rnd, sizeof(rnd));
	snprintf(txn, sizeof(txn), "tabula.k.%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1],
		 rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	buf_printf(&path, API "/sendToDevice/m.room.encrypted/%s", txn);
	body = json_pack("{s:o}", "messages", messages);
	r->busy = 1;
	log_debug("matrix: sending a room key to %zu devices", n);
	mxe_call(e, "PUT", buf_str(&path), body, on_keys_sent, mxe_pend_new(e, r->room));
	json_decref(body);
	buf_release(&path);
	return 1;
}

/*
 * One step towards a room key every member device has: 0 ready, 1 waiting
 * (a query, a claim or a share is on its way and steps again), -1 failed.
 */
static int room_step(struct mxe2e *e, struct outroom *r)
{
	struct devref *miss;
	json_t *want, *body;
	size_t i, n, nclaim = 0;
	int query = 0;

	if (r->busy)
		return 1;
	maybe_rotate(e, r);
	for (i = 0; i < r->nmembers; i++) {
		struct mxk_user *u = mxe_user_get(e, r->members[i]);

		if (!u->fresh) {
			mxe_query_add(e, u->user);
			query = 1;
		}
	}
	if (query) {
		mxe_query_start(e);
		return 1;
	}
	maybe_rotate(e, r);	/* with the lists fresh: devices gone */
	if (!r->out) {
		r->out = mxc_out_new();
		r->created = mxe_now_ms(e);
		r->nsh = 0;
		r->nunr = 0;
		out_save(e, r);
		log_debug("matrix: a new encryption key for a room");
	}
	n = missing(e, r, &miss);
	if (!n)
		return 0;
	want = json_object();
	for (i = 0; i < n; i++) {
		json_t *mine;

		if (mxe_olmdev_get(e, miss[i].curve)->n)
			continue;
		mine = json_object_get(want, miss[i].user);
		if (!mine) {
			mine = json_object();
			json_object_set_new(want, miss[i].user, mine);
		}
		json_object_set_new(mine, miss[i].device, json_string("signed_curve25519"));
		/* inflight holds the devices claimed for */
		memmove(&miss[nclaim], &miss[i], sizeof(*miss));
		nclaim++;
	}
	free(r->inflight);
	r->busy = 1;
	if (nclaim) {
		r->inflight = miss;
		r->ninflight = nclaim;
		body = json_pack("{s:o, s:i}", "one_time_keys", want, "timeout", QUERY_TIMEOUT_MS);
		mxe_call(e, "POST", API "/keys/claim", body, on_claimed, mxe_pend_new(e, r->room));
		json_decref(body);
		return 1;
	}
	json_decref(want);
	r->inflight = miss;
	r->ninflight = n;
	r->busy = 0;
	switch (share(e, r)) {
	case 1:
		return 1;
	case -1:
		return -1;
	}
	return room_step(e, r);	/* none was reachable: marked, so this ends */
}

/* Steps r and tells its waiters when it is done either way. */
void mxe_room_kick(struct mxe2e *e, struct outroom *r)
{
	int rc = room_step(e, r);

	if (rc != 1)
		mxe_notify(r, rc == 0);
}

int mxe2e_prepare(struct mxe2e *e, const char *room, const char *const *members, size_t n,
		  const char *private_user, mxe_ready_fn ready, void *ctx)
{
	struct outroom *r;
	struct waiter *w, **pw;
	size_t i;
	int rc;

	if (!e->started)
		return -1;
	r = outroom_get(e, room);
	snprintf(r->priv, sizeof(r->priv), "%s", private_user ? private_user : "");
	outroom_clear_members(r);
	r->members = xcalloc(n ? n : 1, sizeof(*r->members));
	for (i = 0; i < n; i++)
		r->members[r->nmembers++] = xstrdup(members[i]);
	/* the waiter goes first: an answer that comes at once (a request
	 * that fails before it leaves) must find it */
	w = xcalloc(1, sizeof(*w));
	w->fn = ready;
	w->ctx = ctx;
	w->next = r->waiters;
	r->waiters = w;
	rc = room_step(e, r);
	if (rc == 1)
		return 1;
	for (pw = &r->waiters; *pw; pw = &(*pw)->next)
		if (*pw == w) {
			*pw = w->next;
			free(w);
			break;
		}
	return rc;
}

json_t *mxe2e_seal(struct mxe2e *e, const char *room, const json_t *content, struct buf *err)
{
	struct outroom *r = e->started ? strmap_get(&e->out, room) : NULL;
	json_t *plain, *out, *rel;
	char *text, *ct;

	if (!r || !r->out) {
		buf_setf(err, "no encryption key is ready for that room");
		return NULL;
	}
	plain = json_deep_copy(content);
	rel = json_incref(json_object_get(plain, "m.relates_to"));
	json_object_del(plain, "m.relates_to");
	out = json_pack("{s:s, s:o, s:s}", "type", "m.room.message", "content", plain,
			"room_id", room);
	text = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	ct = text ? mxc_out_encrypt(r->out, text, strlen(text)) : NULL;
	mxc_free_secret(text);
	if (!ct) {
		json_decref(rel);
		buf_setf(err, "Megolm encryption failed");
		return NULL;
	}
	/* the ratchet moved: stored before the message goes, so that a crash
	 * cannot make the bot use this index again; not stored (an I/O error,
	 * a lost lease), the message does not go (the outbox keeps it) */
	if (out_save(e, r)) {
		free(ct);
		json_decref(rel);
		buf_setf(err, "the room key's new state could not be stored");
		return NULL;
	}
	out = json_pack("{s:s, s:s, s:s, s:s, s:s}", "algorithm", MXC_MEGOLM_ALGORITHM,
			"sender_key", mxc_account_curve(e->acc), "ciphertext", ct,
			"session_id", mxc_out_id(r->out), "device_id", e->device);
	free(ct);
	if (rel)
		json_object_set_new(out, "m.relates_to", rel);
	return out;
}
