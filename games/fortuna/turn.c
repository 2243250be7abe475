/*
 * turn.c: the course of Fortuna's turns and rounds: a turn's start
 * (phase 1, Acueducto's water, automatic) and end, and the round's end
 * (tokens on the unused favour cards, favours face up, the turn order
 * set again, the game's end after the Palace).
 *
 * Hands each turn to phase 2 (actions.c).
 */
#include "games/fortuna/fortuna_int.h"

/* ---- turn flow ---- */

/* A type A card, or a type B card while none was played this turn. */
int fortuna_priv_playable(const struct fortuna_state *s, int seat)
{
	const uint8_t *hand = s->p[seat].hand;
	int k;

	for (k = 0; k <= FP_STEP; k++)
		if (hand[k] && (fortuna_privs[k].type == FPT_A || !s->b_played))
			return 1;
	return 0;
}

/* Resets what belongs to one turn. */
static void clear_turn(struct fortuna_state *s)
{
	_Static_assert(FV_PHASE2 == 0, "act_via is cleared with the other fields");
	/* chosen .. die are consecutive: one clear instead of a store each */
	memset(&s->chosen, 0, offsetof(struct fortuna_state, die) + 1 -
			      offsetof(struct fortuna_state, chosen));
	s->token_turn = 0;
	s->res_ret = FS_CHOOSE;
}

static void end_round(struct fortuna_state *s, struct game_log *log)
{
	int n = s->nplayers, prev = s->order[0], first = -1, side, c, i, j;
	uint8_t rest[FORTUNA_MAX_PLAYERS];
	int nrest = 0;

	if (s->ending || s->round >= FORTUNA_ROUND_CAP) {
		s->step = FS_OVER;
		s->turn = 0;
		clear_turn(s);
		LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
		return;
	}
	/* One token on every unused favour card, at most 3 a card, while the
	 * reserve lasts (cards in order 1..6). */
	for (c = 0; c < FF_COUNT; c++) {
		/* without branches: which cards were used is random */
		int give = (s->fav_up[c] != 0) & (s->fav_tokens[c] < FORTUNA_TOKEN_CAP) &
			   (s->token_reserve > 0);

		s->fav_tokens[c] = (uint8_t)(s->fav_tokens[c] + give);
		s->token_reserve = (uint8_t)(s->token_reserve - give);
		s->fav_up[c] = 1;
	}
	/* The Fortuna action card's holder leads; on an empty side it leads
	 * nobody, and the richest seat leads instead (docs: rulings). */
	side = find_card(s, FA_FORTUNA, NULL);
	if (side >= 0 && side < n) {
		first = side;
	} else {
		for (i = 0; i < n; i++) {
			int seat = prev + i;

			while (seat >= n)	/* (prev + i) % n without a division */
				seat -= n;
			if (first < 0 || s->p[seat].money > s->p[first].money)
				first = seat;
		}
	}
	/* Then by money, ties to the seat closer clockwise to the first. */
	for (i = 1; i < n; i++)
		rest[nrest++] = (uint8_t)(first + i < n ? first + i : first + i - n);
	for (i = 1; i < nrest; i++)
		for (j = i; j > 0 && s->p[rest[j]].money > s->p[rest[j - 1]].money; j--) {
			uint8_t t = rest[j];

			rest[j] = rest[j - 1];
			rest[j - 1] = t;
		}
	s->order[0] = (uint8_t)first;
	memcpy(s->order + 1, rest, (size_t)nrest);
	s->round++;
	s->turn = 0;
	if (log) {
		struct buf b = BUF_INIT;

		for (i = 0; i < n; i++)
			buf_printf(&b, "%s%d. %s", i ? ", " : "", i + 1, NAME(log, s->order[i]));
		game_logf(log, LOG_PUBLIC, L(log->loc, "Round %d. Turn order: %s.",
					     "Ronda %d. Orden de turno: %s."),
			  s->round, buf_str(&b));
		buf_release(&b);
	}
	fortuna_start_turn(s, log);
}

void fortuna_end_turn(struct fortuna_state *s, struct game_log *log)
{
	if (++s->turn >= s->nplayers) {
		end_round(s, log);
		return;
	}
	fortuna_start_turn(s, log);
}

/* See fortuna_log_advance(). */
__attribute__((noinline, cold))
static void log_turn(struct game_log *log, int seat, int filled)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s's turn.", "Turno de %s."), NAME(log, seat));
	if (filled)
		game_logf(log, LOG_PUBLIC, L(loc, "%s's Aqueduct fills with water.",
					     "El Acueducto de %s se llena de agua."), NAME(log, seat));
}

void fortuna_start_turn(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), u, filled;
	struct fortuna_player *p = &s->p[seat];

	clear_turn(s);
	/* Phase 1: an Acueducto built in an earlier round refills when empty. */
	filled = has_building(s, seat, FB_AQUEDUCT) && p->aq_round < s->round &&
		 p->aq_water == 0 && take(&p->aq_water, &s->sup_water, 1);
	if (log)
		log_turn(log, seat, filled);
	/* Phase 2 begins: the reserved card turns face up. */
	for (u = 0; u < FORTUNA_SLOTS; u++)
		s->side_down[seat][u] = 0;
	s->step = FS_CHOOSE;
}
