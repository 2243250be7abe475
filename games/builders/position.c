/*
 * position.c: the position helpers The Builders' tests build states with
 * (give a building or a worker).  Not reached by play.
 */
#include "games/builders/builders_int.h"

int builders_give_building(struct builders_state *s, int seat, int b)
{
	int i;

	if (b < 0 || b >= BUILDERS_BUILDINGS || seat < 0 || seat >= s->nplayers)
		return -1;
	if (s->bplace[b] == BP_ROW) {
		for (i = 0; i < BUILDERS_ROW; i++)
			if (s->brow[i] == b) {
				s->brow[i] = BUILDERS_NONE;
				if (s->nbdeck) {
					s->brow[i] = s->bdeck[--s->nbdeck];
					s->bdeck[s->nbdeck] = 0;
					s->bplace[s->brow[i]] = BP_ROW;
				}
			}
	} else if (s->bplace[b] == BP_DECK) {
		for (i = 0; i < s->nbdeck && s->bdeck[i] != b; i++)
			;
		if (i == s->nbdeck)
			return -1;
		memmove(s->bdeck + i, s->bdeck + i + 1, (size_t)(s->nbdeck - i - 1));
		s->bdeck[--s->nbdeck] = 0;
	} else {
		return -1;
	}
	s->bown[b] = (uint8_t)seat;
	s->bplace[b] = BP_BUILDING;
	builders_recount(s);
	return 0;
}

int builders_give_worker(struct builders_state *s, int seat, int w)
{
	int i;

	if (w < 0 || w >= BUILDERS_WORKERS || seat < 0 || seat >= s->nplayers ||
	    s->uown[w] != BUILDERS_NONE)
		return -1;
	for (i = 0; i < BUILDERS_ROW; i++)
		if (s->wrow[i] == w) {
			s->wrow[i] = BUILDERS_NONE;
			if (s->nwdeck) {
				s->wrow[i] = s->wdeck[--s->nwdeck];
				s->wdeck[s->nwdeck] = 0;
			}
			s->uown[w] = (uint8_t)seat;
			builders_recount(s);
			return 0;
		}
	for (i = 0; i < s->nwdeck && s->wdeck[i] != w; i++)
		;
	if (i == s->nwdeck)
		return -1;
	memmove(s->wdeck + i, s->wdeck + i + 1, (size_t)(s->nwdeck - i - 1));
	s->wdeck[--s->nwdeck] = 0;
	s->uown[w] = (uint8_t)seat;
	builders_recount(s);
	return 0;
}
