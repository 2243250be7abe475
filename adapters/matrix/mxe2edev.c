/*
 * mxe2edev: other users' devices, the ones a room key is shared with.  Owns
 * each user's device list (struct mxk_user, from mxkeys.h) read from and
 * saved to the store, the /keys/query that refreshes those lists (users
 * gathered for the next query, one query in flight; its answer steps the
 * rooms waiting for it and tells of a player's new device), and a player's
 * say over their devices: mxe2e_pin (a new device reads nothing private
 * until approved) and mxe2e_trust (the approval).
 */

#include "adapters/matrix/mxe2eint.h"

/* ---- devices ---- */

/* The user's devices, read from the store the first time (not fresh). */
struct mxk_user *mxe_user_get(struct mxe2e *e, const char *user)
{
	struct mxk_user *u = mxk_get(&e->keys, user);
	struct buf k = BUF_INIT;
	char *text;

	if (u)
		return u;
	text = mxe_kv_get(e, mxe_ekey(e, &k, "dev", user, NULL));
	u = mxk_add(&e->keys, user, text);
	free(text);
	buf_release(&k);
	return u;
}

/* The same, but NULL (and nothing kept in memory) for a user the bot has
 * never listed: strangers' Olm messages must not grow the table. */
struct mxk_user *mxe_user_peek(struct mxe2e *e, const char *user)
{
	struct mxk_user *u = mxk_get(&e->keys, user);
	struct buf k = BUF_INIT;
	char *text;

	if (u)
		return u;
	text = mxe_kv_get(e, mxe_ekey(e, &k, "dev", user, NULL));
	buf_release(&k);
	if (!text)
		return NULL;
	free(text);
	return mxe_user_get(e, user);
}

static void user_save(struct mxe2e *e, const struct mxk_user *u)
{
	struct buf k = BUF_INIT;
	char *text = mxk_encode(u);

	mxe_kv_set(e, mxe_ekey(e, &k, "dev", u->user, NULL), text);
	free(text);
	buf_release(&k);
}

/* ---- the device query ---- */

/* A device to tell its user about (mxe2e_io.new_device), collected while
 * an answer is applied and told once it is. */
struct newdev {
	char user[MX_ID_SIZE];
	char device[MXK_DEVICE_ID_SIZE];
	char name[MX_NAME_SIZE];
	char fingerprint[MX_KEY_SIZE * 2];
	int cross;
};

static int in_list(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

void mxe_query_add(struct mxe2e *e, const char *user)
{
	if (in_list(e->qnext, e->nqnext, user) || in_list(e->qnow, e->nqnow, user))
		return;
	e->qnext = xrealloc(e->qnext, (e->nqnext + 1) * sizeof(*e->qnext));
	e->qnext[e->nqnext++] = xstrdup(user);
}

void mxe_free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Steps every room waiting for something (collected first: a waiter's
 * callback may add rooms); fail: tells them it failed instead. */
static void kick_waiting(struct mxe2e *e, int fail)
{
	char **rooms = NULL;
	size_t n = 0, i;
	void *v;

	for (i = 0; (i = strmap_next(&e->out, i, &v));) {
		struct outroom *r = v;

		if (r->waiters && !r->busy) {
			rooms = xrealloc(rooms, (n + 1) * sizeof(*rooms));
			rooms[n++] = xstrdup(r->room);
		}
	}
	for (i = 0; i < n; i++) {
		struct outroom *r = strmap_get(&e->out, rooms[i]);

		if (r && r->waiters && !r->busy) {
			if (fail)
				mxe_notify(r, 0);
			else
				mxe_room_kick(e, r);
		}
	}
	mxe_free_list(rooms, n);
}

/* The failures of a /keys/query answer name servers, not users. */
static int server_failed(const json_t *failures, const char *user)
{
	const char *server = strchr(user, ':');

	return server && json_object_get(failures, server + 1) != NULL;
}

static void on_query(void *ctx, long status, const char *body, size_t len)
{
	struct pend *p = ctx;
	struct mxe2e *e = p->e;
	json_t *j = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
	json_t *dk = json_object_get(j, "device_keys");
	json_t *failures = json_object_get(j, "failures");
	struct newdev *nd = NULL;
	size_t i, k, nnd = 0;

	mxe_pend_free(p);
	e->querying = 0;
	if (!json_is_object(j)) {
		/* the messages waiting for it wait for the next start; the room
		 * keys waiting for it, for the next sync */
		log_warn("matrix: could not read the devices of %zu users (HTTP %ld)", e->nqnow,
			 status);
		for (i = 0; i < e->npk; i++)
			if (in_list(e->qnow, e->nqnow, e->pk[i].user))
				e->pk[i].failed = 1;
		mxe_free_list(e->qnow, e->nqnow);
		e->qnow = NULL;
		e->nqnow = 0;
		json_decref(j);
		kick_waiting(e, 1);
		mxe_query_start(e);
		mxe_pk_run(e);
		return;
	}
	for (i = 0; i < e->nqnow; i++) {
		struct mxk_user *u = mxe_user_get(e, e->qnow[i]);
		int changed;

		if (server_failed(failures, u->user)) {
			/* their server did not answer: the devices known stay;
			 * asked again at the next change */
			u->fresh = 1;
			continue;
		}
		changed = mxk_apply_answer(u, j, !strcmp(u->user, e->user) ? e->device : NULL);
		for (k = 0; k < u->ndev; k++) {
			struct mxk_device *d = &u->dev[k];
			const char *name = json_string_value(json_object_get(json_object_get(
				json_object_get(json_object_get(dk, u->user), d->id), "unsigned"),
				"device_display_name"));
			struct newdev *n;

			if (d->told || !mxk_pending(u, d))
				continue;
			d->told = 1;
			changed = 1;
			nd = xrealloc(nd, (nnd + 1) * sizeof(*nd));
			n = &nd[nnd++];
			snprintf(n->user, sizeof(n->user), "%s", u->user);
			snprintf(n->device, sizeof(n->device), "%s", d->id);
			snprintf(n->name, sizeof(n->name), "%s", name ? name : "");
			mxe_group4(d->ed, n->fingerprint, sizeof(n->fingerprint));
			n->cross = mxk_cross_usable(u);
			log_warn("matrix: a new device of %s does not get their private chat's key "
				 "until they %s it", u->user, n->cross ? "sign" : "approve");
			if (!n->cross && !mxk_any_private(u))
				log_warn("matrix: %s has no device left that reads their private "
					 "chat, so none can approve it; the operator can reset their "
					 "devices (docs/matrix.md, \"Trust\")", u->user);
		}
		if (changed)
			user_save(e, u);
	}
	mxe_free_list(e->qnow, e->nqnow);
	e->qnow = NULL;
	e->nqnow = 0;
	json_decref(j);
	mxe_query_start(e);
	kick_waiting(e, 0);
	/* the adapter sends its notice from here (mxe2e_prepare again) */
	for (i = 0; i < nnd; i++)
		if (e->io.new_device)
			e->io.new_device(e->io.ctx, nd[i].user, nd[i].device, nd[i].name,
					 nd[i].fingerprint, nd[i].cross);
	free(nd);
	/* last: the room keys waiting for this answer are judged (a batch
	 * waiting for them goes on from here) */
	mxe_pk_run(e);
}

void mxe_query_start(struct mxe2e *e)
{
	json_t *body, *users;
	size_t i;

	if (e->querying || !e->nqnext)
		return;
	users = json_object();
	for (i = 0; i < e->nqnext; i++)
		json_object_set_new(users, e->qnext[i], json_array());
	body = json_pack("{s:o, s:i}", "device_keys", users, "timeout", QUERY_TIMEOUT_MS);
	e->qnow = e->qnext;
	e->nqnow = e->nqnext;
	e->qnext = NULL;
	e->nqnext = 0;
	e->querying = 1;
	mxe_call(e, "POST", API "/keys/query", body, on_query, mxe_pend_new(e, NULL));
	json_decref(body);
}

/* ---- a player's say over their devices ---- */

void mxe2e_pin(struct mxe2e *e, const char *user)
{
	struct mxk_user *u;

	if (!e->started || !strcmp(user, e->user))
		return;
	u = mxe_user_get(e, user);
	if (!mxk_pin(u))
		return;
	user_save(e, u);
	log_info("matrix: the devices of %s are pinned: a new one reads their private chat "
		 "once they approve it%s", user, u->pin == MXK_PIN_NEXT ? " (at the next answer)" :
		 "");
	if (u->pin == MXK_PIN_NEXT) {
		mxe_query_add(e, user);
		mxe_query_start(e);
	}
}

enum mxe_trust mxe2e_trust(struct mxe2e *e, const char *user, const char *sender_key,
			   const char *device)
{
	struct mxk_user *u;
	const struct mxk_device *from;

	if (!e->started || !sender_key || !*sender_key)
		return MXE_TRUST_OFF;	/* a message in clear: an unencrypted chat */
	u = mxe_user_get(e, user);
	from = mxk_by_curve(u, sender_key);
	if (!from || !mxk_private_ok(u, from))
		return MXE_TRUST_NOT_FROM_TRUSTED;
	switch (mxk_approve(u, device)) {
	case MXK_APPROVED:
		user_save(e, u);
		log_info("matrix: %s approved a device of theirs", user);
		return MXE_TRUST_OK;
	case MXK_ALREADY:
		return MXE_TRUST_ALREADY;
	case MXK_USE_CROSS_SIGNING:
		return MXE_TRUST_CROSS_SIGNING;
	case MXK_UNKNOWN:
		break;
	}
	return MXE_TRUST_UNKNOWN;
}
