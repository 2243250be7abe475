/* bot/throttle: the per-user token buckets (the manager's use of them is in
 * test_session.c, test_throttle). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "bot/throttle.h"

static enum throttle_verdict take(struct throttle *t, const char *user, int64_t now)
{
	int64_t wait;

	return throttle_take(t, "discord", user, now, &wait);
}

/* burst at once, then one per period; the first refusal warns, the next
 * ones do not, until a command is allowed again. */
static void test_burst_then_rate(void **state)
{
	struct throttle t;
	int64_t wait;
	int i;

	(void)state;
	throttle_init(&t, 3, 2000);
	for (i = 0; i < 3; i++)
		assert_int_equal(take(&t, "ana", 1000), THROTTLE_OK);
	assert_int_equal(throttle_take(&t, "discord", "ana", 1000, &wait), THROTTLE_WARN);
	assert_int_equal(wait, 2000);
	assert_int_equal(take(&t, "ana", 1500), THROTTLE_REFUSED);
	assert_int_equal(throttle_take(&t, "discord", "ana", 2999, &wait), THROTTLE_REFUSED);
	assert_int_equal(wait, 1);
	/* one period later: one command, then refused (and warned) again */
	assert_int_equal(take(&t, "ana", 3000), THROTTLE_OK);
	assert_int_equal(take(&t, "ana", 3000), THROTTLE_WARN);
	/* a steady pace of one per period is never refused */
	for (i = 1; i <= 100; i++)
		assert_int_equal(take(&t, "ana", 3000 + i * 2000), THROTTLE_OK);
	/* idle for a whole burst: the full burst again */
	for (i = 0; i < 3; i++)
		assert_int_equal(take(&t, "ana", 300000), THROTTLE_OK);
	assert_int_equal(take(&t, "ana", 300000), THROTTLE_WARN);
	throttle_release(&t);
}

/* Buckets are per platform and user: one user's flood slows nobody else. */
static void test_users_independent(void **state)
{
	struct throttle t;
	int64_t wait;
	int i;

	(void)state;
	throttle_init(&t, 2, 1000);
	for (i = 0; i < 10; i++)
		take(&t, "ana", 0);
	assert_int_equal(take(&t, "ana", 0), THROTTLE_REFUSED);
	assert_int_equal(take(&t, "ben", 0), THROTTLE_OK);
	assert_int_equal(throttle_take(&t, "matrix", "ana", 0, &wait), THROTTLE_OK);
	throttle_release(&t);
}

/* Off: everything passes, nothing is kept. */
static void test_off(void **state)
{
	struct throttle t;
	int i;

	(void)state;
	throttle_init(&t, 0, 1000);
	for (i = 0; i < 1000; i++)
		assert_int_equal(take(&t, "ana", 0), THROTTLE_OK);
	assert_int_equal(throttle_tracked(&t), 0);
	throttle_release(&t);
	throttle_init(&t, 5, 0);
	assert_int_equal(take(&t, "ana", 0), THROTTLE_OK);
	throttle_release(&t);
}

/* The table forgets users whose bucket is full again, so its size follows
 * the users active lately, not every user ever seen. */
static void test_idle_users_forgotten(void **state)
{
	struct throttle t;
	char user[32];
	int i, round;

	(void)state;
	throttle_init(&t, 2, 1000);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 1000; i++) {
			snprintf(user, sizeof(user), "u%d-%d", round, i);
			assert_int_equal(take(&t, user, round * 10000), THROTTLE_OK);
		}
	}
	/* 20000 users seen, 1000 at a time: the rest were swept */
	assert_true(throttle_tracked(&t) <= 3000);
	/* a user refused a moment ago is still remembered */
	take(&t, "flood", 500000);
	take(&t, "flood", 500000);
	assert_int_equal(take(&t, "flood", 500000), THROTTLE_WARN);
	for (i = 0; i < 5000; i++) {
		snprintf(user, sizeof(user), "late-%d", i);
		take(&t, user, 500000);
	}
	assert_int_equal(take(&t, "flood", 500001), THROTTLE_REFUSED);
	throttle_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_rate),
		cmocka_unit_test(test_users_independent),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_idle_users_forgotten),
	};

	return cmocka_run_group_tests_name("throttle", tests, NULL, NULL);
}
