/*
 * `rematch` and the Rematch control (bot/rematch.c): a finished game's
 * players open its lobby again with its game, options, settings and AI
 * seats, the others pinged; every refusal changes nothing; the final
 * board offers it; a click opens, joins or is refused.
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

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;
	int fd;

	snprintf(f->path, sizeof(f->path), "/tmp/tabula-rematch-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	unlink(f->path);
	f->store = store_sqlite_open(f->path, &err);
	assert_non_null(f->store);
	f->clock = 1700000000;
	session_mgr_init(&f->mgr, f->store, 12345);
	f->mgr.now = fake_now;
	f->mgr.now_ctx = f;
	f->cap = capture_new("console");
	f->cap->base.on_command = on_command;
	f->cap->base.on_sent = on_sent;
	f->cap->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &f->cap->base);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char side[96];

	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	store_close(f->store);
	unlink(f->path);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	unlink(side);
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

/* Plays r1's game to its end: each awaited human plays their first move. */
static void play_out(struct fixture *f)
{
	struct session *s;
	const char *who;
	int guard = 0;
	char user[64];

	while ((s = room(f, "r1")) && s->rec.status == SESSION_ACTIVE) {
		who = awaited_user(s);
		assert_non_null(who);
		snprintf(user, sizeof(user), "%s", who);
		capture_cmd(f->cap, "r1", user, "play 1");
		assert_true(++guard < 5000);
	}
	assert_int_equal(room(f, "r1")->rec.status, SESSION_FINISHED);
}

/* ana and ben with one AI play a whole game of Fortuna in r1. */
static int64_t finished_game(struct fixture *f)
{
	capture_cmd(f->cap, "r1", "ana", "game new fortuna draft");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game settings remind 5");
	capture_cmd(f->cap, "r1", "ana", "game settings board text");
	capture_cmd(f->cap, "r1", "ana", "game start");
	play_out(f);
	return room(f, "r1")->rec.id;
}

/* The final board offers the rematch, in the text and as a control. */
static void test_final_board_offers_it(void **state)
{
	struct fixture *f = *state;
	const struct captured *last;
	int64_t sid;

	sid = finished_game(f);
	last = capture_last(f->cap, NULL, 1, "Game over");
	assert_non_null(last);
	assert_non_null(strstr(last->text, "Play again: `rematch`"));
	assert_int_equal(last->over_session, sid);
	assert_int_equal(last->session, 0);	/* no hand nor moves on it */
	/* none of the boards before it */
	for (size_t i = 0; i < f->cap->n; i++)
		if (&f->cap->v[i] != last)
			assert_int_equal(f->cap->v[i].over_session, 0);
}

static void test_rematch_opens_the_same_table(void **state)
{
	struct fixture *f = *state;
	const struct captured *ans;
	struct session *s;
	int64_t sid = finished_game(f);

	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "rematch");
	s = room(f, "r1");
	assert_true(s->rec.id > sid);
	assert_int_equal(s->rec.status, SESSION_LOBBY);
	assert_string_equal(s->rec.game, "fortuna");
	assert_string_equal(s->rec.options, "draft");
	assert_string_equal(s->rec.creator, "ben");
	/* the caller and the AI seat, in the last game's order */
	assert_int_equal(s->rec.nseats, 2);
	assert_string_equal(s->rec.seats[0].user, "ben");
	assert_true(s->rec.seats[1].is_bot);
	assert_string_equal(s->rec.seats[1].name, "AI 1");
	/* the room's settings carried */
	assert_non_null(strstr(s->rec.settings, "\"board\":\"text\""));
	assert_non_null(strstr(s->rec.settings, "\"remind\":5"));
	/* ana is pinged, in the room; ben, who asked, is not */
	ans = capture_last(f->cap, NULL, 0, "Rematch!");
	assert_non_null(ans);
	assert_string_equal(ans->mentions, "ana ");
	assert_int_equal(capture_mentions(ans, "ana"), 1);
	/* she joins as today, and the game starts as today */
	capture_cmd(f->cap, "r1", "ana", "game join");
	capture_cmd(f->cap, "r1", "ben", "game start");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ACTIVE);
	assert_int_equal(room(f, "r1")->rec.nseats, 3);
	play_out(f);
	/* and again: a third game */
	capture_cmd(f->cap, "r1", "ana", "rematch");
	assert_int_equal(room(f, "r1")->rec.status, SESSION_LOBBY);
	assert_string_equal(room(f, "r1")->rec.seats[1].user, "ana");
}

/* Each refusal says why and changes nothing. */
static void test_refusals_change_nothing(void **state)
{
	struct fixture *f = *state;
	int64_t v;

	capture_cmd(f->cap, "r1", "ana", "rematch");
	assert_int_equal(capture_count(f->cap, "ana", "No game has finished here"), 1);
	assert_null(room(f, "r1"));
	finished_game(f);
	v = room(f, "r1")->rec.version;
	capture_cmd(f->cap, "r1", "zed", "rematch");
	assert_int_equal(capture_count(f->cap, "zed", "Only the players of the last game"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_FINISHED);
	assert_int_equal(room(f, "r1")->rec.version, v);
	capture_cmd(f->cap, "r1", "ana", "rematch");
	v = room(f, "r1")->rec.version;
	capture_cmd(f->cap, "r1", "ben", "rematch");
	assert_int_equal(capture_count(f->cap, "ben", "already open here (lobby)"), 1);
	assert_int_equal(room(f, "r1")->rec.version, v);
	assert_int_equal(room(f, "r1")->rec.nseats, 2);
	/* an aborted game is not played again */
	capture_cmd(f->cap, "r1", "ana", "game abort");
	capture_cmd(f->cap, "r1", "ana", "rematch");
	assert_int_equal(capture_count(f->cap, "ana", "No game has finished here"), 2);
	/* in play */
	capture_cmd(f->cap, "r2", "ana", "game new fortuna");
	capture_cmd(f->cap, "r2", "ana", "game addbot");
	capture_cmd(f->cap, "r2", "ana", "game start");
	capture_cmd(f->cap, "r2", "ana", "rematch");
	assert_int_equal(capture_count(f->cap, "ana", "already open here (in play)"), 1);
}

/* The lobby caps hold for a rematch as for `game new`. */
static void test_lobby_caps(void **state)
{
	struct fixture *f = *state;

	finished_game(f);
	f->mgr.max_lobbies_user = 1;
	capture_cmd(f->cap, "r2", "ben", "game new gtr");
	capture_cmd(f->cap, "r1", "ben", "rematch");
	assert_int_equal(capture_count(f->cap, "ben", "You are already waiting in 1 lobbies"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_FINISHED);
	f->mgr.max_lobbies_user = 0;
	f->mgr.max_lobbies_platform = 1;
	capture_cmd(f->cap, "r1", "ana", "rematch");
	assert_int_equal(capture_count(f->cap, "ana", "Too many games are waiting"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_FINISHED);
}

/* The Rematch control: a click opens the rematch, a second joins it, a
 * stranger's and a stale one are refused. */
static void test_clicks(void **state)
{
	struct fixture *f = *state;
	int64_t sid = finished_game(f);
	struct session *s;

	capture_cmd_rematch(f->cap, "r1", "zed", sid);
	assert_int_equal(capture_count(f->cap, "zed", "Only the players of that game"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_FINISHED);
	capture_cmd_rematch(f->cap, "r1", "ana", sid);
	s = room(f, "r1");
	assert_int_equal(s->rec.status, SESSION_LOBBY);
	assert_int_equal(s->rec.nseats, 2);
	capture_cmd_rematch(f->cap, "r1", "ana", sid);
	assert_int_equal(capture_count(f->cap, "ana", "You already have a seat in the rematch"), 1);
	capture_cmd_rematch(f->cap, "r1", "zed", sid);
	assert_int_equal(capture_count(f->cap, "zed", "Only the players of that game"), 2);
	capture_cmd_rematch(f->cap, "r1", "ben", sid);
	s = room(f, "r1");
	assert_int_equal(s->rec.nseats, 3);
	assert_string_equal(s->rec.seats[2].user, "ben");
	/* started: the button is stale */
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_cmd_rematch(f->cap, "r1", "ben", sid);
	assert_int_equal(capture_count(f->cap, "ben", "not open here any more"), 1);
	assert_int_equal(room(f, "r1")->rec.status, SESSION_ACTIVE);
	/* a click naming another room's game */
	capture_cmd_rematch(f->cap, "r9", "ana", sid);
	assert_int_equal(capture_count(f->cap, "ana", "not open here any more"), 1);
	assert_null(room(f, "r9"));
}

/* In Spanish: the offer, the answer, a refusal; the room's language
 * carried to the rematch. */
static void test_spanish(void **state)
{
	struct fixture *f = *state;
	const struct captured *last;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game settings locale es");
	capture_cmd(f->cap, "r1", "ana", "game start");
	play_out(f);
	last = capture_last(f->cap, NULL, 1, "Fin de la partida");
	assert_non_null(last);
	assert_non_null(strstr(last->text, "Otra partida: `rematch`"));
	capture_cmd(f->cap, "r1", "zed", "rematch");
	assert_int_equal(capture_count(f->cap, "zed", "Solo los jugadores de la última partida"), 1);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "rematch");
	last = capture_last(f->cap, NULL, 0, "¡Revancha!");
	assert_non_null(last);
	assert_non_null(strstr(last->text, "`game join` para ocupar vuestro asiento."));
	assert_string_equal(last->mentions, "ben ");
	assert_string_equal(room(f, "r1")->rec.locale, "es");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_final_board_offers_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rematch_opens_the_same_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lobby_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clicks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spanish, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
