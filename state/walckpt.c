/*
 * walckpt.c: a checkpointer thread for the store's WAL (see walckpt.h).
 *
 * The main connection's WAL hook runs after each commit with the number of
 * frames in the WAL.  Past WALCKPT_WAKE_PAGES it sets `want` and wakes the
 * thread; the thread runs a PASSIVE checkpoint on its own connection, which
 * copies what it can without waiting for (or blocking) the writer.  Once a
 * checkpoint has copied everything, the next commit starts the WAL over, so
 * the file stays small.
 *
 * Only `want` and `stop` are shared, under `mu`.  Each connection is used by
 * one thread only.
 */
#include "state/walckpt.h"

#include <pthread.h>
#include <stdlib.h>

struct walckpt {
	sqlite3 *db;		/* the store's connection: borrowed */
	sqlite3 *ck;		/* the thread's connection: owned */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int want, stop;		/* under mu */
};

static void *walckpt_main(void *arg)
{
	struct walckpt *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->want && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		w->want = 0;
		pthread_mutex_unlock(&w->mu);
		/* SQLITE_BUSY (another checkpoint running) is fine: the next
		 * wake-up or the fallback catches up. */
		sqlite3_wal_checkpoint_v2(w->ck, "main", SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Runs on the committing thread, after COMMIT, outside any transaction. */
static int walckpt_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct walckpt *w = arg;

	if (pages >= WALCKPT_FALLBACK_PAGES)
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	else if (pages >= WALCKPT_WAKE_PAGES) {
		pthread_mutex_lock(&w->mu);
		w->want = 1;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
	return SQLITE_OK;
}

struct walckpt *walckpt_start(sqlite3 *db, const char *path, const char *sync_pragma,
			      struct buf *err)
{
	struct walckpt *w = xcalloc(1, sizeof(*w));
	char *msg = NULL;
	int rc;

	w->db = db;
	rc = sqlite3_open_v2(path, &w->ck, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		buf_setf(err, "store: checkpointer cannot open %s: %s", path,
			 w->ck ? sqlite3_errmsg(w->ck) : sqlite3_errstr(rc));
		goto fail;
	}
	if (sqlite3_exec(w->ck, sync_pragma, NULL, NULL, &msg) != SQLITE_OK) {
		buf_setf(err, "store: checkpointer: %s: %s", sync_pragma,
			 msg ? msg : sqlite3_errmsg(w->ck));
		sqlite3_free(msg);
		goto fail;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	rc = pthread_create(&w->thread, NULL, walckpt_main, w);
	if (rc) {
		buf_setf(err, "store: cannot start the checkpointer thread (error %d)", rc);
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	sqlite3_wal_hook(db, walckpt_hook, w);
	return w;
fail:
	sqlite3_close(w->ck);
	free(w);
	return NULL;
}

void walckpt_stop(struct walckpt *w)
{
	if (!w)
		return;
	sqlite3_wal_hook(w->db, NULL, NULL);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	sqlite3_close(w->ck);
	free(w);
}
