/*
 * privileges.c: phase 5 of a Fortuna turn and the privilege cards: the
 * deck and its reshuffle, the draw, the card kept (FS_KEEP), the Palace
 * draw of a seat that arrived, the turn's last chance to play (FS_END);
 * type A/B cards played in any decision of their owner's turn (FM_PRIV)
 * and the resource of choice they may open (FS_RESOURCE).
 *
 * Hands the turn's end to turn.c.
 */
#include "games/fortuna/fortuna_int.h"

static void palace_draw(struct fortuna_state *s, struct game_log *log);

/* ---- privilege deck ---- */

static int draw_priv(struct fortuna_state *s)
{
	int k, c;

	if (s->ndeck == 0) {
		/* "Cuando el mazo ... se agota, se barajan las cartas descartadas". */
		for (k = 0; k < FP_COUNT; k++)
			for (c = 0; c < s->discard[k]; c++)
				s->deck[s->ndeck++] = (uint8_t)k;
		memset(s->discard, 0, sizeof(s->discard));
		rng_shuffle(&s->rng, s->deck, s->ndeck, 1);
	}
	if (s->ndeck == 0)
		return -1;
	k = s->deck[--s->ndeck];
	s->deck[s->ndeck] = 0;	/* unused entries stay 0: states compare bytewise */
	return k;
}

static void log_drawn(struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	if (!log)
		return;
	for (i = 0; i < s->ndrawn; i++)
		buf_printf(&b, "%s%s", i ? ", " : "",
			   fortuna_privs[s->drawn[i]].name[log->loc]);
	game_logf(log, seat, L(log->loc, "You get: %s.", "Recibes: %s."), buf_str(&b));
	buf_release(&b);
}
/* The cards not kept go face up beside the deck: everybody reads them.
 * Public texts name privilege cards without the «» of the private ones
 * (cards.c), so a kind another seat holds stays a secret string. */
__attribute__((noinline, cold))
static void log_discards(const struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i < s->ndrawn; i++) {
		if (i)
			buf_addstr(&b, ", ");
		fortuna_priv_plain(s->drawn[i], log->loc, &b);
	}
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s discards face up: %s.",
				     "%s descarta boca arriba: %s."), NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

static void finish_keep(struct fortuna_state *s, struct game_log *log)
{
	int i, seat = me(s), src = s->keep_src;

	for (i = 0; i < s->ndrawn; i++) {
		if (src == FK_FAVOUR)
			s->discard[s->drawn[i]]++;
		else
			s->palace_cards[s->npalace++] = s->drawn[i];
	}
	if (src == FK_FAVOUR && s->ndrawn && log)
		log_discards(s, seat, log);
	s->ndrawn = 0;
	memset(s->drawn, 0, sizeof(s->drawn));
	s->keep_left = 0;
	if (s->palace_due) {
		palace_draw(s, log);
		return;
	}
	/* Type A/B cards may be played at any moment of the owner's turn, so
	 * one just kept may still be played before the turn ends (FS_END). */
	if (fortuna_priv_playable(s, seat)) {
		s->step = FS_END;
		return;
	}
	fortuna_end_turn(s, log);
}

static void keep_card(struct fortuna_state *s, int idx)
{
	s->p[me(s)].hand[s->drawn[idx]]++;
	s->drawn[idx] = s->drawn[--s->ndrawn];
	s->drawn[s->ndrawn] = 0;
	s->keep_left--;
}

/* Keeps automatically while there is no choice, else asks FS_KEEP. */
static void resolve_keep(struct fortuna_state *s, struct game_log *log)
{
	int i, same = 1;

	for (i = 1; i < s->ndrawn; i++)
		if (s->drawn[i] != s->drawn[0])
			same = 0;
	while (s->keep_left > 0 && s->ndrawn > 0 && (s->ndrawn <= s->keep_left || same))
		keep_card(s, 0);
	if (s->keep_left > 0 && s->ndrawn > 0) {
		s->step = FS_KEEP;
		return;
	}
	finish_keep(s, log);
}

static void draw_cards(struct fortuna_state *s, int n)
{
	int k;

	s->ndrawn = 0;
	while (s->ndrawn < n && (k = draw_priv(s)) >= 0)
		s->drawn[s->ndrawn++] = (uint8_t)k;
}

/* The extra privilege of reaching the Palace, at the end of the turn of
 * arrival: the first takes the 3 Palace tokens and the 3 top cards, keeps
 * one and leaves the others face down; each later arrival picks one of
 * those left (Basílica does not apply). */
static void palace_draw(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), i;

	if (!s->palace_due) {
		fortuna_end_turn(s, log);
		return;
	}
	s->palace_due = 0;
	s->keep_left = 1;
	if (s->p[seat].arrival == 1) {
		s->token_reserve = (uint8_t)(s->token_reserve + s->token_palace);
		s->token_palace = 0;
		draw_cards(s, 3);
		s->keep_src = FK_PALACE_FIRST;
	} else {
		s->ndrawn = 0;
		for (i = 0; i < s->npalace; i++)
			s->drawn[s->ndrawn++] = s->palace_cards[i];
		s->npalace = 0;
		memset(s->palace_cards, 0, sizeof(s->palace_cards));
		s->keep_src = FK_PALACE_LATER;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s takes %d privilege card(s) at the Palace and keeps one.",
				"%s toma %d carta(s) de privilegio en el Palacio y se queda una."),
	     NAME(log, seat), s->ndrawn);
	log_drawn(s, seat, log);
	resolve_keep(s, log);
}

/* Phase 5: the tokens won this turn become privilege cards. */
void fortuna_phase5(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), t = s->token_turn;

	if (t == 0) {
		/* the usual end of a turn, without the call palace_draw()
		 * would make only to find no draw due */
		if (s->palace_due)
			palace_draw(s, log);
		else
			fortuna_end_turn(s, log);
		return;
	}
	s->token_reserve = (uint8_t)(s->token_reserve + t);
	s->token_turn = 0;
	draw_cards(s, t);
	s->keep_left = (uint8_t)(t >= 2 && has_building(s, seat, FB_BASILICA) ? 2 : 1);
	s->keep_src = FK_FAVOUR;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s turns %d token(s) into %d privilege card(s).",
				"%s cambia %d ficha(s) por %d carta(s) de privilegio."),
	     NAME(log, seat), t, s->ndrawn);
	if (s->ndrawn)
		log_drawn(s, seat, log);
	resolve_keep(s, log);
}
int fortuna_priv_moves(const struct fortuna_state *s, int seat, struct move *v, int n)
{
	const uint8_t *hand = s->p[seat].hand;
	int k;

	if (!holds_ab(hand))
		return n;
	for (k = 0; k <= FP_STEP; k++) {
		if (!hand[k])
			continue;
		if (fortuna_privs[k].type == FPT_A ||
		    (fortuna_privs[k].type == FPT_B && !s->b_played))
			n = add(v, n, FM_PRIV, k, 0);
	}
	return n;
}
int fortuna_moves_keep(const struct fortuna_state *s, int seat, struct move_list *out)
{
	unsigned kinds = 0;
	int i, n = 0;

	/* each kind drawn once, in increasing order */
	_Static_assert(FP_COUNT <= 32, "a bit per privilege kind");
	for (i = 0; i < s->ndrawn && i < 3; i++)
		kinds |= s->drawn[i] < FP_COUNT ? 1u << s->drawn[i] : 0;
	for (; kinds; kinds &= kinds - 1)
		n = put(out->v, n, 1, FM_KEEP, __builtin_ctz(kinds), 0);
	return end_turn_list(s, seat, out, n);
}

int fortuna_moves_end(const struct fortuna_state *s, int seat, struct move_list *out)
{
	return end_turn_list(s, seat, out, put(out->v, 0, 1, FM_SKIP, 0, 0));
}

/* Not a step of the turn proper: it interrupts one (no type A/B cards). */
int fortuna_moves_resource(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int c, n = 0;

	for (c = 0; c < FR_COUNT; c++)
		n = put(out->v, n, 1, FM_CHOOSE, c, 0);
	return end_list(out, n);
}
static void play_priv(struct fortuna_state *s, int k, struct game_log *log)
{
	int seat = me(s);
	struct fortuna_player *p = &s->p[seat];

	p->hand[k]--;
	s->discard[k]++;
	if (log) {
		struct buf b = BUF_INIT;

		fortuna_priv_plain(k, log->loc, &b);
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s plays the privilege card %s.",
					     "%s juega la carta de privilegio %s."),
			  NAME(log, seat), buf_str(&b));
		buf_release(&b);
	}
	switch (k) {
	case FP_WATER_ANY:
	case FP_GRAIN_ANY:
	case FP_WINE_ANY:
		gain_resource(s, seat, k - FP_WATER_ANY, 1);
		s->res_ret = s->step;
		s->step = FS_RESOURCE;
		break;
	case FP_PRIESTESS:
		if (p->priest < 3)
			take(&p->priest, &s->sup_priest, 1);
		break;
	case FP_CENTURION:
		if (p->cent < 3)
			take(&p->cent, &s->sup_cent, 1);
		break;
	case FP_STEP:
		s->b_played = 1;
		advance(s, seat, 1, log);
		break;
	}
}
/* fortuna_priv_moves, after the step's moves */
static int priv_legal(const struct fortuna_state *s, int seat, struct move m)
{
	return in_turn(s->step) && m.a <= FP_STEP && !m.b && s->p[seat].hand[m.a] &&
	       (fortuna_privs[m.a].type == FPT_A ||
		(fortuna_privs[m.a].type == FPT_B && !s->b_played));
}
int fortuna_apply_keep(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err)
{
	enum locale loc = LOC(log);
	int i;

	if (m.kind != FM_KEEP || m.b || m.a >= FP_COUNT)
		return fortuna_refuse(s, seat, log, err);
	for (i = 0; i < s->ndrawn; i++)
		if (s->drawn[i] == m.a)
			break;
	if (i == s->ndrawn)
		return fortuna_refuse(s, seat, log, err);
	keep_card(s, i);
	LOGF(log, seat, L(loc, "You keep %s.", "Te quedas %s."), fortuna_privs[m.a].name[loc]);
	resolve_keep(s, log);
	return 0;
}

int fortuna_apply_end(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		      struct buf *err)
{
	if (!(m.kind == FM_SKIP && !m.a && !m.b))
		return fortuna_refuse(s, seat, log, err);
	/* A step played now may have reached the Palace: its draw closes
	 * the turn (palace_draw ends it when none is due). */
	palace_draw(s, log);
	return 0;
}

int fortuna_apply_resource(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			   struct buf *err)
{
	enum locale loc = LOC(log);

	if (!(m.kind == FM_CHOOSE && !m.b && m.a < FR_COUNT))
		return fortuna_refuse(s, seat, log, err);
	gain_resource(s, seat, m.a, 1);
	LOGF(log, LOG_PUBLIC, L(loc, "%s takes 1 %s.", "%s toma 1 de %s."), NAME(log, seat),
	     fortuna_resources[m.a].name[loc]);
	s->step = s->res_ret;
	fortuna_settle(s, log);		/* the card played may have been the last */
	return 0;
}
__attribute__((noinline))
int fortuna_apply_priv(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err)
{
	if (!priv_legal(s, seat, m))
		return fortuna_refuse(s, seat, log, err);
	play_priv(s, m.a, log);
	if (s->step != FS_RESOURCE)
		fortuna_settle(s, log);		/* the card played may have been the last */
	return 0;
}
