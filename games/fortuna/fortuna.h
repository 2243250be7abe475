/*
 * fortuna.h: the internal interface of the Fortuna rules core (games/fortuna/).
 *
 * The state is one flat struct of small integers plus the rng, with no
 * pointers, so it is copied with memcpy (AI playouts) and saved field by
 * field (save.c).  Tests include this header to build positions directly.
 *
 * Vocabulary (the rulebook's): a seat sits at board side `seat`; sides
 * nplayers..3 are empty sides that still hold 3 action cards.  Each side has
 * 3 slots; a card in a slot is face up or face down.  Steps count the pawn's
 * road to Rome: 0 = the village, 10 = the city gate, 15 = the Palace.
 *
 * Everything here is rules data; text (ids, labels, boards) lives in
 * render.c and cards.c.  See docs/games/fortuna.md for the rulings.
 */
#ifndef GAMES_FORTUNA_FORTUNA_H
#define GAMES_FORTUNA_FORTUNA_H

#include <stdint.h>

#include "games/game.h"
#include "util/rng.h"

#define FORTUNA_SIDES 4
#define FORTUNA_SLOTS 3
#define FORTUNA_MAX_PLAYERS 4
#define FORTUNA_PALACE 15	/* steps of the Palace, the end of the road */
#define FORTUNA_ROME 10		/* steps needed to be inside Rome (may win) */
#define FORTUNA_MONEY_MAX 20
#define FORTUNA_TOKENS 15	/* privilege tokens in the box */
#define FORTUNA_TOKEN_CAP 3	/* tokens one favour card can hold */
#define FORTUNA_PRIV_MAX 26	/* privilege cards with 4 players */
#define FORTUNA_NO_CARD 255	/* empty slot (only while drafting) */
/* Rounds after which the game stops even if nobody reached the Palace.
 * Only a safety net against endless play by players who refuse to advance;
 * bot and random games end far earlier (see docs/games/fortuna.md). */
#define FORTUNA_ROUND_CAP 100

/* The 12 action cards, one copy each. */
enum fortuna_action {
	FA_WATER,		/* Recogida de agua */
	FA_GRAIN,		/* Cosecha de grano */
	FA_WINE,		/* Cosecha de vino */
	FA_SELL_GRAIN,		/* Vender grano */
	FA_SELL_WINE,		/* Vender vino */
	FA_CENTURIONS,		/* Reclutar Centuriones */
	FA_PRIESTESSES,		/* Obtener Sacerdotisas */
	FA_CLERGY,		/* Representación del Clero */
	FA_FAMILY,		/* Familia */
	FA_BUILD,		/* Edificio (Construir) */
	FA_CORRUPTION,		/* Corrupción */
	FA_FORTUNA,		/* Fortuna */
	FA_COUNT
};

/* The 6 favour cards; the card's number is index + 1. */
enum fortuna_favour {
	FF_WATER,		/* 1 Reserva de agua */
	FF_WINE,		/* 2 Bacanal */
	FF_GRAIN,		/* 3 Alimentación */
	FF_BATTLE,		/* 4 Batalla */
	FF_FORTUNA,		/* 5 Fortuna */
	FF_RELIGION,		/* 6 Religión */
	FF_COUNT
};

enum fortuna_building {
	FB_MARKET,		/* Mercado, 0 coins */
	FB_AQUEDUCT,		/* Acueducto, 1 coin */
	FB_PALACE,		/* Palacio, 2 coins, only when married */
	FB_BASILICA,		/* Basílica, 3 coins */
	FB_COUNT
};

enum fortuna_resource { FR_WATER, FR_GRAIN, FR_WINE, FR_COUNT };

/* Privilege card kinds (the reconstructed deck of the guide, cards.c). */
enum fortuna_priv {
	FP_WATER_ANY,		/* A: 1 water + 1 resource of choice */
	FP_GRAIN_ANY,		/* A: 1 grain + 1 resource of choice */
	FP_WINE_ANY,		/* A: 1 wine + 1 resource of choice */
	FP_PRIESTESS,		/* A: 1 Sacerdotisa */
	FP_CENTURION,		/* A: 1 Centurión */
	FP_STEP,		/* B: one step to Rome */
	FP_VP_BUILDING,		/* C: 2 VP per building (max 3) */
	FP_VP_GRAIN,		/* C: 1 VP per grain */
	FP_VP_WATER,		/* C: 1 VP per water */
	FP_VP_WINE,		/* C: 2 VP per wine */
	FP_VP_CENTURION,	/* C: 2 VP per Centurión */
	FP_VP_PRIESTESS,	/* C: 2 VP per Sacerdotisa */
	FP_VP_COINS,		/* C: 1 VP per 3 coins */
	FP_COUNT
};

enum fortuna_priv_type { FPT_A, FPT_B, FPT_C };

/* What a type C card counts (units held at the end). */
enum fortuna_unit {
	FU_NONE, FU_WATER, FU_GRAIN, FU_WINE, FU_CENTURION, FU_PRIESTESS,
	FU_COINS, FU_BUILDING, FU_COUNT
};

/* The decision the game waits for. */
enum fortuna_step {
	FS_DRAFT,		/* setup, option draft: pick an action card */
	FS_HIDE,		/* setup: turn one of your 3 cards face down */
	FS_CHOOSE,		/* phase 2: choose the action card to play */
	FS_ACTION,		/* execute act_card (or skip) */
	FS_EXCHANGE,		/* phase 2: exchange the played card */
	FS_MILITARY,		/* phase 3: Military Power or skip */
	FS_DIE,			/* phase 4: choose one rolled die */
	FS_FAVOUR,		/* phase 4: use a favour card or pay the tax */
	FS_FLIP,		/* 2 players: the first player's extra flip */
	FS_KEEP,		/* phase 5 / Palace: keep a privilege card */
	FS_END,			/* after a privilege keep: play type A/B cards or end the turn */
	FS_RESOURCE,		/* a type A card's resource of choice */
	FS_OVER,
	FS_COUNT
};

/* How an action card is being executed (act_via). */
enum fortuna_via { FV_PHASE2, FV_MILITARY };

/* Where the cards of FS_KEEP come from (keep_src). */
enum fortuna_keep_src { FK_FAVOUR, FK_PALACE_FIRST, FK_PALACE_LATER };

/* Move kinds; a, b as commented. */
enum fortuna_move_kind {
	FM_DRAFT,		/* a = action card */
	FM_HIDE,		/* a = action card */
	FM_CARD,		/* a = action card (phase 2 choice) */
	FM_SKIP,		/* decline the optional thing asked; FS_END: end the turn */
	FM_COLLECT,		/* Recogida de agua */
	FM_HARVEST,		/* a = water delivered (grain or wine card) */
	FM_SELL,		/* a = units sold */
	FM_RECRUIT,		/* a = Centuriones bought */
	FM_PRIESTESS,		/* a = Sacerdotisas bought */
	FM_CLERGY,		/* a Sacerdotisa for a die */
	FM_MARRY,
	FM_ROLL,		/* Familia when married: roll the dice first */
	FM_TAKE,		/* Familia when married: a = FR_GRAIN, FR_WINE or 3 (coins) */
	FM_BUILD,		/* a = building */
	FM_CORRUPT,		/* a = action card used through Corrupción */
	FM_COINS,		/* Corrupción unused: take 2 coins */
	FM_ADVANCE,		/* Fortuna action card: one step */
	FM_EXCHANGE,		/* a = action card taken */
	FM_MILITARY,		/* a = action card executed */
	FM_DIE,			/* a = die value */
	FM_DELIVER,		/* a = favour card (0..3), b = units */
	FM_FAVOUR,		/* a = FF_FORTUNA or FF_RELIGION */
	FM_TAX,			/* decline the favour: pay the tax */
	FM_FLIP,		/* a = favour card */
	FM_KEEP,		/* a = privilege kind */
	FM_PRIV,		/* a = privilege kind played (type A/B) */
	FM_CHOOSE,		/* a = resource */
	FM_COUNT
};

#define FM_TAKE_COINS 3

struct fortuna_player {
	uint8_t steps;		/* 0..15 */
	uint8_t money;		/* 0..20 */
	uint8_t water, grain, wine;
	uint8_t aq_water;	/* water in the Acueducto, 0..1 */
	uint8_t priest, cent;	/* 0..3 each */
	uint8_t dice;		/* 1..3 */
	uint8_t married;
	uint8_t buildings;	/* bit (1 << FB_x) per building built */
	uint8_t aq_round;	/* round the Acueducto was built in */
	uint8_t arrival;	/* 0, or 1 + rank of arrival at the Palace */
	uint8_t hand[FP_COUNT];	/* privilege cards held, per kind */
};

struct fortuna_state {
	uint8_t nplayers;
	uint8_t draft;		/* option "draft" */
	uint8_t step;		/* enum fortuna_step */
	uint8_t round;		/* 1.. */
	uint8_t order[FORTUNA_MAX_PLAYERS];	/* seats in turn order */
	uint8_t turn;		/* index into order of the active seat */
	uint8_t setup_k;	/* draft picks made / hide decisions made */
	uint8_t ending;		/* somebody reached the Palace: last round */

	struct fortuna_player p[FORTUNA_MAX_PLAYERS];

	/* Action cards on the board's sides. */
	uint8_t side_card[FORTUNA_SIDES][FORTUNA_SLOTS];
	uint8_t side_down[FORTUNA_SIDES][FORTUNA_SLOTS];

	/* Favour cards around Rome and the privilege tokens. */
	uint8_t fav_up[FF_COUNT];
	uint8_t fav_tokens[FF_COUNT];
	uint8_t token_reserve;
	uint8_t token_palace;	/* the 3 above the Palace, for the first arrival */
	uint8_t token_turn;	/* won by the active seat this turn, until phase 5 */

	/* General supply. */
	uint8_t sup_water, sup_grain, sup_wine;
	uint8_t sup_priest, sup_cent, sup_dice;
	uint8_t bld_left[FB_COUNT];

	/* Privilege cards: deck (top = last), face-up discards (a pile whose
	 * order never matters: it is shuffled before reuse), the cards being
	 * chosen from, the ones left face down at the Palace. */
	uint8_t deck[FORTUNA_PRIV_MAX];
	uint8_t ndeck;
	uint8_t discard[FP_COUNT];
	uint8_t drawn[3];
	uint8_t ndrawn;
	uint8_t keep_left;	/* cards still to keep from drawn */
	uint8_t keep_src;	/* enum fortuna_keep_src */
	uint8_t palace_cards[3];
	uint8_t npalace;
	uint8_t narrived;	/* players who reached the Palace so far */

	/* The active seat's turn. */
	uint8_t chosen;		/* card played in phase 2 (to exchange) */
	uint8_t act_card;	/* card being executed in FS_ACTION */
	uint8_t act_via;	/* enum fortuna_via */
	uint8_t corrupted;	/* act_card is used through Corrupción */
	uint8_t b_played;	/* a type B privilege was played this turn */
	uint8_t palace_due;	/* the active seat arrived this turn: Palace draw */
	uint8_t res_ret;	/* step to return to after FS_RESOURCE */
	uint8_t rolled;		/* dice already rolled this turn (Familia) */
	uint8_t nroll;
	uint8_t roll[3];	/* rolled values; tests may overwrite them */
	uint8_t die;		/* chosen die value, 0 before FS_FAVOUR */

	/* Shown on the board: the last roll and who made it. */
	uint8_t last_seat;	/* 255 = none yet */
	uint8_t last_nroll;
	uint8_t last_roll[3];
	uint8_t last_die;

	struct rng rng;
};

/* ---- data (cards.c) ---- */

struct fortuna_action_info {
	const char *id;			/* canonical id word(s) */
	const char *name[LOC_COUNT];
	const char *effect[LOC_COUNT];	/* one-line summary */
};

struct fortuna_priv_info {
	const char *id;
	const char *name[LOC_COUNT];	/* always «quoted»: see cards.c */
	uint8_t type;			/* enum fortuna_priv_type */
	uint8_t copies;			/* with 4 players */
	uint8_t four_only;		/* copies removed with 2-3 players */
	uint8_t unit;			/* enum fortuna_unit (type C) */
	uint8_t vp;			/* VP per `per` units (type C) */
	uint8_t per;			/* units per vp (type C); 1 usually */
	uint8_t cap;			/* max units counted, 0 = none */
};

struct fortuna_named {
	const char *id;
	const char *name[LOC_COUNT];
};

extern const struct fortuna_action_info fortuna_actions[FA_COUNT];
extern const struct fortuna_named fortuna_favours[FF_COUNT];
extern const struct fortuna_named fortuna_buildings[FB_COUNT];
extern const uint8_t fortuna_building_cost[FB_COUNT];
extern const struct fortuna_named fortuna_resources[FR_COUNT];
extern const struct fortuna_priv_info fortuna_privs[FP_COUNT];
extern const char *const fortuna_step_ids[FS_COUNT];

/* Appends privilege kind k's name without its «» quotes: the form public
 * texts use (a card discarded or played face up), so that the quoted form
 * of a kind another seat holds never appears in public (secrets()). */
void fortuna_priv_plain(int k, enum locale loc, struct buf *out);
/* Copies of privilege kind k in a game of n players. */
int fortuna_priv_copies(int k, int nplayers);
/* Building copies in a game of n players. */
int fortuna_building_copies(int nplayers);

/* ---- rules (fortuna.c) ---- */

extern const struct game_ops fortuna_ops;

int fortuna_setup(void *st, int players, uint64_t seed, const char *options,
		  struct buf *err);
unsigned fortuna_awaiting(const void *st);
int fortuna_moves(const void *st, int seat, struct move_list *out);
int fortuna_apply(void *st, int seat, struct move m, struct game_log *log,
		  struct buf *err);
int fortuna_check(const void *st, struct buf *err);
/* The seat deciding now, or -1 when the game is over. */
int fortuna_decider(const struct fortuna_state *s);
/* The side holding action card c (and its slot in *slot), or -1. */
int fortuna_find_card(const struct fortuna_state *s, int card, int *slot);
/* All water a seat may spend: province plus Acueducto. */
static inline int fortuna_water(const struct fortuna_state *s, int seat)
{
	return s->p[seat].water + s->p[seat].aq_water;
}

/* ---- scoring (score.c) ---- */

/* Victory points of seat's privilege cards (units assigned optimally). */
int fortuna_priv_points(const struct fortuna_state *s, int seat);
/* Points one type C kind earns when given `units` units. */
int fortuna_priv_value(int kind, int units);
int fortuna_result(const void *st, struct game_result *out);

/* ---- text (render.c) ---- */

void fortuna_move_id(const void *st, int seat, struct move m, struct buf *out);
void fortuna_move_label(const void *st, int seat, struct move m, enum locale loc,
			struct buf *out);
/* The label with the seats' names (v->names) where a move names a side. */
void fortuna_move_label_view(const void *st, int seat, struct move m,
			     const struct game_view *v, struct buf *out);
void fortuna_prompt(const void *st, int seat, enum locale loc, struct buf *out);
void fortuna_render_public(const void *st, const struct game_view *v, struct rich *out);
void fortuna_render_private(const void *st, int seat, const struct game_view *v,
			    struct rich *out);
void fortuna_secrets(const void *st, enum locale loc, struct buf *out);
/* Pieces of the public board the picture (scene.c) shares: the phase's
 * name, a pawn's place on the road ("12 Rome"), and who holds the Fortuna
 * card (appended to out; 0 when the board says nothing of it). */
const char *fortuna_phase_name(const struct fortuna_state *s, enum locale loc);
void fortuna_road_text(const struct fortuna_player *p, enum locale loc, struct buf *b);
int fortuna_holder_text(const struct fortuna_state *s, const struct game_view *v,
			enum locale loc, struct buf *out);

/* ---- the picture (scene.c) ---- */

int fortuna_scene(const void *st, int seat, const struct game_view *v, struct scene *out);

/* ---- rule summaries and card texts (rules.c) ---- */

int fortuna_rules(const char *topic, enum locale loc, struct rich *out);
int fortuna_card(const char *name, const char *options, enum locale loc, struct rich *out);
void fortuna_card_names(enum locale loc, struct buf *out);

/* ---- AI (ai.c) ---- */

int fortuna_bot_move(const void *st, int seat, struct rng *rng, struct move *out);
/* The determinize op (determinize.c): re-deals the privilege cards seat
 * cannot see. */
void fortuna_determinize(void *st, int seat, struct rng *rng);

/* ---- persistence (save.c) ---- */

json_t *fortuna_save(const void *st);
int fortuna_load(void *st, const json_t *j, struct buf *err);

#endif
