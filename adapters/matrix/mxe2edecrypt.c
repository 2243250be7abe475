/*
 * mxe2edecrypt: reading an encrypted room event.  Owns mxe2e_decrypt (the
 * session found, the index checked against replays, the plaintext checked
 * against its envelope), the event's reference (mxe2e_ref, mxe2e_handled:
 * its index marked handled once the adapter is done with it), and the
 * events held for a key that has not come yet (struct mxh in memory and in
 * the store; mxe2e_take_ready gives those whose key arrived, mxe2e_expire
 * tells a room of those whose key never came).
 */

#include "adapters/matrix/mxe2eint.h"

/* ---- held events ---- */

/*
 * One store row per held event (matrix.e2e.<d>.held.<event id>), written
 * when it is held and deleted when it goes: a hold costs one row however
 * many wait, and a flood of them cannot turn into megabytes of writes.
 */
static const char *held_key(struct mxe2e *e, struct buf *k, const char *event_id)
{
	mxe_ekey(e, k, "held", NULL, NULL);
	buf_printf(k, ".%s", event_id);
	return buf_str(k);
}

/* 0 stored, -1 not (logged). */
static int held_save(struct mxe2e *e, const struct mxh_event *h)
{
	struct buf k = BUF_INIT, err = BUF_INIT;
	char *text = mxh_row(h);
	int rc = store_cursor_set(e->io.store, held_key(e, &k, h->event_id), text, &err);

	if (rc)
		log_warn("matrix: storing an encrypted message waiting for its key: %s",
			 buf_str(&err));
	free(text);
	buf_release(&k);
	buf_release(&err);
	return rc ? -1 : 0;
}

static void held_delete(struct mxe2e *e, const char *event_id)
{
	struct buf k = BUF_INIT, err = BUF_INIT;

	if (store_cursor_delete(e->io.store, held_key(e, &k, event_id), &err))
		log_warn("matrix: deleting an encrypted message that waited for its key: %s",
			 buf_str(&err));
	buf_release(&k);
	buf_release(&err);
}

/* sender is told (at the next mxe2e_expire) that an event of theirs in
 * room was lost, unless they were lately. */
static void tell(struct mxe2e *e, const char *room, const char *sender)
{
	size_t i;

	if (!mxh_tell(&e->held, room, sender, mxe_now_ms(e)))
		return;
	for (i = 0; i < e->nuntold; i++)
		if (!strcmp(e->untold[i][0], room) && !strcmp(e->untold[i][1], sender))
			return;
	if (e->nuntold >= MXH_MAX)
		return;		/* notices in one sync: the rest go untold */
	e->untold = xrealloc(e->untold, (e->nuntold + 1) * sizeof(*e->untold));
	snprintf(e->untold[e->nuntold][0], MX_ID_SIZE, "%s", room);
	snprintf(e->untold[e->nuntold][1], MX_ID_SIZE, "%s", sender);
	e->nuntold++;
}

struct held_load {
	struct mxe2e *e;
	size_t prefix_len;
	size_t n, dropped;
	int failed;		/* a converted row was not stored */
};

static int on_held_row(void *ctx, const char *key, const char *value)
{
	struct held_load *l = ctx;
	enum mxh_added r = mxh_restore(&l->e->held, key + l->prefix_len, value);

	if (r == MXH_ADDED) {
		l->n++;
	} else if (r != MXH_KNOWN) {
		struct buf err = BUF_INIT;

		l->dropped++;
		if (store_cursor_delete(l->e->io.store, key, &err))
			log_warn("matrix: deleting a held encrypted message: %s", buf_str(&err));
		buf_release(&err);
	}
	return 0;
}

static void on_held_converted(void *ctx, const struct mxh_event *h)
{
	struct held_load *l = ctx;

	l->n++;
	if (held_save(l->e, h))
		l->failed = 1;
}

/*
 * The held events, from their rows; then the single list that versions
 * before one row per event stored (matrix.e2e.<d>.held), converted once:
 * its rows are written first and the list deleted only when they all
 * were, so a crash or an error in between converts it again (the events
 * already held are skipped).
 */
/* The operators' gauge of held events (util/meters.h). */
static void held_gauge(const struct mxe2e *e)
{
	metric_set(&met_matrix_held, 0, 0, (int64_t)e->held.n);
}

void mxe_held_load(struct mxe2e *e)
{
	struct buf k = BUF_INIT, v = BUF_INIT, err = BUF_INIT;
	struct held_load l = { e, 0, 0, 0, 0 };
	int r;

	mxe_ekey(e, &k, "held", NULL, NULL);
	buf_printf(&k, ".");
	l.prefix_len = k.len;
	if (store_cursors_prefix(e->io.store, buf_str(&k), on_held_row, &l, &err))
		log_warn("matrix: reading the encrypted messages waiting for their keys: %s",
			 buf_str(&err));
	if (l.dropped)
		log_warn("matrix: %zu stored encrypted messages waiting for their keys were "
			 "unreadable or over the bound; dropped", l.dropped);
	buf_reset(&err);
	r = store_cursor_get(e->io.store, mxe_ekey(e, &k, "held", NULL, NULL), &v, &err);
	if (r < 0)
		log_warn("matrix: reading the encrypted messages waiting for their keys: %s",
			 buf_str(&err));
	if (r > 0) {
		l.n = 0;
		if (v.len && mxh_restore_list(&e->held, buf_str(&v), on_held_converted, &l))
			log_warn("matrix: the stored list of encrypted messages waiting for keys "
				 "is not readable; dropped");
		if (l.failed) {
			log_warn("matrix: the list of encrypted messages waiting for keys is kept "
				 "until its rows are stored");
		} else {
			buf_reset(&err);
			if (store_cursor_delete(e->io.store, buf_str(&k), &err))
				log_warn("matrix: deleting the old list of encrypted messages: %s",
					 buf_str(&err));
			else if (l.n)
				log_info("matrix: %zu encrypted messages waiting for their keys "
					 "now stored one by one", l.n);
		}
	}
	held_gauge(e);
	buf_release(&k);
	buf_release(&v);
	buf_release(&err);
}

int mxe2e_take_ready(struct mxe2e *e, struct mx_sync *out)
{
	size_t i, j;

	memset(out, 0, sizeof(*out));
	out->otk_count = -1;
	out->fallback_unused = -1;
	for (i = 0; e->started && i < e->held.n; i++) {
		const struct mxh_event *h = &e->held.v[i];
		int given = 0;

		for (j = 0; j < e->nready_done; j++)
			given |= !strcmp(e->ready_done[j], h->room);
		if (given || !mxe_key_here(e, h->room, h->sender, h->session_id))
			continue;
		e->ready_done = xrealloc(e->ready_done,
					 (e->nready_done + 1) * sizeof(*e->ready_done));
		snprintf(e->ready_done[e->nready_done++], MX_ID_SIZE, "%s", h->room);
		if (mxh_ready(&e->held, h->room, NULL, out))
			return 1;
		mx_sync_release(out);
	}
	return 0;
}

static void on_expired(void *ctx, const struct mxh_event *h)
{
	struct mxe2e *e = ctx;

	log_warn("matrix: an encrypted message waited %d minutes for its key, which never "
		 "came; dropped", MXH_TTL_MS / 60000);
	held_delete(e, h->event_id);
	tell(e, h->room, h->sender);
}

void mxe2e_expire(struct mxe2e *e, void (*cb)(void *ctx, const char *room, const char *sender),
		  void *ctx)
{
	size_t i;

	if (!e->started)
		return;
	mxh_expire(&e->held, mxe_now_ms(e), on_expired, e);
	held_gauge(e);
	for (i = 0; i < e->nuntold; i++)
		cb(ctx, e->untold[i][0], e->untold[i][1]);
	free(e->untold);
	e->untold = NULL;
	e->nuntold = 0;
}

/*
 * 0 held (or held already), -1 not held: too long; over its sender's rate
 * (dropped, logged once a while); from someone the adapter does not hold
 * for (in no game); or the list is full and nothing of the sender's may
 * give way.  Those last two senders are told.  An event pushed out for it
 * (the sender's own, or the room's) has its sender told.
 */
static int hold(struct mxe2e *e, const struct mx_item *c)
{
	struct mxh_event dropped;
	const struct mxh_event *added;
	int64_t now = mxe_now_ms(e);
	int nd, log_it;
	enum mxh_added rc;

	if (c->text_len > MXH_CIPHER_MAX || c->too_long) {
		log_info("matrix: an encrypted message without its key, too long to wait for it");
		return -1;
	}
	if (mxh_has(&e->held, c->event_id))
		return 0;	/* delivered again */
	if (!mxh_rate(&e->held, c->sender, now, &log_it)) {
		if (log_it)
			log_warn("matrix: %s sends more encrypted messages without their keys than "
				 "the bot holds (%d, then one every %d s); the others are dropped",
				 c->sender, MXH_RATE_BURST, MXH_RATE_MS / 1000);
		return -1;
	}
	if (e->io.may_hold && !e->io.may_hold(e->io.ctx, c->room, c->sender)) {
		log_info("matrix: an encrypted message without its key from someone in no game "
			 "here; not held");
		tell(e, c->room, c->sender);
		return -1;
	}
	rc = mxh_add(&e->held, c, now, &dropped, &nd, &added);
	if (rc == MXH_KNOWN)
		return 0;
	if (rc == MXH_FULL) {
		log_warn("matrix: too many encrypted messages wait for their keys; a new one is "
			 "not held");
		tell(e, c->room, c->sender);
		return -1;
	}
	if (rc != MXH_ADDED)
		return -1;
	if (nd) {
		log_warn("matrix: too many encrypted messages wait for their keys in one room or "
			 "from one sender; the oldest of them is dropped");
		held_delete(e, dropped.event_id);
		tell(e, dropped.room, dropped.sender);
		json_decref(dropped.ev);
	}
	log_info("matrix: an encrypted message waits for its key");
	/* not stored, it would be lost by a restart: kept in memory anyway,
	 * as the sync position moves on either way */
	held_save(e, added);
	held_gauge(e);
	return 0;
}

static void unhold(struct mxe2e *e, const char *event_id)
{
	if (mxh_remove(&e->held, event_id))
		held_delete(e, event_id);
	held_gauge(e);
}

void mxe2e_forget(struct mxe2e *e, const char *event_id)
{
	if (e->started)
		unhold(e, event_id);
}

/* ---- decrypting ---- */

enum mxe_verdict mxe2e_decrypt(struct mxe2e *e, const struct mx_item *c, struct mx_sync *out)
{
	struct buf err = BUF_INIT;
	struct insess *s;
	struct mx_item bound;
	char *plain = NULL;
	size_t plen;
	uint32_t index;
	enum mxe_verdict v = MXE_BAD;
	int owner;

	memset(out, 0, sizeof(*out));
	out->otk_count = -1;
	out->fallback_unused = -1;
	e->last_ref[0] = '\0';
	if (!e->started || c->kind != MX_CIPHER)
		return MXE_BAD;
	if (strcmp(c->algorithm, MXC_MEGOLM_ALGORITHM) || !c->session_id[0] || !c->text_len) {
		log_info("matrix: an encrypted message this bot cannot read (%s)",
			 c->too_long ? "too long" : c->algorithm[0] ? c->algorithm : "malformed");
		goto bad;
	}
	s = mxe_in_find(e, c->room, c->sender, c->sender_key, c->session_id);
	owner = s ? mxe_owner_ok(e, s, c->sender) : 0;
	if (!s || owner < 0) {
		if (owner < 0) {
			/* a key an older version took: whose device made it is
			 * asked first (mxe_key_here waits for the answer) */
			mxe_query_add(e, c->sender);
			mxe_query_start(e);
		}
		if (!hold(e, c))
			return MXE_HELD;
		log_info("matrix: an encrypted message without its key is dropped");
		goto bad;
	}
	if (!owner) {
		log_warn("matrix: an encrypted message from %s under a key of a device that is not "
			 "theirs (or is blocked); ignored", c->sender);
		goto bad;
	}
	if (mxc_in_decrypt(s->s, c->text, &plain, &plen, &index, &err)) {
		log_info("matrix: an encrypted message from %s does not decrypt: %s", c->sender,
			 buf_str(&err));
		goto bad;
	}
	if (mxe_handled_has(s, index)) {
		/* the same ciphertext again (a re-delivery, or under a new
		 * event id): it ran already, or was refused for good */
		log_warn("matrix: an encrypted message that was handled already came again (a "
			 "replay); ignored");
		goto bad;
	}
	bound = *c;
	bound.sender_key = s->sender_key;	/* the device its key came from */
	if (mx_decrypted_parse(plain, plen, &bound, out, &err)) {
		log_info("matrix: an encrypted message from %s: %s", c->sender, buf_str(&err));
		mx_sync_release(out);
		goto bad;
	}
	snprintf(e->last_ref, sizeof(e->last_ref), "%u %s", index, s->key);
	v = MXE_OK;	/* still held, until the caller has handled it */
bad:
	if (v == MXE_BAD)
		unhold(e, c->event_id);
	mxc_free_secret(plain);
	buf_release(&err);
	return v;
}

const char *mxe2e_ref(const struct mxe2e *e)
{
	return e ? e->last_ref : "";
}

void mxe2e_handled(struct mxe2e *e, const char *ref)
{
	char room[MX_ID_SIZE], sid[MX_KEY_SIZE], user[MX_ID_SIZE], curve[MX_KEY_SIZE];
	const char *f[4], *p;
	size_t n[4], i;
	unsigned long index;
	char *end;
	struct insess *s;

	if (!e || !e->started || !ref)
		return;
	/* "<index> <room> <sid> <user> <curve>" */
	index = strtoul(ref, &end, 10);
	if (end == ref || *end != ' ' || index > UINT32_MAX || ref[0] == '-' || ref[0] == '+')
		return;
	p = end;
	for (i = 0; i < 4; i++) {
		if (*p != ' ')
			return;
		f[i] = ++p;
		n[i] = strcspn(p, " ");
		p += n[i];
	}
	if (*p || !n[0] || !n[1] || !n[2] || !n[3] || n[0] >= MX_ID_SIZE || n[1] >= MX_KEY_SIZE ||
	    n[2] >= MX_ID_SIZE || n[3] >= MX_KEY_SIZE)
		return;
	snprintf(room, sizeof(room), "%.*s", (int)n[0], f[0]);
	snprintf(sid, sizeof(sid), "%.*s", (int)n[1], f[1]);
	snprintf(user, sizeof(user), "%.*s", (int)n[2], f[2]);
	snprintf(curve, sizeof(curve), "%.*s", (int)n[3], f[3]);
	if (!mxe_plain_id(room) || !mxe_plain_id(sid) || !mxe_plain_id(user) || !mxe_plain_id(curve))
		return;
	s = mxe_in_get(e, room, sid, user, curve);
	if (s && mxe_handled_add(s, (uint32_t)index))
		mxe_insess_save(e, s);
}
