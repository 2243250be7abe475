/*
 * fortuna_int.h: the private interface of Fortuna's rules files.
 *
 * Owns what the rules files share and nothing else: the log macros, the
 * small pieces of the state several phases touch (the slot masks, money,
 * resources, water, the track, the buildings; static inline: playouts
 * reach them at every decision), the move list writers, and the
 * declarations of the functions one file calls in another.  The files, by
 * phase of a turn (see fortuna.c for the whole):
 *
 *   fortuna.c     the decisions: awaiting(), moves() and apply() dispatch
 *                 by step through two tables, settle() (the forced
 *                 decisions), the public small queries, the driver table
 *   setup.c       setup, and with `draft` the draft and the hidden cards
 *                 (FS_DRAFT, FS_HIDE)
 *   turn.c        the turn and the round: phase 1 (Acueducto's water), a
 *                 turn's start and end, the round's end
 *   actions.c     phases 2 and 3: the card chosen (FS_CHOOSE), its action
 *                 (FS_ACTION, Corruption included), the exchange
 *                 (FS_EXCHANGE), the military (FS_MILITARY)
 *   favours.c     phase 4: the roll, the die (FS_DIE), the favour
 *                 delivered or the tax (FS_FAVOUR), the first player's
 *                 flip with 2 players (FS_FLIP)
 *   privileges.c  phase 5 and the privilege cards: the deck, the draw,
 *                 keeping (FS_KEEP), the Palace draw, FS_END, type A/B
 *                 cards played (FM_PRIV) and the resource of choice
 *                 (FS_RESOURCE)
 *
 * Every file that changes the state is reached only from fortuna_apply()
 * with a move fortuna_moves() lists (the *_legal checks say so without
 * the list), so the step functions assume legality.
 *
 * Include it only from the rules files above: render.c, save.c, ai.c and
 * the tests use fortuna.h, whose names are stable; nothing here is.
 */
#ifndef GAMES_FORTUNA_FORTUNA_INT_H
#define GAMES_FORTUNA_FORTUNA_INT_H

#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "games/fortuna/fortuna.h"

/* fortuna.c */
int fortuna_decider_rare(const struct fortuna_state *s);
int fortuna_awaits_rare(const struct fortuna_state *s, int seat);
void fortuna_log_capped(struct game_log *log, int seat, int want, int got);
void fortuna_log_advance(struct game_log *log, int seat, int to, int arrival);
int fortuna_refuse(const struct fortuna_state *s, int seat, struct game_log *log, struct buf *err);
void fortuna_settle(struct fortuna_state *s, struct game_log *log);

/* setup.c */
int fortuna_moves_draft(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_hide(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_apply_draft(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			struct buf *err);
int fortuna_apply_hide(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err);

/* turn.c */
int fortuna_priv_playable(const struct fortuna_state *s, int seat);
void fortuna_end_turn(struct fortuna_state *s, struct game_log *log);
void fortuna_start_turn(struct fortuna_state *s, struct game_log *log);

/* actions.c */
int fortuna_moves_choose(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_action(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_exchange(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_military(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_apply_choose(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err);
int fortuna_apply_action(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err);
int fortuna_apply_exchange(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			   struct buf *err);
int fortuna_apply_military(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			   struct buf *err);

/* favours.c */
void fortuna_roll_dice(struct fortuna_state *s, struct game_log *log);
void fortuna_start_phase4(struct fortuna_state *s, struct game_log *log);
int fortuna_moves_die(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_favour(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_flip(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_apply_die(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		      struct buf *err);
int fortuna_apply_favour(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err);
int fortuna_apply_flip(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err);

/* privileges.c */
void fortuna_phase5(struct fortuna_state *s, struct game_log *log);
int fortuna_priv_moves(const struct fortuna_state *s, int seat, struct move *v, int n);
int fortuna_moves_keep(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_end(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_moves_resource(const struct fortuna_state *s, int seat, struct move_list *out);
int fortuna_apply_keep(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err);
int fortuna_apply_end(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		      struct buf *err);
int fortuna_apply_resource(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			   struct buf *err);
int fortuna_apply_priv(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err);

/* ---- logging and small helpers ---- */

/* Playouts pass no log: the logging stays out of their straight path. */
#define LOGF(log, ...) \
	do { if (__builtin_expect((log) != NULL, 0)) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

/* ---- small helpers ---- */

static inline int me(const struct fortuna_state *s)
{
	return s->order[s->turn];
}

static inline int min_int(int a, int b)
{
	return a < b ? a : b;
}

static inline const char *coins(enum locale loc, int n)
{
	return n == 1 ? L(loc, "coin", "moneda") : L(loc, "coins", "monedas");
}
_Static_assert(FP_STEP == 5 && FP_WATER_ANY == 0, "fortuna_priv_moves reads kinds 0..5");
/*
 * The 12 slots of the board as a bit mask: bit 3 * side + slot.  Finding a
 * card, or "a face-up card on another side", is then a few word operations
 * on the 12 bytes of side_card and side_down instead of a loop whose exit
 * random play makes unpredictable (a hot path of playouts).
 */
#define SLOT_BITS (FORTUNA_SIDES * FORTUNA_SLOTS)
#define SIDE_MASK(t) (7u << (3 * (t)))

_Static_assert(FORTUNA_SLOTS == 3 && SLOT_BITS == 12, "slot masks assume 4 sides of 3");

#ifdef __SSE2__
/* Bit i set for each byte p[i] == x, i < 12: one compare of 16 bytes.  The
 * 4 bytes read past the 12 still lie inside the state (asserted below for
 * side_card, side_down and fav_up) and are masked off. */
static inline unsigned eq_bytes12(const uint8_t *p, uint8_t x)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)x))) & 0xfffu;
}

_Static_assert(offsetof(struct fortuna_state, side_card) + 16 <= sizeof(struct fortuna_state) &&
	       offsetof(struct fortuna_state, side_down) + 16 <= sizeof(struct fortuna_state) &&
	       offsetof(struct fortuna_state, fav_up) + 16 <= sizeof(struct fortuna_state),
	       "eq_bytes12 reads 16 bytes of the board");
#else
/* Bit i set for each byte p[i] == 0, i < 8 (p[0..8) read as little endian
 * whatever the machine's order: the compiler makes it one load). */
static inline unsigned zero_bytes8(const uint8_t *p, uint64_t x)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t v = ((uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		      (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
		      (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56) ^ x;
	/* 0x80 exactly in the zero bytes (no borrow between bytes), then
	 * those 8 bits gathered into one byte by a multiplication. */
	uint64_t z = ~(((v & low7) + low7) | v | low7);

	return (unsigned)(((z >> 7) * 0x0102040810204080ULL) >> 56);
}

static inline unsigned zero_bytes4(const uint8_t *p, uint32_t x)
{
	const uint32_t low7 = 0x7f7f7f7fu;
	uint32_t v = ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		      (uint32_t)p[3] << 24) ^ x;
	uint32_t z = ~(((v & low7) + low7) | v | low7);

	return (unsigned)(((z >> 7) * 0x00204081u) >> 21) & 0xfu;
}

/* Bit i set for each byte p[i] == x, i < 12, a few word operations. */
static inline unsigned eq_bytes12(const uint8_t *p, uint8_t x)
{
	uint64_t xx = 0x0101010101010101ULL * x;

	return zero_bytes8(p, xx) | zero_bytes4(p + 8, (uint32_t)xx) << 8;
}
#endif

/* Slots holding action card `card`. */
static inline unsigned card_slots(const struct fortuna_state *s, int card)
{
	if ((unsigned)card > 255)
		return 0;
	return eq_bytes12(&s->side_card[0][0], (uint8_t)card);
}

/* Face-up slots. */
static inline unsigned up_slots(const struct fortuna_state *s)
{
	return eq_bytes12(&s->side_down[0][0], 0);
}

/* Face-up favour cards whose number (c + 1) is at most the die: bit c. */
static inline unsigned fav_avail(const struct fortuna_state *s)
{
	unsigned up = ~eq_bytes12(s->fav_up, 0);

	return up & (s->die < FF_COUNT ? (1u << s->die) - 1 : (1u << FF_COUNT) - 1);
}

/* The side of slot bit i (i / 3 for i < 12). */
static inline int slot_side(int i)
{
	return (i * 11) >> 5;
}

static inline int find_card(const struct fortuna_state *s, int card, int *slot)
{
	unsigned m = card_slots(s, card);
	int i, t;

	if (!m)
		return -1;
	i = __builtin_ctz(m);
	t = slot_side(i);
	if (slot)
		*slot = i - 3 * t;
	return t;
}
/* Position in turn order of the seat making draft pick k: the last seat
 * first, then backwards to the first seat; the third time round the first
 * seat, which began with the Fortuna card, is left out. */
static inline int draft_pos(int k, int n)
{
	if (k < 2 * n)
		return n - 1 - k % n;
	return n - 1 - (k - 2 * n);
}

/* The seats still to reserve a card (FS_HIDE): every seat chooses at once
 * ("cada uno de los jugadores reserva una de sus tres cartas"), and a
 * choice made is the face-down flag on its side, seen by nobody else until
 * all have chosen (docs/games/fortuna.md). */
static inline unsigned hide_pending(const struct fortuna_state *s)
{
	unsigned m = 0;
	int t;

	for (t = 0; t < s->nplayers; t++)
		if (!(s->side_down[t][0] | s->side_down[t][1] | s->side_down[t][2]))
			m |= 1u << t;
	return m;
}
static inline int decider_of(const struct fortuna_state *s)
{
	_Static_assert(FS_DRAFT == 0 && FS_HIDE == 1 && FS_OVER == FS_COUNT - 1,
		       "the steps of a turn lie between FS_HIDE and FS_OVER");
	if (__builtin_expect((unsigned)(s->step - FS_CHOOSE) < FS_OVER - FS_CHOOSE, 1))
		return me(s);	/* the usual case */
	return fortuna_decider_rare(s);
}
/* Whether seat is awaited now (several seats are while reserving): the
 * steps of a turn as in decider_of(), the setup out of line. */
static inline int awaits(const struct fortuna_state *s, int seat)
{
	if (__builtin_expect((unsigned)(s->step - FS_CHOOSE) < FS_OVER - FS_CHOOSE, 1))
		return me(s) == seat;
	return fortuna_awaits_rare(s, seat);
}

/* Returns the coins actually gained. */
static inline int add_money(struct fortuna_state *s, int seat, int n)
{
	int had = s->p[seat].money, m = had + n;

	/* "Un jugador no puede tener más de 20 monedas": the excess is lost. */
	s->p[seat].money = (uint8_t)(m > FORTUNA_MONEY_MAX ? FORTUNA_MONEY_MAX : m);
	return s->p[seat].money - had;
}
/* Takes up to n units from a supply; returns how many were given. */
static inline int take(uint8_t *have, uint8_t *supply, int n)
{
	n = min_int(n, *supply);
	*have = (uint8_t)(*have + n);
	*supply = (uint8_t)(*supply - n);
	return n;
}

static inline int gain_resource(struct fortuna_state *s, int seat, int r, int n)
{
	struct fortuna_player *p = &s->p[seat];

	switch (r) {
	case FR_WATER:
		return take(&p->water, &s->sup_water, n);
	case FR_GRAIN:
		return take(&p->grain, &s->sup_grain, n);
	default:
		return take(&p->wine, &s->sup_wine, n);
	}
}

/* Water is paid from the Acueducto first: keeping it empty refills it. */
static inline void spend_water(struct fortuna_state *s, int seat, int n)
{
	struct fortuna_player *p = &s->p[seat];
	int a = min_int(n, p->aq_water);

	p->aq_water = (uint8_t)(p->aq_water - a);
	p->water = (uint8_t)(p->water - (n - a));
	s->sup_water = (uint8_t)(s->sup_water + n);
}
static inline void advance(struct fortuna_state *s, int seat, int n, struct game_log *log)
{
	struct fortuna_player *p = &s->p[seat];
	int to = min_int(p->steps + n, FORTUNA_PALACE), arrival = 0;

	if (to == p->steps)
		return;
	p->steps = (uint8_t)to;
	if (to == FORTUNA_PALACE && !p->arrival) {
		arrival = p->arrival = ++s->narrived;
		s->ending = 1;
		s->palace_due = 1;
	}
	if (log)
		fortuna_log_advance(log, seat, to, arrival);
}

static inline int has_building(const struct fortuna_state *s, int seat, int b)
{
	return (s->p[seat].buildings >> b) & 1;
}

static inline int building_count(const struct fortuna_state *s, int seat)
{
	_Static_assert(FB_COUNT == 4, "a nibble of counts per 4-bit set of buildings");
	/* nibble i: the bits set in i (a table in one constant, no loop) */
	return (int)(0x4332322132212110ULL >> (4 * (s->p[seat].buildings & 15)) & 15);
}

/* Coins the next k Centuriones (or Sacerdotisas) cost from `have`. */
static inline int recruit_cost(int have, int k)
{
	int i, c = 0;

	for (i = have + 1; i <= have + k; i++)
		c += i;
	return c;
}

static inline int priestess_cost(int have, int k)
{
	int i, c = 0;

	for (i = have + 1; i <= have + k; i++)
		c += 2 * i - 1;
	return c;
}

static inline int can_build(const struct fortuna_state *s, int seat, int b)
{
	const struct fortuna_player *p = &s->p[seat];

	return !has_building(s, seat, b) && building_count(s, seat) < 3 &&
	       s->bld_left[b] > 0 && p->money >= fortuna_building_cost[b] &&
	       (b != FB_PALACE || p->married);
}

/*
 * Decisions with a single possible answer are taken at once (and logged)
 * when the book leaves no choice and taking them reveals nothing: the
 * seat holds no privilege card.  A holder of one is asked as before, since
 * a type A/B card may be played first ("en cualquier momento de su
 * turno"); asking only the holders of those types would tell the table
 * which kinds a seat holds, while the number of cards held is public.
 * Only these steps can have a single answer: FS_DRAFT (the last pick with
 * 4 players), FS_ACTION (only `skip`), FS_DIE, FS_FAVOUR, and FS_END
 * ("end turn" once the last card was played there); FS_CHOOSE,
 * FS_EXCHANGE, FS_MILITARY, FS_FLIP, FS_RESOURCE and FS_HIDE always offer
 * two or more, and FS_KEEP is resolved before it is asked.  The check is
 * made where a turn enters one of them (fortuna_settle(), guarded by cheap tests
 * inline), not after every move: playouts pay for it only there.
 * tests/unit/test_fortuna_play.c fails on a single answer left asked.
 */

static inline int hand_empty(const uint8_t *hand)
{
	uint64_t a;
	uint32_t b;

	_Static_assert(FP_COUNT == 13, "the hand is read as 8 + 4 + 1 bytes");
	memcpy(&a, hand, sizeof(a));
	memcpy(&b, hand + 8, sizeof(b));
	return (a | b | hand[12]) == 0;
}

/*
 * Whether the action being executed offers anything but `skip`: a quick
 * mirror of action_moves (change them together).  It only filters: a
 * card it calls unusable is checked against the full list before its
 * `skip` is taken (forced_move), so a slip here can only miss a case, and
 * tests/unit/test_fortuna_play.c fails on a single answer left asked.
 * The cheap conditions of every card are computed and the card's bit
 * read, without a branch on the card (random in playouts).
 */
static inline int action_usable(const struct fortuna_state *s, int seat)
{
	const struct fortuna_player *p = &s->p[seat];
	unsigned ok = 1u << FA_WATER | 1u << FA_GRAIN | 1u << FA_WINE | 1u << FA_CORRUPTION |
		      1u << FA_FORTUNA;	/* collect, harvest 0, 2 coins, advance */
	unsigned build = 0;
	int b;

	ok |= (unsigned)(p->grain > 0) << FA_SELL_GRAIN;
	ok |= (unsigned)(p->wine > 0) << FA_SELL_WINE;
	ok |= (unsigned)((p->cent < 3) & (s->sup_cent > 0) & (p->cent + 1 <= p->money))
	      << FA_CENTURIONS;
	ok |= (unsigned)((p->priest < 3) & (s->sup_priest > 0) & (2 * p->priest + 1 <= p->money))
	      << FA_PRIESTESSES;
	ok |= (unsigned)((p->priest > 0) & (p->dice < 3) & (s->sup_dice > 0)) << FA_CLERGY;
	ok |= (unsigned)((p->married != 0) | (p->money >= 3)) << FA_FAMILY;
	if (s->act_card == FA_BUILD) {	/* the one dear condition: only for its card */
		for (b = 0; b < FB_COUNT; b++)	/* can_build(), without its branches */
			build |= !((p->buildings >> b) & 1) & (s->bld_left[b] > 0) &
				 (p->money >= fortuna_building_cost[b]) &
				 ((b != FB_PALACE) | (p->married != 0));
		ok |= (build & (building_count(s, seat) < 3)) << FA_BUILD;
	}
	return (ok >> s->act_card) & 1;
}

/* Whether favour_moves lists a single move (change them together): no
 * delivery (each is possible with one unit, as a step is always left, at
 * least nominally), and not both of the cards 5 and 6 -- with one of them
 * the tax is not offered, with neither the tax is the move. */
static inline int favour_single(const struct fortuna_state *s, int seat)
{
	const struct fortuna_player *p = &s->p[seat];
	unsigned avail = fav_avail(s);
	unsigned deliver = ((avail >> FF_WATER) & (fortuna_water(s, seat) >= 1)) |
			   ((avail >> FF_WINE) & (p->wine != 0)) |
			   ((avail >> FF_GRAIN) & (p->grain != 0)) |
			   ((avail >> FF_BATTLE) & (p->cent != 0));
	unsigned both = (avail >> FF_FORTUNA) & (p->married != 0) & (avail >> FF_RELIGION) &
			(p->priest != 0);

	return !((deliver | both) & 1);
}
/* ---- moves ---- */

/*
 * The generators write the list at v[n] and return the new count.  add()
 * appends; put() writes the move whatever cond says and counts it only when
 * cond holds, without a branch: random playouts make these conditions
 * unpredictable, and a store costs less than a mispredicted branch.  As
 * put() writes v[n] even when it does not count it, it is only used while
 * n stays far below MOVE_LIST_MAX (fixed sequences of a few dozen moves at
 * most); add() stops at MOVE_LIST_MAX for the lists whose length follows
 * the state (harvests, sales).
 */
_Static_assert(MOVE_LIST_MAX >= 32, "fortuna_moves lists are short");

static inline int put(struct move *v, int n, int cond, int kind, int a, int b)
{
	struct move m = { (uint16_t)kind, (uint16_t)a, (uint16_t)b, 0 };
	uint64_t bits;

	/* through a word: one store instead of four */
	_Static_assert(sizeof(m) == sizeof(bits), "a move is 8 bytes");
	memcpy(&bits, &m, sizeof(bits));
	memcpy(&v[n], &bits, sizeof(bits));
	return n + (cond != 0);
}

static inline int add(struct move *v, int n, int kind, int a, int b)
{
	if (n >= MOVE_LIST_MAX)
		return n;
	return put(v, n, 1, kind, a, b);
}

static inline int in_turn(int step)
{
	return step >= FS_CHOOSE && step <= FS_END;
}

/* Kinds 0..FP_STEP are the playable types A and B (cards.c); most of the
 * time none is held (a hot path). */
static inline int holds_ab(const uint8_t *hand)
{
	uint32_t a;
	uint16_t b;

	memcpy(&a, hand, sizeof(a));
	memcpy(&b, hand + 4, sizeof(b));
	return (a | b) != 0;
}
/* 1 << v for the values v <= 6 a die byte may hold, 0 for the others. */
static const uint8_t value_bit[256] = {
	1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6,
};

/* Bit v per value v rolled (1..6). */
static inline unsigned rolled_values(const struct fortuna_state *s)
{
	unsigned r = 0;
	int i;

	/* without branches: the dice are random */
#pragma GCC unroll 3
	for (i = 0; i < 3; i++)
		r |= value_bit[s->roll[i]] & -(unsigned)(i < s->nroll);
	return r;
}
/* The list of a setup step. */
static inline int end_list(struct move_list *out, int n)
{
	out->n = n;
	return n;
}

/* The list of a step inside a turn: the type A/B cards come last. */
static inline int end_turn_list(const struct fortuna_state *s, int seat, struct move_list *out,
				int n)
{
	if (holds_ab(s->p[seat].hand))
		n = fortuna_priv_moves(s, seat, out->v, n);
	out->n = n;
	return n;
}
/*
 * Legality without listing: m is one of fortuna_moves(s, seat) exactly when
 * these say so, the same answer as building the list and looking m up (what
 * apply() did before; a random playout paid for every list twice).  Each
 * case mirrors the generator it names: change them together.
 */

/* A card of side t, face up (up = 1) or any, from the slot masks. */
static inline int on_side(const struct fortuna_state *s, int t, int card, int up)
{
	unsigned m = card_slots(s, card) & SIDE_MASK(t);

	return (up ? m & up_slots(s) : m) != 0;
}

#endif
