/* bot/harden: the bot's process writes no core dump (it would hold the
 * tokens and every hidden hand). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "bot/harden.h"

static void test_no_core_dumps(void **state)
{
	struct buf err = BUF_INIT;
	struct rlimit lim;

	(void)state;
	assert_int_equal(harden_process(&err), 0);
	assert_int_equal(getrlimit(RLIMIT_CORE, &lim), 0);
	assert_int_equal(lim.rlim_cur, 0);
	assert_int_equal(lim.rlim_max, 0);	/* and it cannot be raised again */
#ifdef __linux__
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
#endif
	/* idempotent */
	assert_int_equal(harden_process(&err), 0);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_core_dumps),
	};

	return cmocka_run_group_tests_name("harden", tests, NULL, NULL);
}
