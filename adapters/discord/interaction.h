/*
 * interaction: pure JSON codecs (jansson) for Discord application commands
 * and interactions.  No I/O, no globals, no clock: the REST/gateway layers
 * send and receive what these functions build and read.
 *
 *   - discord_commands_json(): the array for a bulk overwrite of the bot's
 *     global commands (PUT /applications/{id}/commands), built from the
 *     bot's command table (struct adapter_command, adapters/adapter.h).
 *     Lives in commands.c.
 *   - discord_interaction_decode(): an INTERACTION_CREATE `d` into a flat
 *     struct with fixed buffers; a slash command becomes the text the bot's
 *     grammar expects ("/game new game:fortuna options:draft" → "game new
 *     fortuna draft"), its options in the order of the same table.
 *   - discord_custom_id() / discord_custom_id_parse(): the component ids on
 *     the board message, "t1:<kind>:<session>:<version>[:<arg>]", so that a
 *     stale or foreign click can be refused.
 *   - discord_response_*(), discord_board_components(): interaction
 *     responses (POST /interactions/{id}/{token}/callback bodies).
 *
 * Ownership: every json_t * returned is a new reference (json_decref it);
 * json_t * arguments are borrowed unless said otherwise.  Errors: 0 / -1,
 * with a message for the operator in `err` (may be NULL).
 */
#ifndef ADAPTERS_DISCORD_INTERACTION_H
#define ADAPTERS_DISCORD_INTERACTION_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"

struct adapter_command;

/* Interaction types (Discord "Interaction Type"). */
enum discord_interaction_type {
	DISCORD_INTERACTION_PING = 1,
	DISCORD_INTERACTION_COMMAND = 2,	/* APPLICATION_COMMAND */
	DISCORD_INTERACTION_COMPONENT = 3,	/* MESSAGE_COMPONENT */
	DISCORD_INTERACTION_AUTOCOMPLETE = 4,	/* APPLICATION_COMMAND_AUTOCOMPLETE */
};

/* Interaction callback types. */
enum discord_response_type {
	DISCORD_RESPONSE_PONG = 1,
	DISCORD_RESPONSE_MESSAGE = 4,		/* CHANNEL_MESSAGE_WITH_SOURCE */
	DISCORD_RESPONSE_DEFERRED = 5,		/* DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE */
	DISCORD_RESPONSE_DEFERRED_UPDATE = 6,	/* DEFERRED_UPDATE_MESSAGE */
	DISCORD_RESPONSE_UPDATE = 7,		/* UPDATE_MESSAGE */
	DISCORD_RESPONSE_AUTOCOMPLETE = 8,	/* APPLICATION_COMMAND_AUTOCOMPLETE_RESULT */
};

#define DISCORD_FLAG_EPHEMERAL 64

/* Discord's own limits. */
#define DISCORD_NAME_LEN 32		/* command / option names, code points */
#define DISCORD_DESC_LEN 100		/* descriptions, code points */
#define DISCORD_CHOICES_MAX 25		/* autocomplete choices, select options */
#define DISCORD_CHOICE_LEN 100		/* choice name/value, select label/value */
#define DISCORD_CUSTOM_ID_LEN 100	/* custom_id, bytes (ASCII here) */

/* Buffer sizes, NUL included.  Longer input is refused, never truncated. */
#define DISCORD_SNOWFLAKE_SIZE 21	/* up to 20 decimal digits */
#define DISCORD_TOKEN_SIZE 512		/* interaction tokens are ~200 bytes */
#define DISCORD_USERNAME_SIZE 256	/* 32 code points of up to 4 bytes + slack */
#define DISCORD_LOCALE_SIZE 16
#define DISCORD_TEXT_SIZE 2001		/* = COMMAND_MAX_BYTES + 1 (adapter.h) */
#define DISCORD_OPTION_SIZE 33		/* an option name */
#define DISCORD_VALUE_SIZE 401		/* 100 code points of up to 4 bytes */
#define DISCORD_CUSTOM_ID_SIZE (DISCORD_CUSTOM_ID_LEN + 1)

/*
 * One decoded interaction.  Plain fixed buffers, all NUL-terminated and
 * valid UTF-8; "" means absent.  Snowflakes are checked to be decimal.
 */
struct discord_interaction {
	int type;				/* enum discord_interaction_type */
	char id[DISCORD_SNOWFLAKE_SIZE];
	char application_id[DISCORD_SNOWFLAKE_SIZE];
	char token[DISCORD_TOKEN_SIZE];		/* [A-Za-z0-9._~-]: safe in a URL */
	char channel_id[DISCORD_SNOWFLAKE_SIZE];
	char guild_id[DISCORD_SNOWFLAKE_SIZE];	/* "" in a DM */
	char user_id[DISCORD_SNOWFLAKE_SIZE];	/* "" only for PING */
	/* nick, else global_name, else username, the first with something
	 * visible after text_clean_name(); else the user id */
	char user_name[DISCORD_USERNAME_SIZE];
	char locale[DISCORD_LOCALE_SIZE];	/* the user's client locale ("es-ES") */

	/*
	 * COMMAND: the normalised command text ("game new fortuna draft",
	 * "play take water", "log 5", "game kick <@123>"), options in their
	 * definition order, whatever order the client sent them in.
	 * AUTOCOMPLETE: the command path only ("play", "game new").
	 */
	char text[DISCORD_TEXT_SIZE];
	size_t text_len;

	/* AUTOCOMPLETE: the focused option and what the user typed so far. */
	char focused[DISCORD_OPTION_SIZE];
	char partial[DISCORD_VALUE_SIZE];

	/* COMPONENT: the clicked component and, for a select, its values. */
	char custom_id[DISCORD_CUSTOM_ID_SIZE];
	int component_type;			/* 2 button, 3 string select */
	char message_id[DISCORD_SNOWFLAKE_SIZE];	/* the message it sits on */
	size_t nvalues;
	char values[DISCORD_CHOICES_MAX][DISCORD_VALUE_SIZE];
};

/*
 * Decodes an INTERACTION_CREATE payload `d` (borrowed) into *out (fully
 * overwritten); cmds: the bot's commands (struct adapter.commands).
 * Display names are cleaned, never refused (user_name).  Returns 0, or -1
 * with a message in err when a field is missing, of the wrong JSON type,
 * not UTF-8, too long, names a command or option not in cmds, or the type
 * is not one of the four above.
 */
int discord_interaction_decode(const json_t *d, const struct adapter_command *const *cmds,
			       struct discord_interaction *out, struct buf *err);
/* The same from JSON text (`len` bytes, need not be NUL-terminated). */
int discord_interaction_decode_text(const char *json, size_t len,
				    const struct adapter_command *const *cmds,
				    struct discord_interaction *out, struct buf *err);

/* ---- commands (commands.c) ---- */

/* A game offered by `/game new` and `/rules`; arrays end with id == NULL. */
struct discord_game_choice {
	const char *id;		/* "fortuna": what the command text carries */
	const char *name;	/* "Fortuna" */
	const char *name_es;	/* "Fortuna"; NULL: same as name */
};

/*
 * The bulk-overwrite array of every command of cmds (NULL-terminated,
 * borrowed; NULL: none), as a new reference: a group becomes a command with
 * one subcommand per command of the group.  `games` lists the choices of
 * the game options (ADAPTER_ARG_GAME; at most 25, in order); NULL or empty
 * leaves them free text.  Every name and description carries an es-ES
 * localisation.
 */
json_t *discord_commands_json(const struct adapter_command *const *cmds,
			      const struct discord_game_choice *games);

/*
 * Where `option` sits in the definition of `command` [`sub`] in cmds: 0,
 * 1, ...; -1 when the command, subcommand or option does not exist.  With
 * option NULL: 0 when the command (and sub, if not NULL) exists; 1 when the
 * command is a group (then sub is required).  Used by the decoder.
 */
int discord_command_option_index(const struct adapter_command *const *cmds,
				 const char *command, const char *sub, const char *option);
/* The index-th argument of `command` [`sub`] in cmds (borrowed from it),
 * or NULL. */
const struct adapter_arg *discord_command_arg(const struct adapter_command *const *cmds,
					      const char *command, const char *sub, int index);

/* ---- custom_id codec ---- */

/*
 * Writes "t1:<kind>:<session>:<version>" or "...:<version>:<arg>" into out
 * (DISCORD_CUSTOM_ID_SIZE bytes).  kind: 1-16 of [a-z]; session > 0;
 * version >= 0; arg NULL or 1+ bytes of printable ASCII.  Returns 0, or -1
 * (out = "") when an argument is out of range or the result exceeds 100.
 */
int discord_custom_id(const char *kind, int64_t session, int64_t version,
		      const char *arg, char out[DISCORD_CUSTOM_ID_SIZE]);

struct discord_custom_id_parts {
	char kind[17];
	int64_t session;
	int64_t version;
	char arg[DISCORD_CUSTOM_ID_SIZE];	/* "" when none */
};

/* Reads what discord_custom_id() writes; -1 on anything else (foreign
 * prefix, bad numbers, leading zeros, empty fields, > 100 bytes). */
int discord_custom_id_parse(const char *s, struct discord_custom_id_parts *out);

/* ---- responses ---- */

/*
 * Type 4 with data {content, flags: 64 when ephemeral, allowed_mentions,
 * components}.  allowed_mentions: borrowed; NULL → {"parse": []} (ping
 * nobody).  components: borrowed, NULL → none.  content is sent as is (the
 * caller splits at 2,000 characters).
 */
json_t *discord_response_message(const char *content, int ephemeral,
				 json_t *allowed_mentions, json_t *components);

/* Type 5; flags 64 when ephemeral (the follow-up will be ephemeral too). */
json_t *discord_response_deferred(int ephemeral);

/* One autocomplete choice or select option (borrowed strings). */
struct discord_choice {
	const char *name;	/* shown; truncated to 100 code points */
	const char *value;	/* sent back; must be 1-100 code points */
};

/*
 * Type 8 with at most 25 of the n choices (the rest dropped); names are
 * truncated at a code point boundary to 100 code points; a choice whose
 * value is empty, too long or not UTF-8 is skipped.
 */
json_t *discord_response_autocomplete(const struct discord_choice *choices, size_t n);

/*
 * The board message's components: one action row with the "My hand"
 * (kind "hand") and "My moves" (kind "moves") buttons.  Nothing else: the
 * board is public, and a move list is private.  es: Spanish labels.
 * Returns NULL when session/version are out of range for the codec.
 */
json_t *discord_board_components(int64_t session, int64_t version, int es);

/*
 * The same for a board sent as a picture whose message leaves its text
 * out: a third button, "Text" (kind "text"), that answers with the text
 * board privately (`board text`), for whoever cannot or would rather not
 * read the picture.
 */
json_t *discord_picture_components(int64_t session, int64_t version, int es);

/*
 * A finished game's last board: one action row with the "Rematch" button
 * (kind "rematch", custom_id "t1:rematch:<session>:0"), which any member
 * of the channel may click: the manager decides (struct command's
 * rematch_of).  NULL when session is out of range for the codec.
 */
json_t *discord_rematch_components(int64_t session, int es);

/*
 * The components of a private (ephemeral) answer that lists `user`'s moves:
 * one action row with a string select (kind "play", custom_id
 * "t1:play:<session>:<version>:<user>") of the n moves, 1 <= n <= 25.
 * Labels are truncated to 100 code points; NULL when n is out of range, a
 * value is empty, longer than 100 code points or repeated (Discord refuses
 * duplicate values), or the ids are out of range for the codec.  Never put
 * it on a public message.
 */
json_t *discord_moves_components(int64_t session, int64_t version, const char *user,
				 const struct discord_choice *moves, size_t n, int es);

#endif
