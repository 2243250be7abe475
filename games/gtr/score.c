/*
 * score.c: the end of the game ("Fin de la partida") and final scoring
 * ("Puntuación y Ganador").
 *
 * The end: the deck running out, the last site in town taken and a
 * completed Catacumbas end the game at once (flow.c and roles.c only set
 * `ending`; over_now() in gtr_int.h calls gtr_finish here); a seat that
 * fulfils a Foro wins outright, checked after every move (ruling 15 in
 * gtr.c); when all other seats have conceded the last one wins (ruling
 * 3).
 *
 * Victory points: 1 per influence; the value of each vault card (its
 * material's value); 3 per merchant bonus (the seat with strictly the most
 * vault cards of a material; a tie gives nobody the bonus); Estatua +3;
 * Muralla +1 per 2 stockpile materials (rounded down).  The winner has the
 * most points; ties go to the most cards in hand, then are shared.  A game
 * won by a Foro or by concession has that one winner "sin necesidad de
 * contar los Puntos de Victoria"; the others are ranked by points after it.
 *
 * Owns GP_OVER, the end's log line and the result.  Must not: change a
 * finished game's cards (the final state is what the board and the result
 * show), or end a game anywhere but here (the other files set `ending`).
 */
#include "games/gtr/gtr_int.h"

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

/* ---- the end of the game ---- */

void gtr_finish(struct gtr_state *s, int reason, int winner, struct game_log *log)
{
	if (s->fount != GTR_NONE) {
		hand_in(&s->p[gtr_current(s)], s->fount);
		s->fount = GTR_NONE;
	}
	s->phase = GP_OVER;
	s->step = GS_OVER;
	s->end = (uint8_t)reason;
	s->winner = (uint8_t)winner;
	s->ending = 0;
	/* nothing of the interrupted turn goes on */
	s->nframes = s->npend = s->started = s->part = 0;
	memset(s->frames, 0, sizeof(s->frames));
	memset(s->pend, 0, sizeof(s->pend));
	gtr_legion_clear(s);
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->tgt_stair = 0;
	s->pet_role = GTR_NONE;
	s->pet_have = s->pet_need = 0;
	if (!log)
		return;
	switch (reason) {
	case GE_DECK:
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc, "The deck has run out: the game ends.",
						   "Se ha acabado el Mazo: fin de la partida."));
		break;
	case GE_SITES:
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc,
			  "The last site in town has been taken: the game ends.",
			  "Se ha ocupado el último Solar de la ciudad: fin de la partida."));
		break;
	case GE_CATACOMB:
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc,
			  "The Catacomb is complete: the game ends at once.",
			  "Las Catacumbas están terminadas: la partida acaba en el acto."));
		break;
	case GE_FORUM:
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s fulfils the Forum and wins!",
					     "¡%s cumple el Foro y gana la partida!"),
			  NAME(log, winner));
		break;
	case GE_CONCEDE:
		game_logf(log, LOG_PUBLIC, L(log->loc, "Everybody else conceded: %s wins!",
					     "Los demás se han rendido: ¡gana %s!"),
			  NAME(log, winner));
		break;
	}
}

/* over_now's Foro part: finishes the game when a seat fulfils a Foro. */
int gtr_forum_over(struct gtr_state *s, struct game_log *log)
{
	int i, n = s->nplayers, best = -1;

	for (i = 0; i < n; i++) {
		int seat = s->leader + i;

		if (seat >= n)	/* (leader + i) % n, leader < n */
			seat = seat - n < n ? seat - n : seat % n;
		if (!((fn_mask(s, seat) >> GC_FORUM) & 1) || !gtr_forum_met(s, seat))
			continue;
		if (best < 0 || gtr_score(s, seat) > gtr_score(s, best) ||
		    (gtr_score(s, seat) == gtr_score(s, best) &&
		     hand_size(&s->p[seat]) > hand_size(&s->p[best])))
			best = seat;
	}
	if (best >= 0) {
		gtr_finish(s, GE_FORUM, best, log);
		return 1;
	}
	return 0;
}

/* A concession: a meta decision, never part of a playout. */
void gtr_concede(struct gtr_state *s, int seat, struct game_log *log)
{
	enum locale loc = LOC(log);
	int left = 0, last = -1, i;

	s->p[seat].conceded = 1;
	LOGF(log, LOG_PUBLIC, L(loc, "%s concedes.", "%s se rinde."), NAME(log, seat));
	for (i = 0; i < s->nplayers; i++)
		if (!s->p[i].conceded) {
			left++;
			last = i;
		}
	if (left <= 1)
		gtr_finish(s, GE_CONCEDE, last >= 0 ? last : GTR_NONE, log);
}

/* ---- Foro ---- */

/* Clients of each role, with Ludus Magna's Merchants and Despensa's
 * anyone-as-Laborer, one client per role (rulebook: "Ese Cliente no puede
 * utilizarse como dos personajes a la vez").  Own-role clients first is
 * optimal: a flexible client covers whatever a fixed one would leave. */
static int clients_cover_all(const struct gtr_state *s, int seat)
{
	const struct gtr_player *p = &s->p[seat];
	int c[GR_COUNT], r, spare = 0, spare_m = 0, need = 0, lab_missing;
	int lm = gtr_has(s, seat, GC_LUDUS_MAGNA), store = gtr_has(s, seat, GC_STOREROOM);

	for (r = 0; r < GR_COUNT; r++)
		c[r] = count_of(p->clients, r);
	for (r = 0; r < GR_COUNT; r++)
		if (c[r] > 1)
			spare += c[r] - 1;
	if (lm && c[GR_MERCHANT] > 1)
		spare_m = c[GR_MERCHANT] - 1;
	for (r = 0; r < GR_COUNT; r++)
		if (c[r] == 0 && r != GR_LABORER)
			need++;
	if (need > spare_m)
		return 0;
	lab_missing = c[GR_LABORER] == 0;
	if (!lab_missing)
		return 1;
	/* the Laborer: a spare Merchant left over, or (Despensa) any spare
	 * client not used above (spare merchants used are among `spare`) */
	if (spare_m - need >= 1)
		return 1;
	return store && spare - need >= 1;
}

int gtr_forum_met(const struct gtr_state *s, int seat)
{
	int m;

	if (!gtr_has(s, seat, GC_FORUM))
		return 0;
	if (!clients_cover_all(s, seat))
		return 0;
	if (s->opts & GO_ORIGINAL_CIRCUS)
		return 1;
	for (m = 0; m < GM_COUNT; m++)
		if (!count_of(s->p[seat].stock, m))
			return 0;
	return 1;
}
