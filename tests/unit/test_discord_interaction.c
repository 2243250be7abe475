/* adapters/discord/interaction: command definitions, interaction decoding,
 * the custom_id codec and the response builders. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "adapters/discord/interaction.h"
#include "bot/commands.h"
#include "util/text.h"

/* the bot's command table, as the manager hands it to the adapter */
#define CMDS commands_for_adapters()

static const struct discord_game_choice games[] = {
	{ "fortuna", "Fortuna", NULL },
	{ "gtr", "Glory to Rome", "Gloria a Roma" },
	{ "sylla", "Sylla", NULL },
	{ "builders", "Builders", "Constructores" },
	{ NULL, NULL, NULL },
};

/* ---- helpers ---- */

static size_t cps(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Discord's name rule, for the characters we use: lowercase letters
 * (ASCII or UTF-8 like ñ), digits, '-', '_'; 1-32 code points. */
static void check_name(const char *s)
{
	const unsigned char *p;

	assert_non_null(s);
	assert_true(cps(s) >= 1 && cps(s) <= DISCORD_NAME_LEN);
	assert_true(utf8_valid(s, strlen(s)));
	for (p = (const unsigned char *)s; *p; p++)
		assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			    *p == '-' || *p == '_' || *p >= 0x80);
}

static void check_desc(const char *s)
{
	assert_non_null(s);
	assert_true(cps(s) >= 1 && cps(s) <= DISCORD_DESC_LEN);
	assert_true(utf8_valid(s, strlen(s)));
}

/* name, description and their es-ES localisations; with_desc 0: a choice,
 * whose name is free text of 1-100 code points */
static void check_texts(const json_t *o, int with_desc)
{
	const json_t *nl = json_object_get(o, "name_localizations");
	const json_t *dl = json_object_get(o, "description_localizations");

	assert_true(json_is_object(nl));
	if (!with_desc) {
		check_desc(json_string_value(json_object_get(o, "name")));
		check_desc(json_string_value(json_object_get(nl, "es-ES")));
		return;
	}
	check_name(json_string_value(json_object_get(o, "name")));
	check_name(json_string_value(json_object_get(nl, "es-ES")));
	{
		check_desc(json_string_value(json_object_get(o, "description")));
		assert_true(json_is_object(dl));
		check_desc(json_string_value(json_object_get(dl, "es-ES")));
	}
}

static const json_t *find_named(const json_t *a, const char *name)
{
	size_t i;
	const json_t *o;

	json_array_foreach(a, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "name")), name))
			return o;
	return NULL;
}

/* names at one level are unique, in English and in Spanish */
static void check_unique(const json_t *a)
{
	size_t i, j;

	for (i = 0; i < json_array_size(a); i++)
		for (j = i + 1; j < json_array_size(a); j++) {
			const json_t *x = json_array_get(a, i), *y = json_array_get(a, j);

			assert_string_not_equal(json_string_value(json_object_get(x, "name")),
						json_string_value(json_object_get(y, "name")));
			assert_string_not_equal(
				json_string_value(json_object_get(
					json_object_get(x, "name_localizations"), "es-ES")),
				json_string_value(json_object_get(
					json_object_get(y, "name_localizations"), "es-ES")));
		}
}

static void check_options(const json_t *opts)
{
	size_t i;
	const json_t *o;
	int seen_optional = 0;

	assert_true(json_is_array(opts));
	assert_true(json_array_size(opts) <= 25);
	check_unique(opts);
	json_array_foreach(opts, i, o) {
		const json_t *ch = json_object_get(o, "choices");
		json_int_t ty = json_integer_value(json_object_get(o, "type"));
		size_t k;
		const json_t *c;

		check_texts(o, 1);
		if (ty == 1) {
			check_options(json_object_get(o, "options"));
			continue;
		}
		/* required options come first (Discord refuses otherwise) */
		if (json_is_true(json_object_get(o, "required")))
			assert_false(seen_optional);
		else
			seen_optional = 1;
		if (ch) {
			assert_true(json_array_size(ch) <= 25);
			json_array_foreach(ch, k, c) {
				check_texts(c, 0);
				assert_true(cps(json_string_value(json_object_get(c, "name"))) <= 100);
				assert_true(json_is_string(json_object_get(c, "value")));
			}
		}
	}
}

/* ---- commands ---- */

static void test_commands_shape(void **state)
{
	json_t *a = discord_commands_json(CMDS, games);
	static const char *const top[] = {
		"game", "play", "moves", "hand", "board", "log", "undo", "help", "rules",
		"card", "mygames", "rematch", "stats", "leaderboard", "history", NULL
	};
	static const char *const subs[] = {
		"new", "join", "leave", "addbot", "start", "status", "abort", "kick",
		"settings", "web", "pause", "resume", NULL
	};
	const json_t *game, *sub, *opt, *ch, *play;
	size_t i;
	const json_t *o;
	char *dump;

	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 15);
	for (i = 0; top[i]; i++)
		assert_non_null(find_named(a, top[i]));
	check_unique(a);
	json_array_foreach(a, i, o) {
		assert_int_equal(json_integer_value(json_object_get(o, "type")), 1);
		check_texts(o, 1);
		check_options(json_object_get(o, "options"));
	}

	game = find_named(a, "game");
	assert_int_equal(json_array_size(json_object_get(game, "options")), 12);
	for (i = 0; subs[i]; i++) {
		sub = find_named(json_object_get(game, "options"), subs[i]);
		assert_non_null(sub);
		assert_int_equal(json_integer_value(json_object_get(sub, "type")), 1);
	}
	sub = find_named(json_object_get(game, "options"), "new");
	opt = find_named(json_object_get(sub, "options"), "game");
	assert_int_equal(json_integer_value(json_object_get(opt, "type")), 3);
	assert_true(json_is_true(json_object_get(opt, "required")));
	ch = json_object_get(opt, "choices");
	assert_int_equal(json_array_size(ch), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ch, 1), "value")),
			    "gtr");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(json_array_get(ch, 1), "name_localizations"), "es-ES")),
		"Gloria a Roma");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(json_array_get(ch, 0), "name_localizations"), "es-ES")),
		"Fortuna");
	opt = find_named(json_object_get(sub, "options"), "options");
	assert_int_equal(json_integer_value(json_object_get(opt, "type")), 3);
	assert_false(json_is_true(json_object_get(opt, "required")));

	sub = find_named(json_object_get(game, "options"), "addbot");
	opt = find_named(json_object_get(sub, "options"), "count");
	assert_int_equal(json_integer_value(json_object_get(opt, "type")), 4);
	sub = find_named(json_object_get(game, "options"), "kick");
	opt = find_named(json_object_get(sub, "options"), "user");
	assert_int_equal(json_integer_value(json_object_get(opt, "type")), 6);

	play = find_named(a, "play");
	opt = find_named(json_object_get(play, "options"), "move");
	assert_int_equal(json_integer_value(json_object_get(opt, "type")), 3);
	assert_true(json_is_true(json_object_get(opt, "autocomplete")));
	assert_null(json_object_get(opt, "choices"));
	opt = find_named(json_object_get(find_named(a, "log"), "options"), "count");
	assert_int_equal(json_integer_value(json_object_get(opt, "type")), 4);

	/* the whole body stays a sane size and serialises */
	dump = json_dumps(a, JSON_COMPACT);
	assert_non_null(dump);
	assert_true(strlen(dump) < 16000);
	free(dump);
	json_decref(a);

	/* only the games given: one game, or none (then free text) */
	a = discord_commands_json(CMDS, (const struct discord_game_choice[]){
		{ "gtr", "Glory to Rome", NULL }, { NULL, NULL, NULL } });
	opt = find_named(json_object_get(find_named(json_object_get(find_named(a, "game"),
							"options"), "new"), "options"), "game");
	assert_int_equal(json_array_size(json_object_get(opt, "choices")), 1);
	json_decref(a);
	a = discord_commands_json(CMDS, NULL);
	opt = find_named(json_object_get(find_named(a, "rules"), "options"), "game");
	assert_null(json_object_get(opt, "choices"));
	json_decref(a);
}

static void test_option_index(void **state)
{
	assert_int_equal(discord_command_option_index(CMDS, "game", NULL, NULL), 1);
	assert_int_equal(discord_command_option_index(CMDS, "play", NULL, NULL), 0);
	assert_int_equal(discord_command_option_index(CMDS, "game", "new", "game"), 0);
	assert_int_equal(discord_command_option_index(CMDS, "game", "new", "options"), 1);
	assert_int_equal(discord_command_option_index(CMDS, "game", "nope", NULL), -1);
	assert_int_equal(discord_command_option_index(CMDS, "game", NULL, "game"), -1);
	assert_int_equal(discord_command_option_index(CMDS, "play", NULL, "nope"), -1);
	assert_int_equal(discord_command_option_index(CMDS, "nope", NULL, NULL), -1);
	assert_int_equal(discord_command_option_index(CMDS, NULL, NULL, NULL), -1);
}

/* ---- decoding ---- */

#define GUILD_HEAD \
	"{\"id\":\"1200000000000000001\",\"application_id\":\"1100000000000000000\"," \
	"\"token\":\"aW50ZXJhY3Rpb246MTIwMDAw.Zm9v_bar-baz\",\"version\":1," \
	"\"channel_id\":\"900000000000000002\",\"guild_id\":\"800000000000000003\"," \
	"\"locale\":\"es-ES\",\"guild_locale\":\"en-US\",\"app_permissions\":\"0\"," \
	"\"member\":{\"nick\":null,\"roles\":[],\"user\":{\"id\":\"700000000000000004\"," \
	"\"username\":\"ana\",\"global_name\":\"Ana María\",\"discriminator\":\"0\"}},"

#define DM_HEAD \
	"{\"id\":\"1200000000000000009\",\"application_id\":\"1100000000000000000\"," \
	"\"token\":\"dG9rZW4\",\"version\":1,\"channel_id\":\"900000000000000005\"," \
	"\"locale\":\"en-US\",\"context\":1," \
	"\"user\":{\"id\":\"700000000000000006\",\"username\":\"bob\",\"global_name\":null},"

static int decode(const char *json, struct discord_interaction *it, struct buf *err)
{
	return discord_interaction_decode_text(json, strlen(json), CMDS, it, err);
}

static void expect_text(const char *json, const char *text)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	if (decode(json, &it, &err)) {
		print_error("decode: %s\n", buf_str(&err));
		fail();
	}
	assert_int_equal(it.type, DISCORD_INTERACTION_COMMAND);
	assert_string_equal(it.text, text);
	assert_int_equal(it.text_len, strlen(text));
	buf_release(&err);
}

static void expect_fail(const char *json, const char *msg_part)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	assert_int_equal(decode(json, &it, &err), -1);
	if (!strstr(buf_str(&err), msg_part)) {
		print_error("error \"%s\" lacks \"%s\"\n", buf_str(&err), msg_part);
		fail();
	}
	assert_string_equal(it.token, "");	/* nothing half-decoded left */
	buf_release(&err);
}

static void test_decode_guild_command(void **state)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	assert_int_equal(decode(GUILD_HEAD "\"type\":2,\"data\":{\"id\":\"5\",\"name\":\"game\","
				"\"type\":1,\"options\":[{\"name\":\"new\",\"type\":1,\"options\":["
				"{\"name\":\"game\",\"type\":3,\"value\":\"fortuna\"},"
				"{\"name\":\"options\",\"type\":3,\"value\":\"draft\"}]}]}}",
				&it, &err), 0);
	assert_int_equal(it.type, DISCORD_INTERACTION_COMMAND);
	assert_string_equal(it.id, "1200000000000000001");
	assert_string_equal(it.application_id, "1100000000000000000");
	assert_string_equal(it.token, "aW50ZXJhY3Rpb246MTIwMDAw.Zm9v_bar-baz");
	assert_string_equal(it.channel_id, "900000000000000002");
	assert_string_equal(it.guild_id, "800000000000000003");
	assert_string_equal(it.user_id, "700000000000000004");
	assert_string_equal(it.user_name, "Ana María");	/* nick null → global_name */
	assert_string_equal(it.locale, "es-ES");
	assert_string_equal(it.text, "game new fortuna draft");
	buf_release(&err);

	/* a server nick wins */
	assert_int_equal(decode(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"board\"}}",
				&it, &err), 0);
	assert_string_equal(it.text, "board");
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"t\",\"channel_id\":\"3\",\"guild_id\":\"4\","
				"\"member\":{\"nick\":\"Capitana\",\"user\":{\"id\":\"5\","
				"\"username\":\"ana\",\"global_name\":\"Ana\"}},"
				"\"data\":{\"name\":\"hand\"}}", &it, &err), 0);
	assert_string_equal(it.user_name, "Capitana");
	assert_string_equal(it.locale, "");
	buf_release(&err);
}

/* Names are cleaned at the boundary; nothing visible left: the next one,
 * at last the user id. */
static void test_decode_names_cleaned(void **state)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	/* a nick that would forge a line: newline, RLO, zero-width space */
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"t\",\"channel_id\":\"3\",\"guild_id\":\"4\","
				"\"member\":{\"nick\":\"Eve\\n\\u202e**Winner: Eve**\\u200b\\r\","
				"\"user\":{\"id\":\"5\",\"username\":\"eve\"}},"
				"\"data\":{\"name\":\"hand\"}}", &it, &err), 0);
	assert_string_equal(it.user_name, "Eve **Winner: Eve**");
	/* a nick of nothing visible: the display name */
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"t\",\"channel_id\":\"3\",\"guild_id\":\"4\","
				"\"member\":{\"nick\":\"\\u200b\\u202e \\n\","
				"\"user\":{\"id\":\"5\",\"username\":\"eve\","
				"\"global_name\":\"  Eve  \\t Smith \"}},"
				"\"data\":{\"name\":\"hand\"}}", &it, &err), 0);
	assert_string_equal(it.user_name, "Eve Smith");
	/* nothing visible anywhere, or no name at all: the id */
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"t\",\"channel_id\":\"3\","
				"\"user\":{\"id\":\"55\",\"username\":\"\\u2066\\u200d\","
				"\"global_name\":\"\\u00ad\"},\"data\":{\"name\":\"hand\"}}",
				&it, &err), 0);
	assert_string_equal(it.user_name, "55");
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"t\",\"channel_id\":\"3\",\"user\":{\"id\":\"4\"},"
				"\"data\":{\"name\":\"board\"}}", &it, &err), 0);
	assert_string_equal(it.user_name, "4");
	/* long names are cut to TEXT_NAME_MAX_CHARS */
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"t\",\"channel_id\":\"3\",\"user\":{\"id\":\"4\","
				"\"username\":\"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP\"},"
				"\"data\":{\"name\":\"board\"}}", &it, &err), 0);
	assert_int_equal(strlen(it.user_name), TEXT_NAME_MAX_CHARS);
	buf_release(&err);
}

static void test_decode_dm_command(void **state)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	assert_int_equal(decode(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"type\":1,"
				"\"options\":[{\"name\":\"move\",\"type\":3,"
				"\"value\":\"take water\"}]}}", &it, &err), 0);
	assert_string_equal(it.guild_id, "");	/* DM */
	assert_string_equal(it.user_id, "700000000000000006");
	assert_string_equal(it.user_name, "bob");	/* global_name null → username */
	assert_string_equal(it.locale, "en-US");
	assert_string_equal(it.text, "play take water");
	buf_release(&err);
}

static void test_decode_normalisation(void **state)
{
	/* options in definition order, whatever order they arrive in */
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"new\",\"type\":1,\"options\":[{\"name\":\"options\",\"type\":3,\"value\":"
		    "\"nofunctions original-circus\"},{\"name\":\"game\",\"type\":3,"
		    "\"value\":\"gtr\"}]}]}}", "game new gtr nofunctions original-circus");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"new\",\"type\":1,\"options\":[{\"name\":\"game\",\"type\":3,"
		    "\"value\":\"sylla\"}]}]}}", "game new sylla");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"join\",\"type\":1}]}}", "game join");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"leave\",\"type\":1,\"options\":[]}]}}", "game leave");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"addbot\",\"type\":1,\"options\":[{\"name\":\"count\",\"type\":4,"
		    "\"value\":2}]}]}}", "game addbot 2");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"addbot\",\"type\":1}]}}", "game addbot");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"start\",\"type\":1}]}}", "game start");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"status\",\"type\":1}]}}", "game status");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"abort\",\"type\":1}]}}", "game abort");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"kick\",\"type\":1,\"options\":[{\"name\":\"user\",\"type\":6,"
		    "\"value\":\"700000000000000042\"}]}],\"resolved\":{\"users\":{}}}}",
		    "game kick <@700000000000000042>");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"settings\",\"type\":1,\"options\":[{\"name\":\"value\",\"type\":3,"
		    "\"value\":\"es\"},{\"name\":\"key\",\"type\":3,\"value\":\"locale\"}]}]}}",
		    "game settings locale es");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"move\",\"type\":3,\"value\":\"Religión\"}]}}", "play Religión");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"moves\"}}", "moves");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"hand\"}}", "hand");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"log\",\"options\":[{\"name\":"
		    "\"count\",\"type\":4,\"value\":5}]}}", "log 5");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"log\"}}", "log");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"undo\"}}", "undo");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"help\",\"options\":[{\"name\":"
		    "\"topic\",\"type\":3,\"value\":\"moves\"}]}}", "help moves");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"rules\",\"options\":[{\"name\":"
		    "\"topic\",\"type\":3,\"value\":\"legionary\"},{\"name\":\"game\","
		    "\"type\":3,\"value\":\"gtr\"}]}}", "rules gtr legionary");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"card\",\"options\":[{\"name\":"
		    "\"name\",\"type\":3,\"value\":\"Foro\"}]}}", "card Foro");
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"mygames\"}}", "mygames");
	/* an empty string option adds nothing */
	expect_text(GUILD_HEAD "\"type\":2,\"data\":{\"name\":\"help\",\"options\":[{\"name\":"
		    "\"topic\",\"type\":3,\"value\":\"\"}]}}", "help");
}

static void test_decode_autocomplete(void **state)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	assert_int_equal(decode(GUILD_HEAD "\"type\":4,\"data\":{\"name\":\"play\",\"type\":1,"
				"\"options\":[{\"name\":\"move\",\"type\":3,\"value\":\"ta\","
				"\"focused\":true}]}}", &it, &err), 0);
	assert_int_equal(it.type, DISCORD_INTERACTION_AUTOCOMPLETE);
	assert_string_equal(it.text, "play");
	assert_string_equal(it.focused, "move");
	assert_string_equal(it.partial, "ta");
	assert_string_equal(it.user_id, "700000000000000004");

	/* empty so far */
	assert_int_equal(decode(DM_HEAD "\"type\":4,\"data\":{\"name\":\"play\",\"options\":["
				"{\"name\":\"move\",\"type\":3,\"value\":\"\",\"focused\":true}]}}",
				&it, &err), 0);
	assert_string_equal(it.partial, "");
	assert_string_equal(it.guild_id, "");

	/* inside a subcommand; the other, half-typed option is not checked */
	assert_int_equal(decode(DM_HEAD "\"type\":4,\"data\":{\"name\":\"game\",\"options\":["
				"{\"name\":\"new\",\"type\":1,\"options\":[{\"name\":\"game\","
				"\"type\":3,\"value\":\"fort\"},{\"name\":\"options\",\"type\":3,"
				"\"value\":\"dr\",\"focused\":true}]}]}}", &it, &err), 0);
	assert_string_equal(it.text, "game new");
	assert_string_equal(it.focused, "options");
	assert_string_equal(it.partial, "dr");

	/* nothing focused */
	assert_int_equal(decode(DM_HEAD "\"type\":4,\"data\":{\"name\":\"play\",\"options\":["
				"{\"name\":\"move\",\"type\":3,\"value\":\"ta\"}]}}", &it, &err), -1);
	assert_non_null(strstr(buf_str(&err), "focused"));
	buf_release(&err);
}

static void test_decode_component(void **state)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	assert_int_equal(decode(GUILD_HEAD "\"type\":3,\"message\":{\"id\":\"600000000000000007\","
				"\"content\":\"board\"},\"data\":{\"custom_id\":\"t1:hand:12:34\","
				"\"component_type\":2}}", &it, &err), 0);
	assert_int_equal(it.type, DISCORD_INTERACTION_COMPONENT);
	assert_string_equal(it.custom_id, "t1:hand:12:34");
	assert_int_equal(it.component_type, 2);
	assert_string_equal(it.message_id, "600000000000000007");
	assert_int_equal(it.nvalues, 0);
	assert_string_equal(it.text, "");

	assert_int_equal(decode(DM_HEAD "\"type\":3,\"message\":{\"id\":\"6\"},\"data\":{"
				"\"custom_id\":\"t1:play:12:34\",\"component_type\":3,"
				"\"values\":[\"take water\"]}}", &it, &err), 0);
	assert_int_equal(it.component_type, 3);
	assert_int_equal(it.nvalues, 1);
	assert_string_equal(it.values[0], "take water");
	assert_string_equal(it.user_name, "bob");
	buf_release(&err);
}

static void test_decode_ping(void **state)
{
	struct discord_interaction it;
	struct buf err = BUF_INIT;

	assert_int_equal(decode("{\"type\":1,\"id\":\"1\",\"application_id\":\"2\","
				"\"token\":\"abc\",\"version\":1}", &it, &err), 0);
	assert_int_equal(it.type, DISCORD_INTERACTION_PING);
	assert_string_equal(it.user_id, "");
	buf_release(&err);
}

static void test_decode_malformed(void **state)
{
	char big[4096];
	struct discord_interaction it;
	struct buf err = BUF_INIT;
	int n;

	expect_fail("", "bad JSON");
	expect_fail("[1,2]", "not an object");
	expect_fail("{\"type\":2}", "missing id");
	expect_fail("{\"type\":9,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\"}",
		    "type");
	expect_fail("{\"type\":\"2\",\"id\":\"1\"}", "type");
	expect_fail("{\"type\":1,\"id\":\"1\",\"application_id\":\"2\"}", "missing token");
	expect_fail("{\"type\":1,\"id\":1,\"application_id\":\"2\",\"token\":\"t\"}",
		    "id is not a string");
	expect_fail("{\"type\":1,\"id\":\"12a\",\"application_id\":\"2\",\"token\":\"t\"}",
		    "snowflake");
	expect_fail("{\"type\":1,\"id\":\"123456789012345678901\",\"application_id\":\"2\","
		    "\"token\":\"t\"}", "too long");
	expect_fail("{\"type\":1,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"a/../b\"}",
		    "token");
	expect_fail("{\"type\":1,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"\"}",
		    "token");
	/* the same key twice is refused by the parser */
	expect_fail("{\"type\":1,\"id\":\"1\",\"id\":\"3\",\"application_id\":\"2\","
		    "\"token\":\"t\"}", "bad JSON");
	/* commands need a user (with an id: found by the fuzzer), a channel
	 * and data */
	expect_fail("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
		    "\"channel_id\":\"3\",\"user\":{\"id\":\"\"},\"data\":{\"name\":\"board\"}}",
		    "empty user id");
	expect_fail("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
		    "\"channel_id\":\"\",\"user\":{\"id\":\"4\"},\"data\":{\"name\":\"board\"}}",
		    "empty channel_id");
	expect_fail("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
		    "\"channel_id\":\"3\",\"data\":{\"name\":\"board\"}}", "missing user");
	expect_fail("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
		    "\"user\":{\"id\":\"4\",\"username\":\"x\"},\"data\":{\"name\":\"board\"}}",
		    "channel_id");
	expect_fail(DM_HEAD "\"type\":2}", "missing data");
	expect_fail(DM_HEAD "\"type\":2,\"data\":[]}", "missing data");
	expect_fail("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
		    "\"channel_id\":\"3\",\"member\":5,\"data\":{\"name\":\"board\"}}",
		    "member");
	/* unknown or malformed commands and options */
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"rm\"}}", "unknown command");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{}}", "command name");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"game\"}}", "subcommand");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"explode\",\"type\":1}]}}", "unknown subcommand");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"new\",\"type\":3}]}}", "subcommand");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"moev\",\"type\":3,\"value\":\"x\"}]}}", "unknown option");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"move\",\"type\":3,\"value\":\"x\"},{\"name\":\"move\",\"type\":3,"
		    "\"value\":\"y\"}]}}", "twice");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":{}}}",
		    "not an array");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[7]}}",
		    "malformed option");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"move\",\"type\":3,\"value\":7}]}}", "not a string");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"log\",\"options\":[{\"name\":"
		    "\"count\",\"type\":4,\"value\":\"5\"}]}}", "not an integer");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"log\",\"options\":[{\"name\":"
		    "\"count\",\"value\":5}]}}", "no type");
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"game\",\"options\":[{\"name\":"
		    "\"kick\",\"type\":1,\"options\":[{\"name\":\"user\",\"type\":6,"
		    "\"value\":\"@everyone\"}]}]}}", "snowflake");
	/* not UTF-8 text: raw bytes are refused by the parser; NUL and controls by us */
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"move\",\"type\":3,\"value\":\"a\xff\"}]}}", "bad JSON");
	/* \u0000 is refused by the parser; a payload parsed elsewhere with
	 * JSON_ALLOW_NUL is refused by the decoder */
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"move\",\"type\":3,\"value\":\"a\\u0000b\"}]}}", "bad JSON");
	{
		json_t *d = json_loads(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\","
				       "\"options\":[{\"name\":\"move\",\"type\":3,"
				       "\"value\":\"a\\u0000b\"}]}}", JSON_ALLOW_NUL, NULL);

		assert_non_null(d);
		assert_int_equal(discord_interaction_decode(d, CMDS, &it, &err), -1);
		assert_non_null(strstr(buf_str(&err), "UTF-8"));
		json_decref(d);
		d = json_loads("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\","
			       "\"token\":\"t\",\"channel_id\":\"3\",\"user\":{\"id\":\"4\","
			       "\"username\":\"a\\u0000\"},\"data\":{\"name\":\"board\"}}",
			       JSON_ALLOW_NUL, NULL);
		/* a name is cleaned, not refused: the NUL goes */
		assert_int_equal(discord_interaction_decode(d, CMDS, &it, &err), 0);
		assert_string_equal(it.user_name, "a");
		json_decref(d);
	}
	expect_fail(DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\",\"options\":[{\"name\":"
		    "\"move\",\"type\":3,\"value\":\"a\\u0007\"}]}}", "UTF-8");
	assert_int_equal(decode("{\"type\":2,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
				"\"channel_id\":\"3\",\"user\":{\"id\":\"4\",\"username\":\"a\\u001b\"},"
				"\"data\":{\"name\":\"board\"}}", &it, &err), 0);
	assert_string_equal(it.user_name, "a");
	/* over-long fields */
	memset(big, 'a', sizeof(big));
	n = snprintf(big, sizeof(big), DM_HEAD "\"type\":2,\"data\":{\"name\":\"play\","
		     "\"options\":[{\"name\":\"move\",\"type\":3,\"value\":\"%0*d\"}]}}",
		     2100, 0);
	assert_true(n > 0 && (size_t)n < sizeof(big));
	expect_fail(big, "longer than");
	n = snprintf(big, sizeof(big), "{\"type\":1,\"id\":\"1\",\"application_id\":\"2\","
		     "\"token\":\"%0*d\"}", 600, 0);
	expect_fail(big, "token too long");
	n = snprintf(big, sizeof(big), DM_HEAD "\"type\":3,\"data\":{\"custom_id\":\"%0*d\","
		     "\"component_type\":2}}", 101, 0);
	expect_fail(big, "custom_id too long");
	expect_fail(DM_HEAD "\"type\":3,\"data\":{\"component_type\":2}}", "missing custom_id");
	expect_fail(DM_HEAD "\"type\":3,\"data\":{\"custom_id\":\"x\"}}", "component_type");
	expect_fail(DM_HEAD "\"type\":3,\"data\":{\"custom_id\":\"x\",\"component_type\":3,"
		    "\"values\":[1]}}", "not a string");
	expect_fail(DM_HEAD "\"type\":3,\"data\":{\"custom_id\":\"x\",\"component_type\":3,"
		    "\"values\":\"a\"}}", "not an array");
	/* a bare NULL or a JSON null does not crash */
	assert_int_equal(discord_interaction_decode(NULL, CMDS, &it, &err), -1);
	assert_int_equal(discord_interaction_decode_text(NULL, 0, CMDS, &it, NULL), -1);
	buf_release(&err);
}

/* ---- custom_id ---- */

static void test_custom_id(void **state)
{
	char id[DISCORD_CUSTOM_ID_SIZE];
	char arg[200];
	struct discord_custom_id_parts p;
	static const char *const junk[] = {
		"", "t1", "t1:", "t1:hand", "t1:hand:", "t1:hand:12", "t1:hand:12:",
		"t2:hand:12:34", "T1:hand:12:34", "x1:hand:12:34", "t1:Hand:12:34",
		"t1::12:34", "t1:hand:0:34", "t1:hand:-1:34", "t1:hand:012:34",
		"t1:hand:12:034", "t1:hand:12:+3", "t1:hand:12:3a", "t1:hand:12:34:",
		"t1:hand:9223372036854775808:1", "t1:hand:99999999999999999999:1",
		"t1:hand: 12:34", "t1:hand:12:34:a\tb", "t1:hand:12:34:\xc3\xa1",
		"t1:abcdefghijklmnopq:1:1", "button_1", "t1:hand:12:34\n",
		NULL
	};
	size_t i;

	assert_int_equal(discord_custom_id("hand", 12, 34, NULL, id), 0);
	assert_string_equal(id, "t1:hand:12:34");
	assert_int_equal(discord_custom_id_parse(id, &p), 0);
	assert_string_equal(p.kind, "hand");
	assert_int_equal(p.session, 12);
	assert_int_equal(p.version, 34);
	assert_string_equal(p.arg, "");

	assert_int_equal(discord_custom_id("play", INT64_MAX, 0, "lead:patron x", id), 0);
	assert_int_equal(discord_custom_id_parse(id, &p), 0);
	assert_string_equal(p.kind, "play");
	assert_true(p.session == INT64_MAX);
	assert_int_equal(p.version, 0);
	assert_string_equal(p.arg, "lead:patron x");

	/* refused on the way out */
	assert_int_equal(discord_custom_id("Hand", 1, 1, NULL, id), -1);
	assert_string_equal(id, "");
	assert_int_equal(discord_custom_id("", 1, 1, NULL, id), -1);
	assert_int_equal(discord_custom_id(NULL, 1, 1, NULL, id), -1);
	assert_int_equal(discord_custom_id("hand", 0, 1, NULL, id), -1);
	assert_int_equal(discord_custom_id("hand", 1, -1, NULL, id), -1);
	assert_int_equal(discord_custom_id("hand", 1, 1, "", id), -1);
	assert_int_equal(discord_custom_id("hand", 1, 1, "é", id), -1);
	memset(arg, 'x', sizeof(arg));
	arg[100 - strlen("t1:hand:1:1:")] = '\0';	/* exactly 100 */
	assert_int_equal(discord_custom_id("hand", 1, 1, arg, id), 0);
	assert_int_equal(strlen(id), 100);
	assert_int_equal(discord_custom_id_parse(id, &p), 0);
	assert_string_equal(p.arg, arg);
	arg[strlen(arg)] = 'x';
	arg[101 - strlen("t1:hand:1:1:")] = '\0';	/* 101 */
	assert_int_equal(discord_custom_id("hand", 1, 1, arg, id), -1);
	assert_string_equal(id, "");

	/* refused on the way in */
	for (i = 0; junk[i]; i++) {
		if (discord_custom_id_parse(junk[i], &p) != -1) {
			print_error("accepted \"%s\"\n", junk[i]);
			fail();
		}
		assert_int_equal(p.session, 0);
	}
	assert_int_equal(discord_custom_id_parse(NULL, &p), -1);
	memset(arg, '1', sizeof(arg));
	memcpy(arg, "t1:hand:1:", 10);
	arg[150] = '\0';
	assert_int_equal(discord_custom_id_parse(arg, &p), -1);	/* > 100 bytes */
}

/* ---- responses ---- */

static void test_response_message(void **state)
{
	json_t *r, *am, *comp;
	const json_t *data;

	r = discord_response_message("hola", 1, NULL, NULL);
	assert_int_equal(json_integer_value(json_object_get(r, "type")), 4);
	data = json_object_get(r, "data");
	assert_string_equal(json_string_value(json_object_get(data, "content")), "hola");
	assert_int_equal(json_integer_value(json_object_get(data, "flags")), 64);
	assert_int_equal(json_array_size(json_object_get(json_object_get(data,
				"allowed_mentions"), "parse")), 0);
	assert_null(json_object_get(data, "components"));
	json_decref(r);

	am = json_pack("{s:[], s:[s]}", "parse", "users", "700000000000000004");
	comp = discord_board_components(1, 2, 0);
	r = discord_response_message("<@700000000000000004>, your turn", 0, am, comp);
	data = json_object_get(r, "data");
	assert_null(json_object_get(data, "flags"));
	assert_ptr_equal(json_object_get(data, "allowed_mentions"), am);	/* borrowed */
	assert_ptr_equal(json_object_get(data, "components"), comp);
	json_decref(r);
	assert_int_equal(am->refcount, 1);
	json_decref(am);
	json_decref(comp);

	r = discord_response_deferred(1);
	assert_int_equal(json_integer_value(json_object_get(r, "type")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "data"),
							    "flags")), 64);
	json_decref(r);
	r = discord_response_deferred(0);
	assert_int_equal(json_integer_value(json_object_get(r, "type")), 5);
	assert_null(json_object_get(json_object_get(r, "data"), "flags"));
	json_decref(r);
}

static void test_response_autocomplete(void **state)
{
	struct discord_choice c[40];
	char names[40][16], longname[400];
	json_t *r;
	const json_t *a, *o;
	size_t i;

	for (i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "move %zu", i);
		c[i].name = names[i];
		c[i].value = names[i];
	}
	r = discord_response_autocomplete(c, 40);
	assert_int_equal(json_integer_value(json_object_get(r, "type")), 8);
	a = json_object_get(json_object_get(r, "data"), "choices");
	assert_int_equal(json_array_size(a), 25);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 24), "value")),
			    "move 24");
	json_decref(r);

	/* names truncated to 100 code points, at a code point boundary */
	longname[0] = '\0';
	for (i = 0; i < 120; i++)
		memcpy(longname + 2 * i, "ñ", 3);
	c[0].name = longname;
	c[0].value = "n";
	c[1].name = NULL;	/* the value stands in */
	c[1].value = "take water";
	c[2].name = "bad";
	c[2].value = "";	/* skipped */
	c[3].name = "bad";
	c[3].value = longname;	/* > 100: skipped */
	c[4].name = "\xff";	/* not UTF-8: skipped */
	c[4].value = "x";
	r = discord_response_autocomplete(c, 5);
	a = json_object_get(json_object_get(r, "data"), "choices");
	assert_int_equal(json_array_size(a), 2);
	o = json_array_get(a, 0);
	assert_int_equal(cps(json_string_value(json_object_get(o, "name"))), 100);
	assert_int_equal(strlen(json_string_value(json_object_get(o, "name"))), 200);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 1), "name")),
			    "take water");
	json_decref(r);

	r = discord_response_autocomplete(NULL, 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "data"),
							 "choices")), 0);
	json_decref(r);
}

/* A finished game's last board: the Rematch button alone, naming the
 * game; Spanish label; out of range: none. */
static void test_rematch_components(void **state)
{
	struct discord_custom_id_parts p;
	json_t *rows;
	const json_t *comps, *b;

	rows = discord_rematch_components(42, 0);
	assert_int_equal(json_array_size(rows), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "type")), 1);
	comps = json_object_get(json_array_get(rows, 0), "components");
	assert_int_equal(json_array_size(comps), 1);
	b = json_array_get(comps, 0);
	assert_int_equal(json_integer_value(json_object_get(b, "type")), 2);
	assert_string_equal(json_string_value(json_object_get(b, "label")), "Rematch");
	assert_string_equal(json_string_value(json_object_get(b, "custom_id")), "t1:rematch:42:0");
	assert_int_equal(discord_custom_id_parse(json_string_value(json_object_get(b, "custom_id")),
						 &p), 0);
	assert_string_equal(p.kind, "rematch");
	assert_int_equal(p.session, 42);
	assert_int_equal(p.version, 0);
	assert_string_equal(p.arg, "");
	json_decref(rows);
	rows = discord_rematch_components(42, 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(rows, 0), "components"), 0), "label")), "Revancha");
	json_decref(rows);
	assert_null(discord_rematch_components(0, 0));
	assert_null(discord_rematch_components(-3, 1));
}

static void test_board_components(void **state)
{
	struct discord_custom_id_parts p;
	json_t *rows;
	const json_t *row, *b;

	rows = discord_board_components(42, 7, 0);
	assert_int_equal(json_array_size(rows), 1);
	row = json_array_get(rows, 0);
	assert_int_equal(json_integer_value(json_object_get(row, "type")), 1);
	assert_int_equal(json_array_size(json_object_get(row, "components")), 2);
	b = json_array_get(json_object_get(row, "components"), 0);
	assert_int_equal(json_integer_value(json_object_get(b, "type")), 2);
	assert_string_equal(json_string_value(json_object_get(b, "label")), "My hand");
	assert_int_equal(discord_custom_id_parse(json_string_value(json_object_get(b,
				"custom_id")), &p), 0);
	assert_string_equal(p.kind, "hand");
	assert_int_equal(p.session, 42);
	assert_int_equal(p.version, 7);
	b = json_array_get(json_object_get(row, "components"), 1);
	assert_string_equal(json_string_value(json_object_get(b, "label")), "My moves");
	assert_string_equal(json_string_value(json_object_get(b, "custom_id")), "t1:moves:42:7");
	json_decref(rows);
	/* Spanish labels; still the two buttons only */
	rows = discord_board_components(42, 7, 1);
	assert_int_equal(json_array_size(rows), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(rows, 0), "components"), 0), "label")), "Mi mano");
	json_decref(rows);
	/* out of the codec's range */
	assert_null(discord_board_components(0, 7, 0));
	assert_null(discord_board_components(1, -1, 0));
}

/* The private answer's select: the user's moves, named by session, position
 * and user. */
static void test_moves_components(void **state)
{
	struct discord_choice moves[30];
	char vals[30][16];
	struct discord_custom_id_parts p;
	json_t *rows;
	const json_t *sel;
	size_t i;

	for (i = 0; i < 30; i++) {
		snprintf(vals[i], sizeof(vals[i]), "m%zu", i);
		moves[i].name = vals[i];
		moves[i].value = vals[i];
	}
	rows = discord_moves_components(42, 7, "700000000000000004", moves, 25, 1);
	assert_int_equal(json_array_size(rows), 1);
	sel = json_array_get(json_object_get(json_array_get(rows, 0), "components"), 0);
	assert_int_equal(json_integer_value(json_object_get(sel, "type")), 3);
	assert_string_equal(json_string_value(json_object_get(sel, "custom_id")),
			    "t1:play:42:7:700000000000000004");
	assert_int_equal(discord_custom_id_parse(json_string_value(json_object_get(sel,
				"custom_id")), &p), 0);
	assert_string_equal(p.kind, "play");
	assert_string_equal(p.arg, "700000000000000004");
	assert_string_equal(json_string_value(json_object_get(sel, "placeholder")),
			    "Elige una jugada");
	assert_int_equal(json_array_size(json_object_get(sel, "options")), 25);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(sel, "options"), 3), "value")), "m3");
	json_decref(rows);

	/* more than 25, none, no user: no select */
	assert_null(discord_moves_components(42, 7, "5", moves, 26, 0));
	assert_null(discord_moves_components(42, 7, "5", moves, 0, 0));
	assert_null(discord_moves_components(42, 7, "", moves, 3, 0));
	assert_null(discord_moves_components(0, 7, "5", moves, 3, 0));
	/* a repeated value (Discord refuses it) or an over-long one */
	moves[2].value = "m0";
	assert_null(discord_moves_components(42, 7, "5", moves, 3, 0));
	moves[2].value = vals[2];
	moves[0].value = "0123456789012345678901234567890123456789012345678901234567890123456789"
			 "01234567890123456789012345678901";
	assert_null(discord_moves_components(42, 7, "5", moves, 3, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commands_shape),
		cmocka_unit_test(test_option_index),
		cmocka_unit_test(test_decode_guild_command),
		cmocka_unit_test(test_decode_names_cleaned),
		cmocka_unit_test(test_decode_dm_command),
		cmocka_unit_test(test_decode_normalisation),
		cmocka_unit_test(test_decode_autocomplete),
		cmocka_unit_test(test_decode_component),
		cmocka_unit_test(test_decode_ping),
		cmocka_unit_test(test_decode_malformed),
		cmocka_unit_test(test_custom_id),
		cmocka_unit_test(test_response_message),
		cmocka_unit_test(test_response_autocomplete),
		cmocka_unit_test(test_board_components),
		cmocka_unit_test(test_rematch_components),
		cmocka_unit_test(test_moves_components),
	};

	return cmocka_run_group_tests_name("discord_interaction", tests, NULL, NULL);
}
