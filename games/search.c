/*
 * search.c: determinized Monte Carlo search over struct game_ops
 * (docs/games/search.md).
 *
 * The root's legal moves are compared by playouts to the end of the game.
 * Each sample draws one determinization of the state (ops->determinize:
 * the hidden cards re-dealt, the game's rng re-seeded) and one playout
 * seed, and plays every move still in the race from that same sample
 * (common random numbers): the moves are compared on the same deal, which
 * removes most of the luck from the differences between them.  Sequential
 * halving spends the budget: a few rounds, each giving every surviving
 * move the same number of samples, then dropping the worse half, so the
 * close contenders get most of the playouts.  The baseline's own choice
 * gets a small bonus and survives every halving until the last, so the
 * search leaves it only for a move that did clearly better.
 *
 * A turn is several decisions of the same seat; the seat's own later
 * decisions inside a playout are taken by the playout policy (the baseline
 * bot by default), so a move is valued by what the baseline would make of
 * it, and the search improves on the baseline one decision at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "games/search.h"

/* One root move in the race. */
struct arm {
	int idx;		/* into the root move list */
	double sum;		/* rewards */
	int n;			/* samples */
	double bonus;		/* bot_bonus for the baseline's choice */
};

struct scratch {
	void *det;		/* one determinization of the root */
	void *play;		/* the playout state */
	struct move_list ml;	/* root moves */
	struct move_list pl;	/* playout moves (random policy) */
	struct buf err;		/* apply's complaints, unread */
	struct arm arms[MOVE_LIST_MAX];
};

void search_defaults(const struct game_ops *ops, struct search_params *p)
{
	memset(p, 0, sizeof(*p));
	p->policy = SEARCH_POLICY_BOT;
	p->margin = 0.3;
	p->margin_scale = 10.0;
	p->bot_bonus = 0.05;
	p->max_decisions = 20000;
	/* each game's budget is its own (game_ops.search_iterations,
	 * docs/games/search.md): a few tens of milliseconds an answer, and
	 * `make bench` stays short */
	p->iterations = ops->search_iterations > 0 ? ops->search_iterations
						  : SEARCH_ITERATIONS_DEFAULT;
	/* scores in tenths of a point (game_ops.score_decimals): the margin
	 * is still ~10 points */
	for (int d = 0; d < ops->score_decimals && d < 3; d++)
		p->margin_scale *= 10.0;
}

static int first_seat(unsigned aw)
{
	int seat = 0;

	while (!(aw & (1u << seat)))
		seat++;
	return seat;
}

static double reward(const struct game_ops *ops, const void *st, int seat,
		     const struct search_params *p)
{
	struct game_result r;
	double v = 0.0, d;
	int i, best = 0, any = 0, k = 0;

	memset(&r, 0, sizeof(r));
	if (!ops->result(st, &r))
		return 0.0;
	if (r.winners & (1u << seat)) {
		for (i = 0; i < r.nseats; i++)
			k += (r.winners >> i) & 1;
		v = 1.0 / k;
	}
	if (p->margin > 0.0 && p->margin_scale > 0.0) {
		for (i = 0; i < r.nseats; i++)
			if (i != seat && (!any || r.score[i] > best)) {
				best = r.score[i];
				any = 1;
			}
		d = (r.score[seat] - best) / p->margin_scale;
		if (d > 1.0)
			d = 1.0;
		if (d < -1.0)
			d = -1.0;
		v += p->margin * d;
	}
	return v;
}

/* Plays st to the end with the policy; returns the seat's reward, or 0
 * when the playout is cut (a game that does not end is nobody's win). */
static double playout(const struct game_ops *ops, void *st, int seat,
		      const struct search_params *p, struct rng *rng,
		      struct move_list *ml, struct buf *err)
{
	int d;

	for (d = 0;; d++) {
		unsigned aw = ops->awaiting(st);
		struct move m;
		int s;

		if (!aw)
			return reward(ops, st, seat, p);
		if (d >= p->max_decisions)
			break;
		s = first_seat(aw);
		if (p->policy == SEARCH_POLICY_BOT) {
			if (ops->bot_move(st, s, rng, &m))
				break;
		} else {
			int k = ops->moves(st, s, ml) - ml->nmeta;

			if (k <= 0)
				break;
			m = ml->v[rng_below(rng, (uint32_t)k)];
		}
		if (ops->apply(st, s, m, NULL, err))
			break;
	}
	return 0.0;
}

/* A game without a determinize op is searched on its true state: only
 * right for games without hidden information. */
static void sample(const struct game_ops *ops, const void *st, int seat,
		   struct rng *rng, void *det)
{
	memcpy(det, st, ops->state_size);
	if (ops->determinize)
		ops->determinize(det, seat, rng);
}

static double mean(const struct arm *a)
{
	return (a->n ? a->sum / a->n : 0.0) + a->bonus;
}

/* Best first; equal means keep the move list's order, so that the result
 * depends on nothing but the samples. */
static int arm_cmp(const void *x, const void *y)
{
	const struct arm *a = x, *b = y;
	double ma = mean(a), mb = mean(b);

	if (ma != mb)
		return ma > mb ? -1 : 1;
	return a->idx - b->idx;
}

/*
 * Keeps the baseline's move (the arm with a bonus) among the `alive` best
 * until the final comparison: a round of one or two samples a move can
 * drop it by bad luck alone, and then the search plays worse than the
 * baseline it improves on.  It takes the place of the weakest survivor.
 */
static void protect(struct arm *arms, int alive, int was)
{
	int i;

	if (alive < 2)
		return;
	for (i = alive; i < was; i++)
		if (arms[i].bonus > 0.0) {
			struct arm t = arms[alive - 1];

			arms[alive - 1] = arms[i];
			arms[i] = t;
			return;
		}
}

static void scratch_free(struct scratch *w)
{
	buf_release(&w->err);
	free(w->det);
	free(w->play);
	free(w);
}

int search_move(const struct game_ops *ops, const void *st, int seat,
		const struct search_params *p, struct rng *rng, struct move *out)
{
	struct scratch *w;
	int k, alive, rounds, per_round, i, j;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	buf_init(&w->err, 0);
	ops->moves(st, seat, &w->ml);
	k = w->ml.n - w->ml.nmeta;
	if (w->ml.n == 0 || k <= 1) {
		/* nothing to search: no move, one move, or only meta moves */
		int r = w->ml.n ? 0 : -1;

		if (w->ml.n)
			*out = w->ml.v[0];
		scratch_free(w);
		return r;
	}
	w->det = malloc(ops->state_size);
	w->play = malloc(ops->state_size);
	if (!w->det || !w->play) {
		scratch_free(w);
		return -1;
	}
	for (i = 0; i < k; i++) {
		w->arms[i].idx = i;
		w->arms[i].sum = 0.0;
		w->arms[i].n = 0;
		w->arms[i].bonus = 0.0;
	}
	if (p->bot_bonus > 0.0) {
		struct move bm;

		/* Asked on a sample, not on st: the baseline may look at what
		 * the state holds, and the search must not depend on it. */
		sample(ops, st, seat, rng, w->det);
		if (!ops->bot_move(w->det, seat, rng, &bm))
			for (i = 0; i < k; i++)
				if (!memcmp(&w->ml.v[i], &bm, sizeof(bm)))
					w->arms[i].bonus = p->bot_bonus;
	}

	for (rounds = 0, i = 1; i < k; i *= 2)
		rounds++;
	per_round = p->iterations / rounds;
	alive = k;
	while (alive > 1) {
		int per = per_round / alive;

		if (per < 1)
			per = 1;
		for (j = 0; j < per; j++) {
			uint64_t hi, lo, stream;

			sample(ops, st, seat, rng, w->det);
			hi = rng_next(rng);
			lo = rng_next(rng);
			stream = rng_next(rng);
			for (i = 0; i < alive; i++) {
				struct arm *a = &w->arms[i];
				struct rng pr;

				memcpy(w->play, w->det, ops->state_size);
				if (ops->apply(w->play, seat, w->ml.v[a->idx], NULL, &w->err))
					continue;
				rng_seed(&pr, hi << 32 | lo, stream);
				a->sum += playout(ops, w->play, seat, p, &pr, &w->pl, &w->err);
				a->n++;
			}
		}
		qsort(w->arms, (size_t)alive, sizeof(w->arms[0]), arm_cmp);
		protect(w->arms, (alive + 1) / 2, alive);
		alive = (alive + 1) / 2;
	}
	*out = w->ml.v[w->arms[0].idx];
	scratch_free(w);
	return 0;
}
