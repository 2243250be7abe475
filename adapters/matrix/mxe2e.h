/*
 * mxe2e: end-to-end encryption for the Matrix adapter: the bot's device,
 * the room keys it receives and shares, decrypting and encrypting room
 * messages.  It owns the Olm account (mxcrypto.h), the Olm and Megolm
 * sessions, the devices of the people it shares keys with (mxkeys.h) and
 * the events waiting for their key (mxhold.h); it talks to the homeserver
 * and the store only through struct mxe2e_io.  docs/matrix.md, "Encrypted
 * rooms", walks through it.
 *
 * The adapter (matrix.c):
 *   - mxe2e_start() once it knows its user and device: loads or makes the
 *     account, uploads device keys, one-time keys and a fallback key;
 *   - mxe2e_sync() with each sync response, before any of its events:
 *     to-device messages (room keys over Olm), device list changes, key
 *     counts (one-time keys topped up, a used fallback key replaced);
 *   - mxe2e_take_ready() then: held events whose key is here now;
 *   - mxe2e_decrypt() for each m.room.encrypted event it would handle;
 *   - mxe2e_prepare() then mxe2e_seal() for each message to an encrypted
 *     room, just before it goes.
 *
 * What is stored (store cursors, every secret pickled with the pickle key;
 * <d> is the bot's device id, so a new device starts afresh):
 *   matrix.e2e.<d>.account          the Olm account
 *   matrix.e2e.<d>.olm.<curve>      Olm sessions with one device
 *   matrix.e2e.<d>.in.<room> <sid>  an inbound Megolm session
 *   matrix.e2e.<d>.out.<room>       the room's outbound session, and who has it
 *   matrix.e2e.<d>.dev.<user>       a user's devices (trust on first use)
 *   matrix.e2e.<d>.held.<event id>  an event waiting for its key (one row
 *                                   each; the single list .held of older
 *                                   versions is converted at the start)
 *   matrix.enc.<room>               the room's m.room.encryption settings
 * Order matters where a crash could lose a key: a room key is stored before
 * the Olm session that decrypted it, an outbound session's new index before
 * the message encrypted with it is sent, an Olm session before the
 * to-device message it encrypted.
 *
 * Trust: see mxkeys.h.  A room key is shared only with the devices of the
 * users the adapter names as the room's joined and invited members.
 */
#ifndef ADAPTERS_MATRIX_MXE2E_H
#define ADAPTERS_MATRIX_MXE2E_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "adapters/matrix/mxcrypto.h"
#include "adapters/matrix/mxsync.h"
#include "state/store.h"
#include "util/buf.h"

/* Megolm rotation, when a room's m.room.encryption does not say (and the
 * bounds its values are clamped to). */
#define MXE_ROTATION_MS_DEFAULT (7LL * 24 * 3600 * 1000)
#define MXE_ROTATION_MS_MIN (3600LL * 1000)
#define MXE_ROTATION_MSGS_DEFAULT 100
#define MXE_ROTATION_MSGS_MAX 10000

typedef void (*mxe_done_fn)(void *done_ctx, long status, const char *body, size_t len);

struct mxe2e_io {
	void *ctx;
	/*
	 * A request to the homeserver: path is from "/_matrix/...", body JSON
	 * (borrowed) or NULL.  done(done_ctx, status, body, len) is called
	 * once with the answer (status 0: none after the retries), unless the
	 * adapter stops first.  Retries of one request send the same body.
	 */
	void (*call)(void *ctx, const char *method, const char *path, const json_t *body,
		     mxe_done_fn done, void *done_ctx);
	/* Whether user is joined to room as far as the adapter knows. */
	int (*is_joined)(void *ctx, const char *room, const char *user);
	struct store *store;	/* borrowed */
	/* the clock (ms); NULL: the real one */
	int64_t (*now_ms)(void *ctx);
	/* Called once, when mxe2e_settled() becomes true after the start
	 * (the first answer to the key upload); may be NULL. */
	void (*settled)(void *ctx);
	/*
	 * Whether an event of sender in room whose key has not come may wait
	 * for it (mxhold.h): the adapter says yes for players and members of
	 * a room with a game, so that strangers cannot fill the list.  NULL:
	 * anyone's may.
	 */
	int (*may_hold)(void *ctx, const char *room, const char *sender);
};

struct mxe2e;

/*
 * A new, unstarted instance.  key: the pickle key (copied).  k0, k1: the
 * hash tables' key.  hold_max, hold_ms: mxhold's bounds (0: defaults).
 */
struct mxe2e *mxe2e_new(const struct mxe2e_io *io, const struct mxc_key *key, uint64_t k0,
			uint64_t k1, size_t hold_max, int64_t hold_ms);
/* Frees everything (libolm state wiped); no callback runs after it. */
void mxe2e_free(struct mxe2e *e);

/*
 * The bot is user, on device: loads its account (or makes one) and
 * uploads what the server lacks.  -1 with err when the stored account does
 * not open with the pickle key (the operator must restore the key).
 */
int mxe2e_start(struct mxe2e *e, const char *user, const char *device, struct buf *err);
int mxe2e_started(const struct mxe2e *e);
/*
 * Whether the homeserver has the key API the bot needs: started, and not
 * answered "unknown endpoint" (M_UNRECOGNIZED) to the first upload of a
 * device that never uploaded its keys.  A device that uploaded its keys
 * once never believes such an answer later (a homeserver cannot talk an
 * encrypting bot into plain direct chats): it is an error, tried again.
 */
int mxe2e_usable(const struct mxe2e *e);
/* Whether mxe2e_usable() is known: not started, or the device's keys were
 * uploaded once (now or in an earlier run), or the upload was answered. */
int mxe2e_settled(const struct mxe2e *e);
/* The device's ed25519 key (its fingerprint), "" before the start. */
const char *mxe2e_fingerprint(const struct mxe2e *e);

/* A sync response's to-device messages, device lists and key counts
 * (everything it learns is stored before this returns). */
void mxe2e_sync(struct mxe2e *e, const struct mx_sync *s);

/*
 * Held events whose room key is known now, as MX_CIPHER items of one room
 * (*out fully overwritten; release it): 1, or 0 when none is left.  Call
 * until 0; each comes once per call round (they stay held until
 * mxe2e_decrypt reads them, so a crash before that loses none).
 */
int mxe2e_take_ready(struct mxe2e *e, struct mx_sync *out);

/*
 * Drops the held events past their time; then cb(ctx, room, sender) for
 * each sender to tell that an event of theirs in room was lost since the
 * last call: past its time, pushed out by a newer one of theirs or of the
 * room, or not held at all (the list full, or they are in no game).  At
 * most once per room and sender every MXH_TELL_MS.
 */
void mxe2e_expire(struct mxe2e *e, void (*cb)(void *ctx, const char *room, const char *sender),
		  void *ctx);

enum mxe_verdict {
	MXE_OK,		/* decrypted: *out holds its MX_MESSAGE (or no item) */
	MXE_HELD,	/* no key yet: held (stored) until it comes */
	MXE_BAD,	/* cannot ever be read, or must not be (logged) */
};

/*
 * Decrypts cipher (an MX_CIPHER item).  *out is fully overwritten; release
 * it whatever the verdict.  A held event stays held after MXE_OK until the
 * caller, having handled it (its id in the committed sync position),
 * calls mxe2e_forget: a crash in between finds it again.  A decrypted message is checked: its key came
 * from a device of its sender (or, forwarded, from a device of a room
 * member that names one of the sender's devices), it names this room, and
 * its index was not used before by another event (a replay).
 */
enum mxe_verdict mxe2e_decrypt(struct mxe2e *e, const struct mx_item *cipher,
			       struct mx_sync *out);

/* The adapter skipped event_id (handled before): it is held no more. */
void mxe2e_forget(struct mxe2e *e, const char *event_id);

/* room has m.room.encryption (it): stored, so a restart knows before any
 * sync.  Returns 0, or -1 when the algorithm is not Megolm v1 (the bot
 * cannot take part). */
int mxe2e_room_encrypted(struct mxe2e *e, const struct mx_item *it);
/* Whether the store says room is encrypted. */
int mxe2e_room_stored_encrypted(struct mxe2e *e, const char *room);
/* user left room (or was kicked, banned): the room's outbound session is
 * not used again if they had it. */
void mxe2e_member_left(struct mxe2e *e, const char *room, const char *user);

typedef void (*mxe_ready_fn)(void *ctx, int ok);

/*
 * Makes room's outbound session ready for a message: rotated when due
 * (age, message count, a member or a device gone), shared over Olm with
 * every usable device of members (the room's joined and invited users,
 * the bot included: its other devices get it too), device lists queried
 * and one-time keys claimed as needed.  0 ready now; 1 not yet:
 * ready(ctx, ok) is called once later (ok 0: it failed, the message waits
 * for the next start); -1 not started.
 */
int mxe2e_prepare(struct mxe2e *e, const char *room, const char *const *members, size_t n,
		  mxe_ready_fn ready, void *ctx);

/*
 * Encrypts content (an m.room.message content, borrowed) for room, whose
 * session mxe2e_prepare made ready: the m.room.encrypted content (a new
 * reference; m.relates_to kept in clear, as the spec asks), or NULL with
 * err.  The session's new state is stored before this returns.
 */
json_t *mxe2e_seal(struct mxe2e *e, const char *room, const json_t *content, struct buf *err);

#endif
