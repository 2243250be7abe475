/*
 * legion.c: the Legionary ("Legionario: Roma exige..."): the demand (all
 * the frame's Legionary actions are one: GS_LEGION), the matches the
 * Legionary may take from the pool (GS_LEGION_POOL), the victims' gifts
 * (GS_GIVE: all victims at once, protected ones by choice, Puente's
 * stockpile cards), and Coliseo's clients (GS_COLISEUM); ruling 9 in gtr.c
 * is the whole story.
 *
 * Owns those four steps and the state of a demand (leg_*, coli, gift,
 * vol, the seats' give and give_stock).  Must not: show a victim's hand
 * card in public (the log names the material; the giver alone reads the
 * card), or go on with the turn itself (it hands the spent frame to
 * gtr_action_done in flow.c).
 */
#include "games/gtr/gtr_int.h"

static int is_victim(const struct gtr_state *s, int seat, int v)
{
	int n = s->nplayers;

	if (v == seat)
		return 0;
	if (n <= 3 || gtr_has(s, seat, GC_BRIDGE))
		return 1;
	return v == (seat + 1) % n || v == (seat + n - 1) % n;
}

static int protected_from(const struct gtr_state *s, int seat, int v)
{
	if (gtr_has(s, v, GC_WALL))
		return 1;
	return gtr_has(s, v, GC_PALISADE) && !gtr_has(s, seat, GC_BRIDGE);
}

static int coliseum_options(const struct gtr_state *s, int seat)
{
	int v, r, n = 0;

	if (!vault_room(s, seat))
		return 0;
	for (v = 0; v < s->nplayers; v++)
		for (r = 0; r < GR_COUNT; r++)
			if (s->coli[v][r] && count_of(s->p[v].clients, r))
				n++;
	return n;
}

/* Forgets every part of a demand (its end, a new turn, the game's end). */
void gtr_legion_clear(struct gtr_state *s)
{
	int i;

	memset(s->coli, 0, sizeof(s->coli));
	memset(s->leg_dem, 0, sizeof(s->leg_dem));
	memset(s->leg_take, 0, sizeof(s->leg_take));
	s->leg_n = s->leg_k = 0;
	s->gift = s->vol = 0;
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		memset(s->p[i].give, 0, sizeof(s->p[i].give));
		memset(s->p[i].give_stock, 0, sizeof(s->p[i].give_stock));
	}
}

static void legion_end(struct gtr_state *s, struct game_log *log)
{
	gtr_legion_clear(s);
	gtr_action_done(s, FRAME_ALL, log);
}

/* Coliseo, once the victims have given: per demanded card, one client of
 * that role from each victim in reach and not protected ("La Empalizada y
 * la Muralla protegen a los oponentes del efecto del Coliseo"). */
static void legion_coliseum(struct gtr_state *s, struct game_log *log)
{
	int seat = gtr_current(s), n = s->nplayers, k, i;

	if (gtr_has(s, seat, GC_COLISEUM)) {
		for (k = 1; k < n; k++) {
			int v = seat + k < n ? seat + k : seat + k - n;

			if (!is_victim(s, seat, v) || protected_from(s, seat, v))
				continue;
			for (i = 0; i < s->leg_k; i++)
				s->coli[v][s->leg_dem[i]]++;
		}
		if (coliseum_options(s, seat)) {
			s->step = GS_COLISEUM;
			return;
		}
	}
	legion_end(s, log);
}

/* Only with a log: the giver's own line names the card. */
static __attribute__((noinline, cold)) void log_gift(int v, int c, struct game_log *log)
{
	struct buf b = BUF_INIT;

	gtr_card_tag(c, log->loc, &b);
	game_logf(log, v, L(log->loc, "You give %s.", "Das %s."), buf_str(&b));
	buf_release(&b);
}

/* Victim v gives the Legionary (seat) its hand card c: into the
 * stockpile, where only the material shows (ruling 21 in gtr.c). */
static void give_card(struct gtr_state *s, int seat, int v, int c, struct game_log *log)
{
	int m = gtr_cards[c].material;

	hand_out(&s->p[v], c);
	s->p[seat].stock[c]++;
	if (!log)
		return;
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s gives %s %s.", "%s da %s a %s."), NAME(log, v),
		  L(log->loc, NAME(log, seat), MNAME(log, m)),
		  L(log->loc, MNAME(log, m), NAME(log, seat)));
	log_gift(v, c, log);
}

/* Victim v gives a stockpile card of material m (Puente); 0 if it has
 * none.  Stockpile cards show their material only and their names never
 * matter to the rules, so which copy goes is not asked. */
static int give_stock_card(struct gtr_state *s, int seat, int v, int m, struct game_log *log)
{
	int c = first_of(s->p[v].stock, m);

	if (c < 0)
		return 0;
	s->p[v].stock[c]--;
	s->p[seat].stock[c]++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s also gives %s from the stockpile.",
				"%s da también %s de su Almacén."), NAME(log, v), MNAME(log, m));
	return 1;
}

/*
 * "Si los jugadores que tienes sentados a izquierda y derecha tienen cartas
 * de ese material en su Mano, deben darte una cada uno": each victim in
 * reach gives, per demanded card, a matching card from hand, as many as it
 * has ("tantas cartas como puedan").  A victim that must give all its cards
 * of a material gives them at once; one holding more than demanded chooses
 * which (GS_GIVE, all such victims at once: their choices do not touch
 * each other).  Puente: also one matching stockpile card per demanded card,
 * at once.  A protected victim ("Aun así, puedes decidir entregarle cartas
 * si quieres") is asked whether it gives anyway, unless it is public that
 * it has nothing to give.
 */
static void legion_victims(struct gtr_state *s, struct game_log *log)
{
	int seat = gtr_current(s), n = s->nplayers, k, m, i, bridge = gtr_has(s, seat, GC_BRIDGE);
	int dem[GM_COUNT] = { 0 };

	for (i = 0; i < s->leg_k; i++)
		dem[s->leg_dem[i]]++;
	s->gift = s->vol = 0;
	for (k = 1; k < n; k++) {
		int v = seat + k < n ? seat + k : seat + k - n;	/* (seat + k) % n */
		struct gtr_player *vp = &s->p[v];

		if (!is_victim(s, seat, v))
			continue;
		if (protected_from(s, seat, v)) {
			int can = hand_size(vp) > 0;

			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s is protected by %s.",
						"%s está protegido por %s."),
			     NAME(log, v), CNAME(log, gtr_has(s, v, GC_WALL) ? GC_WALL : GC_PALISADE));
			for (m = 0; m < GM_COUNT; m++) {
				vp->give[m] = (uint8_t)dem[m];
				/* protected against a Puente: by a Muralla */
				vp->give_stock[m] = (uint8_t)(bridge ? dem[m] : 0);
				if (bridge && dem[m] && count_of(vp->stock, m))
					can = 1;
			}
			if (can) {
				s->gift |= (uint8_t)(1u << v);
				s->vol |= (uint8_t)(1u << v);
			} else {
				memset(vp->give, 0, sizeof(vp->give));
				memset(vp->give_stock, 0, sizeof(vp->give_stock));
			}
			continue;
		}
		for (m = 0; m < GM_COUNT; m++) {
			int have = vp->hcount[m], j;

			if (!dem[m])
				continue;
			if (have > dem[m]) {
				vp->give[m] = (uint8_t)dem[m];
				s->gift |= (uint8_t)(1u << v);
			} else {
				for (j = 0; j < have; j++)
					give_card(s, seat, v, first_of(vp->hand, m), log);
				for (; j < dem[m]; j++)
					LOGF(log, LOG_PUBLIC, L(LOC(log), "%s: \"Glory to Rome!\" (no %s)",
								"%s: «¡Gloria a Roma!» (sin %s)"),
					     NAME(log, v), MNAME(log, m));
			}
			for (j = 0; bridge && j < dem[m]; j++)
				if (!give_stock_card(s, seat, v, m, log))
					break;
		}
	}
	if (s->gift) {
		s->step = GS_GIVE;
		return;
	}
	legion_coliseum(s, log);
}

/* A victim's answer: v has given (or kept) what it gives. */
static void victim_after(struct gtr_state *s, int v, struct game_log *log)
{
	struct gtr_player *vp = &s->p[v];
	int m, left = 0;

	for (m = 0; m < GM_COUNT; m++)
		left += vp->give[m] + vp->give_stock[m];
	if (left)
		return;
	s->gift &= (uint8_t)~(1u << v);
	s->vol &= (uint8_t)~(1u << v);
	if (!s->gift)
		legion_coliseum(s, log);
}

/* The demand is complete: "Si hay cartas de ese material (color) en la
 * Reserva, puedes coger inmediatamente una" -- per demanded card, the
 * Legionary may take a match from the pool (GS_LEGION_POOL), then the
 * victims give. */
static void legion_resolve(struct gtr_state *s, struct game_log *log)
{
	int m, any = 0;

	if (s->leg_k == 0) {
		legion_end(s, log);
		return;
	}
	for (m = 0; m < GM_COUNT; m++) {
		int d = demanded(s, m), p = count_of(s->pool, m);

		s->leg_take[m] = (uint8_t)(d < p ? d : p);
		any |= s->leg_take[m];
	}
	if (any) {
		s->step = GS_LEGION_POOL;
		return;
	}
	legion_victims(s, log);
}

/* ---- GS_LEGION: the demand ---- */

/* Only with a log (formatting kept off the playout path). */
static __attribute__((noinline, cold)) void log_demand(int seat, int m, struct game_log *log)
{
	enum locale loc = LOC(log);

	game_logf(log, LOG_PUBLIC, L(loc, "%s: \"Rome demands %s!\"", "%s: «¡Roma exige %s!»"),
		  NAME(log, seat), MNAME(log, m));
}

void gtr_legion_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int m;

	if (s->leg_k < s->leg_n)
		for (m = 0; m < GM_COUNT; m++)
			if (p->hcount[m] > demanded(s, m))
				add(out, GK_DEMAND, m, 0, 0);
	add(out, GK_DONE, 0, 0, 0);
}

/* GS_LEGION: m checked as gtr_legion_moves lists it, then applied. */
int gtr_legion_play(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (m.kind == GK_DONE) {
		if (m.a != 0 || m.b != 0 || m.c != 0)
			return -1;
		legion_resolve(s, log);
		return 0;
	}
	if (!(m.kind == GK_DEMAND && m.b == 0 && m.c == 0 && m.a < GM_COUNT &&
	      s->leg_k < s->leg_n && s->p[seat].hcount[m.a] > demanded(s, m.a)))
		return -1;
	s->leg_dem[s->leg_k++] = (uint8_t)m.a;
	if (log)
		log_demand(seat, m.a, log);
	if (s->leg_k >= s->leg_n || legion_revealable(s, seat) == 0)
		legion_resolve(s, log);
	return 0;
}

/* ---- GS_LEGION_POOL: the pool's matches ---- */

void gtr_legion_pool_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	int m;

	for (m = 0; m < GM_COUNT; m++)
		if (s->leg_take[m])
			add(out, GK_TAKE, m, 0, 0);
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_legion_pool_apply(struct gtr_state *s, int seat, struct move m,
			   struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int c, k;

	if (m.kind == GK_TAKE) {
		c = first_of(s->pool, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		s->pool[c]--;
		p->stock[c]++;
		s->leg_take[m.a]--;
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes %s from the pool.",
					"%s coge %s de la Reserva."),
		     NAME(log, seat), MNAME(log, m.a));
		for (k = 0; k < GM_COUNT; k++)
			if (s->leg_take[k])
				return;
	} else {
		memset(s->leg_take, 0, sizeof(s->leg_take));
		LOGF(log, LOG_PUBLIC, L(loc, "%s leaves the pool's matching cards there.",
					"%s deja en la Reserva las cartas del material."),
		     NAME(log, seat));
	}
	legion_victims(s, log);
}

/* ---- GS_GIVE: the victims ---- */

void gtr_give_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int m;

	for (m = 0; m < GM_COUNT; m++) {
		uint64_t names = p->give[m] ? held_names(p->hand, m) : 0;

		while (names)
			add(out, GK_GIVE, next_bit(&names), 0, 0);
	}
	if ((s->vol >> seat) & 1) {
		for (m = 0; m < GM_COUNT; m++)
			if (p->give_stock[m] && count_of(p->stock, m))
				add(out, GK_GIVE_STOCK, m, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
	}
}

/* seat is a victim; s->decider the Legionary. */
void gtr_give_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	if (m.kind == GK_GIVE) {
		p->give[gtr_cards[m.a].material]--;
		give_card(s, s->decider, seat, m.a, log);
	} else if (m.kind == GK_GIVE_STOCK) {
		p->give_stock[m.a]--;
		give_stock_card(s, s->decider, seat, m.a, log);
	} else {
		memset(p->give, 0, sizeof(p->give));
		memset(p->give_stock, 0, sizeof(p->give_stock));
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s keeps the cards.", "%s se queda sus cartas."),
		     NAME(log, seat));
	}
	victim_after(s, seat, log);
}

/* ---- GS_COLISEUM ---- */

void gtr_coliseum_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	int k, v, r;

	if (vault_room(s, seat))
		for (k = 1; k < s->nplayers; k++) {
			v = (seat + k) % s->nplayers;
			for (r = 0; r < GR_COUNT; r++)
				if (s->coli[v][r] && count_of(s->p[v].clients, r))
					add(out, GK_COLISEUM, r, v, 0);
		}
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_coliseum_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int c;

	if (m.kind == GK_COLISEUM) {
		struct gtr_player *vp = &s->p[m.b];
		int r = m.a, left;

		c = first_of(vp->clients, r);
		if (c < 0)
			return;	/* unreachable: listed */
		vp->clients[c]--;
		left = count_of(vp->clients, r);
		if (vp->newc[r] > left)
			vp->newc[r] = (uint8_t)left;
		p->vault[c]++;
		s->coli[m.b][r]--;
		LOGF(log, LOG_PUBLIC, L(loc, "%s throws %s's %s client to the lions (Coliseum).",
					"%s lanza el Cliente %s de %s a los leones (Coliseo)."),
		     NAME(log, seat), L(loc, NAME(log, m.b), RNAME(log, r)),
		     L(loc, RNAME(log, r), NAME(log, m.b)));
		if (coliseum_options(s, seat))
			return;
	}
	legion_end(s, log);
}
