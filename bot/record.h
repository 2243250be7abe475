/*
 * record: a finished game's record (bot/record.c): its results row and
 * seats, and -- when the room plays rated -- the new ratings of its
 * players in the room's community and in the whole platform, with one
 * point of each one's rating curve.  Built from the change that finishes
 * the game and stored in that change's commit (struct store_commit's
 * result), so a game is recorded and rated once or not at all.
 */
#ifndef BOT_RECORD_H
#define BOT_RECORD_H

#include "bot/core.h"

/* The player key of an AI seat at each level (the rating rows' player). */
#define RECORD_AI_BASIC "ai:basic"
#define RECORD_AI_STRONG "ai:strong"

/*
 * The session_hooks.record of bot/manager.c.  When c moves its session to
 * SESSION_FINISHED (an aborted game never), *out becomes the record to
 * store with c's commit: one allocation, which the caller frees with
 * free(); else *out is NULL.  Reads the players' current ratings from the
 * store (a commit that finds one changed since fails with STORE_CONFLICT,
 * and the change is made again from fresh rows).  0, or -1 with err (a
 * store read failed; nothing is allocated).
 */
int record_build(struct session_mgr *m, const struct change *c, struct store_result **out,
		 struct buf *err);

#endif
