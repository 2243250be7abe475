/*
 * mxhold: encrypted room events that wait for their key.  Pure: no I/O, no
 * globals (the caller stores each event's row and passes the time).
 *
 * A Megolm message can arrive before the to-device message with its room
 * key (they travel separately, often over federation).  Such an event is
 * held here, keyed by its event id, until a key for its room and session
 * arrives (mxh_ready), and is then handled like any timeline event: once,
 * since its event id goes into the sync cursor's list when it runs and is
 * removed from here right after (docs/matrix.md, "Encrypted rooms").
 *
 * Anybody in a room can send events nobody can decrypt, so the list is
 * bounded in a way that strangers can neither push out a player's waiting
 * command nor make the bot work for them:
 *   - at most max events (MXH_MAX), MXH_PER_SENDER of them from one sender
 *     and MXH_PER_ROOM in one room, none longer than MXH_CIPHER_MAX, each
 *     for at most ttl_ms (mxh_expire hands back the ones past it);
 *   - a new event pushes out only an event of its own sender (that
 *     sender's oldest, when its share is full) or of its own room (when the
 *     room's share is full: the oldest of whoever holds the most there, the
 *     most recent sender on a tie); when the whole list is full and the
 *     sender holds nothing, the new event is refused, not somebody else's;
 *   - each sender has a token bucket for undecryptable events
 *     (MXH_RATE_BURST, one more every MXH_RATE_MS): beyond it the caller
 *     holds nothing of theirs (mxh_rate);
 *   - a sender is told about their lost events at most once per room every
 *     MXH_TELL_MS (mxh_tell), whatever the reason.
 * Who may have events held at all (players, members of rooms with a game)
 * is the caller's question: this module does not know the games.
 *
 * Each event is stored on its own (mxh_row, mxh_restore: one store row per
 * event, written when it is held and deleted when it goes), so a hold
 * costs one small write however long the list is.  mxh_restore_list reads
 * the single list that older versions stored.
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
#define MXH_PER_ROOM 64			/* of them in one room */
#define MXH_TTL_MS (15 * 60 * 1000)	/* how long one waits at most */
/* A longer ciphertext is not held (a command decrypts to at most 4 KB). */
#define MXH_CIPHER_MAX 8192
/* Undecryptable events a sender may have held in a burst, and the pace
 * after it: one every MXH_RATE_MS (people do not type faster). */
#define MXH_RATE_BURST 8
#define MXH_RATE_MS 4000
/* mxh_rate says "log it" at most once per sender in this time */
#define MXH_RATE_LOG_MS (60 * 1000)
/* A sender is told about lost events at most once per room in this time. */
#define MXH_TELL_MS (60 * 1000)
/* Senders (and room, sender pairs) whose rate (telling) is remembered: a
 * full bucket is forgotten, and beyond this the fullest one goes. */
#define MXH_TRACK_MAX 1024

struct mxh_event {
	char room[MX_ID_SIZE];
	char event_id[MX_ID_SIZE];
	char session_id[MX_KEY_SIZE];
	char sender_key[MX_KEY_SIZE];	/* the session's device (curve25519), "" unknown */
	char sender[MX_ID_SIZE];
	int64_t since;		/* when it was first held (ms) */
	json_t *ev;		/* the event (mx_cipher_event), owned */
};

/* A sender's token bucket: full again at `full` (ms). */
struct mxh_rate {
	char sender[MX_ID_SIZE];
	int64_t full;
	int64_t quiet_until;	/* not logged again before */
};

/* When sender was last told about room. */
struct mxh_told {
	char room[MX_ID_SIZE];
	char sender[MX_ID_SIZE];
	int64_t at;
};

struct mxh {
	struct mxh_event *v;	/* oldest first */
	size_t n, cap;
	size_t max;		/* MXH_MAX unless set */
	int64_t ttl_ms;		/* MXH_TTL_MS unless set */
	struct mxh_rate *rate;	/* senders' buckets (mxh_rate) */
	size_t nrate, ratecap;
	struct mxh_told *told;	/* who was told lately (mxh_tell) */
	size_t ntold, toldcap;
};

void mxh_init(struct mxh *h, size_t max, int64_t ttl_ms);
void mxh_release(struct mxh *h);

enum mxh_added {
	MXH_BAD = -3,		/* mxh_restore: not a row (of that event) */
	MXH_FULL = -2,		/* refused: the list is full and nothing of the
				 * sender's or (when it is full) the room's can go */
	MXH_TOO_LONG = -1,	/* refused: too long to hold */
	MXH_KNOWN = 0,		/* an event of that id is held already */
	MXH_ADDED = 1,
};

/*
 * Holds cipher (an MX_CIPHER item) from now.  When the sender's share or
 * the room's is full (or the list is, and the sender has one held), an
 * event of that sender or room goes first: it is moved into *dropped (the
 * caller deletes its row, tells its sender and releases dropped->ev) and
 * *ndropped is 1, else 0.  *added (may be NULL) points at the held event
 * after MXH_ADDED, valid until the list changes.  The rate is not checked
 * here (mxh_rate).
 */
enum mxh_added mxh_add(struct mxh *h, const struct mx_item *cipher, int64_t now,
		       struct mxh_event *dropped, int *ndropped,
		       const struct mxh_event **added);
/* Forgets event_id: 1 when it was held. */
int mxh_remove(struct mxh *h, const char *event_id);
int mxh_has(const struct mxh *h, const char *event_id);

/*
 * Takes one of sender's tokens at now: 1, or 0 when the sender is over the
 * rate (nothing of theirs should be held now); then *log_it is 1 the
 * first time in MXH_RATE_LOG_MS, else 0.
 */
int mxh_rate(struct mxh *h, const char *sender, int64_t now, int *log_it);

/*
 * Whether sender should be told now that an event of theirs in room was
 * lost (1, and it is remembered), or was told less than MXH_TELL_MS ago (0).
 */
int mxh_tell(struct mxh *h, const char *room, const char *sender, int64_t now);

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

/* e as the JSON text of its store row (free()). */
char *mxh_row(const struct mxh_event *e);
/*
 * A stored row back into the list, in its place by age: MXH_ADDED, MXH_KNOWN
 * (held already), MXH_FULL (max reached) or MXH_BAD (text is not a row, or
 * not of event_id when that is not NULL); the caller deletes a row that
 * was refused (MXH_FULL, MXH_BAD).  Only max bounds it: what was held
 * before stays held, whoever's it is (the shares bound what comes next).
 */
enum mxh_added mxh_restore(struct mxh *h, const char *event_id, const char *text);
/*
 * The single list older versions stored: each entry not held yet is
 * restored, then cb(ctx, e) is called for it (the caller stores its row).
 * 0, or -1 when text is not such a list.  Entries that do not read back
 * are skipped.
 */
int mxh_restore_list(struct mxh *h, const char *text,
		     void (*cb)(void *ctx, const struct mxh_event *e), void *ctx);

#endif
