/*
 * score.c: final scoring.  Score = steps (at most 15) + privilege points;
 * only seats inside Rome (10 steps or more) may win; ties go to more steps,
 * then money, Centuriones, Sacerdotisas, and are shared after that.
 *
 * Type C privilege cards count units the player holds at the end.  A unit
 * of a resource is delivered to one card only, and the units are assigned
 * to the cards so that the player scores the most (guide/rulings.md).  With
 * the reconstructed deck every card of a resource pays the same per unit,
 * but the assignment is solved exactly (a small knapsack per resource) so
 * that printed cards with caps or different rates can replace the
 * reconstruction.  Buildings are not delivered: each building card counts
 * the buildings on its own (docs/games/fortuna.md).
 */
#include <string.h>

#include "games/fortuna/fortuna.h"

int fortuna_priv_value(int kind, int units)
{
	const struct fortuna_priv_info *pi;

	if (kind < 0 || kind >= FP_COUNT)
		return 0;
	pi = &fortuna_privs[kind];
	if (pi->type != FPT_C || pi->per == 0 || units <= 0)
		return 0;
	if (pi->cap && units > pi->cap)
		units = pi->cap;
	return pi->vp * (units / pi->per);
}

static int units_of(const struct fortuna_state *s, int seat, int unit)
{
	const struct fortuna_player *p = &s->p[seat];
	int b, n = 0;

	switch (unit) {
	case FU_WATER:
		return p->water + p->aq_water;
	case FU_GRAIN:
		return p->grain;
	case FU_WINE:
		return p->wine;
	case FU_CENTURION:
		return p->cent;
	case FU_PRIESTESS:
		return p->priest;
	case FU_COINS:
		return p->money;
	case FU_BUILDING:
		for (b = 0; b < FB_COUNT; b++)
			n += (p->buildings >> b) & 1;
		return n;
	}
	return 0;
}

/* Best points from `units` units shared among the seat's cards of `unit`
 * (two or more of them: see fortuna_priv_points). */
static int best_assignment(const struct fortuna_state *s, int seat, int unit, int units)
{
	int best[FORTUNA_MONEY_MAX + 1], next[FORTUNA_MONEY_MAX + 1], val[FORTUNA_MONEY_MAX + 1];
	int k, c, x, y;

	memset(best, 0, sizeof(best));
	for (k = 0; k < FP_COUNT; k++) {
		if (fortuna_privs[k].type != FPT_C || fortuna_privs[k].unit != unit ||
		    !s->p[seat].hand[k])
			continue;
		for (y = 0; y <= units; y++)
			val[y] = fortuna_priv_value(k, y);
		for (c = 0; c < s->p[seat].hand[k]; c++) {
			/* next[x]: best with x units over the cards so far plus this one */
			for (x = 0; x <= units; x++) {
				next[x] = best[x];
				for (y = 1; y <= x; y++) {
					int v = best[x - y] + val[y];

					if (v > next[x])
						next[x] = v;
				}
			}
			memcpy(best, next, sizeof(best));
		}
	}
	return best[units];
}

/*
 * The AI scores every position it tries with this, so the cards held are
 * counted per unit in one pass first: most units have no card, or one,
 * which takes every unit (a card's value never drops with more units);
 * only two or more cards of a unit need the knapsack.
 */
int fortuna_priv_points(const struct fortuna_state *s, int seat)
{
	const uint8_t *hand = s->p[seat].hand;
	int count[FU_COUNT] = { 0 }, last[FU_COUNT] = { 0 };
	int u, k, units, pts = 0;

	for (k = 0; k < FP_COUNT; k++)
		if (hand[k] && fortuna_privs[k].type == FPT_C && fortuna_privs[k].unit < FU_COUNT) {
			count[fortuna_privs[k].unit] += hand[k];
			last[fortuna_privs[k].unit] = k;
		}
	for (u = FU_WATER; u < FU_COUNT; u++) {
		if (u == FU_BUILDING || !count[u])
			continue;
		units = units_of(s, seat, u);
		if (units > FORTUNA_MONEY_MAX)
			units = FORTUNA_MONEY_MAX;
		pts += count[u] == 1 ? fortuna_priv_value(last[u], units) :
				       best_assignment(s, seat, u, units);
	}
	/* Buildings are not delivered: each card counts them on its own. */
	if (count[FU_BUILDING])
		for (k = 0; k < FP_COUNT; k++)
			if (fortuna_privs[k].type == FPT_C && fortuna_privs[k].unit == FU_BUILDING)
				pts += hand[k] * fortuna_priv_value(k, units_of(s, seat, FU_BUILDING));
	return pts;
}

/* >0 when seat a ranks before seat b. */
static int compare(const struct fortuna_state *s, const int *score, int a, int b)
{
	const struct fortuna_player *pa = &s->p[a], *pb = &s->p[b];
	int ea = pa->steps >= FORTUNA_ROME, eb = pb->steps >= FORTUNA_ROME;

	if (ea != eb)
		return ea - eb;
	if (score[a] != score[b])
		return score[a] - score[b];
	if (pa->steps != pb->steps)
		return pa->steps - pb->steps;
	if (pa->money != pb->money)
		return pa->money - pb->money;
	if (pa->cent != pb->cent)
		return pa->cent - pb->cent;
	return pa->priest - pb->priest;
}

int fortuna_result(const void *st, struct game_result *out)
{
	const struct fortuna_state *s = st;
	int i, j, n = s->nplayers;

	if (s->step != FS_OVER)
		return 0;
	memset(out, 0, sizeof(*out));
	out->nseats = n;
	for (i = 0; i < n; i++) {
		out->eligible[i] = s->p[i].steps >= FORTUNA_ROME;
		/* "todos los jugadores que estén dentro de Roma contabilizan los
		 * puntos obtenidos con sus cartas de privilegio": only they. */
		out->score[i] = s->p[i].steps + (out->eligible[i] ? fortuna_priv_points(s, i) : 0);
	}
	for (i = 0; i < n; i++) {
		out->rank[i] = 1;
		for (j = 0; j < n; j++)
			if (j != i && compare(s, out->score, j, i) > 0)
				out->rank[i]++;
		if (out->rank[i] == 1 && out->eligible[i])
			out->winners |= 1u << i;
	}
	return 1;
}
