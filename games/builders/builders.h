/*
 * builders.h: the internal interface of The Builders: Antiquity rules core
 * (games/builders/).
 *
 * The specification is the Spanish rulebook ("Los Constructores:
 * Antigüedad", 003_1ee2b25f51d7d57a.txt in ../shared/seeds/); the card values
 * it does not print come from cards.c (its source is named there); the
 * rulings tabula took are in docs/games/builders.md.
 *
 * The state is one flat struct of small integers plus the rng, with no
 * pointers: it is copied with memcpy (AI search) and saved field by field
 * (save.c).  Tests include this header to build positions directly.
 *
 * Cards.  Buildings are enum values 0..BUILDERS_BUILDINGS-1, the last four
 * of them machines.  Everything that can be sent to work is a "unit":
 * units 0..17 are the worker cards, 18..23 the slaves, 24..27 the machines
 * (unit BU_MACHINE + k is building BB_FIRST_MACHINE + k once completed).
 * Tools, universities and loans are investment cards in piles that every
 * player sees.  Only the order of the two decks is hidden.
 *
 * Seats play in index order, starting from the first player: the seat
 * after seat s is s + 1 (mod n), the last of a round is the one before the
 * first player.
 */
#ifndef GAMES_BUILDERS_BUILDERS_H
#define GAMES_BUILDERS_BUILDERS_H

#include <stdint.h>

#include "games/game.h"
#include "util/rng.h"

#define BUILDERS_MIN_PLAYERS 2
#define BUILDERS_MAX_PLAYERS 4
#define BUILDERS_BUILDINGS 33	/* "33 cartas de edificio (incluyendo 4 máquinas)" */
#define BUILDERS_MACHINES 4
#define BB_FIRST_MACHINE (BUILDERS_BUILDINGS - BUILDERS_MACHINES)
#define BUILDERS_WORKERS 18	/* worker cards, 4 of them Apprentices */
#define BUILDERS_APPRENTICES 4
#define BUILDERS_SLAVES 6
#define BUILDERS_TOOLS 4
#define BUILDERS_LOANS 4
#define BUILDERS_UNIS 4		/* universities, one per resource */
#define BUILDERS_UNITS (BUILDERS_WORKERS + BUILDERS_SLAVES + BUILDERS_MACHINES)
#define BUILDERS_ROW 5		/* cards face up in each line */
#define BUILDERS_NONE 255

#define BU_SLAVE BUILDERS_WORKERS			/* first slave unit */
#define BU_MACHINE (BUILDERS_WORKERS + BUILDERS_SLAVES)	/* first machine unit */

#define BUILDERS_FREE_ACTIONS 3		/* "3 acciones gratuitas" */
#define BUILDERS_ACTION_PRICE 5		/* "Cada acción extra cuesta 5 sestercios" */
#define BUILDERS_START_MONEY 10
#define BUILDERS_BANK_COINS 108		/* 23 silver (1) + 17 gold (5) */
#define BUILDERS_END_VP 17		/* "17 o más puntos de victoria" */
#define BUILDERS_SLAVE_PRICE 7
#define BUILDERS_TOOL_PRICE 2
#define BUILDERS_UNI_PRICE 7
#define BUILDERS_LOAN_GAIN 10
#define BUILDERS_LOAN_REPAY 15
#define BUILDERS_LOAN_PENALTY 2		/* VP per loan not repaid */
#define BUILDERS_SLAVE_PENALTY 1	/* VP per slave not freed */
#define BUILDERS_FREE_PRICE 5		/* freeing at the final scoring */
#define BUILDERS_FREED_WAGE 5		/* a Liberto's wage (cards.c) */
#define BUILDERS_MACHINE_MAKES 3	/* a machine produces 3 of its resource */
#define BUILDERS_UNI_LEVEL 3		/* a University raises a resource to 3 */
/* Rounds after which the game ends even if nobody reached 17 VP: only a
 * safety net against players who never build (docs/games/builders.md). */
#define BUILDERS_ROUND_CAP 30
/* Money can never exceed this: 10 + 6 sesterces a turn for the capped
 * number of rounds + every building's coins + every loan < 1000. */
#define BUILDERS_MONEY_MAX 999

enum builders_resource { BR_STONE, BR_WOOD, BR_ARCH, BR_DECO, BR_COUNT };

/* Worker ranks; wage 2..5. */
enum builders_rank { BK_APPRENTICE, BK_LABORER, BK_JOURNEYMAN, BK_MASTER, BK_COUNT };

/* The decision the game waits for. */
enum builders_step {
	BS_TURN,	/* the active seat chooses an action or ends the turn */
	BS_SEND,	/* a unit was chosen: where to (and with which tool) */
	BS_ENSLAVE,	/* which slave to buy */
	BS_TOOL,	/* which tool to buy */
	BS_EDUCATE,	/* which worker, in which resource */
	BS_FINAL,	/* final scoring: free slaves, repay loans */
	BS_OVER,
	BS_COUNT
};

/* Move kinds; a, b as commented. */
enum builders_move_kind {
	BM_START,	/* a = building in the row */
	BM_HIRE,	/* a = worker card in the row */
	BM_SEND,	/* a = unit -> BS_SEND */
	BM_TO,		/* a = building in progress, b = tool + 1 (0: no tool) */
	BM_ENSLAVE,	/* BS_TURN: -> BS_ENSLAVE; BS_ENSLAVE: a = 1 + slave */
	BM_TOOL,	/* BS_TURN: -> BS_TOOL; BS_TOOL: a = 1 + tool */
	BM_LOAN,	/* take a loan */
	BM_EDUCATE,	/* BS_TURN: -> BS_EDUCATE; BS_EDUCATE: a = 1 + unit, b = resource */
	BM_TAKE,	/* a = actions spent: 1, 2 or 3 (1, 3 or 6 sesterces) */
	BM_FREE,	/* a = slave unit */
	BM_REPAY,	/* repay a loan */
	BM_END,		/* end the turn (BS_FINAL: done) */
	BM_BACK,	/* meta: leave a sub-step */
	BM_COUNT
};

/* Where a building card lies. */
enum builders_place { BP_DECK, BP_ROW, BP_BUILDING, BP_DONE };

struct builders_player {
	uint16_t money;		/* sesterces, 0..BUILDERS_MONEY_MAX */
	uint8_t loans;		/* loan cards held */
	uint8_t vp;		/* from completed buildings and machines (derived) */
};

struct builders_state {
	uint8_t nplayers;
	uint8_t step;		/* enum builders_step */
	uint8_t first;		/* the first player */
	uint8_t cur;		/* the seat deciding (BS_OVER: 0) */
	uint16_t round;		/* 1.. */
	uint8_t ending;		/* somebody ended a turn with 17+ VP */
	uint8_t dealt[BUILDERS_MAX_PLAYERS];	/* the Apprentice each seat was dealt */

	/* The active seat's turn. */
	uint16_t used;		/* actions used this turn, free and paid */
	uint8_t invested;	/* an investment was made this turn */
	uint8_t pend;		/* BS_SEND: the unit being sent */
	uint8_t sent[BUILDERS_BUILDINGS];	/* workers sent to it this turn */

	/* Decks (top = last) and the lines face up (BUILDERS_NONE = empty). */
	uint8_t bdeck[BUILDERS_BUILDINGS];
	uint8_t nbdeck;
	uint8_t brow[BUILDERS_ROW];
	uint8_t wdeck[BUILDERS_WORKERS];
	uint8_t nwdeck;
	uint8_t wrow[BUILDERS_ROW];

	/* Buildings: owner (BUILDERS_NONE in the deck or the row), place. */
	uint8_t bown[BUILDERS_BUILDINGS];
	uint8_t bplace[BUILDERS_BUILDINGS];	/* enum builders_place */

	/* Units: owner (BUILDERS_NONE: deck, row or pile), the building it
	 * works on (BUILDERS_NONE: available), freed slaves. */
	uint8_t uown[BUILDERS_UNITS];
	uint8_t uat[BUILDERS_UNITS];
	uint8_t freed[BUILDERS_SLAVES];

	/* Investment cards: tool owner and the unit carrying it; the unit a
	 * University educated (BUILDERS_NONE: still in the pile); loans left. */
	uint8_t town[BUILDERS_TOOLS];
	uint8_t tat[BUILDERS_TOOLS];
	uint8_t uni[BUILDERS_UNIS];
	uint8_t loan_pile;

	int32_t bank;		/* 108 - what the players took; below 0 = unlimited */
	struct builders_player p[BUILDERS_MAX_PLAYERS];

	/*
	 * Derived, rebuilt by builders_recount() (check() compares): bit
	 * masks of each seat's buildings in progress and available units,
	 * of the slaves not freed, of the units educated and of the
	 * investment cards still in their piles; each unit's wage, its
	 * resources (a University counted) and their mask; each building's
	 * resources delivered (workers and their tools) and the mask of
	 * those it still lacks.  Move generation reads these instead of
	 * walking the cards (playouts make millions of lists).
	 */
	uint64_t prog[BUILDERS_MAX_PLAYERS];
	uint64_t sentmask;		/* buildings with sent[b] > 0 */
	uint32_t idle[BUILDERS_MAX_PLAYERS];
	uint32_t bound;
	uint32_t edu;
	uint32_t wle[BUILDERS_FREED_WAGE + 1];	/* units whose wage is at most w */
	uint32_t rmask[BR_COUNT];	/* units that make resource r */
	uint8_t plack[BUILDERS_MAX_PLAYERS];	/* resources some building of the seat lacks */
	uint8_t tidle[BUILDERS_MAX_PLAYERS];	/* the seat's tools not in use */
	uint8_t spile, tpile, upile;
	uint8_t uwage[BUILDERS_UNITS];
	uint8_t umask[BUILDERS_UNITS];
	uint8_t ures[BUILDERS_UNITS][BR_COUNT];
	uint8_t have[BUILDERS_BUILDINGS][BR_COUNT];
	uint8_t lack[BUILDERS_BUILDINGS];	/* bit r: building still misses resource r */

	struct rng rng;
};

/* ---- data (cards.c) ---- */

struct builders_named {
	const char *id;			/* canonical id word(s) */
	const char *name[LOC_COUNT];
};

struct builders_building_info {
	const char *id;
	const char *name[LOC_COUNT];
	uint8_t need[BR_COUNT];
	uint8_t coins, vp;
	uint8_t makes;			/* machines: 1 + the resource produced; else 0 */
};

struct builders_worker_info {
	uint8_t rank;			/* enum builders_rank */
	uint8_t number;			/* 1.. within its rank: "Journeyman 3" */
	uint8_t res[BR_COUNT];
};

extern const struct builders_building_info builders_buildings[BUILDERS_BUILDINGS];
extern const struct builders_worker_info builders_workers[BUILDERS_WORKERS];
extern const uint8_t builders_slaves[BUILDERS_SLAVES][BR_COUNT];
extern const uint8_t builders_wages[BK_COUNT];
extern const struct builders_named builders_ranks[BK_COUNT];
extern const struct builders_named builders_resources[BR_COUNT];
/* One-letter resource tags per locale: S W A D / P M A D. */
extern const char builders_res_letter[LOC_COUNT][BR_COUNT];
extern const struct builders_named builders_tools[BUILDERS_TOOLS];	/* tool t adds 1 of resource t */
extern const char *const builders_step_ids[BS_COUNT];

/* ---- rules (builders.c) ---- */

extern const struct game_ops builders_ops;

int builders_setup(void *st, int players, uint64_t seed, const char *options,
		   struct buf *err);
unsigned builders_awaiting(const void *st);
int builders_moves(const void *st, int seat, struct move_list *out);
int builders_apply(void *st, int seat, struct move m, struct game_log *log,
		   struct buf *err);
int builders_check(const void *st, struct buf *err);
/* The seat deciding now, or -1 when the game is over. */
static inline int builders_decider(const struct builders_state *s)
{
	return s->step < BS_OVER ? s->cur : -1;
}
/* Recomputes the derived fields (masks, wages, resources, progress, VP)
 * from the cards. */
void builders_recount(struct builders_state *s);
/* Free actions left in the turn, and sesterces k more actions cost now. */
static inline int builders_free_left(const struct builders_state *s)
{
	/* without a branch: how many actions were used is random in playouts */
	return (BUILDERS_FREE_ACTIONS - s->used) & -(s->used < BUILDERS_FREE_ACTIONS);
}
static inline int builders_action_money(const struct builders_state *s, int k)
{
	int paid = k - builders_free_left(s);

	return (paid * BUILDERS_ACTION_PRICE) & -(paid > 0);
}
/* A unit's wage: 0 for slaves and machines, 5 for freed slaves. */
static inline int builders_wage(const struct builders_state *s, int u)
{
	return s->uwage[u];
}
/* Whether unit u may carry a tool or be educated (not an enslaved slave). */
static inline int builders_can_equip(const struct builders_state *s, int u)
{
	return !((s->bound >> u) & 1);
}
/* Resources building b still misses. */
void builders_missing(const struct builders_state *s, int b, uint8_t out[BR_COUNT]);
/* Slaves seat owns and has not freed. */
int builders_enslaved(const struct builders_state *s, int seat);
/* The seat after seat in turn order. */
static inline int builders_next_seat(const struct builders_state *s, int seat)
{
	return seat + 1 < s->nplayers ? seat + 1 : 0;
}
/* Moves a card and keeps every count straight (tests build positions
 * with these): a building from the deck or the row to seat's buildings in
 * progress, a worker card from the deck or the row to seat's team. */
int builders_give_building(struct builders_state *s, int seat, int b);
int builders_give_worker(struct builders_state *s, int seat, int w);

/* ---- scoring (score.c) ---- */

/* Final score in tenths of a point: 10 per VP, 1 per sesterce, minus 10
 * per slave not freed and 20 per loan not repaid. */
int builders_score(const struct builders_state *s, int seat);
int builders_result(const void *st, struct game_result *out);

/* ---- text (render.c) ---- */

void builders_move_id(const void *st, int seat, struct move m, struct buf *out);
void builders_move_label(const void *st, int seat, struct move m, enum locale loc,
			 struct buf *out);
void builders_prompt(const void *st, int seat, enum locale loc, struct buf *out);
/* "First to 17 VP ends the game (the round is played out) · S W A D:
 * stone, wood, architecture, decoration" (the board's, the intro's). */
void builders_legend_text(const struct builders_state *s, enum locale loc, struct buf *out);
void builders_near_miss(const void *st, int seat, const char *text, enum locale loc,
			struct buf *out);
int builders_move_group(const void *st, int seat, struct move m, enum locale loc,
			struct buf *group, struct buf *note, struct buf *item);
void builders_render_public(const void *st, const struct game_view *v, struct rich *out);
void builders_render_private(const void *st, int seat, const struct game_view *v,
			     struct rich *out);
void builders_secrets(const void *st, enum locale loc, struct buf *out);
void builders_intro(const void *st, struct game_log *log);
/* A card as the board shows it: "Pyramid (S4 W4 A4 D4 → 18 s, 8 VP)",
 * "Journeyman 3 (S1 W1 A1 D1, wage 4)"; unit tags show its resources now. */
void builders_building_tag(int b, enum locale loc, struct buf *out);
void builders_unit_name(const struct builders_state *s, int u, enum locale loc,
			struct buf *out);
void builders_unit_tag(const struct builders_state *s, int u, enum locale loc,
		       struct buf *out);
void builders_res_text(const uint8_t res[BR_COUNT], enum locale loc, struct buf *out);
/* The active turn as the board's "Now:" line says it: "2 free actions
 * left, 14 s (extra actions 5 s)"; appended to out. */
void builders_turn_text(const struct builders_state *s, enum locale loc, struct buf *out);

/* ---- the picture (scene.c) ---- */

int builders_scene(const void *st, int seat, const struct game_view *v, struct scene *out);

/* ---- rule summaries and card texts (rules.c) ---- */

int builders_rules(const char *topic, enum locale loc, struct rich *out);
int builders_card(const char *name, const char *options, enum locale loc, struct rich *out);
void builders_card_names(enum locale loc, struct buf *out);

/* ---- AI (ai.c, determinize.c) ---- */

int builders_bot_move(const void *st, int seat, struct rng *rng, struct move *out);
/* Reshuffles both decks (the only hidden thing) and re-seeds the rng. */
void builders_determinize(void *st, int seat, struct rng *rng);

/* ---- persistence (save.c) ---- */

json_t *builders_save(const void *st);
int builders_load(void *st, const json_t *j, struct buf *err);

#endif
