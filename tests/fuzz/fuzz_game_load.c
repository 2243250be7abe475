/*
 * fuzz_game_load: every registered game's load() on arbitrary JSON.
 *
 * The input is parsed with json_loadb and handed to each game's load().
 * When a game accepts it, everything a live session would do with that state
 * must be safe: check() (load promises consistent states, so a failing
 * check() after a successful load() is reported as a bug), both renders,
 * secrets(), prompt(), result(), every awaited seat's moves() with their ids
 * and labels, apply() of each move on a copy (followed by check()), and a
 * save() -> load() -> save() round trip that must give equal JSON.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "games/game.h"
#include "util/buf.h"
#include "util/rich.h"

static const char *const names[GAME_MAX_SEATS] = {
	"ana", "ben", "cy", "dee", "eve", "fay", "gus", "hal",
};

static void fail(const struct game_ops *ops, const char *what, const struct buf *err)
{
	fprintf(stderr, "fuzz_game_load: %s: %s: %s\n", ops->id, what,
		err && err->len ? buf_str(err) : "");
	abort();
}

static void same_view_after_determinize(const struct game_ops *ops, const void *st, int seat,
					void *copy);

static void exercise(const struct game_ops *ops, void *st)
{
	struct buf err = BUF_INIT, text = BUF_INIT;
	struct move_list *ml = malloc(sizeof(*ml));
	struct game_view v = { .nseats = GAME_MAX_SEATS, .names = names };
	struct game_result res;
	void *copy = game_state_new(ops);
	unsigned aw;
	int seat, i, loc;

	if (ops->check && ops->check(st, &err))
		fail(ops, "load() accepted a state check() refuses", &err);
	for (loc = 0; loc < LOC_COUNT; loc++) {
		struct rich r = RICH_INIT;

		v.loc = loc;
		ops->render_public(st, &v, &r);
		rich_to_plain(&r, &text);
		rich_release(&r);
		for (seat = 0; seat < ops->max_players; seat++) {
			rich_init(&r);
			ops->render_private(st, seat, &v, &r);
			rich_to_plain(&r, &text);
			rich_release(&r);
			ops->prompt(st, seat, loc, &text);
		}
		if (ops->secrets)
			ops->secrets(st, loc, &text);
	}
	ops->result(st, &res);
	aw = ops->awaiting(st);
	for (seat = 0; seat < GAME_MAX_SEATS; seat++) {
		if (!(aw & (1u << seat)))
			continue;
		ops->moves(st, seat, ml);
		if (ml->n < 0 || ml->n > MOVE_LIST_MAX || ml->nmeta < 0 || ml->nmeta > ml->n)
			fail(ops, "moves() returned a bad list", NULL);
		if (ops->determinize)
			same_view_after_determinize(ops, st, seat, copy);
		for (i = 0; i < ml->n; i++) {
			buf_reset(&text);
			ops->move_id(st, seat, ml->v[i], &text);
			ops->move_label(st, seat, ml->v[i], LOC_EN, &text);
			ops->move_label(st, seat, ml->v[i], LOC_ES, &text);
			memcpy(copy, st, ops->state_size);
			buf_reset(&err);
			if (ops->apply(copy, seat, ml->v[i], NULL, &err))
				fail(ops, "apply() refused a move moves() listed", &err);
			if (ops->check && ops->check(copy, &err))
				fail(ops, "check() failed after apply()", &err);
		}
	}
	free(copy);
	free(ml);
	buf_release(&text);
	buf_release(&err);
}

/* What the search does to a state: re-deal what seat cannot see.  The
 * result must pass check() and look the same to the seat and to everyone. */
static void same_view_after_determinize(const struct game_ops *ops, const void *st, int seat,
					void *copy)
{
	struct buf a = BUF_INIT, b = BUF_INIT, err = BUF_INIT;
	struct game_view v = { LOC_EN, GAME_MAX_SEATS, NULL };
	struct rich r = RICH_INIT;
	struct rng rng;

	rng_seed(&rng, 7, 11);
	memcpy(copy, st, ops->state_size);
	ops->determinize(copy, seat, &rng);
	if (ops->check && ops->check(copy, &err))
		fail(ops, "check() failed after determinize()", &err);
	ops->render_public(st, &v, &r);
	ops->render_private(st, seat, &v, &r);
	rich_to_plain(&r, &a);
	rich_release(&r);
	rich_init(&r);
	ops->render_public(copy, &v, &r);
	ops->render_private(copy, seat, &v, &r);
	rich_to_plain(&r, &b);
	rich_release(&r);
	if (strcmp(buf_str(&a), buf_str(&b)))
		fail(ops, "determinize() changed what the seat sees", NULL);
	buf_release(&a);
	buf_release(&b);
	buf_release(&err);
}

static void round_trip(const struct game_ops *ops, const void *st)
{
	struct buf err = BUF_INIT;
	json_t *a = ops->save(st), *b;
	void *again = game_state_new(ops);

	if (!a)
		fail(ops, "save() returned NULL", NULL);
	if (ops->load(again, a, &err))
		fail(ops, "load() refused what save() wrote", &err);
	b = ops->save(again);
	if (!b || !json_equal(a, b))
		fail(ops, "save() -> load() -> save() changed the JSON", NULL);
	json_decref(a);
	json_decref(b);
	free(again);
	buf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct game_ops *const *all = game_all();
	json_error_t je;
	json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	size_t g;

	if (!j)
		return 0;
	for (g = 0; all[g]; g++) {
		const struct game_ops *ops = all[g];
		struct buf err = BUF_INIT;
		void *st = game_state_new(ops);

		if (ops->load(st, j, &err) == 0) {
			exercise(ops, st);
			round_trip(ops, st);
		}
		free(st);
		buf_release(&err);
	}
	json_decref(j);
	return 0;
}
