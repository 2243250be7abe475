/*
 * check.c: the checks every backend makes before touching its database
 * (state/store_int.h).
 */
#include "state/store_int.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

void seterr(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	buf_reset(err);
	va_start(ap, fmt);
	buf_vprintf(err, fmt, ap);
	va_end(ap);
}

/*
 * Fixed-size record fields: a string that fills its array without a NUL is
 * longer than the field and refused, never cut.
 */
static int check_field(const char *f, size_t size, const char *what, struct buf *err)
{
	if (!memchr(f, '\0', size)) {
		seterr(err, "store: %s is longer than %zu bytes", what, size - 1);
		return -1;
	}
	return 0;
}

#define CHECK_FIELD(rec, f, what) check_field((rec)->f, sizeof((rec)->f), what, err)

static int check_session(const struct session_rec *s, struct buf *err)
{
	int i;

	if (CHECK_FIELD(s, platform, "session platform") ||
	    CHECK_FIELD(s, room, "session room") ||
	    CHECK_FIELD(s, game, "session game") ||
	    CHECK_FIELD(s, options, "session options") ||
	    CHECK_FIELD(s, creator, "session creator") ||
	    CHECK_FIELD(s, locale, "session locale") ||
	    CHECK_FIELD(s, settings, "session settings") ||
	    CHECK_FIELD(s, community, "session community"))
		return -1;
	if (s->votes && strlen(s->votes) > STORE_VOTES_MAX) {
		seterr(err, "store: session votes are longer than %d bytes", STORE_VOTES_MAX);
		return -1;
	}
	if (s->status < SESSION_LOBBY || s->status > SESSION_ABORTED) {
		seterr(err, "store: session status %d is unknown", (int)s->status);
		return -1;
	}
	if (s->nseats < 0 || s->nseats > STORE_MAX_SEATS) {
		seterr(err, "store: %d seats (at most %d)", s->nseats, STORE_MAX_SEATS);
		return -1;
	}
	for (i = 0; i < s->nseats; i++)
		if (CHECK_FIELD(&s->seats[i], user, "seat user") ||
		    CHECK_FIELD(&s->seats[i], name, "seat name"))
			return -1;
	return 0;
}

static int check_key(const char *platform, size_t np, const char *scope, size_t ns,
		     const char *game, size_t ng, const char *player, size_t nplayer,
		     struct buf *err)
{
	if (check_field(platform, np, "rating platform", err) ||
	    check_field(scope, ns, "rating scope", err) ||
	    check_field(game, ng, "rating game", err) ||
	    check_field(player, nplayer, "rating player", err))
		return -1;
	if (!player[0]) {
		seterr(err, "store: a rating without a player");
		return -1;
	}
	return 0;
}

#define CHECK_KEY(x) check_key((x)->platform, sizeof((x)->platform), (x)->scope, \
			       sizeof((x)->scope), (x)->game, sizeof((x)->game), \
			       (x)->player, sizeof((x)->player), err)

static int check_result(const struct store_commit *c, struct buf *err)
{
	const struct store_result *sr = c->result;
	const struct result_rec *r = sr->result;
	size_t i;

	if (!r) {
		seterr(err, "store: a store_result without its result");
		return -1;
	}
	if (CHECK_FIELD(r, platform, "result platform") || CHECK_FIELD(r, room, "result room") ||
	    CHECK_FIELD(r, community, "result community") || CHECK_FIELD(r, game, "result game") ||
	    CHECK_FIELD(r, options, "result options"))
		return -1;
	if (r->session < 0 || (r->session == 0 && !c->session)) {
		seterr(err, "store: a result needs its session");
		return -1;
	}
	if (c->session && c->session->id && r->session && r->session != c->session->id) {
		seterr(err, "store: the result of session %lld committed with session %lld",
		       (long long)r->session, (long long)c->session->id);
		return -1;
	}
	if (r->nseats < 0 || r->nseats > STORE_MAX_SEATS) {
		seterr(err, "store: a result with %d seats (at most %d)", r->nseats, STORE_MAX_SEATS);
		return -1;
	}
	for (i = 0; i < (size_t)r->nseats; i++) {
		const struct result_seat_rec *t = &r->seats[i];

		if (CHECK_FIELD(t, player, "result player") || CHECK_FIELD(t, name, "result name"))
			return -1;
		if (t->seat < 0 || t->place < 1 || t->nwinners < 0) {
			seterr(err, "store: result seat %d: seat, place or winners out of range",
			       t->seat);
			return -1;
		}
	}
	if ((sr->nratings && !sr->ratings) || (sr->npoints && !sr->points)) {
		seterr(err, "store: ratings or points counted but missing");
		return -1;
	}
	for (i = 0; i < sr->nratings; i++) {
		const struct rating_rec *x = &sr->ratings[i];

		if (CHECK_KEY(x) || CHECK_FIELD(x, name, "rating name"))
			return -1;
		if (!isfinite(x->mu) || !isfinite(x->sigma) || !isfinite(x->wins) ||
		    x->read_games < 0) {
			seterr(err, "store: the rating of %s is not a finite number", x->player);
			return -1;
		}
	}
	for (i = 0; i < sr->npoints; i++) {
		const struct rating_point_rec *x = &sr->points[i];

		if (CHECK_KEY(x))
			return -1;
		if (!isfinite(x->mu) || !isfinite(x->sigma)) {
			seterr(err, "store: a rating point of %s is not a finite number", x->player);
			return -1;
		}
	}
	return 0;
}

int store_check_name(const char *name, const char *what, struct buf *err)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > STORE_NAME_MAX) {
		seterr(err, "store: %s must be 1 to %d bytes", what, STORE_NAME_MAX);
		return -1;
	}
	return 0;
}

int store_check_commit(const struct store_commit *c, struct buf *err)
{
	size_t i;

	if (c->session && check_session(c->session, err))
		return -1;
	if (c->nactions && !c->session) {
		seterr(err, "store: actions need a session");
		return -1;
	}
	if (c->truncate) {
		if (!c->session || c->session->id <= 0) {
			seterr(err, "store: truncating actions needs a stored session");
			return -1;
		}
		if (c->truncate_after < 0) {
			seterr(err, "store: cannot truncate actions after seq %lld",
			       (long long)c->truncate_after);
			return -1;
		}
		/* seq == truncate_after + 1, written so that nothing overflows */
		if (c->nactions && (c->actions[0].seq <= c->truncate_after ||
				    c->actions[0].seq - c->truncate_after != 1)) {
			seterr(err, "store: after truncating at seq %lld the new actions"
			       " must start right after it, not at %lld",
			       (long long)c->truncate_after, (long long)c->actions[0].seq);
			return -1;
		}
	}
	for (i = 0; i < c->nactions; i++)
		if (CHECK_FIELD(&c->actions[i], move, "action move") ||
		    CHECK_FIELD(&c->actions[i], user, "action user"))
			return -1;
	for (i = 0; i < c->noutbox; i++) {
		const struct outbox_rec *o = &c->outbox[i];

		if (CHECK_FIELD(o, platform, "outbox platform") ||
		    CHECK_FIELD(o, room, "outbox room") ||
		    CHECK_FIELD(o, user, "outbox user") ||
		    CHECK_FIELD(o, key, "outbox key"))
			return -1;
		if (!o->payload) {
			seterr(err, "store: outbox message without payload");
			return -1;
		}
	}
	if (c->cursor_delete && !c->cursor_key) {
		seterr(err, "store: deleting a cursor needs its key");
		return -1;
	}
	if (c->cursor_key && !c->cursor_delete && !c->cursor_value) {
		seterr(err, "store: cursor %s without a value", c->cursor_key);
		return -1;
	}
	if (c->owner && c->owner[0] && store_check_name(c->owner, "an outbox owner", err))
		return -1;
	if (c->fence_lease && (store_check_name(c->fence_lease, "a fence lease", err) ||
			       store_check_name(c->fence_holder, "a fence holder", err)))
		return -1;
	if (c->result && check_result(c, err))
		return -1;
	return 0;
}

int store_platform_list(const char *const *platforms, struct buf *out, struct buf *err)
{
	size_t i;

	buf_reset(out);
	buf_addch(out, '\n');
	for (i = 0; platforms && platforms[i]; i++) {
		size_t n = strlen(platforms[i]);

		if (!n || n >= sizeof(((struct session_rec *)0)->platform) ||
		    strchr(platforms[i], '\n') || strchr(platforms[i], ',') ||
		    strchr(platforms[i], '"') || strchr(platforms[i], '\\') ||
		    strchr(platforms[i], '{') || strchr(platforms[i], '}')) {
			seterr(err, "store: a platform name must be 1 to %zu plain characters",
			       sizeof(((struct session_rec *)0)->platform) - 1);
			return -1;
		}
		buf_printf(out, "%s\n", platforms[i]);
	}
	if (!i) {
		seterr(err, "store: a claim needs at least one platform");
		return -1;
	}
	return 0;
}

int64_t store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
