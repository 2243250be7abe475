/*
 * search.h: a searching AI seat for any game with a struct game_ops
 * (docs/games/search.md).
 *
 * Determinized Monte Carlo: every playout starts from a fresh sample of
 * what the seat cannot see (ops->determinize), so the search never reads
 * hidden cards.  Pure like the rules cores: no clock, no I/O, no globals;
 * all randomness comes from the caller's rng, so the same state, params
 * and rng give the same move.
 */
#ifndef GAMES_SEARCH_H
#define GAMES_SEARCH_H

#include "games/game.h"

#define SEARCH_POLICY_RANDOM 0	/* playouts pick uniformly among non-meta moves */
#define SEARCH_POLICY_BOT 1	/* playouts play ops->bot_move for every seat */
#define SEARCH_ITERATIONS_DEFAULT 100	/* a game with no search_iterations */

struct search_params {
	/* playouts per decision (the budget; no clock).  Each move gets at
	 * least one playout per halving round, so a list longer than the
	 * budget costs a little more. */
	int iterations;
	int policy;		/* SEARCH_POLICY_RANDOM or SEARCH_POLICY_BOT: how playouts pick moves */
	/*
	 * Reward of a playout for the seat: 1 for a win, 1/k for a win shared
	 * by k, 0 otherwise, plus margin * clamp((own score - best other
	 * score) / margin_scale, -1, 1).  The margin term separates moves
	 * that win or lose by more; 0 turns it off.
	 */
	double margin;
	double margin_scale;	/* points that count as a clear margin (> 0) */
	/*
	 * A bonus to the mean reward of the move ops->bot_move would choose
	 * (0 = none): with few playouts per move the search only leaves the
	 * baseline's choice when another move is clearly better.
	 */
	double bot_bonus;
	int max_decisions;	/* a playout longer than this is scored a draw */
};

/* Fills p with the budget and policy that suit ops (chosen so that one
 * answer takes well under 1 s on one core). */
void search_defaults(const struct game_ops *ops, struct search_params *p);

/*
 * A move for seat from st (unchanged), by determinized Monte Carlo search.
 * Returns 0 with *out one of ops->moves(st, seat) (never a meta move such
 * as concede unless it is the only one), or -1 when seat has no move or
 * memory ran out.  When only one non-meta move exists it returns it at
 * once.  Ownership: allocates scratch internally and frees it before
 * returning.
 */
int search_move(const struct game_ops *ops, const void *st, int seat,
		const struct search_params *p, struct rng *rng, struct move *out);

#endif
