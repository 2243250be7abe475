/*
 * save.c: a Builders state as JSON ("v": 1) and back.
 *
 * One table of fields (struct game_field, games/game.h) drives both
 * directions: a scalar (8, 16 or 32 bits), a fixed-length array, an array
 * whose length is kept in a count field (the decks), per-seat arrays, or
 * the step's name.  Card
 * references that may be "nothing" (BUILDERS_NONE in the state) are -1 in
 * JSON.  The derived fields (unit resources, building progress, VP) are
 * not saved: load() rebuilds them, then runs builders_check() for
 * everything that relates fields, so a state it accepts is one moves() and
 * apply() handle safely.  Unknown keys are ignored; a missing or malformed
 * one fails.
 */
#include <stddef.h>
#include <string.h>

#include "games/builders/builders.h"

#define SAVE_VERSION 1

/* the bank (108 at the start) goes below 0 when it runs out: coins are
 * unlimited; never further down than every seat could hold */
#define BANK_FLOOR (BUILDERS_MAX_PLAYERS * BUILDERS_MONEY_MAX)

#define S(f) offsetof(struct builders_state, f)
#define P(f) offsetof(struct builders_player, f)
#define NB BUILDERS_BUILDINGS
#define NU BUILDERS_UNITS

static const struct game_field state_fields[] = {
	GAME_NAME("step", S(step), builders_step_ids, BS_COUNT),
	GAME_U8("first", S(first), BUILDERS_MAX_PLAYERS - 1),
	GAME_U8("current", S(cur), BUILDERS_MAX_PLAYERS - 1),
	GAME_U16("round", S(round), BUILDERS_ROUND_CAP),
	GAME_U8("ending", S(ending), 1),
	GAME_SEATS("dealt", S(dealt), BUILDERS_APPRENTICES - 1),
	GAME_U16("actions_used", S(used), 3 * BUILDERS_MONEY_MAX),
	GAME_U8("invested", S(invested), 1),
	GAME_U8_OR_NONE("pending_unit", S(pend), NU - 1),
	GAME_FIXED("sent", S(sent), NB, 254),
	GAME_COUNTED("building_deck", S(bdeck), NB, S(nbdeck), NB - 1),
	GAME_FIXED_OR_NONE("building_row", S(brow), BUILDERS_ROW, NB - 1),
	GAME_COUNTED("worker_deck", S(wdeck), BUILDERS_WORKERS, S(nwdeck), BUILDERS_WORKERS - 1),
	GAME_FIXED_OR_NONE("worker_row", S(wrow), BUILDERS_ROW, BUILDERS_WORKERS - 1),
	GAME_FIXED_OR_NONE("building_owner", S(bown), NB, BUILDERS_MAX_PLAYERS - 1),
	GAME_FIXED("building_place", S(bplace), NB, BP_DONE),
	GAME_FIXED_OR_NONE("unit_owner", S(uown), NU, BUILDERS_MAX_PLAYERS - 1),
	GAME_FIXED_OR_NONE("unit_at", S(uat), NU, NB - 1),
	GAME_FIXED("freed", S(freed), BUILDERS_SLAVES, 1),
	GAME_FIXED_OR_NONE("tool_owner", S(town), BUILDERS_TOOLS, BUILDERS_MAX_PLAYERS - 1),
	GAME_FIXED_OR_NONE("tool_on", S(tat), BUILDERS_TOOLS, NU - 1),
	GAME_FIXED_OR_NONE("university_on", S(uni), BUILDERS_UNIS, NU - 1),
	GAME_U8("loan_pile", S(loan_pile), BUILDERS_LOANS),
	GAME_I32("bank", S(bank), -BANK_FLOOR, BUILDERS_BANK_COINS),
};

static const struct game_field player_fields[] = {
	GAME_U16("money", P(money), BUILDERS_MONEY_MAX),
	GAME_U8("loans", P(loans), BUILDERS_LOANS),
};

#define NFIELDS(t) (sizeof(t) / sizeof(*(t)))

/* ---- save ---- */

json_t *builders_save(const void *st)
{
	const struct builders_state *s = st;
	json_t *j = json_object(), *seats = json_array();
	int i;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "game", json_string("builders"));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	game_fields_save(j, s, state_fields, NFIELDS(state_fields), s->nplayers);
	for (i = 0; i < s->nplayers && i < BUILDERS_MAX_PLAYERS; i++) {
		json_t *p = json_object();

		game_fields_save(p, &s->p[i], player_fields, NFIELDS(player_fields), s->nplayers);
		json_array_append_new(seats, p);
	}
	json_object_set_new(j, "seats", seats);
	json_object_set_new(j, "rng", rng_to_json(&s->rng));
	return j;
}

/* ---- load ---- */

static int load_fields(const json_t *obj, void *base, const struct game_field *f, size_t nf,
		       int nplayers, const char *where, struct buf *err)
{
	const struct game_field *bad;

	if (!game_fields_load(obj, base, f, nf, nplayers, &bad))
		return 0;
	buf_setf(err, "Builders save: %s\"%s\" is missing or invalid.", where, bad->name);
	return -1;
}

int builders_load(void *st, const json_t *j, struct buf *err)
{
	struct builders_state *s = st;
	const json_t *seats;
	struct buf why = BUF_INIT;
	json_int_t n;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j)) {
		buf_setf(err, "Builders save: not a JSON object.");
		return -1;
	}
	if (game_json_int(json_object_get(j, "v"), SAVE_VERSION, SAVE_VERSION, &n)) {
		buf_setf(err, "Builders save: unknown format version (expected \"v\": %d).",
			 SAVE_VERSION);
		return -1;
	}
	if (game_json_int(json_object_get(j, "players"), BUILDERS_MIN_PLAYERS, BUILDERS_MAX_PLAYERS, &n)) {
		buf_setf(err, "Builders save: \"players\" must be 2 to 4.");
		return -1;
	}
	s->nplayers = (uint8_t)n;
	if (load_fields(j, s, state_fields, NFIELDS(state_fields), s->nplayers, "", err))
		goto fail;
	seats = json_object_get(j, "seats");
	if (!json_is_array(seats) || json_array_size(seats) != s->nplayers) {
		buf_setf(err, "Builders save: \"seats\" must list %d seats.", s->nplayers);
		goto fail;
	}
	for (i = 0; i < s->nplayers; i++) {
		const json_t *p = json_array_get(seats, i);

		if (!json_is_object(p)) {
			buf_setf(err, "Builders save: seat %zu is not an object.", i + 1);
			goto fail;
		}
		if (load_fields(p, &s->p[i], player_fields, NFIELDS(player_fields), s->nplayers,
				"seat field ", err))
			goto fail;
	}
	if (rng_from_json(json_object_get(j, "rng"), &s->rng)) {
		buf_setf(err, "Builders save: \"rng\" is missing or invalid.");
		goto fail;
	}
	builders_recount(s);
	if (builders_check(s, &why)) {
		buf_setf(err, "Builders save: inconsistent state: %s.", buf_str(&why));
		goto fail;
	}
	buf_release(&why);
	return 0;
fail:
	buf_release(&why);
	memset(s, 0, sizeof(*s));
	return -1;
}
