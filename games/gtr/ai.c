/*
 * ai.c: a heuristic Glory to Rome player.
 *
 * Every legal move gets a hand-tuned worth from the seat's own position
 * and public data (its hand, its structures and their missing materials,
 * the pool, the stockpile, the vault room); the best one is played, ties
 * broken by the caller's rng.  The lead or follow of a role is worth what
 * that role's best action would bring now (completing or feeding a
 * building, hiring, selling, taking what a foundation needs); a Think is
 * worth more the emptier the hand.  A Legionary's pool match is always
 * taken; a victim gives the card it least wants to keep; a protected
 * victim never gives.  The bot never concedes and never reads other seats'
 * hands or the deck; it reads the vaults only through gtr_scores (in
 * make_view: whether the seat is behind), which counts their materials.
 *
 * One decision costs one moves() call plus a few loops over the seat's
 * cards: far below a millisecond.
 *
 * Owns gtr_bot_move (the bot_move op: the baseline bot, and the playout
 * policy of the searching AI in games/search.c, which hands it
 * determinized states).  Must not: change the state, or read other seats'
 * hands or the deck.
 */
#include <string.h>

#include "games/gtr/gtr.h"

/* How much a building's function is worth to a bot (0..6, rough). */
static const uint8_t fn_worth[GC_COUNT] = {
	[GC_ROAD] = 1, [GC_INSULA] = 3, [GC_LATRINE] = 1, [GC_BAR] = 2,
	[GC_CIRCUS] = 2, [GC_PALISADE] = 2, [GC_MARKET] = 3, [GC_DOCK] = 2,
	[GC_ACADEMY] = 2, [GC_ARCHWAY] = 2, [GC_ATRIUM] = 3, [GC_SCHOOL] = 3,
	[GC_FOUNDRY] = 3, [GC_GATE] = 2, [GC_SHRINE] = 2, [GC_BATH] = 2,
	[GC_AQUEDUCT] = 3, [GC_AMPHITHEATRE] = 3, [GC_STOREROOM] = 2, [GC_WALL] = 4,
	[GC_BRIDGE] = 2, [GC_SENATE] = 1, [GC_TOWER] = 3, [GC_VOMITORIUM] = 1,
	[GC_SEWER] = 2, [GC_SCRIPTORIUM] = 3, [GC_CATACOMB] = 2, [GC_CIRCUS_MAXIMUS] = 3,
	[GC_COLISEUM] = 3, [GC_GARDEN] = 4, [GC_PRISON] = 2, [GC_VILLA] = 4,
	[GC_BASILICA] = 3, [GC_STAIRWAY] = 1, [GC_STATUE] = 4, [GC_FORUM] = 4,
	[GC_FOUNTAIN] = 2, [GC_LUDUS_MAGNA] = 3, [GC_PALACE] = 3, [GC_TEMPLE] = 3,
};

struct view {
	const struct gtr_state *s;
	int seat;
	int need[GM_COUNT];	/* materials my foundations still need, by material */
	int nfound;		/* my unfinished structures */
	int behind;		/* my score is below the best other score */
	int endgame;		/* draw to end the game */
	int late;		/* few sites or cards left: sell rather than found */
	int room;		/* vault room */
};

static int mat_of_struct(const struct gtr_struct *t)
{
	return t->card == GC_STATUE ? t->site : gtr_cards[t->card].material;
}

static void make_view(struct view *v, const struct gtr_state *s, int seat)
{
	const struct gtr_player *p = &s->p[seat];
	int score[GTR_MAX_PLAYERS];
	int k, i, best = 0, mine;

	memset(v, 0, sizeof(*v));
	v->s = s;
	v->seat = seat;
	for (k = 0; k < p->nstruct; k++) {
		const struct gtr_struct *t = &p->st[k];

		if (t->done)
			continue;
		v->nfound++;
		v->need[mat_of_struct(t)] += gtr_struct_need(t) - t->nmat;
	}
	gtr_scores(s, score);
	mine = score[seat];
	for (i = 0; i < s->nplayers; i++)
		if (i != seat && score[i] > best)
			best = score[i];
	v->behind = mine < best;
	v->endgame = s->turn > 150 || (!v->behind && s->ndeck < 8 * s->nplayers);
	{
		int town = 0, m;

		for (m = 0; m < GM_COUNT; m++)
			town += s->in_town[m];
		v->late = town <= s->nplayers + 1 || s->ndeck < 25;
	}
	v->room = gtr_vault_size(s, seat) < gtr_vault_limit(s, seat);
}

static int site_left(const struct gtr_state *s, int m)
{
	return s->in_town[m] + s->out_town[m];
}

/* How much keeping card c in hand is worth. */
static int keep_worth(const struct view *v, int c)
{
	const struct gtr_state *s = v->s;
	int m, w = 1;

	if (c == GTR_JACK)
		return 12;
	m = gtr_cards[c].material;
	if (v->need[m])
		w += 4;
	if (!((s->p[v->seat].has >> c) & 1) && site_left(s, m))
		w += fn_worth[c] + gtr_value[m];
	return w;
}

/* The best a role's action would bring the seat now (one action). */
static int role_worth(const struct view *v, int r)
{
	const struct gtr_state *s = v->s;
	const struct gtr_player *p = &s->p[v->seat];
	int m, w = 0, c;

	switch (r) {
	case GR_LABORER:
		for (m = 0; m < GM_COUNT; m++)
			if (gtr_count(s->pool, m)) {
				int x = (v->need[m] ? 9 : v->room ? 4 : 2) + gtr_value[m];

				if (x > w)
					w = x;
			}
		break;
	case GR_PATRON:
		if (gtr_clients(s, v->seat) < gtr_client_limit(s, v->seat))
			for (m = 0; m < GM_COUNT; m++)
				if (gtr_count(s->pool, m)) {
					int x = 6 + (m == GR_ARCHITECT || m == GR_CRAFTSMAN ? 2 : 0) +
						(m == GR_MERCHANT ? 1 : 0);

					if (x > w)
						w = x;
				}
		break;
	case GR_MERCHANT:
		if (v->room)
			for (m = 0; m < GM_COUNT; m++)
				if (gtr_count(p->stock, m)) {
					int x = gtr_count(p->stock, m) > v->need[m] || v->late
						? 5 + 3 * gtr_value[m] : 2 + gtr_value[m];

					if (x > w)
						w = x;
				}
		break;
	case GR_ARCHITECT:
		for (m = 0; m < GM_COUNT; m++)
			if (v->need[m] && gtr_count(p->stock, m))
				w = w > 14 ? w : 14;
		for (c = 0; c < GC_COUNT; c++)
			if (p->hand[c] && !((p->has >> c) & 1) &&
			    s->in_town[gtr_cards[c].material] &&
			    gtr_count(p->stock, gtr_cards[c].material)) {
				int x = 7 + fn_worth[c];

				if (x > w)
					w = x;
			}
		break;
	case GR_CRAFTSMAN:
		for (c = 0; c < GC_COUNT; c++) {
			int x = 0;

			if (!p->hand[c])
				continue;
			m = gtr_cards[c].material;
			if (v->need[m])
				x = 12;
			else if (!((p->has >> c) & 1) && s->in_town[m] && v->nfound < 3)
				x = 5 + fn_worth[c];
			if (x > w)
				w = x;
		}
		break;
	case GR_LEGIONARY:
		for (m = 0; m < GM_COUNT; m++)
			if (gtr_count(p->hand, m)) {
				int x = 2 + (gtr_count(s->pool, m) ? 3 : 0) + (v->need[m] ? 3 : 0);

				if (x > w)
					w = x;
			}
		break;
	}
	return w;
}

/* Clients that would act with role r (roughly: the matching ones). */
static int clients_of(const struct gtr_state *s, int seat, int r)
{
	return gtr_count(s->p[seat].clients, r);
}

static int think_worth(const struct view *v, int kind)
{
	const struct gtr_state *s = v->s;
	int h = gtr_hand_size(s, v->seat), lim = gtr_hand_limit(s, v->seat);

	/* A Senador beats drawing one card; but a long game (Senado can
	 * recycle Senadores forever) or a short deck while not behind calls
	 * for drawing: the deck running out ends the game. */
	if (kind == GTR_THINK_JACK)
		return s->jacks && h >= lim - 1 && !v->endgame ? 5 : 0;
	if (v->endgame)
		return 10;
	if (h <= 1)
		return 16;
	if (h < lim - 1)
		return 9;
	return h < lim ? 6 : 3;
}

static int found_worth(const struct view *v, int c, int m, int out)
{
	const struct gtr_state *s = v->s;
	const struct gtr_player *p = &s->p[v->seat];
	int w = 6 + fn_worth[c] + 2 * gtr_value[m], town = 0, k;

	for (k = 0; k < GM_COUNT; k++)
		town += s->in_town[k];
	if (!out && town == 1)
		return v->behind ? -50 : 30;	/* ends the game */
	if (out)
		w -= 3;
	if (gtr_count(p->stock, m))
		w += 3;
	if (v->nfound >= 2)
		w -= 4 * (v->nfound - 1);
	if (v->late)
		w -= 6;
	return w;
}

static int score_move(const struct view *v, struct move m)
{
	const struct gtr_state *s = v->s;
	const struct gtr_player *p = &s->p[v->seat];
	const struct gtr_struct *t;
	int k;

	switch (m.kind) {
	case GK_PICK:
		return 60 - (int)m.a;	/* earliest names lead; cheap to lose */
	case GK_LEAD:
		return role_worth(v, m.a) + 2 * clients_of(s, v->seat, m.a) + 2;
	case GK_FOLLOW:
		return role_worth(v, s->led) + 1;
	case GK_THINK:
		return think_worth(v, m.a);
	case GK_CONCEDE:
		return -1000;
	case GK_PLAY:
		return 20 - keep_worth(v, m.a);
	case GK_PETITION:
		return 2;
	case GK_PETITION_CARD:
		return 20 - keep_worth(v, m.a);
	case GK_DONE:
		switch (s->step) {
		case GS_VOMIT:
			return gtr_hand_size(s, v->seat) <= 2 ? -1 : 1;
		case GS_LATRINE:
			return 1;
		case GS_UNIT:
			return 3;
		case GS_GIVE:
			return 100;	/* protected: never gives anything away */
		default:
			return 0;
		}
	case GK_VOMIT:
		return 0;
	case GK_LATRINE:
		return keep_worth(v, m.a) <= 2 ? 2 : -1;
	case GK_HIRE:
		return 6 + (m.a == GR_ARCHITECT || m.a == GR_CRAFTSMAN ? 2 : 0) + gtr_value[m.a] / 2;
	case GK_HIRE_DECK:
		return 5;
	case GK_HIRE_HAND:
		return 8 - keep_worth(v, m.a);
	case GK_TAKE:	/* a Laborer's take, or the Legionary's pool match */
		return (v->need[m.a] ? 10 : v->room ? 4 : 2) + gtr_value[m.a];
	case GK_GIVE:	/* must give one of these: the least useful one */
		return -keep_worth(v, m.a);
	case GK_GIVE_STOCK:
		return -50;
	case GK_DOCK:
		return 6 - keep_worth(v, m.a);
	case GK_SELL:
		return v->need[m.a] >= gtr_count(p->stock, m.a) && !v->late ? 1 : 3 + 3 * gtr_value[m.a];
	case GK_SELL_DECK:
		return 7;
	case GK_SELL_HAND:
		return 9 - keep_worth(v, m.a);
	case GK_FOUND:
		if (m.a == GC_CATACOMB && v->behind)
			return -2;
		if (s->step == GS_FOUNTAIN)
			return found_worth(v, m.a, m.b, m.c);
		return found_worth(v, m.a, m.b, m.c) - keep_worth(v, m.a) / 2;
	case GK_ADD:
		k = gtr_find_struct(s, v->seat, m.a);
		t = k >= 0 ? &p->st[k] : NULL;
		if (!t)
			return 0;
		if (t->card == GC_CATACOMB && t->nmat + 1 >= gtr_struct_need(t) && v->behind)
			return -20;	/* would end the game while behind */
		return 14 + (t->nmat + 1 >= gtr_struct_need(t) ? 8 : 0) + fn_worth[t->card];
	case GK_STAIRWAY:
		return 2;
	case GK_WITH:
		if (s->nframes && s->frames[s->nframes - 1].kind == GR_CRAFTSMAN)
			return 20 - keep_worth(v, m.a);
		return m.b ? 6 : 5;	/* the pool first keeps the stockpile */
	case GK_BACK:
		return -5;
	case GK_FOUNTAIN:
		return 8;
	case GK_KEEP:
		return 1;
	case GK_DEMAND:
		return 4 + (gtr_count(s->pool, m.a) ? 2 : 0) + (v->need[m.a] ? 3 : 0) + gtr_value[m.a];
	case GK_COLISEUM:
		return 6;
	case GK_IMPRISON:
		return 3 + fn_worth[m.a];
	case GK_SENATORS:
		return 4 + (int)m.a;
	case GK_SEWER:
		return 4;
	}
	return 0;
}

int gtr_bot_move(const void *st, int seat, struct rng *rng, struct move *out)
{
	const struct gtr_state *s = st;
	struct move_list ml;
	struct view v;
	int i, best = -1, bestw = 0, ties = 0;

	if (gtr_moves(s, seat, &ml) == 0)
		return -1;
	make_view(&v, s, seat);
	for (i = 0; i < ml.n; i++) {
		int w = score_move(&v, ml.v[i]);

		if (best < 0 || w > bestw) {
			best = i;
			bestw = w;
			ties = 1;
		} else if (w == bestw && rng_below(rng, (uint32_t)++ties) == 0) {
			best = i;
		}
	}
	*out = ml.v[best];
	return 0;
}
