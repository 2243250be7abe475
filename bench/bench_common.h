/*
 * bench_common.h: what the session benches share (header only: the Makefile
 * builds each bench .c file alone against build/libtabula.a).
 *
 * A tiny adapter in the manner of tests/support/capture.c: it renders what
 * the bot says to plain text (about the work a real adapter does), keeps
 * the outbox ids it was asked to send, and confirms them when the bench
 * says so (a real platform confirms asynchronously, after the command).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bench/bench_util.h"
#include "bot/session.h"
#include "util/buf.h"
#include "util/rich.h"

/* ---- the adapter ---- */

struct bench_adapter {
	struct adapter base;
	int64_t *sent;		/* outbox ids to confirm */
	size_t nsent, cap;
	size_t nmsg;		/* messages sent or replied */
	struct buf text;	/* scratch */
};

static int ba_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	struct bench_adapter *b = (struct bench_adapter *)a;

	buf_reset(&b->text);
	rich_to_plain(m->body, &b->text);
	b->nmsg++;
	if (m->outbox_id) {
		if (b->nsent == b->cap) {
			b->cap = b->cap ? b->cap * 2 : 64;
			b->sent = xrealloc(b->sent, b->cap * sizeof(*b->sent));
		}
		b->sent[b->nsent++] = m->outbox_id;
	}
	return 0;
}

static int ba_reply(struct adapter *a, const struct command *cmd, int private_,
		    const struct rich *body, struct buf *err)
{
	struct bench_adapter *b = (struct bench_adapter *)a;

	buf_reset(&b->text);
	rich_to_plain(body, &b->text);
	b->nmsg++;
	return 0;
}

static int ba_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	return 0;
}

static void ba_stop(struct adapter *a)
{
}

static void ba_free(struct adapter *a)
{
	struct bench_adapter *b = (struct bench_adapter *)a;

	free(b->sent);
	buf_release(&b->text);
	free(b);
}

static const struct adapter_ops bench_adapter_ops = {
	.api_version = ADAPTER_API_VERSION, .name = "console", .caps = 0,
	.start = ba_start, .stop = ba_stop, .send = ba_send, .reply = ba_reply,
	.free = ba_free,
};

static void ba_on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static void ba_on_sent(void *ctx, struct adapter *a, int64_t id)
{
	session_mgr_sent(ctx, id);
}

static inline struct bench_adapter *bench_adapter_new(struct session_mgr *m)
{
	struct bench_adapter *b = xcalloc(1, sizeof(*b));

	b->base.ops = &bench_adapter_ops;
	b->base.on_command = ba_on_command;
	b->base.on_sent = ba_on_sent;
	b->base.ctx = m;
	session_mgr_add_adapter(m, &b->base);
	return b;
}

/* Confirms every outbox message sent so far (one store write each). */
static inline void bench_confirm(struct session_mgr *m, struct bench_adapter *b)
{
	size_t i;

	for (i = 0; i < b->nsent; i++)
		session_mgr_sent(m, b->sent[i]);
	b->nsent = 0;
}

static inline void bench_cmd(struct session_mgr *m, struct bench_adapter *b, const char *room,
			     const char *user, const char *text)
{
	struct command cmd = {
		.platform = "console", .room = room, .user = user, .name = user,
		.text = text, .text_len = strlen(text),
	};

	session_mgr_handle(m, &b->base, &cmd);
}

/* A new game in room: user "<room>-0" opens it, humans-1 more join, then
 * bots AI seats, and it starts.  Returns the session, or NULL. */
static inline struct session *bench_open_game(struct session_mgr *m, struct bench_adapter *b,
					      const char *room, const char *game, int humans,
					      int bots)
{
	char user[64], text[64];
	struct buf err = BUF_INIT;
	struct session *s;
	int i;

	snprintf(text, sizeof(text), "game new %s", game);
	snprintf(user, sizeof(user), "%s-0", room);
	bench_cmd(m, b, room, user, text);
	for (i = 1; i < humans; i++) {
		snprintf(user, sizeof(user), "%s-%d", room, i);
		bench_cmd(m, b, room, user, "game join");
	}
	snprintf(user, sizeof(user), "%s-0", room);
	if (bots) {
		snprintf(text, sizeof(text), "game addbot %d", bots);
		bench_cmd(m, b, room, user, text);
	}
	bench_cmd(m, b, room, user, "game start");
	s = session_mgr_find(m, "console", room, &err);
	buf_release(&err);
	if (!s || s->rec.status != SESSION_ACTIVE || !s->st) {
		fprintf(stderr, "bench: could not start %s in %s\n", game, room);
		return NULL;
	}
	return s;
}

/* The first awaited human seat of s, or -1. */
static inline int bench_human_awaited(const struct session *s)
{
	unsigned aw;
	int i;

	if (!s->st || s->rec.status != SESSION_ACTIVE)
		return -1;
	aw = s->ops->awaiting(s->st);
	for (i = 0; i < s->rec.nseats; i++)
		if ((aw & (1u << i)) && !s->rec.seats[i].is_bot)
			return i;
	return -1;
}

/* Writes "play <id>" for a move of seat: uniformly random among the
 * non-meta moves, or the AI's choice. */
static inline void bench_pick_play(const struct session *s, int seat, struct rng *r, int ai,
				   struct move_list *ml, struct buf *out)
{
	struct move mv;

	if (ai) {
		s->ops->bot_move(s->st, seat, r, &mv);
	} else {
		int n;

		s->ops->moves(s->st, seat, ml);
		n = ml->n - ml->nmeta;
		mv = ml->v[rng_below(r, (uint32_t)(n > 0 ? n : ml->n))];
	}
	buf_reset(out);
	buf_addstr(out, "play ");
	s->ops->move_id(s->st, seat, mv, out);
}

/* ---- temporary store files ---- */

struct bench_db {
	char dir[256];
	char path[300];
};

static inline int bench_db_make(struct bench_db *d, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(d->dir, sizeof(d->dir), "%s/tabula-bench-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 tag);
	if (!mkdtemp(d->dir)) {
		perror("bench: mkdtemp");
		return -1;
	}
	snprintf(d->path, sizeof(d->path), "%s/tabula.db", d->dir);
	return 0;
}

static inline void bench_db_remove(struct bench_db *d)
{
	char p[320];

	unlink(d->path);
	snprintf(p, sizeof(p), "%s-wal", d->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", d->path);
	unlink(p);
	rmdir(d->dir);
}

static inline struct store *bench_store_open(const char *path, const char *sync)
{
	struct buf err = BUF_INIT;
	struct store *st;

	setenv("TABULA_DB_SYNC", sync, 1);
	st = store_sqlite_open(path, &err);
	if (!st)
		fprintf(stderr, "bench: store %s: %s\n", path, buf_str(&err));
	buf_release(&err);
	return st;
}

static inline int bench_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "bench: %s: %s\n", sql, msg ? msg : "?");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/*
 * Copies session `tmpl` (its row, seats and actions) n times under rooms
 * "<prefix><i>", in one transaction on a connection of its own (the store
 * must be closed).  The copies share the template's seed and snapshot,
 * which is fine for loading them.
 */
static inline int bench_clone_sessions(const char *path, int64_t tmpl, long n,
				       const char *prefix)
{
	sqlite3 *db = NULL;
	char sql[2048];
	int rc = -1;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		fprintf(stderr, "bench: open %s\n", path);
		goto out;
	}
	snprintf(sql, sizeof(sql),
		 "BEGIN;"
		 "CREATE TEMP TABLE n(i INTEGER PRIMARY KEY);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %ld)"
		 " INSERT INTO n SELECT i FROM c;"
		 "CREATE TEMP TABLE map(i INTEGER PRIMARY KEY, id INTEGER);"
		 "INSERT INTO sessions (platform, room, game, options, creator, locale, status,"
		 " seed, version, created, updated, state, settings)"
		 " SELECT s.platform, '%s' || n.i, s.game, s.options, s.creator, s.locale,"
		 " s.status, s.seed, s.version, s.created, s.updated, s.state, s.settings"
		 " FROM n, sessions s WHERE s.id = %lld ORDER BY n.i;"
		 "INSERT INTO map SELECT n.i, (SELECT id FROM sessions"
		 " WHERE platform = s.platform AND room = '%s' || n.i)"
		 " FROM n, sessions s WHERE s.id = %lld;"
		 "INSERT INTO seats SELECT map.id, t.seat, t.user, t.name, t.is_bot, t.notify_dm"
		 " FROM map, seats t WHERE t.session = %lld;"
		 "INSERT INTO actions SELECT map.id, a.seq, a.seat, a.move, a.user, a.at"
		 " FROM map, actions a WHERE a.session = %lld;"
		 "COMMIT;",
		 n, prefix, (long long)tmpl, prefix, (long long)tmpl, (long long)tmpl,
		 (long long)tmpl);
	if (bench_sql(db, "PRAGMA journal_mode = WAL") || bench_sql(db, sql))
		goto out;
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}

/*
 * Makes a store at path holding n open sessions of game (players seats: one
 * human, the rest AI) with `moves` human moves played in each (0: left in
 * the lobby, with the seats taken): one real session made through the
 * manager, then copied n-1 times in SQL.  Returns 0 or -1.
 */
static inline int bench_make_store(const char *path, long n, const char *game, int players,
				   int moves)
{
	struct store *store = bench_store_open(path, "normal");
	struct session_mgr *m;
	struct bench_adapter *b;
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct session *s;
	struct rng r;
	int64_t id = 0;
	int i, rc = -1;

	if (!store)
		return -1;
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 4321);
	b = bench_adapter_new(m);
	rng_seed(&r, 5, 5);
	if (!moves) {
		char text2[64];

		snprintf(text2, sizeof(text2), "game new %s", game);
		bench_cmd(m, b, "tmpl", "tmpl-0", text2);
		snprintf(text2, sizeof(text2), "game addbot %d", players - 1);
		bench_cmd(m, b, "tmpl", "tmpl-0", text2);
		s = session_mgr_find(m, "console", "tmpl", &err);
	} else {
		s = bench_open_game(m, b, "tmpl", game, 1, players - 1);
		for (i = 0; s && i < moves; i++) {
			int seat = bench_human_awaited(s);

			if (seat < 0)
				break;
			bench_pick_play(s, seat, &r, 1, ml, &text);
			bench_cmd(m, b, "tmpl", "tmpl-0", buf_str(&text));
			s = session_mgr_find(m, "console", "tmpl", &err);
		}
	}
	bench_confirm(m, b);
	if (s && (s->rec.status == SESSION_ACTIVE || s->rec.status == SESSION_LOBBY)) {
		id = s->rec.id;
		fprintf(stderr, "bench: template session %lld: %s, %lld actions, state %zu bytes\n",
			(long long)id, session_status_name(s->rec.status),
			(long long)s->last_seq, s->rec.state ? strlen(s->rec.state) : 0);
	} else {
		fprintf(stderr, "bench: no open template session\n");
	}
	session_mgr_release(m);
	free(m);
	adapter_free(&b->base);
	store_close(store);
	if (id && !bench_clone_sessions(path, id, n - 1, "room"))
		rc = 0;
	free(ml);
	buf_release(&text);
	buf_release(&err);
	return rc;
}

#endif
