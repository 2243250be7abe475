/*
 * mxint: the Matrix adapter's shared state, private to adapters/matrix/.
 * Owns the definitions every room of the adapter reads: struct matrix (one
 * adapter), its rooms (struct mroom), DM rooms (struct dm) and their
 * waiting parts, requests and their lanes (struct mxreq, struct lane),
 * pictures on their way (struct mximg), messages being sent (struct post)
 * and the sync batch (struct batch, struct unit); the constants they share;
 * and the functions one room calls in another.  Nothing outside
 * adapters/matrix/ includes it: the adapter's interface is matrix.h.
 */
#ifndef ADAPTERS_MATRIX_MXINT_H
#define ADAPTERS_MATRIX_MXINT_H

#include "adapters/matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <uv.h>

#include "adapters/http.h"
#include "adapters/matrix/mxattach.h"
#include "adapters/matrix/mxcrypto.h"
#include "adapters/matrix/mxe2e.h"
#include "adapters/matrix/mxhtml.h"
#include "adapters/matrix/mxroom.h"
#include "adapters/matrix/mxsync.h"
#include "util/logging.h"
#include "util/meters.h"
#include "util/rng.h"
#include "util/strmap.h"
#include "util/text.h"

#define API "/_matrix/client/v3"
#define CURSOR_SINCE "matrix.since"
#define CURSOR_DEVICE "matrix.device"
#define CURSOR_DM_PREFIX "matrix.dm."
#define MAX_ATTEMPTS 8
#define BACKOFF_BASE_MS 500
#define BACKOFF_CAP_MS 30000
#define SYNC_RETRY_MS 5000
#define DONE_MAX 512		/* events handled within one sync batch */
/* A gap before a limited timeline is read back with /messages, this many
 * events a page and at most BACKFILL_MAX events a room. */
#define BACKFILL_PAGE 50
#define BACKFILL_MAX 500
/* Pseudo-status of a request whose answer was over the size cap. */
#define STATUS_TOO_BIG (-2)

/* Request contexts in flight, freed at stop (the HTTP client drops them
 * without calling back). */
struct live {
	struct live *prev, *next;
	void (*release)(struct live *l);
	int is_req;		/* a struct mxreq (mxm_unpark looks for those) */
};

struct mroom {
	char id[MX_ID_SIZE];	/* the rooms map's key */
	size_t index;		/* in matrix.roomv */
	struct mx_members mem;
	int encrypted;		/* Megolm-encrypted, for good (enc_known: looked up) */
	int enc_known;
	/* an m.room.encryption the bot cannot take part in (another
	 * algorithm, or none) in a room it never knew as Megolm-encrypted:
	 * nothing but the refusal notice may go there */
	int foreign;
	int refused;		/* the bot cannot take part: told and left */
	int touched;		/* membership changed in this batch */
	/* the bot's last public answer here, which a newer answer with the
	 * same first line replaces (m.replace) while the room has moved on by
	 * at most EDIT_WINDOW other messages: lobby and status summaries */
	char last_event[MX_ID_SIZE];
	char last_title[128];
	int since_last;
	int answer_pending;	/* that answer is on its way; no event id yet */
	/* the room's space (its first valid m.space.parent's room id): the
	 * community its games are rated in; "" when none */
	char space[MX_ID_SIZE];
};

#define EDIT_WINDOW 4

struct post;

/* One private message (a part of one) on its way to a player's DM room. */
struct part {
	struct part *next;
	json_t *content;	/* one m.room.message content */
	struct mximg *img;	/* an m.image's picture (a reference), or NULL */
	char txn[112];		/* the part's txn id, before the room's tag */
	struct post *post;	/* borrowed: counts the parts delivered */
	char origin_room[MX_ID_SIZE];	/* where to say "look in your DMs" */
};

enum dm_busy {
	DM_IDLE,
	DM_CREATING,	/* createRoom in flight */
	DM_CHECKING,	/* the member list of room is being fetched */
};

struct dm {
	char user[MX_ID_SIZE];	/* the dms map's key */
	char room[MX_ID_SIZE];	/* "" while none */
	int told;		/* the game room was told where to look */
	enum dm_busy busy;
	struct part *waiting, **tail;	/* until the room is known to be private */
};

struct matrix;
typedef void (*mx_fn)(struct matrix *m, long status, const char *errcode,
		      const char *body, size_t len, void *ctx);

struct mxreq;

/*
 * A picture on its way (struct outmsg.image): uploaded to the media
 * repository by a request in its room's lane, just before the m.image
 * event (waiter) that shows it, which the upload's answer completes with
 * the picture's mxc:// URI (in an encrypted room: the `file` object of its
 * encrypted copy), or turns into a text notice of the board when the
 * upload fails; the lane keeps every message in order.  Counted: the
 * event's request (or the private part waiting for its room) and the
 * upload each hold a reference.
 */
struct mximg {
	int refs;
	unsigned char *png;
	size_t len;
	int width, height;
	char *alt;		/* the text board: the event's body */
	char name[64];
	int as_text;		/* its event goes as a notice of alt */
	struct mxreq *waiter;	/* the event the upload completes */
};

struct lane;

struct mxreq {
	struct live live;	/* first */
	struct matrix *m;
	char method[8];
	char *path;
	char *body;
	struct lane *lane;
	struct mxreq *next;	/* in its lane */
	int attempts;
	int auth;
	int counted;		/* in matrix.nqueued */
	long timeout_ms;
	mx_fn cb;
	void *ctx;
	uv_timer_t timer;
	int timer_on;		/* initialised: must be closed */
	int parked;		/* waiting for a new login */
	/* an m.replace of the room's last answer, whose event id was not
	 * known yet when queued (see send_public_answer) */
	char edit_room[MX_ID_SIZE];
	/* a private message part for this user: checked again just before it
	 * goes (the room may have gained a member meanwhile) */
	char priv_user[MX_ID_SIZE];
	char priv_txn[112];
	/* an m.room.message: encrypted just before it goes when its room is
	 * (mxm_seal); plain keeps the plaintext body (a private part that goes
	 * back to its player's queue) */
	int room_msg;
	int refusal;		/* REQ_REFUSAL */
	int sealed;
	char *plain;
	int early;		/* waits for the first sync: is its room encrypted? */
	/* an m.image event: its picture, uploaded by the request before it */
	struct mximg *img;
	/* the upload of a picture: body is body_len bytes of it, ctype its
	 * type (else body is JSON text) */
	struct mximg *upload_of;
	size_t body_len;
	const char *ctype;
	/* that upload, to an encrypted room: body is the picture encrypted
	 * under this key (made once: a retry sends the same bytes) */
	struct mxa_file *att;
	/* an m.image event whose `file` holds an attachment key: it may only
	 * go sealed */
	int has_key;
};

struct lane {
	char room[MX_ID_SIZE];	/* the lanes map's key */
	struct mxreq *head, *tail;
};

enum sync_mode {
	SYNC_NORMAL,
	SYNC_TIGHT,	/* the last response was too large: smaller timelines */
	SYNC_SKIP,	/* that too: step over it, read the gaps with /messages */
};

/* A run of items to handle in order (reverse: from the last). */
struct unit {
	struct unit *next;
	struct mx_sync s;
	unsigned char *before_join;	/* per item, or NULL: none is */
	int reverse;
	int gap;			/* read back: older than the batch */
	size_t done;			/* items handled */
};

/*
 * The sync batch being handled: the response, the gaps of its limited
 * timelines read back first (one room at a time), then its items.  The
 * position stays m->since (plus the events done) until the whole batch
 * is handled.
 */
struct batch {
	int on;
	int initial;		/* the first sync of a fresh store */
	int main_queued;	/* the response's items are in the run list */
	struct mx_sync main;
	unsigned char *main_before_join;
	/* rooms whose gap back to m->since is read before main's items */
	char (*gap_room)[MX_ID_SIZE];
	char (*gap_from)[MX_ID_SIZE];
	size_t ngap, gap_next;
	int fetching;		/* a /messages or /joined_rooms request in flight */
	int waiting_rooms;	/* skip mode: /joined_rooms not answered yet */
	/* the room being read back: its pages, newest first */
	struct unit *pages;
	size_t page_events;
	int gap_ended;		/* its start (or the bot's join) was reached */
	struct unit *run;	/* what is handled now, in order */
	int paused;		/* the send queue is full */
	int keywait;		/* its room keys are being checked (mxe2e_checking) */
};

struct matrix {
	struct adapter base;
	uv_loop_t *loop;
	struct http_client *http;
	struct store *store;
	char *homeserver, *token, *user, *password, *prefix, *allow;
	char me[MX_ID_SIZE];
	char device[64];
	int started, stopping, exit_code;
	int logging_in;
	int synced;		/* a sync succeeded in this process */
	struct rng rng;
	uint64_t k0, k1;	/* the hash tables' key */
	uint64_t txn_base;
	unsigned txn_counter;

	char *since;		/* NULL before the first sync */
	char done[DONE_MAX][MX_ID_SIZE];
	size_t ndone;
	/* the refs (mxe2e_ref) of the encrypted commands among them */
	char (*refs)[MXE_REF_SIZE];
	size_t nrefs;
	const char *cur_ref;	/* the encrypted event being handled, or NULL */
	enum sync_mode mode;
	struct batch batch;
	json_t *direct;		/* our m.direct content */
	json_t *undirect;	/* rooms we took out of it (user -> [rooms]) */
	int direct_busy;	/* a PUT of it is in flight */
	int direct_dirty;	/* it changed since that PUT was made */

	struct strmap rooms;	/* id -> struct mroom */
	struct mroom **roomv;	/* the same, for walking */
	size_t nrooms, caprooms;
	struct strmap dms;	/* user -> struct dm */
	struct strmap dm_rooms;	/* room -> struct dm, for the DMs in memory */
	struct strmap lanes;	/* room -> struct lane */
	struct mxe2e *e2e;	/* end-to-end encryption (mxe2e.h) */
	int64_t (*now)(void *ctx);	/* tests only: mxe2e's clock (seconds) */
	void *now_ctx;
	int rooms_known;	/* the first sync's rooms are applied */
	char (*touched)[MX_ID_SIZE];	/* rooms whose members changed in the batch */
	size_t ntouched, captouched;
	size_t nqueued;		/* requests alive, the sync excluded */
	size_t nwaiting;	/* private parts waiting for a checked room */
	size_t sendq_max;	/* MATRIX_SENDQ_MAX */
	int sendq_full_told;	/* logged; again once it has drained */
	uv_timer_t sync_timer;
	uv_timer_t resume_timer;
	struct live live;
	struct post *follows;	/* messages whose picture follows */
};


struct post {
	struct live live;	/* first */
	struct matrix *m;
	int64_t outbox_id;
	size_t pending;
	int failed;
	/* a one-message public answer: remember its event for later edits */
	char room[MX_ID_SIZE];
	char title[128];
	/*
	 * A picture that follows (adapter_image.follow): one part is kept
	 * pending for it, and the message is confirmed only once it (or the
	 * text in its place) landed.  Its events are the message's next
	 * parts: txn.<nparts>, ... in room, or privately to user.
	 */
	uint64_t follow;
	struct post *fnext;		/* in matrix.follows */
	char txn[96];
	size_t nparts;
	char user[MX_ID_SIZE];		/* "": to room */
	char origin_room[MX_ID_SIZE];
};

/* mxm_seal's answers */
enum { SEAL_GO, SEAL_WAIT, SEAL_FAIL };

/* A DM room being made, or a room being checked as one (its members). */
struct dmctx {
	struct live live;	/* first */
	char user[MX_ID_SIZE];
	char room[MX_ID_SIZE];
	int adopt;		/* a room the player invited the bot to */
};

enum req_flags {
	REQ_NOAUTH = 1 << 0,	/* no access token (login) */
	REQ_UNCOUNTED = 1 << 1,	/* not in the send queue (the sync) */
	REQ_ROOM_MSG = 1 << 2,	/* an m.room.message: encrypted in encrypted rooms */
	REQ_REFUSAL = 1 << 3,	/* the fixed refusal notice: the one message that may
				 * go in clear to a room the bot cannot take part in */
};

static inline struct matrix *downcast(struct adapter *a)
{
	return (struct matrix *)a;
}

static inline void live_add(struct matrix *m, struct live *l, void (*release)(struct live *))
{
	l->release = release;
	l->next = m->live.next;
	l->prev = &m->live;
	m->live.next->prev = l;
	m->live.next = l;
}

static inline void live_del(struct live *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = l;
}

/* Percent-encodes a path segment or query value. */
static inline void enc(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~')
			buf_addch(b, (char)c);
		else
			buf_printf(b, "%%%02X", c);
	}
}

static inline void copy_id(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* What the rooms call in one another, by the file that defines it. */

/* matrix.c */
const char *mxm_display_name(struct matrix *m, const char *room, const char *user,
			     char *out, size_t n);
void mxm_room_drop(struct matrix *m, const char *id);
int mxm_room_encrypted(struct matrix *m, struct mroom *r);
struct mroom *mxm_room_get(struct matrix *m, const char *id, int create);
int mxm_room_mark_encrypted(struct matrix *m, struct mroom *r, const struct mx_item *ev);
int mxm_room_unusable(const struct mroom *r);

/* mxreq.c */
void mxm_finish(struct mxreq *q, long status, const char *errcode, const char *body,
		size_t len);
void mxm_img_unref(struct mximg *im);
void mxm_lane_advance(struct mxreq *q);
struct mxreq *mxm_call(struct matrix *m, const char *method, const char *path,
		       json_t *body, const char *lane_room, long timeout_ms, mx_fn cb,
		       void *ctx);
struct mxreq *mxm_call_ex(struct matrix *m, const char *method, const char *path,
			  json_t *body, const char *lane_room, long timeout_ms, unsigned flags,
			  mx_fn cb, void *ctx, const char *priv_user, const char *priv_txn);
void mxm_fatal(struct matrix *m, const char *why);
void mxm_req_free(struct mxreq *q);
struct mxreq *mxm_req_queue(struct matrix *m, struct mxreq *q, const char *lane_room);
void mxm_req_start(struct mxreq *q);
size_t mxm_sendq_len(const struct matrix *m);
void mxm_sendq_shrunk(struct matrix *m);
void mxm_unpark(struct matrix *m);
void mxm_unpark_early(struct matrix *m);

/* mxsend.c */
void mxm_follow_keep(struct matrix *m, struct post *p, uint64_t id, const char *room,
		     const char *user, const char *origin_room, const char *txn, size_t nparts);
struct post *mxm_follow_take(struct matrix *m, uint64_t id);
void mxm_new_txn(struct matrix *m, char *out, size_t n);
void mxm_on_sent(struct matrix *m, long status, const char *errcode, const char *body,
		 size_t len, void *ctx);
struct post *mxm_post_new(struct matrix *m, int64_t outbox_id, size_t parts);
void mxm_post_part_done(struct matrix *m, struct post *p, int ok);
void mxm_post_parts(struct matrix *m, struct post *p, const char *room, json_t *contents,
		    const char *txn, size_t first, struct mximg *img);
void mxm_send_contents(struct matrix *m, const char *room, json_t *contents, const char *txn,
		       int64_t outbox_id);
int mxm_sent_if_empty(struct matrix *m, size_t n, uint64_t follow, int64_t outbox_id);
void mxm_send_contents_t(struct matrix *m, const char *room, json_t *contents,
			 const char *txn, int64_t outbox_id, const char *title,
			 struct mximg *img, uint64_t follow);
void mxm_send_notice(struct matrix *m, const char *room, const struct rich *body);
void mxm_send_path(struct buf *path, const char *room, const char *txn);
void mxm_tell_where(struct matrix *m, struct dm *d, const char *origin_room);

/* mxpicture.c */
void mxm_board_posted(struct matrix *m, const char *room);
void mxm_img_as_text(struct mximg *im);
void mxm_img_attach(struct mximg *im, struct mxreq *q);
struct mximg *mxm_img_new(const struct adapter_image *ai);
void mxm_img_upload(struct matrix *m, struct mximg *im, const char *room);
json_t *mxm_picture_contents(const struct rich *body, const struct mximg *im);
void mxm_unseal_key(struct mxreq *q);
int mxm_upload_encrypt(struct mxreq *q);

/* mxdm.c */
void mxm_dm_abandon(struct matrix *m, struct dm *d, int tell);
void mxm_dm_forget(struct matrix *m, struct dm *d);
struct dm *mxm_dm_get(struct matrix *m, const char *user, int create);
void mxm_dm_pump(struct matrix *m, struct dm *d);
void mxm_dm_remember(struct matrix *m, const char *user, const char *room, int told);
void mxm_dm_requeue(struct matrix *m, struct mxreq *q);
int mxm_dm_still_private(struct matrix *m, const char *room, const char *user);
enum mx_verdict mxm_dm_verdict(struct matrix *m, const char *room, const char *user);
struct dmctx *mxm_dmctx_new(struct matrix *m, const char *user, const char *room);
void mxm_fetch_members(struct matrix *m, struct dmctx *c);
int mxm_is_dm_room(struct matrix *m, const char *room, const char *user);
int mxm_load_members(struct matrix *m, const char *room, const char *body, size_t len);
void mxm_part_free(struct part *pt);
void mxm_private_parts(struct matrix *m, struct post *p, const char *user, json_t *contents,
		       const char *txn, size_t first, const char *origin_room,
		       struct mximg *img);
void mxm_send_private(struct matrix *m, const char *user, json_t *contents, const char *txn,
		      int64_t outbox_id, const char *origin_room, struct mximg *img,
		      uint64_t follow);

/* mxdirect.c */
void mxm_merge_direct(struct matrix *m, json_t *server);
void mxm_record_direct(struct matrix *m, const char *user, const char *room);
void mxm_unrecord_direct(struct matrix *m, const char *user, const char *room);

/* mxmember.c */
void mxm_after_batch(struct matrix *m);
void mxm_apply_members(struct matrix *m, const struct mx_sync *s);
unsigned char *mxm_before_join_of(struct matrix *m, const struct mx_sync *s);
void mxm_handle_invite(struct matrix *m, const struct mx_item *it);
int mxm_is_my_join(struct matrix *m, const struct mx_item *it, int use_memory);
void mxm_say_encrypted_and_leave(struct matrix *m, struct mroom *r);

/* mxdispatch.c */
void mxm_handle_item(struct matrix *m, const struct mx_item *it, int initial,
		     int before_join, int gap);
void mxm_save_since(struct matrix *m, const char *value);

/* mxbatch.c */
void mxm_batch_step(struct matrix *m);
void mxm_load_since(struct matrix *m);
void mxm_sync_now(struct matrix *m);
void mxm_units_free(struct unit *u);

/* mxseal.c */
void mxm_e2e_call(void *ctx, const char *method, const char *path, const json_t *body,
		  mxe_done_fn done, void *done_ctx);
int mxm_e2e_is_joined(void *ctx, const char *room, const char *user);
int mxm_e2e_may_hold(void *ctx, const char *room, const char *sender);
void mxm_e2e_new_device(void *ctx, const char *user, const char *device, const char *name,
			const char *fingerprint, int cross);
int64_t mxm_e2e_now_ms(void *ctx);
void mxm_e2e_settled(void *ctx);
int mxm_is_trust(const char *text, size_t len, const char **arg);
void mxm_run_trust(struct matrix *m, const struct mx_item *it, int dm, const char *arg);
int mxm_seal(struct matrix *m, struct mxreq *q);

/* mxlogin.c */
void mxm_load_device(struct matrix *m);
void mxm_login(struct matrix *m);
void mxm_relogin(struct matrix *m);
void mxm_on_whoami(struct matrix *m, long status, const char *errcode, const char *body,
		   size_t len, void *ctx);

#endif
