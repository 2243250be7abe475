/*
 * sylla.h: the internal interface of the Sylla rules core (games/sylla/).
 *
 * The specification is the Spanish rulebook (Ystari,
 * 002_e1ea23d6d5c38f8f.txt in ../shared/seeds/); what it does not print
 * (the characters' hexagons, the tile counts per letter, the track values)
 * is guide/games.md's reconstruction, kept in one table (cards.c).  docs/games/sylla.md lists the rulings.
 *
 * The state is one flat struct of small integers, bit masks and the rng,
 * without pointers: it is copied with memcpy (AI playouts) and saved field
 * by field (save.c).  Tests include this header to build positions.
 *
 * Seats sit clockwise in index order: "the next player" is seat + 1 (mod n).
 *
 * Characters.  The 40 character cards are numbered set * 10 + k: set 0..3
 * is the income tile's numeral (I..IV), k 0..9 the card within the set
 * (sylla_chars[k]; every set holds the same ten).  Where a card is: one
 * bit per card in own[seat], or in the deck (deck[], top = deck[ndeck-1])
 * or in the display (row[]); tapped ("girado": used to buy this turn) and
 * down ("boca abajo": turned over by an event) are masks over all 40.
 *
 * Hidden information: each seat's money and Res Publica tokens (behind the
 * screen), the order of the face-down piles, and the secret choices being
 * made.  Every change of money happens in the open (income, payments,
 * revealed votes), so the table can count it; the colours of the tokens
 * taken through an Insula or a Private Temple are never shown: seen[]
 * counts, per colour, the tokens the table saw and blind those it did not.
 */
#ifndef GAMES_SYLLA_SYLLA_H
#define GAMES_SYLLA_SYLLA_H

#include <stdint.h>

#include "games/game.h"
#include "util/rng.h"

#define SY_MIN_PLAYERS 3
#define SY_MAX_PLAYERS 4
#define SY_SETS 4		/* income tiles I..IV and their character sets */
#define SY_PER_SET 10
#define SY_CHARS 40		/* "40 x Personaje" */
#define SY_TILES 32		/* "32 x Edificios" */
#define SY_ROW 6		/* building tiles shown a turn */
#define SY_EVENTS 10		/* "10 x Eventos" */
#define SY_EV_ROW 4		/* three events above the Decadencia */
#define SY_EV_DECK (SY_EVENTS - SY_EV_ROW)
#define SY_TRACK_MAX 7		/* Res Publica positions 0..7 */
#define SY_TRACK_START 3
#define SY_CRISIS 1		/* positions 0..1 are the crisis zone */
#define SY_FAMINE_MAX 6		/* "no puede ir más allá de ... (6 puntos)" */
#define SY_MONEY 60		/* 35 x 1 + 5 x 5 denarii */
#define SY_TOKENS 40		/* per colour: 120 tokens, 3 of them the markers */
#define SY_CUBES 10		/* cubes of a player's colour ("aproximadamente 40") */
#define SY_CRANES 3		/* "3 x Grúa" cards */
#define SY_TURNS 5
#define SY_PRESTIGE_START 10
#define SY_PRESTIGE_MAX 999	/* a bound for check() and load(), never reached */
#define SY_NONE 255
#define SY_WINDOW 20		/* amounts listed at once (a chat menu holds 25) */

enum sy_kind { SK_SENATOR, SK_MERCHANT, SK_LEGIONARY, SK_VESTAL, SK_SLAVE, SK_COUNT };

/* Hexagon colours; a building's sale colour is its slot's. */
enum sy_colour { SC_RED, SC_YELLOW, SC_GREY, SC_COUNT };

/* Res Publica tracks and token colours. */
enum sy_track { ST_CIVIC, ST_HEALTH, ST_LEISURE, ST_COUNT };

/* Building tiles. */
enum sy_btype {
	SB_STALL,		/* Puesto: +2 denarii in phase IV */
	SB_FIELD,		/* Campo: famine losses -2 */
	SB_TEMPLE,		/* Templo privado: phase IV, 2 denarii -> 1 token */
	SB_INSULA,		/* Ínsula: 2 tokens at once, discarded */
	SB_CRANE,		/* Grúa: becomes a Crane card */
	SB_TAVERN,		/* Taberna: phase IV, move a marker one space */
	SB_ARCH,		/* Arco del Triunfo: +6 prestige, discarded */
	SB_STATUE,		/* Estatua: +4 prestige, discarded */
	SB_BANK,		/* Banco: +5 denarii, discarded */
	SB_COUNT
};

/* What stays in a player's zone (and can be turned over by the Floods). */
enum sy_zone { SZ_STALL, SZ_FIELD, SZ_TEMPLE, SZ_TAVERN, SZ_CRANE, SZ_COUNT };

enum sy_event {
	SE_EPIDEMIC,		/* Epidemia: health -1 */
	SE_ERUPTION,		/* Erupción: leisure -1 */
	SE_CULT,		/* Culto Imperial: civic spirit -1 */
	SE_FAMINE,		/* Hambruna: famine +1 */
	SE_FLOOD,		/* Inundaciones: a building face down */
	SE_PERSECUTION,		/* Persecución de cristianos: a Christian face down */
	SE_PURGE,		/* Purga del Senado: a Senator face down */
	SE_REVOLT,		/* Revuelta de esclavos: a Slave face down */
	SE_PILLAGE,		/* Pillaje: a Stall face down */
	SE_DECADENCE,		/* Decadencia: the highest markers -1; never removed */
	SE_COUNT
};

enum sy_work {
	SG_PANTHEON,		/* Panteón: 10 / 6 / 2 */
	SG_TEMPLE,		/* Templo: 8 votes -> 10, 5 votes -> 6 */
	SG_GRANARY,		/* Granero: 5 / 3; famine -1 per 4 votes */
	SG_BATHS,		/* Baños Públicos: 5 / 3; health +1 per 5 votes */
	SG_COLISEUM,		/* Coliseo: 5 / 3; leisure +1 per 5 votes */
	SG_SENATE,		/* Senado: 5 / 3; civic spirit +1 per 5 votes */
	SG_COUNT
};

/* Options (setup words), bits of sylla_state.opts. */
enum sy_opt {
	SO_SEALED = 1 << 0,	/* "sealed-election": the election bids are secret */
};

/* The parts of a turn (sylla_state.phase), for the board. */
enum sy_phase {
	SP_SETUP,		/* the secret choice of the first characters */
	SP_CONSUL,		/* I */
	SP_RECRUIT,		/* II */
	SP_BUILD,		/* III */
	SP_INCOME,		/* IV */
	SP_EVENTS,		/* V */
	SP_WORKS,		/* VI */
	SP_FAMINE,		/* VII */
	SP_END,			/* Ecclesia */
	SP_OVER,
	SP_COUNT
};

/* The decision asked now (sylla_state.step).  The secret ones (SS_PICK,
 * SS_SEALED, SS_HIDE, SS_VOTE, SS_FREE) wait for several seats at once. */
enum sy_step {
	SS_PICK,		/* setup, secret: choose 4 (3p: 6) characters of one's set */
	SS_ELECT,		/* I: offer N votes | pass (open, once round) */
	SS_SEALED,		/* I, sealed-election, secret: offer N denarii | pass */
	SS_TOKEN,		/* I: the First Consul takes a token of a colour */
	SS_RECRUIT,		/* II: recruit a displayed character */
	SS_OFFER,		/* III: put a building up for sale */
	SS_BID,			/* III: bid N characters | pass */
	SS_TAP,			/* III: the buyer taps the characters paid */
	SS_INSULA,		/* III: the Insula's two tokens */
	SS_TEMPLE,		/* IV: use a Private Temple | no */
	SS_TAVERN,		/* IV: move a marker with a Tavern | no */
	SS_CUBE,		/* V: place a Vestal or Legionary cube */
	SS_AVOID,		/* V: the First Consul breaks a tie: avoid an event */
	SS_HIDE,		/* V, secret: which card the event turns face down */
	SS_REMOVE,		/* V: the First Consul breaks a tie: remove an event */
	SS_VOTE,		/* VI, secret: thumb up/down and denarii */
	SS_FREE,		/* end, secret: slaves freed */
	SS_OVER,
	SS_COUNT
};

/* Move kinds; a, b as commented. */
enum sy_move_kind {
	SM_PICK,		/* a = k (card within one's set) */
	SM_CONFIRM,		/* a secret choice is final */
	SM_CHANGE,		/* meta: start a secret choice again */
	SM_MORE,		/* the next window of amounts */
	SM_PASS,		/* election / bid / sealed offer: pass */
	SM_OFFER,		/* election: a = votes offered; sealed: a = denarii */
	SM_TOKEN,		/* a = track colour (First Consul) */
	SM_RECRUIT,		/* a = character card (0..39) */
	SM_SELL,		/* a = slot of the building row */
	SM_BID,			/* a = characters offered */
	SM_TAP,			/* a = character card, or SY_CHARS for a Crane */
	SM_INSULA,		/* a, b = the two colours (a <= b) */
	SM_TEMPLE,		/* a = colour */
	SM_TAVERN,		/* a = track, b = 1 up, 0 down */
	SM_SKIP,		/* decline a Temple / a Tavern */
	SM_CUBE,		/* a = slot of the event row, b = SK_VESTAL or SK_LEGIONARY */
	SM_AVOID,		/* a = slot */
	SM_REMOVE,		/* a = slot */
	SM_HIDE,		/* a = character card, or SY_CHARS + zone kind */
	SM_THUMB,		/* a = 1 up (the Great Work), 0 down (the plebeians) */
	SM_GIVE,		/* a = denarii in the vote */
	SM_FREE,		/* a = slaves freed */
	SM_DROP,		/* a = k: take a card picked back out of the choice */
	SM_COUNT
};

/* Secret decision stages (sylla_player.stage). */
enum sy_stage { SST_CHOOSE, SST_AMOUNT, SST_CONFIRM, SST_DONE };

struct sylla_char_info {
	const char *id;			/* "christian senator yellow" */
	uint8_t kind;			/* enum sy_kind */
	uint8_t christian;
	uint8_t nhex;
	uint8_t hex[3];			/* enum sy_colour, as printed */
};

struct sylla_tile_info {
	uint8_t letter;			/* 0 A, 1 B, 2 C */
	uint8_t type;			/* enum sy_btype */
};

struct sylla_event_info {
	const char *id;
	const char *name[LOC_COUNT];
	uint8_t token;			/* enum sy_track, SY_NONE: the Decadencia */
	uint8_t fought;			/* bit SK_VESTAL / SK_LEGIONARY may fight it */
	uint8_t hunger;
	const char *text[LOC_COUNT];	/* the effect, short */
};

struct sylla_work_info {
	const char *id;
	const char *name[LOC_COUNT];
	uint8_t pts[3];			/* prestige by rank (Templo: see sylla_work_points) */
	uint8_t track;			/* enum sy_track, ST_COUNT: famine, SY_NONE: none */
	uint8_t per;			/* votes per space */
	const char *text[LOC_COUNT];
};

struct sylla_named {
	const char *id;
	const char *name[LOC_COUNT];
};

/* ---- data (cards.c): guide/games.md's reconstruction ---- */

extern const struct sylla_char_info sylla_chars[SY_PER_SET];
extern const struct sylla_named sylla_kinds[SK_COUNT];
extern const struct sylla_named sylla_colours[SC_COUNT];
extern const char *const sylla_hex_letter[SC_COUNT][LOC_COUNT];
extern const struct sylla_named sylla_tracks[ST_COUNT];
extern const struct sylla_named sylla_buildings[SB_COUNT];
extern const char *const sylla_building_text[SB_COUNT][LOC_COUNT];
extern const struct sylla_tile_info sylla_tiles[SY_TILES];
extern const struct sylla_event_info sylla_events[SE_COUNT];
extern const struct sylla_work_info sylla_works[SG_COUNT];
extern const struct sylla_named sylla_ecclesia;
extern const uint8_t sylla_track_value[SY_TRACK_MAX + 1];
extern const uint8_t sylla_slot_colour[SY_ROW];
extern const char *const sylla_step_ids[SS_COUNT];
extern const char *const sylla_numerals[SY_SETS];
/* zone kind -> building type */
extern const uint8_t sylla_zone_type[SZ_COUNT];

/* Counted words: sylla_word(SW_VOTE, n, loc) is "vote" or "votes". */
enum sy_word { SW_VOTE, SW_DENARIUS, SW_SENATOR, SW_TOKEN, SW_SLAVE, SW_CHRISTIAN, SW_CHARACTER,
	       SW_SPACE, SW_EVENT, SW_HUNGER, SW_COUNT };
const char *sylla_word(int w, int n, enum locale loc);

/* Masks over the 40 cards, built from the table (cards.c). */
struct sylla_masks {
	uint64_t kind[SK_COUNT];
	uint64_t colour[SC_COUNT];
	uint64_t christian;
	uint64_t set[SY_SETS];
};
extern const struct sylla_masks sylla_mask;

static inline int sylla_k(int card)
{
	return card % SY_PER_SET;
}

/* ---- state ---- */

struct sylla_player {
	uint8_t set;		/* income tile numeral - 1 = character set */
	uint8_t money;		/* denarii, behind the screen */
	uint16_t prestige;
	uint8_t tok[ST_COUNT];	/* Res Publica tokens, behind the screen */
	uint8_t seen[ST_COUNT];	/* public: tokens of each colour the table saw */
	uint8_t blind;		/* public: tokens taken without showing the colour */
	uint8_t zone[SZ_COUNT];	/* face-up buildings kept (Cranes: the cards) */
	uint8_t zone_down[SZ_COUNT];	/* face down (Floods, Pillage) */
	uint8_t crane_used;	/* face-up Cranes that cannot buy this turn... */
	uint8_t crane_new;	/* ...of which bought this turn (usable next turn) */
	uint8_t cubes[2];	/* phase V cubes left: [0] Vestal, [1] Legionary */
	/* a secret decision (SS_PICK, SS_SEALED, SS_HIDE, SS_VOTE, SS_FREE) */
	uint8_t stage;		/* enum sy_stage */
	uint8_t thumb;		/* SS_VOTE: 1 up, 0 down; SS_SEALED: 1 offers, 0 passes */
	uint8_t amount;		/* denarii / slaves chosen; SS_HIDE: the card or zone */
	uint8_t win;		/* first amount listed (SY_WINDOW at a time) */
	uint16_t picks;		/* SS_PICK: bit k per card of the set chosen */
	/* the end, for the final table */
	uint8_t end_christians, end_freed;
	uint16_t end_tokens;
};

struct sylla_state {
	uint8_t nplayers;
	uint8_t opts;		/* enum sy_opt */
	uint8_t turn;		/* 1..5 */
	uint8_t phase;		/* enum sy_phase */
	uint8_t step;		/* enum sy_step */
	uint8_t decider;	/* the seat asked (single-seat steps) */
	uint8_t waiting;	/* secret steps: bit per seat still deciding */
	uint8_t asked;		/* secret steps: bit per seat that had a choice */
	uint8_t fc;		/* the First Consul */
	uint8_t cursor;		/* seats that have spoken in this round */

	/* I: the election */
	uint8_t hi_votes, hi_seat;	/* best offer so far, SY_NONE: none */
	/* III: buildings */
	uint8_t sales;		/* tiles put up for sale this turn */
	uint8_t last_buyer;	/* SY_NONE before the first purchase */
	uint8_t sale_slot;	/* slot on sale, SY_NONE between sales */
	uint8_t bid_hi, bid_seat;
	uint8_t tap_left;	/* characters the buyer still taps */
	/* IV: income */
	uint8_t temples_left, taverns_left;	/* of the decider */
	uint8_t tavern_moved;	/* bit per track moved by a Tavern this phase */
	/* V: events */
	uint8_t ev_row[SY_EV_ROW];	/* top to bottom; slot 3 the Decadencia */
	uint8_t ev_deck[SY_EV_DECK];	/* face down, top = ev_deck[nev_deck - 1] */
	uint8_t nev_deck;
	uint16_t ev_gone;	/* bit per event removed from the game */
	uint8_t cubes[SY_EV_ROW][SY_MAX_PLAYERS];
	uint8_t avoided;	/* bit per slot avoided this turn */
	uint8_t avoid_left;	/* SS_AVOID: slots the First Consul still picks */
	uint8_t occur;		/* next slot to look at for effects */
	/* VI: the Great Works, shuffled; works[0] is removed at setup, turn t
	 * builds works[t]; works[0..known] are public */
	uint8_t works[SG_COUNT];
	uint8_t known;

	uint8_t track[ST_COUNT];
	uint8_t famine;
	uint8_t supply[ST_COUNT];	/* tokens beside the board */
	uint8_t cranes;			/* Crane cards not taken */

	/* characters */
	uint64_t own[SY_MAX_PLAYERS];
	uint64_t tapped, down;
	uint8_t deck[SY_CHARS];
	uint8_t ndeck;
	uint8_t unseen;		/* the top `unseen` cards of the deck were never shown */
	uint8_t row[SY_ROW];	/* display, SY_NONE = empty */

	/* building tiles: stack (top = stack[nstack - 1]) and the row */
	uint8_t stack[SY_TILES];
	uint8_t nstack;
	uint8_t tiles[SY_ROW];	/* tile index, SY_NONE = empty */

	struct sylla_player p[SY_MAX_PLAYERS];
	struct rng rng;
};

/* ---- rules (sylla.c) ---- */

extern const struct game_ops sylla_ops;

int sylla_parse_options(const char *options, uint8_t *opts, struct buf *err);
int sylla_setup(void *st, int players, uint64_t seed, const char *options, struct buf *err);
unsigned sylla_awaiting(const void *st);
int sylla_moves(const void *st, int seat, struct move_list *out);
int sylla_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err);
int sylla_result(const void *st, struct game_result *out);

/* Characters of seat that are face up (not turned over by an event). */
static inline uint64_t sylla_up(const struct sylla_state *s, int seat)
{
	return s->own[seat] & ~s->down;
}

/* Characters and Cranes seat can still buy with in colour c. */
int sylla_buy_power(const struct sylla_state *s, int seat, int colour);
/* Face-up untapped Senators: the votes a seat brings without money. */
int sylla_senators(const struct sylla_state *s, int seat);
/* Denarii a seat gets in phase IV now. */
int sylla_income(const struct sylla_state *s, int seat);
/* Number of characters a seat picks at setup: 4, 6 with 3 players. */
int sylla_pick_count(const struct sylla_state *s);
/* The event in slot i is still in play and fought by kind (SK_VESTAL...). */
static inline int sylla_fights(int event, int kind)
{
	return event < SE_COUNT && ((sylla_events[event].fought >> kind) & 1);
}
/* Prestige a rank (0-based) or a vote count earns at Great Work w. */
int sylla_work_points(int w, int rank, int votes);
/* Prestige a player's tokens are worth at the track positions now. */
int sylla_token_points(const struct sylla_state *s, int seat);
/* Whether a visible event keeps card (0..39) or zone kind (SY_CHARS + z)
 * face down. */
int sylla_covered(const struct sylla_state *s, int what);
/* Whether seat may turn `what` over for the event being resolved
 * (SY_NONE: whether it has nothing to turn over). */
int sylla_hide_valid(const struct sylla_state *s, int seat, int what);
/* Event slots the First Consul may still choose to avoid. */
unsigned sylla_avoid_candidates(const struct sylla_state *s);
/* The secret step's seats (SS_PICK...) are awaited together. */
static inline int sylla_secret_step(int step)
{
	return step == SS_PICK || step == SS_SEALED || step == SS_HIDE || step == SS_VOTE ||
	       step == SS_FREE;
}

/* ---- test helpers (sylla.c): keep every piece accounted for ---- */

/* Moves card (0..39), wherever it is, to seat's zone face up, untapped. */
void sylla_give_char(struct sylla_state *s, int seat, int card);
/* Puts a building of zone kind z in seat's zone (from the box: tests). */
void sylla_give_zone(struct sylla_state *s, int seat, int z);
/* Moves tokens from the supply to seat, seen by the table or not. */
void sylla_give_tokens(struct sylla_state *s, int seat, int track, int n, int seen);
/* Sets seat's money, the bank paying or taking the difference. */
void sylla_set_money(struct sylla_state *s, int seat, int money);
/* Puts event e in slot i of the row (from the deck; the old one to the
 * deck's top). */
void sylla_set_event(struct sylla_state *s, int slot, int e);
/* Puts a building tile of `type` in the row's slot, which holds a tile
 * (one still in the game: from the row or the stack, which gets the old
 * one in its place). */
void sylla_put_tile(struct sylla_state *s, int slot, int type);
/* Moves the game on to turn `turn` (>= the current one) as if the turns
 * between had been played without buildings or events changing hands:
 * tiles leave the stack, events leave the deck, Great Works become known. */
void sylla_set_turn(struct sylla_state *s, int turn);
/* Starts phase `phase` of the current turn with the First Consul fc (for
 * scenario tests: the position must be otherwise ready). */
void sylla_start_phase(struct sylla_state *s, int phase, int fc, struct game_log *log);

/* ---- text (render.c) ---- */

void sylla_move_id(const void *st, int seat, struct move m, struct buf *out);
void sylla_move_label(const void *st, int seat, struct move m, enum locale loc, struct buf *out);
void sylla_prompt(const void *st, int seat, enum locale loc, struct buf *out);
void sylla_idle_reason(const void *st, int seat, enum locale loc, struct buf *out);
void sylla_render_public(const void *st, const struct game_view *v, struct rich *out);
void sylla_render_private(const void *st, int seat, const struct game_view *v, struct rich *out);
void sylla_secrets(const void *st, enum locale loc, struct buf *out);
void sylla_intro(const void *st, struct game_log *log);
/* Short names for log lines and labels. */
void sylla_char_name(int card, enum locale loc, struct buf *out);
const char *sylla_tile_name(int tile, enum locale loc);
/* "«7 denarii · civic spirit 2 · health 1 · leisure 0»": the screen's
 * contents as the private view and secrets() write them. */
void sylla_screen_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out);
/* "«...»": a pending secret choice, as the private view and secrets()
 * write it; nothing when the seat has none. */
void sylla_choice_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out);
/* The Res Publica tokens beside the board, as the table sees them: how
 * many in all, never how many of each colour (with the colours it saw, the
 * table would tell those of the tokens taken in secret), and which colours
 * have run out (an empty pile is in view): "112", "97; none left: health". */
int sylla_supply_total(const struct sylla_state *s);
void sylla_supply_text(const struct sylla_state *s, enum locale loc, struct buf *out);
/* Pieces of the public board the picture (scene.c) shares: the phase's
 * title, and the Great Works line ("Baths; next: ...") appended to b. */
const char *sylla_phase_title(const struct sylla_state *s, enum locale loc);
void sylla_works_text(const struct sylla_state *s, enum locale loc, struct buf *b);

/* "Vestal 2, Legionary 1": the phase V cubes seat has left (board, prompt). */
void sylla_cubes_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out);
/* "1 turned, 1 usable next turn": seat's face-up Cranes that cannot buy
 * now, nothing when all can. */
void sylla_cranes_text(const struct sylla_state *s, int seat, enum locale loc, struct buf *out);
/* The board's last line: what * means, what stays behind the screens. */
const char *sylla_legend(enum locale loc);

/* ---- the picture (scene.c) ---- */

int sylla_scene(const void *st, int seat, const struct game_view *v, struct scene *out);

/* ---- rule summaries and card texts (rules.c) ---- */

int sylla_rules(const char *topic, enum locale loc, struct rich *out);
int sylla_card(const char *name, const char *options, enum locale loc, struct rich *out);
void sylla_card_names(enum locale loc, struct buf *out);

/* ---- AI (ai.c, determinize.c) ---- */

int sylla_bot_move(const void *st, int seat, struct rng *rng, struct move *out);
/* The whole secret choice the bot would make for seat in the secret step
 * under way: picks, thumb and amount written into *out (the rest left). */
void sylla_bot_secret(const struct sylla_state *s, int seat, struct rng *rng,
		      struct sylla_player *out);
void sylla_determinize(void *st, int seat, struct rng *rng);

/* ---- persistence and invariants (save.c, check.c) ---- */

json_t *sylla_save(const void *st);
int sylla_load(void *st, const json_t *j, struct buf *err);
int sylla_check(const void *st, struct buf *err);

#endif
