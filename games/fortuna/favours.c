/*
 * favours.c: phase 4 of a Fortuna turn: the roll (automatic), the die
 * chosen (FS_DIE), the favour delivered or the tax paid (FS_FAVOUR), and
 * with 2 players the flip for the first player (FS_FLIP); their moves,
 * legality and apply.
 *
 * Hands over to phase 5 (privileges.c).
 */
#include "games/fortuna/fortuna_int.h"

static int flip_possible(const struct fortuna_state *s)
{
	int c;

	for (c = 0; c < FF_COUNT; c++)
		if (s->fav_up[c] && s->fav_tokens[c] == 0)
			return 1;
	return 0;
}

static void after_phase4(struct fortuna_state *s, struct game_log *log)
{
	/* 2 players: the first player only may flip one more card. */
	if (s->nplayers == 2 && s->turn == 0 && flip_possible(s)) {
		s->step = FS_FLIP;
		return;
	}
	fortuna_phase5(s, log);
}

static int favour_available(const struct fortuna_state *s)
{
	return fav_avail(s) != 0;
}

/* See fortuna_log_advance(). */
__attribute__((noinline, cold))
static void log_roll(const struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i < s->nroll; i++)
		buf_printf(&b, "%s%d", i ? " " : "", s->roll[i]);
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s rolls %s.", "%s lanza %s."),
		  NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

void fortuna_roll_dice(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), before = s->nroll;
	int n = before, dice = min_int(s->p[seat].dice, 3);
	struct rng r = s->rng;

	/* Dice gained after a Familia roll are rolled now: each die once.
	 * (In locals: a store to the uint8_t fields may alias anything, so
	 * the compiler would reload the generator after each.) */
	while (n < dice)
		s->roll[n++] = (uint8_t)(1 + rng_below(&r, 6));
	s->rng = r;
	s->nroll = (uint8_t)n;
	s->rolled = 1;
	if (before == s->nroll && before > 0)
		return;		/* the Familia roll stands, already shown */
	s->last_seat = (uint8_t)seat;
	s->last_nroll = s->nroll;
	memcpy(s->last_roll, s->roll, sizeof(s->roll));
	s->last_die = 0;
	if (log)
		log_roll(s, seat, log);
}

void fortuna_start_phase4(struct fortuna_state *s, struct game_log *log)
{
	unsigned r;

	fortuna_roll_dice(s, log);
	s->step = FS_DIE;
	if (!hand_empty(s->p[me(s)].hand))
		return;
	r = rolled_values(s);
	if (!(r & (r - 1)))
		fortuna_settle(s, log);		/* a single value: used at once */
}
static int favour_moves(const struct fortuna_state *s, int seat, struct move *v, int n)
{
	const struct fortuna_player *p = &s->p[seat];
	/* More units than steps left to the Palace would be wasted. */
	int lim = FORTUNA_PALACE - p->steps > 1 ? FORTUNA_PALACE - p->steps : 1;
	unsigned avail = fav_avail(s);
	int k;
	/* The cards in order 1..6.  Each card's moves are a prefix of a fixed
	 * sequence (1, 2, 3 units): all of it is written, the prefix counted,
	 * without a branch (counts masked rather than chosen). */
	int water = (int)(avail >> FF_WATER & 1) & (fortuna_water(s, seat) >= 1);
	int wine = min_int(min_int(2, p->wine), lim) & -(int)(avail >> FF_WINE & 1);
	int grain = min_int(min_int(2, p->grain), lim) & -(int)(avail >> FF_GRAIN & 1);
	int battle = min_int(p->cent, lim) & -(int)(avail >> FF_BATTLE & 1);
	int fortuna = (int)(avail >> FF_FORTUNA & 1) & (p->married != 0);
	int religion = (int)(avail >> FF_RELIGION & 1) & (p->priest > 0);

	n = put(v, n, water, FM_DELIVER, FF_WATER, 1);
	put(v, n, 0, FM_DELIVER, FF_WINE, 1);
	put(v, n + 1, 0, FM_DELIVER, FF_WINE, 2);
	n += wine;
	put(v, n, 0, FM_DELIVER, FF_GRAIN, 1);
	put(v, n + 1, 0, FM_DELIVER, FF_GRAIN, 2);
	n += grain;
	put(v, n, 0, FM_DELIVER, FF_BATTLE, 1);
	put(v, n + 1, 0, FM_DELIVER, FF_BATTLE, 2);
	put(v, n + 2, 0, FM_DELIVER, FF_BATTLE, 3);
	n += min_int(battle, 3);
	for (k = 4; k <= battle; k++)	/* more than 3 Centuriones: test positions */
		n = add(v, n, FM_DELIVER, FF_BATTLE, k);
	n = put(v, n, fortuna, FM_FAVOUR, FF_FORTUNA, 0);
	n = put(v, n, religion, FM_FAVOUR, FF_RELIGION, 0);
	/* Delivering for cards 1-4 is voluntary; 5 and 6 ask for nothing, so
	 * a seat that can advance with them does not refuse the Emperor. */
	return put(v, n, !(fortuna | religion), FM_TAX, 0, 0);
}
int fortuna_moves_die(const struct fortuna_state *s, int seat, struct move_list *out)
{
	/* each value rolled once, in increasing order */
	unsigned ok = rolled_values(s);
	struct move *v = out->v;
	int i, n = 0;

#pragma GCC unroll 6
	for (i = 1; i <= 6; i++)
		n = put(v, n, (ok >> i) & 1, FM_DIE, i, 0);
	return end_turn_list(s, seat, out, n);
}

int fortuna_moves_favour(const struct fortuna_state *s, int seat, struct move_list *out)
{
	return end_turn_list(s, seat, out, favour_moves(s, seat, out->v, 0));
}

int fortuna_moves_flip(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int c, n = 0;

	for (c = 0; c < FF_COUNT; c++)
		n = put(out->v, n, s->fav_up[c] && s->fav_tokens[c] == 0, FM_FLIP, c, 0);
	n = put(out->v, n, 1, FM_SKIP, 0, 0);
	return end_turn_list(s, seat, out, n);
}
static void deliver(struct fortuna_state *s, int c, int n, struct game_log *log)
{
	int seat = me(s), adv = n, before;
	struct fortuna_player *p = &s->p[seat];

	switch (c) {
	case FF_WATER:
		spend_water(s, seat, 1);
		adv = 1;
		break;
	case FF_WINE:
		p->wine = (uint8_t)(p->wine - n);
		s->sup_wine = (uint8_t)(s->sup_wine + n);
		break;
	case FF_GRAIN:
		p->grain = (uint8_t)(p->grain - n);
		s->sup_grain = (uint8_t)(s->sup_grain + n);
		break;
	case FF_BATTLE:
		p->cent = (uint8_t)(p->cent - n);
		s->sup_cent = (uint8_t)(s->sup_cent + n);
		break;
	case FF_FORTUNA:
		adv = 1 + has_building(s, seat, FB_PALACE);
		break;
	case FF_RELIGION:
		adv = p->priest;
		break;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s gains the favour %d %s.", "%s obtiene el favor %d %s."),
	     NAME(log, seat), c + 1, fortuna_favours[c].name[LOC(log)]);
	before = p->steps;
	advance(s, seat, adv, log);
	/* "Sólo si un jugador ha avanzado hacia Roma debe voltear la carta":
	 * a seat already on the Palace satisfies the Emperor (no tax) but
	 * moves no step, so the card stays face up with its tokens. */
	if (p->steps == before) {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot advance further: the favour card stays face up.",
					"%s no puede avanzar más: la carta de favor sigue boca arriba."),
		     NAME(log, seat));
		after_phase4(s, log);
		return;
	}
	/* The card used turns face down; its tokens go to the seat. */
	s->fav_up[c] = 0;
	s->token_turn = (uint8_t)(s->token_turn + s->fav_tokens[c]);
	if (s->fav_tokens[c])
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s wins %d privilege token(s).",
					"%s gana %d ficha(s) de privilegio."),
		     NAME(log, seat), s->fav_tokens[c]);
	s->fav_tokens[c] = 0;
	after_phase4(s, log);
}

static void pay_tax(struct fortuna_state *s, struct game_log *log)
{
	struct fortuna_player *p = &s->p[me(s)];

	if (p->money > 0) {
		p->money--;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s pays 1 coin of taxes.",
					"%s paga 1 moneda de impuestos."), NAME(log, me(s)));
	} else if (p->steps > 0) {
		p->steps--;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot pay the taxes and steps back to %d.",
					"%s no puede pagar impuestos y retrocede a la casilla %d."),
		     NAME(log, me(s)), p->steps);
	} else {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s owes the taxes but has no coin and no step to lose.",
					"%s debe impuestos pero no tiene monedas ni pasos que perder."),
		     NAME(log, me(s)));
	}
	after_phase4(s, log);
}
/* favour_moves */
static int favour_legal(const struct fortuna_state *s, int seat, struct move m)
{
	const struct fortuna_player *p = &s->p[seat];
	int lim = FORTUNA_PALACE - p->steps > 1 ? FORTUNA_PALACE - p->steps : 1;
	int c, n = m.b;

	if (m.kind == FM_TAX)	/* cards 5 and 6 as in favour_moves, without branches */
		return !(m.a | m.b) &
		       !((s->die > FF_FORTUNA) & (s->fav_up[FF_FORTUNA] != 0) & (p->married != 0)) &
		       !((s->die > FF_RELIGION) & (s->fav_up[FF_RELIGION] != 0) & (p->priest > 0));
	c = m.a;
	if (c >= s->die || c >= FF_COUNT || !s->fav_up[c])
		return 0;
	if (m.kind == FM_FAVOUR)
		return !m.b && ((c == FF_FORTUNA && p->married) ||
				(c == FF_RELIGION && p->priest > 0));
	if (m.kind != FM_DELIVER)
		return 0;
	switch (c) {
	case FF_WATER:
		return n == 1 && fortuna_water(s, seat) >= 1;
	case FF_WINE:
		return n >= 1 && n <= min_int(min_int(2, p->wine), lim);
	case FF_GRAIN:
		return n >= 1 && n <= min_int(min_int(2, p->grain), lim);
	case FF_BATTLE:
		return n >= 1 && n <= min_int(p->cent, lim);
	}
	return 0;
}
__attribute__((noinline, cold))
static void log_die(struct game_log *log, int seat, int die, int favour)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s chooses the die %d.", "%s elige el dado %d."),
		  NAME(log, seat), die);
	if (!favour)
		game_logf(log, LOG_PUBLIC, "%s",
			  L(loc, "No favour card is available: no advance, no taxes.",
			    "No hay carta de favor disponible: ni avance ni impuestos."));
}

int fortuna_apply_die(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		      struct buf *err)
{
	if (!(m.kind == FM_DIE && !m.b && m.a >= 1 && m.a <= 6 && ((rolled_values(s) >> m.a) & 1)))
		return fortuna_refuse(s, seat, log, err);
	s->die = (uint8_t)m.a;
	s->last_die = (uint8_t)m.a;
	if (log)
		log_die(log, seat, m.a, favour_available(s));
	if (!favour_available(s)) {
		after_phase4(s, log);
		return 0;
	}
	s->step = FS_FAVOUR;
	if (hand_empty(s->p[seat].hand) && favour_single(s, seat))
		fortuna_settle(s, log);		/* only the tax, or only a card 5/6 */
	return 0;
}

int fortuna_apply_favour(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!favour_legal(s, seat, m))
		return fortuna_refuse(s, seat, log, err);
	if (m.kind == FM_TAX)
		pay_tax(s, log);
	else
		deliver(s, m.a, m.b, log);
	return 0;
}

int fortuna_apply_flip(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err)
{
	enum locale loc = LOC(log);

	if (m.kind == FM_SKIP) {
		if (m.a || m.b)
			return fortuna_refuse(s, seat, log, err);
	} else {
		if (!(m.kind == FM_FLIP && !m.b && m.a < FF_COUNT && s->fav_up[m.a] &&
		      s->fav_tokens[m.a] == 0))
			return fortuna_refuse(s, seat, log, err);
		s->fav_up[m.a] = 0;
		LOGF(log, LOG_PUBLIC, L(loc, "%s turns the favour card %d face down.",
					"%s voltea la carta de favor %d."), NAME(log, seat), m.a + 1);
	}
	fortuna_phase5(s, log);
	return 0;
}
