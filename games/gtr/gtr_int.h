/*
 * gtr_int.h: the private interface of the Glory to Rome rules files.
 *
 * Owns what the rules files share and nothing else: the log macros, the
 * counting helpers of the hot path (static inline: playouts reach them at
 * every decision, and a call across files would cost more than the count),
 * the small pieces of the turn several chapters touch (drawing, the frame
 * stack's top, the end-of-game test), and the declarations of the functions
 * one chapter calls in another.  The chapters:
 *
 *   gtr.c        the decisions: awaiting(), moves() and apply() dispatch by
 *                step; lead and follow (units, petitions); the driver table
 *   setup.c      setup, its options and the leader draw (experienced picks)
 *   flow.c       the rest of the turn: Think (Vomitorium, Letrinas), the
 *                action phase's frame stack and action counts, the end of
 *                the turn (Senado, Alcantarillado, Academia)
 *   roles.c      the actions of Laborer, Craftsman, Architect, Merchant and
 *                Patron, with foundations, materials and structure lookups
 *   legion.c     the Legionary: the demand, the pool, the victims' gifts,
 *                Coliseo
 *   buildings.c  the buildings' powers: the function and limit caches,
 *                completion bonuses, Prisión
 *   score.c      the end of the game (end conditions, Foro, concession) and
 *                scoring
 *   position.c   the position helpers tests build states with
 *
 * Every file that changes the state is reached only from gtr_apply() with
 * a move gtr_moves() listed, so the step functions below assume legality
 * unless they say they check it.
 *
 * Include it only from the rules files above and cards.c (the public
 * counts): render.c, save.c, ai.c and the tests use gtr.h, whose names are
 * stable; nothing here is.
 */
#ifndef GAMES_GTR_GTR_INT_H
#define GAMES_GTR_GTR_INT_H

#include <string.h>

#include "games/gtr/gtr.h"

#define LOGF(log, ...) do { if (log) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))
#define CNAME(log, c) ((c) == GTR_JACK ? gtr_jack.name[LOC(log)] : \
		       (c) < GC_COUNT ? gtr_cards[(c)].name[LOC(log)] : "?")
#define MNAME(log, m) ((m) < GM_COUNT ? gtr_materials[(m)].name[LOC(log)] : "?")
#define RNAME(log, r) ((r) < GR_COUNT ? gtr_roles[(r)].name[LOC(log)] : "?")
#define A_ROLE(log, r) ((r) < GR_COUNT ? gtr_a_role[(r)][LOC(log)] : "?")

#define BIT(c) (1ULL << (c))

/* ---- counting ---- */

/*
 * Counting is the hot path of random playouts: the card arrays are summed
 * eight bytes at a time (exact for any byte values: pairs are added in
 * 16-bit lanes).  The materials' name ranges are fixed by enum gtr_card.
 */
_Static_assert(GC_CIRCUS == 4 && GC_ACADEMY == 8 && GC_AQUEDUCT == 16 &&
	       GC_SEWER == 24 && GC_BASILICA == 32 && GC_COUNT == 40,
	       "material ranges of enum gtr_card");

/* Bytes p[0..8) with p[i] as byte i of the value (bits 8i..8i+7) on any
 * machine: the byte tricks below map bytes to names by position. */
static inline uint64_t load8(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

static inline void store8(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, sizeof(x));
}

static inline int sum_bytes(uint64_t x)
{
	x = (x & 0x00ff00ff00ff00ffULL) + ((x >> 8) & 0x00ff00ff00ff00ffULL);
	return (int)((x * 0x0001000100010001ULL) >> 48);
}

/* The 8 bytes holding material m's names and the part of them that is m:
 * rubble and wood share the first word.  Tables, not a branch: the role
 * asked is random in playouts. */
static const uint8_t material_word[GM_COUNT] = { 0, 0, 8, 16, 24, 32 };
static const uint64_t material_bytes[GM_COUNT] = {
	0xffffffffULL, 0xffffffff00000000ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL,
};

static inline int count_of(const uint8_t *cards, int m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return sum_bytes(load8(cards + material_word[m]) & material_bytes[m]);
#else
	int c, n = 0;

	for (c = gtr_first[m]; c < gtr_first[m + 1]; c++)
		n += cards[c];
	return n;
#endif
}

static inline int total_of(const uint8_t *cards, int n)
{
	int c = 0, t = 0;

	for (; c + 8 <= n; c += 8)
		t += sum_bytes(load8(cards + c));
	for (; c < n; c++)
		t += cards[c];
	return t;
}

/*
 * The 40 building names of a zone: how many cards, whether any.  Every
 * count is at most the 6 copies of a name (check() sees to it), so the
 * five words add without a byte carrying.
 */
static inline int cards40(const uint8_t *cards)
{
	return sum_bytes(load8(cards) + load8(cards + 8) + load8(cards + 16) +
			 load8(cards + 24) + load8(cards + 32));
}

static inline int any40(const uint8_t *cards)
{
	return (load8(cards) | load8(cards + 8) | load8(cards + 16) | load8(cards + 24) |
		load8(cards + 32)) != 0;
}

/* Bit c per name c < n (n <= 64) with cards[c] != 0: the names held, to
 * walk with a count-trailing-zeros instead of testing every name. */
static inline uint64_t present(const uint8_t *cards, int n)
{
	uint64_t bits = 0;
	int c = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; c + 8 <= n; c += 8) {
		uint64_t x = load8(cards + c);
		uint64_t t = ((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x;

		t = (t >> 7) & 0x0101010101010101ULL;	/* 1 per non-zero byte */
		bits |= ((t * 0x0102040810204080ULL) >> 56) << c;
	}
#endif
	for (; c < n; c++)
		bits |= (uint64_t)(cards[c] != 0) << c;
	return bits;
}

/* Bit i per non-zero byte i of x. */
static inline unsigned nonzero_bytes(uint64_t x)
{
	uint64_t t = ((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x;

	t = (t >> 7) & 0x0101010101010101ULL;
	return (unsigned)((t * 0x0102040810204080ULL) >> 56);
}

/* Bit m per material m of which the 40 names of cards hold a card. */
static inline unsigned materials_held(const uint8_t *cards)
{
	uint64_t w0 = load8(cards);

	return (unsigned)((w0 & 0xffffffffULL) != 0) | (unsigned)((w0 >> 32) != 0) << 1 |
	       (unsigned)(load8(cards + 8) != 0) << 2 | (unsigned)(load8(cards + 16) != 0) << 3 |
	       (unsigned)(load8(cards + 24) != 0) << 4 | (unsigned)(load8(cards + 32) != 0) << 5;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Bit c per name c of material m with cards[c] != 0. */
static inline uint64_t held_names(const uint8_t *cards, int m)
{
	uint64_t x = load8(cards + material_word[m]) & material_bytes[m];

	return (uint64_t)nonzero_bytes(x) << material_word[m];
}
#else
static inline uint64_t held_names(const uint8_t *cards, int m)
{
	uint64_t bits = 0;
	int c;

	for (c = gtr_first[m]; c < gtr_first[m + 1]; c++)
		bits |= (uint64_t)(cards[c] != 0) << c;
	return bits;
}
#endif

static inline int next_bit(uint64_t *bits)
{
	int c = __builtin_ctzll(*bits);

	*bits &= *bits - 1;
	return c;
}

/* Where a name counts in gtr_player.hcount: its material, 6 a Senador. */
static const uint8_t hand_slot[GTR_NAMES] = {
	0, 0, 0, 0, 1, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,
	6,
};

#define HAND_MATERIALS 0x0000ffffffffffffULL	/* hcount bytes of the 6 materials */

/* Bit per name of material m. */
static const uint64_t material_names[GM_COUNT] = {
	0xfULL, 0xf0ULL, 0xff00ULL, 0xff0000ULL, 0xff000000ULL, 0xff00000000ULL,
};

/* Every change of a hand goes through these two, which keep hcount. */
static inline void hand_in(struct gtr_player *p, int c)
{
	p->hand[c]++;
	p->hcount[hand_slot[c]]++;
}

static inline void hand_out(struct gtr_player *p, int c)
{
	p->hand[c]--;
	p->hcount[hand_slot[c]]--;
}

/* Hand cards (Senadores included). */
static inline int hand_size(const struct gtr_player *p)
{
	return sum_bytes(load8(p->hcount));
}

/* The first card of material m in cards, or -1. */
static inline int first_of(const uint8_t *cards, int m)
{
	uint64_t bits = held_names(cards, m);

	return bits ? __builtin_ctzll(bits) : -1;
}

/* ---- cached per seat (buildings.c keeps them) ---- */

/* Bit per name whose function seat has now (see gtr_has). */
static inline uint64_t fn_mask(const struct gtr_state *s, int seat)
{
	return s->p[seat].fn;
}

static inline int client_room(const struct gtr_state *s, int seat)
{
	return cards40(s->p[seat].clients) < gtr_client_limit(s, seat);
}

static inline int vault_room(const struct gtr_state *s, int seat)
{
	return cards40(s->p[seat].vault) < gtr_vault_limit(s, seat);
}

/* ---- drawing ---- */

/* The top card of the deck (GTR_NONE when empty); an empty deck after it
 * ends the game ("Se acaba el Mazo"). */
static inline int draw(struct gtr_state *s)
{
	int c;

	if (s->ndeck == 0)
		return GTR_NONE;
	c = s->deck[--s->ndeck];
	s->deck[s->ndeck] = 0;	/* unused entries stay 0: states compare bytewise */
	if (s->ndeck == 0 && !s->ending)
		s->ending = GE_DECK;
	return c;
}

/* ---- the action phase's frames (flow.c runs them) ---- */

#define FRAME_ALL 255	/* gtr_action_done: the whole top frame is spent */

static inline int frame_left(const struct gtr_state *s, int seat, const struct gtr_frame *f)
{
	int total = f->dyn ? gtr_turn_actions(s, seat) : f->count, left = total - f->used;

	return left & -(left > 0);	/* max(left, 0) without a branch */
}

static inline int top_left(const struct gtr_state *s)
{
	if (!s->nframes)
		return 0;
	return frame_left(s, gtr_current(s), &s->frames[s->nframes - 1]);
}

static inline int top_kind(const struct gtr_state *s)
{
	return s->nframes ? s->frames[s->nframes - 1].kind : GTR_NONE;
}

static inline void pend(struct gtr_state *s, int kind, int count)
{
	if (count <= 0 || s->npend >= GTR_MAX_PEND)
		return;
	if (count > 250)
		count = 250;
	s->pend[s->npend].kind = (uint8_t)kind;
	s->pend[s->npend].dyn = 0;
	s->pend[s->npend].count = (uint8_t)count;
	s->pend[s->npend].used = 0;
	s->npend++;
}

/* ---- move lists ---- */

static inline void add(struct move_list *out, int kind, int a, int b, int c)
{
	/* one 8-byte store rather than four */
	struct move m = { (uint16_t)kind, (uint16_t)a, (uint16_t)b, (uint16_t)c };

	if (out->n >= MOVE_LIST_MAX)
		return;
	out->v[out->n++] = m;
}

static inline void think_moves(const struct gtr_state *s, struct move_list *out)
{
	add(out, GK_THINK, GTR_THINK_DRAW, 0, 0);
	if (s->jacks)
		add(out, GK_THINK, GTR_THINK_JACK, 0, 0);
}

/* ---- the Legionary's demand (legion.c), asked by the frame loop too ---- */

static inline int demanded(const struct gtr_state *s, int m)
{
	int i, n = 0;

	for (i = 0; i < s->leg_k; i++)
		n += s->leg_dem[i] == m;
	return n;
}

/* Hand cards that may still be revealed for a demand. */
static inline int legion_revealable(const struct gtr_state *s, int seat)
{
	int m, n = 0;

	for (m = 0; m < GM_COUNT; m++) {
		int k = s->p[seat].hcount[m] - demanded(s, m);

		if (k > 0)
			n += k;
	}
	return n;
}

/* ---- the end of the game (score.c) ---- */

/* Ends the game now for reason (enum gtr_end), winner or GTR_NONE: the
 * interrupted turn is dropped, Fuente's card goes to its holder's hand. */
void gtr_finish(struct gtr_state *s, int reason, int winner, struct game_log *log);
/* Finishes the game when a seat fulfils a Foro (1), else 0. */
int gtr_forum_over(struct gtr_state *s, struct game_log *log);
/* Seat concedes (a meta decision); the last seat standing wins. */
__attribute__((cold)) void gtr_concede(struct gtr_state *s, int seat, struct game_log *log);

/*
 * 1 when the game is (now) over: a pending end condition or a Foro.  It
 * depends on the phase (over or not), `ending`, and what the Foro looks at
 * (structures, clients, stockpiles); the loops of flow.c that only move
 * the cursor, frames or camps call it once, before looping.
 */
static inline int over_now(struct gtr_state *s, struct game_log *log)
{
	/* nothing pending and no Foro function anywhere (none at all with
	 * nofunctions): the usual case, one test */
	if (!(s->ending | (s->phase == GP_OVER) | ((s->any_fn >> GC_FORUM) & 1)))
		return 0;
	if (s->phase == GP_OVER)
		return 1;
	if (s->ending) {
		gtr_finish(s, s->ending, GTR_NONE, log);
		return 1;
	}
	return gtr_forum_over(s, log);
}

/*
 * ---- the steps ----
 *
 * Each decision step's moves and its apply live with the chapter that owns
 * the step; gtr.c dispatches to them.  *_moves(s, seat, out) appends the
 * step's moves in the order the list shows them; *_apply(s, seat, m, log)
 * applies a move gtr.c found in that list; *_play(s, seat, m, log), for
 * the steps playouts reach most, checks m itself without building the
 * list, then applies it: 0, or -1 with nothing changed.
 */

/* setup.c: GS_PICK (experienced: the leader cards). */
void gtr_pick_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_pick_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);

/* flow.c: the turn around the units and the actions. */
/* Clears the turn's traces and asks the leader (ends a finished game
 * instead). */
void gtr_begin_turn(struct gtr_state *s, struct game_log *log);
/* The next seat to follow, or the action phase once all have. */
void gtr_follow_next(struct gtr_state *s, struct game_log *log);
/* A Think of kind (GTR_THINK_*) by seat: Vomitorium and Letrinas first. */
void gtr_think_start(struct gtr_state *s, int seat, int kind, struct game_log *log);
/* The current action is over: it spent `consumed` actions of the top frame
 * (FRAME_ALL: the whole frame); frames earned meanwhile go on top; then
 * the next decision of the action phase. */
void gtr_action_done(struct gtr_state *s, int consumed, struct game_log *log);
/* The camps' cards to the pool, their Senadores to the pile. */
void gtr_cleanup_camps(struct gtr_state *s);
void gtr_vomit_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_vomit_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_latrine_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_latrine_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_think_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_think_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_senate_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_senate_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_sewer_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_sewer_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);

/* roles.c: GS_ACTION (the top frame's role), GS_MATERIAL, GS_FOUNTAIN. */
/* Whether the top frame's action of kind has an option besides `done`. */
int gtr_action_options(const struct gtr_state *s, int seat, int kind);
void gtr_action_moves(const struct gtr_state *s, int seat, struct move_list *out);
int gtr_action_play(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_material_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_material_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_fountain_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_fountain_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);

/* legion.c: GS_LEGION, GS_LEGION_POOL, GS_GIVE, GS_COLISEUM. */
/* Forgets every part of a demand (its end, a new turn, the game's end). */
void gtr_legion_clear(struct gtr_state *s);
void gtr_legion_moves(const struct gtr_state *s, int seat, struct move_list *out);
int gtr_legion_play(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_legion_pool_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_legion_pool_apply(struct gtr_state *s, int seat, struct move m,
			   struct game_log *log);
void gtr_give_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_give_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);
void gtr_coliseum_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_coliseum_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);

/* buildings.c: the caches, completion, Prisión (GS_PRISON). */
/* Seat i's caches that follow from its structures, its influence pile and
 * the public buildings (and the table's any_fn). */
void gtr_refresh_seat(struct gtr_state *s, int i);
/* Structure t of seat is complete: influence, then its completion bonus
 * (pending frames, or the Catacumbas' end). */
void gtr_complete(struct gtr_state *s, int seat, struct gtr_struct *t, struct game_log *log);
/* How many buildings seat may steal with its Prisión now. */
int gtr_prison_targets(const struct gtr_state *s, int seat);
void gtr_prison_moves(const struct gtr_state *s, int seat, struct move_list *out);
void gtr_prison_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log);

#endif
