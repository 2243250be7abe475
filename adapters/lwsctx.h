/*
 * lwsctx: one libwebsockets context on the program's libuv loop (lws's
 * "foreign loop" mode), created and torn down the way Debian's lws 4.1.6
 * needs (docs/ws.md, "what surprised us"): the context only finishes dying
 * when lws_context_destroy() is called a second time after lws's own uv
 * handles have closed, and lws closes its event pipe's descriptor twice,
 * so the number is guarded with a /dev/null placeholder in between.
 *
 * Users: the websocket client (adapters/ws.c) and the operators' HTTP
 * listener (adapters/httpd.c).  Single-threaded: the loop's thread only.
 */
#ifndef ADAPTERS_LWSCTX_H
#define ADAPTERS_LWSCTX_H

#include <sys/types.h>

#include <libwebsockets.h>
#include <uv.h>

struct lwsctx {
	uv_loop_t *loop;
	/* the context; NULL once lws has freed it (info.pcontext) */
	struct lws_context *lws;
	/* lws's event pipe (an eventfd) and what guards its number: -1 none */
	int pipe_fd;
	int placeholder_fd;
	dev_t ph_dev;
	ino_t ph_ino;
	uv_idle_t reaper;
	unsigned long turns;
	int busy, destroying;
	/* after lwsctx_destroy(): called once the teardown is over (the
	 * reaper's handle closed); lws is NULL then unless lws never let go
	 * (the context is leaked rather than the loop hung) */
	void (*done)(struct lwsctx *x);
};

/*
 * Creates the context from info on loop (info's options get
 * LWS_SERVER_OPTION_LIBUV, its foreign_loops and pcontext are set here).
 * 0, or -1 when lws could not create it (nothing to destroy then).
 */
int lwsctx_create(struct lwsctx *x, uv_loop_t *loop, struct lws_context_creation_info *info);

/*
 * Starts the teardown, one step per loop turn from the loop (safe from
 * inside any lws callback); done(x) follows, after which x may be freed.
 * The caller runs the loop until its handles are gone.
 */
void lwsctx_destroy(struct lwsctx *x, void (*done)(struct lwsctx *x));

#endif
