/*
 * determinize.c: Fortuna's determinize op (games/game.h), for AI search.
 *
 * What a seat cannot see in Fortuna is privilege cards: the deck's order,
 * the other seats' hands (their sizes are public), the cards another seat
 * draws and chooses from, and the cards left face down at the Palace.
 * Those cards are pooled as counts per kind, laid out in kind order (so
 * the pool does not remember where each card was), shuffled with the
 * caller's rng and dealt back in the same numbers to the same places.
 *
 * Kept: everything public, the seat's own hand, and the cards the seat is
 * choosing from.  The face-down action cards are kept too: the board names
 * them (each was dealt face up, or taken face up in view of the table).
 * The one exception is the setup reservation while seats still choose: a
 * seat that has chosen did so privately, so its face-down slot is drawn
 * again among its three cards.  The dice are future draws of the game's
 * rng, which is re-seeded.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"

/* Every privilege card there is, with room to spare. */
#define POOL_MAX (FORTUNA_PRIV_MAX + 8)

void fortuna_determinize(void *st, int seat, struct rng *rng)
{
	struct fortuna_state *s = st;
	uint8_t count[FP_COUNT] = { 0 };
	uint8_t pool[POOL_MAX];
	int n = 0, i, k, c, hide_drawn;
	uint64_t hi, lo, stream;

	if (s->step == FS_OVER)
		return;
	/* The others' reservations so far: any of their three cards. */
	if (s->step == FS_HIDE)
		for (i = 0; i < s->nplayers; i++) {
			if (i == seat || !(s->side_down[i][0] | s->side_down[i][1] | s->side_down[i][2]))
				continue;
			memset(s->side_down[i], 0, sizeof(s->side_down[i]));
			s->side_down[i][rng_below(rng, FORTUNA_SLOTS)] = 1;
		}
	/* The seat choosing from drawn cards sees them; nobody else does. */
	hide_drawn = fortuna_decider(s) != seat;

	for (i = 0; i < s->ndeck; i++)
		count[s->deck[i]]++;
	for (i = 0; i < s->nplayers; i++)
		if (i != seat)
			for (k = 0; k < FP_COUNT; k++)
				count[k] = (uint8_t)(count[k] + s->p[i].hand[k]);
	if (hide_drawn)
		for (i = 0; i < s->ndrawn; i++)
			count[s->drawn[i]]++;
	for (i = 0; i < s->npalace; i++)
		count[s->palace_cards[i]]++;

	for (k = 0; k < FP_COUNT; k++)
		for (c = 0; c < count[k] && n < POOL_MAX; c++)
			pool[n++] = (uint8_t)k;
	rng_shuffle(rng, pool, (uint32_t)n, 1);

	n = 0;
	for (i = 0; i < s->ndeck; i++)
		s->deck[i] = pool[n++];
	for (i = 0; i < s->nplayers; i++) {
		int held = 0;

		if (i == seat)
			continue;
		for (k = 0; k < FP_COUNT; k++)
			held += s->p[i].hand[k];
		memset(s->p[i].hand, 0, sizeof(s->p[i].hand));
		while (held-- > 0)
			s->p[i].hand[pool[n++]]++;
	}
	if (hide_drawn)
		for (i = 0; i < s->ndrawn; i++)
			s->drawn[i] = pool[n++];
	for (i = 0; i < s->npalace; i++)
		s->palace_cards[i] = pool[n++];

	/* Separate statements: the order of evaluation of arguments is
	 * unspecified, and the result must not depend on the compiler. */
	hi = rng_next(rng);
	lo = rng_next(rng);
	stream = rng_next(rng);
	rng_seed(&s->rng, hi << 32 | lo, stream);
}
