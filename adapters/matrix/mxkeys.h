/*
 * mxkeys: the devices of the users the bot shares room keys with, trusted
 * on first use.  Pure: no I/O (the caller stores each user's encoding and
 * makes the requests), no globals.
 *
 * A device enters from a /keys/query answer only when its device_keys
 * object names the right user and device, offers Olm and Megolm, has both
 * identity keys, and is signed by its own ed25519 key.  The first keys seen
 * for a device id are kept for good: when a later answer gives that device
 * id other keys (a replaced or forged device), the device is blocked and
 * never gets a room key again.  New device ids are trusted when first seen
 * (trust on first use; README.md, "Encrypted rooms").  A device missing
 * from a later answer is gone (signed out): kept with its keys, so that the
 * same id coming back with other keys is still caught.
 *
 * A user's list is fresh once queried in this process and until the
 * homeserver says it changed (device_lists.changed): a list read back from
 * the store is not fresh, so it is queried again before the first share.
 *
 * Private chats (the room a player's hand goes to) are stricter, because
 * the homeserver can add a device of its own to anyone's account
 * (docs/matrix.md, "Trust"):
 *   - Cross-signing.  When the user published a master key and a
 *     self-signing key it signed, the first master key seen is kept (trust
 *     on first use), and only the devices signed by that self-signing key
 *     read their private chat: a homeserver cannot forge that signature.  A
 *     master key that changes later (or first appears after the pin, below:
 *     the homeserver could make one up) is not trusted, for good (logged):
 *     the user counts as one without cross-signing.
 *   - Without it: the user's devices are pinned when the bot first handles
 *     a command of theirs (mxk_pin); a device that appears after that is
 *     *pending* until the user approves it (mxk_approve, from a device
 *     already trusted: the adapter's `trust <device id>`).  A device that
 *     goes (signed out) or is blocked loses its approval.
 * Users never pinned keep plain trust on first use (they get no private
 * view: they have not played).
 *
 * Ownership: struct mxkeys owns its users and their devices.
 */
#ifndef ADAPTERS_MATRIX_MXKEYS_H
#define ADAPTERS_MATRIX_MXKEYS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "adapters/matrix/mxsync.h"
#include "util/strmap.h"

#define MXK_DEVICE_ID_SIZE 128
#define MXK_DEVICES_MAX 256	/* per user; more in an answer are left out */

struct mxk_device {
	char id[MXK_DEVICE_ID_SIZE];
	char curve[MX_KEY_SIZE];
	char ed[MX_KEY_SIZE];
	int blocked;		/* its keys changed after first use */
	int gone;		/* not in the latest answer */
	int approved;		/* pinned, approved, or signed while cross-signing held */
	int xsigned;		/* signed by the user's trusted self-signing key */
	int told;		/* the user was told it appeared (mxk_pending) */
	int seen_mark;		/* scratch for mxk_apply */
};

enum mxk_pin {
	MXK_UNPINNED,		/* trust on first use */
	MXK_PIN_NEXT,		/* pinned at the next answer (the list was not fresh) */
	MXK_PINNED,		/* new devices wait for approval */
};

struct mxk_user {
	struct mxk_device *dev;	/* owned */
	size_t ndev;
	int fresh;		/* queried in this process, unchanged since */
	enum mxk_pin pin;
	char msk[MX_KEY_SIZE];	/* the master key trusted on first use, "" none */
	char ssk[MX_KEY_SIZE];	/* its self-signing key in the latest answer, "" none */
	int msk_bad;		/* a master key changed or came late: not used */
	char user[];		/* the map's key */
};

struct mxkeys {
	struct strmap users;	/* user id -> struct mxk_user (owned) */
};

void mxk_init(struct mxkeys *k, uint64_t k0, uint64_t k1);
void mxk_release(struct mxkeys *k);

/* The user's entry, or NULL. */
struct mxk_user *mxk_get(const struct mxkeys *k, const char *user);
/* A new entry for user (not fresh), from stored (mxk_encode's text, or
 * NULL: no device known).  An entry already there is returned as it is. */
struct mxk_user *mxk_add(struct mxkeys *k, const char *user, const char *stored);
/* Forgets the user (device_lists.left); the store keeps the encoding. */
void mxk_drop(struct mxkeys *k, const char *user);

/*
 * Applies devices, the answer's device_keys.<user> object (NULL or absent:
 * the user has no device; a user the answer lists under "failures" is not
 * applied at all: its server could not say), to u: see above.  skip_device:
 * the bot's own device (its own user's answer lists it), or NULL.  The
 * list becomes fresh.  Returns 1 when anything stored changed (encode and
 * store it), else 0.  Logs blocked devices.
 */
int mxk_apply(struct mxk_user *u, const json_t *devices, const char *skip_device);

/*
 * Applies a whole /keys/query answer to u: its cross-signing keys
 * (master_keys.<user>, self_signing_keys.<user>; see above), then its
 * devices (mxk_apply).  Returns 1 when anything stored changed.  Logs a
 * master key that is not trusted.
 */
int mxk_apply_answer(struct mxk_user *u, const json_t *answer, const char *skip_device);

/* Whether u's cross-signing decides who reads their private chat: a
 * trusted master key that signed the current self-signing key. */
int mxk_cross_usable(const struct mxk_user *u);
/* Whether d (a device of u) may read u's private chat: usable, and signed
 * (cross-signing), or approved (pinned), or any (never pinned). */
int mxk_private_ok(const struct mxk_user *u, const struct mxk_device *d);
/* Whether d is a device of pinned u that may not read the private chat
 * yet: the one to tell u about. */
int mxk_pending(const struct mxk_user *u, const struct mxk_device *d);
/* Whether any device of u may read their private chat. */
int mxk_any_private(const struct mxk_user *u);
/*
 * Pins u's devices (their first command): those that may read the
 * private chat now are approved, later ones wait.  When the list is not
 * fresh, the next answer is the one pinned.  1 when it changed (store it),
 * 0 when u was pinned already.
 */
int mxk_pin(struct mxk_user *u);

enum mxk_approval {
	MXK_APPROVED,		/* d may read the private chat now */
	MXK_ALREADY,		/* it could already */
	MXK_UNKNOWN,		/* no usable device of u has that id */
	MXK_USE_CROSS_SIGNING,	/* u has cross-signing: only a signature will do */
};
/* Approves u's device id (the user asked, from a trusted device: the
 * caller checks that).  MXK_APPROVED changed u: store it. */
enum mxk_approval mxk_approve(struct mxk_user *u, const char *id);

/* The device of u with identity key curve, or NULL. */
const struct mxk_device *mxk_by_curve(const struct mxk_user *u, const char *curve);
/* Whether a device is usable: not blocked, not gone. */
int mxk_usable(const struct mxk_device *d);

/*
 * The one-time key an /keys/claim answer gives for user's device d
 * (one_time_keys.<user>.<d->id>: one "signed_curve25519:<id>" object with
 * "key" and a signature by d's ed25519 key) into out.  0, or -1 when there
 * is none or its signature does not check.
 */
int mxk_claimed(const json_t *answer, const char *user, const struct mxk_device *d,
		char out[MX_KEY_SIZE]);

/* u's devices as JSON text for the store (free()). */
char *mxk_encode(const struct mxk_user *u);

#endif
