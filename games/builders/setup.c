/*
 * setup.c: The Builders' setup: the option words, the decks and rows, the
 * seats' apprentices and money, the first player.
 *
 * Owns the state from zeroed memory to the first BS_TURN.  Reads nothing
 * but the options and the seed.
 */
#include "games/builders/builders_int.h"
#include "util/text.h"

/* ---- setup ---- */

int builders_setup(void *st, int players, uint64_t seed, const char *options,
		   struct buf *err)
{
	struct builders_state *s = st;
	const char *o = options ? options : "";
	uint8_t app[BUILDERS_APPRENTICES];
	char word[32];
	int i, b, u;

	if (players < BUILDERS_MIN_PLAYERS || players > BUILDERS_MAX_PLAYERS) {
		buf_setf(err, "The Builders: Antiquity is for 2 to 4 players.");
		return -1;
	}
	if (text_word(&o, word, sizeof(word))) {
		buf_setf(err, "Unknown option \"%s\" (The Builders: Antiquity has no options).", word);
		return -1;
	}

	memset(s, 0, sizeof(*s));
	s->nplayers = (uint8_t)players;
	s->round = 1;
	rng_seed(&s->rng, seed, 0x4275696c64657273ULL);	/* "Builders" */

	memset(s->brow, BUILDERS_NONE, sizeof(s->brow));
	memset(s->wrow, BUILDERS_NONE, sizeof(s->wrow));
	memset(s->bown, BUILDERS_NONE, sizeof(s->bown));
	memset(s->uown, BUILDERS_NONE, sizeof(s->uown));
	memset(s->uat, BUILDERS_NONE, sizeof(s->uat));
	memset(s->town, BUILDERS_NONE, sizeof(s->town));
	memset(s->tat, BUILDERS_NONE, sizeof(s->tat));
	memset(s->uni, BUILDERS_NONE, sizeof(s->uni));
	s->pend = BUILDERS_NONE;
	s->loan_pile = BUILDERS_LOANS;
	s->bank = BUILDERS_BANK_COINS;

	/* 1: the buildings, shuffled; five face up. */
	for (b = 0; b < BUILDERS_BUILDINGS; b++)
		s->bdeck[b] = (uint8_t)b;
	s->nbdeck = BUILDERS_BUILDINGS;
	rng_shuffle(&s->rng, s->bdeck, s->nbdeck, 1);
	for (i = 0; i < BUILDERS_ROW; i++) {
		s->brow[i] = s->bdeck[--s->nbdeck];
		s->bdeck[s->nbdeck] = 0;	/* unused entries stay 0: states compare bytewise */
		s->bplace[s->brow[i]] = BP_ROW;
	}
	/* 2: an Apprentice at random to each player, the others into the
	 * worker deck; 3: the deck shuffled, five face up. */
	for (i = 0; i < BUILDERS_APPRENTICES; i++)
		app[i] = (uint8_t)i;
	rng_shuffle(&s->rng, app, BUILDERS_APPRENTICES, 1);
	for (i = 0; i < players; i++) {
		s->uown[app[i]] = (uint8_t)i;
		s->dealt[i] = app[i];
	}
	for (u = 0; u < BUILDERS_WORKERS; u++)
		if (s->uown[u] == BUILDERS_NONE)
			s->wdeck[s->nwdeck++] = (uint8_t)u;
	rng_shuffle(&s->rng, s->wdeck, s->nwdeck, 1);
	for (i = 0; i < BUILDERS_ROW; i++) {
		s->wrow[i] = s->wdeck[--s->nwdeck];
		s->wdeck[s->nwdeck] = 0;
	}
	/* 5: 10 sesterces each; 6: a random first player. */
	for (i = 0; i < players; i++)
		gain(s, i, BUILDERS_START_MONEY);
	s->first = (uint8_t)rng_below(&s->rng, (uint32_t)players);
	s->cur = s->first;
	s->step = BS_TURN;
	builders_recount(s);
	return 0;
}
