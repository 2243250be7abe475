/* util/strmap: SipHash-2-4 against the paper's vector, lookups, deletion
 * (backward shift keeps every run reachable), growth, iteration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/strmap.h"

static void test_siphash_vector(void **state)
{
	unsigned char msg[15];
	size_t i;

	/* Appendix A of the SipHash paper: key 00..0f, message 00..0e */
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	assert_true(strmap_siphash(0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL, msg,
				   sizeof(msg)) == 0xa129ca6149be45e5ULL);
	/* the key matters */
	assert_true(strmap_siphash(1, 2, "abc", 3) != strmap_siphash(1, 3, "abc", 3));
}

#define N 5000

static char keys[N][16];

static void test_put_get_del(void **state)
{
	struct strmap m;
	void *v;
	size_t i, seen, it;

	strmap_init(&m, 42, 7);
	assert_null(strmap_get(&m, "absent"));
	assert_null(strmap_del(&m, "absent"));
	for (i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "@u%zu:x", i);
		assert_null(strmap_put(&m, keys[i], (void *)(i + 1)));
	}
	assert_int_equal(strmap_count(&m), N);
	for (i = 0; i < N; i++)
		assert_ptr_equal(strmap_get(&m, keys[i]), (void *)(i + 1));
	/* replace returns the old value and keeps the count */
	assert_ptr_equal(strmap_put(&m, keys[3], (void *)99), (void *)4);
	assert_int_equal(strmap_count(&m), N);
	assert_ptr_equal(strmap_get(&m, "@u3:x"), (void *)99);
	/* delete every third: the rest stay reachable */
	for (i = 0; i < N; i += 3)
		assert_non_null(strmap_del(&m, keys[i]));
	for (i = 0; i < N; i++) {
		v = strmap_get(&m, keys[i]);
		if (i % 3 == 0)
			assert_null(v);
		else
			assert_non_null(v);
	}
	/* iteration sees each remaining entry once */
	seen = 0;
	for (it = 0; (it = strmap_next(&m, it, &v));)
		seen++;
	assert_int_equal(seen, strmap_count(&m));
	assert_int_equal(seen, N - (N + 2) / 3);
	for (i = 0; i < N; i++)
		strmap_del(&m, keys[i]);
	assert_int_equal(strmap_count(&m), 0);
	assert_null(strmap_get(&m, keys[1]));
	strmap_release(&m);
	strmap_release(&m);	/* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_vector),
		cmocka_unit_test(test_put_get_del),
	};

	return cmocka_run_group_tests_name("strmap", tests, NULL, NULL);
}
