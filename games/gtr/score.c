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

/* The seat with strictly the most vault cards of material m (vault[seat]
 * holds its counts), or -1: a tie, or nobody. */
static int bonus_of(int n, int (*vault)[GM_COUNT], int m)
{
	int i, best = -1, bestn = 0, tie = 0;

	for (i = 0; i < n; i++) {
		int k = vault[i][m];

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

int gtr_merchant_bonus(const struct gtr_state *s, int m)
{
	int vault[GTR_MAX_PLAYERS][GM_COUNT];
	int i;

	for (i = 0; i < s->nplayers; i++)
		gtr_counts(s->p[i].vault, vault[i]);
	return bonus_of(s->nplayers, vault, m);
}

/* Seat's points but the merchant bonuses, from its vault counts (the
 * cached influence and functions read directly: the AI asks every seat's
 * score at each decision). */
static int score_base(const struct gtr_state *s, int seat, const int *vault)
{
	const struct gtr_player *p = &s->p[seat];
	int m, v = p->influence;

	for (m = 0; m < GM_COUNT; m++)
		v += vault[m] * gtr_value[m];
	if ((p->fn >> GC_STATUE) & 1)
		v += 3;
	if ((p->fn >> GC_WALL) & 1)
		v += gtr_total(p->stock, GC_COUNT) / 2;
	return v;
}

void gtr_scores(const struct gtr_state *s, int *out)
{
	int vault[GTR_MAX_PLAYERS][GM_COUNT];
	int n = s->nplayers, i, m;

	/* each vault counted once (the AI asks every seat's score at each
	 * decision) */
	for (i = 0; i < n; i++)
		gtr_counts(s->p[i].vault, vault[i]);
	for (i = 0; i < n; i++)
		out[i] = score_base(s, i, vault[i]);
	for (m = 0; m < GM_COUNT; m++) {
		int b = bonus_of(n, vault, m);

		if (b >= 0)
			out[b] += 3;
	}
}

int gtr_score(const struct gtr_state *s, int seat)
{
	int score[GTR_MAX_PLAYERS];

	gtr_scores(s, score);
	return score[seat];
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
	gtr_scores(s, out->score);
	for (i = 0; i < n; i++)
		out->eligible[i] = 1;
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
