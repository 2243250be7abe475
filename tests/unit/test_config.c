/* bot/config: defaults from a file, the environment wins, secrets guarded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/config.h"

static char path[64];

static void write_file(const char *text, mode_t mode)
{
	int fd;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/tabula-conf-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void test_defaults_and_env_wins(void **state)
{
	struct buf err = BUF_INIT;

	setenv("TABULA_TEST_B", "from-env", 1);
	unsetenv("TABULA_TEST_A");
	write_file("# comment\n\nTABULA_TEST_A = file value \nTABULA_TEST_B=file\n", 0600);
	assert_int_equal(config_load(path, &err), 0);
	assert_string_equal(getenv("TABULA_TEST_A"), "file value");
	assert_string_equal(getenv("TABULA_TEST_B"), "from-env");
	unlink(path);
	buf_release(&err);
}

static void test_malformed(void **state)
{
	struct buf err = BUF_INIT;

	write_file("JUST_A_WORD\n", 0600);
	assert_int_equal(config_load(path, &err), -1);
	assert_non_null(strstr(buf_str(&err), ":1: expected KEY=VALUE"));
	unlink(path);
	write_file("lower=case\n", 0600);
	assert_int_equal(config_load(path, &err), -1);
	unlink(path);
	assert_int_equal(config_load("/nonexistent/tabula.conf", &err), -1);
	buf_release(&err);
}

static void test_secret_needs_private_file(void **state)
{
	struct buf err = BUF_INIT;

	unsetenv("TABULA_TEST_TOKEN");
	write_file("TABULA_TEST_TOKEN=s3cr3t-value\n", 0644);
	assert_int_equal(config_load(path, &err), -1);
	assert_non_null(strstr(buf_str(&err), "chmod 600"));
	assert_null(strstr(buf_str(&err), "s3cr3t"));	/* never the value */
	assert_null(getenv("TABULA_TEST_TOKEN"));
	chmod(path, 0600);
	assert_int_equal(config_load(path, &err), 0);
	assert_string_equal(getenv("TABULA_TEST_TOKEN"), "s3cr3t-value");
	unlink(path);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_env_wins),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_secret_needs_private_file),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
