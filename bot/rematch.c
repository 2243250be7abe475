/*
 * rematch: `rematch` and the Rematch button of a finished game's last
 * board (issue 26): the same table again.
 *
 * A player of the room's finished game opens a new lobby of the same game
 * with its options, its room settings (the language, reminders, timeouts,
 * the AI's strength, the form of boards) and its AI seats, and is seated;
 * the other humans of that game are pinged (an explicit mention: Discord's
 * allowed_mentions lists exactly them) and take their seats with `game
 * join`; `game start` as for any lobby.  Committed like any lobby change.
 *
 * Seats are not reserved nor rotated: every game here draws its first
 * player from the seed (docs/async.md, "Rematch").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session_int.h"
#include "util/logging.h"

/* Whether user sat at rec's table: a human seat, or one the AI took from
 * them (a kicked or timed-out player keeps their user id). */
static int was_player(const struct session_rec *rec, const char *user)
{
	int i;

	for (i = 0; i < rec->nseats; i++)
		if (rec->seats[i].user[0] && !strcmp(rec->seats[i].user, user))
			return 1;
	return 0;
}

static void refuse(const struct cmd_ctx *x, const char *text)
{
	cmd_refused(x->m);
	session_reply_text(x->a, x->cmd, 1, text);
}

/* The room settings of the rematch: the last game's as they are, with the
 * clock, the pause and the reminders of that game's play reset (`game
 * start` sets the rules version again). */
static void settings_carry(const struct session_rec *last, struct session_rec *rec)
{
	struct room_settings rs;

	session_copy_field(rec->settings, sizeof(rec->settings), last->settings);
	if (!rec->settings[0])
		return;
	roomset_read(rec, &rs);
	rs.since = 0;
	rs.paused = 0;
	rs.reminded = 0;
	rs.rules = 1;
	roomset_write(rec, &rs);
}

/* The answer: the new lobby, then the last game's other humans pinged. */
static void announce(struct session_mgr *m, const struct cmd_ctx *x, const struct session *s,
		     const struct session_rec *last)
{
	struct rich r = RICH_INIT;
	enum locale loc = x->loc;
	int i, k, n = 0;

	lobby_summary(m, s, loc, &r);
	for (i = 0; i < last->nseats; i++) {
		const struct seat_rec *seat = &last->seats[i];
		int seen = 0;

		if (!seat->user[0] || !strcmp(seat->user, x->cmd->user))
			continue;
		for (k = 0; k < i; k++)
			seen |= !strcmp(last->seats[k].user, seat->user);
		if (seen)
			continue;
		rich_text(&r, "%s", n++ ? ", " : L(loc, "Rematch! ", "¡Revancha! "));
		rich_mention(&r, seat->user, seat->name);
	}
	if (n)
		rich_text(&r, "%s", L(loc, ": `game join` to take your seat.",
				      ": `game join` para ocupar vuestro asiento."));
	else
		rich_text(&r, "%s", L(loc, "Rematch! `game start` when you are ready.",
				      "¡Revancha! `game start` cuando estés listo."));
	rich_newline(&r);
	session_reply_rich(x->a, x->cmd, 0, &r);
	rich_release(&r);
}

/* Opens the rematch of x->s (finished, the caller one of its players). */
static void open_rematch(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct session_rec *last = xmalloc(sizeof(*last));
	struct session *s;
	struct change c;
	struct buf err = BUF_INIT;
	int i, bad = 0;

	if (lobby_cap_reached(m, x->a, x->cmd, x->loc, 1)) {
		cmd_refused(m);
		free(last);
		return;
	}
	/* the seats, options and settings only: the cache frees x->s when
	 * the new lobby takes the room */
	*last = x->s->rec;
	last->state = NULL;
	last->votes = NULL;
	s = lobby_session_new(m, x->cmd, x->s->ops);
	session_copy_field(s->rec.options, sizeof(s->rec.options), last->options);
	session_copy_field(s->rec.locale, sizeof(s->rec.locale), last->locale[0] ? last->locale
			   : locale_code(x->loc));
	settings_carry(last, &s->rec);
	change_init(&c, s);
	/* the caller and the AI seats, in the last game's order */
	for (i = 0; i < last->nseats && !bad; i++) {
		const struct seat_rec *seat = &last->seats[i];

		if (!strcmp(seat->user, x->cmd->user))
			bad = lobby_add_seat(&c.rec, x->cmd->user, x->cmd->name, 0);
		else if (seat->is_bot && !seat->user[0])
			bad = lobby_add_seat(&c.rec, "", seat->name, 1);
	}
	if (bad || change_commit(m, &c, &err)) {
		if (bad)
			refuse(x, L(x->loc, "Your name is too long.", "Tu nombre es demasiado largo."));
		else
			session_reply_commit_failed(m, x->a, x->cmd, x->loc);
		change_release(&c);
		session_free(s);
		goto out;
	}
	change_release(&c);
	session_cache_put(m, s);
	announce(m, x, s, last);
out:
	buf_release(&err);
	free(last);
}

/*
 * A click on the Rematch button of the finished game rematch_of: the
 * rematch when that game is still the room's newest, a seat when its
 * rematch lobby is open; else nothing changes.  Only that game's players
 * may use its button.
 */
static void clicked(const struct cmd_ctx *x, int64_t rematch_of)
{
	struct session_rec *last;
	struct buf err = BUF_INIT;
	int found, ours;

	if (x->s && x->s->rec.id == rematch_of && x->s->rec.status == SESSION_FINISHED) {
		if (!was_player(&x->s->rec, x->cmd->user))
			refuse(x, L(x->loc, "Only the players of that game can ask for its rematch. "
				    "Nothing changed.",
				    "Solo los jugadores de esa partida pueden pedir la revancha. "
				    "No ha cambiado nada."));
		else
			open_rematch(x);
		return;
	}
	last = xcalloc(1, sizeof(*last));
	found = x->s && x->s->rec.status == SESSION_LOBBY && x->s->rec.id > rematch_of &&
		store_session_get(x->m->store, rematch_of, last, &err) == 1;
	if (err.len)
		log_warn("rematch click: session %lld: %s", (long long)rematch_of, buf_str(&err));
	/* its rematch: the same game and options, opened here after it */
	ours = found && last->status == SESSION_FINISHED &&
	       !strcmp(last->platform, x->s->rec.platform) &&
	       !strcmp(last->room, x->s->rec.room) && !strcmp(last->game, x->s->rec.game) &&
	       !strcmp(last->options, x->s->rec.options);
	if (!ours)
		refuse(x, L(x->loc, "That game's rematch is not open here any more. Nothing changed.",
			    "La revancha de esa partida ya no está abierta aquí. No ha cambiado nada."));
	else if (!was_player(last, x->cmd->user))
		refuse(x, L(x->loc, "Only the players of that game can use its Rematch button; "
			    "`game join` takes a seat. Nothing changed.",
			    "Solo los jugadores de esa partida pueden usar su botón de revancha; "
			    "`game join` para sentarte. No ha cambiado nada."));
	else if (x->seat >= 0)
		refuse(x, L(x->loc, "You already have a seat in the rematch.",
			    "Ya tienes asiento en la revancha."));
	else
		cmd_game_join(x);
	if (found)
		session_rec_release(last);
	free(last);
	buf_release(&err);
}

/* `rematch` (any state: its refusals are its own). */
void cmd_rematch(const struct cmd_ctx *x)
{
	const struct session *s = x->s;
	struct buf msg = BUF_INIT;

	if (x->cmd->rematch_of > 0) {
		clicked(x, x->cmd->rematch_of);
	} else if (s && (s->rec.status == SESSION_LOBBY || s->rec.status == SESSION_ACTIVE)) {
		buf_setf(&msg, L(x->loc, "A game of %s is already open here (%s): %s",
				 "Ya hay una partida de %s abierta aquí (%s): %s"),
			 s->ops->name[x->loc], lobby_status_word(s->rec.status, x->loc),
			 s->rec.status == SESSION_LOBBY
			 ? L(x->loc, "`game join` to take a seat.", "`game join` para sentarte.")
			 : L(x->loc, "finish it first.", "termínala antes."));
		refuse(x, buf_str(&msg));
	} else if (!s || s->rec.status != SESSION_FINISHED || !s->st) {
		refuse(x, L(x->loc, "No game has finished here to play again (an aborted one is not "
			    "replayed). `game new <game>` opens a new one.",
			    "Aquí no ha terminado ninguna partida que repetir (una cancelada no se "
			    "repite). `game new <juego>` abre otra."));
	} else if (!was_player(&s->rec, x->cmd->user)) {
		refuse(x, L(x->loc, "Only the players of the last game can ask for a rematch. "
			    "`game new <game>` opens a new one.",
			    "Solo los jugadores de la última partida pueden pedir la revancha. "
			    "`game new <juego>` abre otra."));
	} else {
		open_rematch(x);
	}
	buf_release(&msg);
}
