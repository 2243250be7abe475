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

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bot/session.h"
#include "bot/think.h"
#include "tests/support/capture.h"
#include "util/text.h"

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;
	struct capture_adapter *dc;	/* a "discord" fake, when a test adds it */
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
	if (f->dc)
		capture_free(f->dc);
	f->dc = NULL;
}

/* Adds a "discord" fake with ADAPTER_CAP_PRIVATE_ON_DEMAND next to the console. */
static void attach_discord(struct fixture *f)
{
	f->dc = capture_new_caps("discord", ADAPTER_CAP_PRIVATE_ON_DEMAND);
	f->dc->base.on_command = on_command;
	f->dc->base.on_sent = on_sent;
	f->dc->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &f->dc->base);
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
	/* Fortuna's setup awaits every seat at once (each reserves a card);
	 * the tests below begin in round 1, one seat awaited */
	capture_cmd(f->cap, "r1", "ana", "play 1");
	capture_cmd(f->cap, "r1", "ben", "play 1");
	capture_cmd(f->cap, "r1", "cy", "play 1");
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

/*
 * Every documented option of every game starts a game through `game new`,
 * written as documented, in capitals, with '_' for '-', and with other
 * options; the session stores the canonical word and the game starts.
 */
static void test_every_option_starts(void **state)
{
	struct fixture *f = *state;
	const struct game_ops *const *all = game_all();
	struct session *s;
	char text[160], rm[32], canon[64], variant[64];
	size_t gi, oi, i;
	int n = 0, form;

	for (gi = 0; all[gi]; gi++) {
		for (oi = 0; all[gi]->option_words && all[gi]->option_words[oi]; oi++) {
			const char *w = all[gi]->option_words[oi];

			snprintf(canon, sizeof(canon), "%s", w);
			for (form = 0; form < 3; form++) {
				snprintf(variant, sizeof(variant), "%s", w);
				for (i = 0; variant[i]; i++) {
					if (form == 1)
						variant[i] = (char)toupper((unsigned char)variant[i]);
					if (form == 2 && variant[i] == '-')
						variant[i] = '_';
				}
				snprintf(rm, sizeof(rm), "opt%d", n++);
				snprintf(text, sizeof(text), "game new %s %s", all[gi]->id, variant);
				capture_cmd(f->cap, rm, "ana", text);
				s = room(f, rm);
				if (!s)
					fail_msg("%s: option \"%s\" refused", all[gi]->id, variant);
				assert_string_equal(s->rec.options, canon);
				capture_cmd(f->cap, rm, "ana", "game addbot 9");
				snprintf(text, sizeof(text), "game addbot %d", all[gi]->min_players - 1);
				capture_cmd(f->cap, rm, "ana", text);
				capture_cmd(f->cap, rm, "ana", "game start");
				s = room(f, rm);
				if (s->rec.status != SESSION_ACTIVE && s->rec.status != SESSION_FINISHED)
					fail_msg("%s %s did not start", all[gi]->id, variant);
			}
		}
	}
	assert_true(n >= 3 * 5);	/* gtr's four, fortuna's draft */
	/* two options at once, and an unknown one among known ones */
	capture_cmd(f->cap, "both", "ana", "game new gtr nofunctions Original-Circus");
	assert_string_equal(room(f, "both")->rec.options, "nofunctions original-circus");
	capture_cmd(f->cap, "bad", "ana", "game new gtr original-circus circus");
	assert_null(room(f, "bad"));
	assert_int_equal(capture_count(f->cap, "ana", "\"circus\""), 1);
}

struct lines {
	char *v[256];
	int n;
};

static void lines_emit(struct game_log *log, int seat, const char *text)
{
	struct lines *l = log->ctx;

	if (seat == LOG_PUBLIC && l->n < 256)
		l->v[l->n++] = strdup(text);
}

/*
 * A human's move followed by AI turns that write more than the room update
 * keeps: the update shows every line of the human's own move, a note for
 * the AI lines it leaves out, and the last AI lines; a plain `log` from the
 * mover then shows everything since their move.
 */
static void test_own_outcome_never_cut(void **state)
{
	struct fixture *f = *state;
	struct lines mine = { { 0 }, 0 };
	struct game_log log = { LOC_EN, NULL, lines_emit, &mine };
	const char *names[GAME_MAX_SEATS] = { "ana", "AI 1", "AI 2" };
	struct buf err = BUF_INIT;
	const struct captured *m;
	struct session *s;
	struct move mv;
	void *copy;
	char *pub;
	int i, tries;

	f->mgr.max_log_lines = 1;
	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = room(f, "r1");
	assert_int_equal(s->rec.status, SESSION_ACTIVE);
	log.names = names;
	/* find a decision of ana's after which AI seats write 2+ lines */
	for (tries = 0; tries < 200; tries++) {
		s = room(f, "r1");
		assert_string_equal(awaited_user(s), "ana");
		for (i = 0; i < mine.n; i++)
			free(mine.v[i]);
		mine.n = 0;
		copy = game_state_new(s->ops);
		memcpy(copy, s->st, s->ops->state_size);
		assert_int_equal(game_parse(s->ops, copy, 0, "1", LOC_EN, &mv, &err), 0);
		assert_int_equal(s->ops->apply(copy, 0, mv, &log, &err), 0);
		free(copy);
		capture_clear(f->cap);
		capture_cmd(f->cap, "r1", "ana", "play 1");
		m = capture_last(f->cap, NULL, 1, "");
		assert_non_null(m);
		if (strstr(m->text, "lines of AI turns"))
			break;
	}
	assert_true(tries < 200);
	assert_true(mine.n >= 1);
	for (i = 0; i < mine.n; i++)
		if (!strstr(m->text, mine.v[i]))
			fail_msg("the room update dropped ana's own line \"%s\":\n%s", mine.v[i],
				 m->text);
	/* `log` brings back everything since ana's move */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "log");
	pub = capture_public_text(f->cap);
	for (i = 0; i < mine.n; i++)
		assert_non_null(strstr(pub, mine.v[i]));
	assert_null(strstr(pub, "lines of AI turns"));
	free(pub);
	for (i = 0; i < mine.n; i++)
		free(mine.v[i]);
	buf_release(&err);
}

static void test_abort(void **state)
{
	struct fixture *f = *state;

	start_three(f);
	capture_cmd(f->cap, "r1", "zed", "game abort");
	assert_int_equal(capture_count(f->cap, "zed", "Only the players seated"), 1);
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

/* ---- controls, stale clicks, completion, private-on-demand, settings ---- */

static struct session *room_on(struct fixture *f, const char *platform, const char *r)
{
	struct buf err = BUF_INIT;
	struct session *s = session_mgr_find(&f->mgr, platform, r, &err);

	buf_release(&err);
	return s;
}

/* ana opens Fortuna in r, ben joins, ana starts: two humans, no AI. */
static void start_two_setup(struct capture_adapter *c, const char *r)
{
	capture_cmd(c, r, "ana", "game new fortuna");
	capture_cmd(c, r, "ben", "game join");
	capture_cmd(c, r, "ana", "game start");
}

/* The same, past Fortuna's setup, where both reserve a card at once: round
 * 1, one seat awaited. */
static void start_two(struct capture_adapter *c, const char *r)
{
	start_two_setup(c, r);
	capture_cmd(c, r, "ana", "play 1");
	capture_cmd(c, r, "ben", "play 1");
}

/* The one human seat awaited in s (asserted to be exactly one). */
static int only_awaited_seat(struct session *s)
{
	unsigned aw = s->ops->awaiting(s->st);
	int i, who = -1, n = 0;

	for (i = 0; i < s->rec.nseats; i++) {
		if (!(aw & (1u << i)))
			continue;
		assert_false(s->rec.seats[i].is_bot);
		who = i;
		n++;
	}
	assert_int_equal(n, 1);
	return who;
}

/* The index of m in c's records. */
static size_t index_of(const struct capture_adapter *c, const struct captured *m)
{
	assert_non_null(m);
	assert_true(m >= c->v && m < c->v + c->n);
	return (size_t)(m - c->v);
}

/* The number of captured messages to user that came from the outbox (sent=1)
 * or were replies (sent=0). */
static int count_kind(const struct capture_adapter *c, const char *user, int sent)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->n; i++) {
		const struct captured *m = &c->v[i];

		if (!user != !m->user || (user && strcmp(user, m->user)))
			continue;
		if (sent) {
			n += m->key != NULL && m->outbox_id > 0;
		} else {
			n += m->key == NULL && m->outbox_id == 0;
		}
	}
	return n;
}

/* A public board carries its session and its version (the position a
 * click on it acts on), and never a move: moves are private.  Lobby
 * messages carry nothing; a board re-sent once the game moved on carries
 * no controls.  The awaited player's moves come to them alone, through
 * session_mgr_complete (Discord's ephemeral "My moves" menu). */
static void test_board_controls(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	const struct captured *m;
	struct session *s;
	struct move_list *ml = malloc(sizeof(*ml));
	struct adapter_choice choices[ADAPTER_CHOICES_MAX];
	struct command q;
	struct move mv;
	char who[128], value[ADAPTER_CHOICE_SIZE];
	int64_t id, ver, pos;
	void *expect;
	json_t *ja, *jb;
	size_t i, k, n, stale = 0, fresh = 0;
	int seat;

	f->cap->confirm = 0;	/* everything stays pending, for the re-send below */
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	assert_true(f->cap->n >= 2);
	for (i = 0; i < f->cap->n; i++) {
		assert_int_equal(f->cap->v[i].session, 0);
		assert_int_equal(f->cap->v[i].version, 0);
	}
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_cmd(f->cap, "r1", "ana", "play 1");	/* the reservation, all at once */
	capture_cmd(f->cap, "r1", "ben", "play 1");
	s = room(f, "r1");
	assert_int_equal(s->rec.status, SESSION_ACTIVE);
	id = s->rec.id;
	ver = s->rec.version;
	pos = s->last_seq;
	assert_true(id > 0);
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);

	m = capture_last(f->cap, NULL, 1, "");
	assert_non_null(m);
	assert_int_equal(m->session, id);
	assert_int_equal(m->version, pos);
	assert_non_null(m->locale);
	assert_string_equal(m->locale, "en");
	/* the awaited player's private turn notice carries the same controls */
	m = capture_last(f->cap, who, 1, "");
	assert_non_null(m);
	assert_int_equal(m->session, id);
	assert_int_equal(m->version, pos);

	/* the moves offered to the awaited player alone: exactly their
	 * (non-meta) moves, by id; nobody else gets any */
	memset(&q, 0, sizeof(q));
	q.platform = "console";
	q.room = "r1";
	q.user = who;
	q.name = who;
	q.text = "";
	n = session_mgr_complete(&f->mgr, &q, choices, ADAPTER_CHOICES_MAX);
	s->ops->moves(s->st, seat, ml);
	assert_true(n >= 1 && n <= ADAPTER_CHOICES_MAX);
	assert_int_equal(n, (size_t)(ml->n - ml->nmeta < ADAPTER_CHOICES_MAX ?
				     ml->n - ml->nmeta : ADAPTER_CHOICES_MAX));
	for (i = 0; i < n; i++) {
		struct buf mid = BUF_INIT;

		s->ops->move_id(s->st, seat, ml->v[i], &mid);
		assert_string_equal(choices[i].value, buf_str(&mid));
		assert_true(choices[i].label[0] != '\0');
		for (k = 0; k < i; k++)
			assert_string_not_equal(choices[k].value, choices[i].value);
		buf_release(&mid);
	}
	q.user = "nobody";
	assert_int_equal(session_mgr_complete(&f->mgr, &q, choices + 1, 1), 0);

	/* play the last choice: the game is where that move leads */
	snprintf(value, sizeof(value), "%s", choices[n - 1].value);
	expect = game_state_new(s->ops);
	memcpy(expect, s->st, s->ops->state_size);
	assert_int_equal(game_parse(s->ops, expect, seat, value, LOC_EN, &mv, &err), 0);
	assert_int_equal(s->ops->apply(expect, seat, mv, NULL, &err), 0);
	capture_clear(f->cap);
	{
		char text[ADAPTER_CHOICE_SIZE + 8];

		snprintf(text, sizeof(text), "play %s", value);
		capture_cmd(f->cap, "r1", who, text);
	}
	s = room(f, "r1");
	assert_int_equal(s->rec.version, ver + 1);
	ja = s->ops->save(expect);
	jb = s->ops->save(s->st);
	assert_true(json_equal(ja, jb));
	json_decref(ja);
	json_decref(jb);
	free(expect);
	m = capture_last(f->cap, NULL, 1, "");
	assert_non_null(m);
	assert_int_equal(m->session, id);
	pos = s->last_seq;
	assert_int_equal(m->version, pos);

	/* a restart re-sends both boards, each with the position it shows */
	detach(f);
	attach(f);
	assert_int_equal(session_mgr_flush_outbox(&f->mgr, &err), 0);
	for (i = 0; i < f->cap->n; i++) {
		m = &f->cap->v[i];
		assert_non_null(m->key);
		assert_int_equal(m->session, id);
		if (m->version != pos) {
			assert_true(m->version < pos);
			stale++;
		} else if (!m->user) {
			fresh++;
		}
	}
	assert_true(stale >= 1);	/* the start board (and its private notice) */
	assert_int_equal(fresh, 1);
	free(ml);
	buf_release(&err);
}

/* A click on an older board, or on another game's board, is refused
 * privately and changes nothing; a click on the current board works. */
static void test_stale_click(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	struct session *s;
	char who[128], other[128], text[ADAPTER_CHOICE_SIZE + 8];
	char *before, *after;
	int64_t id, ver, pos, id2;

	start_two(f->cap, "r1");
	s = room(f, "r1");
	id = s->rec.id;
	ver = s->rec.version;
	pos = s->last_seq;
	snprintf(who, sizeof(who), "%s", s->rec.seats[only_awaited_seat(s)].user);
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	snprintf(text, sizeof(text), "play 1");
	before = snapshot(s);
	capture_clear(f->cap);

	/* an older version of this game */
	capture_cmd_expect(f->cap, "r1", who, text, id, pos - 1);
	assert_int_equal(capture_count(f->cap, who, "out of date"), 1);
	/* even a harmless command from a stale board is refused */
	capture_cmd_expect(f->cap, "r1", who, "moves", id, pos - 1);
	assert_int_equal(capture_count(f->cap, who, "out of date"), 2);
	assert_int_equal(capture_count(f->cap, who, "Your moves"), 0);
	/* another game */
	capture_cmd_expect(f->cap, "r1", who, text, id + 1000, pos);
	assert_int_equal(capture_count(f->cap, who, "over"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	assert_int_equal(count_kind(f->cap, who, 1), 0);
	assert_int_equal(f->cap->n, 3);
	s = room(f, "r1");
	assert_int_equal(s->rec.version, ver);
	after = snapshot(s);
	assert_string_equal(before, after);
	free(after);

	/* the current board works */
	capture_cmd_expect(f->cap, "r1", who, "moves", id, pos);
	assert_int_equal(capture_count(f->cap, who, "Your moves"), 1);
	capture_clear(f->cap);
	capture_cmd_expect(f->cap, "r1", who, text, id, pos);
	s = room(f, "r1");
	assert_int_equal(s->rec.version, ver + 1);
	m = capture_last(f->cap, NULL, 1, "");
	assert_non_null(m);
	assert_int_equal(m->version, room(f, "r1")->last_seq);

	/* that board is now stale for the other player too */
	capture_clear(f->cap);
	capture_cmd_expect(f->cap, "r1", other, "play 1", id, pos);
	assert_int_equal(capture_count(f->cap, other, "out of date"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	assert_int_equal(room(f, "r1")->rec.version, ver + 1);

	/* a board of an aborted game, clicked in the room's next game */
	capture_cmd(f->cap, "r1", "ana", "game abort");
	start_two(f->cap, "r1");
	s = room(f, "r1");
	id2 = s->rec.id;
	assert_true(id2 != id);
	ver = s->rec.version;
	capture_clear(f->cap);
	capture_cmd_expect(f->cap, "r1", s->rec.seats[only_awaited_seat(s)].user, "play 1", id,
			   s->last_seq);
	assert_int_equal(capture_count(f->cap, "*", "game that is over"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	assert_int_equal(room(f, "r1")->rec.version, ver);
	free(before);
}

static size_t complete(struct fixture *f, const char *r, const char *user, const char *text,
		       size_t len, struct adapter_choice *out)
{
	struct command cmd = {
		.platform = "console", .room = r, .user = user, .name = user,
		.text = text, .text_len = len,
	};

	return session_mgr_complete(&f->mgr, &cmd, out, ADAPTER_CHOICES_MAX);
}

static void test_complete(void **state)
{
	struct fixture *f = *state;
	struct adapter_choice *out = calloc(ADAPTER_CHOICES_MAX, sizeof(*out));
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf last = BUF_INIT, up = BUF_INIT;
	struct session *s;
	char who[128], other[128], filter[ADAPTER_CHOICE_SIZE];
	size_t n, i;
	int seat;

	/* a lobby has nothing to complete */
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	assert_int_equal(complete(f, "r1", "ana", "", 0, out), 0);
	assert_int_equal(complete(f, "r2", "ana", "", 0, out), 0);	/* no game */
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_cmd(f->cap, "r1", "ana", "play 1");	/* the reservation, all at once */
	capture_cmd(f->cap, "r1", "ben", "play 1");
	s = room(f, "r1");
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	s->ops->moves(s->st, seat, ml);
	assert_true(ml->n >= 2);

	/* no filter: every move, in order */
	n = complete(f, "r1", who, "", 0, out);
	assert_int_equal(n, (size_t)(ml->n < ADAPTER_CHOICES_MAX ? ml->n : ADAPTER_CHOICES_MAX));
	for (i = 0; i < n; i++) {
		struct buf mid = BUF_INIT;

		s->ops->move_id(s->st, seat, ml->v[i], &mid);
		assert_string_equal(out[i].value, buf_str(&mid));
		buf_release(&mid);
	}
	/* a prefix of the last move's id (minus its last letter), in capitals */
	s->ops->move_id(s->st, seat, ml->v[ml->n - 1], &last);
	assert_true(last.len >= 2);
	for (i = 0; i + 1 < last.len; i++)
		buf_addch(&up, buf_str(&last)[i] >= 'a' && buf_str(&last)[i] <= 'z'
				       ? (char)(buf_str(&last)[i] - 'a' + 'A') : buf_str(&last)[i]);
	snprintf(filter, sizeof(filter), "%s", buf_str(&up));
	n = complete(f, "r1", who, filter, strlen(filter), out);
	assert_true(n >= 1);
	assert_string_equal(out[0].value, buf_str(&last));
	/* matches nothing */
	assert_int_equal(complete(f, "r1", who, "zzqxj", 5, out), 0);
	/* not seated */
	assert_int_equal(complete(f, "r1", "zed", "", 0, out), 0);
	/* not valid UTF-8 */
	assert_int_equal(complete(f, "r1", who, "\xc3\x28", 2, out), 0);
	assert_int_equal(complete(f, "r1", who, "\xff", 1, out), 0);
	{
		/* a NUL inside the text is not text either (else "<c>" would match) */
		const char nul[3] = { buf_str(&last)[0], '\0', 'x' };

		assert_true(complete(f, "r1", who, nul, 1, out) >= 1);
		assert_int_equal(complete(f, "r1", who, nul, 3, out), 0);
	}
	/* the other seat is not deciding anything now */
	s->ops->moves(s->st, seat_of_user(s, other), ml);
	assert_int_equal(complete(f, "r1", other, "", 0, out), (size_t)ml->n);
	/* an aborted game keeps its state but offers nothing */
	capture_cmd(f->cap, "r1", "ana", "game abort");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ABORTED);
	assert_non_null(room(f, "r1")->st);
	assert_int_equal(complete(f, "r1", who, "", 0, out), 0);
	free(out);
	free(ml);
	buf_release(&last);
	buf_release(&up);
}

/* The label players see (the seats' names in it), in English. */
static void seen_label(struct session *s, int seat, struct move mv, struct buf *out)
{
	const char *names[GAME_MAX_SEATS] = { 0 };
	struct game_view v;
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		names[i] = s->rec.seats[i].name;
	v.loc = LOC_EN;
	v.nseats = s->rec.nseats;
	v.names = names;
	game_move_label(s->ops, s->st, seat, mv, &v, out);
}

/* Checks session_mgr_complete's order for filter against the contract:
 * moves whose folded id or label starts with the folded filter first, then
 * those holding it elsewhere, each group in list order.  Sets *mixed when a
 * prefix match comes after another match in list order (the order matters). */
static void check_completion_order(struct fixture *f, struct session *s, int seat,
				   const char *user, const char *filter, int *mixed)
{
	struct adapter_choice *out = calloc(ADAPTER_CHOICES_MAX, sizeof(*out));
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf ff = BUF_INIT, id = BUF_INIT, label = BUF_INIT, fid = BUF_INIT, fl = BUF_INIT;
	char (*want)[ADAPTER_CHOICE_SIZE] = calloc(ADAPTER_CHOICES_MAX, sizeof(*want));
	size_t n, nwant = 0;
	int pass, i, other_seen = 0;

	text_fold(filter, &ff);
	s->ops->moves(s->st, seat, ml);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < ml->n; i++) {
			const char *hi, *hl;
			int at;

			buf_reset(&id);
			buf_reset(&label);
			buf_reset(&fid);
			buf_reset(&fl);
			s->ops->move_id(s->st, seat, ml->v[i], &id);
			seen_label(s, seat, ml->v[i], &label);
			text_fold(buf_str(&id), &fid);
			text_fold(buf_str(&label), &fl);
			hi = strstr(buf_str(&fid), buf_str(&ff));
			hl = strstr(buf_str(&fl), buf_str(&ff));
			if (!hi && !hl)
				continue;
			at = hi == buf_str(&fid) || hl == buf_str(&fl);
			if (pass == 0) {
				if (at && other_seen)
					*mixed = 1;
				other_seen |= !at;
			}
			if (at != (pass == 0) || nwant == ADAPTER_CHOICES_MAX)
				continue;
			snprintf(want[nwant++], ADAPTER_CHOICE_SIZE, "%s", buf_str(&id));
		}
	}
	n = complete(f, s->rec.room, user, filter, strlen(filter), out);
	assert_int_equal(n, nwant);
	for (i = 0; i < (int)n; i++)
		assert_string_equal(out[i].value, want[i]);
	free(out);
	free(ml);
	free(want);
	buf_release(&ff);
	buf_release(&id);
	buf_release(&label);
	buf_release(&fid);
	buf_release(&fl);
}

/* Over the first moves of a game, every word of every move's id and label
 * (and its first three letters) as a filter: the order is the contract's. */
static void test_complete_order(void **state)
{
	struct fixture *f = *state;
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf id = BUF_INIT, label = BUF_INIT;
	int turn, mixed = 0, i;

	start_two(f->cap, "r1");
	for (turn = 0; turn < 40; turn++) {
		struct session *s = room(f, "r1");
		char user[128];
		int seat;

		if (s->rec.status != SESSION_ACTIVE)
			break;
		seat = only_awaited_seat(s);
		snprintf(user, sizeof(user), "%s", s->rec.seats[seat].user);
		s->ops->moves(s->st, seat, ml);
		for (i = 0; i < ml->n; i++) {
			const char *texts[2], *p;
			char word[64];
			int t;

			buf_reset(&id);
			buf_reset(&label);
			s->ops->move_id(s->st, seat, ml->v[i], &id);
			seen_label(s, seat, ml->v[i], &label);
			texts[0] = buf_str(&id);
			texts[1] = buf_str(&label);
			for (t = 0; t < 2; t++) {
				p = texts[t];
				while (text_word(&p, word, sizeof(word))) {
					check_completion_order(f, s, seat, user, word, &mixed);
					if (strlen(word) > 3) {
						word[3] = '\0';
						check_completion_order(f, s, seat, user, word, &mixed);
					}
				}
			}
		}
		capture_cmd(f->cap, "r1", user, "play 1");
	}
	assert_true(mixed > 0);	/* some filter had a prefix match after another match */
	free(ml);
	buf_release(&id);
	buf_release(&label);
}

/* With ADAPTER_CAP_PRIVATE_ON_DEMAND only players who asked for DMs get
 * private messages; the acting player gets theirs as the answer.  The
 * console keeps sending private updates to everybody. */
/* who plays its first listed move until somebody else is awaited (a turn
 * is several decisions); c then holds the last move's messages only. */
static void play_turn(struct fixture *f, struct capture_adapter *c, const char *platform,
		      const char *r, const char *who)
{
	const char *next;
	int guard = 0;

	do {
		capture_clear(c);
		capture_cmd(c, r, who, "play 1");
		assert_true(++guard < 100);
		next = awaited_user(room_on(f, platform, r));
	} while (next && !strcmp(next, who));
}

static void test_private_on_demand(void **state)
{
	struct fixture *f = *state;
	const struct captured *pub, *m;
	struct session *s;
	char who[128], other[128];
	int seat;

	attach_discord(f);
	assert_int_equal(f->dc->base.ops->caps, ADAPTER_CAP_PRIVATE_ON_DEMAND);
	assert_int_equal(f->cap->base.ops->caps, 0u);
	assert_string_equal(f->dc->base.ops->name, "discord");
	assert_string_equal(f->cap->base.ops->name, "console");

	start_two(f->dc, "d1");
	s = room_on(f, "discord", "d1");
	assert_non_null(s);
	assert_null(room(f, "d1"));	/* not a console room */
	assert_non_null(capture_last(f->dc, NULL, 1, ""));
	/* the awaited player has no DM: they look when they want */
	assert_int_equal(count_kind(f->dc, "ana", 1), 0);
	assert_int_equal(count_kind(f->dc, "ben", 1), 0);
	assert_int_equal(f->cap->n, 0);	/* nothing went to the console */

	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	capture_clear(f->dc);
	capture_cmd(f->dc, "d1", who, "play 1");	/* still who's turn after it */
	s = room_on(f, "discord", "d1");
	assert_int_equal(count_kind(f->dc, who, 1), 0);
	assert_int_equal(count_kind(f->dc, other, 1), 0);
	/* the actor's private update is the answer, after the public board */
	pub = capture_last(f->dc, NULL, 1, "");
	m = capture_last(f->dc, who, 0, "");
	assert_non_null(pub);
	assert_non_null(m);
	assert_null(m->key);
	assert_int_equal(m->outbox_id, 0);
	assert_true(index_of(f->dc, pub) < index_of(f->dc, m));
	assert_int_equal(count_kind(f->dc, who, 0), 1);

	/* who ends the turn and turns DMs on; the other moves and hands the
	 * turn back */
	play_turn(f, f->dc, "discord", "d1", who);
	s = room_on(f, "discord", "d1");
	assert_string_equal(s->rec.seats[only_awaited_seat(s)].user, other);
	capture_cmd(f->dc, "d1", who, "game settings dm on");
	s = room_on(f, "discord", "d1");
	assert_int_equal(s->rec.seats[seat].notify_dm, 1);
	play_turn(f, f->dc, "discord", "d1", other);
	s = room_on(f, "discord", "d1");
	assert_string_equal(s->rec.seats[only_awaited_seat(s)].user, who);
	m = capture_last(f->dc, who, 1, "");
	assert_non_null(m);
	assert_true(m->outbox_id > 0);
	assert_non_null(m->key);
	assert_non_null(strstr(m->text, "Your moves"));
	assert_int_equal(count_kind(f->dc, other, 1), 0);
	assert_true(count_kind(f->dc, other, 0) <= 1);	/* the actor's answer, if any */

	/* the console: private updates of every human seat are outbox DMs */
	capture_clear(f->dc);
	start_two_setup(f->cap, "c1");
	/* Fortuna's setup asks both at once: a turn notice each */
	assert_int_equal(count_kind(f->cap, "ana", 1), 1);
	assert_int_equal(count_kind(f->cap, "ben", 1), 1);
	capture_clear(f->cap);
	capture_cmd(f->cap, "c1", "ana", "play 1");
	/* the actor's private log line; ben, still asked the same, nothing
	 * new (his moves from the start still stand) */
	assert_int_equal(count_kind(f->cap, "ana", 1), 1);
	assert_int_equal(capture_count(f->cap, "ana", "You reserve"), 1);
	assert_int_equal(count_kind(f->cap, "ben", 1), 0);
	assert_int_equal(count_kind(f->cap, "ana", 0), 0);	/* no private answer */
	assert_int_equal(f->dc->n, 0);	/* nothing went to discord */
}

static void reopen(struct fixture *f)
{
	struct buf err = BUF_INIT;

	detach(f);
	store_close(f->store);
	f->store = store_sqlite_open(f->path, &err);
	assert_non_null(f->store);
	attach(f);
	buf_release(&err);
}

static void test_game_settings(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	struct session *s;
	int64_t ver;
	int ben, ana, i;
	static const char *const bad[] = {
		"game settings dm maybe", "game settings colour red", "game settings locale fr",
		"game settings locale es-ES", "game settings dm", "game settings locale",
	};

	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "no game here"), 1);
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "Settings: locale en; your DM notifications: off"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = room(f, "r1");
	ben = seat_of_user(s, "ben");
	ana = seat_of_user(s, "ana");
	assert_true(ben >= 0 && ana >= 0);
	assert_int_equal(s->rec.seats[ben].notify_dm, 0);

	/* dm on / off / on, private answers, only the speaker's seat */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "game settings dm on");
	assert_int_equal(capture_count(f->cap, "ben", "DM notifications on"), 1);
	assert_int_equal(room(f, "r1")->rec.seats[ben].notify_dm, 1);
	assert_int_equal(room(f, "r1")->rec.seats[ana].notify_dm, 0);
	capture_cmd(f->cap, "r1", "ben", "game settings");
	assert_int_equal(capture_count(f->cap, "ben", "your DM notifications: on"), 1);
	capture_cmd(f->cap, "r1", "ben", "game settings DM Off");
	assert_int_equal(room(f, "r1")->rec.seats[ben].notify_dm, 0);
	capture_cmd(f->cap, "r1", "ben", "game settings dm on");
	assert_int_equal(room(f, "r1")->rec.seats[ben].notify_dm, 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);

	/* bad keys or values: usage, nothing changes */
	s = room(f, "r1");
	ver = s->rec.version;
	capture_clear(f->cap);
	for (i = 0; i < (int)(sizeof(bad) / sizeof(*bad)); i++)
		capture_cmd(f->cap, "r1", "ben", bad[i]);
	assert_int_equal(capture_count(f->cap, "ben", "Usage: `game settings`"),
			 (int)(sizeof(bad) / sizeof(*bad)));
	/* and a spectator is refused */
	capture_cmd(f->cap, "r1", "zed", "game settings dm on");
	capture_cmd(f->cap, "r1", "zed", "game settings locale es");
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 2);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	s = room(f, "r1");
	assert_int_equal(s->rec.version, ver);
	assert_int_equal(s->rec.seats[ben].notify_dm, 1);
	assert_string_equal(s->rec.locale, "en");

	/* the flag survives a restart */
	reopen(f);
	s = room(f, "r1");
	assert_int_equal(s->rec.seats[ben].notify_dm, 1);
	assert_int_equal(s->rec.seats[ana].notify_dm, 0);
	assert_int_equal(s->rec.version, ver);

	/* Spanish from now on, for everybody, and after a restart */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game settings locale es");
	assert_int_equal(capture_count(f->cap, NULL, "español"), 1);
	assert_string_equal(room(f, "r1")->rec.locale, "es");
	capture_cmd(f->cap, "r1", "zed", "help");
	assert_int_equal(capture_count(f->cap, "zed", "Órdenes"), 1);
	reopen(f);
	s = room(f, "r1");
	assert_string_equal(s->rec.locale, "es");
	capture_cmd(f->cap, "r1", "ben", "help");
	assert_int_equal(capture_count(f->cap, "ben", "Órdenes"), 1);
	assert_int_equal(capture_count(f->cap, "ben", "tabula commands"), 0);
	capture_cmd(f->cap, "r1", awaited_user(s), "play 1");
	m = capture_last(f->cap, NULL, 1, "");
	assert_non_null(m);
	assert_non_null(m->locale);
	assert_string_equal(m->locale, "es");
	assert_non_null(strstr(m->text, "Esperando a"));
	assert_null(strstr(m->text, "Waiting for"));
	capture_cmd(f->cap, "r1", "ana", "game settings locale en");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "help");
	assert_int_equal(capture_count(f->cap, "ben", "tabula commands"), 1);
}

/* Changing a setting does not move the game: the board on screen stays
 * current (positions count moves, not store versions). */
static void test_settings_keep_board_current(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	int64_t id, ver;

	start_two(f->cap, "r1");
	s = room(f, "r1");
	id = s->rec.id;
	ver = s->last_seq;
	capture_cmd(f->cap, "r1", "ana", "game settings dm on");
	capture_clear(f->cap);
	capture_cmd_expect(f->cap, "r1", s->rec.seats[only_awaited_seat(s)].user, "moves", id, ver);
	assert_int_equal(capture_count(f->cap, "*", "out of date"), 0);
	assert_int_equal(capture_count(f->cap, "*", "Your moves"), 1);
}

/* ---- asynchronous play: notifications, reminders, timeouts, pause, kick,
 * undo, mygames, rules and cards, DM routing ---- */

#define HOUR 3600

/* Sets the fake clock to t0 + h hours and runs what is due. */
static int64_t tick_at(struct fixture *f, int64_t t0, int64_t h)
{
	f->clock = t0 + h * HOUR;
	return session_mgr_tick(&f->mgr);
}

/* The number of messages sent (outbox, not replies) since the last clear. */
static int sent_count(const struct capture_adapter *c)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->n; i++)
		n += c->v[i].key != NULL;
	return n;
}

/* The number of public messages sent (outbox) since the last clear. */
static int public_sent(const struct capture_adapter *c)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->n; i++)
		n += c->v[i].key != NULL && c->v[i].user == NULL;
	return n;
}

/* A restart: a new process on the same file that loads the open games (as
 * main.c does at start-up). */
static void restart(struct fixture *f)
{
	struct buf err = BUF_INIT;

	reopen(f);
	assert_int_equal(session_mgr_load_open(&f->mgr, &err), 0);
	buf_release(&err);
}

static int count_one(void *ctx, const struct action_rec *a)
{
	(void)a;
	++*(int64_t *)ctx;
	return 0;
}

static int64_t stored_actions(struct fixture *f, int64_t session)
{
	struct buf err = BUF_INIT;
	int64_t n = 0;

	assert_int_equal(store_actions(f->store, session, 0, count_one, &n, &err), 0);
	buf_release(&err);
	return n;
}

/* 1. Every public update pings exactly the seats that have just become
 * awaited by that change; a seat still deciding is shown by plain name. */
static void test_notify_only_newly_awaited(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	struct session *s;
	int i, seat, pinged = 0, quiet = 0;
	unsigned aw0 = 0, aw1;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	for (i = 0; i < 12; i++) {
		char user[128], who[160];

		s = room(f, "r1");
		if (i) {
			aw0 = s->ops->awaiting(s->st);
			snprintf(user, sizeof(user), "%s", awaited_user(s));
		}
		capture_clear(f->cap);
		if (i)
			capture_cmd(f->cap, "r1", user, "play 1");
		else
			capture_cmd(f->cap, "r1", "ana", "game start");	/* nobody awaited before */
		s = room(f, "r1");
		assert_int_equal(s->rec.status, SESSION_ACTIVE);
		aw1 = s->ops->awaiting(s->st);
		/* one public message for the change, from the outbox */
		assert_int_equal(public_sent(f->cap), 1);
		m = capture_last(f->cap, NULL, 1, "Waiting for");
		assert_non_null(m);
		for (seat = 0; seat < s->rec.nseats; seat++) {
			const char *u = s->rec.seats[seat].user;
			int newly = (aw1 & ~aw0 & (1u << seat)) != 0;

			/* seats asked the same thing share a line: "Waiting for
			 * @ana, *ben*: ..." */
			snprintf(who, sizeof(who), "@%s", u);
			if (capture_mentions(m, u) != newly || (strstr(m->text, who) != NULL) != newly) {
				capture_dump(f->cap);
				fail_msg("change %d: seat %d (%s) aw %x -> %x, mentioned %d [%s]", i,
					 seat, u, aw0, aw1, capture_mentions(m, u), m->mentions);
			}
			if (newly)
				pinged++;
			if (aw0 & aw1 & (1u << seat)) {
				/* still awaited: listed by plain name, not pinged */
				snprintf(who, sizeof(who), "*%s*", u);
				assert_non_null(strstr(m->text, who));
				quiet++;
			}
		}
		f->clock += 60;
	}
	/* the sequence had both kinds (seed 12345: the turn passes 3 times,
	 * and the same player goes on deciding several times) */
	assert_true(pinged >= 3);
	assert_true(quiet >= 3);
}

/* 2. Reminders with the default period (24 h). */
static void test_reminders(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	struct session *s;
	char who[128], other[128];
	int64_t t0, t1, next, seq0;

	start_two(f->cap, "r1");
	t0 = f->clock;
	s = room(f, "r1");
	seq0 = s->last_seq;
	snprintf(who, sizeof(who), "%s", awaited_user(s));
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	assert_int_equal(session_mgr_next_due(&f->mgr), t0 + 24 * HOUR);
	capture_clear(f->cap);
	assert_int_equal(tick_at(f, t0, 23), t0 + 24 * HOUR);
	assert_int_equal(f->cap->n, 0);
	next = tick_at(f, t0, 25);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	assert_int_equal(f->cap->n, 1);
	m = capture_last(f->cap, NULL, 1, "Reminder");
	assert_non_null(m);
	assert_non_null(strstr(m->text, "no decision for 25 hours"));
	assert_true(capture_mentions(m, who));
	assert_false(capture_mentions(m, other));
	assert_int_equal(next, t0 + 48 * HOUR);
	tick_at(f, t0, 26);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	tick_at(f, t0, 47);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	tick_at(f, t0, 49);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 2);
	assert_int_equal(capture_count(f->cap, NULL, "no decision for 49 hours"), 1);
	/* a move starts the clock again: the next reminder 24 h after it */
	f->clock = t0 + 50 * HOUR;
	t1 = f->clock;
	capture_cmd(f->cap, "r1", who, "play 1");
	assert_int_equal(room(f, "r1")->last_seq, seq0 + 1);
	assert_int_equal(session_mgr_next_due(&f->mgr), t1 + 24 * HOUR);
	capture_clear(f->cap);
	tick_at(f, t1, 23);
	assert_int_equal(f->cap->n, 0);
	tick_at(f, t1, 25);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	assert_int_equal(capture_count(f->cap, NULL, "no decision for 25 hours"), 1);
}

static void test_reminders_off(void **state)
{
	struct fixture *f = *state;
	int64_t t0;

	start_two(f->cap, "r1");
	t0 = f->clock;
	/* two players: both must ask (more than half of two) */
	capture_cmd(f->cap, "r1", "ben", "game settings remind 0");
	assert_int_equal(capture_count(f->cap, NULL, "ben asks for `game settings remind 0`: "
				       "1 of 2 players"), 1);
	assert_int_equal(capture_count(f->cap, NULL, "Reminders off"), 0);
	capture_cmd(f->cap, "r1", "ana", "game settings remind 0");
	assert_int_equal(capture_count(f->cap, NULL, "Reminders off. (Agreed by 2 of 2 players.)"),
			 1);
	assert_int_equal(session_mgr_next_due(&f->mgr), 0);
	capture_clear(f->cap);
	assert_int_equal(tick_at(f, t0, 25), 0);
	tick_at(f, t0, 24 * 10);
	assert_int_equal(f->cap->n, 0);
	/* back on, a different period */
	capture_cmd(f->cap, "r1", "ana", "game settings remind 6");
	capture_cmd(f->cap, "r1", "ben", "game settings remind 6");
	assert_int_equal(capture_count(f->cap, NULL, "Reminders every 6 hours"), 1);
	capture_clear(f->cap);
	tick_at(f, t0, 24 * 10 + 1);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder:"), 1);
}

/* After a restart the reminders already sent are remembered. */
static void test_reminders_survive_restart(void **state)
{
	struct fixture *f = *state;
	char who[128];
	int64_t t1;

	start_two(f->cap, "r1");
	f->clock += HOUR;
	snprintf(who, sizeof(who), "%s", awaited_user(room(f, "r1")));
	capture_cmd(f->cap, "r1", who, "play 1");
	t1 = f->clock;
	capture_clear(f->cap);
	tick_at(f, t1, 25);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	restart(f);
	assert_int_equal(session_mgr_next_due(&f->mgr), t1 + 48 * HOUR);
	tick_at(f, t1, 26);
	assert_int_equal(f->cap->n, 0);	/* no duplicate for the same period */
	tick_at(f, t1, 49);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	restart(f);
	tick_at(f, t1, 50);
	assert_int_equal(f->cap->n, 0);
}

/*
 * Before the first move the idle clock runs from the start, and a restart
 * keeps it (it is stored with the settings): the clock once came from
 * rec->updated, which every commit (a reminder, a settings change) moves.
 * Start at t0, reminder at t0+25h, restart: the second reminder is due at
 * t0+48h (not t0+73h), and it is not sent early.
 */
static void test_reminder_restart_before_first_move(void **state)
{
	struct fixture *f = *state;
	int64_t t0;

	start_two(f->cap, "r1");
	t0 = f->clock;
	tick_at(f, t0, 25);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	restart(f);
	assert_int_equal(session_mgr_next_due(&f->mgr), t0 + 48 * HOUR);
	tick_at(f, t0, 49);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
}

/* A long downtime: one reminder stands for the missed periods. */
static void test_reminder_after_downtime(void **state)
{
	struct fixture *f = *state;
	int64_t t0, next;

	start_two(f->cap, "r1");
	t0 = f->clock;
	capture_clear(f->cap);
	next = tick_at(f, t0, 24 * 5);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	assert_int_equal(f->cap->n, 1);
	assert_int_equal(next, t0 + 24 * 6 * HOUR);
	/* ticking again (the timer firing early) sends nothing */
	tick_at(f, t0, 24 * 5);
	tick_at(f, t0, 24 * 5 + 23);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	tick_at(f, t0, 24 * 6);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 2);
}

/* 3. At the timeout the AI decides for the idle seat. */
static void test_timeout_ai(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128];
	int64_t t0, seq;
	int seat;

	start_two(f->cap, "r1");
	t0 = f->clock;
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 30");
	capture_cmd(f->cap, "r1", "ben", "game settings timeout 30");
	assert_int_equal(capture_count(f->cap, NULL, "Timeout: 30 hours without a move."), 1);
	capture_cmd(f->cap, "r1", "ana", "game settings ontimeout ai");	/* the default */
	assert_int_equal(capture_count(f->cap, "ana", "That is the setting already"), 1);
	s = room(f, "r1");
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	seq = s->last_seq;
	capture_clear(f->cap);
	tick_at(f, t0, 25);	/* the reminder comes first */
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide"), 0);
	assert_int_equal(session_mgr_next_due(&f->mgr), t0 + 30 * HOUR);
	tick_at(f, t0, 29);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide"), 0);
	assert_int_equal(room(f, "r1")->last_seq, seq);
	capture_clear(f->cap);
	tick_at(f, t0, 31);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide within 30 hours: the AI decides"), 1);
	s = room(f, "r1");
	assert_true(s->last_seq > seq);
	assert_int_equal(stored_actions(f, s->rec.id), s->last_seq);
	assert_false(s->ops->awaiting(s->st) & (1u << seat));	/* its turn was played */
	assert_int_equal(s->rec.seats[seat].is_bot, 0);		/* still a human seat */
	assert_string_equal(s->rec.seats[seat].user, who);
	assert_int_equal(s->rec.status, SESSION_ACTIVE);
	/* the clock restarts with the AI's moves */
	assert_int_equal(session_mgr_next_due(&f->mgr), t0 + (31 + 24) * HOUR);
	/* play goes on between the humans */
	seq = s->last_seq;
	assert_non_null(awaited_user(s));
	play_first_moves(f, "r1", 1);
	assert_int_equal(room(f, "r1")->last_seq, seq + 1);
}

/*
 * A due session whose attention cannot be stored (the store refuses
 * writes: a full disk) stays due; the tick says to try again in a second,
 * not at once: the timer armed on a time already past fired again at once,
 * and the bot spun on the failing store a thousand times a second.  Once
 * the store heals, the reminder goes out, once.
 */
static void test_tick_that_cannot_store_retries_in_a_second(void **state)
{
	struct fixture *f = *state;
	int64_t t0, next;

	start_two(f->cap, "r1");
	t0 = f->clock;
	detach(f);
	f->store = store_fault_wrap(f->store, 1);	/* every write fails */
	attach(f);
	capture_clear(f->cap);
	next = tick_at(f, t0, 25);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 0);
	assert_int_equal(next, f->clock + 1);
	store_fault_heal(f->store);
	f->clock = next;
	next = session_mgr_tick(&f->mgr);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	assert_true(next > f->clock);
}

/* A clock read a second later at every read, as a commit that straddles a
 * second boundary sees it. */
static int64_t running_now(void *ctx)
{
	return ((struct fixture *)ctx)->clock++;
}

/*
 * The move that starts the idle clock is stored while the clock moves on:
 * at the due time the timeout is reached by the same clock the due time
 * came from, so with no reminders (remind 0) the AI decides.  Once, the
 * live clock was read later than the stored one and the tick took the
 * reminder's path, dividing by remind's 0 hours (SIGFPE).
 */
static void test_timeout_when_the_clock_moves_during_a_commit(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	int64_t due, seq;

	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game settings remind 0");
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 1");
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = room(f, "r1");
	assert_string_equal(awaited_user(s), "ana");
	f->mgr.now = running_now;
	capture_cmd(f->cap, "r1", "ana", "play 1");
	f->mgr.now = fake_now;
	s = room(f, "r1");
	assert_string_equal(awaited_user(s), "ana");
	seq = s->last_seq;
	due = session_mgr_next_due(&f->mgr);
	assert_true(due > f->clock);
	capture_clear(f->cap);
	f->clock = due;
	session_mgr_tick(&f->mgr);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide within 1 hours"), 1);
	assert_true(room(f, "r1")->last_seq > seq);
}

/*
 * One human with AI seats times out: the AI makes the human's pending
 * decisions, the AI seats play, and when the human's next turn comes the
 * human is asked again (the AI does not play the idle human to the end).
 */
static void test_timeout_ai_only_pending_decisions(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	int64_t t0, seq;

	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 30");
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = room(f, "r1");
	assert_int_equal(s->rec.status, SESSION_ACTIVE);
	assert_string_equal(awaited_user(s), "ana");
	t0 = f->clock;
	seq = s->last_seq;
	capture_clear(f->cap);
	tick_at(f, t0, 31);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide within 30 hours"), 1);
	s = room(f, "r1");
	assert_true(s->last_seq > seq);
	assert_int_equal(s->rec.status, SESSION_ACTIVE);
	assert_string_equal(awaited_user(s), "ana");	/* her next turn: hers again */
	assert_int_equal(s->rec.seats[0].is_bot, 0);
}

/*
 * What the room sees of a step.  A secret choice made in several steps
 * (Sylla's opening characters: five picks, then confirm) posts nothing to
 * the room until the seat's decision is complete, so the room cannot
 * count the steps; the chooser gets each step privately.  A step inside
 * one player's turn that the room may see (a Builders action) posts what
 * happened and who goes on, not the whole board; the board comes when the
 * turn passes.
 */
static void test_room_sees_steps_not_secrets(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	struct session *s;
	int i;

	capture_cmd(f->cap, "r1", "ana", "game new sylla");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = room(f, "r1");
	assert_string_equal(awaited_user(s), "ana");
	for (i = 0; i < 6; i++) {
		char line[32];

		/* the pick list keeps its numbers: card i + 1 of the set */
		snprintf(line, sizeof(line), "play %d", i + 1);
		capture_clear(f->cap);
		capture_cmd(f->cap, "r1", "ana", line);
		assert_int_equal(public_sent(f->cap), 0);	/* the room learns nothing */
		assert_int_equal(count_kind(f->cap, "ana", 1), 1);	/* ana sees her step */
	}
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "play confirm");
	assert_int_equal(public_sent(f->cap), 1);	/* her choice is complete */

	capture_cmd(f->cap, "r2", "ana", "game new builders");
	capture_cmd(f->cap, "r2", "ben", "game join");
	capture_cmd(f->cap, "r2", "ana", "game start");
	s = room(f, "r2");
	{
		char who[128];

		snprintf(who, sizeof(who), "%s", awaited_user(s));
		capture_clear(f->cap);
		capture_cmd(f->cap, "r2", who, "play take 1 sesterce");
		assert_int_equal(public_sent(f->cap), 1);
		m = capture_last(f->cap, NULL, 1, "");
		assert_non_null(strstr(m->text, "takes 1 sesterce"));
		assert_non_null(strstr(m->text, "Waiting for"));
		assert_null(strstr(m->text, "== The Builders"));	/* not the board */
		capture_clear(f->cap);
		capture_cmd(f->cap, "r2", who, "play end turn");
		m = capture_last(f->cap, NULL, 1, "");
		assert_non_null(m);
		assert_non_null(strstr(m->text, "== The Builders"));	/* the turn passed */
	}
}

/*
 * A game that began under an earlier version of its rules (no "rules" in
 * its settings: before versions were recorded) keeps playing from its
 * saved state, but its log is not replayed and nothing is taken back: the
 * answers say why.  A game started now records the rules' version.
 */
static void test_log_of_older_rules(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char *p;
	int64_t seq;

	start_two(f->cap, "r1");
	s = room(f, "r1");
	assert_non_null(strstr(s->rec.settings, "\"rules\":2"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "log");
	assert_int_equal(capture_count(f->cap, NULL, "Log"), 1);
	/* as if stored by the bot before rules versions */
	p = strstr(s->rec.settings, ",\"rules\":2");
	assert_non_null(p);
	memmove(p, p + strlen(",\"rules\":2"), strlen(p + strlen(",\"rules\":2")) + 1);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "log");
	assert_int_equal(capture_count(f->cap, "ana", "earlier version of the bot's rules"), 1);
	assert_int_equal(capture_count(f->cap, NULL, "Log"), 0);
	seq = s->last_seq;
	capture_cmd(f->cap, "r1", awaited_user(s), "play 1");
	s = room(f, "r1");
	assert_int_equal(s->last_seq, seq + 1);	/* the game goes on */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", s->rec.seats[0].user, "undo");
	capture_cmd(f->cap, "r1", s->rec.seats[1].user, "undo");
	assert_int_equal(capture_count(f->cap, "*", "none can be taken back"), 1);
	assert_int_equal(room(f, "r1")->last_seq, seq + 1);
}

/* At the timeout the game pauses; `game resume` starts the clock again. */
static void test_timeout_pause(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128];
	int64_t t0, t1, seq;

	start_two(f->cap, "r1");
	t0 = f->clock;
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 30");
	capture_cmd(f->cap, "r1", "ben", "game settings timeout 30");
	capture_cmd(f->cap, "r1", "ben", "game settings ontimeout pause");
	capture_cmd(f->cap, "r1", "ana", "game settings ontimeout pause");
	assert_int_equal(capture_count(f->cap, NULL, "At the timeout the game pauses"), 1);
	s = room(f, "r1");
	snprintf(who, sizeof(who), "%s", awaited_user(s));
	seq = s->last_seq;
	capture_clear(f->cap);
	tick_at(f, t0, 31);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide within 30 hours: the game is paused"), 1);
	s = room(f, "r1");
	assert_non_null(strstr(s->rec.settings, "\"paused\":true"));
	assert_int_equal(s->last_seq, seq);
	assert_int_equal(session_mgr_next_due(&f->mgr), 0);
	capture_cmd(f->cap, "r1", who, "play 1");
	assert_int_equal(capture_count(f->cap, who, "paused"), 1);
	assert_int_equal(room(f, "r1")->last_seq, seq);
	/* nothing while paused, however long */
	capture_clear(f->cap);
	tick_at(f, t0, 100);
	tick_at(f, t0, 500);
	assert_int_equal(f->cap->n, 0);
	capture_cmd(f->cap, "r1", who, "game resume");
	assert_int_equal(capture_count(f->cap, NULL, "Game resumed"), 1);
	t1 = f->clock;
	assert_null(strstr(room(f, "r1")->rec.settings, "\"paused\":true"));
	assert_int_equal(session_mgr_next_due(&f->mgr), t1 + 24 * HOUR);
	capture_clear(f->cap);
	tick_at(f, t1, 1);
	assert_int_equal(f->cap->n, 0);
	tick_at(f, t1, 25);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	tick_at(f, t1, 31);
	assert_int_equal(capture_count(f->cap, NULL, "the game is paused"), 1);
	/* resumed and played */
	capture_cmd(f->cap, "r1", who, "game resume");
	capture_cmd(f->cap, "r1", who, "play 1");
	assert_int_equal(room(f, "r1")->last_seq, seq + 1);
}

/* 4. Pause and resume: seated players only, no double pause. */
static void test_pause_resume(void **state)
{
	struct fixture *f = *state;
	int64_t t0, t1;
	char who[128];

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game pause");
	assert_int_equal(capture_count(f->cap, "ana", "No game is being played"), 1);
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	t0 = f->clock;
	snprintf(who, sizeof(who), "%s", awaited_user(room(f, "r1")));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "zed", "game pause");
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 1);
	assert_null(strstr(room(f, "r1")->rec.settings, "\"paused\":true"));
	f->clock = t0 + HOUR;
	capture_cmd(f->cap, "r1", "ben", "game pause");
	assert_int_equal(capture_count(f->cap, NULL, "Game paused"), 1);
	assert_non_null(strstr(room(f, "r1")->rec.settings, "\"paused\":true"));
	capture_cmd(f->cap, "r1", "ana", "game pause");
	assert_int_equal(capture_count(f->cap, "ana", "already paused"), 1);
	capture_cmd(f->cap, "r1", who, "play 1");
	assert_int_equal(capture_count(f->cap, who, "The game is paused"), 1);
	assert_int_equal(room(f, "r1")->last_seq, 0);
	capture_clear(f->cap);
	tick_at(f, t0, 24 * 7);
	assert_int_equal(f->cap->n, 0);
	capture_cmd(f->cap, "r1", "zed", "game resume");
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 1);
	assert_non_null(strstr(room(f, "r1")->rec.settings, "\"paused\":true"));
	capture_cmd(f->cap, "r1", "ana", "game resume");
	assert_int_equal(capture_count(f->cap, NULL, "Game resumed"), 1);
	t1 = f->clock;
	capture_cmd(f->cap, "r1", "ben", "game resume");
	assert_int_equal(capture_count(f->cap, "ben", "not paused"), 1);
	assert_int_equal(session_mgr_next_due(&f->mgr), t1 + 24 * HOUR);
	capture_cmd(f->cap, "r1", who, "play 1");
	assert_int_equal(room(f, "r1")->last_seq, 1);
}

/*
 * `game resume` restarts the clock in the store too, so a restart does not
 * take it back to the last move (which made the reminder, or the timeout's
 * AI, fall due at once for a player who had just resumed).  Move at t1,
 * pause, resume at t2 = t1+200h, restart: next due t2+24h; nothing at
 * t2+1h.
 */
static void test_resume_survives_restart(void **state)
{
	struct fixture *f = *state;
	char who[128];
	int64_t t1, t2;

	start_two(f->cap, "r1");
	snprintf(who, sizeof(who), "%s", awaited_user(room(f, "r1")));
	capture_cmd(f->cap, "r1", who, "play 1");
	t1 = f->clock;
	capture_cmd(f->cap, "r1", "ana", "game pause");
	f->clock = t1 + 200 * HOUR;
	capture_cmd(f->cap, "r1", "ana", "game resume");
	t2 = f->clock;
	assert_int_equal(session_mgr_next_due(&f->mgr), t2 + 24 * HOUR);
	restart(f);
	assert_int_equal(session_mgr_next_due(&f->mgr), t2 + 24 * HOUR);
	tick_at(f, t2, 1);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 0);
}

/* 5. `game kick`: after the idle threshold, by a majority of the others. */
static void test_kick(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], v1[128], v2[128], cmd[200];
	const char *users[3] = { "ana", "ben", "cy" };
	int64_t t0, seq;
	int seat, i, k = 0;

	start_three(f);
	t0 = f->clock;
	s = room(f, "r1");
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	for (i = 0; i < 3; i++)
		if (strcmp(users[i], who))
			snprintf(k++ ? v2 : v1, 128, "%s", users[i]);
	seq = s->last_seq;
	snprintf(cmd, sizeof(cmd), "game kick %s", who);
	f->clock = t0 + 47 * HOUR;
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", v1, cmd);
	assert_int_equal(capture_count(f->cap, v1, "only after 48 hours"), 1);
	f->clock = t0 + 49 * HOUR;
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "zed", cmd);
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 1);
	capture_cmd(f->cap, "r1", who, cmd);	/* yourself */
	assert_int_equal(capture_count(f->cap, who, "Usage: `game kick"), 1);
	capture_cmd(f->cap, "r1", v1, "game kick zed");	/* not a player */
	assert_int_equal(capture_count(f->cap, v1, "Usage: `game kick"), 1);
	capture_cmd(f->cap, "r1", v1, "game kick");
	assert_int_equal(capture_count(f->cap, v1, "Usage: `game kick"), 2);
	/* a player who is not awaited cannot be kicked */
	snprintf(cmd, sizeof(cmd), "game kick %s", v2);
	capture_cmd(f->cap, "r1", v1, cmd);
	assert_int_equal(capture_count(f->cap, v1, "only after 48 hours"), 1);
	/* one vote of two is not more than half */
	snprintf(cmd, sizeof(cmd), "game kick %s", who);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", v1, cmd);
	assert_int_equal(capture_count(f->cap, NULL, "1 of 2 (more than half needed)"), 1);
	s = room(f, "r1");
	assert_int_equal(s->rec.seats[seat].is_bot, 0);
	assert_int_equal(s->last_seq, seq);
	capture_cmd(f->cap, "r1", v1, cmd);	/* voting twice counts once */
	assert_int_equal(capture_count(f->cap, NULL, "1 of 2"), 2);
	assert_int_equal(room(f, "r1")->rec.seats[seat].is_bot, 0);
	/* the second voter names them by a mention */
	snprintf(cmd, sizeof(cmd), "game kick <@%s>", who);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", v2, cmd);
	s = room(f, "r1");
	assert_int_equal(s->rec.seats[seat].is_bot, 1);
	assert_int_equal(capture_count(f->cap, NULL, "The AI now plays for"), 1);
	assert_true(s->last_seq > seq);		/* and it played */
	/* the AI played until a human is awaited (or the end) */
	assert_true(s->rec.status != SESSION_ACTIVE || awaited_user(s) != NULL);
	assert_int_equal(stored_actions(f, s->rec.id), s->last_seq);
	/* it stays an AI after a restart */
	restart(f);
	assert_int_equal(room(f, "r1")->rec.seats[seat].is_bot, 1);
}

/* With a timeout set, that is the kick threshold. */
static void test_kick_threshold_timeout(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], other[128], cmd[200];
	int64_t t0;
	int seat;

	start_two(f->cap, "r1");
	t0 = f->clock;
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 10");
	capture_cmd(f->cap, "r1", "ben", "game settings timeout 10");
	capture_cmd(f->cap, "r1", "ana", "game settings ontimeout pause");
	capture_cmd(f->cap, "r1", "ben", "game settings ontimeout pause");
	s = room(f, "r1");
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	snprintf(cmd, sizeof(cmd), "game kick %s", who);
	f->clock = t0 + 9 * HOUR;
	capture_cmd(f->cap, "r1", other, cmd);
	assert_int_equal(capture_count(f->cap, other, "only after 10 hours"), 1);
	assert_int_equal(room(f, "r1")->rec.seats[seat].is_bot, 0);
	f->clock = t0 + 11 * HOUR;
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", other, cmd);	/* 1 of 1 other human: a majority */
	s = room(f, "r1");
	assert_int_equal(s->rec.seats[seat].is_bot, 1);
	assert_int_equal(capture_count(f->cap, NULL, "The AI now plays for"), 1);
	assert_true(s->last_seq > 0);
}

/*
 * A paused game ("no moves until `game resume`") cannot be changed by
 * `game kick` either, though the idle time counts the pause: pause at
 * t0+1h, kick at t0+49h: refused ("paused"), the seat stays human, no move
 * is stored.
 */
static void test_kick_while_paused(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], other[128], cmd[200];
	int64_t t0, seq0;
	int seat;

	start_two(f->cap, "r1");
	t0 = f->clock;
	s = room(f, "r1");
	seq0 = s->last_seq;
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	f->clock = t0 + HOUR;
	capture_cmd(f->cap, "r1", who, "game pause");
	assert_int_equal(capture_count(f->cap, NULL, "Game paused"), 1);
	f->clock = t0 + 49 * HOUR;
	snprintf(cmd, sizeof(cmd), "game kick %s", who);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", other, cmd);
	s = room(f, "r1");
	assert_int_equal(capture_count(f->cap, other, "paused"), 1);
	assert_int_equal(s->rec.seats[seat].is_bot, 0);
	assert_int_equal(s->last_seq, seq0);
}

/* 6. undo.  In the seeded two-player Fortuna game (fixture seed 12345) the
 * first moves are the reservations of ana then ben (both awaited at once;
 * a private line: hidden information), then round 1, whose moves include
 * public-only ones (can be undone) and one that rolls a die (chance).  The
 * test finds the first of each kind by trying to undo every move it plays. */
static void test_undo(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char first[128], second[128];
	int i, ok = 0, hidden = 0, chance = 0;

	start_two_setup(f->cap, "r1");
	s = room(f, "r1");
	snprintf(first, sizeof(first), "%s", awaited_user(s));
	snprintf(second, sizeof(second), "%s", strcmp(first, "ana") ? "ana" : "ben");
	/* nothing to undo yet */
	capture_cmd(f->cap, "r1", first, "undo");
	assert_int_equal(capture_count(f->cap, first, "Only the last decision"), 1);
	capture_cmd(f->cap, "r1", "zed", "undo");
	assert_int_equal(capture_count(f->cap, "zed", "not playing"), 1);
	/* undo by another player */
	capture_cmd(f->cap, "r1", first, "play 1");
	assert_int_equal(room(f, "r1")->last_seq, 1);
	/* the reservation is private until everybody has chosen */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", first, "undo");
	assert_int_equal(capture_count(f->cap, first, "hidden information"), 1);
	assert_int_equal(room(f, "r1")->last_seq, 1);
	hidden++;
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", second, "undo");
	assert_int_equal(capture_count(f->cap, second, "Only the last decision"), 1);
	assert_int_equal(room(f, "r1")->last_seq, 1);
	/* undo after another player acted (seed: the turn passes at once) */
	s = room(f, "r1");
	assert_string_equal(awaited_user(s), second);
	capture_cmd(f->cap, "r1", second, "play 1");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", first, "undo");
	assert_int_equal(capture_count(f->cap, first, "Only the last decision"), 1);
	assert_int_equal(room(f, "r1")->last_seq, 2);

	for (i = 0; i < 40 && !(ok && hidden && chance); i++) {
		char user[128], *before, *after, *undone;
		int64_t seq, ver;

		s = room(f, "r1");
		assert_int_equal(s->rec.status, SESSION_ACTIVE);
		snprintf(user, sizeof(user), "%s", awaited_user(s));
		before = snapshot(s);
		seq = s->last_seq;
		capture_cmd(f->cap, "r1", user, "play 1");
		s = room(f, "r1");
		assert_int_equal(s->last_seq, seq + 1);
		after = snapshot(s);
		ver = s->rec.version;
		capture_clear(f->cap);
		capture_cmd(f->cap, "r1", user, "undo");
		s = room(f, "r1");
		undone = snapshot(s);
		if (capture_count(f->cap, NULL, "takes back their last decision")) {
			struct buf err = BUF_INIT;
			void *st = game_state_new(s->ops);
			json_t *a, *b;
			char *again;

			/* the state before the move, one action fewer */
			assert_string_equal(undone, before);
			assert_int_equal(s->last_seq, seq);
			assert_int_equal(stored_actions(f, s->rec.id), seq);
			assert_int_equal(public_sent(f->cap), 1);
			assert_non_null(capture_last(f->cap, NULL, 1, "takes back their last decision"));
			/* replay equals the live state */
			assert_int_equal(session_replay(s->ops, &s->rec, f->store, st, NULL, &err), 0);
			a = s->ops->save(st);
			b = s->ops->save(s->st);
			assert_true(json_equal(a, b));
			json_decref(a);
			json_decref(b);
			free(st);
			buf_release(&err);
			if (!ok) {
				/* and a restart keeps it */
				restart(f);
				s = room(f, "r1");
				again = snapshot(s);
				assert_string_equal(again, before);
				assert_int_equal(s->last_seq, seq);
				free(again);
			}
			ok++;
			/* play on */
			capture_cmd(f->cap, "r1", user, "play 1");
			assert_int_equal(room(f, "r1")->last_seq, seq + 1);
		} else {
			/* refused: nothing changed */
			assert_string_equal(undone, after);
			assert_int_equal(s->last_seq, seq + 1);
			assert_int_equal(s->rec.version, ver);
			assert_int_equal(sent_count(f->cap), 0);
			if (capture_count(f->cap, user, "hidden information"))
				hidden++;
			else if (capture_count(f->cap, user, "used chance"))
				chance++;
			else {
				capture_dump(f->cap);
				fail_msg("undo %d refused for an unexpected reason", i);
			}
		}
		free(before);
		free(after);
		free(undone);
		f->clock += 60;
	}
	assert_true(ok >= 1);
	assert_true(hidden >= 1);
	assert_true(chance >= 1);
}

/* 7. mygames: the caller's lobby and active games on this platform. */
static void test_mygames(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	const char *line;
	struct session *s;
	int ana_turn;

	attach_discord(f);
	start_two(f->cap, "r1");					/* active */
	capture_cmd(f->cap, "r2", "ana", "game new gtr");		/* lobby */
	capture_cmd(f->cap, "r3", "ana", "game new fortuna");		/* aborted */
	capture_cmd(f->cap, "r3", "ana", "game abort");
	capture_cmd(f->cap, "r4", "ben", "game new fortuna");		/* not hers */
	capture_cmd(f->dc, "d1", "ana", "game new fortuna");		/* another platform */
	capture_cmd(f->cap, "r5", "ana", "game new fortuna");		/* finished */
	capture_cmd(f->cap, "r5", "ana", "game addbot");
	capture_cmd(f->cap, "r5", "ana", "game start");
	{
		int guard = 0;

		while (room(f, "r5")->rec.status == SESSION_ACTIVE) {
			assert_true(++guard < 5000);
			capture_cmd(f->cap, "r5", "ana", "play 1");
		}
		assert_int_equal(room(f, "r5")->rec.status, SESSION_FINISHED);
	}
	s = room(f, "r1");
	ana_turn = !strcmp(awaited_user(s), "ana");
	capture_clear(f->cap);
	capture_cmd(f->cap, "elsewhere", "ana", "mygames");
	m = capture_last(f->cap, "ana", 0, "Your games");
	assert_non_null(m);
	assert_non_null(strstr(m->text, "#r1"));
	assert_non_null(strstr(m->text, "#r2"));
	assert_null(strstr(m->text, "#r3"));
	assert_null(strstr(m->text, "#r4"));
	assert_null(strstr(m->text, "#r5"));
	assert_null(strstr(m->text, "d1"));
	line = strstr(m->text, "#r2");
	assert_true(!strncmp(strchr(line, ':'), ": in the lobby", 14));
	line = strstr(m->text, "#r1");
	assert_int_equal(!strncmp(strchr(line, ':'), ": *your turn*", 13), ana_turn);
	assert_int_equal(!strncmp(strchr(line, ':'), ": waiting for others", 20), !ana_turn);
	/* ben, in Spanish */
	f->cap->locale = "es";
	capture_clear(f->cap);
	capture_cmd(f->cap, "elsewhere", "ben", "mygames");
	m = capture_last(f->cap, "ben", 0, "Tus partidas");
	assert_non_null(m);
	line = strstr(m->text, "#r1");
	assert_non_null(line);
	assert_int_equal(!strncmp(strchr(line, ':'), ": *te toca*", 11), !ana_turn);
	assert_int_equal(!strncmp(strchr(line, ':'), ": esperando a otros", 19), ana_turn);
	line = strstr(m->text, "#r4");
	assert_non_null(line);
	assert_true(!strncmp(strchr(line, ':'), ": en la sala de espera", 22));
	assert_null(strstr(m->text, "#r2"));
	/* nobody */
	f->cap->locale = NULL;
	capture_clear(f->cap);
	capture_cmd(f->cap, "elsewhere", "zed", "mygames");
	assert_int_equal(capture_count(f->cap, "zed", "not in any game"), 1);
	/* on discord ana has only d1 */
	capture_cmd(f->dc, "x", "ana", "mygames");
	m = capture_last(f->dc, "ana", 0, "Your games");
	assert_non_null(m);
	assert_non_null(strstr(m->text, "d1"));
	assert_null(strstr(m->text, "r1"));
}

/* 8. rules and card. */
static void test_rules_and_cards(void **state)
{
	struct fixture *f = *state;
	const struct captured *m;
	char *a;

	capture_cmd(f->cap, "r1", "ana", "rules fortuna");
	m = capture_last(f->cap, "ana", 0, "Topics");
	assert_non_null(m);
	assert_non_null(strstr(m->text, "Fortuna: overview"));
	assert_non_null(strstr(m->text, "favours"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "rules gtr legionary");
	m = capture_last(f->cap, "ana", 0, "Legionary");
	assert_non_null(m);
	assert_null(strstr(m->text, "No such topic"));
	assert_null(strstr(m->text, "Glory to Rome: overview"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "rules gtr nonsense");
	assert_int_equal(capture_count(f->cap, "ana", "No such topic"), 1);
	capture_cmd(f->cap, "r1", "ana", "rules chess");
	assert_int_equal(capture_count(f->cap, "ana", "Usage: `rules"), 1);
	capture_cmd(f->cap, "r1", "ana", "rules");	/* no game here */
	assert_int_equal(capture_count(f->cap, "ana", "Usage: `rules"), 2);
	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "rules");	/* the room's game */
	assert_int_equal(capture_count(f->cap, "ben", "Glory to Rome: overview"), 1);
	assert_int_equal(capture_count(f->cap, "*", "Usage"), 0);
	/* cards: accents folded; unknown */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "card basílica");
	capture_cmd(f->cap, "r2", "ana", "card basilica");
	assert_int_equal(f->cap->n, 2);
	assert_non_null(strstr(f->cap->v[0].text, "Basilica"));
	assert_string_equal(f->cap->v[0].text, f->cap->v[1].text);
	a = f->cap->v[0].text;
	assert_null(strstr(a, "No such card"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "card nonsense");
	assert_int_equal(capture_count(f->cap, "ana", "No such card"), 1);
	capture_cmd(f->cap, "r2", "ana", "card");
	assert_int_equal(capture_count(f->cap, "ana", "Usage: `card"), 1);
	/* in a room, the card reads as its game's options play it */
	capture_cmd(f->cap, "r4", "ana", "game new gtr nofunctions");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r4", "ana", "card circus");
	assert_int_equal(capture_count(f->cap, "ana", "none in this game (nofunctions"), 1);
	capture_cmd(f->cap, "r2", "ana", "card circus");	/* no game there */
	assert_int_equal(capture_count(f->cap, "ana", "any card may lead or follow Architect"), 1);
	/* outside a room of its game, a card names the game it answers for and
	 * the other games that have one of that name; `card <game> <name>`
	 * picks one (issue 25) */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "card market");
	assert_int_equal(f->cap->n, 1);
	assert_non_null(strstr(f->cap->v[0].text, "Fortuna:\n"));
	assert_non_null(strstr(f->cap->v[0].text, "`card builders market`"));
	assert_non_null(strstr(f->cap->v[0].text, "`card gtr market`"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "card builders market");
	assert_int_equal(f->cap->n, 1);
	assert_non_null(strstr(f->cap->v[0].text, "The Builders: Antiquity:\n"));
	assert_non_null(strstr(f->cap->v[0].text, "sesterces"));
	assert_null(strstr(f->cap->v[0].text, "Also a card"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r4", "ana", "card market");	/* the room's game: not named */
	assert_int_equal(f->cap->n, 1);
	assert_null(strstr(f->cap->v[0].text, "Glory to Rome:"));
	assert_non_null(strstr(f->cap->v[0].text, "Material: Wood"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r4", "ana", "card builders market");
	assert_int_equal(f->cap->n, 1);
	assert_non_null(strstr(f->cap->v[0].text, "The Builders: Antiquity:\n"));
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "card sylla market");
	assert_int_equal(capture_count(f->cap, "ana", "No such card: market"), 1);
	capture_cmd(f->cap, "r2", "ana", "card fortuna");	/* a game's name alone is a name */
	assert_int_equal(capture_count(f->cap, "ana", "Usage"), 0);
	/* Spanish */
	capture_cmd(f->cap, "r3", "ana", "game new fortuna");
	capture_cmd(f->cap, "r3", "ana", "game settings locale es");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r3", "ana", "card nonsense");
	assert_int_equal(capture_count(f->cap, "ana", "No such card"), 0);
	assert_int_equal(f->cap->n, 1);
}

/* 9. A command from a private chat goes to the user's one game. */
static void test_direct_routing(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], other[128];
	int64_t seq;

	start_two(f->cap, "r1");
	s = room(f, "r1");
	snprintf(who, sizeof(who), "%s", awaited_user(s));
	snprintf(other, sizeof(other), "%s", strcmp(who, "ana") ? "ana" : "ben");
	seq = s->last_seq;
	capture_clear(f->cap);
	capture_cmd_direct(f->cap, "dm-1", who, "moves");
	assert_int_equal(capture_count(f->cap, who, "Your moves"), 1);
	capture_cmd_direct(f->cap, "dm-1", who, "play 1");
	assert_int_equal(room(f, "r1")->last_seq, seq + 1);
	assert_null(room(f, "dm-1"));
	/* the same text, not direct, is for the DM room itself */
	capture_clear(f->cap);
	capture_cmd(f->cap, "dm-2", other, "moves");
	assert_int_equal(capture_count(f->cap, other, "No game is being played"), 1);
	/* someone with no game: handled in the room as usual */
	capture_clear(f->cap);
	capture_cmd_direct(f->cap, "dm-3", "zed", "mygames");
	assert_int_equal(capture_count(f->cap, "zed", "not in any game"), 1);
	/* two games: told to use the game's room; nothing changes */
	capture_cmd(f->cap, "r2", who, "game new gtr");
	capture_clear(f->cap);
	seq = room(f, "r1")->last_seq;
	capture_cmd_direct(f->cap, "dm-1", who, "play 1");
	capture_cmd_direct(f->cap, "dm-1", other, "play 1");
	assert_int_equal(capture_count(f->cap, who, "several rooms"), 1);
	assert_int_equal(capture_count(f->cap, other, "several rooms"), 0);
	/* a direct command in a room with its own open game stays there */
	capture_clear(f->cap);
	capture_cmd_direct(f->cap, "r2", who, "game status");
	assert_int_equal(capture_count(f->cap, NULL, "Glory to Rome"), 1);
	assert_int_equal(capture_count(f->cap, "*", "several rooms"), 0);
}

/* ---- searching AI seats (game settings ai strong; bot/think.h) ---- */

struct jobs {
	struct think_job *v[4];
	int n;
	int calls;
};

/* The program's worker, in the test's hands: jobs wait until run. */
static int fake_think(void *ctx, struct think_job *job)
{
	struct jobs *j = ctx;

	j->calls++;
	if (j->n == 4)
		return -1;
	j->v[j->n++] = job;
	return 0;
}

static int append_move(void *ctx, const struct action_rec *a)
{
	buf_printf(ctx, "%d:%s\n", a->seat, a->move);
	return 0;
}

static void moves_log(struct fixture *f, const char *r, struct buf *out)
{
	struct buf err = BUF_INIT;

	buf_reset(out);
	assert_int_equal(store_actions(f->store, room(f, r)->rec.id, 0, append_move, out, &err), 0);
	buf_release(&err);
}

/* Ana against one searching AI for up to n of her commands; with jobs, the
 * AI's decisions go through the worker interface. */
static unsigned bot_mask(const struct session *s)
{
	unsigned m = 0;
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		if (s->rec.seats[i].is_bot)
			m |= 1u << i;
	return m;
}

static void play_vs_strong(struct fixture *f, struct jobs *jobs, int n)
{
	f->mgr.search_iterations = 3;
	if (jobs) {
		f->mgr.think = fake_think;
		f->mgr.think_ctx = jobs;
	}
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game settings ai strong");
	assert_int_equal(capture_count(f->cap, "*", "AI players now search"), 1);
	capture_cmd(f->cap, "r1", "ana", "game start");
	for (;;) {
		struct session *s = room(f, "r1");

		if (s->rec.status != SESSION_ACTIVE)
			break;
		/* an AI seat awaited (with ana too in Fortuna's setup): inline
		 * it has moved already, so the worker answers first, and the
		 * AI's moves after ana's last are played as inline */
		if (!(jobs && (s->ops->awaiting(s->st) & bot_mask(s)))) {
			if (n <= 0)
				break;
			assert_non_null(awaited_user(s));
			capture_cmd(f->cap, "r1", "ana", "play 1");
			n--;
			f->clock += 5;
			continue;
		}
		/* only the AI is awaited: inline it would have moved already */
		assert_non_null(jobs);
		assert_int_equal(jobs->n, 0);
		assert_true(session_mgr_next_due(&f->mgr) <= f->clock);
		session_mgr_tick(&f->mgr);
		assert_int_equal(jobs->n, 1);
		assert_int_equal(f->mgr.thinking, 1);
		/* thinking: the tick sends no second job, the timer does not spin */
		session_mgr_tick(&f->mgr);
		assert_int_equal(jobs->n, 1);
		assert_int_equal(session_mgr_next_due(&f->mgr), f->clock + 1);
		think_run(jobs->v[0]);
		assert_true(jobs->v[0]->n > 0);
		session_mgr_ai_done(&f->mgr, jobs->v[0]);
		jobs->n = 0;
		assert_int_equal(f->mgr.thinking, 0);
	}
}

/* The searching AI plays the same game inline and through jobs: decisions
 * are seeded by the game and the move number, not by who ran them. */
static void test_strong_ai_inline_and_jobs(void **state)
{
	struct fixture *f = *state;
	struct buf inline_log = BUF_INIT, jobs_log = BUF_INIT, err = BUF_INIT;
	struct jobs jobs = { { NULL }, 0, 0 };
	char side[96];

	play_vs_strong(f, NULL, 12);
	moves_log(f, "r1", &inline_log);
	assert_non_null(strstr(buf_str(&inline_log), "1:"));	/* the AI moved */

	/* the same seeds again, in a new store, with a worker */
	detach(f);
	store_close(f->store);
	unlink(f->path);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	unlink(side);
	f->store = store_sqlite_open(f->path, &err);
	assert_non_null(f->store);
	f->clock = 1700000000;
	attach(f);
	play_vs_strong(f, &jobs, 12);
	assert_true(jobs.calls > 0);
	moves_log(f, "r1", &jobs_log);
	assert_string_equal(buf_str(&inline_log), buf_str(&jobs_log));
	/* a replay from the log reaches the live state */
	{
		struct session *s = room(f, "r1");
		void *st = game_state_new(s->ops);

		assert_int_equal(session_replay(s->ops, &s->rec, f->store, st, NULL, &err), 0);
		assert_memory_equal(st, s->st, s->ops->state_size);
		free(st);
	}
	buf_release(&inline_log);
	buf_release(&jobs_log);
	buf_release(&err);
}

/* An answer that comes back after the game moved on is dropped. */
static void test_strong_ai_stale_answer(void **state)
{
	struct fixture *f = *state;
	struct jobs jobs = { { NULL }, 0, 0 };
	struct session *s;
	int64_t seq;
	int guard = 0;

	f->mgr.search_iterations = 2;
	f->mgr.think = fake_think;
	f->mgr.think_ctx = &jobs;
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game settings ai strong");
	capture_cmd(f->cap, "r1", "ana", "game start");
	/* play until the AI is asked */
	while (awaited_user(s = room(f, "r1"))) {
		capture_cmd(f->cap, "r1", "ana", "play 1");
		assert_true(++guard < 200);
	}
	session_mgr_tick(&f->mgr);
	assert_int_equal(jobs.n, 1);
	think_run(jobs.v[0]);
	seq = s->last_seq;
	/* meanwhile the only human aborts the game */
	capture_cmd(f->cap, "r1", "ana", "game abort");
	s = room(f, "r1");
	assert_int_equal(s->rec.status, SESSION_ABORTED);
	capture_clear(f->cap);
	session_mgr_ai_done(&f->mgr, jobs.v[0]);
	assert_int_equal(room(f, "r1")->last_seq, seq);
	assert_int_equal(capture_count(f->cap, "*", ""), 0);
	assert_int_equal(f->mgr.thinking, 0);
	assert_int_equal(session_mgr_next_due(&f->mgr), 0);
}

/* `game settings ai` is checked, and shown. */
static void test_strong_ai_setting(void **state)
{
	struct fixture *f = *state;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "AI players: basic"), 1);
	capture_cmd(f->cap, "r1", "ana", "game settings ai clever");
	assert_int_equal(capture_count(f->cap, "ana", "Usage: `game settings`"), 1);
	capture_cmd(f->cap, "r1", "zed", "game settings ai strong");
	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "AI players: basic"), 2);
	capture_cmd(f->cap, "r1", "ana", "game settings ai strong");
	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "AI players: strong"), 1);
	capture_cmd(f->cap, "r1", "ana", "game settings ai basic");
	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "AI players: basic"), 3);
}

/* ---- issue 11: votes belong to people; settings need consent; names;
 * lookups by user; lobby caps; the throttle ---- */

/* The seat of user (human or AI) in the room's game, or -1. */
static int seat_in(struct fixture *f, const char *r, const char *user)
{
	struct session *s = room(f, r);
	int i;

	for (i = 0; s && i < s->rec.nseats; i++)
		if (!strcmp(s->rec.seats[i].user, user))
			return i;
	return -1;
}

/*
 * The issue's scenario: in a five-seat lobby two players vote to abort and
 * leave, two newcomers take seats, and one of them votes.  With votes kept
 * by seat the newcomer made three "votes" of five and aborted; votes are
 * the users' and count only while they are seated, so it is 1 of 5.
 */
static void test_abort_votes_belong_to_people(void **state)
{
	struct fixture *f = *state;
	static const char *const joiners[] = { "ben", "cy", "dan", "eve" };
	struct session *s;
	size_t i;

	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	for (i = 0; i < 4; i++)
		capture_cmd(f->cap, "r1", joiners[i], "game join");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "game abort");
	capture_cmd(f->cap, "r1", "cy", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "Vote to abort recorded (2 of 5"), 1);
	capture_cmd(f->cap, "r1", "ben", "game leave");
	capture_cmd(f->cap, "r1", "cy", "game leave");
	/* their votes left with them, in the store too */
	s = room(f, "r1");
	assert_null(s->rec.votes);
	capture_cmd(f->cap, "r1", "fay", "game join");
	capture_cmd(f->cap, "r1", "gus", "game join");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "fay", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "Vote to abort recorded (1 of 5"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_LOBBY);
	/* a vote counts once; someone outside the game has no vote */
	capture_cmd(f->cap, "r1", "fay", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "Vote to abort recorded (1 of 5"), 2);
	capture_cmd(f->cap, "r1", "ben", "game abort");
	assert_int_equal(capture_count(f->cap, "ben", "Only the players seated"), 1);
	/* the votes survive a restart, and keep counting after the start */
	capture_cmd(f->cap, "r1", "ana", "game start");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ACTIVE);
	restart(f);
	capture_cmd(f->cap, "r1", "gus", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "Vote to abort recorded (2 of 5"), 1);
	capture_cmd(f->cap, "r1", "dan", "game abort");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ABORTED);
	assert_int_equal(capture_count(f->cap, NULL, "The game was aborted"), 1);
	assert_null(room(f, "r1")->rec.votes);
}

/* The creator aborts alone only while seated: not after leaving the lobby,
 * not after the AI took their seat.  The players left decide then; the
 * last human to leave a lobby closes it. */
static void test_abort_creator_only_while_seated(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], cmd[160];
	int64_t t0;
	int seat;

	/* seated: alone */
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game abort");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ABORTED);

	/* left the lobby: no say any more */
	capture_cmd(f->cap, "r2", "ana", "game new fortuna");
	capture_cmd(f->cap, "r2", "ben", "game join");
	capture_cmd(f->cap, "r2", "cy", "game join");
	capture_cmd(f->cap, "r2", "ana", "game leave");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "game abort");
	assert_int_equal(capture_count(f->cap, "ana", "Only the players seated"), 1);
	assert_int_equal(room(f, "r2")->rec.status, SESSION_LOBBY);
	capture_cmd(f->cap, "r2", "ben", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "(1 of 2"), 1);
	/* the last human to leave closes the lobby */
	capture_cmd(f->cap, "r2", "ben", "game leave");
	capture_cmd(f->cap, "r2", "cy", "game addbot");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "cy", "game leave");
	assert_int_equal(capture_count(f->cap, NULL, "the lobby is closed"), 1);
	assert_int_equal(room(f, "r2")->rec.status, SESSION_ABORTED);
	capture_cmd(f->cap, "r2", "dan", "game new fortuna");	/* the room is free */
	assert_int_equal(room(f, "r2")->rec.status, SESSION_LOBBY);

	/* the AI took the creator's seat: neither abort nor vote */
	capture_cmd(f->cap, "r3", "ana", "game new fortuna");
	capture_cmd(f->cap, "r3", "ben", "game join");
	capture_cmd(f->cap, "r3", "cy", "game join");
	capture_cmd(f->cap, "r3", "ana", "game start");
	s = room(f, "r3");
	t0 = f->clock;
	/* play until ana alone is awaited, then let her idle */
	{
		int guard = 0;

		while (strcmp(awaited_user(s), "ana") || s->ops->awaiting(s->st) !=
		       (1u << seat_in(f, "r3", "ana"))) {
			assert_true(++guard < 500);
			snprintf(who, sizeof(who), "%s", awaited_user(s));
			capture_cmd(f->cap, "r3", who, "play 1");
			s = room(f, "r3");
		}
	}
	t0 = f->clock;
	f->clock = t0 + 49 * HOUR;
	seat = seat_in(f, "r3", "ana");
	snprintf(cmd, sizeof(cmd), "game kick ana");
	capture_cmd(f->cap, "r3", "ben", cmd);
	capture_cmd(f->cap, "r3", "cy", cmd);
	assert_int_equal(room(f, "r3")->rec.seats[seat].is_bot, 1);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r3", "ana", "game abort");
	assert_int_equal(capture_count(f->cap, "ana", "Only the players seated"), 1);
	assert_int_equal(room(f, "r3")->rec.status, SESSION_ACTIVE);
	capture_cmd(f->cap, "r3", "ben", "game abort");
	assert_int_equal(capture_count(f->cap, NULL, "(1 of 2"), 1);
	capture_cmd(f->cap, "r3", "cy", "game abort");
	assert_int_equal(room(f, "r3")->rec.status, SESSION_ABORTED);
}

/* Kick votes are users': stored (a restart keeps them), counted among the
 * other seated humans, and dropped when their target moves. */
static void test_kick_votes_stored_by_user(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], voters[3][128], cmd[200];
	const char *users[4] = { "ana", "ben", "cy", "dan" };
	int64_t t0;
	int i, k = 0, seat;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "cy", "game join");
	capture_cmd(f->cap, "r1", "dan", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	/* past Fortuna's simultaneous reservation: one seat awaited */
	for (i = 0; i < 4; i++)
		capture_cmd(f->cap, "r1", users[i], "play 1");
	t0 = f->clock;
	s = room(f, "r1");
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	for (i = 0; i < 4; i++)
		if (strcmp(users[i], who))
			snprintf(voters[k++], sizeof(voters[0]), "%s", users[i]);
	f->clock = t0 + 49 * HOUR;
	snprintf(cmd, sizeof(cmd), "game kick %s", who);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", voters[0], cmd);
	assert_int_equal(capture_count(f->cap, NULL, "1 of 3 (more than half needed)"), 1);
	/* stored with the session: a restart forgets nothing */
	restart(f);
	s = room(f, "r1");
	assert_non_null(s->rec.votes);
	assert_non_null(strstr(s->rec.votes, "\"kick\""));
	/* the target moves: the votes against them are void, in the store too */
	capture_cmd(f->cap, "r1", who, "play 1");
	s = room(f, "r1");
	assert_true(s->rec.votes == NULL || !strstr(s->rec.votes, "kick"));
	restart(f);
	s = room(f, "r1");
	assert_true(s->rec.votes == NULL || !strstr(s->rec.votes, "kick"));
	assert_int_equal(s->rec.seats[seat].is_bot, 0);
}

/*
 * The issue's scenario: one player sets `timeout 1` and an hour later the
 * AI plays for the opponent.  After the start, timeout and ontimeout (and
 * remind and ai) need more than half of the seated humans asking for the
 * same value; a proposal is stored; one human alone decides alone.
 */
static void test_settings_after_start_need_majority(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	int64_t t0, seq;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "cy", "game join");
	capture_cmd(f->cap, "r1", "ana", "game settings remind 48");	/* lobby: at once */
	assert_int_equal(capture_count(f->cap, NULL, "Reminders every 48 hours."), 1);
	capture_cmd(f->cap, "r1", "ana", "game start");
	t0 = f->clock;
	s = room(f, "r1");
	seq = s->last_seq;
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 1");
	assert_int_equal(capture_count(f->cap, NULL, "ana asks for `game settings timeout 1`: "
				       "1 of 3 players"), 1);
	assert_int_equal(capture_count(f->cap, NULL, "Timeout:"), 0);
	/* two hours later nothing happened to anyone's seat */
	tick_at(f, t0, 2);
	s = room(f, "r1");
	assert_int_equal(s->last_seq, seq);
	assert_int_equal(capture_count(f->cap, NULL, "did not decide"), 0);
	/* a proposal survives a restart; a different value is another vote */
	restart(f);
	capture_cmd(f->cap, "r1", "ben", "game settings timeout 5");
	assert_int_equal(capture_count(f->cap, NULL, "1 of 3 players"), 1);
	capture_cmd(f->cap, "r1", "cy", "game settings timeout 5");
	assert_int_equal(capture_count(f->cap, NULL,
				       "Timeout: 5 hours without a move. (Agreed by 2 of 3 players.)"),
			 1);
	/* decided: ana's proposal of 1 is gone with the others */
	assert_null(room(f, "r1")->rec.votes);
	capture_cmd(f->cap, "r1", "ben", "game settings timeout 5");
	assert_int_equal(capture_count(f->cap, "ben", "That is the setting already"), 1);
	/* ontimeout, remind and ai are voted too */
	capture_cmd(f->cap, "r1", "cy", "game settings ontimeout pause");
	capture_cmd(f->cap, "r1", "cy", "game settings remind 1");
	capture_cmd(f->cap, "r1", "cy", "game settings ai strong");
	assert_int_equal(capture_count(f->cap, NULL, "cy asks for"), 3);
	s = room(f, "r1");
	assert_null(strstr(s->rec.settings, "\"on_timeout\":\"pause\""));
	assert_null(strstr(s->rec.settings, "\"remind\":1,"));
	assert_null(strstr(s->rec.settings, "strong"));
	/* dm and locale are the caller's and the room's language: at once */
	capture_cmd(f->cap, "r1", "ben", "game settings dm on");
	assert_int_equal(capture_count(f->cap, "ben", "DM notifications on"), 1);
	capture_cmd(f->cap, "r1", "ben", "game settings locale es");
	assert_int_equal(capture_count(f->cap, NULL, "Esta sala juega ahora en español."), 1);
	capture_cmd(f->cap, "r1", "ben", "game settings locale en");
	/* cy's three proposals wait for the others, stored */
	s = room(f, "r1");
	assert_non_null(s->rec.votes);
	assert_non_null(strstr(s->rec.votes, "\"cy\":\"pause\""));

	/* one human and AI seats: the human decides alone, at once */
	capture_cmd(f->cap, "r2", "eve", "game new fortuna");
	capture_cmd(f->cap, "r2", "eve", "game addbot 2");
	capture_cmd(f->cap, "r2", "eve", "game start");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "eve", "game settings timeout 3");
	assert_int_equal(capture_count(f->cap, NULL, "Timeout: 3 hours without a move."), 1);
	assert_int_equal(capture_count(f->cap, NULL, "Agreed"), 0);
}

/* A voter who leaves the seated humans (the AI takes their seat) takes
 * their setting votes with them. */
static void test_setting_votes_leave_with_voter(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	char who[128], v1[128], v2[128], cmd[160];
	const char *users[3] = { "ana", "ben", "cy" };
	int i, k = 0, seat;

	start_three(f);
	s = room(f, "r1");
	seat = only_awaited_seat(s);
	snprintf(who, sizeof(who), "%s", s->rec.seats[seat].user);
	for (i = 0; i < 3; i++)
		if (strcmp(users[i], who))
			snprintf(k++ ? v2 : v1, 128, "%s", users[i]);
	/* the idle player proposes a long timeout, then idles */
	capture_cmd(f->cap, "r1", who, "game settings timeout 900");
	s = room(f, "r1");
	assert_non_null(s->rec.votes);
	assert_non_null(strstr(s->rec.votes, who));
	f->clock += 49 * HOUR;
	snprintf(cmd, sizeof(cmd), "game kick %s", who);
	capture_cmd(f->cap, "r1", v1, cmd);
	capture_cmd(f->cap, "r1", v2, cmd);
	s = room(f, "r1");
	assert_int_equal(s->rec.seats[seat].is_bot, 1);
	assert_true(s->rec.votes == NULL || !strstr(s->rec.votes, who));
	/* one of the two humans left now asks for 900: 1 of 2, not a majority */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", v1, "game settings timeout 900");
	assert_int_equal(capture_count(f->cap, NULL, "1 of 2 players"), 1);
}

/* A display name with control, bidi or zero-width characters cannot forge
 * a line or hide text: the manager cleans it before it is stored. */
static void test_names_cleaned_before_stored(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	size_t i;

	capture_cmd_named(f->cap, "r1", "u1", "Eve\n[room] ana wins!", "game new fortuna");
	capture_cmd_named(f->cap, "r1", "u2", "\xe2\x80\xae" "nimda\xe2\x80\x8b", "game join");
	capture_cmd_named(f->cap, "r1", "u3", "\xe2\x80\x8b\xe2\x80\x8f\x07", "game join");
	s = room(f, "r1");
	assert_int_equal(s->rec.nseats, 3);
	assert_string_equal(s->rec.seats[0].name, "Eve [room] ana wins!");
	assert_string_equal(s->rec.seats[1].name, "nimda");
	assert_string_equal(s->rec.seats[2].name, "u3");	/* nothing visible: the id */
	capture_cmd_named(f->cap, "r1", "u1", "Eve\n[room] ana wins!", "game start");
	for (i = 0; i < f->cap->n; i++) {
		const char *t = f->cap->v[i].text;

		assert_null(strstr(t, "\xe2\x80\xae"));
		assert_null(strstr(t, "\xe2\x80\x8b"));
		assert_null(strstr(t, "\n[room] ana wins"));
	}
	restart(f);
	assert_string_equal(room(f, "r1")->rec.seats[0].name, "Eve [room] ana wins!");
}

/* At most SESSION_LOBBIES_PER_USER open lobbies per user and platform: the
 * next `game new` is refused privately and creates nothing; games in play
 * do not count; other users and platforms are not affected. */
static void test_lobby_cap_per_user(void **state)
{
	struct fixture *f = *state;
	char r[16];
	int i;

	attach_discord(f);
	start_two(f->cap, "g1");		/* a game in play: not a lobby */
	for (i = 0; i < SESSION_LOBBIES_PER_USER; i++) {
		snprintf(r, sizeof(r), "l%d", i);
		capture_cmd(f->cap, r, "ana", "game new fortuna");
		assert_non_null(room(f, r));
	}
	capture_clear(f->cap);
	capture_cmd(f->cap, "l-extra", "ana", "game new fortuna");
	assert_int_equal(capture_count(f->cap, "ana", "You are already waiting in 10 lobbies"), 1);
	assert_int_equal(capture_count(f->cap, NULL, ""), 0);
	assert_null(room(f, "l-extra"));
	/* ben, and ana on another platform, are not affected */
	capture_cmd(f->cap, "l-ben", "ben", "game new fortuna");
	assert_non_null(room(f, "l-ben"));
	capture_cmd(f->dc, "d1", "ana", "game new fortuna");
	assert_int_equal(capture_count(f->dc, NULL, "lobby"), 1);
	/* leaving one (here: starting one) makes room */
	capture_cmd(f->cap, "l0", "ben", "game join");
	capture_cmd(f->cap, "l0", "ana", "game start");
	capture_cmd(f->cap, "l-extra", "ana", "game new fortuna");
	assert_non_null(room(f, "l-extra"));
	/* nor can she join an eleventh */
	capture_clear(f->cap);
	capture_cmd(f->cap, "l-ben", "ana", "game join");
	assert_int_equal(capture_count(f->cap, "ana", "already waiting in 10 lobbies"), 1);
	assert_int_equal(room(f, "l-ben")->rec.nseats, 1);
}

/* At most max_lobbies_platform open lobbies on a platform. */
static void test_lobby_cap_per_platform(void **state)
{
	struct fixture *f = *state;

	attach_discord(f);
	f->mgr.max_lobbies_platform = 2;
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r2", "ben", "game new gtr");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r3", "cy", "game new fortuna");
	assert_int_equal(capture_count(f->cap, "cy", "Too many games are waiting"), 1);
	assert_null(room(f, "r3"));
	capture_cmd(f->dc, "d1", "cy", "game new fortuna");	/* another platform */
	assert_int_equal(capture_count(f->dc, NULL, "lobby"), 1);
	/* a lobby that starts frees a place */
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_cmd(f->cap, "r3", "cy", "game new fortuna");
	assert_non_null(room(f, "r3"));
}

/*
 * mygames and a DM's routing read the user's own sessions (the seats(user)
 * index), never the others': here another user's lobby is damaged in the
 * store (a field too long to read), which broke the scan of every open
 * session, and so everyone's `mygames` and DM commands.
 */
static void test_lookups_by_user_skip_others(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = NULL;
	char r[16], u[16];
	int i;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"INSERT INTO sessions (id, platform, room, game, options, creator, locale,"
		" status, seed, version, created, updated, state)"
		" VALUES (1, 'console', 'bad', 'fortuna', '', 'zed',"
		" 'a-locale-much-too-long', 0, 1, 1, 1, 1, NULL);"
		"INSERT INTO seats VALUES (1, 0, 'zed', 'zed', 0, 0);", NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	for (i = 0; i < 5; i++) {
		snprintf(r, sizeof(r), "x%d", i);
		snprintf(u, sizeof(u), "u%d", i);
		capture_cmd(f->cap, r, u, "game new fortuna");
	}
	start_two(f->cap, "r1");
	restart(f);
	capture_clear(f->cap);
	capture_cmd(f->cap, "elsewhere", "ana", "mygames");
	assert_int_equal(capture_count(f->cap, "ana", "#r1"), 1);
	capture_cmd_direct(f->cap, "dm-ben", "ben", "game status");
	assert_int_equal(capture_count(f->cap, NULL, "Moves so far"), 1);
}

static int64_t fake_ms(void *ctx)
{
	return ((struct fixture *)ctx)->clock * 1000;
}

/* A user who floods gets one private "slow down" and their extra commands
 * are refused (not run); nobody else is slowed; a Discord-like platform
 * answers every refused command; the bucket refills with time. */
static void test_throttle(void **state)
{
	struct fixture *f = *state;
	int i;

	attach_discord(f);
	f->mgr.now_ms = fake_ms;
	f->mgr.now_ms_ctx = f;
	session_mgr_set_throttle(&f->mgr, 3, 10000);
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game status");
	capture_cmd(f->cap, "r1", "ana", "game status");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game addbot");	/* the 4th at once */
	assert_int_equal(capture_count(f->cap, "ana", "Slow down"), 1);
	assert_int_equal(capture_count(f->cap, "ana", "not run, nor will the next ones be for 10 "
				       "seconds"), 1);
	assert_int_equal(room(f, "r1")->rec.nseats, 1);	/* not run */
	for (i = 0; i < 5; i++)
		capture_cmd(f->cap, "r1", "ana", "game addbot");
	assert_int_equal(f->cap->n, 1);			/* told once */
	assert_int_equal(room(f, "r1")->rec.nseats, 1);
	/* ben is not slowed */
	capture_cmd(f->cap, "r1", "ben", "game join");
	assert_int_equal(room(f, "r1")->rec.nseats, 2);
	/* ten seconds on, one more of ana's */
	f->clock += 10;
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	assert_int_equal(room(f, "r1")->rec.nseats, 3);
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	assert_int_equal(capture_count(f->cap, "ana", "Slow down"), 1);
	assert_int_equal(room(f, "r1")->rec.nseats, 3);
	/* on Discord every refused interaction is answered (ephemerally) */
	for (i = 0; i < 5; i++)
		capture_cmd(f->dc, "d1", "zed", "help");
	capture_clear(f->dc);
	capture_cmd(f->dc, "d1", "zed", "help");
	capture_cmd(f->dc, "d1", "zed", "help");
	assert_int_equal(capture_count(f->dc, "zed", "Slow down"), 2);
	assert_int_equal(capture_count(f->dc, "zed", "tabula commands"), 0);
	/* off again: nothing is refused */
	session_mgr_set_throttle(&f->mgr, 0, 0);
	capture_clear(f->dc);
	capture_cmd(f->dc, "d1", "zed", "help");
	assert_int_equal(capture_count(f->dc, "zed", "tabula commands"), 1);
}

/* ---- several processes on one store (docs/deploy.md) ---- */

/* Another bot process on the fixture's store file. */
struct peer {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;
};

/* node: the process's node name (its lease taken), or NULL for none. */
static void peer_open(struct fixture *f, struct peer *p, const char *node)
{
	struct buf err = BUF_INIT;

	memset(p, 0, sizeof(*p));
	p->store = store_sqlite_open(f->path, &err);
	assert_non_null(p->store);
	session_mgr_init(&p->mgr, p->store, 999);
	p->mgr.now = fake_now;
	p->mgr.now_ctx = f;
	p->cap = capture_new("console");
	p->cap->base.on_command = on_command;
	p->cap->base.on_sent = on_sent;
	p->cap->base.ctx = &p->mgr;
	session_mgr_add_adapter(&p->mgr, &p->cap->base);
	if (node) {
		assert_int_equal(store_lease(p->store, node, node, 600000, &err), 1);
		session_mgr_set_node(&p->mgr, node);
	}
	buf_release(&err);
}

static void peer_close(struct peer *p)
{
	session_mgr_release(&p->mgr);
	capture_free(p->cap);
	store_close(p->store);
}

/* The fixture's manager as node `node` (its lease taken). */
static void be_node(struct fixture *f, const char *node)
{
	struct buf err = BUF_INIT;

	assert_int_equal(store_lease(f->store, node, node, 600000, &err), 1);
	session_mgr_set_node(&f->mgr, node);
	buf_release(&err);
}

/*
 * A command whose commit finds the game changed by another process (the
 * store's version moved: STORE_CONFLICT) is run again on the reloaded game
 * and answered once, as if nothing had happened.
 */
static void test_conflict_reloads_and_retries(void **state)
{
	struct fixture *f = *state;
	struct peer b;
	struct session *s;
	int64_t seq;

	start_two(f->cap, "r1");
	s = room(f, "r1");	/* cached by this process */
	seq = s->last_seq;
	peer_open(f, &b, NULL);
	capture_cmd(b.cap, "r1", awaited_user(room(f, "r1")), "play 1");
	assert_int_equal(capture_count(b.cap, "*", "could not"), 0);
	/* this process's copy is one move behind: its commit conflicts */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game pause");
	assert_int_equal(f->mgr.conflicts, 1);
	assert_int_equal(f->mgr.retries, 1);
	assert_int_equal(capture_count(f->cap, "*", "Game paused"), 1);
	assert_int_equal(capture_count(f->cap, "*", "could not save"), 0);
	assert_int_equal(capture_count(f->cap, "*", "same moment"), 0);
	/* both changes are stored: the other process's move, then the pause */
	s = room(f, "r1");
	assert_int_equal(s->last_seq, seq + 1);
	assert_int_equal(stored_actions(f, s->rec.id), seq + 1);
	capture_cmd(b.cap, "r1", "ben", "game status");
	peer_close(&b);
	capture_cmd(f->cap, "r1", "ana", "game pause");
	assert_int_equal(capture_count(f->cap, "ana", "already paused"), 1);
}

/* Conflicts twice in a row: "try again", and nothing changed. */
static void test_conflict_twice_answers_try_again(void **state)
{
	struct fixture *f = *state;
	struct session *s;

	detach(f);
	f->store = store_fault_wrap(f->store, 0);
	attach(f);
	start_two(f->cap, "r1");
	capture_clear(f->cap);
	store_fault_conflicts(f->store, 2);
	capture_cmd(f->cap, "r1", "ana", "game pause");
	assert_int_equal(f->mgr.conflicts, 2);
	assert_int_equal(capture_count(f->cap, "ana", "changed at the same moment"), 1);
	assert_int_equal(f->cap->n, 1);
	s = room(f, "r1");
	assert_null(strstr(s->rec.settings, "\"paused\":1"));
	/* one conflict only: the second attempt goes through */
	capture_clear(f->cap);
	store_fault_conflicts(f->store, 1);
	capture_cmd(f->cap, "r1", "ana", "game pause");
	assert_int_equal(capture_count(f->cap, "*", "Game paused"), 1);
	assert_int_equal(f->cap->n, 1);
	/* in Spanish too */
	capture_cmd(f->cap, "r2", "ana", "game new fortuna");
	capture_cmd(f->cap, "r2", "ana", "game settings locale es");
	capture_clear(f->cap);
	store_fault_conflicts(f->store, 2);
	capture_cmd(f->cap, "r2", "ana", "game addbot");
	assert_int_equal(capture_count(f->cap, "ana", "cambió en ese mismo momento"), 1);
}

/*
 * With a node, a cached game is checked against the store once per
 * command: a move another process stored is seen at once (the next
 * player's moves are offered, not "not your turn"), without a conflict.
 */
static void test_node_sees_other_process(void **state)
{
	struct fixture *f = *state;
	struct peer b;
	char who[128];
	int i;

	be_node(f, "node-a");
	start_two(f->cap, "r1");
	peer_open(f, &b, "node-b");
	snprintf(who, sizeof(who), "%s", awaited_user(room(f, "r1")));
	/* the other process moves until the turn passes to the other player
	 * (as this process sees it: session_mgr_find checks the store) */
	for (i = 0; !strcmp(awaited_user(room(f, "r1")), who); i++) {
		if (i == 50)
			fail_msg("this process never saw the other one's moves");
		capture_cmd(b.cap, "r1", who, "play 1");
	}
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", strcmp(who, "ana") ? "ana" : "ben", "moves");
	assert_int_equal(capture_count(f->cap, "*", "Your moves"), 1);
	capture_cmd(f->cap, "r1", strcmp(who, "ana") ? "ana" : "ben", "play 1");
	assert_int_equal(f->mgr.conflicts, 0);
	assert_int_equal(b.mgr.conflicts, 0);
	peer_close(&b);
}

/*
 * Due work fires once across processes: the node that claims a game's
 * reminders keeps them while it lives; when it dies (its lease gone) the
 * other node takes them over.
 */
static void test_node_due_work_once(void **state)
{
	struct fixture *f = *state;
	struct peer b;
	struct buf err = BUF_INIT;
	int64_t t0;

	be_node(f, "node-a");
	start_two(f->cap, "r1");
	t0 = f->clock;
	peer_open(f, &b, "node-b");
	capture_clear(f->cap);
	tick_at(f, t0, 25);
	f->clock = t0 + 25 * HOUR;
	session_mgr_tick(&b.mgr);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 1);
	assert_int_equal(capture_count(b.cap, NULL, "Reminder"), 0);
	/* the next one: node-b looks first, but the game is node-a's */
	f->clock = t0 + 49 * HOUR;
	session_mgr_tick(&b.mgr);
	assert_int_equal(capture_count(b.cap, NULL, "Reminder"), 0);
	tick_at(f, t0, 49);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 2);
	/* node-a dies: node-b sends the third, once */
	assert_int_equal(store_lease(f->store, "node-a", "node-a", 0, &err), 0);
	f->clock = t0 + 73 * HOUR;
	session_mgr_tick(&b.mgr);
	session_mgr_tick(&b.mgr);
	assert_int_equal(capture_count(b.cap, NULL, "Reminder"), 1);
	assert_int_equal(capture_count(f->cap, NULL, "Reminder"), 2);
	peer_close(&b);
	buf_release(&err);
}

/* A dead node's undelivered messages are delivered by a live one, once;
 * a live node's are left to it. */
static void test_node_outbox_adopted(void **state)
{
	struct fixture *f = *state;
	struct peer b;
	struct buf err = BUF_INIT;
	size_t sent_a;

	be_node(f, "node-a");
	start_two(f->cap, "r1");
	f->cap->confirm = 0;	/* node-a's platform never confirms */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", awaited_user(room(f, "r1")), "play 1");
	sent_a = (size_t)sent_count(f->cap);
	assert_true(sent_a > 0);
	peer_open(f, &b, "node-b");
	assert_int_equal(session_mgr_flush_outbox(&b.mgr, &err), 0);
	assert_int_equal(sent_count(b.cap), 0);
	assert_int_equal(store_lease(f->store, "node-a", "node-a", 0, &err), 0);
	assert_int_equal(session_mgr_flush_outbox(&b.mgr, &err), 0);
	assert_int_equal(sent_count(b.cap), (int)sent_a);
	/* the same messages (keys), now delivered and confirmed */
	assert_string_equal(b.cap->v[0].key, f->cap->v[f->cap->n - sent_a].key);
	capture_clear(b.cap);
	assert_int_equal(session_mgr_flush_outbox(&b.mgr, &err), 0);
	assert_int_equal(sent_count(b.cap), 0);
	peer_close(&b);
	buf_release(&err);
}

/* A platform whose lease this process does not hold: its commits are
 * refused (STORE_FENCED) and the process says nothing at all. */
static void test_fenced_platform_says_nothing(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;

	be_node(f, "node-a");
	session_mgr_set_fence(&f->mgr, "console", "console-lease", "node-a");
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	assert_int_equal(f->cap->n, 0);
	assert_null(room(f, "r1"));
	assert_int_equal(f->mgr.last_commit, STORE_FENCED);
	assert_int_equal(store_lease(f->store, "console-lease", "node-a", 600000, &err), 1);
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	assert_non_null(room(f, "r1"));
	assert_true(f->cap->n > 0);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lobby, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_conflict_reloads_and_retries, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_conflict_twice_answers_try_again, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_node_sees_other_process, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_node_due_work_once, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_node_outbox_adopted, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_fenced_platform_says_nothing, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_every_option_starts, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_own_outcome_never_cut, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_abort, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_changes_nothing, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_move_lists_candidates, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_restart_restores_state, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_replay_equals_live, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_failed_commit_loses_nothing, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_resent_after_crash, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_full_game_with_ai, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_private_views, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_board_controls, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_stale_click, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_complete, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_complete_order, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_private_on_demand, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_game_settings, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_settings_keep_board_current, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_notify_only_newly_awaited, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_reminders, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_reminders_off, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_reminders_survive_restart, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_reminder_restart_before_first_move, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_reminder_after_downtime, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_ai, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_ai_only_pending_decisions, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout_when_the_clock_moves_during_a_commit, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_tick_that_cannot_store_retries_in_a_second, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_log_of_older_rules, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_room_sees_steps_not_secrets, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout_pause, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_pause_resume, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_resume_survives_restart, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_kick, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_kick_threshold_timeout, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_kick_while_paused, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_undo, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_mygames, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_rules_and_cards, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_direct_routing, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_strong_ai_inline_and_jobs, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_strong_ai_stale_answer, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_strong_ai_setting, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_abort_votes_belong_to_people, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_abort_creator_only_while_seated, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_kick_votes_stored_by_user, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_settings_after_start_need_majority, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_setting_votes_leave_with_voter, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_names_cleaned_before_stored, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_lobby_cap_per_user, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_lobby_cap_per_platform, setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_lookups_by_user_skip_others, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_throttle, setup_file, teardown),
	};

	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
