/*
 * commands: the one table of the commands the bot answers (bot/commands.c).
 *
 * Each command is there once: its words and arguments, and how platforms
 * show it (struct adapter_command, which adapters receive: Discord builds
 * its slash commands from it), who may use it, in which states of the
 * room's session, whether its answer is private, its help line in both
 * languages, and its handler.  The dispatcher (session_mgr_handle), `help`,
 * the state, seat and pause checks and the platforms' registrations all
 * come from it.
 *
 * A handler starts after those checks, with the room's session, the
 * caller's seat and the text after the command's words (struct cmd_ctx,
 * bot/session_int.h).  It reads its own arguments: a bad argument's
 * message is the command's own, and comes after the checks.
 */
#ifndef BOT_COMMANDS_H
#define BOT_COMMANDS_H

#include "adapters/adapter.h"
#include "games/game.h"
#include "util/buf.h"

struct cmd_ctx;

/* The states of the room's session a command runs in (bits). */
enum cmd_states {
	CMD_S_NONE = 1 << 0,	/* no session, or a lobby closed before its start */
	CMD_S_LOBBY = 1 << 1,	/* waiting for players */
	CMD_S_ACTIVE = 1 << 2,	/* in play */
	CMD_S_OVER = 1 << 3,	/* finished, or aborted after its start: a board */
	CMD_S_ANY = CMD_S_NONE | CMD_S_LOBBY | CMD_S_ACTIVE | CMD_S_OVER,
};

/*
 * Who may use a command.  The dispatcher checks the seat; the rest is
 * decided where it is known: the game refuses a seat it does not await,
 * and the votes (bot/votes.c) make a majority.
 */
enum cmd_who {
	CMD_ANYONE,
	CMD_UNSEATED,		/* not seated in the room's game (game join) */
	CMD_SEATED,		/* a human seat of the room's game */
	CMD_AWAITED,		/* seated; the game refuses a seat it does not await */
	CMD_CREATOR_OR_MAJORITY,/* seated; the creator alone, else a vote */
	CMD_MAJORITY,		/* seated; a vote: more than half of the seated humans */
};

/* What the dispatcher answers when the session's state is not one of the
 * command's (bot/commands.c has the texts). */
enum cmd_refusal {
	CMD_NO_GAME,		/* "No game is being played here." */
	CMD_NO_LOBBY,		/* "There is no game waiting for players here." */
	CMD_NOT_OPEN,		/* "There is no open game here." */
	CMD_NO_ROOM_GAME,	/* "There is no game here." */
	CMD_ALREADY_OPEN,	/* "A game of <game> is already open here." */
	CMD_SEATS_FIXED,	/* in play: "seats can no longer be left"; else NO_LOBBY */
};

enum cmd_flags {
	CMD_PRIVATE = 1 << 0,		/* its answer goes to the caller alone */
	CMD_UNPAUSED = 1 << 1,		/* refused while the game is paused */
	CMD_HELP_SHARED = 1 << 2,	/* its help line is the previous
					 * command's ("game join | game leave") */
};

struct cmd_def {
	struct adapter_command pub;	/* first: words, arguments, descriptions */
	struct adapter_text usage;	/* "game new <game> [options]"; es NULL: as en */
	struct adapter_text help;	/* "open a game here" */
	unsigned states;		/* enum cmd_states */
	enum cmd_refusal refusal;	/* when the state is not one of states */
	enum cmd_who who;
	struct adapter_text not_allowed;/* when who refuses; en NULL: "You are
					 * not playing in this game." */
	unsigned flags;			/* enum cmd_flags */
	void (*run)(const struct cmd_ctx *x);
};

/* The table, in help order; ends with pub.words == NULL.  Static. */
const struct cmd_def *commands_all(void);

/* The same commands as adapters see them (struct adapter.commands):
 * NULL-terminated, static. */
const struct adapter_command *const *commands_for_adapters(void);

/* The argument of d named name (its Discord option's name), or NULL. */
const struct adapter_arg *commands_arg(const struct cmd_def *d, const char *name);

/* Appends the help block to out: one line per command ("usage   what it
 * does"; a shared line for CMD_HELP_SHARED), in loc, lines joined by '\n'. */
void commands_help(enum locale loc, struct buf *out);

#endif
