/*
 * build.c: phase III of a Sylla turn, the buildings: each sale's offer
 * (SS_OFFER), the bids once round (SS_BID), the buyer's payment (SS_TAP),
 * the tile gained and the Insula's pair (SS_INSULA).
 *
 * Hands over to income (income.c) after the last sale.
 */
#include "games/sylla/sylla_int.h"

static void end_build(struct sylla_state *s, struct game_log *log);
static void gain_tile(struct sylla_state *s, struct game_log *log);

/* ---- III: buildings ---- */

void sylla_start_build(struct sylla_state *s, struct game_log *log)
{
	s->phase = SP_BUILD;
	s->sales = 0;
	s->last_buyer = SY_NONE;
	s->sale_slot = SY_NONE;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase III: buildings —", "— Fase III: edificios —"));
	sylla_next_sale(s, log);
}

/* Tile slots worth listing: one per building type and sale colour. */
unsigned sylla_distinct_tiles(const struct sylla_state *s)
{
	unsigned seen = 0, slots = 0;
	int i;

	for (i = 0; i < SY_ROW; i++) {
		int t = s->tiles[i], key;

		if (t >= SY_TILES)
			continue;
		key = sylla_tiles[t].type * SC_COUNT + sylla_slot_colour[i];
		if ((seen >> key) & 1)
			continue;
		seen |= 1u << key;
		slots |= 1u << i;
	}
	return slots;
}

static int offerer(const struct sylla_state *s)
{
	/* "El jugador que haya comprado el último edificio ofrece uno nuevo";
	 * before any purchase, the First Consul. */
	return s->last_buyer < s->nplayers ? s->last_buyer : s->fc;
}

void sylla_put_on_sale(struct sylla_state *s, int slot, struct game_log *log)
{
	s->sale_slot = (uint8_t)slot;
	s->sales++;
	s->bid_hi = 0;
	s->bid_seat = SY_NONE;
	s->cursor = 0;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s puts up %s for sale (%s).", "%s pone a la venta %s (%s)."),
	     NAME(log, offerer(s)), sylla_tile_name(s->tiles[slot], LOC(log)),
	     sylla_colours[sylla_slot_colour[slot]].name[LOC(log)]);
	sylla_bid_next(s, log);
}

void sylla_next_sale(struct sylla_state *s, struct game_log *log)
{
	unsigned d = sylla_distinct_tiles(s);

	s->sale_slot = SY_NONE;
	if (s->sales >= sales_per_turn(s) || !d) {
		end_build(s, log);
		return;
	}
	if (!(d & (d - 1))) {
		sylla_put_on_sale(s, __builtin_ctz(d), log);
		return;
	}
	ask(s, SS_OFFER, offerer(s));
}

void sylla_bid_next(struct sylla_state *s, struct game_log *log)
{
	int colour = sylla_slot_colour[s->sale_slot], n = s->nplayers;

	while (s->cursor < n) {
		/* "comenzando por el que está a su derecha ... finalizando con"
		 * the offerer: the next seats round, the offerer last */
		int seat = (offerer(s) + 1 + s->cursor) % n;

		if (sylla_buy_power(s, seat, colour) > s->bid_hi) {
			ask(s, SS_BID, seat);
			return;
		}
		/* logged as the election's: why the seat was not asked */
		if (s->bid_hi)
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot outbid %d and passes.",
						"%s no puede superar %d y pasa."), NAME(log, seat), s->bid_hi);
		else
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s has nothing %s to bid with and passes.",
						"%s no tiene nada %s con que pujar y pasa."),
			     NAME(log, seat), sylla_colours[colour].name[LOC(log)]);
		s->cursor++;
	}
	if (s->bid_seat >= n) {
		/* "si todos los jugadores pasan, el edificio se descarta" */
		LOGF(log, LOG_PUBLIC, L(LOC(log), "Nobody bids: %s is discarded.",
					"Nadie puja: %s se descarta."),
		     sylla_tile_name(s->tiles[s->sale_slot], LOC(log)));
		s->tiles[s->sale_slot] = SY_NONE;
		sylla_next_sale(s, log);
		return;
	}
	s->tap_left = s->bid_hi;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s buys %s for %d (%s).", "%s compra %s por %d (%s)."),
	     NAME(log, s->bid_seat), sylla_tile_name(s->tiles[s->sale_slot], LOC(log)), s->bid_hi,
	     sylla_colours[colour].name[LOC(log)]);
	sylla_tap_next(s, log);
}

/* Tap options: a card per distinct k among the payers, and bit 10 for a Crane. */
unsigned sylla_tap_kinds(const struct sylla_state *s, int seat, uint64_t *cards)
{
	uint64_t pay = payers(s, seat, sylla_slot_colour[s->sale_slot]);
	unsigned kinds = 0;
	int c;

	*cards = 0;
	for (c = 0; c < SY_CHARS; c++)
		if (((pay >> c) & 1) && !((kinds >> sylla_k(c)) & 1)) {
			kinds |= 1u << sylla_k(c);
			*cards |= 1ULL << c;
		}
	if (cranes_free(s, seat))
		kinds |= 1u << SY_PER_SET;
	return kinds;
}

void sylla_tap_one(struct sylla_state *s, int seat, int what, struct game_log *log)
{
	if (what == SY_CHARS) {
		s->p[seat].crane_used++;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s turns a Crane.", "%s gira una Grúa."),
		     NAME(log, seat));
	} else {
		s->tapped |= 1ULL << what;
		if (log) {
			struct buf b = BUF_INIT;

			sylla_char_name(what, log->loc, &b);
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s turns %s.", "%s gira %s."),
				  NAME(log, seat), buf_str(&b));
			buf_release(&b);
		}
	}
	s->tap_left--;
}

void sylla_tap_next(struct sylla_state *s, struct game_log *log)
{
	int seat = s->bid_seat, cranes = 0;
	uint64_t forced = 0;

	while (s->tap_left) {
		uint64_t cards, pay = payers(s, seat, sylla_slot_colour[s->sale_slot]);
		unsigned kinds = sylla_tap_kinds(s, seat, &cards);

		if (popc(pay) + cranes_free(s, seat) != s->tap_left && (kinds & (kinds - 1))) {
			ask(s, SS_TAP, seat);
			break;
		}
		/* no choice: all of them, or all alike */
		if (pay) {
			forced |= pay & -pay;
			s->tapped |= pay & -pay;
		} else {
			s->p[seat].crane_used++;
			cranes++;
		}
		s->tap_left--;
	}
	if (log && (forced || cranes)) {
		struct buf b = BUF_INIT;

		if (forced)
			sylla_log_names(&b, forced, log->loc);
		if (cranes)
			buf_printf(&b, "%s%d %s", forced ? " + " : "", cranes,
				   cranes == 1 ? L(log->loc, "Crane", "Grúa") : L(log->loc, "Cranes", "Grúas"));
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s turns %s.", "%s gira %s."), NAME(log, seat),
			  buf_str(&b));
		buf_release(&b);
	}
	if (!s->tap_left)
		gain_tile(s, log);
}

/* Insula pairs (a <= b) the supply allows, as bits a * 3 + b. */
unsigned sylla_insula_pairs(const struct sylla_state *s)
{
	unsigned pairs = 0;
	int a, b;

	for (a = 0; a < ST_COUNT; a++)
		for (b = a; b < ST_COUNT; b++)
			if (a == b ? s->supply[a] >= 2 : s->supply[a] && s->supply[b])
				pairs |= 1u << (a * 3 + b);
	return pairs;
}

void sylla_insula_take(struct sylla_state *s, int seat, int a, int b, struct game_log *log)
{
	int got = take_token(s, seat, a, 0);

	got += take_token(s, seat, b, 0);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s discards the Insula and takes %d Res Publica %s in secret.",
				"%s descarta la Ínsula y toma %d %s Res Publica en secreto."),
	     NAME(log, seat), got, sylla_word(SW_TOKEN, got, LOC(log)));
	LOGF(log, seat, L(LOC(log), "Your Insula tokens: %s and %s.", "Tus fichas de la Ínsula: %s y %s."),
	     sylla_tracks[a].name[LOC(log)], sylla_tracks[b].name[LOC(log)]);
}

static void gain_tile(struct sylla_state *s, struct game_log *log)
{
	int seat = s->bid_seat, tile = s->tiles[s->sale_slot], type = sylla_tiles[tile].type;
	struct sylla_player *p = &s->p[seat];
	enum locale loc = LOC(log);

	s->last_buyer = (uint8_t)seat;
	s->tiles[s->sale_slot] = SY_NONE;
	switch (type) {
	case SB_STALL:
		p->zone[SZ_STALL]++;
		break;
	case SB_FIELD:
		p->zone[SZ_FIELD]++;
		break;
	case SB_TEMPLE:
		p->zone[SZ_TEMPLE]++;
		break;
	case SB_TAVERN:
		p->zone[SZ_TAVERN]++;
		break;
	case SB_CRANE:
		/* "la sustituye por una carta de Grúa que coloca, en su lado":
		 * usable from the next turn */
		if (s->cranes) {
			s->cranes--;
			p->zone[SZ_CRANE]++;
			p->crane_used++;
			p->crane_new++;
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes a Crane card (usable from next turn).",
						"%s toma una carta de Grúa (usable desde el turno siguiente)."),
			     NAME(log, seat));
		}
		break;
	case SB_ARCH:
		add_prestige(s, seat, 6);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gains 6 prestige.", "%s gana 6 de prestigio."), NAME(log, seat));
		break;
	case SB_STATUE:
		add_prestige(s, seat, 4);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gains 4 prestige.", "%s gana 4 de prestigio."), NAME(log, seat));
		break;
	case SB_BANK: {
		int got = earn(s, seat, 5);

		LOGF(log, LOG_PUBLIC, L(loc, "%s takes %d %s from the bank.",
					"%s toma %d %s de la banca."), NAME(log, seat), got,
		     sylla_word(SW_DENARIUS, got, loc));
		break;
	}
	case SB_INSULA: {
		unsigned pairs = sylla_insula_pairs(s);
		int t, n = 0, only = -1;

		if (pairs & (pairs - 1)) {
			ask(s, SS_INSULA, seat);
			return;
		}
		if (pairs) {
			int k = __builtin_ctz(pairs);

			sylla_insula_take(s, seat, k / 3, k % 3, log);
			break;
		}
		/* fewer than 2 tokens left: what there is */
		for (t = 0; t < ST_COUNT; t++)
			if (s->supply[t]) {
				only = t;
				n++;
			}
		if (n)
			take_token(s, seat, only, 0);
		LOGF(log, LOG_PUBLIC, L(loc, "%s discards the Insula and takes %d Res Publica %s in secret.",
					"%s descarta la Ínsula y toma %d %s Res Publica en secreto."),
		     NAME(log, seat), n, sylla_word(SW_TOKEN, n, loc));
		break;
	}
	}
	sylla_next_sale(s, log);
}

static void end_build(struct sylla_state *s, struct game_log *log)
{
	int i;

	for (i = 0; i < SY_ROW; i++)
		if (s->tiles[i] < SY_TILES) {
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s is removed from the game.",
						"%s se retira del juego."),
			     sylla_tile_name(s->tiles[i], LOC(log)));
			s->tiles[i] = SY_NONE;
		}
	sylla_start_income(s, log);
}
