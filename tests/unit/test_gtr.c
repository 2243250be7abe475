/*
 * Glory to Rome: unit tests of the rules core (games/gtr/): setup, the
 * turn structure, each role, petition, Palacio, Senadores, clients, the end
 * conditions, scoring, save/load, refusal of illegal moves, and full random
 * and AI games for 2-5 players with gtr_check() after every move.
 *
 * Positions are built from a real setup with every hand and the pool
 * emptied into the deck (clean()), then filled with gtr_put() and
 * gtr_give_building(), so every card stays accounted for.  Moves are typed
 * as canonical ids through game_play(), as a player would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/gtr/gtr.h"

static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve" };

/* ---- log capture ---- */

static struct buf logbuf;

static void emit(struct game_log *log, int seat, const char *text)
{
	if (seat < 0)
		buf_printf(&logbuf, "%s\n", text);
	else
		buf_printf(&logbuf, "[%d] %s\n", seat, text);
}

static struct game_log log_en = { LOC_EN, names, emit, NULL };
static struct game_log log_es = { LOC_ES, names, emit, NULL };

/* ---- helpers ---- */

static void check_ok(const struct gtr_state *s, int line)
{
	struct buf err = BUF_INIT;

	if (gtr_check(s, &err))
		fail_msg("line %d: invariant broken: %s", line, buf_str(&err));
	buf_release(&err);
}

static void list_moves(const struct gtr_state *s, int seat, struct buf *out)
{
	struct move_list ml;
	int i;

	gtr_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		buf_addstr(out, "  ");
		gtr_move_id(s, seat, ml.v[i], out);
		buf_addch(out, '\n');
	}
}

#define PLAY(s, seat, text) play_at(s, seat, text, __LINE__)

static void play_at(struct gtr_state *s, int seat, const char *text, int line)
{
	struct buf err = BUF_INIT, list = BUF_INIT;

	if (game_play(&gtr_ops, s, seat, text, &log_en, LOC_EN, &err)) {
		list_moves(s, seat, &list);
		fail_msg("line %d: '%s' by seat %d refused: %s\nmoves:\n%s", line, text, seat,
			 buf_str(&err), buf_str(&list));
	}
	buf_release(&err);
	buf_release(&list);
	check_ok(s, line);
}

/* 1 when text is one of seat's move ids now. */
static int has_move(const struct gtr_state *s, int seat, const char *text)
{
	struct move_list ml;
	struct buf id = BUF_INIT;
	int i, found = 0;

	gtr_moves(s, seat, &ml);
	for (i = 0; i < ml.n && !found; i++) {
		buf_reset(&id);
		gtr_move_id(s, seat, ml.v[i], &id);
		found = !strcmp(buf_str(&id), text);
	}
	buf_release(&id);
	return found;
}

#define PUT(s, c, f, fs, t, ts) assert_int_equal(gtr_put(s, c, f, fs, t, ts), 0)

static void hand(struct gtr_state *s, int seat, int c)
{
	if (c == GTR_JACK)
		PUT(s, GTR_JACK, GZ_JACKS, 0, GZ_HAND, seat);
	else
		PUT(s, c, GZ_DECK, 0, GZ_HAND, seat);
}

static void pool(struct gtr_state *s, int c) { PUT(s, c, GZ_DECK, 0, GZ_POOL, 0); }
static void stock(struct gtr_state *s, int seat, int c) { PUT(s, c, GZ_DECK, 0, GZ_STOCK, seat); }
static void client(struct gtr_state *s, int seat, int c) { PUT(s, c, GZ_DECK, 0, GZ_CLIENTS, seat); }
static void vault(struct gtr_state *s, int seat, int c) { PUT(s, c, GZ_DECK, 0, GZ_VAULT, seat); }

static void top(struct gtr_state *s, int c)
{
	PUT(s, c, GZ_DECK, 0, GZ_POOL, 0);
	PUT(s, c, GZ_POOL, 0, GZ_DECK, 0);
	assert_int_equal(s->deck[s->ndeck - 1], c);
}

static void built(struct gtr_state *s, int seat, int c)
{
	assert_int_equal(gtr_give_building(s, seat, c, -1, 0, 1), 0);
}

static void founded(struct gtr_state *s, int seat, int c, int nmat)
{
	assert_int_equal(gtr_give_building(s, seat, c, -1, nmat, 0), 0);
}

/* A game past setup with empty hands, pool and clienteles, seat 0 to lead. */
static struct gtr_state *clean(int n, const char *opts)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int seat, c;

	if (gtr_setup(s, n, 99, opts, &err))
		fail_msg("setup: %s", buf_str(&err));
	for (seat = 0; seat < n; seat++)
		for (c = 0; c < GTR_NAMES; c++)
			while (s->p[seat].hand[c])
				PUT(s, c, GZ_HAND, seat, c == GTR_JACK ? GZ_JACKS : GZ_DECK, 0);
	for (c = 0; c < GC_COUNT; c++)
		while (s->pool[c])
			PUT(s, c, GZ_POOL, 0, GZ_DECK, 0);
	gtr_start_turn(s, 0);
	check_ok(s, __LINE__);
	buf_reset(&logbuf);
	return s;
}

static int stock_of(const struct gtr_state *s, int seat, int m)
{
	return gtr_count(s->p[seat].stock, m);
}

/* ---- setup ---- */

static void test_setup(void **state)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int n, i, m;

	for (n = 2; n <= 5; n++) {
		int town = n == 2 ? 3 : n;
		int best = -1;

		memset(s, 0, sizeof(*s));
		assert_int_equal(gtr_setup(s, n, 7 + n, "", &err), 0);
		check_ok(s, __LINE__);
		for (i = 0; i < n; i++) {
			/* "repartid 4 cartas ... además un Senador" */
			assert_int_equal(gtr_hand_size(s, i), 5);
			assert_int_equal(s->p[i].hand[GTR_JACK], 1);
			assert_int_equal(gtr_influence(s, i), 2);
		}
		assert_int_equal(s->jacks, 6 - n);
		for (m = 0; m < GM_COUNT; m++) {
			assert_int_equal(s->in_town[m], town);
			assert_int_equal(s->out_town[m], 6 - town);
		}
		/* the drawn cards start the pool; the leader drew the first name */
		assert_true(gtr_total(s->pool, GC_COUNT) >= n);
		for (i = 0; i < GC_COUNT; i++)
			if (s->pool[i] && (best < 0 || strcmp(gtr_cards[i].sort, gtr_cards[best].sort) < 0))
				best = i;
		assert_int_equal(s->phase, GP_LEAD);
		assert_int_equal(gtr_awaiting(s), 1u << s->leader);
		assert_int_equal(s->ndeck, 144 - 4 * n - gtr_total(s->pool, GC_COUNT));
	}
	/* quick: 2 in town with 2-3 players, 3 with 4-5 */
	memset(s, 0, sizeof(*s));
	assert_int_equal(gtr_setup(s, 3, 1, "quick", &err), 0);
	assert_int_equal(s->in_town[GM_MARBLE], 2);
	assert_int_equal(s->out_town[GM_MARBLE], 4);
	memset(s, 0, sizeof(*s));
	assert_int_equal(gtr_setup(s, 5, 1, "quick", &err), 0);
	assert_int_equal(s->in_town[GM_RUBBLE], 3);
	/* bad options and counts */
	memset(s, 0, sizeof(*s));
	assert_int_equal(gtr_setup(s, 3, 1, "quick turbo", &err), -1);
	assert_non_null(strstr(buf_str(&err), "turbo"));
	assert_int_equal(gtr_setup(s, 6, 1, "", &err), -1);
	assert_int_equal(gtr_setup(s, 1, 1, "", &err), -1);
	/* the same seed gives the same game */
	{
		struct gtr_state *t = calloc(1, sizeof(*t));

		memset(s, 0, sizeof(*s));
		assert_int_equal(gtr_setup(s, 4, 555, "", &err), 0);
		assert_int_equal(gtr_setup(t, 4, 555, "", &err), 0);
		assert_memory_equal(s, t, sizeof(*s));
		free(t);
	}
	free(s);
	buf_release(&err);
}

static void test_experienced_pick(void **state)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int i, c, first = -1;

	assert_int_equal(gtr_setup(s, 3, 31, "experienced", &err), 0);
	check_ok(s, __LINE__);
	assert_int_equal(s->step, GS_PICK);
	/* everybody is asked at once */
	assert_int_equal(gtr_awaiting(s), 7u);
	for (i = 0; i < 3; i++)
		assert_int_equal(gtr_hand_size(s, i), 6);
	/* each shows its first card in Spanish order */
	for (i = 0; i < 3; i++) {
		int best = -1;
		char id[64];

		for (c = 0; c < GC_COUNT; c++)
			if (s->p[i].hand[c] && (best < 0 || strcmp(gtr_cards[c].sort,
								 gtr_cards[best].sort) < 0))
				best = c;
		snprintf(id, sizeof(id), "pick %s", gtr_cards[best].id);
		if (first < 0 || strcmp(gtr_cards[best].sort, gtr_cards[first].sort) < 0)
			first = best;
		PLAY(s, i, id);
		if (i < 2)
			assert_int_equal(s->step, GS_PICK);
		/* a seat that picked is no longer asked */
		assert_false(i < 2 && (gtr_awaiting(s) & (1u << i)));
	}
	assert_int_equal(s->phase, GP_LEAD);
	assert_true(s->pool[first] >= 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(gtr_hand_size(s, i), 5);
	free(s);
	buf_release(&err);
}

/* ---- the turn ---- */

/* The rulebook's "Ejemplo de una ronda": 4 players. */
static void test_example_round(void **state)
{
	struct gtr_state *s = clean(4, "");

	hand(s, 0, GC_ROAD);		/* a yellow card */
	client(s, 0, GC_INSULA);	/* "Tiene un Obrero en la Clientela" */
	hand(s, 1, GTR_JACK);
	client(s, 2, GC_LATRINE);
	hand(s, 2, GC_CIRCUS);		/* 1 card: thinks up to 5 */
	for (int k = 0; k < 5; k++)	/* Jugador 4 has 5: draws one */
		hand(s, 3, GC_ACADEMY + k);
	pool(s, GC_BAR);
	pool(s, GC_DOCK);
	pool(s, GC_VILLA);
	pool(s, GC_TEMPLE);
	PLAY(s, 0, "lead laborer");
	PLAY(s, 0, "road");
	assert_non_null(strstr(buf_str(&logbuf), "Ana leads Laborer with Road."));
	PLAY(s, 1, "follow");
	PLAY(s, 1, "senator");
	PLAY(s, 2, "think draw");
	assert_int_equal(gtr_hand_size(s, 2), 5);
	PLAY(s, 3, "think draw");
	assert_int_equal(gtr_hand_size(s, 3), 6);
	/* Jugador 1: twice (card + client) */
	assert_int_equal(gtr_awaiting(s), 1u << 0);
	assert_int_equal(gtr_turn_actions(s, 0), 2);
	PLAY(s, 0, "take rubble");
	PLAY(s, 0, "take wood");
	/* Jugador 2 once, Jugador 3 once with the client although it thought */
	assert_int_equal(gtr_awaiting(s), 1u << 1);
	PLAY(s, 1, "take stone");
	assert_int_equal(gtr_awaiting(s), 1u << 2);
	PLAY(s, 2, "take marble");
	/* Jugador 4: no action; the card to the pool, the Senator to the pile;
	 * Jugador 2 leads */
	assert_int_equal(s->phase, GP_LEAD);
	assert_int_equal(s->leader, 1);
	assert_int_equal(s->pool[GC_ROAD], 1);
	assert_int_equal(s->jacks, 6);		/* clean() put all six on the pile */
	assert_int_equal(stock_of(s, 0, GM_RUBBLE) + stock_of(s, 0, GM_WOOD), 2);
	assert_int_equal(stock_of(s, 1, GM_STONE), 1);
	assert_int_equal(stock_of(s, 2, GM_MARBLE), 1);
	free(s);
}

static void test_leader_thinks(void **state)
{
	struct gtr_state *s = clean(3, "");

	client(s, 1, GC_ROAD);
	hand(s, 0, GC_ROAD);
	PLAY(s, 0, "think jack");
	/* "el resto de los jugadores no realizan ninguna Acción" */
	assert_int_equal(s->leader, 1);
	assert_int_equal(s->p[0].hand[GTR_JACK], 1);
	assert_int_equal(gtr_total(s->p[1].stock, GC_COUNT), 0);
	/* the Senator may never be used to think; a Think takes a Senador
	 * only while the pile has one */
	s->jacks = 0;
	s->p[2].hand[GTR_JACK] += 3;	/* keep 6 Senators in play */
	assert_false(has_move(s, 1, "think jack"));
	assert_true(has_move(s, 1, "think draw"));
	free(s);
}

static void test_think_draw_counts(void **state)
{
	struct gtr_state *s = clean(2, "");
	int k;

	/* up to 5; at 5 or more one card; Santuario and Templo raise it */
	PLAY(s, 0, "think draw");
	assert_int_equal(gtr_hand_size(s, 0), 5);
	PLAY(s, 1, "think draw");
	assert_int_equal(gtr_hand_size(s, 1), 5);
	PLAY(s, 0, "think draw");
	assert_int_equal(gtr_hand_size(s, 0), 6);
	built(s, 1, GC_TEMPLE);
	assert_int_equal(gtr_hand_limit(s, 1), 9);
	PLAY(s, 1, "think draw");
	assert_int_equal(gtr_hand_size(s, 1), 9);
	for (k = 0; k < 1; k++)
		;
	free(s);
}

static void test_illegal_moves_change_nothing(void **state)
{
	struct gtr_state *s = clean(3, ""), *copy = malloc(sizeof(*s));
	struct buf err = BUF_INIT;
	struct move bad[] = {
		{ GK_LEAD, GR_PATRON, 0, 0 },	/* no card for it */
		{ GK_PLAY, GC_ROAD, 0, 0 },	/* not in this step */
		{ GK_THINK, 7, 0, 0 },
		{ GK_COUNT, 0, 0, 0 },
		{ GK_TAKE, GM_STONE, 0, 0 },
	};
	size_t i;

	hand(s, 0, GC_ROAD);
	memcpy(copy, s, sizeof(*s));
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(gtr_apply(s, 0, bad[i], NULL, &err), -1);
		assert_true(err.len > 0);
		assert_memory_equal(s, copy, sizeof(*s));
	}
	/* a seat not awaited */
	assert_int_equal(gtr_apply(s, 1, (struct move){ GK_THINK, 0, 0, 0 }, NULL, &err), -1);
	assert_non_null(strstr(buf_str(&err), "not your decision"));
	assert_memory_equal(s, copy, sizeof(*s));
	assert_int_equal(gtr_apply(s, 9, (struct move){ GK_THINK, 0, 0, 0 }, NULL, &err), -1);
	/* typed text that matches nothing */
	assert_int_equal(game_play(&gtr_ops, s, 0, "lead patron", NULL, LOC_EN, &err), -1);
	assert_memory_equal(s, copy, sizeof(*s));
	/* and says why (issue 25) */
	assert_non_null(strstr(buf_str(&err), "To lead Patron you need a Patron card in hand, a Jack, "
				"or 2 cards of one material to petition"));
	assert_int_equal(game_play(&gtr_ops, s, 0, "lead nobody", NULL, LOC_EN, &err), -1);
	assert_non_null(strstr(buf_str(&err), "No move matches"));
	s->jacks = 0;
	s->p[2].hand[GTR_JACK] += 3;	/* keep 6 Senators in play */
	assert_int_equal(game_play(&gtr_ops, s, 0, "think jack", NULL, LOC_EN, &err), -1);
	assert_non_null(strstr(buf_str(&err), "No Jack is left in the pile"));
	free(copy);
	free(s);
	buf_release(&err);
}

/* ---- units: Senador, petition, Palacio, Circo ---- */

static void test_senator_and_petition(void **state)
{
	struct gtr_state *s = clean(2, "");

	hand(s, 0, GTR_JACK);
	/* a Senator leads any role */
	assert_true(has_move(s, 0, "lead patron"));
	assert_true(has_move(s, 0, "lead merchant"));
	PUT(s, GTR_JACK, GZ_HAND, 0, GZ_JACKS, 0);
	/* two cards of one role (any role) are a Senator; one is not */
	hand(s, 0, GC_ROAD);
	assert_false(has_move(s, 0, "lead patron"));
	hand(s, 0, GC_BAR);
	assert_true(has_move(s, 0, "lead patron"));
	pool(s, GC_FORUM);
	PLAY(s, 0, "lead patron");
	assert_false(has_move(s, 0, "road"));
	PLAY(s, 0, "petition");
	PLAY(s, 0, "petition road");
	PLAY(s, 0, "petition bar");
	assert_non_null(strstr(buf_str(&logbuf), "leads Patron with a petition of 2 Laborer cards"));
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "hire patron");
	assert_int_equal(gtr_clients(s, 0), 1);
	/* both cards went to the pool at the end of the turn */
	assert_int_equal(s->pool[GC_ROAD] + s->pool[GC_BAR], 2);
	free(s);

	/* original-circus: a petition needs 3; with Circo 2 */
	s = clean(2, "original-circus");
	hand(s, 0, GC_ROAD);
	hand(s, 0, GC_BAR);
	assert_false(has_move(s, 0, "lead patron"));
	hand(s, 0, GC_INSULA);
	assert_true(has_move(s, 0, "lead patron"));
	PUT(s, GC_INSULA, GZ_HAND, 0, GZ_DECK, 0);
	built(s, 0, GC_CIRCUS);
	assert_true(has_move(s, 0, "lead patron"));
	free(s);
}

static void test_circus_and_palace(void **state)
{
	struct gtr_state *s = clean(2, "");

	/* Circo: any card leads Architect */
	hand(s, 0, GC_TEMPLE);
	assert_false(has_move(s, 0, "lead architect"));
	built(s, 0, GC_CIRCUS);
	assert_true(has_move(s, 0, "lead architect"));
	/* Palacio: several units of one role, one action each */
	built(s, 0, GC_PALACE);
	hand(s, 0, GC_ROAD);
	hand(s, 0, GC_INSULA);
	hand(s, 0, GTR_JACK);
	pool(s, GC_VILLA);
	pool(s, GC_VILLA);
	pool(s, GC_FORUM);
	PLAY(s, 0, "lead laborer");
	PLAY(s, 0, "road");
	assert_int_equal(s->step, GS_UNIT);
	assert_true(has_move(s, 0, "done"));
	PLAY(s, 0, "insula");
	PLAY(s, 0, "senator");
	assert_non_null(strstr(buf_str(&logbuf), "Ana adds Senator."));
	/* no more Laborer units (the Temple is not one: Circo is Architect only) */
	assert_int_equal(s->decider, 1);
	PLAY(s, 1, "think draw");
	assert_int_equal(gtr_turn_actions(s, 0), 3);
	PLAY(s, 0, "take stone");
	PLAY(s, 0, "take stone");
	PLAY(s, 0, "take marble");
	assert_int_equal(stock_of(s, 0, GM_STONE), 2);
	assert_int_equal(s->leader, 1);
	free(s);
}

/* ---- clients ---- */

static void test_new_clients_wait(void **state)
{
	struct gtr_state *s = clean(2, "");

	hand(s, 0, GC_FORUM);
	hand(s, 1, GC_STATUE);
	pool(s, GC_TEMPLE);
	pool(s, GC_PALACE);
	client(s, 1, GC_BASILICA);	/* an old Patron client of seat 1 */
	PLAY(s, 0, "lead patron");
	PLAY(s, 0, "forum");
	PLAY(s, 1, "follow");
	PLAY(s, 1, "statue");
	PLAY(s, 0, "hire patron");
	/* the new client does not act this turn: seat 0 is done */
	assert_int_equal(gtr_awaiting(s), 1u << 1);
	assert_int_equal(gtr_turn_actions(s, 0), 1);
	PLAY(s, 1, "hire patron");
	/* the limit: influence 2 */
	assert_int_equal(gtr_clients(s, 1), 2);
	assert_int_equal(s->leader, 1);
	free(s);
}

static void test_circus_maximus_ludus_storeroom(void **state)
{
	struct gtr_state *s = clean(3, "");

	client(s, 0, GC_ROAD);		/* Laborer */
	client(s, 0, GC_VILLA);		/* Merchant */
	client(s, 0, GC_TEMPLE);	/* Patron */
	hand(s, 0, GC_INSULA);
	s->led = GR_LABORER;
	s->p[0].acted = 1;
	s->p[0].units = 1;
	assert_int_equal(gtr_turn_actions(s, 0), 2);
	built(s, 0, GC_CIRCUS_MAXIMUS);	/* each client of the role acts twice */
	assert_int_equal(gtr_turn_actions(s, 0), 3);
	built(s, 0, GC_LUDUS_MAGNA);	/* the Merchant acts as a Laborer too */
	assert_int_equal(gtr_turn_actions(s, 0), 5);
	built(s, 0, GC_STOREROOM);	/* every client is a Laborer */
	assert_int_equal(gtr_turn_actions(s, 0), 7);
	/* a follower who thought: clients once, no doubling */
	s->p[0].acted = 0;
	assert_int_equal(gtr_turn_actions(s, 0), 3);
	s->led = GTR_NONE;
	s->p[0].units = 0;
	free(s);
}

/* ---- roles ---- */

static void test_architect_and_craftsman(void **state)
{
	struct gtr_state *s = clean(2, "");

	hand(s, 0, GC_INSULA);
	hand(s, 0, GC_VILLA);		/* led with */
	hand(s, 1, GC_ROAD);
	stock(s, 0, GC_LATRINE);	/* rubble */
	/* Architect: foundation from hand, material from the stockpile */
	PLAY(s, 0, "lead merchant");
	PLAY(s, 0, "villa");
	PLAY(s, 1, "think draw");
	free(s);

	s = clean(2, "");
	hand(s, 0, GC_INSULA);
	hand(s, 0, GC_AQUEDUCT);	/* Architect card */
	hand(s, 0, GC_TOWER);		/* Architect card */
	stock(s, 0, GC_LATRINE);
	client(s, 0, GC_WALL);		/* an Architect client */
	PLAY(s, 0, "lead architect");
	PLAY(s, 0, "aqueduct");
	PLAY(s, 1, "think draw");
	assert_int_equal(gtr_turn_actions(s, 0), 2);
	assert_false(has_move(s, 0, "foundation insula on wood"));
	PLAY(s, 0, "foundation insula on rubble");
	assert_non_null(strstr(buf_str(&logbuf), "Ana lays the foundation of Insula on a Rubble site."));
	assert_int_equal(s->in_town[GM_RUBBLE], 2);
	/* the one material: a single source, added at once */
	PLAY(s, 0, "add to insula");
	assert_int_equal(gtr_influence(s, 0), 3);
	assert_true(gtr_has(s, 0, GC_INSULA));
	assert_int_equal(gtr_client_limit(s, 0), 5);
	assert_int_equal(s->p[0].infl[GM_RUBBLE], 1);
	/* never two of your own with one name */
	assert_int_equal(s->leader, 1);
	free(s);

	/* Craftsman: materials from hand */
	s = clean(2, "");
	hand(s, 0, GC_DOCK);		/* Craftsman card (wood) */
	hand(s, 0, GC_MARKET);
	hand(s, 0, GC_CIRCUS);
	client(s, 0, GC_PALISADE);	/* a Craftsman client */
	PLAY(s, 0, "lead craftsman");
	PLAY(s, 0, "dock");
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "foundation market on wood");
	assert_false(has_move(s, 0, "foundation market on wood"));
	PLAY(s, 0, "add to market");	/* only the Circus fits: no second question */
	assert_true(gtr_has(s, 0, GC_MARKET));
	assert_int_equal(gtr_vault_limit(s, 0), 5);
	free(s);
}

static void test_out_of_town(void **state)
{
	struct gtr_state *s = clean(2, "");

	s->out_town[GM_RUBBLE] += s->in_town[GM_RUBBLE];
	s->in_town[GM_RUBBLE] = 0;
	hand(s, 0, GC_INSULA);
	hand(s, 0, GC_AQUEDUCT);
	/* one action: no out-of-town site */
	PLAY(s, 0, "lead architect");
	PLAY(s, 0, "aqueduct");
	PLAY(s, 1, "think draw");
	assert_int_equal(s->leader, 1);	/* nothing possible, skipped */
	assert_int_equal(s->p[0].nstruct, 0);
	free(s);

	s = clean(2, "");
	s->out_town[GM_RUBBLE] += s->in_town[GM_RUBBLE];
	s->in_town[GM_RUBBLE] = 0;
	hand(s, 0, GC_INSULA);
	hand(s, 0, GC_AQUEDUCT);
	client(s, 0, GC_WALL);
	PLAY(s, 0, "lead architect");
	PLAY(s, 0, "aqueduct");
	PLAY(s, 1, "think draw");
	/* two consecutive actions */
	PLAY(s, 0, "foundation insula on rubble out of town");
	assert_int_equal(s->out_town[GM_RUBBLE], 5);
	assert_int_equal(s->leader, 1);	/* both actions spent */
	free(s);

	/* Torre: one action */
	s = clean(2, "");
	s->out_town[GM_RUBBLE] += s->in_town[GM_RUBBLE];
	s->in_town[GM_RUBBLE] = 0;
	built(s, 0, GC_TOWER);
	hand(s, 0, GC_INSULA);
	hand(s, 0, GC_AQUEDUCT);
	PLAY(s, 0, "lead architect");
	PLAY(s, 0, "aqueduct");
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "foundation insula on rubble out of town");
	free(s);
}

static void test_laborer_patron_merchant(void **state)
{
	struct gtr_state *s = clean(2, "");

	/* Laborer: "coges una carta de la Reserva"; the played card is not
	 * in the pool yet */
	hand(s, 0, GC_ROAD);
	hand(s, 1, GC_INSULA);
	pool(s, GC_VILLA);
	PLAY(s, 0, "lead laborer");
	PLAY(s, 0, "road");
	PLAY(s, 1, "follow");
	PLAY(s, 1, "insula");
	assert_false(has_move(s, 0, "take rubble"));
	PLAY(s, 0, "take stone");
	/* seat 1: nothing left in the pool, skipped */
	assert_int_equal(s->leader, 1);
	free(s);

	/* Merchant: stockpile -> vault, limit = influence */
	s = clean(2, "");
	hand(s, 0, GC_VILLA);
	client(s, 0, GC_SEWER);
	client(s, 0, GC_PRISON);
	stock(s, 0, GC_TEMPLE);
	stock(s, 0, GC_ROAD);
	stock(s, 0, GC_DOCK);
	PLAY(s, 0, "lead merchant");
	PLAY(s, 0, "villa");
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "sell marble");
	assert_non_null(strstr(buf_str(&logbuf), "Ana puts Marble into the vault."));
	PLAY(s, 0, "sell rubble");
	/* the vault is full (2): the third action is skipped */
	assert_int_equal(gtr_vault_size(s, 0), 2);
	assert_int_equal(s->leader, 1);
	free(s);
}

static void test_legionary(void **state)
{
	struct gtr_state *s = clean(4, "");

	hand(s, 0, GC_ACADEMY);		/* Legionary card */
	hand(s, 0, GC_INSULA);		/* revealed: rubble */
	hand(s, 0, GC_ROAD);		/* revealed: rubble */
	client(s, 0, GC_ARCHWAY);	/* a Legionary client: 2 demands */
	pool(s, GC_BAR);
	hand(s, 1, GC_LATRINE);		/* left neighbour: one rubble */
	hand(s, 3, GC_CIRCUS);		/* right neighbour: none */
	hand(s, 2, GC_ROAD);		/* across: never asked */
	PLAY(s, 0, "lead legionary");
	PLAY(s, 0, "academy");
	PLAY(s, 1, "think jack");
	PLAY(s, 2, "think jack");
	PLAY(s, 3, "think jack");
	PLAY(s, 0, "demand rubble");
	PLAY(s, 0, "demand rubble");
	/* the pool's match is the Legionary's choice ("puedes coger") */
	assert_int_equal(s->step, GS_LEGION_POOL);
	assert_int_equal(gtr_awaiting(s), 1u);
	PLAY(s, 0, "take rubble");
	/* the pool's one Bar, the left neighbour's Latrine; right: Glory */
	assert_int_equal(stock_of(s, 0, GM_RUBBLE), 2);
	assert_int_equal(s->p[1].hand[GC_LATRINE], 0);
	assert_int_equal(s->p[2].hand[GC_ROAD], 1);
	assert_non_null(strstr(buf_str(&logbuf), "Dee: \"Glory to Rome!\" (no Rubble)"));
	/* the demanded cards stay in hand */
	assert_int_equal(s->p[0].hand[GC_INSULA] + s->p[0].hand[GC_ROAD], 2);
	free(s);

	/* Empalizada protects, Puente ignores it and also takes from the
	 * stockpile, Muralla protects always */
	s = clean(4, "");
	hand(s, 0, GC_ACADEMY);
	hand(s, 0, GC_INSULA);
	built(s, 0, GC_BRIDGE);
	built(s, 1, GC_PALISADE);
	hand(s, 1, GC_ROAD);
	stock(s, 1, GC_LATRINE);
	built(s, 2, GC_WALL);
	hand(s, 2, GC_BAR);
	hand(s, 3, GC_ROAD);
	PLAY(s, 0, "lead legionary");
	PLAY(s, 0, "academy");
	PLAY(s, 1, "think jack");
	PLAY(s, 2, "think jack");
	PLAY(s, 3, "think jack");
	PLAY(s, 0, "demand rubble");
	/* Muralla: Cy may still give ("puedes darlas si quieres"); it keeps */
	assert_int_equal(gtr_awaiting(s), 1u << 2);
	assert_true(has_move(s, 2, "give bar"));
	PLAY(s, 2, "keep");
	assert_int_equal(s->p[1].hand[GC_ROAD], 0);
	assert_int_equal(s->p[1].stock[GC_LATRINE], 0);
	assert_int_equal(s->p[2].hand[GC_BAR], 1);	/* Muralla */
	assert_int_equal(s->p[3].hand[GC_ROAD], 0);	/* Puente: everybody */
	assert_int_equal(stock_of(s, 0, GM_RUBBLE), 3);
	free(s);

	/* Coliseo: matching clients into the vault while there is room */
	s = clean(2, "");
	hand(s, 0, GC_ACADEMY);
	hand(s, 0, GC_INSULA);
	built(s, 0, GC_COLISEUM);
	client(s, 1, GC_ROAD);
	client(s, 1, GC_VILLA);
	PLAY(s, 0, "lead legionary");
	PLAY(s, 0, "academy");
	PLAY(s, 1, "think jack");
	PLAY(s, 0, "demand rubble");
	assert_int_equal(s->step, GS_COLISEUM);
	assert_false(has_move(s, 0, "coliseum merchant from player 2"));
	PLAY(s, 0, "coliseum laborer from player 2");
	assert_int_equal(gtr_vault_size(s, 0), 1);
	assert_int_equal(gtr_clients(s, 1), 1);
	free(s);
}

/* ---- buildings that fire at once ---- */

static void test_completion_bonus(void **state)
{
	struct gtr_state *s = clean(2, "");

	/* Fundición: Laborer once per influence, the new points included */
	founded(s, 0, GC_FOUNDRY, 1);
	hand(s, 0, GC_ACADEMY);		/* brick, to finish it */
	hand(s, 0, GC_DOCK);		/* Craftsman card */
	pool(s, GC_ROAD);
	pool(s, GC_ROAD);
	pool(s, GC_ROAD);
	pool(s, GC_ROAD);
	pool(s, GC_ROAD);
	PLAY(s, 0, "lead craftsman");
	PLAY(s, 0, "dock");
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "add to foundry");
	assert_int_equal(gtr_influence(s, 0), 4);
	assert_int_equal(s->step, GS_ACTION);
	assert_true(has_move(s, 0, "take rubble"));
	PLAY(s, 0, "take rubble");
	PLAY(s, 0, "take rubble");
	PLAY(s, 0, "take rubble");
	PLAY(s, 0, "take rubble");
	assert_int_equal(stock_of(s, 0, GM_RUBBLE), 4);
	assert_int_equal(s->leader, 1);
	free(s);
}

static void test_fountain(void **state)
{
	struct gtr_state *s = clean(2, "");
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT, sec = BUF_INIT;
	struct game_view v = { LOC_EN, 2, names };

	built(s, 0, GC_FOUNTAIN);
	hand(s, 0, GC_DOCK);
	client(s, 0, GC_MARKET);
	top(s, GC_TEMPLE);
	PLAY(s, 0, "lead craftsman");
	PLAY(s, 0, "dock");
	PLAY(s, 1, "think jack");
	top(s, GC_INSULA);
	PLAY(s, 0, "fountain");
	assert_int_equal(s->step, GS_FOUNTAIN);
	assert_int_equal(s->fount, GC_INSULA);
	/* seen by the drawer only */
	assert_non_null(strstr(buf_str(&logbuf), "[0] The Fountain gives you Insula."));
	gtr_render_public(s, &v, &r);
	rich_to_plain(&r, &b);
	gtr_secrets(s, LOC_EN, &sec);
	assert_non_null(strstr(buf_str(&sec), "Insula"));
	assert_null(strstr(buf_str(&b), "Insula"));
	PLAY(s, 0, "foundation insula on rubble");
	assert_int_equal(s->fount, GTR_NONE);
	assert_true(s->p[0].crafted);		/* for Academia */
	/* second action: the Fountain again, kept in hand */
	PLAY(s, 0, "fountain");
	assert_int_equal(s->fount, GC_TEMPLE);
	PLAY(s, 0, "keep card");
	assert_int_equal(s->p[0].hand[GC_TEMPLE], 1);
	rich_release(&r);
	buf_release(&b);
	buf_release(&sec);
	free(s);
}

/* ---- end conditions ---- */

static void test_end_deck(void **state)
{
	struct gtr_state *s = clean(2, "");
	struct game_result res;

	while (s->ndeck > 2)
		PUT(s, s->deck[s->ndeck - 1], GZ_DECK, 0, GZ_POOL, 0);
	PLAY(s, 0, "think draw");
	assert_int_equal(s->step, GS_OVER);
	assert_int_equal(s->end, GE_DECK);
	assert_int_equal(gtr_awaiting(s), 0);
	assert_int_equal(gtr_result(s, &res), 1);
	assert_non_null(strstr(buf_str(&logbuf), "The deck has run out"));
	free(s);
}

static void test_end_last_site(void **state)
{
	struct gtr_state *s = clean(2, "");
	int m;

	for (m = 0; m < GM_COUNT; m++) {
		s->out_town[m] = (uint8_t)(s->out_town[m] + s->in_town[m] - (m == GM_RUBBLE));
		s->in_town[m] = m == GM_RUBBLE;
	}
	hand(s, 0, GC_INSULA);
	hand(s, 0, GC_AQUEDUCT);
	client(s, 0, GC_WALL);
	stock(s, 0, GC_ROAD);
	PLAY(s, 0, "lead architect");
	PLAY(s, 0, "aqueduct");
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "foundation insula on rubble");
	/* "Dicho edificio nunca se podrá acabar": no second action */
	assert_int_equal(s->step, GS_OVER);
	assert_int_equal(s->end, GE_SITES);
	free(s);
}

static void test_end_catacomb_and_forum(void **state)
{
	struct gtr_state *s = clean(2, "");
	struct game_result res;
	int r, m;

	founded(s, 0, GC_CATACOMB, 2);
	hand(s, 0, GC_VILLA);
	hand(s, 0, GC_AQUEDUCT);
	stock(s, 0, GC_SEWER);
	PLAY(s, 0, "lead architect");
	PLAY(s, 0, "aqueduct");
	PLAY(s, 1, "think draw");
	PLAY(s, 0, "add to catacomb");
	assert_int_equal(s->end, GE_CATACOMB);
	free(s);

	/* Foro: a client of each role and a material of each type */
	s = clean(2, "");
	built(s, 1, GC_FORUM);
	built(s, 1, GC_INSULA);		/* room for a sixth client */
	for (r = 0; r < GR_COUNT - 1; r++)
		client(s, 1, gtr_first[r]);
	for (m = 0; m < GM_COUNT; m++)
		stock(s, 1, gtr_first[m] + 1);
	hand(s, 0, GC_TEMPLE);
	pool(s, GC_BASILICA);
	hand(s, 1, GC_STATUE);
	PLAY(s, 0, "lead patron");
	PLAY(s, 0, "temple");
	PLAY(s, 1, "follow");
	PLAY(s, 1, "statue");
	PLAY(s, 0, "skip");
	/* seat 1 hires the Patron: it wins at once */
	PLAY(s, 1, "hire patron");
	assert_int_equal(s->end, GE_FORUM);
	assert_int_equal(s->winner, 1);
	assert_int_equal(gtr_result(s, &res), 1);
	assert_int_equal(res.winners, 1u << 1);
	assert_int_equal(res.rank[1], 1);
	assert_int_equal(res.rank[0], 2);
	free(s);

	/* original-circus Foro: the clients alone; Ludus Magna's Merchants
	 * stand in for a missing role */
	s = clean(2, "original-circus");
	built(s, 1, GC_FORUM);
	built(s, 1, GC_LUDUS_MAGNA);
	client(s, 1, GC_ROAD);
	client(s, 1, GC_CIRCUS);
	client(s, 1, GC_ACADEMY);
	client(s, 1, GC_AQUEDUCT);
	client(s, 1, GC_SEWER);
	assert_false(gtr_forum_met(s, 1));
	client(s, 1, GC_VILLA);
	assert_true(gtr_forum_met(s, 1));
	free(s);
}

static void test_concede(void **state)
{
	struct gtr_state *s = clean(3, "");
	struct game_result res;

	PLAY(s, 0, "concede");
	assert_int_equal(s->step, GS_LEAD);	/* the game goes on */
	assert_false(has_move(s, 0, "concede"));
	PLAY(s, 0, "think draw");
	PLAY(s, 1, "concede");
	assert_int_equal(s->step, GS_OVER);
	assert_int_equal(s->end, GE_CONCEDE);
	assert_int_equal(gtr_result(s, &res), 1);
	assert_int_equal(res.winners, 1u << 2);
	free(s);
}

/* ---- scoring ---- */

static void test_scoring(void **state)
{
	struct gtr_state *s = clean(3, "");
	struct game_result res;

	/* merchant bonus: strictly the most of a material; a tie gives none */
	vault(s, 0, GC_VILLA);
	vault(s, 0, GC_SEWER);
	vault(s, 1, GC_PRISON);
	vault(s, 1, GC_ROAD);
	vault(s, 2, GC_GARDEN);
	vault(s, 2, GC_GARDEN);
	assert_int_equal(gtr_merchant_bonus(s, GM_STONE), -1);	/* 2 vs 2 */
	assert_int_equal(gtr_merchant_bonus(s, GM_RUBBLE), 1);
	assert_int_equal(gtr_merchant_bonus(s, GM_MARBLE), -1);
	assert_int_equal(gtr_score(s, 0), 2 + 6);
	assert_int_equal(gtr_score(s, 1), 2 + 3 + 1 + 3);
	assert_int_equal(gtr_score(s, 2), 2 + 6);
	/* Estatua +3, Muralla 1 per 2 stockpile materials */
	built(s, 0, GC_STATUE);
	assert_int_equal(gtr_score(s, 0), 2 + 3 + 6 + 3);
	built(s, 2, GC_WALL);
	stock(s, 2, GC_ROAD);
	stock(s, 2, GC_ROAD);
	stock(s, 2, GC_ROAD);
	assert_int_equal(gtr_score(s, 2), 2 + 2 + 6 + 1);
	/* Portón: a Marble foundation gives its function (Estatua's 3 VP) but
	 * no influence */
	founded(s, 1, GC_STATUE, 0);
	assert_int_equal(gtr_score(s, 1), 9);
	built(s, 1, GC_GATE);
	assert_int_equal(gtr_score(s, 1), 9 + 2 + 3);
	/* ties: the most cards in hand */
	s->end = GE_DECK;
	s->step = GS_OVER;
	s->phase = GP_OVER;
	assert_int_equal(gtr_result(s, &res), 1);
	assert_int_equal(res.score[0], 14);
	assert_int_equal(res.score[1], 14);
	hand(s, 1, GC_INSULA);
	assert_int_equal(gtr_result(s, &res), 1);
	assert_int_equal(res.winners, 1u << 1);
	assert_int_equal(res.rank[0], 2);
	PUT(s, GC_INSULA, GZ_HAND, 1, GZ_DECK, 0);
	assert_int_equal(gtr_result(s, &res), 1);
	assert_int_equal(res.winners, (1u << 0) | (1u << 1));
	free(s);
}

/*
 * Muelle puts a card from the (secret) hand into the stockpile, where a
 * card shows only its material ("de modo que solo se vea el nombre del
 * material"; the Legionary's and the Craftsman's hand cards are logged by
 * material too): the public log names the material, never the card.
 */
static void test_dock_log_hides_card(void **state)
{
	struct gtr_state *s = clean(2, "");
	const char *text;

	built(s, 0, GC_DOCK);
	hand(s, 0, GC_ROAD);
	hand(s, 0, GC_TEMPLE);
	PLAY(s, 0, "lead laborer");
	PLAY(s, 0, "road");
	PLAY(s, 1, "think draw");
	buf_reset(&logbuf);
	PLAY(s, 0, "dock temple");
	text = buf_str(&logbuf);
	assert_int_equal(s->p[0].stock[GC_TEMPLE], 1);
	if (strstr(text, "Temple") || !strstr(text, "Marble"))
		fail_msg("the Dock's public line must name the material only:\n%s", text);
	free(s);
}

/* ---- save / load ---- */

static void roundtrip(const struct gtr_state *s)
{
	struct gtr_state *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;
	json_t *a = gtr_save(s), *b;
	char *text = json_dumps(a, JSON_COMPACT);
	json_t *parsed = json_loads(text, 0, NULL);

	if (gtr_load(t, parsed, &err))
		fail_msg("load: %s\n%s", buf_str(&err), text);
	b = gtr_save(t);
	assert_true(json_equal(a, b));
	assert_memory_equal(s, t, sizeof(*s));
	json_decref(a);
	json_decref(b);
	json_decref(parsed);
	free(text);
	free(t);
	buf_release(&err);
}

static int load_text(const char *text)
{
	struct gtr_state *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
	int r = gtr_load(t, j, &err);

	if (r)
		assert_true(err.len > 0);
	json_decref(j);
	free(t);
	buf_release(&err);
	return r;
}

static void mutate(const struct gtr_state *s, const char *path, json_t *value)
{
	json_t *j = gtr_save(s), *obj = j;
	char key[64], *dot;
	char *text;

	snprintf(key, sizeof(key), "%s", path);
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		if (!strcmp(key, "seat0"))
			obj = json_array_get(json_object_get(obj, "seats"), 0);
		else
			obj = json_object_get(obj, key);
		memmove(key, dot + 1, strlen(dot + 1) + 1);
	}
	json_object_set_new(obj, key, value);
	text = json_dumps(j, JSON_COMPACT);
	if (!load_text(text))
		fail_msg("mutation %s was accepted", path);
	free(text);
	json_decref(j);
}

static void test_save_load(void **state)
{
	struct gtr_state *s = clean(4, "quick");
	struct rng r;
	int moves = 0;

	hand(s, 0, GC_ROAD);
	roundtrip(s);
	/* along a game */
	rng_seed(&r, 5, 5);
	while (gtr_awaiting(s) && moves < 400) {
		int seat = __builtin_ctz(gtr_awaiting(s));
		struct move m;

		assert_int_equal(gtr_bot_move(s, seat, &r, &m), 0);
		assert_int_equal(gtr_apply(s, seat, m, NULL, NULL), 0);
		if (moves++ % 7 == 0)
			roundtrip(s);
	}
	roundtrip(s);
	free(s);

	/* malformed */
	assert_int_equal(load_text("null"), -1);
	assert_int_equal(load_text("{\"v\":2}"), -1);
	assert_int_equal(load_text("[1,2]"), -1);
	s = clean(3, "");
	hand(s, 0, GC_ROAD);
	mutate(s, "players", json_integer(6));
	mutate(s, "step", json_string("dance"));
	mutate(s, "phase", json_string("follow"));	/* step lead in phase follow */
	mutate(s, "deck", json_array());		/* cards missing */
	mutate(s, "pool", json_pack("[s]", "road"));	/* one card too many */
	mutate(s, "jacks", json_integer(5));
	mutate(s, "leader", json_integer(4));
	mutate(s, "in_town", json_pack("[iiiiii]", 3, 3, 3, 3, 3, 9));
	mutate(s, "seat0.hand", json_pack("[s]", "dragon"));
	mutate(s, "seat0.structures", json_pack("[{s:s,s:i,s:i,s:i,s:[]}]", "card", "insula",
						"site", 0, "done", 0, "flags", 0, "materials"));
	mutate(s, "rng", json_object());
	mutate(s, "opts", json_integer(99));
	free(s);
}

/* load(save(s)): 0 accepted, -1 refused. */
static int reload(const struct gtr_state *s)
{
	json_t *j = gtr_save(s);
	char *text = json_dumps(j, JSON_COMPACT);
	int r = load_text(text);

	free(text);
	json_decref(j);
	return r;
}

/* A game of 3 in the actions of a turn led as role by seat 0 with the card
 * c (seat 0 to act, its own frame open). */
static struct gtr_state *in_actions(int role, int c)
{
	struct gtr_state *s = clean(3, "");

	hand(s, 0, c);
	PUT(s, c, GZ_HAND, 0, GZ_CAMP, 0);
	s->p[0].units = 1;
	s->p[0].acted = 1;
	s->led = (uint8_t)role;
	s->phase = GP_ACTIONS;
	s->step = GS_ACTION;
	s->frames[0].kind = (uint8_t)role;
	s->frames[0].dyn = 1;
	s->nframes = 1;
	s->started = 1;
	return s;
}

/*
 * A save is "never trusted": a state whose decision could not have been
 * reached (a Senado question to a seat without Senado, a Prison theft
 * without a Prison, a petition of the wrong size...) must be refused even
 * when every card is accounted for -- otherwise a hand-edited save lets a
 * seat use a building it does not have, or leaves a seat with no move one
 * decision later.
 */
static void test_load_rejects_impossible_context(void **state)
{
	struct gtr_state *s;

	/* end of turn, Senado: only a Senado owner is asked */
	s = clean(3, "");
	PUT(s, GTR_JACK, GZ_JACKS, 0, GZ_CAMP, 1);
	s->p[1].units = s->p[1].acted = 1;
	s->led = GR_LABORER;
	s->phase = GP_SENATE;
	s->step = GS_SENATE;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_SENATE);
	assert_int_equal(reload(s), 0);		/* the control: same state with a Senado */
	free(s);

	/* Alcantarillado: only its owner, with order cards played */
	s = clean(3, "");
	hand(s, 0, GC_ROAD);
	PUT(s, GC_ROAD, GZ_HAND, 0, GZ_CAMP, 0);
	s->p[0].units = s->p[0].acted = 1;
	s->led = GR_LABORER;
	s->phase = GP_SEWER;
	s->step = GS_SEWER;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_SEWER);
	assert_int_equal(reload(s), 0);
	free(s);

	/* Vomitorium / Letrinas before a Think: only their owner, with a hand */
	s = clean(3, "");
	hand(s, 0, GC_ROAD);
	s->step = GS_VOMIT;
	assert_int_equal(reload(s), -1);
	s->step = GS_LATRINE;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_LATRINE);
	assert_int_equal(reload(s), 0);
	free(s);

	/* Academia's Think: its owner after a Craftsman action */
	s = clean(3, "");
	s->phase = GP_ACADEMY;
	s->step = GS_THINK;
	s->p[0].crafted = 1;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_ACADEMY);
	assert_int_equal(reload(s), 0);
	s->p[0].crafted = 0;
	assert_int_equal(reload(s), -1);
	free(s);

	/* a second unit (GS_UNIT after one) needs a Palacio */
	s = clean(3, "");
	hand(s, 0, GC_ROAD);
	hand(s, 0, GC_ROAD);
	PUT(s, GC_ROAD, GZ_HAND, 0, GZ_CAMP, 0);
	s->p[0].units = s->p[0].acted = 1;
	s->led = GR_LABORER;
	s->step = GS_UNIT;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_PALACE);
	assert_int_equal(reload(s), 0);
	free(s);

	/* a petition of 3 without original-circus (the seed: two cards);
	 * this one would also leave the seat without a move after a card */
	s = clean(3, "");
	hand(s, 0, GC_TOWER);
	hand(s, 0, GC_WALL);
	PUT(s, GC_TOWER, GZ_HAND, 0, GZ_CAMP, 0);
	s->led = GR_ARCHITECT;
	s->step = GS_PETITION;
	s->pet_role = GR_ARCHITECT;
	s->pet_have = 1;
	s->pet_need = 3;
	assert_int_equal(reload(s), -1);
	s->pet_need = 2;
	assert_int_equal(reload(s), 0);
	free(s);

	/* a seat already acting before it was asked to follow */
	s = clean(3, "");
	hand(s, 0, GC_ROAD);
	hand(s, 2, GC_ROAD);
	PUT(s, GC_ROAD, GZ_HAND, 0, GZ_CAMP, 0);
	PUT(s, GC_ROAD, GZ_HAND, 2, GZ_CAMP, 2);
	s->p[0].units = s->p[0].acted = 1;
	s->p[2].units = s->p[2].acted = 1;
	s->led = GR_LABORER;
	s->phase = GP_FOLLOW;
	s->step = GS_FOLLOW;
	s->cursor = 1;
	s->decider = 1;
	assert_int_equal(reload(s), -1);
	PUT(s, GC_ROAD, GZ_CAMP, 2, GZ_HAND, 2);
	s->p[2].units = s->p[2].acted = 0;
	assert_int_equal(reload(s), 0);
	free(s);

	/* Prisión's theft without a Prison */
	s = in_actions(GR_ARCHITECT, GC_TOWER);
	built(s, 1, GC_INSULA);
	s->frames[1].kind = GF_PRISON;
	s->frames[1].count = 1;
	s->nframes = 2;
	s->step = GS_PRISON;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_PRISON);
	assert_int_equal(reload(s), 0);
	free(s);

	/* Coliseo's choice without a Coliseo */
	s = in_actions(GR_LEGIONARY, GC_ACADEMY);
	hand(s, 0, GC_INSULA);		/* the card shown */
	PUT(s, GC_ROAD, GZ_DECK, 0, GZ_CLIENTS, 1);
	s->step = GS_COLISEUM;
	s->coli[1][GR_LABORER] = 1;
	s->leg_n = s->leg_k = 1;
	s->leg_dem[0] = GM_RUBBLE;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_COLISEUM);
	assert_int_equal(reload(s), 0);
	/* ...and the Legionary must still hold the card it showed */
	PUT(s, GC_INSULA, GZ_HAND, 0, GZ_DECK, 0);
	assert_int_equal(reload(s), -1);
	free(s);

	/* a victim asked to choose holds more matching cards than it gives;
	 * only a protected one may give from a stockpile, against a Puente */
	s = in_actions(GR_LEGIONARY, GC_ACADEMY);
	hand(s, 0, GC_INSULA);
	hand(s, 1, GC_ROAD);
	stock(s, 1, GC_ROAD);
	s->leg_n = s->leg_k = 1;
	s->leg_dem[0] = GM_RUBBLE;
	s->step = GS_GIVE;
	s->gift = 1u << 1;
	s->p[1].give[GM_RUBBLE] = 1;
	assert_int_equal(reload(s), -1);	/* one Road, one demanded: no choice */
	hand(s, 1, GC_LATRINE);
	assert_int_equal(reload(s), 0);
	s->p[1].give[GM_RUBBLE] = 2;
	assert_int_equal(reload(s), -1);	/* more than demanded */
	s->p[1].give[GM_RUBBLE] = 1;
	s->p[1].give_stock[GM_RUBBLE] = 1;
	assert_int_equal(reload(s), -1);	/* not protected, no Puente */
	s->vol = 1u << 1;
	assert_int_equal(reload(s), -1);	/* a volunteer without protection */
	built(s, 1, GC_WALL);
	assert_int_equal(reload(s), -1);	/* protected, but no Puente */
	built(s, 0, GC_BRIDGE);
	assert_int_equal(reload(s), 0);
	s->gift = 0;
	assert_int_equal(reload(s), -1);	/* asked and not awaited */
	free(s);

	/* a pool decision needs a pool match of a demanded material */
	s = in_actions(GR_LEGIONARY, GC_ACADEMY);
	hand(s, 0, GC_INSULA);
	s->leg_n = s->leg_k = 1;
	s->leg_dem[0] = GM_RUBBLE;
	s->step = GS_LEGION_POOL;
	s->leg_take[GM_RUBBLE] = 1;
	assert_int_equal(reload(s), -1);
	pool(s, GC_ROAD);
	assert_int_equal(reload(s), 0);
	s->leg_take[GM_WOOD] = 1;
	pool(s, GC_CIRCUS);
	assert_int_equal(reload(s), -1);	/* wood was not demanded */
	free(s);

	/* Fuente's card without a Fuente */
	s = in_actions(GR_CRAFTSMAN, GC_CIRCUS);
	PUT(s, GC_ROAD, GZ_DECK, 0, GZ_POOL, 0);
	s->pool[GC_ROAD]--;
	s->fount = GC_ROAD;
	s->step = GS_FOUNTAIN;
	assert_int_equal(reload(s), -1);
	built(s, 0, GC_FOUNTAIN);
	assert_int_equal(reload(s), 0);
	free(s);
}

/* ---- full games ---- */

static int play_game(int n, uint64_t seed, int ai, const char *opts, int *reason)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct move_list ml;
	struct buf err = BUF_INIT;
	struct rng r;
	int moves = 0;

	rng_seed(&r, seed, 17);
	if (gtr_setup(s, n, seed, opts, &err))
		fail_msg("setup: %s", buf_str(&err));
	check_ok(s, __LINE__);
	while (gtr_awaiting(s)) {
		unsigned aw = gtr_awaiting(s);
		int seat = 0;
		struct move m;

		while (!(aw & (1u << seat)))
			seat++;
		assert_true(gtr_moves(s, seat, &ml) > 0);
		if (ai) {
			assert_int_equal(gtr_bot_move(s, seat, &r, &m), 0);
		} else {
			/* uniformly random, but a concession only rarely: it
			 * would end most random games at once */
			do
				m = ml.v[rng_below(&r, (uint32_t)ml.n)];
			while (m.kind == GK_CONCEDE && rng_below(&r, 100));
		}
		if (gtr_apply(s, seat, m, NULL, &err))
			fail_msg("seed %llu: listed move refused: %s", (unsigned long long)seed,
				 buf_str(&err));
		if (gtr_check(s, &err))
			fail_msg("seed %llu n %d move %d: %s", (unsigned long long)seed, n, moves,
				 buf_str(&err));
		if (++moves > 20000)
			fail_msg("seed %llu: no end after %d moves", (unsigned long long)seed, moves);
	}
	assert_int_equal(s->step, GS_OVER);
	reason[s->end]++;
	free(s);
	buf_release(&err);
	return moves;
}

static void run(int ai)
{
	static const char *const opts[] = { "", "experienced", "original-circus", "nofunctions",
					    "quick", "experienced original-circus quick" };
	int n, g;

	for (n = 2; n <= 5; n++) {
		int reason[GE_COUNT] = { 0 };
		long moves = 0;
		int games = ai ? 150 : 300;

		for (g = 0; g < games; g++)
			moves += play_game(n, 9000u + (uint64_t)g * 31u + (uint64_t)n, ai,
					   opts[g % 6], reason);
		print_message("%d players, %s: %d games, %.0f moves/game; ends: deck %d, sites %d, "
			      "catacomb %d, forum %d, concession %d\n", n, ai ? "AI" : "random",
			      games, (double)moves / games, reason[GE_DECK], reason[GE_SITES],
			      reason[GE_CATACOMB], reason[GE_FORUM], reason[GE_CONCEDE]);
		if (ai)
			assert_int_equal(reason[GE_CONCEDE], 0);
	}
}

static void test_random_games(void **state) { run(0); }
static void test_ai_games(void **state) { run(1); }

/* ---- texts ---- */

static void test_texts(void **state)
{
	struct gtr_state *s = clean(2, "");
	struct game_view v = { LOC_ES, 2, names };
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT, sec = BUF_INIT;

	hand(s, 0, GC_CIRCUS);
	hand(s, 0, GC_CIRCUS);
	hand(s, 0, GC_FORUM);
	/* two copies are one option */
	assert_true(has_move(s, 0, "lead craftsman"));
	PLAY(s, 0, "lead craftsman");
	{
		struct move_list ml;
		int i, circus = 0;

		gtr_moves(s, 0, &ml);
		for (i = 0; i < ml.n; i++)
			circus += ml.v[i].kind == GK_PLAY && ml.v[i].a == GC_CIRCUS;
		assert_int_equal(circus, 1);
	}
	/* Spanish log */
	buf_reset(&logbuf);
	assert_int_equal(game_play(&gtr_ops, s, 0, "circus", &log_es, LOC_ES, &b), 0);
	assert_non_null(strstr(buf_str(&logbuf), "Ana lidera Artesano con Circo."));
	/* labels parse too, accents ignored */
	assert_int_equal(game_play(&gtr_ops, s, 1, "pensar: robar 5 cartas", NULL, LOC_ES, &b), 0);
	/* the hand is private; the board shows its size only */
	gtr_render_public(s, &v, &r);
	rich_to_plain(&r, &b);
	assert_null(strstr(buf_str(&b), "Foro"));
	assert_non_null(strstr(buf_str(&b), "Mano 2"));
	gtr_secrets(s, LOC_ES, &sec);
	assert_non_null(strstr(buf_str(&sec), "Foro"));
	rich_release(&r);
	buf_reset(&b);
	gtr_render_private(s, 0, &v, &r);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "Foro"));
	rich_release(&r);
	buf_release(&b);
	buf_release(&sec);
	free(s);
}

static int setup_group(void **state)
{
	buf_init(&logbuf, 0);
	return 0;
}

static int teardown_group(void **state)
{
	buf_release(&logbuf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_experienced_pick),
		cmocka_unit_test(test_example_round),
		cmocka_unit_test(test_leader_thinks),
		cmocka_unit_test(test_think_draw_counts),
		cmocka_unit_test(test_illegal_moves_change_nothing),
		cmocka_unit_test(test_senator_and_petition),
		cmocka_unit_test(test_circus_and_palace),
		cmocka_unit_test(test_new_clients_wait),
		cmocka_unit_test(test_circus_maximus_ludus_storeroom),
		cmocka_unit_test(test_architect_and_craftsman),
		cmocka_unit_test(test_out_of_town),
		cmocka_unit_test(test_laborer_patron_merchant),
		cmocka_unit_test(test_legionary),
		cmocka_unit_test(test_completion_bonus),
		cmocka_unit_test(test_fountain),
		cmocka_unit_test(test_end_deck),
		cmocka_unit_test(test_end_last_site),
		cmocka_unit_test(test_end_catacomb_and_forum),
		cmocka_unit_test(test_concede),
		cmocka_unit_test(test_scoring),
		cmocka_unit_test(test_dock_log_hides_card),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_load_rejects_impossible_context),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_random_games),
		cmocka_unit_test(test_ai_games),
	};

	return cmocka_run_group_tests_name("gtr", tests, setup_group, teardown_group);
}
