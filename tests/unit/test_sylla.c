/*
 * Sylla: scenario tests against the rulebook (Ystari's Spanish "Sylla",
 * 002_e1ea23d6d5c38f8f.txt in ../shared/seeds/), with guide/games.md's
 * reconstruction and docs/games/sylla.md's rulings.
 *
 * Positions are built through games/sylla/sylla.h (sylla_give_char,
 * sylla_give_zone, sylla_give_tokens, sylla_set_money, sylla_set_event,
 * sylla_set_turn, sylla_start_phase), which keep every piece accounted
 * for; check() runs after every move.  Moves are picked from sylla_moves()
 * by kind and arguments (MV) and applied with sylla_apply(); a missing
 * move fails with the seat's ids.  Every expectation names the seed's
 * words (or the ruling) it checks.
 *
 * Seats: the seed's example is played by Azul, Rojo, Blanco and Negro in
 * that clockwise order: seats 0..3 here (Blue, Red, White, Black).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/sylla/sylla.h"
#include "util/text.h"

enum { BLUE, RED, WHITE, BLACK };

static const char *const names[] = { "Blue", "Red", "White", "Black" };

#define ANY (-1)

/* ---- helpers ---- */

/* Every move is logged here (public lines plain, private ones "[seat] ");
 * tests reset it and read what happened. */
static struct buf logbuf;
static int public_lines;

static void emit(struct game_log *log, int seat, const char *text)
{
	(void)log;
	if (seat < 0) {
		buf_printf(&logbuf, "%s\n", text);
		public_lines++;
	} else {
		buf_printf(&logbuf, "[%d] %s\n", seat, text);
	}
}

static struct game_log cap_log = { LOC_EN, names, emit, NULL };

static void clear_log(void)
{
	buf_reset(&logbuf);
	public_lines = 0;
}

static int logged(const char *text)
{
	return strstr(buf_str(&logbuf), text) != NULL;
}

#define LOGGED(t) do { if (!logged(t)) fail_msg("line %d: not logged: \"%s\"\nlog:\n%s", __LINE__, t, buf_str(&logbuf)); } while (0)
/* in a public line (private lines start with "[seat] ") */
static int logged_public(const char *text)
{
	const char *p = buf_str(&logbuf), *q;

	while ((q = strstr(p, text))) {
		const char *bol = q;

		while (bol > buf_str(&logbuf) && bol[-1] != '\n')
			bol--;
		if (*bol != '[')
			return 1;
		p = q + 1;
	}
	return 0;
}

#define NOT_LOGGED(t) do { if (logged_public(t)) fail_msg("line %d: logged in public: \"%s\"\nlog:\n%s", __LINE__, t, buf_str(&logbuf)); } while (0)

static void check_ok(const struct sylla_state *s)
{
	struct buf err = BUF_INIT;

	if (sylla_check(s, &err))
		fail_msg("invariant broken: %s", buf_str(&err));
	buf_release(&err);
}

static void ids(const struct sylla_state *s, int seat, struct buf *out)
{
	struct move_list ml;
	int i;

	sylla_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		buf_printf(out, "  [%d %d %d] ", ml.v[i].kind, ml.v[i].a, ml.v[i].b);
		sylla_move_id(s, seat, ml.v[i], out);
		buf_addch(out, '\n');
	}
}

static int find(const struct sylla_state *s, int seat, int kind, int a, int b, struct move *out)
{
	struct move_list ml;
	int i;

	if (!(sylla_awaiting(s) & (1u << seat)))
		return 0;
	sylla_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++)
		if (ml.v[i].kind == kind && (a == ANY || ml.v[i].a == a) && (b == ANY || ml.v[i].b == b)) {
			if (out)
				*out = ml.v[i];
			return 1;
		}
	return 0;
}

#define CAN(s, seat, kind, a, b) find(s, seat, kind, a, b, NULL)
#define MV(s, seat, kind, a, b) mv_at(s, seat, kind, a, b, __LINE__)

static void mv_at(struct sylla_state *s, int seat, int kind, int a, int b, int line)
{
	struct move m;
	struct buf err = BUF_INIT, list = BUF_INIT;

	if (!find(s, seat, kind, a, b, &m)) {
		ids(s, seat, &list);
		fail_msg("line %d: seat %d (awaiting %#x, step %s) has no move [%d %d %d]; its moves:\n%s",
			 line, seat, sylla_awaiting(s), sylla_step_ids[s->step], kind, a, b, buf_str(&list));
	}
	if (sylla_apply(s, seat, m, &cap_log, &err))
		fail_msg("line %d: move refused: %s", line, buf_str(&err));
	check_ok(s);
	buf_release(&err);
	buf_release(&list);
}

/* A 4-player (or 3-player) game just set up; nothing chosen yet. */
static void fresh(struct sylla_state *s, int n, uint64_t seed)
{
	struct buf err = BUF_INIT;

	memset(s, 0, sizeof(*s));
	if (sylla_setup(s, n, seed, "", &err))
		fail_msg("setup: %s", buf_str(&err));
	check_ok(s);
	buf_release(&err);
}

/* Seats choose the first cards of their sets (k 0.. in `pick` order),
 * confirm: the game then waits for the first election. */
static void choose_all(struct sylla_state *s, const uint16_t *masks)
{
	int i, k;

	for (i = 0; i < s->nplayers; i++) {
		for (k = 0; k < SY_PER_SET; k++)
			if ((masks[i] >> k) & 1)
				MV(s, i, SM_PICK, k, ANY);
		MV(s, i, SM_CONFIRM, ANY, ANY);
	}
}

/* A game in turn 1 with no characters for anybody: every card back in the
 * deck, money 0, the First Consul `fc`; tests then give what they need. */
static void bare(struct sylla_state *s, int n, int fc)
{
	static const uint16_t m[4] = { 0x00f, 0x00f, 0x00f, 0x00f };
	static const uint16_t m3[4] = { 0x03f, 0x03f, 0x03f, 0 };
	int i, c;

	fresh(s, n, 42);
	choose_all(s, n == 3 ? m3 : m);
	/* everything back to the deck, money to the bank */
	for (i = 0; i < n; i++) {
		for (c = 0; c < SY_CHARS; c++)
			if ((s->own[i] >> c) & 1) {
				s->own[i] &= ~(1ULL << c);
				memmove(s->deck + 1, s->deck, s->ndeck);
				s->deck[0] = (uint8_t)c;
				s->ndeck++;
			}
		s->p[i].money = 0;
	}
	/* a fresh election nobody can bid in: the First Consul's token waits */
	sylla_start_phase(s, SP_CONSUL, fc, NULL);
	clear_log();
	check_ok(s);
}

/* Character of set `set`, card k. */
static int card(int set, int k)
{
	return set * SY_PER_SET + k;
}

/* Public board as plain text, in English. */
static void board(const struct sylla_state *s, struct buf *out)
{
	struct game_view v = { LOC_EN, s->nplayers, names };
	struct rich r = RICH_INIT;

	buf_reset(out);
	sylla_render_public(s, &v, &r);
	rich_to_plain(&r, out);
	rich_release(&r);
}

/* No secret line appears in the public board nor in the public log lines. */
static void no_secret_public(const struct sylla_state *s, int line)
{
	struct buf sec = BUF_INIT, pub = BUF_INIT, pubLog = BUF_INIT;
	const char *p, *q;
	int l;

	/* public log lines only */
	for (p = buf_str(&logbuf); *p;) {
		q = strchr(p, '\n');
		if (*p != '[')
			buf_add(&pubLog, p, q ? (size_t)(q - p + 1) : strlen(p));
		p = q ? q + 1 : p + strlen(p);
	}
	for (l = 0; l < LOC_COUNT; l++) {
		struct game_view v = { (enum locale)l, s->nplayers, names };
		struct rich r = RICH_INIT;

		buf_reset(&pub);
		buf_reset(&sec);
		sylla_render_public(s, &v, &r);
		rich_to_plain(&r, &pub);
		rich_release(&r);
		sylla_secrets(s, (enum locale)l, &sec);
		for (p = buf_str(&sec); *p;) {
			size_t k;
			char *needle;

			q = strchr(p, '\n');
			k = q ? (size_t)(q - p) : strlen(p);
			needle = strndup(p, k);
			if (k && strstr(buf_str(&pub), needle))
				fail_msg("line %d: secret \"%s\" on the board:\n%s", line, needle, buf_str(&pub));
			if (k && l == LOC_EN && strstr(buf_str(&pubLog), needle))
				fail_msg("line %d: secret \"%s\" in a public log line:\n%s", line, needle,
					 buf_str(&pubLog));
			free(needle);
			p += k + (q ? 1 : 0);
		}
	}
	buf_release(&sec);
	buf_release(&pub);
	buf_release(&pubLog);
}

static int prestige(const struct sylla_state *s, int seat)
{
	return s->p[seat].prestige;
}

static int tokens(const struct sylla_state *s, int seat)
{
	return s->p[seat].tok[0] + s->p[seat].tok[1] + s->p[seat].tok[2];
}

/* Makes a work the one of this turn. */
static void set_work(struct sylla_state *s, int w)
{
	int i;

	for (i = 0; i < SG_COUNT; i++)
		if (s->works[i] == w) {
			s->works[i] = s->works[s->turn];
			s->works[s->turn] = (uint8_t)w;
			return;
		}
}

/* A seat votes: thumb, then its denarii (when it has any), then confirms. */
static void vote(struct sylla_state *s, int seat, int up, int denarii)
{
	MV(s, seat, SM_THUMB, up, ANY);
	if (s->p[seat].money)
		MV(s, seat, SM_GIVE, denarii, ANY);
	MV(s, seat, SM_CONFIRM, ANY, ANY);
}

/* The events phase with no cubes at all: every event is tied at 0 and the
 * First Consul picks the two avoided.  Leaves the first occurring event
 * resolved up to its secret step if it has one. */
static void events_avoiding(struct sylla_state *s, int a, int b)
{
	sylla_start_phase(s, SP_EVENTS, s->fc, &cap_log);
	check_ok(s);
	MV(s, s->fc, SM_AVOID, a, ANY);
	MV(s, s->fc, SM_AVOID, b, ANY);
}

/* ---- setup ---- */

static void test_setup(void **state)
{
	struct sylla_state s;
	int i, n;

	(void)state;
	for (n = 3; n <= 4; n++) {
		int first = -1, sets = 0;

		fresh(&s, n, 7);
		/* "Cada jugador recibe una de las 4 losetas de Ingresos ... al azar";
		 * with 3 players tiles I-III (ruling) */
		for (i = 0; i < n; i++) {
			sets |= 1 << s.p[i].set;
			if (s.p[i].set == 0)
				first = i;
			assert_int_equal(s.p[i].prestige, 10);	/* "en el "10" de la escala" */
			assert_int_equal(s.p[i].money, 0);
		}
		assert_int_equal(sets, (1 << n) - 1);
		/* "El jugador que tenga la tarjeta de Ingresos con un I será el Primer Cónsul" */
		assert_int_equal(s.fc, first);
		/* "Las 6 primeras losetas con la letra A se colocan boca arriba" */
		for (i = 0; i < SY_ROW; i++)
			assert_int_equal(sylla_tiles[s.tiles[i]].letter, 0);
		assert_int_equal(s.nstack, SY_TILES - SY_ROW);
		/* "La carta Evento de la Decadencia se coloca en su sitio" + three face up */
		assert_int_equal(s.ev_row[3], SE_DECADENCE);
		assert_int_equal(s.nev_deck, 6);
		/* markers in the centre, famine at 0, tokens beside the board */
		for (i = 0; i < ST_COUNT; i++) {
			assert_int_equal(s.track[i], SY_TRACK_START);
			assert_int_equal(s.supply[i], 39);
		}
		assert_int_equal(s.famine, 0);
		assert_int_equal(s.known, 1);	/* the removed Great Work and the first */
		/* everybody chooses at once: all awaited */
		assert_int_equal(sylla_awaiting(&s), (1u << n) - 1);
		assert_int_equal(s.step, SS_PICK);
	}
}

/* "3 denarios más 1 denario por Comerciante"; the rest shuffled, 6 shown. */
static void test_first_choice_and_money(void **state)
{
	/* both Merchants; one; none; both */
	const uint16_t m[4] = { 0x00f, 0x017, 0x0f0, 0x30c };
	struct sylla_state s;
	int i;

	(void)state;
	fresh(&s, 4, 3);
	choose_all(&s, m);
	assert_int_equal(s.p[0].money, 5);
	assert_int_equal(s.p[1].money, 4);
	assert_int_equal(s.p[2].money, 3);
	assert_int_equal(s.p[3].money, 5);
	for (i = 0; i < 4; i++)
		assert_int_equal(__builtin_popcountll(s.own[i]), 4);
	assert_int_equal(s.ndeck + 6, SY_CHARS - 16);
	for (i = 0; i < 6; i++)
		assert_true(s.row[i] < SY_CHARS);
	assert_int_equal(s.phase, SP_CONSUL);
	assert_int_equal(s.step, SS_ELECT);
	assert_int_equal(s.decider, s.fc);
}

/* ---- simultaneous secret decisions ---- */

/* The opening choice: each seat's picks stay hidden (board, log, prompt)
 * until the last confirms; then one reveal names everybody's. */
static void test_secret_first_choice(void **state)
{
	struct sylla_state s;
	struct buf before = BUF_INIT, after = BUF_INIT, p1 = BUF_INIT, p2 = BUF_INIT;
	int seat, k, order[4] = { 2, 0, 3, 1 };

	(void)state;
	fresh(&s, 4, 11);
	clear_log();
	board(&s, &before);
	for (k = 0; k < 4; k++) {
		seat = order[k];
		buf_reset(&p1);
		sylla_prompt(&s, seat, LOC_EN, &p1);
		MV(&s, seat, SM_PICK, 9, ANY);
		MV(&s, seat, SM_PICK, 0, ANY);
		buf_reset(&p2);
		sylla_prompt(&s, seat, LOC_EN, &p2);
		/* the prompt (shown publicly) does not move with the choice */
		assert_string_equal(buf_str(&p1), buf_str(&p2));
		MV(&s, seat, SM_PICK, 4, ANY);
		/* "change" starts again; then the final picks */
		MV(&s, seat, SM_PICK, 6, ANY);
		MV(&s, seat, SM_CHANGE, ANY, ANY);
		assert_int_equal(s.p[seat].picks, 0);
		MV(&s, seat, SM_PICK, 1, ANY);
		MV(&s, seat, SM_PICK, 3, ANY);
		MV(&s, seat, SM_PICK, 5, ANY);
		no_secret_public(&s, __LINE__);
		MV(&s, seat, SM_PICK, 8, ANY);
		/* four chosen: only confirm (and change) is offered */
		assert_false(CAN(&s, seat, SM_PICK, ANY, ANY));
		assert_true(CAN(&s, seat, SM_CONFIRM, ANY, ANY));
		no_secret_public(&s, __LINE__);
		if (k < 3) {
			MV(&s, seat, SM_CONFIRM, ANY, ANY);
			no_secret_public(&s, __LINE__);
			/* nothing public happened and the board did not change */
			assert_int_equal(public_lines, 0);
			board(&s, &after);
			assert_string_equal(buf_str(&before), buf_str(&after));
			assert_false(sylla_awaiting(&s) & (1u << seat));
			/* a seat done cannot choose again */
			assert_false(CAN(&s, seat, SM_PICK, ANY, ANY));
		}
	}
	/* the last confirm reveals every choice at once */
	MV(&s, 1, SM_CONFIRM, ANY, ANY);
	LOGGED("Red reveals Senator ✝ (Y), Merchant ✝ (Y G), Legionary (R G), Slave ✝ (R Y G)");
	LOGGED("Blue reveals Senator ✝ (Y), Merchant ✝ (Y G), Legionary (R G), Slave ✝ (R Y G)");
	assert_int_equal(s.phase, SP_CONSUL);
	buf_release(&before);
	buf_release(&after);
	buf_release(&p1);
	buf_release(&p2);
}

/* "todos al mismo tiempo, señalan con el pulgar": the vote is collected
 * in secret, one reveal says who gave what. */
static void test_secret_vote(void **state)
{
	struct sylla_state s;
	struct buf before = BUF_INIT, after = BUF_INIT, sec = BUF_INIT;

	(void)state;
	bare(&s, 4, BLACK);
	sylla_give_char(&s, BLUE, card(0, 0));
	sylla_give_char(&s, BLUE, card(1, 0));
	sylla_give_char(&s, RED, card(1, 1));
	sylla_set_money(&s, RED, 3);
	sylla_set_money(&s, WHITE, 4);
	sylla_set_money(&s, BLACK, 1);
	set_work(&s, SG_BATHS);
	sylla_start_phase(&s, SP_WORKS, BLACK, &cap_log);
	check_ok(&s);
	assert_int_equal(s.step, SS_VOTE);
	assert_int_equal(sylla_awaiting(&s), 0xf);
	clear_log();
	board(&s, &before);
	MV(&s, RED, SM_THUMB, 1, ANY);
	MV(&s, RED, SM_GIVE, 3, ANY);
	/* the pending choice is a secret, in the private view only */
	sylla_secrets(&s, LOC_EN, &sec);
	assert_non_null(strstr(buf_str(&sec), "\xc2\xabthumb up \xc2\xb7 3 denarii\xc2\xbb"));
	no_secret_public(&s, __LINE__);
	MV(&s, RED, SM_CONFIRM, ANY, ANY);
	vote(&s, BLUE, 0, 0);
	vote(&s, WHITE, 1, 4);
	no_secret_public(&s, __LINE__);
	assert_int_equal(public_lines, 0);
	board(&s, &after);
	assert_string_equal(buf_str(&before), buf_str(&after));
	assert_int_equal(sylla_awaiting(&s), 1u << BLACK);
	/* one refused second vote: Red is done */
	assert_false(CAN(&s, RED, SM_THUMB, ANY, ANY));
	vote(&s, BLACK, 1, 1);
	LOGGED("Red: thumb up, 3 denarii + 1 Senator = 4 votes.");
	LOGGED("White: thumb up, 4 denarii + 0 Senators = 4 votes.");
	LOGGED("Blue: thumb down, 0 denarii + 2 Senators = 2 votes.");
	LOGGED("Black: thumb up, 1 denarius + 0 Senators = 1 vote.");
	buf_release(&before);
	buf_release(&after);
	buf_release(&sec);
}

/* sealed-election: offers all at once, revealed together; a tie goes to
 * the seat first from the last First Consul. */
static void test_sealed_election(void **state)
{
	struct sylla_state s;
	struct buf err = BUF_INIT, before = BUF_INIT, after = BUF_INIT;
	uint16_t m[4] = { 0x00f, 0x00f, 0x00f, 0x00f };
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(sylla_setup(&s, 4, 5, "sealed-election", &err), 0);
	assert_int_equal(s.opts, SO_SEALED);
	choose_all(&s, m);
	assert_int_equal(s.step, SS_SEALED);
	assert_int_equal(sylla_awaiting(&s), 0xf);
	clear_log();
	board(&s, &before);
	/* everybody has 2 Senators and 5 denarii */
	for (i = 0; i < 4; i++)
		assert_int_equal(sylla_senators(&s, i), 2);
	{
		int fc = s.fc, a = (fc + 1) % 4, b = (fc + 2) % 4;

		MV(&s, b, SM_OFFER, 3, ANY);
		MV(&s, b, SM_CONFIRM, ANY, ANY);
		MV(&s, fc, SM_PASS, ANY, ANY);
		MV(&s, fc, SM_CONFIRM, ANY, ANY);
		MV(&s, (fc + 3) % 4, SM_OFFER, 1, ANY);
		MV(&s, (fc + 3) % 4, SM_CONFIRM, ANY, ANY);
		no_secret_public(&s, __LINE__);
		assert_int_equal(public_lines, 0);
		board(&s, &after);
		assert_string_equal(buf_str(&before), buf_str(&after));
		/* a ties b at 5 votes and sits first from the First Consul */
		MV(&s, a, SM_OFFER, 3, ANY);
		MV(&s, a, SM_CONFIRM, ANY, ANY);
		assert_int_equal(s.fc, a);
		assert_int_equal(s.p[a].money, 2);	/* pays its denarii */
		assert_int_equal(s.p[b].money, 5);	/* the others pay nothing */
		LOGGED("passed.");
		LOGGED("offered 5 votes (2 Senators + 3 denarii).");
	}
	buf_release(&err);
	buf_release(&before);
	buf_release(&after);
}

/* Events that turn cards over are chosen by all at once, in secret. */
static void test_secret_hide(void **state)
{
	struct sylla_state s;
	struct buf before = BUF_INIT, after = BUF_INIT;

	(void)state;
	bare(&s, 4, BLUE);
	sylla_set_event(&s, 0, SE_PURGE);
	sylla_set_event(&s, 1, SE_EPIDEMIC);
	sylla_set_event(&s, 2, SE_ERUPTION);
	/* Blue and Red have two kinds of Senators, White one, Black none */
	sylla_give_char(&s, BLUE, card(0, 0));
	sylla_give_char(&s, BLUE, card(0, 1));
	sylla_give_char(&s, RED, card(1, 0));
	sylla_give_char(&s, RED, card(1, 1));
	sylla_give_char(&s, WHITE, card(2, 0));
	events_avoiding(&s, 1, 3);
	/* Purge happens first: Blue and Red choose, White has no choice */
	assert_int_equal(s.step, SS_HIDE);
	assert_int_equal(sylla_awaiting(&s), (1u << BLUE) | (1u << RED));
	board(&s, &before);
	clear_log();
	MV(&s, RED, SM_HIDE, card(1, 1), ANY);
	no_secret_public(&s, __LINE__);
	MV(&s, RED, SM_CONFIRM, ANY, ANY);
	no_secret_public(&s, __LINE__);
	assert_int_equal(public_lines, 0);
	board(&s, &after);
	assert_string_equal(buf_str(&before), buf_str(&after));
	MV(&s, BLUE, SM_HIDE, card(0, 0), ANY);
	MV(&s, BLUE, SM_CONFIRM, ANY, ANY);
	LOGGED("Senate Purge, face down: Blue: Senator (R); Red: Senator ✝ (Y); White: Senator (R); "
	       "Black: nothing to turn.");
	assert_true((s.down >> card(0, 0)) & 1);
	assert_true((s.down >> card(1, 1)) & 1);
	assert_true((s.down >> card(2, 0)) & 1);
	/* a Senator face down "no tendrá efecto alguno": no vote */
	assert_int_equal(sylla_senators(&s, WHITE), 0);
	assert_int_equal(sylla_senators(&s, BLUE), 1);
	buf_release(&before);
	buf_release(&after);
}

/* ---- the seed's worked examples ---- */

/* "El jugador Azul ... Tiene dos senadores y ofrece 3 votos. El jugador Rojo
 * pasa, y el Blanco también. El jugador Negro, que tiene un Senador, ofrece
 * 4 votos ... Paga 3 denarios ... y toma una ficha Res Publica". */
static void test_example_election(void **state)
{
	struct sylla_state s;
	int before;

	(void)state;
	bare(&s, 4, BLUE);
	sylla_give_char(&s, BLUE, card(0, 0));
	sylla_give_char(&s, BLUE, card(0, 1));
	sylla_give_char(&s, BLACK, card(3, 0));
	sylla_set_money(&s, BLUE, 5);
	sylla_set_money(&s, RED, 5);
	sylla_set_money(&s, WHITE, 5);
	sylla_set_money(&s, BLACK, 5);
	sylla_start_phase(&s, SP_CONSUL, BLUE, &cap_log);
	check_ok(&s);
	assert_int_equal(s.decider, BLUE);	/* the last First Consul speaks first */
	MV(&s, BLUE, SM_OFFER, 3, ANY);
	assert_int_equal(s.decider, RED);
	assert_false(CAN(&s, RED, SM_OFFER, 3, ANY));	/* "un número mayor" */
	MV(&s, RED, SM_PASS, ANY, ANY);
	MV(&s, WHITE, SM_PASS, ANY, ANY);
	before = s.p[BLACK].money;
	MV(&s, BLACK, SM_OFFER, 4, ANY);
	assert_int_equal(s.fc, BLACK);
	assert_int_equal(before - s.p[BLACK].money, 3);	/* 3 denarios + 1 Senador */
	assert_int_equal(s.p[BLUE].money, 5);		/* "los demás no pagarán nada" */
	/* the First Consul takes a token of its choice, shown */
	assert_int_equal(sylla_awaiting(&s), 1u << BLACK);
	assert_int_equal(s.step, SS_TOKEN);
	MV(&s, BLACK, SM_TOKEN, ST_HEALTH, ANY);
	assert_int_equal(s.p[BLACK].tok[ST_HEALTH], 1);
	assert_int_equal(s.p[BLACK].seen[ST_HEALTH], 1);	/* "enseñar ... el color" */
	LOGGED("Black takes a health token.");
}

/* "De las cuatro cartas de Evento que hay en juego, 2 tienen un símbolo de
 * Hambruna ... El marcador de la Hambruna se desplaza dos casillas". */
static void test_example_famine_marker(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, BLACK);
	sylla_set_event(&s, 0, SE_CULT);
	sylla_set_event(&s, 1, SE_FAMINE);
	sylla_set_event(&s, 2, SE_REVOLT);
	sylla_start_phase(&s, SP_CONSUL, BLACK, &cap_log);
	/* nobody can offer: Black stays, takes a token */
	MV(&s, BLACK, SM_TOKEN, ST_CIVIC, ANY);
	assert_int_equal(s.famine, 2);
	/* "no puede ir más allá de la última casilla" */
	s.famine = 5;
	sylla_start_phase(&s, SP_CONSUL, BLACK, &cap_log);
	MV(&s, BLACK, SM_TOKEN, ST_CIVIC, ANY);
	assert_int_equal(s.famine, SY_FAMINE_MAX);
}

/* "Comienza el jugador Negro ... Elige un Esclavo. El jugador Azul elige un
 * Legionario, el Rojo un Senador y el Blanco una Vestal. Las dos cartas
 * restantes se colocan debajo del montón". */
static void test_example_recruitment(void **state)
{
	const int want[6] = { card(3, 8), card(3, 4), card(3, 0), card(3, 6), card(3, 2), card(3, 3) };
	struct sylla_state s;
	int i, j;

	(void)state;
	bare(&s, 4, BLACK);
	/* the display: a Slave, a Legionary, a Senator, a Vestal and two
	 * Merchants, swapped in from the deck */
	for (i = 0; i < SY_ROW; i++)
		for (j = 0; j < s.ndeck; j++)
			if (s.deck[j] == want[i]) {
				s.deck[j] = s.row[i];
				s.row[i] = (uint8_t)want[i];
			}
	check_ok(&s);
	sylla_start_phase(&s, SP_RECRUIT, BLACK, &cap_log);
	assert_int_equal(s.decider, BLACK);	/* "Comienza el Primer Cónsul" */
	MV(&s, BLACK, SM_RECRUIT, card(3, 8), ANY);
	MV(&s, BLUE, SM_RECRUIT, card(3, 4), ANY);
	MV(&s, RED, SM_RECRUIT, card(3, 0), ANY);
	MV(&s, WHITE, SM_RECRUIT, card(3, 6), ANY);
	assert_true((s.own[BLACK] >> card(3, 8)) & 1);
	assert_true((s.own[BLUE] >> card(3, 4)) & 1);
	assert_true((s.own[RED] >> card(3, 0)) & 1);
	assert_true((s.own[WHITE] >> card(3, 6)) & 1);
	/* the two left over are now the bottom of the deck, known */
	assert_int_equal(s.deck[0], card(3, 3));
	assert_int_equal(s.deck[1], card(3, 2));
	assert_true(s.unseen <= s.ndeck - 2);
	LOGGED("Under the deck: Merchant (G), Merchant ✝ (Y G).");
}

/* "El jugador Negro ... pone en venta un Campo ... en la zona gris ... El
 * jugador Azul ofrece 2 grises, el Rojo pasa, el Blanco ofrece 3 grises y el
 * Negro decide pasar ... se lleva el Campo el jugador Blanco"; "debe girar 3
 * personajes con hexágonos grises. Elige 1 Esclavo y 2 Comerciantes ...
 * Después pone a la venta un nuevo edificio (y es el último en hacer su
 * oferta)". */
static void test_example_buildings(void **state)
{
	struct sylla_state s;
	int field_slot = -1, i;

	(void)state;
	bare(&s, 4, BLACK);
	/* a Field in a grey slot */
	field_slot = 4;
	sylla_put_tile(&s, field_slot, SB_FIELD);
	check_ok(&s);
	/* Blue: 2 grey; White: a Slave and 2 Merchants and a grey Vestal;
	 * Black: a grey Legionary */
	sylla_give_char(&s, BLUE, card(0, 2));
	sylla_give_char(&s, BLUE, card(0, 5));
	sylla_give_char(&s, WHITE, card(2, 9));
	sylla_give_char(&s, WHITE, card(2, 2));
	sylla_give_char(&s, WHITE, card(2, 3));
	sylla_give_char(&s, WHITE, card(2, 7));
	sylla_give_char(&s, BLACK, card(3, 5));
	sylla_start_phase(&s, SP_BUILD, BLACK, &cap_log);
	assert_int_equal(s.decider, BLACK);
	MV(&s, BLACK, SM_SELL, field_slot, ANY);
	/* "el jugador que está a la derecha del Primer Cónsul" speaks first:
	 * the next seat round, Blue; Red has no grey and passes by itself */
	assert_int_equal(s.decider, BLUE);
	MV(&s, BLUE, SM_BID, 2, ANY);
	assert_int_equal(s.decider, WHITE);
	assert_false(CAN(&s, WHITE, SM_BID, 2, ANY));
	MV(&s, WHITE, SM_BID, 3, ANY);
	/* Black has 1 grey: cannot beat 3, passes by itself */
	assert_int_equal(s.step, SS_TAP);
	assert_int_equal(s.decider, WHITE);
	MV(&s, WHITE, SM_TAP, card(2, 9), ANY);
	MV(&s, WHITE, SM_TAP, card(2, 2), ANY);
	MV(&s, WHITE, SM_TAP, card(2, 3), ANY);
	assert_int_equal(s.p[WHITE].zone[SZ_FIELD], 1);
	assert_true((s.tapped >> card(2, 9)) & 1);
	assert_false((s.tapped >> card(2, 7)) & 1);
	/* White offers the next one and bids last */
	assert_int_equal(s.step, SS_OFFER);
	assert_int_equal(s.decider, WHITE);
	LOGGED("White buys Field for 3 (grey).");
	/* a yellow one nobody can pay for: discarded, White offers again */
	for (i = 0; i < SY_ROW; i++)
		if (s.tiles[i] < SY_TILES && sylla_slot_colour[i] == SC_YELLOW)
			break;
	clear_log();
	MV(&s, WHITE, SM_SELL, i, ANY);
	LOGGED("is discarded.");
	assert_int_equal(s.step, SS_OFFER);
	assert_int_equal(s.decider, WHITE);
	/* a red one: after White come Black, Blue, Red, White */
	for (i = 0; i < SY_ROW; i++)
		if (s.tiles[i] < SY_TILES && sylla_slot_colour[i] == SC_RED)
			break;
	MV(&s, WHITE, SM_SELL, i, ANY);
	assert_int_equal(s.step, SS_BID);
	assert_int_equal(s.decider, BLACK);
}

/* Five sales a turn (four with 3 players); the tile(s) left are removed. */
static int count_lines(const char *text)
{
	const char *p = buf_str(&logbuf);
	int n = 0;

	while ((p = strstr(p, text))) {
		n++;
		p += strlen(text);
	}
	return n;
}

static void test_five_sales(void **state)
{
	struct sylla_state s;
	int k, n;

	(void)state;
	for (n = 3; n <= 4; n++) {
		bare(&s, n, 0);
		sylla_start_phase(&s, SP_BUILD, 0, &cap_log);
		while (s.phase == SP_BUILD) {
			int i;

			assert_int_equal(s.step, SS_OFFER);
			for (i = 0; i < SY_ROW && s.tiles[i] == SY_NONE; i++)
				;
			MV(&s, 0, SM_SELL, i, ANY);	/* nobody can bid: discarded */
		}
		/* "se hayan puesto a la venta 5 losetas ... La tarjeta que queda se
		 * retira"; with 3 players "los 2 últimos edificios se retiran" */
		assert_int_equal(count_lines("Nobody bids:"), n == 3 ? 4 : 5);
		assert_int_equal(count_lines("is removed from the game."), n == 3 ? 2 : 1);
		for (k = 0; k < SY_ROW; k++)
			assert_int_equal(s.tiles[k], SY_NONE);
	}
}

/* "- El jugador Negro toma 5 denarios (Ingresos + carta de Puesto) - El
 * jugador Azul también toma 5 denarios (Ingresos + 2 Comerciantes no
 * girados) - El jugador Rojo toma 3 denarios (Ingresos) y opta por utilizar
 * su Templo Privado ... - El jugador Blanco toma 5 denarios ... Los
 * Comerciantes que tiene ... no le reportan ingresos porque están girados." */
static void test_example_income(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, BLACK);
	sylla_give_zone(&s, BLACK, SZ_STALL);
	sylla_give_char(&s, BLUE, card(0, 2));
	sylla_give_char(&s, BLUE, card(0, 3));
	sylla_give_zone(&s, RED, SZ_TEMPLE);
	sylla_give_zone(&s, WHITE, SZ_STALL);
	sylla_give_char(&s, WHITE, card(2, 2));
	sylla_give_char(&s, WHITE, card(2, 3));
	s.tapped |= (1ULL << card(2, 2)) | (1ULL << card(2, 3));
	sylla_start_phase(&s, SP_INCOME, BLACK, &cap_log);
	/* Red's Temple asks (Black and Blue were paid before, in order) */
	assert_int_equal(s.p[BLACK].money, 5);
	assert_int_equal(s.p[BLUE].money, 5);
	assert_int_equal(s.step, SS_TEMPLE);
	assert_int_equal(s.decider, RED);
	assert_int_equal(s.p[RED].money, 3);
	clear_log();
	MV(&s, RED, SM_TEMPLE, ST_LEISURE, ANY);
	assert_int_equal(s.p[RED].money, 1);
	assert_int_equal(s.p[RED].tok[ST_LEISURE], 1);
	/* the colour stays behind the screen */
	assert_int_equal(s.p[RED].blind, 1);
	LOGGED("Red pays 2 denarii at a Private Temple for a Res Publica token.");
	NOT_LOGGED("Red takes a leisure");
	LOGGED("[1] Your Private Temple token: leisure.");
	assert_int_equal(s.p[WHITE].money, 5);
	assert_int_equal(s.phase, SP_EVENTS);
}

/* The cube round, the tokens, the avoided events and the removal, as in
 * the seed's example (phase V). */
static void test_example_events(void **state)
{
	struct sylla_state s;
	int famine, civic, gone;

	(void)state;
	bare(&s, 4, BLACK);
	sylla_set_event(&s, 0, SE_CULT);
	sylla_set_event(&s, 1, SE_FAMINE);
	sylla_set_event(&s, 2, SE_REVOLT);
	/* Black 1 Vestal; Blue a Vestal and a Legionary; Red a Vestal and a
	 * Legionary; White nothing ("ha utilizado todos sus personajes") */
	sylla_give_char(&s, BLACK, card(3, 6));
	sylla_give_char(&s, BLUE, card(0, 6));
	sylla_give_char(&s, BLUE, card(0, 4));
	sylla_give_char(&s, RED, card(1, 6));
	sylla_give_char(&s, RED, card(1, 4));
	sylla_give_char(&s, WHITE, card(2, 7));
	s.tapped |= 1ULL << card(2, 7);
	sylla_set_money(&s, WHITE, 1);	/* so that phase VI waits for a vote */
	famine = s.famine;
	civic = s.track[ST_CIVIC];
	sylla_start_phase(&s, SP_EVENTS, BLACK, &cap_log);
	/* "Comienza el jugador Negro, que coloca el único cubo que tiene sobre
	 * la Decadencia. El jugador Azul coloca un cubo sobre la misma carta.
	 * El jugador Rojo pone un cubo (debe ser de una Vestal) sobre la
	 * Hambruna. ... el Azul coloca su último cubo Legionario sobre la
	 * Revuelta. El jugador Rojo pone su último cubo Legionario sobre la
	 * Decadencia." */
	assert_int_equal(s.decider, BLACK);
	MV(&s, BLACK, SM_CUBE, 3, SK_VESTAL);
	MV(&s, BLUE, SM_CUBE, 3, SK_VESTAL);
	assert_false(CAN(&s, RED, SM_CUBE, 1, SK_LEGIONARY));	/* Famine: Vestals only */
	MV(&s, RED, SM_CUBE, 1, SK_VESTAL);
	MV(&s, BLUE, SM_CUBE, 2, SK_LEGIONARY);
	clear_log();
	MV(&s, RED, SM_CUBE, 3, SK_LEGIONARY);
	/* "El jugador Rojo ... se lleva una ficha de Salud. El jugador Azul
	 * obtiene una ficha de Ocio ... El Culto Imperial no reporta fichas a
	 * nadie. ... Rojo, Azul y Negro ganan sendos puntos de prestigio" */
	assert_int_equal(s.p[RED].tok[ST_HEALTH], 1);
	assert_int_equal(s.p[BLUE].tok[ST_LEISURE], 1);
	assert_int_equal(s.p[RED].seen[ST_HEALTH], 1);
	assert_int_equal(tokens(&s, BLACK) + tokens(&s, WHITE), 0);
	assert_int_equal(prestige(&s, RED), 11);
	assert_int_equal(prestige(&s, BLUE), 11);
	assert_int_equal(prestige(&s, BLACK), 11);
	assert_int_equal(prestige(&s, WHITE), 10);
	/* "se evitará la Decadencia ... La Hambruna y la Revuelta tienen un
	 * cubo cada una, por lo que el jugador Negro ... puede elegir" */
	assert_int_equal(s.step, SS_AVOID);
	assert_int_equal(sylla_awaiting(&s), 1u << BLACK);
	assert_true(CAN(&s, BLACK, SM_AVOID, 1, ANY));
	assert_true(CAN(&s, BLACK, SM_AVOID, 2, ANY));
	assert_false(CAN(&s, BLACK, SM_AVOID, 0, ANY));
	gone = s.ev_gone;
	MV(&s, BLACK, SM_AVOID, 2, ANY);
	/* "se aplica el efecto de la Hambruna ... y el Culto Imperial" */
	assert_int_equal(s.famine, famine + 1);
	assert_int_equal(s.track[ST_CIVIC], civic - 1);
	/* "habría que retirar la Decadencia ... se retira del juego la Revuelta" */
	assert_int_equal(s.ev_gone, gone | (1 << SE_REVOLT));
	assert_int_not_equal(s.ev_row[2], SE_REVOLT);
	assert_int_equal(s.ev_row[3], SE_DECADENCE);
	LOGGED("Slave Revolt is removed from the game.");
	LOGGED("New event:");
	/* cubes back; phase VI next */
	assert_int_equal(s.phase, SP_WORKS);
}

/* "El jugador Azul ha señalado con el pulgar hacia abajo y no ha utilizado
 * denario alguno. Como tiene 2 Senadores ... obtiene un punto de
 * prestigio. El jugador Rojo, que ha ofrecido 3 denarios y tiene un
 * Senador, cuenta con 4 votos, al igual que el Blanco (4 denarios). El
 * jugador Negro ofrece 1 denario pero su Senador está girado ... Rojo y
 * Blanco obtienen 5 puntos ... Negro (tercero) no consigue ni uno. En
 * total, la Gran Obra obtiene 9 votos, por lo que el marcador de Salud se
 * desplaza una casilla a la derecha." */
static void test_example_baths(void **state)
{
	struct sylla_state s;
	int health;

	(void)state;
	bare(&s, 4, BLACK);
	sylla_give_char(&s, BLUE, card(0, 0));
	sylla_give_char(&s, BLUE, card(0, 1));
	sylla_give_char(&s, RED, card(1, 0));
	sylla_give_char(&s, BLACK, card(3, 0));
	s.tapped |= 1ULL << card(3, 0);
	sylla_set_money(&s, RED, 3);
	sylla_set_money(&s, WHITE, 4);
	sylla_set_money(&s, BLACK, 1);
	set_work(&s, SG_BATHS);
	health = s.track[ST_HEALTH];
	sylla_start_phase(&s, SP_WORKS, BLACK, &cap_log);
	vote(&s, BLUE, 0, 0);
	vote(&s, RED, 1, 3);
	vote(&s, WHITE, 1, 4);
	vote(&s, BLACK, 1, 1);
	assert_int_equal(prestige(&s, BLUE), 11);
	assert_int_equal(prestige(&s, RED), 15);
	assert_int_equal(prestige(&s, WHITE), 15);
	/* phase VII ran too: famine 0 costs nothing */
	assert_int_equal(prestige(&s, BLACK), 10);
	assert_int_equal(s.track[ST_HEALTH], health + 1);
	/* "Los denarios que hayan utilizado los jugadores se colocan la banca" */
	assert_int_equal(s.p[RED].money + s.p[WHITE].money + s.p[BLACK].money, 0);
	LOGGED("9 votes for Public Baths: health 3 → 4.");
}

/* "la ficha de la Hambruna se sitúa en "3" ... el jugador Blanco tiene una
 * tarjeta de Campo ... perderá únicamente 1 punto"; "Si un jugador tiene
 * Campos suficientes para superar el nivel de hambruna, no obtendrá puntos". */
static void test_example_famine_and_fields(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, BLACK);
	s.famine = 3;
	sylla_give_zone(&s, WHITE, SZ_FIELD);
	sylla_give_zone(&s, BLACK, SZ_FIELD);
	sylla_give_zone(&s, BLACK, SZ_FIELD);
	s.p[RED].prestige = 1;
	sylla_start_phase(&s, SP_FAMINE, BLACK, &cap_log);
	assert_int_equal(prestige(&s, BLUE), 7);
	assert_int_equal(prestige(&s, WHITE), 9);
	assert_int_equal(prestige(&s, BLACK), 10);	/* no gain */
	assert_int_equal(prestige(&s, RED), 0);		/* "no pueden tener menos de 0" */
	/* the turn ended: turned cards stand up, a new turn's election */
	assert_int_equal(s.turn, 2);
	assert_int_equal(s.phase, SP_CONSUL);
}

/* "se produce una crisis de Espíritu Cívico ... El jugador Azul tiene 4
 * fichas, el Blanco y el Rojo tienen 2, el Negro tiene 1. Por tanto, el
 * Azul gana 3 puntos de prestigio y el Negro pierde 3." */
static void test_example_crisis(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, BLACK);
	s.track[ST_CIVIC] = 0;
	sylla_give_tokens(&s, BLUE, ST_CIVIC, 4, 0);
	sylla_give_tokens(&s, WHITE, ST_CIVIC, 2, 0);
	sylla_give_tokens(&s, RED, ST_CIVIC, 2, 1);
	sylla_give_tokens(&s, BLACK, ST_CIVIC, 1, 0);
	sylla_give_tokens(&s, BLACK, ST_HEALTH, 1, 0);
	sylla_start_phase(&s, SP_FAMINE, BLACK, &cap_log);
	assert_int_equal(prestige(&s, BLUE), 13);
	assert_int_equal(prestige(&s, RED), 10);
	assert_int_equal(prestige(&s, WHITE), 10);
	assert_int_equal(prestige(&s, BLACK), 7);
	LOGGED("civic spirit crisis! Tokens shown: Blue 4, Red 2, White 2, Black 1.");
	/* shown: the table now knows those counts; health stays unseen */
	assert_int_equal(s.p[BLUE].seen[ST_CIVIC], 4);
	assert_int_equal(s.p[BLACK].blind, 1);
	/* the marker stays: "se volverá a producir otra crisis" next turn */
	assert_int_equal(s.track[ST_CIVIC], 0);
}

/* Everybody equal in a crisis: nobody gains or loses (ruling). */
static void test_crisis_all_equal(void **state)
{
	struct sylla_state s;
	int i;

	(void)state;
	bare(&s, 3, 0);
	s.track[ST_LEISURE] = 1;
	sylla_start_phase(&s, SP_FAMINE, 0, &cap_log);
	for (i = 0; i < 3; i++)
		assert_int_equal(prestige(&s, i), 10);
	LOGGED("Everybody shows as many: nobody gains or loses.");
}

/* "El jugador Rojo tiene 3 personajes cristianos y por tanto obtiene 6
 * puntos de prestigio. Paga 2 denarios por cada uno de sus dos Esclavos y
 * recibe 6 puntos más. ... Tiene 8 fichas de Salud (3 puntos por ficha), 5
 * fichas de Ocio (3 puntos por ficha) y 3 fichas de Espíritu Cívico (1
 * punto por ficha)." */
static void test_example_end(void **state)
{
	struct sylla_state s;
	struct game_result res;
	int before;

	(void)state;
	bare(&s, 4, BLACK);
	sylla_set_turn(&s, SY_TURNS);
	check_ok(&s);
	sylla_give_char(&s, RED, card(1, 1));	/* Senator ✝ */
	sylla_give_char(&s, RED, card(1, 3));	/* Merchant ✝ */
	sylla_give_char(&s, RED, card(1, 8));	/* Slave ✝ */
	sylla_give_char(&s, RED, card(1, 9));	/* Slave */
	s.tapped |= 1ULL << card(1, 3);		/* "aunque esté girado" */
	sylla_set_money(&s, RED, 5);
	sylla_give_tokens(&s, RED, ST_HEALTH, 8, 0);
	sylla_give_tokens(&s, RED, ST_LEISURE, 5, 0);
	sylla_give_tokens(&s, RED, ST_CIVIC, 3, 0);
	s.track[ST_HEALTH] = 4;		/* 3 per token */
	s.track[ST_LEISURE] = 5;	/* 3 per token */
	s.track[ST_CIVIC] = 0;		/* 1 per token */
	before = prestige(&s, RED);
	/* a face-down Christian scores nothing */
	sylla_give_char(&s, BLUE, card(0, 1));
	sylla_set_event(&s, 0, (s.ev_gone >> SE_PURGE) & 1 ? SE_PERSECUTION : SE_PURGE);
	s.down |= 1ULL << card(0, 1);
	check_ok(&s);
	sylla_start_phase(&s, SP_END, BLACK, &cap_log);
	/* only Red can free slaves: asked, in secret */
	assert_int_equal(s.step, SS_FREE);
	assert_int_equal(sylla_awaiting(&s), 1u << RED);
	assert_false(CAN(&s, RED, SM_FREE, 3, ANY));
	LOGGED("Red: 3 Christians face up, +6 prestige.");
	clear_log();
	MV(&s, RED, SM_FREE, 2, ANY);
	/* chosen, not confirmed: nothing public yet */
	no_secret_public(&s, __LINE__);
	assert_int_equal(public_lines, 0);
	MV(&s, RED, SM_CONFIRM, ANY, ANY);
	assert_int_equal(s.phase, SP_OVER);
	assert_int_equal(prestige(&s, RED) - before, 6 + 6 + 24 + 15 + 3);
	assert_int_equal(s.p[RED].money, 1);
	assert_int_equal(prestige(&s, BLUE), 10);
	assert_int_equal(sylla_result(&s, &res), 1);
	assert_int_equal(res.winners, 1u << RED);
	LOGGED("Red frees 2 slaves for 4 denarii: +6 prestige.");
}

/* "En caso de empate en el primer puesto, todos los jugadores empatados
 * comparten la victoria." */
static void test_shared_win(void **state)
{
	struct sylla_state s;
	struct game_result res;

	(void)state;
	bare(&s, 3, 0);
	sylla_set_turn(&s, SY_TURNS);
	s.p[0].prestige = 30;
	s.p[1].prestige = 30;
	sylla_start_phase(&s, SP_END, 0, &cap_log);
	assert_int_equal(sylla_result(&s, &res), 1);
	assert_int_equal(res.winners, 3u);
	assert_int_equal(res.rank[0], 1);
	assert_int_equal(res.rank[1], 1);
	assert_int_equal(res.rank[2], 3);
}

/* ---- the buildings ---- */

/* Buys a building of type `type` (put in the first red slot) for seat,
 * which holds a red character; nobody else can bid. */
static void buy(struct sylla_state *s, int seat, int type)
{
	sylla_put_tile(s, 0, type);
	check_ok(s);
	sylla_start_phase(s, SP_BUILD, seat, &cap_log);
	MV(s, seat, SM_SELL, 0, ANY);
	MV(s, seat, SM_BID, 1, ANY);
}

/* Puesto: 2 denarii per face-up Stall in phase IV; none face down. */
static void test_stall(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	buy(&s, 0, SB_STALL);
	assert_int_equal(s.p[0].zone[SZ_STALL], 1);
	assert_int_equal(sylla_income(&s, 0), 5);
	sylla_give_zone(&s, 1, SZ_STALL);
	sylla_give_zone(&s, 1, SZ_STALL);
	sylla_set_event(&s, 0, SE_PILLAGE);
	s.p[1].zone[SZ_STALL]--;
	s.p[1].zone_down[SZ_STALL]++;
	check_ok(&s);
	assert_int_equal(sylla_income(&s, 1), 5);
}

/* Campo: each Field cuts the famine loss by 2. */
static void test_field(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	buy(&s, 0, SB_FIELD);
	assert_int_equal(s.p[0].zone[SZ_FIELD], 1);
	s.famine = 5;
	sylla_start_phase(&s, SP_FAMINE, 0, &cap_log);
	assert_int_equal(prestige(&s, 0), 7);
	assert_int_equal(prestige(&s, 1), 5);
}

/* Templo privado: 2 denarii for a token of choice, kept secret; only with
 * 2 denarii; each Temple once. */
static void test_private_temple(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	buy(&s, 0, SB_TEMPLE);
	assert_int_equal(s.p[0].zone[SZ_TEMPLE], 1);
	sylla_give_zone(&s, 0, SZ_TEMPLE);
	sylla_give_zone(&s, 1, SZ_TEMPLE);
	sylla_set_money(&s, 1, 0);
	clear_log();
	sylla_start_phase(&s, SP_INCOME, 0, &cap_log);
	/* seat 0 has 3 denarii of income: one Temple, then no money for the other */
	assert_int_equal(s.step, SS_TEMPLE);
	assert_int_equal(s.decider, 0);
	MV(&s, 0, SM_TEMPLE, ST_CIVIC, ANY);
	assert_int_equal(s.p[0].money, 1);
	/* seat 1 got 3: asked once, declines */
	assert_int_equal(s.decider, 1);
	MV(&s, 1, SM_SKIP, ANY, ANY);
	assert_int_equal(s.p[1].money, 3);
	assert_int_equal(tokens(&s, 1), 0);
	assert_int_equal(s.p[0].blind, 1);
	NOT_LOGGED("civic");
}

/* Ínsula: discarded at once, 2 tokens of choice behind the screen. */
static void test_insula(void **state)
{
	struct sylla_state s;
	struct buf b = BUF_INIT;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	clear_log();
	buy(&s, 0, SB_INSULA);
	assert_int_equal(s.step, SS_INSULA);
	assert_int_equal(s.decider, 0);
	MV(&s, 0, SM_INSULA, ST_HEALTH, ST_LEISURE);
	assert_int_equal(s.p[0].tok[ST_HEALTH], 1);
	assert_int_equal(s.p[0].tok[ST_LEISURE], 1);
	assert_int_equal(s.p[0].blind, 2);
	LOGGED("Blue discards the Insula and takes 2 Res Publica tokens in secret.");
	LOGGED("[0] Your Insula tokens: health and leisure.");
	NOT_LOGGED("health");
	no_secret_public(&s, __LINE__);
	buf_release(&b);
}

/* The picture's texts (what the painter draws and each piece's alt). */
static void picture(const struct sylla_state *s, int seat, struct buf *out)
{
	struct game_view v = { LOC_EN, s->nplayers, names };
	struct scene sc = SCENE_INIT;

	buf_reset(out);
	assert_int_equal(sylla_scene(s, seat, &v, &sc), 0);
	scene_texts(&sc, out);
	scene_release(&sc);
}

/* Issue 25, point 1: the colour of a token taken in secret (Insula,
 * Private Temple) stays behind the screen (ruling 7), so the supply beside
 * the board is one total: by colour, two boards apart would tell the
 * colour taken.  Neither the text board, nor the picture, nor the others'
 * private views, nor the log show it by colour; secrets() lists it, so the
 * scans catch it. */
static void test_supply_hidden(void **state)
{
	struct sylla_state s;
	struct buf b = BUF_INIT, sec = BUF_INIT;
	struct game_view v = { LOC_EN, 3, names };
	int total, seat, t;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	total = sylla_supply_total(&s);
	clear_log();
	buy(&s, 0, SB_INSULA);
	MV(&s, 0, SM_INSULA, ST_HEALTH, ST_HEALTH);
	assert_int_equal(s.supply[ST_HEALTH], 37);
	assert_int_equal(sylla_supply_total(&s), total - 2);
	sylla_secrets(&s, LOC_EN, &sec);
	assert_non_null(strstr(buf_str(&sec), "civic spirit 39, health 37, leisure 39\n"));
	buf_reset(&sec);
	sylla_secrets(&s, LOC_ES, &sec);
	assert_non_null(strstr(buf_str(&sec), "espíritu cívico 39, salud 37, ocio 39\n"));
	no_secret_public(&s, __LINE__);
	board(&s, &b);
	buf_reset(&sec);
	buf_printf(&sec, "Tokens beside the board: %d.", total - 2);
	assert_non_null(strstr(buf_str(&b), buf_str(&sec)));
	assert_null(strstr(buf_str(&b), "health 37"));
	assert_null(strstr(buf_str(&b), "37"));
	picture(&s, -1, &b);
	assert_null(strstr(buf_str(&b), "37"));
	assert_non_null(strstr(buf_str(&b), "all colours"));
	for (seat = 1; seat < 3; seat++) {
		struct rich r = RICH_INIT;

		sylla_render_private(&s, seat, &v, &r);
		buf_reset(&b);
		rich_to_plain(&r, &b);
		rich_release(&r);
		assert_null(strstr(buf_str(&b), "37"));
		picture(&s, seat, &b);
		assert_null(strstr(buf_str(&b), "37"));
	}
	NOT_LOGGED("health");
	NOT_LOGGED("37");
	/* a colour run out is in view (an empty pile): named, in both */
	for (t = 0; t < 39; t++)
		if (s.supply[ST_LEISURE])
			sylla_give_tokens(&s, 1, ST_LEISURE, 1, 1);
	check_ok(&s);
	board(&s, &b);
	assert_non_null(strstr(buf_str(&b), "; none left: leisure."));
	picture(&s, -1, &b);
	assert_non_null(strstr(buf_str(&b), "none left"));
	buf_release(&b);
	buf_release(&sec);
}

/* Issue 25, point 1, the AI's view: determinize() deals the colours of the
 * others' secret tokens again from what the seat knows (its own tokens,
 * the colours the table saw, the colours run out), never from the supply
 * by colour: two positions that differ only in those colours determinize
 * alike. */
static void test_determinize_supply(void **state)
{
	struct sylla_state a, b, c;
	struct rng ra, rb;
	int t, i, held;

	(void)state;
	bare(&a, 3, 0);
	memcpy(&b, &a, sizeof(a));
	sylla_give_tokens(&a, 1, ST_HEALTH, 2, 0);	/* Red's Insula: 2 health */
	sylla_give_tokens(&b, 1, ST_LEISURE, 2, 0);	/* or 2 leisure */
	sylla_give_tokens(&a, 0, ST_CIVIC, 1, 0);	/* Blue's own, which it knows */
	sylla_give_tokens(&b, 0, ST_CIVIC, 1, 0);
	check_ok(&a);
	check_ok(&b);
	assert_int_not_equal(a.supply[ST_HEALTH], b.supply[ST_HEALTH]);
	rng_seed(&ra, 5, 1);
	rng_seed(&rb, 5, 1);
	sylla_determinize(&a, 0, &ra);
	sylla_determinize(&b, 0, &rb);
	check_ok(&a);
	check_ok(&b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.p[1].blind, 2);
	assert_int_equal(a.p[0].tok[ST_CIVIC], 1);
	/* a colour run out stays run out: Red holds every leisure token the
	 * table did not see (37 in secret), Cy one token in secret */
	bare(&c, 3, 0);
	sylla_give_tokens(&c, 1, ST_LEISURE, 2, 1);
	sylla_give_tokens(&c, 1, ST_LEISURE, 37, 0);
	sylla_give_tokens(&c, 1, ST_HEALTH, 3, 0);
	sylla_give_tokens(&c, 2, ST_CIVIC, 1, 0);
	check_ok(&c);
	for (i = 0; i < 50; i++) {
		memcpy(&a, &c, sizeof(c));
		rng_seed(&ra, (uint64_t)i, 2);
		sylla_determinize(&a, 0, &ra);
		check_ok(&a);
		assert_int_equal(a.supply[ST_LEISURE], 0);
		assert_true(a.supply[ST_HEALTH] > 0 && a.supply[ST_CIVIC] > 0);
		assert_int_equal(a.p[1].blind, 40);
		assert_int_equal(a.p[2].blind, 1);
		held = 0;
		for (t = 0; t < ST_COUNT; t++)
			held += a.p[1].tok[t] + a.p[2].tok[t];
		assert_int_equal(held, 43);
		assert_int_equal(a.p[1].tok[ST_LEISURE] + a.p[2].tok[ST_LEISURE], 39);
	}
}

/* Grúa: a Crane card, usable from the next turn for any colour; the
 * Floods can turn it. */
static void test_crane(void **state)
{
	struct sylla_state s;
	struct buf b = BUF_INIT;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	buy(&s, 0, SB_CRANE);
	assert_int_equal(s.p[0].zone[SZ_CRANE], 1);
	assert_int_equal(s.cranes, SY_CRANES - 1);
	/* "A partir del siguiente turno": not now, and the board says so
	 * (issue 25: it read "1 turned") */
	assert_int_equal(sylla_buy_power(&s, 0, SC_GREY), 0);
	board(&s, &b);
	assert_non_null(strstr(buf_str(&b), "\n  Crane (usable next turn)\n"));
	assert_null(strstr(buf_str(&b), "turned)"));
	picture(&s, -1, &b);
	assert_non_null(strstr(buf_str(&b), "1 (usable next turn)"));
	s.p[0].crane_used = s.p[0].crane_new = 0;	/* the turn's end stands it up */
	check_ok(&s);
	assert_int_equal(sylla_buy_power(&s, 0, SC_GREY), 1);
	assert_int_equal(sylla_buy_power(&s, 0, SC_YELLOW), 1);
	/* a second Crane paid with the first: one turned, one new */
	sylla_put_tile(&s, 1, SB_CRANE);
	sylla_start_phase(&s, SP_BUILD, 0, &cap_log);
	MV(&s, 0, SM_SELL, 1, ANY);
	MV(&s, 0, SM_BID, 1, ANY);	/* the Senator was turned: the Crane pays */
	assert_int_equal(s.p[0].zone[SZ_CRANE], 2);
	board(&s, &b);
	assert_non_null(strstr(buf_str(&b), "\n  Crane x2 (1 turned, 1 usable next turn)\n"));
	s.p[0].crane_used = s.p[0].crane_new = 0;
	check_ok(&s);
	/* the Floods may take it */
	sylla_set_event(&s, 0, SE_FLOOD);
	sylla_set_event(&s, 1, SE_EPIDEMIC);
	sylla_set_event(&s, 2, SE_ERUPTION);
	events_avoiding(&s, 1, 3);
	/* its only building: no choice (a Crane of the two) */
	assert_int_equal(s.p[0].zone_down[SZ_CRANE], 1);
	assert_int_equal(sylla_buy_power(&s, 0, SC_GREY), 1);
	buf_release(&b);
}

/* Taberna: one marker one space either way, none moved twice by Taverns;
 * at an end it blocks. */
static void test_tavern(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 0, card(0, 0));
	buy(&s, 0, SB_TAVERN);
	assert_int_equal(s.p[0].zone[SZ_TAVERN], 1);
	sylla_give_zone(&s, 1, SZ_TAVERN);
	s.track[ST_LEISURE] = SY_TRACK_MAX;
	sylla_start_phase(&s, SP_INCOME, 0, &cap_log);
	assert_int_equal(s.step, SS_TAVERN);
	MV(&s, 0, SM_TAVERN, ST_HEALTH, 0);
	assert_int_equal(s.track[ST_HEALTH], SY_TRACK_START - 1);
	/* seat 1 cannot move health again; leisure at 7 can only be blocked */
	assert_false(CAN(&s, 1, SM_TAVERN, ST_HEALTH, ANY));
	MV(&s, 1, SM_TAVERN, ST_LEISURE, 1);
	assert_int_equal(s.track[ST_LEISURE], SY_TRACK_MAX);
	assert_int_equal(s.tavern_moved, (1 << ST_HEALTH) | (1 << ST_LEISURE));
}

/* Arco del Triunfo +6, Estatua +4, Banco +5 denarii: discarded at once. */
static void test_arch_statue_bank(void **state)
{
	static const int type[3] = { SB_ARCH, SB_STATUE, SB_BANK };
	struct sylla_state s;
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		bare(&s, 3, 0);
		sylla_give_char(&s, 0, card(0, 0));
		clear_log();
		buy(&s, 0, type[k]);
		assert_int_equal(prestige(&s, 0), k == 0 ? 16 : k == 1 ? 14 : 10);
		assert_int_equal(s.p[0].money, k == 2 ? 5 : 0);
		/* "la descarta inmediatamente": nothing stays in the zone */
		assert_int_equal(s.p[0].zone[SZ_STALL] + s.p[0].zone[SZ_FIELD] + s.p[0].zone[SZ_TEMPLE] +
				 s.p[0].zone[SZ_TAVERN] + s.p[0].zone[SZ_CRANE], 0);
		LOGGED(k == 2 ? "Blue takes 5 denarii from the bank." : k == 1 ? "Blue gains 4 prestige."
									 : "Blue gains 6 prestige.");
	}
}

/* ---- the events ---- */

static void test_track_events(void **state)
{
	static const int ev[4] = { SE_EPIDEMIC, SE_ERUPTION, SE_CULT, SE_FAMINE };
	static const int tr[4] = { ST_HEALTH, ST_LEISURE, ST_CIVIC, -1 };
	struct sylla_state s;
	int k;

	(void)state;
	for (k = 0; k < 4; k++) {
		int other = ev[(k + 1) % 4];

		bare(&s, 4, 0);
		sylla_set_event(&s, 0, ev[k]);
		sylla_set_event(&s, 1, ev[(k + 2) % 4]);
		sylla_set_event(&s, 2, other);
		/* avoid slots 1 and 2: the event in slot 0 and the Decadence happen */
		events_avoiding(&s, 1, 2);
		if (tr[k] >= 0) {
			char line[80];

			/* the Decadence then takes the markers at the top: all three at 3 */
			assert_int_equal(s.track[tr[k]], SY_TRACK_START - 1);
			/* issue 25: the log says where the marker went, and which
			 * markers the Decadence moved */
			snprintf(line, sizeof(line), "The %s marker moves: 3 \xe2\x86\x92 2.\n",
				 sylla_tracks[tr[k]].name[LOC_EN]);
			LOGGED(line);
			{
				int t, n = 0;

				snprintf(line, sizeof(line), "The highest markers move: ");
				for (t = 0; t < ST_COUNT; t++)
					if (t != tr[k])
						snprintf(line + strlen(line), sizeof(line) - strlen(line),
							 "%s%s 3 \xe2\x86\x92 2", n++ ? ", " : "",
							 sylla_tracks[t].name[LOC_EN]);
				LOGGED(line);
			}
		} else {
			assert_int_equal(s.famine, 1);
			LOGGED("The famine marker moves: 0 \xe2\x86\x92 1.\n");
			LOGGED("The highest markers move: civic spirit 3 \xe2\x86\x92 2, health 3 \xe2\x86\x92 2, "
			       "leisure 3 \xe2\x86\x92 2.\n");
		}
		LOGGED(sylla_events[ev[k]].name[LOC_EN]);
		check_ok(&s);
	}
}

/* "el marcador o marcadores que estén más lejos a la derecha ... se
 * desplazan una casilla hacia la izquierda"; famine untouched. */
static void test_decadence(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, 0);
	sylla_set_event(&s, 0, SE_EPIDEMIC);
	sylla_set_event(&s, 1, SE_ERUPTION);
	sylla_set_event(&s, 2, SE_CULT);
	s.track[ST_CIVIC] = 5;
	s.track[ST_HEALTH] = 5;
	s.track[ST_LEISURE] = 2;
	s.famine = 4;
	/* only the Decadence (and Epidemic) happen */
	events_avoiding(&s, 1, 2);
	assert_int_equal(s.track[ST_HEALTH], 4);	/* Epidemic, then no longer the top */
	assert_int_equal(s.track[ST_CIVIC], 4);
	assert_int_equal(s.track[ST_LEISURE], 2);
	assert_int_equal(s.famine, 4);
	/* avoided with another: the other is removed, never the Decadence */
	bare(&s, 4, 0);
	sylla_set_event(&s, 1, SE_ERUPTION);
	events_avoiding(&s, 1, 3);
	assert_true((s.ev_gone >> SE_ERUPTION) & 1);
	assert_int_equal(s.ev_row[3], SE_DECADENCE);
}

/* Two avoided with as many cubes: the First Consul chooses which goes. */
static void test_remove_tie(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, RED);
	sylla_set_event(&s, 0, SE_EPIDEMIC);
	sylla_set_event(&s, 1, SE_ERUPTION);
	sylla_set_event(&s, 2, SE_FAMINE);
	sylla_give_char(&s, BLUE, card(0, 6));
	sylla_give_char(&s, WHITE, card(2, 6));
	sylla_start_phase(&s, SP_EVENTS, RED, &cap_log);
	MV(&s, WHITE, SM_CUBE, 0, SK_VESTAL);
	MV(&s, BLUE, SM_CUBE, 1, SK_VESTAL);
	/* Epidemic and Eruption avoided with 1 cube each: Red chooses */
	assert_int_equal(s.step, SS_REMOVE);
	assert_int_equal(sylla_awaiting(&s), 1u << RED);
	MV(&s, RED, SM_REMOVE, 1, ANY);
	assert_true((s.ev_gone >> SE_ERUPTION) & 1);
	assert_false((s.ev_gone >> SE_EPIDEMIC) & 1);
	/* White and Blue won a token each */
	assert_int_equal(s.p[WHITE].tok[ST_HEALTH], 1);
	assert_int_equal(s.p[BLUE].tok[ST_LEISURE], 1);
}

/* Persecución: a Christian each; with the Purge visible, Christian Senators
 * stay face down after the Persecution ends. */
static void test_persecution(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, 0);
	sylla_set_event(&s, 0, SE_PERSECUTION);
	sylla_set_event(&s, 1, SE_PURGE);
	sylla_set_event(&s, 2, SE_EPIDEMIC);
	sylla_give_char(&s, BLUE, card(0, 1));	/* Senator ✝ */
	sylla_give_char(&s, BLUE, card(0, 3));	/* Merchant ✝ */
	sylla_give_char(&s, RED, card(1, 8));	/* Slave ✝ */
	sylla_give_char(&s, WHITE, card(2, 0));	/* not a Christian */
	/* Persecution and Epidemic happen (Purge and Decadence avoided) */
	events_avoiding(&s, 1, 3);
	assert_int_equal(s.step, SS_HIDE);
	assert_int_equal(sylla_awaiting(&s), 1u << BLUE);
	assert_false(CAN(&s, BLUE, SM_HIDE, card(2, 0), ANY));
	MV(&s, BLUE, SM_HIDE, card(0, 1), ANY);
	MV(&s, BLUE, SM_CONFIRM, ANY, ANY);
	assert_true((s.down >> card(0, 1)) & 1);
	assert_true((s.down >> card(1, 8)) & 1);
	assert_false((s.down >> card(2, 0)) & 1);
	/* the Purge was avoided and removed */
	assert_true((s.ev_gone >> SE_PURGE) & 1);
}

/* The seed's exception: a Christian Senator turned by the Purge stays face
 * down when the Purge ends while the Persecution is visible; a plain one
 * stands up. */
static void test_purge_and_exceptions(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, 0);
	sylla_set_event(&s, 0, SE_PURGE);
	sylla_set_event(&s, 1, SE_PERSECUTION);
	sylla_set_event(&s, 2, SE_EPIDEMIC);
	sylla_give_char(&s, BLUE, card(0, 1));	/* Senator ✝ */
	sylla_give_char(&s, RED, card(1, 0));	/* Senator */
	/* turn 1: Purge and Persecution happen; Epidemic and Decadence avoided */
	events_avoiding(&s, 2, 3);
	assert_true((s.down >> card(0, 1)) & 1);
	assert_true((s.down >> card(1, 0)) & 1);
	assert_true((s.ev_gone >> SE_EPIDEMIC) & 1);
	/* a Senator face down gives no vote: nobody votes, the turn ends */
	assert_int_equal(s.turn, 2);
	/* turn 2: the Purge avoided (and removed) with the Decadence */
	sylla_start_phase(&s, SP_EVENTS, 0, &cap_log);
	MV(&s, 0, SM_AVOID, 0, ANY);
	MV(&s, 0, SM_AVOID, 3, ANY);
	assert_true((s.ev_gone >> SE_PURGE) & 1);
	/* "si la Persecución de los cristianos es visible, los Senadores
	 * cristianos deben permanecer boca abajo aunque finalice la Purga" */
	assert_true((s.down >> card(0, 1)) & 1);
	assert_false((s.down >> card(1, 0)) & 1);
}

/* Revuelta: a Slave each; Christian Slaves stay down under a Persecution. */
static void test_revolt(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, 0);
	sylla_set_event(&s, 0, SE_REVOLT);
	sylla_set_event(&s, 1, SE_PERSECUTION);
	sylla_set_event(&s, 2, SE_EPIDEMIC);
	sylla_give_char(&s, BLUE, card(0, 8));	/* Slave ✝ */
	sylla_give_char(&s, BLUE, card(0, 9));	/* Slave */
	s.tapped |= 1ULL << card(0, 9);
	events_avoiding(&s, 1, 3);
	/* Blue chooses: the turned one is listed apart */
	assert_int_equal(s.step, SS_HIDE);
	assert_true(CAN(&s, BLUE, SM_HIDE, card(0, 9), ANY));
	MV(&s, BLUE, SM_HIDE, card(0, 8), ANY);
	MV(&s, BLUE, SM_CONFIRM, ANY, ANY);
	assert_true((s.down >> card(0, 8)) & 1);
	/* a face-down Slave cannot be freed, a face-down card does not buy */
	assert_int_equal(sylla_buy_power(&s, BLUE, SC_RED), 0);
}

/* Inundaciones: a building each (a Crane too, never the income tile); with
 * the Pillage visible, Stalls stay down after the Floods end. */
static void test_floods_and_pillage(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 4, 0);
	sylla_set_event(&s, 0, SE_FLOOD);
	sylla_set_event(&s, 1, SE_PILLAGE);
	sylla_set_event(&s, 2, SE_EPIDEMIC);
	sylla_give_zone(&s, BLUE, SZ_STALL);
	sylla_give_zone(&s, BLUE, SZ_FIELD);
	sylla_give_zone(&s, RED, SZ_STALL);
	events_avoiding(&s, 1, 3);
	/* Blue chooses between its Stall and its Field; Red has one building */
	assert_int_equal(sylla_awaiting(&s), 1u << BLUE);
	MV(&s, BLUE, SM_HIDE, SY_CHARS + SZ_STALL, ANY);
	MV(&s, BLUE, SM_CONFIRM, ANY, ANY);
	assert_int_equal(s.p[BLUE].zone_down[SZ_STALL], 1);
	assert_int_equal(s.p[RED].zone_down[SZ_STALL], 1);
	/* the income tile still pays */
	assert_int_equal(sylla_income(&s, RED), 3);
	/* Pillage was removed (avoided): the Floods stay */
	assert_true((s.ev_gone >> SE_PILLAGE) & 1);

	/* now the Floods go while a Pillage is visible: Stalls stay down */
	bare(&s, 4, 0);
	sylla_set_event(&s, 0, SE_FLOOD);
	sylla_set_event(&s, 1, SE_PILLAGE);
	sylla_give_zone(&s, BLUE, SZ_STALL);
	sylla_give_zone(&s, BLUE, SZ_FIELD);
	s.p[BLUE].zone[SZ_STALL]--;
	s.p[BLUE].zone_down[SZ_STALL]++;
	s.p[BLUE].zone[SZ_FIELD]--;
	s.p[BLUE].zone_down[SZ_FIELD]++;
	check_ok(&s);
	sylla_start_phase(&s, SP_EVENTS, 0, &cap_log);
	MV(&s, 0, SM_AVOID, 0, ANY);	/* the Floods avoided and removed */
	MV(&s, 0, SM_AVOID, 3, ANY);
	assert_true((s.ev_gone >> SE_FLOOD) & 1);
	/* "si el Pillaje es visible, los Puestos deben permanecer boca abajo" */
	assert_int_equal(s.p[BLUE].zone_down[SZ_STALL] >= 1, 1);
	assert_int_equal(s.p[BLUE].zone[SZ_FIELD], 1);
}

/* Pillaje: a Stall each, no choice; no income from it. */
static void test_pillage(void **state)
{
	struct sylla_state s;

	(void)state;
	bare(&s, 3, 0);
	sylla_set_event(&s, 0, SE_PILLAGE);
	sylla_set_event(&s, 1, SE_EPIDEMIC);
	sylla_set_event(&s, 2, SE_ERUPTION);
	sylla_give_zone(&s, 1, SZ_STALL);
	sylla_give_zone(&s, 1, SZ_STALL);
	clear_log();
	events_avoiding(&s, 1, 3);
	assert_int_equal(s.p[1].zone_down[SZ_STALL], 1);
	assert_int_equal(sylla_income(&s, 1), 5);
	LOGGED("Pillage, face down: Blue: nothing to turn; Red: Stall; White: nothing to turn.");
}

/* ---- Great Works ---- */

static void work_setup(struct sylla_state *s, int w)
{
	bare(s, 4, 0);
	set_work(s, w);
	sylla_set_money(s, BLUE, 10);
	sylla_set_money(s, RED, 10);
	sylla_set_money(s, WHITE, 10);
	sylla_set_money(s, BLACK, 10);
	sylla_start_phase(s, SP_WORKS, 0, &cap_log);
	assert_int_equal(s->step, SS_VOTE);
}

/* Panteón 10/6/2; "todos los jugadores empatados a votos obtienen el número
 * de puntos correspondientes a su posición". */
static void test_pantheon(void **state)
{
	struct sylla_state s;

	(void)state;
	work_setup(&s, SG_PANTHEON);
	vote(&s, BLUE, 1, 5);
	vote(&s, RED, 1, 5);
	vote(&s, WHITE, 1, 3);
	vote(&s, BLACK, 1, 1);
	assert_int_equal(prestige(&s, BLUE), 20);
	assert_int_equal(prestige(&s, RED), 20);
	assert_int_equal(prestige(&s, WHITE), 12);	/* third after a tie for first */
	assert_int_equal(prestige(&s, BLACK), 10);
}

/* Templo: "los jugadores con 8 puntos obtienen 10 ... con 5 votos ganan 6". */
static void test_temple(void **state)
{
	struct sylla_state s;

	(void)state;
	work_setup(&s, SG_TEMPLE);
	vote(&s, BLUE, 1, 8);
	vote(&s, RED, 1, 9);
	vote(&s, WHITE, 1, 5);
	vote(&s, BLACK, 1, 4);
	assert_int_equal(prestige(&s, BLUE), 20);
	assert_int_equal(prestige(&s, RED), 20);
	assert_int_equal(prestige(&s, WHITE), 16);
	assert_int_equal(prestige(&s, BLACK), 10);
}

/* Granero 5/3; famine back one per 4 votes of its builders. */
static void test_granary(void **state)
{
	struct sylla_state s;

	(void)state;
	work_setup(&s, SG_GRANARY);
	s.famine = 5;
	vote(&s, BLUE, 1, 4);
	vote(&s, RED, 1, 3);
	vote(&s, WHITE, 1, 2);
	vote(&s, BLACK, 0, 6);	/* the plebeians: 3 prestige, no famine effect */
	assert_int_equal(prestige(&s, BLUE), 15 - 3);	/* then famine 3 in phase VII */
	assert_int_equal(prestige(&s, RED), 13 - 3);
	assert_int_equal(prestige(&s, WHITE), 10 - 3);
	assert_int_equal(prestige(&s, BLACK), 13 - 3);
	LOGGED("9 votes for Granary: famine 5 → 3.");
}

static void track_work(int w, int t, const char *line)
{
	struct sylla_state s;

	work_setup(&s, w);
	s.track[t] = 1;
	vote(&s, BLUE, 1, 6);
	vote(&s, RED, 1, 4);
	vote(&s, WHITE, 0, 0);
	vote(&s, BLACK, 1, 0);	/* thumb up without votes: nothing */
	assert_int_equal(prestige(&s, BLUE), 15);
	assert_int_equal(prestige(&s, RED), 13);
	assert_int_equal(prestige(&s, BLACK), 10);
	assert_int_equal(s.track[t], 3);
	LOGGED(line);
}

static void test_baths_coliseum_senate(void **state)
{
	(void)state;
	track_work(SG_BATHS, ST_HEALTH, "10 votes for Public Baths: health 1 → 3.");
	track_work(SG_COLISEUM, ST_LEISURE, "10 votes for Coliseum: leisure 1 → 3.");
	track_work(SG_SENATE, ST_CIVIC, "10 votes for Senate: civic spirit 1 → 3.");
}

/* ---- the 3-player game ---- */

static void test_three_players(void **state)
{
	struct sylla_state s;
	uint16_t m[4] = { 0x3f, 0x3f, 0x3f, 0 };
	int i, shown = 0;

	(void)state;
	fresh(&s, 3, 9);
	for (i = 0; i < 3; i++)
		assert_true(s.p[i].set < 3);
	/* "los jugadores eligen 6 Personajes en lugar de 4" */
	assert_int_equal(sylla_pick_count(&s), 6);
	for (i = 0; i < 5; i++)
		MV(&s, 0, SM_PICK, i, ANY);
	assert_false(CAN(&s, 0, SM_CONFIRM, ANY, ANY));
	MV(&s, 0, SM_PICK, 5, ANY);
	assert_true(CAN(&s, 0, SM_CONFIRM, ANY, ANY));
	MV(&s, 0, SM_CHANGE, ANY, ANY);
	choose_all(&s, m);
	/* "reclutan 1 Personaje de entre 5 cartas" */
	for (i = 0; i < SY_ROW; i++)
		shown += s.row[i] < SY_CHARS;
	assert_int_equal(shown, 5);
	/* the unused set joined the deck: 40 - 18 - 5 */
	assert_int_equal(s.ndeck, 17);
}

/* ---- what a player reads (issue 25, point 3) ---- */

/* The pick list keeps its numbers: the whole set in its order, a card
 * picked listed as "drop" in its place, so `play 1` twice picks the first
 * card and puts it back; four `play 1` never pick four cards. */
static void test_pick_list_keeps_numbers(void **state)
{
	struct sylla_state s;
	struct move_list ml;
	struct buf id = BUF_INIT;
	int k;

	(void)state;
	fresh(&s, 4, 3);
	for (k = 0; k < 4; k++) {
		sylla_moves(&s, 0, &ml);
		assert_int_equal(ml.n, SY_PER_SET);
		if (!(k & 1))
			assert_int_equal(ml.v[0].kind, SM_PICK);
		else
			assert_int_equal(ml.v[0].kind, SM_DROP);
		assert_int_equal(sylla_apply(&s, 0, ml.v[0], &cap_log, &id), 0);
		check_ok(&s);
	}
	assert_int_equal(s.p[0].picks, 0);
	MV(&s, 0, SM_PICK, 3, ANY);
	sylla_moves(&s, 0, &ml);
	for (k = 0; k < SY_PER_SET; k++) {
		assert_int_equal(ml.v[k].a, k);
		assert_int_equal(ml.v[k].kind, k == 3 ? SM_DROP : SM_PICK);
	}
	buf_reset(&id);
	sylla_move_id(&s, 0, ml.v[3], &id);
	assert_string_equal(buf_str(&id), "drop christian merchant yellow grey");
	buf_reset(&id);
	sylla_move_label(&s, 0, ml.v[3], LOC_ES, &id);
	assert_string_equal(buf_str(&id), "Elegido: Comerciante \xe2\x9c\x9d (A G) (devolverlo)");
	MV(&s, 0, SM_DROP, 3, ANY);
	assert_int_equal(s.p[0].picks, 0);
	buf_release(&id);
}

/* After confirming, a seat is told so; the last to confirm gets no "it
 * will be revealed" line (the reveal says it); the others do. */
static void test_confirmed_and_last(void **state)
{
	struct sylla_state s;
	struct buf b = BUF_INIT;
	static const uint16_t m[4] = { 0x00f, 0x0f0, 0x00f, 0x0f0 };
	int i, k;

	(void)state;
	fresh(&s, 4, 9);
	clear_log();
	for (i = 0; i < 4; i++) {
		for (k = 0; k < SY_PER_SET; k++)
			if ((m[i] >> k) & 1)
				MV(&s, i, SM_PICK, k, ANY);
		buf_reset(&b);
		sylla_idle_reason(&s, i, LOC_EN, &b);
		assert_string_equal(buf_str(&b), "");		/* still choosing */
		MV(&s, i, SM_CONFIRM, ANY, ANY);
		buf_reset(&b);
		sylla_idle_reason(&s, i, LOC_EN, &b);
		if (i < 3) {
			assert_string_equal(buf_str(&b), "You have confirmed your choice.");
			buf_reset(&b);
			sylla_idle_reason(&s, i, LOC_ES, &b);
			assert_string_equal(buf_str(&b), "Ya has confirmado tu elección.");
			buf_reset(&b);
			sylla_prompt(&s, i, LOC_EN, &b);
			assert_string_equal(buf_str(&b), "You have confirmed your choice; waiting for the others.");
		} else {
			assert_string_equal(buf_str(&b), "");	/* revealed: a new step */
		}
	}
	for (i = 0; i < 4; i++) {
		char line[96];

		snprintf(line, sizeof(line), "[%d] Your choice is made", i);
		if (i < 3)
			LOGGED(line);
		else if (logged(line))
			fail_msg("the last to confirm was told its choice would be revealed:\n%s",
				 buf_str(&logbuf));
	}
	LOGGED("Black reveals");
	buf_release(&b);
}

/* Plurals by the number, in both languages; the cubes left in phase V on
 * the board and in the prompt; each player's denarii on the board; the
 * automatic passes of an auction logged. */
static void test_presentation(void **state)
{
	struct sylla_state s;
	struct buf b = BUF_INIT;

	(void)state;
	bare(&s, 3, 0);
	sylla_give_char(&s, 1, card(1, 0));		/* Red: a Senator */
	sylla_give_char(&s, 2, card(2, 4));		/* White: a Legionary (R) */
	sylla_set_money(&s, 1, 3);
	sylla_set_money(&s, 2, 2);
	/* an election at 1 vote: "more than 1 vote" */
	sylla_start_phase(&s, SP_CONSUL, 0, &cap_log);
	MV(&s, 1, SM_OFFER, 1, ANY);
	buf_reset(&b);
	sylla_prompt(&s, 2, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "offer more than 1 vote (Senators + denarii) to be First Consul, or pass.");
	buf_reset(&b);
	sylla_prompt(&s, 2, LOC_ES, &b);
	assert_non_null(strstr(buf_str(&b), "más de 1 voto ("));
	/* the denarii the table counted, on the board */
	board(&s, &b);
	assert_non_null(strstr(buf_str(&b), "Red \xc2\xb7 prestige 10 \xc2\xb7 3 denarii"));
	assert_non_null(strstr(buf_str(&b), "White \xc2\xb7 prestige 10 \xc2\xb7 2 denarii"));
	assert_non_null(strstr(buf_str(&b), "Blue (First Consul) \xc2\xb7 prestige 10 \xc2\xb7 0 denarii"));
	MV(&s, 2, SM_PASS, ANY, ANY);
	/* White offers a red tile: Blue, first, has nothing red; Red bids 1;
	 * White, last, cannot beat it */
	clear_log();
	sylla_start_phase(&s, SP_BUILD, 2, &cap_log);
	MV(&s, 2, SM_SELL, 0, ANY);
	LOGGED("Blue has nothing red to bid with and passes.");
	NOT_LOGGED("Red cannot");
	MV(&s, 1, SM_BID, 1, ANY);
	LOGGED("White cannot outbid 1 and passes.");
	/* phase V: cubes left */
	s.tapped = 0;
	sylla_give_char(&s, 2, card(2, 6));		/* White: a Vestal too */
	clear_log();
	sylla_start_phase(&s, SP_EVENTS, 0, &cap_log);
	if (s.step == SS_CUBE && s.decider == 2) {
		buf_reset(&b);
		sylla_prompt(&s, 2, LOC_EN, &b);
		assert_string_equal(buf_str(&b),
				    "place one of your cubes on an event (cubes left: Vestal 1, Legionary 1).");
		board(&s, &b);
		assert_non_null(strstr(buf_str(&b), "\xc2\xb7 cubes left: Vestal 1, Legionary 1\n"));
		assert_non_null(strstr(buf_str(&b), "\xc2\xb7 cubes left: none\n"));
	} else {
		fail_msg("White is not asked for a cube: step %s", sylla_step_ids[s.step]);
	}
	buf_release(&b);
}

/* ---- save and load ---- */

static void test_save_load(void **state)
{
	struct sylla_state s, t;
	struct buf err = BUF_INIT;
	struct rng r;
	int moves = 0;

	(void)state;
	fresh(&s, 4, 77);
	rng_seed(&r, 1, 2);
	while (sylla_awaiting(&s) && moves < 200) {
		unsigned aw = sylla_awaiting(&s);
		int seat = __builtin_ctz(aw);
		struct move m;
		json_t *a, *b;

		assert_int_equal(sylla_bot_move(&s, seat, &r, &m), 0);
		assert_int_equal(sylla_apply(&s, seat, m, NULL, &err), 0);
		a = sylla_save(&s);
		assert_int_equal(sylla_load(&t, a, &err), 0);
		assert_memory_equal(&s, &t, sizeof(s));
		b = sylla_save(&t);
		assert_true(json_equal(a, b));
		json_decref(a);
		json_decref(b);
		moves++;
	}
	buf_release(&err);
}

/* load() refuses what is malformed or inconsistent, and changes nothing
 * it reports on. */
static void test_load_rejects(void **state)
{
	struct sylla_state s, t;
	struct buf err = BUF_INIT;
	json_t *good, *bad;
	uint16_t m[4] = { 0x00f, 0x00f, 0x00f, 0x00f };
	struct {
		const char *key;
		const char *value;
	} cases[] = {
		{ "tracks", "[8, 3, 3]" },
		{ "tracks", "[3, 3]" },
		{ "famine", "7" },
		{ "supply", "[39, 39, 40]" },		/* a token too many */
		{ "event_row", "[0, 1, 2, 3]" },	/* the Decadencia gone */
		{ "works", "[0, 0, 1, 2, 3, 4]" },
		{ "first_consul", "3" },
		{ "step", "11" },			/* a step out of its phase */
		{ "for_hire", "[0, 0, 255, 255, 255, 255]" },
		{ "deck", "[]" },
		{ "stack", "[0, 24]" },			/* an A under a C */
		{ "players", "2" },
		{ "v", "3" },
		{ "v", "0" },
	};
	size_t k;

	(void)state;
	fresh(&s, 4, 5);
	choose_all(&s, m);
	good = sylla_save(&s);
	assert_int_equal(sylla_load(&t, good, &err), 0);
	for (k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		bad = json_deep_copy(good);
		json_object_set_new(bad, cases[k].key, json_loads(cases[k].value, JSON_DECODE_ANY, NULL));
		buf_reset(&err);
		if (!sylla_load(&t, bad, &err))
			fail_msg("load accepted %s = %s", cases[k].key, cases[k].value);
		assert_true(err.len > 0);
		json_decref(bad);
	}
	/* a version 1 save (before "cranes_new") loads with no Crane new;
	 * a version 2 one needs it, in range */
	{
		json_t *seats;

		bad = json_deep_copy(good);
		json_object_set_new(bad, "v", json_integer(1));
		seats = json_object_get(bad, "seats");
		for (k = 0; k < json_array_size(seats); k++)
			json_object_del(json_array_get(seats, k), "cranes_new");
		assert_int_equal(sylla_load(&t, bad, &err), 0);
		assert_memory_equal(&s, &t, sizeof(s));
		json_object_set_new(bad, "v", json_integer(2));
		assert_int_equal(sylla_load(&t, bad, &err), -1);
		json_object_set_new(json_array_get(seats, 0), "cranes_new", json_integer(4));
		assert_int_equal(sylla_load(&t, bad, &err), -1);
		json_decref(bad);
	}
	/* a seat's money beyond the box, a character owned twice, a card
	 * face down with no event keeping it so */
	{
		json_t *seats;

		bad = json_deep_copy(good);
		seats = json_object_get(bad, "seats");
		json_object_set_new(json_array_get(seats, 0), "money", json_integer(60));
		assert_int_equal(sylla_load(&t, bad, &err), -1);
		json_decref(bad);

		bad = json_deep_copy(good);
		/* a plain Merchant: no event ever keeps it face down */
		json_array_set_new(json_object_get(bad, "character_down"),
				   (size_t)__builtin_ctzll(s.own[0] & sylla_mask.kind[SK_MERCHANT] &
							   ~sylla_mask.christian),
				   json_integer(1));
		assert_int_equal(sylla_load(&t, bad, &err), -1);
		json_decref(bad);

		bad = json_deep_copy(good);
		seats = json_object_get(bad, "seats");
		json_object_set_new(json_array_get(seats, 1), "tokens_blind", json_integer(3));
		assert_int_equal(sylla_load(&t, bad, &err), -1);
		json_decref(bad);
	}
	json_decref(good);
	buf_release(&err);
}

/* ---- texts ---- */

static void test_rules_and_cards(void **state)
{
	static const char *const names_ok[] = {
		"Templo privado", "templo", "Temple", "Private Temple", "senado", "Senator", "senador",
		"grua", "Grúa", "insula", "ínsula", "decadencia", "Persecucion de cristianos",
		"coliseo", "Public Baths", "banos publicos", "ecclesia", "vestal", "esclavo",
		"income tile", "Arco del Triunfo",
	};
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;
	size_t k;
	int l;

	(void)state;
	for (k = 0; k < sizeof(names_ok) / sizeof(*names_ok); k++)
		for (l = 0; l < LOC_COUNT; l++) {
			rich_init(&r);
			if (sylla_card(names_ok[k], NULL, (enum locale)l, &r)) {
				buf_reset(&b);
				rich_to_plain(&r, &b);
				fail_msg("card %s: %s", names_ok[k], buf_str(&b));
			}
			rich_release(&r);
		}
	rich_init(&r);
	assert_int_equal(sylla_card("dragon", NULL, LOC_EN, &r), -1);
	rich_release(&r);
	/* every name card_names lists is found */
	for (l = 0; l < LOC_COUNT; l++) {
		const char *p;

		buf_reset(&b);
		sylla_card_names((enum locale)l, &b);
		for (p = buf_str(&b); *p;) {
			const char *q = strchr(p, '\n');
			char *name = strndup(p, (size_t)(q - p));

			rich_init(&r);
			if (sylla_card(name, NULL, (enum locale)l, &r))
				fail_msg("card_names lists %s but card() does not find it", name);
			rich_release(&r);
			free(name);
			p = q + 1;
		}
	}
	for (l = 0; l < LOC_COUNT; l++) {
		rich_init(&r);
		assert_int_equal(sylla_rules(NULL, (enum locale)l, &r), 0);
		rich_release(&r);
		rich_init(&r);
		assert_int_equal(sylla_rules("events", (enum locale)l, &r), 0);
		rich_release(&r);
		rich_init(&r);
		assert_int_equal(sylla_rules("eventos", (enum locale)l, &r), 0);
		rich_release(&r);
		rich_init(&r);
		assert_int_equal(sylla_rules("nonsense", (enum locale)l, &r), -1);
		rich_release(&r);
	}
	buf_release(&b);
}

/* Every label and id fits a chat menu's 100 characters, in both
 * languages, over random games of 3 and 4. */
static void test_labels_fit(void **state)
{
	struct sylla_state s;
	struct buf b = BUF_INIT, err = BUF_INIT;
	struct move_list ml;
	struct rng r;
	int g, moves;

	(void)state;
	for (g = 0; g < 20; g++) {
		fresh(&s, 3 + g % 2, 900 + (uint64_t)g);
		rng_seed(&r, (uint64_t)g, 1);
		for (moves = 0; sylla_awaiting(&s) && moves < 5000; moves++) {
			int seat = __builtin_ctz(sylla_awaiting(&s)), i, l;

			sylla_moves(&s, seat, &ml);
			assert_true(ml.n <= 25);	/* a chat menu */
			for (i = 0; i < ml.n; i++) {
				buf_reset(&b);
				sylla_move_id(&s, seat, ml.v[i], &b);
				assert_true(b.len <= 100);
				for (l = 0; l < LOC_COUNT; l++) {
					buf_reset(&b);
					sylla_move_label(&s, seat, ml.v[i], (enum locale)l, &b);
					if (utf8_width(buf_str(&b)) > 100)
						fail_msg("label too long: %s", buf_str(&b));
				}
			}
			assert_int_equal(sylla_apply(&s, seat, ml.v[rng_below(&r, (uint32_t)(ml.n - ml.nmeta))],
						     NULL, &err), 0);
		}
		assert_int_equal(s.phase, SP_OVER);
	}
	buf_release(&b);
	buf_release(&err);
}

/* Every option word starts a game through the driver table; an unknown
 * one is refused with the list. */
static void test_option_words(void **state)
{
	struct sylla_state s;
	struct buf err = BUF_INIT;
	int k;

	(void)state;
	for (k = 0; sylla_ops.option_words[k]; k++) {
		memset(&s, 0, sizeof(s));
		assert_int_equal(sylla_ops.setup(&s, 4, 1, sylla_ops.option_words[k], &err), 0);
		check_ok(&s);
	}
	memset(&s, 0, sizeof(s));
	assert_int_equal(sylla_ops.setup(&s, 4, 1, "SEALED-ELECTION", &err), 0);
	assert_int_equal(s.opts, SO_SEALED);
	memset(&s, 0, sizeof(s));
	assert_int_equal(sylla_ops.setup(&s, 4, 1, "draft", &err), -1);
	assert_non_null(strstr(buf_str(&err), "sealed-election"));
	assert_int_equal(sylla_ops.setup(&s, 2, 1, "", &err), -1);
	assert_int_equal(sylla_ops.setup(&s, 5, 1, "", &err), -1);
	buf_release(&err);
}

static int setup_group(void **state)
{
	(void)state;
	buf_init(&logbuf, 0);
	return 0;
}

static int teardown_group(void **state)
{
	(void)state;
	buf_release(&logbuf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_first_choice_and_money),
		cmocka_unit_test(test_secret_first_choice),
		cmocka_unit_test(test_secret_vote),
		cmocka_unit_test(test_sealed_election),
		cmocka_unit_test(test_secret_hide),
		cmocka_unit_test(test_example_election),
		cmocka_unit_test(test_example_famine_marker),
		cmocka_unit_test(test_example_recruitment),
		cmocka_unit_test(test_example_buildings),
		cmocka_unit_test(test_five_sales),
		cmocka_unit_test(test_example_income),
		cmocka_unit_test(test_example_events),
		cmocka_unit_test(test_example_baths),
		cmocka_unit_test(test_example_famine_and_fields),
		cmocka_unit_test(test_example_crisis),
		cmocka_unit_test(test_crisis_all_equal),
		cmocka_unit_test(test_example_end),
		cmocka_unit_test(test_shared_win),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_private_temple),
		cmocka_unit_test(test_insula),
		cmocka_unit_test(test_supply_hidden),
		cmocka_unit_test(test_determinize_supply),
		cmocka_unit_test(test_crane),
		cmocka_unit_test(test_tavern),
		cmocka_unit_test(test_arch_statue_bank),
		cmocka_unit_test(test_track_events),
		cmocka_unit_test(test_decadence),
		cmocka_unit_test(test_remove_tie),
		cmocka_unit_test(test_persecution),
		cmocka_unit_test(test_purge_and_exceptions),
		cmocka_unit_test(test_revolt),
		cmocka_unit_test(test_floods_and_pillage),
		cmocka_unit_test(test_pillage),
		cmocka_unit_test(test_pantheon),
		cmocka_unit_test(test_temple),
		cmocka_unit_test(test_granary),
		cmocka_unit_test(test_baths_coliseum_senate),
		cmocka_unit_test(test_three_players),
		cmocka_unit_test(test_pick_list_keeps_numbers),
		cmocka_unit_test(test_confirmed_and_last),
		cmocka_unit_test(test_presentation),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_load_rejects),
		cmocka_unit_test(test_rules_and_cards),
		cmocka_unit_test(test_labels_fit),
		cmocka_unit_test(test_option_words),
	};

	return cmocka_run_group_tests_name("sylla", tests, setup_group, teardown_group);
}
