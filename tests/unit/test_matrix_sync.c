/* adapters/matrix/mxsync: /sync parsing (realistic body, order, hostile
 * types and bytes) and the filter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/mxsync.h"
#include "util/buf.h"
#include "util/text.h"

#define ME "@bot:srv.org"

/* A /sync body as Synapse sends it, with the awkward cases mixed in.  The
 * first joined room sorts after the second, so a sorted walk would show. */
static void realistic_body(struct buf *b)
{
	struct buf big = BUF_INIT;
	size_t i;

	for (i = 0; i < 5000; i++)
		buf_addch(&big, (char)('a' + i % 26));
	buf_printf(b,
		"{\"next_batch\": \"s72595_4483_1934\","
		" \"presence\": {\"events\": []},"
		" \"account_data\": {\"events\": ["
		"   {\"type\": \"m.push_rules\", \"content\": {}},"
		"   {\"type\": \"m.direct\", \"content\": {\"@dave:srv.org\": [\"!inv:srv.org\"]}}]},"
		" \"rooms\": {"
		"  \"join\": {"
		"   \"!zroom:srv.org\": {"
		"    \"state\": {\"events\": ["
		"     {\"type\": \"m.room.member\", \"sender\": \"@ana:srv.org\", \"state_key\": \"@ana:srv.org\","
		"      \"event_id\": \"$m1\", \"origin_server_ts\": 1700000000000,"
		"      \"content\": {\"membership\": \"join\", \"displayname\": \"Ana\"}},"
		"     {\"type\": \"m.room.name\", \"sender\": \"@ana:srv.org\", \"state_key\": \"\","
		"      \"content\": {\"name\": \"Tabula\"}},"
		"     {\"type\": \"m.room.member\", \"sender\": \"@bob:srv.org\", \"state_key\": \"@bob:srv.org\","
		"      \"event_id\": \"$m2\", \"content\": {\"membership\": \"join\", \"displayname\": \"<b>Bob</b>\"}}]},"
		"    \"timeline\": {\"limited\": true, \"prev_batch\": \"t_prev_123\", \"events\": ["
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e1\","
		"      \"origin_server_ts\": 1700000000001, \"content\": {\"msgtype\": \"m.text\", \"body\": \"!play gtr\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@bot:srv.org\", \"event_id\": \"$e2\","
		"      \"content\": {\"msgtype\": \"m.notice\", \"body\": \"Religi\\u00f3n \\ud83c\\udfb2\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e3\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"* !play fortuna\","
		"       \"m.new_content\": {\"msgtype\": \"m.text\", \"body\": \"!play fortuna\"},"
		"       \"m.relates_to\": {\"rel_type\": \"m.replace\", \"event_id\": \"$e1\"}}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e4\","
		"      \"content\": {\"msgtype\": 7, \"body\": 42}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e5\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"nul\\u0000here\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e6\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"raw \xff\xfe bytes\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e7\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"lone \\ud800 surrogate\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$e8\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"%s\"}},"
		"     42,"
		"     {\"type\": \"m.reaction\", \"sender\": \"@ana:srv.org\", \"content\": {}},"
		"     {\"type\": \"m.room.message\", \"event_id\": \"$nosender\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"who?\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@%0300d:srv.org\", \"event_id\": \"$longsender\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"x\"}},"
		"     {\"type\": \"m.room.member\", \"sender\": \"@carol:srv.org\", \"state_key\": \"@carol:srv.org\","
		"      \"event_id\": \"$m3\", \"content\": {\"membership\": \"join\", \"displayname\": \"Carol\"}}]}},"
		"   \"!aroom:srv.org\": {"
		"    \"state\": {\"events\": ["
		"     {\"type\": \"m.room.encryption\", \"sender\": \"@ana:srv.org\", \"state_key\": \"\","
		"      \"content\": {\"algorithm\": \"m.megolm.v1.aes-sha2\"}}]},"
		"    \"timeline\": {\"limited\": false, \"events\": ["
		"     {\"type\": \"m.room.encrypted\", \"sender\": \"@ana:srv.org\", \"content\": {\"ciphertext\": \"x\"}},"
		"     {\"type\": \"m.room.message\", \"sender\": \"@ana:srv.org\", \"event_id\": \"$a1\","
		"      \"content\": {\"msgtype\": \"m.text\", \"body\": \"hi\"}}]},"
		"    \"account_data\": {\"events\": []}}},"
		"  \"invite\": {"
		"   \"!inv:srv.org\": {\"invite_state\": {\"events\": ["
		"    {\"type\": \"m.room.name\", \"sender\": \"@dave:srv.org\", \"state_key\": \"\", \"content\": {\"name\": \"1:1\"}},"
		"    {\"type\": \"m.room.member\", \"sender\": \"@dave:srv.org\", \"state_key\": \"@dave:srv.org\","
		"     \"content\": {\"membership\": \"join\", \"displayname\": \"Dave\"}},"
		"    {\"type\": \"m.room.member\", \"sender\": \"@dave:srv.org\", \"state_key\": \"@bot:srv.org\","
		"     \"content\": {\"membership\": \"invite\", \"is_direct\": true}}]}}},"
		"  \"leave\": {"
		"   \"!gone:srv.org\": {\"state\": {\"events\": []}, \"timeline\": {\"events\": ["
		"    {\"type\": \"m.room.member\", \"sender\": \"@bob:srv.org\", \"state_key\": \"@bot:srv.org\","
		"     \"content\": {\"membership\": \"leave\"}}]}}}}}",
		buf_str(&big), 7);
	buf_release(&big);
}

static void check_item_strings(const struct mx_item *it)
{
	const char *const fields[] = {
		it->room, it->sender, it->event_id, it->msgtype, it->text, it->state_key,
		it->membership, it->displayname, it->prev_batch, it->algorithm, it->sender_key,
		it->session_id, it->device_id,
	};
	const size_t sizes[] = {
		MX_ID_SIZE, MX_ID_SIZE, MX_ID_SIZE, MX_TYPE_SIZE,
		it->kind == MX_CIPHER ? MX_CIPHER_SIZE : MX_TEXT_SIZE, MX_ID_SIZE,
		MX_MEMBERSHIP_SIZE, MX_NAME_SIZE, MX_ID_SIZE, MX_TYPE_SIZE, MX_KEY_SIZE,
		MX_KEY_SIZE, MX_ID_SIZE,
	};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		size_t n = strnlen(fields[i], sizes[i]);

		assert_true(n < sizes[i]);
		assert_true(utf8_valid(fields[i], n));
	}
	assert_int_equal(strlen(it->text), it->text_len);
	assert_true(it->room[0]);
}

static void check_sync(const struct mx_sync *s)
{
	size_t i;

	assert_true(s->next_batch[0]);
	assert_true(utf8_valid(s->next_batch, strlen(s->next_batch)));
	for (i = 0; i < s->nitems; i++)
		check_item_strings(&s->items[i]);
	assert_true(!s->direct || json_is_object(s->direct));
}

static void test_parse_realistic(void **state)
{
	struct buf body = BUF_INIT, err = BUF_INIT;
	struct mx_sync s;
	const struct mx_item *it;
	size_t n = 0;

	realistic_body(&body);
	assert_int_equal(mx_sync_parse(body.s, body.len, ME, &s, &err), 0);
	check_sync(&s);
	assert_string_equal(s.next_batch, "s72595_4483_1934");

	/* !zroom: state first, then limited, then the timeline in order */
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_MEMBER);
	assert_string_equal(it->room, "!zroom:srv.org");
	assert_string_equal(it->state_key, "@ana:srv.org");
	assert_string_equal(it->sender, "@ana:srv.org");
	assert_string_equal(it->membership, "join");
	assert_string_equal(it->displayname, "Ana");
	assert_string_equal(it->event_id, "$m1");
	assert_true(it->ts == 1700000000000LL);
	assert_int_equal(it->from_timeline, 0);
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_MEMBER);
	assert_string_equal(it->displayname, "<b>Bob</b>");
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_LIMITED);
	assert_string_equal(it->room, "!zroom:srv.org");
	assert_string_equal(it->prev_batch, "t_prev_123");
	assert_string_equal(it->text, "t_prev_123");

	it = &s.items[n++];
	assert_int_equal(it->kind, MX_MESSAGE);
	assert_string_equal(it->room, "!zroom:srv.org");
	assert_string_equal(it->sender, "@ana:srv.org");
	assert_string_equal(it->event_id, "$e1");
	assert_string_equal(it->msgtype, "m.text");
	assert_string_equal(it->text, "!play gtr");
	assert_int_equal(it->text_len, 9);
	assert_true(it->ts == 1700000000001LL);
	assert_int_equal(it->from_timeline, 1);
	assert_false(it->is_edit || it->too_long || it->bad_utf8);
	it = &s.items[n++];
	assert_string_equal(it->msgtype, "m.notice");
	assert_string_equal(it->text, "Religi\xc3\xb3n \xf0\x9f\x8e\xb2");
	it = &s.items[n++];
	assert_string_equal(it->event_id, "$e3");
	assert_true(it->is_edit);
	assert_string_equal(it->text, "* !play fortuna");
	it = &s.items[n++];
	assert_string_equal(it->event_id, "$e4");	/* body and msgtype not strings */
	assert_string_equal(it->msgtype, "");
	assert_string_equal(it->text, "");
	assert_int_equal(it->text_len, 0);
	assert_false(it->bad_utf8 || it->too_long);
	it = &s.items[n++];
	assert_string_equal(it->event_id, "$e5");
	assert_true(it->bad_utf8);
	assert_string_equal(it->text, "");
	it = &s.items[n++];
	assert_string_equal(it->event_id, "$e6");
	assert_true(it->bad_utf8);
	assert_string_equal(it->text, "");
	it = &s.items[n++];
	assert_string_equal(it->event_id, "$e7");
	assert_true(it->bad_utf8);
	it = &s.items[n++];
	assert_string_equal(it->event_id, "$e8");
	assert_true(it->too_long);
	assert_false(it->bad_utf8);
	assert_string_equal(it->text, "");
	/* 42, m.reaction, no sender, a 300-byte sender: skipped */
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_MEMBER);
	assert_string_equal(it->state_key, "@carol:srv.org");
	assert_int_equal(it->from_timeline, 1);

	/* !aroom */
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_ENCRYPTED);
	assert_string_equal(it->room, "!aroom:srv.org");
	assert_string_equal(it->algorithm, "m.megolm.v1.aes-sha2");
	assert_true(it->rotation_ms == -1 && it->rotation_msgs == -1);
	assert_int_equal(it->from_timeline, 0);
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_CIPHER);	/* no algorithm: unreadable, still an item */
	assert_string_equal(it->algorithm, "");
	assert_string_equal(it->text, "x");
	assert_string_equal(it->session_id, "");
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_MESSAGE);
	assert_string_equal(it->text, "hi");

	/* invite and leave */
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_INVITE);
	assert_string_equal(it->room, "!inv:srv.org");
	assert_string_equal(it->sender, "@dave:srv.org");
	assert_string_equal(it->state_key, "@bot:srv.org");
	assert_string_equal(it->membership, "invite");
	assert_string_equal(it->displayname, "Dave");
	assert_true(it->is_direct);
	it = &s.items[n++];
	assert_int_equal(it->kind, MX_LEFT);
	assert_string_equal(it->room, "!gone:srv.org");
	assert_int_equal(s.nitems, n);

	assert_non_null(s.direct);
	assert_string_equal(json_string_value(json_array_get(json_object_get(s.direct,
			    "@dave:srv.org"), 0)), "!inv:srv.org");
	mx_sync_release(&s);
	assert_null(s.items);
	assert_int_equal(s.nitems, 0);
	buf_release(&body);
	buf_release(&err);
}

static void test_room_order_kept(void **state)
{
	struct buf body = BUF_INIT;
	struct mx_sync s;
	char want[64][32];
	size_t i;
	unsigned x = 12345;

	buf_addstr(&body, "{\"next_batch\": \"b\", \"rooms\": {\"join\": {");
	for (i = 0; i < 64; i++) {
		x = x * 1103515245u + 12345u;
		snprintf(want[i], sizeof(want[i]), "!r%08x_%02zu:s", x, i);
		buf_printf(&body, "%s\"%s\": {\"timeline\": {\"events\": [{\"type\":"
			   " \"m.room.message\", \"sender\": \"@u:s\", \"content\":"
			   " {\"body\": \"%zu\"}}]}}", i ? "," : "", want[i], i);
	}
	buf_addstr(&body, "}}}");
	assert_int_equal(mx_sync_parse(body.s, body.len, ME, &s, NULL), 0);
	assert_int_equal(s.nitems, 64);
	for (i = 0; i < 64; i++) {
		char n[8];

		snprintf(n, sizeof(n), "%zu", i);
		assert_string_equal(s.items[i].room, want[i]);
		assert_string_equal(s.items[i].text, n);
	}
	mx_sync_release(&s);
	buf_release(&body);
}

static void expect_fail(const char *body, size_t len)
{
	struct buf err = BUF_INIT;
	struct mx_sync s;

	assert_int_equal(mx_sync_parse(body, len, ME, &s, &err), -1);
	assert_true(err.len > 0);
	assert_null(s.items);
	assert_int_equal(s.nitems, 0);
	assert_null(s.direct);
	mx_sync_release(&s);
	buf_release(&err);
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"", "{", "garbage", "[]", "\"x\"", "42", "null", "{}",
		"{\"next_batch\": 5}", "{\"next_batch\": null}", "{\"next_batch\": \"\"}",
		"{\"next_batch\": [\"a\"]}", "{\"rooms\": {}}", "{\"next_batch\": \"a\"",
		"{\"next_batch\": \"a\"} trailing",
	};
	struct buf big = BUF_INIT;
	const char ok[] = "{\"next_batch\": \"a\"}XXXX";
	struct mx_sync s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		expect_fail(bad[i], strlen(bad[i]));
	buf_printf(&big, "{\"next_batch\": \"%0300d\"}", 1);	/* too long to keep */
	expect_fail(big.s, big.len);
	buf_release(&big);

	/* not NUL-terminated: len is what counts */
	expect_fail(ok, sizeof(ok) - 1);
	assert_int_equal(mx_sync_parse(ok, sizeof(ok) - 5, ME, &s, NULL), 0);
	assert_string_equal(s.next_batch, "a");
	assert_int_equal(s.nitems, 0);
	assert_null(s.direct);
	mx_sync_release(&s);
}

static void test_names_and_ids(void **state)
{
	struct buf body = BUF_INIT;
	struct mx_sync s;
	size_t i;

	buf_addstr(&body, "{\"next_batch\": \"b\", \"rooms\": {\"join\": {\"!r:s\": {\"state\": {\"events\": [");
	/* a 400-byte name of 2-byte characters: cut at a character boundary */
	buf_addstr(&body, "{\"type\": \"m.room.member\", \"state_key\": \"@a:s\", \"sender\": \"@a:s\","
		   " \"content\": {\"membership\": \"join\", \"displayname\": \"");
	for (i = 0; i < 200; i++)
		buf_addstr(&body, "\xc3\xa9");
	buf_addstr(&body, "\"}},");
	/* a name with a control character: dropped, the member kept */
	buf_addstr(&body, "{\"type\": \"m.room.member\", \"state_key\": \"@b:s\", \"sender\": \"@b:s\","
		   " \"content\": {\"membership\": \"join\", \"displayname\": \"x\\u0007y\"}},");
	/* no state_key, an over-long membership, a numeric state_key: skipped */
	buf_addstr(&body, "{\"type\": \"m.room.member\", \"sender\": \"@c:s\", \"content\": {\"membership\": \"join\"}},"
		   "{\"type\": \"m.room.member\", \"state_key\": \"@d:s\", \"content\": {\"membership\": \"joinjoinjoinjoinjoin\"}},"
		   "{\"type\": \"m.room.member\", \"state_key\": 5, \"content\": {\"membership\": \"join\"}},");
	/* a state m.room.message is not a message */
	buf_addstr(&body, "{\"type\": \"m.room.message\", \"sender\": \"@e:s\", \"content\": {\"body\": \"x\"}}");
	buf_addstr(&body, "]}}}, \"invite\": {\"!i:s\": {}}, \"leave\": {\"!l:s\": 5}}}");
	assert_int_equal(mx_sync_parse(body.s, body.len, ME, &s, NULL), 0);
	check_sync(&s);
	assert_int_equal(s.nitems, 3);
	assert_int_equal(strlen(s.items[0].displayname), 254);
	assert_true(utf8_valid(s.items[0].displayname, 254));
	assert_string_equal(s.items[1].state_key, "@b:s");
	assert_string_equal(s.items[1].displayname, "");
	assert_int_equal(s.items[2].kind, MX_INVITE);	/* known only by its id */
	assert_string_equal(s.items[2].sender, "");
	mx_sync_release(&s);
	buf_release(&body);
}

/* ---- hostile shapes ---- */

/* Walks v in order; at position `target` replaces that child by a copy of
 * rep.  Returns the number of positions seen. */
static size_t mutate(json_t *v, size_t *pos, size_t target, const json_t *rep)
{
	size_t i;
	const char *key;
	json_t *child;

	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			if ((*pos)++ == target) {
				json_object_set_new(v, key, json_deep_copy(rep));
				return *pos;
			}
			mutate(child, pos, target, rep);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if ((*pos)++ == target) {
				json_array_set_new(v, i, json_deep_copy(rep));
				return *pos;
			}
			mutate(child, pos, target, rep);
		}
	}
	return *pos;
}

static void test_wrong_types_never_crash(void **state)
{
	struct buf body = BUF_INIT;
	json_t *root, *reps;
	size_t npos, p, r, ok = 0, runs = 0;

	realistic_body(&body);
	/* the raw bytes would stop json_loadb: take them out for the tree */
	memcpy(strstr(body.s, "raw \xff\xfe"), "raw ab", 6);
	memcpy(strstr(body.s, "\\ud800"), "\\u00e9", 6);
	root = json_loadb(body.s, body.len, JSON_ALLOW_NUL, NULL);
	assert_non_null(root);
	reps = json_loads("[42, -1, 1e300, [], {}, null, true, \"\", \"@x:y\","
			  " [1, {\"type\": 3}], {\"events\": 5}, {\"type\": \"m.room.member\"}]", 0, NULL);
	assert_non_null(reps);
	p = 0;
	npos = mutate(root, &p, (size_t)-1, NULL);
	assert_true(npos > 100);
	for (p = 0; p < npos; p++) {
		for (r = 0; r < json_array_size(reps); r++) {
			json_t *copy = json_deep_copy(root);
			size_t pos = 0;
			char *dump;
			struct mx_sync s;
			struct buf err = BUF_INIT;

			mutate(copy, &pos, p, json_array_get(reps, r));
			dump = json_dumps(copy, JSON_COMPACT);
			assert_non_null(dump);
			if (mx_sync_parse(dump, strlen(dump), ME, &s, &err) == 0) {
				check_sync(&s);
				ok++;
			} else {
				assert_true(err.len > 0);
			}
			runs++;
			mx_sync_release(&s);
			buf_release(&err);
			free(dump);
			json_decref(copy);
		}
	}
	assert_true(ok > runs / 2);	/* most mutations only lose one event */
	json_decref(reps);
	json_decref(root);
	buf_release(&body);
}

static void test_truncated_and_flipped_bytes(void **state)
{
	struct buf body = BUF_INIT;
	struct mx_sync s;
	char *copy;
	size_t n, i;
	unsigned x = 7;

	realistic_body(&body);
	/* every prefix, none NUL-terminated */
	copy = malloc(body.len);
	assert_non_null(copy);
	for (n = 0; n < body.len; n += n < 3000 ? 1 : 7) {
		memcpy(copy, body.s, n);
		if (mx_sync_parse(copy, n, ME, &s, NULL) == 0)
			check_sync(&s);
		mx_sync_release(&s);
	}
	/* random bytes flipped, a few at a time */
	for (i = 0; i < 3000; i++) {
		size_t k;

		memcpy(copy, body.s, body.len);
		for (k = 0; k < 4; k++) {
			x = x * 1103515245u + 12345u;
			copy[(x >> 8) % body.len] = (char)(x >> 3);
		}
		if (mx_sync_parse(copy, body.len, ME, &s, NULL) == 0)
			check_sync(&s);
		mx_sync_release(&s);
	}
	free(copy);
	buf_release(&body);
}

/* ---- invites: only our own invite event counts ---- */

static void decode_invite(const char *json, struct mx_sync *s)
{
	struct buf err = BUF_INIT;

	assert_int_equal(mx_invite_decode(json, strlen(json), "!r:evil.org", ME, s, &err), 0);
	assert_int_equal(s->nitems, 1);
	assert_int_equal(s->items[0].kind, MX_INVITE);
	check_item_strings(&s->items[0]);
	buf_release(&err);
}

#define MEMBER(key, sender, content) \
	"{\"type\": \"m.room.member\", \"state_key\": \"" key "\", \"sender\": " sender \
	", \"content\": " content "}"

static void test_invite_only_our_event(void **state)
{
	struct mx_sync s;
	struct buf err = BUF_INIT;

	/* the attack of issue 11: a forged invite of someone else naming an
	 * allowed user comes first, and that user's member event too */
	decode_invite("{\"invite_state\": {\"events\": ["
		      MEMBER("@x:evil.org", "\"@ana:good.org\"",
			     "{\"membership\": \"invite\", \"is_direct\": true}") ","
		      MEMBER("@ana:good.org", "\"@ana:good.org\"",
			     "{\"membership\": \"join\", \"displayname\": \"Ana\"}") ","
		      MEMBER(ME, "\"@mal:evil.org\"", "{\"membership\": \"invite\"}")
		      "]}}", &s);
	assert_string_equal(s.items[0].sender, "@mal:evil.org");
	assert_string_equal(s.items[0].state_key, ME);
	assert_false(s.items[0].is_direct);
	assert_false(s.items[0].forged);
	assert_string_equal(s.items[0].displayname, "");	/* mal has no member event */
	mx_sync_release(&s);

	/* two invites of us that disagree on who sent them: forged */
	decode_invite("{\"invite_state\": {\"events\": ["
		      MEMBER(ME, "\"@ana:good.org\"",
			     "{\"membership\": \"invite\", \"is_direct\": true}") ","
		      MEMBER(ME, "\"@mal:evil.org\"",
			     "{\"membership\": \"invite\", \"is_direct\": true}")
		      "]}}", &s);
	assert_true(s.items[0].forged);
	mx_sync_release(&s);

	/* the same twice: fine; is_direct only when both say so; the
	 * inviter's name from their own member event */
	decode_invite("{\"invite_state\": {\"events\": ["
		      MEMBER(ME, "\"@ana:good.org\"",
			     "{\"membership\": \"invite\", \"is_direct\": true}") ","
		      MEMBER("@ana:good.org", "\"@ana:good.org\"",
			     "{\"membership\": \"join\", \"displayname\": \"Ana\"}") ","
		      MEMBER(ME, "\"@ana:good.org\"", "{\"membership\": \"invite\"}")
		      "]}}", &s);
	assert_false(s.items[0].forged);
	assert_string_equal(s.items[0].sender, "@ana:good.org");
	assert_false(s.items[0].is_direct);
	assert_string_equal(s.items[0].displayname, "Ana");
	mx_sync_release(&s);

	/* an invite of us with no readable sender: forged */
	decode_invite("{\"invite_state\": {\"events\": ["
		      MEMBER(ME, "7", "{\"membership\": \"invite\"}") ","
		      MEMBER(ME, "\"@ana:good.org\"", "{\"membership\": \"invite\"}")
		      "]}}", &s);
	assert_true(s.items[0].forged);
	mx_sync_release(&s);

	/* only others' invites, or our membership not "invite": nobody */
	decode_invite("{\"invite_state\": {\"events\": ["
		      MEMBER("@x:evil.org", "\"@ana:good.org\"", "{\"membership\": \"invite\"}") ","
		      MEMBER(ME, "\"@ana:good.org\"", "{\"membership\": \"join\"}")
		      "]}}", &s);
	assert_string_equal(s.items[0].sender, "");
	assert_false(s.items[0].forged);
	mx_sync_release(&s);

	/* a state_key that only starts like ours is not ours */
	decode_invite("{\"invite_state\": {\"events\": ["
		      MEMBER(ME "x", "\"@ana:good.org\"", "{\"membership\": \"invite\"}")
		      "]}}", &s);
	assert_string_equal(s.items[0].sender, "");
	mx_sync_release(&s);

	/* no me, no invite */
	{
		const char *j = "{\"invite_state\": {\"events\": ["
			MEMBER(ME, "\"@a:b\"", "{\"membership\": \"invite\"}") "]}}";

		assert_int_equal(mx_invite_decode(j, strlen(j), "!r:s", NULL, &s, NULL), 0);
	}
	assert_string_equal(s.items[0].sender, "");
	mx_sync_release(&s);

	/* errors */
	assert_int_equal(mx_invite_decode("[]", 2, "!r:s", ME, &s, &err), -1);
	assert_true(err.len > 0);
	mx_sync_release(&s);
	assert_int_equal(mx_invite_decode("{}", 2, "", ME, &s, &err), -1);
	mx_sync_release(&s);
	assert_int_equal(mx_invite_decode("{}", 2, "!r:s", ME, &s, &err), 0);
	assert_string_equal(s.items[0].sender, "");
	mx_sync_release(&s);
	buf_release(&err);
}

/* ---- summaries, prev_content, /messages pages ---- */

static void test_summary_and_prev_membership(void **state)
{
	const char *body =
		"{\"next_batch\": \"b\", \"rooms\": {\"join\": {"
		" \"!a:s\": {\"timeline\": {\"events\": ["
		"  {\"type\": \"m.room.member\", \"state_key\": \"@u:s\", \"sender\": \"@u:s\","
		"   \"content\": {\"membership\": \"join\", \"displayname\": \"U2\"},"
		"   \"unsigned\": {\"prev_content\": {\"membership\": \"join\"}}}]},"
		"  \"summary\": {\"m.joined_member_count\": 2, \"m.invited_member_count\": 1}},"
		" \"!b:s\": {\"summary\": {\"m.heroes\": []}},"
		" \"!c:s\": {\"summary\": {\"m.joined_member_count\": \"3\","
		"  \"m.invited_member_count\": -4}},"
		" \"!d:s\": {\"summary\": {\"m.invited_member_count\": 0}}}}}";
	struct mx_sync s;

	assert_int_equal(mx_sync_parse(body, strlen(body), ME, &s, NULL), 0);
	check_sync(&s);
	assert_int_equal(s.nitems, 3);
	assert_int_equal(s.items[0].kind, MX_MEMBER);
	assert_string_equal(s.items[0].prev_membership, "join");
	assert_int_equal(s.items[1].kind, MX_SUMMARY);	/* after the timeline */
	assert_string_equal(s.items[1].room, "!a:s");
	assert_int_equal(s.items[1].joined, 2);
	assert_int_equal(s.items[1].invited, 1);
	assert_int_equal(s.items[2].kind, MX_SUMMARY);	/* one count is enough */
	assert_string_equal(s.items[2].room, "!d:s");
	assert_int_equal(s.items[2].joined, -1);
	assert_int_equal(s.items[2].invited, 0);
	mx_sync_release(&s);
}

static void test_messages_page(void **state)
{
	const char *page =
		"{\"start\": \"t1\", \"end\": \"t9\", \"chunk\": ["
		" {\"type\": \"m.room.message\", \"sender\": \"@u:s\", \"event_id\": \"$1\","
		"  \"content\": {\"msgtype\": \"m.text\", \"body\": \"!game status\"}},"
		" {\"type\": \"m.room.name\", \"sender\": \"@u:s\", \"state_key\": \"\","
		"  \"content\": {\"name\": \"x\"}},"
		" {\"type\": \"m.room.member\", \"sender\": \"@v:s\", \"state_key\": \"@v:s\","
		"  \"event_id\": \"$2\", \"content\": {\"membership\": \"leave\"}},"
		" 5], \"state\": ["
		" {\"type\": \"m.room.member\", \"sender\": \"@u:s\", \"state_key\": \"@u:s\","
		"  \"content\": {\"membership\": \"join\", \"displayname\": \"U\"}}]}";
	struct buf err = BUF_INIT;
	struct mx_sync s;

	assert_int_equal(mx_messages_parse(page, strlen(page), "!r:s", &s, &err), 0);
	check_sync(&s);
	assert_string_equal(s.next_batch, "t9");
	assert_int_equal(s.nitems, 3);
	assert_int_equal(s.items[0].kind, MX_MESSAGE);
	assert_int_equal(s.items[0].from_timeline, 1);
	assert_string_equal(s.items[0].room, "!r:s");
	assert_string_equal(s.items[0].text, "!game status");
	assert_int_equal(s.items[1].kind, MX_MEMBER);
	assert_string_equal(s.items[1].membership, "leave");
	/* the lazy-loaded members of the chunk's senders, after it */
	assert_int_equal(s.items[2].kind, MX_MEMBER);
	assert_int_equal(s.items[2].from_timeline, 0);
	assert_string_equal(s.items[2].displayname, "U");
	mx_sync_release(&s);

	assert_int_equal(mx_messages_parse("{\"chunk\": []}", 13, "!r:s", &s, &err), 0);
	assert_string_equal(s.next_batch, "");	/* the last page */
	mx_sync_release(&s);
	assert_int_equal(mx_messages_parse("{\"end\": \"x\"}", 12, "!r:s", &s, &err), -1);
	mx_sync_release(&s);
	assert_int_equal(mx_messages_parse("[1]", 3, "!r:s", &s, &err), -1);
	mx_sync_release(&s);
	assert_int_equal(mx_messages_parse("{\"chunk\": []}", 13, "", &s, &err), -1);
	mx_sync_release(&s);
	buf_release(&err);
}

/* ---- filters ---- */

static const char *type_at(json_t *arr, size_t i)
{
	return json_string_value(json_array_get(arr, i));
}

static void test_filter(void **state)
{
	json_t *f = mx_sync_filter(MX_FILTER_NORMAL), *room, *tl, *st, *types;
	size_t i;

	assert_true(json_is_object(f));
	room = json_object_get(f, "room");
	tl = json_object_get(room, "timeline");
	st = json_object_get(room, "state");
	assert_int_equal(json_integer_value(json_object_get(tl, "limit")), MX_TIMELINE_LIMIT);
	types = json_object_get(tl, "types");
	assert_int_equal(json_array_size(types), 5);
	assert_string_equal(type_at(types, 0), "m.room.message");
	assert_string_equal(type_at(types, 1), "m.room.member");
	assert_string_equal(type_at(types, 2), "m.room.encryption");
	assert_string_equal(type_at(types, 3), "m.room.encrypted");
	assert_string_equal(type_at(types, 4), "m.space.parent");
	types = json_object_get(st, "types");
	assert_int_equal(json_array_size(types), 3);
	assert_string_equal(type_at(types, 0), "m.room.member");
	assert_string_equal(type_at(types, 1), "m.room.encryption");
	assert_string_equal(type_at(types, 2), "m.space.parent");
	assert_true(json_is_true(json_object_get(st, "lazy_load_members")));
	assert_true(json_is_true(json_object_get(st, "include_redundant_members")));
	assert_null(json_object_get(room, "rooms"));
	types = json_object_get(json_object_get(f, "account_data"), "types");
	assert_int_equal(json_array_size(types), 1);
	assert_string_equal(type_at(types, 0), "m.direct");
	{
		json_t *nones[] = {
			json_object_get(f, "presence"), json_object_get(room, "ephemeral"),
			json_object_get(room, "account_data"),
		};

		for (i = 0; i < 3; i++) {
			types = json_object_get(nones[i], "not_types");
			assert_int_equal(json_array_size(types), 1);
			assert_string_equal(type_at(types, 0), "*");
		}
	}
	json_decref(f);

	f = mx_sync_filter(MX_FILTER_TIGHT);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		json_object_get(f, "room"), "timeline"), "limit")), MX_TIGHT_LIMIT);
	assert_true(MX_TIGHT_LIMIT < MX_TIMELINE_LIMIT);
	json_decref(f);

	/* no room at all, no account data */
	f = mx_sync_filter(MX_FILTER_SKIP);
	room = json_object_get(f, "room");
	assert_true(json_is_array(json_object_get(room, "rooms")));
	assert_int_equal(json_array_size(json_object_get(room, "rooms")), 0);
	assert_string_equal(type_at(json_object_get(json_object_get(f, "account_data"),
						    "not_types"), 0), "*");
	json_decref(f);

	f = mx_messages_filter();
	assert_int_equal(json_array_size(json_object_get(f, "types")), 5);
	assert_true(json_is_true(json_object_get(f, "lazy_load_members")));
	json_decref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_realistic),
		cmocka_unit_test(test_room_order_kept),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_names_and_ids),
		cmocka_unit_test(test_wrong_types_never_crash),
		cmocka_unit_test(test_truncated_and_flipped_bytes),
		cmocka_unit_test(test_invite_only_our_event),
		cmocka_unit_test(test_summary_and_prev_membership),
		cmocka_unit_test(test_messages_page),
		cmocka_unit_test(test_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
