/*
 * end.c: phase VII of a Sylla turn (famine and crises, automatic), the end
 * of the turn, and after the fifth the game's end: Ecclesia (Christians,
 * SS_FREE all at once, tokens) and the final scores.
 *
 * Hands a new turn back to consul.c; the game over to sylla_result().
 */
#include "games/sylla/sylla_int.h"

static void end_turn(struct sylla_state *s, struct game_log *log);
static void finish(struct sylla_state *s, struct game_log *log);

/* ---- VII: famine and crises ---- */

void sylla_start_famine(struct sylla_state *s, struct game_log *log)
{
	int i, t;
	enum locale loc = LOC(log);

	s->phase = SP_FAMINE;
	s->step = SS_OVER;
	LOGF(log, LOG_PUBLIC, L(loc, "— Phase VII: famine %d and crises —", "— Fase VII: hambruna %d y crisis —"),
	     s->famine);
	for (i = 0; i < s->nplayers; i++) {
		int loss = s->famine - 2 * s->p[i].zone[SZ_FIELD];

		if (loss > 0) {
			add_prestige(s, i, -loss);
			LOGF(log, LOG_PUBLIC, L(loc, "%s loses %d prestige to the famine.",
						"%s pierde %d de prestigio por la hambruna."), NAME(log, i), loss);
		}
	}
	for (t = 0; t < ST_COUNT; t++) {
		int hi = 0, lo = 255;
		struct buf b = BUF_INIT;

		if (s->track[t] > SY_CRISIS)
			continue;
		for (i = 0; i < s->nplayers; i++) {
			struct sylla_player *p = &s->p[i];

			hi = max_int(hi, p->tok[t]);
			lo = min_int(lo, p->tok[t]);
			/* shown to the table, then back behind the screen */
			p->blind = (uint8_t)(p->blind - (p->tok[t] - p->seen[t]));
			p->seen[t] = p->tok[t];
			if (log)
				buf_printf(&b, "%s%s %d", i ? ", " : "", NAME(log, i), p->tok[t]);
		}
		LOGF(log, LOG_PUBLIC, L(loc, "%s crisis! Tokens shown: %s.", "¡Crisis de %s! Fichas mostradas: %s."),
		     sylla_tracks[t].name[loc], buf_str(&b));
		buf_release(&b);
		if (hi == lo) {
			LOGF(log, LOG_PUBLIC, "%s", L(loc, "Everybody shows as many: nobody gains or loses.",
						      "Todos muestran las mismas: nadie gana ni pierde."));
			continue;
		}
		for (i = 0; i < s->nplayers; i++) {
			if (s->p[i].tok[t] == hi) {
				add_prestige(s, i, 3);
				LOGF(log, LOG_PUBLIC, L(loc, "%s gains 3 prestige.", "%s gana 3 de prestigio."),
				     NAME(log, i));
			} else if (s->p[i].tok[t] == lo) {
				add_prestige(s, i, -3);
				LOGF(log, LOG_PUBLIC, L(loc, "%s loses 3 prestige.", "%s pierde 3 de prestigio."),
				     NAME(log, i));
			}
		}
	}
	end_turn(s, log);
}

static void end_turn(struct sylla_state *s, struct game_log *log)
{
	int i;

	if (s->turn >= SY_TURNS) {
		sylla_start_end(s, log);
		return;
	}
	/* "Los Personajes que habían sido girados se enderezan" (Cranes too) */
	s->tapped = 0;
	for (i = 0; i < s->nplayers; i++)
		s->p[i].crane_used = s->p[i].crane_new = 0;
	s->turn++;
	sylla_put_under(s, NULL);	/* nothing left there in a played turn */
	sylla_deal_chars(s, log);
	sylla_deal_tiles(s, log);
	sylla_start_turn(s, log);
}

/* ---- the end: Ecclesia ---- */

int sylla_free_max(const struct sylla_state *s, int seat)
{
	return min_int(popc(sylla_up(s, seat) & sylla_mask.kind[SK_SLAVE]), s->p[seat].money / 2);
}

void sylla_start_end(struct sylla_state *s, struct game_log *log)
{
	unsigned mask = 0;
	int i;
	enum locale loc = LOC(log);

	s->phase = SP_END;
	LOGF(log, LOG_PUBLIC, "%s", L(loc, "— The end: Ecclesia is built —", "— Final: se construye Ecclesia —"));
	for (i = 0; i < s->nplayers; i++) {
		/* "Cada personaje cristiano ... boca arriba (aunque esté girado)" */
		int n = popc(sylla_up(s, i) & sylla_mask.christian);

		s->p[i].end_christians = (uint8_t)n;
		if (n) {
			add_prestige(s, i, 2 * n);
			LOGF(log, LOG_PUBLIC, L(loc, "%s: %d %s face up, +%d prestige.",
						"%s: %d %s boca arriba, +%d de prestigio."), NAME(log, i), n,
			     sylla_word(SW_CHRISTIAN, n, loc), 2 * n);
		}
		if (sylla_free_max(s, i) > 0)
			mask |= 1u << i;
	}
	open_secret(s, SS_FREE, mask);
	if (!mask)
		finish(s, log);
}

void sylla_reveal_free(struct sylla_state *s, struct game_log *log)
{
	int i;

	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];

		if (p->amount) {
			spend(s, i, 2 * p->amount);
			add_prestige(s, i, 3 * p->amount);
			p->end_freed = p->amount;
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s frees %d %s for %d denarii: +%d prestige.",
						"%s libera %d %s por %d denarios: +%d de prestigio."),
			     NAME(log, i), p->amount, sylla_word(SW_SLAVE, p->amount, LOC(log)), 2 * p->amount,
			     3 * p->amount);
		} else if ((s->waiting >> i) & 1 || sylla_free_max(s, i)) {
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s frees no slaves.", "%s no libera esclavos."),
			     NAME(log, i));
		}
		p->stage = SST_DONE;
		p->amount = 0;
	}
	s->waiting = 0;
	finish(s, log);
}

static void finish(struct sylla_state *s, struct game_log *log)
{
	int i;
	enum locale loc = LOC(log);

	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];
		int v = sylla_token_points(s, i);

		p->end_tokens = (uint16_t)v;
		add_prestige(s, i, v);
		LOGF(log, LOG_PUBLIC, L(loc, "%s shows %d civic spirit, %d health and %d leisure tokens: +%d prestige.",
					"%s muestra %d fichas de espíritu cívico, %d de salud y %d de ocio: +%d de prestigio."),
		     NAME(log, i), p->tok[ST_CIVIC], p->tok[ST_HEALTH], p->tok[ST_LEISURE], v);
		/* the screens are open now */
		p->seen[0] = p->tok[0];
		p->seen[1] = p->tok[1];
		p->seen[2] = p->tok[2];
		p->blind = 0;
	}
	s->phase = SP_OVER;
	s->step = SS_OVER;
	s->waiting = 0;
	s->decider = SY_NONE;
}
