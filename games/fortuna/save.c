/*
 * save.c: a Fortuna state as JSON ("v": 1) and back.
 *
 * The state is all small unsigned integers, so one table of field
 * descriptors drives both directions: a scalar, a fixed-length array, a
 * grid (sides x slots), an array whose length is kept in a count field
 * (deck, drawn cards), or a step name.  load() checks every value's type
 * and range against the table, then runs fortuna_check() for everything
 * that relates fields (conservation, the decision's context), so a state it
 * accepts is one moves() and apply() handle safely.  Unknown keys are
 * ignored; a missing or malformed one fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/fortuna/fortuna.h"

#define SAVE_VERSION 1

enum field_kind {
	F_SCALAR,	/* integer 0..max */
	F_FIXED,	/* array of exactly len integers */
	F_GRID,		/* FORTUNA_SIDES arrays of FORTUNA_SLOTS integers */
	F_COUNTED,	/* array of up to len integers; its length goes to count_off */
	F_SEATS,	/* array of nplayers integers */
	F_STEP,		/* a step name */
};

struct field {
	const char *name;
	uint8_t kind;
	size_t off;
	int len;
	size_t count_off;
	int max;
};

#define S(f) offsetof(struct fortuna_state, f)
#define P(f) offsetof(struct fortuna_player, f)

static const struct field state_fields[] = {
	{ "draft", F_SCALAR, S(draft), 0, 0, 1 },
	{ "step", F_STEP, S(step), 0, 0, 0 },
	{ "round", F_SCALAR, S(round), 0, 0, FORTUNA_ROUND_CAP },
	{ "order", F_SEATS, S(order), 0, 0, FORTUNA_MAX_PLAYERS - 1 },
	{ "turn", F_SCALAR, S(turn), 0, 0, FORTUNA_MAX_PLAYERS - 1 },
	{ "setup_k", F_SCALAR, S(setup_k), 0, 0, 3 * FORTUNA_MAX_PLAYERS },
	{ "ending", F_SCALAR, S(ending), 0, 0, 1 },
	{ "side_cards", F_GRID, S(side_card), 0, 0, FORTUNA_NO_CARD },
	{ "side_down", F_GRID, S(side_down), 0, 0, 1 },
	{ "favour_up", F_FIXED, S(fav_up), FF_COUNT, 0, 1 },
	{ "favour_tokens", F_FIXED, S(fav_tokens), FF_COUNT, 0, FORTUNA_TOKEN_CAP },
	{ "token_reserve", F_SCALAR, S(token_reserve), 0, 0, FORTUNA_TOKENS },
	{ "token_palace", F_SCALAR, S(token_palace), 0, 0, 3 },
	{ "token_turn", F_SCALAR, S(token_turn), 0, 0, FORTUNA_TOKENS },
	{ "supply_water", F_SCALAR, S(sup_water), 0, 0, 15 },
	{ "supply_grain", F_SCALAR, S(sup_grain), 0, 0, 15 },
	{ "supply_wine", F_SCALAR, S(sup_wine), 0, 0, 15 },
	{ "supply_priestesses", F_SCALAR, S(sup_priest), 0, 0, 12 },
	{ "supply_centurions", F_SCALAR, S(sup_cent), 0, 0, 12 },
	{ "supply_dice", F_SCALAR, S(sup_dice), 0, 0, 9 },
	{ "buildings_left", F_FIXED, S(bld_left), FB_COUNT, 0, 3 },
	{ "deck", F_COUNTED, S(deck), FORTUNA_PRIV_MAX, S(ndeck), FP_COUNT - 1 },
	{ "discard", F_FIXED, S(discard), FP_COUNT, 0, FORTUNA_PRIV_MAX },
	{ "drawn", F_COUNTED, S(drawn), 3, S(ndrawn), FP_COUNT - 1 },
	{ "keep_left", F_SCALAR, S(keep_left), 0, 0, 2 },
	{ "keep_source", F_SCALAR, S(keep_src), 0, 0, FK_PALACE_LATER },
	{ "palace_cards", F_COUNTED, S(palace_cards), 3, S(npalace), FP_COUNT - 1 },
	{ "arrived", F_SCALAR, S(narrived), 0, 0, FORTUNA_MAX_PLAYERS },
	{ "chosen", F_SCALAR, S(chosen), 0, 0, FA_COUNT - 1 },
	{ "action_card", F_SCALAR, S(act_card), 0, 0, FA_COUNT - 1 },
	{ "action_via", F_SCALAR, S(act_via), 0, 0, FV_MILITARY },
	{ "corrupted", F_SCALAR, S(corrupted), 0, 0, 1 },
	{ "b_played", F_SCALAR, S(b_played), 0, 0, 1 },
	{ "palace_due", F_SCALAR, S(palace_due), 0, 0, 1 },
	{ "resource_return", F_STEP, S(res_ret), 0, 0, 0 },
	{ "rolled", F_SCALAR, S(rolled), 0, 0, 1 },
	{ "roll", F_COUNTED, S(roll), 3, S(nroll), 6 },
	{ "die", F_SCALAR, S(die), 0, 0, 6 },
	{ "last_seat", F_SCALAR, S(last_seat), 0, 0, 255 },
	{ "last_roll", F_COUNTED, S(last_roll), 3, S(last_nroll), 6 },
	{ "last_die", F_SCALAR, S(last_die), 0, 0, 6 },
};

static const struct field player_fields[] = {
	{ "steps", F_SCALAR, P(steps), 0, 0, FORTUNA_PALACE },
	{ "money", F_SCALAR, P(money), 0, 0, FORTUNA_MONEY_MAX },
	{ "water", F_SCALAR, P(water), 0, 0, 15 },
	{ "grain", F_SCALAR, P(grain), 0, 0, 15 },
	{ "wine", F_SCALAR, P(wine), 0, 0, 15 },
	{ "aqueduct_water", F_SCALAR, P(aq_water), 0, 0, 1 },
	{ "priestesses", F_SCALAR, P(priest), 0, 0, 3 },
	{ "centurions", F_SCALAR, P(cent), 0, 0, 3 },
	{ "dice", F_SCALAR, P(dice), 0, 0, 3 },
	{ "married", F_SCALAR, P(married), 0, 0, 1 },
	{ "buildings", F_SCALAR, P(buildings), 0, 0, (1 << FB_COUNT) - 1 },
	{ "aqueduct_round", F_SCALAR, P(aq_round), 0, 0, FORTUNA_ROUND_CAP },
	{ "arrival", F_SCALAR, P(arrival), 0, 0, FORTUNA_MAX_PLAYERS },
	{ "privileges", F_FIXED, P(hand), FP_COUNT, 0, FORTUNA_PRIV_MAX },
};

#define NFIELDS(t) (sizeof(t) / sizeof(*(t)))

/* ---- save ---- */

static json_t *int_array(const uint8_t *v, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static void save_fields(json_t *obj, const void *base, const struct field *f, size_t nf,
			int nplayers)
{
	const uint8_t *b = base;
	size_t i;
	int t;

	for (i = 0; i < nf; i++) {
		const uint8_t *v = b + f[i].off;
		json_t *val = NULL;

		switch (f[i].kind) {
		case F_SCALAR:
			val = json_integer(*v);
			break;
		case F_FIXED:
			val = int_array(v, f[i].len);
			break;
		case F_GRID:
			val = json_array();
			for (t = 0; t < FORTUNA_SIDES; t++)
				json_array_append_new(val, int_array(v + t * FORTUNA_SLOTS, FORTUNA_SLOTS));
			break;
		case F_COUNTED:
			val = int_array(v, b[f[i].count_off]);
			break;
		case F_SEATS:
			val = int_array(v, nplayers);
			break;
		case F_STEP:
			val = json_string(*v < FS_COUNT ? fortuna_step_ids[*v] : "?");
			break;
		}
		json_object_set_new(obj, f[i].name, val);
	}
}

json_t *fortuna_save(const void *st)
{
	const struct fortuna_state *s = st;
	json_t *j = json_object(), *seats = json_array();
	int i;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "game", json_string("fortuna"));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	save_fields(j, s, state_fields, NFIELDS(state_fields), s->nplayers);
	for (i = 0; i < s->nplayers && i < FORTUNA_MAX_PLAYERS; i++) {
		json_t *p = json_object();

		save_fields(p, &s->p[i], player_fields, NFIELDS(player_fields), s->nplayers);
		json_array_append_new(seats, p);
	}
	json_object_set_new(j, "seats", seats);
	json_object_set_new(j, "rng", rng_to_json(&s->rng));
	return j;
}

/* ---- load ---- */

static int get_int(const json_t *v, int max, uint8_t *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	if (x < 0 || x > max)
		return -1;
	*out = (uint8_t)x;
	return 0;
}

static int get_array(const json_t *a, int minlen, int maxlen, int max, uint8_t *out, int *len)
{
	size_t i, n;

	if (!json_is_array(a))
		return -1;
	n = json_array_size(a);
	if ((int)n < minlen || (int)n > maxlen)
		return -1;
	for (i = 0; i < n; i++)
		if (get_int(json_array_get(a, i), max, &out[i]))
			return -1;
	if (len)
		*len = (int)n;
	return 0;
}

static int get_step(const json_t *v, uint8_t *out)
{
	int k;

	if (!json_is_string(v))
		return -1;
	for (k = 0; k < FS_COUNT; k++)
		if (!strcmp(json_string_value(v), fortuna_step_ids[k])) {
			*out = (uint8_t)k;
			return 0;
		}
	return -1;
}

static int load_fields(const json_t *obj, void *base, const struct field *f, size_t nf,
		       int nplayers, const char *where, struct buf *err)
{
	uint8_t *b = base;
	size_t i;
	int t, len, bad;

	for (i = 0; i < nf; i++) {
		const json_t *v = json_object_get(obj, f[i].name);
		uint8_t *dst = b + f[i].off;

		switch (f[i].kind) {
		case F_SCALAR:
			bad = get_int(v, f[i].max, dst);
			break;
		case F_FIXED:
			bad = get_array(v, f[i].len, f[i].len, f[i].max, dst, NULL);
			break;
		case F_GRID:
			bad = !json_is_array(v) || json_array_size(v) != FORTUNA_SIDES;
			for (t = 0; !bad && t < FORTUNA_SIDES; t++)
				bad = get_array(json_array_get(v, (size_t)t), FORTUNA_SLOTS,
						FORTUNA_SLOTS, f[i].max, dst + t * FORTUNA_SLOTS, NULL);
			break;
		case F_COUNTED:
			bad = get_array(v, 0, f[i].len, f[i].max, dst, &len);
			if (!bad)
				b[f[i].count_off] = (uint8_t)len;
			break;
		case F_SEATS:
			bad = get_array(v, nplayers, nplayers, f[i].max, dst, NULL);
			break;
		case F_STEP:
			bad = get_step(v, dst);
			break;
		default:
			bad = 1;
		}
		if (bad) {
			buf_setf(err, "Fortuna save: %s\"%s\" is missing or invalid.", where, f[i].name);
			return -1;
		}
	}
	return 0;
}

int fortuna_load(void *st, const json_t *j, struct buf *err)
{
	struct fortuna_state *s = st;
	const json_t *seats, *rng;
	struct buf why = BUF_INIT;
	uint8_t n;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j)) {
		buf_setf(err, "Fortuna save: not a JSON object.");
		return -1;
	}
	if (!json_is_integer(json_object_get(j, "v")) ||
	    json_integer_value(json_object_get(j, "v")) != SAVE_VERSION) {
		buf_setf(err, "Fortuna save: unknown format version (expected \"v\": %d).",
			 SAVE_VERSION);
		return -1;
	}
	if (get_int(json_object_get(j, "players"), FORTUNA_MAX_PLAYERS, &n) || n < 2) {
		buf_setf(err, "Fortuna save: \"players\" must be 2 to 4.");
		return -1;
	}
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
