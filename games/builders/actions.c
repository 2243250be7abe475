/*
 * actions.c: what the actions of a Builders turn (BS_TURN) and their
 * sub-steps do: take money, start a building, hire a worker, send a unit
 * with a tool (BS_SEND), invest (BS_ENSLAVE, BS_TOOL, BS_EDUCATE), what
 * they cost, and a building's completion.  Their moves and legality stay
 * in builders.c, where the lists are built: playouts list and check at
 * every decision, and calls across files there cost 9 % more
 * instructions.
 */
#include "games/builders/builders_int.h"

/* ---- apply ---- */

__attribute__((noinline, cold))
void builders_log_paid(struct game_log *log, int seat, int k, int cost)
{
	if (cost == BUILDERS_ACTION_PRICE)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s pays %d s for an extra action.",
					     "%s paga %d s por una acción extra."),
			  NAME(log, seat), cost);
	else if (cost)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s pays %d s for %d extra actions.",
					     "%s paga %d s por %d acciones extra."),
			  NAME(log, seat), cost, cost / BUILDERS_ACTION_PRICE);
	(void)k;
}

__attribute__((noinline, cold))
static void log_card(const struct builders_state *s, struct game_log *log, int seat,
		     const char *en, const char *es, int building, int card)
{
	struct buf b = BUF_INIT;

	if (building)
		builders_building_tag(card, log->loc, &b);
	else
		builders_unit_tag(s, card, log->loc, &b);
	game_logf(log, LOG_PUBLIC, L(log->loc, en, es), NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

/* Takes the card of row slot i and refills the slot from the deck. */
static void take_row(uint8_t *row, int i, uint8_t *deck, uint8_t *ndeck)
{
	row[i] = BUILDERS_NONE;
	if (*ndeck) {
		row[i] = deck[--*ndeck];
		deck[*ndeck] = 0;
	}
}

void builders_do_start(struct builders_state *s, int b, struct game_log *log)
{
	int i, cost = spend_actions(s, 1);

	for (i = 0; i < BUILDERS_ROW && s->brow[i] != b; i++)
		;
	take_row(s->brow, i, s->bdeck, &s->nbdeck);
	s->bown[b] = s->cur;
	s->bplace[b] = BP_BUILDING;
	s->prog[s->cur] |= 1ULL << b;
	s->lack[b] = (uint8_t)lack_of(s, b);
	s->plack[s->cur] |= s->lack[b];
	if (s->brow[i] != BUILDERS_NONE)
		s->bplace[s->brow[i]] = BP_ROW;
	if (log) {
		builders_log_paid(log, s->cur, 1, cost);	/* the payment first, then what it bought */
		log_card(s, log, s->cur, "%s starts %s.", "%s inicia %s.", 1, b);
		if (s->brow[i] != BUILDERS_NONE)
			log_card(s, log, s->cur, "New building for sale (%s's action): %s.",
				 "Nuevo edificio a la venta (acción de %s): %s.", 1, s->brow[i]);
	}
}

void builders_do_hire(struct builders_state *s, int w, struct game_log *log)
{
	int i, cost = spend_actions(s, 1);

	for (i = 0; i < BUILDERS_ROW && s->wrow[i] != w; i++)
		;
	take_row(s->wrow, i, s->wdeck, &s->nwdeck);
	s->uown[w] = s->cur;
	s->idle[s->cur] |= 1u << w;
	if (log) {
		builders_log_paid(log, s->cur, 1, cost);
		log_card(s, log, s->cur, "%s hires %s.", "%s contrata a %s.", 0, w);
		if (s->wrow[i] != BUILDERS_NONE)
			log_card(s, log, s->cur, "New worker for hire (%s's action): %s.",
				 "Nuevo trabajador disponible (acción de %s): %s.", 0, s->wrow[i]);
	}
}

__attribute__((noinline, cold))
static void log_complete(const struct builders_state *s, struct game_log *log, int seat, int b)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	enum locale loc = log->loc;

	if (bi->makes)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s completes the machine %s: %d VP, and it joins their workers (makes 3 %s, no wage). Now %d VP.",
			    "%s termina la máquina %s: %d PV, y se une a sus trabajadores (produce 3 de %s, sin sueldo). Ahora %d PV."),
			  NAME(log, seat), bi->name[loc], bi->vp, builders_resources[bi->makes - 1].name[loc],
			  s->p[seat].vp);
	else
		game_logf(log, LOG_PUBLIC, L(loc, "%s completes %s: +%d s and %d VP. Now %d VP.",
					     "%s termina %s: +%d s y %d PV. Ahora %d PV."),
			  NAME(log, seat), bi->name[loc], bi->coins, bi->vp, s->p[seat].vp);
}

/* "Cuando la suma ... es igual o excede a los requisitos de cada recurso
 * del Edificio, el Edificio queda completado." */
static void maybe_complete(struct builders_state *s, int b, struct game_log *log)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	int u, t, seat = s->bown[b];

	if (s->lack[b])
		return;
	s->bplace[b] = BP_DONE;
	gain(s, seat, bi->coins);
	s->p[seat].vp = (uint8_t)(s->p[seat].vp + bi->vp);
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->tat[t] != BUILDERS_NONE && s->uat[s->tat[t]] == b) {
			s->tat[t] = BUILDERS_NONE;
			s->tidle[seat] |= (uint8_t)(1u << t);
		}
	for (u = 0; u < BUILDERS_UNITS; u++)
		if (s->uat[u] == b) {
			s->uat[u] = BUILDERS_NONE;
			s->idle[seat] |= 1u << u;
		}
	memset(s->have[b], 0, sizeof(s->have[b]));
	s->sent[b] = 0;
	s->sentmask &= ~(1ULL << b);
	s->lack[b] = 0;
	s->prog[seat] &= ~(1ULL << b);
	if (bi->makes) {
		u = BU_MACHINE + b - BB_FIRST_MACHINE;
		s->uown[u] = (uint8_t)seat;
		s->idle[seat] |= 1u << u;
	}
	if (log)
		log_complete(s, log, seat, b);
}

__attribute__((noinline, cold))
static void log_send(const struct builders_state *s, struct game_log *log, int u, int b,
		     int tool, int k, int wage)
{
	struct buf unit = BUF_INIT;
	enum locale loc = log->loc;
	const char *bn = builders_buildings[b].name[loc];

	builders_unit_name(s, u, loc, &unit);
	if (tool) {
		buf_addch(&unit, ' ');
		buf_printf(&unit, L(loc, "with the %s", "con %s"), builders_tools[tool - 1].name[loc]);
	}
	if (k == 1)
		game_logf(log, LOG_PUBLIC, L(loc, "%s sends %s to %s: 1 action, wage %d s.",
					     "%s envía a %s a %s: 1 acción, sueldo %d s."),
			  NAME(log, s->cur), buf_str(&unit), bn, wage);
	else
		game_logf(log, LOG_PUBLIC, L(loc, "%s sends %s to %s: %d actions (worker %d there this turn), wage %d s.",
					     "%s envía a %s a %s: %d acciones (trabajador %d allí este turno), sueldo %d s."),
			  NAME(log, s->cur), buf_str(&unit), bn, k, k, wage);
	buf_release(&unit);
}

void builders_do_send(struct builders_state *s, int b, int tool, struct game_log *log)
{
	int u = s->pend, k = s->sent[b] + 1, wage = builders_wage(s, u), r, cost;

	cost = spend_actions(s, k);
	pay(s, s->cur, wage);
	s->uat[u] = (uint8_t)b;
	s->idle[s->cur] &= ~(1u << u);
	for (r = 0; r < BR_COUNT; r++)
		s->have[b][r] = (uint8_t)(s->have[b][r] + s->ures[u][r]);
	if (tool) {
		s->tat[tool - 1] = (uint8_t)u;
		s->tidle[s->cur] &= (uint8_t)~(1u << (tool - 1));
		s->have[b][tool - 1]++;
	}
	s->sent[b] = (uint8_t)k;
	s->sentmask |= 1ULL << b;
	s->lack[b] = (uint8_t)lack_of(s, b);
	s->pend = BUILDERS_NONE;
	s->step = BS_TURN;
	if (log) {
		builders_log_paid(log, s->cur, k, cost);
		log_send(s, log, u, b, tool, k, wage);
	}
	maybe_complete(s, b, log);
	refresh_lack(s, s->cur);
}

__attribute__((noinline, cold))
static void log_invest(const struct builders_state *s, struct game_log *log, struct move m)
{
	struct buf b = BUF_INIT, r = BUF_INIT;
	enum locale loc = log->loc;
	int seat = s->cur;

	switch (m.kind) {
	case BM_ENSLAVE:
		builders_unit_tag(s, BU_SLAVE + m.a - 1, loc, &b);
		game_logf(log, LOG_PUBLIC, L(loc, "%s buys %s for %d s.", "%s compra a %s por %d s."),
			  NAME(log, seat), buf_str(&b), BUILDERS_SLAVE_PRICE);
		break;
	case BM_TOOL:
		game_logf(log, LOG_PUBLIC, L(loc, "%s buys the %s (+1 %s) for %d s.",
					     "%s compra %s (+1 de %s) por %d s."),
			  NAME(log, seat), builders_tools[m.a - 1].name[loc],
			  builders_resources[m.a - 1].name[loc], BUILDERS_TOOL_PRICE);
		break;
	case BM_LOAN:
		game_logf(log, LOG_PUBLIC, L(loc, "%s takes a loan: +%d s (repay %d s, or -%d VP at the end).",
					     "%s pide un préstamo: +%d s (devolver %d s, o -%d PV al final)."),
			  NAME(log, seat), BUILDERS_LOAN_GAIN, BUILDERS_LOAN_REPAY, BUILDERS_LOAN_PENALTY);
		break;
	case BM_EDUCATE:
		builders_unit_name(s, m.a - 1, loc, &b);
		builders_res_text(s->ures[m.a - 1], loc, &r);
		game_logf(log, LOG_PUBLIC, L(loc, "%s educates %s in %s for %d s: now %s.",
					     "%s educa a %s en %s por %d s: ahora %s."),
			  NAME(log, seat), buf_str(&b), builders_resources[m.b].name[loc],
			  BUILDERS_UNI_PRICE, buf_str(&r));
		break;
	}
	buf_release(&b);
	buf_release(&r);
}

void builders_do_invest(struct builders_state *s, struct move m, struct game_log *log)
{
	int seat = s->cur, cost = spend_actions(s, 1);

	switch (m.kind) {
	case BM_ENSLAVE:
		pay(s, seat, BUILDERS_SLAVE_PRICE);
		s->uown[BU_SLAVE + m.a - 1] = (uint8_t)seat;
		s->idle[seat] |= 1u << (BU_SLAVE + m.a - 1);
		s->spile &= (uint8_t)~(1u << (m.a - 1));
		break;
	case BM_TOOL:
		pay(s, seat, BUILDERS_TOOL_PRICE);
		s->town[m.a - 1] = (uint8_t)seat;
		s->tpile &= (uint8_t)~(1u << (m.a - 1));
		s->tidle[seat] |= (uint8_t)(1u << (m.a - 1));
		break;
	case BM_LOAN:
		gain(s, seat, BUILDERS_LOAN_GAIN);
		s->loan_pile--;
		s->p[seat].loans++;
		break;
	case BM_EDUCATE:
		pay(s, seat, BUILDERS_UNI_PRICE);
		s->uni[m.b] = (uint8_t)(m.a - 1);
		s->ures[m.a - 1][m.b] = BUILDERS_UNI_LEVEL;
		s->umask[m.a - 1] |= (uint8_t)(1u << m.b);
		s->rmask[m.b] |= 1u << (m.a - 1);
		s->upile &= (uint8_t)~(1u << m.b);
		s->edu |= 1u << (m.a - 1);
		break;
	}
	s->invested = 1;
	s->step = BS_TURN;
	if (log) {
		builders_log_paid(log, seat, 1, cost);
		log_invest(s, log, m);
	}
}
