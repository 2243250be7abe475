/*
 * check.c: the invariants of a Glory to Rome state.  Tests call it after
 * every move; load() calls it so that a state read from JSON is one the
 * rules could have reached in shape: every index in range, all 144 order
 * cards, 6 Senadores and 36 sites accounted for, the caches right, and the
 * context of the current decision coherent, so that moves() and apply() are
 * safe on it and the awaited seat always has a move.
 *
 * Owns gtr_check (the check op).  Must not: change the state, or trust it:
 * any byte may be out of range (load() hands it what JSON held), so every
 * index is checked before it is used.
 */
#include <string.h>

#include "games/gtr/gtr.h"

#define FAIL(...) do { buf_setf(err, __VA_ARGS__); return -1; } while (0)

static int check_cards(const struct gtr_state *s, struct buf *err)
{
	int count[GTR_NAMES], site[GM_COUNT];
	int i, c, k, m, n = s->nplayers;

	memset(count, 0, sizeof(count));
	memset(site, 0, sizeof(site));
	for (i = 0; i < s->ndeck; i++) {
		if (s->deck[i] >= GC_COUNT)
			FAIL("bad card in the deck");
		count[s->deck[i]]++;
	}
	for (i = s->ndeck; i < GTR_ORDER_CARDS; i++)
		if (s->deck[i])
			FAIL("junk after the deck");
	for (c = 0; c < GC_COUNT; c++)
		count[c] += s->pool[c];
	count[GTR_JACK] += s->jacks;
	if (s->fount != GTR_NONE) {
		if (s->fount >= GC_COUNT)
			FAIL("bad Fountain card");
		count[s->fount]++;
	}
	for (m = 0; m < GM_COUNT; m++)
		site[m] = s->in_town[m] + s->out_town[m];
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		const struct gtr_player *p = &s->p[i];

		if (i >= n) {
			static const struct gtr_player zero;

			if (memcmp(p, &zero, sizeof(zero)))
				FAIL("data for a seat beyond the players");
			continue;
		}
		for (c = 0; c < GTR_NAMES; c++)
			count[c] += p->hand[c] + p->camp[c];
		for (c = 0; c < GC_COUNT; c++)
			count[c] += p->stock[c] + p->vault[c] + p->clients[c];
		if (p->pick > GC_COUNT)
			FAIL("bad pick");
		if (p->pick)
			count[p->pick - 1]++;
		for (m = 0; m < GM_COUNT; m++) {
			site[m] += p->infl[m];
			if (p->newc[m] > gtr_count(p->clients, m))
				FAIL("more new clients than clients");
		}
		if (p->nstruct > GTR_MAX_STRUCT)
			FAIL("too many structures");
		for (k = 0; k < GTR_MAX_STRUCT; k++) {
			const struct gtr_struct *t = &p->st[k];
			int j;

			if (k >= p->nstruct) {
				static const struct gtr_struct zero;

				if (memcmp(t, &zero, sizeof(zero)))
					FAIL("junk after the structures");
				continue;
			}
			if (t->card >= GC_COUNT || t->site >= GM_COUNT || t->done > 1 ||
			    t->flags > (GSF_PUBLIC | GSF_STOLEN) || t->nmat > GTR_MAX_MAT)
				FAIL("bad structure");
			if ((t->flags && !t->done))
				FAIL("a foundation cannot be public or stolen");
			if (!t->done && t->nmat >= gtr_struct_need(t))
				FAIL("an unfinished structure with all its materials");
			if (t->card != GC_STATUE && t->site != gtr_cards[t->card].material)
				FAIL("a structure on a site of another material");
			count[t->card]++;
			if (!t->done)
				site[t->site]++;
			for (j = 0; j < GTR_MAX_MAT; j++) {
				if (j >= t->nmat) {
					if (t->mat[j])
						FAIL("junk material");
					continue;
				}
				if (t->mat[j] >= GC_COUNT)
					FAIL("bad material");
				count[t->mat[j]]++;
			}
			for (j = 0; j < k; j++)
				if (p->st[j].card == t->card)
					FAIL("two structures named %s", gtr_cards[t->card].id);
		}
	}
	for (c = 0; c < GC_COUNT; c++)
		if (count[c] != gtr_cards[c].copies)
			FAIL("%d copies of %s instead of %d", count[c], gtr_cards[c].id,
			     gtr_cards[c].copies);
	if (count[GTR_JACK] != GTR_JACKS)
		FAIL("%d Senators instead of %d", count[GTR_JACK], GTR_JACKS);
	for (m = 0; m < GM_COUNT; m++)
		if (site[m] != GTR_SITES)
			FAIL("%d %s sites instead of %d", site[m], gtr_materials[m].id, GTR_SITES);
	return 0;
}

static int check_caches(const struct gtr_state *s, struct buf *err)
{
	uint64_t pub = 0;
	int i, k;

	for (i = 0; i < s->nplayers; i++) {
		const struct gtr_player *p = &s->p[i];
		uint64_t has = 0, built = 0;

		for (k = 0; k < p->nstruct; k++) {
			const struct gtr_struct *t = &p->st[k];

			has |= 1ULL << t->card;
			if (t->done) {
				built |= 1ULL << t->card;
				if (t->flags & GSF_PUBLIC)
					pub |= 1ULL << t->card;
			}
		}
		if (has != p->has || built != p->built)
			FAIL("structure caches out of date");
	}
	if (pub != s->pub)
		FAIL("public buildings cache out of date");
	/* the derived caches: what a refresh would make of this state */
	{
		struct gtr_state r = *s;

		gtr_refresh(&r);
		if (r.any_fn != s->any_fn)
			FAIL("function union cache out of date");
		for (i = 0; i < GTR_MAX_PLAYERS; i++) {
			const struct gtr_player *a = &r.p[i], *b = &s->p[i];

			if (a->fn != b->fn || a->influence != b->influence ||
			    a->client_limit != b->client_limit ||
			    a->vault_limit != b->vault_limit || a->hand_limit != b->hand_limit)
				FAIL("function or limit caches out of date");
			if (memcmp(a->hcount, b->hcount, sizeof(a->hcount)))
				FAIL("hand counts cache out of date");
		}
	}
	return 0;
}

static int check_frames(const struct gtr_state *s, struct buf *err)
{
	int i;

	if (s->nframes > GTR_MAX_FRAMES || s->npend > GTR_MAX_PEND)
		FAIL("bad frame count");
	for (i = 0; i < GTR_MAX_FRAMES; i++) {
		const struct gtr_frame *f = &s->frames[i];

		if (i >= s->nframes) {
			if (f->kind || f->dyn || f->count || f->used)
				FAIL("junk frame");
			continue;
		}
		if (f->kind >= GF_COUNT || f->dyn > 1 || (f->dyn && i != 0))
			FAIL("bad frame");
		if (f->dyn && f->kind != s->led)
			FAIL("the turn's frame is not of the led role");
	}
	for (i = 0; i < GTR_MAX_PEND; i++)
		if (i >= s->npend && (s->pend[i].kind || s->pend[i].count || s->pend[i].used ||
				      s->pend[i].dyn))
			FAIL("junk pending frame");
	if (s->npend && !(s->step == GS_ACTION && s->part))
		FAIL("frames pending between decisions");
	for (i = 0; i < s->npend; i++)
		if (s->pend[i].kind >= GF_COUNT || s->pend[i].dyn || !s->pend[i].count ||
		    s->pend[i].used)
			FAIL("bad pending frame");
	return 0;
}

static int top(const struct gtr_state *s)
{
	return s->nframes ? s->frames[s->nframes - 1].kind : GTR_NONE;
}

/* The seats' turn flags: who played what, in order.  Before the actions
 * nobody hired or crafted; only seats already asked (the leader, then
 * clockwise up to the cursor) have played units; a unit is at least one
 * card in the camp while the turn runs. */
static int check_seats(const struct gtr_state *s, struct buf *err)
{
	int n = s->nplayers, ph = s->phase, st = s->step, i, r;
	int before = ph == GP_LEAD || ph == GP_FOLLOW;
	int running = before || ph == GP_ACTIONS;

	for (i = 0; i < n; i++) {
		const struct gtr_player *p = &s->p[i];
		int pos = (i - s->leader + n) % n, played = gtr_total(p->camp, GTR_NAMES);
		int petitioning = st == GS_PETITION && i == s->decider;

		if (p->acted != (p->units > 0))
			FAIL("seat %d: units and acted disagree", i + 1);
		if (p->units && s->led >= GR_COUNT)
			FAIL("seat %d: units without a role led", i + 1);
		if (before) {
			if (p->crafted)
				FAIL("seat %d: a Craftsman action before the actions", i + 1);
			for (r = 0; r < GR_COUNT; r++)
				if (p->newc[r])
					FAIL("seat %d: a client hired before the actions", i + 1);
		}
		if (running) {
			if (p->units > played)
				FAIL("seat %d: more units than cards played", i + 1);
			if (played && !p->acted && !petitioning)
				FAIL("seat %d: cards played without a unit", i + 1);
		}
		if (before && (ph == GP_LEAD ? pos > 0 : pos > s->cursor) && played)
			FAIL("seat %d played before being asked", i + 1);
		if ((ph == GP_FOLLOW || ph == GP_ACTIONS) && pos == 0 && !p->acted)
			FAIL("the leader has not led");
		if (ph == GP_LEAD && st != GS_UNIT && st != GS_PETITION && played)
			FAIL("the leader played before leading");
	}
	return 0;
}

static int others_jacks(const struct gtr_state *s, int seat)
{
	int i, k = 0;

	for (i = 0; i < s->nplayers; i++)
		if (i != seat)
			k += s->p[i].camp[GTR_JACK];
	return k;
}

/* What led to the decision asked still holds: the building that asks it
 * (a hand-edited save must not let a seat use a building it lacks), the
 * petition's size, a Think discard with a hand to discard from. */
static int check_context(const struct gtr_state *s, struct buf *err)
{
	int d = s->decider, st = s->step;
	const struct gtr_player *p;

	if (st == GS_PICK || st == GS_OVER || d >= s->nplayers)
		return 0;
	p = &s->p[d];
	if (s->phase == GP_ACADEMY && (!gtr_has(s, d, GC_ACADEMY) || !p->crafted))
		FAIL("an Academy Think without Academy or Craftsman action");
	switch (st) {
	case GS_UNIT:
		if (p->units && !gtr_has(s, d, GC_PALACE))
			FAIL("a second unit without Palace");
		break;
	case GS_PETITION:
		if (s->pet_need != gtr_petition_need(s, d))
			FAIL("a petition of %d cards instead of %d", s->pet_need,
			     gtr_petition_need(s, d));
		if (s->pet_role < GR_COUNT &&
		    gtr_count(p->hand, s->pet_role) < s->pet_need - s->pet_have)
			FAIL("a petition that cannot be completed");
		break;
	case GS_VOMIT:
		if (!gtr_has(s, d, GC_VOMITORIUM) || !gtr_hand_size(s, d))
			FAIL("a Vomitorium question without Vomitorium or hand");
		break;
	case GS_LATRINE:
		if (!gtr_has(s, d, GC_LATRINE) || !gtr_hand_size(s, d))
			FAIL("a Latrine question without Latrine or hand");
		break;
	case GS_MATERIAL:
		if (s->tgt_stair && !gtr_has(s, d, GC_STAIRWAY))
			FAIL("a Stairway without Stairway");
		break;
	case GS_FOUNTAIN:
		if (!gtr_has(s, d, GC_FOUNTAIN))
			FAIL("a Fountain card without Fountain");
		break;
	case GS_COLISEUM:
		if (!gtr_has(s, d, GC_COLISEUM))
			FAIL("a Coliseum choice without Coliseum");
		break;
	case GS_PRISON:
		if (gtr_find_struct(s, d, GC_PRISON) < 0)
			FAIL("a Prison theft without a Prison");
		break;
	case GS_SENATE:
		if (!gtr_has(s, d, GC_SENATE) || !others_jacks(s, d))
			FAIL("a Senate question without Senate or Senators");
		break;
	case GS_SEWER:
		if (!gtr_has(s, d, GC_SEWER) || !gtr_total(p->camp, GC_COUNT))
			FAIL("a Sewer question without Sewer or cards");
		break;
	}
	return 0;
}

static int demanded(const struct gtr_state *s, int m)
{
	int i, n = 0;

	for (i = 0; i < s->leg_k; i++)
		n += s->leg_dem[i] == m;
	return n;
}

/*
 * The parts of a demand (GS_LEGION .. GS_COLISEUM): the Legionary still
 * holds the cards it showed ("recoge de nuevo las cartas de tu Mano"); the
 * pool matches it may take are at most one per demanded card and in the
 * pool; a victim deciding (GS_GIVE) gives at most one card per demanded
 * card; one that must give holds more matching cards than it still gives
 * (else nothing was left to choose and it gave at once), so it always has
 * a move; stockpile gifts only from a protected victim against a Puente.
 */
static int check_legion(const struct gtr_state *s, struct buf *err)
{
	int n = s->nplayers, st = s->step, d = s->decider, i, m;
	int legion = st == GS_LEGION || st == GS_LEGION_POOL || st == GS_GIVE ||
		     st == GS_COLISEUM;
	unsigned seats = (1u << n) - 1;

	for (m = 0; m < GM_COUNT; m++) {
		if (st != GS_LEGION_POOL && s->leg_take[m])
			FAIL("pool takes outside the Legionary's pool decision");
		if (s->leg_take[m] > demanded(s, m) || s->leg_take[m] > gtr_count(s->pool, m))
			FAIL("more pool takes than demanded cards or pool matches");
	}
	if (st != GS_GIVE && (s->gift || s->vol))
		FAIL("victims asked outside the Legionary's demand");
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		const struct gtr_player *p = &s->p[i];
		int owes = 0;

		for (m = 0; m < GM_COUNT; m++)
			owes += p->give[m] + p->give_stock[m];
		if (!!((s->gift >> i) & 1) != !!owes)
			FAIL("seat %d: gifts to decide and the victims asked disagree", i + 1);
	}
	if (legion && d < n)
		for (m = 0; m < GM_COUNT; m++)
			if (s->p[d].hcount[m] < demanded(s, m))
				FAIL("the Legionary no longer holds the cards it showed");
	if (st == GS_LEGION_POOL) {
		int any = 0;

		for (m = 0; m < GM_COUNT; m++)
			any |= s->leg_take[m];
		if (!any)
			FAIL("a pool decision with nothing to take");
	}
	if (st != GS_GIVE)
		return 0;
	if (!s->gift || (s->gift & ~seats) || (s->vol & ~s->gift) || ((s->gift >> d) & 1))
		FAIL("bad victims");
	for (i = 0; i < n; i++) {
		const struct gtr_player *p = &s->p[i];
		int vol = (s->vol >> i) & 1, bridge = gtr_has(s, d, GC_BRIDGE);
		int reach = n <= 3 || bridge || i == (d + 1) % n || i == (d + n - 1) % n;
		int prot = gtr_has(s, i, GC_WALL) || (gtr_has(s, i, GC_PALISADE) && !bridge);

		if (!((s->gift >> i) & 1))
			continue;
		if (!reach || vol != prot)
			FAIL("seat %d is asked as a victim it is not", i + 1);
		for (m = 0; m < GM_COUNT; m++) {
			if (p->give[m] > demanded(s, m) || p->give_stock[m] > demanded(s, m))
				FAIL("seat %d gives more than was demanded", i + 1);
			if (p->give_stock[m] && (!vol || !gtr_has(s, d, GC_BRIDGE)))
				FAIL("seat %d gives from its stockpile without cause", i + 1);
			if (!vol && p->give[m] && p->hcount[m] <= p->give[m])
				FAIL("seat %d is asked to choose with nothing to choose", i + 1);
		}
	}
	return 0;
}

/* Each decision only in the phase (and frame) that asks it. */
static int check_step_place(const struct gtr_state *s, struct buf *err)
{
	int n = s->nplayers, ph = s->phase, st = s->step, cur = gtr_current(s);

	switch (st) {
	case GS_LEAD:
		if (ph != GP_LEAD || s->led != GTR_NONE)
			FAIL("lead outside its phase");
		break;
	case GS_FOLLOW:
		if (ph != GP_FOLLOW)
			FAIL("follow outside its phase");
		break;
	case GS_UNIT:
		if ((ph != GP_LEAD && ph != GP_FOLLOW) || s->led >= GR_COUNT)
			FAIL("unit outside lead/follow");
		break;
	case GS_PETITION:
		if ((ph != GP_LEAD && ph != GP_FOLLOW) || s->led >= GR_COUNT ||
		    s->pet_need < 2 || s->pet_need > 3 || s->pet_have >= s->pet_need ||
		    (s->pet_role == GTR_NONE) != (s->pet_have == 0) ||
		    (s->pet_role != GTR_NONE && s->pet_role >= GR_COUNT))
			FAIL("bad petition");
		break;
	case GS_VOMIT:
	case GS_LATRINE:
		if (ph != GP_LEAD && ph != GP_FOLLOW && ph != GP_ACADEMY &&
		    !(ph == GP_ACTIONS && top(s) == GF_THINK))
			FAIL("a Think outside its places");
		if (ph == GP_LEAD && s->led != GTR_NONE)
			FAIL("the leader thinks after leading");
		break;
	case GS_THINK:
		if (!(ph == GP_ACADEMY || (ph == GP_ACTIONS && top(s) == GF_THINK)))
			FAIL("think step outside Escuela/Academia");
		break;
	case GS_ACTION:
	case GS_MATERIAL:
		if (ph != GP_ACTIONS || top(s) >= GR_COUNT || top(s) == GR_LEGIONARY)
			FAIL("action outside its frame");
		if (st == GS_MATERIAL) {
			int k;

			if (top(s) != GR_ARCHITECT && top(s) != GR_CRAFTSMAN)
				FAIL("material outside building");
			if (s->tgt_seat >= n || s->tgt_card >= GC_COUNT)
				FAIL("bad target");
			k = gtr_find_struct(s, s->tgt_seat, s->tgt_card);
			if (k < 0)
				FAIL("no such target");
			if (s->tgt_stair ? (s->tgt_seat == cur || !s->p[s->tgt_seat].st[k].done ||
					    (s->p[s->tgt_seat].st[k].flags & GSF_PUBLIC) ||
					    s->p[s->tgt_seat].st[k].nmat >= GTR_MAX_MAT ||
					    top(s) != GR_ARCHITECT)
					 : (s->tgt_seat != cur || s->p[cur].st[k].done))
				FAIL("bad target");
		}
		break;
	case GS_FOUNTAIN:
		if (ph != GP_ACTIONS || top(s) != GR_CRAFTSMAN || s->fount >= GC_COUNT)
			FAIL("Fountain outside Craftsman");
		break;
	case GS_LEGION:
	case GS_LEGION_POOL:
	case GS_GIVE:
	case GS_COLISEUM:
		if (ph != GP_ACTIONS || top(s) != GR_LEGIONARY)
			FAIL("Legionary outside its frame");
		if (st == GS_LEGION && (s->leg_n == 0 || s->leg_k >= s->leg_n))
			FAIL("bad demand counts");
		if ((st == GS_LEGION_POOL || st == GS_GIVE) && s->leg_k == 0)
			FAIL("a demand without demanded cards");
		break;
	case GS_PRISON:
		if (ph != GP_ACTIONS || top(s) != GF_PRISON)
			FAIL("Prison outside its frame");
		break;
	case GS_SENATE:
		if (ph != GP_SENATE)
			FAIL("Senate outside its phase");
		break;
	case GS_SEWER:
		if (ph != GP_SEWER)
			FAIL("Sewer outside its phase");
		break;
	}
	return 0;
}

static int check_step(const struct gtr_state *s, struct buf *err)
{
	int n = s->nplayers, i, ph = s->phase, st = s->step, cur = gtr_current(s);

	if (ph >= GP_COUNT || st >= GS_COUNT)
		FAIL("bad phase or step");
	if ((ph == GP_OVER) != (st == GS_OVER))
		FAIL("over in phase or step only");
	if ((ph == GP_PICK) != (st == GS_PICK))
		FAIL("pick in phase or step only");
	if (s->leader >= n || s->cursor > n)
		FAIL("bad leader or cursor");
	if (s->led != GTR_NONE && s->led >= GR_COUNT)
		FAIL("bad led role");
	if (s->end >= GE_COUNT || s->ending >= GE_COUNT)
		FAIL("bad end");
	if (s->winner != GTR_NONE && s->winner >= n)
		FAIL("bad winner");
	if (s->think > GTR_THINK_JACK)
		FAIL("bad think");
	if (s->part > (GPART_POOL | GPART_DECK | GPART_HAND))
		FAIL("bad action part");
	if (s->started > 1 || s->tgt_stair > 1)
		FAIL("bad flag");
	if (s->fount != GTR_NONE && st != GS_FOUNTAIN)
		FAIL("a Fountain card outside its decision");
	if (s->leg_n > GTR_MAX_DEMAND || s->leg_k > s->leg_n)
		FAIL("bad demand counts");
	for (i = 0; i < GTR_MAX_DEMAND; i++)
		if (s->leg_dem[i] >= GM_COUNT || (i >= s->leg_k && s->leg_dem[i]))
			FAIL("bad demand");
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		int m;

		for (m = 0; m < GM_COUNT; m++)
			if (s->coli[i][m] > GTR_MAX_DEMAND || (i >= n && s->coli[i][m]))
				FAIL("bad Coliseum quota");
		if (i < n && (s->p[i].acted > 1 ||
			      s->p[i].crafted > 1 || s->p[i].conceded > 1))
			FAIL("bad seat flag");
		if (i < n && s->p[i].pick && st != GS_PICK)
			FAIL("a leader card outside the pick");
	}
	if (st == GS_OVER) {
		if (s->end == GE_NONE)
			FAIL("over without a reason");
		return 0;
	}
	if (s->end != GE_NONE || s->ending || s->winner != GTR_NONE)
		FAIL("an end recorded in a running game");
	if (s->ndeck == 0)
		FAIL("a running game with an empty deck");
	{
		int town = 0, left = 0;

		for (i = 0; i < GM_COUNT; i++)
			town += s->in_town[i];
		for (i = 0; i < n; i++)
			left += !s->p[i].conceded;
		if (town == 0)
			FAIL("a running game with no site in town");
		if (left < 2)
			FAIL("a running game with one player left");
	}
	if (st != GS_PICK && s->decider >= n)
		FAIL("bad decider");
	if (st != GS_PETITION && (s->pet_have || s->pet_need || s->pet_role != GTR_NONE))
		FAIL("petition data outside a petition");
	if (st != GS_MATERIAL && (s->tgt_card != GTR_NONE || s->tgt_seat != GTR_NONE || s->tgt_stair))
		FAIL("a target outside the material decision");
	if (ph != GP_ACTIONS && (s->nframes || s->started))
		FAIL("frames outside the actions");
	if (st != GS_COLISEUM)
		for (i = 0; i < n; i++) {
			int m;

			for (m = 0; m < GM_COUNT; m++)
				if (s->coli[i][m])
					FAIL("a Coliseum quota outside its decision");
		}
	if (st != GS_LEGION && st != GS_LEGION_POOL && st != GS_GIVE && st != GS_COLISEUM &&
	    (s->leg_n || s->leg_k))
		FAIL("demands outside the Legionary");
	switch (ph) {
	case GP_LEAD:
		if (s->decider != s->leader || s->cursor != 0)
			FAIL("the lead is the leader's");
		break;
	case GP_FOLLOW:
	case GP_ACTIONS:
	case GP_SENATE:
	case GP_SEWER:
	case GP_ACADEMY:
		if (s->cursor >= n || s->decider != cur)
			FAIL("the decider is not the phase's seat");
		if (ph != GP_ACADEMY && s->led >= GR_COUNT && ph != GP_SENATE && ph != GP_SEWER)
			FAIL("no role led");
		if (ph == GP_FOLLOW && s->cursor == 0)
			FAIL("the leader does not follow");
		break;
	}
	if (check_step_place(s, err))
		return -1;
	if (ph == GP_ACTIONS && (!s->nframes || !s->started))
		FAIL("actions without a frame");
	if (check_seats(s, err) || check_context(s, err) || check_legion(s, err))
		return -1;
	if (ph == GP_ACADEMY)
		for (i = 0; i < n; i++)
			if (gtr_total(s->p[i].camp, GTR_NAMES))
				FAIL("played cards after the turn");
	return 0;
}

int gtr_check(const void *st, struct buf *err)
{
	const struct gtr_state *s = st;
	struct move_list ml;
	unsigned aw;
	int i;

	if (s->nplayers < GTR_MIN_PLAYERS || s->nplayers > GTR_MAX_PLAYERS)
		FAIL("bad player count");
	if (s->opts > (GO_EXPERIENCED | GO_ORIGINAL_CIRCUS | GO_NOFUNCTIONS | GO_QUICK))
		FAIL("bad options");
	if (s->ndraw > GTR_MAX_DRAW)
		FAIL("bad leader draw");
	for (i = 0; i < GTR_MAX_DRAW; i++)
		if (i < s->ndraw ? s->draw_seat[i] >= s->nplayers || s->draw_card[i] >= GC_COUNT
				 : s->draw_seat[i] || s->draw_card[i])
			FAIL("bad leader draw");
	if (check_cards(s, err) || check_caches(s, err) || check_frames(s, err) ||
	    check_step(s, err))
		return -1;
	aw = gtr_awaiting(s);
	if (s->step == GS_OVER)
		return aw ? (buf_setf(err, "a finished game awaits a seat"), -1) : 0;
	if (!aw)
		FAIL("a running game awaits nobody");
	for (i = 0; i < s->nplayers; i++)
		if ((aw & (1u << i)) && gtr_moves(s, i, &ml) == 0)
			FAIL("seat %d is awaited but has no move", i + 1);
	return 0;
}
