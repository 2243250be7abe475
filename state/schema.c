/*
 * schema.c: the store's schema and its migrations, once for both backends
 * (state/schema.h), and the loop that applies them.
 *
 * Migration N brings a database from schema version N-1 to N, in one
 * transaction with the version bump (SQLite: PRAGMA user_version;
 * PostgreSQL: tabula_meta's schema_version).  Both backends count alike,
 * so a store copied with --migrate-store keeps its meaning.  Never edit a
 * migration that has shipped: append one (docs/store.md).
 *
 * Notes on types: seed is a uint64 kept as the int64 with the same bits
 * (SQLite integers are signed 64-bit, PostgreSQL has no unsigned type);
 * status is enum session_status; times are unix seconds; an outbox key of
 * "" is stored as NULL so that messages without an idempotency key do not
 * collide under UNIQUE.  Where the SQL differs: SQLite's INTEGER is 64-bit
 * and PostgreSQL needs BIGINT; an id is INTEGER PRIMARY KEY (AUTOINCREMENT
 * where ids must never come back) against BIGSERIAL; "user" is a reserved
 * word in PostgreSQL, quoted there; SQLite's tables keyed by their primary
 * key are WITHOUT ROWID.
 */
#include "state/schema.h"

#include <stdio.h>

/* Statements per migration, at most. */
#define SCHEMA_STEPS 12

/* One statement: `both` when the backends take the same text, else one
 * text each. */
struct schema_step {
	const char *both;
	const char *sqlite;
	const char *postgres;
};

struct schema_migration {
	int version;
	const char *why;
	struct schema_step steps[SCHEMA_STEPS];	/* up to the first empty one */
};

#define BOTH(sql) { .both = (sql) }
#define EACH(lite, pg) { .sqlite = (lite), .postgres = (pg) }

static const struct schema_migration migrations[] = {
	{ 1, "the initial schema", {
		EACH("CREATE TABLE sessions ("
		     " id INTEGER PRIMARY KEY,"
		     " platform TEXT NOT NULL,"
		     " room TEXT NOT NULL,"
		     " game TEXT NOT NULL,"
		     " options TEXT NOT NULL,"
		     " creator TEXT NOT NULL,"
		     " locale TEXT NOT NULL,"
		     " status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 3),"
		     " seed INTEGER NOT NULL,"
		     " version INTEGER NOT NULL,"
		     " created INTEGER NOT NULL,"
		     " updated INTEGER NOT NULL,"
		     " state TEXT"
		     ");",
		     "CREATE TABLE sessions ("
		     " id BIGSERIAL PRIMARY KEY,"
		     " platform TEXT NOT NULL,"
		     " room TEXT NOT NULL,"
		     " game TEXT NOT NULL,"
		     " options TEXT NOT NULL,"
		     " creator TEXT NOT NULL,"
		     " locale TEXT NOT NULL,"
		     " status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 3),"
		     " seed BIGINT NOT NULL,"
		     " version BIGINT NOT NULL,"
		     " created BIGINT NOT NULL,"
		     " updated BIGINT NOT NULL,"
		     " state TEXT"
		     ");"),
		BOTH("CREATE INDEX sessions_room ON sessions (platform, room, id);"),
		BOTH("CREATE INDEX sessions_open ON sessions (id) WHERE status IN (0, 1);"),
		EACH("CREATE TABLE seats ("
		     " session INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
		     " seat INTEGER NOT NULL CHECK (seat >= 0),"
		     " user TEXT NOT NULL,"
		     " name TEXT NOT NULL,"
		     " is_bot INTEGER NOT NULL,"
		     " notify_dm INTEGER NOT NULL,"
		     " PRIMARY KEY (session, seat)"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE seats ("
		     " session BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
		     " seat INTEGER NOT NULL CHECK (seat >= 0),"
		     " \"user\" TEXT NOT NULL,"
		     " name TEXT NOT NULL,"
		     " is_bot INTEGER NOT NULL,"
		     " notify_dm INTEGER NOT NULL,"
		     " PRIMARY KEY (session, seat)"
		     ");"),
		EACH("CREATE TABLE actions ("
		     " session INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
		     " seq INTEGER NOT NULL CHECK (seq >= 1),"
		     " seat INTEGER NOT NULL,"
		     " move TEXT NOT NULL,"
		     " user TEXT NOT NULL,"
		     " at INTEGER NOT NULL,"
		     " PRIMARY KEY (session, seq)"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE actions ("
		     " session BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
		     " seq BIGINT NOT NULL CHECK (seq >= 1),"
		     " seat INTEGER NOT NULL,"
		     " move TEXT NOT NULL,"
		     " \"user\" TEXT NOT NULL,"
		     " at BIGINT NOT NULL,"
		     " PRIMARY KEY (session, seq)"
		     ");"),
		EACH("CREATE TABLE outbox ("
		     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
		     " platform TEXT NOT NULL,"
		     " room TEXT NOT NULL,"
		     " user TEXT NOT NULL,"
		     " key TEXT UNIQUE,"
		     " payload TEXT NOT NULL,"
		     " created INTEGER NOT NULL,"
		     " sent_at INTEGER"
		     ");",
		     "CREATE TABLE outbox ("
		     " id BIGSERIAL PRIMARY KEY,"
		     " platform TEXT NOT NULL,"
		     " room TEXT NOT NULL,"
		     " \"user\" TEXT NOT NULL,"
		     " key TEXT UNIQUE,"
		     " payload TEXT NOT NULL,"
		     " created BIGINT NOT NULL,"
		     " sent_at BIGINT"
		     ");"),
		BOTH("CREATE INDEX outbox_pending ON outbox (id) WHERE sent_at IS NULL;"),
		EACH("CREATE TABLE cursors ("
		     " key TEXT PRIMARY KEY,"
		     " value TEXT NOT NULL"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE cursors ("
		     " key TEXT PRIMARY KEY,"
		     " value TEXT NOT NULL"
		     ");"),
	} },
	{ 2, "room settings (struct session_rec.settings, JSON object text)", {
		BOTH("ALTER TABLE sessions ADD COLUMN settings TEXT NOT NULL DEFAULT '';"),
	} },
	/* the partial index keeps start-up and the timer's next_due to one
	 * index lookup */
	{ 3, "when a session next needs the bot (session_rec.due, unix seconds, 0 = never)", {
		EACH("ALTER TABLE sessions ADD COLUMN due INTEGER NOT NULL DEFAULT 0;",
		     "ALTER TABLE sessions ADD COLUMN due BIGINT NOT NULL DEFAULT 0;"),
		BOTH("CREATE INDEX sessions_due ON sessions (due) WHERE due > 0;"),
	} },
	/* votes are JSON object text, '' = none; what is looked up by user
	 * and by platform: a player's games (mygames, a DM's one game) and
	 * the lobbies open on a platform (the lobby cap), without a scan */
	{ 4, "the open votes of a session; lookups by user and lobbies by platform", {
		BOTH("ALTER TABLE sessions ADD COLUMN votes TEXT NOT NULL DEFAULT '';"),
		EACH("CREATE INDEX seats_user ON seats (user) WHERE is_bot = 0;",
		     "CREATE INDEX seats_user ON seats (\"user\") WHERE is_bot = 0;"),
		BOTH("CREATE INDEX sessions_lobbies ON sessions (platform) WHERE status = 0;"),
	} },
	/* claim: a node's lease name, '' = nobody yet; until: unix
	 * milliseconds (PostgreSQL: on the server's clock).  PostgreSQL's
	 * commit is one pipeline, so its version checks and fences are
	 * functions that raise their own SQLSTATEs (TB001-TB003) and abort
	 * the pipeline. */
	{ 5, "several processes (docs/deploy.md): due-work claims, outbox owners, leases", {
		BOTH("ALTER TABLE sessions ADD COLUMN claim TEXT NOT NULL DEFAULT '';"),
		BOTH("ALTER TABLE outbox ADD COLUMN owner TEXT NOT NULL DEFAULT '';"),
		EACH("CREATE TABLE leases ("
		     " name TEXT PRIMARY KEY,"
		     " holder TEXT NOT NULL,"
		     " until INTEGER NOT NULL"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE leases ("
		     " name TEXT PRIMARY KEY,"
		     " holder TEXT NOT NULL,"
		     " until BIGINT NOT NULL"
		     ");"),
		EACH(NULL,
		     "CREATE FUNCTION tabula_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS"
		     " $$SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint$$;"),
		/* the stored version must be version - 1; the row stays locked
		 * until the commit ends, so nobody changes it in between */
		EACH(NULL,
		     "CREATE FUNCTION tabula_expect(sid bigint, v bigint) RETURNS void"
		     " LANGUAGE plpgsql AS $$"
		     " DECLARE cur bigint;"
		     " BEGIN"
		     "  SELECT version INTO cur FROM sessions WHERE id = sid FOR UPDATE;"
		     "  IF NOT FOUND THEN"
		     "   RAISE EXCEPTION 'no session % to update', sid USING ERRCODE = 'TB002';"
		     "  END IF;"
		     "  IF cur <> v - 1 THEN"
		     "   RAISE EXCEPTION 'session % was changed elsewhere (stored version %;"
		     " this change, version %, must follow version %)', sid, cur, v, v - 1"
		     "   USING ERRCODE = 'TB001';"
		     "  END IF;"
		     " END $$;"),
		/* FOR SHARE: nobody takes the lease over before the commit ends */
		EACH(NULL,
		     "CREATE FUNCTION tabula_fence(lease text, who text) RETURNS void"
		     " LANGUAGE plpgsql AS $$"
		     " BEGIN"
		     "  PERFORM 1 FROM leases WHERE name = lease AND holder = who"
		     "   AND until > tabula_now_ms() FOR SHARE;"
		     "  IF NOT FOUND THEN"
		     "   RAISE EXCEPTION 'the lease % is not held by this process: nothing stored',"
		     "    lease USING ERRCODE = 'TB003';"
		     "  END IF;"
		     " END $$;"),
	} },
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int schema_version(void)
{
	return NMIGRATIONS;
}

void schema_sql(int version, enum schema_dialect dialect, struct buf *out)
{
	const struct schema_migration *m = &migrations[version - 1];
	int i;

	buf_reset(out);
	for (i = 0; i < SCHEMA_STEPS; i++) {
		const struct schema_step *s = &m->steps[i];
		const char *sql = s->both ? s->both :
			dialect == SCHEMA_SQLITE ? s->sqlite : s->postgres;

		if (!s->both && !s->sqlite && !s->postgres)
			break;
		if (sql)
			buf_addstr(out, sql);
	}
}

/* One missing migration (or none, when another process was quicker), in
 * its own transaction; *v is the version after it. */
static int migrate_one(const struct schema_driver *d, void *ctx, long long *v,
		       struct buf *sql, struct buf *err)
{
	if (d->begin(ctx, err))
		return -1;
	if (d->version(ctx, v, err))
		goto fail;
	if (*v > NMIGRATIONS) {
		d->too_new(ctx, *v, err);
		goto fail;
	}
	if (*v < NMIGRATIONS) {
		schema_sql((int)*v + 1, d->dialect, sql);
		if (d->exec(ctx, buf_str(sql), err) || d->set_version(ctx, *v + 1, err))
			goto fail;
		++*v;
	}
	if (d->commit(ctx, err))
		goto fail;
	return 0;
fail:
	d->rollback(ctx);
	return -1;
}

int schema_migrate(const struct schema_driver *d, void *ctx, struct buf *err)
{
	struct buf sql = BUF_INIT;
	long long v;
	int rc = 0;

	if (d->version(ctx, &v, err))
		return -1;
	if (v > NMIGRATIONS) {
		d->too_new(ctx, v, err);
		return -1;
	}
	while (!rc && v < NMIGRATIONS)
		rc = migrate_one(d, ctx, &v, &sql, err);
	buf_release(&sql);
	return rc;
}
