/*
 * builders_int.h: the private interface of The Builders' rules files.
 *
 * Owns what the rules files share and nothing else: the log macros, the
 * small pieces of the state several files touch (money, actions, the
 * resources a building lacks, what a seat may do now; static inline:
 * playouts reach them at every decision), the move list writers, and the
 * declarations of the functions one file calls in another.  The files:
 *
 *   builders.c   the decisions: awaiting(), each step's moves, the
 *                legality check, apply() dispatching by move, the public
 *                small queries and recount, the driver table
 *   setup.c      setup and its options
 *   actions.c    what BS_TURN's actions and their sub-steps (BS_SEND,
 *                BS_ENSLAVE, BS_TOOL, BS_EDUCATE) do, a building's
 *                completion
 *   turn.c       the end of a turn and of a round, the last round, and
 *                BS_FINAL (slaves freed, loans repaid)
 *   refusals.c   near_miss: why a move typed is refused
 *   position.c   the position helpers tests build states with
 *
 * Every file that changes the state is reached only from builders_apply()
 * with a move builders_moves() lists, so the functions assume legality.
 *
 * Include it only from the rules files above: render.c, save.c, ai.c and
 * the tests use builders.h, whose names are stable; nothing here is.
 */
#ifndef GAMES_BUILDERS_BUILDERS_INT_H
#define GAMES_BUILDERS_BUILDERS_INT_H

#include <stddef.h>
#include <string.h>

#include "games/builders/builders.h"

/* actions.c */
void builders_log_paid(struct game_log *log, int seat, int k, int cost);
void builders_do_start(struct builders_state *s, int b, struct game_log *log);
void builders_do_hire(struct builders_state *s, int w, struct game_log *log);
void builders_do_send(struct builders_state *s, int b, int tool, struct game_log *log);
void builders_do_invest(struct builders_state *s, struct move m, struct game_log *log);

/* turn.c */
int builders_moves_final(const struct builders_state *s, struct move *v);
void builders_end_turn(struct builders_state *s, struct game_log *log);
void builders_final_next(struct builders_state *s, struct game_log *log);
void builders_do_free(struct builders_state *s, int u, struct game_log *log);
void builders_do_repay(struct builders_state *s, struct game_log *log);

/* ---- logging and small helpers ---- */

/* Playouts pass no log: the logging stays out of their straight path. */
#define LOGF(log, ...) \
	do { if (__builtin_expect((log) != NULL, 0)) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

static const uint8_t take_gain[4] = { 0, 1, 3, 6 };	/* "1, 3 o 6 sestercios" */

static inline int last_seat(const struct builders_state *s)
{
	return s->first ? s->first - 1 : s->nplayers - 1;
}
static inline unsigned res_mask(const uint8_t res[BR_COUNT])
{
	return (unsigned)(res[0] > 0) | (unsigned)(res[1] > 0) << 1 |
	       (unsigned)(res[2] > 0) << 2 | (unsigned)(res[3] > 0) << 3;
}

/* A unit's printed resources, before any University. */
static inline void base_res(int u, uint8_t out[BR_COUNT])
{
	memset(out, 0, BR_COUNT);
	if (u < BU_SLAVE) {
		memcpy(out, builders_workers[u].res, BR_COUNT);
	} else if (u < BU_MACHINE) {
		memcpy(out, builders_slaves[u - BU_SLAVE], BR_COUNT);
	} else {
		int r = builders_buildings[BB_FIRST_MACHINE + u - BU_MACHINE].makes - 1;

		if (r >= 0 && r < BR_COUNT)
			out[r] = BUILDERS_MACHINE_MAKES;
	}
}

/* Bit r: building b misses resource r. */
static inline unsigned lack_of(const struct builders_state *s, int b)
{
	const uint8_t *need = builders_buildings[b].need, *have = s->have[b];

	return (unsigned)(have[0] < need[0]) | (unsigned)(have[1] < need[1]) << 1 |
	       (unsigned)(have[2] < need[2]) << 2 | (unsigned)(have[3] < need[3]) << 3;
}

/* plack[seat]: what the seat's buildings in progress lack, together. */
static inline void refresh_lack(struct builders_state *s, int seat)
{
	uint64_t m;
	unsigned l = 0;

	for (m = s->prog[seat]; m; m &= m - 1)
		l |= s->lack[__builtin_ctzll(m)];
	s->plack[seat] = (uint8_t)l;
}
/* Money and the bank move together: sum(money) + bank stays 108. */
static inline void pay(struct builders_state *s, int seat, int n)
{
	s->p[seat].money = (uint16_t)(s->p[seat].money - n);
	s->bank += n;
}

static inline void gain(struct builders_state *s, int seat, int n)
{
	s->p[seat].money = (uint16_t)(s->p[seat].money + n);
	s->bank -= n;
}

/* Spends k actions of the active seat; returns the sesterces paid. */
static inline int spend_actions(struct builders_state *s, int k)
{
	int cost = builders_action_money(s, k);

	pay(s, s->cur, cost);
	s->used = (uint16_t)(s->used + k);
	return cost;
}

/* ---- what a seat may do ---- */

/* Bit t: tool t is the seat's and not in use. */
static inline unsigned tools_free(const struct builders_state *s, int seat)
{
	return s->tidle[seat];
}

/*
 * What sending unit u to building b can be done with: bit 0 alone, bit
 * 1 + t with tool t (tfree: the seat's free tools).  0 when it adds
 * nothing the building still misses, or the seat cannot pay the wage and
 * the actions.  A send that adds nothing is never offered: it would only
 * cost (docs/games/builders.md).
 */
static inline unsigned send_options(const struct builders_state *s, int u, int b, unsigned tfree)
{
	unsigned lack = s->lack[b], opt, tm;

	if (s->uwage[u] + builders_action_money(s, s->sent[b] + 1) > s->p[s->cur].money)
		return 0;
	opt = (s->umask[u] & lack) != 0;
	if ((s->bound >> u) & 1)
		return opt;	/* a slave carries no tool */
	for (tm = lack & tfree; tm; tm &= tm - 1) {
		int r = __builtin_ctz(tm);

		if (builders_buildings[b].need[r] - s->have[b][r] > s->ures[u][r])
			opt |= 2u << r;
	}
	return opt;
}

static inline int unit_can_go(const struct builders_state *s, int u, unsigned tfree)
{
	uint64_t m;

	for (m = s->prog[s->cur]; m; m &= m - 1)
		if (send_options(s, u, __builtin_ctzll(m), tfree))
			return 1;
	return 0;
}

/* A University (resource k, still in the pile) raises something of the
 * active seat's available unit u, never educated before ("sólo una vez"). */
static inline int can_educate(const struct builders_state *s, int u, int k)
{
	return ((s->upile >> k) & 1) && ((s->idle[s->cur] >> u) & 1) &&
	       !(((s->bound | s->edu) >> u) & 1) && s->ures[u][k] < BUILDERS_UNI_LEVEL;
}

static inline int any_education(const struct builders_state *s)
{
	uint32_t m;

	if (!s->upile)
		return 0;
	for (m = s->idle[s->cur] & ~(s->bound | s->edu); m; m &= m - 1) {
		const uint8_t *res = s->ures[__builtin_ctz(m)];
		unsigned low = (unsigned)(res[0] < BUILDERS_UNI_LEVEL) |
			       (unsigned)(res[1] < BUILDERS_UNI_LEVEL) << 1 |
			       (unsigned)(res[2] < BUILDERS_UNI_LEVEL) << 2 |
			       (unsigned)(res[3] < BUILDERS_UNI_LEVEL) << 3;

		if (low & s->upile)
			return 1;
	}
	return 0;
}

static inline int slave_free_to_go(const struct builders_state *s, int seat, int k)
{
	return ((s->idle[seat] & s->bound) >> (BU_SLAVE + k)) & 1;
}

/* At the final scoring: something left to free or repay. */
static inline int final_options(const struct builders_state *s, int seat)
{
	const struct builders_player *p = &s->p[seat];
	int k;

	if (p->loans && p->money >= BUILDERS_LOAN_REPAY)
		return 1;
	if (p->money >= BUILDERS_FREE_PRICE)
		for (k = 0; k < BUILDERS_SLAVES; k++)
			if (slave_free_to_go(s, seat, k))
				return 1;
	return 0;
}

/* Money left after one more action (negative: it cannot be paid). */
static inline int after_one(const struct builders_state *s)
{
	return s->p[s->cur].money - builders_action_money(s, 1);
}

/* The turn's investment of kind (BM_ENSLAVE, BM_TOOL, BM_LOAN,
 * BM_EDUCATE) can be opened now. */
static inline int invest_open(const struct builders_state *s, int kind)
{
	int left = after_one(s);

	if (s->invested || left < 0)
		return 0;
	switch (kind) {
	case BM_ENSLAVE:
		return left >= BUILDERS_SLAVE_PRICE && s->spile;
	case BM_TOOL:
		return left >= BUILDERS_TOOL_PRICE && s->tpile;
	case BM_LOAN:
		return s->loan_pile > 0;
	case BM_EDUCATE:
		return left >= BUILDERS_UNI_PRICE && any_education(s);
	}
	return 0;
}

/* Taking sesterces with k actions: affordable, and not a loss (paid
 * actions that cost more than the sesterces taken are never offered: they
 * could only lose money, docs/games/builders.md). */
static inline int take_ok(const struct builders_state *s, int k)
{
	int cost = builders_action_money(s, k);

	return cost <= s->p[s->cur].money && cost < take_gain[k];
}

/* ---- moves ---- */

/* The generators append to v[n] and return the new count; the lists are
 * bounded by the cards (at most 5 + 5 + 28 + 4 + 3 + 6 + 2 in a turn,
 * 33 x 5 + 1 for a send, 28 x 4 + 1 for an education), far below
 * MOVE_LIST_MAX. */
_Static_assert(BUILDERS_BUILDINGS * (1 + BUILDERS_TOOLS) + 1 <= MOVE_LIST_MAX &&
	       BUILDERS_UNITS * BUILDERS_UNIS + 1 <= MOVE_LIST_MAX,
	       "every Builders move list fits");

/* One 8-byte store per move: the compiler would otherwise merge the four
 * fields with masks (playouts write millions of moves). */
static inline void store_move(struct move *dst, int kind, int a, int b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w = (uint64_t)(uint16_t)kind | (uint64_t)(uint16_t)a << 16 |
		     (uint64_t)(uint16_t)b << 32;

	_Static_assert(sizeof(struct move) == sizeof(w) && offsetof(struct move, a) == 2 &&
		       offsetof(struct move, b) == 4, "struct move is four 16-bit fields");
	memcpy(dst, &w, sizeof(w));
#else
	*dst = (struct move){ (uint16_t)kind, (uint16_t)a, (uint16_t)b, 0 };
#endif
}

static inline int add(struct move *v, int n, int kind, int a, int b)
{
	store_move(&v[n], kind, a, b);
	return n + 1;
}
/* Writes the move whatever cond says and counts it only when cond holds:
 * no branch on the random state of playouts.  Only for fixed runs of a
 * few moves (the lists stay far below MOVE_LIST_MAX). */
static inline int put(struct move *v, int n, int cond, int kind, int a)
{
	store_move(&v[n], kind, a, 0);
	return n + (cond != 0);
}

/* A line's cards: all five while its deck has cards (check() holds it),
 * else the slots not yet emptied. */
static inline int row_moves(struct move *v, int n, const uint8_t *row, int ndeck, int kind)
{
	int i;

	if (__builtin_expect(ndeck > 0, 1)) {
		for (i = 0; i < BUILDERS_ROW; i++)
			store_move(&v[n + i], kind, row[i], 0);
		return n + BUILDERS_ROW;
	}
	for (i = 0; i < BUILDERS_ROW; i++)
		n = put(v, n, row[i] != BUILDERS_NONE, kind, row[i]);
	return n;
}
/*
 * Legality without listing: m is one of builders_moves(s, seat) exactly
 * when legal() says so (tests/unit/test_game.c checks the two agree on
 * every decision of many games).  Each case mirrors its generator: change
 * them together.
 */
static inline int in_row(const uint8_t *row, int x)
{
	int i;

	for (i = 0; i < BUILDERS_ROW; i++)
		if (row[i] == x)
			return 1;
	return 0;
}

#endif
