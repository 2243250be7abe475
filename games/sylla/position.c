/*
 * position.c: the position helpers Sylla's tests build states with (give
 * a character, a zone, tokens or money; set an event, a tile, the turn;
 * start a phase).  Not reached by play.
 */
#include "games/sylla/sylla_int.h"

/* ---- test helpers ---- */

void sylla_give_char(struct sylla_state *s, int seat, int card)
{
	uint64_t bit = 1ULL << card;
	int i;

	for (i = 0; i < s->nplayers; i++)
		s->own[i] &= ~bit;
	for (i = 0; i < SY_ROW; i++)
		if (s->row[i] == card)
			s->row[i] = SY_NONE;
	for (i = 0; i < s->ndeck; i++)
		if (s->deck[i] == card) {
			if (i >= s->ndeck - s->unseen && s->unseen)
				s->unseen--;
			memmove(s->deck + i, s->deck + i + 1, (size_t)(s->ndeck - i - 1));
			s->deck[--s->ndeck] = 0;
			break;
		}
	s->tapped &= ~bit;
	s->down &= ~bit;
	s->own[seat] |= bit;
}

void sylla_give_zone(struct sylla_state *s, int seat, int z)
{
	int type = sylla_zone_type[z], i;

	if (z == SZ_CRANE) {
		if (!s->cranes)
			return;
		s->cranes--;
	}
	/* the tile leaves the stack (from the bottom of its kind) */
	for (i = 0; i < s->nstack; i++)
		if (sylla_tiles[s->stack[i]].type == type) {
			memmove(s->stack + i, s->stack + i + 1, (size_t)(s->nstack - i - 1));
			s->stack[--s->nstack] = 0;
			break;
		}
	s->p[seat].zone[z]++;
}

void sylla_give_tokens(struct sylla_state *s, int seat, int track, int n, int seen)
{
	while (n-- > 0)
		take_token(s, seat, track, seen);
}

void sylla_set_money(struct sylla_state *s, int seat, int money)
{
	int d = money - s->p[seat].money;

	if (d > 0)
		earn(s, seat, d);
	else
		spend(s, seat, -d);
}

void sylla_set_event(struct sylla_state *s, int slot, int e)
{
	int i, old = s->ev_row[slot];

	if (old == e)
		return;
	for (i = 0; i < SY_EV_ROW; i++)
		if (s->ev_row[i] == e) {
			s->ev_row[i] = (uint8_t)old;
			s->ev_row[slot] = (uint8_t)e;
			return;
		}
	for (i = 0; i < s->nev_deck; i++)
		if (s->ev_deck[i] == e) {
			memmove(s->ev_deck + i, s->ev_deck + i + 1, (size_t)(s->nev_deck - i - 1));
			s->nev_deck--;
			break;
		}
	s->ev_gone &= (uint16_t)~(1u << e);
	if (old < SE_COUNT)
		s->ev_deck[s->nev_deck++] = (uint8_t)old;
	s->ev_row[slot] = (uint8_t)e;
}

void sylla_put_tile(struct sylla_state *s, int slot, int type)
{
	int t, j, i;

	if (s->tiles[slot] >= SY_TILES || sylla_tiles[s->tiles[slot]].type == type)
		return;
	for (t = 0; t < SY_TILES; t++) {
		if (sylla_tiles[t].type != type)
			continue;
		for (j = 0; j < SY_ROW; j++)
			if (s->tiles[j] == t) {
				s->tiles[j] = s->tiles[slot];
				s->tiles[slot] = (uint8_t)t;
				return;
			}
		for (j = 0; j < s->nstack; j++)
			if (s->stack[j] == t)
				break;
		if (j == s->nstack)
			continue;
		s->stack[j] = s->tiles[slot];
		s->tiles[slot] = (uint8_t)t;
		/* keep the stack in letter order (C at the bottom), each letter's
		 * own order kept */
		for (i = 1; i < s->nstack; i++) {
			uint8_t x = s->stack[i];

			for (j = i; j > 0 && sylla_tiles[s->stack[j - 1]].letter < sylla_tiles[x].letter; j--)
				s->stack[j] = s->stack[j - 1];
			s->stack[j] = x;
		}
		return;
	}
}

void sylla_set_turn(struct sylla_state *s, int turn)
{
	while (s->turn < turn) {
		int i;

		s->turn++;
		for (i = 0; i < SY_ROW && s->nstack; i++)
			s->stack[--s->nstack] = 0;
		if (s->known < s->turn)
			s->known = s->turn;
		/* one event removed per turn gone by */
		if (__builtin_popcount(s->ev_gone) + 1 < s->turn && s->nev_deck) {
			s->ev_gone |= (uint16_t)(1u << s->ev_deck[s->nev_deck - 1]);
			s->ev_deck[--s->nev_deck] = 0;
		}
	}
}

void sylla_start_phase(struct sylla_state *s, int phase, int fc, struct game_log *log)
{
	s->fc = (uint8_t)fc;
	s->waiting = 0;
	s->decider = SY_NONE;
	switch (phase) {
	case SP_CONSUL:
		sylla_start_turn(s, log);
		break;
	case SP_RECRUIT:
		sylla_start_recruit(s, log);
		break;
	case SP_BUILD:
		sylla_start_build(s, log);
		break;
	case SP_INCOME:
		sylla_start_income(s, log);
		break;
	case SP_EVENTS:
		sylla_start_events(s, log);
		break;
	case SP_WORKS:
		sylla_start_works(s, log);
		break;
	case SP_FAMINE:
		sylla_start_famine(s, log);
		break;
	case SP_END:
		sylla_start_end(s, log);
		break;
	}
}
