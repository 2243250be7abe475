/*
 * fuzz_matrix_e2e: the decoders of what end-to-end encryption brings in,
 * all of it chosen by other users or their servers.
 *
 * The first byte picks what the rest is:
 *   '{'  a /sync body: mx_sync_parse(), then each to_device event through
 *        mx_olm_msg_decode(), each encrypted room event (MX_CIPHER) through
 *        mx_cipher_event() and back (mx_messages_parse), and through
 *        mx_decrypted_parse() with a fixed plaintext;
 *   'p'  an Olm plaintext for mx_olm_payload_decode();
 *   'd'  a Megolm plaintext for mx_decrypted_parse() (for a fixed event);
 *   'c'  a ciphertext for mxc_in_decrypt() and mxc_olm_decrypt() (both
 *        types) with fixed sessions, and a pickle for the unpicklers;
 *   'k'  a /keys/query answer's devices object for mxk_apply(), the same
 *        bytes as a whole answer for mxk_apply_answer() (cross-signing,
 *        the pin, approvals), then a
 *        /keys/claim answer for mxk_claimed(); then the same bytes as the
 *        held list of older versions for mxh_restore_list() and as one
 *        held event's row for mxh_restore();
 *   'b'  a /sync body through a started mxe2e (the bot's own device on an
 *        in-memory store): mxe2e_sync() (to-device messages, device lists),
 *        then mxe2e_decrypt() of each encrypted event: room, sender,
 *        sender_key and session ids chosen by others become store keys
 *        and prefixes (the instance is made anew every 512 inputs);
 *   'r'  a ref for mxe2e_handled() (what the stored sync position holds).
 * Beyond "no crash, no leak, no UB": decoded strings are NUL-terminated
 * within their sizes and valid UTF-8; a cipher item read back from its
 * event has the same fields; a decrypted message names the fixed event.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "adapters/matrix/mxcrypto.h"
#include "adapters/matrix/mxe2e.h"
#include "adapters/matrix/mxhold.h"
#include "adapters/matrix/mxkeys.h"
#include "adapters/matrix/mxsync.h"
#include "state/store.h"
#include "util/buf.h"
#include "util/logging.h"
#include "util/text.h"

#define ME "@bot:example.org"
#define MY_CURVE "bOtCuRvEkEyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_matrix_e2e: %s\n", what);
	abort();
}

static void str_ok(const char *s, size_t size, const char *what)
{
	size_t n = strnlen(s, size);

	if (n >= size || !utf8_valid(s, n))
		bug(what);
}

static struct mxc_in *in_session;
static struct mxc_olm *olm_session;
static struct mxc_key key;
static struct mx_sync fixed;	/* one cipher item */

static void init(void)
{
	struct mxc_account *a, *b;
	struct mxc_out *o;
	struct buf err = BUF_INIT;
	json_t *otks, *v;
	const char *id, *otk = NULL;
	char *sk, *ct;
	int type;
	const char *ev = "{\"chunk\":[{\"type\":\"m.room.encrypted\",\"sender\":\"@a:x\","
			 "\"event_id\":\"$e\",\"content\":{\"algorithm\":\"m.megolm.v1.aes-sha2\","
			 "\"session_id\":\"S\",\"ciphertext\":\"QUJD\"}}]}";

	log_set_level(LOG_ERR);
	mxc_pickle_key_load("a fixed pickle key", NULL, &key, &err);
	o = mxc_out_new();
	sk = mxc_out_key(o);
	in_session = mxc_in_new(sk, 0, &err);
	mxc_free_secret(sk);
	mxc_out_free(o);
	a = mxc_account_new();
	b = mxc_account_new();
	mxc_account_generate_otks(b, 1);
	otks = mxc_account_otks(b, "@b:x", "B");
	json_object_foreach(otks, id, v)
		otk = json_string_value(json_object_get(v, "key"));
	olm_session = mxc_olm_outbound(a, mxc_account_curve(b), otk, &err);
	/* a session that has sent: it decrypts normal messages too */
	mxc_olm_encrypt(olm_session, "x", 1, &type, &ct, &err);
	free(ct);
	json_decref(otks);
	mxc_account_free(a);
	mxc_account_free(b);
	mx_messages_parse(ev, strlen(ev), "!r:example.org", &fixed, &err);
	buf_release(&err);
}

static void check_items(const struct mx_sync *s)
{
	size_t i;

	for (i = 0; i < s->nitems; i++) {
		const struct mx_item *it = &s->items[i];

		str_ok(it->text, it->kind == MX_CIPHER ? MX_CIPHER_SIZE : MX_TEXT_SIZE, "text");
		str_ok(it->sender, MX_ID_SIZE, "sender");
		str_ok(it->algorithm, MX_TYPE_SIZE, "algorithm");
		str_ok(it->sender_key, MX_KEY_SIZE, "sender_key");
		str_ok(it->session_id, MX_KEY_SIZE, "session_id");
		str_ok(it->device_id, MX_ID_SIZE, "device_id");
		if (it->text_len != strlen(it->text))
			bug("text_len");
	}
}

/* A cipher item read back from its own event has the same fields. */
static void round_trip(const struct mx_item *c)
{
	json_t *page = json_pack("{s:[o]}", "chunk", mx_cipher_event(c));
	char *text = json_dumps(page, JSON_COMPACT);
	struct buf err = BUF_INIT;
	struct mx_sync back;

	if (mx_messages_parse(text, strlen(text), c->room, &back, &err) || back.nitems != 1 ||
	    back.items[0].kind != MX_CIPHER || strcmp(back.items[0].sender, c->sender) ||
	    strcmp(back.items[0].event_id, c->event_id) ||
	    strcmp(back.items[0].session_id, c->session_id) ||
	    strcmp(back.items[0].sender_key, c->sender_key) ||
	    strcmp(back.items[0].text, c->text) || back.items[0].is_edit != c->is_edit)
		bug("a cipher item does not read back from its event");
	mx_sync_release(&back);
	free(text);
	json_decref(page);
	buf_release(&err);
}

static void fuzz_sync(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT;
	struct mx_sync s, out;
	struct mx_olm_msg m;
	const json_t *ev;
	size_t i;
	const char *plain = "{\"type\":\"m.room.message\",\"room_id\":\"!r:example.org\","
			    "\"content\":{\"msgtype\":\"m.text\",\"body\":\"!play 1\"}}";

	if (mx_sync_parse((const char *)data, size, ME, &s, &err) == 0) {
		check_items(&s);
		json_array_foreach(s.to_device, i, ev) {
			if (mx_olm_msg_decode(ev, MY_CURVE, &m))
				continue;
			str_ok(m.sender, sizeof(m.sender), "olm sender");
			str_ok(m.sender_key, sizeof(m.sender_key), "olm sender_key");
			if ((m.type != 0 && m.type != 1) || !m.body)
				bug("olm type or body");
			str_ok(m.body, MX_OLM_BODY_SIZE, "olm body");
		}
		for (i = 0; i < s.ndl_changed; i++)
			str_ok(s.dl_changed[i], MX_ID_SIZE, "device_lists.changed");
		for (i = 0; i < s.ndl_left; i++)
			str_ok(s.dl_left[i], MX_ID_SIZE, "device_lists.left");
		for (i = 0; i < s.nitems; i++) {
			if (s.items[i].kind != MX_CIPHER)
				continue;
			if (s.items[i].event_id[0] && !s.items[i].too_long && !s.items[i].bad_utf8)
				round_trip(&s.items[i]);
			if (mx_decrypted_parse(plain, strlen(plain), &s.items[i], &out, &err) == 0)
				check_items(&out);
			mx_sync_release(&out);
		}
	}
	mx_sync_release(&s);
	buf_release(&err);
}

static void fuzz_payload(const uint8_t *data, size_t size)
{
	struct mx_olm_payload p;
	struct buf err = BUF_INIT;

	if (mx_olm_payload_decode((const char *)data, size, &p, &err) == 0) {
		str_ok(p.type, sizeof(p.type), "type");
		str_ok(p.sender, sizeof(p.sender), "sender");
		str_ok(p.recipient, sizeof(p.recipient), "recipient");
		str_ok(p.recipient_ed, sizeof(p.recipient_ed), "recipient_ed");
		str_ok(p.sender_ed, sizeof(p.sender_ed), "sender_ed");
		str_ok(p.room, sizeof(p.room), "room");
		str_ok(p.session_id, sizeof(p.session_id), "session_id");
		str_ok(p.session_key, sizeof(p.session_key), "session_key");
		str_ok(p.orig_sender_key, sizeof(p.orig_sender_key), "orig_sender_key");
		str_ok(p.claimed_ed, sizeof(p.claimed_ed), "claimed_ed");
		if (p.kind != MX_OLM_OTHER && (!p.room[0] || !p.session_key[0]))
			bug("a room key without its room or key");
		if (p.kind == MX_OLM_FORWARDED && !p.orig_sender_key[0])
			bug("a forwarded key without its sender");
	}
	buf_release(&err);
}

static void fuzz_decrypted(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT;
	struct mx_sync out;

	if (mx_decrypted_parse((const char *)data, size, &fixed.items[0], &out, &err) == 0) {
		check_items(&out);
		if (out.nitems > 1 || (out.nitems && (strcmp(out.items[0].event_id, "$e") ||
						      strcmp(out.items[0].sender, "@a:x") ||
						      out.items[0].kind != MX_MESSAGE)))
			bug("a decrypted message that is not the event's");
	}
	mx_sync_release(&out);
	buf_release(&err);
}

/* data as a NUL-terminated string (without its first NUL and after). */
static char *cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static void fuzz_cipher(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT;
	char *s = cstr(data, size), *pt;
	size_t n;
	uint32_t idx;
	int t;

	if (mxc_in_decrypt(in_session, s, &pt, &n, &idx, &err) == 0)
		mxc_free_secret(pt);
	for (t = 0; t < 2; t++)
		if (mxc_olm_decrypt(olm_session, t, s, &pt, &n, &err) == 0)
			mxc_free_secret(pt);
	mxc_in_free(mxc_in_unpickle(&key, s, &err));
	mxc_out_free(mxc_out_unpickle(&key, s, &err));
	mxc_olm_free(mxc_olm_unpickle(&key, s, &err));
	mxc_account_free(mxc_account_unpickle(&key, s, &err));
	mxc_in_free(mxc_in_new(s, size & 1, &err));
	free(s);
	buf_release(&err);
}

static void fuzz_keys(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);
	struct mxkeys k;
	struct mxk_user *u;
	struct mxh h;
	char otk[MX_KEY_SIZE], *enc, *s;
	size_t i;

	mxk_init(&k, 1, 2);
	u = mxk_add(&k, "@a:x", NULL);
	mxk_apply(u, j, "ME");
	/* the same bytes as a whole answer: cross-signing keys, then devices */
	mxk_apply_answer(u, j, "ME");
	mxk_pin(u);
	for (i = 0; i < u->ndev; i++) {
		mxk_private_ok(u, &u->dev[i]);
		mxk_approve(u, u->dev[i].id);
		str_ok(u->dev[i].id, sizeof(u->dev[i].id), "device id");
		str_ok(u->dev[i].curve, sizeof(u->dev[i].curve), "curve");
		mxk_claimed(j, "@a:x", &u->dev[i], otk);
	}
	if (u->ndev > MXK_DEVICES_MAX)
		bug("too many devices");
	enc = mxk_encode(u);
	mxk_drop(&k, "@a:x");
	u = mxk_add(&k, "@a:x", enc);
	free(enc);
	mxk_release(&k);
	json_decref(j);
	mxh_init(&h, 0, 0);
	s = cstr(data, size);
	mxh_restore_list(&h, s, NULL, NULL);
	mxh_restore(&h, NULL, s);
	if (h.n > h.max)
		bug("a held list over its bound");
	free(s);
	mxh_release(&h);
}

/* ---- the bot's device ---- */

static struct store *bot_store;
static struct mxe2e *bot;
static unsigned bot_uses;

static void bot_call(void *ctx, const char *method, const char *path, const json_t *body,
		     mxe_done_fn done, void *done_ctx)
{
	/* never answered: the instance frees what waits */
}

static int bot_joined(void *ctx, const char *room, const char *user)
{
	return (int)(strlen(room) % 4) - 1;	/* unknown, neither, joined, invited */
}

static struct mxe2e *bot_get(void)
{
	struct mxe2e_io io = { .call = bot_call, .is_joined = bot_joined };
	struct buf err = BUF_INIT;

	if (bot && bot_uses++ < 512)
		return bot;
	mxe2e_free(bot);
	bot_uses = 0;
	if (!bot_store)
		bot_store = store_sqlite_open(":memory:", &err);
	io.store = bot_store;
	bot = mxe2e_new(&io, &key, 1, 2, 0, 0);
	if (mxe2e_start(bot, ME, "FUZZDEV", &err))
		bug("the bot's device does not start");
	buf_release(&err);
	return bot;
}

static void fuzz_bot(const uint8_t *data, size_t size)
{
	struct mxe2e *e = bot_get();
	struct buf err = BUF_INIT;
	struct mx_sync s, out;
	size_t i;

	if (mx_sync_parse((const char *)data, size, ME, &s, &err) == 0) {
		mxe2e_sync(e, &s);
		for (i = 0; i < s.nitems; i++) {
			if (s.items[i].kind != MX_CIPHER)
				continue;
			if (mxe2e_decrypt(e, &s.items[i], &out) == MXE_OK)
				bug("an event decrypted without a key");
			if (strlen(mxe2e_ref(e)) >= MXE_REF_SIZE)
				bug("ref");
			mx_sync_release(&out);
			mxe2e_forget(e, s.items[i].event_id);
		}
	}
	mx_sync_release(&s);
	buf_release(&err);
}

static void fuzz_ref(const uint8_t *data, size_t size)
{
	char *s = cstr(data, size);

	mxe2e_handled(bot_get(), s);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		init();
		ready = 1;
	}
	if (!size)
		return 0;
	switch (data[0]) {
	case '{': fuzz_sync(data, size); break;
	case 'p': fuzz_payload(data + 1, size - 1); break;
	case 'd': fuzz_decrypted(data + 1, size - 1); break;
	case 'c': fuzz_cipher(data + 1, size - 1); break;
	case 'k': fuzz_keys(data + 1, size - 1); break;
	case 'b': fuzz_bot(data + 1, size - 1); break;
	case 'r': fuzz_ref(data + 1, size - 1); break;
	default: break;
	}
	return 0;
}
