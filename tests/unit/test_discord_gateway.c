/* adapters/discord/gateway: the pure gateway state machine, event by event. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "adapters/discord/gateway.h"

#define TOKEN "Bot.SECRET-token-xyz"
#define BASE GATEWAY_URL_DEFAULT
#define RESUME_URL "wss://resume.example.gg/?v=10&encoding=json"
#define INTERVAL 41250

struct acts {
	struct gateway_action v[16];
	int n;
};

/* Drains every queued action; checks no LOG/FATAL text leaks the token. */
static void drain(struct gateway *g, struct acts *a)
{
	a->n = 0;
	while (a->n < 16 && gateway_next_action(g, &a->v[a->n])) {
		struct gateway_action *x = &a->v[a->n++];

		if (x->kind == GATEWAY_LOG || x->kind == GATEWAY_FATAL) {
			assert_non_null(x->text);
			assert_null(strstr(x->text, "SECRET"));
		}
	}
	assert_int_equal(gateway_next_action(g, &a->v[0]) , 0);
}

static void release(struct acts *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		gateway_action_release(&a->v[i]);
	a->n = 0;
}

static int count(const struct acts *a, enum gateway_action_kind k)
{
	int i, n = 0;

	for (i = 0; i < a->n; i++)
		n += a->v[i].kind == k;
	return n;
}

static struct gateway_action *find(struct acts *a, enum gateway_action_kind k)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->v[i].kind == k)
			return &a->v[i];
	fail_msg("no action of kind %d", k);
	return NULL;
}

static void text(struct gateway *g, const char *s, uint64_t now)
{
	gateway_on_text(g, s, strlen(s), now);
}

/* Parses the one SEND in *a and checks its op; returns a new reference. */
static json_t *sent(struct acts *a, int op)
{
	json_t *j;

	assert_int_equal(count(a, GATEWAY_SEND), 1);
	j = json_loads(find(a, GATEWAY_SEND)->text, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "op")), op);
	return j;
}

static void hello(struct gateway *g, uint64_t now)
{
	char s[80];

	snprintf(s, sizeof(s), "{\"op\":10,\"d\":{\"heartbeat_interval\":%d}}",
		 INTERVAL);
	text(g, s, now);
}

static const char ready_json[] =
	"{\"op\":0,\"s\":1,\"t\":\"READY\",\"d\":{\"v\":10,"
	"\"session_id\":\"sess1\","
	"\"resume_gateway_url\":\"wss://resume.example.gg\","
	"\"user\":{\"id\":\"9\"},\"application\":{\"id\":\"123\",\"flags\":0}}}";

/* Init, connect, Hello, Identify, READY.  Returns the first beat time. */
static uint64_t start_ready(struct gateway *g, uint64_t now)
{
	struct acts a;
	uint64_t t1;

	gateway_init(g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 1, 7);
	drain(g, &a);
	release(&a);
	gateway_on_open(g, now);
	hello(g, now);
	drain(g, &a);
	t1 = find(&a, GATEWAY_TIMER)->ms;
	release(&a);
	text(g, ready_json, now + 10);
	drain(g, &a);
	assert_int_equal(count(&a, GATEWAY_DISPATCH), 1);
	release(&a);
	assert_int_equal(gateway_state(g), GATEWAY_CONNECTED);
	return t1;
}

/* After a CLOSE we sent: report the socket gone and expect a CONNECT
 * (and perhaps a LOG about pacing). */
static struct gateway_action closed(struct gateway *g, int code, uint64_t now)
{
	struct acts a;
	struct gateway_action c;
	int i;

	gateway_on_close(g, code, now);
	drain(g, &a);
	assert_int_equal(count(&a, GATEWAY_CONNECT), 1);
	assert_int_equal(count(&a, GATEWAY_CONNECT) + count(&a, GATEWAY_LOG), a.n);
	c = *find(&a, GATEWAY_CONNECT);
	for (i = 0; i < a.n; i++)
		if (a.v[i].kind == GATEWAY_LOG)
			gateway_action_release(&a.v[i]);
	return c;	/* caller releases */
}

/* Open + Hello on a fresh connection; returns the Identify/Resume sent. */
static json_t *reopen(struct gateway *g, int op, uint64_t now)
{
	struct acts a;
	json_t *j;

	gateway_on_open(g, now);
	hello(g, now);
	drain(g, &a);
	j = sent(&a, op);
	assert_int_equal(count(&a, GATEWAY_TIMER), 1);
	release(&a);
	return j;
}

static void check_resume(json_t *j, int64_t seq)
{
	json_t *d = json_object_get(j, "d");

	assert_string_equal(json_string_value(json_object_get(d, "token")), TOKEN);
	assert_string_equal(json_string_value(json_object_get(d, "session_id")),
			    "sess1");
	assert_int_equal(json_integer_value(json_object_get(d, "seq")), seq);
	json_decref(j);
}

/* ------------------------------------------------------------------ */

static void test_happy_path(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action *x;
	json_t *j, *d;
	uint64_t t1, t2;

	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 1, 7);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, GATEWAY_CONNECT);
	assert_string_equal(a.v[0].text, BASE);
	assert_int_equal(a.v[0].ms, 0);
	release(&a);

	gateway_on_open(&g, 1000);
	assert_int_equal(gateway_state(&g), GATEWAY_WAIT_HELLO);
	hello(&g, 1000);
	drain(&g, &a);
	assert_int_equal(a.n, 2);
	j = sent(&a, 2);
	d = json_object_get(j, "d");
	assert_string_equal(json_string_value(json_object_get(d, "token")), TOKEN);
	/* interactions need no intent: none is asked for */
	assert_true(json_is_integer(json_object_get(d, "intents")));
	assert_int_equal(json_integer_value(json_object_get(d, "intents")), 0);
	assert_int_equal(json_array_size(json_object_get(d, "shard")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "shard"), 0)), 0);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "shard"), 1)), 1);
	assert_true(json_is_string(json_object_get(json_object_get(d, "properties"), "os")));
	json_decref(j);
	t1 = find(&a, GATEWAY_TIMER)->ms;
	assert_in_range(t1, 1000, 1000 + INTERVAL - 1);	/* jittered */
	release(&a);
	assert_int_equal(gateway_state(&g), GATEWAY_IDENTIFYING);
	assert_int_equal(gateway_seq(&g), -1);

	text(&g, ready_json, 1100);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	x = find(&a, GATEWAY_DISPATCH);
	assert_string_equal(x->text, "READY");
	assert_string_equal(json_string_value(json_object_get(x->d, "session_id")), "sess1");
	release(&a);
	assert_string_equal(gateway_session_id(&g), "sess1");
	assert_string_equal(gateway_resume_url(&g), "wss://resume.example.gg");
	assert_string_equal(gateway_application_id(&g), "123");
	assert_int_equal(gateway_seq(&g), 1);

	/* interactions are handed over; what the bot does not read (messages,
	 * guilds) is not; all of them advance the sequence. */
	text(&g, "{\"op\":0,\"s\":2,\"t\":\"MESSAGE_CREATE\",\"d\":{\"content\":\"hi\"}}", 1200);
	text(&g, "{\"op\":0,\"s\":3,\"t\":\"MESSAGE_CREATE\",\"d\":{\"guild_id\":\"5\"}}", 1200);
	text(&g, "{\"op\":0,\"s\":4,\"t\":\"TYPING_START\",\"d\":{}}", 1200);
	text(&g, "{\"op\":0,\"s\":5,\"t\":\"INTERACTION_CREATE\",\"d\":{\"id\":\"77\"}}", 1200);
	text(&g, "{\"op\":0,\"s\":6,\"t\":\"GUILD_CREATE\",\"d\":{\"id\":\"5\"}}", 1200);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0].text, "INTERACTION_CREATE");
	assert_string_equal(json_string_value(json_object_get(a.v[0].d, "id")), "77");
	release(&a);
	assert_int_equal(gateway_seq(&g), 6);

	/* early timer: nothing but the same TIMER again */
	gateway_on_timer(&g, t1 - 1);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(find(&a, GATEWAY_TIMER)->ms, t1);
	release(&a);

	gateway_on_timer(&g, t1);
	drain(&g, &a);
	j = sent(&a, 1);
	assert_int_equal(json_integer_value(json_object_get(j, "d")), 6);
	json_decref(j);
	t2 = find(&a, GATEWAY_TIMER)->ms;
	assert_int_equal(t2, t1 + INTERVAL);
	release(&a);

	text(&g, "{\"op\":11}", t1 + 50);
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	gateway_on_timer(&g, t2);
	drain(&g, &a);
	j = sent(&a, 1);
	json_decref(j);
	assert_int_equal(find(&a, GATEWAY_TIMER)->ms, t2 + INTERVAL);
	release(&a);
	gateway_release(&g);
}

static void test_first_heartbeat_null_seq(void **state)
{
	struct gateway g;
	struct acts a;
	json_t *j, *d;
	uint64_t t1;

	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 99);
	drain(&g, &a);
	release(&a);
	gateway_on_open(&g, 0);
	hello(&g, 0);
	drain(&g, &a);
	j = sent(&a, 2);
	d = json_object_get(j, "d");
	assert_null(json_object_get(d, "shard"));	/* shard_count 0 */
	json_decref(j);
	t1 = find(&a, GATEWAY_TIMER)->ms;
	release(&a);
	gateway_on_timer(&g, t1);
	drain(&g, &a);
	j = sent(&a, 1);
	assert_true(json_is_null(json_object_get(j, "d")));
	json_decref(j);
	release(&a);
	gateway_release(&g);
}

static void test_zombie_then_resume(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	uint64_t t1, t2;

	t1 = start_ready(&g, 0);
	gateway_on_timer(&g, t1);
	drain(&g, &a);
	t2 = find(&a, GATEWAY_TIMER)->ms;
	release(&a);
	/* no ACK arrives */
	gateway_on_timer(&g, t2);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_SEND), 0);
	assert_int_equal(count(&a, GATEWAY_TIMER), 0);
	assert_int_equal(count(&a, GATEWAY_CONNECT), 0);
	assert_int_equal(count(&a, GATEWAY_CLOSE), 1);
	assert_int_not_equal(find(&a, GATEWAY_CLOSE)->code, 1000);
	assert_int_not_equal(find(&a, GATEWAY_CLOSE)->code, 1001);
	release(&a);
	assert_int_equal(gateway_state(&g), GATEWAY_CLOSING);

	/* frames and timers while closing are ignored */
	text(&g, "{\"op\":11}", t2 + 1);
	gateway_on_timer(&g, t2 + INTERVAL);
	drain(&g, &a);
	assert_int_equal(a.n, 0);

	c = closed(&g, 1006, t2 + 5);
	assert_string_equal(c.text, RESUME_URL);
	assert_in_range(c.ms, 500, 999);
	gateway_action_release(&c);

	check_resume(reopen(&g, 6, t2 + 2000), 1);
	assert_int_equal(gateway_state(&g), GATEWAY_RESUMING);
	text(&g, "{\"op\":0,\"s\":2,\"t\":\"RESUMED\",\"d\":null}", t2 + 2100);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_string_equal(find(&a, GATEWAY_DISPATCH)->text, "RESUMED");
	release(&a);
	assert_int_equal(gateway_state(&g), GATEWAY_CONNECTED);
	assert_int_equal(gateway_seq(&g), 2);
	gateway_release(&g);
}

static void test_reconnect_op7(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;

	start_ready(&g, 0);
	text(&g, "{\"op\":0,\"s\":8,\"t\":\"X\",\"d\":{}}", 100);
	text(&g, "{\"op\":7,\"d\":null}", 200);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, GATEWAY_CLOSE);
	assert_int_not_equal(a.v[0].code, 1000);
	release(&a);
	c = closed(&g, 4900, 300);
	assert_string_equal(c.text, RESUME_URL);
	gateway_action_release(&c);
	check_resume(reopen(&g, 6, 1500), 8);
	gateway_release(&g);
}

static void test_invalid_session_resumable(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;

	start_ready(&g, 0);
	text(&g, "{\"op\":9,\"d\":true}", 200);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, GATEWAY_CLOSE);
	assert_int_not_equal(a.v[0].code, 1000);
	assert_int_not_equal(a.v[0].code, 1001);
	release(&a);
	assert_string_equal(gateway_session_id(&g), "sess1");
	c = closed(&g, 4900, 300);
	assert_string_equal(c.text, RESUME_URL);
	gateway_action_release(&c);
	check_resume(reopen(&g, 6, 1500), 1);
	gateway_release(&g);
}

static void test_invalid_session_identify(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	json_t *j;

	start_ready(&g, 0);
	/* a minute after the Identify: only the 1-5 s Discord asks for */
	text(&g, "{\"op\":9,\"d\":false}", 60000);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, GATEWAY_CLOSE);
	release(&a);
	assert_null(gateway_session_id(&g));
	assert_null(gateway_resume_url(&g));
	assert_int_equal(gateway_seq(&g), -1);
	c = closed(&g, 1000, 60100);
	assert_string_equal(c.text, BASE);
	assert_in_range(c.ms, 1000, 5000);
	gateway_action_release(&c);
	j = reopen(&g, 2, 65000);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "d"), "token")), TOKEN);
	json_decref(j);
	assert_int_equal(gateway_state(&g), GATEWAY_IDENTIFYING);
	gateway_release(&g);
}

static void test_invalid_session_delay_range(void **state)
{
	uint64_t seed;
	int lo = 0, hi = 0;

	for (seed = 1; seed <= 200; seed++) {
		struct gateway g;
		struct acts a;
		struct gateway_action c;

		gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, seed);
		drain(&g, &a);
		release(&a);
		gateway_on_open(&g, 0);
		hello(&g, 0);
		drain(&g, &a);
		release(&a);
		text(&g, ready_json, 10);
		text(&g, "{\"op\":9,\"d\":false}", 60000);
		drain(&g, &a);
		release(&a);
		c = closed(&g, 1000, 60010);
		assert_in_range(c.ms, 1000, 5000);
		lo += c.ms < 2000;
		hi += c.ms > 4000;
		gateway_action_release(&c);
		gateway_release(&g);
	}
	assert_true(lo > 0 && hi > 0);	/* jittered over the whole range */
}

static void test_server_heartbeat_request(void **state)
{
	struct gateway g;
	struct acts a;
	json_t *j;

	start_ready(&g, 0);
	text(&g, "{\"op\":1,\"d\":null}", 50);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	j = sent(&a, 1);
	assert_int_equal(json_integer_value(json_object_get(j, "d")), 1);
	json_decref(j);
	release(&a);
	gateway_release(&g);
}

static void test_fatal_close_codes(void **state)
{
	static const struct { int close, exit; } cases[] = {
		{ 4004, 14 }, { 4010, 20 }, { 4011, 21 },
		{ 4012, 22 }, { 4013, 23 }, { 4014, 24 },
	};
	size_t i;

	assert_int_equal(GATEWAY_EXIT_AUTH_FAILED, 14);
	assert_int_equal(GATEWAY_EXIT_DISALLOWED_INTENTS, 24);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gateway g;
		struct acts a;
		char code[8];

		start_ready(&g, 0);
		gateway_on_close(&g, cases[i].close, 100);
		drain(&g, &a);
		assert_int_equal(a.n, 1);
		assert_int_equal(a.v[0].kind, GATEWAY_FATAL);
		assert_int_equal(a.v[0].code, cases[i].exit);
		snprintf(code, sizeof(code), "%d", cases[i].close);
		assert_non_null(strstr(a.v[0].text, code));
		assert_null(strstr(a.v[0].text, TOKEN));
		release(&a);
		assert_int_equal(gateway_state(&g), GATEWAY_DEAD);
		/* nothing afterwards: no reconnect, no beats */
		gateway_on_close(&g, 1006, 200);
		gateway_on_timer(&g, 1000000);
		gateway_on_open(&g, 300);
		hello(&g, 300);
		drain(&g, &a);
		assert_int_equal(a.n, 0);
		gateway_release(&g);
	}
}

static void test_close_codes_reconnect(void **state)
{
	static const int identify[] = { 4007, 4009 };
	static const int resume[] = { 4000, 4001, 4002, 4003, 4005, 4008, 1006, 1001, 0 };
	size_t i;

	for (i = 0; i < sizeof(identify) / sizeof(identify[0]); i++) {
		struct gateway g;
		struct gateway_action c;
		json_t *j;

		start_ready(&g, 0);
		c = closed(&g, identify[i], 100);
		assert_string_equal(c.text, BASE);
		gateway_action_release(&c);
		assert_null(gateway_session_id(&g));
		j = reopen(&g, 2, 2000);
		json_decref(j);
		gateway_release(&g);
	}
	for (i = 0; i < sizeof(resume) / sizeof(resume[0]); i++) {
		struct gateway g;
		struct gateway_action c;

		start_ready(&g, 0);
		c = closed(&g, resume[i], 100);
		assert_string_equal(c.text, RESUME_URL);
		gateway_action_release(&c);
		check_resume(reopen(&g, 6, 2000), 1);
		gateway_release(&g);
	}
}

static void test_backoff(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	uint64_t lo = 500, hi = 1000;
	int i;

	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 3);
	drain(&g, &a);
	release(&a);
	/* failed connects: each wait is in [b/2, b), b doubling to 64 s */
	for (i = 0; i < 10; i++) {
		c = closed(&g, 0, 0);
		assert_string_equal(c.text, BASE);	/* no session yet */
		assert_in_range(c.ms, lo, hi - 1);
		gateway_action_release(&c);
		if (hi < GATEWAY_BACKOFF_MAX_MS) {
			lo *= 2;
			hi *= 2;
		}
	}
	assert_int_equal(hi, 64000);
	/* success resets it */
	gateway_on_open(&g, 0);
	hello(&g, 0);
	drain(&g, &a);
	release(&a);
	text(&g, ready_json, 10);
	drain(&g, &a);
	release(&a);
	c = closed(&g, 1006, 20);
	assert_string_equal(c.text, RESUME_URL);
	assert_in_range(c.ms, 500, 999);
	gateway_action_release(&c);
	c = closed(&g, 1006, 30);
	assert_in_range(c.ms, 1000, 1999);
	gateway_action_release(&c);
	/* RESUMED resets it too */
	check_resume(reopen(&g, 6, 40), 1);
	text(&g, "{\"op\":0,\"s\":2,\"t\":\"RESUMED\",\"d\":{}}", 50);
	drain(&g, &a);
	release(&a);
	c = closed(&g, 1006, 60);
	assert_in_range(c.ms, 500, 999);
	gateway_action_release(&c);
	gateway_release(&g);
}

static void test_fragments(void **state)
{
	struct gateway g;
	struct acts a;
	const char *m = "{\"op\":0,\"s\":5,\"t\":\"INTERACTION_CREATE\",\"d\":{\"id\":\"42\"}}";
	size_t n = strlen(m);

	start_ready(&g, 0);
	gateway_frame_append(&g, m, 10, 0, 100);
	gateway_frame_append(&g, m + 10, 20, 0, 100);
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	gateway_frame_append(&g, m + 30, n - 30, 1, 100);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0].text, "INTERACTION_CREATE");
	assert_string_equal(json_string_value(json_object_get(a.v[0].d, "id")), "42");
	release(&a);
	assert_int_equal(gateway_seq(&g), 5);
	/* a whole message in one final fragment, right after */
	gateway_frame_append(&g, "{\"op\":11}", 9, 1, 200);
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	gateway_release(&g);
}

static void test_oversize_frame(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	size_t big = (size_t)3 << 20;
	char *junk = malloc(big);

	assert_non_null(junk);
	memset(junk, ' ', big);
	start_ready(&g, 0);
	gateway_frame_append(&g, junk, big, 0, 100);
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	gateway_frame_append(&g, junk, big, 0, 100);	/* 6 MiB > 4 MiB */
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_LOG), 1);
	assert_int_equal(count(&a, GATEWAY_CLOSE), 1);
	assert_int_not_equal(find(&a, GATEWAY_CLOSE)->code, 1000);
	release(&a);
	/* the rest of the message is dropped quietly */
	gateway_frame_append(&g, junk, 10, 0, 100);
	gateway_frame_append(&g, "}", 1, 1, 100);
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	c = closed(&g, 4900, 200);
	assert_string_equal(c.text, RESUME_URL);
	gateway_action_release(&c);
	check_resume(reopen(&g, 6, 1500), 1);
	/* reassembly works again on the new connection */
	gateway_frame_append(&g, "{\"op\":0,\"s\":2,", 14, 0, 1600);
	gateway_frame_append(&g, "\"t\":\"RESUMED\",\"d\":{}}", 21, 1, 1600);
	drain(&g, &a);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0].text, "RESUMED");
	release(&a);
	free(junk);
	gateway_release(&g);
}

/* Sends one message of GATEWAY_FRAME_MAX + 1 bytes in two fragments. */
static void huge(struct gateway *g, uint64_t now)
{
	size_t half = GATEWAY_FRAME_MAX / 2 + 1;
	char *junk = malloc(half);

	assert_non_null(junk);
	memset(junk, ' ', half);
	gateway_frame_append(g, junk, half, 0, now);
	gateway_frame_append(g, junk, half, 1, now);
	free(junk);
}

/* An oversized message that a resume replays: resume once, then identify
 * anew, then back off, never a tight loop; a settled connection forgets. */
static void test_oversize_escalates(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	json_t *j;
	uint64_t t = 0, lo, hi;
	int k;

	start_ready(&g, 0);
	text(&g, "{\"op\":0,\"s\":7,\"t\":\"X\",\"d\":{}}", 100);
	/* 1: resume (the session is kept) */
	huge(&g, 200);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_CLOSE), 1);
	assert_int_not_equal(find(&a, GATEWAY_CLOSE)->code, 1000);
	release(&a);
	c = closed(&g, 4900, 300);
	assert_string_equal(c.text, RESUME_URL);
	gateway_action_release(&c);
	check_resume(reopen(&g, 6, 1500), 7);
	/* 2: the replay brings it again: the session goes, identify anew */
	huge(&g, 1600);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_LOG), 1);
	assert_non_null(strstr(find(&a, GATEWAY_LOG)->text, "identifying anew"));
	assert_int_equal(find(&a, GATEWAY_CLOSE)->code, 1000);
	release(&a);
	assert_null(gateway_session_id(&g));
	c = closed(&g, 1000, 1700);
	assert_string_equal(c.text, BASE);
	/* an Identify went at 0: the next waits its 5 s */
	assert_true(c.ms + 1700 >= GATEWAY_IDENTIFY_GAP_MS);
	t = 1700 + c.ms;
	gateway_action_release(&c);
	j = reopen(&g, 2, t);
	json_decref(j);
	/* 3, 4, 5...: READY, then the same again before it settles */
	lo = GATEWAY_BIG_BACKOFF_MS / 2;
	hi = GATEWAY_BIG_BACKOFF_MS;
	for (k = 3; k <= 9; k++) {
		text(&g, ready_json, t + 10);
		drain(&g, &a);
		release(&a);
		huge(&g, t + 20);
		drain(&g, &a);
		assert_int_equal(find(&a, GATEWAY_CLOSE)->code, 1000);
		release(&a);
		c = closed(&g, 1000, t + 30);
		assert_string_equal(c.text, BASE);
		assert_in_range(c.ms, lo, hi - 1);
		t += 30 + c.ms;
		gateway_action_release(&c);
		j = reopen(&g, 2, t);
		json_decref(j);
		hi = hi * 2 < GATEWAY_BIG_BACKOFF_MAX_MS ? hi * 2 : GATEWAY_BIG_BACKOFF_MAX_MS;
		lo = hi / 2;
	}
	assert_int_equal(hi, GATEWAY_BIG_BACKOFF_MAX_MS);
	/* settled (a minute CONNECTED, a beat answered): a new one resumes */
	text(&g, ready_json, t + 10);
	drain(&g, &a);
	release(&a);
	text(&g, "{\"op\":11}", t + 10 + GATEWAY_STABLE_MS);
	huge(&g, t + 20 + GATEWAY_STABLE_MS);
	drain(&g, &a);
	assert_int_not_equal(find(&a, GATEWAY_CLOSE)->code, 1000);
	release(&a);
	assert_string_equal(gateway_session_id(&g), "sess1");
	gateway_release(&g);
}

/* Invalid Session d:false after every Identify (Discord's answer to too
 * many): Identifies are at least 5 s apart, the gap doubling to its cap. */
static void test_identify_paced(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	json_t *j;
	uint64_t t = 0, last = 0, gap = GATEWAY_IDENTIFY_GAP_MS;
	int i, n = 0;

	start_ready(&g, 0);
	for (i = 0; i < 12; i++) {
		text(&g, "{\"op\":9,\"d\":false}", t + 10);
		drain(&g, &a);
		release(&a);
		c = closed(&g, 1000, t + 20);
		assert_string_equal(c.text, BASE);
		t += 20 + c.ms;
		/* the first after a READY: 5 s; then doubling (jitter +50%) */
		assert_true(t - last >= gap);
		assert_true(t - last <= gap + gap / 2 + 5000);
		gateway_action_release(&c);
		j = reopen(&g, 2, t);
		json_decref(j);
		last = t;
		n++;
		if (i && gap < GATEWAY_IDENTIFY_GAP_MAX_MS)
			gap = gap * 2 > GATEWAY_IDENTIFY_GAP_MAX_MS ? GATEWAY_IDENTIFY_GAP_MAX_MS
								  : gap * 2;
	}
	assert_int_equal(gap, GATEWAY_IDENTIFY_GAP_MAX_MS);
	/* a day of it stays well under Discord's 1000 */
	assert_true(n + 86400000 / GATEWAY_IDENTIFY_GAP_MAX_MS < 400);
	/* READY resets the gap to 5 s */
	text(&g, ready_json, t + 10);
	text(&g, "{\"op\":9,\"d\":false}", t + 20);
	drain(&g, &a);
	release(&a);
	c = closed(&g, 1000, t + 30);
	assert_in_range(c.ms + 30, GATEWAY_IDENTIFY_GAP_MS, GATEWAY_IDENTIFY_GAP_MS * 3 / 2);
	gateway_action_release(&c);
	gateway_release(&g);
}

static struct gateway_action *fatal_of(struct acts *a)
{
	struct gateway_action *f = find(a, GATEWAY_FATAL);

	assert_int_equal(f->code, GATEWAY_EXIT_IDENTIFY_BUDGET);
	assert_int_equal(f->code, 25);
	assert_non_null(strstr(f->text, "session starts"));
	return f;
}

/* session_start_limit: never spend the reserve; stop with exit 25. */
static void test_identify_budget(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;
	json_t *j;

	/* already at the reserve when the bot starts: no Identify at all */
	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 1);
	gateway_set_start_limit(&g, 1000, 100, 3600000, 1, 0);
	assert_int_equal(gateway_start_reserve(&g), 100);
	drain(&g, &a);
	fatal_of(&a);
	assert_non_null(strstr(fatal_of(&a)->text, "100 of the day's 1000"));
	assert_non_null(strstr(fatal_of(&a)->text, "1 h 00 min"));
	release(&a);
	assert_int_equal(gateway_state(&g), GATEWAY_DEAD);
	gateway_on_open(&g, 10);
	hello(&g, 10);
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	gateway_release(&g);

	/* one left above the reserve: it is spent, then the bot stops */
	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 1);
	gateway_set_start_limit(&g, 1000, 101, 3600000, 1, 0);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_CONNECT), 1);
	release(&a);
	j = reopen(&g, 2, 0);
	json_decref(j);
	text(&g, "{\"op\":9,\"d\":false}", 100);
	drain(&g, &a);
	release(&a);
	gateway_on_close(&g, 1000, 200);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_CONNECT), 0);
	fatal_of(&a);
	release(&a);
	gateway_release(&g);

	/* a later GET /gateway/bot (other shards spend it too) is believed */
	start_ready(&g, 0);
	gateway_set_start_limit(&g, 1000, 500, 3600000, 1, 50);
	text(&g, "{\"op\":9,\"d\":false}", 100);
	drain(&g, &a);
	release(&a);
	assert_int_equal(gateway_will_identify(&g), 1);
	gateway_set_start_limit(&g, 1000, 90, 3600000, 1, 150);	/* while closing */
	drain(&g, &a);
	assert_int_equal(a.n, 0);
	gateway_on_close(&g, 1000, 200);
	drain(&g, &a);
	fatal_of(&a);
	release(&a);
	gateway_release(&g);

	/* after Discord's reset the day starts again; bad figures are ignored */
	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 1);
	gateway_set_start_limit(&g, 1000, -1, 10, 1, 0);
	gateway_set_start_limit(&g, 0, 0, 10, 1, 0);
	gateway_set_start_limit(&g, 1000, 5, 10, 0, 0);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_LOG), 3);
	assert_int_equal(count(&a, GATEWAY_FATAL), 0);
	release(&a);
	gateway_set_start_limit(&g, 1000, 150, 1000, 1, 0);
	j = reopen(&g, 2, 0);
	json_decref(j);
	text(&g, "{\"op\":9,\"d\":false}", 2000);
	drain(&g, &a);
	release(&a);
	c = closed(&g, 1000, 2100);	/* 149 left, and the day rolled over */
	gateway_action_release(&c);
	gateway_release(&g);
}

/* Shards of one max_concurrency bucket identify 5 s apart, in order. */
static void test_shard_identify_turn(void **state)
{
	struct gateway g;
	struct acts a;

	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 5, 8, 1);
	gateway_set_start_limit(&g, 1000, 999, 3600000, 2, 0);
	drain(&g, &a);
	assert_int_equal(find(&a, GATEWAY_CONNECT)->ms, 2 * GATEWAY_IDENTIFY_GAP_MS);
	release(&a);
	gateway_release(&g);
	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 1, 8, 1);
	gateway_set_start_limit(&g, 1000, 999, 3600000, 2, 0);
	drain(&g, &a);
	assert_int_equal(find(&a, GATEWAY_CONNECT)->ms, 0);
	release(&a);
	gateway_release(&g);
}

static void test_malformed_ignored(void **state)
{
	static const char *bad[] = {
		"", "{", "not json", "[]", "42", "null", "{\"op\":\"10\"}",
		"{\"d\":{}}", "{\"op\":99}", "{\"op\":0}", "{\"op\":0,\"t\":5}",
		"{\"op\":0,\"s\":\"x\",\"t\":\"TYPING_START\"}",
		"{\"op\":0,\"s\":9,\"t\":\"READY\",\"d\":[]}",
		"{\"op\":9,\"d\":\"yes\"}", "{\"op\":9}",
		"{\"op\":10,\"d\":{\"heartbeat_interval\":\"fast\"}}",
		"{\"op\":10,\"d\":{\"heartbeat_interval\":-5}}",
		"{\"op\":10,\"d\":7}",
		"{\"op\":0,\"t\":\"READY\"}",
	};
	struct gateway g;
	struct acts a;
	size_t i;
	int logs = 0;

	start_ready(&g, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		text(&g, bad[i], 100);
		drain(&g, &a);
		logs += count(&a, GATEWAY_LOG);
		/* never a connection change, never a crash */
		assert_int_equal(count(&a, GATEWAY_CLOSE), 0);
		assert_int_equal(count(&a, GATEWAY_CONNECT), 0);
		assert_int_equal(count(&a, GATEWAY_FATAL), 0);
		release(&a);
	}
	assert_true(logs >= 15);
	assert_int_equal(gateway_state(&g), GATEWAY_CONNECTED);
	assert_string_equal(gateway_session_id(&g), "sess1");
	assert_int_equal(gateway_seq(&g), 9);	/* READY [] still had s:9 */

	/* a READY with bad fields keeps what we had and logs */
	text(&g, "{\"op\":0,\"s\":10,\"t\":\"READY\",\"d\":{\"session_id\":5,"
		 "\"resume_gateway_url\":\"http://evil\",\"application\":1}}", 200);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_LOG), 3);
	release(&a);
	assert_string_equal(gateway_session_id(&g), "sess1");
	assert_string_equal(gateway_resume_url(&g), "wss://resume.example.gg");

	/* binary junk with embedded NULs */
	gateway_on_text(&g, "\0\0\xff{", 4, 300);
	drain(&g, &a);
	assert_int_equal(count(&a, GATEWAY_LOG), 1);
	release(&a);
	gateway_release(&g);
}

static void test_base_url(void **state)
{
	struct gateway g;
	struct acts a;
	struct gateway_action c;

	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 1);
	drain(&g, &a);
	release(&a);
	gateway_set_base_url(&g, "ws://127.0.0.1:9999");
	c = closed(&g, 0, 0);
	assert_string_equal(c.text, "ws://127.0.0.1:9999/" GATEWAY_QUERY);
	gateway_action_release(&c);
	gateway_set_base_url(&g, "ws://127.0.0.1:9999/?v=10&encoding=json");
	c = closed(&g, 0, 0);
	assert_string_equal(c.text, "ws://127.0.0.1:9999/?v=10&encoding=json");
	gateway_action_release(&c);
	gateway_release(&g);

	/* set before the first drain: the queued first CONNECT follows */
	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 0, 1);
	gateway_set_base_url(&g, "ws://127.0.0.1:8888/gateway");
	assert_int_equal(gateway_next_action(&g, &c), 1);
	assert_int_equal(c.kind, GATEWAY_CONNECT);
	assert_string_equal(c.text, "ws://127.0.0.1:8888/gateway" GATEWAY_QUERY);
	gateway_action_release(&c);
	assert_int_equal(gateway_next_action(&g, &c), 0);
	gateway_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_happy_path),
		cmocka_unit_test(test_first_heartbeat_null_seq),
		cmocka_unit_test(test_zombie_then_resume),
		cmocka_unit_test(test_reconnect_op7),
		cmocka_unit_test(test_invalid_session_resumable),
		cmocka_unit_test(test_invalid_session_identify),
		cmocka_unit_test(test_invalid_session_delay_range),
		cmocka_unit_test(test_server_heartbeat_request),
		cmocka_unit_test(test_fatal_close_codes),
		cmocka_unit_test(test_close_codes_reconnect),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_oversize_frame),
		cmocka_unit_test(test_oversize_escalates),
		cmocka_unit_test(test_identify_paced),
		cmocka_unit_test(test_identify_budget),
		cmocka_unit_test(test_shard_identify_turn),
		cmocka_unit_test(test_malformed_ignored),
		cmocka_unit_test(test_base_url),
	};

	return cmocka_run_group_tests_name("discord_gateway", tests, NULL, NULL);
}
