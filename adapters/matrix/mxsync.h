/*
 * mxsync: reads a Matrix /sync response into a flat list of what the bot
 * acts on, and builds the sync filter.  Pure: no I/O, no globals.
 *
 * The adapter calls mx_sync_parse() on each response body and walks the
 * items in order.  Per joined room the order is: state items (members,
 * encryption) from "state", then the "timeline" events in order, each turned
 * into an item (members and encryption from the timeline too).  Rooms are
 * walked in the order they appear in the JSON (parse with
 * JSON_PRESERVE_ORDER or equivalent).
 *
 * (Additions, describing what the code does.)  Sections come in the order
 * rooms.join, rooms.invite, rooms.leave.  A limited timeline's MX_LIMITED
 * item comes after the room's state items and before its timeline items.
 * MX_INVITE: sender, state_key, membership, is_direct, event_id and ts are
 * those of the first m.room.member "invite" event of invite_state (usually
 * ours); displayname is the inviter's, from their own member event.
 * MX_LEFT carries the room only.  An m.room.message without a sender, or an
 * m.room.member without a state_key or membership, is skipped.  Inside JSON
 * strings, malformed UTF-8, lone surrogate escapes (\ud800) and raw control
 * characters do not fail the whole body (jansson alone would refuse it): the
 * string is read as containing a NUL, i.e. not valid text (bad_utf8 for a
 * body, the event skipped for an id).
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

enum mx_item_kind {
	MX_MESSAGE,	/* an m.room.message in a joined room's timeline */
	MX_MEMBER,	/* an m.room.member (state or timeline) in a joined room */
	MX_ENCRYPTED,	/* the room has m.room.encryption (state or timeline) */
	MX_INVITE,	/* we are invited to room (rooms.invite) */
	MX_LEFT,	/* we left or were kicked/banned (rooms.leave) */
	MX_LIMITED,	/* this joined room's timeline was limited: prev_batch in text */
};

struct mx_item {
	enum mx_item_kind kind;
	char room[MX_ID_SIZE];
	char sender[MX_ID_SIZE];	/* MESSAGE, MEMBER (the sender), INVITE (inviter if known) */
	char event_id[MX_ID_SIZE];	/* MESSAGE, MEMBER ("" if absent) */
	int64_t ts;			/* origin_server_ts, ms; 0 if absent */
	int from_timeline;		/* 1 timeline event, 0 state */
	/* MESSAGE */
	char msgtype[32];		/* "m.text", "m.notice", "m.emote"...; "" if absent/not a string */
	char text[MX_TEXT_SIZE];	/* body, valid UTF-8 (invalid → flagged, text "") */
	size_t text_len;
	int too_long;			/* body over MX_TEXT_SIZE - 1 bytes: text "" */
	int bad_utf8;
	int is_edit;			/* m.relates_to.rel_type == "m.replace": not a new command */
	/* MEMBER */
	char state_key[MX_ID_SIZE];	/* whose membership */
	char membership[16];		/* "join", "leave", "invite", "ban", "knock" */
	char displayname[MX_NAME_SIZE];	/* "" when absent; valid UTF-8 */
	int is_direct;			/* content.is_direct == true (invites) */
	/* LIMITED: prev_batch */
	char prev_batch[MX_ID_SIZE];
};

struct mx_sync {
	char next_batch[MX_ID_SIZE];
	struct mx_item *items;		/* owned */
	size_t nitems;
	/* account_data m.direct, if present in this response: a new reference
	 * to its content object (user id → array of room ids), else NULL. */
	json_t *direct;
};

/*
 * Parses a /sync response body (len bytes, need not be NUL-terminated) into
 * *out (fully overwritten).  Malformed parts are skipped (an event that is
 * not an object, a field of the wrong type), never fatal, except: the body
 * is not a JSON object, or next_batch is missing or not a string → -1 with
 * a message in err.  Event ids, room ids, user ids longer than MX_ID_SIZE-1
 * or not valid UTF-8 make their event skipped.
 */
int mx_sync_parse(const char *body, size_t len, struct mx_sync *out, struct buf *err);
void mx_sync_release(struct mx_sync *s);

/*
 * The inline filter for /sync (new reference): only m.room.message,
 * m.room.member and m.room.encryption in timelines, state: members and
 * encryption, lazy_load_members false, timeline limit `limit`; account_data:
 * m.direct only; presence and ephemeral: none.
 */
json_t *mx_sync_filter(int limit);	/* limit < 1 is read as 1 */

#endif
