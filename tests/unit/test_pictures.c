/*
 * Pictures painted off the loop (bot/pictures.c, docs/pictures.md): a
 * message's text goes at once and its picture follows; pictures of one
 * room come in the order of their messages whatever order the workers
 * finish in; a newer board supersedes one still waiting (never painted);
 * an answer is never superseded; the outbox message is confirmed only
 * once its picture is out, so a crash between the two sends both again
 * under the same key; a picture that cannot be painted becomes the text
 * board after the text.  The workers are played by the test: jobs are
 * collected and finished by hand, in any order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/paintjob.h"
#include "bot/session.h"
#include "paint/paint.h"
#include "tests/support/capture.h"
#include "util/meters.h"

#define JOBS_MAX 64

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;
	struct paint_job *jobs[JOBS_MAX];	/* handed to "the workers" */
	size_t njobs;
	int refuse;			/* the pool refuses jobs (stopping) */
	char path[64];
};

static int64_t fixed_now(void *ctx)
{
	return 1700000000;
}

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static void on_sent(void *ctx, struct adapter *a, int64_t id)
{
	session_mgr_sent(ctx, id);
}

/* The workers: keep the job for the test to finish. */
static int take_job(void *ctx, struct paint_job *job)
{
	struct fixture *f = ctx;

	if (f->refuse || f->njobs == JOBS_MAX)
		return -1;
	f->jobs[f->njobs++] = job;
	return 0;
}

static void attach(struct fixture *f)
{
	session_mgr_init(&f->mgr, f->store, 12345);
	f->mgr.now = fixed_now;
	f->mgr.paint = take_job;
	f->mgr.paint_ctx = f;
	f->cap = capture_new_pictures("discord", ADAPTER_CAP_IMAGES);
	f->cap->base.on_command = on_command;
	f->cap->base.on_sent = on_sent;
	f->cap->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &f->cap->base);
}

/* A crash: what the workers had is lost, the manager goes, the store stays. */
static void crash(struct fixture *f)
{
	size_t i;

	for (i = 0; i < f->njobs; i++)
		paint_job_free(f->jobs[i]);
	f->njobs = 0;
	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	f->cap = NULL;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;
	int fd;

	snprintf(f->path, sizeof(f->path), "/tmp/tabula-pics-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	unlink(f->path);
	f->store = store_sqlite_open(f->path, &err);
	assert_non_null(f->store);
	attach(f);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char side[96];

	crash(f);
	store_close(f->store);
	unlink(f->path);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	unlink(side);
	free(f);
	return 0;
}

/* Finishes the job at index i (painted for real, or failed). */
static void finish(struct fixture *f, size_t i, int fail)
{
	struct paint_job *job = f->jobs[i];

	assert_true(i < f->njobs);
	memmove(&f->jobs[i], &f->jobs[i + 1], (f->njobs - i - 1) * sizeof(f->jobs[0]));
	f->njobs--;
	if (fail)
		paint_inject_failures(1);
	paint_job_run(job);
	paint_inject_failures(0);
	session_mgr_paint_done(&f->mgr, job);
}

static int count_pending(void *ctx, const struct outbox_rec *o)
{
	(*(int *)ctx)++;
	return 0;
}

/* Outbox messages not confirmed. */
static int unsent(struct fixture *f)
{
	struct buf err = BUF_INIT;
	int n = 0;

	assert_int_equal(store_outbox_pending(f->store, count_pending, &n, &err), 0);
	buf_release(&err);
	return n;
}

/* Index of the first entry from `from` in the room (user NULL) or to user
 * whose text holds needle; -1 when none. */
static long find(const struct fixture *f, size_t from, const char *user, const char *needle)
{
	size_t i;

	for (i = from; i < f->cap->n; i++) {
		const struct captured *m = &f->cap->v[i];

		if (!user != !m->user || (user && strcmp(user, m->user)))
			continue;
		if (strstr(m->text, needle))
			return (long)i;
	}
	return -1;
}

/* The room's pictures (entries with a file), in order, as their file names. */
static size_t room_pictures(const struct fixture *f, const char *names[], size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < f->cap->n && n < max; i++)
		if (!f->cap->v[i].user && f->cap->v[i].picture && *f->cap->v[i].picture)
			names[n++] = f->cap->v[i].picture;
	return n;
}

/* Ana alone against an AI: the board of the start is the room's first. */
static void start_game(struct fixture *f)
{
	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	capture_cmd(f->cap, "r1", "ana", "game addbot 1");
	capture_cmd(f->cap, "r1", "ana", "game start");
}

/* The text goes at once; the picture follows it, and only then is the
 * outbox message confirmed. */
static void test_text_first_then_picture(void **state)
{
	struct fixture *f = *state;
	long text, pic;
	size_t i;

	start_game(f);
	text = find(f, 0, NULL, "Waiting for");
	assert_true(text >= 0);
	assert_true(f->cap->v[text].follow != 0);
	assert_null(f->cap->v[text].picture);
	assert_int_equal(find(f, 0, NULL, "[picture "), -1);	/* not painted yet */
	assert_true(f->njobs >= 1);
	assert_true(session_mgr_paint_depth(&f->mgr) >= 1);
	assert_true(unsent(f) >= 1);		/* the room's board waits for it */
	while (f->njobs)
		finish(f, 0, 0);
	pic = find(f, 0, NULL, "[picture board-s");
	assert_true(pic > text);
	assert_true(f->cap->v[pic].png_len > 1000);
	assert_string_equal(f->cap->v[pic].key, f->cap->v[text].key);	/* its message's */
	assert_int_equal(unsent(f), 0);
	assert_int_equal(session_mgr_paint_depth(&f->mgr), 0);
	for (i = 0; i < f->cap->n; i++)
		assert_false(f->cap->v[i].follow && !f->cap->v[i].picture);
}

/*
 * While the room's first picture is being painted, two more boards come:
 * the second waits, the third supersedes it (its message is finished
 * without a picture, and confirmed); the room's pictures are the first and
 * the third, in that order, even when the workers finish the private
 * views first.
 */
static void test_order_and_supersede(void **state)
{
	struct fixture *f = *state;
	const char *names[8];
	size_t n, depth;
	int i;

	start_game(f);
	/* a picture of the board on demand (an answer), then three moves
	 * that each pass the turn (a new board each): they queue behind the
	 * start's, which is being painted, each superseding the one before */
	capture_cmd(f->cap, "r1", "ana", "board image");
	for (i = 0; i < 3; i++)
		capture_cmd(f->cap, "r1", "ana", "play think draw");
	assert_int_equal(capture_count(f->cap, NULL, "[picture "), 0);
	assert_true(f->mgr.pics_superseded >= 2);
	depth = session_mgr_paint_depth(&f->mgr);
	assert_true(depth >= 3);		/* painting + the answer + the newest */
	/* what /metrics says (tabula_paint_queue_depth): the superseded
	 * ones are out of it */
	assert_int_equal(metric_get(&met_paint_queue, 0, 0), (int64_t)depth);
	/* the workers finish: always the last handed job first */
	while (f->njobs)
		finish(f, f->njobs - 1, 0);
	n = room_pictures(f, names, 8);
	if (n != 3)
		capture_dump(f->cap);
	assert_int_equal(n, 3);		/* start, the answer, the newest board */
	assert_true(strcmp(names[0], names[2]) != 0);
	/* a room never shows an older board after a newer one: the file names
	 * carry the position, which only grows */
	assert_true(strtol(strrchr(names[0], 'm') + 1, NULL, 10) <=
		    strtol(strrchr(names[1], 'm') + 1, NULL, 10));
	assert_true(strtol(strrchr(names[1], 'm') + 1, NULL, 10) <
		    strtol(strrchr(names[2], 'm') + 1, NULL, 10));
	/* the superseded message: confirmed, no picture ever */
	assert_int_equal(unsent(f), 0);
	assert_int_equal(session_mgr_paint_depth(&f->mgr), 0);
	assert_int_equal(metric_get(&met_paint_queue, 0, 0), 0);
}

/* A picture that cannot be painted: the text board after the text that
 * went, and the message confirmed. */
static void test_failure_sends_the_text_board(void **state)
{
	struct fixture *f = *state;
	long text, board;

	start_game(f);
	text = find(f, 0, NULL, "Waiting for");
	while (f->njobs)
		finish(f, 0, 1);
	board = find(f, (size_t)text, NULL, "Glory to Rome: turn 1");
	assert_true(board > text);
	assert_string_equal(f->cap->v[board].picture, "");
	assert_true(f->mgr.pics_failed >= 1);
	assert_int_equal(unsent(f), 0);
}

/* A crash between the text and the picture loses nothing: the message is
 * still in the outbox, sent again under its key, its picture painted and
 * sent, then confirmed. */
static void test_crash_between_the_parts(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	char key[64];
	long text;

	start_game(f);
	text = find(f, 0, NULL, "Waiting for");
	snprintf(key, sizeof(key), "%s", f->cap->v[text].key);
	assert_true(unsent(f) >= 1);
	crash(f);
	attach(f);
	assert_int_equal(session_mgr_flush_outbox(&f->mgr, &err), 0);
	text = find(f, 0, NULL, "Waiting for");
	assert_true(text >= 0);
	assert_string_equal(f->cap->v[text].key, key);		/* deduplicated there */
	assert_true(f->cap->v[text].follow != 0);
	while (f->njobs)
		finish(f, 0, 0);
	assert_true(find(f, (size_t)text, NULL, "[picture board-s") > text);
	assert_int_equal(unsent(f), 0);
	buf_release(&err);
}

/* No worker takes the job (the pool is stopping): it is painted at once,
 * and still comes after its text. */
static void test_refused_job_painted_inline(void **state)
{
	struct fixture *f = *state;
	long text;

	f->refuse = 1;
	start_game(f);
	text = find(f, 0, NULL, "Waiting for");
	assert_true(find(f, (size_t)text, NULL, "[picture board-s") > text);
	assert_int_equal(session_mgr_paint_depth(&f->mgr), 0);
	assert_int_equal(unsent(f), 0);
}

/* Dropping the waiting pictures (a stop) leaves their messages in the
 * outbox; the one being painted still comes back. */
static void test_drop_waiting_keeps_the_outbox(void **state)
{
	struct fixture *f = *state;
	int before;

	start_game(f);
	capture_cmd(f->cap, "r1", "ana", "play 1");
	before = unsent(f);
	assert_true(before >= 2);
	session_mgr_paint_drop_waiting(&f->mgr);
	assert_int_equal(session_mgr_paint_depth(&f->mgr), f->njobs);
	while (f->njobs)
		finish(f, 0, 0);
	assert_int_equal(session_mgr_paint_depth(&f->mgr), 0);
	assert_true(unsent(f) >= 1);		/* sent again at the next start */
	assert_true(unsent(f) < before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_first_then_picture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_and_supersede, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_sends_the_text_board, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_between_the_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_job_painted_inline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_waiting_keeps_the_outbox, setup, teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	paint_cleanup();
	return rc;
}
