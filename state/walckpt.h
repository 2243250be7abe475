/*
 * walckpt.h: WAL checkpoints for the SQLite store, run on a thread of their
 * own (internal to state/; only the SQLite store, state/sqlite_open.c, uses it).
 *
 * Why: SQLite's automatic checkpoint runs inside the COMMIT that crosses the
 * threshold, on the caller's thread.  With synchronous=NORMAL that commit
 * must fsync megabytes of WAL and the database; measured on a VM disk it
 * took the p99 of a command from ~0.3 ms to ~4.5 ms.  Here the commit only
 * signals; a second connection checkpoints (PASSIVE: it never blocks the
 * writer) while the event loop goes on.
 *
 * Should the thread fall far behind (a long reader pins the WAL), the
 * committing connection checkpoints inline past WALCKPT_FALLBACK_PAGES, so
 * the WAL stays bounded as with SQLite's default.
 */
#ifndef STATE_WALCKPT_H
#define STATE_WALCKPT_H

#include <sqlite3.h>

#include "util/buf.h"

#define WALCKPT_WAKE_PAGES 1000		/* SQLite's default autocheckpoint */
#define WALCKPT_FALLBACK_PAGES 16000	/* ~64 MB of WAL at 4 KiB pages */

struct walckpt;

/*
 * Opens a second connection to path (already in WAL mode), runs
 * sync_pragma on it (the "PRAGMA synchronous = ..." of the main
 * connection) and installs a WAL hook on db, replacing its automatic
 * checkpoint.  Borrows db, which must outlive the result.  Returns a new
 * checkpointer, or NULL with err.
 */
struct walckpt *walckpt_start(sqlite3 *db, const char *path, const char *sync_pragma,
			      struct buf *err);

/* Removes the hook, stops and joins the thread, closes its connection and
 * frees w.  Call before closing db.  NULL is a no-op. */
void walckpt_stop(struct walckpt *w);

#endif
