/*
 * mxseal: the adapter's side of end-to-end encryption (mxe2e.h does the
 * cryptography's bookkeeping).  Owns the calls mxe2e makes of it (struct
 * mxe2e_io: HTTP requests, the clock, who is joined, whether a message may
 * be held for its key, a player's new device), fetching the members of an
 * encrypted room before a session is shared with them, sealing a message
 * just before it goes to an encrypted room (mxm_seal), and the trust command
 * by which a player vouches for a device of theirs.
 */

#include "adapters/matrix/mxint.h"

/* ---- end-to-end encryption (mxe2e.h; docs/matrix.md, "Encrypted rooms") ---- */

/* A request of mxe2e's in flight. */
struct e2ecall {
	struct live live;	/* first */
	mxe_done_fn done;
	void *ctx;
};

static void e2ecall_release(struct live *l)
{
	live_del(l);
	free(l);
}

static void on_e2e_http(struct matrix *m, long status, const char *errcode, const char *body,
			size_t len, void *ctx)
{
	struct e2ecall *c = ctx;

	live_del(&c->live);
	c->done(c->ctx, status == STATUS_TOO_BIG ? 0 : status, body, len);
	free(c);
}

void mxm_e2e_call(void *ctx, const char *method, const char *path, const json_t *body,
		  mxe_done_fn done, void *done_ctx)
{
	struct matrix *m = ctx;
	struct e2ecall *c = xcalloc(1, sizeof(*c));

	c->done = done;
	c->ctx = done_ctx;
	live_add(m, &c->live, e2ecall_release);
	mxm_call(m, method, path, (json_t *)body, NULL, 0, on_e2e_http, c);
}


/*
 * The key upload's first answer came.  On a homeserver without the key
 * API, a direct chat made encrypted meanwhile cannot be written to: the
 * bot stops using it (its messages come back to the player's queue, for
 * a new chat without encryption, which says so); the private messages
 * that waited for this answer go now.
 */
void mxm_e2e_settled(void *ctx)
{
	struct matrix *m = ctx;
	struct dm **all;
	size_t i, n = 0;
	void *v;

	all = xcalloc(strmap_count(&m->dms) + 1, sizeof(*all));
	for (i = 0; (i = strmap_next(&m->dms, i, &v));)
		all[n++] = v;
	for (i = 0; i < n; i++) {
		struct mroom *r = all[i]->room[0] ? mxm_room_get(m, all[i]->room, 0) : NULL;

		if (r && mxm_room_encrypted(m, r) && !mxe2e_usable(m->e2e))
			mxm_dm_forget(m, all[i]);
	}
	for (i = 0; i < n; i++)
		mxm_dm_pump(m, all[i]);
	free(all);
}

int64_t mxm_e2e_now_ms(void *ctx)
{
	struct matrix *m = ctx;

	return m->now(m->now_ctx) * 1000;
}

/* mxe2e_io.is_joined: a room the adapter does not know is not the bot's
 * (rooms come from the syncs); a member it has not seen, with lazy-loaded
 * members, is unknown unless the list is complete. */
int mxm_e2e_is_joined(void *ctx, const char *room, const char *user)
{
	struct matrix *m = ctx;
	struct mroom *r = mxm_room_get(m, room, 0);
	const struct mx_member *mm = r ? mx_members_get(&r->mem, user) : NULL;

	if (!r)
		return 0;
	if (!mm || mm->membership == MXM_NONE)
		return r->mem.complete ? 0 : -1;
	return mm->membership == MXM_JOIN ? 1 : mm->membership == MXM_INVITE ? 2 : 0;
}

static int any_session(void *ctx, const struct session_rec *s)
{
	*(int *)ctx = 1;
	return 1;
}

/*
 * Whether an encrypted event of sender in room may wait for its key
 * (mxe2e_io.may_hold): when sender is joined to room and a game is open
 * there, or sender holds a seat in an open game (their direct chat).  The
 * store answers, as it does for the session manager.  A store that does
 * not answer: yes (the list's own bounds still hold).
 */
int mxm_e2e_may_hold(void *ctx, const char *room, const char *sender)
{
	struct matrix *m = ctx;
	struct session_rec s;
	struct buf err = BUF_INIT;
	int r, yes = 0;

	session_rec_init(&s);
	r = store_session_current(m->store, "matrix", room, &s, &err);
	if (r > 0 && (s.status == SESSION_LOBBY || s.status == SESSION_ACTIVE) &&
	    mxm_e2e_is_joined(m, room, sender) == 1)
		yes = 1;
	session_rec_release(&s);
	if (!yes && r >= 0 &&
	    store_sessions_of_user(m->store, "matrix", sender, any_session, &yes, &err) < 0)
		r = -1;
	if (r < 0) {
		log_warn("matrix: could not ask the store whose encrypted messages may wait for "
			 "their keys: %s", buf_str(&err));
		yes = 1;
	}
	buf_release(&err);
	return yes;
}

/* The member list of an encrypted room, fetched whole before a message
 * goes (with lazy-loaded members the bot knows only some): then q goes on. */
struct memctx {
	struct live live;	/* first */
	struct mxreq *q;
	char room[MX_ID_SIZE];
};

static void memctx_release(struct live *l)
{
	live_del(l);
	free(l);
}

static void on_e2e_members(struct matrix *m, long status, const char *errcode,
			   const char *body, size_t len, void *ctx)
{
	struct memctx *c = ctx;
	struct mxreq *q = c->q;

	live_del(&c->live);
	if (status != 200 || mxm_load_members(m, c->room, body, len)) {
		log_warn("matrix: could not read an encrypted room's members (HTTP %ld); its "
			 "message waits for the next start", status);
		free(c);
		mxm_finish(q, status == 200 ? 0 : status, NULL, "", 0);
		return;
	}
	free(c);
	mxm_req_start(q);
}

static void on_e2e_ready(void *ctx, int ok)
{
	struct mxreq *q = ctx;

	if (ok)
		mxm_req_start(q);
	else
		mxm_finish(q, 0, NULL, "", 0);
}

/*
 * Just before a message goes to an encrypted room: the whole member list
 * is known, the room's key is shared with their devices (mxe2e_prepare),
 * then the body is replaced by its m.room.encrypted content.  A room that
 * is not encrypted gets it as it is.  A room the bot cannot take part in
 * (refused, or with an encryption it does not speak) gets nothing but the
 * fixed refusal notice: whatever else waited in its lane fails (a hand on
 * its way to a direct chat that turned foreign stays in the outbox).
 * SEAL_WAIT: q waits (mxm_req_start again when ready).
 */
int mxm_seal(struct matrix *m, struct mxreq *q)
{
	const char *room = q->lane->room;
	struct mroom *r = mxm_room_get(m, room, 1);
	const char **members;
	struct dm *dm;
	struct buf err = BUF_INIT, path = BUF_INIT;
	json_t *plain, *sealed;
	size_t n = 0, i;
	void *v;
	int rc;
	char *at;

	if (mxm_room_unusable(r)) {
		if (q->refusal)
			return SEAL_GO;
		log_warn("matrix: a message to a room the bot cannot encrypt for is not sent");
		return SEAL_FAIL;
	}
	if (!mxm_room_encrypted(m, r))
		return SEAL_GO;
	if (!mxe2e_usable(m->e2e)) {
		/* it cannot take part: says so (the refusal goes unsealed
		 * to a room it never encrypted for) and leaves */
		log_warn("matrix: a message to an encrypted room, and no device to encrypt it");
		if (!q->priv_user[0])
			mxm_say_encrypted_and_leave(m, r);
		return SEAL_FAIL;
	}
	if (!r->mem.complete) {
		struct memctx *c = xcalloc(1, sizeof(*c));

		c->q = q;
		copy_id(c->room, MX_ID_SIZE, room);
		live_add(m, &c->live, memctx_release);
		buf_addstr(&path, API "/rooms/");
		enc(&path, room);
		buf_addstr(&path, "/members?not_membership=leave");
		mxm_call(m, "GET", buf_str(&path), NULL, NULL, 0, on_e2e_members, c);
		buf_release(&path);
		return SEAL_WAIT;
	}
	/* the key goes to the joined and invited members' devices only; in
	 * a player's private chat, to the devices they trust (mxkeys.h) */
	members = xcalloc(strmap_count(&r->mem.map) + 1, sizeof(*members));
	for (i = 0; (i = strmap_next(&r->mem.map, i, &v));) {
		const struct mx_member *mm = v;

		if (mm->membership == MXM_JOIN || mm->membership == MXM_INVITE)
			members[n++] = mm->user;
	}
	dm = strmap_get(&m->dm_rooms, room);
	rc = mxe2e_prepare(m->e2e, room, members, n, dm ? dm->user : NULL, on_e2e_ready, q);
	free(members);
	if (rc == 1)
		return SEAL_WAIT;	/* on_e2e_ready may have run already */
	if (rc < 0)
		return SEAL_FAIL;
	plain = json_loads(q->body ? q->body : "", 0, NULL);
	sealed = plain ? mxe2e_seal(m->e2e, room, plain, &err) : NULL;
	json_decref(plain);
	if (!sealed) {
		log_warn("matrix: could not encrypt a message: %s", buf_str(&err));
		buf_release(&err);
		return SEAL_FAIL;
	}
	q->plain = q->body;
	q->body = json_dumps(sealed, JSON_COMPACT);
	json_decref(sealed);
	at = strstr(q->path, "/send/m.room.message/");
	if (at) {
		buf_add(&path, q->path, (size_t)(at - q->path));
		buf_printf(&path, "/send/m.room.encrypted/%s", at + strlen("/send/m.room.message/"));
		free(q->path);
		q->path = buf_detach(&path);
	}
	q->sealed = 1;
	buf_release(&err);
	return SEAL_GO;
}

/* ---- new devices of players (mxe2e_io.new_device; docs/matrix.md, "Trust") ---- */

/* A device id or name as the bot may show it (untrusted text). */
static const char *shown(const char *in, char *out, size_t n)
{
	if (!text_clean_name(in, strlen(in), out, n))
		snprintf(out, n, "?");
	return out;
}

void mxm_e2e_new_device(void *ctx, const char *user, const char *device, const char *name,
			const char *fingerprint, int cross)
{
	struct matrix *m = ctx;
	struct rich body = RICH_INIT;
	char id[MX_NAME_SIZE], nm[MX_NAME_SIZE], txn[96];
	json_t *c;

	shown(device, id, sizeof(id));
	if (*name)
		shown(name, nm, sizeof(nm));
	else
		snprintf(nm, sizeof(nm), "%s", "");
	rich_text(&body, "A new device appeared on your account: %s%s%s%s, fingerprint %s. ",
		  id, *nm ? " (\"" : "", nm, *nm ? "\")" : "", fingerprint);
	if (cross)
		rich_text(&body, "You have not verified it (cross-signing), so it does not get your "
			  "private messages (your hand). If it is yours, verify it from another of "
			  "your sessions; if it is not, sign it out and change your password. / "
			  "Ha aparecido un dispositivo nuevo en tu cuenta: %s%s%s%s, huella %s. No lo "
			  "has verificado (firma cruzada), así que no recibe tus mensajes privados "
			  "(tu mano). Si es tuyo, verifícalo desde otra de tus sesiones; si no, "
			  "ciérrale la sesión y cambia tu contraseña.",
			  id, *nm ? " (\"" : "", nm, *nm ? "\")" : "", fingerprint);
	else
		rich_text(&body, "It does not get your private messages (your hand) until you "
			  "approve it: if it is yours, send \"trust %s\" here from a device you "
			  "already use. If it is not yours, do not approve it. / Ha aparecido un "
			  "dispositivo nuevo en tu cuenta: %s%s%s%s, huella %s. No recibe tus mensajes "
			  "privados (tu mano) hasta que lo apruebes: si es tuyo, escribe aquí \"trust "
			  "%s\" desde un dispositivo que ya uses. Si no es tuyo, no lo apruebes.",
			  id, id, *nm ? " (\"" : "", nm, *nm ? "\")" : "", fingerprint, id);
	c = mx_notice_contents(&body);
	mxm_new_txn(m, txn, sizeof(txn));
	mxm_send_private(m, user, c, txn, 0, NULL, NULL, 0);
	json_decref(c);
	rich_release(&body);
}

/* Whether text (len bytes, after the prefix) is the `trust` command:
 * *arg then points at its argument. */
int mxm_is_trust(const char *text, size_t len, const char **arg)
{
	char word[16];
	const char *s = text;

	if (memchr(text, '\0', len) || !text_word(&s, word, sizeof(word)) ||
	    !text_eq(word, "trust"))
		return 0;
	*arg = s;
	return 1;
}

/* `trust <device id>`: a player approves a new device of theirs, from a
 * device they trust, in their private chat (mxe2e_trust). */
void mxm_run_trust(struct matrix *m, const struct mx_item *it, int dm, const char *arg)
{
	struct rich body = RICH_INIT;
	char id[128], shownid[MX_NAME_SIZE];	/* a device id: MXK_DEVICE_ID_SIZE */
	size_t n;
	enum mxe_trust t;

	n = text_word(&arg, id, sizeof(id));
	shown(id, shownid, sizeof(shownid));
	if (!dm) {
		rich_text(&body, "\"trust\" works only in your direct chat with me. / \"trust\" "
			  "solo funciona en tu chat directo conmigo.");
	} else if (!n || n >= sizeof(id) || *arg) {
		rich_text(&body, "Usage: trust <device id> (the id my notice named). / Uso: trust "
			  "<id del dispositivo> (el que nombró mi aviso).");
	} else if ((t = mxe2e_trust(m->e2e, it->sender, it->sender_key, id)) == MXE_TRUST_OK) {
		rich_text(&body, "Done: your device %s gets your private messages from now on. / "
			  "Hecho: tu dispositivo %s recibe tus mensajes privados desde ahora.",
			  shownid, shownid);
	} else if (t == MXE_TRUST_ALREADY) {
		rich_text(&body, "Your device %s gets your private messages already. / Tu "
			  "dispositivo %s ya recibe tus mensajes privados.", shownid, shownid);
	} else if (t == MXE_TRUST_NOT_FROM_TRUSTED) {
		rich_text(&body, "I take \"trust\" only from a device of yours that already gets "
			  "your private messages (not from a new one); nothing changed. / Solo acepto "
			  "\"trust\" desde un dispositivo tuyo que ya recibe tus mensajes privados "
			  "(no desde uno nuevo); no ha cambiado nada.");
	} else if (t == MXE_TRUST_CROSS_SIGNING) {
		rich_text(&body, "You use cross-signing: verify the device %s from another of your "
			  "sessions instead; nothing changed. / Usas firma cruzada: verifica el "
			  "dispositivo %s desde otra de tus sesiones; no ha cambiado nada.",
			  shownid, shownid);
	} else if (t == MXE_TRUST_OFF) {
		rich_text(&body, "This chat is not encrypted, so there is nothing to approve. / Este "
			  "chat no está cifrado: no hay nada que aprobar.");
	} else {
		rich_text(&body, "You have no device %s that I know of; nothing changed. / No "
			  "conozco ningún dispositivo tuyo %s; no ha cambiado nada.",
			  shownid, shownid);
	}
	mxm_send_notice(m, it->room, &body);
	rich_release(&body);
}
