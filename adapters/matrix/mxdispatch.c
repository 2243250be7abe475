/*
 * mxdispatch: what one item of a sync does.  Owns the events already
 * handled within a batch (m->done, saved with the position so a restart
 * handles none twice), a message that may be a command (run_message: the
 * bot's own, the trust command, or a command handed to the manager), an
 * encrypted one (decrypted, held for its key, or told never to come), and
 * mxm_handle_item, which sends each kind of item to its room: members and
 * invites to mxmember, messages here.
 */

#include "adapters/matrix/mxint.h"

void mxm_save_since(struct matrix *m, const char *value)
{
	struct buf err = BUF_INIT;

	if (store_cursor_set(m->store, CURSOR_SINCE, value, &err))
		log_warn("matrix: storing the sync position: %s", buf_str(&err));
	buf_release(&err);
}

/*
 * The cursor value after handling event_id in the batch after m->since:
 * the token, a line per event handled, and a line "+<ref>" per encrypted
 * command handled (mxe2e_handled: the ratchet index it used, refused from
 * then on), which start-up applies again (a crash may come between the
 * commit and mxe2e_handled).
 */
static void done_value(struct matrix *m, struct buf *out)
{
	size_t i;

	buf_addstr(out, m->since);
	for (i = 0; i < m->ndone; i++)
		buf_printf(out, "\n%s", m->done[i]);
	for (i = 0; i < m->nrefs; i++)
		buf_printf(out, "\n+%s", m->refs[i]);
}

static int is_done(struct matrix *m, const char *event_id)
{
	size_t i;

	for (i = 0; i < m->ndone; i++)
		if (!strcmp(m->done[i], event_id))
			return 1;
	return 0;
}

static void run_message(struct matrix *m, const struct mx_item *it)
{
	struct command cmd;
	struct buf val = BUF_INIT, err = BUF_INIT;
	const char *text = it->text;
	size_t len = it->text_len, plen = strlen(m->prefix);
	int dm = mxm_is_dm_room(m, it->room, it->sender);
	char name[MX_NAME_SIZE];
	const char *targ;

	if (it->bad_utf8) {
		text = "\xff";	/* the manager answers "not valid text" */
		len = 1;
	} else if (it->too_long) {
		text = "";
		len = COMMAND_MAX_BYTES + 1;	/* the manager answers "too long" */
	} else if (len >= plen && !strncmp(text, m->prefix, plen)) {
		text += plen;
		len -= plen;
	} else if (!dm) {
		return;		/* conversation, not a command */
	}
	if (!it->bad_utf8 && !it->too_long && !len)
		return;
	log_debug("matrix: a command in %s", dm ? "a direct chat" : "a room");
	if (m->ndone < DONE_MAX && it->event_id[0])
		copy_id(m->done[m->ndone++], MX_ID_SIZE, it->event_id);
	if (m->cur_ref && m->nrefs < DONE_MAX) {
		m->refs = xrealloc(m->refs, (m->nrefs + 1) * sizeof(*m->refs));
		snprintf(m->refs[m->nrefs++], MXE_REF_SIZE, "%s", m->cur_ref);
	}
	done_value(m, &val);
	/* their first command pins the player's devices: one that appears
	 * later reads their hand only once they approve it */
	if (mxe2e_started(m->e2e))
		mxe2e_pin(m->e2e, it->sender);
	if (!it->bad_utf8 && !it->too_long && mxm_is_trust(text, len, &targ)) {
		mxm_run_trust(m, it, dm, targ);
		goto commit;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.platform = "matrix";
	cmd.room = it->room;
	cmd.user = it->sender;
	/* names are untrusted text: cleaned here, at the boundary */
	cmd.name = mxm_display_name(m, it->room, it->sender, name, sizeof(name));
	cmd.locale = NULL;
	cmd.text = text;
	cmd.text_len = len;
	cmd.direct = dm;
	{
		struct mroom *r = dm ? NULL : mxm_room_get(m, it->room, 0);

		/* a room in a space is rated with the space's rooms; a room
		 * in none is a community of its own (issue 26) */
		cmd.community = dm ? "" : r && r->space[0] ? r->space : it->room;
	}
	cmd.cursor_key = CURSOR_SINCE;
	cmd.cursor_value = buf_str(&val);
	if (m->base.on_command)
		m->base.on_command(m->base.ctx, &m->base, &cmd);
commit:
	/* a command that changed nothing committed nothing: record it here */
	if (store_cursor_set(m->store, CURSOR_SINCE, buf_str(&val), &err))
		log_warn("matrix: storing the sync position: %s", buf_str(&err));
	buf_release(&val);
	buf_release(&err);
}

/* A message (decrypted or not) that may be a command. */
static void message_item(struct matrix *m, const struct mx_item *it, int initial,
			 int before_join)
{
	if (initial || !it->from_timeline || it->is_edit || !strcmp(it->sender, m->me) ||
	    strcmp(it->msgtype, "m.text") || is_done(m, it->event_id) || before_join)
		return;
	run_message(m, it);
}

/*
 * An encrypted event: decrypted and handled as a message; one whose key
 * has not come yet is held (mxe2e) and comes back through this when it
 * does (batch_begin), so the sync position may move past it.  An event
 * handled before (its id in the position's list) is not decrypted again.
 */
static void cipher_item(struct matrix *m, const struct mx_item *it, int initial,
			int before_join)
{
	struct mx_sync plain;

	if (initial || !it->from_timeline || !strcmp(it->sender, m->me) || before_join ||
	    !mxe2e_started(m->e2e))
		return;
	if (is_done(m, it->event_id)) {
		mxe2e_forget(m->e2e, it->event_id);
		return;
	}
	if (mxe2e_decrypt(m->e2e, it, &plain) == MXE_OK) {
		char ref[MXE_REF_SIZE];

		/* its ratchet index is refused once it is handled: the mark
		 * goes after the command's commit, which carries it too */
		snprintf(ref, sizeof(ref), "%s", mxe2e_ref(m->e2e));
		m->cur_ref = ref;
		if (plain.nitems)
			message_item(m, &plain.items[0], initial, before_join);
		m->cur_ref = NULL;
		mxe2e_handled(m->e2e, ref);
		/* after its commit: held until then, lost by no crash */
		mxe2e_forget(m->e2e, it->event_id);
	}
	mx_sync_release(&plain);
}

/* gap: an item read back from a room's history, older than what the
 * batch's memberships say (only a name of someone unknown is taken). */
void mxm_handle_item(struct matrix *m, const struct mx_item *it, int initial,
		     int before_join, int gap)
{
	struct mroom *r;
	struct dm *d;

	switch (it->kind) {
	case MX_INVITE:
		mxm_handle_invite(m, it);
		break;
	case MX_LEFT:
		if ((d = strmap_get(&m->dm_rooms, it->room))) {
			mxm_dm_forget(m, d);
			mxm_dm_pump(m, d);
		}
		mxm_room_drop(m, it->room);
		/* the room keys received there go: nothing of it is read again */
		mxe2e_room_left(m->e2e, it->room);
		break;
	case MX_ENCRYPTED:
		r = mxm_room_get(m, it->room, 1);
		if (gap)
			mxm_room_mark_encrypted(m, r, it);	/* mxm_apply_members saw the others */
		/* after the whole response's memberships and encryption: a
		 * forged event in a Megolm room changed nothing */
		if ((mxm_room_encrypted(m, r) && !mxe2e_usable(m->e2e)) ||
		    (r->foreign && !mxm_room_encrypted(m, r)))
			mxm_say_encrypted_and_leave(m, r);
		break;
	case MX_MEMBER:
		r = mxm_room_get(m, it->room, 1);
		if (gap && !mx_members_get(&r->mem, it->state_key))
			mx_members_set(&r->mem, it->state_key, MXM_NONE, it->displayname);
		break;
	case MX_LIMITED:
	case MX_SUMMARY:
	case MX_SPACE_PARENT:
		break;		/* mxm_apply_members */
	case MX_MESSAGE:
		if (strcmp(it->sender, m->me) && (r = mxm_room_get(m, it->room, 0)))
			r->since_last++;
		/* in an encrypted room only encrypted messages are commands: a
		 * plain one is not bound to its sender's device */
		r = mxm_room_get(m, it->room, 1);
		if (!mxm_room_encrypted(m, r) && !mxm_room_unusable(r))
			message_item(m, it, initial, before_join);
		break;
	case MX_CIPHER:
		if (strcmp(it->sender, m->me) && (r = mxm_room_get(m, it->room, 0)))
			r->since_last++;
		cipher_item(m, it, initial, before_join);
		break;
	}
}
