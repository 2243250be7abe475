/*
 * render.c: every text Fortuna shows: move ids and labels, prompts, the
 * public board, the private view and the list of secrets.
 *
 * Action cards are public knowledge once the reservation is over: each was
 * dealt face up, and each card taken later is picked up face up in view of
 * the table, so the board names face-down cards too, in brackets.  What is
 * hidden is a reservation while the others still choose, and the privilege
 * cards held, drawn or left at the Palace; the board shows those as counts,
 * and public texts name discarded privilege cards without the «» of the
 * private form.  secrets() lists the hidden strings; tests check that none
 * of them appears on the board.
 */
#include <stdlib.h>
#include <string.h>

#include "games/fortuna/fortuna.h"
#include "util/text.h"

static const char *act_name(int c, enum locale loc)
{
	return c < FA_COUNT ? fortuna_actions[c].name[loc] : "?";
}

static const char *res_name(int r, enum locale loc)
{
	return r < FR_COUNT ? fortuna_resources[r].name[loc] : "?";
}

static const char *coins(enum locale loc, int n)
{
	return n == 1 ? L(loc, "coin", "moneda") : L(loc, "coins", "monedas");
}

static int side_of(const struct fortuna_state *s, int card, int *down)
{
	int u, t = fortuna_find_card(s, card, &u);

	*down = t >= 0 && s->side_down[t][u];
	return t;
}

/* A face-down card as the board shows it: "[Family]". */
static void down_name(int c, enum locale loc, struct buf *out)
{
	buf_printf(out, "[%s]", act_name(c, loc));
}

static const char *steps_word(enum locale loc, int n)
{
	return n == 1 ? L(loc, "step", "paso") : L(loc, "steps", "pasos");
}

/* ---- move ids ---- */

static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void fortuna_move_id(const void *st, int seat, struct move m, struct buf *out)
{
	const struct fortuna_state *s = st;
	int a = m.a;

	switch (m.kind) {
	case FM_DRAFT:
	case FM_HIDE:
	case FM_CARD:
	case FM_CORRUPT:
	case FM_EXCHANGE:
	case FM_MILITARY: {
		static const char *const verb[FM_COUNT] = {
			[FM_DRAFT] = "draft", [FM_HIDE] = "hide", [FM_CARD] = "card",
			[FM_CORRUPT] = "corrupt", [FM_EXCHANGE] = "exchange",
			[FM_MILITARY] = "military",
		};

		buf_printf(out, "%s %s", verb[m.kind], a < FA_COUNT ? fortuna_actions[a].id : "?");
		break;
	}
	case FM_SKIP:
		buf_addstr(out, s->step == FS_END ? "end turn" : "skip");
		break;
	case FM_COLLECT:
		buf_addstr(out, "collect water");
		break;
	case FM_HARVEST:
		buf_printf(out, "harvest using %d water", a);
		break;
	case FM_SELL:
		buf_printf(out, "sell %d %s", a, s->act_card == FA_SELL_WINE ? "wine" : "grain");
		break;
	case FM_RECRUIT:
		buf_printf(out, "recruit %d %s", a, plural(a, "centurion", "centurions"));
		break;
	case FM_PRIESTESS:
		buf_printf(out, "obtain %d %s", a, plural(a, "priestess", "priestesses"));
		break;
	case FM_CLERGY:
		buf_addstr(out, "priestess for die");
		break;
	case FM_MARRY:
		buf_addstr(out, "marry");
		break;
	case FM_ROLL:
		buf_addstr(out, "roll dice");
		break;
	case FM_TAKE:
		if (a == FM_TAKE_COINS)
			buf_addstr(out, "take 3 coins");
		else
			buf_printf(out, "take %s", a < FR_COUNT ? fortuna_resources[a].id : "?");
		break;
	case FM_BUILD:
		buf_printf(out, "build %s", a < FB_COUNT ? fortuna_buildings[a].id : "?");
		break;
	case FM_COINS:
		buf_addstr(out, "take 2 coins");
		break;
	case FM_ADVANCE:
		buf_addstr(out, "advance");
		break;
	case FM_DIE:
		buf_printf(out, "die %d", a);
		break;
	case FM_DELIVER: {
		static const char *const what[4][2] = {
			{ "water", "water" }, { "wine", "wine" }, { "grain", "grain" },
			{ "centurion", "centurions" },
		};

		buf_printf(out, "deliver %d %s", m.b, a < 4 ? what[a][m.b != 1] : "?");
		break;
	}
	case FM_FAVOUR:
		buf_printf(out, "favour %s", a < FF_COUNT ? fortuna_favours[a].id : "?");
		break;
	case FM_TAX:
		buf_addstr(out, "pay tax");
		break;
	case FM_FLIP:
		buf_printf(out, "flip %s", a < FF_COUNT ? fortuna_favours[a].id : "?");
		break;
	case FM_KEEP:
		buf_printf(out, "keep %s", a < FP_COUNT ? fortuna_privs[a].id : "?");
		break;
	case FM_PRIV:
		buf_printf(out, "privilege %s", a < FP_COUNT ? fortuna_privs[a].id : "?");
		break;
	case FM_CHOOSE:
		buf_printf(out, "choose %s", a < FR_COUNT ? fortuna_resources[a].id : "?");
		break;
	default:
		buf_addstr(out, "?");
	}
}

/* ---- move labels ---- */

/* " (ben's side)", " (ben's side, face down)", " (side 4, empty)": the
 * board names sides by player.  A caller without names gets the side's
 * number (" (side 2)"), as the labels said before they had names. */
static void side_label(const struct fortuna_state *s, int card, const struct game_view *v,
		       enum locale loc, struct buf *out)
{
	int down, t = side_of(s, card, &down);
	const char *fd = down ? L(loc, ", face down", ", boca abajo") : "";

	if (t < 0)
		return;
	if (t >= s->nplayers)
		buf_printf(out, L(loc, " (side %d, empty)", " (lado %d, vacío)"), t + 1);
	else if (v && v->names)
		buf_printf(out, L(loc, " (%s's side%s)", " (lado de %s%s)"), game_view_name(v, t), fd);
	else
		buf_printf(out, L(loc, " (side %d%s)", " (lado %d%s)"), t + 1, fd);
}

/* Who gets a Corrupción's coin: "ben", or "the owner" without names. */
static const char *owner_name(const struct game_view *v, int t, enum locale loc)
{
	return v && v->names ? game_view_name(v, t) : L(loc, "its owner", "su dueño");
}

/* ": +2 steps, 3 privilege tokens" for advancing `want` steps with favour
 * card c: never past the Palace, and tokens only come with a step. */
static void favour_gain(const struct fortuna_state *s, const struct fortuna_player *p, int c,
			int want, enum locale loc, struct buf *out)
{
	int left = FORTUNA_PALACE - p->steps, n = want < left ? want : left;
	int tok = c < FF_COUNT ? s->fav_tokens[c] : 0;

	if (n <= 0) {
		buf_addstr(out, L(loc, ": no step left (you are at the Palace), but no tax",
				  ": ningún paso más (estás en el Palacio), pero sin impuesto"));
		return;
	}
	buf_printf(out, ": +%d %s", n, steps_word(loc, n));
	if (tok)
		buf_printf(out, L(loc, ", %d privilege %s", ", %d %s de privilegio"), tok,
			   tok == 1 ? L(loc, "token", "ficha") : L(loc, "tokens", "fichas"));
}

/* Coins a gain of n really gives (money stops at 20). */
static int gain_of(const struct fortuna_player *p, int n)
{
	int room = FORTUNA_MONEY_MAX - p->money;

	return n < room ? n : room;
}

/* " (+1: money stops at 20)" when a gain of n coins is cut by the cap. */
static void cap_note(const struct fortuna_player *p, int n, enum locale loc, struct buf *out)
{
	int got = gain_of(p, n);

	if (got < n)
		buf_printf(out, L(loc, " (+%d: money stops at 20)", " (+%d: el dinero se detiene en 20)"),
			   got);
}

void fortuna_move_label(const void *st, int seat, struct move m, enum locale loc,
			struct buf *out)
{
	const struct fortuna_state *s = st;
	struct game_view v = { loc < LOC_COUNT ? loc : LOC_EN, s->nplayers, NULL };

	fortuna_move_label_view(st, seat, m, &v, out);
}

/* Phases 4 and 5: favours, the tax, privileges, and what is left. */
static void favour_label(const struct fortuna_state *s, const struct fortuna_player *p,
			 struct move m, enum locale loc, struct buf *out)
{
	int a = m.a, b = m.b, n;

	switch (m.kind) {
	case FM_DELIVER:
		if (a < 4) {
			static const char *const what[4][2][2] = {
				{ { "water", "agua" }, { "water", "agua" } },
				{ { "wine", "vino" }, { "wine", "vino" } },
				{ { "grain", "grano" }, { "grain", "grano" } },
				{ { "Centurion", "Centurión" }, { "Centurions", "Centuriones" } },
			};

			buf_printf(out, L(loc, "Deliver %d %s to %s (%d)", "Entregar %d %s a %s (%d)"),
				   b, what[a][b != 1][loc], fortuna_favours[a].name[loc], a + 1);
			/* the water card moves 1 step whatever is delivered */
			favour_gain(s, p, a, a == FF_WATER ? 1 : b, loc, out);
		}
		break;
	case FM_FAVOUR:
		if (a < FF_COUNT) {
			n = a == FF_FORTUNA ? 1 + ((p->buildings >> FB_PALACE) & 1) : p->priest;
			buf_printf(out, L(loc, "Use %s (%d)", "Usar %s (%d)"), fortuna_favours[a].name[loc],
				   a + 1);
			favour_gain(s, p, a, n, loc, out);
		}
		break;
	case FM_TAX:
		if (p->money > 0)
			buf_addstr(out, L(loc, "Pay the tax: 1 coin", "Pagar impuestos: 1 moneda"));
		else if (p->steps > 0)
			buf_addstr(out, L(loc, "Pay the tax: 1 step back", "Pagar impuestos: retroceder 1 paso"));
		else
			buf_addstr(out, L(loc, "Pay the tax: nothing to lose (no coins, no steps)",
					  "Pagar impuestos: nada que perder (ni monedas ni pasos)"));
		break;
	case FM_FLIP:
		if (a < FF_COUNT)
			buf_printf(out, L(loc, "Turn %s (%d) face down", "Voltear %s (%d)"),
				   fortuna_favours[a].name[loc], a + 1);
		break;
	case FM_KEEP:
		if (a < FP_COUNT)
			buf_printf(out, L(loc, "Keep %s", "Quedarse %s"), fortuna_privs[a].name[loc]);
		break;
	case FM_PRIV:
		if (a < FP_COUNT)
			buf_printf(out, L(loc, "Play %s", "Jugar %s"), fortuna_privs[a].name[loc]);
		break;
	case FM_CHOOSE:
		buf_printf(out, L(loc, "Choose 1 %s", "Elegir 1 de %s"), res_name(a, loc));
		break;
	default:
		buf_addstr(out, "?");
	}
}

void fortuna_move_label_view(const void *st, int seat, struct move m,
			     const struct game_view *v, struct buf *out)
{
	const struct fortuna_state *s = st;
	const struct fortuna_player *p = &s->p[seat >= 0 && seat < FORTUNA_MAX_PLAYERS ? seat : 0];
	enum locale loc = v && v->loc < LOC_COUNT ? v->loc : LOC_EN;
	int a = m.a, b = m.b, n;

	switch (m.kind) {
	case FM_DRAFT:
		buf_printf(out, L(loc, "Draft %s: %s", "Elegir %s: %s"), act_name(a, loc),
			   a < FA_COUNT ? fortuna_actions[a].effect[loc] : "");
		break;
	case FM_HIDE:
		buf_printf(out, L(loc, "Keep %s face down", "Dejar %s boca abajo"), act_name(a, loc));
		break;
	case FM_CARD:
		buf_printf(out, L(loc, "Play %s: %s", "Jugar %s: %s"), act_name(a, loc),
			   a < FA_COUNT ? fortuna_actions[a].effect[loc] : "");
		break;
	case FM_SKIP:
		if (s->step == FS_MILITARY)
			buf_addstr(out, L(loc, "No Military Power", "Sin Poder Militar"));
		else if (s->step == FS_FLIP)
			buf_addstr(out, L(loc, "Turn no extra favour card", "No voltear otra carta de favor"));
		else if (s->step == FS_END)
			buf_addstr(out, L(loc, "End your turn", "Terminar tu turno"));
		else
			buf_printf(out, L(loc, "Do not use %s", "No usar %s"), act_name(s->act_card, loc));
		break;
	case FM_COLLECT:
		n = s->sup_water < 2 ? s->sup_water : 2;
		buf_printf(out, L(loc, "Collect %d water", "Recoger %d de agua"), n);
		break;
	case FM_HARVEST: {
		int grain = s->act_card == FA_GRAIN;
		int sup = grain ? s->sup_grain : s->sup_wine;

		n = (grain ? 2 : 1) + a;
		if (n > sup)
			n = sup;
		buf_printf(out, L(loc, "Harvest %d %s, delivering %d water",
				  "Cosechar %d de %s entregando %d de agua"),
			   n, res_name(grain ? FR_GRAIN : FR_WINE, loc), a);
		break;
	}
	case FM_SELL: {
		int wine = s->act_card == FA_SELL_WINE;
		int price = (wine ? 3 : 2) + ((p->buildings >> FB_MARKET) & 1);

		buf_printf(out, L(loc, "Sell %d %s for %d coins", "Vender %d de %s por %d monedas"),
			   a, res_name(wine ? FR_WINE : FR_GRAIN, loc), a * price);
		cap_note(p, a * price, loc, out);
		break;
	}
	case FM_RECRUIT:
		for (n = 0, b = p->cent + 1; b <= p->cent + a; b++)
			n += b;
		buf_printf(out, L(loc, "Recruit %d %s for %d %s", "Reclutar %d %s por %d %s"),
			   a, a == 1 ? L(loc, "Centurion", "Centurión") : L(loc, "Centurions", "Centuriones"),
			   n, coins(loc, n));
		break;
	case FM_PRIESTESS:
		for (n = 0, b = p->priest + 1; b <= p->priest + a; b++)
			n += 2 * b - 1;
		buf_printf(out, L(loc, "Obtain %d %s for %d %s", "Obtener %d %s por %d %s"),
			   a, a == 1 ? L(loc, "Priestess", "Sacerdotisa") : L(loc, "Priestesses", "Sacerdotisas"),
			   n, coins(loc, n));
		break;
	case FM_CLERGY:
		buf_addstr(out, L(loc, "Give a Priestess for a die", "Entregar una Sacerdotisa por un dado"));
		break;
	case FM_MARRY:
		buf_addstr(out, L(loc, "Marry for 3 coins", "Casarse por 3 monedas"));
		break;
	case FM_ROLL:
		buf_addstr(out, L(loc, "Roll the dice before deciding", "Lanzar los dados antes de decidir"));
		break;
	case FM_TAKE:
		if (a == FM_TAKE_COINS) {
			buf_addstr(out, L(loc, "Take 3 coins", "Tomar 3 monedas"));
			cap_note(p, 3, loc, out);
		} else
			buf_printf(out, L(loc, "Take 1 %s", "Tomar 1 de %s"), res_name(a, loc));
		break;
	case FM_BUILD:
		if (a < FB_COUNT)
			buf_printf(out, L(loc, "Build %s for %d %s", "Construir %s por %d %s"),
				   fortuna_buildings[a].name[loc], fortuna_building_cost[a],
				   coins(loc, fortuna_building_cost[a]));
		break;
	case FM_CORRUPT: {
		int t = fortuna_find_card(s, a, NULL);

		buf_printf(out, L(loc, "Use %s", "Usar %s"), act_name(a, loc));
		side_label(s, a, v, loc, out);
		/* the coin goes to the side's owner, the bank for an empty side */
		if (t < 0 || t >= s->nplayers)
			buf_addstr(out, L(loc, ": 1 coin to the bank", ": 1 moneda a la banca"));
		else if (s->p[t].money >= FORTUNA_MONEY_MAX)
			buf_printf(out, L(loc, ": 1 coin to %s (lost: 20 already)",
					  ": 1 moneda a %s (se pierde: ya tiene 20)"),
				   owner_name(v, t, loc));
		else
			buf_printf(out, L(loc, ": 1 coin to %s", ": 1 moneda a %s"), owner_name(v, t, loc));
		break;
	}
	case FM_COINS:
		buf_addstr(out, L(loc, "Use no card: take 2 coins", "No usar ninguna carta: 2 monedas"));
		cap_note(p, 2, loc, out);
		break;
	case FM_ADVANCE:
		if (p->steps >= FORTUNA_PALACE)
			buf_addstr(out, L(loc, "Advance: no step left (you are at the Palace)",
					  "Avanzar: ningún paso más (estás en el Palacio)"));
		else
			buf_addstr(out, L(loc, "Advance 1 step", "Avanzar 1 paso"));
		break;
	case FM_EXCHANGE:
		buf_printf(out, L(loc, "Exchange for %s", "Intercambiar por %s"), act_name(a, loc));
		side_label(s, a, v, loc, out);
		break;
	case FM_MILITARY:
		buf_printf(out, L(loc, "Give a Centurion to use %s", "Entregar un Centurión para usar %s"),
			   act_name(a, loc));
		break;
	case FM_DIE:
		buf_printf(out, L(loc, "Use the die showing %d", "Usar el dado con un %d"), a);
		break;
	default:
		favour_label(s, p, m, loc, out);
	}
}

/* ---- prompt ---- */

void fortuna_prompt(const void *st, int seat, enum locale loc, struct buf *out)
{
	const struct fortuna_state *s = st;
	int i;

	if (loc >= LOC_COUNT)
		loc = LOC_EN;
	if (s->step == FS_OVER) {
		buf_addstr(out, L(loc, "The game is over.", "La partida ha terminado."));
		return;
	}
	if ((unsigned)seat >= s->nplayers || !((fortuna_awaiting(s) >> seat) & 1)) {
		if (s->step == FS_HIDE)
			buf_addstr(out, L(loc, "You have chosen; waiting for the others to choose theirs.",
					  "Ya has elegido; esperando a que los demás elijan."));
		else
			buf_addstr(out, L(loc, "Waiting for another player.", "Esperando a otro jugador."));
		return;
	}
	switch (s->step) {
	case FS_DRAFT:
		buf_addstr(out, L(loc, "Draft one of the action cards left.",
				  "Elige una de las cartas de acción que quedan."));
		break;
	case FS_HIDE:
		buf_addstr(out, L(loc, "Choose the action card you keep face down for your first turn "
				       "(everybody chooses at once; the choices are shown together).",
				  "Elige la carta de acción que dejas boca abajo para tu primer turno "
				  "(todos eligen a la vez; las elecciones se muestran juntas)."));
		break;
	case FS_CHOOSE:
		buf_addstr(out, L(loc, "Phase 2: choose the action card to play.",
				  "Fase 2: elige la carta de acción que juegas."));
		break;
	case FS_ACTION:
		buf_printf(out, L(loc, "Use %s, or skip it.", "Usa %s, o no la uses."),
			   act_name(s->act_card, loc));
		break;
	case FS_EXCHANGE:
		buf_printf(out, L(loc, "Phase 2: exchange %s for a face-up card of another side.",
				  "Fase 2: intercambia %s por una carta boca arriba de otro lado."),
			   act_name(s->chosen, loc));
		break;
	case FS_MILITARY:
		buf_addstr(out, L(loc, "Phase 3: give a Centurion to use one of your face-up cards, or skip.",
				  "Fase 3: entrega un Centurión para usar una de tus cartas boca arriba, o pasa."));
		break;
	case FS_DIE:
		buf_addstr(out, L(loc, "Phase 4: choose one of your dice:", "Fase 4: elige uno de tus dados:"));
		for (i = 0; i < s->nroll; i++)
			buf_printf(out, " %d", s->roll[i]);
		buf_addch(out, '.');
		break;
	case FS_FAVOUR: {
		struct move_list ml;
		int k, tax = 0, favour = 0;

		/* the tax is offered only when no card 5 or 6 lets the seat
		 * advance (docs/games/fortuna.md) */
		fortuna_moves(s, seat, &ml);
		for (k = 0; k < ml.n; k++) {
			tax |= ml.v[k].kind == FM_TAX;
			favour |= ml.v[k].kind == FM_DELIVER || ml.v[k].kind == FM_FAVOUR;
		}
		if (tax && favour)
			buf_printf(out, L(loc, "Phase 4: with the die %d, use a favour card or pay the tax.",
					  "Fase 4: con el dado %d, usa una carta de favor o paga impuestos."),
				   s->die);
		else if (favour)
			buf_printf(out, L(loc, "Phase 4: with the die %d, use a favour card (no tax: "
					       "card 5 or 6 lets you advance without delivering).",
					  "Fase 4: con el dado %d, usa una carta de favor (sin impuesto: "
					  "la carta 5 o 6 te deja avanzar sin entregar nada)."),
				   s->die);
		else
			buf_printf(out, L(loc, "Phase 4: with the die %d you can satisfy no favour card: "
					       "pay the tax (you may play a privilege card first).",
					  "Fase 4: con el dado %d no puedes atender ninguna carta de favor: "
					  "paga impuestos (antes puedes jugar una carta de privilegio)."),
				   s->die);
		break;
	}
	case FS_FLIP:
		buf_addstr(out, L(loc, "You may turn one more favour card without tokens face down.",
				  "Puedes voltear otra carta de favor sin fichas."));
		break;
	case FS_KEEP:
		if (s->keep_src == FK_FAVOUR)
			buf_addstr(out, L(loc, "Phase 5: choose the privilege card to keep.",
					  "Fase 5: elige la carta de privilegio que te quedas."));
		else
			buf_addstr(out, L(loc, "Caesar's Palace: choose the privilege card to keep.",
					  "Palacio del César: elige la carta de privilegio que te quedas."));
		break;
	case FS_END:
		buf_addstr(out, L(loc, "Play a privilege card, or end your turn.",
				  "Juega una carta de privilegio, o termina tu turno."));
		break;
	case FS_RESOURCE:
		buf_addstr(out, L(loc, "Choose the resource your privilege card gives.",
				  "Elige el recurso que te da la carta de privilegio."));
		break;
	}
}

/* ---- a small monospace table ---- */

#define TROWS 12
#define TCOLS 14

struct table {
	struct buf cell[TROWS][TCOLS];
	int nrows, ncols;
};

static void table_init(struct table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

static void table_release(struct table *t)
{
	int r, c;

	for (r = 0; r < TROWS; r++)
		for (c = 0; c < TCOLS; c++)
			buf_release(&t->cell[r][c]);
}

static struct buf *cell(struct table *t, int row, int col)
{
	return &t->cell[row][col];
}

static void table_render(struct table *t, struct buf *out)
{
	int w[TCOLS] = { 0 }, r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			int x = (int)utf8_width(buf_str(&t->cell[r][c]));

			if (x > w[c])
				w[c] = x;
		}
	for (r = 0; r < t->nrows; r++) {
		struct buf line = BUF_INIT;

		for (c = 0; c < t->ncols; c++)
			buf_addpad(&line, buf_str(&t->cell[r][c]), c + 1 < t->ncols ? w[c] + 2 : 0);
		/* trailing blanks are noise in chat clients */
		while (line.len && line.s[line.len - 1] == ' ')
			line.s[--line.len] = '\0';
		buf_printf(out, "%s\n", buf_str(&line));
		buf_release(&line);
	}
}

/* ---- public board ---- */

const char *fortuna_phase_name(const struct fortuna_state *s, enum locale loc)
{
	int step = s->step == FS_RESOURCE ? s->res_ret : s->step;

	if (step == FS_ACTION && s->act_via == FV_MILITARY)
		step = FS_MILITARY;
	switch (step) {
	case FS_DRAFT:
		return L(loc, "setup: draft of action cards", "preparación: elección de cartas de acción");
	case FS_HIDE:
		return L(loc, "setup: everybody reserves a card face down, all at once",
			 "preparación: todos reservan una carta boca abajo, a la vez");
	case FS_CHOOSE:
	case FS_ACTION:
	case FS_EXCHANGE:
		return L(loc, "phase 2, action card", "fase 2, carta de acción");
	case FS_MILITARY:
		return L(loc, "phase 3, Military Power", "fase 3, Poder Militar");
	case FS_DIE:
	case FS_FAVOUR:
		return L(loc, "phase 4, the Emperor's favour", "fase 4, el favor del Emperador");
	case FS_FLIP:
		return L(loc, "phase 4, extra flip (2 players)", "fase 4, volteo extra (2 jugadores)");
	case FS_KEEP:
	case FS_END:
		return L(loc, "phase 5, privileges", "fase 5, privilegios");
	}
	return "";
}

void fortuna_road_text(const struct fortuna_player *p, enum locale loc, struct buf *b)
{
	buf_printf(b, "%d", p->steps);
	if (p->steps >= FORTUNA_PALACE)
		buf_addstr(b, L(loc, " Palace", " Palacio"));
	else if (p->steps >= FORTUNA_ROME)
		buf_addstr(b, L(loc, " Rome", " Roma"));
}

static void seat_table(const struct fortuna_state *s, const struct game_view *v,
		       enum locale loc, struct buf *out)
{
	static const char *const head[2][13] = {
		{ "#", "Player", "Road", "Coins", "Water", "Grain", "Wine", "Priest", "Cent",
		  "Dice", "Married", "Buildings", "Priv" },
		{ "#", "Jugador", "Camino", "Monedas", "Agua", "Grano", "Vino", "Sacerd", "Cent",
		  "Dados", "Casado", "Edificios", "Priv" },
	};
	static const char *const bshort[2][FB_COUNT] = {
		{ "Mkt", "Aqu", "Pal", "Bas" }, { "Mer", "Acu", "Pal", "Bas" },
	};
	struct table t;
	int i, c, k;

	table_init(&t, 13);
	for (c = 0; c < 13; c++)
		buf_addstr(cell(&t, 0, c), head[loc][c]);
	for (i = 0; i < s->nplayers; i++) {
		int seat = s->order[i], row = i + 1, nb = 0, np = 0;
		const struct fortuna_player *p = &s->p[seat];

		buf_printf(cell(&t, row, 0), "%d", i + 1);
		buf_addstr(cell(&t, row, 1), game_view_name(v, seat));
		fortuna_road_text(p, loc, cell(&t, row, 2));
		buf_printf(cell(&t, row, 3), "%d", p->money);
		buf_printf(cell(&t, row, 4), "%d", p->water);
		if ((p->buildings >> FB_AQUEDUCT) & 1)
			buf_printf(cell(&t, row, 4), "+%d", p->aq_water);
		buf_printf(cell(&t, row, 5), "%d", p->grain);
		buf_printf(cell(&t, row, 6), "%d", p->wine);
		buf_printf(cell(&t, row, 7), "%d", p->priest);
		buf_printf(cell(&t, row, 8), "%d", p->cent);
		buf_printf(cell(&t, row, 9), "%d", p->dice);
		buf_addstr(cell(&t, row, 10), p->married ? L(loc, "yes", "sí") : "-");
		for (k = 0; k < FB_COUNT; k++)
			if ((p->buildings >> k) & 1)
				buf_printf(cell(&t, row, 11), "%s%s", nb++ ? " " : "", bshort[loc][k]);
		if (!nb)
			buf_addstr(cell(&t, row, 11), "-");
		for (k = 0; k < FP_COUNT; k++)
			np += p->hand[k];
		buf_printf(cell(&t, row, 12), "%d", np);
	}
	t.nrows = s->nplayers + 1;
	table_render(&t, out);
	table_release(&t);
}

static void cards_table(const struct fortuna_state *s, const struct game_view *v,
			enum locale loc, struct buf *out)
{
	struct table t;
	int side, u;

	table_init(&t, 4);
	for (side = 0; side < FORTUNA_SIDES; side++) {
		if (side < s->nplayers)
			buf_addstr(cell(&t, side, 0), game_view_name(v, side));
		else
			buf_printf(cell(&t, side, 0), L(loc, "side %d (empty)", "lado %d (vacío)"), side + 1);
		for (u = 0; u < FORTUNA_SLOTS; u++) {
			int c = s->side_card[side][u];

			if (c == FORTUNA_NO_CARD)
				buf_addstr(cell(&t, side, u + 1), "-");
			else if (s->side_down[side][u] && s->step != FS_HIDE)
				down_name(c, loc, cell(&t, side, u + 1));
			else	/* a reservation shows when everybody has made theirs */
				buf_addstr(cell(&t, side, u + 1), act_name(c, loc));
		}
	}
	t.nrows = FORTUNA_SIDES;
	table_render(&t, out);
	table_release(&t);
}

static void favour_table(const struct fortuna_state *s, enum locale loc, struct buf *out)
{
	struct table t;
	int c;

	table_init(&t, 3);
	for (c = 0; c < FF_COUNT; c++) {
		buf_printf(cell(&t, c, 0), "%d %s", c + 1, fortuna_favours[c].name[loc]);
		buf_addstr(cell(&t, c, 1), s->fav_up[c] ? L(loc, "up", "arriba")
							: L(loc, "used", "usada"));
		buf_printf(cell(&t, c, 2), L(loc, "tokens: %d", "fichas: %d"), s->fav_tokens[c]);
	}
	t.nrows = FF_COUNT;
	table_render(&t, out);
	table_release(&t);
}

static void final_table(const struct fortuna_state *s, const struct game_view *v,
			enum locale loc, struct rich *out)
{
	struct game_result res;
	struct table t;
	struct buf b = BUF_INIT;
	int i, k, c, r, rows[FORTUNA_MAX_PLAYERS];

	fortuna_result(s, &res);
	table_init(&t, 6);
	buf_addstr(cell(&t, 0, 0), L(loc, "Rank", "Puesto"));
	buf_addstr(cell(&t, 0, 1), L(loc, "Player", "Jugador"));
	buf_addstr(cell(&t, 0, 2), L(loc, "Steps", "Pasos"));
	buf_addstr(cell(&t, 0, 3), L(loc, "Privileges", "Privilegios"));
	buf_addstr(cell(&t, 0, 4), L(loc, "Total", "Total"));
	buf_addstr(cell(&t, 0, 5), L(loc, "In Rome", "En Roma"));
	/* rows by rank, then seat */
	for (r = 0, k = 1; k <= s->nplayers; k++)
		for (i = 0; i < s->nplayers; i++)
			if (res.rank[i] == k)
				rows[r++] = i;
	for (r = 0; r < s->nplayers; r++) {
		i = rows[r];
		buf_printf(cell(&t, r + 1, 0), "%d", res.rank[i]);
		buf_addstr(cell(&t, r + 1, 1), game_view_name(v, i));
		buf_printf(cell(&t, r + 1, 2), "%d", s->p[i].steps);
		if (res.eligible[i])
			buf_printf(cell(&t, r + 1, 3), "%d", fortuna_priv_points(s, i));
		else
			buf_addstr(cell(&t, r + 1, 3), "-");
		buf_printf(cell(&t, r + 1, 4), "%d", res.score[i]);
		buf_addstr(cell(&t, r + 1, 5), res.eligible[i] ? L(loc, "yes", "sí")
							 : L(loc, "no (cannot win)", "no (no puede ganar)"));
	}
	t.nrows = s->nplayers + 1;
	table_render(&t, &b);
	table_release(&t);
	rich_heading(out, "%s", L(loc, "Final scoring", "Puntuación final"));
	rich_mono(out, buf_str(&b));
	for (i = 0; i < s->nplayers; i++) {
		buf_reset(&b);
		for (k = 0; k < FP_COUNT; k++)
			for (c = 0; c < s->p[i].hand[k]; c++)
				buf_printf(&b, "%s%s", b.len ? ", " : "", fortuna_privs[k].name[loc]);
		rich_line(out, L(loc, "%s's privilege cards: %s", "Cartas de privilegio de %s: %s"),
			  game_view_name(v, i), b.len ? buf_str(&b) : L(loc, "none", "ninguna"));
	}
	/* the winners are announced by the session manager, with mentions */
	if (!res.winners)
		rich_line(out, "%s", L(loc, "Nobody entered Rome: nobody wins.",
				       "Nadie ha entrado en Roma: nadie gana."));
	buf_release(&b);
}

/* Who holds the Fortuna card, so who leads the next round. */
int fortuna_holder_text(const struct fortuna_state *s, const struct game_view *v,
			enum locale loc, struct buf *out)
{
	int t = fortuna_find_card(s, FA_FORTUNA, NULL);

	/* (in the setup its holder simply leads round 1) */
	if (t < 0 || s->step <= FS_HIDE || s->step == FS_OVER)
		return 0;
	if (t < s->nplayers)
		buf_printf(out, L(loc, "The Fortuna card is on %s's side: %s leads the next round if it stays there.",
				  "La Carta Fortuna está en el lado de %s: %s empieza la ronda siguiente si sigue ahí."),
			   game_view_name(v, t), game_view_name(v, t));
	else
		buf_printf(out, L(loc, "The Fortuna card is on side %d (empty): if it stays there, the richest player leads the next round.",
				  "La Carta Fortuna está en el lado %d (vacío): si sigue ahí, empieza la ronda siguiente el jugador más rico."),
			   t + 1);
	return 1;
}

static void fortuna_holder(const struct fortuna_state *s, const struct game_view *v,
			   enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;

	if (fortuna_holder_text(s, v, loc, &b))
		rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

void fortuna_render_public(const void *st, const struct game_view *v, struct rich *out)
{
	const struct fortuna_state *s = st;
	enum locale loc = v && v->loc < LOC_COUNT ? v->loc : LOC_EN;
	struct buf b = BUF_INIT;
	int i, who = fortuna_decider(s), nd = 0;

	if (s->step == FS_OVER)
		rich_heading(out, L(loc, "Fortuna: game over after round %d", "Fortuna: fin de la partida tras la ronda %d"),
			     s->round);
	else
		rich_heading(out, L(loc, "Fortuna: round %d", "Fortuna: ronda %d"), s->round);
	if (s->step == FS_HIDE) {
		unsigned aw = fortuna_awaiting(s);

		for (i = 0; i < s->nplayers; i++)
			if ((aw >> s->order[i]) & 1)
				buf_printf(&b, "%s%s", b.len ? ", " : "", game_view_name(v, s->order[i]));
		rich_line(out, L(loc, "Now: %s (still choosing; %s).", "Ahora: %s (aún eligen; %s)."),
			  buf_str(&b), fortuna_phase_name(s, loc));
		buf_reset(&b);
	} else if (who >= 0) {
		rich_line(out, L(loc, "Now: %s (%s).", "Ahora: %s (%s)."), game_view_name(v, who),
			  fortuna_phase_name(s, loc));
	}
	if (s->ending && s->step != FS_OVER)
		rich_line(out, "%s", L(loc, "Somebody reached Caesar's Palace: this is the last round.",
				       "Alguien ha llegado al Palacio del César: es la última ronda."));

	seat_table(s, v, loc, &b);
	buf_addstr(&b, "\n");
	buf_addstr(&b, L(loc, "Action cards ([x] = face down, reserved for its owner's next turn)\n",
			 "Cartas de acción ([x] = boca abajo, reservada para el próximo turno de su dueño)\n"));
	cards_table(s, v, loc, &b);
	buf_addstr(&b, "\n");
	buf_addstr(&b, L(loc, "Favour cards\n", "Cartas de favor\n"));
	favour_table(s, loc, &b);
	rich_mono(out, buf_str(&b));

	buf_reset(&b);
	fortuna_holder(s, v, loc, out);
	for (i = 0; i < FP_COUNT; i++)
		nd += s->discard[i];
	rich_line(out, L(loc, "Privilege tokens: %d in reserve, %d above the Palace. "
			      "Privilege cards: %d in the deck, %d discarded.",
			 "Fichas de privilegio: %d en reserva, %d sobre el Palacio. "
			 "Cartas de privilegio: %d en el mazo, %d descartadas."),
		  s->token_reserve, s->token_palace, s->ndeck, nd);
	if (nd) {
		/* discarded face up beside the deck: public, named plainly */
		for (i = 0; i < FP_COUNT; i++) {
			if (!s->discard[i])
				continue;
			if (b.len)
				buf_addstr(&b, ", ");
			fortuna_priv_plain(i, loc, &b);
			if (s->discard[i] > 1)
				buf_printf(&b, " ×%d", s->discard[i]);
		}
		rich_line(out, L(loc, "Discarded face up: %s.", "Descartadas boca arriba: %s."),
			  buf_str(&b));
		buf_reset(&b);
	}
	if (s->npalace && s->step == FS_OVER) {
		/* the end reveals what lay face down */
		for (i = 0; i < s->npalace; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", fortuna_privs[s->palace_cards[i]].name[loc]);
		rich_line(out, L(loc, "Left face down at the Palace: %s.", "Boca abajo en el Palacio: %s."),
			  buf_str(&b));
		buf_reset(&b);
	} else if (s->npalace) {
		rich_line(out, L(loc, "Left face down at the Palace: %d privilege card(s).",
				 "Boca abajo en el Palacio: %d carta(s) de privilegio."), s->npalace);
	}
	if (s->token_turn)
		rich_line(out, L(loc, "Tokens won this turn: %d.", "Fichas ganadas este turno: %d."),
			  s->token_turn);
	rich_line(out, L(loc, "Supply: water %d, grain %d, wine %d, Priestesses %d, Centurions %d, dice %d. "
			      "Buildings left: Market %d, Aqueduct %d, Palace %d, Basilica %d.",
			 "Reserva: agua %d, grano %d, vino %d, Sacerdotisas %d, Centuriones %d, dados %d. "
			 "Edificios: Mercado %d, Acueducto %d, Palacio %d, Basílica %d."),
		  s->sup_water, s->sup_grain, s->sup_wine, s->sup_priest, s->sup_cent, s->sup_dice,
		  s->bld_left[0], s->bld_left[1], s->bld_left[2], s->bld_left[3]);
	if (s->last_seat < s->nplayers) {
		for (i = 0; i < s->last_nroll && i < 3; i++)
			buf_printf(&b, "%s%d", i ? " " : "", s->last_roll[i]);
		if (s->last_die)
			rich_line(out, L(loc, "Last roll: %s rolled %s and chose %d.",
					 "Última tirada: %s sacó %s y eligió el %d."),
				  game_view_name(v, s->last_seat), buf_str(&b), s->last_die);
		else
			rich_line(out, L(loc, "Last roll: %s rolled %s.", "Última tirada: %s sacó %s."),
				  game_view_name(v, s->last_seat), buf_str(&b));
	}
	buf_release(&b);
	if (s->step == FS_OVER)
		final_table(s, v, loc, out);
}

/* ---- private view ---- */

void fortuna_render_private(const void *st, int seat, const struct game_view *v,
			    struct rich *out)
{
	const struct fortuna_state *s = st;
	enum locale loc = v && v->loc < LOC_COUNT ? v->loc : LOC_EN;
	struct buf b = BUF_INIT;
	int k, c, u, i;

	if (seat < 0 || seat >= s->nplayers)
		return;
	rich_heading(out, L(loc, "Fortuna: your province", "Fortuna: tu provincia"));
	for (u = 0; u < FORTUNA_SLOTS; u++)
		if (s->side_down[seat][u] && s->side_card[seat][u] < FA_COUNT)
			rich_line(out, s->step == FS_HIDE
				  ? L(loc, "You reserve %s (it turns face down when everybody has chosen).",
				      "Reservas %s (se pone boca abajo cuando todos hayan elegido).")
				  : L(loc, "Your face-down action card: %s.",
				      "Tu carta de acción boca abajo: %s."),
				  act_name(s->side_card[seat][u], loc));
	for (k = 0; k < FP_COUNT; k++)
		for (c = 0; c < s->p[seat].hand[k]; c++)
			buf_printf(&b, "%s%s", b.len ? ", " : "", fortuna_privs[k].name[loc]);
	rich_line(out, L(loc, "Your privilege cards: %s.", "Tus cartas de privilegio: %s."),
		  b.len ? buf_str(&b) : L(loc, "none", "ninguna"));
	if (fortuna_decider(s) == seat && s->step == FS_KEEP) {
		buf_reset(&b);
		for (i = 0; i < s->ndrawn; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", fortuna_privs[s->drawn[i]].name[loc]);
		rich_line(out, L(loc, "To choose from: %s (keep %d).", "Para elegir: %s (te quedas %d)."),
			  buf_str(&b), s->keep_left);
	}
	buf_reset(&b);
	fortuna_prompt(s, seat, loc, &b);
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

void fortuna_secrets(const void *st, enum locale loc, struct buf *out)
{
	const struct fortuna_state *s = st;
	int t, u, k, i;

	if (s->step == FS_OVER)
		return;
	if (loc >= LOC_COUNT)
		loc = LOC_EN;
	/* A reservation made while others still choose, in the form the
	 * board would give it once revealed.  Afterwards every action card
	 * is public (see the top of this file). */
	if (s->step == FS_HIDE)
		for (t = 0; t < s->nplayers; t++)
			for (u = 0; u < FORTUNA_SLOTS; u++)
				if (s->side_down[t][u] && s->side_card[t][u] < FA_COUNT) {
					down_name(s->side_card[t][u], loc, out);
					buf_addch(out, '\n');
				}
	for (t = 0; t < s->nplayers; t++)
		for (k = 0; k < FP_COUNT; k++)
			if (s->p[t].hand[k])
				buf_printf(out, "%s\n", fortuna_privs[k].name[loc]);
	for (i = 0; i < s->ndrawn; i++)
		buf_printf(out, "%s\n", fortuna_privs[s->drawn[i]].name[loc]);
	for (i = 0; i < s->npalace; i++)
		buf_printf(out, "%s\n", fortuna_privs[s->palace_cards[i]].name[loc]);
}
