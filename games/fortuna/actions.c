/*
 * actions.c: phases 2 and 3 of a Fortuna turn: the card chosen
 * (FS_CHOOSE), its action executed or skipped (FS_ACTION, Corruption
 * included), the exchange (FS_EXCHANGE), and the military (FS_MILITARY:
 * the top Centurion given to execute a face-up card of one's own); their
 * moves, legality and apply.
 *
 * Hands over to the roll (favours.c).
 */
#include "games/fortuna/fortuna_int.h"

static void after_exchange(struct fortuna_state *s, struct game_log *log)
{
	const struct fortuna_player *p = &s->p[me(s)];

	/* Phase 3 is asked when it is possible, or could become possible by
	 * playing a Centurión privilege card first. */
	if (p->cent > 0 || p->hand[FP_CENTURION] > 0)
		s->step = FS_MILITARY;
	else
		fortuna_start_phase4(s, log);
}

static void after_action(struct fortuna_state *s, struct game_log *log)
{
	s->corrupted = 0;
	if (s->act_via == FV_PHASE2) {
		s->step = FS_EXCHANGE;
		return;
	}
	fortuna_start_phase4(s, log);
}
static int action_moves(const struct fortuna_state *s, int seat, struct move *v, int n)
{
	const struct fortuna_player *p = &s->p[seat];
	int k, w, b, i;

	switch (s->act_card) {
	case FA_WATER:
		n = put(v, n, 1, FM_COLLECT, 0, 0);
		break;
	case FA_GRAIN:
	case FA_WINE: {
		int base = s->act_card == FA_GRAIN ? 2 : 1;
		int sup = s->act_card == FA_GRAIN ? s->sup_grain : s->sup_wine;
		/* Water beyond what the supply can answer would be wasted. */
		int maxw = min_int(fortuna_water(s, seat), sup > base ? sup - base : 0);

		for (w = 0; w <= maxw; w++)
			n = add(v, n, FM_HARVEST, w, 0);
		break;
	}
	case FA_SELL_GRAIN:
		for (k = 1; k <= p->grain; k++)
			n = add(v, n, FM_SELL, k, 0);
		break;
	case FA_SELL_WINE:
		for (k = 1; k <= p->wine; k++)
			n = add(v, n, FM_SELL, k, 0);
		break;
	case FA_CENTURIONS:
		for (k = 1; p->cent + k <= 3 && k <= s->sup_cent &&
			    recruit_cost(p->cent, k) <= p->money; k++)
			n = put(v, n, 1, FM_RECRUIT, k, 0);
		break;
	case FA_PRIESTESSES:
		for (k = 1; p->priest + k <= 3 && k <= s->sup_priest &&
			    priestess_cost(p->priest, k) <= p->money; k++)
			n = put(v, n, 1, FM_PRIESTESS, k, 0);
		break;
	case FA_CLERGY:
		n = put(v, n, p->priest > 0 && p->dice < 3 && s->sup_dice > 0, FM_CLERGY, 0, 0);
		break;
	case FA_FAMILY:
		if (!p->married) {
			n = put(v, n, p->money >= 3, FM_MARRY, 0, 0);
			break;
		}
		n = put(v, n, !s->rolled, FM_ROLL, 0, 0);
		n = put(v, n, s->sup_grain, FM_TAKE, FR_GRAIN, 0);
		n = put(v, n, s->sup_wine, FM_TAKE, FR_WINE, 0);
		n = put(v, n, 1, FM_TAKE, FM_TAKE_COINS, 0);
		break;
	case FA_BUILD:
		for (b = 0; b < FB_COUNT; b++)
			n = put(v, n, can_build(s, seat, b), FM_BUILD, b, 0);
		break;
	case FA_CORRUPTION:
		/* Any card of another side, face up or down, but not the Fortuna
		 * card, whose action needs the card itself (docs: rulings). */
		if (p->money >= 1) {
			const uint8_t *card = &s->side_card[0][0];

			for (i = 0; i < SLOT_BITS; i++)
				n = put(v, n, !((SIDE_MASK(seat) >> i) & 1) && card[i] < FA_COUNT &&
					card[i] != FA_FORTUNA, FM_CORRUPT, card[i], 0);
		}
		n = put(v, n, 1, FM_COINS, 0, 0);
		break;
	case FA_FORTUNA:
		n = put(v, n, 1, FM_ADVANCE, 0, 0);
		break;
	}
	return add(v, n, FM_SKIP, 0, 0);
}
int fortuna_moves_choose(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const uint8_t *card = s->side_card[seat], *down = s->side_down[seat];
	struct move *v = out->v;
	int n = 0;

	n = put(v, n, !down[0], FM_CARD, card[0], 0);
	n = put(v, n, !down[1], FM_CARD, card[1], 0);
	n = put(v, n, !down[2], FM_CARD, card[2], 0);
	return end_turn_list(s, seat, out, n);
}

int fortuna_moves_action(const struct fortuna_state *s, int seat, struct move_list *out)
{
	return end_turn_list(s, seat, out, action_moves(s, seat, out->v, 0));
}

int fortuna_moves_exchange(const struct fortuna_state *s, int seat, struct move_list *out)
{
	unsigned ok = up_slots(s) & ~SIDE_MASK(seat);
	const uint8_t *card = &s->side_card[0][0];
	struct move *v = out->v;
	uint64_t mv[SLOT_BITS];
	size_t n = 0;
	int i;

#ifdef __SSE2__
	{
		/* the 12 moves built 2 at a time: each card byte widened into
		 * the `a` field of an FM_EXCHANGE move (little endian) */
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)card);
		__m128i z = _mm_setzero_si128(), k = _mm_set1_epi16(FM_EXCHANGE);
		__m128i lo = _mm_unpacklo_epi8(c, z), hi = _mm_unpackhi_epi8(c, z);
		__m128i d[3] = { _mm_unpacklo_epi16(k, lo), _mm_unpackhi_epi16(k, lo),
				 _mm_unpacklo_epi16(k, hi) };

		for (i = 0; i < 3; i++) {
			_mm_storeu_si128((__m128i *)(void *)&mv[4 * i], _mm_unpacklo_epi32(d[i], z));
			_mm_storeu_si128((__m128i *)(void *)&mv[4 * i + 2], _mm_unpackhi_epi32(d[i], z));
		}
	}
#else
	for (i = 0; i < SLOT_BITS; i++)
		put((struct move *)(void *)mv, i, 1, FM_EXCHANGE, card[i], 0);
#endif
#pragma GCC unroll 12
	for (i = 0; i < SLOT_BITS; i++) {
		memcpy(&v[n], &mv[i], sizeof(mv[i]));
		n += (ok >> i) & 1;
	}
	return end_turn_list(s, seat, out, (int)n);
}

int fortuna_moves_military(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const uint8_t *card = s->side_card[seat], *down = s->side_down[seat];
	struct move *v = out->v;
	int n = 0;

	if (s->p[seat].cent > 0) {
		n = put(v, n, !down[0], FM_MILITARY, card[0], 0);
		n = put(v, n, !down[1], FM_MILITARY, card[1], 0);
		n = put(v, n, !down[2], FM_MILITARY, card[2], 0);
	}
	n = put(v, n, 1, FM_SKIP, 0, 0);
	return end_turn_list(s, seat, out, n);
}
/* ---- apply ---- */

__attribute__((noinline, cold))
static void log_corrupt(const struct fortuna_state *s, struct game_log *log, int seat, int t,
			int card, int paid)
{
	enum locale loc = log->loc;
	const char *name = fortuna_actions[card].name[loc];

	if (t < 0 || t >= s->nplayers)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s uses %s (side %d, empty) through Corruption and pays 1 coin to the bank.",
			    "%s usa %s (lado %d, vacío) mediante la Corrupción y paga 1 moneda a la banca."),
			  NAME(log, seat), name, t + 1);
	else if (paid)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s uses %s (%s's side) through Corruption and pays %s 1 coin.",
			    "%s usa %s (lado de %s) mediante la Corrupción y paga 1 moneda a %s."),
			  NAME(log, seat), name, NAME(log, t), NAME(log, t));
	else
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s uses %s (%s's side) through Corruption and pays 1 coin; %s already has 20, so it is lost.",
			    "%s usa %s (lado de %s) mediante la Corrupción y paga 1 moneda; %s ya tiene 20 y se pierde."),
			  NAME(log, seat), name, NAME(log, t), NAME(log, t));
}

static void exec_action(struct fortuna_state *s, struct move m, struct game_log *log)
{
	int seat = me(s);
	struct fortuna_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int n, t, price;

	switch (m.kind) {
	case FM_COLLECT:
		n = take(&p->water, &s->sup_water, 2);
		LOGF(log, LOG_PUBLIC, L(loc, "%s collects %d water.", "%s recoge %d agua."),
		     NAME(log, seat), n);
		break;
	case FM_HARVEST: {
		int grain = s->act_card == FA_GRAIN;

		spend_water(s, seat, m.a);
		n = gain_resource(s, seat, grain ? FR_GRAIN : FR_WINE, (grain ? 2 : 1) + m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s harvests %d %s (%d water delivered).",
					"%s cosecha %d de %s (%d agua entregada)."),
		     NAME(log, seat), n, fortuna_resources[grain ? FR_GRAIN : FR_WINE].name[loc], m.a);
		break;
	}
	case FM_SELL: {
		int grain = s->act_card == FA_SELL_GRAIN;

		price = (grain ? 2 : 3) + has_building(s, seat, FB_MARKET);
		if (grain) {
			p->grain = (uint8_t)(p->grain - m.a);
			s->sup_grain = (uint8_t)(s->sup_grain + m.a);
		} else {
			p->wine = (uint8_t)(p->wine - m.a);
			s->sup_wine = (uint8_t)(s->sup_wine + m.a);
		}
		n = add_money(s, seat, m.a * price);
		if (log) {
			game_logf(log, LOG_PUBLIC, L(loc, "%s sells %d %s for %d coins.",
						     "%s vende %d de %s por %d monedas."),
				  NAME(log, seat), m.a,
				  fortuna_resources[grain ? FR_GRAIN : FR_WINE].name[loc], m.a * price);
			fortuna_log_capped(log, seat, m.a * price, n);
		}
		break;
	}
	case FM_RECRUIT:
		price = recruit_cost(p->cent, m.a);
		p->money = (uint8_t)(p->money - price);
		take(&p->cent, &s->sup_cent, m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s recruits %d %s for %d %s.",
					"%s recluta %d %s por %d %s."),
		     NAME(log, seat), m.a, m.a == 1 ? L(loc, "Centurion", "Centurión")
						    : L(loc, "Centurions", "Centuriones"),
		     price, coins(loc, price));
		break;
	case FM_PRIESTESS:
		price = priestess_cost(p->priest, m.a);
		p->money = (uint8_t)(p->money - price);
		take(&p->priest, &s->sup_priest, m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s obtains %d %s for %d %s.",
					"%s obtiene %d %s por %d %s."),
		     NAME(log, seat), m.a, m.a == 1 ? L(loc, "Priestess", "Sacerdotisa")
						    : L(loc, "Priestesses", "Sacerdotisas"),
		     price, coins(loc, price));
		break;
	case FM_CLERGY:
		p->priest--;
		s->sup_priest++;
		take(&p->dice, &s->sup_dice, 1);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gives a Priestess for a die (%d dice).",
					"%s entrega una Sacerdotisa por un dado (%d dados)."),
		     NAME(log, seat), p->dice);
		break;
	case FM_MARRY:
		p->money = (uint8_t)(p->money - 3);
		p->married = 1;
		LOGF(log, LOG_PUBLIC, L(loc, "%s marries.", "%s se casa."), NAME(log, seat));
		break;
	case FM_TAKE:
		if (m.a == FM_TAKE_COINS) {
			n = add_money(s, seat, 3);
			if (log) {
				game_logf(log, LOG_PUBLIC, L(loc, "%s takes 3 coins.", "%s toma 3 monedas."),
					  NAME(log, seat));
				fortuna_log_capped(log, seat, 3, n);
			}
		} else {
			gain_resource(s, seat, m.a, 1);
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes 1 %s.", "%s toma 1 de %s."),
			     NAME(log, seat), fortuna_resources[m.a].name[loc]);
		}
		break;
	case FM_BUILD:
		p->money = (uint8_t)(p->money - fortuna_building_cost[m.a]);
		p->buildings |= (uint8_t)(1u << m.a);
		s->bld_left[m.a]--;
		if (m.a == FB_AQUEDUCT)
			p->aq_round = s->round;
		LOGF(log, LOG_PUBLIC, L(loc, "%s builds: %s.", "%s construye: %s."),
		     NAME(log, seat), fortuna_buildings[m.a].name[loc]);
		break;
	case FM_COINS:
		n = add_money(s, seat, 2);
		if (log) {
			game_logf(log, LOG_PUBLIC, L(loc, "%s takes 2 coins from Corruption.",
						     "%s toma 2 monedas de la Corrupción."), NAME(log, seat));
			fortuna_log_capped(log, seat, 2, n);
		}
		break;
	case FM_ADVANCE:
		LOGF(log, LOG_PUBLIC, L(loc, "%s uses the Fortuna card.", "%s usa la Carta Fortuna."),
		     NAME(log, seat));
		advance(s, seat, 1, log);
		break;
	case FM_SKIP:
		LOGF(log, LOG_PUBLIC, L(loc, "%s does not use the action.", "%s no usa la acción."),
		     NAME(log, seat));
		break;
	case FM_CORRUPT:
		t = find_card(s, m.a, NULL);
		p->money--;
		/* the coin goes to the side's owner; on an empty side "se paga
		 * igualmente aunque nadie reciba la moneda" */
		n = t >= 0 && t < s->nplayers ? add_money(s, t, 1) : 0;
		s->act_card = (uint8_t)m.a;
		s->corrupted = 1;
		if (log)
			log_corrupt(s, log, seat, t, m.a, n);
		/* FS_ACTION goes on with the card used */
		if (hand_empty(p->hand) && !action_usable(s, seat))
			fortuna_settle(s, log);
		return;
	}
	if (m.kind == FM_ROLL)
		return;
	after_action(s, log);
}
/* action_moves */
static int action_legal(const struct fortuna_state *s, int seat, struct move m)
{
	const struct fortuna_player *p = &s->p[seat];
	int n;

	if (m.kind == FM_SKIP)
		return !m.a && !m.b;
	if (m.b)
		return 0;
	switch (s->act_card) {
	case FA_WATER:
		return m.kind == FM_COLLECT && !m.a;
	case FA_GRAIN:
	case FA_WINE: {
		int base = s->act_card == FA_GRAIN ? 2 : 1;
		int sup = s->act_card == FA_GRAIN ? s->sup_grain : s->sup_wine;
		int maxw = min_int(fortuna_water(s, seat), sup > base ? sup - base : 0);

		return m.kind == FM_HARVEST && m.a <= maxw;
	}
	case FA_SELL_GRAIN:
		return m.kind == FM_SELL && m.a >= 1 && m.a <= p->grain;
	case FA_SELL_WINE:
		return m.kind == FM_SELL && m.a >= 1 && m.a <= p->wine;
	case FA_CENTURIONS:
		if (m.kind != FM_RECRUIT || m.a < 1 || m.a > 3)
			return 0;
		for (n = 1; n <= m.a; n++)
			if (!(p->cent + n <= 3 && n <= s->sup_cent &&
			      recruit_cost(p->cent, n) <= p->money))
				return 0;
		return 1;
	case FA_PRIESTESSES:
		if (m.kind != FM_PRIESTESS || m.a < 1 || m.a > 3)
			return 0;
		for (n = 1; n <= m.a; n++)
			if (!(p->priest + n <= 3 && n <= s->sup_priest &&
			      priestess_cost(p->priest, n) <= p->money))
				return 0;
		return 1;
	case FA_CLERGY:
		return m.kind == FM_CLERGY && !m.a && p->priest > 0 && p->dice < 3 &&
		       s->sup_dice > 0;
	case FA_FAMILY:
		if (!p->married)
			return m.kind == FM_MARRY && !m.a && p->money >= 3;
		if (m.kind == FM_ROLL)
			return !m.a && !s->rolled;
		return m.kind == FM_TAKE &&
		       ((m.a == FR_GRAIN && s->sup_grain) || (m.a == FR_WINE && s->sup_wine) ||
			m.a == FM_TAKE_COINS);
	case FA_BUILD:
		return m.kind == FM_BUILD && m.a < FB_COUNT && can_build(s, seat, m.a);
	case FA_CORRUPTION:
		if (m.kind == FM_COINS)
			return !m.a;
		if (m.kind != FM_CORRUPT || p->money < 1 || m.a >= FA_COUNT || m.a == FA_FORTUNA)
			return 0;
		return (card_slots(s, m.a) & ~SIDE_MASK(seat)) != 0;
	case FA_FORTUNA:
		return m.kind == FM_ADVANCE && !m.a;
	}
	return 0;
}
/* See fortuna_log_advance(). */
__attribute__((noinline, cold))
static void log_choose(struct game_log *log, int seat, int card)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s plays %s.", "%s juega %s."), NAME(log, seat),
		  fortuna_actions[card].name[loc]);
}

int fortuna_apply_choose(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!((m.kind == FM_CARD) & !m.b & on_side(s, seat, m.a, 1)))
		return fortuna_refuse(s, seat, log, err);
	s->chosen = s->act_card = (uint8_t)m.a;
	s->act_via = FV_PHASE2;
	s->corrupted = 0;
	s->step = FS_ACTION;
	if (log)
		log_choose(log, seat, m.a);
	if (hand_empty(s->p[seat].hand) && !action_usable(s, seat))
		fortuna_settle(s, log);		/* only `skip` */
	return 0;
}

int fortuna_apply_action(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!action_legal(s, seat, m))
		return fortuna_refuse(s, seat, log, err);
	if (m.kind == FM_ROLL)
		fortuna_roll_dice(s, log);
	else
		exec_action(s, m, log);
	return 0;
}

__attribute__((noinline, cold))
static void log_exchange(const struct fortuna_state *s, struct game_log *log, int seat, int t,
			 int card)
{
	enum locale loc = log->loc;

	/* The card is taken face up, in view of all, and then laid face
	 * down ("...y ésta última la coloca boca abajo"): its name is public. */
	if (t < s->nplayers)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s exchanges %s for %s from %s's side; %s lies face down on %s's side.",
			    "%s intercambia %s por %s del lado de %s; %s queda boca abajo en el lado de %s."),
			  NAME(log, seat), fortuna_actions[s->chosen].name[loc],
			  fortuna_actions[card].name[loc], NAME(log, t), fortuna_actions[card].name[loc],
			  NAME(log, seat));
	else
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s exchanges %s for %s from side %d (empty); %s lies face down on %s's side.",
			    "%s intercambia %s por %s del lado %d (vacío); %s queda boca abajo en el lado de %s."),
			  NAME(log, seat), fortuna_actions[s->chosen].name[loc],
			  fortuna_actions[card].name[loc], t + 1, fortuna_actions[card].name[loc],
			  NAME(log, seat));
}

int fortuna_apply_exchange(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			   struct buf *err)
{
	unsigned to, from;
	int t, u, slot = 0;

	if (m.kind != FM_EXCHANGE || m.b)
		return fortuna_refuse(s, seat, log, err);
	to = card_slots(s, m.a);
	if (!(to & up_slots(s) & ~SIDE_MASK(seat)))
		return fortuna_refuse(s, seat, log, err);
	/* find_card() of both cards, from the masks at hand */
	from = card_slots(s, s->chosen);
	if (from)
		slot = __builtin_ctz(from) - 3 * slot_side(__builtin_ctz(from));
	u = __builtin_ctz(to);
	t = slot_side(u);
	u -= 3 * t;
	s->side_card[seat][slot] = (uint8_t)m.a;
	s->side_down[seat][slot] = 1;
	s->side_card[t][u] = s->chosen;
	s->side_down[t][u] = 0;
	if (log)
		log_exchange(s, log, seat, t, m.a);
	after_exchange(s, log);
	return 0;
}

int fortuna_apply_military(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			   struct buf *err)
{
	enum locale loc = LOC(log);

	if (m.kind == FM_SKIP) {
		if (m.a || m.b)
			return fortuna_refuse(s, seat, log, err);
		fortuna_start_phase4(s, log);
		return 0;
	}
	if (!(m.kind == FM_MILITARY && !m.b && s->p[seat].cent > 0 && on_side(s, seat, m.a, 1)))
		return fortuna_refuse(s, seat, log, err);
	s->p[seat].cent--;
	s->sup_cent++;
	s->act_card = (uint8_t)m.a;
	s->act_via = FV_MILITARY;
	s->corrupted = 0;
	s->step = FS_ACTION;
	LOGF(log, LOG_PUBLIC, L(loc, "%s gives a Centurion for Military Power: %s.",
				"%s entrega un Centurión por el Poder Militar: %s."),
	     NAME(log, seat), fortuna_actions[m.a].name[loc]);
	if (hand_empty(s->p[seat].hand) && !action_usable(s, seat))
		fortuna_settle(s, log);		/* only `skip` */
	return 0;
}
