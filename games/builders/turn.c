/*
 * turn.c: the end of a Builders turn and of a round, the last round once
 * a seat has 17 VP, and BS_FINAL (slaves freed for 5 sesterces, loans
 * repaid for 15, in turn order) before the score (score.c).
 */
#include "games/builders/builders_int.h"

static void start_final(struct builders_state *s, struct game_log *log);

int builders_moves_final(const struct builders_state *s, struct move *v)
{
	const struct builders_player *p = &s->p[s->cur];
	int k, n = 0;

	if (p->money >= BUILDERS_FREE_PRICE)
		for (k = 0; k < BUILDERS_SLAVES; k++)
			if (slave_free_to_go(s, s->cur, k))
				n = add(v, n, BM_FREE, BU_SLAVE + k, 0);
	if (p->loans && p->money >= BUILDERS_LOAN_REPAY)
		n = add(v, n, BM_REPAY, 0, 0);
	return add(v, n, BM_END, 0, 0);
}
/* ---- turn flow ---- */

__attribute__((noinline, cold))
static void log_round(const struct builders_state *s, struct game_log *log)
{
	game_logf(log, LOG_PUBLIC, L(log->loc, "Round %d. %s plays first.",
				     "Ronda %d. %s juega primero."),
		  s->round, NAME(log, s->first));
}

static void clear_turn(struct builders_state *s)
{
	s->used = 0;
	s->invested = 0;
	s->pend = BUILDERS_NONE;
	if (s->sentmask)	/* most turns send nobody twice: nothing to clear */
		memset(s->sent, 0, sizeof(s->sent));
	s->sentmask = 0;
}

void builders_end_turn(struct builders_state *s, struct game_log *log)
{
	int seat = s->cur;

	if (s->p[seat].vp >= BUILDERS_END_VP && !s->ending) {
		s->ending = 1;
		if (log)
			game_logf(log, LOG_PUBLIC,
				  seat == last_seat(s) ?
				  L(log->loc, "%s ends the turn with %d VP: the game ends now.",
				    "%s termina el turno con %d PV: la partida termina ya.") :
				  L(log->loc, "%s ends the turn with %d VP: the game ends after this round.",
				    "%s termina el turno con %d PV: la partida termina al acabar esta ronda."),
				  NAME(log, seat), s->p[seat].vp);
	} else {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s ends the turn.", "%s termina el turno."),
		     NAME(log, seat));
	}
	clear_turn(s);
	if (seat == last_seat(s)) {
		if (s->ending || s->round >= BUILDERS_ROUND_CAP) {
			if (!s->ending)
				LOGF(log, LOG_PUBLIC, L(LOC(log),
					"Round %d was the last one the table plays: the game ends.",
					"La ronda %d era la última que se juega: la partida termina."),
				     s->round);
			start_final(s, log);
			return;
		}
		s->round++;
		s->cur = s->first;
		if (log)
			log_round(s, log);
		return;
	}
	s->cur = (uint8_t)builders_next_seat(s, seat);
}

/* BS_FINAL asks, in turn order from the first player, each seat that can
 * still free a slave or repay a loan; the others are skipped. */
static void final_from(struct builders_state *s, int seat, struct game_log *log)
{
	int i;

	for (i = seat; ; ) {
		if (final_options(s, i)) {
			s->cur = (uint8_t)i;
			s->step = BS_FINAL;
			return;
		}
		i = builders_next_seat(s, i);
		if (i == s->first)
			break;
	}
	s->step = BS_OVER;
	s->cur = 0;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
}

static void start_final(struct builders_state *s, struct game_log *log)
{
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "Final scoring: slaves may still be freed (5 s) and loans repaid (15 s).",
				      "Puntuación final: aún se pueden liberar esclavos (5 s) y devolver préstamos (15 s)."));
	final_from(s, s->first, log);
}

void builders_final_next(struct builders_state *s, struct game_log *log)
{
	int n = builders_next_seat(s, s->cur);

	if (n == s->first) {
		s->step = BS_OVER;
		s->cur = 0;
		LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
		return;
	}
	final_from(s, n, log);
}
void builders_do_free(struct builders_state *s, int u, struct game_log *log)
{
	int seat = s->cur, cost = 0, k;
	struct buf b = BUF_INIT;

	if (s->step == BS_FINAL)
		pay(s, seat, BUILDERS_FREE_PRICE);
	else
		cost = spend_actions(s, 1);
	s->freed[u - BU_SLAVE] = 1;
	s->bound &= ~(1u << u);
	s->uwage[u] = BUILDERS_FREED_WAGE;
	for (k = 0; k < BUILDERS_FREED_WAGE; k++)
		s->wle[k] &= ~(1u << u);
	if (log) {
		builders_log_paid(log, seat, 1, cost);
		builders_unit_tag(s, u, log->loc, &b);
		if (s->step == BS_FINAL)
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s frees a slave for %d s: %s.",
						     "%s libera a un esclavo por %d s: %s."),
				  NAME(log, seat), BUILDERS_FREE_PRICE, buf_str(&b));
		else
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s frees a slave: %s.",
						     "%s libera a un esclavo: %s."),
				  NAME(log, seat), buf_str(&b));
	}
	buf_release(&b);
}

void builders_do_repay(struct builders_state *s, struct game_log *log)
{
	int seat = s->cur;

	pay(s, seat, BUILDERS_LOAN_REPAY);
	s->p[seat].loans--;
	s->loan_pile++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s repays a loan (%d s).", "%s devuelve un préstamo (%d s)."),
	     NAME(log, seat), BUILDERS_LOAN_REPAY);
}
