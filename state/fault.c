/*
 * fault.c: a store that forwards to another and makes its writes fail on
 * demand (SQLite's *fault.test, curl's torture mode).  Tests use it to
 * prove that a failed commit stores nothing and that the caller recovers.
 *
 * Writes are commit, outbox_done and cursor_set, numbered from 1 in the
 * order they are attempted.  Reads always go through, and so do leases,
 * claims, dump and import (what they change is not a game's).
 */
#include "state/store.h"

#include <assert.h>
#include <stdlib.h>

struct fault_store {
	struct store base;
	struct store_ops ops;	/* fault_ops with the inner store's caps */
	struct store *inner;	/* owned */
	int fail_at;		/* <= 0: never */
	int writes;		/* attempted so far */
	int healed;
	int conflicts;		/* commits still to refuse as STORE_CONFLICT */
};

static const struct store_ops fault_ops;

static struct fault_store *fault_downcast(struct store *s)
{
	assert(s && s->ops->close == fault_ops.close);
	return (struct fault_store *)s;
}

/* Counts one write; 1 when it must fail (err filled). */
static int fault_hit(struct fault_store *fs, struct buf *err)
{
	fs->writes++;
	if (fs->healed || fs->fail_at <= 0 || fs->writes < fs->fail_at)
		return 0;
	if (err)
		buf_setf(err, "injected fault");
	return 1;
}

static void fault_close(struct store *s)
{
	struct fault_store *fs = fault_downcast(s);

	store_close(fs->inner);
	free(fs);
}

static int fault_commit(struct store *s, struct store_commit *c, struct buf *err)
{
	struct fault_store *fs = fault_downcast(s);

	if (fault_hit(fs, err))
		return -1;
	if (fs->conflicts > 0 && c->session && c->session->id) {
		fs->conflicts--;
		if (err)
			buf_setf(err, "store: session %lld was changed elsewhere (injected)",
				 (long long)c->session->id);
		return STORE_CONFLICT;
	}
	return store_commit(fs->inner, c, err);
}

static int fault_session_current(struct store *s, const char *platform,
				 const char *room, struct session_rec *out,
				 struct buf *err)
{
	return store_session_current(fault_downcast(s)->inner, platform, room, out, err);
}

static int fault_session_get(struct store *s, int64_t id, struct session_rec *out,
			     struct buf *err)
{
	return store_session_get(fault_downcast(s)->inner, id, out, err);
}

static int fault_sessions_open(struct store *s, store_session_cb cb, void *ctx,
			       struct buf *err)
{
	return store_sessions_open(fault_downcast(s)->inner, cb, ctx, err);
}

static int fault_actions(struct store *s, int64_t session, int64_t after,
			 store_action_cb cb, void *ctx, struct buf *err)
{
	return store_actions(fault_downcast(s)->inner, session, after, cb, ctx, err);
}

static int fault_outbox_pending(struct store *s, store_outbox_cb cb, void *ctx,
				struct buf *err)
{
	return store_outbox_pending(fault_downcast(s)->inner, cb, ctx, err);
}

static int fault_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	struct fault_store *fs = fault_downcast(s);

	if (fault_hit(fs, err))
		return -1;
	return store_outbox_done(fs->inner, id, err);
}

static int fault_cursor_get(struct store *s, const char *key, struct buf *value,
			    struct buf *err)
{
	return store_cursor_get(fault_downcast(s)->inner, key, value, err);
}

static int fault_sessions_due(struct store *s, int64_t until, store_session_cb cb,
			      void *ctx, struct buf *err)
{
	return store_sessions_due(fault_downcast(s)->inner, until, cb, ctx, err);
}

static int fault_next_due(struct store *s, int64_t *out, struct buf *err)
{
	return store_next_due(fault_downcast(s)->inner, out, err);
}

static int fault_cursor_set(struct store *s, const char *key, const char *value,
			    struct buf *err)
{
	struct fault_store *fs = fault_downcast(s);

	if (fault_hit(fs, err))
		return -1;
	return store_cursor_set(fs->inner, key, value, err);
}

static int fault_cursor_delete(struct store *s, const char *key, struct buf *err)
{
	struct fault_store *fs = fault_downcast(s);

	if (fault_hit(fs, err))
		return -1;
	return store_cursor_delete(fs->inner, key, err);
}

static int fault_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
				void *ctx, struct buf *err)
{
	return store_cursors_prefix(fault_downcast(s)->inner, prefix, cb, ctx, err);
}

static int fault_sessions_of_user(struct store *s, const char *platform, const char *user,
				  store_session_cb cb, void *ctx, struct buf *err)
{
	return store_sessions_of_user(fault_downcast(s)->inner, platform, user, cb, ctx, err);
}

static int fault_stats(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
		       struct buf *err)
{
	return store_stats(fault_downcast(s)->inner, out, cb, ctx, err);
}

static int fault_count_lobbies(struct store *s, const char *platform, int64_t *out,
			       struct buf *err)
{
	return store_count_lobbies(fault_downcast(s)->inner, platform, out, err);
}

static int fault_session_stamp(struct store *s, const char *platform, const char *room,
			       int64_t *id, int64_t *version, struct buf *err)
{
	return store_session_stamp(fault_downcast(s)->inner, platform, room, id, version, err);
}

static int fault_lease(struct store *s, const char *name, const char *holder, int64_t ttl_ms,
		       struct buf *err)
{
	return store_lease(fault_downcast(s)->inner, name, holder, ttl_ms, err);
}

static int fault_sessions_claim_due(struct store *s, int64_t until, const char *owner,
				    const char *const *platforms, store_session_cb cb,
				    void *ctx, struct buf *err)
{
	return store_sessions_claim_due(fault_downcast(s)->inner, until, owner, platforms, cb,
					ctx, err);
}

static int fault_outbox_claim(struct store *s, const char *owner,
			      const char *const *platforms, store_outbox_cb cb, void *ctx,
			      struct buf *err)
{
	return store_outbox_claim(fault_downcast(s)->inner, owner, platforms, cb, ctx, err);
}

static int fault_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	return store_dump(fault_downcast(s)->inner, cb, ctx, err);
}

static int fault_import(struct store *s, struct store *from, struct buf *err)
{
	struct store *inner = fault_downcast(s)->inner;

	return inner->ops->import(inner, from, err);
}

/* ---- finished games and ratings: passed on ---- */

static int fault_ratings_get(struct store *s, const char *platform, const char *scope,
			   const char *game, const char *const *players, size_t n,
			   struct rating_rec *out, struct buf *err)
{
	return store_ratings_get(fault_downcast(s)->inner, platform, scope, game, players, n, out, err);
}

static int fault_leaderboard(struct store *s, const char *platform, const char *scope,
			   const char *game, int64_t min_games, int limit, store_rating_cb cb,
			   void *ctx, struct buf *err)
{
	return store_leaderboard(fault_downcast(s)->inner, platform, scope, game, min_games, limit, cb, ctx, err);
}

static int fault_leaderboards(struct store *s, const char *platform, const char *const *scopes,
			      size_t nscopes, const char *const *games, size_t ngames,
			      int64_t min_games, int limit, store_rating_cb cb, void *ctx,
			      struct buf *err)
{
	return store_leaderboards(fault_downcast(s)->inner, platform, scopes, nscopes, games, ngames, min_games,
				  limit, cb, ctx, err);
}

static int fault_player_ratings(struct store *s, const char *platform, const char *scope,
			      const char *player, store_rating_cb cb, void *ctx, struct buf *err)
{
	return store_player_ratings(fault_downcast(s)->inner, platform, scope, player, cb, ctx, err);
}

static int fault_rating_points(struct store *s, const char *platform, const char *scope,
			     const char *game, const char *player, int limit, store_point_cb cb,
			     void *ctx, struct buf *err)
{
	return store_rating_points(fault_downcast(s)->inner, platform, scope, game, player, limit, cb, ctx, err);
}

static int fault_results_recent(struct store *s, const char *platform, const char *room,
			      int limit, store_result_cb cb, void *ctx, struct buf *err)
{
	return store_results_recent(fault_downcast(s)->inner, platform, room, limit, cb, ctx, err);
}

static int fault_result_get(struct store *s, int64_t session, struct result_rec *out,
			  struct buf *err)
{
	return store_result_get(fault_downcast(s)->inner, session, out, err);
}

static int fault_player_hide(struct store *s, const char *platform, const char *player,
			   int hidden, struct buf *err)
{
	if (fault_hit(fault_downcast(s), err))
		return -1;
	return store_player_hide(fault_downcast(s)->inner, platform, player, hidden, err);
}

static int fault_player_forget(struct store *s, const char *platform, const char *player,
			     struct buf *err)
{
	if (fault_hit(fault_downcast(s), err))
		return -1;
	return store_player_forget(fault_downcast(s)->inner, platform, player, err);
}

static int fault_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
			 struct buf *err)
{
	return store_web_get(fault_downcast(s)->inner, session, token, tokensz, err);
}

/* a write: counted, and failed on demand */
static int fault_web_put(struct store *s, int64_t session, const char *token, const char *hash,
			 int keep, struct buf *err)
{
	struct store *inner = fault_downcast(s)->inner;

	if (fault_hit(fault_downcast(s), err))
		return -1;
	return inner->ops->web_put(inner, session, token, hash, keep, err);
}

static int fault_web_find(struct store *s, const char *hash, int64_t *session, struct buf *err)
{
	struct store *inner = fault_downcast(s)->inner;

	return inner->ops->web_find(inner, hash, session, err);
}

static int fault_web_marks(struct store *s, struct store_web_mark *marks, size_t n,
			   struct buf *err)
{
	struct store *inner = fault_downcast(s)->inner;

	return inner->ops->web_marks(inner, marks, n, err);
}

static const struct store_ops fault_ops = {
	.api_version = STORE_API_VERSION,
	.name = "fault",
	.close = fault_close,
	.commit = fault_commit,
	.session_current = fault_session_current,
	.session_get = fault_session_get,
	.sessions_open = fault_sessions_open,
	.actions = fault_actions,
	.outbox_pending = fault_outbox_pending,
	.outbox_done = fault_outbox_done,
	.cursor_get = fault_cursor_get,
	.sessions_due = fault_sessions_due,
	.next_due = fault_next_due,
	.cursor_set = fault_cursor_set,
	.cursors_prefix = fault_cursors_prefix,
	.cursor_delete = fault_cursor_delete,
	.sessions_of_user = fault_sessions_of_user,
	.count_lobbies = fault_count_lobbies,
	.stats = fault_stats,
	.session_stamp = fault_session_stamp,
	.lease = fault_lease,
	.sessions_claim_due = fault_sessions_claim_due,
	.outbox_claim = fault_outbox_claim,
	.dump = fault_dump,
	.import = fault_import,
	.ratings_get = fault_ratings_get,
	.leaderboard = fault_leaderboard,
	.leaderboards = fault_leaderboards,
	.player_ratings = fault_player_ratings,
	.rating_points = fault_rating_points,
	.results_recent = fault_results_recent,
	.result_get = fault_result_get,
	.player_hide = fault_player_hide,
	.player_forget = fault_player_forget,
	.web_get = fault_web_get,
	.web_put = fault_web_put,
	.web_find = fault_web_find,
	.web_marks = fault_web_marks,
};

struct store *store_fault_wrap(struct store *inner, int fail_at)
{
	struct fault_store *fs;

	/* So that store_fault_wrap(store_sqlite_open(...), n) passes NULL on. */
	if (!inner)
		return NULL;
	fs = xcalloc(1, sizeof(*fs));
	/* the wrapper is what the inner store is, shared or not: its caps */
	fs->ops = fault_ops;
	fs->ops.caps = inner->ops->caps;
	fs->base.ops = &fs->ops;
	fs->inner = inner;
	fs->fail_at = fail_at;
	return &fs->base;
}

void store_fault_conflicts(struct store *s, int n)
{
	fault_downcast(s)->conflicts = n;
}

void store_fault_heal(struct store *s)
{
	fault_downcast(s)->healed = 1;
}

int store_fault_writes(const struct store *s)
{
	assert(s && s->ops->close == fault_ops.close);
	return ((const struct fault_store *)s)->writes;
}
