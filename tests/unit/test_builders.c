/*
 * The Builders: Antiquity: scenario tests against the Spanish rulebook
 * (003_1ee2b25f51d7d57a.txt in ../shared/seeds/), with docs/games/builders.md
 * for tabula's rulings.  One scenario per card kind that behaves
 * differently (buildings, machines, each worker rank's wage, slaves and
 * freedmen, tools, loans, universities), the action costs, the end of the
 * game and the final scoring, and the rulebook's worked examples.
 *
 * Positions start from a seeded setup and are changed through the helpers
 * of games/builders/builders.h (builders_give_building, _give_worker) and
 * the small helpers below, which keep every card and sesterce accounted
 * for; moves go through game_play() with their canonical ids, as a player
 * would type them, and check() runs after each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "games/builders/builders.h"
#include "util/text.h"

enum { ANA, BEN, CY, DEE };

static const char *const names[] = { "Ana", "Ben", "Cy", "Dee" };

/* Card indices (games/builders/cards.c). */
enum {
	ARMORY = 0, HOUSE = 4, QUARRY = 10, PYRAMID = 17, LIGHTHOUSE = 25, TEMPLE = 26,
	SAW = 29, ARCH_TABLE = 30, SCAFFOLD = 31, HOIST = 32,
};
enum {
	APP1 = 0, APP2, APP3, APP4, LAB1, LAB2, LAB3, LAB4,
	JOU1, JOU2, JOU3, JOU4, JOU5, JOU6, MAS1, MAS2, MAS3, MAS4,
};
enum { HAMMER = 0, HANDSAW, SQUARE, BRUSH };
#define SLAVE(k) (BU_SLAVE + (k) - 1)

/* ---- helpers ---- */

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

static void check_ok(const struct builders_state *s)
{
	struct buf err = BUF_INIT;

	if (builders_check(s, &err))
		fail_msg("invariant broken: %s", buf_str(&err));
	buf_release(&err);
}

static void ids(const struct builders_state *s, int seat, struct buf *out)
{
	struct move_list ml;
	int i;

	builders_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		builders_move_id(s, seat, ml.v[i], out);
		buf_addch(out, '\n');
	}
}

static int has_move(const struct builders_state *s, int seat, const char *id)
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

#define PLAY(s, seat, text) play_at(s, seat, text, __LINE__)

/* Plays the move whose canonical id is text exactly. */
static void play_at(struct builders_state *s, int seat, const char *text, int line)
{
	struct buf err = BUF_INIT, list = BUF_INIT;

	if (!has_move(s, seat, text)) {
		ids(s, seat, &list);
		fail_msg("line %d: seat %d has no move '%s'; its moves:\n%s", line, seat, text,
			 buf_str(&list));
	}
	if (game_play(&builders_ops, s, seat, text, &cap_log, LOC_EN, &err))
		fail_msg("line %d: '%s' by seat %d refused: %s", line, text, seat, buf_str(&err));
	buf_release(&err);
	buf_release(&list);
	check_ok(s);
}

/* A fresh game of n seats in which seat `who` is about to play the first
 * turn, everybody at 10 sesterces with their Apprentice. */
static void fresh(struct builders_state *s, int n, int who)
{
	struct buf err = BUF_INIT;

	memset(s, 0, sizeof(*s));
	assert_int_equal(builders_setup(s, n, 7, "", &err), 0);
	s->first = (uint8_t)who;
	s->cur = (uint8_t)who;
	buf_reset(&logbuf);
	buf_release(&err);
	check_ok(s);
}

/* Sets a seat's money, the difference going to or from the bank. */
static void set_money(struct builders_state *s, int seat, int m)
{
	s->bank += s->p[seat].money - m;
	s->p[seat].money = (uint16_t)m;
}

/* Gives seat building b in progress, and worker card w (wherever they lie). */
static void give_b(struct builders_state *s, int seat, int b)
{
	assert_int_equal(builders_give_building(s, seat, b), 0);
	check_ok(s);
}

static void give_w(struct builders_state *s, int seat, int w)
{
	assert_int_equal(builders_give_worker(s, seat, w), 0);
	check_ok(s);
}

/* Unit u (the owner's) has been working on b since an earlier turn. */
static void place(struct builders_state *s, int u, int b)
{
	s->uat[u] = (uint8_t)b;
	builders_recount(s);
	check_ok(s);
}

/* Gives seat a slave, a tool, a loan (from the piles) as an earlier turn would. */
static void give_slave(struct builders_state *s, int seat, int k)
{
	s->uown[SLAVE(k)] = (uint8_t)seat;
	builders_recount(s);
	check_ok(s);
}

static void give_tool(struct builders_state *s, int seat, int t)
{
	s->town[t] = (uint8_t)seat;
	builders_recount(s);
	check_ok(s);
}

/* The seat's Apprentice dealt at setup. */
static int apprentice(const struct builders_state *s, int seat)
{
	return s->dealt[seat];
}

static void unit_id(const struct builders_state *s, int u, char *out, size_t n)
{
	struct buf b = BUF_INIT;
	struct move m = { BM_SEND, (uint16_t)u, 0, 0 };

	builders_move_id(s, s->cur, m, &b);
	snprintf(out, n, "%s", buf_str(&b) + strlen("send "));
	buf_release(&b);
}

/* ---- setup ---- */

static void test_setup(void **state)
{
	uint64_t seed;
	unsigned firsts = 0;
	int n;

	(void)state;
	for (n = BUILDERS_MIN_PLAYERS; n <= BUILDERS_MAX_PLAYERS; n++)
		for (seed = 1; seed <= 40; seed++) {
			struct builders_state s;
			struct buf err = BUF_INIT;
			int i, owned = 0, u;

			memset(&s, 0, sizeof(s));
			assert_int_equal(builders_setup(&s, n, seed, "", &err), 0);
			check_ok(&s);
			/* "Coloca las primeras cinco cartas"; five workers too */
			for (i = 0; i < BUILDERS_ROW; i++) {
				assert_true(s.brow[i] < BUILDERS_BUILDINGS);
				assert_true(s.wrow[i] < BUILDERS_WORKERS);
			}
			assert_int_equal(s.nbdeck, BUILDERS_BUILDINGS - BUILDERS_ROW);
			assert_int_equal(s.nwdeck, BUILDERS_WORKERS - n - BUILDERS_ROW);
			/* "Reparte al azar un Aprendiz a cada jugador": one each, an
			 * Apprentice, and nothing else */
			for (i = 0; i < n; i++) {
				int mine = 0;

				for (u = 0; u < BUILDERS_UNITS; u++)
					mine += s.uown[u] == i;
				assert_int_equal(mine, 1);
				assert_int_equal(builders_workers[s.dealt[i]].rank, BK_APPRENTICE);
				assert_int_equal(s.uown[s.dealt[i]], i);
				/* "Cada jugador recibe 10 sestercios" */
				assert_int_equal(s.p[i].money, 10);
				owned++;
			}
			assert_int_equal(owned, n);
			/* the investment line: 6 slaves, 4 tools, 4 loans, 4 universities */
			assert_int_equal(s.spile, 0x3f);
			assert_int_equal(s.tpile, 0xf);
			assert_int_equal(s.upile, 0xf);
			assert_int_equal(s.loan_pile, 4);
			assert_int_equal(s.step, BS_TURN);
			assert_int_equal(s.cur, s.first);
			firsts |= 1u << s.first;
			buf_release(&err);
		}
	/* "Aleatoriamente elegid un jugador inicial" */
	assert_int_equal(firsts, 0xf);
}

static void test_setup_refuses(void **state)
{
	struct builders_state s;
	struct buf err = BUF_INIT;

	(void)state;
	assert_int_equal(builders_setup(&s, 1, 1, "", &err), -1);
	assert_int_equal(builders_setup(&s, 5, 1, "", &err), -1);
	/* the rulebook describes no variant */
	assert_int_equal(builders_setup(&s, 2, 1, "draft", &err), -1);
	assert_non_null(strstr(buf_str(&err), "no options"));
	assert_null(builders_ops.option_words);
	buf_release(&err);
}

/* ---- actions and their costs ---- */

/* "3 acciones gratuitas ... Cada acción extra cuesta 5 sestercios";
 * sesterces: "1 acción ... 1, 2 acciones ... 3, 3 acciones ... 6". */
static void test_free_and_extra_actions(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	assert_true(has_move(&s, ANA, "take 6 sesterces"));
	PLAY(&s, ANA, "take 1 sesterce");
	assert_int_equal(s.p[ANA].money, 11);
	PLAY(&s, ANA, "take 3 sesterces");
	assert_int_equal(s.p[ANA].money, 14);
	assert_int_equal(builders_free_left(&s), 0);
	/* the next action costs 5: taking 1, 3 or 6 sesterces would only lose */
	assert_false(has_move(&s, ANA, "take 1 sesterce"));
	assert_false(has_move(&s, ANA, "take 6 sesterces"));
	assert_int_equal(builders_action_money(&s, 1), 5);
	/* a paid action: starting a building costs 5 now */
	{
		char id[64];

		snprintf(id, sizeof(id), "start %s", builders_buildings[s.brow[0]].id);
		PLAY(&s, ANA, id);
	}
	assert_int_equal(s.p[ANA].money, 9);
	assert_true(logged("Ana pays 5 s for an extra action."));
	/* the payment is logged before what it bought (issue 25) */
	{
		const char *pays = strstr(buf_str(&logbuf), "Ana pays 5 s for an extra action.");
		const char *starts = strstr(buf_str(&logbuf), "Ana starts ");

		assert_non_null(starts);
		assert_true(pays < starts);
	}
	PLAY(&s, ANA, "end turn");
	assert_int_equal(s.cur, BEN);
	/* a new turn: 3 free actions again */
	assert_int_equal(builders_free_left(&s), 3);
}

/* Two free actions left: 6 sesterces for 2 free + 1 paid is offered (a
 * gain of 1), 3 for 2 free too; with 1 free left, 6 would cost 10. */
static void test_take_with_paid_actions(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	PLAY(&s, ANA, "take 1 sesterce");
	assert_true(has_move(&s, ANA, "take 6 sesterces"));
	PLAY(&s, ANA, "take 6 sesterces");
	assert_int_equal(s.p[ANA].money, 10 + 1 + 6 - 5);
	assert_int_equal(s.used, 4);
	fresh(&s, 2, ANA);
	PLAY(&s, ANA, "take 3 sesterces");
	assert_false(has_move(&s, ANA, "take 6 sesterces"));
	assert_false(has_move(&s, ANA, "take 3 sesterces"));
	assert_true(has_move(&s, ANA, "take 1 sesterce"));
}

/* With no free action and less than 5 sesterces only the end is left. */
static void test_no_action_no_money(void **state)
{
	struct builders_state s;
	struct move_list ml;

	(void)state;
	fresh(&s, 2, ANA);
	set_money(&s, ANA, 4);
	PLAY(&s, ANA, "take 6 sesterces");
	set_money(&s, ANA, 4);
	builders_moves(&s, ANA, &ml);
	assert_int_equal(ml.n, 1);
	assert_int_equal(ml.v[0].kind, BM_END);
}

/* "Iniciar una Construcción cuesta una acción ... rellena ese hueco en la
 * línea con la carta superior del mazo"; with the deck empty the gap
 * stays. */
static void test_start_building(void **state)
{
	struct builders_state s;
	char id[64];
	int b, top, deck;

	(void)state;
	fresh(&s, 3, BEN);
	b = s.brow[2];
	top = s.bdeck[s.nbdeck - 1];
	deck = s.nbdeck;
	snprintf(id, sizeof(id), "start %s", builders_buildings[b].id);
	PLAY(&s, BEN, id);
	assert_int_equal(s.bown[b], BEN);
	assert_int_equal(s.bplace[b], BP_BUILDING);
	assert_int_equal(s.brow[2], top);
	assert_int_equal(s.nbdeck, deck - 1);
	assert_int_equal(s.used, 1);
	/* several at once: "Puedes tener varios edificios en construcción" */
	snprintf(id, sizeof(id), "start %s", builders_buildings[s.brow[0]].id);
	PLAY(&s, BEN, id);
	assert_int_equal(__builtin_popcountll(s.prog[BEN]), 2);
	/* an empty deck leaves the gap empty */
	while (s.nbdeck)
		give_b(&s, CY, s.bdeck[0]);
	b = s.brow[4];
	s.used = 0;
	snprintf(id, sizeof(id), "start %s", builders_buildings[b].id);
	PLAY(&s, BEN, id);
	assert_int_equal(s.brow[4], BUILDERS_NONE);
}

static void test_hire_worker(void **state)
{
	struct builders_state s;
	char id[64], name[32];
	int w, top;

	(void)state;
	fresh(&s, 2, ANA);
	w = s.wrow[1];
	top = s.wdeck[s.nwdeck - 1];
	unit_id(&s, w, name, sizeof(name));
	snprintf(id, sizeof(id), "hire %s", name);
	PLAY(&s, ANA, id);
	assert_int_equal(s.uown[w], ANA);
	assert_int_equal(s.uat[w], BUILDERS_NONE);
	assert_int_equal(s.wrow[1], top);
	/* hiring costs an action, no sesterces */
	assert_int_equal(s.p[ANA].money, 10);
	assert_int_equal(s.used, 1);
}

/* The wage: "debes pagar la cantidad de Sestercios en la esquina superior
 * derecha de la carta": 2, 3, 4, 5 by rank. */
static void test_wages_by_rank(void **state)
{
	static const int workers[] = { LAB2, JOU3, MAS2 };
	static const int wage[] = { 3, 4, 5 };
	struct builders_state s;
	char id[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(workers) / sizeof(*workers); i++) {
		fresh(&s, 2, ANA);
		give_b(&s, ANA, PYRAMID);
		give_w(&s, ANA, workers[i]);
		set_money(&s, ANA, 20);
		unit_id(&s, workers[i], id + 5, sizeof(id) - 5);
		memcpy(id, "send ", 5);
		PLAY(&s, ANA, id);
		PLAY(&s, ANA, "to pyramid");
		assert_int_equal(s.p[ANA].money, 20 - wage[i]);
		assert_int_equal(s.uat[workers[i]], PYRAMID);
	}
	/* the Apprentice: 2 */
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	unit_id(&s, apprentice(&s, ANA), id + 5, sizeof(id) - 5);
	memcpy(id, "send ", 5);
	PLAY(&s, ANA, id);
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.p[ANA].money, 8);
}

/*
 * "enviar un segundo Trabajador al mismo Edificio durante el mismo turno
 * cuesta 2 acciones ... el tercer ... 3 acciones ... ¡Por enviar a tres
 * Trabajadores durante el mismo turno al mismo Edificio, un jugador debe
 * gastar seis acciones!  Sin embargo, por enviar Trabajadores a dos
 * Edificios diferentes durante el mismo turno cuesta sólo 2 acciones".
 */
static void test_second_and_third_worker(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_w(&s, ANA, LAB1);
	give_w(&s, ANA, LAB2);
	give_w(&s, ANA, LAB3);
	set_money(&s, ANA, 40);
	PLAY(&s, ANA, "send laborer 1");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.used, 1);
	assert_int_equal(s.p[ANA].money, 40 - 3);
	PLAY(&s, ANA, "send laborer 2");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.used, 3);		/* 1 + 2 */
	assert_int_equal(s.p[ANA].money, 40 - 3 - 3);
	assert_true(logged("Ana sends Laborer 2 to Pyramid: 2 actions (worker 2 there this turn), wage 3 s."));
	PLAY(&s, ANA, "send laborer 3");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.used, 6);		/* 1 + 2 + 3 */
	/* the third cost 3 actions, all paid: 15 s, and the wage */
	assert_int_equal(s.p[ANA].money, 40 - 3 - 3 - 15 - 3);
	/* workers sent in an earlier turn do not count */
	PLAY(&s, ANA, "end turn");
	PLAY(&s, BEN, "end turn");
	give_w(&s, ANA, JOU3);
	PLAY(&s, ANA, "send journeyman 3");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.used, 1);

	/* two buildings: one action each */
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_b(&s, ANA, LIGHTHOUSE);
	give_w(&s, ANA, LAB1);
	give_w(&s, ANA, LAB2);
	PLAY(&s, ANA, "send laborer 1");
	PLAY(&s, ANA, "to lighthouse of alexandria");
	PLAY(&s, ANA, "send laborer 2");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.used, 2);
	assert_int_equal(s.p[ANA].money, 10 - 6);
}

/* A send the seat cannot pay (wage plus extra actions) is not offered. */
static void test_send_needs_money(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_w(&s, ANA, MAS2);
	set_money(&s, ANA, 4);
	assert_false(has_move(&s, ANA, "send master 2"));
	set_money(&s, ANA, 5);
	assert_true(has_move(&s, ANA, "send master 2"));
	/* a worker that adds nothing the building still misses is not offered */
	fresh(&s, 2, ANA);
	give_b(&s, ANA, HOUSE);		/* W1 A1 */
	give_w(&s, ANA, LAB2);		/* S2 D1 */
	assert_false(has_move(&s, ANA, "send laborer 2"));
}

/* What game_parse answers to text by seat: its refusal, which must hold want. */
static void refused_with(const struct builders_state *s, int seat, const char *text,
			 const char *want, int line)
{
	struct buf err = BUF_INIT;
	struct move m;

	if (!game_parse(&builders_ops, s, seat, text, LOC_EN, &m, &err))
		fail_msg("line %d: '%s' was accepted", line, text);
	if (!strstr(buf_str(&err), want))
		fail_msg("line %d: '%s' refused with '%s', not '%s'", line, text, buf_str(&err), want);
	buf_release(&err);
}

#define REFUSED(s, seat, text, want) refused_with((s), (seat), (text), (want), __LINE__)

/* A move the rules know but the seat cannot make now is refused with the
 * reason and the figures, not "No move matches" (issue 25). */
static void test_refusals_say_why(void **state)
{
	struct builders_state s;

	(void)state;
	/* the second worker to a building this turn, with no free action left */
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_w(&s, ANA, LAB1);
	give_w(&s, ANA, LAB2);
	PLAY(&s, ANA, "take 3 sesterces");
	PLAY(&s, ANA, "send laborer 1");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.p[ANA].money, 10);
	REFUSED(&s, ANA, "send laborer 2",
		"The second worker to Pyramid this turn costs 2 actions (10 s) + wage 3 s; you have 10 s.");
	/* no free action and no money for an extra one */
	set_money(&s, ANA, 4);
	REFUSED(&s, ANA, "start", "You have no free action left, and an extra one costs 5 s; you have 4 s.");
	REFUSED(&s, ANA, "hire laborer", "You have no free action left");
	/* a worker whose wage cannot be paid */
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_w(&s, ANA, MAS2);
	set_money(&s, ANA, 4);
	REFUSED(&s, ANA, "send master 2", "Master 2's wage is 5 s; you have 4 s.");
	/* a second investment in one turn */
	PLAY(&s, ANA, "take loan");
	REFUSED(&s, ANA, "buy tool", "You have made this turn's investment already");
	REFUSED(&s, ANA, "enslave", "You have made this turn's investment already");
	/* what names nothing the rules know keeps the plain answer */
	REFUSED(&s, ANA, "levitate", "No move matches");
	/* taking money with actions that cost more than it brings */
	fresh(&s, 2, ANA);
	PLAY(&s, ANA, "take 1 sesterce");
	PLAY(&s, ANA, "take 1 sesterce");
	REFUSED(&s, ANA, "take 3 sesterces", "Taking 3 sesterces takes 2 actions and you have 1 free");
}

/*
 * The rulebook's completion: "Enviando al Trabajador ... por 3 Sestercios
 * al Faro de Alejandría, el jugador completa los requisitos del Edificio.
 * El Faro de Alejandría requiere 2 piedras, 4 maderas, 1 arquitectura y 3
 * decoraciones.  El último Trabajador añadido trae 1 madera y 2
 * decoraciones que faltaban ... El jugador gana 14 Sestercios ... 5 puntos
 * de victoria.  Los Trabajadores ... y cualquiera de las Herramientas ...
 * se reúnen con tu equipo".
 */
static void test_lighthouse_completed(void **state)
{
	struct builders_state s;
	uint8_t miss[BR_COUNT];

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, LIGHTHOUSE);
	give_w(&s, ANA, LAB2);		/* S2 D1 */
	give_w(&s, ANA, LAB3);		/* W2 A1 */
	give_w(&s, ANA, APP1 == apprentice(&s, ANA) ? APP2 : APP1);
	give_w(&s, ANA, LAB1);		/* W1 D2: the last one */
	give_tool(&s, ANA, HANDSAW);
	place(&s, LAB2, LIGHTHOUSE);
	place(&s, LAB3, LIGHTHOUSE);
	s.tat[HANDSAW] = LAB3;		/* Laborer 3 went with the handsaw: +W1 */
	builders_recount(&s);
	check_ok(&s);
	builders_missing(&s, LIGHTHOUSE, miss);
	assert_memory_equal(miss, ((uint8_t[]){ 0, 1, 0, 2 }), BR_COUNT);
	PLAY(&s, ANA, "send laborer 1");
	PLAY(&s, ANA, "to lighthouse of alexandria");
	assert_int_equal(s.bplace[LIGHTHOUSE], BP_DONE);
	assert_int_equal(s.p[ANA].money, 10 - 3 + 14);
	assert_int_equal(s.p[ANA].vp, 5);
	/* everybody back, the handsaw too */
	assert_int_equal(s.uat[LAB1], BUILDERS_NONE);
	assert_int_equal(s.uat[LAB2], BUILDERS_NONE);
	assert_int_equal(s.uat[LAB3], BUILDERS_NONE);
	assert_int_equal(s.tat[HANDSAW], BUILDERS_NONE);
	assert_true((s.idle[ANA] >> LAB1) & 1);
	assert_true(logged("Ana completes Lighthouse of Alexandria: +14 s and 5 VP."));
	/* "Terminar un Edificio no es una acción": only the send counted */
	assert_int_equal(s.used, 1);
}

/* "Una vez que envías al Trabajador a trabajar a un Edificio, ese
 * Trabajador ya no puede moverse hasta que el Edificio esté completo." */
static void test_worker_stays(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_b(&s, ANA, TEMPLE);
	give_w(&s, ANA, JOU3);
	PLAY(&s, ANA, "send journeyman 3");
	PLAY(&s, ANA, "to pyramid");
	assert_false(has_move(&s, ANA, "send journeyman 3"));
}

/* Machines: "se trata como un Trabajador que no requiere ningún pago por
 * su trabajo ... vale puntos de victoria ... se une a tu equipo". */
static void test_machine(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, HOIST);		/* W1 A2 -> makes 3 stone */
	give_b(&s, ANA, PYRAMID);
	give_w(&s, ANA, LAB3);		/* W2 A1 */
	give_w(&s, ANA, JOU2);		/* S1 A3 */
	place(&s, LAB3, HOIST);
	PLAY(&s, ANA, "send journeyman 2");
	PLAY(&s, ANA, "to hoist");
	assert_int_equal(s.bplace[HOIST], BP_DONE);
	assert_int_equal(s.p[ANA].vp, 2);
	assert_int_equal(s.p[ANA].money, 10 - 4);	/* no coins for a machine */
	assert_int_equal(s.uown[BU_MACHINE + 3], ANA);
	assert_int_equal(s.ures[BU_MACHINE + 3][BR_STONE], 3);
	assert_true(logged("Ana completes the machine Hoist"));
	/* it works at once, for nothing */
	PLAY(&s, ANA, "send hoist");
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.p[ANA].money, 10 - 4);
	assert_int_equal(s.have[PYRAMID][BR_STONE], 3);
}

/* Each of the four machines: completed by one worker, 2 VP and no coins,
 * then a unit making 3 of its resource for no wage. */
static void test_each_machine(void **state)
{
	static const struct { int b, worker, res; const char *id; } m[] = {
		{ SAW, MAS4, BR_WOOD, "saw" },			/* A1 D2 <- A3 D2 */
		{ ARCH_TABLE, LAB2, BR_ARCH, "architects table" },	/* S2 D1 <- S2 D1 */
		{ SCAFFOLD, MAS2, BR_DECO, "scaffolding" },	/* S1 W2 <- S3 W2 */
		{ HOIST, MAS3, BR_STONE, "hoist" },		/* W1 A2 <- W3 A2 */
	};
	struct builders_state s;
	char id[64];
	size_t i;
	int u, r;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(*m); i++) {
		fresh(&s, 2, ANA);
		give_b(&s, ANA, m[i].b);
		give_b(&s, ANA, PYRAMID);
		give_w(&s, ANA, m[i].worker);
		set_money(&s, ANA, 10);
		unit_id(&s, m[i].worker, id + 5, sizeof(id) - 5);
		memcpy(id, "send ", 5);
		PLAY(&s, ANA, id);
		snprintf(id, sizeof(id), "to %s", m[i].id);
		PLAY(&s, ANA, id);
		u = BU_MACHINE + m[i].b - BB_FIRST_MACHINE;
		assert_int_equal(s.bplace[m[i].b], BP_DONE);
		assert_int_equal(s.p[ANA].vp, 2);
		assert_int_equal(s.p[ANA].money, 10 - builders_wage(&s, m[i].worker));
		assert_int_equal(s.uown[u], ANA);
		for (r = 0; r < BR_COUNT; r++)
			assert_int_equal(s.ures[u][r], r == m[i].res ? 3 : 0);
		assert_int_equal(builders_wage(&s, u), 0);
		snprintf(id, sizeof(id), "send %s", m[i].id);
		PLAY(&s, ANA, id);
		PLAY(&s, ANA, "to pyramid");
		assert_int_equal(s.have[PYRAMID][m[i].res], 3);
		assert_int_equal(s.p[ANA].money, 10 - builders_wage(&s, m[i].worker));
	}
}

/* ---- investments ---- */

/* "Una vez por turno, puedes optar por coger una de las cartas de las
 * pilas de Inversión": after one, none of the four is offered. */
static void test_one_investment_a_turn(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	set_money(&s, ANA, 30);
	assert_true(has_move(&s, ANA, "enslave"));
	assert_true(has_move(&s, ANA, "buy tool"));
	assert_true(has_move(&s, ANA, "take loan"));
	assert_true(has_move(&s, ANA, "educate"));
	PLAY(&s, ANA, "buy tool");
	PLAY(&s, ANA, "buy hammer");
	assert_false(has_move(&s, ANA, "enslave"));
	assert_false(has_move(&s, ANA, "buy tool"));
	assert_false(has_move(&s, ANA, "take loan"));
	assert_false(has_move(&s, ANA, "educate"));
	PLAY(&s, ANA, "end turn");
	PLAY(&s, BEN, "end turn");
	assert_true(has_move(&s, ANA, "take loan"));
}

/*
 * Slaves: "Por un coste fijo de 7 sestercios ... no tendrás que pagar
 * ningún sestercio por llevarlos a trabajar ... cada Esclavo (que no haya
 * sido liberado) cuesta a su dueño 1 punto de Victoria ... no pueden ser
 * educados o equipados con una herramienta."
 */
static void test_slave(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_tool(&s, ANA, HAMMER);
	PLAY(&s, ANA, "enslave");
	PLAY(&s, ANA, "buy slave 2");	/* A2 D2 */
	assert_int_equal(s.p[ANA].money, 3);
	assert_int_equal(s.uown[SLAVE(2)], ANA);
	assert_int_equal(builders_enslaved(&s, ANA), 1);
	/* no wage; the hammer is not offered to a slave */
	PLAY(&s, ANA, "send slave 2");
	assert_false(has_move(&s, ANA, "to pyramid with hammer"));
	PLAY(&s, ANA, "to pyramid");
	assert_int_equal(s.p[ANA].money, 3);
	/* no university for a slave */
	fresh(&s, 2, BEN);
	give_slave(&s, BEN, 1);
	set_money(&s, BEN, 20);
	PLAY(&s, BEN, "educate");
	assert_false(has_move(&s, BEN, "educate slave 1 in architecture"));
}

/*
 * Freeing: "En cualquier momento durante tu turno ... al coste de una
 * acción por cada Liberto ... Sólo un Esclavo disponible puede ser
 * liberado ... El Liberto entonces se considera como un trabajador, que
 * por lo tanto debes pagar ... ahora puede ser educado y/o equipado con
 * una herramienta."
 */
static void test_free_slave(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_slave(&s, ANA, 1);
	give_slave(&s, ANA, 3);
	give_tool(&s, ANA, BRUSH);
	place(&s, SLAVE(3), PYRAMID);
	/* only the one not at work; not an investment (both could be freed) */
	assert_true(has_move(&s, ANA, "free slave 1"));
	assert_false(has_move(&s, ANA, "free slave 3"));
	PLAY(&s, ANA, "free slave 1");
	assert_int_equal(s.used, 1);
	assert_int_equal(s.p[ANA].money, 10);
	assert_int_equal(builders_enslaved(&s, ANA), 1);
	assert_int_equal(builders_wage(&s, SLAVE(1)), BUILDERS_FREED_WAGE);
	assert_true(has_move(&s, ANA, "take loan"));	/* the investment is still open */
	/* a freedman earns a wage and may carry a tool */
	PLAY(&s, ANA, "send freedman 1");
	assert_true(has_move(&s, ANA, "to pyramid with brush"));
	PLAY(&s, ANA, "to pyramid with brush");
	assert_int_equal(s.p[ANA].money, 10 - BUILDERS_FREED_WAGE);
	assert_true(logged("Ana frees a slave: Freedman 1"));
}

/*
 * Tools: "Por el coste fijo de 2 sestercios ... cuando envíes a un
 * trabajador a trabajar, puedes equiparlos con esa Herramienta sin tener
 * que pagar sestercios o una acción extra ... Un Trabajador o Liberto sólo
 * pueden equiparse con una única herramienta.  Una vez finalizada la
 * Construcción, la Herramienta ... volverán a tu equipo".  The worked
 * example: a Journeyman with the Hammer to the Lighthouse costs 1 action
 * and 4 sesterces.
 */
static void test_tool(void **state)
{
	struct builders_state s;
	struct move_list ml;
	int i, with_two = 0;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, LIGHTHOUSE);
	give_w(&s, ANA, JOU3);
	PLAY(&s, ANA, "buy tool");
	PLAY(&s, ANA, "buy hammer");
	assert_int_equal(s.p[ANA].money, 8);
	give_tool(&s, ANA, BRUSH);
	PLAY(&s, ANA, "send journeyman 3");
	assert_true(has_move(&s, ANA, "to lighthouse of alexandria with hammer"));
	assert_true(has_move(&s, ANA, "to lighthouse of alexandria with brush"));
	/* one tool per worker: no move carries two */
	builders_moves(&s, ANA, &ml);
	for (i = 0; i < ml.n; i++)
		with_two += ml.v[i].kind == BM_TO && ml.v[i].b > BUILDERS_TOOLS;
	assert_int_equal(with_two, 0);
	PLAY(&s, ANA, "to lighthouse of alexandria with hammer");
	assert_int_equal(s.used, 2);		/* the tool cost no action */
	assert_int_equal(s.p[ANA].money, 8 - 4);
	assert_int_equal(s.tat[HAMMER], JOU3);
	assert_int_equal(s.have[LIGHTHOUSE][BR_STONE], 2);	/* S1 + hammer */
	/* in use: the hammer goes nowhere else until the building is done */
	assert_int_equal(s.tidle[ANA], 1u << BRUSH);
}

/* Loans: "coges 10 Sestercios del Banco ... debes pagar 15 Sestercios por
 * cada carta de Préstamo ... de lo contrario se descontarán 2 puntos ...
 * Devolver un Préstamo no es una acción." */
static void test_loan(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	PLAY(&s, ANA, "take loan");
	assert_int_equal(s.p[ANA].money, 20);
	assert_int_equal(s.p[ANA].loans, 1);
	assert_int_equal(s.loan_pile, 3);
	assert_int_equal(s.used, 1);
	PLAY(&s, ANA, "take 6 sesterces");	/* 2 free + 1 extra */
	assert_int_equal(s.p[ANA].money, 21);
	assert_int_equal(builders_score(&s, ANA), 21 - 20);
	PLAY(&s, ANA, "repay loan");
	assert_int_equal(s.used, 4);		/* not an action */
	assert_int_equal(s.p[ANA].money, 6);
	assert_int_equal(s.p[ANA].loans, 0);
	assert_int_equal(s.loan_pile, 4);	/* back to the pile */
	assert_false(has_move(&s, ANA, "repay loan"));
}

/*
 * Universities: "Por el coste fijo de 7 Sestercios, puedes educar a uno de
 * tus Trabajadores disponibles ... Un nuevo nivel de Recursos sustituye a
 * uno antiguo, sin aumentar el coste del Trabajador ... sólo una vez".
 * The worked example: the educated Journeyman then goes to the Lighthouse
 * for 1 action and 4 sesterces.
 */
static void test_university(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, LIGHTHOUSE);
	give_w(&s, ANA, JOU3);			/* S1 W1 A1 D1 */
	give_w(&s, ANA, JOU1);			/* S3 A1 */
	set_money(&s, ANA, 20);
	PLAY(&s, ANA, "educate");
	/* a resource already at 3 gains nothing: not offered */
	assert_false(has_move(&s, ANA, "educate journeyman 1 in stone"));
	PLAY(&s, ANA, "educate journeyman 3 in wood");
	assert_int_equal(s.p[ANA].money, 13);
	assert_memory_equal(s.ures[JOU3], ((uint8_t[]){ 1, 3, 1, 1 }), BR_COUNT);
	assert_int_equal(s.uni[BR_WOOD], JOU3);
	assert_int_equal(builders_wage(&s, JOU3), 4);
	PLAY(&s, ANA, "send journeyman 3");
	PLAY(&s, ANA, "to lighthouse of alexandria");
	assert_int_equal(s.used, 2);
	assert_int_equal(s.p[ANA].money, 13 - 4);
	assert_int_equal(s.have[LIGHTHOUSE][BR_WOOD], 3);
	/* once only, and only workers not at work */
	PLAY(&s, ANA, "end turn");
	PLAY(&s, BEN, "end turn");
	PLAY(&s, ANA, "educate");
	assert_false(has_move(&s, ANA, "educate journeyman 3 in stone"));
	assert_false(has_move(&s, ANA, "educate journeyman 1 in wood"));	/* that university is taken */
	assert_true(has_move(&s, ANA, "educate journeyman 1 in architecture"));
}

/* A machine is treated as a worker: it may carry a tool and be educated
 * (docs/games/builders.md). */
static void test_machine_tool_and_university(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, SAW);
	give_b(&s, ANA, PYRAMID);
	s.bplace[SAW] = BP_DONE;
	s.uown[BU_MACHINE] = ANA;
	builders_recount(&s);
	check_ok(&s);
	give_tool(&s, ANA, HAMMER);
	set_money(&s, ANA, 20);
	PLAY(&s, ANA, "educate");
	PLAY(&s, ANA, "educate saw in decoration");
	assert_memory_equal(s.ures[BU_MACHINE], ((uint8_t[]){ 0, 3, 0, 3 }), BR_COUNT);
	PLAY(&s, ANA, "send saw");
	PLAY(&s, ANA, "to pyramid with hammer");
	assert_int_equal(s.p[ANA].money, 13);
}

/* ---- the end ---- */

/* "si el primer jugador gana 17 puntos de victoria en su turno, todos los
 * otros jugadores todavía podrán jugar su último turno": everybody ends
 * with as many turns. */
static void test_end_first_player(void **state)
{
	struct builders_state s;
	int i;

	(void)state;
	fresh(&s, 3, BEN);		/* Ben, Cy, Ana */
	give_b(&s, BEN, PYRAMID);
	give_b(&s, BEN, LIGHTHOUSE);
	give_b(&s, BEN, TEMPLE);
	give_w(&s, BEN, LAB1);
	s.bplace[PYRAMID] = s.bplace[LIGHTHOUSE] = BP_DONE;	/* 13 VP */
	builders_recount(&s);
	place(&s, LAB1, TEMPLE);	/* Temple W2 A2 D2, 3 VP: W1 D2 there */
	give_w(&s, BEN, MAS3);		/* W3 A2: completes it: 16 VP */
	give_w(&s, BEN, LAB4);
	give_b(&s, BEN, ARMORY);	/* S1 W1 A2, 2 VP */
	check_ok(&s);
	PLAY(&s, BEN, "send master 3");
	PLAY(&s, BEN, "to temple");
	assert_int_equal(s.p[BEN].vp, 16);
	PLAY(&s, BEN, "end turn");
	assert_false(s.ending);
	PLAY(&s, CY, "end turn");
	PLAY(&s, ANA, "end turn");
	assert_int_equal(s.round, 2);
	/* a sub-step may be left again */
	PLAY(&s, BEN, "send laborer 4");
	PLAY(&s, BEN, "back");
	assert_int_equal(s.step, BS_TURN);
	assert_int_equal(s.used, 0);
	PLAY(&s, BEN, "send laborer 4");
	assert_true(has_move(&s, BEN, "to armory"));
	PLAY(&s, BEN, "to armory");
	assert_int_equal(s.bplace[ARMORY], BP_BUILDING);	/* S1 A2: W1 missing */
	PLAY(&s, BEN, "send master 3");
	PLAY(&s, BEN, "to armory");
	assert_int_equal(s.p[BEN].vp, 18);
	PLAY(&s, BEN, "end turn");
	assert_true(s.ending);
	assert_true(logged("Ben ends the turn with 18 VP: the game ends after this round."));
	/* Cy and Ana still play */
	assert_int_equal(s.cur, CY);
	PLAY(&s, CY, "take 6 sesterces");
	PLAY(&s, CY, "end turn");
	assert_int_equal(s.cur, ANA);
	for (i = 0; i < 3; i++)
		assert_int_equal(s.step, BS_TURN);
	PLAY(&s, ANA, "end turn");
	/* nobody had anything to free or repay: over */
	assert_int_equal(s.step, BS_OVER);
	assert_int_equal(builders_awaiting(&s), 0);
}

/* "si es el último jugador quien desencadena el final del juego, el juego
 * termina inmediatamente al final de su turno". */
static void test_end_last_player(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 2, ANA);		/* Ana, then Ben: Ben is last */
	give_b(&s, BEN, PYRAMID);
	give_b(&s, BEN, LIGHTHOUSE);
	give_b(&s, BEN, ARMORY);
	s.bplace[PYRAMID] = s.bplace[LIGHTHOUSE] = s.bplace[ARMORY] = BP_DONE;	/* 15 */
	builders_recount(&s);
	give_b(&s, BEN, HOIST);
	give_w(&s, BEN, LAB3);		/* W2 A1 */
	give_w(&s, BEN, JOU2);		/* S1 A3 */
	place(&s, LAB3, HOIST);
	PLAY(&s, ANA, "end turn");
	PLAY(&s, BEN, "send journeyman 2");
	PLAY(&s, BEN, "to hoist");
	assert_int_equal(s.p[BEN].vp, 17);
	PLAY(&s, BEN, "end turn");
	assert_true(logged("the game ends now"));
	assert_int_equal(s.step, BS_OVER);
	assert_int_equal(s.round, 1);
}

/* A safety net: a game nobody plays to 17 VP stops after round 30. */
static void test_round_cap(void **state)
{
	struct builders_state s;
	int r;

	(void)state;
	fresh(&s, 2, BEN);
	for (r = 1; r <= BUILDERS_ROUND_CAP; r++) {
		assert_int_equal(s.round, r);
		PLAY(&s, BEN, "end turn");
		PLAY(&s, ANA, "end turn");
	}
	assert_int_equal(s.step, BS_OVER);
	assert_int_equal(s.round, BUILDERS_ROUND_CAP);
	assert_true(logged("Round 30 was the last one"));
}

/*
 * Final scoring: "Cada jugador, si no lo han hecho, puede liberar a sus
 * Esclavos y pagar sus Préstamos ... añade los puntos de victoria de los
 * Edificios y Máquinas acabadas, suman una décima de un punto (0,1) por
 * cada Sestercio ... En caso de empate, todos los jugadores empatados se
 * declaran ganadores."
 */
static void test_final_scoring(void **state)
{
	struct builders_state s;
	struct game_result res;

	(void)state;
	fresh(&s, 2, ANA);
	give_b(&s, ANA, PYRAMID);
	give_b(&s, ANA, LIGHTHOUSE);
	give_b(&s, ANA, TEMPLE);
	s.bplace[PYRAMID] = s.bplace[LIGHTHOUSE] = s.bplace[TEMPLE] = BP_DONE;	/* 16 VP */
	builders_recount(&s);
	give_b(&s, ANA, HOIST);
	give_w(&s, ANA, LAB3);
	give_w(&s, ANA, JOU2);
	place(&s, LAB3, HOIST);
	give_slave(&s, ANA, 1);
	give_slave(&s, ANA, 2);
	give_slave(&s, BEN, 3);
	give_b(&s, ANA, ARMORY);
	place(&s, SLAVE(2), ARMORY);	/* at work: cannot be freed */
	s.p[ANA].loans = 2;
	s.loan_pile = 1;
	s.p[BEN].loans = 1;
	set_money(&s, ANA, 30);
	set_money(&s, BEN, 2);
	check_ok(&s);
	PLAY(&s, ANA, "send journeyman 2");
	PLAY(&s, ANA, "to hoist");	/* 18 VP */
	PLAY(&s, ANA, "end turn");
	assert_true(s.ending);
	PLAY(&s, BEN, "end turn");
	/* Ana decides (Ben has 2 s: nothing he can pay) */
	assert_int_equal(s.step, BS_FINAL);
	assert_int_equal(s.cur, ANA);
	assert_true(has_move(&s, ANA, "free slave 1"));
	/* "Sólo un Esclavo disponible puede ser liberado", at the end too */
	assert_false(has_move(&s, ANA, "free slave 2"));
	REFUSED(&s, ANA, "free slave 2",
		"Slave 2 is at work on Armory: only a slave not at work can be freed.");
	assert_true(has_move(&s, ANA, "repay loan"));
	assert_true(has_move(&s, ANA, "done"));
	PLAY(&s, ANA, "free slave 1");
	assert_int_equal(s.p[ANA].money, 26 - 5);
	assert_true(has_move(&s, ANA, "done"));
	PLAY(&s, ANA, "repay loan");
	assert_int_equal(s.p[ANA].money, 6);
	/* 6 s left: nothing more she can free or repay, and Ben has nothing
	 * to decide either: the game is over without a `done` */
	assert_int_equal(s.step, BS_OVER);
	assert_int_equal(builders_result(&s, &res), 1);
	/* Ana: 18 VP + 0.6 - 1 slave - 2 loan = 15.6; Ben: 0.2 - 1 - 2 */
	assert_int_equal(res.score[ANA], 156);
	assert_int_equal(res.score[BEN], 2 - 10 - 20);
	assert_int_equal(res.winners, 1u << ANA);
	assert_int_equal(res.rank[BEN], 2);
}

/* A seat that could still pay may stop with `done`; the next seat that
 * can pay is asked, in turn order from the first player. */
static void test_final_done(void **state)
{
	struct builders_state s;

	(void)state;
	fresh(&s, 3, CY);		/* Cy, Ana, Ben */
	give_b(&s, CY, PYRAMID);
	give_b(&s, CY, LIGHTHOUSE);
	give_b(&s, CY, TEMPLE);
	give_b(&s, CY, ARMORY);
	s.bplace[PYRAMID] = s.bplace[LIGHTHOUSE] = s.bplace[TEMPLE] = s.bplace[ARMORY] = BP_DONE;
	builders_recount(&s);		/* 18 VP */
	s.p[CY].loans = 1;
	s.p[BEN].loans = 1;
	s.loan_pile = 2;
	set_money(&s, CY, 40);
	set_money(&s, ANA, 3);
	set_money(&s, BEN, 15);
	check_ok(&s);
	PLAY(&s, CY, "end turn");
	PLAY(&s, ANA, "end turn");
	PLAY(&s, BEN, "end turn");
	/* Cy first: she keeps her 40 sesterces and her loan */
	assert_int_equal(s.step, BS_FINAL);
	assert_int_equal(s.cur, CY);
	PLAY(&s, CY, "done");
	/* Ana (3 s, nothing to pay) is skipped; Ben repays with his 15 */
	assert_int_equal(s.cur, BEN);
	PLAY(&s, BEN, "repay loan");
	assert_int_equal(s.step, BS_OVER);
	assert_int_equal(builders_score(&s, CY), 180 + 40 - 20);
	assert_int_equal(builders_score(&s, BEN), 0);
}

static void test_tie_shares_the_win(void **state)
{
	struct builders_state s;
	struct game_result res;

	(void)state;
	fresh(&s, 3, ANA);
	give_b(&s, ANA, PYRAMID);
	give_b(&s, BEN, PYRAMID + 1);	/* Sphinx 6 VP */
	give_b(&s, BEN, QUARRY + 1);	/* Shipyard 2 VP */
	s.bplace[PYRAMID] = s.bplace[PYRAMID + 1] = s.bplace[QUARRY + 1] = BP_DONE;
	builders_recount(&s);
	set_money(&s, ANA, 13);
	set_money(&s, BEN, 13);
	set_money(&s, CY, 40);
	/* a finished game (here after the last round, as nobody had 17) */
	s.step = BS_OVER;
	s.cur = 0;
	s.round = BUILDERS_ROUND_CAP;
	check_ok(&s);
	assert_int_equal(builders_result(&s, &res), 1);
	assert_int_equal(res.score[ANA], 93);
	assert_int_equal(res.score[BEN], 93);
	assert_int_equal(res.score[CY], 40);
	assert_int_equal(res.winners, (1u << ANA) | (1u << BEN));
	assert_int_equal(res.rank[ANA], 1);
	assert_int_equal(res.rank[BEN], 1);
	assert_int_equal(res.rank[CY], 3);
}

/* ---- texts, secrets, persistence ---- */

static void test_secrets_are_the_next_cards(void **state)
{
	struct builders_state s;
	struct buf sec = BUF_INIT, tag = BUF_INIT, pub = BUF_INIT;
	struct game_view v = { LOC_EN, 2, names };
	struct rich r = RICH_INIT;

	(void)state;
	fresh(&s, 2, ANA);
	builders_secrets(&s, LOC_EN, &sec);
	builders_building_tag(s.bdeck[s.nbdeck - 1], LOC_EN, &tag);
	assert_non_null(strstr(buf_str(&sec), buf_str(&tag)));
	builders_render_public(&s, &v, &r);
	rich_to_plain(&r, &pub);
	assert_null(strstr(buf_str(&pub), buf_str(&tag)));
	/* the card comes up when a building is started: then it is public,
	 * and the secret is the card after it */
	{
		char id[64];

		snprintf(id, sizeof(id), "start %s", builders_buildings[s.brow[0]].id);
		PLAY(&s, ANA, id);
	}
	buf_reset(&pub);
	rich_release(&r);
	rich_init(&r);
	builders_render_public(&s, &v, &r);
	rich_to_plain(&r, &pub);
	assert_non_null(strstr(buf_str(&pub), buf_str(&tag)));
	buf_reset(&sec);
	builders_secrets(&s, LOC_EN, &sec);
	assert_null(strstr(buf_str(&sec), buf_str(&tag)));
	buf_release(&sec);
	buf_release(&tag);
	buf_release(&pub);
	rich_release(&r);
}

static void test_determinize_only_decks(void **state)
{
	struct builders_state s, d;
	struct rng r;
	int changed = 0, k;

	(void)state;
	fresh(&s, 3, CY);
	rng_seed(&r, 5, 5);
	for (k = 0; k < 20; k++) {
		memcpy(&d, &s, sizeof(d));
		builders_determinize(&d, ANA, &r);
		check_ok(&d);
		changed += memcmp(d.bdeck, s.bdeck, sizeof(s.bdeck)) != 0;
		/* nothing else moved */
		assert_memory_equal(d.brow, s.brow, sizeof(s.brow));
		assert_memory_equal(d.wrow, s.wrow, sizeof(s.wrow));
		assert_memory_equal(d.uown, s.uown, sizeof(s.uown));
		assert_memory_equal(d.p, s.p, sizeof(s.p));
		assert_int_equal(d.nbdeck, s.nbdeck);
		assert_int_equal(d.nwdeck, s.nwdeck);
	}
	assert_true(changed > 15);
}

static void test_save_load(void **state)
{
	struct builders_state s, t;
	struct buf err = BUF_INIT;
	json_t *j, *k, *bad;

	(void)state;
	fresh(&s, 4, DEE);
	give_b(&s, DEE, PYRAMID);
	give_w(&s, DEE, JOU3);
	give_tool(&s, DEE, SQUARE);
	PLAY(&s, DEE, "send journeyman 3");
	PLAY(&s, DEE, "to pyramid with square");
	PLAY(&s, DEE, "take loan");
	j = builders_save(&s);
	memset(&t, 0, sizeof(t));
	assert_int_equal(builders_load(&t, j, &err), 0);
	assert_memory_equal(&s, &t, sizeof(s));
	k = builders_save(&t);
	assert_true(json_equal(j, k));
	/* inconsistent: money not conserved */
	bad = json_deep_copy(j);
	json_object_set_new(json_array_get(json_object_get(bad, "seats"), 0), "money",
			    json_integer(50));
	assert_int_equal(builders_load(&t, bad, &err), -1);
	assert_non_null(strstr(buf_str(&err), "money"));
	json_decref(bad);
	/* a building twice: in the row and owned */
	bad = json_deep_copy(j);
	json_array_set_new(json_object_get(bad, "building_owner"), s.brow[0], json_integer(1));
	assert_int_equal(builders_load(&t, bad, &err), -1);
	json_decref(bad);
	/* a unit at work on a building it does not own */
	bad = json_deep_copy(j);
	json_array_set_new(json_object_get(bad, "unit_at"), apprentice(&s, ANA), json_integer(PYRAMID));
	assert_int_equal(builders_load(&t, bad, &err), -1);
	json_decref(bad);
	/* a second investment's sub-step in the same turn */
	bad = json_deep_copy(j);
	json_object_set_new(bad, "step", json_string("tool"));
	assert_int_equal(builders_load(&t, bad, &err), -1);
	json_decref(bad);
	/* a tool's sub-step the seat cannot pay (0 sesterces): found by
	 * fuzz_game_load, whose apply() then wrapped the money around */
	bad = json_loads(
		"{\"v\":1,\"game\":\"builders\",\"players\":2,\"step\":\"tool\",\"first\":1,\"cur"
		"rent\":0,\"round\":3,\"ending\":0,\"dealt\":[3,0],\"actions_used\":2,\"invested\""
		":0,\"pending_unit\":-1,\"sent\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
		",0,0,0,0,0,0,0,0,0],\"building_deck\":[24,21,17,19,16,28,9,22,6,11,26,31,25,23,2"
		",1],\"building_row\":[30,20,12,13,32],\"worker_deck\":[17,7,6,16,2,9,14,11,4,5],"
		"\"worker_row\":[13,15,10,8,12],\"building_owner\":[1,-1,-1,0,0,0,-1,0,0,-1,0,-1,"
		"-1,-1,0,1,-1,-1,0,-1,-1,-1,-1,-1,-1,-1,-1,0,-1,0,-1,-1,-1],\"building_place\":[3"
		",0,0,2,2,2,0,2,2,0,2,0,1,1,2,2,0,0,2,0,1,0,0,0,0,0,0,2,0,2,1,0,1],\"unit_owner\""
		":[1,1,-1,0,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,1,-1,1,-1,-1,-1,-1,-1,-1,-1"
		"],\"unit_at\":[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,15,-1,15,-1"
		",-1,-1,-1,-1,-1,-1],\"freed\":[0,0,0,0,0,0],\"tool_owner\":[-1,-1,-1,-1],\"tool_"
		"on\":[-1,-1,-1,-1],\"university_on\":[-1,-1,-1,-1],\"loan_pile\":4,\"bank\":106,"
		"\"seats\":[{\"money\":0,\"loans\":0},{\"money\":2,\"loans\":0}],\"rng\":{\"state"
		"\":\"0b196a98ebc5ff48\",\"inc\":\"84ead2d8c8cae4e7\"}}", 0, NULL);
	assert_non_null(bad);
	assert_int_equal(builders_load(&t, bad, &err), -1);
	assert_non_null(strstr(buf_str(&err), "cannot pay"));
	json_decref(bad);
	/* wrong types and versions */
	bad = json_deep_copy(j);
	json_object_set_new(bad, "v", json_integer(2));
	assert_int_equal(builders_load(&t, bad, &err), -1);
	json_decref(bad);
	bad = json_deep_copy(j);
	json_object_set_new(bad, "round", json_string("3"));
	assert_int_equal(builders_load(&t, bad, &err), -1);
	json_decref(bad);
	json_decref(j);
	json_decref(k);
	buf_release(&err);
}

static void test_texts(void **state)
{
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT, names_en = BUF_INIT;
	const char *const topics[] = { "overview", "setup", "turn", "send", "complete",
				       "investments", "ending", "scoring" };
	size_t i;
	int l;

	(void)state;
	for (l = 0; l < LOC_COUNT; l++)
		for (i = 0; i < sizeof(topics) / sizeof(*topics); i++) {
			rich_init(&r);
			assert_int_equal(builders_rules(topics[i], (enum locale)l, &r), 0);
			rich_release(&r);
		}
	rich_init(&r);
	assert_int_equal(builders_rules("Inversiones", LOC_ES, &r), 0);
	rich_release(&r);
	rich_init(&r);
	assert_int_equal(builders_rules("nonsense", LOC_EN, &r), -1);
	rich_release(&r);
	/* card names in either language, accents ignored */
	rich_init(&r);
	assert_int_equal(builders_card("piramide", NULL, LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "18 sesterces and 8 VP"));
	rich_release(&r);
	buf_reset(&b);
	rich_init(&r);
	assert_int_equal(builders_card("Faro de Alejandria", NULL, LOC_ES, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "14 sestercios y 5 PV"));
	rich_release(&r);
	buf_reset(&b);
	rich_init(&r);
	assert_int_equal(builders_card("compañero", NULL, LOC_EN, &r), 0);
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "Wage: 4"));
	rich_release(&r);
	buf_reset(&b);
	rich_init(&r);
	assert_int_equal(builders_card("liberto", NULL, LOC_EN, &r), 0);
	/* the Freedman's own text: a wage, never "no wage" (issue 25) */
	rich_to_plain(&r, &b);
	assert_non_null(strstr(buf_str(&b), "earns a wage of 5"));
	assert_null(strstr(buf_str(&b), "no wage"));
	rich_release(&r);
	buf_reset(&b);
	rich_init(&r);
	assert_int_equal(builders_card("casa", NULL, LOC_EN, &r), 0);	/* exact beats prefix */
	rich_release(&r);
	rich_init(&r);
	assert_int_equal(builders_card("no such thing", NULL, LOC_EN, &r), -1);
	rich_release(&r);
	builders_card_names(LOC_EN, &names_en);
	assert_non_null(strstr(buf_str(&names_en), "Hanging Gardens\n"));
	assert_non_null(strstr(buf_str(&names_en), "University\n"));
	buf_release(&b);
	buf_release(&names_en);
}

/* Labels say what each action costs now, in both languages. */
static void test_labels(void **state)
{
	struct builders_state s;
	struct move_list ml;
	struct buf b = BUF_INIT;
	int i;

	(void)state;
	fresh(&s, 2, ANA);
	PLAY(&s, ANA, "take 3 sesterces");
	builders_moves(&s, ANA, &ml);
	for (i = 0; i < ml.n; i++)
		if (ml.v[i].kind == BM_START) {
			buf_reset(&b);
			builders_move_label(&s, ANA, ml.v[i], LOC_EN, &b);
			assert_non_null(strstr(buf_str(&b), "uses your last free action"));
			buf_reset(&b);
			builders_move_label(&s, ANA, ml.v[i], LOC_ES, &b);
			assert_non_null(strstr(buf_str(&b), "usa tu última acción libre"));
		}
	PLAY(&s, ANA, "take 1 sesterce");
	builders_moves(&s, ANA, &ml);
	for (i = 0; i < ml.n; i++)
		if (ml.v[i].kind == BM_HIRE) {
			buf_reset(&b);
			builders_move_label(&s, ANA, ml.v[i], LOC_EN, &b);
			assert_non_null(strstr(buf_str(&b), "1 extra action: 5 s"));
		}
	buf_reset(&b);
	builders_prompt(&s, ANA, LOC_EN, &b);
	assert_non_null(strstr(buf_str(&b), "0 free actions left, 14 s"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_setup_refuses),
		cmocka_unit_test(test_free_and_extra_actions),
		cmocka_unit_test(test_take_with_paid_actions),
		cmocka_unit_test(test_no_action_no_money),
		cmocka_unit_test(test_start_building),
		cmocka_unit_test(test_hire_worker),
		cmocka_unit_test(test_wages_by_rank),
		cmocka_unit_test(test_second_and_third_worker),
		cmocka_unit_test(test_send_needs_money),
		cmocka_unit_test(test_refusals_say_why),
		cmocka_unit_test(test_lighthouse_completed),
		cmocka_unit_test(test_worker_stays),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_each_machine),
		cmocka_unit_test(test_one_investment_a_turn),
		cmocka_unit_test(test_slave),
		cmocka_unit_test(test_free_slave),
		cmocka_unit_test(test_tool),
		cmocka_unit_test(test_loan),
		cmocka_unit_test(test_university),
		cmocka_unit_test(test_machine_tool_and_university),
		cmocka_unit_test(test_end_first_player),
		cmocka_unit_test(test_end_last_player),
		cmocka_unit_test(test_round_cap),
		cmocka_unit_test(test_final_scoring),
		cmocka_unit_test(test_final_done),
		cmocka_unit_test(test_tie_shares_the_win),
		cmocka_unit_test(test_secrets_are_the_next_cards),
		cmocka_unit_test(test_determinize_only_decks),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_labels),
	};
	int rc = cmocka_run_group_tests_name("builders", tests, NULL, NULL);

	buf_release(&logbuf);
	return rc;
}
