/*
 * sylla_int.h: the private interface of Sylla's rules files.
 *
 * Owns what the rules files share and nothing else: the log macros, the
 * small pieces of the state several phases touch (the bank, prestige,
 * tokens, the tracks, asking a seat; static inline: playouts reach them at
 * every decision), and the declarations of the functions one file calls in
 * another.  The files, by phase of a turn (see sylla.c for the whole):
 *
 *   sylla.c     the decisions: awaiting(), moves() and apply() (the secret
 *               steps' stages and reveals included), result(), the public
 *               small queries, the driver table
 *   setup.c     the options, setup and the first characters (SS_PICK)
 *   consul.c    I, the First Consul's election (open or sealed), and II,
 *               the recruitment
 *   build.c     III, the buildings' sales (offer, bid, tap, Insula)
 *   income.c    IV, income, Temple and Tavern
 *   events.c    V, the events: cubes, avoidance, effects, hiding, removal
 *   works.c     VI, the Great Works' vote
 *   end.c       VII, famine and crises; the game's end (Ecclesia)
 *   position.c  the position helpers tests build states with
 *
 * Every file that changes the state is reached only from sylla_apply()
 * with a move sylla_moves() listed, or from the automatic parts it runs.
 *
 * Include it only from the rules files above: render.c, save.c, ai.c and
 * the tests use sylla.h, whose names are stable; nothing here is.
 */
#ifndef GAMES_SYLLA_SYLLA_INT_H
#define GAMES_SYLLA_SYLLA_INT_H

#include <string.h>

#include "games/sylla/sylla.h"

/* ---- logging and small helpers ---- */

/* Playouts pass no log: logging stays out of their straight path. */
#define LOGF(log, ...) \
	do { if (__builtin_expect((log) != NULL, 0)) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

static inline int popc(uint64_t x)
{
	return __builtin_popcountll(x);
}

static inline int min_int(int a, int b)
{
	return a < b ? a : b;
}

static inline int max_int(int a, int b)
{
	return a > b ? a : b;
}

static inline int shown_chars(const struct sylla_state *s)
{
	return s->nplayers == 3 ? 5 : 6;
}

static inline int sales_per_turn(const struct sylla_state *s)
{
	return s->nplayers == 3 ? 4 : 5;
}

static inline int ready(const struct sylla_state *s, int seat, int kind)
{
	return popc(s->own[seat] & ~s->down & ~s->tapped & sylla_mask.kind[kind]);
}

static inline int cranes_free(const struct sylla_state *s, int seat)
{
	const struct sylla_player *p = &s->p[seat];

	return p->zone[SZ_CRANE] > p->crane_used ? p->zone[SZ_CRANE] - p->crane_used : 0;
}

/* Characters that can pay for colour c: face up, untapped, with c. */
static inline uint64_t payers(const struct sylla_state *s, int seat, int c)
{
	return s->own[seat] & ~s->down & ~s->tapped & sylla_mask.colour[c];
}

static inline int bank(const struct sylla_state *s)
{
	int i, m = SY_MONEY;

	for (i = 0; i < s->nplayers; i++)
		m -= s->p[i].money;
	return m;
}

/* Pays up to n denarii from the bank; returns what was paid. */
static inline int earn(struct sylla_state *s, int seat, int n)
{
	n = min_int(n, bank(s));
	s->p[seat].money = (uint8_t)(s->p[seat].money + n);
	return n;
}

static inline void spend(struct sylla_state *s, int seat, int n)
{
	s->p[seat].money = (uint8_t)(s->p[seat].money - n);
}

static inline void add_prestige(struct sylla_state *s, int seat, int d)
{
	int v = s->p[seat].prestige + d;

	/* "Los jugadores no pueden tener menos de 0 puntos de prestigio." */
	s->p[seat].prestige = (uint16_t)(v < 0 ? 0 : v > SY_PRESTIGE_MAX ? SY_PRESTIGE_MAX : v);
}

/* One token of colour t from the supply, its colour seen by the table or
 * not; 0 when the supply is out. */
static inline int take_token(struct sylla_state *s, int seat, int t, int seen)
{
	struct sylla_player *p = &s->p[seat];

	if (!s->supply[t])
		return 0;
	s->supply[t]--;
	p->tok[t]++;
	if (seen)
		p->seen[t]++;
	else
		p->blind++;
	return 1;
}

static inline void move_track(struct sylla_state *s, int t, int d)
{
	int v = s->track[t] + d;

	s->track[t] = (uint8_t)(v < 0 ? 0 : v > SY_TRACK_MAX ? SY_TRACK_MAX : v);
}

static inline int ev_cubes(const struct sylla_state *s, int slot)
{
	int i, n = 0;

	for (i = 0; i < s->nplayers; i++)
		n += s->cubes[slot][i];
	return n;
}

/* Whether event e, in play, keeps `what` (a card, or SY_CHARS + zone kind)
 * face down. */
static inline int covers(int e, int what)
{
	if (what < SY_CHARS) {
		uint64_t bit = 1ULL << what;

		switch (e) {
		case SE_PERSECUTION:
			return (sylla_mask.christian & bit) != 0;
		case SE_PURGE:
			return (sylla_mask.kind[SK_SENATOR] & bit) != 0;
		case SE_REVOLT:
			return (sylla_mask.kind[SK_SLAVE] & bit) != 0;
		default:
			return 0;
		}
	}
	what -= SY_CHARS;
	return e == SE_FLOOD || (e == SE_PILLAGE && what == SZ_STALL);
}

static inline void ask(struct sylla_state *s, int step, int seat)
{
	s->step = (uint8_t)step;
	s->decider = (uint8_t)seat;
	s->p[seat].win = 0;
}

/* Opens a secret step for the seats in `mask`; the others are done. */
static inline void open_secret(struct sylla_state *s, int step, unsigned mask)
{
	int i;

	s->step = (uint8_t)step;
	s->decider = SY_NONE;
	s->waiting = (uint8_t)mask;
	s->asked = (uint8_t)mask;
	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];

		p->stage = (mask >> i) & 1 ? SST_CHOOSE : SST_DONE;
		p->thumb = 0;
		p->amount = 0;
		p->win = 0;
		p->picks = 0;
	}
}

/* sylla.c */
void sylla_log_names(struct buf *b, uint64_t cards, enum locale loc);

/* setup.c */
void sylla_deal_chars(struct sylla_state *s, struct game_log *log);
void sylla_deal_tiles(struct sylla_state *s, struct game_log *log);
void sylla_reveal_picks(struct sylla_state *s, struct game_log *log);

/* consul.c */
void sylla_start_turn(struct sylla_state *s, struct game_log *log);
void sylla_elect_next(struct sylla_state *s, struct game_log *log);
void sylla_reveal_sealed(struct sylla_state *s, struct game_log *log);
void sylla_after_token(struct sylla_state *s, struct game_log *log);
void sylla_start_recruit(struct sylla_state *s, struct game_log *log);
unsigned sylla_distinct_row(const struct sylla_state *s);
void sylla_recruit(struct sylla_state *s, int seat, int slot, struct game_log *log);
void sylla_put_under(struct sylla_state *s, struct game_log *log);

/* build.c */
void sylla_start_build(struct sylla_state *s, struct game_log *log);
unsigned sylla_distinct_tiles(const struct sylla_state *s);
void sylla_put_on_sale(struct sylla_state *s, int slot, struct game_log *log);
void sylla_next_sale(struct sylla_state *s, struct game_log *log);
void sylla_bid_next(struct sylla_state *s, struct game_log *log);
unsigned sylla_tap_kinds(const struct sylla_state *s, int seat, uint64_t *cards);
void sylla_tap_one(struct sylla_state *s, int seat, int what, struct game_log *log);
void sylla_tap_next(struct sylla_state *s, struct game_log *log);
unsigned sylla_insula_pairs(const struct sylla_state *s);
void sylla_insula_take(struct sylla_state *s, int seat, int a, int b, struct game_log *log);

/* income.c */
void sylla_start_income(struct sylla_state *s, struct game_log *log);
void sylla_income_next(struct sylla_state *s, struct game_log *log);

/* events.c */
void sylla_start_events(struct sylla_state *s, struct game_log *log);
unsigned sylla_cube_options(const struct sylla_state *s, int seat);
void sylla_place_cube(struct sylla_state *s, int seat, int slot, int legion, struct game_log *log);
void sylla_cube_next(struct sylla_state *s, struct game_log *log);
void sylla_log_avoided(struct sylla_state *s, struct game_log *log);
unsigned sylla_hide_options(const struct sylla_state *s, int seat, int e, uint64_t *cards);
void sylla_remove_event(struct sylla_state *s, int slot, struct game_log *log);
void sylla_effects_next(struct sylla_state *s, struct game_log *log);
void sylla_reveal_hide(struct sylla_state *s, struct game_log *log);

/* works.c */
void sylla_start_works(struct sylla_state *s, struct game_log *log);
void sylla_reveal_vote(struct sylla_state *s, struct game_log *log);

/* end.c */
void sylla_start_famine(struct sylla_state *s, struct game_log *log);
int sylla_free_max(const struct sylla_state *s, int seat);
void sylla_start_end(struct sylla_state *s, struct game_log *log);
void sylla_reveal_free(struct sylla_state *s, struct game_log *log);

#endif
