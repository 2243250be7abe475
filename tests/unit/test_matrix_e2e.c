/* adapters/matrix: mxe2e (the bot's device against a scripted homeserver
 * and a player's device made with mxcrypto), mxkeys (trust on first use),
 * held events in the store (mxhold.h; the list's own rules are in
 * test_matrix_hold.c), and mxsync's end-to-end decoders. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/mxcrypto.h"
#include "adapters/matrix/mxe2e.h"
#include "adapters/matrix/mxhold.h"
#include "adapters/matrix/mxkeys.h"
#include "adapters/matrix/mxsync.h"
#include "state/store.h"
#include "util/buf.h"

#define BOT "@bot:s"
#define ANA "@ana:s"
#define ROOM "!r:s"

/* ---- a scripted homeserver ---- */

struct call {
	char method[8];
	char path[256];
	json_t *body;
	mxe_done_fn done;
	void *ctx;
};

static struct call calls[64];
static size_t ncalls;
static int64_t clock_ms = 1700000000000LL;
static int ready_ok = -1;

static void io_call(void *ctx, const char *method, const char *path, const json_t *body,
		    mxe_done_fn done, void *done_ctx)
{
	struct call *c = &calls[ncalls++];

	assert_true(ncalls < 64);
	snprintf(c->method, sizeof(c->method), "%s", method);
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->body = body ? json_deep_copy(body) : NULL;
	c->done = done;
	c->ctx = done_ctx;
}

/* The bot, Ana and Ben are in every room but OUTSIDE; @lazy:s may be (the
 * homeserver says), @eve:s and everybody else are not. */
#define OUTSIDE "!outside:s"
static int io_joined(void *ctx, const char *room, const char *user)
{
	if (!strcmp(room, OUTSIDE))
		return 0;
	if (!strcmp(user, BOT) || !strcmp(user, ANA) || !strcmp(user, "@ben:s"))
		return 1;
	if (!strcmp(user, "@lazy:s"))
		return -1;
	return 0;
}

static int64_t io_now(void *ctx)
{
	return clock_ms;
}

/* The oldest call not answered whose path starts with prefix. */
static struct call *pending(const char *prefix)
{
	size_t i;

	for (i = 0; i < ncalls; i++)
		if (calls[i].done && !strncmp(calls[i].path, prefix, strlen(prefix)))
			return &calls[i];
	return NULL;
}

static void answer(struct call *c, long status, json_t *body)
{
	char *text = body ? json_dumps(body, JSON_COMPACT) : strdup("{}");
	mxe_done_fn done = c->done;

	c->done = NULL;
	done(c->ctx, status, text, strlen(text));
	free(text);
	json_decref(body);
}

static void calls_reset(void)
{
	size_t i;

	for (i = 0; i < ncalls; i++)
		json_decref(calls[i].body);
	ncalls = 0;
}

static void on_ready(void *ctx, int ok)
{
	ready_ok = ok;
}

static int checked_n;

static void on_checked(void *ctx)
{
	checked_n++;
}

/* What mxe2e_io.new_device said last, and how often. */
static char told_device[64], told_name[64], told_fp[128];
static int told_n, told_cross;

static void io_new_device(void *ctx, const char *user, const char *device, const char *name,
			  const char *fingerprint, int cross)
{
	assert_string_equal(user, ANA);
	snprintf(told_device, sizeof(told_device), "%s", device);
	snprintf(told_name, sizeof(told_name), "%s", name);
	snprintf(told_fp, sizeof(told_fp), "%s", fingerprint);
	told_cross = cross;
	told_n++;
}

/* ---- the player's device ---- */

struct player {
	struct mxc_account *acc;
	struct mxc_olm *to_bot;		/* its Olm session with the bot */
	struct mxc_out *out;		/* its room key */
	char *first_key;
};

static struct player ana;

static struct mxe2e *bot_new(struct store *st, const char *pickle_key)
{
	struct mxe2e_io io = { .call = io_call, .is_joined = io_joined, .store = st,
			       .now_ms = io_now, .new_device = io_new_device };
	struct mxc_key k;
	struct buf err = BUF_INIT;

	assert_int_equal(mxc_pickle_key_load(pickle_key, NULL, &k, &err), 0);
	buf_release(&err);
	return mxe2e_new(&io, &k, 1, 2, 0, 0);
}

/* The bot's /keys/upload: its device keys and a one-time key from it. */
static char *bot_otk(json_t *upload)
{
	json_t *otks = json_object_get(upload, "one_time_keys"), *v;
	const char *id;

	json_object_foreach(otks, id, v)
		return strdup(json_string_value(json_object_get(v, "key")));
	return NULL;
}

/* A sync body with to_device events and a room timeline. */
static void sync_of(struct mx_sync *s, json_t *to_device, json_t *timeline)
{
	json_t *body = json_pack("{s:s, s:{s:o}, s:{s:{s:{s:{s:o}}}}}", "next_batch", "s1",
				 "to_device", "events", to_device ? to_device : json_array(),
				 "rooms", "join", ROOM, "timeline", "events",
				 timeline ? timeline : json_array());
	char *text = json_dumps(body, JSON_COMPACT);
	struct buf err = BUF_INIT;

	assert_int_equal(mx_sync_parse(text, strlen(text), BOT, s, &err), 0);
	free(text);
	json_decref(body);
	buf_release(&err);
}

/* Ana's m.room_key for her room key, to the bot over Olm. */
static json_t *room_key_event(const char *bot_curve, const char *bot_ed, const char *otk)
{
	struct buf err = BUF_INIT;
	json_t *p;
	char *text, *ct;
	int type;

	if (!ana.to_bot)
		ana.to_bot = mxc_olm_outbound(ana.acc, bot_curve, otk, &err);
	assert_non_null(ana.to_bot);
	p = json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:{s:s}, s:{s:s}}",
		      "type", "m.room_key", "content", "algorithm", MXC_MEGOLM_ALGORITHM,
		      "room_id", ROOM, "session_id", mxc_out_id(ana.out), "session_key", ana.first_key,
		      "sender", ANA, "recipient", BOT, "recipient_keys", "ed25519", bot_ed,
		      "keys", "ed25519", mxc_account_ed(ana.acc));
	text = json_dumps(p, JSON_COMPACT);
	assert_int_equal(mxc_olm_encrypt(ana.to_bot, text, strlen(text), &type, &ct, &err), 0);
	json_decref(p);
	free(text);
	p = json_pack("[{s:s, s:s, s:{s:s, s:s, s:{s:{s:i, s:s}}}}]", "type", "m.room.encrypted",
		      "sender", ANA, "content", "algorithm", MXC_OLM_ALGORITHM, "sender_key",
		      mxc_account_curve(ana.acc), "ciphertext", bot_curve, "type", type, "body", ct);
	free(ct);
	buf_release(&err);
	return p;
}

/* An encrypted message from sender under Ana's room key. */
static json_t *cipher_event(const char *sender, const char *event_id, const char *room,
			    const char *body)
{
	json_t *p = json_pack("{s:s, s:{s:s, s:s}, s:s}", "type", "m.room.message", "content",
			      "msgtype", "m.text", "body", body, "room_id", room);
	char *text = json_dumps(p, JSON_COMPACT), *ct = mxc_out_encrypt(ana.out, text, strlen(text));
	json_t *ev = json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s}}",
			       "type", "m.room.encrypted", "sender", sender, "event_id", event_id,
			       "content", "algorithm", MXC_MEGOLM_ALGORITHM, "sender_key",
			       mxc_account_curve(ana.acc), "session_id", mxc_out_id(ana.out),
			       "device_id", "ANA1", "ciphertext", ct);

	free(text);
	free(ct);
	json_decref(p);
	return ev;
}

static json_t *signed_device(struct mxc_account *a, const char *user, const char *dev)
{
	return mxc_account_device_keys(a, user, dev);
}

/* The only MX_CIPHER item of s. */
static const struct mx_item *cipher_in(const struct mx_sync *s)
{
	size_t i;

	for (i = 0; i < s->nitems; i++)
		if (s->items[i].kind == MX_CIPHER)
			return &s->items[i];
	fail_msg("no cipher item");
	return NULL;
}

static void test_e2e_device_room_keys_and_sharing(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct mxe2e *e = bot_new(st, "a pickle key of length");
	struct mx_sync s, plain, ready;
	struct mxc_account *phone;
	struct call *c;
	json_t *up, *dk, *tl;
	const char *members[] = { BOT, ANA };
	char *otk, bot_curve[64], bot_ed[64], fp[64], ref[MXE_REF_SIZE];
	const char *id;
	json_t *v;

	memset(&ana, 0, sizeof(ana));
	phone = mxc_account_new();
	ana.acc = mxc_account_new();
	ana.out = mxc_out_new();
	ana.first_key = mxc_out_key(ana.out);
	/* start: device keys, one-time keys and a fallback key go up */
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 2, NULL, on_ready, NULL), -1);
	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), 0);
	c = pending("/_matrix/client/v3/keys/upload");
	assert_non_null(c);
	up = json_incref(c->body);
	dk = json_object_get(up, "device_keys");
	snprintf(bot_curve, sizeof(bot_curve), "%s", json_string_value(json_object_get(
		 json_object_get(dk, "keys"), "curve25519:BOTDEV")));
	snprintf(bot_ed, sizeof(bot_ed), "%s", json_string_value(json_object_get(
		 json_object_get(dk, "keys"), "ed25519:BOTDEV")));
	assert_string_equal(mxe2e_fingerprint(e), bot_ed);
	assert_int_equal(mxc_verify_json(dk, BOT, "ed25519:BOTDEV", bot_ed), 0);
	assert_int_equal(json_object_size(json_object_get(up, "one_time_keys")), 50);
	assert_int_equal(json_object_size(json_object_get(up, "fallback_keys")), 1);
	answer(c, 200, json_pack("{s:{s:i}}", "one_time_key_counts", "signed_curve25519", 50));
	otk = bot_otk(up);

	/* a message before its key: held, and comes back once the key does */
	tl = json_pack("[o]", cipher_event(ANA, "$e1", ROOM, "!play 1"));
	sync_of(&s, NULL, tl);
	assert_int_equal(mxe2e_decrypt(e, cipher_in(&s), &plain), MXE_HELD);
	mx_sync_release(&plain);
	assert_int_equal(mxe2e_take_ready(e, &ready), 0);
	mx_sync_release(&s);
	sync_of(&s, room_key_event(bot_curve, bot_ed, otk), NULL);
	mxe2e_sync(e, &s);
	mx_sync_release(&s);
	/* Ana's devices are asked for before her key is taken; meanwhile
	 * the key waits (the batch with it too) */
	checked_n = 0;
	assert_int_equal(mxe2e_checking(e, on_checked, NULL), 1);
	assert_int_equal(mxe2e_take_ready(e, &ready), 0);
	c = pending("/_matrix/client/v3/keys/query");
	assert_non_null(c);
	assert_non_null(json_object_get(json_object_get(c->body, "device_keys"), ANA));
	/* ANA1 sent the bot her key; ANA2 is a new phone */
	answer(c, 200, json_pack("{s:{s:{s:o, s:o}}, s:{}}", "device_keys", ANA, "ANA1",
				 signed_device(ana.acc, ANA, "ANA1"), "ANA2",
				 signed_device(phone, ANA, "ANA2"), "failures"));
	assert_int_equal(checked_n, 1);
	assert_int_equal(mxe2e_checking(e, on_checked, NULL), 0);
	s.nitems = 0;
	mxe2e_sync(e, &s);
	assert_int_equal(mxe2e_take_ready(e, &ready), 1);
	assert_int_equal(ready.nitems, 1);
	assert_int_equal(mxe2e_take_ready(e, &s), 0);	/* one room, once a round */
	assert_int_equal(mxe2e_decrypt(e, &ready.items[0], &plain), MXE_OK);
	assert_int_equal(plain.nitems, 1);
	assert_int_equal(plain.items[0].kind, MX_MESSAGE);
	assert_string_equal(plain.items[0].text, "!play 1");
	assert_string_equal(plain.items[0].sender, ANA);
	assert_string_equal(plain.items[0].event_id, "$e1");
	mx_sync_release(&plain);
	snprintf(ref, sizeof(ref), "%s", mxe2e_ref(e));
	assert_non_null(strstr(ref, ANA));
	/* still held until the adapter has handled it */
	s.nitems = 0;
	mxe2e_sync(e, &s);
	assert_int_equal(mxe2e_take_ready(e, &plain), 1);
	mx_sync_release(&plain);
	mxe2e_forget(e, "$e1");
	mxe2e_sync(e, &s);
	assert_int_equal(mxe2e_take_ready(e, &plain), 0);
	/* the same event again decrypts while it is not handled (a batch
	 * read again after a crash before the commit) */
	assert_int_equal(mxe2e_decrypt(e, &ready.items[0], &plain), MXE_OK);
	mx_sync_release(&plain);
	/* handled: the same event again, or its ciphertext under another
	 * event id, is a replay */
	mxe2e_handled(e, ref);
	assert_int_equal(mxe2e_decrypt(e, &ready.items[0], &plain), MXE_BAD);
	assert_string_equal(mxe2e_ref(e), "");
	mx_sync_release(&plain);
	{
		json_t *ev = mx_cipher_event(&ready.items[0]);
		struct mx_sync r2;

		json_object_set_new(ev, "event_id", json_string("$replay"));
		sync_of(&r2, NULL, json_pack("[o]", ev));
		assert_int_equal(mxe2e_decrypt(e, cipher_in(&r2), &plain), MXE_BAD);
		mx_sync_release(&plain);
		mx_sync_release(&r2);
	}
	mx_sync_release(&ready);
	/* Ana's key used by someone else (Eve has no copy of her own: it
	 * waits for one), a message naming another room */
	sync_of(&s, NULL, json_pack("[o]", cipher_event("@eve:s", "$e2", ROOM, "!game abort")));
	assert_int_equal(mxe2e_decrypt(e, cipher_in(&s), &plain), MXE_HELD);
	mxe2e_forget(e, "$e2");
	mx_sync_release(&plain);
	mx_sync_release(&s);
	sync_of(&s, NULL, json_pack("[o]", cipher_event(ANA, "$e3", "!other:s", "!game abort")));
	assert_int_equal(mxe2e_decrypt(e, cipher_in(&s), &plain), MXE_BAD);
	mx_sync_release(&plain);
	mx_sync_release(&s);

	/* sharing the bot's key: Ana's devices asked for, a key claimed,
	 * the key sent over Olm; then the message sealed */
	ready_ok = -1;
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 2, NULL, on_ready, NULL), 1);
	c = pending("/_matrix/client/v3/keys/query");
	assert_non_null(c);
	/* Ana's list is fresh (asked for her key): only the bot's own */
	assert_null(json_object_get(json_object_get(c->body, "device_keys"), ANA));
	assert_non_null(json_object_get(json_object_get(c->body, "device_keys"), BOT));
	/* ANA1 sent the bot her key: it has an Olm session with her; ANA2
	 * (a new phone) gets one from a claimed key */
	answer(c, 200, json_pack("{s:{s:{s:O}}, s:{}}", "device_keys", BOT, "BOTDEV", dk,
				 "failures"));
	c = pending("/_matrix/client/v3/keys/claim");
	assert_non_null(c);
	assert_null(json_object_get(json_object_get(json_object_get(c->body, "one_time_keys"), ANA),
				    "ANA1"));
	{
		json_t *ok = json_object(), *k;

		mxc_account_generate_otks(phone, 1);
		k = mxc_account_otks(phone, ANA, "ANA2");
		json_object_foreach(k, id, v)
			json_object_set(ok, id, v);
		mxc_account_published(phone);
		answer(c, 200, json_pack("{s:{s:{s:o}}}", "one_time_keys", ANA, "ANA2", ok));
		json_decref(k);
	}
	c = pending("/_matrix/client/v3/sendToDevice/m.room.encrypted/");
	assert_non_null(c);
	{
		json_t *msgs = json_object_get(json_object_get(c->body, "messages"), ANA);
		json_t *mine = json_object_get(json_object_get(json_object_get(msgs, "ANA1"),
							       "ciphertext"), mxc_account_curve(ana.acc));
		json_t *ph = json_object_get(json_object_get(json_object_get(msgs, "ANA2"),
							     "ciphertext"), mxc_account_curve(phone));
		struct mxc_olm *in = mxc_olm_inbound(phone, bot_curve,
						     json_string_value(json_object_get(ph, "body")),
						     &err);
		char *pt, *ct;
		size_t n;
		uint32_t idx;
		json_t *p, *sealed, *content;
		struct mxc_in *key;

		assert_non_null(in);
		assert_null(json_object_get(json_object_get(c->body, "messages"), BOT));
		assert_int_equal(json_integer_value(json_object_get(ph, "type")), 0);
		assert_int_equal(mxc_olm_decrypt(in, 0, json_string_value(json_object_get(ph, "body")),
						 &pt, &n, &err), 0);
		mxc_free_secret(pt);
		/* on the session Ana opened: a normal message */
		assert_int_equal(json_integer_value(json_object_get(mine, "type")), 1);
		assert_int_equal(mxc_olm_decrypt(ana.to_bot, 1,
						 json_string_value(json_object_get(mine, "body")),
						 &pt, &n, &err), 0);
		p = json_loads(pt, 0, NULL);
		assert_string_equal(json_string_value(json_object_get(p, "type")), "m.room_key");
		assert_string_equal(json_string_value(json_object_get(p, "recipient")), ANA);
		key = mxc_in_new(json_string_value(json_object_get(json_object_get(p, "content"),
								      "session_key")), 0, &err);
		assert_non_null(key);
		answer(c, 200, NULL);
		assert_int_equal(ready_ok, 1);
		content = json_pack("{s:s, s:s, s:{s:s, s:s}}", "msgtype", "m.notice", "body",
				    "your hand", "m.relates_to", "rel_type", "m.replace", "event_id",
				    "$x");
		sealed = mxe2e_seal(e, ROOM, content, &err);
		assert_non_null(sealed);
		/* nothing but the Megolm fields and the relation in clear */
		assert_null(json_object_get(sealed, "body"));
		assert_non_null(json_object_get(sealed, "m.relates_to"));
		ct = (char *)json_string_value(json_object_get(sealed, "ciphertext"));
		assert_null(strstr(ct, "hand"));
		free(pt);
		assert_int_equal(mxc_in_decrypt(key, ct, &pt, &n, &idx, &err), 0);
		assert_non_null(strstr(pt, "your hand"));
		assert_null(strstr(pt, "m.relates_to"));
		assert_non_null(strstr(pt, "\"room_id\":\"" ROOM "\""));
		mxc_free_secret(pt);
		snprintf(fp, sizeof(fp), "%s", json_string_value(json_object_get(sealed,
										  "session_id")));
		json_decref(p);
		json_decref(sealed);
		json_decref(content);
		mxc_olm_free(in);
		mxc_in_free(key);
	}
	/* ready at once now; after Ana leaves, a new key nobody else gets */
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 2, NULL, on_ready, NULL), 0);
	mxe2e_member_left(e, ROOM, ANA);
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 1, NULL, on_ready, NULL), 0);
	{
		json_t *content = json_pack("{s:s, s:s}", "msgtype", "m.notice", "body", "x");
		json_t *sealed = mxe2e_seal(e, ROOM, content, &err);

		assert_string_not_equal(json_string_value(json_object_get(sealed, "session_id")),
					fp);
		json_decref(sealed);
		json_decref(content);
	}
	assert_null(pending("/_matrix/client/v3/sendToDevice"));

	/* a restart: the same device; what waits and what was received kept */
	sync_of(&s, NULL, json_pack("[o]", cipher_event(ANA, "$e4", ROOM, "!play 2")));
	mxe2e_free(e);
	calls_reset();
	e = bot_new(st, "a pickle key of length");
	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), 0);
	assert_string_equal(mxe2e_fingerprint(e), bot_ed);
	assert_null(pending("/_matrix/client/v3/keys/upload"));	/* nothing new to upload */
	assert_int_equal(mxe2e_decrypt(e, cipher_in(&s), &plain), MXE_OK);
	assert_string_equal(plain.items[0].text, "!play 2");
	mx_sync_release(&plain);
	mx_sync_release(&s);
	/* the one-time keys run low: topped up to half the account's */
	{
		struct mx_sync low;

		memset(&low, 0, sizeof(low));
		low.otk_count = 10;
		low.fallback_unused = 0;
		mxe2e_sync(e, &low);
		c = pending("/_matrix/client/v3/keys/upload");
		assert_non_null(c);
		assert_int_equal(json_object_size(json_object_get(c->body, "one_time_keys")), 40);
		assert_int_equal(json_object_size(json_object_get(c->body, "fallback_keys")), 1);
		assert_null(json_object_get(c->body, "device_keys"));
		answer(c, 200, NULL);
	}
	mxe2e_free(e);
	calls_reset();
	/* another pickle key does not open the account */
	e = bot_new(st, "another pickle key here");
	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), -1);
	assert_non_null(strstr(buf_str(&err), "does not open"));
	assert_false(mxe2e_started(e));
	mxe2e_free(e);
	json_decref(up);
	free(otk);
	mxc_free_secret(ana.first_key);
	mxc_olm_free(ana.to_bot);
	mxc_out_free(ana.out);
	mxc_account_free(ana.acc);
	mxc_account_free(phone);
	store_close(st);
	calls_reset();
	buf_release(&err);
}

/*
 * A sync response asked before an upload was answered carries the key
 * counts from before it: taken as they are, the one-time keys were topped
 * up twice (100 on the server, all the account holds), and the next top-up
 * pushed the oldest out of the account while the server still handed them
 * out, or a player had claimed one: their pre-key message then opened no
 * session (BAD_MESSAGE_KEY_ID), and every command under the room key it
 * carried waited in vain (found by tests/integration/matrix_interop_test.py).
 * The counts of the first sync response after an upload's answer are not
 * used; those of the next one are.
 */
static void test_e2e_key_counts_from_before_an_upload_ignored(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct mxe2e *e = bot_new(st, "a pickle key of length");
	struct mx_sync s;
	struct call *c;

	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), 0);
	c = pending("/_matrix/client/v3/keys/upload");
	assert_non_null(c);
	assert_int_equal(json_object_size(json_object_get(c->body, "one_time_keys")), 50);
	/* a sync answered while the upload is on its way: nothing more goes */
	memset(&s, 0, sizeof(s));
	s.otk_count = 0;
	s.fallback_unused = 0;
	mxe2e_sync(e, &s);
	answer(c, 200, json_pack("{s:{s:i}}", "one_time_key_counts", "signed_curve25519", 50));
	assert_null(pending("/_matrix/client/v3/keys/upload"));
	/* the next response was asked before that answer: its counts are old */
	mxe2e_sync(e, &s);
	assert_null(pending("/_matrix/client/v3/keys/upload"));
	/* the one after says what the server holds now */
	s.otk_count = 50;
	s.fallback_unused = 1;
	mxe2e_sync(e, &s);
	assert_null(pending("/_matrix/client/v3/keys/upload"));
	/* and when they run low, a top-up goes, once */
	s.otk_count = 10;
	s.fallback_unused = 0;
	mxe2e_sync(e, &s);
	c = pending("/_matrix/client/v3/keys/upload");
	assert_non_null(c);
	assert_int_equal(json_object_size(json_object_get(c->body, "one_time_keys")), 40);
	assert_int_equal(json_object_size(json_object_get(c->body, "fallback_keys")), 1);
	answer(c, 200, json_pack("{s:{s:i}}", "one_time_key_counts", "signed_curve25519", 50));
	mxe2e_sync(e, &s);
	assert_null(pending("/_matrix/client/v3/keys/upload"));
	mxe2e_free(e);
	store_close(st);
	calls_reset();
	buf_release(&err);
}

/* ---- a player's private chat: pinned devices ---- */

#define DM "!dm:s"

/* A /keys/query answer for Ana: ANA1 (ana.acc), and ANA2 (phone, named
 * "Phone") unless phone is NULL. */
static json_t *ana_devices(struct mxc_account *phone)
{
	json_t *devs = json_pack("{s:o}", "ANA1", signed_device(ana.acc, ANA, "ANA1"));

	if (phone) {
		json_t *d = signed_device(phone, ANA, "ANA2");

		json_object_set_new(d, "unsigned", json_pack("{s:s}", "device_display_name",
							     "Phone"));
		json_object_set_new(devs, "ANA2", d);
	}
	return json_pack("{s:{s:o}, s:{}}", "device_keys", ANA, devs, "failures");
}

/* Answers the pending claim with a one-time key of each (device, account). */
static void answer_claim(struct call *c, const char *dev1, struct mxc_account *a1,
			 const char *dev2, struct mxc_account *a2)
{
	json_t *mine = json_object();
	const char *devs[2] = { dev1, dev2 };
	struct mxc_account *accs[2] = { a1, a2 };
	size_t i;

	for (i = 0; i < 2; i++) {
		json_t *k;

		if (!devs[i])
			continue;
		mxc_account_generate_otks(accs[i], 1);
		k = mxc_account_otks(accs[i], ANA, devs[i]);
		mxc_account_published(accs[i]);
		json_object_set_new(mine, devs[i], k);
	}
	answer(c, 200, json_pack("{s:{s:o}}", "one_time_keys", ANA, mine));
}

/* The devices of Ana a key share goes to ("ANA1,ANA2"), and answers it. */
static void shared_to(char *out, size_t n)
{
	struct call *c = pending("/_matrix/client/v3/sendToDevice/m.room.encrypted/");
	const char *id;
	json_t *v;

	out[0] = '\0';
	assert_non_null(c);
	json_object_foreach(json_object_get(json_object_get(c->body, "messages"), ANA), id, v)
		snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? "," : "", id);
	answer(c, 200, NULL);
}

/* The session id of the bot's next message in the private chat. */
static const char *dm_session(struct mxe2e *e)
{
	static char sid[64];
	struct buf err = BUF_INIT;
	json_t *content = json_pack("{s:s, s:s}", "msgtype", "m.notice", "body", "x");
	json_t *sealed = mxe2e_seal(e, DM, content, &err);

	assert_non_null(sealed);
	snprintf(sid, sizeof(sid), "%s", json_string_value(json_object_get(sealed, "session_id")));
	json_decref(sealed);
	json_decref(content);
	buf_release(&err);
	return sid;
}

static void test_e2e_private_chat_new_device(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct mxe2e *e = bot_new(st, "a pickle key of length");
	struct mxc_account *phone = mxc_account_new();
	const char *dm_members[] = { BOT, ANA }, *room_members[] = { BOT, ANA };
	struct call *c;
	struct mx_sync s;
	char to[64], fp[128], sid[64];

	memset(&ana, 0, sizeof(ana));
	ana.acc = mxc_account_new();
	told_n = 0;
	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), 0);
	answer(pending("/_matrix/client/v3/keys/upload"), 200, NULL);
	/* Ana's first command pins her devices: asked for at once */
	mxe2e_pin(e, ANA);
	c = pending("/_matrix/client/v3/keys/query");
	assert_non_null(c);
	answer(c, 200, ana_devices(NULL));
	mxe2e_pin(e, ANA);			/* once */
	assert_null(pending("/_matrix/client/v3/keys/query"));
	/* a device appears: asked for at once, and she is told of it once */
	{
		const char *body = "{\"next_batch\": \"s2\", \"device_lists\": "
				   "{\"changed\": [\"" ANA "\"]}}";

		assert_int_equal(mx_sync_parse(body, strlen(body), BOT, &s, &err), 0);
	}
	mxe2e_sync(e, &s);
	answer(pending("/_matrix/client/v3/keys/query"), 200, ana_devices(phone));
	assert_int_equal(told_n, 1);
	assert_string_equal(told_device, "ANA2");
	assert_string_equal(told_name, "Phone");
	assert_false(told_cross);
	snprintf(fp, sizeof(fp), "%.4s %.4s", mxc_account_ed(phone), mxc_account_ed(phone) + 4);
	assert_memory_equal(told_fp, fp, 9);
	assert_int_equal(strlen(told_fp), 43 + 10);	/* 11 groups */
	mxe2e_sync(e, &s);
	answer(pending("/_matrix/client/v3/keys/query"), 200, ana_devices(phone));
	assert_int_equal(told_n, 1);
	mx_sync_release(&s);

	/* her private chat's key: ANA1 only */
	ready_ok = -1;
	assert_int_equal(mxe2e_prepare(e, DM, dm_members, 2, ANA, on_ready, NULL), 1);
	answer(pending("/_matrix/client/v3/keys/query"), 200,
	       json_pack("{s:{s:{}}}", "device_keys", BOT));	/* the bot's own */
	c = pending("/_matrix/client/v3/keys/claim");
	assert_non_null(c);
	assert_null(json_object_get(json_object_get(json_object_get(c->body, "one_time_keys"), ANA),
				    "ANA2"));
	answer_claim(c, "ANA1", ana.acc, NULL, NULL);
	shared_to(to, sizeof(to));
	assert_string_equal(to, "ANA1");
	assert_int_equal(ready_ok, 1);
	/* a game room's, as before: every device of hers */
	assert_int_equal(mxe2e_prepare(e, ROOM, room_members, 2, NULL, on_ready, NULL), 1);
	answer_claim(pending("/_matrix/client/v3/keys/claim"), "ANA2", phone, NULL, NULL);
	shared_to(to, sizeof(to));
	assert_true(!strcmp(to, "ANA1,ANA2") || !strcmp(to, "ANA2,ANA1"));

	/* approving: only from a device she trusts, only a device of hers */
	assert_int_equal(mxe2e_trust(e, ANA, mxc_account_curve(phone), "ANA2"),
			 MXE_TRUST_NOT_FROM_TRUSTED);
	assert_int_equal(mxe2e_trust(e, ANA, "", "ANA2"), MXE_TRUST_OFF);	/* in clear */
	assert_int_equal(mxe2e_trust(e, "@eve:s", mxc_account_curve(ana.acc), "ANA2"),
			 MXE_TRUST_NOT_FROM_TRUSTED);
	assert_int_equal(mxe2e_trust(e, ANA, mxc_account_curve(ana.acc), "ANA3"),
			 MXE_TRUST_UNKNOWN);
	assert_int_equal(mxe2e_trust(e, ANA, mxc_account_curve(ana.acc), "ANA1"),
			 MXE_TRUST_ALREADY);
	assert_int_equal(mxe2e_prepare(e, DM, dm_members, 2, ANA, on_ready, NULL), 0);
	assert_null(pending("/_matrix/client/v3/sendToDevice"));
	snprintf(sid, sizeof(sid), "%s", dm_session(e));
	/* a restart: still pending, not told again */
	mxe2e_free(e);
	calls_reset();
	e = bot_new(st, "a pickle key of length");
	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), 0);
	assert_int_equal(mxe2e_prepare(e, DM, dm_members, 2, ANA, on_ready, NULL), 1);
	c = pending("/_matrix/client/v3/keys/query");
	answer(c, 200, ana_devices(phone));
	if ((c = pending("/_matrix/client/v3/keys/query")))
		answer(c, 200, json_pack("{s:{s:{}}}", "device_keys", BOT));
	assert_int_equal(told_n, 1);
	assert_null(pending("/_matrix/client/v3/sendToDevice"));
	assert_int_equal(mxe2e_trust(e, ANA, mxc_account_curve(ana.acc), "ANA2"), MXE_TRUST_OK);
	assert_int_equal(mxe2e_trust(e, ANA, mxc_account_curve(ana.acc), "ANA2"),
			 MXE_TRUST_ALREADY);
	/* the next message there shares the key with it, no new key */
	assert_int_equal(mxe2e_prepare(e, DM, dm_members, 2, ANA, on_ready, NULL), 1);
	shared_to(to, sizeof(to));
	assert_string_equal(to, "ANA2");
	assert_string_equal(dm_session(e), sid);
	mxe2e_free(e);
	calls_reset();
	mxc_account_free(ana.acc);
	mxc_account_free(phone);
	store_close(st);
	buf_release(&err);
}

/* ---- mxkeys ---- */

static void test_keys_trust_on_first_use(void **state)
{
	struct mxkeys k;
	struct mxc_account *a = mxc_account_new(), *b = mxc_account_new(), *forged = mxc_account_new();
	json_t *ans = json_object(), *bad;
	struct mxk_user *u;
	char *enc, otk[MX_KEY_SIZE];
	const char *id;
	json_t *v, *otks;

	mxk_init(&k, 1, 2);
	u = mxk_add(&k, ANA, NULL);
	assert_false(u->fresh);
	json_object_set_new(ans, "D1", signed_device(a, ANA, "D1"));
	json_object_set_new(ans, "D2", signed_device(b, ANA, "D2"));
	bad = signed_device(b, ANA, "D3");		/* signed, then altered */
	json_object_set_new(bad, "device_id", json_string("D4"));
	json_object_set_new(ans, "D4", bad);
	json_object_set_new(ans, "D5", signed_device(b, "@eve:s", "D5"));	/* another user's */
	json_object_set_new(ans, "ME", signed_device(b, ANA, "ME"));
	assert_int_equal(mxk_apply(u, ans, "ME"), 1);
	assert_true(u->fresh);
	assert_int_equal(u->ndev, 2);
	assert_non_null(mxk_by_curve(u, mxc_account_curve(a)));
	assert_true(mxk_usable(mxk_by_curve(u, mxc_account_curve(b))));
	assert_int_equal(mxk_apply(u, ans, "ME"), 0);		/* nothing new */
	/* D1 comes back with other keys: blocked for good; D2 is gone */
	json_object_clear(ans);
	json_object_set_new(ans, "D1", signed_device(forged, ANA, "D1"));
	assert_int_equal(mxk_apply(u, ans, NULL), 1);
	assert_true(mxk_by_curve(u, mxc_account_curve(a))->blocked);
	assert_null(mxk_by_curve(u, mxc_account_curve(forged)));
	assert_true(mxk_by_curve(u, mxc_account_curve(b))->gone);
	assert_false(mxk_usable(mxk_by_curve(u, mxc_account_curve(b))));
	json_object_clear(ans);
	json_object_set_new(ans, "D1", signed_device(a, ANA, "D1"));	/* the old keys back */
	mxk_apply(u, ans, NULL);
	assert_true(mxk_by_curve(u, mxc_account_curve(a))->blocked);
	/* stored and read back (not fresh: asked again) */
	enc = mxk_encode(u);
	mxk_drop(&k, ANA);
	assert_null(mxk_get(&k, ANA));
	u = mxk_add(&k, ANA, enc);
	assert_false(u->fresh);
	assert_int_equal(u->ndev, 2);
	assert_true(mxk_by_curve(u, mxc_account_curve(a))->blocked);
	assert_true(mxk_by_curve(u, mxc_account_curve(b))->gone);
	free(enc);
	mxk_drop(&k, ANA);
	assert_int_equal(mxk_add(&k, ANA, "not json")->ndev, 0);
	/* a claimed key counts only when its device signed it */
	json_object_clear(ans);
	json_object_set_new(ans, "D2", signed_device(b, ANA, "D2"));
	u = mxk_get(&k, ANA);
	mxk_apply(u, ans, NULL);
	mxc_account_generate_otks(b, 1);
	otks = mxc_account_otks(b, ANA, "D2");
	{
		json_t *claim = json_pack("{s:{s:{s:O}}}", "one_time_keys", ANA, "D2", otks);
		const struct mxk_device *d = mxk_by_curve(u, mxc_account_curve(b));

		assert_int_equal(mxk_claimed(claim, ANA, d, otk), 0);
		json_object_foreach(otks, id, v)
			assert_string_equal(otk, json_string_value(json_object_get(v, "key")));
		json_object_foreach(otks, id, v)
			json_object_set_new(v, "key", json_string(mxc_account_curve(forged)));
		json_decref(claim);
		claim = json_pack("{s:{s:{s:O}}}", "one_time_keys", ANA, "D2", otks);
		assert_int_equal(mxk_claimed(claim, ANA, d, otk), -1);
		assert_int_equal(mxk_claimed(json_object_get(claim, "nothing"), ANA, d, otk), -1);
		json_decref(claim);
	}
	json_decref(otks);
	json_decref(ans);
	mxk_release(&k);
	mxc_account_free(a);
	mxc_account_free(b);
	mxc_account_free(forged);
}

/* ---- mxkeys: cross-signing and pinned devices ---- */

/* A cross-signing key of user made of account k (its ed25519 key), with
 * usage, signed by signer (NULL: unsigned) under signer_id (NULL: the
 * signer's own key). */
static json_t *xkey_obj(struct mxc_account *k, const char *user, const char *usage,
			struct mxc_account *signer, const char *signer_id)
{
	char kid[MX_KEY_SIZE + 16];
	json_t *o;

	snprintf(kid, sizeof(kid), "ed25519:%s", mxc_account_ed(k));
	o = json_pack("{s:s, s:[s], s:{s:s}}", "user_id", user, "usage", usage, "keys", kid,
		      mxc_account_ed(k));
	if (signer)
		mxc_account_sign_json(signer, o, user, signer_id ? signer_id : mxc_account_ed(signer));
	return o;
}

/* A /keys/query answer for ANA: master, self-signing (either NULL: left
 * out) and the devices (stolen). */
static json_t *answer_of(json_t *master, json_t *ssk, json_t *devices)
{
	json_t *a = json_pack("{s:{s:o}, s:{}, s:{}}", "device_keys", ANA, devices,
			      "master_keys", "self_signing_keys");

	if (master)
		json_object_set_new(json_object_get(a, "master_keys"), ANA, master);
	if (ssk)
		json_object_set_new(json_object_get(a, "self_signing_keys"), ANA, ssk);
	return a;
}

/* Ana's device dev of account a, signed by ssk (NULL: not). */
static json_t *xdevice(struct mxc_account *a, const char *dev, struct mxc_account *ssk)
{
	json_t *d = signed_device(a, ANA, dev);

	if (ssk)
		mxc_account_sign_json(ssk, d, ANA, mxc_account_ed(ssk));
	return d;
}

static const struct mxk_device *dev_of(const struct mxk_user *u, struct mxc_account *a)
{
	const struct mxk_device *d = mxk_by_curve(u, mxc_account_curve(a));

	assert_non_null(d);
	return d;
}

static void test_keys_cross_signing(void **state)
{
	struct mxkeys k;
	struct mxc_account *msk = mxc_account_new(), *ssk = mxc_account_new();
	struct mxc_account *msk2 = mxc_account_new(), *ssk2 = mxc_account_new();
	struct mxc_account *d1 = mxc_account_new(), *d2 = mxc_account_new(), *d3 = mxc_account_new();
	struct mxc_account *d4 = mxc_account_new(), *other = mxc_account_new();
	struct mxk_user *u;
	json_t *ans, *devs;
	char *enc;

	mxk_init(&k, 1, 2);
	u = mxk_add(&k, ANA, NULL);
	/* master -> self-signing -> D1; D2 unsigned; D3 carries a
	 * "self-signing" signature someone else made */
	devs = json_pack("{s:o, s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2",
			 xdevice(d2, "D2", NULL), "D3", signed_device(d3, ANA, "D3"));
	mxc_account_sign_json(other, json_object_get(devs, "D3"), ANA, mxc_account_ed(ssk));
	ans = answer_of(xkey_obj(msk, ANA, "master", NULL, NULL),
			xkey_obj(ssk, ANA, "self_signing", msk, NULL), devs);
	assert_int_equal(mxk_apply_answer(u, ans, NULL), 1);
	assert_true(mxk_cross_usable(u));
	assert_string_equal(u->msk, mxc_account_ed(msk));
	assert_true(mxk_private_ok(u, dev_of(u, d1)));
	assert_false(mxk_private_ok(u, dev_of(u, d2)));
	assert_false(mxk_private_ok(u, dev_of(u, d3)));
	assert_true(mxk_usable(dev_of(u, d2)));		/* game rooms: as before */
	assert_false(mxk_pending(u, dev_of(u, d2)));	/* not pinned: nobody told */
	assert_int_equal(mxk_apply_answer(u, ans, NULL), 0);
	json_decref(ans);

	/* a self-signing key its master did not sign (another key did, under
	 * the master's id): not used, so cross-signing does not decide */
	devs = json_pack("{s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2", xdevice(d2, "D2", NULL));
	ans = answer_of(xkey_obj(msk, ANA, "master", NULL, NULL),
			xkey_obj(ssk, ANA, "self_signing", other, mxc_account_ed(msk)), devs);
	mxk_apply_answer(u, ans, NULL);
	assert_false(mxk_cross_usable(u));
	assert_true(mxk_private_ok(u, dev_of(u, d2)));	/* never pinned: first use */
	json_decref(ans);
	/* keys of the wrong shape: another user's, another usage, two keys */
	{
		json_t *bad[3];
		size_t i;

		bad[0] = xkey_obj(msk, "@eve:s", "master", NULL, NULL);
		bad[1] = xkey_obj(msk, ANA, "self_signing", NULL, NULL);
		bad[2] = xkey_obj(msk, ANA, "master", NULL, NULL);
		json_object_set_new(json_object_get(bad[2], "keys"), "ed25519:x", json_string("x"));
		for (i = 0; i < 3; i++) {
			devs = json_pack("{s:o}", "D1", xdevice(d1, "D1", ssk));
			ans = answer_of(bad[i], xkey_obj(ssk, ANA, "self_signing", msk, NULL), devs);
			mxk_apply_answer(u, ans, NULL);
			assert_false(mxk_cross_usable(u));
			assert_string_equal(u->msk, mxc_account_ed(msk));	/* kept */
			assert_false(u->msk_bad);
			json_decref(ans);
		}
	}

	/* signed again; Ana's first command pins: D1 (signed) approved */
	devs = json_pack("{s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2", xdevice(d2, "D2", NULL));
	ans = answer_of(xkey_obj(msk, ANA, "master", NULL, NULL),
			xkey_obj(ssk, ANA, "self_signing", msk, NULL), devs);
	mxk_apply_answer(u, ans, NULL);
	json_decref(ans);
	assert_int_equal(mxk_pin(u), 1);
	assert_int_equal(mxk_pin(u), 0);
	assert_int_equal(u->pin, MXK_PINNED);
	assert_true(dev_of(u, d1)->approved);
	assert_false(dev_of(u, d2)->approved);
	assert_true(mxk_pending(u, dev_of(u, d2)));
	assert_int_equal(mxk_approve(u, "D2"), MXK_USE_CROSS_SIGNING);
	assert_int_equal(mxk_approve(u, "D1"), MXK_ALREADY);

	/* the master key changes (a homeserver's own, with its self-signing
	 * key and a device it signed): not trusted, for good; the pinned
	 * rule decides: D1 stays, D4 waits, D2 too */
	devs = json_pack("{s:o, s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2",
			 xdevice(d2, "D2", NULL), "D4", xdevice(d4, "D4", ssk2));
	ans = answer_of(xkey_obj(msk2, ANA, "master", NULL, NULL),
			xkey_obj(ssk2, ANA, "self_signing", msk2, NULL), devs);
	assert_int_equal(mxk_apply_answer(u, ans, NULL), 1);
	json_decref(ans);
	assert_true(u->msk_bad);
	assert_false(mxk_cross_usable(u));
	assert_string_equal(u->msk, mxc_account_ed(msk));
	assert_true(mxk_private_ok(u, dev_of(u, d1)));
	assert_false(mxk_private_ok(u, dev_of(u, d4)));
	assert_false(mxk_private_ok(u, dev_of(u, d2)));
	assert_true(mxk_pending(u, dev_of(u, d4)));
	/* ... and the old master back does not make it trusted again */
	devs = json_pack("{s:o, s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2",
			 xdevice(d2, "D2", NULL), "D4", xdevice(d4, "D4", ssk2));
	ans = answer_of(xkey_obj(msk, ANA, "master", NULL, NULL),
			xkey_obj(ssk, ANA, "self_signing", msk, NULL), devs);
	mxk_apply_answer(u, ans, NULL);
	json_decref(ans);
	assert_false(mxk_cross_usable(u));
	/* approved by its user: D4 reads it now */
	assert_int_equal(mxk_approve(u, "D4"), MXK_APPROVED);
	assert_true(mxk_private_ok(u, dev_of(u, d4)));
	assert_int_equal(mxk_approve(u, "D9"), MXK_UNKNOWN);
	/* stored and read back: the pin, the approvals, the bad master */
	enc = mxk_encode(u);
	mxk_drop(&k, ANA);
	u = mxk_add(&k, ANA, enc);
	free(enc);
	assert_int_equal(u->pin, MXK_PINNED);
	assert_true(u->msk_bad);
	assert_true(mxk_private_ok(u, dev_of(u, d4)));
	assert_true(mxk_pending(u, dev_of(u, d2)));
	/* D4 signed out, then back: its approval went with it */
	devs = json_pack("{s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2", xdevice(d2, "D2", NULL));
	ans = answer_of(NULL, NULL, devs);
	assert_int_equal(mxk_apply_answer(u, ans, NULL), 1);
	json_decref(ans);
	devs = json_pack("{s:o, s:o, s:o}", "D1", xdevice(d1, "D1", ssk), "D2",
			 xdevice(d2, "D2", NULL), "D4", xdevice(d4, "D4", NULL));
	ans = answer_of(NULL, NULL, devs);
	mxk_apply_answer(u, ans, NULL);
	json_decref(ans);
	assert_true(mxk_pending(u, dev_of(u, d4)));
	mxk_drop(&k, ANA);

	/* a user pinned without cross-signing whose master key shows up later:
	 * not trusted (the homeserver could have made it up) */
	u = mxk_add(&k, ANA, NULL);
	assert_int_equal(mxk_pin(u), 1);
	assert_int_equal(u->pin, MXK_PIN_NEXT);		/* not queried yet */
	devs = json_pack("{s:o}", "D1", xdevice(d1, "D1", NULL));
	ans = answer_of(NULL, NULL, devs);
	mxk_apply_answer(u, ans, NULL);
	json_decref(ans);
	assert_int_equal(u->pin, MXK_PINNED);
	assert_true(dev_of(u, d1)->approved);
	devs = json_pack("{s:o, s:o}", "D1", xdevice(d1, "D1", ssk2), "D4", xdevice(d4, "D4", ssk2));
	ans = answer_of(xkey_obj(msk2, ANA, "master", NULL, NULL),
			xkey_obj(ssk2, ANA, "self_signing", msk2, NULL), devs);
	mxk_apply_answer(u, ans, NULL);
	json_decref(ans);
	assert_true(u->msk_bad);
	assert_false(mxk_private_ok(u, dev_of(u, d4)));
	assert_true(mxk_private_ok(u, dev_of(u, d1)));
	mxk_drop(&k, ANA);
	/* pinned at its first answer, which has cross-signing: trusted */
	u = mxk_add(&k, ANA, NULL);
	mxk_pin(u);
	devs = json_pack("{s:o, s:o}", "D1", xdevice(d1, "D1", ssk2), "D2", xdevice(d2, "D2", NULL));
	ans = answer_of(xkey_obj(msk2, ANA, "master", NULL, NULL),
			xkey_obj(ssk2, ANA, "self_signing", msk2, NULL), devs);
	mxk_apply_answer(u, ans, NULL);
	json_decref(ans);
	assert_true(mxk_cross_usable(u));
	assert_true(dev_of(u, d1)->approved);
	assert_false(dev_of(u, d2)->approved);
	assert_true(mxk_pending(u, dev_of(u, d2)));

	mxk_release(&k);
	mxc_account_free(msk);
	mxc_account_free(ssk);
	mxc_account_free(msk2);
	mxc_account_free(ssk2);
	mxc_account_free(d1);
	mxc_account_free(d2);
	mxc_account_free(d3);
	mxc_account_free(d4);
	mxc_account_free(other);
}

/* ---- mxhold ---- */

static void cipher_item(struct mx_sync *s, const char *room, const char *sender,
			const char *event_id, const char *session, size_t ctlen)
{
	char *ct = malloc(ctlen + 1);
	json_t *ev;

	memset(ct, 'A', ctlen);
	ct[ctlen] = '\0';
	ev = json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}}", "type", "m.room.encrypted",
		       "sender", sender, "event_id", event_id, "content", "algorithm",
		       MXC_MEGOLM_ALGORITHM, "sender_key", "K", "session_id", session,
		       "ciphertext", ct);
	{
		json_t *page = json_pack("{s:[o]}", "chunk", ev);
		char *text = json_dumps(page, JSON_COMPACT);
		struct buf err = BUF_INIT;

		assert_int_equal(mx_messages_parse(text, strlen(text), room, s, &err), 0);
		free(text);
		json_decref(page);
		buf_release(&err);
	}
	free(ct);
}

/* ---- held events in the store ---- */

static int io_may_hold(void *ctx, const char *room, const char *sender)
{
	return strcmp(sender, "@stranger:s") != 0;	/* in no game */
}

static int count_row(void *ctx, const char *key, const char *value)
{
	(*(int *)ctx)++;
	return 0;
}

/* The bot's held rows (matrix.e2e.BOTDEV.held.<event id>). */
static int held_rows(struct store *st)
{
	struct buf err = BUF_INIT;
	int n = 0;

	assert_int_equal(store_cursors_prefix(st, "matrix.e2e.BOTDEV.held.", count_row, &n,
					      &err), 0);
	buf_release(&err);
	return n;
}

static int has_row(struct store *st, const char *key)
{
	struct buf v = BUF_INIT, err = BUF_INIT;
	int r = store_cursor_get(st, key, &v, &err);

	buf_release(&v);
	buf_release(&err);
	return r;
}

static char told[16][2][64];
static size_t ntold;

static void on_told(void *ctx, const char *room, const char *sender)
{
	assert_true(ntold < 16);
	snprintf(told[ntold][0], sizeof(told[ntold][0]), "%s", room);
	snprintf(told[ntold][1], sizeof(told[ntold][1]), "%s", sender);
	ntold++;
}

static int was_told(const char *room, const char *sender)
{
	size_t i;

	for (i = 0; i < ntold; i++)
		if (!strcmp(told[i][0], room) && !strcmp(told[i][1], sender))
			return 1;
	return 0;
}

static struct mxe2e *held_bot(struct store *st)
{
	struct mxe2e_io io = { .call = io_call, .is_joined = io_joined, .store = st,
			       .now_ms = io_now, .may_hold = io_may_hold };
	struct mxc_key k;
	struct buf err = BUF_INIT;
	struct mxe2e *e;

	assert_int_equal(mxc_pickle_key_load("a pickle key of length", NULL, &k, &err), 0);
	e = mxe2e_new(&io, &k, 1, 2, 12, 0);	/* twelve held at most */
	assert_int_equal(mxe2e_start(e, BOT, "BOTDEV", &err), 0);
	buf_release(&err);
	return e;
}

static enum mxe_verdict decrypt_one(struct mxe2e *e, const char *sender, const char *id,
				    const char *body)
{
	struct mx_sync s, plain;
	enum mxe_verdict v;

	sync_of(&s, NULL, json_pack("[o]", cipher_event(sender, id, ROOM, body)));
	v = mxe2e_decrypt(e, cipher_in(&s), &plain);
	mx_sync_release(&plain);
	mx_sync_release(&s);
	return v;
}

/*
 * One store row per held event, written when it is held and deleted when
 * it goes (not the whole list per change); the single list a store from
 * before kept is converted at the start and its events still run when
 * their key comes; strangers' events are not held, a flooder's rate is
 * capped, a full list pushes out only the sender's own, and whoever lost
 * an event is told.
 */
static void test_e2e_held_rows(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct mxe2e *e;
	struct mx_sync s, plain, ready;
	struct call *c;
	json_t *up, *dk, *old;
	char *otk, *text, bot_curve[64], bot_ed[64], id[32];
	size_t i;

	memset(&ana, 0, sizeof(ana));
	ntold = 0;
	calls_reset();
	ana.acc = mxc_account_new();
	ana.out = mxc_out_new();
	ana.first_key = mxc_out_key(ana.out);
	/* what a store from before one row per event holds */
	old = json_pack("[{s:s, s:s, s:I, s:o}]", "r", ROOM, "s", mxc_out_id(ana.out), "t",
			(json_int_t)clock_ms - 1000, "e", cipher_event(ANA, "$old", ROOM, "!play 1"));
	text = json_dumps(old, JSON_COMPACT);
	assert_int_equal(store_cursor_set(st, "matrix.e2e.BOTDEV.held", text, &err), 0);
	free(text);
	json_decref(old);

	e = held_bot(st);
	c = pending("/_matrix/client/v3/keys/upload");
	up = json_incref(c->body);
	dk = json_object_get(up, "device_keys");
	snprintf(bot_curve, sizeof(bot_curve), "%s", json_string_value(json_object_get(
		 json_object_get(dk, "keys"), "curve25519:BOTDEV")));
	snprintf(bot_ed, sizeof(bot_ed), "%s", json_string_value(json_object_get(
		 json_object_get(dk, "keys"), "ed25519:BOTDEV")));
	answer(c, 200, json_pack("{s:{s:i}}", "one_time_key_counts", "signed_curve25519", 50));
	otk = bot_otk(up);
	/* converted: one row, the old list gone */
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held"), 0);
	assert_int_equal(held_rows(st), 1);
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held.$old"), 1);

	/* a player's command waits: one more row */
	assert_int_equal(decrypt_one(e, ANA, "$ana", "!play 2"), MXE_HELD);
	assert_int_equal(held_rows(st), 2);
	/* someone in no game: not held, told */
	assert_int_equal(decrypt_one(e, "@stranger:s", "$s1", "!game abort"), MXE_BAD);
	assert_int_equal(held_rows(st), 2);
	/* a flood from one sender: its burst held, then nothing */
	for (i = 0; i < MXH_RATE_BURST + 4; i++) {
		snprintf(id, sizeof(id), "$eve%zu", i);
		assert_int_equal(decrypt_one(e, "@eve:s", id, "x"),
				 i < MXH_RATE_BURST ? MXE_HELD : MXE_BAD);
	}
	assert_int_equal(held_rows(st), 2 + MXH_RATE_BURST);
	/* a second flooder fills the list (12), then pushes out its own */
	for (i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "$mal%zu", i);
		assert_int_equal(decrypt_one(e, "@mal:s", id, "x"), MXE_HELD);
	}
	assert_int_equal(held_rows(st), 12);
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held.$mal0"), 0);
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held.$mal2"), 1);
	/* a full list refuses a newcomer rather than push out the player */
	assert_int_equal(decrypt_one(e, "@ben:s", "$ben", "!play 3"), MXE_BAD);
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held.$ana"), 1);
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held.$old"), 1);
	mxe2e_expire(e, on_told, NULL);
	assert_int_equal(ntold, 3);
	assert_true(was_told(ROOM, "@stranger:s"));
	assert_true(was_told(ROOM, "@mal:s"));
	assert_true(was_told(ROOM, "@ben:s"));
	ntold = 0;
	mxe2e_expire(e, on_told, NULL);
	assert_int_equal(ntold, 0);

	/* a restart: the rows are read back; the key comes, both run */
	mxe2e_free(e);
	calls_reset();
	e = held_bot(st);
	assert_int_equal(held_rows(st), 12);
	sync_of(&s, room_key_event(bot_curve, bot_ed, otk), NULL);
	mxe2e_sync(e, &s);
	mx_sync_release(&s);
	c = pending("/_matrix/client/v3/keys/query");	/* her devices, first */
	assert_non_null(c);
	answer(c, 200, json_pack("{s:{s:{s:o}}, s:{}}", "device_keys", ANA, "ANA1",
				 signed_device(ana.acc, ANA, "ANA1"), "failures"));
	memset(&s, 0, sizeof(s));
	s.otk_count = -1;
	s.fallback_unused = -1;
	mxe2e_sync(e, &s);
	assert_int_equal(mxe2e_take_ready(e, &ready), 1);
	assert_int_equal(ready.nitems, 12);
	assert_string_equal(ready.items[0].event_id, "$old");
	assert_int_equal(mxe2e_decrypt(e, &ready.items[0], &plain), MXE_OK);
	assert_string_equal(plain.items[0].text, "!play 1");
	mx_sync_release(&plain);
	mxe2e_forget(e, "$old");
	assert_int_equal(has_row(st, "matrix.e2e.BOTDEV.held.$old"), 0);
	assert_string_equal(ready.items[1].event_id, "$ana");
	assert_int_equal(mxe2e_decrypt(e, &ready.items[1], &plain), MXE_OK);
	assert_string_equal(plain.items[0].text, "!play 2");
	mx_sync_release(&plain);
	mxe2e_forget(e, "$ana");
	mx_sync_release(&ready);
	assert_int_equal(held_rows(st), 10);
	/* past their time: dropped, rows deleted, their senders told once */
	clock_ms += MXH_TTL_MS + 1;
	mxe2e_expire(e, on_told, NULL);
	assert_int_equal(held_rows(st), 0);
	assert_int_equal(ntold, 2);
	assert_true(was_told(ROOM, "@eve:s"));
	assert_true(was_told(ROOM, "@mal:s"));
	mxe2e_free(e);
	json_decref(up);
	free(otk);
	mxc_free_secret(ana.first_key);
	mxc_olm_free(ana.to_bot);
	mxc_out_free(ana.out);
	mxc_account_free(ana.acc);
	store_close(st);
	calls_reset();
	buf_release(&err);
}

/* ---- mxsync's decoders ---- */

static void test_decoders(void **state)
{
	struct mx_olm_msg m;
	struct mx_olm_payload p;
	struct mx_sync s, out;
	struct buf err = BUF_INIT;
	json_t *ev;
	const char *body;
	static const char *const bad_payloads[] = {
		"", "[]", "{}", "nul\x00", "{\"type\": \"m.room_key\"}",
		"{\"type\":\"m.room_key\",\"sender\":\"@a:s\",\"recipient\":\"@b:s\","
		"\"recipient_keys\":{\"ed25519\":\"K\"},\"keys\":{\"ed25519\":\"E\"},"
		"\"content\":{\"algorithm\":\"m.megolm.v1.aes-sha2\",\"room_id\":\"!r:s\"}}",
	};
	size_t i;

	ev = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:{s:i, s:s}, s:{s:i, s:s}}}}", "type",
		       "m.room.encrypted", "sender", ANA, "content", "algorithm", MXC_OLM_ALGORITHM,
		       "sender_key", "SK", "ciphertext", "MINE", "type", 0, "body", "BODY",
		       "OTHER", "type", 1, "body", "B2");
	assert_int_equal(mx_olm_msg_decode(ev, "MINE", &m), 0);
	assert_string_equal(m.sender, ANA);
	assert_string_equal(m.sender_key, "SK");
	assert_int_equal(m.type, 0);
	assert_string_equal(m.body, "BODY");
	assert_int_equal(mx_olm_msg_decode(ev, "NOTME", &m), -1);
	assert_int_equal(mx_olm_msg_decode(ev, "", &m), -1);
	json_object_set_new(json_object_get(json_object_get(json_object_get(ev, "content"),
				"ciphertext"), "MINE"), "type", json_integer(2));
	assert_int_equal(mx_olm_msg_decode(ev, "MINE", &m), -1);
	json_object_set_new(json_object_get(ev, "content"), "algorithm", json_string("plain"));
	assert_int_equal(mx_olm_msg_decode(ev, "OTHER", &m), -1);
	assert_int_equal(mx_olm_msg_decode(json_object_get(ev, "type"), "MINE", &m), -1);
	json_decref(ev);

	body = "{\"type\":\"m.forwarded_room_key\",\"sender\":\"@a:s\",\"recipient\":\"@b:s\","
	       "\"recipient_keys\":{\"ed25519\":\"RK\"},\"keys\":{\"ed25519\":\"SE\"},"
	       "\"content\":{\"algorithm\":\"m.megolm.v1.aes-sha2\",\"room_id\":\"!r:s\","
	       "\"session_id\":\"SID\",\"session_key\":\"SKEY\",\"sender_key\":\"ORIG\","
	       "\"sender_claimed_ed25519_key\":\"CL\"}}";
	assert_int_equal(mx_olm_payload_decode(body, strlen(body), &p, &err), 0);
	assert_int_equal(p.kind, MX_OLM_FORWARDED);
	assert_string_equal(p.room, "!r:s");
	assert_string_equal(p.session_key, "SKEY");
	assert_string_equal(p.orig_sender_key, "ORIG");
	assert_string_equal(p.claimed_ed, "CL");
	assert_string_equal(p.recipient_ed, "RK");
	assert_string_equal(p.sender_ed, "SE");
	body = "{\"type\":\"m.dummy\",\"sender\":\"@a:s\",\"recipient\":\"@b:s\","
	       "\"recipient_keys\":{\"ed25519\":\"RK\"},\"keys\":{\"ed25519\":\"SE\"},"
	       "\"content\":{}}";
	assert_int_equal(mx_olm_payload_decode(body, strlen(body), &p, &err), 0);
	assert_int_equal(p.kind, MX_OLM_OTHER);
	for (i = 0; i < sizeof(bad_payloads) / sizeof(*bad_payloads); i++)
		assert_int_equal(mx_olm_payload_decode(bad_payloads[i], strlen(bad_payloads[i]) + (i == 3),
						       &p, &err), -1);

	/* an MX_CIPHER item, its plaintext, the room it must name */
	cipher_item(&s, ROOM, ANA, "$c", "SID", 20);
	assert_string_equal(s.items[0].session_id, "SID");
	assert_string_equal(s.items[0].sender_key, "K");
	assert_string_equal(s.items[0].algorithm, MXC_MEGOLM_ALGORITHM);
	assert_int_equal(s.items[0].text_len, 20);
	body = "{\"type\":\"m.room.message\",\"room_id\":\"" ROOM "\",\"content\":{\"msgtype\":"
	       "\"m.text\",\"body\":\"!play 3\",\"m.relates_to\":{\"rel_type\":\"m.replace\"}}}";
	assert_int_equal(mx_decrypted_parse(body, strlen(body), &s.items[0], &out, &err), 0);
	assert_int_equal(out.nitems, 1);
	assert_string_equal(out.items[0].text, "!play 3");
	assert_string_equal(out.items[0].event_id, "$c");
	assert_true(out.items[0].is_edit);
	mx_sync_release(&out);
	body = "{\"type\":\"m.room.message\",\"room_id\":\"!x:s\",\"content\":{\"body\":\"a\"}}";
	assert_int_equal(mx_decrypted_parse(body, strlen(body), &s.items[0], &out, &err), -1);
	mx_sync_release(&out);
	body = "{\"type\":\"m.reaction\",\"room_id\":\"" ROOM "\",\"content\":{}}";
	assert_int_equal(mx_decrypted_parse(body, strlen(body), &s.items[0], &out, &err), 0);
	assert_int_equal(out.nitems, 0);
	mx_sync_release(&out);
	assert_int_equal(mx_decrypted_parse("[", 1, &s.items[0], &out, &err), -1);
	mx_sync_release(&out);
	mx_sync_release(&s);

	/* a sync's end-to-end parts */
	body = "{\"next_batch\":\"n\",\"to_device\":{\"events\":[{\"type\":\"x\"}]},"
	       "\"device_lists\":{\"changed\":[\"@a:s\",7,\"\"],\"left\":[\"@b:s\"]},"
	       "\"device_one_time_keys_count\":{},"
	       "\"device_unused_fallback_key_types\":[\"signed_curve25519\"],"
	       "\"rooms\":{\"join\":{\"!r:s\":{\"state\":{\"events\":[{\"type\":"
	       "\"m.room.encryption\",\"state_key\":\"\",\"sender\":\"@a:s\",\"content\":"
	       "{\"algorithm\":\"m.megolm.v1.aes-sha2\",\"rotation_period_ms\":3600000,"
	       "\"rotation_period_msgs\":-4}}]}}}}}";
	assert_int_equal(mx_sync_parse(body, strlen(body), BOT, &s, &err), 0);
	assert_int_equal(json_array_size(s.to_device), 1);
	assert_int_equal(s.ndl_changed, 1);
	assert_string_equal(s.dl_changed[0], "@a:s");
	assert_int_equal(s.ndl_left, 1);
	assert_int_equal(s.otk_count, 0);
	assert_int_equal(s.fallback_unused, 1);
	assert_int_equal(s.items[0].kind, MX_ENCRYPTED);
	assert_true(s.items[0].rotation_ms == 3600000);
	assert_int_equal(s.items[0].rotation_msgs, -1);
	mx_sync_release(&s);
	assert_int_equal(s.otk_count, -1);
	buf_release(&err);
}

/* ---- room keys bound to senders, squatting, replays, the store ---- */

#define BEN "@ben:s"
#define LAZY "@lazy:s"
#define PK "a pickle key of length"

/* The bot started on st, its upload answered; OTKs handed out in turn. */
struct env {
	struct store *st;
	struct mxe2e *e;
	json_t *up;
	char curve[64], ed[64];
	size_t otk_next;
};

static void env_start(struct env *b, struct store *st)
{
	struct buf err = BUF_INIT;
	struct call *c;
	json_t *dk;

	memset(b, 0, sizeof(*b));
	calls_reset();
	b->st = st;
	b->e = bot_new(st, PK);
	assert_int_equal(mxe2e_start(b->e, BOT, "BOTDEV", &err), 0);
	c = pending("/_matrix/client/v3/keys/upload");
	assert_non_null(c);
	b->up = json_incref(c->body);
	dk = json_object_get(b->up, "device_keys");
	snprintf(b->curve, sizeof(b->curve), "%s", json_string_value(json_object_get(
		 json_object_get(dk, "keys"), "curve25519:BOTDEV")));
	snprintf(b->ed, sizeof(b->ed), "%s", json_string_value(json_object_get(
		 json_object_get(dk, "keys"), "ed25519:BOTDEV")));
	answer(c, 200, json_pack("{s:{s:i}}", "one_time_key_counts", "signed_curve25519", 50));
	buf_release(&err);
}

/* The same bot again on the same store (a restart). */
static void env_restart(struct env *b)
{
	struct buf err = BUF_INIT;

	mxe2e_free(b->e);
	calls_reset();
	b->e = bot_new(b->st, PK);
	assert_int_equal(mxe2e_start(b->e, BOT, "BOTDEV", &err), 0);
	buf_release(&err);
}

static void env_free(struct env *b)
{
	mxe2e_free(b->e);
	json_decref(b->up);
	calls_reset();
}

static const char *env_otk(struct env *b)
{
	json_t *otks = json_object_get(b->up, "one_time_keys"), *v;
	const char *id;
	size_t i = 0;

	json_object_foreach(otks, id, v)
		if (i++ == b->otk_next) {
			b->otk_next++;
			return json_string_value(json_object_get(v, "key"));
		}
	fail_msg("out of one-time keys");
	return NULL;
}

/* A device of user: an Olm session to the bot, a room key of its own. */
struct dev {
	struct mxc_account *acc;
	struct mxc_olm *to_bot;
	struct mxc_out *out;
	char *first_key;
	char user[64], id[32];
};

static void dev_init(struct dev *d, const char *user, const char *id)
{
	memset(d, 0, sizeof(*d));
	d->acc = mxc_account_new();
	d->out = mxc_out_new();
	d->first_key = mxc_out_key(d->out);
	snprintf(d->user, sizeof(d->user), "%s", user);
	snprintf(d->id, sizeof(d->id), "%s", id);
}

/* A new room key of d's (the old one forgotten). */
static void dev_rotate(struct dev *d)
{
	mxc_free_secret(d->first_key);
	mxc_out_free(d->out);
	d->out = mxc_out_new();
	d->first_key = mxc_out_key(d->out);
}

static void dev_free(struct dev *d)
{
	mxc_free_secret(d->first_key);
	mxc_olm_free(d->to_bot);
	mxc_out_free(d->out);
	mxc_account_free(d->acc);
}

static const char *dcurve(const struct dev *d)
{
	return mxc_account_curve(d->acc);
}

static const char *ded(const struct dev *d)
{
	return mxc_account_ed(d->acc);
}

/*
 * A to-device event from d to the bot: a room key for room (session id
 * sid, session_key) with the envelope's sender envs (NULL: d's user) and
 * keys.ed25519 ed (NULL: d's); fwd_curve given: an m.forwarded_room_key
 * naming that device (and fwd_ed).
 */
static json_t *dev_key(struct env *b, struct dev *d, const char *envs, const char *room,
		       const char *sid, const char *session_key, const char *ed,
		       const char *fwd_curve, const char *fwd_ed)
{
	struct buf err = BUF_INIT;
	json_t *p;
	char *text, *ct;
	int type;

	if (!d->to_bot)
		d->to_bot = mxc_olm_outbound(d->acc, b->curve, env_otk(b), &err);
	assert_non_null(d->to_bot);
	envs = envs ? envs : d->user;
	p = json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:{s:s}, s:{s:s}}",
		      "type", fwd_curve ? "m.forwarded_room_key" : "m.room_key", "content",
		      "algorithm", MXC_MEGOLM_ALGORITHM, "room_id", room, "session_id", sid,
		      "session_key", session_key, "sender", envs, "recipient", BOT,
		      "recipient_keys", "ed25519", b->ed, "keys", "ed25519", ed ? ed : ded(d));
	if (fwd_curve) {
		json_t *c = json_object_get(p, "content");

		json_object_set_new(c, "sender_key", json_string(fwd_curve));
		json_object_set_new(c, "sender_claimed_ed25519_key", json_string(fwd_ed));
	}
	text = json_dumps(p, JSON_COMPACT);
	assert_int_equal(mxc_olm_encrypt(d->to_bot, text, strlen(text), &type, &ct, &err), 0);
	json_decref(p);
	free(text);
	p = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:{s:i, s:s}}}}", "type", "m.room.encrypted",
		      "sender", envs, "content", "algorithm", MXC_OLM_ALGORITHM, "sender_key",
		      dcurve(d), "ciphertext", b->curve, "type", type, "body", ct);
	free(ct);
	buf_release(&err);
	return p;
}

/* d's own room key (for room), as d would send it. */
static json_t *dev_own_key(struct env *b, struct dev *d, const char *room)
{
	return dev_key(b, d, NULL, room, mxc_out_id(d->out), d->first_key, NULL, NULL, NULL);
}

/* An event of sender under d's room key; sender_key NULL: d's, "": none. */
static json_t *dev_event(struct dev *d, const char *sender, const char *event_id,
			 const char *room, const char *body, const char *sender_key)
{
	json_t *p = json_pack("{s:s, s:{s:s, s:s}, s:s}", "type", "m.room.message", "content",
			      "msgtype", "m.text", "body", body, "room_id", room);
	char *text = json_dumps(p, JSON_COMPACT), *ct = mxc_out_encrypt(d->out, text, strlen(text));
	json_t *ev = json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s}}",
			       "type", "m.room.encrypted", "sender", sender, "event_id", event_id,
			       "content", "algorithm", MXC_MEGOLM_ALGORITHM,
			       "session_id", mxc_out_id(d->out), "ciphertext", ct);

	if (!sender_key || *sender_key)
		json_object_set_new(json_object_get(ev, "content"), "sender_key",
				    json_string(sender_key ? sender_key : dcurve(d)));
	free(text);
	free(ct);
	json_decref(p);
	return ev;
}

/* A sync of to-device events (an array, or one event), handed to the bot. */
static void env_sync(struct env *b, json_t *td)
{
	struct mx_sync s;

	if (json_is_object(td))
		td = json_pack("[o]", td);
	sync_of(&s, td, NULL);
	mxe2e_sync(b->e, &s);
	mx_sync_release(&s);
}

/* Decrypts ev (consumed) as a timeline event of room: the verdict; the
 * plaintext's body into body (if given). */
static enum mxe_verdict env_decrypt(struct env *b, json_t *ev, const char *room, char *body,
				    size_t n)
{
	struct mx_sync s, plain;
	json_t *page = json_pack("{s:[o]}", "chunk", ev);
	char *text = json_dumps(page, JSON_COMPACT);
	struct buf err = BUF_INIT;
	enum mxe_verdict v;

	assert_int_equal(mx_messages_parse(text, strlen(text), room, &s, &err), 0);
	v = mxe2e_decrypt(b->e, cipher_in(&s), &plain);
	if (body)
		snprintf(body, n, "%s", v == MXE_OK && plain.nitems ? plain.items[0].text : "");
	mx_sync_release(&plain);
	mx_sync_release(&s);
	json_decref(page);
	free(text);
	buf_release(&err);
	return v;
}

/* Answers the pending /keys/query with devices ({user: {id: keys}}). */
static void answer_query(json_t *devices)
{
	struct call *c = pending("/_matrix/client/v3/keys/query");

	assert_non_null(c);
	answer(c, 200, json_pack("{s:o, s:{}}", "device_keys", devices, "failures"));
}

static json_t *devices_of(struct dev *d)
{
	return json_pack("{s:o}", d->id, signed_device(d->acc, d->user, d->id));
}

static void kv_json_set(struct store *st, const char *k, json_t *j)
{
	char *t = json_dumps(j, JSON_COMPACT);
	struct buf err = BUF_INIT;

	assert_int_equal(store_cursor_set(st, k, t, &err), 0);
	free(t);
	buf_release(&err);
}

struct count {
	const char *needle;
	size_t n;
};

static int on_count(void *ctx, const char *key, const char *value)
{
	struct count *c = ctx;

	c->n += !c->needle || strstr(key, c->needle) != NULL;
	return 0;
}

/* How many stored keys start with prefix (and hold needle). */
static size_t stored(struct store *st, const char *prefix, const char *needle)
{
	struct count c = { needle, 0 };
	struct buf err = BUF_INIT;

	assert_int_equal(store_cursors_prefix(st, prefix, on_count, &c, &err), 0);
	buf_release(&err);
	return c.n;
}

static void test_room_keys_bound_to_their_senders(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct env b;
	struct dev a1, rogue, eve, lazy, nolazy, own2, own3, forged;
	char body[64], k[256];
	json_t *own = NULL;

	env_start(&b, st);
	dev_init(&a1, ANA, "A1");
	dev_init(&rogue, ANA, "ROGUE");
	dev_init(&eve, "@eve:s", "E1");
	dev_init(&lazy, LAZY, "L1");
	dev_init(&nolazy, LAZY, "L2");
	dev_init(&own2, BOT, "BOT2");
	dev_init(&own3, BOT, "BOT3");
	dev_init(&forged, ANA, "A1");

	/* a key "from Ana" over Olm from a device her list does not show:
	 * her devices are asked for, then it is dropped; an event "from"
	 * her under it is never read, and that device's Olm session is not
	 * kept */
	env_sync(&b, dev_own_key(&b, &rogue, ROOM));
	checked_n = 0;
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 1);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.pk.", NULL), 1);
	answer_query(json_pack("{s:o}", ANA, devices_of(&a1)));
	assert_int_equal(checked_n, 1);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.pk.", NULL), 0);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.in.", NULL), 0);
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.olm.%s", dcurve(&rogue));
	assert_int_equal(stored(st, k, NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&rogue, ANA, "$f1", ROOM, "!game abort", NULL),
				     ROOM, NULL, 0), MXE_HELD);
	assert_int_equal(env_decrypt(&b, dev_event(&rogue, ANA, "$f2", ROOM, "!game abort", ""),
				     ROOM, NULL, 0), MXE_HELD);
	mxe2e_forget(b.e, "$f1");
	mxe2e_forget(b.e, "$f2");
	/* Ana's listed device naming another ed25519 key: dropped at once */
	calls_reset();
	env_sync(&b, dev_key(&b, &a1, NULL, ROOM, mxc_out_id(a1.out), a1.first_key, ded(&rogue),
			     NULL, NULL));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_null(pending("/"));
	/* her genuine key: taken at once (her list is fresh); her events
	 * read, with or without a sender_key */
	env_sync(&b, dev_own_key(&b, &a1, ROOM));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$a1", ROOM, "!play 1", NULL), ROOM,
				     body, sizeof(body)), MXE_OK);
	assert_string_equal(body, "!play 1");
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$a2", ROOM, "!play 2", ""), ROOM,
				     body, sizeof(body)), MXE_OK);
	assert_string_equal(body, "!play 2");
	/* a room the bot is not in, a sender who is not in the room: dropped
	 * at once, no request */
	dev_rotate(&a1);
	env_sync(&b, dev_own_key(&b, &a1, OUTSIDE));
	env_sync(&b, dev_own_key(&b, &eve, ROOM));
	assert_null(pending("/"));
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.in.", NULL), 1);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.olm.", dcurve(&eve)), 0);
	/* a member the bot has not seen (lazy loading): the homeserver is
	 * asked, then their devices */
	env_sync(&b, dev_own_key(&b, &lazy, ROOM));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 1);
	{
		struct call *c = pending("/_matrix/client/v3/rooms/");

		assert_non_null(c);
		assert_string_equal(c->path, "/_matrix/client/v3/rooms/%21r%3As/state/m.room.member/"
				    "%40lazy%3As");
		answer(c, 200, json_pack("{s:s}", "membership", "join"));
	}
	answer_query(json_pack("{s:o}", LAZY, devices_of(&lazy)));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&lazy, LAZY, "$l1", ROOM, "hi", NULL), ROOM,
				     body, sizeof(body)), MXE_OK);
	/* ... and one the homeserver says is not a member */
	env_sync(&b, dev_own_key(&b, &nolazy, ROOM));
	answer(pending("/_matrix/client/v3/rooms/"), 404, NULL);
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.in.", LAZY), 1);

	/* forwarded keys: none is taken, whoever forwards it (another
	 * account; a device the bot's account lists, or not): the bot asks
	 * nobody for keys, and a device of its own account may be one the
	 * homeserver listed there.  Nobody is asked about them either. */
	dev_rotate(&eve);
	{
		/* a forwarded key is in the export format */
		struct mxc_in *in = mxc_in_new(eve.first_key, 0, &err);

		mxc_free_secret(eve.first_key);
		eve.first_key = mxc_in_export(in);
		mxc_in_free(in);
	}
	env_sync(&b, dev_key(&b, &a1, NULL, ROOM, mxc_out_id(eve.out), eve.first_key, NULL,
			     dcurve(&a1), ded(&a1)));
	env_sync(&b, dev_key(&b, &own2, NULL, ROOM, mxc_out_id(eve.out), eve.first_key, NULL,
			     dcurve(&a1), ded(&a1)));
	env_sync(&b, dev_key(&b, &own3, NULL, ROOM, mxc_out_id(eve.out), eve.first_key, NULL,
			     dcurve(&a1), ded(&a1)));
	assert_null(pending("/"));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.pk.", NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&eve, ANA, "$x2", ROOM, "!play 3", dcurve(&a1)),
				     ROOM, NULL, 0), MXE_HELD);
	mxe2e_forget(b.e, "$x2");
	/* A1's current key, sent to this room by A1: taken */
	env_sync(&b, dev_own_key(&b, &a1, ROOM));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$x3", ROOM, "!play 3", NULL), ROOM,
				     body, sizeof(body)), MXE_OK);
	assert_string_equal(body, "!play 3");

	/* at decryption the sender must still own the device: A1 comes back
	 * with other keys (blocked), and her session reads nothing more */
	{
		struct mx_sync s;
		json_t *td = json_pack("[o]", dev_own_key(&b, &a1, ROOM));

		memset(&s, 0, sizeof(s));
		sync_of(&s, td, NULL);
		s.dl_changed = calloc(1, sizeof(*s.dl_changed));
		s.dl_changed[0] = ANA;
		s.ndl_changed = 1;
		mxe2e_sync(b.e, &s);
		free(s.dl_changed);
		s.dl_changed = NULL;
		s.ndl_changed = 0;
		mx_sync_release(&s);
	}
	answer_query(json_pack("{s:{s:o}}", ANA, "A1", signed_device(forged.acc, ANA, "A1")));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&lazy, LAZY, "$l2", ROOM, "hi", NULL), ROOM,
				     NULL, 0), MXE_OK);
	/* A1's session, taken while A1 was hers: refused, A1 is blocked */
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$x4", ROOM, "!play 4", dcurve(&a1)),
				     ROOM, NULL, 0), MXE_BAD);
	json_decref(own);
	dev_free(&a1);
	dev_free(&rogue);
	dev_free(&eve);
	dev_free(&lazy);
	dev_free(&nolazy);
	dev_free(&own2);
	dev_free(&own3);
	dev_free(&forged);
	env_free(&b);
	store_close(st);
	buf_release(&err);
}

static void test_squatted_key_is_a_separate_entry(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct env b;
	struct dev a1, b1;
	char body[64], k[512];

	env_start(&b, st);
	dev_init(&a1, ANA, "A1");
	dev_init(&b1, BEN, "B1");
	env_sync(&b, NULL);
	/* both lists known first */
	env_sync(&b, dev_own_key(&b, &b1, ROOM));
	answer_query(json_pack("{s:o}", BEN, devices_of(&b1)));
	/* Ben sends Ana's session key as his own, before Ana does */
	env_sync(&b, dev_key(&b, &b1, NULL, ROOM, mxc_out_id(a1.out), a1.first_key, NULL, NULL,
			     NULL));
	env_sync(&b, dev_own_key(&b, &a1, ROOM));
	answer_query(json_pack("{s:o}", ANA, devices_of(&a1)));
	assert_int_equal(mxe2e_checking(b.e, on_checked, NULL), 0);
	/* two entries for one session id: Ben's copy and Ana's */
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s ", ROOM, mxc_out_id(a1.out));
	assert_int_equal(stored(st, k, NULL), 2);
	/* Ana's commands are hers, with or without a sender_key */
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$a1", ROOM, "!play 1", NULL), ROOM,
				     body, sizeof(body)), MXE_OK);
	assert_string_equal(body, "!play 1");
	assert_non_null(strstr(mxe2e_ref(b.e), ANA));
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$a2", ROOM, "!play 2", ""), ROOM,
				     body, sizeof(body)), MXE_OK);
	assert_non_null(strstr(mxe2e_ref(b.e), ANA));
	/* Ben's copy reads nothing "from Ana" naming his device; what it
	 * reads is his (a replay of her words as his own, which he could
	 * type anyway) */
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$b1", ROOM, "!game abort",
						   dcurve(&b1)), ROOM, NULL, 0), MXE_HELD);
	mxe2e_forget(b.e, "$b1");
	assert_int_equal(env_decrypt(&b, dev_event(&a1, BEN, "$b2", ROOM, "!play 5", dcurve(&b1)),
				     ROOM, body, sizeof(body)), MXE_OK);
	assert_non_null(strstr(mxe2e_ref(b.e), BEN));
	dev_free(&a1);
	dev_free(&b1);
	env_free(&b);
	store_close(st);
	buf_release(&err);
}

static void test_replays_refused_bounded_and_stored(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct env b;
	struct dev a1;
	json_t *e0, *e1, *gap;
	char ref0[MXE_REF_SIZE], ref[MXE_REF_SIZE], k[512], *v;
	size_t i;

	env_start(&b, st);
	dev_init(&a1, ANA, "A1");
	env_sync(&b, dev_own_key(&b, &a1, ROOM));
	answer_query(json_pack("{s:o}", ANA, devices_of(&a1)));
	e0 = dev_event(&a1, ANA, "$e0", ROOM, "!game join", NULL);
	e1 = dev_event(&a1, ANA, "$e1", ROOM, "!play 1", NULL);
	gap = dev_event(&a1, ANA, "$gap", ROOM, "!play 2", NULL);	/* index 2: comes late */
	/* decrypted again and again until it is handled (a crash before the
	 * commit runs it once after all) */
	assert_int_equal(env_decrypt(&b, json_incref(e0), ROOM, NULL, 0), MXE_OK);
	snprintf(ref0, sizeof(ref0), "%s", mxe2e_ref(b.e));
	assert_true(!strncmp(ref0, "0 " ROOM " ", strlen("0 " ROOM " ")));
	assert_int_equal(env_decrypt(&b, json_incref(e0), ROOM, NULL, 0), MXE_OK);
	mxe2e_handled(b.e, ref0);
	assert_int_equal(env_decrypt(&b, json_incref(e0), ROOM, NULL, 0), MXE_BAD);
	json_object_set_new(e0, "event_id", json_string("$e0bis"));
	assert_int_equal(env_decrypt(&b, json_incref(e0), ROOM, NULL, 0), MXE_BAD);
	/* e1 read, not handled: a crash; after the restart it still runs,
	 * e0 still does not (stored) */
	assert_int_equal(env_decrypt(&b, json_incref(e1), ROOM, NULL, 0), MXE_OK);
	snprintf(ref, sizeof(ref), "%s", mxe2e_ref(b.e));
	env_restart(&b);
	assert_int_equal(env_decrypt(&b, json_incref(e0), ROOM, NULL, 0), MXE_BAD);
	assert_int_equal(env_decrypt(&b, json_incref(e1), ROOM, NULL, 0), MXE_OK);
	/* the ref applied twice (after the commit, and again at start-up
	 * from the stored position) is harmless */
	mxe2e_handled(b.e, ref);
	mxe2e_handled(b.e, ref);
	assert_int_equal(env_decrypt(&b, json_incref(e1), ROOM, NULL, 0), MXE_BAD);
	/* refs that are not: ignored */
	mxe2e_handled(b.e, "");
	mxe2e_handled(b.e, "x");
	mxe2e_handled(b.e, "1 a b");
	mxe2e_handled(b.e, "-1 !r:s s @ana:s c");
	mxe2e_handled(b.e, "99999999999 !r:s s @ana:s c");
	mxe2e_handled(b.e, "3 !r:s s @ana:s c\nx");
	mxe2e_handled(b.e, "3 !r:s nosuchsession @ana:s nosuchcurve");
	/* bounded: 600 more handled with index 2 never seen: the floor rises
	 * past it (it is refused then), at most 512 kept above it */
	for (i = 3; i < 603; i++) {
		char id[32];

		snprintf(id, sizeof(id), "$n%zu", i);
		assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, id, ROOM, "x", NULL), ROOM,
					     NULL, 0), MXE_OK);
		mxe2e_handled(b.e, mxe2e_ref(b.e));
	}
	assert_int_equal(env_decrypt(&b, json_incref(gap), ROOM, NULL, 0), MXE_BAD);
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s %s %s", ROOM, mxc_out_id(a1.out), ANA,
		 dcurve(&a1));
	{
		struct buf val = BUF_INIT;
		json_t *j;

		assert_int_equal(store_cursor_get(st, k, &val, &err), 1);
		j = json_loads(buf_str(&val), 0, NULL);
		assert_true(json_array_size(json_object_get(j, "h")) <= 512);
		assert_true(json_integer_value(json_object_get(j, "fl")) > 2);
		assert_null(strstr(buf_str(&val), "$n"));	/* no event ids kept */
		json_decref(j);
		buf_release(&val);
	}
	v = NULL;
	(void)v;
	json_decref(e0);
	json_decref(e1);
	json_decref(gap);
	dev_free(&a1);
	env_free(&b);
	store_close(st);
	buf_release(&err);
}

/* The bot on a store whose writes can be refused: a fence lease it holds
 * until another process takes it (STORE_FENCED, as on a shared store). */
static void lease_to(struct store *inner, const char *from, const char *to)
{
	struct buf err = BUF_INIT;

	assert_int_equal(store_lease(inner, "L", from, 0, &err), 0);
	assert_int_equal(store_lease(inner, "L", to, 60000, &err), 1);
	buf_release(&err);
}

static void test_store_failure_refuses_to_seal_and_share(void **state)
{
	struct buf err = BUF_INIT;
	struct store *inner = store_sqlite_open(":memory:", &err), *st;
	struct env b;
	struct dev a1, a2;
	const char *members[] = { BOT, ANA };
	json_t *content = json_pack("{s:s, s:s}", "msgtype", "m.notice", "body", "your hand");
	json_t *sealed;
	struct call *c;

	assert_int_equal(store_lease(inner, "L", "me", 60000, &err), 1);
	st = store_fence_wrap(inner, "L", "me");
	env_start(&b, st);
	dev_init(&a1, ANA, "A1");
	dev_init(&a2, ANA, "A2");
	/* Ana's device sends her key (the bot has an Olm session with it) */
	env_sync(&b, dev_own_key(&b, &a1, ROOM));
	answer_query(json_pack("{s:o}", ANA, devices_of(&a1)));
	ready_ok = -1;
	assert_int_equal(mxe2e_prepare(b.e, ROOM, members, 2, NULL, on_ready, NULL), 1);
	answer_query(json_pack("{s:{}}", BOT));
	c = pending("/_matrix/client/v3/sendToDevice/");
	assert_non_null(c);
	answer(c, 200, NULL);
	assert_int_equal(ready_ok, 1);
	sealed = mxe2e_seal(b.e, ROOM, content, &err);
	assert_non_null(sealed);
	json_decref(sealed);
	/* the lease is lost: the ratchet's step cannot be stored, so the
	 * message is not sealed (it stays in the outbox) */
	lease_to(inner, "me", "other");
	sealed = mxe2e_seal(b.e, ROOM, content, &err);
	assert_null(sealed);
	assert_non_null(strstr(buf_str(&err), "could not be stored"));
	/* a new device of Ana's: its key share is not sent either */
	calls_reset();
	{
		struct mx_sync s;

		memset(&s, 0, sizeof(s));
		s.otk_count = -1;
		s.fallback_unused = -1;
		s.dl_changed = calloc(1, sizeof(*s.dl_changed));
		s.dl_changed[0] = ANA;
		s.ndl_changed = 1;
		mxe2e_sync(b.e, &s);
		free(s.dl_changed);
	}
	ready_ok = -1;
	assert_int_equal(mxe2e_prepare(b.e, ROOM, members, 2, NULL, on_ready, NULL), 1);
	answer_query(json_pack("{s:{s:o, s:o}}", ANA, "A1", signed_device(a1.acc, ANA, "A1"),
			       "A2", signed_device(a2.acc, ANA, "A2")));
	c = pending("/_matrix/client/v3/keys/claim");
	assert_non_null(c);
	{
		json_t *ok = json_object(), *k, *v;
		const char *id;

		mxc_account_generate_otks(a2.acc, 1);
		k = mxc_account_otks(a2.acc, ANA, "A2");
		json_object_foreach(k, id, v)
			json_object_set(ok, id, v);
		answer(c, 200, json_pack("{s:{s:{s:o}}}", "one_time_keys", ANA, "A2", ok));
		json_decref(k);
	}
	assert_int_equal(ready_ok, 0);
	assert_null(pending("/_matrix/client/v3/sendToDevice/"));
	/* the lease back: both go again */
	lease_to(inner, "other", "me");
	ready_ok = -1;
	assert_int_equal(mxe2e_prepare(b.e, ROOM, members, 2, NULL, on_ready, NULL), 1);
	c = pending("/_matrix/client/v3/sendToDevice/");
	assert_non_null(c);
	answer(c, 200, NULL);
	assert_int_equal(ready_ok, 1);
	sealed = mxe2e_seal(b.e, ROOM, content, &err);
	assert_non_null(sealed);
	json_decref(sealed);
	json_decref(content);
	dev_free(&a1);
	dev_free(&a2);
	env_free(&b);
	store_close(st);
	store_close(inner);
	buf_release(&err);
}

static void test_caps_and_pruning_when_the_bot_leaves(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct env b;
	struct dev a1, lazy;
	char k[256], last[64];
	size_t i;

	env_start(&b, st);
	dev_init(&a1, ANA, "A1");
	dev_init(&lazy, LAZY, "L1");
	env_sync(&b, dev_own_key(&b, &a1, ROOM));
	answer_query(json_pack("{s:o}", ANA, devices_of(&a1)));
	/* one sender's keys in one room: the newest 32 kept */
	for (i = 0; i < 40; i++) {
		clock_ms += 1000;
		dev_rotate(&a1);
		env_sync(&b, dev_own_key(&b, &a1, ROOM));
	}
	snprintf(last, sizeof(last), "%s", mxc_out_id(a1.out));
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s ", ROOM);
	assert_int_equal(stored(st, k, ANA), 32);
	assert_int_equal(stored(st, k, last), 1);
	/* keys waiting for their checks: 16 per sender */
	for (i = 0; i < 20; i++) {
		dev_rotate(&lazy);
		env_sync(&b, dev_own_key(&b, &lazy, ROOM));
	}
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.pk.", NULL), 16);
	/* an older version's entry of that room too */
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s oldsession", ROOM);
	assert_int_equal(store_cursor_set(st, k, "{}", &err), 0);
	/* the bot leaves: the room's keys go, waiting ones too */
	mxe2e_room_left(b.e, ROOM);
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s ", ROOM);
	assert_int_equal(stored(st, k, NULL), 0);
	assert_int_equal(stored(st, "matrix.e2e.BOTDEV.pk.", NULL), 0);
	assert_int_equal(env_decrypt(&b, dev_event(&a1, ANA, "$a", ROOM, "x", NULL), ROOM, NULL, 0),
			 MXE_HELD);
	/* the pending ones' answers, coming late, find nothing */
	answer(pending("/_matrix/client/v3/rooms/"), 200, json_pack("{s:s}", "membership",
								    "join"));
	dev_free(&a1);
	dev_free(&lazy);
	env_free(&b);
	store_close(st);
	buf_release(&err);
}

static void test_keys_of_an_older_version_still_read(void **state)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(":memory:", &err);
	struct env b;
	struct dev a1, e1;
	struct mxc_key key;
	struct mxc_in *in;
	char k[256], *p, body[64];
	json_t *j, *ev0, *ev1;

	/* what an older version stored: "in.<room> <sid>", "seen" */
	env_start(&b, st);
	dev_init(&a1, ANA, "A1");
	dev_init(&e1, "@eve:s", "E1");
	assert_int_equal(mxc_pickle_key_load(PK, NULL, &key, &err), 0);
	ev0 = dev_event(&a1, ANA, "$old0", ROOM, "!game join", NULL);
	ev1 = dev_event(&a1, ANA, "$new1", ROOM, "!play 1", NULL);
	in = mxc_in_new(a1.first_key, 0, &err);
	p = mxc_in_pickle(in, &key);
	j = json_pack("{s:s, s:s, s:s, s:s, s:b, s:{s:s}}", "p", p, "sk", dcurve(&a1), "u", ANA,
		      "ed", ded(&a1), "f", 0, "seen", "0", "$old0");
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s", ROOM, mxc_out_id(a1.out));
	kv_json_set(st, k, j);
	json_decref(j);
	/* a forwarded one of theirs: not taken over */
	j = json_pack("{s:s, s:s, s:s, s:s, s:b, s:{}}", "p", p, "sk", dcurve(&a1), "u", "",
		      "ed", ded(&a1), "f", 1, "seen");
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s", ROOM, mxc_out_id(e1.out));
	kv_json_set(st, k, j);
	json_decref(j);
	mxc_free_secret(p);
	mxc_in_free(in);
	env_restart(&b);
	/* the bot knows none of Ana's devices yet: it asks first */
	assert_int_equal(env_decrypt(&b, json_incref(ev1), ROOM, NULL, 0), MXE_HELD);
	answer_query(json_pack("{s:o}", ANA, devices_of(&a1)));
	assert_int_equal(env_decrypt(&b, json_incref(ev1), ROOM, body, sizeof(body)), MXE_OK);
	assert_string_equal(body, "!play 1");
	mxe2e_forget(b.e, "$new1");
	/* moved to today's key; the index it saw counts as handled */
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s %s %s", ROOM, mxc_out_id(a1.out), ANA,
		 dcurve(&a1));
	assert_int_equal(stored(st, k, NULL), 1);
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s", ROOM, mxc_out_id(a1.out));
	assert_int_equal(stored(st, k, NULL), 1);	/* itself only: the old one went */
	assert_int_equal(env_decrypt(&b, json_incref(ev0), ROOM, NULL, 0), MXE_BAD);
	/* after another restart it is read from today's key */
	env_restart(&b);
	assert_int_equal(env_decrypt(&b, json_incref(ev1), ROOM, NULL, 0), MXE_OK);
	/* the forwarded one: unused, deleted */
	assert_int_equal(env_decrypt(&b, dev_event(&e1, ANA, "$f", ROOM, "x", dcurve(&a1)), ROOM,
				     NULL, 0), MXE_HELD);
	snprintf(k, sizeof(k), "matrix.e2e.BOTDEV.in.%s %s", ROOM, mxc_out_id(e1.out));
	assert_int_equal(stored(st, k, NULL), 0);
	json_decref(ev0);
	json_decref(ev1);
	mxc_key_wipe(&key);
	dev_free(&a1);
	dev_free(&e1);
	env_free(&b);
	store_close(st);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_e2e_device_room_keys_and_sharing),
		cmocka_unit_test(test_e2e_key_counts_from_before_an_upload_ignored),
		cmocka_unit_test(test_e2e_private_chat_new_device),
		cmocka_unit_test(test_keys_trust_on_first_use),
		cmocka_unit_test(test_keys_cross_signing),
		cmocka_unit_test(test_e2e_held_rows),
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_room_keys_bound_to_their_senders),
		cmocka_unit_test(test_squatted_key_is_a_separate_entry),
		cmocka_unit_test(test_replays_refused_bounded_and_stored),
		cmocka_unit_test(test_store_failure_refuses_to_seal_and_share),
		cmocka_unit_test(test_caps_and_pruning_when_the_bot_leaves),
		cmocka_unit_test(test_keys_of_an_older_version_still_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
