/*
 * The session manager: lobby, authorisation, bad input changing nothing,
 * commit-before-send with a failing store, restart from the store, the
 * outbox re-sent after a crash, nothing hidden in public messages.
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

#include "bot/session.h"
#include "tests/support/capture.h"

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;
	int64_t clock;
	char path[64];
};

static int64_t fake_now(void *ctx)
{
	return ((struct fixture *)ctx)->clock;
}

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static void on_sent(void *ctx, struct adapter *a, int64_t id)
{
	session_mgr_sent(ctx, id);
}

static void attach(struct fixture *f)
{
	session_mgr_init(&f->mgr, f->store, 12345);
	f->mgr.now = fake_now;
	f->mgr.now_ctx = f;
	f->cap = capture_new("console");
	f->cap->base.on_command = on_command;
	f->cap->base.on_sent = on_sent;
	f->cap->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &f->cap->base);
}

static void detach(struct fixture *f)
{
	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	f->cap = NULL;
}

static int setup_file(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;
	int fd;

	snprintf(f->path, sizeof(f->path), "/tmp/tabula-test-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	unlink(f->path);
	f->store = store_sqlite_open(f->path, &err);
	assert_non_null(f->store);
	f->clock = 1700000000;
	attach(f);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char side[96];

	detach(f);
	store_close(f->store);
	if (f->path[0]) {
		unlink(f->path);
		snprintf(side, sizeof(side), "%s-wal", f->path);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", f->path);
		unlink(side);
	}
	free(f);
	return 0;
}

static struct session *room(struct fixture *f, const char *r)
{
	struct buf err = BUF_INIT;
	struct session *s = session_mgr_find(&f->mgr, "console", r, &err);

	buf_release(&err);
	return s;
}

static char *snapshot(struct session *s)
{
	json_t *j = s->ops->save(s->st);
	char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

	json_decref(j);
	return t;
}

/* The user whose seat is awaited first, or NULL. */
static const char *awaited_user(struct session *s)
{
	unsigned aw = s->ops->awaiting(s->st);
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		if ((aw & (1u << i)) && !s->rec.seats[i].is_bot)
			return s->rec.seats[i].user;
	return NULL;
}

static void start_three(struct fixture *f)
{
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "cy", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
}

static void test_lobby(void **state)
{
	struct fixture *f = *state;
	struct session *s;

	capture_cmd(f->cap, "r1", "ana", "game status");
	assert_int_equal(capture_count(f->cap, NULL, "No game here"), 1);
	capture_cmd(f->cap, "r1", "ana", "game new chess");
	assert_int_equal(capture_count(f->cap, "ana", "Unknown game"), 1);
	capture_cmd(f->cap, "r1", "ana", "game new fortuna turbo");
	assert_int_equal(capture_count(f->cap, "ana", "turbo"), 1);
	assert_null(room(f, "r1"));
	capture_cmd(f->cap, "r1", "ana", "game new Fortuna");
	s = room(f, "r1");
	assert_non_null(s);
	assert_int_equal(s->rec.status, SESSION_LOBBY);
	assert_int_equal(s->rec.nseats, 1);	/* the creator is seated */
	capture_cmd(f->cap, "r1", "ben", "game new fortuna");
	assert_int_equal(capture_count(f->cap, "ben", "already open"), 1);
	capture_cmd(f->cap, "r1", "ana", "game join");
	assert_int_equal(capture_count(f->cap, "ana", "already have a seat"), 1);
	capture_cmd(f->cap, "r1", "ana", "game start");
	assert_int_equal(capture_count(f->cap, "ana", "needs 2 to 4 players"), 1);
	capture_cmd(f->cap, "r1", "zed", "game addbot");
	assert_int_equal(capture_count(f->cap, "zed", "Only a seated player"), 1);
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ben", "game leave");
	capture_cmd(f->cap, "r1", "ben", "game leave");
	assert_int_equal(capture_count(f->cap, "ben", "no seat"), 1);
	capture_cmd(f->cap, "r1", "ana", "game addbot 5");
	assert_int_equal(capture_count(f->cap, "ana", "seat(s) left"), 1);
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	s = room(f, "r1");
	assert_int_equal(s->rec.nseats, 3);
	assert_string_equal(s->rec.seats[1].name, "AI 1");
	assert_string_equal(s->rec.seats[2].name, "AI 2");
	capture_cmd(f->cap, "r1", "zed", "game start");
	assert_int_equal(s->rec.status, SESSION_LOBBY);
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = room(f, "r1");
	assert_int_equal(s->rec.status, SESSION_ACTIVE);
	assert_non_null(s->st);
	assert_int_equal(capture_count(f->cap, NULL, "Waiting for @ana"), 1);
	capture_cmd(f->cap, "r1", "ben", "game join");
	assert_int_equal(capture_count(f->cap, "ben", "no game waiting"), 1);
	/* another room is independent */
	capture_cmd(f->cap, "r2", "ben", "game new fortuna");
	assert_int_equal(room(f, "r2")->rec.status, SESSION_LOBBY);
}

static void test_abort(void **state)
{
	struct fixture *f = *state;

	start_three(f);
	capture_cmd(f->cap, "r1", "zed", "game abort");
	assert_int_equal(capture_count(f->cap, "zed", "Only the creator"), 1);
	capture_cmd(f->cap, "r1", "ben", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "Vote to abort recorded (1 of 3"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ACTIVE);
	capture_cmd(f->cap, "r1", "cy", "game abort");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ABORTED);
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");	/* the room is free again */
	assert_int_equal(room(f, "r1")->rec.status, SESSION_LOBBY);
}

/* Every kind of bad input: a clear private error, and nothing changes. */
static void test_bad_input_changes_nothing(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char *before, *after, *big;
	const char *who, *other;
	int64_t version;
	size_t i;
	int bad_utf8;
	static const char *const junk[] = {
		"play", "play fly to the moon", "play \x01\x02", "frobnicate", "game", "game explode",
		"log -3", "log many", "game addbot x",
	};

	start_three(f);
	s = room(f, "r1");
	who = awaited_user(s);
	assert_non_null(who);
	other = strcmp(who, "ana") ? "ana" : "ben";
	before = snapshot(s);
	version = s->rec.version;
	capture_clear(f->cap);

	capture_cmd(f->cap, "r1", other, "play 1");
	assert_int_equal(capture_count(f->cap, other, "not your turn"), 1);
	capture_cmd(f->cap, "r1", "zed", "play 1");
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 1);
	for (i = 0; i < sizeof(junk) / sizeof(*junk); i++)
		capture_cmd(f->cap, "r1", who, junk[i]);
	big = malloc(10 * 1024 + 1);
	memset(big, 'a', 10 * 1024);
	memcpy(big, "play ", 5);
	big[10 * 1024] = '\0';
	capture_cmd(f->cap, "r1", who, big);
	assert_int_equal(capture_count(f->cap, who, "too long"), 1);
	free(big);
	bad_utf8 = capture_count(f->cap, who, "not valid text");	/* the \x01 junk */
	assert_int_equal(bad_utf8, 1);
	capture_cmd(f->cap, "r1", who, "play \xc3\x28");
	capture_cmd(f->cap, "r1", who, "play \xed\xa0\x80");
	assert_int_equal(capture_count(f->cap, who, "not valid text"), bad_utf8 + 2);
	capture_cmd_len(f->cap, "r1", who, "play 1\0play 2", 13);
	assert_int_equal(capture_count(f->cap, who, "not valid text"), bad_utf8 + 3);
	/* every junk line was answered privately */
	assert_true(capture_count(f->cap, who, "") >= (int)(sizeof(junk) / sizeof(*junk)) + 4);

	/* nothing public was said, and the game did not move */
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	s = room(f, "r1");
	after = snapshot(s);
	assert_string_equal(before, after);
	assert_int_equal(s->rec.version, version);
	free(before);
	free(after);
}

static int seat_of_user(struct session *s, const char *user)
{
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		if (!strcmp(s->rec.seats[i].user, user))
			return i;
	return -1;
}

static void test_ambiguous_move_lists_candidates(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf a = BUF_INIT, b = BUF_INIT, cmd = BUF_INIT;
	const char *who;
	int i, k, found = 0;

	start_three(f);
	s = room(f, "r1");
	who = awaited_user(s);
	s->ops->moves(s->st, seat_of_user(s, who), ml);
	/* two listed moves sharing a first word make an ambiguous prefix */
	for (i = 0; i < ml->n && !found; i++) {
		for (k = i + 1; k < ml->n && !found; k++) {
			const char *sa, *sb;
			size_t n = 0;

			buf_reset(&a);
			buf_reset(&b);
			s->ops->move_id(s->st, 0, ml->v[i], &a);
			s->ops->move_id(s->st, 0, ml->v[k], &b);
			sa = buf_str(&a);
			sb = buf_str(&b);
			while (sa[n] && sa[n] == sb[n] && sa[n] != ' ')
				n++;
			if (n >= 2 && sa[n] == ' ' && sb[n] == ' ') {
				buf_printf(&cmd, "play %.*s", (int)n, sa);
				found = 1;
			}
		}
	}
	if (found) {
		char *before = snapshot(s), *after;

		capture_clear(f->cap);
		capture_cmd(f->cap, "r1", who, buf_str(&cmd));
		assert_int_equal(capture_count(f->cap, who, "several moves"), 1);
		assert_int_equal(capture_count(f->cap, who, buf_str(&a)), 1);
		assert_int_equal(capture_count(f->cap, who, buf_str(&b)), 1);
		after = snapshot(room(f, "r1"));
		assert_string_equal(before, after);
		free(before);
		free(after);
	}
	free(ml);
	buf_release(&a);
	buf_release(&b);
	buf_release(&cmd);
}

/* Plays the first listed move of whoever is awaited, n times (or to the end). */
static void play_first_moves(struct fixture *f, const char *r, int n)
{
	while (n-- > 0) {
		struct session *s = room(f, r);
		const char *who;
		char user[128];

		if (s->rec.status != SESSION_ACTIVE)
			return;
		who = awaited_user(s);
		assert_non_null(who);
		snprintf(user, sizeof(user), "%s", who);
		capture_cmd(f->cap, r, user, "play 1");
		f->clock += 60;
	}
}

static void test_restart_restores_state(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	char *before, *after;
	int64_t version, seq;

	start_three(f);
	play_first_moves(f, "r1", 25);
	before = snapshot(room(f, "r1"));
	version = room(f, "r1")->rec.version;
	seq = room(f, "r1")->last_seq;
	assert_true(seq >= 25);
	/* the process ends; a new one opens the same file */
	detach(f);
	store_close(f->store);
	f->store = store_sqlite_open(f->path, &err);
	assert_non_null(f->store);
	attach(f);
	after = snapshot(room(f, "r1"));
	assert_string_equal(before, after);
	assert_int_equal(room(f, "r1")->rec.version, version);
	assert_int_equal(room(f, "r1")->last_seq, seq);
	assert_int_equal(room(f, "r1")->rec.nseats, 3);
	/* and play goes on */
	play_first_moves(f, "r1", 5);
	assert_int_equal(room(f, "r1")->last_seq, seq + 5);
	free(before);
	free(after);
	buf_release(&err);
}

/* Replaying the stored log from the seed rebuilds the live state. */
static void test_replay_equals_live(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct session *s;
	json_t *a, *b;
	void *st;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot 3");
	capture_cmd(f->cap, "r1", "ana", "game start");
	play_first_moves(f, "r1", 60);
	s = room(f, "r1");
	st = game_state_new(s->ops);
	assert_int_equal(session_replay(s->ops, &s->rec, f->store, st, NULL, &err), 0);
	a = s->ops->save(st);
	b = s->ops->save(s->st);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	free(st);
	buf_release(&err);
}

/* A store that fails on a write: the move is refused, nothing is sent,
 * nothing changes; once healed, the same move goes through. */
static void test_failed_commit_loses_nothing(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char *before, *after;
	char user[128];
	int64_t version, seq;
	int w;

	start_three(f);
	play_first_moves(f, "r1", 3);
	detach(f);
	f->store = store_fault_wrap(f->store, 1);	/* the next write fails */
	attach(f);
	s = room(f, "r1");
	before = snapshot(s);
	version = s->rec.version;
	seq = s->last_seq;
	snprintf(user, sizeof(user), "%s", awaited_user(s));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", user, "play 1");
	assert_int_equal(capture_count(f->cap, user, "could not save"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);	/* nothing public */
	s = room(f, "r1");
	after = snapshot(s);
	assert_string_equal(before, after);
	assert_int_equal(s->rec.version, version);
	assert_int_equal(s->last_seq, seq);
	free(after);
	w = store_fault_writes(f->store);
	assert_true(w >= 1);
	/* a fresh process sees the same: nothing of the failed move was stored */
	detach(f);
	attach(f);
	after = snapshot(room(f, "r1"));
	assert_string_equal(before, after);
	free(after);
	store_fault_heal(f->store);
	capture_cmd(f->cap, "r1", user, "play 1");
	assert_int_equal(room(f, "r1")->last_seq, seq + 1);
	free(before);
}

/* Messages accepted by a platform that never confirmed them are re-sent,
 * with the same idempotency key, by the next process. */
static void test_outbox_resent_after_crash(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	char key[64] = "";
	size_t i;
	int before;

	f->cap->confirm = 0;
	start_three(f);
	for (i = 0; i < f->cap->n; i++)
		if (f->cap->v[i].key && !f->cap->v[i].user)
			snprintf(key, sizeof(key), "%s", f->cap->v[i].key);
	assert_true(key[0]);
	before = capture_count(f->cap, "*", "");
	detach(f);
	attach(f);
	assert_int_equal(session_mgr_flush_outbox(&f->mgr, &err), 0);
	assert_true(capture_count(f->cap, "*", "") > 0);
	for (i = 0; i < f->cap->n; i++)
		if (f->cap->v[i].key && !strcmp(f->cap->v[i].key, key))
			break;
	assert_true(i < f->cap->n);
	/* confirmed now: a further restart sends nothing */
	detach(f);
	attach(f);
	assert_int_equal(session_mgr_flush_outbox(&f->mgr, &err), 0);
	assert_int_equal(capture_count(f->cap, "*", ""), 0);
	(void)before;
	buf_release(&err);
}

/* A whole game with one human and two AI seats; the board a spectator sees
 * never shows what is secret at that moment; the end is announced.  (Log
 * lines may name a card as it is taken face down: everybody at a real table
 * sees that too; see docs/games/fortuna.md.) */
static void test_full_game_with_ai(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	int guard = 0;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game start");
	for (;;) {
		struct buf sec = BUF_INIT;
		char *pub;
		const char *p;

		s = room(f, "r1");
		if (s->rec.status != SESSION_ACTIVE)
			break;
		assert_true(++guard < 5000);
		capture_clear(f->cap);
		capture_cmd(f->cap, "r1", "zed", "board");
		if (s->ops->secrets) {
			s->ops->secrets(s->st, LOC_EN, &sec);
			pub = capture_public_text(f->cap);
			for (p = buf_str(&sec); *p;) {
				const char *nl = strchr(p, '\n');
				size_t n = nl ? (size_t)(nl - p) : strlen(p);
				char *needle = strndup(p, n);

				if (n && strstr(pub, needle)) {
					fprintf(stderr, "%s\n", pub);
					fail_msg("secret \"%s\" is on the public board", needle);
				}
				free(needle);
				p += n + (nl ? 1 : 0);
			}
			free(pub);
		}
		buf_release(&sec);
		capture_clear(f->cap);
		capture_cmd(f->cap, "r1", "ana", "play 1");
	}
	assert_int_equal(s->rec.status, SESSION_FINISHED);
	assert_int_equal(capture_count(f->cap, NULL, "Game over"), 1);
	capture_cmd(f->cap, "r1", "ana", "play 1");
	assert_int_equal(capture_count(f->cap, "ana", "No game is being played"), 1);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "log 5");
	assert_int_equal(capture_count(f->cap, NULL, "Log"), 1);
	capture_cmd(f->cap, "r1", "ana", "board");
	assert_int_equal(capture_count(f->cap, NULL, "Game over"), 1);
}

static void test_private_views(void **state)
{
	struct fixture *f = *state;

	start_three(f);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "hand");
	capture_cmd(f->cap, "r1", "ben", "moves");
	capture_cmd(f->cap, "r1", "zed", "hand");
	capture_cmd(f->cap, "r1", "zed", "board");
	capture_cmd(f->cap, "r1", "zed", "help");
	/* hand and moves answer privately; a spectator gets the board only */
	assert_int_equal(capture_count(f->cap, "ben", ""), 2);
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 1);
	assert_int_equal(capture_count(f->cap, "zed", "play <move>"), 1);
	capture_cmd(f->cap, "r1", "ana", "log");
	assert_int_equal(capture_count(f->cap, NULL, "Log"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lobby, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_abort, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_changes_nothing, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_move_lists_candidates, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_restart_restores_state, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_replay_equals_live, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_failed_commit_loses_nothing, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_resent_after_crash, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_full_game_with_ai, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_private_views, setup_file, teardown),
	};

	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
