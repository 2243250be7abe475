/*
 * scene.c: Glory to Rome as a picture's display list (util/scene.h): the
 * public board and a player's hand, from exactly what gtr_render_public and
 * gtr_render_private show, in the same words.
 *
 * A card is drawn in its material's colour (rubble yellow, wood brown,
 * brick red, concrete grey, stone blue, marble purple, as the printed
 * cards), with the material's name and value in its band and its role
 * under its name; a Senator is black, "wild card".  Hands and vaults are
 * counts, as on the text board; the stockpile is counted by material.
 *
 * Owns the picture's layout choices; must not decide a rule or name a card
 * the text board does not name.
 */
#include <string.h>

#include "games/gtr/gtr.h"

static const enum scene_colour material_colour[GM_COUNT] = {
	[GM_RUBBLE] = SCOL_YELLOW, [GM_WOOD] = SCOL_BROWN, [GM_BRICK] = SCOL_RED,
	[GM_CONCRETE] = SCOL_GREY, [GM_STONE] = SCOL_BLUE, [GM_MARBLE] = SCOL_PURPLE,
};

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

static const char *mname(int m, enum locale loc)
{
	return m >= 0 && m < GM_COUNT ? gtr_materials[m].name[loc] : "?";
}

static const char *rname(int r, enum locale loc)
{
	return r >= 0 && r < GR_COUNT ? gtr_roles[r].name[loc] : "?";
}

static enum scene_colour mcolour(int m)
{
	return m >= 0 && m < GM_COUNT ? material_colour[m] : SCOL_NONE;
}

/* A card of the table: colour, band "Rubble", value, name, role. */
static struct scene_item *card(struct scene *sc, int c, int count, enum locale loc)
{
	struct scene_item *it;
	struct buf tag = BUF_INIT;

	if (c == GTR_JACK) {
		it = scene_card(sc, SCOL_BLACK, cname(c, loc));
		scene_set_band(it, "%s", L(loc, "wild card", "comodín"));
	} else {
		int m = gtr_material_of(c);

		it = scene_card(sc, mcolour(m), cname(c, loc));
		scene_set_band(it, "%s", mname(m, loc));
		scene_set_corner(it, "%d", m < GM_COUNT ? gtr_value[m] : 0);
		scene_set_sub(it, "%s", rname(m, loc));
	}
	it->count = (int16_t)count;
	gtr_card_tag(c, loc, &tag);
	scene_set_alt(it, "%s", buf_str(&tag));
	buf_release(&tag);
	return it;
}

/* Every card of cards[0..n) with its copies. */
static int cards(struct scene *sc, const uint8_t *cs, int n, enum locale loc)
{
	int c, any = 0;

	for (c = 0; c < n; c++)
		if (cs[c]) {
			card(sc, c, cs[c], loc);
			any = 1;
		}
	return any;
}

static void structures(struct scene *sc, const struct gtr_state *s, int seat, enum locale loc)
{
	const struct gtr_player *p = &s->p[seat];
	struct buf b = BUF_INIT;
	int k, m;

	scene_row(sc, "%s", L(loc, "Buildings", "Edificios"));
	for (k = 0; k < p->nstruct; k++) {
		const struct gtr_struct *t = &p->st[k];
		int cm = gtr_material_of(t->card);
		struct scene_item *it = scene_card(sc, mcolour(cm), cname(t->card, loc));

		scene_set_band(it, "%s", mname(cm, loc));
		scene_set_corner(it, "%d", cm < GM_COUNT ? gtr_value[cm] : 0);
		buf_reset(&b);
		if (t->done) {
			buf_printf(&b, L(loc, "done, %s", "terminado, %s"), mname(t->site, loc));
			if (t->flags & GSF_PUBLIC)
				buf_addstr(&b, L(loc, ", public", ", público"));
			if (t->flags & GSF_STOLEN)
				buf_addstr(&b, L(loc, ", imprisoned", ", encerrado"));
		} else {
			buf_printf(&b, L(loc, "%d/%d on %s", "%d/%d en %s"), t->nmat,
				   gtr_struct_need(t), mname(t->site, loc));
			for (m = 0; m < t->nmat; m++)
				buf_printf(&b, "%s%s", m ? "+" : ": ",
					   mname(gtr_material_of(t->mat[m]), loc));
		}
		scene_set_sub(it, "%s", buf_str(&b));
		scene_set_alt(it, "%s (%s)", cname(t->card, loc), buf_str(&b));
	}
	buf_release(&b);
}

static void player_area(struct scene *sc, const struct gtr_state *s, int i,
			const struct game_view *v, enum locale loc, unsigned active)
{
	const struct gtr_player *p = &s->p[i];
	int over = s->step == GS_OVER, r, m, any;

	scene_area(sc, SCOL_SEAT + i, SCENE_HALF | (active ? SCENE_ACTIVE : 0), "%s%s%s%s",
		   game_view_name(v, i),
		   i == s->leader && s->phase != GP_PICK ? L(loc, " (leader)", " (Líder)") : "",
		   p->conceded ? L(loc, " (conceded)", " (rendido)") : "",
		   !over && s->step != GS_PICK && i == s->decider ? " \xe2\x97\x80" : "");
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_GOLD, L(loc, "Influence", "Influencia"), "%d", gtr_influence(s, i));
	scene_chip(sc, SCOL_NONE, L(loc, "Hand", "Mano"), "%d", gtr_hand_size(s, i));
	scene_chip(sc, SCOL_NONE, L(loc, "Vault", "Tesoro"), "%d/%d", gtr_vault_size(s, i),
		   gtr_vault_limit(s, i));
	scene_chip(sc, SCOL_NONE, L(loc, "Clients", "Clientes"), "%d/%d", gtr_clients(s, i),
		   gtr_client_limit(s, i));
	for (r = any = 0; r < GR_COUNT; r++)
		if (gtr_count(p->clients, r)) {
			if (!any++)
				scene_row(sc, "%s", L(loc, "Clientele", "Clientela"));
			scene_chip(sc, mcolour(r), rname(r, loc), "%d", gtr_count(p->clients, r));
		}
	for (m = any = 0; m < GM_COUNT; m++)
		if (gtr_count(p->stock, m)) {
			if (!any++)
				scene_row(sc, "%s", L(loc, "Stockpile", "Almacén"));
			scene_chip(sc, mcolour(m), mname(m, loc), "%d", gtr_count(p->stock, m));
		}
	if (p->nstruct)
		structures(sc, s, i, loc);
	if (gtr_total(p->camp, GTR_NAMES)) {
		scene_row(sc, "%s", L(loc, "Played", "Jugadas"));
		cards(sc, p->camp, GTR_NAMES, loc);
	}
	scene_end(sc);
}

static void final_scores(struct scene *sc, const struct gtr_state *s, const struct game_view *v,
			 enum locale loc)
{
	struct game_result res;
	int i, k, j, m, order[GTR_MAX_PLAYERS];

	gtr_result(s, &res);
	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Final scoring", "Puntuación final"));
	for (k = 0; k < s->nplayers; k++)
		order[k] = k;
	for (k = 1; k < s->nplayers; k++)
		for (j = k; j > 0 && res.rank[order[j]] < res.rank[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	scene_table(sc, 8, SCENE_EMPH);
	scene_cell(sc, "#");
	scene_cell(sc, "%s", L(loc, "Player", "Jugador"));
	scene_cell(sc, "%s", L(loc, "VP", "PV"));
	scene_cell(sc, "%s", L(loc, "Influence", "Influencia"));
	scene_cell(sc, "%s", L(loc, "Vault", "Tesoro"));
	scene_cell(sc, "%s", L(loc, "Merchant bonuses", "Bonificaciones de Mercader"));
	scene_cell(sc, "%s", L(loc, "Other", "Otros"));
	scene_cell(sc, "%s", L(loc, "Hand", "Mano"));
	for (k = 0; k < s->nplayers; k++) {
		const struct gtr_player *p = &s->p[order[k]];
		struct buf other = BUF_INIT;
		int vault = 0, bonus = 0;

		i = order[k];
		for (m = 0; m < GM_COUNT; m++) {
			vault += gtr_count(p->vault, m) * gtr_value[m];
			if (gtr_merchant_bonus(s, m) == i)
				bonus++;
		}
		if (gtr_has(s, i, GC_STATUE))
			buf_addstr(&other, L(loc, "Statue 3", "Estatua 3"));
		if (gtr_has(s, i, GC_WALL))
			buf_printf(&other, L(loc, "%sWall %d", "%sMuralla %d"), other.len ? ", " : "",
				   gtr_total(p->stock, GC_COUNT) / 2);
		scene_cell(sc, "%d", res.rank[i]);
		scene_cell(sc, "%s", game_view_name(v, i));
		scene_cell(sc, "%d", res.score[i]);
		scene_cell(sc, "%d", gtr_influence(s, i));
		scene_cell(sc, "%d", vault);
		scene_cell(sc, "%d", 3 * bonus);
		scene_cell(sc, "%s", other.len ? buf_str(&other) : "-");
		scene_cell(sc, "%d", gtr_hand_size(s, i));
		buf_release(&other);
	}
	for (k = 0; k < s->nplayers; k++) {
		i = order[k];
		if (!gtr_total(s->p[i].vault, GC_COUNT))
			continue;
		scene_row(sc, L(loc, "%s's vault", "Tesoro de %s"), game_view_name(v, i));
		cards(sc, s->p[i].vault, GC_COUNT, loc);
	}
	if (s->end == GE_FORUM && s->winner < s->nplayers)
		scene_line(sc, SCENE_EMPH, L(loc, "%s won with the Forum.", "%s ganó con el Foro."),
			   game_view_name(v, s->winner));
	else if (s->end == GE_CONCEDE && s->winner < s->nplayers)
		scene_line(sc, SCENE_EMPH, L(loc, "%s won: the others conceded.",
					     "%s ganó: los demás se rindieron."),
			   game_view_name(v, s->winner));
	scene_end(sc);
}

static void public_scene(const struct gtr_state *s, const struct game_view *v, enum locale loc,
			 struct scene *sc)
{
	struct buf b = BUF_INIT;
	unsigned aw = gtr_awaiting(s);
	int i, m, over = s->step == GS_OVER;

	if (over)
		scene_title(sc, L(loc, "Glory to Rome: game over after turn %d (%s)",
				  "Gloria a Roma: fin de la partida tras el turno %d (%s)"),
			    s->turn, gtr_end_text(s->end, loc));
	else
		scene_title(sc, L(loc, "Glory to Rome: turn %d", "Gloria a Roma: turno %d"), s->turn);
	if (s->phase != GP_PICK) {
		if (s->led < GR_COUNT)
			scene_line(sc, 0, L(loc, "Leader: %s. Role led: %s.",
					    "Líder: %s. Personaje liderado: %s."),
				   game_view_name(v, s->leader), rname(s->led, loc));
		else
			scene_line(sc, 0, L(loc, "Leader: %s.", "Líder: %s."),
				   game_view_name(v, s->leader));
	}
	if (gtr_draw_shown(s)) {
		scene_row(sc, "%s", L(loc, "Leader draw (the first Spanish name leads)",
				      "Sorteo del Líder (lidera el primer nombre en orden alfabético)"));
		for (i = 0; i < s->ndraw; i++) {
			struct scene_item *it = card(sc, s->draw_card[i], 1, loc);

			scene_set_sub(it, "%s%s%s%s%s", i >= s->nplayers ? L(loc, "tie: ", "empate: ") : "",
				      game_view_name(v, s->draw_seat[i]),
				      loc != LOC_ES ? " (" : "",
				      loc != LOC_ES ? cname(s->draw_card[i], LOC_ES) : "",
				      loc != LOC_ES ? ")" : "");
		}
	}
	if (!over) {
		if (s->step == GS_PICK || s->step == GS_GIVE) {
			buf_reset(&b);
			for (i = 0; i < s->nplayers; i++)
				if (aw & (1u << i))
					buf_printf(&b, "%s%s", b.len ? ", " : "", game_view_name(v, i));
			if (s->step == GS_PICK)
				scene_line(sc, SCENE_EMPH, L(loc, "Now: %s (choosing a card for the leader draw).",
							     "Ahora: %s (eligiendo carta para elegir Líder)."),
					   buf_str(&b));
			else
				scene_line(sc, SCENE_EMPH, L(loc, "Now: %s (answering %s's Legionary).",
							     "Ahora: %s (respondiendo al Legionario de %s)."),
					   buf_str(&b), game_view_name(v, s->decider));
		} else {
			buf_reset(&b);
			gtr_what_asked(s, s->decider, 0, loc, &b);
			scene_line(sc, SCENE_EMPH, L(loc, "Now: %s: %s%s", "Ahora: %s: %s%s"),
				   game_view_name(v, s->decider), buf_str(&b), gtr_stop(&b));
		}
	}
	if ((s->step == GS_LEGION || s->step == GS_LEGION_POOL || s->step == GS_GIVE ||
	     s->step == GS_COLISEUM) && s->leg_k) {
		scene_row(sc, "%s", L(loc, "Rome demands", "Roma exige"));
		for (i = 0; i < s->leg_k; i++) {
			struct scene_item *it = scene_chip(sc, mcolour(s->leg_dem[i]),
							   mname(s->leg_dem[i], loc), "%s", "");

			it->flags |= SCENE_MARKED;
		}
	}
	if (s->step == GS_GIVE)
		for (i = 0; i < s->nplayers; i++) {
			if (!((s->gift >> i) & 1))
				continue;
			buf_reset(&b);
			gtr_owed(s, i, loc, &b);
			if ((s->vol >> i) & 1)
				scene_line(sc, 0, L(loc, "%s is protected and may still give: %s.",
						    "%s está protegido y aun así puede dar: %s."),
					   game_view_name(v, i), buf_str(&b));
			else
				scene_line(sc, 0, L(loc, "%s chooses which cards to give: %s.",
						    "%s elige qué cartas da: %s."), game_view_name(v, i),
					   buf_str(&b));
		}

	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Pool", "Reserva"));
	scene_row(sc, "%s", "");
	if (!cards(sc, s->pool, GC_COUNT, loc))
		scene_chip(sc, SCOL_NONE, L(loc, "empty", "vacía"), "%s", "");
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_BLACK, L(loc, "Deck", "Mazo"), "%d", s->ndeck);
	scene_chip(sc, SCOL_NONE, L(loc, "Senators in the pile", "Senadores en la pila"), "%d",
		   s->jacks);
	scene_row(sc, "%s", L(loc, "Sites in town/out of town", "Solares ciudad/afueras"));
	for (m = 0; m < GM_COUNT; m++)
		scene_chip(sc, mcolour(m), mname(m, loc), "%d/%d", s->in_town[m], s->out_town[m]);
	scene_end(sc);

	for (i = 0; i < s->nplayers; i++) {
		unsigned active = !over && (s->step == GS_PICK || s->step == GS_GIVE
					    ? (aw >> i) & 1 : i == s->decider);

		player_area(sc, s, i, v, loc, active);
	}
	if (over)
		final_scores(sc, s, v, loc);
	buf_release(&b);
}

static void private_scene(const struct gtr_state *s, int seat, const struct game_view *v,
			  enum locale loc, struct scene *sc)
{
	struct buf b = BUF_INIT;
	int n;

	scene_title(sc, "%s", L(loc, "Glory to Rome: your hand", "Gloria a Roma: tu Mano"));
	scene_row(sc, L(loc, "Your hand (%d)", "Tu Mano (%d)"), gtr_hand_size(s, seat));
	if (!cards(sc, s->p[seat].hand, GTR_NAMES, loc))
		scene_chip(sc, SCOL_NONE, L(loc, "empty", "vacía"), "%s", "");
	if (s->p[seat].pick) {
		scene_row(sc, "%s", L(loc, "Your card for the leader draw",
				      "Tu carta para elegir Líder"));
		card(sc, s->p[seat].pick - 1, 1, loc);
	}
	if (s->step == GS_FOUNTAIN && s->decider == seat && s->fount < GC_COUNT) {
		scene_row(sc, "%s", L(loc, "The Fountain's card", "La carta de la Fuente"));
		card(sc, s->fount, 1, loc)->flags |= SCENE_MARKED;
	}
	n = gtr_vault_size(s, seat);
	scene_line(sc, 0, L(loc, "Your vault: %d %s, face down (nobody may look).",
			    "Tu Tesoro: %d %s boca abajo (nadie puede mirarlas)."), n,
		   n == 1 ? L(loc, "card", "carta") : L(loc, "cards", "cartas"));
	scene_line(sc, 0, L(loc, "Think draws up to %d.", "Pensar roba hasta %d."),
		   gtr_hand_limit(s, seat));
	gtr_prompt(s, seat, loc, &b);
	scene_line(sc, SCENE_EMPH, "%s", buf_str(&b));
	buf_release(&b);
	(void)v;
}

int gtr_scene(const void *st, int seat, const struct game_view *v, struct scene *out)
{
	const struct gtr_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);

	if (seat >= s->nplayers)
		return -1;
	if (seat < 0)
		public_scene(s, v, loc, out);
	else
		private_scene(s, seat, v, loc, out);
	return 0;
}
