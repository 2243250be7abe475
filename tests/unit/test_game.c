/*
 * The generic game layer (forgiving parsing, registry) and the contract
 * every registered game must keep: save/load round trip, replay equality,
 * nothing hidden in the public board, seeded AI games always end with the
 * game's invariants holding after every move.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "util/text.h"

/* ---- a toy game, to test parsing apart from any real game ---- */

struct toy {
	int awaited;
	int last;
};

static const char *const toy_ids[] = { "take water", "take wine", "sell wine", "pass" };
static const char *const toy_es[] = { "Tomar agua", "Tomar vino", "Vender vino", "Pasar" };

static unsigned toy_awaiting(const void *st)
{
	return 1u << ((const struct toy *)st)->awaited;
}

static int toy_moves(const void *st, int seat, struct move_list *out)
{
	int i;

	out->n = 0;
	out->nmeta = 0;
	if (!(toy_awaiting(st) & (1u << seat)))
		return 0;
	for (i = 0; i < 4; i++)
		out->v[out->n++] = (struct move){ .kind = (uint16_t)i };
	return out->n;
}

static void toy_id(const void *st, int seat, struct move m, struct buf *out)
{
	buf_addstr(out, toy_ids[m.kind]);
}

static void toy_label(const void *st, int seat, struct move m, enum locale loc, struct buf *out)
{
	buf_addstr(out, loc == LOC_ES ? toy_es[m.kind] : toy_ids[m.kind]);
}

static int toy_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	((struct toy *)st)->last = m.kind;
	return 0;
}

static const struct game_ops toy_ops = {
	.api_version = GAME_API_VERSION,
	.id = "toy",
	.min_players = 2,
	.max_players = 2,
	.state_size = sizeof(struct toy),
	.awaiting = toy_awaiting,
	.moves = toy_moves,
	.move_id = toy_id,
	.move_label = toy_label,
	.apply = toy_apply,
};

static int parse(const char *text, int seat, struct buf *err)
{
	struct toy t = { 0, -1 };
	struct move m;

	buf_reset(err);
	if (game_parse(&toy_ops, &t, seat, text, LOC_EN, &m, err))
		return -1;
	return m.kind;
}

static void test_parse(void **state)
{
	struct buf err = BUF_INIT;

	assert_int_equal(parse("take water", 0, &err), 0);
	assert_int_equal(parse("  TAKE   Water ", 0, &err), 0);
	assert_int_equal(parse("take_wine", 0, &err), 1);
	assert_int_equal(parse("sell", 0, &err), 2);		/* unique prefix */
	assert_int_equal(parse("Tomar agua", 0, &err), 0);	/* Spanish label */
	assert_int_equal(parse("vender", 0, &err), 2);
	assert_int_equal(parse("pása", 0, &err), 3);		/* accents ignored */
	assert_int_equal(parse("4", 0, &err), 3);		/* line number */
	/* ambiguous: both candidates listed */
	assert_int_equal(parse("take", 0, &err), -1);
	assert_non_null(strstr(buf_str(&err), "take water"));
	assert_non_null(strstr(buf_str(&err), "take wine"));
	assert_int_equal(parse("tomar", 0, &err), -1);
	assert_int_equal(parse("fly", 0, &err), -1);
	assert_non_null(strstr(buf_str(&err), "fly"));
	assert_int_equal(parse("9", 0, &err), -1);
	assert_int_equal(parse("", 0, &err), -1);
	/* seat 1 is not awaited */
	assert_int_equal(parse("pass", 1, &err), -1);
	assert_non_null(strstr(buf_str(&err), "not your turn"));
	assert_int_equal(parse("pass", -1, &err), -1);
	/* a whole line pasted from `moves`: number, id, em dash, label */
	assert_int_equal(parse(" 3. sell wine  \xe2\x80\x94 Vender vino", 0, &err), 2);
	assert_int_equal(parse("sell wine \xe2\x80\x94 sell wine", 0, &err), 2);
	assert_int_equal(parse("2. take wine", 0, &err), 1);	/* number and id */
	assert_int_equal(parse("4) Pasar", 0, &err), 3);	/* number and label */
	assert_int_equal(parse("\xe2\x80\x94 Tomar agua", 0, &err), 0);	/* label only */
	/* the id wins over a stale number */
	assert_int_equal(parse("1. pass", 0, &err), 3);
	/* an id and a label of two different moves: refused, nothing guessed */
	assert_int_equal(parse("take water \xe2\x80\x94 Pasar", 0, &err), -1);
	assert_non_null(strstr(buf_str(&err), "do not match"));
	assert_int_equal(parse("9. fly \xe2\x80\x94 away", 0, &err), -1);
	buf_release(&err);
}

/* ---- save() and load() by a table of fields ---- */

struct fields_toy {
	uint8_t small, maybe, step;
	uint16_t wide;
	int32_t bank;
	uint8_t fixed[3], row[2], deck[4], ndeck, seats[4], grid[2][3];
};

static const char *const fields_steps[] = { "draw", "play", NULL, "end" };

#define T(f) offsetof(struct fields_toy, f)

static const struct game_field toy_fields[] = {
	GAME_U8("small", T(small), 9),
	GAME_U8_OR_NONE("maybe", T(maybe), 5),
	GAME_NAME("step", T(step), fields_steps, 4),
	GAME_U16("wide", T(wide), 1000),
	GAME_I32("bank", T(bank), -50, 108),
	GAME_FIXED("fixed", T(fixed), 3, 7),
	GAME_FIXED_OR_NONE("row", T(row), 2, 7),
	GAME_COUNTED("deck", T(deck), 4, T(ndeck), 20),
	GAME_SEATS("seats", T(seats), 3),
	GAME_GRID("grid", T(grid), 2, 3, 1),
};

#define NTOY (sizeof(toy_fields) / sizeof(toy_fields[0]))

/* Loads text into *out: 0, or -1 with *bad the field refused. */
static int fields_load_text(const char *text, struct fields_toy *out, const char **bad)
{
	const struct game_field *f = NULL;
	json_t *j = json_loads(text, 0, NULL);
	int r;

	assert_non_null(j);
	memset(out, 0, sizeof(*out));
	r = game_fields_load(j, out, toy_fields, NTOY, 2, &f);
	*bad = r ? f->name : NULL;
	json_decref(j);
	return r;
}

static void test_fields_round_trip_and_ranges(void **state)
{
	static const char good[] =
		"{\"small\": 9, \"maybe\": -1, \"step\": \"end\", \"wide\": 1000, "
		"\"bank\": -50, \"fixed\": [0, 7, 3], \"row\": [-1, 7], \"deck\": [20, 1], "
		"\"seats\": [3, 0], \"grid\": [[1, 0, 1], [0, 0, 1]], \"unknown\": 1}";
	static const struct { const char *from, *to, *field; } bad[] = {
		{ "\"small\": 9", "\"small\": 10", "small" },
		{ "\"small\": 9", "\"small\": -1", "small" },
		{ "\"small\": 9", "\"smal\": 9", "small" },
		{ "\"maybe\": -1", "\"maybe\": -2", "maybe" },
		{ "\"step\": \"end\"", "\"step\": \"over\"", "step" },
		{ "\"step\": \"end\"", "\"step\": 3", "step" },
		{ "\"wide\": 1000", "\"wide\": 1001", "wide" },
		{ "\"bank\": -50", "\"bank\": -51", "bank" },
		{ "\"fixed\": [0, 7, 3]", "\"fixed\": [0, 7]", "fixed" },
		{ "\"fixed\": [0, 7, 3]", "\"fixed\": [0, -1, 3]", "fixed" },
		{ "\"deck\": [20, 1]", "\"deck\": [1, 2, 3, 4, 5]", "deck" },
		{ "\"seats\": [3, 0]", "\"seats\": [3, 0, 1]", "seats" },
		{ "[[1, 0, 1], [0, 0, 1]]", "[[1, 0, 1]]", "grid" },
		{ "[[1, 0, 1], [0, 0, 1]]", "[[1, 0, 1], [0, 2, 1]]", "grid" },
	};
	struct fields_toy t;
	const char *why;
	json_t *j;
	char *text;
	size_t i;

	(void)state;
	assert_int_equal(fields_load_text(good, &t, &why), 0);
	assert_int_equal(t.small, 9);
	assert_int_equal(t.maybe, GAME_FIELD_NONE);
	assert_int_equal(t.step, 3);
	assert_int_equal(t.wide, 1000);
	assert_int_equal(t.bank, -50);
	assert_int_equal(t.row[0], GAME_FIELD_NONE);
	assert_int_equal(t.ndeck, 2);
	assert_int_equal(t.deck[0], 20);
	assert_int_equal(t.grid[1][2], 1);
	/* and back: the same JSON, less the key nobody knows */
	j = json_object();
	game_fields_save(j, &t, toy_fields, NTOY, 2);
	text = json_dumps(j, JSON_COMPACT);
	assert_string_equal(text, "{\"small\":9,\"maybe\":-1,\"step\":\"end\",\"wide\":1000,"
			    "\"bank\":-50,\"fixed\":[0,7,3],\"row\":[-1,7],\"deck\":[20,1],"
			    "\"seats\":[3,0],\"grid\":[[1,0,1],[0,0,1]]}");
	free(text);
	json_decref(j);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct buf b = BUF_INIT;
		const char *at = strstr(good, bad[i].from);

		assert_non_null(at);
		buf_add(&b, good, (size_t)(at - good));
		buf_addstr(&b, bad[i].to);
		buf_addstr(&b, at + strlen(bad[i].from));
		assert_int_equal(fields_load_text(buf_str(&b), &t, &why), -1);
		assert_string_equal(why, bad[i].field);
		buf_release(&b);
	}
}

static void test_registry(void **state)
{
	const struct game_ops *const *all = game_all();
	const struct game_ops *f = game_find("fortuna");
	size_t i, k;

	assert_non_null(f);
	assert_ptr_equal(game_find("FORTUNA"), f);
	assert_null(game_find("chess"));
	assert_null(game_find(NULL));
	for (i = 0; all[i]; i++) {
		assert_int_equal(all[i]->api_version, GAME_API_VERSION);
		assert_ptr_equal(game_find(all[i]->id), all[i]);
		for (k = 0; all[i]->aliases && all[i]->aliases[k]; k++)
			assert_ptr_equal(game_find(all[i]->aliases[k]), all[i]);
		for (k = 0; k < LOC_COUNT; k++)
			assert_ptr_equal(game_find(all[i]->name[k]), all[i]);
		/* every required slot is filled */
		assert_non_null(all[i]->setup);
		assert_non_null(all[i]->awaiting);
		assert_non_null(all[i]->moves);
		assert_non_null(all[i]->move_id);
		assert_non_null(all[i]->move_label);
		assert_non_null(all[i]->apply);
		assert_non_null(all[i]->prompt);
		assert_non_null(all[i]->render_public);
		assert_non_null(all[i]->render_private);
		assert_non_null(all[i]->save);
		assert_non_null(all[i]->load);
		assert_non_null(all[i]->result);
		assert_non_null(all[i]->bot_move);
	}
}

/* ---- the contract, over every registered game ---- */

#define MAX_MOVES_PER_GAME 20000
#define GAMES_PER_GAME 1000
/* under `make asan` (TABULA_TEST_SCANS=0: the plain pass has just played
 * the thousand) a fifth of them: the same code, five times over */
static int games_per_game(void)
{
	const char *e = getenv("TABULA_TEST_SCANS");

	return e && !strcmp(e, "0") ? GAMES_PER_GAME / 5 : GAMES_PER_GAME;
}
#define DEEP_CHECKS 40		/* games checked at every move for hidden text, replay, ids */

struct record {
	int seat;
	char move[256];
};

static void check_no_secrets(const struct game_ops *g, const void *st, int nseats)
{
	static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal" };
	int l;

	for (l = 0; l < LOC_COUNT; l++) {
		struct game_view v = { (enum locale)l, nseats, names };
		struct rich r = RICH_INIT;
		struct buf pub = BUF_INIT, sec = BUF_INIT;
		const char *p;

		g->render_public(st, &v, &r);
		rich_to_plain(&r, &pub);
		if (g->secrets) {
			g->secrets(st, (enum locale)l, &sec);
			for (p = buf_str(&sec); *p;) {
				const char *nl = strchr(p, '\n');
				size_t n = nl ? (size_t)(nl - p) : strlen(p);
				char *needle = strndup(p, n);

				if (n && strstr(buf_str(&pub), needle))
					fail_msg("%s: hidden \"%s\" appears on the public board:\n%s",
						 g->id, needle, buf_str(&pub));
				free(needle);
				p += n + (nl ? 1 : 0);
			}
		}
		rich_release(&r);
		buf_release(&pub);
		buf_release(&sec);
	}
}

static void check_roundtrip(const struct game_ops *g, const void *st)
{
	json_t *a = g->save(st), *b;
	void *copy = game_state_new(g);
	struct buf err = BUF_INIT;
	char *text = json_dumps(a, JSON_COMPACT);
	json_t *parsed = json_loads(text, 0, NULL);

	if (g->load(copy, parsed, &err))
		fail_msg("%s: load of its own save failed: %s", g->id, buf_str(&err));
	b = g->save(copy);
	assert_true(json_equal(a, b));
	assert_int_equal(g->awaiting(copy), g->awaiting(st));
	json_decref(a);
	json_decref(b);
	json_decref(parsed);
	free(text);
	free(copy);
	buf_release(&err);
}

static void check_replay(const struct game_ops *g, const void *live, int n, uint64_t seed,
			 const struct record *rec, int nrec)
{
	void *st = game_state_new(g);
	struct buf err = BUF_INIT;
	json_t *a, *b;
	int i;

	assert_int_equal(g->setup(st, n, seed, "", &err), 0);
	for (i = 0; i < nrec; i++)
		if (game_play(g, st, rec[i].seat, rec[i].move, NULL, LOC_EN, &err))
			fail_msg("%s: replay of move %d '%s' failed: %s", g->id, i, rec[i].move,
				 buf_str(&err));
	a = g->save(st);
	b = g->save(live);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	free(st);
	buf_release(&err);
}

/* Every listed move's id parses back to that very move. */
static void check_ids(const struct game_ops *g, const void *st, int seat)
{
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf id = BUF_INIT, err = BUF_INIT;
	int i;

	g->moves(st, seat, ml);
	for (i = 0; i < ml->n; i++) {
		struct move m;

		buf_reset(&id);
		g->move_id(st, seat, ml->v[i], &id);
		if (game_parse(g, st, seat, buf_str(&id), LOC_EN, &m, &err))
			fail_msg("%s: id '%s' does not parse: %s", g->id, buf_str(&id), buf_str(&err));
		assert_memory_equal(&m, &ml->v[i], sizeof(m));
	}
	free(ml);
	buf_release(&id);
	buf_release(&err);
}

/* The labels people see: without names, game_move_label is move_label;
 * with names, a label names a seat only by its name, never as "Seat n". */
static void check_labels(const struct game_ops *g, const void *st, int seat, int nseats)
{
	static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal" };
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf a = BUF_INIT, b = BUF_INIT;
	int i, l;

	g->moves(st, seat, ml);
	for (l = 0; l < LOC_COUNT; l++) {
		struct game_view bare = { (enum locale)l, nseats, NULL };
		struct game_view named = { (enum locale)l, nseats, names };

		for (i = 0; i < ml->n; i++) {
			buf_reset(&a);
			buf_reset(&b);
			g->move_label(st, seat, ml->v[i], (enum locale)l, &a);
			game_move_label(g, st, seat, ml->v[i], &bare, &b);
			assert_string_equal(buf_str(&a), buf_str(&b));
			buf_reset(&b);
			game_move_label(g, st, seat, ml->v[i], &named, &b);
			assert_true(b.len > 0);
			if (g->move_label_view && strstr(buf_str(&b), "Seat "))
				fail_msg("%s: a label with names still says \"Seat\": %s", g->id, buf_str(&b));
		}
	}
	free(ml);
	buf_release(&a);
	buf_release(&b);
}

static void play_one(const struct game_ops *g, int n, uint64_t seed, int deep, int random_moves)
{
	void *st = game_state_new(g);
	struct record *rec = deep ? calloc(MAX_MOVES_PER_GAME, sizeof(*rec)) : NULL;
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT, id = BUF_INIT;
	struct game_result res;
	struct rng r;
	int moves = 0;

	rng_seed(&r, seed, 99);
	if (g->setup(st, n, seed, "", &err))
		fail_msg("%s: setup(%d) failed: %s", g->id, n, buf_str(&err));
	while (g->awaiting(st)) {
		unsigned aw = g->awaiting(st);
		int seat = 0;
		struct move m;

		while (!(aw & (1u << seat)))
			seat++;
		assert_in_range(seat, 0, n - 1);
		if (random_moves) {
			g->moves(st, seat, ml);
			assert_true(ml->n - ml->nmeta > 0);	/* never only a resignation */
			m = ml->v[rng_below(&r, (uint32_t)(ml->n - ml->nmeta))];
		} else if (g->bot_move(st, seat, &r, &m)) {
			fail_msg("%s: bot_move failed for awaited seat %d", g->id, seat);
		}
		if (deep) {
			check_ids(g, st, seat);
			check_labels(g, st, seat, n);
			buf_reset(&id);
			g->move_id(st, seat, m, &id);
			rec[moves].seat = seat;
			snprintf(rec[moves].move, sizeof(rec[moves].move), "%s", buf_str(&id));
		}
		if (g->apply(st, seat, m, NULL, &err))
			fail_msg("%s: a listed move was refused: %s", g->id, buf_str(&err));
		if (g->check && g->check(st, &err))
			fail_msg("%s seed %llu move %d: invariant broken: %s", g->id,
				 (unsigned long long)seed, moves, buf_str(&err));
		if (deep) {
			check_no_secrets(g, st, n);
			if (moves % 25 == 0)
				check_roundtrip(g, st);
		}
		if (++moves >= MAX_MOVES_PER_GAME)
			fail_msg("%s: seed %llu did not end in %d moves", g->id,
				 (unsigned long long)seed, moves);
	}
	assert_int_equal(g->result(st, &res), 1);
	assert_int_equal(res.nseats, n);
	check_roundtrip(g, st);
	if (deep)
		check_replay(g, st, n, seed, rec, moves);
	free(rec);
	free(ml);
	free(st);
	buf_release(&err);
	buf_release(&id);
}

static void test_contract_ai_games(void **state)
{
	const struct game_ops *const *all = game_all();
	size_t i;
	int k, n = games_per_game();

	for (i = 0; all[i]; i++) {
		const struct game_ops *g = all[i];
		int span = g->max_players - g->min_players + 1;

		for (k = 0; k < n; k++)
			play_one(g, g->min_players + k % span, 1000u + (uint64_t)k,
				 k < DEEP_CHECKS, 0);
	}
}

static void test_contract_random_games(void **state)
{
	const struct game_ops *const *all = game_all();
	size_t i;
	int k, n = games_per_game();

	for (i = 0; all[i]; i++) {
		const struct game_ops *g = all[i];
		int span = g->max_players - g->min_players + 1;

		for (k = 0; k < n; k++)
			play_one(g, g->min_players + k % span, 777000u + (uint64_t)k, k < 10, 1);
	}
}

static int listed(const struct move_list *ml, struct move m)
{
	int i;

	for (i = 0; i < ml->n; i++)
		if (ml->v[i].kind == m.kind && ml->v[i].a == m.a && ml->v[i].b == m.b &&
		    ml->v[i].c == m.c)
			return 1;
	return 0;
}

/*
 * apply() accepts exactly the listed moves: the cores check legality
 * directly (not by rebuilding the list), so the two must agree.  At every
 * decision of seeded random games, the listed moves and perturbations of
 * them (each field +-1, other seats, random values) are tried on a copy; a
 * refused move leaves the state untouched.
 */
static void test_contract_apply_matches_moves(void **state)
{
	const struct game_ops *const *all = game_all();
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT;
	size_t gi;
	int k;

	for (gi = 0; all[gi]; gi++) {
		const struct game_ops *g = all[gi];
		void *st = game_state_new(g), *copy = game_state_new(g);

		for (k = 0; k < 30; k++) {
			int n = g->min_players + k % (g->max_players - g->min_players + 1);
			struct rng r;
			int moves = 0;

			memset(st, 0, g->state_size);
			rng_seed(&r, 4242u + (uint64_t)k, 7);
			if (g->setup(st, n, 4242u + (uint64_t)k, "", &err))
				fail_msg("%s: setup failed: %s", g->id, buf_str(&err));
			while (g->awaiting(st) && moves++ < MAX_MOVES_PER_GAME) {
				unsigned aw = g->awaiting(st);
				int seat, t, i;

				for (seat = 0; seat < n; seat++) {
					struct move_list *mine = malloc(sizeof(*mine));

					g->moves(st, seat, mine);
					for (t = 0; t < mine->n * 6 + 12; t++) {
						struct move m;
						int ok, want;

						if (mine->n && t < mine->n * 6) {
							m = mine->v[t / 6];
							switch (t % 6) {
							case 1: m.kind++; break;
							case 2: m.a++; break;
							case 3: m.b++; break;
							case 4: m.c++; break;
							case 5: m.a = (uint16_t)(m.a - 1); break;
							default: break;
							}
						} else {
							m.kind = (uint16_t)rng_below(&r, 40);
							m.a = (uint16_t)rng_below(&r, 64);
							m.b = (uint16_t)rng_below(&r, 64);
							m.c = (uint16_t)rng_below(&r, 64);
						}
						want = (aw & (1u << seat)) && listed(mine, m);
						memcpy(copy, st, g->state_size);
						ok = !g->apply(copy, seat, m, NULL, &err);
						if (ok != want)
							fail_msg("%s seed %d move %d seat %d: apply %s a move "
								 "{%u,%u,%u,%u} that is %slisted", g->id, k,
								 moves, seat, ok ? "accepted" : "refused",
								 m.kind, m.a, m.b, m.c, want ? "" : "not ");
						if (!ok && memcmp(copy, st, g->state_size))
							fail_msg("%s: a refused move changed the state", g->id);
					}
					free(mine);
				}
				for (i = 0; !(aw & (1u << i)); i++)
					;
				g->moves(st, i, ml);
				if (g->apply(st, i, ml->v[rng_below(&r, (uint32_t)(ml->n - ml->nmeta))],
					     NULL, &err))
					fail_msg("%s: a listed move was refused", g->id);
			}
		}
		free(st);
		free(copy);
	}
	free(ml);
	buf_release(&err);
}

/*
 * Every line of the `moves` list, pasted whole as the bot prints it
 * (" N. id  — label"), parses back to its move, in both languages, at
 * every decision of seeded random games of every game.
 */
static void test_contract_pasted_lines(void **state)
{
	const struct game_ops *const *all = game_all();
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT, id = BUF_INIT, label = BUF_INIT, line = BUF_INIT;
	size_t gi;
	int k;

	for (gi = 0; all[gi]; gi++) {
		const struct game_ops *g = all[gi];
		void *st = game_state_new(g);

		for (k = 0; k < 6; k++) {
			int n = g->min_players + k % (g->max_players - g->min_players + 1);
			int moves = 0;
			struct rng r;

			memset(st, 0, g->state_size);
			rng_seed(&r, 77u + (uint64_t)k, 3);
			if (g->setup(st, n, 77u + (uint64_t)k, "", &err))
				fail_msg("%s: setup failed: %s", g->id, buf_str(&err));
			while (g->awaiting(st) && moves++ < 400) {
				unsigned aw = g->awaiting(st);
				int seat, i, l;

				for (seat = 0; !(aw & (1u << seat)); seat++)
					;
				g->moves(st, seat, ml);
				for (i = 0; i < ml->n; i++) {
					for (l = 0; l < LOC_COUNT; l++) {
						struct move m;

						buf_reset(&id);
						buf_reset(&label);
						buf_reset(&line);
						g->move_id(st, seat, ml->v[i], &id);
						g->move_label(st, seat, ml->v[i], (enum locale)l, &label);
						buf_printf(&line, "%2d. %s", i + 1, buf_str(&id));
						if (strcmp(buf_str(&id), buf_str(&label)))
							buf_printf(&line, "  \xe2\x80\x94 %s", buf_str(&label));
						if (game_parse(g, st, seat, buf_str(&line), (enum locale)l,
							       &m, &err))
							fail_msg("%s: pasted line \"%s\" refused: %s", g->id,
								 buf_str(&line), buf_str(&err));
						if (memcmp(&m, &ml->v[i], sizeof(m)))
							fail_msg("%s: pasted line \"%s\" read as another move",
								 g->id, buf_str(&line));
					}
				}
				if (g->apply(st, seat, ml->v[rng_below(&r, (uint32_t)(ml->n - ml->nmeta))],
					     NULL, &err))
					fail_msg("%s: a listed move was refused", g->id);
			}
		}
		free(st);
	}
	free(ml);
	buf_release(&err);
	buf_release(&id);
	buf_release(&label);
	buf_release(&line);
}

/* The move id with its number word (the first word all digits) replaced by
 * with (the number itself into was, when not NULL); 0 when the id has
 * none. */
static int id_with_amount(const char *id, const char *with, struct buf *out, char was[16])
{
	const char *p = id;
	int found = 0;

	buf_reset(out);
	while (*p) {
		size_t len = strcspn(p, " ");

		if (!found && len && len < 16 && strspn(p, "0123456789") == len) {
			buf_addstr(out, with);
			if (was)
				snprintf(was, 16, "%.*s", (int)len, p);
			found = 1;
		} else {
			buf_add(out, p, len);
		}
		p += len;
		if (*p)
			buf_addch(out, *p++);
	}
	return found;
}

/*
 * Issue 25: a minus sign in an amount was read as a space ("offer -3"
 * played "offer 3"; "give -5" would spend 5).  In every game, at decisions
 * of seeded random games whose moves carry a number, the amount negated,
 * followed by a letter, written with a decimal point or far too large is
 * refused with a message that says why; the number itself still parses.
 */
static void test_contract_amounts(void **state)
{
	const struct game_ops *const *all = game_all();
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT, id = BUF_INIT, num = BUF_INIT;
	size_t gi;
	int k;

	for (gi = 0; all[gi]; gi++) {
		const struct game_ops *g = all[gi];
		void *st = game_state_new(g);
		int cases = 0;

		for (k = 0; k < 6; k++) {
			int n = g->min_players + k % (g->max_players - g->min_players + 1);
			int moves = 0;
			struct rng r;

			memset(st, 0, g->state_size);
			rng_seed(&r, 91u + (uint64_t)k, 5);
			if (g->setup(st, n, 91u + (uint64_t)k, "", &err))
				fail_msg("%s: setup failed: %s", g->id, buf_str(&err));
			while (g->awaiting(st) && moves++ < 600) {
				unsigned aw = g->awaiting(st);
				int seat, i;

				for (seat = 0; !(aw & (1u << seat)); seat++)
					;
				g->moves(st, seat, ml);
				for (i = 0; i < ml->n && cases < 400; i++) {
					static const struct { const char *fmt, *en, *es; } bad[] = {
						{ "-%s", "is not an amount", "no es una cantidad" },
						{ "%sx", "is not a whole number", "no es un número entero" },
						{ "%s.5", "is not a whole number", "no es un número entero" },
						{ "+%s", "is not a whole number", "no es un número entero" },
						{ "99999999999", "far more than any amount", "mucho más que" },
					};
					char amount[16];
					struct move m;
					size_t b;

					buf_reset(&id);
					g->move_id(st, seat, ml->v[i], &id);
					if (!id_with_amount(buf_str(&id), "#", &num, amount))
						continue;
					cases++;
					for (b = 0; b < sizeof(bad) / sizeof(*bad); b++) {
						char word[48];
						int l;

						snprintf(word, sizeof(word), bad[b].fmt, amount);
						id_with_amount(buf_str(&id), word, &num, NULL);
						for (l = 0; l < LOC_COUNT; l++) {
							buf_reset(&err);
							if (!game_parse(g, st, seat, buf_str(&num), (enum locale)l,
									&m, &err))
								fail_msg("%s: \"%s\" was read as a move", g->id,
									 buf_str(&num));
							if (!strstr(buf_str(&err), l ? bad[b].es : bad[b].en))
								fail_msg("%s: \"%s\" refused with \"%s\"", g->id,
									 buf_str(&num), buf_str(&err));
						}
					}
					if (game_parse(g, st, seat, buf_str(&id), LOC_EN, &m, &err))
						fail_msg("%s: its own id \"%s\" refused: %s", g->id,
							 buf_str(&id), buf_str(&err));
				}
				if (g->apply(st, seat, ml->v[rng_below(&r, (uint32_t)(ml->n - ml->nmeta))],
					     NULL, &err))
					fail_msg("%s: a listed move was refused", g->id);
			}
		}
		/* every game but Glory to Rome asks for amounts in these games */
		if (strcmp(g->id, "gtr") && !cases)
			fail_msg("%s: no move with an amount met", g->id);
		free(st);
	}
	free(ml);
	buf_release(&err);
	buf_release(&id);
	buf_release(&num);
}

static void test_contract_bad_setup_and_load(void **state)
{
	const struct game_ops *const *all = game_all();
	static const char *const bad[] = {
		"null", "[]", "{}", "{\"v\":999}", "{\"v\":\"1\"}", "42", "\"text\"",
	};
	size_t i, k;

	for (i = 0; all[i]; i++) {
		const struct game_ops *g = all[i];
		void *st = game_state_new(g);
		struct buf err = BUF_INIT;

		assert_int_equal(g->setup(st, g->max_players + 1, 1, "", &err), -1);
		assert_true(err.len > 0);
		memset(st, 0, g->state_size);
		assert_int_equal(g->setup(st, g->min_players - 1, 1, "", &err), -1);
		memset(st, 0, g->state_size);
		assert_int_equal(g->setup(st, g->min_players, 1, "no-such-option", &err), -1);
		for (k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
			json_t *j = json_loads(bad[k], JSON_DECODE_ANY, NULL);

			memset(st, 0, g->state_size);
			buf_reset(&err);
			assert_int_equal(g->load(st, j, &err), -1);
			assert_true(err.len > 0);
			json_decref(j);
		}
		free(st);
		buf_release(&err);
	}
}

/* intro (optional): for many setups, in every locale, the lines are
 * public ones only, name nothing secrets() lists, are the same again for
 * the same state, and a NULL log gets nothing. */
static struct buf intro_lines;

static void intro_emit(struct game_log *log, int seat, const char *text)
{
	(void)log;
	assert_int_equal(seat, LOG_PUBLIC);
	buf_printf(&intro_lines, "%s\n", text);
}

static void test_contract_intro(void **state)
{
	static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal" };
	const struct game_ops *const *all = game_all();
	size_t i;

	for (i = 0; all[i]; i++) {
		const struct game_ops *g = all[i];
		void *st = game_state_new(g);
		struct buf err = BUF_INIT, sec = BUF_INIT, again = BUF_INIT;
		uint64_t seed;
		int l;

		for (seed = 1; g->intro && seed <= 200; seed++) {
			int n = g->min_players + (int)(seed % (uint64_t)(g->max_players - g->min_players + 1));

			memset(st, 0, g->state_size);
			assert_int_equal(g->setup(st, n, seed, "", &err), 0);
			g->intro(st, NULL);
			for (l = 0; l < LOC_COUNT; l++) {
				struct game_log log = { (enum locale)l, names, intro_emit, NULL };
				const char *p;

				buf_reset(&intro_lines);
				g->intro(st, &log);
				assert_true(intro_lines.len > 0);
				buf_reset(&again);
				buf_addstr(&again, buf_str(&intro_lines));
				buf_reset(&intro_lines);
				g->intro(st, &log);
				assert_string_equal(buf_str(&again), buf_str(&intro_lines));
				buf_reset(&sec);
				if (g->secrets)
					g->secrets(st, (enum locale)l, &sec);
				for (p = buf_str(&sec); *p;) {
					const char *nl = strchr(p, '\n');
					size_t k = nl ? (size_t)(nl - p) : strlen(p);
					char *needle = strndup(p, k);

					if (k && strstr(buf_str(&intro_lines), needle))
						fail_msg("%s: hidden \"%s\" in the intro:\n%s", g->id, needle,
							 buf_str(&intro_lines));
					free(needle);
					p += k + (nl ? 1 : 0);
				}
			}
		}
		free(st);
		buf_release(&err);
		buf_release(&sec);
		buf_release(&again);
	}
	buf_release(&intro_lines);
}

/* Every field of a saved game, replaced by a wrong type, is refused or
 * loads into a state that still passes check(): never a crash. */
static void test_contract_load_mutations(void **state)
{
	const struct game_ops *const *all = game_all();
	size_t i;

	for (i = 0; all[i]; i++) {
		const struct game_ops *g = all[i];
		void *st = game_state_new(g), *copy = game_state_new(g);
		struct buf err = BUF_INIT;
		json_t *saved, *value;
		const char *key;

		assert_int_equal(g->setup(st, g->max_players, 5, "", &err), 0);
		saved = g->save(st);
		json_object_foreach(saved, key, value) {
			static const char *const repl[] = { "null", "-1", "\"x\"", "[]", "{}", "1e9" };
			size_t k;

			for (k = 0; k < sizeof(repl) / sizeof(*repl); k++) {
				json_t *mut = json_deep_copy(saved);

				json_object_set_new(mut, key, json_loads(repl[k], JSON_DECODE_ANY, NULL));
				memset(copy, 0, g->state_size);
				if (!g->load(copy, mut, &err) && g->check)
					assert_int_equal(g->check(copy, &err), 0);
				json_decref(mut);
			}
		}
		json_decref(saved);
		free(st);
		free(copy);
		buf_release(&err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_fields_round_trip_and_ranges),
		cmocka_unit_test(test_contract_bad_setup_and_load),
		cmocka_unit_test(test_contract_intro),
		cmocka_unit_test(test_contract_load_mutations),
		cmocka_unit_test(test_contract_ai_games),
		cmocka_unit_test(test_contract_random_games),
		cmocka_unit_test(test_contract_apply_matches_moves),
		cmocka_unit_test(test_contract_pasted_lines),
		cmocka_unit_test(test_contract_amounts),
	};

	return cmocka_run_group_tests_name("game", tests, NULL, NULL);
}
