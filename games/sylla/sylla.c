/*
 * sylla.c: the rules of Sylla (Dominique Ehrhard; Ystari's Spanish rulebook
 * is the specification) as a state machine of small decisions.
 *
 * Setup ends with the secret choice of the first characters (SS_PICK, all
 * seats at once).  Each of the 5 turns then runs the 7 phases:
 *   I   SS_ELECT (once round, from the last First Consul; or SS_SEALED,
 *       all at once, with sealed-election) -> SS_TOKEN -> famine (automatic)
 *   II  SS_RECRUIT, from the First Consul
 *   III 5 sales (4 with 3 players): SS_OFFER -> SS_BID once round from the
 *       offerer's next -> SS_TAP -> SS_INSULA when an Insula was bought
 *   IV  income (automatic), SS_TEMPLE and SS_TAVERN per seat
 *   V   SS_CUBE round by round -> tokens (automatic) -> SS_AVOID on a tie
 *       -> effects in row order, SS_HIDE (all at once) for the events that
 *       turn cards face down -> SS_REMOVE on a tie -> a new event
 *   VI  SS_VOTE (all at once): thumb, denarii, confirm -> reveal, scoring
 *   VII famine and crises (automatic)
 * and after the fifth, Ecclesia: Christians, SS_FREE (all at once), tokens.
 *
 * The automatic parts run inside apply() until the next decision.  A
 * decision with a single possible answer is taken at once (and logged):
 * the seat is asked only when it has a choice.
 *
 * Secret steps keep each seat's choice in its sylla_player (stage, thumb,
 * amount, picks) until every awaited seat has confirmed; then one reveal
 * applies them all and writes one public line per decision.  Before that
 * nothing public depends on a choice: the prompt is the same at every
 * stage, and the board shows no stage.
 *
 * apply() accepts exactly what moves() lists: it builds the list and looks
 * the move up, so the two cannot disagree.
 */
#include <string.h>
#include <strings.h>

#include "games/sylla/sylla.h"
#include "util/text.h"

/* Playouts pass no log: logging stays out of their straight path. */
#define LOGF(log, ...) \
	do { if (__builtin_expect((log) != NULL, 0)) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))

static int popc(uint64_t x)
{
	return __builtin_popcountll(x);
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* ---- options ---- */

int sylla_parse_options(const char *options, uint8_t *opts, struct buf *err)
{
	const char *p = options ? options : "";
	char w[32];
	size_t len;

	*opts = 0;
	while ((len = text_word(&p, w, sizeof(w))) > 0) {
		if (len < sizeof(w) && (!strcasecmp(w, "sealed-election") || !strcasecmp(w, "sealed"))) {
			*opts |= SO_SEALED;
			continue;
		}
		buf_setf(err, "Unknown option \"%s%s\" (options: sealed-election).", w,
			 len >= sizeof(w) ? "..." : "");
		return -1;
	}
	return 0;
}

/* ---- small queries ---- */

int sylla_pick_count(const struct sylla_state *s)
{
	return s->nplayers == 3 ? 6 : 4;
}

static int shown_chars(const struct sylla_state *s)
{
	return s->nplayers == 3 ? 5 : 6;
}

static int sales_per_turn(const struct sylla_state *s)
{
	return s->nplayers == 3 ? 4 : 5;
}

int sylla_senators(const struct sylla_state *s, int seat)
{
	return popc(s->own[seat] & ~s->down & ~s->tapped & sylla_mask.kind[SK_SENATOR]);
}

static int ready(const struct sylla_state *s, int seat, int kind)
{
	return popc(s->own[seat] & ~s->down & ~s->tapped & sylla_mask.kind[kind]);
}

static int cranes_free(const struct sylla_state *s, int seat)
{
	const struct sylla_player *p = &s->p[seat];

	return p->zone[SZ_CRANE] > p->crane_used ? p->zone[SZ_CRANE] - p->crane_used : 0;
}

/* Characters that can pay for colour c: face up, untapped, with c. */
static uint64_t payers(const struct sylla_state *s, int seat, int c)
{
	return s->own[seat] & ~s->down & ~s->tapped & sylla_mask.colour[c];
}

int sylla_buy_power(const struct sylla_state *s, int seat, int colour)
{
	return popc(payers(s, seat, colour)) + cranes_free(s, seat);
}

int sylla_income(const struct sylla_state *s, int seat)
{
	return 3 + 2 * s->p[seat].zone[SZ_STALL] + ready(s, seat, SK_MERCHANT);
}

int sylla_fights(int event, int kind)
{
	return event < SE_COUNT && ((sylla_events[event].fought >> kind) & 1);
}

int sylla_work_points(int w, int rank, int votes)
{
	if (w == SG_TEMPLE)
		return votes >= 8 ? 10 : votes >= 5 ? 6 : 0;
	if (w < 0 || w >= SG_COUNT || rank < 0 || rank > 2)
		return 0;
	return sylla_works[w].pts[rank];
}

int sylla_token_points(const struct sylla_state *s, int seat)
{
	int t, v = 0;

	for (t = 0; t < ST_COUNT; t++)
		v += s->p[seat].tok[t] * sylla_track_value[s->track[t]];
	return v;
}

static int bank(const struct sylla_state *s)
{
	int i, m = SY_MONEY;

	for (i = 0; i < s->nplayers; i++)
		m -= s->p[i].money;
	return m;
}

/* Pays up to n denarii from the bank; returns what was paid. */
static int earn(struct sylla_state *s, int seat, int n)
{
	n = min_int(n, bank(s));
	s->p[seat].money = (uint8_t)(s->p[seat].money + n);
	return n;
}

static void spend(struct sylla_state *s, int seat, int n)
{
	s->p[seat].money = (uint8_t)(s->p[seat].money - n);
}

static void add_prestige(struct sylla_state *s, int seat, int d)
{
	int v = s->p[seat].prestige + d;

	/* "Los jugadores no pueden tener menos de 0 puntos de prestigio." */
	s->p[seat].prestige = (uint16_t)(v < 0 ? 0 : v > SY_PRESTIGE_MAX ? SY_PRESTIGE_MAX : v);
}

/* One token of colour t from the supply, its colour seen by the table or
 * not; 0 when the supply is out. */
static int take_token(struct sylla_state *s, int seat, int t, int seen)
{
	struct sylla_player *p = &s->p[seat];

	if (!s->supply[t])
		return 0;
	s->supply[t]--;
	p->tok[t]++;
	if (seen)
		p->seen[t]++;
	else
		p->blind++;
	return 1;
}

static void move_track(struct sylla_state *s, int t, int d)
{
	int v = s->track[t] + d;

	s->track[t] = (uint8_t)(v < 0 ? 0 : v > SY_TRACK_MAX ? SY_TRACK_MAX : v);
}

static int ev_cubes(const struct sylla_state *s, int slot)
{
	int i, n = 0;

	for (i = 0; i < s->nplayers; i++)
		n += s->cubes[slot][i];
	return n;
}

/* Whether event e, in play, keeps `what` (a card, or SY_CHARS + zone kind)
 * face down. */
static int covers(int e, int what)
{
	if (what < SY_CHARS) {
		uint64_t bit = 1ULL << what;

		switch (e) {
		case SE_PERSECUTION:
			return (sylla_mask.christian & bit) != 0;
		case SE_PURGE:
			return (sylla_mask.kind[SK_SENATOR] & bit) != 0;
		case SE_REVOLT:
			return (sylla_mask.kind[SK_SLAVE] & bit) != 0;
		default:
			return 0;
		}
	}
	what -= SY_CHARS;
	return e == SE_FLOOD || (e == SE_PILLAGE && what == SZ_STALL);
}

int sylla_covered(const struct sylla_state *s, int what)
{
	int i;

	for (i = 0; i < SY_EV_ROW; i++)
		if (s->ev_row[i] < SE_COUNT && covers(s->ev_row[i], what))
			return 1;
	return 0;
}

/* ---- flow declarations ---- */

static void start_turn(struct sylla_state *s, struct game_log *log);
static void elect_next(struct sylla_state *s, struct game_log *log);
static void after_token(struct sylla_state *s, struct game_log *log);
static void recruit_next(struct sylla_state *s, struct game_log *log);
static void next_sale(struct sylla_state *s, struct game_log *log);
static void bid_next(struct sylla_state *s, struct game_log *log);
static void tap_next(struct sylla_state *s, struct game_log *log);
static void income_next(struct sylla_state *s, struct game_log *log);
static void cube_next(struct sylla_state *s, struct game_log *log);
static void effects_next(struct sylla_state *s, struct game_log *log);
static void start_works(struct sylla_state *s, struct game_log *log);
static void start_end(struct sylla_state *s, struct game_log *log);
static void reveal_vote(struct sylla_state *s, struct game_log *log);
static void start_famine(struct sylla_state *s, struct game_log *log);
static void start_recruit(struct sylla_state *s, struct game_log *log);

static void ask(struct sylla_state *s, int step, int seat)
{
	s->step = (uint8_t)step;
	s->decider = (uint8_t)seat;
	s->p[seat].win = 0;
}

/* Opens a secret step for the seats in `mask`; the others are done. */
static void open_secret(struct sylla_state *s, int step, unsigned mask)
{
	int i;

	s->step = (uint8_t)step;
	s->decider = SY_NONE;
	s->waiting = (uint8_t)mask;
	s->asked = (uint8_t)mask;
	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];

		p->stage = (mask >> i) & 1 ? SST_CHOOSE : SST_DONE;
		p->thumb = 0;
		p->amount = 0;
		p->win = 0;
		p->picks = 0;
	}
}

static void log_names(struct buf *b, uint64_t cards, enum locale loc)
{
	int c, first = 1;

	for (c = 0; c < SY_CHARS; c++)
		if ((cards >> c) & 1) {
			if (!first)
				buf_addstr(b, ", ");
			first = 0;
			sylla_char_name(c, loc, b);
		}
	if (first)
		buf_addstr(b, L(loc, "nothing", "nada"));
}

/* ---- setup ---- */

/* The characters shown: the first `shown_chars` of the deck face up. */
static void deal_chars(struct sylla_state *s, struct game_log *log)
{
	int i, n = shown_chars(s);

	for (i = 0; i < SY_ROW; i++) {
		s->row[i] = SY_NONE;
		if (i < n && s->ndeck) {
			s->row[i] = s->deck[--s->ndeck];
			s->deck[s->ndeck] = 0;
			if (s->unseen)
				s->unseen--;
		}
	}
	if (log) {
		struct buf b = BUF_INIT;

		for (i = 0; i < SY_ROW; i++)
			if (s->row[i] < SY_CHARS) {
				if (b.len)
					buf_addstr(&b, ", ");
				sylla_char_name(s->row[i], log->loc, &b);
			}
		game_logf(log, LOG_PUBLIC, L(log->loc, "Characters for hire: %s.",
					     "Personajes para reclutar: %s."), buf_str(&b));
		buf_release(&b);
	}
}

static void deal_tiles(struct sylla_state *s, struct game_log *log)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i < SY_ROW; i++) {
		s->tiles[i] = SY_NONE;
		if (s->nstack) {
			s->tiles[i] = s->stack[--s->nstack];
			s->stack[s->nstack] = 0;
			if (log)
				buf_printf(&b, "%s%s (%s)", i ? ", " : "",
					   sylla_tile_name(s->tiles[i], log->loc),
					   sylla_colours[sylla_slot_colour[i]].name[log->loc]);
		}
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "Buildings for sale: %s.", "Edificios a la venta: %s."),
	     buf_str(&b));
	buf_release(&b);
}

int sylla_setup(void *st, int players, uint64_t seed, const char *options, struct buf *err)
{
	struct sylla_state *s = st;
	uint8_t sets[SY_SETS] = { 0, 1, 2, 3 }, evs[SE_COUNT - 1];
	uint8_t opts;
	int i, k, n;

	if (players < SY_MIN_PLAYERS || players > SY_MAX_PLAYERS) {
		buf_setf(err, "Sylla is for %d to %d players", SY_MIN_PLAYERS, SY_MAX_PLAYERS);
		return -1;
	}
	if (sylla_parse_options(options, &opts, err))
		return -1;
	memset(s, 0, sizeof(*s));
	rng_seed(&s->rng, seed, 0x5117a);
	s->nplayers = (uint8_t)players;
	s->opts = opts;
	s->turn = 1;
	s->phase = SP_SETUP;
	s->hi_seat = s->bid_seat = s->last_buyer = s->sale_slot = SY_NONE;

	/* Income tiles at random; with 3 players tiles I-III (see the
	 * rulings: the I must be dealt, and the sets are all alike). */
	rng_shuffle(&s->rng, sets, (uint32_t)players, 1);
	for (i = 0; i < players; i++) {
		s->p[i].set = sets[i];
		s->p[i].prestige = SY_PRESTIGE_START;
		if (sets[i] == 0)
			s->fc = (uint8_t)i;
	}

	/* Buildings: C at the bottom, then B, then A; each letter shuffled. */
	n = 0;
	for (k = 2; k >= 0; k--) {
		int first = n;

		for (i = 0; i < SY_TILES; i++)
			if (sylla_tiles[i].letter == k)
				s->stack[n++] = (uint8_t)i;
		rng_shuffle(&s->rng, s->stack + first, (uint32_t)(n - first), 1);
	}
	s->nstack = (uint8_t)n;
	deal_tiles(s, NULL);

	/* Events: the Decadencia under three face-up events; the rest face down. */
	for (i = 0, k = 0; i < SE_COUNT; i++)
		if (i != SE_DECADENCE)
			evs[k++] = (uint8_t)i;
	rng_shuffle(&s->rng, evs, (uint32_t)k, 1);
	for (i = 0; i < 3; i++)
		s->ev_row[i] = evs[i];
	s->ev_row[3] = SE_DECADENCE;
	for (i = 3; i < k; i++)
		s->ev_deck[s->nev_deck++] = evs[i];

	/* Great Works: shuffled face up; the first is removed. */
	for (i = 0; i < SG_COUNT; i++)
		s->works[i] = (uint8_t)i;
	rng_shuffle(&s->rng, s->works, SG_COUNT, 1);
	s->known = 1;

	for (i = 0; i < ST_COUNT; i++) {
		s->track[i] = SY_TRACK_START;
		s->supply[i] = SY_TOKENS - 1;
	}
	s->cranes = SY_CRANES;
	for (i = 0; i < SY_ROW; i++)
		s->row[i] = SY_NONE;

	/* The secret choice of the first characters. */
	open_secret(s, SS_PICK, (1u << players) - 1);
	return 0;
}

/* SS_PICK revealed: characters placed, money, the deck and the display. */
static void reveal_picks(struct sylla_state *s, struct game_log *log)
{
	uint64_t all = 0;
	int i, c;

	for (i = 0; i < s->nplayers; i++) {
		struct sylla_player *p = &s->p[i];
		uint64_t mine = (uint64_t)p->picks << (SY_PER_SET * p->set);
		int merchants;

		s->own[i] = mine;
		all |= mine;
		merchants = popc(mine & sylla_mask.kind[SK_MERCHANT]);
		/* "3 denarios más 1 denario por Comerciante" */
		earn(s, i, 3 + merchants);
		p->stage = SST_DONE;
		if (log) {
			struct buf b = BUF_INIT;

			log_names(&b, mine, log->loc);
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s reveals %s and takes %d %s.",
						     "%s revela %s y toma %d %s."),
				  NAME(log, i), buf_str(&b), 3 + merchants,
				  sylla_word(SW_DENARIUS, 3 + merchants, log->loc));
			buf_release(&b);
		}
	}
	s->waiting = 0;
	for (c = 0; c < SY_CHARS; c++)
		if (!((all >> c) & 1))
			s->deck[s->ndeck++] = (uint8_t)c;
	rng_shuffle(&s->rng, s->deck, s->ndeck, 1);
	s->unseen = s->ndeck;
	deal_chars(s, log);
	start_turn(s, log);
}

/* ---- I: First Consul ---- */

static void start_turn(struct sylla_state *s, struct game_log *log)
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
			elect_next(s, log);
		return;
	}
	elect_next(s, log);
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
	after_token(s, log);
}

/* Open election: each seat once, from the last First Consul, clockwise. */
static void elect_next(struct sylla_state *s, struct game_log *log)
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
static void reveal_sealed(struct sylla_state *s, struct game_log *log)
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

static void after_token(struct sylla_state *s, struct game_log *log)
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
	start_recruit(s, log);
}

static void start_recruit(struct sylla_state *s, struct game_log *log)
{
	s->phase = SP_RECRUIT;
	s->cursor = 0;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase II: recruitment —", "— Fase II: reclutamiento —"));
	recruit_next(s, log);
}

/* ---- II: recruitment ---- */

/* Row slots worth listing: the first of each card kind (same k = same card). */
static unsigned distinct_row(const struct sylla_state *s)
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

static void recruit(struct sylla_state *s, int seat, int slot, struct game_log *log)
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

static void start_build(struct sylla_state *s, struct game_log *log);

/* "las que queden se colocan debajo del montón", in row order. */
static void put_under(struct sylla_state *s, struct game_log *log)
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
		unsigned d = distinct_row(s);

		if (!d) {
			s->cursor++;
			continue;
		}
		if (!(d & (d - 1))) {
			recruit(s, seat, __builtin_ctz(d), log);
			return;
		}
		ask(s, SS_RECRUIT, seat);
		return;
	}
	put_under(s, log);
	start_build(s, log);
}

/* ---- III: buildings ---- */

static void start_build(struct sylla_state *s, struct game_log *log)
{
	s->phase = SP_BUILD;
	s->sales = 0;
	s->last_buyer = SY_NONE;
	s->sale_slot = SY_NONE;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase III: buildings —", "— Fase III: edificios —"));
	next_sale(s, log);
}

/* Tile slots worth listing: one per building type and sale colour. */
static unsigned distinct_tiles(const struct sylla_state *s)
{
	unsigned seen = 0, slots = 0;
	int i;

	for (i = 0; i < SY_ROW; i++) {
		int t = s->tiles[i], key;

		if (t >= SY_TILES)
			continue;
		key = sylla_tiles[t].type * SC_COUNT + sylla_slot_colour[i];
		if ((seen >> key) & 1)
			continue;
		seen |= 1u << key;
		slots |= 1u << i;
	}
	return slots;
}

static int offerer(const struct sylla_state *s)
{
	/* "El jugador que haya comprado el último edificio ofrece uno nuevo";
	 * before any purchase, the First Consul. */
	return s->last_buyer < s->nplayers ? s->last_buyer : s->fc;
}

static void put_on_sale(struct sylla_state *s, int slot, struct game_log *log)
{
	s->sale_slot = (uint8_t)slot;
	s->sales++;
	s->bid_hi = 0;
	s->bid_seat = SY_NONE;
	s->cursor = 0;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s puts up %s for sale (%s).", "%s pone a la venta %s (%s)."),
	     NAME(log, offerer(s)), sylla_tile_name(s->tiles[slot], LOC(log)),
	     sylla_colours[sylla_slot_colour[slot]].name[LOC(log)]);
	bid_next(s, log);
}

static void end_build(struct sylla_state *s, struct game_log *log);

static void next_sale(struct sylla_state *s, struct game_log *log)
{
	unsigned d = distinct_tiles(s);

	s->sale_slot = SY_NONE;
	if (s->sales >= sales_per_turn(s) || !d) {
		end_build(s, log);
		return;
	}
	if (!(d & (d - 1))) {
		put_on_sale(s, __builtin_ctz(d), log);
		return;
	}
	ask(s, SS_OFFER, offerer(s));
}

static void bid_next(struct sylla_state *s, struct game_log *log)
{
	int colour = sylla_slot_colour[s->sale_slot], n = s->nplayers;

	while (s->cursor < n) {
		/* "comenzando por el que está a su derecha ... finalizando con"
		 * the offerer: the next seats round, the offerer last */
		int seat = (offerer(s) + 1 + s->cursor) % n;

		if (sylla_buy_power(s, seat, colour) > s->bid_hi) {
			ask(s, SS_BID, seat);
			return;
		}
		/* logged as the election's: why the seat was not asked */
		if (s->bid_hi)
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s cannot outbid %d and passes.",
						"%s no puede superar %d y pasa."), NAME(log, seat), s->bid_hi);
		else
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s has nothing %s to bid with and passes.",
						"%s no tiene nada %s con que pujar y pasa."),
			     NAME(log, seat), sylla_colours[colour].name[LOC(log)]);
		s->cursor++;
	}
	if (s->bid_seat >= n) {
		/* "si todos los jugadores pasan, el edificio se descarta" */
		LOGF(log, LOG_PUBLIC, L(LOC(log), "Nobody bids: %s is discarded.",
					"Nadie puja: %s se descarta."),
		     sylla_tile_name(s->tiles[s->sale_slot], LOC(log)));
		s->tiles[s->sale_slot] = SY_NONE;
		next_sale(s, log);
		return;
	}
	s->tap_left = s->bid_hi;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s buys %s for %d (%s).", "%s compra %s por %d (%s)."),
	     NAME(log, s->bid_seat), sylla_tile_name(s->tiles[s->sale_slot], LOC(log)), s->bid_hi,
	     sylla_colours[colour].name[LOC(log)]);
	tap_next(s, log);
}

/* Tap options: a card per distinct k among the payers, and bit 10 for a Crane. */
static unsigned tap_kinds(const struct sylla_state *s, int seat, uint64_t *cards)
{
	uint64_t pay = payers(s, seat, sylla_slot_colour[s->sale_slot]);
	unsigned kinds = 0;
	int c;

	*cards = 0;
	for (c = 0; c < SY_CHARS; c++)
		if (((pay >> c) & 1) && !((kinds >> sylla_k(c)) & 1)) {
			kinds |= 1u << sylla_k(c);
			*cards |= 1ULL << c;
		}
	if (cranes_free(s, seat))
		kinds |= 1u << SY_PER_SET;
	return kinds;
}

static void tap_one(struct sylla_state *s, int seat, int what, struct game_log *log)
{
	if (what == SY_CHARS) {
		s->p[seat].crane_used++;
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s turns a Crane.", "%s gira una Grúa."),
		     NAME(log, seat));
	} else {
		s->tapped |= 1ULL << what;
		if (log) {
			struct buf b = BUF_INIT;

			sylla_char_name(what, log->loc, &b);
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s turns %s.", "%s gira %s."),
				  NAME(log, seat), buf_str(&b));
			buf_release(&b);
		}
	}
	s->tap_left--;
}

static void gain_tile(struct sylla_state *s, struct game_log *log);

static void tap_next(struct sylla_state *s, struct game_log *log)
{
	int seat = s->bid_seat, cranes = 0;
	uint64_t forced = 0;

	while (s->tap_left) {
		uint64_t cards, pay = payers(s, seat, sylla_slot_colour[s->sale_slot]);
		unsigned kinds = tap_kinds(s, seat, &cards);

		if (popc(pay) + cranes_free(s, seat) != s->tap_left && (kinds & (kinds - 1))) {
			ask(s, SS_TAP, seat);
			break;
		}
		/* no choice: all of them, or all alike */
		if (pay) {
			forced |= pay & -pay;
			s->tapped |= pay & -pay;
		} else {
			s->p[seat].crane_used++;
			cranes++;
		}
		s->tap_left--;
	}
	if (log && (forced || cranes)) {
		struct buf b = BUF_INIT;

		if (forced)
			log_names(&b, forced, log->loc);
		if (cranes)
			buf_printf(&b, "%s%d %s", forced ? " + " : "", cranes,
				   cranes == 1 ? L(log->loc, "Crane", "Grúa") : L(log->loc, "Cranes", "Grúas"));
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s turns %s.", "%s gira %s."), NAME(log, seat),
			  buf_str(&b));
		buf_release(&b);
	}
	if (!s->tap_left)
		gain_tile(s, log);
}

/* Insula pairs (a <= b) the supply allows, as bits a * 3 + b. */
static unsigned insula_pairs(const struct sylla_state *s)
{
	unsigned pairs = 0;
	int a, b;

	for (a = 0; a < ST_COUNT; a++)
		for (b = a; b < ST_COUNT; b++)
			if (a == b ? s->supply[a] >= 2 : s->supply[a] && s->supply[b])
				pairs |= 1u << (a * 3 + b);
	return pairs;
}

static void insula_take(struct sylla_state *s, int seat, int a, int b, struct game_log *log)
{
	int got = take_token(s, seat, a, 0);

	got += take_token(s, seat, b, 0);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s discards the Insula and takes %d Res Publica %s in secret.",
				"%s descarta la Ínsula y toma %d %s Res Publica en secreto."),
	     NAME(log, seat), got, sylla_word(SW_TOKEN, got, LOC(log)));
	LOGF(log, seat, L(LOC(log), "Your Insula tokens: %s and %s.", "Tus fichas de la Ínsula: %s y %s."),
	     sylla_tracks[a].name[LOC(log)], sylla_tracks[b].name[LOC(log)]);
}

static void gain_tile(struct sylla_state *s, struct game_log *log)
{
	int seat = s->bid_seat, tile = s->tiles[s->sale_slot], type = sylla_tiles[tile].type;
	struct sylla_player *p = &s->p[seat];
	enum locale loc = LOC(log);

	s->last_buyer = (uint8_t)seat;
	s->tiles[s->sale_slot] = SY_NONE;
	switch (type) {
	case SB_STALL:
		p->zone[SZ_STALL]++;
		break;
	case SB_FIELD:
		p->zone[SZ_FIELD]++;
		break;
	case SB_TEMPLE:
		p->zone[SZ_TEMPLE]++;
		break;
	case SB_TAVERN:
		p->zone[SZ_TAVERN]++;
		break;
	case SB_CRANE:
		/* "la sustituye por una carta de Grúa que coloca, en su lado":
		 * usable from the next turn */
		if (s->cranes) {
			s->cranes--;
			p->zone[SZ_CRANE]++;
			p->crane_used++;
			p->crane_new++;
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes a Crane card (usable from next turn).",
						"%s toma una carta de Grúa (usable desde el turno siguiente)."),
			     NAME(log, seat));
		}
		break;
	case SB_ARCH:
		add_prestige(s, seat, 6);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gains 6 prestige.", "%s gana 6 de prestigio."), NAME(log, seat));
		break;
	case SB_STATUE:
		add_prestige(s, seat, 4);
		LOGF(log, LOG_PUBLIC, L(loc, "%s gains 4 prestige.", "%s gana 4 de prestigio."), NAME(log, seat));
		break;
	case SB_BANK: {
		int got = earn(s, seat, 5);

		LOGF(log, LOG_PUBLIC, L(loc, "%s takes %d %s from the bank.",
					"%s toma %d %s de la banca."), NAME(log, seat), got,
		     sylla_word(SW_DENARIUS, got, loc));
		break;
	}
	case SB_INSULA: {
		unsigned pairs = insula_pairs(s);
		int t, n = 0, only = -1;

		if (pairs & (pairs - 1)) {
			ask(s, SS_INSULA, seat);
			return;
		}
		if (pairs) {
			int k = __builtin_ctz(pairs);

			insula_take(s, seat, k / 3, k % 3, log);
			break;
		}
		/* fewer than 2 tokens left: what there is */
		for (t = 0; t < ST_COUNT; t++)
			if (s->supply[t]) {
				only = t;
				n++;
			}
		if (n)
			take_token(s, seat, only, 0);
		LOGF(log, LOG_PUBLIC, L(loc, "%s discards the Insula and takes %d Res Publica %s in secret.",
					"%s descarta la Ínsula y toma %d %s Res Publica en secreto."),
		     NAME(log, seat), n, sylla_word(SW_TOKEN, n, loc));
		break;
	}
	}
	next_sale(s, log);
}

static void start_income(struct sylla_state *s, struct game_log *log);

static void end_build(struct sylla_state *s, struct game_log *log)
{
	int i;

	for (i = 0; i < SY_ROW; i++)
		if (s->tiles[i] < SY_TILES) {
			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s is removed from the game.",
						"%s se retira del juego."),
			     sylla_tile_name(s->tiles[i], LOC(log)));
			s->tiles[i] = SY_NONE;
		}
	start_income(s, log);
}

/* ---- IV: income ---- */

static void start_income(struct sylla_state *s, struct game_log *log)
{
	s->phase = SP_INCOME;
	s->cursor = 0;
	s->tavern_moved = 0;
	s->temples_left = s->taverns_left = SY_NONE;
	LOGF(log, LOG_PUBLIC, "%s", L(LOC(log), "— Phase IV: income —", "— Fase IV: ingresos —"));
	income_next(s, log);
}

static int temple_usable(const struct sylla_state *s, int seat)
{
	return s->temples_left && s->temples_left != SY_NONE && s->p[seat].money >= 2 &&
	       (s->supply[0] || s->supply[1] || s->supply[2]);
}

static int tavern_usable(const struct sylla_state *s)
{
	return s->taverns_left && s->taverns_left != SY_NONE &&
	       s->tavern_moved != (1u << ST_COUNT) - 1;
}

static void start_events(struct sylla_state *s, struct game_log *log);

static void income_next(struct sylla_state *s, struct game_log *log)
{
	while (s->cursor < s->nplayers) {
		int seat = (s->fc + s->cursor) % s->nplayers;

		if (s->temples_left == SY_NONE) {
			int want = sylla_income(s, seat), got = earn(s, seat, want);

			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s takes %d %s (income 3, Stalls %d, Merchants %d).",
						"%s toma %d %s (ingresos 3, Puestos %d, Comerciantes %d)."),
			     NAME(log, seat), got, sylla_word(SW_DENARIUS, got, LOC(log)),
			     2 * s->p[seat].zone[SZ_STALL], ready(s, seat, SK_MERCHANT));
			s->temples_left = s->p[seat].zone[SZ_TEMPLE];
			s->taverns_left = s->p[seat].zone[SZ_TAVERN];
		}
		if (temple_usable(s, seat)) {
			ask(s, SS_TEMPLE, seat);
			return;
		}
		if (tavern_usable(s)) {
			ask(s, SS_TAVERN, seat);
			return;
		}
		s->temples_left = s->taverns_left = SY_NONE;
		s->cursor++;
	}
	s->temples_left = s->taverns_left = 0;
	start_events(s, log);
}

/* ---- V: events ---- */

static void start_events(struct sylla_state *s, struct game_log *log)
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
	cube_next(s, log);
}

/* Cube placements open to seat: bit slot * 2 + (legionary ? 1 : 0). */
static unsigned cube_options(const struct sylla_state *s, int seat)
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

static void place_cube(struct sylla_state *s, int seat, int slot, int legion, struct game_log *log)
{
	s->p[seat].cubes[legion]--;
	s->cubes[slot][seat]++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s places a %s cube on %s.", "%s pone un cubo de %s en %s."),
	     NAME(log, seat), sylla_kinds[legion ? SK_LEGIONARY : SK_VESTAL].name[LOC(log)],
	     sylla_events[s->ev_row[slot]].name[LOC(log)]);
	s->cursor++;
}

static void resolve_cubes(struct sylla_state *s, struct game_log *log);

static void cube_next(struct sylla_state *s, struct game_log *log)
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
		o = cube_options(s, seat);
		if (!o) {	/* cannot happen: the Decadencia takes both */
			s->p[seat].cubes[0] = s->p[seat].cubes[1] = 0;
			continue;
		}
		if (!(o & (o - 1))) {
			int k = __builtin_ctz(o);

			place_cube(s, seat, k / 2, k % 2, log);
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

static void log_avoided(struct sylla_state *s, struct game_log *log)
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
	log_avoided(s, log);
	effects_next(s, log);
}

/* What seat may turn face down for event e: bits of cards (one per k and
 * tapped state) in *cards, zone kinds in the return value (bit z). */
static unsigned hide_options(const struct sylla_state *s, int seat, int e, uint64_t *cards)
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
	zones = hide_options(s, seat, s->ev_row[s->occur - 1], &cards);
	if (what == SY_NONE)	/* nothing to turn over */
		return !cards && !zones;
	if (what < SY_CHARS)
		return (int)((cards >> what) & 1);
	return what < SY_CHARS + SZ_COUNT && ((zones >> (what - SY_CHARS)) & 1);
}

static int hide_count(const struct sylla_state *s, int seat, int e, int *only)
{
	uint64_t cards;
	unsigned zones = hide_options(s, seat, e, &cards);
	int n = popc(cards) + popc(zones);

	if (n == 1)
		*only = cards ? __builtin_ctzll(cards) : SY_CHARS + __builtin_ctz(zones);
	return n;
}

static void reveal_hide(struct sylla_state *s, struct game_log *log);

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
			reveal_hide(s, log);
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

static void end_events(struct sylla_state *s, struct game_log *log);

static void remove_event(struct sylla_state *s, int slot, struct game_log *log)
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
		remove_event(s, b, log);
		return;
	}
	if (s->ev_row[b] == SE_DECADENCE) {
		remove_event(s, a, log);
		return;
	}
	if (ev_cubes(s, a) == ev_cubes(s, b)) {
		ask(s, SS_REMOVE, s->fc);
		return;
	}
	remove_event(s, ev_cubes(s, a) > ev_cubes(s, b) ? a : b, log);
}

static void effects_next(struct sylla_state *s, struct game_log *log)
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

static void reveal_hide(struct sylla_state *s, struct game_log *log)
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
	start_works(s, log);
}

/* ---- VI: Great Works ---- */

static void start_works(struct sylla_state *s, struct game_log *log)
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
		reveal_vote(s, log);	/* nobody has a vote: nothing to score */
}

static void reveal_vote(struct sylla_state *s, struct game_log *log)
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
	start_famine(s, log);
}

/* ---- VII: famine and crises ---- */

static void end_turn(struct sylla_state *s, struct game_log *log);

static void start_famine(struct sylla_state *s, struct game_log *log)
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
		start_end(s, log);
		return;
	}
	/* "Los Personajes que habían sido girados se enderezan" (Cranes too) */
	s->tapped = 0;
	for (i = 0; i < s->nplayers; i++)
		s->p[i].crane_used = s->p[i].crane_new = 0;
	s->turn++;
	put_under(s, NULL);	/* nothing left there in a played turn */
	deal_chars(s, log);
	deal_tiles(s, log);
	start_turn(s, log);
}

/* ---- the end: Ecclesia ---- */

static int free_max(const struct sylla_state *s, int seat)
{
	return min_int(popc(sylla_up(s, seat) & sylla_mask.kind[SK_SLAVE]), s->p[seat].money / 2);
}

static void finish(struct sylla_state *s, struct game_log *log);

static void start_end(struct sylla_state *s, struct game_log *log)
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
		if (free_max(s, i) > 0)
			mask |= 1u << i;
	}
	open_secret(s, SS_FREE, mask);
	if (!mask)
		finish(s, log);
}

static void reveal_free(struct sylla_state *s, struct game_log *log)
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
		} else if ((s->waiting >> i) & 1 || free_max(s, i)) {
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

/* ---- awaiting and moves ---- */

unsigned sylla_awaiting(const void *st)
{
	const struct sylla_state *s = st;

	if (s->step >= SS_OVER)
		return 0;
	if (sylla_secret_step(s->step))
		return s->waiting;
	return s->decider < s->nplayers ? 1u << s->decider : 0;
}

#define PUSH(k, x, y) (out->v[out->n++] = (struct move){ .kind = (k), .a = (uint16_t)(x), .b = (uint16_t)(y) })

/* Amounts lo..hi, SY_WINDOW at a time from lo + win, then "more". */
static void amounts(struct move_list *out, int kind, int lo, int hi, int win)
{
	int a, top;

	lo += win;
	top = min_int(hi, lo + SY_WINDOW - 1);
	for (a = lo; a <= top; a++)
		PUSH(kind, a, 0);
	if (hi > top)
		PUSH(SM_MORE, 0, 0);
}

static void secret_moves(const struct sylla_state *s, int seat, struct move_list *out)
{
	const struct sylla_player *p = &s->p[seat];
	int k;

	if (p->stage == SST_CONFIRM) {
		PUSH(SM_CONFIRM, 0, 0);
		PUSH(SM_CHANGE, 0, 0);
		out->nmeta = 1;
		return;
	}
	switch (s->step) {
	case SS_PICK:
		/* the whole set in its order, each card as pick or drop: the
		 * numbers stay put while one chooses (`play 1` twice picks the
		 * first card and puts it back, never two cards) */
		for (k = 0; k < SY_PER_SET; k++)
			PUSH((p->picks >> k) & 1 ? SM_DROP : SM_PICK, k, 0);
		break;
	case SS_SEALED:
		PUSH(SM_PASS, 0, 0);
		amounts(out, SM_OFFER, 0, p->money, p->win);
		break;
	case SS_VOTE:
		if (p->stage == SST_CHOOSE) {
			PUSH(SM_THUMB, 1, 0);
			PUSH(SM_THUMB, 0, 0);
		} else {
			amounts(out, SM_GIVE, 0, p->money, p->win);
		}
		break;
	case SS_HIDE: {
		uint64_t cards;
		unsigned zones = hide_options(s, seat, s->ev_row[s->occur - 1], &cards);

		while (cards) {
			PUSH(SM_HIDE, __builtin_ctzll(cards), 0);
			cards &= cards - 1;
		}
		for (k = 0; k < SZ_COUNT; k++)
			if ((zones >> k) & 1)
				PUSH(SM_HIDE, SY_CHARS + k, 0);
		break;
	}
	case SS_FREE:
		amounts(out, SM_FREE, 0, free_max(s, seat), p->win);
		break;
	}
}

int sylla_moves(const void *st, int seat, struct move_list *out)
{
	const struct sylla_state *s = st;
	const struct sylla_player *p;
	int i;

	out->n = 0;
	out->nmeta = 0;
	if ((unsigned)seat >= s->nplayers || !((sylla_awaiting(s) >> seat) & 1))
		return 0;
	p = &s->p[seat];
	if (sylla_secret_step(s->step)) {
		secret_moves(s, seat, out);
		return out->n;
	}
	switch (s->step) {
	case SS_ELECT:
		PUSH(SM_PASS, 0, 0);
		amounts(out, SM_OFFER, s->hi_votes + 1, sylla_senators(s, seat) + p->money, p->win);
		break;
	case SS_TOKEN:
		for (i = 0; i < ST_COUNT; i++)
			if (s->supply[i])
				PUSH(SM_TOKEN, i, 0);
		break;
	case SS_RECRUIT: {
		unsigned d = distinct_row(s);

		for (i = 0; i < SY_ROW; i++)
			if ((d >> i) & 1)
				PUSH(SM_RECRUIT, s->row[i], 0);
		break;
	}
	case SS_OFFER: {
		unsigned d = distinct_tiles(s);

		for (i = 0; i < SY_ROW; i++)
			if ((d >> i) & 1)
				PUSH(SM_SELL, i, 0);
		break;
	}
	case SS_BID:
		PUSH(SM_PASS, 0, 0);
		amounts(out, SM_BID, s->bid_hi + 1, sylla_buy_power(s, seat, sylla_slot_colour[s->sale_slot]),
			p->win);
		break;
	case SS_TAP: {
		uint64_t cards;
		unsigned kinds = tap_kinds(s, seat, &cards);

		while (cards) {
			PUSH(SM_TAP, __builtin_ctzll(cards), 0);
			cards &= cards - 1;
		}
		if ((kinds >> SY_PER_SET) & 1)
			PUSH(SM_TAP, SY_CHARS, 0);
		break;
	}
	case SS_INSULA: {
		unsigned pairs = insula_pairs(s);

		for (i = 0; i < 9; i++)
			if ((pairs >> i) & 1)
				PUSH(SM_INSULA, i / 3, i % 3);
		break;
	}
	case SS_TEMPLE:
		for (i = 0; i < ST_COUNT; i++)
			if (s->supply[i])
				PUSH(SM_TEMPLE, i, 0);
		PUSH(SM_SKIP, 0, 0);
		break;
	case SS_TAVERN:
		for (i = 0; i < ST_COUNT; i++)
			if (!((s->tavern_moved >> i) & 1)) {
				PUSH(SM_TAVERN, i, 1);
				PUSH(SM_TAVERN, i, 0);
			}
		PUSH(SM_SKIP, 0, 0);
		break;
	case SS_CUBE: {
		unsigned o = cube_options(s, seat);

		for (i = 0; i < 2 * SY_EV_ROW; i++)
			if ((o >> i) & 1)
				PUSH(SM_CUBE, i / 2, (i % 2) ? SK_LEGIONARY : SK_VESTAL);
		break;
	}
	case SS_AVOID: {
		unsigned c = avoid_candidates(s);

		for (i = 0; i < SY_EV_ROW; i++)
			if ((c >> i) & 1)
				PUSH(SM_AVOID, i, 0);
		break;
	}
	case SS_REMOVE:
		for (i = 0; i < SY_EV_ROW; i++)
			if ((s->avoided >> i) & 1)
				PUSH(SM_REMOVE, i, 0);
		break;
	}
	return out->n;
}

/* ---- apply ---- */

static void secret_done(struct sylla_state *s, int seat, struct game_log *log)
{
	s->p[seat].stage = SST_DONE;
	s->waiting &= (uint8_t)~(1u << seat);
	/* the last to confirm is told nothing of the kind: the reveal that
	 * follows at once says it (a private line would come after it) */
	if (s->waiting) {
		LOGF(log, seat, "%s", L(LOC(log), "Your choice is made; it will be revealed when everybody has chosen.",
					"Tu elección está hecha; se revelará cuando todos hayan elegido."));
		return;
	}
	switch (s->step) {
	case SS_PICK:
		reveal_picks(s, log);
		break;
	case SS_SEALED:
		reveal_sealed(s, log);
		break;
	case SS_HIDE:
		reveal_hide(s, log);
		effects_next(s, log);
		break;
	case SS_VOTE:
		reveal_vote(s, log);
		break;
	case SS_FREE:
		reveal_free(s, log);
		break;
	}
}

static void apply_secret(struct sylla_state *s, int seat, struct move m, struct game_log *log)
{
	struct sylla_player *p = &s->p[seat];

	switch (m.kind) {
	case SM_CONFIRM:
		secret_done(s, seat, log);
		return;
	case SM_CHANGE:
		p->stage = SST_CHOOSE;
		p->picks = 0;
		p->thumb = 0;
		p->amount = 0;
		p->win = 0;
		return;
	case SM_MORE:
		p->win = (uint8_t)(p->win + SY_WINDOW);
		return;
	case SM_PICK:
		p->picks |= (uint16_t)(1u << m.a);
		if (popc(p->picks) == sylla_pick_count(s))
			p->stage = SST_CONFIRM;
		return;
	case SM_DROP:
		p->picks &= (uint16_t)~(1u << m.a);
		return;
	case SM_PASS:
		p->thumb = 0;
		p->amount = 0;
		p->stage = SST_CONFIRM;
		return;
	case SM_OFFER:
		p->thumb = 1;
		p->amount = (uint8_t)m.a;
		p->stage = SST_CONFIRM;
		return;
	case SM_THUMB:
		p->thumb = (uint8_t)m.a;
		p->win = 0;
		p->stage = p->money ? SST_AMOUNT : SST_CONFIRM;
		return;
	case SM_GIVE:
	case SM_FREE:
	case SM_HIDE:
		p->amount = (uint8_t)m.a;
		p->stage = SST_CONFIRM;
		return;
	}
}

static int listed(const struct sylla_state *s, int seat, struct move m)
{
	struct move_list ml;
	int i;

	sylla_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++)
		if (ml.v[i].kind == m.kind && ml.v[i].a == m.a && ml.v[i].b == m.b && ml.v[i].c == m.c)
			return 1;
	return 0;
}

int sylla_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct sylla_state *s = st;
	enum locale loc = LOC(log);

	if ((unsigned)seat >= s->nplayers || !((sylla_awaiting(s) >> seat) & 1)) {
		buf_setf(err, "%s", L(loc, "It is not your turn to decide.", "No te toca decidir ahora."));
		return -1;
	}
	if (!listed(s, seat, m)) {
		buf_setf(err, "%s", L(loc, "That move is not possible now. Type `moves` to see yours.",
				      "Esa jugada no es posible ahora. Escribe `moves` para ver las tuyas."));
		return -1;
	}
	if (sylla_secret_step(s->step)) {
		apply_secret(s, seat, m, log);
		return 0;
	}
	if (m.kind == SM_MORE) {
		s->p[seat].win = (uint8_t)(s->p[seat].win + SY_WINDOW);
		return 0;
	}
	switch (s->step) {
	case SS_ELECT:
		if (m.kind == SM_OFFER) {
			s->hi_votes = (uint8_t)m.a;
			s->hi_seat = (uint8_t)seat;
			LOGF(log, LOG_PUBLIC, L(loc, "%s offers %d %s.", "%s ofrece %d %s."),
			     NAME(log, seat), m.a, sylla_word(SW_VOTE, m.a, loc));
		} else {
			LOGF(log, LOG_PUBLIC, L(loc, "%s passes.", "%s pasa."), NAME(log, seat));
		}
		s->cursor++;
		elect_next(s, log);
		break;
	case SS_TOKEN:
		take_token(s, seat, m.a, 1);
		/* "hay que enseñar al resto de jugadores el color de la ficha" */
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes a %s token.", "%s toma una ficha de %s."),
		     NAME(log, seat), sylla_tracks[m.a].name[loc]);
		after_token(s, log);
		break;
	case SS_RECRUIT: {
		int i;

		for (i = 0; i < SY_ROW; i++)
			if (s->row[i] == m.a)
				break;
		recruit(s, seat, i, log);
		break;
	}
	case SS_OFFER:
		put_on_sale(s, m.a, log);
		break;
	case SS_BID:
		if (m.kind == SM_BID) {
			s->bid_hi = (uint8_t)m.a;
			s->bid_seat = (uint8_t)seat;
			LOGF(log, LOG_PUBLIC, L(loc, "%s bids %d.", "%s puja %d."), NAME(log, seat), m.a);
		} else {
			LOGF(log, LOG_PUBLIC, L(loc, "%s passes.", "%s pasa."), NAME(log, seat));
		}
		s->cursor++;
		bid_next(s, log);
		break;
	case SS_TAP:
		tap_one(s, seat, m.a, log);
		tap_next(s, log);
		break;
	case SS_INSULA:
		insula_take(s, seat, m.a, m.b, log);
		next_sale(s, log);
		break;
	case SS_TEMPLE:
		if (m.kind == SM_TEMPLE) {
			spend(s, seat, 2);
			take_token(s, seat, m.a, 0);
			s->temples_left--;
			LOGF(log, LOG_PUBLIC, L(loc, "%s pays 2 denarii at a Private Temple for a Res Publica token.",
						"%s paga 2 denarios en un Templo privado por una ficha Res Publica."),
			     NAME(log, seat));
			LOGF(log, seat, L(loc, "Your Private Temple token: %s.", "Tu ficha del Templo privado: %s."),
			     sylla_tracks[m.a].name[loc]);
		} else {
			s->temples_left = 0;
		}
		income_next(s, log);
		break;
	case SS_TAVERN:
		if (m.kind == SM_TAVERN) {
			int before = s->track[m.a];

			move_track(s, m.a, m.b ? 1 : -1);
			s->tavern_moved |= (uint8_t)(1u << m.a);
			s->taverns_left--;
			LOGF(log, LOG_PUBLIC, L(loc, "%s's Tavern moves %s: %d \xe2\x86\x92 %d.",
						"La Taberna de %s mueve %s: %d \xe2\x86\x92 %d."),
			     NAME(log, seat), sylla_tracks[m.a].name[loc], before, s->track[m.a]);
		} else {
			s->taverns_left = 0;
		}
		income_next(s, log);
		break;
	case SS_CUBE:
		place_cube(s, seat, m.a, m.b == SK_LEGIONARY, log);
		cube_next(s, log);
		break;
	case SS_AVOID:
		s->avoided |= (uint8_t)(1u << m.a);
		s->avoid_left--;
		LOGF(log, LOG_PUBLIC, L(loc, "%s chooses to avoid %s.", "%s elige evitar %s."),
		     NAME(log, seat), sylla_events[s->ev_row[m.a]].name[loc]);
		if (s->avoid_left)
			break;
		log_avoided(s, log);
		effects_next(s, log);
		break;
	case SS_REMOVE:
		LOGF(log, LOG_PUBLIC, L(loc, "%s chooses which avoided event goes.",
					"%s elige qué evento evitado se retira."), NAME(log, seat));
		remove_event(s, m.a, log);
		break;
	}
	return 0;
}

/* ---- result ---- */

int sylla_result(const void *st, struct game_result *out)
{
	const struct sylla_state *s = st;
	int i, j, best = -1;

	if (s->phase != SP_OVER)
		return 0;
	memset(out, 0, sizeof(*out));
	out->nseats = s->nplayers;
	for (i = 0; i < s->nplayers; i++) {
		out->score[i] = s->p[i].prestige;
		out->eligible[i] = 1;
		best = max_int(best, s->p[i].prestige);
	}
	for (i = 0; i < s->nplayers; i++) {
		out->rank[i] = 1;
		for (j = 0; j < s->nplayers; j++)
			if (s->p[j].prestige > s->p[i].prestige)
				out->rank[i]++;
		/* "En caso de empate en el primer puesto, todos ... comparten la victoria" */
		if (s->p[i].prestige == best)
			out->winners |= 1u << i;
	}
	return 1;
}

/* ---- test helpers ---- */

void sylla_give_char(struct sylla_state *s, int seat, int card)
{
	uint64_t bit = 1ULL << card;
	int i;

	for (i = 0; i < s->nplayers; i++)
		s->own[i] &= ~bit;
	for (i = 0; i < SY_ROW; i++)
		if (s->row[i] == card)
			s->row[i] = SY_NONE;
	for (i = 0; i < s->ndeck; i++)
		if (s->deck[i] == card) {
			if (i >= s->ndeck - s->unseen && s->unseen)
				s->unseen--;
			memmove(s->deck + i, s->deck + i + 1, (size_t)(s->ndeck - i - 1));
			s->deck[--s->ndeck] = 0;
			break;
		}
	s->tapped &= ~bit;
	s->down &= ~bit;
	s->own[seat] |= bit;
}

void sylla_give_zone(struct sylla_state *s, int seat, int z)
{
	int type = sylla_zone_type[z], i;

	if (z == SZ_CRANE) {
		if (!s->cranes)
			return;
		s->cranes--;
	}
	/* the tile leaves the stack (from the bottom of its kind) */
	for (i = 0; i < s->nstack; i++)
		if (sylla_tiles[s->stack[i]].type == type) {
			memmove(s->stack + i, s->stack + i + 1, (size_t)(s->nstack - i - 1));
			s->stack[--s->nstack] = 0;
			break;
		}
	s->p[seat].zone[z]++;
}

void sylla_give_tokens(struct sylla_state *s, int seat, int track, int n, int seen)
{
	while (n-- > 0)
		take_token(s, seat, track, seen);
}

void sylla_set_money(struct sylla_state *s, int seat, int money)
{
	int d = money - s->p[seat].money;

	if (d > 0)
		earn(s, seat, d);
	else
		spend(s, seat, -d);
}

void sylla_set_event(struct sylla_state *s, int slot, int e)
{
	int i, old = s->ev_row[slot];

	if (old == e)
		return;
	for (i = 0; i < SY_EV_ROW; i++)
		if (s->ev_row[i] == e) {
			s->ev_row[i] = (uint8_t)old;
			s->ev_row[slot] = (uint8_t)e;
			return;
		}
	for (i = 0; i < s->nev_deck; i++)
		if (s->ev_deck[i] == e) {
			memmove(s->ev_deck + i, s->ev_deck + i + 1, (size_t)(s->nev_deck - i - 1));
			s->nev_deck--;
			break;
		}
	s->ev_gone &= (uint16_t)~(1u << e);
	if (old < SE_COUNT)
		s->ev_deck[s->nev_deck++] = (uint8_t)old;
	s->ev_row[slot] = (uint8_t)e;
}

void sylla_put_tile(struct sylla_state *s, int slot, int type)
{
	int t, j, i;

	if (s->tiles[slot] >= SY_TILES || sylla_tiles[s->tiles[slot]].type == type)
		return;
	for (t = 0; t < SY_TILES; t++) {
		if (sylla_tiles[t].type != type)
			continue;
		for (j = 0; j < SY_ROW; j++)
			if (s->tiles[j] == t) {
				s->tiles[j] = s->tiles[slot];
				s->tiles[slot] = (uint8_t)t;
				return;
			}
		for (j = 0; j < s->nstack; j++)
			if (s->stack[j] == t)
				break;
		if (j == s->nstack)
			continue;
		s->stack[j] = s->tiles[slot];
		s->tiles[slot] = (uint8_t)t;
		/* keep the stack in letter order (C at the bottom), each letter's
		 * own order kept */
		for (i = 1; i < s->nstack; i++) {
			uint8_t x = s->stack[i];

			for (j = i; j > 0 && sylla_tiles[s->stack[j - 1]].letter < sylla_tiles[x].letter; j--)
				s->stack[j] = s->stack[j - 1];
			s->stack[j] = x;
		}
		return;
	}
}

void sylla_set_turn(struct sylla_state *s, int turn)
{
	while (s->turn < turn) {
		int i;

		s->turn++;
		for (i = 0; i < SY_ROW && s->nstack; i++)
			s->stack[--s->nstack] = 0;
		if (s->known < s->turn)
			s->known = s->turn;
		/* one event removed per turn gone by */
		if (__builtin_popcount(s->ev_gone) + 1 < s->turn && s->nev_deck) {
			s->ev_gone |= (uint16_t)(1u << s->ev_deck[s->nev_deck - 1]);
			s->ev_deck[--s->nev_deck] = 0;
		}
	}
}

void sylla_start_phase(struct sylla_state *s, int phase, int fc, struct game_log *log)
{
	s->fc = (uint8_t)fc;
	s->waiting = 0;
	s->decider = SY_NONE;
	switch (phase) {
	case SP_CONSUL:
		start_turn(s, log);
		break;
	case SP_RECRUIT:
		start_recruit(s, log);
		break;
	case SP_BUILD:
		start_build(s, log);
		break;
	case SP_INCOME:
		start_income(s, log);
		break;
	case SP_EVENTS:
		start_events(s, log);
		break;
	case SP_WORKS:
		start_works(s, log);
		break;
	case SP_FAMINE:
		start_famine(s, log);
		break;
	case SP_END:
		start_end(s, log);
		break;
	}
}

/* ---- the driver table ---- */

static const char *const sylla_option_words[] = { "sealed-election", NULL };

/* a phase of a turn */
static unsigned sylla_turn(const void *st)
{
	const struct sylla_state *s = st;

	return (unsigned)s->turn << 8 | s->phase;
}

/* Why an offer typed in the election cannot be made: below what must be
 * beaten, or above what the seat has (issue 25: refusals say why). */
static void sylla_near_miss(const void *st, int seat, const char *text, enum locale loc,
			    struct buf *out)
{
	const struct sylla_state *s = st;
	const char *p = text + 6;
	long n = 0;
	int most;

	if ((unsigned)seat >= s->nplayers || s->step != SS_ELECT || strncmp(text, "offer ", 6) ||
	    !(sylla_awaiting(st) & (1u << seat)))
		return;
	for (; *p >= '0' && *p <= '9' && n < 1000; p++)
		n = n * 10 + (*p - '0');
	if (*p || p == text + 6)
		return;
	most = sylla_senators(s, seat) + s->p[seat].money;
	if (n <= s->hi_votes)
		buf_printf(out, L(loc, "The offer to beat is %d: yours must be more.",
				  "La oferta que hay que superar es %d: la tuya debe ser mayor."), s->hi_votes);
	else if (n > most)
		buf_printf(out, L(loc, "You can offer at most %d: %d from your Senators and %d denarii.",
				  "Puedes ofrecer como mucho %d: %d de tus senadores y %d denarios."),
			   most, sylla_senators(s, seat), s->p[seat].money);
}

const struct game_ops sylla_ops = {
	.api_version = GAME_API_VERSION,
	.id = "sylla",
	.aliases = NULL,
	.near_miss = sylla_near_miss,
	.name = { "Sylla", "Sylla" },
	.min_players = SY_MIN_PLAYERS,
	.max_players = SY_MAX_PLAYERS,
	.state_size = sizeof(struct sylla_state),
	.options_help = "sealed-election: the First Consul is elected by secret bids, all at once",
	.option_words = sylla_option_words,
	.search_iterations = 100,	/* 2-5 ms an answer in a 3-player game */
	.setup = sylla_setup,
	.awaiting = sylla_awaiting,
	.moves = sylla_moves,
	.move_id = sylla_move_id,
	.move_label = sylla_move_label,
	.apply = sylla_apply,
	.prompt = sylla_prompt,
	.idle_reason = sylla_idle_reason,
	.render_public = sylla_render_public,
	.render_private = sylla_render_private,
	.scene = sylla_scene,
	.save = sylla_save,
	.load = sylla_load,
	.result = sylla_result,
	.bot_move = sylla_bot_move,
	.determinize = sylla_determinize,
	.check = sylla_check,
	.turn = sylla_turn,
	.intro = sylla_intro,
	.secrets = sylla_secrets,
	.rules = sylla_rules,
	.card = sylla_card,
	.card_names = sylla_card_names,
};
