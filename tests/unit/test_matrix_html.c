/* adapters/matrix/mxhtml: escaping, mentions, blocks, splitting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/mxhtml.h"
#include "util/buf.h"
#include "util/rich.h"
#include "util/text.h"

/* ---- helpers ---- */

static const char *const allowed_tags[] = {
	"<br>", "<strong>", "</strong>", "<h4>", "</h4>", "<pre><code>", "</code></pre>",
	"</a>", NULL,
};
static const char *const allowed_entities[] = {
	"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", NULL,
};

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/*
 * Every '<' in html starts one of our tags (or a matrix.to link), every '&'
 * one of our entities, and the tags nest: this is what "nothing a player
 * typed can open a tag" means, checked on the output.
 */
static void assert_html_safe(const char *html)
{
	const char *p;
	int depth = 0, in_a = 0;
	size_t i;

	for (p = html; *p; p++) {
		if (*p == '<') {
			int ok = 0;

			/* a user (@) or a room (%21 = '!', %23 = '#'), or a web
			 * address the bot made (RICH_LINK, rich_link_safe()) */
			if (!strncmp(p, "<a href=\"https://matrix.to/#/@", 30) ||
			    !strncmp(p, "<a href=\"https://matrix.to/#/%21", 32) ||
			    !strncmp(p, "<a href=\"https://matrix.to/#/%23", 32) ||
			    (strncmp(p, "<a href=\"https://matrix.to/", 28) &&
			     (!strncmp(p, "<a href=\"https://", 17) ||
			      !strncmp(p, "<a href=\"http://", 16)))) {
				const char *end = strchr(p, '>');

				assert_non_null(end);
				assert_int_equal(end[-1], '"');
				/* inside the href: no quote, no space, no angle */
				for (i = 9; p + i < end - 1; i++)
					assert_null(strchr("\"' <>&", p[i]));
				assert_false(in_a);
				in_a = 1;
				p = end;
				continue;
			}
			for (i = 0; allowed_tags[i]; i++) {
				if (!strncmp(p, allowed_tags[i], strlen(allowed_tags[i]))) {
					ok = 1;
					if (!strcmp(allowed_tags[i], "</a>")) {
						assert_true(in_a);
						in_a = 0;
					} else if (!strcmp(allowed_tags[i], "<br>")) {
					} else if (allowed_tags[i][1] == '/') {
						depth--;
					} else {
						depth++;
					}
					assert_true(depth >= 0 && depth <= 1);
					p += strlen(allowed_tags[i]) - 1;
					break;
				}
			}
			if (!ok)
				fail_msg("stray '<' in html: %.40s", p);
		} else if (*p == '&') {
			int ok = 0;

			for (i = 0; allowed_entities[i]; i++)
				if (!strncmp(p, allowed_entities[i], strlen(allowed_entities[i])))
					ok = 1;
			if (!ok)
				fail_msg("stray '&' in html: %.40s", p);
		} else {
			assert_true(*p != '>' && *p != '"' && *p != '\'');
		}
	}
	assert_int_equal(depth, 0);
	assert_false(in_a);
	assert_int_equal(count(html, "<pre><code>"), count(html, "</code></pre>"));
	assert_int_equal(count(html, "<strong>"), count(html, "</strong>"));
	assert_int_equal(count(html, "<h4>"), count(html, "</h4>"));
}

/* The promises every element of mx_notice_contents() keeps. */
static void check_contents(const json_t *arr)
{
	size_t i, k;
	json_t *c;

	assert_true(json_is_array(arr));
	assert_true(json_array_size(arr) >= 1);
	json_array_foreach(arr, i, c) {
		const char *body = json_string_value(json_object_get(c, "body"));
		const char *html = json_string_value(json_object_get(c, "formatted_body"));
		json_t *users = json_object_get(json_object_get(c, "m.mentions"), "user_ids");
		char *dump = json_dumps(c, JSON_COMPACT);
		json_t *u;

		assert_non_null(dump);
		assert_true(strlen(dump) < MX_EVENT_MAX - 1024);
		free(dump);
		assert_string_equal(json_string_value(json_object_get(c, "msgtype")), "m.notice");
		assert_string_equal(json_string_value(json_object_get(c, "format")),
				    "org.matrix.custom.html");
		assert_non_null(body);
		assert_non_null(html);
		assert_true(strlen(body) < MX_BODY_SPLIT);
		assert_true(utf8_valid(body, strlen(body)));
		assert_true(utf8_valid(html, strlen(html)));
		assert_html_safe(html);
		assert_int_equal(json_object_size(json_object_get(c, "m.mentions")), 1);
		assert_true(json_is_array(users));
		json_array_foreach(users, k, u) {
			char href[300];
			size_t j;

			assert_true(mx_user_id_valid(json_string_value(u)));
			const char *id = json_string_value(u);
			size_t hn;

			hn = (size_t)snprintf(href, sizeof(href), "\"https://matrix.to/#/");
			for (; *id && hn + 4 < sizeof(href); id++) {
				if (strchr("/+=", *id))
					hn += (size_t)snprintf(href + hn, sizeof(href) - hn, "%%%02X",
							       (unsigned char)*id);
				else
					href[hn++] = *id;
			}
			snprintf(href + hn, sizeof(href) - hn, "\"");
			assert_non_null(strstr(html, href));
			for (j = 0; j < k; j++)
				assert_string_not_equal(json_string_value(json_array_get(users, j)),
							json_string_value(u));
		}
	}
}

static json_t *contents(const struct rich *r)
{
	json_t *a = mx_notice_contents(r);

	check_contents(a);
	return a;
}

static const char *body_of(const json_t *a, size_t i)
{
	return json_string_value(json_object_get(json_array_get(a, i), "body"));
}

static const char *html_of(const json_t *a, size_t i)
{
	return json_string_value(json_object_get(json_array_get(a, i), "formatted_body"));
}

static json_t *users_of(const json_t *a, size_t i)
{
	return json_object_get(json_object_get(json_array_get(a, i), "m.mentions"), "user_ids");
}

/* The bodies, in order, are full with only newlines left out between them. */
static void assert_bodies_cover(const json_t *a, const char *full)
{
	size_t pos = 0, i, n = strlen(full);

	for (i = 0; i < json_array_size(a); i++) {
		const char *b = body_of(a, i);
		size_t bn = strlen(b);

		while (pos < n && strncmp(full + pos, b, bn) && full[pos] == '\n')
			pos++;
		if (strncmp(full + pos, b, bn))
			fail_msg("message %zu does not continue the text at %zu", i, pos);
		pos += bn;
	}
	while (pos < n && full[pos] == '\n')
		pos++;
	assert_int_equal(pos, n);
}

/* ---- user ids ---- */

static void test_user_id_valid(void **state)
{
	static const char *const good[] = {
		"@a:b", "@alice:matrix.org", "@Old.Style_x=y-z/w+v:example.com:8448",
		"@x:[::1]", "@x:[2001:db8::1]:8448", "@x:1.2.3.4", "@bot:localhost",
	};
	static const char *const bad[] = {
		"", "alice:matrix.org", "@:srv", "@alice", "@a:", "@a b:srv", "@a:srv:",
		"@a:srv:123456", "@a:sr v", "@<script>:x", "@a\":x", "@a:x/y", "@a:[::1",
		"@a:[]", "@a:x:8448a", "@é:x", "@a:x\"><b>", "@a'b:x", "@a&b:x", "#room:x",
		"!room:x", "@a:b\n",
	};
	char longid[300];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (!mx_user_id_valid(good[i]))
			fail_msg("refused %s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (mx_user_id_valid(bad[i]))
			fail_msg("accepted %s", bad[i]);
	assert_false(mx_user_id_valid(NULL));

	longid[0] = '@';
	memset(longid + 1, 'a', 250);
	memcpy(longid + 251, ":x.yz", 6);	/* 256 bytes */
	assert_false(mx_user_id_valid(longid));
	longid[251 - 1] = '\0';
	memcpy(longid + 250, ":x.y", 5);	/* 254 bytes */
	assert_true(mx_user_id_valid(longid));
}

/* ---- escaping ---- */

static void test_escape_every_span(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a;

	rich_text(&r, "<script>&\"'");
	rich_emph(&r, "<a href=x>");
	rich_heading(&r, "&amp; <b>");
	rich_mono(&r, "if (a < b && c > \"d\") '\n");
	rich_text(&r, "</code></pre><img src=x onerror=alert(1)>");
	a = contents(&r);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(body_of(a, 0),
			    "<script>&\"'<a href=x>\n&amp; <b>\nif (a < b && c > \"d\") '\n"
			    "</code></pre><img src=x onerror=alert(1)>");
	assert_string_equal(html_of(a, 0),
			    "&lt;script&gt;&amp;&quot;&#39;"
			    "<strong>&lt;a href=x&gt;</strong>"
			    "<h4>&amp;amp; &lt;b&gt;</h4>"
			    "<pre><code>if (a &lt; b &amp;&amp; c &gt; &quot;d&quot;) &#39;</code></pre>"
			    "&lt;/code&gt;&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;");
	assert_int_equal(json_array_size(users_of(a, 0)), 0);
	json_decref(a);
	rich_release(&r);
}

static void test_mentions(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a, *u;

	rich_text(&r, "turn: ");
	rich_mention(&r, "@ana:example.org", "<script>&\"'");
	rich_text(&r, ", ");
	rich_mention(&r, "@bob:example.org", "<a href=x>");
	rich_mention(&r, "@ana:example.org", "Ana again");
	rich_mention(&r, "@evil\"><script>:x", "Mallory");	/* not an id */
	rich_mention(&r, "1234567890", "Discordian");		/* not a Matrix id */
	rich_mention(&r, "@a/b+c:x.org", "slash");		/* percent-encoded */
	a = contents(&r);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(body_of(a, 0),
			    "turn: <script>&\"', <a href=x>Ana againMalloryDiscordianslash");
	assert_string_equal(html_of(a, 0),
			    "turn: <a href=\"https://matrix.to/#/@ana:example.org\">"
			    "&lt;script&gt;&amp;&quot;&#39;</a>, "
			    "<a href=\"https://matrix.to/#/@bob:example.org\">&lt;a href=x&gt;</a>"
			    "<a href=\"https://matrix.to/#/@ana:example.org\">Ana again</a>"
			    "MalloryDiscordian"
			    "<a href=\"https://matrix.to/#/@a%2Fb%2Bc:x.org\">slash</a>");
	u = users_of(a, 0);
	assert_int_equal(json_array_size(u), 3);
	assert_string_equal(json_string_value(json_array_get(u, 0)), "@ana:example.org");
	assert_string_equal(json_string_value(json_array_get(u, 1)), "@bob:example.org");
	assert_string_equal(json_string_value(json_array_get(u, 2)), "@a/b+c:x.org");
	assert_null(json_object_get(json_object_get(json_array_get(a, 0), "m.mentions"), "room"));
	json_decref(a);
	rich_release(&r);

	/* an invalid id with a hostile name: escaped text, no link, no mention */
	rich_mention(&r, "not-an-id", "<a href=\"https://evil\">x</a>");
	a = contents(&r);
	assert_string_equal(html_of(a, 0),
			    "&lt;a href=&quot;https://evil&quot;&gt;x&lt;/a&gt;");
	assert_null(strstr(html_of(a, 0), "<a"));
	assert_int_equal(json_array_size(users_of(a, 0)), 0);
	json_decref(a);
	rich_release(&r);
}

/* A web address the bot made: the body shows it, the HTML links it to
 * itself; one that is not plainly safe is escaped text, never a link. */
static void test_links(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a;

	rich_text(&r, "Watch and replay: ");
	rich_link(&r, "https://x.org/my_bot/g/Ab1");
	rich_newline(&r);
	rich_link(&r, "javascript:alert(1)");
	rich_text(&r, " ");
	rich_link(&r, "https://x.org/\"><script>");
	a = contents(&r);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(body_of(a, 0), "Watch and replay: https://x.org/my_bot/g/Ab1\n"
			    "javascript:alert(1) https://x.org/\"><script>");
	assert_string_equal(html_of(a, 0),
			    "Watch and replay: <a href=\"https://x.org/my_bot/g/Ab1\">"
			    "https://x.org/my_bot/g/Ab1</a><br>javascript:alert(1) "
			    "https://x.org/&quot;&gt;&lt;script&gt;");
	assert_int_equal(json_array_size(users_of(a, 0)), 0);
	json_decref(a);
	rich_release(&r);
}

static void test_rooms(void **state)
{
	static const char *const bad[] = {
		"<script>", "<@123>", "123456789012345678", "!abc", "#abc", "!:x.org",
		"#:x.org", "!a b:x.org", "!a:x\"><b>", "!a:", "@user:x.org", "!é:x.org",
		"!a:x.org:99999a", "", "!a\n:x.org",
	};
	struct rich r = RICH_INIT;
	json_t *a, *u;
	size_t i;

	rich_text(&r, "go to ");
	rich_room(&r, "!abc:example.org", "<b>Lobby</b> & \"co\"");
	rich_text(&r, ", ");
	rich_room(&r, "#games:example.org", NULL);
	rich_text(&r, ", ");
	rich_room(&r, "!a/b%c\"<>&':x.org", "");		/* percent-encoded */
	rich_mention(&r, "@ana:example.org", "Ana");
	rich_room(&r, "!r:[::1]:8448", "v6");
	a = contents(&r);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(body_of(a, 0),
			    "go to <b>Lobby</b> & \"co\", #games:example.org, "
			    "!a/b%c\"<>&':x.orgAnav6");
	assert_string_equal(html_of(a, 0),
			    "go to <a href=\"https://matrix.to/#/%21abc:example.org\">"
			    "&lt;b&gt;Lobby&lt;/b&gt; &amp; &quot;co&quot;</a>, "
			    "<a href=\"https://matrix.to/#/%23games:example.org\">"
			    "#games:example.org</a>, "
			    "<a href=\"https://matrix.to/#/%21a%2Fb%25c%22%3C%3E%26%27:x.org\">"
			    "!a/b%c&quot;&lt;&gt;&amp;&#39;:x.org</a>"
			    "<a href=\"https://matrix.to/#/@ana:example.org\">Ana</a>"
			    "<a href=\"https://matrix.to/#/%21r:%5B::1%5D:8448\">v6</a>");
	/* rooms are never mentions */
	u = users_of(a, 0);
	assert_int_equal(json_array_size(u), 1);
	assert_string_equal(json_string_value(json_array_get(u, 0)), "@ana:example.org");
	assert_null(json_object_get(json_object_get(json_array_get(a, 0), "m.mentions"), "room"));
	json_decref(a);
	rich_release(&r);

	/* not a room id: the name (or id) as escaped text, no link */
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		rich_room(&r, bad[i], "<a href=\"https://evil\">x</a>");
		rich_room(&r, bad[i], NULL);
	}
	rich_room(&r, NULL, NULL);
	a = contents(&r);
	assert_null(strstr(html_of(a, 0), "<a"));
	assert_int_equal(json_array_size(users_of(a, 0)), 0);
	json_decref(a);
	rich_release(&r);

	rich_room(&r, "<script>", NULL);
	rich_room(&r, "nope", "<@123>");
	rich_room(&r, "", "");
	a = contents(&r);
	assert_string_equal(body_of(a, 0), "<script><@123>?");
	assert_string_equal(html_of(a, 0), "&lt;script&gt;&lt;@123&gt;?");
	json_decref(a);
	rich_release(&r);
}

static void test_empty_and_plain(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a;

	a = contents(&r);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(body_of(a, 0), "");
	assert_string_equal(html_of(a, 0), "");
	assert_true(json_is_array(users_of(a, 0)));
	assert_int_equal(json_array_size(users_of(a, 0)), 0);
	json_decref(a);

	rich_line(&r, "line one");
	rich_line(&r, "line two");
	rich_newline(&r);
	a = contents(&r);
	assert_string_equal(body_of(a, 0), "line one\nline two");
	assert_string_equal(html_of(a, 0), "line one<br>line two");
	json_decref(a);
	rich_release(&r);
}

static void test_blocks(void **state)
{
	struct rich r = RICH_INIT;
	struct buf plain = BUF_INIT;
	json_t *a;

	rich_text(&r, "before");
	rich_heading(&r, "Round 2");
	rich_text(&r, "after");
	rich_mono(&r, "a  b\nc  d\n");
	rich_line(&r, "end");
	a = contents(&r);
	assert_string_equal(body_of(a, 0), "before\nRound 2\nafter\na  b\nc  d\nend");
	assert_string_equal(html_of(a, 0),
			    "before<h4>Round 2</h4>after<pre><code>a  b\nc  d</code></pre>end");
	assert_int_equal(mx_plain_body(&r, &plain), 0);
	assert_string_equal(buf_str(&plain), body_of(a, 0));
	json_decref(a);
	buf_release(&plain);
	rich_release(&r);
}

static void test_bad_bytes_replaced(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a;

	rich_text(&r, "a\xff" "b\xc3" "c\x01" "d\x7f" "e\xed\xa0\x80" "f\tg\xe2\x82\xac");
	a = contents(&r);
	assert_string_equal(body_of(a, 0),
			    "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd" "d\xef\xbf\xbd"
			    "e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "f\tg\xe2\x82\xac");
	json_decref(a);
	rich_release(&r);
}

/* ---- splitting ---- */

static void test_split_long(void **state)
{
	struct rich r = RICH_INIT;
	struct buf plain = BUF_INIT, ref = BUF_INIT, mono = BUF_INIT;
	json_t *a;
	size_t i, pre_msgs = 0;

	/* 200 KB of lines, worst-case escaping and multibyte text */
	for (i = 0; i < 2500; i++)
		rich_line(&r, "%05zu <b>&\"' Religión ñ € 🎲 ok... some text to fill the line", i);
	for (i = 0; i < 3000; i++)
		buf_printf(&mono, "%05zu | <td> & \"x\" | € | ....................\n", i);
	rich_mono(&r, buf_str(&mono));
	rich_line(&r, "the end");
	a = contents(&r);
	assert_true(json_array_size(a) >= 5);

	/* equal to the plain text, cut only at line ends */
	rich_to_plain(&r, &ref);
	assert_int_equal(mx_plain_body(&r, &plain), 0);
	assert_string_equal(buf_str(&plain), buf_str(&ref));
	assert_bodies_cover(a, buf_str(&ref));
	for (i = 0; i < json_array_size(a); i++) {
		const char *b = body_of(a, i), *h = html_of(a, i);

		if (i + 1 < json_array_size(a)) {
			/* each cut was at a line end: the next one starts a line */
			const char *next = body_of(a, i + 1);

			assert_true(!strncmp(next, "the end", 7) ||
				    (next[0] >= '0' && next[0] <= '9' && next[5] == ' '));
		}
		assert_true(strlen(b) > MX_BODY_SPLIT / 4);	/* not cut needlessly */
		if (strstr(h, "<pre><code>")) {
			pre_msgs++;
			assert_true(!strncmp(h, "<pre><code>", 11) || pre_msgs == 1);
		}
	}
	assert_true(pre_msgs >= 2);	/* the block was reopened */
	json_decref(a);
	buf_release(&plain);
	buf_release(&ref);
	buf_release(&mono);
	rich_release(&r);
}

static void test_split_hard(void **state)
{
	struct rich r = RICH_INIT;
	struct buf big = BUF_INIT, plain = BUF_INIT;
	json_t *a;
	size_t i;

	/* one 300 KB line: every cut is inside it */
	for (i = 0; i < 30000; i++)
		buf_addstr(&big, i % 3 ? "\"&<€🎲" : "é'>x");
	rich_text(&r, "%s", buf_str(&big));
	a = contents(&r);
	assert_true(json_array_size(a) >= 10);
	assert_int_equal(mx_plain_body(&r, &plain), 0);
	assert_string_equal(buf_str(&plain), buf_str(&big));
	assert_bodies_cover(a, buf_str(&big));
	json_decref(a);
	rich_release(&r);

	/* quotes cost 8 serialised bytes each (\" and &quot;): the event size,
	 * not the body size, is what limits these messages */
	buf_reset(&plain);
	for (i = 0; i < 100000; i++)
		buf_addch(&plain, i % 2 ? '"' : '\'');
	rich_text(&r, "%s", buf_str(&plain));
	a = contents(&r);
	assert_true(json_array_size(a) >= 11);
	assert_true(strlen(body_of(a, 0)) < MX_BODY_SPLIT * 4 / 5);
	assert_bodies_cover(a, buf_str(&plain));
	json_decref(a);
	rich_release(&r);

	/* the same in emphasis, in a heading and in a block: tags reopened */
	rich_emph(&r, "%s", buf_str(&big));
	rich_heading(&r, "%s", buf_str(&big));
	rich_mono(&r, buf_str(&big));
	a = contents(&r);
	for (i = 0; i < json_array_size(a); i++) {
		const char *h = html_of(a, i);

		assert_true(!strncmp(h, "<strong>", 8) || !strncmp(h, "<h4>", 4) ||
			    !strncmp(h, "<pre><code>", 11));
	}
	buf_reset(&plain);
	assert_int_equal(mx_plain_body(&r, &plain), 0);
	assert_bodies_cover(a, buf_str(&plain));
	json_decref(a);
	rich_release(&r);
	buf_release(&plain);
	buf_release(&big);
}

static void test_split_mentions_per_message(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a;
	size_t i, seen_a = 0, seen_b = 0;

	for (i = 0; i < 4000; i++) {
		rich_mention(&r, i < 2000 ? "@a:x.org" : "@b:x.org", "<name>");
		rich_line(&r, " played a card and scored some points");
	}
	a = contents(&r);	/* checks each message lists only its own */
	assert_true(json_array_size(a) > 2);
	for (i = 0; i < json_array_size(a); i++) {
		const char *h = html_of(a, i);
		size_t nu = json_array_size(users_of(a, i));

		seen_a += !!strstr(h, "@a:x.org");
		seen_b += !!strstr(h, "@b:x.org");
		assert_int_equal(nu, !!strstr(h, "@a:x.org") + !!strstr(h, "@b:x.org"));
	}
	assert_true(seen_a >= 1 && seen_b >= 1);
	json_decref(a);
	rich_release(&r);
}

static void test_split_rooms(void **state)
{
	struct rich r = RICH_INIT;
	json_t *a;
	size_t i, links = 0;

	/* one long line of room links: cuts fall between them, never inside */
	for (i = 0; i < 3000; i++)
		rich_room(&r, "!abcdefghijklmnop:example.org", "<the lobby>");
	a = contents(&r);	/* every <a> closed in its own message */
	assert_true(json_array_size(a) > 1);
	for (i = 0; i < json_array_size(a); i++) {
		const char *h = html_of(a, i);
		size_t n = count(h, "<a href=\"https://matrix.to/#/%21abcdefghijklmnop:example.org\">"
				 "&lt;the lobby&gt;</a>");

		assert_int_equal(n, count(h, "<a "));
		assert_int_equal(strlen(body_of(a, i)), n * strlen("<the lobby>"));
		assert_int_equal(json_array_size(users_of(a, i)), 0);
		links += n;
	}
	assert_int_equal(links, 3000);
	json_decref(a);
	rich_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_id_valid),
		cmocka_unit_test(test_escape_every_span),
		cmocka_unit_test(test_mentions),
		cmocka_unit_test(test_rooms),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_empty_and_plain),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_bad_bytes_replaced),
		cmocka_unit_test(test_split_long),
		cmocka_unit_test(test_split_hard),
		cmocka_unit_test(test_split_mentions_per_message),
		cmocka_unit_test(test_split_rooms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
