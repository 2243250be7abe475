/*
 * render.c: every text The Builders shows: move ids and labels, prompts,
 * the public board, the private view, the intro and the list of secrets.
 *
 * Everything on the table is open except the order of the two decks.  A
 * card is always shown by its tag, "Pyramid (S4 W4 A4 D4 → 18 s, 8 VP)"
 * or "Journeyman 3 (S1 W1 A1 D1, wage 4)": secrets() lists the tags of the
 * next card of each deck, which the board never prints (it shows the decks
 * as counts), and tests check that none of them appears there.  Buildings
 * are unique and worker cards carry a number, so a tag names one card.
 */
#include <string.h>

#include "games/builders/builders.h"
#include "util/text.h"

static enum locale fix(enum locale loc)
{
	return loc < LOC_COUNT ? loc : LOC_EN;
}

static const char *bname(int b, enum locale loc)
{
	return b >= 0 && b < BUILDERS_BUILDINGS ? builders_buildings[b].name[loc] : "?";
}

static const char *bid(int b)
{
	return b >= 0 && b < BUILDERS_BUILDINGS ? builders_buildings[b].id : "?";
}

static const char *rname(int r, enum locale loc)
{
	return r >= 0 && r < BR_COUNT ? builders_resources[r].name[loc] : "?";
}

static const char *tname(int t, enum locale loc)
{
	return t >= 0 && t < BUILDERS_TOOLS ? builders_tools[t].name[loc] : "?";
}

/* ---- tags ---- */

void builders_res_text(const uint8_t res[BR_COUNT], enum locale loc, struct buf *out)
{
	int r, n = 0;

	loc = fix(loc);
	for (r = 0; r < BR_COUNT; r++)
		if (res[r])
			buf_printf(out, "%s%c%d", n++ ? " " : "", builders_res_letter[loc][r], res[r]);
	if (!n)
		buf_addstr(out, "-");
}

void builders_building_tag(int b, enum locale loc, struct buf *out)
{
	const struct builders_building_info *bi;

	loc = fix(loc);
	if (b < 0 || b >= BUILDERS_BUILDINGS) {
		buf_addstr(out, "?");
		return;
	}
	bi = &builders_buildings[b];
	buf_printf(out, "%s (", bi->name[loc]);
	builders_res_text(bi->need, loc, out);
	if (bi->makes)
		buf_printf(out, L(loc, " → %d VP, machine: %c%d)", " → %d PV, máquina: %c%d)"), bi->vp,
			   builders_res_letter[loc][bi->makes - 1], BUILDERS_MACHINE_MAKES);
	else
		buf_printf(out, L(loc, " → %d s, %d VP)", " → %d s, %d PV)"), bi->coins, bi->vp);
}

void builders_unit_name(const struct builders_state *s, int u, enum locale loc, struct buf *out)
{
	loc = fix(loc);
	if (u < 0 || u >= BUILDERS_UNITS)
		buf_addstr(out, "?");
	else if (u < BU_SLAVE)
		buf_printf(out, "%s %d", builders_ranks[builders_workers[u].rank].name[loc],
			   builders_workers[u].number);
	else if (u < BU_MACHINE)
		buf_printf(out, "%s %d", s && s->freed[u - BU_SLAVE] ? L(loc, "Freedman", "Liberto")
								    : L(loc, "Slave", "Esclavo"),
			   u - BU_SLAVE + 1);
	else
		buf_addstr(out, bname(BB_FIRST_MACHINE + u - BU_MACHINE, loc));
}

static void unit_id(const struct builders_state *s, int u, struct buf *out)
{
	if (u < 0 || u >= BUILDERS_UNITS)
		buf_addstr(out, "?");
	else if (u < BU_SLAVE)
		buf_printf(out, "%s %d", builders_ranks[builders_workers[u].rank].id,
			   builders_workers[u].number);
	else if (u < BU_MACHINE)
		buf_printf(out, "%s %d", s->freed[u - BU_SLAVE] ? "freedman" : "slave", u - BU_SLAVE + 1);
	else
		buf_addstr(out, bid(BB_FIRST_MACHINE + u - BU_MACHINE));
}

static int educated(const struct builders_state *s, int u)
{
	int k;

	for (k = 0; k < BUILDERS_UNIS; k++)
		if (s->uni[k] == u)
			return 1;
	return 0;
}

/* A worker card as printed (no University): the form of the row, the
 * deck's secret and the intro. */
static void worker_card_tag(int w, enum locale loc, struct buf *out)
{
	if (w < 0 || w >= BUILDERS_WORKERS) {
		buf_addstr(out, "?");
		return;
	}
	buf_printf(out, "%s %d (", builders_ranks[builders_workers[w].rank].name[loc],
		   builders_workers[w].number);
	builders_res_text(builders_workers[w].res, loc, out);
	buf_printf(out, L(loc, ", wage %d)", ", sueldo %d)"), builders_wages[builders_workers[w].rank]);
}

void builders_unit_tag(const struct builders_state *s, int u, enum locale loc, struct buf *out)
{
	int wage;

	loc = fix(loc);
	builders_unit_name(s, u, loc, out);
	if (u < 0 || u >= BUILDERS_UNITS)
		return;
	buf_addstr(out, " (");
	builders_res_text(s->ures[u], loc, out);
	wage = builders_wage(s, u);
	if (wage)
		buf_printf(out, L(loc, ", wage %d", ", sueldo %d"), wage);
	else
		buf_addstr(out, L(loc, ", no wage", ", sin sueldo"));
	if (educated(s, u))
		buf_addstr(out, L(loc, ", educated", ", educado"));
	buf_addch(out, ')');
}

/* What k actions cost now: "uses 1 of your 3 free actions", "1 extra
 * action: 5 s", "your 2 free actions + 1 extra: 5 s". */
static void actions_text(const struct builders_state *s, int k, enum locale loc, struct buf *out)
{
	int f = builders_free_left(s), paid = k > f ? k - f : 0, free_ = k - paid;
	int price = paid * BUILDERS_ACTION_PRICE;

	if (!paid && f == 1)
		buf_addstr(out, L(loc, "uses your last free action", "usa tu última acción libre"));
	else if (!paid)
		buf_printf(out, L(loc, "uses %d of your %d free actions", "usa %d de tus %d acciones libres"),
			   free_, f);
	else if (!free_ && paid == 1)
		buf_printf(out, L(loc, "1 extra action: %d s", "1 acción extra: %d s"), price);
	else if (!free_)
		buf_printf(out, L(loc, "%d extra actions: %d s", "%d acciones extra: %d s"), paid, price);
	else if (free_ == 1)
		buf_printf(out, L(loc, "your last free action + %d extra: %d s",
				  "tu última acción libre + %d extra: %d s"), paid, price);
	else
		buf_printf(out, L(loc, "your %d free actions + %d extra: %d s",
				  "tus %d acciones libres + %d extra: %d s"), free_, paid, price);
}

/* ---- move ids ---- */

void builders_move_id(const void *st, int seat, struct move m, struct buf *out)
{
	const struct builders_state *s = st;

	switch (m.kind) {
	case BM_START:
		buf_printf(out, "start %s", bid(m.a));
		break;
	case BM_HIRE:
		buf_addstr(out, "hire ");
		unit_id(s, m.a, out);
		break;
	case BM_SEND:
		buf_addstr(out, "send ");
		unit_id(s, m.a, out);
		break;
	case BM_TO:
		buf_printf(out, "to %s", bid(m.a));
		if (m.b)
			buf_printf(out, " with %s", m.b <= BUILDERS_TOOLS ? builders_tools[m.b - 1].id : "?");
		break;
	case BM_ENSLAVE:
		if (!m.a)
			buf_addstr(out, "enslave");
		else
			buf_printf(out, "buy slave %d", m.a);
		break;
	case BM_TOOL:
		if (!m.a)
			buf_addstr(out, "buy tool");
		else
			buf_printf(out, "buy %s", m.a <= BUILDERS_TOOLS ? builders_tools[m.a - 1].id : "?");
		break;
	case BM_LOAN:
		buf_addstr(out, "take loan");
		break;
	case BM_EDUCATE:
		if (!m.a) {
			buf_addstr(out, "educate");
			break;
		}
		buf_addstr(out, "educate ");
		unit_id(s, m.a - 1, out);
		buf_printf(out, " in %s", m.b < BR_COUNT ? builders_resources[m.b].id : "?");
		break;
	case BM_TAKE:
		buf_printf(out, "take %d %s", m.a < 4 ? (int)(m.a * (m.a + 1) / 2) : 0,
			   m.a == 1 ? "sesterce" : "sesterces");
		break;
	case BM_FREE:
		buf_addstr(out, "free ");
		unit_id(s, m.a, out);
		break;
	case BM_REPAY:
		buf_addstr(out, "repay loan");
		break;
	case BM_END:
		buf_addstr(out, s->step == BS_FINAL ? "done" : "end turn");
		break;
	case BM_BACK:
		buf_addstr(out, "back");
		break;
	default:
		buf_addstr(out, "?");
	}
	(void)seat;
}

/* ---- move labels ---- */

static void label_to(const struct builders_state *s, struct move m, enum locale loc,
		     struct buf *out)
{
	const struct builders_building_info *bi = &builders_buildings[m.a];
	uint8_t miss[BR_COUNT];
	int u = s->pend, r, done = 1, k = s->sent[m.a] + 1;

	builders_missing(s, m.a, miss);
	buf_printf(out, L(loc, "To %s", "Destino: %s"), bi->name[loc]);
	if (m.b)
		buf_printf(out, L(loc, " with the %s (+%c1)", " con %s (+%c1)"), tname(m.b - 1, loc),
			   builders_res_letter[loc][m.b - 1]);
	buf_addstr(out, L(loc, " (missing ", " (falta "));
	builders_res_text(miss, loc, out);
	buf_addstr(out, "): ");
	actions_text(s, k, loc, out);
	if (u < BUILDERS_UNITS && builders_wage(s, u))
		buf_printf(out, L(loc, " + wage %d s", " + sueldo %d s"), builders_wage(s, u));
	for (r = 0; r < BR_COUNT && u < BUILDERS_UNITS; r++) {
		int add = s->ures[u][r] + (m.b && m.b - 1 == r);

		done &= add >= miss[r];
	}
	if (done && u < BUILDERS_UNITS) {
		if (bi->makes)
			buf_printf(out, L(loc, " · completes it: %d VP, a new worker",
					  " · la termina: %d PV, un trabajador más"), bi->vp);
		else
			buf_printf(out, L(loc, " · completes it: +%d s, %d VP",
					  " · lo termina: +%d s, %d PV"), bi->coins, bi->vp);
	}
}

void builders_move_label(const void *st, int seat, struct move m, enum locale loc,
			 struct buf *out)
{
	const struct builders_state *s = st;
	struct buf t = BUF_INIT;

	loc = fix(loc);
	switch (m.kind) {
	case BM_START:
		builders_building_tag(m.a, loc, &t);
		buf_printf(out, L(loc, "Start %s · ", "Iniciar %s · "), buf_str(&t));
		actions_text(s, 1, loc, out);
		break;
	case BM_HIRE:
		builders_unit_tag(s, m.a, loc, &t);
		buf_printf(out, L(loc, "Hire %s · ", "Contratar a %s · "), buf_str(&t));
		actions_text(s, 1, loc, out);
		break;
	case BM_SEND:
		builders_unit_tag(s, m.a, loc, &t);
		buf_printf(out, L(loc, "Send %s to work", "Enviar a %s a trabajar"), buf_str(&t));
		break;
	case BM_TO:
		if (m.a < BUILDERS_BUILDINGS)
			label_to(s, m, loc, out);
		break;
	case BM_ENSLAVE:
		if (!m.a) {
			buf_printf(out, L(loc, "Buy a slave (%d s, investment) · ",
					  "Comprar un esclavo (%d s, inversión) · "), BUILDERS_SLAVE_PRICE);
		} else {
			builders_unit_tag(s, BU_SLAVE + m.a - 1, loc, &t);
			buf_printf(out, L(loc, "Buy %s for %d s (-1 VP unless freed) · ",
					  "Comprar a %s por %d s (-1 PV si no se libera) · "),
				   buf_str(&t), BUILDERS_SLAVE_PRICE);
		}
		actions_text(s, 1, loc, out);
		break;
	case BM_TOOL:
		if (!m.a)
			buf_printf(out, L(loc, "Buy a tool (%d s, investment) · ",
					  "Comprar una herramienta (%d s, inversión) · "), BUILDERS_TOOL_PRICE);
		else
			buf_printf(out, L(loc, "Buy the %s (+1 %s) for %d s · ", "Comprar %s (+1 de %s) por %d s · "),
				   tname(m.a - 1, loc), rname(m.a - 1, loc), BUILDERS_TOOL_PRICE);
		actions_text(s, 1, loc, out);
		break;
	case BM_LOAN:
		buf_printf(out, L(loc, "Take a loan: +%d s (investment; repay %d s or -%d VP at the end) · ",
				  "Pedir un préstamo: +%d s (inversión; devolver %d s o -%d PV al final) · "),
			   BUILDERS_LOAN_GAIN, BUILDERS_LOAN_REPAY, BUILDERS_LOAN_PENALTY);
		actions_text(s, 1, loc, out);
		break;
	case BM_EDUCATE:
		if (!m.a) {
			buf_printf(out, L(loc, "Educate a worker at a university (%d s, investment) · ",
					  "Educar a un trabajador en una universidad (%d s, inversión) · "),
				   BUILDERS_UNI_PRICE);
		} else if (m.a - 1 < BUILDERS_UNITS && m.b < BR_COUNT) {
			uint8_t after[BR_COUNT];

			memcpy(after, s->ures[m.a - 1], BR_COUNT);
			after[m.b] = BUILDERS_UNI_LEVEL;
			builders_unit_tag(s, m.a - 1, loc, &t);
			buf_printf(out, L(loc, "Educate %s in %s: becomes ", "Educar a %s en %s: queda en "),
				   buf_str(&t), rname(m.b, loc));
			builders_res_text(after, loc, out);
			buf_printf(out, L(loc, ", for %d s · ", ", por %d s · "), BUILDERS_UNI_PRICE);
		}
		actions_text(s, 1, loc, out);
		break;
	case BM_TAKE:
		if (m.a >= 1 && m.a <= 3) {
			buf_printf(out, L(loc, "Take %d %s · ", "Coger %d %s · "), m.a * (m.a + 1) / 2,
				   m.a == 1 ? L(loc, "sesterce", "sestercio") : L(loc, "sesterces", "sestercios"));
			actions_text(s, m.a, loc, out);
		}
		break;
	case BM_FREE:
		builders_unit_tag(s, m.a, loc, &t);
		if (s->step == BS_FINAL) {
			buf_printf(out, L(loc, "Free %s for %d s (no -1 VP)", "Liberar a %s por %d s (sin -1 PV)"),
				   buf_str(&t), BUILDERS_FREE_PRICE);
		} else {
			buf_printf(out, L(loc, "Free %s (then wage %d s, no -1 VP) · ",
					  "Liberar a %s (luego sueldo %d s, sin -1 PV) · "),
				   buf_str(&t), BUILDERS_FREED_WAGE);
			actions_text(s, 1, loc, out);
		}
		break;
	case BM_REPAY:
		buf_printf(out, L(loc, "Repay a loan: %d s (no -%d VP), not an action",
				  "Devolver un préstamo: %d s (sin -%d PV), no es una acción"),
			   BUILDERS_LOAN_REPAY, BUILDERS_LOAN_PENALTY);
		break;
	case BM_END:
		if (s->step == BS_FINAL) {
			buf_addstr(out, L(loc, "Done: nothing more to free or repay",
					  "Listo: no liberar ni devolver nada más"));
		} else {
			int f = builders_free_left(s);

			if (f == 1)
				buf_addstr(out, L(loc, "End your turn (1 free action unused)",
						  "Terminar tu turno (1 acción libre sin usar)"));
			else if (f)
				buf_printf(out, L(loc, "End your turn (%d free actions unused)",
						  "Terminar tu turno (%d acciones libres sin usar)"), f);
			else
				buf_addstr(out, L(loc, "End your turn", "Terminar tu turno"));
		}
		break;
	case BM_BACK:
		buf_addstr(out, L(loc, "Back: choose another action", "Volver: elegir otra acción"));
		break;
	default:
		buf_addstr(out, "?");
	}
	buf_release(&t);
	(void)seat;
}

/* ---- the short list ---- */

/* What k actions cost, short: "1 action", "1 extra action: 5 s", "2
 * actions, 1 extra: 5 s". */
static void cost_short(const struct builders_state *s, int k, enum locale loc, struct buf *out)
{
	int f = builders_free_left(s), paid = k > f ? k - f : 0;

	if (!paid)
		buf_printf(out, k == 1 ? L(loc, "%d action", "%d acción") : L(loc, "%d actions", "%d acciones"),
			   k);
	else if (paid == k)
		buf_printf(out, paid == 1 ? L(loc, "%d extra action: %d s", "%d acción extra: %d s")
					  : L(loc, "%d extra actions: %d s", "%d acciones extra: %d s"),
			   paid, paid * BUILDERS_ACTION_PRICE);
	else
		buf_printf(out, L(loc, "%d actions, %d extra: %d s", "%d acciones, %d extra: %d s"), k,
			   paid, paid * BUILDERS_ACTION_PRICE);
}

int builders_move_group(const void *st, int seat, struct move m, enum locale loc,
			struct buf *group, struct buf *note, struct buf *item)
{
	const struct builders_state *s = st;

	loc = fix(loc);
	(void)seat;
	switch (m.kind) {
	case BM_START:
		buf_addstr(group, L(loc, "start", "iniciar"));
		cost_short(s, 1, loc, note);
		buf_addstr(item, bname(m.a, loc));
		return 0;
	case BM_HIRE:
		buf_addstr(group, L(loc, "hire", "contratar"));
		cost_short(s, 1, loc, note);
		builders_unit_name(s, m.a, loc, item);
		return 0;
	case BM_SEND:
		buf_addstr(group, L(loc, "send to work", "enviar a trabajar"));
		builders_unit_name(s, m.a, loc, item);
		return 0;
	case BM_TO: {
		uint8_t miss[BR_COUNT];
		int u = s->pend, r, done = 1, wage = u < BUILDERS_UNITS ? builders_wage(s, u) : 0;

		if (m.a >= BUILDERS_BUILDINGS || u >= BUILDERS_UNITS)
			return -1;
		buf_addstr(group, L(loc, "to", "destino"));
		cost_short(s, s->sent[m.a] + 1, loc, note);
		if (wage)
			buf_printf(note, L(loc, " + wage %d s", " + sueldo %d s"), wage);
		builders_missing(s, m.a, miss);
		buf_addstr(item, bname(m.a, loc));
		if (m.b)
			buf_printf(item, L(loc, " with the %s", " con %s"), tname(m.b - 1, loc));
		buf_addstr(item, L(loc, " (missing ", " (falta "));
		builders_res_text(miss, loc, item);
		for (r = 0; r < BR_COUNT; r++)
			done &= s->ures[u][r] + (m.b && m.b - 1 == r) >= miss[r];
		if (done)
			buf_addstr(item, L(loc, ", completes it", ", la termina"));
		buf_addch(item, ')');
		return 1;
	}
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_LOAN:
	case BM_EDUCATE:
		if (m.a)
			return -1;	/* the second step: by its label */
		buf_addstr(group, L(loc, "invest", "invertir"));
		cost_short(s, 1, loc, note);
		buf_addstr(note, L(loc, ", 1 a turn", ", 1 por turno"));
		if (m.kind == BM_ENSLAVE)
			buf_printf(item, L(loc, "slave %d s", "esclavo %d s"), BUILDERS_SLAVE_PRICE);
		else if (m.kind == BM_TOOL)
			buf_printf(item, L(loc, "tool %d s", "herramienta %d s"), BUILDERS_TOOL_PRICE);
		else if (m.kind == BM_LOAN)
			buf_printf(item, L(loc, "loan +%d s", "préstamo +%d s"), BUILDERS_LOAN_GAIN);
		else
			buf_printf(item, L(loc, "university %d s", "universidad %d s"), BUILDERS_UNI_PRICE);
		return 0;
	case BM_TAKE:
		if (m.a < 1 || m.a > 3)
			return -1;
		buf_addstr(group, L(loc, "take", "coger"));
		buf_printf(item, "%d s (", m.a * (m.a + 1) / 2);
		cost_short(s, m.a, loc, item);
		buf_addch(item, ')');
		return 0;
	case BM_FREE:
		if (s->step == BS_FINAL)
			return -1;
		buf_addstr(group, L(loc, "free", "liberar"));
		cost_short(s, 1, loc, note);
		builders_unit_name(s, m.a, loc, item);
		return 0;
	default:
		return -1;	/* repay, end, back: by their labels */
	}
}

/* ---- prompt ---- */

/* "2 free actions left, 10 s": what the deciding seat has this turn. */
static void turn_short(const struct builders_state *s, enum locale loc, struct buf *out)
{
	int f = builders_free_left(s);

	buf_printf(out, f == 1 ? L(loc, "%d free action left", "te queda %d acción libre")
			       : L(loc, "%d free actions left", "te quedan %d acciones libres"), f);
	buf_printf(out, ", %d s", s->p[s->cur].money);
	if (s->invested)
		buf_addstr(out, L(loc, ", investment made", ", inversión hecha"));
}

void builders_turn_text(const struct builders_state *s, enum locale loc, struct buf *out)
{
	int f = builders_free_left(s);

	buf_printf(out, f == 1 ? L(loc, "%d free action left", "%d acción libre")
			       : L(loc, "%d free actions left", "%d acciones libres"), f);
	buf_printf(out, L(loc, ", %d s (extra actions %d s)", ", %d s (acciones extra a %d s)"),
		   s->p[s->cur].money, BUILDERS_ACTION_PRICE);
	if (s->invested)
		buf_addstr(out, L(loc, ", investment made", ", inversión hecha"));
}

void builders_prompt(const void *st, int seat, enum locale loc, struct buf *out)
{
	const struct builders_state *s = st;
	struct buf t = BUF_INIT;

	loc = fix(loc);
	if (s->step >= BS_OVER) {
		buf_addstr(out, L(loc, "The game is over.", "La partida ha terminado."));
		return;
	}
	if (builders_decider(s) != seat) {
		buf_addstr(out, L(loc, "Waiting for another player.", "Esperando a otro jugador."));
		return;
	}
	switch (s->step) {
	case BS_TURN:
		buf_addstr(out, L(loc, "Your turn: ", "Tu turno: "));
		turn_short(s, loc, out);
		buf_addch(out, '.');
		break;
	case BS_SEND:
		builders_unit_name(s, s->pend, loc, &t);
		buf_printf(out, L(loc, "Where does %s go to work?", "¿Adónde va a trabajar %s?"),
			   buf_str(&t));
		break;
	case BS_ENSLAVE:
		buf_printf(out, L(loc, "Choose the slave to buy (%d s).", "Elige el esclavo que compras (%d s)."),
			   BUILDERS_SLAVE_PRICE);
		break;
	case BS_TOOL:
		buf_printf(out, L(loc, "Choose the tool to buy (%d s).", "Elige la herramienta que compras (%d s)."),
			   BUILDERS_TOOL_PRICE);
		break;
	case BS_EDUCATE:
		buf_printf(out, L(loc, "Choose the worker to educate and the university (%d s).",
				  "Elige el trabajador que educas y la universidad (%d s)."), BUILDERS_UNI_PRICE);
		break;
	case BS_FINAL:
		buf_printf(out, L(loc, "Final scoring: free slaves (%d s each), repay loans (%d s each), or done.",
				  "Puntuación final: libera esclavos (%d s cada uno), devuelve préstamos (%d s cada uno) o termina."),
			   BUILDERS_FREE_PRICE, BUILDERS_LOAN_REPAY);
		break;
	}
	buf_release(&t);
}

/* ---- the areas ---- */

static int first_of_order(const struct builders_state *s, int i)
{
	int seat = s->first + i;

	return seat >= s->nplayers ? seat - s->nplayers : seat;
}

/* A building in progress: "Temple (→ 10 s, 3 VP)" (what it needs is on
 * its line as what is missing). */
static void building_short(int b, enum locale loc, struct buf *out)
{
	const struct builders_building_info *bi = &builders_buildings[b];

	if (bi->makes)
		buf_printf(out, L(loc, "%s (→ %d VP, machine: %c%d)", "%s (→ %d PV, máquina: %c%d)"),
			   bi->name[loc], bi->vp, builders_res_letter[loc][bi->makes - 1],
			   BUILDERS_MACHINE_MAKES);
	else
		buf_printf(out, L(loc, "%s (→ %d s, %d VP)", "%s (→ %d s, %d PV)"), bi->name[loc],
			   bi->coins, bi->vp);
}

/* "Saw 2, Temple 3": the seat's completed buildings and their VP. */
static void completed_text(const struct builders_state *s, int seat, enum locale loc,
			   struct buf *out)
{
	int bd, n;

	for (bd = n = 0; bd < BUILDERS_BUILDINGS; bd++)
		if (s->bown[bd] == seat && s->bplace[bd] == BP_DONE)
			buf_printf(out, "%s%s %d", n++ ? ", " : "", bname(bd, loc), builders_buildings[bd].vp);
}

/* The seat's tools: "Hammer (+S1), Brush (+D1, in use)"; n set to their number. */
static void tools_text(const struct builders_state *s, int seat, enum locale loc, struct buf *out,
		       int *n)
{
	int t;

	for (t = *n = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] == seat)
			buf_printf(out, "%s%s (+%c1%s)", (*n)++ ? ", " : "", tname(t, loc),
				   builders_res_letter[loc][t],
				   s->tat[t] == BUILDERS_NONE ? "" : L(loc, ", in use", ", en uso"));
}

/* "team: Apprentice 2 (W1 D1, wage 2); at work: ..." */
static void team_lines(const struct builders_state *s, int seat, enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int u, n = 0;

	/* a line each, so that a step shows only who came back */
	for (u = 0; u < BUILDERS_UNITS; u++)
		if (s->uown[u] == seat && s->uat[u] == BUILDERS_NONE) {
			buf_reset(&b);
			builders_unit_tag(s, u, loc, &b);
			rich_line(out, L(loc, "  available: %s", "  disponible: %s"), buf_str(&b));
			n++;
		}
	if (!n)
		rich_line(out, "%s", L(loc, "  available: nobody", "  disponibles: nadie"));
	buf_reset(&b);
	tools_text(s, seat, loc, &b, &n);
	if (n)
		rich_line(out, L(loc, "  tools: %s", "  herramientas: %s"), buf_str(&b));
	buf_release(&b);
}

/* The seat's buildings in progress, a line each, and (done) its completed
 * ones on a line. */
static void building_lines(const struct builders_state *s, int seat, enum locale loc, int done,
			   struct rich *out)
{
	struct buf b = BUF_INIT;
	int bd, u, t, n;

	for (bd = 0; bd < BUILDERS_BUILDINGS; bd++) {
		uint8_t miss[BR_COUNT];

		if (s->bown[bd] != seat || s->bplace[bd] != BP_BUILDING)
			continue;
		buf_reset(&b);
		building_short(bd, loc, &b);
		builders_missing(s, bd, miss);
		buf_addstr(&b, L(loc, " · missing ", " · falta "));
		builders_res_text(miss, loc, &b);
		for (u = n = 0; u < BUILDERS_UNITS; u++) {
			if (s->uat[u] != bd)
				continue;
			buf_addstr(&b, n++ ? ", " : L(loc, " · at work: ", " · trabajando: "));
			builders_unit_name(s, u, loc, &b);
			for (t = 0; t < BUILDERS_TOOLS; t++)
				if (s->tat[t] == u)
					buf_printf(&b, " + %s", tname(t, loc));
		}
		rich_line(out, L(loc, "  building: %s", "  en obra: %s"), buf_str(&b));
	}
	/* a line each, so that a step shows only what it completed */
	for (bd = 0; done && bd < BUILDERS_BUILDINGS; bd++)
		if (s->bown[bd] == seat && s->bplace[bd] == BP_DONE)
			rich_line(out, L(loc, "  completed: %s, %d VP", "  terminado: %s, %d PV"),
				  bname(bd, loc), builders_buildings[bd].vp);
	buf_release(&b);
}

static void seat_head_text(const struct builders_state *s, int seat, const struct game_view *v,
			   enum locale loc, struct buf *out)
{
	const struct builders_player *p = &s->p[seat];
	int slaves = builders_enslaved(s, seat);

	buf_printf(out, L(loc, "%s%s%s — %d s, %d VP", "%s%s%s — %d s, %d PV"), game_view_name(v, seat),
		   seat == s->first ? L(loc, " (first player)", " (jugador inicial)") : "",
		   builders_decider(s) == seat ? " ◀" : "", p->money, p->vp);
	if (p->loans)
		buf_printf(out, L(loc, ", loans %d", ", préstamos %d"), p->loans);
	if (slaves)
		buf_printf(out, L(loc, ", slaves %d", ", esclavos %d"), slaves);
}

static void seat_head(const struct builders_state *s, int seat, const struct game_view *v,
		      enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;

	seat_head_text(s, seat, v, loc, &b);
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

/* The board's line of a seat: its head, its available team, its tools
 * and its completed buildings. */
static void seat_line(const struct builders_state *s, int seat, const struct game_view *v,
		      enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT, t = BUF_INIT;
	int u, n = 0;

	seat_head_text(s, seat, v, loc, &b);
	for (u = 0; u < BUILDERS_UNITS; u++)
		if (s->uown[u] == seat && s->uat[u] == BUILDERS_NONE) {
			buf_addstr(&b, n++ ? ", " : L(loc, " · team: ", " · equipo: "));
			builders_unit_tag(s, u, loc, &b);
		}
	tools_text(s, seat, loc, &t, &n);
	if (n)
		buf_printf(&b, L(loc, " · tools: %s", " · herramientas: %s"), buf_str(&t));
	buf_reset(&t);
	completed_text(s, seat, loc, &t);
	if (t.len)
		buf_printf(&b, L(loc, " · completed (VP): %s", " · terminados (PV): %s"), buf_str(&t));
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
	buf_release(&t);
}

static void investments_line(const struct builders_state *s, enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int k, n;

	buf_printf(&b, L(loc, "Slaves (%d s): ", "Esclavos (%d s): "), BUILDERS_SLAVE_PRICE);
	for (k = n = 0; k < BUILDERS_SLAVES; k++)
		if (s->uown[BU_SLAVE + k] == BUILDERS_NONE) {
			buf_printf(&b, "%s%s %d (", n++ ? ", " : "", L(loc, "Slave", "Esclavo"), k + 1);
			builders_res_text(builders_slaves[k], loc, &b);
			buf_addch(&b, ')');
		}
	if (!n)
		buf_addstr(&b, L(loc, "none", "ninguno"));
	rich_line(out, "%s", buf_str(&b));
	buf_reset(&b);
	buf_printf(&b, L(loc, "Tools (%d s): ", "Herramientas (%d s): "), BUILDERS_TOOL_PRICE);
	for (k = n = 0; k < BUILDERS_TOOLS; k++)
		if (s->town[k] == BUILDERS_NONE)
			buf_printf(&b, "%s%s (+%c1)", n++ ? ", " : "", tname(k, loc),
				   builders_res_letter[loc][k]);
	if (!n)
		buf_addstr(&b, L(loc, "none", "ninguna"));
	buf_printf(&b, L(loc, " · Loans (+%d s, repay %d): %d", " · Préstamos (+%d s, devolver %d): %d"),
		   BUILDERS_LOAN_GAIN, BUILDERS_LOAN_REPAY, s->loan_pile);
	buf_printf(&b, L(loc, " · Universities (%d s): ", " · Universidades (%d s): "), BUILDERS_UNI_PRICE);
	for (k = n = 0; k < BUILDERS_UNIS; k++)
		if (s->uni[k] == BUILDERS_NONE)
			buf_printf(&b, "%s%s", n++ ? ", " : "", rname(k, loc));
	if (!n)
		buf_addstr(&b, L(loc, "none", "ninguna"));
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

/* The goal and the letters: "First to 17 VP ends the game (the round is
 * played out) · S W A D: stone, wood, architecture, decoration". */
void builders_legend_text(const struct builders_state *s, enum locale loc, struct buf *out)
{
	int r;

	if (s->ending)
		buf_printf(out, L(loc, "Somebody reached %d VP: this is the last round",
				  "Alguien llegó a %d PV: es la última ronda"), BUILDERS_END_VP);
	else
		buf_printf(out, L(loc, "First to %d VP ends the game (the round is played out)",
				  "El primero en llegar a %d PV acaba la partida (se termina la ronda)"),
			   BUILDERS_END_VP);
	buf_addstr(out, " · ");
	for (r = 0; r < BR_COUNT; r++)
		buf_printf(out, "%s%c", r ? " " : "", builders_res_letter[loc][r]);
	for (r = 0; r < BR_COUNT; r++)
		buf_printf(out, "%s%s", r ? ", " : ": ", rname(r, loc));
}

static void legend_line(const struct builders_state *s, enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;

	builders_legend_text(s, loc, &b);
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

static void rows(const struct builders_state *s, enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int i, n;

	for (i = n = 0; i < BUILDERS_ROW; i++)
		if (s->brow[i] != BUILDERS_NONE) {
			buf_addstr(&b, n++ ? "\n" : "");
			builders_building_tag(s->brow[i], loc, &b);
		}
	rich_line(out, L(loc, "Buildings to start (deck: %d):", "Edificios para iniciar (mazo: %d):"),
		  s->nbdeck);
	rich_mono(out, n ? buf_str(&b) : L(loc, "(none)", "(ninguno)"));
	buf_reset(&b);
	for (i = n = 0; i < BUILDERS_ROW; i++)
		if (s->wrow[i] != BUILDERS_NONE) {
			buf_addstr(&b, n++ ? "\n" : "");
			builders_unit_tag(s, s->wrow[i], loc, &b);
		}
	rich_line(out, L(loc, "Workers for hire (deck: %d):", "Trabajadores para contratar (mazo: %d):"),
		  s->nwdeck);
	rich_mono(out, n ? buf_str(&b) : L(loc, "(none)", "(ninguno)"));
	buf_release(&b);
}

static void final_table(const struct builders_state *s, const struct game_view *v, enum locale loc,
			struct rich *out)
{
	struct game_result res;
	struct buf b = BUF_INIT;
	int r, i, k;

	builders_result(s, &res);
	rich_heading(out, "%s", L(loc, "Final scoring", "Puntuación final"));
	for (k = 1; k <= s->nplayers; k++)
		for (i = 0; i < s->nplayers; i++) {
			const struct builders_player *p = &s->p[i];
			int sc = res.score[i];

			if (res.rank[i] != k)
				continue;
			buf_reset(&b);
			/* the sesterces as the points they are worth (issue 25) */
			buf_printf(&b, L(loc, "%d. %s: %s%d.%d — %d VP + %d.%d for %d s",
					 "%d. %s: %s%d,%d — %d PV + %d,%d por %d s"),
				   res.rank[i], game_view_name(v, i), sc < 0 ? "-" : "",
				   (sc < 0 ? -sc : sc) / 10, (sc < 0 ? -sc : sc) % 10, p->vp,
				   p->money / 10, p->money % 10, p->money);
			if ((r = builders_enslaved(s, i)))
				buf_printf(&b, L(loc, " − %d for slaves", " − %d por esclavos"), r);
			if (p->loans)
				buf_printf(&b, L(loc, " − %d for loans", " − %d por préstamos"),
					   p->loans * BUILDERS_LOAN_PENALTY);
			rich_line(out, "%s", buf_str(&b));
		}
	buf_release(&b);
}

void builders_render_public(const void *st, const struct game_view *v, struct rich *out)
{
	const struct builders_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);
	int i, who = builders_decider(s);

	if (s->step >= BS_OVER)
		rich_heading(out, L(loc, "The Builders: Antiquity — game over after round %d",
				    "Los Constructores: Antigüedad — fin de la partida tras la ronda %d"),
			     s->round);
	else
		rich_heading(out, L(loc, "The Builders: Antiquity — round %d",
				    "Los Constructores: Antigüedad — ronda %d"), s->round);
	if (s->step == BS_FINAL)
		rich_line(out, L(loc, "Final scoring: %s decides.", "Puntuación final: decide %s."),
			  game_view_name(v, who));
	else if (who >= 0) {
		struct buf b = BUF_INIT;

		builders_turn_text(s, loc, &b);
		rich_line(out, L(loc, "Now: %s — %s.", "Ahora: %s — %s."), game_view_name(v, who),
			  buf_str(&b));
		buf_release(&b);
	}
	if (s->step < BS_OVER)
		legend_line(s, loc, out);
	rows(s, loc, out);
	investments_line(s, loc, out);
	for (i = 0; i < s->nplayers; i++) {
		int seat = first_of_order(s, i);

		seat_line(s, seat, v, loc, out);
		building_lines(s, seat, loc, 0, out);
	}
	if (s->step >= BS_OVER)
		final_table(s, v, loc, out);
}

void builders_render_private(const void *st, int seat, const struct game_view *v,
			     struct rich *out)
{
	const struct builders_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);
	struct buf b = BUF_INIT;

	if (seat < 0 || seat >= s->nplayers)
		return;
	rich_heading(out, L(loc, "The Builders: your area", "Los Constructores: tu zona"));
	seat_head(s, seat, v, loc, out);
	team_lines(s, seat, loc, out);
	building_lines(s, seat, loc, 1, out);
	builders_prompt(s, seat, loc, &b);
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

void builders_secrets(const void *st, enum locale loc, struct buf *out)
{
	const struct builders_state *s = st;

	loc = fix(loc);
	/* The next card of each deck: its tag is what the board would show
	 * if it were face up, and no other card has the same tag. */
	if (s->nbdeck && s->nbdeck <= BUILDERS_BUILDINGS) {
		builders_building_tag(s->bdeck[s->nbdeck - 1], loc, out);
		buf_addch(out, '\n');
	}
	if (s->nwdeck && s->nwdeck <= BUILDERS_WORKERS) {
		worker_card_tag(s->wdeck[s->nwdeck - 1], loc, out);
		buf_addch(out, '\n');
	}
}

void builders_intro(const void *st, struct game_log *log)
{
	const struct builders_state *s = st;
	struct buf b = BUF_INIT;
	int i;

	if (!log)
		return;
	game_logf(log, LOG_PUBLIC, L(fix(log->loc), "First player: %s.", "Jugador inicial: %s."),
		  game_log_name(log, s->first));
	for (i = 0; i < s->nplayers; i++) {
		int seat = first_of_order(s, i);

		buf_printf(&b, "%s%s ", i ? ", " : "", game_log_name(log, seat));
		worker_card_tag(s->dealt[seat], fix(log->loc), &b);
	}
	game_logf(log, LOG_PUBLIC, L(fix(log->loc), "Apprentices dealt: %s.", "Aprendices repartidos: %s."),
		  buf_str(&b));
	/* the goal and the letters, as the board says them (issue 25) */
	buf_reset(&b);
	builders_legend_text(s, fix(log->loc), &b);
	game_logf(log, LOG_PUBLIC, L(fix(log->loc), "%s. Everything is open except the order of the decks.",
				     "%s. Todo está a la vista salvo el orden de los mazos."), buf_str(&b));
	buf_release(&b);
}
