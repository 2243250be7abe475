/*
 * ai.c: a heuristic Fortuna player.
 *
 * Each legal move is tried on a copy of the state and the result scored by
 * value(), a hand-tuned worth of the seat's position (a step is worth 10,
 * resources what they usually turn into).  Decisions that lead straight to
 * another decision of the same seat inside the turn (a card chosen -> how
 * to use it; a die -> which favour) are searched a few plies deep.  Cards
 * taken in an exchange, reserved or drafted are scored by what they would
 * give if used now.
 *
 * The bot must not see hidden information: before trying moves it shuffles
 * the copy's privilege deck and reseeds the copy's dice with its own rng, so
 * a tried move that draws or rolls shows it nothing true.  It reads only its
 * own privilege cards and face-down card, and public data.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"

#define MAX_DEPTH 3

/* Worth per round left of the lasting assets (tuned by self-play). */
#ifndef W_PRIEST
#define W_PRIEST 0.8
#define W_DICE 1.5
#define W_MARRIED 2.0
#define W_AQ 1.0
#define W_PALACE 1.5
#endif

static double diminish(int n, int full, double hi, double lo)
{
	return n <= full ? n * hi : full * hi + (n - full) * lo;
}

static double priv_worth(const struct fortuna_state *s, int seat)
{
	const struct fortuna_player *p = &s->p[seat];
	double v = fortuna_priv_points(s, seat) * 10.0;
	int k;

	for (k = 0; k < FP_COUNT; k++) {
		if (!p->hand[k])
			continue;
		switch (fortuna_privs[k].type) {
		case FPT_A:
			v += p->hand[k] * 2.0;	/* less than its effect: play it */
			break;
		case FPT_B:
			v += p->hand[k] * (p->steps < FORTUNA_PALACE ? 6.0 : 0.0);
			break;
		default:
			v += p->hand[k] * (s->ending ? 0.0 : 2.5);	/* may grow */
		}
	}
	return v;
}

/* Rounds the game probably lasts still: the leader walks ~1.3 steps a round. */
static double rounds_left(const struct fortuna_state *s)
{
	int i, lead = 0;

	if (s->ending)
		return 0.0;
	for (i = 0; i < s->nplayers; i++)
		if (s->p[i].steps > lead)
			lead = s->p[i].steps;
	return (FORTUNA_PALACE - lead) / 1.3;
}

/* The worth of seat's position, from public data and its own cards.
 * Lasting assets (marriage, Palacio, dice, Sacerdotisas, Acueducto) are
 * worth more the longer the game still runs. */
static double value(const struct fortuna_state *s, int seat)
{
	const struct fortuna_player *p = &s->p[seat];
	double v = p->steps * 10.0, left = rounds_left(s);

	if (p->steps >= FORTUNA_ROME)
		v += 8.0;	/* only seats inside Rome may win */
	v += diminish(p->money, 8, 1.0, 0.4);
	v += diminish(p->water + p->aq_water, 2, 3.0, 1.0);
	v += diminish(p->grain, 2, 3.5, 1.5);
	v += diminish(p->wine, 2, 4.0, 2.0);
	v += p->priest * (4.0 + W_PRIEST * left);
	v += p->cent * 3.5;
	v += (p->dice - 1) * (2.0 + W_DICE * left);
	if (p->married)
		v += 2.0 + W_MARRIED * left;
	if ((p->buildings >> FB_MARKET) & 1)
		v += 1.0 + 0.3 * left;
	if ((p->buildings >> FB_AQUEDUCT) & 1)
		v += W_AQ * left;
	if ((p->buildings >> FB_PALACE) & 1)
		v += 1.0 + W_PALACE * left;
	if ((p->buildings >> FB_BASILICA) & 1)
		v += 0.3 * left;
	v += priv_worth(s, seat);
	if (fortuna_decider(s) == seat) {
		v += s->token_turn * 6.0;
		if (s->step == FS_KEEP)
			v += s->keep_left * 7.0;
		if (s->step == FS_RESOURCE)
			v += 3.0;
	}
	return v;
}

static int try_move(const struct fortuna_state *s, int seat, struct move m,
		    struct fortuna_state *out)
{
	struct buf err = BUF_INIT;
	int r;

	memcpy(out, s, sizeof(*out));
	r = fortuna_apply(out, seat, m, NULL, &err);
	buf_release(&err);
	return r;
}

static double search(const struct fortuna_state *s, int seat, int depth);

/* The score of the state after a move: deeper while seat decides more of
 * the same action or favour.  Not past a roll made by the move: the dice
 * of the copy are made up, and a single die is used at once now, so the
 * favour step that follows would be searched on a fiction (and the look
 * would cost a search more per turn). */
static double after(const struct fortuna_state *t, int seat, int depth, int rolled_before)
{
	if (depth < MAX_DEPTH && fortuna_decider(t) == seat &&
	    (t->step == FS_ACTION || t->step == FS_RESOURCE ||
	     (t->step == FS_FAVOUR && (rolled_before || !t->rolled))))
		return search(t, seat, depth + 1);
	return value(t, seat);
}

static double search(const struct fortuna_state *s, int seat, int depth)
{
	struct move_list ml;
	struct fortuna_state t;
	double best = -1e9;
	int i;

	fortuna_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++) {
		double v;

		if (try_move(s, seat, ml.v[i], &t))
			continue;
		v = after(&t, seat, depth, s->rolled);
		if (v > best)
			best = v;
	}
	return ml.n ? best : value(s, seat);
}

/* What action card c would give seat if used now (0 = nothing). */
static double card_gain(const struct fortuna_state *s, int seat, int c)
{
	struct fortuna_state t;

	memcpy(&t, s, sizeof(t));
	t.step = FS_ACTION;
	t.act_card = (uint8_t)c;
	t.chosen = (uint8_t)c;
	t.act_via = FV_PHASE2;
	t.corrupted = 0;
	t.order[t.turn] = (uint8_t)seat;	/* only for the look-ahead */
	return search(&t, seat, 1) - value(s, seat);
}

/* How much an opponent could win with favour card c. */
static double favour_threat(const struct fortuna_state *s, int seat, int c)
{
	const struct fortuna_player *o = &s->p[seat == s->order[0] ? s->order[1] : s->order[0]];

	switch (c) {
	case FF_WATER:
		return o->water + o->aq_water > 0;
	case FF_WINE:
		return o->wine < 2 ? o->wine : 2;
	case FF_GRAIN:
		return o->grain < 2 ? o->grain : 2;
	case FF_BATTLE:
		return o->cent;
	case FF_FORTUNA:
		return o->married + ((o->buildings >> FB_PALACE) & 1);
	default:
		return o->priest;
	}
}

static double score_move(const struct fortuna_state *s, int seat, struct move m)
{
	struct fortuna_state t;

	switch (m.kind) {
	case FM_EXCHANGE:
		/* The card taken is the first of the next turn; Fortuna also
		 * makes its holder lead the next round. */
		return card_gain(s, seat, m.a) * 0.8 + (m.a == FA_FORTUNA ? 6.0 : 0.0);
	case FM_HIDE:
	case FM_DRAFT:
		return card_gain(s, seat, m.a) + (m.a == FA_FORTUNA ? 6.0 : 0.0);
	case FM_FLIP:
		return favour_threat(s, seat, m.a);
	case FM_SKIP:
		if (s->step == FS_FLIP)
			return 0.5;
		break;
	}
	if (try_move(s, seat, m, &t))
		return -1e9;
	return after(&t, seat, 1, s->rolled);
}

int fortuna_bot_move(const void *st, int seat, struct rng *rng, struct move *out)
{
	const struct fortuna_state *s = st;
	struct fortuna_state base;
	struct move_list ml;
	double best = -1e18;
	int i, nbest = 0;

	if (fortuna_moves(s, seat, &ml) == 0)
		return -1;
	if (ml.n == 1) {
		*out = ml.v[0];
		return 0;
	}
	/* Determinize: what the seat cannot know is made up with its own rng. */
	memcpy(&base, s, sizeof(base));
	rng_shuffle(rng, base.deck, base.ndeck, 1);
	{
		/* one call per statement: C leaves the order of calls within
		 * an expression unspecified, and the choice must not depend on
		 * the compiler */
		uint64_t hi = rng_next(rng), lo = rng_next(rng), stream = rng_next(rng);

		rng_seed(&base.rng, (hi << 32) | lo, stream);
	}

	for (i = 0; i < ml.n; i++) {
		double v = score_move(&base, seat, ml.v[i]);

		if (v > best + 1e-9) {
			best = v;
			nbest = 1;
			*out = ml.v[i];
		} else if (v > best - 1e-9 && rng_below(rng, (uint32_t)++nbest) == 0) {
			*out = ml.v[i];
		}
	}
	return 0;
}
