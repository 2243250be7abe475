/*
 * settings: the `game settings` and `game web` commands, with the votes
 * their voted keys need once a game has started (docs/async.md, "Who may
 * change what").  What a web link is and how it is made is
 * bot/weblink.c's; this file only offers it to the players.
 * How the settings are stored (session_rec.settings, a JSON object) is
 * bot/roomset.c's.
 *
 * It changes settings; it must not act on them (reminders and timeouts
 * are due.c's, the AI's strength ai.c's, pictures pictures.c's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

int session_log_replays(const struct session *s)
{
	struct room_settings rs;
	unsigned now = s->ops->rules_version ? s->ops->rules_version : 1;

	roomset_read(&s->rec, &rs);
	return (unsigned)rs.rules == now;
}

/* ---- `game settings` ---- */

/*
 * Room settings that decide what happens to other players' seats and
 * notifications: once the game has started they change only when more than
 * half of the seated humans ask for the same value (docs/async.md, "Who
 * may change what").  `dm` (the caller's own notifications), `locale`
 * (the room's language: it changes no seat and no outcome, and anyone
 * seated changes it back) and `board` (text or pictures: likewise) take
 * effect at once.
 */
static int setting_voted(const char *key)
{
	return text_eq(key, "timeout") || text_eq(key, "ontimeout") || text_eq(key, "remind") ||
	       text_eq(key, "ai") || text_eq(key, "rated");
}

/*
 * Checks `key value` of a room setting; writes its canonical key and value
 * (the words votes compare) to ckey and cval.  0, or -1 when it is not one.
 */
static int setting_parse(const char *key, const char *val, char *ckey, char *cval, size_t n)
{
	if ((text_eq(key, "remind") || text_eq(key, "timeout")) && val[0] &&
	    strspn(val, "0123456789") == strlen(val) && strlen(val) <= 4 &&
	    atoi(val) <= (text_eq(key, "remind") ? 24 * 30 : 24 * 60)) {
		snprintf(ckey, n, "%s", text_eq(key, "remind") ? "remind" : "timeout");
		snprintf(cval, n, "%d", atoi(val));
		return 0;
	}
	if (text_eq(key, "ontimeout") && (text_eq(val, "ai") || text_eq(val, "pause"))) {
		snprintf(ckey, n, "ontimeout");
		snprintf(cval, n, "%s", text_eq(val, "ai") ? "ai" : "pause");
		return 0;
	}
	if (text_eq(key, "ai") && (text_eq(val, "basic") || text_eq(val, "strong"))) {
		snprintf(ckey, n, "ai");
		snprintf(cval, n, "%s", text_eq(val, "basic") ? "basic" : "strong");
		return 0;
	}
	if (text_eq(key, "rated") && (text_eq(val, "on") || text_eq(val, "off"))) {
		snprintf(ckey, n, "rated");
		snprintf(cval, n, "%s", text_eq(val, "on") ? "on" : "off");
		return 0;
	}
	return -1;
}

/* The canonical value of a room setting now (as setting_parse writes it). */
static void setting_now(const struct session_rec *rec, const char *key, char *out, size_t n)
{
	struct room_settings rs;

	roomset_read(rec, &rs);
	if (!strcmp(key, "remind"))
		snprintf(out, n, "%d", rs.remind_h);
	else if (!strcmp(key, "timeout"))
		snprintf(out, n, "%d", rs.timeout_h);
	else if (!strcmp(key, "ontimeout"))
		snprintf(out, n, "%s", rs.timeout_ai ? "ai" : "pause");
	else if (!strcmp(key, "rated"))
		snprintf(out, n, "%s", rs.rated ? "on" : "off");
	else
		snprintf(out, n, "%s", rs.ai_strong ? "strong" : "basic");
}

/* Writes a checked room setting into rec and what to say about it to msg. */
static void setting_apply(const struct session *s, struct session_rec *rec, const char *key,
			  const char *val, enum locale loc, struct buf *msg)
{
	struct room_settings rs;
	int h = atoi(val);

	roomset_read(rec, &rs);
	if (!strcmp(key, "remind") || !strcmp(key, "timeout")) {
		if (!strcmp(key, "remind"))
			rs.remind_h = h;
		else
			rs.timeout_h = h;
		if (!h)
			buf_setf(msg, "%s", !strcmp(key, "remind")
				 ? L(loc, "Reminders off.", "Recordatorios desactivados.")
				 : L(loc, "No timeout.", "Sin límite de tiempo."));
		else
			buf_setf(msg, !strcmp(key, "remind")
				 ? L(loc, "Reminders every %d hours.", "Recordatorios cada %d horas.")
				 : L(loc, "Timeout: %d hours without a move.",
				     "Límite: %d horas sin jugar."), h);
	} else if (!strcmp(key, "ontimeout")) {
		rs.timeout_ai = !strcmp(val, "ai");
		buf_setf(msg, "%s", rs.timeout_ai
			 ? L(loc, "At the timeout the AI decides for the idle player.",
			     "Al agotarse el tiempo, la IA decide por el jugador ausente.")
			 : L(loc, "At the timeout the game pauses.",
			     "Al agotarse el tiempo, la partida se pausa."));
	} else if (!strcmp(key, "rated")) {
		/* the whole game is rated or not: read when it ends (bot/record.c) */
		rs.rated = !strcmp(val, "on");
		buf_setf(msg, "%s", rs.rated
			 ? L(loc, "Games in this room are rated: a finished game moves the ratings.",
			     "Las partidas de esta sala puntúan: una partida terminada mueve las "
			     "clasificaciones.")
			 : L(loc, "Games in this room are not rated: finished games are kept in the "
			     "history but move no rating.",
			     "Las partidas de esta sala no puntúan: las partidas terminadas quedan en "
			     "el historial pero no mueven ninguna clasificación."));
	} else {
		rs.ai_strong = !strcmp(val, "strong");
		if (rs.ai_strong && !s->ops->determinize)
			buf_setf(msg, "%s", L(loc,
				 "This game has no searching AI yet: its AI players stay basic.",
				 "Este juego aún no tiene IA que busque: sus jugadores IA siguen básicos."));
		else
			buf_setf(msg, "%s", rs.ai_strong
				 ? L(loc, "AI players now search before each decision "
				     "(stronger; they take up to a second per decision).",
				     "Los jugadores IA ahora buscan antes de cada decisión "
				     "(más fuertes; tardan hasta un segundo por decisión).")
				 : L(loc, "AI players now play the quick basic way.",
				     "Los jugadores IA juegan ahora de la forma básica y rápida."));
	}
	roomset_write(rec, &rs);
}

/* `game settings` alone: the settings, privately. */
static void settings_show(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			  const struct session *s, int seat, enum locale loc)
{
	struct room_settings rs;
	struct buf msg = BUF_INIT;

	roomset_read(&s->rec, &rs);
	buf_printf(&msg, L(loc, "Settings: locale %s; your DM notifications: %s.\n",
			   "Ajustes: idioma %s; tus avisos por mensaje directo: %s.\n"),
		   locale_code(session_loc(s, m)),
		   s->rec.seats[seat].notify_dm ? L(loc, "on", "sí") : L(loc, "off", "no"));
	if (rs.remind_h)
		buf_printf(&msg, L(loc, "Reminders every %d h. ", "Recordatorios cada %d h. "),
			   rs.remind_h);
	else
		buf_printf(&msg, "%s", L(loc, "No reminders. ", "Sin recordatorios. "));
	if (rs.timeout_h)
		buf_printf(&msg, L(loc, "After %d h idle: %s.", "Tras %d h sin jugar: %s."),
			   rs.timeout_h, rs.timeout_ai ? L(loc, "the AI decides", "decide la IA")
			   : L(loc, "the game pauses", "la partida se pausa"));
	else
		buf_printf(&msg, "%s", L(loc, "No timeout.", "Sin límite de tiempo."));
	buf_printf(&msg, "%s", rs.ai_strong
		   ? L(loc, " AI players: strong (they search).",
		       " Jugadores IA: fuertes (buscan).")
		   : L(loc, " AI players: basic (quick).", " Jugadores IA: básicos (rápidos)."));
	buf_printf(&msg, "%s", rs.rated ? L(loc, " Rated: yes.", " Puntúa: sí.")
		   : L(loc, " Rated: no.", " Puntúa: no."));
	switch (pic_board_mode(&s->rec, a)) {
	case BOARD_IMAGE:
		buf_printf(&msg, "%s", rs.board == BOARD_DEFAULT
			   ? L(loc, " Boards: pictures (this platform's default; `board text` for the text).",
			       " Tableros: imágenes (lo habitual en esta plataforma; `board text` para el texto).")
			   : L(loc, " Boards: pictures (`board text` for the text).",
			       " Tableros: imágenes (`board text` para el texto)."));
		break;
	case BOARD_BOTH:
		buf_printf(&msg, "%s", L(loc, " Boards: text and pictures.",
				       " Tableros: texto e imágenes."));
		break;
	default:
		buf_printf(&msg, "%s", rs.board == BOARD_DEFAULT
			   ? L(loc, " Boards: text (this platform's default; `board image` for a picture).",
			       " Tableros: texto (lo habitual en esta plataforma; `board image` para una imagen).")
			   : L(loc, " Boards: text (`board image` for a picture).",
			       " Tableros: texto (`board image` para una imagen)."));
		break;
	}
	buf_printf(&msg, "%s", L(loc,
		"\nChange them with `game settings locale en|es`, `dm on|off`, `remind <hours>` "
		"(0: off), `timeout <hours>` (0: off), `ontimeout ai|pause`, `ai basic|strong`, "
		"`rated on|off`, `board text|image|both`.",
		"\nCámbialos con `game settings locale en|es`, `dm on|off`, `remind <horas>` "
		"(0: no), `timeout <horas>` (0: no), `ontimeout ai|pause`, `ai basic|strong`, "
		"`rated on|off`, `board text|image|both`."));
	if (s->rec.status == SESSION_ACTIVE && votes_humans_of(&s->rec) > 1)
		buf_printf(&msg, "%s", L(loc,
			" Once the game has started, remind, timeout, ontimeout, ai and rated change "
			"when more than half of the seated players ask for the same value.",
			" Con la partida empezada, remind, timeout, ontimeout, ai y rated cambian "
			"cuando más de la mitad de los jugadores sentados piden el mismo valor."));
	session_reply_text(a, cmd, 1, buf_str(&msg));
	buf_release(&msg);
}

/*
 * A vote for a room setting in a game that has started.  Returns 1 when it
 * does not (yet) decide the setting: the vote is committed and answered;
 * 0 when the caller's vote makes the majority: the setting's votes are
 * cleared in c->rec and the caller applies it (with `agreed` appended to
 * its message).
 */
static int setting_vote(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			struct change *c, const char *who, const char *key, const char *val,
			const char *what, enum locale loc, struct buf *agreed)
{
	struct buf err = BUF_INIT, msg = BUF_INIT;
	json_t *v = votes_load(&c->rec), *set = votes_obj(v, "set");
	int humans = votes_humans_of(&c->rec), votes;

	json_object_set_new(votes_obj(set, key), cmd->user, json_string(val));
	votes = votes_count_for(&c->rec, votes_obj(set, key), val, NULL);
	if (votes * 2 > humans) {
		json_object_del(set, key);	/* decided: every vote on it is done */
		votes_save(&c->rec, v);
		if (humans > 1)
			buf_setf(agreed, L(loc, " (Agreed by %d of %d players.)",
					   " (Acordado por %d de %d jugadores.)"), votes, humans);
		return 0;
	}
	votes_save(&c->rec, v);
	if (change_commit(m, c, &err)) {
		session_reply_commit_failed(m, a, cmd, loc);
	} else {
		buf_setf(&msg, L(loc, "%s asks for `%s`: %d of %d players "
				 "(more than half needed). The others agree by typing the same.",
				 "%s pide `%s`: %d de %d jugadores (hace falta más "
				 "de la mitad). Los demás lo aprueban escribiendo lo mismo."),
			 who, what, votes, humans);
		session_reply_text(a, cmd, 0, buf_str(&msg));
	}
	buf_release(&err);
	buf_release(&msg);
	return 1;
}

/* `game settings [key value]`: per-player DM notifications (seat flag),
 * the room's language and its rules for reminders, timeouts, AI seats and
 * whether its games are rated.
 * Seated players only (the table). */
void cmd_game_settings(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	const char *args = x->args;
	enum locale loc = x->loc, nl;
	char key[32], val[32], ckey[16], cval[16], now[16];
	struct buf err = BUF_INIT, msg = BUF_INIT, agreed = BUF_INIT;
	struct change c;
	int seat = x->seat;

	text_word(&args, key, sizeof(key));
	text_word(&args, val, sizeof(val));
	if (*args)
		key[0] = '?';	/* trailing words: show the usage */
	if (!key[0]) {
		settings_show(m, a, cmd, s, seat, loc);
		return;
	}
	change_init(&c, s);
	if (text_eq(key, "dm") && (text_eq(val, "on") || text_eq(val, "off"))) {
		c.rec.seats[seat].notify_dm = text_eq(val, "on");
		buf_setf(&msg, c.rec.seats[seat].notify_dm
			 ? L(loc, "DM notifications on: I will message you privately when it is your turn.",
			     "Avisos por mensaje directo activados: te escribiré en privado cuando te toque.")
			 : L(loc, "DM notifications off.", "Avisos por mensaje directo desactivados."));
	} else if (text_eq(key, "board") &&
		   (text_eq(val, "text") || text_eq(val, "image") || text_eq(val, "both"))) {
		/* how the room sees its boards: no seat, no outcome and nobody's
		 * notifications depend on it, and anyone seated changes it back,
		 * so it takes effect at once, as `locale` does */
		struct room_settings rs;

		roomset_read(&c.rec, &rs);
		rs.board = text_eq(val, "text") ? BOARD_TEXT : text_eq(val, "image") ? BOARD_IMAGE
										 : BOARD_BOTH;
		roomset_write(&c.rec, &rs);
		buf_setf(&msg, "%s", rs.board == BOARD_TEXT
			 ? L(loc, "Boards in this room now come as text (`board image` shows a picture).",
			     "Los tableros de esta sala llegan ahora como texto (`board image` muestra una imagen).")
			 : rs.board == BOARD_IMAGE
			 ? L(loc, "Boards in this room now come as pictures (`board text` shows the text).",
			     "Los tableros de esta sala llegan ahora como imágenes (`board text` muestra el texto).")
			 : L(loc, "Boards in this room now come as text and as pictures.",
			     "Los tableros de esta sala llegan ahora como texto y como imágenes."));
	} else if (text_eq(key, "locale") && !locale_parse(val, &nl) && strlen(val) == 2) {
		snprintf(c.rec.locale, sizeof(c.rec.locale), "%s", locale_code(nl));
		loc = nl;
		buf_setf(&msg, "%s", L(loc, "This room now plays in English.",
				       "Esta sala juega ahora en español."));
	} else if (setting_voted(key) && !setting_parse(key, val, ckey, cval, sizeof(ckey))) {
		if (s->rec.status == SESSION_ACTIVE) {
			setting_now(&s->rec, ckey, now, sizeof(now));
			if (!strcmp(now, cval)) {
				session_reply_text(a, cmd, 1, L(loc, "That is the setting already.",
								"Ese ya es el ajuste."));
				goto out;
			}
			char what[64];

			snprintf(what, sizeof(what), "game settings %s %s", ckey, cval);
			if (setting_vote(m, a, cmd, &c, s->rec.seats[seat].name, ckey, cval, what,
					 loc, &agreed))
				goto out;
		}
		setting_apply(s, &c.rec, ckey, cval, loc, &msg);
		buf_addstr(&msg, buf_str(&agreed));
	} else {
		session_reply_text(a, cmd, 1, L(loc, "Usage: `game settings`, `game settings dm on|off`, "
						"`game settings locale en|es`, `remind <hours>`, `timeout <hours>`, "
						"`ontimeout ai|pause`, `ai basic|strong`, `rated on|off` or "
						"`board text|image|both`.",
						"Uso: `game settings`, `game settings dm on|off`, "
						"`game settings locale en|es`, `remind <horas>`, `timeout <horas>`, "
						"`ontimeout ai|pause`, `ai basic|strong`, `rated on|off` o "
						"`board text|image|both`."));
		goto out;
	}
	if (change_commit(m, &c, &err))
		session_reply_commit_failed(m, a, cmd, loc);
	else
		session_reply_text(a, cmd, text_eq(key, "dm"), buf_str(&msg));
out:
	change_release(&c);
	buf_release(&err);
	buf_release(&msg);
	buf_release(&agreed);
}

/* ---- `game web` ---- */

/* Answers text (its lines as rich lines, as session_reply_text() does)
 * and, when url is not empty, the link's line under it. */
static void web_reply(const struct cmd_ctx *x, int priv, const char *text, const char *url,
		      const char *after, enum locale loc)
{
	struct rich r = RICH_INIT;
	const char *p, *nl;
	const char *parts[2] = { text, after };
	int i;

	for (i = 0; i < 2; i++) {
		if (i == 1 && url && *url)
			weblink_rich_line(&r, loc, url);
		for (p = parts[i]; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl) {
				rich_text(&r, "%s", p);
				rich_newline(&r);
				break;
			}
			rich_text(&r, "%.*s", (int)(nl - p), p);
			rich_newline(&r);
		}
	}
	session_reply_rich(x->a, x->cmd, priv, &r);
	rich_release(&r);
}

/* What `game web` alone answers, privately: the link, or why there is none. */
static void web_show(struct session_mgr *m, const struct cmd_ctx *x, enum locale loc)
{
	struct buf url = BUF_INIT, err = BUF_INIT, msg = BUF_INIT;
	int rc = weblink_url(m, x->s, &url, &err);

	if (rc < 0) {
		log_warn("web link of %s/%s: %s", x->s->rec.platform, x->s->rec.room,
			 buf_str(&err));
		buf_setf(&msg, "%s", L(loc, "The game's link could not be read; try again.",
				       "No se pudo leer el enlace de la partida; inténtalo otra vez."));
	} else if (rc) {
		buf_setf(&msg, "%s", L(loc, "This game's web page is off: `game web on` shows it "
				       "again (more than half of the seated players, once it has "
				       "started).",
				       "La página web de esta partida está desactivada: `game web on` "
				       "la muestra de nuevo (más de la mitad de los jugadores sentados, "
				       "con la partida empezada)."));
	} else {
		web_reply(x, 1, NULL, buf_str(&url),
			  L(loc, "`game web off` hides the page; `game web reset` gives it a new "
			    "link and kills this one.",
			    "`game web off` oculta la página; `game web reset` le da un enlace "
			    "nuevo y anula este."), loc);
		goto out;
	}
	session_reply_text(x->a, x->cmd, 1, buf_str(&msg));
out:
	buf_release(&url);
	buf_release(&err);
	buf_release(&msg);
}

/* The setting as decided (on, off, reset) into c->rec, and what to tell
 * the room into msg; a reset's new link into url (left empty when the page
 * is off), for the caller to put on a line of its own after the votes, so
 * that a chat shows it as a link; the link comes from the store before
 * the commit (a failed commit leaves a new token that nobody was shown:
 * harmless).  0, or -1 (the caller was told). */
static int web_apply(struct session_mgr *m, const struct cmd_ctx *x, struct change *c,
		     const char *val, enum locale loc, struct buf *msg, struct buf *url)
{
	struct room_settings rs;
	struct buf err = BUF_INIT;
	int rc = 0;

	roomset_read(&c->rec, &rs);
	if (!strcmp(val, "reset")) {
		/* a new link, the page on or off as it was */
		if (weblink_reset(m, x->s, url, &err) < 0) {
			log_warn("web link of %s/%s: %s", x->s->rec.platform, x->s->rec.room,
				 buf_str(&err));
			session_reply_text(x->a, x->cmd, 1,
					   L(loc, "The game's link could not be changed; try again.",
					     "No se pudo cambiar el enlace de la partida; inténtalo otra "
					     "vez."));
			rc = -1;
		} else if (rs.web) {
			buf_setf(msg, "%s", L(loc, "This game has a new web link; the old one no "
					      "longer works.",
					      "Esta partida tiene un enlace web nuevo; el anterior ya no "
					      "funciona."));
		} else {
			buf_reset(url);
			buf_setf(msg, "%s", L(loc, "This game has a new web link; the old one no "
					      "longer works. Its page is off (`game web on` shows it).",
					      "Esta partida tiene un enlace web nuevo; el anterior ya no "
					      "funciona. Su página está desactivada (`game web on` la "
					      "muestra)."));
		}
	} else if (!strcmp(val, "on")) {
		rs.web = 1;
		roomset_write(&c->rec, &rs);
		buf_setf(msg, "%s", L(loc, "This game's web page is on again.",
				      "La página web de esta partida vuelve a estar activa."));
	} else {
		rs.web = 0;
		roomset_write(&c->rec, &rs);
		buf_setf(msg, "%s", L(loc, "This game's web page is off: its link finds nothing "
				      "now (`game web on` brings it back).",
				      "La página web de esta partida está desactivada: su enlace ya "
				      "no lleva a nada (`game web on` la recupera)."));
	}
	buf_release(&err);
	return rc;
}

/*
 * `game web [on|off|reset]`: the game's web page shown or hidden, or a new
 * link that kills the old one.  Once the game has started, more than half
 * of the seated humans must ask for the same (the page shows their game to
 * anyone with the link); in the lobby and after the end any seated player
 * decides, as with `game settings`.
 */
void cmd_game_web(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	const struct session *s = x->s;
	enum locale loc = x->loc;
	struct buf err = BUF_INIT, msg = BUF_INIT, agreed = BUF_INIT, url = BUF_INIT;
	struct room_settings rs;
	const char *args = x->args;
	char val[16], what[32];
	struct change c;

	if (!m->web_base[0]) {
		session_reply_text(x->a, x->cmd, 1, L(loc, "This bot serves no web pages (its operator "
						      "has not set TABULA_PUBLIC_URL).",
						      "Este bot no sirve páginas web (su operador no ha "
						      "configurado TABULA_PUBLIC_URL)."));
		return;
	}
	text_word(&args, val, sizeof(val));
	if (!val[0] && !*args) {
		web_show(m, x, loc);
		return;
	}
	if (*args || (!text_eq(val, "on") && !text_eq(val, "off") && !text_eq(val, "reset"))) {
		session_reply_text(x->a, x->cmd, 1, L(loc, "Usage: `game web` (the link), `game web on`, "
						      "`game web off` or `game web reset` (a new link).",
						      "Uso: `game web` (el enlace), `game web on`, "
						      "`game web off` o `game web reset` (un enlace nuevo)."));
		cmd_refused(m);
		return;
	}
	snprintf(val, sizeof(val), "%s", text_eq(val, "on") ? "on" : text_eq(val, "off") ? "off"
		 : "reset");
	roomset_read(&s->rec, &rs);
	if ((!strcmp(val, "on") && rs.web) || (!strcmp(val, "off") && !rs.web)) {
		session_reply_text(x->a, x->cmd, 1, L(loc, "That is the setting already.",
						      "Ese ya es el ajuste."));
		return;
	}
	change_init(&c, x->s);
	if (s->rec.status == SESSION_ACTIVE) {
		snprintf(what, sizeof(what), "game web %s", val);
		if (setting_vote(m, x->a, x->cmd, &c, s->rec.seats[x->seat].name, "web", val, what,
				 loc, &agreed))
			goto out;
	}
	if (web_apply(m, x, &c, val, loc, &msg, &url))
		goto out;
	buf_addstr(&msg, buf_str(&agreed));
	if (change_commit(m, &c, &err)) {
		session_reply_commit_failed(m, x->a, x->cmd, loc);
		goto out;
	}
	/* the page is back: its link, which has not changed (read once the
	 * live session says the page is on) */
	if (!strcmp(val, "on") && weblink_url(m, x->s, &url, &err) < 0)
		buf_reset(&url);
	web_reply(x, 0, buf_str(&msg), buf_str(&url), NULL, loc);
	/* whatever serves the page closes its streams: the old link is dead */
	if (strcmp(val, "on") && m->web_gone)
		m->web_gone(m->web_gone_ctx, x->s);
out:
	change_release(&c);
	buf_release(&err);
	buf_release(&msg);
	buf_release(&agreed);
	buf_release(&url);
}
