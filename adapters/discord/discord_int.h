/*
 * discord_int: what the rooms of the Discord adapter share (private to
 * adapters/discord/) — the adapter's state (struct discord), the list of
 * requests in flight, the pictures that follow, an interaction's answer
 * queue (struct ix), an outbox post (struct post), and the functions one
 * room calls in another, each named dsc_.  Which room owns what:
 * docs/discord.md.
 */
#ifndef ADAPTERS_DISCORD_DISCORD_INT_H
#define ADAPTERS_DISCORD_DISCORD_INT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "adapters/discord/discord.h"
#include "adapters/discord/gateway.h"
#include "adapters/discord/interaction.h"
#include "adapters/discord/ratelimit.h"
#include "adapters/discord/rest.h"
#include "adapters/ws.h"
#include "util/buf.h"

#define DM_CACHE_MAX 1024
#define SENDQ_MAX 256

/*
 * Every request context in flight (notes, interactions, posts) is on the
 * adapter's live list: discord_rest_free() drops requests without calling
 * back, so stop() frees what is left from here.
 */
struct live {
	struct live *prev, *next;
	void (*release)(struct live *l);
};

struct dm_entry {
	char user[DISCORD_SNOWFLAKE_SIZE];
	char channel[DISCORD_SNOWFLAKE_SIZE];
};

struct discord {
	struct adapter base;
	uv_loop_t *loop;
	char *token, *app_id, *api_url, *gateway_url, *guild_id, *direct_url;
	int api_proxy;
	int shard_id, shard_count;
	uint64_t seed;

	struct discord_rest *rest;
	struct ws_client *ws;
	struct gateway gw;
	int gw_started;		/* the base URL is known: actions flow */
	int draining;
	int started, stopping;
	int exit_code;
	int registered;		/* commands bulk-overwritten */
	size_t rest_max;	/* the REST queue's size */
	int busy;		/* only the reserve is left (discord.h) */
	int fetching;		/* GET /gateway/bot in flight */
	uint64_t fetched_at;	/* loop time of its last answer */
	int warned_no_limit;
	int shards_told;	/* the recommended shard count last warned of */

	uv_timer_t gw_timer;		/* the machine's TIMER */
	uv_timer_t connect_timer;	/* a delayed CONNECT */
	uv_timer_t send_timer;		/* the send window reopens */
	uv_timer_t retry_timer;		/* GET /gateway/bot again */
	char *connect_url;
	int nhandles_open;

	/* gateway sends wait here for the 120-per-60-s window */
	struct ratelimit_window window;
	char *sendq[SENDQ_MAX];
	size_t sendq_head, sendq_len;

	struct dm_entry dms[DM_CACHE_MAX];
	size_t ndms;

	struct live live;	/* list head */
	struct follow *follows;	/* messages whose picture follows */
};

/*
 * A message whose picture follows (adapter_image.follow, docs/pictures.md):
 * an outbox post waiting to be finished, or an interaction answered with
 * its text.  The manager calls picture() once per id; an id gone (its
 * post failed, the adapter stopped) is ignored.
 */
struct post;
struct ix;

enum follow_where {
	FOLLOW_POST,		/* p: an edit of its last message adds it */
	FOLLOW_ORIGINAL,	/* x: an edit of the answer adds it */
	FOLLOW_WEBHOOK,		/* x: a follow-up message of its own */
	FOLLOW_CHANNEL,		/* x: a message in the channel (a public answer
				 * of a deferred interaction) */
};

struct follow {
	struct follow *next;
	uint64_t id;
	enum follow_where where;
	struct post *p;
	struct ix *x;
	int priv;		/* x: the answer is ephemeral */
	int filled;		/* x, FOLLOW_ORIGINAL: a deferred answer that
				 * waits for the picture (no text went) */
};

/*
 * One interaction being answered.  Its requests go out strictly one after
 * another (callback first, then edits and follow-ups): a follow-up sent
 * before Discord has the callback would be refused.
 */
struct ixreq {
	char method[8];
	char *path;
	json_t *body;		/* a JSON body, written out when it goes */
	char *json;		/* or a multipart body (ctype) */
	size_t len;
	char *ctype;
};

struct ix {
	struct live live;	/* first */
	struct discord *d;
	struct discord_interaction in;
	int responded;		/* a callback is queued */
	int deferred;		/* ... and it was type 5 (ephemeral) */
	int original_filled;	/* the deferred response was edited */
	int collecting;		/* on_command is running: requests wait */
	/* `moves`: the request holding the answer's last chunk, which gets
	 * the select of moves when on_command is done; -1 none */
	int want_menu;
	long menu_req;
	struct ixreq *q;
	size_t qlen, qhead, qcap;
	int inflight;
	int follows;		/* pictures to come (struct follow): it waits */
};

#define ATTACH_BOUNDARY "tabula-8c1d4f0e2b"
#define ATTACH_CTYPE "multipart/form-data; boundary=" ATTACH_BOUNDARY

/* A file attached to a message: its name, type and bytes (borrowed). */
struct file {
	const char *name;
	const char *ctype;
	const void *data;
	size_t len;
	const char *desc;	/* alt text, or NULL */
};

struct chunks {
	char **v;
	size_t n;
};

/* One outbox message on its way: every chunk must land before on_sent. */
struct post {
	struct live live;	/* first */
	struct discord *d;
	int64_t outbox_id;
	char room[DISCORD_SNOWFLAKE_SIZE];
	char user[DISCORD_SNOWFLAKE_SIZE];
	char key[64];
	int es;
	int64_t session, version;
	struct chunks ch;
	json_t *mentions;
	json_t *components;	/* on the last chunk */
	size_t pending;
	int failed;		/* a transient failure: stays in the outbox */
	int refused_dm;		/* 50007: fall back to the channel */
	int no_attach;		/* 50013 with a picture: sent again without it */
	char channel[DISCORD_SNOWFLAKE_SIZE];	/* where the chunks went */
	/* the picture, attached to the last chunk (png NULL: none) */
	unsigned char *png;
	size_t png_len;
	char png_name[64];
	char *png_alt;
	/* a picture that follows (adapter_image.follow): the post waits for
	 * it (awaiting) once its text landed, then adds it to the text's last
	 * message (last_id) by an edit, or posts what comes in its place
	 * (more); on_sent only then */
	uint64_t follow;
	int awaiting;
	int held;		/* its text landed while awaiting */
	char last_id[DISCORD_SNOWFLAKE_SIZE];
	struct chunks more;
	int finishing;		/* the picture's (or more's) requests are out */
};

/* discord.c: shared state */
struct follow *dsc_follow_add(struct discord *d, uint64_t id, enum follow_where where);
struct follow *dsc_follow_take(struct discord *d, uint64_t id);
void dsc_follow_forget(struct discord *d, const struct post *p, const struct ix *x);
void dsc_live_add(struct discord *d, struct live *l, void (*release)(struct live *));
void dsc_live_del(struct live *l);
struct discord *dsc_downcast(struct adapter *a);
int dsc_is_snowflake(const char *s);

/* pressure.c: the REST queue */
struct note;
int dsc_rest_busy(struct discord *d);
void dsc_on_rest_down(void *ctx, int down);
int dsc_rest_fits(struct discord *d, size_t n);
struct note *dsc_note_new(struct discord *d, const char *what);
void dsc_on_noted(const struct discord_rest_resp *resp, void *ctx);
void dsc_submit_noted(struct discord *d, const char *method, const char *path, json_t *body,
		      const char *what);
long dsc_error_code(const struct buf *body);

/* link.c: the gateway */
void dsc_register_commands(struct discord *d);
void dsc_sendq_clear(struct discord *d);
void dsc_ask_gateway_url(struct discord *d);

/* message.c: bodies, files and channel requests */
char *dsc_multipart(const json_t *payload, const struct file *f, size_t *len);
json_t *dsc_attachments(const struct file *f);
void dsc_channel_post(struct discord *d, const char *channel, const char *content,
		      json_t *mentions, json_t *components, const char *nonce,
		      const struct file *f, discord_rest_fn cb, void *ctx);
int dsc_collect_chunk(void *ctx, const char *chunk, size_t len);
void dsc_chunks_release(struct chunks *c);
int dsc_render(const struct rich *body, struct chunks *out, struct buf *err);
void dsc_channel_attach(struct discord *d, const char *channel, const char *id,
			const struct file *f, discord_rest_fn cb, void *ctx);

/* answer.c: an interaction's answers */
void dsc_ix_free(struct ix *x);
void dsc_ix_release(struct live *l);
void dsc_ix_pump(struct ix *x);
void dsc_ix_callback(struct ix *x, json_t *body);
void dsc_ix_edit_original(struct ix *x, const char *content, json_t *mentions);
int dsc_reply(struct adapter *a, const struct command *cmd, int private_,
	      const struct rich *body, struct buf *err);
void dsc_ix_picture(struct discord *d, struct follow *f, const struct adapter_image *img,
		    const struct rich *text);
int dsc_reply_image(struct adapter *a, const struct command *cmd, int private_,
		    const struct rich *body, const struct adapter_image *img,
		    struct buf *err);
const char *dsc_ack_text(const struct discord_interaction *in);

/* ixrun.c: running an interaction */
void dsc_ix_handle(struct discord *d, const json_t *payload);

/* post.c: outbox messages */
void dsc_post_drop_picture(struct post *p);
void dsc_post_free(struct post *p);
void dsc_post_finish(struct post *p);
void dsc_post_chunks(struct post *p, const char *channel);
int dsc_send(struct adapter *a, const struct outmsg *m, struct buf *err);
int dsc_picture(struct adapter *a, uint64_t id, const struct adapter_image *img,
		const struct rich *text, struct buf *err);

/* dm.c: direct messages */
void dsc_post_fallback(struct post *p);
const char *dsc_dm_lookup(struct discord *d, const char *user);
void dsc_on_dm_channel(const struct discord_rest_resp *resp, void *ctx);

#endif
