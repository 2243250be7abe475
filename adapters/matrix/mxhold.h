/*
 * mxhold: encrypted room events that wait for their key.  Pure: no I/O, no
 * globals (the caller stores the encoding and passes the time).
 *
 * A Megolm message can arrive before the to-device message with its room
 * key (they travel separately, often over federation).  Such an event is
 * held here, keyed by its event id, until a key for its room and session
 * arrives (mxh_ready), and is then handled like any timeline event: once,
 * since its event id goes into the sync cursor's list when it runs and is
 * removed from here right after (docs/matrix.md, "Encrypted rooms").
 *
 * Bounded: at most max events, MXH_PER_SENDER of them from one sender (a
 * new one pushes that sender's oldest out, or the oldest of all), none
 * longer than MXH_CIPHER_MAX, each for at most ttl_ms (mxh_expire hands
 * back the ones past it): a sender whose keys never come, or who sends
 * undecryptable events on purpose, cannot make the list (and the store
 * writes of it) grow, nor push out more than a few of anybody else's.
 *
 * Ownership: struct mxh owns its events and their JSON.
 */
#ifndef ADAPTERS_MATRIX_MXHOLD_H
#define ADAPTERS_MATRIX_MXHOLD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "adapters/matrix/mxsync.h"

#define MXH_MAX 256			/* events held at most */
#define MXH_PER_SENDER 16		/* of them from one sender */
#define MXH_TTL_MS (15 * 60 * 1000)	/* how long one waits at most */
/* A longer ciphertext is not held (a command decrypts to at most 4 KB). */
#define MXH_CIPHER_MAX 8192

struct mxh_event {
	char room[MX_ID_SIZE];
	char event_id[MX_ID_SIZE];
	char session_id[MX_KEY_SIZE];
	char sender[MX_ID_SIZE];
	int64_t since;		/* when it was first held (ms) */
	json_t *ev;		/* the event (mx_cipher_event), owned */
};

struct mxh {
	struct mxh_event *v;	/* oldest first */
	size_t n, cap;
	size_t max;		/* MXH_MAX unless set */
	int64_t ttl_ms;		/* MXH_TTL_MS unless set */
};

void mxh_init(struct mxh *h, size_t max, int64_t ttl_ms);
void mxh_release(struct mxh *h);

/*
 * Holds cipher (an MX_CIPHER item) from now.  1 when it was added, 0 when
 * an event of that id is held already, -1 when it is too long to hold.
 * When the list (or the sender's share) is full, the oldest (of the
 * sender's) goes first: it is moved into *dropped (the caller logs it and
 * releases dropped->ev) and *ndropped is 1, else 0.
 */
int mxh_add(struct mxh *h, const struct mx_item *cipher, int64_t now,
	    struct mxh_event *dropped, int *ndropped);
/* Forgets event_id: 1 when it was held. */
int mxh_remove(struct mxh *h, const char *event_id);
int mxh_has(const struct mxh *h, const char *event_id);

/*
 * The held events of room whose session is session_id (all sessions of the
 * room when session_id is NULL), oldest first, read back into *out as
 * MX_CIPHER items (fully overwritten; release it).  They stay held until
 * mxh_remove.  Returns how many.
 */
size_t mxh_ready(const struct mxh *h, const char *room, const char *session_id,
		 struct mx_sync *out);

/*
 * Takes out every event held longer than ttl_ms: for each, cb(ctx, e) (e is
 * valid during the call).  Returns how many went.
 */
size_t mxh_expire(struct mxh *h, int64_t now,
		  void (*cb)(void *ctx, const struct mxh_event *e), void *ctx);

/* The list as JSON text for the store (free()), and back: 0, or -1 when
 * text is not such a list (h is then empty).  Entries that do not read
 * back are skipped. */
char *mxh_encode(const struct mxh *h);
int mxh_decode(struct mxh *h, const char *text);

#endif
