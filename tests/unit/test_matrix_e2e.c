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

static int io_joined(void *ctx, const char *room, const char *user)
{
	return !strcmp(user, ANA);
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
			       .now_ms = io_now };
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
	char *otk, bot_curve[64], bot_ed[64], fp[64];
	const char *id;
	json_t *v;

	memset(&ana, 0, sizeof(ana));
	phone = mxc_account_new();
	ana.acc = mxc_account_new();
	ana.out = mxc_out_new();
	ana.first_key = mxc_out_key(ana.out);
	/* start: device keys, one-time keys and a fallback key go up */
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 2, on_ready, NULL), -1);
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
	/* still held until the adapter has handled it */
	s.nitems = 0;
	mxe2e_sync(e, &s);
	assert_int_equal(mxe2e_take_ready(e, &plain), 1);
	mx_sync_release(&plain);
	mxe2e_forget(e, "$e1");
	mxe2e_sync(e, &s);
	assert_int_equal(mxe2e_take_ready(e, &plain), 0);
	/* the same event again decrypts (a batch read again after a crash);
	 * its ciphertext under another event id is a replay */
	assert_int_equal(mxe2e_decrypt(e, &ready.items[0], &plain), MXE_OK);
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
	/* Ana's key used by someone else, a message naming another room */
	sync_of(&s, NULL, json_pack("[o]", cipher_event("@eve:s", "$e2", ROOM, "!game abort")));
	assert_int_equal(mxe2e_decrypt(e, cipher_in(&s), &plain), MXE_BAD);
	mx_sync_release(&plain);
	mx_sync_release(&s);
	sync_of(&s, NULL, json_pack("[o]", cipher_event(ANA, "$e3", "!other:s", "!game abort")));
	assert_int_equal(mxe2e_decrypt(e, cipher_in(&s), &plain), MXE_BAD);
	mx_sync_release(&plain);
	mx_sync_release(&s);

	/* sharing the bot's key: Ana's devices asked for, a key claimed,
	 * the key sent over Olm; then the message sealed */
	ready_ok = -1;
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 2, on_ready, NULL), 1);
	c = pending("/_matrix/client/v3/keys/query");
	assert_non_null(c);
	assert_non_null(json_object_get(json_object_get(c->body, "device_keys"), ANA));
	/* ANA1 sent the bot her key: it has an Olm session with her; ANA2
	 * (a new phone) gets one from a claimed key */
	answer(c, 200, json_pack("{s:{s:{s:o, s:o}, s:{s:O}}, s:{}}", "device_keys", ANA, "ANA1",
				 signed_device(ana.acc, ANA, "ANA1"), "ANA2",
				 signed_device(phone, ANA, "ANA2"), BOT, "BOTDEV", dk, "failures"));
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
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 2, on_ready, NULL), 0);
	mxe2e_member_left(e, ROOM, ANA);
	assert_int_equal(mxe2e_prepare(e, ROOM, members, 1, on_ready, NULL), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_e2e_device_room_keys_and_sharing),
		cmocka_unit_test(test_keys_trust_on_first_use),
		cmocka_unit_test(test_e2e_held_rows),
		cmocka_unit_test(test_decoders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
