/*
 * ai.c: a heuristic Builders player (the baseline the search improves on).
 *
 * Each listed move gets a score from what it does for the seat's
 * buildings, and the best is played (ties broken with the caller's rng):
 *
 * - sending a unit is worth the resources it adds that a building still
 *   misses, much more when it completes the building (its coins and VP);
 *   paid actions are only worth it for a completion;
 * - starting a building is worth its VP and coins when the seat has few in
 *   progress, more when its team already makes what it needs;
 * - hiring is worth what the worker would add to the buildings in progress
 *   against its wage, while the team is small;
 * - sesterces are taken with the free actions left when nothing better is
 *   there, and always when the seat cannot pay its workers;
 * - a tool, then a slave, are bought when there is money to spare; a loan
 *   early when short of money (10 now, 15 or 2 VP later); slaves are freed
 *   (and loans repaid) at the end, when that gains points.
 *
 * Everything it reads is public (the decks' order is never looked at), and
 * it does not simulate draws, so it never learns a hidden card.
 */
#include <string.h>

#include "games/builders/builders.h"

#define NO_MOVE (-1e9)

/* Tuned by self-play against the search (bench_ai) and by how fast the
 * bot reaches 17 VP against itself. */
#ifndef SLAVES_WANTED
#define SLAVES_WANTED 3
#define SLAVE_BONUS 3.0
#define LOAN_BELOW 10
#define LOANS_WANTED 2
#define LOAN_ROUNDS 8
#define LOAN_SCORE 3.0
#define MACHINE_BONUS 10.0
#endif

struct view {
	const struct builders_state *s;
	int seat, free, money, inprog, team, ntools;
	uint8_t miss[BUILDERS_BUILDINGS][BR_COUNT];
	int need_sum[BR_COUNT];		/* what all buildings in progress still miss */
	int avail[BR_COUNT];		/* what the available units make */
	int uncovered[BR_COUNT];	/* need_sum the available units cannot cover */
	int cheap_wage;			/* the lowest wage of an available unit, -1 none */
	int any_send;			/* an available unit can add something somewhere */
	double rate;			/* worth of a missing resource, over all buildings */
	double mv;			/* what a sesterce is worth now: less when rich */
};

static int useful(const uint8_t res[BR_COUNT], const uint8_t miss[BR_COUNT])
{
	int r, n = 0;

	for (r = 0; r < BR_COUNT; r++)
		n += res[r] < miss[r] ? res[r] : miss[r];
	return n;
}

static int total(const uint8_t res[BR_COUNT])
{
	return res[0] + res[1] + res[2] + res[3];
}

/* A building's worth once completed, in sesterces (a VP ~ 4 s, a machine
 * also a free worker). */
static double building_worth(int b)
{
	const struct builders_building_info *bi = &builders_buildings[b];

	return bi->coins + bi->vp * 4.0 + (bi->makes ? 10.0 : 0.0);
}

/* What one more missing resource is worth to building b: what was spent
 * on it is spent, so what it still misses unlocks its whole worth. */
static double building_rate(const struct view *v, int b)
{
	return building_worth(b) / (total(v->miss[b]) + 1);
}

static void look(const struct builders_state *s, int seat, struct view *v)
{
	double worth = 0.0;
	int b, u, r, t, missing = 0;

	memset(v, 0, sizeof(*v));
	v->s = s;
	v->seat = seat;
	v->free = builders_free_left(s);
	v->money = s->p[seat].money;
	v->mv = v->money < 10 ? 1.3 : v->money < 25 ? 1.0 : 0.6;
	v->cheap_wage = -1;
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		if (s->bown[b] != seat || s->bplace[b] != BP_BUILDING)
			continue;
		builders_missing(s, b, v->miss[b]);
		for (r = 0; r < BR_COUNT; r++)
			v->need_sum[r] += v->miss[b][r];
		v->inprog++;
		worth += building_worth(b);
		missing += total(v->miss[b]);
	}
	v->rate = worth / (missing + 1);
	for (u = 0; u < BUILDERS_UNITS; u++) {
		if (s->uown[u] != seat)
			continue;
		v->team++;
		if (s->uat[u] == BUILDERS_NONE) {
			int w = builders_wage(s, u);

			if (v->cheap_wage < 0 || w < v->cheap_wage)
				v->cheap_wage = w;
			for (r = 0; r < BR_COUNT; r++)
				v->avail[r] += s->ures[u][r];
			for (b = 0; b < BUILDERS_BUILDINGS; b++)
				if (s->bown[b] == seat && s->bplace[b] == BP_BUILDING &&
				    useful(s->ures[u], v->miss[b]))
					v->any_send = 1;
		}
	}
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] == seat) {
			v->ntools++;
			if (s->tat[t] == BUILDERS_NONE)
				v->avail[t]++;
		}
	for (r = 0; r < BR_COUNT; r++)
		v->uncovered[r] = v->need_sum[r] > v->avail[r] ? v->need_sum[r] - v->avail[r] : 0;
}


static double score_send(const struct view *v, int u, int b, int tool)
{
	const struct builders_state *s = v->s;
	uint8_t add[BR_COUNT];
	int k = s->sent[b] + 1, paid = k > v->free ? k - v->free : 0, r, gain, done = 1;
	double sc;

	memcpy(add, s->ures[u], BR_COUNT);
	if (tool)
		add[tool - 1]++;
	gain = useful(add, v->miss[b]);
	for (r = 0; r < BR_COUNT; r++)
		done &= add[r] >= v->miss[b][r];
	if (!gain)
		return NO_MOVE;
	/* resources worth the building's rate; the wage, the paid actions
	 * and the free ones (each worth ~2 s: 3 of them take 6) paid */
	sc = gain * building_rate(v, b) - 0.5 * (total(add) - gain) -
	     v->mv * (builders_wage(s, u) + paid * BUILDERS_ACTION_PRICE + 2.0 * (k - paid));
	if (done)
		sc += 4.0;
	else if (paid)
		return NO_MOVE;	/* paid actions only to complete */
	if (tool)
		sc -= 0.5;	/* keep tools for where they are needed */
	return sc;
}

/* The best target of unit u (BS_SEND's choice), its score in *best. */
static struct move best_target(const struct view *v, int u, double *best)
{
	const struct builders_state *s = v->s;
	struct move m = { BM_TO, 0, 0, 0 };
	int b, t;

	*best = NO_MOVE;
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		if (s->bown[b] != v->seat || s->bplace[b] != BP_BUILDING)
			continue;
		if (builders_wage(s, u) + builders_action_money(s, s->sent[b] + 1) > v->money)
			continue;
		for (t = 0; t <= BUILDERS_TOOLS; t++) {
			double sc;

			if (t && !(s->town[t - 1] == v->seat && s->tat[t - 1] == BUILDERS_NONE &&
				   builders_can_equip(s, u)))
				continue;
			sc = score_send(v, u, b, t);
			if (sc > *best) {
				*best = sc;
				m.a = (uint16_t)b;
				m.b = (uint16_t)t;
			}
		}
	}
	return m;
}

static double score_start(const struct view *v, int b)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	int fit = 0, need = total(bi->need), r;

	if (v->free < 1 || v->inprog >= 3)
		return NO_MOVE;
	/* only with hands to spare: nothing in progress, available units with
	 * nothing to do, or money to pay for more work */
	if (v->inprog && v->any_send && (v->money < 20 || v->inprog >= 2))
		return NO_MOVE;
	for (r = 0; r < BR_COUNT; r++)
		fit += v->avail[r] < bi->need[r] ? v->avail[r] : bi->need[r];
	return 1.0 + building_worth(b) / (need + 1) * 2.0 + fit * 0.8 - (need - fit) * 0.3 -
	       v->inprog * 2.0 + (bi->makes ? MACHINE_BONUS : 0.0);
}

static double score_worker(const struct view *v, const uint8_t res[BR_COUNT], int wage)
{
	int r, cover = 0;

	for (r = 0; r < BR_COUNT; r++)
		cover += res[r] < v->uncovered[r] ? res[r] : v->uncovered[r];
	if (cover)
		return 1.0 + v->rate * cover * 0.7 - v->mv * (0.6 * wage + 2.0) - 0.4 * v->team;
	return -0.5 + 0.4 * total(res) - v->mv * (0.5 * wage + 2.0) - 0.6 * v->team;
}

static double score_hire(const struct view *v, int w)
{
	if (v->free < 1)
		return NO_MOVE;
	return score_worker(v, v->s->ures[w], builders_wage(v->s, w));
}

static double score_take(const struct view *v, int k)
{
	static const int gain[4] = { 0, 1, 3, 6 };

	/* the free actions left, when nothing better is there; first when
	 * the team's wages cannot be paid */
	if (k != v->free)
		return NO_MOVE;
	if (v->money < 8)
		return 1.5 + gain[k] * 0.5;
	return 0.1 * gain[k];
}

static double score_final(const struct view *v, struct move m)
{
	switch (m.kind) {
	case BM_FREE:
		return 2.0;	/* 5 s (0.5 point) for 1 point */
	case BM_REPAY:
		return 1.0;	/* 15 s (1.5 points) for 2 points */
	default:
		return 0.0;
	}
}

static double score_move(const struct view *v, struct move m)
{
	const struct builders_state *s = v->s;
	double sc;

	if (s->step == BS_FINAL)
		return score_final(v, m);
	switch (m.kind) {
	case BM_START:
		return score_start(v, m.a);
	case BM_HIRE:
		return score_hire(v, m.a);
	case BM_SEND:
		best_target(v, m.a, &sc);
		return sc;
	case BM_TO:
		return score_send(v, s->pend, m.a, m.b);
	case BM_TAKE:
		return score_take(v, m.a);
	case BM_TOOL:
		if (!m.a)	/* the investment of the turn: a tool first */
			return v->free >= 1 && v->ntools < 2 && v->money >= 12 && v->inprog ? 1.5 : NO_MOVE;
		return 1.0 + v->uncovered[m.a - 1] + 0.1 * v->need_sum[m.a - 1];
	case BM_ENSLAVE:
		if (!m.a) {
			int k, best = -100;

			/* a worker for good: 7 s once, no wage ever (freed at the
			 * end for 5 s, or -1 VP) */
			if (v->free < 1 || v->money < BUILDERS_SLAVE_PRICE + 2 ||
			    builders_enslaved(s, v->seat) >= SLAVES_WANTED || s->ending)
				return NO_MOVE;
			for (k = 0; k < BUILDERS_SLAVES; k++)
				if (s->uown[BU_SLAVE + k] == BUILDERS_NONE) {
					double w = score_worker(v, builders_slaves[k], 0);

					if (w > best)
						best = (int)w;
				}
			return best + SLAVE_BONUS;
		}
		return score_worker(v, builders_slaves[m.a - 1], 0);
	case BM_EDUCATE:
		if (!m.a)
			return v->free >= 1 && v->money >= 25 && !s->ending ? 1.0 : NO_MOVE;
		return 1.0 + v->uncovered[m.b] + 0.2 * v->need_sum[m.b] - s->ures[m.a - 1][m.b];
	case BM_LOAN:
		/* early money to hire and pay wages: 10 now for 15 later */
		return v->free >= 1 && v->money < LOAN_BELOW && s->p[v->seat].loans < LOANS_WANTED &&
		       s->round <= LOAN_ROUNDS && !s->ending ? LOAN_SCORE : NO_MOVE;
	case BM_FREE:
		/* an action that would go unused at the end of the game */
		return s->ending && v->free >= 1 ? 2.0 : NO_MOVE;
	case BM_REPAY:
		return NO_MOVE;	/* kept for the end: money works harder meanwhile */
	case BM_END:
		return 0.0;
	case BM_BACK:
		return -5.0;
	}
	return NO_MOVE;
}

int builders_bot_move(const void *st, int seat, struct rng *rng, struct move *out)
{
	const struct builders_state *s = st;
	struct move_list ml;
	struct view v;
	double best = -1e18;
	int i, nbest = 0;

	if (builders_moves(s, seat, &ml) == 0)
		return -1;
	*out = ml.v[0];
	if (ml.n == 1)
		return 0;
	look(s, seat, &v);
	for (i = 0; i < ml.n - ml.nmeta; i++) {
		double sc = score_move(&v, ml.v[i]);

		if (sc > best + 1e-9) {
			best = sc;
			nbest = 1;
			*out = ml.v[i];
		} else if (sc > best - 1e-9 && rng_below(rng, (uint32_t)++nbest) == 0) {
			*out = ml.v[i];
		}
	}
	return 0;
}
