/*
 * roles.c: the actions of the roles ("Acciones de los personajes") but the
 * Legionary's: Laborer (pool to stockpile; Muelle), Craftsman (build from
 * hand; Fuente), Architect (build from the stockpile; Arco, Escalinata),
 * Merchant (stockpile to vault; Atrio, Basílica), Patron (pool to
 * clientele; Taberna, Acueducto, Termas); foundations on sites in and out
 * of town, materials and which suit a structure (Torre, Calzada,
 * Biblioteca, Estatua, Villa).
 *
 * Owns the steps GS_ACTION, GS_MATERIAL and GS_FOUNTAIN: their move lists,
 * their legality and what they do.  Must not: decide what comes after an
 * action (it hands the spent actions to gtr_action_done in flow.c), or fire
 * a completed building's bonus itself (gtr_complete in buildings.c does).
 */
#include "games/gtr/gtr_int.h"

/* ---- structures ---- */

int gtr_find_struct(const struct gtr_state *s, int seat, int card)
{
	const struct gtr_player *p = &s->p[seat];
	int i;

	for (i = 0; i < p->nstruct; i++)
		if (p->st[i].card == card)
			return i;
	return -1;
}

int gtr_struct_need(const struct gtr_struct *t)
{
	if (t->card == GC_STATUE && t->site < GM_COUNT)
		return gtr_value[t->site];
	return gtr_value[gtr_cards[t->card].material];
}

/* ---- building ---- */

static int in_town_total(const struct gtr_state *s)
{
	int m, n = 0;

	for (m = 0; m < GM_COUNT; m++)
		n += s->in_town[m];
	return n;
}

static int material_ok(const struct gtr_state *s, int seat, const struct gtr_struct *t, int m)
{
	int base = gtr_cards[t->card].material;

	if (t->card == GC_STATUE && !(s->opts & GO_NOFUNCTIONS)) {
		if (m == t->site || m == GM_MARBLE)
			return 1;
	} else if (m == base) {
		return 1;
	}
	if (m == GM_RUBBLE && gtr_has(s, seat, GC_TOWER))
		return 1;
	if (base == GM_STONE && gtr_has(s, seat, GC_ROAD))
		return 1;
	return m == GM_MARBLE && gtr_has(s, seat, GC_SCRIPTORIUM);
}

/* Bit m per material m that material_ok accepts for t. */
static inline unsigned material_mask(const struct gtr_state *s, int seat,
				      const struct gtr_struct *t)
{
	int base = gtr_cards[t->card].material;
	uint64_t f = fn_mask(s, seat);
	unsigned ok;

	if (t->card == GC_STATUE && !(s->opts & GO_NOFUNCTIONS))
		ok = (t->site < GM_COUNT ? 1u << t->site : 0) | 1u << GM_MARBLE;
	else
		ok = 1u << base;
	if ((f >> GC_TOWER) & 1)
		ok |= 1u << GM_RUBBLE;
	if (base == GM_STONE && ((f >> GC_ROAD) & 1))
		ok |= (1u << GM_COUNT) - 1;
	if ((f >> GC_SCRIPTORIUM) & 1)
		ok |= 1u << GM_MARBLE;
	return ok & ((1u << GM_COUNT) - 1);
}

/* Sites card may be founded on: bit m for in town, bit 8 + m out of town;
 * `left` actions remain in the frame (the one being spent included). */
static unsigned site_options(const struct gtr_state *s, int seat, int card, int left)
{
	unsigned bits = 0;
	int m, lo, hi;

	if (card >= GC_COUNT || ((s->p[seat].has >> card) & 1) ||
	    s->p[seat].nstruct >= GTR_MAX_STRUCT)
		return 0;
	lo = hi = gtr_cards[card].material;
	if (card == GC_STATUE && !(s->opts & GO_NOFUNCTIONS)) {
		lo = 0;
		hi = GM_COUNT - 1;
	}
	for (m = lo; m <= hi; m++) {
		if (s->in_town[m])
			bits |= 1u << m;
		else if (s->out_town[m] && (left >= 2 || gtr_has(s, seat, GC_TOWER)))
			bits |= 1u << (8 + m);
	}
	return bits;
}

static void found(struct gtr_state *s, int seat, int card, int m, int out, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	struct gtr_struct *t = &p->st[p->nstruct++];

	memset(t, 0, sizeof(*t));
	t->card = (uint8_t)card;
	t->site = (uint8_t)m;
	if (out)
		s->out_town[m]--;
	else
		s->in_town[m]--;
	/* what gtr_refresh would change: a foundation adds to has, which
	 * counts for the functions with Portón only */
	p->has |= BIT(card);
	if ((p->fn >> GC_GATE) & 1)
		gtr_refresh_seat(s, seat);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s lays the foundation of %s on a %s site%s.",
				"%s pone los cimientos de %s en un Solar de %s%s."),
	     NAME(log, seat), CNAME(log, card), MNAME(log, m),
	     out ? L(LOC(log), " out of town", " de las afueras") : "");
	if (in_town_total(s) == 0 && !s->ending)
		s->ending = GE_SITES;
}

/* Adds material card c to structure t of owner (by actor). */
static void add_material(struct gtr_state *s, int actor, int owner, struct gtr_struct *t,
			 int c, int stair, struct game_log *log)
{
	int m = gtr_cards[c].material;

	if (t->nmat < GTR_MAX_MAT)
		t->mat[t->nmat++] = (uint8_t)c;
	if (stair) {
		int i;

		t->flags |= GSF_PUBLIC;
		/* what gtr_refresh would change: everybody's functions */
		s->pub |= BIT(t->card);
		for (i = 0; i < s->nplayers; i++)
			gtr_refresh_seat(s, i);
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s adds %s to %s's %s: its function is now public.",
					"%s añade %s a %s de %s: su función es ahora pública."),
		     NAME(log, actor), MNAME(log, m), NAME(log, owner), CNAME(log, t->card));
		return;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s adds %s to %s (%d/%d).",
				"%s añade %s a %s (%d/%d)."),
	     NAME(log, actor), MNAME(log, m), CNAME(log, t->card), t->nmat, gtr_struct_need(t));
	if (t->nmat >= gtr_struct_need(t) ||
	    (t->card == GC_VILLA && top_kind(s) == GR_ARCHITECT && !(s->opts & GO_NOFUNCTIONS)))
		gtr_complete(s, owner, t, log);
}

/* ---- move lists ---- */

static void found_moves(const struct gtr_state *s, int seat, int card, int left,
			struct move_list *out)
{
	unsigned bits = site_options(s, seat, card, left);
	int m;

	for (m = 0; m < GM_COUNT; m++) {
		if (bits & (1u << m))
			add(out, GK_FOUND, card, m, 0);
		if (bits & (1u << (8 + m)))
			add(out, GK_FOUND, card, m, 1);
	}
}

/* Material sources for adding to t by seat acting as role; with out NULL,
 * only whether there is one (1 or 0). */
static int material_moves(const struct gtr_state *s, int seat, const struct gtr_struct *t,
			  int role, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int m, c, n = 0, arch;
	unsigned ok = material_mask(s, seat, t);

	if (!ok)
		return 0;
	if (role == GR_ARCHITECT) {
		arch = gtr_has(s, seat, GC_ARCHWAY);
		for (m = 0; m < GM_COUNT; m++) {
			if (!(ok & (1u << m)))
				continue;
			if (count_of(p->stock, m)) {
				if (!out)
					return 1;
				n++;
				add(out, GK_WITH, m, 0, 0);
			}
			if (arch && count_of(s->pool, m)) {
				if (!out)
					return 1;
				n++;
				add(out, GK_WITH, m, 1, 0);
			}
		}
	} else if (!out) {
		for (m = 0; m < GM_COUNT; m++)
			if ((ok & (1u << m)) && p->hcount[m])
				return 1;
	} else {
		for (c = 0; c < GC_COUNT; c++)
			if (p->hand[c] && (ok & (1u << gtr_cards[c].material))) {
				n++;
				add(out, GK_WITH, c, 0, 0);
			}
	}
	return n;
}

/* Bit m per material m that seat has a source of, acting as role:
 * material_moves(s, seat, t, role, NULL) is material_mask(t) & this. */
static unsigned source_mask(const struct gtr_state *s, int seat, int role)
{
	const struct gtr_player *p = &s->p[seat];

	if (role == GR_ARCHITECT)
		return materials_held(p->stock) |
		       (gtr_has(s, seat, GC_ARCHWAY) ? materials_held(s->pool) : 0);
	return nonzero_bytes(load8(p->hcount) & HAND_MATERIALS);
}

/* With `any`, stops at the first move (action_options only counts them). */
#define ADD(...) do { add(out, __VA_ARGS__); if (any) return; } while (0)

static inline __attribute__((always_inline)) void action_moves(const struct gtr_state *s,
									int seat, int kind,
									struct move_list *out, int any)
{
	const struct gtr_player *p = &s->p[seat];
	int c, m, k, v;
	int room;
	unsigned src;

	switch (kind) {
	case GR_LABORER:
		if (!(s->part & GPART_POOL)) {
			unsigned held = materials_held(s->pool);

			for (m = 0; m < GM_COUNT; m++)
				if (held & (1u << m))
					ADD(GK_TAKE, m, 0, 0);
		}
		if (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_DOCK))
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					ADD(GK_DOCK, c, 0, 0);
		break;
	case GR_PATRON:
		room = client_room(s, seat);
		if (!room)
			break;
		if (!(s->part & (GPART_POOL | GPART_DECK))) {
			unsigned held = materials_held(s->pool);

			for (m = 0; m < GM_COUNT; m++)
				if (held & (1u << m))
					ADD(GK_HIRE, m, 0, 0);
		}
		if (!(s->part & GPART_DECK) && s->ndeck && gtr_has(s, seat, GC_BAR))
			ADD(GK_HIRE_DECK, 0, 0, 0);
		if (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_AQUEDUCT))
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					ADD(GK_HIRE_HAND, c, 0, 0);
		break;
	case GR_MERCHANT:
		room = vault_room(s, seat);
		if (!room)
			break;
		if (!(s->part & (GPART_POOL | GPART_DECK))) {
			unsigned held = materials_held(p->stock);

			for (m = 0; m < GM_COUNT; m++)
				if (held & (1u << m))
					ADD(GK_SELL, m, 0, 0);
			if (s->ndeck && gtr_has(s, seat, GC_ATRIUM))
				ADD(GK_SELL_DECK, 0, 0, 0);
		}
		if (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_BASILICA))
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					ADD(GK_SELL_HAND, c, 0, 0);
		break;
	case GR_ARCHITECT:
	case GR_CRAFTSMAN:
		/* found_moves for every card in hand, the sites looked at once */
		if (p->nstruct < GTR_MAX_STRUCT) {
			uint64_t cards = present(p->hand, GC_COUNT) & ~p->has;
			uint64_t in_cards = 0, out_cards = 0;
			unsigned in = 0, outs = 0;
			int statue = !(s->opts & GO_NOFUNCTIONS) && ((cards >> GC_STATUE) & 1);

			for (m = 0; m < GM_COUNT; m++) {
				if (s->in_town[m]) {
					in |= 1u << m;
					in_cards |= material_names[m];
				} else if (s->out_town[m]) {
					outs |= 1u << m;
					out_cards |= material_names[m];
				}
			}
			/* out of town needs two actions left (or Torre): asked
			 * only when a card could go there */
			if (outs && (statue || (cards & out_cards)) &&
			    !gtr_has(s, seat, GC_TOWER) && top_left(s) < 2)
				outs = 0, out_cards = 0;
			/* one site per card, of its material: in town, else out
			 * of town; Estatua (any site) apart */
			if (statue)
				cards &= ~BIT(GC_STATUE);
			cards &= in_cards | out_cards;
			while (cards) {
				c = next_bit(&cards);
				if (statue && c > GC_STATUE) {
					statue = 0;
					for (m = 0; m < GM_COUNT; m++) {
						if (in & (1u << m))
							ADD(GK_FOUND, GC_STATUE, m, 0);
						if (outs & (1u << m))
							ADD(GK_FOUND, GC_STATUE, m, 1);
					}
				}
				ADD(GK_FOUND, c, hand_slot[c], (int)((out_cards >> c) & 1));
			}
			if (statue)
				for (m = 0; m < GM_COUNT; m++) {
					if (in & (1u << m))
						ADD(GK_FOUND, GC_STATUE, m, 0);
					if (outs & (1u << m))
						ADD(GK_FOUND, GC_STATUE, m, 1);
				}
		}
		src = source_mask(s, seat, kind);
		for (k = 0; k < p->nstruct; k++)
			if (!p->st[k].done && (material_mask(s, seat, &p->st[k]) & src))
				ADD(GK_ADD, p->st[k].card, 0, 0);
		if (kind == GR_CRAFTSMAN && s->ndeck && gtr_has(s, seat, GC_FOUNTAIN))
			ADD(GK_FOUNTAIN, 0, 0, 0);
		if (kind == GR_ARCHITECT && gtr_has(s, seat, GC_STAIRWAY))
			for (k = 1; k < s->nplayers; k++) {
				v = (seat + k) % s->nplayers;
				for (c = 0; c < s->p[v].nstruct; c++) {
					const struct gtr_struct *t = &s->p[v].st[c];

					if (t->done && !(t->flags & GSF_PUBLIC) &&
					    t->nmat < GTR_MAX_MAT &&
					    (material_mask(s, seat, t) & src))
						ADD(GK_STAIRWAY, t->card, v, 0);
				}
			}
		break;
	}
}

#undef ADD

/* Whether an action has options besides `done` (0 or 1): whether
 * action_moves would list a move, each part as it asks it. */
int gtr_action_options(const struct gtr_state *s, int seat, int kind)
{
	const struct gtr_player *p = &s->p[seat];
	struct move_list ml;

	switch (kind) {
	case GR_LABORER:
		return (!(s->part & GPART_POOL) && any40(s->pool)) ||
		       (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_DOCK) && any40(p->hand));
	case GR_PATRON:
		return client_room(s, seat) &&
		       ((!(s->part & (GPART_POOL | GPART_DECK)) && any40(s->pool)) ||
			(!(s->part & GPART_DECK) && s->ndeck && gtr_has(s, seat, GC_BAR)) ||
			(!(s->part & GPART_HAND) && gtr_has(s, seat, GC_AQUEDUCT) &&
			 any40(p->hand)));
	case GR_MERCHANT:
		return vault_room(s, seat) &&
		       ((!(s->part & (GPART_POOL | GPART_DECK)) &&
			 (any40(p->stock) || (s->ndeck && gtr_has(s, seat, GC_ATRIUM)))) ||
			(!(s->part & GPART_HAND) && gtr_has(s, seat, GC_BASILICA) &&
			 any40(p->hand)));
	case GR_ARCHITECT:
	case GR_CRAFTSMAN:
		ml.n = 0;
		action_moves(s, seat, kind, &ml, 1);
		return ml.n;
	default:
		return 0;
	}
}

static const struct gtr_struct *target(const struct gtr_state *s)
{
	int k;

	if (s->tgt_seat >= s->nplayers || s->tgt_card >= GC_COUNT)
		return NULL;
	k = gtr_find_struct(s, s->tgt_seat, s->tgt_card);
	return k < 0 ? NULL : &s->p[s->tgt_seat].st[k];
}

/* GS_ACTION: the top frame's role. */
void gtr_action_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	action_moves(s, seat, top_kind(s), out, 0);
	add(out, GK_DONE, 0, 0, 0);
}

/* GS_MATERIAL: the sources of a material for the target. */
void gtr_material_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_struct *t = target(s);

	if (t)
		material_moves(s, seat, t, top_kind(s), out);
	add(out, GK_BACK, 0, 0, 0);
}

/* GS_FOUNTAIN: the card drawn founds, is added, or is kept. */
void gtr_fountain_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int k;

	if (s->fount < GC_COUNT) {
		int fm = gtr_cards[s->fount].material;

		found_moves(s, seat, s->fount, top_left(s), out);
		for (k = 0; k < p->nstruct; k++)
			if (!p->st[k].done && material_ok(s, seat, &p->st[k], fm))
				add(out, GK_ADD, p->st[k].card, 0, 0);
	}
	add(out, GK_KEEP, 0, 0, 0);
}

/* ---- legality ---- */

/* m is one of action_moves(s, seat, kind): each case mirrors the move's
 * place there. */
static int action_legal(const struct gtr_state *s, int seat, int kind, struct move m)
{
	const struct gtr_player *p = &s->p[seat];
	int build = kind == GR_ARCHITECT || kind == GR_CRAFTSMAN;
	int k, v;
	unsigned bits;

	switch (m.kind) {
	case GK_TAKE:
		return kind == GR_LABORER && !(s->part & GPART_POOL) && m.a < GM_COUNT &&
		       !m.b && !m.c && count_of(s->pool, m.a);
	case GK_DOCK:
		return kind == GR_LABORER && !(s->part & GPART_HAND) && m.a < GC_COUNT &&
		       !m.b && !m.c && p->hand[m.a] && gtr_has(s, seat, GC_DOCK);
	case GK_HIRE:
		return kind == GR_PATRON && !(s->part & (GPART_POOL | GPART_DECK)) &&
		       m.a < GM_COUNT && !m.b && !m.c && count_of(s->pool, m.a) &&
		       client_room(s, seat);
	case GK_HIRE_DECK:
		return kind == GR_PATRON && !(s->part & GPART_DECK) && !m.a && !m.b && !m.c &&
		       s->ndeck && gtr_has(s, seat, GC_BAR) && client_room(s, seat);
	case GK_HIRE_HAND:
		return kind == GR_PATRON && !(s->part & GPART_HAND) && m.a < GC_COUNT &&
		       !m.b && !m.c && p->hand[m.a] && gtr_has(s, seat, GC_AQUEDUCT) &&
		       client_room(s, seat);
	case GK_SELL:
		return kind == GR_MERCHANT && !(s->part & (GPART_POOL | GPART_DECK)) &&
		       m.a < GM_COUNT && !m.b && !m.c && count_of(p->stock, m.a) &&
		       vault_room(s, seat);
	case GK_SELL_DECK:
		return kind == GR_MERCHANT && !(s->part & (GPART_POOL | GPART_DECK)) &&
		       !m.a && !m.b && !m.c && s->ndeck && gtr_has(s, seat, GC_ATRIUM) &&
		       vault_room(s, seat);
	case GK_SELL_HAND:
		return kind == GR_MERCHANT && !(s->part & GPART_HAND) && m.a < GC_COUNT &&
		       !m.b && !m.c && p->hand[m.a] && gtr_has(s, seat, GC_BASILICA) &&
		       vault_room(s, seat);
	case GK_FOUND:
		if (!build || m.a >= GC_COUNT || !p->hand[m.a] || m.b >= GM_COUNT || m.c > 1)
			return 0;
		bits = site_options(s, seat, m.a, top_left(s));
		return (bits >> (m.b + 8 * m.c)) & 1;
	case GK_ADD:
		if (!build || m.b || m.c)
			return 0;
		for (k = 0; k < p->nstruct; k++)
			if (p->st[k].card == m.a && !p->st[k].done &&
			    material_moves(s, seat, &p->st[k], kind, NULL))
				return 1;
		return 0;
	case GK_FOUNTAIN:
		return kind == GR_CRAFTSMAN && !m.a && !m.b && !m.c && s->ndeck &&
		       gtr_has(s, seat, GC_FOUNTAIN);
	case GK_STAIRWAY:
		v = m.b;
		if (kind != GR_ARCHITECT || m.c || v >= s->nplayers || v == seat ||
		    !gtr_has(s, seat, GC_STAIRWAY))
			return 0;
		for (k = 0; k < s->p[v].nstruct; k++) {
			const struct gtr_struct *t = &s->p[v].st[k];

			if (t->card == m.a && t->done && !(t->flags & GSF_PUBLIC) &&
			    t->nmat < GTR_MAX_MAT &&
			    material_moves(s, seat, t, GR_ARCHITECT, NULL))
				return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* ---- applying ---- */

static void after_part(struct gtr_state *s, int seat, struct game_log *log)
{
	if (gtr_action_options(s, seat, top_kind(s)))
		return;	/* GS_ACTION goes on: more of the same action, or `done` */
	gtr_action_done(s, 1, log);
}

static void do_with(struct gtr_state *s, int seat, struct move m, struct game_log *log);

/* A client from the pool, the deck (Bar) or the hand (Aqueduct); the Bath
 * gives its role's action at once.  -1: the move was not listed. */
static int hire(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int c;

	if (m.kind == GK_HIRE) {
		c = first_of(s->pool, m.a);
		if (c < 0)
			return -1;	/* unreachable: listed */
		s->pool[c]--;
		s->part |= GPART_POOL;
		LOGF(log, LOG_PUBLIC, L(loc, "%s hires %s from the pool.",
					"%s contrata %s de la Reserva."),
		     NAME(log, seat), A_ROLE(log, m.a));
	} else if (m.kind == GK_HIRE_DECK) {
		c = draw(s);
		s->part |= GPART_DECK;
		LOGF(log, LOG_PUBLIC, L(loc, "%s hires %s from the deck (Bar).",
					"%s contrata %s del Mazo (Taberna)."),
		     NAME(log, seat), A_ROLE(log, gtr_cards[c].material));
	} else {
		c = m.a;
		hand_out(p, c);
		s->part |= GPART_HAND;
		LOGF(log, LOG_PUBLIC, L(loc, "%s hires %s from hand (Aqueduct).",
					"%s contrata %s de la Mano (Acueducto)."),
		     NAME(log, seat), A_ROLE(log, gtr_cards[c].material));
	}
	p->clients[c]++;
	p->newc[gtr_cards[c].material]++;
	if (gtr_has(s, seat, GC_BATH))
		pend(s, gtr_cards[c].material, 1);
	return 0;
}

static void do_action(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int c, k;

	switch (m.kind) {
	case GK_DONE:
		if (s->part)
			gtr_action_done(s, 1, log);
		else
			gtr_action_done(s, FRAME_ALL, log);
		return;
	case GK_TAKE:
		c = first_of(s->pool, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		s->pool[c]--;
		p->stock[c]++;
		s->part |= GPART_POOL;
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes %s from the pool.", "%s coge %s de la Reserva."),
		     NAME(log, seat), MNAME(log, m.a));
		after_part(s, seat, log);
		return;
	case GK_DOCK:
		hand_out(p, m.a);
		p->stock[m.a]++;
		s->part |= GPART_HAND;
		/* the stockpile shows the material only: the card stays secret */
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts %s from hand into the stockpile (Dock).",
					"%s pone %s de la Mano en su Almacén (Muelle)."),
		     NAME(log, seat), MNAME(log, gtr_cards[m.a].material));
		after_part(s, seat, log);
		return;
	case GK_HIRE:
	case GK_HIRE_DECK:
	case GK_HIRE_HAND:
		if (!hire(s, seat, m, log))
			after_part(s, seat, log);
		return;
	case GK_SELL:
		c = first_of(p->stock, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		p->stock[c]--;
		p->vault[c]++;
		s->part |= GPART_POOL;
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts %s into the vault.", "%s guarda %s en su Tesoro."),
		     NAME(log, seat), MNAME(log, m.a));
		after_part(s, seat, log);
		return;
	case GK_SELL_DECK:
		c = draw(s);
		p->vault[c]++;
		s->part |= GPART_DECK;
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts the top card of the deck into the vault unseen (Atrium).",
					"%s guarda la carta superior del Mazo en su Tesoro sin verla (Atrio)."),
		     NAME(log, seat));
		after_part(s, seat, log);
		return;
	case GK_SELL_HAND:
		hand_out(p, m.a);
		p->vault[m.a]++;
		s->part |= GPART_HAND;
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts a card from hand into the vault (Basilica).",
					"%s guarda una carta de la Mano en su Tesoro (Basílica)."),
		     NAME(log, seat));
		LOGF(log, seat, L(loc, "You put %s into your vault.", "Guardas %s en tu Tesoro."),
		     CNAME(log, m.a));
		after_part(s, seat, log);
		return;
	case GK_FOUND:
		if (s->step == GS_FOUNTAIN)
			s->fount = GTR_NONE;
		else
			hand_out(p, m.a);
		found(s, seat, m.a, m.b, m.c, log);
		if (top_kind(s) == GR_CRAFTSMAN)
			p->crafted = 1;
		gtr_action_done(s, m.c && !gtr_has(s, seat, GC_TOWER) ? 2 : 1, log);
		return;
	case GK_ADD:
		k = gtr_find_struct(s, seat, m.a);
		if (s->step == GS_FOUNTAIN) {
			c = s->fount;
			s->fount = GTR_NONE;
			p->crafted = 1;
			add_material(s, seat, seat, &p->st[k], c, 0, log);
			gtr_action_done(s, 1, log);
			return;
		}
		s->tgt_card = (uint8_t)m.a;
		s->tgt_seat = (uint8_t)seat;
		s->tgt_stair = 0;
		s->step = GS_MATERIAL;
		break;
	case GK_STAIRWAY:
		s->tgt_card = (uint8_t)m.a;
		s->tgt_seat = (uint8_t)m.b;
		s->tgt_stair = 1;
		s->step = GS_MATERIAL;
		break;
	case GK_FOUNTAIN:
		c = draw(s);
		s->fount = (uint8_t)c;
		p->crafted = 1;
		LOGF(log, LOG_PUBLIC, L(loc, "%s draws a card with the Fountain.",
					"%s roba una carta con la Fuente."), NAME(log, seat));
		LOGF(log, seat, L(loc, "The Fountain gives you %s.", "La Fuente te da %s."),
		     CNAME(log, c));
		if (s->ending) {
			/* the deck ran out: the game ends at once; the card
			 * stays in hand (finish) */
			over_now(s, log);
			return;
		}
		s->step = GS_FOUNTAIN;
		return;
	case GK_KEEP:
		hand_in(p, s->fount);
		LOGF(log, LOG_PUBLIC, L(loc, "%s keeps the Fountain's card in hand.",
					"%s se queda en la Mano la carta de la Fuente."), NAME(log, seat));
		s->fount = GTR_NONE;
		gtr_action_done(s, 1, log);
		return;
	}
	if (s->step == GS_MATERIAL) {
		/* one source only: no need to ask */
		struct move_list ml;
		const struct gtr_struct *t = target(s);

		ml.n = 0;
		if (t)
			material_moves(s, seat, t, top_kind(s), &ml);
		if (ml.n == 1)
			do_with(s, seat, ml.v[0], log);
	}
}

static void do_with(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	int owner = s->tgt_seat, k = gtr_find_struct(s, owner, s->tgt_card), c;

	if (top_kind(s) == GR_ARCHITECT) {
		uint8_t *src = m.b ? s->pool : p->stock;

		c = first_of(src, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		src[c]--;
	} else {
		c = m.a;
		hand_out(p, c);
		p->crafted = 1;
	}
	add_material(s, seat, owner, &s->p[owner].st[k], c, s->tgt_stair, log);
	gtr_action_done(s, 1, log);
}

void gtr_material_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (m.kind == GK_BACK) {
		s->tgt_card = s->tgt_seat = GTR_NONE;
		s->tgt_stair = 0;
		s->step = GS_ACTION;
		return;
	}
	do_with(s, seat, m, log);
}

/* GS_ACTION: m checked as gtr_action_moves lists it, then applied. */
int gtr_action_play(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (m.kind == GK_DONE) {
		if (m.a != 0 || m.b != 0 || m.c != 0)
			return -1;
	} else if (!action_legal(s, seat, top_kind(s), m)) {
		return -1;
	}
	do_action(s, seat, m, log);
	return 0;
}

/* GS_FOUNTAIN: the card drawn founds, is added, or is kept. */
void gtr_fountain_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	do_action(s, seat, m, log);
}
