/*
 * Each game's page, server side (bot/web.c, issue 27): the view of a
 * session at every position rebuilt from the stored moves (the text
 * board, players, status and the public log with the position each line
 * led to, compared with the game played move by move), the replay cache
 * (one replay per game, a few steps per position), 400 on a bad `at`,
 * the same 404 for an unknown token, a turned-off page or a bad path, the
 * events a commit publishes, and THE SECRETS SCAN: for all four games, a
 * seeded game of AI seats committed move by move, at every position the
 * page, state.json, the picture's display list (and, now and then, the
 * painted PNG's description) hold none of the game's secrets of that
 * position.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "bot/core.h"
#include "bot/paintjob.h"
#include "bot/roomset.h"
#include "adapters/httpd.h"
#include "bot/web.h"
#include "bot/weblink.h"
#include "paint/paint.h"
#include "tests/support/capture.h"

#define MAX_POS 20000

static const char *const NAMES[] = { "Ana", "Ben", "Cy", "Dee", "Eve" };

struct fixture {
	struct store *store;
	struct session_mgr mgr;
	struct web web;
	struct capture_adapter *cap;
	struct buf events;		/* "topic|text" of each publish */
	int64_t ms;			/* the paint budget's clock */
	struct paint_job *jobs[8];	/* handed to "the painters" */
	int njobs;
	int frozen;			/* 0: a second passes at each look */
	struct buf closed;		/* "topic|text" of each close */
	int streams;			/* what fake_streams says */
	int timer, timer_calls;		/* the watch timer's state */
};

static size_t fake_publish(void *ctx, const char *topic, const char *text, size_t len)
{
	struct fixture *f = ctx;

	buf_printf(&f->events, "%s|%.*s", topic, (int)len, text);
	return 1;
}

static void fake_close(void *ctx, const char *topic, const char *text)
{
	struct fixture *f = ctx;

	buf_printf(&f->closed, "%s|%s", topic, text ? text : "");
}

static int64_t fake_ms(void *ctx)
{
	struct fixture *f = ctx;

	if (!f->frozen)
		f->ms += 1000;
	return f->ms;
}

static int take_job(void *ctx, struct paint_job *job)
{
	struct fixture *f = ctx;

	if (f->njobs == 8)
		return -1;
	f->jobs[f->njobs++] = job;
	return 0;
}

/* The painters' side of job k: painted, then back on "the loop". */
static void run_job(struct fixture *f, int k)
{
	paint_job_run(f->jobs[k]);
	f->jobs[k]->done(f->jobs[k]->done_ctx, f->jobs[k]);
	f->jobs[k] = NULL;
}

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static void on_sent(void *ctx, struct adapter *a, int64_t id)
{
	session_mgr_sent(ctx, id);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct buf err = BUF_INIT;

	f->store = store_sqlite_open(":memory:", &err);
	assert_non_null(f->store);
	session_mgr_init(&f->mgr, f->store, 4242);
	web_init(&f->web, &f->mgr);
	f->web.publish = fake_publish;
	f->web.close_topic = fake_close;
	f->web.pub_ctx = f;
	f->web.now_ms = fake_ms;
	f->web.now_ctx = f;
	f->ms = 1000;
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

	web_release(&f->web);
	session_mgr_release(&f->mgr);
	capture_free(f->cap);
	store_close(f->store);
	buf_release(&f->events);
	buf_release(&f->closed);
	free(f);
	return 0;
}

/* ---- a game of AI seats, stored move by move ---- */

struct ref_line {
	long at;
	char *text;
};

struct table {
	const struct game_ops *ops;
	struct session_rec rec;
	void *st;
	struct rng rng;
	enum locale loc;
	char token[STORE_WEB_TOKEN_MAX];
	long npos;
	char **board;		/* the public text board of each position */
	char **secrets;		/* secrets() of each position, '\n'-separated */
	char **priv;		/* every seat's private view of each position */
	struct ref_line *log;	/* the public lines, as the game wrote them */
	size_t nlog, logcap;
	long log_at;
};

static void ref_emit(struct game_log *log, int seat, const char *text)
{
	struct table *t = log->ctx;

	if (seat != LOG_PUBLIC)
		return;
	if (t->nlog == t->logcap) {
		t->logcap = t->logcap ? t->logcap * 2 : 64;
		t->log = realloc(t->log, t->logcap * sizeof(*t->log));
	}
	t->log[t->nlog].at = t->log_at;
	t->log[t->nlog].text = strdup(text);
	t->nlog++;
}

/* The reference of the position just reached. */
static void table_note(struct table *t)
{
	struct game_view v = { t->loc, t->rec.nseats, NAMES };
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT, p = BUF_INIT;
	int s;

	assert_true(t->npos < MAX_POS);
	t->ops->render_public(t->st, &v, &r);
	rich_to_plain(&r, &b);
	rich_release(&r);
	t->board[t->npos] = buf_detach(&b);
	if (t->ops->secrets)
		t->ops->secrets(t->st, t->loc, &b);
	t->secrets[t->npos] = buf_detach(&b);
	for (s = 0; s < t->rec.nseats; s++) {
		struct rich pr = RICH_INIT;

		t->ops->render_private(t->st, s, &v, &pr);
		rich_to_plain(&pr, &p);
		rich_release(&pr);
	}
	t->priv[t->npos] = buf_detach(&p);
	t->npos++;
}

static void table_commit(struct fixture *f, struct table *t, const struct action_rec *a)
{
	struct store_commit c;
	struct buf err = BUF_INIT;
	json_t *j = t->ops->save(t->st);

	free(t->rec.state);
	t->rec.state = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	t->rec.version++;
	memset(&c, 0, sizeof(c));
	c.session = &t->rec;
	c.actions = a;
	c.nactions = a ? 1 : 0;
	if (store_commit(f->store, &c, &err))
		fail_msg("commit: %s", buf_str(&err));
	buf_release(&err);
}

static void table_open(struct fixture *f, struct table *t, const char *game, int nseats,
		       uint64_t seed, enum locale loc)
{
	struct game_log log = { loc, NAMES, ref_emit, t };
	struct room_settings rs;
	struct buf err = BUF_INIT;
	int i;

	memset(t, 0, sizeof(*t));
	t->ops = game_find(game);
	assert_non_null(t->ops);
	t->loc = loc;
	t->board = calloc(MAX_POS, sizeof(char *));
	t->secrets = calloc(MAX_POS, sizeof(char *));
	t->priv = calloc(MAX_POS, sizeof(char *));
	session_rec_init(&t->rec);
	snprintf(t->rec.platform, sizeof(t->rec.platform), "console");
	snprintf(t->rec.room, sizeof(t->rec.room), "room-%s-%llu", game, (unsigned long long)seed);
	snprintf(t->rec.game, sizeof(t->rec.game), "%s", game);
	snprintf(t->rec.locale, sizeof(t->rec.locale), "%s", locale_code(loc));
	t->rec.status = SESSION_ACTIVE;
	t->rec.seed = seed;
	t->rec.nseats = nseats;
	for (i = 0; i < nseats; i++) {
		snprintf(t->rec.seats[i].name, sizeof(t->rec.seats[i].name), "%s", NAMES[i]);
		t->rec.seats[i].is_bot = 1;
	}
	roomset_read(&t->rec, &rs);
	rs.rules = t->ops->rules_version ? (int)t->ops->rules_version : 1;
	roomset_write(&t->rec, &rs);
	rng_seed(&t->rng, seed, 77);
	t->st = game_state_new(t->ops);
	if (t->ops->setup(t->st, nseats, seed, "", &err))
		fail_msg("setup: %s", buf_str(&err));
	t->log_at = 0;
	if (t->ops->intro)
		t->ops->intro(t->st, &log);
	table_commit(f, t, NULL);
	table_note(t);
	assert_int_equal(store_web_reset(f->store, t->rec.id, t->token, sizeof(t->token), &err), 0);
	buf_release(&err);
}

/* One AI move, stored; 0 once the game is over. */
static int table_step(struct fixture *f, struct table *t)
{
	struct game_log log = { t->loc, NAMES, ref_emit, t };
	struct action_rec a;
	struct buf id = BUF_INIT, err = BUF_INIT;
	struct move m;
	unsigned aw = t->ops->awaiting(t->st);
	int seat = 0;

	if (!aw)
		return 0;
	while (!(aw & (1u << seat)))
		seat++;
	assert_int_equal(t->ops->bot_move(t->st, seat, &t->rng, &m), 0);
	t->ops->move_id(t->st, seat, m, &id);
	memset(&a, 0, sizeof(a));
	a.seq = t->npos;
	a.seat = seat;
	snprintf(a.move, sizeof(a.move), "%s", buf_str(&id));
	t->log_at = t->npos;
	if (t->ops->apply(t->st, seat, m, &log, &err))
		fail_msg("apply: %s", buf_str(&err));
	if (!t->ops->awaiting(t->st))
		t->rec.status = SESSION_FINISHED;
	table_commit(f, t, &a);
	table_note(t);
	buf_release(&id);
	buf_release(&err);
	return 1;
}

static void table_free(struct table *t)
{
	long i;

	for (i = 0; i < t->npos; i++) {
		free(t->board[i]);
		free(t->secrets[i]);
		free(t->priv[i]);
	}
	for (i = 0; i < (long)t->nlog; i++)
		free(t->log[i].text);
	free(t->log);
	free(t->board);
	free(t->secrets);
	free(t->priv);
	free(t->st);
	session_rec_release(&t->rec);
}

/* ---- asking the page ---- */

static int ask(struct fixture *f, const char *token, const char *what, const char *query,
	       struct web_answer *a)
{
	char rest[160];

	web_answer_release(a);
	web_answer_init(a);
	snprintf(rest, sizeof(rest), "%s%s%s", token, what[0] ? "/" : "", what);
	web_game_answer(&f->web, rest, query, a);
	return a->status;
}

static json_t *ask_json(struct fixture *f, const struct table *t, long at)
{
	struct web_answer a;
	char q[32] = "";
	json_t *j;

	web_answer_init(&a);
	if (at >= 0)
		snprintf(q, sizeof(q), "at=%ld", at);
	assert_int_equal(ask(f, t->token, "state.json", q, &a), 200);
	assert_string_equal(a.type, "application/json");
	j = json_loads(buf_str(&a.body), 0, NULL);
	assert_non_null(j);
	web_answer_release(&a);
	return j;
}

/* The secret of secrets (one a line) that text holds, or NULL. */
static char *leak(const char *secrets, const char *text)
{
	const char *p = secrets;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n) {
			char *needle = strndup(p, n);

			if (strstr(text, needle))
				return needle;
			free(needle);
		}
		p += n + (nl ? 1 : 0);
	}
	return NULL;
}

static void no_leak(const struct table *t, long at, const char *what, const char *text)
{
	char *s = leak(t->secrets[at], text);

	if (s) {
		const char *hit = strstr(text, s), *from = hit, *to = strchr(hit, '\n');

		while (from > text && from[-1] != '\n')
			from--;
		fail_msg("%s position %ld: hidden \"%s\" is in the %s, in the line:\n%.*s", t->ops->id,
			 at, s, what, (int)(to ? to - from : (long)strlen(from)), from);
	}
}

/* The PNG's iTXt Description, inflated (a new string), or NULL. */
static char *png_description(const unsigned char *png, size_t len)
{
	size_t at = 8;

	while (at + 12 <= len) {
		const unsigned char *c = png + at;
		size_t n = (size_t)c[0] << 24 | (size_t)c[1] << 16 | (size_t)c[2] << 8 | c[3];

		if (at + 12 + n > len)
			break;
		if (!memcmp(c + 4, "iTXt", 4) && n > 16 && !memcmp(c + 8, "Description\0\1\0\0\0", 16)) {
			uLongf out = 1 << 20;
			char *text = calloc(1, out + 1);

			assert_int_equal(uncompress((Bytef *)text, &out, c + 8 + 16, (uLong)(n - 16)),
					 Z_OK);
			return text;
		}
		at += 12 + n;
	}
	return NULL;
}

/*
 * Every string of a state.json but its log lines, decoded, one a line.
 * The log lines are checked apart (check_log): they are the game's public
 * lines, as the room saw them, and such a line may name a card a player
 * showed and took back into a hand (Glory to Rome's "Cy reveals Wall"):
 * everybody at the table saw it.
 */
static void json_texts(const json_t *j, struct buf *out)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		buf_printf(out, "%s\n", json_string_value(j));
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			json_texts(v, out);
	} else if (json_is_object(j)) {
		json_object_foreach((json_t *)j, key, v) {
			buf_printf(out, "%s\n", key);
			if (strcmp(key, "log"))
				json_texts(v, out);
		}
	}
}



/* The page's text with its entities decoded (a secret with an apostrophe
 * must not hide behind &#39;). */
static void html_texts(const char *html, struct buf *out)
{
	static const struct {
		const char *ent, *ch;
	} ents[] = { { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
		     { "&#39;", "'" } };
	size_t i;

	buf_reset(out);
	while (*html) {
		for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
			if (!strncmp(html, ents[i].ent, strlen(ents[i].ent)))
				break;
		if (i < sizeof(ents) / sizeof(ents[0])) {
			buf_addstr(out, ents[i].ch);
			html += strlen(ents[i].ent);
		} else {
			buf_addch(out, *html++);
		}
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---- the view ---- */

static void check_log(const struct table *t, json_t *j)
{
	json_t *log = json_object_get(j, "log"), *v;
	size_t i;

	assert_int_equal(json_array_size(log), t->nlog);
	json_array_foreach(log, i, v) {
		assert_int_equal(json_integer_value(json_object_get(v, "at")), t->log[i].at);
		assert_string_equal(json_string_value(json_object_get(v, "text")), t->log[i].text);
	}
}

/* A finished game read afterwards: every position, in an order of jumps
 * back and forth, is the game's own; one replay in all. */
static void test_view_positions(void **state)
{
	struct fixture *f = *state;
	struct table t;
	json_t *j, *players;
	struct rng r;
	long k, n, *order;
	size_t i, winners = 0;

	table_open(f, &t, "fortuna", 3, 11, LOC_EN);
	while (table_step(f, &t))
		;
	n = t.npos;
	assert_true(n > 20);
	j = ask_json(f, &t, -1);
	assert_int_equal(json_integer_value(json_object_get(j, "positions")), n);
	assert_int_equal(json_integer_value(json_object_get(j, "at")), n - 1);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "finished");
	assert_string_equal(json_string_value(json_object_get(j, "game")), "fortuna");
	assert_string_equal(json_string_value(json_object_get(j, "lang")), "en");
	assert_string_equal(json_string_value(json_object_get(j, "board_text")), t.board[n - 1]);
	assert_non_null(strstr(json_string_value(json_object_get(j, "status_text")), "Game over"));
	players = json_object_get(j, "players");
	assert_int_equal(json_array_size(players), 3);
	for (i = 0; i < 3; i++) {
		json_t *p = json_array_get(players, i);

		assert_string_equal(json_string_value(json_object_get(p, "name")), NAMES[i]);
		assert_true(json_string_length(json_object_get(p, "score")) > 0);
		assert_true(json_is_false(json_object_get(p, "turn")));
		winners += json_is_true(json_object_get(p, "winner"));
	}
	assert_true(winners >= 1);
	check_log(&t, j);
	assert_true(json_object_size(json_object_get(j, "labels")) > 5);
	json_decref(j);

	/* the first board: nobody has won, somebody is to play */
	j = ask_json(f, &t, 0);
	assert_int_equal(json_integer_value(json_object_get(j, "at")), 0);
	assert_string_equal(json_string_value(json_object_get(j, "board_text")), t.board[0]);
	assert_non_null(strstr(json_string_value(json_object_get(j, "status_text")), "Waiting for"));
	players = json_object_get(j, "players");
	winners = 0;
	for (i = 0; i < 3; i++) {
		json_t *p = json_array_get(players, i);

		assert_string_equal(json_string_value(json_object_get(p, "score")), "");
		assert_true(json_is_false(json_object_get(p, "winner")));
		winners += json_is_true(json_object_get(p, "turn"));
	}
	assert_true(winners >= 1);
	json_decref(j);

	/* every position, shuffled */
	order = malloc((size_t)n * sizeof(*order));
	for (k = 0; k < n; k++)
		order[k] = k;
	rng_seed(&r, 5, 5);
	for (k = n - 1; k > 0; k--) {
		long o = (long)rng_below(&r, (uint32_t)k + 1), tmp = order[k];

		order[k] = order[o];
		order[o] = tmp;
	}
	f->web.stats.steps = 0;
	for (k = 0; k < n; k++) {
		j = ask_json(f, &t, order[k]);
		assert_string_equal(json_string_value(json_object_get(j, "board_text")),
				    t.board[order[k]]);
		json_decref(j);
	}
	/* one replay, and a jump costs fewer applies than a snapshot's span */
	assert_int_equal(f->web.stats.replays, 1);
	assert_true(f->web.stats.steps < (unsigned long)n * WEB_SNAP_EVERY);
	/* stepping forward one position at a time: one apply each, none onto
	 * a position kept as a snapshot */
	j = ask_json(f, &t, 0);
	json_decref(j);
	f->web.stats.steps = 0;
	for (k = 1; k < n; k++) {
		j = ask_json(f, &t, k);
		json_decref(j);
	}
	assert_int_equal(f->web.stats.steps, (unsigned long)(n - 1 - (n - 1) / WEB_SNAP_EVERY));
	free(order);
	{
		/* figures: a state.json at a random position, a cached game
		 * (the store read, the view, the JSON), and the view alone */
		struct web_answer a;
		struct buf err = BUF_INIT;
		char q[32];
		double t0 = now_us(), t1;
		long npos;

		web_answer_init(&a);
		for (k = 0; k < 400; k++) {
			snprintf(q, sizeof(q), "at=%u", rng_below(&r, (uint32_t)n));
			assert_int_equal(ask(f, t.token, "state.json", q, &a), 200);
		}
		t0 = (now_us() - t0) / 400;
		t1 = now_us();
		for (k = 0; k < 400; k++) {
			j = web_view(&f->web, &t.rec, "/g/x", (long)rng_below(&r, (uint32_t)n), &npos,
				     &err);
			json_decref(j);
		}
		t1 = (now_us() - t1) / 400;
		print_message("fortuna, %ld positions: state.json at a random position %.0f us "
			      "(%zu bytes), its view alone %.0f us\n", n, t0, a.body.len, t1);
		web_answer_release(&a);
		buf_release(&err);
	}
	table_free(&t);
}

/* A game watched live: each new move extends the cached game, one replay
 * in all; the page and its picture are the latest position's. */
static void test_live_extends(void **state)
{
	struct fixture *f = *state;
	struct web_answer a;
	struct table t;
	int steps = 0;

	web_answer_init(&a);
	table_open(f, &t, "builders", 2, 3, LOC_ES);
	while (steps < 30 && table_step(f, &t)) {
		json_t *j = ask_json(f, &t, -1);

		assert_int_equal(json_integer_value(json_object_get(j, "positions")), t.npos);
		assert_string_equal(json_string_value(json_object_get(j, "board_text")),
				    t.board[t.npos - 1]);
		assert_string_equal(json_string_value(json_object_get(j, "lang")), "es");
		assert_string_equal(json_string_value(json_object_get(j, "status")), "playing");
		check_log(&t, j);
		json_decref(j);
		steps++;
	}
	assert_int_equal(f->web.stats.replays, 1);
	assert_int_equal(f->web.stats.extended, steps - 1);
	/* the page: the template filled, the latest board, escaped */
	assert_int_equal(ask(f, t.token, "", "", &a), 200);
	assert_string_equal(a.type, "text/html; charset=utf-8");
	assert_non_null(strstr(buf_str(&a.body), "lang=\"es\""));
	assert_null(strstr(buf_str(&a.body), "{{"));
	{
		struct buf plain = BUF_INIT;

		/* the text board, escaped in the page */
		html_texts(buf_str(&a.body), &plain);
		assert_non_null(strstr(buf_str(&plain), t.board[t.npos - 1]));
		buf_release(&plain);
	}
	/* the picture: painted once, then kept */
	assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
	assert_string_equal(a.type, "image/png");
	assert_memory_equal(buf_str(&a.body), "\x89PNG", 4);
	assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
	assert_int_equal(f->web.stats.paints, 1);
	assert_int_equal(f->web.stats.paint_hits, 1);
	web_answer_release(&a);
	table_free(&t);
}

/* The game's status and the line of its last position: paused, then
 * abandoned; an earlier position still says who was to play. */
static void test_status(void **state)
{
	struct fixture *f = *state;
	struct room_settings rs;
	struct table t;
	json_t *j;
	int i;

	table_open(f, &t, "gtr", 3, 4, LOC_ES);
	for (i = 0; i < 5; i++)
		table_step(f, &t);
	roomset_read(&t.rec, &rs);
	rs.paused = 1;
	roomset_write(&t.rec, &rs);
	table_commit(f, &t, NULL);
	j = ask_json(f, &t, -1);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "paused");
	assert_string_equal(json_string_value(json_object_get(j, "status_text")), "En pausa");
	json_decref(j);
	t.rec.status = SESSION_ABORTED;
	table_commit(f, &t, NULL);
	j = ask_json(f, &t, -1);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "abandoned");
	assert_string_equal(json_string_value(json_object_get(j, "status_text")),
			    "Partida abandonada");
	assert_int_equal(json_integer_value(json_object_get(j, "positions")), 6);
	json_decref(j);
	j = ask_json(f, &t, 2);
	assert_non_null(strstr(json_string_value(json_object_get(j, "status_text")), "Esperando a "));
	json_decref(j);
	table_free(&t);
}

/* Pictures painted on the loop have a budget for all viewers together:
 * beyond it 503, a kept picture still served, the budget refilled with
 * time. */
static void test_paint_budget(void **state)
{
	struct fixture *f = *state;
	struct web_answer a;
	struct table t;
	char q[32];
	int i;

	web_answer_init(&a);
	table_open(f, &t, "fortuna", 2, 6, LOC_EN);
	for (i = 0; i < WEB_PAINTS_BURST + 10; i++)
		table_step(f, &t);
	assert_true(t.npos > WEB_PAINTS_BURST + 4);
	f->frozen = 1;
	for (i = 0; i < WEB_PAINTS_BURST; i++) {
		snprintf(q, sizeof(q), "at=%d", i);
		assert_int_equal(ask(f, t.token, "board.png", q, &a), 200);
	}
	snprintf(q, sizeof(q), "at=%d", WEB_PAINTS_BURST);
	assert_int_equal(ask(f, t.token, "board.png", q, &a), 503);
	assert_int_equal(f->web.stats.paints_refused, 1);
	/* the last WEB_PICS painted are kept, the older ones are not */
	for (i = WEB_PAINTS_BURST - WEB_PICS; i < WEB_PAINTS_BURST; i++) {
		snprintf(q, sizeof(q), "at=%d", i);
		assert_int_equal(ask(f, t.token, "board.png", q, &a), 200);
	}
	assert_int_equal(ask(f, t.token, "board.png", "at=0", &a), 503);
	snprintf(q, sizeof(q), "at=%d", WEB_PAINTS_BURST);
	assert_int_equal(ask(f, t.token, "state.json", q, &a), 200);	/* no picture */
	f->ms += 1000 / WEB_PAINTS_PER_S + 1;
	assert_int_equal(ask(f, t.token, "board.png", q, &a), 200);
	snprintf(q, sizeof(q), "at=%d", WEB_PAINTS_BURST + 1);
	assert_int_equal(ask(f, t.token, "board.png", q, &a), 503);
	assert_int_equal(f->web.stats.paints, WEB_PAINTS_BURST + 1);
	assert_int_equal(f->web.stats.paint_hits, WEB_PICS);
	web_answer_release(&a);
	table_free(&t);
}

/* A move that someone watches has its new latest picture painted off the
 * loop and kept: the viewers' board.png paints nothing on the loop; a
 * picture overtaken by a newer commit is not kept. */
static void test_prepaint(void **state)
{
	struct fixture *f = *state;
	struct web_answer a;
	struct buf err = BUF_INIT;
	char token[STORE_WEB_TOKEN_MAX];
	struct session *s;

	web_answer_init(&a);
	f->web.paint = take_job;
	f->web.paint_ctx = f;
	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = session_mgr_find(&f->mgr, "console", "r1", &err);
	assert_int_equal(store_web_reset(f->store, s->rec.id, token, sizeof(token), &err), 0);
	assert_int_equal(f->njobs, 0);
	assert_int_equal(ask(f, token, "state.json", "", &a), 200);	/* a viewer */

	capture_cmd(f->cap, "r1", "ana", "play 1");
	assert_int_equal(f->njobs, 1);
	run_job(f, 0);
	assert_int_equal(f->web.stats.prepaints_kept, 1);
	assert_int_equal(ask(f, token, "board.png", "", &a), 200);
	assert_memory_equal(buf_str(&a.body), "\x89PNG", 4);
	assert_int_equal(f->web.stats.paints, 0);
	assert_int_equal(f->web.stats.paint_hits, 1);

	/* two moves, their pictures back in the wrong order: the newer kept */
	capture_cmd(f->cap, "r1", "ana", "play 1");
	capture_cmd(f->cap, "r1", "ana", "play 1");
	assert_int_equal(f->njobs, 3);
	run_job(f, 2);
	run_job(f, 1);
	assert_int_equal(f->web.stats.prepaints_kept, 2);
	assert_int_equal(ask(f, token, "board.png", "", &a), 200);
	assert_int_equal(f->web.stats.paints, 0);
	assert_int_equal(f->web.stats.paint_hits, 2);
	web_answer_release(&a);
	buf_release(&err);
}

/* ---- bad requests ---- */

static void test_bad_at_and_not_found(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = { "at=-1", "at=x", "at=", "at=1e3", "at=99999",
					   "at=1234567890123", "at=+1", "at=0x1" };
	struct web_answer a, b, nf;
	struct table t, off;
	char other[STORE_WEB_TOKEN_MAX + 8], *before;
	size_t i;

	web_answer_init(&a);
	web_answer_init(&b);
	web_answer_init(&nf);
	table_open(f, &t, "sylla", 3, 8, LOC_EN);
	for (i = 0; i < 12; i++)
		table_step(f, &t);
	assert_int_equal(ask(f, t.token, "state.json", "", &b), 200);
	before = strdup(buf_str(&b.body));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ask(f, t.token, "state.json", bad[i], &a), 400);
		assert_non_null(strstr(buf_str(&a.body), "Bad request"));
		assert_true(a.body.len < 100);
		assert_int_equal(ask(f, t.token, "board.png", bad[i], &a), 400);
	}
	/* the last position is fine, one more is not; nothing changed */
	assert_int_equal(ask(f, t.token, "state.json", "at=12", &a), 200);
	assert_int_equal(ask(f, t.token, "state.json", "at=13", &a), 400);
	assert_int_equal(ask(f, t.token, "state.json", "x=1&at=3&y", &a), 200);
	assert_int_equal(ask(f, t.token, "state.json", "", &b), 200);
	assert_string_equal(buf_str(&b.body), before);
	free(before);

	/* 404, one body for every case */
	assert_int_equal(ask(f, "AAAAAAAAAAAAAAAAAAAAAAAAAA", "", "", &nf), 404);
	snprintf(other, sizeof(other), "%s", t.token);
	other[0] = other[0] == 'A' ? 'B' : 'A';
	assert_int_equal(ask(f, other, "state.json", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_int_equal(ask(f, "short", "", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_int_equal(ask(f, "bad/../token!!!!!!!!!!!!!!!!!!!", "", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_int_equal(ask(f, t.token, "nothing", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_int_equal(ask(f, t.token, "state.json/x", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));

	/* a page turned off: the same 404, also for its events */
	table_open(f, &off, "gtr", 2, 9, LOC_EN);
	snprintf(off.rec.settings, sizeof(off.rec.settings), "{\"web\": false, \"rules\": %u}",
		 off.ops->rules_version ? off.ops->rules_version : 1);
	table_step(f, &off);
	assert_false(web_enabled(&off.rec));
	assert_int_equal(ask(f, off.token, "", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_int_equal(ask(f, off.token, "state.json", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_int_equal(ask(f, off.token, "events", "", &a), 404);
	assert_string_equal(buf_str(&a.body), buf_str(&nf.body));
	assert_string_equal(a.stream, "");

	/* the events of a page that is on */
	assert_int_equal(ask(f, t.token, "events", "", &a), 200);
	assert_string_equal(a.type, "text/event-stream");
	assert_string_equal(buf_str(&a.body), "retry: 5000\n\n");
	snprintf(other, sizeof(other), "g:%lld", (long long)t.rec.id);
	assert_string_equal(a.stream, other);

	/* static files: the stylesheet and the script, never the template */
	web_answer_release(&a);
	web_answer_init(&a);
	web_static_answer("page.css", &a);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.type, "text/css; charset=utf-8");
	assert_int_equal(a.cache_seconds, WEB_STATIC_MAX_AGE);
	web_answer_release(&a);
	web_answer_init(&a);
	web_static_answer("page.js", &a);
	assert_int_equal(a.status, 200);
	web_answer_release(&a);
	web_answer_init(&a);
	web_static_answer("page.html", &a);
	assert_int_equal(a.status, 404);
	web_answer_release(&a);
	web_answer_init(&a);
	web_static_answer("../bot/web.c", &a);
	assert_int_equal(a.status, 404);

	web_answer_release(&a);
	web_answer_release(&b);
	web_answer_release(&nf);
	table_free(&t);
	table_free(&off);
}

/* ---- events ---- */

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* Every accepted move of a game played through the manager publishes the
 * new number of positions to its topic; the link's reset ends the
 * streams. */
static void test_moves_publish(void **state)
{
	struct fixture *f = *state;
	struct session *s;
	struct buf err = BUF_INIT;
	char topic[64], want[128];
	const char *last;
	int guard = 0;

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	assert_int_equal(f->events.len, 0);	/* a lobby has no page */
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = session_mgr_find(&f->mgr, "console", "r1", &err);
	assert_non_null(s);
	snprintf(topic, sizeof(topic), "g:%lld|event: move\ndata: {\"positions\":",
		 (long long)s->rec.id);
	assert_int_equal(count(buf_str(&f->events), topic), 1);
	while (s->rec.status == SESSION_ACTIVE && guard++ < 3) {
		int before = count(buf_str(&f->events), topic);

		capture_cmd(f->cap, "r1", "ana", "play 1");
		s = session_mgr_find(&f->mgr, "console", "r1", &err);
		assert_int_equal(count(buf_str(&f->events), topic), before + 1);
		snprintf(want, sizeof(want), "%s%lld}\n\n", topic, (long long)s->last_seq + 1);
		last = strstr(buf_str(&f->events), want);
		assert_non_null(last);
		assert_int_equal(strlen(last), strlen(want));	/* the last event */
	}
	/* a command that changes no board publishes nothing */
	buf_reset(&f->events);
	capture_cmd(f->cap, "r1", "zed", "board");
	assert_int_equal(f->events.len, 0);
	/* the link reset: the viewers are told, and their streams end */
	web_gone(&f->mgr, s->rec.id);
	snprintf(want, sizeof(want), "g:%lld|event: gone\ndata: {}\n\n", (long long)s->rec.id);
	assert_string_equal(buf_str(&f->closed), want);
	buf_release(&err);
}

/* ---- what other processes commit ---- */

static unsigned fake_streams(void *ctx, const char *topic)
{
	struct fixture *f = ctx;

	return (unsigned)f->streams;
}

static void fake_timer(void *ctx, int on)
{
	struct fixture *f = ctx;

	f->timer = on;
	f->timer_calls++;
}

/* An undo back to position 1 by "another process": straight to the store, so the
 * manager's commit hook (web_committed) never hears of it. */
static void elsewhere_undo_to_1(struct fixture *f, struct table *t)
{
	struct store_commit c;
	struct buf err = BUF_INIT;

	t->rec.version++;
	memset(&c, 0, sizeof(c));
	c.session = &t->rec;
	c.truncate = 1;
	c.truncate_after = 1;
	if (store_commit(f->store, &c, &err))
		fail_msg("commit: %s", buf_str(&err));
	buf_release(&err);
}

static long positions_of(struct fixture *f, const struct table *t)
{
	json_t *j = ask_json(f, t, -1);
	long n = (long)json_integer_value(json_object_get(j, "positions"));

	json_decref(j);
	return n;
}

/*
 * The table's moves are committed to the store, not through this
 * manager: what a viewer of this process sees of a game another process
 * plays.  The timer runs only while a stream is open; each tick is one
 * store read; a move, an undo, a reset link, a page turned off reach the
 * viewers; the replay cache and its pictures follow the store.
 */
static void test_watch_other_process(void **state)
{
	struct fixture *f = *state;
	struct web_answer a;
	struct table t;
	struct room_settings rs;
	char want[160], old[STORE_WEB_TOKEN_MAX];
	struct buf err = BUF_INIT;
	unsigned long reads;
	char *p1;
	size_t p1len;

	web_answer_init(&a);
	f->web.watch_shared = 1;
	f->web.streams = fake_streams;
	f->web.watch_timer = fake_timer;
	f->web.watch_ctx = f;
	table_open(f, &t, "builders", 2, 5, LOC_EN);
	table_step(f, &t);
	/* nobody watches: no timer, and a tick reads nothing */
	web_watch_tick(&f->web);
	assert_int_equal(f->web.stats.watch_reads, 0);
	assert_int_equal(f->timer, 0);
	assert_int_equal(positions_of(f, &t), 2);
	assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
	p1len = a.body.len;
	p1 = malloc(p1len);
	memcpy(p1, a.body.s, p1len);

	/* a stream opens: the timer starts; nothing changed, nothing told */
	assert_int_equal(ask(f, t.token, "events", "", &a), 200);
	f->streams = 1;
	assert_int_equal(f->timer, 1);
	assert_int_equal(web_watch_count(&f->web), 1);
	web_watch_tick(&f->web);
	assert_int_equal(f->web.stats.watch_reads, 1);
	assert_int_equal(f->events.len, 0);

	/* a move elsewhere: told once */
	table_step(f, &t);
	web_watch_tick(&f->web);
	snprintf(want, sizeof(want), "g:%lld|event: move\ndata: {\"positions\":3}\n\n",
		 (long long)t.rec.id);
	assert_string_equal(buf_str(&f->events), want);
	web_watch_tick(&f->web);
	assert_string_equal(buf_str(&f->events), want);
	/* the replay cache follows the store: the page shows it, and the
	 * latest picture is of the new position */
	assert_int_equal(positions_of(f, &t), 3);
	assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
	assert_int_equal(f->web.stats.paints, 2);
	/* on until the picture differs (a move may change no public board) */
	while (a.body.len == p1len && !memcmp(a.body.s, p1, p1len) && t.npos < 12) {
		table_step(f, &t);
		assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
	}
	assert_true(a.body.len != p1len || memcmp(a.body.s, p1, p1len));

	/* an undo elsewhere: the page goes back, and so does its picture;
	 * viewers told */
	elsewhere_undo_to_1(f, &t);
	buf_reset(&f->events);
	web_watch_tick(&f->web);
	snprintf(want, sizeof(want), "g:%lld|event: move\ndata: {\"positions\":2}\n\n",
		 (long long)t.rec.id);
	assert_string_equal(buf_str(&f->events), want);
	assert_int_equal(positions_of(f, &t), 2);
	assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
	assert_int_equal(a.body.len, p1len);
	assert_memory_equal(a.body.s, p1, p1len);

	/* a commit that changes no board (a stored setting): not told */
	buf_reset(&f->events);
	roomset_read(&t.rec, &rs);
	rs.reminded = 1;
	roomset_write(&t.rec, &rs);
	table_commit(f, &t, NULL);
	web_watch_tick(&f->web);
	assert_int_equal(f->events.len, 0);

	/* the link reset elsewhere: gone, the watch ends */
	snprintf(old, sizeof(old), "%s", t.token);
	assert_int_equal(store_web_reset(f->store, t.rec.id, t.token, sizeof(t.token), &err), 0);
	web_watch_tick(&f->web);
	snprintf(want, sizeof(want), "g:%lld|event: gone\ndata: {}\n\n", (long long)t.rec.id);
	assert_string_equal(buf_str(&f->closed), want);
	assert_int_equal(web_watch_count(&f->web), 0);
	assert_int_equal(ask(f, old, "state.json", "", &a), 404);

	/* a stream of the new link; the link reset again elsewhere and a
	 * viewer of the newest link comes before the tick: the streams of
	 * the old one end at once */
	buf_reset(&f->closed);
	assert_int_equal(ask(f, t.token, "events", "", &a), 200);
	assert_int_equal(store_web_reset(f->store, t.rec.id, t.token, sizeof(t.token), &err), 0);
	assert_int_equal(ask(f, t.token, "events", "", &a), 200);
	assert_string_equal(buf_str(&f->closed), want);
	assert_int_equal(web_watch_count(&f->web), 1);

	/* the page turned off elsewhere: gone */
	buf_reset(&f->closed);
	roomset_read(&t.rec, &rs);
	rs.web = 0;
	roomset_write(&t.rec, &rs);
	table_commit(f, &t, NULL);
	web_watch_tick(&f->web);
	assert_string_equal(buf_str(&f->closed), want);
	assert_int_equal(web_watch_count(&f->web), 0);

	/* on again, watched, then the viewer leaves: the watch goes, the
	 * timer stops, no more reads */
	rs.web = 1;
	roomset_write(&t.rec, &rs);
	table_commit(f, &t, NULL);
	assert_int_equal(ask(f, t.token, "events", "", &a), 200);
	assert_int_equal(f->timer, 1);
	f->streams = 0;
	reads = f->web.stats.watch_reads;
	web_watch_tick(&f->web);
	assert_int_equal(f->timer, 0);
	assert_int_equal(web_watch_count(&f->web), 0);
	web_watch_tick(&f->web);
	assert_int_equal(f->web.stats.watch_reads, reads);
	web_answer_release(&a);
	buf_release(&err);
	free(p1);
	table_free(&t);
}

/* A store this process has alone: every commit goes through the hook,
 * nothing is watched. */
static void test_watch_not_shared(void **state)
{
	struct fixture *f = *state;
	struct web_answer a;
	struct table t;

	web_answer_init(&a);
	f->web.streams = fake_streams;
	f->web.watch_timer = fake_timer;
	f->web.watch_ctx = f;
	f->streams = 1;
	table_open(f, &t, "builders", 2, 5, LOC_EN);
	assert_int_equal(ask(f, t.token, "events", "", &a), 200);
	assert_int_equal(web_watch_count(&f->web), 0);
	assert_int_equal(f->timer_calls, 0);
	web_answer_release(&a);
	table_free(&t);
}

/* ---- over HTTP ---- */

struct http {
	uv_loop_t loop;
	struct httpd *srv;
	int gone;
};

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int dial(struct http *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	a.sin_port = htons((uint16_t)httpd_port(h->srv));
	a.sin_addr.s_addr = htonl(0x7f000001);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/* Reads into out while the loop turns, until want is in it (when not
 * NULL), the peer closes, or ms pass; 1 when the peer closed. */
static int hear(struct http *h, int fd, struct buf *out, const char *want, int ms)
{
	double end = ms_now() + ms;
	char b[65536];
	ssize_t n;

	while (ms_now() < end) {
		uv_run(&h->loop, UV_RUN_NOWAIT);
		n = read(fd, b, sizeof(b));
		if (n > 0) {
			buf_add(out, b, (size_t)n);
			if (want && strstr(buf_str(out), want))
				return 0;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return 1;
		usleep(300);
	}
	return 0;
}

static int http_get(struct http *h, const char *path, struct buf *out)
{
	char req[512];
	int fd = dial(h), status = 0;
	ssize_t n;

	buf_reset(out);
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		     path);
	assert_int_equal(write(fd, req, (size_t)n), n);
	assert_int_equal(hear(h, fd, out, NULL, 5000), 1);
	close(fd);
	sscanf(buf_str(out), "HTTP/1.1 %d", &status);
	return status;
}

/* The routes on a real listener: the page, its JSON, a static file, and
 * an event stream that hears a move made through the manager, then its
 * end when the link is reset. */
static void test_over_http(void **state)
{
	struct fixture *f = *state;
	struct http h = { 0 };
	struct buf err = BUF_INIT, out = BUF_INIT, ev = BUF_INIT;
	char token[STORE_WEB_TOKEN_MAX], path[128], req[256];
	struct session *s;
	double end;
	int fd;
	ssize_t n;

	assert_int_equal(uv_loop_init(&h.loop), 0);
	h.srv = httpd_new(&h.loop, "127.0.0.1:0", 0, &h.gone, &err);
	assert_non_null(h.srv);
	assert_int_equal(web_attach(&f->web, h.srv, &err), 0);
	assert_int_equal(weblink_set_base(&f->mgr, "http://127.0.0.1:1", &err), 0);

	capture_cmd(f->cap, "r1", "ana", "game new fortuna");
	capture_cmd(f->cap, "r1", "ana", "game addbot 2");
	capture_cmd(f->cap, "r1", "ana", "game start");
	s = session_mgr_find(&f->mgr, "console", "r1", &err);
	assert_non_null(s);
	assert_int_equal(store_web_get(f->store, s->rec.id, token, sizeof(token), &err), 0);
	assert_true(strlen(token) >= WEB_TOKEN_MIN);

	snprintf(path, sizeof(path), "/g/%s", token);
	assert_int_equal(http_get(&h, path, &out), 200);
	assert_non_null(strstr(buf_str(&out), "content-type: text/html; charset=utf-8\r\n"));
	assert_non_null(strstr(buf_str(&out), "cache-control: no-store\r\n"));
	assert_non_null(strstr(buf_str(&out), "x-robots-tag: noindex"));
	snprintf(path, sizeof(path), "/g/%s/state.json?at=0", token);
	assert_int_equal(http_get(&h, path, &out), 200);
	assert_non_null(strstr(buf_str(&out), "\"at\":0,"));
	snprintf(path, sizeof(path), "/g/%s/state.json?at=zz", token);
	assert_int_equal(http_get(&h, path, &out), 400);
	assert_int_equal(http_get(&h, "/g/AAAAAAAAAAAAAAAAAAAAAAAAAA/state.json", &out), 404);
	assert_int_equal(http_get(&h, "/static/page.css", &out), 200);
	assert_non_null(strstr(buf_str(&out), "cache-control: public, max-age=3600\r\n"));
	assert_int_equal(http_get(&h, "/static/page.html", &out), 404);

	/* a viewer's stream: a move reaches it, then the reset ends it */
	fd = dial(&h);
	n = snprintf(req, sizeof(req), "GET /g/%s/events HTTP/1.1\r\nHost: x\r\n\r\n", token);
	assert_int_equal(write(fd, req, (size_t)n), n);
	assert_int_equal(hear(&h, fd, &ev, "retry: 5000\n\n", 3000), 0);
	assert_non_null(strstr(buf_str(&ev), "content-type: text/event-stream"));
	capture_cmd(f->cap, "r1", "ana", "play 1");
	s = session_mgr_find(&f->mgr, "console", "r1", &err);
	snprintf(req, sizeof(req), "event: move\ndata: {\"positions\":%lld}\n\n",
		 (long long)s->last_seq + 1);
	assert_int_equal(hear(&h, fd, &ev, req, 3000), 0);
	capture_cmd(f->cap, "r1", "ana", "game web reset");
	assert_int_equal(hear(&h, fd, &ev, "event: gone\ndata: {}\n\n", 3000), 0);
	assert_int_equal(hear(&h, fd, &ev, NULL, 3000), 1);	/* and the stream ends */
	close(fd);
	snprintf(path, sizeof(path), "/g/%s", token);
	assert_int_equal(http_get(&h, path, &out), 404);	/* the old link */

	f->web.publish = NULL;	/* the server goes first */
	f->web.close_topic = NULL;
	httpd_free(h.srv);
	end = ms_now() + 5000;
	while (!h.gone && ms_now() < end)
		uv_run(&h.loop, UV_RUN_NOWAIT);
	assert_true(h.gone);
	uv_run(&h.loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&h.loop), 0);
	buf_release(&err);
	buf_release(&out);
	buf_release(&ev);
}

/* ---- the secrets scan ---- */

/* Whether some secret of the position shows somewhere a seat may see it:
 * a hand, or a public line later in the game (the scan can fail). */
static int secrets_seen(const struct table *t, long at)
{
	char *s = leak(t->secrets[at], t->priv[at]);
	size_t i;

	for (i = 0; !s && i < t->nlog; i++)
		if (t->log[i].at > at)
			s = leak(t->secrets[at], t->log[i].text);
	free(s);
	return s != NULL;
}

/* A figure: the latest view of t with nothing cached (a replay of the
 * whole game), in microseconds. */
static double cold_us(struct fixture *f, const struct table *t)
{
	struct session_mgr keep = f->mgr;
	struct buf err = BUF_INIT;
	struct web cold;
	long npos;
	json_t *j;
	double t0;

	web_init(&cold, &f->mgr);
	t0 = now_us();
	j = web_view(&cold, &t->rec, "/g/x", -1, &npos, &err);
	t0 = now_us() - t0;
	assert_non_null(j);
	assert_int_equal(npos, t->npos);
	json_decref(j);
	web_release(&cold);
	f->mgr.web = keep.web;	/* the fixture's pages again */
	f->mgr.web_gone = keep.web_gone;
	f->mgr.web_gone_ctx = keep.web_gone_ctx;
	buf_release(&err);
	return t0;
}

static void scan_game(struct fixture *f, const char *game, int nseats, uint64_t seed,
		      enum locale loc)
{
	struct web_answer a;
	struct table t;
	struct buf texts = BUF_INIT, err = BUF_INIT;
	json_t *j;
	long k, seen = 0, pngs = 0;
	double t0, cold;
	unsigned long replays = f->web.stats.replays;

	web_answer_init(&a);
	table_open(f, &t, game, nseats, seed, loc);
	/* live: at each new position the page, the latest state.json (the
	 * whole log so far) and, now and then, the painted picture */
	do {
		k = t.npos - 1;
		assert_int_equal(ask(f, t.token, "", "", &a), 200);
		html_texts(buf_str(&a.body), &texts);
		no_leak(&t, k, "page", buf_str(&texts));
		j = ask_json(f, &t, -1);
		buf_reset(&texts);
		json_texts(j, &texts);
		no_leak(&t, k, "state.json", buf_str(&texts));
		check_log(&t, j);	/* the public lines so far, nothing else */
		json_decref(j);
		if (k % 25 == 0 || !t.ops->awaiting(t.st)) {
			char *d;

			assert_int_equal(ask(f, t.token, "board.png", "", &a), 200);
			d = png_description((const unsigned char *)a.body.s, a.body.len);
			assert_non_null(d);
			no_leak(&t, k, "picture", d);
			free(d);
			pngs++;
		}
	} while (table_step(f, &t));
	assert_string_equal(t.rec.status == SESSION_FINISHED ? "over" : "not", "over");
	/* afterwards: every position replayed, its JSON and its picture */
	t0 = now_us();
	for (k = 0; k < t.npos; k++) {
		struct scene sc;

		j = ask_json(f, &t, k);
		assert_string_equal(json_string_value(json_object_get(j, "board_text")), t.board[k]);
		buf_reset(&texts);
		json_texts(j, &texts);
		no_leak(&t, k, "state.json", buf_str(&texts));
		json_decref(j);
		scene_init(&sc);
		if (web_scene(&f->web, &t.rec, k, &sc, &err))
			fail_msg("%s position %ld: no scene: %s", game, k, buf_str(&err));
		buf_reset(&texts);
		scene_texts(&sc, &texts);
		no_leak(&t, k, "picture", buf_str(&texts));
		scene_release(&sc);
		seen += secrets_seen(&t, k);
	}
	t0 = now_us() - t0;
	cold = cold_us(f, &t);
	/* the scan could have failed: secrets there were, and seen elsewhere */
	if (!seen)
		fail_msg("%s: no secret was ever seen in a hand or a later line", game);
	assert_int_equal(f->web.stats.replays, replays + 1);
	print_message("%s: %ld positions, %ld with secrets seen elsewhere, %ld pictures; "
		      "a position's JSON and scene %.0f us, a replay of the whole game %.0f us\n",
		      game, t.npos, seen, pngs, t0 / (double)t.npos, cold);
	web_answer_release(&a);
	buf_release(&texts);
	buf_release(&err);
	table_free(&t);
}

static void test_secrets_scan_all_games(void **state)
{
	struct fixture *f = *state;
	const struct game_ops *const *g;
	int n = 0;

	for (g = game_all(); *g; g++, n++) {
		int seats = (*g)->min_players > 3 ? (*g)->min_players
			    : (*g)->max_players < 3 ? (*g)->max_players : 3;

		scan_game(f, (*g)->id, seats, 1000 + (uint64_t)n, n % 2 ? LOC_ES : LOC_EN);
	}
	assert_int_equal(n, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_view_positions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_extends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paint_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepaint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_at_and_not_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moves_publish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_other_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_not_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_http, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_scan_all_games, setup, teardown),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	paint_cleanup();	/* the fonts' caches: no leak to report */
	return rc;
}
