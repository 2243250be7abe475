/*
 * paintjob: one picture to paint, as a self-contained job for a worker
 * thread (bot/workers.h), as think.h is for the AI.
 *
 * Painting a board takes tens of milliseconds of CPU; on the loop, every
 * other room, heartbeat and sync would wait behind it.  The session
 * manager moves the picture's display list into a job, a worker paints it
 * (paint_job_run), and the manager hands the PNG to the adapter when the
 * job comes back (session_mgr_paint_done), in the order of the messages
 * (bot/pictures.c).  A job touches nothing but itself, so it needs no
 * lock.
 */
#ifndef BOT_PAINTJOB_H
#define BOT_PAINTJOB_H

#include <stdint.h>

#include "paint/paint.h"
#include "util/scene.h"

struct paint_job {
	/* in (the session manager) */
	uint64_t id;			/* the picture's follow id */
	struct scene scene;		/* owned */
	void *owner;			/* the manager's entry: never touched here */
	/* optional: who takes the job back on the loop when it is not the
	 * session manager (the game pages, bot/web.c); NULL: the manager */
	void (*done)(void *ctx, struct paint_job *job);
	void *done_ctx;
	/* out (paint_job_run) */
	struct paint_image im;		/* owned when !failed */
	int failed;
	char why[200];			/* when failed: cairo's or the compressor's words */
};

/* A new job for scene, which it takes (*scene is left empty).  Owned by
 * the caller; paint_job_free releases it. */
struct paint_job *paint_job_new(uint64_t id, struct scene *scene);
void paint_job_free(struct paint_job *job);

/* Paints the job's scene into job->im, or sets failed and why.
 * Thread-safe: reads and writes only job (paint/ keeps per-thread caches,
 * which paint_thread_cleanup gives back as the thread ends). */
void paint_job_run(struct paint_job *job);

#endif
