/*
 * The determinize ops of Fortuna, Glory to Rome, Sylla and The Builders and
 * the searcher
 * (games/search.h), on positions of seeded games played by the baseline AI:
 *
 * - determinize keeps what the seat sees (render_public, render_private of
 *   the seat, the seat's move list, byte for byte), keeps check() passing
 *   and leaves a game that plays to the end;
 * - over several rngs the other seats' hidden cards do change;
 * - no cheating: a state and a determinization of it (same view, other
 *   hidden cards) give byte-identical determinizations and the same search
 *   move for equal rngs, so nothing the seat cannot see reaches a decision;
 * - search_move leaves the state alone, returns a legal move, the same one
 *   for the same rng, at once when there is one choice, and -1 when the
 *   seat has none.
 *
 * Iteration counts are tiny: the point is behaviour, not strength
 * (bench/bench_ai.c measures that).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "games/builders/builders.h"
#include "games/fortuna/fortuna.h"
#include "games/game.h"
#include "games/gtr/gtr.h"
#include "games/search.h"
#include "games/sylla/sylla.h"

#define MAX_MOVES 20000

static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve" };

/* What the seat sees, as one text: the public board and its private view
 * in every locale, and its move ids. */
static void view_text(const struct game_ops *g, const void *st, int seat, int nseats,
		      struct buf *out)
{
	struct move_list ml;
	int l, i;

	buf_reset(out);
	for (l = 0; l < LOC_COUNT; l++) {
		struct game_view v = { (enum locale)l, nseats, names };
		struct rich r = RICH_INIT;

		g->render_public(st, &v, &r);
		g->render_private(st, seat, &v, &r);
		rich_to_plain(&r, out);
		rich_release(&r);
	}
	g->moves(st, seat, &ml);
	buf_printf(out, "\n%d moves, %d meta\n", ml.n, ml.nmeta);
	for (i = 0; i < ml.n; i++) {
		g->move_id(st, seat, ml.v[i], out);
		buf_addch(out, '\n');
	}
}

static int first_seat(unsigned aw)
{
	int seat = 0;

	while (!(aw & (1u << seat)))
		seat++;
	return seat;
}

/* Plays st to the end with the baseline AI, checking every state. */
static void play_out(const struct game_ops *g, void *st, struct rng *r)
{
	struct buf err = BUF_INIT;
	int moves = 0;
	unsigned aw;

	while ((aw = g->awaiting(st))) {
		int seat = first_seat(aw);
		struct move m;

		assert_int_equal(g->bot_move(st, seat, r, &m), 0);
		if (g->apply(st, seat, m, NULL, &err))
			fail_msg("%s: apply after determinize: %s", g->id, buf_str(&err));
		if (g->check(st, &err))
			fail_msg("%s: check after determinize: %s", g->id, buf_str(&err));
		assert_true(++moves < MAX_MOVES);
	}
	buf_release(&err);
}

/* Whether the other seats' hands differ between a and b (The Builders
 * has no hands: everything but the decks' order is open). */
static int hands_differ(const struct game_ops *g, const void *a, const void *b, int seat)
{
	int i;

	if (!strcmp(g->id, "sylla")) {
		/* Sylla's "hands": the tokens behind the others' screens and
		 * their secret choices not yet revealed */
		const struct sylla_state *x = a, *y = b;

		for (i = 0; i < x->nplayers; i++)
			if (i != seat && (memcmp(x->p[i].tok, y->p[i].tok, sizeof(x->p[i].tok)) ||
					  x->p[i].picks != y->p[i].picks || x->p[i].amount != y->p[i].amount ||
					  x->p[i].thumb != y->p[i].thumb))
				return 1;
	} else if (!strcmp(g->id, "builders")) {
		return 0;
	} else if (!strcmp(g->id, "fortuna")) {
		const struct fortuna_state *x = a, *y = b;

		for (i = 0; i < x->nplayers; i++)
			if (i != seat && memcmp(x->p[i].hand, y->p[i].hand, sizeof(x->p[i].hand)))
				return 1;
	} else {
		const struct gtr_state *x = a, *y = b;

		for (i = 0; i < x->nplayers; i++)
			if (i != seat && memcmp(x->p[i].hand, y->p[i].hand, sizeof(x->p[i].hand)))
				return 1;
	}
	return 0;
}

/* Whether anything hidden from seat moved: the other hands or the deck. */
static int hidden_differ(const struct game_ops *g, const void *a, const void *b, int seat)
{
	if (hands_differ(g, a, b, seat))
		return 1;
	if (!strcmp(g->id, "sylla")) {
		const struct sylla_state *x = a, *y = b;

		return memcmp(x->deck, y->deck, sizeof(x->deck)) || memcmp(x->stack, y->stack, sizeof(x->stack)) ||
		       memcmp(x->ev_deck, y->ev_deck, sizeof(x->ev_deck)) ||
		       memcmp(x->works, y->works, sizeof(x->works));
	}
	if (!strcmp(g->id, "builders")) {
		const struct builders_state *x = a, *y = b;

		return memcmp(x->bdeck, y->bdeck, sizeof(x->bdeck)) != 0 ||
		       memcmp(x->wdeck, y->wdeck, sizeof(x->wdeck)) != 0;
	}
	if (!strcmp(g->id, "fortuna")) {
		const struct fortuna_state *x = a, *y = b;

		return memcmp(x->deck, y->deck, sizeof(x->deck)) != 0;
	} else {
		const struct gtr_state *x = a, *y = b;

		return memcmp(x->deck, y->deck, sizeof(x->deck)) != 0;
	}
}

/* ---- determinize: same view, valid, playable, hidden cards move ---- */

static void determinize_game(const char *id, int nseats, uint64_t seed)
{
	const struct game_ops *g = game_find(id);
	void *st = game_state_new(g), *d = game_state_new(g);
	struct buf before = BUF_INIT, after = BUF_INIT, err = BUF_INIT;
	struct rng r, dr;
	int moves = 0, changed = 0, hands = 0, samples = 0, played = 0;
	unsigned aw;

	assert_non_null(g->determinize);
	if (g->setup(st, nseats, seed, "", &err))
		fail_msg("setup: %s", buf_str(&err));
	rng_seed(&r, seed, 3);
	rng_seed(&dr, seed, 4);
	while ((aw = g->awaiting(st))) {
		int seat = first_seat(aw), s, k;
		struct move m;

		if (moves % 5 == 0)
			for (s = 0; s < nseats; s++) {
				view_text(g, st, s, nseats, &before);
				for (k = 0; k < 3; k++) {
					memcpy(d, st, g->state_size);
					g->determinize(d, s, &dr);
					view_text(g, d, s, nseats, &after);
					if (strcmp(buf_str(&before), buf_str(&after)))
						fail_msg("%s seed %llu move %d seat %d: the view changed:\n"
							 "%s\n---- after ----\n%s", id,
							 (unsigned long long)seed, moves, s,
							 buf_str(&before), buf_str(&after));
					if (g->check(d, &err))
						fail_msg("%s move %d seat %d: check: %s", id, moves, s,
							 buf_str(&err));
					samples++;
					changed += hidden_differ(g, st, d, s);
					hands += hands_differ(g, st, d, s);
				}
				/* now and then, the sample must play to the end */
				if (moves % 60 == 0) {
					play_out(g, d, &r);
					played++;
				}
			}
		assert_int_equal(g->bot_move(st, seat, &r, &m), 0);
		if (g->apply(st, seat, m, NULL, &err))
			fail_msg("apply: %s", buf_str(&err));
		assert_true(++moves < MAX_MOVES);
	}
	assert_true(played > 0);
	/* the deck's order changes nearly always; hands often (where there
	 * are hands) */
	assert_true(changed > samples * 3 / 4);
	assert_true(hands > 0 || !strcmp(id, "builders"));
	buf_release(&before);
	buf_release(&after);
	buf_release(&err);
	free(st);
	free(d);
}

static void test_determinize_fortuna(void **state)
{
	(void)state;
	determinize_game("fortuna", 2, 1);
	determinize_game("fortuna", 3, 2);
	determinize_game("fortuna", 4, 3);
}

static void test_determinize_sylla(void **state)
{
	(void)state;
	determinize_game("sylla", 3, 1);
	determinize_game("sylla", 4, 2);
	determinize_game("sylla", 3, 3);
}

static void test_determinize_gtr(void **state)
{
	(void)state;
	determinize_game("gtr", 2, 1);
	determinize_game("gtr", 3, 2);
	determinize_game("gtr", 5, 3);
}

static void test_determinize_builders(void **state)
{
	(void)state;
	determinize_game("builders", 2, 1);
	determinize_game("builders", 3, 2);
	determinize_game("builders", 4, 3);
}

/* A determinized state is over when the original is; a finished game is
 * left alone. */
static void test_determinize_over(void **state)
{
	const char *ids[] = { "fortuna", "gtr", "sylla", "builders" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		const struct game_ops *g = game_find(ids[i]);
		void *st = game_state_new(g), *d = game_state_new(g);
		struct buf err = BUF_INIT;
		struct rng r;

		rng_seed(&r, 9, 9);
		assert_int_equal(g->setup(st, g->min_players, 9, "", &err), 0);
		play_out(g, st, &r);
		memcpy(d, st, g->state_size);
		g->determinize(d, 0, &r);
		assert_memory_equal(d, st, g->state_size);
		buf_release(&err);
		free(st);
		free(d);
	}
}

/* ---- no cheating, legality, determinism ---- */

static void no_cheat_game(const char *id, int nseats, uint64_t seed, int policy, int every)
{
	const struct game_ops *g = game_find(id);
	void *st = game_state_new(g), *s2 = game_state_new(g), *d1 = game_state_new(g),
	     *d2 = game_state_new(g), *keep = game_state_new(g);
	struct search_params p;
	struct buf err = BUF_INIT;
	struct move_list ml;
	struct rng r;
	int moves = 0, searched = 0;
	unsigned aw;

	search_defaults(g, &p);
	assert_true(p.iterations > 0);
	p.iterations = 8;
	p.policy = policy;
	if (g->setup(st, nseats, seed, "", &err))
		fail_msg("setup: %s", buf_str(&err));
	rng_seed(&r, seed, 5);
	while ((aw = g->awaiting(st))) {
		int seat = first_seat(aw), i, found = 0;
		struct move m, m1, m2, m3;

		if (moves % every == 0) {
			struct rng a, b, b2, c1, c2, c3;

			rng_seed(&a, seed + (uint64_t)moves, 1);
			rng_seed(&b, seed + (uint64_t)moves, 2);
			b2 = b;
			memcpy(s2, st, g->state_size);
			g->determinize(s2, seat, &a);
			memcpy(d1, st, g->state_size);
			memcpy(d2, s2, g->state_size);
			g->determinize(d1, seat, &b);
			g->determinize(d2, seat, &b2);
			assert_memory_equal(d1, d2, g->state_size);

			memcpy(keep, st, g->state_size);
			rng_seed(&c1, seed + (uint64_t)moves, 3);
			c2 = c1;
			c3 = c1;
			assert_int_equal(search_move(g, st, seat, &p, &c1, &m1), 0);
			assert_memory_equal(keep, st, g->state_size);
			assert_int_equal(search_move(g, s2, seat, &p, &c2, &m2), 0);
			assert_memory_equal(&m1, &m2, sizeof(m1));
			assert_memory_equal(&c1, &c2, sizeof(c1));
			/* same rng, same move */
			assert_int_equal(search_move(g, st, seat, &p, &c3, &m3), 0);
			assert_memory_equal(&m1, &m3, sizeof(m1));
			/* legal, and not a meta move while others exist */
			g->moves(st, seat, &ml);
			for (i = 0; i < ml.n; i++)
				if (!memcmp(&ml.v[i], &m1, sizeof(m1))) {
					found = 1;
					if (ml.n > ml.nmeta)
						assert_true(i < ml.n - ml.nmeta);
				}
			assert_true(found);
			memcpy(d1, st, g->state_size);
			if (g->apply(d1, seat, m1, NULL, &err))
				fail_msg("search move refused: %s", buf_str(&err));
			searched++;
			m = m1;
		} else {
			assert_int_equal(g->bot_move(st, seat, &r, &m), 0);
		}
		if (g->apply(st, seat, m, NULL, &err))
			fail_msg("apply: %s", buf_str(&err));
		assert_true(++moves < MAX_MOVES);
	}
	assert_true(searched > 3);
	buf_release(&err);
	free(st);
	free(s2);
	free(d1);
	free(d2);
	free(keep);
}

static void test_no_cheat_fortuna(void **state)
{
	(void)state;
	no_cheat_game("fortuna", 2, 11, SEARCH_POLICY_RANDOM, 7);
	no_cheat_game("fortuna", 3, 12, SEARCH_POLICY_BOT, 23);
}

static void test_no_cheat_sylla(void **state)
{
	(void)state;
	no_cheat_game("sylla", 3, 11, SEARCH_POLICY_RANDOM, 13);
	no_cheat_game("sylla", 4, 12, SEARCH_POLICY_BOT, 17);
}

static void test_no_cheat_gtr(void **state)
{
	(void)state;
	no_cheat_game("gtr", 2, 11, SEARCH_POLICY_RANDOM, 9);
	no_cheat_game("gtr", 4, 12, SEARCH_POLICY_BOT, 29);
}

static void test_no_cheat_builders(void **state)
{
	(void)state;
	no_cheat_game("builders", 2, 11, SEARCH_POLICY_RANDOM, 7);
	no_cheat_game("builders", 4, 12, SEARCH_POLICY_BOT, 13);
}

/* One choice: returned at once, the rng untouched.  No choice: -1. */
static void test_trivial(void **state)
{
	const char *ids[] = { "fortuna", "gtr", "builders" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		const struct game_ops *g = game_find(ids[i]);
		void *st = game_state_new(g);
		struct search_params p;
		struct buf err = BUF_INIT;
		struct move_list ml;
		struct rng r, keep;
		struct move m;
		int seat, other, single = 0, moves = 0;
		unsigned aw;

		search_defaults(g, &p);
		p.iterations = 4;
		rng_seed(&r, 21, 1);
		assert_int_equal(g->setup(st, 2, 21, "", &err), 0);
		aw = g->awaiting(st);
		seat = first_seat(aw);
		other = 1 - seat;
		if (!(aw & (1u << other)))
			assert_int_equal(search_move(g, st, other, &p, &r, &m), -1);
		while ((aw = g->awaiting(st)) && moves++ < MAX_MOVES) {
			seat = first_seat(aw);
			g->moves(st, seat, &ml);
			if (ml.n - ml.nmeta == 1) {
				keep = r;
				assert_int_equal(search_move(g, st, seat, &p, &r, &m), 0);
				assert_memory_equal(&m, &ml.v[0], sizeof(m));
				assert_memory_equal(&keep, &r, sizeof(r));
				single++;
			} else {
				assert_int_equal(g->bot_move(st, seat, &r, &m), 0);
			}
			assert_int_equal(g->apply(st, seat, m, NULL, &err), 0);
		}
		assert_true(single > 0);
		for (seat = 0; seat < 2; seat++)
			assert_int_equal(search_move(g, st, seat, &p, &r, &m), -1);
		buf_release(&err);
		free(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinize_fortuna),
		cmocka_unit_test(test_determinize_gtr),
		cmocka_unit_test(test_determinize_sylla),
		cmocka_unit_test(test_determinize_builders),
		cmocka_unit_test(test_determinize_over),
		cmocka_unit_test(test_no_cheat_fortuna),
		cmocka_unit_test(test_no_cheat_gtr),
		cmocka_unit_test(test_no_cheat_sylla),
		cmocka_unit_test(test_no_cheat_builders),
		cmocka_unit_test(test_trivial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
