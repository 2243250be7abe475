/*
 * determinize.c: The Builders' determinize op (games/game.h), for AI search.
 *
 * Everything on the table is open; what nobody sees is the order of the
 * building deck and of the worker deck.  Each deck's cards are laid out in
 * card order (so the result does not remember where each card was),
 * shuffled with the caller's rng and put back; the game's rng is re-seeded
 * from the caller's too.  Counts, rows and every player's cards stay.
 */
#include <string.h>

#include "games/builders/builders.h"

/* Sorts a small deck into card order (counting: cards are unique). */
static void canonical(uint8_t *deck, int n, int ncards)
{
	uint8_t there[BUILDERS_BUILDINGS] = { 0 };
	int i, c;

	for (i = 0; i < n; i++)
		if (deck[i] < ncards)
			there[deck[i]] = 1;
	for (c = 0, i = 0; c < ncards; c++)
		if (there[c])
			deck[i++] = (uint8_t)c;
}

void builders_determinize(void *st, int seat, struct rng *rng)
{
	struct builders_state *s = st;
	uint64_t hi, lo, stream;

	(void)seat;
	if (s->step >= BS_OVER)
		return;
	canonical(s->bdeck, s->nbdeck, BUILDERS_BUILDINGS);
	rng_shuffle(rng, s->bdeck, s->nbdeck, 1);
	canonical(s->wdeck, s->nwdeck, BUILDERS_WORKERS);
	rng_shuffle(rng, s->wdeck, s->nwdeck, 1);
	/* Separate statements: the order of evaluation of arguments is
	 * unspecified, and the result must not depend on the compiler. */
	hi = rng_next(rng);
	lo = rng_next(rng);
	stream = rng_next(rng);
	rng_seed(&s->rng, hi << 32 | lo, stream);
}
