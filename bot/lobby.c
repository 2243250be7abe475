/*
 * lobby: a game's life before and around its play: `game new`, `join`,
 * `leave`, `addbot`, `start`, `status` and `abort`, and the lobby caps
 * (docs/async.md, "Limits").
 *
 * Lobby changes are committed like moves (change_commit); their answer is
 * a direct reply (the new lobby, to whoever asked), not an outbox message.
 * What may run when is the table's (bot/commands.c): these handlers start
 * after its state and seat checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

struct session *lobby_session_new(struct session_mgr *m, const struct command *cmd,
				  const struct game_ops *ops)
{
	struct session *s = xcalloc(1, sizeof(*s));

	session_rec_init(&s->rec);
	session_copy_field(s->rec.platform, sizeof(s->rec.platform), cmd->platform);
	session_copy_field(s->rec.room, sizeof(s->rec.room), cmd->room);
	session_copy_field(s->rec.game, sizeof(s->rec.game), ops->id);
	session_copy_field(s->rec.creator, sizeof(s->rec.creator), cmd->user);
	/* where its games are rated beside the platform (bot/record.c) */
	session_copy_field(s->rec.community, sizeof(s->rec.community),
			   cmd->community ? cmd->community : "");
	s->rec.status = SESSION_LOBBY;
	s->rec.created = session_now(m);
	s->ops = ops;
	return s;
}

int lobby_add_seat(struct session_rec *rec, const char *user, const char *name, int is_bot)
{
	struct seat_rec *seat;

	if (rec->nseats >= STORE_MAX_SEATS)
		return -1;
	seat = &rec->seats[rec->nseats];
	memset(seat, 0, sizeof(*seat));
	if (session_copy_field(seat->user, sizeof(seat->user), user) ||
	    session_copy_field(seat->name, sizeof(seat->name), name))
		return -1;
	seat->is_bot = is_bot;
	rec->nseats++;
	return 0;
}

const char *lobby_status_word(enum session_status st, enum locale loc)
{
	switch (st) {
	case SESSION_LOBBY:
		return L(loc, "lobby", "sala de espera");
	case SESSION_ACTIVE:
		return L(loc, "in play", "en juego");
	case SESSION_FINISHED:
		return L(loc, "finished", "terminada");
	case SESSION_ABORTED:
		return L(loc, "aborted", "cancelada");
	}
	return "?";
}

/* "fortuna, gtr": the registered game ids, for help and errors. */
const char *lobby_game_ids(void)
{
	static char ids[256];
	const struct game_ops *const *all = game_all();
	size_t i, len = 0;

	if (ids[0])
		return ids;
	for (i = 0; all[i]; i++)
		len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", i ? ", " : "",
					all[i]->id);
	return ids;
}

void lobby_summary(struct session_mgr *m, const struct session *s, enum locale loc,
		   struct rich *r)
{
	int i;

	rich_heading(r, "%s — %s", s->ops->name[loc], lobby_status_word(s->rec.status, loc));
	if (s->rec.options[0])
		rich_line(r, "%s %s", L(loc, "Options:", "Opciones:"), s->rec.options);
	rich_text(r, L(loc, "Seats (%d of %d–%d):", "Asientos (%d de %d–%d):"),
		  s->rec.nseats, s->ops->min_players, s->ops->max_players);
	for (i = 0; i < s->rec.nseats; i++)
		rich_text(r, "%s%s%s", i ? ", " : " ", s->rec.seats[i].name,
			  s->rec.seats[i].is_bot ? L(loc, " (AI)", " (IA)") : "");
	rich_newline(r);
	if (s->rec.status == SESSION_LOBBY)
		rich_line(r, "%s", L(loc,
			"`game join` to take a seat, `game addbot` for an AI, `game start` to begin.",
			"`game join` para sentarte, `game addbot` para una IA, `game start` para empezar."));
}

/*
 * A game's options are words ("nofunctions original-circus"): each word is
 * folded on its own (case, accents) and keeps its inner hyphens, so that
 * "Original-Circus" and "original_circus" both read "original-circus".
 * (text_fold alone would split a hyphenated word in two.)
 */
static void options_normalise(const char *args, struct buf *out)
{
	struct buf f = BUF_INIT;
	char word[64];
	size_t i;

	while (text_word(&args, word, sizeof(word))) {
		buf_reset(&f);
		text_fold(word, &f);
		for (i = 0; i < f.len; i++)
			if (f.s[i] == ' ')
				f.s[i] = '-';
		if (f.len)
			buf_printf(out, "%s%s", out->len ? " " : "", buf_str(&f));
	}
	buf_release(&f);
}

/*
 * The first word of opts (normalised) that is not one of the game's
 * option_words: 1 with the error, in the caller's language, that names
 * the game's options.  The game's own setup() still judges the words
 * together; this answers the common slip in the player's language.
 */
static int options_unknown(const struct game_ops *ops, const char *opts, enum locale loc,
			   struct buf *err)
{
	char word[64];
	size_t k;

	while (text_word(&opts, word, sizeof(word))) {
		for (k = 0; ops->option_words && ops->option_words[k]; k++)
			if (!strcmp(word, ops->option_words[k]))
				break;
		if (ops->option_words && ops->option_words[k])
			continue;
		buf_setf(err, L(loc, "Unknown option \"%s\". ", "Opción desconocida \"%s\". "),
			 word);
		if (!ops->option_words || !ops->option_words[0]) {
			buf_printf(err, L(loc, "%s has no options.", "%s no tiene opciones."),
				   ops->name[loc]);
			return 1;
		}
		buf_printf(err, L(loc, "Options of %s:", "Opciones de %s:"), ops->name[loc]);
		for (k = 0; ops->option_words[k]; k++)
			buf_printf(err, "%s %s", k ? "," : "", ops->option_words[k]);
		buf_addch(err, '.');
		return 1;
	}
	return 0;
}

static int count_lobby(void *ctx, const struct session_rec *rec)
{
	*(unsigned *)ctx += rec->status == SESSION_LOBBY;
	return 0;
}

/*
 * The lobby caps (docs/async.md, "Limits"): the open lobbies cmd's user is
 * seated in on this platform (checked by `game new` and `game join`), and
 * all the open lobbies of the platform (`game new`).  Lobbies cost nothing
 * to open and live until started or left, so without them one user (or a
 * few accounts) could fill the store.  Returns 1, with the user told why
 * privately, when the command must be refused.
 */
int lobby_cap_reached(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		      enum locale loc, int opening)
{
	struct buf err = BUF_INIT, msg = BUF_INIT;
	unsigned mine = 0;
	int64_t all = 0;
	int full = 1;

	if (store_sessions_of_user(m->store, cmd->platform, cmd->user, count_lobby, &mine, &err) ||
	    store_count_lobbies(m->store, cmd->platform, &all, &err)) {
		log_err("counting lobbies on %s: %s", cmd->platform, buf_str(&err));
		session_reply_text(a, cmd, 1, L(loc, "The bot could not check its lobbies (an internal "
						"error); nothing changed. Please try again in a moment.",
						"El bot no pudo revisar sus salas de espera (un error interno); "
						"nada ha cambiado. Inténtalo de nuevo en un momento."));
	} else if (m->max_lobbies_user && mine >= m->max_lobbies_user) {
		buf_setf(&msg, L(loc, "You are already waiting in %u lobbies here, the most one "
				 "player may have. Start one of them, or `game leave` one (`mygames` "
				 "lists them), before you open another.",
				 "Ya esperas en %u salas de espera aquí, el máximo por jugador. Empieza "
				 "una, o deja una con `game leave` (`mygames` las lista), antes de "
				 "abrir otra."), mine);
		session_reply_text(a, cmd, 1, buf_str(&msg));
	} else if (opening && m->max_lobbies_platform &&
		   all >= (int64_t)m->max_lobbies_platform) {
		log_warn("%s has %lld open lobbies (the cap): `game new` refused", cmd->platform,
			 (long long)all);
		session_reply_text(a, cmd, 1, L(loc, "Too many games are waiting for players right now, "
						"so no new one can open. Join one, or try again later.",
						"Ahora mismo hay demasiadas partidas esperando jugadores, así "
						"que no se puede abrir otra. Únete a una, o inténtalo más tarde."));
	} else {
		full = 0;
	}
	buf_release(&err);
	buf_release(&msg);
	return full;
}

/* `game new <game> [options]`, where no game is open (the table). */
void cmd_game_new(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *cur = x->s;
	const char *args = x->args;
	enum locale loc = x->loc;
	char gname[64];
	const struct game_ops *ops;
	struct session *s;
	struct change c;
	struct buf err = BUF_INIT, opts = BUF_INIT;
	void *probe;
	struct rich r = RICH_INIT;

	if (!text_word(&args, gname, sizeof(gname))) {
		buf_setf(&err, L(loc, "Which game? `game new <game>`; games: %s",
				 "¿Qué juego? `game new <juego>`; juegos: %s"), lobby_game_ids());
		session_reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	ops = game_find(gname);
	if (!ops) {
		buf_setf(&err, L(loc, "Unknown game \"%s\". Games: %s",
				 "Juego desconocido \"%s\". Juegos: %s"), gname, lobby_game_ids());
		session_reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	/* normalise the options and let the game judge them now, not at start */
	options_normalise(args, &opts);
	if (options_unknown(ops, buf_str(&opts), loc, &err)) {
		session_reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	probe = game_state_new(ops);
	if (opts.len >= sizeof(cur->rec.options) ||
	    ops->setup(probe, ops->max_players, 1, buf_str(&opts), &err)) {
		struct buf msg = BUF_INIT;

		buf_printf(&msg, "%s %s", buf_str(&err), ops->options_help ? ops->options_help : "");
		session_reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		free(probe);
		goto out;
	}
	free(probe);
	if (lobby_cap_reached(m, a, cmd, loc, 1))
		goto out;
	s = lobby_session_new(m, cmd, ops);
	session_copy_field(s->rec.options, sizeof(s->rec.options), buf_str(&opts));
	/* the room's language (cmd_loc): the last game's here, else the
	 * caller's client (Discord), else the bot's default; `game settings
	 * locale` changes it */
	session_copy_field(s->rec.locale, sizeof(s->rec.locale), locale_code(loc));
	if (cur) {
		/* the form of boards is the room's: the next game keeps it, as
		 * it keeps the room's language */
		struct room_settings was, rs;

		roomset_read(&cur->rec, &was);
		roomset_read(&s->rec, &rs);
		rs.board = was.board;
		/* so is playing unrated */
		rs.rated = was.rated;
		if (rs.board != BOARD_DEFAULT || !rs.rated)
			roomset_write(&s->rec, &rs);
	}
	change_init(&c, s);
	if (lobby_add_seat(&c.rec, cmd->user, cmd->name, 0)) {
		session_reply_text(a, cmd, 1, L(loc, "Your name is too long.", "Tu nombre es demasiado largo."));
		change_release(&c);
		session_free(s);
		goto out;
	}
	if (change_commit(m, &c, &err)) {
		session_reply_commit_failed(m, a, cmd, loc);
		change_release(&c);
		session_free(s);
		goto out;
	}
	change_release(&c);
	session_cache_put(m, s);
	lobby_summary(m, s, loc, &r);
	session_reply_rich(a, cmd, 0, &r);
out:
	rich_release(&r);
	buf_release(&err);
	buf_release(&opts);
}

/* Commits a lobby change built by `edit` and answers with the summary. */
static void lobby_commit(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			 struct change *c, enum locale loc)
{
	struct buf err = BUF_INIT;
	struct rich r = RICH_INIT;

	if (change_commit(m, c, &err)) {
		session_reply_commit_failed(m, a, cmd, loc);
	} else {
		lobby_summary(m, c->s, loc, &r);
		session_reply_rich(a, cmd, 0, &r);
	}
	rich_release(&r);
	buf_release(&err);
}

/* `game join`: a lobby, a caller without a seat (the table). */
void cmd_game_join(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct change c;

	if (s->rec.nseats >= s->ops->max_players) {
		session_reply_text(a, cmd, 1, L(loc, "The game is full.", "La partida está completa."));
		return;
	}
	if (lobby_cap_reached(m, a, cmd, loc, 0))
		return;
	change_init(&c, s);
	if (lobby_add_seat(&c.rec, cmd->user, cmd->name, 0))
		session_reply_text(a, cmd, 1, L(loc, "Your name is too long.", "Tu nombre es demasiado largo."));
	else
		lobby_commit(m, a, cmd, &c, loc);
	change_release(&c);
}

/* `game leave`: a lobby, a seated caller (the table). */
void cmd_game_leave(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct change c;
	int seat = x->seat;

	change_init(&c, s);
	memmove(&c.rec.seats[seat], &c.rec.seats[seat + 1],
		(size_t)(c.rec.nseats - seat - 1) * sizeof(c.rec.seats[0]));
	c.rec.nseats--;
	if (votes_humans_of(&c.rec)) {
		lobby_commit(m, a, cmd, &c, loc);
	} else {
		/* nobody is left to start it, nor to abort it: it would hold
		 * the room (and count as a lobby) for ever */
		struct buf err = BUF_INIT;

		c.rec.status = SESSION_ABORTED;
		if (change_commit(m, &c, &err))
			session_reply_commit_failed(m, a, cmd, loc);
		else
			session_reply_text(a, cmd, 0, L(loc,
				"Nobody is seated any more: the lobby is closed. `game new <game>` opens another.",
				"Ya no queda nadie sentado: la sala de espera se cierra. "
				"`game new <juego>` abre otra."));
		buf_release(&err);
	}
	change_release(&c);
}

/* `game addbot [n]`: a lobby, a seated caller (the table). */
void cmd_game_addbot(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	const char *args = x->args;
	const struct adapter_arg *count = commands_arg(x->def, "count");
	enum locale loc = x->loc;
	char word[16];
	struct change c;
	int n = 1, i;

	if (text_word(&args, word, sizeof(word))) {
		char *end;
		long v = strtol(word, &end, 10);

		if (*end || v < count->min || v > count->max || *args) {
			session_reply_text(a, cmd, 1, L(loc, "Usage: `game addbot [n]`, n a small number.",
							"Uso: `game addbot [n]`, n un número pequeño."));
			return;
		}
		n = (int)v;
	}
	if (s->rec.nseats + n > s->ops->max_players) {
		struct buf msg = BUF_INIT;

		buf_setf(&msg, L(loc, "Only %d seat(s) left.", "Solo quedan %d asiento(s)."),
			 s->ops->max_players - s->rec.nseats);
		session_reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		return;
	}
	change_init(&c, s);
	for (i = 0; i < n; i++) {
		char name[32];
		int k, idx = 1, taken;

		do {	/* the first free "AI n" name */
			snprintf(name, sizeof(name), L(loc, "AI %d", "IA %d"), idx++);
			taken = 0;
			for (k = 0; k < c.rec.nseats; k++)
				taken |= !strcmp(c.rec.seats[k].name, name);
		} while (taken);
		lobby_add_seat(&c.rec, "", name, 1);
	}
	lobby_commit(m, a, cmd, &c, loc);
	change_release(&c);
}

/* `game start`: a lobby, a seated caller (the table). */
void cmd_game_start(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct buf err = BUF_INIT;
	struct capture cap;
	const char *names[GAME_MAX_SEATS];
	struct change c;

	if (s->rec.nseats < s->ops->min_players || s->rec.nseats > s->ops->max_players) {
		buf_setf(&err, L(loc, "%s needs %d to %d players; there are %d.",
				 "%s necesita de %d a %d jugadores; hay %d."),
			 s->ops->name[loc], s->ops->min_players, s->ops->max_players,
			 s->rec.nseats);
		session_reply_text(a, cmd, 1, buf_str(&err));
		buf_release(&err);
		return;
	}
	change_init(&c, s);
	session_seat_names(s, names);
	session_capture_init(&cap, loc, names);
	c.rec.seed = ((uint64_t)rng_next(&m->rng) << 32) | rng_next(&m->rng);
	c.rec.status = SESSION_ACTIVE;
	{
		/* the rules this game's move log replays under (`log`, undo) */
		struct room_settings rs;

		roomset_read(&c.rec, &rs);
		rs.rules = s->ops->rules_version ? (int)s->ops->rules_version : 1;
		roomset_write(&c.rec, &rs);
	}
	c.st = game_state_new(s->ops);
	if (s->ops->setup(c.st, c.rec.nseats, c.rec.seed, c.rec.options, &err) ||
	    (s->ops->intro && (s->ops->intro(c.st, &cap.log), 0)) ||
	    ai_run_bots(m, &c, &cap, &err)) {
		log_err("start of %s/%s failed: %s", s->rec.platform, s->rec.room, buf_str(&err));
		session_reply_text(a, cmd, 1, L(loc, "The game could not start (an internal error).",
						"La partida no pudo empezar (un error interno)."));
		goto out;
	}
	c.actor = cmd->user;
	change_moved(m, &c, &cap);
	change_commit_answer(m, &c, a, cmd, loc);
out:
	session_capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}

/* `game status`: anyone, anywhere. */
void cmd_game_status(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct rich r = RICH_INIT;

	if (!s) {
		session_reply_text(a, cmd, 0, L(loc, "No game here yet. Open one with `game new fortuna`.",
						"Aún no hay partida aquí. Abre una con `game new fortuna`."));
		return;
	}
	lobby_summary(m, s, loc, &r);
	if (s->st && s->rec.status == SESSION_ACTIVE) {
		outbox_add_waiting(s, s->st, loc, &r, 0);
		rich_line(&r, L(loc, "Moves so far: %lld.", "Jugadas hasta ahora: %lld."),
			  (long long)s->last_seq);
	}
	session_reply_rich(a, cmd, 0, &r);
	rich_release(&r);
}

/*
 * `game abort`.  Its creator ends a game alone while they hold a human seat
 * of it; anyone else seated votes, and more than half of the seated humans
 * end it.  Nobody outside the game has a say: not a passer-by, not a
 * creator who left the lobby or whose seat the AI took (the remaining
 * players decide).  Votes are stored (session_rec.votes) and count only
 * while their voter is seated (the table checks the seat).
 */
void cmd_game_abort(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct change c;
	struct buf err = BUF_INIT;
	json_t *v;
	int humans, votes;

	change_init(&c, s);
	if (strcmp(s->rec.creator, cmd->user)) {
		v = votes_load(&c.rec);
		votes_abort(v, cmd->user);
		humans = votes_humans_of(&c.rec);
		votes = votes_count_abort(&c.rec, v);
		votes_save(&c.rec, v);
		if (votes * 2 <= humans) {
			/* the vote is stored: a restart keeps it */
			if (change_commit(m, &c, &err)) {
				session_reply_commit_failed(m, a, cmd, loc);
			} else {
				buf_setf(&err, L(loc,
					 "Vote to abort recorded (%d of %d; more than half needed).",
					 "Voto para cancelar registrado (%d de %d; hace falta más de la mitad)."),
					 votes, humans);
				session_reply_text(a, cmd, 0, buf_str(&err));
			}
			goto out;
		}
	}
	c.rec.status = SESSION_ABORTED;
	if (change_commit(m, &c, &err))
		session_reply_commit_failed(m, a, cmd, loc);
	else
		session_reply_text(a, cmd, 0, L(loc, "The game was aborted. Nobody wins.",
						"La partida se canceló. Nadie gana."));
out:
	change_release(&c);
	buf_release(&err);
}
