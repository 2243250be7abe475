/*
 * buildings.c: the buildings' powers ("Edificios y sus funciones") that
 * are not a role's own action: which functions each seat has now and the
 * limits they set (the caches of struct gtr_player, kept by every change
 * and rebuilt by gtr_refresh), the completion of a structure with its
 * bonus (Escuela, Fundición, Anfiteatro, Jardín, Prisión, Catacumbas), and
 * Prisión's theft (GS_PRISON).
 *
 * The ongoing functions act where their rule is: material rules in
 * roles.c, protection and Coliseo in legion.c, action counts in flow.c,
 * Estatua and Muralla in score.c, Foro in score.c.  Must not: run the
 * frames a bonus earns (it only pends them: flow.c runs them), or change
 * a cache without the state it follows from (check.c recomputes them
 * after every move in tests).
 */
#include "games/gtr/gtr_int.h"

/* ---- functions and limits (cached) ---- */

/* The caches of seat i that follow from its structures, its influence
 * pile and the public buildings. */
void gtr_refresh_seat(struct gtr_state *s, int i)
{
	struct gtr_player *p = &s->p[i];
	uint64_t f = 0;
	int n = GTR_INFLUENCE_BASE, c, m, k;

	if (!(s->opts & GO_NOFUNCTIONS)) {
		f = p->built | s->pub;
		if ((f >> GC_GATE) & 1)		/* Portón: Marble foundations too */
			f |= p->has & (BIT(GC_COUNT) - BIT(GC_BASILICA));
	}
	p->fn = f;
	for (m = 0; m < GM_COUNT; m++)
		n += p->infl[m] * gtr_value[m];
	p->influence = (uint8_t)n;
	c = n + ((f >> GC_INSULA) & 1 ? 2 : 0);
	p->client_limit = (uint8_t)((f >> GC_AQUEDUCT) & 1 ? 2 * c : c);
	p->vault_limit = (uint8_t)(n + ((f >> GC_MARKET) & 1 ? 2 : 0));
	p->hand_limit = (uint8_t)(GTR_HAND_BASE + ((f >> GC_SHRINE) & 1 ? 2 : 0) +
				  ((f >> GC_TEMPLE) & 1 ? 4 : 0));
	f = 0;
	for (k = 0; k < s->nplayers; k++)
		f |= s->p[k].fn;
	s->any_fn = f;
}

void gtr_refresh(struct gtr_state *s)
{
	int i, k;

	s->pub = 0;
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		struct gtr_player *p = &s->p[i];

		p->has = p->built = 0;
		for (k = 0; i < s->nplayers && k < p->nstruct; k++) {
			const struct gtr_struct *t = &p->st[k];

			if (t->card >= GC_COUNT)
				continue;
			p->has |= BIT(t->card);
			if (t->done) {
				p->built |= BIT(t->card);
				if (t->flags & GSF_PUBLIC)
					s->pub |= BIT(t->card);
			}
		}
	}
	/* the functions need every seat's public buildings first */
	s->any_fn = 0;
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		struct gtr_player *p = &s->p[i];
		int c;

		memset(p->hcount, 0, sizeof(p->hcount));
		if (i >= s->nplayers) {	/* unused seats stay zero: states compare bytewise */
			p->fn = 0;
			p->influence = p->client_limit = p->vault_limit = p->hand_limit = 0;
			continue;
		}
		for (c = 0; c < GTR_NAMES; c++)
			p->hcount[hand_slot[c]] = (uint8_t)(p->hcount[hand_slot[c]] + p->hand[c]);
		gtr_refresh_seat(s, i);
	}
}

/* ---- completion ---- */

void gtr_complete(struct gtr_state *s, int seat, struct gtr_struct *t, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	int card = t->card, infl;

	t->done = 1;
	if (t->site < GM_COUNT)
		p->infl[t->site]++;
	/* what gtr_refresh would change: a completed building is not public */
	p->built |= BIT(card);
	gtr_refresh_seat(s, seat);
	infl = gtr_influence(s, seat);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s completes %s: influence %d.",
				"%s termina %s: Influencia %d."),
	     NAME(log, seat), CNAME(log, card), infl);
	if (s->opts & GO_NOFUNCTIONS)
		return;
	switch (card) {
	case GC_CATACOMB:
		s->ending = GE_CATACOMB;
		break;
	case GC_SCHOOL:
		pend(s, GF_THINK, infl);
		break;
	case GC_FOUNDRY:
		pend(s, GR_LABORER, infl);
		break;
	case GC_AMPHITHEATRE:
		pend(s, GR_CRAFTSMAN, infl);
		break;
	case GC_GARDEN:
		pend(s, GR_PATRON, infl);
		break;
	case GC_PRISON:
		pend(s, GF_PRISON, 1);
		break;
	}
}

/* ---- Prison ---- */

static int prison_target_ok(const struct gtr_state *s, int seat, int v, int k)
{
	const struct gtr_struct *t;

	if (v == seat || v >= s->nplayers || k >= s->p[v].nstruct)
		return 0;
	t = &s->p[v].st[k];
	return t->done && t->card < GC_COUNT && !((s->p[seat].has >> t->card) & 1) &&
	       s->p[seat].nstruct < GTR_MAX_STRUCT;
}

int gtr_prison_targets(const struct gtr_state *s, int seat)
{
	int v, k, n = 0;

	if (gtr_find_struct(s, seat, GC_PRISON) < 0)
		return 0;
	for (v = 0; v < s->nplayers; v++)
		for (k = 0; k < s->p[v].nstruct; k++)
			n += prison_target_ok(s, seat, v, k);
	return n;
}

static void imprison(struct gtr_state *s, int seat, int card, int v, struct game_log *log)
{
	struct gtr_player *me = &s->p[seat], *vp = &s->p[v];
	int k = gtr_find_struct(s, v, card), pk = gtr_find_struct(s, seat, GC_PRISON);
	int site = pk >= 0 ? me->st[pk].site : GM_STONE;
	struct gtr_struct t;

	t = vp->st[k];
	memmove(&vp->st[k], &vp->st[k + 1], (size_t)(vp->nstruct - k - 1) * sizeof(t));
	vp->nstruct--;
	memset(&vp->st[vp->nstruct], 0, sizeof(t));
	t.flags |= GSF_STOLEN;
	me->st[me->nstruct++] = t;
	if (site < GM_COUNT && me->infl[site]) {
		me->infl[site]--;
		vp->infl[site]++;
	}
	gtr_refresh(s);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s imprisons %s's %s and gives %s the Prison's site.",
				"%s encierra %s de %s y le da el Solar de la Prisión."),
	     NAME(log, seat), NAME(log, v), CNAME(log, card), NAME(log, v));
}

void gtr_prison_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	int k, v, c;

	for (k = 1; k < s->nplayers; k++) {
		v = (seat + k) % s->nplayers;
		for (c = 0; c < s->p[v].nstruct; c++)
			if (prison_target_ok(s, seat, v, c))
				add(out, GK_IMPRISON, s->p[v].st[c].card, v, 0);
	}
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_prison_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (m.kind == GK_IMPRISON)
		imprison(s, seat, m.a, m.b, log);
	gtr_action_done(s, FRAME_ALL, log);
}
