/*
 * commands: the command table (bot/commands.h) and the dispatcher: from a
 * command's text to its handler, with the checks the table declares.
 *
 * session_mgr_handle() is the manager's front door: the per-user throttle,
 * the caller's name cleaned, a private chat's command routed to the
 * caller's one game, the text checked (size, UTF-8), the room's session
 * found, a stale click refused; then the table decides: which command,
 * whether the session's state allows it, whether the caller may use it
 * (their seat), whether a pause stops it; and only then its handler runs.
 *
 * A new command is one entry in the table below and one handler in the file
 * of its subject (bot/session_int.h lists them).  This file must not know
 * what a command does: no game rules, no commits.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bot/commands.h"
#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

/* A table text in both languages (tests/lint/translations.py checks the
 * pairs as it checks L()). */
#define TR(en, es) { (en), (es) }

#define USAGE_WIDTH 26		/* help lines: the usage, padded, then the text */

/* ---- the table ---- */

static void cmd_group(const struct cmd_ctx *x);

static const struct adapter_arg new_args[] = {
	{ "game", "juego", TR("The game to play", "El juego"), ADAPTER_ARG_GAME,
	  ADAPTER_ARG_REQUIRED, 0, 0, 0 },
	{ "options", "opciones", TR("Variants, separated by spaces (e.g. nofunctions)",
				    "Variantes, separadas por espacios (p. ej. nofunctions)"),
	  ADAPTER_ARG_OPTIONS, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg addbot_args[] = {
	{ "count", "cantidad", TR("How many AI players (default: fill the seats)",
				  "Cuántos jugadores IA (por defecto: llenar los asientos)"),
	  ADAPTER_ARG_INT, 0, 1, GAME_MAX_SEATS, 10 },
	{ 0 }
};

static const struct adapter_arg settings_args[] = {
	{ "key", "clave", TR("locale, dm, remind, timeout, ontimeout, ai or board",
			     "locale, dm, remind, timeout, ontimeout, ai o board"),
	  ADAPTER_ARG_WORD, 0, 0, 0, 0 },
	{ "value", "valor", TR("The new value", "El nuevo valor"), ADAPTER_ARG_WORD, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg web_args[] = {
	{ "action", "acción", TR("on, off, or reset (a new link; the old one stops working)",
				 "on, off o reset (un enlace nuevo; el anterior deja de funcionar)"),
	  ADAPTER_ARG_WORD, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg kick_args[] = {
	{ "user", "jugador", TR("The idle player to replace by an AI",
				"El jugador inactivo que pasa a ser una IA"),
	  ADAPTER_ARG_USER, ADAPTER_ARG_REQUIRED, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg rules_args[] = {
	{ "game", "juego", TR("The game", "El juego"), ADAPTER_ARG_GAME, ADAPTER_ARG_REQUIRED,
	  0, 0, 0 },
	{ "topic", "tema", TR("A rules topic", "Un tema de las reglas"), ADAPTER_ARG_TEXT, 0,
	  0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg card_args[] = {
	{ "name", "nombre", TR("The card's name", "El nombre de la carta"), ADAPTER_ARG_TEXT,
	  ADAPTER_ARG_REQUIRED, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg play_args[] = {
	{ "move", "jugada", TR("One of your legal moves", "Una de tus jugadas legales"),
	  ADAPTER_ARG_TEXT, ADAPTER_ARG_REQUIRED | ADAPTER_ARG_MOVES, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg log_args[] = {
	/* first: `log #<id> [n|all]` (cmd_log_any) */
	{ "game", "partida", TR("An earlier game's number, from `history`",
				"El número de una partida anterior, de `history`"),
	  ADAPTER_ARG_INT, ADAPTER_ARG_HASH, 1, INT_MAX, 0 },
	{ "count", "cantidad", TR("How many lines (default 10)", "Cuántas líneas (por defecto 10)"),
	  ADAPTER_ARG_INT, 0, 1, 500, 100 },
	{ "all", "todo", TR("The whole game, sent to you as a file",
			    "La partida entera, enviada a ti como archivo"),
	  ADAPTER_ARG_FLAG, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg stats_args[] = {
	{ "about", "sobre", TR("A player (or ai basic, ai strong) and a game; or hide, show, forget",
			       "Un jugador (o ai basic, ai strong) y un juego; o hide, show, forget"),
	  ADAPTER_ARG_TEXT, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg leaderboard_args[] = {
	{ "game", "juego", TR("One game (default: every game)", "Un juego (por defecto: todos)"),
	  ADAPTER_ARG_GAME, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg history_args[] = {
	{ "count", "cantidad", TR("How many games (default 5)", "Cuántas partidas (por defecto 5)"),
	  ADAPTER_ARG_INT, 0, 1, 20, 0 },
	{ 0 }
};

static const struct adapter_arg board_args[] = {
	{ "form", "forma", TR("text (to you alone) or image", "text (solo para ti) o image"),
	  ADAPTER_ARG_WORD, 0, 0, 0, 0 },
	{ 0 }
};

static const struct adapter_arg help_args[] = {
	{ "topic", "tema", TR("A help topic", "Un tema de ayuda"), ADAPTER_ARG_TEXT, 0, 0, 0, 0 },
	{ 0 }
};

#define PLAYED (CMD_S_ACTIVE | CMD_S_OVER)	/* a game with a board */

static const struct cmd_def table[] = {
	{ .pub = { "game", "partida", TR("Create, join and manage games",
					  "Crea, únete y gestiona partidas"),
		   NULL, ADAPTER_COMMAND_GROUP },
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .flags = CMD_PRIVATE, .run = cmd_group },
	{ .pub = { "game new", "nueva", TR("Open a lobby for a new game",
					   "Abre una sala para una partida nueva"), new_args },
	  .usage = TR("game new <game> [options]", "game new <juego> [opciones]"),
	  .help = TR("open a game here", "abre una partida aquí"),
	  .states = CMD_S_NONE | CMD_S_OVER, .refusal = CMD_ALREADY_OPEN, .who = CMD_ANYONE,
	  .run = cmd_game_new },
	{ .pub = { "game join", "unirse", TR("Take a seat before the start",
					     "Ocupa un asiento antes de empezar") },
	  .usage = { "game join | game leave" },
	  .help = TR("take or give up a seat before the start",
		     "sentarse o dejar el asiento antes de empezar"),
	  .states = CMD_S_LOBBY, .refusal = CMD_NO_LOBBY, .who = CMD_UNSEATED,
	  .not_allowed = TR("You already have a seat.", "Ya tienes asiento."),
	  .run = cmd_game_join },
	{ .pub = { "game leave", "salir", TR("Give up your seat before the start",
					     "Deja tu asiento antes de empezar") },
	  .flags = CMD_HELP_SHARED,
	  .states = CMD_S_LOBBY, .refusal = CMD_SEATS_FIXED, .who = CMD_SEATED,
	  .not_allowed = TR("You have no seat here.", "No tienes asiento aquí."),
	  .run = cmd_game_leave },
	{ .pub = { "game addbot", "añadirbot", TR("Fill seats with AI players",
						  "Llena asientos con jugadores IA"),
		   addbot_args },
	  .usage = { "game addbot [n]" },
	  .help = TR("add AI players", "añade jugadores IA"),
	  .states = CMD_S_LOBBY, .refusal = CMD_NO_LOBBY, .who = CMD_SEATED,
	  .not_allowed = TR("Only a seated player can add AI players.",
			    "Solo un jugador sentado puede añadir jugadores IA."),
	  .run = cmd_game_addbot },
	{ .pub = { "game start", "empezar", TR("Start the game", "Empieza la partida") },
	  .usage = { "game start" },
	  .help = TR("start the game", "empieza la partida"),
	  .states = CMD_S_LOBBY, .refusal = CMD_NO_LOBBY, .who = CMD_SEATED,
	  .not_allowed = TR("Only a seated player can start the game.",
			    "Solo un jugador sentado puede empezar la partida."),
	  .run = cmd_game_start },
	{ .pub = { "game status", "estado", TR("Lobby or game summary, whose turn",
					       "Resumen de la sala o la partida, a quién le toca") },
	  .usage = { "game status" },
	  .help = TR("lobby or game summary", "resumen de la sala o de la partida"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE,
	  .run = cmd_game_status },
	{ .pub = { "game abort", "abortar", TR("End the game with no winner",
					       "Termina la partida sin ganador") },
	  .usage = { "game abort" },
	  .help = TR("end the game (creator, or a majority)",
		     "termina la partida (creador, o mayoría)"),
	  .states = CMD_S_LOBBY | CMD_S_ACTIVE, .refusal = CMD_NOT_OPEN,
	  .who = CMD_CREATOR_OR_MAJORITY,
	  .not_allowed = TR("Only the players seated in this game can abort it: its creator alone, "
			    "or more than half of the seated players.",
			    "Solo los jugadores sentados en esta partida pueden cancelarla: su "
			    "creador, o más de la mitad de los jugadores sentados."),
	  .run = cmd_game_abort },
	{ .pub = { "game settings", "ajustes", TR("Show or change the room's settings",
						  "Muestra o cambia los ajustes de la sala"),
		   settings_args },
	  .usage = TR("game settings [key value]", "game settings [clave valor]"),
	  .help = { "locale, dm, remind, timeout, ontimeout, ai, board" },	/* the keys, as typed */
	  .states = CMD_S_LOBBY | CMD_S_ACTIVE, .refusal = CMD_NO_ROOM_GAME, .who = CMD_SEATED,
	  .run = cmd_game_settings },
	{ .pub = { "game web", "web", TR("The game's web page: its link, on, off or a new link",
					  "La página web de la partida: su enlace, on, off o un enlace "
					  "nuevo"),
		   web_args },
	  .usage = { "game web [on|off|reset]" },
	  .help = TR("the game's web page: its link; on, off, a new link (majority)",
		     "la página web de la partida: su enlace; on, off, uno nuevo (mayoría)"),
	  .states = CMD_S_LOBBY | PLAYED, .refusal = CMD_NO_ROOM_GAME, .who = CMD_SEATED,
	  .run = cmd_game_web },
	{ .pub = { "game pause", "pausar", TR("Pause the game (no reminders, no timeouts)",
					      "Pausa la partida (sin recordatorios ni límites)") },
	  .usage = { "game pause | game resume" },
	  .help = TR("stop and restart the clock (holidays)",
		     "para y reanuda el reloj (vacaciones)"),
	  .states = CMD_S_ACTIVE, .refusal = CMD_NO_GAME, .who = CMD_SEATED,
	  .run = cmd_game_pause },
	{ .pub = { "game resume", "reanudar", TR("Resume a paused game",
						 "Reanuda una partida en pausa") },
	  .flags = CMD_HELP_SHARED,
	  .states = CMD_S_ACTIVE, .refusal = CMD_NO_GAME, .who = CMD_SEATED,
	  .run = cmd_game_resume },
	{ .pub = { "game kick", "expulsar", TR("Replace an idle player by an AI",
					       "Sustituye a un jugador inactivo por una IA"),
		   kick_args },
	  .usage = TR("game kick <player>", "game kick <jugador>"),
	  .help = TR("the AI replaces an idle player (majority)",
		     "la IA sustituye a un ausente (mayoría)"),
	  .states = CMD_S_ACTIVE, .refusal = CMD_NO_GAME, .who = CMD_MAJORITY,
	  .flags = CMD_UNPAUSED, .run = cmd_game_kick },
	{ .pub = { "mygames", "mispartidas", TR("Your games, and where it is your turn",
						"Tus partidas, y en cuáles te toca") },
	  .usage = { "mygames" },
	  .help = TR("your games and where it is your turn", "tus partidas y dónde te toca"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .flags = CMD_PRIVATE,
	  .run = cmd_mygames },
	{ .pub = { "undo", "deshacer", TR("Take back your last decision",
					  "Deshaz tu última decisión") },
	  .usage = { "undo" },
	  .help = TR("take back your last decision", "deshace tu última decisión"),
	  .states = CMD_S_ACTIVE, .refusal = CMD_NO_GAME, .who = CMD_SEATED,
	  .flags = CMD_UNPAUSED, .run = cmd_undo },
	{ .pub = { "rematch", "revancha", TR("Play the finished game again: a new lobby",
					     "Repite la partida terminada: una sala nueva") },
	  .usage = { "rematch" },
	  .help = TR("the same game again; its players are pinged",
		     "la misma partida otra vez; se avisa a sus jugadores"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .run = cmd_rematch },
	{ .pub = { "rules", "reglas", TR("A summary of a game's rules",
					 "Un resumen de las reglas de un juego"), rules_args },
	  .usage = TR("rules <game> [topic]", "rules <juego> [tema]"),
	  .help = TR("rule summaries", "resúmenes de reglas"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .flags = CMD_PRIVATE,
	  .run = cmd_rules },
	{ .pub = { "card", "carta", TR("A card's text", "El texto de una carta"), card_args },
	  .usage = TR("card [game] <name>", "card [juego] <nombre>"),
	  .help = TR("a card's text", "el texto de una carta"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .flags = CMD_PRIVATE,
	  .run = cmd_card },
	{ .pub = { "moves", "jugadas", TR("List your legal moves (privately)",
					  "Lista tus jugadas legales (en privado)") },
	  .usage = { "moves" },
	  .help = TR("your legal moves now (private)", "tus jugadas legales ahora (privado)"),
	  .states = CMD_S_ACTIVE, .refusal = CMD_NO_GAME, .who = CMD_SEATED,
	  .flags = CMD_PRIVATE, .run = cmd_moves },
	{ .pub = { "play", "jugar", TR("Make one decision in your game",
				       "Toma una decisión en tu partida"), play_args },
	  .usage = TR("play <move>", "play <jugada>"),
	  .help = TR("make a decision (id, label, prefix or number)",
		     "toma una decisión (id, texto, prefijo o número)"),
	  .states = CMD_S_ACTIVE, .refusal = CMD_NO_GAME, .who = CMD_AWAITED,
	  .flags = CMD_UNPAUSED, .run = cmd_play },
	{ .pub = { "hand", "mano", TR("Your private view of the game",
				      "Tu vista privada de la partida") },
	  .usage = { "hand" },
	  .help = TR("your private view", "tu vista privada"),
	  .states = PLAYED, .refusal = CMD_NO_GAME, .who = CMD_SEATED,
	  .flags = CMD_PRIVATE, .run = cmd_hand },
	{ .pub = { "board", "tablero", TR("Post the public board again",
					  "Vuelve a publicar el tablero"), board_args },
	  .usage = { "board [text|image]" },
	  .help = TR("show the board; text: its text, to you alone",
		     "muestra el tablero; text: su texto, solo para ti"),
	  .states = PLAYED, .refusal = CMD_NO_GAME, .who = CMD_ANYONE,
	  .run = cmd_board },
	{ .pub = { "log", "registro", TR("The last lines of the game log",
					 "Las últimas líneas del registro de la partida"),
		   log_args },
	  .usage = { "log [n] | log all" },
	  .help = TR("the log since your move, or n lines; all, privately",
		     "el registro desde tu jugada, o n líneas; todo, en privado"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE,	/* `log #<id>` anywhere: cmd_log_any */
	  .run = cmd_log_any },
	{ .pub = { "stats", "estadisticas", TR("Games, wins and rating of a player",
					       "Partidas, victorias y nivel de un jugador"), stats_args },
	  .usage = TR("stats [player] [game]", "stats [jugador] [juego]"),
	  .help = TR("games, wins, rating (private); hide, show, forget",
		     "partidas, victorias, nivel (privado); hide, show, forget"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .flags = CMD_PRIVATE,
	  .run = cmd_stats },
	{ .pub = { "leaderboard", "clasificacion", TR("The best players by rating",
						      "Los mejores jugadores por nivel"),
		   leaderboard_args },
	  .usage = TR("leaderboard [game]", "leaderboard [juego]"),
	  .help = TR("the best here and on the platform", "los mejores aquí y en la plataforma"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE,
	  .run = cmd_leaderboard },
	{ .pub = { "history", "historial", TR("The last finished games in this room",
					      "Las últimas partidas terminadas en esta sala"),
		   history_args },
	  .usage = { "history [n]" },
	  .help = TR("finished games here; `log #id` reads one",
		     "partidas terminadas aquí; `log #id` lee una"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE,
	  .run = cmd_history },
	{ .pub = { "help", "ayuda", TR("Help on the bot's commands",
				       "Ayuda sobre los comandos del bot"), help_args },
	  .usage = TR("help [game]", "help [juego]"),
	  .help = TR("this text; a game's rules", "este texto; las reglas de un juego"),
	  .states = CMD_S_ANY, .who = CMD_ANYONE, .flags = CMD_PRIVATE,
	  .run = cmd_help },
	{ .pub = { NULL } }
};

#define NCOMMANDS (sizeof(table) / sizeof(table[0]) - 1)

const struct cmd_def *commands_all(void)
{
	return table;
}

const struct adapter_command *const *commands_for_adapters(void)
{
	/* filled once from the constant table (pub is each entry's first
	 * member, but the entries are larger than it: a list of pointers) */
	static const struct adapter_command *list[NCOMMANDS + 1];
	size_t i;

	if (!list[0])
		for (i = 0; i < NCOMMANDS; i++)
			list[i] = &table[i].pub;
	return list;
}

const struct adapter_arg *commands_arg(const struct cmd_def *d, const char *name)
{
	const struct adapter_arg *arg;

	for (arg = d->pub.args; arg && arg->name; arg++)
		if (!strcmp(arg->name, name))
			return arg;
	return NULL;
}

static const char *text_of(const struct adapter_text *t, enum locale loc)
{
	return loc == LOC_ES && t->es ? t->es : t->en;
}

void commands_help(enum locale loc, struct buf *out)
{
	const struct cmd_def *d;
	int first = 1;

	for (d = table; d->pub.words; d++) {
		if ((d->pub.flags & ADAPTER_COMMAND_GROUP) || (d->flags & CMD_HELP_SHARED))
			continue;
		buf_printf(out, "%s%-*s %s", first ? "" : "\n", USAGE_WIDTH,
			   text_of(&d->usage, loc), text_of(&d->help, loc));
		first = 0;
	}
}

/* ---- the dispatcher ---- */

/* The command of a group's words, or NULL: entries "<group> <word>". */
static const struct cmd_def *find_in_group(const struct cmd_def *group, const char *word)
{
	size_t n = strlen(group->pub.words);
	const struct cmd_def *d;

	for (d = group + 1; d->pub.words; d++)
		if (!strncmp(d->pub.words, group->pub.words, n) && d->pub.words[n] == ' ' &&
		    text_eq(word, d->pub.words + n + 1))
			return d;
	return NULL;
}

/* The command whose (one) word is word, or NULL.  A typed word never
 * names a group's command on its own ("game_new" is not "game new"). */
static const struct cmd_def *find_top(const char *word)
{
	const struct cmd_def *d;

	for (d = table; d->pub.words; d++)
		if (!strchr(d->pub.words, ' ') && text_eq(word, d->pub.words))
			return d;
	return NULL;
}

/* A group typed alone or with a word that is none of its commands. */
static void cmd_group(const struct cmd_ctx *x)
{
	enum locale loc = x->loc;
	size_t n = strlen(x->def->pub.words);
	struct buf subs = BUF_INIT, msg = BUF_INIT;
	const struct cmd_def *d;

	for (d = x->def + 1; d->pub.words; d++)
		if (!strncmp(d->pub.words, x->def->pub.words, n) && d->pub.words[n] == ' ')
			buf_printf(&subs, "%s%s", subs.len ? ", " : "", d->pub.words + n + 1);
	buf_setf(&msg, L(loc, "Unknown `%s` command. Try: %s.", "Orden `%s` desconocida. Prueba: %s."),
		 x->def->pub.words, buf_str(&subs));
	session_reply_text(x->a, x->cmd, cmd_private(x), buf_str(&msg));
	buf_release(&subs);
	buf_release(&msg);
}

/* The state of s as the table's states name it. */
static unsigned state_of(const struct session *s)
{
	if (!s)
		return CMD_S_NONE;
	switch (s->rec.status) {
	case SESSION_LOBBY:
		return CMD_S_LOBBY;
	case SESSION_ACTIVE:
		return s->st ? CMD_S_ACTIVE : CMD_S_NONE;	/* always has its state */
	case SESSION_FINISHED:
	case SESSION_ABORTED:
		break;
	}
	return s->st ? CMD_S_OVER : CMD_S_NONE;
}

/* The answer to a command the session's state does not allow. */
static void refuse_state(const struct cmd_ctx *x)
{
	enum locale loc = x->loc;
	struct buf msg = BUF_INIT;
	enum cmd_refusal why = x->def->refusal;

	if (why == CMD_SEATS_FIXED && state_of(x->s) != CMD_S_ACTIVE)
		why = CMD_NO_LOBBY;
	switch (why) {
	case CMD_NO_GAME:
		buf_addstr(&msg, L(loc, "No game is being played here.",
				   "Aquí no se está jugando ninguna partida."));
		break;
	case CMD_NO_LOBBY:
		buf_addstr(&msg, L(loc,
			"There is no game waiting for players here. Open one with `game new <game>`.",
			"Aquí no hay ninguna partida esperando jugadores. Abre una con `game new <juego>`."));
		break;
	case CMD_NOT_OPEN:
		buf_addstr(&msg, L(loc, "There is no open game here.",
				   "Aquí no hay ninguna partida abierta."));
		break;
	case CMD_NO_ROOM_GAME:
		buf_addstr(&msg, L(loc, "There is no game here. Start one with `game new <game>`.",
				   "No hay partida aquí. Abre una con `game new <juego>`."));
		break;
	case CMD_ALREADY_OPEN:	/* refused in the lobby or in play: x->s is set */
		buf_setf(&msg, L(loc, "A game of %s is already open here (%s). "
				 "Finish it or `game abort` first.",
				 "Ya hay una partida de %s abierta aquí (%s). "
				 "Termínala o usa `game abort` antes."),
			 x->s->ops->name[loc], lobby_status_word(x->s->rec.status, loc));
		break;
	case CMD_SEATS_FIXED:
		buf_addstr(&msg, L(loc,
			"The game has started: seats can no longer be left. `game abort` ends it.",
			"La partida ya empezó: no se puede dejar el asiento. `game abort` la termina."));
		break;
	}
	session_reply_text(x->a, x->cmd, 1, buf_str(&msg));
	buf_release(&msg);
}

/* Whether who allows the caller; if not, answers why. */
static int allowed(const struct cmd_ctx *x)
{
	const struct cmd_def *d = x->def;
	int ok;

	switch (d->who) {
	case CMD_ANYONE:
		return 1;
	case CMD_UNSEATED:
		ok = x->seat < 0;
		break;
	default:		/* every other kind starts with a seat */
		ok = x->seat >= 0;
		break;
	}
	if (!ok)
		session_reply_text(x->a, x->cmd, 1, d->not_allowed.en ? text_of(&d->not_allowed, x->loc)
				   : L(x->loc, "You are not playing in this game.",
				       "No juegas en esta partida."));
	return ok;
}

/* While a game is paused nothing moves: answers so and returns 1. */
static int refuse_if_paused(const struct cmd_ctx *x)
{
	struct room_settings rs;

	roomset_read(&x->s->rec, &rs);
	if (!rs.paused)
		return 0;
	session_reply_text(x->a, x->cmd, 1, L(x->loc, "The game is paused. `game resume` to go on.",
					      "La partida está en pausa. `game resume` para seguir."));
	return 1;
}

/* The table's checks, in this order: the session's state, the caller's
 * seat, the pause.  1: the command may run; 0: the caller was told why. */
static int checks_pass(const struct cmd_ctx *x)
{
	if (!(x->def->states & state_of(x->s))) {
		refuse_state(x);
		return 0;
	}
	if (!allowed(x))
		return 0;
	return !((x->def->flags & CMD_UNPAUSED) && refuse_if_paused(x));
}

/* From a command's text to its handler (see the top of this file). */
static void handle_once(struct session_mgr *m, struct adapter *a, const struct command *cmd)
{
	struct buf err = BUF_INIT;
	char word[32], sub[32];
	const struct cmd_def *def, *subdef;
	struct cmd_ctx x;
	const char *args;
	struct session *s;
	enum locale loc;

	if (cmd->text_len > COMMAND_MAX_BYTES) {
		cmd_refused(m);
		loc = cmd_loc(m, cmd, NULL);
		session_reply_text(a, cmd, 1, L(loc, "That message is too long for a command.",
						"Ese mensaje es demasiado largo para una orden."));
		return;
	}
	if (!utf8_valid(cmd->text, cmd->text_len) || !utf8_valid(cmd->name, strlen(cmd->name)) ||
	    !utf8_valid(cmd->user, strlen(cmd->user))) {
		cmd_refused(m);
		loc = cmd_loc(m, cmd, NULL);
		session_reply_text(a, cmd, 1, L(loc, "That message is not valid text (UTF-8).",
						"Ese mensaje no es texto válido (UTF-8)."));
		return;
	}
	if (strlen(cmd->platform) >= sizeof(s->rec.platform) ||
	    strlen(cmd->room) >= sizeof(s->rec.room) || strlen(cmd->user) >= 128 ||
	    strlen(cmd->name) >= 128 || !cmd->user[0]) {
		cmd_refused(m);
		loc = cmd_loc(m, cmd, NULL);
		session_reply_text(a, cmd, 1, L(loc, "Your user or room name is too long.",
						"Tu nombre de usuario o de sala es demasiado largo."));
		return;
	}
	s = session_find(m, cmd->platform, cmd->room, &err);
	if (!s && err.len) {
		log_err("loading %s/%s: %s", cmd->platform, cmd->room, buf_str(&err));
		m->outcome = METER_FAILED;
		loc = cmd_loc(m, cmd, NULL);
		session_reply_text(a, cmd, 1, L(loc, "This room's game could not be loaded (an internal error).",
						"No se pudo cargar la partida de esta sala (un error interno)."));
		buf_release(&err);
		return;
	}
	loc = cmd_loc(m, cmd, s);
	if (cmd->expect_session > 0 &&
	    (!s || s->rec.id != cmd->expect_session || s->last_seq != cmd->expect_version ||
	     s->rec.status != SESSION_ACTIVE)) {
		/* a click on an older board: answering it could act on a
		 * position the player no longer sees.  Positions count moves,
		 * so a settings change does not age the board. */
		cmd_refused(m);
		session_reply_text(a, cmd, 1, !s || s->rec.id != cmd->expect_session ||
				   s->rec.status != SESSION_ACTIVE
				   ? L(loc, "That button belongs to a game that is over. Nothing changed.",
				       "Ese botón es de una partida que ya terminó. No ha cambiado nada.")
			   : L(loc, "That board is out of date: the game has moved on, so nothing "
			       "changed. Use the newest board, or `moves`.",
			       "Ese tablero está desfasado: la partida ha avanzado, así que no ha "
			       "cambiado nada. Usa el tablero más reciente, o `moves`."));
		return;
	}
	args = cmd->text;
	text_word(&args, word, sizeof(word));
	def = find_top(word);
	if (!def) {
		cmd_refused(m);
		buf_setf(&err, L(loc, "Unknown command \"%s\". Type `help`.",
				 "Orden desconocida \"%s\". Escribe `help`."), word);
		session_reply_text(a, cmd, 1, buf_str(&err));
		buf_release(&err);
		return;
	}
	if (def->pub.flags & ADAPTER_COMMAND_GROUP) {
		text_word(&args, sub, sizeof(sub));
		if ((subdef = find_in_group(def, sub)))
			def = subdef;	/* else the group answers with its commands */
	}
	x.m = m;
	x.a = a;
	x.cmd = cmd;
	x.def = def;
	x.s = s;
	x.args = args;
	x.loc = loc;
	x.seat = s ? session_seat_of(s, cmd->user) : -1;
	if (checks_pass(&x))
		def->run(&x);
	else
		cmd_refused(m);
	buf_release(&err);
}

/*
 * A command whose commit found the game changed by another process
 * (STORE_CONFLICT: the session is marked stale) runs once more on the
 * game reloaded from the store, its checks included: the first attempt
 * sent nothing (commit before send), so the user sees one answer.  A
 * second conflict is answered "try again" (reply_commit_failed).
 */
static void handle(struct session_mgr *m, struct adapter *a, const struct command *cmd)
{
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		m->conflicted = 0;
		m->may_retry = attempt == 0;
		if (attempt)
			m->retries++;
		handle_once(m, a, cmd);
		if (!m->conflicted)
			break;
	}
	m->may_retry = 0;
	m->conflicted = 0;
}

/* ---- the front door ---- */

struct seated {
	char room[256];
	int n;
};

/* sessions_of_user's callback: the first room, and whether there are more
 * (two are enough to know). */
static int find_seated(void *ctx, const struct session_rec *rec)
{
	struct seated *f = ctx;

	if (!f->n++)
		session_copy_field(f->room, sizeof(f->room), rec->room);
	return f->n > 1;
}

/*
 * The per-user throttle (docs/async.md, "Limits").  Returns 1 when the
 * command must not run: the first refusal of a flood tells the user,
 * privately, to slow down and how long to wait; the later ones are answered
 * only where every command must be answered anyway and the answer costs no
 * message in any room (Discord's interactions: ADAPTER_CAP_PRIVATE_ON_DEMAND);
 * elsewhere that one notice covers them, so a flood cannot make the bot
 * flood back.  Either way a refused command changes nothing, and nobody
 * else's commands are slowed.
 */
static int throttled(struct session_mgr *m, struct adapter *a, const struct command *cmd)
{
	enum throttle_verdict v;
	struct buf msg = BUF_INIT;
	int64_t wait_ms;
	enum locale loc;

	if (!m->throttle.burst || !cmd->platform || !cmd->user)
		return 0;
	v = throttle_take(&m->throttle, cmd->platform, cmd->user, m->now_ms(m->now_ms_ctx),
			  &wait_ms);
	if (v == THROTTLE_OK)
		return 0;
	if (v == THROTTLE_WARN)
		log_info("throttle: %s user %s sends commands too fast; refusing them for %lld ms",
			 cmd->platform, cmd->user, (long long)wait_ms);
	else
		log_debug("throttle: %s user %s: command refused", cmd->platform, cmd->user);
	if (v == THROTTLE_WARN || (a->ops->caps & ADAPTER_CAP_PRIVATE_ON_DEMAND)) {
		loc = cmd_loc(m, cmd, NULL);
		buf_setf(&msg, L(loc,
			"Slow down: you are sending commands faster than the bot takes them "
			"(%u at once, then one every %lld seconds). That command was not run, nor "
			"will the next ones be for %lld seconds.",
			"Más despacio: envías órdenes más rápido de lo que el bot las acepta "
			"(%u seguidas, después una cada %lld segundos). Esa orden no se ejecutó, "
			"ni se ejecutarán las siguientes durante %lld segundos."),
			 m->throttle.burst, (long long)((m->throttle.period_ms + 999) / 1000),
			 (long long)((wait_ms + 999) / 1000));
		session_reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
	}
	return 1;
}

/* The display name the bot may show for cmd's user: the adapter's name
 * cleaned again (util/text.h: no controls, bidi or zero-width characters,
 * one line, 32 characters), else their cleaned user id, else "player". */
static void clean_name(const struct command *cmd, char *out, size_t n)
{
	if (cmd->name && text_clean_name(cmd->name, strlen(cmd->name), out, n))
		return;
	if (cmd->user && text_clean_name(cmd->user, strlen(cmd->user), out, n))
		return;
	snprintf(out, n, "player");
}

static void handle_counted(struct session_mgr *m, struct adapter *a, const struct command *in);

/* Every command is counted by platform and outcome, and timed
 * (util/meters.h). */
void session_mgr_handle(struct session_mgr *m, struct adapter *a, const struct command *in)
{
	uint64_t t0 = uv_hrtime();
	unsigned plat = meters_platform(in->platform);

	m->outcome = METER_ANSWERED;
	handle_counted(m, a, in);
	metric_inc(&met_commands, plat, (unsigned)m->outcome);
	metric_observe(&met_command_seconds, plat, 0, meters_since_us(t0));
}

static void handle_counted(struct session_mgr *m, struct adapter *a, const struct command *in)
{
	struct buf err = BUF_INIT;
	struct command clean, routed;
	const struct command *cmd = &clean;
	char name[sizeof(((struct seat_rec *)0)->name)];
	struct seated f;
	struct session *s;

	m->epoch++;	/* cached games are checked against the store again */
	if (throttled(m, a, in)) {
		m->outcome = METER_THROTTLED;
		return;
	}
	/* names are untrusted text: defence in depth behind the adapters */
	clean = *in;
	clean_name(in, name, sizeof(name));
	clean.name = name;
	m->current = cmd;
	if (cmd->direct && cmd->user && cmd->platform && cmd->room &&
	    !((s = session_find(m, cmd->platform, cmd->room, &err)) &&
	      (s->rec.status == SESSION_LOBBY || s->rec.status == SESSION_ACTIVE))) {
		/* a private chat with the bot: the command is for the player's
		 * game, if there is exactly one */
		memset(&f, 0, sizeof(f));
		buf_reset(&err);
		if (store_sessions_of_user(m->store, cmd->platform, cmd->user, find_seated, &f,
					   &err))
			log_warn("listing games: %s", buf_str(&err));
		if (f.n == 1) {
			routed = *cmd;
			routed.room = f.room;
			routed.direct = 0;
			m->current = &routed;
			handle(m, a, &routed);
			m->current = NULL;
			buf_release(&err);
			return;
		}
		if (f.n > 1) {
			enum locale loc = cmd_loc(m, cmd, NULL);

			cmd_refused(m);
			session_reply_text(a, cmd, 1, L(loc,
				"You play in several rooms: send the command in the game's room "
				"(with the prefix).",
				"Juegas en varias salas: envía la orden en la sala de la partida "
				"(con el prefijo)."));
			m->current = NULL;
			buf_release(&err);
			return;
		}
	}
	buf_release(&err);
	handle(m, a, cmd);
	m->current = NULL;
}
