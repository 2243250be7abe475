/*
 * Fortuna: seeded full games, 300 for each player count with the AI in
 * every seat and 300 with uniformly random legal moves, some with the draft
 * option; the invariants (fortuna_check) are checked after every move and
 * every game must end within a bound.  AI games must end by reaching the
 * Palace, never by the round cap.  The setup reservation is answered in a
 * random order of the seats (they are all awaited at once), and no seat
 * without privilege cards is ever asked a decision with a single answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "games/fortuna/fortuna.h"

#define GAMES 300
#define MAX_MOVES 20000

struct tally {
	int games, capped, max_round;
	long moves;
};

static void play_game(int n, uint64_t seed, int random_moves, struct tally *t)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT;
	struct game_result res;
	struct rng r;
	int moves = 0;

	rng_seed(&r, seed, 11);
	if (fortuna_setup(s, n, seed, seed % 3 == 0 ? "draft" : "", &err))
		fail_msg("setup: %s", buf_str(&err));
	while (fortuna_awaiting(s)) {
		unsigned aw = fortuna_awaiting(s);
		int seat = fortuna_decider(s);
		struct move m;

		if (s->step == FS_HIDE) {
			/* all reserve at once: any of them may answer first */
			int k = (int)rng_below(&r, (uint32_t)__builtin_popcount(aw));

			for (seat = 0; !((aw >> seat) & 1) || k-- > 0; seat++)
				;
		} else {
			assert_int_equal(aw, 1u << seat);
		}
		assert_true(fortuna_moves(s, seat, ml) > 0);
		/* a single answer is never asked of a seat without privilege
		 * cards: it was taken automatically */
		if (ml->n == 1) {
			int k, held = 0;

			for (k = 0; k < FP_COUNT; k++)
				held += s->p[seat].hand[k];
			if (!held)
				fail_msg("seed %llu: step %d asked with a single move",
					 (unsigned long long)seed, s->step);
		}
		if (random_moves)
			m = ml->v[rng_below(&r, (uint32_t)ml->n)];
		else
			assert_int_equal(fortuna_bot_move(s, seat, &r, &m), 0);
		if (fortuna_apply(s, seat, m, NULL, &err))
			fail_msg("seed %llu: listed move refused: %s", (unsigned long long)seed,
				 buf_str(&err));
		if (fortuna_check(s, &err))
			fail_msg("seed %llu n %d move %d: %s", (unsigned long long)seed, n, moves,
				 buf_str(&err));
		if (++moves > MAX_MOVES)
			fail_msg("seed %llu: no end after %d moves", (unsigned long long)seed, moves);
	}
	assert_int_equal(s->step, FS_OVER);
	assert_true(s->round <= FORTUNA_ROUND_CAP);
	assert_int_equal(fortuna_result(s, &res), 1);
	if (s->ending) {
		/* somebody reached the Palace, so somebody may win */
		assert_true(res.winners != 0);
	} else {
		t->capped++;
		assert_int_equal(s->round, FORTUNA_ROUND_CAP);
	}
	t->games++;
	t->moves += moves;
	if (s->round > t->max_round)
		t->max_round = s->round;
	buf_release(&err);
	free(ml);
	free(s);
}

static void run(int n, int random_moves)
{
	struct tally t = { 0 };
	int g;

	for (g = 0; g < GAMES; g++)
		play_game(n, 5000u + (uint64_t)g * 7919u, random_moves, &t);
	print_message("%d players, %s: %d games, %.0f moves/game, longest %d rounds, %d capped\n",
		      n, random_moves ? "random" : "AI", t.games, (double)t.moves / t.games,
		      t.max_round, t.capped);
	if (!random_moves)
		assert_int_equal(t.capped, 0);
}

static void test_ai_2(void **state) { run(2, 0); }
static void test_ai_3(void **state) { run(3, 0); }
static void test_ai_4(void **state) { run(4, 0); }
static void test_random_2(void **state) { run(2, 1); }
static void test_random_3(void **state) { run(3, 1); }
static void test_random_4(void **state) { run(4, 1); }

/* The same seed and moves give the same game (replay). */
static void test_replay(void **state)
{
	struct fortuna_state *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct buf err = BUF_INIT;
	struct rng r1, r2;

	assert_int_equal(fortuna_setup(a, 4, 77, "", &err), 0);
	assert_int_equal(fortuna_setup(b, 4, 77, "", &err), 0);
	assert_memory_equal(a, b, sizeof(*a));
	rng_seed(&r1, 1, 1);
	rng_seed(&r2, 1, 1);
	while (fortuna_awaiting(a)) {
		struct move m1, m2;
		int seat = fortuna_decider(a);

		assert_int_equal(fortuna_bot_move(a, seat, &r1, &m1), 0);
		assert_int_equal(fortuna_bot_move(b, seat, &r2, &m2), 0);
		assert_memory_equal(&m1, &m2, sizeof(m1));
		assert_int_equal(fortuna_apply(a, seat, m1, NULL, &err), 0);
		assert_int_equal(fortuna_apply(b, seat, m2, NULL, &err), 0);
		assert_memory_equal(a, b, sizeof(*a));
	}
	buf_release(&err);
	free(a);
	free(b);
}

/* The AI beats random play clearly (a sanity check of the heuristic). */
static void test_ai_beats_random(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT;
	struct game_result res;
	int g, wins = 0;

	for (g = 0; g < 100; g++) {
		struct rng r;

		rng_seed(&r, (uint64_t)g, 5);
		memset(s, 0, sizeof(*s));
		assert_int_equal(fortuna_setup(s, 3, (uint64_t)g, "", &err), 0);
		while (fortuna_awaiting(s)) {
			int seat = fortuna_decider(s);
			struct move m;

			if (seat == 0) {
				assert_int_equal(fortuna_bot_move(s, seat, &r, &m), 0);
			} else {
				fortuna_moves(s, seat, ml);
				m = ml->v[rng_below(&r, (uint32_t)ml->n)];
			}
			assert_int_equal(fortuna_apply(s, seat, m, NULL, &err), 0);
		}
		fortuna_result(s, &res);
		wins += res.winners & 1;
	}
	assert_true(wins >= 90);
	buf_release(&err);
	free(ml);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ai_2),
		cmocka_unit_test(test_ai_3),
		cmocka_unit_test(test_ai_4),
		cmocka_unit_test(test_random_2),
		cmocka_unit_test(test_random_3),
		cmocka_unit_test(test_random_4),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_ai_beats_random),
	};

	return cmocka_run_group_tests_name("fortuna_play", tests, NULL, NULL);
}
