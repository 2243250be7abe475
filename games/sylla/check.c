/*
 * check.c: Sylla's invariants (game_ops.check): every card, tile, event,
 * coin, token, cube and Crane accounted for and in range, and the decision
 * asked consistent with the position, so that load() (which ends with
 * this) never hands moves() or apply() a state they cannot handle.
 */
#include <string.h>

#include "games/sylla/sylla.h"

#define FAIL(...) do { buf_setf(err, __VA_ARGS__); return -1; } while (0)

static int popc(uint64_t x)
{
	return __builtin_popcountll(x);
}

static int check_characters(const struct sylla_state *s, struct buf *err)
{
	uint64_t all = 0, owned = 0;
	int i;

	for (i = 0; i < SY_MAX_PLAYERS; i++) {
		if (i >= s->nplayers && s->own[i])
			FAIL("characters owned by seat %d, beyond the players", i + 1);
		if (s->own[i] >> SY_CHARS)
			FAIL("character mask of seat %d out of range", i + 1);
		if (owned & s->own[i])
			FAIL("a character is owned twice");
		owned |= s->own[i];
	}
	all = owned;
	if (s->ndeck > SY_CHARS || s->unseen > s->ndeck)
		FAIL("character deck %d, unseen %d", s->ndeck, s->unseen);
	for (i = 0; i < s->ndeck; i++) {
		if (s->deck[i] >= SY_CHARS || ((all >> s->deck[i]) & 1))
			FAIL("character %d of the deck is out of range or elsewhere too", s->deck[i]);
		all |= 1ULL << s->deck[i];
	}
	for (i = s->ndeck; i < SY_CHARS; i++)
		if (s->deck[i])
			FAIL("stale entry past the character deck");
	for (i = 0; i < SY_ROW; i++) {
		if (s->row[i] == SY_NONE)
			continue;
		if (s->row[i] >= SY_CHARS || ((all >> s->row[i]) & 1))
			FAIL("character %d for hire is out of range or elsewhere too", s->row[i]);
		all |= 1ULL << s->row[i];
	}
	if (s->phase == SP_SETUP) {
		if (all)
			FAIL("characters placed before the first choice is revealed");
	} else if (all != (1ULL << SY_CHARS) - 1) {
		FAIL("%d of the 40 characters are missing", SY_CHARS - popc(all));
	}
	if ((s->tapped | s->down) & ~owned)
		FAIL("a character not in play is turned or face down");
	{
		uint64_t d = s->down;

		while (d) {
			int c = __builtin_ctzll(d);

			d &= d - 1;
			if (!sylla_covered(s, c))
				FAIL("character %d is face down with no event keeping it so", c);
		}
	}
	return 0;
}

static int check_tiles(const struct sylla_state *s, struct buf *err)
{
	uint32_t seen = 0;
	int i, t, copies[SB_COUNT] = { 0 }, left[SB_COUNT] = { 0 }, z;

	/* 6 a turn leave it (fewer only in tests that hand out buildings) */
	if (s->nstack > SY_TILES - SY_ROW * s->turn)
		FAIL("building stack %d, at most %d in turn %d", s->nstack, SY_TILES - SY_ROW * s->turn,
		     s->turn);
	for (i = 0; i < s->nstack; i++) {
		t = s->stack[i];
		if (t >= SY_TILES || ((seen >> t) & 1))
			FAIL("building tile %d of the stack is out of range or twice", t);
		seen |= 1u << t;
		/* C at the bottom, then B, then A on top */
		if (i && sylla_tiles[t].letter > sylla_tiles[s->stack[i - 1]].letter)
			FAIL("building stack out of letter order");
		left[sylla_tiles[t].type]++;
	}
	for (i = s->nstack; i < SY_TILES; i++)
		if (s->stack[i])
			FAIL("stale entry past the building stack");
	for (i = 0; i < SY_ROW; i++) {
		t = s->tiles[i];
		if (t == SY_NONE)
			continue;
		if (t >= SY_TILES || ((seen >> t) & 1))
			FAIL("building tile %d for sale is out of range or twice", t);
		seen |= 1u << t;
		left[sylla_tiles[t].type]++;
	}
	for (t = 0; t < SY_TILES; t++)
		copies[sylla_tiles[t].type]++;
	for (z = 0; z < SZ_COUNT; z++) {
		int type = sylla_zone_type[z], held = 0;

		for (i = 0; i < s->nplayers; i++)
			held += s->p[i].zone[z] + s->p[i].zone_down[z];
		if (held + left[type] > copies[type])
			FAIL("%d buildings of type %d in play, %d in the box", held + left[type], type,
			     copies[type]);
		for (i = 0; i < s->nplayers; i++)
			if (s->p[i].zone_down[z] && !sylla_covered(s, SY_CHARS + z))
				FAIL("a building of seat %d is face down with no event keeping it so", i + 1);
	}
	{
		int cranes = s->cranes;

		for (i = 0; i < s->nplayers; i++) {
			cranes += s->p[i].zone[SZ_CRANE] + s->p[i].zone_down[SZ_CRANE];
			if (s->p[i].crane_new > s->p[i].crane_used)
				FAIL("seat %d: %d Cranes new this turn, %d turned", i + 1, s->p[i].crane_new,
				     s->p[i].crane_used);
			if (s->p[i].crane_used > s->p[i].zone[SZ_CRANE])
				FAIL("seat %d turned more Cranes than it has", i + 1);
		}
		if (cranes != SY_CRANES)
			FAIL("%d Crane cards, not %d", cranes, SY_CRANES);
	}
	return 0;
}

static int check_events(const struct sylla_state *s, struct buf *err)
{
	unsigned all = 0;
	int i, e, removed = popc(s->ev_gone);

	if (s->ev_row[SY_EV_ROW - 1] != SE_DECADENCE)
		FAIL("the Decadencia is not in its place");
	for (i = 0; i < SY_EV_ROW; i++) {
		e = s->ev_row[i];
		if (e >= SE_COUNT || ((all >> e) & 1))
			FAIL("event slot %d holds %d", i + 1, e);
		all |= 1u << e;
	}
	if (s->nev_deck > SY_EV_DECK)
		FAIL("event deck %d", s->nev_deck);
	for (i = 0; i < s->nev_deck; i++) {
		e = s->ev_deck[i];
		if (e >= SE_COUNT || ((all >> e) & 1))
			FAIL("event %d of the deck is out of range or elsewhere too", e);
		all |= 1u << e;
	}
	for (i = s->nev_deck; i < SY_EV_DECK; i++)
		if (s->ev_deck[i])
			FAIL("stale entry past the event deck");
	if (all & s->ev_gone)
		FAIL("a removed event is still in play");
	if ((all | s->ev_gone) != (1u << SE_COUNT) - 1)
		FAIL("events missing");
	if ((s->ev_gone >> SE_DECADENCE) & 1)
		FAIL("the Decadencia was removed");
	/* one a turn (none in tests that skip phase V) */
	if (removed > s->turn)
		FAIL("%d events removed in turn %d", removed, s->turn);
	for (i = 0; i < SY_EV_ROW; i++) {
		int k, placed = 0;

		for (k = 0; k < SY_MAX_PLAYERS; k++) {
			if (k >= s->nplayers && s->cubes[i][k])
				FAIL("cubes of a missing seat");
			placed += s->cubes[i][k];
		}
		if (placed && s->phase != SP_EVENTS)
			FAIL("cubes on the events outside phase V");
	}
	for (i = 0; i < s->nplayers; i++) {
		int k, placed = 0;

		for (k = 0; k < SY_EV_ROW; k++)
			placed += s->cubes[k][i];
		if (placed + s->p[i].cubes[0] + s->p[i].cubes[1] > SY_CUBES)
			FAIL("seat %d uses more than %d cubes", i + 1, SY_CUBES);
		if ((s->p[i].cubes[0] || s->p[i].cubes[1]) && s->phase != SP_EVENTS)
			FAIL("cubes held outside phase V");
	}
	return 0;
}

static int check_economy(const struct sylla_state *s, struct buf *err)
{
	unsigned works = 0;
	int i, t, money = 0;

	for (i = 0; i < SG_COUNT; i++) {
		if (s->works[i] >= SG_COUNT || ((works >> s->works[i]) & 1))
			FAIL("the Great Works are not a shuffle of the six");
		works |= 1u << s->works[i];
	}
	if (s->known < 1 || s->known < s->turn || s->known > s->turn + 1 || s->known > SY_TURNS)
		FAIL("Great Works known %d in turn %d", s->known, s->turn);
	for (t = 0; t < ST_COUNT; t++) {
		int held = s->supply[t];

		if (s->track[t] > SY_TRACK_MAX)
			FAIL("track %d at %d", t, s->track[t]);
		for (i = 0; i < s->nplayers; i++) {
			held += s->p[i].tok[t];
			if (s->p[i].seen[t] > s->p[i].tok[t])
				FAIL("seat %d was seen with more tokens than it has", i + 1);
		}
		if (held != SY_TOKENS - 1)
			FAIL("%d tokens of colour %d, not %d", held, t, SY_TOKENS - 1);
	}
	if (s->famine > SY_FAMINE_MAX)
		FAIL("famine %d", s->famine);
	for (i = 0; i < s->nplayers; i++) {
		const struct sylla_player *p = &s->p[i];
		int hidden = 0;

		for (t = 0; t < ST_COUNT; t++)
			hidden += p->tok[t] - p->seen[t];
		if (hidden != p->blind)
			FAIL("seat %d: %d tokens unseen, %d recorded", i + 1, hidden, p->blind);
		if (p->prestige > SY_PRESTIGE_MAX)
			FAIL("seat %d prestige %d", i + 1, p->prestige);
		if (p->set >= SY_SETS || (s->nplayers == 3 && p->set == 3))
			FAIL("seat %d holds income tile %d", i + 1, p->set + 1);
		for (t = 0; t < i; t++)
			if (s->p[t].set == p->set)
				FAIL("two seats hold income tile %d", p->set + 1);
		money += p->money;
	}
	if (money > SY_MONEY)
		FAIL("%d denarii in play, %d in the box", money, SY_MONEY);
	if (s->fc >= s->nplayers)
		FAIL("First Consul %d", s->fc);
	return 0;
}

/* The decision asked fits the position; every awaited seat can move. */
static int check_decision(const struct sylla_state *s, struct buf *err)
{
	unsigned all = (1u << s->nplayers) - 1, aw;
	struct move_list ml;
	int i;

	if ((s->phase == SP_OVER) != (s->step == SS_OVER))
		FAIL("phase %d with step %d", s->phase, s->step);
	if (s->phase == SP_OVER)
		return 0;
	if ((s->phase == SP_SETUP) != (s->step == SS_PICK))
		FAIL("the first choice outside setup");
	if (sylla_secret_step(s->step)) {
		if (s->waiting & ~s->asked || s->asked & ~all || !s->waiting)
			FAIL("secret step waits for %#x of %#x", s->waiting, s->asked);
		for (i = 0; i < s->nplayers; i++) {
			const struct sylla_player *p = &s->p[i];
			int w = (s->waiting >> i) & 1;

			if (w != (p->stage != SST_DONE))
				FAIL("seat %d stage %d while %s", i + 1, p->stage, w ? "awaited" : "done");
			if (p->stage == SST_AMOUNT && s->step != SS_VOTE)
				FAIL("seat %d at an amount stage outside a vote", i + 1);
			if (s->step == SS_PICK) {
				int n = popc(p->picks), need = sylla_pick_count(s);

				if (n > need || (p->stage == SST_CHOOSE && n == need) ||
				    (p->stage != SST_CHOOSE && n != need))
					FAIL("seat %d picked %d of %d", i + 1, n, need);
			} else if (s->step == SS_HIDE) {
				if (p->stage != SST_CHOOSE && !sylla_hide_valid(s, i, p->amount))
					FAIL("seat %d would turn over %d", i + 1, p->amount);
			} else if (p->stage != SST_CHOOSE &&
				   (s->step == SS_FREE ? 2 * p->amount : p->amount) > p->money) {
				FAIL("seat %d commits %d of %d denarii", i + 1, p->amount, p->money);
			}
			if (s->step == SS_FREE && p->stage != SST_CHOOSE &&
			    p->amount > popc(sylla_up(s, i) & sylla_mask.kind[SK_SLAVE]))
				FAIL("seat %d frees %d slaves", i + 1, p->amount);
			if (s->step == SS_HIDE && p->stage == SST_CHOOSE && p->amount)
				FAIL("seat %d: a choice recorded before it was made", i + 1);
		}
		if (s->step == SS_HIDE && (s->occur < 1 || s->occur > SY_EV_ROW ||
					   ((s->avoided >> (s->occur - 1)) & 1)))
			FAIL("turning cards over for no event");
	} else {
		if (s->waiting || s->decider >= s->nplayers)
			FAIL("step %d asks seat %d", s->step, s->decider);
		for (i = 0; i < s->nplayers; i++)
			if (s->p[i].stage != SST_DONE && s->p[i].stage != SST_CHOOSE)
				FAIL("seat %d in a secret stage outside a secret step", i + 1);
		switch (s->step) {
		case SS_ELECT:
			if (s->phase != SP_CONSUL || s->cursor >= s->nplayers ||
			    s->decider != (s->fc + s->cursor) % s->nplayers || (s->opts & SO_SEALED))
				FAIL("election out of turn");
			if (s->hi_seat != SY_NONE && s->hi_seat >= s->nplayers)
				FAIL("best offer by seat %d", s->hi_seat);
			break;
		case SS_TOKEN:
			if (s->decider != s->fc)
				FAIL("the token goes to the First Consul");
			break;
		case SS_RECRUIT:
		case SS_TEMPLE:
		case SS_TAVERN:
		case SS_CUBE:
			if (s->cursor >= (s->step == SS_CUBE ? 250 : s->nplayers) ||
			    s->decider != (s->fc + s->cursor) % s->nplayers)
				FAIL("step %d out of turn", s->step);
			if ((s->step == SS_TEMPLE || s->step == SS_TAVERN) &&
			    (s->temples_left > s->p[s->decider].zone[SZ_TEMPLE] ||
			     s->taverns_left > s->p[s->decider].zone[SZ_TAVERN]))
				FAIL("more Temples or Taverns to use than owned");
			break;
		case SS_OFFER:
			if (s->sale_slot != SY_NONE)
				FAIL("a sale under way while offering");
			/* fall through */
		case SS_BID:
		case SS_TAP:
		case SS_INSULA:
			if (s->phase != SP_BUILD || s->sales > (s->nplayers == 3 ? 4 : 5))
				FAIL("building step outside phase III");
			if (s->step == SS_OFFER)
				break;
			if (s->sale_slot >= SY_ROW)
				FAIL("no building on sale");
			if (s->step == SS_BID) {
				if (s->tiles[s->sale_slot] >= SY_TILES || s->cursor >= s->nplayers)
					FAIL("bidding on nothing");
				if (s->bid_seat != SY_NONE && s->bid_seat >= s->nplayers)
					FAIL("best bid by seat %d", s->bid_seat);
			}
			if (s->step == SS_TAP && (s->bid_seat != s->decider || !s->tap_left ||
						  s->tiles[s->sale_slot] >= SY_TILES))
				FAIL("paying for nothing");
			if (s->step == SS_INSULA && (s->last_buyer != s->decider ||
						     s->tiles[s->sale_slot] != SY_NONE))
				FAIL("an Insula for nobody");
			break;
		case SS_AVOID:
			if (s->decider != s->fc || !s->avoid_left ||
			    popc(s->avoided) + s->avoid_left != 2 ||
			    popc(sylla_avoid_candidates(s)) <= s->avoid_left)
				FAIL("no tie to break");
			break;
		case SS_REMOVE:
			if (s->decider != s->fc || popc(s->avoided) != 2)
				FAIL("no removal to choose");
			for (i = 0; i < SY_EV_ROW; i++)
				if ((s->avoided >> i) & 1 && s->ev_row[i] == SE_DECADENCE)
					FAIL("the Decadencia cannot be removed");
			break;
		default:
			FAIL("step %d", s->step);
		}
	}
	aw = sylla_awaiting(s);
	for (i = 0; i < s->nplayers; i++)
		if ((aw >> i) & 1 && sylla_moves(s, i, &ml) - ml.nmeta <= 0)
			FAIL("seat %d is awaited without a move", i + 1);
	return 0;
}

int sylla_check(const void *st, struct buf *err)
{
	const struct sylla_state *s = st;

	if (s->nplayers < SY_MIN_PLAYERS || s->nplayers > SY_MAX_PLAYERS)
		FAIL("%d players", s->nplayers);
	if (s->turn < 1 || s->turn > SY_TURNS || s->phase >= SP_COUNT || s->step >= SS_COUNT)
		FAIL("turn %d, phase %d, step %d", s->turn, s->phase, s->step);
	if (s->opts & ~SO_SEALED)
		FAIL("options %#x", s->opts);
	if (check_characters(s, err) || check_tiles(s, err) || check_events(s, err) ||
	    check_economy(s, err) || check_decision(s, err))
		return -1;
	return 0;
}
