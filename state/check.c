/*
 * check.c: the checks every backend makes before touching its database
 * (state/store_int.h).
 */
#include "state/store_int.h"

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
	    CHECK_FIELD(s, settings, "session settings"))
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
