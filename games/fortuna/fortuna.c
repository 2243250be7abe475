/*
 * fortuna.c: the rules of Fortuna (Rieneck & Stadler; Ludonova's Spanish
 * rulebook is the specification) as a state machine of small decisions.
 *
 * A round: every seat in turn order plays the 5 phases of a turn:
 *   1 Acueducto water (automatic),
 *   2 FS_CHOOSE a card -> FS_ACTION (execute or skip) -> FS_EXCHANGE,
 *   3 FS_MILITARY (give the top Centurión to execute a face-up own card),
 *   4 roll (automatic, in apply) -> FS_DIE -> FS_FAVOUR (deliver or tax),
 *     and with 2 players FS_FLIP for the first player,
 *   5 privileges (draw automatically, FS_KEEP when there is a choice), then
 *     the Palace draw of a seat that arrived this turn, then FS_END when a
 *     card was kept and a type A/B card may still be played.
 * At the end of the round tokens go on the unused favour cards, all favour
 * cards turn face up and the turn order is set again; the game ends after
 * the round in which somebody reached the Palace.
 *
 * Type A/B privilege cards are offered as FM_PRIV in every decision of
 * their owner's turn; a card "of choice" opens FS_RESOURCE, which then
 * returns to the decision it interrupted (res_ret).
 *
 * Every function that changes the state is only reached from apply() with
 * a move that moves() generated, so they assume legality.
 *
 * This file keeps the decisions (awaiting, and moves() and apply()
 * dispatching by step through their tables), settle() with the forced
 * decisions, the public small queries and the driver table; setup and the
 * phases live in files of their own, listed in fortuna_int.h with what
 * they share.
 */
#include <string.h>

#include "games/fortuna/fortuna_int.h"
#include "util/text.h"

int fortuna_find_card(const struct fortuna_state *s, int card, int *slot)
{
	return find_card(s, card, slot);
}

/* The setup steps and the end, out of line: the division of draft_pos()
 * would make every caller of decider_of() save registers.  FS_HIDE awaits
 * several seats; the first of them in turn order stands for them here. */
__attribute__((noinline, cold))
int fortuna_decider_rare(const struct fortuna_state *s)
{
	unsigned m;
	int i;

	switch (s->step) {
	case FS_OVER:
		return -1;
	case FS_DRAFT:
		return s->order[draft_pos(s->setup_k, s->nplayers)];
	case FS_HIDE:
		m = hide_pending(s);
		for (i = 0; i < s->nplayers; i++)
			if ((m >> s->order[i]) & 1)
				return s->order[i];
		return -1;
	default:
		return me(s);
	}
}

int fortuna_decider(const struct fortuna_state *s)
{
	return decider_of(s);
}

__attribute__((noinline, cold))
int fortuna_awaits_rare(const struct fortuna_state *s, int seat)
{
	if (s->step == FS_HIDE)
		return (unsigned)seat < s->nplayers && ((hide_pending(s) >> seat) & 1);
	return fortuna_decider_rare(s) == seat;
}

/* Says so when a gain of `want` coins brought only `got` (the cap). */
__attribute__((noinline, cold))
void fortuna_log_capped(struct game_log *log, int seat, int want, int got)
{
	if (got < want)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s reaches the 20-coin limit: %d of the %d coins are lost.",
					     "%s llega al límite de 20 monedas: se pierden %d de las %d monedas."),
			  NAME(log, seat), want - got, want);
}

/*
 * Log lines of the hot paths are written by cold functions of their own:
 * inline, their calls kept values alive across calls, and the hot function
 * saved and restored registers on every move, logged or not (playouts pass
 * no log).
 */
__attribute__((noinline, cold))
void fortuna_log_advance(struct game_log *log, int seat, int to, int arrival)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s advances to step %d.", "%s avanza a la casilla %d."),
		  NAME(log, seat), to);
	if (arrival)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s reaches Caesar's Palace (arrival %d): this is the last round.",
			    "%s llega al Palacio del César (llegada %d): es la última ronda."),
			  NAME(log, seat), arrival);
}

/*
 * One generator per step, reached through a table, each ending the list
 * itself: fortuna_moves() is then a few checks and a jump, and a generator
 * has only the registers and checks its own step needs (one function with
 * every step in a switch saved and restored them all on every call).
 */

/* Every step a seat decides in (all but FS_OVER). */
static int (*const step_moves[FS_OVER])(const struct fortuna_state *, int, struct move_list *) = {
	[FS_DRAFT] = fortuna_moves_draft,
	[FS_HIDE] = fortuna_moves_hide,
	[FS_CHOOSE] = fortuna_moves_choose,
	[FS_ACTION] = fortuna_moves_action,
	[FS_EXCHANGE] = fortuna_moves_exchange,
	[FS_MILITARY] = fortuna_moves_military,
	[FS_DIE] = fortuna_moves_die,
	[FS_FAVOUR] = fortuna_moves_favour,
	[FS_FLIP] = fortuna_moves_flip,
	[FS_KEEP] = fortuna_moves_keep,
	[FS_END] = fortuna_moves_end,
	[FS_RESOURCE] = fortuna_moves_resource,
};

int fortuna_moves(const void *st, int seat, struct move_list *out)
{
	const struct fortuna_state *s = st;
	int step = s->step;

	out->nmeta = 0;
	if ((unsigned)seat >= s->nplayers || step >= FS_OVER || !awaits(s, seat))
		return end_list(out, 0);
	return step_moves[step](s, seat, out);
}

__attribute__((noinline, cold))
static unsigned awaiting_rare(const struct fortuna_state *s)
{
	int seat;

	if (s->step == FS_HIDE)
		return hide_pending(s);
	seat = fortuna_decider_rare(s);
	return seat < 0 ? 0u : 1u << seat;
}

unsigned fortuna_awaiting(const void *st)
{
	const struct fortuna_state *s = st;

	if (__builtin_expect((unsigned)(s->step - FS_CHOOSE) < FS_OVER - FS_CHOOSE, 1))
		return 1u << me(s);	/* a turn's step, as in decider_of() */
	return awaiting_rare(s);
}

/* The answer to a move that is not one of the seat's moves now.  Kept out
 * of line, like fortuna_apply_priv(), so that the dispatch in fortuna_apply() saves
 * no registers. */
__attribute__((noinline, cold))
int fortuna_refuse(const struct fortuna_state *s, int seat, struct game_log *log, struct buf *err)
{
	enum locale loc = LOC(log);

	if (!err)	/* fortuna_settle(): its moves are listed ones */
		return -1;
	if (!awaits(s, seat))
		buf_setf(err, "%s", L(loc, "It is not your decision now.",
				      "Ahora no te toca decidir."));
	else
		buf_setf(err, "%s", L(loc, "That move is not possible now.",
				      "Esa jugada no es posible ahora."));
	return -1;
}

static int (*const step_apply[FS_OVER])(struct fortuna_state *, int, struct move,
					 struct game_log *, struct buf *) = {
	[FS_DRAFT] = fortuna_apply_draft,
	[FS_HIDE] = fortuna_apply_hide,
	[FS_CHOOSE] = fortuna_apply_choose,
	[FS_ACTION] = fortuna_apply_action,
	[FS_EXCHANGE] = fortuna_apply_exchange,
	[FS_MILITARY] = fortuna_apply_military,
	[FS_DIE] = fortuna_apply_die,
	[FS_FAVOUR] = fortuna_apply_favour,
	[FS_FLIP] = fortuna_apply_flip,
	[FS_KEEP] = fortuna_apply_keep,
	[FS_END] = fortuna_apply_end,
	[FS_RESOURCE] = fortuna_apply_resource,
};

/* The step's list, when it has a single move: the rare end of
 * forced_move(), whose list stays off the common path's stack. */
__attribute__((noinline))
static int only_move(const struct fortuna_state *s, int seat, struct move *m)
{
	struct move_list ml;

	if (step_moves[s->step](s, seat, &ml) != 1)
		return 0;
	*m = ml.v[0];
	return 1;
}

/* The decider's only move now, when there is exactly one and no privilege
 * card; 0 when there is a choice.  Cheap tests first, the list last. */
static int forced_move(const struct fortuna_state *s, int seat, struct move *m)
{
	unsigned r;

	if (seat < 0 || !hand_empty(s->p[seat].hand))
		return 0;
	switch (s->step) {
	case FS_DIE:
		r = rolled_values(s);
		if (!r || (r & (r - 1)))
			return 0;
		*m = (struct move){ FM_DIE, (uint16_t)__builtin_ctz(r), 0, 0 };
		return 1;
	case FS_END:
		/* its only move without a privilege card */
		*m = (struct move){ FM_SKIP, 0, 0, 0 };
		return 1;
	case FS_ACTION:
		if (action_usable(s, seat))
			return 0;
		break;
	case FS_FAVOUR:
		if (!favour_single(s, seat))
			return 0;
		break;
	case FS_DRAFT:
		break;
	default:
		return 0;
	}
	return only_move(s, seat, m);
}

__attribute__((noinline, cold))
static void log_forced(const struct fortuna_state *s, int seat, struct move m,
		       struct game_log *log)
{
	struct game_view v = { log->loc, s->nplayers, log->names };
	struct buf b = BUF_INIT;

	fortuna_move_label_view(s, seat, m, &v, &b);
	game_logf(log, LOG_PUBLIC, L(log->loc, "Automatic for %s (the only possible move): %s.",
				     "Automático para %s (la única jugada posible): %s."),
		  NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

/* Takes the decider's forced decision, if any.  The step it applies
 * settles the step it leads to (a forced die can lead to a forced tax).
 * A forced move is one of the listed moves: never refused. */
__attribute__((noinline))
void fortuna_settle(struct fortuna_state *s, struct game_log *log)
{
	struct move m;
	int seat;

	if (s->step >= FS_OVER)
		return;
	seat = decider_of(s);
	if (!forced_move(s, seat, &m))
		return;
	if (__builtin_expect(log != NULL, 0))
		log_forced(s, seat, m, log);
	step_apply[s->step](s, seat, m, log, NULL);
}

int fortuna_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct fortuna_state *s = st;

	if ((unsigned)seat >= s->nplayers || s->step >= FS_OVER || !awaits(s, seat) || m.c)
		return fortuna_refuse(s, seat, log, err);
	if (m.kind == FM_PRIV)
		return fortuna_apply_priv(s, seat, m, log, err);
	return step_apply[s->step](s, seat, m, log, err);
}

/* ---- the driver table ---- */

static const char *const fortuna_aliases[] = { NULL };

static const char *const fortuna_option_words[] = { "draft", NULL };

/* a player's turn within a round */
static unsigned fortuna_turn(const void *st)
{
	const struct fortuna_state *s = st;

	return (unsigned)s->round << 8 | s->turn;
}

/* ---- refusals that say why ---- */

/* Why the typed (folded) text cannot be played now, when it names a
 * building the Construction card cannot build or a marriage the seat cannot
 * pay (issue 25: refusals say why). */
static void fortuna_near_miss(const void *st, int seat, const char *text, enum locale loc,
			      struct buf *out)
{
	const struct fortuna_state *s = st;
	const struct fortuna_player *p;
	int b;

	if ((unsigned)seat >= s->nplayers || s->step != FS_ACTION || me(s) != seat)
		return;
	p = &s->p[seat];
	if (s->act_card == FA_FAMILY && !p->married && !strcmp(text, "marry") && p->money < 3) {
		buf_printf(out, L(loc, "Marrying costs 3 coins; you have %d.",
				  "Casarse cuesta 3 monedas; tienes %d."), p->money);
		return;
	}
	if (s->act_card != FA_BUILD || strncmp(text, "build ", 6))
		return;
	for (b = 0; b < FB_COUNT; b++) {
		struct buf id = BUF_INIT;
		int hit;

		text_fold(fortuna_buildings[b].id, &id);
		hit = !strncmp(buf_str(&id), text + 6, strlen(text + 6)) && text[6];
		buf_release(&id);
		if (!hit || can_build(s, seat, b))
			continue;
		if (has_building(s, seat, b))
			buf_printf(out, L(loc, "You have a %s already: one of each.",
					  "Ya tienes %s: uno de cada."), fortuna_buildings[b].name[loc]);
		else if (building_count(s, seat) >= 3)
			buf_addstr(out, L(loc, "You have 3 buildings, the most a player may have.",
					  "Tienes 3 edificios, el máximo por jugador."));
		else if (!s->bld_left[b])
			buf_printf(out, L(loc, "No %s is left to build.", "No queda ningún %s."),
				   fortuna_buildings[b].name[loc]);
		else if (p->money < fortuna_building_cost[b])
			buf_printf(out, L(loc, "The %s costs %d coins; you have %d.",
					  "%s cuesta %d monedas; tienes %d."), fortuna_buildings[b].name[loc],
				   fortuna_building_cost[b], p->money);
		else
			buf_printf(out, L(loc, "The %s needs you married first.",
					  "%s exige estar casado antes."), fortuna_buildings[b].name[loc]);
		return;
	}
}

const struct game_ops fortuna_ops = {
	.api_version = GAME_API_VERSION,
	.id = "fortuna",
	.aliases = fortuna_aliases,
	.near_miss = fortuna_near_miss,
	.name = { "Fortuna", "Fortuna" },
	.min_players = 2,
	.max_players = FORTUNA_MAX_PLAYERS,
	.state_size = sizeof(struct fortuna_state),
	.options_help = "draft: experienced players draft their starting action cards",
	.option_words = fortuna_option_words,
	.rules_version = 2,	/* issue 12: simultaneous reservation, automatic moves */
	/* a baseline playout of a whole 2-player game: about 1 ms (the
	 * baseline searches a few plies itself) */
	.search_iterations = 100,
	.setup = fortuna_setup,
	.awaiting = fortuna_awaiting,
	.moves = fortuna_moves,
	.move_id = fortuna_move_id,
	.move_label = fortuna_move_label,
	.move_label_view = fortuna_move_label_view,
	.apply = fortuna_apply,
	.prompt = fortuna_prompt,
	.render_public = fortuna_render_public,
	.render_private = fortuna_render_private,
	.scene = fortuna_scene,
	.save = fortuna_save,
	.load = fortuna_load,
	.result = fortuna_result,
	.bot_move = fortuna_bot_move,
	.determinize = fortuna_determinize,
	.check = fortuna_check,
	.turn = fortuna_turn,
	.secrets = fortuna_secrets,
	.rules = fortuna_rules,
	.card = fortuna_card,
	.card_names = fortuna_card_names,
};
