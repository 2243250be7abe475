/*
 * bot/record: a finished game's record, driven through the manager and the
 * capturing adapter on a SQLite store.  Three games in a room and their
 * results rows, seats, places and winners; ratings against the two-player
 * Weng–Lin update worked here in closed form (independently of
 * bot/rating.c); streaks and the other sums; the community's scope apart
 * from the platform's; an unrated room; an aborted game; a kicked and a
 * timed-out player counted last; an AI seat rated as "ai:basic"; and a
 * commit that finds a rating moved by another process, run again and
 * rated once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/core.h"
#include "bot/session.h"
#include "tests/support/capture.h"

#define EPS 1e-6

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;	/* "console" */
	struct capture_adapter *dc;	/* "discord", with a community */
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

static struct capture_adapter *add(struct fixture *f, struct capture_adapter *c)
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
	int fd;

	snprintf(f->path, sizeof(f->path), "/tmp/tabula-record-XXXXXX");
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
	f->cap = add(f, capture_new("console"));
	f->dc = add(f, capture_new_caps("discord", ADAPTER_CAP_PRIVATE_ON_DEMAND));
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
	capture_free(f->dc);
	store_close(f->store);
	unlink(f->path);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	unlink(side);
	free(f);
	return 0;
}

static const char *plat(const struct capture_adapter *c)
{
	return c->base.ops->name;
}

static struct session *room(struct fixture *f, const struct capture_adapter *c, const char *r)
{
	struct buf err = BUF_INIT;
	struct session *s = session_mgr_find(&f->mgr, plat(c), r, &err);

	buf_release(&err);
	return s;
}

/* A two-human game of Fortuna in room r, ana's (seat 0) and ben's, started. */
static void start_two(struct fixture *f, struct capture_adapter *c, const char *r)
{
	capture_cmd(c, r, "ana", "game new fortuna");
	capture_cmd(c, r, "ben", "game join");
	capture_cmd(c, r, "ana", "game start");
	assert_int_equal(room(f, c, r)->rec.status, SESSION_ACTIVE);
}

/* The awaited human's user id into u; 0 when none is awaited. */
static int awaited(struct session *s, char *u, size_t n)
{
	unsigned aw = s->ops->awaiting(s->st);
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		if ((aw & (1u << i)) && !s->rec.seats[i].is_bot) {
			snprintf(u, n, "%s", s->rec.seats[i].user);
			return 1;
		}
	return 0;
}

/* Plays "play 1" for whoever is awaited until the game ends. */
static void play_out(struct fixture *f, struct capture_adapter *c, const char *r)
{
	struct session *s;
	char u[128];
	int guard = 0;

	while ((s = room(f, c, r)) && s->rec.status == SESSION_ACTIVE) {
		assert_true(awaited(s, u, sizeof(u)));
		assert_true(++guard < 20000);
		f->clock += 7;
		capture_cmd(c, r, u, "play 1");
		capture_clear(c);
	}
	assert_non_null(s);
	assert_int_equal(s->rec.status, SESSION_FINISHED);
}

/* ---- the two-player Weng–Lin update, by hand ---- */

struct hand {
	const char *id;
	double mu, sigma;
	int64_t games, streak, place_sum, score_sum, best;
	double wins;
};

static void hand_init(struct hand *h, const char *id)
{
	memset(h, 0, sizeof(*h));
	h->id = id;
	h->mu = 25.0;
	h->sigma = 25.0 / 3.0;
}

/*
 * Two players a and b with places pa and pb (1 = first; equal = a tie).
 * Plackett–Luce with two players: c² = σa'² + σb'² + 2β², the chance of
 * a first pa = e^(μa/c) / (e^(μa/c) + e^(μb/c)).  The winner gains
 * σ'²/c (1 − p), the loser loses σ'²/c p; in a tie each moves σ'²/c
 * (½ − p).  Both variances shrink by the factor 1 − γ σ'²/c² pa pb with
 * γ = σ'/c (never below κ).
 */
static void hand_update(struct hand *a, struct hand *b, int pa, int pb)
{
	const double beta = 25.0 / 6.0, tau = 25.0 / 300.0, kappa = 0.0001;
	double sa2 = a->sigma * a->sigma + tau * tau, sb2 = b->sigma * b->sigma + tau * tau;
	double c = sqrt(sa2 + sb2 + 2.0 * beta * beta);
	double ea = exp(a->mu / c), eb = exp(b->mu / c);
	double qa = ea / (ea + eb), qb = eb / (ea + eb);
	double wa = pa == pb ? 0.5 : pa < pb ? 1.0 : 0.0, wb = pa == pb ? 0.5 : 1.0 - wa;
	double da = sqrt(sa2) / c * sa2 / (c * c) * qa * qb;
	double db = sqrt(sb2) / c * sb2 / (c * c) * qa * qb;

	a->mu += sa2 / c * (wa - qa);
	b->mu += sb2 / c * (wb - qb);
	a->sigma = sqrt(sa2 * fmax(1.0 - da, kappa));
	b->sigma = sqrt(sb2 * fmax(1.0 - db, kappa));
}

/* The sums of a rating row after one more game of seat. */
static void hand_game(struct hand *h, const struct result_seat_rec *seat)
{
	h->best = h->games ? (seat->score > h->best ? seat->score : h->best) : seat->score;
	h->games++;
	h->place_sum += seat->place;
	h->score_sum += seat->score;
	if (seat->winner) {
		h->wins += 1.0 / seat->nwinners;
		h->streak = h->streak > 0 ? h->streak + 1 : 1;
	} else {
		h->streak = h->streak < 0 ? h->streak - 1 : -1;
	}
}

static void near(double a, double b, const char *what)
{
	if (!(fabs(a - b) <= EPS))
		fail_msg("%s: %.12f is not %.12f", what, a, b);
}

static int count_point(void *ctx, const struct rating_point_rec *p)
{
	(void)p;
	++*(int *)ctx;
	return 0;
}

static int points(struct fixture *f, const char *platform, const char *scope,
		  const char *player)
{
	struct buf err = BUF_INIT;
	int n = 0;

	assert_int_equal(store_rating_points(f->store, platform, scope, "fortuna", player, 100,
					     count_point, &n, &err), 0);
	buf_release(&err);
	return n;
}

/* The stored row of h in (platform, scope) is h's, computed by hand. */
static void check_row(struct fixture *f, const char *platform, const char *scope,
		      const struct hand *h)
{
	struct buf err = BUF_INIT;
	const char *who[1] = { h->id };
	struct rating_rec r;

	assert_int_equal(store_ratings_get(f->store, platform, scope, "fortuna", who, 1, &r,
					   &err), 0);
	if (!h->games) {
		assert_int_equal(r.found, 0);
		buf_release(&err);
		return;
	}
	assert_int_equal(r.found, 1);
	near(r.mu, h->mu, "mu");
	near(r.sigma, h->sigma, "sigma");
	near(r.conservative, h->mu - 3.0 * h->sigma, "conservative");
	assert_int_equal(r.games, h->games);
	near(r.wins, h->wins, "wins");
	assert_int_equal(r.streak, h->streak);
	assert_int_equal(r.place_sum, h->place_sum);
	assert_int_equal(r.score_sum, h->score_sum);
	assert_int_equal(r.best_score, h->best);
	assert_int_equal(points(f, platform, scope, h->id), (int)h->games);
	buf_release(&err);
}

static int count_action(void *ctx, const struct action_rec *a)
{
	(void)a;
	++*(int64_t *)ctx;
	return 0;
}

/*
 * The result of the finished game in room r, checked against the live
 * game's own result: one row per seat, scores as the game counts them,
 * winners as it names them (none counted last here), places 1..n in the
 * game's order, the number of actions stored.
 */
static void check_result(struct fixture *f, struct capture_adapter *c, const char *r,
			 struct result_rec *out)
{
	struct session *s = room(f, c, r);
	struct game_result gr;
	struct buf err = BUF_INIT;
	int64_t acts = 0;
	int i, nwin = 0;

	assert_int_equal(store_result_get(f->store, s->rec.id, out, &err), 1);
	assert_int_equal(store_actions(f->store, s->rec.id, 0, count_action, &acts, &err), 0);
	memset(&gr, 0, sizeof(gr));
	assert_int_equal(s->ops->result(s->st, &gr), 1);
	assert_string_equal(out->platform, plat(c));
	assert_string_equal(out->room, r);
	assert_string_equal(out->game, "fortuna");
	assert_int_equal(out->created, s->rec.created);
	assert_int_equal(out->finished_at, f->clock);
	assert_int_equal(out->moves, acts);
	assert_true(acts > 10);
	assert_int_equal(out->nseats, s->rec.nseats);
	for (i = 0; i < out->nseats; i++) {
		const struct result_seat_rec *x = &out->seats[i];

		assert_int_equal(x->seat, i);
		assert_int_equal(x->score, gr.score[i]);
		assert_int_equal(x->winner, (int)((gr.winners >> i) & 1u));
		assert_int_equal(x->place, gr.rank[i]);
		if (x->winner)
			assert_int_equal(x->place, 1);
		nwin += x->winner;
	}
	for (i = 0; i < out->nseats; i++)
		assert_int_equal(out->seats[i].nwinners, nwin);
	buf_release(&err);
}

/* ---- the tests ---- */

/* Three games in a room: each recorded once, rated by the hand formula,
 * the streaks and sums carried from game to game. */
static void test_three_games(void **state)
{
	struct fixture *f = *state;
	struct hand ana, ben, none;
	struct result_rec r;
	int g;

	hand_init(&ana, "ana");
	hand_init(&ben, "ben");
	for (g = 0; g < 3; g++) {
		f->clock += 3600;
		start_two(f, f->cap, "r1");
		play_out(f, f->cap, "r1");
		check_result(f, f->cap, "r1", &r);
		assert_int_equal(r.rated, 1);
		assert_string_equal(r.community, "");
		assert_string_equal(r.seats[0].player, "ana");
		assert_string_equal(r.seats[0].name, "ana");
		assert_string_equal(r.seats[1].player, "ben");
		assert_int_equal(r.seats[0].is_bot, 0);
		assert_int_equal(r.seats[0].last + r.seats[1].last, 0);
		hand_update(&ana, &ben, r.seats[0].place, r.seats[1].place);
		hand_game(&ana, &r.seats[0]);
		hand_game(&ben, &r.seats[1]);
		check_row(f, "console", "", &ana);
		check_row(f, "console", "", &ben);
	}
	/* a shared win or not, someone won or drew: streaks are +-n */
	assert_true(labs((long)ana.streak) >= 1 && labs((long)ben.streak) >= 1);
	/* console has no community: no other scope, no other platform */
	hand_init(&none, "ana");
	check_row(f, "console", "g1", &none);
	check_row(f, "discord", "", &none);
	/* the next game starts from the stored ratings, not anew */
	assert_true(ana.sigma < 25.0 / 3.0 - 0.1);
}

/* The community (a Discord guild, as the interaction brings it) reaches
 * the session and its result; its games are rated in it and in the whole
 * platform, each scope apart. */
static void test_scopes(void **state)
{
	struct fixture *f = *state;
	struct hand ana_g1, ben_g1, ana_g2, ben_g2, ana_all, ben_all;
	struct result_rec r;

	hand_init(&ana_g1, "ana");
	hand_init(&ben_g1, "ben");
	hand_init(&ana_g2, "ana");
	hand_init(&ben_g2, "ben");
	hand_init(&ana_all, "ana");
	hand_init(&ben_all, "ben");
	f->dc->community = "800000000000000001";
	start_two(f, f->dc, "d1");
	assert_string_equal(room(f, f->dc, "d1")->rec.community, "800000000000000001");
	play_out(f, f->dc, "d1");
	check_result(f, f->dc, "d1", &r);
	assert_string_equal(r.community, "800000000000000001");
	hand_update(&ana_g1, &ben_g1, r.seats[0].place, r.seats[1].place);
	hand_update(&ana_all, &ben_all, r.seats[0].place, r.seats[1].place);
	hand_game(&ana_g1, &r.seats[0]);
	hand_game(&ben_g1, &r.seats[1]);
	hand_game(&ana_all, &r.seats[0]);
	hand_game(&ben_all, &r.seats[1]);
	check_row(f, "discord", "800000000000000001", &ana_g1);
	check_row(f, "discord", "800000000000000001", &ben_g1);
	check_row(f, "discord", "", &ana_all);
	check_row(f, "discord", "", &ben_all);

	/* another guild: its own scope starts anew, the platform's goes on */
	f->dc->community = "800000000000000002";
	start_two(f, f->dc, "d2");
	play_out(f, f->dc, "d2");
	check_result(f, f->dc, "d2", &r);
	assert_string_equal(r.community, "800000000000000002");
	hand_update(&ana_g2, &ben_g2, r.seats[0].place, r.seats[1].place);
	hand_update(&ana_all, &ben_all, r.seats[0].place, r.seats[1].place);
	hand_game(&ana_g2, &r.seats[0]);
	hand_game(&ben_g2, &r.seats[1]);
	hand_game(&ana_all, &r.seats[0]);
	hand_game(&ben_all, &r.seats[1]);
	check_row(f, "discord", "800000000000000001", &ana_g1);
	check_row(f, "discord", "800000000000000002", &ana_g2);
	check_row(f, "discord", "800000000000000002", &ben_g2);
	check_row(f, "discord", "", &ana_all);
	check_row(f, "discord", "", &ben_all);

	/* a lobby opened without one (a command from nowhere) takes the
	 * community the next command brings; a command without one keeps it */
	f->dc->community = NULL;
	capture_cmd(f->dc, "d3", "ana", "game new fortuna");
	assert_string_equal(room(f, f->dc, "d3")->rec.community, "");
	f->dc->community = "800000000000000003";
	capture_cmd(f->dc, "d3", "ben", "game join");
	assert_string_equal(room(f, f->dc, "d3")->rec.community, "800000000000000003");
	f->dc->community = "";
	capture_cmd(f->dc, "d3", "ana", "game start");
	assert_string_equal(room(f, f->dc, "d3")->rec.community, "800000000000000003");
	/* and a restart reads it back from the store */
	session_mgr_release(&f->mgr);
	session_mgr_init(&f->mgr, f->store, 12345);
	f->mgr.now = fake_now;
	f->mgr.now_ctx = f;
	session_mgr_add_adapter(&f->mgr, &f->cap->base);
	session_mgr_add_adapter(&f->mgr, &f->dc->base);
	assert_string_equal(room(f, f->dc, "d3")->rec.community, "800000000000000003");
}

/* `game settings rated off`: the game is kept with its seats, rated 0,
 * and moves no rating; once a game has started it is voted. */
static void test_unrated(void **state)
{
	struct fixture *f = *state;
	struct hand ana, ben;
	struct result_rec r;

	hand_init(&ana, "ana");
	hand_init(&ben, "ben");
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game settings rated off");
	assert_int_equal(capture_count(f->cap, NULL, "are not rated"), 1);
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_cmd(f->cap, "r1", "ben", "game settings");
	assert_int_equal(capture_count(f->cap, "ben", "Rated: no."), 1);
	play_out(f, f->cap, "r1");
	check_result(f, f->cap, "r1", &r);
	assert_int_equal(r.rated, 0);
	assert_int_equal(r.nseats, 2);
	check_row(f, "console", "", &ana);	/* none */
	check_row(f, "console", "", &ben);
	assert_int_equal(points(f, "console", "", "ana"), 0);

	/* the room keeps playing unrated; a started game votes it back on */
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game settings rated on");
	assert_int_equal(capture_count(f->cap, NULL, "asks for `game settings rated on`"), 1);
	capture_cmd(f->cap, "r1", "ana", "game settings");
	assert_int_equal(capture_count(f->cap, "ana", "Rated: no."), 1);
	capture_cmd(f->cap, "r1", "ben", "game settings rated on");
	assert_int_equal(capture_count(f->cap, NULL, "Games in this room are rated"), 1);
	play_out(f, f->cap, "r1");
	check_result(f, f->cap, "r1", &r);
	assert_int_equal(r.rated, 1);
	hand_update(&ana, &ben, r.seats[0].place, r.seats[1].place);
	hand_game(&ana, &r.seats[0]);
	hand_game(&ben, &r.seats[1]);
	check_row(f, "console", "", &ana);
	check_row(f, "console", "", &ben);
}

/* An aborted game leaves no result and no rating. */
static void test_aborted(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct hand ana;
	struct result_rec r;
	struct session *s;
	int64_t id;

	hand_init(&ana, "ana");
	start_two(f, f->cap, "r1");
	capture_cmd(f->cap, "r1", "ana", "play 1");
	capture_cmd(f->cap, "r1", "ana", "game abort");
	s = room(f, f->cap, "r1");
	assert_int_equal(s->rec.status, SESSION_ABORTED);
	id = s->rec.id;
	assert_int_equal(store_result_get(f->store, id, &r, &err), 0);
	check_row(f, "console", "", &ana);
	buf_release(&err);
}

/* ben, idle on his turn, is replaced by the AI (`game kick`): the AI
 * finishes the game for his seat, which is his and counted last; no AI is
 * rated for it. */
static void test_kicked_last(void **state)
{
	struct fixture *f = *state;
	struct hand ana, ben, ai;
	struct result_rec r;
	struct session *s;
	char u[128];
	int guard = 0;

	hand_init(&ana, "ana");
	hand_init(&ben, "ben");
	hand_init(&ai, "ai:basic");
	start_two(f, f->cap, "r1");
	while ((s = room(f, f->cap, "r1")) && !(s->ops->awaiting(s->st) == 2u)) {
		assert_true(awaited(s, u, sizeof(u)));
		assert_true(++guard < 1000);
		capture_cmd(f->cap, "r1", u, "play 1");
	}
	f->clock += 49 * 3600;
	capture_cmd(f->cap, "r1", "ana", "game kick ben");
	s = room(f, f->cap, "r1");
	assert_int_equal(s->rec.seats[1].is_bot, 1);
	if (s->rec.status == SESSION_ACTIVE)
		play_out(f, f->cap, "r1");
	s = room(f, f->cap, "r1");
	{
		struct buf err = BUF_INIT;

		assert_int_equal(store_result_get(f->store, s->rec.id, &r, &err), 1);
		buf_release(&err);
	}
	assert_int_equal(r.rated, 1);
	assert_string_equal(r.seats[1].player, "ben");
	assert_int_equal(r.seats[1].is_bot, 0);
	assert_int_equal(r.seats[1].last, 1);
	assert_int_equal(r.seats[1].winner, 0);
	assert_int_equal(r.seats[1].place, 2);
	assert_int_equal(r.seats[0].last, 0);
	assert_int_equal(r.seats[0].place, 1);
	hand_update(&ana, &ben, 1, 2);
	hand_game(&ana, &r.seats[0]);
	hand_game(&ben, &r.seats[1]);
	check_row(f, "console", "", &ana);
	check_row(f, "console", "", &ben);
	check_row(f, "console", "", &ai);	/* not rated */
}

/* A timeout at which the AI decides for the idle player counts that
 * player last too. */
static void test_timeout_last(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct result_rec r;
	struct session *s;
	char u[128];
	int idle;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game settings timeout 1");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game start");
	capture_cmd(f->cap, "r1", "ana", "play 1");
	capture_cmd(f->cap, "r1", "ben", "play 1");
	s = room(f, f->cap, "r1");
	assert_true(awaited(s, u, sizeof(u)));
	idle = !strcmp(u, "ana") ? 0 : 1;
	f->clock += 2 * 3600;
	session_mgr_tick(&f->mgr);
	s = room(f, f->cap, "r1");
	assert_int_equal(s->rec.seats[idle].is_bot, 0);	/* still theirs */
	play_out(f, f->cap, "r1");
	s = room(f, f->cap, "r1");
	assert_int_equal(store_result_get(f->store, s->rec.id, &r, &err), 1);
	assert_int_equal(r.seats[idle].last, 1);
	assert_int_equal(r.seats[idle].place, 2);
	assert_int_equal(r.seats[idle].winner, 0);
	assert_int_equal(r.seats[!idle].last, 0);
	assert_int_equal(r.seats[!idle].place, 1);
	buf_release(&err);
}

/* An AI seat from the start is rated as "ai:basic", named "AI basic". */
static void test_ai_seat(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	const char *who[2] = { "ana", "ai:basic" };
	struct hand ana, ai;
	struct rating_rec rows[2];
	struct result_rec r;

	hand_init(&ana, "ana");
	hand_init(&ai, "ai:basic");
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game start");
	play_out(f, f->cap, "r1");
	check_result(f, f->cap, "r1", &r);
	assert_string_equal(r.seats[1].player, "ai:basic");
	assert_int_equal(r.seats[1].is_bot, 1);
	hand_update(&ana, &ai, r.seats[0].place, r.seats[1].place);
	hand_game(&ana, &r.seats[0]);
	hand_game(&ai, &r.seats[1]);
	check_row(f, "console", "", &ana);
	check_row(f, "console", "", &ai);
	assert_int_equal(store_ratings_get(f->store, "console", "", "fortuna", who, 2, rows, &err),
			 0);
	assert_string_equal(rows[1].name, "AI basic");
	buf_release(&err);
}

/* ---- another process rates ana between this one's read and commit ---- */

static struct fixture *race_f;
static struct store *race_other;	/* a second handle on the same file */
static int race_armed;
static struct session_hooks race_hooks;
static const struct session_hooks *race_orig;

/* The other process: ana's platform rating moves (a game elsewhere). */
static void race_write(void)
{
	struct buf err = BUF_INIT;
	const char *who[1] = { "ana" };
	struct rating_rec x;
	struct result_rec res;
	struct store_result sr;
	struct store_commit c;

	assert_int_equal(store_ratings_get(race_other, "console", "", "fortuna", who, 1, &x,
					   &err), 0);
	assert_int_equal(x.found, 0);
	x.mu = 30.0;
	x.sigma = 7.0;
	x.games = 1;
	x.read_games = 0;
	x.wins = 1.0;
	x.place_sum = 1;
	x.score_sum = 50;
	x.best_score = 50;
	x.streak = 1;
	x.last_at = race_f->clock;
	snprintf(x.name, sizeof(x.name), "ana");
	memset(&res, 0, sizeof(res));
	res.session = 999999;
	snprintf(res.platform, sizeof(res.platform), "console");
	snprintf(res.room, sizeof(res.room), "elsewhere");
	snprintf(res.game, sizeof(res.game), "fortuna");
	res.created = res.finished_at = race_f->clock;
	res.rated = 1;
	res.nseats = 1;
	res.seats[0].place = 1;
	snprintf(res.seats[0].player, sizeof(res.seats[0].player), "ana");
	memset(&sr, 0, sizeof(sr));
	sr.result = &res;
	sr.ratings = &x;
	sr.nratings = 1;
	memset(&c, 0, sizeof(c));
	c.result = &sr;
	assert_int_equal(store_commit(race_other, &c, &err), 0);
	buf_release(&err);
}

/* The due time is asked after the record is built and before the commit:
 * the moment another process's commit makes this one's ratings stale. */
static int64_t race_due(const struct session_rec *rec, const struct game_ops *ops,
			const void *st, int64_t last_at)
{
	if (race_armed && rec->status == SESSION_FINISHED) {
		race_armed = 0;
		race_write();
	}
	return race_orig->due(rec, ops, st, last_at);
}

static void test_conflict_rates_once(void **state)
{
	struct fixture *f = *state;
	struct buf err = BUF_INIT;
	struct hand ana, ben;
	struct result_rec r;
	struct session *s;
	char u[128];
	int guard = 0, acts;

	race_f = f;
	race_other = store_sqlite_open(f->path, &err);
	assert_non_null(race_other);
	race_orig = f->mgr.hooks;
	race_hooks = *race_orig;
	race_hooks.due = race_due;
	f->mgr.hooks = &race_hooks;
	start_two(f, f->cap, "r1");
	/* up to the last move: arm the race for the commit that ends it */
	race_armed = 1;
	while ((s = room(f, f->cap, "r1")) && s->rec.status == SESSION_ACTIVE) {
		assert_true(awaited(s, u, sizeof(u)));
		assert_true(++guard < 20000);
		f->clock += 7;
		capture_cmd(f->cap, "r1", u, "play 1");
	}
	assert_int_equal(race_armed, 0);	/* it happened */
	assert_int_equal(s->rec.status, SESSION_FINISHED);
	/* one answer: the rerun sent the final board once */
	acts = capture_count(f->cap, NULL, "Game over");
	assert_int_equal(acts, 1);
	check_result(f, f->cap, "r1", &r);
	assert_int_equal(r.rated, 1);
	/* rated once, from the other process's row */
	ana.id = "ana";
	hand_init(&ana, "ana");
	ana.mu = 30.0;
	ana.sigma = 7.0;
	ana.games = 1;
	ana.wins = 1.0;
	ana.place_sum = 1;
	ana.score_sum = 50;
	ana.best = 50;
	ana.streak = 1;
	hand_init(&ben, "ben");
	hand_update(&ana, &ben, r.seats[0].place, r.seats[1].place);
	hand_game(&ana, &r.seats[0]);
	hand_game(&ben, &r.seats[1]);
	{
		const char *who[1] = { "ana" };
		struct rating_rec x;

		assert_int_equal(store_ratings_get(f->store, "console", "", "fortuna", who, 1, &x,
						   &err), 0);
		near(x.mu, ana.mu, "mu");
		near(x.sigma, ana.sigma, "sigma");
		assert_int_equal(x.games, 2);
		assert_int_equal(x.place_sum, ana.place_sum);
		assert_int_equal(x.streak, ana.streak);
		/* the other process wrote no point: this game's only */
		assert_int_equal(points(f, "console", "", "ana"), 1);
	}
	check_row(f, "console", "", &ben);
	f->mgr.hooks = race_orig;
	store_close(race_other);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_three_games, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scopes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unrated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aborted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kicked_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ai_seat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict_rates_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
