/*
 * Glory to Rome: scenario tests against the rulebook (the Spanish
 * "Gloria a Roma", 000_af59ce2b58a8d520.txt and
 * 001_df12c6ec6f002223.txt in ../shared/seeds/), with
 * guide/rulings.md binding and docs/games/gtr.md for tabula's rulings.
 *
 * Positions are built directly through games/gtr/gtr.h (gtr_put,
 * gtr_give_building, gtr_start_turn keep every card accounted for).
 * Moves are picked from gtr_moves() by kind and arguments (MV) and applied
 * with gtr_apply(); a missing move fails with the seat's canonical ids.
 * Every expectation quotes the seed (or names the ruling) it checks.
 *
 * Seats: the rulebook's "Jugador 1" is seat 0, and so on; seat + 1 is the
 * player on the left.
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
#include "util/text.h"

enum { P0, P1, P2, P3, P4 };

static const char *const names[] = { "Jugador 1", "Jugador 2", "Jugador 3", "Jugador 4",
	"Jugador 5" };

#define ANY (-1)

/* ---- helpers ---- */

/* Every move is logged here (public lines plain, private ones "[seat] "),
 * in the locale of cap_log: tests reset it and read what happened. */
static struct buf logbuf;

static void emit(struct game_log *log, int seat, const char *text)
{
	(void)log;
	if (seat < 0)
		buf_printf(&logbuf, "%s\n", text);
	else
		buf_printf(&logbuf, "[%d] %s\n", seat, text);
}

static struct game_log cap_log = { LOC_EN, names, emit, NULL };

static int logged(const char *text)
{
	return strstr(buf_str(&logbuf), text) != NULL;
}

static void check_ok(const struct gtr_state *s)
{
	struct buf err = BUF_INIT;

	if (gtr_check(s, &err))
		fail_msg("invariant broken: %s", buf_str(&err));
	buf_release(&err);
}

static void ids(const struct gtr_state *s, int seat, struct buf *out)
{
	struct move_list ml;
	int i;

	gtr_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		buf_printf(out, "  [%d %d %d %d] ", ml.v[i].kind, ml.v[i].a, ml.v[i].b,
			   ml.v[i].c);
		gtr_move_id(s, seat, ml.v[i], out);
		buf_addch(out, '\n');
	}
}

static int match(struct move m, int kind, int a, int b, int c)
{
	return m.kind == kind && (a == ANY || m.a == a) && (b == ANY || m.b == b) &&
	       (c == ANY || m.c == c);
}

static int find(const struct gtr_state *s, int seat, int kind, int a, int b, int c,
		struct move *out)
{
	struct move_list ml;
	int i;

	if (!(gtr_awaiting(s) & (1u << seat)))
		return 0;
	gtr_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++)
		if (match(ml.v[i], kind, a, b, c)) {
			if (out)
				*out = ml.v[i];
			return 1;
		}
	return 0;
}

#define CAN(s, seat, kind, a, b, c) find(s, seat, kind, a, b, c, NULL)
#define MV(s, seat, kind, a, b, c) mv_at(s, seat, kind, a, b, c, __LINE__)

static void mv_at(struct gtr_state *s, int seat, int kind, int a, int b, int c, int line)
{
	struct move m;
	struct buf err = BUF_INIT, list = BUF_INIT;

	if (!find(s, seat, kind, a, b, c, &m)) {
		ids(s, seat, &list);
		fail_msg("line %d: seat %d (awaiting %#x, step %s, decider %d) has no move "
			 "[%d %d %d %d]; its moves:\n%s", line, seat, gtr_awaiting(s),
			 s->step < GS_COUNT ? gtr_step_ids[s->step] : "?", s->decider,
			 kind, a, b, c, buf_str(&list));
	}
	if (gtr_apply(s, seat, m, &cap_log, &err))
		fail_msg("line %d: move [%d %d %d %d] refused: %s", line, kind, a, b, c,
			 buf_str(&err));
	buf_release(&err);
	buf_release(&list);
	check_ok(s);
}

static int seat_of(const struct gtr_state *s)
{
	unsigned w = gtr_awaiting(s);
	int i;

	for (i = 0; i < s->nplayers; i++)
		if (w & (1u << i))
			return i;
	return -1;
}

/* Plays a move by its canonical id, as a player would type it. */
#define PLAY(s, seat, text) play_at(s, seat, text, __LINE__)

static void play_at(struct gtr_state *s, int seat, const char *text, int line)
{
	struct buf err = BUF_INIT, list = BUF_INIT;

	if (game_play(&gtr_ops, s, seat, text, &cap_log, LOC_EN, &err)) {
		ids(s, seat, &list);
		fail_msg("line %d: '%s' by seat %d refused: %s; moves:\n%s", line, text, seat,
			 buf_str(&err), buf_str(&list));
	}
	buf_release(&err);
	buf_release(&list);
	check_ok(s);
}

/* Moves one card between zones; fails the test if impossible. */
#define PUT(s, card, from, fs, to, ts) put_at(s, card, from, fs, to, ts, __LINE__)

static void put_at(struct gtr_state *s, int card, enum gtr_zone from, int fs,
		   enum gtr_zone to, int ts, int line)
{
	if (gtr_put(s, card, from, fs, to, ts))
		fail_msg("line %d: gtr_put(card %d, %d/%d -> %d/%d) failed", line, card, from,
			 fs, to, ts);
}

static void hand(struct gtr_state *s, int seat, int card)
{
	if (card == GTR_JACK)
		PUT(s, GTR_JACK, GZ_JACKS, 0, GZ_HAND, seat);
	else
		PUT(s, card, GZ_DECK, 0, GZ_HAND, seat);
}

static void pool(struct gtr_state *s, int card) { PUT(s, card, GZ_DECK, 0, GZ_POOL, 0); }
static void stock(struct gtr_state *s, int seat, int card) { PUT(s, card, GZ_DECK, 0, GZ_STOCK, seat); }
static void client(struct gtr_state *s, int seat, int card) { PUT(s, card, GZ_DECK, 0, GZ_CLIENTS, seat); }
static void vault(struct gtr_state *s, int seat, int card) { PUT(s, card, GZ_DECK, 0, GZ_VAULT, seat); }

/* Puts a copy of card on top of the deck (drawn next). */
static void top(struct gtr_state *s, int card)
{
	PUT(s, card, GZ_DECK, 0, GZ_POOL, 0);
	PUT(s, card, GZ_POOL, 0, GZ_DECK, 0);
	assert_int_equal(s->deck[s->ndeck - 1], card);
}

#define BUILT(s, seat, card) building_at(s, seat, card, -1, 0, 1, __LINE__)
#define FOUND(s, seat, card, nmat) building_at(s, seat, card, -1, nmat, 0, __LINE__)

static void building_at(struct gtr_state *s, int seat, int card, int site, int nmat,
			int complete, int line)
{
	if (gtr_give_building(s, seat, card, site, nmat, complete))
		fail_msg("line %d: gtr_give_building(%d, %d) failed", line, seat, card);
}

static struct gtr_struct *structure(struct gtr_state *s, int seat, int card)
{
	int i = gtr_find_struct(s, seat, card);

	if (i < 0)
		fail_msg("seat %d has no structure %d", seat, card);
	return &s->p[seat].st[i];
}

static int hand_n(const struct gtr_state *s, int seat) { return gtr_hand_size(s, seat); }
static int pool_n(const struct gtr_state *s) { return gtr_total(s->pool, GC_COUNT); }
static int stock_n(const struct gtr_state *s, int seat) { return gtr_total(s->p[seat].stock, GC_COUNT); }

/* A game of n players past setup, with every hand, the pool and the
 * clienteles empty (cards back in the deck, Senadores on their pile),
 * seat 0 to lead. */
static struct gtr_state *game_opts(int n, const char *opts)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int seat, c;

	if (gtr_setup(s, n, 4242, opts, &err))
		fail_msg("setup: %s", buf_str(&err));
	for (seat = 0; seat < n; seat++)
		for (c = 0; c < GTR_NAMES; c++)
			while (s->p[seat].hand[c])
				PUT(s, c, GZ_HAND, seat, c == GTR_JACK ? GZ_JACKS : GZ_DECK, 0);
	for (c = 0; c < GC_COUNT; c++)
		while (s->pool[c])
			PUT(s, c, GZ_POOL, 0, GZ_DECK, 0);
	gtr_start_turn(s, 0);
	check_ok(s);
	buf_release(&err);
	return s;
}

static struct gtr_state *game(int n) { return game_opts(n, ""); }

/* Declines a Vomitorium / Letrinas question if one is asked. */
static void decline_discards(struct gtr_state *s, int seat)
{
	while (s->decider == seat && (s->step == GS_VOMIT || s->step == GS_LATRINE))
		MV(s, seat, GK_DONE, ANY, ANY, ANY);
}

/* Ends a unit choice (Palace) if the engine still asks for units. */
static void finish_units(struct gtr_state *s, int seat)
{
	while (s->step == GS_UNIT && s->decider == seat && CAN(s, seat, GK_DONE, ANY, ANY, ANY))
		MV(s, seat, GK_DONE, ANY, ANY, ANY);
}

static void lead(struct gtr_state *s, int seat, int role, int card)
{
	MV(s, seat, GK_LEAD, role, ANY, ANY);
	if (s->step == GS_UNIT && s->decider == seat)
		MV(s, seat, GK_PLAY, card, ANY, ANY);
	finish_units(s, seat);
}

static void follow(struct gtr_state *s, int seat, int card)
{
	MV(s, seat, GK_FOLLOW, ANY, ANY, ANY);
	if (s->step == GS_UNIT && s->decider == seat)
		MV(s, seat, GK_PLAY, card, ANY, ANY);
	finish_units(s, seat);
}

static void think(struct gtr_state *s, int seat, int how)
{
	decline_discards(s, seat);
	MV(s, seat, GK_THINK, how, ANY, ANY);
	decline_discards(s, seat);
}

/* Every follower still to decide takes a Senador (no deck change). */
static void others_think(struct gtr_state *s)
{
	while (s->phase == GP_FOLLOW) {
		int seat = seat_of(s);

		assert_true(seat >= 0);
		think(s, seat, s->jacks ? GTR_THINK_JACK : GTR_THINK_DRAW);
	}
}

/* Declines everything until the current turn is over (a new GP_LEAD). */
static void end_turn(struct gtr_state *s)
{
	int guard = 0;

	while (s->phase != GP_LEAD && s->phase != GP_OVER) {
		int seat = seat_of(s);

		assert_true(++guard < 200);
		assert_true(seat >= 0);
		if (CAN(s, seat, GK_DONE, ANY, ANY, ANY))
			MV(s, seat, GK_DONE, ANY, ANY, ANY);
		else if (CAN(s, seat, GK_BACK, ANY, ANY, ANY))
			MV(s, seat, GK_BACK, ANY, ANY, ANY);
		else if (s->phase == GP_FOLLOW)
			think(s, seat, s->jacks ? GTR_THINK_JACK : GTR_THINK_DRAW);
		else
			fail_msg("end_turn: seat %d cannot decline at step %s", seat,
				 gtr_step_ids[s->step]);
	}
}

/* Declines the current seat's remaining actions. */
static void pass_actions(struct gtr_state *s, int seat)
{
	int guard = 0;

	while (s->phase == GP_ACTIONS && seat_of(s) == seat) {
		assert_true(++guard < 100);
		if (CAN(s, seat, GK_BACK, ANY, ANY, ANY))
			MV(s, seat, GK_BACK, ANY, ANY, ANY);
		else
			MV(s, seat, GK_DONE, ANY, ANY, ANY);
	}
}

/* Adds a material to an own structure: Craftsman from hand (a card).  The
 * engine skips the material question when only one source fits, so the
 * test then checks the card that went in. */
#define add_from_hand(s, seat, target, card) add_at(s, seat, target, card, 0, __LINE__)
/* Architect from the stockpile (material m). */
#define add_from_stock(s, seat, target, m) add_at(s, seat, target, m, 1, __LINE__)

static void add_at(struct gtr_state *s, int seat, int target, int what, int arch, int line)
{
	int k = gtr_find_struct(s, seat, target), before;

	if (k < 0)
		fail_msg("line %d: seat %d has no structure %d", line, seat, target);
	before = s->p[seat].st[k].nmat;
	mv_at(s, seat, GK_ADD, target, ANY, ANY, line);
	if (s->step == GS_MATERIAL && s->decider == seat) {
		mv_at(s, seat, GK_WITH, what, arch ? 0 : ANY, ANY, line);
	} else {
		const struct gtr_struct *t = &s->p[seat].st[k];

		if (t->nmat != before + 1)
			fail_msg("line %d: no material added", line);
		if (arch ? gtr_material_of(t->mat[t->nmat - 1]) != what
			 : t->mat[t->nmat - 1] != what)
			fail_msg("line %d: the engine added card %d, not %d", line,
				 t->mat[t->nmat - 1], what);
	}
}

static void public_board(const struct gtr_state *s, enum locale loc, struct buf *out)
{
	struct game_view v = { loc, s->nplayers, names };
	struct rich r = RICH_INIT;

	gtr_render_public(s, &v, &r);
	rich_to_plain(&r, out);
	rich_release(&r);
}

static int teardown(void **state)
{
	(void)state;
	buf_release(&logbuf);	/* each test starts with an empty log */
	return 0;
}

/* ===================== setup ===================== */

/* "repartid 4 cartas boca abajo a cada jugador. Cada jugador coge además
 * un Senador"; "tantas cartas como jugadores haya" in town; "Todas las
 * cartas de Acción que se han utilizado para elegir al jugador inicial ...
 * forman la Reserva". */
static void test_setup_four_players(void **state)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int i, m;

	assert_int_equal(gtr_setup(s, 4, 99, "", &err), 0);
	check_ok(s);
	for (i = 0; i < 4; i++) {
		assert_int_equal(gtr_hand_size(s, i), 5);
		assert_int_equal(s->p[i].hand[GTR_JACK], 1);
		assert_int_equal(gtr_influence(s, i), 2);	/* "Influencia (2 al inicio)" */
	}
	assert_int_equal(s->jacks, 2);
	for (m = 0; m < GM_COUNT; m++) {
		assert_int_equal(s->in_town[m], 4);
		assert_int_equal(s->out_town[m], 2);
	}
	assert_true(pool_n(s) >= 4);	/* the leader-draw cards */
	assert_int_equal(s->ndeck + pool_n(s), 144 - 16);
	assert_int_equal(s->phase, GP_LEAD);
	buf_release(&err);
	free(s);
}

/* "Cuando la partida sea a dos jugadores recomendamos jugar con 3 cartas en
 * los Solares de la ciudad"; quick: "un máximo de 2 Solares para partidas de
 * 2 o 3 jugadores. Para partidas a 4 o 5 jugadores utiliza 3". */
static void test_setup_sites_two_and_quick(void **state)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int m;

	assert_int_equal(gtr_setup(s, 2, 1, "", &err), 0);
	for (m = 0; m < GM_COUNT; m++)
	{
		assert_int_equal(s->in_town[m], 3);
		assert_int_equal(s->out_town[m], 3);
	}
	memset(s, 0, sizeof(*s));
	assert_int_equal(gtr_setup(s, 3, 1, "quick", &err), 0);
	for (m = 0; m < GM_COUNT; m++) {
		assert_int_equal(s->in_town[m], 2);
		assert_int_equal(s->out_town[m], 4);	/* tabula ruling 14 */
	}
	memset(s, 0, sizeof(*s));
	assert_int_equal(gtr_setup(s, 5, 1, "quick", &err), 0);
	for (m = 0; m < GM_COUNT; m++)
		assert_int_equal(s->in_town[m], 3);
	buf_release(&err);
	free(s);
}

/* "Cada jugador recibe 5 cartas de Acción y un Senador. Escoge una carta". */
static void test_setup_experienced(void **state)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int i;

	assert_int_equal(gtr_setup(s, 3, 5, "experienced", &err), 0);
	check_ok(s);
	assert_int_equal(s->phase, GP_PICK);
	for (i = 0; i < 3; i++) {
		assert_int_equal(gtr_hand_size(s, i), 6);
		assert_int_equal(s->p[i].hand[GTR_JACK], 1);
	}
	assert_int_equal(gtr_awaiting(s), 7u);	/* all choose at once */
	buf_release(&err);
	free(s);
}

/* ===================== the seed's examples ===================== */

/* "Ejemplo de una ronda": Jugador 1 leads a yellow card as Obrero, Jugador 2
 * follows with a Senador, Jugador 3 thinks up to 5, Jugador 4 (5 cards)
 * draws 1 to 6; J1 acts twice (card + Obrero client), J2 once, J3 once by
 * its client although it thought, J4 nothing; the yellow card goes to the
 * pool, the Senador to its pile; J2 leads next. */
static void test_example_round(void **state)
{
	struct gtr_state *s = game(4);
	int jacks0, i;

	client(s, P0, GC_INSULA);		/* "Tiene un Obrero en la Clientela" */
	client(s, P2, GC_INSULA);
	hand(s, P0, GC_BAR);			/* the Taberna, "eScOmbROS" */
	hand(s, P0, GC_MARKET);
	hand(s, P1, GTR_JACK);
	hand(s, P1, GC_ACADEMY);
	hand(s, P2, GC_DOCK);
	hand(s, P2, GC_SHRINE);
	for (i = 0; i < 5; i++)
		hand(s, P3, i == 0 ? GC_TEMPLE : GC_ROAD);
	pool(s, GC_CIRCUS);
	pool(s, GC_ARCHWAY);
	pool(s, GC_SEWER);
	pool(s, GC_VILLA);
	jacks0 = s->jacks;
	gtr_start_turn(s, P0);

	lead(s, P0, GR_LABORER, GC_BAR);	/* "juega una carta amarilla como Obrero" */
	assert_int_equal(s->phase, GP_FOLLOW);
	assert_int_equal(seat_of(s), P1);
	follow(s, P1, GTR_JACK);		/* "sigue al Líder jugando un Senador" */
	assert_int_equal(seat_of(s), P2);
	think(s, P2, GTR_THINK_DRAW);		/* "Roba cartas inmediatamente hasta tener 5" */
	assert_int_equal(hand_n(s, P2), 5);
	think(s, P3, GTR_THINK_DRAW);		/* "solo roba una y pasará a tener 6" */
	assert_int_equal(hand_n(s, P3), 6);

	assert_int_equal(s->phase, GP_ACTIONS);
	assert_int_equal(gtr_current(s), P0);
	assert_int_equal(gtr_turn_actions(s, P0), 2);	/* "dos veces la acción de Obrero" */
	assert_int_equal(gtr_turn_actions(s, P1), 1);	/* "una acción de Obrero" */
	assert_int_equal(gtr_turn_actions(s, P2), 1);	/* "puede llevar a cabo la acción ... de su Clientela" */
	assert_int_equal(gtr_turn_actions(s, P3), 0);	/* "no realiza ninguna acción" */
	MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	MV(s, P0, GK_TAKE, GM_BRICK, ANY, ANY);
	pass_actions(s, P0);
	assert_int_equal(gtr_current(s), P1);
	MV(s, P1, GK_TAKE, GM_STONE, ANY, ANY);
	pass_actions(s, P1);
	assert_int_equal(gtr_current(s), P2);
	MV(s, P2, GK_TAKE, GM_STONE, ANY, ANY);
	pass_actions(s, P2);
	end_turn(s);

	assert_int_equal(s->p[P0].stock[GC_CIRCUS], 1);
	assert_int_equal(s->p[P0].stock[GC_ARCHWAY], 1);
	assert_int_equal(gtr_count(s->p[P1].stock, GM_STONE), 1);
	assert_int_equal(gtr_count(s->p[P2].stock, GM_STONE), 1);
	assert_int_equal(stock_n(s, P3), 0);
	/* "La carta amarilla del Jugador 1 se deja en la Reserva y el Senador del
	 * Jugador 2 en la pila de Senadores" */
	assert_int_equal(s->pool[GC_BAR], 1);
	assert_int_equal(pool_n(s), 1);
	assert_int_equal(s->jacks, jacks0 + 1);
	assert_int_equal(s->p[P1].hand[GTR_JACK], 0);
	assert_int_equal(hand_n(s, P0), 1);
	/* "Ahora el Jugador 2 será el nuevo Líder" */
	assert_int_equal(s->leader, P1);
	assert_int_equal(s->phase, GP_LEAD);
	assert_int_equal(seat_of(s), P1);
	free(s);
}

/* "Ejemplo de utilización del Legionario" (001): "¡Roma exige… Escombros!":
 * "Coge una carta del material exigido de la Reserva (si hay), otro del
 * jugador sentado a tu izquierda y un tercero del de tu derecha (si los
 * tienen en la Mano)"; "Los materiales conseguidos se guardan en el
 * Almacén"; "Guarda de nuevo en tu Mano las cartas que has mostrado". */
static void test_example_legionary(void **state)
{
	struct gtr_state *s = game(4);

	hand(s, P0, GC_ARCHWAY);	/* the Legionario (brick) */
	hand(s, P0, GC_INSULA);		/* the card shown: Escombros */
	pool(s, GC_LATRINE);		/* "Coloca una carta de Escombros de la Reserva" */
	pool(s, GC_CIRCUS);
	hand(s, P1, GC_LATRINE);	/* the left neighbour's Escombros */
	hand(s, P1, GC_MARKET);
	hand(s, P3, GC_MARKET);		/* the right neighbour has none: "Gloria a Roma" */
	hand(s, P2, GC_ROAD);		/* not a neighbour with 4 players */
	gtr_start_turn(s, P0);

	lead(s, P0, GR_LEGIONARY, GC_ARCHWAY);
	others_think(s);
	assert_int_equal(gtr_current(s), P0);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	/* "puedes coger inmediatamente una": the Legionary's choice */
	assert_int_equal(s->step, GS_LEGION_POOL);
	MV(s, P0, GK_TAKE, GM_RUBBLE, ANY, ANY);
	pass_actions(s, P0);

	assert_int_equal(s->p[P0].stock[GC_LATRINE], 2);	/* pool + left neighbour */
	assert_int_equal(stock_n(s, P0), 2);
	assert_int_equal(s->pool[GC_LATRINE], 0);
	assert_int_equal(s->pool[GC_CIRCUS], 1);
	assert_int_equal(s->p[P1].hand[GC_LATRINE], 0);
	assert_int_equal(s->p[P1].hand[GC_MARKET], 1);
	assert_int_equal(s->p[P3].hand[GC_MARKET], 1);
	assert_int_equal(s->p[P2].hand[GC_ROAD], 1);		/* only "izquierda y derecha" */
	assert_int_equal(s->p[P0].hand[GC_INSULA], 1);		/* shown card back in hand */
	free(s);
}

/* ===================== the 40 buildings ===================== */

/* Calzada: "Puedes usar cualquier material en la construcción de edificios
 * de Piedra". */
static void test_building_road(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_ROAD);
	FOUND(s, P0, GC_SEWER, 0);
	stock(s, P0, GC_LATRINE);
	hand(s, P0, GC_AQUEDUCT);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_ARCHITECT, GC_AQUEDUCT);
	others_think(s);
	add_from_stock(s, P0, GC_SEWER, GM_RUBBLE);
	assert_int_equal(structure(s, P0, GC_SEWER)->nmat, 1);
	assert_int_equal(stock_n(s, P0), 0);
	free(s);
}

/* Ínsula: "El tamaño máximo de tu Clientela aumenta en dos". */
static void test_building_insula(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_INSULA);
	assert_int_equal(gtr_influence(s, P0), 3);
	assert_int_equal(gtr_client_limit(s, P0), 5);
	client(s, P0, GC_ROAD);
	client(s, P0, GC_ROAD);
	client(s, P0, GC_ROAD);
	pool(s, GC_TEMPLE);
	hand(s, P0, GC_BASILICA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_BASILICA);
	others_think(s);
	MV(s, P0, GK_HIRE, GR_PATRON, ANY, ANY);	/* the 4th client: 3 + 2 allows it */
	assert_int_equal(gtr_clients(s, P0), 4);
	free(s);
}

/* Letrinas: "Antes de realizar la Acción de Pensar, puedes descartarte de
 * una carta de tu Mano poniéndola en la Reserva". */
static void test_building_latrine(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_LATRINE);
	hand(s, P0, GC_TEMPLE);
	hand(s, P0, GC_ROAD);
	gtr_start_turn(s, P0);
	if (s->step == GS_LEAD && !CAN(s, P0, GK_LATRINE, ANY, ANY, ANY))
		MV(s, P0, GK_THINK, GTR_THINK_DRAW, ANY, ANY);
	if (s->step == GS_VOMIT)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(s->step, GS_LATRINE);
	MV(s, P0, GK_LATRINE, GC_TEMPLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEAD)
		MV(s, P0, GK_THINK, GTR_THINK_DRAW, ANY, ANY);
	assert_int_equal(s->pool[GC_TEMPLE], 1);
	assert_int_equal(s->p[P0].hand[GC_TEMPLE], 0);
	assert_int_equal(hand_n(s, P0), 5);	/* then draws up to 5 */
	free(s);
}

/* Taberna: "puedes coger una carta adicional del Mazo para añadirla a tu
 * Clientela"; "una vez cogido el Cliente del Mazo no puedes coger otro de
 * la Reserva". */
static void test_building_bar(void **state)
{
	struct gtr_state *s = game(2);
	int nd;

	BUILT(s, P0, GC_BAR);
	pool(s, GC_DOCK);
	hand(s, P0, GC_TEMPLE);
	top(s, GC_FOUNTAIN);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_TEMPLE);
	others_think(s);
	nd = s->ndeck;
	MV(s, P0, GK_HIRE, GR_CRAFTSMAN, ANY, ANY);
	MV(s, P0, GK_HIRE_DECK, ANY, ANY, ANY);
	assert_int_equal(s->p[P0].clients[GC_DOCK], 1);
	assert_int_equal(s->p[P0].clients[GC_FOUNTAIN], 1);
	assert_int_equal(s->ndeck, nd - 1);
	free(s);
}

/* Taberna order: after the deck client, none from the pool. */
static void test_building_bar_deck_then_no_pool(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_BAR);
	pool(s, GC_DOCK);
	hand(s, P0, GC_TEMPLE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_TEMPLE);
	others_think(s);
	MV(s, P0, GK_HIRE_DECK, ANY, ANY, ANY);
	assert_false(CAN(s, P0, GK_HIRE, ANY, ANY, ANY));
	assert_int_equal(gtr_clients(s, P0), 1);
	free(s);
}

/* Circo: "Cualquier carta sirve para liderar o seguir a un Arquitecto". */
static void test_building_circus(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_CIRCUS);
	hand(s, P0, GC_LATRINE);
	hand(s, P1, GC_ROAD);
	gtr_start_turn(s, P0);
	MV(s, P0, GK_LEAD, GR_ARCHITECT, ANY, ANY);
	if (s->step == GS_UNIT)
		MV(s, P0, GK_PLAY, GC_LATRINE, ANY, ANY);
	finish_units(s, P0);
	assert_int_equal(s->phase, GP_FOLLOW);
	/* without a Circo one yellow card cannot follow an Architect */
	if (CAN(s, P1, GK_FOLLOW, ANY, ANY, ANY)) {
		MV(s, P1, GK_FOLLOW, ANY, ANY, ANY);
		assert_false(CAN(s, P1, GK_PLAY, GC_ROAD, ANY, ANY));
	}
	free(s);
}

/* Empalizada: "Te protege de la pérdida de cartas cuando un jugador realiza
 * la Acción de Legionario. Aun así, puedes decidir entregarle cartas si
 * quieres": the protected neighbour is asked, and keeps here. */
static void test_building_palisade(void **state)
{
	struct gtr_state *s = game(4);

	BUILT(s, P1, GC_PALISADE);
	hand(s, P1, GC_ROAD);
	hand(s, P3, GC_ROAD);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_LATRINE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(s->p[P3].hand[GC_ROAD], 0);	/* not protected: given at once */
	assert_int_equal(gtr_awaiting(s), 1u << P1);
	assert_true(CAN(s, P1, GK_GIVE, GC_ROAD, ANY, ANY));
	MV(s, P1, GK_DONE, ANY, ANY, ANY);		/* keep */
	assert_int_equal(s->p[P1].hand[GC_ROAD], 1);
	assert_int_equal(s->p[P0].stock[GC_ROAD], 1);
	assert_int_equal(s->phase, GP_LEAD);		/* the demand was the last action */
	free(s);
}

/* Mercado: "El tamaño máximo de tu Tesoro aumenta en 2 ... adicional al
 * aumento ... por haber acabado el Mercado". */
static void test_building_market(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_MARKET);
	assert_int_equal(gtr_vault_limit(s, P0), 5);	/* 2 + 1 + 2 */
	vault(s, P0, GC_ROAD);
	vault(s, P0, GC_ROAD);
	vault(s, P0, GC_ROAD);
	stock(s, P0, GC_LATRINE);
	hand(s, P0, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_MERCHANT, GC_SEWER);
	others_think(s);
	MV(s, P0, GK_SELL, GM_RUBBLE, ANY, ANY);
	assert_int_equal(gtr_vault_size(s, P0), 4);
	assert_int_equal(stock_n(s, P0), 0);
	free(s);
}

/* Muelle: "puedes coger una carta adicional de tu Mano y colocarla en tu
 * Almacén ... No es necesario haber cogido una carta de la Reserva". */
static void test_building_dock(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_DOCK);
	pool(s, GC_TEMPLE);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_VILLA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	others_think(s);
	MV(s, P0, GK_TAKE, GM_MARBLE, ANY, ANY);
	MV(s, P0, GK_DOCK, GC_VILLA, ANY, ANY);
	assert_int_equal(s->p[P0].stock[GC_TEMPLE], 1);
	assert_int_equal(s->p[P0].stock[GC_VILLA], 1);
	assert_int_equal(hand_n(s, P0), 0);
	free(s);
}

static void test_building_dock_without_pool(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_DOCK);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_VILLA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	others_think(s);
	assert_int_equal(pool_n(s), 0);
	MV(s, P0, GK_DOCK, GC_VILLA, ANY, ANY);
	assert_int_equal(s->p[P0].stock[GC_VILLA], 1);
	free(s);
}

/* Academia: "Te permite hacer la Acción de Pensar después de cualquier
 * turno en el que hayas realizado una Acción de Artesano, incluso si solo
 * ha sido con un Cliente". */
static void test_building_academy(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_ACADEMY);
	client(s, P0, GC_CIRCUS);		/* a Craftsman client */
	hand(s, P0, GC_ROAD);
	hand(s, P1, GC_DOCK);
	gtr_start_turn(s, P1);
	lead(s, P1, GR_CRAFTSMAN, GC_DOCK);
	think(s, P0, GTR_THINK_JACK);		/* P0 thinks: its client still acts */
	pass_actions(s, P1);
	assert_int_equal(gtr_current(s), P0);
	MV(s, P0, GK_FOUND, GC_ROAD, GM_RUBBLE, 0);
	pass_actions(s, P0);
	while (s->phase == GP_SENATE || s->phase == GP_SEWER)
		MV(s, seat_of(s), GK_DONE, ANY, ANY, ANY);
	assert_int_equal(s->phase, GP_ACADEMY);
	assert_int_equal(seat_of(s), P0);
	MV(s, P0, GK_THINK, GTR_THINK_DRAW, ANY, ANY);
	decline_discards(s, P0);
	assert_int_equal(hand_n(s, P0), 5);	/* the Senador + drawn up to 5 */
	assert_int_equal(s->phase, GP_LEAD);
	assert_int_equal(s->leader, P0);
	free(s);
}

/* Arco: "puedes coger materiales de la Reserva en vez de tu Almacén". */
static void test_building_archway(void **state)
{
	struct gtr_state *s = game(2);

	pool(s, GC_ACADEMY);
	hand(s, P0, GC_AQUEDUCT);
	BUILT(s, P0, GC_ARCHWAY);
	FOUND(s, P0, GC_SCHOOL, 0);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_ARCHITECT, GC_AQUEDUCT);
	others_think(s);
	MV(s, P0, GK_ADD, GC_SCHOOL, ANY, ANY);
	if (s->step == GS_MATERIAL && s->decider == P0)
		MV(s, P0, GK_WITH, GM_BRICK, 1, ANY);
	assert_int_equal(structure(s, P0, GC_SCHOOL)->nmat, 1);
	assert_int_equal(s->pool[GC_ACADEMY], 0);
	free(s);
}

/* Atrio: "puedes coger una carta del Mazo en vez de tu Almacén y guardarla
 * en tu Tesoro sin verla". */
static void test_building_atrium(void **state)
{
	struct gtr_state *s = game(2);
	int nd;

	BUILT(s, P0, GC_ATRIUM);
	hand(s, P0, GC_SEWER);
	top(s, GC_STATUE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_MERCHANT, GC_SEWER);
	others_think(s);
	nd = s->ndeck;
	MV(s, P0, GK_SELL_DECK, ANY, ANY, ANY);
	assert_int_equal(s->ndeck, nd - 1);
	assert_int_equal(s->p[P0].vault[GC_STATUE], 1);
	assert_int_equal(gtr_vault_size(s, P0), 1);
	assert_int_equal(s->p[P0].hand[GC_STATUE], 0);
	free(s);
}

/* Escuela: "puedes realizar la Acción de Pensar tantas veces como puntos
 * de Influencia tengas, incluyendo los que acabas de ganar". */
static void test_building_school(void **state)
{
	struct gtr_state *s = game(2);
	int i;

	FOUND(s, P0, GC_SCHOOL, 1);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_ACADEMY);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_SCHOOL, GC_ACADEMY);
	assert_true(structure(s, P0, GC_SCHOOL)->done);
	assert_int_equal(gtr_influence(s, P0), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(s->step == GS_THINK || s->step == GS_VOMIT ||
				 s->step == GS_LATRINE, 1);
		decline_discards(s, P0);
		MV(s, P0, GK_THINK, GTR_THINK_JACK, ANY, ANY);
	}
	assert_int_equal(s->p[P0].hand[GTR_JACK], 4);
	assert_false(s->step == GS_THINK && s->decider == P0);
	free(s);
}

/* Fundición: "puedes realizar la Acción de Obrero tantas veces como puntos
 * de Influencia tengas, incluyendo los puntos que acabas de ganar". */
static void test_building_foundry(void **state)
{
	struct gtr_state *s = game(2);
	int i;

	FOUND(s, P0, GC_FOUNDRY, 1);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_ACADEMY);
	for (i = 0; i < 5; i++)
		pool(s, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_FOUNDRY, GC_ACADEMY);
	assert_int_equal(gtr_influence(s, P0), 4);
	for (i = 0; i < 4; i++)
		MV(s, P0, GK_TAKE, GM_RUBBLE, ANY, ANY);
	assert_false(CAN(s, P0, GK_TAKE, ANY, ANY, ANY));
	assert_int_equal(s->p[P0].stock[GC_ROAD], 4);
	assert_int_equal(s->pool[GC_ROAD], 1);
	free(s);
}

/* Portón: "Ganas las funciones de tus edificios de Mármol, aunque no estén
 * acabados ... no ganas la Influencia ... hasta que estén terminados". */
static void test_building_gate(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_GATE);
	FOUND(s, P0, GC_TEMPLE, 0);
	assert_true(gtr_has(s, P0, GC_TEMPLE));
	assert_int_equal(gtr_hand_limit(s, P0), 9);
	assert_int_equal(gtr_influence(s, P0), 4);	/* 2 + Portón's 2 only */
	FOUND(s, P1, GC_TEMPLE, 0);
	assert_false(gtr_has(s, P1, GC_TEMPLE));
	free(s);
}

/* Santuario: "El número máximo de cartas que puedes tener en tu Mano se
 * incrementa en dos" (the Think target). */
static void test_building_shrine(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_SHRINE);
	assert_int_equal(gtr_hand_limit(s, P0), 7);
	gtr_start_turn(s, P0);
	think(s, P0, GTR_THINK_DRAW);
	assert_int_equal(hand_n(s, P0), 7);
	free(s);
}

/* Termas: "Cuando añadas un Cliente a tu Clientela, puedes realizar su
 * Acción inmediatamente". */
static void test_building_bath(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_BATH);
	pool(s, GC_ROAD);
	pool(s, GC_CIRCUS);
	hand(s, P0, GC_TEMPLE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_TEMPLE);
	others_think(s);
	MV(s, P0, GK_HIRE, GR_LABORER, ANY, ANY);
	MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);		/* the new Obrero acts at once */
	assert_int_equal(s->p[P0].clients[GC_ROAD], 1);
	assert_int_equal(s->p[P0].stock[GC_CIRCUS], 1);
	free(s);
}

/* Acueducto: "El número máximo de Clientes ... se duplica ... una vez
 * sumados los dos puntos de Influencia"; "puedes coger una carta adicional
 * de tu Mano y añadirla a tu Clientela. No es necesario haber cogido un
 * Cliente de la Reserva". */
static void test_building_aqueduct(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_AQUEDUCT);
	assert_int_equal(gtr_client_limit(s, P0), 8);
	hand(s, P0, GC_TEMPLE);
	hand(s, P0, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_TEMPLE);
	others_think(s);
	assert_int_equal(pool_n(s), 0);
	MV(s, P0, GK_HIRE_HAND, GC_ROAD, ANY, ANY);
	assert_int_equal(s->p[P0].clients[GC_ROAD], 1);
	assert_int_equal(hand_n(s, P0), 0);
	free(s);
}

/* Anfiteatro: "puedes realizar la Acción de Artesano tantas veces como
 * puntos de Influencia tengas, incluyendo los nuevos". */
static void test_building_amphitheatre(void **state)
{
	struct gtr_state *s = game(2);
	int ns;

	FOUND(s, P0, GC_AMPHITHEATRE, 1);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_VOMITORIUM);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_MARKET);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_AMPHITHEATRE, GC_VOMITORIUM);
	assert_int_equal(gtr_influence(s, P0), 4);
	ns = s->p[P0].nstruct;
	MV(s, P0, GK_FOUND, GC_ROAD, GM_RUBBLE, 0);
	MV(s, P0, GK_FOUND, GC_MARKET, GM_WOOD, 0);
	MV(s, P0, GK_FOUND, GC_ACADEMY, GM_BRICK, 0);
	MV(s, P0, GK_FOUND, GC_SEWER, GM_STONE, 0);
	assert_int_equal(s->p[P0].nstruct, ns + 4);
	assert_false(s->phase == GP_ACTIONS && seat_of(s) == P0 &&
		     CAN(s, P0, GK_FOUND, ANY, ANY, ANY));
	free(s);
}

/* Despensa: "Todos los Clientes de tu Clientela pueden adoptar el papel de
 * Obreros". */
static void test_building_storeroom(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_STOREROOM);
	client(s, P0, GC_ACADEMY);
	client(s, P0, GC_TEMPLE);
	hand(s, P1, GC_ROAD);
	pool(s, GC_CIRCUS);
	pool(s, GC_DOCK);
	pool(s, GC_MARKET);
	gtr_start_turn(s, P1);
	lead(s, P1, GR_LABORER, GC_ROAD);
	think(s, P0, GTR_THINK_JACK);
	assert_int_equal(gtr_turn_actions(s, P0), 2);
	MV(s, P1, GK_TAKE, GM_WOOD, ANY, ANY);
	pass_actions(s, P1);
	MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	assert_int_equal(stock_n(s, P0), 2);
	free(s);
}

/* Muralla: "un Punto de Victoria ... por cada dos materiales en tu Almacén
 * (redondeando hacia abajo)"; "no estas obligado a perder cartas a causa de
 * la Acción de Legionario". */
static void test_building_wall(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_WALL);
	stock(s, P0, GC_ROAD);
	stock(s, P0, GC_ROAD);
	stock(s, P0, GC_CIRCUS);
	stock(s, P0, GC_CIRCUS);
	stock(s, P0, GC_TEMPLE);
	assert_int_equal(gtr_score(s, P0), 4 + 2);	/* influence 2+2, 5 materials -> 2 */
	hand(s, P0, GC_LATRINE);
	hand(s, P1, GC_ACADEMY);
	hand(s, P1, GC_ROAD);
	gtr_start_turn(s, P1);
	lead(s, P1, GR_LEGIONARY, GC_ACADEMY);
	think(s, P0, GTR_THINK_JACK);
	MV(s, P1, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P1 && s->step == GS_LEGION)
		MV(s, P1, GK_DONE, ANY, ANY, ANY);
	/* "aunque puedes darlas si quieres": asked; keeps */
	assert_int_equal(gtr_awaiting(s), 1u << P0);
	MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(s->p[P0].hand[GC_LATRINE], 1);
	assert_int_equal(stock_n(s, P1), 0);
	free(s);
}

/* Puente: "puedes exigir materiales a todos los jugadores, incluso si tienen
 * Empalizadas"; "otro material igual de su Almacén"; "Los jugadores que
 * tengan una Muralla están protegidos". */
static void test_building_bridge(void **state)
{
	struct gtr_state *s = game(4);

	BUILT(s, P0, GC_BRIDGE);
	BUILT(s, P1, GC_PALISADE);
	BUILT(s, P3, GC_WALL);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_LATRINE);
	hand(s, P1, GC_ROAD);
	stock(s, P1, GC_ROAD);
	hand(s, P2, GC_ROAD);		/* not a neighbour: Puente reaches it */
	stock(s, P2, GC_INSULA);
	hand(s, P3, GC_ROAD);
	stock(s, P3, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(gtr_awaiting(s), 1u << P3);	/* Muralla: gives if it wants */
	MV(s, P3, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(s->p[P1].hand[GC_ROAD], 0);	/* Empalizada does not help */
	assert_int_equal(s->p[P1].stock[GC_ROAD], 0);
	assert_int_equal(s->p[P2].hand[GC_ROAD], 0);
	assert_int_equal(s->p[P2].stock[GC_INSULA], 0);
	assert_int_equal(s->p[P3].hand[GC_ROAD], 1);	/* Muralla protects */
	assert_int_equal(s->p[P3].stock[GC_ROAD], 1);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 4);
	free(s);
}

/* Senado: "Al final de cada turno, puedes coger en tu Mano los Senadores
 * jugados por los demás jugadores". */
static void test_building_senate(void **state)
{
	struct gtr_state *s = game(2);
	int jacks;

	BUILT(s, P0, GC_SENATE);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GTR_JACK);
	pool(s, GC_CIRCUS);
	pool(s, GC_DOCK);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	follow(s, P1, GTR_JACK);
	jacks = s->jacks;
	pass_actions(s, P0);
	pass_actions(s, P1);
	assert_int_equal(s->phase, GP_SENATE);
	assert_int_equal(seat_of(s), P0);
	MV(s, P0, GK_SENATORS, 1, ANY, ANY);
	assert_int_equal(s->p[P0].hand[GTR_JACK], 1);
	end_turn(s);
	assert_int_equal(s->jacks, jacks);
	assert_int_equal(s->p[P0].hand[GTR_JACK], 1);
	free(s);
}

/* Torre: "Puedes utilizar Escombros para construir cualquier tipo de
 * edificio. Puedes comenzar los cimientos de un Solar fuera de la ciudad,
 * usando solo una Acción". */
static void test_building_tower(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_TOWER);
	FOUND(s, P0, GC_SCHOOL, 0);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_SCHOOL, GC_ROAD);
	assert_int_equal(structure(s, P0, GC_SCHOOL)->nmat, 1);
	free(s);

	s = game(2);
	BUILT(s, P0, GC_TOWER);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	s->out_town[GM_STONE] += s->in_town[GM_STONE];	/* no stone site in town */
	s->in_town[GM_STONE] = 0;
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	assert_int_equal(gtr_turn_actions(s, P0), 1);
	MV(s, P0, GK_FOUND, GC_SEWER, GM_STONE, 1);
	assert_int_equal(structure(s, P0, GC_SEWER)->site, GM_STONE);
	free(s);
}

/* Vomitorium: "puedes descartar todas las cartas de tu Mano y ponerlas en
 * la Reserva"; rulings: Senadores go to their pile. */
static void test_building_vomitorium(void **state)
{
	struct gtr_state *s = game(2);
	int jacks;

	BUILT(s, P0, GC_VOMITORIUM);
	hand(s, P0, GC_TEMPLE);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GTR_JACK);
	jacks = s->jacks;
	gtr_start_turn(s, P0);
	if (s->step == GS_LEAD)
		MV(s, P0, GK_THINK, GTR_THINK_DRAW, ANY, ANY);
	assert_int_equal(s->step, GS_VOMIT);
	MV(s, P0, GK_VOMIT, ANY, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEAD)
		MV(s, P0, GK_THINK, GTR_THINK_DRAW, ANY, ANY);
	assert_int_equal(s->pool[GC_TEMPLE], 1);
	assert_int_equal(s->pool[GC_ROAD], 1);
	assert_int_equal(s->jacks, jacks + 1);
	assert_int_equal(hand_n(s, P0), 5);
	free(s);
}

/* Alcantarillado: "Al final de cada turno, puedes guardar las cartas que has
 * jugado en ese turno ... en tu Almacén". */
static void test_building_sewer(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_SEWER);
	hand(s, P0, GC_ROAD);
	pool(s, GC_CIRCUS);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	others_think(s);
	MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	pass_actions(s, P0);
	assert_int_equal(s->phase, GP_SEWER);
	MV(s, P0, GK_SEWER, GC_ROAD, ANY, ANY);
	end_turn(s);
	assert_int_equal(s->p[P0].stock[GC_ROAD], 1);
	assert_int_equal(s->pool[GC_ROAD], 0);
	free(s);
}

/* Biblioteca: "Te permite construir cualquier edificio usando Mármol (con
 * un Artesano o un Arquitecto)" -- Marble is a material for any building,
 * as the Torre's "Puedes utilizar Escombros para construir cualquier tipo
 * de edificio" is for rubble; one Marble is one material, it does not
 * complete the building (the English card's reading; docs/games/gtr.md). */
static void test_building_scriptorium(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_SCRIPTORIUM);
	FOUND(s, P0, GC_AQUEDUCT, 0);		/* concrete: needs 2 */
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_TEMPLE);
	client(s, P0, GC_CIRCUS);		/* a second Craftsman action */
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_AQUEDUCT, GC_TEMPLE);	/* Craftsman: from hand */
	assert_false(structure(s, P0, GC_AQUEDUCT)->done);
	assert_int_equal(structure(s, P0, GC_AQUEDUCT)->nmat, 1);
	assert_int_equal(gtr_influence(s, P0), 2 + 3);
	pass_actions(s, P0);
	end_turn(s);

	/* Architect from the stockpile: the second Marble completes it */
	stock(s, P0, GC_STATUE);
	hand(s, P0, GC_TOWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_ARCHITECT, GC_TOWER);
	others_think(s);
	add_from_stock(s, P0, GC_AQUEDUCT, GM_MARBLE);
	assert_true(structure(s, P0, GC_AQUEDUCT)->done);
	assert_int_equal(gtr_influence(s, P0), 2 + 3 + 2);
	free(s);

	/* without a Biblioteca, Marble does not fit a concrete building */
	s = game(2);
	FOUND(s, P0, GC_AQUEDUCT, 0);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_TEMPLE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	assert_false(CAN(s, P0, GK_ADD, GC_AQUEDUCT, ANY, ANY));
	free(s);
}

/* Catacumbas: "el juego finaliza inmediatamente ... Ni siquiera se concluye
 * el turno en curso". */
static void test_building_catacomb(void **state)
{
	struct gtr_state *s = game(2);
	struct game_result r;

	FOUND(s, P0, GC_CATACOMB, 2);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	hand(s, P1, GC_MARKET);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	follow(s, P1, GC_MARKET);
	add_from_hand(s, P0, GC_CATACOMB, GC_SEWER);
	assert_int_equal(s->end, GE_CATACOMB);
	assert_int_equal(gtr_awaiting(s), 0u);
	assert_int_equal(gtr_result(s, &r), 1);
	assert_int_equal(r.score[P0], 5);
	assert_int_equal(s->p[P1].hand[GC_MARKET] + s->p[P1].camp[GC_MARKET], 1);
	free(s);
}

/* Circo Máximo: "Cuando lideras o sigues a un Líder, cada Cliente que tengas
 * de ese tipo puede realizar su Acción dos veces". */
static void test_building_circus_maximus(void **state)
{
	struct gtr_state *s = game(2);
	int i;

	BUILT(s, P0, GC_CIRCUS_MAXIMUS);
	client(s, P0, GC_INSULA);
	hand(s, P0, GC_ROAD);
	for (i = 0; i < 4; i++)
		pool(s, GC_CIRCUS);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	others_think(s);
	assert_int_equal(gtr_turn_actions(s, P0), 3);
	for (i = 0; i < 3; i++)
		MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	assert_int_equal(s->p[P0].stock[GC_CIRCUS], 3);
	free(s);
}

/* Circo Máximo does not double when the owner thought. */
static void test_circus_maximus_not_when_thinking(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_CIRCUS_MAXIMUS);
	client(s, P0, GC_INSULA);
	hand(s, P1, GC_ROAD);
	pool(s, GC_CIRCUS);
	pool(s, GC_CIRCUS);
	gtr_start_turn(s, P1);
	lead(s, P1, GR_LABORER, GC_ROAD);
	think(s, P0, GTR_THINK_JACK);
	assert_int_equal(gtr_turn_actions(s, P0), 1);
	free(s);
}

/* Coliseo: "puedes coger Clientes de la Clientela de tus oponentes que
 * coincidan con los materiales que has pedido ... poner esas cartas en tu
 * Tesoro". */
static void test_building_coliseum(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_COLISEUM);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_LATRINE);
	client(s, P1, GC_INSULA);
	client(s, P1, GC_DOCK);
	hand(s, P1, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	if (s->decider == P0 && s->step == GS_COLISEUM)
		MV(s, P0, GK_COLISEUM, GR_LABORER, P1, ANY);
	assert_int_equal(s->p[P1].clients[GC_INSULA], 0);
	assert_int_equal(s->p[P1].clients[GC_DOCK], 1);
	assert_int_equal(s->p[P0].vault[GC_INSULA], 1);
	assert_int_equal(s->p[P0].stock[GC_ROAD], 1);
	free(s);
}

/* "Si no tienes sitio en tu Tesoro, no podrás coger las cartas y los
 * oponentes conservarán a sus Clientes"; Empalizada protects. */
static void test_coliseum_vault_space_and_palisade(void **state)
{
	struct gtr_state *s = game(4);

	BUILT(s, P0, GC_COLISEUM);		/* influence 5: vault limit 5 */
	vault(s, P0, GC_ROAD);
	vault(s, P0, GC_ROAD);
	vault(s, P0, GC_ROAD);
	vault(s, P0, GC_ROAD);			/* one place left */
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_LATRINE);
	client(s, P1, GC_INSULA);
	client(s, P3, GC_INSULA);
	BUILT(s, P3, GC_PALISADE);
	client(s, P2, GC_INSULA);		/* not a neighbour */
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	/* P3 (Empalizada, a Senator in hand) is asked whether it gives anyway */
	assert_int_equal(gtr_awaiting(s), 1u << P3);
	MV(s, P3, GK_DONE, ANY, ANY, ANY);
	assert_false(CAN(s, P0, GK_COLISEUM, ANY, P3, ANY));
	assert_false(CAN(s, P0, GK_COLISEUM, ANY, P2, ANY));
	if (s->decider == P0 && s->step == GS_COLISEUM)
		MV(s, P0, GK_COLISEUM, GR_LABORER, P1, ANY);
	assert_int_equal(gtr_vault_size(s, P0), 5);
	assert_int_equal(s->p[P1].clients[GC_INSULA], 0);
	assert_int_equal(s->p[P3].clients[GC_INSULA], 1);
	assert_int_equal(s->p[P2].clients[GC_INSULA], 1);
	free(s);

	/* a full vault takes nobody */
	s = game(2);
	BUILT(s, P0, GC_COLISEUM);
	for (int i = 0; i < 5; i++)
		vault(s, P0, GC_ROAD);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_LATRINE);
	client(s, P1, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_false(CAN(s, P0, GK_COLISEUM, ANY, ANY, ANY));
	assert_int_equal(s->p[P1].clients[GC_INSULA], 1);
	free(s);
}

/* Jardín: "puedes realizar la Acción de Patrón tantas veces como puntos de
 * Influencia tengas, incluyendo los puntos obtenidos"; "Los nuevos Clientes
 * no proporcionan Acciones adicionales para ese turno". */
static void test_building_garden(void **state)
{
	struct gtr_state *s = game(2);
	int i;

	FOUND(s, P0, GC_GARDEN, 2);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	hand(s, P0, GC_ROAD);			/* a card a wrong Craftsman could lay */
	for (i = 0; i < 6; i++)
		pool(s, GC_MARKET);		/* Craftsman clients */
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_GARDEN, GC_SEWER);
	assert_int_equal(gtr_influence(s, P0), 5);
	for (i = 0; i < 5; i++)
		MV(s, P0, GK_HIRE, GR_CRAFTSMAN, ANY, ANY);
	assert_int_equal(gtr_clients(s, P0), 5);
	assert_false(CAN(s, P0, GK_HIRE, ANY, ANY, ANY));
	/* the five new Craftsman clients give no Craftsman action now */
	assert_false(CAN(s, P0, GK_FOUND, ANY, ANY, ANY));
	free(s);
}

/* Prisión: "puedes elegir un edificio acabado de un oponente y hacerlo tu
 * prisionero ... debes darle la carta de Solar sobre la que has construido
 * la Prisión, con lo que el oponente gana tres puntos de Influencia". */
static void test_building_prison(void **state)
{
	struct gtr_state *s = game(2);

	FOUND(s, P0, GC_PRISON, 2);
	BUILT(s, P1, GC_MARKET);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_PRISON, GC_SEWER);
	assert_int_equal(s->step, GS_PRISON);
	MV(s, P0, GK_IMPRISON, GC_MARKET, P1, ANY);
	assert_true(gtr_has(s, P0, GC_MARKET));
	assert_false(gtr_has(s, P1, GC_MARKET));
	assert_true(gtr_find_struct(s, P1, GC_MARKET) < 0);
	assert_int_equal(gtr_influence(s, P1), 2 + 1 + 3);
	assert_int_equal(gtr_influence(s, P0), 2);
	assert_int_equal(gtr_vault_limit(s, P0), 2 + 2);	/* the Mercado works at once */
	free(s);
}

/* Villa (rulings.md): "quedará acabada cuando juegues un Arquitecto y
 * pongas un material sobre ella". */
static void test_building_villa(void **state)
{
	struct gtr_state *s = game(2);

	FOUND(s, P0, GC_VILLA, 0);
	stock(s, P0, GC_SEWER);
	hand(s, P0, GC_AQUEDUCT);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_ARCHITECT, GC_AQUEDUCT);
	others_think(s);
	add_from_stock(s, P0, GC_VILLA, GM_STONE);
	assert_true(structure(s, P0, GC_VILLA)->done);
	assert_int_equal(gtr_influence(s, P0), 5);
	free(s);
}

/* Basílica: "puedes coger una carta adicional de tu Mano para ponerla en tu
 * Tesoro. No necesitas mover ninguna carta de tu Almacén". */
static void test_building_basilica(void **state)
{
	struct gtr_state *s = game(2);

	hand(s, P0, GC_SEWER);
	hand(s, P0, GC_STATUE);
	BUILT(s, P0, GC_BASILICA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_MERCHANT, GC_SEWER);
	others_think(s);
	MV(s, P0, GK_SELL_HAND, GC_STATUE, ANY, ANY);
	assert_int_equal(s->p[P0].vault[GC_STATUE], 1);
	assert_int_equal(hand_n(s, P0), 0);
	free(s);
}

/* Escalinata: "colocar un material adecuado sobre un edificio terminado de
 * un contrario, de modo que la función de ese edificio sirva para todos". */
static void test_building_stairway(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_STAIRWAY);
	BUILT(s, P1, GC_MARKET);
	stock(s, P0, GC_CIRCUS);
	hand(s, P0, GC_AQUEDUCT);
	assert_false(gtr_has(s, P0, GC_MARKET));
	gtr_start_turn(s, P0);
	lead(s, P0, GR_ARCHITECT, GC_AQUEDUCT);
	others_think(s);
	MV(s, P0, GK_STAIRWAY, GC_MARKET, P1, ANY);
	if (s->step == GS_MATERIAL)
		MV(s, P0, GK_WITH, GM_WOOD, 0, ANY);
	assert_true(s->pub & (1ull << GC_MARKET));
	assert_true(gtr_has(s, P0, GC_MARKET));
	assert_true(gtr_has(s, P1, GC_MARKET));
	assert_int_equal(gtr_vault_limit(s, P0), 2 + 3 + 2);
	assert_int_equal(stock_n(s, P0), 0);
	assert_int_equal(gtr_influence(s, P0), 5);	/* no influence from it */
	free(s);
}

/* Estatua: "se puede hacer utilizando cualquier Solar"; "se necesita el
 * número de cartas indicado por el valor del Solar. La Influencia ... la
 * misma que el valor del Solar"; "3 Puntos de Victoria extra". */
static void test_building_statue(void **state)
{
	struct gtr_state *s = game(2);

	client(s, P0, GC_MARKET);		/* a Craftsman client: 2 actions */
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_STATUE);
	hand(s, P0, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	MV(s, P0, GK_FOUND, GC_STATUE, GM_RUBBLE, 0);
	assert_int_equal(structure(s, P0, GC_STATUE)->site, GM_RUBBLE);
	add_from_hand(s, P0, GC_STATUE, GC_ROAD);
	assert_true(structure(s, P0, GC_STATUE)->done);
	assert_int_equal(gtr_influence(s, P0), 3);
	assert_int_equal(gtr_score(s, P0), 3 + 3);
	free(s);
}

/* Foro: "Ganas inmediatamente el juego en cuanto tengas un material de cada
 * tipo en el Almacén y un Cliente de cada clase entre tu Clientela". */
static void test_building_forum(void **state)
{
	struct gtr_state *s = game(2);
	struct game_result r;

	client(s, P0, GC_ROAD);
	client(s, P0, GC_CIRCUS);
	client(s, P0, GC_ACADEMY);
	client(s, P0, GC_AQUEDUCT);
	client(s, P0, GC_SEWER);
	client(s, P0, GC_BASILICA);
	stock(s, P0, GC_ROAD);
	stock(s, P0, GC_CIRCUS);
	stock(s, P0, GC_ACADEMY);
	stock(s, P0, GC_AQUEDUCT);
	stock(s, P0, GC_SEWER);
	BUILT(s, P0, GC_FORUM);
	BUILT(s, P0, GC_TEMPLE);		/* influence 8: room for 6 clients */
	assert_false(gtr_forum_met(s, P0));
	pool(s, GC_PALACE);
	hand(s, P0, GC_LATRINE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_LATRINE);
	others_think(s);
	MV(s, P0, GK_TAKE, GM_MARBLE, ANY, ANY);
	assert_int_equal(s->end, GE_FORUM);
	assert_int_equal(s->winner, P0);
	assert_int_equal(gtr_awaiting(s), 0u);
	assert_int_equal(gtr_result(s, &r), 1);
	assert_int_equal(r.winners, 1u << P0);
	free(s);
}

/* Fuente: "puedes coger una carta del Mazo en vez de tu Mano. Una vez que
 * has cogido y visto la carta ... utilizarla como cimientos ... o guardarla
 * en tu Mano". */
static void test_building_fountain(void **state)
{
	struct gtr_state *s = game(2);
	int nd;

	BUILT(s, P0, GC_FOUNTAIN);
	hand(s, P0, GC_DOCK);
	top(s, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	nd = s->ndeck;
	MV(s, P0, GK_FOUNTAIN, ANY, ANY, ANY);
	assert_int_equal(s->step, GS_FOUNTAIN);
	assert_int_equal(s->fount, GC_SEWER);
	assert_int_equal(s->ndeck, nd - 1);
	assert_true(CAN(s, P0, GK_KEEP, ANY, ANY, ANY));
	MV(s, P0, GK_FOUND, GC_SEWER, GM_STONE, 0);
	assert_int_equal(structure(s, P0, GC_SEWER)->nmat, 0);
	free(s);

	/* or keep it in hand */
	s = game(2);
	BUILT(s, P0, GC_FOUNTAIN);
	hand(s, P0, GC_DOCK);
	top(s, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	MV(s, P0, GK_FOUNTAIN, ANY, ANY, ANY);
	MV(s, P0, GK_KEEP, ANY, ANY, ANY);
	assert_int_equal(s->p[P0].hand[GC_SEWER], 1);
	free(s);
}

/* Ludus Magna: "Cada Mercader de tu Clientela puede adoptar el papel de
 * cualquier personaje". */
static void test_building_ludus_magna(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_LUDUS_MAGNA);
	client(s, P0, GC_VILLA);		/* a Merchant client */
	hand(s, P1, GC_ROAD);
	pool(s, GC_CIRCUS);
	pool(s, GC_DOCK);
	gtr_start_turn(s, P1);
	lead(s, P1, GR_LABORER, GC_ROAD);
	think(s, P0, GTR_THINK_JACK);
	assert_int_equal(gtr_turn_actions(s, P0), 1);
	MV(s, P1, GK_TAKE, GM_WOOD, ANY, ANY);
	pass_actions(s, P1);
	MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	assert_int_equal(stock_n(s, P0), 1);
	free(s);
}

/* Palacio: "liderar o seguir una jugada con varias cartas del mismo
 * personaje (incluidos los Senadores) ... una Acción por cada carta". */
static void test_building_palace(void **state)
{
	struct gtr_state *s = game(2);
	int i;

	BUILT(s, P0, GC_PALACE);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	hand(s, P0, GTR_JACK);
	for (i = 0; i < 3; i++)
		pool(s, GC_CIRCUS);
	gtr_start_turn(s, P0);
	MV(s, P0, GK_LEAD, GR_LABORER, ANY, ANY);
	MV(s, P0, GK_PLAY, GC_ROAD, ANY, ANY);
	MV(s, P0, GK_PLAY, GC_INSULA, ANY, ANY);
	MV(s, P0, GK_PLAY, GTR_JACK, ANY, ANY);
	finish_units(s, P0);
	others_think(s);
	assert_int_equal(gtr_turn_actions(s, P0), 3);
	for (i = 0; i < 3; i++)
		MV(s, P0, GK_TAKE, GM_WOOD, ANY, ANY);
	assert_int_equal(stock_n(s, P0), 3);
	free(s);

	/* without a Palace, exactly one unit */
	s = game(2);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	assert_int_equal(s->phase, GP_FOLLOW);
	assert_int_equal(s->p[P0].units, 1);
	free(s);
}

/* Templo: "se incrementa en cuatro". */
static void test_building_temple(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_TEMPLE);
	assert_int_equal(gtr_hand_limit(s, P0), 9);
	gtr_start_turn(s, P0);
	think(s, P0, GTR_THINK_DRAW);
	assert_int_equal(hand_n(s, P0), 9);
	free(s);
}

/* ===================== combinations and rulings ===================== */

/* "Foro combinado con Ludus Magna ... cada Mercader que tengas como Cliente
 * puede adoptar el papel de cualquier personaje". */
static void test_forum_ludus_magna(void **state)
{
	struct gtr_state *s = game(2);

	client(s, P0, GC_ROAD);
	client(s, P0, GC_CIRCUS);
	client(s, P0, GC_ACADEMY);
	client(s, P0, GC_AQUEDUCT);
	client(s, P0, GC_SEWER);
	client(s, P0, GC_VILLA);		/* 2nd Merchant for the missing Patron */
	stock(s, P0, GC_ROAD);
	stock(s, P0, GC_CIRCUS);
	stock(s, P0, GC_ACADEMY);
	stock(s, P0, GC_AQUEDUCT);
	stock(s, P0, GC_SEWER);
	stock(s, P0, GC_TEMPLE);
	BUILT(s, P0, GC_FORUM);
	BUILT(s, P0, GC_LUDUS_MAGNA);
	assert_true(gtr_forum_met(s, P0));
	free(s);

	s = game(2);
	client(s, P0, GC_ROAD);
	client(s, P0, GC_CIRCUS);
	client(s, P0, GC_ACADEMY);
	client(s, P0, GC_AQUEDUCT);
	client(s, P0, GC_SEWER);
	client(s, P0, GC_VILLA);
	stock(s, P0, GC_ROAD);
	stock(s, P0, GC_CIRCUS);
	stock(s, P0, GC_ACADEMY);
	stock(s, P0, GC_AQUEDUCT);
	stock(s, P0, GC_SEWER);
	stock(s, P0, GC_TEMPLE);
	BUILT(s, P0, GC_FORUM);
	assert_false(gtr_forum_met(s, P0));	/* without Ludus Magna: no Patron */
	free(s);
}

/* "Foro combinado con la Despensa ... cualquier personaje en tu Clientela
 * puede tomar el papel de Obrero ... Ese Cliente no puede utilizarse como
 * dos personajes a la vez". */
static void test_forum_storeroom(void **state)
{
	struct gtr_state *s = game(2);

	client(s, P0, GC_CIRCUS);
	client(s, P0, GC_ACADEMY);
	client(s, P0, GC_AQUEDUCT);
	client(s, P0, GC_SEWER);
	client(s, P0, GC_BASILICA);
	stock(s, P0, GC_ROAD);
	stock(s, P0, GC_CIRCUS);
	stock(s, P0, GC_ACADEMY);
	stock(s, P0, GC_AQUEDUCT);
	stock(s, P0, GC_SEWER);
	stock(s, P0, GC_TEMPLE);
	BUILT(s, P0, GC_FORUM);
	BUILT(s, P0, GC_STOREROOM);
	assert_false(gtr_forum_met(s, P0));	/* 5 clients cannot fill 6 roles */
	client(s, P0, GC_ARCHWAY);		/* a 6th client takes the Obrero role */
	assert_true(gtr_forum_met(s, P0));
	free(s);
}

/* original-circus: "un Cliente de cada clase" suffices (guide/games.md). */
static void test_forum_original_circus(void **state)
{
	struct gtr_state *s = game_opts(2, "original-circus");

	client(s, P0, GC_ROAD);
	client(s, P0, GC_CIRCUS);
	client(s, P0, GC_ACADEMY);
	client(s, P0, GC_AQUEDUCT);
	client(s, P0, GC_SEWER);
	client(s, P0, GC_BASILICA);
	BUILT(s, P0, GC_FORUM);
	BUILT(s, P0, GC_TEMPLE);
	assert_true(gtr_forum_met(s, P0));
	free(s);
}

/* Portón with Estatua (rulings.md): the Marble foundation gives the 3 VP. */
static void test_gate_statue(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_GATE);
	FOUND(s, P0, GC_STATUE, 0);
	assert_int_equal(gtr_score(s, P0), 4 + 3);
	free(s);
}

/* Out of town: "debes utilizar dos acciones de Arquitecto o Artesano";
 * "cuando se han agotado las cartas de Solar de ese tipo en la ciudad". */
static void test_out_of_town_two_actions(void **state)
{
	struct gtr_state *s = game(2);

	client(s, P0, GC_MARKET);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	s->out_town[GM_STONE] += s->in_town[GM_STONE];
	s->in_town[GM_STONE] = 0;
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	assert_int_equal(gtr_turn_actions(s, P0), 2);
	MV(s, P0, GK_FOUND, GC_SEWER, GM_STONE, 1);
	assert_true(gtr_find_struct(s, P0, GC_SEWER) >= 0);
	assert_false(s->phase == GP_ACTIONS && seat_of(s) == P0 &&
		     CAN(s, P0, GK_FOUND, ANY, ANY, ANY));
	free(s);

	/* one action is not enough */
	s = game(2);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	s->out_town[GM_STONE] += s->in_town[GM_STONE];
	s->in_town[GM_STONE] = 0;
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	assert_false(CAN(s, P0, GK_FOUND, GC_SEWER, ANY, ANY));
	free(s);

	/* in-town sites left: out of town not offered (tabula ruling 15) */
	s = game(2);
	client(s, P0, GC_MARKET);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	assert_false(CAN(s, P0, GK_FOUND, GC_SEWER, GM_STONE, 1));
	free(s);
}

/* "Ya tienes en juego unos cimientos o edificio con ese mismo nombre". */
static void test_no_two_of_one_name(void **state)
{
	struct gtr_state *s = game(2);

	FOUND(s, P0, GC_ROAD, 0);
	FOUND(s, P1, GC_SEWER, 0);
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_SEWER);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	assert_false(CAN(s, P0, GK_FOUND, GC_ROAD, ANY, ANY));
	assert_true(CAN(s, P0, GK_FOUND, GC_SEWER, GM_STONE, 0));	/* another's name is fine */
	free(s);
}

/* Senado then Alcantarillado at the end of a turn (rulings.md). */
static void test_senate_then_sewer(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_SENATE);
	BUILT(s, P0, GC_SEWER);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GTR_JACK);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LABORER, GC_ROAD);
	follow(s, P1, GTR_JACK);
	pass_actions(s, P0);
	pass_actions(s, P1);
	assert_int_equal(s->phase, GP_SENATE);
	MV(s, P0, GK_SENATORS, 1, ANY, ANY);
	assert_int_equal(s->phase, GP_SEWER);
	assert_false(CAN(s, P0, GK_SEWER, GTR_JACK, ANY, ANY));
	MV(s, P0, GK_SEWER, GC_ROAD, ANY, ANY);
	end_turn(s);
	assert_int_equal(s->p[P0].stock[GC_ROAD], 1);
	assert_int_equal(s->p[P0].hand[GTR_JACK], 1);
	free(s);
}

/* Petición: "dos cartas de Acción del mismo personaje (color) como si fueran
 * un Senador. Sin embargo no puedes jugar dos Senadores como un Senador". */
static void test_petition_two_cards(void **state)
{
	struct gtr_state *s = game(2);

	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	stock(s, P0, GC_SEWER);
	gtr_start_turn(s, P0);
	MV(s, P0, GK_LEAD, GR_MERCHANT, ANY, ANY);
	MV(s, P0, GK_PETITION, ANY, ANY, ANY);
	MV(s, P0, GK_PETITION_CARD, GC_ROAD, ANY, ANY);
	MV(s, P0, GK_PETITION_CARD, GC_INSULA, ANY, ANY);
	finish_units(s, P0);
	assert_int_equal(s->phase, GP_FOLLOW);
	others_think(s);
	MV(s, P0, GK_SELL, GM_STONE, ANY, ANY);
	assert_int_equal(gtr_vault_size(s, P0), 1);
	free(s);

	/* two Senadores never petition */
	s = game(2);
	hand(s, P0, GTR_JACK);
	hand(s, P0, GTR_JACK);
	gtr_start_turn(s, P0);
	MV(s, P0, GK_LEAD, GR_MERCHANT, ANY, ANY);
	if (CAN(s, P0, GK_PETITION, ANY, ANY, ANY)) {
		MV(s, P0, GK_PETITION, ANY, ANY, ANY);
		assert_false(CAN(s, P0, GK_PETITION_CARD, GTR_JACK, ANY, ANY));
	}
	free(s);
}

/* "la Petición requiere tres cartas iguales en lugar de las dos". */
static void test_petition_three_original_circus(void **state)
{
	struct gtr_state *s = game_opts(2, "original-circus");

	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	hand(s, P0, GC_LATRINE);
	gtr_start_turn(s, P0);
	MV(s, P0, GK_LEAD, GR_MERCHANT, ANY, ANY);
	MV(s, P0, GK_PETITION, ANY, ANY, ANY);
	MV(s, P0, GK_PETITION_CARD, GC_ROAD, ANY, ANY);
	MV(s, P0, GK_PETITION_CARD, GC_INSULA, ANY, ANY);
	assert_int_equal(s->step, GS_PETITION);		/* a third card is needed */
	MV(s, P0, GK_PETITION_CARD, GC_LATRINE, ANY, ANY);
	finish_units(s, P0);
	assert_int_equal(s->phase, GP_FOLLOW);
	free(s);

	/* two cards only: no petition possible */
	s = game_opts(2, "original-circus");
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	gtr_start_turn(s, P0);
	assert_false(CAN(s, P0, GK_LEAD, GR_MERCHANT, ANY, ANY));
	free(s);
}

/* "Los Clientes nuevos no pueden utilizarse hasta el turno siguiente". */
static void test_new_clients_next_turn(void **state)
{
	struct gtr_state *s = game(2);

	hand(s, P0, GC_TEMPLE);
	pool(s, GC_STATUE);
	pool(s, GC_PALACE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_TEMPLE);
	others_think(s);
	MV(s, P0, GK_HIRE, GR_PATRON, ANY, ANY);
	assert_int_equal(gtr_clients(s, P0), 1);
	assert_false(s->phase == GP_ACTIONS && seat_of(s) == P0 &&
		     CAN(s, P0, GK_HIRE, ANY, ANY, ANY));
	end_turn(s);
	/* next turn the Patron client acts */
	hand(s, P1, GC_BASILICA);
	gtr_start_turn(s, P1);
	lead(s, P1, GR_PATRON, GC_BASILICA);
	think(s, P0, GTR_THINK_JACK);
	assert_int_equal(gtr_turn_actions(s, P0), 1);
	free(s);
}

/* "En caso de empate, nadie se lleva la bonificación". */
static void test_merchant_bonus_tie(void **state)
{
	struct gtr_state *s = game(3);

	vault(s, P0, GC_ROAD);
	vault(s, P1, GC_INSULA);
	vault(s, P0, GC_CIRCUS);
	vault(s, P0, GC_DOCK);
	vault(s, P1, GC_MARKET);
	assert_int_equal(gtr_merchant_bonus(s, GM_RUBBLE), -1);
	assert_int_equal(gtr_merchant_bonus(s, GM_WOOD), P0);
	assert_int_equal(gtr_merchant_bonus(s, GM_STONE), -1);
	/* 2 + vault 1 + 1 + 1 + bonus 3 */
	assert_int_equal(gtr_score(s, P0), 2 + 3 + 3);
	assert_int_equal(gtr_score(s, P1), 2 + 2);
	free(s);
}

/* Think: "Coger un Senador (si quedan)"; "hasta tener 5"; "En caso de que ya
 * tengas 5 o más cartas ... una carta adicional". */
static void test_think_options(void **state)
{
	struct gtr_state *s = game(2);
	int i;

	for (i = 0; i < 6; i++)
		hand(s, P0, GC_ROAD);
	gtr_start_turn(s, P0);
	think(s, P0, GTR_THINK_DRAW);
	assert_int_equal(hand_n(s, P0), 7);
	assert_int_equal(s->leader, P1);	/* the leader's Think ends the turn */
	assert_int_equal(s->phase, GP_LEAD);
	think(s, P1, GTR_THINK_JACK);
	assert_int_equal(s->p[P1].hand[GTR_JACK], 1);
	free(s);
}

/* End: "Se acaba el Mazo" — immediately, "no puede realizarse ninguna otra
 * Acción en ese turno". Ties: "ganará aquel de los empatados que más cartas
 * tenga en su Mano". */
static void test_end_deck_and_hand_tie(void **state)
{
	struct gtr_state *s = game(2);
	struct game_result r;

	hand(s, P1, GC_ROAD);
	hand(s, P1, GC_ROAD);
	while (s->ndeck > 1)
		PUT(s, s->deck[s->ndeck - 1], GZ_DECK, 0, GZ_POOL, 0);
	gtr_start_turn(s, P0);
	think(s, P0, GTR_THINK_DRAW);
	assert_int_equal(s->ndeck, 0);
	assert_int_equal(hand_n(s, P0), 1);
	assert_int_equal(s->end, GE_DECK);
	assert_int_equal(gtr_awaiting(s), 0u);
	assert_int_equal(gtr_result(s, &r), 1);
	assert_int_equal(r.score[P0], 2);
	assert_int_equal(r.score[P1], 2);
	assert_int_equal(r.winners, 1u << P1);
	free(s);
}

/* "Un jugador coloca los cimientos de la última carta de Solar disponible
 * de la ciudad (no en las afueras). Dicho edificio nunca se podrá acabar". */
static void test_end_last_in_town_site(void **state)
{
	struct gtr_state *s = game(2);
	int m;

	for (m = 0; m < GM_COUNT; m++) {
		s->out_town[m] += s->in_town[m] - (m == GM_RUBBLE);
		s->in_town[m] = m == GM_RUBBLE;
	}
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	MV(s, P0, GK_FOUND, GC_ROAD, GM_RUBBLE, 0);
	assert_int_equal(s->end, GE_SITES);
	assert_int_equal(gtr_awaiting(s), 0u);
	assert_false(structure(s, P0, GC_ROAD)->done);
	free(s);
}

/* "El resto de los jugadores acuerdan rendirse": the player wins without
 * counting. */
static void test_end_concede(void **state)
{
	struct gtr_state *s = game(2);
	struct game_result r;

	gtr_start_turn(s, P0);
	MV(s, P0, GK_CONCEDE, ANY, ANY, ANY);
	assert_int_equal(s->end, GE_CONCEDE);
	assert_int_equal(s->winner, P1);
	assert_int_equal(gtr_result(s, &r), 1);
	assert_int_equal(r.winners, 1u << P1);
	free(s);
}

/* "una vez colocadas en el Tesoro, nadie (ni tú mismo) puede mirar qué
 * cartas son"; hands are secret; the Fuente card is seen by the drawer. */
static void test_hidden_info(void **state)
{
	struct gtr_state *s = game(2);
	struct buf pub = BUF_INIT, sec = BUF_INIT;
	int l;

	vault(s, P0, GC_PRISON);		/* no other Prisión anywhere public */
	hand(s, P1, GC_COLISEUM);
	hand(s, P1, GC_GARDEN);
	hand(s, P0, GC_DOCK);
	BUILT(s, P0, GC_FOUNTAIN);
	top(s, GC_CATACOMB);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	MV(s, P0, GK_FOUNTAIN, ANY, ANY, ANY);
	for (l = 0; l < LOC_COUNT; l++) {
		buf_reset(&pub);
		public_board(s, (enum locale)l, &pub);
		assert_true(pub.len > 0);
		if (strstr(buf_str(&pub), gtr_cards[GC_PRISON].name[l]))
			fail_msg("vault card on the public board:\n%s", buf_str(&pub));
		if (strstr(buf_str(&pub), gtr_cards[GC_COLISEUM].name[l]) ||
		    strstr(buf_str(&pub), gtr_cards[GC_GARDEN].name[l]))
			fail_msg("hand card on the public board:\n%s", buf_str(&pub));
		if (strstr(buf_str(&pub), gtr_cards[GC_CATACOMB].name[l]))
			fail_msg("the Fuente card on the public board:\n%s", buf_str(&pub));
	}
	gtr_secrets(s, LOC_EN, &sec);
	assert_non_null(strstr(buf_str(&sec), "Prison"));
	{
		struct game_view v = { LOC_EN, s->nplayers, names };
		struct rich r = RICH_INIT;
		struct buf priv = BUF_INIT;

		/* the owner may not look at its vault ("ni tú mismo") */
		gtr_render_private(s, P0, &v, &r);
		rich_to_plain(&r, &priv);
		if (strstr(buf_str(&priv), "Prison"))
			fail_msg("vault card in its owner's private view:\n%s", buf_str(&priv));
		/* but sees Fuente's card: "Una vez que has cogido y visto la carta" */
		assert_non_null(strstr(buf_str(&priv), "Catacomb"));
		rich_release(&r);
		buf_reset(&priv);
		gtr_render_private(s, P1, &v, &r);
		rich_to_plain(&r, &priv);
		assert_null(strstr(buf_str(&priv), "Catacomb"));
		assert_non_null(strstr(buf_str(&priv), "Coliseum"));	/* its own hand */
		rich_release(&r);
		buf_release(&priv);
	}
	buf_release(&pub);
	buf_release(&sec);
	free(s);
}

/* nofunctions: "jugar sin las funciones de los edificios". */
static void test_nofunctions(void **state)
{
	struct gtr_state *s = game_opts(2, "nofunctions");

	BUILT(s, P0, GC_TEMPLE);
	BUILT(s, P0, GC_MARKET);
	assert_false(gtr_has(s, P0, GC_TEMPLE));
	assert_int_equal(gtr_hand_limit(s, P0), 5);
	assert_int_equal(gtr_vault_limit(s, P0), 6);	/* influence 2 + 3 + 1 only */
	free(s);
}

/* The same round typed with canonical ids (game_play), as players would. */
static void test_example_round_by_ids(void **state)
{
	struct gtr_state *s = game(4);
	int i;

	client(s, P0, GC_INSULA);
	client(s, P2, GC_INSULA);
	hand(s, P0, GC_BAR);
	hand(s, P1, GTR_JACK);
	hand(s, P2, GC_DOCK);
	for (i = 0; i < 5; i++)
		hand(s, P3, GC_ROAD);
	pool(s, GC_CIRCUS);
	pool(s, GC_ARCHWAY);
	pool(s, GC_SEWER);
	pool(s, GC_VILLA);
	gtr_start_turn(s, P0);
	PLAY(s, P0, "lead laborer");
	if (s->step == GS_UNIT && s->decider == P0)
		PLAY(s, P0, "bar");
	PLAY(s, P1, "follow");
	if (s->step == GS_UNIT && s->decider == P1)
		PLAY(s, P1, "senator");
	PLAY(s, P2, "think draw");
	PLAY(s, P3, "think draw");
	assert_int_equal(hand_n(s, P2), 5);	/* "hasta tener 5" */
	assert_int_equal(hand_n(s, P3), 6);	/* "pasará a tener 6" */
	PLAY(s, P0, "take wood");
	PLAY(s, P0, "take brick");		/* "dos veces la acción de Obrero" */
	PLAY(s, P1, "take stone");
	PLAY(s, P2, "take stone");		/* its client, although it thought */
	end_turn(s);
	assert_int_equal(stock_n(s, P0), 2);
	assert_int_equal(stock_n(s, P1), 1);
	assert_int_equal(stock_n(s, P2), 1);
	assert_int_equal(stock_n(s, P3), 0);
	assert_int_equal(s->pool[GC_BAR], 1);
	assert_int_equal(s->leader, P1);	/* "el Jugador 2 será el nuevo Líder" */
	free(s);
}

/* The Legionario example typed with ids. */
static void test_example_legionary_by_ids(void **state)
{
	struct gtr_state *s = game(4);

	hand(s, P0, GC_ARCHWAY);
	hand(s, P0, GC_INSULA);
	pool(s, GC_LATRINE);
	hand(s, P1, GC_LATRINE);
	hand(s, P3, GC_MARKET);
	gtr_start_turn(s, P0);
	PLAY(s, P0, "lead legionary");
	if (s->step == GS_UNIT && s->decider == P0)
		PLAY(s, P0, "archway");
	PLAY(s, P1, "think jack");
	PLAY(s, P2, "think jack");
	PLAY(s, P3, "think jack");
	PLAY(s, P0, "demand rubble");		/* "¡Roma exige… Escombros!" */
	if (s->step == GS_LEGION && s->decider == P0)
		PLAY(s, P0, "done");
	PLAY(s, P0, "take rubble");		/* "puedes coger ... una" */
	assert_int_equal(s->p[P0].stock[GC_LATRINE], 2);
	assert_int_equal(s->p[P1].hand[GC_LATRINE], 0);
	assert_int_equal(s->p[P3].hand[GC_MARKET], 1);
	assert_int_equal(s->p[P0].hand[GC_INSULA], 1);
	free(s);
}

/* "Si llevas a cabo la Acción de Legionario más de una vez en el mismo
 * turno, debes enseñar de una vez todas las cartas"; "incluyendo varias
 * veces el mismo material (si tienes varias cartas del mismo)"; "tendrán
 * que darte tantas cartas como puedan"; "perderás la Acción de esos
 * Legionarios extras". */
static void test_legionary_combined_demand(void **state)
{
	struct gtr_state *s = game(2);

	client(s, P0, GC_ATRIUM);		/* a Legionary client: 2 actions */
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_CIRCUS);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_DOCK);
	hand(s, P1, GC_MARKET);
	pool(s, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_false(CAN(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY));	/* one card counts once */
	MV(s, P0, GK_DEMAND, GM_WOOD, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_false(CAN(s, P0, GK_TAKE, GM_WOOD, ANY, ANY));		/* none in the pool */
	MV(s, P0, GK_TAKE, GM_RUBBLE, ANY, ANY);
	/* P1 holds two wood cards for one demanded: it chooses */
	assert_int_equal(gtr_awaiting(s), 1u << P1);
	assert_false(CAN(s, P1, GK_GIVE, GC_LATRINE, ANY, ANY));	/* given at once */
	MV(s, P1, GK_GIVE, GC_DOCK, ANY, ANY);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 2);	/* pool + P1 */
	assert_int_equal(gtr_count(s->p[P0].stock, GM_WOOD), 1);
	assert_int_equal(s->p[P1].hand[GC_MARKET], 1);		/* the wood card it kept */
	assert_int_equal(s->p[P0].hand[GC_ROAD], 1);
	assert_int_equal(s->p[P0].hand[GC_CIRCUS], 1);
	free(s);

	/* the same material twice; the victim gives what it has */
	s = game(2);
	client(s, P0, GC_ATRIUM);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	hand(s, P1, GC_LATRINE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 1);
	assert_int_equal(gtr_total(s->p[P1].hand, GC_COUNT), 0);
	free(s);
}

/* "Foro combinado con la Escalinata: Si al acabar un Foro público dos o más
 * jugadores cumplen los requisitos ... el vencedor será aquél que ... tenga
 * la mayor puntuación". */
static void test_forum_stairway_higher_score(void **state)
{
	struct gtr_state *s = game(3);
	int seat;

	for (seat = P1; seat <= P2; seat++) {
		client(s, seat, GC_ROAD);
		client(s, seat, GC_CIRCUS);
		client(s, seat, GC_ACADEMY);
		client(s, seat, GC_AQUEDUCT);
		client(s, seat, GC_SEWER);
		client(s, seat, GC_BASILICA);
		stock(s, seat, GC_LATRINE);
		stock(s, seat, GC_CIRCUS);
		stock(s, seat, GC_TOWER);
		stock(s, seat, GC_CATACOMB);
	}
	stock(s, P1, GC_ACADEMY);
	stock(s, P1, GC_STATUE);
	stock(s, P1, GC_TEMPLE);		/* two marbles: one goes on the Foro */
	stock(s, P2, GC_ARCHWAY);
	stock(s, P2, GC_PALACE);
	vault(s, P2, GC_VILLA);			/* P2 scores higher */
	hand(s, P1, GC_AQUEDUCT);
	BUILT(s, P1, GC_STAIRWAY);
	BUILT(s, P1, GC_INSULA);		/* P1: (2+3+1)+2 = 8 clients */
	BUILT(s, P2, GC_INSULA);
	BUILT(s, P2, GC_MARKET);
	BUILT(s, P2, GC_DOCK);			/* P2: (2+1+1+1)+2 = 7 clients */
	BUILT(s, P0, GC_FORUM);			/* P0 does not meet it */
	assert_false(gtr_forum_met(s, P1));
	assert_false(gtr_forum_met(s, P2));
	assert_true(gtr_score(s, P2) > gtr_score(s, P1));
	gtr_start_turn(s, P1);
	lead(s, P1, GR_ARCHITECT, GC_AQUEDUCT);
	others_think(s);
	MV(s, P1, GK_STAIRWAY, GC_FORUM, P0, ANY);
	if (s->step == GS_MATERIAL && s->decider == P1)
		MV(s, P1, GK_WITH, GM_MARBLE, 0, ANY);
	/* both P1 and P2 meet the now public Foro: the higher score wins */
	assert_int_equal(s->end, GE_FORUM);
	assert_int_equal(s->winner, P2);
	free(s);
}

/* Prisión: "no puedes robar un edificio que sea igual a uno que ya tengas o
 * que estés construyendo". */
static void test_prison_same_name(void **state)
{
	struct gtr_state *s = game(2);

	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_SEWER);
	FOUND(s, P0, GC_PRISON, 2);
	FOUND(s, P0, GC_MARKET, 0);
	BUILT(s, P1, GC_MARKET);
	BUILT(s, P1, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	add_from_hand(s, P0, GC_PRISON, GC_SEWER);
	assert_int_equal(s->step, GS_PRISON);
	assert_false(CAN(s, P0, GK_IMPRISON, GC_MARKET, P1, ANY));
	assert_true(CAN(s, P0, GK_IMPRISON, GC_INSULA, P1, ANY));
	free(s);
}

/* Experienced: "Escoge una carta de Acción y la coloca en el centro de la
 * mesa boca abajo. Se muestran todas las cartas a la vez y el jugador con la
 * carta cuyo nombre vaya antes alfabéticamente será jugador inicial";
 * those cards form the pool ("Reserva inicial"). */
static void test_experienced_leader_pick(void **state)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int pick[3], seat, c, best = -1, tie = 0;

	assert_int_equal(gtr_setup(s, 3, 77, "experienced", &err), 0);
	/* seat 0 shows its alphabetically first card, the others their last */
	for (seat = 0; seat < 3; seat++) {
		pick[seat] = -1;
		for (c = 0; c < GC_COUNT; c++)
			if (s->p[seat].hand[c] && (pick[seat] < 0 ||
			    (strcmp(gtr_cards[c].sort, gtr_cards[pick[seat]].sort) < 0) == (seat == 0)))
				pick[seat] = c;
	}
	for (seat = 0; seat < 3; seat++) {
		if (best < 0 || strcmp(gtr_cards[pick[seat]].sort, gtr_cards[pick[best]].sort) < 0) {
			best = seat;
			tie = 0;
		} else if (!strcmp(gtr_cards[pick[seat]].sort, gtr_cards[pick[best]].sort)) {
			tie = 1;
		}
	}
	for (seat = 0; seat < 3; seat++)
		MV(s, seat, GK_PICK, pick[seat], ANY, ANY);
	assert_true(s->phase != GP_PICK);
	for (seat = 0; seat < 3; seat++) {
		assert_int_equal(gtr_hand_size(s, seat), 5);	/* 4 cards + the Senador */
		assert_true(s->pool[pick[seat]] >= 1);
	}
	if (!tie)
		assert_int_equal(s->leader, best);
	assert_int_equal(pool_n(s), 3 + (tie ? pool_n(s) - 3 : 0));
	buf_release(&err);
	free(s);
}

/* "Gira una carta en tu Mano (no vale un Senador)"; "Los Senadores no se
 * pueden coger o jugar como materiales ni como Clientes". */
static void test_senators_not_materials(void **state)
{
	struct gtr_state *s = game(2);

	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GTR_JACK);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	assert_false(s->phase == GP_ACTIONS && seat_of(s) == P0 &&
		     CAN(s, P0, GK_DEMAND, ANY, ANY, ANY));
	free(s);

	/* Think: "Coger un Senador (si quedan)" */
	s = game(2);
	while (s->jacks)
		PUT(s, GTR_JACK, GZ_JACKS, 0, GZ_HAND, P1);
	gtr_start_turn(s, P0);
	assert_false(CAN(s, P0, GK_THINK, GTR_THINK_JACK, ANY, ANY));
	assert_true(CAN(s, P0, GK_THINK, GTR_THINK_DRAW, ANY, ANY));
	free(s);
}

/* Coliseo: "Los Clientes Legionarios que se hayan eliminado, no se tienen
 * en cuenta como Clientes para sus antiguos dueños en ese turno". */
static void test_coliseum_lost_client_does_not_act(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_COLISEUM);
	hand(s, P0, GC_ARCHWAY);
	hand(s, P0, GC_ATRIUM);			/* reveals brick */
	client(s, P1, GC_ACADEMY);		/* a Legionary client */
	hand(s, P1, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ARCHWAY);
	others_think(s);
	assert_int_equal(gtr_turn_actions(s, P1), 1);
	MV(s, P0, GK_DEMAND, GM_BRICK, ANY, ANY);
	if (s->decider == P0 && s->step == GS_LEGION)
		MV(s, P0, GK_DONE, ANY, ANY, ANY);
	if (s->decider == P0 && s->step == GS_COLISEUM)
		MV(s, P0, GK_COLISEUM, GR_LEGIONARY, P1, ANY);
	assert_int_equal(s->p[P0].vault[GC_ACADEMY], 1);
	assert_int_equal(gtr_clients(s, P1), 0);
	assert_int_equal(gtr_turn_actions(s, P1), 0);
	pass_actions(s, P0);
	/* P1 is never asked to demand */
	assert_false(s->phase == GP_ACTIONS && seat_of(s) == P1);
	free(s);
}

/* ===================== issue 12: the rules audit ===================== */

/* The documented option words, each through the driver table (what the
 * session calls), each with its effect. */
static struct gtr_state *setup_with(int n, const char *opts)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;

	if (gtr_ops.setup(s, n, 4242, opts, &err))
		fail_msg("setup \"%s\": %s", opts ? opts : "(null)", buf_str(&err));
	check_ok(s);
	buf_release(&err);
	return s;
}

/* The error for a word, from the driver table; NULL when it was accepted. */
static char *setup_error(const char *opts)
{
	struct gtr_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	char *e = NULL;

	if (gtr_ops.setup(s, 3, 1, opts, &err))
		e = buf_detach(&err);
	buf_release(&err);
	free(s);
	return e;
}

/* "Variante para jugadores experimentados": 5 cards + a Senator, the
 * leader card chosen. */
static void test_option_experienced(void **state)
{
	struct gtr_state *s = setup_with(3, "experienced");

	assert_int_equal(s->opts, GO_EXPERIENCED);
	assert_int_equal(s->phase, GP_PICK);
	assert_int_equal(gtr_hand_size(s, P0), 6);
	free(s);
	s = setup_with(3, "EXPERIENCED");	/* ASCII case aside, exactly the word */
	assert_int_equal(s->opts, GO_EXPERIENCED);
	free(s);
}

/* «Variante Circo / Foro Original»: the word is `original-circus`, one
 * word with its hyphen; a petition takes 3 cards. */
static void test_option_original_circus(void **state)
{
	struct gtr_state *s = setup_with(3, "original-circus");
	char *e;

	assert_int_equal(s->opts, GO_ORIGINAL_CIRCUS);
	assert_int_equal(gtr_petition_need(s, P0), 3);
	free(s);
	/* the folded forms are not the word: refused with the list */
	e = setup_error("original circus");
	assert_non_null(e);
	assert_string_equal(e, "Unknown option \"original\" (options: experienced, "
			       "original-circus, nofunctions, quick).");
	free(e);
	e = setup_error("original_circus");
	assert_non_null(e);
	assert_non_null(strstr(e, "\"original_circus\""));
	free(e);
}

/* "sin las funciones de los edificios": influence only. */
static void test_option_nofunctions(void **state)
{
	struct gtr_state *s = setup_with(2, "nofunctions");

	assert_int_equal(s->opts, GO_NOFUNCTIONS);
	BUILT(s, P0, GC_INSULA);
	assert_false(gtr_has(s, P0, GC_INSULA));
	assert_int_equal(gtr_client_limit(s, P0), 3);	/* influence 3, no +2 */
	free(s);
}

/* The example game's sites: "un máximo de 2 Solares para partidas de 2 o 3
 * jugadores. Para partidas a 4 o 5 jugadores utiliza 3". */
static void test_option_quick(void **state)
{
	struct gtr_state *s = setup_with(2, "quick");

	assert_int_equal(s->opts, GO_QUICK);
	assert_int_equal(s->in_town[GM_STONE], 2);
	free(s);
	s = setup_with(4, "quick");
	assert_int_equal(s->in_town[GM_STONE], 3);
	free(s);
}

/* Unknown words fail with the list; the words combine; none is none. */
static void test_option_words(void **state)
{
	struct gtr_state *s;
	char *e;

	e = setup_error("fast");
	assert_string_equal(e, "Unknown option \"fast\" (options: experienced, "
			       "original-circus, nofunctions, quick).");
	free(e);
	e = setup_error("quick originalcircus");
	assert_non_null(strstr(e, "\"originalcircus\""));
	free(e);
	e = setup_error("experiencedxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_non_null(strstr(e, "...\" (options:"));	/* an overlong word, cut */
	free(e);
	s = setup_with(4, "quick original-circus experienced nofunctions");
	assert_int_equal(s->opts, GO_QUICK | GO_ORIGINAL_CIRCUS | GO_EXPERIENCED | GO_NOFUNCTIONS);
	free(s);
	s = setup_with(2, "");
	assert_int_equal(s->opts, 0);
	free(s);
	s = setup_with(2, NULL);
	assert_int_equal(s->opts, 0);
	free(s);
}

/* Whether a public board (either locale) shows anything secrets() lists. */
static void assert_board_hides(const struct gtr_state *s)
{
	int l;

	for (l = 0; l < LOC_COUNT; l++) {
		struct buf pub = BUF_INIT, sec = BUF_INIT;
		const char *p;

		public_board(s, (enum locale)l, &pub);
		gtr_secrets(s, (enum locale)l, &sec);
		for (p = buf_str(&sec); *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			char *needle = strndup(p, n);

			if (n && strstr(buf_str(&pub), needle))
				fail_msg("hidden \"%s\" on the board:\n%s", needle, buf_str(&pub));
			free(needle);
			p += n + (nl ? 1 : 0);
		}
		buf_release(&pub);
		buf_release(&sec);
	}
}

/*
 * "deben darte una cada uno": giving is the victim's act.  A victim holding
 * more matching cards than it must give chooses which (GS_GIVE); all such
 * victims are asked at once; a victim that must give all its cards of the
 * material (or has none: "Gloria a Roma") is not asked.  Two cards of one
 * name still ask (asking only when the names differ would tell the table).
 */
static void test_legionary_victims_choose(void **state)
{
	struct gtr_state *s = game(3);
	struct buf b = BUF_INIT;

	client(s, P0, GC_ARCHWAY);		/* a Legionary client: 2 demands */
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);			/* shown: rubble */
	hand(s, P0, GC_DOCK);			/* shown: wood */
	hand(s, P1, GC_LATRINE);		/* two rubble names: chooses */
	hand(s, P1, GC_BAR);
	hand(s, P1, GC_CIRCUS);			/* its only wood: given at once */
	hand(s, P2, GC_INSULA);			/* two Insulas: asked all the same */
	hand(s, P2, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DEMAND, GM_WOOD, ANY, ANY);
	assert_int_equal(s->step, GS_GIVE);
	assert_int_equal(gtr_awaiting(s), (1u << P1) | (1u << P2));
	assert_int_equal(s->p[P0].stock[GC_CIRCUS], 1);		/* P1's wood, at once */
	assert_true(logged("Jugador 3: \"Glory to Rome!\" (no Wood)"));
	/* P1: the two rubble names, no way to refuse */
	assert_true(CAN(s, P1, GK_GIVE, GC_LATRINE, ANY, ANY));
	assert_true(CAN(s, P1, GK_GIVE, GC_BAR, ANY, ANY));
	assert_false(CAN(s, P1, GK_DONE, ANY, ANY, ANY));
	assert_false(CAN(s, P1, GK_GIVE, GC_CIRCUS, ANY, ANY));
	/* P2: one option, asked */
	assert_true(CAN(s, P2, GK_GIVE, GC_INSULA, ANY, ANY));
	assert_false(CAN(s, P0, GK_DONE, ANY, ANY, ANY));	/* the Legionary waits */
	/* the board names who is asked and what is owed, never the cards */
	assert_board_hides(s);
	public_board(s, LOC_EN, &b);
	assert_non_null(strstr(buf_str(&b), "Now: Jugador 2, Jugador 3 (answering Jugador 1's Legionary)."));
	assert_non_null(strstr(buf_str(&b), "Jugador 2 chooses which cards to give: Rubble ×1."));
	assert_null(strstr(buf_str(&b), "Latrine"));
	buf_reset(&b);
	gtr_prompt(s, P1, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Rome demands: choose which cards you give the "
					 "Legionary (Rubble ×1).");
	buf_reset(&b);
	gtr_move_label(s, P1, (struct move){ GK_GIVE, GC_BAR, 0, 0 }, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Give Bar (rubble · Laborer) to the Legionary");
	/* in any order: P2 first, P1 still asked */
	MV(s, P2, GK_GIVE, GC_INSULA, ANY, ANY);
	assert_int_equal(gtr_awaiting(s), 1u << P1);
	MV(s, P1, GK_GIVE, GC_BAR, ANY, ANY);
	assert_true(logged("Jugador 2 gives Jugador 1 Rubble."));
	assert_true(logged("[1] You give Bar (rubble · Laborer)."));
	assert_int_equal(s->p[P1].hand[GC_LATRINE], 1);		/* the card it kept */
	assert_int_equal(s->p[P0].stock[GC_BAR], 1);
	assert_int_equal(s->p[P0].stock[GC_INSULA], 1);
	assert_int_equal(s->p[P2].hand[GC_INSULA], 1);
	assert_true(s->step != GS_GIVE);
	buf_release(&b);
	free(s);
}

/* Two demands of one material against a victim with three: two choices,
 * one card each; with exactly as many as demanded, all go at once
 * ("tendrán que darte tantas cartas como puedan"). */
static void test_legionary_several_demands(void **state)
{
	struct gtr_state *s = game(2);

	client(s, P0, GC_ARCHWAY);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_BAR);
	hand(s, P1, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(gtr_awaiting(s), 1u << P1);
	assert_int_equal(s->p[P1].give[GM_RUBBLE], 2);
	MV(s, P1, GK_GIVE, GC_ROAD, ANY, ANY);
	assert_int_equal(gtr_awaiting(s), 1u << P1);		/* one more */
	assert_false(CAN(s, P1, GK_GIVE, GC_ROAD, ANY, ANY));
	MV(s, P1, GK_GIVE, GC_LATRINE, ANY, ANY);
	assert_int_equal(s->p[P1].hand[GC_BAR], 1);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 2);
	free(s);

	/* exactly as many as demanded: nothing to choose */
	s = game(2);
	client(s, P0, GC_ARCHWAY);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_BAR);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_true(s->step != GS_GIVE);
	assert_int_equal(gtr_count(s->p[P1].hand, GM_RUBBLE), 0);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 2);
	free(s);
}

/* Puente's stockpile card is given at once: stockpile cards show their
 * material only and their names never matter to the rules. */
static void test_legionary_bridge_stockpile_automatic(void **state)
{
	struct gtr_state *s = game(2);

	BUILT(s, P0, GC_BRIDGE);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_BAR);
	stock(s, P1, GC_INSULA);
	stock(s, P1, GC_ROAD);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(gtr_awaiting(s), 1u << P1);		/* the hand: its choice */
	assert_int_equal(gtr_count(s->p[P1].stock, GM_RUBBLE), 1);	/* one already given */
	assert_false(CAN(s, P1, GK_GIVE_STOCK, ANY, ANY, ANY));
	MV(s, P1, GK_GIVE, GC_LATRINE, ANY, ANY);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 2);
	free(s);
}

/*
 * Empalizada: "Aun así, puedes decidir entregarle cartas si quieres";
 * Muralla: "no estas obligado a perder cartas ... aunque puedes darlas si
 * quieres" -- against a Puente that includes its stockpile card.  A
 * protected player is asked whatever it holds (asking only those with a
 * match would tell the table), except with an empty hand and nothing to
 * give from the stockpile, which everybody sees.
 */
static void test_protected_may_give(void **state)
{
	struct gtr_state *s = game(2);
	struct buf b = BUF_INIT;

	BUILT(s, P1, GC_PALISADE);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_true(logged("Jugador 2 is protected by Palisade."));
	assert_int_equal(gtr_awaiting(s), 1u << P1);
	assert_true(CAN(s, P1, GK_DONE, ANY, ANY, ANY));
	gtr_prompt(s, P1, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "You are protected from the Legionary; you may still "
					 "give (up to Rubble ×1) or keep your cards.");
	MV(s, P1, GK_GIVE, GC_INSULA, ANY, ANY);		/* a gift all the same */
	assert_int_equal(s->p[P0].stock[GC_INSULA], 1);
	assert_int_equal(s->p[P1].hand[GC_LATRINE], 1);		/* one per demanded card */
	assert_true(s->step != GS_GIVE);
	free(s);

	/* Muralla against a Puente: the stockpile too, if it wants */
	s = game(3);
	BUILT(s, P0, GC_BRIDGE);
	BUILT(s, P1, GC_WALL);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GC_LATRINE);
	stock(s, P1, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(gtr_awaiting(s), 1u << P1);
	assert_true(CAN(s, P1, GK_GIVE, GC_LATRINE, ANY, ANY));
	MV(s, P1, GK_GIVE_STOCK, GM_RUBBLE, ANY, ANY);
	assert_true(logged("Jugador 2 also gives Rubble from the stockpile."));
	assert_int_equal(gtr_awaiting(s), 1u << P1);		/* the hand card: still free */
	MV(s, P1, GK_DONE, ANY, ANY, ANY);
	assert_true(logged("Jugador 2 keeps the cards."));
	assert_int_equal(s->p[P0].stock[GC_INSULA], 1);
	assert_int_equal(s->p[P1].hand[GC_LATRINE], 1);
	free(s);

	/* an empty hand (it followed with its last card): not asked */
	s = game(2);
	BUILT(s, P1, GC_PALISADE);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GC_ARCHWAY);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	follow(s, P1, GC_ARCHWAY);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(gtr_hand_size(s, P1), 0);
	assert_true(s->step != GS_GIVE);
	buf_release(&b);
	free(s);
}

/* "Si hay cartas de ese material (color) en la Reserva, puedes coger
 * inmediatamente una": a choice, one per demanded card. */
static void test_legionary_pool_choice(void **state)
{
	struct gtr_state *s = game(2);
	struct buf b = BUF_INIT;

	client(s, P0, GC_ARCHWAY);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	pool(s, GC_LATRINE);
	pool(s, GC_BAR);
	pool(s, GC_BAR);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(s->step, GS_LEGION_POOL);
	assert_int_equal(s->leg_take[GM_RUBBLE], 2);		/* two demanded, three there */
	gtr_move_label(s, P0, (struct move){ GK_TAKE, GM_RUBBLE, 0, 0 }, LOC_ES, &b);
	assert_string_equal(buf_str(&b), "Coger Escombros de la Reserva (Roma exige)");
	MV(s, P0, GK_TAKE, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DONE, ANY, ANY, ANY);			/* the second one: no */
	assert_true(logged("Jugador 1 leaves the pool's matching cards there."));
	assert_int_equal(gtr_count(s->pool, GM_RUBBLE), 2);
	assert_int_equal(gtr_count(s->p[P0].stock, GM_RUBBLE), 1);
	free(s);

	/* declined at once: the pool keeps everything */
	s = game(2);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	pool(s, GC_LATRINE);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	MV(s, P0, GK_DONE, ANY, ANY, ANY);
	assert_int_equal(s->pool[GC_LATRINE], 1);
	assert_int_equal(stock_n(s, P0), 0);
	buf_release(&b);
	free(s);
}

/* The basic AI's answers: the Legionary takes the pool's match, a victim
 * gives the card it least wants to keep, a protected victim keeps. */
static void test_legionary_ai(void **state)
{
	struct gtr_state *s = game(3);
	struct move m;
	struct rng r;

	rng_seed(&r, 1, 1);
	BUILT(s, P1, GC_ROAD);			/* a Road is worth less to P1 now */
	BUILT(s, P2, GC_PALISADE);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_INSULA);
	pool(s, GC_BAR);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_ROAD);
	hand(s, P2, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(gtr_bot_move(s, P0, &r, &m), 0);
	assert_int_equal(m.kind, GK_TAKE);
	assert_int_equal(gtr_apply(s, P0, m, NULL, NULL), 0);
	assert_int_equal(gtr_awaiting(s), (1u << P1) | (1u << P2));
	assert_int_equal(gtr_bot_move(s, P1, &r, &m), 0);
	assert_int_equal(m.kind, GK_GIVE);
	assert_int_equal(m.a, GC_ROAD);
	assert_int_equal(gtr_bot_move(s, P2, &r, &m), 0);
	assert_int_equal(m.kind, GK_DONE);
	free(s);
}

/* A victim's decision survives save and load, and an old ("v": 1) save
 * still loads. */
static void test_legionary_save_load(void **state)
{
	struct gtr_state *s = game(3), *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;
	json_t *j, *k;

	BUILT(s, P2, GC_PALISADE);
	hand(s, P0, GC_ACADEMY);
	hand(s, P0, GC_ROAD);
	hand(s, P1, GC_LATRINE);
	hand(s, P1, GC_BAR);
	hand(s, P2, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_LEGIONARY, GC_ACADEMY);
	others_think(s);
	MV(s, P0, GK_DEMAND, GM_RUBBLE, ANY, ANY);
	assert_int_equal(s->step, GS_GIVE);
	j = gtr_save(s);
	assert_int_equal(json_integer_value(json_object_get(j, "v")), 2);
	if (gtr_load(t, j, &err))
		fail_msg("load: %s", buf_str(&err));
	k = gtr_save(t);
	assert_true(json_equal(j, k));
	assert_int_equal(gtr_awaiting(t), gtr_awaiting(s));
	json_decref(k);
	json_decref(j);
	/* a version 1 save: no victims' decisions, no leader draw */
	MV(s, P1, GK_GIVE, GC_BAR, ANY, ANY);
	MV(s, P2, GK_DONE, ANY, ANY, ANY);
	j = gtr_save(s);
	json_object_set_new(j, "v", json_integer(1));
	json_object_del(j, "gift");
	json_object_del(j, "vol");
	json_object_del(j, "leg_take");
	json_object_del(j, "leader_draw");
	for (size_t i = 0; i < json_array_size(json_object_get(j, "seats")); i++) {
		json_object_del(json_array_get(json_object_get(j, "seats"), i), "give");
		json_object_del(json_array_get(json_object_get(j, "seats"), i), "give_stock");
	}
	if (gtr_load(t, j, &err))
		fail_msg("v1 load: %s", buf_str(&err));
	assert_memory_equal(t, s, sizeof(*s));
	json_object_set_new(j, "v", json_integer(3));
	assert_int_equal(gtr_load(t, j, &err), -1);		/* from the future */
	json_decref(j);
	buf_release(&err);
	free(t);
	free(s);
}

/*
 * The leader draw ("Cada jugador coge una carta de Acción al azar del mazo
 * y la coloca en el centro de la mesa"): every player sees the cards; the
 * intro op logs them with the Spanish name that decides the order, and the
 * first turn's board shows them.
 */
static void test_leader_draw_intro(void **state)
{
	struct gtr_state *s = setup_with(3, "");
	struct game_log es = { LOC_ES, names, emit, NULL };
	struct buf want = BUF_INIT, b = BUF_INIT;
	int i;

	assert_non_null(gtr_ops.intro);
	assert_true(s->ndraw >= 3);
	gtr_ops.intro(s, &cap_log);
	for (i = 0; i < 3; i++) {
		int c = s->draw_card[i];

		buf_reset(&want);
		buf_printf(&want, "%s shows %s (%s).\n", names[i], gtr_cards[c].name[LOC_EN],
			   gtr_cards[c].name[LOC_ES]);
		if (!logged(buf_str(&want)))
			fail_msg("no \"%s\" in:\n%s", buf_str(&want), buf_str(&logbuf));
		/* the leader's card comes first in Spanish alphabetical order */
		if (i != s->leader)
			assert_true(strcmp(gtr_cards[c].sort, gtr_cards[s->draw_card[s->leader]].sort) >= 0);
	}
	buf_reset(&want);
	buf_printf(&want, "%s leads first: ", names[s->leader]);
	assert_true(logged(buf_str(&want)));
	buf_reset(&logbuf);
	gtr_ops.intro(s, &es);
	buf_reset(&want);
	buf_printf(&want, "%s muestra %s.\n", names[0], gtr_cards[s->draw_card[0]].name[LOC_ES]);
	assert_true(logged(buf_str(&want)));
	gtr_ops.intro(s, NULL);					/* nobody listens: nothing */
	/* the first board shows the draw; the next turn's does not */
	public_board(s, LOC_EN, &b);
	assert_non_null(strstr(buf_str(&b), "Leader draw (the first Spanish name leads): Jugador 1 "));
	assert_board_hides(s);
	MV(s, s->leader, GK_THINK, GTR_THINK_JACK, ANY, ANY);	/* the turn ends at once */
	decline_discards(s, s->leader);
	buf_reset(&b);
	public_board(s, LOC_EN, &b);
	assert_int_equal(s->turn, 2);
	assert_null(strstr(buf_str(&b), "Leader draw"));
	buf_release(&want);
	buf_release(&b);
	free(s);
}

/* "en caso de empate, se sacan más cartas hasta que haya un jugador
 * inicial": the tie draws are shown too. */
static void test_leader_draw_tie(void **state)
{
	struct gtr_state *s = NULL;
	uint64_t seed;

	for (seed = 1; seed < 5000; seed++) {
		struct buf err = BUF_INIT;

		free(s);
		s = calloc(1, sizeof(*s));
		assert_int_equal(gtr_ops.setup(s, 2, seed, "", &err), 0);
		buf_release(&err);
		if (s->ndraw > 2)
			break;
	}
	assert_true(s->ndraw > 2);
	assert_int_equal(s->draw_card[0], s->draw_card[1]);	/* the tie */
	gtr_ops.intro(s, &cap_log);
	assert_true(logged("Tie: "));
	assert_int_equal(gtr_total(s->pool, GC_COUNT), s->ndraw);	/* all start the pool */
	free(s);
}

/* Experienced: the picks are logged when shown together. */
static void test_leader_draw_experienced(void **state)
{
	struct gtr_state *s = setup_with(2, "experienced");
	struct buf want = BUF_INIT;
	int seat, pick[2];

	gtr_ops.intro(s, &cap_log);
	assert_true(logged("Each player picks a card from hand, face down, for the leader draw."));
	for (seat = 0; seat < 2; seat++) {
		struct move_list ml;

		gtr_moves(s, seat, &ml);
		pick[seat] = ml.v[0].a;
		MV(s, seat, GK_PICK, pick[seat], ANY, ANY);
	}
	buf_printf(&want, "%s shows %s (%s).", names[0], gtr_cards[pick[0]].name[LOC_EN],
		   gtr_cards[pick[0]].name[LOC_ES]);
	assert_true(logged(buf_str(&want)));
	assert_true(s->ndraw >= 2);
	buf_release(&want);
	free(s);
}

/* Cards carry their material and role wherever a player reads them. */
static void test_card_tags(void **state)
{
	struct gtr_state *s = game(2);
	struct game_view v = { LOC_EN, 2, names }, ve = { LOC_ES, 2, names };
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;

	hand(s, P0, GC_INSULA);
	hand(s, P0, GC_INSULA);
	hand(s, P0, GC_ROAD);
	pool(s, GC_CIRCUS);
	gtr_start_turn(s, P0);
	gtr_render_private(s, P0, &v, &r);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "Your hand (3): Road (rubble · Laborer), "
					    "Insula ×2 (rubble · Laborer)."));
	rich_release(&r);
	buf_reset(&b);
	gtr_render_private(s, P0, &ve, &r);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "Ínsula ×2 (escombros · Obrero)"));
	rich_release(&r);
	buf_reset(&b);
	public_board(s, LOC_EN, &b);
	assert_non_null(strstr(buf_str(&b), "Pool: Circus (wood · Craftsman)."));
	assert_non_null(strstr(buf_str(&b), "Deck: "));
	MV(s, P0, GK_LEAD, GR_LABORER, ANY, ANY);
	buf_reset(&b);
	gtr_move_label(s, P0, (struct move){ GK_PLAY, GC_INSULA, 0, 0 }, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Play Insula (rubble · Laborer) as Laborer");
	buf_reset(&b);
	gtr_move_label(s, P0, (struct move){ GK_PLAY, GTR_JACK, 0, 0 }, LOC_ES, &b);
	assert_string_equal(buf_str(&b), "Jugar Senador (comodín) como Obrero");
	buf_release(&b);
	free(s);
}

/* Prompts count the actions: "Craftsman: action 2 of 3". */
static void test_action_counts(void **state)
{
	struct gtr_state *s = game(2);
	struct buf b = BUF_INIT;

	client(s, P0, GC_CIRCUS);
	client(s, P0, GC_MARKET);		/* two Craftsman clients */
	hand(s, P0, GC_DOCK);
	hand(s, P0, GC_ROAD);
	hand(s, P0, GC_INSULA);
	gtr_start_turn(s, P0);
	lead(s, P0, GR_CRAFTSMAN, GC_DOCK);
	others_think(s);
	gtr_prompt(s, P0, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Craftsman: action 1 of 3.");
	MV(s, P0, GK_FOUND, GC_ROAD, GM_RUBBLE, 0);
	buf_reset(&b);
	gtr_prompt(s, P0, LOC_ES, &b);
	assert_string_equal(buf_str(&b), "Artesano: acción 2 de 3.");
	buf_reset(&b);
	public_board(s, LOC_EN, &b);
	assert_non_null(strstr(buf_str(&b), "Now: Jugador 1: Craftsman: action 2 of 3."));
	buf_release(&b);
	free(s);
}

/* "hires a Architect", "needs 1 materials", "1 cards": a/an and plurals. */
static void test_grammar(void **state)
{
	struct gtr_state *s = game(2);
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;

	hand(s, P0, GC_BASILICA);
	pool(s, GC_TOWER);			/* concrete: an Architect */
	gtr_start_turn(s, P0);
	lead(s, P0, GR_PATRON, GC_BASILICA);
	others_think(s);
	gtr_move_label(s, P0, (struct move){ GK_HIRE, GR_ARCHITECT, 0, 0 }, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Hire an Architect (concrete) from the pool");
	MV(s, P0, GK_HIRE, GR_ARCHITECT, ANY, ANY);
	assert_true(logged("Jugador 1 hires an Architect from the pool."));
	free(s);
	buf_reset(&b);
	assert_int_equal(gtr_card("Insula", NULL, LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "needs 1 material and gives 1 influence"));
	rich_release(&r);
	buf_release(&b);
}

/* `card Circo` / `card Foro` in a room playing original-circus show that
 * variant's text; elsewhere the seed's. */
static void test_card_variant_text(void **state)
{
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;

	assert_int_equal(gtr_ops.card("Circo", "original-circus", LOC_ES, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "2 cartas de un mismo personaje valen como un Senador"));
	rich_release(&r);
	buf_reset(&b);
	assert_int_equal(gtr_ops.card("Circus", NULL, LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "any card may lead or follow Architect"));
	rich_release(&r);
	buf_reset(&b);
	assert_int_equal(gtr_ops.card("Foro", "quick original-circus", LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "a client of each role wins the game at once"));
	rich_release(&r);
	buf_reset(&b);
	assert_int_equal(gtr_ops.card("Foro", "nonsense", LOC_EN, &r), 0);	/* default */
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "a material of each type"));
	rich_release(&r);
	buf_release(&b);
}

/* Every label fits a Discord menu (100 characters), in both languages,
 * along random games with every option. */
static void test_labels_fit(void **state)
{
	static const char *const opts[] = { "", "experienced", "original-circus quick" };
	struct buf b = BUF_INIT;
	struct rng r;
	int g;

	rng_seed(&r, 12, 12);
	for (g = 0; g < 30; g++) {
		struct gtr_state *s = setup_with(2 + g % 4, opts[g % 3]);
		int moves = 0;

		while (gtr_awaiting(s) && moves++ < 3000) {
			int seat = __builtin_ctz(gtr_awaiting(s)), i, l;
			struct move_list ml;

			gtr_moves(s, seat, &ml);
			for (i = 0; i < ml.n; i++)
				for (l = 0; l < LOC_COUNT; l++) {
					buf_reset(&b);
					gtr_move_label(s, seat, ml.v[i], (enum locale)l, &b);
					if (utf8_width(buf_str(&b)) > 100)
						fail_msg("label too long (%zu): %s",
							 utf8_width(buf_str(&b)), buf_str(&b));
				}
			assert_int_equal(gtr_apply(s, seat, ml.v[rng_below(&r, (uint32_t)(ml.n - ml.nmeta))],
						   NULL, NULL), 0);
		}
		free(s);
	}
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_setup_four_players, teardown),
		cmocka_unit_test_teardown(test_setup_sites_two_and_quick, teardown),
		cmocka_unit_test_teardown(test_setup_experienced, teardown),
		cmocka_unit_test_teardown(test_experienced_leader_pick, teardown),
		cmocka_unit_test_teardown(test_example_round, teardown),
		cmocka_unit_test_teardown(test_example_legionary, teardown),
		cmocka_unit_test_teardown(test_example_round_by_ids, teardown),
		cmocka_unit_test_teardown(test_example_legionary_by_ids, teardown),
		cmocka_unit_test_teardown(test_legionary_combined_demand, teardown),
		cmocka_unit_test_teardown(test_forum_stairway_higher_score, teardown),
		cmocka_unit_test_teardown(test_prison_same_name, teardown),
		cmocka_unit_test_teardown(test_senators_not_materials, teardown),
		cmocka_unit_test_teardown(test_coliseum_lost_client_does_not_act, teardown),
		cmocka_unit_test_teardown(test_option_experienced, teardown),
		cmocka_unit_test_teardown(test_option_original_circus, teardown),
		cmocka_unit_test_teardown(test_option_nofunctions, teardown),
		cmocka_unit_test_teardown(test_option_quick, teardown),
		cmocka_unit_test_teardown(test_option_words, teardown),
		cmocka_unit_test_teardown(test_legionary_victims_choose, teardown),
		cmocka_unit_test_teardown(test_legionary_several_demands, teardown),
		cmocka_unit_test_teardown(test_legionary_bridge_stockpile_automatic, teardown),
		cmocka_unit_test_teardown(test_protected_may_give, teardown),
		cmocka_unit_test_teardown(test_legionary_pool_choice, teardown),
		cmocka_unit_test_teardown(test_legionary_ai, teardown),
		cmocka_unit_test_teardown(test_legionary_save_load, teardown),
		cmocka_unit_test_teardown(test_leader_draw_intro, teardown),
		cmocka_unit_test_teardown(test_leader_draw_tie, teardown),
		cmocka_unit_test_teardown(test_leader_draw_experienced, teardown),
		cmocka_unit_test_teardown(test_card_tags, teardown),
		cmocka_unit_test_teardown(test_action_counts, teardown),
		cmocka_unit_test_teardown(test_grammar, teardown),
		cmocka_unit_test_teardown(test_card_variant_text, teardown),
		cmocka_unit_test_teardown(test_labels_fit, teardown),
		cmocka_unit_test_teardown(test_building_road, teardown),
		cmocka_unit_test_teardown(test_building_insula, teardown),
		cmocka_unit_test_teardown(test_building_latrine, teardown),
		cmocka_unit_test_teardown(test_building_bar, teardown),
		cmocka_unit_test_teardown(test_building_bar_deck_then_no_pool, teardown),
		cmocka_unit_test_teardown(test_building_circus, teardown),
		cmocka_unit_test_teardown(test_building_palisade, teardown),
		cmocka_unit_test_teardown(test_building_market, teardown),
		cmocka_unit_test_teardown(test_building_dock, teardown),
		cmocka_unit_test_teardown(test_building_dock_without_pool, teardown),
		cmocka_unit_test_teardown(test_building_academy, teardown),
		cmocka_unit_test_teardown(test_building_archway, teardown),
		cmocka_unit_test_teardown(test_building_atrium, teardown),
		cmocka_unit_test_teardown(test_building_school, teardown),
		cmocka_unit_test_teardown(test_building_foundry, teardown),
		cmocka_unit_test_teardown(test_building_gate, teardown),
		cmocka_unit_test_teardown(test_building_shrine, teardown),
		cmocka_unit_test_teardown(test_building_bath, teardown),
		cmocka_unit_test_teardown(test_building_aqueduct, teardown),
		cmocka_unit_test_teardown(test_building_amphitheatre, teardown),
		cmocka_unit_test_teardown(test_building_storeroom, teardown),
		cmocka_unit_test_teardown(test_building_wall, teardown),
		cmocka_unit_test_teardown(test_building_bridge, teardown),
		cmocka_unit_test_teardown(test_building_senate, teardown),
		cmocka_unit_test_teardown(test_building_tower, teardown),
		cmocka_unit_test_teardown(test_building_vomitorium, teardown),
		cmocka_unit_test_teardown(test_building_sewer, teardown),
		cmocka_unit_test_teardown(test_building_scriptorium, teardown),
		cmocka_unit_test_teardown(test_building_catacomb, teardown),
		cmocka_unit_test_teardown(test_building_circus_maximus, teardown),
		cmocka_unit_test_teardown(test_circus_maximus_not_when_thinking, teardown),
		cmocka_unit_test_teardown(test_building_coliseum, teardown),
		cmocka_unit_test_teardown(test_coliseum_vault_space_and_palisade, teardown),
		cmocka_unit_test_teardown(test_building_garden, teardown),
		cmocka_unit_test_teardown(test_building_prison, teardown),
		cmocka_unit_test_teardown(test_building_villa, teardown),
		cmocka_unit_test_teardown(test_building_basilica, teardown),
		cmocka_unit_test_teardown(test_building_stairway, teardown),
		cmocka_unit_test_teardown(test_building_statue, teardown),
		cmocka_unit_test_teardown(test_building_forum, teardown),
		cmocka_unit_test_teardown(test_building_fountain, teardown),
		cmocka_unit_test_teardown(test_building_ludus_magna, teardown),
		cmocka_unit_test_teardown(test_building_palace, teardown),
		cmocka_unit_test_teardown(test_building_temple, teardown),
		cmocka_unit_test_teardown(test_forum_ludus_magna, teardown),
		cmocka_unit_test_teardown(test_forum_storeroom, teardown),
		cmocka_unit_test_teardown(test_forum_original_circus, teardown),
		cmocka_unit_test_teardown(test_gate_statue, teardown),
		cmocka_unit_test_teardown(test_out_of_town_two_actions, teardown),
		cmocka_unit_test_teardown(test_no_two_of_one_name, teardown),
		cmocka_unit_test_teardown(test_senate_then_sewer, teardown),
		cmocka_unit_test_teardown(test_petition_two_cards, teardown),
		cmocka_unit_test_teardown(test_petition_three_original_circus, teardown),
		cmocka_unit_test_teardown(test_new_clients_next_turn, teardown),
		cmocka_unit_test_teardown(test_merchant_bonus_tie, teardown),
		cmocka_unit_test_teardown(test_think_options, teardown),
		cmocka_unit_test_teardown(test_end_deck_and_hand_tie, teardown),
		cmocka_unit_test_teardown(test_end_last_in_town_site, teardown),
		cmocka_unit_test_teardown(test_end_concede, teardown),
		cmocka_unit_test_teardown(test_hidden_info, teardown),
		cmocka_unit_test_teardown(test_nofunctions, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
