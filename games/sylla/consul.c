/*
 * consul.c: phases I and II of a Sylla turn: the First Consul's election
 * (SS_ELECT once round, or SS_SEALED all at once with sealed-election),
 * his token (SS_TOKEN) and phase I's famine, and the recruitment he leads
 * (SS_RECRUIT).
 *
 * Hands over to the buildings' sales (build.c) after the recruitment.
 */
#include "games/sylla/sylla_int.h"

static void recruit_next(struct sylla_state *s, struct game_log *log);

/* ---- I: First Consul ---- */

void sylla_start_turn(struct sylla_state *s, struct game_log *log)
{
	int i;

	s->phase = SP_CONSUL;
	s->hi_votes = 0;
	s->hi_seat = SY_NONE;
	s->cursor = 0;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "— Turn %d of %d: the election of the First Consul —",
				"— Turno %d de %d: elección del Primer Cónsul —"), s->turn, SY_TURNS);
	if (s->opts & SO_SEALED) {
		unsigned mask = 0;

		for (i = 0; i < s->nplayers; i++)
			if (sylla_senators(s, i) + s->p[i].money > 0)
				mask |= 1u << i;
		open_secret(s, SS_SEALED, mask);
		if (!mask)
			sylla_elect_next(s, log);
		return;
	}
	sylla_elect_next(s, log);
}

static void finish_election(struct sylla_state *s, struct game_log *log)
{
	int w = s->hi_seat;

	if (w < s->nplayers) {
		int pay = max_int(0, s->hi_votes - sylla_senators(s, w));

		spend(s, w, pay);
		s->fc = (uint8_t)w;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s is First Consul with %d %s and pays %d %s.",
					"%s es Primer Cónsul con %d %s y paga %d %s."),
		     NAME(log, w), s->hi_votes, sylla_word(SW_VOTE, s->hi_votes, LOC(log)), pay,
		     sylla_word(SW_DENARIUS, pay, LOC(log)));
	} else {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "Nobody offered votes: %s stays First Consul.",
					"Nadie ofrece votos: %s sigue de Primer Cónsul."), NAME(log, s->fc));
	}
	s->waiting = 0;
	if (s->supply[0] || s->supply[1] || s->supply[2]) {
		int t, only = -1, n = 0;

		for (t = 0; t < ST_COUNT; t++)
			if (s->supply[t]) {
				only = t;
				n++;
			}
		if (n > 1) {
			ask(s, SS_TOKEN, s->fc);
			return;
		}
		take_token(s, s->fc, only, 1);
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s takes a %s token (the only colour left).",
					"%s toma una ficha de %s (el único color que queda)."),
		     NAME(log, s->fc), sylla_tracks[only].name[LOC(log)]);
	}
	sylla_after_token(s, log);
}

/* Open election: each seat once, from the last First Consul, clockwise. */
void sylla_elect_next(struct sylla_state *s, struct game_log *log)
{
	if (s->opts & SO_SEALED) {
		finish_election(s, log);
		return;
	}
	while (s->cursor < s->nplayers) {
		int seat = (s->fc + s->cursor) % s->nplayers;

		if (sylla_senators(s, seat) + s->p[seat].money > s->hi_votes) {
			ask(s, SS_ELECT, seat);
			return;
		}
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot offer more than %d %s and passes.",
					"%s no puede ofrecer más de %d %s y pasa."),
		     NAME(log, seat), s->hi_votes, sylla_word(SW_VOTE, s->hi_votes, LOC(log)));
		s->cursor++;
	}
	finish_election(s, log);
}

/* Sealed election revealed: the best offer wins; on a tie the one seated
 * first from the last First Consul (whom an open round would have kept). */
void sylla_reveal_sealed(struct sylla_state *s, struct game_log *log)
{
	int k, n = s->nplayers;

	s->hi_votes = 0;
	s->hi_seat = SY_NONE;
	for (k = 0; k < n; k++) {
		int i = (s->fc + k) % n, sen = sylla_senators(s, i);
		struct sylla_player *p = &s->p[i];

		if (p->thumb && sen + p->amount > s->hi_votes) {
			s->hi_votes = (uint8_t)(sen + p->amount);
			s->hi_seat = (uint8_t)i;
		}
		if (!log)
			continue;
		if (p->thumb)
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s offered %d %s (%d %s + %d %s).",
						     "%s ofreció %d %s (%d %s + %d %s)."),
				  NAME(log, i), sen + p->amount, sylla_word(SW_VOTE, sen + p->amount, log->loc),
				  sen, sylla_word(SW_SENATOR, sen, log->loc), p->amount,
				  sylla_word(SW_DENARIUS, p->amount, log->loc));
		else
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s passed.", "%s pasó."), NAME(log, i));
	}
	for (k = 0; k < n; k++)
		s->p[k].stage = SST_DONE;
	finish_election(s, log);
}

void sylla_after_token(struct sylla_state *s, struct game_log *log)
{
	int i, h = 0, before = s->famine;

	/* "tantas casillas a la derecha como símbolos de hambre contengan las
	 * cuatro cartas de Evento que están en juego" */
	for (i = 0; i < SY_EV_ROW; i++)
		if (s->ev_row[i] < SE_COUNT)
			h += sylla_events[s->ev_row[i]].hunger;
	s->famine = (uint8_t)min_int(SY_FAMINE_MAX, s->famine + h);
	if (h)
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s moves the famine marker for %d %s: %d \xe2\x86\x92 %d.",
					"%s mueve el marcador de la Hambruna por %d %s: %d \xe2\x86\x92 %d."),
		     NAME(log, s->fc), h, sylla_word(SW_HUNGER, h, LOC(log)), before, s->famine);
	sylla_start_recruit(s, log);
}

void sylla_start_recruit(struct sylla_state *s, struct game_log *log)
{
	s->phase = SP_RECRUIT;
	s->cursor = 0;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase II: recruitment —", "— Fase II: reclutamiento —"));
	recruit_next(s, log);
}

/* ---- II: recruitment ---- */

/* Row slots worth listing: the first of each card kind (same k = same card). */
unsigned sylla_distinct_row(const struct sylla_state *s)
{
	unsigned seen = 0, slots = 0;
	int i;

	for (i = 0; i < SY_ROW; i++) {
		int c = s->row[i];

		if (c >= SY_CHARS || ((seen >> sylla_k(c)) & 1))
			continue;
		seen |= 1u << sylla_k(c);
		slots |= 1u << i;
	}
	return slots;
}

void sylla_recruit(struct sylla_state *s, int seat, int slot, struct game_log *log)
{
	int c = s->row[slot];

	s->own[seat] |= 1ULL << c;
	s->row[slot] = SY_NONE;
	if (log) {
		struct buf b = BUF_INIT;

		sylla_char_name(c, log->loc, &b);
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s recruits %s.", "%s recluta %s."),
			  NAME(log, seat), buf_str(&b));
		buf_release(&b);
	}
	s->cursor++;
	recruit_next(s, log);
}

/* "las que queden se colocan debajo del montón", in row order. */
void sylla_put_under(struct sylla_state *s, struct game_log *log)
{
	uint8_t under[SY_ROW];
	int i, n = 0;

	for (i = 0; i < SY_ROW; i++)
		if (s->row[i] < SY_CHARS) {
			under[n++] = s->row[i];
			s->row[i] = SY_NONE;
		}
	if (!n)
		return;
	memmove(s->deck + n, s->deck, s->ndeck);
	for (i = 0; i < n; i++)
		s->deck[i] = under[n - 1 - i];
	s->ndeck = (uint8_t)(s->ndeck + n);
	if (log) {
		struct buf b = BUF_INIT;

		for (i = 0; i < n; i++) {
			if (i)
				buf_addstr(&b, ", ");
			sylla_char_name(under[i], log->loc, &b);
		}
		game_logf(log, LOG_PUBLIC, L(log->loc, "Under the deck: %s.", "Debajo del montón: %s."),
			  buf_str(&b));
		buf_release(&b);
	}
}

static void recruit_next(struct sylla_state *s, struct game_log *log)
{
	while (s->cursor < s->nplayers) {
		int seat = (s->fc + s->cursor) % s->nplayers;
		unsigned d = sylla_distinct_row(s);

		if (!d) {
			s->cursor++;
			continue;
		}
		if (!(d & (d - 1))) {
			sylla_recruit(s, seat, __builtin_ctz(d), log);
			return;
		}
		ask(s, SS_RECRUIT, seat);
		return;
	}
	sylla_put_under(s, log);
	sylla_start_build(s, log);
}
