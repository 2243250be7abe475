/* util/metrics (the registry and the exposition), util/meters (the catalog)
 * and httpd_parse_addr (which listen addresses are taken). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "adapters/httpd.h"
#include "util/buf.h"
#include "util/meters.h"
#include "util/metrics.h"

static const char *const colours[] = { "red", "green" };
static const char *const sizes[] = { "s", "m", "l" };

static struct metric counter = {
	.name = "t_things_total", .help = "Things, by colour and size.",
	.type = METRIC_COUNTER, .nlabels = 2,
	.labels = { { "colour", colours, 2 }, { "size", sizes, 3 } },
};
static struct metric gauge = {
	.name = "t_level", .help = "A level.", .type = METRIC_GAUGE, .scale = 1000,
};
static struct metric hist = {
	.name = "t_seconds", .help = "A \"time\" \\ here.", .type = METRIC_HISTOGRAM,
	.nlabels = 1, .labels = { { "colour", colours, 2 } },
	.bounds = { 1000, 10000, 100000 }, .nbounds = 3, .scale = 1e6,
};

static void reset(void)
{
	metric_reset(&counter);
	metric_reset(&gauge);
	metric_reset(&hist);
}

static void test_counter_cells(void **state)
{
	reset();
	metric_inc(&counter, 1, 2);
	metric_add(&counter, 1, 2, 4);
	metric_inc(&counter, 0, 0);
	/* out of the declared sets: ignored, nothing else moves */
	metric_inc(&counter, 2, 0);
	metric_inc(&counter, 0, 3);
	metric_inc(&counter, metric_value(&counter, 0, "blue"), 0);
	assert_int_equal(metric_get(&counter, 1, 2), 5);
	assert_int_equal(metric_get(&counter, 0, 0), 1);
	assert_int_equal(metric_get(&counter, 0, 1), 0);
	assert_int_equal(metric_value(&counter, 0, "green"), 1);
	assert_int_equal(metric_value(&counter, 1, "l"), 2);
	assert_int_equal(metric_value(&counter, 0, "blue"), 2);
	assert_int_equal(metric_value(&counter, 0, NULL), 2);
	/* a counter is not set, a gauge is not observed */
	metric_set(&counter, 0, 0, 100);
	assert_int_equal(metric_get(&counter, 0, 0), 1);
	/* a label the metric lacks must be 0 */
	metric_inc(&gauge, 0, 1);
	assert_int_equal(metric_get(&gauge, 0, 0), 0);
}

static void test_exposition_text(void **state)
{
	struct metric *all[] = { &counter, &gauge, &hist };
	struct buf out = BUF_INIT;
	const char *want =
		"# HELP t_things_total Things, by colour and size.\n"
		"# TYPE t_things_total counter\n"
		"t_things_total{colour=\"red\",size=\"s\"} 0\n"
		"t_things_total{colour=\"red\",size=\"m\"} 0\n"
		"t_things_total{colour=\"red\",size=\"l\"} 0\n"
		"t_things_total{colour=\"green\",size=\"s\"} 0\n"
		"t_things_total{colour=\"green\",size=\"m\"} 2\n"
		"t_things_total{colour=\"green\",size=\"l\"} 0\n"
		"# HELP t_level A level.\n"
		"# TYPE t_level gauge\n"
		"t_level 1.5\n"
		"# HELP t_seconds A \"time\" \\\\ here.\n"
		"# TYPE t_seconds histogram\n"
		"t_seconds_bucket{colour=\"red\",le=\"0.001\"} 1\n"
		"t_seconds_bucket{colour=\"red\",le=\"0.01\"} 2\n"
		"t_seconds_bucket{colour=\"red\",le=\"0.1\"} 2\n"
		"t_seconds_bucket{colour=\"red\",le=\"+Inf\"} 3\n"
		"t_seconds_sum{colour=\"red\"} 2.0055\n"
		"t_seconds_count{colour=\"red\"} 3\n"
		"t_seconds_bucket{colour=\"green\",le=\"0.001\"} 0\n"
		"t_seconds_bucket{colour=\"green\",le=\"0.01\"} 0\n"
		"t_seconds_bucket{colour=\"green\",le=\"0.1\"} 0\n"
		"t_seconds_bucket{colour=\"green\",le=\"+Inf\"} 0\n"
		"t_seconds_sum{colour=\"green\"} 0\n"
		"t_seconds_count{colour=\"green\"} 0\n";

	reset();
	metric_add(&counter, 1, 1, 2);
	metric_set(&gauge, 0, 0, 1500);
	metric_observe(&hist, 0, 0, 500);	/* <= 0.001 s */
	metric_observe(&hist, 0, 0, 5000);	/* <= 0.01 s */
	metric_observe(&hist, 0, 0, 2000000);	/* over every bound: +Inf only */
	metric_observe(&hist, 2, 0, 1);		/* no such colour */
	assert_int_equal(metric_get(&hist, 0, 0), 3);
	assert_int_equal(metrics_write(&out, all, 3), 0);
	assert_string_equal(buf_str(&out), want);
	buf_release(&out);
}

static void test_bucket_edges(void **state)
{
	struct buf out = BUF_INIT;
	struct metric *all[] = { &hist };

	reset();
	/* a value equal to a bound belongs to that bucket (le: <=) */
	metric_observe(&hist, 1, 0, 1000);
	metric_observe(&hist, 1, 0, 1001);
	metrics_write(&out, all, 1);
	assert_non_null(strstr(buf_str(&out), "t_seconds_bucket{colour=\"green\",le=\"0.001\"} 1\n"));
	assert_non_null(strstr(buf_str(&out), "t_seconds_bucket{colour=\"green\",le=\"0.01\"} 2\n"));
	buf_release(&out);
}

static void test_check(void **state)
{
	struct buf err = BUF_INIT;
	struct metric bad_name = { .name = "9lives", .help = "x" };
	struct metric bad_help = { .name = "ok", .help = "two\nlines" };
	struct metric bad_label = { .name = "ok", .help = "x", .nlabels = 1,
				    .labels = { { "le", colours, 2 } } };
	struct metric bad_bounds = { .name = "ok", .help = "x", .type = METRIC_HISTOGRAM,
				     .bounds = { 5, 5 }, .nbounds = 2 };
	static const char *const many[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i",
					    "j", "k", "l" };
	struct metric too_big = { .name = "ok", .help = "x", .nlabels = 2,
				  .labels = { { "x", many, 12 }, { "y", many, 12 } } };

	assert_int_equal(metric_check(&counter, &err), 0);
	assert_int_equal(metric_check(&hist, &err), 0);
	assert_int_equal(metric_check(&bad_name, &err), -1);
	assert_int_equal(metric_check(&bad_help, &err), -1);
	assert_int_equal(metric_check(&bad_label, &err), -1);
	assert_int_equal(metric_check(&bad_bounds, &err), -1);
	assert_int_equal(metric_check(&too_big, &err), -1);
	/* and a bump past the storage is ignored, not written out of bounds */
	metric_inc(&too_big, 11, 11);
	buf_release(&err);
}

/* The catalog: well formed, unique names, every label value from a fixed
 * set; the game label is the registry's after meters_init. */
static void test_catalog(void **state)
{
	static const char *const games[] = { "fortuna", "gtr" };
	struct buf err = BUF_INIT, out = BUF_INIT;
	unsigned i, j;

	meters_init(games, 2);
	for (i = 0; i < meters_count; i++) {
		if (metric_check(meters_all[i], &err))
			fail_msg("%s", buf_str(&err));
		for (j = 0; j < i; j++)
			assert_string_not_equal(meters_all[i]->name, meters_all[j]->name);
	}
	assert_int_equal(meters_game("gtr"), 1);
	assert_int_equal(meters_game("chess"), 2);		/* "other" */
	assert_int_equal(meters_platform("discord"), METER_DISCORD);
	assert_int_equal(meters_platform("#room:example.org"), METER_PLATFORM_OTHER);
	assert_int_equal(meters_platform(NULL), METER_PLATFORM_OTHER);
	assert_int_equal(meters_status(0), 0);
	assert_int_equal(meters_status(204), 2);
	assert_int_equal(meters_status(404), 4);
	assert_int_equal(meters_status(429), 5);
	assert_int_equal(meters_status(503), 6);
	assert_int_equal(meters_status(999), 0);
	metric_add(&met_games, meters_game("gtr"), METER_GAME_ACTIVE, 3);
	metrics_write(&out, meters_all, meters_count);
	assert_non_null(strstr(buf_str(&out), "tabula_games{game=\"gtr\",state=\"active\"} 3\n"));
	assert_non_null(strstr(buf_str(&out), "tabula_games{game=\"other\",state=\"lobby\"} 0\n"));
	metric_reset(&met_games);
	buf_release(&out);
	buf_release(&err);
}

#define THREADS 4
#define BUMPS 100000

static void *bump(void *arg)
{
	int i;

	for (i = 0; i < BUMPS; i++) {
		metric_inc(&counter, 0, 1);
		metric_observe(&hist, 1, 0, 50);
	}
	return arg;
}

/* Worker threads (the AI, the painters) bump the same cells: no count is
 * lost. */
static void test_threads(void **state)
{
	pthread_t t[THREADS];
	int i;

	reset();
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, bump, NULL), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(metric_get(&counter, 0, 1), THREADS * BUMPS);
	assert_int_equal(metric_get(&hist, 1, 0), THREADS * BUMPS);
}

static int parse(const char *spec, int pub, char *host, int *port, int *v6)
{
	struct buf err = BUF_INIT;
	int rc = httpd_parse_addr(spec, pub, host, 64, port, v6, &err);

	buf_release(&err);
	return rc;
}

static void test_listen_addresses(void **state)
{
	char host[64];
	int port, v6;

	assert_int_equal(parse("127.0.0.1:9464", 0, host, &port, &v6), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 9464);
	assert_int_equal(v6, 0);
	assert_int_equal(parse("127.3.2.1:0", 0, host, &port, &v6), 0);
	assert_int_equal(parse("localhost:80", 0, host, &port, &v6), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(parse("[::1]:9464", 0, host, &port, &v6), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(v6, 1);
	assert_int_equal(parse("[::ffff:127.0.0.1]:9464", 0, host, &port, &v6), 0);
	/* not loopback: only when the operator says so */
	assert_int_equal(parse("0.0.0.0:9464", 0, host, &port, &v6), -1);
	assert_int_equal(parse("0.0.0.0:9464", 1, host, &port, &v6), 0);
	assert_int_equal(parse("10.1.2.3:9464", 0, host, &port, &v6), -1);
	assert_int_equal(parse("[::]:9464", 0, host, &port, &v6), -1);
	assert_int_equal(parse("[::]:9464", 1, host, &port, &v6), 0);
	assert_int_equal(parse("[fe80::1]:9464", 0, host, &port, &v6), -1);
	assert_int_equal(parse("[::ffff:10.0.0.1]:9464", 0, host, &port, &v6), -1);
	/* malformed, whoever allows what */
	assert_int_equal(parse("::1:9464", 1, host, &port, &v6), -1);
	assert_int_equal(parse("127.0.0.1", 1, host, &port, &v6), -1);
	assert_int_equal(parse("127.0.0.1:", 1, host, &port, &v6), -1);
	assert_int_equal(parse("127.0.0.1:65536", 1, host, &port, &v6), -1);
	assert_int_equal(parse("127.0.0.1:-1", 1, host, &port, &v6), -1);
	assert_int_equal(parse("127.0.0.1:80x", 1, host, &port, &v6), -1);
	assert_int_equal(parse("example.org:80", 1, host, &port, &v6), -1);
	assert_int_equal(parse("[::1]9464", 1, host, &port, &v6), -1);
	assert_int_equal(parse(":9464", 1, host, &port, &v6), -1);
	assert_int_equal(parse("", 1, host, &port, &v6), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_cells),
		cmocka_unit_test(test_exposition_text),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_listen_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
