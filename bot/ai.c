/*
 * ai: the AI seats.  Their moves inline, as part of the change that made
 * them awaited (run_bots: a game start, a move, a kick, a timeout), and the
 * searching AI's jobs (`game settings ai strong`), which the program may
 * run on a worker (bot/think.h) and hand back to session_mgr_ai_done().
 *
 * Every AI decision is seeded by its game's seed and move number, so a game
 * plays the same whether its AI ran inline, on a worker or after a restart.
 * It records decisions into a change; it must not commit one it did not
 * make (only ai_apply, for a job that came back, commits).
 */
#include <string.h>

#include "bot/ai.h"
#include "bot/core.h"
#include "bot/roomset.h"
#include "bot/think.h"
#include "util/logging.h"

#define MAX_BOT_MOVES 100000	/* a whole all-AI game fits; a runaway does not */

unsigned ai_bot_seats(const struct session_rec *rec)
{
	unsigned b = 0;
	int i;

	for (i = 0; i < rec->nseats; i++)
		if (rec->seats[i].is_bot)
			b |= 1u << i;
	return b;
}

/* Whether the AI seats of this record search (`game settings ai strong`):
 * only games that can hide what a seat cannot see (determinize). */
int ai_searches(const struct session_rec *rec, const struct game_ops *ops)
{
	struct room_settings rs;

	if (!ops->determinize)
		return 0;
	roomset_read(rec, &rs);
	return rs.ai_strong;
}

static void search_params_of(const struct session_mgr *m, const struct game_ops *ops,
			     struct search_params *p)
{
	search_defaults(ops, p);
	if (m->search_iterations > 0)
		p->iterations = m->search_iterations;
}

/* Records an AI decision mv of seat in c (applied to c->st). */
static int ai_record(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
		     struct move mv, struct buf *err)
{
	const struct game_ops *ops = c->s->ops;
	struct buf id = BUF_INIT;

	ops->move_id(c->st, seat, mv, &id);
	/* an AI seat's lines may be summarised in the room; the AI standing
	 * in for an idle human writes what happened to a human: kept */
	session_capture_mark(cap, c->s->last_seq + (int64_t)c->nactions + 1, c->rec.seats[seat].is_bot);
	if (ops->apply(c->st, seat, mv, &cap->log, err)) {
		session_capture_mark(cap, 0, 0);
		buf_release(&id);
		return -1;
	}
	session_capture_mark(cap, 0, 0);
	change_action(c, seat, buf_str(&id), "", session_now(m));
	buf_release(&id);
	return 0;
}

/* One AI decision for seat, recorded in c.  Seeded by the game and the move
 * number, so an AI's choice does not depend on the process's history (nor
 * on whether it ran on a worker: bot/think.h).  search: the searching AI,
 * else the game's own bot_move. */
int ai_step_as(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
	       int search, struct buf *err)
{
	struct search_params p;
	struct move mv;

	search_params_of(m, c->s->ops, &p);
	if (think_decide(c->s->ops, c->st, seat, search, &p, c->rec.seed,
			 c->s->last_seq + (int64_t)c->nactions + 1, &mv)) {
		buf_setf(err, "no AI move for seat %d", seat + 1);
		return -1;
	}
	return ai_record(m, c, cap, seat, mv, err);
}

static int ai_step(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
		   struct buf *err)
{
	return ai_step_as(m, c, cap, seat, ai_searches(&c->rec, c->s->ops), err);
}

/* Plays AI seats while only AI seats are awaited, recording their moves.
 * Searching AI seats are left awaited when the program thinks on a worker
 * (m->think): their due time is now, and session_mgr_tick sends the job. */
int ai_run_bots(struct session_mgr *m, struct change *c, struct capture *cap,
		struct buf *err)
{
	const struct game_ops *ops = c->s->ops;
	int guard = 0;

	if (m->think && ai_searches(&c->rec, ops))
		return 0;
	for (;;) {
		unsigned aw = ops->awaiting(c->st);
		int seat;

		for (seat = 0; seat < c->rec.nseats; seat++)
			if ((aw & (1u << seat)) && c->rec.seats[seat].is_bot)
				break;
		if (seat == c->rec.nseats)
			return 0;	/* over, or a human is awaited */
		if (ai_step(m, c, cap, seat, err))
			return -1;
		if (++guard > MAX_BOT_MOVES) {
			buf_setf(err, "AI seats did not finish");
			return -1;
		}
	}
}

/* The AI decides for the idle humans (their pending decisions only). */
int ai_play_for_idle(struct session_mgr *m, struct change *c, struct capture *cap,
		     unsigned idle, struct buf *err)
{
	int guard = 0;

	for (;;) {
		unsigned aw = c->s->ops->awaiting(c->st) & idle;
		int seat;

		if (!aw)
			return ai_run_bots(m, c, cap, err);
		for (seat = 0; !(aw & (1u << seat)); seat++)
			;
		/* the quick AI: this runs on the loop, and only hours apart */
		if (ai_step_as(m, c, cap, seat, 0, err))
			return -1;
		if (++guard > MAX_BOT_MOVES) {
			buf_setf(err, "the AI did not finish for an idle player");
			return -1;
		}
		/* the AI finishes the idle player's pending decisions, no more:
		 * once a seat is no longer awaited its turn is done, and when
		 * its next turn comes the player decides again (with AI seats
		 * only, the AI would otherwise play the idle human to the end) */
		idle &= c->s->ops->awaiting(c->st);
		if (ai_run_bots(m, c, cap, err))
			return -1;
	}
}

/* ---- searching AI seats (bot/think.h) ---- */

/* Stores the decisions of a job that comes back to s, as one change, if the
 * game is still where the job started; else they are dropped (a new job
 * follows from the due time). */
static void ai_apply(struct session_mgr *m, struct session *s, const struct think_job *job)
{
	enum locale loc;
	const char *names[GAME_MAX_SEATS];
	struct room_settings rs;
	struct buf err = BUF_INIT;
	struct capture cap;
	struct change c;
	int i;

	if (!s || s->rec.id != job->session_id || s->rec.status != SESSION_ACTIVE || !s->st ||
	    s->last_seq != job->seq)
		return;		/* moved, undone, aborted or replaced meanwhile */
	roomset_read(&s->rec, &rs);
	if (rs.paused)
		return;		/* resuming makes it due again */
	loc = session_loc(s, m);
	change_init(&c, s);
	session_seat_names(s, names);
	session_capture_init(&cap, loc, names);
	change_copy_state(&c);
	for (i = 0; i < job->n; i++)
		if (ai_record(m, &c, &cap, job->v[i].seat, job->v[i].mv, &err)) {
			log_err("AI move of %s/%s refused: %s", s->rec.platform, s->rec.room,
				buf_str(&err));
			goto out;
		}
	if (job->failed) {
		/* cannot happen with a sound game; pausing beats retrying
		 * forever, and tells the players */
		log_err("the AI found no move in %s/%s", s->rec.platform, s->rec.room);
		game_logf(&cap.log, LOG_PUBLIC, "%s", L(loc,
			  "The AI could not decide: the game is paused (`game resume` to retry).",
			  "La IA no pudo decidir: la partida queda en pausa (`game resume` para reintentar)."));
		roomset_read(&c.rec, &rs);
		rs.paused = 1;
		roomset_write(&c.rec, &rs);
	}
	change_moved(m, &c, &cap);
	if (change_commit(m, &c, &err))
		log_warn("AI moves for %s/%s not stored: %s", s->rec.platform, s->rec.room,
			 buf_str(&err));
out:
	session_capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}

/* The searching AI seats of s are awaited: hands their decisions to the
 * program's worker (m->think), or makes them here when there is none. */
void ai_think(struct session_mgr *m, struct session *s)
{
	struct think_job *job;

	if (s->thinking)
		return;
	job = think_new(s->ops, s->st);
	job->session_id = s->rec.id;
	job->seq = s->last_seq;
	session_copy_field(job->platform, sizeof(job->platform), s->rec.platform);
	session_copy_field(job->room, sizeof(job->room), s->rec.room);
	job->seats = ai_bot_seats(&s->rec);
	job->search = 1;
	search_params_of(m, s->ops, &job->params);
	job->seed = s->rec.seed;
	if (m->think && !m->think(m->think_ctx, job)) {
		s->thinking = 1;
		m->thinking++;
		return;
	}
	think_run(job);
	ai_apply(m, s, job);
	think_free(job);
}

void session_mgr_ai_done(struct session_mgr *m, struct think_job *job)
{
	struct buf err = BUF_INIT;
	struct session *s;

	m->epoch++;
	s = session_find(m, job->platform, job->room, &err);
	if (m->thinking > 0)
		m->thinking--;
	if (s && s->rec.id == job->session_id)
		s->thinking = 0;
	ai_apply(m, s, job);
	think_free(job);
	buf_release(&err);
}
