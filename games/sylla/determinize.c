/*
 * determinize.c: Sylla's determinize op (games/game.h), for AI search.
 *
 * Hidden from a seat: the order of the face-down piles (the characters
 * never shown, each letter of the building stack, the events, the Great
 * Works below the known ones), the colours of the others' tokens taken
 * in secret (Insula, Private Temple) -- and so how many of each colour
 * are left beside the board, of which the table sees only the total and
 * the colours run out (docs/games/sylla.md, ruling 7) -- and the others'
 * secret choices not yet revealed.  Each pile is laid out in a canonical
 * order and shuffled with the caller's rng.  The others' unseen tokens
 * get their colours again, as many per seat as before: a colour run out
 * gets exactly what it lacks (it is known), the rest colours drawn at
 * random among those not run out, none of them emptied; the supply is
 * what is left.  A secret choice another seat has confirmed is made again
 * by the bot's rule for that seat on the re-dealt position; one still
 * being made starts again.
 *
 * Money stays: every change of it happens in the open (sylla.h), so the
 * seat could count it.  The game's own rng is re-seeded from rng.
 */
#include <string.h>

#include "games/sylla/sylla.h"

static void sort_u8(uint8_t *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++) {
		uint8_t x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void reshuffle(uint8_t *v, int n, struct rng *rng)
{
	if (n < 2)
		return;
	sort_u8(v, n);
	rng_shuffle(rng, v, (uint32_t)n, 1);
}

static void deal_tokens(struct sylla_state *s, int seat, struct rng *rng)
{
	uint8_t pool[3 * SY_TOKENS] = { 0 };
	int room[ST_COUNT], i, t, k, n = 0, blind = 0;

	for (i = 0; i < s->nplayers; i++)
		if (i != seat)
			blind += s->p[i].blind;
	for (t = 0; t < ST_COUNT; t++) {
		/* of colour t the seat knows its own tokens and those the
		 * table saw; the others' unseen ones are the rest */
		int known = s->p[seat].tok[t], rest;

		for (i = 0; i < s->nplayers; i++)
			if (i != seat)
				known += s->p[i].seen[t];
		rest = SY_TOKENS - 1 - known;
		if (!s->supply[t]) {	/* run out, in view: all the rest are theirs */
			for (k = 0; k < rest && n < blind; k++)
				pool[n++] = (uint8_t)t;
			room[t] = 0;
		} else {		/* at least one stays beside the board */
			room[t] = rest - 1;
		}
	}
	while (n < blind) {
		int open = 0, pick;

		for (t = 0; t < ST_COUNT; t++)
			open += room[t] > 0;
		if (!open)
			break;		/* cannot happen: the true colours fit */
		pick = (int)rng_below(rng, (uint32_t)open);
		for (t = 0; t < ST_COUNT; t++)
			if (room[t] > 0 && !pick--)
				break;
		room[t]--;
		pool[n++] = (uint8_t)t;
	}
	rng_shuffle(rng, pool, (uint32_t)n, 1);
	n = 0;
	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];

		if (i == seat)
			continue;
		memcpy(p->tok, p->seen, sizeof(p->tok));
		for (k = 0; k < p->blind; k++)
			p->tok[pool[n++]]++;
	}
	for (t = 0; t < ST_COUNT; t++) {
		int held = 0;

		for (i = 0; i < s->nplayers; i++)
			held += s->p[i].tok[t];
		s->supply[t] = (uint8_t)(SY_TOKENS - 1 - held);
	}
}

static void redo_choices(struct sylla_state *s, int seat, struct rng *rng)
{
	int i;

	if (!sylla_secret_step(s->step))
		return;
	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];

		if (i == seat || !((s->asked >> i) & 1))
			continue;
		p->picks = 0;
		p->thumb = 0;
		p->amount = 0;
		p->win = 0;
		if ((s->waiting >> i) & 1) {
			p->stage = SST_CHOOSE;
			continue;
		}
		sylla_bot_secret(s, i, rng, p);
	}
}

void sylla_determinize(void *st, int seat, struct rng *rng)
{
	struct sylla_state *s = st;
	uint64_t hi, lo, stream;
	int k;

	if (s->phase == SP_OVER)
		return;
	reshuffle(s->deck + (s->ndeck - s->unseen), s->unseen, rng);
	for (k = 0; k < 3; k++) {
		int first = -1, n = 0, i;

		for (i = 0; i < s->nstack; i++)
			if (sylla_tiles[s->stack[i]].letter == k) {
				if (first < 0)
					first = i;
				n++;
			}
		if (first >= 0)
			reshuffle(s->stack + first, n, rng);
	}
	reshuffle(s->ev_deck, s->nev_deck, rng);
	if (s->known + 1 < SG_COUNT)
		reshuffle(s->works + s->known + 1, SG_COUNT - s->known - 1, rng);
	deal_tokens(s, seat, rng);
	redo_choices(s, seat, rng);

	/* Separate statements: the order of evaluation of arguments is
	 * unspecified, and the result must not depend on the compiler. */
	hi = rng_next(rng);
	lo = rng_next(rng);
	stream = rng_next(rng);
	rng_seed(&s->rng, hi << 32 | lo, stream);
}
