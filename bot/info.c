/*
 * info: the commands that read and change nothing: `log` (a replay of the
 * stored moves in the room's language), `help` (from the command table),
 * `mygames` (the store's seats(user) index), `rules` and `card` (the
 * games' rule texts).
 *
 * It must not commit anything.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

#define LOG_DEFAULT_LINES 10	/* `log` without a number... */
#define LOG_SINCE_MAX 100	/* ...or all since the caller's last move, to this */

/* `log [n] | log all`: a game with a board, anyone (the table). */
void cmd_log(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	const char *args = x->args;
	const struct adapter_arg *count = commands_arg(x->def, "count");
	enum locale loc = x->loc;
	const char *names[GAME_MAX_SEATS];
	struct capture cap;
	struct buf err = BUF_INIT;
	struct rich pub = RICH_INIT, priv = RICH_INIT;
	void *st;
	size_t i, npub = 0, first = 0, seen = 0, since = 0;
	long n = LOG_DEFAULT_LINES;
	int seat = x->seat, export = 0, asked = *args != '\0';
	int64_t mine = 0;

	if (text_eq(args, "all")) {
		/* the whole game, to the caller only: an export, not a post */
		n = LONG_MAX / 2;
		export = 1;
	} else if (*args) {
		char *end;

		n = strtol(args, &end, 10);
		if (*end || n < count->min || n > count->max) {
			session_reply_text(a, cmd, 1, L(loc, "Usage: `log [n]` (n from 1 to 500) or `log all`.",
							"Uso: `log [n]` (n de 1 a 500) o `log all`."));
			return;
		}
	}
	if (!session_log_replays(s)) {
		session_reply_text(a, cmd, 1, L(loc,
			"This game began under an earlier version of the bot's rules, so its log "
			"cannot be replayed. The game itself goes on: `board` shows where it stands.",
			"Esta partida empezó con una versión anterior de las reglas del bot, así que "
			"su registro no se puede reproducir. La partida sigue: `board` muestra cómo va."));
		return;
	}
	session_seat_names(s, names);
	session_capture_init(&cap, loc, names);
	st = game_state_new(s->ops);
	if (session_replay_marked(s->ops, &s->rec, m->store, st, &cap.log, &cap,
				  seat >= 0 ? cmd->user : NULL, &mine, &err)) {
		log_err("log replay of %s/%s failed: %s", s->rec.platform, s->rec.room,
			buf_str(&err));
		session_reply_text(a, cmd, 1, L(loc, "The log could not be read (an internal error).",
						"No se pudo leer el registro (un error interno)."));
		goto out;
	}
	for (i = 0; i < cap.n; i++) {
		npub += cap.v[i].seat == LOG_PUBLIC;
		since += cap.v[i].seat == LOG_PUBLIC && mine && cap.v[i].seq >= mine;
	}
	/* plain `log` from a player: everything since their last decision
	 * (its own outcome included), however many AI turns followed */
	if (!asked && since > (size_t)n)
		n = since < LOG_SINCE_MAX ? (long)since : LOG_SINCE_MAX;
	/* index of the first public line shown; private lines from there on */
	for (i = 0; i < cap.n; i++) {
		if (cap.v[i].seat != LOG_PUBLIC)
			continue;
		if (seen++ + (size_t)n >= npub) {
			first = i;
			break;
		}
	}
	if (!npub)
		first = cap.n;
	rich_heading(&pub, "%s", L(loc, "Log", "Registro"));
	for (i = first; i < cap.n; i++) {
		if (cap.v[i].seat == LOG_PUBLIC)
			rich_line(&pub, "%s", cap.v[i].text);
		else if (seat >= 0 && cap.v[i].seat == seat && export)
			rich_line(&pub, "(%s) %s", L(loc, "private", "privado"), cap.v[i].text);
		else if (seat >= 0 && cap.v[i].seat == seat)
			rich_line(&priv, "%s", cap.v[i].text);
	}
	if (!npub)
		rich_line(&pub, "%s", L(loc, "Nothing yet.", "Nada todavía."));
	else if (!asked && since > LOG_SINCE_MAX)
		rich_line(&pub, "%s", L(loc, "(more since your last move: `log all`)",
					"(hay más desde tu última jugada: `log all`)"));
	session_reply_rich(a, cmd, export, &pub);
	if (priv.n)
		session_reply_rich(a, cmd, 1, &priv);
out:
	free(st);
	session_capture_release(&cap);
	rich_release(&pub);
	rich_release(&priv);
	buf_release(&err);
}

/* `help [game]`: the command table's help lines; with a game, its rules. */
void cmd_help(const struct cmd_ctx *x)
{
	enum locale loc = x->loc;
	struct rich r = RICH_INIT;
	struct buf block = BUF_INIT;

	if (*x->args && game_find(x->args)) {
		cmd_rules(x);	/* `help fortuna`: its rules */
		return;
	}
	rich_heading(&r, "%s", L(loc, "tabula commands", "Órdenes de tabula"));
	commands_help(loc, &block);
	rich_mono(&r, buf_str(&block));
	rich_line(&r, L(loc, "Games: %s.", "Juegos: %s."), lobby_game_ids());
	session_reply_rich(x->a, x->cmd, cmd_private(x), &r);
	rich_release(&r);
	buf_release(&block);
}

/* ---- mygames ---- */

struct mine {
	struct session_mgr *m;
	const struct command *cmd;
	enum locale loc;
	struct rich *r;
	int n;
};

static int list_mine(void *ctx, const struct session_rec *rec)
{
	struct mine *f = ctx;
	struct buf err = BUF_INIT;
	struct session *s;
	int i, seat = -1;

	for (i = 0; i < rec->nseats; i++)
		if (!rec->seats[i].is_bot && !strcmp(rec->seats[i].user, f->cmd->user))
			seat = i;
	if (seat < 0)
		return 0;
	s = session_find(f->m, rec->platform, rec->room, &err);
	buf_release(&err);
	if (!s || s->rec.id != rec->id)
		return 0;
	f->n++;
	rich_text(f->r, "%s ", s->ops->name[f->loc]);
	rich_room(f->r, rec->room, NULL);
	if (s->rec.status == SESSION_LOBBY) {
		rich_text(f->r, "%s", L(f->loc, ": in the lobby", ": en la sala de espera"));
	} else {
		unsigned aw = s->st ? s->ops->awaiting(s->st) : 0;
		int64_t h = (session_now(f->m) - s->last_at) / 3600;

		if (aw & (1u << seat)) {
			rich_text(f->r, ": ");
			rich_emph(f->r, "%s", L(f->loc, "your turn", "te toca"));
		}
		else
			rich_text(f->r, "%s", L(f->loc, ": waiting for others",
						": esperando a otros"));
		rich_text(f->r, L(f->loc, ", since %lld h", ", desde hace %lld h"), (long long)h);
	}
	rich_newline(f->r);
	return 0;
}

/* `mygames`: anyone, anywhere; in the caller's language, as it lists
 * rooms of every language. */
void cmd_mygames(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	const struct command *cmd = x->cmd;
	struct mine f;
	struct rich r = RICH_INIT;
	struct buf err = BUF_INIT;

	memset(&f, 0, sizeof(f));
	f.m = m;
	f.cmd = cmd;
	f.loc = cmd_loc(m, cmd, NULL);
	f.r = &r;
	rich_heading(&r, "%s", L(f.loc, "Your games", "Tus partidas"));
	if (store_sessions_of_user(m->store, cmd->platform, cmd->user, list_mine, &f, &err))
		log_warn("mygames: %s", buf_str(&err));
	if (!f.n)
		rich_line(&r, "%s", L(f.loc, "You are not in any game here.",
				      "No juegas ninguna partida aquí."));
	session_reply_rich(x->a, cmd, cmd_private(x), &r);
	rich_release(&r);
	buf_release(&err);
}

/* ---- rules and cards ---- */

/* `rules <game> [topic]` (and `help <game>`): anyone, anywhere. */
void cmd_rules(const struct cmd_ctx *x)
{
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	const char *args = x->args;
	enum locale loc = x->loc;
	const struct game_ops *g = NULL;
	struct rich r = RICH_INIT;
	char word[64];

	text_word(&args, word, sizeof(word));
	if (word[0])
		g = game_find(word);
	else if (s)
		g = s->ops;
	if (!g || !g->rules) {
		struct buf msg = BUF_INIT;

		buf_setf(&msg, L(loc, "Usage: `rules <game> [topic]`. Games: %s.",
				 "Uso: `rules <juego> [tema]`. Juegos: %s."), lobby_game_ids());
		session_reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		return;
	}
	g->rules(*args ? args : NULL, loc, &r);
	session_reply_rich(a, cmd, cmd_private(x), &r);
	rich_release(&r);
}

/*
 * `card [game] <name>`: anyone, anywhere.  With a game named first, that
 * game's card; else the room's game first (with its options: a variant's
 * card text), then every game.  An answer from a game other than the
 * room's says which game it is, and which other games have a card of that
 * name (`card <game> <name>` picks one).
 */
void cmd_card(const struct cmd_ctx *x)
{
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	const char *args = x->args, *rest = args;
	enum locale loc = x->loc;
	const struct game_ops *const *all = game_all();
	const struct game_ops *room = s ? s->ops : NULL, *named, *found = NULL;
	struct rich r = RICH_INIT, tmp = RICH_INIT;
	struct buf also = BUF_INIT, folded = BUF_INIT;
	char word[64];
	size_t i;

	if (!*args) {
		session_reply_text(a, cmd, 1, L(loc, "Usage: `card [game] <name>`.",
						"Uso: `card [juego] <nombre>`."));
		return;
	}
	text_word(&rest, word, sizeof(word));
	named = *rest ? game_find(word) : NULL;
	if (named && named->card) {
		/* `card builders market`: that game's answer, found or not */
		if (named != room)
			rich_line(&r, "%s:", named->name[loc]);
		named->card(rest, named == room ? s->rec.options : NULL, loc, &r);
		goto reply;
	}
	if (room && room->card && !room->card(args, s->rec.options, loc, &r))
		goto reply;
	text_fold(args, &folded);
	for (i = 0; all[i]; i++) {
		if (!all[i]->card || all[i] == room)
			continue;
		rich_release(&tmp);
		rich_init(&tmp);
		if (all[i]->card(args, NULL, loc, &tmp))
			continue;
		if (found) {
			buf_printf(&also, "%s%s (`card %s %s`)", also.len ? ", " : "",
				   all[i]->name[loc], all[i]->id, buf_str(&folded));
			continue;
		}
		found = all[i];
		rich_release(&r);
		rich_init(&r);
		rich_line(&r, "%s:", found->name[loc]);
		rich_append(&r, &tmp);
	}
	if (found) {
		if (also.len)
			rich_line(&r, L(loc, "Also a card of %s.", "También es una carta de %s."),
				  buf_str(&also));
		goto reply;
	}
	rich_release(&r);
	rich_init(&r);
	if (room && room->card)
		room->card(args, s->rec.options, loc, &r);	/* its "no such card" or candidates */
	else
		rich_line(&r, "%s", L(loc, "No such card.", "No existe esa carta."));
reply:
	session_reply_rich(a, cmd, cmd_private(x), &r);
	rich_release(&r);
	rich_release(&tmp);
	buf_release(&also);
	buf_release(&folded);
}
