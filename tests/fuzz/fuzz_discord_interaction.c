/*
 * fuzz_discord_interaction: Discord interaction payloads and custom_ids.
 *
 * The whole input goes through discord_interaction_decode_text() (an
 * INTERACTION_CREATE "d" object, or an HTTP interaction body); every string
 * field of a decoded interaction must be NUL-terminated inside its buffer.
 * The input as a C string (up to its first NUL) goes through
 * discord_custom_id_parse(); what parses must re-encode with
 * discord_custom_id() to the very same string.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/interaction.h"
#include "bot/commands.h"
#include "util/buf.h"

#define TERMINATED(f) (strnlen((f), sizeof(f)) < sizeof(f))

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_discord_interaction: %s\n", what);
	abort();
}

static void check_decoded(const struct discord_interaction *in)
{
	size_t i;

	if (!TERMINATED(in->id) || !TERMINATED(in->application_id) || !TERMINATED(in->token) ||
	    !TERMINATED(in->channel_id) || !TERMINATED(in->guild_id) ||
	    !TERMINATED(in->user_id) || !TERMINATED(in->user_name) ||
	    !TERMINATED(in->locale) || !TERMINATED(in->text) || !TERMINATED(in->focused) ||
	    !TERMINATED(in->partial) || !TERMINATED(in->custom_id) ||
	    !TERMINATED(in->message_id))
		bug("a decoded field is not NUL-terminated");
	if (in->text_len >= sizeof(in->text))
		bug("text_len out of range");
	if (in->nvalues > DISCORD_CHOICES_MAX)
		bug("nvalues out of range");
	for (i = 0; i < in->nvalues; i++)
		if (!TERMINATED(in->values[i]))
			bug("a select value is not NUL-terminated");
	/* a name is cleaned: never empty, never a control character */
	if (in->type != DISCORD_INTERACTION_PING && !in->user_name[0])
		bug("an empty display name");
	for (i = 0; in->user_name[i]; i++)
		if ((unsigned char)in->user_name[i] < 0x20 || in->user_name[i] == 0x7f)
			bug("a control character in a display name");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct discord_interaction *in = malloc(sizeof(*in));
	struct discord_custom_id_parts parts;
	struct buf err = BUF_INIT;
	char *s = malloc(size + 1);
	char again[DISCORD_CUSTOM_ID_SIZE];

	if (discord_interaction_decode_text((const char *)data, size, commands_for_adapters(), in,
					    &err) == 0)
		check_decoded(in);
	buf_release(&err);

	memcpy(s, data, size);
	s[size] = '\0';
	if (discord_custom_id_parse(s, &parts) == 0) {
		if (!TERMINATED(parts.kind) || !TERMINATED(parts.arg))
			bug("custom_id parts not NUL-terminated");
		if (discord_custom_id(parts.kind, parts.session, parts.version,
				      strchr(s + 3 + strlen(parts.kind) + 1, ':') &&
				      strchr(strchr(s + 3 + strlen(parts.kind) + 1, ':') + 1, ':')
				      ? parts.arg : NULL, again))
			bug("a parsed custom_id does not re-encode");
		if (strcmp(again, s))
			bug("custom_id round trip changed the string");
	}
	free(s);
	free(in);
	return 0;
}
