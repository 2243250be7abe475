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
 * This file keeps the decisions (awaiting, moves() and apply() by step,
 * the legality check), the public small queries and the driver table;
 * setup, the actions, the turn's end and the refusals live in files of
 * their own, listed in builders_int.h with what they share.
 */
#include <string.h>

#include "games/builders/builders_int.h"
#include "util/text.h"

/* ---- small helpers ---- */

int builders_decider(const struct builders_state *s)
{
	return s->step < BS_OVER ? s->cur : -1;
}

int builders_next_seat(const struct builders_state *s, int seat)
{
	return seat + 1 < s->nplayers ? seat + 1 : 0;
}

int builders_free_left(const struct builders_state *s)
{
	/* without a branch: how many actions were used is random in playouts */
	return (BUILDERS_FREE_ACTIONS - s->used) & -(s->used < BUILDERS_FREE_ACTIONS);
}

int builders_action_money(const struct builders_state *s, int k)
{
	int paid = k - builders_free_left(s);

	return (paid * BUILDERS_ACTION_PRICE) & -(paid > 0);
}

int builders_wage(const struct builders_state *s, int u)
{
	return s->uwage[u];
}

int builders_can_equip(const struct builders_state *s, int u)
{
	return !((s->bound >> u) & 1);
}

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
	case BS_TURN: n = builders_moves_turn(s, out->v); break;
	case BS_SEND: n = builders_moves_send(s, out->v); break;
	case BS_ENSLAVE: n = builders_moves_enslave(s, out->v); break;
	case BS_TOOL: n = builders_moves_tool(s, out->v); break;
	case BS_EDUCATE: n = builders_moves_educate(s, out->v); break;
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

int builders_legal(const struct builders_state *s, struct move m)
{
	const struct builders_player *p = &s->p[s->cur];

	if (m.c)
		return 0;
	if (__builtin_expect(s->step == BS_TURN, 1))	/* nearly every decision */
		return builders_legal_turn(s, m);
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
	if (!builders_legal(s, m)) {
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
