/*
 * scene.c: Sylla as a picture's display list (util/scene.h): the public
 * board and what lies behind a player's screen, from exactly what
 * sylla_render_public and sylla_render_private show, in the same words.
 *
 * The Res Publica is three tracks and the famine track, their crisis zones
 * shaded; the events are cards with the kinds that fight them (V, L) in
 * their band; characters are cards in their kind's colour with their
 * hexagons as coloured pips carrying their letters (R, Y/A, G); buildings
 * for sale are cards in their slot's colour.  Money and tokens behind a
 * screen, and a secret choice not yet revealed, appear only in the private
 * view, as on the text board.
 *
 * Owns the picture's layout; must not decide a rule or show what the text
 * board does not.
 */
#include <string.h>

#include "games/sylla/sylla.h"

static const enum scene_colour kind_colour[SK_COUNT] = {
	[SK_SENATOR] = SCOL_PURPLE, [SK_MERCHANT] = SCOL_GREEN, [SK_LEGIONARY] = SCOL_BROWN,
	[SK_VESTAL] = SCOL_PINK, [SK_SLAVE] = SCOL_BLACK,
};

static const enum scene_colour hex_colour[SC_COUNT] = {
	[SC_RED] = SCOL_RED, [SC_YELLOW] = SCOL_YELLOW, [SC_GREY] = SCOL_GREY,
};

static const enum scene_colour track_colour[ST_COUNT] = {
	[ST_CIVIC] = SCOL_BLUE, [ST_HEALTH] = SCOL_GREEN, [ST_LEISURE] = SCOL_ORANGE,
};

static enum locale fix(enum locale loc)
{
	return loc < LOC_COUNT ? loc : LOC_EN;
}

/* A character card: its kind, ✝, its hexagons as pips; suffix ends its
 * alt (the text board's " [face down]", "*"), flags and sub as given. */
static void character(struct scene *sc, int card, enum locale loc, const char *suffix,
		      unsigned flags, const char *sub)
{
	const struct sylla_char_info *c = &sylla_chars[sylla_k(card)];
	struct buf name = BUF_INIT;
	struct scene_item *it;
	int h;

	buf_addstr(&name, sylla_kinds[c->kind].name[loc]);
	if (c->christian)
		/* ✝ after a no-break space: never alone on a line of the card */
		buf_addstr(&name, "\xc2\xa0\xe2\x9c\x9d");
	it = scene_card(sc, kind_colour[c->kind < SK_COUNT ? c->kind : 0], buf_str(&name));
	buf_reset(&name);
	sylla_char_name(card, loc, &name);
	scene_set_alt(it, "%s%s", buf_str(&name), suffix ? suffix : "");
	if (c->christian)
		scene_set_band(it, "%s", L(loc, "Christian", "Cristiano"));
	if (sub)
		scene_set_sub(it, "%s", sub);
	it->flags |= (uint16_t)flags;
	for (h = 0; h < c->nhex && h < 3; h++)
		scene_pip(sc, hex_colour[c->hex[h] < SC_COUNT ? c->hex[h] : 0], "%s",
			  sylla_hex_letter[c->hex[h] < SC_COUNT ? c->hex[h] : 0][loc]);
	buf_release(&name);
}

static void res_publica(struct scene *sc, const struct sylla_state *s, enum locale loc)
{
	int t;

	scene_area(sc, SCOL_NONE, SCENE_HALF, "%s", "Res Publica");
	for (t = 0; t < ST_COUNT; t++) {
		char label[8];
		struct buf alt = BUF_INIT;

		scene_track(sc, 0, SY_TRACK_MAX, "%s", sylla_tracks[t].name[loc]);
		scene_zone(sc, 0, SY_CRISIS, SCOL_RED, "%s", "CRISIS");
		snprintf(label, sizeof(label), "%d", sylla_track_value[s->track[t]]);
		buf_printf(&alt, "%s %d (%d%s)", sylla_tracks[t].name[loc], s->track[t],
			   sylla_track_value[s->track[t]],
			   s->track[t] <= SY_CRISIS ? L(loc, "/token, CRISIS", "/ficha, CRISIS")
						: L(loc, "/token", "/ficha"));
		scene_mark(sc, s->track[t], track_colour[t], label, buf_str(&alt));
		buf_release(&alt);
	}
	scene_track(sc, 0, SY_FAMINE_MAX, "%s", L(loc, "famine", "hambruna"));
	{
		char label[8];
		struct buf alt = BUF_INIT;

		snprintf(label, sizeof(label), "%d", s->famine);
		buf_printf(&alt, L(loc, "famine %d/%d", "hambruna %d/%d"), s->famine, SY_FAMINE_MAX);
		scene_mark(sc, s->famine, SCOL_BLACK, label, buf_str(&alt));
		buf_release(&alt);
	}
	/* one total: the colours would tell those of the tokens taken in
	 * secret; a colour run out is in view */
	scene_row(sc, "%s", L(loc, "Tokens beside the board", "Fichas junto al tablero"));
	scene_chip(sc, SCOL_NONE, L(loc, "all colours", "todos los colores"), "%d", sylla_supply_total(s));
	for (t = 0; t < ST_COUNT; t++)
		if (!s->supply[t])
			scene_chip(sc, track_colour[t], sylla_tracks[t].name[loc], "%s",
				   L(loc, "none left", "no quedan"));
	scene_end(sc);
}

static void events(struct scene *sc, const struct sylla_state *s, const struct game_view *v,
		   enum locale loc)
{
	struct buf b = BUF_INIT;
	int i, k;

	scene_area(sc, SCOL_NONE, SCENE_HALF, "%s", L(loc, "Events (top first; V Vestal, L Legionary)",
						      "Eventos (de arriba abajo; V Vestal, L Legionario)"));
	scene_row(sc, "%s", "");
	for (i = 0; i < SY_EV_ROW; i++) {
		int e = s->ev_row[i];
		struct scene_item *it;

		if (e >= SE_COUNT)
			continue;
		it = scene_card(sc, sylla_events[e].token < ST_COUNT
				? track_colour[sylla_events[e].token] : SCOL_GREY,
				sylla_events[e].name[loc]);
		scene_set_corner(it, "%d", i + 1);
		scene_set_band(it, "%s%s", sylla_fights(e, SK_VESTAL) ? "V" : "",
			       sylla_fights(e, SK_LEGIONARY) ? "L" : "");
		buf_reset(&b);
		if (sylla_events[e].token < ST_COUNT)
			buf_addstr(&b, sylla_tracks[sylla_events[e].token].name[loc]);
		else
			buf_addstr(&b, L(loc, "+1 prestige", "+1 prestigio"));
		if (sylla_events[e].hunger)
			buf_printf(&b, " \xc2\xb7 %s", L(loc, "hunger", "hambre"));
		if ((s->avoided >> i) & 1) {
			buf_addstr(&b, L(loc, " (avoided)", " (evitado)"));
			it->flags |= SCENE_DIM;
		}
		scene_set_sub(it, "%s", buf_str(&b));
		scene_set_alt(it, "%d. %s", i + 1, sylla_events[e].name[loc]);
		if (s->phase == SP_EVENTS)
			for (k = 0; k < s->nplayers; k++)
				if (s->cubes[i][k]) {
					char ini[8];

					scene_initial(game_view_name(v, k), ini);
					scene_pip(sc, SCOL_SEAT + k, "%s %d", ini, s->cubes[i][k]);
				}
	}
	scene_end(sc);
	buf_release(&b);
}

static void market(struct scene *sc, const struct sylla_state *s, const struct game_view *v,
		   enum locale loc)
{
	struct buf b = BUF_INIT;
	int i, any;

	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Market", "Mercado"));
	for (i = any = 0; i < SY_ROW; i++)
		if (s->row[i] < SY_CHARS) {
			if (!any++)
				scene_row(sc, "%s", L(loc, "Characters for hire",
						      "Personajes para reclutar"));
			character(sc, s->row[i], loc, NULL, 0, NULL);
		}
	for (i = any = 0; i < SY_ROW; i++)
		if (s->tiles[i] < SY_TILES) {
			int c = sylla_slot_colour[i] < SC_COUNT ? sylla_slot_colour[i] : 0;
			struct scene_item *it;

			if (!any++)
				scene_row(sc, L(loc, "Buildings for sale (%d of %d offered this turn)",
						"Edificios a la venta (%d de %d ofrecidos este turno)"),
					  s->phase == SP_BUILD ? s->sales : 0, s->nplayers == 3 ? 4 : 5);
			it = scene_card(sc, hex_colour[c], sylla_tile_name(s->tiles[i], loc));
			scene_set_band(it, "%s", sylla_colours[c].name[loc]);
			scene_set_alt(it, "%s (%s)", sylla_tile_name(s->tiles[i], loc),
				      sylla_colours[c].name[loc]);
			if (s->phase == SP_BUILD && s->sale_slot == i) {
				scene_set_sub(it, "%s", L(loc, "ON SALE", "EN VENTA"));
				it->flags |= SCENE_MARKED;
			}
		}
	if (s->phase == SP_BUILD && s->step == SS_BID) {
		if (s->bid_seat < s->nplayers)
			scene_line(sc, SCENE_EMPH, L(loc, "Best bid: %s, %d.", "Mejor puja: %s, %d."),
				   game_view_name(v, s->bid_seat), s->bid_hi);
		else
			scene_line(sc, SCENE_EMPH, "%s", L(loc, "No bid yet.", "Aún no hay pujas."));
	}
	if (s->phase == SP_CONSUL && s->step == SS_ELECT && s->hi_seat < s->nplayers)
		scene_line(sc, SCENE_EMPH, L(loc, "Best offer: %s, %d %s.", "Mejor oferta: %s, %d %s."),
			   game_view_name(v, s->hi_seat), s->hi_votes,
			   sylla_word(SW_VOTE, s->hi_votes, loc));
	scene_row(sc, "%s", L(loc, "Face down", "Boca abajo"));
	scene_chip(sc, SCOL_BLACK, L(loc, "characters", "personajes"), "%d", s->ndeck);
	scene_chip(sc, SCOL_BLACK, L(loc, "building tiles", "losetas de edificio"), "%d", s->nstack);
	scene_chip(sc, SCOL_BLACK, L(loc, "events", "eventos"), "%d", s->nev_deck);
	scene_end(sc);
	buf_release(&b);
}

static void player_area(struct scene *sc, const struct sylla_state *s, int i,
			const struct game_view *v, enum locale loc)
{
	const struct sylla_player *p = &s->p[i];
	unsigned active = (sylla_awaiting(s) >> i) & 1;
	int c, z, any = 0;

	scene_area(sc, SCOL_SEAT + i, SCENE_HALF | (active ? SCENE_ACTIVE : 0), "%s%s",
		   game_view_name(v, i),
		   i == s->fc && s->phase != SP_SETUP ? L(loc, " (First Consul)", " (Primer Cónsul)")
						      : "");
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_GOLD, L(loc, "prestige", "prestigio"), "%d", p->prestige);
	scene_chip(sc, SCOL_NONE, sylla_word(SW_DENARIUS, p->money, loc), "%d", p->money);
	if (s->step == SS_CUBE) {
		struct buf cb = BUF_INIT;

		sylla_cubes_text(s, i, loc, &cb);
		scene_chip(sc, SCOL_NONE, L(loc, "cubes left", "cubos"), "%s", buf_str(&cb));
		buf_release(&cb);
	}
	scene_chip(sc, SCOL_NONE, L(loc, "income tile", "loseta de ingresos"), "%s",
		   sylla_numerals[p->set < SY_SETS ? p->set : 0]);
	for (c = 0; c < SY_CHARS; c++) {
		if (!((s->own[i] >> c) & 1))
			continue;
		if (!any++)
			scene_row(sc, "%s", L(loc, "Characters", "Personajes"));
		if ((s->down >> c) & 1)
			character(sc, c, loc, L(loc, " [face down]", " [boca abajo]"), SCENE_DOWN,
				  L(loc, "[face down]", "[boca abajo]"));
		else if ((s->tapped >> c) & 1)
			character(sc, c, loc, "*", SCENE_DIM, L(loc, "* turned", "* girado"));
		else
			character(sc, c, loc, NULL, 0, NULL);
	}
	if (!any)
		scene_line(sc, SCENE_NOTE, "%s", s->phase == SP_SETUP
			   ? L(loc, "(choosing in secret)", "(eligiendo en secreto)")
			   : L(loc, "no characters", "sin personajes"));
	for (z = any = 0; z < SZ_COUNT; z++) {
		const char *name = sylla_buildings[sylla_zone_type[z]].name[loc];
		struct scene_item *it;

		if (p->zone[z]) {
			if (!any++)
				scene_row(sc, "%s", L(loc, "Buildings", "Edificios"));
			it = scene_chip(sc, SCOL_BROWN, name, "%d", p->zone[z]);
			if (z == SZ_CRANE && p->crane_used) {
				struct buf cb = BUF_INIT;

				sylla_cranes_text(s, i, loc, &cb);
				scene_set_corner(it, "%d (%s)", p->zone[z], buf_str(&cb));
				buf_release(&cb);
			}
		}
		if (p->zone_down[z]) {
			if (!any++)
				scene_row(sc, "%s", L(loc, "Buildings", "Edificios"));
			it = scene_chip(sc, SCOL_BROWN, name, L(loc, "%d [face down]", "%d [boca abajo]"),
					p->zone_down[z]);
			it->flags |= SCENE_DIM;
		}
	}
	scene_end(sc);
}

static void final_scores(struct scene *sc, const struct sylla_state *s,
			 const struct game_view *v, enum locale loc)
{
	struct game_result res;
	int r, i;

	sylla_result(s, &res);
	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Final scoring", "Puntuación final"));
	scene_table(sc, 8, SCENE_EMPH);
	scene_cell(sc, "#");
	scene_cell(sc, "%s", L(loc, "Player", "Jugador"));
	scene_cell(sc, "%s", L(loc, "prestige", "prestigio"));
	scene_cell(sc, "%s", L(loc, "Christians", "cristianos"));
	scene_cell(sc, "%s", L(loc, "slaves freed", "esclavos liberados"));
	scene_cell(sc, "%s", sylla_tracks[ST_CIVIC].name[loc]);
	scene_cell(sc, "%s", sylla_tracks[ST_HEALTH].name[loc]);
	scene_cell(sc, "%s", sylla_tracks[ST_LEISURE].name[loc]);
	for (r = 1; r <= s->nplayers; r++)
		for (i = 0; i < s->nplayers; i++) {
			const struct sylla_player *p = &s->p[i];

			if (res.rank[i] != r)
				continue;
			scene_cell(sc, "%d", r);
			scene_cell(sc, "%s", game_view_name(v, i));
			scene_cell(sc, "%d", p->prestige);
			scene_cell(sc, "+%d", 2 * p->end_christians);
			scene_cell(sc, "+%d", 3 * p->end_freed);
			scene_cell(sc, "%d", p->tok[ST_CIVIC]);
			scene_cell(sc, "%d", p->tok[ST_HEALTH]);
			scene_cell(sc, "%d", p->tok[ST_LEISURE]);
		}
	scene_end(sc);
}

static void public_scene(const struct sylla_state *s, const struct game_view *v,
			 enum locale loc, struct scene *sc)
{
	struct buf b = BUF_INIT;
	int i;

	if (s->phase == SP_OVER)
		scene_title(sc, "%s", L(loc, "Sylla: game over", "Sylla: fin de la partida"));
	else
		scene_title(sc, L(loc, "Sylla: turn %d of %d, %s", "Sylla: turno %d de %d, %s"),
			    s->turn, SY_TURNS, sylla_phase_title(s, loc));
	sylla_works_text(s, loc, &b);
	scene_line(sc, 0, L(loc, "Great Work: %s.", "Gran Obra: %s."), buf_str(&b));
	res_publica(sc, s, loc);
	events(sc, s, v, loc);
	market(sc, s, v, loc);
	for (i = 0; i < s->nplayers; i++)
		player_area(sc, s, i, v, loc);
	scene_line(sc, SCENE_NOTE, "%s", sylla_legend(loc));
	if (s->phase == SP_OVER)
		final_scores(sc, s, v, loc);
	buf_release(&b);
}

static void private_scene(const struct sylla_state *s, int seat, const struct game_view *v,
			  enum locale loc, struct scene *sc)
{
	struct buf b = BUF_INIT;

	scene_title(sc, "%s", L(loc, "Sylla: behind your screen", "Sylla: tras tu pantalla"));
	sylla_screen_text(s, seat, loc, &b);
	scene_line(sc, SCENE_EMPH, L(loc, "Behind your screen: %s", "Tras tu pantalla: %s"),
		   buf_str(&b));
	buf_reset(&b);
	sylla_choice_text(s, seat, loc, &b);
	if (b.len)
		scene_line(sc, SCENE_EMPH, L(loc, "Your secret choice: %s%s", "Tu elección secreta: %s%s"),
			   buf_str(&b), s->p[seat].stage == SST_DONE
			   ? L(loc, " (confirmed)", " (confirmada)")
			   : L(loc, " (not confirmed yet)", " (aún sin confirmar)"));
	if (s->phase == SP_SETUP) {
		int k;

		scene_row(sc, L(loc, "Your set (income tile %s)", "Tu juego (loseta de ingresos %s)"),
			  sylla_numerals[s->p[seat].set < SY_SETS ? s->p[seat].set : 0]);
		for (k = 0; k < SY_PER_SET; k++)
			character(sc, s->p[seat].set * SY_PER_SET + k, loc, NULL, 0, NULL);
	} else if (s->phase != SP_OVER) {
		scene_row(sc, "%s", L(loc, "You can pay with", "Puedes pagar con"));
		scene_chip(sc, SCOL_RED, L(loc, "red", "rojo"), "%d", sylla_buy_power(s, seat, SC_RED));
		scene_chip(sc, SCOL_YELLOW, L(loc, "yellow", "amarillo"), "%d",
			   sylla_buy_power(s, seat, SC_YELLOW));
		scene_chip(sc, SCOL_GREY, L(loc, "grey", "gris"), "%d", sylla_buy_power(s, seat, SC_GREY));
		scene_chip(sc, SCOL_PURPLE, L(loc, "Senators ready", "Senadores listos"), "%d",
			   sylla_senators(s, seat));
		scene_chip(sc, SCOL_GOLD, L(loc, "Income now", "Ingresos ahora"), "%d",
			   sylla_income(s, seat));
	}
	buf_reset(&b);
	sylla_prompt(s, seat, loc, &b);
	scene_line(sc, SCENE_EMPH, "%s", buf_str(&b));
	buf_release(&b);
	(void)v;
}

int sylla_scene(const void *st, int seat, const struct game_view *v, struct scene *out)
{
	const struct sylla_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);

	if (seat >= (int)s->nplayers)
		return -1;
	if (seat < 0)
		public_scene(s, v, loc, out);
	else
		private_scene(s, seat, v, loc, out);
	return 0;
}
