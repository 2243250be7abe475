/*
 * events.c: phase V of a Sylla turn, the events: the cubes round by round
 * (SS_CUBE), the tokens they earn, the avoidance of a tie (SS_AVOID), the
 * effects in row order with the cards they turn face down (SS_HIDE, all at
 * once), the removal of a tie (SS_REMOVE) and the new event.
 *
 * Hands over to the Great Works (works.c).
 */
#include "games/sylla/sylla_int.h"

static void resolve_cubes(struct sylla_state *s, struct game_log *log);
static void end_events(struct sylla_state *s, struct game_log *log);

/* ---- V: events ---- */

void sylla_start_events(struct sylla_state *s, struct game_log *log)
{
	int i;

	s->phase = SP_EVENTS;
	memset(s->cubes, 0, sizeof(s->cubes));
	s->avoided = 0;
	s->avoid_left = 0;
	s->occur = 0;
	s->cursor = 0;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase V: events —", "— Fase V: eventos —"));
	for (i = 0; i < s->nplayers; i++) {
		/* "tantos cubos ... como Vestales y Legionarios boca arriba y no
		 * girados tengan" */
		s->p[i].cubes[0] = (uint8_t)ready(s, i, SK_VESTAL);
		s->p[i].cubes[1] = (uint8_t)ready(s, i, SK_LEGIONARY);
	}
	sylla_cube_next(s, log);
}

/* Cube placements open to seat: bit slot * 2 + (legionary ? 1 : 0). */
unsigned sylla_cube_options(const struct sylla_state *s, int seat)
{
	unsigned o = 0;
	int slot;

	for (slot = 0; slot < SY_EV_ROW; slot++) {
		int e = s->ev_row[slot];

		if (s->p[seat].cubes[0] && sylla_fights(e, SK_VESTAL))
			o |= 1u << (slot * 2);
		if (s->p[seat].cubes[1] && sylla_fights(e, SK_LEGIONARY))
			o |= 1u << (slot * 2 + 1);
	}
	return o;
}

void sylla_place_cube(struct sylla_state *s, int seat, int slot, int legion, struct game_log *log)
{
	s->p[seat].cubes[legion]--;
	s->cubes[slot][seat]++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s places a %s cube on %s.", "%s pone un cubo de %s en %s."),
	     NAME(log, seat), sylla_kinds[legion ? SK_LEGIONARY : SK_VESTAL].name[LOC(log)],
	     sylla_events[s->ev_row[slot]].name[LOC(log)]);
	s->cursor++;
}

void sylla_cube_next(struct sylla_state *s, struct game_log *log)
{
	int guard;

	/* round by round from the First Consul; those without cubes skipped */
	for (guard = 0; guard < 4 * SY_CUBES * SY_MAX_PLAYERS; guard++) {
		int i, any = 0, seat;
		unsigned o;

		for (i = 0; i < s->nplayers; i++)
			any |= s->p[i].cubes[0] | s->p[i].cubes[1];
		if (!any)
			break;
		seat = (s->fc + s->cursor) % s->nplayers;
		if (!(s->p[seat].cubes[0] | s->p[seat].cubes[1])) {
			s->cursor++;
			continue;
		}
		o = sylla_cube_options(s, seat);
		if (!o) {	/* cannot happen: the Decadencia takes both */
			s->p[seat].cubes[0] = s->p[seat].cubes[1] = 0;
			continue;
		}
		if (!(o & (o - 1))) {
			int k = __builtin_ctz(o);

			sylla_place_cube(s, seat, k / 2, k % 2, log);
			continue;
		}
		ask(s, SS_CUBE, seat);
		return;
	}
	resolve_cubes(s, log);
}

/* The second-highest cube count: slots above it are avoided, slots at it
 * are the tie the First Consul breaks. */
static int avoid_line(const struct sylla_state *s)
{
	int v[SY_EV_ROW], i, j;

	for (i = 0; i < SY_EV_ROW; i++)
		v[i] = ev_cubes(s, i);
	for (i = 0; i < SY_EV_ROW; i++)
		for (j = i + 1; j < SY_EV_ROW; j++)
			if (v[j] > v[i]) {
				int t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
	return v[1];
}

/* Slots the First Consul may still choose to avoid. */
static unsigned avoid_candidates(const struct sylla_state *s)
{
	int line = avoid_line(s), i;
	unsigned c = 0;

	for (i = 0; i < SY_EV_ROW; i++)
		if (ev_cubes(s, i) == line && !((s->avoided >> i) & 1))
			c |= 1u << i;
	return c;
}

unsigned sylla_avoid_candidates(const struct sylla_state *s)
{
	return avoid_candidates(s);
}

void sylla_log_avoided(struct sylla_state *s, struct game_log *log)
{
	int i, k = 0;
	const char *n[2] = { "?", "?" };

	if (!log)
		return;
	for (i = 0; i < SY_EV_ROW; i++)
		if ((s->avoided >> i) & 1 && k < 2)
			n[k++] = sylla_events[s->ev_row[i]].name[log->loc];
	game_logf(log, LOG_PUBLIC, L(log->loc, "Avoided this turn: %s and %s.",
				     "Se evitan este turno: %s y %s."), n[0], n[1]);
}

static void resolve_cubes(struct sylla_state *s, struct game_log *log)
{
	int slot, i, line;
	enum locale loc = LOC(log);

	/* tokens: "el jugador que más cubos haya colocado ... 1 ficha"; ties
	 * each take one (while the supply lasts, from the First Consul) */
	for (slot = 0; slot < SY_EV_ROW; slot++) {
		int e = s->ev_row[slot], best = 0, k;

		for (i = 0; i < s->nplayers; i++)
			best = max_int(best, s->cubes[slot][i]);
		if (!best)
			continue;
		for (k = 0; k < s->nplayers; k++) {
			i = (s->fc + k) % s->nplayers;
			if (s->cubes[slot][i] != best)
				continue;
			if (e == SE_DECADENCE) {
				add_prestige(s, i, 1);
				LOGF(log, LOG_PUBLIC, L(loc, "%s gains 1 prestige (majority on %s).",
							"%s gana 1 de prestigio (mayoría en %s)."),
				     NAME(log, i), sylla_events[e].name[loc]);
			} else if (take_token(s, i, sylla_events[e].token, 1)) {
				LOGF(log, LOG_PUBLIC, L(loc, "%s takes a %s token (majority on %s).",
							"%s toma una ficha de %s (mayoría en %s)."),
				     NAME(log, i), sylla_tracks[sylla_events[e].token].name[loc],
				     sylla_events[e].name[loc]);
			} else {
				LOGF(log, LOG_PUBLIC, L(loc, "%s has the majority on %s, but no %s token is left.",
							"%s tiene la mayoría en %s, pero no quedan fichas de %s."),
				     NAME(log, i), sylla_events[e].name[loc],
				     sylla_tracks[sylla_events[e].token].name[loc]);
			}
		}
	}
	/* "Los dos eventos que más cubos tengan encima ... se evitarán" */
	line = avoid_line(s);
	for (slot = 0; slot < SY_EV_ROW; slot++)
		if (ev_cubes(s, slot) > line)
			s->avoided |= (uint8_t)(1u << slot);
	s->avoid_left = (uint8_t)(2 - popc(s->avoided));
	{
		unsigned c = avoid_candidates(s);

		if (popc(c) == s->avoid_left) {
			s->avoided |= (uint8_t)c;
			s->avoid_left = 0;
		}
	}
	if (s->avoid_left) {
		ask(s, SS_AVOID, s->fc);
		return;
	}
	sylla_log_avoided(s, log);
	sylla_effects_next(s, log);
}

/* What seat may turn face down for event e: bits of cards (one per k and
 * tapped state) in *cards, zone kinds in the return value (bit z). */
unsigned sylla_hide_options(const struct sylla_state *s, int seat, int e, uint64_t *cards)
{
	uint64_t pool = 0;
	unsigned zones = 0, classes = 0;
	int c, z;

	*cards = 0;
	switch (e) {
	case SE_PERSECUTION:
		pool = sylla_up(s, seat) & sylla_mask.christian;
		break;
	case SE_PURGE:
		pool = sylla_up(s, seat) & sylla_mask.kind[SK_SENATOR];
		break;
	case SE_REVOLT:
		pool = sylla_up(s, seat) & sylla_mask.kind[SK_SLAVE];
		break;
	case SE_PILLAGE:
		if (s->p[seat].zone[SZ_STALL])
			zones = 1u << SZ_STALL;
		return zones;
	case SE_FLOOD:
		for (z = 0; z < SZ_COUNT; z++)
			if (s->p[seat].zone[z])
				zones |= 1u << z;
		return zones;
	default:
		return 0;
	}
	for (c = 0; c < SY_CHARS; c++) {
		int cls;

		if (!((pool >> c) & 1))
			continue;
		cls = sylla_k(c) * 2 + (int)((s->tapped >> c) & 1);
		if ((classes >> cls) & 1)
			continue;
		classes |= 1u << cls;
		*cards |= 1ULL << c;
	}
	return 0;
}

int sylla_hide_valid(const struct sylla_state *s, int seat, int what)
{
	uint64_t cards;
	unsigned zones;

	if (!s->occur || s->occur > SY_EV_ROW)
		return 0;
	zones = sylla_hide_options(s, seat, s->ev_row[s->occur - 1], &cards);
	if (what == SY_NONE)	/* nothing to turn over */
		return !cards && !zones;
	if (what < SY_CHARS)
		return (int)((cards >> what) & 1);
	return what < SY_CHARS + SZ_COUNT && ((zones >> (what - SY_CHARS)) & 1);
}

static int hide_count(const struct sylla_state *s, int seat, int e, int *only)
{
	uint64_t cards;
	unsigned zones = sylla_hide_options(s, seat, e, &cards);
	int n = popc(cards) + popc(zones);

	if (n == 1)
		*only = cards ? __builtin_ctzll(cards) : SY_CHARS + __builtin_ctz(zones);
	return n;
}

static int event_hides(int e)
{
	return e == SE_FLOOD || e == SE_PERSECUTION || e == SE_PURGE || e == SE_REVOLT ||
	       e == SE_PILLAGE;
}

/* An event moves track t one space left; the result is logged. */
static void event_track(struct sylla_state *s, int t, struct game_log *log)
{
	int before = s->track[t];
	enum locale loc = LOC(log);

	move_track(s, t, -1);
	if (before == s->track[t])
		LOGF(log, LOG_PUBLIC, L(loc, "The %s marker stays at %d.", "El marcador de %s se queda en %d."),
		     sylla_tracks[t].name[loc], before);
	else
		LOGF(log, LOG_PUBLIC, L(loc, "The %s marker moves: %d \xe2\x86\x92 %d.",
					"El marcador de %s se mueve: %d \xe2\x86\x92 %d."),
		     sylla_tracks[t].name[loc], before, s->track[t]);
}

/* An occurring event's effect; 1 when it waits for a secret step. */
static int event_effect(struct sylla_state *s, int slot, struct game_log *log)
{
	int e = s->ev_row[slot], t, top = 0, i;
	enum locale loc = LOC(log);

	LOGF(log, LOG_PUBLIC, L(loc, "%s happens: %s.", "Sucede %s: %s."), sylla_events[e].name[loc],
	     sylla_events[e].text[loc]);
	switch (e) {
	case SE_EPIDEMIC:
		event_track(s, ST_HEALTH, log);
		return 0;
	case SE_ERUPTION:
		event_track(s, ST_LEISURE, log);
		return 0;
	case SE_CULT:
		event_track(s, ST_CIVIC, log);
		return 0;
	case SE_FAMINE:
		top = s->famine;
		s->famine = (uint8_t)min_int(SY_FAMINE_MAX, s->famine + 1);
		if (top == s->famine)
			LOGF(log, LOG_PUBLIC, L(loc, "The famine marker stays at %d.",
						"El marcador de la Hambruna se queda en %d."), top);
		else
			LOGF(log, LOG_PUBLIC, L(loc, "The famine marker moves: %d \xe2\x86\x92 %d.",
						"El marcador de la Hambruna se mueve: %d \xe2\x86\x92 %d."),
			     top, s->famine);
		return 0;
	case SE_DECADENCE: {
		struct buf b = BUF_INIT;

		for (t = 0; t < ST_COUNT; t++)
			top = max_int(top, s->track[t]);
		if (top)
			for (t = 0; t < ST_COUNT; t++)
				if (s->track[t] == top) {
					move_track(s, t, -1);
					if (log)
						buf_printf(&b, "%s%s %d \xe2\x86\x92 %d", b.len ? ", " : "",
							   sylla_tracks[t].name[loc], top, s->track[t]);
				}
		if (top)
			LOGF(log, LOG_PUBLIC, L(loc, "The highest markers move: %s.",
						"Los marcadores más altos se mueven: %s."), buf_str(&b));
		else
			LOGF(log, LOG_PUBLIC, "%s", L(loc, "No marker moves: all are at 0.",
						      "Ningún marcador se mueve: todos están en 0."));
		buf_release(&b);
		return 0;
	}
	}
	if (!event_hides(e))
		return 0;
	{
		unsigned mask = 0;
		uint8_t pre[SY_MAX_PLAYERS];

		for (i = 0; i < s->nplayers; i++) {
			int only = SY_NONE, n = hide_count(s, i, e, &only);

			pre[i] = (uint8_t)(n == 1 ? only : SY_NONE);
			if (n > 1)
				mask |= 1u << i;
		}
		open_secret(s, SS_HIDE, mask);
		for (i = 0; i < s->nplayers; i++)
			if (!((mask >> i) & 1))
				s->p[i].amount = pre[i];
		s->occur = (uint8_t)(slot + 1);
		if (!mask) {
			sylla_reveal_hide(s, log);
			return 0;
		}
	}
	return 1;
}

/* Turns face up what no visible event keeps face down any more. */
static void release(struct sylla_state *s)
{
	uint64_t d = s->down;
	int i, z;

	while (d) {
		int c = __builtin_ctzll(d);

		d &= d - 1;
		if (!sylla_covered(s, c))
			s->down &= ~(1ULL << c);
	}
	for (i = 0; i < s->nplayers; i++)
		for (z = 0; z < SZ_COUNT; z++)
			if (s->p[i].zone_down[z] && !sylla_covered(s, SY_CHARS + z)) {
				s->p[i].zone[z] = (uint8_t)(s->p[i].zone[z] + s->p[i].zone_down[z]);
				s->p[i].zone_down[z] = 0;
			}
}

void sylla_remove_event(struct sylla_state *s, int slot, struct game_log *log)
{
	int e = s->ev_row[slot];

	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s is removed from the game.", "%s se retira del juego."),
	     sylla_events[e].name[LOC(log)]);
	s->ev_gone |= (uint16_t)(1u << e);
	s->ev_row[slot] = SY_NONE;
	/* "sus efectos negativos cesan": unless another visible event keeps
	 * the card face down (the seed's exceptions) */
	release(s);
	if (s->nev_deck) {
		s->ev_row[slot] = s->ev_deck[--s->nev_deck];
		s->ev_deck[s->nev_deck] = 0;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "New event: %s.", "Nuevo evento: %s."),
		     sylla_events[s->ev_row[slot]].name[LOC(log)]);
	}
	end_events(s, log);
}

static void removal(struct sylla_state *s, struct game_log *log)
{
	int a = -1, b = -1, i;

	for (i = 0; i < SY_EV_ROW; i++)
		if ((s->avoided >> i) & 1) {
			if (a < 0)
				a = i;
			else
				b = i;
		}
	if (a < 0 || b < 0) {
		end_events(s, log);
		return;
	}
	/* "La Decadencia ... no se puede retirar del juego": the other goes */
	if (s->ev_row[a] == SE_DECADENCE) {
		sylla_remove_event(s, b, log);
		return;
	}
	if (s->ev_row[b] == SE_DECADENCE) {
		sylla_remove_event(s, a, log);
		return;
	}
	if (ev_cubes(s, a) == ev_cubes(s, b)) {
		ask(s, SS_REMOVE, s->fc);
		return;
	}
	sylla_remove_event(s, ev_cubes(s, a) > ev_cubes(s, b) ? a : b, log);
}

void sylla_effects_next(struct sylla_state *s, struct game_log *log)
{
	s->step = SS_OVER;	/* no decision while the effects run */
	while (s->occur < SY_EV_ROW) {
		int slot = s->occur++;

		if ((s->avoided >> slot) & 1)
			continue;
		if (event_effect(s, slot, log))
			return;
	}
	removal(s, log);
}

void sylla_reveal_hide(struct sylla_state *s, struct game_log *log)
{
	int i, e = s->ev_row[s->occur - 1];
	struct buf b = BUF_INIT;
	enum locale loc = LOC(log);

	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];
		int what = p->amount;

		if (log)
			buf_printf(&b, "%s%s: ", i ? "; " : "", NAME(log, i));
		if (what == SY_NONE) {
			if (log)
				buf_addstr(&b, L(loc, "nothing to turn", "nada que girar"));
		} else if (what < SY_CHARS) {
			s->down |= 1ULL << what;
			if (log)
				sylla_char_name(what, loc, &b);
		} else {
			int z = what - SY_CHARS;

			p->zone[z]--;
			p->zone_down[z]++;
			if (z == SZ_CRANE && p->crane_used > p->zone[z])
				p->crane_used = p->zone[z];
			if (z == SZ_CRANE && p->crane_new > p->crane_used)
				p->crane_new = p->crane_used;
			if (log)
				buf_addstr(&b, sylla_buildings[sylla_zone_type[z]].name[loc]);
		}
		p->stage = SST_DONE;
		p->amount = 0;
	}
	s->waiting = 0;
	LOGF(log, LOG_PUBLIC, L(loc, "%s, face down: %s.", "%s, boca abajo: %s."),
	     sylla_events[e].name[loc], buf_str(&b));
	buf_release(&b);
}

static void end_events(struct sylla_state *s, struct game_log *log)
{
	int i;

	/* "Los jugadores recuperan sus cubos" */
	memset(s->cubes, 0, sizeof(s->cubes));
	for (i = 0; i < s->nplayers; i++)
		s->p[i].cubes[0] = s->p[i].cubes[1] = 0;
	s->avoided = 0;
	s->occur = 0;
	sylla_start_works(s, log);
}
