/*
 * save.c: a Sylla state as JSON ("v": 1) and back.
 *
 * One table of field descriptors drives both directions: 8- and 16-bit
 * scalars, fixed arrays, arrays whose length lives in a count field, and
 * the cube grid.  The character masks are saved per card (owner, tapped,
 * face down) so that a save reads as the table would see it.  load()
 * checks every value's type and range against the table, rebuilds the
 * masks, then runs sylla_check() for everything that relates fields
 * (conservation, the decision's context): a state it accepts is one that
 * moves() and apply() handle safely.  Unknown keys are ignored; a missing
 * or malformed one fails.
 */
#include <stddef.h>
#include <string.h>

#include "games/sylla/sylla.h"

#define SAVE_VERSION 1
#define OWNER_NONE 255

enum field_kind {
	F_U8,		/* integer 0..max */
	F_U16,		/* integer 0..max, 16 bits */
	F_FIXED,	/* array of exactly len integers (u8) */
	F_COUNTED,	/* array of up to len integers; its length to count_off */
	F_GRID,		/* SY_EV_ROW arrays of SY_MAX_PLAYERS integers */
};

struct field {
	const char *name;
	uint8_t kind;
	size_t off;
	int len;
	size_t count_off;
	int max;
};

#define S(f) offsetof(struct sylla_state, f)
#define P(f) offsetof(struct sylla_player, f)

static const struct field state_fields[] = {
	{ "options", F_U8, S(opts), 0, 0, SO_SEALED },
	{ "turn", F_U8, S(turn), 0, 0, SY_TURNS },
	{ "phase", F_U8, S(phase), 0, 0, SP_OVER },
	{ "step", F_U8, S(step), 0, 0, SS_OVER },
	{ "decider", F_U8, S(decider), 0, 0, SY_NONE },
	{ "waiting", F_U8, S(waiting), 0, 0, (1 << SY_MAX_PLAYERS) - 1 },
	{ "asked", F_U8, S(asked), 0, 0, (1 << SY_MAX_PLAYERS) - 1 },
	{ "first_consul", F_U8, S(fc), 0, 0, SY_MAX_PLAYERS - 1 },
	{ "cursor", F_U8, S(cursor), 0, 0, 250 },
	{ "best_votes", F_U8, S(hi_votes), 0, 0, SY_MONEY + SY_CHARS },
	{ "best_voter", F_U8, S(hi_seat), 0, 0, SY_NONE },
	{ "sales", F_U8, S(sales), 0, 0, 5 },
	{ "last_buyer", F_U8, S(last_buyer), 0, 0, SY_NONE },
	{ "sale_slot", F_U8, S(sale_slot), 0, 0, SY_NONE },
	{ "best_bid", F_U8, S(bid_hi), 0, 0, SY_CHARS + SY_CRANES },
	{ "best_bidder", F_U8, S(bid_seat), 0, 0, SY_NONE },
	{ "to_tap", F_U8, S(tap_left), 0, 0, SY_CHARS + SY_CRANES },
	{ "temples_left", F_U8, S(temples_left), 0, 0, SY_NONE },
	{ "taverns_left", F_U8, S(taverns_left), 0, 0, SY_NONE },
	{ "tavern_moved", F_U8, S(tavern_moved), 0, 0, (1 << ST_COUNT) - 1 },
	{ "event_row", F_FIXED, S(ev_row), SY_EV_ROW, 0, SY_NONE },
	{ "event_deck", F_COUNTED, S(ev_deck), SY_EV_DECK, S(nev_deck), SE_COUNT - 1 },
	{ "events_removed", F_U16, S(ev_gone), 0, 0, (1 << SE_COUNT) - 1 },
	{ "cubes", F_GRID, S(cubes), 0, 0, SY_CUBES },
	{ "avoided", F_U8, S(avoided), 0, 0, (1 << SY_EV_ROW) - 1 },
	{ "avoid_left", F_U8, S(avoid_left), 0, 0, 2 },
	{ "occur", F_U8, S(occur), 0, 0, SY_EV_ROW },
	{ "works", F_FIXED, S(works), SG_COUNT, 0, SG_COUNT - 1 },
	{ "works_known", F_U8, S(known), 0, 0, SY_TURNS },
	{ "tracks", F_FIXED, S(track), ST_COUNT, 0, SY_TRACK_MAX },
	{ "famine", F_U8, S(famine), 0, 0, SY_FAMINE_MAX },
	{ "supply", F_FIXED, S(supply), ST_COUNT, 0, SY_TOKENS - 1 },
	{ "cranes", F_U8, S(cranes), 0, 0, SY_CRANES },
	{ "deck", F_COUNTED, S(deck), SY_CHARS, S(ndeck), SY_CHARS - 1 },
	{ "unseen", F_U8, S(unseen), 0, 0, SY_CHARS },
	{ "for_hire", F_FIXED, S(row), SY_ROW, 0, SY_NONE },
	{ "stack", F_COUNTED, S(stack), SY_TILES, S(nstack), SY_TILES - 1 },
	{ "for_sale", F_FIXED, S(tiles), SY_ROW, 0, SY_NONE },
};

static const struct field player_fields[] = {
	{ "set", F_U8, P(set), 0, 0, SY_SETS - 1 },
	{ "money", F_U8, P(money), 0, 0, SY_MONEY },
	{ "prestige", F_U16, P(prestige), 0, 0, SY_PRESTIGE_MAX },
	{ "tokens", F_FIXED, P(tok), ST_COUNT, 0, SY_TOKENS - 1 },
	{ "tokens_seen", F_FIXED, P(seen), ST_COUNT, 0, SY_TOKENS - 1 },
	{ "tokens_blind", F_U8, P(blind), 0, 0, 3 * (SY_TOKENS - 1) },
	{ "buildings", F_FIXED, P(zone), SZ_COUNT, 0, SY_TILES },
	{ "buildings_down", F_FIXED, P(zone_down), SZ_COUNT, 0, SY_TILES },
	{ "cranes_turned", F_U8, P(crane_used), 0, 0, SY_CRANES },
	{ "cubes_left", F_FIXED, P(cubes), 2, 0, SY_CUBES },
	{ "stage", F_U8, P(stage), 0, 0, SST_DONE },
	{ "thumb", F_U8, P(thumb), 0, 0, 1 },
	{ "amount", F_U8, P(amount), 0, 0, SY_NONE },
	{ "window", F_U8, P(win), 0, 0, 240 },
	{ "picks", F_U16, P(picks), 0, 0, (1 << SY_PER_SET) - 1 },
	{ "end_christians", F_U8, P(end_christians), 0, 0, SY_CHARS },
	{ "end_freed", F_U8, P(end_freed), 0, 0, SY_CHARS },
	{ "end_tokens", F_U16, P(end_tokens), 0, 0, SY_PRESTIGE_MAX },
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

static void save_fields(json_t *obj, const void *base, const struct field *f, size_t nf)
{
	const uint8_t *b = base;
	size_t i;
	int t;

	for (i = 0; i < nf; i++) {
		const uint8_t *v = b + f[i].off;
		json_t *val = NULL;
		uint16_t w;

		switch (f[i].kind) {
		case F_U8:
			val = json_integer(*v);
			break;
		case F_U16:
			memcpy(&w, v, sizeof(w));
			val = json_integer(w);
			break;
		case F_FIXED:
			val = int_array(v, f[i].len);
			break;
		case F_COUNTED:
			val = int_array(v, b[f[i].count_off]);
			break;
		case F_GRID:
			val = json_array();
			for (t = 0; t < SY_EV_ROW; t++)
				json_array_append_new(val, int_array(v + t * SY_MAX_PLAYERS, SY_MAX_PLAYERS));
			break;
		}
		json_object_set_new(obj, f[i].name, val);
	}
}

json_t *sylla_save(const void *st)
{
	const struct sylla_state *s = st;
	json_t *j = json_object(), *players = json_array(), *owner = json_array();
	json_t *tapped = json_array(), *down = json_array();
	int i, c;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	save_fields(j, s, state_fields, NFIELDS(state_fields));
	for (c = 0; c < SY_CHARS; c++) {
		int o = OWNER_NONE;

		for (i = 0; i < s->nplayers; i++)
			if ((s->own[i] >> c) & 1)
				o = i;
		json_array_append_new(owner, json_integer(o));
		json_array_append_new(tapped, json_integer((int)((s->tapped >> c) & 1)));
		json_array_append_new(down, json_integer((int)((s->down >> c) & 1)));
	}
	json_object_set_new(j, "character_owner", owner);
	json_object_set_new(j, "character_tapped", tapped);
	json_object_set_new(j, "character_down", down);
	for (i = 0; i < s->nplayers; i++) {
		json_t *p = json_object();

		save_fields(p, &s->p[i], player_fields, NFIELDS(player_fields));
		json_array_append_new(players, p);
	}
	json_object_set_new(j, "seats", players);
	json_object_set_new(j, "rng", rng_to_json(&s->rng));
	return j;
}

/* ---- load ---- */

static int get_int(const json_t *v, int max, int *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	if (x < 0 || x > max)
		return -1;
	*out = (int)x;
	return 0;
}

static int load_array(const json_t *a, uint8_t *v, int min_len, int max_len, int max, int *len)
{
	size_t i, n;

	if (!json_is_array(a))
		return -1;
	n = json_array_size(a);
	if ((int)n < min_len || (int)n > max_len)
		return -1;
	for (i = 0; i < n; i++) {
		int x;

		if (get_int(json_array_get(a, i), max, &x))
			return -1;
		v[i] = (uint8_t)x;
	}
	if (len)
		*len = (int)n;
	return 0;
}

static int load_fields(const json_t *obj, void *base, const struct field *f, size_t nf,
		       struct buf *err)
{
	uint8_t *b = base;
	size_t i;
	int t;

	for (i = 0; i < nf; i++) {
		const json_t *v = json_object_get(obj, f[i].name);
		uint8_t *dst = b + f[i].off;
		int x, n;
		uint16_t w;

		switch (f[i].kind) {
		case F_U8:
			if (get_int(v, f[i].max, &x))
				goto bad;
			*dst = (uint8_t)x;
			break;
		case F_U16:
			if (get_int(v, f[i].max, &x))
				goto bad;
			w = (uint16_t)x;
			memcpy(dst, &w, sizeof(w));
			break;
		case F_FIXED:
			if (load_array(v, dst, f[i].len, f[i].len, f[i].max, NULL))
				goto bad;
			break;
		case F_COUNTED:
			if (load_array(v, dst, 0, f[i].len, f[i].max, &n))
				goto bad;
			b[f[i].count_off] = (uint8_t)n;
			break;
		case F_GRID:
			if (!json_is_array(v) || json_array_size(v) != SY_EV_ROW)
				goto bad;
			for (t = 0; t < SY_EV_ROW; t++)
				if (load_array(json_array_get(v, (size_t)t), dst + t * SY_MAX_PLAYERS,
					       SY_MAX_PLAYERS, SY_MAX_PLAYERS, f[i].max, NULL))
					goto bad;
			break;
		}
		continue;
bad:
		buf_setf(err, "bad Sylla save: field \"%s\" missing or out of range", f[i].name);
		return -1;
	}
	return 0;
}

int sylla_load(void *st, const json_t *j, struct buf *err)
{
	struct sylla_state *s = st;
	const json_t *seats, *owner, *tapped, *down;
	int n, i, c;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j) || get_int(json_object_get(j, "v"), 1000, &n) || n != SAVE_VERSION) {
		buf_setf(err, "%s", "bad Sylla save: not a version 1 save");
		return -1;
	}
	if (get_int(json_object_get(j, "players"), SY_MAX_PLAYERS, &n) || n < SY_MIN_PLAYERS) {
		buf_setf(err, "%s", "bad Sylla save: players");
		return -1;
	}
	s->nplayers = (uint8_t)n;
	if (load_fields(j, s, state_fields, NFIELDS(state_fields), err))
		goto fail;
	seats = json_object_get(j, "seats");
	if (!json_is_array(seats) || (int)json_array_size(seats) != n) {
		buf_setf(err, "%s", "bad Sylla save: seats");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		const json_t *p = json_array_get(seats, (size_t)i);

		if (!json_is_object(p)) {
			buf_setf(err, "%s", "bad Sylla save: a seat is not an object");
			goto fail;
		}
		if (load_fields(p, &s->p[i], player_fields, NFIELDS(player_fields), err))
			goto fail;
	}
	owner = json_object_get(j, "character_owner");
	tapped = json_object_get(j, "character_tapped");
	down = json_object_get(j, "character_down");
	if (!json_is_array(owner) || !json_is_array(tapped) || !json_is_array(down) ||
	    json_array_size(owner) != SY_CHARS || json_array_size(tapped) != SY_CHARS ||
	    json_array_size(down) != SY_CHARS) {
		buf_setf(err, "%s", "bad Sylla save: characters");
		goto fail;
	}
	for (c = 0; c < SY_CHARS; c++) {
		int o, t, d;

		if (get_int(json_array_get(owner, (size_t)c), OWNER_NONE, &o) ||
		    (o != OWNER_NONE && o >= n) || get_int(json_array_get(tapped, (size_t)c), 1, &t) ||
		    get_int(json_array_get(down, (size_t)c), 1, &d)) {
			buf_setf(err, "%s", "bad Sylla save: a character's owner or state");
			goto fail;
		}
		if (o != OWNER_NONE)
			s->own[o] |= 1ULL << c;
		if (t)
			s->tapped |= 1ULL << c;
		if (d)
			s->down |= 1ULL << c;
	}
	if (rng_from_json(json_object_get(j, "rng"), &s->rng)) {
		buf_setf(err, "%s", "bad Sylla save: rng");
		goto fail;
	}
	if (sylla_check(s, err))
		goto fail;
	return 0;
fail:
	memset(s, 0, sizeof(*s));
	return -1;
}
