/*
 * workers: a small pool of threads for CPU work, handing results back to
 * the event loop (docs/architecture.md, "Threads").
 *
 * The loop thread submits jobs; a worker runs run(job) away from the
 * loop; done(ctx, job) is then called on the loop thread (through a
 * uv_async_t), in the order the jobs finished.  A job is the caller's
 * memory, touched by one thread at a time: the loop until it is
 * submitted, one worker while it runs, the loop again in done().  run()
 * must touch nothing but its job (no session, no store, no log).
 *
 * The bot's pictures are painted here (bot/paintjob.h): libuv's own
 * thread pool is shared with the searching AI (a second per decision), and
 * a picture must not wait behind it.  Workers run at a lower priority than
 * the loop (nice WORKERS_NICE): on a busy machine the loop's answers go
 * first, and pictures take the CPU that is left.
 *
 *	struct workers *w = workers_new(loop, 2, run, done, ctx, cleanup, &err);
 *	workers_submit(w, job);		// done(ctx, job) later, on the loop
 *	workers_free(w, discard);	// joins; unfinished jobs to discard()
 */
#ifndef BOT_WORKERS_H
#define BOT_WORKERS_H

#include <stddef.h>

#include <uv.h>

#include "util/buf.h"

#define WORKERS_MAX 16
#define WORKERS_NICE 5

struct workers;

/*
 * Starts nthreads (1..WORKERS_MAX) threads.  run: the work (any thread);
 * done: its result, on the loop thread; thread_exit (may be NULL): called
 * by each worker thread as it ends (per-thread caches).  Returns the pool
 * (workers_free it), or NULL with err.
 */
struct workers *workers_new(uv_loop_t *loop, int nthreads, void (*run)(void *job),
			    void (*done)(void *ctx, void *job), void *ctx,
			    void (*thread_exit)(void), struct buf *err);

/* Queues job (not NULL).  0, or -1 when the pool is stopping (job is the
 * caller's again). */
int workers_submit(struct workers *w, void *job);

/* Jobs submitted whose done() has not run yet. */
size_t workers_pending(const struct workers *w);

/*
 * Stops the pool: waits for the jobs running now, joins the threads, and
 * hands every job whose done() has not run (queued, or finished but not
 * yet handed back) to discard (may be NULL: the caller keeps track).  The
 * loop must run once more for the pool's handle to close (it frees the
 * rest then).
 */
void workers_free(struct workers *w, void (*discard)(void *job));

#endif
