/*
 * mxe2eint: end-to-end encryption's shared state, private to the mxe2e*.c
 * files (callers use mxe2e.h).  Owns struct mxe2e and what it holds: Olm
 * sessions per device (struct olmdev), inbound Megolm sessions (struct
 * insess), room keys waiting for their checks (struct pending), the rooms
 * the bot sends to encrypted (struct outroom, with its devices, waiters and
 * unreachable devices), requests in flight (struct pend); the limits they
 * share; and the functions one mxe2e file calls in another.
 */
#ifndef ADAPTERS_MATRIX_MXE2EINT_H
#define ADAPTERS_MATRIX_MXE2EINT_H

#include "adapters/matrix/mxe2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/matrix/mxhold.h"
#include "adapters/matrix/mxkeys.h"
#include "util/logging.h"
#include "util/meters.h"
#include "util/strmap.h"

#define API "/_matrix/client/v3"
#define OLM_PER_DEVICE 4	/* Olm sessions kept with one device */
#define CACHE_MAX 4096		/* sessions in memory; beyond, read again from the store */
#define HANDLED_MAX 512		/* handled indexes kept above a session's floor */
#define IN_PER_SENDER 32	/* inbound sessions kept per sender and room */
#define PENDING_MAX 256		/* room keys waiting for their checks */
#define PENDING_PER_SENDER 16	/* of them from one sender */
#define PENDING_MS (15 * 60 * 1000)	/* how long one waits at most */
#define UNREACHABLE_MS (10 * 60 * 1000)	/* a device without one-time keys: asked again after */
#define QUERY_TIMEOUT_MS 10000

struct olmdev {
	struct mxc_olm *s[OLM_PER_DEVICE];	/* most recently used first */
	size_t n;
	char curve[];				/* the map's key */
};

/*
 * An inbound Megolm session: one sender's copy of (room, session id).  Its
 * key, in the map and (after "matrix.e2e.<d>.in.") in the store, is
 * "<room> <session id> <user> <curve>": every member holds every other
 * member's session key, so a copy sent by someone else is another entry,
 * which decrypts only its own sender's events (no squatting).
 */
struct insess {
	struct mxc_in *s;
	char room[MX_ID_SIZE];
	char session_id[MX_KEY_SIZE];
	char sender_key[MX_KEY_SIZE];	/* the device that made it (curve25519) */
	char user[MX_ID_SIZE];		/* its user */
	char ed[MX_KEY_SIZE];		/* that device's ed25519 key */
	int64_t t;			/* when it arrived (ms): the oldest go first */
	/* replays: every index below floor was handled (or cannot be
	 * decrypted), and so were those in h (ascending, above floor) */
	uint32_t floor;
	uint32_t *h;
	size_t nh;
	char key[];			/* "<room> <sid> <user> <curve>" */
};

/*
 * A room key whose checks have not finished (the sender's membership or
 * devices are being asked for): held here and in the store, sealed with
 * the pickle key (the Olm message that carried it is used up), under
 * "matrix.e2e.<d>.pk.<its insess key>".
 */
struct pending {
	struct mxc_in *in;		/* the session (owned) */
	char room[MX_ID_SIZE];
	char sid[MX_KEY_SIZE];
	char user[MX_ID_SIZE];		/* who sent it (the Olm envelope's sender) */
	char dcurve[MX_KEY_SIZE];	/* from their device with these keys */
	char ded[MX_KEY_SIZE];
	char scurve[MX_KEY_SIZE];	/* the session's device */
	char sed[MX_KEY_SIZE];
	int64_t t;			/* when it arrived */
	int member;			/* the homeserver said the sender is in the room */
	int asking;			/* that question is on its way */
	int queried;			/* the sender's devices were asked for it */
	int waiting;			/* an answer is awaited */
	int failed;			/* a request failed: again at the next sync */
};

struct devref {
	char user[MX_ID_SIZE];
	char device[MXK_DEVICE_ID_SIZE];
	char curve[MX_KEY_SIZE];
};

struct unreach {
	char curve[MX_KEY_SIZE];
	int64_t until;
};

struct waiter {
	struct waiter *next;
	mxe_ready_fn fn;
	void *ctx;
};

/* A room the bot sends to in encrypted form. */
struct outroom {
	struct mxc_out *out;		/* NULL: none (made at the next prepare) */
	int64_t created;
	struct devref *sh;		/* the devices that have out's key */
	size_t nsh;
	int64_t rot_ms;
	long rot_msgs;
	char **members;			/* of the current prepare (owned) */
	size_t nmembers;
	struct waiter *waiters;
	int busy;			/* a claim or a key share in flight */
	struct devref *inflight;	/* the devices of that key share */
	size_t ninflight;
	struct unreach *unr;		/* devices without one-time keys */
	size_t nunr;
	char priv[MX_ID_SIZE];		/* whose private chat it is ("" none), per prepare */
	char room[];			/* the map's key */
};

/* The context of a request in flight: freed at mxe2e_free when the
 * adapter stopped before its answer. */
struct pend {
	struct pend *prev, *next;
	struct mxe2e *e;
	char room[MX_ID_SIZE];
	char user[MX_ID_SIZE];	/* a membership question: whose */
};

struct mxe2e {
	struct mxe2e_io io;
	struct mxc_key key;
	uint64_t k0, k1;
	int started;
	char user[MX_ID_SIZE];
	char device[MXK_DEVICE_ID_SIZE];
	struct mxc_account *acc;
	int uploaded;		/* the device keys are on the server */
	int uploading;
	/* the next sync response may have been asked before the server had
	 * the last upload: its key counts are from before it */
	int counts_old;
	int no_api;		/* the homeserver has no key API (mxe2e_usable) */
	int settled;		/* mxe2e_settled */
	long otk_count;		/* on the server, -1 unknown */
	int need_fallback;
	int acc_unsaved;	/* the account's last store failed */
	struct strmap olm;	/* curve -> struct olmdev */
	struct strmap in;	/* "<room> <sid> <user> <curve>" -> struct insess */
	struct pending *pk;	/* room keys waiting for their checks */
	size_t npk;
	void (*checked_fn)(void *ctx);	/* mxe2e_checking's waiter */
	void *checked_ctx;
	char last_ref[MXE_REF_SIZE];	/* mxe2e_ref */
	struct strmap out;	/* room -> struct outroom */
	struct mxkeys keys;
	struct mxh held;
	int querying;
	char **qnext;		/* users for the next device query */
	size_t nqnext;
	char **qnow;		/* users of the query in flight */
	size_t nqnow;
	char (*ready_done)[MX_ID_SIZE];	/* rooms mxe2e_take_ready gave this round */
	size_t nready_done;
	char (*untold)[2][MX_ID_SIZE];	/* (room, sender) to tell at mxe2e_expire */
	size_t nuntold;
	struct pend pend;	/* list head */
};

/* What the mxe2e files call in one another, by the file that defines it. */

/* mxe2e.c */
void mxe_call(struct mxe2e *e, const char *method, const char *path, const json_t *body,
	      mxe_done_fn done, struct pend *p);
const char *mxe_ekey(struct mxe2e *e, struct buf *b, const char *kind, const char *a,
		     const char *c);
void mxe_group4(const char *key, char *out, size_t size);
void mxe_json_wipe_decref(json_t *j, const char *member);
void mxe_kv_del(struct mxe2e *e, const char *key);
char *mxe_kv_get(struct mxe2e *e, const char *key);
int mxe_kv_set(struct mxe2e *e, const char *key, const char *value);
int mxe_kv_set_json(struct mxe2e *e, const char *key, json_t *j);
int64_t mxe_now_ms(struct mxe2e *e);
void mxe_pend_free(struct pend *p);
struct pend *mxe_pend_new(struct mxe2e *e, const char *room);
json_t *mxe_pickle_json(char *pickle);

/* mxe2eolm.c */
int mxe_account_save(struct mxe2e *e);
void mxe_maybe_upload(struct mxe2e *e);
void mxe_olmdev_free(struct olmdev *d);
void mxe_olmdev_front(struct olmdev *d, struct mxc_olm *s);
struct olmdev *mxe_olmdev_get(struct mxe2e *e, const char *curve);
int mxe_olmdev_save(struct mxe2e *e, struct olmdev *d);

/* mxe2ein.c */
void mxe_cap_sender(struct mxe2e *e, const char *room, const char *user);
int mxe_handled_add(struct insess *s, uint32_t index);
int mxe_handled_has(const struct insess *s, uint32_t index);
struct insess *mxe_in_find(struct mxe2e *e, const char *room, const char *sender,
			   const char *curve, const char *sid);
struct insess *mxe_in_get(struct mxe2e *e, const char *room, const char *sid,
			  const char *user, const char *curve);
void mxe_insess_free(struct insess *s);
struct insess *mxe_insess_new(struct mxe2e *e, const char *room, const char *sid,
			      const char *user, const char *curve);
int mxe_insess_save(struct mxe2e *e, struct insess *s);
int mxe_key_here(struct mxe2e *e, const char *room, const char *sender, const char *sid);
int mxe_owner_ok(struct mxe2e *e, const struct insess *s, const char *sender);
int mxe_plain_id(const char *s);

/* mxe2echeck.c */
void mxe_pk_remove(struct mxe2e *e, size_t i);
void mxe_pk_run(struct mxe2e *e);
int mxe_room_key_in(struct mxe2e *e, const struct mx_olm_payload *pl,
		    const struct mx_olm_msg *m);

/* mxe2edecrypt.c */
void mxe_held_load(struct mxe2e *e);

/* mxe2edev.c */
void mxe_free_list(char **v, size_t n);
void mxe_query_add(struct mxe2e *e, const char *user);
void mxe_query_start(struct mxe2e *e);
struct mxk_user *mxe_user_get(struct mxe2e *e, const char *user);
struct mxk_user *mxe_user_peek(struct mxe2e *e, const char *user);

/* mxe2eout.c */
void mxe_notify(struct outroom *r, int ok);
void mxe_outroom_free(struct outroom *r);
void mxe_room_kick(struct mxe2e *e, struct outroom *r);

#endif
