/*
 * due: idle players (bot/due.c): when a session next needs the bot, and
 * what happens then.  A service above the session core (bot/core.h).
 */
#ifndef BOT_DUE_H
#define BOT_DUE_H

#include "bot/core.h"

/* When a session in this state next needs attention (unix seconds), or 0. */
int64_t due_compute(const struct session_rec *rec, const struct game_ops *ops,
		    const void *st, int64_t last_at);

#endif
