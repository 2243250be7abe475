/*
 * setup.c: Glory to Rome's setup ("Preparación"): the option words, the
 * deal, the sites in and out of town, and the leader draw with its ties
 * (rulings 1 and 2 in gtr.c); with `experienced`, the leader cards the
 * seats pick (GS_PICK, all seats at once); the intro op that shows the
 * draw.
 *
 * Owns the state from zeroed memory to the first turn's GS_LEAD (or the
 * picks).  Must not: play any part of a turn (it hands over to
 * gtr_begin_turn in flow.c), or read anything but the options and the
 * seed: setup(seed, options) is the whole of a game's start.
 */
#include "games/gtr/gtr_int.h"
#include "util/text.h"

/* ---- setup ---- */

/* The documented option words, compared whole and exactly (ASCII case
 * aside): "original-circus" is one word, so "original" or
 * "original_circus" is unknown rather than half a match. */
static const struct { const char *word; uint8_t bit; } option_words[] = {
	{ "experienced", GO_EXPERIENCED }, { "original-circus", GO_ORIGINAL_CIRCUS },
	{ "nofunctions", GO_NOFUNCTIONS }, { "quick", GO_QUICK },
};

#define NOPTIONS (sizeof(option_words) / sizeof(*option_words))

static int ascii_caseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = *a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a;
		int y = *b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b;

		if (x != y)
			return 0;
	}
	return *a == *b;
}

int gtr_parse_options(const char *options, uint8_t *opts, struct buf *err)
{
	const char *p = options ? options : "";
	char w[32];
	size_t k, len;

	*opts = 0;
	while ((len = text_word(&p, w, sizeof(w))) > 0) {
		for (k = 0; len < sizeof(w) && k < NOPTIONS; k++)
			if (ascii_caseeq(w, option_words[k].word))
				break;
		if (len >= sizeof(w) || k == NOPTIONS) {
			buf_setf(err, "Unknown option \"%s%s\" (options: ", w,
				 len >= sizeof(w) ? "..." : "");
			for (k = 0; k < NOPTIONS; k++)
				buf_printf(err, "%s%s", k ? ", " : "", option_words[k].word);
			buf_addstr(err, ").");
			return -1;
		}
		*opts |= option_words[k].bit;
	}
	return 0;
}

/* Records a leader-draw card (the intro and the first board show them). */
static void record_draw(struct gtr_state *s, int seat, int card)
{
	if (s->ndraw >= GTR_MAX_DRAW)
		return;	/* ties beyond: the pool still holds the cards */
	s->draw_seat[s->ndraw] = (uint8_t)seat;
	s->draw_card[s->ndraw] = (uint8_t)card;
	s->ndraw++;
}

/* "ana shows Road (Calzada)": the Spanish name decides the order, so an
 * English line shows it too.  fmt takes the seat's name, the card's name
 * and the Spanish name (empty in a Spanish line). */
static void log_draw(struct game_log *log, const char *fmt, int seat, int c)
{
	if (!log || c >= GC_COUNT)
		return;
	game_logf(log, LOG_PUBLIC, fmt, NAME(log, seat), gtr_cards[c].name[log->loc],
		  log->loc == LOC_ES ? "" : gtr_cards[c].name[LOC_ES]);
}

#define SHOWS(log) L(LOC(log), "%s shows %s (%s).", "%s muestra %s%s.")
#define TIE_DRAWS(log) L(LOC(log), "Tie: %s draws %s (%s).", "Empate: %s saca %s%s.")

/* The leader draw: cards[seat] is each contender's card; the first Spanish
 * name wins; the tied draw again (the drawn cards all go to the pool). */
static void choose_leader(struct gtr_state *s, uint8_t *cards, unsigned contenders,
			  struct game_log *log)
{
	int n = s->nplayers, i;

	for (;;) {
		int best = -1, ties = 0, bc;
		unsigned tied;

		for (i = 0; i < n; i++) {
			if (!(contenders & (1u << i)))
				continue;
			if (cards[i] >= GC_COUNT)
				continue;
			if (best < 0 || strcmp(gtr_cards[cards[i]].sort,
					       gtr_cards[cards[best]].sort) < 0)
				best = i;
		}
		if (best < 0) {	/* unreachable: a deck of 144 */
			s->leader = 0;
			return;
		}
		for (i = 0; i < n; i++)
			if ((contenders & (1u << i)) && cards[i] < GC_COUNT &&
			    cards[i] == cards[best])
				ties++;
		if (ties == 1 || s->ndeck == 0) {
			s->leader = (uint8_t)best;
			return;
		}
		tied = contenders;
		bc = cards[best];
		contenders = 0;
		for (i = 0; i < n; i++)
			if ((tied & (1u << i)) && cards[i] == bc) {
				int c = draw(s);

				contenders |= 1u << i;
				cards[i] = (uint8_t)c;
				if (c < GC_COUNT) {
					s->pool[c]++;
					record_draw(s, i, c);
					log_draw(log, TIE_DRAWS(log), i, c);
				}
			}
		/* drawing may not end the game here: setup never empties a
		 * deck of 144 - 5 * 6 cards */
		s->ending = 0;
	}
}

/* The leader draw's outcome line. */
static void log_leader(const struct gtr_state *s, struct game_log *log)
{
	int i, c = GTR_NONE;

	for (i = 0; i < s->ndraw; i++)
		if (s->draw_seat[i] == s->leader)
			c = s->draw_card[i];	/* the leader's last card decided */
	if (!log)
		return;
	if (c >= GC_COUNT || s->ndraw >= GTR_MAX_DRAW) {	/* ties beyond the record */
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s leads first.", "%s es el primer Líder."),
			  NAME(log, s->leader));
		return;
	}
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s leads first: %s (%s) comes first in "
				     "Spanish alphabetical order.",
				     "%s es el primer Líder: %s%s va antes en orden alfabético."),
		  NAME(log, s->leader), gtr_cards[c].name[log->loc],
		  log->loc == LOC_ES ? "" : gtr_cards[c].name[LOC_ES]);
}

/*
 * The intro op: what setup did in public.  Each seat's draw ("ana shows
 * Road (Calzada)"), the tie draws, the leader; with `experienced` the
 * cards are picked after setup (the picks log their own lines as moves),
 * so only the invitation.  It reads the options and the draw recorded at
 * setup, which nothing changes later: the same lines for the state
 * setup() made and for any later state of the game.
 */
void gtr_intro(const void *st, struct game_log *log)
{
	const struct gtr_state *s = st;
	int i;

	if (!log)
		return;
	if (s->opts & GO_EXPERIENCED) {
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc,
			  "Each player picks a card from hand, face down, for the leader draw.",
			  "Cada jugador elige boca abajo una carta de su Mano para elegir Líder."));
		return;
	}
	/* the first round is one card per seat; later cards are the ties' */
	for (i = 0; i < s->ndraw; i++)
		log_draw(log, i < s->nplayers ? SHOWS(log) : TIE_DRAWS(log), s->draw_seat[i],
			 s->draw_card[i]);
	log_leader(s, log);
}

int gtr_setup(void *st, int players, uint64_t seed, const char *options, struct buf *err)
{
	struct gtr_state *s = st;
	uint8_t opts, cards[GTR_MAX_PLAYERS];
	int i, c, k, m, town;

	if (players < GTR_MIN_PLAYERS || players > GTR_MAX_PLAYERS) {
		buf_setf(err, "Glory to Rome is for %d to %d players.", GTR_MIN_PLAYERS,
			 GTR_MAX_PLAYERS);
		return -1;
	}
	if (gtr_parse_options(options, &opts, err))
		return -1;
	memset(s, 0, sizeof(*s));
	s->nplayers = (uint8_t)players;
	s->opts = opts;
	rng_seed(&s->rng, seed, 0x67747221u);
	for (c = 0; c < GC_COUNT; c++)
		for (k = 0; k < gtr_cards[c].copies; k++)
			s->deck[s->ndeck++] = (uint8_t)c;
	rng_shuffle(&s->rng, s->deck, s->ndeck, 1);
	/* "repartid 4 cartas ... Cada jugador coge además un Senador" */
	for (i = 0; i < players; i++) {
		for (k = 0; k < ((opts & GO_EXPERIENCED) ? 5 : 4); k++)
			hand_in(&s->p[i], draw(s));
		hand_in(&s->p[i], GTR_JACK);
	}
	s->jacks = (uint8_t)(GTR_JACKS - players);
	if (opts & GO_QUICK)
		town = players <= 3 ? 2 : 3;
	else
		town = players == 2 ? 3 : players;
	for (m = 0; m < GM_COUNT; m++) {
		s->in_town[m] = (uint8_t)town;
		s->out_town[m] = (uint8_t)(GTR_SITES - town);
	}
	/* influence and limits of seats without structures (hand_in kept
	 * the hand counts) */
	for (i = 0; i < players; i++)
		gtr_refresh_seat(s, i);
	s->led = GTR_NONE;
	s->winner = GTR_NONE;
	s->pet_role = GTR_NONE;
	s->fount = GTR_NONE;
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->turn = 1;
	if (opts & GO_EXPERIENCED) {
		s->phase = GP_PICK;
		s->step = GS_PICK;
		s->decider = 0;
		return 0;
	}
	/* "Cada jugador coge una carta de Acción al azar del mazo y la coloca
	 * en el centro de la mesa" */
	for (i = 0; i < players; i++) {
		cards[i] = (uint8_t)draw(s);
		s->pool[cards[i]]++;
		record_draw(s, i, cards[i]);
	}
	choose_leader(s, cards, (1u << players) - 1, NULL);
	gtr_begin_turn(s, NULL);
	return 0;
}

/* ---- GS_PICK (experienced) ---- */

static void pick_done(struct gtr_state *s, struct game_log *log)
{
	uint8_t cards[GTR_MAX_PLAYERS];
	int i;

	/* "Se muestran todas las cartas a la vez" */
	for (i = 0; i < s->nplayers; i++) {
		cards[i] = (uint8_t)(s->p[i].pick - 1);
		s->p[i].pick = 0;
		s->pool[cards[i]]++;
		record_draw(s, i, cards[i]);
		log_draw(log, SHOWS(log), i, cards[i]);
	}
	choose_leader(s, cards, (1u << s->nplayers) - 1, log);
	log_leader(s, log);
	gtr_begin_turn(s, log);
}

void gtr_pick_moves(const struct gtr_state *s, int seat, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int c;

	for (c = 0; c < GC_COUNT; c++)
		if (p->hand[c])
			add(out, GK_PICK, c, 0, 0);
}

void gtr_pick_apply(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int i;

	hand_out(p, m.a);
	p->pick = (uint8_t)(m.a + 1);
	LOGF(log, LOG_PUBLIC, L(loc, "%s picks a card face down.",
				"%s elige una carta boca abajo."), NAME(log, seat));
	LOGF(log, seat, L(loc, "You pick %s.", "Eliges %s."), CNAME(log, m.a));
	for (i = 0; i < s->nplayers; i++)
		if (!s->p[i].pick)
			break;
	if (i == s->nplayers)
		pick_done(s, log);
	else
		s->decider = (uint8_t)i;
}
