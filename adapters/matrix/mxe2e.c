/*
 * mxe2e: end-to-end encryption for the Matrix adapter.  See mxe2e.h and
 * docs/matrix.md ("Encrypted rooms").  Owns its lifecycle (mxe2e_new,
 * mxe2e_start: the account and what waited in the store loaded; mxe2e_free),
 * its requests through the adapter (struct pend: freed when the adapter
 * stops first) and its rows in the store (keys, sealed values, pickles).
 * The shared state is in mxe2eint.h; the rest lives in files of its own:
 * the Olm account, sessions and to-device messages (mxe2eolm.c), inbound
 * Megolm sessions and replays (mxe2ein.c), room keys checked before they
 * are taken (mxe2echeck.c), decrypting and held events (mxe2edecrypt.c),
 * other users' devices, pin and trust (mxe2edev.c), and the bot's own
 * Megolm sessions, their sharing and sealing (mxe2eout.c).
 */
#include "adapters/matrix/mxe2eint.h"

int64_t mxe_now_ms(struct mxe2e *e)
{
	struct timespec ts;

	if (e->io.now_ms)
		return e->io.now_ms(e->io.ctx);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- requests ---- */

struct pend *mxe_pend_new(struct mxe2e *e, const char *room)
{
	struct pend *p = xcalloc(1, sizeof(*p));

	p->e = e;
	snprintf(p->room, sizeof(p->room), "%s", room ? room : "");
	p->next = e->pend.next;
	p->prev = &e->pend;
	e->pend.next->prev = p;
	e->pend.next = p;
	return p;
}

void mxe_pend_free(struct pend *p)
{
	p->prev->next = p->next;
	p->next->prev = p->prev;
	free(p);
}

void mxe_call(struct mxe2e *e, const char *method, const char *path, const json_t *body,
	      mxe_done_fn done, struct pend *p)
{
	e->io.call(e->io.ctx, method, path, body, done, p);
}

/* An ed25519 key in groups of four, as clients show a session key. */
void mxe_group4(const char *key, char *out, size_t size)
{
	size_t i, n = 0;

	for (i = 0; key[i] && n + 2 < size; i++) {
		if (i && i % 4 == 0)
			out[n++] = ' ';
		out[n++] = key[i];
	}
	out[n] = '\0';
}

/* ---- the store ---- */

/* The stored value of key (a new string: mxc_free_secret), or NULL. */
char *mxe_kv_get(struct mxe2e *e, const char *key)
{
	struct buf v = BUF_INIT, err = BUF_INIT;
	int r = store_cursor_get(e->io.store, key, &v, &err);

	if (r < 0)
		log_warn("matrix: reading the encryption keys: %s", buf_str(&err));
	buf_release(&err);
	if (r <= 0 || !v.len) {
		if (v.s)
			explicit_bzero(v.s, v.len);
		buf_release(&v);
		return NULL;
	}
	return buf_detach(&v);
}

/* 0, or -1 (logged): a failed store (an I/O error, a lost lease) must stop
 * whatever would use the state it did not keep (a message sealed with a
 * ratchet step the store does not have is never sent). */
int mxe_kv_set(struct mxe2e *e, const char *key, const char *value)
{
	struct buf err = BUF_INIT;
	int rc = store_cursor_set(e->io.store, key, value, &err) ? -1 : 0;

	if (rc)
		log_warn("matrix: storing the encryption keys: %s", buf_str(&err));
	buf_release(&err);
	return rc;
}

void mxe_kv_del(struct mxe2e *e, const char *key)
{
	struct buf err = BUF_INIT;

	if (store_cursor_delete(e->io.store, key, &err))
		log_warn("matrix: deleting an encryption key: %s", buf_str(&err));
	buf_release(&err);
}

/* "matrix.e2e.<device>.<kind>[.<a>[ <b>]]" into b. */
const char *mxe_ekey(struct mxe2e *e, struct buf *b, const char *kind, const char *a,
		     const char *c)
{
	buf_reset(b);
	buf_printf(b, "matrix.e2e.%s.%s", e->device, kind);
	if (a)
		buf_printf(b, ".%s", a);
	if (c)
		buf_printf(b, " %s", c);
	return buf_str(b);
}

/* Stores j (dumped, then wiped: it may hold pickles): 0 or -1. */
int mxe_kv_set_json(struct mxe2e *e, const char *key, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	int rc = s ? mxe_kv_set(e, key, s) : -1;

	mxc_free_secret(s);
	return rc;
}

/* Wipes a pickle held in a JSON string, then releases j. */
void mxe_json_wipe_decref(json_t *j, const char *member)
{
	json_t *v = json_object_get(j, member);

	if (json_is_string(v))
		explicit_bzero((char *)json_string_value(v), json_string_length(v));
	json_decref(j);
}

json_t *mxe_pickle_json(char *pickle)
{
	json_t *s = json_string(pickle ? pickle : "");

	mxc_free_secret(pickle);
	return s;
}

/* ---- lifecycle ---- */

static int on_pk_load(void *ctx, const char *key, const char *value)
{
	struct mxe2e *e = ctx;
	struct buf err = BUF_INIT;
	json_t *j = json_loads(value, 0, NULL);
	const char *f[7] = { "r", "s", "u", "dc", "de", "sc", "se" };
	const char *v[7];
	struct pending k;
	size_t i, ok = e->npk < PENDING_MAX;

	memset(&k, 0, sizeof(k));
	for (i = 0; i < 7; i++) {
		v[i] = json_string_value(json_object_get(j, f[i]));
		ok = ok && v[i] && strlen(v[i]) < (i == 0 || i == 2 ? MX_ID_SIZE : MX_KEY_SIZE);
	}
	if (ok && json_is_string(json_object_get(j, "p")))
		k.in = mxc_in_unpickle(&e->key, json_string_value(json_object_get(j, "p")), &err);
	if (!k.in) {
		log_warn("matrix: a room key waiting for its checks does not read back; dropped");
		mxe_kv_del(e, key);
	} else {
		snprintf(k.room, sizeof(k.room), "%s", v[0]);
		snprintf(k.sid, sizeof(k.sid), "%s", v[1]);
		snprintf(k.user, sizeof(k.user), "%s", v[2]);
		snprintf(k.dcurve, sizeof(k.dcurve), "%s", v[3]);
		snprintf(k.ded, sizeof(k.ded), "%s", v[4]);
		snprintf(k.scurve, sizeof(k.scurve), "%s", v[5]);
		snprintf(k.sed, sizeof(k.sed), "%s", v[6]);
		k.t = (int64_t)json_integer_value(json_object_get(j, "t"));
		e->pk = xrealloc(e->pk, (e->npk + 1) * sizeof(*e->pk));
		e->pk[e->npk++] = k;
	}
	mxe_json_wipe_decref(j, "p");
	buf_release(&err);
	return 0;
}

struct mxe2e *mxe2e_new(const struct mxe2e_io *io, const struct mxc_key *key, uint64_t k0,
			uint64_t k1, size_t hold_max, int64_t hold_ms)
{
	struct mxe2e *e = xcalloc(1, sizeof(*e));

	e->io = *io;
	e->key = *key;
	e->k0 = k0;
	e->k1 = k1;
	e->otk_count = -1;
	strmap_init(&e->olm, k0, k1);
	strmap_init(&e->in, k0, k1);
	strmap_init(&e->out, k0, k1);
	mxk_init(&e->keys, k0, k1);
	mxh_init(&e->held, hold_max, hold_ms);
	e->pend.next = e->pend.prev = &e->pend;
	return e;
}

int mxe2e_start(struct mxe2e *e, const char *user, const char *device, struct buf *err)
{
	struct buf k = BUF_INIT;
	char *text;
	json_t *j;

	if (e->started)
		return 0;
	if (strlen(device) >= sizeof(e->device) || !*device) {
		buf_setf(err, "the device id is not usable for encryption");
		return -1;
	}
	snprintf(e->user, sizeof(e->user), "%s", user);
	snprintf(e->device, sizeof(e->device), "%s", device);
	text = mxe_kv_get(e, mxe_ekey(e, &k, "account", NULL, NULL));
	if (text) {
		j = json_loads(text, 0, NULL);
		mxc_free_secret(text);
		if (json_is_string(json_object_get(j, "p")))
			e->acc = mxc_account_unpickle(&e->key,
						      json_string_value(json_object_get(j, "p")), err);
		else
			buf_setf(err, "the stored account is not readable");
		e->uploaded = json_is_true(json_object_get(j, "up"));
		mxe_json_wipe_decref(j, "p");
		if (!e->acc) {
			buf_release(&k);
			return -1;
		}
	} else {
		e->acc = mxc_account_new();
		mxc_account_generate_fallback(e->acc);
		mxc_account_generate_otks(e->acc, mxc_account_max_otks(e->acc) / 2);
		mxe_account_save(e);
		log_info("matrix: made the keys of device %s", e->device);
	}
	/* room keys whose checks a stop interrupted: judged at the first sync */
	buf_reset(&k);
	buf_printf(&k, "matrix.e2e.%s.pk.", e->device);
	if (store_cursors_prefix(e->io.store, buf_str(&k), on_pk_load, e, err)) {
		log_warn("matrix: reading the room keys waiting for their checks: %s", buf_str(err));
		buf_reset(err);
	}
	mxe_held_load(e);
	buf_release(&k);
	e->started = 1;
	{
		char grouped[MXC_KEY_SIZE * 2];
		const char *ed = mxc_account_ed(e->acc);

		mxe_group4(ed, grouped, sizeof(grouped));
		log_info("matrix: device %s, fingerprint (ed25519) %s (as clients show it: %s)",
			 e->device, ed, grouped);
	}
	mxe_maybe_upload(e);
	return 0;
}

int mxe2e_started(const struct mxe2e *e)
{
	return e && e->started;
}

int mxe2e_usable(const struct mxe2e *e)
{
	return e && e->started && !e->no_api;
}

int mxe2e_settled(const struct mxe2e *e)
{
	return !e || !e->started || e->settled || e->uploaded;
}

const char *mxe2e_fingerprint(const struct mxe2e *e)
{
	return e && e->acc ? mxc_account_ed(e->acc) : "";
}

void mxe2e_free(struct mxe2e *e)
{
	size_t i;
	void *v;

	if (!e)
		return;
	while (e->pend.next != &e->pend)
		mxe_pend_free(e->pend.next);
	for (i = 0; (i = strmap_next(&e->olm, i, &v));)
		mxe_olmdev_free(v);
	strmap_release(&e->olm);
	for (i = 0; (i = strmap_next(&e->in, i, &v));)
		mxe_insess_free(v);
	strmap_release(&e->in);
	for (i = 0; (i = strmap_next(&e->out, i, &v));)
		mxe_outroom_free(v);
	strmap_release(&e->out);
	mxk_release(&e->keys);
	mxh_release(&e->held);
	for (i = 0; i < e->npk; i++)
		mxc_in_free(e->pk[i].in);
	free(e->pk);
	mxe_free_list(e->qnext, e->nqnext);
	mxe_free_list(e->qnow, e->nqnow);
	free(e->ready_done);
	free(e->untold);
	mxc_account_free(e->acc);
	mxc_key_wipe(&e->key);
	free(e);
}
