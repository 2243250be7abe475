/* adapters/matrix/mxcrypto: accounts, Olm and Megolm round trips between two
 * devices, pickles under the right and a wrong key, canonical JSON and
 * signatures, the pickle key file; garbage never crashes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/matrix/mxcrypto.h"
#include "util/buf.h"

static struct mxc_key key_of(const char *s)
{
	struct mxc_key k;
	struct buf err = BUF_INIT;

	assert_int_equal(mxc_pickle_key_load(s, NULL, &k, &err), 0);
	buf_release(&err);
	return k;
}

static void test_canonical_json(void **state)
{
	json_t *o = json_pack("{s:s, s:{s:i, s:s}, s:{s:s}, s:{s:s}, s:s}", "b", "\xc3\xa9t\xc3\xa9",
			      "a", "z", 1, "y", "x", "signatures", "k", "v", "unsigned", "u", "v",
			      "c", "/");
	char *c = mxc_canonical(o);

	/* sorted, no white space, UTF-8 as is, no signatures or unsigned */
	assert_string_equal(c, "{\"a\":{\"y\":\"x\",\"z\":1},\"b\":\"\xc3\xa9t\xc3\xa9\",\"c\":\"/\"}");
	free(c);
	assert_null(mxc_canonical(json_object_get(o, "b")));
	json_decref(o);
}

static void test_account_keys_and_signatures(void **state)
{
	struct mxc_account *a = mxc_account_new(), *b;
	struct mxc_key k = key_of("a pickle key of some length"), w = key_of("another key, longer than 16");
	struct buf err = BUF_INIT;
	json_t *dk, *otks, *fb, *v;
	const char *id;
	char *p, kid[64];
	size_t n = 0;

	assert_int_equal(strlen(mxc_account_curve(a)), 43);
	assert_int_equal(strlen(mxc_account_ed(a)), 43);
	dk = mxc_account_device_keys(a, "@bot:s", "DEV");
	snprintf(kid, sizeof(kid), "ed25519:DEV");
	assert_int_equal(mxc_verify_json(dk, "@bot:s", kid, mxc_account_ed(a)), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(dk, "keys"),
							     "curve25519:DEV")), mxc_account_curve(a));
	/* tampered, wrong signer, wrong user: refused */
	json_object_set_new(dk, "device_id", json_string("EVIL"));
	assert_int_equal(mxc_verify_json(dk, "@bot:s", kid, mxc_account_ed(a)), -1);
	json_object_set_new(dk, "device_id", json_string("DEV"));
	assert_int_equal(mxc_verify_json(dk, "@eve:s", kid, mxc_account_ed(a)), -1);
	assert_int_equal(mxc_verify_json(dk, "@bot:s", "ed25519:X", mxc_account_ed(a)), -1);
	assert_int_equal(mxc_verify_json(dk, "@bot:s", kid, mxc_account_curve(a)), -1);
	assert_int_equal(mxc_verify_json(dk, "@bot:s", kid, "not a key"), -1);
	/* the account holds max/2 new one-time keys, each signed */
	mxc_account_generate_otks(a, mxc_account_max_otks(a) / 2);
	otks = mxc_account_otks(a, "@bot:s", "DEV");
	json_object_foreach(otks, id, v) {
		assert_int_equal(strncmp(id, "signed_curve25519:", 18), 0);
		assert_int_equal(mxc_verify_json(v, "@bot:s", kid, mxc_account_ed(a)), 0);
		n++;
	}
	assert_int_equal(n, mxc_account_max_otks(a) / 2);
	json_decref(otks);
	mxc_account_generate_fallback(a);
	fb = mxc_account_fallback(a, "@bot:s", "DEV");
	assert_int_equal(json_object_size(fb), 1);
	json_object_foreach(fb, id, v) {
		assert_true(json_is_true(json_object_get(v, "fallback")));
		assert_int_equal(mxc_verify_json(v, "@bot:s", kid, mxc_account_ed(a)), 0);
	}
	json_decref(fb);
	mxc_account_published(a);
	otks = mxc_account_otks(a, "@bot:s", "DEV");
	fb = mxc_account_fallback(a, "@bot:s", "DEV");
	assert_int_equal(json_object_size(otks) + json_object_size(fb), 0);
	json_decref(otks);
	json_decref(fb);
	/* the pickle opens with its key only, to the same keys */
	p = mxc_account_pickle(a, &k);
	assert_non_null(p);
	assert_null(strstr(p, mxc_account_ed(a)));
	assert_null(mxc_account_unpickle(&w, p, &err));
	assert_non_null(strstr(buf_str(&err), "does not open"));
	b = mxc_account_unpickle(&k, p, &err);
	assert_non_null(b);
	assert_string_equal(mxc_account_ed(a), mxc_account_ed(b));
	assert_string_equal(mxc_account_curve(a), mxc_account_curve(b));
	assert_null(mxc_account_unpickle(&k, "garbage!", &err));
	mxc_free_secret(p);
	mxc_account_free(a);
	mxc_account_free(b);
	json_decref(dk);
	buf_release(&err);
}

/* A one-time key of b's, as a peer claims it. */
static char *claim(struct mxc_account *b)
{
	json_t *otks, *v;
	const char *id;
	char *key = NULL;

	mxc_account_generate_otks(b, 1);
	otks = mxc_account_otks(b, "@b:s", "B");
	json_object_foreach(otks, id, v)
		key = strdup(json_string_value(json_object_get(v, "key")));
	mxc_account_published(b);
	json_decref(otks);
	return key;
}

static void test_olm_round_trip(void **state)
{
	struct mxc_account *a = mxc_account_new(), *b = mxc_account_new();
	struct mxc_key k = key_of("0123456789abcdef");
	struct buf err = BUF_INIT;
	char *otk = claim(b), *ct, *pt, *p;
	struct mxc_olm *ab, *ba, *ab2;
	size_t n;
	int type;

	ab = mxc_olm_outbound(a, mxc_account_curve(b), otk, &err);
	assert_non_null(ab);
	assert_int_equal(mxc_olm_encrypt(ab, "hello b", 7, &type, &ct, &err), 0);
	assert_int_equal(type, 0);
	/* b opens a session from it; the one-time key is used up */
	ba = mxc_olm_inbound(b, mxc_account_curve(a), ct, &err);
	assert_non_null(ba);
	assert_true(mxc_olm_matches(ba, mxc_account_curve(a), ct));
	assert_false(mxc_olm_matches(ba, mxc_account_curve(b), ct));
	assert_int_equal(mxc_olm_decrypt(ba, 0, ct, &pt, &n, &err), 0);
	assert_string_equal(pt, "hello b");
	assert_int_equal(n, 7);
	mxc_free_secret(pt);
	/* read once: the same message again does not decrypt */
	assert_int_equal(mxc_olm_decrypt(ba, 0, ct, &pt, &n, &err), -1);
	assert_null(mxc_olm_inbound(b, mxc_account_curve(a), ct, &err));
	free(ct);
	assert_string_equal(mxc_olm_id(ab), mxc_olm_id(ba));
	/* b answers on it: a normal message, which a reads after a pickle */
	assert_int_equal(mxc_olm_encrypt(ba, "hi a", 4, &type, &ct, &err), 0);
	assert_int_equal(type, 1);
	p = mxc_olm_pickle(ab, &k);
	ab2 = mxc_olm_unpickle(&k, p, &err);
	assert_non_null(ab2);
	assert_int_equal(mxc_olm_decrypt(ab2, 1, ct, &pt, &n, &err), 0);
	assert_string_equal(pt, "hi a");
	mxc_free_secret(pt);
	/* garbage, a wrong type: errors */
	assert_int_equal(mxc_olm_decrypt(ab2, 1, "AAAA", &pt, &n, &err), -1);
	assert_int_equal(mxc_olm_decrypt(ab2, 7, ct, &pt, &n, &err), -1);
	assert_int_equal(mxc_olm_decrypt(ab2, 1, "!!not base64!!", &pt, &n, &err), -1);
	assert_null(mxc_olm_inbound(b, mxc_account_curve(a), "AwogAAA", &err));
	assert_null(mxc_olm_outbound(a, "short", "key", &err));
	assert_null(mxc_olm_unpickle(&k, "x", &err));
	free(ct);
	mxc_free_secret(p);
	free(otk);
	mxc_olm_free(ab);
	mxc_olm_free(ab2);
	mxc_olm_free(ba);
	mxc_account_free(a);
	mxc_account_free(b);
	buf_release(&err);
}

static void test_megolm_round_trip(void **state)
{
	struct mxc_key k = key_of("0123456789abcdef");
	struct buf err = BUF_INIT;
	struct mxc_out *o = mxc_out_new(), *o2;
	struct mxc_in *in, *late, *imp, *in2;
	char *key0, *key2, *c0, *c1, *c2, *pt, *p, *ex;
	size_t n;
	uint32_t idx;

	assert_int_equal(mxc_out_index(o), 0);
	key0 = mxc_out_key(o);
	c0 = mxc_out_encrypt(o, "zero", 4);
	c1 = mxc_out_encrypt(o, "one", 3);
	key2 = mxc_out_key(o);
	assert_int_equal(mxc_out_index(o), 2);
	/* the ratchet survives a pickle: the next message is index 2 */
	p = mxc_out_pickle(o, &k);
	o2 = mxc_out_unpickle(&k, p, &err);
	assert_non_null(o2);
	assert_string_equal(mxc_out_id(o), mxc_out_id(o2));
	c2 = mxc_out_encrypt(o2, "two", 3);
	mxc_free_secret(p);
	in = mxc_in_new(key0, 0, &err);
	assert_non_null(in);
	assert_string_equal(mxc_in_id(in), mxc_out_id(o));
	assert_int_equal(mxc_in_decrypt(in, c2, &pt, &n, &idx, &err), 0);
	assert_string_equal(pt, "two");
	assert_int_equal(idx, 2);
	mxc_free_secret(pt);
	assert_int_equal(mxc_in_decrypt(in, c0, &pt, &n, &idx, &err), 0);
	assert_string_equal(pt, "zero");
	assert_int_equal(idx, 0);
	mxc_free_secret(pt);
	/* a key shared later reads from then on only */
	late = mxc_in_new(key2, 0, &err);
	assert_int_equal(mxc_in_first_index(late), 2);
	assert_int_equal(mxc_in_decrypt(late, c1, &pt, &n, &idx, &err), -1);
	assert_non_null(strstr(buf_str(&err), "UNKNOWN_MESSAGE_INDEX"));
	assert_int_equal(mxc_in_decrypt(late, c2, &pt, &n, &idx, &err), 0);
	mxc_free_secret(pt);
	/* exported and imported (m.forwarded_room_key), pickled */
	ex = mxc_in_export(in);
	imp = mxc_in_new(ex, 1, &err);
	assert_non_null(imp);
	assert_int_equal(mxc_in_decrypt(imp, c1, &pt, &n, &idx, &err), 0);
	assert_string_equal(pt, "one");
	mxc_free_secret(pt);
	assert_null(mxc_in_new(ex, 0, &err));	/* an export is not a session key */
	p = mxc_in_pickle(imp, &k);
	in2 = mxc_in_unpickle(&k, p, &err);
	assert_non_null(in2);
	assert_int_equal(mxc_in_decrypt(in2, c0, &pt, &n, &idx, &err), 0);
	mxc_free_secret(pt);
	/* garbage */
	assert_int_equal(mxc_in_decrypt(in2, "", &pt, &n, &idx, &err), -1);
	assert_int_equal(mxc_in_decrypt(in2, "AwgA", &pt, &n, &idx, &err), -1);
	assert_int_equal(mxc_in_decrypt(in2, "@@@", &pt, &n, &idx, &err), -1);
	assert_null(mxc_in_new("", 0, &err));
	assert_null(mxc_in_new("AgAAAAA", 0, &err));
	assert_null(mxc_in_unpickle(&k, "zz", &err));
	assert_null(mxc_out_unpickle(&k, "zz", &err));
	mxc_free_secret(p);
	mxc_free_secret(ex);
	mxc_free_secret(key0);
	mxc_free_secret(key2);
	free(c0);
	free(c1);
	free(c2);
	mxc_out_free(o);
	mxc_out_free(o2);
	mxc_in_free(in);
	mxc_in_free(late);
	mxc_in_free(imp);
	mxc_in_free(in2);
	buf_release(&err);
}

static void test_pickle_key_sources(void **state)
{
	char dir[] = "/tmp/tabula-keyXXXXXX", path[256], link[256];
	struct mxc_key k1, k2;
	struct buf err = BUF_INIT;
	struct stat st;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/db.matrix-key", dir);
	snprintf(link, sizeof(link), "%s/link-key", dir);
	/* the variable wins; too short refused, never echoed */
	assert_int_equal(mxc_pickle_key_load("short-secret", path, &k1, &err), -1);
	assert_null(strstr(buf_str(&err), "short-secret"));
	assert_int_equal(mxc_pickle_key_load("a-long-enough-secret", path, &k1, &err), 0);
	assert_int_equal(k1.n, 20);
	assert_int_not_equal(stat(path, &st), 0);	/* no file made */
	/* no variable: the file is made 0600 with 32 random bytes, then read */
	assert_int_equal(mxc_pickle_key_load(NULL, path, &k1, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 65);
	assert_int_equal(k1.n, 64);
	assert_int_equal(mxc_pickle_key_load("", path, &k2, &err), 0);
	assert_memory_equal(k1.b, k2.b, 64);
	/* readable by others: made private */
	chmod(path, 0644);
	assert_int_equal(mxc_pickle_key_load(NULL, path, &k2, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a symbolic link is refused */
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(mxc_pickle_key_load(NULL, link, &k2, &err), -1);
	assert_non_null(strstr(buf_str(&err), "symbolic link"));
	/* a file too short to be a key */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_int_equal(write(fd, "abc\n", 4), 4);
	close(fd);
	assert_int_equal(mxc_pickle_key_load(NULL, path, &k2, &err), -1);
	/* no path (a store in memory): a key for this process only */
	assert_int_equal(mxc_pickle_key_load(NULL, NULL, &k2, &err), 0);
	assert_true(k2.ephemeral && k2.n == 32);
	mxc_key_wipe(&k2);
	assert_int_equal(k2.n, 0);
	unlink(link);
	unlink(path);
	rmdir(dir);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_json),
		cmocka_unit_test(test_account_keys_and_signatures),
		cmocka_unit_test(test_olm_round_trip),
		cmocka_unit_test(test_megolm_round_trip),
		cmocka_unit_test(test_pickle_key_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
