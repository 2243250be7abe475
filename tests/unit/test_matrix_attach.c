/* adapters/matrix/mxattach: AES-256-CTR against NIST SP 800-38A F.5.5,
 * SHA-256 against FIPS 180-2's "abc", the `file` object's exact form
 * (unpadded base64url key, unpadded base64 IV and hash), and a round trip
 * through mxa_encrypt with a fresh key each time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/mxattach.h"
#include "util/buf.h"

static void unhex(const char *h, unsigned char *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char two[3] = { h[2 * i], h[2 * i + 1], 0 };

		out[i] = (unsigned char)strtoul(two, NULL, 16);
	}
}

static void test_ctr_known_vector(void **state)
{
	struct mxa_file f;
	unsigned char in[64], want[64], out[64];
	struct buf err = BUF_INIT;

	memset(&f, 0, sizeof(f));
	unhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", f.key, 32);
	unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", f.iv, 16);
	unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
	      "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710", in, 64);
	unhex("601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
	      "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6", want, 64);
	assert_int_equal(mxa_ctr(&f, in, 64, out, &err), 0);
	assert_memory_equal(out, want, 64);
	/* the same transform decrypts, in place */
	assert_int_equal(mxa_ctr(&f, out, 64, out, &err), 0);
	assert_memory_equal(out, in, 64);
	/* a part that is not a whole block */
	assert_int_equal(mxa_ctr(&f, in, 21, out, &err), 0);
	assert_memory_equal(out, want, 21);
	buf_release(&err);
}

static void test_sha256_known_vector(void **state)
{
	unsigned char h[MXA_SHA256_BYTES], want[MXA_SHA256_BYTES];
	struct buf err = BUF_INIT;

	unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want, 32);
	assert_int_equal(mxa_sha256((const unsigned char *)"abc", 3, h, &err), 0);
	assert_memory_equal(h, want, 32);
	buf_release(&err);
}

static void test_file_object(void **state)
{
	struct mxa_file f;
	json_t *o, *k;
	size_t i;

	for (i = 0; i < MXA_KEY_BYTES; i++)
		f.key[i] = (unsigned char)(224 + i);
	unhex("f0fffe01020304050000000000000000", f.iv, 16);
	unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", f.sha256, 32);
	o = mxa_file_json(&f, "mxc://example.org/abc");
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "v")), "v2");
	assert_string_equal(json_string_value(json_object_get(o, "url")), "mxc://example.org/abc");
	assert_string_equal(json_string_value(json_object_get(o, "iv")), "8P/+AQIDBAUAAAAAAAAAAA");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "hashes"),
							      "sha256")),
			    "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0");
	k = json_object_get(o, "key");
	/* base64url, no padding: '-' and '_' where base64 has '+' and '/' */
	assert_string_equal(json_string_value(json_object_get(k, "k")),
			    "4OHi4-Tl5ufo6err7O3u7_Dx8vP09fb3-Pn6-_z9_v8");
	assert_string_equal(json_string_value(json_object_get(k, "kty")), "oct");
	assert_string_equal(json_string_value(json_object_get(k, "alg")), "A256CTR");
	assert_true(json_is_true(json_object_get(k, "ext")));
	assert_int_equal(json_array_size(json_object_get(k, "key_ops")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(k, "key_ops"), 0)),
			    "encrypt");
	assert_string_equal(json_string_value(json_array_get(json_object_get(k, "key_ops"), 1)),
			    "decrypt");
	assert_int_equal(json_object_size(o), 5);
	json_decref(o);
}

static void test_round_trip_fresh_keys(void **state)
{
	static const unsigned char zero8[8];
	unsigned char png[5000], back[5000], h[MXA_SHA256_BYTES];
	unsigned char *c1 = NULL, *c2 = NULL;
	struct mxa_file f1, f2, none;
	struct buf err = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(png); i++)
		png[i] = (unsigned char)(i * 7 + 3);
	memcpy(png, "\x89PNG\r\n\x1a\n", 8);
	assert_int_equal(mxa_encrypt(png, sizeof(png), &c1, &f1, &err), 0);
	assert_int_equal(mxa_encrypt(png, sizeof(png), &c2, &f2, &err), 0);
	/* the counter half of the IV starts at zero; the rest is random */
	assert_memory_equal(f1.iv + 8, zero8, 8);
	assert_memory_not_equal(f1.iv, f2.iv, 8);
	assert_memory_not_equal(f1.key, f2.key, MXA_KEY_BYTES);
	/* a ciphertext, not the PNG, and a different one for each key */
	assert_memory_not_equal(c1, png, 8);
	assert_memory_not_equal(c1, c2, sizeof(png));
	assert_int_equal(mxa_sha256(c1, sizeof(png), h, &err), 0);
	assert_memory_equal(h, f1.sha256, MXA_SHA256_BYTES);
	assert_int_equal(mxa_ctr(&f1, c1, sizeof(png), back, &err), 0);
	assert_memory_equal(back, png, sizeof(png));
	/* the wrong key does not give the PNG back */
	assert_int_equal(mxa_ctr(&f2, c1, sizeof(png), back, &err), 0);
	assert_memory_not_equal(back, png, 8);
	mxa_wipe(&f1);
	memset(&none, 0, sizeof(none));
	assert_memory_equal(&f1, &none, sizeof(none));
	free(c1);
	free(c2);
	/* an empty file is a file too */
	assert_int_equal(mxa_encrypt(png, 0, &c1, &f2, &err), 0);
	free(c1);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctr_known_vector),
		cmocka_unit_test(test_sha256_known_vector),
		cmocka_unit_test(test_file_object),
		cmocka_unit_test(test_round_trip_fresh_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
