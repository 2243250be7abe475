/*
 * pause: the commands about idle players: `game pause`, `game resume`
 * and `game kick` (docs/async.md).  What the idle clock does on its own
 * (reminders, timeouts) is bot/due.c's; these are the players' say.
 */
#include <stdio.h>
#include <string.h>

#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

#define KICK_IDLE_DEFAULT_H 48	/* `game kick` when no timeout is set */

/* ---- pause, resume, kick ---- */

/* `game pause` (pause 1) and `game resume` (0): the idle clock stops, and
 * nothing moves until the game resumes. */
static void game_pause(const struct cmd_ctx *x, int pause)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct room_settings rs;
	struct buf err = BUF_INIT;
	struct change c;
	int64_t now = session_now(m);

	roomset_read(&s->rec, &rs);
	if (rs.paused == pause) {
		session_reply_text(a, cmd, 1, pause ? L(loc, "The game is already paused.",
							"La partida ya está en pausa.")
			   : L(loc, "The game is not paused.", "La partida no está en pausa."));
		return;
	}
	change_init(&c, s);
	rs.paused = pause;
	rs.reminded = 0;
	if (!pause)
		rs.since = now;		/* the clock starts again, stored */
	roomset_write(&c.rec, &rs);
	if (change_commit(m, &c, &err)) {
		session_reply_commit_failed(m, a, cmd, loc);
	} else {
		if (!pause)
			s->last_at = now;	/* ...and live, the same instant */
		session_reply_text(a, cmd, 0, pause
				   ? L(loc, "Game paused: no reminders, no timeouts, no moves until `game resume`.",
				       "Partida en pausa: sin recordatorios, sin límites y sin jugadas hasta "
				       "`game resume`.")
			   : L(loc, "Game resumed.", "Partida reanudada."));
	}
	change_release(&c);
	buf_release(&err);
}

void cmd_game_pause(const struct cmd_ctx *x)
{
	game_pause(x, 1);
}

void cmd_game_resume(const struct cmd_ctx *x)
{
	game_pause(x, 0);
}

/* The seat a `game kick` argument names: a user id, a <@id> mention, or a
 * display name (folded); -1 if none. */
static int seat_named(const struct session *s, const char *arg)
{
	char id[128];
	size_t n = strlen(arg);
	int i;

	if (n > 3 && arg[0] == '<' && arg[1] == '@' && arg[n - 1] == '>') {
		snprintf(id, sizeof(id), "%.*s", (int)(n - 3), arg + 2);
		arg = id;
	}
	for (i = 0; i < s->rec.nseats; i++)
		if (!s->rec.seats[i].is_bot && (!strcmp(s->rec.seats[i].user, arg) ||
						 text_eq(s->rec.seats[i].name, arg) ||
						 (arg[0] == '@' && text_eq(s->rec.seats[i].name,
									   arg + 1))))
			return i;
	return -1;
}

static int hours_idle_for_kick(const struct session *s)
{
	struct room_settings rs;

	roomset_read(&s->rec, &rs);
	return rs.timeout_h ? rs.timeout_h : KICK_IDLE_DEFAULT_H;
}

void cmd_game_kick(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	const char *names[GAME_MAX_SEATS];
	struct buf err = BUF_INIT, msg = BUF_INIT;
	struct room_settings rs;
	struct capture cap;
	struct change c;
	json_t *v;
	int seat = x->seat, target, others, votes, idle_h = 0;

	target = seat_named(s, x->args);
	if (target < 0 || target == seat) {
		session_reply_text(a, cmd, 1, L(loc, "Usage: `game kick <player>`: another seated player.",
						"Uso: `game kick <jugador>`: otro jugador sentado."));
		return;
	}
	idle_h = hours_idle_for_kick(s);
	if (!(s->ops->awaiting(s->st) & (1u << target)) ||
	    session_now(m) - s->last_at < (int64_t)idle_h * 3600) {
		buf_setf(&msg, L(loc, "%s can be replaced by the AI only after %d hours without "
				 "deciding while it is their turn.",
				 "%s solo puede pasar a la IA tras %d horas sin decidir cuando le toca."),
			 s->rec.seats[target].name, idle_h);
		session_reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		return;
	}
	/* the caller's one kick vote: for this target now */
	change_init(&c, s);
	v = votes_load(&c.rec);
	json_object_set_new(votes_obj(v, "kick"), cmd->user,
			    json_string(s->rec.seats[target].user));
	others = votes_humans_of(&c.rec) - 1;
	votes = votes_count_for(&c.rec, votes_obj(v, "kick"), s->rec.seats[target].user,
				s->rec.seats[target].user);
	votes_save(&c.rec, v);
	if (votes * 2 <= others) {
		if (change_commit(m, &c, &err)) {
			session_reply_commit_failed(m, a, cmd, loc);
		} else {
			buf_setf(&msg, L(loc, "Vote to replace %s by the AI: %d of %d (more than half "
					 "needed).",
					 "Voto para que la IA sustituya a %s: %d de %d (hace falta más "
					 "de la mitad)."),
				 s->rec.seats[target].name, votes, others);
			session_reply_text(a, cmd, 0, buf_str(&msg));
		}
		change_release(&c);
		buf_release(&msg);
		buf_release(&err);
		return;
	}
	c.rec.seats[target].is_bot = 1;
	c.rec.seats[target].notify_dm = 0;
	/* the AI's play is not theirs: the record counts them last */
	roomset_read(&c.rec, &rs);
	rs.last |= 1u << target;
	roomset_write(&c.rec, &rs);
	session_seat_names(s, names);
	session_capture_init(&cap, session_loc(s, m), names);
	change_copy_state(&c);
	game_logf(&cap.log, LOG_PUBLIC, L(session_loc(s, m), "The AI now plays for %s.",
					  "La IA juega ahora por %s."), s->rec.seats[target].name);
	if (ai_run_bots(m, &c, &cap, &err)) {
		log_err("AI in %s/%s failed: %s", s->rec.platform, s->rec.room, buf_str(&err));
		session_reply_text(a, cmd, 1, L(loc, "An AI player failed (an internal error); nothing changed.",
						"Un jugador IA falló (un error interno); nada ha cambiado."));
	} else {
		change_moved(m, &c, &cap);
		/* the votes against them go with the seat (change_commit) */
		if (change_commit(m, &c, &err))
			session_reply_commit_failed(m, a, cmd, loc);
	}
	session_capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}
