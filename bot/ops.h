/*
 * ops: what an operator's tools ask the bot over HTTP (TABULA_HTTP,
 * docs/deploy.md "Health and metrics"), on the operators' listener
 * (adapters/httpd.h):
 *
 *   /healthz  200 while the process runs its loop
 *   /readyz   200 when the store answers and every configured platform is
 *             connected (Discord gateway ready or resumed, Matrix syncing);
 *             else 503, the reasons in the body, one a line
 *   /metrics  the Prometheus text exposition of util/meters.h's catalog
 *
 * The store is read at most once a second for all of them together (the
 * outbox and game figures, which also prove it answers): a client asking
 * in a loop costs the bot one short read a second, not one per request.
 */
#ifndef BOT_OPS_H
#define BOT_OPS_H

#include <stdint.h>

#include <uv.h>

#include "adapters/httpd.h"
#include "state/store.h"
#include "util/buf.h"

#define OPS_STORE_EVERY_MS 1000

struct ops {
	struct httpd *http;
	int gone;			/* the listener's teardown ended */
	struct store *store;		/* borrowed */
	uv_loop_t *loop;
	int discord, matrix;		/* configured: readiness waits for them */
	/* the bot's clock (unix seconds; the tests' may be fake) */
	int64_t (*now)(void *ctx);
	void *now_ctx;
	/* the last store reading */
	uint64_t read_at;		/* uv_now() ms; 0: never */
	int store_ok;
	struct store_stats stats;
};

/*
 * Listens on spec (TABULA_HTTP's value; allow_public: TABULA_HTTP_PUBLIC)
 * and serves the three routes.  o's fields store, discord, matrix, now and
 * now_ctx are the caller's to fill first.  0, or -1 + err.
 */
int ops_start(struct ops *o, uv_loop_t *loop, const char *spec, int allow_public,
	      struct buf *err);
/* The port it listens on. */
int ops_port(const struct ops *o);
/* Closes the listener; run the loop until o->gone (also after a failed
 * ops_start). */
void ops_stop(struct ops *o);

/* The readiness answer into why (empty when ready): 1 ready, 0 not
 * (exported for the tests). */
int ops_ready(struct ops *o, struct buf *why);
/* The exposition into out (the tests). */
void ops_metrics(struct ops *o, struct buf *out);

#endif
