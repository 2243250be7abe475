/*
 * mxe2ein: inbound Megolm sessions, the keys other devices' room messages
 * are read with.  Owns struct insess in memory (a cache, trimmed) and in
 * the store, finding the right copy of a session for an event (its room,
 * its sender and their device: no copy decrypts another sender's events),
 * upgrading a session when a better copy arrives, the cap on sessions kept
 * per sender and room, and replays: the message indexes of a session
 * already handled, so no event is taken twice.
 */

#include "adapters/matrix/mxe2eint.h"

/* ---- inbound Megolm sessions ---- */

/*
 * Whether s can be a field of a space-separated key (store keys, refs): not
 * empty, no space or control character.  Room, user and session ids that
 * are not are never filed (their events cannot be decrypted).
 */
int mxe_plain_id(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

void mxe_insess_free(struct insess *s)
{
	mxc_in_free(s->s);
	free(s->h);
	free(s);
}

static void cache_trim_in(struct mxe2e *e)
{
	size_t i;
	void *v;

	if (strmap_count(&e->in) < CACHE_MAX)
		return;
	for (i = 0; (i = strmap_next(&e->in, i, &v));)
		mxe_insess_free(v);
	strmap_release(&e->in);
	strmap_init(&e->in, e->k0, e->k1);
}

/* "matrix.e2e.<d>.in.<room> <sid> <user> <curve>" into b. */
static const char *in_skey(struct mxe2e *e, struct buf *b, const char *room, const char *sid,
			   const char *user, const char *curve)
{
	buf_reset(b);
	buf_printf(b, "matrix.e2e.%s.in.%s %s %s %s", e->device, room, sid, user, curve);
	return buf_str(b);
}

int mxe_insess_save(struct mxe2e *e, struct insess *s)
{
	struct buf k = BUF_INIT;
	json_t *h = json_array(), *j;
	size_t i;
	int rc;

	for (i = 0; i < s->nh; i++)
		json_array_append_new(h, json_integer(s->h[i]));
	j = json_pack("{s:o, s:s, s:I, s:I, s:o}",
		      "p", mxe_pickle_json(mxc_in_pickle(s->s, &e->key)), "ed", s->ed,
		      "t", (json_int_t)s->t, "fl", (json_int_t)s->floor, "h", h);
	rc = mxe_kv_set_json(e, in_skey(e, &k, s->room, s->session_id, s->user, s->sender_key), j);
	mxe_json_wipe_decref(j, "p");
	buf_release(&k);
	return rc;
}

struct insess *mxe_insess_new(struct mxe2e *e, const char *room, const char *sid,
			      const char *user, const char *curve)
{
	struct insess *s;
	struct buf key = BUF_INIT;

	buf_printf(&key, "%s %s %s %s", room, sid, user, curve);
	cache_trim_in(e);
	s = xcalloc(1, sizeof(*s) + key.len + 1);
	memcpy(s->key, buf_str(&key), key.len + 1);
	snprintf(s->room, sizeof(s->room), "%s", room);
	snprintf(s->session_id, sizeof(s->session_id), "%s", sid);
	snprintf(s->user, sizeof(s->user), "%s", user);
	snprintf(s->sender_key, sizeof(s->sender_key), "%s", curve);
	strmap_put(&e->in, s->key, s);
	buf_release(&key);
	return s;
}

/* ---- replays: the handled indexes of a session ---- */

int mxe_handled_has(const struct insess *s, uint32_t index)
{
	size_t lo = 0, hi = s->nh;

	if (index < s->floor)
		return 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->h[mid] == index)
			return 1;
		if (s->h[mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The floor rises over what is handled without a gap; beyond HANDLED_MAX
 * indexes above it, over the lowest ones (an older one never handled is
 * then refused too: a message 512 of its sender's later ones overtook). */
static void handled_compact(struct insess *s)
{
	size_t drop = 0;

	while (drop < s->nh && (s->h[drop] <= s->floor || s->nh - drop > HANDLED_MAX)) {
		if (s->h[drop] >= s->floor && s->h[drop] < UINT32_MAX)
			s->floor = s->h[drop] + 1;
		drop++;
	}
	memmove(s->h, s->h + drop, (s->nh - drop) * sizeof(*s->h));
	s->nh -= drop;
}

/* 1 when index was not handled before. */
int mxe_handled_add(struct insess *s, uint32_t index)
{
	size_t at = 0;

	if (mxe_handled_has(s, index))
		return 0;
	while (at < s->nh && s->h[at] < index)
		at++;
	s->h = xrealloc(s->h, (s->nh + 1) * sizeof(*s->h));
	memmove(s->h + at + 1, s->h + at, (s->nh - at) * sizeof(*s->h));
	s->h[at] = index;
	s->nh++;
	handled_compact(s);
	return 1;
}

/* Reads the handled indexes (a JSON array) into s, above its floor. */
static void handled_read(struct insess *s, const json_t *arr)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		json_int_t n = json_integer_value(v);

		if (json_is_integer(v) && n >= 0 && n <= (json_int_t)UINT32_MAX)
			mxe_handled_add(s, (uint32_t)n);
	}
}

/* The stored session (user, curve) of (room, sid): text is its value. */
static struct insess *in_read(struct mxe2e *e, const char *room, const char *sid,
			      const char *user, const char *curve, const char *text)
{
	struct buf err = BUF_INIT;
	json_t *j = json_loads(text, 0, NULL), *fl;
	const char *ed = json_string_value(json_object_get(j, "ed"));
	struct mxc_in *in = json_is_string(json_object_get(j, "p")) ?
			    mxc_in_unpickle(&e->key, json_string_value(json_object_get(j, "p")),
					    &err) : NULL;
	struct insess *s;

	if (!in || !ed || strlen(ed) >= MX_KEY_SIZE) {
		log_warn("matrix: a stored room key does not read back%s%s",
			 err.len ? ": " : "", buf_str(&err));
		mxc_in_free(in);
		mxe_json_wipe_decref(j, "p");
		buf_release(&err);
		return NULL;
	}
	s = mxe_insess_new(e, room, sid, user, curve);
	s->s = in;
	snprintf(s->ed, sizeof(s->ed), "%s", ed);
	if (json_is_true(json_object_get(j, "f"))) {
		/* forwarded: taken by no version since */
		mxc_in_free(in);
		mxe_json_wipe_decref(j, "p");
		buf_release(&err);
		return NULL;
	}
	s->t = (int64_t)json_integer_value(json_object_get(j, "t"));
	fl = json_object_get(j, "fl");
	s->floor = json_is_integer(fl) && json_integer_value(fl) >= 0 &&
		   json_integer_value(fl) <= (json_int_t)UINT32_MAX ?
		   (uint32_t)json_integer_value(fl) : mxc_in_first_index(in);
	handled_read(s, json_object_get(j, "h"));
	mxe_json_wipe_decref(j, "p");
	buf_release(&err);
	return s;
}

/* The session (room, sid) of user's device curve if it is in memory. */
static struct insess *in_cached(struct mxe2e *e, const char *room, const char *sid,
				const char *user, const char *curve)
{
	struct buf key = BUF_INIT;
	struct insess *s;

	buf_printf(&key, "%s %s %s %s", room, sid, user, curve);
	s = strmap_get(&e->in, buf_str(&key));
	buf_release(&key);
	return s;
}

/* The same, read from the store when it is not in memory; NULL: none. */
struct insess *mxe_in_get(struct mxe2e *e, const char *room, const char *sid,
			  const char *user, const char *curve)
{
	struct insess *s = in_cached(e, room, sid, user, curve);
	struct buf k = BUF_INIT;
	char *text;

	if (s)
		return s;
	text = mxe_kv_get(e, in_skey(e, &k, room, sid, user, curve));
	buf_release(&k);
	if (!text)
		return NULL;
	s = in_read(e, room, sid, user, curve, text);
	mxc_free_secret(text);
	return s;
}

/*
 * A session stored by an older version, under "matrix.e2e.<d>.in.<room>
 * <sid>" (one copy per session id, bound to the user and device that sent
 * it): when it is user's (and, curve given, that device's), it moves to
 * its key of today, the indexes it saw counted as handled.  Forwarded ones
 * are not taken over (an older version took them from any member).
 */
static struct insess *in_upgrade(struct mxe2e *e, const char *room, const char *sid,
				 const char *user, const char *curve)
{
	struct buf k = BUF_INIT, err = BUF_INIT;
	char *text = mxe_kv_get(e, mxe_ekey(e, &k, "in", room, sid));
	json_t *j, *seen, *v;
	const char *sk, *u, *ed, *idx;
	struct mxc_in *in;
	struct insess *s = NULL;

	if (!text) {
		buf_release(&k);
		return NULL;
	}
	j = json_loads(text, 0, NULL);
	mxc_free_secret(text);
	sk = json_string_value(json_object_get(j, "sk"));
	u = json_string_value(json_object_get(j, "u"));
	ed = json_string_value(json_object_get(j, "ed"));
	if (json_is_true(json_object_get(j, "f"))) {
		log_info("matrix: a forwarded room key kept by an older version is not used");
		mxe_kv_del(e, buf_str(&k));
		goto out;
	}
	if (!sk || !u || !ed || strcmp(u, user) || (curve && strcmp(sk, curve)) || !mxe_plain_id(sk) ||
	    strlen(sk) >= MX_KEY_SIZE || strlen(ed) >= MX_KEY_SIZE ||
	    !json_is_string(json_object_get(j, "p")))
		goto out;
	in = mxc_in_unpickle(&e->key, json_string_value(json_object_get(j, "p")), &err);
	if (!in) {
		log_warn("matrix: a stored room key does not read back: %s", buf_str(&err));
		goto out;
	}
	s = mxe_insess_new(e, room, sid, user, sk);
	s->s = in;
	snprintf(s->ed, sizeof(s->ed), "%s", ed);
	s->t = mxe_now_ms(e);
	s->floor = mxc_in_first_index(in);
	seen = json_object_get(j, "seen");
	json_object_foreach(seen, idx, v) {
		char *end;
		unsigned long n = strtoul(idx, &end, 10);

		if (*idx && !*end && n <= UINT32_MAX)
			mxe_handled_add(s, (uint32_t)n);
	}
	/* the new entry first: a crash in between finds it, not the old */
	if (!mxe_insess_save(e, s))
		mxe_kv_del(e, buf_str(&k));
	log_debug("matrix: a room key moved to today's format");
out:
	mxe_json_wipe_decref(j, "p");
	buf_release(&k);
	buf_release(&err);
	return s;
}

struct scan {
	const char *user;	/* the sender */
	char found_user[MX_ID_SIZE];
	char found_curve[MX_KEY_SIZE];
	size_t skip;		/* the prefix's length */
};

static int on_scan(void *ctx, const char *key, const char *value)
{
	struct scan *sc = ctx;
	const char *tail = key + sc->skip, *sp = strchr(tail, ' ');
	size_t n = sp ? (size_t)(sp - tail) : 0;

	if (!sp || strchr(sp + 1, ' ') || strlen(sp + 1) >= MX_KEY_SIZE || n >= MX_ID_SIZE)
		return 0;
	/* the sender's own copy */
	if (n == strlen(sc->user) && !strncmp(tail, sc->user, n)) {
		snprintf(sc->found_user, sizeof(sc->found_user), "%.*s", (int)n, tail);
		snprintf(sc->found_curve, sizeof(sc->found_curve), "%s", sp + 1);
		return 1;
	}
	return 0;
}

/* The sender's copy of (room, sid) in the store, whichever device made it. */
static struct insess *in_scan(struct mxe2e *e, const char *room, const char *sid,
			      const char *user)
{
	struct buf k = BUF_INIT, err = BUF_INIT;
	struct scan sc;

	memset(&sc, 0, sizeof(sc));
	sc.user = user;
	buf_printf(&k, "matrix.e2e.%s.in.%s %s ", e->device, room, sid);
	sc.skip = k.len;
	if (store_cursors_prefix(e->io.store, buf_str(&k), on_scan, &sc, &err))
		log_warn("matrix: reading the room keys: %s", buf_str(&err));
	buf_release(&k);
	buf_release(&err);
	return sc.found_user[0] ? mxe_in_get(e, room, sid, sc.found_user, sc.found_curve) : NULL;
}

/*
 * The inbound session of room and sid for an event of sender: the copy
 * sender's device curve sent (curve "" or NULL, as newer clients send no
 * sender_key: any device of sender's), else an older version's entry of
 * the sender's.  NULL: none.  Who
 * owns the device is checked by the caller (mxe_owner_ok).
 */
struct insess *mxe_in_find(struct mxe2e *e, const char *room, const char *sender,
			   const char *curve, const char *sid)
{
	struct insess *s;
	struct mxk_user *u;
	size_t i;

	if (!mxe_plain_id(room) || !mxe_plain_id(sender) || !mxe_plain_id(sid) || !strcmp(sender, "*"))
		return NULL;
	if (curve && *curve) {
		if (!mxe_plain_id(curve))
			return NULL;
		if ((s = mxe_in_get(e, room, sid, sender, curve)))
			return s;
		return in_upgrade(e, room, sid, sender, curve);
	}
	u = mxe_user_get(e, sender);
	for (i = 0; i < u->ndev; i++)
		if ((s = in_cached(e, room, sid, sender, u->dev[i].curve)))
			return s;
	if ((s = in_scan(e, room, sid, sender)))
		return s;
	return in_upgrade(e, room, sid, sender, NULL);
}

/*
 * Whether the event's sender owns the device that made s: one of their
 * listed devices with its curve25519 and ed25519 keys, not blocked (a
 * device signed out since still counts: what it sent before it went may
 * come late).  -1 when the bot knows none of sender's devices yet.
 */
int mxe_owner_ok(struct mxe2e *e, const struct insess *s, const char *sender)
{
	struct mxk_user *u = mxe_user_get(e, sender);
	const struct mxk_device *d;

	if (!u->fresh && !u->ndev)
		return -1;
	if (strcmp(s->user, sender))
		return 0;
	d = mxk_by_curve(u, s->sender_key);
	return d && !d->blocked && !strcmp(d->ed, s->ed);
}

/* Whether a held event of sender in room under sid can be read now. */
int mxe_key_here(struct mxe2e *e, const char *room, const char *sender, const char *sid)
{
	struct insess *s = mxe_in_find(e, room, sender, NULL, sid);

	return s && mxe_owner_ok(e, s, sender) == 1;
}

struct capscan {
	const char *user;
	size_t skip;
	char **keys;		/* store keys of user's sessions in the room */
	int64_t *t;
	size_t n;
};

static int on_capscan(void *ctx, const char *key, const char *value)
{
	struct capscan *c = ctx;
	const char *tail = key + c->skip, *a = strchr(tail, ' '), *b = a ? strchr(a + 1, ' ') : NULL;
	json_t *j;

	/* "<sid> <user> <curve>" (an older version's "<sid>" is not counted) */
	if (!b || (size_t)(b - a - 1) != strlen(c->user) || strncmp(a + 1, c->user, b - a - 1))
		return 0;
	j = json_loads(value, 0, NULL);
	c->keys = xrealloc(c->keys, (c->n + 1) * sizeof(*c->keys));
	c->t = xrealloc(c->t, (c->n + 1) * sizeof(*c->t));
	c->keys[c->n] = xstrdup(key);
	c->t[c->n++] = (int64_t)json_integer_value(json_object_get(j, "t"));
	mxe_json_wipe_decref(j, "p");
	return 0;
}

/* user's sessions in room beyond IN_PER_SENDER go, the oldest first: a
 * member who sends key after key keeps only their latest ones. */
void mxe_cap_sender(struct mxe2e *e, const char *room, const char *user)
{
	struct buf k = BUF_INIT, err = BUF_INIT;
	struct capscan c;
	size_t i, dropped = 0;

	memset(&c, 0, sizeof(c));
	c.user = user;
	buf_printf(&k, "matrix.e2e.%s.in.%s ", e->device, room);
	c.skip = k.len;
	if (store_cursors_prefix(e->io.store, buf_str(&k), on_capscan, &c, &err))
		log_warn("matrix: reading the room keys: %s", buf_str(&err));
	while (c.n - dropped > IN_PER_SENDER) {
		size_t old = 0;
		struct insess *s;

		for (i = 1; i < c.n; i++)
			if (c.keys[i] && (!c.keys[old] || c.t[i] < c.t[old]))
				old = i;
		mxe_kv_del(e, c.keys[old]);
		s = strmap_del(&e->in, c.keys[old] + c.skip - strlen(room) - 1);
		if (s)
			mxe_insess_free(s);
		free(c.keys[old]);
		c.keys[old] = NULL;
		dropped++;
	}
	if (dropped)
		log_info("matrix: %zu older room keys of one sender dropped (%d are kept per sender "
			 "and room)", dropped, IN_PER_SENDER);
	for (i = 0; i < c.n; i++)
		free(c.keys[i]);
	free(c.keys);
	free(c.t);
	buf_release(&k);
	buf_release(&err);
}
