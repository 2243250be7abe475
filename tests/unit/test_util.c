/* util/: buf caps, UTF-8 checks, folding, rng, the rich model's JSON form. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/buf.h"
#include "util/logging.h"
#include "util/rich.h"
#include "util/rng.h"
#include "util/text.h"

static void test_buf_cap(void **state)
{
	struct buf b;

	buf_init(&b, 8);
	assert_int_equal(buf_addstr(&b, "abcd"), 0);
	assert_int_equal(buf_printf(&b, "%d", 123), 0);
	assert_string_equal(buf_str(&b), "abcd123");
	assert_int_equal(buf_addstr(&b, "xy"), -1);	/* would cross 8 */
	assert_true(b.toobig);
	assert_string_equal(buf_str(&b), "abcd123");	/* kept what it had */
	assert_int_equal(buf_addch(&b, 'z'), -1);	/* stays failed */
	buf_reset(&b);
	assert_int_equal(buf_addstr(&b, "ok"), 0);
	buf_release(&b);
}

static void test_buf_detach_pad(void **state)
{
	struct buf b = BUF_INIT;
	char *s;

	assert_string_equal(buf_str(&b), "");
	buf_addpad(&b, "Recogida", 10);
	buf_addpad(&b, "agua", 6);
	assert_string_equal(buf_str(&b), "Recogida  agua  ");
	buf_reset(&b);
	buf_addpad(&b, "Religión", 9);	/* 8 columns, 9 bytes */
	assert_int_equal(b.len, 10);
	s = buf_detach(&b);
	assert_string_equal(s, "Religión ");
	assert_null(b.s);
	free(s);
}

static void test_utf8_valid(void **state)
{
	assert_true(utf8_valid("Religión ñ €", strlen("Religión ñ €")));
	assert_true(utf8_valid("tab\tand\nnewline", 15));
	assert_false(utf8_valid("\xc3", 1));		/* truncated */
	assert_false(utf8_valid("\xc0\xaf", 2));	/* overlong */
	assert_false(utf8_valid("\xed\xa0\x80", 3));	/* surrogate */
	assert_false(utf8_valid("\xf4\x90\x80\x80", 4));	/* > U+10FFFF */
	assert_false(utf8_valid("a\0b", 3));		/* NUL */
	assert_false(utf8_valid("bell\a", 5));		/* control */
	assert_false(utf8_valid("\xff", 1));
}

static void check_fold(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	text_fold(in, &b);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

static void test_fold(void **state)
{
	check_fold("  Recogida   de AGUA ", "recogida de agua");
	check_fold("Religión", "religion");
	check_fold("ÑANDÚ pingüino", "nandu pinguino");
	check_fold("sell_wine", "sell wine");
	check_fold("cosecha-de-vino", "cosecha de vino");
	check_fold("Re\xcc\x81", "re");	/* combining acute dropped */
	check_fold("", "");
	/* a minus sign starting a number stays: "offer -3" is not "offer 3"
	 * (issue 25); a hyphen inside a word, or before no digit, is a space */
	check_fold("offer -3", "offer -3");
	check_fold("-3", "-3");
	check_fold("give  -5 ", "give -5");
	check_fold("give \xe2\x88\x92" "5", "give -5");	/* U+2212 minus sign */
	check_fold("give \xe2\x80\x93" "5", "give -5");	/* en dash */
	check_fold("give --5", "give -5");
	check_fold("sealed-election", "sealed election");
	check_fold("a-3", "a 3");
	check_fold("x - 3", "x 3");
	check_fold("3 -> 4", "3 > 4");
	assert_true(text_eq("Vender Vino", "vender  vino"));
	assert_false(text_eq("vender vino", "vender grano"));
}

static void test_word(void **state)
{
	const char *s = "  game   new fortuna draft";
	char w[8];

	assert_int_equal(text_word(&s, w, sizeof(w)), 4);
	assert_string_equal(w, "game");
	assert_int_equal(text_word(&s, w, sizeof(w)), 3);
	assert_string_equal(s, "fortuna draft");
	assert_int_equal(text_word(&s, w, 4), 7);	/* truncated copy, full length */
	assert_string_equal(w, "for");
	text_word(&s, w, sizeof(w));
	assert_int_equal(text_word(&s, w, sizeof(w)), 0);
	/* cut short, a word keeps whole characters: "añejo" ñ is 2 bytes,
	 * "€" 3; the copy never ends inside one */
	s = "a\xc3\xb1" "ejo \xe2\x82\xac\xe2\x82\xac";
	assert_int_equal(text_word(&s, w, 3), 6);
	assert_string_equal(w, "a");
	assert_int_equal(text_word(&s, w, 6), 6);
	assert_string_equal(w, "\xe2\x82\xac");
	s = "\xe2\x82\xac";
	assert_int_equal(text_word(&s, w, 3), 3);
	assert_string_equal(w, "");
	s = "a\xc3\xb1";
	assert_int_equal(text_word(&s, w, 4), 3);	/* fits exactly */
	assert_string_equal(w, "a\xc3\xb1");
}

static void test_rng(void **state)
{
	struct rng a, b;
	int i, counts[6] = { 0 };
	int deck[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, sum = 0;

	rng_seed(&a, 42, 1);
	rng_seed(&b, 42, 1);
	for (i = 0; i < 100; i++)
		assert_int_equal(rng_next(&a), rng_next(&b));
	rng_seed(&b, 43, 1);
	assert_int_not_equal(rng_next(&a), rng_next(&b));
	for (i = 0; i < 6000; i++)
		counts[rng_below(&a, 6)]++;
	for (i = 0; i < 6; i++)
		assert_in_range(counts[i], 800, 1200);
	rng_shuffle(&a, deck, 10, sizeof(int));
	for (i = 0; i < 10; i++)
		sum += deck[i];
	assert_int_equal(sum, 45);
}

static void test_rng_json(void **state)
{
	struct rng a, b;
	json_t *j;
	static const char *const bad[] = {
		"{}", "[]", "{\"state\":\"1\",\"inc\":\"2\"}",	/* even inc */
		"{\"state\":\"xyz\",\"inc\":\"1\"}", "{\"state\":\"1\",\"inc\":1}",
		"{\"state\":\"11112222333344445\",\"inc\":\"1\"}",	/* 17 digits */
		"{\"state\":\"\",\"inc\":\"1\"}",
	};
	size_t i;

	rng_seed(&a, 0xfedcba9876543210ULL, 5);
	j = rng_to_json(&a);
	assert_int_equal(rng_from_json(j, &b), 0);
	assert_true(a.state == b.state && a.inc == b.inc);
	assert_int_equal(rng_next(&a), rng_next(&b));
	json_decref(j);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		j = json_loads(bad[i], 0, NULL);
		assert_int_equal(rng_from_json(j, &b), -1);
		json_decref(j);
	}
}

static void test_rich_json(void **state)
{
	struct rich r = RICH_INIT, back;
	struct buf a = BUF_INIT, b = BUF_INIT;
	json_t *j;

	rich_heading(&r, "Fortuna");
	rich_text(&r, "Hello ");
	rich_mention(&r, "u1", "Ana <b>");
	rich_emph(&r, "now");
	rich_newline(&r);
	rich_mono(&r, "a  b\nc  d");
	rich_line(&r, "end");
	j = rich_to_json(&r);
	assert_int_equal(rich_from_json(&back, j), 0);
	rich_to_plain(&r, &a);
	rich_to_plain(&back, &b);
	assert_string_equal(buf_str(&a), buf_str(&b));
	assert_string_equal(buf_str(&a), "== Fortuna ==\nHello @Ana <b>*now*\na  b\nc  d\nend");
	json_decref(j);
	rich_release(&back);
	/* malformed values are refused whole */
	j = json_loads("[{\"k\":\"mention\",\"t\":\"x\"}]", 0, NULL);
	assert_int_equal(rich_from_json(&back, j), -1);
	json_decref(j);
	j = json_loads("[{\"k\":\"blink\",\"t\":\"x\"}]", 0, NULL);
	assert_int_equal(rich_from_json(&back, j), -1);
	json_decref(j);
	j = json_loads("{\"k\":1}", 0, NULL);
	assert_int_equal(rich_from_json(&back, j), -1);
	json_decref(j);
	rich_release(&r);
	rich_release(&back);
	buf_release(&a);
	buf_release(&b);
}

/* A web address: shown as itself; kept in the outbox's JSON; only plain
 * http(s) addresses of a few characters pass rich_link_safe(). */
static void test_rich_link(void **state)
{
	static const char *const unsafe[] = {
		"", "ftp://x.org/g/a", "http://", "https://", "javascript:alert(1)",
		"https://x.org/g/a b", "https://x.org/g/<b>", "https://x.org/g/a\"b",
		"https://x.org/g/a*b", "https://x.org/g/a`b", "https://x.org/?q=1",
		"https://x.org/#f", "https://u@x.org/", "https://x.org/g/a&b", "https://x.org/g/\n",
		"https://x.org/g/a|b", "https://x.org/g/a)b", "https://x.org/g/é",
	};
	static const char *const safe[] = {
		"https://play.example.org/g/AbC019", "http://127.0.0.1:9464/g/x",
		"https://[::1]:8443/tab_ula/g/a-b~c%41.", "http://x",
	};
	struct rich r = RICH_INIT, back;
	struct buf a = BUF_INIT;
	json_t *j;
	char *dump;
	size_t i;

	for (i = 0; i < sizeof(unsafe) / sizeof(*unsafe); i++)
		assert_int_equal(rich_link_safe(unsafe[i]), 0);
	for (i = 0; i < sizeof(safe) / sizeof(*safe); i++)
		assert_int_equal(rich_link_safe(safe[i]), 1);
	assert_int_equal(rich_link_safe(NULL), 0);

	rich_text(&r, "Watch: ");
	rich_link(&r, "https://x.org/my_bot/g/Ab1");
	rich_newline(&r);
	assert_int_equal(r.v[1].kind, RICH_LINK);
	assert_null(r.v[1].user);
	rich_to_plain(&r, &a);
	assert_string_equal(buf_str(&a), "Watch: https://x.org/my_bot/g/Ab1");
	j = rich_to_json(&r);
	dump = json_dumps(json_array_get(j, 1), JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(dump, "{\"k\":\"link\",\"t\":\"https://x.org/my_bot/g/Ab1\"}");
	free(dump);
	assert_int_equal(rich_from_json(&back, j), 0);
	assert_int_equal(back.n, 3);
	assert_int_equal(back.v[1].kind, RICH_LINK);
	assert_string_equal(back.v[1].text, "https://x.org/my_bot/g/Ab1");
	json_decref(j);
	rich_release(&back);
	/* a link has an address */
	j = json_loads("[{\"k\":\"link\"}]", 0, NULL);
	assert_int_equal(rich_from_json(&back, j), -1);
	json_decref(j);
	rich_release(&r);
	buf_release(&a);
}

static void test_rich_room(void **state)
{
	static const char *const bad[] = {
		"[{\"k\":\"room\",\"t\":\"x\"}]",		/* no id */
		"[{\"k\":\"room\",\"u\":5,\"t\":\"x\"}]",	/* id not a string */
		"[{\"k\":\"room\",\"u\":\"!a:b\",\"t\":7}]",	/* name not a string */
		"[{\"k\":\"text\",\"t\":\"ok\"},{\"k\":\"room\"}]",
		"[{\"k\":\"room\",\"u\":null}]",
	};
	struct rich r = RICH_INIT, back;
	struct buf a = BUF_INIT, b = BUF_INIT;
	json_t *j;
	char *dump;
	size_t i;

	rich_text(&r, "join ");
	rich_room(&r, "!abc:example.org", "Lobby");
	rich_text(&r, " or ");
	rich_room(&r, "123456789012345678", NULL);
	rich_text(&r, " or ");
	rich_room(&r, "#games:x.org", "");
	rich_room(&r, NULL, NULL);
	assert_int_equal(r.n, 7);
	assert_int_equal(r.v[1].kind, RICH_ROOM);
	assert_string_equal(r.v[1].user, "!abc:example.org");
	assert_string_equal(r.v[1].text, "Lobby");
	assert_null(r.v[3].text);
	assert_string_equal(r.v[6].user, "");
	rich_to_plain(&r, &a);
	assert_string_equal(buf_str(&a),
			    "join #Lobby or #123456789012345678 or ##games:x.org#");

	/* round trip: same spans, a missing name stays missing */
	j = rich_to_json(&r);
	dump = json_dumps(json_array_get(j, 1), JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(dump, "{\"k\":\"room\",\"t\":\"Lobby\",\"u\":\"!abc:example.org\"}");
	free(dump);
	dump = json_dumps(json_array_get(j, 3), JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(dump, "{\"k\":\"room\",\"u\":\"123456789012345678\"}");
	free(dump);
	assert_int_equal(rich_from_json(&back, j), 0);
	assert_int_equal(back.n, r.n);
	for (i = 0; i < r.n; i++) {
		assert_int_equal(back.v[i].kind, r.v[i].kind);
		if (r.v[i].text)
			assert_string_equal(back.v[i].text, r.v[i].text);
		else
			assert_null(back.v[i].text);
		if (r.v[i].user)
			assert_string_equal(back.v[i].user, r.v[i].user);
		else
			assert_null(back.v[i].user);
	}
	rich_to_plain(&back, &b);
	assert_string_equal(buf_str(&a), buf_str(&b));
	json_decref(j);
	rich_release(&back);

	/* rich_append copies rooms too */
	rich_append(&back, &r);
	assert_int_equal(back.v[1].kind, RICH_ROOM);
	assert_string_equal(back.v[1].user, "!abc:example.org");
	assert_null(back.v[3].text);
	rich_release(&back);

	/* JSON written before rooms existed still loads */
	j = json_loads("[{\"k\":\"text\",\"t\":\"hi \"},{\"k\":\"mention\",\"t\":\"Ana\","
		       "\"u\":\"u1\"},{\"k\":\"nl\"},{\"k\":\"mono\",\"t\":\"x\"}]", 0, NULL);
	assert_int_equal(rich_from_json(&back, j), 0);
	assert_int_equal(back.n, 4);
	json_decref(j);
	rich_release(&back);

	/* malformed room spans are refused whole */
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		j = json_loads(bad[i], 0, NULL);
		assert_non_null(j);
		if (rich_from_json(&back, j) != -1)
			fail_msg("accepted %s", bad[i]);
		assert_int_equal(back.n, 0);
		json_decref(j);
	}
	rich_release(&r);
	buf_release(&a);
	buf_release(&b);
}

static const char *clean(const char *in, size_t n)
{
	static char out[256];

	text_clean_name(in, n, out, sizeof(out));
	return out;
}

static void test_clean_name(void **state)
{
	char out[8];
	char big[200];

	(void)state;
	/* newlines and controls cannot forge a line */
	assert_string_equal(clean("ana\nWaiting for @ben", 20), "ana Waiting for @ben");
	assert_string_equal(clean("a\r\x1b[31mb\x7f", 10), "a [31mb");
	assert_string_equal(clean("\xc2\x85x", 3), "x");	/* NEL, a C1 control */
	/* bidi overrides, isolates and zero-width characters vanish */
	assert_string_equal(clean("ana\xe2\x80\xae" "nib", 9), "ananib");
	assert_string_equal(clean("b\xe2\x80\x8b" "en\xe2\x81\xa6x\xe2\x81\xa9", 14), "benx");
	assert_string_equal(clean("\xef\xbb\xbf" "eva\xe2\x80\x8d", 9), "eva");
	assert_string_equal(clean("l\xe2\x80\xa8" "ine", 7), "l ine");	/* U+2028 */
	/* white space collapses, Unicode spaces included; trimmed */
	assert_string_equal(clean("  ana \t\xc2\xa0 mar\xe3\x80\x80" "ia  ", 18), "ana mar ia");
	/* accents and non-Latin scripts stay */
	assert_string_equal(clean("Jos\xc3\xa9 \xe5\xbc\xa0", 9), "Jos\xc3\xa9 \xe5\xbc\xa0");
	/* combining marks: two after a letter at most, none alone */
	assert_string_equal(clean("e\xcc\x81", 3), "e\xcc\x81");
	assert_string_equal(clean("\xcc\x81" "a\xcc\x81\xcc\x81\xcc\x81\xcc\x81", 11),
			    "a\xcc\x81\xcc\x81");
	/* invalid UTF-8 is dropped, never cut into */
	assert_string_equal(clean("a\xff\xc3(b", 5), "a(b");
	/* nothing visible: empty */
	assert_int_equal(text_clean_name("\xe2\x80\x8b \n", 5, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	/* the cap: characters, then bytes at a character boundary */
	memset(big, 'x', sizeof(big));
	assert_int_equal(strlen(clean(big, sizeof(big))), TEXT_NAME_MAX_CHARS);
	assert_int_equal(text_clean_name("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, out, sizeof(out)), 6);
	assert_string_equal(out, "\xc3\xa9\xc3\xa9\xc3\xa9");
	assert_int_equal(text_clean_name("abc", 3, out, 1), 0);
}

/* A remote string cannot write a log line of its own, nor reorder one. */
static void test_log_escape(void **state)
{
	char out[256];
	const char evil[] = "@eve:x\n2026-01-01T00:00:00Z tabula info: forged\r\x1b[2J";
	const char odd[] = "a\xe2\x80\xae" "b\xe2\x80\x8b" "c\xe2\x80\xa8" "d\xc2\x85" "e\xff\\";

	log_escape(evil, strlen(evil), out, sizeof(out));
	assert_string_equal(out, "@eve:x\\x0a2026-01-01T00:00:00Z tabula info: forged\\x0d"
			    "\\x1b[2J");
	assert_null(strchr(out, '\n'));
	/* bidi override, zero-width, line separator, C1, not UTF-8, backslash */
	log_escape(odd, sizeof(odd) - 1, out, sizeof(out));
	assert_string_equal(out, "a\\u{202e}b\\u{200b}c\\u{2028}d\\u{85}e\\xff\\\\");
	/* text stays as it is, accents included */
	log_escape("Tabula: león, ñandú", strlen("Tabula: león, ñandú"), out, sizeof(out));
	assert_string_equal(out, "Tabula: león, ñandú");
	/* cut at a whole escape, always terminated */
	assert_int_equal(log_escape("\n\n\n", 3, out, 9), 8);
	assert_string_equal(out, "\\x0a\\x0a");
	assert_int_equal(log_escape("abc", 3, out, 1), 0);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_cap),
		cmocka_unit_test(test_buf_detach_pad),
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_log_escape),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_word),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_rng_json),
		cmocka_unit_test(test_rich_json),
		cmocka_unit_test(test_rich_room),
		cmocka_unit_test(test_rich_link),
		cmocka_unit_test(test_clean_name),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
