/*
 * roomset: a room's settings as stored with its session
 * (session_rec.settings, a JSON object): reading and writing them
 * (bot/roomset.c).  Part of the session core's layer: the commit restarts
 * the idle clock in them.  The `game settings` command is bot/settings.c.
 */
#ifndef BOT_ROOMSET_H
#define BOT_ROOMSET_H

#include "bot/session.h"

/* The form a room's boards take (`game settings board`). */
enum pic_board_mode {
	BOARD_DEFAULT,		/* not set: the platform's (BOARD_IMAGE where it
				 * shows pictures, else BOARD_TEXT) */
	BOARD_TEXT,
	BOARD_IMAGE,		/* the picture; its text on demand (`board text`) */
	BOARD_BOTH,		/* the text board and the picture */
};

const char *roomset_board_mode_word(enum pic_board_mode b);	/* "text", "image", "both" */

struct room_settings {
	int64_t since;		/* when the idle clock started (0: unknown) */
	int remind_h;		/* 0: no reminders */
	int timeout_h;		/* 0: no timeout */
	int timeout_ai;		/* at the timeout: 1 the AI decides, 0 pause */
	int paused;
	int reminded;		/* reminders sent since the last move */
	int ai_strong;		/* AI seats search (games/search.h) */
	int rules;		/* game_ops.rules_version at the start (1: unknown) */
	int board;		/* enum board_mode */
	int rated;		/* finished games move the ratings (default 1;
				 * `game settings rated`) */
	int web;		/* the game has a web page (default 1; `game web`) */
	/* bit per seat whose human the AI replaced (a kick) or decided for
	 * (a timeout): counted last when the game is recorded (bot/record.c) */
	unsigned last;
};

void roomset_read(const struct session_rec *rec, struct room_settings *o);
void roomset_write(struct session_rec *rec, const struct room_settings *in);

#endif
