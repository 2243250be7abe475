/*
 * setup.c: Sylla's setup: the option words, the deal of characters and
 * tiles, and the secret choice of the first characters (SS_PICK, all seats
 * at once) with its reveal.
 *
 * Owns the state from zeroed memory to the first turn (handed to
 * sylla_start_turn in consul.c).  Reads nothing but the options and the
 * seed.
 */
#include <strings.h>

#include "games/sylla/sylla_int.h"
#include "util/text.h"

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

/* ---- setup ---- */

/* The characters shown: the first `shown_chars` of the deck face up. */
void sylla_deal_chars(struct sylla_state *s, struct game_log *log)
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

void sylla_deal_tiles(struct sylla_state *s, struct game_log *log)
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
	sylla_deal_tiles(s, NULL);

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
void sylla_reveal_picks(struct sylla_state *s, struct game_log *log)
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

			sylla_log_names(&b, mine, log->loc);
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
	sylla_deal_chars(s, log);
	sylla_start_turn(s, log);
}
