/* adapters/discord/markdown: escaping, pings, code fences, splitting,
 * allowed_mentions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapters/discord/markdown.h"
#include "util/buf.h"
#include "util/rich.h"
#include "util/text.h"

#define ZWSP "\xe2\x80\x8b"

/* Renders r, checks the universal promises, returns a string to free. */
static char *render(const struct rich *r)
{
	struct buf b = BUF_INIT;
	const char *p;

	assert_int_equal(discord_markdown(r, &b), 0);
	p = buf_str(&b);
	assert_true(utf8_valid(p, strlen(p)));
	return buf_detach(&b);
}

/* Nothing Discord would turn into a ping other than the <@id> we meant. */
static void assert_no_mass_ping(const char *s)
{
	const char *p;

	for (p = s; (p = strchr(p, '@')); p++) {
		assert_false(!strncasecmp(p + 1, "everyone", 8));
		assert_false(!strncasecmp(p + 1, "here", 4));
	}
}

static void check_text(const char *in, const char *want)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_text(&r, "%s", in);
	s = render(&r);
	assert_string_equal(s, want);
	free(s);
	rich_release(&r);
}

static void test_escape_metachars(void **state)
{
	check_text("a\\b", "a\\\\b");
	check_text("2*3", "2\\*3");
	check_text("snake_case", "snake\\_case");
	check_text("~~gone~~", "\\~\\~gone\\~\\~");
	check_text("`code`", "\\`code\\`");
	check_text("||spoiler||", "\\|\\|spoiler\\|\\|");
	check_text("[x](http://e.com)", "\\[x\\](http://e.com)");
	/* line-start syntax only where it is one */
	check_text("# big", "\\# big");
	check_text("> quote", "\\> quote");
	check_text("-# small", "\\-# small");
	check_text("- item", "\\- item");
	check_text("  + item", "  \\+ item");
	check_text("12. item", "12\\. item");
	check_text("a # b > c - d", "a # b > c - d");
	check_text("1.5 points", "1.5 points");
	check_text("ok\n# again", "ok\n\\# again");
	check_text("Religión ñ €", "Religión ñ €");
}

static void test_escape_across_spans(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_text(&r, "x");
	rich_newline(&r);
	rich_text(&r, "> not a quote");
	rich_emph(&r, "*bold*");
	s = render(&r);
	assert_string_equal(s, "x\n\\> not a quote**\\*bold\\***");
	free(s);
	rich_release(&r);
}

static void test_mass_pings_in_text(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_text(&r, "hi @everyone and @here, @EVERYONE!");
	s = render(&r);
	assert_no_mass_ping(s);
	assert_string_equal(s, "hi @" ZWSP "everyone and @" ZWSP "here, @" ZWSP "EVERYONE!");
	free(s);
	rich_release(&r);

	/* split over spans, and inside emphasis */
	rich_text(&r, "@every");
	rich_text(&r, "one ");
	rich_emph(&r, "@here");
	rich_text(&r, " @");
	rich_text(&r, "here");
	s = render(&r);
	assert_no_mass_ping(s);
	free(s);
	rich_release(&r);
}

static void test_angle_tokens_in_text(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_text(&r, "<@123> <@!123> <@&456> <#789> <:e:1> <t:1:R> </cmd:1> <");
	rich_text(&r, "@42>");
	s = render(&r);
	assert_null(strstr(s, "<@"));
	assert_null(strstr(s, "<#"));
	assert_null(strstr(s, "<:"));
	assert_null(strstr(s, "<t"));
	assert_null(strstr(s, "</"));
	assert_non_null(strstr(s, "<" ZWSP "@123>"));
	free(s);
	rich_release(&r);

	check_text("a < b, <3, <=", "a < b, <3, <=");
}

static void test_mention(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_text(&r, "your turn, ");
	rich_mention(&r, "123456789012345678", "Ana");
	s = render(&r);
	assert_string_equal(s, "your turn, <@123456789012345678>");
	free(s);
	rich_release(&r);

	/* not a snowflake: the name, escaped */
	rich_mention(&r, "@bob:matrix.org", "Bo*b_");
	rich_mention(&r, "12x", "x");
	rich_mention(&r, "", "y");
	rich_mention(&r, "123456789012345678901", "z");	/* 21 digits */
	s = render(&r);
	assert_string_equal(s, "@Bo\\*b\\_@x@y@z");
	free(s);
	rich_release(&r);
}

static void test_display_names_never_ping(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_mention(&r, "nick", "everyone");
	rich_mention(&r, "nick", "here");
	rich_mention(&r, "nick", "<@1>");
	rich_mention(&r, "nick", "#1 > `x`");
	s = render(&r);
	assert_no_mass_ping(s);
	assert_null(strstr(s, "<@"));
	assert_string_equal(s, "@" ZWSP "everyone@" ZWSP "here@<" ZWSP "@1>@#1 > \\`x\\`");
	free(s);
	rich_release(&r);

	/* a real mention ignores its display name entirely */
	rich_mention(&r, "42", "@everyone");
	s = render(&r);
	assert_string_equal(s, "<@42>");
	free(s);
	rich_release(&r);
}

/* A web address the bot made: bare, so that Discord links it whole (an
 * escaped '_' or '~' would put a backslash into the link); one that is
 * not plainly safe is escaped like text. */
static void test_link(void **state)
{
	struct rich r = RICH_INIT;
	json_t *am;
	char *s;

	rich_text(&r, "Watch and replay: ");
	rich_link(&r, "https://x.org/my_bot/~t/g/Ab1");
	rich_newline(&r);
	rich_link(&r, "https://x.org/g/**b**");
	rich_text(&r, " ");
	rich_link(&r, "<@123>");
	rich_text(&r, " ");
	rich_link(&r, "https://x.org/g/a @everyone");
	s = render(&r);
	assert_string_equal(s, "Watch and replay: https://x.org/my_bot/~t/g/Ab1\n"
			    "https://x.org/g/\\*\\*b\\*\\* <" ZWSP "@123> https://x.org/g/a @"
			    ZWSP "everyone");
	assert_no_mass_ping(s);
	free(s);
	am = discord_allowed_mentions(&r);
	assert_int_equal(json_array_size(json_object_get(am, "users")), 0);
	json_decref(am);
	rich_release(&r);
	/* at the start of a line: as is too */
	rich_link(&r, "http://127.0.0.1:9464/g/x");
	s = render(&r);
	assert_string_equal(s, "http://127.0.0.1:9464/g/x");
	free(s);
	rich_release(&r);
}

static void test_room(void **state)
{
	struct rich r = RICH_INIT;
	json_t *am;
	char *s;

	/* a snowflake: a channel link, the name ignored */
	rich_text(&r, "play in ");
	rich_room(&r, "123456789012345678", "<@1> @everyone");
	s = render(&r);
	assert_string_equal(s, "play in <#123456789012345678>");
	free(s);
	/* channel links ping nobody: not in allowed_mentions */
	rich_mention(&r, "42", "Ana");
	am = discord_allowed_mentions(&r);
	assert_int_equal(json_array_size(json_object_get(am, "users")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(am, "users"), 0)),
			    "42");
	json_decref(am);
	rich_release(&r);

	/* not a snowflake: "#name" escaped like text, never a raw <#...> or <@...> */
	rich_text(&r, "x ");
	rich_room(&r, "!abc:matrix.org", "Lo*bby_");
	rich_text(&r, " ");
	rich_room(&r, "nope", "<@123>");
	rich_text(&r, " ");
	rich_room(&r, "nope", "<script>");
	rich_text(&r, " ");
	rich_room(&r, "123456789012345678901", "z");	/* 21 digits */
	rich_text(&r, " ");
	rich_room(&r, "12x", "@everyone");
	rich_text(&r, " ");
	rich_room(&r, "", "a|b");
	s = render(&r);
	assert_string_equal(s, "x #Lo\\*bby\\_ #<" ZWSP "@123> #<" ZWSP "script> #z #@" ZWSP
			    "everyone #a\\|b");
	assert_null(strstr(s, "<@"));
	assert_null(strstr(s, "<#"));
	assert_no_mass_ping(s);
	free(s);
	am = discord_allowed_mentions(&r);
	assert_int_equal(json_array_size(json_object_get(am, "users")), 0);
	json_decref(am);
	rich_release(&r);

	/* no name: the id (escaped), or "?" when there is nothing at all */
	rich_text(&r, "x ");
	rich_room(&r, "general", NULL);
	rich_room(&r, "<@123>", NULL);
	rich_room(&r, "<#1>", "");
	rich_room(&r, "a_b", "");
	rich_room(&r, NULL, NULL);
	s = render(&r);
	assert_string_equal(s, "x #general#<" ZWSP "@123>#<" ZWSP "#1>#a\\_b#?");
	free(s);
	rich_release(&r);

	/* at the start of a line the '#' is escaped: never a heading */
	rich_room(&r, "nope", "Big");
	rich_newline(&r);
	rich_room(&r, "nope", "# also");
	s = render(&r);
	assert_string_equal(s, "\\#Big\n\\## also");
	free(s);
	rich_release(&r);

	/* a '<' ending the text before does not join a fallback into a token */
	rich_text(&r, "a <");
	rich_room(&r, "nope", "1");
	rich_text(&r, " <");
	rich_room(&r, "99", NULL);
	s = render(&r);
	assert_string_equal(s, "a <" ZWSP "#1 <<#99>");
	free(s);
	rich_release(&r);
}

static void test_heading_and_blocks(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_text(&r, "before");
	rich_heading(&r, "Round *2*");
	rich_text(&r, "after");
	rich_mono(&r, "a  b\nc  d\n");
	rich_line(&r, "end");
	s = render(&r);
	assert_string_equal(s, "before\n**Round \\*2\\***\nafter\n```\na  b\nc  d\n```\nend");
	free(s);
	rich_release(&r);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

static void test_mono_neutralises_fences(void **state)
{
	struct rich r = RICH_INIT;
	char *s;

	rich_mono(&r, "```\nrm -rf ``` ````\n@everyone <@1> *not bold* \\");
	s = render(&r);
	assert_int_equal(count(s, "```"), 2);	/* our two fences only */
	assert_true(!strncmp(s, "```\n`" ZWSP "`" ZWSP "`\n", 13));
	assert_non_null(strstr(s, "*not bold* \\\n```"));	/* no escapes in code */
	assert_no_mass_ping(s);
	assert_null(strstr(s, "<@"));
	free(s);
	rich_release(&r);

	rich_mono(&r, "");	/* nothing, rather than an empty fence */
	s = render(&r);
	assert_string_equal(s, "");
	free(s);
	rich_release(&r);
}

/* ---- splitting ---- */

struct chunks {
	char *v[256];
	size_t n;
	size_t stop_after;	/* 0: never */
};

static int collect(void *ctx, const char *chunk, size_t len)
{
	struct chunks *c = ctx;

	assert_int_equal(strlen(chunk), len);
	assert_true(c->n < 256);
	c->v[c->n++] = strdup(chunk);
	return c->stop_after && c->n == c->stop_after ? 7 : 0;
}

static void chunks_free(struct chunks *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	c->n = 0;
}

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Every chunk: within max, valid UTF-8, fence lines paired. */
static void check_chunks(const struct chunks *c, size_t max)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const char *line = c->v[i];
		size_t fences = 0;

		assert_true(code_points(c->v[i]) <= max);
		assert_true(utf8_valid(c->v[i], strlen(c->v[i])));
		assert_true(c->v[i][0] != '\0');
		for (; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
			if (!strncmp(line, "```", 3))
				fences++;
		assert_int_equal(fences % 2, 0);
	}
}

static void test_split_short_and_lines(void **state)
{
	struct chunks c = { .n = 0 };
	struct buf b = BUF_INIT;
	size_t i;

	assert_int_equal(discord_split("hello", 2000, collect, &c), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0], "hello");
	chunks_free(&c);

	assert_int_equal(discord_split("", 2000, collect, &c), 0);
	assert_int_equal(c.n, 0);

	/* 10 lines of 30: at max 100, three lines a chunk, cut at line ends */
	for (i = 0; i < 10; i++)
		buf_printf(&b, "%s%030zu", i ? "\n" : "", i);
	assert_int_equal(discord_split(buf_str(&b), 100, collect, &c), 0);
	check_chunks(&c, 100);
	assert_int_equal(c.n, 4);
	for (i = 0; i < c.n; i++)
		assert_true(strlen(c.v[i]) % 31 == 30);	/* whole lines only */
	assert_true(!strncmp(c.v[3], "000000000000000000000000000009", 30));
	chunks_free(&c);
	buf_release(&b);

	assert_int_equal(discord_split("x", DISCORD_SPLIT_MIN - 1, collect, &c), -1);
	assert_int_equal(c.n, 0);
}

static void test_split_long_code_block(void **state)
{
	struct rich r = RICH_INIT;
	struct buf block = BUF_INIT, rejoined = BUF_INIT;
	struct chunks c = { .n = 0 };
	char *s;
	size_t i;

	for (i = 0; i < 200; i++)
		buf_printf(&block, "row %03zu ``` | ñ € 😀 ............%s", i, i < 199 ? "\n" : "");
	rich_heading(&r, "Board");
	rich_mono(&r, buf_str(&block));
	rich_text(&r, "Your move, ");
	rich_mention(&r, "42", "Ana");
	s = render(&r);
	assert_true(code_points(s) > 3 * DISCORD_CONTENT_MAX);

	assert_int_equal(discord_split(s, DISCORD_CONTENT_MAX, collect, &c), 0);
	assert_true(c.n >= 4);
	check_chunks(&c, DISCORD_CONTENT_MAX);
	assert_true(!strncmp(c.v[0], "**Board**\n```\nrow 000", 21));
	for (i = 0; i < c.n; i++) {
		const char *v = c.v[i];
		size_t n = strlen(v);

		if (i > 0)
			assert_true(!strncmp(v, "```\nrow ", 8));	/* reopened */
		if (i < c.n - 1)
			assert_true(n >= 4 && !strcmp(v + n - 4, "\n```"));	/* closed */
	}
	assert_non_null(strstr(c.v[c.n - 1], "```\nYour move, <@42>"));

	/* Nothing lost: the rows, in order, once each. */
	for (i = 0; i < c.n; i++)
		buf_addstr(&rejoined, c.v[i]);
	for (i = 0; i < 200; i++) {
		char row[16];

		snprintf(row, sizeof(row), "row %03zu ", i);
		assert_int_equal(count(buf_str(&rejoined), row), 1);
	}
	chunks_free(&c);
	buf_release(&rejoined);
	buf_release(&block);
	free(s);
	rich_release(&r);
}

static void test_split_multibyte_hard(void **state)
{
	struct buf b = BUF_INIT, rejoined = BUF_INIT;
	struct chunks c = { .n = 0 };
	size_t i;

	/* one 5000-code-point line without a space: 1, 2, 3 and 4-byte chars */
	for (i = 0; i < 1250; i++)
		buf_addstr(&b, "añ€😀");
	assert_int_equal(discord_split(buf_str(&b), DISCORD_CONTENT_MAX, collect, &c), 0);
	check_chunks(&c, DISCORD_CONTENT_MAX);
	assert_int_equal(c.n, 3);
	assert_int_equal(code_points(c.v[0]), DISCORD_CONTENT_MAX);
	for (i = 0; i < c.n; i++)
		buf_addstr(&rejoined, c.v[i]);
	assert_string_equal(buf_str(&rejoined), buf_str(&b));
	chunks_free(&c);

	/* same at every cut position of a 4-byte char */
	for (i = 64; i < 68; i++) {
		buf_reset(&rejoined);
		assert_int_equal(discord_split(buf_str(&b), i, collect, &c), 0);
		check_chunks(&c, i);
		while (c.n)
			buf_addstr(&rejoined, c.v[--c.n]), free(c.v[c.n]);
		assert_int_equal(rejoined.len, b.len);
	}
	buf_release(&rejoined);
	buf_release(&b);
}

static void test_split_hard_prefers_safe_cuts(void **state)
{
	struct buf b = BUF_INIT;
	struct chunks c = { .n = 0 };
	size_t i;

	/* words: cut after a space */
	for (i = 0; i < 100; i++)
		buf_addstr(&b, "word ");
	assert_int_equal(discord_split(buf_str(&b), 64, collect, &c), 0);
	check_chunks(&c, 64);
	for (i = 0; i + 1 < c.n; i++)
		assert_int_equal(c.v[i][strlen(c.v[i]) - 1], ' ');
	chunks_free(&c);

	/* escapes: never leave a backslash without its character */
	buf_reset(&b);
	for (i = 0; i < 100; i++)
		buf_addstr(&b, "\\*");
	assert_int_equal(discord_split(buf_str(&b), 65, collect, &c), 0);
	check_chunks(&c, 65);
	for (i = 0; i < c.n; i++)
		assert_int_equal(strlen(c.v[i]) % 2, 0);
	chunks_free(&c);

	/* mentions stay whole */
	buf_reset(&b);
	for (i = 0; i < 20; i++)
		buf_addstr(&b, "<@123456789012345678>");
	assert_int_equal(discord_split(buf_str(&b), 70, collect, &c), 0);
	check_chunks(&c, 70);
	for (i = 0; i < c.n; i++) {
		assert_true(!strncmp(c.v[i], "<@", 2));
		assert_int_equal(c.v[i][strlen(c.v[i]) - 1], '>');
	}
	chunks_free(&c);

	/* and so do channel links */
	buf_reset(&b);
	for (i = 0; i < 20; i++)
		buf_addstr(&b, "<#123456789012345678>");
	assert_int_equal(discord_split(buf_str(&b), 70, collect, &c), 0);
	check_chunks(&c, 70);
	assert_true(c.n > 1);
	for (i = 0; i < c.n; i++) {
		assert_true(!strncmp(c.v[i], "<#", 2));
		assert_int_equal(c.v[i][strlen(c.v[i]) - 1], '>');
	}
	chunks_free(&c);

	/* rendered, mixed with text, at every offset */
	for (i = 0; i < 22; i++) {
		struct rich r = RICH_INIT;
		struct buf out = BUF_INIT;
		size_t k, n;

		rich_text(&r, "%.*s", (int)i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		for (k = 0; k < 10; k++)
			rich_room(&r, "123456789012345678", NULL);
		assert_int_equal(discord_markdown(&r, &out), 0);
		assert_int_equal(discord_split(buf_str(&out), 64, collect, &c), 0);
		check_chunks(&c, 64);
		for (k = 0, n = 0; k < c.n; k++) {
			const char *p = c.v[k];

			/* every chunk holds whole links only */
			while ((p = strstr(p, "<#"))) {
				assert_true(!strncmp(p, "<#123456789012345678>", 21));
				p += 21;
				n++;
			}
			assert_null(strstr(c.v[k], "<#1234567890123456789"));
			p = strrchr(c.v[k], '<');
			if (p)
				assert_non_null(strchr(p, '>'));
		}
		assert_int_equal(n, 10);
		chunks_free(&c);
		buf_release(&out);
		rich_release(&r);
	}
	buf_release(&b);
}

static void test_split_fence_edges(void **state)
{
	struct chunks c = { .n = 0 };
	struct buf b = BUF_INIT;
	size_t i;

	/* a fence that would open at the very end moves to the next chunk */
	for (i = 0; i < 2; i++)
		buf_addstr(&b, "0123456789012345678901234\n");
	buf_addstr(&b, "```\nin code, a longer line\n```\nafter");
	assert_int_equal(discord_split(buf_str(&b), 70, collect, &c), 0);
	check_chunks(&c, 70);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.v[1], "```\nin code, a longer line\n```\nafter");
	assert_null(strstr(c.v[0], "```"));
	chunks_free(&c);

	/* a line longer than a message inside a block: split, fences kept */
	buf_reset(&b);
	buf_addstr(&b, "```\n");
	for (i = 0; i < 300; i++)
		buf_addch(&b, 'x');
	buf_addstr(&b, "\n```");
	assert_int_equal(discord_split(buf_str(&b), 100, collect, &c), 0);
	check_chunks(&c, 100);
	for (i = 0; i < c.n; i++) {
		assert_true(!strncmp(c.v[i], "```\n", 4));
		assert_int_equal(strlen(c.v[i]), i + 1 < c.n ? 100 : strlen(c.v[i]));
	}
	chunks_free(&c);

	/* blank lines at the edges are dropped; the callback can stop */
	assert_int_equal(discord_split("\n\na\n\n", 100, collect, &c), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0], "a");
	chunks_free(&c);

	buf_reset(&b);
	for (i = 0; i < 10; i++)
		buf_printf(&b, "%060zu\n", i);
	c.stop_after = 2;
	assert_int_equal(discord_split(buf_str(&b), 64, collect, &c), 7);
	assert_int_equal(c.n, 2);
	chunks_free(&c);
	buf_release(&b);
}

/* ---- allowed_mentions ---- */

static void test_allowed_mentions(void **state)
{
	struct rich r = RICH_INIT;
	json_t *am, *users;
	char id[24];
	size_t i;

	rich_text(&r, "@everyone ");
	rich_mention(&r, "111", "A");
	rich_mention(&r, "222", "B");
	rich_mention(&r, "111", "A again");
	rich_mention(&r, "@c:matrix.org", "C");
	rich_mention(&r, "", "D");
	am = discord_allowed_mentions(&r);
	assert_int_equal(json_object_size(am), 2);
	assert_true(json_is_array(json_object_get(am, "parse")));
	assert_int_equal(json_array_size(json_object_get(am, "parse")), 0);
	users = json_object_get(am, "users");
	assert_int_equal(json_array_size(users), 2);
	assert_string_equal(json_string_value(json_array_get(users, 0)), "111");
	assert_string_equal(json_string_value(json_array_get(users, 1)), "222");
	json_decref(am);
	rich_release(&r);

	/* none: still an explicit empty list, so nobody is pinged */
	am = discord_allowed_mentions(&r);
	assert_int_equal(json_array_size(json_object_get(am, "users")), 0);
	json_decref(am);

	for (i = 0; i < 150; i++) {
		snprintf(id, sizeof(id), "%zu", 1000 + i);
		rich_mention(&r, id, "p");
	}
	am = discord_allowed_mentions(&r);
	users = json_object_get(am, "users");
	assert_int_equal(json_array_size(users), DISCORD_MENTION_USERS_MAX);
	assert_string_equal(json_string_value(json_array_get(users, 99)), "1099");
	json_decref(am);
	rich_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_metachars),
		cmocka_unit_test(test_escape_across_spans),
		cmocka_unit_test(test_mass_pings_in_text),
		cmocka_unit_test(test_angle_tokens_in_text),
		cmocka_unit_test(test_mention),
		cmocka_unit_test(test_display_names_never_ping),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_heading_and_blocks),
		cmocka_unit_test(test_mono_neutralises_fences),
		cmocka_unit_test(test_split_short_and_lines),
		cmocka_unit_test(test_split_long_code_block),
		cmocka_unit_test(test_split_multibyte_hard),
		cmocka_unit_test(test_split_hard_prefers_safe_cuts),
		cmocka_unit_test(test_split_fence_edges),
		cmocka_unit_test(test_allowed_mentions),
	};

	return cmocka_run_group_tests_name("discord_markdown", tests, NULL, NULL);
}
