/*
 * The command table (bot/commands.c): every command has its help line in
 * both languages, a Discord registration, a transcript that uses it; the
 * table's invariants hold; the dispatcher refuses what the table forbids
 * (states, seats, pause) and changes nothing then; the Discord codecs
 * follow whatever table they are given; `help` reads as it always did.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/interaction.h"
#include "bot/commands.h"
#include "bot/session.h"
#include "tests/support/capture.h"
#include "util/text.h"

#define DATA_DIR "tests/data"	/* the unit tests run from the repository */

static const struct discord_game_choice games[] = {
	{ "fortuna", "Fortuna", NULL },
	{ "gtr", "Glory to Rome", "Gloria a Roma" },
	{ NULL, NULL, NULL },
};

static int is_group(const struct cmd_def *d)
{
	return (d->pub.flags & ADAPTER_COMMAND_GROUP) != 0;
}

static int differ(const struct adapter_text *t)
{
	return t->en && t->es && t->en[0] && t->es[0] && strcmp(t->en, t->es);
}

/* The help line of d in loc: its own, or (CMD_HELP_SHARED) the one before. */
static void help_line(const struct cmd_def *d, enum locale loc, struct buf *out)
{
	while (d->flags & CMD_HELP_SHARED)
		d--;
	assert_non_null(d->usage.en);
	assert_non_null(d->help.en);
	buf_reset(out);
	buf_printf(out, "%s  %s", loc == LOC_ES && d->usage.es ? d->usage.es : d->usage.en,
		   loc == LOC_ES && d->help.es ? d->help.es : d->help.en);
}

/* ---- the table ---- */

static void test_every_command_has_help_in_both_languages(void **state)
{
	const struct cmd_def *d;
	struct buf en = BUF_INIT, es = BUF_INIT;
	int n = 0;

	for (d = commands_all(); d->pub.words; d++) {
		if (is_group(d))
			continue;
		n++;
		help_line(d, LOC_EN, &en);
		help_line(d, LOC_ES, &es);
		if (!strcmp(buf_str(&en), buf_str(&es)))
			fail_msg("`%s`: its help line is the same in both languages", d->pub.words);
		/* a shared line names the command it stands for */
		if ((d->flags & CMD_HELP_SHARED) && !strstr(buf_str(&en), d->pub.words))
			fail_msg("`%s` shares a help line that does not name it", d->pub.words);
		assert_true(differ(&d->pub.desc));
	}
	assert_true(n >= 20);
	buf_release(&en);
	buf_release(&es);
}

static void test_table_invariants(void **state)
{
	const struct cmd_def *d, *e;
	const struct adapter_arg *arg;

	for (d = commands_all(); d->pub.words; d++) {
		assert_non_null(d->run);
		assert_true(d->states != 0);
		assert_non_null(d->pub.name_es);
		/* the seat is looked up in a session: none without one */
		if (d->who != CMD_ANYONE && (d->states & CMD_S_NONE))
			fail_msg("`%s` checks a seat where there may be no game", d->pub.words);
		/* the pause lives in a game's settings */
		if ((d->flags & CMD_UNPAUSED) && d->states != CMD_S_ACTIVE)
			fail_msg("`%s` checks the pause outside a game in play", d->pub.words);
		if (d->not_allowed.en)
			assert_true(differ(&d->not_allowed));
		/* "A game of <game> is already open": only where a game is */
		if (d->refusal == CMD_ALREADY_OPEN)
			assert_true(d->states & CMD_S_NONE);
		/* words: one or two, lower case, unique */
		for (e = commands_all(); e < d; e++)
			assert_false(text_eq(e->pub.words, d->pub.words));
		if (strchr(d->pub.words, ' ')) {
			/* a group's command follows its group */
			for (e = d - 1; e >= commands_all() && !is_group(e); e--)
				;
			assert_true(e >= commands_all());
			assert_int_equal(strncmp(d->pub.words, e->pub.words,
						 strlen(e->pub.words)), 0);
			assert_null(strchr(strchr(d->pub.words, ' ') + 1, ' '));
		}
		for (arg = d->pub.args; arg && arg->name; arg++) {
			assert_ptr_equal(commands_arg(d, arg->name), arg);
			assert_non_null(arg->name_es);
			assert_true(differ(&arg->desc));
			if (arg->type == ADAPTER_ARG_INT)
				assert_true(arg->min <= arg->max);
		}
	}
}

/* ---- Discord ---- */

static const json_t *named(const json_t *a, const char *name)
{
	size_t i;
	const json_t *o;

	json_array_foreach(a, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "name")), name))
			return o;
	return NULL;
}

static int discord_type(enum adapter_arg_type t)
{
	return t == ADAPTER_ARG_INT ? 4 : t == ADAPTER_ARG_FLAG ? 5 : t == ADAPTER_ARG_USER ? 6 : 3;
}

static const char *es_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(json_object_get(o, key), "es-ES"));
}

static void test_every_command_registered_on_discord(void **state)
{
	json_t *a = discord_commands_json(commands_for_adapters(), games);
	const struct cmd_def *d;

	for (d = commands_all(); d->pub.words; d++) {
		const char *sp = strchr(d->pub.words, ' ');
		const json_t *o, *opts;
		const struct adapter_arg *arg;
		size_t i = 0;

		if (sp) {
			char group[32];

			snprintf(group, sizeof(group), "%.*s", (int)(sp - d->pub.words),
				 d->pub.words);
			o = named(json_object_get(named(a, group), "options"), sp + 1);
		} else {
			o = named(a, d->pub.words);
		}
		if (!o)
			fail_msg("`%s` is not registered on Discord", d->pub.words);
		assert_string_equal(es_of(o, "name_localizations"), d->pub.name_es);
		assert_string_equal(json_string_value(json_object_get(o, "description")),
				    d->pub.desc.en);
		assert_string_equal(es_of(o, "description_localizations"), d->pub.desc.es);
		if (is_group(d))
			continue;
		opts = json_object_get(o, "options");
		for (arg = d->pub.args; arg && arg->name; arg++, i++) {
			const json_t *opt = json_array_get(opts, i);

			/* in the order the text carries them: the decoder's order */
			assert_non_null(opt);
			assert_string_equal(json_string_value(json_object_get(opt, "name")),
					    arg->name);
			assert_string_equal(es_of(opt, "name_localizations"), arg->name_es);
			assert_int_equal(json_integer_value(json_object_get(opt, "type")),
					 discord_type(arg->type));
			assert_int_equal(json_is_true(json_object_get(opt, "required")),
					 !!(arg->flags & ADAPTER_ARG_REQUIRED));
			assert_int_equal(json_object_get(opt, "choices") != NULL,
					 arg->type == ADAPTER_ARG_GAME);
		}
		assert_int_equal(json_array_size(opts), i);
	}
	json_decref(a);
}

#define TR(en, es) { (en), (es) }

static const struct adapter_arg t_args[] = {
	{ "b", "be", TR("B", "Be"), ADAPTER_ARG_WORD, ADAPTER_ARG_REQUIRED, 0, 0, 0 },
	{ "a", "a_es", TR("A", "A es"), ADAPTER_ARG_INT, 0, 2, 9, 5 },
	{ "f", "efe", TR("F", "Efe"), ADAPTER_ARG_FLAG, 0, 0, 0, 0 },
	{ 0 }
};
static const struct adapter_command t_group = { "gg", "ge", TR("G", "Ge"), NULL,
						ADAPTER_COMMAND_GROUP };
static const struct adapter_command t_sub = { "gg x", "equis", TR("X", "Equis"), t_args, 0 };
static const struct adapter_command t_top = { "zz", "zeta", TR("Z", "Zeta"), t_args, 0 };
static const struct adapter_command *const t_list[] = { &t_group, &t_sub, &t_top, NULL };

#define HEAD \
	"{\"id\":\"1200000000000000009\",\"application_id\":\"1100000000000000000\"," \
	"\"token\":\"dG9rZW4\",\"version\":1,\"channel_id\":\"900000000000000005\"," \
	"\"user\":{\"id\":\"700000000000000006\",\"username\":\"bob\"},\"type\":2,"

static int decode(const char *json, struct discord_interaction *it)
{
	struct buf err = BUF_INIT;
	int r = discord_interaction_decode_text(json, strlen(json), t_list, it, &err);

	buf_release(&err);
	return r;
}

/* The codecs know no command of their own: a table they are given is the
 * one they register and decode. */
static void test_discord_follows_the_table_given(void **state)
{
	struct discord_interaction it;
	json_t *a = discord_commands_json(t_list, games);
	const json_t *o;

	assert_int_equal(json_array_size(a), 2);
	o = named(json_object_get(named(a, "gg"), "options"), "x");
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "type")), 1);
	o = named(json_object_get(o, "options"), "a");
	assert_int_equal(json_integer_value(json_object_get(o, "min_value")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "max_value")), 5);	/* pick_max */
	assert_null(named(a, "game"));
	json_decref(a);

	assert_int_equal(discord_command_option_index(t_list, "zz", NULL, "f"), 2);
	assert_int_equal(discord_command_option_index(t_list, "gg", NULL, NULL), 1);
	assert_int_equal(discord_command_option_index(t_list, "gg", "x", "a"), 1);
	assert_int_equal(discord_command_option_index(t_list, "gg x", NULL, NULL), -1);
	assert_int_equal(discord_command_option_index(t_list, "game", "new", NULL), -1);
	assert_int_equal(discord_command_option_index(NULL, "zz", NULL, NULL), -1);

	/* options in the table's order, whatever order they came in */
	assert_int_equal(decode(HEAD "\"data\":{\"name\":\"zz\",\"options\":["
				"{\"name\":\"f\",\"type\":5,\"value\":true},"
				"{\"name\":\"a\",\"type\":4,\"value\":7},"
				"{\"name\":\"b\",\"type\":3,\"value\":\"hi\"}]}}", &it), 0);
	assert_string_equal(it.text, "zz hi 7 f");
	assert_int_equal(decode(HEAD "\"data\":{\"name\":\"gg\",\"options\":[{\"name\":\"x\","
				"\"type\":1,\"options\":[{\"name\":\"b\",\"type\":3,"
				"\"value\":\"y\"}]}]}}", &it), 0);
	assert_string_equal(it.text, "gg x y");
	/* the bot's own commands are not in this table */
	assert_int_equal(decode(HEAD "\"data\":{\"name\":\"board\"}}", &it), -1);
	assert_int_equal(decode(HEAD "\"data\":{\"name\":\"gg x\"}}", &it), -1);
}

/* ---- transcripts ---- */

/* Whether text starts with the command's words (folded, as dispatched). */
static int starts_with_words(const char *text, const char *words)
{
	char want[32], got[64];

	while (text_word(&words, want, sizeof(want))) {
		if (!text_word(&text, got, sizeof(got)) || !text_eq(got, want))
			return 0;
	}
	return 1;
}

/* The command text of a transcript input line ("> [#room ]user: text"),
 * or NULL. */
static const char *input_text(const char *line)
{
	const char *p;

	if (!strncmp(line, "> ", 2))
		line += 2;
	else if (!strncmp(line, ">* ", 3))
		line = strchr(line + 3, ' ') ? strchr(line + 3, ' ') + 1 : line + 3;
	else
		return NULL;
	if (*line == '#')
		line = strchr(line, ' ') ? strchr(line, ' ') + 1 : line;
	p = strstr(line, ": ");
	return p ? p + 2 : NULL;
}

static void scan_transcript(const char *path, int *used, size_t n)
{
	const struct cmd_def *all = commands_all();
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t i;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *text;

		line[strcspn(line, "\n")] = '\0';
		text = input_text(line);
		for (i = 0; text && i < n; i++)
			used[i] |= starts_with_words(text, all[i].pub.words);
	}
	fclose(f);
}

static void test_every_command_in_a_transcript(void **state)
{
	const struct cmd_def *all = commands_all();
	DIR *top = opendir(DATA_DIR), *sub;
	struct dirent *e, *t;
	char path[1024];	/* two names of up to 255 bytes fit */
	int used[64] = { 0 }, files = 0;
	size_t n = 0, i;

	if (!top)
		fail_msg("cannot open %s (run from the repository's top)", DATA_DIR);
	while (all[n].pub.words)
		n++;
	assert_true(n <= 64);
	while ((e = readdir(top))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", DATA_DIR, e->d_name);
		sub = opendir(path);
		if (!sub)
			continue;
		while ((t = readdir(sub))) {
			size_t len = strlen(t->d_name);

			if (len < 5 || strcmp(t->d_name + len - 4, ".txt"))
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", DATA_DIR, e->d_name, t->d_name);
			scan_transcript(path, used, n);
			files++;
		}
		closedir(sub);
	}
	closedir(top);
	assert_true(files > 0);
	for (i = 0; i < n; i++)
		if (!used[i])
			fail_msg("no transcript in %s uses `%s`", DATA_DIR, all[i].pub.words);
}

/* ---- help ---- */

/* The help block as the bot has always printed it (a transcript-grade
 * check of the lines built from the table). */
static const char help_en[] =
	"game new <game> [options]  open a game here\n"
	"game join | game leave     take or give up a seat before the start\n"
	"game addbot [n]            add AI players\n"
	"game start                 start the game\n"
	"game status                lobby or game summary\n"
	"game abort                 end the game (creator, or a majority)\n"
	"game settings [key value]  locale, dm, remind, timeout, ontimeout, ai, board\n"
	"game web [on|off|reset]    the game's web page: its link; on, off, a new link (majority)\n"
	"game pause | game resume   stop and restart the clock (holidays)\n"
	"game kick <player>         the AI replaces an idle player (majority)\n"
	"mygames                    your games and where it is your turn\n"
	"undo                       take back your last decision\n"
	"rematch                    the same game again; its players are pinged\n"
	"rules <game> [topic]       rule summaries\n"
	"card [game] <name>         a card's text\n"
	"moves                      your legal moves now (private)\n"
	"play <move>                make a decision (id, label, prefix or number)\n"
	"hand                       your private view\n"
	"board [text|image]         show the board; text: its text, to you alone\n"
	"log [n] | log all          the log since your move, or n lines; all, privately\n"
	"stats [player] [game]      games, wins, rating (private); hide, show, forget\n"
	"leaderboard [game]         the best here and on the platform\n"
	"history [n]                finished games here; `log #id` reads one\n"
	"help [game]                this text; a game's rules";

static const char help_es[] =
	"game new <juego> [opciones] abre una partida aquí\n"
	"game join | game leave     sentarse o dejar el asiento antes de empezar\n"
	"game addbot [n]            añade jugadores IA\n"
	"game start                 empieza la partida\n"
	"game status                resumen de la sala o de la partida\n"
	"game abort                 termina la partida (creador, o mayoría)\n"
	"game settings [clave valor] locale, dm, remind, timeout, ontimeout, ai, board\n"
	"game web [on|off|reset]    la página web de la partida: su enlace; on, off, uno nuevo (mayoría)\n"
	"game pause | game resume   para y reanuda el reloj (vacaciones)\n"
	"game kick <jugador>        la IA sustituye a un ausente (mayoría)\n"
	"mygames                    tus partidas y dónde te toca\n"
	"undo                       deshace tu última decisión\n"
	"rematch                    la misma partida otra vez; se avisa a sus jugadores\n"
	"rules <juego> [tema]       resúmenes de reglas\n"
	"card [juego] <nombre>      el texto de una carta\n"
	"moves                      tus jugadas legales ahora (privado)\n"
	"play <jugada>              toma una decisión (id, texto, prefijo o número)\n"
	"hand                       tu vista privada\n"
	"board [text|image]         muestra el tablero; text: su texto, solo para ti\n"
	"log [n] | log all          el registro desde tu jugada, o n líneas; todo, en privado\n"
	"stats [jugador] [juego]    partidas, victorias, nivel (privado); hide, show, forget\n"
	"leaderboard [juego]        los mejores aquí y en la plataforma\n"
	"history [n]                partidas terminadas aquí; `log #id` lee una\n"
	"help [juego]               este texto; las reglas de un juego";

static void test_help_block(void **state)
{
	struct buf b = BUF_INIT;

	commands_help(LOC_EN, &b);
	assert_string_equal(buf_str(&b), help_en);
	buf_reset(&b);
	commands_help(LOC_ES, &b);
	assert_string_equal(buf_str(&b), help_es);
	buf_release(&b);
}

/* ---- the dispatcher keeps the table's checks ---- */

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;
};

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;

	f->store = store_sqlite_open(":memory:", &err);
	assert_non_null(f->store);
	session_mgr_init(&f->mgr, f->store, 7);
	f->cap = capture_new("console");
	f->cap->base.on_command = on_command;
	f->cap->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &f->cap->base);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	store_close(f->store);
	free(f);
	return 0;
}

/* A command's words, with an argument where one is required. */
static void typed(const struct cmd_def *d, char *out, size_t n)
{
	snprintf(out, n, "%s%s", d->pub.words,
		 d->pub.args && (d->pub.args[0].flags & ADAPTER_ARG_REQUIRED) ? " 1" : "");
}

/* The one answer since the last clear: private to user; its text. */
static const char *only_private_answer(struct fixture *f, const char *user)
{
	assert_int_equal(f->cap->n, 1);
	assert_non_null(f->cap->v[0].user);
	assert_string_equal(f->cap->v[0].user, user);
	assert_null(f->cap->v[0].key);		/* a reply, not an outbox message */
	return f->cap->v[0].text;
}

static int64_t version_of(struct fixture *f, const char *room)
{
	struct session_rec rec;
	struct buf err = BUF_INIT;
	int64_t v = -1;

	session_rec_init(&rec);
	if (store_session_current(f->store, "console", room, &rec, &err) > 0)
		v = rec.version;
	session_rec_release(&rec);
	buf_release(&err);
	return v;
}

static void test_states_from_the_table(void **state)
{
	struct fixture *f = *state;
	const struct cmd_def *d;
	char text[64];
	int refused = 0;

	/* an empty room: every command that needs a session is refused,
	 * privately, and nothing is stored */
	for (d = commands_all(); d->pub.words; d++) {
		if (d->states & CMD_S_NONE)
			continue;
		typed(d, text, sizeof(text));
		capture_clear(f->cap);
		capture_cmd(f->cap, "empty", "ana", text);
		only_private_answer(f, "ana");
		assert_int_equal(version_of(f, "empty"), -1);
		refused++;
	}
	assert_true(refused >= 10);
}

static void test_seats_from_the_table(void **state)
{
	struct fixture *f = *state;
	const struct cmd_def *d;
	char text[64];
	int64_t v;
	int checked = 0;

	capture_cmd(f->cap, "r", "ana", "game new fortuna");
	capture_cmd(f->cap, "r", "ben", "game join");
	/* in the lobby: a seated player may not take a second seat */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r", "ana", "game join");
	assert_string_equal(only_private_answer(f, "ana"), "You already have a seat.");
	capture_cmd(f->cap, "r", "ana", "game start");
	v = version_of(f, "r");
	/* in play: a spectator is refused whatever needs a seat, in the
	 * table's words, and the game does not change */
	for (d = commands_all(); d->pub.words; d++) {
		if (d->who < CMD_SEATED || !(d->states & CMD_S_ACTIVE))
			continue;
		typed(d, text, sizeof(text));
		capture_clear(f->cap);
		capture_cmd(f->cap, "r", "zed", text);
		assert_string_equal(only_private_answer(f, "zed"),
				    d->not_allowed.en ? d->not_allowed.en
				    : "You are not playing in this game.");
		assert_int_equal(version_of(f, "r"), v);
		checked++;
	}
	assert_true(checked >= 8);
}

static void test_pause_from_the_table(void **state)
{
	struct fixture *f = *state;
	const struct cmd_def *d;
	char text[64];
	int64_t v;
	int checked = 0;

	capture_cmd(f->cap, "p", "ana", "game new fortuna");
	capture_cmd(f->cap, "p", "ben", "game join");
	capture_cmd(f->cap, "p", "ana", "game start");
	capture_cmd(f->cap, "p", "ana", "game pause");
	v = version_of(f, "p");
	for (d = commands_all(); d->pub.words; d++) {
		if (!(d->flags & CMD_UNPAUSED))
			continue;
		typed(d, text, sizeof(text));
		capture_clear(f->cap);
		capture_cmd(f->cap, "p", "ben", text);
		assert_string_equal(only_private_answer(f, "ben"),
				    "The game is paused. `game resume` to go on.");
		assert_int_equal(version_of(f, "p"), v);
		checked++;
	}
	assert_true(checked >= 3);
}

static void test_group_lists_its_commands(void **state)
{
	struct fixture *f = *state;

	capture_cmd(f->cap, "g", "ana", "game frobnicate");
	assert_string_equal(only_private_answer(f, "ana"),
			    "Unknown `game` command. Try: new, join, leave, addbot, start, status, "
			    "abort, settings, web, pause, resume, kick.");
	/* a group's command is never typed as one word */
	capture_clear(f->cap);
	capture_cmd(f->cap, "g", "ana", "game_new fortuna");
	assert_string_equal(only_private_answer(f, "ana"),
			    "Unknown command \"game_new\". Type `help`.");
	assert_int_equal(version_of(f, "g"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_has_help_in_both_languages),
		cmocka_unit_test(test_table_invariants),
		cmocka_unit_test(test_every_command_registered_on_discord),
		cmocka_unit_test(test_discord_follows_the_table_given),
		cmocka_unit_test(test_every_command_in_a_transcript),
		cmocka_unit_test(test_help_block),
		cmocka_unit_test_setup_teardown(test_states_from_the_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seats_from_the_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pause_from_the_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_lists_its_commands, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
