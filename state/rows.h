/*
 * rows.h: the store's row codecs, once for both backends (state/ only):
 * a row into a record (session with its seats, action, outbox message)
 * and a record into a statement's parameters, each field in the same
 * order and with the same checks on SQLite and PostgreSQL.  A backend
 * gives only its driver calls: a column reader over its current row and a
 * parameter writer over its statement.
 */
#ifndef STATE_ROWS_H
#define STATE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "state/store.h"

/*
 * Column order of a session read with its seats (each backend's
 * SESSION_SELECT: the session's columns, then one seat's, LEFT JOINed, so
 * a session without seats has one row with NULL seat columns).
 */
enum rows_session_col {
	SC_ID, SC_PLATFORM, SC_ROOM, SC_GAME, SC_OPTIONS, SC_CREATOR, SC_LOCALE,
	SC_STATUS, SC_SEED, SC_VERSION, SC_CREATED, SC_UPDATED, SC_STATE,
	SC_SETTINGS, SC_DUE, SC_VOTES, SC_COMMUNITY, SC_SEAT, SC_SEAT_USER, SC_SEAT_NAME, SC_SEAT_BOT, SC_SEAT_DM
};

/* One row of a result, as the backend's driver reads it. */
struct rows_reader {
	void *row;
	int64_t (*i64)(void *row, int col);
	int (*is_null)(void *row, int col);
	/* the column's text (NUL-terminated) and its length in bytes; NULL
	 * for SQL NULL */
	const char *(*text)(void *row, int col, size_t *len);
	double (*f64)(void *row, int col);
};

/* A statement's parameters, bound in order from the first. */
struct rows_writer {
	void *ctx;
	void (*i64)(void *ctx, int64_t v);
	void (*text)(void *ctx, const char *s);	/* NULL binds SQL NULL */
	void (*f64)(void *ctx, double v);
};

/* uint64 <-> int64 with the same bits: neither database has unsigned
 * 64-bit integers. */
int64_t rows_seed_to_db(uint64_t seed);
uint64_t rows_seed_from_db(int64_t v);

/* A text column into a fixed field; too long is an error ("stored WHAT
 * is N bytes"), nothing is cut.  NULL is "".  0 or -1 with err. */
int rows_text(const struct rows_reader *r, int col, char *dst, size_t size,
	      const char *what, struct buf *err);

/* A new heap copy of a text column, or NULL for SQL NULL. */
char *rows_strdup(const struct rows_reader *r, int col);

/*
 * One row of a session read with its seats into out: the session's
 * columns when first (out released by the caller before), then the
 * row's seat, if any, appended (seats come in order 0, 1, ...).
 * 0 or -1 with err (unknown status, broken seats, too long fields).
 */
int rows_session(const struct rows_reader *r, int first, struct session_rec *out,
		 struct buf *err);

/* An action from columns col..col+4: seq, seat, move, user, at (the
 * session is the caller's to set).  0 or -1 with err. */
int rows_action(const struct rows_reader *r, int col, struct action_rec *a, struct buf *err);

/* An outbox message from columns 0-6: id, platform, room, user, key,
 * payload, created (o is overwritten: release it before).  0 or -1. */
int rows_outbox(const struct rows_reader *r, struct outbox_rec *o, struct buf *err);

/* A session's 17 parameters: platform, room, game, options, creator,
 * locale, status, seed, created, updated, state, version, settings, the
 * id (14), due, votes ('' for none), community. */
void rows_put_session(const struct rows_writer *w, const struct session_rec *s, int64_t id);

/* A seat's 6: session, seat, user, name, is_bot, notify_dm. */
void rows_put_seat(const struct rows_writer *w, int64_t session, int i,
		   const struct seat_rec *seat);

/* An action's 6: session, seq, seat, move, user, at. */
void rows_put_action(const struct rows_writer *w, int64_t session, const struct action_rec *a);

/* A new outbox message's 7: platform, room, user, key (NULL for ''),
 * payload, created, owner ('' for none). */
void rows_put_outbox(const struct rows_writer *w, const struct outbox_rec *o,
		     const char *owner);

/* A copied outbox message's 8: id, platform, room, user, key (NULL for
 * ''), payload, created, sent_at (NULL for 0: not sent). */
void rows_put_outbox_copy(const struct rows_writer *w, const struct outbox_rec *o,
			  int64_t sent_at);

/*
 * Finished games and ratings (schema migration 6): the columns a read
 * selects, in the order the codecs below read them.  A result is read
 * with its seats like a session (results r LEFT JOIN result_seats t).
 */
#define ROWS_RESULT_COLS \
	"r.session, r.platform, r.room, r.community, r.game, r.options, r.created," \
	" r.finished_at, r.moves, r.rated," \
	" t.seat, t.player, t.name, t.is_bot, t.place, t.score, t.winner, t.nwinners, t.last"
#define ROWS_RATING_COLS \
	"platform, scope, game, player, name, mu, sigma, conservative, games, wins," \
	" place_sum, score_sum, best_score, streak, last_at"
#define ROWS_POINT_COLS "platform, scope, game, player, session, at, mu, sigma"

/* One row of ROWS_RESULT_COLS into out, like rows_session: the result's
 * columns when first (out zeroed before), then the row's seat, if any. */
int rows_result(const struct rows_reader *r, int first, struct result_rec *out,
		struct buf *err);
/* ROWS_RATING_COLS from column 0 into out (found 1, read_games = games). */
int rows_rating(const struct rows_reader *r, struct rating_rec *out, struct buf *err);
/* ROWS_POINT_COLS from column 0 into out. */
int rows_point(const struct rows_reader *r, struct rating_point_rec *out, struct buf *err);

/* A result's 10 parameters: session, platform, room, community, game,
 * options, created, finished_at, moves, rated. */
void rows_put_result(const struct rows_writer *w, const struct result_rec *r, int64_t session);
/* A result seat's 10: session, seat, player, name, is_bot, place, score,
 * winner, nwinners, last. */
void rows_put_result_seat(const struct rows_writer *w, int64_t session,
			  const struct result_seat_rec *t);
/* A rating's 16: ROWS_RATING_COLS (conservative computed here, the one
 * place), then read_games. */
void rows_put_rating(const struct rows_writer *w, const struct rating_rec *r);
/* A point's 8: ROWS_POINT_COLS (session as given). */
void rows_put_point(const struct rows_writer *w, const struct rating_point_rec *p,
		    int64_t session);

#endif
