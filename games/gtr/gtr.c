/*
 * gtr.c: the rules of Glory to Rome ("Gloria a Roma", Carl Chudyk; the
 * Spanish HomoLudicus rulebook is the specification) as a state machine of
 * small decisions.  This file is the way in: the decisions themselves and
 * the units that start every turn; the rulebook's other chapters have a
 * file each (gtr_int.h lists them and what each calls in the others).
 *
 * Owns gtr_awaiting(), gtr_moves() and gtr_apply(): who is asked, the move
 * list, the legality check, and the dispatch of each step to the chapter
 * that owns it; lead and follow (units, petitions, Palacio's extra units);
 * the driver table gtr_ops; and the rulings below, for the whole module.
 * Must not: hold another chapter's rules (its cases for their steps only
 * dispatch), or format anything but log lines.
 *
 * A turn:
 *   GP_LEAD    the leader: `lead <role>` -> GS_UNIT (the card, Senador or
 *              petition; with Palacio more units until `done`), or Think.
 *   GP_FOLLOW  each other seat clockwise: `follow` -> GS_UNIT, or Think.
 *   GP_ACTIONS the leader, then clockwise, performs actions: a stack of
 *              frames, the bottom one the turn's own actions of the led role
 *              (units + clients, counted live so that a building completed
 *              mid-turn acts at once), above it frames earned on the way
 *              (Escuela, Fundición, Anfiteatro, Jardín, Termas, Prisión).
 *              Each action is GS_ACTION (plus GS_MATERIAL to pick the
 *              material, GS_FOUNTAIN for Fuente's card); all Legionary
 *              actions of a frame are one demand (GS_LEGION, GS_COLISEUM).
 *   GP_SENATE, GP_SEWER  end of turn; then played cards go to the pool and
 *              Senadores to their pile;
 *   GP_ACADEMY after the turn: Academia thinks; the leader token passes left.
 * A Think (GS_LEAD, GS_FOLLOW, Escuela, Academia) asks Vomitorium, then
 * Letrinas, before it draws.  An end condition stops the game at once:
 * every continuation (flow.c) starts with over_now().
 *
 * Every function that changes the state is reached only from apply() with a
 * move that moves() listed, so they assume legality.
 *
 * ---- Rulings (the seed and guide/rulings.md leave these open) ----
 *  1. Sites: in town = players per material (3 with 2 players), the rest out
 *     of town.  `quick` (the example game): in town 2 with 2-3 players, 3
 *     with 4-5; the rest out of town.  Out of town only once the town has
 *     no site of that material ("cuando se han agotado ... en la ciudad").
 *  2. Setup leader draw: each seat draws; the first Spanish name (accents
 *     and case ignored) leads; only the seats tied on it draw again; every
 *     drawn card starts the pool.  `experienced`: each seat picks one of its
 *     5 cards secretly (all seats are asked at once); ties draw as above.
 *     The draw is recorded (draw_seat/draw_card) for the intro op and the
 *     first turn's board: every player saw it.
 *  3. Concession: `concede` is offered in a seat's lead/follow decision.  A
 *     conceding seat keeps playing; when all seats but one have conceded,
 *     the game ends and that one wins outright ("gana sin necesidad de
 *     contar los Puntos de Victoria").  Uniformly random play picks it
 *     often; the bot never does.
 *  4. A Think is chosen first (`think draw` / `think jack`), then
 *     Vomitorium and Letrinas are asked, then the Think is done: "draw"
 *     draws up to the Think target after the discards (1 card when at or
 *     above it), or what the deck still has; the last card drawn ends the
 *     game at once.
 *  5. Units: a Senador, a card of the role (with Circo any card for
 *     Architect), or a petition of 2 (3 with `original-circus`, 2 there with
 *     Circo) cards of one role, any role, chosen one by one.  Palacio: more
 *     units until `done`.
 *  6. Laborer, Patron, Merchant and the Architect's stockpile/pool
 *     materials are chosen by material / role, not by card name: there only
 *     the material counts, and the engine moves the first card of that
 *     material in table order.  Hand cards are chosen by name.
 *  7. Each action may be declined: `skip` at the start of an action
 *     declines the frame's remaining actions (skipping changes nothing, so
 *     the next one would offer the same), `done` ends a multi-part action
 *     (Patron, Laborer, Merchant).  An action with nothing possible is
 *     skipped without asking.
 *  8. Patron with Taberna: pool then deck, or deck only ("una vez cogido el
 *     Cliente del Mazo no puedes coger otro de la Reserva"); with Acueducto
 *     one more from hand, in any order.  Merchant: stockpile or (Atrio)
 *     deck, plus (Basílica) one from hand.  Laborer: pool plus (Muelle) one
 *     from hand.  Each part needs room (clientele / vault limit).
 *  9. Legionary: all demanded cards are shown at once (GS_LEGION); then,
 *     per demanded card, the Legionary may take a match from the pool
 *     (GS_LEGION_POOL, "puedes coger"); then the victims give
 *     (GS_GIVE, all victims at once: nothing one gives touches another).
 *     A victim gives per demanded card one matching hand card; holding
 *     more matching cards than it gives, it chooses which (even when they
 *     share a name: asking only then would tell the table that they
 *     differ); otherwise it gives them at once, unasked.  Puente's
 *     stockpile card goes at once (stockpile names never matter).  A
 *     protected victim (Empalizada, Muralla) is asked whether it gives
 *     anyway ("Aun así, puedes decidir entregarle cartas"), up to what an
 *     unprotected one would give, unless its empty hand and stockpile
 *     show it has nothing; the log names the material only.  Coliseo,
 *     after the gifts: per demand, one client of that role from each
 *     unprotected victim, chosen by the Legionary (`coliseum <role> from
 *     player <n>`), while the vault has room.  Victims: neighbours with
 *     4-5 players, all opponents with 2-3 players or Puente.
 * 10. Termas: the hired client's action, and the bonus actions of buildings
 *     completed during an action (Escuela, Fundición, Anfiteatro, Jardín,
 *     Prisión), are performed right after that action, before the rest of
 *     the turn's actions.  At most GTR_MAX_FRAMES nested frames and
 *     GTR_MAX_PEND earned within one action (never reached in practice);
 *     beyond, the bonus is lost.
 * 11. Out of town: the foundation spends two actions of the same frame
 *     (consecutive by construction); with Torre one.  Fuente's card placed
 *     out of town likewise spends a second action.
 * 12. Escalinata uses one Architect action on a completed, not yet public
 *     building of an opponent; the material must suit the building as for
 *     the player's own structures (Torre, Calzada, Biblioteca apply), from
 *     the stockpile (or the pool with Arco).  A public building's function
 *     serves everybody, also for scoring (a public Estatua or Muralla counts
 *     for all).
 * 13. Prisión: the stolen building keeps its materials and public flag; no
 *     completion effect fires on theft.  Stealing is optional.
 * 14. Clientele limit = (influence + 2 with Ínsula) x 2 with Acueducto.
 * 15. Foro: checked after every move for every seat with its function;
 *     several at once: higher score, then more cards in hand, then the
 *     first in turn order from the leader.
 * 16. End of turn order: Senado (turn order from the leader; `take <k>
 *     senators`, from the other seats' camps clockwise), Alcantarillado
 *     (`sewer <card>` one by one), played cards to the pool / Senadores to
 *     the pile, Academia (turn order from the leader, once per turn).
 * 17. `nofunctions`: no building function at all, including Estatua's any
 *     site and 3 VP, Villa's one-material completion, Catacumbas and Foro.
 * 18. When the deck runs out during Fuente the card drawn stays in hand.
 * 19. GS_MATERIAL: when only one material source fits, it is used without
 *     asking; otherwise `back` returns to the action.
 * 20. Vault contents are shown to nobody, their owner included, until the
 *     end; the count and the materials sold from the stockpile are public
 *     ("deben mostrarse antes de colocarlas").
 * 21. Stockpile cards show their material only ("de modo que solo se vea
 *     el nombre del material"): a hand card put there (Muelle, Legionary)
 *     is logged by its material.
 */
#include "games/gtr/gtr_int.h"

/* ---- units (lead / follow) ---- */

int gtr_petition_need(const struct gtr_state *s, int seat)
{
	if (s->opts & GO_ORIGINAL_CIRCUS)
		return gtr_has(s, seat, GC_CIRCUS) ? 2 : 3;
	return 2;
}

static int unit_card_ok(const struct gtr_state *s, int seat, int role, int c)
{
	if (c >= GC_COUNT || !s->p[seat].hand[c])
		return 0;
	if (gtr_cards[c].material == role)
		return 1;
	return role == GR_ARCHITECT && !(s->opts & GO_ORIGINAL_CIRCUS) &&
	       gtr_has(s, seat, GC_CIRCUS);
}

/* Bit m per material m of which seat holds at least need cards. */
static unsigned hand_at_least(const struct gtr_state *s, int seat, int need)
{
	uint64_t x = load8(s->p[seat].hcount) & HAND_MATERIALS;

	if (need > 0x7f)
		return 0;	/* more than a hand can hold */
	/* a byte reaches need when adding 128 - need sets its high bit (the
	 * counts are below 128: 144 cards in all) */
	x = (x + (uint64_t)(0x80 - need) * 0x0000010101010101ULL) & 0x0000808080808080ULL;
	return nonzero_bytes(x);
}

static int can_petition(const struct gtr_state *s, int seat)
{
	return hand_at_least(s, seat, gtr_petition_need(s, seat)) != 0;
}

static int can_unit(const struct gtr_state *s, int seat, int role)
{
	if (s->p[seat].hand[GTR_JACK])
		return 1;
	if (role == GR_ARCHITECT && !(s->opts & GO_ORIGINAL_CIRCUS) &&
	    gtr_has(s, seat, GC_CIRCUS) && (load8(s->p[seat].hcount) & HAND_MATERIALS))
		return 1;
	if (role < GR_COUNT && s->p[seat].hcount[role])
		return 1;
	return can_petition(s, seat);
}

static void after_units(struct gtr_state *s, struct game_log *log)
{
	if (s->phase == GP_LEAD) {
		s->phase = GP_FOLLOW;
		s->cursor = 1;
	} else {
		s->cursor++;
	}
	gtr_follow_next(s, log);
}

static void unit_played(struct gtr_state *s, int seat, struct game_log *log)
{
	s->p[seat].units++;
	s->p[seat].acted = 1;
	if (gtr_has(s, seat, GC_PALACE) && can_unit(s, seat, s->led)) {
		s->step = GS_UNIT;
		return;
	}
	after_units(s, log);
}

static void log_unit(struct gtr_state *s, int seat, const char *what, struct game_log *log)
{
	enum locale loc = LOC(log);

	if (!log)
		return;
	if (s->p[seat].units > 0)
		game_logf(log, LOG_PUBLIC, L(loc, "%s adds %s.", "%s añade %s."),
			  NAME(log, seat), what);
	else if (s->phase == GP_LEAD)
		game_logf(log, LOG_PUBLIC, L(loc, "%s leads %s with %s.", "%s lidera %s con %s."),
			  NAME(log, seat), RNAME(log, s->led), what);
	else
		game_logf(log, LOG_PUBLIC, L(loc, "%s follows with %s.", "%s sigue con %s."),
			  NAME(log, seat), what);
}

/* Only with a log: formatting needs a buffer, kept off the playout path. */
static __attribute__((noinline, cold)) void log_petition(struct gtr_state *s, int seat,
							  struct game_log *log)
{
	enum locale loc = LOC(log);
	struct buf b = BUF_INIT;

	buf_printf(&b, L(loc, "a petition of %d %s cards", "una petición de %d cartas de %s"),
		   s->pet_have, RNAME(log, s->pet_role));
	log_unit(s, seat, buf_str(&b), log);
	buf_release(&b);
}

/* ---- the decisions ---- */

/* gtr_awaiting, inlined where moves and apply ask it. */
static inline unsigned awaiting_of(const struct gtr_state *s)
{
	unsigned mask = 0;
	int i;

	if (s->step != GS_PICK && s->step != GS_GIVE && s->step != GS_OVER &&
	    s->phase != GP_OVER && s->decider < s->nplayers)
		return 1u << s->decider;	/* the usual case, tested first */
	if (s->step == GS_OVER || s->phase == GP_OVER)
		return 0;
	if (s->step == GS_GIVE)	/* the Legionary's victims, all at once */
		return s->gift & ((1u << s->nplayers) - 1);
	if (s->step == GS_PICK) {
		for (i = 0; i < s->nplayers; i++)
			if (!s->p[i].pick)
				mask |= 1u << i;
		return mask;
	}
	if (s->decider >= s->nplayers)
		return 0;
	return 1u << s->decider;
}

/* (awaiting_of(s) >> seat) & 1 for a seat in 0..nplayers-1. */
static inline int awaited(const struct gtr_state *s, int seat)
{
	if (s->step == GS_PICK)
		return s->phase != GP_OVER && !s->p[seat].pick;
	if (s->step == GS_GIVE)
		return (s->gift >> seat) & 1;
	return seat == s->decider && s->step != GS_OVER && s->phase != GP_OVER;
}

/*
 * The steps a random playout rarely reaches, out of line so that gtr_moves
 * itself stays small (fewer callee-saved registers, a smaller jump table).
 */
static __attribute__((noinline, cold)) void moves_rare(const struct gtr_state *s, int seat,
						       struct move_list *out)
{
	switch (s->step) {
	case GS_PICK:
		gtr_pick_moves(s, seat, out);
		break;
	case GS_VOMIT:
		gtr_vomit_moves(s, seat, out);
		break;
	case GS_LATRINE:
		gtr_latrine_moves(s, seat, out);
		break;
	case GS_THINK:
		gtr_think_moves(s, seat, out);
		break;
	case GS_MATERIAL:
		gtr_material_moves(s, seat, out);
		break;
	case GS_FOUNTAIN:
		gtr_fountain_moves(s, seat, out);
		break;
	case GS_LEGION_POOL:
		gtr_legion_pool_moves(s, seat, out);
		break;
	case GS_GIVE:
		gtr_give_moves(s, seat, out);
		break;
	case GS_COLISEUM:
		gtr_coliseum_moves(s, seat, out);
		break;
	case GS_PRISON:
		gtr_prison_moves(s, seat, out);
		break;
	case GS_SENATE:
		gtr_senate_moves(s, seat, out);
		break;
	case GS_SEWER:
		gtr_sewer_moves(s, seat, out);
		break;
	default:
		break;
	}
}

int gtr_moves(const void *st, int seat, struct move_list *out)
{
	const struct gtr_state *s = st;
	const struct gtr_player *p;
	int c, m, r, need;

	out->n = 0;
	out->nmeta = 0;
	if (seat < 0 || seat >= s->nplayers || !awaited(s, seat))
		return 0;
	p = &s->p[seat];
	switch (s->step) {
	case GS_LEAD: {
		/* can_unit per role, its role-free parts once */
		unsigned roles = (1u << GR_COUNT) - 1;

		if (!p->hand[GTR_JACK] && !can_petition(s, seat)) {
			/* the roles of the cards held (Architect with Circo) */
			roles = nonzero_bytes(load8(p->hcount) & HAND_MATERIALS);
			if (roles && !(s->opts & GO_ORIGINAL_CIRCUS) && gtr_has(s, seat, GC_CIRCUS))
				roles |= 1u << GR_ARCHITECT;
		}
		while (roles) {
			r = __builtin_ctz(roles);
			roles &= roles - 1;
			add(out, GK_LEAD, r, 0, 0);
		}
		think_moves(s, out);
		if (!p->conceded) {	/* last: a meta decision (game.h) */
			add(out, GK_CONCEDE, 0, 0, 0);
			out->nmeta = 1;
		}
		break;
	}
	case GS_FOLLOW:
		if (can_unit(s, seat, s->led))
			add(out, GK_FOLLOW, 0, 0, 0);
		think_moves(s, out);
		if (!p->conceded) {	/* last: a meta decision (game.h) */
			add(out, GK_CONCEDE, 0, 0, 0);
			out->nmeta = 1;
		}
		break;
	case GS_UNIT:
		/* unit_card_ok: any card with Circo as an Architect, else the
		 * cards of the role's material */
		if (s->led == GR_ARCHITECT && !(s->opts & GO_ORIGINAL_CIRCUS) &&
		    gtr_has(s, seat, GC_CIRCUS)) {
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					add(out, GK_PLAY, c, 0, 0);
		} else if (s->led < GM_COUNT) {
			uint64_t names = held_names(p->hand, s->led);

			while (names)
				add(out, GK_PLAY, next_bit(&names), 0, 0);
		}
		if (p->hand[GTR_JACK])
			add(out, GK_PLAY, GTR_JACK, 0, 0);
		if (can_petition(s, seat))
			add(out, GK_PETITION, 0, 0, 0);
		if (p->units)
			add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_PETITION:
		need = s->pet_need;
		/* by material (names are grouped by material, in order) */
		if (s->pet_role == GTR_NONE) {
			uint64_t names = 0;
			unsigned mats = hand_at_least(s, seat, need);

			while (mats) {
				m = __builtin_ctz(mats);
				mats &= mats - 1;
				names |= held_names(p->hand, m);
			}
			while (names)
				add(out, GK_PETITION_CARD, next_bit(&names), 0, 0);
		} else if (s->pet_role < GM_COUNT) {
			uint64_t names = held_names(p->hand, s->pet_role);

			while (names)
				add(out, GK_PETITION_CARD, next_bit(&names), 0, 0);
		}
		break;
	case GS_ACTION:
		gtr_action_moves(s, seat, out);
		break;
	case GS_LEGION:
		gtr_legion_moves(s, seat, out);
		break;
	default:
		moves_rare(s, seat, out);
		break;
	}
	return out->n;
}

unsigned gtr_awaiting(const void *st)
{
	return awaiting_of(st);
}

/* ---- applying ---- */

static int same_move(struct move a, struct move b)
{
	return a.kind == b.kind && a.a == b.a && a.b == b.b && a.c == b.c;
}

/* m is one of moves(s, seat), by listing them. */
/* Only for the steps play() has no direct check for: rare in playouts. */
static __attribute__((noinline, cold)) int listed(const struct gtr_state *s, int seat,
						  struct move m)
{
	struct move_list ml;
	int i;

	gtr_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++)
		if (same_move(ml.v[i], m))
			return 1;
	return 0;
}

static int is_think(const struct gtr_state *s, struct move m)
{
	return m.kind == GK_THINK && m.b == 0 && m.c == 0 &&
	       (m.a == GTR_THINK_DRAW || (m.a == GTR_THINK_JACK && s->jacks));
}

/*
 * The checks of the steps whose moves are simple: the same answer as
 * listing them and looking m up, without building the list (each mirrors
 * its case in gtr_moves).
 */
static inline int lead_legal(const struct gtr_state *s, int seat, struct move m)
{
	if (m.kind == GK_LEAD)
		return m.a < GR_COUNT && m.b == 0 && m.c == 0 && can_unit(s, seat, m.a);
	if (m.kind == GK_CONCEDE)
		return m.a == 0 && m.b == 0 && m.c == 0 && !s->p[seat].conceded;
	return is_think(s, m);
}

static inline int follow_legal(const struct gtr_state *s, int seat, struct move m)
{
	if (m.kind == GK_FOLLOW)
		return m.a == 0 && m.b == 0 && m.c == 0 && can_unit(s, seat, s->led);
	if (m.kind == GK_CONCEDE)
		return m.a == 0 && m.b == 0 && m.c == 0 && !s->p[seat].conceded;
	return is_think(s, m);
}

static inline int unit_legal(const struct gtr_state *s, int seat, struct move m)
{
	const struct gtr_player *p = &s->p[seat];

	if (m.b != 0 || m.c != 0)
		return 0;
	if (m.kind == GK_PLAY)
		return m.a == GTR_JACK ? p->hand[GTR_JACK] != 0
				       : unit_card_ok(s, seat, s->led, m.a);
	if (m.kind == GK_PETITION)
		return m.a == 0 && can_petition(s, seat);
	if (m.kind == GK_DONE)
		return m.a == 0 && p->units;
	return 0;
}

static inline int petition_legal(const struct gtr_state *s, int seat, struct move m)
{
	const struct gtr_player *p = &s->p[seat];

	if (m.kind != GK_PETITION_CARD || m.b != 0 || m.c != 0 ||
	    m.a >= GC_COUNT || !p->hand[m.a])
		return 0;
	return s->pet_role == GTR_NONE
		       ? p->hcount[gtr_cards[m.a].material] >= s->pet_need
		       : gtr_cards[m.a].material == s->pet_role;
}

static inline int think_legal(const struct gtr_state *s, struct move m)
{
	if (m.kind == GK_DONE)
		return m.a == 0 && m.b == 0 && m.c == 0;
	return is_think(s, m);
}

/* GS_LEAD, GS_FOLLOW: lead, follow, think or concede. */
static inline void do_lead_follow(struct gtr_state *s, int seat, struct move m,
				  struct game_log *log)
{
	if (m.kind == GK_CONCEDE) {
		gtr_concede(s, seat, log);
		return;
	}
	if (m.kind == GK_THINK) {
		gtr_think_start(s, seat, m.a, log);
		return;
	}
	if (m.kind == GK_LEAD)
		s->led = (uint8_t)m.a;
	s->step = GS_UNIT;
}

/* GS_UNIT: a card, a Senador, a petition, or done (Palacio). */
static inline void do_unit(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	if (m.kind == GK_DONE) {
		after_units(s, log);
		return;
	}
	if (m.kind == GK_PETITION) {
		s->pet_role = GTR_NONE;
		s->pet_have = 0;
		s->pet_need = (uint8_t)gtr_petition_need(s, seat);
		s->step = GS_PETITION;
		return;
	}
	hand_out(p, m.a);
	p->camp[m.a]++;
	log_unit(s, seat, CNAME(log, m.a), log);
	unit_played(s, seat, log);
}

/* GS_PETITION: one more card of the petition. */
static inline void do_petition(struct gtr_state *s, int seat, struct move m,
			       struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	hand_out(p, m.a);
	p->camp[m.a]++;
	s->pet_role = gtr_cards[m.a].material;
	if (++s->pet_have < s->pet_need)
		return;
	if (log)
		log_petition(s, seat, log);
	s->pet_role = GTR_NONE;
	s->pet_have = s->pet_need = 0;
	unit_played(s, seat, log);
}

/* The steps a random playout rarely reaches: checked by listing the moves,
 * out of line (see moves_rare). */
static __attribute__((noinline, cold)) int play_rare(struct gtr_state *s, int seat,
						      struct move m, struct game_log *log)
{
	if (!listed(s, seat, m))
		return -1;
	switch (s->step) {
	case GS_PICK:
		gtr_pick_apply(s, seat, m, log);
		break;
	case GS_VOMIT:
		gtr_vomit_apply(s, seat, m, log);
		break;
	case GS_LATRINE:
		gtr_latrine_apply(s, seat, m, log);
		break;
	case GS_MATERIAL:
		gtr_material_apply(s, seat, m, log);
		break;
	case GS_FOUNTAIN:
		gtr_fountain_apply(s, seat, m, log);
		break;
	case GS_LEGION_POOL:
		gtr_legion_pool_apply(s, seat, m, log);
		break;
	case GS_GIVE:
		gtr_give_apply(s, seat, m, log);
		break;
	case GS_COLISEUM:
		gtr_coliseum_apply(s, seat, m, log);
		break;
	case GS_PRISON:
		gtr_prison_apply(s, seat, m, log);
		break;
	case GS_SENATE:
		gtr_senate_apply(s, seat, m, log);
		break;
	case GS_SEWER:
		gtr_sewer_apply(s, seat, m, log);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Applies m when it is one of moves(s, seat): 0; otherwise -1 and nothing
 * changed.  One dispatch by step: each case checks m, then applies it
 * (gtr_action_play and gtr_legion_play do both in their chapter).
 */
static int play(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (seat < 0 || seat >= s->nplayers || !awaited(s, seat))
		return -1;
	switch (s->step) {
	case GS_LEAD:
		if (!lead_legal(s, seat, m))
			return -1;
		do_lead_follow(s, seat, m, log);
		return 0;
	case GS_FOLLOW:
		if (!follow_legal(s, seat, m))
			return -1;
		do_lead_follow(s, seat, m, log);
		return 0;
	case GS_UNIT:
		if (!unit_legal(s, seat, m))
			return -1;
		do_unit(s, seat, m, log);
		return 0;
	case GS_PETITION:
		if (!petition_legal(s, seat, m))
			return -1;
		do_petition(s, seat, m, log);
		return 0;
	case GS_THINK:
		if (!think_legal(s, m))
			return -1;
		gtr_think_apply(s, seat, m, log);
		return 0;
	case GS_ACTION:
		return gtr_action_play(s, seat, m, log);
	case GS_LEGION:
		return gtr_legion_play(s, seat, m, log);
	default:
		return play_rare(s, seat, m, log);
	}
}

/* The refusal message, out of line: playouts only make listed moves. */
static __attribute__((noinline, cold)) int refuse(const struct gtr_state *s, int seat,
						  struct game_log *log, struct buf *err)
{
	enum locale loc = LOC(log);

	if (seat < 0 || seat >= s->nplayers || !(gtr_awaiting(s) & (1u << seat)))
		buf_setf(err, "%s", L(loc, "It is not your decision now.",
				      "Ahora no te toca decidir."));
	else
		buf_setf(err, "%s", L(loc, "That move is not possible now.",
				      "Esa jugada no es posible ahora."));
	return -1;
}

int gtr_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct gtr_state *s = st;

	if (play(s, seat, m, log))
		return refuse(s, seat, log, err);
	/* a Foro fulfilled by a decision that left the machine waiting
	 * (a hire mid-action, a stockpile take...) ends the game now */
	over_now(s, log);
	return 0;
}

/* ---- the driver table ---- */

static const char *const gtr_aliases[] = { "glory to rome", "gloria a roma", "glory", NULL };

static const char *const gtr_option_words[] = {
	"experienced", "original-circus", "nofunctions", "quick", NULL
};

static unsigned gtr_turn(const void *st)
{
	return ((const struct gtr_state *)st)->turn;
}

/* Why a lead typed by the leader cannot be made: no card of that role, no
 * Jack, not enough alike to petition; or a Jack asked for when none is left
 * (issue 25: refusals say why). */
static void gtr_near_miss(const void *st, int seat, const char *text, enum locale loc,
			  struct buf *out)
{
	const struct gtr_state *s = st;
	int r;

	if ((unsigned)seat >= s->nplayers || s->step != GS_LEAD || !awaited(s, seat))
		return;
	if (!strcmp(text, "think jack") && !s->jacks) {
		buf_addstr(out, L(loc, "No Jack is left in the pile: `think draw` draws cards instead.",
				  "No quedan Comodines: `think draw` roba cartas."));
		return;
	}
	if (strncmp(text, "lead ", 5))
		return;
	for (r = 0; r < GR_COUNT; r++)
		if (!strncmp(gtr_roles[r].id, text + 5, strlen(text + 5)) && text[5])
			break;
	if (r == GR_COUNT || can_unit(s, seat, r))
		return;
	buf_printf(out, L(loc, "To lead %s you need a %s card in hand, a Jack, or %d cards of one "
			  "material to petition; you have none of these.",
			  "Para dirigir %s necesitas una carta de %s en la mano, un Comodín o %d cartas "
			  "de un mismo material para pedir; no tienes nada de eso."),
		   gtr_roles[r].name[loc], gtr_roles[r].name[loc], gtr_petition_need(s, seat));
}

const struct game_ops gtr_ops = {
	.api_version = GAME_API_VERSION,
	.id = "gtr",
	.aliases = gtr_aliases,
	.near_miss = gtr_near_miss,
	.name = { "Glory to Rome", "Gloria a Roma" },
	.min_players = GTR_MIN_PLAYERS,
	.max_players = GTR_MAX_PLAYERS,
	.state_size = sizeof(struct gtr_state),
	.options_help = "experienced: 5 cards, pick the leader card; original-circus: petition of 3, "
			"old Circus/Forum; nofunctions: buildings give influence only; quick: "
			"the example game's site limits",
	.option_words = gtr_option_words,
	.rules_version = 2,	/* issue 12: victims choose, the pool is a choice */
	.search_iterations = 80,	/* a whole 2-player playout: about 1 ms */
	.setup = gtr_setup,
	.awaiting = gtr_awaiting,
	.moves = gtr_moves,
	.move_id = gtr_move_id,
	.move_label = gtr_move_label,
	.apply = gtr_apply,
	.prompt = gtr_prompt,
	.render_public = gtr_render_public,
	.render_private = gtr_render_private,
	.scene = gtr_scene,
	.save = gtr_save,
	.load = gtr_load,
	.result = gtr_result,
	.bot_move = gtr_bot_move,
	.determinize = gtr_determinize,
	.check = gtr_check,
	.turn = gtr_turn,
	.secrets = gtr_secrets,
	.intro = gtr_intro,
	.rules = gtr_rules,
	.card = gtr_card,
	.card_names = gtr_card_names,
};
