/*
 * The record's commands (bot/stats.c, issue 26) through the capture
 * adapter on a SQLite store seeded with results and ratings by the store's
 * own API: `stats` numbers and whom it names, `leaderboard` order, minimum
 * games, hidden players and the asker's row, `history` order and bounds,
 * `stats forget` and its confirmation, `log #<id>` of an old game with
 * private lines only to their owner, and the pictures where the platform
 * takes them.  Bad arguments are refused and change nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session.h"
#include "paint/paint.h"
#include "tests/support/capture.h"

#define T0 1700000000

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;	/* console: text only */
	struct capture_adapter *dc;	/* discord: pictures */
	int64_t clock;
	int64_t next_session;
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

static struct capture_adapter *adapter(struct fixture *f, struct capture_adapter *c)
{
	c->base.on_command = on_command;
	c->base.on_sent = on_sent;
	c->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &c->base);
	return c;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;

	f->store = store_sqlite_open(":memory:", &err);
	assert_non_null(f->store);
	f->clock = T0;
	f->next_session = 1000;
	session_mgr_init(&f->mgr, f->store, 12345);
	f->mgr.now = fake_now;
	f->mgr.now_ctx = f;
	f->cap = adapter(f, capture_new("console"));
	f->dc = adapter(f, capture_new_pictures("discord", ADAPTER_CAP_IMAGES));
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	capture_free(f->dc);
	store_close(f->store);
	free(f);
	return 0;
}

/* ---- seeding the record ---- */

struct seat_spec {
	const char *player, *name;
	int place;
	int64_t score;
	int winner;
};

/* A finished game of room on console: seats in order; returns its id. */
static int64_t seed_result(struct fixture *f, const char *platform, const char *room,
			   const char *game, int64_t finished, const struct seat_spec *seats, int n,
			   const struct rating_rec *ratings, size_t nratings)
{
	struct result_rec res;
	struct store_result sr = { &res, ratings, nratings, NULL, 0 };
	struct store_commit c;
	struct buf err = BUF_INIT;
	int i, nw = 0;

	memset(&res, 0, sizeof(res));
	memset(&c, 0, sizeof(c));
	res.session = f->next_session++;
	snprintf(res.platform, sizeof(res.platform), "%s", platform);
	snprintf(res.room, sizeof(res.room), "%s", room);
	snprintf(res.game, sizeof(res.game), "%s", game);
	res.created = finished - 3900;	/* 1 h 05 min */
	res.finished_at = finished;
	res.moves = 42;
	res.rated = 1;
	res.nseats = n;
	for (i = 0; i < n; i++)
		nw += seats[i].winner;
	for (i = 0; i < n; i++) {
		struct result_seat_rec *s = &res.seats[i];

		s->seat = i;
		snprintf(s->player, sizeof(s->player), "%s", seats[i].player);
		snprintf(s->name, sizeof(s->name), "%s", seats[i].name);
		s->is_bot = !strncmp(seats[i].player, "ai:", 3);
		s->place = seats[i].place;
		s->score = seats[i].score;
		s->winner = seats[i].winner;
		s->nwinners = nw;
	}
	c.result = &sr;
	assert_int_equal(store_commit(f->store, &c, &err), 0);
	buf_release(&err);
	return res.session;
}

static struct rating_rec rating(const char *platform, const char *scope, const char *game,
				const char *player, const char *name, double mu, double sigma,
				int64_t games, double wins)
{
	struct rating_rec r;

	memset(&r, 0, sizeof(r));
	snprintf(r.platform, sizeof(r.platform), "%s", platform);
	snprintf(r.scope, sizeof(r.scope), "%s", scope);
	snprintf(r.game, sizeof(r.game), "%s", game);
	snprintf(r.player, sizeof(r.player), "%s", player);
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.mu = mu;
	r.sigma = sigma;
	r.games = games;
	r.wins = wins;
	r.place_sum = games * 2;
	r.score_sum = games * 20;
	r.best_score = 20;
	r.last_at = T0 - 86400;
	return r;
}

/* The text of the last reply to user (NULL: public) holding needle. */
static const char *said(const struct capture_adapter *c, const char *user, const char *needle)
{
	const struct captured *m = capture_last(c, user, 0, needle);

	return m ? m->text : NULL;
}

/* ---- stats ---- */

static void seed_ana(struct fixture *f)
{
	static const struct seat_spec seats[] = {
		{ "ana", "Ana", 1, 31, 1 }, { "ben", "Ben", 2, 25, 0 }, { "ai:basic", "AI", 3, 20, 0 },
	};
	struct rating_rec r[4];

	r[0] = rating("console", "", "gtr", "ana", "Ana", 27.0, 3.0, 4, 2.5);
	r[0].place_sum = 7;
	r[0].score_sum = 100;
	r[0].best_score = 31;
	r[0].streak = 2;
	r[0].last_at = T0 - 3600;
	r[1] = rating("console", "", "fortuna", "ana", "Ana", 24.0, 6.0, 1, 0);
	r[1].streak = -1;
	r[1].last_at = T0 - 7200;
	r[2] = rating("console", "", "gtr", "ben", "Ben", 26.0, 2.0, 4, 1.5);
	r[3] = rating("console", "", "gtr", "ai:basic", "AI", 20.0, 1.0, 4, 0);
	seed_result(f, "console", "r1", "gtr", T0 - 3600, seats, 3, r, 4);
}

static void test_stats_numbers(void **state)
{
	struct fixture *f = *state;
	const char *t;

	seed_ana(f);
	capture_cmd(f->cap, "r1", "ana", "stats");
	t = said(f->cap, "ana", "all games");
	assert_non_null(t);
	/* 4 + 1 games, 2.5 wins: 50%; the favourite is the most played */
	assert_non_null(strstr(t, "5 games, 2.5 wins (50%); favourite: Glory to Rome"));
	assert_non_null(strstr(t, "Glory to Rome: 4 games, 2.5 wins (62%), average place 1.8, "
			       "average score 25.0, best score 31; rating 27.0 ± 3.0 (μ − 3σ 18.0); "
			       "streak W2"));
	assert_non_null(strstr(t, "streak L1"));
	assert_int_equal(capture_count(f->cap, NULL, "games"), 0);	/* private */

	/* one game: the other's line is not there */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "stats gtr");
	t = said(f->cap, "ana", "Glory to Rome");
	assert_non_null(t);
	assert_null(strstr(t, "Fortuna"));

	/* another player, by name as seen in this room's games; the AI */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "stats Ben gtr");
	t = said(f->cap, "ana", "Ben");
	assert_non_null(t);
	assert_non_null(strstr(t, "4 games, 1.5 wins (38%)"));
	capture_cmd(f->cap, "r1", "ana", "stats @ben");
	assert_non_null(said(f->cap, "ana", "rating 26.0 ± 2.0 (μ − 3σ 20.0)"));
	capture_cmd(f->cap, "r1", "ana", "stats ai basic");
	assert_non_null(said(f->cap, "ana", "AI basic · all games"));
	assert_non_null(said(f->cap, "ana", "rating 20.0 ± 1.0 (μ − 3σ 17.0)"));

	/* a name nobody used in this room is not looked up elsewhere */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r2", "ana", "stats Ben");
	assert_non_null(said(f->cap, "ana", "No player called “Ben” has played here."));
	capture_cmd(f->cap, "r1", "ana", "stats zed");
	assert_non_null(said(f->cap, "ana", "No player called “zed”"));
	/* a newcomer */
	capture_cmd(f->cap, "r1", "cy", "stats");
	assert_non_null(said(f->cap, "cy", "No rated games yet."));

	/* in Spanish */
	capture_clear(f->cap);
	f->cap->locale = "es";
	capture_cmd(f->cap, "r9", "ana", "stats");
	assert_non_null(said(f->cap, "ana", "5 partidas, 2.5 victorias (50%)"));
}

/* ---- leaderboard ---- */

static void test_leaderboard(void **state)
{
	struct fixture *f = *state;
	static const struct seat_spec seats[] = {
		{ "p1", "P1", 1, 10, 1 }, { "p2", "P2", 2, 5, 0 },
	};
	struct rating_rec r[14];
	struct buf err = BUF_INIT;
	char id[16], name[16];
	const char *t, *prev;
	int i;

	/* p1..p12: conservative 36 - i (mu 40 - i, sigma 4/3); p13 has 2
	 * games only; p0 would lead but is hidden */
	for (i = 1; i <= 12; i++) {
		snprintf(id, sizeof(id), "p%d", i);
		snprintf(name, sizeof(name), "P%d", i);
		r[i - 1] = rating("console", "", "gtr", id, name, 40.0 - i, 4.0 / 3, 5, 1);
	}
	r[12] = rating("console", "", "gtr", "p13", "P13", 60.0, 1.0, 2, 2);
	r[13] = rating("console", "", "gtr", "p0", "P0", 50.0, 1.0, 9, 9);
	seed_result(f, "console", "r1", "gtr", T0 - 100, seats, 2, r, 14);
	assert_int_equal(store_player_hide(f->store, "console", "p0", 1, &err), 0);

	capture_cmd(f->cap, "r1", "p3", "leaderboard gtr");
	t = said(f->cap, NULL, "Leaderboard · Glory to Rome");
	assert_non_null(t);
	/* by conservative rating, best first; ten rows */
	prev = t;
	for (i = 1; i <= 10; i++) {
		char row[32];
		const char *at;

		snprintf(row, sizeof(row), i == 3 ? "%d. *P%d* %.1f" : "%d. P%d %.1f", i, i,
			 36.0 - i);
		at = strstr(t, row);
		assert_non_null(at);
		assert_true(at >= prev);
		prev = at;
	}
	assert_null(strstr(t, "P11"));
	assert_null(strstr(t, "P13"));	/* too few games */
	assert_null(strstr(t, "P0"));	/* hidden */
	assert_non_null(strstr(t, "3. *P3* 33.0 (μ 37.0 ± 1.3), 5 games, 20% wins ← you"));
	assert_null(strstr(t, "P1 35.0 (μ 39.0 ± 1.3), 5 games, 20% wins ← you"));

	/* the hidden player comes back; every game at once */
	assert_int_equal(store_player_hide(f->store, "console", "p0", 0, &err), 0);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "p3", "leaderboard");
	assert_non_null(said(f->cap, NULL, "1. P0 47.0"));

	/* a game nobody is rated in; a bad game refused */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "p3", "leaderboard fortuna");
	assert_non_null(said(f->cap, NULL, "No leaderboard yet: a player appears after 3 rated "
			     "games of Fortuna."));
	capture_cmd(f->cap, "r1", "p3", "leaderboard chess");
	assert_non_null(said(f->cap, "p3", "Usage: `leaderboard [game]`."));
	buf_release(&err);
}

/* ---- history ---- */

static void test_history(void **state)
{
	struct fixture *f = *state;
	struct seat_spec seats[] = {
		{ "ana", "Ana", 1, 0, 1 }, { "ben", "Ben", 2, 0, 0 },
	};
	int64_t ids[7];
	const char *t, *prev;
	char want[64];
	int i;

	for (i = 0; i < 7; i++) {
		seats[0].score = 100 + i;
		seats[1].score = 50 + i;
		ids[i] = seed_result(f, "console", "r1", i % 2 ? "gtr" : "fortuna", T0 - 7200 + 60 * i,
				     seats, 2, NULL, 0);
	}
	seed_result(f, "console", "r2", "gtr", T0, seats, 2, NULL, 0);

	capture_cmd(f->cap, "r1", "cy", "history");
	t = said(f->cap, NULL, "Finished games here");
	assert_non_null(t);
	/* the newest five, newest first */
	prev = t;
	for (i = 6; i >= 2; i--) {
		const char *at;

		snprintf(want, sizeof(want), "*#%lld* · ", (long long)ids[i]);
		at = strstr(t, want);
		assert_non_null(at);
		assert_true(at > prev);
		prev = at;
	}
	snprintf(want, sizeof(want), "#%lld*", (long long)ids[1]);
	assert_null(strstr(t, want));
	assert_non_null(strstr(t, "Ana 106, Ben 56"));
	assert_non_null(strstr(t, "won by Ana"));
	assert_non_null(strstr(t, "42 moves, 1 h 05 min"));

	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "cy", "history 20");
	t = said(f->cap, NULL, "Finished games here");
	snprintf(want, sizeof(want), "*#%lld* · ", (long long)ids[0]);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof(want), "*#%lld* · ", (long long)ids[6] + 1);	/* r2's */
	assert_null(strstr(t, want));

	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "cy", "history 0");
	capture_cmd(f->cap, "r1", "cy", "history 21");
	capture_cmd(f->cap, "r1", "cy", "history two");
	assert_int_equal(capture_count(f->cap, "cy", "Usage: `history [n]` (n from 1 to 20)."), 3);
	assert_int_equal(capture_count(f->cap, "*", "Finished games"), 0);

	capture_cmd(f->cap, "r3", "cy", "history");
	assert_non_null(said(f->cap, NULL, "No finished games here yet."));
}

/* ---- forget ---- */

static int count_rows(void *ctx, const struct rating_rec *r)
{
	(*(int *)ctx)++;
	return 0;
}

static int ratings_of(struct fixture *f, const char *player)
{
	struct buf err = BUF_INIT;
	int n = 0;

	assert_int_equal(store_player_ratings(f->store, "console", "", player, count_rows, &n,
					      &err), 0);
	buf_release(&err);
	return n;
}

static void test_forget(void **state)
{
	struct fixture *f = *state;

	seed_ana(f);
	assert_int_equal(ratings_of(f, "ana"), 2);

	/* asking erases nothing; an unasked or late confirmation neither */
	capture_cmd(f->cap, "r1", "ana", "stats forget");
	assert_non_null(said(f->cap, "ana", "Type `stats forget confirm` within 5 minutes"));
	assert_int_equal(ratings_of(f, "ana"), 2);
	capture_cmd(f->cap, "r1", "ben", "stats forget confirm");
	assert_non_null(said(f->cap, "ben", "Nothing to confirm"));
	assert_int_equal(ratings_of(f, "ben"), 1);
	f->clock += 301;
	capture_cmd(f->cap, "r1", "ana", "stats forget confirm");
	assert_non_null(said(f->cap, "ana", "Nothing to confirm"));
	assert_int_equal(ratings_of(f, "ana"), 2);
	capture_cmd(f->cap, "r1", "ana", "stats forget now");
	assert_non_null(said(f->cap, "ana", "Usage: `stats forget`, then `stats forget confirm`."));
	assert_int_equal(ratings_of(f, "ana"), 2);

	/* in time: gone, and shown as a former player in the room's games */
	capture_cmd(f->cap, "r1", "ana", "stats forget");
	f->clock += 60;
	capture_cmd(f->cap, "r1", "ana", "stats forget confirm");
	assert_non_null(said(f->cap, "ana", "Your record here is erased."));
	assert_int_equal(ratings_of(f, "ana"), 0);
	assert_int_equal(ratings_of(f, "ben"), 1);
	capture_cmd(f->cap, "r1", "ben", "history");
	assert_non_null(said(f->cap, NULL, "a former player 31, Ben 25"));
	/* once: the confirmation is spent */
	capture_cmd(f->cap, "r1", "ana", "stats forget confirm");
	assert_non_null(said(f->cap, "ana", "Nothing to confirm"));
}

static void test_hide_show(void **state)
{
	struct fixture *f = *state;
	static const struct seat_spec seats[] = {
		{ "ana", "Ana", 1, 31, 1 }, { "ben", "Ben", 2, 25, 0 },
	};
	struct rating_rec r[1];

	r[0] = rating("console", "", "gtr", "ana", "Ana", 30.0, 2.0, 3, 2);
	seed_result(f, "console", "r1", "gtr", T0 - 60, seats, 2, r, 1);
	capture_cmd(f->cap, "r1", "ana", "stats hide");
	capture_cmd(f->cap, "r1", "ben", "leaderboard");
	assert_non_null(said(f->cap, NULL, "No leaderboard yet"));
	/* hiding leaves the leaderboards only: stats still answer */
	capture_cmd(f->cap, "r1", "ben", "stats ana");
	assert_non_null(said(f->cap, "ben", "3 games, 2 wins (67%)"));
	capture_cmd(f->cap, "r1", "ana", "stats hide now");
	assert_non_null(said(f->cap, "ana", "Usage: `stats hide` or `stats show`."));
	capture_cmd(f->cap, "r1", "ana", "stats show");
	capture_cmd(f->cap, "r1", "ben", "leaderboard");
	assert_non_null(said(f->cap, NULL, "1. Ana 24.0"));
}

/* ---- log of an old game ---- */

/* ana and ben play gtr a while, then ana aborts; the session's id. */
static int64_t old_game(struct fixture *f)
{
	struct session_rec rec;
	struct buf err = BUF_INIT;
	int64_t id;
	int i;

	capture_cmd(f->cap, "r1", "ana", "game new gtr");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	/* thinking draws a card: a private line of the log */
	for (i = 0; i < 12; i++) {
		capture_cmd(f->cap, "r1", "ana", "play think draw");
		capture_cmd(f->cap, "r1", "ben", "play think draw");
		capture_cmd(f->cap, "r1", "ana", "play think draw");
		capture_cmd(f->cap, "r1", "ana", "play 1");
		capture_cmd(f->cap, "r1", "ben", "play 1");
	}
	capture_cmd(f->cap, "r1", "ana", "game abort");
	session_rec_init(&rec);
	assert_int_equal(store_session_current(f->store, "console", "r1", &rec, &err), 1);
	assert_int_equal(rec.status, SESSION_ABORTED);
	id = rec.id;
	session_rec_release(&rec);
	buf_release(&err);
	return id;
}

/* How many times needle is in text. */
static int occurrences(const char *text, const char *needle)
{
	int n = 0;

	while ((text = strstr(text, needle))) {
		n++;
		text += strlen(needle);
	}
	return n;
}

static void test_log_old_game(void **state)
{
	struct fixture *f = *state;
	struct buf cmdtext = BUF_INIT;
	const char *t;
	int64_t id = old_game(f);
	int thinks;

	/* each player's export holds their own draws (one private line per
	 * time they thought), and none of the other's */
	capture_clear(f->cap);
	buf_setf(&cmdtext, "log #%lld all", (long long)id);
	capture_cmd(f->cap, "r7", "ana", buf_str(&cmdtext));
	t = said(f->cap, "ana", "Log of #");
	assert_non_null(t);
	thinks = occurrences(t, "ana thinks and draws");
	assert_true(thinks > 0);
	assert_int_equal(occurrences(t, "(private) You draw"), thinks);
	capture_cmd(f->cap, "r7", "ben", buf_str(&cmdtext));
	t = said(f->cap, "ben", "Log of #");
	assert_non_null(t);
	thinks = occurrences(t, "ben thinks and draws");
	assert_true(thinks > 0);
	assert_int_equal(occurrences(t, "(private) You draw"), thinks);
	/* a spectator gets the public lines only, in the room */
	capture_clear(f->cap);
	buf_setf(&cmdtext, "log #%lld 500", (long long)id);
	capture_cmd(f->cap, "r7", "cy", buf_str(&cmdtext));
	t = said(f->cap, NULL, "Log of #");
	assert_non_null(t);
	assert_int_equal(capture_count(f->cap, "cy", ""), 0);
	assert_null(strstr(t, "You draw"));

	/* another platform's game, an open or unknown one, bad words */
	capture_cmd(f->dc, "r7", "ana", buf_str(&cmdtext));
	assert_non_null(said(f->dc, "ana", "There is no finished game #"));
	capture_cmd(f->cap, "r8", "ana", "game new gtr");
	capture_cmd(f->cap, "r8", "ben", "game join");
	capture_cmd(f->cap, "r8", "ana", "game start");
	buf_setf(&cmdtext, "log #%lld", (long long)id + 1);
	capture_cmd(f->cap, "r7", "ana", buf_str(&cmdtext));
	capture_cmd(f->cap, "r7", "ana", "log #999999");
	assert_int_equal(capture_count(f->cap, "ana", "There is no finished game #"), 2);
	buf_setf(&cmdtext, "log #%lld 0", (long long)id);
	capture_cmd(f->cap, "r7", "ana", buf_str(&cmdtext));
	capture_cmd(f->cap, "r7", "ana", "log #");
	assert_int_equal(capture_count(f->cap, "ana", "Usage: `log #<game id> [n|all]`"), 2);
	buf_release(&cmdtext);
}

/* ---- pictures ---- */

static void test_pictures(void **state)
{
	struct fixture *f = *state;
	static const struct seat_spec seats[] = {
		{ "ana", "Ana", 1, 31, 1 }, { "ben", "Ben", 2, 25, 0 },
	};
	struct rating_rec r[2];
	struct rating_point_rec pt[3];
	struct store_result sr;
	struct result_rec res;
	struct store_commit c;
	struct buf err = BUF_INIT;
	size_t i;
	int pics = 0;

	r[0] = rating("discord", "", "gtr", "ana", "Ana", 30.0, 2.0, 3, 2);
	r[1] = rating("discord", "", "gtr", "ben", "Ben", 25.0, 2.0, 3, 1);
	memset(pt, 0, sizeof(pt));
	for (i = 0; i < 3; i++) {
		snprintf(pt[i].platform, sizeof(pt[i].platform), "discord");
		snprintf(pt[i].game, sizeof(pt[i].game), "gtr");
		snprintf(pt[i].player, sizeof(pt[i].player), "ana");
		pt[i].session = 500 + (int64_t)i;
		pt[i].at = T0 - 86400 * (3 - (int64_t)i);
		pt[i].mu = 26.0 + 2 * (double)i;
		pt[i].sigma = 6.0 - 2 * (double)i;
	}
	seed_result(f, "discord", "c1", "gtr", T0 - 60, seats, 2, r, 2);
	memset(&res, 0, sizeof(res));
	res.session = 600;
	snprintf(res.platform, sizeof(res.platform), "discord");
	snprintf(res.room, sizeof(res.room), "c1");
	snprintf(res.game, sizeof(res.game), "gtr");
	res.nseats = 2;
	res.seats[0] = (struct result_seat_rec){ 0, "ana", "Ana", 0, 1, 3, 1, 1, 0 };
	res.seats[1] = (struct result_seat_rec){ 1, "ben", "Ben", 0, 2, 1, 0, 1, 0 };
	sr = (struct store_result){ &res, NULL, 0, pt, 3 };
	memset(&c, 0, sizeof(c));
	c.result = &sr;
	assert_int_equal(store_commit(f->store, &c, &err), 0);

	/* stats: privately, its text then its picture */
	capture_cmd(f->dc, "c1", "ana", "stats");
	assert_non_null(said(f->dc, "ana", "3 games, 2 wins (67%)"));
	for (i = 0; i < f->dc->n; i++)
		if (f->dc->v[i].picture && !strcmp(f->dc->v[i].picture, "stats.png")) {
			assert_non_null(f->dc->v[i].user);
			assert_string_equal(f->dc->v[i].user, "ana");
			assert_true(f->dc->v[i].png_len > 0);
			pics++;
		}
	assert_int_equal(pics, 1);
	/* leaderboard: in the room */
	capture_clear(f->dc);
	capture_cmd(f->dc, "c1", "ben", "leaderboard gtr");
	assert_non_null(said(f->dc, NULL, "1. Ana 24.0"));
	for (i = 0; i < f->dc->n; i++)
		if (f->dc->v[i].picture && !strcmp(f->dc->v[i].picture, "leaderboard.png")) {
			assert_null(f->dc->v[i].user);
			assert_true(f->dc->v[i].png_len > 0);
			pics++;
		}
	assert_int_equal(pics, 2);
	/* a room that chose text boards gets text */
	capture_cmd(f->dc, "c2", "ana", "game new gtr");
	capture_cmd(f->dc, "c2", "ana", "game settings board text");
	assert_int_equal(capture_count(f->dc, "*", "now come as text"), 1);
	capture_clear(f->dc);
	capture_cmd(f->dc, "c2", "ana", "stats");
	assert_non_null(said(f->dc, "ana", "3 games, 2 wins (67%)"));
	for (i = 0; i < f->dc->n; i++)
		assert_true(!f->dc->v[i].picture || !*f->dc->v[i].picture);
	/* the console takes no pictures: text alone */
	capture_cmd(f->cap, "c1", "ana", "leaderboard");
	for (i = 0; i < f->cap->n; i++)
		assert_true(!f->cap->v[i].picture || !*f->cap->v[i].picture);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stats_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaderboard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hide_show, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_old_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pictures, setup, teardown),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	paint_cleanup();	/* the fonts' caches: no leak to report */
	return rc;
}
