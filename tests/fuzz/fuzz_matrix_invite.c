/*
 * fuzz_matrix_invite: the Matrix invite decoder (mx_invite_decode), which
 * reads stripped state an inviting server controls.
 *
 * Input: the bot's user id, a newline, then the JSON of one rooms.invite
 * entry ({"invite_state": {"events": [...]}}).  Without a newline the id is
 * "@bot:example.org" and the whole input is the JSON.
 *
 * Beyond "no crash, no leak, no UB", the decoder's promise (mxsync.h) is
 * checked against an independent reading of the same JSON with jansson
 * (when jansson accepts it as it is): the inviter is the sender of an
 * m.room.member event whose state_key is the bot's id and membership
 * "invite", and of no other kind of event; when such events disagree on
 * the sender, or one has no usable sender, the invite is flagged forged;
 * is_direct only when every one of them says so; strings are valid UTF-8
 * within their limits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "adapters/matrix/mxsync.h"
#include "util/buf.h"
#include "util/text.h"

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_matrix_invite: %s\n", what);
	abort();
}

static int field_ok(const char *f, size_t limit)
{
	size_t n;

	if (!f)
		return 0;
	n = strnlen(f, limit);
	return n < limit && utf8_valid(f, n);
}

static int str_eq(const json_t *v, const char *s)
{
	return json_is_string(v) && json_string_length(v) == strlen(s) &&
	       !memcmp(json_string_value(v), s, json_string_length(v));
}

/* A sender the decoder can take: a non-empty string, short, valid UTF-8. */
static int usable(const json_t *v)
{
	size_t n = json_string_length(v);

	return json_is_string(v) && n > 0 && n < MX_ID_SIZE && utf8_valid(json_string_value(v), n);
}

/* What the decoder must have found, from the JSON read independently. */
static void check(const char *json, size_t len, const char *me, const struct mx_item *it)
{
	json_t *root = json_loadb(json, len, JSON_ALLOW_NUL, NULL);
	const json_t *evs, *ev, *first = NULL;
	int n = 0, forged = 0, direct = 1;
	size_t k;

	if (!root)
		return;		/* the decoder cleaned it first: no oracle */
	evs = json_object_get(json_object_get(root, "invite_state"), "events");
	json_array_foreach(evs, k, ev) {
		const json_t *content = json_object_get(ev, "content");

		if (!json_is_object(ev) || !json_is_object(content) ||
		    !str_eq(json_object_get(ev, "type"), "m.room.member") ||
		    !str_eq(json_object_get(ev, "state_key"), me) ||
		    !str_eq(json_object_get(content, "membership"), "invite"))
			continue;
		if (!usable(json_object_get(ev, "sender"))) {
			forged = 1;
			continue;
		}
		n++;
		direct &= json_is_true(json_object_get(content, "is_direct"));
		if (!first)
			first = json_object_get(ev, "sender");
		else if (!json_equal((json_t *)first, json_object_get(ev, "sender")))
			forged = 1;
	}
	if (!*me)
		n = forged = 0;	/* nothing can be ours */
	if (it->forged != forged)
		bug("forged does not match the invite events about the bot");
	if (!n) {
		if (it->sender[0])
			bug("an inviter without an invite event about the bot");
	} else {
		if (!str_eq(first, it->sender))
			bug("the inviter is not the sender of the invite event about the bot");
		if (it->is_direct != direct)
			bug("is_direct without every invite event saying so");
		if (strcmp(it->state_key, me))
			bug("state_key is not the bot's id");
	}
	json_decref(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	char me[MX_ID_SIZE] = "@bot:example.org";
	const char *json = (const char *)data;
	size_t len = size;
	struct mx_sync s;
	struct buf err = BUF_INIT;

	if (nl) {
		size_t n = (size_t)(nl - (const char *)data);

		if (n >= sizeof(me) || memchr(data, '\0', n))
			return 0;
		memcpy(me, data, n);
		me[n] = '\0';
		json = nl + 1;
		len = size - n - 1;
	}
	if (mx_invite_decode(json, len, "!room:example.org", me, &s, &err) == 0) {
		const struct mx_item *it;

		if (s.nitems != 1 || s.items[0].kind != MX_INVITE)
			bug("not exactly one invite");
		it = &s.items[0];
		if (!field_ok(it->sender, MX_ID_SIZE) || !field_ok(it->state_key, MX_ID_SIZE) ||
		    !field_ok(it->event_id, MX_ID_SIZE) ||
		    !field_ok(it->displayname, MX_NAME_SIZE) ||
		    !field_ok(it->membership, MX_MEMBERSHIP_SIZE) || strcmp(it->room, "!room:example.org"))
			bug("a field over its limit or not UTF-8");
		check(json, len, me, it);
	} else if (!err.len) {
		bug("refused without a message");
	}
	mx_sync_release(&s);
	buf_release(&err);
	return 0;
}
