/*
 * mxe2eolm: the bot's Olm account and its Olm sessions.  Owns the account
 * (its identity keys, and the one-time and fallback keys kept on the
 * homeserver: uploaded, topped up, saved), the Olm sessions with each other
 * device (a few per device, most recently used first, cached and stored),
 * and the to-device messages they carry: mxe2e_sync takes a sync's
 * to-device events (a room key goes on to mxe2echeck), its device-list
 * changes and its key counts.
 */

#include "adapters/matrix/mxe2eint.h"

/* ---- the account ---- */

int mxe_account_save(struct mxe2e *e)
{
	struct buf k = BUF_INIT;
	json_t *j = json_pack("{s:o, s:b}", "p", mxe_pickle_json(mxc_account_pickle(e->acc, &e->key)),
			      "up", e->uploaded);
	int rc = mxe_kv_set_json(e, mxe_ekey(e, &k, "account", NULL, NULL), j);

	e->acc_unsaved = rc != 0;
	mxe_json_wipe_decref(j, "p");
	buf_release(&k);
	return rc;
}

static void settle(struct mxe2e *e)
{
	if (e->settled)
		return;
	e->settled = 1;
	if (e->io.settled)
		e->io.settled(e->io.ctx);
}

static void on_uploaded(void *ctx, long status, const char *body, size_t len)
{
	struct pend *p = ctx;
	struct mxe2e *e = p->e;
	json_t *j;
	int was;

	mxe_pend_free(p);
	e->uploading = 0;
	e->counts_old = 1;
	if (status != 200) {
		j = json_loadb(body, len, 0, NULL);
		if (!e->uploaded && (status == 400 || status == 404 || status == 405) &&
		    !strcmp(json_string_value(json_object_get(j, "errcode")) ?
			    json_string_value(json_object_get(j, "errcode")) : "",
			    "M_UNRECOGNIZED")) {
			/* believed only before the keys were ever up: later, a
			 * homeserver saying so would turn hands into plain text */
			e->no_api = 1;
			log_warn("matrix: the homeserver has no end-to-end encryption keys API "
				 "(HTTP %ld M_UNRECOGNIZED): direct chats are made without "
				 "encryption, each telling its player so, and encrypted rooms are "
				 "left", status);
		} else {
			log_warn("matrix: could not upload the device's keys (HTTP %ld); again "
				 "after the next sync", status);
		}
		json_decref(j);
		settle(e);
		return;
	}
	mxc_account_published(e->acc);
	was = e->uploaded;
	e->uploaded = 1;
	mxe_account_save(e);
	if (!was)	/* after the store knows it (tests wait for this line) */
		log_info("matrix: uploaded the device's keys");
	settle(e);
	j = json_loadb(body, len, 0, NULL);
	{
		json_t *c = json_object_get(json_object_get(j, "one_time_key_counts"),
					    "signed_curve25519");

		if (json_is_integer(c) && json_integer_value(c) >= 0)
			e->otk_count = (long)json_integer_value(c);
	}
	json_decref(j);
}

/*
 * Uploads what the server lacks: the device keys (once), one-time keys
 * topped up to half of what the account holds when they are down to a
 * quarter, a new fallback key when the last one was used.  The account is
 * stored with its new keys before the upload, so a crash cannot leave keys
 * on the server that the bot lost.
 */
void mxe_maybe_upload(struct mxe2e *e)
{
	size_t target = mxc_account_max_otks(e->acc) / 2;
	json_t *body, *otks, *fb;
	int changed = 0;

	if (!e->started || e->uploading || e->no_api)
		return;
	if (e->otk_count >= 0 && (size_t)e->otk_count < target / 2) {
		mxc_account_generate_otks(e->acc, target - (size_t)e->otk_count);
		e->otk_count = (long)target;
		changed = 1;
	}
	if (e->need_fallback) {
		mxc_account_generate_fallback(e->acc);
		e->need_fallback = 0;
		changed = 1;
	}
	/* keys on the server that the store lost would be claimed and never
	 * open: they go up once they are stored */
	if ((changed || e->acc_unsaved) && mxe_account_save(e))
		return;
	otks = mxc_account_otks(e->acc, e->user, e->device);
	fb = mxc_account_fallback(e->acc, e->user, e->device);
	if (e->uploaded && !json_object_size(otks) && !json_object_size(fb)) {
		json_decref(otks);
		json_decref(fb);
		settle(e);
		return;
	}
	body = json_object();
	if (!e->uploaded)
		json_object_set_new(body, "device_keys",
				    mxc_account_device_keys(e->acc, e->user, e->device));
	if (json_object_size(otks))
		json_object_set(body, "one_time_keys", otks);
	if (json_object_size(fb))
		json_object_set(body, "fallback_keys", fb);
	json_decref(otks);
	json_decref(fb);
	e->uploading = 1;
	mxe_call(e, "POST", API "/keys/upload", body, on_uploaded, mxe_pend_new(e, NULL));
	json_decref(body);
}

/* ---- Olm sessions ---- */

void mxe_olmdev_free(struct olmdev *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		mxc_olm_free(d->s[i]);
	free(d);
}

static void cache_trim_olm(struct mxe2e *e)
{
	size_t i;
	void *v;

	if (strmap_count(&e->olm) < CACHE_MAX)
		return;
	for (i = 0; (i = strmap_next(&e->olm, i, &v));)
		mxe_olmdev_free(v);
	strmap_release(&e->olm);
	strmap_init(&e->olm, e->k0, e->k1);
}

/* The Olm sessions with the device whose identity key is curve (read from
 * the store the first time). */
struct olmdev *mxe_olmdev_get(struct mxe2e *e, const char *curve)
{
	struct olmdev *d = strmap_get(&e->olm, curve);
	struct buf k = BUF_INIT, err = BUF_INIT;
	char *text;
	json_t *j, *v;
	size_t i;

	if (d)
		return d;
	cache_trim_olm(e);
	d = xcalloc(1, sizeof(*d) + strlen(curve) + 1);
	memcpy(d->curve, curve, strlen(curve) + 1);
	strmap_put(&e->olm, d->curve, d);
	text = mxe_kv_get(e, mxe_ekey(e, &k, "olm", curve, NULL));
	j = text ? json_loads(text, 0, NULL) : NULL;
	json_array_foreach(j, i, v) {
		struct mxc_olm *s;

		if (!json_is_string(v) || d->n >= OLM_PER_DEVICE)
			continue;
		s = mxc_olm_unpickle(&e->key, json_string_value(v), &err);
		if (s)
			d->s[d->n++] = s;
		else
			log_warn("matrix: %s", buf_str(&err));
		explicit_bzero((char *)json_string_value(v), json_string_length(v));
	}
	json_decref(j);
	mxc_free_secret(text);
	buf_release(&k);
	buf_release(&err);
	return d;
}

int mxe_olmdev_save(struct mxe2e *e, struct olmdev *d)
{
	struct buf k = BUF_INIT;
	json_t *arr = json_array(), *v;
	size_t i;
	int rc;

	for (i = 0; i < d->n; i++)
		json_array_append_new(arr, mxe_pickle_json(mxc_olm_pickle(d->s[i], &e->key)));
	rc = mxe_kv_set_json(e, mxe_ekey(e, &k, "olm", d->curve, NULL), arr);
	json_array_foreach(arr, i, v)
		explicit_bzero((char *)json_string_value(v), json_string_length(v));
	json_decref(arr);
	buf_release(&k);
	return rc;
}

/* Puts s first (the one used for sending), dropping the oldest. */
void mxe_olmdev_front(struct olmdev *d, struct mxc_olm *s)
{
	size_t i, at = d->n;

	for (i = 0; i < d->n; i++)
		if (d->s[i] == s)
			at = i;
	if (at == d->n) {
		if (d->n == OLM_PER_DEVICE)
			mxc_olm_free(d->s[--d->n]);
		at = d->n++;
	}
	memmove(&d->s[1], &d->s[0], at * sizeof(*d->s));
	d->s[0] = s;
}

/*
 * Decrypts an Olm message from d's device: a pre-key message goes to the
 * session it belongs to, or opens a new one (the account changes: *acc_dirty);
 * a normal one to whichever session decrypts it.  The plaintext (a secret)
 * or NULL with err.  Nothing is stored here: the caller stores what the
 * message carried first, then the session (see mxe2e.h).
 */
static char *olm_decrypt_from(struct mxe2e *e, struct olmdev *d, const struct mx_olm_msg *m,
			      size_t *plen, int *acc_dirty, struct buf *err)
{
	char *plain = NULL;
	size_t i;

	*acc_dirty = 0;
	if (m->type == 0) {
		struct mxc_olm *s;

		for (i = 0; i < d->n; i++) {
			if (!mxc_olm_matches(d->s[i], d->curve, m->body))
				continue;
			if (mxc_olm_decrypt(d->s[i], 0, m->body, &plain, plen, err))
				return NULL;	/* a repeat of one already read */
			mxe_olmdev_front(d, d->s[i]);
			return plain;
		}
		s = mxc_olm_inbound(e->acc, d->curve, m->body, err);
		if (!s)
			return NULL;
		*acc_dirty = 1;
		if (mxc_olm_decrypt(s, 0, m->body, &plain, plen, err)) {
			mxc_olm_free(s);
			return NULL;
		}
		mxe_olmdev_front(d, s);
		return plain;
	}
	for (i = 0; i < d->n; i++) {
		if (!mxc_olm_decrypt(d->s[i], 1, m->body, &plain, plen, err)) {
			mxe_olmdev_front(d, d->s[i]);
			return plain;
		}
	}
	buf_setf(err, "no session with that device decrypts it");
	return NULL;
}

/* ---- to-device messages ---- */

static void to_device(struct mxe2e *e, const json_t *ev)
{
	struct mx_olm_msg m;
	struct mx_olm_payload p;
	struct buf err = BUF_INIT;
	struct olmdev *d;
	struct mxk_user *u;
	const struct mxk_device *dev;
	char *plain;
	size_t plen;
	int acc_dirty, keep = 0;

	if (mx_olm_msg_decode(ev, mxc_account_curve(e->acc), &m)) {
		const char *t = json_string_value(json_object_get(ev, "type"));

		log_debug("matrix: a to-device message (%s) that is not Olm for this device",
			  t ? t : "?");
		return;
	}
	d = mxe_olmdev_get(e, m.sender_key);
	plain = olm_decrypt_from(e, d, &m, &plen, &acc_dirty, &err);
	if (!plain) {
		log_info("matrix: an Olm message from %s could not be decrypted (%s)", m.sender,
			 buf_str(&err));
		buf_release(&err);
		return;
	}
	/* an Olm session is kept for a device the bot lists (someone it
	 * shares a room with), or one whose room key is taken or checked: not
	 * for anybody else's, which could otherwise fill the store */
	u = mxe_plain_id(m.sender) ? mxe_user_peek(e, m.sender) : NULL;
	dev = u ? mxk_by_curve(u, m.sender_key) : NULL;
	keep = dev && !dev->blocked;
	if (mx_olm_payload_decode(plain, plen, &p, &err)) {
		log_info("matrix: an Olm message from %s: %s", m.sender, buf_str(&err));
		goto save;
	}
	if (strcmp(p.sender, m.sender) || strcmp(p.recipient, e->user) ||
	    strcmp(p.recipient_ed, mxc_account_ed(e->acc))) {
		log_warn("matrix: an Olm message whose sender or recipient is not its envelope's; "
			 "ignored");
		goto save;
	}
	/* a device the bot knows must be the one those keys say */
	if (dev && (strcmp(dev->ed, p.sender_ed) || dev->blocked)) {
		log_warn("matrix: an Olm message from a device of %s whose keys do not match "
			 "what the bot trusts; ignored", m.sender);
		goto save;
	}
	switch (p.kind) {
	case MX_OLM_ROOM_KEY:
		keep |= mxe_room_key_in(e, &p, &m);
		break;
	case MX_OLM_FORWARDED:
		/* the bot asks nobody for keys; and a forwarder cannot be
		 * trusted: even a device of the bot's own account may be one
		 * the homeserver listed there (docs/matrix.md, "Reading") */
		log_info("matrix: a forwarded room key; ignored (the bot asks nobody for keys)");
		break;
	case MX_OLM_OTHER:
		log_debug("matrix: an Olm message of type %s", p.type);
		break;
	}
save:
	/* after the room key: a crash in between finds the message again
	 * (the sync position has not moved) with the session as it was */
	if (keep)
		mxe_olmdev_save(e, d);
	if (acc_dirty)
		mxe_account_save(e);
	explicit_bzero(&p, sizeof(p));
	mxc_free_secret(plain);
	buf_release(&err);
}

void mxe2e_sync(struct mxe2e *e, const struct mx_sync *s)
{
	const json_t *ev;
	size_t i;

	if (!e->started)
		return;
	/* changed lists first: a new device's first room key may come in
	 * the same response as the news of it */
	for (i = 0; i < s->ndl_changed; i++) {
		struct mxk_user *u = mxk_get(&e->keys, s->dl_changed[i]);

		if (u)
			u->fresh = 0;	/* asked again before the next share */
		/* a player is told of a new device at once, not at the next
		 * private message */
		if (u && u->pin == MXK_PINNED)
			mxe_query_add(e, u->user);
	}
	for (i = 0; i < e->npk; i++)
		e->pk[i].failed = 0;	/* what failed is asked again */
	json_array_foreach(s->to_device, i, ev)
		to_device(e, ev);
	mxe_query_start(e);
	for (i = 0; i < s->ndl_left; i++)
		mxk_drop(&e->keys, s->dl_left[i]);
	/*
	 * Key counts asked before the server had an upload would top the keys
	 * up a second time: the account holds twice what it keeps on the
	 * server (all it can), and the next top-up pushes out keys the server
	 * still hands out or players have claimed, whose pre-key messages
	 * then open no session.  One sync is in flight at a time, so only the
	 * first response after an upload's answer can be that old.
	 */
	if (e->uploading || e->counts_old) {
		if (!e->uploading)
			e->counts_old = 0;
	} else {
		if (s->otk_count >= 0)
			e->otk_count = s->otk_count;
		if (s->fallback_unused == 0)
			e->need_fallback = 1;
	}
	mxe_maybe_upload(e);
	mxe_pk_run(e);
	e->nready_done = 0;	/* a new round of held events */
}
