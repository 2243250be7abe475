/*
 * render.c: every text Sylla shows: move ids and labels, prompts, the
 * public board, the private view, the intro and the list of secrets.
 *
 * What sits behind a screen (money, Res Publica tokens) and a secret
 * choice not yet revealed are written only in guillemets, «...», by
 * sylla_screen_text() and sylla_choice_text(), and only into the private
 * view; secrets() lists those exact strings (and the private view's
 * headings), so the tests can prove none of them reaches the public board
 * or a public log line.  Nothing public writes «.
 *
 * The prompt is shown publicly ("Waiting for Ana: ..."), so during a
 * secret step it is the same sentence whatever the seat has chosen so far.
 */
#include <string.h>

#include "games/sylla/sylla.h"
#include "util/text.h"

static enum locale fix(enum locale loc)
{
	return loc < LOC_COUNT ? loc : LOC_EN;
}

void sylla_char_name(int card, enum locale loc, struct buf *out)
{
	const struct sylla_char_info *c;
	int h;

	if (card < 0 || card >= SY_CHARS) {
		buf_addstr(out, "?");
		return;
	}
	loc = fix(loc);
	c = &sylla_chars[sylla_k(card)];
	buf_addstr(out, sylla_kinds[c->kind].name[loc]);
	if (c->christian)
		buf_addstr(out, " \xe2\x9c\x9d");	/* ✝ */
	buf_addstr(out, " (");
	for (h = 0; h < c->nhex; h++)
		buf_printf(out, "%s%s", h ? " " : "", sylla_hex_letter[c->hex[h]][loc]);
	buf_addstr(out, ")");
}

const char *sylla_tile_name(int tile, enum locale loc)
{
	if (tile < 0 || tile >= SY_TILES)
		return "?";
	return sylla_buildings[sylla_tiles[tile].type].name[fix(loc)];
}

static const char *ev_name(const struct sylla_state *s, int slot, enum locale loc)
{
	int e = slot >= 0 && slot < SY_EV_ROW ? s->ev_row[slot] : SY_NONE;

	return e < SE_COUNT ? sylla_events[e].name[loc] : "?";
}

static const char *track_name(int t, enum locale loc)
{
	return t >= 0 && t < ST_COUNT ? sylla_tracks[t].name[loc] : "?";
}

/* ---- move ids ---- */

void sylla_move_id(const void *st, int seat, struct move m, struct buf *out)
{
	const struct sylla_state *s = st;
	int a = m.a;

	switch (m.kind) {
	case SM_PICK:
		buf_printf(out, "pick %s", a < SY_PER_SET ? sylla_chars[a].id : "?");
		break;
	case SM_DROP:
		buf_printf(out, "drop %s", a < SY_PER_SET ? sylla_chars[a].id : "?");
		break;
	case SM_CONFIRM:
		buf_addstr(out, "confirm");
		break;
	case SM_CHANGE:
		buf_addstr(out, "change");
		break;
	case SM_MORE:
		buf_addstr(out, "more");
		break;
	case SM_PASS:
		buf_addstr(out, "pass");
		break;
	case SM_OFFER:
		buf_printf(out, "offer %d", a);
		break;
	case SM_TOKEN:
		buf_printf(out, "token %s", a < ST_COUNT ? sylla_tracks[a].id : "?");
		break;
	case SM_RECRUIT:
		buf_printf(out, "recruit %s", a < SY_CHARS ? sylla_chars[sylla_k(a)].id : "?");
		break;
	case SM_SELL: {
		int t = a < SY_ROW ? s->tiles[a] : SY_NONE;

		buf_printf(out, "sell %s %s", t < SY_TILES ? sylla_buildings[sylla_tiles[t].type].id : "?",
			   a < SY_ROW ? sylla_colours[sylla_slot_colour[a]].id : "?");
		break;
	}
	case SM_BID:
		buf_printf(out, "bid %d", a);
		break;
	case SM_TAP:
		if (a == SY_CHARS)
			buf_addstr(out, "tap crane");
		else
			buf_printf(out, "tap %s", a < SY_CHARS ? sylla_chars[sylla_k(a)].id : "?");
		break;
	case SM_INSULA:
		buf_printf(out, "tokens %s %s", a < ST_COUNT ? sylla_tracks[a].id : "?",
			   m.b < ST_COUNT ? sylla_tracks[m.b].id : "?");
		break;
	case SM_TEMPLE:
		buf_printf(out, "temple %s", a < ST_COUNT ? sylla_tracks[a].id : "?");
		break;
	case SM_SKIP:
		buf_addstr(out, "skip");
		break;
	case SM_TAVERN:
		buf_printf(out, "tavern %s %s", a < ST_COUNT ? sylla_tracks[a].id : "?", m.b ? "up" : "down");
		break;
	case SM_CUBE:
		buf_printf(out, "%s on %s", m.b == SK_LEGIONARY ? "legionary" : "vestal",
			   a < SY_EV_ROW && s->ev_row[a] < SE_COUNT ? sylla_events[s->ev_row[a]].id : "?");
		break;
	case SM_AVOID:
	case SM_REMOVE:
		buf_printf(out, "%s %s", m.kind == SM_AVOID ? "avoid" : "remove",
			   a < SY_EV_ROW && s->ev_row[a] < SE_COUNT ? sylla_events[s->ev_row[a]].id : "?");
		break;
	case SM_HIDE:
		if (a < SY_CHARS)
			buf_printf(out, "hide %s%s", (s->tapped >> a) & 1 ? "tapped " : "",
				   sylla_chars[sylla_k(a)].id);
		else if (a < SY_CHARS + SZ_COUNT)
			buf_printf(out, "hide %s", sylla_buildings[sylla_zone_type[a - SY_CHARS]].id);
		else
			buf_addstr(out, "hide ?");
		break;
	case SM_THUMB:
		buf_addstr(out, a ? "thumb up" : "thumb down");
		break;
	case SM_GIVE:
		buf_printf(out, "give %d", a);
		break;
	case SM_FREE:
		buf_printf(out, "free %d", a);
		break;
	default:
		buf_addstr(out, "?");
	}
	(void)seat;
}

/* ---- move labels ---- */

void sylla_move_label(const void *st, int seat, struct move m, enum locale loc, struct buf *out)
{
	const struct sylla_state *s = st;
	int a = m.a, sen = (unsigned)seat < s->nplayers ? sylla_senators(s, seat) : 0;

	loc = fix(loc);
	switch (m.kind) {
	case SM_PICK:
		buf_addstr(out, L(loc, "Choose ", "Elegir "));
		sylla_char_name(a, loc, out);
		break;
	case SM_DROP:
		buf_addstr(out, L(loc, "Chosen: ", "Elegido: "));
		sylla_char_name(a, loc, out);
		buf_addstr(out, L(loc, " (put it back)", " (devolverlo)"));
		break;
	case SM_CONFIRM:
		buf_addstr(out, L(loc, "Confirm my choice", "Confirmar mi elección"));
		break;
	case SM_CHANGE:
		buf_addstr(out, L(loc, "Start my choice again", "Volver a empezar mi elección"));
		break;
	case SM_MORE:
		buf_addstr(out, L(loc, "Show higher amounts", "Ver cantidades mayores"));
		break;
	case SM_PASS:
		buf_addstr(out, s->step == SS_SEALED ? L(loc, "Pass: offer nothing", "Pasar: no ofrecer nada")
						     : L(loc, "Pass", "Pasar"));
		break;
	case SM_OFFER:
		if (s->step == SS_SEALED)
			buf_printf(out, L(loc, "Offer %d %s (%d %s with your Senators)",
					  "Ofrecer %d %s (%d %s con tus Senadores)"), a, sylla_word(SW_DENARIUS, a, loc),
				   a + sen, sylla_word(SW_VOTE, a + sen, loc));
		else
			buf_printf(out, L(loc, "Offer %d %s (you pay %d if elected)",
					  "Ofrecer %d %s (pagas %d si ganas)"),
				   a, sylla_word(SW_VOTE, a, loc), a > sen ? a - sen : 0);
		break;
	case SM_TOKEN:
		buf_printf(out, L(loc, "Take a %s token", "Tomar una ficha de %s"), track_name(a, loc));
		break;
	case SM_RECRUIT:
		buf_addstr(out, L(loc, "Recruit ", "Reclutar "));
		sylla_char_name(a, loc, out);
		break;
	case SM_SELL:
		buf_printf(out, L(loc, "Put up %s for sale (%s)", "Poner a la venta %s (%s)"),
			   sylla_tile_name(a < SY_ROW ? s->tiles[a] : SY_NONE, loc),
			   a < SY_ROW ? sylla_colours[sylla_slot_colour[a]].name[loc] : "?");
		break;
	case SM_BID: {
		int c = s->sale_slot < SY_ROW ? sylla_slot_colour[s->sale_slot] : 0;

		buf_printf(out, L(loc, "Bid %d (turn %d %s with %s)", "Pujar %d (girar %d %s con %s)"),
			   a, a, sylla_word(SW_CHARACTER, a, loc), sylla_colours[c].name[loc]);
		break;
	}
	case SM_TAP:
		if (a == SY_CHARS) {
			buf_addstr(out, L(loc, "Turn a Crane", "Girar una Grúa"));
		} else {
			buf_addstr(out, L(loc, "Turn ", "Girar "));
			sylla_char_name(a, loc, out);
		}
		break;
	case SM_INSULA:
		if (a == m.b)
			buf_printf(out, L(loc, "Take 2 %s tokens", "Tomar 2 fichas de %s"), track_name(a, loc));
		else
			buf_printf(out, L(loc, "Take a %s and a %s token", "Tomar una ficha de %s y una de %s"),
				   track_name(a, loc), track_name(m.b, loc));
		break;
	case SM_TEMPLE:
		buf_printf(out, L(loc, "Pay 2 denarii for a %s token", "Pagar 2 denarios por una ficha de %s"),
			   track_name(a, loc));
		break;
	case SM_SKIP:
		buf_addstr(out, s->step == SS_TEMPLE ? L(loc, "Do not use the Private Temple", "No usar el Templo privado")
						     : L(loc, "Do not use the Tavern", "No usar la Taberna"));
		break;
	case SM_TAVERN: {
		int v = a < ST_COUNT ? s->track[a] : 0, to = v + (m.b ? 1 : -1);

		if (to < 0 || to > SY_TRACK_MAX)
			buf_printf(out, L(loc, "Block %s at %d", "Bloquear %s en %d"), track_name(a, loc), v);
		else
			buf_printf(out, L(loc, "Move %s %s: %d \xe2\x86\x92 %d", "Mover %s hacia %s: %d \xe2\x86\x92 %d"),
				   track_name(a, loc), m.b ? L(loc, "up", "arriba") : L(loc, "down", "abajo"), v, to);
		break;
	}
	case SM_CUBE: {
		int n = 0, i;

		for (i = 0; a < SY_EV_ROW && i < s->nplayers; i++)
			n += s->cubes[a][i];
		buf_printf(out, L(loc, "%s cube on %s (%d there now)", "Cubo de %s en %s (ahora hay %d)"),
			   sylla_kinds[m.b == SK_LEGIONARY ? SK_LEGIONARY : SK_VESTAL].name[loc],
			   ev_name(s, a, loc), n);
		break;
	}
	case SM_AVOID:
		buf_printf(out, L(loc, "Avoid %s", "Evitar %s"), ev_name(s, a, loc));
		break;
	case SM_REMOVE:
		buf_printf(out, L(loc, "Remove %s from the game", "Retirar %s del juego"), ev_name(s, a, loc));
		break;
	case SM_HIDE:
		if (a < SY_CHARS) {
			buf_addstr(out, L(loc, "Turn face down: ", "Poner boca abajo: "));
			sylla_char_name(a, loc, out);
			if ((s->tapped >> a) & 1)
				buf_addstr(out, L(loc, " (already turned)", " (ya girado)"));
		} else if (a < SY_CHARS + SZ_COUNT) {
			buf_printf(out, L(loc, "Turn face down: %s", "Poner boca abajo: %s"),
				   sylla_buildings[sylla_zone_type[a - SY_CHARS]].name[loc]);
		}
		break;
	case SM_THUMB:
		if (a)
			buf_printf(out, L(loc, "Thumb up: fund the Great Work %s", "Pulgar arriba: financiar la Gran Obra %s"),
				   sylla_works[s->works[s->turn < SG_COUNT ? s->turn : 0]].name[loc]);
		else
			buf_addstr(out, L(loc, "Thumb down: give to the plebeians", "Pulgar abajo: dar a los plebeyos"));
		break;
	case SM_GIVE:
		buf_printf(out, L(loc, "Add %d %s (%d %s)", "Añadir %d %s (%d %s)"), a,
			   sylla_word(SW_DENARIUS, a, loc), a + sen, sylla_word(SW_VOTE, a + sen, loc));
		break;
	case SM_FREE:
		buf_printf(out, L(loc, "Free %d %s (%d denarii, +%d prestige)",
				  "Liberar %d %s (%d denarios, +%d de prestigio)"), a, sylla_word(SW_SLAVE, a, loc),
			   2 * a, 3 * a);
		break;
	default:
		buf_addstr(out, "?");
	}
}

/* ---- pieces shared by the board, the prompt and the picture ---- */

void sylla_cubes_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out)
{
	const struct sylla_player *p = &s->p[seat];

	loc = fix(loc);
	if (p->cubes[0] && p->cubes[1])
		buf_printf(out, "%s %d, %s %d", sylla_kinds[SK_VESTAL].name[loc], p->cubes[0],
			   sylla_kinds[SK_LEGIONARY].name[loc], p->cubes[1]);
	else if (p->cubes[0] || p->cubes[1])
		buf_printf(out, "%s %d", sylla_kinds[p->cubes[0] ? SK_VESTAL : SK_LEGIONARY].name[loc],
			   p->cubes[0] ? p->cubes[0] : p->cubes[1]);
	else
		buf_addstr(out, L(loc, "none", "ninguno"));
}

void sylla_cranes_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out)
{
	const struct sylla_player *p = &s->p[seat];
	int used = p->crane_used - p->crane_new;

	loc = fix(loc);
	if (used > 0)
		buf_printf(out, used == 1 ? L(loc, "%d turned", "%d girada") : L(loc, "%d turned", "%d giradas"),
			   used);
	if (!p->crane_new)
		return;
	if (used > 0)
		buf_addstr(out, ", ");
	if (p->crane_new < p->zone[SZ_CRANE])
		buf_printf(out, "%d ", p->crane_new);
	buf_addstr(out, p->crane_new == 1 ? L(loc, "usable next turn", "usable el turno siguiente")
					  : L(loc, "usable next turn", "usables el turno siguiente"));
}

/* A seat that confirmed its part of the secret step under way. */
static int confirmed(const struct sylla_state *s, int seat)
{
	return (unsigned)seat < s->nplayers && s->phase != SP_OVER && sylla_secret_step(s->step) &&
	       ((s->asked >> seat) & 1) && !((s->waiting >> seat) & 1);
}

void sylla_idle_reason(const void *st, int seat, enum locale loc, struct buf *out)
{
	if (confirmed(st, seat))
		buf_addstr(out, L(fix(loc), "You have confirmed your choice.", "Ya has confirmado tu elección."));
}

/* ---- prompt ---- */

void sylla_prompt(const void *st, int seat, enum locale loc, struct buf *out)
{
	const struct sylla_state *s = st;

	loc = fix(loc);
	if (confirmed(s, seat)) {
		buf_addstr(out, L(loc, "You have confirmed your choice; waiting for the others.",
				  "Ya has confirmado tu elección; esperando a los demás."));
		return;
	}
	if ((unsigned)seat >= s->nplayers || !((sylla_awaiting(s) >> seat) & 1)) {
		buf_addstr(out, L(loc, "Nothing to decide now.", "Nada que decidir ahora."));
		return;
	}
	switch (s->step) {
	case SS_PICK:
		buf_printf(out, L(loc, "choose %d characters of your set in secret, then confirm.",
				  "elige en secreto %d personajes de tu juego y confirma."), sylla_pick_count(s));
		break;
	case SS_SEALED:
		buf_addstr(out, L(loc, "make your secret offer for First Consul (denarii added to your Senators), then confirm.",
				  "haz tu oferta secreta para Primer Cónsul (denarios sumados a tus Senadores) y confirma."));
		break;
	case SS_ELECT:
		buf_printf(out, L(loc, "offer more than %d %s (Senators + denarii) to be First Consul, or pass.",
				  "ofrece más de %d %s (Senadores + denarios) para ser Primer Cónsul, o pasa."),
			   s->hi_votes, sylla_word(SW_VOTE, s->hi_votes, loc));
		break;
	case SS_TOKEN:
		buf_addstr(out, L(loc, "as First Consul, take a Res Publica token of your choice (its colour is shown).",
				  "como Primer Cónsul, toma una ficha Res Publica a tu elección (se enseña su color)."));
		break;
	case SS_RECRUIT:
		buf_addstr(out, L(loc, "recruit one of the characters for hire.", "recluta uno de los personajes disponibles."));
		break;
	case SS_OFFER:
		buf_addstr(out, L(loc, "put one of the buildings up for sale.", "pon a la venta uno de los edificios."));
		break;
	case SS_BID: {
		int slot = s->sale_slot < SY_ROW ? s->sale_slot : 0;

		buf_printf(out, L(loc, "bid for %s (%s): more than %d %s with that colour, or pass.",
				  "puja por %s (%s): más de %d %s de ese color, o pasa."),
			   sylla_tile_name(s->tiles[slot], loc), sylla_colours[sylla_slot_colour[slot]].name[loc],
			   s->bid_hi, sylla_word(SW_CHARACTER, s->bid_hi, loc));
		break;
	}
	case SS_TAP:
		buf_printf(out, L(loc, "turn %d more %s with %s to pay.", "gira %d %s más con %s para pagar."),
			   s->tap_left, sylla_word(SW_CHARACTER, s->tap_left, loc),
			   sylla_colours[sylla_slot_colour[s->sale_slot < SY_ROW ? s->sale_slot : 0]].name[loc]);
		break;
	case SS_INSULA:
		buf_addstr(out, L(loc, "choose the 2 Res Publica tokens of your Insula (kept secret).",
				  "elige las 2 fichas Res Publica de tu Ínsula (en secreto)."));
		break;
	case SS_TEMPLE:
		buf_addstr(out, L(loc, "use your Private Temple: 2 denarii for a token of your choice (kept secret)?",
				  "¿usar tu Templo privado: 2 denarios por una ficha a tu elección (en secreto)?"));
		break;
	case SS_TAVERN:
		buf_addstr(out, L(loc, "use your Tavern to move a Res Publica marker one space?",
				  "¿usar tu Taberna para mover un marcador Res Publica una casilla?"));
		break;
	case SS_CUBE: {
		struct buf left = BUF_INIT;

		sylla_cubes_text(s, seat, loc, &left);
		buf_printf(out, L(loc, "place one of your cubes on an event (cubes left: %s).",
				  "coloca uno de tus cubos sobre un evento (te quedan: %s)."), buf_str(&left));
		buf_release(&left);
		break;
	}
	case SS_AVOID:
		buf_printf(out, L(loc, "as First Consul, break the tie: choose %d %s to avoid.",
				  "como Primer Cónsul, deshaz el empate: elige %d %s que se evitan."), s->avoid_left,
			   sylla_word(SW_EVENT, s->avoid_left, loc));
		break;
	case SS_REMOVE:
		buf_addstr(out, L(loc, "as First Consul, choose which of the two avoided events is removed from the game.",
				  "como Primer Cónsul, elige cuál de los dos eventos evitados se retira del juego."));
		break;
	case SS_HIDE: {
		int e = s->occur ? s->ev_row[s->occur - 1] : SY_NONE;

		buf_printf(out, L(loc, "choose in secret what %s turns face down, then confirm.",
				  "elige en secreto qué pone boca abajo %s y confirma."),
			   e < SE_COUNT ? sylla_events[e].name[loc] : "?");
		break;
	}
	case SS_VOTE:
		buf_printf(out, L(loc, "vote in secret on the Great Work %s: thumb up or down, your denarii, then confirm.",
				  "vota en secreto la Gran Obra %s: pulgar arriba o abajo, tus denarios y confirma."),
			   sylla_works[s->works[s->turn < SG_COUNT ? s->turn : 0]].name[loc]);
		break;
	case SS_FREE:
		buf_addstr(out, L(loc, "choose in secret how many slaves to free (2 denarii each, +3 prestige), then confirm.",
				  "elige en secreto cuántos esclavos liberas (2 denarios cada uno, +3 de prestigio) y confirma."));
		break;
	default:
		buf_addstr(out, L(loc, "Nothing to decide now.", "Nada que decidir ahora."));
	}
}

/* ---- texts shared by the private view and secrets() ---- */

void sylla_screen_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out)
{
	const struct sylla_player *p = &s->p[seat];

	loc = fix(loc);
	buf_printf(out, L(loc, "\xc2\xab" "denarii %d \xc2\xb7 civic spirit %d \xc2\xb7 health %d \xc2\xb7 leisure %d\xc2\xbb",
			  "\xc2\xab" "denarios %d \xc2\xb7 espíritu cívico %d \xc2\xb7 salud %d \xc2\xb7 ocio %d\xc2\xbb"),
		   p->money, p->tok[ST_CIVIC], p->tok[ST_HEALTH], p->tok[ST_LEISURE]);
}

void sylla_choice_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out)
{
	const struct sylla_player *p = &s->p[seat];
	size_t start = out->len;
	int k, first = 1;

	loc = fix(loc);
	if (!sylla_secret_step(s->step) || s->phase == SP_OVER || !((s->asked >> seat) & 1))
		return;
	switch (s->step) {
	case SS_PICK:
		if (!p->picks)
			return;
		buf_addstr(out, "\xc2\xab");
		for (k = 0; k < SY_PER_SET; k++)
			if ((p->picks >> k) & 1) {
				if (!first)
					buf_addstr(out, ", ");
				first = 0;
				sylla_char_name(p->set * SY_PER_SET + k, loc, out);
			}
		break;
	case SS_SEALED:
		if (p->stage == SST_CHOOSE)
			return;
		buf_addstr(out, "\xc2\xab");
		if (p->thumb)
			buf_printf(out, L(loc, "offer %d %s", "ofrecer %d %s"), p->amount,
				   sylla_word(SW_DENARIUS, p->amount, loc));
		else
			buf_addstr(out, L(loc, "pass", "pasar"));
		break;
	case SS_VOTE:
		if (p->stage == SST_CHOOSE)
			return;
		buf_addstr(out, "\xc2\xab");
		buf_addstr(out, p->thumb ? L(loc, "thumb up", "pulgar arriba") : L(loc, "thumb down", "pulgar abajo"));
		if (p->stage != SST_AMOUNT)
			buf_printf(out, " \xc2\xb7 %d %s", p->amount, sylla_word(SW_DENARIUS, p->amount, loc));
		break;
	case SS_HIDE:
		if (p->stage == SST_CHOOSE || p->amount == SY_NONE)
			return;
		buf_addstr(out, "\xc2\xab");
		if (p->amount < SY_CHARS)
			sylla_char_name(p->amount, loc, out);
		else if (p->amount < SY_CHARS + SZ_COUNT)
			buf_addstr(out, sylla_buildings[sylla_zone_type[p->amount - SY_CHARS]].name[loc]);
		break;
	case SS_FREE:
		if (p->stage == SST_CHOOSE)
			return;
		buf_addstr(out, "\xc2\xab");
		buf_printf(out, L(loc, "free %d %s", "liberar %d %s"), p->amount,
			   sylla_word(SW_SLAVE, p->amount, loc));
		break;
	}
	if (out->len > start)
		buf_addstr(out, "\xc2\xbb");
}

/* ---- public board ---- */

const char *sylla_phase_title(const struct sylla_state *s, enum locale loc)
{
	static const char *const t[SP_COUNT][LOC_COUNT] = {
		[SP_SETUP] = { "setup: secret choice of characters", "preparación: elección secreta de personajes" },
		[SP_CONSUL] = { "phase I, First Consul", "fase I, Primer Cónsul" },
		[SP_RECRUIT] = { "phase II, recruitment", "fase II, reclutamiento" },
		[SP_BUILD] = { "phase III, buildings", "fase III, edificios" },
		[SP_INCOME] = { "phase IV, income", "fase IV, ingresos" },
		[SP_EVENTS] = { "phase V, events", "fase V, eventos" },
		[SP_WORKS] = { "phase VI, Great Works", "fase VI, Grandes Obras" },
		[SP_FAMINE] = { "phase VII, famine and crises", "fase VII, hambruna y crisis" },
		[SP_END] = { "the end: Ecclesia", "final: Ecclesia" },
		[SP_OVER] = { "game over", "fin de la partida" },
	};

	return s->phase < SP_COUNT ? t[s->phase][loc] : "?";
}

int sylla_supply_total(const struct sylla_state *s)
{
	return s->supply[ST_CIVIC] + s->supply[ST_HEALTH] + s->supply[ST_LEISURE];
}

void sylla_supply_text(const struct sylla_state *s, enum locale loc, struct buf *out)
{
	int t, out_of = 0;

	loc = fix(loc);
	buf_printf(out, "%d", sylla_supply_total(s));
	for (t = 0; t < ST_COUNT; t++)
		if (!s->supply[t])
			buf_printf(out, "%s%s", out_of++ ? ", " : L(loc, "; none left: ", "; no quedan de: "),
				   sylla_tracks[t].name[loc]);
}

static void tracks_line(const struct sylla_state *s, enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int t;

	for (t = 0; t < ST_COUNT; t++)
		buf_printf(&b, "%s%s %d (%d%s)", t ? " \xc2\xb7 " : "", sylla_tracks[t].name[loc], s->track[t],
			   sylla_track_value[s->track[t]],
			   s->track[t] <= SY_CRISIS ? L(loc, "/token, CRISIS", "/ficha, CRISIS")
						: L(loc, "/token", "/ficha"));
	rich_line(out, L(loc, "Res Publica: %s \xc2\xb7 famine %d/%d",
			 "Res Publica: %s \xc2\xb7 hambruna %d/%d"), buf_str(&b), s->famine, SY_FAMINE_MAX);
	buf_reset(&b);
	sylla_supply_text(s, loc, &b);
	rich_line(out, L(loc, "Tokens beside the board: %s.", "Fichas junto al tablero: %s."), buf_str(&b));
	buf_release(&b);
}

static void events_line(const struct sylla_state *s, const struct game_view *v, enum locale loc,
			struct rich *out)
{
	struct buf b = BUF_INIT;
	int i, k;

	for (i = 0; i < SY_EV_ROW; i++) {
		int e = s->ev_row[i], any = 0;

		if (e >= SE_COUNT)
			continue;
		buf_printf(&b, "%d. %s [", i + 1, sylla_events[e].name[loc]);
		if (sylla_fights(e, SK_VESTAL))
			buf_addstr(&b, "V");
		if (sylla_fights(e, SK_LEGIONARY))
			buf_addstr(&b, "L");
		if (sylla_events[e].token < ST_COUNT)
			buf_printf(&b, " \xc2\xb7 %s", sylla_tracks[sylla_events[e].token].name[loc]);
		else
			buf_printf(&b, " \xc2\xb7 %s", L(loc, "+1 prestige", "+1 prestigio"));
		if (sylla_events[e].hunger)
			buf_printf(&b, " \xc2\xb7 %s", L(loc, "hunger", "hambre"));
		buf_addstr(&b, "]");
		if (s->phase == SP_EVENTS)
			for (k = 0; k < s->nplayers; k++)
				if (s->cubes[i][k]) {
					buf_printf(&b, "%s%s %d", any ? ", " : L(loc, " cubes: ", " cubos: "),
						   game_view_name(v, k), s->cubes[i][k]);
					any = 1;
				}
		if ((s->avoided >> i) & 1)
			buf_addstr(&b, L(loc, " (avoided)", " (evitado)"));
		buf_addstr(&b, "\n");
	}
	rich_line(out, "%s", L(loc, "Events (top first; V Vestal, L Legionary):",
			       "Eventos (de arriba abajo; V Vestal, L Legionario):"));
	rich_mono(out, buf_str(&b));
	buf_release(&b);
}

void sylla_works_text(const struct sylla_state *s, enum locale loc, struct buf *b)
{
	int t, cur = s->turn < SG_COUNT ? s->works[s->turn] : SY_NONE;

	if (s->phase == SP_END || s->phase == SP_OVER) {
		buf_addstr(b, sylla_ecclesia.name[loc]);
	} else {
		buf_addstr(b, cur < SG_COUNT ? sylla_works[cur].name[loc] : "?");
		if (s->known > s->turn && s->turn < SY_TURNS)
			buf_printf(b, L(loc, "; next: %s", "; siguiente: %s"),
				   sylla_works[s->works[s->turn + 1]].name[loc]);
	}
	buf_printf(b, L(loc, "; removed at setup: %s", "; retirada al empezar: %s"),
		   sylla_works[s->works[0]].name[loc]);
	if (s->turn > 1 || s->phase == SP_OVER || s->phase == SP_END) {
		int last = s->phase == SP_END || s->phase == SP_OVER ||
			   s->phase == SP_FAMINE ? s->turn : s->turn - 1;

		buf_addstr(b, L(loc, "; built: ", "; construidas: "));
		for (t = 1; t <= last && t < SG_COUNT; t++)
			buf_printf(b, "%s%s", t > 1 ? ", " : "", sylla_works[s->works[t]].name[loc]);
	}
}

static void works_line(const struct sylla_state *s, enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;

	sylla_works_text(s, loc, &b);
	rich_line(out, L(loc, "Great Work: %s.", "Gran Obra: %s."), buf_str(&b));
	buf_release(&b);
}

static void market_lines(const struct sylla_state *s, const struct game_view *v, enum locale loc,
			 struct rich *out)
{
	struct buf b = BUF_INIT;
	int i, any = 0;

	for (i = 0; i < SY_ROW; i++)
		if (s->row[i] < SY_CHARS) {
			if (any++)
				buf_addstr(&b, ", ");
			sylla_char_name(s->row[i], loc, &b);
		}
	if (any)
		rich_line(out, L(loc, "Characters for hire: %s.", "Personajes para reclutar: %s."), buf_str(&b));
	buf_reset(&b);
	any = 0;
	for (i = 0; i < SY_ROW; i++)
		if (s->tiles[i] < SY_TILES) {
			buf_printf(&b, "%s%s (%s)%s", any++ ? ", " : "", sylla_tile_name(s->tiles[i], loc),
				   sylla_colours[sylla_slot_colour[i]].name[loc],
				   s->phase == SP_BUILD && s->sale_slot == i ? L(loc, " ON SALE", " EN VENTA") : "");
		}
	if (any)
		rich_line(out, L(loc, "Buildings for sale (%d of %d offered this turn): %s.",
				 "Edificios a la venta (%d de %d ofrecidos este turno): %s."),
			  s->phase == SP_BUILD ? s->sales : 0, s->nplayers == 3 ? 4 : 5, buf_str(&b));
	if (s->phase == SP_BUILD && s->step == SS_BID) {
		if (s->bid_seat < s->nplayers)
			rich_line(out, L(loc, "Best bid: %s, %d.", "Mejor puja: %s, %d."),
				  game_view_name(v, s->bid_seat), s->bid_hi);
		else
			rich_line(out, "%s", L(loc, "No bid yet.", "Aún no hay pujas."));
	}
	if (s->phase == SP_CONSUL && s->step == SS_ELECT && s->hi_seat < s->nplayers)
		rich_line(out, L(loc, "Best offer: %s, %d %s.", "Mejor oferta: %s, %d %s."),
			  game_view_name(v, s->hi_seat), s->hi_votes, sylla_word(SW_VOTE, s->hi_votes, loc));
	rich_line(out, L(loc, "Face down: characters %d, building tiles %d, events %d.",
			 "Boca abajo: personajes %d, losetas de edificio %d, eventos %d."),
		  s->ndeck, s->nstack, s->nev_deck);
	buf_release(&b);
}

static void player_rows(const struct sylla_state *s, const struct game_view *v, enum locale loc,
			struct buf *out)
{
	int i, c, z;

	for (i = 0; i < s->nplayers; i++) {
		const struct sylla_player *p = &s->p[i];
		int first = 1;

		buf_printf(out, "%s%s \xc2\xb7 %s %d \xc2\xb7 %d %s \xc2\xb7 %s %s", game_view_name(v, i),
			   i == s->fc && s->phase != SP_SETUP ? L(loc, " (First Consul)", " (Primer Cónsul)") : "",
			   L(loc, "prestige", "prestigio"), p->prestige, p->money,
			   sylla_word(SW_DENARIUS, p->money, loc),
			   L(loc, "income tile", "loseta de ingresos"), sylla_numerals[p->set]);
		if (s->step == SS_CUBE) {
			buf_addstr(out, L(loc, " \xc2\xb7 cubes left: ", " \xc2\xb7 cubos: "));
			sylla_cubes_text(s, i, loc, out);
		}
		buf_addch(out, '\n');
		buf_addstr(out, "  ");
		for (c = 0; c < SY_CHARS; c++) {
			if (!((s->own[i] >> c) & 1))
				continue;
			if (!first)
				buf_addstr(out, ", ");
			first = 0;
			sylla_char_name(c, loc, out);
			if ((s->down >> c) & 1)
				buf_addstr(out, L(loc, " [face down]", " [boca abajo]"));
			else if ((s->tapped >> c) & 1)
				buf_addstr(out, "*");
		}
		if (first)
			buf_addstr(out, s->phase == SP_SETUP ? L(loc, "(choosing in secret)", "(eligiendo en secreto)")
							     : L(loc, "no characters", "sin personajes"));
		buf_addstr(out, "\n  ");
		first = 1;
		for (z = 0; z < SZ_COUNT; z++) {
			const char *name = sylla_buildings[sylla_zone_type[z]].name[loc];

			if (p->zone[z]) {
				buf_printf(out, "%s%s", first ? "" : ", ", name);
				if (p->zone[z] > 1)
					buf_printf(out, " x%d", p->zone[z]);
				if (z == SZ_CRANE && p->crane_used) {
					buf_addstr(out, " (");
					sylla_cranes_text(s, i, loc, out);
					buf_addstr(out, ")");
				}
				first = 0;
			}
			if (p->zone_down[z]) {
				buf_printf(out, "%s%s", first ? "" : ", ", name);
				if (p->zone_down[z] > 1)
					buf_printf(out, " x%d", p->zone_down[z]);
				buf_addstr(out, L(loc, " [face down]", " [boca abajo]"));
				first = 0;
			}
		}
		if (first)
			buf_addstr(out, L(loc, "no buildings", "sin edificios"));
		buf_addstr(out, "\n");
	}
}

static void final_table(const struct sylla_state *s, const struct game_view *v, enum locale loc,
			struct rich *out)
{
	struct game_result res;
	struct buf b = BUF_INIT;
	int r, i;

	sylla_result(s, &res);
	rich_heading(out, "%s", L(loc, "Final scoring", "Puntuación final"));
	for (r = 1; r <= s->nplayers; r++)
		for (i = 0; i < s->nplayers; i++) {
			const struct sylla_player *p = &s->p[i];

			if (res.rank[i] != r)
				continue;
			buf_printf(&b, L(loc, "%d. %s: %d prestige (Christians +%d, slaves freed +%d, "
					 "tokens +%d: civic spirit %d, health %d, leisure %d)\n",
					 "%d. %s: %d de prestigio (cristianos +%d, esclavos liberados +%d, "
					 "fichas +%d: espíritu cívico %d, salud %d, ocio %d)\n"),
				   r, game_view_name(v, i), p->prestige, 2 * p->end_christians, 3 * p->end_freed,
				   p->end_tokens, p->tok[ST_CIVIC], p->tok[ST_HEALTH], p->tok[ST_LEISURE]);
		}
	rich_mono(out, buf_str(&b));
	buf_release(&b);
}

void sylla_render_public(const void *st, const struct game_view *v, struct rich *out)
{
	const struct sylla_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);
	struct buf b = BUF_INIT;

	if (s->phase == SP_OVER)
		rich_heading(out, "%s", L(loc, "Sylla: game over", "Sylla: fin de la partida"));
	else
		rich_heading(out, L(loc, "Sylla: turn %d of %d, %s", "Sylla: turno %d de %d, %s"), s->turn,
			     SY_TURNS, sylla_phase_title(s, loc));
	tracks_line(s, loc, out);
	events_line(s, v, loc, out);
	works_line(s, loc, out);
	market_lines(s, v, loc, out);
	player_rows(s, v, loc, &b);
	rich_mono(out, buf_str(&b));
	rich_line(out, "%s", sylla_legend(loc));
	if (s->phase == SP_OVER)
		final_table(s, v, loc, out);
	buf_release(&b);
}

const char *sylla_legend(enum locale loc)
{
	return L(fix(loc), "* turned this turn (used to buy). Res Publica tokens stay behind each screen; the denarii "
		 "are counted from the payments, all made in view.",
		 "* girado este turno (usado para comprar). Las fichas Res Publica quedan tras cada pantalla; los "
		 "denarios se cuentan por los pagos, todos a la vista.");
}

/* ---- private view ---- */

void sylla_render_private(const void *st, int seat, const struct game_view *v, struct rich *out)
{
	const struct sylla_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);
	struct buf b = BUF_INIT;

	if ((unsigned)seat >= s->nplayers)
		return;
	rich_heading(out, "%s", L(loc, "Sylla: behind your screen", "Sylla: tras tu pantalla"));
	sylla_screen_text(s, seat, loc, &b);
	rich_line(out, L(loc, "Behind your screen: %s", "Tras tu pantalla: %s"), buf_str(&b));
	buf_reset(&b);
	sylla_choice_text(s, seat, loc, &b);
	if (b.len) {
		const struct sylla_player *p = &s->p[seat];

		rich_line(out, L(loc, "Your secret choice: %s%s", "Tu elección secreta: %s%s"), buf_str(&b),
			  p->stage == SST_DONE ? L(loc, " (confirmed)", " (confirmada)")
					       : L(loc, " (not confirmed yet)", " (aún sin confirmar)"));
	}
	if (s->phase == SP_SETUP) {
		int k;

		buf_reset(&b);
		for (k = 0; k < SY_PER_SET; k++) {
			if (k)
				buf_addstr(&b, ", ");
			sylla_char_name(s->p[seat].set * SY_PER_SET + k, loc, &b);
		}
		rich_line(out, L(loc, "Your set (income tile %s): %s.", "Tu juego (loseta de ingresos %s): %s."),
			  sylla_numerals[s->p[seat].set], buf_str(&b));
	} else if (s->phase != SP_OVER) {
		rich_line(out, L(loc, "You can pay with: red %d, yellow %d, grey %d. Senators ready: %d. "
				 "Income now: %d %s.",
				 "Puedes pagar con: rojo %d, amarillo %d, gris %d. Senadores listos: %d. "
				 "Ingresos ahora: %d %s."),
			  sylla_buy_power(s, seat, SC_RED), sylla_buy_power(s, seat, SC_YELLOW),
			  sylla_buy_power(s, seat, SC_GREY), sylla_senators(s, seat), sylla_income(s, seat),
			  sylla_word(SW_DENARIUS, sylla_income(s, seat), loc));
	}
	buf_reset(&b);
	sylla_prompt(s, seat, loc, &b);
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

/* ---- intro: what setup did in view of the table ---- */

void sylla_intro(const void *st, struct game_log *log)
{
	const struct sylla_state *s = st;
	int i;

	if (!log)
		return;
	for (i = 0; i < s->nplayers; i++)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s receives income tile %s and the characters of set %s.",
					     "%s recibe la loseta de ingresos %s y los personajes del juego %s."),
			  game_log_name(log, i), sylla_numerals[s->p[i].set], sylla_numerals[s->p[i].set]);
	for (i = 0; i < s->nplayers; i++)
		if (s->p[i].set == 0)
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s holds tile I and starts as First Consul.",
						     "%s tiene la loseta I y empieza como Primer Cónsul."),
				  game_log_name(log, i));
	game_logf(log, LOG_PUBLIC, L(log->loc, "Great Work removed from the game: %s. The first to build: %s.",
				     "Gran Obra retirada del juego: %s. La primera que se construye: %s."),
		  sylla_works[s->works[0]].name[log->loc], sylla_works[s->works[1]].name[log->loc]);
}

/* ---- secrets ---- */

void sylla_secrets(const void *st, enum locale loc, struct buf *out)
{
	const struct sylla_state *s = st;
	int i;

	if (s->phase == SP_OVER)
		return;
	loc = fix(loc);
	buf_printf(out, "%s\n", L(loc, "Behind your screen", "Tras tu pantalla"));
	buf_printf(out, "%s\n", L(loc, "Your secret choice", "Tu elección secreta"));
	/* the supply by colour: with the colours the table saw, it would tell
	 * those of the tokens taken in secret (Insula, Private Temple) */
	buf_printf(out, L(loc, "civic spirit %d, health %d, leisure %d\n", "espíritu cívico %d, salud %d, ocio %d\n"),
		   s->supply[ST_CIVIC], s->supply[ST_HEALTH], s->supply[ST_LEISURE]);
	for (i = 0; i < s->nplayers; i++) {
		size_t at = out->len;

		sylla_screen_text(s, i, loc, out);
		buf_addch(out, '\n');
		at = out->len;
		sylla_choice_text(s, i, loc, out);
		if (out->len > at)
			buf_addch(out, '\n');
	}
}
