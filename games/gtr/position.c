/*
 * position.c: building Glory to Rome positions directly (gtr_put,
 * gtr_give_building, gtr_start_turn), for the tests and scenarios that
 * start from a given table rather than from a seeded setup.
 *
 * Owns nothing of the rules: it moves cards between zones keeping every
 * card accounted for (check.c must accept the result) and refreshes the
 * caches.  Must not: fire a function, a completion bonus or an end
 * condition (a built position is not a move), or be called by the rules
 * files: no move reaches it.
 */
#include "games/gtr/gtr_int.h"

static uint8_t *zone(struct gtr_state *s, enum gtr_zone z, int seat)
{
	struct gtr_player *p = &s->p[seat >= 0 && seat < GTR_MAX_PLAYERS ? seat : 0];

	switch (z) {
	case GZ_POOL:
		return s->pool;
	case GZ_HAND:
		return p->hand;
	case GZ_STOCK:
		return p->stock;
	case GZ_VAULT:
		return p->vault;
	case GZ_CLIENTS:
		return p->clients;
	case GZ_CAMP:
		return p->camp;
	default:
		return NULL;
	}
}

static int deck_take(struct gtr_state *s, int card)
{
	int i;

	for (i = s->ndeck - 1; i >= 0; i--)
		if (s->deck[i] == card) {
			memmove(&s->deck[i], &s->deck[i + 1], (size_t)(s->ndeck - i - 1));
			s->ndeck--;
			s->deck[s->ndeck] = 0;
			return 0;
		}
	return -1;
}

int gtr_put(struct gtr_state *s, int card, enum gtr_zone from, int fs, enum gtr_zone to, int ts)
{
	uint8_t *src, *dst;

	if (card < 0 || card > GTR_JACK || from >= GZ_COUNT || to >= GZ_COUNT)
		return -1;
	if (card == GTR_JACK) {
		int ok_from = from == GZ_HAND || from == GZ_CAMP || from == GZ_JACKS;
		int ok_to = to == GZ_HAND || to == GZ_CAMP || to == GZ_JACKS;

		if (!ok_from || !ok_to)
			return -1;
	} else if (from == GZ_JACKS || to == GZ_JACKS) {
		return -1;
	}
	/* take */
	if (from == GZ_DECK) {
		if (deck_take(s, card))
			return -1;
	} else if (from == GZ_JACKS) {
		if (!s->jacks)
			return -1;
		s->jacks--;
	} else {
		src = zone(s, from, fs);
		if (!src[card])
			return -1;
		src[card]--;
	}
	/* give */
	if (to == GZ_DECK) {
		s->deck[s->ndeck++] = (uint8_t)card;
	} else if (to == GZ_JACKS) {
		s->jacks++;
	} else {
		dst = zone(s, to, ts);
		dst[card]++;
	}
	gtr_refresh(s);
	return 0;
}

int gtr_give_building(struct gtr_state *s, int seat, int card, int site, int nmat, int complete_it)
{
	struct gtr_player *p;
	struct gtr_struct *t;
	int m, k, need;

	if (seat < 0 || seat >= s->nplayers || card < 0 || card >= GC_COUNT)
		return -1;
	p = &s->p[seat];
	if (((p->has >> card) & 1) || p->nstruct >= GTR_MAX_STRUCT)
		return -1;
	m = site < 0 ? gtr_cards[card].material : site;
	if (m >= GM_COUNT || deck_take(s, card))
		return -1;
	if (s->in_town[m])
		s->in_town[m]--;
	else if (s->out_town[m])
		s->out_town[m]--;
	else {
		s->deck[s->ndeck++] = (uint8_t)card;
		return -1;
	}
	t = &p->st[p->nstruct++];
	memset(t, 0, sizeof(*t));
	t->card = (uint8_t)card;
	t->site = (uint8_t)m;
	need = gtr_struct_need(t);
	if (complete_it && nmat < need)
		nmat = need;
	if (nmat > GTR_MAX_MAT)
		nmat = GTR_MAX_MAT;
	for (k = 0; k < nmat; k++) {
		int mm = card == GC_STATUE ? m : gtr_cards[card].material, c;

		int best = -1, have[GC_COUNT] = { 0 }, i;

		/* the name the deck holds most of: a test may still want the others */
		for (i = 0; i < s->ndeck; i++)
			have[s->deck[i]]++;
		for (c = gtr_first[mm]; c < gtr_first[mm + 1]; c++)
			if (have[c] && (best < 0 || have[c] > have[best]))
				best = c;
		if (best < 0 || deck_take(s, best))
			return -1;
		t->mat[t->nmat++] = (uint8_t)best;
	}
	if (complete_it) {
		t->done = 1;
		p->infl[m]++;
	}
	gtr_refresh(s);
	return 0;
}

void gtr_start_turn(struct gtr_state *s, int leader)
{
	gtr_cleanup_camps(s);
	s->fount = GTR_NONE;
	s->ending = 0;
	s->end = GE_NONE;
	s->winner = GTR_NONE;
	s->leader = (uint8_t)leader;
	/* a built position is not the setup's: no leader draw to show */
	s->ndraw = 0;
	memset(s->draw_seat, 0, sizeof(s->draw_seat));
	memset(s->draw_card, 0, sizeof(s->draw_card));
	gtr_refresh(s);
	s->phase = GP_LEAD;
	gtr_begin_turn(s, NULL);
}
