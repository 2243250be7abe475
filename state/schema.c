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
#define SCHEMA_STEPS 16

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
	/*
	 * Finished games and ratings (issue 26).  results is one row per
	 * finished session, keyed by it, so a game is never rated twice; no
	 * foreign key to sessions, so the history survives whatever becomes
	 * of sessions.  A rating is per (platform, scope, game, player), scope
	 * "" = the whole platform or a community id, so one game updates both
	 * rows in the commit of the last move; conservative = mu - 3 sigma is
	 * a column so that leaderboards read an index in order, the player in
	 * it breaking ties in the same order.  PostgreSQL's commit is one
	 * pipeline, so the check that a rating row did not move since it was
	 * read (its games count) is a function raising TB001, and forgetting a
	 * player is one function (one statement, one transaction).
	 */
	{ 6, "finished games, ratings, their history and hidden players (issue 26)", {
		/* the community a room's games are rated in (a Discord guild, a
		 * Matrix space): kept with the session, as its last move may
		 * come from an AI or a timeout, not from a command */
		BOTH("ALTER TABLE sessions ADD COLUMN community TEXT NOT NULL DEFAULT '';"),
		EACH("CREATE TABLE results ("
		     " session INTEGER PRIMARY KEY,"
		     " platform TEXT NOT NULL,"
		     " room TEXT NOT NULL,"
		     " community TEXT NOT NULL DEFAULT '',"
		     " game TEXT NOT NULL,"
		     " options TEXT NOT NULL,"
		     " created INTEGER NOT NULL,"
		     " finished_at INTEGER NOT NULL,"
		     " moves INTEGER NOT NULL,"
		     " rated INTEGER NOT NULL CHECK (rated IN (0, 1))"
		     ");",
		     "CREATE TABLE results ("
		     " session BIGINT PRIMARY KEY,"
		     " platform TEXT NOT NULL,"
		     " room TEXT NOT NULL,"
		     " community TEXT NOT NULL DEFAULT '',"
		     " game TEXT NOT NULL,"
		     " options TEXT NOT NULL,"
		     " created BIGINT NOT NULL,"
		     " finished_at BIGINT NOT NULL,"
		     " moves BIGINT NOT NULL,"
		     " rated INTEGER NOT NULL CHECK (rated IN (0, 1))"
		     ");"),
		BOTH("CREATE INDEX results_room ON results"
		     " (platform, room, finished_at DESC, session DESC);"),
		EACH("CREATE TABLE result_seats ("
		     " session INTEGER NOT NULL REFERENCES results (session) ON DELETE CASCADE,"
		     " seat INTEGER NOT NULL CHECK (seat >= 0),"
		     " player TEXT NOT NULL,"
		     " name TEXT NOT NULL,"
		     " is_bot INTEGER NOT NULL,"
		     " place INTEGER NOT NULL CHECK (place >= 1),"
		     " score INTEGER NOT NULL,"
		     " winner INTEGER NOT NULL,"
		     " nwinners INTEGER NOT NULL,"
		     " last INTEGER NOT NULL,"
		     " PRIMARY KEY (session, seat)"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE result_seats ("
		     " session BIGINT NOT NULL REFERENCES results (session) ON DELETE CASCADE,"
		     " seat INTEGER NOT NULL CHECK (seat >= 0),"
		     " player TEXT NOT NULL,"
		     " name TEXT NOT NULL,"
		     " is_bot INTEGER NOT NULL,"
		     " place INTEGER NOT NULL CHECK (place >= 1),"
		     " score BIGINT NOT NULL,"
		     " winner INTEGER NOT NULL,"
		     " nwinners INTEGER NOT NULL,"
		     " last INTEGER NOT NULL,"
		     " PRIMARY KEY (session, seat)"
		     ");"),
		/* forgetting a player finds their seats without a scan */
		BOTH("CREATE INDEX result_seats_player ON result_seats (player) WHERE player <> '';"),
		EACH("CREATE TABLE ratings ("
		     " platform TEXT NOT NULL,"
		     " scope TEXT NOT NULL,"
		     " game TEXT NOT NULL,"
		     " player TEXT NOT NULL,"
		     " name TEXT NOT NULL,"
		     " mu REAL NOT NULL,"
		     " sigma REAL NOT NULL,"
		     " conservative REAL NOT NULL,"
		     " games INTEGER NOT NULL,"
		     " wins REAL NOT NULL,"
		     " place_sum INTEGER NOT NULL,"
		     " score_sum INTEGER NOT NULL,"
		     " best_score INTEGER NOT NULL,"
		     " streak INTEGER NOT NULL,"
		     " last_at INTEGER NOT NULL,"
		     " PRIMARY KEY (platform, scope, game, player)"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE ratings ("
		     " platform TEXT NOT NULL,"
		     " scope TEXT NOT NULL,"
		     " game TEXT NOT NULL,"
		     " player TEXT NOT NULL,"
		     " name TEXT NOT NULL,"
		     " mu DOUBLE PRECISION NOT NULL,"
		     " sigma DOUBLE PRECISION NOT NULL,"
		     " conservative DOUBLE PRECISION NOT NULL,"
		     " games BIGINT NOT NULL,"
		     " wins DOUBLE PRECISION NOT NULL,"
		     " place_sum BIGINT NOT NULL,"
		     " score_sum BIGINT NOT NULL,"
		     " best_score BIGINT NOT NULL,"
		     " streak BIGINT NOT NULL,"
		     " last_at BIGINT NOT NULL,"
		     " PRIMARY KEY (platform, scope, game, player)"
		     ");"),
		BOTH("CREATE INDEX ratings_board ON ratings"
		     " (platform, scope, game, conservative DESC, player);"),
		BOTH("CREATE INDEX ratings_player ON ratings (platform, player, scope, game);"),
		EACH("CREATE TABLE rating_history ("
		     " platform TEXT NOT NULL,"
		     " scope TEXT NOT NULL,"
		     " game TEXT NOT NULL,"
		     " player TEXT NOT NULL,"
		     " session INTEGER NOT NULL,"
		     " at INTEGER NOT NULL,"
		     " mu REAL NOT NULL,"
		     " sigma REAL NOT NULL,"
		     " PRIMARY KEY (platform, scope, game, player, session)"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE rating_history ("
		     " platform TEXT NOT NULL,"
		     " scope TEXT NOT NULL,"
		     " game TEXT NOT NULL,"
		     " player TEXT NOT NULL,"
		     " session BIGINT NOT NULL,"
		     " at BIGINT NOT NULL,"
		     " mu DOUBLE PRECISION NOT NULL,"
		     " sigma DOUBLE PRECISION NOT NULL,"
		     " PRIMARY KEY (platform, scope, game, player, session)"
		     ");"),
		BOTH("CREATE INDEX rating_history_at ON rating_history"
		     " (platform, scope, game, player, at, session);"),
		EACH("CREATE TABLE players ("
		     " platform TEXT NOT NULL,"
		     " player TEXT NOT NULL,"
		     " hidden INTEGER NOT NULL CHECK (hidden IN (0, 1)),"
		     " PRIMARY KEY (platform, player)"
		     ") WITHOUT ROWID;",
		     "CREATE TABLE players ("
		     " platform TEXT NOT NULL,"
		     " player TEXT NOT NULL,"
		     " hidden INTEGER NOT NULL CHECK (hidden IN (0, 1)),"
		     " PRIMARY KEY (platform, player)"
		     ");"),
		/* the update waits for a concurrent one and then sees its games
		 * count (READ COMMITTED re-reads the row); a new row that
		 * appeared meanwhile makes the insert do nothing: both TB001 */
		EACH(NULL,
		     "CREATE FUNCTION tabula_rating_put(p_platform text, p_scope text, p_game text,"
		     " p_player text, p_name text, p_mu float8, p_sigma float8, p_cons float8,"
		     " p_games bigint, p_wins float8, p_place_sum bigint, p_score_sum bigint,"
		     " p_best bigint, p_streak bigint, p_last_at bigint, p_read bigint)"
		     " RETURNS void LANGUAGE plpgsql AS $$"
		     " BEGIN"
		     "  UPDATE ratings SET name = p_name, mu = p_mu, sigma = p_sigma,"
		     "   conservative = p_cons, games = p_games, wins = p_wins,"
		     "   place_sum = p_place_sum, score_sum = p_score_sum, best_score = p_best,"
		     "   streak = p_streak, last_at = p_last_at"
		     "   WHERE platform = p_platform AND scope = p_scope AND game = p_game"
		     "   AND player = p_player AND games = p_read;"
		     "  IF FOUND THEN RETURN; END IF;"
		     "  IF p_read = 0 THEN"
		     "   INSERT INTO ratings (platform, scope, game, player, name, mu, sigma,"
		     "    conservative, games, wins, place_sum, score_sum, best_score, streak, last_at)"
		     "   VALUES (p_platform, p_scope, p_game, p_player, p_name, p_mu, p_sigma, p_cons,"
		     "    p_games, p_wins, p_place_sum, p_score_sum, p_best, p_streak, p_last_at)"
		     "   ON CONFLICT DO NOTHING;"
		     "   IF FOUND THEN RETURN; END IF;"
		     "  END IF;"
		     "  RAISE EXCEPTION 'the rating of % in % (scope \"%\") was changed elsewhere"
		     " (read after % games): nothing stored', p_player, p_game, p_scope, p_read"
		     "   USING ERRCODE = 'TB001';"
		     " END $$;"),
		EACH(NULL,
		     "CREATE FUNCTION tabula_forget(p_platform text, p_player text) RETURNS void"
		     " LANGUAGE sql AS $$"
		     " DELETE FROM ratings WHERE platform = p_platform AND player = p_player;"
		     " DELETE FROM rating_history WHERE platform = p_platform AND player = p_player;"
		     " DELETE FROM players WHERE platform = p_platform AND player = p_player;"
		     " UPDATE result_seats SET player = '', name = '' WHERE player = p_player"
		     "  AND session IN (SELECT session FROM results WHERE platform = p_platform);"
		     " UPDATE seats SET name = '' WHERE \"user\" = p_player AND is_bot = 0"
		     "  AND session IN (SELECT id FROM sessions WHERE platform = p_platform"
		     "  AND status IN (2, 3));"
		     " $$;"),
	} },
	/*
	 * The games' web links (issue 27, docs/web.md): one token per
	 * session, replaced by `game web reset`.  The page is found by the
	 * token's SHA-256 (64 hex digits, unique: its index is the lookup),
	 * never by the token itself; the token is kept so that the bot can
	 * post the link again.  A link goes with its session.
	 */
	{ 7, "the games' web links: a token and its SHA-256 per session (issue 27)", {
		EACH("CREATE TABLE web_links ("
		     " session INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,"
		     " hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),"
		     " token TEXT NOT NULL"
		     ");",
		     "CREATE TABLE web_links ("
		     " session BIGINT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,"
		     " hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),"
		     " token TEXT NOT NULL"
		     ");"),
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
