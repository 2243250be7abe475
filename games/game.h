/*
 * game.h: the rules interface every game implements, and the generic layer
 * on top of it (registry, forgiving move parsing).
 *
 * A rules core is pure: no I/O, no clock, no global mutable state.  All its
 * randomness comes from a struct rng kept inside its state, so that
 * setup(seed, options) followed by the same moves always reaches the same
 * state (tests replay games to check it).
 *
 * Moves are small values (struct move).  moves() enumerates the legal
 * decisions of one seat now into a caller-provided list without allocating;
 * text (canonical id, localised label) is made only on demand by move_id()
 * and move_label().  Decisions are small steps of a state machine ("choose a
 * card", then "choose a side"), never a combinatorial list, so a list fits a
 * chat select menu and AI playouts stay cheap.
 *
 * The caller owns the state memory: it allocates ops->state_size bytes
 * (zeroed) and passes it to setup() or load().  States hold no pointers, so
 * a state is copied with memcpy (AI search does this).
 */
#ifndef GAMES_GAME_H
#define GAMES_GAME_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"
#include "util/rich.h"
#include "util/rng.h"
#include "util/scene.h"

#define GAME_API_VERSION 1
#define GAME_MAX_SEATS 8

enum locale { LOC_EN = 0, LOC_ES = 1, LOC_COUNT };

/* Picks the text of the locale: L(loc, "Water", "Agua"). */
#define L(loc, en, es) ((loc) == LOC_ES ? (es) : (en))

const char *locale_code(enum locale loc);		/* "en", "es" */
int locale_parse(const char *code, enum locale *out);	/* 0, or -1 unknown */

/* One decision.  The meaning of kind and a..c belongs to the game. */
struct move {
	uint16_t kind;
	uint16_t a, b, c;
};

#define MOVE_LIST_MAX 256

/*
 * v[0..n) are the legal decisions.  The last nmeta of them are meta
 * decisions (resigning: Glory to Rome's `concede`) that a person may take
 * but that random playouts and AI rollouts skip: a game that can be
 * resigned at every turn would otherwise end by resignation in most random
 * games.  moves() sets both.
 */
struct move_list {
	int n;
	int nmeta;
	struct move v[MOVE_LIST_MAX];
};

/*
 * Where a game writes what happened.  Each line is public (seat -1) or
 * private to one seat.  The sink decides what to do with lines; a NULL log
 * (AI playouts) means nobody listens, and games must skip formatting then.
 * names[seat] are display names for the lines; the game never sees user ids.
 */
struct game_log {
	enum locale loc;
	const char *const *names;
	void (*emit)(struct game_log *log, int seat, const char *text);
	void *ctx;
};

#define LOG_PUBLIC (-1)

void game_logf(struct game_log *log, int seat, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The display name of a seat for log lines ("Seat 2" when names is NULL). */
const char *game_log_name(const struct game_log *log, int seat);

/* What a render sees: the locale and the seats' display names. */
struct game_view {
	enum locale loc;
	int nseats;
	const char *const *names;
};

const char *game_view_name(const struct game_view *v, int seat);

struct game_result {
	int nseats;
	int score[GAME_MAX_SEATS];
	int rank[GAME_MAX_SEATS];	/* 1 = winner; equal ranks share */
	int eligible[GAME_MAX_SEATS];	/* 0 when a rule bars the seat from winning */
	unsigned winners;		/* bit per winning seat; 0 = nobody */
};

/*
 * The driver table.  Every slot is required unless marked optional.
 * All functions taking `const void *st` must not change the state.
 */
struct game_ops {
	unsigned api_version;		/* GAME_API_VERSION */
	const char *id;			/* registry key, e.g. "fortuna" */
	const char *const *aliases;	/* NULL-terminated, folded match; may be NULL */
	const char *name[LOC_COUNT];	/* display name per locale */
	int min_players, max_players;
	size_t state_size;
	const char *options_help;	/* one line listing the options, English */
	/* The rules' version (0 reads as 1): raised when a move log stored
	 * by an earlier version may no longer replay (a decision added, made
	 * automatic or renamed).  The manager records it when a game starts
	 * and replays a game's log only under the version it started with;
	 * the saved state must keep loading across versions regardless. */
	unsigned rules_version;
	/* Every option word setup() accepts, NULL-terminated (NULL: none).
	 * Words are lower-case ASCII and may hold hyphens ("original-circus");
	 * the manager hands setup() each word folded with its hyphens kept.
	 * Tests start a game with each; platforms may offer them as choices. */
	const char *const *option_words;
	/* Optional (0 when absent): digits after the decimal point in
	 * game_result.score, for games that score fractions of a point (The
	 * Builders counts 0.1 per sesterce: a score of 173 reads 17.3).  A
	 * platform shows score / 10^score_decimals. */
	int score_decimals;
	/* Optional (0: 100): the playouts the searching AI (games/search.h)
	 * spends on one decision, measured with bench/bench_ai.c: a few tens
	 * of milliseconds an answer at most. */
	int search_iterations;

	/* Sets up a new game in zeroed memory.  options: space-separated
	 * words (e.g. "draft"); unknown words fail.  0, or -1 with err. */
	int (*setup)(void *st, int players, uint64_t seed, const char *options,
		     struct buf *err);

	/* Bit per seat whose decision the game waits for; 0 once over. */
	unsigned (*awaiting)(const void *st);

	/* The legal decisions of seat now (0 when it is not awaited).
	 * Returns out->n. */
	int (*moves)(const void *st, int seat, struct move_list *out);

	/* Canonical id: ASCII, lower case, English words, stable across
	 * versions, unique within one moves() list ("take water"). */
	void (*move_id)(const void *st, int seat, struct move m, struct buf *out);
	/* Human label in the locale ("Recogida de agua: +2 agua"). */
	void (*move_label)(const void *st, int seat, struct move m,
			   enum locale loc, struct buf *out);
	/* Optional.  The label with the seats' display names (v->names, in
	 * v->loc), for moves that name a player ("Exchange for Family (ben's
	 * side)"); with no names it must equal move_label.  Callers that
	 * show moves to people use game_move_label(). */
	void (*move_label_view)(const void *st, int seat, struct move m,
				const struct game_view *v, struct buf *out);

	/*
	 * Optional.  How a short list of moves (a turn's notice on a phone)
	 * groups m: the group's name in group ("start"), what every move of
	 * the group shares, said once after its moves, in note ("uses 1 of
	 * your 2 free actions"; may stay empty), and m's short name within
	 * the group in item ("Saw").  The manager lists a group on one line,
	 * each move with its number in moves() ("start: 1 Saw · 2 Barracks;
	 * uses 1 of your 2 free actions"), and the full list on `moves`.
	 * Returns 1 for a group that matters after a step within a turn (it
	 * is listed in full then: "to", "send"), 0 for one shown only by its
	 * numbers then, -1 for a move listed alone by its label (group, note
	 * and item untouched).  In loc.  NULL: every move on a line of its
	 * own, as `moves` lists them; the manager then also sends the whole
	 * private view after each step, not only the lines that changed.
	 */
	int (*move_group)(const void *st, int seat, struct move m, enum locale loc,
			  struct buf *group, struct buf *note, struct buf *item);

	/*
	 * Optional.  Why text, which a seat now awaited typed and which names
	 * none of its moves, cannot be played now, when it names a move the
	 * rules know (one the seat cannot afford, a second investment in a
	 * turn): one or two sentences with the reason and the figures ("The
	 * second worker to Armory this turn costs 2 actions (10 s) + wage
	 * 4 s; you have 8 s."), in loc; nothing when text names no such move.
	 * text is folded (text_fold).  game_parse() answers with it in place
	 * of "No move matches".
	 */
	void (*near_miss)(const void *st, int seat, const char *text, enum locale loc,
			  struct buf *out);

	/* Applies m, which must be one of moves(st, seat).  Returns 0, or -1
	 * with err and the state unchanged when m is not legal. */
	int (*apply)(void *st, int seat, struct move m, struct game_log *log,
		     struct buf *err);

	/* One short sentence: what seat is asked to decide now. */
	void (*prompt)(const void *st, int seat, enum locale loc, struct buf *out);
	/* Optional.  Why seat, which is not awaited now, has nothing to
	 * decide, when that is more than another seat's turn: one short
	 * sentence ("You have confirmed your choice."), or nothing.  A move
	 * such a seat types is answered with it and who is awaited. */
	void (*idle_reason)(const void *st, int seat, enum locale loc, struct buf *out);

	/* Public board: nothing hidden may appear in it. */
	void (*render_public)(const void *st, const struct game_view *v, struct rich *out);
	/* What only seat may see (hand, secret cards). */
	void (*render_private)(const void *st, int seat, const struct game_view *v,
			       struct rich *out);

	/*
	 * Optional.  The board as a picture's display list (util/scene.h;
	 * paint/ draws it): seat -1 the public board, showing exactly the
	 * information render_public shows and nothing hidden (the tests scan
	 * its texts as they scan the text board); else what
	 * render_private(seat) shows.  In v->loc, with v->names.  Returns 0,
	 * or -1 with out untouched when there is no such view (a seat out of
	 * range).
	 */
	int (*scene)(const void *st, int seat, const struct game_view *v, struct scene *out);

	/* save returns a new reference holding a format version ("v");
	 * load fills zeroed memory, 0 or -1 with err on any malformed or
	 * inconsistent value (never trusts its input). */
	json_t *(*save)(const void *st);
	int (*load)(void *st, const json_t *j, struct buf *err);

	/* 1 and *out filled when the game is over, else 0. */
	int (*result)(const void *st, struct game_result *out);

	/* An AI decision for seat, a legal move.  rng is the caller's, not the
	 * game's: AI choices are logged as ordinary moves.  0, or -1 if the
	 * seat has no move. */
	int (*bot_move)(const void *st, int seat, struct rng *rng, struct move *out);

	/*
	 * Optional.  Re-deals with rng everything that seat cannot see (the
	 * order of face-down piles, the other seats' hidden cards).  It keeps
	 * everything render_public and render_private(seat) show (card counts
	 * per pile included); it may keep more of what the seat saw (a card
	 * taken from a public pile into a hand), never anything the seat
	 * could not know.  The result depends only on what seat can see and
	 * on rng, not on the true hidden cards (pool the unseen cards in a
	 * canonical order before shuffling).  The game's own rng is re-seeded
	 * from rng, so that what is drawn next is not the true future either.
	 * AI search samples states with it so that it never reads hidden cards.
	 */
	void (*determinize)(void *st, int seat, struct rng *rng);

	/* Optional.  Checks the invariants (conservation, bounds); 0 or -1
	 * with err.  Tests call it after every move. */
	int (*check)(const void *st, struct buf *err);

	/*
	 * Optional.  The public lines of what setup() did in view of the
	 * table (Glory to Rome: the cards drawn for the first leader), in
	 * log->loc, for the session manager to show when a game starts and to
	 * put first in a replayed log.  st is the state setup() made or any
	 * later state of the same game: the lines are the same (what a game
	 * needs for them stays in its state).  Writes nothing to a NULL log.
	 */
	void (*intro)(const void *st, struct game_log *log);

	/* Optional.  A number that changes whenever a new turn begins, as
	 * the game counts turns (a player's turn, a round's phase).  The
	 * manager shows the whole board when a change starts a new turn or
	 * changes who is awaited, and within one turn of the same seats only
	 * what happened (a Craftsman's second action, the next action of a
	 * Builders turn).  NULL: the whole board after every change. */
	unsigned (*turn)(const void *st);

	/* Optional.  Appends to out, one per line, strings that reveal hidden
	 * information now (a face-down card's name, a secret card held) and so
	 * must never appear in render_public.  Tests use it. */
	void (*secrets)(const void *st, enum locale loc, struct buf *out);

	/*
	 * Rule summaries, written for the project (never copied from the
	 * rulebooks).  topic NULL or "": an overview and the list of topics;
	 * otherwise one topic (its id or its name in either language, folded;
	 * a unique prefix will do).  Returns 0, or -1 with the list of topics
	 * in out when the topic is unknown.
	 */
	int (*rules)(const char *topic, enum locale loc, struct rich *out);

	/*
	 * A card's (or building's, or tile's) text in the locale: its name in
	 * both languages, what it costs or is made of, what it does.  name in
	 * either language, case and accents ignored, a unique prefix will do.
	 * options: the room's game options (as given to setup()), so that a
	 * variant's card reads as that variant plays it; NULL outside a room
	 * (the game's default rules).  Words it does not know are ignored
	 * here.  Returns 0; -1 with "no such card" or the candidates
	 * (ambiguous) in out.
	 */
	int (*card)(const char *name, const char *options, enum locale loc, struct rich *out);

	/* Every card name (in locale loc) that card() accepts, one per line:
	 * tests walk it. */
	void (*card_names)(enum locale loc, struct buf *out);
};

/* ---- helpers for rules() and card() ---- */

#define GAME_LOOKUP_MAX 64

/* Key k of entry i, folded (text_fold): k 0 is the id, 1 and 2 the names
 * in English and Spanish. */
typedef void (*game_key_fn)(int i, int k, struct buf *out);

/*
 * Finds the entry among n whose key matches the query as typed (folded
 * here, like the keys): an exact name first, then an exact id, then a
 * unique prefix of any key.  Returns the entry, or -1 with cand[0..*nc)
 * the candidates (0: none; at most GAME_LOOKUP_MAX).
 */
int game_lookup(const char *query, int n, game_key_fn key, int *cand, int *nc);

/* The name of entry i in loc, appended to out. */
typedef void (*game_name_fn)(int i, enum locale loc, struct buf *out);

/* card()'s answer when name is no one card: "No such card" when nothing
 * matched (nc 0), else "Which card do you mean?" and the candidates
 * cand[0..nc), each by its name.  Returns -1, card()'s return for both. */
int game_card_unknown(const char *name, const int *cand, int nc, game_name_fn name_of,
		      enum locale loc, struct rich *out);

/* Appends text as rich lines, one per '\n'-separated line. */
void game_rich_lines(const char *text, struct rich *out);

/* A rules() topic: lines of text per locale, then extra (may be NULL). */
struct game_topic {
	const char *id;
	const char *name[LOC_COUNT];
	const char *text[LOC_COUNT];	/* lines separated by '\n' */
	void (*extra)(enum locale loc, struct rich *out);
};

/*
 * The body of a game's rules() over topics[0..n), topics[0] the overview:
 * t is the topic the game found for query, -1 when there was no query (the
 * overview and the list of topics), -2 when query matched none (an error
 * and the list).  Returns 0, or -1 for -2.
 */
int game_rules_render(const char *game, const struct game_topic *topics, int n, int t,
		      const char *query, enum locale loc, struct rich *out);

/* ---- helpers for save() and load() ---- */

/*
 * A state made of small integers is saved by one table of fields that
 * drives both directions (Fortuna, Sylla, The Builders): each field names
 * its JSON key, where its value lives in the struct and what it may hold.
 * game_fields_load() checks every value's type and range against the
 * table, so the game's load() is left with what relates fields (its
 * check()).  Unknown keys are ignored; a missing or malformed one fails.
 */
enum game_field_kind {
	GAME_FIELD_U8,		/* a byte, 0..max */
	GAME_FIELD_U16,		/* a uint16_t, 0..max */
	GAME_FIELD_I32,		/* an int32_t, min..max */
	GAME_FIELD_FIXED,	/* exactly len bytes, each 0..max */
	GAME_FIELD_COUNTED,	/* up to len bytes; their number is the byte at count_off */
	GAME_FIELD_SEATS,	/* one byte per player */
	GAME_FIELD_GRID,	/* rows arrays of len bytes */
	GAME_FIELD_NAME,	/* a byte k < len, saved as names[k] */
};

/* The byte a nullable field holds for "nothing"; -1 in JSON. */
#define GAME_FIELD_NONE 255

struct game_field {
	const char *name;		/* the JSON key */
	uint8_t kind;			/* enum game_field_kind */
	uint8_t nullable;		/* U8, FIXED: GAME_FIELD_NONE is -1 */
	size_t off;			/* offsetof() in the struct */
	int len;			/* FIXED, COUNTED, GRID (per row), NAME (names) */
	int rows;			/* GRID */
	size_t count_off;		/* COUNTED: offsetof() its length byte */
	int min, max;			/* min: I32 only (the others start at 0) */
	const char *const *names;	/* NAME */
};

/* The table's rows: GAME_U8("round", offsetof(struct x, round), 12). */
#define GAME_U8(key, o, mx) { .name = (key), .kind = GAME_FIELD_U8, .off = (o), .max = (mx) }
#define GAME_U8_OR_NONE(key, o, mx) \
	{ .name = (key), .kind = GAME_FIELD_U8, .nullable = 1, .off = (o), .max = (mx) }
#define GAME_U16(key, o, mx) { .name = (key), .kind = GAME_FIELD_U16, .off = (o), .max = (mx) }
#define GAME_I32(key, o, mn, mx) \
	{ .name = (key), .kind = GAME_FIELD_I32, .off = (o), .min = (mn), .max = (mx) }
#define GAME_FIXED(key, o, n, mx) \
	{ .name = (key), .kind = GAME_FIELD_FIXED, .off = (o), .len = (n), .max = (mx) }
#define GAME_FIXED_OR_NONE(key, o, n, mx) \
	{ .name = (key), .kind = GAME_FIELD_FIXED, .nullable = 1, .off = (o), .len = (n), \
	  .max = (mx) }
#define GAME_COUNTED(key, o, n, count, mx) \
	{ .name = (key), .kind = GAME_FIELD_COUNTED, .off = (o), .len = (n), \
	  .count_off = (count), .max = (mx) }
#define GAME_SEATS(key, o, mx) { .name = (key), .kind = GAME_FIELD_SEATS, .off = (o), .max = (mx) }
#define GAME_GRID(key, o, nrows, n, mx) \
	{ .name = (key), .kind = GAME_FIELD_GRID, .off = (o), .rows = (nrows), .len = (n), \
	  .max = (mx) }
#define GAME_NAME(key, o, list, n) \
	{ .name = (key), .kind = GAME_FIELD_NAME, .off = (o), .names = (list), .len = (n) }

/* Adds to obj the fields f[0..n) of the struct at base (nplayers: the
 * length of GAME_FIELD_SEATS arrays).  Values go in as new references. */
void game_fields_save(json_t *obj, const void *base, const struct game_field *f, size_t n,
		      int nplayers);
/* Reads the fields f[0..n) of obj into the struct at base.  0, or -1 with
 * *bad the first field that is missing or out of range (the struct is
 * then partly written: the caller clears it). */
int game_fields_load(const json_t *obj, void *base, const struct game_field *f, size_t n,
		     int nplayers, const struct game_field **bad);
/* 0 and *out when v is an integer lo..hi, else -1. */
int game_json_int(const json_t *v, json_int_t lo, json_int_t hi, json_int_t *out);

/* ---- registry ---- */

/* Finds a game by id or alias, case- and accent-insensitive; NULL if none. */
const struct game_ops *game_find(const char *name);
/* The registered games, NULL-terminated. */
const struct game_ops *const *game_all(void);

/* ---- generic layer ---- */

/*
 * Parses text against the legal moves of seat: a move's canonical id or its
 * label in any locale, case- and accent-insensitive; an exact match wins,
 * else a unique prefix; a number N picks the N-th line of `moves`.  Returns
 * 0 and *out, or -1 with err (localised): no such move, or an ambiguous text
 * (err lists the candidates), or the seat is not awaited.
 */
int game_parse(const struct game_ops *ops, const void *st, int seat,
	       const char *text, enum locale loc, struct move *out, struct buf *err);

/* A move's label for people: move_label_view with v's names when the game
 * has it, else move_label in v->loc. */
void game_move_label(const struct game_ops *ops, const void *st, int seat, struct move m,
		     const struct game_view *v, struct buf *out);

/* game_parse + apply. */
int game_play(const struct game_ops *ops, void *st, int seat, const char *text,
	      struct game_log *log, enum locale loc, struct buf *err);

/* A new zeroed state of the game's size; the caller frees it. */
void *game_state_new(const struct game_ops *ops);

#endif
