/*
 * score.c: final scoring ("Puntuación y Ganador").
 *
 * Victory points: 1 per influence; the value of each vault card (its
 * material's value); 3 per merchant bonus (the seat with strictly the most
 * vault cards of a material; a tie gives nobody the bonus); Estatua +3;
 * Muralla +1 per 2 stockpile materials (rounded down).  The winner has the
 * most points; ties go to the most cards in hand, then are shared.  A game
 * won by a Foro or by concession has that one winner "sin necesidad de
 * contar los Puntos de Victoria"; the others are ranked by points after it.
 */
#include <string.h>

#include "games/gtr/gtr.h"

int gtr_merchant_bonus(const struct gtr_state *s, int m)
{
	int i, best = -1, bestn = 0, tie = 0;

	for (i = 0; i < s->nplayers; i++) {
		int k = gtr_count(s->p[i].vault, m);

		if (k > bestn) {
			best = i;
			bestn = k;
			tie = 0;
		} else if (k == bestn && k > 0) {
			tie = 1;
		}
	}
	return tie ? -1 : best;
}

int gtr_score(const struct gtr_state *s, int seat)
{
	const struct gtr_player *p = &s->p[seat];
	int m, v = gtr_influence(s, seat);

	for (m = 0; m < GM_COUNT; m++) {
		v += gtr_count(p->vault, m) * gtr_value[m];
		if (gtr_merchant_bonus(s, m) == seat)
			v += 3;
	}
	if (gtr_has(s, seat, GC_STATUE))
		v += 3;
	if (gtr_has(s, seat, GC_WALL))
		v += gtr_total(p->stock, GC_COUNT) / 2;
	return v;
}

int gtr_result(const void *st, struct game_result *out)
{
	const struct gtr_state *s = st;
	int n = s->nplayers, i, j, forced;

	if (s->step != GS_OVER)
		return 0;
	memset(out, 0, sizeof(*out));
	out->nseats = n;
	forced = (s->end == GE_FORUM || s->end == GE_CONCEDE) && s->winner < n;
	for (i = 0; i < n; i++) {
		out->score[i] = gtr_score(s, i);
		out->eligible[i] = 1;
	}
	for (i = 0; i < n; i++) {
		int rank = 1;

		if (forced && i == s->winner) {
			out->rank[i] = 1;
			continue;
		}
		if (forced)
			rank++;
		for (j = 0; j < n; j++) {
			if (j == i || (forced && j == s->winner))
				continue;
			if (out->score[j] > out->score[i] ||
			    (out->score[j] == out->score[i] &&
			     gtr_hand_size(s, j) > gtr_hand_size(s, i)))
				rank++;
		}
		out->rank[i] = rank;
	}
	for (i = 0; i < n; i++)
		if (out->rank[i] == 1)
			out->winners |= 1u << i;
	return 1;
}
