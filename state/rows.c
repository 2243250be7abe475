/*
 * rows.c: the store's row codecs, shared by state/sqlite.c and
 * state/postgres.c (state/rows.h): what a row means is written here once,
 * so the two backends cannot read or write a record differently.
 */
#include "state/rows.h"

#include <string.h>

#include "state/store_int.h"

int64_t rows_seed_to_db(uint64_t seed)
{
	int64_t v;

	memcpy(&v, &seed, sizeof(v));
	return v;
}

uint64_t rows_seed_from_db(int64_t v)
{
	uint64_t seed;

	memcpy(&seed, &v, sizeof(seed));
	return seed;
}

int rows_text(const struct rows_reader *r, int col, char *dst, size_t size,
	      const char *what, struct buf *err)
{
	size_t n = 0;
	const char *t = r->text(r->row, col, &n);

	if (!t) {
		dst[0] = '\0';
		return 0;
	}
	if (n >= size) {
		seterr(err, "store: stored %s is %zu bytes, longer than the %zu allowed",
		       what, n, size - 1);
		return -1;
	}
	memcpy(dst, t, n);
	dst[n] = '\0';
	return 0;
}

#define ROWS_TEXT(r, col, rec, f, what) \
	rows_text(r, col, (rec)->f, sizeof((rec)->f), what, err)

char *rows_strdup(const struct rows_reader *r, int col)
{
	size_t n = 0;
	const char *t = r->text(r->row, col, &n);
	char *p;

	if (!t)
		return NULL;
	p = xmalloc(n + 1);
	memcpy(p, t, n);
	p[n] = '\0';
	return p;
}

static int session_cols(const struct rows_reader *r, struct session_rec *out,
			struct buf *err)
{
	int status = (int)r->i64(r->row, SC_STATUS);
	size_t votes = 0;

	out->id = r->i64(r->row, SC_ID);
	if (ROWS_TEXT(r, SC_PLATFORM, out, platform, "session platform") ||
	    ROWS_TEXT(r, SC_ROOM, out, room, "session room") ||
	    ROWS_TEXT(r, SC_GAME, out, game, "session game") ||
	    ROWS_TEXT(r, SC_OPTIONS, out, options, "session options") ||
	    ROWS_TEXT(r, SC_CREATOR, out, creator, "session creator") ||
	    ROWS_TEXT(r, SC_LOCALE, out, locale, "session locale") ||
	    ROWS_TEXT(r, SC_SETTINGS, out, settings, "session settings") ||
	    ROWS_TEXT(r, SC_COMMUNITY, out, community, "session community"))
		return -1;
	if (status < SESSION_LOBBY || status > SESSION_ABORTED) {
		seterr(err, "store: session %lld has unknown status %d",
		       (long long)out->id, status);
		return -1;
	}
	out->status = (enum session_status)status;
	out->seed = rows_seed_from_db(r->i64(r->row, SC_SEED));
	out->version = r->i64(r->row, SC_VERSION);
	out->created = r->i64(r->row, SC_CREATED);
	out->updated = r->i64(r->row, SC_UPDATED);
	out->due = r->i64(r->row, SC_DUE);
	out->state = rows_strdup(r, SC_STATE);
	r->text(r->row, SC_VOTES, &votes);
	if (votes > STORE_VOTES_MAX) {
		seterr(err, "store: stored votes of session %lld are %d bytes, longer than"
		       " the %d allowed", (long long)out->id, (int)votes, STORE_VOTES_MAX);
		return -1;
	}
	/* '' is "no votes": read back as NULL, as most sessions have none */
	if (votes > 0)
		out->votes = rows_strdup(r, SC_VOTES);
	return 0;
}

static int seat_cols(const struct rows_reader *r, struct session_rec *out, struct buf *err)
{
	struct seat_rec *seat;
	int64_t i = r->i64(r->row, SC_SEAT);

	if (i != out->nseats || out->nseats >= STORE_MAX_SEATS) {
		seterr(err, "store: session %lld has broken seats (seat %lld after %d)",
		       (long long)out->id, (long long)i, out->nseats);
		return -1;
	}
	seat = &out->seats[out->nseats];
	if (ROWS_TEXT(r, SC_SEAT_USER, seat, user, "seat user") ||
	    ROWS_TEXT(r, SC_SEAT_NAME, seat, name, "seat name"))
		return -1;
	seat->is_bot = (int)r->i64(r->row, SC_SEAT_BOT);
	seat->notify_dm = (int)r->i64(r->row, SC_SEAT_DM);
	out->nseats++;
	return 0;
}

int rows_session(const struct rows_reader *r, int first, struct session_rec *out,
		 struct buf *err)
{
	if (first && session_cols(r, out, err))
		return -1;
	if (!r->is_null(r->row, SC_SEAT) && seat_cols(r, out, err))
		return -1;
	return 0;
}

int rows_action(const struct rows_reader *r, int col, struct action_rec *a, struct buf *err)
{
	memset(a, 0, sizeof(*a));
	a->seq = r->i64(r->row, col);
	a->seat = (int)r->i64(r->row, col + 1);
	a->at = r->i64(r->row, col + 4);
	if (ROWS_TEXT(r, col + 2, a, move, "action move") ||
	    ROWS_TEXT(r, col + 3, a, user, "action user"))
		return -1;
	return 0;
}

int rows_outbox(const struct rows_reader *r, struct outbox_rec *o, struct buf *err)
{
	memset(o, 0, sizeof(*o));
	o->id = r->i64(r->row, 0);
	o->created = r->i64(r->row, 6);
	if (ROWS_TEXT(r, 1, o, platform, "outbox platform") ||
	    ROWS_TEXT(r, 2, o, room, "outbox room") ||
	    ROWS_TEXT(r, 3, o, user, "outbox user") ||
	    ROWS_TEXT(r, 4, o, key, "outbox key"))
		return -1;
	o->payload = rows_strdup(r, 5);
	return 0;
}

void rows_put_session(const struct rows_writer *w, const struct session_rec *s, int64_t id)
{
	w->text(w->ctx, s->platform);
	w->text(w->ctx, s->room);
	w->text(w->ctx, s->game);
	w->text(w->ctx, s->options);
	w->text(w->ctx, s->creator);
	w->text(w->ctx, s->locale);
	w->i64(w->ctx, (int64_t)s->status);
	w->i64(w->ctx, rows_seed_to_db(s->seed));
	w->i64(w->ctx, s->created);
	w->i64(w->ctx, s->updated);
	w->text(w->ctx, s->state);
	w->i64(w->ctx, s->version);
	w->text(w->ctx, s->settings);
	w->i64(w->ctx, id);
	w->i64(w->ctx, s->due);
	w->text(w->ctx, s->votes ? s->votes : "");
	w->text(w->ctx, s->community);
}

void rows_put_seat(const struct rows_writer *w, int64_t session, int i,
		   const struct seat_rec *seat)
{
	w->i64(w->ctx, session);
	w->i64(w->ctx, i);
	w->text(w->ctx, seat->user);
	w->text(w->ctx, seat->name);
	w->i64(w->ctx, seat->is_bot);
	w->i64(w->ctx, seat->notify_dm);
}

void rows_put_action(const struct rows_writer *w, int64_t session, const struct action_rec *a)
{
	w->i64(w->ctx, session);
	w->i64(w->ctx, a->seq);
	w->i64(w->ctx, a->seat);
	w->text(w->ctx, a->move);
	w->text(w->ctx, a->user);
	w->i64(w->ctx, a->at);
}

void rows_put_outbox(const struct rows_writer *w, const struct outbox_rec *o,
		     const char *owner)
{
	w->text(w->ctx, o->platform);
	w->text(w->ctx, o->room);
	w->text(w->ctx, o->user);
	w->text(w->ctx, o->key[0] ? o->key : NULL);
	w->text(w->ctx, o->payload);
	w->i64(w->ctx, o->created);
	w->text(w->ctx, owner ? owner : "");
}

void rows_put_outbox_copy(const struct rows_writer *w, const struct outbox_rec *o,
			  int64_t sent_at)
{
	w->i64(w->ctx, o->id);
	w->text(w->ctx, o->platform);
	w->text(w->ctx, o->room);
	w->text(w->ctx, o->user);
	w->text(w->ctx, o->key[0] ? o->key : NULL);
	w->text(w->ctx, o->payload ? o->payload : "");
	w->i64(w->ctx, o->created);
	if (sent_at)
		w->i64(w->ctx, sent_at);
	else
		w->text(w->ctx, NULL);
}

/* ------------------------------------------- finished games and ratings */

static int result_cols(const struct rows_reader *r, struct result_rec *out, struct buf *err)
{
	memset(out, 0, sizeof(*out));
	out->session = r->i64(r->row, 0);
	out->created = r->i64(r->row, 6);
	out->finished_at = r->i64(r->row, 7);
	out->moves = r->i64(r->row, 8);
	out->rated = (int)r->i64(r->row, 9);
	if (ROWS_TEXT(r, 1, out, platform, "result platform") ||
	    ROWS_TEXT(r, 2, out, room, "result room") ||
	    ROWS_TEXT(r, 3, out, community, "result community") ||
	    ROWS_TEXT(r, 4, out, game, "result game") ||
	    ROWS_TEXT(r, 5, out, options, "result options"))
		return -1;
	return 0;
}

int rows_result(const struct rows_reader *r, int first, struct result_rec *out,
		struct buf *err)
{
	struct result_seat_rec *t;

	if (first && result_cols(r, out, err))
		return -1;
	if (r->is_null(r->row, 10))
		return 0;
	if (out->nseats >= STORE_MAX_SEATS) {
		seterr(err, "store: the result of session %lld has more than %d seats",
		       (long long)out->session, STORE_MAX_SEATS);
		return -1;
	}
	t = &out->seats[out->nseats];
	t->seat = (int)r->i64(r->row, 10);
	t->is_bot = (int)r->i64(r->row, 13);
	t->place = (int)r->i64(r->row, 14);
	t->score = r->i64(r->row, 15);
	t->winner = (int)r->i64(r->row, 16);
	t->nwinners = (int)r->i64(r->row, 17);
	t->last = (int)r->i64(r->row, 18);
	if (ROWS_TEXT(r, 11, t, player, "result player") ||
	    ROWS_TEXT(r, 12, t, name, "result name"))
		return -1;
	out->nseats++;
	return 0;
}

int rows_rating(const struct rows_reader *r, struct rating_rec *out, struct buf *err)
{
	memset(out, 0, sizeof(*out));
	if (ROWS_TEXT(r, 0, out, platform, "rating platform") ||
	    ROWS_TEXT(r, 1, out, scope, "rating scope") ||
	    ROWS_TEXT(r, 2, out, game, "rating game") ||
	    ROWS_TEXT(r, 3, out, player, "rating player") ||
	    ROWS_TEXT(r, 4, out, name, "rating name"))
		return -1;
	out->mu = r->f64(r->row, 5);
	out->sigma = r->f64(r->row, 6);
	out->conservative = r->f64(r->row, 7);
	out->games = r->i64(r->row, 8);
	out->wins = r->f64(r->row, 9);
	out->place_sum = r->i64(r->row, 10);
	out->score_sum = r->i64(r->row, 11);
	out->best_score = r->i64(r->row, 12);
	out->streak = r->i64(r->row, 13);
	out->last_at = r->i64(r->row, 14);
	out->read_games = out->games;
	out->found = 1;
	return 0;
}

int rows_point(const struct rows_reader *r, struct rating_point_rec *out, struct buf *err)
{
	memset(out, 0, sizeof(*out));
	if (ROWS_TEXT(r, 0, out, platform, "point platform") ||
	    ROWS_TEXT(r, 1, out, scope, "point scope") ||
	    ROWS_TEXT(r, 2, out, game, "point game") ||
	    ROWS_TEXT(r, 3, out, player, "point player"))
		return -1;
	out->session = r->i64(r->row, 4);
	out->at = r->i64(r->row, 5);
	out->mu = r->f64(r->row, 6);
	out->sigma = r->f64(r->row, 7);
	return 0;
}

void rows_put_result(const struct rows_writer *w, const struct result_rec *r, int64_t session)
{
	w->i64(w->ctx, session);
	w->text(w->ctx, r->platform);
	w->text(w->ctx, r->room);
	w->text(w->ctx, r->community);
	w->text(w->ctx, r->game);
	w->text(w->ctx, r->options);
	w->i64(w->ctx, r->created);
	w->i64(w->ctx, r->finished_at);
	w->i64(w->ctx, r->moves);
	w->i64(w->ctx, r->rated ? 1 : 0);
}

void rows_put_result_seat(const struct rows_writer *w, int64_t session,
			  const struct result_seat_rec *t)
{
	w->i64(w->ctx, session);
	w->i64(w->ctx, t->seat);
	w->text(w->ctx, t->player);
	w->text(w->ctx, t->name);
	w->i64(w->ctx, t->is_bot ? 1 : 0);
	w->i64(w->ctx, t->place);
	w->i64(w->ctx, t->score);
	w->i64(w->ctx, t->winner ? 1 : 0);
	w->i64(w->ctx, t->nwinners);
	w->i64(w->ctx, t->last ? 1 : 0);
}

void rows_put_rating(const struct rows_writer *w, const struct rating_rec *r)
{
	w->text(w->ctx, r->platform);
	w->text(w->ctx, r->scope);
	w->text(w->ctx, r->game);
	w->text(w->ctx, r->player);
	w->text(w->ctx, r->name);
	w->f64(w->ctx, r->mu);
	w->f64(w->ctx, r->sigma);
	w->f64(w->ctx, r->mu - 3.0 * r->sigma);
	w->i64(w->ctx, r->games);
	w->f64(w->ctx, r->wins);
	w->i64(w->ctx, r->place_sum);
	w->i64(w->ctx, r->score_sum);
	w->i64(w->ctx, r->best_score);
	w->i64(w->ctx, r->streak);
	w->i64(w->ctx, r->last_at);
	w->i64(w->ctx, r->read_games);
}

void rows_put_point(const struct rows_writer *w, const struct rating_point_rec *p,
		    int64_t session)
{
	w->text(w->ctx, p->platform);
	w->text(w->ctx, p->scope);
	w->text(w->ctx, p->game);
	w->text(w->ctx, p->player);
	w->i64(w->ctx, session);
	w->i64(w->ctx, p->at);
	w->f64(w->ctx, p->mu);
	w->f64(w->ctx, p->sigma);
}
