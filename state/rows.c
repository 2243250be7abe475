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
	    ROWS_TEXT(r, SC_SETTINGS, out, settings, "session settings"))
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
