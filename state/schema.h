/*
 * schema.h: the store's schema, written once for both backends (state/
 * only): one ordered list of numbered migrations, each statement in the
 * text both backends take or, where their SQL differs (types, quoting,
 * WITHOUT ROWID, PostgreSQL's functions), one text per backend; and the
 * loop that brings a database up to date, which each backend drives
 * through its own driver calls.  docs/store.md says how to add a table.
 */
#ifndef STATE_SCHEMA_H
#define STATE_SCHEMA_H

#include "util/buf.h"

enum schema_dialect {
	SCHEMA_SQLITE,
	SCHEMA_POSTGRES,
};

/* The schema version this program writes: the number of migrations. */
int schema_version(void);

/* Migration `version` (1..schema_version()) in the dialect's SQL, its
 * statements in order, into out (reset first). */
void schema_sql(int version, enum schema_dialect dialect, struct buf *out);

/*
 * What a backend gives the migration loop.  begin opens a write
 * transaction that serialises migrations across processes; version reads
 * the stored schema version; exec runs a migration's SQL; set_version
 * stores a new version (in the same transaction); too_new says (into err)
 * that the stored version is newer than this program knows; rollback ends
 * a failed transaction, if one is still open.  All but rollback: 0 or -1.
 */
struct schema_driver {
	enum schema_dialect dialect;
	int (*begin)(void *ctx, struct buf *err);
	int (*version)(void *ctx, long long *v, struct buf *err);
	int (*exec)(void *ctx, const char *sql, struct buf *err);
	int (*set_version)(void *ctx, long long v, struct buf *err);
	int (*commit)(void *ctx, struct buf *err);
	void (*rollback)(void *ctx);
	void (*too_new)(void *ctx, long long v, struct buf *err);
};

/*
 * Applies the missing migrations, each in its own transaction with its
 * version bump, so a crash leaves the database at some whole version; the
 * version is read again inside each transaction, since another process
 * may have migrated while this one waited.  0 or -1 with err.
 */
int schema_migrate(const struct schema_driver *d, void *ctx, struct buf *err);

#endif
