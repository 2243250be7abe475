/*
 * ai: the AI seats (bot/ai.c): their moves inline and the searching AI's
 * jobs.  A service above the session core (bot/core.h).
 */
#ifndef BOT_AI_H
#define BOT_AI_H

#include "bot/core.h"

unsigned ai_bot_seats(const struct session_rec *rec);
/* Whether the AI seats of this record search (`game settings ai strong`). */
int ai_searches(const struct session_rec *rec, const struct game_ops *ops);
/* One AI decision for seat, recorded in c; search: the searching AI, else
 * the game's own bot_move. */
int ai_step_as(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
	       int search, struct buf *err);
/* Plays AI seats while only AI seats are awaited, recording their moves. */
int ai_run_bots(struct session_mgr *m, struct change *c, struct capture *cap, struct buf *err);
/* The AI decides for the idle humans (their pending decisions only). */
int ai_play_for_idle(struct session_mgr *m, struct change *c, struct capture *cap,
		     unsigned idle, struct buf *err);
/* The searching AI seats of s are awaited: a job for m->think, or inline. */
void ai_think(struct session_mgr *m, struct session *s);

#endif
