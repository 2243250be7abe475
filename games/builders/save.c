/*
 * save.c: a Builders state as JSON ("v": 1) and back.
 *
 * One table of field descriptors drives both directions: a scalar (8, 16
 * or 32 bits), a fixed-length array, an array whose length is kept in a
 * count field (the decks), per-seat arrays, or the step's name.  Card
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

enum field_kind {
	F_U8,		/* integer 0..max (or -1 when nullable) */
	F_U16,		/* integer 0..max */
	F_BANK,		/* the bank: any integer down to -BANK_FLOOR, at most 108 */
	F_FIXED,	/* array of exactly len bytes */
	F_COUNTED,	/* array of up to len bytes; its length goes to count_off */
	F_SEATS,	/* array of nplayers bytes */
	F_STEP,		/* a step name */
};

#define BANK_FLOOR (BUILDERS_MAX_PLAYERS * BUILDERS_MONEY_MAX)

struct field {
	const char *name;
	uint8_t kind;
	uint8_t nullable;	/* -1 in JSON is BUILDERS_NONE */
	size_t off;
	int len;
	size_t count_off;
	int max;
};

#define S(f) offsetof(struct builders_state, f)
#define P(f) offsetof(struct builders_player, f)
#define NB BUILDERS_BUILDINGS
#define NU BUILDERS_UNITS

static const struct field state_fields[] = {
	{ "step", F_STEP, 0, S(step), 0, 0, 0 },
	{ "first", F_U8, 0, S(first), 0, 0, BUILDERS_MAX_PLAYERS - 1 },
	{ "current", F_U8, 0, S(cur), 0, 0, BUILDERS_MAX_PLAYERS - 1 },
	{ "round", F_U16, 0, S(round), 0, 0, BUILDERS_ROUND_CAP },
	{ "ending", F_U8, 0, S(ending), 0, 0, 1 },
	{ "dealt", F_SEATS, 0, S(dealt), 0, 0, BUILDERS_APPRENTICES - 1 },
	{ "actions_used", F_U16, 0, S(used), 0, 0, 3 * BUILDERS_MONEY_MAX },
	{ "invested", F_U8, 0, S(invested), 0, 0, 1 },
	{ "pending_unit", F_U8, 1, S(pend), 0, 0, NU - 1 },
	{ "sent", F_FIXED, 0, S(sent), NB, 0, 254 },
	{ "building_deck", F_COUNTED, 0, S(bdeck), NB, S(nbdeck), NB - 1 },
	{ "building_row", F_FIXED, 1, S(brow), BUILDERS_ROW, 0, NB - 1 },
	{ "worker_deck", F_COUNTED, 0, S(wdeck), BUILDERS_WORKERS, S(nwdeck), BUILDERS_WORKERS - 1 },
	{ "worker_row", F_FIXED, 1, S(wrow), BUILDERS_ROW, 0, BUILDERS_WORKERS - 1 },
	{ "building_owner", F_FIXED, 1, S(bown), NB, 0, BUILDERS_MAX_PLAYERS - 1 },
	{ "building_place", F_FIXED, 0, S(bplace), NB, 0, BP_DONE },
	{ "unit_owner", F_FIXED, 1, S(uown), NU, 0, BUILDERS_MAX_PLAYERS - 1 },
	{ "unit_at", F_FIXED, 1, S(uat), NU, 0, NB - 1 },
	{ "freed", F_FIXED, 0, S(freed), BUILDERS_SLAVES, 0, 1 },
	{ "tool_owner", F_FIXED, 1, S(town), BUILDERS_TOOLS, 0, BUILDERS_MAX_PLAYERS - 1 },
	{ "tool_on", F_FIXED, 1, S(tat), BUILDERS_TOOLS, 0, NU - 1 },
	{ "university_on", F_FIXED, 1, S(uni), BUILDERS_UNIS, 0, NU - 1 },
	{ "loan_pile", F_U8, 0, S(loan_pile), 0, 0, BUILDERS_LOANS },
	{ "bank", F_BANK, 0, S(bank), 0, 0, BUILDERS_BANK_COINS },
};

static const struct field player_fields[] = {
	{ "money", F_U16, 0, P(money), 0, 0, BUILDERS_MONEY_MAX },
	{ "loans", F_U8, 0, P(loans), 0, 0, BUILDERS_LOANS },
};

#define NFIELDS(t) (sizeof(t) / sizeof(*(t)))

/* ---- save ---- */

static json_t *byte_value(uint8_t v, int nullable)
{
	return json_integer(nullable && v == BUILDERS_NONE ? -1 : v);
}

static json_t *byte_array(const uint8_t *v, int n, int nullable)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, byte_value(v[i], nullable));
	return a;
}

static void save_fields(json_t *obj, const void *base, const struct field *f, size_t nf,
			int nplayers)
{
	const uint8_t *b = base;
	size_t i;

	for (i = 0; i < nf; i++) {
		const uint8_t *v = b + f[i].off;
		json_t *val = NULL;
		uint16_t w;
		int32_t d;

		switch (f[i].kind) {
		case F_U8:
			val = byte_value(*v, f[i].nullable);
			break;
		case F_U16:
			memcpy(&w, v, sizeof(w));
			val = json_integer(w);
			break;
		case F_BANK:
			memcpy(&d, v, sizeof(d));
			val = json_integer(d);
			break;
		case F_FIXED:
			val = byte_array(v, f[i].len, f[i].nullable);
			break;
		case F_COUNTED:
			val = byte_array(v, b[f[i].count_off], 0);
			break;
		case F_SEATS:
			val = byte_array(v, nplayers, 0);
			break;
		case F_STEP:
			val = json_string(*v < BS_COUNT ? builders_step_ids[*v] : "?");
			break;
		}
		json_object_set_new(obj, f[i].name, val);
	}
}

json_t *builders_save(const void *st)
{
	const struct builders_state *s = st;
	json_t *j = json_object(), *seats = json_array();
	int i;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "game", json_string("builders"));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	save_fields(j, s, state_fields, NFIELDS(state_fields), s->nplayers);
	for (i = 0; i < s->nplayers && i < BUILDERS_MAX_PLAYERS; i++) {
		json_t *p = json_object();

		save_fields(p, &s->p[i], player_fields, NFIELDS(player_fields), s->nplayers);
		json_array_append_new(seats, p);
	}
	json_object_set_new(j, "seats", seats);
	json_object_set_new(j, "rng", rng_to_json(&s->rng));
	return j;
}

/* ---- load ---- */

static int get_int(const json_t *v, json_int_t lo, json_int_t hi, json_int_t *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	if (x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int get_byte(const json_t *v, int max, int nullable, uint8_t *out)
{
	json_int_t x;

	if (get_int(v, nullable ? -1 : 0, max, &x))
		return -1;
	*out = x < 0 ? BUILDERS_NONE : (uint8_t)x;
	return 0;
}

static int get_bytes(const json_t *a, int minlen, int maxlen, int max, int nullable,
		     uint8_t *out, int *len)
{
	size_t i, n;

	if (!json_is_array(a))
		return -1;
	n = json_array_size(a);
	if ((int)n < minlen || (int)n > maxlen)
		return -1;
	for (i = 0; i < n; i++)
		if (get_byte(json_array_get(a, i), max, nullable, &out[i]))
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
	for (k = 0; k < BS_COUNT; k++)
		if (!strcmp(json_string_value(v), builders_step_ids[k])) {
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
	int len, bad;

	for (i = 0; i < nf; i++) {
		const json_t *v = json_object_get(obj, f[i].name);
		uint8_t *dst = b + f[i].off;
		json_int_t x;

		switch (f[i].kind) {
		case F_U8:
			bad = get_byte(v, f[i].max, f[i].nullable, dst);
			break;
		case F_U16:
			bad = get_int(v, 0, f[i].max, &x);
			if (!bad) {
				uint16_t w = (uint16_t)x;

				memcpy(dst, &w, sizeof(w));
			}
			break;
		case F_BANK:
			bad = get_int(v, -BANK_FLOOR, f[i].max, &x);
			if (!bad) {
				int32_t d = (int32_t)x;

				memcpy(dst, &d, sizeof(d));
			}
			break;
		case F_FIXED:
			bad = get_bytes(v, f[i].len, f[i].len, f[i].max, f[i].nullable, dst, NULL);
			break;
		case F_COUNTED:
			bad = get_bytes(v, 0, f[i].len, f[i].max, 0, dst, &len);
			if (!bad)
				b[f[i].count_off] = (uint8_t)len;
			break;
		case F_SEATS:
			bad = get_bytes(v, nplayers, nplayers, f[i].max, 0, dst, NULL);
			break;
		case F_STEP:
			bad = get_step(v, dst);
			break;
		default:
			bad = 1;
		}
		if (bad) {
			buf_setf(err, "Builders save: %s\"%s\" is missing or invalid.", where, f[i].name);
			return -1;
		}
	}
	return 0;
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
	if (get_int(json_object_get(j, "v"), SAVE_VERSION, SAVE_VERSION, &n)) {
		buf_setf(err, "Builders save: unknown format version (expected \"v\": %d).",
			 SAVE_VERSION);
		return -1;
	}
	if (get_int(json_object_get(j, "players"), BUILDERS_MIN_PLAYERS, BUILDERS_MAX_PLAYERS, &n)) {
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
