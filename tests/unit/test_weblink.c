/*
 * The games' web links (bot/weblink.c, `game web` in bot/settings.c;
 * docs/web.md, "Links and tokens"): TABULA_PUBLIC_URL's check, the link on
 * the start message and on the final board and nowhere else, `game web`
 * and its votes (reset kills the old token, off posts no link), Spanish,
 * and nothing at all without a public address.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session.h"
#include "bot/weblink.h"
#include "tests/support/capture.h"

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct capture_adapter *cap;
	int gone;		/* web_gone calls */
	int64_t gone_id;	/* ... the last one's session */
};

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static void on_sent(void *ctx, struct adapter *a, int64_t id)
{
	session_mgr_sent(ctx, id);
}

static void on_gone(void *ctx, const struct session *s)
{
	struct fixture *f = ctx;

	f->gone++;
	f->gone_id = s->rec.id;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;

	f->store = store_sqlite_open(":memory:", &err);
	assert_non_null(f->store);
	session_mgr_init(&f->mgr, f->store, 12345);
	f->mgr.web_gone = on_gone;
	f->mgr.web_gone_ctx = f;
	f->cap = capture_new("console");
	f->cap->base.on_command = on_command;
	f->cap->base.on_sent = on_sent;
	f->cap->base.ctx = &f->mgr;
	session_mgr_add_adapter(&f->mgr, &f->cap->base);
	buf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	store_close(f->store);
	free(f);
	return 0;
}

static struct session *room(struct fixture *f)
{
	struct buf err = BUF_INIT;
	struct session *s = session_mgr_find(&f->mgr, "console", "r1", &err);

	buf_release(&err);
	return s;
}

static void set_base(struct fixture *f, const char *url)
{
	struct buf err = BUF_INIT;

	if (weblink_set_base(&f->mgr, url, &err))
		fail_msg("weblink_set_base(%s): %s", url, buf_str(&err));
	buf_release(&err);
}

/* The room's session's token now ("" when it has none). */
static void token_of(struct fixture *f, char *out)
{
	struct buf err = BUF_INIT;

	assert_int_equal(store_web_get(f->store, room(f)->rec.id, out, STORE_WEB_TOKEN_MAX, &err),
			 0);
	buf_release(&err);
}

/* The session a token finds: 0 + id, or 1. */
static int find(struct fixture *f, const char *token, int64_t *sid)
{
	struct buf err = BUF_INIT;
	int rc = store_web_find(f->store, token, sid, &err);

	assert_int_not_equal(rc, -1);
	buf_release(&err);
	return rc;
}

/* How many messages (NULL: public, "*": any) hold text. */
static int count(struct fixture *f, const char *user, const char *text)
{
	return capture_count(f->cap, user, text);
}

/* Plays r1's game to its end: each awaited human plays their first move. */
static void play_out(struct fixture *f)
{
	struct session *s;
	int guard = 0;

	while ((s = room(f)) && s->rec.status == SESSION_ACTIVE) {
		unsigned aw = s->ops->awaiting(s->st);
		char user[64] = "";
		int i;

		for (i = 0; i < s->rec.nseats && !user[0]; i++)
			if ((aw & (1u << i)) && !s->rec.seats[i].is_bot)
				snprintf(user, sizeof(user), "%s", s->rec.seats[i].user);
		assert_true(user[0]);
		capture_cmd(f->cap, "r1", user, "play 1");
		assert_true(++guard < 5000);
	}
	assert_int_equal(room(f)->rec.status, SESSION_FINISHED);
}

/* ana and ben with one AI start a game of Fortuna in r1. */
static void started(struct fixture *f)
{
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game settings board text");
	capture_cmd(f->cap, "r1", "ana", "game start");
	assert_int_equal(room(f)->rec.status, SESSION_ACTIVE);
}

/* ---- TABULA_PUBLIC_URL ---- */

static void test_base_parse(void **state)
{
	static const char *const good[][2] = {
		{ "https://play.example.org", "https://play.example.org" },
		{ "https://play.example.org/", "https://play.example.org" },
		{ "http://127.0.0.1:8080//", "http://127.0.0.1:8080" },
		{ "https://example.org/tabula/", "https://example.org/tabula" },
		{ "https://[::1]:8443/a_b-c.d~e/", "https://[::1]:8443/a_b-c.d~e" },
		{ "", "" },
	};
	static const char *const bad[] = {
		"play.example.org", "ftp://example.org", "https://", "https:///path",
		"https://user@example.org", "https://example.org/a b", "https://example.org/?x=1",
		"https://example.org/#top", "https://exa mple.org", "https://example.org/\"x",
		"https://example.org/<script>", "javascript:alert(1)", "HTTPS//example.org",
	};
	char out[512], big[700];
	struct buf err = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (weblink_base_parse(good[i][0], out, sizeof(out), &err))
			fail_msg("%s refused: %s", good[i][0], buf_str(&err));
		assert_string_equal(out, good[i][1]);
	}
	assert_int_equal(weblink_base_parse(NULL, out, sizeof(out), &err), 0);
	assert_string_equal(out, "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&err);
		if (!weblink_base_parse(bad[i], out, sizeof(out), &err))
			fail_msg("%s taken as %s", bad[i], out);
		assert_non_null(strstr(buf_str(&err), "TABULA_PUBLIC_URL"));
		assert_string_equal(out, "");
	}
	snprintf(big, sizeof(big), "https://example.org/%0600d", 0);
	assert_int_equal(weblink_base_parse(big, out, sizeof(out), &err), -1);
	buf_release(&err);
}

/* ---- the links posted ---- */

/* Without a public address: no link anywhere, no token made, and `game
 * web` says why. */
static void test_no_pages_without_url(void **state)
{
	struct fixture *f = *state;
	char tok[STORE_WEB_TOKEN_MAX];

	started(f);
	play_out(f);
	assert_int_equal(count(f, "*", "Watch and replay"), 0);
	assert_int_equal(count(f, "*", "/g/"), 0);
	token_of(f, tok);
	assert_string_equal(tok, "");
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game web reset");
	assert_int_equal(count(f, "ana", "This bot serves no web pages"), 1);
	token_of(f, tok);
	assert_string_equal(tok, "");
}

/* The start message and the final board carry the link, and nothing else
 * does; the token is the store's. */
static void test_link_at_start_and_end(void **state)
{
	struct fixture *f = *state;
	const struct captured *start, *end;
	char tok[STORE_WEB_TOKEN_MAX], line[256];
	int64_t sid;

	set_base(f, "https://play.example.org/");
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ben", "game join");
	token_of(f, tok);
	assert_string_equal(tok, "");	/* a lobby has no link until it starts */
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game settings board text");
	capture_cmd(f->cap, "r1", "ana", "game start");
	token_of(f, tok);
	assert_int_equal(strlen(tok), STORE_WEB_TOKEN_LEN);
	assert_int_equal(find(f, tok, &sid), 0);
	assert_int_equal(sid, room(f)->rec.id);
	snprintf(line, sizeof(line), "Watch and replay: https://play.example.org/g/%s", tok);
	start = capture_last(f->cap, NULL, 1, line);
	assert_non_null(start);
	assert_non_null(strstr(start->text, "Waiting for"));	/* the start's board */
	assert_int_equal(count(f, "*", "/g/"), 1);
	assert_int_equal(count(f, "*", "Watch and replay"), 1);
	play_out(f);
	end = capture_last(f->cap, NULL, 1, "Game over");
	assert_non_null(end);
	assert_non_null(strstr(end->text, line));
	/* under the result and the rematch */
	assert_true(strstr(end->text, line) > strstr(end->text, "Play again: `rematch`"));
	/* the start and the end, no board between, no private message */
	assert_int_equal(count(f, NULL, "/g/"), 2);
	assert_int_equal(count(f, "*", "/g/"), 2);
	/* the final board again: with its link */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "carl", "board");
	assert_int_equal(count(f, NULL, line), 1);
	/* `game web` after the end: the same link, privately */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "carl", "game web");
	assert_int_equal(count(f, "*", "/g/"), 0);	/* not seated: refused */
	capture_cmd(f->cap, "r1", "ben", "game web");
	assert_int_equal(count(f, "ben", line), 1);
	assert_int_equal(count(f, NULL, "/g/"), 0);
}

/* `game web reset` in a game under way: a vote; decided, a new link, the
 * old token finds nothing, whatever serves the page is told. */
static void test_reset_is_voted(void **state)
{
	struct fixture *f = *state;
	char old[STORE_WEB_TOKEN_MAX], now[STORE_WEB_TOKEN_MAX], line[256], both[320];
	int64_t sid;

	set_base(f, "https://play.example.org");
	started(f);
	token_of(f, old);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game web reset");
	assert_int_equal(count(f, NULL, "asks for `game web reset`: 1 of 2 players"), 1);
	token_of(f, now);
	assert_string_equal(now, old);
	assert_int_equal(f->gone, 0);
	capture_cmd(f->cap, "r1", "ben", "game web reset");
	token_of(f, now);
	assert_string_not_equal(now, old);
	assert_int_equal(find(f, old, &sid), 1);
	assert_int_equal(find(f, now, &sid), 0);
	assert_int_equal(sid, room(f)->rec.id);
	snprintf(line, sizeof(line), "Watch and replay: https://play.example.org/g/%s", now);
	assert_int_equal(count(f, NULL, "This game has a new web link; the old one no longer works."),
			 1);
	assert_int_equal(count(f, NULL, line), 1);
	assert_int_equal(count(f, NULL, "(Agreed by 2 of 2 players.)"), 1);
	/* the link on a line of its own, after the votes: a chat links it
	 * whole (nothing after it on its line) */
	snprintf(both, sizeof(both), "works. (Agreed by 2 of 2 players.)\n%s", line);
	assert_int_equal(count(f, NULL, both), 1);
	assert_int_equal(f->gone, 1);
	assert_int_equal(f->gone_id, room(f)->rec.id);
	/* the vote is over: a new one starts from nothing */
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ben", "game web reset");
	assert_int_equal(count(f, NULL, "asks for `game web reset`: 1 of 2 players"), 1);
	/* the final board carries the new link */
	play_out(f);
	token_of(f, now);
	snprintf(line, sizeof(line), "Watch and replay: https://play.example.org/g/%s", now);
	assert_non_null(strstr(capture_last(f->cap, NULL, 1, "Game over")->text, line));
}

/* `game web off`: voted, no link on the final board, `game web` says it
 * is off, and after the end one seated player turns it on again with the
 * same link. */
static void test_off_posts_no_link(void **state)
{
	struct fixture *f = *state;
	char tok[STORE_WEB_TOKEN_MAX], now[STORE_WEB_TOKEN_MAX];
	struct buf url = BUF_INIT, err = BUF_INIT;
	int64_t sid;

	set_base(f, "https://play.example.org");
	started(f);
	token_of(f, tok);
	capture_cmd(f->cap, "r1", "ana", "game web off");
	assert_int_equal(weblink_url(&f->mgr, room(f), &url, &err), 0);
	capture_cmd(f->cap, "r1", "ben", "game web off");
	assert_int_equal(count(f, NULL, "This game's web page is off"), 1);
	assert_int_equal(f->gone, 1);
	assert_int_equal(weblink_url(&f->mgr, room(f), &url, &err), 1);
	assert_non_null(strstr(room(f)->rec.settings, "\"web\":false"));
	capture_cmd(f->cap, "r1", "ana", "game web off");
	assert_int_equal(count(f, "ana", "That is the setting already."), 1);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game web");
	assert_int_equal(count(f, "ana", "This game's web page is off"), 1);
	play_out(f);
	capture_cmd(f->cap, "r1", "carl", "board");
	assert_int_equal(count(f, "*", "/g/"), 0);
	assert_int_equal(count(f, "*", "Watch and replay"), 0);
	/* the store keeps the token: the page, once on, has the same link
	 * (the page itself answers 404 while it is off: bot/web.c) */
	assert_int_equal(find(f, tok, &sid), 0);
	capture_cmd(f->cap, "r1", "ben", "game web on");
	assert_int_equal(count(f, NULL, "This game's web page is on again."), 1);
	token_of(f, now);
	assert_string_equal(now, tok);
	assert_int_equal(count(f, NULL, tok), 1);
	assert_int_equal(f->gone, 1);
	buf_release(&url);
	buf_release(&err);
}

/* The room's language; bad words get the usage. */
static void test_spanish_and_usage(void **state)
{
	struct fixture *f = *state;

	set_base(f, "https://play.example.org");
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game settings locale es");
	capture_cmd(f->cap, "r1", "ana", "game addbot");
	capture_cmd(f->cap, "r1", "ana", "game start");
	assert_int_equal(count(f, NULL, "Mira y repasa la partida: https://play.example.org/g/"),
			 1);
	assert_int_equal(count(f, "*", "Watch and replay"), 0);
	capture_clear(f->cap);
	capture_cmd(f->cap, "r1", "ana", "game web sideways");
	assert_int_equal(count(f, "ana", "Uso: `game web`"), 1);
	capture_cmd(f->cap, "r1", "ana", "game web off now");
	assert_int_equal(count(f, "ana", "Uso: `game web`"), 2);
	assert_null(strstr(room(f)->rec.settings, "\"web\""));
	/* one human: decided at once */
	capture_cmd(f->cap, "r1", "ana", "game web off");
	assert_int_equal(count(f, NULL, "La página web de esta partida está desactivada"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_parse),
		cmocka_unit_test_setup_teardown(test_no_pages_without_url, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_at_start_and_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_is_voted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_posts_no_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spanish_and_usage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
