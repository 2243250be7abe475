/*
 * interaction: INTERACTION_CREATE decoding, the custom_id codec and the
 * interaction response builders.  Everything a hostile or buggy payload
 * could hold is checked before it is copied: JSON types, lengths against
 * the fixed buffers, UTF-8, snowflake digits, token characters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/adapter.h"
#include "adapters/discord/interaction.h"
#include "util/text.h"

#define MAX_OPTIONS 8	/* options per command in commands.c, with room to spare */

static int fail(struct buf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		buf_reset(err);
		va_start(ap, fmt);
		buf_vprintf(err, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- field readers ---- */

/*
 * Copies the string `obj[key]` into dst[size].  Absent or null: "" when
 * optional, an error when required.  Refuses non-strings, over-long values
 * (no truncation: a cut id or token would be a different one) and bad UTF-8.
 */
static int get_str(const json_t *obj, const char *key, char *dst, size_t size,
		   int required, const char *what, struct buf *err)
{
	const json_t *v = json_object_get(obj, key);
	const char *s;
	size_t n;

	dst[0] = '\0';
	if (!v || json_is_null(v)) {
		if (required)
			return fail(err, "interaction: missing %s", what);
		return 0;
	}
	if (!json_is_string(v))
		return fail(err, "interaction: %s is not a string", what);
	s = json_string_value(v);
	n = json_string_length(v);
	if (n >= size)
		return fail(err, "interaction: %s too long (%zu bytes, at most %zu)",
			    what, n, size - 1);
	if (!utf8_valid(s, n))
		return fail(err, "interaction: %s is not valid UTF-8 text", what);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

static int is_snowflake(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return i > 0 && i < DISCORD_SNOWFLAKE_SIZE;
}

static int get_snowflake(const json_t *obj, const char *key, char *dst, int required,
			 const char *what, struct buf *err)
{
	if (get_str(obj, key, dst, DISCORD_SNOWFLAKE_SIZE, required, what, err))
		return -1;
	if (required && !dst[0])
		return fail(err, "interaction: empty %s", what);
	if (dst[0] && !is_snowflake(dst)) {
		dst[0] = '\0';
		return fail(err, "interaction: %s is not a snowflake", what);
	}
	return 0;
}

/* The token goes into a webhook URL path: only URL-safe characters. */
static int token_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || strchr("._~-", *s)))
			return 0;
	return 1;
}

static const json_t *get_object(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_object(v) ? v : NULL;
}

/*
 * The name people see, cleaned (text_clean_name): the server nick, else the
 * display name, else the username, the first with something visible left;
 * else the user id.  Names are anybody's text: a newline, a bidi override
 * or a zero-width character in one must not forge a line of a board.
 */
static void pick_name(const json_t *member, const json_t *user, const char *id,
		      char *out, size_t size)
{
	const json_t *from[3] = { member, user, user };
	static const char *const key[3] = { "nick", "global_name", "username" };
	size_t i;

	for (i = 0; i < 3; i++) {
		const json_t *v = json_is_object(from[i]) ? json_object_get(from[i], key[i]) : NULL;

		if (json_is_string(v) &&
		    text_clean_name(json_string_value(v), json_string_length(v), out, size))
			return;
	}
	snprintf(out, size, "%s", id);
}

static int decode_user(const json_t *d, struct discord_interaction *out, struct buf *err)
{
	const json_t *member = json_object_get(d, "member");
	const json_t *user;

	if (member && !json_is_null(member)) {
		if (!json_is_object(member))
			return fail(err, "interaction: member is not an object");
		user = get_object(member, "user");
	} else {
		user = get_object(d, "user");
	}
	if (!user)
		return fail(err, "interaction: missing user");
	if (get_snowflake(user, "id", out->user_id, 1, "user id", err))
		return -1;
	pick_name(member, user, out->user_id, out->user_name, sizeof(out->user_name));
	return 0;
}

/* ---- application commands ---- */

/* Appends one option's value to the command text (flags: its
 * adapter_arg's). */
static int add_value(const json_t *opt, const char *name, unsigned flags, struct buf *t,
		     struct buf *err)
{
	const json_t *v = json_object_get(opt, "value");
	const json_t *ty = json_object_get(opt, "type");
	char id[DISCORD_SNOWFLAKE_SIZE];

	if (!json_is_integer(ty))
		return fail(err, "interaction: option %s has no type", name);
	switch (json_integer_value(ty)) {
	case 3:	/* STRING */
		if (!json_is_string(v))
			return fail(err, "interaction: option %s is not a string", name);
		if (!utf8_valid(json_string_value(v), json_string_length(v)))
			return fail(err, "interaction: option %s is not valid UTF-8 text", name);
		if (!json_string_length(v))
			return 0;
		buf_addch(t, ' ');
		buf_add(t, json_string_value(v), json_string_length(v));
		return 0;
	case 4:	/* INTEGER */
		if (!json_is_integer(v))
			return fail(err, "interaction: option %s is not an integer", name);
		buf_printf(t, " %s%" JSON_INTEGER_FORMAT, flags & ADAPTER_ARG_HASH ? "#" : "",
			   json_integer_value(v));
		return 0;
	case 5:	/* BOOLEAN */
		if (!json_is_boolean(v))
			return fail(err, "interaction: option %s is not a boolean", name);
		/* a flag: "/log all:true" is "log all" */
		if (json_is_true(v))
			buf_printf(t, " %s", name);
		return 0;
	case 6:	/* USER */
		if (get_snowflake(opt, "value", id, 1, "user option", err))
			return -1;
		buf_printf(t, " <@%s>", id);
		return 0;
	default:
		return fail(err, "interaction: option %s has an unsupported type", name);
	}
}

/*
 * Puts `options` (the command's or the subcommand's) in definition order
 * in slot[], refusing unknown and repeated names.  With `focused`, finds
 * the focused option instead and leaves the others unchecked (they may be
 * half-typed).
 */
static int sort_options(const struct adapter_command *const *cmds, const json_t *options,
			const char *cmd, const char *sub, const json_t *slot[MAX_OPTIONS],
			const json_t **focused, struct buf *err)
{
	size_t i;
	const json_t *o;

	memset(slot, 0, sizeof(*slot) * MAX_OPTIONS);
	if (!options || json_is_null(options))
		return 0;
	if (!json_is_array(options))
		return fail(err, "interaction: options is not an array");
	if (json_array_size(options) > MAX_OPTIONS)
		return fail(err, "interaction: too many options");
	json_array_foreach(options, i, o) {
		const json_t *name = json_object_get(o, "name");
		int at;

		if (!json_is_object(o) || !json_is_string(name))
			return fail(err, "interaction: malformed option");
		at = discord_command_option_index(cmds, cmd, sub, json_string_value(name));
		if (at < 0 || at >= MAX_OPTIONS)
			return fail(err, "interaction: unknown option %.32s",
				    json_string_value(name));
		if (slot[at])
			return fail(err, "interaction: option %s given twice",
				    json_string_value(name));
		slot[at] = o;
		if (focused && json_is_true(json_object_get(o, "focused")))
			*focused = o;
	}
	return 0;
}

static int decode_focused(const json_t *o, struct discord_interaction *out, struct buf *err)
{
	const json_t *v = json_object_get(o, "value");

	if (get_str(o, "name", out->focused, sizeof(out->focused), 1, "focused option", err))
		return -1;
	if (json_is_integer(v)) {	/* numbers may arrive as numbers */
		snprintf(out->partial, sizeof(out->partial), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		return 0;
	}
	return get_str(o, "value", out->partial, sizeof(out->partial), 0,
		       "autocomplete value", err);
}

static int decode_command(const json_t *data, const struct adapter_command *const *cmds,
			  struct discord_interaction *out, struct buf *err)
{
	char cmd[DISCORD_OPTION_SIZE], sub[DISCORD_OPTION_SIZE] = "";
	const json_t *options = json_object_get(data, "options");
	const json_t *slot[MAX_OPTIONS];
	const json_t *focused = NULL;
	int autocomplete = out->type == DISCORD_INTERACTION_AUTOCOMPLETE;
	struct buf t;
	int has_subs, i, ret = -1;

	if (get_str(data, "name", cmd, sizeof(cmd), 1, "command name", err))
		return -1;
	has_subs = discord_command_option_index(cmds, cmd, NULL, NULL);
	if (has_subs < 0)
		return fail(err, "interaction: unknown command /%s", cmd);
	if (has_subs) {
		const json_t *s;

		if (!json_is_array(options) || json_array_size(options) != 1)
			return fail(err, "interaction: /%s needs one subcommand", cmd);
		s = json_array_get(options, 0);
		if (!json_is_object(s) || json_integer_value(json_object_get(s, "type")) != 1)
			return fail(err, "interaction: /%s needs one subcommand", cmd);
		if (get_str(s, "name", sub, sizeof(sub), 1, "subcommand name", err))
			return -1;
		if (discord_command_option_index(cmds, cmd, sub, NULL) < 0)
			return fail(err, "interaction: unknown subcommand /%s %s", cmd, sub);
		options = json_object_get(s, "options");
	}
	if (sort_options(cmds, options, cmd, has_subs ? sub : NULL, slot,
			 autocomplete ? &focused : NULL, err))
		return -1;

	buf_init(&t, DISCORD_TEXT_SIZE - 1);
	buf_addstr(&t, cmd);
	if (sub[0])
		buf_printf(&t, " %s", sub);
	if (autocomplete) {
		if (!focused) {
			fail(err, "interaction: autocomplete without a focused option");
			goto fail;
		}
		if (decode_focused(focused, out, err))
			goto fail;
	} else {
		for (i = 0; i < MAX_OPTIONS; i++) {
			const struct adapter_arg *arg =
				discord_command_arg(cmds, cmd, sub[0] ? sub : NULL, i);

			if (slot[i] && add_value(slot[i], json_string_value(
				    json_object_get(slot[i], "name")), arg ? arg->flags : 0, &t, err))
				goto fail;
		}
	}
	if (t.toobig) {
		fail(err, "interaction: command text longer than %d bytes", DISCORD_TEXT_SIZE - 1);
		goto fail;
	}
	memcpy(out->text, buf_str(&t), t.len + 1);
	out->text_len = t.len;
	ret = 0;
fail:
	buf_release(&t);
	return ret;
}

/* ---- message components ---- */

static int decode_component(const json_t *d, const json_t *data,
			    struct discord_interaction *out, struct buf *err)
{
	const json_t *ct = json_object_get(data, "component_type");
	const json_t *values = json_object_get(data, "values");
	const json_t *message = get_object(d, "message");
	const json_t *v;
	size_t i;

	if (get_str(data, "custom_id", out->custom_id, sizeof(out->custom_id), 1,
		    "custom_id", err))
		return -1;
	if (!json_is_integer(ct))
		return fail(err, "interaction: missing component_type");
	if (json_integer_value(ct) < 1 || json_integer_value(ct) > 20)
		return fail(err, "interaction: bad component_type");
	out->component_type = (int)json_integer_value(ct);
	if (message && get_snowflake(message, "id", out->message_id, 0, "message id", err))
		return -1;
	if (!values || json_is_null(values))
		return 0;
	if (!json_is_array(values))
		return fail(err, "interaction: values is not an array");
	if (json_array_size(values) > DISCORD_CHOICES_MAX)
		return fail(err, "interaction: more than %d values", DISCORD_CHOICES_MAX);
	json_array_foreach(values, i, v) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);

		if (!json_is_string(v))
			return fail(err, "interaction: a selected value is not a string");
		if (n >= DISCORD_VALUE_SIZE)
			return fail(err, "interaction: a selected value is too long");
		if (!utf8_valid(s, n))
			return fail(err, "interaction: a selected value is not valid UTF-8");
		memcpy(out->values[i], s, n);
		out->values[i][n] = '\0';
		out->nvalues = i + 1;
	}
	return 0;
}

/* ---- decode ---- */

int discord_interaction_decode(const json_t *d, const struct adapter_command *const *cmds,
			       struct discord_interaction *out, struct buf *err)
{
	const json_t *type = json_object_get(d, "type");
	const json_t *data;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(d))
		return fail(err, "interaction: not an object");
	if (!json_is_integer(type) || json_integer_value(type) < DISCORD_INTERACTION_PING ||
	    json_integer_value(type) > DISCORD_INTERACTION_AUTOCOMPLETE)
		return fail(err, "interaction: missing or unsupported type");
	out->type = (int)json_integer_value(type);
	if (get_snowflake(d, "id", out->id, 1, "id", err) ||
	    get_snowflake(d, "application_id", out->application_id, 1, "application_id", err) ||
	    get_str(d, "token", out->token, sizeof(out->token), 1, "token", err))
		goto fail;
	if (!out->token[0] || !token_ok(out->token)) {
		fail(err, "interaction: malformed token");
		goto fail;
	}
	if (out->type == DISCORD_INTERACTION_PING)
		return 0;

	if (get_snowflake(d, "channel_id", out->channel_id, 1, "channel_id", err) ||
	    get_snowflake(d, "guild_id", out->guild_id, 0, "guild_id", err) ||
	    get_str(d, "locale", out->locale, sizeof(out->locale), 0, "locale", err) ||
	    decode_user(d, out, err))
		goto fail;
	data = get_object(d, "data");
	if (!data) {
		fail(err, "interaction: missing data");
		goto fail;
	}
	if (out->type == DISCORD_INTERACTION_COMPONENT ? decode_component(d, data, out, err)
						       : decode_command(data, cmds, out, err))
		goto fail;
	return 0;
fail:
	/* never leave half a decode (a token, say) behind */
	memset(out, 0, sizeof(*out));
	return -1;
}

int discord_interaction_decode_text(const char *json, size_t len,
				    const struct adapter_command *const *cmds,
				    struct discord_interaction *out, struct buf *err)
{
	json_error_t je;
	json_t *d;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!json)
		return fail(err, "interaction: no payload");
	d = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
	if (!d)
		return fail(err, "interaction: bad JSON: %s", je.text);
	ret = discord_interaction_decode(d, cmds, out, err);
	json_decref(d);
	return ret;
}

/* ---- custom_id ---- */

#define CUSTOM_ID_PREFIX "t1:"

static int kind_ok(const char *k, size_t n)
{
	size_t i;

	if (n < 1 || n > 16)
		return 0;
	for (i = 0; i < n; i++)
		if (k[i] < 'a' || k[i] > 'z')
			return 0;
	return 1;
}

static int arg_ok(const char *a)
{
	if (!*a)
		return 0;
	for (; *a; a++)
		if (*a < 0x20 || *a > 0x7e)
			return 0;
	return 1;
}

int discord_custom_id(const char *kind, int64_t session, int64_t version,
		      const char *arg, char out[DISCORD_CUSTOM_ID_SIZE])
{
	int n;

	out[0] = '\0';
	if (!kind || !kind_ok(kind, strlen(kind)) || session <= 0 || version < 0 ||
	    (arg && !arg_ok(arg)))
		return -1;
	n = snprintf(out, DISCORD_CUSTOM_ID_SIZE, CUSTOM_ID_PREFIX "%s:%" PRId64 ":%" PRId64 "%s%s",
		     kind, session, version, arg ? ":" : "", arg ? arg : "");
	if (n < 0 || n > DISCORD_CUSTOM_ID_LEN) {
		out[0] = '\0';
		return -1;
	}
	return 0;
}

/* Strict decimal: digits only, no sign, no leading zero, fits int64. */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
	char tmp[24];
	char *end;
	long long v;
	size_t i;

	if (n < 1 || n > 19 || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtoll(tmp, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int discord_custom_id_parse(const char *s, struct discord_custom_id_parts *out)
{
	const char *kind, *ses, *ver, *arg, *c;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	len = strnlen(s, DISCORD_CUSTOM_ID_LEN + 1);
	if (len > DISCORD_CUSTOM_ID_LEN || strncmp(s, CUSTOM_ID_PREFIX, 3))
		return -1;
	kind = s + 3;
	if (!(c = strchr(kind, ':')) || !kind_ok(kind, (size_t)(c - kind)))
		goto fail;
	memcpy(out->kind, kind, (size_t)(c - kind));
	ses = c + 1;
	if (!(c = strchr(ses, ':')) || parse_i64(ses, (size_t)(c - ses), &out->session) ||
	    out->session <= 0)
		goto fail;
	ver = c + 1;
	c = strchr(ver, ':');
	if (parse_i64(ver, c ? (size_t)(c - ver) : strlen(ver), &out->version))
		goto fail;
	if (c) {
		arg = c + 1;
		if (!arg_ok(arg))
			goto fail;
		memcpy(out->arg, arg, strlen(arg) + 1);
	}
	return 0;
fail:
	memset(out, 0, sizeof(*out));
	return -1;
}

/* ---- responses ---- */

/* Bytes of the first `max` code points of valid UTF-8 s. */
static size_t utf8_prefix(const char *s, size_t max)
{
	size_t i, cps = 0;

	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (cps == max)
				break;
			cps++;
		}
	}
	return i;
}

static size_t utf8_count(const char *s)
{
	size_t cps = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			cps++;
	return cps;
}

/* A string of 1..100 code points of s, or NULL when s is empty or invalid. */
static json_t *label(const char *s)
{
	size_t n;

	if (!s || !*s || !utf8_valid(s, strlen(s)))
		return NULL;
	n = utf8_prefix(s, DISCORD_CHOICE_LEN);
	return json_stringn(s, n);
}

static int value_ok(const char *s)
{
	return s && *s && utf8_valid(s, strlen(s)) && utf8_count(s) <= DISCORD_CHOICE_LEN;
}

json_t *discord_response_message(const char *content, int ephemeral,
				 json_t *allowed_mentions, json_t *components)
{
	json_t *data = json_object();

	json_object_set_new(data, "content", json_string(content ? content : ""));
	if (ephemeral)
		json_object_set_new(data, "flags", json_integer(DISCORD_FLAG_EPHEMERAL));
	if (allowed_mentions)
		json_object_set(data, "allowed_mentions", allowed_mentions);
	else
		json_object_set_new(data, "allowed_mentions", json_pack("{s:[]}", "parse"));
	if (components)
		json_object_set(data, "components", components);
	return json_pack("{s:i, s:o}", "type", DISCORD_RESPONSE_MESSAGE, "data", data);
}

json_t *discord_response_deferred(int ephemeral)
{
	json_t *r = json_pack("{s:i}", "type", DISCORD_RESPONSE_DEFERRED);

	if (ephemeral)
		json_object_set_new(r, "data", json_pack("{s:i}", "flags",
							 DISCORD_FLAG_EPHEMERAL));
	return r;
}

json_t *discord_response_autocomplete(const struct discord_choice *choices, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; choices && i < n && json_array_size(a) < DISCORD_CHOICES_MAX; i++) {
		json_t *name;

		if (!value_ok(choices[i].value))
			continue;
		name = label(choices[i].name ? choices[i].name : choices[i].value);
		if (!name)
			continue;
		json_array_append_new(a, json_pack("{s:o, s:s}", "name", name,
						   "value", choices[i].value));
	}
	return json_pack("{s:i, s:{s:o}}", "type", DISCORD_RESPONSE_AUTOCOMPLETE,
			 "data", "choices", a);
}

static json_t *button(const char *text, const char *custom_id)
{
	/* type 2 BUTTON, style 2 SECONDARY */
	return json_pack("{s:i, s:i, s:s, s:s}", "type", 2, "style", 2, "label", text,
			 "custom_id", custom_id);
}

json_t *discord_moves_components(int64_t session, int64_t version, const char *user,
				 const struct discord_choice *moves, size_t n, int es)
{
	char id[DISCORD_CUSTOM_ID_SIZE];
	json_t *opts;
	size_t i, j;

	if (!moves || n < 1 || n > DISCORD_CHOICES_MAX || !user || !*user ||
	    discord_custom_id("play", session, version, user, id))
		return NULL;
	opts = json_array();
	for (i = 0; i < n; i++) {
		json_t *l;

		for (j = 0; j < i; j++)
			if (value_ok(moves[i].value) && !strcmp(moves[i].value, moves[j].value))
				break;
		if (j < i || !value_ok(moves[i].value) ||
		    !(l = label(moves[i].name ? moves[i].name : moves[i].value))) {
			json_decref(opts);
			return NULL;
		}
		json_array_append_new(opts, json_pack("{s:o, s:s}", "label", l,
						      "value", moves[i].value));
	}
	/* type 1 ACTION_ROW holding one type 3 STRING_SELECT */
	return json_pack("[{s:i, s:[{s:i, s:s, s:s, s:i, s:i, s:o}]}]", "type", 1,
			 "components", "type", 3, "custom_id", id,
			 "placeholder", es ? "Elige una jugada" : "Choose a move",
			 "min_values", 1, "max_values", 1, "options", opts);
}

json_t *discord_board_components(int64_t session, int64_t version, int es)
{
	char hand[DISCORD_CUSTOM_ID_SIZE], mv[DISCORD_CUSTOM_ID_SIZE];

	if (discord_custom_id("hand", session, version, NULL, hand) ||
	    discord_custom_id("moves", session, version, NULL, mv))
		return NULL;
	return json_pack("[{s:i, s:[o, o]}]", "type", 1, "components",
			 button(es ? "Mi mano" : "My hand", hand),
			 button(es ? "Mis jugadas" : "My moves", mv));
}

json_t *discord_picture_components(int64_t session, int64_t version, int es)
{
	json_t *c = discord_board_components(session, version, es);
	char text[DISCORD_CUSTOM_ID_SIZE];

	if (!c || discord_custom_id("text", session, version, NULL, text)) {
		json_decref(c);
		return NULL;
	}
	json_array_append_new(json_object_get(json_array_get(c, 0), "components"),
			      button(es ? "Texto" : "Text", text));
	return c;
}

json_t *discord_rematch_components(int64_t session, int es)
{
	char id[DISCORD_CUSTOM_ID_SIZE];

	if (discord_custom_id("rematch", session, 0, NULL, id))
		return NULL;
	return json_pack("[{s:i, s:[o]}]", "type", 1, "components",
			 button(es ? "Revancha" : "Rematch", id));
}
