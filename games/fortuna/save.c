/*
 * save.c: a Fortuna state as JSON ("v": 1) and back.
 *
 * The state is all small unsigned integers, so one table of fields
 * (struct game_field, games/game.h) drives both directions: a scalar, a
 * fixed-length array, a grid (sides x slots), an array whose length is kept
 * in a count field (deck, drawn cards), or a step name.  load() checks
 * every value's type and range against the table, then runs fortuna_check()
 * for everything that relates fields (conservation, the decision's
 * context), so a state it accepts is one moves() and apply() handle safely.
 * Unknown keys are ignored; a missing or malformed one fails.
 */
#include <stddef.h>
#include <string.h>

#include "games/fortuna/fortuna.h"

#define SAVE_VERSION 1

#define S(f) offsetof(struct fortuna_state, f)
#define P(f) offsetof(struct fortuna_player, f)

static const struct game_field state_fields[] = {
	GAME_U8("draft", S(draft), 1),
	GAME_NAME("step", S(step), fortuna_step_ids, FS_COUNT),
	GAME_U8("round", S(round), FORTUNA_ROUND_CAP),
	GAME_SEATS("order", S(order), FORTUNA_MAX_PLAYERS - 1),
	GAME_U8("turn", S(turn), FORTUNA_MAX_PLAYERS - 1),
	GAME_U8("setup_k", S(setup_k), 3 * FORTUNA_MAX_PLAYERS),
	GAME_U8("ending", S(ending), 1),
	GAME_GRID("side_cards", S(side_card), FORTUNA_SIDES, FORTUNA_SLOTS, FORTUNA_NO_CARD),
	GAME_GRID("side_down", S(side_down), FORTUNA_SIDES, FORTUNA_SLOTS, 1),
	GAME_FIXED("favour_up", S(fav_up), FF_COUNT, 1),
	GAME_FIXED("favour_tokens", S(fav_tokens), FF_COUNT, FORTUNA_TOKEN_CAP),
	GAME_U8("token_reserve", S(token_reserve), FORTUNA_TOKENS),
	GAME_U8("token_palace", S(token_palace), 3),
	GAME_U8("token_turn", S(token_turn), FORTUNA_TOKENS),
	GAME_U8("supply_water", S(sup_water), 15),
	GAME_U8("supply_grain", S(sup_grain), 15),
	GAME_U8("supply_wine", S(sup_wine), 15),
	GAME_U8("supply_priestesses", S(sup_priest), 12),
	GAME_U8("supply_centurions", S(sup_cent), 12),
	GAME_U8("supply_dice", S(sup_dice), 9),
	GAME_FIXED("buildings_left", S(bld_left), FB_COUNT, 3),
	GAME_COUNTED("deck", S(deck), FORTUNA_PRIV_MAX, S(ndeck), FP_COUNT - 1),
	GAME_FIXED("discard", S(discard), FP_COUNT, FORTUNA_PRIV_MAX),
	GAME_COUNTED("drawn", S(drawn), 3, S(ndrawn), FP_COUNT - 1),
	GAME_U8("keep_left", S(keep_left), 2),
	GAME_U8("keep_source", S(keep_src), FK_PALACE_LATER),
	GAME_COUNTED("palace_cards", S(palace_cards), 3, S(npalace), FP_COUNT - 1),
	GAME_U8("arrived", S(narrived), FORTUNA_MAX_PLAYERS),
	GAME_U8("chosen", S(chosen), FA_COUNT - 1),
	GAME_U8("action_card", S(act_card), FA_COUNT - 1),
	GAME_U8("action_via", S(act_via), FV_MILITARY),
	GAME_U8("corrupted", S(corrupted), 1),
	GAME_U8("b_played", S(b_played), 1),
	GAME_U8("palace_due", S(palace_due), 1),
	GAME_NAME("resource_return", S(res_ret), fortuna_step_ids, FS_COUNT),
	GAME_U8("rolled", S(rolled), 1),
	GAME_COUNTED("roll", S(roll), 3, S(nroll), 6),
	GAME_U8("die", S(die), 6),
	GAME_U8("last_seat", S(last_seat), 255),
	GAME_COUNTED("last_roll", S(last_roll), 3, S(last_nroll), 6),
	GAME_U8("last_die", S(last_die), 6),
};

static const struct game_field player_fields[] = {
	GAME_U8("steps", P(steps), FORTUNA_PALACE),
	GAME_U8("money", P(money), FORTUNA_MONEY_MAX),
	GAME_U8("water", P(water), 15),
	GAME_U8("grain", P(grain), 15),
	GAME_U8("wine", P(wine), 15),
	GAME_U8("aqueduct_water", P(aq_water), 1),
	GAME_U8("priestesses", P(priest), 3),
	GAME_U8("centurions", P(cent), 3),
	GAME_U8("dice", P(dice), 3),
	GAME_U8("married", P(married), 1),
	GAME_U8("buildings", P(buildings), (1 << FB_COUNT) - 1),
	GAME_U8("aqueduct_round", P(aq_round), FORTUNA_ROUND_CAP),
	GAME_U8("arrival", P(arrival), FORTUNA_MAX_PLAYERS),
	GAME_FIXED("privileges", P(hand), FP_COUNT, FORTUNA_PRIV_MAX),
};

#define NFIELDS(t) (sizeof(t) / sizeof(*(t)))

/* ---- save ---- */

json_t *fortuna_save(const void *st)
{
	const struct fortuna_state *s = st;
	json_t *j = json_object(), *seats = json_array();
	int i;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "game", json_string("fortuna"));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	game_fields_save(j, s, state_fields, NFIELDS(state_fields), s->nplayers);
	for (i = 0; i < s->nplayers && i < FORTUNA_MAX_PLAYERS; i++) {
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
	buf_setf(err, "Fortuna save: %s\"%s\" is missing or invalid.", where, bad->name);
	return -1;
}

int fortuna_load(void *st, const json_t *j, struct buf *err)
{
	struct fortuna_state *s = st;
	const json_t *seats, *rng;
	struct buf why = BUF_INIT;
	json_int_t x;
	uint8_t n;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j)) {
		buf_setf(err, "Fortuna save: not a JSON object.");
		return -1;
	}
	if (game_json_int(json_object_get(j, "v"), SAVE_VERSION, SAVE_VERSION, &x)) {
		buf_setf(err, "Fortuna save: unknown format version (expected \"v\": %d).",
			 SAVE_VERSION);
		return -1;
	}
	if (game_json_int(json_object_get(j, "players"), 2, FORTUNA_MAX_PLAYERS, &x)) {
		buf_setf(err, "Fortuna save: \"players\" must be 2 to 4.");
		return -1;
	}
	n = (uint8_t)x;
	s->nplayers = n;
	if (load_fields(j, s, state_fields, NFIELDS(state_fields), n, "", err))
		goto fail;
	seats = json_object_get(j, "seats");
	if (!json_is_array(seats) || json_array_size(seats) != n) {
		buf_setf(err, "Fortuna save: \"seats\" must list %d seats.", n);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		const json_t *p = json_array_get(seats, i);

		if (!json_is_object(p)) {
			buf_setf(err, "Fortuna save: seat %zu is not an object.", i + 1);
			goto fail;
		}
		if (load_fields(p, &s->p[i], player_fields, NFIELDS(player_fields), n,
				"seat field ", err))
			goto fail;
	}
	rng = json_object_get(j, "rng");
	if (rng_from_json(rng, &s->rng)) {
		buf_setf(err, "Fortuna save: \"rng\" is missing or invalid.");
		goto fail;
	}
	if (fortuna_check(s, &why)) {
		buf_setf(err, "Fortuna save: inconsistent state: %s.", buf_str(&why));
		buf_release(&why);
		goto fail;
	}
	buf_release(&why);
	return 0;
fail:
	memset(s, 0, sizeof(*s));
	return -1;
}
