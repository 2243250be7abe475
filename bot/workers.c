/*
 * workers: a pool of threads with a job queue and a finished queue
 * (bot/workers.h).  One mutex guards both; workers sleep on a condition
 * variable; a finished job wakes the loop through a uv_async_t, whose
 * callback hands every finished job to done() outside the lock.
 */
#include "bot/workers.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct node {
	struct node *next;
	void *job;
};

struct fifo {
	struct node *head, **tail;
};

struct workers {
	uv_loop_t *loop;
	uv_async_t async;		/* finished jobs: wakes the loop */
	uv_mutex_t mu;
	uv_cond_t cv;
	uv_thread_t threads[WORKERS_MAX];
	int nthreads;
	int quit;
	struct fifo todo, finished;	/* under mu */
	size_t pending;			/* submitted, done() not yet run: loop only */
	void (*run)(void *job);
	void (*done)(void *ctx, void *job);
	void *ctx;
	void (*thread_exit)(void);
};

static void fifo_init(struct fifo *f)
{
	f->head = NULL;
	f->tail = &f->head;
}

static void fifo_push(struct fifo *f, struct node *n)
{
	n->next = NULL;
	*f->tail = n;
	f->tail = &n->next;
}

static struct node *fifo_pop(struct fifo *f)
{
	struct node *n = f->head;

	if (n && !(f->head = n->next))
		f->tail = &f->head;
	return n;
}

/* Takes the whole list out of f. */
static struct node *fifo_take(struct fifo *f)
{
	struct node *n = f->head;

	fifo_init(f);
	return n;
}

static void worker_main(void *arg)
{
	struct workers *w = arg;

	/* below the loop: a picture may wait, an answer may not.  Per thread
	 * on Linux (a thread is a task with its own nice value); lowering is
	 * always allowed, and a failure only leaves the default */
#ifdef SYS_gettid
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKERS_NICE);
#endif
	uv_mutex_lock(&w->mu);
	for (;;) {
		struct node *n;

		while (!w->quit && !w->todo.head)
			uv_cond_wait(&w->cv, &w->mu);
		if (w->quit)
			break;
		n = fifo_pop(&w->todo);
		uv_mutex_unlock(&w->mu);
		w->run(n->job);
		uv_mutex_lock(&w->mu);
		fifo_push(&w->finished, n);
		uv_async_send(&w->async);
	}
	uv_mutex_unlock(&w->mu);
	if (w->thread_exit)
		w->thread_exit();
}

static void on_async(uv_async_t *h)
{
	struct workers *w = h->data;
	struct node *n, *next;

	uv_mutex_lock(&w->mu);
	n = fifo_take(&w->finished);
	uv_mutex_unlock(&w->mu);
	for (; n; n = next) {
		next = n->next;
		w->pending--;
		w->done(w->ctx, n->job);	/* may submit more */
		free(n);
	}
	if (!w->pending)
		uv_unref((uv_handle_t *)&w->async);
}

struct workers *workers_new(uv_loop_t *loop, int nthreads, void (*run)(void *job),
			    void (*done)(void *ctx, void *job), void *ctx,
			    void (*thread_exit)(void), struct buf *err)
{
	struct workers *w;
	int i;

	if (nthreads < 1 || nthreads > WORKERS_MAX) {
		buf_setf(err, "workers: %d threads (1..%d)", nthreads, WORKERS_MAX);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->loop = loop;
	w->run = run;
	w->done = done;
	w->ctx = ctx;
	w->thread_exit = thread_exit;
	fifo_init(&w->todo);
	fifo_init(&w->finished);
	if (uv_mutex_init(&w->mu)) {
		free(w);
		buf_setf(err, "workers: no mutex");
		return NULL;
	}
	if (uv_cond_init(&w->cv)) {
		uv_mutex_destroy(&w->mu);
		free(w);
		buf_setf(err, "workers: no condition variable");
		return NULL;
	}
	if (uv_async_init(loop, &w->async, on_async)) {
		uv_cond_destroy(&w->cv);
		uv_mutex_destroy(&w->mu);
		free(w);
		buf_setf(err, "workers: no async handle");
		return NULL;
	}
	w->async.data = w;
	/* the pool keeps the loop alive only while jobs are out (the console's
	 * end waits for its pictures, an idle pool for nothing) */
	uv_unref((uv_handle_t *)&w->async);
	for (i = 0; i < nthreads; i++) {
		if (uv_thread_create(&w->threads[i], worker_main, w)) {
			buf_setf(err, "workers: cannot start a thread");
			w->nthreads = i;
			workers_free(w, NULL);
			return NULL;
		}
	}
	w->nthreads = nthreads;
	return w;
}

int workers_submit(struct workers *w, void *job)
{
	struct node *n;

	if (w->quit)
		return -1;
	n = xmalloc(sizeof(*n));
	n->job = job;
	uv_mutex_lock(&w->mu);
	fifo_push(&w->todo, n);
	uv_cond_signal(&w->cv);
	uv_mutex_unlock(&w->mu);
	w->pending++;
	uv_ref((uv_handle_t *)&w->async);
	return 0;
}

size_t workers_pending(const struct workers *w)
{
	return w->pending;
}

static void on_closed(uv_handle_t *h)
{
	struct workers *w = h->data;

	uv_cond_destroy(&w->cv);
	uv_mutex_destroy(&w->mu);
	free(w);
}

void workers_free(struct workers *w, void (*discard)(void *job))
{
	struct node *lists[2], *n, *next;
	int i, k;

	if (!w)
		return;
	uv_mutex_lock(&w->mu);
	w->quit = 1;
	uv_cond_broadcast(&w->cv);
	uv_mutex_unlock(&w->mu);
	for (i = 0; i < w->nthreads; i++)
		uv_thread_join(&w->threads[i]);
	lists[0] = fifo_take(&w->todo);
	lists[1] = fifo_take(&w->finished);
	for (k = 0; k < 2; k++)
		for (n = lists[k]; n; n = next) {
			next = n->next;
			if (discard)
				discard(n->job);
			free(n);
		}
	w->pending = 0;
	uv_close((uv_handle_t *)&w->async, on_closed);
}
