/*
 * flow.c: the course of a Glory to Rome turn around the units and the
 * actions ("Desarrollo del turno"): its start, Think (Vomitorium and
 * Letrinas asked first; Escuela's and Academia's Thinks too), the action
 * phase's frame stack and how many actions a seat has, and the end of the
 * turn (Senado, Alcantarillado, the camps to the pool, Academia, the
 * leader token).
 *
 * Owns the phase, the cursor and the frames: which seat decides next and
 * at which step.  Must not: perform a role's action (roles.c, legion.c,
 * buildings.c do, and hand back through gtr_action_done), or end the game
 * itself (over_now and score.c do).  Every continuation starts with
 * over_now(): an end condition stops the game at once.
 */
#include "games/gtr/gtr_int.h"

static void eot_start(struct gtr_state *s, struct game_log *log);
static void eot_next(struct gtr_state *s, struct game_log *log);
static void run_actions(struct gtr_state *s, struct game_log *log);

/* ---- the start of a turn ---- */

void gtr_begin_turn(struct gtr_state *s, struct game_log *log)
{
	int i;

	if (over_now(s, log))
		return;
	for (i = 0; i < s->nplayers; i++) {
		struct gtr_player *p = &s->p[i];

		p->units = p->acted = p->crafted = 0;
		memset(p->newc, 0, sizeof(p->newc));
	}
	s->led = GTR_NONE;
	s->phase = GP_LEAD;
	s->step = GS_LEAD;
	s->cursor = 0;
	s->decider = s->leader;
	s->nframes = 0;
	s->started = 0;
	s->npend = 0;
	s->part = 0;
	s->pet_role = GTR_NONE;
	s->pet_have = s->pet_need = 0;
	gtr_legion_clear(s);
	memset(s->frames, 0, sizeof(s->frames));
	memset(s->pend, 0, sizeof(s->pend));
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->tgt_stair = 0;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "Turn %d: %s is the leader.", "Turno %d: %s es el Líder."),
	     s->turn, NAME(log, s->leader));
}

/* ---- Think ---- */

static void after_think(struct gtr_state *s, struct game_log *log);

static void think_exec(struct gtr_state *s, int seat, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	if (s->think == GTR_THINK_JACK && s->jacks > 0) {
		s->jacks--;
		hand_in(p, GTR_JACK);
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s thinks and takes a Senator.",
					"%s piensa y coge un Senador."), NAME(log, seat));
	} else {
		int h = hand_size(p), lim = gtr_hand_limit(s, seat);
		int want = h < lim ? lim - h : 1, got = 0, c;
		struct buf b = BUF_INIT;

		while (got < want && (c = draw(s)) != GTR_NONE) {
			hand_in(p, c);
			got++;
			if (log)
				buf_printf(&b, "%s%s", b.len ? ", " : "", CNAME(log, c));
		}
		if (log) {
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s thinks and draws %d card%s.",
						     "%s piensa y roba %d carta%s."),
				  NAME(log, seat), got, got == 1 ? "" : "s");
			if (got)
				game_logf(log, seat, L(log->loc, "You draw: %s.", "Robas: %s."),
					  buf_str(&b));
			buf_release(&b);	/* only a log fills it */
		}
	}
	after_think(s, log);
}

static void think_latrine(struct gtr_state *s, int seat, struct game_log *log)
{
	if (gtr_has(s, seat, GC_LATRINE) && hand_size(&s->p[seat]) > 0) {
		s->step = GS_LATRINE;
		s->decider = (uint8_t)seat;
		return;
	}
	think_exec(s, seat, log);
}

void gtr_think_start(struct gtr_state *s, int seat, int kind, struct game_log *log)
{
	s->think = (uint8_t)kind;
	if (gtr_has(s, seat, GC_VOMITORIUM) && hand_size(&s->p[seat]) > 0) {
		s->step = GS_VOMIT;
		s->decider = (uint8_t)seat;
		return;
	}
	think_latrine(s, seat, log);
}

static void after_think(struct gtr_state *s, struct game_log *log)
{
	switch (s->phase) {
	case GP_LEAD:
		/* "Si en tu turno de Líder decidiste Pensar, el resto de los
		 * jugadores no realizan ninguna Acción" */
		eot_start(s, log);
		return;
	case GP_FOLLOW:
		s->cursor++;
		gtr_follow_next(s, log);
		return;
	case GP_ACTIONS:
		gtr_action_done(s, 1, log);
		return;
	default:	/* GP_ACADEMY */
		s->cursor++;
		eot_next(s, log);
		return;
	}
}

void gtr_vomit_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	add(out, GK_VOMIT, 0, 0, 0);
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_vomit_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	int c;

	if (m.kind == GK_VOMIT) {
		for (c = 0; c < GC_COUNT; c++) {
			s->pool[c] = (uint8_t)(s->pool[c] + p->hand[c]);
			p->hand[c] = 0;
		}
		s->jacks = (uint8_t)(s->jacks + p->hand[GTR_JACK]);
		p->hand[GTR_JACK] = 0;
		memset(p->hcount, 0, sizeof(p->hcount));
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s discards the whole hand (Vomitorium).",
					"%s descarta toda su Mano (Vomitorium)."), NAME(log, seat));
		think_exec(s, seat, log);
		return;
	}
	think_latrine(s, seat, log);
}

void gtr_latrine_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int c;

	for (c = 0; c < GTR_NAMES; c++)
		if (p->hand[c])
			add(out, GK_LATRINE, c, 0, 0);
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_latrine_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (m.kind == GK_LATRINE) {
		hand_out(&s->p[seat], m.a);
		if (m.a == GTR_JACK)
			s->jacks++;
		else
			s->pool[m.a]++;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s discards %s (Latrine).",
					"%s descarta %s (Letrinas)."),
		     NAME(log, seat), CNAME(log, m.a));
	}
	think_exec(s, seat, log);
}

/* GS_THINK: Escuela's Think actions, Academia's Think. */
void gtr_think_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	think_moves(s, out);
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_think_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	if (m.kind == GK_THINK) {
		gtr_think_start(s, seat, m.a, log);
		return;
	}
	if (s->phase == GP_ACTIONS) {
		gtr_action_done(s, FRAME_ALL, log);
	} else {
		s->cursor++;
		eot_next(s, log);
	}
}

/* ---- the action phase ---- */

/* gtr_turn_actions with Circo Máximo, Ludus Magna or Despensa: apart, so
 * that the usual case below stays a leaf without a loop. */
static __attribute__((noinline)) int turn_actions_special(const struct gtr_state *s, int seat,
							  int n, uint64_t f)
{
	const struct gtr_player *p = &s->p[seat];
	int R = s->led, r, mult, lm, store;

	mult = p->acted && ((f >> GC_CIRCUS_MAXIMUS) & 1) ? 2 : 1;
	lm = (f >> GC_LUDUS_MAGNA) & 1;
	store = R == GR_LABORER && ((f >> GC_STOREROOM) & 1);
	if (!store && !lm) {	/* the usual case: the led role's clients only */
		int c = count_of(p->clients, R) - p->newc[R];

		return c > 0 ? n + c * mult : n;
	}
	for (r = 0; r < GR_COUNT; r++) {
		int c;

		if (!(r == R || store || (lm && r == GR_MERCHANT)))
			continue;
		c = count_of(p->clients, r) - p->newc[r];
		if (c > 0)
			n += c * mult;
	}
	return n;
}

int gtr_turn_actions(const struct gtr_state *s, int seat)
{
	const struct gtr_player *p = &s->p[seat];
	int R = s->led, n, c;
	uint64_t f;

	if (R >= GR_COUNT)
		return 0;
	f = fn_mask(s, seat);
	n = p->acted ? p->units : 0;
	if (f & (BIT(GC_CIRCUS_MAXIMUS) | BIT(GC_LUDUS_MAGNA) | BIT(GC_STOREROOM)))
		return turn_actions_special(s, seat, n, f);
	/* the usual case: the led role's clients, once each */
	c = count_of(p->clients, R) - p->newc[R];
	return c > 0 ? n + c : n;
}

/* Finds the next decision of the action phase: the current seat's frames,
 * then the next seat's, then the end of the turn. */
static void run_actions(struct gtr_state *s, struct game_log *log)
{
	int n = s->nplayers;

	/* the loop changes nothing over_now looks at (frames and cursor) */
	if (over_now(s, log))
		return;
	for (;;) {
		int seat, left;
		struct gtr_frame *f;

		if (s->nframes == 0) {
			if (s->started) {
				s->started = 0;
				s->cursor++;
			}
			if (s->cursor >= n) {
				eot_start(s, log);
				return;
			}
			/* the seat's own actions of the led role */
			memset(&s->frames[0], 0, sizeof(s->frames[0]));
			s->frames[0].kind = s->led;
			s->frames[0].dyn = 1;
			s->nframes = 1;
			s->started = 1;
		}
		seat = gtr_current(s);
		s->decider = (uint8_t)seat;
		f = &s->frames[s->nframes - 1];
		left = frame_left(s, seat, f);
		s->part = 0;
		if (left > 0) {
			switch (f->kind) {
			case GR_LEGIONARY:
				if (legion_revealable(s, seat) > 0) {
					s->leg_n = (uint8_t)(left < GTR_MAX_DEMAND ? left : GTR_MAX_DEMAND);
					s->leg_k = 0;
					memset(s->leg_dem, 0, sizeof(s->leg_dem));
					s->step = GS_LEGION;
					return;
				}
				break;
			case GF_THINK:
				s->step = GS_THINK;
				return;
			case GF_PRISON:
				if (gtr_prison_targets(s, seat)) {
					s->step = GS_PRISON;
					return;
				}
				break;
			default:
				if (gtr_action_options(s, seat, f->kind)) {
					s->step = GS_ACTION;
					return;
				}
				break;
			}
		}
		/* nothing (more) to do in this frame */
		s->nframes--;
		memset(&s->frames[s->nframes], 0, sizeof(s->frames[0]));
	}
}

/* The current action is over: it spent `consumed` actions of the top frame
 * (FRAME_ALL: the whole frame); frames earned meanwhile go on top. */
void gtr_action_done(struct gtr_state *s, int consumed, struct game_log *log)
{
	int i;

	if (s->nframes) {
		struct gtr_frame *f = &s->frames[s->nframes - 1];

		if (consumed == FRAME_ALL) {
			s->nframes--;
			memset(f, 0, sizeof(*f));
		} else {
			f->used = (uint8_t)(f->used + consumed > 250 ? 250 : f->used + consumed);
		}
	}
	s->part = 0;
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->tgt_stair = 0;
	for (i = s->npend - 1; i >= 0; i--) {
		if (s->nframes >= GTR_MAX_FRAMES)
			break;
		s->frames[s->nframes++] = s->pend[i];
	}
	s->npend = 0;
	memset(s->pend, 0, sizeof(s->pend));
	run_actions(s, log);
}

void gtr_follow_next(struct gtr_state *s, struct game_log *log)
{
	if (over_now(s, log))
		return;
	if (s->cursor >= s->nplayers) {
		s->phase = GP_ACTIONS;
		s->cursor = 0;
		s->nframes = 0;
		s->started = 0;
		run_actions(s, log);
		return;
	}
	s->phase = GP_FOLLOW;
	s->step = GS_FOLLOW;
	s->decider = (uint8_t)gtr_current(s);
}

/* ---- the end of the turn ---- */

static void eot_start(struct gtr_state *s, struct game_log *log)
{
	s->phase = GP_SENATE;
	s->cursor = 0;
	eot_next(s, log);
}

static int others_jacks(const struct gtr_state *s, int seat)
{
	int i, n = 0;

	for (i = 0; i < s->nplayers; i++)
		if (i != seat)
			n += s->p[i].camp[GTR_JACK];
	return n;
}

void gtr_cleanup_camps(struct gtr_state *s)
{
	int i, c;

	for (i = 0; i < s->nplayers; i++) {
		struct gtr_player *p = &s->p[i];

		/* eight names at a time: a byte never carries, every count
		 * being at most the 6 copies of a name */
		if (any40(p->camp)) {	/* not when the seat thought */
			for (c = 0; c < GC_COUNT; c += 8)
				store8(s->pool + c, load8(s->pool + c) + load8(p->camp + c));
			memset(p->camp, 0, GC_COUNT);
		}
		s->jacks = (uint8_t)(s->jacks + p->camp[GTR_JACK]);
		p->camp[GTR_JACK] = 0;
	}
}

static void eot_next(struct gtr_state *s, struct game_log *log)
{
	int n = s->nplayers;
	/* which of Senado, Alcantarillado, Academia anybody has: a phase
	 * whose building nobody has asks nobody (the usual case) */
	uint64_t any = s->any_fn;

	/* the loop changes nothing over_now looks at (camps go to the pool) */
	if (over_now(s, log))
		return;
	if (s->phase == GP_SENATE &&
	    !(any & (BIT(GC_SENATE) | BIT(GC_SEWER) | BIT(GC_ACADEMY)))) {
		/* nobody is asked: where the loop below ends, directly */
		gtr_cleanup_camps(s);
		s->cursor = 0;
		s->phase = GP_ACADEMY;
		s->leader = (uint8_t)((s->leader + 1) % n);
		s->turn++;
		gtr_begin_turn(s, log);
		return;
	}
	for (;;) {
		int seat;
		uint64_t f;

		if (s->cursor < n &&
		    !((any >> (s->phase == GP_SENATE ? GC_SENATE :
			       s->phase == GP_SEWER ? GC_SEWER : GC_ACADEMY)) & 1))
			s->cursor = (uint8_t)n;	/* the decider is set again below */
		if (s->cursor >= n) {
			s->cursor = 0;
			if (s->phase == GP_SENATE) {
				s->phase = GP_SEWER;
			} else if (s->phase == GP_SEWER) {
				gtr_cleanup_camps(s);
				s->phase = GP_ACADEMY;
			} else {
				s->leader = (uint8_t)((s->leader + 1) % n);
				s->turn++;
				gtr_begin_turn(s, log);
				return;
			}
			continue;
		}
		seat = gtr_current(s);
		s->decider = (uint8_t)seat;
		f = fn_mask(s, seat);
		if (s->phase == GP_SENATE && ((f >> GC_SENATE) & 1) &&
		    others_jacks(s, seat) > 0) {
			s->step = GS_SENATE;
			return;
		}
		if (s->phase == GP_SEWER && ((f >> GC_SEWER) & 1) &&
		    any40(s->p[seat].camp)) {
			s->step = GS_SEWER;
			return;
		}
		if (s->phase == GP_ACADEMY && ((f >> GC_ACADEMY) & 1) &&
		    s->p[seat].crafted) {
			s->step = GS_THINK;
			return;
		}
		s->cursor++;
	}
}

/* GS_SENATE: Senado takes Senadores the others played. */
void gtr_senate_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	int k;

	for (k = 1; k <= others_jacks(s, seat); k++)
		add(out, GK_SENATORS, k, 0, 0);
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_senate_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int k;

	if (m.kind == GK_SENATORS) {
		int want = m.a;

		for (k = 1; k < s->nplayers && want > 0; k++) {
			struct gtr_player *o = &s->p[(seat + k) % s->nplayers];

			while (o->camp[GTR_JACK] && want > 0) {
				o->camp[GTR_JACK]--;
				hand_in(p, GTR_JACK);
				want--;
			}
		}
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes %d Senator%s (Senate).",
					"%s coge %d Senador%s (Senado)."),
		     NAME(log, seat), m.a, m.a == 1 ? "" : L(loc, "s", "es"));
	}
	s->cursor++;
	eot_next(s, log);
}

/* GS_SEWER: Alcantarillado keeps the seat's own played cards, one by one. */
void gtr_sewer_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int c;

	for (c = 0; c < GC_COUNT; c++)
		if (p->camp[c])
			add(out, GK_SEWER, c, 0, 0);
	add(out, GK_DONE, 0, 0, 0);
}

void gtr_sewer_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	if (m.kind == GK_SEWER) {
		p->camp[m.a]--;
		p->stock[m.a]++;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s keeps %s in the stockpile (Sewer).",
					"%s guarda %s en su Almacén (Alcantarillado)."),
		     NAME(log, seat), CNAME(log, m.a));
		if (any40(p->camp))
			return;
	}
	s->cursor++;
	eot_next(s, log);
}
