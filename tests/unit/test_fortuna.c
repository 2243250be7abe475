/*
 * Fortuna: the rulebook's worked examples replayed on constructed positions,
 * and unit tests of every action card, tax, token, turn order, privilege
 * and scoring rule.  Positions are built by setting state fields directly
 * (games/fortuna/fortuna.h); moves go through game_play() with their
 * canonical ids, as a player would type them.
 *
 * Seats in the rulebook's examples: Rafael 0, David 1, Paco 2, Adam 3.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "games/fortuna/fortuna.h"

enum { RAFAEL, DAVID, PACO, ADAM };

static const char *const names[] = { "Rafael", "David", "Paco", "Adam" };

/* ---- helpers ---- */

struct capture {
	struct game_log log;
	struct buf pub;			/* public lines */
	struct buf priv[FORTUNA_MAX_PLAYERS];
};

static void capture_emit(struct game_log *log, int seat, const char *text)
{
	struct capture *c = log->ctx;

	if (seat < 0)
		buf_printf(&c->pub, "%s\n", text);
	else
		buf_printf(&c->priv[seat], "%s\n", text);
}

static struct capture cap;

static void cap_reset(void)
{
	int i;

	buf_release(&cap.pub);
	for (i = 0; i < FORTUNA_MAX_PLAYERS; i++)
		buf_release(&cap.priv[i]);
	memset(&cap, 0, sizeof(cap));
	cap.log.loc = LOC_EN;
	cap.log.names = names;
	cap.log.emit = capture_emit;
	cap.log.ctx = &cap;
}

static void check_ok(const struct fortuna_state *s)
{
	struct buf err = BUF_INIT;

	if (fortuna_check(s, &err))
		fail_msg("invariant broken: %s", buf_str(&err));
	buf_release(&err);
}

#define PLAY(s, seat, text) play_at(s, seat, text, __LINE__)

static void play_at(struct fortuna_state *s, int seat, const char *text, int line)
{
	struct buf err = BUF_INIT;

	if (game_play(&fortuna_ops, s, seat, text, &cap.log, LOC_EN, &err))
		fail_msg("line %d: '%s' by seat %d refused: %s", line, text, seat, buf_str(&err));
	buf_release(&err);
	check_ok(s);
}

static int refused(struct fortuna_state *s, int seat, const char *text)
{
	struct buf err = BUF_INIT;
	int r = game_play(&fortuna_ops, s, seat, text, NULL, LOC_EN, &err);

	buf_release(&err);
	return r != 0;
}

/* The canonical ids of seat's moves, one per line. */
static void ids(const struct fortuna_state *s, int seat, struct buf *out)
{
	struct move_list ml;
	int i;

	fortuna_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		fortuna_move_id(s, seat, ml.v[i], out);
		buf_addch(out, '\n');
	}
}

static int has_move(const struct fortuna_state *s, int seat, const char *id)
{
	struct buf list = BUF_INIT, want = BUF_INIT;
	int r;

	buf_addch(&list, '\n');
	ids(s, seat, &list);
	buf_printf(&want, "\n%s\n", id);
	r = strstr(buf_str(&list), buf_str(&want)) != NULL;
	buf_release(&list);
	buf_release(&want);
	return r;
}

static void assert_moves(const struct fortuna_state *s, int seat, const char *expect)
{
	struct buf b = BUF_INIT;

	ids(s, seat, &b);
	if (strcmp(buf_str(&b), expect))
		fail_msg("moves:\n%s\nexpected:\n%s", buf_str(&b), expect);
	buf_release(&b);
}

/* The label (with the players' names) of seat's listed move `id` is
 * `expect`. */
#define assert_label(s, seat, id, loc, expect) label_at(s, seat, id, loc, expect, __LINE__)

static void label_at(const struct fortuna_state *s, int seat, const char *id, enum locale loc,
		     const char *expect, int line)
{
	struct game_view v = { loc, s->nplayers, names };
	struct buf b = BUF_INIT;
	struct move_list ml;
	int i;

	fortuna_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		buf_reset(&b);
		fortuna_move_id(s, seat, ml.v[i], &b);
		if (strcmp(buf_str(&b), id))
			continue;
		buf_reset(&b);
		fortuna_move_label_view(s, seat, ml.v[i], &v, &b);
		if (strcmp(buf_str(&b), expect))
			fail_msg("line %d: label of '%s': '%s', expected '%s'", line, id, buf_str(&b),
				 expect);
		buf_release(&b);
		return;
	}
	fail_msg("line %d: no move '%s'", line, id);
}

/* Moves n units between a supply counter and a seat's counter. */
static void shift(uint8_t *to, uint8_t *from, int n)
{
	assert_true(*from >= n);
	*from = (uint8_t)(*from - n);
	*to = (uint8_t)(*to + n);
}

static void set_res(struct fortuna_state *s, int seat, int what, int n)
{
	struct fortuna_player *p = &s->p[seat];
	uint8_t *have, *sup;

	switch (what) {
	case 'w': have = &p->water; sup = &s->sup_water; break;
	case 'g': have = &p->grain; sup = &s->sup_grain; break;
	case 'v': have = &p->wine; sup = &s->sup_wine; break;
	case 'p': have = &p->priest; sup = &s->sup_priest; break;
	case 'c': have = &p->cent; sup = &s->sup_cent; break;
	default: have = &p->dice; sup = &s->sup_dice; break;
	}
	if (n > *have)
		shift(have, sup, n - *have);
	else
		shift(sup, have, *have - n);
}

/* The base layout of the tests (each card once; one face-down card on
 * every other player's side):
 *   side 0 Rafael: Grain harvest, Construction, Family
 *   side 1 David:  Sell grain, Water collection, [Corruption]
 *   side 2 Paco:   Sell wine, Recruit Centurions, [Obtain Priestesses]
 *   side 3 Adam:   Clergy, Fortuna card, [Wine harvest]
 * For 2-3 players the sides beyond are empty sides (all face up). */
static const uint8_t base_cards[4][3] = {
	{ FA_GRAIN, FA_BUILD, FA_FAMILY },
	{ FA_SELL_GRAIN, FA_WATER, FA_CORRUPTION },
	{ FA_SELL_WINE, FA_CENTURIONS, FA_PRIESTESSES },
	{ FA_CLERGY, FA_FORTUNA, FA_WINE },
};

/* Makes `seat` the active seat at the start of phase 2 with turn order
 * `order`; every other player keeps its slot 2 face down. */
static void set_turn(struct fortuna_state *s, const int *order, int turn)
{
	int i, t;

	for (i = 0; i < s->nplayers; i++)
		s->order[i] = (uint8_t)order[i];
	s->turn = (uint8_t)turn;
	memcpy(s->side_card, base_cards, sizeof(base_cards));
	memset(s->side_down, 0, sizeof(s->side_down));
	for (t = 0; t < s->nplayers; t++)
		if (t != order[turn])
			s->side_down[t][2] = 1;
	s->step = FS_CHOOSE;
	check_ok(s);
}

static const int order0123[4] = { 0, 1, 2, 3 };

/* A fresh game past setup, at Rafael's phase 2, order 0 1 2 3. */
static struct fortuna_state *game(int n)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;

	assert_int_equal(fortuna_setup(s, n, 12345, "", &err), 0);
	while (s->step == FS_HIDE) {
		struct move_list ml;
		int seat = fortuna_decider(s);

		fortuna_moves(s, seat, &ml);
		assert_int_equal(fortuna_apply(s, seat, ml.v[0], NULL, &err), 0);
	}
	s->round = 2;
	set_turn(s, order0123, 0);
	buf_release(&err);
	cap_reset();
	return s;
}

/* Makes seat (at position turn of order) roll `rolls` in phase 4: the
 * seat has the same number of dice, and has played phases 2 and 3. */
static void at_die(struct fortuna_state *s, const int *order, int turn, const char *rolls)
{
	int seat = order[turn], i, n = (int)strlen(rolls);

	set_turn(s, order, turn);
	s->side_down[seat][2] = 1;
	set_res(s, seat, 'd', n);
	s->rolled = 1;
	s->nroll = (uint8_t)n;
	for (i = 0; i < 3; i++)
		s->roll[i] = (uint8_t)(i < n ? rolls[i] - '0' : 0);
	s->step = FS_DIE;
	check_ok(s);
}

/* Puts privilege kinds k1.. on top of the deck (k1 drawn first). */
static void deck_top(struct fortuna_state *s, int n, const int *kinds)
{
	int i, j;

	for (i = 0; i < n; i++) {
		int pos = s->ndeck - 1 - i;

		for (j = pos; j >= 0 && s->deck[j] != kinds[i]; j--)
			;
		assert_true(j >= 0);
		s->deck[j] = s->deck[pos];
		s->deck[pos] = (uint8_t)kinds[i];
	}
}

/* Moves a privilege card of kind k from the deck into seat's hand. */
static void give(struct fortuna_state *s, int seat, int k)
{
	int i;

	for (i = 0; i < s->ndeck && s->deck[i] != k; i++)
		;
	assert_true(i < s->ndeck);
	s->deck[i] = s->deck[--s->ndeck];
	s->deck[s->ndeck] = 0;
	s->p[seat].hand[k]++;
	check_ok(s);
}

static int find_kind(const struct move_list *ml, int kind)
{
	int i;

	for (i = 0; i < ml->n; i++)
		if (ml->v[i].kind == kind)
			return i;
	return -1;
}

/* Plays the active seat's turn to its end the plainest way: first card,
 * no action, no Military Power, first die, the tax when it may be paid. */
static void pass_until(struct fortuna_state *s, int stop)
{
	int seat = fortuna_decider(s), guard = 0;
	struct buf err = BUF_INIT;

	while (fortuna_decider(s) == seat && s->step != FS_OVER && s->step != stop) {
		struct move_list ml;
		int i = 0;

		assert_true(++guard < 50);
		fortuna_moves(s, seat, &ml);
		if (s->step == FS_FAVOUR && find_kind(&ml, FM_TAX) >= 0)
			i = find_kind(&ml, FM_TAX);
		else if (find_kind(&ml, FM_SKIP) >= 0)
			i = find_kind(&ml, FM_SKIP);
		if (fortuna_apply(s, seat, ml.v[i], NULL, &err))
			fail_msg("pass_turn: %s", buf_str(&err));
		check_ok(s);
	}
	buf_release(&err);
}

static void pass_turn(struct fortuna_state *s)
{
	pass_until(s, FS_OVER);
}

static int held(const struct fortuna_state *s, int seat)
{
	int k, n = 0;

	for (k = 0; k < FP_COUNT; k++)
		n += s->p[seat].hand[k];
	return n;
}

static int discards(const struct fortuna_state *s)
{
	int k, n = 0;

	for (k = 0; k < FP_COUNT; k++)
		n += s->discard[k];
	return n;
}

/* The public log says the only possible move was made for `who`. */
#define ASSERT_AUTO(who, label) assert_auto_at(who, label, __LINE__)

static void assert_auto_at(const char *who, const char *label, int line)
{
	struct buf want = BUF_INIT;

	buf_printf(&want, "Automatic for %s (the only possible move): %s.\n", who, label);
	if (!strstr(buf_str(&cap.pub), buf_str(&want)))
		fail_msg("line %d: no '%s' in the log:\n%s", line, buf_str(&want), buf_str(&cap.pub));
	buf_release(&want);
}

static int teardown(void **state)
{
	cap_reset();
	return 0;
}

/* ---- the rulebook's examples ---- */

/* Military Power: "Rafael ha jugado la acción Cosecha de grano ...
 * intercambia esta carta con la carta de David Vender grano ... entregando
 * su Centurión y activando su carta de acción Construir ... Mercado". */
static void test_example_military_power(void **state)
{
	struct fortuna_state *s = game(4);
	struct fortuna_player *r = &s->p[RAFAEL];

	PLAY(s, RAFAEL, "card grain harvest");
	PLAY(s, RAFAEL, "harvest using 0 water");
	assert_int_equal(r->grain, 3);
	assert_int_equal(s->step, FS_EXCHANGE);
	PLAY(s, RAFAEL, "exchange sell grain");
	/* Vender grano lies face down on Rafael's side, Cosecha on David's */
	assert_int_equal(s->side_card[RAFAEL][0], FA_SELL_GRAIN);
	assert_int_equal(s->side_down[RAFAEL][0], 1);
	assert_int_equal(s->side_card[DAVID][0], FA_GRAIN);
	assert_int_equal(s->side_down[DAVID][0], 0);
	assert_int_equal(s->step, FS_MILITARY);
	/* the face-down card cannot be used by Military Power */
	assert_false(has_move(s, RAFAEL, "military sell grain"));
	PLAY(s, RAFAEL, "military construction");
	assert_int_equal(r->cent, 0);
	PLAY(s, RAFAEL, "build market");
	assert_true(r->buildings & (1 << FB_MARKET));
	assert_int_equal(r->money, 5);		/* the Mercado costs 0 */
	assert_int_equal(s->bld_left[FB_MARKET], 2);
	/* Construir stays in its place, face up */
	assert_int_equal(s->side_card[RAFAEL][1], FA_BUILD);
	assert_int_equal(s->side_down[RAFAEL][1], 0);
	/* one die and no privilege card: the die is used at once, logged */
	assert_int_not_equal(s->step, FS_DIE);
	assert_int_equal(s->last_seat, RAFAEL);
	assert_int_equal(s->last_die, s->last_roll[0]);
	{
		char label[64];

		snprintf(label, sizeof(label), "Use the die showing %d", s->last_die);
		ASSERT_AUTO("Rafael", label);
	}
	free(s);
}

/* "Adam es el jugador inicial y lanza un 3 ... devolverla al campo de
 * grano ... mueve un paso adelante ... coloca boca abajo la carta". */
static void test_example_adam_food(void **state)
{
	static const int order[4] = { ADAM, RAFAEL, DAVID, PACO };
	struct fortuna_state *s = game(4);

	at_die(s, order, 0, "3");
	PLAY(s, ADAM, "die 3");
	assert_moves(s, ADAM, "deliver 1 water\ndeliver 1 wine\ndeliver 1 grain\npay tax\n");
	PLAY(s, ADAM, "deliver 1 grain");
	assert_int_equal(s->p[ADAM].steps, 1);
	assert_int_equal(s->p[ADAM].grain, 0);
	assert_int_equal(s->fav_up[FF_GRAIN], 0);
	assert_int_equal(s->fav_up[FF_WINE], 1);
	assert_int_equal(fortuna_decider(s), RAFAEL);	/* next in order */
	free(s);
}

/* "David lanza un 3 y las cartas Bacanal 2 y Reserva de agua 1 están boca
 * abajo ... deberá pagar impuestos. Si David hubiera lanzado un 4 podría
 * ofrecer un Centurión". */
static void test_example_david_tax(void **state)
{
	static const int order[4] = { RAFAEL, DAVID, PACO, ADAM };
	struct fortuna_state *s = game(4);

	at_die(s, order, 1, "3");
	s->fav_up[FF_WATER] = s->fav_up[FF_WINE] = 0;
	set_res(s, DAVID, 'g', 0);
	PLAY(s, DAVID, "die 3");
	/* "deberá pagar impuestos": no choice left, so it is paid at once */
	assert_non_null(strstr(buf_str(&cap.pub), "Automatic for David (the only possible move): "
				"Pay the tax: 1 coin."));
	assert_non_null(strstr(buf_str(&cap.pub), "David pays 1 coin of taxes."));
	assert_int_equal(fortuna_decider(s), PACO);
	assert_int_equal(s->p[DAVID].money, 4);
	assert_int_equal(s->p[DAVID].steps, 0);
	assert_int_equal(s->fav_up[FF_GRAIN], 1);	/* not used: stays up */
	free(s);

	s = game(4);
	at_die(s, order, 1, "4");
	s->fav_up[FF_WATER] = s->fav_up[FF_WINE] = 0;
	set_res(s, DAVID, 'g', 0);
	PLAY(s, DAVID, "die 4");
	assert_moves(s, DAVID, "deliver 1 centurion\npay tax\n");
	PLAY(s, DAVID, "deliver 1 centurion");
	assert_int_equal(s->p[DAVID].steps, 1);
	assert_int_equal(s->p[DAVID].cent, 0);
	assert_int_equal(s->p[DAVID].money, 5);
	assert_int_equal(s->fav_up[FF_BATTLE], 0);
	free(s);
}

/* The three "Voltear carta de favor" examples. */
static void test_example_flip_rules(void **state)
{
	static const int order[4] = { RAFAEL, DAVID, PACO, ADAM };
	struct fortuna_state *s = game(4);
	int c;

	/* David rolls 1, Reserva de agua is face down: no advance, no tax. */
	at_die(s, order, 1, "1");
	s->fav_up[FF_WATER] = 0;
	PLAY(s, DAVID, "die 1");
	assert_int_equal(s->p[DAVID].money, 5);
	assert_int_equal(s->p[DAVID].steps, 0);
	assert_int_equal(fortuna_decider(s), PACO);
	assert_non_null(strstr(buf_str(&cap.pub), "no advance, no taxes"));
	free(s);

	/* Rafael rolls 3, cards 1 and 3 down, no wine: 1 coin, no flip. */
	s = game(4);
	at_die(s, order, 0, "3");
	s->fav_up[FF_WATER] = s->fav_up[FF_GRAIN] = 0;
	set_res(s, RAFAEL, 'v', 0);
	PLAY(s, RAFAEL, "die 3");
	/* "tendrá que pagar 1 moneda": the only move, made at once */
	assert_non_null(strstr(buf_str(&cap.pub), "Automatic for Rafael (the only possible move): "
				"Pay the tax: 1 coin."));
	assert_int_equal(s->p[RAFAEL].money, 4);
	assert_int_equal(s->p[RAFAEL].steps, 0);
	assert_int_equal(s->fav_up[FF_WINE], 1);
	free(s);

	/* Adam rolls 2 and 3, cards 1 and 2 down, no grain: the 2 avoids the
	 * tax and flips nothing. */
	s = game(4);
	at_die(s, order, 3, "23");
	s->fav_up[FF_WATER] = s->fav_up[FF_WINE] = 0;
	set_res(s, ADAM, 'g', 0);
	assert_moves(s, ADAM, "die 2\ndie 3\n");
	PLAY(s, ADAM, "die 2");
	assert_int_equal(s->p[ADAM].money, 5);
	assert_int_equal(s->p[ADAM].steps, 0);
	for (c = FF_GRAIN; c < FF_COUNT; c++)
		assert_int_equal(s->fav_up[c], 1);
	free(s);
}

/* Phase 5: "La carta de favor Religión ... contiene 3 fichas ... David
 * lanza un 6, y como tiene 2 Sacerdotisas ... avanzar 2 pasos ... recibe
 * las tres fichas ... Roba las tres cartas superiores ... elige una y
 * descarta las otras dos". */
static void test_example_religion_privileges(void **state)
{
	static const int order[4] = { RAFAEL, DAVID, PACO, ADAM };
	static const int top[3] = { FP_VP_WINE, FP_VP_GRAIN, FP_STEP };
	struct fortuna_state *s = game(4);
	int reserve;

	at_die(s, order, 1, "6");
	set_res(s, DAVID, 'p', 2);
	s->fav_tokens[FF_RELIGION] = 3;
	s->token_reserve -= 3;
	reserve = s->token_reserve;
	deck_top(s, 3, top);
	check_ok(s);
	PLAY(s, DAVID, "die 6");
	/* Religion asks for nothing: refusing it for the tax is no option */
	assert_false(has_move(s, DAVID, "pay tax"));
	PLAY(s, DAVID, "favour religion");
	assert_int_equal(s->p[DAVID].steps, 2);
	assert_int_equal(s->p[DAVID].priest, 2);	/* kept */
	assert_int_equal(s->fav_up[FF_RELIGION], 0);
	assert_int_equal(s->fav_tokens[FF_RELIGION], 0);
	assert_int_equal(s->token_reserve, reserve + 3);	/* back to the reserve */
	assert_int_equal(s->step, FS_KEEP);
	assert_int_equal(s->ndrawn, 3);
	assert_moves(s, DAVID, "keep step\nkeep vp per grain\nkeep vp per wine\n");
	PLAY(s, DAVID, "keep vp per wine");
	assert_int_equal(s->p[DAVID].hand[FP_VP_WINE], 1);
	assert_int_equal(held(s, DAVID), 1);
	assert_int_equal(discards(s), 2);
	assert_int_equal(s->discard[FP_STEP], 1);
	assert_int_equal(s->discard[FP_VP_GRAIN], 1);
	assert_int_equal(fortuna_decider(s), PACO);
	/* the card kept is private */
	assert_non_null(strstr(buf_str(&cap.priv[DAVID]), "«2 VP per wine»"));
	assert_null(strstr(buf_str(&cap.pub), "«2 VP per wine»"));
	free(s);
}

/* Basílica: "Adam lanza un 4 y entrega un Centurión ... En la carta Batalla
 * hay 3 fichas ... puede quedarse con dos de las tres cartas". */
static void test_example_basilica(void **state)
{
	static const int order[4] = { RAFAEL, DAVID, PACO, ADAM };
	static const int top[3] = { FP_VP_WINE, FP_VP_GRAIN, FP_VP_WATER };
	struct fortuna_state *s = game(4);

	at_die(s, order, 3, "4");
	s->p[ADAM].buildings = 1 << FB_BASILICA;
	s->bld_left[FB_BASILICA]--;
	s->fav_tokens[FF_BATTLE] = 3;
	s->token_reserve -= 3;
	deck_top(s, 3, top);
	check_ok(s);
	PLAY(s, ADAM, "die 4");
	PLAY(s, ADAM, "deliver 1 centurion");
	assert_int_equal(s->p[ADAM].steps, 1);
	assert_int_equal(s->step, FS_KEEP);
	assert_int_equal(s->keep_left, 2);
	PLAY(s, ADAM, "keep vp per water");
	assert_int_equal(s->step, FS_KEEP);
	assert_false(has_move(s, ADAM, "keep vp per water"));
	PLAY(s, ADAM, "keep vp per grain");
	assert_int_equal(held(s, ADAM), 2);
	assert_int_equal(discards(s), 1);
	assert_int_equal(s->discard[FP_VP_WINE], 1);
	free(s);
}

/* End: "Rafael ha sido el primero en llegar al Palacio del César. Recibe
 * las tres fichas y roba las 3 cartas superiores ... Elige una ... Paco
 * termina en la posición 13 y Adam consigue entrar en el Palacio ... coge
 * las dos cartas ... y se queda con una". */
static void test_example_palace(void **state)
{
	static const int top[3] = { FP_VP_WINE, FP_VP_GRAIN, FP_VP_COINS };
	struct fortuna_state *s = game(4);
	struct game_result res;
	int reserve = s->token_reserve;

	at_die(s, order0123, 0, "2");
	s->p[RAFAEL].steps = 13;
	set_res(s, RAFAEL, 'v', 2);
	s->p[PACO].steps = 12;
	s->p[ADAM].steps = 14;
	s->p[DAVID].steps = 9;
	deck_top(s, 3, top);
	check_ok(s);
	PLAY(s, RAFAEL, "die 2");
	PLAY(s, RAFAEL, "deliver 2 wine");
	assert_int_equal(s->p[RAFAEL].steps, 15);
	assert_int_equal(s->p[RAFAEL].arrival, 1);
	assert_true(s->ending);
	/* the Palace draw: 3 cards, keep one, two left face down */
	assert_int_equal(s->step, FS_KEEP);
	assert_int_equal(s->token_palace, 0);
	assert_int_equal(s->token_reserve, reserve + 3);
	assert_int_equal(s->ndrawn, 3);
	PLAY(s, RAFAEL, "keep vp per 3 coins");
	assert_int_equal(s->p[RAFAEL].hand[FP_VP_COINS], 1);
	assert_int_equal(s->npalace, 2);
	assert_int_equal(discards(s), 0);
	assert_int_equal(fortuna_decider(s), DAVID);
	pass_turn(s);			/* David */
	s->p[PACO].steps = 13;
	set_res(s, PACO, 'p', 0);	/* so that he may always refuse */
	check_ok(s);
	pass_turn(s);			/* Paco ends on 13 */
	assert_int_equal(s->p[PACO].steps, 13);
	assert_int_equal(fortuna_decider(s), ADAM);
	PLAY(s, ADAM, "card fortuna");
	PLAY(s, ADAM, "advance");
	assert_int_equal(s->p[ADAM].arrival, 2);
	pass_until(s, FS_KEEP);		/* up to the Palace choice */
	assert_int_equal(s->step, FS_KEEP);
	assert_int_equal(s->keep_src, FK_PALACE_LATER);
	assert_moves(s, ADAM, "keep vp per grain\nkeep vp per wine\n");
	PLAY(s, ADAM, "keep vp per grain");
	/* the round is complete: the game is over */
	assert_int_equal(s->step, FS_OVER);
	assert_int_equal(fortuna_awaiting(s), 0);
	assert_int_equal(s->npalace, 1);
	assert_int_equal(s->palace_cards[0], FP_VP_WINE);
	assert_int_equal(fortuna_result(s, &res), 1);
	assert_true(res.eligible[PACO]);
	assert_false(res.eligible[DAVID]);
	assert_true((res.winners >> RAFAEL) & 1 || (res.winners >> ADAM) & 1);
	/* the end reveals what stayed face down at the Palace; nothing is
	 * secret any more */
	{
		struct game_view v = { LOC_EN, 4, names };
		struct rich r = RICH_INIT;
		struct buf pub = BUF_INIT, sec = BUF_INIT;

		fortuna_render_public(s, &v, &r);
		rich_to_plain(&r, &pub);
		assert_non_null(strstr(buf_str(&pub), "Left face down at the Palace: «2 VP per wine»."));
		fortuna_secrets(s, LOC_EN, &sec);
		assert_int_equal(sec.len, 0);
		rich_release(&r);
		buf_release(&pub);
		buf_release(&sec);
	}
	free(s);
}

/* ---- action cards ---- */

static void test_water_collection(void **state)
{
	struct fortuna_state *s = game(4);

	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO, ADAM }, 0);
	PLAY(s, DAVID, "card water collection");
	PLAY(s, DAVID, "collect water");
	assert_int_equal(s->p[DAVID].water, 3);
	free(s);

	/* an empty supply gives what remains */
	s = game(4);
	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO, ADAM }, 0);
	set_res(s, RAFAEL, 'w', 1 + s->sup_water - 1);	/* supply left: 1 */
	assert_int_equal(s->sup_water, 1);
	PLAY(s, DAVID, "card water collection");
	PLAY(s, DAVID, "collect water");
	assert_int_equal(s->p[DAVID].water, 2);
	assert_int_equal(s->sup_water, 0);
	free(s);
}

static void test_harvests(void **state)
{
	struct fortuna_state *s = game(4);
	struct fortuna_player *r = &s->p[RAFAEL];

	set_res(s, RAFAEL, 'w', 2);
	PLAY(s, RAFAEL, "card grain harvest");
	assert_moves(s, RAFAEL, "harvest using 0 water\nharvest using 1 water\n"
				"harvest using 2 water\nskip\n");
	PLAY(s, RAFAEL, "harvest using 2 water");
	assert_int_equal(r->grain, 1 + 4);
	assert_int_equal(r->water, 0);
	free(s);

	/* wine: 1 + 1 per water; Aqueduct water is spent first */
	s = game(4);
	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	s->p[ADAM].buildings = 1 << FB_AQUEDUCT;
	s->bld_left[FB_AQUEDUCT]--;
	s->p[ADAM].aq_round = 1;
	shift(&s->p[ADAM].aq_water, &s->sup_water, 1);
	check_ok(s);
	PLAY(s, ADAM, "card wine harvest");
	PLAY(s, ADAM, "harvest using 1 water");
	assert_int_equal(s->p[ADAM].wine, 1 + 2);
	assert_int_equal(s->p[ADAM].aq_water, 0);
	assert_int_equal(s->p[ADAM].water, 1);
	free(s);

	/* the supply limits the harvest and the water worth delivering */
	s = game(4);
	set_res(s, DAVID, 'g', 1 + s->sup_grain - 3);	/* supply left: 3 */
	set_res(s, RAFAEL, 'w', 3);
	PLAY(s, RAFAEL, "card grain harvest");
	assert_moves(s, RAFAEL, "harvest using 0 water\nharvest using 1 water\nskip\n");
	PLAY(s, RAFAEL, "harvest using 1 water");
	assert_int_equal(s->p[RAFAEL].grain, 4);
	assert_int_equal(s->sup_grain, 0);
	free(s);
}

static void test_sell(void **state)
{
	struct fortuna_state *s = game(4);

	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO, ADAM }, 0);
	set_res(s, DAVID, 'g', 3);
	PLAY(s, DAVID, "card sell grain");
	assert_moves(s, DAVID, "sell 1 grain\nsell 2 grain\nsell 3 grain\nskip\n");
	PLAY(s, DAVID, "sell 2 grain");
	assert_int_equal(s->p[DAVID].money, 9);
	assert_int_equal(s->p[DAVID].grain, 1);
	free(s);

	/* Mercado: +1 a unit; the money cap 20 loses the excess */
	s = game(4);
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	s->p[PACO].buildings = 1 << FB_MARKET;
	s->bld_left[FB_MARKET]--;
	set_res(s, PACO, 'v', 4);
	s->p[PACO].money = 10;
	PLAY(s, PACO, "card sell wine");
	PLAY(s, PACO, "sell 3 wine");
	assert_int_equal(s->p[PACO].money, 20);	/* 10 + 12, capped */
	assert_non_null(strstr(buf_str(&cap.pub), "for 12 coins"));
	free(s);

	s = game(4);
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	set_res(s, PACO, 'v', 2);
	PLAY(s, PACO, "card sell wine");
	PLAY(s, PACO, "sell 2 wine");
	assert_int_equal(s->p[PACO].money, 11);
	free(s);
}

static void test_recruit_and_priestesses(void **state)
{
	struct fortuna_state *s = game(4);

	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	set_res(s, PACO, 'c', 0);
	s->p[PACO].money = 6;
	PLAY(s, PACO, "card recruit centurions");
	assert_moves(s, PACO, "recruit 1 centurion\nrecruit 2 centurions\nrecruit 3 centurions\nskip\n");
	PLAY(s, PACO, "recruit 3 centurions");	/* 1 + 2 + 3 */
	assert_int_equal(s->p[PACO].money, 0);
	assert_int_equal(s->p[PACO].cent, 3);
	free(s);

	/* with one already the next costs 2, then 3; never more than 3 */
	s = game(4);
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	s->p[PACO].money = 4;
	PLAY(s, PACO, "card recruit centurions");
	assert_moves(s, PACO, "recruit 1 centurion\nskip\n");	/* 2+3 = 5 > 4 */
	PLAY(s, PACO, "recruit 1 centurion");
	assert_int_equal(s->p[PACO].money, 2);
	free(s);

	/* Sacerdotisas cost 1, 3, 5 */
	s = game(4);
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	set_res(s, PACO, 'p', 0);
	s->p[PACO].money = 8;
	PLAY(s, PACO, "card obtain priestesses");
	assert_moves(s, PACO, "obtain 1 priestess\nobtain 2 priestesses\nskip\n");
	PLAY(s, PACO, "obtain 2 priestesses");
	assert_int_equal(s->p[PACO].money, 4);
	assert_int_equal(s->p[PACO].priest, 2);
	free(s);

	s = game(4);
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	set_res(s, PACO, 'p', 3);
	PLAY(s, PACO, "card obtain priestesses");
	/* already 3: nothing to buy, so the action is skipped at once */
	ASSERT_AUTO("Paco", "Do not use Obtain Priestesses");
	assert_int_equal(s->step, FS_EXCHANGE);
	free(s);
}

static void test_clergy(void **state)
{
	struct fortuna_state *s = game(4);

	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	PLAY(s, ADAM, "card clergy");
	PLAY(s, ADAM, "priestess for die");
	assert_int_equal(s->p[ADAM].priest, 0);
	assert_int_equal(s->p[ADAM].dice, 2);
	free(s);

	/* no Sacerdotisa, or 3 dice, or no die left: only skip */
	s = game(4);
	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	set_res(s, ADAM, 'p', 0);
	PLAY(s, ADAM, "card clergy");
	ASSERT_AUTO("Adam", "Do not use Clergy representation");
	assert_int_equal(s->step, FS_EXCHANGE);
	free(s);

	s = game(4);
	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	set_res(s, RAFAEL, 'd', 3);
	set_res(s, DAVID, 'd', 3);
	set_res(s, PACO, 'd', 1 + s->sup_dice);
	assert_int_equal(s->sup_dice, 0);
	PLAY(s, ADAM, "card clergy");
	ASSERT_AUTO("Adam", "Do not use Clergy representation");
	free(s);

	/* a privilege card held: asked (one may be played first), and the
	 * number of cards is all the table learns */
	s = game(4);
	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	set_res(s, ADAM, 'p', 0);
	give(s, ADAM, FP_VP_WINE);
	PLAY(s, ADAM, "card clergy");
	assert_int_equal(s->step, FS_ACTION);
	assert_moves(s, ADAM, "skip\n");
	assert_null(strstr(buf_str(&cap.pub), "Automatic"));
	free(s);
}

static void test_family(void **state)
{
	struct fortuna_state *s = game(4);
	struct fortuna_player *r = &s->p[RAFAEL];
	int v;

	PLAY(s, RAFAEL, "card family");
	assert_moves(s, RAFAEL, "marry\nskip\n");
	PLAY(s, RAFAEL, "marry");
	assert_true(r->married);
	assert_int_equal(r->money, 2);
	free(s);

	/* too poor to marry */
	s = game(4);
	s->p[RAFAEL].money = 2;
	PLAY(s, RAFAEL, "card family");
	ASSERT_AUTO("Rafael", "Do not use Family");
	free(s);

	/* married: roll first, then choose; the roll is the phase-4 roll */
	s = game(4);
	r = &s->p[RAFAEL];
	r->married = 1;
	PLAY(s, RAFAEL, "card family");
	assert_moves(s, RAFAEL, "roll dice\ntake grain\ntake wine\ntake 3 coins\nskip\n");
	PLAY(s, RAFAEL, "roll dice");
	assert_true(s->rolled);
	assert_int_equal(s->nroll, 1);
	v = s->roll[0];
	assert_false(has_move(s, RAFAEL, "roll dice"));
	PLAY(s, RAFAEL, "take 3 coins");
	assert_int_equal(r->money, 8);
	PLAY(s, RAFAEL, "exchange sell grain");
	PLAY(s, RAFAEL, "skip");		/* no Military Power */
	/* one die: used at once; it is the Familia roll, not rolled again */
	assert_int_equal(s->last_nroll, 1);
	assert_int_equal(s->last_roll[0], v);
	assert_int_equal(s->last_die, v);
	{
		char label[64];

		snprintf(label, sizeof(label), "Use the die showing %d", v);
		ASSERT_AUTO("Rafael", label);
	}
	free(s);
}

/* The Familia roll is the phase-4 roll; a die won later in the turn (Clergy
 * by Military Power) is rolled in phase 4, the first value kept. */
static void test_family_roll_kept(void **state)
{
	static const uint8_t cards[4][3] = {
		{ FA_FAMILY, FA_CLERGY, FA_GRAIN },
		{ FA_SELL_GRAIN, FA_WATER, FA_CORRUPTION },
		{ FA_SELL_WINE, FA_CENTURIONS, FA_PRIESTESSES },
		{ FA_BUILD, FA_FORTUNA, FA_WINE },
	};
	struct fortuna_state *s = game(4);
	int v;

	memcpy(s->side_card, cards, sizeof(cards));
	s->p[RAFAEL].married = 1;
	check_ok(s);
	PLAY(s, RAFAEL, "card family");
	PLAY(s, RAFAEL, "roll dice");
	v = s->roll[0];
	PLAY(s, RAFAEL, "take grain");
	assert_int_equal(s->p[RAFAEL].grain, 2);
	PLAY(s, RAFAEL, "exchange sell grain");
	PLAY(s, RAFAEL, "military clergy");
	PLAY(s, RAFAEL, "priestess for die");
	assert_int_equal(s->p[RAFAEL].dice, 2);
	assert_int_equal(s->last_nroll, 2);
	assert_int_equal(s->last_roll[0], v);
	assert_true(s->last_roll[1] >= 1 && s->last_roll[1] <= 6);
	/* two values to choose from, unless both dice show the same */
	assert_true(s->step == FS_DIE || s->last_roll[0] == s->last_roll[1]);
	free(s);
}

/* What game_parse answers to text by seat: a refusal holding want. */
static void refused_with(const struct fortuna_state *s, int seat, const char *text, const char *want)
{
	struct buf err = BUF_INIT;
	struct move m;

	assert_int_equal(game_parse(&fortuna_ops, s, seat, text, LOC_EN, &m, &err), -1);
	if (!strstr(buf_str(&err), want))
		fail_msg("'%s' refused with '%s', not '%s'", text, buf_str(&err), want);
	buf_release(&err);
}

static void test_build(void **state)
{
	struct fortuna_state *s = game(4);
	struct fortuna_player *r = &s->p[RAFAEL];

	/* Palacio only when married */
	PLAY(s, RAFAEL, "card construction");
	assert_moves(s, RAFAEL, "build market\nbuild aqueduct\nbuild basilica\nskip\n");
	/* a refusal says why (issue 25) */
	refused_with(s, RAFAEL, "build palace", "The Palace needs you married first.");
	PLAY(s, RAFAEL, "build basilica");
	assert_int_equal(r->money, 2);
	free(s);

	s = game(4);
	r = &s->p[RAFAEL];
	r->married = 1;
	r->money = 1;
	PLAY(s, RAFAEL, "card construction");
	assert_moves(s, RAFAEL, "build market\nbuild aqueduct\nskip\n");	/* money */
	refused_with(s, RAFAEL, "build basilica", "The Basilica costs 3 coins; you have 1.");
	free(s);

	/* one of each kind; at most 3 buildings */
	s = game(4);
	r = &s->p[RAFAEL];
	r->married = 1;
	r->money = 20;
	r->buildings = 1 << FB_MARKET | 1 << FB_PALACE;
	s->bld_left[FB_MARKET]--;
	s->bld_left[FB_PALACE]--;
	check_ok(s);
	PLAY(s, RAFAEL, "card construction");
	assert_moves(s, RAFAEL, "build aqueduct\nbuild basilica\nskip\n");
	refused_with(s, RAFAEL, "build market", "You have a Market already: one of each.");
	refused_with(s, RAFAEL, "build nothing", "No move matches");
	PLAY(s, RAFAEL, "build aqueduct");
	assert_int_equal(r->aq_round, s->round);
	free(s);

	s = game(4);
	r = &s->p[RAFAEL];
	r->married = 1;
	r->money = 20;
	r->buildings = 1 << FB_MARKET | 1 << FB_PALACE | 1 << FB_BASILICA;
	s->bld_left[FB_MARKET]--;
	s->bld_left[FB_PALACE]--;
	s->bld_left[FB_BASILICA]--;
	check_ok(s);
	PLAY(s, RAFAEL, "card construction");
	ASSERT_AUTO("Rafael", "Do not use Construction");
	free(s);

	/* the copies run out: 3 with 4 players, 2 with 2-3 */
	s = game(3);
	assert_int_equal(s->bld_left[FB_MARKET], 2);
	s->p[1].buildings = 1 << FB_MARKET;
	s->p[2].buildings = 1 << FB_MARKET;
	s->bld_left[FB_MARKET] = 0;
	check_ok(s);
	PLAY(s, RAFAEL, "card construction");
	assert_false(has_move(s, RAFAEL, "build market"));
	free(s);
}

static void test_aqueduct(void **state)
{
	struct fortuna_state *s = game(4);
	struct fortuna_player *r = &s->p[RAFAEL];
	int i;

	/* built this round: no water until the next round */
	PLAY(s, RAFAEL, "card construction");
	PLAY(s, RAFAEL, "build aqueduct");
	assert_int_equal(r->aq_water, 0);
	pass_turn(s);			/* the rest of Rafael's turn */
	assert_int_equal(r->aq_water, 0);
	for (i = 0; i < 8 && fortuna_decider(s) != RAFAEL; i++)
		pass_turn(s);
	assert_int_equal(s->round, 3);
	assert_int_equal(r->aq_water, 1);		/* phase 1 of the next round */
	assert_int_equal(fortuna_water(s, RAFAEL), r->water + 1);
	free(s);
}

static void test_corruption(void **state)
{
	struct fortuna_state *s = game(4);

	/* David's Corrupción is his face-down card: turn it up on his turn */
	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO, ADAM }, 0);
	PLAY(s, DAVID, "card corruption");
	/* any other side's card, face up or down, except the Fortuna card */
	assert_true(has_move(s, DAVID, "corrupt grain harvest"));
	assert_true(has_move(s, DAVID, "corrupt obtain priestesses"));	/* face down */
	assert_false(has_move(s, DAVID, "corrupt fortuna"));
	assert_false(has_move(s, DAVID, "corrupt sell grain"));		/* his own */
	PLAY(s, DAVID, "corrupt sell wine");
	assert_int_equal(s->p[DAVID].money, 4);
	assert_int_equal(s->p[PACO].money, 6);	/* the owner is paid */
	set_res(s, DAVID, 'v', 1);
	PLAY(s, DAVID, "sell 1 wine");
	assert_int_equal(s->p[DAVID].money, 7);
	assert_int_equal(s->side_card[PACO][0], FA_SELL_WINE);	/* stays */
	assert_int_equal(s->step, FS_EXCHANGE);	/* Corrupción is exchanged */
	PLAY(s, DAVID, "exchange grain harvest");
	assert_int_equal(s->side_card[RAFAEL][0], FA_CORRUPTION);
	free(s);

	/* an empty side's card: the coin goes to the bank */
	s = game(3);
	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO }, 0);
	PLAY(s, DAVID, "card corruption");
	PLAY(s, DAVID, "corrupt clergy");	/* side 4 is empty with 3 players */
	assert_int_equal(s->p[DAVID].money, 4);
	assert_int_equal(s->p[RAFAEL].money + s->p[PACO].money, 10);
	assert_non_null(strstr(buf_str(&cap.pub), "to the bank"));
	free(s);

	/* no card used: 2 coins; penniless: no target */
	s = game(4);
	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO, ADAM }, 0);
	s->p[DAVID].money = 0;
	PLAY(s, DAVID, "card corruption");
	assert_moves(s, DAVID, "take 2 coins\nskip\n");
	PLAY(s, DAVID, "take 2 coins");
	assert_int_equal(s->p[DAVID].money, 2);
	free(s);
}

static void test_fortuna_card(void **state)
{
	struct fortuna_state *s = game(4);

	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	PLAY(s, ADAM, "card fortuna");
	PLAY(s, ADAM, "advance");
	assert_int_equal(s->p[ADAM].steps, 1);
	PLAY(s, ADAM, "exchange sell grain");	/* the Fortuna card must go */
	assert_int_equal(s->side_card[DAVID][0], FA_FORTUNA);
	free(s);

	/* Military Power may use it too; it stays */
	s = game(4);
	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	PLAY(s, ADAM, "card clergy");
	PLAY(s, ADAM, "skip");
	PLAY(s, ADAM, "exchange sell grain");
	PLAY(s, ADAM, "military fortuna");
	PLAY(s, ADAM, "advance");
	assert_int_equal(s->p[ADAM].steps, 1);
	assert_int_equal(s->p[ADAM].cent, 0);
	assert_int_equal(s->side_card[ADAM][1], FA_FORTUNA);
	free(s);
}

/* ---- taxes, favours, tokens ---- */

static void test_tax_penniless(void **state)
{
	struct fortuna_state *s = game(4);

	at_die(s, order0123, 0, "1");
	set_res(s, RAFAEL, 'w', 0);
	s->p[RAFAEL].money = 0;
	s->p[RAFAEL].steps = 4;
	PLAY(s, RAFAEL, "die 1");
	ASSERT_AUTO("Rafael", "Pay the tax: 1 step back");
	assert_int_equal(s->p[RAFAEL].steps, 3);
	assert_int_equal(s->p[RAFAEL].money, 0);
	free(s);

	/* nothing to lose: the label and the log say so */
	s = game(4);
	at_die(s, order0123, 0, "1");
	set_res(s, RAFAEL, 'w', 0);
	s->p[RAFAEL].money = 0;
	give(s, RAFAEL, FP_VP_WINE);		/* so that it is asked */
	PLAY(s, RAFAEL, "die 1");
	assert_moves(s, RAFAEL, "pay tax\n");
	assert_label(s, RAFAEL, "pay tax", LOC_EN, "Pay the tax: nothing to lose (no coins, no steps)");
	PLAY(s, RAFAEL, "pay tax");
	assert_int_equal(s->p[RAFAEL].steps, 0);
	assert_non_null(strstr(buf_str(&cap.pub), "Rafael owes the taxes but has no coin and no step to lose."));
	free(s);
}

static void test_fortuna_favour(void **state)
{
	struct fortuna_state *s = game(4);

	/* married: +1; with a Palacio +2; delivers nothing */
	at_die(s, order0123, 0, "5");
	s->p[RAFAEL].married = 1;
	s->p[RAFAEL].buildings = 1 << FB_PALACE;
	s->bld_left[FB_PALACE]--;
	check_ok(s);
	PLAY(s, RAFAEL, "die 5");
	assert_false(has_move(s, RAFAEL, "pay tax"));
	PLAY(s, RAFAEL, "favour fortuna");
	assert_int_equal(s->p[RAFAEL].steps, 2);
	free(s);

	/* not married: Fortuna is available but gives nothing: tax */
	s = game(4);
	at_die(s, order0123, 0, "5");
	for (int c = 0; c < 4; c++)
		s->fav_up[c] = 0;
	PLAY(s, RAFAEL, "die 5");
	ASSERT_AUTO("Rafael", "Pay the tax: 1 coin");
	assert_int_equal(s->p[RAFAEL].money, 4);
	free(s);
}

static void test_deliver_limits(void **state)
{
	struct fortuna_state *s = game(4);

	at_die(s, order0123, 0, "4");
	set_res(s, RAFAEL, 'v', 3);
	set_res(s, RAFAEL, 'c', 3);
	set_res(s, RAFAEL, 'w', 2);
	PLAY(s, RAFAEL, "die 4");
	assert_moves(s, RAFAEL, "deliver 1 water\ndeliver 1 wine\ndeliver 2 wine\ndeliver 1 grain\n"
				"deliver 1 centurion\ndeliver 2 centurions\ndeliver 3 centurions\npay tax\n");
	PLAY(s, RAFAEL, "deliver 3 centurions");
	assert_int_equal(s->p[RAFAEL].steps, 3);
	free(s);

	/* steps stop at 15: no delivery beyond */
	s = game(4);
	at_die(s, order0123, 0, "3");
	set_res(s, RAFAEL, 'v', 2);
	s->p[RAFAEL].steps = 14;
	PLAY(s, RAFAEL, "die 3");
	assert_false(has_move(s, RAFAEL, "deliver 2 wine"));
	PLAY(s, RAFAEL, "deliver 1 wine");
	assert_int_equal(s->p[RAFAEL].steps, 15);
	free(s);
}

static void test_tokens_on_advance_only(void **state)
{
	struct fortuna_state *s = game(4);

	at_die(s, order0123, 0, "2");
	s->fav_tokens[FF_WINE] = 2;
	s->token_reserve -= 2;
	set_res(s, RAFAEL, 'v', 0);
	PLAY(s, RAFAEL, "die 2");
	PLAY(s, RAFAEL, "pay tax");
	assert_int_equal(s->fav_tokens[FF_WINE], 2);	/* no advance: stay */
	assert_int_equal(held(s, RAFAEL), 0);
	free(s);
}

/* "Sólo si un jugador ha avanzado hacia Roma debe voltear la carta de
 * favor usada" and the tokens go to who "con ella avanza hacia Roma": a
 * seat already on the Palace that delivers (to avoid the tax) moves no
 * step, so the card stays face up with its tokens. */
static void test_no_flip_without_advance_at_palace(void **state)
{
	struct fortuna_state *s = game(4);
	int money;

	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	s->p[ADAM].steps = 14;
	s->fav_tokens[FF_WINE] = 2;
	s->token_reserve -= 2;
	give(s, ADAM, FP_VP_GRAIN);	/* asked for the die: it is set below */
	PLAY(s, ADAM, "card fortuna");
	PLAY(s, ADAM, "advance");
	assert_int_equal(s->p[ADAM].steps, 15);
	PLAY(s, ADAM, "exchange sell wine");
	PLAY(s, ADAM, "skip");		/* no Military Power */
	assert_int_equal(s->step, FS_DIE);
	s->roll[0] = 2;
	money = s->p[ADAM].money;
	PLAY(s, ADAM, "die 2");
	PLAY(s, ADAM, "deliver 1 wine");
	assert_int_equal(s->p[ADAM].steps, 15);
	assert_int_equal(s->p[ADAM].wine, 0);
	assert_int_equal(s->p[ADAM].money, money);	/* satisfied: no tax */
	assert_int_equal(s->fav_up[FF_WINE], 1);	/* no advance: not turned */
	assert_int_equal(s->fav_tokens[FF_WINE], 2);	/* and its tokens stay */
	free(s);
}

static void test_two_player_flip(void **state)
{
	struct fortuna_state *s = game(2);

	at_die(s, (const int[]){ 0, 1 }, 0, "1");
	s->fav_tokens[FF_RELIGION] = 1;
	s->token_reserve--;
	PLAY(s, 0, "die 1");
	PLAY(s, 0, "deliver 1 water");
	assert_int_equal(s->step, FS_FLIP);
	/* cards with tokens cannot be flipped; the used one is already down */
	assert_moves(s, 0, "flip bacchanal\nflip food\nflip battle\nflip fortuna\nskip\n");
	PLAY(s, 0, "flip battle");
	assert_int_equal(s->fav_up[FF_BATTLE], 0);
	assert_int_equal(fortuna_decider(s), 1);
	/* the second player gets no flip */
	pass_turn(s);
	assert_int_equal(s->round, 3);
	/* the flipped card gets no token at the round's end */
	assert_int_equal(s->fav_tokens[FF_BATTLE], 0);
	assert_int_equal(s->fav_up[FF_BATTLE], 1);
	free(s);

	/* all face-up cards hold tokens: no flip is asked */
	s = game(2);
	at_die(s, (const int[]){ 0, 1 }, 0, "1");
	for (int c = 1; c < FF_COUNT; c++) {
		s->fav_tokens[c] = 1;
		s->token_reserve--;
	}
	PLAY(s, 0, "die 1");
	PLAY(s, 0, "deliver 1 water");
	assert_int_equal(fortuna_decider(s), 1);
	free(s);
}

/* The same with every card face up for sure: tokens added in card order. */
static void test_round_end_tokens_exact(void **state)
{
	struct fortuna_state *s = game(4);
	struct fortuna_state t;
	int i;

	s->fav_tokens[FF_WINE] = 3;
	s->fav_tokens[FF_GRAIN] = 2;
	s->fav_tokens[FF_BATTLE] = 3;
	s->fav_tokens[FF_RELIGION] = 2;
	s->token_reserve = 2;
	check_ok(s);
	/* the last seat of the round uses no favour: take its last decision
	 * from an explicit position so that no card was used this round */
	at_die(s, order0123, 3, "1");
	s->fav_up[FF_WATER] = 1;
	set_res(s, ADAM, 'w', 0);
	memcpy(&t, s, sizeof(t));
	PLAY(s, ADAM, "die 1");		/* the tax, the only move, is paid at once */
	assert_int_equal(s->round, 3);
	assert_int_equal(s->fav_tokens[FF_WATER], 1);
	assert_int_equal(s->fav_tokens[FF_WINE], 3);		/* capped */
	assert_int_equal(s->fav_tokens[FF_GRAIN], 3);
	assert_int_equal(s->fav_tokens[FF_BATTLE], 3);
	assert_int_equal(s->fav_tokens[FF_FORTUNA], 0);	/* reserve empty */
	assert_int_equal(s->fav_tokens[FF_RELIGION], 2);
	assert_int_equal(s->token_reserve, 0);
	for (i = 0; i < FF_COUNT; i++)
		assert_int_equal(s->fav_up[i], 1);
	/* a used card gets no token */
	memcpy(s, &t, sizeof(t));
	s->token_reserve = 2;
	s->fav_up[FF_WATER] = 0;
	PLAY(s, ADAM, "die 1");
	assert_int_equal(s->fav_tokens[FF_WATER], 0);
	assert_int_equal(s->fav_tokens[FF_GRAIN], 3);
	assert_int_equal(s->fav_tokens[FF_FORTUNA], 1);
	free(s);
}

static void test_turn_order(void **state)
{
	struct fortuna_state *s = game(4);

	/* Fortuna card with Adam; money: Rafael 7, David 9, Paco 7 */
	at_die(s, order0123, 3, "1");
	set_res(s, ADAM, 'w', 0);
	s->p[RAFAEL].money = 7;
	s->p[DAVID].money = 9;
	s->p[PACO].money = 7;
	PLAY(s, ADAM, "die 1");		/* and the tax at once */
	/* Adam first; David richest; Rafael and Paco tie: Rafael is closer
	 * clockwise to Adam (seat 3 -> 0 -> 1 -> 2) */
	assert_int_equal(s->order[0], ADAM);
	assert_int_equal(s->order[1], DAVID);
	assert_int_equal(s->order[2], RAFAEL);
	assert_int_equal(s->order[3], PACO);
	assert_int_equal(fortuna_decider(s), ADAM);
	free(s);

	/* Fortuna on an empty side: the richest leads, ties clockwise from
	 * the last first player */
	s = game(3);
	memcpy(s->side_card, base_cards, sizeof(base_cards));
	at_die(s, (const int[]){ 1, 2, 0 }, 2, "1");
	assert_int_equal(fortuna_find_card(s, FA_FORTUNA, NULL), 3);
	set_res(s, RAFAEL, 'w', 0);
	s->p[RAFAEL].money = 9;
	s->p[DAVID].money = 3;
	s->p[PACO].money = 8;
	PLAY(s, RAFAEL, "die 1");	/* the tax at once: Rafael 8 now, as
					 * Paco: David led, and Paco (seat 2)
					 * is closer to him */
	assert_int_equal(s->order[0], PACO);
	assert_int_equal(s->order[1], RAFAEL);
	assert_int_equal(s->order[2], DAVID);
	free(s);
}

/* ---- privilege cards ---- */

static void test_privilege_play(void **state)
{
	struct fortuna_state *s = game(4);

	/* three cards move from the deck to Rafael's hand */
	{
		int k, i, j;
		static const int kinds[3] = { FP_STEP, FP_GRAIN_ANY, FP_CENTURION };

		for (k = 0; k < 3; k++) {
			for (i = 0; i < s->ndeck && s->deck[i] != kinds[k]; i++)
				;
			assert_true(i < s->ndeck);
			for (j = i; j + 1 < s->ndeck; j++)
				s->deck[j] = s->deck[j + 1];
			s->deck[--s->ndeck] = 0;
			s->p[RAFAEL].hand[kinds[k]]++;
		}
	}
	check_ok(s);
	/* offered in every decision of the owner's turn */
	assert_true(has_move(s, RAFAEL, "privilege step"));
	PLAY(s, RAFAEL, "card grain harvest");
	assert_true(has_move(s, RAFAEL, "privilege grain plus any"));
	PLAY(s, RAFAEL, "privilege grain plus any");
	assert_int_equal(s->step, FS_RESOURCE);
	assert_moves(s, RAFAEL, "choose water\nchoose grain\nchoose wine\n");
	PLAY(s, RAFAEL, "choose wine");
	assert_int_equal(s->step, FS_ACTION);	/* back where it was */
	assert_int_equal(s->p[RAFAEL].grain, 2);
	assert_int_equal(s->p[RAFAEL].wine, 2);
	PLAY(s, RAFAEL, "privilege step");
	assert_int_equal(s->p[RAFAEL].steps, 1);
	assert_int_equal(s->discard[FP_STEP], 1);
	/* type B: one a turn */
	s->p[RAFAEL].hand[FP_STEP] = 1;
	s->discard[FP_STEP] = 0;
	check_ok(s);
	assert_false(has_move(s, RAFAEL, "privilege step"));
	PLAY(s, RAFAEL, "privilege centurion");
	assert_int_equal(s->p[RAFAEL].cent, 2);
	/* not in another seat's turn */
	assert_int_equal(fortuna_moves(s, DAVID, &(struct move_list){ 0 }), 0);
	free(s);
}

/* "Un jugador puede usar las cartas de privilegio de los tipos A y B en
 * cualquier momento de su turno": a card won in phase 5 (or at the
 * Palace) may still be played before the turn ends -- it matters most in
 * the last round, where an unplayed card scores nothing. */
static void test_privilege_after_phase5(void **state)
{
	static const int top[1] = { FP_STEP };
	struct fortuna_state *s = game(4);

	at_die(s, order0123, 0, "2");
	set_res(s, RAFAEL, 'v', 1);
	s->fav_tokens[FF_WINE] = 1;
	s->token_reserve--;
	deck_top(s, 1, top);
	check_ok(s);
	PLAY(s, RAFAEL, "die 2");
	PLAY(s, RAFAEL, "deliver 1 wine");
	assert_int_equal(s->p[RAFAEL].hand[FP_STEP], 1);
	/* the turn is not over yet: the card may be played now */
	assert_int_equal(fortuna_decider(s), RAFAEL);
	assert_int_equal(s->step, FS_END);
	assert_moves(s, RAFAEL, "end turn\nprivilege step\n");
	PLAY(s, RAFAEL, "privilege step");
	assert_int_equal(s->p[RAFAEL].steps, 2);
	/* nothing left to play: the turn ends by itself */
	ASSERT_AUTO("Rafael", "End your turn");
	assert_int_equal(fortuna_decider(s), DAVID);
	free(s);

	/* a type C card kept gives no such stop */
	s = game(4);
	at_die(s, order0123, 0, "2");
	set_res(s, RAFAEL, 'v', 1);
	s->fav_tokens[FF_WINE] = 1;
	s->token_reserve--;
	deck_top(s, 1, (const int[]){ FP_VP_WINE });
	check_ok(s);
	PLAY(s, RAFAEL, "die 2");
	PLAY(s, RAFAEL, "deliver 1 wine");
	assert_int_equal(fortuna_decider(s), DAVID);
	free(s);

	/* a step played at the end of the turn that reaches the Palace gives
	 * the Palace draw, still in that turn */
	s = game(4);
	at_die(s, order0123, 0, "2");
	s->p[RAFAEL].steps = 13;
	set_res(s, RAFAEL, 'v', 1);
	s->fav_tokens[FF_WINE] = 1;
	s->token_reserve--;
	deck_top(s, 4, (const int[]){ FP_STEP, FP_VP_WINE, FP_VP_GRAIN, FP_VP_COINS });
	check_ok(s);
	PLAY(s, RAFAEL, "die 2");
	PLAY(s, RAFAEL, "deliver 1 wine");
	PLAY(s, RAFAEL, "privilege step");
	assert_int_equal(s->p[RAFAEL].arrival, 1);
	ASSERT_AUTO("Rafael", "End your turn");
	assert_int_equal(s->token_palace, 0);
	assert_int_equal(fortuna_decider(s), RAFAEL);
	assert_int_equal(s->step, FS_KEEP);
	assert_int_equal(s->keep_src, FK_PALACE_FIRST);
	assert_int_equal(s->ndrawn, 3);
	free(s);
}

static void test_privilege_scoring(void **state)
{
	struct fortuna_state *s = game(4);

	/* two «1 VP per grain» cards and 3 grain: each unit counts once */
	s->p[RAFAEL].hand[FP_VP_GRAIN] = 2;
	set_res(s, RAFAEL, 'g', 3);
	assert_int_equal(fortuna_priv_points(s, RAFAEL), 3);
	/* «1 VP per 3 coins» with 7 coins: 2 */
	s->p[RAFAEL].hand[FP_VP_COINS] = 1;
	s->p[RAFAEL].money = 7;
	assert_int_equal(fortuna_priv_points(s, RAFAEL), 5);
	/* water counts the Aqueduct's too */
	s->p[RAFAEL].hand[FP_VP_WATER] = 1;
	set_res(s, RAFAEL, 'w', 2);
	assert_int_equal(fortuna_priv_points(s, RAFAEL), 7);
	/* buildings are not delivered: each card counts them, max 3 */
	s->p[RAFAEL].hand[FP_VP_BUILDING] = 2;
	s->p[RAFAEL].buildings = 0xf;
	assert_int_equal(fortuna_priv_points(s, RAFAEL), 7 + 2 * 6);
	/* 2 VP units */
	s->p[DAVID].hand[FP_VP_WINE] = 1;
	s->p[DAVID].hand[FP_VP_CENTURION] = 1;
	s->p[DAVID].hand[FP_VP_PRIESTESS] = 1;
	set_res(s, DAVID, 'v', 2);
	assert_int_equal(fortuna_priv_points(s, DAVID), 4 + 2 + 2);
	/* a type A or B card scores nothing */
	s->p[PACO].hand[FP_STEP] = 1;
	assert_int_equal(fortuna_priv_points(s, PACO), 0);
	/* the knapsack: single values */
	assert_int_equal(fortuna_priv_value(FP_VP_COINS, 20), 6);
	assert_int_equal(fortuna_priv_value(FP_VP_BUILDING, 4), 6);
	assert_int_equal(fortuna_priv_value(FP_STEP, 4), 0);
	free(s);
}

static void test_result_ties(void **state)
{
	struct fortuna_state *s = game(4);
	struct game_result res;

	s->step = FS_OVER;
	s->ending = 1;
	s->p[RAFAEL].steps = 15;
	s->p[RAFAEL].arrival = 1;
	s->narrived = 1;
	s->p[DAVID].steps = 15;
	s->p[DAVID].arrival = 2;
	s->narrived = 2;
	s->p[PACO].steps = 9;
	s->p[ADAM].steps = 12;
	/* Paco has 9 steps and many points: not in Rome, cannot win */
	s->p[PACO].hand[FP_VP_COINS] = 1;
	s->p[PACO].money = 20;
	{
		int i, j, k = FP_VP_COINS;

		for (i = 0; i < s->ndeck && s->deck[i] != k; i++)
			;
		for (j = i; j + 1 < s->ndeck; j++)
			s->deck[j] = s->deck[j + 1];
		s->deck[--s->ndeck] = 0;
	}
	/* Rafael and David tie on score and steps: more money wins */
	s->p[RAFAEL].money = 4;
	s->p[DAVID].money = 6;
	s->turn = 0;
	check_ok(s);
	assert_int_equal(fortuna_result(s, &res), 1);
	assert_int_equal(res.score[PACO], 9);	/* outside Rome: no privileges */
	assert_false(res.eligible[PACO]);
	assert_int_equal(res.winners, 1u << DAVID);
	assert_int_equal(res.rank[DAVID], 1);
	assert_int_equal(res.rank[RAFAEL], 2);
	assert_int_equal(res.rank[ADAM], 3);
	assert_int_equal(res.rank[PACO], 4);
	/* then Centuriones, then Sacerdotisas, then shared */
	s->p[RAFAEL].money = 6;
	set_res(s, RAFAEL, 'c', 2);
	fortuna_result(s, &res);
	assert_int_equal(res.winners, 1u << RAFAEL);
	set_res(s, DAVID, 'c', 2);
	set_res(s, DAVID, 'p', 2);
	fortuna_result(s, &res);
	assert_int_equal(res.winners, 1u << DAVID);
	set_res(s, RAFAEL, 'p', 2);
	fortuna_result(s, &res);
	assert_int_equal(res.winners, 1u << DAVID | 1u << RAFAEL);
	assert_int_equal(res.rank[DAVID], 1);
	assert_int_equal(res.rank[RAFAEL], 1);
	free(s);
}

/* ---- setup ---- */

static void test_setup(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int n, t, u, k, total;

	for (n = 2; n <= 4; n++) {
		memset(s, 0, sizeof(*s));
		assert_int_equal(fortuna_setup(s, n, 7, "", &err), 0);
		check_ok(s);
		assert_int_equal(s->step, FS_HIDE);
		assert_int_equal(s->p[0].money, 5);
		assert_int_equal(s->sup_water, 15 - n);
		assert_int_equal(s->sup_dice, 9 - n);
		assert_int_equal(s->sup_priest, 12 - n);
		assert_int_equal(s->bld_left[FB_PALACE], n == 4 ? 3 : 2);
		assert_int_equal(s->token_palace, 3);
		assert_int_equal(s->token_reserve, 12);
		assert_int_equal(s->ndeck, n == 4 ? 26 : 22);
		/* the first player holds the Fortuna card; 3 cards on each side */
		assert_int_equal(fortuna_find_card(s, FA_FORTUNA, NULL), s->order[0]);
		for (t = 0; t < 4; t++)
			for (u = 0; u < 3; u++)
				assert_true(s->side_card[t][u] < FA_COUNT);
		/* each player reserves a card, in turn order */
		for (k = 0; k < n; k++) {
			assert_int_equal(fortuna_decider(s), s->order[k]);
			PLAY(s, s->order[k], "1");
		}
		assert_int_equal(s->step, FS_CHOOSE);
		assert_int_equal(fortuna_decider(s), s->order[0]);
	}
	/* privilege deck: 26 (4 four-player-only copies) */
	for (k = 0, total = 0; k < FP_COUNT; k++)
		total += fortuna_priv_copies(k, 4) - fortuna_priv_copies(k, 3);
	assert_int_equal(total, 4);

	memset(s, 0, sizeof(*s));
	assert_int_equal(fortuna_setup(s, 5, 1, "", &err), -1);
	assert_int_equal(fortuna_setup(s, 1, 1, "", &err), -1);
	assert_int_equal(fortuna_setup(s, 3, 1, "draft fast", &err), -1);
	assert_non_null(strstr(buf_str(&err), "fast"));
	assert_int_equal(fortuna_setup(s, 3, 1, "  Draft ", &err), 0);
	assert_int_equal(s->step, FS_DRAFT);
	buf_release(&err);
	free(s);
}

static void test_draft(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int picks[12], i, n = 3;

	assert_int_equal(fortuna_setup(s, n, 99, "draft", &err), 0);
	cap_reset();
	/* last, penultimate, ..., first; twice; then all but the first */
	for (i = 0; i < 3 * n - 1; i++) {
		picks[i] = fortuna_decider(s);
		assert_false(has_move(s, picks[i], "draft fortuna"));
		PLAY(s, picks[i], "1");
	}
	assert_int_equal(picks[0], s->order[2]);
	assert_int_equal(picks[1], s->order[1]);
	assert_int_equal(picks[2], s->order[0]);
	assert_int_equal(picks[3], s->order[2]);
	assert_int_equal(picks[5], s->order[0]);
	assert_int_equal(picks[6], s->order[2]);
	assert_int_equal(picks[7], s->order[1]);
	assert_int_equal(s->step, FS_HIDE);
	for (i = 0; i < 3; i++)
		assert_true(s->side_card[3][i] < FA_COUNT);	/* the empty side */
	buf_release(&err);
	free(s);
}

/* ---- interface ---- */

static void test_apply_rejects(void **state)
{
	struct fortuna_state *s = game(4), before;
	struct buf err = BUF_INIT;
	struct move bad = { FM_DIE, 7, 0, 0 };

	memcpy(&before, s, sizeof(before));
	assert_int_equal(fortuna_apply(s, RAFAEL, bad, NULL, &err), -1);
	assert_true(err.len > 0);
	assert_memory_equal(&before, s, sizeof(before));
	/* the wrong seat */
	assert_int_equal(fortuna_apply(s, DAVID, (struct move){ FM_CARD, FA_SELL_GRAIN, 0, 0 },
				       NULL, &err), -1);
	assert_memory_equal(&before, s, sizeof(before));
	/* a card that is not the seat's; a building not allowed */
	assert_int_equal(fortuna_apply(s, RAFAEL, (struct move){ FM_CARD, FA_SELL_GRAIN, 0, 0 },
				       NULL, &err), -1);
	assert_true(refused(s, RAFAEL, "build palace"));
	assert_memory_equal(&before, s, sizeof(before));
	PLAY(s, RAFAEL, "card construction");
	memcpy(&before, s, sizeof(before));
	assert_true(refused(s, RAFAEL, "build palace"));	/* not married */
	assert_int_equal(fortuna_apply(s, RAFAEL, (struct move){ FM_BUILD, FB_PALACE, 0, 0 },
				       &cap.log, &err), -1);
	assert_memory_equal(&before, s, sizeof(before));
	cap.log.loc = LOC_ES;
	assert_int_equal(fortuna_apply(s, RAFAEL, (struct move){ FM_BUILD, 9, 0, 0 },
				       &cap.log, &err), -1);
	assert_non_null(strstr(buf_str(&err), "no es posible"));
	assert_memory_equal(&before, s, sizeof(before));
	buf_release(&err);
	free(s);
}

static void test_labels_and_prompt(void **state)
{
	struct fortuna_state *s = game(4);
	struct buf b = BUF_INIT;

	fortuna_move_label(s, RAFAEL, (struct move){ FM_CARD, FA_FAMILY, 0, 0 }, LOC_ES, &b);
	assert_non_null(strstr(buf_str(&b), "Familia"));
	buf_reset(&b);
	fortuna_prompt(s, RAFAEL, LOC_EN, &b);
	assert_non_null(strstr(buf_str(&b), "Phase 2"));
	buf_reset(&b);
	fortuna_prompt(s, DAVID, LOC_ES, &b);
	assert_non_null(strstr(buf_str(&b), "Esperando"));
	/* Spanish labels parse too */
	PLAY(s, RAFAEL, "jugar cosecha de grano");
	assert_int_equal(s->act_card, FA_GRAIN);
	buf_release(&b);
	free(s);
}

/* The board as plain text in loc (caller releases). */
static void board(const struct fortuna_state *s, enum locale loc, struct buf *out)
{
	struct game_view v = { loc, s->nplayers, names };
	struct rich r = RICH_INIT;

	buf_reset(out);
	fortuna_render_public(s, &v, &r);
	rich_to_plain(&r, out);
	rich_release(&r);
}

/* No line of secrets() appears in the board. */
static void assert_no_secret_on_board(const struct fortuna_state *s)
{
	struct buf pub = BUF_INIT, sec = BUF_INIT;
	int l;

	for (l = 0; l < LOC_COUNT; l++) {
		const char *p;

		board(s, (enum locale)l, &pub);
		buf_reset(&sec);
		fortuna_secrets(s, (enum locale)l, &sec);
		for (p = buf_str(&sec); *p;) {
			const char *nl = strchr(p, '\n');
			char line[128];

			snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
			if (strstr(buf_str(&pub), line))
				fail_msg("secret '%s' on the public board:\n%s", line, buf_str(&pub));
			p = nl + 1;
		}
	}
	buf_release(&pub);
	buf_release(&sec);
}

/* Privilege cards held stay secret; face-down action cards are named: the
 * table saw each of them face up. */
static void test_render_hides_secrets(void **state)
{
	struct fortuna_state *s = game(4);
	struct game_view v = { LOC_EN, 4, names };
	struct rich r = RICH_INIT;
	struct buf pub = BUF_INIT, sec = BUF_INIT, priv = BUF_INIT;

	give(s, DAVID, FP_VP_WINE);
	fortuna_secrets(s, LOC_EN, &sec);
	assert_string_equal(buf_str(&sec), "«2 VP per wine»\n");
	assert_no_secret_on_board(s);
	board(s, LOC_EN, &pub);
	assert_non_null(strstr(buf_str(&pub), "[Corruption]"));
	assert_non_null(strstr(buf_str(&pub), "[Obtain Priestesses]"));
	assert_non_null(strstr(buf_str(&pub), "[Wine harvest]"));
	assert_null(strstr(buf_str(&pub), "face down]"));
	assert_non_null(strstr(buf_str(&pub), "Rafael"));
	board(s, LOC_ES, &pub);
	assert_non_null(strstr(buf_str(&pub), "[Corrupción]"));
	assert_non_null(strstr(buf_str(&pub), "[Cosecha de vino]"));
	/* who leads the next round, for everybody to see */
	assert_non_null(strstr(buf_str(&pub), "La Carta Fortuna está en el lado de Adam"));
	board(s, LOC_EN, &pub);
	assert_non_null(strstr(buf_str(&pub), "The Fortuna card is on Adam's side: Adam leads the next round"));
	/* David sees his card and his face-down Corrupción */
	fortuna_render_private(s, DAVID, &v, &r);
	rich_to_plain(&r, &priv);
	assert_non_null(strstr(buf_str(&priv), "«2 VP per wine»"));
	assert_non_null(strstr(buf_str(&priv), "Corruption"));
	rich_release(&r);
	buf_release(&pub);
	buf_release(&sec);
	buf_release(&priv);
	free(s);
}

/* "Ahora cada uno de los jugadores reserva una de sus tres cartas": every
 * seat is awaited at once and chooses privately; nothing of a choice shows
 * until all have chosen; then one public line names the reserved cards. */
static void test_reservation_simultaneous(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s)), *a, *b;
	struct buf err = BUF_INIT, pub = BUF_INIT, sec = BUF_INIT, want = BUF_INIT;
	int first, second, last, c0, k, slots = 0;
	struct rng r;

	assert_int_equal(fortuna_setup(s, 3, 7, "", &err), 0);
	cap_reset();
	assert_int_equal(fortuna_awaiting(s), 7u);
	first = s->order[2];
	second = s->order[0];
	last = s->order[1];
	/* the last in turn order answers first */
	c0 = s->side_card[first][0];
	PLAY(s, first, "1");
	assert_int_equal(fortuna_awaiting(s), 7u & ~(1u << first));
	assert_true(refused(s, first, "2"));		/* chosen: no second answer */
	buf_printf(&want, "%s has chosen the card to reserve.\n", names[first]);
	assert_string_equal(buf_str(&cap.pub), buf_str(&want));
	assert_non_null(strstr(buf_str(&cap.priv[first]), fortuna_actions[c0].name[LOC_EN]));
	/* the board still shows the three cards as dealt; the choice is a
	 * secret in the form the board would give it */
	fortuna_secrets(s, LOC_EN, &sec);
	buf_reset(&want);
	buf_printf(&want, "[%s]\n", fortuna_actions[c0].name[LOC_EN]);
	assert_string_equal(buf_str(&sec), buf_str(&want));
	assert_no_secret_on_board(s);
	board(s, LOC_EN, &pub);
	assert_non_null(strstr(buf_str(&pub), fortuna_actions[c0].name[LOC_EN]));
	assert_non_null(strstr(buf_str(&pub), "still choosing"));
	/* a seat still choosing samples the others' choices, whatever they
	 * were: the same rng gives the same sample for another true choice */
	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	for (k = 0; k < 40; k++) {
		memcpy(a, s, sizeof(*a));
		memcpy(b, s, sizeof(*b));
		memset(b->side_down[first], 0, 3);
		b->side_down[first][2] = 1;
		rng_seed(&r, (uint64_t)k, 1);
		fortuna_determinize(a, second, &r);
		rng_seed(&r, (uint64_t)k, 1);
		fortuna_determinize(b, second, &r);
		assert_memory_equal(a->side_down, b->side_down, sizeof(a->side_down));
		check_ok(a);
		for (int u = 0; u < 3; u++)
			slots |= a->side_down[first][u] << u;
	}
	assert_int_equal(slots, 7);		/* any of the three */
	PLAY(s, second, "2");
	PLAY(s, last, "3");
	/* all in: the one public update names them, in turn order */
	assert_int_equal(s->step, FS_CHOOSE);
	buf_reset(&want);
	buf_printf(&want, "Everybody has chosen. Reserved face down: %s: %s; %s: %s; %s: %s.\n",
		   names[s->order[0]], fortuna_actions[s->side_card[second][1]].name[LOC_EN],
		   names[s->order[1]], fortuna_actions[s->side_card[last][2]].name[LOC_EN],
		   names[s->order[2]], fortuna_actions[c0].name[LOC_EN]);
	assert_non_null(strstr(buf_str(&cap.pub), buf_str(&want)));
	/* the first seat's card is up (its turn); the others are named */
	board(s, LOC_EN, &pub);
	buf_reset(&want);
	buf_printf(&want, "[%s]", fortuna_actions[c0].name[LOC_EN]);
	assert_non_null(strstr(buf_str(&pub), buf_str(&want)));
	buf_reset(&sec);
	fortuna_secrets(s, LOC_EN, &sec);
	assert_int_equal(sec.len, 0);
	/* from now on a sample keeps every action card where it is */
	memcpy(a, s, sizeof(*a));
	rng_seed(&r, 3, 1);
	fortuna_determinize(a, second, &r);
	assert_memory_equal(a->side_card, s->side_card, sizeof(a->side_card));
	assert_memory_equal(a->side_down, s->side_down, sizeof(a->side_down));
	free(a);
	free(b);
	buf_release(&err);
	buf_release(&pub);
	buf_release(&sec);
	buf_release(&want);
	free(s);
}

/* "...y ésta última la coloca boca abajo": the card taken in an exchange
 * was picked up face up, so the log and the board name it. */
static void test_face_down_named(void **state)
{
	struct fortuna_state *s = game(4), *t = malloc(sizeof(*t));
	struct buf pub = BUF_INIT;
	struct rng r;

	PLAY(s, RAFAEL, "card grain harvest");
	PLAY(s, RAFAEL, "harvest using 0 water");
	PLAY(s, RAFAEL, "exchange fortuna");
	assert_non_null(strstr(buf_str(&cap.pub),
			       "Rafael exchanges Grain harvest for Fortuna card from Adam's side; "
			       "Fortuna card lies face down on Rafael's side.\n"));
	assert_null(strstr(buf_str(&cap.priv[RAFAEL]), "You take"));
	board(s, LOC_EN, &pub);
	assert_non_null(strstr(buf_str(&pub), "[Fortuna card]"));
	assert_non_null(strstr(buf_str(&pub), "The Fortuna card is on Rafael's side: Rafael leads"));
	assert_no_secret_on_board(s);
	/* an empty side in the log */
	free(s);
	s = game(3);
	PLAY(s, RAFAEL, "card grain harvest");
	PLAY(s, RAFAEL, "harvest using 0 water");
	PLAY(s, RAFAEL, "exchange clergy");
	assert_non_null(strstr(buf_str(&cap.pub),
			       "Rafael exchanges Grain harvest for Clergy representation from side 4 (empty); "
			       "Clergy representation lies face down on Rafael's side.\n"));
	/* the AI's samples keep the cards the table saw */
	memcpy(t, s, sizeof(*t));
	rng_seed(&r, 9, 9);
	fortuna_determinize(t, DAVID, &r);
	assert_memory_equal(t->side_card, s->side_card, sizeof(t->side_card));
	assert_memory_equal(t->side_down, s->side_down, sizeof(t->side_down));
	buf_release(&pub);
	free(t);
	free(s);
}

/* Sides are named by their player, as on the board; the coin of a
 * Corrupción goes to that player (the bank for an empty side). */
static void test_labels_name_sides(void **state)
{
	struct fortuna_state *s = game(3);
	struct buf b = BUF_INIT;
	struct move_list ml;
	int i;

	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO }, 0);
	PLAY(s, DAVID, "card corruption");
	assert_label(s, DAVID, "corrupt sell wine", LOC_EN, "Use Sell wine (Paco's side): 1 coin to Paco");
	assert_label(s, DAVID, "corrupt obtain priestesses", LOC_EN,
		     "Use Obtain Priestesses (Paco's side, face down): 1 coin to Paco");
	assert_label(s, DAVID, "corrupt clergy", LOC_EN,
		     "Use Clergy representation (side 4, empty): 1 coin to the bank");
	assert_label(s, DAVID, "corrupt sell wine", LOC_ES, "Usar Vender vino (lado de Paco): 1 moneda a Paco");
	assert_label(s, DAVID, "corrupt clergy", LOC_ES,
		     "Usar Representación del Clero (lado 4, vacío): 1 moneda a la banca");
	s->p[PACO].money = 20;
	assert_label(s, DAVID, "corrupt sell wine", LOC_EN,
		     "Use Sell wine (Paco's side): 1 coin to Paco (lost: 20 already)");
	/* without names (a caller that has none) the side's number stands in */
	fortuna_moves(s, DAVID, &ml);
	for (i = 0; i < ml.n && !(ml.v[i].kind == FM_CORRUPT && ml.v[i].a == FA_SELL_WINE); i++)
		;
	fortuna_move_label(s, DAVID, ml.v[i], LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Use Sell wine (side 3): 1 coin to its owner (lost: 20 already)");
	PLAY(s, DAVID, "corrupt sell wine");
	assert_non_null(strstr(buf_str(&cap.pub), "David uses Sell wine (Paco's side) through Corruption "
				"and pays 1 coin; Paco already has 20, so it is lost.\n"));
	assert_int_equal(s->p[PACO].money, 20);
	PLAY(s, DAVID, "skip");
	assert_label(s, DAVID, "exchange grain harvest", LOC_EN, "Exchange for Grain harvest (Rafael's side)");
	assert_label(s, DAVID, "exchange clergy", LOC_EN, "Exchange for Clergy representation (side 4, empty)");
	assert_label(s, DAVID, "exchange grain harvest", LOC_ES, "Intercambiar por Cosecha de grano (lado de Rafael)");
	free(s);

	s = game(3);
	set_turn(s, (const int[]){ DAVID, RAFAEL, PACO }, 0);
	PLAY(s, DAVID, "card corruption");
	PLAY(s, DAVID, "corrupt sell wine");
	assert_non_null(strstr(buf_str(&cap.pub), "David uses Sell wine (Paco's side) through Corruption "
				"and pays Paco 1 coin.\n"));
	assert_int_equal(s->p[PACO].money, 6);
	buf_release(&b);
	free(s);
}

/* "las cartas no elegidas se descartan boca arriba": named publicly, in
 * the plain form, so the «quoted» form of a kind held stays secret. */
static void test_discards_named(void **state)
{
	static const int order[4] = { RAFAEL, DAVID, PACO, ADAM };
	static const int top[3] = { FP_VP_WINE, FP_VP_GRAIN, FP_STEP };
	struct fortuna_state *s = game(4);
	struct buf pub = BUF_INIT;

	at_die(s, order, 1, "6");
	set_res(s, DAVID, 'p', 2);
	s->fav_tokens[FF_RELIGION] = 3;
	s->token_reserve -= 3;
	deck_top(s, 3, top);
	give(s, PACO, FP_VP_GRAIN);	/* a copy of a discarded kind, held */
	PLAY(s, DAVID, "die 6");
	PLAY(s, DAVID, "favour religion");
	PLAY(s, DAVID, "keep vp per wine");
	assert_true(strstr(buf_str(&cap.pub), "David discards face up: 1 step to Rome, 1 VP per grain.\n") ||
		    strstr(buf_str(&cap.pub), "David discards face up: 1 VP per grain, 1 step to Rome.\n"));
	assert_null(strstr(buf_str(&cap.pub), "«"));
	board(s, LOC_EN, &pub);
	assert_non_null(strstr(buf_str(&pub), "Discarded face up: 1 step to Rome, 1 VP per grain."));
	board(s, LOC_ES, &pub);
	assert_non_null(strstr(buf_str(&pub), "Descartadas boca arriba: 1 paso hacia Roma, 1 PV por grano."));
	assert_no_secret_on_board(s);
	buf_release(&pub);
	free(s);
}

/* Prices by the position filled on the player's track: Centuriones
 * 1/2/3, Sacerdotisas 1/3/5, the starting one in position 1. */
static void test_prices(void **state)
{
	struct fortuna_state *s = game(4);
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;

	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	s->p[PACO].money = 20;
	PLAY(s, PACO, "card recruit centurions");
	assert_moves(s, PACO, "recruit 1 centurion\nrecruit 2 centurions\nskip\n");
	assert_label(s, PACO, "recruit 1 centurion", LOC_EN, "Recruit 1 Centurion for 2 coins");
	assert_label(s, PACO, "recruit 2 centurions", LOC_EN, "Recruit 2 Centurions for 5 coins");
	free(s);
	s = game(4);
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	s->p[PACO].money = 20;
	PLAY(s, PACO, "card obtain priestesses");
	assert_label(s, PACO, "obtain 1 priestess", LOC_EN, "Obtain 1 Priestess for 3 coins");
	assert_label(s, PACO, "obtain 2 priestesses", LOC_ES, "Obtener 2 Sacerdotisas por 8 monedas");
	PLAY(s, PACO, "obtain 2 priestesses");
	assert_int_equal(s->p[PACO].money, 12);
	free(s);
	/* the texts say so */
	assert_non_null(strstr(fortuna_actions[FA_CENTURIONS].effect[LOC_EN], "positions 1/2/3 of your track cost 1/2/3"));
	assert_non_null(strstr(fortuna_actions[FA_PRIESTESSES].effect[LOC_EN], "positions 1/2/3 of your track cost 1/3/5"));
	assert_int_equal(fortuna_rules("actions", LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "so your next Centurion costs 2 and your next Priestess 3"));
	assert_null(strstr(buf_str(&b), "bought in the same action"));
	rich_release(&r);
	buf_reset(&b);
	assert_int_equal(fortuna_card("reclutar", NULL, LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "The Centurion you start with fills position 1, so your next one costs 2."));
	rich_release(&r);
	buf_reset(&b);
	assert_int_equal(fortuna_card("obtener", NULL, LOC_ES, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "la posición 1 cuesta 1 moneda, la 2 cuesta 3 y la 3 cuesta 5"));
	rich_release(&r);
	buf_release(&b);
}

/* The slips of the audit: labels that promised what the rules do not
 * give, prompts that offered what is not there, a card name not found. */
static void test_slips(void **state)
{
	struct fortuna_state *s = game(4);
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;

	/* sales stop at 20 coins */
	set_turn(s, (const int[]){ PACO, RAFAEL, DAVID, ADAM }, 0);
	set_res(s, PACO, 'v', 3);
	s->p[PACO].money = 18;
	PLAY(s, PACO, "card sell wine");
	assert_label(s, PACO, "sell 1 wine", LOC_EN, "Sell 1 wine for 3 coins (+2: money stops at 20)");
	assert_label(s, PACO, "sell 3 wine", LOC_ES, "Vender 3 de vino por 9 monedas (+2: el dinero se detiene en 20)");
	PLAY(s, PACO, "sell 3 wine");
	assert_non_null(strstr(buf_str(&cap.pub), "Paco reaches the 20-coin limit: 7 of the 9 coins are lost."));
	free(s);

	/* favour labels: never past the Palace, and the tokens they give */
	s = game(4);
	at_die(s, order0123, 0, "6");
	s->p[RAFAEL].steps = 14;
	set_res(s, RAFAEL, 'p', 3);
	set_res(s, RAFAEL, 'v', 2);
	s->fav_tokens[FF_RELIGION] = 2;
	s->fav_tokens[FF_WINE] = 1;
	s->token_reserve -= 3;
	check_ok(s);
	PLAY(s, RAFAEL, "die 6");
	assert_label(s, RAFAEL, "favour religion", LOC_EN, "Use Religion (6): +1 step, 2 privilege tokens");
	assert_label(s, RAFAEL, "deliver 1 wine", LOC_EN, "Deliver 1 wine to Bacchanal (2): +1 step, 1 privilege token");
	assert_label(s, RAFAEL, "deliver 1 water", LOC_ES, "Entregar 1 agua a Reserva de agua (1): +1 paso");
	/* no tax offered (card 6 asks nothing): the prompt does not offer it */
	fortuna_prompt(s, RAFAEL, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Phase 4: with the die 6, use a favour card (no tax: "
			    "card 5 or 6 lets you advance without delivering).");
	assert_false(has_move(s, RAFAEL, "pay tax"));
	s->p[RAFAEL].steps = 15;
	assert_label(s, RAFAEL, "deliver 1 water", LOC_EN,
		     "Deliver 1 water to Water reserve (1): no step left (you are at the Palace), but no tax");
	free(s);

	/* a tax offered: the prompt says so */
	s = game(4);
	at_die(s, order0123, 0, "2");
	check_ok(s);
	PLAY(s, RAFAEL, "die 2");
	buf_reset(&b);
	fortuna_prompt(s, RAFAEL, LOC_EN, &b);
	assert_string_equal(buf_str(&b), "Phase 4: with the die 2, use a favour card or pay the tax.");
	free(s);

	/* only the tax, asked because a privilege card may be played first */
	s = game(4);
	at_die(s, order0123, 0, "1");
	set_res(s, RAFAEL, 'w', 0);
	give(s, RAFAEL, FP_GRAIN_ANY);
	PLAY(s, RAFAEL, "die 1");
	assert_moves(s, RAFAEL, "pay tax\nprivilege grain plus any\n");
	buf_reset(&b);
	fortuna_prompt(s, RAFAEL, LOC_ES, &b);
	assert_string_equal(buf_str(&b), "Fase 4: con el dado 1 no puedes atender ninguna carta de favor: "
			    "paga impuestos (antes puedes jugar una carta de privilegio).");
	/* the card of choice gives water: the delivery becomes possible */
	PLAY(s, RAFAEL, "privilege grain plus any");
	PLAY(s, RAFAEL, "choose water");
	assert_moves(s, RAFAEL, "deliver 1 water\npay tax\n");
	PLAY(s, RAFAEL, "deliver 1 water");
	assert_int_equal(s->p[RAFAEL].steps, 1);
	assert_non_null(strstr(buf_str(&cap.pub), "Rafael plays the privilege card 1 grain + 1 of choice.\n"));
	free(s);

	/* a single favour card that asks nothing is used at once */
	s = game(4);
	at_die(s, order0123, 0, "6");
	for (int c = 0; c < 5; c++)
		s->fav_up[c] = 0;
	set_res(s, RAFAEL, 'p', 2);
	check_ok(s);
	PLAY(s, RAFAEL, "die 6");
	ASSERT_AUTO("Rafael", "Use Religion (6): +2 steps");
	assert_int_equal(s->p[RAFAEL].steps, 2);
	free(s);

	/* the Fortuna action at the Palace promises nothing */
	s = game(4);
	set_turn(s, (const int[]){ ADAM, RAFAEL, DAVID, PACO }, 0);
	s->p[ADAM].steps = 15;
	s->p[ADAM].arrival = 1;
	s->narrived = 1;
	s->ending = 1;
	check_ok(s);
	PLAY(s, ADAM, "card fortuna");
	assert_label(s, ADAM, "advance", LOC_EN, "Advance: no step left (you are at the Palace)");
	free(s);

	/* the book's name of the building card */
	assert_int_equal(fortuna_card("edificio", NULL, LOC_ES, &r), 0);
	buf_reset(&b);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "== Construir =="));
	assert_non_null(strstr(buf_str(&b), "El reglamento también la llama Edificio"));
	rich_release(&r);
	assert_int_equal(fortuna_card("Edif", NULL, LOC_EN, &r), 0);
	rich_release(&r);
	/* "Edificios" is not a card: the buildings topic has that name */
	buf_release(&b);
}

/* With 4 players the draft's last pick has one card left: taken at once. */
static void test_draft_last_pick(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	int i;

	assert_int_equal(fortuna_setup(s, 4, 5, "draft", &err), 0);
	cap_reset();
	for (i = 0; i < 10; i++)
		PLAY(s, fortuna_decider(s), "1");
	assert_int_equal(s->step, FS_HIDE);
	assert_non_null(strstr(buf_str(&cap.pub), "Automatic for"));
	assert_non_null(strstr(buf_str(&cap.pub), "(the only possible move): Draft "));
	assert_int_equal(fortuna_awaiting(s), 15u);
	buf_release(&err);
	free(s);
}

/* ---- save / load ---- */

static void play_some(struct fortuna_state *s, int nmoves, uint64_t seed)
{
	struct rng r;
	struct move m;
	struct buf err = BUF_INIT;
	int i;

	rng_seed(&r, seed, 3);
	for (i = 0; i < nmoves && fortuna_awaiting(s); i++) {
		int seat = fortuna_decider(s);

		assert_int_equal(fortuna_bot_move(s, seat, &r, &m), 0);
		assert_int_equal(fortuna_apply(s, seat, m, NULL, &err), 0);
	}
	buf_release(&err);
}

static void test_save_load(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s)), *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;
	int n, k;

	for (n = 2; n <= 4; n++)
		for (k = 0; k < 20; k++) {
			json_t *j;
			char *text;

			memset(s, 0, sizeof(*s));
			assert_int_equal(fortuna_setup(s, n, (uint64_t)k, k % 2 ? "draft" : "", &err), 0);
			play_some(s, k * 17, (uint64_t)k);
			j = fortuna_save(s);
			text = json_dumps(j, JSON_COMPACT);
			json_decref(j);
			j = json_loads(text, 0, NULL);
			memset(t, 0xff, sizeof(*t));
			if (fortuna_load(t, j, &err))
				fail_msg("load: %s\n%s", buf_str(&err), text);
			assert_memory_equal(s, t, sizeof(*s));
			/* and both go on identically */
			play_some(s, 40, 5);
			play_some(t, 40, 5);
			assert_memory_equal(s, t, sizeof(*s));
			json_decref(j);
			free(text);
		}
	buf_release(&err);
	free(s);
	free(t);
}

/* Saves written by the engine before issue 12 (format 1, unchanged): a
 * game in the middle of the reservation, which was asked seat by seat in
 * turn order (cy, the first, has chosen), and one at a die with a single
 * value, which the engine now takes at once but a stored game still asks. */
static const char old_save_hide[] =
	"{\"v\":1,\"game\":\"fortuna\",\"players\":3,\"draft\":0,\"step\":\"hide\",\"round\":1,\"order\":[2"
	",1,0],\"turn\":0,\"setup_k\":1,\"ending\":0,\"side_cards\":[[0,3,9],[2,8,4],[11,10,6],[7"
	",1,5]],\"side_down\":[[0,0,0],[0,0,0],[1,0,0],[0,0,0]],\"favour_up\":[1,1,1,1,1,1],\""
	"favour_tokens\":[0,0,0,0,0,0],\"token_reserve\":12,\"token_palace\":3,\"token_turn\":0,"
	"\"supply_water\":12,\"supply_grain\":12,\"supply_wine\":12,\"supply_priestesses\":9,\"sup"
	"ply_centurions\":9,\"supply_dice\":6,\"buildings_left\":[2,2,2,2],\"deck\":[8,7,1,12,3,"
	"10,0,7,6,7,8,4,5,10,9,9,2,12,6,11,11,9],\"discard\":[0,0,0,0,0,0,0,0,0,0,0,0,0],\"d"
	"rawn\":[],\"keep_left\":0,\"keep_source\":0,\"palace_cards\":[],\"arrived\":0,\"chosen\":0,"
	"\"action_card\":0,\"action_via\":0,\"corrupted\":0,\"b_played\":0,\"palace_due\":0,\"resour"
	"ce_return\":\"draft\",\"rolled\":0,\"roll\":[],\"die\":0,\"last_seat\":255,\"last_roll\":[],\""
	"last_die\":0,\"seats\":[{\"steps\":0,\"money\":5,\"water\":1,\"grain\":1,\"wine\":1,\"aqueduct"
	"_water\":0,\"priestesses\":1,\"centurions\":1,\"dice\":1,\"married\":0,\"buildings\":0,\"aqu"
	"educt_round\":0,\"arrival\":0,\"privileges\":[0,0,0,0,0,0,0,0,0,0,0,0,0]},{\"steps\":0,"
	"\"money\":5,\"water\":1,\"grain\":1,\"wine\":1,\"aqueduct_water\":0,\"priestesses\":1,\"centu"
	"rions\":1,\"dice\":1,\"married\":0,\"buildings\":0,\"aqueduct_round\":0,\"arrival\":0,\"priv"
	"ileges\":[0,0,0,0,0,0,0,0,0,0,0,0,0]},{\"steps\":0,\"money\":5,\"water\":1,\"grain\":1,\"w"
	"ine\":1,\"aqueduct_water\":0,\"priestesses\":1,\"centurions\":1,\"dice\":1,\"married\":0,\"b"
	"uildings\":0,\"aqueduct_round\":0,\"arrival\":0,\"privileges\":[0,0,0,0,0,0,0,0,0,0,0,0"
	",0]}],\"rng\":{\"state\":\"4a9797e13c4ca2c4\",\"inc\":\"008cdee4e8eadcc3\"}}";

static const char old_save_die[] =
	"{\"v\":1,\"game\":\"fortuna\",\"players\":2,\"draft\":0,\"step\":\"die\",\"round\":1,\"order\":[0,"
	"1],\"turn\":0,\"setup_k\":0,\"ending\":0,\"side_cards\":[[0,3,4],[2,11,1],[5,9,8],[7,10,"
	"6]],\"side_down\":[[1,0,0],[1,0,0],[0,0,0],[0,0,0]],\"favour_up\":[1,1,1,1,1,1],\"fav"
	"our_tokens\":[0,0,0,0,0,0],\"token_reserve\":12,\"token_palace\":3,\"token_turn\":0,\"su"
	"pply_water\":13,\"supply_grain\":13,\"supply_wine\":13,\"supply_priestesses\":10,\"suppl"
	"y_centurions\":10,\"supply_dice\":7,\"buildings_left\":[2,2,2,2],\"deck\":[8,7,1,12,3,1"
	"0,0,7,6,7,8,4,5,10,9,9,2,12,6,11,11,9],\"discard\":[0,0,0,0,0,0,0,0,0,0,0,0,0],\"dr"
	"awn\":[],\"keep_left\":0,\"keep_source\":0,\"palace_cards\":[],\"arrived\":0,\"chosen\":11,"
	"\"action_card\":11,\"action_via\":0,\"corrupted\":0,\"b_played\":0,\"palace_due\":0,\"resou"
	"rce_return\":\"choose\",\"rolled\":1,\"roll\":[6],\"die\":0,\"last_seat\":0,\"last_roll\":[6]"
	",\"last_die\":0,\"seats\":[{\"steps\":1,\"money\":5,\"water\":1,\"grain\":1,\"wine\":1,\"aquedu"
	"ct_water\":0,\"priestesses\":1,\"centurions\":1,\"dice\":1,\"married\":0,\"buildings\":0,\"a"
	"queduct_round\":0,\"arrival\":0,\"privileges\":[0,0,0,0,0,0,0,0,0,0,0,0,0]},{\"steps\":"
	"0,\"money\":5,\"water\":1,\"grain\":1,\"wine\":1,\"aqueduct_water\":0,\"priestesses\":1,\"cen"
	"turions\":1,\"dice\":1,\"married\":0,\"buildings\":0,\"aqueduct_round\":0,\"arrival\":0,\"pr"
	"ivileges\":[0,0,0,0,0,0,0,0,0,0,0,0,0]}],\"rng\":{\"state\":\"4a9797e13c4ca2c4\",\"inc\":"
	"\"008cdee4e8eadcc3\"}}";

static void test_load_old_saves(void **state)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	struct buf err = BUF_INIT;
	json_t *j = json_loads(old_save_hide, 0, NULL);

	assert_non_null(j);
	if (fortuna_load(s, j, &err))
		fail_msg("old save: %s", buf_str(&err));
	json_decref(j);
	/* the seats still to choose are asked at once now */
	assert_int_equal(s->step, FS_HIDE);
	assert_int_equal(fortuna_awaiting(s), (1u << 0) | (1u << 1));
	assert_true(refused(s, 2, "1"));
	PLAY(s, 0, "1");
	PLAY(s, 1, "1");
	assert_int_equal(s->step, FS_CHOOSE);
	assert_int_equal(fortuna_decider(s), 2);
	assert_no_secret_on_board(s);

	memset(s, 0, sizeof(*s));
	j = json_loads(old_save_die, 0, NULL);
	if (fortuna_load(s, j, &err))
		fail_msg("old save: %s", buf_str(&err));
	json_decref(j);
	assert_int_equal(s->step, FS_DIE);
	assert_moves(s, 0, "die 6\n");
	PLAY(s, 0, "die 6");
	assert_int_not_equal(s->step, FS_DIE);
	buf_release(&err);
	free(s);
}

static int load_text(const char *text, struct buf *err)
{
	struct fortuna_state *s = calloc(1, sizeof(*s));
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
	int r = fortuna_load(s, j, err);

	json_decref(j);
	free(s);
	return r;
}

/* Saves a position, edits one field, and expects load to refuse. */
static void refuse_edit(const struct fortuna_state *s, const char *key, json_t *val,
			const char *why)
{
	json_t *j = fortuna_save(s);
	struct fortuna_state *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;

	json_object_set_new(j, key, val);
	if (!fortuna_load(t, j, &err))
		fail_msg("load accepted %s (%s)", key, why);
	assert_true(err.len > 0);
	json_decref(j);
	buf_release(&err);
	free(t);
}

static void test_load_rejects(void **state)
{
	struct fortuna_state *s = game(4), *t = calloc(1, sizeof(*t));
	struct buf err = BUF_INIT;
	json_t *j, *seats;

	assert_int_equal(load_text("[1,2]", &err), -1);
	assert_int_equal(load_text("{\"v\":2}", &err), -1);
	assert_non_null(strstr(buf_str(&err), "version"));
	assert_int_equal(load_text("{\"v\":1,\"players\":5}", &err), -1);
	assert_int_equal(load_text("{\"v\":1,\"players\":3}", &err), -1);

	refuse_edit(s, "step", json_string("dance"), "unknown step");
	refuse_edit(s, "step", json_integer(2), "step as a number");
	refuse_edit(s, "round", json_integer(-1), "negative");
	refuse_edit(s, "order", json_pack("[i,i,i,i]", 0, 0, 1, 2), "not a permutation");
	refuse_edit(s, "order", json_pack("[i,i,i]", 0, 1, 2), "short order");
	refuse_edit(s, "supply_grain", json_integer(15), "grain created");
	refuse_edit(s, "favour_tokens", json_pack("[i,i,i,i,i,i]", 0, 0, 0, 0, 0, 1),
		    "token created");
	refuse_edit(s, "favour_tokens", json_pack("[i,i,i,i,i]", 0, 0, 0, 0, 0), "short");
	refuse_edit(s, "side_cards", json_pack("[[i,i,i],[i,i,i],[i,i,i],[i,i,i]]",
					       0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10),
		    "card twice");
	refuse_edit(s, "deck", json_pack("[i]", 99), "bad card");
	refuse_edit(s, "die", json_integer(3), "die chosen in phase 2");
	refuse_edit(s, "step", json_string("favour"), "favour without a die");
	refuse_edit(s, "step", json_string("end"), "end of turn before phase 4");
	refuse_edit(s, "rng", json_pack("{s:s,s:s}", "state", "xyz", "inc", "1"), "bad hex");
	refuse_edit(s, "rng", json_pack("{s:s,s:s}", "state", "1", "inc", "2"), "even inc");
	refuse_edit(s, "seats", json_array(), "no seats");

	j = fortuna_save(s);
	seats = json_object_get(j, "seats");
	json_object_set_new(json_array_get(seats, 1), "money", json_integer(21));
	assert_int_equal(fortuna_load(t, j, &err), -1);
	json_decref(j);

	j = fortuna_save(s);
	seats = json_object_get(j, "seats");
	json_object_set_new(json_array_get(seats, 1), "buildings", json_integer(1 << FB_PALACE));
	assert_int_equal(fortuna_load(t, j, &err), -1);	/* Palacio, not married */
	json_decref(j);

	j = fortuna_save(s);
	seats = json_object_get(j, "seats");
	json_object_set_new(json_array_get(seats, 0), "privileges",
			    json_pack("[i,i,i,i,i,i,i,i,i,i,i,i,i]", 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0));
	assert_int_equal(fortuna_load(t, j, &err), -1);	/* a card created */
	assert_non_null(strstr(buf_str(&err), "privilege"));
	json_decref(j);
	/* the untouched save loads */
	j = fortuna_save(s);
	assert_int_equal(fortuna_load(t, j, &err), 0);
	assert_memory_equal(s, t, sizeof(*s));
	json_decref(j);
	buf_release(&err);
	free(s);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_example_military_power, teardown),
		cmocka_unit_test_teardown(test_example_adam_food, teardown),
		cmocka_unit_test_teardown(test_example_david_tax, teardown),
		cmocka_unit_test_teardown(test_example_flip_rules, teardown),
		cmocka_unit_test_teardown(test_example_religion_privileges, teardown),
		cmocka_unit_test_teardown(test_example_basilica, teardown),
		cmocka_unit_test_teardown(test_example_palace, teardown),
		cmocka_unit_test_teardown(test_water_collection, teardown),
		cmocka_unit_test_teardown(test_harvests, teardown),
		cmocka_unit_test_teardown(test_sell, teardown),
		cmocka_unit_test_teardown(test_recruit_and_priestesses, teardown),
		cmocka_unit_test_teardown(test_clergy, teardown),
		cmocka_unit_test_teardown(test_family, teardown),
		cmocka_unit_test_teardown(test_family_roll_kept, teardown),
		cmocka_unit_test_teardown(test_build, teardown),
		cmocka_unit_test_teardown(test_aqueduct, teardown),
		cmocka_unit_test_teardown(test_corruption, teardown),
		cmocka_unit_test_teardown(test_fortuna_card, teardown),
		cmocka_unit_test_teardown(test_tax_penniless, teardown),
		cmocka_unit_test_teardown(test_fortuna_favour, teardown),
		cmocka_unit_test_teardown(test_deliver_limits, teardown),
		cmocka_unit_test_teardown(test_tokens_on_advance_only, teardown),
		cmocka_unit_test_teardown(test_no_flip_without_advance_at_palace, teardown),
		cmocka_unit_test_teardown(test_two_player_flip, teardown),
		cmocka_unit_test_teardown(test_round_end_tokens_exact, teardown),
		cmocka_unit_test_teardown(test_turn_order, teardown),
		cmocka_unit_test_teardown(test_privilege_play, teardown),
		cmocka_unit_test_teardown(test_privilege_after_phase5, teardown),
		cmocka_unit_test_teardown(test_privilege_scoring, teardown),
		cmocka_unit_test_teardown(test_result_ties, teardown),
		cmocka_unit_test_teardown(test_setup, teardown),
		cmocka_unit_test_teardown(test_draft, teardown),
		cmocka_unit_test_teardown(test_apply_rejects, teardown),
		cmocka_unit_test_teardown(test_labels_and_prompt, teardown),
		cmocka_unit_test_teardown(test_render_hides_secrets, teardown),
		cmocka_unit_test_teardown(test_reservation_simultaneous, teardown),
		cmocka_unit_test_teardown(test_face_down_named, teardown),
		cmocka_unit_test_teardown(test_labels_name_sides, teardown),
		cmocka_unit_test_teardown(test_discards_named, teardown),
		cmocka_unit_test_teardown(test_prices, teardown),
		cmocka_unit_test_teardown(test_slips, teardown),
		cmocka_unit_test_teardown(test_draft_last_pick, teardown),
		cmocka_unit_test_teardown(test_save_load, teardown),
		cmocka_unit_test_teardown(test_load_rejects, teardown),
		cmocka_unit_test_teardown(test_load_old_saves, teardown),
	};

	cap_reset();
	return cmocka_run_group_tests_name("fortuna", tests, NULL, NULL);
}
