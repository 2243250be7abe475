/*
 * builders.c: the rules of The Builders: Antiquity (Los Constructores:
 * Antigüedad; the Spanish rulebook is the specification) as a state
 * machine of short decisions.
 *
 * A turn is a sequence of actions ended by `end turn`.  BS_TURN lists every
 * action the seat can pay for now (3 free actions, 5 sesterces each after);
 * an action that needs a second choice opens a sub-step (BS_SEND: where a
 * chosen unit goes and with which tool; BS_ENSLAVE, BS_TOOL, BS_EDUCATE:
 * which investment card), left again with the meta move `back`.  Nothing is
 * paid before the last choice of an action.
 *
 * Sending the k-th worker to one building within a turn costs k actions
 * ("por enviar a tres Trabajadores durante el mismo turno al mismo
 * Edificio, un jugador debe gastar seis acciones"): sent[] counts them.  A
 * building is completed as soon as its workers (and their tools) cover its
 * needs; its units and tools come back, a machine joins the team.
 *
 * At the end of a turn with 17 VP or more from buildings and machines the
 * round is played out (so that everybody has had as many turns); then
 * BS_FINAL lets each seat, in turn order, free slaves (5 sesterces) and
 * repay loans (15) before the score is counted (score.c).
 *
 * Every function that changes the state is reached from apply() with a
 * move that moves() listed, so they assume legality.
 *
 * This file keeps the decisions (awaiting, each step's moves, the legality
 * check, apply() by move), the public small queries and the driver table;
 * setup, what the actions do, the turn's end and the refusals live in
 * files of their own, listed in builders_int.h with what they share.
 */
#include <string.h>

#include "games/builders/builders_int.h"
#include "util/text.h"

/* ---- small helpers ---- */

int builders_enslaved(const struct builders_state *s, int seat)
{
	int k, n = 0;

	for (k = 0; k < BUILDERS_SLAVES; k++)
		n += s->uown[BU_SLAVE + k] == seat && !s->freed[k];
	return n;
}

void builders_recount(struct builders_state *s)
{
	int u, b, t, k, r;

	s->bound = s->edu = 0;
	s->spile = s->tpile = s->upile = 0;
	for (u = 0; u < BUILDERS_UNITS; u++) {
		base_res(u, s->ures[u]);
		if (u < BU_SLAVE)
			s->uwage[u] = builders_wages[builders_workers[u].rank];
		else if (u < BU_MACHINE)
			s->uwage[u] = s->freed[u - BU_SLAVE] ? BUILDERS_FREED_WAGE : 0;
		else
			s->uwage[u] = 0;
	}
	for (k = 0; k < BUILDERS_SLAVES; k++) {
		if (!s->freed[k])
			s->bound |= 1u << (BU_SLAVE + k);
		if (s->uown[BU_SLAVE + k] == BUILDERS_NONE)
			s->spile |= (uint8_t)(1u << k);
	}
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] == BUILDERS_NONE)
			s->tpile |= (uint8_t)(1u << t);
	for (k = 0; k < BUILDERS_UNIS; k++) {
		if (s->uni[k] == BUILDERS_NONE) {
			s->upile |= (uint8_t)(1u << k);
		} else if (s->uni[k] < BUILDERS_UNITS) {
			s->ures[s->uni[k]][k] = BUILDERS_UNI_LEVEL;
			s->edu |= 1u << s->uni[k];
		}
	}
	for (u = 0; u < BUILDERS_UNITS; u++)
		s->umask[u] = (uint8_t)res_mask(s->ures[u]);
	memset(s->have, 0, sizeof(s->have));
	for (u = 0; u < BUILDERS_UNITS; u++)
		if ((b = s->uat[u]) < BUILDERS_BUILDINGS)
			for (r = 0; r < BR_COUNT; r++)
				s->have[b][r] = (uint8_t)(s->have[b][r] + s->ures[u][r]);
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->tat[t] < BUILDERS_UNITS && (b = s->uat[s->tat[t]]) < BUILDERS_BUILDINGS)
			s->have[b][t]++;
	for (b = 0; b < BUILDERS_BUILDINGS; b++)
		s->lack[b] = s->bplace[b] == BP_BUILDING ? lack_of(s, b) : 0;
	for (k = 0; k < BUILDERS_MAX_PLAYERS; k++) {
		s->p[k].vp = 0;
		s->prog[k] = 0;
		s->idle[k] = 0;
	}
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		int o = s->bown[b];

		if (o >= s->nplayers || o >= BUILDERS_MAX_PLAYERS)
			continue;
		if (s->bplace[b] == BP_DONE)
			s->p[o].vp = (uint8_t)(s->p[o].vp + builders_buildings[b].vp);
		else if (s->bplace[b] == BP_BUILDING)
			s->prog[o] |= 1ULL << b;
	}
	for (u = 0; u < BUILDERS_UNITS; u++)
		if (s->uown[u] < s->nplayers && s->uown[u] < BUILDERS_MAX_PLAYERS &&
		    s->uat[u] == BUILDERS_NONE)
			s->idle[s->uown[u]] |= 1u << u;
	s->sentmask = 0;
	for (b = 0; b < BUILDERS_BUILDINGS; b++)
		if (s->sent[b])
			s->sentmask |= 1ULL << b;
	memset(s->wle, 0, sizeof(s->wle));
	memset(s->rmask, 0, sizeof(s->rmask));
	for (u = 0; u < BUILDERS_UNITS; u++) {
		for (k = s->uwage[u] <= BUILDERS_FREED_WAGE ? s->uwage[u] : BUILDERS_FREED_WAGE + 1;
		     k <= BUILDERS_FREED_WAGE; k++)
			s->wle[k] |= 1u << u;
		for (r = 0; r < BR_COUNT; r++)
			if (s->ures[u][r])
				s->rmask[r] |= 1u << u;
	}
	for (k = 0; k < BUILDERS_MAX_PLAYERS; k++) {
		s->plack[k] = 0;
		s->tidle[k] = 0;
		if (k < s->nplayers)
			refresh_lack(s, k);
	}
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] < s->nplayers && s->town[t] < BUILDERS_MAX_PLAYERS &&
		    s->tat[t] == BUILDERS_NONE)
			s->tidle[s->town[t]] |= (uint8_t)(1u << t);
}

void builders_missing(const struct builders_state *s, int b, uint8_t out[BR_COUNT])
{
	int r;

	for (r = 0; r < BR_COUNT; r++) {
		int m = builders_buildings[b].need[r] - s->have[b][r];

		out[r] = (uint8_t)(m > 0 ? m : 0);
	}
}

/*
 * The units of the active seat that can be sent somewhere: the same answer
 * as unit_can_go() for each, worked out for all at once.  The buildings
 * not yet sent to this turn all cost c1 sesterces of actions; for them a
 * unit is useful when it makes a resource one of them lacks (lack1), or,
 * if it may carry a tool, when one of them lacks the resource of a free
 * tool (a unit that makes none of what a building lacks gains 1 of it
 * with the tool).  Only the buildings already sent to this turn, whose
 * next send costs more, are checked one by one.
 */
static uint32_t senders(const struct builders_state *s, int c1)
{
	const uint64_t prog = s->prog[s->cur], again = prog & s->sentmask;
	unsigned lack1 = s->plack[s->cur], tfree = s->tidle[s->cur];
	int budget = s->p[s->cur].money - c1;
	uint32_t cheap, out, useful = 0, rest;
	uint64_t m;

	if (budget < 0)
		return 0;
	cheap = s->idle[s->cur] & s->wle[budget < BUILDERS_FREED_WAGE ? budget : BUILDERS_FREED_WAGE];
	if (again) {	/* a building already sent to: lack1 without it */
		lack1 = 0;
		for (m = prog & ~again; m; m &= m - 1)
			lack1 |= s->lack[__builtin_ctzll(m)];
	}
	useful |= s->rmask[0] & -(uint32_t)(lack1 & 1);
	useful |= s->rmask[1] & -(uint32_t)((lack1 >> 1) & 1);
	useful |= s->rmask[2] & -(uint32_t)((lack1 >> 2) & 1);
	useful |= s->rmask[3] & -(uint32_t)((lack1 >> 3) & 1);
	useful |= ~s->bound & -(uint32_t)((lack1 & tfree) != 0);
	out = cheap & useful;
	/* the others may still go where the next send costs more */
	for (rest = again ? cheap & ~out : 0; rest; rest &= rest - 1) {
		int x = __builtin_ctz(rest);

		for (m = again; m; m &= m - 1)
			if (send_options(s, x, __builtin_ctzll(m), tfree)) {
				out |= 1u << x;
				break;
			}
	}
	return out;
}

static int moves_turn(const struct builders_state *s, struct move *v)
{
	const struct builders_player *p = &s->p[s->cur];
	int f = builders_free_left(s), c1 = f ? 0 : BUILDERS_ACTION_PRICE;
	int n = 0;
	uint32_t m;

	/* no free action and no money for one: only the end of the turn (a
	 * loan needs 15 to repay) */
	if (p->money < c1)
		return add(v, 0, BM_END, 0, 0);
	n = row_moves(v, n, s->brow, s->nbdeck, BM_START);
	n = row_moves(v, n, s->wrow, s->nwdeck, BM_HIRE);
	for (m = senders(s, c1); m; m &= m - 1)
			n = add(v, n, BM_SEND, __builtin_ctz(m), 0);
	if (!s->invested) {
		int left = p->money - c1;

		n = put(v, n, s->spile && left >= BUILDERS_SLAVE_PRICE, BM_ENSLAVE, 0);
		n = put(v, n, s->tpile && left >= BUILDERS_TOOL_PRICE, BM_TOOL, 0);
		n = put(v, n, s->loan_pile, BM_LOAN, 0);
		if (left >= BUILDERS_UNI_PRICE && any_education(s))
			n = add(v, n, BM_EDUCATE, 0, 0);
	}
	/* take_ok(): free actions, or 6 for 2 free + 1 paid (5) */
	n = put(v, n, f >= 1, BM_TAKE, 1);
	n = put(v, n, f >= 2, BM_TAKE, 2);
	n = put(v, n, (f == 3) | ((f == 2) & (p->money >= BUILDERS_ACTION_PRICE)), BM_TAKE, 3);
	for (m = s->idle[s->cur] & s->bound; m; m &= m - 1)
		n = add(v, n, BM_FREE, __builtin_ctz(m), 0);
	n = put(v, n, (p->loans != 0) & (p->money >= BUILDERS_LOAN_REPAY), BM_REPAY, 0);
	return add(v, n, BM_END, 0, 0);
}

static int moves_send(const struct builders_state *s, struct move *v)
{
	unsigned tfree = tools_free(s, s->cur);
	uint64_t m;
	int n = 0, t;

	for (m = s->prog[s->cur]; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		unsigned opt = send_options(s, s->pend, b, tfree);

		if (opt & 1)
			n = add(v, n, BM_TO, b, 0);
		for (t = 0; t < BUILDERS_TOOLS; t++)
			if (opt & (2u << t))
				n = add(v, n, BM_TO, b, 1 + t);
	}
	return n;
}

static int moves_enslave(const struct builders_state *s, struct move *v)
{
	int k, n = 0;

	for (k = 0; k < BUILDERS_SLAVES; k++)
		if ((s->spile >> k) & 1)
			n = add(v, n, BM_ENSLAVE, 1 + k, 0);
	return n;
}

static int moves_tool(const struct builders_state *s, struct move *v)
{
	int t, n = 0;

	for (t = 0; t < BUILDERS_TOOLS; t++)
		if ((s->tpile >> t) & 1)
			n = add(v, n, BM_TOOL, 1 + t, 0);
	return n;
}

static int moves_educate(const struct builders_state *s, struct move *v)
{
	uint32_t m;
	int k, n = 0;

	for (m = s->idle[s->cur]; m; m &= m - 1)
		for (k = 0; k < BUILDERS_UNIS; k++)
			if (can_educate(s, __builtin_ctz(m), k))
				n = add(v, n, BM_EDUCATE, 1 + __builtin_ctz(m), k);
	return n;
}

int builders_moves(const void *st, int seat, struct move_list *out)
{
	const struct builders_state *s = st;
	int n = 0;

	out->nmeta = 0;
	if ((unsigned)seat >= s->nplayers || s->step >= BS_OVER || s->cur != seat) {
		out->n = 0;
		return 0;
	}
	switch (s->step) {
	case BS_TURN: n = moves_turn(s, out->v); break;
	case BS_SEND: n = moves_send(s, out->v); break;
	case BS_ENSLAVE: n = moves_enslave(s, out->v); break;
	case BS_TOOL: n = moves_tool(s, out->v); break;
	case BS_EDUCATE: n = moves_educate(s, out->v); break;
	case BS_FINAL: n = builders_moves_final(s, out->v); break;
	}
	if (s->step >= BS_SEND && s->step <= BS_EDUCATE) {
		n = add(out->v, n, BM_BACK, 0, 0);	/* a person may change their mind */
		out->nmeta = 1;
	}
	out->n = n;
	return n;
}

unsigned builders_awaiting(const void *st)
{
	int seat = builders_decider(st);

	return seat < 0 ? 0u : 1u << seat;
}

static int legal_turn(const struct builders_state *s, struct move m)
{
	const struct builders_player *p = &s->p[s->cur];

	switch (m.kind) {
	case BM_START:
		return !m.b && m.a < BUILDERS_BUILDINGS && in_row(s->brow, m.a) && after_one(s) >= 0;
	case BM_HIRE:
		return !m.b && m.a < BUILDERS_WORKERS && in_row(s->wrow, m.a) && after_one(s) >= 0;
	case BM_SEND:
		return !m.b && m.a < BUILDERS_UNITS && ((s->idle[s->cur] >> m.a) & 1) &&
		       unit_can_go(s, m.a, tools_free(s, s->cur));
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_LOAN:
	case BM_EDUCATE:
		return !m.a && !m.b && invest_open(s, m.kind);
	case BM_TAKE:
		return !m.b && m.a >= 1 && m.a <= 3 && take_ok(s, m.a);
	case BM_FREE:
		return !m.b && m.a >= BU_SLAVE && m.a < BU_MACHINE && after_one(s) >= 0 &&
		       slave_free_to_go(s, s->cur, m.a - BU_SLAVE);
	case BM_REPAY:
		return !m.a && !m.b && p->loans && p->money >= BUILDERS_LOAN_REPAY;
	case BM_END:
		return !m.a && !m.b;
	}
	return 0;
}

static int legal(const struct builders_state *s, struct move m)
{
	const struct builders_player *p = &s->p[s->cur];

	if (m.c)
		return 0;
	if (__builtin_expect(s->step == BS_TURN, 1))	/* nearly every decision */
		return legal_turn(s, m);
	if (m.kind == BM_BACK)
		return !m.a && !m.b && s->step >= BS_SEND && s->step <= BS_EDUCATE;
	switch (s->step) {
	case BS_SEND:
		if (m.kind != BM_TO || m.a >= BUILDERS_BUILDINGS || m.b > BUILDERS_TOOLS ||
		    !((s->prog[s->cur] >> m.a) & 1))
			return 0;
		return (send_options(s, s->pend, m.a, tools_free(s, s->cur)) >> m.b) & 1;
	case BS_ENSLAVE:
		return m.kind == BM_ENSLAVE && !m.b && m.a >= 1 && m.a <= BUILDERS_SLAVES &&
		       ((s->spile >> (m.a - 1)) & 1);
	case BS_TOOL:
		return m.kind == BM_TOOL && !m.b && m.a >= 1 && m.a <= BUILDERS_TOOLS &&
		       ((s->tpile >> (m.a - 1)) & 1);
	case BS_EDUCATE:
		return m.kind == BM_EDUCATE && m.a >= 1 && m.a <= BUILDERS_UNITS && m.b < BUILDERS_UNIS &&
		       can_educate(s, m.a - 1, m.b);
	case BS_FINAL:
		switch (m.kind) {
		case BM_FREE:
			return !m.b && m.a >= BU_SLAVE && m.a < BU_MACHINE &&
			       p->money >= BUILDERS_FREE_PRICE && slave_free_to_go(s, s->cur, m.a - BU_SLAVE);
		case BM_REPAY:
			return !m.a && !m.b && p->loans && p->money >= BUILDERS_LOAN_REPAY;
		case BM_END:
			return !m.a && !m.b;
		}
		return 0;
	}
	return 0;
}

int builders_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct builders_state *s = st;
	int cost;

	if ((unsigned)seat >= s->nplayers || s->step >= BS_OVER || s->cur != seat) {
		buf_setf(err, "%s", L(LOC(log), "It is not your decision now.",
				      "Ahora no te toca decidir."));
		return -1;
	}
	if (!legal(s, m)) {
		buf_setf(err, "%s", L(LOC(log), "That move is not possible now.",
				      "Esa jugada no es posible ahora."));
		return -1;
	}
	switch (m.kind) {
	case BM_START:
		builders_do_start(s, m.a, log);
		break;
	case BM_HIRE:
		builders_do_hire(s, m.a, log);
		break;
	case BM_SEND:
		s->pend = (uint8_t)m.a;
		s->step = BS_SEND;
		break;
	case BM_TO:
		builders_do_send(s, m.a, m.b, log);
		break;
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_EDUCATE:
		if (m.a == 0) {
			s->step = m.kind == BM_ENSLAVE ? BS_ENSLAVE :
				  m.kind == BM_TOOL ? BS_TOOL : BS_EDUCATE;
			break;
		}
		builders_do_invest(s, m, log);
		break;
	case BM_LOAN:
		builders_do_invest(s, m, log);
		break;
	case BM_TAKE:
		cost = spend_actions(s, m.a);
		gain(s, seat, take_gain[m.a]);
		if (log) {
			builders_log_paid(log, seat, m.a, cost);
			if (m.a == 1)
				game_logf(log, LOG_PUBLIC, L(log->loc, "%s takes 1 sesterce (1 action).",
							     "%s coge 1 sestercio (1 acción)."),
					  NAME(log, seat));
			else
				game_logf(log, LOG_PUBLIC, L(log->loc, "%s takes %d sesterces (%d actions).",
							     "%s coge %d sestercios (%d acciones)."),
					  NAME(log, seat), take_gain[m.a], m.a);
		}
		break;
	case BM_FREE:
		builders_do_free(s, m.a, log);
		if (s->step == BS_FINAL && !final_options(s, seat))
			builders_final_next(s, log);
		break;
	case BM_REPAY:
		builders_do_repay(s, log);
		if (s->step == BS_FINAL && !final_options(s, seat))
			builders_final_next(s, log);
		break;
	case BM_END:
		if (s->step == BS_FINAL)
			builders_final_next(s, log);
		else
			builders_end_turn(s, log);
		break;
	case BM_BACK:
		s->pend = BUILDERS_NONE;
		s->step = BS_TURN;
		break;
	}
	return 0;
}

/* ---- the driver table ---- */

static const char *const builders_aliases[] = { "the builders", "builders antiquity",
	"los constructores", NULL };

/* a seat's turn within a round */
static unsigned builders_turn(const void *st)
{
	const struct builders_state *s = st;

	return (unsigned)s->round << 8 | s->cur;
}

const struct game_ops builders_ops = {
	.api_version = GAME_API_VERSION,
	.id = "builders",
	.aliases = builders_aliases,
	.name = { "The Builders: Antiquity", "Los Constructores: Antigüedad" },
	.min_players = BUILDERS_MIN_PLAYERS,
	.max_players = BUILDERS_MAX_PLAYERS,
	.state_size = sizeof(struct builders_state),
	.options_help = "no options: the rulebook describes no variant",
	.option_words = NULL,
	.score_decimals = 1,	/* tenths: 0.1 VP per sesterce */
	/* ~2 ms an answer; 199/200 wins (docs/games/builders.md) */
	.search_iterations = 100,
	.setup = builders_setup,
	.awaiting = builders_awaiting,
	.moves = builders_moves,
	.move_id = builders_move_id,
	.move_label = builders_move_label,
	.move_group = builders_move_group,
	.near_miss = builders_near_miss,
	.apply = builders_apply,
	.prompt = builders_prompt,
	.render_public = builders_render_public,
	.render_private = builders_render_private,
	.scene = builders_scene,
	.save = builders_save,
	.load = builders_load,
	.result = builders_result,
	.bot_move = builders_bot_move,
	.determinize = builders_determinize,
	.check = builders_check,
	.turn = builders_turn,
	.intro = builders_intro,
	.secrets = builders_secrets,
	.rules = builders_rules,
	.card = builders_card,
	.card_names = builders_card_names,
};
