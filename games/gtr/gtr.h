/*
 * gtr.h: the internal interface of the Glory to Rome rules core (games/gtr/).
 *
 * API-STABLE: names below are kept; later changes only add.
 */
/* API-STABLE */
/*
 * The specification is the Spanish rulebook ("Gloria a Roma", HomoLudicus,
 * 000_af59ce2b58a8d520.txt and
 * 001_df12c6ec6f002223.txt in ../shared/seeds/), with guide/games.md for the
 * card table and guide/rulings.md for the rulings; the rulings tabula made
 * on top are listed at the top of gtr.c.
 *
 * The state is one flat struct of small integers plus the rng, with no
 * pointers, so it is copied with memcpy (AI playouts) and saved field by
 * field (save.c).  Tests include this header to build positions directly,
 * best through the helpers at the end (gtr_put, gtr_give_building,
 * gtr_start_turn), which keep every card accounted for.
 *
 * Cards.  The 40 building names are enum gtr_card, grouped by material in
 * the order of enum gtr_material (gtr_first[m] .. gtr_first[m+1]-1 are the
 * names of material m).  GTR_JACK (40) is a Senador.  Every collection of
 * cards (deck excepted) is a count per name: uint8_t x[GTR_NAMES] (41 with
 * the Senador where one may lie there).  The deck is an ordered array, its
 * top at deck[ndeck - 1].
 *
 * Roles and materials share indices: material m is the colour of role m
 * (rubble = Laborer ... marble = Patron), so a card's role is its material.
 *
 * Seats sit clockwise in index order: the player on your left is seat + 1,
 * on your right seat - 1 (mod n); the leader token passes left.
 *
 * Everything here is rules data; text (ids, labels, boards) lives in
 * render.c and cards.c.  The rules are split by the rulebook's chapters
 * (gtr.c, setup.c, flow.c, roles.c, legion.c, buildings.c, score.c), which
 * share the private games/gtr/gtr_int.h; nothing outside them includes it.
 */
#ifndef GAMES_GTR_GTR_H
#define GAMES_GTR_GTR_H

#include <stdint.h>

#include "games/game.h"
#include "util/rng.h"

#define GTR_MIN_PLAYERS 2
#define GTR_MAX_PLAYERS 5
#define GTR_ORDER_CARDS 144	/* "144 cartas de Acción" */
#define GTR_JACKS 6		/* "6 Senadores (comodines)" */
#define GTR_SITES 6		/* per material: "36 Solares" of 6 kinds */
#define GTR_MAX_STRUCT 36	/* structures one seat can hold: all sites */
#define GTR_MAX_MAT 4		/* materials on a structure: value 3 + Escalinata */
#define GTR_MAX_FRAMES 16	/* nested actions (completion bonuses, Termas) */
#define GTR_MAX_DEMAND 32	/* Legionary demands in one go */
#define GTR_MAX_PEND 8		/* frames earned within one action */
#define GTR_MAX_DRAW 16		/* leader-draw cards recorded (ties draw again) */
#define GTR_HAND_BASE 5		/* the Think target without Santuario/Templo */
#define GTR_INFLUENCE_BASE 2	/* "Influencia (2 al inicio)" */
#define GTR_NONE 255

enum gtr_material {
	GM_RUBBLE,		/* Escombros, yellow, value 1 -> Obrero */
	GM_WOOD,		/* Madera, brown, 1 -> Artesano */
	GM_BRICK,		/* Ladrillo, orange, 2 -> Legionario */
	GM_CONCRETE,		/* Cemento, grey, 2 -> Arquitecto */
	GM_STONE,		/* Piedra, blue, 3 -> Mercader */
	GM_MARBLE,		/* Mármol, violet, 3 -> Patrón */
	GM_COUNT
};

/* Role r is the role of material r's cards. */
enum gtr_role {
	GR_LABORER,		/* Obrero: pool -> stockpile */
	GR_CRAFTSMAN,		/* Artesano: build from hand */
	GR_LEGIONARY,		/* Legionario: "Roma exige..." */
	GR_ARCHITECT,		/* Arquitecto: build from stockpile */
	GR_MERCHANT,		/* Mercader: stockpile -> vault */
	GR_PATRON,		/* Patrón: pool -> clientele */
	GR_COUNT
};

/* The 40 buildings, grouped by material (gtr_first). */
enum gtr_card {
	/* rubble, 6 copies each */
	GC_ROAD,		/* Calzada */
	GC_INSULA,		/* Ínsula */
	GC_LATRINE,		/* Letrinas */
	GC_BAR,			/* Taberna */
	/* wood, 6 copies each */
	GC_CIRCUS,		/* Circo */
	GC_PALISADE,		/* Empalizada */
	GC_MARKET,		/* Mercado */
	GC_DOCK,		/* Muelle */
	/* brick, 3 copies each */
	GC_ACADEMY,		/* Academia */
	GC_ARCHWAY,		/* Arco */
	GC_ATRIUM,		/* Atrio */
	GC_SCHOOL,		/* Escuela */
	GC_FOUNDRY,		/* Fundición */
	GC_GATE,		/* Portón */
	GC_SHRINE,		/* Santuario */
	GC_BATH,		/* Termas */
	/* concrete, 3 copies each */
	GC_AQUEDUCT,		/* Acueducto */
	GC_AMPHITHEATRE,	/* Anfiteatro */
	GC_STOREROOM,		/* Despensa */
	GC_WALL,		/* Muralla */
	GC_BRIDGE,		/* Puente */
	GC_SENATE,		/* Senado */
	GC_TOWER,		/* Torre */
	GC_VOMITORIUM,		/* Vomitorium */
	/* stone, 3 copies each */
	GC_SEWER,		/* Alcantarillado */
	GC_SCRIPTORIUM,		/* Biblioteca */
	GC_CATACOMB,		/* Catacumbas */
	GC_CIRCUS_MAXIMUS,	/* Circo Máximo */
	GC_COLISEUM,		/* Coliseo */
	GC_GARDEN,		/* Jardín */
	GC_PRISON,		/* Prisión */
	GC_VILLA,		/* Villa */
	/* marble, 3 copies each */
	GC_BASILICA,		/* Basílica */
	GC_STAIRWAY,		/* Escalinata */
	GC_STATUE,		/* Estatua */
	GC_FORUM,		/* Foro */
	GC_FOUNTAIN,		/* Fuente */
	GC_LUDUS_MAGNA,		/* Ludus Magna */
	GC_PALACE,		/* Palacio */
	GC_TEMPLE,		/* Templo */
	GC_COUNT,		/* 40 building names */
	GTR_JACK = GC_COUNT,	/* a Senador (only in hands, camps, the pile) */
	GTR_NAMES		/* 41: size of arrays that may hold Senadores */
};

/* Options (setup words), bits of gtr_state.opts. */
enum gtr_opt {
	GO_EXPERIENCED = 1 << 0,	/* "experienced": 5 cards, leader card chosen */
	GO_ORIGINAL_CIRCUS = 1 << 1,	/* "original-circus": petition 3, old Circo/Foro */
	GO_NOFUNCTIONS = 1 << 2,	/* "nofunctions": influence only */
	GO_QUICK = 1 << 3,		/* "quick": the example game's site limits */
};

/* Where the game is in a turn (gtr_state.phase). */
enum gtr_phase {
	GP_PICK,		/* experienced setup: choosing the leader cards */
	GP_LEAD,		/* the leader leads or thinks */
	GP_FOLLOW,		/* the others, clockwise, follow or think */
	GP_ACTIONS,		/* the leader, then clockwise, perform their actions */
	GP_SENATE,		/* end of turn: Senado owners take Senadores */
	GP_SEWER,		/* end of turn: Alcantarillado owners keep their cards */
	GP_ACADEMY,		/* after the turn: Academia thinks */
	GP_OVER,
	GP_COUNT
};

/* The decision asked now (gtr_state.step). */
enum gtr_step {
	GS_PICK,		/* experienced: pick <card> for the leader draw */
	GS_LEAD,		/* lead <role> | think draw | think jack | concede */
	GS_FOLLOW,		/* follow | think draw | think jack | concede */
	GS_UNIT,		/* play <card> | play senator | petition | done (Palace) */
	GS_PETITION,		/* petition <card>: the cards of a petition, one by one */
	GS_VOMIT,		/* before a Think: discard hand | keep hand */
	GS_LATRINE,		/* before a Think: discard <card> | keep hand */
	GS_THINK,		/* Escuela/Academia: think draw | think jack | skip */
	GS_ACTION,		/* one action of a role (not Legionary) */
	GS_MATERIAL,		/* with <material> | with <card>: the material to add */
	GS_FOUNTAIN,		/* Fuente: what to do with the card drawn */
	GS_LEGION,		/* demand <material> ... | done */
	GS_LEGION_POOL,		/* take <material> (the pool's match) | done */
	GS_GIVE,		/* the victims (several at once): give <card> ... | keep */
	GS_COLISEUM,		/* coliseum <role> from player <n> | done */
	GS_PRISON,		/* imprison <card> of player <n> | skip */
	GS_SENATE,		/* take <k> senators | skip */
	GS_SEWER,		/* sewer <card> | done */
	GS_OVER,
	GS_COUNT
};

/* Frame kinds: an action role (0..5), or these. */
enum gtr_frame_kind {
	GF_THINK = GR_COUNT,	/* Escuela: Think actions */
	GF_PRISON,		/* Prisión: the one theft */
	GF_COUNT
};

/* Why the game ended (gtr_state.end). */
enum gtr_end {
	GE_NONE,
	GE_DECK,		/* the deck ran out */
	GE_SITES,		/* the last in-town site was taken */
	GE_CATACOMB,		/* Catacumbas completed */
	GE_FORUM,		/* a Foro's condition was met */
	GE_CONCEDE,		/* all other players conceded */
	GE_COUNT
};

/* Move kinds; a, b, c as commented ("card" = enum gtr_card, GTR_JACK for a
 * Senador; "m" = material; "r" = role; "seat" = a seat index). */
enum gtr_move_kind {
	GK_PICK,		/* a = card (experienced leader card) */
	GK_LEAD,		/* a = r */
	GK_FOLLOW,
	GK_THINK,		/* a = GTR_THINK_DRAW or GTR_THINK_JACK */
	GK_CONCEDE,
	GK_PLAY,		/* a = card or GTR_JACK: one action unit */
	GK_PETITION,		/* start a petition */
	GK_PETITION_CARD,	/* a = card */
	GK_DONE,		/* finish / skip / decline what is asked */
	GK_VOMIT,		/* Vomitorium: discard the whole hand */
	GK_LATRINE,		/* a = card (Letrinas) */
	GK_HIRE,		/* a = r: a client from the pool */
	GK_HIRE_DECK,		/* Taberna: a client from the deck */
	GK_HIRE_HAND,		/* a = card (Acueducto) */
	GK_TAKE,		/* a = m: Laborer, from the pool */
	GK_DOCK,		/* a = card: Muelle, hand -> stockpile */
	GK_FOUND,		/* a = card, b = site m, c = 1 out of town */
	GK_ADD,			/* a = own structure's card: add a material to it */
	GK_STAIRWAY,		/* a = building card, b = owner seat (Escalinata) */
	GK_WITH,		/* a = m (Architect; b = 1 from the pool) or card (Craftsman) */
	GK_BACK,		/* GS_MATERIAL: back to the action */
	GK_FOUNTAIN,		/* Fuente: draw the top card */
	GK_KEEP,		/* Fuente: keep the drawn card in hand */
	GK_DEMAND,		/* a = m */
	GK_COLISEUM,		/* a = r, b = victim seat */
	GK_SELL,		/* a = m: stockpile -> vault */
	GK_SELL_DECK,		/* Atrio: deck -> vault, unseen */
	GK_SELL_HAND,		/* a = card (Basílica) */
	GK_IMPRISON,		/* a = card, b = victim seat */
	GK_SENATORS,		/* a = how many Senadores (Senado) */
	GK_SEWER,		/* a = card (Alcantarillado) */
	GK_GIVE,		/* a = card: a Legionary's victim gives it from hand */
	GK_GIVE_STOCK,		/* a = m: a protected victim gives it from the stockpile */
	GK_COUNT
};

#define GTR_THINK_DRAW 0
#define GTR_THINK_JACK 1

/* Bits of gtr_state.part: what the current action already did. */
enum gtr_part {
	GPART_POOL = 1 << 0,	/* took from the pool / stockpile (the main take) */
	GPART_DECK = 1 << 1,	/* Taberna / Atrio: took from the deck */
	GPART_HAND = 1 << 2,	/* Acueducto / Muelle / Basílica: took from the hand */
};

/* Flags of a structure. */
enum gtr_struct_flag {
	GSF_PUBLIC = 1 << 0,	/* Escalinata made its function everybody's */
	GSF_STOLEN = 1 << 1,	/* came by Prisión (its site stays with the victim) */
};

struct gtr_struct {
	uint8_t card;		/* the foundation's name */
	uint8_t site;		/* material of its site (Estatua: any) */
	uint8_t done;		/* completed: the site went to the influence pile */
	uint8_t flags;		/* enum gtr_struct_flag */
	uint8_t nmat;
	uint8_t mat[GTR_MAX_MAT];	/* material cards, by name */
};

struct gtr_frame {
	uint8_t kind;		/* role, or enum gtr_frame_kind */
	uint8_t dyn;		/* 1: the turn's own actions, counted live */
	uint8_t count;		/* actions of a fixed frame */
	uint8_t used;		/* actions spent */
};

struct gtr_player {
	uint8_t hand[GTR_NAMES];
	uint8_t stock[GC_COUNT];	/* stockpile (Almacén) */
	uint8_t vault[GC_COUNT];	/* vault (Tesoro), hidden */
	uint8_t clients[GC_COUNT];	/* clientele, by card (its role = material) */
	uint8_t newc[GR_COUNT];		/* clients hired this turn, per role */
	uint8_t camp[GTR_NAMES];	/* cards played this turn to lead/follow */
	uint8_t infl[GM_COUNT];		/* site cards in the influence pile */
	uint8_t units;			/* action units played this turn */
	uint8_t acted;			/* led or followed this turn */
	uint8_t crafted;		/* performed a Craftsman action this turn */
	uint8_t conceded;
	uint8_t pick;			/* experienced: card picked + 1, 0 none */
	/* GS_GIVE: cards of each material this seat still gives the
	 * Legionary from hand (must, or may when protected) and, protected
	 * against a Puente, may give from the stockpile */
	uint8_t give[GM_COUNT];
	uint8_t give_stock[GM_COUNT];
	uint8_t nstruct;
	struct gtr_struct st[GTR_MAX_STRUCT];
	/* caches, recomputed by gtr_refresh() (check() verifies them) */
	uint64_t has;			/* bit per name: a structure of that name */
	uint64_t built;			/* bit per name: a completed one */
	uint64_t fn;			/* bit per name: its function (gtr_has) */
	uint8_t influence;		/* gtr_influence */
	uint8_t client_limit;		/* gtr_client_limit */
	uint8_t vault_limit;		/* gtr_vault_limit */
	uint8_t hand_limit;		/* gtr_hand_limit */
	/* cache kept by every change of hand (gtr_refresh recomputes it):
	 * hand cards per material, [6] the Senadores, [7] always 0 */
	uint8_t hcount[8];
};

struct gtr_state {
	uint8_t nplayers;
	uint8_t opts;		/* enum gtr_opt */
	uint8_t phase;		/* enum gtr_phase */
	uint8_t step;		/* enum gtr_step */
	uint8_t decider;	/* the seat asked (GS_PICK: see awaiting) */
	uint8_t leader;
	uint8_t cursor;		/* position after the leader in this phase */
	uint8_t led;		/* role led this turn, GTR_NONE before */
	uint8_t end;		/* enum gtr_end */
	uint8_t winner;		/* GE_FORUM/GE_CONCEDE: the winner, else GTR_NONE */
	uint8_t ending;		/* an end condition happened: stop at once */
	uint16_t turn;		/* 1.. */

	uint8_t deck[GTR_ORDER_CARDS];
	uint8_t ndeck;
	uint8_t pool[GC_COUNT];
	uint8_t jacks;		/* Senadores in their pile */
	uint8_t in_town[GM_COUNT];
	uint8_t out_town[GM_COUNT];
	uint64_t pub;		/* bit per name: a public (Escalinata) building */
	uint64_t any_fn;	/* cache (gtr_refresh): the seats' functions together */

	/* units: petition in progress */
	uint8_t pet_role;	/* GTR_NONE until its first card */
	uint8_t pet_have, pet_need;

	/* Think in progress */
	uint8_t think;		/* GTR_THINK_DRAW / _JACK */

	/* actions of the current player (seat (leader + cursor) % n) */
	uint8_t started;	/* the current seat's own frame was pushed */
	uint8_t nframes;
	struct gtr_frame frames[GTR_MAX_FRAMES];
	uint8_t part;		/* enum gtr_part for the current action */
	/* frames earned during the current action (completion bonuses,
	 * Termas, Prisión), pushed when it ends */
	uint8_t npend;
	struct gtr_frame pend[GTR_MAX_PEND];
	/* GS_MATERIAL: the target */
	uint8_t tgt_card, tgt_seat, tgt_stair;
	/* GS_FOUNTAIN: the card drawn */
	uint8_t fount;		/* GTR_NONE when none */
	/* GS_LEGION / GS_COLISEUM */
	uint8_t leg_n, leg_k;
	uint8_t leg_dem[GTR_MAX_DEMAND];
	uint8_t coli[GTR_MAX_PLAYERS][GM_COUNT];	/* clients still takeable */
	uint8_t leg_take[GM_COUNT];	/* GS_LEGION_POOL: pool matches still takeable */
	uint8_t gift;		/* GS_GIVE: bit per victim still deciding (awaited) */
	uint8_t vol;		/* GS_GIVE: bit per protected victim (gives if it wants) */

	/* the leader draw, in order (setup, or the experienced picks): seat
	 * and card; the intro and the first board show it */
	uint8_t ndraw;
	uint8_t draw_seat[GTR_MAX_DRAW];
	uint8_t draw_card[GTR_MAX_DRAW];

	struct gtr_player p[GTR_MAX_PLAYERS];
	struct rng rng;
};

/* ---- data (cards.c) ---- */

struct gtr_card_info {
	const char *id;			/* canonical id words: "insula", "circus maximus" */
	const char *name[LOC_COUNT];	/* "Insula" / "Ínsula" */
	const char *sort;		/* the Spanish name folded, for the leader draw */
	uint8_t material;
	uint8_t copies;
	const char *text[LOC_COUNT];	/* the function, short */
};

struct gtr_named {
	const char *id;
	const char *name[LOC_COUNT];
};

extern const struct gtr_card_info gtr_cards[GC_COUNT];
extern const struct gtr_named gtr_jack;			/* Senador */
extern const struct gtr_named gtr_materials[GM_COUNT];
extern const struct gtr_named gtr_roles[GR_COUNT];
/* A role with its indefinite article: "an Architect", "un Arquitecto". */
extern const char *const gtr_a_role[GR_COUNT][LOC_COUNT];
/* Material names in lower case, for card tags: "rubble", "escombros". */
extern const char *const gtr_material_lower[GM_COUNT][LOC_COUNT];
extern const uint8_t gtr_value[GM_COUNT];		/* 1 1 2 2 3 3 */
extern const uint8_t gtr_first[GM_COUNT + 1];		/* first name of material m */
extern const char *const gtr_step_ids[GS_COUNT];
extern const char *const gtr_phase_ids[GP_COUNT];

static inline int gtr_material_of(int card)
{
	return card < GC_COUNT ? gtr_cards[card].material : GTR_NONE;
}

/* The card named (id, English or Spanish name; case and accents ignored),
 * GTR_JACK for "senator"/"senador"/"jack", or -1. */
int gtr_card_by_name(const char *name);

/* ---- rules (gtr.c: the decisions; setup.c; check.c) ---- */

extern const struct game_ops gtr_ops;

int gtr_setup(void *st, int players, uint64_t seed, const char *options, struct buf *err);
/* The option words (space separated; each exactly one of "experienced",
 * "original-circus", "nofunctions", "quick", ASCII case ignored) as enum
 * gtr_opt bits.  0, or -1 with err naming the word and listing the
 * options. */
int gtr_parse_options(const char *options, uint8_t *opts, struct buf *err);
unsigned gtr_awaiting(const void *st);
int gtr_moves(const void *st, int seat, struct move_list *out);
int gtr_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err);
int gtr_check(const void *st, struct buf *err);

/* ---- queries (inline, or in the file named) ---- */

/* The seat whose action frames run now (phase GP_ACTIONS), or the seat the
 * current phase's cursor points at. */
static inline int gtr_current(const struct gtr_state *s)
{
	int n = s->nplayers ? s->nplayers : 1, v = s->leader + s->cursor;

	/* (leader + cursor) % n without a division, nor a branch that the
	 * seat order would make unpredictable */
	v -= n & -(v >= n);
	return v < n ? v : v % n;
}

/*
 * Functions, influence and the limits change only with structures and
 * influence piles, which every change refreshes (gtr_refresh), while the
 * playout loop asks them at nearly every decision: they are cached in
 * struct gtr_player and read inline here.
 */

/* Influence: 2 + the values of the site cards in the influence pile. */
static inline int gtr_influence(const struct gtr_state *s, int seat)
{
	return s->p[seat].influence;
}

/* Seat has building card's function now (own completed building, a Marble
 * foundation with Portón, or a public building; never with nofunctions). */
static inline int gtr_has(const struct gtr_state *s, int seat, int card)
{
	return (int)((s->p[seat].fn >> card) & 1);
}

/* Limits: clientele, vault, Think target. */
static inline int gtr_client_limit(const struct gtr_state *s, int seat)
{
	return s->p[seat].client_limit;
}

static inline int gtr_vault_limit(const struct gtr_state *s, int seat)
{
	return s->p[seat].vault_limit;
}

static inline int gtr_hand_limit(const struct gtr_state *s, int seat)
{
	return s->p[seat].hand_limit;
}

/* Counts (cards.c). */
int gtr_hand_size(const struct gtr_state *s, int seat);
int gtr_count(const uint8_t *cards, int material);	/* of one material */
int gtr_total(const uint8_t *cards, int n);		/* all n entries */
/* out[m] = gtr_count(cards, m) for every material m. */
void gtr_counts(const uint8_t *cards, int out[GM_COUNT]);
int gtr_clients(const struct gtr_state *s, int seat);
int gtr_vault_size(const struct gtr_state *s, int seat);
/* Actions seat performs this turn with the led role (units + clients,
 * Circo Máximo, Ludus Magna, Despensa), counted now (flow.c). */
int gtr_turn_actions(const struct gtr_state *s, int seat);
/* Cards of one role that make a Petition for seat: 2, or with
 * original-circus 3 (2 with Circo) (gtr.c). */
int gtr_petition_need(const struct gtr_state *s, int seat);
/* A Foro's condition met by seat now (score.c). */
int gtr_forum_met(const struct gtr_state *s, int seat);
/* The index of seat's structure named card, or -1 (roles.c). */
int gtr_find_struct(const struct gtr_state *s, int seat, int card);
/* Materials a structure needs to be completed. */
int gtr_struct_need(const struct gtr_struct *t);

/* ---- test and position helpers (position.c; gtr_refresh: buildings.c) ---- */

/* Zones for gtr_put. */
enum gtr_zone {
	GZ_DECK,		/* from: any copy in the deck; to: the top */
	GZ_POOL,
	GZ_HAND,
	GZ_STOCK,
	GZ_VAULT,
	GZ_CLIENTS,
	GZ_CAMP,
	GZ_JACKS,		/* the Senador pile (card must be GTR_JACK) */
	GZ_COUNT
};

/* Moves one copy of card from zone `from` (of seat fs) to zone `to` (of
 * seat ts); seats are ignored for the deck, the pool and the pile.
 * Senadores only between hands, camps and the pile.  0, or -1 if there is
 * no such copy or the move is impossible.  Caches are refreshed. */
int gtr_put(struct gtr_state *s, int card, enum gtr_zone from, int fs,
	    enum gtr_zone to, int ts);
/* Gives seat a structure named card built with cards taken from the deck:
 * its site (material `site`, or the card's material when site < 0) taken
 * in town (out of town if none is left), `nmat` material cards of the
 * structure's material from the deck; complete = 1 moves the site to the
 * influence pile (nmat is then raised to what it needs).  No function
 * fires.  0, or -1 if a card or site is missing. */
int gtr_give_building(struct gtr_state *s, int seat, int card, int site, int nmat,
		      int complete);
/* Clears the turn and starts a fresh one with `leader` to lead (phase
 * GP_LEAD): played cards back to the pool / pile, frames emptied, the
 * leader draw forgotten. */
void gtr_start_turn(struct gtr_state *s, int leader);
/* Recomputes the caches (structure masks, functions, influence, limits,
 * hand counts) after direct edits of structures, influence piles, hands or
 * options; load() and determinize() end with it. */
void gtr_refresh(struct gtr_state *s);

/* ---- scoring (score.c) ---- */

/* Victory points now: influence + vault + merchant bonuses + Estatua +
 * Muralla. */
int gtr_score(const struct gtr_state *s, int seat);
/* gtr_score of every seat: out[0..nplayers). */
void gtr_scores(const struct gtr_state *s, int *out);
/* The merchant bonus of material m: the seat with strictly the most vault
 * cards of m, or -1 (none, or a tie). */
int gtr_merchant_bonus(const struct gtr_state *s, int m);
int gtr_result(const void *st, struct game_result *out);

/* ---- text (render.c) ---- */

void gtr_move_id(const void *st, int seat, struct move m, struct buf *out);
void gtr_move_label(const void *st, int seat, struct move m, enum locale loc,
		    struct buf *out);
void gtr_prompt(const void *st, int seat, enum locale loc, struct buf *out);
void gtr_render_public(const void *st, const struct game_view *v, struct rich *out);
void gtr_render_private(const void *st, int seat, const struct game_view *v,
			struct rich *out);
void gtr_secrets(const void *st, enum locale loc, struct buf *out);
/* The intro op: the leader draw as public log lines. */
void gtr_intro(const void *st, struct game_log *log);
/* A card with its short tag: "Insula (rubble · Laborer)", "Ínsula
 * (escombros · Obrero)", "Senator (wild card)"; appended to out. */
void gtr_card_tag(int card, enum locale loc, struct buf *out);
/* Pieces of the public board the picture (scene.c) shares: what seat is
 * asked (own: as its prompt, else as the board's "Now:" line), the full
 * stop a sentence still needs, whether the leader draw is shown, what a
 * Legionary's victim still gives, why the game ended. */
void gtr_what_asked(const struct gtr_state *s, int seat, int own, enum locale loc,
		    struct buf *out);
const char *gtr_stop(const struct buf *b);
int gtr_draw_shown(const struct gtr_state *s);
void gtr_owed(const struct gtr_state *s, int seat, enum locale loc, struct buf *out);
const char *gtr_end_text(int end, enum locale loc);

/* ---- the picture (scene.c) ---- */

int gtr_scene(const void *st, int seat, const struct game_view *v, struct scene *out);

/* ---- rule summaries and card texts (rules.c) ---- */

int gtr_rules(const char *topic, enum locale loc, struct rich *out);
int gtr_card(const char *name, const char *options, enum locale loc, struct rich *out);
void gtr_card_names(enum locale loc, struct buf *out);

/* ---- AI (ai.c) ---- */

int gtr_bot_move(const void *st, int seat, struct rng *rng, struct move *out);
/* The determinize op (determinize.c): re-deals the cards seat cannot see. */
void gtr_determinize(void *st, int seat, struct rng *rng);

/* ---- persistence (save.c) ---- */

json_t *gtr_save(const void *st);
int gtr_load(void *st, const json_t *j, struct buf *err);

#endif
