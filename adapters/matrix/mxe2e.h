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
 *   - mxe2e_checking() then: the room keys that came wait for their checks
 *     (their senders' devices or membership asked for), and the batch
 *     waits for them;
 *   - mxe2e_take_ready() then: held events whose key is here now;
 *   - mxe2e_decrypt() for each m.room.encrypted event it would handle,
 *     mxe2e_ref() and, once the event is handled (its command committed
 *     with the ref in the sync position), mxe2e_handled();
 *   - mxe2e_handled() at start-up for every ref in the stored position;
 *   - mxe2e_room_left() when the bot leaves a room;
 *   - mxe2e_prepare() then mxe2e_seal() for each message to an encrypted
 *     room, just before it goes.
 *
 * What is stored (store cursors, every secret pickled with the pickle key;
 * <d> is the bot's device id, so a new device starts afresh):
 *   matrix.e2e.<d>.account          the Olm account
 *   matrix.e2e.<d>.olm.<curve>      Olm sessions with one device (listed ones)
 *   matrix.e2e.<d>.in.<room> <sid> <user> <curve>
 *                                   an inbound Megolm session: one sender
 *                                   device's copy (user "*": forwarded), with
 *                                   the indexes handled ("<room> <sid>": an
 *                                   older version's, moved when next used)
 *   matrix.e2e.<d>.pk.<room> <sid> <user> <curve>
 *                                   a room key waiting for its checks
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
 * users the adapter names as the room's joined and invited members; in a
 * player's private chat (the room their hand goes to), only with their
 * devices that may read it (mxk_private_ok: cross-signed, or pinned and
 * approved) and the bot's own.  A room key is taken only for a room the
 * bot is in, from a member, over Olm from a listed, usable device of
 * theirs that the payload names; a forwarded one only from such a device
 * of the bot's own account.  Every store failure that would let a ratchet
 * step be used twice stops what would use it: a message is not sealed, a
 * key share not sent.
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
	/* user's membership of room as far as the adapter knows: 1 joined,
	 * 2 invited, 0 neither (left, banned, never), -1 unknown (lazy-loaded
	 * members: mxe2e asks the homeserver).  NULL: always unknown. */
	int (*is_joined)(void *ctx, const char *room, const char *user);
	struct store *store;	/* borrowed */
	/* the clock (ms); NULL: the real one */
	int64_t (*now_ms)(void *ctx);
	/* Called once, when mxe2e_settled() becomes true after the start
	 * (the first answer to the key upload); may be NULL. */
	void (*settled)(void *ctx);
	/*
	 * A device appeared on the account of user, whose devices are pinned,
	 * that does not get their private chat's key (NULL: nobody is told):
	 * device (its id), name (its display name as the homeserver says,
	 * untrusted, "" none), fingerprint (its ed25519 key in groups of four),
	 * cross (1: user has cross-signing and the device is not signed; 0: it
	 * waits for `trust`).  Once per device (stored); called after the
	 * answer that showed it is applied.
	 */
	void (*new_device)(void *ctx, const char *user, const char *device, const char *name,
			   const char *fingerprint, int cross);
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
 * Whether room keys that came are waiting for their checks (a request on
 * its way): 1, and fn(ctx) is called once when none waits any more (never
 * after mxe2e_free); 0 when none waits (fn is not called).
 */
int mxe2e_checking(struct mxe2e *e, void (*fn)(void *ctx), void *ctx);

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
 * calls mxe2e_forget: a crash in between finds it again.  The session is
 * the one the sender's device made (by the event's sender_key, or among
 * the sender's devices when it names none), and the sender must still own
 * that device (listed, not blocked); the plaintext must name this room;
 * and its (session, index) must not be handled already (a replay, under
 * the same event id or another).
 */
enum mxe_verdict mxe2e_decrypt(struct mxe2e *e, const struct mx_item *cipher,
			       struct mx_sync *out);

/* A ref: "<index> <room> <session id> <user> <curve>", no newline. */
#define MXE_REF_SIZE 640
/* The ref of the event the last mxe2e_decrypt read (MXE_OK), valid until
 * the next call; "" after any other verdict. */
const char *mxe2e_ref(const struct mxe2e *e);
/*
 * The event of ref was handled (its command committed, or it was no
 * command): its index is refused from now on, and this is stored.  The
 * adapter carries the refs of its batch's commands in the sync position it
 * commits with them and calls this again for each at start-up, so that a
 * crash between the commit and this call loses nothing.  A ref of a
 * session the bot no longer has is ignored.
 */
void mxe2e_handled(struct mxe2e *e, const char *ref);

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
/* The bot left room (or was kicked, banned): the room keys it received
 * there go (store included), and so do its own outbound session there and
 * the room keys still waiting for their checks. */
void mxe2e_room_left(struct mxe2e *e, const char *room);

/*
 * user's command is being handled: the first one pins their devices
 * (mxk_pin; stored).  Devices that appear later read their private chat
 * only once approved (mxe2e_trust) or, with cross-signing, signed.
 */
void mxe2e_pin(struct mxe2e *e, const char *user);

enum mxe_trust {
	MXE_TRUST_OK,		/* approved: it gets the private chat's key from now on */
	MXE_TRUST_ALREADY,	/* it could read it already */
	MXE_TRUST_NOT_FROM_TRUSTED,	/* the request did not come from a trusted device */
	MXE_TRUST_UNKNOWN,	/* user has no usable device with that id */
	MXE_TRUST_CROSS_SIGNING,	/* user has cross-signing: verify it instead */
	MXE_TRUST_OFF,		/* no encryption here (a message in clear) */
};

/*
 * user asks, in their private chat, that their device `device` read it:
 * sender_key is the curve25519 key of the device the request came from
 * (the decrypted message's sender_key; "" not encrypted), which must be
 * one of user's devices that may read it already.  Stored before this
 * returns; the next message to the private chat shares its key.
 */
enum mxe_trust mxe2e_trust(struct mxe2e *e, const char *user, const char *sender_key,
			   const char *device);

typedef void (*mxe_ready_fn)(void *ctx, int ok);

/*
 * Makes room's outbound session ready for a message: rotated when due
 * (age, message count, a member or a device gone, a device of
 * private_user that may not read it any more), shared over Olm with every
 * usable device of members (the room's joined and invited users, the bot
 * included: its other devices get it too), device lists queried and
 * one-time keys claimed as needed.  private_user: the player whose private
 * chat room is (their devices get the key only when mxk_private_ok), or
 * NULL.  0 ready now; 1 not yet: ready(ctx, ok) is called once later (ok
 * 0: it failed, the message waits for the next start); -1 not started.
 */
int mxe2e_prepare(struct mxe2e *e, const char *room, const char *const *members, size_t n,
		  const char *private_user, mxe_ready_fn ready, void *ctx);

/*
 * Encrypts content (an m.room.message content, borrowed) for room, whose
 * session mxe2e_prepare made ready: the m.room.encrypted content (a new
 * reference; m.relates_to kept in clear, as the spec asks), or NULL with
 * err.  The session's new state is stored before this returns.
 */
json_t *mxe2e_seal(struct mxe2e *e, const char *room, const json_t *content, struct buf *err);

#endif
