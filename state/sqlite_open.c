/*
 * sqlite_open.c: opening and closing the SQLite store: the file made
 * private to the operator, claimed as tabula's (application_id), brought
 * to the current schema through state/schema.c's migrations, put in WAL
 * mode with its checkpointer, and its statements prepared.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/schema.h"
#include "state/sqlite_int.h"
#include "state/store_int.h"
#include "state/walckpt.h"

#define BUSY_TIMEOUT_MS 5000

/* ------------------------------------------------------------ open, close */

void sqlite_close(struct store *s)
{
	struct sqlite_store *ss = sqlite_downcast(s);
	int i;

	/* First: its hook points into ss.  Closing db then checkpoints all. */
	walckpt_stop(ss->ckpt);
	for (i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(ss->st[i]);
	/* Every statement is finalized, so this cannot be SQLITE_BUSY. */
	sqlite3_close(ss->db);
	free(ss);
}

static int pragma_int(struct sqlite_store *ss, const char *sql, int *out,
		      struct buf *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(ss->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlite_fail(ss, err, sql);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite_fail(ss, err, sql);
		sqlite3_finalize(st);
		return -1;
	}
	*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/*
 * WAL lets readers run beside the writer and makes commits cheap; its
 * checkpoints move to a thread (state/walckpt.h).
 */
static int set_wal(struct sqlite_store *ss, const char *path, const char *sync,
		   struct buf *err)
{
	sqlite3_stmt *st = NULL;
	const char *file, *mode;
	int ok;

	/* In-memory and temporary databases have no file name and no WAL.
	 * The name is absolute, so the checkpointer finds the same file. */
	file = sqlite3_db_filename(ss->db, "main");
	if (!file || !file[0])
		return 0;
	if (sqlite3_prepare_v2(ss->db, "PRAGMA journal_mode = WAL", -1, &st, NULL)
	    != SQLITE_OK)
		return sqlite_fail(ss, err, "PRAGMA journal_mode");
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite_fail(ss, err, "PRAGMA journal_mode");
		sqlite3_finalize(st);
		return -1;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	ok = mode && !strcmp(mode, "wal");
	if (!ok)
		seterr(err, "store: %s cannot use WAL mode (journal mode stays %s)",
		       path, mode ? mode : "unknown");
	sqlite3_finalize(st);
	if (!ok)
		return -1;
	ss->ckpt = walckpt_start(ss->db, file, sync, err);
	return ss->ckpt ? 0 : -1;
}

/* TABULA_DB_SYNC: "normal" (default) or "full".  Returns the pragma. */
static const char *sync_pragma(struct buf *err)
{
	const char *v = getenv("TABULA_DB_SYNC");

	if (!v || !v[0] || !strcmp(v, "normal"))
		return "PRAGMA synchronous = NORMAL";
	if (!strcmp(v, "full"))
		return "PRAGMA synchronous = FULL";
	seterr(err, "store: TABULA_DB_SYNC=%s: expected normal or full", v);
	return NULL;
}

/* The migration loop's calls (state/schema.h). */
struct sqlite_migration {
	struct sqlite_store *ss;
	const char *path;
};

static int mig_begin(void *ctx, struct buf *err)
{
	return sqlite_exec_sql(((struct sqlite_migration *)ctx)->ss, "BEGIN IMMEDIATE", err);
}

static int mig_version(void *ctx, long long *v, struct buf *err)
{
	int n;

	if (pragma_int(((struct sqlite_migration *)ctx)->ss, "PRAGMA user_version", &n, err))
		return -1;
	*v = n;
	return 0;
}

static int mig_exec(void *ctx, const char *sql, struct buf *err)
{
	return sqlite_exec_sql(((struct sqlite_migration *)ctx)->ss, sql, err);
}

static int mig_set_version(void *ctx, long long v, struct buf *err)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld", v);
	return sqlite_exec_sql(((struct sqlite_migration *)ctx)->ss, sql, err);
}

static int mig_commit(void *ctx, struct buf *err)
{
	return sqlite_exec_sql(((struct sqlite_migration *)ctx)->ss, "COMMIT", err);
}

static void mig_rollback(void *ctx)
{
	struct sqlite_store *ss = ((struct sqlite_migration *)ctx)->ss;

	if (!sqlite3_get_autocommit(ss->db))
		sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
}

static void mig_too_new(void *ctx, long long v, struct buf *err)
{
	seterr(err, "store: %s is at schema version %lld, newer than this program"
	       " knows (%d); run a newer tabula or restore a backup",
	       ((struct sqlite_migration *)ctx)->path, v, schema_version());
}

static const struct schema_driver sqlite_migrations = {
	.dialect = SCHEMA_SQLITE,
	.begin = mig_begin,
	.version = mig_version,
	.exec = mig_exec,
	.set_version = mig_set_version,
	.commit = mig_commit,
	.rollback = mig_rollback,
	.too_new = mig_too_new,
};

/* Applies the missing migrations (state/schema.c). */
static int migrate(struct sqlite_store *ss, const char *path, struct buf *err)
{
	struct sqlite_migration m = { ss, path };

	return schema_migrate(&sqlite_migrations, &m, err);
}

/*
 * The database must be tabula's.  PRAGMA application_id says whose a
 * SQLite file is; tabula's is STORE_APPLICATION_ID.  An empty file is new:
 * stamped.  A file with id 0 that holds tabula's tables and a schema
 * version was written by a tabula from before the id: adopted and stamped.
 * Any other file (another program's id, or someone else's tables) is
 * refused as it is: migrating it would write tabula's tables into another
 * program's data.  Under BEGIN IMMEDIATE, so two processes opening a new
 * file at once agree.
 */
static int claim(struct sqlite_store *ss, const char *path, struct buf *err)
{
	char sql[64];
	int id, version, objects, tables;

	if (sqlite_exec_sql(ss, "BEGIN IMMEDIATE", err))
		return -1;
	if (pragma_int(ss, "PRAGMA application_id", &id, err) ||
	    pragma_int(ss, "PRAGMA user_version", &version, err) ||
	    pragma_int(ss, "SELECT count(*) FROM sqlite_master", &objects, err) ||
	    pragma_int(ss, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name"
		       " IN ('sessions', 'seats', 'actions', 'outbox', 'cursors')", &tables, err))
		goto fail;
	if (id == STORE_APPLICATION_ID)
		return sqlite_exec_sql(ss, "COMMIT", err) ? -1 : 0;
	if (id != 0) {
		seterr(err, "store: %s is not a tabula database (its SQLite application_id is"
		       " 0x%08x; tabula's is 0x%08x, \"tabu\"); give tabula a file of its own",
		       path, (unsigned)id, (unsigned)STORE_APPLICATION_ID);
		goto fail;
	}
	if ((objects || version) && !(version >= 1 && tables == 5)) {
		seterr(err, "store: %s is not a tabula database (it holds other data and no"
		       " tabula application_id); give tabula a file of its own", path);
		goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APPLICATION_ID);
	if (sqlite_exec_sql(ss, sql, err) || sqlite_exec_sql(ss, "COMMIT", err))
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(ss->db))
		sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/*
 * Makes the file at p private to the operator: a regular file, not a
 * symbolic link, mode 0600 at most.  create: a missing p is created 0600
 * (then SQLite gives its -wal and -shm the same mode); else a missing p is
 * fine.  Works on an open descriptor (O_NOFOLLOW), so the file checked is
 * the file changed.
 */
static int private_file(const char *p, int create, struct buf *err)
{
	struct stat st;
	int fd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);

	if (fd < 0) {
		if (errno == ENOENT && !create)
			return 0;
		if (errno == ELOOP || errno == EMLINK)
			seterr(err, "store: %s is a symbolic link; give the real path (the store"
			       " holds every hidden hand, a link could put it anywhere)", p);
		else
			seterr(err, "store: cannot open %s: %s", p, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		seterr(err, "store: cannot check %s: %s", p, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, "store: %s is not a regular file", p);
		goto fail;
	}
	if ((st.st_mode & 077) && fchmod(fd, st.st_mode & 0700)) {
		seterr(err, "store: %s can be read by others and cannot be made private (%s);"
		       " chmod 600 it", p, strerror(errno));
		goto fail;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

/* The database and the side files SQLite may have left next to it. */
static int make_private(const char *path, struct buf *err)
{
	static const char *const sides[] = { "-wal", "-shm", "-journal" };
	struct buf side = BUF_INIT;
	size_t i;
	int rc = 0;

	if (!strcmp(path, ":memory:"))
		return 0;
	for (i = 0; i < sizeof(sides) / sizeof(sides[0]) && !rc; i++) {
		buf_reset(&side);
		buf_printf(&side, "%s%s", path, sides[i]);
		rc = private_file(buf_str(&side), 0, err);
	}
	buf_release(&side);
	return rc ? -1 : private_file(path, 1, err);
}

struct store *store_sqlite_open(const char *path, struct buf *err)
{
	struct sqlite_store *ss;
	const char *sync = sync_pragma(err);
	int rc;

	if (!sync)
		return NULL;
	if (!path || !path[0]) {
		seterr(err, "store: no database path");
		return NULL;
	}
	if (make_private(path, err))
		return NULL;
	ss = xcalloc(1, sizeof(*ss));
	ss->base.ops = &sqlite_ops;
	rc = sqlite3_open_v2(path, &ss->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		seterr(err, "store: cannot open %s: %s", path,
		       ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* Extended codes tell a duplicate action from a duplicate outbox key. */
	sqlite3_extended_result_codes(ss->db, 1);
	sqlite3_busy_timeout(ss->db, BUSY_TIMEOUT_MS);
	if (sqlite_exec_sql(ss, "PRAGMA foreign_keys = ON", err) ||
	    sqlite_exec_sql(ss, sync, err) ||
	    claim(ss, path, err) ||
	    migrate(ss, path, err) ||
	    set_wal(ss, path, sync, err) ||
	    sqlite_prepare_all(ss, err))
		goto fail;
	return &ss->base;
fail:
	sqlite_close(&ss->base);
	return NULL;
}
