/*
 * test_store.c: the store contract (state/store.h), run against SQLite in
 * memory, SQLite in a temporary file and PostgreSQL (a fresh schema per
 * test in the server TABULA_TEST_PG names: scripts/pg-test-server.sh, which
 * `make unit` runs this under), plus what only one backend can show
 * (persistence, migrations, WAL; reconnection, the timeout bound, a lost
 * commit answer) and the fault-injecting wrapper.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "state/store.h"

/* ------------------------------------------------------------- fixtures */

enum kind { KIND_MEMORY, KIND_FILE, KIND_PG };

static const enum kind kind_memory = KIND_MEMORY;
static const enum kind kind_file = KIND_FILE;
static const enum kind kind_pg = KIND_PG;

struct fixture {
	enum kind kind;
	char path[512];		/* a file, ":memory:", or a PostgreSQL URI */
	char schema[64];	/* PostgreSQL: this test's schema */
	struct store *s;
	struct buf err;
	char web[STORE_WEB_TOKEN_MAX];	/* fill_store's web token */
};

/* ------------------------------------------------------------ PostgreSQL */

/* The test server's URI; a missing one fails the test (never a skip). */
static const char *pg_base(void)
{
	const char *u = getenv("TABULA_TEST_PG");

	if (!u || !*u)
		fail_msg("TABULA_TEST_PG is not set: run this through scripts/pg-test-server.sh"
			 " run build/tests/test_store (make unit does)");
	return u;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Raw SQL on the server, behind the store's back; the result (PQclear). */
static PGresult *pg_sql(const char *uri, const char *sql)
{
	PGconn *c = PQconnectdb(uri);
	PGresult *r;

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("connect %s: %s", uri, PQerrorMessage(c));
	PQsetNoticeProcessor(c, quiet, NULL);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	PQfinish(c);
	return r;
}

static void pg_exec(const char *uri, const char *sql)
{
	PQclear(pg_sql(uri, sql));
}

static long long pg_int(const char *uri, const char *sql)
{
	PGresult *r = pg_sql(uri, sql);
	long long v;

	assert_int_equal(PQntuples(r), 1);
	v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return v;
}

/* A new, empty schema and the URI of a store in it. */
static void pg_schema_new(char *schema, size_t ns, char *uri, size_t nu)
{
	static int n;
	char sql[128];

	snprintf(schema, ns, "t%d_%d", (int)getpid(), ++n);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s",
		 schema, schema);
	pg_exec(pg_base(), sql);
	/* the application name finds this store's server process */
	snprintf(uri, nu, "%s&options=-csearch_path%%3D%s&application_name=%s", pg_base(),
		 schema, schema);
}

static void pg_schema_drop(const char *schema)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", schema);
	pg_exec(pg_base(), sql);
}

static void remove_db(const char *path)
{
	char side[600];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-journal", path);
	unlink(side);
}

static struct store *open_ok(const char *path, struct buf *err)
{
	struct store *s = store_open(path, err);

	if (!s)
		fail_msg("open %s: %s", path, buf_str(err));
	return s;
}

/* *state comes in as the prestate (a const enum kind *). */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	f->kind = *(const enum kind *)*state;
	if (f->kind == KIND_FILE) {
		snprintf(f->path, sizeof(f->path), "/tmp/tabula-store-XXXXXX");
		fd = mkstemp(f->path);
		assert_true(fd >= 0);
		close(fd);
	} else if (f->kind == KIND_PG) {
		pg_schema_new(f->schema, sizeof(f->schema), f->path, sizeof(f->path));
	} else {
		snprintf(f->path, sizeof(f->path), ":memory:");
	}
	f->s = open_ok(f->path, &f->err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	store_close(f->s);
	if (f->kind == KIND_FILE)
		remove_db(f->path);
	if (f->kind == KIND_PG)
		pg_schema_drop(f->schema);
	buf_release(&f->err);
	free(f);
	return 0;
}

/* Whether the store outlives a close (a file, a PostgreSQL schema). */
static int persists(const struct fixture *f)
{
	return f->kind != KIND_MEMORY;
}

/* Closes and reopens the store (a file keeps its contents). */
static void reopen(struct fixture *f)
{
	store_close(f->s);
	f->s = open_ok(f->path, &f->err);
}

/* -------------------------------------------------------------- helpers */

static void mk_session(struct session_rec *s, const char *platform, const char *room,
		       enum session_status st)
{
	session_rec_init(s);
	snprintf(s->platform, sizeof(s->platform), "%s", platform);
	snprintf(s->room, sizeof(s->room), "%s", room);
	snprintf(s->game, sizeof(s->game), "fortuna");
	snprintf(s->options, sizeof(s->options), "short");
	snprintf(s->creator, sizeof(s->creator), "u-ann");
	snprintf(s->locale, sizeof(s->locale), "es");
	s->status = st;
	s->seed = 42;
	s->created = 1000;
	s->updated = 1001;
	s->nseats = 2;
	snprintf(s->seats[0].user, sizeof(s->seats[0].user), "u-ann");
	snprintf(s->seats[0].name, sizeof(s->seats[0].name), "Ann");
	s->seats[0].notify_dm = 1;
	snprintf(s->seats[1].name, sizeof(s->seats[1].name), "Robot");
	s->seats[1].is_bot = 1;
}

static void mk_action(struct action_rec *a, int64_t seq, const char *move)
{
	memset(a, 0, sizeof(*a));
	a->seq = seq;
	a->seat = (int)(seq % 2);
	snprintf(a->move, sizeof(a->move), "%s", move);
	snprintf(a->user, sizeof(a->user), "%s", seq % 2 ? "" : "u-ann");
	a->at = 2000 + seq;
}

static void mk_outbox(struct outbox_rec *o, const char *key, const char *payload)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->platform, sizeof(o->platform), "console");
	snprintf(o->room, sizeof(o->room), "room-1");
	snprintf(o->key, sizeof(o->key), "%s", key);
	o->payload = (char *)payload;	/* borrowed: the store only reads it */
	o->created = 3000;
}

/*
 * Like the session manager: every change bumps the version it read by one
 * (a new session gets 1); a failed change is dropped, version included.
 */
static void commit_ok(struct fixture *f, struct store_commit *c)
{
	if (c->session)
		c->session->version++;
	if (store_commit(f->s, c, &f->err))
		fail_msg("commit: %s", buf_str(&f->err));
}

/* A commit that fails with code rc (-1, STORE_CONFLICT, STORE_FENCED). */
static void commit_fails_with(struct fixture *f, struct store_commit *c, int rc,
			      const char *why)
{
	int64_t id = c->session ? c->session->id : 0;

	if (c->session)
		c->session->version++;
	buf_reset(&f->err);
	assert_int_equal(store_commit(f->s, c, &f->err), rc);
	if (!strstr(buf_str(&f->err), why))
		fail_msg("commit error \"%s\" does not mention \"%s\"", buf_str(&f->err), why);
	if (c->session) {
		/* A failed commit does not give the record an id. */
		assert_int_equal(c->session->id, id);
		c->session->version--;
	}
}

static void commit_fails(struct fixture *f, struct store_commit *c, const char *why)
{
	commit_fails_with(f, c, -1, why);
}

/* Stores a session alone (insert or update). */
static void save_session(struct fixture *f, struct session_rec *s)
{
	struct store_commit c = { .session = s };

	commit_ok(f, &c);
}

static void get_ok(struct fixture *f, int64_t id, struct session_rec *out)
{
	int rc = store_session_get(f->s, id, out, &f->err);

	if (rc != 1)
		fail_msg("session_get %lld: %d %s", (long long)id, rc, buf_str(&f->err));
}

static void assert_session_equal(const struct session_rec *a, const struct session_rec *b)
{
	int i;

	assert_int_equal(a->id, b->id);
	assert_string_equal(a->platform, b->platform);
	assert_string_equal(a->room, b->room);
	assert_string_equal(a->game, b->game);
	assert_string_equal(a->options, b->options);
	assert_string_equal(a->creator, b->creator);
	assert_string_equal(a->locale, b->locale);
	assert_string_equal(a->settings, b->settings);
	assert_int_equal(a->status, b->status);
	assert_true(a->seed == b->seed);
	assert_int_equal(a->version, b->version);
	assert_int_equal(a->created, b->created);
	assert_int_equal(a->updated, b->updated);
	assert_int_equal(a->due, b->due);
	assert_int_equal(a->nseats, b->nseats);
	for (i = 0; i < a->nseats; i++) {
		assert_string_equal(a->seats[i].user, b->seats[i].user);
		assert_string_equal(a->seats[i].name, b->seats[i].name);
		assert_int_equal(a->seats[i].is_bot, b->seats[i].is_bot);
		assert_int_equal(a->seats[i].notify_dm, b->seats[i].notify_dm);
	}
	if (!a->state || !b->state)
		assert_ptr_equal(a->state, b->state);
	else
		assert_string_equal(a->state, b->state);
	/* no votes reads back as NULL, whether written as NULL or "" */
	assert_string_equal(a->votes ? a->votes : "", b->votes ? b->votes : "");
}

/* Collects what the iterators deliver; stops after `stop` items if > 0. */
struct seen {
	int n, stop;
	int64_t ids[512];
	char text[512][32];
	struct store *s;	/* for outbox callbacks that mark messages sent */
	struct buf *err;
};

static int seen_session(void *ctx, const struct session_rec *s)
{
	struct seen *v = ctx;

	assert_true(s->status == SESSION_LOBBY || s->status == SESSION_ACTIVE);
	assert_true(v->n < 512);
	v->ids[v->n] = s->id;
	snprintf(v->text[v->n], sizeof(v->text[0]), "%.31s", s->room);
	v->n++;
	return v->stop && v->n >= v->stop;
}

static int seen_action(void *ctx, const struct action_rec *a)
{
	struct seen *v = ctx;

	assert_true(v->n < 512);
	v->ids[v->n] = a->seq;
	snprintf(v->text[v->n], sizeof(v->text[0]), "%.31s", a->move);
	v->n++;
	return v->stop && v->n >= v->stop;
}

static int seen_outbox(void *ctx, const struct outbox_rec *o)
{
	struct seen *v = ctx;

	assert_true(v->n < 512);
	v->ids[v->n] = o->id;
	snprintf(v->text[v->n], sizeof(v->text[0]), "%.31s", o->payload);
	v->n++;
	/* The usual sender: deliver, then mark done from inside the loop. */
	if (v->s)
		assert_int_equal(store_outbox_done(v->s, o->id, v->err), 0);
	return v->stop && v->n >= v->stop;
}

static int count_actions(struct store *s, int64_t session)
{
	struct seen v = { 0 };
	struct buf err = BUF_INIT;

	assert_int_equal(store_actions(s, session, 0, seen_action, &v, &err), 0);
	buf_release(&err);
	return v.n;
}

static int count_pending(struct store *s)
{
	struct seen v = { 0 };
	struct buf err = BUF_INIT;

	assert_int_equal(store_outbox_pending(s, seen_outbox, &v, &err), 0);
	buf_release(&err);
	return v.n;
}

/* Raw SQL on a file store, behind the store's back. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

static int raw_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int v;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* ----------------------------------------------------- contract: sessions */

static void test_session_insert_update(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;

	mk_session(&s, "console", "room-1", SESSION_LOBBY);
	session_rec_init(&got);
	save_session(f, &s);
	assert_true(s.id > 0);
	assert_int_equal(s.version, 1);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	assert_null(got.state);

	/* The game starts: state appears, one seat leaves, seed changes. */
	s.status = SESSION_ACTIVE;
	s.state = xstrdup("{\"v\":1,\"board\":[1,2,3]}");
	s.nseats = 1;
	s.updated = 1100;
	save_session(f, &s);
	assert_int_equal(s.version, 2);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	assert_int_equal(got.nseats, 1);

	/* Two copies read at version 2: the first change wins, the other is
	 * stale and refused. */
	s.options[0] = '\0';
	save_session(f, &s);
	assert_int_equal(s.version, 3);
	{
		struct store_commit c = { .session = &got };

		snprintf(got.options, sizeof(got.options), "lost update");
		commit_fails_with(f, &c, STORE_CONFLICT, "changed elsewhere (stored version 3");
		/* Nor may a change reuse the stored version. */
		got.version = 2;
		commit_fails_with(f, &c, STORE_CONFLICT,
				  "stored version 3; this change, version 3,");
		got.version = 3;
		commit_ok(f, &c);
		assert_int_equal(got.version, 4);
	}
	get_ok(f, s.id, &got);
	assert_string_equal(got.options, "lost update");

	/* An id that was never stored is an error, not an insert. */
	got.id = s.id + 100;
	{
		struct store_commit c = { .session = &got };

		commit_fails(f, &c, "no session");
	}

	/* Not found leaves out empty. */
	assert_int_equal(store_session_get(f->s, s.id + 100, &got, &f->err), 0);
	assert_int_equal(got.id, 0);
	assert_null(got.state);

	session_rec_release(&s);
	session_rec_release(&got);
}

static void test_session_current(void **state)
{
	struct fixture *f = *state;
	struct session_rec a, b, c, d, got;

	mk_session(&a, "console", "room-1", SESSION_FINISHED);
	mk_session(&b, "console", "room-2", SESSION_ACTIVE);
	mk_session(&c, "console", "room-1", SESSION_LOBBY);
	mk_session(&d, "discord", "room-1", SESSION_ACTIVE);
	save_session(f, &a);
	save_session(f, &b);
	save_session(f, &c);
	save_session(f, &d);
	session_rec_init(&got);

	assert_int_equal(store_session_current(f->s, "console", "room-1", &got, &f->err), 1);
	assert_int_equal(got.id, c.id);
	assert_session_equal(&got, &c);
	assert_int_equal(store_session_current(f->s, "console", "room-2", &got, &f->err), 1);
	assert_int_equal(got.id, b.id);
	assert_int_equal(store_session_current(f->s, "discord", "room-1", &got, &f->err), 1);
	assert_int_equal(got.id, d.id);
	/* Whatever the status: the newest wins even when it is finished. */
	c.status = SESSION_ABORTED;
	save_session(f, &c);
	assert_int_equal(store_session_current(f->s, "console", "room-1", &got, &f->err), 1);
	assert_int_equal(got.id, c.id);
	assert_int_equal(got.status, SESSION_ABORTED);

	assert_int_equal(store_session_current(f->s, "matrix", "room-1", &got, &f->err), 0);
	assert_int_equal(got.id, 0);
	session_rec_release(&got);
}

static void test_sessions_open(void **state)
{
	struct fixture *f = *state;
	static const enum session_status sts[] = {
		SESSION_FINISHED, SESSION_LOBBY, SESSION_ABORTED, SESSION_ACTIVE,
		SESSION_LOBBY, SESSION_FINISHED,
	};
	struct session_rec s;
	struct seen v = { 0 };
	int64_t want[6];
	int i, n = 0;
	char room[16];

	for (i = 0; i < 6; i++) {
		snprintf(room, sizeof(room), "r%d", i);
		mk_session(&s, "console", room, sts[i]);
		save_session(f, &s);
		if (sts[i] == SESSION_LOBBY || sts[i] == SESSION_ACTIVE)
			want[n++] = s.id;
	}
	assert_int_equal(store_sessions_open(f->s, seen_session, &v, &f->err), 0);
	assert_int_equal(v.n, n);
	for (i = 0; i < n; i++)
		assert_int_equal(v.ids[i], want[i]);
	assert_string_equal(v.text[0], "r1");

	/* Stopping early is not an error. */
	memset(&v, 0, sizeof(v));
	v.stop = 2;
	assert_int_equal(store_sessions_open(f->s, seen_session, &v, &f->err), 0);
	assert_int_equal(v.n, 2);
}

static void test_seed_round_trip(void **state)
{
	struct fixture *f = *state;
	static const uint64_t seeds[] = {
		0, 1, (uint64_t)INT64_MAX, (uint64_t)1 << 63,
		UINT64_C(0xfedcba9876543210), UINT64_MAX,
	};
	struct session_rec s, got;
	size_t i;

	session_rec_init(&got);
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		mk_session(&s, "console", "seeds", SESSION_ACTIVE);
		s.seed = seeds[i];
		save_session(f, &s);
		get_ok(f, s.id, &got);
		assert_true(got.seed == seeds[i]);
	}
	if (persists(f)) {
		reopen(f);
		get_ok(f, s.id, &got);
		assert_true(got.seed == UINT64_MAX);
	}
	session_rec_release(&got);
}

/* ------------------------------------------------------ contract: actions */

static void test_actions(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct action_rec acts[5];
	struct store_commit c = { .session = NULL };
	struct seen v = { 0 };
	int i;

	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	save_session(f, &s);
	for (i = 0; i < 5; i++) {
		char move[32];

		snprintf(move, sizeof(move), "move %d", i + 1);
		mk_action(&acts[i], i + 1, move);
		acts[i].session = 999;	/* ignored: the session decides */
	}
	c.session = &s;
	c.actions = acts;
	c.nactions = 3;
	commit_ok(f, &c);
	c.actions = acts + 3;
	c.nactions = 2;
	commit_ok(f, &c);
	assert_int_equal(s.version, 3);

	assert_int_equal(store_actions(f->s, s.id, 0, seen_action, &v, &f->err), 0);
	assert_int_equal(v.n, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(v.ids[i], i + 1);
	assert_string_equal(v.text[4], "move 5");

	memset(&v, 0, sizeof(v));
	assert_int_equal(store_actions(f->s, s.id, 3, seen_action, &v, &f->err), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.ids[0], 4);
	assert_int_equal(v.ids[1], 5);

	memset(&v, 0, sizeof(v));
	v.stop = 1;
	assert_int_equal(store_actions(f->s, s.id, 0, seen_action, &v, &f->err), 0);
	assert_int_equal(v.n, 1);

	/* Another session's log is its own. */
	assert_int_equal(count_actions(f->s, s.id + 1), 0);

	/* Actions need a session to belong to. */
	c.session = NULL;
	commit_fails(f, &c, "need a session");
}

static int check_action_fields(void *ctx, const struct action_rec *a)
{
	int64_t *session = ctx;

	assert_int_equal(a->session, *session);
	assert_int_equal(a->seat, (int)(a->seq % 2));
	assert_string_equal(a->user, a->seq % 2 ? "" : "u-ann");
	assert_int_equal(a->at, 2000 + a->seq);
	return 0;
}

static void test_action_fields(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct action_rec acts[2];
	struct store_commit c = { .actions = acts, .nactions = 2 };

	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	mk_action(&acts[0], 1, "lead patron");
	mk_action(&acts[1], 2, "think draw");
	c.session = &s;
	/* A new session and its first moves in one commit. */
	commit_ok(f, &c);
	assert_int_equal(store_actions(f->s, s.id, 0, check_action_fields, &s.id,
				       &f->err), 0);
	assert_int_equal(count_actions(f->s, s.id), 2);
}

/* A duplicate seq fails the whole commit: session, outbox, cursor too. */
static void test_duplicate_seq_stores_nothing(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec acts[3];
	struct outbox_rec out;
	struct store_commit c = { .actions = acts, .nactions = 2 };
	struct buf value = BUF_INIT;

	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	s.state = xstrdup("{\"turn\":2}");
	mk_action(&acts[0], 1, "a");
	mk_action(&acts[1], 2, "b");
	c.session = &s;
	commit_ok(f, &c);
	assert_int_equal(s.version, 1);

	free(s.state);
	s.state = xstrdup("{\"turn\":4}");
	s.status = SESSION_FINISHED;
	s.nseats = 1;
	mk_action(&acts[0], 3, "c");
	mk_action(&acts[1], 2, "b again");
	mk_outbox(&out, "txn-1", "{\"text\":\"hi\"}");
	c.actions = acts;
	c.nactions = 2;
	c.outbox = &out;
	c.noutbox = 1;
	c.cursor_key = "discord.seq";
	c.cursor_value = "77";
	commit_fails(f, &c, "already has action 2");

	/* The caller's records are untouched... */
	assert_int_equal(s.version, 1);
	assert_int_equal(out.id, 0);
	/* ...and so is the store. */
	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_int_equal(got.version, 1);
	assert_int_equal(got.status, SESSION_ACTIVE);
	assert_int_equal(got.nseats, 2);
	assert_string_equal(got.state, "{\"turn\":2}");
	assert_int_equal(count_actions(f->s, s.id), 2);
	assert_int_equal(count_pending(f->s), 0);
	assert_int_equal(store_cursor_get(f->s, "discord.seq", &value, &f->err), 0);

	/* The same commit, corrected, goes through: no transaction was left open. */
	mk_action(&acts[1], 4, "d");
	commit_ok(f, &c);
	assert_int_equal(s.version, 2);
	assert_true(out.id > 0);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	assert_int_equal(count_actions(f->s, s.id), 4);
	assert_int_equal(count_pending(f->s), 1);
	assert_int_equal(store_cursor_get(f->s, "discord.seq", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "77");

	/* Duplicates inside one commit fail too. */
	mk_action(&acts[0], 5, "e");
	mk_action(&acts[1], 5, "e");
	c.outbox = NULL;
	c.noutbox = 0;
	c.cursor_key = NULL;
	commit_fails(f, &c, "already has action 5");
	assert_int_equal(count_actions(f->s, s.id), 4);

	session_rec_release(&s);
	session_rec_release(&got);
	buf_release(&value);
}

/* ------------------------------------------------------- contract: outbox */

static void test_outbox(void **state)
{
	struct fixture *f = *state;
	struct outbox_rec out[3];
	struct store_commit c = { .outbox = out, .noutbox = 3 };
	struct seen v = { 0 };

	mk_outbox(&out[0], "txn-a", "one");
	mk_outbox(&out[1], "", "two");	/* no key: several may lack one */
	mk_outbox(&out[2], "", "three");
	snprintf(out[2].user, sizeof(out[2].user), "u-ann");
	commit_ok(f, &c);
	assert_true(out[0].id > 0);
	assert_true(out[1].id > out[0].id);
	assert_true(out[2].id > out[1].id);

	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.ids[0], out[0].id);
	assert_string_equal(v.text[0], "one");
	assert_string_equal(v.text[2], "three");

	assert_int_equal(store_outbox_done(f->s, out[1].id, &f->err), 0);
	/* Marking twice is harmless. */
	assert_int_equal(store_outbox_done(f->s, out[1].id, &f->err), 0);
	if (f->kind == KIND_FILE) {
		/* a delivered message keeps its row, not its payload (the bulk
		 * of the file); another connection sees the committed state */
		sqlite3 *db;
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, length(payload), sent_at IS NULL"
						    " FROM outbox ORDER BY id", -1, &q, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(q, 1), 3);	/* "one": pending */
		assert_int_equal(sqlite3_column_int(q, 2), 1);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(q, 0), out[1].id);
		assert_int_equal(sqlite3_column_int(q, 1), 0);
		assert_int_equal(sqlite3_column_int(q, 2), 0);
		sqlite3_finalize(q);
		sqlite3_close(db);
	}
	if (f->kind == KIND_PG) {
		PGresult *r = pg_sql(f->path, "SELECT id, length(payload), sent_at IS NULL"
				     " FROM outbox ORDER BY id");

		assert_int_equal(PQntuples(r), 3);
		assert_string_equal(PQgetvalue(r, 0, 1), "3");
		assert_string_equal(PQgetvalue(r, 0, 2), "t");
		assert_int_equal(strtoll(PQgetvalue(r, 1, 0), NULL, 10), out[1].id);
		assert_string_equal(PQgetvalue(r, 1, 1), "0");
		assert_string_equal(PQgetvalue(r, 1, 2), "f");
		PQclear(r);
	}
	assert_int_equal(store_outbox_done(f->s, out[2].id + 100, &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "no outbox message"));

	memset(&v, 0, sizeof(v));
	v.stop = 1;
	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.ids[0], out[0].id);

	memset(&v, 0, sizeof(v));
	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.ids[1], out[2].id);
	assert_string_equal(v.text[1], "three");

	/* A sender marking each message done from inside the iteration. */
	memset(&v, 0, sizeof(v));
	v.s = f->s;
	v.err = &f->err;
	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(count_pending(f->s), 0);
}

static int check_outbox_fields(void *ctx, const struct outbox_rec *o)
{
	(void)ctx;
	assert_string_equal(o->platform, "console");
	assert_string_equal(o->room, "room-1");
	assert_string_equal(o->user, "u-bob");
	assert_string_equal(o->key, "nonce-9");
	assert_string_equal(o->payload, "{\"blocks\":[]}");
	assert_int_equal(o->created, 3000);
	return 0;
}

static void test_outbox_fields(void **state)
{
	struct fixture *f = *state;
	struct outbox_rec out;
	struct store_commit c = { .outbox = &out, .noutbox = 1 };

	mk_outbox(&out, "nonce-9", "{\"blocks\":[]}");
	snprintf(out.user, sizeof(out.user), "u-bob");
	commit_ok(f, &c);
	assert_int_equal(store_outbox_pending(f->s, check_outbox_fields, NULL, &f->err), 0);

	out.payload = NULL;
	commit_fails(f, &c, "without payload");
}

static void test_outbox_key_conflict(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct outbox_rec out[2];
	struct action_rec act;
	struct store_commit c = { .outbox = out, .noutbox = 1 };

	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	mk_outbox(&out[0], "txn-1", "first");
	c.session = &s;
	commit_ok(f, &c);

	/* Same key again, with a move: all of it is refused. */
	mk_action(&act, 1, "lead patron");
	mk_outbox(&out[0], "txn-2", "second");
	mk_outbox(&out[1], "txn-1", "third");
	c.actions = &act;
	c.nactions = 1;
	c.noutbox = 2;
	commit_fails(f, &c, "txn-1");
	assert_int_equal(out[0].id, 0);
	assert_int_equal(s.version, 1);

	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_int_equal(got.version, 1);
	assert_int_equal(count_actions(f->s, s.id), 0);
	assert_int_equal(count_pending(f->s), 1);
	session_rec_release(&got);

	/* Within one commit as well. */
	mk_outbox(&out[1], "txn-2", "twin");
	commit_fails(f, &c, "txn-2");
	assert_int_equal(count_pending(f->s), 1);
}

/* ------------------------------------------------------ contract: cursors */

static void test_cursors(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct store_commit c = { .cursor_key = "matrix.since", .cursor_value = "s72_1" };
	struct buf value = BUF_INIT;

	assert_int_equal(store_cursor_get(f->s, "matrix.since", &value, &f->err), 0);
	mk_session(&s, "matrix", "!abc:example.org", SESSION_LOBBY);
	c.session = &s;
	commit_ok(f, &c);
	assert_int_equal(store_cursor_get(f->s, "matrix.since", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "s72_1");

	assert_int_equal(store_cursor_set(f->s, "matrix.since", "s80_4", &f->err), 0);
	assert_int_equal(store_cursor_set(f->s, "discord.session", "abc", &f->err), 0);
	assert_int_equal(store_cursor_get(f->s, "matrix.since", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "s80_4");
	assert_int_equal(store_cursor_get(f->s, "discord.session", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "abc");
	assert_int_equal(store_cursor_set(f->s, "x", NULL, &f->err), -1);

	/* Only the cursor, no session. */
	c.session = NULL;
	c.cursor_value = "s99_0";
	commit_ok(f, &c);
	assert_int_equal(store_cursor_get(f->s, "matrix.since", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "s99_0");
	buf_release(&value);
}

/* A family of cursors: listed by prefix (and nothing else), deleted one by
 * one, in a commit too; the callback may write the store. */
struct prefix_seen {
	struct store *s;
	int n, deleted;
	char keys[8][64];
	char values[8][64];
};

static int collect_prefix(void *ctx, const char *key, const char *value)
{
	struct prefix_seen *ps = ctx;

	if (ps->n < 8) {
		snprintf(ps->keys[ps->n], sizeof(ps->keys[0]), "%s", key);
		snprintf(ps->values[ps->n], sizeof(ps->values[0]), "%s", value);
	}
	ps->n++;
	/* writing from the callback: the rows were read before */
	if (ps->deleted >= 0 && !store_cursor_delete(ps->s, key, NULL))
		ps->deleted++;
	return 0;
}

static int has_pair(const struct prefix_seen *ps, const char *key, const char *value)
{
	int i;

	for (i = 0; i < ps->n && i < 8; i++)
		if (!strcmp(ps->keys[i], key) && !strcmp(ps->values[i], value))
			return 1;
	return 0;
}

static int stop_at_first(void *ctx, const char *key, const char *value)
{
	(*(int *)ctx)++;
	return 1;
}

static void test_cursors_prefix_and_delete(void **state)
{
	struct fixture *f = *state;
	struct prefix_seen ps = { .s = f->s, .deleted = -1 };
	struct store_commit c = { .cursor_key = "m.e.held.$b", .cursor_delete = 1 };
	struct buf value = BUF_INIT;
	int calls = 0;

	assert_int_equal(store_cursor_set(f->s, "m.e.held.$a", "A", &f->err), 0);
	assert_int_equal(store_cursor_set(f->s, "m.e.held.$b", "B", &f->err), 0);
	assert_int_equal(store_cursor_set(f->s, "m.e.held.\xc3\xa9", "\xc3\xa9", &f->err), 0);
	assert_int_equal(store_cursor_set(f->s, "m.e.helc", "before", &f->err), 0);
	assert_int_equal(store_cursor_set(f->s, "m.e.held", "the prefix itself", &f->err), 0);
	assert_int_equal(store_cursor_set(f->s, "m.e.hele", "after", &f->err), 0);
	assert_int_equal(store_cursors_prefix(f->s, "m.e.held.", collect_prefix, &ps, &f->err),
			 0);
	assert_int_equal(ps.n, 3);
	assert_true(has_pair(&ps, "m.e.held.$a", "A"));
	assert_true(has_pair(&ps, "m.e.held.$b", "B"));
	assert_true(has_pair(&ps, "m.e.held.\xc3\xa9", "\xc3\xa9"));
	/* a callback that stops is called once */
	assert_int_equal(store_cursors_prefix(f->s, "m.e.held.", stop_at_first, &calls, &f->err),
			 0);
	assert_int_equal(calls, 1);
	/* an empty prefix would list everything: refused */
	assert_int_equal(store_cursors_prefix(f->s, "", stop_at_first, &calls, &f->err), -1);
	assert_int_equal(calls, 1);

	/* deleted in a commit, and on its own (twice: no error) */
	commit_ok(f, &c);
	assert_int_equal(store_cursor_get(f->s, "m.e.held.$b", &value, &f->err), 0);
	assert_int_equal(store_cursor_delete(f->s, "m.e.held.$a", &f->err), 0);
	assert_int_equal(store_cursor_delete(f->s, "m.e.held.$a", &f->err), 0);
	assert_int_equal(store_cursor_get(f->s, "m.e.held.$a", &value, &f->err), 0);
	c.cursor_key = NULL;
	assert_int_equal(store_commit(f->s, &c, &f->err), -1);	/* delete without key */

	/* every one deleted from inside the callback */
	memset(&ps, 0, sizeof(ps));
	ps.s = f->s;
	assert_int_equal(store_cursors_prefix(f->s, "m.e.he", collect_prefix, &ps, &f->err), 0);
	assert_int_equal(ps.n, 4);
	assert_int_equal(ps.deleted, 4);
	memset(&ps, 0, sizeof(ps));
	ps.deleted = -1;
	assert_int_equal(store_cursors_prefix(f->s, "m.e.", collect_prefix, &ps, &f->err), 0);
	assert_int_equal(ps.n, 0);
	buf_release(&value);
}

/* The fence wrapper (the Matrix adapter's store with several processes):
 * its cursor writes and deletes land only while its lease is held. */
static void test_fence_cursor_writes(void **state)
{
	struct fixture *f = *state;
	struct store *fenced = store_fence_wrap(f->s, "matrix", "node-a");
	struct buf value = BUF_INIT;
	struct prefix_seen ps = { .deleted = -1 };

	assert_non_null(fenced);
	assert_int_equal(store_lease(f->s, "matrix", "node-a", 60000, &f->err), 1);
	assert_int_equal(store_cursor_set(fenced, "matrix.e2e.D.held.$1", "x", &f->err), 0);
	assert_int_equal(store_cursors_prefix(fenced, "matrix.e2e.D.", collect_prefix, &ps,
					      &f->err), 0);
	assert_int_equal(ps.n, 1);
	assert_int_equal(store_cursor_delete(fenced, "matrix.e2e.D.held.$1", &f->err), 0);
	assert_int_equal(store_cursor_get(f->s, "matrix.e2e.D.held.$1", &value, &f->err), 0);
	assert_int_equal(store_cursor_set(fenced, "matrix.e2e.D.held.$2", "y", &f->err), 0);
	/* another process took the lease: nothing more is written or deleted */
	assert_int_equal(store_lease(f->s, "matrix", "node-a", 0, &f->err), 0);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 60000, &f->err), 1);
	assert_int_equal(store_cursor_set(fenced, "matrix.e2e.D.held.$3", "z", &f->err),
			 STORE_FENCED);
	assert_int_equal(store_cursor_delete(fenced, "matrix.e2e.D.held.$2", &f->err),
			 STORE_FENCED);
	assert_int_equal(store_cursor_get(f->s, "matrix.e2e.D.held.$2", &value, &f->err), 1);
	assert_int_equal(store_cursor_get(f->s, "matrix.e2e.D.held.$3", &value, &f->err), 0);
	store_close(fenced);
	buf_release(&value);
}

/* ------------------------------------------------- contract: field limits */

static void test_overlong_fields_rejected(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct outbox_rec out;
	struct store_commit c = { .session = &s };

	/* A field that fills its array with no NUL is longer than allowed. */
	mk_session(&s, "console", "", SESSION_LOBBY);
	memset(s.room, 'r', sizeof(s.room));
	commit_fails(f, &c, "session room is longer than 255 bytes");
	assert_int_equal(s.id, 0);

	mk_session(&s, "console", "room-x", SESSION_LOBBY);
	memset(s.locale, 'l', sizeof(s.locale));
	commit_fails(f, &c, "session locale is longer than 7 bytes");

	mk_session(&s, "console", "room-x", SESSION_LOBBY);
	memset(s.seats[1].name, 'n', sizeof(s.seats[1].name));
	commit_fails(f, &c, "seat name");

	mk_session(&s, "console", "room-x", SESSION_LOBBY);
	s.nseats = STORE_MAX_SEATS + 1;
	commit_fails(f, &c, "seats");

	mk_session(&s, "console", "room-x", SESSION_LOBBY);
	mk_action(&act, 1, "");
	memset(act.move, 'm', sizeof(act.move));
	c.actions = &act;
	c.nactions = 1;
	commit_fails(f, &c, "action move");

	mk_action(&act, 1, "ok");
	mk_outbox(&out, "", "p");
	memset(out.key, 'k', sizeof(out.key));
	c.outbox = &out;
	c.noutbox = 1;
	commit_fails(f, &c, "outbox key");

	/* Nothing of those attempts was stored. */
	session_rec_init(&got);
	assert_int_equal(store_session_current(f->s, "console", "room-x", &got, &f->err), 0);
	assert_int_equal(count_pending(f->s), 0);

	/* Exactly at the limit is fine. */
	mk_session(&s, "console", "", SESSION_LOBBY);
	memset(s.room, 'r', sizeof(s.room) - 1);
	snprintf(s.locale, sizeof(s.locale), "1234567");
	c.actions = NULL;
	c.nactions = 0;
	c.outbox = NULL;
	c.noutbox = 0;
	commit_ok(f, &c);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	session_rec_release(&got);
}

/* A value put in the file by something else, too long for the record. */
static void test_overlong_value_on_read(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1 };
	struct seen v = { 0 };

	mk_session(&s, "console", "room-1", SESSION_LOBBY);
	mk_action(&act, 1, "go");
	commit_ok(f, &c);
	raw_exec(f->path, "UPDATE sessions SET locale = 'es-419-x';"
		 " UPDATE actions SET move = replace(hex(zeroblob(150)), '0', 'm');");

	session_rec_init(&got);
	assert_int_equal(store_session_get(f->s, s.id, &got, &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "locale"));
	assert_null(got.state);
	assert_int_equal(store_session_current(f->s, "console", "room-1", &got, &f->err), -1);
	assert_int_equal(store_sessions_open(f->s, seen_session, &v, &f->err), -1);
	assert_int_equal(v.n, 0);
	assert_int_equal(store_actions(f->s, s.id, 0, seen_action, &v, &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "action move is 300 bytes"));
	assert_int_equal(v.n, 0);
	session_rec_release(&got);
}

/* More rows than one page of the iterators (64). */
static void test_many_rows(void **state)
{
	struct fixture *f = *state;
	enum { N = 150 };
	struct session_rec s;
	struct action_rec *acts = calloc(N, sizeof(*acts));
	struct outbox_rec *out = calloc(N, sizeof(*out));
	struct store_commit c = { 0 };
	struct seen v = { 0 };
	char key[32];
	int i, open = 0;

	assert_non_null(acts);
	assert_non_null(out);
	for (i = 0; i < N; i++) {
		mk_session(&s, "console", "many", i % 3 ? SESSION_ACTIVE : SESSION_FINISHED);
		save_session(f, &s);
		open += i % 3 != 0;
		mk_action(&acts[i], i + 1, "m");
		snprintf(key, sizeof(key), "k%d", i);
		mk_outbox(&out[i], key, "x");
	}
	c.session = &s;
	c.actions = acts;
	c.nactions = N;
	c.outbox = out;
	c.noutbox = N;
	commit_ok(f, &c);

	assert_int_equal(store_sessions_open(f->s, seen_session, &v, &f->err), 0);
	assert_int_equal(v.n, open);
	for (i = 1; i < v.n; i++)
		assert_true(v.ids[i] > v.ids[i - 1]);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_actions(f->s, s.id, 10, seen_action, &v, &f->err), 0);
	assert_int_equal(v.n, N - 10);
	for (i = 0; i < v.n; i++)
		assert_int_equal(v.ids[i], i + 11);
	memset(&v, 0, sizeof(v));
	v.stop = 100;
	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 100);
	for (i = 0; i < v.n; i++)
		assert_int_equal(v.ids[i], out[i].id);
	free(acts);
	free(out);
}


/* ----------------------------------------------------- contract: settings */

static void test_settings(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got, before;
	struct store_commit c = { .session = &s };
	char big[512];

	mk_session(&s, "console", "room-1", SESSION_LOBBY);
	session_rec_init(&got);
	session_rec_init(&before);
	/* "" = defaults, and a new session starts there. */
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_string_equal(got.settings, "");

	snprintf(s.settings, sizeof(s.settings), "{\"remind\":300,\"pause\":false}");
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	assert_int_equal(store_session_current(f->s, "console", "room-1", &got,
					       &f->err), 1);
	assert_string_equal(got.settings, "{\"remind\":300,\"pause\":false}");

	/* Exactly at the limit: 511 bytes. */
	memset(big, 'x', sizeof(big) - 1);
	big[0] = '{';
	big[sizeof(big) - 2] = '}';
	big[sizeof(big) - 1] = '\0';
	memcpy(s.settings, big, sizeof(big));
	save_session(f, &s);
	if (persists(f))
		reopen(f);
	get_ok(f, s.id, &got);
	assert_int_equal(strlen(got.settings), 511);
	assert_string_equal(got.settings, big);
	assert_session_equal(&got, &s);
	session_rec_copy(&before, &got);

	/* 512 bytes with no NUL: refused, nothing written. */
	memset(s.settings, 's', sizeof(s.settings));
	commit_fails(f, &c, "session settings is longer than 511 bytes");
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &before);

	/* Nor is a new session stored with it. */
	mk_session(&s, "console", "room-2", SESSION_LOBBY);
	memset(s.settings, 's', sizeof(s.settings));
	commit_fails(f, &c, "session settings");
	assert_int_equal(s.id, 0);
	assert_int_equal(store_session_current(f->s, "console", "room-2", &got,
					       &f->err), 0);

	/* Back to the defaults. */
	session_rec_copy(&s, &before);
	s.settings[0] = '\0';
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_string_equal(got.settings, "");
	session_rec_release(&got);
	session_rec_release(&before);
	session_rec_release(&s);
}

/* ------------------------------------------------------- contract: votes */

/* Votes (schema 4): a JSON text the store keeps as it is; none = NULL. */
static void test_votes(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got, copy;
	struct store_commit c = { .session = &s };
	char *big;

	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	session_rec_init(&got);
	session_rec_init(&copy);
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_null(got.votes);

	s.votes = xstrdup("{\"abort\":[\"u-ann\"],\"kick\":{\"u-ann\":\"u-bob\"}}");
	save_session(f, &s);
	if (persists(f))
		reopen(f);
	get_ok(f, s.id, &got);
	assert_string_equal(got.votes, s.votes);
	assert_session_equal(&got, &s);
	/* a copy owns its own votes */
	session_rec_copy(&copy, &got);
	assert_ptr_not_equal(copy.votes, got.votes);
	assert_string_equal(copy.votes, got.votes);

	/* "" is no votes, and reads back as NULL */
	free(s.votes);
	s.votes = xstrdup("");
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_null(got.votes);

	/* exactly at the limit, and one byte over: refused, nothing written */
	free(s.votes);
	big = malloc(STORE_VOTES_MAX + 2);
	assert_non_null(big);
	memset(big, 'v', STORE_VOTES_MAX + 1);
	big[STORE_VOTES_MAX] = '\0';
	s.votes = xstrdup(big);
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_int_equal(strlen(got.votes), STORE_VOTES_MAX);
	big[STORE_VOTES_MAX] = 'v';
	big[STORE_VOTES_MAX + 1] = '\0';
	free(s.votes);
	s.votes = big;
	commit_fails(f, &c, "votes are longer than");
	get_ok(f, s.id, &got);
	assert_int_equal(strlen(got.votes), STORE_VOTES_MAX);
	session_rec_release(&s);
	session_rec_release(&got);
	session_rec_release(&copy);
}

struct user_seen {
	int n;
	int64_t ids[64];
	char rooms[64][32];
};

static int user_session(void *ctx, const struct session_rec *s)
{
	struct user_seen *v = ctx;

	assert_true(v->n < 64);
	assert_true(s->status == SESSION_LOBBY || s->status == SESSION_ACTIVE);
	v->ids[v->n] = s->id;
	snprintf(v->rooms[v->n], sizeof(v->rooms[0]), "%.31s", s->room);
	v->n++;
	return 0;
}

static struct user_seen *sessions_of(struct fixture *f, const char *platform, const char *user)
{
	static struct user_seen v;

	memset(&v, 0, sizeof(v));
	if (store_sessions_of_user(f->s, platform, user, user_session, &v, &f->err))
		fail_msg("sessions_of_user: %s", buf_str(&f->err));
	return &v;
}

/*
 * sessions_of_user: the open sessions of one platform where the user holds a
 * human seat, oldest first; never an AI seat's "", another platform's, a
 * finished or aborted game, or a seat the user left.
 */
static void test_sessions_of_user(void **state)
{
	struct fixture *f = *state;
	struct session_rec s[6];
	struct user_seen *v;
	int i;

	mk_session(&s[0], "discord", "c-1", SESSION_ACTIVE);	/* u-ann, Robot */
	mk_session(&s[1], "discord", "c-2", SESSION_LOBBY);
	snprintf(s[1].seats[0].user, sizeof(s[1].seats[0].user), "u-bob");
	snprintf(s[1].seats[1].user, sizeof(s[1].seats[1].user), "u-ann");
	s[1].seats[1].is_bot = 0;
	mk_session(&s[2], "discord", "c-3", SESSION_FINISHED);
	mk_session(&s[3], "matrix", "!m:x", SESSION_ACTIVE);
	mk_session(&s[4], "discord", "c-5", SESSION_ABORTED);
	mk_session(&s[5], "discord", "c-6", SESSION_LOBBY);
	snprintf(s[5].seats[0].user, sizeof(s[5].seats[0].user), "u-bob");
	for (i = 0; i < 6; i++)
		save_session(f, &s[i]);

	v = sessions_of(f, "discord", "u-ann");
	assert_int_equal(v->n, 2);
	assert_int_equal(v->ids[0], s[0].id);
	assert_int_equal(v->ids[1], s[1].id);
	v = sessions_of(f, "matrix", "u-ann");
	assert_int_equal(v->n, 1);
	assert_string_equal(v->rooms[0], "!m:x");
	v = sessions_of(f, "discord", "u-bob");
	assert_int_equal(v->n, 2);
	assert_int_equal(v->ids[0], s[1].id);
	assert_int_equal(v->ids[1], s[5].id);
	/* AI seats have user "": nobody's */
	assert_int_equal(sessions_of(f, "discord", "")->n, 0);
	assert_int_equal(sessions_of(f, "discord", "u-zed")->n, 0);

	/* ann leaves c-2; the game of c-1 ends */
	s[1].nseats = 1;
	save_session(f, &s[1]);
	s[0].status = SESSION_FINISHED;
	save_session(f, &s[0]);
	assert_int_equal(sessions_of(f, "discord", "u-ann")->n, 0);
	assert_int_equal(sessions_of(f, "discord", "u-bob")->n, 2);
	for (i = 0; i < 6; i++)
		session_rec_release(&s[i]);
}

/* A user in more sessions than one page (64) of the iterator. */
static void test_sessions_of_user_many(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct user_seen *v;
	char room[32];
	int i, n = 0;
	int64_t prev = 0;

	for (i = 0; i < 150; i++) {
		snprintf(room, sizeof(room), "room-%d", i);
		mk_session(&s, "console", room, i % 3 ? SESSION_ACTIVE : SESSION_FINISHED);
		if (i % 5 == 0)
			snprintf(s.seats[0].user, sizeof(s.seats[0].user), "u-other");
		save_session(f, &s);
		n += i % 3 && i % 5;
		session_rec_release(&s);
	}
	/* more than fits in user_seen: count with a callback of our own */
	{
		struct seen all = { 0 };

		assert_int_equal(store_sessions_of_user(f->s, "console", "u-ann", seen_session,
							&all, &f->err), 0);
		assert_int_equal(all.n, n);
		for (i = 0; i < all.n; i++) {
			assert_true(all.ids[i] > prev);
			prev = all.ids[i];
		}
		/* a callback may stop early */
		memset(&all, 0, sizeof(all));
		all.stop = 3;
		assert_int_equal(store_sessions_of_user(f->s, "console", "u-ann", seen_session,
							&all, &f->err), 0);
		assert_int_equal(all.n, 3);
	}
	v = sessions_of(f, "console", "u-other");
	assert_int_equal(v->n, 20);	/* i % 5 == 0 and i % 3 != 0 */
}

static int64_t lobbies(struct fixture *f, const char *platform)
{
	int64_t n = -1;

	if (store_count_lobbies(f->s, platform, &n, &f->err))
		fail_msg("count_lobbies: %s", buf_str(&f->err));
	return n;
}

static void test_count_lobbies(void **state)
{
	struct fixture *f = *state;
	struct session_rec s[4];
	int i;

	assert_int_equal(lobbies(f, "discord"), 0);
	mk_session(&s[0], "discord", "c-1", SESSION_LOBBY);
	mk_session(&s[1], "discord", "c-2", SESSION_LOBBY);
	mk_session(&s[2], "discord", "c-3", SESSION_ACTIVE);
	mk_session(&s[3], "matrix", "!m:x", SESSION_LOBBY);
	for (i = 0; i < 4; i++)
		save_session(f, &s[i]);
	assert_int_equal(lobbies(f, "discord"), 2);
	assert_int_equal(lobbies(f, "matrix"), 1);
	assert_int_equal(lobbies(f, "console"), 0);
	s[0].status = SESSION_ACTIVE;
	save_session(f, &s[0]);
	s[1].status = SESSION_ABORTED;
	save_session(f, &s[1]);
	assert_int_equal(lobbies(f, "discord"), 0);
	for (i = 0; i < 4; i++)
		session_rec_release(&s[i]);
}

/* ------------------------------------------------------- contract: stats */

struct games_seen {
	char game[8][16];
	int status[8];
	int64_t n[8];
	int count;
};

static int seen_games(void *ctx, const char *game, int status, int64_t n)
{
	struct games_seen *g = ctx;

	if (g->count < 8) {
		snprintf(g->game[g->count], sizeof(g->game[0]), "%s", game);
		g->status[g->count] = status;
		g->n[g->count++] = n;
	}
	return 0;
}

static int64_t games_of(const struct games_seen *g, const char *game, int status)
{
	int i;

	for (i = 0; i < g->count; i++)
		if (!strcmp(g->game[i], game) && g->status[i] == status)
			return g->n[i];
	return 0;
}

/* What an operator's scrape reads (bot/ops.c): undelivered outbox rows and
 * the oldest one's time, open games by game and status; through the fault
 * wrapper too. */
static void test_stats(void **state)
{
	struct fixture *f = *state;
	struct session_rec s[4];
	struct outbox_rec out[2];
	struct store_commit c = { .outbox = out, .noutbox = 2 };
	struct store_stats st;
	struct games_seen g;
	int i;

	memset(&g, 0, sizeof(g));
	assert_int_equal(store_stats(f->s, &st, seen_games, &g, &f->err), 0);
	assert_int_equal(st.outbox_pending, 0);
	assert_int_equal(st.outbox_oldest, 0);
	assert_int_equal(g.count, 0);
	mk_session(&s[0], "discord", "c-1", SESSION_LOBBY);
	mk_session(&s[1], "discord", "c-2", SESSION_ACTIVE);
	mk_session(&s[2], "matrix", "!m:x", SESSION_ACTIVE);
	mk_session(&s[3], "matrix", "!n:x", SESSION_FINISHED);
	snprintf(s[2].game, sizeof(s[2].game), "gtr");
	for (i = 0; i < 4; i++)
		save_session(f, &s[i]);
	mk_outbox(&out[0], "k-1", "one");
	mk_outbox(&out[1], "k-2", "two");
	out[1].created = 2500;
	commit_ok(f, &c);
	memset(&g, 0, sizeof(g));
	assert_int_equal(store_stats(f->s, &st, seen_games, &g, &f->err), 0);
	assert_int_equal(st.outbox_pending, 2);
	assert_int_equal(st.outbox_oldest, 2500);
	assert_int_equal(g.count, 3);
	assert_int_equal(games_of(&g, "fortuna", SESSION_LOBBY), 1);
	assert_int_equal(games_of(&g, "fortuna", SESSION_ACTIVE), 1);
	assert_int_equal(games_of(&g, "gtr", SESSION_ACTIVE), 1);
	assert_int_equal(store_outbox_done(f->s, out[1].id, &f->err), 0);
	f->s = store_fault_wrap(f->s, 0);
	assert_int_equal(store_stats(f->s, &st, NULL, NULL, &f->err), 0);
	assert_int_equal(st.outbox_pending, 1);
	assert_int_equal(st.outbox_oldest, 3000);
	for (i = 0; i < 4; i++)
		session_rec_release(&s[i]);
}

/* --------------------------------------------------------- contract: due */

static void test_due_round_trip(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;

	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	session_rec_init(&got);
	/* A new session is never due unless told. */
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_int_equal(got.due, 0);

	/* Inserted with a due time. */
	mk_session(&s, "console", "room-2", SESSION_ACTIVE);
	s.due = 1700000000;
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);

	/* Updated, read by session_current too, and large values survive. */
	s.due = INT64_C(253402300799);	/* 9999-12-31 */
	save_session(f, &s);
	if (persists(f))
		reopen(f);
	assert_int_equal(store_session_current(f->s, "console", "room-2", &got,
					       &f->err), 1);
	assert_session_equal(&got, &s);

	/* Back to never. */
	s.due = 0;
	save_session(f, &s);
	get_ok(f, s.id, &got);
	assert_int_equal(got.due, 0);
	assert_session_equal(&got, &s);
	session_rec_release(&got);
	session_rec_release(&s);
}

/* Collects what sessions_due delivers; optionally clears each one's due
 * from inside the callback (a commit while iterating). */
struct due_seen {
	int n, stop, clear;
	int64_t ids[512], dues[512];
	struct fixture *f;
};

static int seen_due(void *ctx, const struct session_rec *s)
{
	struct due_seen *v = ctx;

	assert_true(v->n < 512);
	/* The whole session, seats included. */
	assert_int_equal(s->nseats, 2);
	assert_string_equal(s->seats[0].name, "Ann");
	assert_string_equal(s->seats[1].name, "Robot");
	assert_string_equal(s->game, "fortuna");
	v->ids[v->n] = s->id;
	v->dues[v->n] = s->due;
	v->n++;
	if (v->clear) {
		struct session_rec c;

		session_rec_init(&c);
		session_rec_copy(&c, s);
		c.due = 0;
		save_session(v->f, &c);
		session_rec_release(&c);
	}
	return v->stop && v->n >= v->stop;
}

static void due_list(struct fixture *f, int64_t until, struct due_seen *v)
{
	assert_int_equal(store_sessions_due(f->s, until, seen_due, v, &f->err), 0);
}

static int64_t next_due_ok(struct fixture *f)
{
	int64_t out = -12345;

	if (store_next_due(f->s, &out, &f->err))
		fail_msg("next_due: %s", buf_str(&f->err));
	return out;
}

static void test_sessions_due(void **state)
{
	struct fixture *f = *state;
	/* Status does not matter: due is the caller's to clear. */
	static const struct {
		int64_t due;
		enum session_status st;
	} rows[] = {
		{ 300, SESSION_ACTIVE }, { 0, SESSION_ACTIVE }, { 100, SESSION_LOBBY },
		{ 200, SESSION_ACTIVE }, { 100, SESSION_ACTIVE }, { 500, SESSION_FINISHED },
		{ 0, SESSION_LOBBY }, { -5, SESSION_ACTIVE },
	};
	enum { NROWS = sizeof(rows) / sizeof(rows[0]) };
	struct session_rec s;
	struct due_seen v = { 0 };
	int64_t id[NROWS];
	char room[16];
	int i;

	for (i = 0; i < NROWS; i++) {
		snprintf(room, sizeof(room), "r%d", i);
		mk_session(&s, "console", room, rows[i].st);
		s.due = rows[i].due;
		save_session(f, &s);
		id[i] = s.id;
	}
	if (persists(f))
		reopen(f);

	/* Earliest first, ties by id; until is inclusive. */
	due_list(f, 300, &v);
	assert_int_equal(v.n, 4);
	assert_int_equal(v.ids[0], id[2]);
	assert_int_equal(v.ids[1], id[4]);
	assert_int_equal(v.ids[2], id[3]);
	assert_int_equal(v.ids[3], id[0]);
	assert_int_equal(v.dues[0], 100);
	assert_int_equal(v.dues[1], 100);
	assert_int_equal(v.dues[2], 200);
	assert_int_equal(v.dues[3], 300);

	/* The bound: just below the first, exactly the first, everything. */
	memset(&v, 0, sizeof(v));
	due_list(f, 99, &v);
	assert_int_equal(v.n, 0);
	due_list(f, 100, &v);
	assert_int_equal(v.n, 2);
	memset(&v, 0, sizeof(v));
	due_list(f, INT64_MAX, &v);
	assert_int_equal(v.n, 5);
	assert_int_equal(v.ids[4], id[5]);
	/* due 0 (never) and negative dues are never returned, whatever until. */
	for (i = 0; i < v.n; i++)
		assert_true(v.dues[i] > 0);
	memset(&v, 0, sizeof(v));
	due_list(f, 0, &v);
	assert_int_equal(v.n, 0);
	due_list(f, -10, &v);
	assert_int_equal(v.n, 0);

	/* Stopping early is not an error. */
	memset(&v, 0, sizeof(v));
	v.stop = 3;
	due_list(f, INT64_MAX, &v);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.ids[2], id[3]);

	/* A callback may write: clear what is due up to 200. */
	memset(&v, 0, sizeof(v));
	v.clear = 1;
	v.f = f;
	due_list(f, 200, &v);
	assert_int_equal(v.n, 3);
	memset(&v, 0, sizeof(v));
	due_list(f, INT64_MAX, &v);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.ids[0], id[0]);
	assert_int_equal(v.ids[1], id[5]);
	assert_int_equal(next_due_ok(f), 300);
}

static void test_sessions_due_many(void **state)
{
	struct fixture *f = *state;
	enum { N = 150 };
	struct session_rec s;
	struct due_seen v = { 0 };
	int i;

	/* Dues descending by id, with ties, across pages of 64. */
	for (i = 0; i < N; i++) {
		mk_session(&s, "console", "many", SESSION_ACTIVE);
		s.due = 10000 - (i / 3) * 10;
		save_session(f, &s);
	}
	due_list(f, INT64_MAX, &v);
	assert_int_equal(v.n, N);
	for (i = 1; i < v.n; i++)
		assert_true(v.dues[i] > v.dues[i - 1] ||
			    (v.dues[i] == v.dues[i - 1] && v.ids[i] > v.ids[i - 1]));
	assert_int_equal(v.dues[0], 10000 - (N - 1) / 3 * 10);
	assert_int_equal(v.dues[N - 1], 10000);
	memset(&v, 0, sizeof(v));
	due_list(f, 9800, &v);
	assert_int_equal(v.n, N - 3 * 20);
	assert_int_equal(v.dues[v.n - 1], 9800);

	/* Clearing from the callback across pages delivers each once. */
	memset(&v, 0, sizeof(v));
	v.clear = 1;
	v.f = f;
	due_list(f, INT64_MAX, &v);
	assert_int_equal(v.n, N);
	assert_int_equal(next_due_ok(f), 0);
}

static void test_next_due(void **state)
{
	struct fixture *f = *state;
	struct session_rec a, b, c;

	/* Empty store. */
	assert_int_equal(next_due_ok(f), 0);

	/* Only sessions that are never due. */
	mk_session(&a, "console", "a", SESSION_ACTIVE);
	save_session(f, &a);
	assert_int_equal(next_due_ok(f), 0);

	/* Several: the smallest positive one. */
	a.due = 5000;
	save_session(f, &a);
	assert_int_equal(next_due_ok(f), 5000);
	mk_session(&b, "console", "b", SESSION_LOBBY);
	b.due = 7000;
	save_session(f, &b);
	mk_session(&c, "console", "c", SESSION_FINISHED);
	c.due = 3000;
	save_session(f, &c);
	assert_int_equal(next_due_ok(f), 3000);
	if (persists(f))
		reopen(f);
	assert_int_equal(next_due_ok(f), 3000);

	/* Moves as sessions are rescheduled or cleared. */
	c.due = 0;
	save_session(f, &c);
	assert_int_equal(next_due_ok(f), 5000);
	a.due = 9000;
	save_session(f, &a);
	assert_int_equal(next_due_ok(f), 7000);
	b.due = 0;
	save_session(f, &b);
	a.due = 0;
	save_session(f, &a);
	assert_int_equal(next_due_ok(f), 0);
}

/* --------------------------------------------------- contract: truncation */

/* Stores a session with moves 1..n named "m1".."mn". */
static void log_of(struct fixture *f, struct session_rec *s, const char *room, int n)
{
	struct action_rec acts[16];
	struct store_commit c = { .session = s, .actions = acts, .nactions = (size_t)n };
	char move[16];
	int i;

	assert_true(n <= 16);
	mk_session(s, "console", room, SESSION_ACTIVE);
	for (i = 0; i < n; i++) {
		snprintf(move, sizeof(move), "m%d", i + 1);
		mk_action(&acts[i], i + 1, move);
	}
	commit_ok(f, &c);
}

/* Asserts the log is exactly moves[0..n), seqs 1..n. */
static void assert_log(struct fixture *f, int64_t session, int n, const char *const *moves)
{
	struct seen v = { 0 };
	int i;

	assert_int_equal(store_actions(f->s, session, 0, seen_action, &v, &f->err), 0);
	assert_int_equal(v.n, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(v.ids[i], i + 1);
		assert_string_equal(v.text[i], moves[i]);
	}
}

static const char *const m12345[] = { "m1", "m2", "m3", "m4", "m5" };

static void test_truncate(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, other, got;
	struct action_rec acts[2];
	struct outbox_rec out;
	struct store_commit c = { .truncate = 1 };
	static const char *const redo[] = { "m1", "m2", "x3", "x4" };

	log_of(f, &s, "room-1", 5);
	log_of(f, &other, "room-2", 3);
	c.session = &s;

	/* Undo the last move: truncate and insert nothing. */
	c.truncate_after = 4;
	commit_ok(f, &c);
	assert_int_equal(s.version, 2);
	assert_log(f, s.id, 4, m12345);

	/* Truncate and insert the replacement moves in one commit. */
	c.truncate_after = 2;
	mk_action(&acts[0], 3, "x3");
	mk_action(&acts[1], 4, "x4");
	c.actions = acts;
	c.nactions = 2;
	commit_ok(f, &c);
	assert_log(f, s.id, 4, redo);

	/* Past the last seq: nothing to delete (the session is still updated). */
	c.truncate_after = 10;
	c.actions = NULL;
	c.nactions = 0;
	commit_ok(f, &c);
	assert_log(f, s.id, 4, redo);

	/* truncate_after 0 deletes the whole log... */
	c.truncate_after = 0;
	commit_ok(f, &c);
	assert_log(f, s.id, 0, NULL);
	/* ...and it starts again at 1. */
	mk_action(&acts[0], 1, "m1");
	c.truncate = 0;
	c.actions = acts;
	c.nactions = 1;
	commit_ok(f, &c);
	assert_log(f, s.id, 1, m12345);
	assert_int_equal(s.version, 6);
	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);

	/* Another session's log is untouched. */
	assert_log(f, other.id, 3, m12345);

	/* The optimistic version check still applies: a stale copy is refused
	 * and truncates nothing. */
	session_rec_copy(&got, &s);
	got.version--;
	c.session = &got;
	c.truncate = 1;
	c.truncate_after = 0;
	c.actions = NULL;
	c.nactions = 0;
	commit_fails_with(f, &c, STORE_CONFLICT, "changed elsewhere");
	assert_log(f, s.id, 1, m12345);

	/* A failure after the delete rolls the delete back too. */
	c.session = &other;
	c.truncate_after = 1;
	mk_action(&acts[0], 2, "y2");
	mk_action(&acts[1], 2, "y2 again");
	c.actions = acts;
	c.nactions = 2;
	commit_fails(f, &c, "already has action 2");
	assert_log(f, other.id, 3, m12345);
	mk_outbox(&out, "dup-key", "x");
	{
		struct store_commit o = { .outbox = &out, .noutbox = 1 };

		commit_ok(f, &o);
	}
	mk_action(&acts[1], 3, "y3");
	c.outbox = &out;
	c.noutbox = 1;
	commit_fails(f, &c, "already used");
	assert_log(f, other.id, 3, m12345);
	assert_int_equal(other.version, 1);
	session_rec_release(&got);
}

static void test_truncate_refused(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, fresh, ghost;
	struct action_rec act;
	struct store_commit c = { .truncate = 1 };

	log_of(f, &s, "room-1", 3);

	/* Needs a session already stored. */
	commit_fails(f, &c, "needs a stored session");
	mk_session(&fresh, "console", "room-9", SESSION_ACTIVE);
	c.session = &fresh;
	commit_fails(f, &c, "needs a stored session");
	assert_int_equal(store_session_current(f->s, "console", "room-9", &fresh,
					       &f->err), 0);
	mk_session(&ghost, "console", "room-8", SESSION_ACTIVE);
	ghost.id = s.id + 100;
	c.session = &ghost;
	commit_fails(f, &c, "no session");

	/* A negative truncate_after is refused. */
	c.session = &s;
	c.truncate_after = -1;
	commit_fails(f, &c, "cannot truncate");

	/* New actions must follow truncate_after. */
	c.truncate_after = 1;
	mk_action(&act, 3, "m3");
	c.actions = &act;
	c.nactions = 1;
	commit_fails(f, &c, "must start right after it, not at 3");
	mk_action(&act, 1, "m1");
	commit_fails(f, &c, "not at 1");
	c.truncate_after = INT64_MAX;
	act.seq = INT64_MIN;
	commit_fails(f, &c, "must start right after it");
	c.truncate_after = 1;
	assert_log(f, s.id, 3, m12345);
	assert_int_equal(s.version, 1);

	/* And with truncate unset, truncate_after means nothing. */
	c.truncate = 0;
	c.truncate_after = 0;
	c.actions = NULL;
	c.nactions = 0;
	commit_ok(f, &c);
	assert_log(f, s.id, 3, m12345);
}

/* An injected fault on a truncating commit leaves the log as it was; healed,
 * the same commit goes through. */
static void test_truncate_fault(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct action_rec act;
	struct store_commit c = { .truncate = 1, .truncate_after = 1, .actions = &act,
				  .nactions = 1 };
	static const char *const redo[] = { "m1", "z2" };

	f->s = store_fault_wrap(f->s, 2);
	log_of(f, &s, "room-1", 4);
	c.session = &s;
	mk_action(&act, 2, "z2");
	commit_fails(f, &c, "injected fault");
	assert_log(f, s.id, 4, m12345);
	assert_int_equal(s.version, 1);
	c.actions = NULL;
	c.nactions = 0;
	commit_fails(f, &c, "injected fault");
	assert_log(f, s.id, 4, m12345);

	store_fault_heal(f->s);
	c.actions = &act;
	c.nactions = 1;
	commit_ok(f, &c);
	assert_log(f, s.id, 2, redo);
	assert_int_equal(store_fault_writes(f->s), 4);
	if (persists(f)) {
		reopen(f);	/* closes the wrapper; the file keeps the commit */
		assert_log(f, s.id, 2, redo);
	}
}

/* ------------------------------------------------------ file-only checks */

static void test_persistence(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec acts[2];
	struct outbox_rec out[2];
	struct store_commit c = { .actions = acts, .nactions = 2, .outbox = out,
				  .noutbox = 2, .cursor_key = "discord.seq",
				  .cursor_value = "1234" };
	struct buf value = BUF_INIT;
	struct seen v = { 0 };

	mk_session(&s, "discord", "chan-9", SESSION_ACTIVE);
	s.seed = UINT64_C(0x8000000000000001);
	s.state = xstrdup("{\"v\":1,\"name\":\"Añil\"}");
	mk_action(&acts[0], 1, "lead patron");
	mk_action(&acts[1], 2, "think draw");
	mk_outbox(&out[0], "n-1", "board");
	mk_outbox(&out[1], "n-2", "hand");
	c.session = &s;
	commit_ok(f, &c);
	assert_int_equal(store_outbox_done(f->s, out[0].id, &f->err), 0);

	reopen(f);
	session_rec_init(&got);
	assert_int_equal(store_session_current(f->s, "discord", "chan-9", &got, &f->err), 1);
	assert_session_equal(&got, &s);
	assert_int_equal(count_actions(f->s, s.id), 2);
	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.ids[0], out[1].id);
	assert_int_equal(store_cursor_get(f->s, "discord.seq", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "1234");

	/* Ids keep growing after a reopen (AUTOINCREMENT never reuses). */
	mk_outbox(&out[0], "n-3", "more");
	c.session = NULL;
	c.actions = NULL;
	c.nactions = 0;
	c.noutbox = 1;
	commit_ok(f, &c);
	assert_true(out[0].id > out[1].id);

	session_rec_release(&s);
	session_rec_release(&got);
	buf_release(&value);
}

static void test_migrations_idempotent(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	int i;

	assert_true(store_sqlite_schema_version() >= 1);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
			 store_sqlite_schema_version());
	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	save_session(f, &s);
	for (i = 0; i < 3; i++)
		reopen(f);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
			 store_sqlite_schema_version());
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sessions"), 1);
	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	session_rec_release(&got);
}

/* Schema version 1 exactly as it shipped (state/sqlite.c, migration 1). */
static const char schema_v1[] =
	"CREATE TABLE sessions ("
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
	");"
	"CREATE INDEX sessions_room ON sessions (platform, room, id);"
	"CREATE INDEX sessions_open ON sessions (id) WHERE status IN (0, 1);"
	"CREATE TABLE seats ("
	" session INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
	" seat INTEGER NOT NULL CHECK (seat >= 0),"
	" user TEXT NOT NULL,"
	" name TEXT NOT NULL,"
	" is_bot INTEGER NOT NULL,"
	" notify_dm INTEGER NOT NULL,"
	" PRIMARY KEY (session, seat)"
	") WITHOUT ROWID;"
	"CREATE TABLE actions ("
	" session INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL CHECK (seq >= 1),"
	" seat INTEGER NOT NULL,"
	" move TEXT NOT NULL,"
	" user TEXT NOT NULL,"
	" at INTEGER NOT NULL,"
	" PRIMARY KEY (session, seq)"
	") WITHOUT ROWID;"
	"CREATE TABLE outbox ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" platform TEXT NOT NULL,"
	" room TEXT NOT NULL,"
	" user TEXT NOT NULL,"
	" key TEXT UNIQUE,"
	" payload TEXT NOT NULL,"
	" created INTEGER NOT NULL,"
	" sent_at INTEGER"
	");"
	"CREATE INDEX outbox_pending ON outbox (id) WHERE sent_at IS NULL;"
	"CREATE TABLE cursors ("
	" key TEXT PRIMARY KEY,"
	" value TEXT NOT NULL"
	") WITHOUT ROWID;";

/* A file written by the previous release (user_version 1) opens, migrates
 * to settings = "" and keeps everything else. */
static void test_migrate_from_v1(void **state)
{
	struct fixture *f = *state;
	struct session_rec got;
	struct action_rec act;
	struct store_commit c = { .session = &got, .truncate = 1, .truncate_after = 1,
				  .actions = &act, .nactions = 1 };
	static const char *const moves[] = { "lead patron", "think draw" };
	static const char *const redo[] = { "lead patron", "z2" };

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	raw_exec(f->path, schema_v1);
	raw_exec(f->path,
		 "PRAGMA user_version = 1;"
		 "INSERT INTO sessions (id, platform, room, game, options, creator,"
		 " locale, status, seed, version, created, updated, state)"
		 " VALUES (7, 'discord', 'chan-1', 'fortuna', 'short', 'u-ann', 'es',"
		 " 1, 42, 3, 1000, 1001, '{\"turn\":2}');"
		 "INSERT INTO seats VALUES (7, 0, 'u-ann', 'Ann', 0, 1);"
		 "INSERT INTO seats VALUES (7, 1, '', 'Robot', 1, 0);"
		 "INSERT INTO actions VALUES (7, 1, 0, 'lead patron', 'u-ann', 2001);"
		 "INSERT INTO actions VALUES (7, 2, 1, 'think draw', '', 2002);"
		 "INSERT INTO outbox (platform, room, user, key, payload, created)"
		 " VALUES ('discord', 'chan-1', '', 'n-1', 'board', 3000);"
		 "INSERT INTO cursors VALUES ('discord.seq', '99');");
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 1);

	f->s = open_ok(f->path, &f->err);
	assert_int_equal(store_sqlite_schema_version(), 7);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
	/* an older tabula's file is adopted: stamped as tabula's */
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), STORE_APPLICATION_ID);
	session_rec_init(&got);
	assert_int_equal(store_session_current(f->s, "discord", "chan-1", &got,
					       &f->err), 1);
	assert_int_equal(got.id, 7);
	assert_string_equal(got.settings, "");
	assert_int_equal(got.due, 0);
	assert_int_equal(got.version, 3);
	assert_int_equal(got.status, SESSION_ACTIVE);
	assert_int_equal(got.nseats, 2);
	assert_string_equal(got.seats[1].name, "Robot");
	assert_string_equal(got.state, "{\"turn\":2}");
	assert_log(f, 7, 2, moves);
	assert_int_equal(count_pending(f->s), 1);

	/* The migrated file takes settings and truncation like a new one. */
	snprintf(got.settings, sizeof(got.settings), "{\"remind\":60}");
	mk_action(&act, 2, "z2");
	commit_ok(f, &c);
	reopen(f);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
	session_rec_release(&got);
	get_ok(f, 7, &got);
	assert_null(got.votes);
	assert_string_equal(got.settings, "{\"remind\":60}");
	assert_int_equal(got.version, 4);
	assert_log(f, 7, 2, redo);
	session_rec_release(&got);
}

/* A file at schema version 2 (settings, no due) opens, migrates to due = 0
 * for every session (none of them due) and takes due times afterwards. */
static void test_migrate_from_v2(void **state)
{
	struct fixture *f = *state;
	struct session_rec got;
	struct due_seen v = { 0 };
	static const char *const moves[] = { "lead patron", "think draw" };

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	raw_exec(f->path, schema_v1);
	raw_exec(f->path,
		 "ALTER TABLE sessions ADD COLUMN settings TEXT NOT NULL DEFAULT '';"
		 "PRAGMA user_version = 2;"
		 "INSERT INTO sessions (id, platform, room, game, options, creator,"
		 " locale, status, seed, version, created, updated, state, settings)"
		 " VALUES (7, 'discord', 'chan-1', 'fortuna', 'short', 'u-ann', 'es',"
		 " 1, 42, 3, 1000, 1001, '{\"turn\":2}', '{\"remind\":60}');"
		 "INSERT INTO sessions (id, platform, room, game, options, creator,"
		 " locale, status, seed, version, created, updated, state, settings)"
		 " VALUES (8, 'discord', 'chan-2', 'fortuna', 'short', 'u-ann', 'en',"
		 " 0, 43, 1, 1100, 1100, NULL, '');"
		 "INSERT INTO seats VALUES (7, 0, 'u-ann', 'Ann', 0, 1);"
		 "INSERT INTO seats VALUES (7, 1, '', 'Robot', 1, 0);"
		 "INSERT INTO seats VALUES (8, 0, 'u-ann', 'Ann', 0, 1);"
		 "INSERT INTO seats VALUES (8, 1, '', 'Robot', 1, 0);"
		 "INSERT INTO actions VALUES (7, 1, 0, 'lead patron', 'u-ann', 2001);"
		 "INSERT INTO actions VALUES (7, 2, 1, 'think draw', '', 2002);"
		 "INSERT INTO outbox (platform, room, user, key, payload, created)"
		 " VALUES ('discord', 'chan-1', '', 'n-1', 'board', 3000);");
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 2);

	f->s = open_ok(f->path, &f->err);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), STORE_APPLICATION_ID);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master"
				 " WHERE type = 'index' AND name = 'sessions_due'"), 1);
	session_rec_init(&got);
	get_ok(f, 7, &got);
	assert_int_equal(got.due, 0);
	assert_string_equal(got.settings, "{\"remind\":60}");
	assert_int_equal(got.version, 3);
	assert_int_equal(got.status, SESSION_ACTIVE);
	assert_int_equal(got.nseats, 2);
	assert_string_equal(got.state, "{\"turn\":2}");
	get_ok(f, 8, &got);
	assert_int_equal(got.due, 0);
	assert_null(got.state);
	assert_log(f, 7, 2, moves);
	assert_int_equal(count_pending(f->s), 1);
	/* Nothing is due after the migration. */
	due_list(f, INT64_MAX, &v);
	assert_int_equal(v.n, 0);
	assert_int_equal(next_due_ok(f), 0);

	/* The migrated file takes due times like a new one. */
	get_ok(f, 7, &got);
	got.due = 4000;
	save_session(f, &got);
	reopen(f);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
	session_rec_release(&got);
	get_ok(f, 7, &got);
	assert_int_equal(got.due, 4000);
	assert_int_equal(got.version, 4);
	assert_int_equal(next_due_ok(f), 4000);
	due_list(f, 4000, &v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.ids[0], 7);
	session_rec_release(&got);
}

/* Schema version 3 as it shipped: version 1, then migrations 2 and 3. */
static void write_v3(const char *path)
{
	raw_exec(path, schema_v1);
	raw_exec(path,
		 "ALTER TABLE sessions ADD COLUMN settings TEXT NOT NULL DEFAULT '';"
		 "ALTER TABLE sessions ADD COLUMN due INTEGER NOT NULL DEFAULT 0;"
		 "CREATE INDEX sessions_due ON sessions (due) WHERE due > 0;"
		 "PRAGMA user_version = 3;");
}

/*
 * A file of the previous release (schema 3, application_id 0) opens: it is
 * adopted (stamped as tabula's), migrates to votes = none for every session,
 * gets the lookup indexes, and its sessions are found by user afterwards.
 */
static void test_migrate_from_v3(void **state)
{
	struct fixture *f = *state;
	struct session_rec got;
	struct user_seen *v;

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	write_v3(f->path);
	raw_exec(f->path,
		 "INSERT INTO sessions (id, platform, room, game, options, creator,"
		 " locale, status, seed, version, created, updated, state, settings, due)"
		 " VALUES (7, 'discord', 'chan-1', 'fortuna', '', 'u-ann', 'es',"
		 " 1, 42, 3, 1000, 1001, '{\"turn\":2}', '{\"remind\":60}', 5000);"
		 "INSERT INTO sessions (id, platform, room, game, options, creator,"
		 " locale, status, seed, version, created, updated, state, settings, due)"
		 " VALUES (8, 'discord', 'chan-2', 'fortuna', '', 'u-bob', 'en',"
		 " 0, 43, 1, 1100, 1100, NULL, '', 0);"
		 "INSERT INTO seats VALUES (7, 0, 'u-ann', 'Ann', 0, 1);"
		 "INSERT INTO seats VALUES (7, 1, '', 'Robot', 1, 0);"
		 "INSERT INTO seats VALUES (8, 0, 'u-bob', 'Bob', 0, 0);"
		 "INSERT INTO seats VALUES (8, 1, 'u-ann', 'Ann', 0, 0);");
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), 0);

	f->s = open_ok(f->path, &f->err);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), STORE_APPLICATION_ID);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master WHERE"
				 " type = 'index' AND name IN ('seats_user', 'sessions_lobbies')"),
			 2);
	session_rec_init(&got);
	get_ok(f, 7, &got);
	assert_null(got.votes);
	assert_int_equal(got.due, 5000);
	assert_string_equal(got.settings, "{\"remind\":60}");
	assert_string_equal(got.state, "{\"turn\":2}");
	v = sessions_of(f, "discord", "u-ann");
	assert_int_equal(v->n, 2);
	assert_int_equal(v->ids[0], 7);
	assert_int_equal(v->ids[1], 8);
	assert_int_equal(lobbies(f, "discord"), 1);

	/* the migrated file takes votes like a new one */
	got.votes = xstrdup("{\"abort\":[\"u-ann\"]}");
	save_session(f, &got);
	reopen(f);
	session_rec_release(&got);
	get_ok(f, 7, &got);
	assert_string_equal(got.votes, "{\"abort\":[\"u-ann\"]}");
	assert_int_equal(got.version, 4);
	session_rec_release(&got);
}

/* The lookups by user and by platform read their indexes, not the tables. */
static void test_lookups_use_indexes(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct buf plan = BUF_INIT;
	static const char *const q[] = {
		"EXPLAIN QUERY PLAN SELECT DISTINCT t.session FROM seats t JOIN sessions s"
		" ON s.id = t.session WHERE t.user = 'u' AND t.is_bot = 0 AND"
		" s.platform = 'p' AND s.status IN (0, 1) AND t.session > 0"
		" ORDER BY t.session LIMIT 64",
		"EXPLAIN QUERY PLAN SELECT count(*) FROM sessions WHERE platform = 'p'"
		" AND status = 0",
		/* a web page's token, by its hash (the UNIQUE index) */
		"EXPLAIN QUERY PLAN SELECT session FROM web_links WHERE hash = 'h'",
	};
	static const char *const index[] = {
		"seats_user", "sessions_lobbies", "sqlite_autoindex_web_links_1",
	};
	static const char *const scan[] = {
		"SCAN t\n", "SCAN sessions\n", "SCAN web_links\n",
	};
	size_t i;

	(void)f;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	for (i = 0; i < 3; i++) {
		buf_reset(&plan);
		assert_int_equal(sqlite3_prepare_v2(db, q[i], -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW)
			buf_printf(&plan, "%s\n", sqlite3_column_text(st, 3));
		sqlite3_finalize(st);
		if (!strstr(buf_str(&plan), index[i]))
			fail_msg("query %zu does not use its index:\n%s", i, buf_str(&plan));
		assert_null(strstr(buf_str(&plan), scan[i]));
	}
	sqlite3_close(db);
	buf_release(&plan);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		fail_msg("stat %s failed", path);
	return st.st_mode & 07777;
}

/*
 * The store holds every hidden hand: the database, its -wal and its -shm
 * are 0600 whatever the umask, and an existing file others could read is
 * made 0600 when opened.
 */
static void test_files_private(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	char side[600];
	mode_t old;

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	old = umask(0);		/* the most permissive umask there is */
	f->s = open_ok(f->path, &f->err);
	mk_session(&s, "console", "room-1", SESSION_ACTIVE);
	save_session(f, &s);	/* a commit: the WAL exists */
	umask(old);
	assert_int_equal(mode_of(f->path), 0600);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	assert_int_equal(mode_of(side), 0600);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	assert_int_equal(mode_of(side), 0600);

	/* a world-readable store (an older tabula's, or a careless copy) */
	store_close(f->s);
	f->s = NULL;
	assert_int_equal(chmod(f->path, 0644), 0);
	f->s = open_ok(f->path, &f->err);
	assert_int_equal(mode_of(f->path), 0600);
	save_session(f, &s);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	assert_int_equal(mode_of(side), 0600);
	session_rec_release(&s);
}

/* A store path that is a symbolic link is refused, and nothing is written
 * where it points; so is a -wal that is one. */
static void test_symlink_refused(void **state)
{
	struct fixture *f = *state;
	char link[600], target[600], side[600];
	struct stat st;

	store_close(f->s);
	f->s = NULL;
	snprintf(link, sizeof(link), "%s-link", f->path);
	snprintf(target, sizeof(target), "%s-target", f->path);
	unlink(link);
	unlink(target);
	assert_int_equal(symlink(target, link), 0);
	assert_null(store_sqlite_open(link, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "is a symbolic link"));
	assert_non_null(strstr(buf_str(&f->err), link));
	assert_int_equal(stat(target, &st), -1);	/* nothing created there */
	unlink(link);

	/* to an existing store: refused too, the store left alone */
	assert_int_equal(symlink(f->path, link), 0);
	assert_null(store_sqlite_open(link, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "is a symbolic link"));
	unlink(link);

	/* a planted -wal link */
	snprintf(side, sizeof(side), "%s-wal", f->path);
	unlink(side);
	assert_int_equal(symlink(target, side), 0);
	assert_null(store_sqlite_open(f->path, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "-wal is a symbolic link"));
	assert_int_equal(stat(target, &st), -1);
	unlink(side);
	f->s = open_ok(f->path, &f->err);
}

/* Another program's database (its own application_id) is refused and left
 * exactly as it was. */
static void test_foreign_database_refused(void **state)
{
	struct fixture *f = *state;

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	raw_exec(f->path, "PRAGMA application_id = 1234;"
		 "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
		 "INSERT INTO notes (body) VALUES ('keep me');");
	assert_null(store_sqlite_open(f->path, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "is not a tabula database"));
	assert_non_null(strstr(buf_str(&f->err), "0x000004d2"));
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), 1234);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master"), 1);

	/* even one that looks like a tabula file inside */
	remove_db(f->path);
	write_v3(f->path);
	raw_exec(f->path, "PRAGMA application_id = 1234;");
	assert_null(store_sqlite_open(f->path, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "is not a tabula database"));
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 3);
}

/* A database without an application_id is tabula's only if it holds
 * tabula's tables: someone else's tables, or a schema version without
 * them, are refused untouched. */
static void test_foreign_tables_refused(void **state)
{
	struct fixture *f = *state;

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	raw_exec(f->path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);");
	assert_null(store_sqlite_open(f->path, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "is not a tabula database"));
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master"), 1);

	remove_db(f->path);
	raw_exec(f->path, "PRAGMA user_version = 2;");
	assert_null(store_sqlite_open(f->path, &f->err));
	assert_non_null(strstr(buf_str(&f->err), "is not a tabula database"));
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), 0);

	/* an empty file is new: tabula's from now on */
	remove_db(f->path);
	f->s = open_ok(f->path, &f->err);
	assert_int_equal(raw_int(f->path, "PRAGMA application_id"), STORE_APPLICATION_ID);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
			 store_sqlite_schema_version());
}

static void test_wal_mode(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/*
 * WAL frames reach the database file through the checkpointer thread
 * (nothing else checkpoints while the store is open).
 */
static void test_wal_checkpointed(void **state)
{
	struct fixture *f = *state;
	enum { N = 400, PAYLOAD = 4000 };
	struct outbox_rec out;
	struct store_commit c = { .outbox = &out, .noutbox = 1 };
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	struct stat st;
	char *payload = malloc(PAYLOAD + 1), key[32];
	int i;

	assert_non_null(payload);
	memset(payload, 'p', PAYLOAD);
	payload[PAYLOAD] = '\0';
	assert_int_equal(stat(f->path, &st), 0);
	assert_true(st.st_size < 256 * 1024);
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "ck-%d", i);
		mk_outbox(&out, key, payload);
		commit_ok(f, &c);
	}
	/* Up to 30 s: valgrind runs threads slowly. */
	for (i = 0; i < 1500; i++) {
		assert_int_equal(stat(f->path, &st), 0);
		if (st.st_size > (off_t)N * PAYLOAD / 2)
			break;
		nanosleep(&nap, NULL);
	}
	if (st.st_size <= (off_t)N * PAYLOAD / 2)
		fail_msg("database file still %lld bytes", (long long)st.st_size);
	assert_int_equal(count_pending(f->s), N);
	free(payload);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	char sql[64];

	store_close(f->s);
	f->s = NULL;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
		 store_sqlite_schema_version() + 1);
	raw_exec(f->path, sql);
	assert_null(store_sqlite_open(f->path, &err));
	assert_non_null(strstr(buf_str(&err), "newer than this program"));
	assert_non_null(strstr(buf_str(&err), f->path));
	/* And the file was left alone. */
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
			 store_sqlite_schema_version() + 1);
	buf_release(&err);
}

static void test_not_a_database(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	FILE *fp;

	store_close(f->s);
	f->s = NULL;
	remove_db(f->path);
	fp = fopen(f->path, "w");
	assert_non_null(fp);
	for (int i = 0; i < 200; i++)
		fputs("this is not a database at all. ", fp);
	fclose(fp);
	assert_null(store_sqlite_open(f->path, &err));
	assert_non_null(strstr(buf_str(&err), "not a database"));
	buf_release(&err);
}

static void test_sync_setting(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;

	store_close(f->s);
	f->s = NULL;
	setenv("TABULA_DB_SYNC", "full", 1);
	f->s = open_ok(f->path, &err);
	store_close(f->s);
	f->s = NULL;
	setenv("TABULA_DB_SYNC", "sometimes", 1);
	assert_null(store_sqlite_open(f->path, &err));
	assert_non_null(strstr(buf_str(&err), "TABULA_DB_SYNC"));
	unsetenv("TABULA_DB_SYNC");
	f->s = open_ok(f->path, &err);
	buf_release(&err);
}

static void test_open_errors(void **state)
{
	struct buf err = BUF_INIT;

	(void)state;
	assert_null(store_sqlite_open("/nonexistent-dir/x/tabula.db", &err));
	assert_non_null(strstr(buf_str(&err), "cannot open"));
	assert_null(store_sqlite_open("", &err));
	assert_null(store_sqlite_open(NULL, &err));
	buf_release(&err);
}

/* --------------------------------------------------------------- records */

static void test_records(void **state)
{
	struct session_rec a, b;
	struct outbox_rec o = { .payload = NULL };

	(void)state;
	mk_session(&a, "console", "r", SESSION_ACTIVE);
	a.state = xstrdup("{}");
	snprintf(a.settings, sizeof(a.settings), "{\"remind\":600}");
	session_rec_init(&b);
	assert_string_equal(b.settings, "");
	b.state = xstrdup("old");
	snprintf(b.settings, sizeof(b.settings), "{\"old\":1}");
	session_rec_copy(&b, &a);	/* releases b's old state */
	assert_ptr_not_equal(a.state, b.state);
	assert_string_equal(b.state, "{}");
	assert_string_equal(b.settings, "{\"remind\":600}");
	assert_session_equal(&a, &b);
	session_rec_copy(&b, &b);
	session_rec_release(&a);
	session_rec_release(&b);
	assert_null(b.state);
	assert_string_equal(b.settings, "");
	assert_int_equal(b.status, SESSION_LOBBY);

	assert_string_equal(session_status_name(SESSION_LOBBY), "lobby");
	assert_string_equal(session_status_name(SESSION_ACTIVE), "active");
	assert_string_equal(session_status_name(SESSION_FINISHED), "finished");
	assert_string_equal(session_status_name(SESSION_ABORTED), "aborted");
	assert_string_equal(session_status_name((enum session_status)9), "unknown");

	o.payload = xstrdup("x");
	outbox_rec_release(&o);
	assert_null(o.payload);
	outbox_rec_release(&o);
}

/* ----------------------------------------------------------- fault store */

/*
 * A scripted conversation of five writes.  check_after(k) asserts that the
 * store shows exactly the effects of the first k of them.
 */
struct script {
	struct session_rec s;
	struct action_rec acts[2];
	struct outbox_rec out[2];
};

static void script_init(struct script *sc)
{
	mk_session(&sc->s, "console", "room-f", SESSION_LOBBY);
	mk_action(&sc->acts[0], 1, "first");
	mk_action(&sc->acts[1], 2, "second");
	mk_outbox(&sc->out[0], "f-1", "after first");
	mk_outbox(&sc->out[1], "f-2", "after second");
}

/* A commit as the session manager does it: bump, and undo on failure. */
static int script_commit(struct script *sc, struct store *s, struct store_commit *c,
			 struct buf *err)
{
	int rc;

	sc->s.version++;
	rc = store_commit(s, c, err);
	if (rc)
		sc->s.version--;
	return rc;
}

/* Runs write number n (1-based); returns the store's answer. */
static int script_write(struct script *sc, struct store *s, int n, struct buf *err)
{
	struct store_commit c = { .session = &sc->s };

	switch (n) {
	case 1:		/* open the lobby */
		sc->s.status = SESSION_LOBBY;
		return script_commit(sc, s, &c, err);
	case 2:		/* start: first move, one message */
		sc->s.status = SESSION_ACTIVE;
		c.actions = &sc->acts[0];
		c.nactions = 1;
		c.outbox = &sc->out[0];
		c.noutbox = 1;
		return script_commit(sc, s, &c, err);
	case 3:
		return store_cursor_set(s, "console.line", "3", err);
	case 4:		/* the message went out */
		return store_outbox_done(s, sc->out[0].id, err);
	case 5:		/* second move ends the game */
		sc->s.status = SESSION_FINISHED;
		c.actions = &sc->acts[1];
		c.nactions = 1;
		c.outbox = &sc->out[1];
		c.noutbox = 1;
		c.cursor_key = "console.line";
		c.cursor_value = "5";
		return script_commit(sc, s, &c, err);
	}
	fail_msg("no write %d", n);
	return -1;
}

#define SCRIPT_WRITES 5

static void script_check(struct store *s, int k)
{
	struct session_rec got;
	struct buf value = BUF_INIT, err = BUF_INIT;
	int found, pending;

	session_rec_init(&got);
	found = store_session_current(s, "console", "room-f", &got, &err);
	assert_int_equal(found, k >= 1);
	if (found) {
		static const enum session_status st[] = {
			0, SESSION_LOBBY, SESSION_ACTIVE, SESSION_ACTIVE, SESSION_ACTIVE,
			SESSION_FINISHED,
		};

		assert_int_equal(got.status, st[k]);
		assert_int_equal(got.version, k >= 5 ? 3 : k >= 2 ? 2 : 1);
		assert_int_equal(count_actions(s, got.id), k >= 5 ? 2 : k >= 2 ? 1 : 0);
	}
	pending = count_pending(s);
	assert_int_equal(pending, (k >= 2 && k < 4) + (k >= 5));
	found = store_cursor_get(s, "console.line", &value, &err);
	assert_int_equal(found, k >= 3);
	if (found)
		assert_string_equal(buf_str(&value), k >= 5 ? "5" : "3");
	session_rec_release(&got);
	buf_release(&value);
	buf_release(&err);
}

static struct store *mem_store(void)
{
	struct buf err = BUF_INIT;
	struct store *s = open_ok(":memory:", &err);

	buf_release(&err);
	return s;
}

/* For every N: writes before N are there, N and later are not; healed, the
 * same conversation resumes from the failed write and completes. */
static void test_fault_every_position(void **state)
{
	struct buf err = BUF_INIT;
	int n, i;

	(void)state;
	for (n = 1; n <= SCRIPT_WRITES; n++) {
		struct script sc;
		struct store *s = store_fault_wrap(mem_store(), n);

		script_init(&sc);
		for (i = 1; i < n; i++)
			assert_int_equal(script_write(&sc, s, i, &err), 0);
		script_check(s, n - 1);
		for (i = n; i <= SCRIPT_WRITES; i++) {
			struct script before = sc;

			buf_reset(&err);
			assert_int_equal(script_write(&sc, s, i, &err), -1);
			assert_string_equal(buf_str(&err), "injected fault");
			/* A failed commit does not fill ids or bump versions. */
			assert_int_equal(sc.s.version, before.s.version);
			assert_int_equal(sc.s.id, before.s.id);
			assert_int_equal(sc.out[0].id, before.out[0].id);
			assert_int_equal(sc.out[1].id, before.out[1].id);
			script_check(s, n - 1);
		}
		assert_int_equal(store_fault_writes(s), SCRIPT_WRITES);

		store_fault_heal(s);
		for (i = n; i <= SCRIPT_WRITES; i++) {
			if (script_write(&sc, s, i, &err))
				fail_msg("write %d after heal: %s", i, buf_str(&err));
			script_check(s, i);
		}
		assert_int_equal(store_fault_writes(s), 2 * SCRIPT_WRITES - n + 1);
		store_close(s);
	}
	buf_release(&err);
}

static int count_due(void *ctx, const struct session_rec *s)
{
	(*(int *)ctx)++;
	return 0;
}

static void test_fault_never(void **state)
{
	struct buf err = BUF_INIT;
	struct script sc;
	struct store *s = store_fault_wrap(mem_store(), 0);
	int i;

	(void)state;
	script_init(&sc);
	for (i = 1; i <= SCRIPT_WRITES; i++)
		assert_int_equal(script_write(&sc, s, i, &err), 0);
	script_check(s, SCRIPT_WRITES);
	assert_int_equal(store_fault_writes(s), SCRIPT_WRITES);
	/* Reads are not writes. */
	script_check(s, SCRIPT_WRITES);
	assert_int_equal(store_fault_writes(s), SCRIPT_WRITES);
	{
		/* sessions_due and next_due go through and are reads too. */
		struct store_commit c = { .session = &sc.s };
		int64_t next = -1;
		int n = 0;

		sc.s.due = 600;
		assert_int_equal(script_commit(&sc, s, &c, &err), 0);
		assert_int_equal(store_next_due(s, &next, &err), 0);
		assert_int_equal(next, 600);
		assert_int_equal(store_sessions_due(s, 600, count_due, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_int_equal(store_fault_writes(s), SCRIPT_WRITES + 1);
	}
	assert_string_equal(s->ops->name, "fault");
	store_close(s);

	s = store_fault_wrap(mem_store(), -3);
	script_init(&sc);
	for (i = 1; i <= SCRIPT_WRITES; i++)
		assert_int_equal(script_write(&sc, s, i, &err), 0);
	store_close(s);

	assert_null(store_fault_wrap(NULL, 1));
	buf_release(&err);
}

/* The wrapper forwards the contract: a file store behind it persists. */
static void test_fault_over_file(void **state)
{
	struct fixture *f = *state;
	struct script sc;
	int i;

	f->s = store_fault_wrap(f->s, 4);
	script_init(&sc);
	for (i = 1; i <= 3; i++)
		assert_int_equal(script_write(&sc, f->s, i, &f->err), 0);
	assert_int_equal(script_write(&sc, f->s, 4, &f->err), -1);
	reopen(f);	/* closes the wrapper and the file store inside */
	script_check(f->s, 3);
}

/* ---------------------------------------------- contract: several processes */

/* The newest session of a room, by id and version, without reading it. */
static void test_session_stamp(void **state)
{
	struct fixture *f = *state;
	struct session_rec a, b;
	int64_t id = -1, version = -1;

	assert_int_equal(store_session_stamp(f->s, "discord", "c1", &id, &version, &f->err), 0);
	assert_int_equal(id, 0);
	assert_int_equal(version, 0);
	mk_session(&a, "discord", "c1", SESSION_LOBBY);
	save_session(f, &a);
	assert_int_equal(store_session_stamp(f->s, "discord", "c1", &id, &version, &f->err), 1);
	assert_int_equal(id, a.id);
	assert_int_equal(version, 1);
	save_session(f, &a);
	assert_int_equal(store_session_stamp(f->s, "discord", "c1", &id, &version, &f->err), 1);
	assert_int_equal(version, 2);
	/* a newer game in the room is the room's now */
	mk_session(&b, "discord", "c1", SESSION_LOBBY);
	save_session(f, &b);
	assert_int_equal(store_session_stamp(f->s, "discord", "c1", &id, &version, &f->err), 1);
	assert_int_equal(id, b.id);
	assert_int_equal(version, 1);
	assert_int_equal(store_session_stamp(f->s, "matrix", "c1", &id, &version, &f->err), 0);
	session_rec_release(&a);
	session_rec_release(&b);
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* A lease has one holder until it expires or is given up. */
static void test_leases(void **state)
{
	struct fixture *f = *state;
	char longname[STORE_NAME_MAX + 2];

	assert_int_equal(store_lease(f->s, "matrix", "node-a", 60000, &f->err), 1);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 60000, &f->err), 0);
	/* renewing is taking again */
	assert_int_equal(store_lease(f->s, "matrix", "node-a", 60000, &f->err), 1);
	/* giving up: only the holder can */
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 0, &f->err), 0);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 60000, &f->err), 0);
	assert_int_equal(store_lease(f->s, "matrix", "node-a", 0, &f->err), 0);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 60000, &f->err), 1);
	/* names are independent */
	assert_int_equal(store_lease(f->s, "discord.shard.0.2", "node-a", 60000, &f->err), 1);
	/* an expired lease goes to whoever asks */
	assert_int_equal(store_lease(f->s, "short", "node-a", 50, &f->err), 1);
	assert_int_equal(store_lease(f->s, "short", "node-b", 50, &f->err), 0);
	nap_ms(150);
	assert_int_equal(store_lease(f->s, "short", "node-b", 60000, &f->err), 1);
	assert_int_equal(store_lease(f->s, "short", "node-a", 60000, &f->err), 0);
	/* bad names and times change nothing */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(store_lease(f->s, longname, "node-a", 1000, &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "lease name"));
	assert_int_equal(store_lease(f->s, "matrix", "", 1000, &f->err), -1);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", -5, &f->err), -1);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 60000, &f->err), 1);
}

/* A fenced commit is stored only while its lease is held by its holder. */
static void test_fence(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct outbox_rec out;
	struct store_commit c = { .session = &s, .fence_lease = "matrix",
				  .fence_holder = "node-a", .actions = &act, .nactions = 1,
				  .outbox = &out, .noutbox = 1, .cursor_key = "matrix.since",
				  .cursor_value = "s1" };
	struct buf value = BUF_INIT;

	mk_session(&s, "matrix", "!r:x", SESSION_ACTIVE);
	session_rec_init(&got);
	mk_action(&act, 1, "go");
	mk_outbox(&out, "f-1", "board");
	commit_fails_with(f, &c, STORE_FENCED, "lease matrix is not held");
	assert_int_equal(store_session_current(f->s, "matrix", "!r:x", &got, &f->err), 0);
	assert_int_equal(store_cursor_get(f->s, "matrix.since", &value, &f->err), 0);
	assert_int_equal(count_pending(f->s), 0);

	assert_int_equal(store_lease(f->s, "matrix", "node-a", 60000, &f->err), 1);
	commit_ok(f, &c);
	assert_int_equal(count_actions(f->s, s.id), 1);

	/* another holder now: the old one writes nothing */
	assert_int_equal(store_lease(f->s, "matrix", "node-a", 0, &f->err), 0);
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 60000, &f->err), 1);
	mk_action(&act, 2, "again");
	mk_outbox(&out, "f-2", "board");
	c.cursor_value = "s2";
	commit_fails_with(f, &c, STORE_FENCED, "not held");
	assert_int_equal(count_actions(f->s, s.id), 1);
	assert_int_equal(store_cursor_get(f->s, "matrix.since", &value, &f->err), 1);
	assert_string_equal(buf_str(&value), "s1");

	/* an expired lease fences too, even when nobody took it */
	assert_int_equal(store_lease(f->s, "matrix", "node-b", 0, &f->err), 0);
	assert_int_equal(store_lease(f->s, "matrix", "node-a", 50, &f->err), 1);
	nap_ms(150);
	commit_fails_with(f, &c, STORE_FENCED, "not held");
	c.fence_holder = "";
	commit_fails(f, &c, "fence holder");
	get_ok(f, s.id, &got);
	assert_int_equal(got.version, 1);
	session_rec_release(&got);
	session_rec_release(&s);
	buf_release(&value);
}

/* Stores a session with a due time on a platform; returns its id. */
static int64_t due_session(struct fixture *f, const char *platform, const char *room,
			   int64_t due)
{
	struct session_rec s;
	int64_t id;

	mk_session(&s, platform, room, SESSION_ACTIVE);
	s.due = due;
	save_session(f, &s);
	id = s.id;
	session_rec_release(&s);
	return id;
}

static void claim_due(struct fixture *f, const char *owner, const char *const *plats,
		      int64_t until, struct due_seen *v)
{
	memset(v, 0, sizeof(*v));
	if (store_sessions_claim_due(f->s, until, owner, plats, seen_due, v, &f->err))
		fail_msg("claim_due: %s", buf_str(&f->err));
}

/*
 * Due work goes to one live node: unclaimed sessions (or a dead node's) of
 * the platforms asked become the claimer's, stay its own while it lives,
 * and are nobody else's meanwhile.
 */
static void test_claim_due(void **state)
{
	struct fixture *f = *state;
	static const char *const discord[] = { "discord", NULL };
	static const char *const both[] = { "discord", "matrix", NULL };
	static const char *const none[] = { NULL };
	struct due_seen v;
	int64_t d1, d2, m1, late;

	d1 = due_session(f, "discord", "c1", 100);
	d2 = due_session(f, "discord", "c2", 200);
	m1 = due_session(f, "matrix", "!m", 150);
	late = due_session(f, "discord", "c3", 900);
	(void)late;
	assert_int_equal(store_lease(f->s, "node-a", "node-a", 60000, &f->err), 1);
	assert_int_equal(store_lease(f->s, "node-b", "node-b", 60000, &f->err), 1);

	claim_due(f, "node-a", discord, 500, &v);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.ids[0], d1);
	assert_int_equal(v.ids[1], d2);
	/* node-b gets none of node-a's, only the unclaimed Matrix one */
	claim_due(f, "node-b", both, 500, &v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.ids[0], m1);
	/* still node-a's, again and again */
	claim_due(f, "node-a", both, 500, &v);
	assert_int_equal(v.n, 2);
	/* node-a dies (its lease goes): node-b takes its work */
	assert_int_equal(store_lease(f->s, "node-a", "node-a", 0, &f->err), 0);
	claim_due(f, "node-b", discord, 1000, &v);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.ids[0], d1);
	claim_due(f, "node-a", both, 1000, &v);
	assert_int_equal(v.n, 0);
	/* a claim survives commits of the session (any process's) */
	{
		struct session_rec s;

		session_rec_init(&s);
		get_ok(f, d1, &s);
		s.due = 120;
		save_session(f, &s);
		session_rec_release(&s);
	}
	assert_int_equal(store_lease(f->s, "node-c", "node-c", 60000, &f->err), 1);
	claim_due(f, "node-c", both, 1000, &v);
	assert_int_equal(v.n, 0);
	/* bad arguments */
	assert_int_equal(store_sessions_claim_due(f->s, 1000, "node-c", none, seen_due, &v,
						  &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "platform"));
	assert_int_equal(store_sessions_claim_due(f->s, 1000, "", both, seen_due, &v, &f->err),
			 -1);
}

static void claim_outbox(struct fixture *f, const char *owner, const char *const *plats,
			 struct seen *v)
{
	memset(v, 0, sizeof(*v));
	if (store_outbox_claim(f->s, owner, plats, seen_outbox, v, &f->err))
		fail_msg("outbox_claim: %s", buf_str(&f->err));
}

/* Messages of a dead node (or of none) are adopted by a live one, once. */
static void test_outbox_claim(void **state)
{
	struct fixture *f = *state;
	static const char *const console[] = { "console", NULL };
	static const char *const matrix[] = { "matrix", NULL };
	struct outbox_rec out[4];
	struct store_commit c = { .outbox = out, .noutbox = 1 };
	struct seen v;

	assert_int_equal(store_lease(f->s, "node-a", "node-a", 60000, &f->err), 1);
	assert_int_equal(store_lease(f->s, "node-b", "node-b", 60000, &f->err), 1);
	mk_outbox(&out[0], "o-a", "of a");
	c.owner = "node-a";
	commit_ok(f, &c);
	mk_outbox(&out[0], "o-none", "of nobody");
	c.owner = NULL;
	commit_ok(f, &c);
	mk_outbox(&out[0], "o-dead", "of a dead node");
	c.owner = "node-dead";
	commit_ok(f, &c);
	mk_outbox(&out[0], "o-mx", "matrix");
	snprintf(out[0].platform, sizeof(out[0].platform), "matrix");
	c.owner = NULL;
	commit_ok(f, &c);

	claim_outbox(f, "node-b", console, &v);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.text[0], "of nobody");
	assert_string_equal(v.text[1], "of a dead node");
	/* now node-b's: not again, and not for node-a */
	claim_outbox(f, "node-b", console, &v);
	assert_int_equal(v.n, 0);
	claim_outbox(f, "node-a", console, &v);
	assert_int_equal(v.n, 0);
	claim_outbox(f, "node-b", matrix, &v);
	assert_int_equal(v.n, 1);
	/* node-a dies: node-b adopts its message */
	assert_int_equal(store_lease(f->s, "node-a", "node-a", 0, &f->err), 0);
	memset(&v, 0, sizeof(v));
	v.s = f->s;	/* delivered and marked done inside the loop */
	v.err = &f->err;
	assert_int_equal(store_outbox_claim(f->s, "node-b", console, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.text[0], "of a");
	/* pending still lists node-b's own undelivered ones */
	assert_int_equal(count_pending(f->s), 3);
	c.owner = "bad\nname";
	mk_outbox(&out[0], "o-x", "x");
	c.owner = "";
	commit_ok(f, &c);
}

/* ------------------------------------- contract: finished games, ratings */

static void mk_result(struct result_rec *r, int64_t session, const char *room,
		      int64_t finished_at)
{
	memset(r, 0, sizeof(*r));
	r->session = session;
	snprintf(r->platform, sizeof(r->platform), "discord");
	snprintf(r->room, sizeof(r->room), "%s", room);
	snprintf(r->community, sizeof(r->community), "guild-1");
	snprintf(r->game, sizeof(r->game), "fortuna");
	snprintf(r->options, sizeof(r->options), "short");
	r->created = 1000;
	r->finished_at = finished_at;
	r->moves = 42;
	r->rated = 1;
	r->nseats = 2;
	r->seats[0].seat = 0;
	snprintf(r->seats[0].player, sizeof(r->seats[0].player), "u-ann");
	snprintf(r->seats[0].name, sizeof(r->seats[0].name), "Ann");
	r->seats[0].place = 1;
	r->seats[0].score = 30;
	r->seats[0].winner = 1;
	r->seats[0].nwinners = 1;
	r->seats[1].seat = 1;
	snprintf(r->seats[1].player, sizeof(r->seats[1].player), "ai:basic");
	snprintf(r->seats[1].name, sizeof(r->seats[1].name), "Robot");
	r->seats[1].is_bot = 1;
	r->seats[1].place = 2;
	r->seats[1].score = -5;
	r->seats[1].nwinners = 1;
	r->seats[1].last = 1;
}

static void mk_rating(struct rating_rec *x, const char *scope, const char *player, double mu,
		      double sigma, int64_t games, int64_t read_games)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->platform, sizeof(x->platform), "discord");
	snprintf(x->scope, sizeof(x->scope), "%s", scope);
	snprintf(x->game, sizeof(x->game), "fortuna");
	snprintf(x->player, sizeof(x->player), "%s", player);
	snprintf(x->name, sizeof(x->name), "N-%s", player);
	x->mu = mu;
	x->sigma = sigma;
	x->games = games;
	x->wins = games / 2.0;
	x->place_sum = games * 2;
	x->score_sum = games * 10;
	x->best_score = 33;
	x->streak = -2;
	x->last_at = 5000 + games;
	x->read_games = read_games;
}

static void mk_point(struct rating_point_rec *p, const char *scope, const char *player,
		     int64_t session, int64_t at, double mu)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->platform, sizeof(p->platform), "discord");
	snprintf(p->scope, sizeof(p->scope), "%s", scope);
	snprintf(p->game, sizeof(p->game), "fortuna");
	snprintf(p->player, sizeof(p->player), "%s", player);
	p->session = session;
	p->at = at;
	p->mu = mu;
	p->sigma = 8.25;
}

/* A finished game alone (no session in the commit): its ratings and points. */
static int commit_result(struct fixture *f, struct result_rec *r, struct rating_rec *x,
			 size_t nx, struct rating_point_rec *p, size_t np)
{
	struct store_result sr = { r, x, nx, p, np };
	struct store_commit c = { .result = &sr };

	buf_reset(&f->err);
	return store_commit(f->s, &c, &f->err);
}

struct rating_seen {
	int n;
	struct rating_rec rows[32];
};

static int seen_rating(void *ctx, const struct rating_rec *x)
{
	struct rating_seen *v = ctx;

	assert_true(v->n < 32);
	v->rows[v->n++] = *x;
	return 0;
}

static struct rating_seen *board(struct fixture *f, const char *scope, int64_t min_games,
				 int limit)
{
	static struct rating_seen v;

	memset(&v, 0, sizeof(v));
	if (store_leaderboard(f->s, "discord", scope, "fortuna", min_games, limit, seen_rating,
			      &v, &f->err))
		fail_msg("leaderboard: %s", buf_str(&f->err));
	return &v;
}

struct result_seen {
	int n;
	struct result_rec rows[16];
};

static int seen_result(void *ctx, const struct result_rec *r)
{
	struct result_seen *v = ctx;

	assert_true(v->n < 16);
	v->rows[v->n++] = *r;
	return 0;
}

struct point_seen {
	int n;
	struct rating_point_rec rows[16];
};

static int seen_point(void *ctx, const struct rating_point_rec *p)
{
	struct point_seen *v = ctx;

	assert_true(v->n < 16);
	v->rows[v->n++] = *p;
	return 0;
}

static int count_points(struct fixture *f, const char *scope, const char *player)
{
	struct point_seen v = { 0 };

	assert_int_equal(store_rating_points(f->s, "discord", scope, "fortuna", player, 16,
					     seen_point, &v, &f->err), 0);
	return v.n;
}

/* The game's last move, its result, both scopes' ratings and their points:
 * one commit, read back whole. */
static void test_result_committed(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct result_rec r, back;
	struct rating_rec x[2], out[2];
	struct rating_point_rec p[2];
	struct store_result sr = { &r, x, 2, p, 2 };
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1 };
	struct point_seen pv = { 0 };
	struct rating_seen mine = { 0 };
	const char *players[] = { "u-ann", "u-bob" };

	mk_session(&s, "discord", "chan-1", SESSION_ACTIVE);
	save_session(f, &s);
	s.status = SESSION_FINISHED;
	mk_action(&act, 1, "last move");
	mk_result(&r, 0, "chan-1", 6000);	/* 0: the commit's session */
	mk_rating(&x[0], "", "u-ann", 27.5, 7.25, 1, 0);
	mk_rating(&x[1], "guild-1", "u-ann", 26.0, 8.0, 1, 0);
	mk_point(&p[0], "", "u-ann", 0, 6000, 27.5);
	mk_point(&p[1], "guild-1", "u-ann", 0, 6000, 26.0);
	c.result = &sr;
	commit_ok(f, &c);

	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_int_equal(got.status, SESSION_FINISHED);
	session_rec_release(&got);
	assert_int_equal(count_actions(f->s, s.id), 1);
	assert_int_equal(store_result_get(f->s, s.id, &back, &f->err), 1);
	assert_int_equal(back.session, s.id);
	assert_string_equal(back.room, "chan-1");
	assert_string_equal(back.community, "guild-1");
	assert_string_equal(back.options, "short");
	assert_int_equal(back.finished_at, 6000);
	assert_int_equal(back.moves, 42);
	assert_int_equal(back.rated, 1);
	assert_int_equal(back.nseats, 2);
	assert_string_equal(back.seats[0].player, "u-ann");
	assert_int_equal(back.seats[0].winner, 1);
	assert_int_equal(back.seats[0].score, 30);
	assert_string_equal(back.seats[1].player, "ai:basic");
	assert_int_equal(back.seats[1].is_bot, 1);
	assert_int_equal(back.seats[1].place, 2);
	assert_int_equal(back.seats[1].score, -5);
	assert_int_equal(back.seats[1].last, 1);
	assert_int_equal(store_result_get(f->s, s.id + 1000, &back, &f->err), 0);

	assert_int_equal(store_ratings_get(f->s, "discord", "", "fortuna", players, 2, out,
					   &f->err), 0);
	assert_int_equal(out[0].found, 1);
	assert_true(out[0].mu == 27.5 && out[0].sigma == 7.25);
	assert_true(out[0].conservative == 27.5 - 3 * 7.25);
	assert_int_equal(out[0].games, 1);
	assert_int_equal(out[0].read_games, 1);
	assert_true(out[0].wins == 0.5);
	assert_int_equal(out[0].streak, -2);
	assert_int_equal(out[0].last_at, 5001);
	assert_string_equal(out[0].name, "N-u-ann");
	assert_int_equal(out[1].found, 0);
	assert_string_equal(out[1].player, "u-bob");
	assert_int_equal(out[1].games, 0);
	assert_int_equal(out[1].read_games, 0);

	assert_int_equal(store_rating_points(f->s, "discord", "guild-1", "fortuna", "u-ann", 10,
					     seen_point, &pv, &f->err), 0);
	assert_int_equal(pv.n, 1);
	assert_int_equal(pv.rows[0].session, s.id);
	assert_true(pv.rows[0].mu == 26.0);
	assert_int_equal(store_player_ratings(f->s, "discord", "guild-1", "u-ann", seen_rating,
					      &mine, &f->err), 0);
	assert_int_equal(mine.n, 1);
	assert_true(mine.rows[0].mu == 26.0);
}

/* A rating row that moved since it was read, or a second result for a
 * session: STORE_CONFLICT, and nothing of the commit is stored. */
static void test_result_conflicts(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct result_rec r, back;
	struct rating_rec x[2], out;
	struct rating_point_rec p;
	struct store_result sr = { &r, x, 2, &p, 1 };
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1, .result = &sr };
	const char *ann = "u-ann";
	int64_t version;

	/* u-ann has played one game */
	mk_result(&r, 500, "chan-0", 5000);
	mk_rating(&x[0], "", "u-ann", 25.0, 8.0, 1, 0);
	assert_int_equal(commit_result(f, &r, x, 1, NULL, 0), 0);

	mk_session(&s, "discord", "chan-1", SESSION_ACTIVE);
	save_session(f, &s);
	version = s.version;
	s.status = SESSION_FINISHED;
	mk_action(&act, 1, "last move");
	mk_result(&r, 0, "chan-1", 6000);
	mk_rating(&x[0], "", "u-bob", 24.0, 8.0, 1, 0);	/* new: fine */
	mk_rating(&x[1], "", "u-ann", 30.0, 7.0, 2, 0);	/* read before game 1 */
	mk_point(&p, "", "u-bob", 0, 6000, 24.0);
	commit_fails_with(f, &c, STORE_CONFLICT, "changed elsewhere");
	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_int_equal(got.version, version);
	assert_int_equal(got.status, SESSION_ACTIVE);
	session_rec_release(&got);
	assert_int_equal(count_actions(f->s, s.id), 0);
	assert_int_equal(store_result_get(f->s, s.id, &back, &f->err), 0);
	assert_int_equal(store_ratings_get(f->s, "discord", "", "fortuna", &ann, 1, &out,
					   &f->err), 0);
	assert_int_equal(out.games, 1);
	assert_true(out.mu == 25.0);
	assert_int_equal(count_points(f, "", "u-bob"), 0);
	/* a row read after more games than it has is as stale */
	x[1].read_games = 7;
	commit_fails_with(f, &c, STORE_CONFLICT, "changed elsewhere");

	/* read again: stored */
	x[1].read_games = 1;
	commit_ok(f, &c);
	assert_int_equal(store_ratings_get(f->s, "discord", "", "fortuna", &ann, 1, &out,
					   &f->err), 0);
	assert_int_equal(out.games, 2);
	assert_int_equal(count_points(f, "", "u-bob"), 1);

	/* a second result for the session: refused, the move with it */
	mk_action(&act, 2, "after the end");
	x[0].read_games = 1;
	x[0].games = 2;
	x[1].read_games = 2;
	x[1].games = 3;
	p.session = 0;
	p.at = 7000;
	commit_fails_with(f, &c, STORE_CONFLICT, "already has a result");
	assert_int_equal(count_actions(f->s, s.id), 1);
	assert_int_equal(store_ratings_get(f->s, "discord", "", "fortuna", &ann, 1, &out,
					   &f->err), 0);
	assert_int_equal(out.games, 2);
	assert_int_equal(count_points(f, "", "u-bob"), 1);
	/* nor without its session */
	r.session = s.id;
	assert_int_equal(commit_result(f, &r, NULL, 0, NULL, 0), STORE_CONFLICT);
	/* a result with neither session nor id is refused */
	r.session = 0;
	assert_int_equal(commit_result(f, &r, NULL, 0, NULL, 0), -1);
	assert_non_null(strstr(buf_str(&f->err), "needs its session"));
}

/* By conservative rating, then player; min_games, limit, hidden players
 * and scopes. */
static void test_leaderboard(void **state)
{
	struct fixture *f = *state;
	static const struct { const char *player; double mu, sigma; int games; } rows[] = {
		{ "p1", 30.0, 2.0, 10 },	/* 24 */
		{ "p2", 35.0, 1.0, 12 },	/* 32 */
		{ "p3", 28.0, 1.0, 3 },		/* 25 */
		{ "p4", 40.0, 8.0, 1 },		/* 16 */
		{ "p5", 27.0, 1.0, 10 },	/* 24: ties p1, after it */
	};
	struct result_rec r;
	struct rating_rec x[2];
	struct rating_seen *v;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		mk_result(&r, 100 + (int64_t)i, "chan-1", 5000 + (int64_t)i);
		mk_rating(&x[0], "", rows[i].player, rows[i].mu, rows[i].sigma, rows[i].games, 0);
		/* another scope, the order reversed */
		mk_rating(&x[1], "guild-1", rows[i].player, 50.0 - rows[i].mu, 1.0, rows[i].games,
			  0);
		assert_int_equal(commit_result(f, &r, x, 2, NULL, 0), 0);
	}
	v = board(f, "", 0, 10);
	assert_int_equal(v->n, 5);
	assert_string_equal(v->rows[0].player, "p2");
	assert_string_equal(v->rows[1].player, "p3");
	assert_string_equal(v->rows[2].player, "p1");
	assert_string_equal(v->rows[3].player, "p5");
	assert_string_equal(v->rows[4].player, "p4");
	assert_true(v->rows[0].conservative == 32.0);
	v = board(f, "", 5, 2);
	assert_int_equal(v->n, 2);
	assert_string_equal(v->rows[0].player, "p2");
	assert_string_equal(v->rows[1].player, "p1");
	v = board(f, "guild-1", 0, 10);
	assert_int_equal(v->n, 5);
	assert_string_equal(v->rows[0].player, "p5");
	assert_string_equal(v->rows[1].player, "p3");
	assert_string_equal(v->rows[4].player, "p4");
	v = board(f, "guild-2", 0, 10);
	assert_int_equal(v->n, 0);

	assert_int_equal(store_player_hide(f->s, "discord", "p2", 1, &f->err), 0);
	assert_int_equal(store_player_hide(f->s, "discord", "p3", 1, &f->err), 0);
	/* the same player id on another platform is someone else */
	assert_int_equal(store_player_hide(f->s, "matrix", "p1", 1, &f->err), 0);
	v = board(f, "", 0, 10);
	assert_int_equal(v->n, 3);
	assert_string_equal(v->rows[0].player, "p1");
	v = board(f, "guild-1", 0, 10);
	assert_int_equal(v->n, 3);
	assert_int_equal(store_player_hide(f->s, "discord", "p2", 0, &f->err), 0);
	v = board(f, "", 0, 10);
	assert_int_equal(v->n, 4);
	assert_string_equal(v->rows[0].player, "p2");

	assert_int_equal(store_leaderboard(f->s, "discord", "", "fortuna", 0, 0, seen_rating, v,
					   &f->err), -1);
	assert_int_equal(store_leaderboard(f->s, "discord", "", "fortuna", 0,
					   STORE_LIST_MAX + 1, seen_rating, v, &f->err), -1);
}

static int stop_after_two(void *ctx, const struct rating_rec *x)
{
	struct rating_seen *v = ctx;

	seen_rating(ctx, x);
	return v->n == 2;
}

/* Every board of several scopes and games in one read: for each scope in
 * the order asked, each game in the order asked, what store_leaderboard
 * gives (min_games, limit, hidden players); a callback that stops ends
 * the read; the counts of scopes and games bounded. */
static void test_leaderboards(void **state)
{
	struct fixture *f = *state;
	static const struct { const char *player, *game; double mu; int games; } rows[] = {
		{ "p1", "fortuna", 30.0, 10 },
		{ "p2", "fortuna", 35.0, 12 },
		{ "p3", "gtr", 28.0, 9 },
		{ "p4", "gtr", 40.0, 1 },	/* too few games at min 2 */
		{ "p5", "gtr", 27.0, 10 },
		{ "p6", "sylla", 33.0, 10 },	/* hidden */
	};
	static const char *const scopes[] = { "guild-1", "" }, *const games[] = { "gtr", "fortuna",
										 "builders" };
	static const char *const want[] = {
		/* guild-1 (mu reversed): gtr, fortuna; then "": gtr, fortuna */
		"p5", "p3", "p1", "p2", "p3", "p5", "p2", "p1",
	};
	const char *many[STORE_BOARDS_MAX + 1];
	struct result_rec r;
	struct rating_rec x[2];
	struct rating_seen v;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		mk_result(&r, 200 + (int64_t)i, "chan-1", 5000 + (int64_t)i);
		snprintf(r.game, sizeof(r.game), "%s", rows[i].game);
		mk_rating(&x[0], "", rows[i].player, rows[i].mu, 1.0, rows[i].games, 0);
		mk_rating(&x[1], "guild-1", rows[i].player, 50.0 - rows[i].mu, 1.0, rows[i].games, 0);
		snprintf(x[0].game, sizeof(x[0].game), "%s", rows[i].game);
		snprintf(x[1].game, sizeof(x[1].game), "%s", rows[i].game);
		assert_int_equal(commit_result(f, &r, x, 2, NULL, 0), 0);
	}
	assert_int_equal(store_player_hide(f->s, "discord", "p6", 1, &f->err), 0);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 2, games, 3, 2, 10, seen_rating,
					    &v, &f->err), 0);
	assert_int_equal(v.n, 8);
	for (i = 0; i < 8; i++) {
		assert_string_equal(v.rows[i].player, want[i]);
		assert_string_equal(v.rows[i].scope, i < 4 ? "guild-1" : "");
		assert_string_equal(v.rows[i].game, i % 4 < 2 ? "gtr" : "fortuna");
	}
	/* limit 1: the best of each board */
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 2, games, 3, 2, 1, seen_rating,
					    &v, &f->err), 0);
	assert_int_equal(v.n, 4);
	assert_string_equal(v.rows[0].player, "p5");
	assert_string_equal(v.rows[1].player, "p1");
	assert_string_equal(v.rows[2].player, "p3");
	assert_string_equal(v.rows[3].player, "p2");
	/* min_games 1 lets p4 in; one scope, one game */
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_leaderboards(f->s, "discord", scopes + 1, 1, games, 1, 1, 10,
					    seen_rating, &v, &f->err), 0);
	assert_int_equal(v.n, 3);
	assert_string_equal(v.rows[0].player, "p4");
	/* a callback that stops */
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 2, games, 3, 2, 10,
					    stop_after_two, &v, &f->err), 0);
	assert_int_equal(v.n, 2);
	/* bounds */
	for (i = 0; i <= STORE_BOARDS_MAX; i++)
		many[i] = "fortuna";
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 0, games, 3, 2, 10,
					    seen_rating, &v, &f->err), -1);
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 2, many, STORE_BOARDS_MAX + 1,
					    2, 10, seen_rating, &v, &f->err), -1);
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 2, games, 3, 2, 0,
					    seen_rating, &v, &f->err), -1);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_leaderboards(f->s, "discord", scopes, 2, many, STORE_BOARDS_MAX, 2,
					    1, seen_rating, &v, &f->err), 0);
	assert_int_equal(v.n, 2 * STORE_BOARDS_MAX);
}

/* A room's last games, newest first, with their seats; limit and rooms. */
static void test_results_recent(void **state)
{
	struct fixture *f = *state;
	static const int64_t at[] = { 5000, 9000, 7000, 8000, 9000 };
	struct result_seen v = { 0 };
	struct result_rec r;
	size_t i;

	for (i = 0; i < 5; i++) {
		mk_result(&r, 10 + (int64_t)i, "chan-1", at[i]);
		assert_int_equal(commit_result(f, &r, NULL, 0, NULL, 0), 0);
	}
	mk_result(&r, 30, "chan-2", 9999);
	r.nseats = 1;
	assert_int_equal(commit_result(f, &r, NULL, 0, NULL, 0), 0);
	assert_int_equal(store_results_recent(f->s, "discord", "chan-1", 3, seen_result, &v,
					      &f->err), 0);
	assert_int_equal(v.n, 3);
	/* 9000 twice: the later session first */
	assert_int_equal(v.rows[0].session, 14);
	assert_int_equal(v.rows[1].session, 11);
	assert_int_equal(v.rows[2].session, 13);
	for (i = 0; i < 3; i++) {
		assert_int_equal(v.rows[i].nseats, 2);
		assert_string_equal(v.rows[i].seats[0].player, "u-ann");
		assert_string_equal(v.rows[i].seats[1].player, "ai:basic");
	}
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_results_recent(f->s, "discord", "chan-2", 10, seen_result, &v,
					      &f->err), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.rows[0].nseats, 1);
	memset(&v, 0, sizeof(v));
	assert_int_equal(store_results_recent(f->s, "matrix", "chan-1", 10, seen_result, &v,
					      &f->err), 0);
	assert_int_equal(v.n, 0);
}

/* Forgetting: ratings, history and the hidden flag go; the player's key
 * and name leave results and closed sessions' seats; games stay. */
static void test_player_forget(void **state)
{
	struct fixture *f = *state;
	struct session_rec done, open, got;
	struct result_rec r, back;
	struct rating_rec x[2], out[2];
	struct rating_point_rec p[2];
	struct store_result sr = { &r, x, 2, p, 2 };
	struct store_commit c = { .session = &done, .result = &sr };
	const char *players[] = { "u-ann", "u-bob" };
	struct rating_seen mine = { 0 };

	mk_session(&done, "discord", "chan-1", SESSION_ACTIVE);
	done.state = xstrdup("{\"hand\":[\"secret\"]}");
	save_session(f, &done);
	done.status = SESSION_FINISHED;
	mk_result(&r, 0, "chan-1", 6000);
	snprintf(r.seats[1].player, sizeof(r.seats[1].player), "u-bob");
	snprintf(r.seats[1].name, sizeof(r.seats[1].name), "Bob");
	r.seats[1].is_bot = 0;
	mk_rating(&x[0], "", "u-ann", 27.0, 7.0, 1, 0);
	mk_rating(&x[1], "", "u-bob", 23.0, 7.0, 1, 0);
	mk_point(&p[0], "", "u-ann", 0, 6000, 27.0);
	mk_point(&p[1], "", "u-bob", 0, 6000, 23.0);
	commit_ok(f, &c);
	mk_session(&open, "discord", "chan-2", SESSION_LOBBY);
	save_session(f, &open);
	assert_int_equal(store_player_hide(f->s, "discord", "u-ann", 1, &f->err), 0);

	assert_int_equal(store_player_forget(f->s, "discord", "u-ann", &f->err), 0);
	assert_int_equal(store_ratings_get(f->s, "discord", "", "fortuna", players, 2, out,
					   &f->err), 0);
	assert_int_equal(out[0].found, 0);
	assert_int_equal(out[1].found, 1);
	assert_int_equal(count_points(f, "", "u-ann"), 0);
	assert_int_equal(count_points(f, "", "u-bob"), 1);
	assert_int_equal(store_player_ratings(f->s, "discord", "", "u-ann", seen_rating, &mine,
					      &f->err), 0);
	assert_int_equal(mine.n, 0);
	assert_int_equal(store_result_get(f->s, done.id, &back, &f->err), 1);
	assert_string_equal(back.seats[0].player, "");
	assert_string_equal(back.seats[0].name, "");
	assert_int_equal(back.seats[0].score, 30);
	assert_string_equal(back.seats[1].player, "u-bob");
	assert_string_equal(back.seats[1].name, "Bob");
	session_rec_init(&got);
	get_ok(f, done.id, &got);
	assert_string_equal(got.seats[0].name, "");
	assert_string_equal(got.seats[1].name, "Robot");
	assert_string_equal(got.state, "{\"hand\":[\"secret\"]}");
	get_ok(f, open.id, &got);
	assert_string_equal(got.seats[0].name, "Ann");
	session_rec_release(&got);
	/* the hidden flag went too: rated again, they are on the board */
	mk_result(&r, 900, "chan-1", 7000);
	mk_rating(&x[0], "", "u-ann", 40.0, 1.0, 1, 0);
	assert_int_equal(commit_result(f, &r, x, 1, NULL, 0), 0);
	assert_string_equal(board(f, "", 0, 10)->rows[0].player, "u-ann");
	/* forgetting someone unknown changes nothing and is no error */
	assert_int_equal(store_player_forget(f->s, "discord", "u-nobody", &f->err), 0);
	assert_int_equal(store_player_forget(f->s, "discord", "", &f->err), -1);
	session_rec_release(&done);
	session_rec_release(&open);
}

/* A store of schema 5 with games in it (made by dropping what migrations 6
 * and 7 added) migrates to the newest, keeps everything, and takes results. */
static void test_migrate_from_v5(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct result_rec r;
	struct rating_rec x;
	static const char *drop =
		"DROP TABLE web_links;"
		" DROP TABLE rating_history; DROP TABLE ratings; DROP TABLE players;"
		" DROP TABLE result_seats; DROP TABLE results;"
		" ALTER TABLE sessions DROP COLUMN community;";

	mk_session(&s, "discord", "chan-1", SESSION_FINISHED);
	s.state = xstrdup("{\"turn\":9}");
	save_session(f, &s);
	store_close(f->s);
	f->s = NULL;
	if (f->kind == KIND_PG) {
		pg_exec(f->path, drop);
		pg_exec(f->path, "DROP FUNCTION tabula_rating_put; DROP FUNCTION tabula_forget;"
			" UPDATE tabula_meta SET value = '5' WHERE key = 'schema_version'");
	} else {
		raw_exec(f->path, drop);
		raw_exec(f->path, "PRAGMA user_version = 5");
		assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master"
					 " WHERE name = 'ratings'"), 0);
	}
	f->s = open_ok(f->path, &f->err);
	if (f->kind == KIND_PG)
		assert_int_equal(pg_int(f->path, "SELECT value::int FROM tabula_meta"
					" WHERE key = 'schema_version'"), 7);
	else
		assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_session_equal(&got, &s);
	session_rec_release(&got);
	mk_result(&r, s.id, "chan-1", 6000);
	mk_rating(&x, "", "u-ann", 25.0, 8.0, 1, 0);
	assert_int_equal(commit_result(f, &r, &x, 1, NULL, 0), 0);
	assert_int_equal(board(f, "", 0, 10)->n, 1);
	session_rec_release(&s);
}

/* ------------------------------------------------ contract: web links */

/* What a new token is: STORE_WEB_TOKEN_LEN letters and digits (base64url
 * without '-' and '_', which chat platforms read as markdown). */
static void assert_token_shape(const char *t)
{
	size_t i;

	assert_int_equal(strlen(t), STORE_WEB_TOKEN_LEN);
	assert_true(STORE_WEB_TOKEN_LEN >= 22);
	for (i = 0; t[i]; i++)
		assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				       "0123456789", t[i]));
}

/* get before any link, reset, find, reset again (the old token finds
 * nothing), two sessions, and tokens that cannot be one. */
static void test_web_links(void **state)
{
	struct fixture *f = *state;
	struct session_rec a, b;
	char ta[STORE_WEB_TOKEN_MAX], ta2[STORE_WEB_TOKEN_MAX], tb[STORE_WEB_TOKEN_MAX];
	char got[STORE_WEB_TOKEN_MAX], bad[300];
	int64_t sid = -5;

	mk_session(&a, "discord", "chan-1", SESSION_ACTIVE);
	save_session(f, &a);
	mk_session(&b, "discord", "chan-2", SESSION_LOBBY);
	save_session(f, &b);

	snprintf(got, sizeof(got), "junk");
	assert_int_equal(store_web_get(f->s, a.id, got, sizeof(got), &f->err), 0);
	assert_string_equal(got, "");

	assert_int_equal(store_web_reset(f->s, a.id, ta, sizeof(ta), &f->err), 0);
	assert_token_shape(ta);
	assert_int_equal(store_web_get(f->s, a.id, got, sizeof(got), &f->err), 0);
	assert_string_equal(got, ta);
	assert_int_equal(store_web_find(f->s, ta, &sid, &f->err), 0);
	assert_int_equal(sid, a.id);

	/* two sessions, two tokens */
	assert_int_equal(store_web_reset(f->s, b.id, tb, sizeof(tb), &f->err), 0);
	assert_token_shape(tb);
	assert_string_not_equal(ta, tb);
	assert_int_equal(store_web_find(f->s, tb, &sid, &f->err), 0);
	assert_int_equal(sid, b.id);

	/* a new link kills the old one */
	assert_int_equal(store_web_reset(f->s, a.id, ta2, sizeof(ta2), &f->err), 0);
	assert_token_shape(ta2);
	assert_string_not_equal(ta, ta2);
	sid = 99;
	assert_int_equal(store_web_find(f->s, ta, &sid, &f->err), 1);
	assert_int_equal(sid, 0);
	assert_int_equal(store_web_find(f->s, ta2, &sid, &f->err), 0);
	assert_int_equal(sid, a.id);
	assert_int_equal(store_web_get(f->s, a.id, got, sizeof(got), &f->err), 0);
	assert_string_equal(got, ta2);
	/* the other session's link is untouched */
	assert_int_equal(store_web_get(f->s, b.id, got, sizeof(got), &f->err), 0);
	assert_string_equal(got, tb);

	/* a token one character off, or not a token at all: 1, never -1 */
	snprintf(got, sizeof(got), "%s", ta2);
	got[0] = got[0] == 'A' ? 'B' : 'A';
	assert_int_equal(store_web_find(f->s, got, &sid, &f->err), 1);
	assert_int_equal(store_web_find(f->s, "", &sid, &f->err), 1);
	assert_int_equal(store_web_find(f->s, "abc/../def", &sid, &f->err), 1);
	assert_int_equal(store_web_find(f->s, "a b", &sid, &f->err), 1);
	assert_int_equal(store_web_find(f->s, "caf\xc3\xa9", &sid, &f->err), 1);
	snprintf(bad, sizeof(bad), "%s%%", ta2);
	assert_int_equal(store_web_find(f->s, bad, &sid, &f->err), 1);
	memset(bad, 'A', sizeof(bad) - 1);
	bad[sizeof(bad) - 1] = '\0';
	assert_int_equal(store_web_find(f->s, bad, &sid, &f->err), 1);
	/* a prefix of a real token is no token */
	snprintf(got, sizeof(got), "%.*s", STORE_WEB_TOKEN_LEN - 1, ta2);
	assert_int_equal(store_web_find(f->s, got, &sid, &f->err), 1);
	assert_int_equal(sid, 0);

	/* no link for a session that is not stored; a buffer too small */
	assert_int_equal(store_web_reset(f->s, 0, got, sizeof(got), &f->err), -1);
	assert_int_equal(store_web_reset(f->s, b.id + 1000, got, sizeof(got), &f->err), -1);
	assert_int_equal(store_web_reset(f->s, a.id, got, 16, &f->err), -1);
	assert_int_equal(store_web_get(f->s, a.id, got, sizeof(got), &f->err), 0);
	assert_string_equal(got, ta2);
	session_rec_release(&a);
	session_rec_release(&b);
}

/* web_marks: each session's version, last seq and link hash in one read,
 * whatever order they are asked in; what another process commits shows in
 * the next read; a session that is not stored is version -1. */
static void test_web_marks(void **state)
{
	struct fixture *f = *state;
	struct session_rec a, b, l;
	struct store_web_mark m[4];
	struct store_commit c = { .truncate = 1, .truncate_after = 1 };
	char tok[STORE_WEB_TOKEN_MAX], hex[65];
	struct store *other = NULL;
	int64_t va;

	log_of(f, &a, "room-a", 3);
	log_of(f, &b, "room-b", 5);
	mk_session(&l, "console", "room-l", SESSION_LOBBY);
	save_session(f, &l);
	assert_int_equal(store_web_reset(f->s, b.id, tok, sizeof(tok), &f->err), 0);
	assert_int_equal(store_web_hash(tok, hex, &f->err), 0);

	memset(m, 0x55, sizeof(m));
	m[0].session = b.id + 1000;	/* not stored */
	m[1].session = l.id;
	m[2].session = b.id;
	m[3].session = a.id;
	m[0].known = m[1].known = m[2].known = m[3].known = -1;
	assert_int_equal(store_web_marks(f->s, m, 4, &f->err), 0);
	/* sorted by session */
	assert_true(m[0].session < m[1].session && m[1].session < m[2].session &&
		    m[2].session < m[3].session);
	assert_int_equal(store_web_mark_find(m, 4, a.id)->version, a.version);
	assert_int_equal(store_web_mark_find(m, 4, a.id)->last_seq, 3);
	assert_string_equal(store_web_mark_find(m, 4, a.id)->hash, "");
	assert_int_equal(store_web_mark_find(m, 4, b.id)->version, b.version);
	assert_int_equal(store_web_mark_find(m, 4, b.id)->last_seq, 5);
	assert_string_equal(store_web_mark_find(m, 4, b.id)->hash, hex);
	assert_int_equal(store_web_mark_find(m, 4, l.id)->last_seq, 0);
	assert_int_equal(store_web_mark_find(m, 4, l.id)->version, l.version);
	assert_int_equal(store_web_mark_find(m, 4, b.id + 1000)->version, -1);
	assert_string_equal(store_web_mark_find(m, 4, b.id + 1000)->hash, "");
	assert_null(store_web_mark_find(m, 4, b.id + 2000));
	/* a version known already: its moves are not read */
	m[0].session = a.id;
	m[0].known = a.version;
	m[1].session = b.id;
	m[1].known = b.version - 1;
	assert_int_equal(store_web_marks(f->s, m, 2, &f->err), 0);
	assert_int_equal(store_web_mark_find(m, 2, a.id)->version, a.version);
	assert_int_equal(store_web_mark_find(m, 2, a.id)->last_seq, -1);
	assert_string_equal(store_web_mark_find(m, 2, a.id)->hash, "");
	assert_int_equal(store_web_mark_find(m, 2, b.id)->last_seq, 5);
	assert_string_equal(store_web_mark_find(m, 2, b.id)->hash, hex);

	/* an undo and a new link, seen by another process's read */
	va = a.version;
	c.session = &a;
	commit_ok(f, &c);
	assert_true(a.version > va);
	assert_int_equal(store_web_reset(f->s, b.id, tok, sizeof(tok), &f->err), 0);
	other = persists(f) ? open_ok(f->path, &f->err) : f->s;
	m[0].session = a.id;
	m[0].known = va;
	m[1].session = b.id;
	m[1].known = b.version;
	assert_int_equal(store_web_marks(other, m, 2, &f->err), 0);
	assert_int_equal(store_web_mark_find(m, 2, a.id)->version, a.version);
	assert_int_equal(store_web_mark_find(m, 2, a.id)->last_seq, 1);
	assert_string_not_equal(store_web_mark_find(m, 2, b.id)->hash, hex);
	assert_int_equal(store_web_hash(tok, hex, &f->err), 0);
	assert_string_equal(store_web_mark_find(m, 2, b.id)->hash, hex);
	if (other != f->s)
		store_close(other);

	/* nothing asked: nothing read; too many: refused */
	assert_int_equal(store_web_marks(f->s, m, 0, &f->err), 0);
	assert_int_equal(store_web_marks(f->s, m, STORE_WEB_MARKS_MAX + 1, &f->err), -1);
	session_rec_release(&a);
	session_rec_release(&b);
	session_rec_release(&l);
}

/* ensure: the token a session has, else a new one; once stored, every
 * later ensure (another process's too) reads the same, and only reset
 * changes it. */
static void test_web_ensure(void **state)
{
	struct fixture *f = *state;
	struct session_rec a;
	char t1[STORE_WEB_TOKEN_MAX], t2[STORE_WEB_TOKEN_MAX], t3[STORE_WEB_TOKEN_MAX];
	struct store *other = NULL;
	int64_t sid;

	mk_session(&a, "console", "room", SESSION_ACTIVE);
	save_session(f, &a);
	assert_int_equal(store_web_ensure(f->s, a.id, t1, sizeof(t1), &f->err), 0);
	assert_token_shape(t1);
	assert_int_equal(store_web_ensure(f->s, a.id, t2, sizeof(t2), &f->err), 0);
	assert_string_equal(t2, t1);
	if (persists(f)) {
		/* another process on the same store reads the same link */
		other = open_ok(f->path, &f->err);
		assert_int_equal(store_web_ensure(other, a.id, t3, sizeof(t3), &f->err), 0);
		assert_string_equal(t3, t1);
		assert_int_equal(store_web_find(other, t1, &sid, &f->err), 0);
		assert_int_equal(sid, a.id);
		store_close(other);
	}
	assert_int_equal(store_web_reset(f->s, a.id, t2, sizeof(t2), &f->err), 0);
	assert_int_equal(store_web_ensure(f->s, a.id, t3, sizeof(t3), &f->err), 0);
	assert_string_equal(t3, t2);
	assert_string_not_equal(t3, t1);
	assert_int_equal(store_web_ensure(f->s, 0, t3, sizeof(t3), &f->err), -1);
	assert_int_equal(store_web_ensure(f->s, a.id + 77, t3, sizeof(t3), &f->err), -1);
	session_rec_release(&a);
}

/* A web link counts as a write for the fault wrapper, and a failed one
 * changes nothing. */
static void test_web_fault(void **state)
{
	struct fixture *f = *state;
	struct session_rec a;
	struct store *w;
	char t[STORE_WEB_TOKEN_MAX], got[STORE_WEB_TOKEN_MAX];
	int64_t sid;

	mk_session(&a, "console", "room", SESSION_ACTIVE);
	save_session(f, &a);
	assert_int_equal(store_web_reset(f->s, a.id, t, sizeof(t), &f->err), 0);
	w = store_fault_wrap(f->s, 1);
	f->s = w;
	assert_int_equal(store_web_reset(w, a.id, got, sizeof(got), &f->err), -1);
	assert_int_equal(store_fault_writes(w), 1);
	assert_int_equal(store_web_find(w, t, &sid, &f->err), 0);
	assert_int_equal(sid, a.id);
	assert_int_equal(store_web_get(w, a.id, got, sizeof(got), &f->err), 0);
	assert_string_equal(got, t);
	store_fault_heal(w);
	assert_int_equal(store_web_reset(w, a.id, got, sizeof(got), &f->err), 0);
	assert_string_not_equal(got, t);
	assert_int_equal(store_web_find(w, t, &sid, &f->err), 1);
	session_rec_release(&a);
}

/* ------------------------------------------------- contract: dump, import */

struct dump_text {
	struct buf b;
	long n;
};

/* The records of finished games and ratings, one line each. */
static void dump_line_ratings(struct dump_text *d, const struct store_item *it)
{
	const struct result_rec *r = it->result;
	const struct rating_rec *x = it->rating;
	const struct rating_point_rec *p = it->point;
	int i;

	switch (it->kind) {
	case STORE_ITEM_RESULT:
		buf_printf(&d->b, "R %lld %s %s %s %s %s %lld %lld %lld %d\n",
			   (long long)r->session, r->platform, r->room, r->community, r->game,
			   r->options, (long long)r->created, (long long)r->finished_at,
			   (long long)r->moves, r->rated);
		for (i = 0; i < r->nseats; i++)
			buf_printf(&d->b, " rs %d %s %s %d %d %lld %d %d %d\n", r->seats[i].seat,
				   r->seats[i].player, r->seats[i].name, r->seats[i].is_bot,
				   r->seats[i].place, (long long)r->seats[i].score,
				   r->seats[i].winner, r->seats[i].nwinners, r->seats[i].last);
		break;
	case STORE_ITEM_RATING:
		buf_printf(&d->b, "G %s|%s|%s|%s|%s %.17g %.17g %.17g %lld %.17g %lld %lld %lld"
			   " %lld %lld\n", x->platform, x->scope, x->game, x->player, x->name,
			   x->mu, x->sigma, x->conservative, (long long)x->games, x->wins,
			   (long long)x->place_sum, (long long)x->score_sum,
			   (long long)x->best_score, (long long)x->streak, (long long)x->last_at);
		break;
	case STORE_ITEM_POINT:
		buf_printf(&d->b, "P %s|%s|%s|%s %lld %lld %.17g %.17g\n", p->platform, p->scope,
			   p->game, p->player, (long long)p->session, (long long)p->at, p->mu,
			   p->sigma);
		break;
	case STORE_ITEM_PLAYER:
		buf_printf(&d->b, "H %s|%s %d\n", it->key, it->value, it->hidden);
		break;
	case STORE_ITEM_WEB:
		buf_printf(&d->b, "W %lld %s\n", (long long)it->ref, it->value);
		break;
	default:
		fail_msg("unknown record kind %d", (int)it->kind);
	}
}

static int dump_line(void *ctx, const struct store_item *it)
{
	struct dump_text *d = ctx;
	const struct session_rec *s = it->session;
	int i;

	d->n++;
	switch (it->kind) {
	case STORE_ITEM_SESSION:
		buf_printf(&d->b, "S %lld %s %s %s %s %s %s %d %llu %lld %lld %lld %s|%s|%lld|%s\n",
			   (long long)s->id, s->platform, s->room, s->game, s->options,
			   s->creator, s->locale, (int)s->status, (unsigned long long)s->seed,
			   (long long)s->version, (long long)s->created, (long long)s->updated,
			   s->state ? s->state : "(null)", s->settings, (long long)s->due,
			   s->votes ? s->votes : "");
		for (i = 0; i < s->nseats; i++)
			buf_printf(&d->b, " seat %d %s %s %d %d\n", i, s->seats[i].user,
				   s->seats[i].name, s->seats[i].is_bot, s->seats[i].notify_dm);
		break;
	case STORE_ITEM_ACTION:
		buf_printf(&d->b, "A %lld %lld %d %s %s %lld\n", (long long)it->action->session,
			   (long long)it->action->seq, it->action->seat, it->action->move,
			   it->action->user, (long long)it->action->at);
		break;
	case STORE_ITEM_OUTBOX:
		buf_printf(&d->b, "O %lld %s %s %s %s %s %lld %s\n", (long long)it->outbox->id,
			   it->outbox->platform, it->outbox->room, it->outbox->user,
			   it->outbox->key, it->outbox->payload ? it->outbox->payload : "",
			   (long long)it->outbox->created, it->sent_at ? "sent" : "pending");
		break;
	case STORE_ITEM_CURSOR:
		buf_printf(&d->b, "C %s=%s\n", it->key, it->value);
		break;
	default:
		dump_line_ratings(d, it);
		break;
	}
	return 0;
}

static void dump_of(struct store *s, struct dump_text *d)
{
	struct buf err = BUF_INIT;

	buf_reset(&d->b);
	d->n = 0;
	if (store_dump(s, dump_line, d, &err))
		fail_msg("dump: %s", buf_str(&err));
	buf_release(&err);
}

/* A finished game of session id, rated in two scopes (more than a page
 * of points), and a hidden player. */
static void fill_ratings(struct fixture *f, int64_t id)
{
	struct result_rec r;
	struct rating_rec x[2];
	struct rating_point_rec p[70];
	int i;

	mk_result(&r, id, "!room:x", 6000);
	snprintf(r.platform, sizeof(r.platform), "matrix");
	mk_rating(&x[0], "", "@ann:x", 0.1, 1.0 / 3, 3, 0);
	mk_rating(&x[1], "!space:x", "@ann:x", -2.5e-7, 8.333333333333334, 3, 0);
	for (i = 0; i < 2; i++)
		snprintf(x[i].platform, sizeof(x[i].platform), "matrix");
	for (i = 0; i < 70; i++) {
		mk_point(&p[i], i % 2 ? "" : "!space:x", "@ann:x", 1 + i / 2, 6000 + i, i * 0.7);
		snprintf(p[i].platform, sizeof(p[i].platform), "matrix");
	}
	assert_int_equal(commit_result(f, &r, x, 2, p, 70), 0);
	assert_int_equal(store_player_hide(f->s, "matrix", "@bob:x", 1, &f->err), 0);
}

/* A store with a bit of everything (and more than a page of actions). */
static void fill_store(struct fixture *f)
{
	struct session_rec a, b;
	struct action_rec acts[70];
	struct outbox_rec out[3];
	struct store_commit c = { .session = &a, .actions = acts, .nactions = 70,
				  .outbox = out, .noutbox = 3, .cursor_key = "matrix.since",
				  .cursor_value = "tok\nev1" };
	int i;

	mk_session(&a, "discord", "chan-1", SESSION_ACTIVE);
	a.state = xstrdup("{\"v\":1,\"name\":\"Añil\"}");
	a.votes = xstrdup("{\"abort\":[\"u-ann\"]}");
	a.seed = UINT64_C(0x8000000000000001);
	a.due = 5000;
	snprintf(a.settings, sizeof(a.settings), "{\"remind\":6}");
	for (i = 0; i < 70; i++)
		mk_action(&acts[i], i + 1, "m");
	mk_outbox(&out[0], "k-1", "sent one");
	mk_outbox(&out[1], "", "no key");
	mk_outbox(&out[2], "k-3", "pending");
	commit_ok(f, &c);
	assert_int_equal(store_outbox_done(f->s, out[0].id, &f->err), 0);
	mk_session(&b, "matrix", "!room:x", SESSION_FINISHED);
	save_session(f, &b);
	assert_int_equal(store_cursor_set(f->s, "discord.seq", "77", &f->err), 0);
	fill_ratings(f, b.id);
	assert_int_equal(store_web_reset(f->s, a.id, f->web, sizeof(f->web), &f->err), 0);
	session_rec_release(&a);
	session_rec_release(&b);
}

/* Copies into an empty target of kind k: the same dump, ids kept, new ids
 * after the copied ones, and a non-empty target refused untouched. */
static void import_into(struct fixture *f, enum kind k, const struct dump_text *want)
{
	char schema[64] = "", uri[512];
	struct store *t;
	struct dump_text got = { BUF_INIT, 0 };
	struct session_rec s;
	struct outbox_rec o;
	struct store_commit c = { .session = &s, .outbox = &o, .noutbox = 1 };
	struct buf err = BUF_INIT;

	if (k == KIND_PG)
		pg_schema_new(schema, sizeof(schema), uri, sizeof(uri));
	else
		snprintf(uri, sizeof(uri), ":memory:");
	t = open_ok(uri, &err);
	if (store_migrate(f->s, t, &err))
		fail_msg("migrate: %s", buf_str(&err));
	dump_of(t, &got);
	assert_string_equal(buf_str(&got.b), buf_str(&want->b));
	assert_int_equal(count_pending(t), 2);
	mk_session(&s, "console", "new", SESSION_LOBBY);
	s.version = 1;
	mk_outbox(&o, "k-new", "new");
	if (store_commit(t, &c, &err))
		fail_msg("commit after import: %s", buf_str(&err));
	assert_true(s.id > 2);
	assert_true(o.id > 3);
	/* not into a store that holds anything */
	assert_int_equal(store_migrate(f->s, t, &err), -1);
	assert_non_null(strstr(buf_str(&err), "not empty"));
	dump_of(t, &got);
	assert_int_equal(got.n, want->n + 2);
	assert_int_equal(store_migrate(t, t, &err), -1);
	store_close(t);
	if (k == KIND_PG)
		pg_schema_drop(schema);
	session_rec_release(&s);
	buf_release(&got.b);
	buf_release(&err);
}

/* --migrate-store: every record, both ways between both backends. */
static void test_dump_import(void **state)
{
	struct fixture *f = *state;
	struct dump_text want = { BUF_INIT, 0 };

	fill_store(f);
	dump_of(f->s, &want);
	/* 2 sessions, 70 actions, 3 messages, 2 cursors, a result, 2 ratings,
	 * 70 points, a player, a web link */
	assert_int_equal(want.n, 77 + 1 + 2 + 70 + 1 + 1);
	{
		char line[128];

		snprintf(line, sizeof(line), "W 1 %s\n", f->web);
		assert_non_null(strstr(buf_str(&want.b), line));
	}
	assert_non_null(strstr(buf_str(&want.b), "G matrix||fortuna|@ann:x|N-@ann:x"
			       " 0.10000000000000001 0.33333333333333331"));
	assert_non_null(strstr(buf_str(&want.b), "H matrix|@bob:x 1"));
	assert_non_null(strstr(buf_str(&want.b), "O 2 console room-1   no key 3000 pending"));
	assert_non_null(strstr(buf_str(&want.b), "C matrix.since=tok\nev1"));
	import_into(f, KIND_MEMORY, &want);
	import_into(f, KIND_PG, &want);
	buf_release(&want.b);
}

/* --------------------------------------------------- PostgreSQL only */

/* A second store on the same schema: another process. */
static struct store *second(struct fixture *f)
{
	return open_ok(f->path, &f->err);
}

/* Two processes: one sees the other's commits, and a change made from a
 * stale copy is refused as a conflict. */
static void test_pg_two_processes(void **state)
{
	struct fixture *f = *state;
	struct store *b = second(f);
	struct session_rec s, stale;
	struct store_commit c = { .session = &stale };
	int64_t id, version;

	mk_session(&s, "discord", "c1", SESSION_ACTIVE);
	save_session(f, &s);
	session_rec_init(&stale);
	assert_int_equal(store_session_get(b, s.id, &stale, &f->err), 1);
	save_session(f, &s);
	assert_int_equal(store_session_stamp(b, "discord", "c1", &id, &version, &f->err), 1);
	assert_int_equal(version, 2);
	stale.version++;
	assert_int_equal(store_commit(b, &c, &f->err), STORE_CONFLICT);
	assert_non_null(strstr(buf_str(&f->err), "changed elsewhere"));
	stale.version--;
	/* reloaded, it goes through */
	assert_int_equal(store_session_get(b, s.id, &stale, &f->err), 1);
	stale.version++;
	assert_int_equal(store_commit(b, &c, &f->err), 0);
	get_ok(f, s.id, &s);
	assert_int_equal(s.version, 3);
	/* a lease is one across processes */
	assert_int_equal(store_lease(f->s, "matrix", "a", 60000, &f->err), 1);
	assert_int_equal(store_lease(b, "matrix", "b", 60000, &f->err), 0);
	store_close(b);
	session_rec_release(&s);
	session_rec_release(&stale);
}

/* Terminates the store's server process from outside (a restart, a cut). */
static void kill_backend(struct fixture *f)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(pg_terminate_backend(pid)) FROM"
		 " pg_stat_activity WHERE application_name = '%s'", f->schema);
	assert_int_equal(pg_int(pg_base(), sql), 1);
	nap_ms(50);
}

/* A connection that dies is replaced: reads go on, a commit that could
 * not be sent says nothing was stored, and is stored when tried again. */
static void test_pg_reconnect(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1 };
	int rc;

	mk_session(&s, "discord", "c1", SESSION_ACTIVE);
	save_session(f, &s);
	assert_int_equal(store_pg_connections(f->s), 1);
	kill_backend(f);
	session_rec_init(&got);
	get_ok(f, s.id, &got);
	assert_int_equal(store_pg_connections(f->s), 2);

	kill_backend(f);
	mk_action(&act, 1, "go");
	s.version++;
	rc = store_commit(f->s, &c, &f->err);
	if (rc) {
		/* the answer was lost: it was not stored, and it says so */
		assert_int_equal(rc, -1);
		s.version--;
		assert_int_equal(count_actions(f->s, s.id), 0);
		commit_ok(f, &c);
	}
	assert_int_equal(count_actions(f->s, s.id), 1);
	get_ok(f, s.id, &got);
	assert_int_equal(got.version, 2);
	session_rec_release(&s);
	session_rec_release(&got);
}

/* A commit is one round trip, whatever it carries (docs/store.md): an
 * update with actions, outbox messages, a cursor and a fence; a version
 * check and marking a message sent are one each.  bench_session reports
 * round trips per command from the same counter. */
static void test_pg_round_trips(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct action_rec act[2];
	struct outbox_rec out[2];
	struct store_commit c = { .session = &s, .actions = act, .nactions = 2, .outbox = out,
				  .noutbox = 2, .cursor_key = "rt", .cursor_value = "1",
				  .fence_lease = "rt-lease", .fence_holder = "me" };
	int64_t id = 0, version = 0;
	uint64_t n;

	assert_int_equal(store_lease(f->s, "rt-lease", "me", 60000, &f->err), 1);
	mk_session(&s, "discord", "rt", SESSION_ACTIVE);
	save_session(f, &s);
	mk_action(&act[0], 1, "go");
	mk_action(&act[1], 2, "again");
	mk_outbox(&out[0], "rt-1", "one");
	mk_outbox(&out[1], "rt-2", "two");
	n = store_pg_round_trips(f->s);
	commit_ok(f, &c);
	assert_int_equal(store_pg_round_trips(f->s) - n, 1);
	assert_int_equal(count_actions(f->s, s.id), 2);

	n = store_pg_round_trips(f->s);
	assert_int_equal(store_session_stamp(f->s, "discord", "rt", &id, &version, &f->err), 1);
	assert_int_equal(version, s.version);
	assert_int_equal(store_pg_round_trips(f->s) - n, 1);
	n = store_pg_round_trips(f->s);
	assert_int_equal(store_outbox_done(f->s, out[0].id, &f->err), 0);
	assert_int_equal(store_pg_round_trips(f->s) - n, 1);
	session_rec_release(&s);
}

/* The commit reached PostgreSQL but its answer was lost: the store finds
 * out that it was stored, and fills the ids. */
static void test_pg_lost_answer(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct action_rec act;
	struct outbox_rec out[2];
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1, .outbox = out,
				  .noutbox = 2 };
	struct seen v = { 0 };

	mk_session(&s, "discord", "c1", SESSION_ACTIVE);
	mk_action(&act, 1, "go");
	mk_outbox(&out[0], "la-1", "one");
	mk_outbox(&out[1], "la-2", "two");
	store_pg_test_lose_answer(f->s);
	commit_ok(f, &c);	/* a new session: its id was known beforehand */
	assert_true(s.id > 0);
	assert_true(out[0].id > 0 && out[1].id > out[0].id);
	assert_int_equal(store_pg_connections(f->s), 2);
	assert_int_equal(store_outbox_pending(f->s, seen_outbox, &v, &f->err), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.ids[0], out[0].id);

	mk_action(&act, 2, "again");
	mk_outbox(&out[0], "la-3", "three");
	c.noutbox = 1;
	store_pg_test_lose_answer(f->s);
	commit_ok(f, &c);	/* an update */
	assert_int_equal(count_actions(f->s, s.id), 2);
	assert_true(out[0].id > out[1].id);
	session_rec_release(&s);
}

/* A server that does not answer blocks a call for TABULA_DB_TIMEOUT at
 * most: the commit fails, stores nothing, and the store goes on after. */
static void test_pg_timeout_bound(void **state)
{
	struct fixture *f = *state;
	struct session_rec s;
	struct action_rec act;
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1 };
	PGconn *lock;
	PGresult *r;
	char sql[128];
	struct timespec t0, t1;
	double ms;

	store_close(f->s);
	setenv("TABULA_DB_TIMEOUT", "300", 1);
	f->s = open_ok(f->path, &f->err);
	unsetenv("TABULA_DB_TIMEOUT");
	mk_session(&s, "discord", "c1", SESSION_ACTIVE);
	save_session(f, &s);
	/* another session holds the row: the commit waits for its lock */
	lock = PQconnectdb(f->path);
	assert_int_equal(PQstatus(lock), CONNECTION_OK);
	snprintf(sql, sizeof(sql), "BEGIN; SELECT 1 FROM sessions WHERE id = %lld FOR UPDATE",
		 (long long)s.id);
	r = PQexec(lock, sql);
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	PQclear(r);
	mk_action(&act, 1, "go");
	s.version++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(store_commit(f->s, &c, &f->err), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s.version--;
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* two bounded waits at most: the commit, then asking whether it was
	 * stored; the slack is for a busy machine */
	if (ms > 2000)
		fail_msg("the commit blocked %.0f ms with a 300 ms bound", ms);
	PQclear(PQexec(lock, "ROLLBACK"));
	PQfinish(lock);
	assert_int_equal(count_actions(f->s, s.id), 0);
	nap_ms(1100);	/* a failed reconnect pauses reconnecting for 1 s */
	commit_ok(f, &c);
	assert_int_equal(count_actions(f->s, s.id), 1);
	session_rec_release(&s);
}

static void test_pg_unreachable(void **state)
{
	struct buf err = BUF_INIT;
	struct timespec t0, t1;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_null(store_pg_open("postgresql:///tabula?host=/nonexistent-dir", &err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_non_null(strstr(buf_str(&err), "cannot connect"));
	assert_true(t1.tv_sec - t0.tv_sec < 6);
	assert_null(store_pg_open("/a/file", &err));
	assert_non_null(strstr(buf_str(&err), "postgresql://"));
	setenv("TABULA_DB_TIMEOUT", "5", 1);
	assert_null(store_pg_open(pg_base(), &err));
	assert_non_null(strstr(buf_str(&err), "TABULA_DB_TIMEOUT"));
	unsetenv("TABULA_DB_TIMEOUT");
	buf_release(&err);
}

/* A password in a store's URI never reaches a log line. */
static void test_describe(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	store_describe("postgresql://bot:s3cret@db.example/tabula?sslmode=verify-full", &b);
	assert_string_equal(buf_str(&b), "postgresql://bot:***@db.example/tabula?sslmode=verify-full");
	store_describe("postgres://db/tabula?user=bot&password=s3cret&sslmode=require", &b);
	assert_string_equal(buf_str(&b), "postgres://db/tabula?user=bot&password=***&sslmode=require");
	store_describe("postgresql:///tabula?host=/run/pg&password=x", &b);
	assert_string_equal(buf_str(&b), "postgresql:///tabula?host=/run/pg&password=***");
	store_describe("postgresql://bot@db/t", &b);
	assert_string_equal(buf_str(&b), "postgresql://bot@db/t");
	store_describe("./var/tabula.db", &b);
	assert_string_equal(buf_str(&b), "./var/tabula.db");
	assert_true(store_is_postgres("postgres://x"));
	assert_false(store_is_postgres("postgresx://x"));
	/* an unencoded '@' in the password: the userinfo runs to the last '@' */
	store_describe("postgresql://bot:pa@ss@db/t", &b);
	assert_string_equal(buf_str(&b), "postgresql://bot:***@db/t");
	store_redact("postgresql://bot:s3cr%2Ft@db/t?password=other", "no \"s3cr%2Ft\", s3cr/t, "
		     "other; postgresql://bot:s3cr%2Ft@db/t?password=other", &b);
	assert_string_equal(buf_str(&b), "no \"***\", ***, ***; "
			    "postgresql://bot:***@db/t?password=***");
	store_redact("./var/tabula.db", "disk full", &b);
	assert_string_equal(buf_str(&b), "disk full");
	buf_release(&b);
}

/* libpq quotes what it cannot parse: the whole URI, a token of it.  The
 * store's errors never carry the password (an IPv6 typo, a bad escape). */
static void test_pg_errors_hide_the_password(void **state)
{
	static const char *const bad[] = {
		"postgresql://bob:s3cretPW@[::1:5432/db",
		"postgresql://bob:s3cretPW@[::1]x:5432/db",
		"postgresql://bob:s3cret%ZZPW@localhost/db",
		"postgresql://bob:s3cretPW@[::1]/db?port=abc",
		"postgresql://bob@localhost/db?password=s3cretPW&sslmode=bogus",
		"postgresql://bob:s3c@retPW@[::1/db",
	};
	struct buf err = BUF_INIT;
	size_t i;

	(void)state;
	unsetenv("TABULA_DB_TIMEOUT");	/* another test's value */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct store *s = store_pg_open(bad[i], &err);

		assert_null(s);
		assert_non_null(strstr(buf_str(&err), "cannot connect"));
		assert_null(strstr(buf_str(&err), "s3cretPW"));
		assert_null(strstr(buf_str(&err), "retPW"));
		assert_null(strstr(buf_str(&err), "s3cret%ZZPW"));
	}
	buf_release(&err);
}

/* Version 1 of the PostgreSQL schema, as migration 1 wrote it. */
static const char pg_schema_v1[] =
	"CREATE TABLE tabula_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO tabula_meta VALUES ('application_id', '74616275'),"
	" ('schema_version', '1');"
	"CREATE TABLE sessions (id BIGSERIAL PRIMARY KEY, platform TEXT NOT NULL,"
	" room TEXT NOT NULL, game TEXT NOT NULL, options TEXT NOT NULL,"
	" creator TEXT NOT NULL, locale TEXT NOT NULL,"
	" status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 3), seed BIGINT NOT NULL,"
	" version BIGINT NOT NULL, created BIGINT NOT NULL, updated BIGINT NOT NULL,"
	" state TEXT);"
	"CREATE INDEX sessions_room ON sessions (platform, room, id);"
	"CREATE INDEX sessions_open ON sessions (id) WHERE status IN (0, 1);"
	"CREATE TABLE seats (session BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
	" seat INTEGER NOT NULL CHECK (seat >= 0), \"user\" TEXT NOT NULL, name TEXT NOT NULL,"
	" is_bot INTEGER NOT NULL, notify_dm INTEGER NOT NULL, PRIMARY KEY (session, seat));"
	"CREATE TABLE actions (session BIGINT NOT NULL REFERENCES sessions (id)"
	" ON DELETE CASCADE, seq BIGINT NOT NULL CHECK (seq >= 1), seat INTEGER NOT NULL,"
	" move TEXT NOT NULL, \"user\" TEXT NOT NULL, at BIGINT NOT NULL,"
	" PRIMARY KEY (session, seq));"
	"CREATE TABLE outbox (id BIGSERIAL PRIMARY KEY, platform TEXT NOT NULL,"
	" room TEXT NOT NULL, \"user\" TEXT NOT NULL, key TEXT UNIQUE, payload TEXT NOT NULL,"
	" created BIGINT NOT NULL, sent_at BIGINT);"
	"CREATE INDEX outbox_pending ON outbox (id) WHERE sent_at IS NULL;"
	"CREATE TABLE cursors (key TEXT PRIMARY KEY, value TEXT NOT NULL);";

/* A schema at version 1 with a game in it migrates to the newest version,
 * one transaction per migration, and keeps the game. */
static void test_pg_migrate_from_v1(void **state)
{
	struct fixture *f = *state;
	struct session_rec got;
	static const char *const moves[] = { "lead patron", "think draw" };

	store_close(f->s);
	f->s = NULL;
	pg_schema_drop(f->schema);
	pg_schema_new(f->schema, sizeof(f->schema), f->path, sizeof(f->path));
	pg_exec(f->path, pg_schema_v1);
	pg_exec(f->path,
		"INSERT INTO sessions (id, platform, room, game, options, creator, locale, status,"
		" seed, version, created, updated, state) VALUES (7, 'discord', 'chan-1',"
		" 'fortuna', 'short', 'u-ann', 'es', 1, 42, 3, 1000, 1001, '{\"turn\":2}');"
		"SELECT setval('sessions_id_seq', 7);"
		"INSERT INTO seats VALUES (7, 0, 'u-ann', 'Ann', 0, 1), (7, 1, '', 'Robot', 1, 0);"
		"INSERT INTO actions VALUES (7, 1, 0, 'lead patron', 'u-ann', 2001),"
		" (7, 2, 1, 'think draw', '', 2002);"
		"INSERT INTO outbox (platform, room, \"user\", key, payload, created)"
		" VALUES ('discord', 'chan-1', '', 'n-1', 'board', 3000);"
		"INSERT INTO cursors VALUES ('discord.seq', '99');");
	f->s = open_ok(f->path, &f->err);
	assert_int_equal(store_pg_schema_version(), 7);
	assert_int_equal(pg_int(f->path, "SELECT value::int FROM tabula_meta"
				" WHERE key = 'schema_version'"), 7);
	session_rec_init(&got);
	get_ok(f, 7, &got);
	assert_string_equal(got.settings, "");
	assert_int_equal(got.due, 0);
	assert_null(got.votes);
	assert_int_equal(got.version, 3);
	assert_int_equal(got.nseats, 2);
	assert_string_equal(got.state, "{\"turn\":2}");
	assert_log(f, 7, 2, moves);
	assert_int_equal(count_pending(f->s), 1);
	got.due = 4000;
	save_session(f, &got);
	reopen(f);
	get_ok(f, 7, &got);
	assert_int_equal(got.due, 4000);
	assert_int_equal(next_due_ok(f), 4000);
	session_rec_release(&got);
}

/* Only tabula's schemas: another application's tables, or a tabula_meta
 * that is not tabula's, are refused untouched; a newer schema too. */
static void test_pg_foreign_refused(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;

	store_close(f->s);
	f->s = NULL;
	pg_schema_drop(f->schema);
	pg_schema_new(f->schema, sizeof(f->schema), f->path, sizeof(f->path));
	pg_exec(f->path, "CREATE TABLE invoices (id int)");
	assert_null(store_open(f->path, &err));
	assert_non_null(strstr(buf_str(&err), "none is tabula's"));
	assert_int_equal(pg_int(f->path, "SELECT count(*) FROM pg_tables"
				" WHERE schemaname = current_schema()"), 1);
	pg_exec(f->path, "CREATE TABLE tabula_meta (key TEXT PRIMARY KEY, value TEXT);"
		" INSERT INTO tabula_meta VALUES ('application_id', 'something')");
	assert_null(store_open(f->path, &err));
	assert_non_null(strstr(buf_str(&err), "is not tabula's"));
	pg_exec(f->path, "DROP TABLE invoices, tabula_meta");
	f->s = open_ok(f->path, &err);
	store_close(f->s);
	f->s = NULL;
	pg_exec(f->path, "UPDATE tabula_meta SET value = '99' WHERE key = 'schema_version'");
	assert_null(store_open(f->path, &err));
	assert_non_null(strstr(buf_str(&err), "newer than this program"));
	assert_int_equal(pg_int(f->path, "SELECT value::int FROM tabula_meta"
				" WHERE key = 'schema_version'"), 99);
	buf_release(&err);
}

static void test_pg_overlong_value_on_read(void **state)
{
	struct fixture *f = *state;
	struct session_rec s, got;
	struct action_rec act;
	struct store_commit c = { .session = &s, .actions = &act, .nactions = 1 };
	struct seen v = { 0 };

	mk_session(&s, "console", "room-1", SESSION_LOBBY);
	mk_action(&act, 1, "go");
	commit_ok(f, &c);
	pg_exec(f->path, "UPDATE sessions SET locale = 'es-419-x';"
		" UPDATE actions SET move = repeat('m', 300)");
	session_rec_init(&got);
	assert_int_equal(store_session_get(f->s, s.id, &got, &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "locale"));
	assert_int_equal(store_actions(f->s, s.id, 0, seen_action, &v, &f->err), -1);
	assert_non_null(strstr(buf_str(&f->err), "action move is 300 bytes"));
	assert_int_equal(v.n, 0);
	session_rec_release(&got);
}

/* ------------------------------------------------------------------ main */

#define ALL(t) \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)&kind_memory), \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)&kind_file), \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)&kind_pg)
#define PG_ONLY(t) \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)&kind_pg)
#define FILE_ONLY(t) \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)&kind_file)

int main(void)
{
	const struct CMUnitTest tests[] = {
		ALL(test_session_insert_update),
		ALL(test_session_current),
		ALL(test_sessions_open),
		ALL(test_seed_round_trip),
		ALL(test_actions),
		ALL(test_action_fields),
		ALL(test_duplicate_seq_stores_nothing),
		ALL(test_outbox),
		ALL(test_outbox_fields),
		ALL(test_outbox_key_conflict),
		ALL(test_cursors),
		ALL(test_cursors_prefix_and_delete),
		ALL(test_fence_cursor_writes),
		ALL(test_overlong_fields_rejected),
		ALL(test_many_rows),
		ALL(test_settings),
		ALL(test_votes),
		ALL(test_sessions_of_user),
		ALL(test_sessions_of_user_many),
		ALL(test_count_lobbies),
		ALL(test_stats),
		ALL(test_due_round_trip),
		ALL(test_sessions_due),
		ALL(test_sessions_due_many),
		ALL(test_next_due),
		ALL(test_truncate),
		ALL(test_truncate_refused),
		ALL(test_truncate_fault),
		ALL(test_session_stamp),
		ALL(test_leases),
		ALL(test_fence),
		ALL(test_claim_due),
		ALL(test_outbox_claim),
		ALL(test_dump_import),
		ALL(test_result_committed),
		ALL(test_result_conflicts),
		ALL(test_leaderboard),
		ALL(test_leaderboards),
		ALL(test_results_recent),
		ALL(test_player_forget),
		ALL(test_web_links),
		ALL(test_web_ensure),
		ALL(test_web_marks),
		ALL(test_web_fault),
		PG_ONLY(test_migrate_from_v5),
		FILE_ONLY(test_migrate_from_v5),
		PG_ONLY(test_pg_two_processes),
		PG_ONLY(test_pg_reconnect),
		PG_ONLY(test_pg_lost_answer),
		PG_ONLY(test_pg_round_trips),
		PG_ONLY(test_pg_timeout_bound),
		PG_ONLY(test_pg_migrate_from_v1),
		PG_ONLY(test_pg_foreign_refused),
		PG_ONLY(test_pg_overlong_value_on_read),
		FILE_ONLY(test_overlong_value_on_read),
		FILE_ONLY(test_persistence),
		FILE_ONLY(test_migrations_idempotent),
		FILE_ONLY(test_migrate_from_v1),
		FILE_ONLY(test_migrate_from_v2),
		FILE_ONLY(test_migrate_from_v3),
		FILE_ONLY(test_lookups_use_indexes),
		FILE_ONLY(test_files_private),
		FILE_ONLY(test_symlink_refused),
		FILE_ONLY(test_foreign_database_refused),
		FILE_ONLY(test_foreign_tables_refused),
		FILE_ONLY(test_wal_mode),
		FILE_ONLY(test_wal_checkpointed),
		FILE_ONLY(test_newer_schema_refused),
		FILE_ONLY(test_not_a_database),
		FILE_ONLY(test_sync_setting),
		FILE_ONLY(test_fault_over_file),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_pg_unreachable),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_pg_errors_hide_the_password),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_fault_every_position),
		cmocka_unit_test(test_fault_never),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
