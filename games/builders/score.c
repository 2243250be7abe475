/*
 * score.c: The Builders: Antiquity's final scoring.
 *
 * "Cada jugador ... añade los puntos de victoria de los Edificios y
 * Máquinas acabadas, suman una décima de un punto (0,1) por cada Sestercio
 * todavía en su posesión"; each slave not freed costs 1 VP and each loan
 * not repaid 2.  Scores are kept in tenths so that they stay integers
 * (game_ops.score_decimals = 1).  "En caso de empate, todos los jugadores
 * empatados se declaran ganadores": no tie-break.
 */
#include <string.h>

#include "games/builders/builders.h"

int builders_score(const struct builders_state *s, int seat)
{
	const struct builders_player *p = &s->p[seat];

	return 10 * p->vp + p->money - 10 * BUILDERS_SLAVE_PENALTY * builders_enslaved(s, seat) -
	       10 * BUILDERS_LOAN_PENALTY * p->loans;
}

int builders_result(const void *st, struct game_result *out)
{
	const struct builders_state *s = st;
	int i, j, best = 0;

	memset(out, 0, sizeof(*out));
	if (s->step != BS_OVER)
		return 0;
	out->nseats = s->nplayers;
	for (i = 0; i < s->nplayers; i++) {
		out->score[i] = builders_score(s, i);
		out->eligible[i] = 1;
		if (i == 0 || out->score[i] > best)
			best = out->score[i];
	}
	for (i = 0; i < s->nplayers; i++) {
		out->rank[i] = 1;
		for (j = 0; j < s->nplayers; j++)
			if (out->score[j] > out->score[i])
				out->rank[i]++;
		if (out->score[i] == best)
			out->winners |= 1u << i;
	}
	return 1;
}
