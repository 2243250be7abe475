/*
 * think: one batch of AI decisions, computed away from the event loop.
 *
 * A searching AI takes a good part of a second per decision; run on the
 * loop, it would stall every other room.  The session manager packs what
 * the AI needs into a job (a private copy of the state, which seats it
 * plays, the seeds), the program runs think_run() on a worker thread, and
 * the manager applies the decisions when the job comes back, if the game has
 * not moved meanwhile (session_mgr_ai_done).  A job touches nothing but
 * itself, so it needs no lock.
 *
 * Decision k of a job (0-based) is seeded with (seed, seq + k + 1), the
 * same seed the manager uses when it decides inline, so a game plays the
 * same whether the AI runs on a worker or not.
 */
#ifndef BOT_THINK_H
#define BOT_THINK_H

#include <stdint.h>

#include "games/game.h"
#include "games/search.h"

/* One job stops after this many decisions; the manager stores them and
 * sends the next job (so a long all-AI stretch still shows progress). */
#define THINK_MAX 256

struct think_decision {
	int seat;
	struct move mv;
};

struct think_job {
	/* in (the session manager) */
	int64_t session_id;
	int64_t seq;			/* the session's last stored action */
	char platform[16];
	char room[256];
	const struct game_ops *ops;
	void *st;			/* owned: a copy, played forward by think_run */
	unsigned seats;			/* bit per seat the AI plays */
	int search;			/* 1 search_move, 0 ops->bot_move */
	struct search_params params;
	uint64_t seed;
	/* out (think_run) */
	struct think_decision v[THINK_MAX];
	int n;
	int failed;			/* a seat had no move, or apply refused it */
};

/* A new job with a copy of st (ops->state_size bytes).  Owned by the
 * caller; think_free releases it. */
struct think_job *think_new(const struct game_ops *ops, const void *st);
void think_free(struct think_job *job);

/* Plays the job's seats while any of them is awaited (as the manager does
 * inline), up to THINK_MAX decisions, recording each.  Thread-safe: reads
 * and writes only job. */
void think_run(struct think_job *job);

/* One AI decision for seat in st (unchanged): search_move when search, else
 * ops->bot_move.  0, or -1 when the seat has no move. */
int think_decide(const struct game_ops *ops, const void *st, int seat, int search,
		 const struct search_params *p, uint64_t seed, int64_t seq, struct move *out);

#endif
