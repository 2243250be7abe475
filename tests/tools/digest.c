/*
 * tabula-digest: a fingerprint of everything a game core says, for
 * refactors that must not change behaviour (docs/performance.md).
 *
 *   tabula-digest <game id> [games] [first seed]
 *
 * Plays `games` seeded games (default 2000) through the driver table and
 * prints one line per game, "<index> <players> <mode> <options> <digest>",
 * then "total <digest>".  The digest (64-bit FNV-1a) covers, at every
 * decision: awaiting(); every seat's moves() list, with each awaited
 * seat's move ids, labels and prompt in both languages; the state's bytes
 * after each move; the log lines (seat and text) of each move; refusals
 * of moves that are not listed and of seats not awaited (their messages);
 * and, every few decisions (every one in some games), render_public and
 * render_private of every seat in both languages, secrets(), save() and a
 * load() round trip, check(), and determinize() plus bot_move() on a copy.
 * At the end result().  Games vary the players, the option words, uniform
 * random seats against AI seats (bot_move), the seat picked among the
 * awaited ones, and a NULL log (the playout path).
 *
 * The same binary built on two trees and run with the same arguments
 * prints the same lines exactly when the two cores behave the same on
 * those games.  A test tool, never installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"

static const char *const names[GAME_MAX_SEATS] = {
	"ana", "bo", "cy", "di", "ed", "fa", "gu", "hi",
};

struct digest {
	uint64_t h;
};

static void dig(struct digest *d, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		d->h ^= b[i];
		d->h *= 0x100000001b3ULL;
	}
}

static void dig_int(struct digest *d, long v)
{
	dig(d, &v, sizeof(v));
}

static void dig_str(struct digest *d, const char *s)
{
	dig(d, s, strlen(s) + 1);
}

static void dig_buf(struct digest *d, struct buf *b)
{
	dig_str(d, buf_str(b));
	buf_reset(b);
}

static void dig_json(struct digest *d, json_t *j)
{
	char *s = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;

	dig_str(d, s ? s : "(null)");
	free(s);
}

static void dig_rich(struct digest *d, struct rich *r)
{
	json_t *j = rich_to_json(r);

	dig_json(d, j);
	json_decref(j);
	rich_release(r);
	rich_init(r);
}

static void emit(struct game_log *log, int seat, const char *text)
{
	struct digest *d = log->ctx;

	dig_int(d, seat);
	dig_str(d, text);
}

/* The slow observers: what the board, the store and the AI see. */
static void observe(const struct game_ops *g, const void *st, int n, struct digest *d,
		    struct rng *r)
{
	struct game_view v;
	struct rich out = RICH_INIT;
	struct buf b = BUF_INIT;
	void *copy = xmalloc(g->state_size);
	json_t *j;
	int loc, seat, rc;

	for (loc = 0; loc < LOC_COUNT; loc++) {
		v.loc = (enum locale)loc;
		v.nseats = n;
		v.names = names;
		g->render_public(st, &v, &out);
		dig_rich(d, &out);
		for (seat = 0; seat < n; seat++) {
			g->render_private(st, seat, &v, &out);
			dig_rich(d, &out);
		}
		if (g->secrets) {
			g->secrets(st, (enum locale)loc, &b);
			dig_buf(d, &b);
		}
	}
	j = g->save(st);
	dig_json(d, j);
	memset(copy, 0, g->state_size);
	rc = g->load(copy, j, &b);
	dig_int(d, rc);
	dig_buf(d, &b);
	dig_int(d, memcmp(copy, st, g->state_size) != 0);
	json_decref(j);
	if (g->check) {
		dig_int(d, g->check(st, &b));
		dig_buf(d, &b);
	}
	if (g->determinize) {
		unsigned aw = g->awaiting(st);

		for (seat = 0; seat < n; seat++) {
			struct move m = { 0 };

			if (!(aw & (1u << seat)))
				continue;
			memcpy(copy, st, g->state_size);
			g->determinize(copy, seat, r);
			dig(d, copy, g->state_size);
			dig_int(d, g->bot_move(copy, seat, r, &m));
			dig(d, &m, sizeof(m));
		}
	}
	free(copy);
	buf_release(&b);
}

static int listed(const struct move_list *ml, struct move m)
{
	int i;

	for (i = 0; i < ml->n; i++)
		if (!memcmp(&ml->v[i], &m, sizeof(m)))
			return 1;
	return 0;
}

/* Moves that are not listed, and a seat not awaited: refused, the state
 * untouched (hashed after). */
static void refusals(const struct game_ops *g, void *st, int seat, unsigned aw,
		     const struct move_list *ml, struct game_log *log, struct rng *r,
		     struct digest *d)
{
	struct buf err = BUF_INIT;
	struct move m;
	int k, other;

	for (k = 0; k < 4; k++) {
		m = ml->n ? ml->v[rng_below(r, (uint32_t)ml->n)] : (struct move){ 0 };
		switch (rng_below(r, 5)) {
		case 0:
			m.kind = (uint16_t)(m.kind + 1);
			break;
		case 1:
			m.a = (uint16_t)(m.a + 1 + rng_below(r, 3));
			break;
		case 2:
			m.b = (uint16_t)(m.b ^ 1);
			break;
		case 3:
			m.c = (uint16_t)(m.c + 1);
			break;
		default:
			m.a = (uint16_t)rng_below(r, 64);
			m.kind = (uint16_t)rng_below(r, 40);
			break;
		}
		if (listed(ml, m))
			continue;
		dig_int(d, g->apply(st, seat, m, log, &err));
		dig_buf(d, &err);
	}
	for (other = 0; other < GAME_MAX_SEATS; other++)
		if (!(aw & (1u << other)))
			break;
	if (ml->n) {
		dig_int(d, g->apply(st, other, ml->v[0], log, &err));
		dig_buf(d, &err);
	}
	buf_release(&err);
}

static uint64_t play(const struct game_ops *g, long index, uint64_t seed, int *np,
		     unsigned *modep, struct buf *opts)
{
	struct digest d = { 0xcbf29ce484222325ULL };
	struct rng r, br;
	struct move_list *ml = xmalloc(sizeof(*ml));
	void *st = xcalloc(1, g->state_size);
	struct buf b = BUF_INIT;
	struct game_log log = { 0 };
	struct game_result res;
	int n, k, nw = 0, every, quiet, seat, decisions = 0;
	unsigned ai, aw;

	rng_seed(&r, seed, 0x6469u);
	rng_seed(&br, seed, 0x626fu);
	n = g->min_players + (int)(index % (g->max_players - g->min_players + 1));
	/* options: none in a quarter of the games, else a random subset */
	buf_reset(opts);
	while (g->option_words && g->option_words[nw])
		nw++;
	if (nw && rng_below(&r, 4)) {
		uint32_t mask = rng_next(&r);

		for (k = 0; k < nw; k++)
			if (mask & (1u << k))
				buf_printf(opts, "%s%s", opts->len ? " " : "", g->option_words[k]);
	}
	/* seats: all random, all AI, or mixed */
	if (index % 3 == 0)
		ai = 0;
	else if (index % 3 == 1)
		ai = (1u << n) - 1;
	else
		ai = rng_next(&r) & ((1u << n) - 1);
	every = index % 5 == 0 ? 1 : 7;
	quiet = index % 4 == 3;		/* a NULL log, as playouts apply */
	log.loc = index & 1 ? LOC_ES : LOC_EN;
	log.names = names;
	log.emit = emit;
	log.ctx = &d;
	*np = n;
	*modep = ai;

	dig_int(&d, g->setup(st, n, seed, buf_str(opts), &b));
	dig_buf(&d, &b);
	if (g->intro) {
		struct game_log il = log;

		for (k = 0; k < LOC_COUNT; k++) {
			il.loc = (enum locale)k;
			g->intro(st, &il);
		}
	}
	for (;;) {
		struct move m;
		unsigned pick;
		int i;

		aw = g->awaiting(st);
		dig_int(&d, aw);
		dig(&d, st, g->state_size);
		if (decisions % every == 0)
			observe(g, st, n, &d, &br);
		if (!aw)
			break;
		for (seat = 0; seat < n; seat++) {
			g->moves(st, seat, ml);
			dig_int(&d, ml->n);
			dig_int(&d, ml->nmeta);
			dig(&d, ml->v, (size_t)ml->n * sizeof(ml->v[0]));
			if (!(aw & (1u << seat)))
				continue;
			for (k = 0; k < LOC_COUNT; k++) {
				g->prompt(st, seat, (enum locale)k, &b);
				dig_buf(&d, &b);
			}
			for (i = 0; i < ml->n; i++) {
				g->move_id(st, seat, ml->v[i], &b);
				dig_buf(&d, &b);
				for (k = 0; k < LOC_COUNT; k++) {
					g->move_label(st, seat, ml->v[i], (enum locale)k, &b);
					dig_buf(&d, &b);
				}
			}
		}
		/* a seat among the awaited ones */
		pick = rng_below(&r, (uint32_t)__builtin_popcount(aw));
		for (seat = 0; seat < n; seat++)
			if ((aw >> seat) & 1 && pick-- == 0)
				break;
		g->moves(st, seat, ml);
		if (decisions % 3 == 0)
			refusals(g, st, seat, aw, ml, quiet ? NULL : &log, &r, &d);
		if ((ai >> seat) & 1) {
			dig_int(&d, g->bot_move(st, seat, &br, &m));
		} else if (ml->nmeta && rng_below(&r, 400) == 0) {
			m = ml->v[ml->n - 1 - (int)rng_below(&r, (uint32_t)ml->nmeta)];
		} else {
			m = ml->v[rng_below(&r, (uint32_t)(ml->n - ml->nmeta))];
		}
		dig(&d, &m, sizeof(m));
		if (g->apply(st, seat, m, quiet ? NULL : &log, &b)) {
			fprintf(stderr, "%s game %ld: apply: %s\n", g->id, index, buf_str(&b));
			exit(1);
		}
		decisions++;
	}
	k = g->result(st, &res);
	dig_int(&d, k);
	if (k) {
		dig_int(&d, res.nseats);
		dig(&d, res.score, sizeof(res.score));
		dig(&d, res.rank, sizeof(res.rank));
		dig(&d, res.eligible, sizeof(res.eligible));
		dig_int(&d, res.winners);
	}
	dig_int(&d, decisions);
	free(st);
	free(ml);
	buf_release(&b);
	return d.h;
}

int main(int argc, char **argv)
{
	const struct game_ops *g = argc > 1 ? game_find(argv[1]) : NULL;
	long games = argc > 2 ? atol(argv[2]) : 2000, i;
	uint64_t first = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
	struct digest total = { 0xcbf29ce484222325ULL };
	struct buf opts = BUF_INIT;

	if (!g) {
		fprintf(stderr, "usage: tabula-digest <game id> [games] [first seed]\n");
		return 2;
	}
	for (i = 0; i < games; i++) {
		unsigned mode;
		int n;
		uint64_t h = play(g, i, first + (uint64_t)i, &n, &mode, &opts);

		printf("%ld %dp ai=%x [%s] %016llx\n", i, n, mode, buf_str(&opts),
		       (unsigned long long)h);
		dig(&total, &h, sizeof(h));
	}
	printf("total %016llx\n", (unsigned long long)total.h);
	buf_release(&opts);
	return 0;
}
