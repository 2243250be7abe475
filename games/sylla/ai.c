/*
 * ai.c: a heuristic Sylla player (game_ops.bot_move) and its secret
 * choices, which determinize.c also uses to imagine the others' hidden
 * choices.
 *
 * Everything is valued in prestige.  A denarius is worth about half a
 * prestige until the last Great Work (it buys votes; the plebeians pay 1
 * per 2), then only what freeing slaves makes of it.  A token is worth its
 * marker's value now, plus a little while the marker is near the crisis
 * zone (crises pay the most tokens).  A character is worth its power over
 * the turns left, its hexagons and, if Christian, the 2 points of
 * Ecclesia.  Buildings are worth what they give over the turns left.
 *
 * The bot reads only what its seat may know: its own screen, everything
 * public, and the others' money, which every player can count (each
 * change of money happens in the open; see sylla.h).  The others' tokens
 * it estimates from what the table saw (seen) and a share of the rest.
 */
#include <string.h>

#include "games/sylla/sylla.h"

/* Tuning knobs (bench by self-play; -D to try others). */
#ifndef W_BIDK
#define W_BIDK 0.5		/* prestige a character turned costs beyond its power: the sales left */
#define W_TILE 1.0		/* buildings: weight of their yield */
#endif

static int popc(uint64_t x)
{
	return __builtin_popcountll(x);
}

/* Turns still to play, this one included. */
static int turns_left(const struct sylla_state *s)
{
	return SY_TURNS - s->turn + 1;
}

static double noise(struct rng *rng, double amp)
{
	return amp * ((double)rng_below(rng, 1000) / 1000.0 - 0.5);
}

static double money_value(const struct sylla_state *s)
{
	if (s->turn == SY_TURNS && s->phase >= SP_WORKS)
		return 0.2;
	return 0.55;
}

static double colour_worth(const struct sylla_state *s, int t)
{
	double v = sylla_track_value[s->track[t]];

	if (s->track[t] <= SY_CRISIS + 1)
		v += 1.0;	/* crises to come */
	return v;
}

static int best_colour(const struct sylla_state *s, struct rng *rng)
{
	double best = -1.0;
	int t, pick = 0;

	for (t = 0; t < ST_COUNT; t++) {
		double v = colour_worth(s, t) + noise(rng, 0.4);

		if (s->supply[t] && v > best) {
			best = v;
			pick = t;
		}
	}
	return pick;
}

/* A character's worth to its owner for the rest of the game. */
static double char_worth(const struct sylla_state *s, int card)
{
	const struct sylla_char_info *c = &sylla_chars[sylla_k(card)];
	int left = turns_left(s), h, colours = 0;
	double v = 0.0;

	for (h = 0; h < SC_COUNT; h++)
		colours += (int)((sylla_mask.colour[h] >> card) & 1);
	switch (c->kind) {
	case SK_SENATOR:
		v = 1.0 * left;
		break;
	case SK_MERCHANT:
		v = 0.6 * left;
		break;
	case SK_LEGIONARY:
	case SK_VESTAL:
		v = 1.4 * left;	/* a cube a turn: tokens and events avoided */
		break;
	case SK_SLAVE:
		v = 2.0;	/* freed at the end */
		break;
	}
	v += 0.35 * colours * left;
	if (c->christian)
		v += 1.6;
	return v;
}

/* What it costs to turn a card now (its power lost for this turn). */
static double tap_cost(const struct sylla_state *s, int card)
{
	if (card >= SY_CHARS)
		return 0.05;
	switch (sylla_chars[sylla_k(card)].kind) {
	case SK_SENATOR:
		return 0.9;
	case SK_MERCHANT:
		return 0.55;
	case SK_LEGIONARY:
	case SK_VESTAL:
		return 0.8;
	default:
		return 0.0;
	}
	(void)s;
}

/* Estimated tokens of colour t held by seat i, as seat `me` sees them. */
static double tokens_of(const struct sylla_state *s, int me, int i, int t)
{
	if (i == me)
		return s->p[i].tok[t];
	return s->p[i].seen[t] + s->p[i].blind / 3.0;
}

/* ---- buildings ---- */

static double tile_worth(const struct sylla_state *s, int seat, int type)
{
	int left = turns_left(s);
	double fam = s->famine + 1.0;

	switch (type) {
	case SB_STALL:
		return 2.0 * money_value(s) * left;
	case SB_FIELD: {
		int fields = s->p[seat].zone[SZ_FIELD];
		double cover = fam - 2.0 * fields;

		return (cover > 2.0 ? 2.0 : cover > 0.5 ? cover : 0.3) * left;
	}
	case SB_TEMPLE:
		return s->p[seat].money >= 3 ? 0.9 * left : 0.5 * left;
	case SB_INSULA:
		return 2.0 * colour_worth(s, 0) / 2.0 + colour_worth(s, 1) / 2.0 + colour_worth(s, 2) / 2.0;
	case SB_CRANE:
		return 0.9 * (left - 1) + 0.2;
	case SB_TAVERN:
		return 0.7 * left;
	case SB_ARCH:
		return 6.0;
	case SB_STATUE:
		return 4.0;
	case SB_BANK:
		return 5.0 * money_value(s);
	}
	return 0.0;
}

/* Cheapest cost of turning k of seat's payers of colour c. */
static double pay_cost(const struct sylla_state *s, int seat, int c, int k)
{
	double cost[SY_CHARS + SY_CRANES], sum = 0.0;
	uint64_t pay = s->own[seat] & ~s->down & ~s->tapped & sylla_mask.colour[c];
	int n = 0, i, j, cr = s->p[seat].zone[SZ_CRANE] - s->p[seat].crane_used;

	while (pay) {
		cost[n++] = tap_cost(s, __builtin_ctzll(pay));
		pay &= pay - 1;
	}
	for (i = 0; i < cr && n < SY_CHARS + SY_CRANES; i++)
		cost[n++] = tap_cost(s, SY_CHARS);
	for (i = 0; i < k && i < n; i++) {
		int m = i;

		for (j = i + 1; j < n; j++)
			if (cost[j] < cost[m])
				m = j;
		{
			double t = cost[i];

			cost[i] = cost[m];
			cost[m] = t;
		}
		sum += cost[i];
	}
	return sum;
}

/* The most seat would bid for the tile on sale. */
static int max_bid(const struct sylla_state *s, int seat, int slot, struct rng *rng)
{
	int c = sylla_slot_colour[slot], power = sylla_buy_power(s, seat, c), k, best = 0;
	double worth = W_TILE * tile_worth(s, seat, sylla_tiles[s->tiles[slot]].type) + noise(rng, 0.6);

	for (k = 1; k <= power; k++)
		if (worth - pay_cost(s, seat, c, k) - W_BIDK * k > 0.0)
			best = k;
	return best;
}

/* ---- events ---- */

/* How much event e happening now would cost seat (prestige). */
static double event_harm(const struct sylla_state *s, int seat, int e)
{
	const struct sylla_player *p = &s->p[seat];
	int left = turns_left(s), t, top = 0;
	double h = 0.0;

	switch (e) {
	case SE_EPIDEMIC:
		t = ST_HEALTH;
		goto track;
	case SE_ERUPTION:
		t = ST_LEISURE;
		goto track;
	case SE_CULT:
		t = ST_CIVIC;
		goto track;
	case SE_FAMINE:
		return p->zone[SZ_FIELD] * 2 > s->famine ? 0.3 : 1.0 * left;
	case SE_FLOOD:
		return p->zone[SZ_STALL] + p->zone[SZ_FIELD] + p->zone[SZ_TEMPLE] + p->zone[SZ_TAVERN] +
		       p->zone[SZ_CRANE] ? 0.8 * left : 0.0;
	case SE_PERSECUTION:
		return popc(sylla_up(s, seat) & sylla_mask.christian) ? 2.5 : 0.0;
	case SE_PURGE:
		return popc(sylla_up(s, seat) & sylla_mask.kind[SK_SENATOR]) ? 1.0 * left : 0.0;
	case SE_REVOLT:
		return popc(sylla_up(s, seat) & sylla_mask.kind[SK_SLAVE]) ? 2.0 : 0.0;
	case SE_PILLAGE:
		return p->zone[SZ_STALL] ? 1.2 * left : 0.0;
	case SE_DECADENCE:
		for (t = 0; t < ST_COUNT; t++)
			top = top > s->track[t] ? top : s->track[t];
		for (t = 0; t < ST_COUNT; t++)
			if (s->track[t] == top && top > 0)
				h += 0.5 * p->tok[t];
		return h;
	}
	return 0.0;
track:
	h = 0.5 * p->tok[t];
	if (s->track[t] <= SY_CRISIS + 1)
		h += 1.0;
	return h;
}

static int cube_move(const struct sylla_state *s, int seat, const struct move_list *ml,
		     struct rng *rng)
{
	double best = -1e9;
	int i, pick = 0;

	for (i = 0; i < ml->n; i++) {
		int slot = ml->v[i].a, e = s->ev_row[slot], k, mine = s->cubes[slot][seat] + 1, other = 0;
		double v;

		for (k = 0; k < s->nplayers; k++)
			if (k != seat && s->cubes[slot][k] > other)
				other = s->cubes[slot][k];
		if (e == SE_DECADENCE)
			v = mine >= other ? 1.0 : 0.3;
		else
			v = mine >= other ? colour_worth(s, sylla_events[e].token) * (mine > other ? 1.0 : 0.8)
					  : 0.4;
		if (mine - 1 > other)
			v *= 0.3;	/* a majority already held */
		v += 0.35 * event_harm(s, seat, e);
		/* keep Legionary cubes for the events only they fight */
		if (ml->v[i].b == SK_VESTAL && sylla_fights(e, SK_LEGIONARY))
			v -= 0.05;
		v += noise(rng, 0.3);
		if (v > best) {
			best = v;
			pick = i;
		}
	}
	return pick;
}

/* ---- secret choices ---- */

static uint16_t pick_target(const struct sylla_state *s, int seat, struct rng *rng)
{
	const struct sylla_player *p = &s->p[seat];
	double v[SY_PER_SET];
	int k, n = 0, need = sylla_pick_count(s), kinds[SK_COUNT] = { 0 };
	uint16_t picks = p->picks;

	for (k = 0; k < SY_PER_SET; k++) {
		v[k] = char_worth(s, p->set * SY_PER_SET + k) + noise(rng, 1.5);
		if ((picks >> k) & 1) {
			n++;
			kinds[sylla_chars[k].kind]++;
		}
	}
	while (n < need) {
		double best = -1e9;
		int pick = -1;

		for (k = 0; k < SY_PER_SET; k++) {
			double x;

			if ((picks >> k) & 1)
				continue;
			/* variety: the second of a kind is worth less */
			x = v[k] - 2.0 * kinds[sylla_chars[k].kind];
			if (sylla_chars[k].kind == SK_MERCHANT)
				x += 1.0;	/* a denarius at once */
			if (x > best) {
				best = x;
				pick = k;
			}
		}
		picks |= (uint16_t)(1u << pick);
		kinds[sylla_chars[pick].kind]++;
		n++;
	}
	return picks;
}

/* Others' likely votes on a Great Work: Senators and part of their money. */
static double guess_votes(const struct sylla_state *s, int i)
{
	return sylla_senators(s, i) + 0.45 * s->p[i].money;
}

static void vote_choice(const struct sylla_state *s, int seat, struct rng *rng, uint8_t *thumb,
			uint8_t *amount)
{
	int w = s->works[s->turn], sen = sylla_senators(s, seat), money = s->p[seat].money, d, i;
	double best = -1e9, mv = money_value(s), keep = 0.0;
	int slaves = popc(sylla_up(s, seat) & sylla_mask.kind[SK_SLAVE]);

	if (s->turn == SY_TURNS)
		keep = 2.0 * slaves;	/* denarii for freeing the slaves */
	*thumb = 0;
	*amount = 0;
	for (d = 0; d <= money; d++) {
		int votes = sen + d, rank = 0, t;
		double up, down, cost, trackv = 0.0;

		cost = d * mv;
		if (d > money - keep)
			cost += (d - (money - keep)) * 1.5;
		if (!votes)
			continue;
		for (i = 0; i < s->nplayers; i++)
			if (i != seat && guess_votes(s, i) > votes + 0.5)
				rank++;
		up = sylla_work_points(w, rank, votes);
		if (w != SG_TEMPLE && rank >= (w == SG_PANTHEON ? 3 : 2))
			up = 0.0;
		t = sylla_works[w].track;
		if (t < ST_COUNT && sylla_works[w].per)
			trackv = 0.3 * s->p[seat].tok[t] * votes / sylla_works[w].per;
		up += trackv;
		down = votes / 2;
		up += noise(rng, 0.8);
		if (up - cost > best) {
			best = up - cost;
			*thumb = 1;
			*amount = (uint8_t)d;
		}
		if (down - cost > best) {
			best = down - cost;
			*thumb = 0;
			*amount = (uint8_t)d;
		}
	}
}

static int sealed_offer(const struct sylla_state *s, int seat, struct rng *rng, uint8_t *amount)
{
	int money = s->p[seat].money, sen = sylla_senators(s, seat);
	int want = 2 + (int)rng_below(rng, 3) + (s->turn == 1 ? 1 : 0);

	if (want > money)
		want = money;
	if (!want && !sen)
		return 0;
	*amount = (uint8_t)want;
	return 1;
}

/* Least valuable thing to turn face down for the event being resolved. */
static int hide_target(const struct sylla_state *s, int seat)
{
	struct move_list ml;
	double best = 1e9;
	int i, pick = SY_NONE;
	struct sylla_state tmp;

	/* the options as the seat would be offered them */
	memcpy(&tmp, s, sizeof(tmp));
	tmp.waiting |= (uint8_t)(1u << seat);
	tmp.p[seat].stage = SST_CHOOSE;
	sylla_moves(&tmp, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		int a = ml.v[i].a;
		double v;

		if (ml.v[i].kind != SM_HIDE)
			continue;
		if (a < SY_CHARS) {
			v = char_worth(s, a);
			if ((s->tapped >> a) & 1)
				v -= 1.0;
		} else {
			v = tile_worth(s, seat, sylla_zone_type[a - SY_CHARS]);
		}
		if (v < best) {
			best = v;
			pick = a;
		}
	}
	return pick;
}

void sylla_bot_secret(const struct sylla_state *s, int seat, struct rng *rng, struct sylla_player *out)
{
	int slaves, money;

	switch (s->step) {
	case SS_PICK:
		out->picks = pick_target(s, seat, rng);
		break;
	case SS_SEALED:
		out->amount = 0;
		out->thumb = (uint8_t)sealed_offer(s, seat, rng, &out->amount);
		break;
	case SS_VOTE:
		vote_choice(s, seat, rng, &out->thumb, &out->amount);
		break;
	case SS_HIDE:
		out->amount = (uint8_t)hide_target(s, seat);
		break;
	case SS_FREE:
		slaves = popc(sylla_up(s, seat) & sylla_mask.kind[SK_SLAVE]);
		money = s->p[seat].money / 2;
		out->amount = (uint8_t)(slaves < money ? slaves : money);
		break;
	}
}

/* ---- the move ---- */

static int find_move(const struct move_list *ml, int kind, int a, int b)
{
	int i;

	for (i = 0; i < ml->n; i++)
		if (ml->v[i].kind == kind && (a < 0 || ml->v[i].a == a) && (b < 0 || ml->v[i].b == b))
			return i;
	return -1;
}

static int secret_move(const struct sylla_state *s, int seat, const struct move_list *ml,
		       struct rng *rng)
{
	const struct sylla_player *p = &s->p[seat];
	struct sylla_player want = *p;
	int k, i;

	if (p->stage == SST_CONFIRM)
		return find_move(ml, SM_CONFIRM, -1, -1);
	sylla_bot_secret(s, seat, rng, &want);
	switch (s->step) {
	case SS_PICK:
		for (k = 0; k < SY_PER_SET; k++)
			if (((want.picks >> k) & 1) && !((p->picks >> k) & 1))
				return find_move(ml, SM_PICK, k, -1);
		return 0;
	case SS_SEALED:
		if (!want.thumb)
			return find_move(ml, SM_PASS, -1, -1);
		i = find_move(ml, SM_OFFER, want.amount, -1);
		return i >= 0 ? i : find_move(ml, SM_MORE, -1, -1);
	case SS_VOTE:
		if (p->stage == SST_CHOOSE)
			return find_move(ml, SM_THUMB, want.thumb, -1);
		i = find_move(ml, SM_GIVE, want.amount, -1);
		return i >= 0 ? i : find_move(ml, SM_MORE, -1, -1);
	case SS_HIDE:
		return find_move(ml, SM_HIDE, want.amount, -1);
	case SS_FREE:
		i = find_move(ml, SM_FREE, want.amount, -1);
		return i >= 0 ? i : find_move(ml, SM_MORE, -1, -1);
	}
	return 0;
}

static int amount_move(const struct move_list *ml, int kind, int want)
{
	int i = find_move(ml, kind, want, -1);

	if (i >= 0)
		return i;
	i = find_move(ml, SM_MORE, -1, -1);
	return i >= 0 ? i : find_move(ml, SM_PASS, -1, -1);
}

/* Phase I: outbid what the seats still to speak would likely go to, within
 * a random limit; else the least raise, or pass. */
static int elect_move(const struct sylla_state *s, int seat, const struct move_list *ml,
		      struct rng *rng)
{
	int sen = sylla_senators(s, seat), money = s->p[seat].money, n = s->nplayers, j;
	int limit = 2 + (int)rng_below(rng, 3), later = 0, want, pay;

	/* what the seats still to speak would likely go to */
	for (j = s->cursor + 1; j < n; j++) {
		int o = (s->fc + j) % n, w = sylla_senators(s, o) + (s->p[o].money < 3 ? s->p[o].money : 3);

		if (w > later)
			later = w;
	}
	want = later > s->hi_votes + 1 ? later : s->hi_votes + 1;
	if (want - sen > limit || want - sen > money)
		want = s->hi_votes + 1;
	pay = want - sen;
	if (pay < 0)
		pay = 0;
	if (pay <= limit && pay <= money)
		return amount_move(ml, SM_OFFER, want);
	return find_move(ml, SM_PASS, -1, -1);
}

/* Phase III: the tile worth most, weighed by the chance to win its sale. */
static int offer_move(const struct sylla_state *s, int seat, const struct move_list *ml,
		      struct rng *rng)
{
	double best = -1e9;
	int i = -1, k;

	for (k = 0; k < ml->n; k++) {
		int slot = ml->v[k].a, c = sylla_slot_colour[slot], mine = sylla_buy_power(s, seat, c);
		int other = 0, j;
		double v, chance;

		for (j = 0; j < s->nplayers; j++)
			if (j != seat && sylla_buy_power(s, j, c) > other)
				other = sylla_buy_power(s, j, c);
		/* the offerer bids last: it wins any tie it can afford */
		chance = mine >= other ? 1.0 : 0.15;
		v = tile_worth(s, seat, sylla_tiles[s->tiles[slot]].type) * chance -
		    pay_cost(s, seat, c, other + 1 < mine ? other + 1 : mine) + noise(rng, 0.5);
		if (v > best) {
			best = v;
			i = k;
		}
	}
	return i;
}

/* Phase III, a bid on the tile for sale. */
static int bid_move(const struct sylla_state *s, int seat, const struct move_list *ml,
		    struct rng *rng)
{
	int top = max_bid(s, seat, s->sale_slot, rng), later = 0, j, bid;
	int c = sylla_slot_colour[s->sale_slot], n = s->nplayers;
	int offerer = s->last_buyer < n ? s->last_buyer : s->fc;

	/* the seats still to speak: offerer + 1 + k for k after cursor */
	for (j = s->cursor + 1; j < n; j++) {
		int o = (offerer + 1 + j) % n;

		if (sylla_buy_power(s, o, c) > later)
			later = sylla_buy_power(s, o, c);
	}
	/* enough that nobody after can beat it (a bid must be higher),
	 * if that is worth it; else the least bid (being outbid costs
	 * nothing) */
	bid = later <= top ? later : s->bid_hi + 1;
	if (bid <= s->bid_hi)
		bid = s->bid_hi + 1;
	if (top > s->bid_hi)
		return amount_move(ml, SM_BID, bid);
	return find_move(ml, SM_PASS, -1, -1);
}

/* The Tavern: move a track where this seat holds more tokens than the
 * others' mean, if that gains enough; else skip. */
static int tavern_move(const struct sylla_state *s, int seat, const struct move_list *ml,
		       struct rng *rng)
{
	int i = find_move(ml, SM_SKIP, -1, -1), k;
	double best = 0.3;

	for (k = 0; k < ml->n; k++) {
		int t, up, j, to;
		double mine, others = 0.0, v;

		if (ml->v[k].kind != SM_TAVERN)
			continue;
		t = ml->v[k].a;
		up = ml->v[k].b;
		to = s->track[t] + (up ? 1 : -1);
		if (to < 0 || to > SY_TRACK_MAX)
			continue;
		mine = tokens_of(s, seat, seat, t);
		for (j = 0; j < s->nplayers; j++)
			if (j != seat)
				others += tokens_of(s, seat, j, t) / (s->nplayers - 1);
		v = (mine - others) * ((double)sylla_track_value[to] - sylla_track_value[s->track[t]]);
		if (up && s->track[t] == SY_CRISIS && mine < others)
			v += 0.5;
		v += noise(rng, 0.2);
		if (v > best) {
			best = v;
			i = k;
		}
	}
	return i;
}

int sylla_bot_move(const void *st, int seat, struct rng *rng, struct move *out)
{
	const struct sylla_state *s = st;
	struct move_list ml;
	int i = -1, k;
	double best = -1e9;

	if (sylla_moves(s, seat, &ml) <= 0)
		return -1;
	if (ml.n - ml.nmeta == 1) {
		*out = ml.v[0];
		return 0;
	}
	if (sylla_secret_step(s->step)) {
		i = secret_move(s, seat, &ml, rng);
		goto done;
	}
	switch (s->step) {
	case SS_ELECT:
		i = elect_move(s, seat, &ml, rng);
		break;
	case SS_TOKEN:
	case SS_TEMPLE: {
		int t = best_colour(s, rng);

		if (s->step == SS_TEMPLE && s->p[seat].money < (s->turn == SY_TURNS ? 2 : 4))
			i = find_move(&ml, SM_SKIP, -1, -1);
		else
			i = find_move(&ml, s->step == SS_TOKEN ? SM_TOKEN : SM_TEMPLE, t, -1);
		break;
	}
	case SS_RECRUIT:
		for (k = 0; k < ml.n; k++) {
			double v = char_worth(s, ml.v[k].a) + noise(rng, 1.0);

			if (v > best) {
				best = v;
				i = k;
			}
		}
		break;
	case SS_OFFER:
		i = offer_move(s, seat, &ml, rng);
		break;
	case SS_BID:
		i = bid_move(s, seat, &ml, rng);
		break;
	case SS_TAP:
		for (k = 0; k < ml.n; k++) {
			double v = -tap_cost(s, ml.v[k].a) + noise(rng, 0.01);

			if (v > best) {
				best = v;
				i = k;
			}
		}
		break;
	case SS_INSULA: {
		int t = best_colour(s, rng);

		i = find_move(&ml, SM_INSULA, t, t);
		if (i < 0)
			i = find_move(&ml, SM_INSULA, -1, t);
		if (i < 0)
			i = find_move(&ml, SM_INSULA, t, -1);
		break;
	}
	case SS_TAVERN:
		i = tavern_move(s, seat, &ml, rng);
		break;
	case SS_CUBE:
		i = cube_move(s, seat, &ml, rng);
		break;
	case SS_AVOID:
	case SS_REMOVE:
		for (k = 0; k < ml.n; k++) {
			double v = event_harm(s, seat, s->ev_row[ml.v[k].a]) + noise(rng, 0.2);

			if (v > best) {
				best = v;
				i = k;
			}
		}
		break;
	}
done:
	if (i < 0 || i >= ml.n - ml.nmeta)
		i = 0;
	*out = ml.v[i];
	return 0;
}
