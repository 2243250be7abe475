/*
 * determinize.c: Glory to Rome's determinize op (games/game.h), for AI
 * search.
 *
 * Hidden from a seat: the deck's order, the other seats' hands (their
 * sizes are public), every vault (face down: "nobody, not even you, may
 * look", so the seat's own vault too; only the counts are public), the
 * Fountain card another seat is holding, and the other seats' face-down
 * leader cards (experienced setup).  Those cards are pooled by name, laid
 * out in name order (so the pool does not remember where each card was),
 * shuffled with the caller's rng and dealt back in the same numbers.
 *
 * Senadores live only in hands, camps and their pile, never in the deck or
 * a vault.  The Senadores in the other hands are known in total (6 minus
 * the pile, the camps and the seat's own) but not per hand, so they are
 * mixed into the cards dealt to the other hands only: the order cards for
 * the deck, vaults, Fountain and leader cards come first from a shuffle of
 * the order cards, and the rest plus the Senadores are shuffled again and
 * dealt to the hands.
 *
 * What the table saw constrains a hand: a seat that chose to lead or
 * follow (GS_UNIT) holds a unit to play, a petition under way (GS_PETITION)
 * has its remaining cards of the role in hand.  A deal that leaves an
 * awaited seat without a legal move is redrawn; when several draws fail
 * (a petition needing a rare material), the cards the seat must hold are
 * drawn first from the hidden cards of that material, then the rest is
 * dealt as usual.  Both use only public facts and the rng.
 */
#include <string.h>

#include "games/gtr/gtr.h"

/* Every card there is. */
#define POOL_MAX (GTR_ORDER_CARDS + GTR_JACKS)
#define TRIES 40

struct hidden {
	int seat;			/* the seat the deal is for */
	int hide_fount;			/* the Fountain card is another seat's */
	uint8_t count[GTR_NAMES];	/* hidden cards by name, Senadores too */
	int held[GTR_MAX_PLAYERS];	/* hand sizes of the hidden hands */
	int vault[GTR_MAX_PLAYERS];	/* vault sizes */
};

static int hand_hidden(const struct gtr_state *s, int seat, int i)
{
	return i != seat && i < s->nplayers;
}

static void gather(const struct gtr_state *s, int seat, struct hidden *h)
{
	int i, c;

	memset(h, 0, sizeof(*h));
	h->seat = seat;
	h->hide_fount = s->fount < GC_COUNT && s->decider != seat;
	for (i = 0; i < s->ndeck; i++)
		h->count[s->deck[i]]++;
	for (i = 0; i < s->nplayers; i++) {
		const struct gtr_player *p = &s->p[i];

		for (c = 0; c < GC_COUNT; c++) {
			h->count[c] = (uint8_t)(h->count[c] + p->vault[c]);
			h->vault[i] += p->vault[c];
		}
		if (!hand_hidden(s, seat, i))
			continue;
		for (c = 0; c < GTR_NAMES; c++) {
			h->count[c] = (uint8_t)(h->count[c] + p->hand[c]);
			h->held[i] += p->hand[c];
		}
		if (p->pick)
			h->count[p->pick - 1]++;
	}
	if (h->hide_fount)
		h->count[s->fount]++;
}

/*
 * Deals the hidden cards.  want_seat >= 0 first gives that seat `want`
 * cards of material want_mat drawn at random among the hidden ones (fewer
 * if fewer are hidden), or Senadores when want_mat is GTR_NONE.
 */
static void deal(struct gtr_state *s, const struct hidden *h, struct rng *rng,
		 int want_seat, int want_mat, int want)
{
	uint8_t pool[POOL_MAX], given[GTR_NAMES] = { 0 };
	int n = 0, i, k, c, first, total, jacks = h->count[GTR_JACK], ngiven = 0;

	for (c = 0; c < GC_COUNT; c++)
		for (k = 0; k < h->count[c] && n < POOL_MAX; k++)
			pool[n++] = (uint8_t)c;
	if (want_seat >= 0) {
		while (ngiven < want && ngiven < h->held[want_seat]) {
			if (want_mat == GTR_NONE) {
				if (!jacks)
					break;
				jacks--;
				given[GTR_JACK]++;
			} else {
				int idx[POOL_MAX], m = 0;

				for (i = 0; i < n; i++)
					if (gtr_cards[pool[i]].material == want_mat)
						idx[m++] = i;
				if (!m)
					break;
				i = idx[rng_below(rng, (uint32_t)m)];
				given[pool[i]]++;
				pool[i] = pool[--n];
			}
			ngiven++;
		}
	}

	/* First shuffle: the order cards, for the places Senadores cannot go. */
	rng_shuffle(rng, pool, (uint32_t)n, 1);
	total = n;
	n = 0;
	for (i = 0; i < s->ndeck; i++)
		s->deck[i] = pool[n++];
	for (i = 0; i < s->nplayers; i++) {
		struct gtr_player *p = &s->p[i];

		memset(p->vault, 0, sizeof(p->vault));
		for (k = 0; k < h->vault[i]; k++)
			p->vault[pool[n++]]++;
		if (hand_hidden(s, h->seat, i) && p->pick)
			p->pick = (uint8_t)(pool[n++] + 1);
	}
	if (h->hide_fount)
		s->fount = pool[n++];

	/* Second shuffle: what is left, with the hidden Senadores, for the
	 * other hands. */
	first = n;
	for (k = 0; k < jacks && total < POOL_MAX; k++)
		pool[total++] = GTR_JACK;
	rng_shuffle(rng, pool + first, (uint32_t)(total - first), 1);
	for (i = 0; i < s->nplayers; i++) {
		struct gtr_player *p = &s->p[i];

		if (!hand_hidden(s, h->seat, i))
			continue;
		memset(p->hand, 0, sizeof(p->hand));
		k = h->held[i];
		if (i == want_seat) {
			memcpy(p->hand, given, sizeof(given));
			k -= ngiven;
		}
		while (k-- > 0)
			p->hand[pool[n++]]++;
	}
	gtr_refresh(s);
}

/* Every awaited seat can move, and a petition under way can be completed. */
static int plausible(const struct gtr_state *s)
{
	struct move_list ml;
	unsigned aw = gtr_awaiting(s);
	int i;

	if (s->step == GS_PETITION && s->pet_role < GR_COUNT &&
	    gtr_count(s->p[s->decider].hand, s->pet_role) < s->pet_need - s->pet_have)
		return 0;
	for (i = 0; i < s->nplayers; i++)
		if ((aw >> i & 1) && gtr_moves(s, i, &ml) == 0)
			return 0;
	return 1;
}

void gtr_determinize(void *st, int seat, struct rng *rng)
{
	struct gtr_state *s = st;
	struct hidden h;
	uint64_t hi, lo, stream;
	int t;

	if (s->step == GS_OVER)
		return;
	gather(s, seat, &h);
	for (t = 0; t < TRIES; t++) {
		deal(s, &h, rng, -1, 0, 0);
		if (plausible(s))
			break;
	}
	if (t == TRIES) {
		int d = s->decider, mat = GTR_NONE, want = 1;

		if (s->step == GS_PETITION && s->pet_role < GR_COUNT) {
			mat = s->pet_role;
			want = s->pet_need - s->pet_have;
		} else if (s->led < GR_COUNT) {
			mat = s->led;
		}
		deal(s, &h, rng, d, mat, want);
		if (!plausible(s) && s->step == GS_UNIT)
			deal(s, &h, rng, d, GTR_NONE, 1);	/* a Senador, then */
	}

	/* Separate statements: the order of evaluation of arguments is
	 * unspecified, and the result must not depend on the compiler. */
	hi = rng_next(rng);
	lo = rng_next(rng);
	stream = rng_next(rng);
	rng_seed(&s->rng, hi << 32 | lo, stream);
}
