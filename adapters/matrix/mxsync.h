/*
 * mxsync: reads a Matrix /sync response (or a /messages page) into a flat
 * list of what the bot acts on, and builds the filters.  Pure: no I/O, no
 * globals.
 *
 * The adapter calls mx_sync_parse() on each response body and walks the
 * items in order.  Per joined room the order is: state items (members,
 * encryption) from "state", then MX_LIMITED when the timeline was limited,
 * then the "timeline" events in order, each turned into an item (members
 * and encryption from the timeline too), then MX_SUMMARY when the room's
 * "summary" holds member counts.  Rooms are walked in the order they appear
 * in the JSON; sections come in the order rooms.join, rooms.invite,
 * rooms.leave.  MX_LEFT carries the room only.  An m.room.message or
 * m.room.encrypted (MX_CIPHER) without a sender, or an m.room.member without
 * a state_key or membership, is skipped.  Inside JSON strings, malformed UTF-8, lone surrogate escapes
 * (\ud800) and raw control characters do not fail the whole body (jansson
 * alone would refuse it): the string is read as containing a NUL, i.e. not
 * valid text (bad_utf8 for a body, the event skipped for an id).
 *
 * Invites.  Everything in an invite's stripped state (invite_state) comes
 * from the inviting server and is unchecked, except the invite event itself:
 * the m.room.member event whose state_key is the bot's own user id (`me`),
 * membership "invite".  MX_INVITE takes sender (the inviter), is_direct,
 * event_id and ts from that event only; when several such events disagree on
 * the sender, or one has no readable sender, `forged` is set and the
 * adapter must decline.  Without one, sender is "" (nobody known to have
 * invited: decline).  displayname is the inviter's own member event's, as
 * display data only.
 */
#ifndef ADAPTERS_MATRIX_MXSYNC_H
#define ADAPTERS_MATRIX_MXSYNC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"

#define MX_ID_SIZE 256		/* room ids, user ids, event ids (bytes, NUL incl.) */
#define MX_NAME_SIZE 256	/* display names, truncated at a UTF-8 boundary */
#define MX_TEXT_SIZE 4096	/* message bodies: longer ones are flagged too_long */
#define MX_TYPE_SIZE 32		/* msgtype */
#define MX_MEMBERSHIP_SIZE 16	/* membership */
#define MX_KEY_SIZE 64		/* a curve25519/ed25519 key or session id, base64 */
#define MX_CIPHER_SIZE 65536	/* a Megolm ciphertext: longer ones are flagged too_long */
#define MX_SESSION_KEY_SIZE 512	/* a room key (m.room_key, m.forwarded_room_key) */
#define MX_OLM_BODY_SIZE 65536	/* an Olm message body */

/* Timeline limits of the filters (mx_sync_filter). */
#define MX_TIMELINE_LIMIT 50
#define MX_TIGHT_LIMIT 5

enum mx_item_kind {
	MX_MESSAGE,	/* an m.room.message in a joined room's timeline */
	MX_MEMBER,	/* an m.room.member (state or timeline) in a joined room */
	MX_ENCRYPTED,	/* the room has m.room.encryption (state or timeline) */
	MX_INVITE,	/* we are invited to room (rooms.invite) */
	MX_LEFT,	/* we left or were kicked/banned (rooms.leave) */
	MX_LIMITED,	/* this joined room's timeline was limited: prev_batch */
	MX_SUMMARY,	/* this joined room's member counts (joined, invited) */
	MX_CIPHER,	/* an m.room.encrypted in a joined room's timeline */
	/* an m.space.parent (state or timeline) in a joined room: state_key
	 * is the space's room id ("!..."), with a non-empty `via` (an empty
	 * content removes a parent: not an item) */
	MX_SPACE_PARENT,
};

/*
 * Every string field is NUL-terminated valid UTF-8, never NULL ("" when
 * absent), and owned by the struct mx_sync the item is in (valid until
 * mx_sync_release).  Ids are shorter than MX_ID_SIZE bytes, names than
 * MX_NAME_SIZE, msgtype than MX_TYPE_SIZE, memberships than
 * MX_MEMBERSHIP_SIZE, text than MX_TEXT_SIZE.
 */
struct mx_item {
	enum mx_item_kind kind;
	const char *room;
	const char *sender;	/* MESSAGE, MEMBER (the sender), INVITE (the inviter) */
	const char *event_id;	/* MESSAGE, MEMBER, INVITE ("" if absent) */
	int64_t ts;		/* origin_server_ts, ms; 0 if absent */
	int from_timeline;	/* 1 timeline event, 0 state */
	/* MESSAGE */
	const char *msgtype;	/* "m.text", "m.notice"...; "" if absent or not a string */
	const char *text;	/* body (invalid → flagged, text "") */
	size_t text_len;
	int too_long;		/* body over MX_TEXT_SIZE - 1 bytes: text "" */
	int bad_utf8;
	int is_edit;		/* m.relates_to.rel_type == "m.replace": not a new command */
	/* MEMBER (INVITE: state_key, membership, is_direct of the invite) */
	const char *state_key;	/* whose membership */
	const char *membership;	/* "join", "leave", "invite", "ban", "knock" */
	/* unsigned.prev_content.membership ("" if absent): a "join" after a
	 * "join" is a profile change, not a join */
	const char *prev_membership;
	const char *displayname;	/* "" when absent; untrusted: clean before showing */
	int is_direct;		/* content.is_direct == true */
	/* INVITE: the stripped state holds contradicting invite events */
	int forged;
	/* LIMITED: prev_batch (also in text, for older callers) */
	const char *prev_batch;
	/* SUMMARY: m.joined_member_count, m.invited_member_count; -1 absent */
	long joined, invited;
	/* ENCRYPTED: the room's algorithm ("" absent), and the rotation
	 * periods of its outbound sessions (-1 absent or not a positive
	 * integer).  CIPHER: algorithm, sender_key, session_id and device_id
	 * of the content ("" absent), the ciphertext in text (too_long when
	 * over MX_CIPHER_SIZE - 1 bytes), is_edit from the cleartext
	 * m.relates_to.  MESSAGE decrypted (mx_decrypted_parse): sender_key
	 * is the cipher's, which mxe2e_decrypt sets to the curve25519 key of
	 * the device whose room key decrypted it: the device that spoke ("" in
	 * a message that came in clear). */
	const char *algorithm;
	int64_t rotation_ms;
	long rotation_msgs;
	const char *sender_key;
	const char *session_id;
	const char *device_id;
};

struct mx_block;

struct mx_sync {
	/* next_batch (a /messages page: its "end", "" when there is none) */
	char next_batch[MX_ID_SIZE];
	struct mx_item *items;		/* owned */
	size_t nitems;
	/* account_data m.direct, if present in this response: a new reference
	 * to its content object (user id → array of room ids), else NULL. */
	json_t *direct;
	/* end-to-end encryption (sync responses only): to_device.events (a new
	 * reference to the array, NULL when absent: decode each with
	 * mx_olm_msg_decode), device_lists.changed and .left (user ids, in
	 * the arena), device_one_time_keys_count.signed_curve25519 (-1 when
	 * absent), whether the fallback key is unused
	 * (device_unused_fallback_key_types lists signed_curve25519: 1, it
	 * does not: 0, absent: -1) */
	json_t *to_device;
	const char **dl_changed, **dl_left;	/* owned arrays */
	size_t ndl_changed, ndl_left;
	long otk_count;
	int fallback_unused;
	struct mx_block *arena;		/* owned: the items' strings */
};

/*
 * Parses a /sync response body (len bytes, need not be NUL-terminated) into
 * *out (fully overwritten).  me: the bot's user id (recognises its invite
 * events).  Malformed parts are skipped (an event that is not an object, a
 * field of the wrong type), never fatal, except: the body is not a JSON
 * object, or next_batch is missing or not a string → -1 with a message in
 * err (out is then empty; releasing it is harmless).  Event ids, room ids,
 * user ids longer than MX_ID_SIZE-1 or not valid UTF-8 make their event
 * skipped.
 */
int mx_sync_parse(const char *body, size_t len, const char *me, struct mx_sync *out,
		  struct buf *err);

/*
 * Decodes one rooms.invite entry ({"invite_state": {"events": [...]}}, len
 * bytes of JSON) for room, as mx_sync_parse does (see above): one MX_INVITE
 * item in *out.  -1 with err when the body is not a JSON object.  (The
 * invite decoder on its own, for the fuzzer.)
 */
int mx_invite_decode(const char *body, size_t len, const char *room, const char *me,
		     struct mx_sync *out, struct buf *err);

/*
 * Parses a GET /rooms/{room}/messages page (or a /members answer): the
 * "chunk" events, in the order given, as timeline items of room (MESSAGE,
 * MEMBER, ENCRYPTED), then the "state" events (with lazy-loaded members:
 * the chunk's senders) as state items; next_batch is the page's "end" (""
 * when absent: no more).  -1 with err
 * when the body is not a JSON object or chunk is not an array.
 */
int mx_messages_parse(const char *body, size_t len, const char *room, struct mx_sync *out,
		      struct buf *err);

void mx_sync_release(struct mx_sync *s);

/* ---- end-to-end encryption: what the adapter decrypts ---- */

/*
 * An Olm-encrypted to-device message (an element of to_device.events)
 * addressed to the device whose curve25519 key is my_curve: the type is
 * m.room.encrypted, the algorithm m.olm.v1.curve25519-aes-sha2 and the
 * ciphertext has an entry for my_curve.  body is borrowed from ev (valid
 * while ev is).  0, or -1 when ev is anything else (not for this device,
 * malformed, over the sizes).
 */
struct mx_olm_msg {
	char sender[MX_ID_SIZE];
	char sender_key[MX_KEY_SIZE];
	int type;		/* 0 pre-key, 1 normal */
	const char *body;
};
int mx_olm_msg_decode(const json_t *ev, const char *my_curve, struct mx_olm_msg *out);

/*
 * The plaintext of an Olm message: {"type", "content", "sender",
 * "recipient", "recipient_keys": {"ed25519"}, "keys": {"ed25519"}}, and for
 * the room keys the content's fields.  kind is MX_OLM_ROOM_KEY for an
 * m.room_key, MX_OLM_FORWARDED for an m.forwarded_room_key (both with the
 * Megolm algorithm and every field present and valid), MX_OLM_OTHER for
 * any other type (m.dummy, ...).  session_key is a secret: the caller wipes
 * the struct (explicit_bzero) when done.  -1 with err when the plaintext
 * is not such an object.
 */
enum mx_olm_kind { MX_OLM_OTHER, MX_OLM_ROOM_KEY, MX_OLM_FORWARDED };

struct mx_olm_payload {
	enum mx_olm_kind kind;
	char type[64];
	char sender[MX_ID_SIZE];
	char recipient[MX_ID_SIZE];
	char recipient_ed[MX_KEY_SIZE];
	char sender_ed[MX_KEY_SIZE];		/* keys.ed25519 */
	char room[MX_ID_SIZE];
	char session_id[MX_KEY_SIZE];
	char session_key[MX_SESSION_KEY_SIZE];
	/* FORWARDED: the session's first sender, as the forwarder claims */
	char orig_sender_key[MX_KEY_SIZE];
	char claimed_ed[MX_KEY_SIZE];
};
int mx_olm_payload_decode(const char *plain, size_t len, struct mx_olm_payload *out,
			  struct buf *err);

/*
 * The plaintext of a Megolm message ({"type", "content", "room_id"}) that
 * came as cipher (an MX_CIPHER item): *out (fully overwritten) holds one
 * MX_MESSAGE item with cipher's room, sender, event_id, ts and sender_key, read from
 * the content as mx_sync_parse reads an m.room.message (is_edit also when
 * the cleartext said so), or no item when the type is not m.room.message.
 * -1 with err when the plaintext is not such an object or names another
 * room (a message replayed from elsewhere).
 */
int mx_decrypted_parse(const char *plain, size_t len, const struct mx_item *cipher,
		       struct mx_sync *out, struct buf *err);

/* The m.room.encrypted event an MX_CIPHER item was read from (a new
 * reference): mx_messages_parse of {"chunk": [events]} reads it back. */
json_t *mx_cipher_event(const struct mx_item *cipher);

enum mx_filter {
	/*
	 * Timelines: m.room.message, m.room.member, m.room.encryption,
	 * m.room.encrypted, at most
	 * MX_TIMELINE_LIMIT events; state: members and encryption, members
	 * lazy-loaded (only the senders of timeline events, redundant ones
	 * included: a restarted bot has forgotten the names it was sent);
	 * account data: m.direct only; presence, ephemeral events and room
	 * account data: none; left rooms: not included.
	 */
	MX_FILTER_NORMAL,
	/* The same with timelines of MX_TIGHT_LIMIT events: the retry after
	 * a response too large to read. */
	MX_FILTER_TIGHT,
	/* No room at all (rooms: []), no account data: a response with little
	 * more than next_batch, to step over what cannot be read. */
	MX_FILTER_SKIP,
};

/* The inline filter for /sync (new reference). */
json_t *mx_sync_filter(enum mx_filter kind);

/* The RoomEventFilter for /messages pages (new reference): the timeline
 * types of MX_FILTER_NORMAL, members lazy-loaded. */
json_t *mx_messages_filter(void);

#endif
