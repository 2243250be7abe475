/*
 * save.c: a Sylla state as JSON ("v": 2) and back.
 *
 * One table of fields (struct game_field, games/game.h) drives both
 * directions: 8- and 16-bit scalars, fixed arrays, arrays whose length
 * lives in a count field, and the cube grid.  The character masks are
 * saved per card (owner, tapped, face down) so that a save reads as the
 * table would see it.  load() checks every value's type and range against
 * the table, rebuilds the masks, then runs sylla_check() for everything
 * that relates fields (conservation, the decision's context): a state it
 * accepts is one that moves() and apply() handle safely.  Unknown keys are
 * ignored; a missing or malformed one fails.
 *
 * Version 2 adds each seat's "cranes_new" (the Cranes bought this turn,
 * shown as usable next turn); a version 1 save loads with none.
 */
#include <stddef.h>
#include <string.h>

#include "games/sylla/sylla.h"

#define SAVE_VERSION 2
#define OWNER_NONE 255

#define S(f) offsetof(struct sylla_state, f)
#define P(f) offsetof(struct sylla_player, f)

static const struct game_field state_fields[] = {
	GAME_U8("options", S(opts), SO_SEALED),
	GAME_U8("turn", S(turn), SY_TURNS),
	GAME_U8("phase", S(phase), SP_OVER),
	GAME_U8("step", S(step), SS_OVER),
	GAME_U8("decider", S(decider), SY_NONE),
	GAME_U8("waiting", S(waiting), (1 << SY_MAX_PLAYERS) - 1),
	GAME_U8("asked", S(asked), (1 << SY_MAX_PLAYERS) - 1),
	GAME_U8("first_consul", S(fc), SY_MAX_PLAYERS - 1),
	GAME_U8("cursor", S(cursor), 250),
	GAME_U8("best_votes", S(hi_votes), SY_MONEY + SY_CHARS),
	GAME_U8("best_voter", S(hi_seat), SY_NONE),
	GAME_U8("sales", S(sales), 5),
	GAME_U8("last_buyer", S(last_buyer), SY_NONE),
	GAME_U8("sale_slot", S(sale_slot), SY_NONE),
	GAME_U8("best_bid", S(bid_hi), SY_CHARS + SY_CRANES),
	GAME_U8("best_bidder", S(bid_seat), SY_NONE),
	GAME_U8("to_tap", S(tap_left), SY_CHARS + SY_CRANES),
	GAME_U8("temples_left", S(temples_left), SY_NONE),
	GAME_U8("taverns_left", S(taverns_left), SY_NONE),
	GAME_U8("tavern_moved", S(tavern_moved), (1 << ST_COUNT) - 1),
	GAME_FIXED("event_row", S(ev_row), SY_EV_ROW, SY_NONE),
	GAME_COUNTED("event_deck", S(ev_deck), SY_EV_DECK, S(nev_deck), SE_COUNT - 1),
	GAME_U16("events_removed", S(ev_gone), (1 << SE_COUNT) - 1),
	GAME_GRID("cubes", S(cubes), SY_EV_ROW, SY_MAX_PLAYERS, SY_CUBES),
	GAME_U8("avoided", S(avoided), (1 << SY_EV_ROW) - 1),
	GAME_U8("avoid_left", S(avoid_left), 2),
	GAME_U8("occur", S(occur), SY_EV_ROW),
	GAME_FIXED("works", S(works), SG_COUNT, SG_COUNT - 1),
	GAME_U8("works_known", S(known), SY_TURNS),
	GAME_FIXED("tracks", S(track), ST_COUNT, SY_TRACK_MAX),
	GAME_U8("famine", S(famine), SY_FAMINE_MAX),
	GAME_FIXED("supply", S(supply), ST_COUNT, SY_TOKENS - 1),
	GAME_U8("cranes", S(cranes), SY_CRANES),
	GAME_COUNTED("deck", S(deck), SY_CHARS, S(ndeck), SY_CHARS - 1),
	GAME_U8("unseen", S(unseen), SY_CHARS),
	GAME_FIXED("for_hire", S(row), SY_ROW, SY_NONE),
	GAME_COUNTED("stack", S(stack), SY_TILES, S(nstack), SY_TILES - 1),
	GAME_FIXED("for_sale", S(tiles), SY_ROW, SY_NONE),
};

static const struct game_field player_fields[] = {
	GAME_U8("set", P(set), SY_SETS - 1),
	GAME_U8("money", P(money), SY_MONEY),
	GAME_U16("prestige", P(prestige), SY_PRESTIGE_MAX),
	GAME_FIXED("tokens", P(tok), ST_COUNT, SY_TOKENS - 1),
	GAME_FIXED("tokens_seen", P(seen), ST_COUNT, SY_TOKENS - 1),
	GAME_U8("tokens_blind", P(blind), 3 * (SY_TOKENS - 1)),
	GAME_FIXED("buildings", P(zone), SZ_COUNT, SY_TILES),
	GAME_FIXED("buildings_down", P(zone_down), SZ_COUNT, SY_TILES),
	GAME_U8("cranes_turned", P(crane_used), SY_CRANES),
	GAME_FIXED("cubes_left", P(cubes), 2, SY_CUBES),
	GAME_U8("stage", P(stage), SST_DONE),
	GAME_U8("thumb", P(thumb), 1),
	GAME_U8("amount", P(amount), SY_NONE),
	GAME_U8("window", P(win), 240),
	GAME_U16("picks", P(picks), (1 << SY_PER_SET) - 1),
	GAME_U8("end_christians", P(end_christians), SY_CHARS),
	GAME_U8("end_freed", P(end_freed), SY_CHARS),
	GAME_U16("end_tokens", P(end_tokens), SY_PRESTIGE_MAX),
};

#define NFIELDS(t) (sizeof(t) / sizeof(*(t)))

/* ---- save ---- */

json_t *sylla_save(const void *st)
{
	const struct sylla_state *s = st;
	json_t *j = json_object(), *players = json_array(), *owner = json_array();
	json_t *tapped = json_array(), *down = json_array();
	int i, c;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	game_fields_save(j, s, state_fields, NFIELDS(state_fields), s->nplayers);
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

		game_fields_save(p, &s->p[i], player_fields, NFIELDS(player_fields), s->nplayers);
		json_object_set_new(p, "cranes_new", json_integer(s->p[i].crane_new));
		json_array_append_new(players, p);
	}
	json_object_set_new(j, "seats", players);
	json_object_set_new(j, "rng", rng_to_json(&s->rng));
	return j;
}

/* ---- load ---- */

static int load_fields(const json_t *obj, void *base, const struct game_field *f, size_t nf,
		       struct buf *err)
{
	const struct game_field *bad;

	if (!game_fields_load(obj, base, f, nf, 0, &bad))
		return 0;
	buf_setf(err, "bad Sylla save: field \"%s\" missing or out of range", bad->name);
	return -1;
}

int sylla_load(void *st, const json_t *j, struct buf *err)
{
	struct sylla_state *s = st;
	const json_t *seats, *owner, *tapped, *down;
	json_int_t x, version;
	int n, i, c;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j) || game_json_int(json_object_get(j, "v"), 1, SAVE_VERSION, &version)) {
		buf_setf(err, "%s", "bad Sylla save: not a version 1 or 2 save");
		return -1;
	}
	if (game_json_int(json_object_get(j, "players"), SY_MIN_PLAYERS, SY_MAX_PLAYERS, &x)) {
		buf_setf(err, "%s", "bad Sylla save: players");
		return -1;
	}
	n = (int)x;
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
		if (version >= 2) {
			if (game_json_int(json_object_get(p, "cranes_new"), 0, SY_CRANES, &x)) {
				buf_setf(err, "%s", "bad Sylla save: field \"cranes_new\" missing or out of range");
				goto fail;
			}
			s->p[i].crane_new = (uint8_t)x;
		}
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
		json_int_t o, t, d;

		if (game_json_int(json_array_get(owner, (size_t)c), 0, OWNER_NONE, &o) ||
		    (o != OWNER_NONE && o >= n) ||
		    game_json_int(json_array_get(tapped, (size_t)c), 0, 1, &t) ||
		    game_json_int(json_array_get(down, (size_t)c), 0, 1, &d)) {
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
