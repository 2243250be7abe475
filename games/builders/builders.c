/*
 * builders.c: the rules of The Builders: Antiquity (Los Constructores:
 * Antigüedad; the Spanish rulebook is the specification) as a state
 * machine of short decisions.
 *
 * A turn is a sequence of actions ended by `end turn`.  BS_TURN lists every
 * action the seat can pay for now (3 free actions, 5 sesterces each after);
 * an action that needs a second choice opens a sub-step (BS_SEND: where a
 * chosen unit goes and with which tool; BS_ENSLAVE, BS_TOOL, BS_EDUCATE:
 * which investment card), left again with the meta move `back`.  Nothing is
 * paid before the last choice of an action.
 *
 * Sending the k-th worker to one building within a turn costs k actions
 * ("por enviar a tres Trabajadores durante el mismo turno al mismo
 * Edificio, un jugador debe gastar seis acciones"): sent[] counts them.  A
 * building is completed as soon as its workers (and their tools) cover its
 * needs; its units and tools come back, a machine joins the team.
 *
 * At the end of a turn with 17 VP or more from buildings and machines the
 * round is played out (so that everybody has had as many turns); then
 * BS_FINAL lets each seat, in turn order, free slaves (5 sesterces) and
 * repay loans (15) before the score is counted (score.c).
 *
 * Every function below that changes the state is reached from apply()
 * with a move that moves() listed, so they assume legality.
 */
#include <stddef.h>
#include <string.h>

#include "games/builders/builders.h"
#include "util/text.h"

/* Playouts pass no log: the logging stays out of their straight path. */
#define LOGF(log, ...) \
	do { if (__builtin_expect((log) != NULL, 0)) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

static const uint8_t take_gain[4] = { 0, 1, 3, 6 };	/* "1, 3 o 6 sestercios" */

/* ---- small helpers ---- */

int builders_decider(const struct builders_state *s)
{
	return s->step < BS_OVER ? s->cur : -1;
}

int builders_next_seat(const struct builders_state *s, int seat)
{
	return seat + 1 < s->nplayers ? seat + 1 : 0;
}

static int last_seat(const struct builders_state *s)
{
	return s->first ? s->first - 1 : s->nplayers - 1;
}

int builders_free_left(const struct builders_state *s)
{
	/* without a branch: how many actions were used is random in playouts */
	return (BUILDERS_FREE_ACTIONS - s->used) & -(s->used < BUILDERS_FREE_ACTIONS);
}

int builders_action_money(const struct builders_state *s, int k)
{
	int paid = k - builders_free_left(s);

	return (paid * BUILDERS_ACTION_PRICE) & -(paid > 0);
}

int builders_wage(const struct builders_state *s, int u)
{
	return s->uwage[u];
}

int builders_can_equip(const struct builders_state *s, int u)
{
	return !((s->bound >> u) & 1);
}

int builders_enslaved(const struct builders_state *s, int seat)
{
	int k, n = 0;

	for (k = 0; k < BUILDERS_SLAVES; k++)
		n += s->uown[BU_SLAVE + k] == seat && !s->freed[k];
	return n;
}

static unsigned res_mask(const uint8_t res[BR_COUNT])
{
	return (unsigned)(res[0] > 0) | (unsigned)(res[1] > 0) << 1 |
	       (unsigned)(res[2] > 0) << 2 | (unsigned)(res[3] > 0) << 3;
}

/* A unit's printed resources, before any University. */
static void base_res(int u, uint8_t out[BR_COUNT])
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
static unsigned lack_of(const struct builders_state *s, int b)
{
	const uint8_t *need = builders_buildings[b].need, *have = s->have[b];

	return (unsigned)(have[0] < need[0]) | (unsigned)(have[1] < need[1]) << 1 |
	       (unsigned)(have[2] < need[2]) << 2 | (unsigned)(have[3] < need[3]) << 3;
}

/* plack[seat]: what the seat's buildings in progress lack, together. */
static void refresh_lack(struct builders_state *s, int seat)
{
	uint64_t m;
	unsigned l = 0;

	for (m = s->prog[seat]; m; m &= m - 1)
		l |= s->lack[__builtin_ctzll(m)];
	s->plack[seat] = (uint8_t)l;
}

void builders_recount(struct builders_state *s)
{
	int u, b, t, k, r;

	s->bound = s->edu = 0;
	s->spile = s->tpile = s->upile = 0;
	for (u = 0; u < BUILDERS_UNITS; u++) {
		base_res(u, s->ures[u]);
		if (u < BU_SLAVE)
			s->uwage[u] = builders_wages[builders_workers[u].rank];
		else if (u < BU_MACHINE)
			s->uwage[u] = s->freed[u - BU_SLAVE] ? BUILDERS_FREED_WAGE : 0;
		else
			s->uwage[u] = 0;
	}
	for (k = 0; k < BUILDERS_SLAVES; k++) {
		if (!s->freed[k])
			s->bound |= 1u << (BU_SLAVE + k);
		if (s->uown[BU_SLAVE + k] == BUILDERS_NONE)
			s->spile |= (uint8_t)(1u << k);
	}
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] == BUILDERS_NONE)
			s->tpile |= (uint8_t)(1u << t);
	for (k = 0; k < BUILDERS_UNIS; k++) {
		if (s->uni[k] == BUILDERS_NONE) {
			s->upile |= (uint8_t)(1u << k);
		} else if (s->uni[k] < BUILDERS_UNITS) {
			s->ures[s->uni[k]][k] = BUILDERS_UNI_LEVEL;
			s->edu |= 1u << s->uni[k];
		}
	}
	for (u = 0; u < BUILDERS_UNITS; u++)
		s->umask[u] = (uint8_t)res_mask(s->ures[u]);
	memset(s->have, 0, sizeof(s->have));
	for (u = 0; u < BUILDERS_UNITS; u++)
		if ((b = s->uat[u]) < BUILDERS_BUILDINGS)
			for (r = 0; r < BR_COUNT; r++)
				s->have[b][r] = (uint8_t)(s->have[b][r] + s->ures[u][r]);
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->tat[t] < BUILDERS_UNITS && (b = s->uat[s->tat[t]]) < BUILDERS_BUILDINGS)
			s->have[b][t]++;
	for (b = 0; b < BUILDERS_BUILDINGS; b++)
		s->lack[b] = s->bplace[b] == BP_BUILDING ? lack_of(s, b) : 0;
	for (k = 0; k < BUILDERS_MAX_PLAYERS; k++) {
		s->p[k].vp = 0;
		s->prog[k] = 0;
		s->idle[k] = 0;
	}
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		int o = s->bown[b];

		if (o >= s->nplayers || o >= BUILDERS_MAX_PLAYERS)
			continue;
		if (s->bplace[b] == BP_DONE)
			s->p[o].vp = (uint8_t)(s->p[o].vp + builders_buildings[b].vp);
		else if (s->bplace[b] == BP_BUILDING)
			s->prog[o] |= 1ULL << b;
	}
	for (u = 0; u < BUILDERS_UNITS; u++)
		if (s->uown[u] < s->nplayers && s->uown[u] < BUILDERS_MAX_PLAYERS &&
		    s->uat[u] == BUILDERS_NONE)
			s->idle[s->uown[u]] |= 1u << u;
	s->sentmask = 0;
	for (b = 0; b < BUILDERS_BUILDINGS; b++)
		if (s->sent[b])
			s->sentmask |= 1ULL << b;
	memset(s->wle, 0, sizeof(s->wle));
	memset(s->rmask, 0, sizeof(s->rmask));
	for (u = 0; u < BUILDERS_UNITS; u++) {
		for (k = s->uwage[u] <= BUILDERS_FREED_WAGE ? s->uwage[u] : BUILDERS_FREED_WAGE + 1;
		     k <= BUILDERS_FREED_WAGE; k++)
			s->wle[k] |= 1u << u;
		for (r = 0; r < BR_COUNT; r++)
			if (s->ures[u][r])
				s->rmask[r] |= 1u << u;
	}
	for (k = 0; k < BUILDERS_MAX_PLAYERS; k++) {
		s->plack[k] = 0;
		s->tidle[k] = 0;
		if (k < s->nplayers)
			refresh_lack(s, k);
	}
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->town[t] < s->nplayers && s->town[t] < BUILDERS_MAX_PLAYERS &&
		    s->tat[t] == BUILDERS_NONE)
			s->tidle[s->town[t]] |= (uint8_t)(1u << t);
}

void builders_missing(const struct builders_state *s, int b, uint8_t out[BR_COUNT])
{
	int r;

	for (r = 0; r < BR_COUNT; r++) {
		int m = builders_buildings[b].need[r] - s->have[b][r];

		out[r] = (uint8_t)(m > 0 ? m : 0);
	}
}

/* Money and the bank move together: sum(money) + bank stays 108. */
static void pay(struct builders_state *s, int seat, int n)
{
	s->p[seat].money = (uint16_t)(s->p[seat].money - n);
	s->bank += n;
}

static void gain(struct builders_state *s, int seat, int n)
{
	s->p[seat].money = (uint16_t)(s->p[seat].money + n);
	s->bank -= n;
}

/* Spends k actions of the active seat; returns the sesterces paid. */
static int spend_actions(struct builders_state *s, int k)
{
	int cost = builders_action_money(s, k);

	pay(s, s->cur, cost);
	s->used = (uint16_t)(s->used + k);
	return cost;
}

/* ---- what a seat may do ---- */

/* Bit t: tool t is the seat's and not in use. */
static unsigned tools_free(const struct builders_state *s, int seat)
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
static unsigned send_options(const struct builders_state *s, int u, int b, unsigned tfree)
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

static int unit_can_go(const struct builders_state *s, int u, unsigned tfree)
{
	uint64_t m;

	for (m = s->prog[s->cur]; m; m &= m - 1)
		if (send_options(s, u, __builtin_ctzll(m), tfree))
			return 1;
	return 0;
}

/* A University (resource k, still in the pile) raises something of the
 * active seat's available unit u, never educated before ("sólo una vez"). */
static int can_educate(const struct builders_state *s, int u, int k)
{
	return ((s->upile >> k) & 1) && ((s->idle[s->cur] >> u) & 1) &&
	       !(((s->bound | s->edu) >> u) & 1) && s->ures[u][k] < BUILDERS_UNI_LEVEL;
}

static int any_education(const struct builders_state *s)
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

static int slave_free_to_go(const struct builders_state *s, int seat, int k)
{
	return ((s->idle[seat] & s->bound) >> (BU_SLAVE + k)) & 1;
}

/* At the final scoring: something left to free or repay. */
static int final_options(const struct builders_state *s, int seat)
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
static int after_one(const struct builders_state *s)
{
	return s->p[s->cur].money - builders_action_money(s, 1);
}

/* The turn's investment of kind (BM_ENSLAVE, BM_TOOL, BM_LOAN,
 * BM_EDUCATE) can be opened now. */
static int invest_open(const struct builders_state *s, int kind)
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
static int take_ok(const struct builders_state *s, int k)
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

/*
 * The units of the active seat that can be sent somewhere: the same answer
 * as unit_can_go() for each, worked out for all at once.  The buildings
 * not yet sent to this turn all cost c1 sesterces of actions; for them a
 * unit is useful when it makes a resource one of them lacks (lack1), or,
 * if it may carry a tool, when one of them lacks the resource of a free
 * tool (a unit that makes none of what a building lacks gains 1 of it
 * with the tool).  Only the buildings already sent to this turn, whose
 * next send costs more, are checked one by one.
 */
static uint32_t senders(const struct builders_state *s, int c1)
{
	const uint64_t prog = s->prog[s->cur], again = prog & s->sentmask;
	unsigned lack1 = s->plack[s->cur], tfree = s->tidle[s->cur];
	int budget = s->p[s->cur].money - c1;
	uint32_t cheap, out, useful = 0, rest;
	uint64_t m;

	if (budget < 0)
		return 0;
	cheap = s->idle[s->cur] & s->wle[budget < BUILDERS_FREED_WAGE ? budget : BUILDERS_FREED_WAGE];
	if (again) {	/* a building already sent to: lack1 without it */
		lack1 = 0;
		for (m = prog & ~again; m; m &= m - 1)
			lack1 |= s->lack[__builtin_ctzll(m)];
	}
	useful |= s->rmask[0] & -(uint32_t)(lack1 & 1);
	useful |= s->rmask[1] & -(uint32_t)((lack1 >> 1) & 1);
	useful |= s->rmask[2] & -(uint32_t)((lack1 >> 2) & 1);
	useful |= s->rmask[3] & -(uint32_t)((lack1 >> 3) & 1);
	useful |= ~s->bound & -(uint32_t)((lack1 & tfree) != 0);
	out = cheap & useful;
	/* the others may still go where the next send costs more */
	for (rest = again ? cheap & ~out : 0; rest; rest &= rest - 1) {
		int x = __builtin_ctz(rest);

		for (m = again; m; m &= m - 1)
			if (send_options(s, x, __builtin_ctzll(m), tfree)) {
				out |= 1u << x;
				break;
			}
	}
	return out;
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

static int moves_turn(const struct builders_state *s, struct move *v)
{
	const struct builders_player *p = &s->p[s->cur];
	int f = builders_free_left(s), c1 = f ? 0 : BUILDERS_ACTION_PRICE;
	int n = 0;
	uint32_t m;

	/* no free action and no money for one: only the end of the turn (a
	 * loan needs 15 to repay) */
	if (p->money < c1)
		return add(v, 0, BM_END, 0, 0);
	n = row_moves(v, n, s->brow, s->nbdeck, BM_START);
	n = row_moves(v, n, s->wrow, s->nwdeck, BM_HIRE);
	for (m = senders(s, c1); m; m &= m - 1)
			n = add(v, n, BM_SEND, __builtin_ctz(m), 0);
	if (!s->invested) {
		int left = p->money - c1;

		n = put(v, n, s->spile && left >= BUILDERS_SLAVE_PRICE, BM_ENSLAVE, 0);
		n = put(v, n, s->tpile && left >= BUILDERS_TOOL_PRICE, BM_TOOL, 0);
		n = put(v, n, s->loan_pile, BM_LOAN, 0);
		if (left >= BUILDERS_UNI_PRICE && any_education(s))
			n = add(v, n, BM_EDUCATE, 0, 0);
	}
	/* take_ok(): free actions, or 6 for 2 free + 1 paid (5) */
	n = put(v, n, f >= 1, BM_TAKE, 1);
	n = put(v, n, f >= 2, BM_TAKE, 2);
	n = put(v, n, (f == 3) | ((f == 2) & (p->money >= BUILDERS_ACTION_PRICE)), BM_TAKE, 3);
	for (m = s->idle[s->cur] & s->bound; m; m &= m - 1)
		n = add(v, n, BM_FREE, __builtin_ctz(m), 0);
	n = put(v, n, (p->loans != 0) & (p->money >= BUILDERS_LOAN_REPAY), BM_REPAY, 0);
	return add(v, n, BM_END, 0, 0);
}

static int moves_send(const struct builders_state *s, struct move *v)
{
	unsigned tfree = tools_free(s, s->cur);
	uint64_t m;
	int n = 0, t;

	for (m = s->prog[s->cur]; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		unsigned opt = send_options(s, s->pend, b, tfree);

		if (opt & 1)
			n = add(v, n, BM_TO, b, 0);
		for (t = 0; t < BUILDERS_TOOLS; t++)
			if (opt & (2u << t))
				n = add(v, n, BM_TO, b, 1 + t);
	}
	return n;
}

static int moves_enslave(const struct builders_state *s, struct move *v)
{
	int k, n = 0;

	for (k = 0; k < BUILDERS_SLAVES; k++)
		if ((s->spile >> k) & 1)
			n = add(v, n, BM_ENSLAVE, 1 + k, 0);
	return n;
}

static int moves_tool(const struct builders_state *s, struct move *v)
{
	int t, n = 0;

	for (t = 0; t < BUILDERS_TOOLS; t++)
		if ((s->tpile >> t) & 1)
			n = add(v, n, BM_TOOL, 1 + t, 0);
	return n;
}

static int moves_educate(const struct builders_state *s, struct move *v)
{
	uint32_t m;
	int k, n = 0;

	for (m = s->idle[s->cur]; m; m &= m - 1)
		for (k = 0; k < BUILDERS_UNIS; k++)
			if (can_educate(s, __builtin_ctz(m), k))
				n = add(v, n, BM_EDUCATE, 1 + __builtin_ctz(m), k);
	return n;
}

static int moves_final(const struct builders_state *s, struct move *v)
{
	const struct builders_player *p = &s->p[s->cur];
	int k, n = 0;

	if (p->money >= BUILDERS_FREE_PRICE)
		for (k = 0; k < BUILDERS_SLAVES; k++)
			if (slave_free_to_go(s, s->cur, k))
				n = add(v, n, BM_FREE, BU_SLAVE + k, 0);
	if (p->loans && p->money >= BUILDERS_LOAN_REPAY)
		n = add(v, n, BM_REPAY, 0, 0);
	return add(v, n, BM_END, 0, 0);
}

int builders_moves(const void *st, int seat, struct move_list *out)
{
	const struct builders_state *s = st;
	int n = 0;

	out->nmeta = 0;
	if ((unsigned)seat >= s->nplayers || s->step >= BS_OVER || s->cur != seat) {
		out->n = 0;
		return 0;
	}
	switch (s->step) {
	case BS_TURN: n = moves_turn(s, out->v); break;
	case BS_SEND: n = moves_send(s, out->v); break;
	case BS_ENSLAVE: n = moves_enslave(s, out->v); break;
	case BS_TOOL: n = moves_tool(s, out->v); break;
	case BS_EDUCATE: n = moves_educate(s, out->v); break;
	case BS_FINAL: n = moves_final(s, out->v); break;
	}
	if (s->step >= BS_SEND && s->step <= BS_EDUCATE) {
		n = add(out->v, n, BM_BACK, 0, 0);	/* a person may change their mind */
		out->nmeta = 1;
	}
	out->n = n;
	return n;
}

unsigned builders_awaiting(const void *st)
{
	int seat = builders_decider(st);

	return seat < 0 ? 0u : 1u << seat;
}

/*
 * Legality without listing: m is one of builders_moves(s, seat) exactly
 * when legal() says so (tests/unit/test_game.c checks the two agree on
 * every decision of many games).  Each case mirrors its generator: change
 * them together.
 */
static int in_row(const uint8_t *row, int x)
{
	int i;

	for (i = 0; i < BUILDERS_ROW; i++)
		if (row[i] == x)
			return 1;
	return 0;
}

static int legal_turn(const struct builders_state *s, struct move m)
{
	const struct builders_player *p = &s->p[s->cur];

	switch (m.kind) {
	case BM_START:
		return !m.b && m.a < BUILDERS_BUILDINGS && in_row(s->brow, m.a) && after_one(s) >= 0;
	case BM_HIRE:
		return !m.b && m.a < BUILDERS_WORKERS && in_row(s->wrow, m.a) && after_one(s) >= 0;
	case BM_SEND:
		return !m.b && m.a < BUILDERS_UNITS && ((s->idle[s->cur] >> m.a) & 1) &&
		       unit_can_go(s, m.a, tools_free(s, s->cur));
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_LOAN:
	case BM_EDUCATE:
		return !m.a && !m.b && invest_open(s, m.kind);
	case BM_TAKE:
		return !m.b && m.a >= 1 && m.a <= 3 && take_ok(s, m.a);
	case BM_FREE:
		return !m.b && m.a >= BU_SLAVE && m.a < BU_MACHINE && after_one(s) >= 0 &&
		       slave_free_to_go(s, s->cur, m.a - BU_SLAVE);
	case BM_REPAY:
		return !m.a && !m.b && p->loans && p->money >= BUILDERS_LOAN_REPAY;
	case BM_END:
		return !m.a && !m.b;
	}
	return 0;
}

static int legal(const struct builders_state *s, struct move m)
{
	const struct builders_player *p = &s->p[s->cur];

	if (m.c)
		return 0;
	if (__builtin_expect(s->step == BS_TURN, 1))	/* nearly every decision */
		return legal_turn(s, m);
	if (m.kind == BM_BACK)
		return !m.a && !m.b && s->step >= BS_SEND && s->step <= BS_EDUCATE;
	switch (s->step) {
	case BS_SEND:
		if (m.kind != BM_TO || m.a >= BUILDERS_BUILDINGS || m.b > BUILDERS_TOOLS ||
		    !((s->prog[s->cur] >> m.a) & 1))
			return 0;
		return (send_options(s, s->pend, m.a, tools_free(s, s->cur)) >> m.b) & 1;
	case BS_ENSLAVE:
		return m.kind == BM_ENSLAVE && !m.b && m.a >= 1 && m.a <= BUILDERS_SLAVES &&
		       ((s->spile >> (m.a - 1)) & 1);
	case BS_TOOL:
		return m.kind == BM_TOOL && !m.b && m.a >= 1 && m.a <= BUILDERS_TOOLS &&
		       ((s->tpile >> (m.a - 1)) & 1);
	case BS_EDUCATE:
		return m.kind == BM_EDUCATE && m.a >= 1 && m.a <= BUILDERS_UNITS && m.b < BUILDERS_UNIS &&
		       can_educate(s, m.a - 1, m.b);
	case BS_FINAL:
		switch (m.kind) {
		case BM_FREE:
			return !m.b && m.a >= BU_SLAVE && m.a < BU_MACHINE &&
			       p->money >= BUILDERS_FREE_PRICE && slave_free_to_go(s, s->cur, m.a - BU_SLAVE);
		case BM_REPAY:
			return !m.a && !m.b && p->loans && p->money >= BUILDERS_LOAN_REPAY;
		case BM_END:
			return !m.a && !m.b;
		}
		return 0;
	}
	return 0;
}

/* ---- turn flow ---- */

static void start_final(struct builders_state *s, struct game_log *log);

__attribute__((noinline, cold))
static void log_round(const struct builders_state *s, struct game_log *log)
{
	game_logf(log, LOG_PUBLIC, L(log->loc, "Round %d. %s plays first.",
				     "Ronda %d. %s juega primero."),
		  s->round, NAME(log, s->first));
}

static void clear_turn(struct builders_state *s)
{
	s->used = 0;
	s->invested = 0;
	s->pend = BUILDERS_NONE;
	if (s->sentmask)	/* most turns send nobody twice: nothing to clear */
		memset(s->sent, 0, sizeof(s->sent));
	s->sentmask = 0;
}

static void end_turn(struct builders_state *s, struct game_log *log)
{
	int seat = s->cur;

	if (s->p[seat].vp >= BUILDERS_END_VP && !s->ending) {
		s->ending = 1;
		if (log)
			game_logf(log, LOG_PUBLIC,
				  seat == last_seat(s) ?
				  L(log->loc, "%s ends the turn with %d VP: the game ends now.",
				    "%s termina el turno con %d PV: la partida termina ya.") :
				  L(log->loc, "%s ends the turn with %d VP: the game ends after this round.",
				    "%s termina el turno con %d PV: la partida termina al acabar esta ronda."),
				  NAME(log, seat), s->p[seat].vp);
	} else {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s ends the turn.", "%s termina el turno."),
		     NAME(log, seat));
	}
	clear_turn(s);
	if (seat == last_seat(s)) {
		if (s->ending || s->round >= BUILDERS_ROUND_CAP) {
			if (!s->ending)
				LOGF(log, LOG_PUBLIC, L(LOC(log),
					"Round %d was the last one the table plays: the game ends.",
					"La ronda %d era la última que se juega: la partida termina."),
				     s->round);
			start_final(s, log);
			return;
		}
		s->round++;
		s->cur = s->first;
		if (log)
			log_round(s, log);
		return;
	}
	s->cur = (uint8_t)builders_next_seat(s, seat);
}

/* BS_FINAL asks, in turn order from the first player, each seat that can
 * still free a slave or repay a loan; the others are skipped. */
static void final_from(struct builders_state *s, int seat, struct game_log *log)
{
	int i;

	for (i = seat; ; ) {
		if (final_options(s, i)) {
			s->cur = (uint8_t)i;
			s->step = BS_FINAL;
			return;
		}
		i = builders_next_seat(s, i);
		if (i == s->first)
			break;
	}
	s->step = BS_OVER;
	s->cur = 0;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
}

static void start_final(struct builders_state *s, struct game_log *log)
{
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "Final scoring: slaves may still be freed (5 s) and loans repaid (15 s).",
				      "Puntuación final: aún se pueden liberar esclavos (5 s) y devolver préstamos (15 s)."));
	final_from(s, s->first, log);
}

static void final_next(struct builders_state *s, struct game_log *log)
{
	int n = builders_next_seat(s, s->cur);

	if (n == s->first) {
		s->step = BS_OVER;
		s->cur = 0;
		LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
		return;
	}
	final_from(s, n, log);
}

/* ---- setup ---- */

int builders_setup(void *st, int players, uint64_t seed, const char *options,
		   struct buf *err)
{
	struct builders_state *s = st;
	const char *o = options ? options : "";
	uint8_t app[BUILDERS_APPRENTICES];
	char word[32];
	int i, b, u;

	if (players < BUILDERS_MIN_PLAYERS || players > BUILDERS_MAX_PLAYERS) {
		buf_setf(err, "The Builders: Antiquity is for 2 to 4 players.");
		return -1;
	}
	if (text_word(&o, word, sizeof(word))) {
		buf_setf(err, "Unknown option \"%s\" (The Builders: Antiquity has no options).", word);
		return -1;
	}

	memset(s, 0, sizeof(*s));
	s->nplayers = (uint8_t)players;
	s->round = 1;
	rng_seed(&s->rng, seed, 0x4275696c64657273ULL);	/* "Builders" */

	memset(s->brow, BUILDERS_NONE, sizeof(s->brow));
	memset(s->wrow, BUILDERS_NONE, sizeof(s->wrow));
	memset(s->bown, BUILDERS_NONE, sizeof(s->bown));
	memset(s->uown, BUILDERS_NONE, sizeof(s->uown));
	memset(s->uat, BUILDERS_NONE, sizeof(s->uat));
	memset(s->town, BUILDERS_NONE, sizeof(s->town));
	memset(s->tat, BUILDERS_NONE, sizeof(s->tat));
	memset(s->uni, BUILDERS_NONE, sizeof(s->uni));
	s->pend = BUILDERS_NONE;
	s->loan_pile = BUILDERS_LOANS;
	s->bank = BUILDERS_BANK_COINS;

	/* 1: the buildings, shuffled; five face up. */
	for (b = 0; b < BUILDERS_BUILDINGS; b++)
		s->bdeck[b] = (uint8_t)b;
	s->nbdeck = BUILDERS_BUILDINGS;
	rng_shuffle(&s->rng, s->bdeck, s->nbdeck, 1);
	for (i = 0; i < BUILDERS_ROW; i++) {
		s->brow[i] = s->bdeck[--s->nbdeck];
		s->bdeck[s->nbdeck] = 0;	/* unused entries stay 0: states compare bytewise */
		s->bplace[s->brow[i]] = BP_ROW;
	}
	/* 2: an Apprentice at random to each player, the others into the
	 * worker deck; 3: the deck shuffled, five face up. */
	for (i = 0; i < BUILDERS_APPRENTICES; i++)
		app[i] = (uint8_t)i;
	rng_shuffle(&s->rng, app, BUILDERS_APPRENTICES, 1);
	for (i = 0; i < players; i++) {
		s->uown[app[i]] = (uint8_t)i;
		s->dealt[i] = app[i];
	}
	for (u = 0; u < BUILDERS_WORKERS; u++)
		if (s->uown[u] == BUILDERS_NONE)
			s->wdeck[s->nwdeck++] = (uint8_t)u;
	rng_shuffle(&s->rng, s->wdeck, s->nwdeck, 1);
	for (i = 0; i < BUILDERS_ROW; i++) {
		s->wrow[i] = s->wdeck[--s->nwdeck];
		s->wdeck[s->nwdeck] = 0;
	}
	/* 5: 10 sesterces each; 6: a random first player. */
	for (i = 0; i < players; i++)
		gain(s, i, BUILDERS_START_MONEY);
	s->first = (uint8_t)rng_below(&s->rng, (uint32_t)players);
	s->cur = s->first;
	s->step = BS_TURN;
	builders_recount(s);
	return 0;
}

int builders_give_building(struct builders_state *s, int seat, int b)
{
	int i;

	if (b < 0 || b >= BUILDERS_BUILDINGS || seat < 0 || seat >= s->nplayers)
		return -1;
	if (s->bplace[b] == BP_ROW) {
		for (i = 0; i < BUILDERS_ROW; i++)
			if (s->brow[i] == b) {
				s->brow[i] = BUILDERS_NONE;
				if (s->nbdeck) {
					s->brow[i] = s->bdeck[--s->nbdeck];
					s->bdeck[s->nbdeck] = 0;
					s->bplace[s->brow[i]] = BP_ROW;
				}
			}
	} else if (s->bplace[b] == BP_DECK) {
		for (i = 0; i < s->nbdeck && s->bdeck[i] != b; i++)
			;
		if (i == s->nbdeck)
			return -1;
		memmove(s->bdeck + i, s->bdeck + i + 1, (size_t)(s->nbdeck - i - 1));
		s->bdeck[--s->nbdeck] = 0;
	} else {
		return -1;
	}
	s->bown[b] = (uint8_t)seat;
	s->bplace[b] = BP_BUILDING;
	builders_recount(s);
	return 0;
}

int builders_give_worker(struct builders_state *s, int seat, int w)
{
	int i;

	if (w < 0 || w >= BUILDERS_WORKERS || seat < 0 || seat >= s->nplayers ||
	    s->uown[w] != BUILDERS_NONE)
		return -1;
	for (i = 0; i < BUILDERS_ROW; i++)
		if (s->wrow[i] == w) {
			s->wrow[i] = BUILDERS_NONE;
			if (s->nwdeck) {
				s->wrow[i] = s->wdeck[--s->nwdeck];
				s->wdeck[s->nwdeck] = 0;
			}
			s->uown[w] = (uint8_t)seat;
			builders_recount(s);
			return 0;
		}
	for (i = 0; i < s->nwdeck && s->wdeck[i] != w; i++)
		;
	if (i == s->nwdeck)
		return -1;
	memmove(s->wdeck + i, s->wdeck + i + 1, (size_t)(s->nwdeck - i - 1));
	s->wdeck[--s->nwdeck] = 0;
	s->uown[w] = (uint8_t)seat;
	builders_recount(s);
	return 0;
}

/* ---- apply ---- */

__attribute__((noinline, cold))
static void log_paid(struct game_log *log, int seat, int k, int cost)
{
	if (cost == BUILDERS_ACTION_PRICE)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s pays %d s for an extra action.",
					     "%s paga %d s por una acción extra."),
			  NAME(log, seat), cost);
	else if (cost)
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s pays %d s for %d extra actions.",
					     "%s paga %d s por %d acciones extra."),
			  NAME(log, seat), cost, cost / BUILDERS_ACTION_PRICE);
	(void)k;
}

__attribute__((noinline, cold))
static void log_card(const struct builders_state *s, struct game_log *log, int seat,
		     const char *en, const char *es, int building, int card)
{
	struct buf b = BUF_INIT;

	if (building)
		builders_building_tag(card, log->loc, &b);
	else
		builders_unit_tag(s, card, log->loc, &b);
	game_logf(log, LOG_PUBLIC, L(log->loc, en, es), NAME(log, seat), buf_str(&b));
	buf_release(&b);
}

/* Takes the card of row slot i and refills the slot from the deck. */
static void take_row(uint8_t *row, int i, uint8_t *deck, uint8_t *ndeck)
{
	row[i] = BUILDERS_NONE;
	if (*ndeck) {
		row[i] = deck[--*ndeck];
		deck[*ndeck] = 0;
	}
}

static void do_start(struct builders_state *s, int b, struct game_log *log)
{
	int i, cost = spend_actions(s, 1);

	for (i = 0; i < BUILDERS_ROW && s->brow[i] != b; i++)
		;
	take_row(s->brow, i, s->bdeck, &s->nbdeck);
	s->bown[b] = s->cur;
	s->bplace[b] = BP_BUILDING;
	s->prog[s->cur] |= 1ULL << b;
	s->lack[b] = (uint8_t)lack_of(s, b);
	s->plack[s->cur] |= s->lack[b];
	if (s->brow[i] != BUILDERS_NONE)
		s->bplace[s->brow[i]] = BP_ROW;
	if (log) {
		log_paid(log, s->cur, 1, cost);	/* the payment first, then what it bought */
		log_card(s, log, s->cur, "%s starts %s.", "%s inicia %s.", 1, b);
		if (s->brow[i] != BUILDERS_NONE)
			log_card(s, log, s->cur, "New building for sale (%s's action): %s.",
				 "Nuevo edificio a la venta (acción de %s): %s.", 1, s->brow[i]);
	}
}

static void do_hire(struct builders_state *s, int w, struct game_log *log)
{
	int i, cost = spend_actions(s, 1);

	for (i = 0; i < BUILDERS_ROW && s->wrow[i] != w; i++)
		;
	take_row(s->wrow, i, s->wdeck, &s->nwdeck);
	s->uown[w] = s->cur;
	s->idle[s->cur] |= 1u << w;
	if (log) {
		log_paid(log, s->cur, 1, cost);
		log_card(s, log, s->cur, "%s hires %s.", "%s contrata a %s.", 0, w);
		if (s->wrow[i] != BUILDERS_NONE)
			log_card(s, log, s->cur, "New worker for hire (%s's action): %s.",
				 "Nuevo trabajador disponible (acción de %s): %s.", 0, s->wrow[i]);
	}
}

__attribute__((noinline, cold))
static void log_complete(const struct builders_state *s, struct game_log *log, int seat, int b)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	enum locale loc = log->loc;

	if (bi->makes)
		game_logf(log, LOG_PUBLIC,
			  L(loc, "%s completes the machine %s: %d VP, and it joins their workers (makes 3 %s, no wage). Now %d VP.",
			    "%s termina la máquina %s: %d PV, y se une a sus trabajadores (produce 3 de %s, sin sueldo). Ahora %d PV."),
			  NAME(log, seat), bi->name[loc], bi->vp, builders_resources[bi->makes - 1].name[loc],
			  s->p[seat].vp);
	else
		game_logf(log, LOG_PUBLIC, L(loc, "%s completes %s: +%d s and %d VP. Now %d VP.",
					     "%s termina %s: +%d s y %d PV. Ahora %d PV."),
			  NAME(log, seat), bi->name[loc], bi->coins, bi->vp, s->p[seat].vp);
}

/* "Cuando la suma ... es igual o excede a los requisitos de cada recurso
 * del Edificio, el Edificio queda completado." */
static void maybe_complete(struct builders_state *s, int b, struct game_log *log)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	int u, t, seat = s->bown[b];

	if (s->lack[b])
		return;
	s->bplace[b] = BP_DONE;
	gain(s, seat, bi->coins);
	s->p[seat].vp = (uint8_t)(s->p[seat].vp + bi->vp);
	for (t = 0; t < BUILDERS_TOOLS; t++)
		if (s->tat[t] != BUILDERS_NONE && s->uat[s->tat[t]] == b) {
			s->tat[t] = BUILDERS_NONE;
			s->tidle[seat] |= (uint8_t)(1u << t);
		}
	for (u = 0; u < BUILDERS_UNITS; u++)
		if (s->uat[u] == b) {
			s->uat[u] = BUILDERS_NONE;
			s->idle[seat] |= 1u << u;
		}
	memset(s->have[b], 0, sizeof(s->have[b]));
	s->sent[b] = 0;
	s->sentmask &= ~(1ULL << b);
	s->lack[b] = 0;
	s->prog[seat] &= ~(1ULL << b);
	if (bi->makes) {
		u = BU_MACHINE + b - BB_FIRST_MACHINE;
		s->uown[u] = (uint8_t)seat;
		s->idle[seat] |= 1u << u;
	}
	if (log)
		log_complete(s, log, seat, b);
}

__attribute__((noinline, cold))
static void log_send(const struct builders_state *s, struct game_log *log, int u, int b,
		     int tool, int k, int wage)
{
	struct buf unit = BUF_INIT;
	enum locale loc = log->loc;
	const char *bn = builders_buildings[b].name[loc];

	builders_unit_name(s, u, loc, &unit);
	if (tool) {
		buf_addch(&unit, ' ');
		buf_printf(&unit, L(loc, "with the %s", "con %s"), builders_tools[tool - 1].name[loc]);
	}
	if (k == 1)
		game_logf(log, LOG_PUBLIC, L(loc, "%s sends %s to %s: 1 action, wage %d s.",
					     "%s envía a %s a %s: 1 acción, sueldo %d s."),
			  NAME(log, s->cur), buf_str(&unit), bn, wage);
	else
		game_logf(log, LOG_PUBLIC, L(loc, "%s sends %s to %s: %d actions (worker %d there this turn), wage %d s.",
					     "%s envía a %s a %s: %d acciones (trabajador %d allí este turno), sueldo %d s."),
			  NAME(log, s->cur), buf_str(&unit), bn, k, k, wage);
	buf_release(&unit);
}

static void do_send(struct builders_state *s, int b, int tool, struct game_log *log)
{
	int u = s->pend, k = s->sent[b] + 1, wage = builders_wage(s, u), r, cost;

	cost = spend_actions(s, k);
	pay(s, s->cur, wage);
	s->uat[u] = (uint8_t)b;
	s->idle[s->cur] &= ~(1u << u);
	for (r = 0; r < BR_COUNT; r++)
		s->have[b][r] = (uint8_t)(s->have[b][r] + s->ures[u][r]);
	if (tool) {
		s->tat[tool - 1] = (uint8_t)u;
		s->tidle[s->cur] &= (uint8_t)~(1u << (tool - 1));
		s->have[b][tool - 1]++;
	}
	s->sent[b] = (uint8_t)k;
	s->sentmask |= 1ULL << b;
	s->lack[b] = (uint8_t)lack_of(s, b);
	s->pend = BUILDERS_NONE;
	s->step = BS_TURN;
	if (log) {
		log_paid(log, s->cur, k, cost);
		log_send(s, log, u, b, tool, k, wage);
	}
	maybe_complete(s, b, log);
	refresh_lack(s, s->cur);
}

__attribute__((noinline, cold))
static void log_invest(const struct builders_state *s, struct game_log *log, struct move m)
{
	struct buf b = BUF_INIT, r = BUF_INIT;
	enum locale loc = log->loc;
	int seat = s->cur;

	switch (m.kind) {
	case BM_ENSLAVE:
		builders_unit_tag(s, BU_SLAVE + m.a - 1, loc, &b);
		game_logf(log, LOG_PUBLIC, L(loc, "%s buys %s for %d s.", "%s compra a %s por %d s."),
			  NAME(log, seat), buf_str(&b), BUILDERS_SLAVE_PRICE);
		break;
	case BM_TOOL:
		game_logf(log, LOG_PUBLIC, L(loc, "%s buys the %s (+1 %s) for %d s.",
					     "%s compra %s (+1 de %s) por %d s."),
			  NAME(log, seat), builders_tools[m.a - 1].name[loc],
			  builders_resources[m.a - 1].name[loc], BUILDERS_TOOL_PRICE);
		break;
	case BM_LOAN:
		game_logf(log, LOG_PUBLIC, L(loc, "%s takes a loan: +%d s (repay %d s, or -%d VP at the end).",
					     "%s pide un préstamo: +%d s (devolver %d s, o -%d PV al final)."),
			  NAME(log, seat), BUILDERS_LOAN_GAIN, BUILDERS_LOAN_REPAY, BUILDERS_LOAN_PENALTY);
		break;
	case BM_EDUCATE:
		builders_unit_name(s, m.a - 1, loc, &b);
		builders_res_text(s->ures[m.a - 1], loc, &r);
		game_logf(log, LOG_PUBLIC, L(loc, "%s educates %s in %s for %d s: now %s.",
					     "%s educa a %s en %s por %d s: ahora %s."),
			  NAME(log, seat), buf_str(&b), builders_resources[m.b].name[loc],
			  BUILDERS_UNI_PRICE, buf_str(&r));
		break;
	}
	buf_release(&b);
	buf_release(&r);
}

static void do_invest(struct builders_state *s, struct move m, struct game_log *log)
{
	int seat = s->cur, cost = spend_actions(s, 1);

	switch (m.kind) {
	case BM_ENSLAVE:
		pay(s, seat, BUILDERS_SLAVE_PRICE);
		s->uown[BU_SLAVE + m.a - 1] = (uint8_t)seat;
		s->idle[seat] |= 1u << (BU_SLAVE + m.a - 1);
		s->spile &= (uint8_t)~(1u << (m.a - 1));
		break;
	case BM_TOOL:
		pay(s, seat, BUILDERS_TOOL_PRICE);
		s->town[m.a - 1] = (uint8_t)seat;
		s->tpile &= (uint8_t)~(1u << (m.a - 1));
		s->tidle[seat] |= (uint8_t)(1u << (m.a - 1));
		break;
	case BM_LOAN:
		gain(s, seat, BUILDERS_LOAN_GAIN);
		s->loan_pile--;
		s->p[seat].loans++;
		break;
	case BM_EDUCATE:
		pay(s, seat, BUILDERS_UNI_PRICE);
		s->uni[m.b] = (uint8_t)(m.a - 1);
		s->ures[m.a - 1][m.b] = BUILDERS_UNI_LEVEL;
		s->umask[m.a - 1] |= (uint8_t)(1u << m.b);
		s->rmask[m.b] |= 1u << (m.a - 1);
		s->upile &= (uint8_t)~(1u << m.b);
		s->edu |= 1u << (m.a - 1);
		break;
	}
	s->invested = 1;
	s->step = BS_TURN;
	if (log) {
		log_paid(log, seat, 1, cost);
		log_invest(s, log, m);
	}
}

static void do_free(struct builders_state *s, int u, struct game_log *log)
{
	int seat = s->cur, cost = 0, k;
	struct buf b = BUF_INIT;

	if (s->step == BS_FINAL)
		pay(s, seat, BUILDERS_FREE_PRICE);
	else
		cost = spend_actions(s, 1);
	s->freed[u - BU_SLAVE] = 1;
	s->bound &= ~(1u << u);
	s->uwage[u] = BUILDERS_FREED_WAGE;
	for (k = 0; k < BUILDERS_FREED_WAGE; k++)
		s->wle[k] &= ~(1u << u);
	if (log) {
		log_paid(log, seat, 1, cost);
		builders_unit_tag(s, u, log->loc, &b);
		if (s->step == BS_FINAL)
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s frees a slave for %d s: %s.",
						     "%s libera a un esclavo por %d s: %s."),
				  NAME(log, seat), BUILDERS_FREE_PRICE, buf_str(&b));
		else
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s frees a slave: %s.",
						     "%s libera a un esclavo: %s."),
				  NAME(log, seat), buf_str(&b));
	}
	buf_release(&b);
}

static void do_repay(struct builders_state *s, struct game_log *log)
{
	int seat = s->cur;

	pay(s, seat, BUILDERS_LOAN_REPAY);
	s->p[seat].loans--;
	s->loan_pile++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s repays a loan (%d s).", "%s devuelve un préstamo (%d s)."),
	     NAME(log, seat), BUILDERS_LOAN_REPAY);
}

int builders_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct builders_state *s = st;
	int cost;

	if ((unsigned)seat >= s->nplayers || s->step >= BS_OVER || s->cur != seat) {
		buf_setf(err, "%s", L(LOC(log), "It is not your decision now.",
				      "Ahora no te toca decidir."));
		return -1;
	}
	if (!legal(s, m)) {
		buf_setf(err, "%s", L(LOC(log), "That move is not possible now.",
				      "Esa jugada no es posible ahora."));
		return -1;
	}
	switch (m.kind) {
	case BM_START:
		do_start(s, m.a, log);
		break;
	case BM_HIRE:
		do_hire(s, m.a, log);
		break;
	case BM_SEND:
		s->pend = (uint8_t)m.a;
		s->step = BS_SEND;
		break;
	case BM_TO:
		do_send(s, m.a, m.b, log);
		break;
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_EDUCATE:
		if (m.a == 0) {
			s->step = m.kind == BM_ENSLAVE ? BS_ENSLAVE :
				  m.kind == BM_TOOL ? BS_TOOL : BS_EDUCATE;
			break;
		}
		do_invest(s, m, log);
		break;
	case BM_LOAN:
		do_invest(s, m, log);
		break;
	case BM_TAKE:
		cost = spend_actions(s, m.a);
		gain(s, seat, take_gain[m.a]);
		if (log) {
			log_paid(log, seat, m.a, cost);
			if (m.a == 1)
				game_logf(log, LOG_PUBLIC, L(log->loc, "%s takes 1 sesterce (1 action).",
							     "%s coge 1 sestercio (1 acción)."),
					  NAME(log, seat));
			else
				game_logf(log, LOG_PUBLIC, L(log->loc, "%s takes %d sesterces (%d actions).",
							     "%s coge %d sestercios (%d acciones)."),
					  NAME(log, seat), take_gain[m.a], m.a);
		}
		break;
	case BM_FREE:
		do_free(s, m.a, log);
		if (s->step == BS_FINAL && !final_options(s, seat))
			final_next(s, log);
		break;
	case BM_REPAY:
		do_repay(s, log);
		if (s->step == BS_FINAL && !final_options(s, seat))
			final_next(s, log);
		break;
	case BM_END:
		if (s->step == BS_FINAL)
			final_next(s, log);
		else
			end_turn(s, log);
		break;
	case BM_BACK:
		s->pend = BUILDERS_NONE;
		s->step = BS_TURN;
		break;
	}
	return 0;
}

/* ---- the driver table ---- */

static const char *const builders_aliases[] = { "the builders", "builders antiquity",
	"los constructores", NULL };

/* a seat's turn within a round */
static unsigned builders_turn(const void *st)
{
	const struct builders_state *s = st;

	return (unsigned)s->round << 8 | s->cur;
}

/* ---- refusals that say why ---- */

/* The moves of the step that the rules would know, whatever they cost now:
 * what a player may type that moves() does not offer. */
static int candidates(const struct builders_state *s, struct move *v)
{
	int n = 0, i, u, t;
	uint64_t m;

	switch (s->step) {
	case BS_TURN:
		for (i = 0; i < BUILDERS_ROW; i++)
			if (s->brow[i] != BUILDERS_NONE)
				n = add(v, n, BM_START, s->brow[i], 0);
		for (i = 0; i < BUILDERS_ROW; i++)
			if (s->wrow[i] != BUILDERS_NONE)
				n = add(v, n, BM_HIRE, s->wrow[i], 0);
		for (u = 0; u < BUILDERS_UNITS; u++)
			if (s->uown[u] == s->cur && s->uat[u] == BUILDERS_NONE)
				n = add(v, n, BM_SEND, u, 0);
		n = add(v, n, BM_ENSLAVE, 0, 0);
		n = add(v, n, BM_TOOL, 0, 0);
		n = add(v, n, BM_LOAN, 0, 0);
		n = add(v, n, BM_EDUCATE, 0, 0);
		for (i = 1; i <= 3; i++)
			n = add(v, n, BM_TAKE, i, 0);
		/* the slaves and the loans, as at the end */
		__attribute__((fallthrough));
	case BS_FINAL:
		for (u = BU_SLAVE; u < BU_MACHINE; u++)
			if (s->uown[u] == s->cur && ((s->bound >> u) & 1))
				n = add(v, n, BM_FREE, u, 0);
		n = add(v, n, BM_REPAY, 0, 0);
		break;
	case BS_SEND:
		for (m = s->prog[s->cur]; m; m &= m - 1) {
			n = add(v, n, BM_TO, __builtin_ctzll(m), 0);
			for (t = 0; t < BUILDERS_TOOLS; t++)
				n = add(v, n, BM_TO, __builtin_ctzll(m), 1 + t);
		}
		break;
	default:
		break;
	}
	return n;
}

/* The candidate the folded text names: its id exactly, else the only id
 * it begins; -1 when none, -2 - the first when it begins several. */
static int named(const struct builders_state *s, const struct move *v, int n, const char *text)
{
	struct buf id = BUF_INIT, f = BUF_INIT;
	size_t len = strlen(text);
	int i, hit = -1, nprefix = 0, prefix = -1;

	for (i = 0; i < n && hit < 0 && len; i++) {
		buf_reset(&id);
		buf_reset(&f);
		builders_move_id(s, s->cur, v[i], &id);
		text_fold(buf_str(&id), &f);
		if (!strcmp(buf_str(&f), text))
			hit = i;
		else if (!strncmp(buf_str(&f), text, len) && nprefix++ == 0)
			prefix = i;
	}
	buf_release(&id);
	buf_release(&f);
	return hit >= 0 ? hit : nprefix == 1 ? prefix : nprefix ? -2 - prefix : -1;
}

static const char *ordinal(int k, enum locale loc)
{
	switch (k) {
	case 2: return L(loc, "second", "segundo");
	case 3: return L(loc, "third", "tercer");
	case 4: return L(loc, "fourth", "cuarto");
	default: return L(loc, "next", "siguiente");
	}
}

/* Why a send of unit u to building b (tool t + 1, or 0) is not offered. */
static void why_to(const struct builders_state *s, int u, int b, int tool, enum locale loc,
		   struct buf *out)
{
	const char *bn = builders_buildings[b].name[loc];
	int k = s->sent[b] + 1, wage = builders_wage(s, u), cost = builders_action_money(s, k);
	int money = s->p[s->cur].money;
	struct buf t = BUF_INIT;

	builders_unit_name(s, u, loc, &t);
	if (tool && (s->town[tool - 1] != s->cur || !((s->tidle[s->cur] >> (tool - 1)) & 1)))
		buf_printf(out, L(loc, "You have no free %s to give %s.", "No tienes %s libre para dárselo a %s."),
			   builders_tools[tool - 1].name[loc], buf_str(&t));
	else if (tool && ((s->bound >> u) & 1))
		buf_printf(out, L(loc, "%s is a slave and carries no tool.", "%s es un esclavo y no lleva herramientas."),
			   buf_str(&t));
	else if (cost + wage > money && k > 1)
		buf_printf(out, L(loc, "The %s worker to %s this turn costs %d actions (%d s) + wage %d s; you have %d s.",
				  "El %s trabajador a %s este turno cuesta %d acciones (%d s) + sueldo %d s; tienes %d s."),
			   ordinal(k, loc), bn, k, cost, wage, money);
	else if (cost + wage > money)
		buf_printf(out, L(loc, "Sending %s to %s costs %s + wage %d s; you have %d s.",
				  "Enviar a %s a %s cuesta %s + sueldo %d s; tienes %d s."),
			   buf_str(&t), bn, cost ? L(loc, "an extra action (5 s)", "una acción extra (5 s)")
						: L(loc, "1 action", "1 acción"), wage, money);
	else {
		uint8_t miss[BR_COUNT];

		builders_missing(s, b, miss);
		buf_printf(out, L(loc, "%s would add nothing %s still misses (missing ",
				  "%s no aportaría nada de lo que le falta a %s (falta "), buf_str(&t), bn);
		builders_res_text(miss, loc, out);
		buf_addstr(out, ").");
	}
	buf_release(&t);
}

void builders_near_miss(const void *st, int seat, const char *text, enum locale loc,
			struct buf *out)
{
	const struct builders_state *s = st;
	struct move v[BUILDERS_BUILDINGS * (1 + BUILDERS_TOOLS) + BUILDERS_UNITS + 32];
	const struct builders_player *p;
	int n, i, money, c1, f;
	struct buf t = BUF_INIT;
	struct move m;

	loc = loc < LOC_COUNT ? loc : LOC_EN;
	if ((unsigned)seat >= s->nplayers || s->step >= BS_OVER || s->cur != seat)
		return;
	n = candidates(s, v);
	if ((i = named(s, v, n, text)) == -1)
		return;
	m = v[i >= 0 ? i : -2 - i];
	p = &s->p[s->cur];
	money = p->money;
	f = builders_free_left(s);
	c1 = builders_action_money(s, 1);
	if (s->step == BS_TURN && m.kind != BM_REPAY && m.kind != BM_FREE && money < c1) {
		buf_printf(out, L(loc, "You have no free action left, and an extra one costs %d s; you have %d s. "
				  "`end turn` ends your turn.",
				  "No te quedan acciones libres, y una extra cuesta %d s; tienes %d s. "
				  "`end turn` termina tu turno."), c1, money);
		return;
	}
	if (i < 0)
		return;		/* several: game_parse lists them */
	switch (m.kind) {
	case BM_TAKE: {
		int k = m.a, gain = k * (k + 1) / 2, cost = builders_action_money(s, k);

		if (cost > money)
			buf_printf(out, L(loc, "Taking %d sesterces takes %d actions: %d extra at %d s; you have %d s.",
					  "Coger %d sestercios son %d acciones: %d extra a %d s; tienes %d s."),
				   gain, k, k - f, BUILDERS_ACTION_PRICE, money);
		else
			buf_printf(out, L(loc, "Taking %d sesterces takes %d actions and you have %d free: "
					  "the extra ones would cost %d s, more than it brings.",
					  "Coger %d sestercios son %d acciones y te quedan %d libres: "
					  "las extra costarían %d s, más de lo que da."), gain, k, f, cost);
		break;
	}
	case BM_ENSLAVE:
	case BM_TOOL:
	case BM_LOAN:
	case BM_EDUCATE: {
		static const int price[] = { [BM_ENSLAVE] = BUILDERS_SLAVE_PRICE,
					     [BM_TOOL] = BUILDERS_TOOL_PRICE, [BM_LOAN] = 0,
					     [BM_EDUCATE] = BUILDERS_UNI_PRICE };
		int pile = m.kind == BM_ENSLAVE ? s->spile != 0 : m.kind == BM_TOOL ? s->tpile != 0
			 : m.kind == BM_LOAN ? s->loan_pile > 0 : s->upile != 0;

		if (s->invested)
			buf_addstr(out, L(loc, "You have made this turn's investment already: one a turn "
					  "(a slave, a tool, a loan or a university).",
					  "Ya has hecho la inversión de este turno: una por turno "
					  "(un esclavo, una herramienta, un préstamo o una universidad)."));
		else if (!pile)
			buf_addstr(out, L(loc, "None is left to take.", "No queda ninguno."));
		else if (money - c1 < price[m.kind])
			buf_printf(out, L(loc, "That costs %d s%s; you have %d s.", "Eso cuesta %d s%s; tienes %d s."),
				   price[m.kind], c1 ? L(loc, " + 5 s for an extra action", " + 5 s por una acción extra")
						     : "", money);
		else if (m.kind == BM_EDUCATE)
			buf_addstr(out, L(loc, "None of your available workers can be educated in what the "
					  "universities left teach (slaves and machines cannot, and a worker "
					  "only once).",
					  "Ninguno de tus trabajadores disponibles puede educarse en lo que enseñan "
					  "las universidades que quedan (esclavos y máquinas no, y cada trabajador "
					  "solo una vez)."));
		break;
	}
	case BM_SEND: {
		int wage = builders_wage(s, m.a);
		uint64_t pm;

		builders_unit_name(s, m.a, loc, &t);
		if (!s->prog[s->cur]) {
			buf_addstr(out, L(loc, "You have no building in progress: start one first.",
					  "No tienes ningún edificio en obra: inicia uno primero."));
			break;
		}
		if (wage + c1 > money) {
			buf_printf(out, L(loc, "%s's wage is %d s%s; you have %d s.",
					  "El sueldo de %s es %d s%s; tienes %d s."), buf_str(&t), wage,
				   c1 ? L(loc, " + 5 s for an extra action", " + 5 s por una acción extra") : "",
				   money);
			break;
		}
		/* each building it could go to: the first reason */
		for (pm = s->prog[s->cur]; pm; pm &= pm - 1) {
			if (out->len)
				buf_addch(out, ' ');
			why_to(s, m.a, __builtin_ctzll(pm), 0, loc, out);
		}
		break;
	}
	case BM_TO:
		if (s->pend < BUILDERS_UNITS)
			why_to(s, s->pend, m.a, m.b, loc, out);
		break;
	case BM_FREE:
		builders_unit_name(s, m.a, loc, &t);
		if (s->uat[m.a] != BUILDERS_NONE)
			buf_printf(out, L(loc, "%s is at work on %s: only a slave not at work can be freed.",
					  "%s está trabajando en %s: solo se libera a un esclavo que no trabaja."),
				   buf_str(&t), s->uat[m.a] < BUILDERS_BUILDINGS
				   ? builders_buildings[s->uat[m.a]].name[loc] : "?");
		else if (s->step == BS_FINAL && money < BUILDERS_FREE_PRICE)
			buf_printf(out, L(loc, "Freeing a slave costs %d s; you have %d s.",
					  "Liberar a un esclavo cuesta %d s; tienes %d s."), BUILDERS_FREE_PRICE, money);
		break;
	case BM_REPAY:
		if (!p->loans)
			buf_addstr(out, L(loc, "You have no loan to repay.", "No tienes préstamos que devolver."));
		else if (money < BUILDERS_LOAN_REPAY)
			buf_printf(out, L(loc, "Repaying a loan costs %d s; you have %d s.",
					  "Devolver un préstamo cuesta %d s; tienes %d s."), BUILDERS_LOAN_REPAY, money);
		break;
	default:
		break;
	}
	buf_release(&t);
}

const struct game_ops builders_ops = {
	.api_version = GAME_API_VERSION,
	.id = "builders",
	.aliases = builders_aliases,
	.name = { "The Builders: Antiquity", "Los Constructores: Antigüedad" },
	.min_players = BUILDERS_MIN_PLAYERS,
	.max_players = BUILDERS_MAX_PLAYERS,
	.state_size = sizeof(struct builders_state),
	.options_help = "no options: the rulebook describes no variant",
	.option_words = NULL,
	.score_decimals = 1,	/* tenths: 0.1 VP per sesterce */
	/* ~2 ms an answer; 199/200 wins (docs/games/builders.md) */
	.search_iterations = 100,
	.setup = builders_setup,
	.awaiting = builders_awaiting,
	.moves = builders_moves,
	.move_id = builders_move_id,
	.move_label = builders_move_label,
	.move_group = builders_move_group,
	.near_miss = builders_near_miss,
	.apply = builders_apply,
	.prompt = builders_prompt,
	.render_public = builders_render_public,
	.render_private = builders_render_private,
	.scene = builders_scene,
	.save = builders_save,
	.load = builders_load,
	.result = builders_result,
	.bot_move = builders_bot_move,
	.determinize = builders_determinize,
	.check = builders_check,
	.turn = builders_turn,
	.intro = builders_intro,
	.secrets = builders_secrets,
	.rules = builders_rules,
	.card = builders_card,
	.card_names = builders_card_names,
};
