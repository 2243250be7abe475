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
 * Every function below that changes the state is only reached from apply()
 * with a move that moves() generated, so they assume legality.
 */
#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "games/fortuna/fortuna.h"
#include "util/text.h"

/* Playouts pass no log: the logging stays out of their straight path. */
#define LOGF(log, ...) \
	do { if (__builtin_expect((log) != NULL, 0)) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

/* ---- small helpers ---- */

static int me(const struct fortuna_state *s)
{
	return s->order[s->turn];
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static const char *coins(enum locale loc, int n)
{
	return n == 1 ? L(loc, "coin", "moneda") : L(loc, "coins", "monedas");
}

_Static_assert(FP_STEP == 5 && FP_WATER_ANY == 0, "priv_moves reads kinds 0..5");

int fortuna_water(const struct fortuna_state *s, int seat)
{
	return s->p[seat].water + s->p[seat].aq_water;
}

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

int fortuna_find_card(const struct fortuna_state *s, int card, int *slot)
{
	return find_card(s, card, slot);
}

/* Position in turn order of the seat making draft pick k: the last seat
 * first, then backwards to the first seat; the third time round the first
 * seat, which began with the Fortuna card, is left out. */
static int draft_pos(int k, int n)
{
	if (k < 2 * n)
		return n - 1 - k % n;
	return n - 1 - (k - 2 * n);
}

/* The seats still to reserve a card (FS_HIDE): every seat chooses at once
 * ("cada uno de los jugadores reserva una de sus tres cartas"), and a
 * choice made is the face-down flag on its side, seen by nobody else until
 * all have chosen (docs/games/fortuna.md). */
static unsigned hide_pending(const struct fortuna_state *s)
{
	unsigned m = 0;
	int t;

	for (t = 0; t < s->nplayers; t++)
		if (!(s->side_down[t][0] | s->side_down[t][1] | s->side_down[t][2]))
			m |= 1u << t;
	return m;
}

/* The setup steps and the end, out of line: the division of draft_pos()
 * would make every caller of decider_of() save registers.  FS_HIDE awaits
 * several seats; the first of them in turn order stands for them here. */
__attribute__((noinline, cold))
static int decider_rare(const struct fortuna_state *s)
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

static inline int decider_of(const struct fortuna_state *s)
{
	_Static_assert(FS_DRAFT == 0 && FS_HIDE == 1 && FS_OVER == FS_COUNT - 1,
		       "the steps of a turn lie between FS_HIDE and FS_OVER");
	if (__builtin_expect((unsigned)(s->step - FS_CHOOSE) < FS_OVER - FS_CHOOSE, 1))
		return me(s);	/* the usual case */
	return decider_rare(s);
}

int fortuna_decider(const struct fortuna_state *s)
{
	return decider_of(s);
}

__attribute__((noinline, cold))
static int awaits_rare(const struct fortuna_state *s, int seat)
{
	if (s->step == FS_HIDE)
		return (unsigned)seat < s->nplayers && ((hide_pending(s) >> seat) & 1);
	return decider_rare(s) == seat;
}

/* Whether seat is awaited now (several seats are while reserving): the
 * steps of a turn as in decider_of(), the setup out of line. */
static inline int awaits(const struct fortuna_state *s, int seat)
{
	if (__builtin_expect((unsigned)(s->step - FS_CHOOSE) < FS_OVER - FS_CHOOSE, 1))
		return me(s) == seat;
	return awaits_rare(s, seat);
}

/* Returns the coins actually gained. */
static int add_money(struct fortuna_state *s, int seat, int n)
{
	int had = s->p[seat].money, m = had + n;

	/* "Un jugador no puede tener más de 20 monedas": the excess is lost. */
	s->p[seat].money = (uint8_t)(m > FORTUNA_MONEY_MAX ? FORTUNA_MONEY_MAX : m);
	return s->p[seat].money - had;
}

/* Says so when a gain of `want` coins brought only `got` (the cap). */
__attribute__((noinline, cold))
static void log_capped(struct game_log *log, int seat, int want, int got)
{
	if (got < want)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s reaches the 20-coin limit: %d of the %d coins are lost.",
					     "%s llega al límite de 20 monedas: se pierden %d de las %d monedas."),
			  NAME(log, seat), want - got, want);
}

/* Takes up to n units from a supply; returns how many were given. */
static int take(uint8_t *have, uint8_t *supply, int n)
{
	n = min_int(n, *supply);
	*have = (uint8_t)(*have + n);
	*supply = (uint8_t)(*supply - n);
	return n;
}

static int gain_resource(struct fortuna_state *s, int seat, int r, int n)
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
static void spend_water(struct fortuna_state *s, int seat, int n)
{
	struct fortuna_player *p = &s->p[seat];
	int a = min_int(n, p->aq_water);

	p->aq_water = (uint8_t)(p->aq_water - a);
	p->water = (uint8_t)(p->water - (n - a));
	s->sup_water = (uint8_t)(s->sup_water + n);
}

/*
 * Log lines of the hot paths are written by cold functions of their own:
 * inline, their calls kept values alive across calls, and the hot function
 * saved and restored registers on every move, logged or not (playouts pass
 * no log).
 */
__attribute__((noinline, cold))
static void log_advance(struct game_log *log, int seat, int to, int arrival)
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

static void advance(struct fortuna_state *s, int seat, int n, struct game_log *log)
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
		log_advance(log, seat, to, arrival);
}

static int has_building(const struct fortuna_state *s, int seat, int b)
{
	return (s->p[seat].buildings >> b) & 1;
}

static int building_count(const struct fortuna_state *s, int seat)
{
	_Static_assert(FB_COUNT == 4, "a nibble of counts per 4-bit set of buildings");
	/* nibble i: the bits set in i (a table in one constant, no loop) */
	return (int)(0x4332322132212110ULL >> (4 * (s->p[seat].buildings & 15)) & 15);
}

/* Coins the next k Centuriones (or Sacerdotisas) cost from `have`. */
static int recruit_cost(int have, int k)
{
	int i, c = 0;

	for (i = have + 1; i <= have + k; i++)
		c += i;
	return c;
}

static int priestess_cost(int have, int k)
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
 * made where a turn enters one of them (settle(), guarded by cheap tests
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
static int action_usable(const struct fortuna_state *s, int seat)
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
static int favour_single(const struct fortuna_state *s, int seat)
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

static void settle(struct fortuna_state *s, struct game_log *log);
static inline unsigned rolled_values(const struct fortuna_state *s);

/* ---- privilege deck ---- */

static int draw_priv(struct fortuna_state *s)
{
	int k, c;

	if (s->ndeck == 0) {
		/* "Cuando el mazo ... se agota, se barajan las cartas descartadas". */
		for (k = 0; k < FP_COUNT; k++)
			for (c = 0; c < s->discard[k]; c++)
				s->deck[s->ndeck++] = (uint8_t)k;
		memset(s->discard, 0, sizeof(s->discard));
		rng_shuffle(&s->rng, s->deck, s->ndeck, 1);
	}
	if (s->ndeck == 0)
		return -1;
	k = s->deck[--s->ndeck];
	s->deck[s->ndeck] = 0;	/* unused entries stay 0: states compare bytewise */
	return k;
}

static void log_drawn(struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	if (!log)
		return;
	for (i = 0; i < s->ndrawn; i++)
		buf_printf(&b, "%s%s", i ? ", " : "",
			   fortuna_privs[s->drawn[i]].name[log->loc]);
	game_logf(log, seat, L(log->loc, "You get: %s.", "Recibes: %s."), buf_str(&b));
	buf_release(&b);
}

/* ---- turn flow ---- */

static void start_turn(struct fortuna_state *s, struct game_log *log);
static void palace_draw(struct fortuna_state *s, struct game_log *log);

/* A type A card, or a type B card while none was played this turn. */
static int priv_playable(const struct fortuna_state *s, int seat)
{
	const uint8_t *hand = s->p[seat].hand;
	int k;

	for (k = 0; k <= FP_STEP; k++)
		if (hand[k] && (fortuna_privs[k].type == FPT_A || !s->b_played))
			return 1;
	return 0;
}

/* Resets what belongs to one turn. */
static void clear_turn(struct fortuna_state *s)
{
	_Static_assert(FV_PHASE2 == 0, "act_via is cleared with the other fields");
	/* chosen .. die are consecutive: one clear instead of a store each */
	memset(&s->chosen, 0, offsetof(struct fortuna_state, die) + 1 -
			      offsetof(struct fortuna_state, chosen));
	s->token_turn = 0;
	s->res_ret = FS_CHOOSE;
}

static void end_round(struct fortuna_state *s, struct game_log *log)
{
	int n = s->nplayers, prev = s->order[0], first = -1, side, c, i, j;
	uint8_t rest[FORTUNA_MAX_PLAYERS];
	int nrest = 0;

	if (s->ending || s->round >= FORTUNA_ROUND_CAP) {
		s->step = FS_OVER;
		s->turn = 0;
		clear_turn(s);
		LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
		return;
	}
	/* One token on every unused favour card, at most 3 a card, while the
	 * reserve lasts (cards in order 1..6). */
	for (c = 0; c < FF_COUNT; c++) {
		/* without branches: which cards were used is random */
		int give = (s->fav_up[c] != 0) & (s->fav_tokens[c] < FORTUNA_TOKEN_CAP) &
			   (s->token_reserve > 0);

		s->fav_tokens[c] = (uint8_t)(s->fav_tokens[c] + give);
		s->token_reserve = (uint8_t)(s->token_reserve - give);
		s->fav_up[c] = 1;
	}
	/* The Fortuna action card's holder leads; on an empty side it leads
	 * nobody, and the richest seat leads instead (docs: rulings). */
	side = find_card(s, FA_FORTUNA, NULL);
	if (side >= 0 && side < n) {
		first = side;
	} else {
		for (i = 0; i < n; i++) {
			int seat = prev + i;

			while (seat >= n)	/* (prev + i) % n without a division */
				seat -= n;
			if (first < 0 || s->p[seat].money > s->p[first].money)
				first = seat;
		}
	}
	/* Then by money, ties to the seat closer clockwise to the first. */
	for (i = 1; i < n; i++)
		rest[nrest++] = (uint8_t)(first + i < n ? first + i : first + i - n);
	for (i = 1; i < nrest; i++)
		for (j = i; j > 0 && s->p[rest[j]].money > s->p[rest[j - 1]].money; j--) {
			uint8_t t = rest[j];

			rest[j] = rest[j - 1];
			rest[j - 1] = t;
		}
	s->order[0] = (uint8_t)first;
	memcpy(s->order + 1, rest, (size_t)nrest);
	s->round++;
	s->turn = 0;
	if (log) {
		struct buf b = BUF_INIT;

		for (i = 0; i < n; i++)
			buf_printf(&b, "%s%d. %s", i ? ", " : "", i + 1, NAME(log, s->order[i]));
		game_logf(log, LOG_PUBLIC, L(log->loc, "Round %d. Turn order: %s.",
					     "Ronda %d. Orden de turno: %s."),
			  s->round, buf_str(&b));
		buf_release(&b);
	}
	start_turn(s, log);
}

static void end_turn(struct fortuna_state *s, struct game_log *log)
{
	if (++s->turn >= s->nplayers) {
		end_round(s, log);
		return;
	}
	start_turn(s, log);
}

/* See log_advance(). */
__attribute__((noinline, cold))
static void log_turn(struct game_log *log, int seat, int filled)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s's turn.", "Turno de %s."), NAME(log, seat));
	if (filled)
		game_logf(log, LOG_PUBLIC, L(loc, "%s's Aqueduct fills with water.",
					     "El Acueducto de %s se llena de agua."), NAME(log, seat));
}

static void start_turn(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), u, filled;
	struct fortuna_player *p = &s->p[seat];

	clear_turn(s);
	/* Phase 1: an Acueducto built in an earlier round refills when empty. */
	filled = has_building(s, seat, FB_AQUEDUCT) && p->aq_round < s->round &&
		 p->aq_water == 0 && take(&p->aq_water, &s->sup_water, 1);
	if (log)
		log_turn(log, seat, filled);
	/* Phase 2 begins: the reserved card turns face up. */
	for (u = 0; u < FORTUNA_SLOTS; u++)
		s->side_down[seat][u] = 0;
	s->step = FS_CHOOSE;
}

/* The cards not kept go face up beside the deck: everybody reads them.
 * Public texts name privilege cards without the «» of the private ones
 * (cards.c), so a kind another seat holds stays a secret string. */
__attribute__((noinline, cold))
static void log_discards(const struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i < s->ndrawn; i++) {
		if (i)
			buf_addstr(&b, ", ");
		fortuna_priv_plain(s->drawn[i], log->loc, &b);
	}
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s discards face up: %s.",
				     "%s descarta boca arriba: %s."), NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

static void finish_keep(struct fortuna_state *s, struct game_log *log)
{
	int i, seat = me(s), src = s->keep_src;

	for (i = 0; i < s->ndrawn; i++) {
		if (src == FK_FAVOUR)
			s->discard[s->drawn[i]]++;
		else
			s->palace_cards[s->npalace++] = s->drawn[i];
	}
	if (src == FK_FAVOUR && s->ndrawn && log)
		log_discards(s, seat, log);
	s->ndrawn = 0;
	memset(s->drawn, 0, sizeof(s->drawn));
	s->keep_left = 0;
	if (s->palace_due) {
		palace_draw(s, log);
		return;
	}
	/* Type A/B cards may be played at any moment of the owner's turn, so
	 * one just kept may still be played before the turn ends (FS_END). */
	if (priv_playable(s, seat)) {
		s->step = FS_END;
		return;
	}
	end_turn(s, log);
}

static void keep_card(struct fortuna_state *s, int idx)
{
	s->p[me(s)].hand[s->drawn[idx]]++;
	s->drawn[idx] = s->drawn[--s->ndrawn];
	s->drawn[s->ndrawn] = 0;
	s->keep_left--;
}

/* Keeps automatically while there is no choice, else asks FS_KEEP. */
static void resolve_keep(struct fortuna_state *s, struct game_log *log)
{
	int i, same = 1;

	for (i = 1; i < s->ndrawn; i++)
		if (s->drawn[i] != s->drawn[0])
			same = 0;
	while (s->keep_left > 0 && s->ndrawn > 0 && (s->ndrawn <= s->keep_left || same))
		keep_card(s, 0);
	if (s->keep_left > 0 && s->ndrawn > 0) {
		s->step = FS_KEEP;
		return;
	}
	finish_keep(s, log);
}

static void draw_cards(struct fortuna_state *s, int n)
{
	int k;

	s->ndrawn = 0;
	while (s->ndrawn < n && (k = draw_priv(s)) >= 0)
		s->drawn[s->ndrawn++] = (uint8_t)k;
}

/* The extra privilege of reaching the Palace, at the end of the turn of
 * arrival: the first takes the 3 Palace tokens and the 3 top cards, keeps
 * one and leaves the others face down; each later arrival picks one of
 * those left (Basílica does not apply). */
static void palace_draw(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), i;

	if (!s->palace_due) {
		end_turn(s, log);
		return;
	}
	s->palace_due = 0;
	s->keep_left = 1;
	if (s->p[seat].arrival == 1) {
		s->token_reserve = (uint8_t)(s->token_reserve + s->token_palace);
		s->token_palace = 0;
		draw_cards(s, 3);
		s->keep_src = FK_PALACE_FIRST;
	} else {
		s->ndrawn = 0;
		for (i = 0; i < s->npalace; i++)
			s->drawn[s->ndrawn++] = s->palace_cards[i];
		s->npalace = 0;
		memset(s->palace_cards, 0, sizeof(s->palace_cards));
		s->keep_src = FK_PALACE_LATER;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s takes %d privilege card(s) at the Palace and keeps one.",
				"%s toma %d carta(s) de privilegio en el Palacio y se queda una."),
	     NAME(log, seat), s->ndrawn);
	log_drawn(s, seat, log);
	resolve_keep(s, log);
}

/* Phase 5: the tokens won this turn become privilege cards. */
static void phase5(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), t = s->token_turn;

	if (t == 0) {
		/* the usual end of a turn, without the call palace_draw()
		 * would make only to find no draw due */
		if (s->palace_due)
			palace_draw(s, log);
		else
			end_turn(s, log);
		return;
	}
	s->token_reserve = (uint8_t)(s->token_reserve + t);
	s->token_turn = 0;
	draw_cards(s, t);
	s->keep_left = (uint8_t)(t >= 2 && has_building(s, seat, FB_BASILICA) ? 2 : 1);
	s->keep_src = FK_FAVOUR;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s turns %d token(s) into %d privilege card(s).",
				"%s cambia %d ficha(s) por %d carta(s) de privilegio."),
	     NAME(log, seat), t, s->ndrawn);
	if (s->ndrawn)
		log_drawn(s, seat, log);
	resolve_keep(s, log);
}

static int flip_possible(const struct fortuna_state *s)
{
	int c;

	for (c = 0; c < FF_COUNT; c++)
		if (s->fav_up[c] && s->fav_tokens[c] == 0)
			return 1;
	return 0;
}

static void after_phase4(struct fortuna_state *s, struct game_log *log)
{
	/* 2 players: the first player only may flip one more card. */
	if (s->nplayers == 2 && s->turn == 0 && flip_possible(s)) {
		s->step = FS_FLIP;
		return;
	}
	phase5(s, log);
}

static int favour_available(const struct fortuna_state *s)
{
	return fav_avail(s) != 0;
}

/* See log_advance(). */
__attribute__((noinline, cold))
static void log_roll(const struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i < s->nroll; i++)
		buf_printf(&b, "%s%d", i ? " " : "", s->roll[i]);
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s rolls %s.", "%s lanza %s."),
		  NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

static void roll_dice(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), before = s->nroll;
	int n = before, dice = min_int(s->p[seat].dice, 3);
	struct rng r = s->rng;

	/* Dice gained after a Familia roll are rolled now: each die once.
	 * (In locals: a store to the uint8_t fields may alias anything, so
	 * the compiler would reload the generator after each.) */
	while (n < dice)
		s->roll[n++] = (uint8_t)(1 + rng_below(&r, 6));
	s->rng = r;
	s->nroll = (uint8_t)n;
	s->rolled = 1;
	if (before == s->nroll && before > 0)
		return;		/* the Familia roll stands, already shown */
	s->last_seat = (uint8_t)seat;
	s->last_nroll = s->nroll;
	memcpy(s->last_roll, s->roll, sizeof(s->roll));
	s->last_die = 0;
	if (log)
		log_roll(s, seat, log);
}

static void start_phase4(struct fortuna_state *s, struct game_log *log)
{
	unsigned r;

	roll_dice(s, log);
	s->step = FS_DIE;
	if (!hand_empty(s->p[me(s)].hand))
		return;
	r = rolled_values(s);
	if (!(r & (r - 1)))
		settle(s, log);		/* a single value: used at once */
}

static void after_exchange(struct fortuna_state *s, struct game_log *log)
{
	const struct fortuna_player *p = &s->p[me(s)];

	/* Phase 3 is asked when it is possible, or could become possible by
	 * playing a Centurión privilege card first. */
	if (p->cent > 0 || p->hand[FP_CENTURION] > 0)
		s->step = FS_MILITARY;
	else
		start_phase4(s, log);
}

static void after_action(struct fortuna_state *s, struct game_log *log)
{
	s->corrupted = 0;
	if (s->act_via == FV_PHASE2) {
		s->step = FS_EXCHANGE;
		return;
	}
	start_phase4(s, log);
}

/* ---- setup ---- */

int fortuna_setup(void *st, int players, uint64_t seed, const char *options,
		  struct buf *err)
{
	struct fortuna_state *s = st;
	const char *o = options ? options : "";
	char word[32];
	int draft = 0, i, k, c, t, u, first;
	uint8_t cards[FA_COUNT];
	int ncards = 0;

	if (players < 2 || players > FORTUNA_MAX_PLAYERS) {
		buf_setf(err, "Fortuna is for 2 to 4 players.");
		return -1;
	}
	while (text_word(&o, word, sizeof(word))) {
		if (text_eq(word, "draft")) {
			draft = 1;
		} else {
			buf_setf(err, "Unknown option \"%s\" (Fortuna knows: draft).", word);
			return -1;
		}
	}

	memset(s, 0, sizeof(*s));
	s->nplayers = (uint8_t)players;
	s->draft = (uint8_t)draft;
	s->round = 1;
	s->last_seat = 255;
	rng_seed(&s->rng, seed, 0x466f7274756e61ULL);	/* "Fortuna" */

	for (i = 0; i < players; i++) {
		struct fortuna_player *p = &s->p[i];

		p->money = 5;
		p->water = p->grain = p->wine = 1;
		p->dice = p->priest = p->cent = 1;
	}
	s->sup_water = s->sup_grain = s->sup_wine = (uint8_t)(15 - players);
	s->sup_priest = s->sup_cent = (uint8_t)(12 - players);
	s->sup_dice = (uint8_t)(9 - players);
	for (i = 0; i < FB_COUNT; i++)
		s->bld_left[i] = (uint8_t)fortuna_building_copies(players);
	for (i = 0; i < FF_COUNT; i++)
		s->fav_up[i] = 1;
	s->token_palace = 3;
	s->token_reserve = FORTUNA_TOKENS - 3;
	for (k = 0; k < FP_COUNT; k++)
		for (c = 0; c < fortuna_priv_copies(k, players); c++)
			s->deck[s->ndeck++] = (uint8_t)k;
	rng_shuffle(&s->rng, s->deck, s->ndeck, 1);

	for (i = 0; i < players; i++)
		s->order[i] = (uint8_t)i;
	rng_shuffle(&s->rng, s->order, (uint32_t)players, 1);
	first = s->order[0];

	memset(s->side_card, FORTUNA_NO_CARD, sizeof(s->side_card));
	s->side_card[first][0] = FA_FORTUNA;
	for (c = 0; c < FA_COUNT; c++)
		if (c != FA_FORTUNA)
			cards[ncards++] = (uint8_t)c;
	if (draft) {
		s->step = FS_DRAFT;
		return 0;
	}
	/* Random deal: 3 cards on every side, empty sides too. */
	rng_shuffle(&s->rng, cards, (uint32_t)ncards, 1);
	k = 0;
	for (t = 0; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (s->side_card[t][u] == FORTUNA_NO_CARD)
				s->side_card[t][u] = cards[k++];
	s->step = FS_HIDE;
	return 0;
}

/* After the draft the cards nobody picked go to the empty sides. */
static void finish_draft(struct fortuna_state *s)
{
	uint8_t cards[FA_COUNT];
	int n = 0, c, t, u, k = 0;

	for (c = 0; c < FA_COUNT; c++)
		if (find_card(s, c, NULL) < 0)
			cards[n++] = (uint8_t)c;
	rng_shuffle(&s->rng, cards, (uint32_t)n, 1);
	for (t = s->nplayers; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (k < n)
				s->side_card[t][u] = cards[k++];
	s->setup_k = 0;
	s->step = FS_HIDE;
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

static int in_turn(int step)
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

static int priv_moves(const struct fortuna_state *s, int seat, struct move *v, int n)
{
	const uint8_t *hand = s->p[seat].hand;
	int k;

	if (!holds_ab(hand))
		return n;
	for (k = 0; k <= FP_STEP; k++) {
		if (!hand[k])
			continue;
		if (fortuna_privs[k].type == FPT_A ||
		    (fortuna_privs[k].type == FPT_B && !s->b_played))
			n = add(v, n, FM_PRIV, k, 0);
	}
	return n;
}

static int action_moves(const struct fortuna_state *s, int seat, struct move *v, int n)
{
	const struct fortuna_player *p = &s->p[seat];
	int k, w, b, i;

	switch (s->act_card) {
	case FA_WATER:
		n = put(v, n, 1, FM_COLLECT, 0, 0);
		break;
	case FA_GRAIN:
	case FA_WINE: {
		int base = s->act_card == FA_GRAIN ? 2 : 1;
		int sup = s->act_card == FA_GRAIN ? s->sup_grain : s->sup_wine;
		/* Water beyond what the supply can answer would be wasted. */
		int maxw = min_int(fortuna_water(s, seat), sup > base ? sup - base : 0);

		for (w = 0; w <= maxw; w++)
			n = add(v, n, FM_HARVEST, w, 0);
		break;
	}
	case FA_SELL_GRAIN:
		for (k = 1; k <= p->grain; k++)
			n = add(v, n, FM_SELL, k, 0);
		break;
	case FA_SELL_WINE:
		for (k = 1; k <= p->wine; k++)
			n = add(v, n, FM_SELL, k, 0);
		break;
	case FA_CENTURIONS:
		for (k = 1; p->cent + k <= 3 && k <= s->sup_cent &&
			    recruit_cost(p->cent, k) <= p->money; k++)
			n = put(v, n, 1, FM_RECRUIT, k, 0);
		break;
	case FA_PRIESTESSES:
		for (k = 1; p->priest + k <= 3 && k <= s->sup_priest &&
			    priestess_cost(p->priest, k) <= p->money; k++)
			n = put(v, n, 1, FM_PRIESTESS, k, 0);
		break;
	case FA_CLERGY:
		n = put(v, n, p->priest > 0 && p->dice < 3 && s->sup_dice > 0, FM_CLERGY, 0, 0);
		break;
	case FA_FAMILY:
		if (!p->married) {
			n = put(v, n, p->money >= 3, FM_MARRY, 0, 0);
			break;
		}
		n = put(v, n, !s->rolled, FM_ROLL, 0, 0);
		n = put(v, n, s->sup_grain, FM_TAKE, FR_GRAIN, 0);
		n = put(v, n, s->sup_wine, FM_TAKE, FR_WINE, 0);
		n = put(v, n, 1, FM_TAKE, FM_TAKE_COINS, 0);
		break;
	case FA_BUILD:
		for (b = 0; b < FB_COUNT; b++)
			n = put(v, n, can_build(s, seat, b), FM_BUILD, b, 0);
		break;
	case FA_CORRUPTION:
		/* Any card of another side, face up or down, but not the Fortuna
		 * card, whose action needs the card itself (docs: rulings). */
		if (p->money >= 1) {
			const uint8_t *card = &s->side_card[0][0];

			for (i = 0; i < SLOT_BITS; i++)
				n = put(v, n, !((SIDE_MASK(seat) >> i) & 1) && card[i] < FA_COUNT &&
					card[i] != FA_FORTUNA, FM_CORRUPT, card[i], 0);
		}
		n = put(v, n, 1, FM_COINS, 0, 0);
		break;
	case FA_FORTUNA:
		n = put(v, n, 1, FM_ADVANCE, 0, 0);
		break;
	}
	return add(v, n, FM_SKIP, 0, 0);
}

static int favour_moves(const struct fortuna_state *s, int seat, struct move *v, int n)
{
	const struct fortuna_player *p = &s->p[seat];
	/* More units than steps left to the Palace would be wasted. */
	int lim = FORTUNA_PALACE - p->steps > 1 ? FORTUNA_PALACE - p->steps : 1;
	unsigned avail = fav_avail(s);
	int k;
	/* The cards in order 1..6.  Each card's moves are a prefix of a fixed
	 * sequence (1, 2, 3 units): all of it is written, the prefix counted,
	 * without a branch (counts masked rather than chosen). */
	int water = (int)(avail >> FF_WATER & 1) & (fortuna_water(s, seat) >= 1);
	int wine = min_int(min_int(2, p->wine), lim) & -(int)(avail >> FF_WINE & 1);
	int grain = min_int(min_int(2, p->grain), lim) & -(int)(avail >> FF_GRAIN & 1);
	int battle = min_int(p->cent, lim) & -(int)(avail >> FF_BATTLE & 1);
	int fortuna = (int)(avail >> FF_FORTUNA & 1) & (p->married != 0);
	int religion = (int)(avail >> FF_RELIGION & 1) & (p->priest > 0);

	n = put(v, n, water, FM_DELIVER, FF_WATER, 1);
	put(v, n, 0, FM_DELIVER, FF_WINE, 1);
	put(v, n + 1, 0, FM_DELIVER, FF_WINE, 2);
	n += wine;
	put(v, n, 0, FM_DELIVER, FF_GRAIN, 1);
	put(v, n + 1, 0, FM_DELIVER, FF_GRAIN, 2);
	n += grain;
	put(v, n, 0, FM_DELIVER, FF_BATTLE, 1);
	put(v, n + 1, 0, FM_DELIVER, FF_BATTLE, 2);
	put(v, n + 2, 0, FM_DELIVER, FF_BATTLE, 3);
	n += min_int(battle, 3);
	for (k = 4; k <= battle; k++)	/* more than 3 Centuriones: test positions */
		n = add(v, n, FM_DELIVER, FF_BATTLE, k);
	n = put(v, n, fortuna, FM_FAVOUR, FF_FORTUNA, 0);
	n = put(v, n, religion, FM_FAVOUR, FF_RELIGION, 0);
	/* Delivering for cards 1-4 is voluntary; 5 and 6 ask for nothing, so
	 * a seat that can advance with them does not refuse the Emperor. */
	return put(v, n, !(fortuna | religion), FM_TAX, 0, 0);
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

/*
 * One generator per step, reached through a table, each ending the list
 * itself: fortuna_moves() is then a few checks and a jump, and a generator
 * has only the registers and checks its own step needs (one function with
 * every step in a switch saved and restored them all on every call).
 */

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
		n = priv_moves(s, seat, out->v, n);
	out->n = n;
	return n;
}

static int moves_draft(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int c, n = 0;

	for (c = 0; c < FA_COUNT; c++)
		if (find_card(s, c, NULL) < 0)
			n = add(out->v, n, FM_DRAFT, c, 0);
	return end_list(out, n);
}

static int moves_hide(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int u, n = 0;

	for (u = 0; u < FORTUNA_SLOTS; u++)
		n = add(out->v, n, FM_HIDE, s->side_card[seat][u], 0);
	return end_list(out, n);
}

static int moves_choose(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const uint8_t *card = s->side_card[seat], *down = s->side_down[seat];
	struct move *v = out->v;
	int n = 0;

	n = put(v, n, !down[0], FM_CARD, card[0], 0);
	n = put(v, n, !down[1], FM_CARD, card[1], 0);
	n = put(v, n, !down[2], FM_CARD, card[2], 0);
	return end_turn_list(s, seat, out, n);
}

static int moves_action(const struct fortuna_state *s, int seat, struct move_list *out)
{
	return end_turn_list(s, seat, out, action_moves(s, seat, out->v, 0));
}

static int moves_exchange(const struct fortuna_state *s, int seat, struct move_list *out)
{
	unsigned ok = up_slots(s) & ~SIDE_MASK(seat);
	const uint8_t *card = &s->side_card[0][0];
	struct move *v = out->v;
	uint64_t mv[SLOT_BITS];
	size_t n = 0;
	int i;

#ifdef __SSE2__
	{
		/* the 12 moves built 2 at a time: each card byte widened into
		 * the `a` field of an FM_EXCHANGE move (little endian) */
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)card);
		__m128i z = _mm_setzero_si128(), k = _mm_set1_epi16(FM_EXCHANGE);
		__m128i lo = _mm_unpacklo_epi8(c, z), hi = _mm_unpackhi_epi8(c, z);
		__m128i d[3] = { _mm_unpacklo_epi16(k, lo), _mm_unpackhi_epi16(k, lo),
				 _mm_unpacklo_epi16(k, hi) };

		for (i = 0; i < 3; i++) {
			_mm_storeu_si128((__m128i *)(void *)&mv[4 * i], _mm_unpacklo_epi32(d[i], z));
			_mm_storeu_si128((__m128i *)(void *)&mv[4 * i + 2], _mm_unpackhi_epi32(d[i], z));
		}
	}
#else
	for (i = 0; i < SLOT_BITS; i++)
		put((struct move *)(void *)mv, i, 1, FM_EXCHANGE, card[i], 0);
#endif
#pragma GCC unroll 12
	for (i = 0; i < SLOT_BITS; i++) {
		memcpy(&v[n], &mv[i], sizeof(mv[i]));
		n += (ok >> i) & 1;
	}
	return end_turn_list(s, seat, out, (int)n);
}

static int moves_military(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const uint8_t *card = s->side_card[seat], *down = s->side_down[seat];
	struct move *v = out->v;
	int n = 0;

	if (s->p[seat].cent > 0) {
		n = put(v, n, !down[0], FM_MILITARY, card[0], 0);
		n = put(v, n, !down[1], FM_MILITARY, card[1], 0);
		n = put(v, n, !down[2], FM_MILITARY, card[2], 0);
	}
	n = put(v, n, 1, FM_SKIP, 0, 0);
	return end_turn_list(s, seat, out, n);
}

static int moves_die(const struct fortuna_state *s, int seat, struct move_list *out)
{
	/* each value rolled once, in increasing order */
	unsigned ok = rolled_values(s);
	struct move *v = out->v;
	int i, n = 0;

#pragma GCC unroll 6
	for (i = 1; i <= 6; i++)
		n = put(v, n, (ok >> i) & 1, FM_DIE, i, 0);
	return end_turn_list(s, seat, out, n);
}

static int moves_favour(const struct fortuna_state *s, int seat, struct move_list *out)
{
	return end_turn_list(s, seat, out, favour_moves(s, seat, out->v, 0));
}

static int moves_flip(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int c, n = 0;

	for (c = 0; c < FF_COUNT; c++)
		n = put(out->v, n, s->fav_up[c] && s->fav_tokens[c] == 0, FM_FLIP, c, 0);
	n = put(out->v, n, 1, FM_SKIP, 0, 0);
	return end_turn_list(s, seat, out, n);
}

static int moves_keep(const struct fortuna_state *s, int seat, struct move_list *out)
{
	unsigned kinds = 0;
	int i, n = 0;

	/* each kind drawn once, in increasing order */
	_Static_assert(FP_COUNT <= 32, "a bit per privilege kind");
	for (i = 0; i < s->ndrawn && i < 3; i++)
		kinds |= s->drawn[i] < FP_COUNT ? 1u << s->drawn[i] : 0;
	for (; kinds; kinds &= kinds - 1)
		n = put(out->v, n, 1, FM_KEEP, __builtin_ctz(kinds), 0);
	return end_turn_list(s, seat, out, n);
}

static int moves_end(const struct fortuna_state *s, int seat, struct move_list *out)
{
	return end_turn_list(s, seat, out, put(out->v, 0, 1, FM_SKIP, 0, 0));
}

/* Not a step of the turn proper: it interrupts one (no type A/B cards). */
static int moves_resource(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int c, n = 0;

	for (c = 0; c < FR_COUNT; c++)
		n = put(out->v, n, 1, FM_CHOOSE, c, 0);
	return end_list(out, n);
}

/* Every step a seat decides in (all but FS_OVER). */
static int (*const step_moves[FS_OVER])(const struct fortuna_state *, int, struct move_list *) = {
	[FS_DRAFT] = moves_draft,
	[FS_HIDE] = moves_hide,
	[FS_CHOOSE] = moves_choose,
	[FS_ACTION] = moves_action,
	[FS_EXCHANGE] = moves_exchange,
	[FS_MILITARY] = moves_military,
	[FS_DIE] = moves_die,
	[FS_FAVOUR] = moves_favour,
	[FS_FLIP] = moves_flip,
	[FS_KEEP] = moves_keep,
	[FS_END] = moves_end,
	[FS_RESOURCE] = moves_resource,
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
	seat = decider_rare(s);
	return seat < 0 ? 0u : 1u << seat;
}

unsigned fortuna_awaiting(const void *st)
{
	const struct fortuna_state *s = st;

	if (__builtin_expect((unsigned)(s->step - FS_CHOOSE) < FS_OVER - FS_CHOOSE, 1))
		return 1u << me(s);	/* a turn's step, as in decider_of() */
	return awaiting_rare(s);
}

/* ---- apply ---- */

__attribute__((noinline, cold))
static void log_corrupt(const struct fortuna_state *s, struct game_log *log, int seat, int t,
			int card, int paid)
{
	enum locale loc = log->loc;
	const char *name = fortuna_actions[card].name[loc];

	if (t < 0 || t >= s->nplayers)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s uses %s (side %d, empty) through Corruption and pays 1 coin to the bank.",
			    "%s usa %s (lado %d, vacío) mediante la Corrupción y paga 1 moneda a la banca."),
			  NAME(log, seat), name, t + 1);
	else if (paid)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s uses %s (%s's side) through Corruption and pays %s 1 coin.",
			    "%s usa %s (lado de %s) mediante la Corrupción y paga 1 moneda a %s."),
			  NAME(log, seat), name, NAME(log, t), NAME(log, t));
	else
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s uses %s (%s's side) through Corruption and pays 1 coin; %s already has 20, so it is lost.",
			    "%s usa %s (lado de %s) mediante la Corrupción y paga 1 moneda; %s ya tiene 20 y se pierde."),
			  NAME(log, seat), name, NAME(log, t), NAME(log, t));
}

static void exec_action(struct fortuna_state *s, struct move m, struct game_log *log)
{
	int seat = me(s);
	struct fortuna_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int n, t, price;

	switch (m.kind) {
	case FM_COLLECT:
		n = take(&p->water, &s->sup_water, 2);
		LOGF(log, LOG_PUBLIC, L(loc, "%s collects %d water.", "%s recoge %d agua."),
		     NAME(log, seat), n);
		break;
	case FM_HARVEST: {
		int grain = s->act_card == FA_GRAIN;

		spend_water(s, seat, m.a);
		n = gain_resource(s, seat, grain ? FR_GRAIN : FR_WINE, (grain ? 2 : 1) + m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s harvests %d %s (%d water delivered).",
					"%s cosecha %d de %s (%d agua entregada)."),
		     NAME(log, seat), n, fortuna_resources[grain ? FR_GRAIN : FR_WINE].name[loc], m.a);
		break;
	}
	case FM_SELL: {
		int grain = s->act_card == FA_SELL_GRAIN;

		price = (grain ? 2 : 3) + has_building(s, seat, FB_MARKET);
		if (grain) {
			p->grain = (uint8_t)(p->grain - m.a);
			s->sup_grain = (uint8_t)(s->sup_grain + m.a);
		} else {
			p->wine = (uint8_t)(p->wine - m.a);
			s->sup_wine = (uint8_t)(s->sup_wine + m.a);
		}
		n = add_money(s, seat, m.a * price);
		if (log) {
			game_logf(log, LOG_PUBLIC, L(loc, "%s sells %d %s for %d coins.",
						     "%s vende %d de %s por %d monedas."),
				  NAME(log, seat), m.a,
				  fortuna_resources[grain ? FR_GRAIN : FR_WINE].name[loc], m.a * price);
			log_capped(log, seat, m.a * price, n);
		}
		break;
	}
	case FM_RECRUIT:
		price = recruit_cost(p->cent, m.a);
		p->money = (uint8_t)(p->money - price);
		take(&p->cent, &s->sup_cent, m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s recruits %d %s for %d %s.",
					"%s recluta %d %s por %d %s."),
		     NAME(log, seat), m.a, m.a == 1 ? L(loc, "Centurion", "Centurión")
						    : L(loc, "Centurions", "Centuriones"),
		     price, coins(loc, price));
		break;
	case FM_PRIESTESS:
		price = priestess_cost(p->priest, m.a);
		p->money = (uint8_t)(p->money - price);
		take(&p->priest, &s->sup_priest, m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s obtains %d %s for %d %s.",
					"%s obtiene %d %s por %d %s."),
		     NAME(log, seat), m.a, m.a == 1 ? L(loc, "Priestess", "Sacerdotisa")
						    : L(loc, "Priestesses", "Sacerdotisas"),
		     price, coins(loc, price));
		break;
	case FM_CLERGY:
		p->priest--;
		s->sup_priest++;
		take(&p->dice, &s->sup_dice, 1);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gives a Priestess for a die (%d dice).",
					"%s entrega una Sacerdotisa por un dado (%d dados)."),
		     NAME(log, seat), p->dice);
		break;
	case FM_MARRY:
		p->money = (uint8_t)(p->money - 3);
		p->married = 1;
		LOGF(log, LOG_PUBLIC, L(loc, "%s marries.", "%s se casa."), NAME(log, seat));
		break;
	case FM_TAKE:
		if (m.a == FM_TAKE_COINS) {
			n = add_money(s, seat, 3);
			if (log) {
				game_logf(log, LOG_PUBLIC, L(loc, "%s takes 3 coins.", "%s toma 3 monedas."),
					  NAME(log, seat));
				log_capped(log, seat, 3, n);
			}
		} else {
			gain_resource(s, seat, m.a, 1);
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes 1 %s.", "%s toma 1 de %s."),
			     NAME(log, seat), fortuna_resources[m.a].name[loc]);
		}
		break;
	case FM_BUILD:
		p->money = (uint8_t)(p->money - fortuna_building_cost[m.a]);
		p->buildings |= (uint8_t)(1u << m.a);
		s->bld_left[m.a]--;
		if (m.a == FB_AQUEDUCT)
			p->aq_round = s->round;
		LOGF(log, LOG_PUBLIC, L(loc, "%s builds: %s.", "%s construye: %s."),
		     NAME(log, seat), fortuna_buildings[m.a].name[loc]);
		break;
	case FM_COINS:
		n = add_money(s, seat, 2);
		if (log) {
			game_logf(log, LOG_PUBLIC, L(loc, "%s takes 2 coins from Corruption.",
						     "%s toma 2 monedas de la Corrupción."), NAME(log, seat));
			log_capped(log, seat, 2, n);
		}
		break;
	case FM_ADVANCE:
		LOGF(log, LOG_PUBLIC, L(loc, "%s uses the Fortuna card.", "%s usa la Carta Fortuna."),
		     NAME(log, seat));
		advance(s, seat, 1, log);
		break;
	case FM_SKIP:
		LOGF(log, LOG_PUBLIC, L(loc, "%s does not use the action.", "%s no usa la acción."),
		     NAME(log, seat));
		break;
	case FM_CORRUPT:
		t = find_card(s, m.a, NULL);
		p->money--;
		/* the coin goes to the side's owner; on an empty side "se paga
		 * igualmente aunque nadie reciba la moneda" */
		n = t >= 0 && t < s->nplayers ? add_money(s, t, 1) : 0;
		s->act_card = (uint8_t)m.a;
		s->corrupted = 1;
		if (log)
			log_corrupt(s, log, seat, t, m.a, n);
		/* FS_ACTION goes on with the card used */
		if (hand_empty(p->hand) && !action_usable(s, seat))
			settle(s, log);
		return;
	}
	if (m.kind == FM_ROLL)
		return;
	after_action(s, log);
}

static void play_priv(struct fortuna_state *s, int k, struct game_log *log)
{
	int seat = me(s);
	struct fortuna_player *p = &s->p[seat];

	p->hand[k]--;
	s->discard[k]++;
	if (log) {
		struct buf b = BUF_INIT;

		fortuna_priv_plain(k, log->loc, &b);
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s plays the privilege card %s.",
					     "%s juega la carta de privilegio %s."),
			  NAME(log, seat), buf_str(&b));
		buf_release(&b);
	}
	switch (k) {
	case FP_WATER_ANY:
	case FP_GRAIN_ANY:
	case FP_WINE_ANY:
		gain_resource(s, seat, k - FP_WATER_ANY, 1);
		s->res_ret = s->step;
		s->step = FS_RESOURCE;
		break;
	case FP_PRIESTESS:
		if (p->priest < 3)
			take(&p->priest, &s->sup_priest, 1);
		break;
	case FP_CENTURION:
		if (p->cent < 3)
			take(&p->cent, &s->sup_cent, 1);
		break;
	case FP_STEP:
		s->b_played = 1;
		advance(s, seat, 1, log);
		break;
	}
}

static void deliver(struct fortuna_state *s, int c, int n, struct game_log *log)
{
	int seat = me(s), adv = n, before;
	struct fortuna_player *p = &s->p[seat];

	switch (c) {
	case FF_WATER:
		spend_water(s, seat, 1);
		adv = 1;
		break;
	case FF_WINE:
		p->wine = (uint8_t)(p->wine - n);
		s->sup_wine = (uint8_t)(s->sup_wine + n);
		break;
	case FF_GRAIN:
		p->grain = (uint8_t)(p->grain - n);
		s->sup_grain = (uint8_t)(s->sup_grain + n);
		break;
	case FF_BATTLE:
		p->cent = (uint8_t)(p->cent - n);
		s->sup_cent = (uint8_t)(s->sup_cent + n);
		break;
	case FF_FORTUNA:
		adv = 1 + has_building(s, seat, FB_PALACE);
		break;
	case FF_RELIGION:
		adv = p->priest;
		break;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s gains the favour %d %s.", "%s obtiene el favor %d %s."),
	     NAME(log, seat), c + 1, fortuna_favours[c].name[LOC(log)]);
	before = p->steps;
	advance(s, seat, adv, log);
	/* "Sólo si un jugador ha avanzado hacia Roma debe voltear la carta":
	 * a seat already on the Palace satisfies the Emperor (no tax) but
	 * moves no step, so the card stays face up with its tokens. */
	if (p->steps == before) {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot advance further: the favour card stays face up.",
					"%s no puede avanzar más: la carta de favor sigue boca arriba."),
		     NAME(log, seat));
		after_phase4(s, log);
		return;
	}
	/* The card used turns face down; its tokens go to the seat. */
	s->fav_up[c] = 0;
	s->token_turn = (uint8_t)(s->token_turn + s->fav_tokens[c]);
	if (s->fav_tokens[c])
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s wins %d privilege token(s).",
					"%s gana %d ficha(s) de privilegio."),
		     NAME(log, seat), s->fav_tokens[c]);
	s->fav_tokens[c] = 0;
	after_phase4(s, log);
}

static void pay_tax(struct fortuna_state *s, struct game_log *log)
{
	struct fortuna_player *p = &s->p[me(s)];

	if (p->money > 0) {
		p->money--;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s pays 1 coin of taxes.",
					"%s paga 1 moneda de impuestos."), NAME(log, me(s)));
	} else if (p->steps > 0) {
		p->steps--;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot pay the taxes and steps back to %d.",
					"%s no puede pagar impuestos y retrocede a la casilla %d."),
		     NAME(log, me(s)), p->steps);
	} else {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s owes the taxes but has no coin and no step to lose.",
					"%s debe impuestos pero no tiene monedas ni pasos que perder."),
		     NAME(log, me(s)));
	}
	after_phase4(s, log);
}

/*
 * Legality without listing: m is one of fortuna_moves(s, seat) exactly when
 * these say so, the same answer as building the list and looking m up (what
 * apply() did before; a random playout paid for every list twice).  Each
 * case mirrors the generator it names: change them together.
 */

/* A card of side t, face up (up = 1) or any, from the slot masks. */
static int on_side(const struct fortuna_state *s, int t, int card, int up)
{
	unsigned m = card_slots(s, card) & SIDE_MASK(t);

	return (up ? m & up_slots(s) : m) != 0;
}

/* action_moves */
static int action_legal(const struct fortuna_state *s, int seat, struct move m)
{
	const struct fortuna_player *p = &s->p[seat];
	int n;

	if (m.kind == FM_SKIP)
		return !m.a && !m.b;
	if (m.b)
		return 0;
	switch (s->act_card) {
	case FA_WATER:
		return m.kind == FM_COLLECT && !m.a;
	case FA_GRAIN:
	case FA_WINE: {
		int base = s->act_card == FA_GRAIN ? 2 : 1;
		int sup = s->act_card == FA_GRAIN ? s->sup_grain : s->sup_wine;
		int maxw = min_int(fortuna_water(s, seat), sup > base ? sup - base : 0);

		return m.kind == FM_HARVEST && m.a <= maxw;
	}
	case FA_SELL_GRAIN:
		return m.kind == FM_SELL && m.a >= 1 && m.a <= p->grain;
	case FA_SELL_WINE:
		return m.kind == FM_SELL && m.a >= 1 && m.a <= p->wine;
	case FA_CENTURIONS:
		if (m.kind != FM_RECRUIT || m.a < 1 || m.a > 3)
			return 0;
		for (n = 1; n <= m.a; n++)
			if (!(p->cent + n <= 3 && n <= s->sup_cent &&
			      recruit_cost(p->cent, n) <= p->money))
				return 0;
		return 1;
	case FA_PRIESTESSES:
		if (m.kind != FM_PRIESTESS || m.a < 1 || m.a > 3)
			return 0;
		for (n = 1; n <= m.a; n++)
			if (!(p->priest + n <= 3 && n <= s->sup_priest &&
			      priestess_cost(p->priest, n) <= p->money))
				return 0;
		return 1;
	case FA_CLERGY:
		return m.kind == FM_CLERGY && !m.a && p->priest > 0 && p->dice < 3 &&
		       s->sup_dice > 0;
	case FA_FAMILY:
		if (!p->married)
			return m.kind == FM_MARRY && !m.a && p->money >= 3;
		if (m.kind == FM_ROLL)
			return !m.a && !s->rolled;
		return m.kind == FM_TAKE &&
		       ((m.a == FR_GRAIN && s->sup_grain) || (m.a == FR_WINE && s->sup_wine) ||
			m.a == FM_TAKE_COINS);
	case FA_BUILD:
		return m.kind == FM_BUILD && m.a < FB_COUNT && can_build(s, seat, m.a);
	case FA_CORRUPTION:
		if (m.kind == FM_COINS)
			return !m.a;
		if (m.kind != FM_CORRUPT || p->money < 1 || m.a >= FA_COUNT || m.a == FA_FORTUNA)
			return 0;
		return (card_slots(s, m.a) & ~SIDE_MASK(seat)) != 0;
	case FA_FORTUNA:
		return m.kind == FM_ADVANCE && !m.a;
	}
	return 0;
}

/* favour_moves */
static int favour_legal(const struct fortuna_state *s, int seat, struct move m)
{
	const struct fortuna_player *p = &s->p[seat];
	int lim = FORTUNA_PALACE - p->steps > 1 ? FORTUNA_PALACE - p->steps : 1;
	int c, n = m.b;

	if (m.kind == FM_TAX)	/* cards 5 and 6 as in favour_moves, without branches */
		return !(m.a | m.b) &
		       !((s->die > FF_FORTUNA) & (s->fav_up[FF_FORTUNA] != 0) & (p->married != 0)) &
		       !((s->die > FF_RELIGION) & (s->fav_up[FF_RELIGION] != 0) & (p->priest > 0));
	c = m.a;
	if (c >= s->die || c >= FF_COUNT || !s->fav_up[c])
		return 0;
	if (m.kind == FM_FAVOUR)
		return !m.b && ((c == FF_FORTUNA && p->married) ||
				(c == FF_RELIGION && p->priest > 0));
	if (m.kind != FM_DELIVER)
		return 0;
	switch (c) {
	case FF_WATER:
		return n == 1 && fortuna_water(s, seat) >= 1;
	case FF_WINE:
		return n >= 1 && n <= min_int(min_int(2, p->wine), lim);
	case FF_GRAIN:
		return n >= 1 && n <= min_int(min_int(2, p->grain), lim);
	case FF_BATTLE:
		return n >= 1 && n <= min_int(p->cent, lim);
	}
	return 0;
}

/* priv_moves, after the step's moves */
static int priv_legal(const struct fortuna_state *s, int seat, struct move m)
{
	return in_turn(s->step) && m.a <= FP_STEP && !m.b && s->p[seat].hand[m.a] &&
	       (fortuna_privs[m.a].type == FPT_A ||
		(fortuna_privs[m.a].type == FPT_B && !s->b_played));
}

/* The answer to a move that is not one of the seat's moves now.  Kept out
 * of line, like apply_priv(), so that the dispatch in fortuna_apply() saves
 * no registers. */
__attribute__((noinline, cold))
static int refuse(const struct fortuna_state *s, int seat, struct game_log *log, struct buf *err)
{
	enum locale loc = LOC(log);

	if (!err)	/* settle(): its moves are listed ones */
		return -1;
	if (!awaits(s, seat))
		buf_setf(err, "%s", L(loc, "It is not your decision now.",
				      "Ahora no te toca decidir."));
	else
		buf_setf(err, "%s", L(loc, "That move is not possible now.",
				      "Esa jugada no es posible ahora."));
	return -1;
}

/*
 * One function per step, reached through a table like the generators: the
 * step's legality (mirroring the generator of the same name), then its
 * effect; the dispatch in fortuna_apply() is then a few checks and a jump.
 * Each returns 0, or refuses m with the state unchanged.  Type A/B cards
 * (FM_PRIV) are handled before.
 */
static int apply_draft(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	enum locale loc = LOC(log);
	int u;

	if (!(m.kind == FM_DRAFT && m.a < FA_COUNT && !m.b && find_card(s, m.a, NULL) < 0))
		return refuse(s, seat, log, err);
	for (u = 0; u < FORTUNA_SLOTS; u++)
		if (s->side_card[seat][u] == FORTUNA_NO_CARD) {
			s->side_card[seat][u] = (uint8_t)m.a;
			break;
		}
	LOGF(log, LOG_PUBLIC, L(loc, "%s drafts %s.", "%s elige %s."), NAME(log, seat),
	     fortuna_actions[m.a].name[loc]);
	if (++s->setup_k >= 3 * s->nplayers - 1)
		finish_draft(s);
	else
		settle(s, log);		/* the last pick of 4 players: one card */
	return 0;
}

/* The one public update of the reservation: every seat's card at once.
 * The cards were dealt face up, so the table sees which one each player
 * turns over (docs/games/fortuna.md). */
__attribute__((noinline, cold))
static void log_reserved(const struct fortuna_state *s, struct game_log *log)
{
	enum locale loc = log->loc;
	struct buf b = BUF_INIT;
	int i, u;

	for (i = 0; i < s->nplayers; i++) {
		int seat = s->order[i];

		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (s->side_down[seat][u])
				buf_printf(&b, "%s%s: %s", i ? "; " : "", NAME(log, seat),
					   fortuna_actions[s->side_card[seat][u]].name[loc]);
	}
	game_logf(log, LOG_PUBLIC, L(loc, "Everybody has chosen. Reserved face down: %s.",
				     "Todos han elegido. Reservadas boca abajo: %s."), buf_str(&b));
	buf_release(&b);
}

static int apply_hide(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	enum locale loc = LOC(log);
	int slot = 0;

	if (!(m.kind == FM_HIDE && !m.b && on_side(s, seat, m.a, 0)))
		return refuse(s, seat, log, err);
	find_card(s, m.a, &slot);
	s->side_down[seat][slot] = 1;
	/* Nothing about the choice is public until everybody has chosen. */
	LOGF(log, LOG_PUBLIC, L(loc, "%s has chosen the card to reserve.",
				"%s ya ha elegido la carta que reserva."), NAME(log, seat));
	if (++s->setup_k < s->nplayers) {
		LOGF(log, seat, L(loc, "You reserve %s; it is turned face down when everybody has chosen.",
				  "Reservas %s; se pone boca abajo cuando todos hayan elegido."),
		     fortuna_actions[m.a].name[loc]);
	} else {
		LOGF(log, seat, L(loc, "You reserve %s.", "Reservas %s."), fortuna_actions[m.a].name[loc]);
		s->setup_k = 0;
		s->turn = 0;
		if (log)
			log_reserved(s, log);
		LOGF(log, LOG_PUBLIC, L(loc, "Round 1 begins.", "Empieza la ronda 1."));
		start_turn(s, log);
	}
	return 0;
}

/* See log_advance(). */
__attribute__((noinline, cold))
static void log_choose(struct game_log *log, int seat, int card)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s plays %s.", "%s juega %s."), NAME(log, seat),
		  fortuna_actions[card].name[loc]);
}

static int apply_choose(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!((m.kind == FM_CARD) & !m.b & on_side(s, seat, m.a, 1)))
		return refuse(s, seat, log, err);
	s->chosen = s->act_card = (uint8_t)m.a;
	s->act_via = FV_PHASE2;
	s->corrupted = 0;
	s->step = FS_ACTION;
	if (log)
		log_choose(log, seat, m.a);
	if (hand_empty(s->p[seat].hand) && !action_usable(s, seat))
		settle(s, log);		/* only `skip` */
	return 0;
}

static int apply_action(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!action_legal(s, seat, m))
		return refuse(s, seat, log, err);
	if (m.kind == FM_ROLL)
		roll_dice(s, log);
	else
		exec_action(s, m, log);
	return 0;
}

__attribute__((noinline, cold))
static void log_exchange(const struct fortuna_state *s, struct game_log *log, int seat, int t,
			 int card)
{
	enum locale loc = log->loc;

	/* The card is taken face up, in view of all, and then laid face
	 * down ("...y ésta última la coloca boca abajo"): its name is public. */
	if (t < s->nplayers)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s exchanges %s for %s from %s's side; %s lies face down on %s's side.",
			    "%s intercambia %s por %s del lado de %s; %s queda boca abajo en el lado de %s."),
			  NAME(log, seat), fortuna_actions[s->chosen].name[loc],
			  fortuna_actions[card].name[loc], NAME(log, t), fortuna_actions[card].name[loc],
			  NAME(log, seat));
	else
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s exchanges %s for %s from side %d (empty); %s lies face down on %s's side.",
			    "%s intercambia %s por %s del lado %d (vacío); %s queda boca abajo en el lado de %s."),
			  NAME(log, seat), fortuna_actions[s->chosen].name[loc],
			  fortuna_actions[card].name[loc], t + 1, fortuna_actions[card].name[loc],
			  NAME(log, seat));
}

static int apply_exchange(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	unsigned to, from;
	int t, u, slot = 0;

	if (m.kind != FM_EXCHANGE || m.b)
		return refuse(s, seat, log, err);
	to = card_slots(s, m.a);
	if (!(to & up_slots(s) & ~SIDE_MASK(seat)))
		return refuse(s, seat, log, err);
	/* find_card() of both cards, from the masks at hand */
	from = card_slots(s, s->chosen);
	if (from)
		slot = __builtin_ctz(from) - 3 * slot_side(__builtin_ctz(from));
	u = __builtin_ctz(to);
	t = slot_side(u);
	u -= 3 * t;
	s->side_card[seat][slot] = (uint8_t)m.a;
	s->side_down[seat][slot] = 1;
	s->side_card[t][u] = s->chosen;
	s->side_down[t][u] = 0;
	if (log)
		log_exchange(s, log, seat, t, m.a);
	after_exchange(s, log);
	return 0;
}

static int apply_military(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	enum locale loc = LOC(log);

	if (m.kind == FM_SKIP) {
		if (m.a || m.b)
			return refuse(s, seat, log, err);
		start_phase4(s, log);
		return 0;
	}
	if (!(m.kind == FM_MILITARY && !m.b && s->p[seat].cent > 0 && on_side(s, seat, m.a, 1)))
		return refuse(s, seat, log, err);
	s->p[seat].cent--;
	s->sup_cent++;
	s->act_card = (uint8_t)m.a;
	s->act_via = FV_MILITARY;
	s->corrupted = 0;
	s->step = FS_ACTION;
	LOGF(log, LOG_PUBLIC, L(loc, "%s gives a Centurion for Military Power: %s.",
				"%s entrega un Centurión por el Poder Militar: %s."),
	     NAME(log, seat), fortuna_actions[m.a].name[loc]);
	if (hand_empty(s->p[seat].hand) && !action_usable(s, seat))
		settle(s, log);		/* only `skip` */
	return 0;
}

__attribute__((noinline, cold))
static void log_die(struct game_log *log, int seat, int die, int favour)
{
	enum locale loc = log->loc;

	game_logf(log, LOG_PUBLIC, L(loc, "%s chooses the die %d.", "%s elige el dado %d."),
		  NAME(log, seat), die);
	if (!favour)
		game_logf(log, LOG_PUBLIC, "%s",
			  L(loc, "No favour card is available: no advance, no taxes.",
			    "No hay carta de favor disponible: ni avance ni impuestos."));
}

static int apply_die(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!(m.kind == FM_DIE && !m.b && m.a >= 1 && m.a <= 6 && ((rolled_values(s) >> m.a) & 1)))
		return refuse(s, seat, log, err);
	s->die = (uint8_t)m.a;
	s->last_die = (uint8_t)m.a;
	if (log)
		log_die(log, seat, m.a, favour_available(s));
	if (!favour_available(s)) {
		after_phase4(s, log);
		return 0;
	}
	s->step = FS_FAVOUR;
	if (hand_empty(s->p[seat].hand) && favour_single(s, seat))
		settle(s, log);		/* only the tax, or only a card 5/6 */
	return 0;
}

static int apply_favour(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!favour_legal(s, seat, m))
		return refuse(s, seat, log, err);
	if (m.kind == FM_TAX)
		pay_tax(s, log);
	else
		deliver(s, m.a, m.b, log);
	return 0;
}

static int apply_flip(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	enum locale loc = LOC(log);

	if (m.kind == FM_SKIP) {
		if (m.a || m.b)
			return refuse(s, seat, log, err);
	} else {
		if (!(m.kind == FM_FLIP && !m.b && m.a < FF_COUNT && s->fav_up[m.a] &&
		      s->fav_tokens[m.a] == 0))
			return refuse(s, seat, log, err);
		s->fav_up[m.a] = 0;
		LOGF(log, LOG_PUBLIC, L(loc, "%s turns the favour card %d face down.",
					"%s voltea la carta de favor %d."), NAME(log, seat), m.a + 1);
	}
	phase5(s, log);
	return 0;
}

static int apply_keep(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	enum locale loc = LOC(log);
	int i;

	if (m.kind != FM_KEEP || m.b || m.a >= FP_COUNT)
		return refuse(s, seat, log, err);
	for (i = 0; i < s->ndrawn; i++)
		if (s->drawn[i] == m.a)
			break;
	if (i == s->ndrawn)
		return refuse(s, seat, log, err);
	keep_card(s, i);
	LOGF(log, seat, L(loc, "You keep %s.", "Te quedas %s."), fortuna_privs[m.a].name[loc]);
	resolve_keep(s, log);
	return 0;
}

static int apply_end(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	if (!(m.kind == FM_SKIP && !m.a && !m.b))
		return refuse(s, seat, log, err);
	/* A step played now may have reached the Palace: its draw closes
	 * the turn (palace_draw ends it when none is due). */
	palace_draw(s, log);
	return 0;
}

static int apply_resource(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			 struct buf *err)
{
	enum locale loc = LOC(log);

	if (!(m.kind == FM_CHOOSE && !m.b && m.a < FR_COUNT))
		return refuse(s, seat, log, err);
	gain_resource(s, seat, m.a, 1);
	LOGF(log, LOG_PUBLIC, L(loc, "%s takes 1 %s.", "%s toma 1 de %s."), NAME(log, seat),
	     fortuna_resources[m.a].name[loc]);
	s->step = s->res_ret;
	settle(s, log);		/* the card played may have been the last */
	return 0;
}

static int (*const step_apply[FS_OVER])(struct fortuna_state *, int, struct move,
					 struct game_log *, struct buf *) = {
	[FS_DRAFT] = apply_draft,
	[FS_HIDE] = apply_hide,
	[FS_CHOOSE] = apply_choose,
	[FS_ACTION] = apply_action,
	[FS_EXCHANGE] = apply_exchange,
	[FS_MILITARY] = apply_military,
	[FS_DIE] = apply_die,
	[FS_FAVOUR] = apply_favour,
	[FS_FLIP] = apply_flip,
	[FS_KEEP] = apply_keep,
	[FS_END] = apply_end,
	[FS_RESOURCE] = apply_resource,
};

__attribute__((noinline))
static int apply_priv(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		      struct buf *err)
{
	if (!priv_legal(s, seat, m))
		return refuse(s, seat, log, err);
	play_priv(s, m.a, log);
	if (s->step != FS_RESOURCE)
		settle(s, log);		/* the card played may have been the last */
	return 0;
}

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
static void settle(struct fortuna_state *s, struct game_log *log)
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
		return refuse(s, seat, log, err);
	if (m.kind == FM_PRIV)
		return apply_priv(s, seat, m, log, err);
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
