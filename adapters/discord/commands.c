/*
 * commands: the slash-command definitions (commands.md "Discord
 * specifics") as one static table, from which both the bulk-overwrite JSON
 * and the decoder's option order come, so that they cannot disagree.
 */
#include <string.h>

#include "adapters/discord/interaction.h"

/* Application command option types. */
enum opt_type {
	OPT_SUB = 1,
	OPT_STRING = 3,
	OPT_INTEGER = 4,
	OPT_BOOLEAN = 5,	/* decoded as the option's name when true */
	OPT_USER = 6,
};

enum opt_flags {
	OPT_REQUIRED = 1 << 0,
	OPT_AUTOCOMPLETE = 1 << 1,
	OPT_GAMES = 1 << 2,	/* choices from the game list */
};

struct opt_spec {
	const char *name, *name_es, *desc, *desc_es;
	int type;
	unsigned flags;
	int min, max;		/* integers; both 0: no bounds */
};

struct cmd_spec {
	const char *name, *name_es, *desc, *desc_es;
	const struct opt_spec *opts;	/* ends with name NULL; or NULL */
	const struct cmd_spec *subs;	/* ends with name NULL; or NULL */
};

#define END { 0 }

static const struct opt_spec new_opts[] = {
	{ "game", "juego", "The game to play", "El juego", OPT_STRING,
	  OPT_REQUIRED | OPT_GAMES, 0, 0 },
	{ "options", "opciones", "Variants, separated by spaces (e.g. nofunctions)",
	  "Variantes, separadas por espacios (p. ej. nofunctions)", OPT_STRING, 0, 0, 0 },
	END
};

static const struct opt_spec addbot_opts[] = {
	{ "count", "cantidad", "How many AI players (default: fill the seats)",
	  "Cuántos jugadores IA (por defecto: llenar los asientos)", OPT_INTEGER, 0, 1, 10 },
	END
};

static const struct opt_spec kick_opts[] = {
	{ "user", "jugador", "The idle player to replace by an AI",
	  "El jugador inactivo que pasa a ser una IA", OPT_USER, OPT_REQUIRED, 0, 0 },
	END
};

static const struct opt_spec settings_opts[] = {
	{ "key", "clave", "locale, dm, remind, timeout, ontimeout or ai",
	  "locale, dm, remind, timeout, ontimeout o ai", OPT_STRING, 0, 0, 0 },
	{ "value", "valor", "The new value", "El nuevo valor", OPT_STRING, 0, 0, 0 },
	END
};

static const struct cmd_spec game_subs[] = {
	{ "new", "nueva", "Open a lobby for a new game", "Abre una sala para una partida nueva",
	  new_opts, NULL },
	{ "join", "unirse", "Take a seat before the start", "Ocupa un asiento antes de empezar",
	  NULL, NULL },
	{ "leave", "salir", "Give up your seat before the start",
	  "Deja tu asiento antes de empezar", NULL, NULL },
	{ "addbot", "añadirbot", "Fill seats with AI players", "Llena asientos con jugadores IA",
	  addbot_opts, NULL },
	{ "start", "empezar", "Start the game", "Empieza la partida", NULL, NULL },
	{ "status", "estado", "Lobby or game summary, whose turn",
	  "Resumen de la sala o la partida, a quién le toca", NULL, NULL },
	{ "abort", "abortar", "End the game with no winner", "Termina la partida sin ganador",
	  NULL, NULL },
	{ "kick", "expulsar", "Replace an idle player by an AI",
	  "Sustituye a un jugador inactivo por una IA", kick_opts, NULL },
	{ "settings", "ajustes", "Show or change the room's settings",
	  "Muestra o cambia los ajustes de la sala", settings_opts, NULL },
	{ "pause", "pausar", "Pause the game (no reminders, no timeouts)",
	  "Pausa la partida (sin recordatorios ni límites)", NULL, NULL },
	{ "resume", "reanudar", "Resume a paused game", "Reanuda una partida en pausa",
	  NULL, NULL },
	END
};

static const struct opt_spec play_opts[] = {
	{ "move", "jugada", "One of your legal moves", "Una de tus jugadas legales",
	  OPT_STRING, OPT_REQUIRED | OPT_AUTOCOMPLETE, 0, 0 },
	END
};

static const struct opt_spec log_opts[] = {
	{ "count", "cantidad", "How many lines (default 10)", "Cuántas líneas (por defecto 10)",
	  OPT_INTEGER, 0, 1, 100 },
	{ "all", "todo", "The whole game, sent to you as a file",
	  "La partida entera, enviada a ti como archivo", OPT_BOOLEAN, 0, 0, 0 },
	END
};

static const struct opt_spec help_opts[] = {
	{ "topic", "tema", "A help topic", "Un tema de ayuda", OPT_STRING, 0, 0, 0 },
	END
};

static const struct opt_spec rules_opts[] = {
	{ "game", "juego", "The game", "El juego", OPT_STRING, OPT_REQUIRED | OPT_GAMES, 0, 0 },
	{ "topic", "tema", "A rules topic", "Un tema de las reglas", OPT_STRING, 0, 0, 0 },
	END
};

static const struct opt_spec card_opts[] = {
	{ "name", "nombre", "The card's name", "El nombre de la carta", OPT_STRING,
	  OPT_REQUIRED, 0, 0 },
	END
};

static const struct cmd_spec commands[] = {
	{ "game", "partida", "Create, join and manage games", "Crea, únete y gestiona partidas",
	  NULL, game_subs },
	{ "play", "jugar", "Make one decision in your game", "Toma una decisión en tu partida",
	  play_opts, NULL },
	{ "moves", "jugadas", "List your legal moves (privately)",
	  "Lista tus jugadas legales (en privado)", NULL, NULL },
	{ "hand", "mano", "Your private view of the game", "Tu vista privada de la partida",
	  NULL, NULL },
	{ "board", "tablero", "Post the public board again", "Vuelve a publicar el tablero",
	  NULL, NULL },
	{ "log", "registro", "The last lines of the game log",
	  "Las últimas líneas del registro de la partida", log_opts, NULL },
	{ "undo", "deshacer", "Take back your last decision", "Deshaz tu última decisión",
	  NULL, NULL },
	{ "help", "ayuda", "Help on the bot's commands", "Ayuda sobre los comandos del bot",
	  help_opts, NULL },
	{ "rules", "reglas", "A summary of a game's rules", "Un resumen de las reglas de un juego",
	  rules_opts, NULL },
	{ "card", "carta", "A card's text", "El texto de una carta", card_opts, NULL },
	{ "mygames", "mispartidas", "Your games, and where it is your turn",
	  "Tus partidas, y en cuáles te toca", NULL, NULL },
	END
};

static json_t *localised(const char *es)
{
	return json_pack("{s:s}", "es-ES", es);
}

static void set_texts(json_t *o, const char *name, const char *name_es,
		      const char *desc, const char *desc_es)
{
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "name_localizations", localised(name_es));
	json_object_set_new(o, "description", json_string(desc));
	json_object_set_new(o, "description_localizations", localised(desc_es));
}

static json_t *game_choices(const struct discord_game_choice *games)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; games && games[i].id && i < DISCORD_CHOICES_MAX; i++) {
		const struct discord_game_choice *g = &games[i];
		const char *es = g->name_es ? g->name_es : g->name;

		json_array_append_new(a, json_pack("{s:s, s:o, s:s}", "name", g->name,
						   "name_localizations", localised(es),
						   "value", g->id));
	}
	return a;
}

static json_t *option_json(const struct opt_spec *s, const struct discord_game_choice *games)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_integer(s->type));
	set_texts(o, s->name, s->name_es, s->desc, s->desc_es);
	json_object_set_new(o, "required", json_boolean(s->flags & OPT_REQUIRED));
	if (s->flags & OPT_AUTOCOMPLETE)
		json_object_set_new(o, "autocomplete", json_true());
	if ((s->flags & OPT_GAMES) && games && games[0].id)
		json_object_set_new(o, "choices", game_choices(games));
	if (s->type == OPT_INTEGER && (s->min || s->max)) {
		json_object_set_new(o, "min_value", json_integer(s->min));
		json_object_set_new(o, "max_value", json_integer(s->max));
	}
	return o;
}

static json_t *options_json(const struct opt_spec *opts, const struct cmd_spec *subs,
			    const struct discord_game_choice *games)
{
	json_t *a = json_array();

	for (; opts && opts->name; opts++)
		json_array_append_new(a, option_json(opts, games));
	for (; subs && subs->name; subs++) {
		json_t *o = json_object();

		json_object_set_new(o, "type", json_integer(OPT_SUB));
		set_texts(o, subs->name, subs->name_es, subs->desc, subs->desc_es);
		json_object_set_new(o, "options", options_json(subs->opts, NULL, games));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *discord_commands_json(const struct discord_game_choice *games)
{
	json_t *a = json_array();
	const struct cmd_spec *c;

	for (c = commands; c->name; c++) {
		json_t *o = json_object();

		json_object_set_new(o, "type", json_integer(1));	/* CHAT_INPUT */
		set_texts(o, c->name, c->name_es, c->desc, c->desc_es);
		json_object_set_new(o, "options", options_json(c->opts, c->subs, games));
		/* guilds and DMs with the bot; installed to guilds */
		json_object_set_new(o, "contexts", json_pack("[i, i]", 0, 1));
		json_object_set_new(o, "integration_types", json_pack("[i]", 0));
		json_array_append_new(a, o);
	}
	return a;
}

static const struct cmd_spec *find_cmd(const struct cmd_spec *list, const char *name)
{
	for (; list && list->name; list++)
		if (!strcmp(list->name, name))
			return list;
	return NULL;
}

int discord_command_option_index(const char *command, const char *sub, const char *option)
{
	const struct cmd_spec *c = command ? find_cmd(commands, command) : NULL;
	const struct opt_spec *o;
	int i;

	if (!c)
		return -1;
	if (sub) {
		c = find_cmd(c->subs, sub);
		if (!c)
			return -1;
	} else if (c->subs) {
		return option ? -1 : 1;
	}
	if (!option)
		return 0;
	for (o = c->opts, i = 0; o && o->name; o++, i++)
		if (!strcmp(o->name, option))
			return i;
	return -1;
}
