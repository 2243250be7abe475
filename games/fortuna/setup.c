/*
 * setup.c: Fortuna's setup: the deal, the turn order, and with `draft` the
 * draft of the action cards (FS_DRAFT) and the cards hidden before the
 * first round (FS_HIDE).
 *
 * Owns the state from zeroed memory to the first turn.  Reads nothing but
 * the options and the seed.
 */
#include "games/fortuna/fortuna_int.h"
#include "util/text.h"

/* ---- setup ---- */

int fortuna_setup(void *st, int players, uint64_t seed, const char *options,
		  struct buf *err)
{
	struct fortuna_state *s = st;
	const char *o = options ? options : "";
	char word[32];
	int draft = 0, i, k, c, t, u, first;
	uint8_t cards[FA_COUNT];
	int ncards = 0;

	if (players < 2 || players > FORTUNA_MAX_PLAYERS) {
		buf_setf(err, "Fortuna is for 2 to 4 players.");
		return -1;
	}
	while (text_word(&o, word, sizeof(word))) {
		if (text_eq(word, "draft")) {
			draft = 1;
		} else {
			buf_setf(err, "Unknown option \"%s\" (Fortuna knows: draft).", word);
			return -1;
		}
	}

	memset(s, 0, sizeof(*s));
	s->nplayers = (uint8_t)players;
	s->draft = (uint8_t)draft;
	s->round = 1;
	s->last_seat = 255;
	rng_seed(&s->rng, seed, 0x466f7274756e61ULL);	/* "Fortuna" */

	for (i = 0; i < players; i++) {
		struct fortuna_player *p = &s->p[i];

		p->money = 5;
		p->water = p->grain = p->wine = 1;
		p->dice = p->priest = p->cent = 1;
	}
	s->sup_water = s->sup_grain = s->sup_wine = (uint8_t)(15 - players);
	s->sup_priest = s->sup_cent = (uint8_t)(12 - players);
	s->sup_dice = (uint8_t)(9 - players);
	for (i = 0; i < FB_COUNT; i++)
		s->bld_left[i] = (uint8_t)fortuna_building_copies(players);
	for (i = 0; i < FF_COUNT; i++)
		s->fav_up[i] = 1;
	s->token_palace = 3;
	s->token_reserve = FORTUNA_TOKENS - 3;
	for (k = 0; k < FP_COUNT; k++)
		for (c = 0; c < fortuna_priv_copies(k, players); c++)
			s->deck[s->ndeck++] = (uint8_t)k;
	rng_shuffle(&s->rng, s->deck, s->ndeck, 1);

	for (i = 0; i < players; i++)
		s->order[i] = (uint8_t)i;
	rng_shuffle(&s->rng, s->order, (uint32_t)players, 1);
	first = s->order[0];

	memset(s->side_card, FORTUNA_NO_CARD, sizeof(s->side_card));
	s->side_card[first][0] = FA_FORTUNA;
	for (c = 0; c < FA_COUNT; c++)
		if (c != FA_FORTUNA)
			cards[ncards++] = (uint8_t)c;
	if (draft) {
		s->step = FS_DRAFT;
		return 0;
	}
	/* Random deal: 3 cards on every side, empty sides too. */
	rng_shuffle(&s->rng, cards, (uint32_t)ncards, 1);
	k = 0;
	for (t = 0; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (s->side_card[t][u] == FORTUNA_NO_CARD)
				s->side_card[t][u] = cards[k++];
	s->step = FS_HIDE;
	return 0;
}

/* After the draft the cards nobody picked go to the empty sides. */
static void finish_draft(struct fortuna_state *s)
{
	uint8_t cards[FA_COUNT];
	int n = 0, c, t, u, k = 0;

	for (c = 0; c < FA_COUNT; c++)
		if (find_card(s, c, NULL) < 0)
			cards[n++] = (uint8_t)c;
	rng_shuffle(&s->rng, cards, (uint32_t)n, 1);
	for (t = s->nplayers; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (k < n)
				s->side_card[t][u] = cards[k++];
	s->setup_k = 0;
	s->step = FS_HIDE;
}
int fortuna_moves_draft(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int c, n = 0;

	for (c = 0; c < FA_COUNT; c++)
		if (find_card(s, c, NULL) < 0)
			n = add(out->v, n, FM_DRAFT, c, 0);
	return end_list(out, n);
}

int fortuna_moves_hide(const struct fortuna_state *s, int seat, struct move_list *out)
{
	int u, n = 0;

	for (u = 0; u < FORTUNA_SLOTS; u++)
		n = add(out->v, n, FM_HIDE, s->side_card[seat][u], 0);
	return end_list(out, n);
}
/*
 * One function per step, reached through a table like the generators: the
 * step's legality (mirroring the generator of the same name), then its
 * effect; the dispatch in fortuna_apply() is then a few checks and a jump.
 * Each returns 0, or refuses m with the state unchanged.  Type A/B cards
 * (FM_PRIV) are handled before.
 */
int fortuna_apply_draft(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
			struct buf *err)
{
	enum locale loc = LOC(log);
	int u;

	if (!(m.kind == FM_DRAFT && m.a < FA_COUNT && !m.b && find_card(s, m.a, NULL) < 0))
		return fortuna_refuse(s, seat, log, err);
	for (u = 0; u < FORTUNA_SLOTS; u++)
		if (s->side_card[seat][u] == FORTUNA_NO_CARD) {
			s->side_card[seat][u] = (uint8_t)m.a;
			break;
		}
	LOGF(log, LOG_PUBLIC, L(loc, "%s drafts %s.", "%s elige %s."), NAME(log, seat),
	     fortuna_actions[m.a].name[loc]);
	if (++s->setup_k >= 3 * s->nplayers - 1)
		finish_draft(s);
	else
		fortuna_settle(s, log);		/* the last pick of 4 players: one card */
	return 0;
}

/* The one public update of the reservation: every seat's card at once.
 * The cards were dealt face up, so the table sees which one each player
 * turns over (docs/games/fortuna.md). */
__attribute__((noinline, cold))
static void log_reserved(const struct fortuna_state *s, struct game_log *log)
{
	enum locale loc = log->loc;
	struct buf b = BUF_INIT;
	int i, u;

	for (i = 0; i < s->nplayers; i++) {
		int seat = s->order[i];

		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (s->side_down[seat][u])
				buf_printf(&b, "%s%s: %s", i ? "; " : "", NAME(log, seat),
					   fortuna_actions[s->side_card[seat][u]].name[loc]);
	}
	game_logf(log, LOG_PUBLIC, L(loc, "Everybody has chosen. Reserved face down: %s.",
				     "Todos han elegido. Reservadas boca abajo: %s."), buf_str(&b));
	buf_release(&b);
}

int fortuna_apply_hide(struct fortuna_state *s, int seat, struct move m, struct game_log *log,
		       struct buf *err)
{
	enum locale loc = LOC(log);
	int slot = 0;

	if (!(m.kind == FM_HIDE && !m.b && on_side(s, seat, m.a, 0)))
		return fortuna_refuse(s, seat, log, err);
	find_card(s, m.a, &slot);
	s->side_down[seat][slot] = 1;
	/* Nothing about the choice is public until everybody has chosen. */
	LOGF(log, LOG_PUBLIC, L(loc, "%s has chosen the card to reserve.",
				"%s ya ha elegido la carta que reserva."), NAME(log, seat));
	if (++s->setup_k < s->nplayers) {
		LOGF(log, seat, L(loc, "You reserve %s; it is turned face down when everybody has chosen.",
				  "Reservas %s; se pone boca abajo cuando todos hayan elegido."),
		     fortuna_actions[m.a].name[loc]);
	} else {
		LOGF(log, seat, L(loc, "You reserve %s.", "Reservas %s."), fortuna_actions[m.a].name[loc]);
		s->setup_k = 0;
		s->turn = 0;
		if (log)
			log_reserved(s, log);
		LOGF(log, LOG_PUBLIC, L(loc, "Round 1 begins.", "Empieza la ronda 1."));
		fortuna_start_turn(s, log);
	}
	return 0;
}
