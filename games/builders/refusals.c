/*
 * refusals.c: The Builders' near_miss (issue 25: refusals say why): for a
 * move typed that moves() does not offer, the rule or the price that
 * stands in the way.  Reads the state only.
 */
#include "games/builders/builders_int.h"
#include "util/text.h"

/* ---- refusals that say why ---- */

/* The moves of the step that the rules would know, whatever they cost now:
 * what a player may type that moves() does not offer. */
static int candidates(const struct builders_state *s, struct move *v)
{
	int n = 0, i, u, t;
	uint64_t m;

	switch (s->step) {
	case BS_TURN:
		for (i = 0; i < BUILDERS_ROW; i++)
			if (s->brow[i] != BUILDERS_NONE)
				n = add(v, n, BM_START, s->brow[i], 0);
		for (i = 0; i < BUILDERS_ROW; i++)
			if (s->wrow[i] != BUILDERS_NONE)
				n = add(v, n, BM_HIRE, s->wrow[i], 0);
		for (u = 0; u < BUILDERS_UNITS; u++)
			if (s->uown[u] == s->cur && s->uat[u] == BUILDERS_NONE)
				n = add(v, n, BM_SEND, u, 0);
		n = add(v, n, BM_ENSLAVE, 0, 0);
		n = add(v, n, BM_TOOL, 0, 0);
		n = add(v, n, BM_LOAN, 0, 0);
		n = add(v, n, BM_EDUCATE, 0, 0);
		for (i = 1; i <= 3; i++)
			n = add(v, n, BM_TAKE, i, 0);
		/* the slaves and the loans, as at the end */
		__attribute__((fallthrough));
	case BS_FINAL:
		for (u = BU_SLAVE; u < BU_MACHINE; u++)
			if (s->uown[u] == s->cur && ((s->bound >> u) & 1))
				n = add(v, n, BM_FREE, u, 0);
		n = add(v, n, BM_REPAY, 0, 0);
		break;
	case BS_SEND:
		for (m = s->prog[s->cur]; m; m &= m - 1) {
			n = add(v, n, BM_TO, __builtin_ctzll(m), 0);
			for (t = 0; t < BUILDERS_TOOLS; t++)
				n = add(v, n, BM_TO, __builtin_ctzll(m), 1 + t);
		}
		break;
	default:
		break;
	}
	return n;
}

/* The candidate the folded text names: its id exactly, else the only id
 * it begins; -1 when none, -2 - the first when it begins several. */
static int named(const struct builders_state *s, const struct move *v, int n, const char *text)
{
	struct buf id = BUF_INIT, f = BUF_INIT;
	size_t len = strlen(text);
	int i, hit = -1, nprefix = 0, prefix = -1;

	for (i = 0; i < n && hit < 0 && len; i++) {
		buf_reset(&id);
		buf_reset(&f);
		builders_move_id(s, s->cur, v[i], &id);
		text_fold(buf_str(&id), &f);
		if (!strcmp(buf_str(&f), text))
			hit = i;
		else if (!strncmp(buf_str(&f), text, len) && nprefix++ == 0)
			prefix = i;
	}
	buf_release(&id);
	buf_release(&f);
	return hit >= 0 ? hit : nprefix == 1 ? prefix : nprefix ? -2 - prefix : -1;
}

static const char *ordinal(int k, enum locale loc)
{
	switch (k) {
	case 2: return L(loc, "second", "segundo");
	case 3: return L(loc, "third", "tercer");
	case 4: return L(loc, "fourth", "cuarto");
	default: return L(loc, "next", "siguiente");
	}
}

/* Why a send of unit u to building b (tool t + 1, or 0) is not offered. */
static void why_to(const struct builders_state *s, int u, int b, int tool, enum locale loc,
		   struct buf *out)
{
	const char *bn = builders_buildings[b].name[loc];
	int k = s->sent[b] + 1, wage = builders_wage(s, u), cost = builders_action_money(s, k);
	int money = s->p[s->cur].money;
	struct buf t = BUF_INIT;

	builders_unit_name(s, u, loc, &t);
	if (tool && (s->town[tool - 1] != s->cur || !((s->tidle[s->cur] >> (tool - 1)) & 1)))
		buf_printf(out, L(loc, "You have no free %s to give %s.", "No tienes %s libre para dárselo a %s."),
			   builders_tools[tool - 1].name[loc], buf_str(&t));
	else if (tool && ((s->bound >> u) & 1))
		buf_printf(out, L(loc, "%s is a slave and carries no tool.", "%s es un esclavo y no lleva herramientas."),
			   buf_str(&t));
	else if (cost + wage > money && k > 1)
		buf_printf(out, L(loc, "The %s worker to %s this turn costs %d actions (%d s) + wage %d s; you have %d s.",
				  "El %s trabajador a %s este turno cuesta %d acciones (%d s) + sueldo %d s; tienes %d s."),
			   ordinal(k, loc), bn, k, cost, wage, money);
	else if (cost + wage > money)
		buf_printf(out, L(loc, "Sending %s to %s costs %s + wage %d s; you have %d s.",
				  "Enviar a %s a %s cuesta %s + sueldo %d s; tienes %d s."),
			   buf_str(&t), bn, cost ? L(loc, "an extra action (5 s)", "una acción extra (5 s)")
						: L(loc, "1 action", "1 acción"), wage, money);
	else {
		uint8_t miss[BR_COUNT];

		builders_missing(s, b, miss);
		buf_printf(out, L(loc, "%s would add nothing %s still misses (missing ",
				  "%s no aportaría nada de lo que le falta a %s (falta "), buf_str(&t), bn);
		builders_res_text(miss, loc, out);
		buf_addstr(out, ").");
	}
	buf_release(&t);
}

void builders_near_miss(const void *st, int seat, const char *text, enum locale loc,
			struct buf *out)
{
	const struct builders_state *s = st;
	struct move v[BUILDERS_BUILDINGS * (1 + BUILDERS_TOOLS) + BUILDERS_UNITS + 32];
	const struct builders_player *p;
	int n, i, money, c1, f;
	struct buf t = BUF_INIT;
	struct move m;

	loc = loc < LOC_COUNT ? loc : LOC_EN;
	if ((unsigned)seat >= s->nplayers || s->step >= BS_OVER || s->cur != seat)
		return;
	n = candidates(s, v);
	if ((i = named(s, v, n, text)) == -1)
		return;
	m = v[i >= 0 ? i : -2 - i];
	p = &s->p[s->cur];
	money = p->money;
	f = builders_free_left(s);
	c1 = builders_action_money(s, 1);
	if (s->step == BS_TURN && m.kind != BM_REPAY && m.kind != BM_FREE && money < c1) {
		buf_printf(out, L(loc, "You have no free action left, and an extra one costs %d s; you have %d s. "
				  "`end turn` ends your turn.",
				  "No te quedan acciones libres, y una extra cuesta %d s; tienes %d s. "
				  "`end turn` termina tu turno."), c1, money);
		return;
	}
	if (i < 0)
		return;		/* several: game_parse lists them */
	switch (m.kind) {
	case BM_TAKE: {
		int k = m.a, gain = k * (k + 1) / 2, cost = builders_action_money(s, k);

		if (cost > money)
			buf_printf(out, L(loc, "Taking %d sesterces takes %d actions: %d extra at %d s; you have %d s.",
					  "Coger %d sestercios son %d acciones: %d extra a %d s; tienes %d s."),
				   gain, k, k - f, BUILDERS_ACTION_PRICE, money);
		else
			buf_printf(out, L(loc, "Taking %d sesterces takes %d actions and you have %d free: "
					  "the extra ones would cost %d s, more than it brings.",
					  "Coger %d sestercios son %d acciones y te quedan %d libres: "
					  "las extra costarían %d s, más de lo que da."), gain, k, f, cost);
		break;
	}
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_LOAN:
	case BM_EDUCATE: {
		static const int price[] = { [BM_ENSLAVE] = BUILDERS_SLAVE_PRICE,
					     [BM_TOOL] = BUILDERS_TOOL_PRICE, [BM_LOAN] = 0,
					     [BM_EDUCATE] = BUILDERS_UNI_PRICE };
		int pile = m.kind == BM_ENSLAVE ? s->spile != 0 : m.kind == BM_TOOL ? s->tpile != 0
			 : m.kind == BM_LOAN ? s->loan_pile > 0 : s->upile != 0;

		if (s->invested)
			buf_addstr(out, L(loc, "You have made this turn's investment already: one a turn "
					  "(a slave, a tool, a loan or a university).",
					  "Ya has hecho la inversión de este turno: una por turno "
					  "(un esclavo, una herramienta, un préstamo o una universidad)."));
		else if (!pile)
			buf_addstr(out, L(loc, "None is left to take.", "No queda ninguno."));
		else if (money - c1 < price[m.kind])
			buf_printf(out, L(loc, "That costs %d s%s; you have %d s.", "Eso cuesta %d s%s; tienes %d s."),
				   price[m.kind], c1 ? L(loc, " + 5 s for an extra action", " + 5 s por una acción extra")
						     : "", money);
		else if (m.kind == BM_EDUCATE)
			buf_addstr(out, L(loc, "None of your available workers can be educated in what the "
					  "universities left teach (slaves and machines cannot, and a worker "
					  "only once).",
					  "Ninguno de tus trabajadores disponibles puede educarse en lo que enseñan "
					  "las universidades que quedan (esclavos y máquinas no, y cada trabajador "
					  "solo una vez)."));
		break;
	}
	case BM_SEND: {
		int wage = builders_wage(s, m.a);
		uint64_t pm;

		builders_unit_name(s, m.a, loc, &t);
		if (!s->prog[s->cur]) {
			buf_addstr(out, L(loc, "You have no building in progress: start one first.",
					  "No tienes ningún edificio en obra: inicia uno primero."));
			break;
		}
		if (wage + c1 > money) {
			buf_printf(out, L(loc, "%s's wage is %d s%s; you have %d s.",
					  "El sueldo de %s es %d s%s; tienes %d s."), buf_str(&t), wage,
				   c1 ? L(loc, " + 5 s for an extra action", " + 5 s por una acción extra") : "",
				   money);
			break;
		}
		/* each building it could go to: the first reason */
		for (pm = s->prog[s->cur]; pm; pm &= pm - 1) {
			if (out->len)
				buf_addch(out, ' ');
			why_to(s, m.a, __builtin_ctzll(pm), 0, loc, out);
		}
		break;
	}
	case BM_TO:
		if (s->pend < BUILDERS_UNITS)
			why_to(s, s->pend, m.a, m.b, loc, out);
		break;
	case BM_FREE:
		builders_unit_name(s, m.a, loc, &t);
		if (s->uat[m.a] != BUILDERS_NONE)
			buf_printf(out, L(loc, "%s is at work on %s: only a slave not at work can be freed.",
					  "%s está trabajando en %s: solo se libera a un esclavo que no trabaja."),
				   buf_str(&t), s->uat[m.a] < BUILDERS_BUILDINGS
				   ? builders_buildings[s->uat[m.a]].name[loc] : "?");
		else if (s->step == BS_FINAL && money < BUILDERS_FREE_PRICE)
			buf_printf(out, L(loc, "Freeing a slave costs %d s; you have %d s.",
					  "Liberar a un esclavo cuesta %d s; tienes %d s."), BUILDERS_FREE_PRICE, money);
		break;
	case BM_REPAY:
		if (!p->loans)
			buf_addstr(out, L(loc, "You have no loan to repay.", "No tienes préstamos que devolver."));
		else if (money < BUILDERS_LOAN_REPAY)
			buf_printf(out, L(loc, "Repaying a loan costs %d s; you have %d s.",
					  "Devolver un préstamo cuesta %d s; tienes %d s."), BUILDERS_LOAN_REPAY, money);
		break;
	default:
		break;
	}
	buf_release(&t);
}
