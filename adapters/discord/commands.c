/*
 * commands: the slash commands, built from the bot's command table
 * (struct adapter.commands, defined once in bot/commands.c): the
 * bulk-overwrite JSON and the decoder's option order both come from it, so
 * that they cannot disagree with each other nor with what the bot answers.
 *
 * A group ("game") becomes one command with a subcommand per command of the
 * group; every argument becomes an option, in the order the text carries
 * them.
 */
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/discord/interaction.h"

/* Application command option types. */
enum opt_type {
	OPT_SUB = 1,
	OPT_STRING = 3,
	OPT_INTEGER = 4,
	OPT_BOOLEAN = 5,	/* decoded as the option's name when true */
	OPT_USER = 6,
};

static int opt_type(enum adapter_arg_type t)
{
	switch (t) {
	case ADAPTER_ARG_INT:
		return OPT_INTEGER;
	case ADAPTER_ARG_FLAG:
		return OPT_BOOLEAN;
	case ADAPTER_ARG_USER:
		return OPT_USER;
	case ADAPTER_ARG_WORD:
	case ADAPTER_ARG_TEXT:
	case ADAPTER_ARG_GAME:
	case ADAPTER_ARG_OPTIONS:
		break;
	}
	return OPT_STRING;
}

/* The last word of a command's words: its name on Discord. */
static const char *last_word(const char *words)
{
	const char *sp = strrchr(words, ' ');

	return sp ? sp + 1 : words;
}

/* Whether c is a command of the group g ("game new" of "game"). */
static int in_group(const struct adapter_command *g, const struct adapter_command *c)
{
	size_t n = strlen(g->words);

	return !strncmp(c->words, g->words, n) && c->words[n] == ' ';
}

static json_t *localised(const char *es)
{
	return json_pack("{s:s}", "es-ES", es);
}

static void set_texts(json_t *o, const char *name, const char *name_es,
		      const struct adapter_text *desc)
{
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "name_localizations", localised(name_es));
	json_object_set_new(o, "description", json_string(desc->en));
	json_object_set_new(o, "description_localizations", localised(desc->es));
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

static json_t *option_json(const struct adapter_arg *s, const struct discord_game_choice *games)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_integer(opt_type(s->type)));
	set_texts(o, s->name, s->name_es, &s->desc);
	json_object_set_new(o, "required", json_boolean(s->flags & ADAPTER_ARG_REQUIRED));
	if (s->flags & ADAPTER_ARG_MOVES)
		json_object_set_new(o, "autocomplete", json_true());
	if (s->type == ADAPTER_ARG_GAME && games && games[0].id)
		json_object_set_new(o, "choices", game_choices(games));
	if (s->type == ADAPTER_ARG_INT && (s->min || s->max)) {
		json_object_set_new(o, "min_value", json_integer(s->min));
		json_object_set_new(o, "max_value", json_integer(s->pick_max ? s->pick_max
								  : s->max));
	}
	return o;
}

static json_t *args_json(const struct adapter_arg *args, const struct discord_game_choice *games)
{
	json_t *a = json_array();

	for (; args && args->name; args++)
		json_array_append_new(a, option_json(args, games));
	return a;
}

/* A group's commands as subcommands; p points at the group in the list. */
static json_t *subs_json(const struct adapter_command *const *p,
			 const struct discord_game_choice *games)
{
	json_t *a = json_array();
	const struct adapter_command *const *q;

	for (q = p + 1; *q; q++) {
		json_t *o;

		if (!in_group(*p, *q))
			continue;
		o = json_object();
		json_object_set_new(o, "type", json_integer(OPT_SUB));
		set_texts(o, last_word((*q)->words), (*q)->name_es, &(*q)->desc);
		json_object_set_new(o, "options", args_json((*q)->args, games));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *discord_commands_json(const struct adapter_command *const *cmds,
			      const struct discord_game_choice *games)
{
	json_t *a = json_array();
	const struct adapter_command *const *p;

	for (p = cmds; p && *p; p++) {
		const struct adapter_command *c = *p;
		json_t *o;

		if (strchr(c->words, ' '))
			continue;	/* a group's: a subcommand of its group */
		o = json_object();
		json_object_set_new(o, "type", json_integer(1));	/* CHAT_INPUT */
		set_texts(o, c->words, c->name_es, &c->desc);
		json_object_set_new(o, "options", c->flags & ADAPTER_COMMAND_GROUP
				    ? subs_json(p, games) : args_json(c->args, games));
		/* guilds and DMs with the bot; installed to guilds */
		json_object_set_new(o, "contexts", json_pack("[i, i]", 0, 1));
		json_object_set_new(o, "integration_types", json_pack("[i]", 0));
		json_array_append_new(a, o);
	}
	return a;
}

/* The command named name (a top-level one), or "<name> <sub>" with sub. */
static const struct adapter_command *find_cmd(const struct adapter_command *const *cmds,
					      const char *name, const char *sub)
{
	size_t n = strlen(name);

	if (strchr(name, ' ') || (sub && strchr(sub, ' ')))
		return NULL;	/* one word each, as Discord names are */
	for (; cmds && *cmds; cmds++) {
		const char *w = (*cmds)->words;

		if (strncmp(w, name, n))
			continue;
		if (!sub && !w[n])
			return *cmds;
		if (sub && w[n] == ' ' && !strcmp(w + n + 1, sub))
			return *cmds;
	}
	return NULL;
}

const struct adapter_arg *discord_command_arg(const struct adapter_command *const *cmds,
					      const char *command, const char *sub, int index)
{
	const struct adapter_command *c = find_cmd(cmds, command, sub);
	int i;

	for (i = 0; c && c->args && c->args[i].name; i++)
		if (i == index)
			return &c->args[i];
	return NULL;
}

int discord_command_option_index(const struct adapter_command *const *cmds,
				 const char *command, const char *sub, const char *option)
{
	const struct adapter_command *c = command ? find_cmd(cmds, command, NULL) : NULL;
	const struct adapter_arg *o;
	int i;

	if (!c)
		return -1;
	if (sub) {
		c = find_cmd(cmds, command, sub);
		if (!c)
			return -1;
	} else if (c->flags & ADAPTER_COMMAND_GROUP) {
		return option ? -1 : 1;
	}
	if (!option)
		return 0;
	for (o = c->args, i = 0; o && o->name; o++, i++)
		if (!strcmp(o->name, option))
			return i;
	return -1;
}
