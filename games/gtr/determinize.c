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
 * has its remaining cards of the role in hand, a Legionary holds the cards
 * it showed for its demand, and a victim choosing which cards to give
 * (GS_GIVE, not protected) holds more cards of each material it still
 * gives than it gives -- that is why it was asked.  A deal that breaks one
 * of these, or leaves an awaited seat without a legal move, is redrawn;
 * when several draws fail, the cards the seats must hold are drawn first
 * from the hidden cards of that material, then the rest is dealt as
 * usual.  Both use only public facts and the rng.
 *
 * Owns gtr_determinize (the determinize op).  Must not: keep anything the
 * seat cannot know, or let the deal depend on the true hidden cards
 * (games/game.h: pooled by name, in a canonical order, before shuffling).
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

/* Cards each hidden hand must hold, by hcount slot (materials, 6 the
 * Senadores): what the table saw (see the top). */
struct needs {
	uint8_t n[GTR_MAX_PLAYERS][8];
};

static int demanded(const struct gtr_state *s, int m)
{
	int i, k = 0;

	for (i = 0; i < s->leg_k; i++)
		k += s->leg_dem[i] == m;
	return k;
}

static void public_needs(const struct gtr_state *s, int seat, struct needs *nd)
{
	int d = s->decider, st = s->step, i, m;

	memset(nd, 0, sizeof(*nd));
	if (d >= s->nplayers)
		return;
	if (st == GS_PETITION && s->pet_role < GR_COUNT && d != seat)
		nd->n[d][s->pet_role] = (uint8_t)(s->pet_need - s->pet_have);
	if ((st == GS_LEGION || st == GS_LEGION_POOL || st == GS_GIVE || st == GS_COLISEUM) &&
	    d != seat)
		for (m = 0; m < GM_COUNT; m++)
			nd->n[d][m] = (uint8_t)demanded(s, m);
	if (st == GS_GIVE)
		for (i = 0; i < s->nplayers; i++) {
			if (i == seat || !((s->gift >> i) & 1) || ((s->vol >> i) & 1))
				continue;
			for (m = 0; m < GM_COUNT; m++)
				if (s->p[i].give[m])
					nd->n[i][m] = (uint8_t)(s->p[i].give[m] + 1);
		}
}

/*
 * Deals the hidden cards.  With nd, each hidden hand first gets the cards
 * nd says it must hold, drawn at random among the hidden ones of that
 * material (Senadores for slot 6), as far as the hand's size and the
 * hidden cards allow; NULL deals everything at random.
 */
static void deal(struct gtr_state *s, const struct hidden *h, struct rng *rng,
		 const struct needs *nd)
{
	uint8_t pool[POOL_MAX], given[GTR_MAX_PLAYERS][GTR_NAMES];
	int n = 0, i, k, c, first, total, jacks = h->count[GTR_JACK];
	int ngiven[GTR_MAX_PLAYERS] = { 0 };

	memset(given, 0, sizeof(given));
	for (c = 0; c < GC_COUNT; c++)
		for (k = 0; k < h->count[c] && n < POOL_MAX; k++)
			pool[n++] = (uint8_t)c;
	for (i = 0; nd && i < s->nplayers; i++) {
		int slot;

		if (!hand_hidden(s, h->seat, i))
			continue;
		for (slot = 0; slot <= GM_COUNT; slot++) {
			for (k = 0; k < nd->n[i][slot] && ngiven[i] < h->held[i]; k++) {
				if (slot == GM_COUNT) {
					if (!jacks)
						break;
					jacks--;
					given[i][GTR_JACK]++;
				} else {
					int idx[POOL_MAX], m = 0, j;

					for (j = 0; j < n; j++)
						if (gtr_cards[pool[j]].material == slot)
							idx[m++] = j;
					if (!m)
						break;
					j = idx[rng_below(rng, (uint32_t)m)];
					given[i][pool[j]]++;
					pool[j] = pool[--n];
				}
				ngiven[i]++;
			}
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
		memcpy(p->hand, given[i], sizeof(p->hand));
		for (k = h->held[i] - ngiven[i]; k > 0; k--)
			p->hand[pool[n++]]++;
	}
	gtr_refresh(s);
}

/* Every hand holds what the table saw it hold, and every awaited seat can
 * move. */
static int plausible(const struct gtr_state *s, const struct needs *nd)
{
	struct move_list ml;
	unsigned aw = gtr_awaiting(s);
	int i, slot;

	for (i = 0; i < s->nplayers; i++)
		for (slot = 0; slot <= GM_COUNT; slot++)
			if (s->p[i].hcount[slot] < nd->n[i][slot])
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
	struct needs nd;
	uint64_t hi, lo, stream;
	int t;

	if (s->step == GS_OVER)
		return;
	gather(s, seat, &h);
	public_needs(s, seat, &nd);
	for (t = 0; t < TRIES; t++) {
		deal(s, &h, rng, NULL);
		if (plausible(s, &nd))
			break;
	}
	if (t == TRIES) {
		int d = s->decider;
		struct needs want = nd;

		/* a unit to play: a card of the role led, else a Senador */
		if (s->step == GS_UNIT && s->led < GR_COUNT && d != seat && !want.n[d][s->led])
			want.n[d][s->led] = 1;
		deal(s, &h, rng, &want);
		if (!plausible(s, &nd) && s->step == GS_UNIT && d != seat) {
			want = nd;
			want.n[d][GM_COUNT] = 1;
			deal(s, &h, rng, &want);
		}
	}

	/* Separate statements: the order of evaluation of arguments is
	 * unspecified, and the result must not depend on the compiler. */
	hi = rng_next(rng);
	lo = rng_next(rng);
	stream = rng_next(rng);
	rng_seed(&s->rng, hi << 32 | lo, stream);
}
