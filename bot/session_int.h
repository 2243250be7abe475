/*
 * session_int.h: what the commands of the session manager share (their
 * layer, the top of bot/'s core: tests/lint/layers.py), and nobody outside
 * bot/ includes.  The public API is bot/session.h (main, the tests); the
 * command table is bot/commands.h.
 *
 * One file per responsibility (docs/architecture.md, "The session
 * manager"); each says in its opening comment what it owns.  By layer,
 * bottom first (a file calls only its own layer and those below):
 *
 *   the core (bot/core.h, roomset.h, votes.h)
 *   session.c   finding, loading and committing sessions: the hash table,
 *               replay, struct change and change_commit (commit before send);
 *               what a change carries (struct pending, struct pic)
 *   roomset.c   room settings as stored (JSON in session_rec.settings)
 *   votes.c     votes by user (abort, kick, settings), stored with the session
 *
 *   the services (bot/outbox.h, pictures.h, ai.h, due.h, record.h, weblink.h)
 *   outbox.c    what a change tells the room and each player; delivery,
 *               confirmation and re-send of outbox messages
 *   pictures.c  boards as pictures: the room's form of boards, a message's
 *               picture in the outbox, painting it after the commit (off
 *               the loop: the picture follows its text, in order per room)
 *   ai.c        AI seats: their moves inline and the searching AI's jobs
 *   due.c       reminders and timeouts: idle players
 *   record.c    a finished game's record: results and ratings
 *   weblink.c   a game's web link: TABULA_PUBLIC_URL, its token
 *
 *   the commands (this header, bot/commands.h)
 *   commands.c  the command table, the dispatcher and its checks, the entry
 *               point session_mgr_handle (throttle, names, DM routing)
 *   lobby.c     game new/join/leave/addbot/start/status/abort, lobby caps
 *   rematch.c   `rematch` and the Rematch button: the same table again
 *   play.c      play, moves, hand, board, undo; move completion
 *   info.c      log, help, mygames, rules, card
 *   settings.c  `game settings`, `game web`
 *   pause.c     game pause/resume/kick: the players' say about idleness
 *   stats.c     stats, leaderboard, history, log #<id>: the record of
 *               finished games (issue 26)
 *   manager.c   session_mgr_init: wires the layers (the core's hooks)
 *
 * These functions are the manager's internals: no checks of their own
 * beyond what their comments say, and they may assume the caller's
 * session is loaded.
 */
#ifndef BOT_SESSION_INT_H
#define BOT_SESSION_INT_H

#include "bot/ai.h"
#include "bot/commands.h"
#include "bot/core.h"
#include "bot/due.h"
#include "bot/outbox.h"
#include "bot/pictures.h"
#include "bot/roomset.h"
#include "bot/votes.h"
#include "bot/weblink.h"
#include "util/meters.h"

/* ---- the command being handled (commands.c builds it) ---- */

struct cmd_ctx {
	struct session_mgr *m;
	struct adapter *a;
	const struct command *cmd;
	const struct cmd_def *def;	/* its table entry */
	struct session *s;		/* the room's session (any status), or NULL */
	const char *args;		/* the text after the command's words */
	enum locale loc;		/* the room's language, else the caller's */
	int seat;			/* the caller's human seat in s, or -1 */
};

/* Whether the command's answer is private (CMD_PRIVATE in its entry). */
static inline int cmd_private(const struct cmd_ctx *x)
{
	return (x->def->flags & CMD_PRIVATE) != 0;
}

/* ---- settings.c ---- */

/* 1 when s's stored move log replays under the game's rules now (the game
 * started under the same rules_version). */
int session_log_replays(const struct session *s);

/* ---- lobby.c ---- */

const char *lobby_status_word(enum session_status st, enum locale loc);
/* "fortuna, gtr": the registered game ids, for help and errors. */
const char *lobby_game_ids(void);
void lobby_summary(struct session_mgr *m, const struct session *s, enum locale loc,
		   struct rich *r);
/* A new lobby of ops in cmd's room, opened by cmd's user, not yet stored
 * nor seated; the caller owns it (session_free, or session_cache_put once
 * committed). */
struct session *lobby_session_new(struct session_mgr *m, const struct command *cmd,
				  const struct game_ops *ops);
/* Appends a seat to rec: 0, or -1 when the seats are full or a name too
 * long (rec unchanged). */
int lobby_add_seat(struct session_rec *rec, const char *user, const char *name, int is_bot);
/* 1, with cmd's user told why privately, when a lobby cap refuses cmd
 * (opening: a new lobby, which the platform's cap counts too). */
int lobby_cap_reached(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		      enum locale loc, int opening);

/* ---- the commands' handlers (the table: commands.c) ---- */

void cmd_game_new(const struct cmd_ctx *x);		/* lobby.c */
void cmd_game_join(const struct cmd_ctx *x);
void cmd_game_leave(const struct cmd_ctx *x);
void cmd_game_addbot(const struct cmd_ctx *x);
void cmd_game_start(const struct cmd_ctx *x);
void cmd_game_status(const struct cmd_ctx *x);
void cmd_game_abort(const struct cmd_ctx *x);
void cmd_game_settings(const struct cmd_ctx *x);	/* settings.c */
void cmd_game_web(const struct cmd_ctx *x);
void cmd_game_pause(const struct cmd_ctx *x);		/* pause.c */
void cmd_game_resume(const struct cmd_ctx *x);
void cmd_game_kick(const struct cmd_ctx *x);
void cmd_play(const struct cmd_ctx *x);			/* play.c */
void cmd_moves(const struct cmd_ctx *x);
void cmd_hand(const struct cmd_ctx *x);
void cmd_board(const struct cmd_ctx *x);
void cmd_undo(const struct cmd_ctx *x);
void cmd_log(const struct cmd_ctx *x);			/* info.c */
void cmd_help(const struct cmd_ctx *x);
void cmd_mygames(const struct cmd_ctx *x);
void cmd_rules(const struct cmd_ctx *x);
void cmd_card(const struct cmd_ctx *x);
void cmd_rematch(const struct cmd_ctx *x);		/* rematch.c */
void cmd_stats(const struct cmd_ctx *x);		/* stats.c */
void cmd_leaderboard(const struct cmd_ctx *x);
void cmd_history(const struct cmd_ctx *x);
/* `log`'s entry: `log #<id>` an old game, else cmd_log on the room's */
void cmd_log_any(const struct cmd_ctx *x);

/* ---- stats.c ---- */

/* cmd's community (a Discord guild, a Matrix space) for ratings' scope;
 * "" = none.  Borrowed from cmd. */
const char *stats_community(const struct command *cmd);

/* The command being handled was refused (bad text, not allowed now, an
 * illegal move): its metric's outcome, unless a commit decided it. */
static inline void cmd_refused(struct session_mgr *m)
{
	if (m->outcome == METER_ANSWERED)
		m->outcome = METER_REFUSED;
}

#endif
