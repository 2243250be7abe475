/* bot/config: defaults from a file, the environment wins, secrets guarded,
 * a file others can change refused. */
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
	/* a key (MATRIX_PICKLE_KEY) is a secret too */
	unsetenv("TABULA_TEST_PICKLE_KEY");
	write_file("TABULA_TEST_PICKLE_KEY=k3y-value-long-enough\n", 0640);
	assert_int_equal(config_load(path, &err), -1);
	assert_null(strstr(buf_str(&err), "k3y-value"));
	assert_null(getenv("TABULA_TEST_PICKLE_KEY"));
	unlink(path);
	buf_release(&err);
}

/* A PostgreSQL URI with a password is a secret like a token; without one
 * it is not. */
static void test_store_uri_password_is_secret(void **state)
{
	struct buf err = BUF_INIT;

	unsetenv("TABULA_DB");
	write_file("TABULA_DB=postgresql://bot:pw-s3cr3t@db.example/tabula\n", 0644);
	assert_int_equal(config_load(path, &err), -1);
	assert_non_null(strstr(buf_str(&err), "TABULA_DB"));
	assert_null(strstr(buf_str(&err), "s3cr3t"));
	assert_null(getenv("TABULA_DB"));
	unlink(path);
	write_file("TABULA_DB=postgresql:///tabula?host=/run/postgresql&password=s3cr3t\n", 0644);
	assert_int_equal(config_load(path, &err), -1);
	unlink(path);
	write_file("TABULA_DB=postgresql://bot@db.example/tabula?sslmode=verify-full\n", 0644);
	assert_int_equal(config_load(path, &err), 0);
	assert_string_equal(getenv("TABULA_DB"), "postgresql://bot@db.example/tabula?sslmode=verify-full");
	unsetenv("TABULA_DB");
	unlink(path);
	buf_release(&err);
}

/* Whoever can change the file chooses the bot's endpoints and store: a
 * group- or world-writable file is refused, secret or not, and sets
 * nothing.  Readable by others is fine without a secret. */
static void test_writable_by_others_refused(void **state)
{
	static const mode_t bad[] = { 0620, 0602, 0666, 0660 };
	struct buf err = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsetenv("TABULA_TEST_W");
		write_file("TABULA_TEST_W=https://evil.example\n", bad[i]);
		buf_reset(&err);
		assert_int_equal(config_load(path, &err), -1);
		assert_non_null(strstr(buf_str(&err), "can be changed by others"));
		assert_non_null(strstr(buf_str(&err), "chmod go-w"));
		assert_null(getenv("TABULA_TEST_W"));
		unlink(path);
	}
	write_file("TABULA_TEST_W=fine\n", 0644);
	assert_int_equal(config_load(path, &err), 0);
	assert_string_equal(getenv("TABULA_TEST_W"), "fine");
	unlink(path);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_env_wins),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_secret_needs_private_file),
		cmocka_unit_test(test_store_uri_password_is_secret),
		cmocka_unit_test(test_writable_by_others_refused),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
