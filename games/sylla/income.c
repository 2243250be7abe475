/*
 * income.c: phase IV of a Sylla turn: income (automatic), then the Temple
 * (SS_TEMPLE) and the Tavern (SS_TAVERN) seat by seat.
 *
 * Hands over to the events (events.c).
 */
#include "games/sylla/sylla_int.h"

/* ---- IV: income ---- */

void sylla_start_income(struct sylla_state *s, struct game_log *log)
{
	s->phase = SP_INCOME;
	s->cursor = 0;
	s->tavern_moved = 0;
	s->temples_left = s->taverns_left = SY_NONE;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase IV: income —", "— Fase IV: ingresos —"));
	sylla_income_next(s, log);
}

static int temple_usable(const struct sylla_state *s, int seat)
{
	return s->temples_left && s->temples_left != SY_NONE && s->p[seat].money >= 2 &&
	       (s->supply[0] || s->supply[1] || s->supply[2]);
}

static int tavern_usable(const struct sylla_state *s)
{
	return s->taverns_left && s->taverns_left != SY_NONE &&
	       s->tavern_moved != (1u << ST_COUNT) - 1;
}

void sylla_income_next(struct sylla_state *s, struct game_log *log)
{
	while (s->cursor < s->nplayers) {
		int seat = (s->fc + s->cursor) % s->nplayers;

		if (s->temples_left == SY_NONE) {
			int want = sylla_income(s, seat), got = earn(s, seat, want);

			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s takes %d %s (income 3, Stalls %d, Merchants %d).",
						"%s toma %d %s (ingresos 3, Puestos %d, Comerciantes %d)."),
			     NAME(log, seat), got, sylla_word(SW_DENARIUS, got, LOC(log)),
			     2 * s->p[seat].zone[SZ_STALL], ready(s, seat, SK_MERCHANT));
			s->temples_left = s->p[seat].zone[SZ_TEMPLE];
			s->taverns_left = s->p[seat].zone[SZ_TAVERN];
		}
		if (temple_usable(s, seat)) {
			ask(s, SS_TEMPLE, seat);
			return;
		}
		if (tavern_usable(s)) {
			ask(s, SS_TAVERN, seat);
			return;
		}
		s->temples_left = s->taverns_left = SY_NONE;
		s->cursor++;
	}
	s->temples_left = s->taverns_left = 0;
	sylla_start_events(s, log);
}
