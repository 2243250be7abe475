/*
 * fortuna.c: the rules of Fortuna (Rieneck & Stadler; Ludonova's Spanish
 * rulebook is the specification) as a state machine of small decisions.
 *
 * A round: every seat in turn order plays the 5 phases of a turn:
 *   1 Acueducto water (automatic),
 *   2 FS_CHOOSE a card -> FS_ACTION (execute or skip) -> FS_EXCHANGE,
 *   3 FS_MILITARY (give the top Centurión to execute a face-up own card),
 *   4 roll (automatic, in apply) -> FS_DIE -> FS_FAVOUR (deliver or tax),
 *     and with 2 players FS_FLIP for the first player,
 *   5 privileges (draw automatically, FS_KEEP when there is a choice), then
 *     the Palace draw of a seat that arrived this turn, then FS_END when a
 *     card was kept and a type A/B card may still be played.
 * At the end of the round tokens go on the unused favour cards, all favour
 * cards turn face up and the turn order is set again; the game ends after
 * the round in which somebody reached the Palace.
 *
 * Type A/B privilege cards are offered as FM_PRIV in every decision of
 * their owner's turn; a card "of choice" opens FS_RESOURCE, which then
 * returns to the decision it interrupted (res_ret).
 *
 * Every function below that changes the state is only reached from apply()
 * with a move that moves() generated, so they assume legality.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"
#include "util/text.h"

#define LOGF(log, ...) do { if (log) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

/* ---- small helpers ---- */

static int me(const struct fortuna_state *s)
{
	return s->order[s->turn];
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static const char *coins(enum locale loc, int n)
{
	return n == 1 ? L(loc, "coin", "moneda") : L(loc, "coins", "monedas");
}

_Static_assert(FP_STEP == 5 && FP_WATER_ANY == 0, "priv_moves reads kinds 0..5");

int fortuna_water(const struct fortuna_state *s, int seat)
{
	return s->p[seat].water + s->p[seat].aq_water;
}

int fortuna_find_card(const struct fortuna_state *s, int card, int *slot)
{
	int t, u;

	for (t = 0; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (s->side_card[t][u] == card) {
				if (slot)
					*slot = u;
				return t;
			}
	return -1;
}

/* Position in turn order of the seat making draft pick k: the last seat
 * first, then backwards to the first seat; the third time round the first
 * seat, which began with the Fortuna card, is left out. */
static int draft_pos(int k, int n)
{
	if (k < 2 * n)
		return n - 1 - k % n;
	return n - 1 - (k - 2 * n);
}

static inline int decider_of(const struct fortuna_state *s)
{
	if (s->step > FS_HIDE && s->step != FS_OVER)	/* the usual case */
		return me(s);
	switch (s->step) {
	case FS_OVER:
		return -1;
	case FS_DRAFT:
		return s->order[draft_pos(s->setup_k, s->nplayers)];
	case FS_HIDE:
		return s->order[s->setup_k];
	default:
		return me(s);
	}
}

int fortuna_decider(const struct fortuna_state *s)
{
	return decider_of(s);
}

static void add_money(struct fortuna_state *s, int seat, int n)
{
	int m = s->p[seat].money + n;

	/* "Un jugador no puede tener más de 20 monedas": the excess is lost. */
	s->p[seat].money = (uint8_t)(m > FORTUNA_MONEY_MAX ? FORTUNA_MONEY_MAX : m);
}

/* Takes up to n units from a supply; returns how many were given. */
static int take(uint8_t *have, uint8_t *supply, int n)
{
	n = min_int(n, *supply);
	*have = (uint8_t)(*have + n);
	*supply = (uint8_t)(*supply - n);
	return n;
}

static int gain_resource(struct fortuna_state *s, int seat, int r, int n)
{
	struct fortuna_player *p = &s->p[seat];

	switch (r) {
	case FR_WATER:
		return take(&p->water, &s->sup_water, n);
	case FR_GRAIN:
		return take(&p->grain, &s->sup_grain, n);
	default:
		return take(&p->wine, &s->sup_wine, n);
	}
}

/* Water is paid from the Acueducto first: keeping it empty refills it. */
static void spend_water(struct fortuna_state *s, int seat, int n)
{
	struct fortuna_player *p = &s->p[seat];
	int a = min_int(n, p->aq_water);

	p->aq_water = (uint8_t)(p->aq_water - a);
	p->water = (uint8_t)(p->water - (n - a));
	s->sup_water = (uint8_t)(s->sup_water + n);
}

static void advance(struct fortuna_state *s, int seat, int n, struct game_log *log)
{
	struct fortuna_player *p = &s->p[seat];
	int to = min_int(p->steps + n, FORTUNA_PALACE);

	if (to == p->steps)
		return;
	p->steps = (uint8_t)to;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s advances to step %d.", "%s avanza a la casilla %d."),
	     NAME(log, seat), to);
	if (to == FORTUNA_PALACE && !p->arrival) {
		p->arrival = ++s->narrived;
		s->ending = 1;
		s->palace_due = 1;
		LOGF(log, LOG_PUBLIC,
		     L(LOC(log), "%s reaches Caesar's Palace (arrival %d): this is the last round.",
		       "%s llega al Palacio del César (llegada %d): es la última ronda."),
		     NAME(log, seat), p->arrival);
	}
}

static int has_building(const struct fortuna_state *s, int seat, int b)
{
	return (s->p[seat].buildings >> b) & 1;
}

static int building_count(const struct fortuna_state *s, int seat)
{
	int b, n = 0;

	for (b = 0; b < FB_COUNT; b++)
		n += has_building(s, seat, b);
	return n;
}

/* Coins the next k Centuriones (or Sacerdotisas) cost from `have`. */
static int recruit_cost(int have, int k)
{
	int i, c = 0;

	for (i = have + 1; i <= have + k; i++)
		c += i;
	return c;
}

static int priestess_cost(int have, int k)
{
	int i, c = 0;

	for (i = have + 1; i <= have + k; i++)
		c += 2 * i - 1;
	return c;
}

static int can_build(const struct fortuna_state *s, int seat, int b)
{
	const struct fortuna_player *p = &s->p[seat];

	return !has_building(s, seat, b) && building_count(s, seat) < 3 &&
	       s->bld_left[b] > 0 && p->money >= fortuna_building_cost[b] &&
	       (b != FB_PALACE || p->married);
}

/* ---- privilege deck ---- */

static int draw_priv(struct fortuna_state *s)
{
	int k, c;

	if (s->ndeck == 0) {
		/* "Cuando el mazo ... se agota, se barajan las cartas descartadas". */
		for (k = 0; k < FP_COUNT; k++)
			for (c = 0; c < s->discard[k]; c++)
				s->deck[s->ndeck++] = (uint8_t)k;
		memset(s->discard, 0, sizeof(s->discard));
		rng_shuffle(&s->rng, s->deck, s->ndeck, 1);
	}
	if (s->ndeck == 0)
		return -1;
	k = s->deck[--s->ndeck];
	s->deck[s->ndeck] = 0;	/* unused entries stay 0: states compare bytewise */
	return k;
}

static void log_drawn(struct fortuna_state *s, int seat, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	if (!log)
		return;
	for (i = 0; i < s->ndrawn; i++)
		buf_printf(&b, "%s%s", i ? ", " : "",
			   fortuna_privs[s->drawn[i]].name[log->loc]);
	game_logf(log, seat, L(log->loc, "You get: %s.", "Recibes: %s."), buf_str(&b));
	buf_release(&b);
}

/* ---- turn flow ---- */

static void start_turn(struct fortuna_state *s, struct game_log *log);
static void palace_draw(struct fortuna_state *s, struct game_log *log);

/* A type A card, or a type B card while none was played this turn. */
static int priv_playable(const struct fortuna_state *s, int seat)
{
	const uint8_t *hand = s->p[seat].hand;
	int k;

	for (k = 0; k <= FP_STEP; k++)
		if (hand[k] && (fortuna_privs[k].type == FPT_A || !s->b_played))
			return 1;
	return 0;
}

/* Resets what belongs to one turn. */
static void clear_turn(struct fortuna_state *s)
{
	s->chosen = s->act_card = 0;
	s->act_via = FV_PHASE2;
	s->corrupted = s->b_played = s->palace_due = 0;
	s->rolled = s->nroll = s->die = 0;
	memset(s->roll, 0, sizeof(s->roll));
	s->token_turn = 0;
	s->res_ret = FS_CHOOSE;
}

static void end_round(struct fortuna_state *s, struct game_log *log)
{
	int n = s->nplayers, prev = s->order[0], first = -1, side, c, i, j;
	uint8_t rest[FORTUNA_MAX_PLAYERS];
	int nrest = 0;

	if (s->ending || s->round >= FORTUNA_ROUND_CAP) {
		s->step = FS_OVER;
		s->turn = 0;
		clear_turn(s);
		LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "The game is over.", "La partida ha terminado."));
		return;
	}
	/* One token on every unused favour card, at most 3 a card, while the
	 * reserve lasts (cards in order 1..6). */
	for (c = 0; c < FF_COUNT; c++) {
		if (s->fav_up[c] && s->fav_tokens[c] < FORTUNA_TOKEN_CAP && s->token_reserve > 0) {
			s->fav_tokens[c]++;
			s->token_reserve--;
		}
		s->fav_up[c] = 1;
	}
	/* The Fortuna action card's holder leads; on an empty side it leads
	 * nobody, and the richest seat leads instead (docs: rulings). */
	side = fortuna_find_card(s, FA_FORTUNA, NULL);
	if (side >= 0 && side < n) {
		first = side;
	} else {
		for (i = 0; i < n; i++) {
			int seat = (prev + i) % n;

			if (first < 0 || s->p[seat].money > s->p[first].money)
				first = seat;
		}
	}
	/* Then by money, ties to the seat closer clockwise to the first. */
	for (i = 1; i < n; i++)
		rest[nrest++] = (uint8_t)((first + i) % n);
	for (i = 1; i < nrest; i++)
		for (j = i; j > 0 && s->p[rest[j]].money > s->p[rest[j - 1]].money; j--) {
			uint8_t t = rest[j];

			rest[j] = rest[j - 1];
			rest[j - 1] = t;
		}
	s->order[0] = (uint8_t)first;
	memcpy(s->order + 1, rest, (size_t)nrest);
	s->round++;
	s->turn = 0;
	if (log) {
		struct buf b = BUF_INIT;

		for (i = 0; i < n; i++)
			buf_printf(&b, "%s%d. %s", i ? ", " : "", i + 1, NAME(log, s->order[i]));
		game_logf(log, LOG_PUBLIC, L(log->loc, "Round %d. Turn order: %s.",
					     "Ronda %d. Orden de turno: %s."),
			  s->round, buf_str(&b));
		buf_release(&b);
	}
	start_turn(s, log);
}

static void end_turn(struct fortuna_state *s, struct game_log *log)
{
	if (++s->turn >= s->nplayers) {
		end_round(s, log);
		return;
	}
	start_turn(s, log);
}

static void start_turn(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), u;
	struct fortuna_player *p = &s->p[seat];

	clear_turn(s);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s's turn.", "Turno de %s."), NAME(log, seat));
	/* Phase 1: an Acueducto built in an earlier round refills when empty. */
	if (has_building(s, seat, FB_AQUEDUCT) && p->aq_round < s->round &&
	    p->aq_water == 0 && take(&p->aq_water, &s->sup_water, 1))
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s's Aqueduct fills with water.",
					"El Acueducto de %s se llena de agua."), NAME(log, seat));
	/* Phase 2 begins: the reserved card turns face up. */
	for (u = 0; u < FORTUNA_SLOTS; u++)
		s->side_down[seat][u] = 0;
	s->step = FS_CHOOSE;
}

static void finish_keep(struct fortuna_state *s, struct game_log *log)
{
	int i, seat = me(s), src = s->keep_src;

	for (i = 0; i < s->ndrawn; i++) {
		if (src == FK_FAVOUR)
			s->discard[s->drawn[i]]++;
		else
			s->palace_cards[s->npalace++] = s->drawn[i];
	}
	if (src == FK_FAVOUR && s->ndrawn)
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s discards %d privilege card(s) face up.",
					"%s descarta %d carta(s) de privilegio boca arriba."),
		     NAME(log, seat), s->ndrawn);
	s->ndrawn = 0;
	memset(s->drawn, 0, sizeof(s->drawn));
	s->keep_left = 0;
	if (s->palace_due) {
		palace_draw(s, log);
		return;
	}
	/* Type A/B cards may be played at any moment of the owner's turn, so
	 * one just kept may still be played before the turn ends (FS_END). */
	if (priv_playable(s, seat)) {
		s->step = FS_END;
		return;
	}
	end_turn(s, log);
}

static void keep_card(struct fortuna_state *s, int idx)
{
	s->p[me(s)].hand[s->drawn[idx]]++;
	s->drawn[idx] = s->drawn[--s->ndrawn];
	s->drawn[s->ndrawn] = 0;
	s->keep_left--;
}

/* Keeps automatically while there is no choice, else asks FS_KEEP. */
static void resolve_keep(struct fortuna_state *s, struct game_log *log)
{
	int i, same = 1;

	for (i = 1; i < s->ndrawn; i++)
		if (s->drawn[i] != s->drawn[0])
			same = 0;
	while (s->keep_left > 0 && s->ndrawn > 0 && (s->ndrawn <= s->keep_left || same))
		keep_card(s, 0);
	if (s->keep_left > 0 && s->ndrawn > 0) {
		s->step = FS_KEEP;
		return;
	}
	finish_keep(s, log);
}

static void draw_cards(struct fortuna_state *s, int n)
{
	int k;

	s->ndrawn = 0;
	while (s->ndrawn < n && (k = draw_priv(s)) >= 0)
		s->drawn[s->ndrawn++] = (uint8_t)k;
}

/* The extra privilege of reaching the Palace, at the end of the turn of
 * arrival: the first takes the 3 Palace tokens and the 3 top cards, keeps
 * one and leaves the others face down; each later arrival picks one of
 * those left (Basílica does not apply). */
static void palace_draw(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), i;

	if (!s->palace_due) {
		end_turn(s, log);
		return;
	}
	s->palace_due = 0;
	s->keep_left = 1;
	if (s->p[seat].arrival == 1) {
		s->token_reserve = (uint8_t)(s->token_reserve + s->token_palace);
		s->token_palace = 0;
		draw_cards(s, 3);
		s->keep_src = FK_PALACE_FIRST;
	} else {
		s->ndrawn = 0;
		for (i = 0; i < s->npalace; i++)
			s->drawn[s->ndrawn++] = s->palace_cards[i];
		s->npalace = 0;
		memset(s->palace_cards, 0, sizeof(s->palace_cards));
		s->keep_src = FK_PALACE_LATER;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s takes %d privilege card(s) at the Palace and keeps one.",
				"%s toma %d carta(s) de privilegio en el Palacio y se queda una."),
	     NAME(log, seat), s->ndrawn);
	log_drawn(s, seat, log);
	resolve_keep(s, log);
}

/* Phase 5: the tokens won this turn become privilege cards. */
static void phase5(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), t = s->token_turn;

	if (t == 0) {
		palace_draw(s, log);
		return;
	}
	s->token_reserve = (uint8_t)(s->token_reserve + t);
	s->token_turn = 0;
	draw_cards(s, t);
	s->keep_left = (uint8_t)(t >= 2 && has_building(s, seat, FB_BASILICA) ? 2 : 1);
	s->keep_src = FK_FAVOUR;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s turns %d token(s) into %d privilege card(s).",
				"%s cambia %d ficha(s) por %d carta(s) de privilegio."),
	     NAME(log, seat), t, s->ndrawn);
	if (s->ndrawn)
		log_drawn(s, seat, log);
	resolve_keep(s, log);
}

static int flip_possible(const struct fortuna_state *s)
{
	int c;

	for (c = 0; c < FF_COUNT; c++)
		if (s->fav_up[c] && s->fav_tokens[c] == 0)
			return 1;
	return 0;
}

static void after_phase4(struct fortuna_state *s, struct game_log *log)
{
	/* 2 players: the first player only may flip one more card. */
	if (s->nplayers == 2 && s->turn == 0 && flip_possible(s)) {
		s->step = FS_FLIP;
		return;
	}
	phase5(s, log);
}

static int favour_available(const struct fortuna_state *s)
{
	int c;

	for (c = 0; c < s->die && c < FF_COUNT; c++)
		if (s->fav_up[c])
			return 1;
	return 0;
}

static void roll_dice(struct fortuna_state *s, struct game_log *log)
{
	int seat = me(s), i, before = s->nroll;

	/* Dice gained after a Familia roll are rolled now: each die once. */
	while (s->nroll < s->p[seat].dice && s->nroll < 3)
		s->roll[s->nroll++] = (uint8_t)(1 + rng_below(&s->rng, 6));
	s->rolled = 1;
	if (before == s->nroll && before > 0)
		return;		/* the Familia roll stands, already shown */
	s->last_seat = (uint8_t)seat;
	s->last_nroll = s->nroll;
	memcpy(s->last_roll, s->roll, sizeof(s->roll));
	s->last_die = 0;
	if (log) {
		struct buf b = BUF_INIT;

		for (i = 0; i < s->nroll; i++)
			buf_printf(&b, "%s%d", i ? " " : "", s->roll[i]);
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s rolls %s.", "%s lanza %s."),
			  NAME(log, seat), buf_str(&b));
		buf_release(&b);
	}
}

static void start_phase4(struct fortuna_state *s, struct game_log *log)
{
	roll_dice(s, log);
	s->step = FS_DIE;
}

static void after_exchange(struct fortuna_state *s, struct game_log *log)
{
	const struct fortuna_player *p = &s->p[me(s)];

	/* Phase 3 is asked when it is possible, or could become possible by
	 * playing a Centurión privilege card first. */
	if (p->cent > 0 || p->hand[FP_CENTURION] > 0)
		s->step = FS_MILITARY;
	else
		start_phase4(s, log);
}

static void after_action(struct fortuna_state *s, struct game_log *log)
{
	s->corrupted = 0;
	if (s->act_via == FV_PHASE2) {
		s->step = FS_EXCHANGE;
		return;
	}
	start_phase4(s, log);
}

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
		if (fortuna_find_card(s, c, NULL) < 0)
			cards[n++] = (uint8_t)c;
	rng_shuffle(&s->rng, cards, (uint32_t)n, 1);
	for (t = s->nplayers; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (k < n)
				s->side_card[t][u] = cards[k++];
	s->setup_k = 0;
	s->step = FS_HIDE;
}

/* ---- moves ---- */

static void add(struct move_list *out, int kind, int a, int b)
{
	if (out->n >= MOVE_LIST_MAX)
		return;
	out->v[out->n].kind = (uint16_t)kind;
	out->v[out->n].a = (uint16_t)a;
	out->v[out->n].b = (uint16_t)b;
	out->v[out->n].c = 0;
	out->n++;
}

/*
 * Appends the move when cond holds, without a branch: random playouts make
 * these conditions unpredictable.  Only for the short fixed loops of
 * fortuna_moves, whose lists stay far below MOVE_LIST_MAX.
 */
_Static_assert(MOVE_LIST_MAX >= 32, "fortuna_moves lists are short");

static inline void put(struct move_list *out, int cond, int kind, int a)
{
	struct move *v = &out->v[out->n];

	v->kind = (uint16_t)kind;
	v->a = (uint16_t)a;
	v->b = 0;
	v->c = 0;
	out->n += cond != 0;
}

static int in_turn(int step)
{
	return step >= FS_CHOOSE && step <= FS_END;
}

static void priv_moves(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const uint8_t *hand = s->p[seat].hand;
	int k;

	/* Kinds 0..FP_STEP are the playable types A and B (cards.c); most of
	 * the time none is held (a hot path). */
	if (!(hand[0] | hand[1] | hand[2] | hand[3] | hand[4] | hand[5]))
		return;
	for (k = 0; k <= FP_STEP; k++) {
		if (!hand[k])
			continue;
		if (fortuna_privs[k].type == FPT_A ||
		    (fortuna_privs[k].type == FPT_B && !s->b_played))
			add(out, FM_PRIV, k, 0);
	}
}

static void action_moves(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const struct fortuna_player *p = &s->p[seat];
	int n, w, t, u, b;

	switch (s->act_card) {
	case FA_WATER:
		add(out, FM_COLLECT, 0, 0);
		break;
	case FA_GRAIN:
	case FA_WINE: {
		int base = s->act_card == FA_GRAIN ? 2 : 1;
		int sup = s->act_card == FA_GRAIN ? s->sup_grain : s->sup_wine;
		/* Water beyond what the supply can answer would be wasted. */
		int maxw = min_int(fortuna_water(s, seat), sup > base ? sup - base : 0);

		for (w = 0; w <= maxw; w++)
			add(out, FM_HARVEST, w, 0);
		break;
	}
	case FA_SELL_GRAIN:
		for (n = 1; n <= p->grain; n++)
			add(out, FM_SELL, n, 0);
		break;
	case FA_SELL_WINE:
		for (n = 1; n <= p->wine; n++)
			add(out, FM_SELL, n, 0);
		break;
	case FA_CENTURIONS:
		for (n = 1; p->cent + n <= 3 && n <= s->sup_cent &&
			    recruit_cost(p->cent, n) <= p->money; n++)
			add(out, FM_RECRUIT, n, 0);
		break;
	case FA_PRIESTESSES:
		for (n = 1; p->priest + n <= 3 && n <= s->sup_priest &&
			    priestess_cost(p->priest, n) <= p->money; n++)
			add(out, FM_PRIESTESS, n, 0);
		break;
	case FA_CLERGY:
		if (p->priest > 0 && p->dice < 3 && s->sup_dice > 0)
			add(out, FM_CLERGY, 0, 0);
		break;
	case FA_FAMILY:
		if (!p->married) {
			if (p->money >= 3)
				add(out, FM_MARRY, 0, 0);
			break;
		}
		if (!s->rolled)
			add(out, FM_ROLL, 0, 0);
		if (s->sup_grain)
			add(out, FM_TAKE, FR_GRAIN, 0);
		if (s->sup_wine)
			add(out, FM_TAKE, FR_WINE, 0);
		add(out, FM_TAKE, FM_TAKE_COINS, 0);
		break;
	case FA_BUILD:
		for (b = 0; b < FB_COUNT; b++)
			if (can_build(s, seat, b))
				add(out, FM_BUILD, b, 0);
		break;
	case FA_CORRUPTION:
		/* Any card of another side, face up or down, but not the Fortuna
		 * card, whose action needs the card itself (docs: rulings). */
		if (p->money >= 1)
			for (t = 0; t < FORTUNA_SIDES; t++)
				for (u = 0; u < FORTUNA_SLOTS; u++)
					if (t != seat && s->side_card[t][u] < FA_COUNT &&
					    s->side_card[t][u] != FA_FORTUNA)
						add(out, FM_CORRUPT, s->side_card[t][u], 0);
		add(out, FM_COINS, 0, 0);
		break;
	case FA_FORTUNA:
		add(out, FM_ADVANCE, 0, 0);
		break;
	}
	add(out, FM_SKIP, 0, 0);
}

static void favour_moves(const struct fortuna_state *s, int seat, struct move_list *out)
{
	const struct fortuna_player *p = &s->p[seat];
	/* More units than steps left to the Palace would be wasted. */
	int lim = FORTUNA_PALACE - p->steps > 1 ? FORTUNA_PALACE - p->steps : 1;
	int c, n, free_step = 0;

	for (c = 0; c < s->die && c < FF_COUNT; c++) {
		if (!s->fav_up[c])
			continue;
		switch (c) {
		case FF_WATER:
			if (fortuna_water(s, seat) >= 1)
				add(out, FM_DELIVER, c, 1);
			break;
		case FF_WINE:
			for (n = 1; n <= min_int(min_int(2, p->wine), lim); n++)
				add(out, FM_DELIVER, c, n);
			break;
		case FF_GRAIN:
			for (n = 1; n <= min_int(min_int(2, p->grain), lim); n++)
				add(out, FM_DELIVER, c, n);
			break;
		case FF_BATTLE:
			for (n = 1; n <= min_int(p->cent, lim); n++)
				add(out, FM_DELIVER, c, n);
			break;
		case FF_FORTUNA:
			if (p->married) {
				add(out, FM_FAVOUR, c, 0);
				free_step = 1;
			}
			break;
		case FF_RELIGION:
			if (p->priest > 0) {
				add(out, FM_FAVOUR, c, 0);
				free_step = 1;
			}
			break;
		}
	}
	/* Delivering for cards 1-4 is voluntary; 5 and 6 ask for nothing, so
	 * a seat that can advance with them does not refuse the Emperor. */
	if (!free_step)
		add(out, FM_TAX, 0, 0);
}

int fortuna_moves(const void *st, int seat, struct move_list *out)
{
	const struct fortuna_state *s = st;
	int c, t, u, k, i, v;
	int step = s->step;

	out->n = 0;
	out->nmeta = 0;
	if (seat < 0 || seat >= s->nplayers || decider_of(s) != seat)
		return 0;
	switch (step) {
	case FS_DRAFT:
		for (c = 0; c < FA_COUNT; c++)
			if (fortuna_find_card(s, c, NULL) < 0)
				add(out, FM_DRAFT, c, 0);
		break;
	case FS_HIDE:
		for (u = 0; u < FORTUNA_SLOTS; u++)
			add(out, FM_HIDE, s->side_card[seat][u], 0);
		break;
	case FS_CHOOSE:
		for (u = 0; u < FORTUNA_SLOTS; u++)
			put(out, !s->side_down[seat][u], FM_CARD, s->side_card[seat][u]);
		break;
	case FS_ACTION:
		action_moves(s, seat, out);
		break;
	case FS_EXCHANGE:
		for (t = 0; t < FORTUNA_SIDES; t++)
			for (u = 0; u < FORTUNA_SLOTS; u++)
				put(out, (t != seat) & !s->side_down[t][u], FM_EXCHANGE,
				    s->side_card[t][u]);
		break;
	case FS_MILITARY:
		if (s->p[seat].cent > 0)
			for (u = 0; u < FORTUNA_SLOTS; u++)
				if (!s->side_down[seat][u])
					add(out, FM_MILITARY, s->side_card[seat][u], 0);
		add(out, FM_SKIP, 0, 0);
		break;
	case FS_DIE: {
		/* each value rolled once, in increasing order */
		unsigned rolled = 0;

		for (i = 0; i < s->nroll; i++)
			rolled |= s->roll[i] <= 6 ? 1u << s->roll[i] : 0;
		for (v = 1; v <= 6; v++)
			put(out, (rolled >> v) & 1, FM_DIE, v);
		break;
	}
	case FS_FAVOUR:
		favour_moves(s, seat, out);
		break;
	case FS_FLIP:
		for (c = 0; c < FF_COUNT; c++)
			if (s->fav_up[c] && s->fav_tokens[c] == 0)
				add(out, FM_FLIP, c, 0);
		add(out, FM_SKIP, 0, 0);
		break;
	case FS_KEEP:
		for (k = 0; k < FP_COUNT; k++)
			for (i = 0; i < s->ndrawn; i++)
				if (s->drawn[i] == k) {
					add(out, FM_KEEP, k, 0);
					break;
				}
		break;
	case FS_END:
		add(out, FM_SKIP, 0, 0);
		break;
	case FS_RESOURCE:
		for (c = 0; c < FR_COUNT; c++)
			add(out, FM_CHOOSE, c, 0);
		break;
	}
	if (in_turn(step))
		priv_moves(s, seat, out);
	return out->n;
}

unsigned fortuna_awaiting(const void *st)
{
	int seat = decider_of(st);

	return seat < 0 ? 0u : 1u << seat;
}

/* ---- apply ---- */

static void exec_action(struct fortuna_state *s, struct move m, struct game_log *log)
{
	int seat = me(s);
	struct fortuna_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int n, t, price;

	switch (m.kind) {
	case FM_COLLECT:
		n = take(&p->water, &s->sup_water, 2);
		LOGF(log, LOG_PUBLIC, L(loc, "%s collects %d water.", "%s recoge %d agua."),
		     NAME(log, seat), n);
		break;
	case FM_HARVEST: {
		int grain = s->act_card == FA_GRAIN;

		spend_water(s, seat, m.a);
		n = gain_resource(s, seat, grain ? FR_GRAIN : FR_WINE, (grain ? 2 : 1) + m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s harvests %d %s (%d water delivered).",
					"%s cosecha %d de %s (%d agua entregada)."),
		     NAME(log, seat), n, fortuna_resources[grain ? FR_GRAIN : FR_WINE].name[loc], m.a);
		break;
	}
	case FM_SELL: {
		int grain = s->act_card == FA_SELL_GRAIN;

		price = (grain ? 2 : 3) + has_building(s, seat, FB_MARKET);
		if (grain) {
			p->grain = (uint8_t)(p->grain - m.a);
			s->sup_grain = (uint8_t)(s->sup_grain + m.a);
		} else {
			p->wine = (uint8_t)(p->wine - m.a);
			s->sup_wine = (uint8_t)(s->sup_wine + m.a);
		}
		add_money(s, seat, m.a * price);
		LOGF(log, LOG_PUBLIC, L(loc, "%s sells %d %s for %d coins.",
					"%s vende %d de %s por %d monedas."),
		     NAME(log, seat), m.a, fortuna_resources[grain ? FR_GRAIN : FR_WINE].name[loc],
		     m.a * price);
		break;
	}
	case FM_RECRUIT:
		price = recruit_cost(p->cent, m.a);
		p->money = (uint8_t)(p->money - price);
		take(&p->cent, &s->sup_cent, m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s recruits %d %s for %d %s.",
					"%s recluta %d %s por %d %s."),
		     NAME(log, seat), m.a, m.a == 1 ? L(loc, "Centurion", "Centurión")
						    : L(loc, "Centurions", "Centuriones"),
		     price, coins(loc, price));
		break;
	case FM_PRIESTESS:
		price = priestess_cost(p->priest, m.a);
		p->money = (uint8_t)(p->money - price);
		take(&p->priest, &s->sup_priest, m.a);
		LOGF(log, LOG_PUBLIC, L(loc, "%s obtains %d %s for %d %s.",
					"%s obtiene %d %s por %d %s."),
		     NAME(log, seat), m.a, m.a == 1 ? L(loc, "Priestess", "Sacerdotisa")
						    : L(loc, "Priestesses", "Sacerdotisas"),
		     price, coins(loc, price));
		break;
	case FM_CLERGY:
		p->priest--;
		s->sup_priest++;
		take(&p->dice, &s->sup_dice, 1);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gives a Priestess for a die (%d dice).",
					"%s entrega una Sacerdotisa por un dado (%d dados)."),
		     NAME(log, seat), p->dice);
		break;
	case FM_MARRY:
		p->money = (uint8_t)(p->money - 3);
		p->married = 1;
		LOGF(log, LOG_PUBLIC, L(loc, "%s marries.", "%s se casa."), NAME(log, seat));
		break;
	case FM_TAKE:
		if (m.a == FM_TAKE_COINS) {
			add_money(s, seat, 3);
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes 3 coins.", "%s toma 3 monedas."),
			     NAME(log, seat));
		} else {
			gain_resource(s, seat, m.a, 1);
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes 1 %s.", "%s toma 1 de %s."),
			     NAME(log, seat), fortuna_resources[m.a].name[loc]);
		}
		break;
	case FM_BUILD:
		p->money = (uint8_t)(p->money - fortuna_building_cost[m.a]);
		p->buildings |= (uint8_t)(1u << m.a);
		s->bld_left[m.a]--;
		if (m.a == FB_AQUEDUCT)
			p->aq_round = s->round;
		LOGF(log, LOG_PUBLIC, L(loc, "%s builds: %s.", "%s construye: %s."),
		     NAME(log, seat), fortuna_buildings[m.a].name[loc]);
		break;
	case FM_COINS:
		add_money(s, seat, 2);
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes 2 coins from Corruption.",
					"%s toma 2 monedas de la Corrupción."), NAME(log, seat));
		break;
	case FM_ADVANCE:
		LOGF(log, LOG_PUBLIC, L(loc, "%s uses the Fortuna card.", "%s usa la Carta Fortuna."),
		     NAME(log, seat));
		advance(s, seat, 1, log);
		break;
	case FM_SKIP:
		LOGF(log, LOG_PUBLIC, L(loc, "%s does not use the action.", "%s no usa la acción."),
		     NAME(log, seat));
		break;
	case FM_CORRUPT:
		t = fortuna_find_card(s, m.a, NULL);
		p->money--;
		if (t >= 0 && t < s->nplayers)
			add_money(s, t, 1);
		s->act_card = (uint8_t)m.a;
		s->corrupted = 1;
		if (log) {
			if (t >= 0 && t < s->nplayers)
				game_logf(log, LOG_PUBLIC,
					  L(loc, "%s uses a card of %s's side through Corruption and pays them 1 coin.",
					    "%s usa una carta del lado de %s mediante la Corrupción y le paga 1 moneda."),
					  NAME(log, seat), NAME(log, t));
			else
				game_logf(log, LOG_PUBLIC,
					  L(loc, "%s uses a card of side %d through Corruption and pays 1 coin to the bank.",
					    "%s usa una carta del lado %d mediante la Corrupción y paga 1 moneda a la banca."),
					  NAME(log, seat), t + 1);
		}
		return;	/* FS_ACTION goes on with the card used */
	}
	if (m.kind == FM_ROLL)
		return;
	after_action(s, log);
}

static void play_priv(struct fortuna_state *s, int k, struct game_log *log)
{
	int seat = me(s);
	struct fortuna_player *p = &s->p[seat];

	p->hand[k]--;
	s->discard[k]++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s plays the privilege card %s.",
				"%s juega la carta de privilegio %s."),
	     NAME(log, seat), fortuna_privs[k].name[LOC(log)]);
	switch (k) {
	case FP_WATER_ANY:
	case FP_GRAIN_ANY:
	case FP_WINE_ANY:
		gain_resource(s, seat, k - FP_WATER_ANY, 1);
		s->res_ret = s->step;
		s->step = FS_RESOURCE;
		break;
	case FP_PRIESTESS:
		if (p->priest < 3)
			take(&p->priest, &s->sup_priest, 1);
		break;
	case FP_CENTURION:
		if (p->cent < 3)
			take(&p->cent, &s->sup_cent, 1);
		break;
	case FP_STEP:
		s->b_played = 1;
		advance(s, seat, 1, log);
		break;
	}
}

static void deliver(struct fortuna_state *s, int c, int n, struct game_log *log)
{
	int seat = me(s), adv = n, before;
	struct fortuna_player *p = &s->p[seat];

	switch (c) {
	case FF_WATER:
		spend_water(s, seat, 1);
		adv = 1;
		break;
	case FF_WINE:
		p->wine = (uint8_t)(p->wine - n);
		s->sup_wine = (uint8_t)(s->sup_wine + n);
		break;
	case FF_GRAIN:
		p->grain = (uint8_t)(p->grain - n);
		s->sup_grain = (uint8_t)(s->sup_grain + n);
		break;
	case FF_BATTLE:
		p->cent = (uint8_t)(p->cent - n);
		s->sup_cent = (uint8_t)(s->sup_cent + n);
		break;
	case FF_FORTUNA:
		adv = 1 + has_building(s, seat, FB_PALACE);
		break;
	case FF_RELIGION:
		adv = p->priest;
		break;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s gains the favour %d %s.", "%s obtiene el favor %d %s."),
	     NAME(log, seat), c + 1, fortuna_favours[c].name[LOC(log)]);
	before = p->steps;
	advance(s, seat, adv, log);
	/* "Sólo si un jugador ha avanzado hacia Roma debe voltear la carta":
	 * a seat already on the Palace satisfies the Emperor (no tax) but
	 * moves no step, so the card stays face up with its tokens. */
	if (p->steps == before) {
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot advance further: the favour card stays face up.",
					"%s no puede avanzar más: la carta de favor sigue boca arriba."),
		     NAME(log, seat));
		after_phase4(s, log);
		return;
	}
	/* The card used turns face down; its tokens go to the seat. */
	s->fav_up[c] = 0;
	s->token_turn = (uint8_t)(s->token_turn + s->fav_tokens[c]);
	if (s->fav_tokens[c])
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s wins %d privilege token(s).",
					"%s gana %d ficha(s) de privilegio."),
		     NAME(log, seat), s->fav_tokens[c]);
	s->fav_tokens[c] = 0;
	after_phase4(s, log);
}

static void pay_tax(struct fortuna_state *s, struct game_log *log)
{
	struct fortuna_player *p = &s->p[me(s)];

	if (p->money > 0) {
		p->money--;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s pays 1 coin of taxes.",
					"%s paga 1 moneda de impuestos."), NAME(log, me(s)));
	} else if (p->steps > 0) {
		p->steps--;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot pay the taxes and steps back to %d.",
					"%s no puede pagar impuestos y retrocede a la casilla %d."),
		     NAME(log, me(s)), p->steps);
	}
	after_phase4(s, log);
}

static void do_move(struct fortuna_state *s, int seat, struct move m, struct game_log *log)
{
	enum locale loc = LOC(log);
	int t, u = 0, i, slot = 0;

	switch (m.kind) {
	case FM_DRAFT:
		for (u = 0; u < FORTUNA_SLOTS; u++)
			if (s->side_card[seat][u] == FORTUNA_NO_CARD) {
				s->side_card[seat][u] = (uint8_t)m.a;
				break;
			}
		LOGF(log, LOG_PUBLIC, L(loc, "%s drafts %s.", "%s elige %s."), NAME(log, seat),
		     fortuna_actions[m.a].name[loc]);
		if (++s->setup_k >= 3 * s->nplayers - 1)
			finish_draft(s);
		return;
	case FM_HIDE:
		fortuna_find_card(s, m.a, &slot);
		s->side_down[seat][slot] = 1;
		LOGF(log, LOG_PUBLIC, L(loc, "%s turns a card face down.", "%s pone una carta boca abajo."),
		     NAME(log, seat));
		LOGF(log, seat, L(loc, "You reserve %s.", "Reservas %s."), fortuna_actions[m.a].name[loc]);
		if (++s->setup_k >= s->nplayers) {
			s->setup_k = 0;
			s->turn = 0;
			LOGF(log, LOG_PUBLIC, L(loc, "Round 1 begins.", "Empieza la ronda 1."));
			start_turn(s, log);
		}
		return;
	case FM_PRIV:
		play_priv(s, m.a, log);
		return;
	case FM_CHOOSE:
		gain_resource(s, seat, m.a, 1);
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes 1 %s.", "%s toma 1 de %s."), NAME(log, seat),
		     fortuna_resources[m.a].name[loc]);
		s->step = s->res_ret;
		return;
	}

	switch (s->step) {
	case FS_CHOOSE:
		s->chosen = s->act_card = (uint8_t)m.a;
		s->act_via = FV_PHASE2;
		s->corrupted = 0;
		s->step = FS_ACTION;
		LOGF(log, LOG_PUBLIC, L(loc, "%s plays %s.", "%s juega %s."), NAME(log, seat),
		     fortuna_actions[m.a].name[loc]);
		return;
	case FS_ACTION:
		if (m.kind == FM_ROLL) {
			roll_dice(s, log);
			return;
		}
		exec_action(s, m, log);
		return;
	case FS_EXCHANGE:
		fortuna_find_card(s, s->chosen, &slot);
		t = fortuna_find_card(s, m.a, &u);
		if (t < 0)
			return;	/* unreachable: m.a was listed, so it lies on a side */
		s->side_card[seat][slot] = (uint8_t)m.a;
		s->side_down[seat][slot] = 1;
		s->side_card[t][u] = s->chosen;
		s->side_down[t][u] = 0;
		if (log) {
			if (t < s->nplayers)
				game_logf(log, LOG_PUBLIC,
					  L(loc, "%s exchanges %s for a card of %s's side, kept face down.",
					    "%s intercambia %s por una carta del lado de %s, que queda boca abajo."),
					  NAME(log, seat), fortuna_actions[s->chosen].name[loc], NAME(log, t));
			else
				game_logf(log, LOG_PUBLIC,
					  L(loc, "%s exchanges %s for a card of side %d, kept face down.",
					    "%s intercambia %s por una carta del lado %d, que queda boca abajo."),
					  NAME(log, seat), fortuna_actions[s->chosen].name[loc], t + 1);
			game_logf(log, seat, L(loc, "You take %s.", "Te quedas %s."),
				  fortuna_actions[m.a].name[loc]);
		}
		after_exchange(s, log);
		return;
	case FS_MILITARY:
		if (m.kind == FM_SKIP) {
			start_phase4(s, log);
			return;
		}
		s->p[seat].cent--;
		s->sup_cent++;
		s->act_card = (uint8_t)m.a;
		s->act_via = FV_MILITARY;
		s->corrupted = 0;
		s->step = FS_ACTION;
		LOGF(log, LOG_PUBLIC, L(loc, "%s gives a Centurion for Military Power: %s.",
					"%s entrega un Centurión por el Poder Militar: %s."),
		     NAME(log, seat), fortuna_actions[m.a].name[loc]);
		return;
	case FS_DIE:
		s->die = (uint8_t)m.a;
		s->last_die = (uint8_t)m.a;
		LOGF(log, LOG_PUBLIC, L(loc, "%s chooses the die %d.", "%s elige el dado %d."),
		     NAME(log, seat), m.a);
		if (favour_available(s)) {
			s->step = FS_FAVOUR;
		} else {
			LOGF(log, LOG_PUBLIC, L(loc, "No favour card is available: no advance, no taxes.",
						"No hay carta de favor disponible: ni avance ni impuestos."));
			after_phase4(s, log);
		}
		return;
	case FS_FAVOUR:
		if (m.kind == FM_TAX)
			pay_tax(s, log);
		else
			deliver(s, m.a, m.b, log);
		return;
	case FS_FLIP:
		if (m.kind == FM_FLIP) {
			s->fav_up[m.a] = 0;
			LOGF(log, LOG_PUBLIC, L(loc, "%s turns the favour card %d face down.",
						"%s voltea la carta de favor %d."), NAME(log, seat), m.a + 1);
		}
		phase5(s, log);
		return;
	case FS_KEEP:
		for (i = 0; i < s->ndrawn; i++)
			if (s->drawn[i] == m.a)
				break;
		keep_card(s, i);
		LOGF(log, seat, L(loc, "You keep %s.", "Te quedas %s."), fortuna_privs[m.a].name[loc]);
		resolve_keep(s, log);
		return;
	case FS_END:
		/* A step played now may have reached the Palace: its draw
		 * closes the turn (palace_draw ends it when none is due). */
		palace_draw(s, log);
		return;
	}
}

/*
 * Legality without listing: m is one of fortuna_moves(s, seat) exactly when
 * these say so, the same answer as building the list and looking m up (what
 * apply() did before; a random playout paid for every list twice).  Each
 * case mirrors the generator it names: change them together.
 */

/* A card of side t, face up (up = 1) or any. */
static int on_side(const struct fortuna_state *s, int t, int card, int up)
{
	int u;

	for (u = 0; u < FORTUNA_SLOTS; u++)
		if (s->side_card[t][u] == card && (!up || !s->side_down[t][u]))
			return 1;
	return 0;
}

/* action_moves */
static int action_legal(const struct fortuna_state *s, int seat, struct move m)
{
	const struct fortuna_player *p = &s->p[seat];
	int n, t;

	if (m.kind == FM_SKIP)
		return !m.a && !m.b;
	if (m.b)
		return 0;
	switch (s->act_card) {
	case FA_WATER:
		return m.kind == FM_COLLECT && !m.a;
	case FA_GRAIN:
	case FA_WINE: {
		int base = s->act_card == FA_GRAIN ? 2 : 1;
		int sup = s->act_card == FA_GRAIN ? s->sup_grain : s->sup_wine;
		int maxw = min_int(fortuna_water(s, seat), sup > base ? sup - base : 0);

		return m.kind == FM_HARVEST && m.a <= maxw;
	}
	case FA_SELL_GRAIN:
		return m.kind == FM_SELL && m.a >= 1 && m.a <= p->grain;
	case FA_SELL_WINE:
		return m.kind == FM_SELL && m.a >= 1 && m.a <= p->wine;
	case FA_CENTURIONS:
		if (m.kind != FM_RECRUIT || m.a < 1 || m.a > 3)
			return 0;
		for (n = 1; n <= m.a; n++)
			if (!(p->cent + n <= 3 && n <= s->sup_cent &&
			      recruit_cost(p->cent, n) <= p->money))
				return 0;
		return 1;
	case FA_PRIESTESSES:
		if (m.kind != FM_PRIESTESS || m.a < 1 || m.a > 3)
			return 0;
		for (n = 1; n <= m.a; n++)
			if (!(p->priest + n <= 3 && n <= s->sup_priest &&
			      priestess_cost(p->priest, n) <= p->money))
				return 0;
		return 1;
	case FA_CLERGY:
		return m.kind == FM_CLERGY && !m.a && p->priest > 0 && p->dice < 3 &&
		       s->sup_dice > 0;
	case FA_FAMILY:
		if (!p->married)
			return m.kind == FM_MARRY && !m.a && p->money >= 3;
		if (m.kind == FM_ROLL)
			return !m.a && !s->rolled;
		return m.kind == FM_TAKE &&
		       ((m.a == FR_GRAIN && s->sup_grain) || (m.a == FR_WINE && s->sup_wine) ||
			m.a == FM_TAKE_COINS);
	case FA_BUILD:
		return m.kind == FM_BUILD && m.a < FB_COUNT && can_build(s, seat, m.a);
	case FA_CORRUPTION:
		if (m.kind == FM_COINS)
			return !m.a;
		if (m.kind != FM_CORRUPT || p->money < 1 || m.a >= FA_COUNT || m.a == FA_FORTUNA)
			return 0;
		for (t = 0; t < FORTUNA_SIDES; t++)
			if (t != seat && on_side(s, t, m.a, 0))
				return 1;
		return 0;
	case FA_FORTUNA:
		return m.kind == FM_ADVANCE && !m.a;
	}
	return 0;
}

/* favour_moves */
static int favour_legal(const struct fortuna_state *s, int seat, struct move m)
{
	const struct fortuna_player *p = &s->p[seat];
	int lim = FORTUNA_PALACE - p->steps > 1 ? FORTUNA_PALACE - p->steps : 1;
	int c, n = m.b;

	if (m.kind == FM_TAX) {
		if (m.a || m.b)
			return 0;
		for (c = 0; c < s->die && c < FF_COUNT; c++)
			if (s->fav_up[c] && ((c == FF_FORTUNA && p->married) ||
					     (c == FF_RELIGION && p->priest > 0)))
				return 0;
		return 1;
	}
	c = m.a;
	if (c >= s->die || c >= FF_COUNT || !s->fav_up[c])
		return 0;
	if (m.kind == FM_FAVOUR)
		return !m.b && ((c == FF_FORTUNA && p->married) ||
				(c == FF_RELIGION && p->priest > 0));
	if (m.kind != FM_DELIVER)
		return 0;
	switch (c) {
	case FF_WATER:
		return n == 1 && fortuna_water(s, seat) >= 1;
	case FF_WINE:
		return n >= 1 && n <= min_int(min_int(2, p->wine), lim);
	case FF_GRAIN:
		return n >= 1 && n <= min_int(min_int(2, p->grain), lim);
	case FF_BATTLE:
		return n >= 1 && n <= min_int(p->cent, lim);
	}
	return 0;
}

static int legal(const struct fortuna_state *s, int seat, struct move m)
{
	int t, i;

	if (seat < 0 || seat >= s->nplayers || decider_of(s) != seat || m.c)
		return 0;
	if (m.kind == FM_PRIV)	/* priv_moves, after the step's moves */
		return in_turn(s->step) && m.a <= FP_STEP && !m.b && s->p[seat].hand[m.a] &&
		       (fortuna_privs[m.a].type == FPT_A ||
			(fortuna_privs[m.a].type == FPT_B && !s->b_played));
	switch (s->step) {
	case FS_DRAFT:
		return m.kind == FM_DRAFT && m.a < FA_COUNT && !m.b &&
		       fortuna_find_card(s, m.a, NULL) < 0;
	case FS_HIDE:
		return m.kind == FM_HIDE && !m.b && on_side(s, seat, m.a, 0);
	case FS_CHOOSE:
		return m.kind == FM_CARD && !m.b && on_side(s, seat, m.a, 1);
	case FS_ACTION:
		return action_legal(s, seat, m);
	case FS_EXCHANGE:
		if (m.kind != FM_EXCHANGE || m.b)
			return 0;
		for (t = 0; t < FORTUNA_SIDES; t++)
			if (t != seat && on_side(s, t, m.a, 1))
				return 1;
		return 0;
	case FS_MILITARY:
		if (m.kind == FM_SKIP)
			return !m.a && !m.b;
		return m.kind == FM_MILITARY && !m.b && s->p[seat].cent > 0 &&
		       on_side(s, seat, m.a, 1);
	case FS_DIE:
		if (m.kind != FM_DIE || m.b || m.a < 1 || m.a > 6)
			return 0;
		for (i = 0; i < s->nroll; i++)
			if (s->roll[i] == m.a)
				return 1;
		return 0;
	case FS_FAVOUR:
		return favour_legal(s, seat, m);
	case FS_FLIP:
		if (m.kind == FM_SKIP)
			return !m.a && !m.b;
		return m.kind == FM_FLIP && !m.b && m.a < FF_COUNT && s->fav_up[m.a] &&
		       s->fav_tokens[m.a] == 0;
	case FS_KEEP:
		if (m.kind != FM_KEEP || m.b || m.a >= FP_COUNT)
			return 0;
		for (i = 0; i < s->ndrawn; i++)
			if (s->drawn[i] == m.a)
				return 1;
		return 0;
	case FS_END:
		return m.kind == FM_SKIP && !m.a && !m.b;
	case FS_RESOURCE:
		return m.kind == FM_CHOOSE && !m.b && m.a < FR_COUNT;
	}
	return 0;
}

int fortuna_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct fortuna_state *s = st;

	if (!legal(s, seat, m)) {
		enum locale loc = LOC(log);

		if (decider_of(s) != seat)
			buf_setf(err, "%s", L(loc, "It is not your decision now.",
					      "Ahora no te toca decidir."));
		else
			buf_setf(err, "%s", L(loc, "That move is not possible now.",
					      "Esa jugada no es posible ahora."));
		return -1;
	}
	do_move(s, seat, m, log);
	return 0;
}

/* ---- the driver table ---- */

static const char *const fortuna_aliases[] = { NULL };

const struct game_ops fortuna_ops = {
	.api_version = GAME_API_VERSION,
	.id = "fortuna",
	.aliases = fortuna_aliases,
	.name = { "Fortuna", "Fortuna" },
	.min_players = 2,
	.max_players = FORTUNA_MAX_PLAYERS,
	.state_size = sizeof(struct fortuna_state),
	.options_help = "draft: experienced players draft their starting action cards",
	.setup = fortuna_setup,
	.awaiting = fortuna_awaiting,
	.moves = fortuna_moves,
	.move_id = fortuna_move_id,
	.move_label = fortuna_move_label,
	.apply = fortuna_apply,
	.prompt = fortuna_prompt,
	.render_public = fortuna_render_public,
	.render_private = fortuna_render_private,
	.save = fortuna_save,
	.load = fortuna_load,
	.result = fortuna_result,
	.bot_move = fortuna_bot_move,
	.check = fortuna_check,
	.secrets = fortuna_secrets,
	.rules = fortuna_rules,
	.card = fortuna_card,
	.card_names = fortuna_card_names,
};
