/*
 * render.c: every text Glory to Rome shows: move ids and labels, prompts,
 * the public board, the private view and the list of secrets.
 *
 * The public board names cards only where they lie face up: the pool,
 * structures, the cards played this turn, the leader draw (during the
 * first turn), and (after the end) the vaults.  A Legionary's victims are
 * shown with what they still owe by material, never the cards they hold.
 * Hands, vaults, the deck, Fuente's card and the experienced leader cards
 * appear only as counts.  secrets() lists the names of hidden cards that
 * the board may not show, leaving out names that are legitimately public
 * (a copy in the pool...) or part of another public name ("Circo" in
 * "Circo Máximo"); tests check that none of them appears on the board.
 *
 * Owns every text of a state: gtr_move_id, gtr_move_label, gtr_prompt,
 * gtr_render_public, gtr_render_private, gtr_secrets, gtr_card_tag (log
 * lines are the rules files' own).  Must not: change the state, decide a
 * rule (what a move does belongs to the rules files), or name a hidden
 * card where the table can read it.
 */
#include <string.h>

#include "games/gtr/gtr.h"
#include "util/text.h"

static enum locale fix(enum locale loc)
{
	return loc < LOC_COUNT ? loc : LOC_EN;
}

static const char *cname(int c, enum locale loc)
{
	if (c == GTR_JACK)
		return gtr_jack.name[loc];
	return c >= 0 && c < GC_COUNT ? gtr_cards[c].name[loc] : "?";
}

static const char *cid(int c)
{
	if (c == GTR_JACK)
		return gtr_jack.id;
	return c >= 0 && c < GC_COUNT ? gtr_cards[c].id : "?";
}

static const char *mname(int m, enum locale loc)
{
	return m >= 0 && m < GM_COUNT ? gtr_materials[m].name[loc] : "?";
}

static const char *mid(int m)
{
	return m >= 0 && m < GM_COUNT ? gtr_materials[m].id : "?";
}

static const char *rname(int r, enum locale loc)
{
	return r >= 0 && r < GR_COUNT ? gtr_roles[r].name[loc] : "?";
}

static const char *rid(int r)
{
	return r >= 0 && r < GR_COUNT ? gtr_roles[r].id : "?";
}

static int top_kind(const struct gtr_state *s)
{
	return s->nframes ? s->frames[s->nframes - 1].kind : GTR_NONE;
}

/* ---- card tags ---- */

/*
 * A card shown to a player carries what every decision turns on: its
 * material (and so its value and the site it needs) and its role.  One
 * compact form everywhere: "Insula (rubble · Laborer)", "Ínsula (escombros
 * · Obrero)"; copies as "Insula ×2 (rubble · Laborer)"; a Senador as
 * "Senator (wild card)".
 */
static void tag_suffix(int c, enum locale loc, struct buf *out)
{
	if (c == GTR_JACK) {
		buf_printf(out, " (%s)", L(loc, "wild card", "comodín"));
		return;
	}
	if (c < 0 || c >= GC_COUNT)
		return;
	buf_printf(out, " (%s · %s)", gtr_material_lower[gtr_cards[c].material][loc],
		   gtr_roles[gtr_cards[c].material].name[loc]);
}

void gtr_card_tag(int c, enum locale loc, struct buf *out)
{
	loc = fix(loc);
	buf_addstr(out, cname(c, loc));
	tag_suffix(c, loc, out);
}

/* gtr_card_tag into tmp (reset first), for one format argument. */
static const char *tagged(int c, enum locale loc, struct buf *tmp)
{
	buf_reset(tmp);
	gtr_card_tag(c, loc, tmp);
	return buf_str(tmp);
}

/* "1 card", "2 cards" in the locale. */
static const char *cards_word(int n, enum locale loc)
{
	return n == 1 ? L(loc, "card", "carta") : L(loc, "cards", "cartas");
}

/* The frame's actions: its total now and the one asked (1-based). */
static void frame_count(const struct gtr_state *s, int *nth, int *total)
{
	const struct gtr_frame *f;

	*nth = *total = 0;
	if (!s->nframes)
		return;
	f = &s->frames[s->nframes - 1];
	*total = f->dyn ? gtr_turn_actions(s, gtr_current(s)) : f->count;
	*nth = f->used + 1;
	if (*nth > *total)
		*total = *nth;
}

/* The Legionary's victims' materials still given by seat, "Rubble ×1,
 * Brick ×2" (stockpile too when protected against a Puente). */
void gtr_owed(const struct gtr_state *s, int seat, enum locale loc, struct buf *out)
{
	const struct gtr_player *p = &s->p[seat];
	int m, any = 0;

	for (m = 0; m < GM_COUNT; m++)
		if (p->give[m])
			buf_printf(out, "%s%s ×%d", any++ ? ", " : "", mname(m, loc), p->give[m]);
	for (m = 0; m < GM_COUNT; m++)
		if (p->give_stock[m])
			buf_printf(out, L(loc, "%s%s ×%d from the stockpile", "%s%s ×%d del Almacén"),
				   any++ ? ", " : "", mname(m, loc), p->give_stock[m]);
}

/* ---- move ids ---- */

void gtr_move_id(const void *st, int seat, struct move m, struct buf *out)
{
	const struct gtr_state *s = st;
	int a = m.a;

	switch (m.kind) {
	case GK_PICK:
		buf_printf(out, "pick %s", cid(a));
		break;
	case GK_LEAD:
		buf_printf(out, "lead %s", rid(a));
		break;
	case GK_FOLLOW:
		buf_addstr(out, "follow");
		break;
	case GK_THINK:
		buf_addstr(out, a == GTR_THINK_JACK ? "think jack" : "think draw");
		break;
	case GK_CONCEDE:
		buf_addstr(out, "concede");
		break;
	case GK_PLAY:	/* "play circus" reads as typed: no "play play" */
		buf_addstr(out, cid(a));
		break;
	case GK_PETITION:
		buf_addstr(out, "petition");
		break;
	case GK_PETITION_CARD:
		buf_printf(out, "petition %s", cid(a));
		break;
	case GK_DONE:
		switch (s->step) {
		case GS_VOMIT:
		case GS_LATRINE:
			buf_addstr(out, "keep hand");
			break;
		case GS_THINK:
		case GS_PRISON:
		case GS_SENATE:
			buf_addstr(out, "skip");
			break;
		case GS_GIVE:
			buf_addstr(out, "keep");
			break;
		case GS_ACTION:
			buf_addstr(out, s->part ? "done" : "skip");
			break;
		default:
			buf_addstr(out, "done");
		}
		break;
	case GK_VOMIT:
		buf_addstr(out, "discard hand");
		break;
	case GK_LATRINE:
		buf_printf(out, "discard %s", cid(a));
		break;
	case GK_HIRE:
		buf_printf(out, "hire %s", rid(a));
		break;
	case GK_HIRE_DECK:
		buf_addstr(out, "hire from deck");
		break;
	case GK_HIRE_HAND:
		buf_printf(out, "hire %s from hand", cid(a));
		break;
	case GK_TAKE:
		buf_printf(out, "take %s", mid(a));
		break;
	case GK_DOCK:
		buf_printf(out, "dock %s", cid(a));
		break;
	case GK_FOUND:
		buf_printf(out, "foundation %s on %s%s", cid(a), mid(m.b), m.c ? " out of town" : "");
		break;
	case GK_ADD:
		buf_printf(out, "add to %s", cid(a));
		break;
	case GK_STAIRWAY:
		buf_printf(out, "stairway %s of player %d", cid(a), m.b + 1);
		break;
	case GK_WITH:
		if (top_kind(s) == GR_CRAFTSMAN)
			buf_printf(out, "with %s", cid(a));
		else
			buf_printf(out, "with %s%s", mid(a), m.b ? " from pool" : "");
		break;
	case GK_BACK:
		buf_addstr(out, "back");
		break;
	case GK_FOUNTAIN:
		buf_addstr(out, "fountain");
		break;
	case GK_KEEP:
		buf_addstr(out, "keep card");
		break;
	case GK_DEMAND:
		buf_printf(out, "demand %s", mid(a));
		break;
	case GK_COLISEUM:
		buf_printf(out, "coliseum %s from player %d", rid(a), m.b + 1);
		break;
	case GK_SELL:
		buf_printf(out, "sell %s", mid(a));
		break;
	case GK_SELL_DECK:
		buf_addstr(out, "sell from deck");
		break;
	case GK_SELL_HAND:
		buf_printf(out, "vault %s", cid(a));
		break;
	case GK_IMPRISON:
		buf_printf(out, "imprison %s of player %d", cid(a), m.b + 1);
		break;
	case GK_SENATORS:
		buf_printf(out, "take %d %s", a, a == 1 ? "senator" : "senators");
		break;
	case GK_SEWER:
		buf_printf(out, "sewer %s", cid(a));
		break;
	case GK_GIVE:
		buf_printf(out, "give %s", cid(a));
		break;
	case GK_GIVE_STOCK:
		buf_printf(out, "give %s from stockpile", mid(a));
		break;
	default:
		buf_addstr(out, "?");
	}
}

/* ---- move labels ---- */

static int think_draws(const struct gtr_state *s, int seat)
{
	int h = gtr_hand_size(s, seat), lim = gtr_hand_limit(s, seat);

	return h < lim ? lim - h : 1;
}

static const struct gtr_struct *struct_of(const struct gtr_state *s, int seat, int card)
{
	int k;

	if (seat < 0 || seat >= s->nplayers)
		return NULL;
	k = gtr_find_struct(s, seat, card);
	return k < 0 ? NULL : &s->p[seat].st[k];
}

/* What "done" means in each decision. */
static void done_label(const struct gtr_state *s, enum locale loc, struct buf *out)
{
	switch (s->step) {
	case GS_UNIT:
		buf_addstr(out, L(loc, "No more cards", "No jugar más cartas"));
		break;
	case GS_VOMIT:
	case GS_LATRINE:
		buf_addstr(out, L(loc, "Keep your hand", "Conservar tu Mano"));
		break;
	case GS_THINK:
		buf_addstr(out, L(loc, "Do not think", "No pensar"));
		break;
	case GS_ACTION:
		if (s->part)
			buf_addstr(out, L(loc, "Finish this action", "Terminar esta acción"));
		else
			buf_printf(out, L(loc, "Skip the %s actions left", "Renunciar a las acciones de %s que quedan"),
				   rname(top_kind(s), loc));
		break;
	case GS_LEGION:
		buf_addstr(out, s->leg_k ? L(loc, "Demand no more", "No exigir más")
					 : L(loc, "Demand nothing", "No exigir nada"));
		break;
	case GS_LEGION_POOL:
		buf_addstr(out, L(loc, "Take nothing (more) from the pool",
				  "No coger (más) de la Reserva"));
		break;
	case GS_GIVE:
		buf_addstr(out, L(loc, "Keep your cards (you are protected)",
				  "Quedarte tus cartas (estás protegido)"));
		break;
	case GS_COLISEUM:
		buf_addstr(out, L(loc, "No more lions", "No más leones"));
		break;
	case GS_PRISON:
		buf_addstr(out, L(loc, "Steal nothing", "No robar nada"));
		break;
	case GS_SENATE:
		buf_addstr(out, L(loc, "Take no Senator", "No coger Senadores"));
		break;
	default:
		buf_addstr(out, L(loc, "Done", "Listo"));
	}
}

/* The labels of the roles' actions (and their buildings' moves). */
static void action_label(const struct gtr_state *s, int seat, struct move m, enum locale loc,
			 struct buf *out, struct buf *tmp)
{
	int a = m.a;

	switch (m.kind) {
	case GK_HIRE:
		buf_printf(out, L(loc, "Hire %s (%s) from the pool", "Contratar %s (%s) de la Reserva"),
			   gtr_a_role[a < GR_COUNT ? a : 0][loc],
			   gtr_material_lower[a < GM_COUNT ? a : 0][loc]);
		break;
	case GK_HIRE_DECK:
		buf_addstr(out, L(loc, "Hire the top card of the deck (Bar)",
				  "Contratar la carta superior del Mazo (Taberna)"));
		break;
	case GK_HIRE_HAND:
		buf_printf(out, L(loc, "Hire %s from your hand (Aqueduct)",
				  "Contratar %s de tu Mano (Acueducto)"), tagged(a, loc, tmp));
		break;
	case GK_TAKE:
		if (s->step == GS_LEGION_POOL)
			buf_printf(out, L(loc, "Take %s from the pool (Rome demands)",
					  "Coger %s de la Reserva (Roma exige)"), mname(a, loc));
		else
			buf_printf(out, L(loc, "Take %s from the pool", "Coger %s de la Reserva"),
				   mname(a, loc));
		break;
	case GK_DOCK:
		buf_printf(out, L(loc, "Put %s from your hand into the stockpile (Dock)",
				  "Poner %s de tu Mano en el Almacén (Muelle)"), tagged(a, loc, tmp));
		break;
	case GK_FOUND:
		buf_printf(out, L(loc, "Lay %s on a %s site", "Cimientos de %s en un Solar de %s"),
			   tagged(a, loc, tmp), mname(m.b, loc));
		if (m.c)
			buf_addstr(out, L(loc, " out of town (2 actions)", " de las afueras (2 acciones)"));
		break;
	case GK_ADD: {
		const struct gtr_struct *t = struct_of(s, seat, a);

		if (s->step == GS_FOUNTAIN)
			buf_printf(out, L(loc, "Add the card to %s", "Añadir la carta a %s"), cname(a, loc));
		else
			buf_printf(out, L(loc, "Add a material to %s", "Añadir un material a %s"),
				   cname(a, loc));
		if (t)
			buf_printf(out, " (%s, %d/%d)",
				   gtr_material_lower[t->card == GC_STATUE ? t->site
						      : gtr_cards[t->card].material][loc],
				   t->nmat, gtr_struct_need(t));
		break;
	}
	case GK_STAIRWAY:
		if (loc == LOC_ES)
			buf_printf(out, "Escalinata: un material en %s del jugador %d", cname(a, loc),
				   m.b + 1);
		else
			buf_printf(out, "Stairway: a material on player %d's %s", m.b + 1, cname(a, loc));
		break;
	case GK_WITH:
		if (top_kind(s) == GR_CRAFTSMAN)
			buf_printf(out, L(loc, "Use %s from your hand", "Usar %s de tu Mano"),
				   tagged(a, loc, tmp));
		else if (m.b)
			buf_printf(out, L(loc, "Use %s from the pool (Archway)", "Usar %s de la Reserva (Arco)"),
				   mname(a, loc));
		else
			buf_printf(out, L(loc, "Use %s from your stockpile", "Usar %s de tu Almacén"),
				   mname(a, loc));
		break;
	case GK_BACK:
		buf_addstr(out, L(loc, "Back", "Volver"));
		break;
	case GK_FOUNTAIN:
		buf_addstr(out, L(loc, "Use the top card of the deck (Fountain)",
				  "Usar la carta superior del Mazo (Fuente)"));
		break;
	case GK_KEEP:
		buf_addstr(out, L(loc, "Keep the card in your hand", "Quedarte la carta en la Mano"));
		break;
	case GK_DEMAND:
		buf_printf(out, L(loc, "Rome demands %s!", "¡Roma exige %s!"), mname(a, loc));
		break;
	case GK_COLISEUM:
		buf_printf(out, L(loc, "Throw %s client of player %d to the lions",
				  "Lanzar a los leones un Cliente %s del jugador %d"),
			   L(loc, gtr_a_role[a < GR_COUNT ? a : 0][loc],
			     gtr_roles[a < GR_COUNT ? a : 0].name[loc]), m.b + 1);
		break;
	case GK_SELL:
		buf_printf(out, L(loc, "Put %s into your vault", "Guardar %s en tu Tesoro"), mname(a, loc));
		break;
	case GK_SELL_DECK:
		buf_addstr(out, L(loc, "Vault the top card of the deck unseen (Atrium)",
				  "Guardar la carta superior del Mazo sin verla (Atrio)"));
		break;
	case GK_SELL_HAND:
		buf_printf(out, L(loc, "Vault %s from your hand (Basilica)",
				  "Guardar %s de tu Mano en el Tesoro (Basílica)"), tagged(a, loc, tmp));
		break;
	case GK_IMPRISON:
		buf_printf(out, L(loc, "Imprison %s of player %d", "Encerrar %s del jugador %d"),
			   cname(a, loc), m.b + 1);
		break;
	case GK_SENATORS:
		buf_printf(out, L(loc, "Take %d played Senator%s (Senate)", "Coger %d Senador%s jugado%s (Senado)"),
			   a, a == 1 ? "" : L(loc, "s", "es"), a == 1 ? "" : "s");
		break;
	case GK_SEWER:
		buf_printf(out, L(loc, "Keep %s in your stockpile (Sewer)",
				  "Guardar %s en tu Almacén (Alcantarillado)"), tagged(a, loc, tmp));
		break;
	case GK_GIVE:
		buf_printf(out, L(loc, "Give %s to the Legionary", "Dar %s al Legionario"),
			   tagged(a, loc, tmp));
		break;
	case GK_GIVE_STOCK:
		buf_printf(out, L(loc, "Give %s from your stockpile to the Legionary",
				  "Dar %s de tu Almacén al Legionario"), mname(a, loc));
		break;
	default:
		buf_addstr(out, "?");
	}
}

void gtr_move_label(const void *st, int seat, struct move m, enum locale loc, struct buf *out)
{
	const struct gtr_state *s = st;
	struct buf tmp = BUF_INIT;
	int a = m.a, n;

	loc = fix(loc);
	if (seat < 0 || seat >= GTR_MAX_PLAYERS)
		seat = 0;
	switch (m.kind) {
	case GK_PICK:
		buf_printf(out, L(loc, "Show %s for the leader draw", "Mostrar %s para elegir Líder"),
			   tagged(a, loc, &tmp));
		break;
	case GK_LEAD:
		buf_printf(out, L(loc, "Lead %s (%s)", "Liderar %s (%s)"), rname(a, loc),
			   gtr_material_lower[a < GM_COUNT ? a : 0][loc]);
		break;
	case GK_FOLLOW:
		buf_printf(out, L(loc, "Follow %s", "Seguir %s"), rname(s->led, loc));
		break;
	case GK_THINK:
		if (a == GTR_THINK_JACK) {
			buf_addstr(out, L(loc, "Think: take a Senator", "Pensar: coger un Senador"));
		} else {
			n = think_draws(s, seat);
			buf_printf(out, L(loc, "Think: draw %d %s", "Pensar: robar %d %s"), n,
				   cards_word(n, loc));
		}
		break;
	case GK_CONCEDE:
		buf_addstr(out, L(loc, "Concede the game", "Rendirse"));
		break;
	case GK_PLAY:
		buf_printf(out, L(loc, "Play %s as %s", "Jugar %s como %s"), tagged(a, loc, &tmp),
			   rname(s->led, loc));
		break;
	case GK_PETITION:
		n = s->opts & GO_ORIGINAL_CIRCUS ? (gtr_has(s, seat, GC_CIRCUS) ? 2 : 3) : 2;
		buf_printf(out, L(loc, "Petition: %d cards of one role as a Senator",
				  "Petición: %d cartas del mismo personaje como un Senador"), n);
		break;
	case GK_PETITION_CARD:
		buf_printf(out, L(loc, "Put %s in the petition", "Poner %s en la petición"),
			   tagged(a, loc, &tmp));
		break;
	case GK_DONE:
		done_label(s, loc, out);
		break;
	case GK_VOMIT:
		buf_addstr(out, L(loc, "Discard your whole hand (Vomitorium)",
				  "Descartar toda tu Mano (Vomitorium)"));
		break;
	case GK_LATRINE:
		buf_printf(out, L(loc, "Discard %s (Latrine)", "Descartar %s (Letrinas)"),
			   tagged(a, loc, &tmp));
		break;
	default:
		action_label(s, seat, m, loc, out, &tmp);
	}
	buf_release(&tmp);
}

/* ---- prompt ---- */

void gtr_what_asked(const struct gtr_state *s, int seat, int own, enum locale loc,
		       struct buf *out)
{
	const struct gtr_struct *t;
	int nth, total;

	switch (s->step) {
	case GS_PICK:
		buf_addstr(out, own ? L(loc, "choose the card you show for the leader draw",
					"elige la carta que muestras para elegir Líder")
				    : L(loc, "choosing cards for the leader draw",
					"eligiendo cartas para elegir Líder"));
		break;
	case GS_LEAD:
		buf_addstr(out, L(loc, "lead a role or think", "liderar un personaje o pensar"));
		break;
	case GS_FOLLOW:
		buf_printf(out, L(loc, "follow %s or think", "seguir %s o pensar"), rname(s->led, loc));
		break;
	case GS_UNIT:
		buf_printf(out, L(loc, "choose the card to play as %s", "elegir la carta que juega como %s"),
			   rname(s->led, loc));
		break;
	case GS_PETITION:
		buf_printf(out, L(loc, "choose the cards of a petition (%d of %d)",
				  "elegir las cartas de una petición (%d de %d)"),
			   s->pet_have + 1, s->pet_need);
		break;
	case GS_VOMIT:
		buf_addstr(out, L(loc, "before thinking: discard the whole hand (Vomitorium)?",
				  "antes de pensar: ¿descartar toda la Mano (Vomitorium)?"));
		break;
	case GS_LATRINE:
		buf_addstr(out, L(loc, "before thinking: discard a card (Latrine)?",
				  "antes de pensar: ¿descartar una carta (Letrinas)?"));
		break;
	case GS_THINK:
		if (s->phase == GP_ACADEMY) {
			buf_addstr(out, L(loc, "think after the turn (Academy)?",
					  "¿pensar tras el turno (Academia)?"));
		} else {
			frame_count(s, &nth, &total);
			buf_printf(out, L(loc, "think (School): %d of %d", "pensar (Escuela): %d de %d"),
				   nth, total);
		}
		break;
	case GS_ACTION:
		frame_count(s, &nth, &total);
		if (s->part)
			buf_printf(out, L(loc, "%s: action %d of %d, go on or finish it",
					  "%s: acción %d de %d, continuar o terminarla"),
				   rname(top_kind(s), loc), nth, total);
		else
			buf_printf(out, L(loc, "%s: action %d of %d", "%s: acción %d de %d"),
				   rname(top_kind(s), loc), nth, total);
		break;
	case GS_MATERIAL:
		t = struct_of(s, s->tgt_seat, s->tgt_card);
		frame_count(s, &nth, &total);
		buf_printf(out, L(loc, "%s: action %d of %d, choose the material for %s",
				  "%s: acción %d de %d, elegir el material para %s"),
			   rname(top_kind(s), loc), nth, total, t ? cname(t->card, loc) : "?");
		break;
	case GS_FOUNTAIN:
		frame_count(s, &nth, &total);
		buf_printf(out, L(loc, "Craftsman: action %d of %d, use the Fountain's card",
				  "Artesano: acción %d de %d, usar la carta de la Fuente"), nth, total);
		break;
	case GS_LEGION:
		buf_printf(out, L(loc, "Legionary: show a card and demand its material (%d of %d)",
				  "Legionario: enseñar una carta y exigir su material (%d de %d)"),
			   s->leg_k + 1, s->leg_n);
		break;
	case GS_LEGION_POOL:
		buf_addstr(out, L(loc, "Legionary: take the demanded materials from the pool?",
				  "Legionario: ¿coger de la Reserva los materiales exigidos?"));
		break;
	case GS_GIVE:
		if (!own) {
			buf_addstr(out, L(loc, "answering the Legionary", "respondiendo al Legionario"));
		} else if ((s->vol >> seat) & 1) {
			buf_addstr(out, L(loc, "you are protected from the Legionary; you may still give (up to ",
					  "estás protegido del Legionario; aun así puedes dar (hasta "));
			gtr_owed(s, seat, loc, out);
			buf_addstr(out, L(loc, ") or keep your cards", ") o quedarte tus cartas"));
		} else {
			buf_addstr(out, L(loc, "Rome demands: choose which cards you give the Legionary (",
					  "Roma exige: elige qué cartas das al Legionario ("));
			gtr_owed(s, seat, loc, out);
			buf_addstr(out, ")");
		}
		break;
	case GS_COLISEUM:
		buf_addstr(out, L(loc, "throw clients to the lions (Coliseum)",
				  "lanzar Clientes a los leones (Coliseo)"));
		break;
	case GS_PRISON:
		buf_addstr(out, L(loc, "choose a building to imprison (Prison)",
				  "elegir un edificio que encerrar (Prisión)"));
		break;
	case GS_SENATE:
		buf_addstr(out, L(loc, "take the Senators others played (Senate)",
				  "coger los Senadores jugados por otros (Senado)"));
		break;
	case GS_SEWER:
		buf_addstr(out, L(loc, "keep played cards in the stockpile (Sewer)",
				  "guardar cartas jugadas en el Almacén (Alcantarillado)"));
		break;
	default:
		break;
	}
}

/* The full stop a sentence still needs: none after a question. */
const char *gtr_stop(const struct buf *b)
{
	return b->len && (b->s[b->len - 1] == '?' || b->s[b->len - 1] == '!') ? "" : ".";
}

void gtr_prompt(const void *st, int seat, enum locale loc, struct buf *out)
{
	const struct gtr_state *s = st;
	struct buf b = BUF_INIT;

	loc = fix(loc);
	if (s->step == GS_OVER) {
		buf_addstr(out, L(loc, "The game is over.", "La partida ha terminado."));
		return;
	}
	if (seat < 0 || seat >= s->nplayers || !(gtr_awaiting(s) & (1u << seat))) {
		buf_addstr(out, L(loc, "Waiting for another player.", "Esperando a otro jugador."));
		return;
	}
	gtr_what_asked(s, seat, 1, loc, &b);
	if (b.len)
		b.s[0] = (char)(b.s[0] >= 'a' && b.s[0] <= 'z' ? b.s[0] - 'a' + 'A' : b.s[0]);
	buf_printf(out, "%s%s", buf_str(&b), gtr_stop(&b));
	buf_release(&b);
}

/* ---- card lists ---- */

/* "Insula ×2 (rubble · Laborer), Road (rubble · Laborer)" or `none`. */
static void list_cards(const uint8_t *cards, int n, enum locale loc, struct buf *out,
		       const char *none)
{
	int c, any = 0;

	for (c = 0; c < n; c++) {
		if (!cards[c])
			continue;
		buf_printf(out, "%s%s", any++ ? ", " : "", cname(c, loc));
		if (cards[c] > 1)
			buf_printf(out, " ×%d", cards[c]);
		tag_suffix(c, loc, out);
	}
	if (!any)
		buf_addstr(out, none);
}

static void list_materials(const uint8_t *cards, enum locale loc, struct buf *out, const char *none)
{
	int m, any = 0;

	for (m = 0; m < GM_COUNT; m++) {
		int k = gtr_count(cards, m);

		if (k)
			buf_printf(out, "%s%s %d", any++ ? ", " : "", mname(m, loc), k);
	}
	if (!any)
		buf_addstr(out, none);
}

static void list_roles(const struct gtr_player *p, enum locale loc, struct buf *out, const char *none)
{
	int r, any = 0;

	for (r = 0; r < GR_COUNT; r++) {
		int k = gtr_count(p->clients, r);

		if (k)
			buf_printf(out, "%s%s %d", any++ ? ", " : "", rname(r, loc), k);
	}
	if (!any)
		buf_addstr(out, none);
}

static void list_structs(const struct gtr_state *s, int seat, enum locale loc, struct buf *out)
{
	const struct gtr_player *p = &s->p[seat];
	int k, any = 0;

	for (k = 0; k < p->nstruct; k++) {
		const struct gtr_struct *t = &p->st[k];

		buf_printf(out, "%s%s", any++ ? "; " : "", cname(t->card, loc));
		if (t->done) {
			buf_printf(out, L(loc, " (done, %s", " (terminado, %s"), mname(t->site, loc));
			if (t->flags & GSF_PUBLIC)
				buf_addstr(out, L(loc, ", public", ", público"));
			if (t->flags & GSF_STOLEN)
				buf_addstr(out, L(loc, ", imprisoned", ", encerrado"));
			buf_addstr(out, ")");
		} else {
			int m;

			buf_printf(out, L(loc, " (%d/%d on %s", " (%d/%d en %s"), t->nmat,
				   gtr_struct_need(t), mname(t->site, loc));
			for (m = 0; m < t->nmat; m++)
				buf_printf(out, "%s%s", m ? "+" : ": ", mname(gtr_material_of(t->mat[m]), loc));
			buf_addstr(out, ")");
		}
	}
	if (!any)
		buf_addstr(out, "-");
}

/* ---- public board ---- */

/* The leader draw is shown during the first turn. */
int gtr_draw_shown(const struct gtr_state *s)
{
	return s->turn == 1 && s->ndraw && s->step != GS_OVER && s->phase != GP_PICK;
}

static void final_scores(const struct gtr_state *s, const struct game_view *v, enum locale loc,
			 struct rich *out)
{
	struct game_result res;
	struct buf b = BUF_INIT;
	int i, m, k, j, order[GTR_MAX_PLAYERS];

	gtr_result(s, &res);
	rich_heading(out, "%s", L(loc, "Final scoring", "Puntuación final"));
	for (k = 0; k < s->nplayers; k++)
		order[k] = k;
	for (k = 1; k < s->nplayers; k++)	/* by rank, then seat */
		for (j = k; j > 0 && res.rank[order[j]] < res.rank[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (k = 0; k < s->nplayers; k++) {
		const struct gtr_player *p = &s->p[order[k]];
		int vault = 0, bonus = 0;

		i = order[k];

		for (m = 0; m < GM_COUNT; m++) {
			vault += gtr_count(p->vault, m) * gtr_value[m];
			if (gtr_merchant_bonus(s, m) == i)
				bonus++;
		}
		buf_printf(&b, L(loc, "%d. %s: %d VP = influence %d + vault %d + merchant bonuses %d",
				 "%d. %s: %d PV = Influencia %d + Tesoro %d + bonificaciones de Mercader %d"),
			   res.rank[i], game_view_name(v, i), res.score[i], gtr_influence(s, i), vault,
			   3 * bonus);
		if (gtr_has(s, i, GC_STATUE))
			buf_addstr(&b, L(loc, " + Statue 3", " + Estatua 3"));
		if (gtr_has(s, i, GC_WALL))
			buf_printf(&b, L(loc, " + Wall %d", " + Muralla %d"),
				   gtr_total(p->stock, GC_COUNT) / 2);
		buf_printf(&b, L(loc, "; hand %d\n", "; Mano %d\n"), gtr_hand_size(s, i));
		buf_addstr(&b, L(loc, "   vault: ", "   Tesoro: "));
		list_cards(p->vault, GC_COUNT, loc, &b, "-");
		buf_addstr(&b, "\n");
	}
	rich_mono(out, buf_str(&b));
	buf_release(&b);
	if (s->end == GE_FORUM && s->winner < s->nplayers)
		rich_line(out, L(loc, "%s won with the Forum.", "%s ganó con el Foro."),
			  game_view_name(v, s->winner));
	else if (s->end == GE_CONCEDE && s->winner < s->nplayers)
		rich_line(out, L(loc, "%s won: the others conceded.", "%s ganó: los demás se rindieron."),
			  game_view_name(v, s->winner));
}

const char *gtr_end_text(int end, enum locale loc)
{
	switch (end) {
	case GE_DECK:
		return L(loc, "the deck ran out", "se acabó el Mazo");
	case GE_SITES:
		return L(loc, "the last site in town was taken", "se ocupó el último Solar de la ciudad");
	case GE_CATACOMB:
		return L(loc, "the Catacomb was completed", "se terminaron las Catacumbas");
	case GE_FORUM:
		return L(loc, "a Forum was fulfilled", "se cumplió un Foro");
	case GE_CONCEDE:
		return L(loc, "the others conceded", "los demás se rindieron");
	}
	return "";
}

void gtr_render_public(const void *st, const struct game_view *v, struct rich *out)
{
	const struct gtr_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);
	struct buf b = BUF_INIT;
	int i, m, over = s->step == GS_OVER;

	if (over)
		rich_heading(out, L(loc, "Glory to Rome: game over after turn %d (%s)",
				    "Gloria a Roma: fin de la partida tras el turno %d (%s)"),
			     s->turn, gtr_end_text(s->end, loc));
	else
		rich_heading(out, L(loc, "Glory to Rome: turn %d", "Gloria a Roma: turno %d"), s->turn);
	if (s->phase != GP_PICK) {
		if (s->led < GR_COUNT)
			rich_line(out, L(loc, "Leader: %s. Role led: %s.", "Líder: %s. Personaje liderado: %s."),
				  game_view_name(v, s->leader), rname(s->led, loc));
		else
			rich_line(out, L(loc, "Leader: %s.", "Líder: %s."), game_view_name(v, s->leader));
	}
	if (gtr_draw_shown(s)) {
		buf_reset(&b);
		for (i = 0; i < s->ndraw; i++) {
			int c = s->draw_card[i];

			buf_printf(&b, "%s%s%s %s", i ? ", " : "",
				   i >= s->nplayers ? L(loc, "tie: ", "empate: ") : "",
				   game_view_name(v, s->draw_seat[i]), cname(c, loc));
			if (loc != LOC_ES)
				buf_printf(&b, " (%s)", cname(c, LOC_ES));
		}
		rich_line(out, L(loc, "Leader draw (the first Spanish name leads): %s.",
				 "Sorteo del Líder (lidera el primer nombre en orden alfabético): %s."),
			  buf_str(&b));
	}
	if (!over) {
		if (s->step == GS_PICK || s->step == GS_GIVE) {
			unsigned aw = gtr_awaiting(s);

			buf_reset(&b);
			for (i = 0; i < s->nplayers; i++)
				if (aw & (1u << i))
					buf_printf(&b, "%s%s", b.len ? ", " : "", game_view_name(v, i));
			if (s->step == GS_PICK)
				rich_line(out, L(loc, "Now: %s (choosing a card for the leader draw).",
						 "Ahora: %s (eligiendo carta para elegir Líder)."), buf_str(&b));
			else
				rich_line(out, L(loc, "Now: %s (answering %s's Legionary).",
						 "Ahora: %s (respondiendo al Legionario de %s)."), buf_str(&b),
					  game_view_name(v, s->decider));
		} else {
			buf_reset(&b);
			gtr_what_asked(s, s->decider, 0, loc, &b);
			rich_line(out, L(loc, "Now: %s: %s%s", "Ahora: %s: %s%s"),
				  game_view_name(v, s->decider), buf_str(&b), gtr_stop(&b));
		}
	}
	if ((s->step == GS_LEGION || s->step == GS_LEGION_POOL || s->step == GS_GIVE ||
	     s->step == GS_COLISEUM) && s->leg_k) {
		buf_reset(&b);
		for (i = 0; i < s->leg_k; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", mname(s->leg_dem[i], loc));
		rich_line(out, L(loc, "Rome demands: %s.", "Roma exige: %s."), buf_str(&b));
	}
	if (s->step == GS_GIVE) {
		/* what each victim still gives: public (the demand, less what
		 * the log showed given); never which cards it holds */
		for (i = 0; i < s->nplayers; i++) {
			if (!((s->gift >> i) & 1))
				continue;
			buf_reset(&b);
			gtr_owed(s, i, loc, &b);
			if ((s->vol >> i) & 1)
				rich_line(out, L(loc, "%s is protected and may still give: %s.",
						 "%s está protegido y aun así puede dar: %s."),
					  game_view_name(v, i), buf_str(&b));
			else
				rich_line(out, L(loc, "%s chooses which cards to give: %s.",
						 "%s elige qué cartas da: %s."), game_view_name(v, i),
					  buf_str(&b));
		}
	}

	buf_reset(&b);
	list_cards(s->pool, GC_COUNT, loc, &b, L(loc, "empty", "vacía"));
	rich_line(out, L(loc, "Pool: %s.", "Reserva: %s."), buf_str(&b));
	rich_line(out, L(loc, "Deck: %d %s. Senators in the pile: %d.",
			 "Mazo: %d %s. Senadores en la pila: %d."), s->ndeck, cards_word(s->ndeck, loc),
		  s->jacks);
	buf_reset(&b);
	for (m = 0; m < GM_COUNT; m++)
		buf_printf(&b, "%s%s %d/%d", m ? ", " : "", mname(m, loc), s->in_town[m], s->out_town[m]);
	rich_line(out, L(loc, "Sites in town/out of town: %s.", "Solares ciudad/afueras: %s."),
		  buf_str(&b));

	buf_reset(&b);
	for (i = 0; i < s->nplayers; i++) {
		const struct gtr_player *p = &s->p[i];

		buf_printf(&b, "%s%s%s%s\n", game_view_name(v, i),
			   i == s->leader && s->phase != GP_PICK ? L(loc, " (leader)", " (Líder)") : "",
			   p->conceded ? L(loc, " (conceded)", " (rendido)") : "",
			   !over && s->step != GS_PICK && i == s->decider ? " <" : "");
		buf_printf(&b, L(loc, "  influence %d, hand %d, vault %d/%d, clients %d/%d\n",
				 "  Influencia %d, Mano %d, Tesoro %d/%d, Clientes %d/%d\n"),
			   gtr_influence(s, i), gtr_hand_size(s, i), gtr_vault_size(s, i),
			   gtr_vault_limit(s, i), gtr_clients(s, i), gtr_client_limit(s, i));
		buf_addstr(&b, L(loc, "  clientele: ", "  Clientela: "));
		list_roles(p, loc, &b, "-");
		buf_addstr(&b, L(loc, "\n  stockpile: ", "\n  Almacén: "));
		list_materials(p->stock, loc, &b, "-");
		buf_addstr(&b, L(loc, "\n  buildings: ", "\n  Edificios: "));
		list_structs(s, i, loc, &b);
		buf_addstr(&b, "\n");
		if (gtr_total(p->camp, GTR_NAMES)) {
			buf_addstr(&b, L(loc, "  played: ", "  Jugadas: "));
			list_cards(p->camp, GTR_NAMES, loc, &b, "-");
			buf_addstr(&b, "\n");
		}
	}
	rich_mono(out, buf_str(&b));
	buf_release(&b);
	if (over)
		final_scores(s, v, loc, out);
}

/* ---- private view ---- */

void gtr_render_private(const void *st, int seat, const struct game_view *v, struct rich *out)
{
	const struct gtr_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);
	struct buf b = BUF_INIT;
	int n;

	if (seat < 0 || seat >= s->nplayers)
		return;
	rich_heading(out, "%s", L(loc, "Glory to Rome: your hand", "Gloria a Roma: tu Mano"));
	list_cards(s->p[seat].hand, GTR_NAMES, loc, &b, L(loc, "empty", "vacía"));
	rich_line(out, L(loc, "Your hand (%d): %s.", "Tu Mano (%d): %s."), gtr_hand_size(s, seat),
		  buf_str(&b));
	if (s->p[seat].pick) {
		buf_reset(&b);
		rich_line(out, L(loc, "Your card for the leader draw: %s.",
				 "Tu carta para elegir Líder: %s."), tagged(s->p[seat].pick - 1, loc, &b));
	}
	if (s->step == GS_FOUNTAIN && s->decider == seat && s->fount < GC_COUNT) {
		buf_reset(&b);
		rich_line(out, L(loc, "The Fountain's card: %s.", "La carta de la Fuente: %s."),
			  tagged(s->fount, loc, &b));
	}
	n = gtr_vault_size(s, seat);
	rich_line(out, L(loc, "Your vault: %d %s, face down (nobody may look).",
			 "Tu Tesoro: %d %s boca abajo (nadie puede mirarlas)."), n, cards_word(n, loc));
	rich_line(out, L(loc, "Think draws up to %d.", "Pensar roba hasta %d."),
		  gtr_hand_limit(s, seat));
	buf_reset(&b);
	gtr_prompt(s, seat, loc, &b);
	rich_line(out, "%s", buf_str(&b));
	buf_release(&b);
}

/* ---- secrets ---- */

/* Words of the public board that contain a card name. */
static const char *const board_words[LOC_COUNT][4] = {
	{ NULL },
	{ NULL },
};

static int publicly_named(const struct gtr_state *s, const uint64_t pub_names, int c,
			  enum locale loc)
{
	const char *name = gtr_cards[c].name[loc];
	int d, k;

	if ((pub_names >> c) & 1)
		return 1;
	/* part of another public name, of a material/role name, or of the
	 * board's words */
	for (d = 0; d < GC_COUNT; d++)
		if (d != c && ((pub_names >> d) & 1) && strstr(gtr_cards[d].name[loc], name))
			return 1;
	for (k = 0; k < GM_COUNT; k++)
		if (strstr(gtr_materials[k].name[loc], name) || strstr(gtr_roles[k].name[loc], name))
			return 1;
	if (strstr(gtr_jack.name[loc], name))	/* "Senado" in "Senador" */
		return 1;
	for (k = 0; board_words[loc][k]; k++)
		if (strstr(board_words[loc][k], name))
			return 1;
	(void)s;
	return 0;
}

void gtr_secrets(const void *st, enum locale loc, struct buf *out)
{
	const struct gtr_state *s = st;
	uint64_t pub = 0, hidden = 0;
	int i, c, k;

	if (s->step == GS_OVER)
		return;
	loc = fix(loc);
	/* names the board shows: pool, structures, played cards */
	for (c = 0; c < GC_COUNT; c++)
		if (s->pool[c])
			pub |= 1ULL << c;
	if (gtr_draw_shown(s))
		for (k = 0; k < s->ndraw; k++)
			pub |= 1ULL << s->draw_card[k];
	for (i = 0; i < s->nplayers; i++) {
		const struct gtr_player *p = &s->p[i];

		for (k = 0; k < p->nstruct; k++)
			pub |= 1ULL << p->st[k].card;
		for (c = 0; c < GC_COUNT; c++) {
			/* the stockpile is face up: the log names what enters it
			 * (Laborer, Dock, Sewer) */
			if (p->camp[c] || p->stock[c])
				pub |= 1ULL << c;
			if (p->hand[c] || p->vault[c])
				hidden |= 1ULL << c;
		}
		if (p->pick)
			hidden |= 1ULL << (p->pick - 1);
	}
	if (s->fount < GC_COUNT)
		hidden |= 1ULL << s->fount;
	if (s->ndeck)
		hidden |= 1ULL << s->deck[s->ndeck - 1];
	for (c = 0; c < GC_COUNT; c++)
		if (((hidden >> c) & 1) && !publicly_named(s, pub, c, loc))
			buf_printf(out, "%s\n", gtr_cards[c].name[loc]);
	buf_addstr(out, L(loc, "Your hand (", "Tu Mano ("));
	buf_addstr(out, "\n");
}
