/*
 * record: what a finished game leaves behind (docs/ratings.md).  From the
 * change that moves a session to SESSION_FINISHED it builds the results
 * row and its seats (places, scores, winners, the players counted last)
 * and, when the room plays rated, the players' new ratings in each scope
 * (the room's community, when it has one, and the whole platform) with
 * one point of each rating curve: all of it goes into that change's
 * commit, so a game is recorded once or not at all.  It reads the
 * ratings it starts from; the store's commit refuses them if another
 * process moved one since (STORE_CONFLICT: the change is made again).
 * It never sends anything.
 */
#include <stdlib.h>
#include <string.h>

#include "bot/ai.h"
#include "bot/rating.h"
#include "bot/record.h"
#include "bot/roomset.h"
#include "util/logging.h"

/* The community (when the room has one) and the platform (""). */
#define RECORD_SCOPES 2

/* What record_build hands out, as one allocation: sr first, so that
 * free() of the store_result frees the whole. */
struct record {
	struct store_result sr;
	struct result_rec result;
	struct rating_rec ratings[RECORD_SCOPES * STORE_MAX_SEATS];
	struct rating_point_rec points[RECORD_SCOPES * STORE_MAX_SEATS];
};

/* The players a game rates: the seat each one is rated for. */
struct rated {
	int n;
	int seat[STORE_MAX_SEATS];
};

static void copy(char *dst, size_t n, const char *src)
{
	session_copy_field(dst, n, src ? src : "");
}

/* The seats' rows.  A seat the AI took from its human (a kick) or decided
 * for (a timeout) is that human's, counted last; an AI seat from the start
 * is the AI of the room's level.  Places: the game's ranks, its winners
 * first, the last seats below everyone (rating_ranks). */
static void fill_seats(const struct change *c, const struct game_result *gr,
		       struct result_rec *r)
{
	const struct session_rec *rec = &c->rec;
	const char *ai = ai_searches(rec, c->s->ops) ? RECORD_AI_STRONG : RECORD_AI_BASIC;
	struct room_settings rs;
	int neg[STORE_MAX_SEATS], place[STORE_MAX_SEATS];
	unsigned char win[STORE_MAX_SEATS], last[STORE_MAX_SEATS];
	int i, n = rec->nseats, nwin = 0;

	roomset_read(rec, &rs);
	for (i = 0; i < n; i++) {
		const struct seat_rec *seat = &rec->seats[i];

		last[i] = ((rs.last >> i) & 1u) || (seat->is_bot && seat->user[0]);
		win[i] = ((gr->winners >> i) & 1u) && !last[i];
		nwin += win[i];
		/* lower game rank, better: rating_ranks sorts scores higher first */
		neg[i] = i < gr->nseats ? -gr->rank[i] : 0;
	}
	rating_ranks(neg, win, last, n, place);
	r->nseats = n;
	for (i = 0; i < n; i++) {
		const struct seat_rec *seat = &rec->seats[i];
		struct result_seat_rec *o = &r->seats[i];
		int ai_seat = seat->is_bot && !seat->user[0];

		memset(o, 0, sizeof(*o));
		o->seat = i;
		copy(o->player, sizeof(o->player), ai_seat ? ai : seat->user);
		copy(o->name, sizeof(o->name), seat->name);
		o->is_bot = ai_seat;
		o->place = place[i];
		o->score = i < gr->nseats ? gr->score[i] : 0;
		o->winner = win[i];
		o->nwinners = nwin;
		o->last = last[i];
	}
}

/* Who is rated: every player once, for their best-placed seat (two AI
 * seats of one level are one player, who cannot play against itself). */
static void pick_rated(const struct result_rec *r, struct rated *p)
{
	int order[STORE_MAX_SEATS];
	int i, j, k, n = r->nseats;

	for (i = 0; i < n; i++) {
		/* insertion by place, stable: the seat order breaks ties */
		for (j = i; j > 0 && r->seats[order[j - 1]].place > r->seats[i].place; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	p->n = 0;
	for (i = 0; i < n; i++) {
		const char *key = r->seats[order[i]].player;

		for (k = 0; k < p->n && strcmp(r->seats[p->seat[k]].player, key); k++)
			;
		if (k == p->n && key[0])
			p->seat[p->n++] = order[i];
	}
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* One scope's new rating rows and points, appended to x.  -1 (err) when
 * the store cannot be read; a stored rating rating_update refuses (a
 * corrupt row) rates nothing in that scope, so the game still ends. */
static int rate_scope(struct session_mgr *m, struct record *x, const struct rated *p,
		      const char *scope, struct buf *err)
{
	const struct result_rec *r = &x->result;
	struct rating_rec *rows = &x->ratings[x->sr.nratings];
	struct rating_point_rec *pts = &x->points[x->sr.npoints];
	const char *keys[STORE_MAX_SEATS];
	struct rating rt[STORE_MAX_SEATS];
	int rank[STORE_MAX_SEATS];
	struct buf why = BUF_INIT;
	int k;

	for (k = 0; k < p->n; k++)
		keys[k] = r->seats[p->seat[k]].player;
	if (store_ratings_get(m->store, r->platform, scope, r->game, keys, (size_t)p->n, rows,
			      err))
		return -1;
	for (k = 0; k < p->n; k++) {
		if (rows[k].found) {
			rt[k].mu = rows[k].mu;
			rt[k].sigma = rows[k].sigma;
		} else {
			rating_default(&rt[k]);
		}
		rank[k] = r->seats[p->seat[k]].place;
	}
	if (rating_update(NULL, rt, rank, p->n, &why)) {
		log_warn("%s/%s: not rated in scope \"%s\": %s", r->platform, r->room, scope,
			 buf_str(&why));
		buf_release(&why);
		return 0;
	}
	for (k = 0; k < p->n; k++) {
		const struct result_seat_rec *seat = &r->seats[p->seat[k]];
		struct rating_rec *o = &rows[k];
		int64_t had = o->found ? o->games : 0;

		copy(o->platform, sizeof(o->platform), r->platform);
		copy(o->scope, sizeof(o->scope), scope);
		copy(o->game, sizeof(o->game), r->game);
		copy(o->player, sizeof(o->player), seat->player);
		copy(o->name, sizeof(o->name), !strcmp(seat->player, RECORD_AI_STRONG) ? "AI strong"
		     : !strcmp(seat->player, RECORD_AI_BASIC) ? "AI basic" : seat->name);
		o->read_games = had;
		o->mu = rt[k].mu;
		o->sigma = rt[k].sigma;
		o->conservative = rating_conservative(&rt[k]);
		o->games = had + 1;
		o->wins += seat->winner ? 1.0 / seat->nwinners : 0.0;
		o->place_sum += seat->place;
		o->score_sum += seat->score;
		o->best_score = had ? max64(o->best_score, seat->score) : seat->score;
		if (seat->winner)
			o->streak = o->streak > 0 ? o->streak + 1 : 1;
		else
			o->streak = o->streak < 0 ? o->streak - 1 : -1;
		o->last_at = r->finished_at;

		memset(&pts[k], 0, sizeof(pts[k]));
		copy(pts[k].platform, sizeof(pts[k].platform), r->platform);
		copy(pts[k].scope, sizeof(pts[k].scope), scope);
		copy(pts[k].game, sizeof(pts[k].game), r->game);
		copy(pts[k].player, sizeof(pts[k].player), seat->player);
		pts[k].at = r->finished_at;
		pts[k].mu = rt[k].mu;
		pts[k].sigma = rt[k].sigma;
	}
	x->sr.nratings += (size_t)p->n;
	x->sr.npoints += (size_t)p->n;
	return 0;
}

int record_build(struct session_mgr *m, const struct change *c, struct store_result **out,
		 struct buf *err)
{
	const void *st = c->st ? c->st : c->s->st;
	struct game_result gr;
	struct room_settings rs;
	struct record *x;
	struct rated p;
	int64_t moves;

	*out = NULL;
	if (c->rec.status != SESSION_FINISHED || c->s->rec.status == SESSION_FINISHED || !st)
		return 0;
	memset(&gr, 0, sizeof(gr));
	if (!c->s->ops->result(st, &gr)) {
		log_warn("%s/%s: the game ended without a result: not recorded", c->rec.platform,
			 c->rec.room);
		return 0;
	}
	x = xcalloc(1, sizeof(*x));
	moves = (c->truncate ? c->truncate_after : c->s->last_seq) + (int64_t)c->nactions;
	roomset_read(&c->rec, &rs);
	/* session 0: the commit's own session (a new one has no id yet) */
	copy(x->result.platform, sizeof(x->result.platform), c->rec.platform);
	copy(x->result.room, sizeof(x->result.room), c->rec.room);
	copy(x->result.community, sizeof(x->result.community), c->rec.community);
	copy(x->result.game, sizeof(x->result.game), c->rec.game);
	copy(x->result.options, sizeof(x->result.options), c->rec.options);
	x->result.created = c->rec.created;
	x->result.finished_at = session_now(m);
	x->result.moves = moves;
	fill_seats(c, &gr, &x->result);
	pick_rated(&x->result, &p);
	x->result.rated = rs.rated && p.n >= 2;
	x->sr.result = &x->result;
	x->sr.ratings = x->ratings;
	x->sr.points = x->points;
	if (x->result.rated &&
	    ((x->result.community[0] && rate_scope(m, x, &p, x->result.community, err)) ||
	     rate_scope(m, x, &p, "", err))) {
		free(x);
		return -1;
	}
	*out = &x->sr;
	return 0;
}
