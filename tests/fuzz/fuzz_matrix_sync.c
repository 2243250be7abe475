/*
 * fuzz_matrix_sync: the Matrix /sync parser, and the rich-text renderers.
 *
 * Each input is one of two things, by its first byte:
 * 1. '{', ' ' or '\n': a /sync body for mx_sync_parse(), then the same
 *    bytes as a /messages page for mx_messages_parse(); every string of
 *    every item must be valid UTF-8 within its documented limit.
 * 2. anything else: a list of rich-text spans:
 *      [kind byte][len lo][len hi][len bytes of text]
 *    and, for MENTION and ROOM, a second such chunk with the id (the kind
 *    byte of that chunk is ignored).  A repeat byte may multiply a span's
 *    text (kind byte bit 7 set: the next byte is a repeat count; at most
 *    16 KiB of text in all) so long messages that must be split are
 *    reachable.  The rich text goes through
 *    mx_notice_contents() and mx_plain_body() (Matrix), discord_markdown(),
 *    discord_allowed_mentions() and discord_split() (Discord).  Documented
 *    promises are checked: every Matrix element serialises to less than
 *    MX_EVENT_MAX - 1024 bytes, and every Discord chunk has at most max
 *    code points and is not empty.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "adapters/discord/markdown.h"
#include "adapters/matrix/mxhtml.h"
#include "adapters/matrix/mxsync.h"
#include "util/buf.h"
#include "util/rich.h"
#include "util/text.h"

/* A string field: within its limit, valid UTF-8 (the parser promises). */
static int field_ok(const char *f, size_t limit)
{
	size_t n;

	if (!f)
		return 0;
	n = strnlen(f, limit);
	return n < limit && utf8_valid(f, n);
}

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_matrix_sync: %s\n", what);
	abort();
}

/* Every item of a parsed body keeps the parser's promises. */
static void check_items(const struct mx_sync *s)
{
	size_t i;

	if (strnlen(s->next_batch, sizeof(s->next_batch)) >= sizeof(s->next_batch))
		bug("next_batch not NUL-terminated");
	for (i = 0; i < s->nitems; i++) {
		const struct mx_item *it = &s->items[i];

		if (!field_ok(it->room, MX_ID_SIZE) || !field_ok(it->sender, MX_ID_SIZE) ||
		    !field_ok(it->event_id, MX_ID_SIZE) || !field_ok(it->msgtype, MX_TYPE_SIZE) ||
		    !field_ok(it->text, it->kind == MX_CIPHER ? MX_CIPHER_SIZE : MX_TEXT_SIZE) ||
		    !field_ok(it->algorithm, MX_TYPE_SIZE) || !field_ok(it->sender_key, MX_KEY_SIZE) ||
		    !field_ok(it->session_id, MX_KEY_SIZE) || !field_ok(it->device_id, MX_ID_SIZE) ||
		    !field_ok(it->state_key, MX_ID_SIZE) ||
		    !field_ok(it->membership, MX_MEMBERSHIP_SIZE) ||
		    !field_ok(it->prev_membership, MX_MEMBERSHIP_SIZE) ||
		    !field_ok(it->displayname, MX_NAME_SIZE) || !field_ok(it->prev_batch, MX_ID_SIZE))
			bug("an item field is over its limit or not UTF-8");
		if (it->text_len != strlen(it->text))
			bug("text_len is not the text's length");
	}
}

static void fuzz_sync(const uint8_t *data, size_t size)
{
	struct mx_sync s;
	struct buf err = BUF_INIT;

	if (mx_sync_parse((const char *)data, size, "@bot:example.org", &s, &err) == 0)
		check_items(&s);
	mx_sync_release(&s);
	/* the same bytes as a /messages page or a member list */
	if (mx_messages_parse((const char *)data, size, "!r:example.org", &s, &err) == 0)
		check_items(&s);
	mx_sync_release(&s);
	buf_release(&err);
}

/* Reads one chunk; returns a malloc'd NUL-terminated string (may hold fewer
 * bytes than len when the text has a NUL) or NULL at the end. */
static size_t budget;	/* bytes of span text left for this input */

static char *chunk(const uint8_t **p, const uint8_t *end, unsigned *kind, unsigned *rep)
{
	size_t len;
	char *s;

	if (end - *p < 3)
		return NULL;
	*kind = (*p)[0];
	len = (size_t)(*p)[1] | (size_t)(*p)[2] << 8;
	*p += 3;
	*rep = 1;
	if ((*kind & 0x80) && *p < end)
		*rep = 1 + *(*p)++;
	if (len > (size_t)(end - *p))
		len = (size_t)(end - *p);
	/* at most 16 KiB in all: several messages' worth, and still fast */
	while (*rep > 1 && (len * *rep > 16384 || len * *rep > budget))
		(*rep)--;
	budget -= len * *rep < budget ? len * *rep : budget;
	s = malloc(len * *rep + 1);
	for (unsigned i = 0; i < *rep; i++)
		memcpy(s + i * len, *p, len);
	s[len * *rep] = '\0';
	*p += len;
	return s;
}

struct split_ctx {
	size_t max;
	int n;
};

static int on_chunk(void *ctx, const char *c, size_t len)
{
	struct split_ctx *x = ctx;
	size_t i, cps = 0;

	if (len == 0 || strlen(c) != len)
		bug("discord_split: empty chunk or wrong length");
	for (i = 0; i < len; i++)
		cps += ((unsigned char)c[i] & 0xc0) != 0x80;
	if (cps > x->max)
		bug("discord_split: chunk over max code points");
	x->n++;
	return 0;
}

static void fuzz_rich(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct rich r = RICH_INIT;
	struct buf out = BUF_INIT;
	unsigned kind, rep, k2, r2;
	char *s, *id;
	json_t *j, *el;
	size_t i, max;

	budget = 16 * 1024;
	while ((s = chunk(&p, end, &kind, &rep))) {
		switch ((kind & 0x7f) % 8) {
		case RICH_TEXT: rich_text(&r, "%s", s); break;
		case RICH_EMPH: rich_emph(&r, "%s", s); break;
		case RICH_NEWLINE: rich_newline(&r); break;
		case RICH_HEADING: rich_heading(&r, "%s", s); break;
		case RICH_MONO: rich_mono(&r, s); break;
		case RICH_LINK: rich_link(&r, s); break;
		case RICH_MENTION:
		case RICH_ROOM:
			id = chunk(&p, end, &k2, &r2);
			if ((kind & 0x7f) % 8 == RICH_MENTION)
				rich_mention(&r, id ? id : "", s);
			else
				rich_room(&r, id, (kind & 0x40) ? NULL : s);
			free(id);
			break;
		}
		free(s);
	}

	j = mx_notice_contents(&r);
	if (!j || !json_is_array(j) || json_array_size(j) < 1)
		bug("mx_notice_contents: not a non-empty array");
	json_array_foreach(j, i, el) {
		char *t = json_dumps(el, JSON_COMPACT);

		if (!t || strlen(t) >= MX_EVENT_MAX - 1024)
			bug("mx_notice_contents: an element is too large for an event");
		free(t);
	}
	json_decref(j);
	mx_plain_body(&r, &out);
	buf_reset(&out);

	if (discord_markdown(&r, &out) == 0) {
		struct split_ctx x;

		max = size ? DISCORD_SPLIT_MIN + data[size - 1] * 8 : DISCORD_CONTENT_MAX;
		x = (struct split_ctx){ .max = max };
		discord_split(buf_str(&out), max, on_chunk, &x);
		x = (struct split_ctx){ .max = DISCORD_CONTENT_MAX };
		discord_split(buf_str(&out), DISCORD_CONTENT_MAX, on_chunk, &x);
	}
	json_decref(discord_allowed_mentions(&r));
	buf_release(&out);
	rich_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* rendering costs far more a byte than parsing, so each input does
	 * one: what looks like JSON is a sync body, the rest rich text */
	if (size && (data[0] == '{' || data[0] == ' ' || data[0] == '\n'))
		fuzz_sync(data, size);
	else
		fuzz_rich(data, size);
	return 0;
}
