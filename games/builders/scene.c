/*
 * scene.c: The Builders: Antiquity as a picture's display list
 * (util/scene.h): the public board and a player's area, from exactly what
 * builders_render_public and builders_render_private show, in the same
 * words.
 *
 * Resources are colours with their letters (stone S grey, wood W brown,
 * architecture A blue, decoration D purple; Spanish P M A D): a building
 * card carries what it needs as pips, a worker card what it makes.  Each
 * building a player has under way is a row: the building, then the
 * workers at work on it.  The decks are counts, as on the text board:
 * their next cards are the only secret of the game.
 *
 * Owns the picture's layout; must not decide a rule or show what the text
 * board does not.
 */
#include <stdio.h>
#include <string.h>

#include "games/builders/builders.h"

static const enum scene_colour res_colour[BR_COUNT] = {
	[BR_STONE] = SCOL_GREY, [BR_WOOD] = SCOL_BROWN, [BR_ARCH] = SCOL_BLUE,
	[BR_DECO] = SCOL_PURPLE,
};

static const enum scene_colour rank_colour[BK_COUNT] = {
	[BK_APPRENTICE] = SCOL_YELLOW, [BK_LABORER] = SCOL_ORANGE,
	[BK_JOURNEYMAN] = SCOL_GREEN, [BK_MASTER] = SCOL_RED,
};

static enum locale fix(enum locale loc)
{
	return loc < LOC_COUNT ? loc : LOC_EN;
}

static void res_pips(struct scene *sc, const uint8_t res[BR_COUNT], enum locale loc)
{
	int r;

	for (r = 0; r < BR_COUNT; r++)
		if (res[r])
			scene_pip(sc, res_colour[r], "%c%d", builders_res_letter[loc][r], res[r]);
}

/* A building card: what it needs, what it pays; sub: one more line. */
static void building(struct scene *sc, int b, enum locale loc, const char *sub)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	struct buf tag = BUF_INIT;
	struct scene_item *it;

	it = scene_card(sc, bi->makes ? res_colour[(bi->makes - 1) % BR_COUNT] : SCOL_NONE,
			bi->name[loc]);
	if (bi->makes)
		scene_set_band(it, L(loc, "machine: %c%d", "máquina: %c%d"),
			       builders_res_letter[loc][(bi->makes - 1) % BR_COUNT],
			       BUILDERS_MACHINE_MAKES);
	else
		scene_set_band(it, "%d s", bi->coins);
	scene_set_corner(it, L(loc, "%d VP", "%d PV"), bi->vp);
	if (sub && *sub)
		scene_set_sub(it, "%s", sub);
	builders_building_tag(b, loc, &tag);
	scene_set_alt(it, "%s", buf_str(&tag));
	buf_release(&tag);
	res_pips(sc, bi->need, loc);
}

/* A unit: a worker card, a slave or a machine at work; sub as given. */
static void unit(struct scene *sc, const struct builders_state *s, int u, enum locale loc,
		 const char *sub)
{
	struct buf name = BUF_INIT, tag = BUF_INIT;
	struct scene_item *it;
	enum scene_colour c;
	int wage = builders_wage(s, u);

	builders_unit_name(s, u, loc, &name);
	if (u < BU_SLAVE)
		c = rank_colour[builders_workers[u].rank % BK_COUNT];
	else if (u < BU_MACHINE)
		c = s->freed[u - BU_SLAVE] ? SCOL_WHITE : SCOL_BLACK;
	else
		c = res_colour[(builders_buildings[BB_FIRST_MACHINE + u - BU_MACHINE].makes + BR_COUNT
				- 1) % BR_COUNT];
	it = scene_card(sc, c, buf_str(&name));
	if (wage)
		scene_set_band(it, L(loc, "wage %d", "sueldo %d"), wage);
	else
		scene_set_band(it, "%s", L(loc, "no wage", "sin sueldo"));
	if (sub && *sub)
		scene_set_sub(it, "%s", sub);
	builders_unit_tag(s, u, loc, &tag);
	scene_set_alt(it, "%s", buf_str(&tag));
	res_pips(sc, s->ures[u], loc);
	buf_release(&name);
	buf_release(&tag);
}

static void rows(struct scene *sc, const struct builders_state *s, enum locale loc)
{
	int i, n;

	/* not "Market": that is a building's name */
	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Common area", "Zona común"));
	scene_row(sc, L(loc, "Buildings to start (deck: %d)", "Edificios para iniciar (mazo: %d)"),
		  s->nbdeck);
	for (i = n = 0; i < BUILDERS_ROW; i++)
		if (s->brow[i] != BUILDERS_NONE && s->brow[i] < BUILDERS_BUILDINGS) {
			building(sc, s->brow[i], loc, NULL);
			n++;
		}
	if (!n)
		scene_chip(sc, SCOL_NONE, L(loc, "(none)", "(ninguno)"), "%s", "");
	scene_row(sc, L(loc, "Workers for hire (deck: %d)", "Trabajadores para contratar (mazo: %d)"),
		  s->nwdeck);
	for (i = n = 0; i < BUILDERS_ROW; i++)
		if (s->wrow[i] != BUILDERS_NONE && s->wrow[i] < BUILDERS_UNITS) {
			unit(sc, s, s->wrow[i], loc, NULL);
			n++;
		}
	if (!n)
		scene_chip(sc, SCOL_NONE, L(loc, "(none)", "(ninguno)"), "%s", "");
}

static void investments(struct scene *sc, const struct builders_state *s, enum locale loc)
{
	int k, n;

	scene_row(sc, L(loc, "Slaves (%d s)", "Esclavos (%d s)"), BUILDERS_SLAVE_PRICE);
	for (k = n = 0; k < BUILDERS_SLAVES; k++)
		if (s->uown[BU_SLAVE + k] == BUILDERS_NONE) {
			struct scene_item *it;
			struct buf t = BUF_INIT;

			buf_printf(&t, "%s %d", L(loc, "Slave", "Esclavo"), k + 1);
			it = scene_card(sc, SCOL_BLACK, buf_str(&t));
			buf_addstr(&t, " (");
			builders_res_text(builders_slaves[k], loc, &t);
			buf_addch(&t, ')');
			scene_set_alt(it, "%s", buf_str(&t));
			buf_release(&t);
			res_pips(sc, builders_slaves[k], loc);
			n++;
		}
	if (!n)
		scene_chip(sc, SCOL_NONE, L(loc, "none", "ninguno"), "%s", "");
	scene_row(sc, L(loc, "Tools (%d s)", "Herramientas (%d s)"), BUILDERS_TOOL_PRICE);
	for (k = n = 0; k < BUILDERS_TOOLS; k++)
		if (s->town[k] == BUILDERS_NONE) {
			scene_chip(sc, res_colour[k % BR_COUNT], builders_tools[k].name[loc], "+%c1",
				   builders_res_letter[loc][k % BR_COUNT]);
			n++;
		}
	if (!n)
		scene_chip(sc, SCOL_NONE, L(loc, "none", "ninguna"), "%s", "");
	/* the loans a row of their own, not among the tools */
	scene_row(sc, L(loc, "Loans (+%d s, repay %d)", "Préstamos (+%d s, devolver %d)"),
		  BUILDERS_LOAN_GAIN, BUILDERS_LOAN_REPAY);
	scene_chip(sc, SCOL_GOLD, L(loc, "left", "quedan"), "%d", s->loan_pile);
	scene_row(sc, L(loc, "Universities (%d s)", "Universidades (%d s)"), BUILDERS_UNI_PRICE);
	for (k = n = 0; k < BUILDERS_UNIS; k++)
		if (s->uni[k] == BUILDERS_NONE) {
			scene_chip(sc, res_colour[k % BR_COUNT], builders_resources[k].name[loc], "%s",
				   "");
			n++;
		}
	if (!n)
		scene_chip(sc, SCOL_NONE, L(loc, "none", "ninguna"), "%s", "");
	scene_end(sc);
}

static void seat_area(struct scene *sc, const struct builders_state *s, int seat,
		      const struct game_view *v, enum locale loc, unsigned flags)
{
	const struct builders_player *p = &s->p[seat];
	int slaves = builders_enslaved(s, seat), active = builders_decider(s) == seat;
	struct buf b = BUF_INIT;
	int u, t, bd, n;

	scene_area(sc, SCOL_SEAT + seat, flags | (active ? SCENE_ACTIVE : 0), "%s%s%s",
		   game_view_name(v, seat),
		   seat == s->first ? L(loc, " (first player)", " (jugador inicial)") : "",
		   active ? " \xe2\x97\x80" : "");
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_GOLD, L(loc, "sesterces", "sestercios"), "%d s", p->money);
	scene_chip(sc, SCOL_NONE, L(loc, "VP", "PV"), "%d", p->vp);
	if (p->loans)
		scene_chip(sc, SCOL_RED, L(loc, "loans", "préstamos"), "%d", p->loans);
	if (slaves)
		scene_chip(sc, SCOL_BLACK, L(loc, "slaves", "esclavos"), "%d", slaves);
	scene_row(sc, "%s", L(loc, "Available", "Disponibles"));
	for (u = n = 0; u < BUILDERS_UNITS; u++)
		if (s->uown[u] == seat && s->uat[u] == BUILDERS_NONE) {
			unit(sc, s, u, loc, NULL);
			n++;
		}
	if (!n)
		scene_chip(sc, SCOL_NONE, L(loc, "nobody", "nadie"), "%s", "");
	for (t = n = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] == seat) {
			struct scene_item *it;

			if (!n++)
				scene_row(sc, "%s", L(loc, "Tools", "Herramientas"));
			it = scene_chip(sc, res_colour[t % BR_COUNT], builders_tools[t].name[loc],
					"+%c1%s", builders_res_letter[loc][t % BR_COUNT],
					s->tat[t] == BUILDERS_NONE ? "" : L(loc, ", in use", ", en uso"));
			if (s->tat[t] != BUILDERS_NONE)
				it->flags |= SCENE_DIM;
		}
	for (bd = 0; bd < BUILDERS_BUILDINGS; bd++) {
		uint8_t miss[BR_COUNT];

		if (s->bown[bd] != seat || s->bplace[bd] != BP_BUILDING)
			continue;
		scene_row(sc, "%s", L(loc, "Building", "En obra"));
		builders_missing(s, bd, miss);
		buf_reset(&b);
		buf_addstr(&b, L(loc, "missing ", "falta "));
		builders_res_text(miss, loc, &b);
		if (s->sent[bd] && s->cur == seat && s->step <= BS_EDUCATE)
			buf_printf(&b, L(loc, " · %d sent this turn", " · %d enviado(s) este turno"),
				   s->sent[bd]);
		building(sc, bd, loc, buf_str(&b));
		for (u = 0; u < BUILDERS_UNITS; u++) {
			if (s->uat[u] != bd)
				continue;
			buf_reset(&b);
			buf_addstr(&b, L(loc, "at work", "trabajando"));
			for (t = 0; t < BUILDERS_TOOLS; t++)
				if (s->tat[t] == u)
					buf_printf(&b, " + %s", builders_tools[t].name[loc]);
			unit(sc, s, u, loc, buf_str(&b));
		}
	}
	for (bd = n = 0; bd < BUILDERS_BUILDINGS; bd++)
		if (s->bown[bd] == seat && s->bplace[bd] == BP_DONE) {
			if (!n++)
				scene_row(sc, "%s", L(loc, "Completed (VP)", "Terminados (PV)"));
			scene_chip(sc, SCOL_GREEN, builders_buildings[bd].name[loc], "%d",
				   builders_buildings[bd].vp);
		}
	scene_end(sc);
	buf_release(&b);
}

static void final_scores(struct scene *sc, const struct builders_state *s,
			 const struct game_view *v, enum locale loc)
{
	struct game_result res;
	int r, i, k;

	builders_result(s, &res);
	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Final scoring", "Puntuación final"));
	scene_table(sc, 7, SCENE_EMPH);
	scene_cell(sc, "#");
	scene_cell(sc, "%s", L(loc, "Player", "Jugador"));
	scene_cell(sc, "%s", L(loc, "Score", "Puntos"));
	scene_cell(sc, "%s", L(loc, "VP", "PV"));
	scene_cell(sc, "%s", L(loc, "sesterces", "sestercios"));
	scene_cell(sc, "%s", L(loc, "slaves", "esclavos"));
	scene_cell(sc, "%s", L(loc, "loans", "préstamos"));
	for (k = 1; k <= s->nplayers; k++)
		for (i = 0; i < s->nplayers; i++) {
			const struct builders_player *p = &s->p[i];
			int sc10 = res.score[i], a = sc10 < 0 ? -sc10 : sc10;

			if (res.rank[i] != k)
				continue;
			scene_cell(sc, "%d", res.rank[i]);
			scene_cell(sc, "%s", game_view_name(v, i));
			scene_cell(sc, "%s%d%s%d", sc10 < 0 ? "-" : "", a / 10, loc == LOC_ES ? "," : ".",
				   a % 10);
			scene_cell(sc, "%d", p->vp);
			/* what the sesterces are worth, then how many (issue 25) */
			scene_cell(sc, "+%d%s%d (%d s)", p->money / 10, loc == LOC_ES ? "," : ".",
				   p->money % 10, p->money);
			r = builders_enslaved(s, i);
			scene_cell(sc, r ? "−%d" : "-", r);
			scene_cell(sc, p->loans ? "−%d" : "-", p->loans * BUILDERS_LOAN_PENALTY);
		}
	scene_end(sc);
}

static void public_scene(const struct builders_state *s, const struct game_view *v,
			 enum locale loc, struct scene *sc)
{
	int i, who = builders_decider(s);

	if (s->step >= BS_OVER)
		scene_title(sc, L(loc, "The Builders: Antiquity — game over after round %d",
				  "Los Constructores: Antigüedad — fin de la partida tras la ronda %d"),
			    s->round);
	else
		scene_title(sc, L(loc, "The Builders: Antiquity — round %d",
				  "Los Constructores: Antigüedad — ronda %d"), s->round);
	if (s->step == BS_FINAL) {
		scene_line(sc, SCENE_EMPH, L(loc, "Final scoring: %s decides.",
					     "Puntuación final: decide %s."), game_view_name(v, who));
	} else if (who >= 0) {
		struct buf b = BUF_INIT;

		builders_turn_text(s, loc, &b);
		scene_line(sc, SCENE_EMPH, L(loc, "Now: %s — %s.", "Ahora: %s — %s."),
			   game_view_name(v, who), buf_str(&b));
		buf_release(&b);
	}
	if (s->step < BS_OVER) {	/* the goal and the letters, as the text board */
		struct buf b = BUF_INIT;

		builders_legend_text(s, loc, &b);
		scene_line(sc, s->ending ? SCENE_EMPH : SCENE_NOTE, "%s", buf_str(&b));
		buf_release(&b);
	}
	rows(sc, s, loc);
	investments(sc, s, loc);
	for (i = 0; i < s->nplayers; i++) {
		int seat = s->first + i;

		if (seat >= s->nplayers)
			seat -= s->nplayers;
		seat_area(sc, s, seat, v, loc, SCENE_HALF);
	}
	if (s->step >= BS_OVER)
		final_scores(sc, s, v, loc);
}

static void private_scene(const struct builders_state *s, int seat, const struct game_view *v,
			  enum locale loc, struct scene *sc)
{
	struct buf b = BUF_INIT;

	scene_title(sc, L(loc, "The Builders: your area", "Los Constructores: tu zona"));
	scene_line(sc, SCENE_NOTE, "%s", L(loc, "Everything is open in this game except the order of the decks.",
					    "En este juego todo está a la vista salvo el orden de los mazos."));
	seat_area(sc, s, seat, v, loc, 0);
	builders_prompt(s, seat, loc, &b);
	scene_line(sc, SCENE_EMPH, "%s", buf_str(&b));
	buf_release(&b);
}

int builders_scene(const void *st, int seat, const struct game_view *v, struct scene *out)
{
	const struct builders_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);

	if (seat >= s->nplayers)
		return -1;
	if (seat < 0)
		public_scene(s, v, loc, out);
	else
		private_scene(s, seat, v, loc, out);
	return 0;
}
