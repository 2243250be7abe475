/*
 * lwsctx: see lwsctx.h.  Moved here from adapters/ws.c when the operators'
 * HTTP listener became the second user of an lws context (docs/ws.md).
 */
#include "adapters/lwsctx.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"

/* A reaper that spins longer than this many loop turns gives up on lws:
 * the context is leaked (lws may still call back), but the caller's
 * uv_run() returns instead of hanging. */
#define LWSCTX_REAPER_MAX_TURNS 100000

/* ---- lws's event pipe: working around a double close ---- */

/*
 * lws 4.1.6 with libuv closes its event pipe (an eventfd) twice when the
 * context is destroyed: lws_destroy_event_pipe() closes it at once, and
 * the uv close callback of the pipe's uv_poll (a loop turn later) closes
 * wsi->desc.sockfd, the same number, again.  Whatever the program opened
 * in between under that number (an accepted socket, curl's connection,
 * the SQLite file) would be closed under its feet.  So we learn the
 * pipe's number when the context is created, and the moment
 * lws_context_destroy() returns we park /dev/null on it; lws's second
 * close then closes our placeholder.
 */

struct poll_set {
	uv_handle_t **v;
	size_t n, cap;
	int found;		/* the new eventfd poll's fd, or -1 */
};

static void collect_polls(uv_handle_t *h, void *arg)
{
	struct poll_set *ps = arg;

	if (h->type != UV_POLL)
		return;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 16;
		ps->v = xrealloc(ps->v, ps->cap * sizeof(*ps->v));
	}
	ps->v[ps->n++] = h;
}

static int fd_is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return strstr(target, "eventfd") != NULL;
}

static void find_new_poll(uv_handle_t *h, void *arg)
{
	struct poll_set *ps = arg;
	uv_os_fd_t fd;
	size_t i;

	if (h->type != UV_POLL || ps->found >= 0)
		return;
	for (i = 0; i < ps->n; i++)
		if (ps->v[i] == h)
			return;
	if (uv_fileno(h, &fd) == 0 && fd_is_eventfd(fd))
		ps->found = fd;
}

/* Called right after lws_context_destroy() closed the pipe the first time. */
static void guard_pipe_fd(struct lwsctx *x)
{
	struct stat st;
	int fd, d;

	x->placeholder_fd = -1;
	if (x->pipe_fd < 0 || fcntl(x->pipe_fd, F_GETFD) != -1)
		return;		/* unknown, or not closed: nothing to guard */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fd != x->pipe_fd) {
		/* Exactly that number, or none: never dup2() over a number
		 * another thread may have taken meanwhile. */
		d = fcntl(fd, F_DUPFD_CLOEXEC, x->pipe_fd);
		close(fd);
		if (d != x->pipe_fd) {
			if (d >= 0)
				close(d);
			return;
		}
		fd = d;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	x->placeholder_fd = fd;
	x->ph_dev = st.st_dev;
	x->ph_ino = st.st_ino;
}

/* After the teardown: if lws did not close the placeholder after all, we do. */
static void release_placeholder(struct lwsctx *x)
{
	struct stat st;

	if (x->placeholder_fd < 0)
		return;
	if (!fstat(x->placeholder_fd, &st) && st.st_dev == x->ph_dev &&
	    st.st_ino == x->ph_ino && S_ISCHR(st.st_mode))
		close(x->placeholder_fd);
	x->placeholder_fd = -1;
}

int lwsctx_create(struct lwsctx *x, uv_loop_t *loop, struct lws_context_creation_info *info)
{
	void *loops[1] = { loop };
	struct poll_set ps = { .found = -1 };

	memset(x, 0, sizeof(*x));
	x->loop = loop;
	x->pipe_fd = -1;
	x->placeholder_fd = -1;
	info->options |= LWS_SERVER_OPTION_LIBUV;
	info->foreign_loops = loops;	/* read only during creation */
	info->pcontext = &x->lws;
	uv_walk(loop, collect_polls, &ps);
	x->lws = lws_create_context(info);
	if (x->lws)
		uv_walk(loop, find_new_poll, &ps);
	free(ps.v);
	info->foreign_loops = NULL;
	if (!x->lws)
		return -1;
	x->pipe_fd = ps.found;
	uv_idle_init(loop, &x->reaper);
	x->reaper.data = x;
	return 0;
}

static void find_lws_handle(uv_handle_t *h, void *arg)
{
	struct lwsctx *x = arg;

	/* lws's per-thread handles (its timer and idle) carry the context
	 * in ->data (LWS_UV_REFCOUNT_STATIC_HANDLE_NEW in lws's libuv.c). */
	if (h->data == (void *)x->lws)
		x->busy = 1;
}

static void on_reaper_closed(uv_handle_t *h)
{
	struct lwsctx *x = h->data;

	if (x->done)
		x->done(x);
}

/*
 * The teardown, one step per loop turn.
 *
 * First turn: lws_context_destroy() closes every connection and,
 * asynchronously, lws's own uv handles.  It runs here rather than in
 * lwsctx_destroy() so that the latter may be called from inside a
 * callback, while lws is servicing a connection.
 *
 * Later turns: lws 4.1 with a foreign libuv loop does not finish
 * destroying the context by itself.  When its last connection and
 * handle are closed, the final step (lws_context_destroy2/3, which frees
 * the context) runs only if lws_context_destroy() is called once more,
 * and that is only safe after those handles' close callbacks have run
 * (the handles live inside the context).  So we watch the loop until no
 * handle of lws's is left, then call it again; info.pcontext clears
 * x->lws when the context is really gone.
 */
static void on_reap(uv_idle_t *idle)
{
	struct lwsctx *x = idle->data;

	if (!x->destroying) {
		x->destroying = 1;
		lws_context_destroy(x->lws);
		guard_pipe_fd(x);
		return;
	}
	if (x->lws) {
		x->busy = 0;
		uv_walk(x->loop, find_lws_handle, x);
		if (x->busy && ++x->turns < LWSCTX_REAPER_MAX_TURNS)
			return;
		if (!x->busy)
			lws_context_destroy(x->lws);
	}
	if (!x->lws)
		release_placeholder(x);
	uv_idle_stop(idle);
	uv_close((uv_handle_t *)idle, on_reaper_closed);
}

void lwsctx_destroy(struct lwsctx *x, void (*done)(struct lwsctx *x))
{
	x->done = done;
	uv_idle_start(&x->reaper, on_reap);
}
