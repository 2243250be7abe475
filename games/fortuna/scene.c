/*
 * scene.c: Fortuna as a picture's display list (util/scene.h): the public
 * board and a player's province, from exactly what fortuna_render_public
 * and fortuna_render_private show, in the same words.
 *
 * The road to Rome is a track (Rome from step 10, the Palace at 15) with a
 * marker per pawn; each player's area holds their counters and the three
 * action cards on their side of the board (a face-down card is drawn as a
 * card's back, still named, since the table saw it; during the
 * reservation every card shows face up, as on the text board); then the
 * empty sides, the favour cards around Rome and the supply.  Privilege
 * cards held appear as counts only.
 *
 * Owns the picture's layout; must not decide a rule or show what the text
 * board does not.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"

static const enum scene_colour action_colour[FA_COUNT] = {
	[FA_WATER] = SCOL_BLUE, [FA_GRAIN] = SCOL_YELLOW, [FA_WINE] = SCOL_PURPLE,
	[FA_SELL_GRAIN] = SCOL_ORANGE, [FA_SELL_WINE] = SCOL_TEAL,
	[FA_CENTURIONS] = SCOL_RED, [FA_PRIESTESSES] = SCOL_PINK, [FA_CLERGY] = SCOL_WHITE,
	[FA_FAMILY] = SCOL_GREEN, [FA_BUILD] = SCOL_BROWN, [FA_CORRUPTION] = SCOL_BLACK,
	[FA_FORTUNA] = SCOL_GOLD,
};

static const enum scene_colour favour_colour[FF_COUNT] = {
	[FF_WATER] = SCOL_BLUE, [FF_WINE] = SCOL_PURPLE, [FF_GRAIN] = SCOL_YELLOW,
	[FF_BATTLE] = SCOL_RED, [FF_FORTUNA] = SCOL_GOLD, [FF_RELIGION] = SCOL_PINK,
};

/* Privilege cards by type: A resources, B a step, C points. */
static const enum scene_colour priv_colour[3] = { SCOL_TEAL, SCOL_GREEN, SCOL_GOLD };

static enum locale fix(enum locale loc)
{
	return loc < LOC_COUNT ? loc : LOC_EN;
}

static void action_card(struct scene *sc, const struct fortuna_state *s, int c, int down,
			enum locale loc)
{
	struct scene_item *it;

	if (c >= FA_COUNT) {
		it = scene_card(sc, SCOL_NONE, "-");
		it->flags |= SCENE_DIM;
		return;
	}
	it = scene_card(sc, action_colour[c], fortuna_actions[c].name[loc]);
	scene_set_sub(it, "%s", fortuna_actions[c].effect[loc]);
	if (down) {
		it->flags |= SCENE_DOWN;
		scene_set_alt(it, "[%s]", fortuna_actions[c].name[loc]);
	} else {
		scene_set_alt(it, "%s", fortuna_actions[c].name[loc]);
	}
	(void)s;
}

/* A side's three cards, as the text board's table shows them. */
static void side_cards(struct scene *sc, const struct fortuna_state *s, int side,
		       enum locale loc)
{
	int u;

	for (u = 0; u < FORTUNA_SLOTS; u++) {
		int c = s->side_card[side][u];

		action_card(sc, s, c == FORTUNA_NO_CARD ? FA_COUNT : c,
			    c != FORTUNA_NO_CARD && s->side_down[side][u] && s->step != FS_HIDE, loc);
	}
}

static void priv_card(struct scene *sc, int k, int count, enum locale loc, int quoted)
{
	struct buf b = BUF_INIT;
	struct scene_item *it;
	int type = fortuna_privs[k].type <= FPT_C ? fortuna_privs[k].type : FPT_C;

	if (quoted)
		buf_addstr(&b, fortuna_privs[k].name[loc]);
	else
		fortuna_priv_plain(k, loc, &b);
	it = scene_card(sc, priv_colour[type], buf_str(&b));
	scene_set_band(it, "%s", type == FPT_A ? "A" : type == FPT_B ? "B" : "C");
	it->count = (int16_t)count;
	scene_set_alt(it, "%s", buf_str(&b));
	buf_release(&b);
}

static void player_area(struct scene *sc, const struct fortuna_state *s, int i,
			const struct game_view *v, enum locale loc)
{
	int seat = s->order[i], k, np = 0, who = fortuna_decider(s);
	const struct fortuna_player *p = &s->p[seat];
	unsigned active = s->step == FS_HIDE ? (fortuna_awaiting(s) >> seat) & 1
					     : (unsigned)(who == seat && s->step != FS_OVER);

	scene_area(sc, SCOL_SEAT + seat, SCENE_HALF | (active ? SCENE_ACTIVE : 0), "%d. %s%s",
		   i + 1, game_view_name(v, seat), active ? " \xe2\x97\x80" : "");
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_GOLD, L(loc, "Coins", "Monedas"), "%d", p->money);
	if ((p->buildings >> FB_AQUEDUCT) & 1)
		scene_chip(sc, SCOL_BLUE, L(loc, "Water", "Agua"), "%d+%d", p->water, p->aq_water);
	else
		scene_chip(sc, SCOL_BLUE, L(loc, "Water", "Agua"), "%d", p->water);
	scene_chip(sc, SCOL_YELLOW, L(loc, "Grain", "Grano"), "%d", p->grain);
	scene_chip(sc, SCOL_PURPLE, L(loc, "Wine", "Vino"), "%d", p->wine);
	scene_chip(sc, SCOL_PINK, L(loc, "Priestesses", "Sacerdotisas"), "%d", p->priest);
	scene_chip(sc, SCOL_RED, L(loc, "Centurions", "Centuriones"), "%d", p->cent);
	scene_chip(sc, SCOL_WHITE, L(loc, "Dice", "Dados"), "%d", p->dice);
	for (k = 0; k < FP_COUNT; k++)
		np += p->hand[k];
	scene_chip(sc, SCOL_BLACK, L(loc, "Privilege cards", "Cartas de privilegio"), "%d", np);
	if (p->married)
		scene_chip(sc, SCOL_GREEN, L(loc, "Married", "Casado"), "%s", "");
	for (k = 0; k < FB_COUNT; k++)
		if ((p->buildings >> k) & 1)
			scene_chip(sc, SCOL_BROWN, fortuna_buildings[k].name[loc], "%s", "");
	scene_row(sc, "%s", L(loc, "Action cards", "Cartas de acción"));
	side_cards(sc, s, seat, loc);
	scene_end(sc);
}

static void final_scores(struct scene *sc, const struct fortuna_state *s,
			 const struct game_view *v, enum locale loc)
{
	struct game_result res;
	int i, k, r, rows[FORTUNA_MAX_PLAYERS];

	fortuna_result(s, &res);
	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Final scoring", "Puntuación final"));
	scene_table(sc, 6, SCENE_EMPH);
	scene_cell(sc, "%s", L(loc, "Rank", "Puesto"));
	scene_cell(sc, "%s", L(loc, "Player", "Jugador"));
	scene_cell(sc, "%s", L(loc, "Steps", "Pasos"));
	scene_cell(sc, "%s", L(loc, "Privileges", "Privilegios"));
	scene_cell(sc, "%s", L(loc, "Total", "Total"));
	scene_cell(sc, "%s", L(loc, "In Rome", "En Roma"));
	for (r = 0, k = 1; k <= s->nplayers; k++)
		for (i = 0; i < s->nplayers; i++)
			if (res.rank[i] == k)
				rows[r++] = i;
	for (r = 0; r < s->nplayers; r++) {
		i = rows[r];
		scene_cell(sc, "%d", res.rank[i]);
		scene_cell(sc, "%s", game_view_name(v, i));
		scene_cell(sc, "%d", s->p[i].steps);
		if (res.eligible[i])
			scene_cell(sc, "%d", fortuna_priv_points(s, i));
		else
			scene_cell(sc, "-");
		scene_cell(sc, "%d", res.score[i]);
		scene_cell(sc, "%s", res.eligible[i] ? L(loc, "yes", "sí")
					      : L(loc, "no (cannot win)", "no (no puede ganar)"));
	}
	for (i = 0; i < s->nplayers; i++) {
		int any = 0;

		for (k = 0; k < FP_COUNT; k++)
			if (s->p[i].hand[k]) {
				if (!any++)
					scene_row(sc, L(loc, "%s's privilege cards",
							"Cartas de privilegio de %s"),
						  game_view_name(v, i));
				priv_card(sc, k, s->p[i].hand[k], loc, 1);
			}
	}
	if (!res.winners)
		scene_line(sc, SCENE_EMPH, "%s", L(loc, "Nobody entered Rome: nobody wins.",
						   "Nadie ha entrado en Roma: nadie gana."));
	scene_end(sc);
}

static void public_scene(const struct fortuna_state *s, const struct game_view *v,
			 enum locale loc, struct scene *sc)
{
	struct buf b = BUF_INIT;
	int i, who = fortuna_decider(s), nd = 0, side, c;

	if (s->step == FS_OVER)
		scene_title(sc, L(loc, "Fortuna: game over after round %d",
				  "Fortuna: fin de la partida tras la ronda %d"), s->round);
	else
		scene_title(sc, L(loc, "Fortuna: round %d", "Fortuna: ronda %d"), s->round);
	if (s->step == FS_HIDE) {
		unsigned aw = fortuna_awaiting(s);

		for (i = 0; i < s->nplayers; i++)
			if ((aw >> s->order[i]) & 1)
				buf_printf(&b, "%s%s", b.len ? ", " : "",
					   game_view_name(v, s->order[i]));
		scene_line(sc, SCENE_EMPH, L(loc, "Now: %s (still choosing; %s).",
					     "Ahora: %s (aún eligen; %s)."),
			   buf_str(&b), fortuna_phase_name(s, loc));
	} else if (who >= 0) {
		scene_line(sc, SCENE_EMPH, L(loc, "Now: %s (%s).", "Ahora: %s (%s)."),
			   game_view_name(v, who), fortuna_phase_name(s, loc));
	}
	if (s->ending && s->step != FS_OVER)
		scene_line(sc, SCENE_EMPH, "%s",
			   L(loc, "Somebody reached Caesar's Palace: this is the last round.",
			     "Alguien ha llegado al Palacio del César: es la última ronda."));
	buf_reset(&b);
	if (fortuna_holder_text(s, v, loc, &b))
		scene_line(sc, 0, "%s", buf_str(&b));

	scene_track(sc, 0, FORTUNA_PALACE, "%s", L(loc, "Road", "Camino"));
	scene_zone(sc, FORTUNA_ROME, FORTUNA_PALACE - 1, SCOL_GOLD, "%s", L(loc, "Rome", "Roma"));
	scene_zone(sc, FORTUNA_PALACE, FORTUNA_PALACE, SCOL_PURPLE, "%s",
		   L(loc, "Palace", "Palacio"));
	for (i = 0; i < s->nplayers; i++) {
		int seat = s->order[i];
		char ini[8];

		buf_reset(&b);
		fortuna_road_text(&s->p[seat], loc, &b);
		scene_initial(game_view_name(v, seat), ini);
		buf_printf(&b, " %s", game_view_name(v, seat));
		scene_mark(sc, s->p[seat].steps, SCOL_SEAT + seat, ini, buf_str(&b));
	}

	for (i = 0; i < s->nplayers; i++)
		player_area(sc, s, i, v, loc);
	if (s->nplayers < FORTUNA_SIDES) {
		scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Action cards on the empty sides",
						     "Cartas de acción en los lados vacíos"));
		for (side = s->nplayers; side < FORTUNA_SIDES; side++) {
			scene_row(sc, L(loc, "side %d (empty)", "lado %d (vacío)"), side + 1);
			side_cards(sc, s, side, loc);
		}
		scene_end(sc);
	}

	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Favour cards", "Cartas de favor"));
	scene_row(sc, "%s", "");
	for (c = 0; c < FF_COUNT; c++) {
		struct scene_item *it = scene_card(sc, favour_colour[c], fortuna_favours[c].name[loc]);

		scene_set_corner(it, "%d", c + 1);
		scene_set_sub(it, L(loc, "%s · tokens: %d", "%s · fichas: %d"),
			      s->fav_up[c] ? L(loc, "up", "arriba") : L(loc, "used", "usada"),
			      s->fav_tokens[c]);
		scene_set_alt(it, "%d %s", c + 1, fortuna_favours[c].name[loc]);
		if (!s->fav_up[c])
			it->flags |= SCENE_DIM;
	}
	scene_end(sc);

	scene_area(sc, SCOL_NONE, 0, "%s", L(loc, "Supply", "Reserva"));
	scene_row(sc, "%s", "");
	scene_chip(sc, SCOL_BLUE, L(loc, "water", "agua"), "%d", s->sup_water);
	scene_chip(sc, SCOL_YELLOW, L(loc, "grain", "grano"), "%d", s->sup_grain);
	scene_chip(sc, SCOL_PURPLE, L(loc, "wine", "vino"), "%d", s->sup_wine);
	scene_chip(sc, SCOL_PINK, L(loc, "Priestesses", "Sacerdotisas"), "%d", s->sup_priest);
	scene_chip(sc, SCOL_RED, L(loc, "Centurions", "Centuriones"), "%d", s->sup_cent);
	scene_chip(sc, SCOL_WHITE, L(loc, "dice", "dados"), "%d", s->sup_dice);
	scene_row(sc, "%s", L(loc, "Buildings left", "Edificios"));
	for (c = 0; c < FB_COUNT; c++)
		scene_chip(sc, SCOL_BROWN, fortuna_buildings[c].name[loc], "%d", s->bld_left[c]);
	for (i = 0; i < FP_COUNT; i++)
		nd += s->discard[i];
	scene_row(sc, "%s", L(loc, "Privileges", "Privilegios"));
	scene_chip(sc, SCOL_GOLD, L(loc, "tokens in reserve", "fichas en reserva"), "%d",
		   s->token_reserve);
	scene_chip(sc, SCOL_GOLD, L(loc, "tokens above the Palace", "fichas sobre el Palacio"), "%d",
		   s->token_palace);
	scene_chip(sc, SCOL_BLACK, L(loc, "cards in the deck", "cartas en el mazo"), "%d", s->ndeck);
	scene_chip(sc, SCOL_NONE, L(loc, "discarded", "descartadas"), "%d", nd);
	if (s->token_turn)
		scene_chip(sc, SCOL_GOLD, L(loc, "Tokens won this turn", "Fichas ganadas este turno"),
			   "%d", s->token_turn)->flags |= SCENE_MARKED;
	if (nd) {
		/* discarded face up beside the deck: public, named plainly */
		scene_row(sc, "%s", L(loc, "Discarded face up", "Descartadas boca arriba"));
		for (i = 0; i < FP_COUNT; i++)
			if (s->discard[i])
				priv_card(sc, i, s->discard[i], loc, 0);
	}
	if (s->npalace && s->step == FS_OVER) {
		/* the end reveals what lay face down */
		scene_row(sc, "%s", L(loc, "Left face down at the Palace", "Boca abajo en el Palacio"));
		for (i = 0; i < s->npalace; i++)
			priv_card(sc, s->palace_cards[i], 1, loc, 1);
	} else if (s->npalace) {
		scene_row(sc, "%s", L(loc, "Left face down at the Palace", "Boca abajo en el Palacio"));
		scene_card(sc, SCOL_NONE, "")->flags |= SCENE_DOWN;
		sc->v[sc->n - 1].count = s->npalace;
	}
	if (s->last_seat < s->nplayers) {
		buf_reset(&b);
		for (i = 0; i < s->last_nroll && i < 3; i++)
			buf_printf(&b, "%s%d", i ? " " : "", s->last_roll[i]);
		if (s->last_die)
			scene_line(sc, 0, L(loc, "Last roll: %s rolled %s and chose %d.",
					    "Última tirada: %s sacó %s y eligió el %d."),
				   game_view_name(v, s->last_seat), buf_str(&b), s->last_die);
		else
			scene_line(sc, 0, L(loc, "Last roll: %s rolled %s.", "Última tirada: %s sacó %s."),
				   game_view_name(v, s->last_seat), buf_str(&b));
	}
	scene_end(sc);
	if (s->step == FS_OVER)
		final_scores(sc, s, v, loc);
	buf_release(&b);
}

static void private_scene(const struct fortuna_state *s, int seat, const struct game_view *v,
			  enum locale loc, struct scene *sc)
{
	struct buf b = BUF_INIT;
	int k, u, i, any = 0;

	scene_title(sc, "%s", L(loc, "Fortuna: your province", "Fortuna: tu provincia"));
	for (u = 0; u < FORTUNA_SLOTS; u++)
		if (s->side_down[seat][u] && s->side_card[seat][u] < FA_COUNT) {
			scene_row(sc, "%s", s->step == FS_HIDE
				  ? L(loc, "You reserve (it turns face down when everybody has chosen)",
				      "Reservas (se pone boca abajo cuando todos hayan elegido)")
				  : L(loc, "Your face-down action card", "Tu carta de acción boca abajo"));
			action_card(sc, s, s->side_card[seat][u], 0, loc);
		}
	scene_row(sc, "%s", L(loc, "Your privilege cards", "Tus cartas de privilegio"));
	for (k = 0; k < FP_COUNT; k++)
		if (s->p[seat].hand[k]) {
			priv_card(sc, k, s->p[seat].hand[k], loc, 1);
			any = 1;
		}
	if (!any)
		scene_chip(sc, SCOL_NONE, L(loc, "none", "ninguna"), "%s", "");
	if (fortuna_decider(s) == seat && s->step == FS_KEEP) {
		scene_row(sc, L(loc, "To choose from (keep %d)", "Para elegir (te quedas %d)"),
			  s->keep_left);
		for (i = 0; i < s->ndrawn; i++)
			priv_card(sc, s->drawn[i], 1, loc, 1);
	}
	fortuna_prompt(s, seat, loc, &b);
	scene_line(sc, SCENE_EMPH, "%s", buf_str(&b));
	buf_release(&b);
	(void)v;
}

int fortuna_scene(const void *st, int seat, const struct game_view *v, struct scene *out)
{
	const struct fortuna_state *s = st;
	enum locale loc = fix(v ? v->loc : LOC_EN);

	if (seat >= s->nplayers)
		return -1;
	if (seat < 0)
		public_scene(s, v, loc, out);
	else
		private_scene(s, seat, v, loc, out);
	return 0;
}
