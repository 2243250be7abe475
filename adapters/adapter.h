/*
 * adapter.h: what a chat platform brings (console, Discord, Matrix).
 *
 * An adapter turns platform events into struct command and hands them to
 * its `on_command` callback (the session manager); it delivers what the
 * manager asks through send (a room or a private message, from the outbox)
 * and reply (the answer to one command: public, or private/ephemeral).
 *
 * Delivery of outbox messages is asynchronous on real platforms: send()
 * returns 0 once the message is accepted, and the adapter calls
 * `on_sent(ctx, outbox_id)` when the platform confirmed it, so that the
 * manager can mark it delivered.  A restart re-sends what was never
 * confirmed, with the same idempotency key.
 */
#ifndef ADAPTERS_ADAPTER_H
#define ADAPTERS_ADAPTER_H

#include <stdint.h>

#include <uv.h>

#include "util/buf.h"
#include "util/rich.h"

#define ADAPTER_API_VERSION 1
#define COMMAND_MAX_BYTES 2000	/* longer command texts are refused */

/* One normalised command.  Strings are borrowed for the call's duration. */
struct command {
	const char *platform;	/* "console", "discord", "matrix" */
	const char *room;	/* platform room / channel id */
	const char *user;	/* platform user id */
	const char *name;	/* display name (user text: escape when shown) */
	const char *locale;	/* "en", "es-ES", or NULL when unknown */
	const char *text;	/* command without prefix: "play take water" */
	size_t text_len;	/* bytes of text (it may hold a NUL) */
	void *reply_ctx;	/* the adapter's handle for reply() */
};

/* One message to deliver.  Borrowed for the call's duration. */
struct outmsg {
	int64_t outbox_id;	/* 0 when not from the outbox */
	const char *room;
	const char *user;	/* NULL: to the room; else privately to this user */
	const char *key;	/* idempotency key, or NULL */
	const struct rich *body;
};

struct adapter;

struct adapter_ops {
	unsigned api_version;
	const char *name;	/* the platform name commands carry */
	int (*start)(struct adapter *a, uv_loop_t *loop, struct buf *err);
	void (*stop)(struct adapter *a);	/* closes its handles; loop ends */
	int (*send)(struct adapter *a, const struct outmsg *m, struct buf *err);
	/* Answers a command; private_ != 0 → only the command's user sees it. */
	int (*reply)(struct adapter *a, const struct command *cmd, int private_,
		     const struct rich *body, struct buf *err);
	void (*free)(struct adapter *a);
};

struct adapter {
	const struct adapter_ops *ops;
	void (*on_command)(void *ctx, struct adapter *a, const struct command *cmd);
	void (*on_sent)(void *ctx, struct adapter *a, int64_t outbox_id);
	void *ctx;
};

static inline int adapter_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	return a->ops->start(a, loop, err);
}

static inline void adapter_stop(struct adapter *a)
{
	a->ops->stop(a);
}

static inline int adapter_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	return a->ops->send(a, m, err);
}

static inline int adapter_reply(struct adapter *a, const struct command *cmd, int private_,
				const struct rich *body, struct buf *err)
{
	return a->ops->reply(a, cmd, private_, body, err);
}

static inline void adapter_free(struct adapter *a)
{
	if (a)
		a->ops->free(a);
}

#endif
