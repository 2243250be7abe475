/*
 * works.c: phase VI of a Sylla turn, the Great Works: the vote (SS_VOTE,
 * all at once: thumb, denarii, confirm), its reveal and scoring.
 *
 * Hands over to famine and crises (end.c).
 */
#include "games/sylla/sylla_int.h"

/* ---- VI: Great Works ---- */

void sylla_start_works(struct sylla_state *s, struct game_log *log)
{
	unsigned mask = 0;
	int i, w = s->works[s->turn];
	enum locale loc = LOC(log);

	s->phase = SP_WORKS;
	if (s->turn < SY_TURNS)
		s->known = (uint8_t)(s->turn + 1);
	LOGF(log, LOG_PUBLIC, L(loc, "— Phase VI: the Great Work %s —", "— Fase VI: la Gran Obra %s —"),
	     sylla_works[w].name[loc]);
	if (s->turn < SY_TURNS)
		LOGF(log, LOG_PUBLIC, L(loc, "Next turn's Great Work: %s.", "Gran Obra del turno siguiente: %s."),
		     sylla_works[s->works[s->turn + 1]].name[loc]);
	for (i = 0; i < s->nplayers; i++)
		if (sylla_senators(s, i) + s->p[i].money > 0)
			mask |= 1u << i;
	open_secret(s, SS_VOTE, mask);
	if (!mask)
		sylla_reveal_vote(s, log);	/* nobody has a vote: nothing to score */
}

void sylla_reveal_vote(struct sylla_state *s, struct game_log *log)
{
	int w = s->works[s->turn], i, j, total = 0, steps;
	int votes[SY_MAX_PLAYERS];
	enum locale loc = LOC(log);

	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];
		int sen = sylla_senators(s, i);

		votes[i] = sen + p->amount;
		if (log) {
			if (!p->thumb && !votes[i])
				game_logf(log, LOG_PUBLIC, L(loc, "%s: no votes.", "%s: sin votos."),
					  NAME(log, i));
			else
				game_logf(log, LOG_PUBLIC, L(loc, "%s: thumb %s, %d %s + %d %s = %d %s.",
							     "%s: pulgar hacia %s, %d %s + %d %s = %d %s."),
					  NAME(log, i), p->thumb ? L(loc, "up", "arriba") : L(loc, "down", "abajo"),
					  p->amount, sylla_word(SW_DENARIUS, p->amount, loc), sen,
					  sylla_word(SW_SENATOR, sen, loc), votes[i], sylla_word(SW_VOTE, votes[i], loc));
		}
	}
	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];

		/* "Los denarios que hayan utilizado los jugadores se colocan la banca" */
		spend(s, i, p->amount);
		if (!p->thumb) {
			/* "Por cada 2 votos ... 1 punto de prestigio" */
			if (votes[i] / 2) {
				add_prestige(s, i, votes[i] / 2);
				LOGF(log, LOG_PUBLIC, L(loc, "%s gives to the plebeians: +%d prestige.",
							"%s da a los plebeyos: +%d de prestigio."),
				     NAME(log, i), votes[i] / 2);
			}
			continue;
		}
		if (!votes[i])
			continue;
		total += votes[i];
	}
	for (i = 0; i < s->nplayers; i++) {
		int rank = 0, pts;

		if (!s->p[i].thumb || !votes[i])
			continue;
		/* "todos los jugadores empatados a votos obtienen el número de
		 * puntos correspondientes a su posición": rank = how many beat it */
		for (j = 0; j < s->nplayers; j++)
			if (j != i && s->p[j].thumb && votes[j] > votes[i])
				rank++;
		pts = sylla_work_points(w, rank, votes[i]);
		if (pts) {
			add_prestige(s, i, pts);
			LOGF(log, LOG_PUBLIC, L(loc, "%s builds %s: +%d prestige.",
						"%s construye %s: +%d de prestigio."),
			     NAME(log, i), sylla_works[w].name[loc], pts);
		}
	}
	if (sylla_works[w].per && total) {
		steps = total / sylla_works[w].per;
		if (sylla_works[w].track == ST_COUNT) {
			int before = s->famine;

			s->famine = (uint8_t)max_int(0, s->famine - steps);
			LOGF(log, LOG_PUBLIC, L(loc, "%d %s for %s: famine %d \xe2\x86\x92 %d.",
						"%d %s para %s: hambruna %d \xe2\x86\x92 %d."),
			     total, sylla_word(SW_VOTE, total, loc), sylla_works[w].name[loc], before, s->famine);
		} else if (sylla_works[w].track < ST_COUNT) {
			int t = sylla_works[w].track, before = s->track[t];

			move_track(s, t, steps);
			LOGF(log, LOG_PUBLIC, L(loc, "%d %s for %s: %s %d \xe2\x86\x92 %d.",
						"%d %s para %s: %s %d \xe2\x86\x92 %d."),
			     total, sylla_word(SW_VOTE, total, loc), sylla_works[w].name[loc],
			     sylla_tracks[t].name[loc], before, s->track[t]);
		}
	}
	for (i = 0; i < s->nplayers; i++) {
		s->p[i].stage = SST_DONE;
		s->p[i].thumb = 0;
		s->p[i].amount = 0;
	}
	s->waiting = 0;
	sylla_start_famine(s, log);
}
