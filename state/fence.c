/*
 * fence.c: a store whose writes are stored only while a lease is held
 * (state/store.h, store_fence_wrap).  The Matrix adapter writes its sync
 * position itself (after a batch, after a command that changed nothing):
 * given this wrapper, a process that lost the Matrix lease (frozen, cut
 * off) cannot move the position the new holder works from.  Commits get
 * the fence; a cursor_set (or cursor_delete) becomes a fenced commit of
 * just that cursor.
 * Reads, leases and claims go through, and so do hiding and forgetting a
 * player and a game's new web link (a player's request, no platform
 * position).
 */
#include "state/store_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

struct fence_store {
	struct store base;
	struct store *inner;	/* borrowed */
	char lease[STORE_NAME_MAX + 1];
	char holder[STORE_NAME_MAX + 1];
};

static const struct store_ops fence_ops;

static struct fence_store *fence_downcast(struct store *s)
{
	assert(s && s->ops == &fence_ops);
	return (struct fence_store *)s;
}

static struct store *inner_of(struct store *s)
{
	return fence_downcast(s)->inner;
}

static void fence_close(struct store *s)
{
	free(fence_downcast(s));
}

static int fence_commit(struct store *s, struct store_commit *c, struct buf *err)
{
	struct fence_store *fs = fence_downcast(s);
	struct store_commit fenced = *c;

	/* the records (session, outbox) are the caller's: the inner store
	 * fills their ids in place */
	fenced.fence_lease = fs->lease;
	fenced.fence_holder = fs->holder;
	return store_commit(fs->inner, &fenced, err);
}

static int fence_cursor_set(struct store *s, const char *key, const char *value,
			    struct buf *err)
{
	struct store_commit c = { .cursor_key = key, .cursor_value = value };

	if (!value) {
		seterr(err, "store: cursor %s without a value", key);
		return -1;
	}
	return fence_commit(s, &c, err);
}

static int fence_cursor_delete(struct store *s, const char *key, struct buf *err)
{
	struct store_commit c = { .cursor_key = key, .cursor_delete = 1 };

	return fence_commit(s, &c, err);
}

static int fence_cursors_prefix(struct store *s, const char *prefix, store_cursor_cb cb,
				void *ctx, struct buf *err)
{
	return store_cursors_prefix(inner_of(s), prefix, cb, ctx, err);
}

static int fence_session_current(struct store *s, const char *platform, const char *room,
				 struct session_rec *out, struct buf *err)
{
	return store_session_current(inner_of(s), platform, room, out, err);
}

static int fence_session_get(struct store *s, int64_t id, struct session_rec *out,
			     struct buf *err)
{
	return store_session_get(inner_of(s), id, out, err);
}

static int fence_sessions_open(struct store *s, store_session_cb cb, void *ctx,
			       struct buf *err)
{
	return store_sessions_open(inner_of(s), cb, ctx, err);
}

static int fence_actions(struct store *s, int64_t session, int64_t after, store_action_cb cb,
			 void *ctx, struct buf *err)
{
	return store_actions(inner_of(s), session, after, cb, ctx, err);
}

static int fence_outbox_pending(struct store *s, store_outbox_cb cb, void *ctx,
				struct buf *err)
{
	return store_outbox_pending(inner_of(s), cb, ctx, err);
}

/* Marking a message delivered is the same whoever does it, and a message
 * that went out must not be sent again. */
static int fence_outbox_done(struct store *s, int64_t id, struct buf *err)
{
	return store_outbox_done(inner_of(s), id, err);
}

static int fence_cursor_get(struct store *s, const char *key, struct buf *value,
			    struct buf *err)
{
	return store_cursor_get(inner_of(s), key, value, err);
}

static int fence_sessions_due(struct store *s, int64_t until, store_session_cb cb, void *ctx,
			      struct buf *err)
{
	return store_sessions_due(inner_of(s), until, cb, ctx, err);
}

static int fence_next_due(struct store *s, int64_t *out, struct buf *err)
{
	return store_next_due(inner_of(s), out, err);
}

static int fence_sessions_of_user(struct store *s, const char *platform, const char *user,
				  store_session_cb cb, void *ctx, struct buf *err)
{
	return store_sessions_of_user(inner_of(s), platform, user, cb, ctx, err);
}

static int fence_stats(struct store *s, struct store_stats *out, store_games_cb cb, void *ctx,
		       struct buf *err)
{
	return store_stats(inner_of(s), out, cb, ctx, err);
}

static int fence_count_lobbies(struct store *s, const char *platform, int64_t *out,
			       struct buf *err)
{
	return store_count_lobbies(inner_of(s), platform, out, err);
}

static int fence_session_stamp(struct store *s, const char *platform, const char *room,
			       int64_t *id, int64_t *version, struct buf *err)
{
	return store_session_stamp(inner_of(s), platform, room, id, version, err);
}

static int fence_lease_op(struct store *s, const char *name, const char *holder,
			  int64_t ttl_ms, struct buf *err)
{
	return store_lease(inner_of(s), name, holder, ttl_ms, err);
}

static int fence_sessions_claim_due(struct store *s, int64_t until, const char *owner,
				    const char *const *platforms, store_session_cb cb,
				    void *ctx, struct buf *err)
{
	return store_sessions_claim_due(inner_of(s), until, owner, platforms, cb, ctx, err);
}

static int fence_outbox_claim(struct store *s, const char *owner,
			      const char *const *platforms, store_outbox_cb cb, void *ctx,
			      struct buf *err)
{
	return store_outbox_claim(inner_of(s), owner, platforms, cb, ctx, err);
}

static int fence_dump(struct store *s, store_item_cb cb, void *ctx, struct buf *err)
{
	return store_dump(inner_of(s), cb, ctx, err);
}

static int fence_import(struct store *s, struct store *from, struct buf *err)
{
	seterr(err, "store: a fenced store takes no import");
	return -1;
}

/* ---- finished games and ratings: passed on ---- */

static int fence_ratings_get(struct store *s, const char *platform, const char *scope,
			   const char *game, const char *const *players, size_t n,
			   struct rating_rec *out, struct buf *err)
{
	return store_ratings_get(inner_of(s), platform, scope, game, players, n, out, err);
}

static int fence_leaderboard(struct store *s, const char *platform, const char *scope,
			   const char *game, int64_t min_games, int limit, store_rating_cb cb,
			   void *ctx, struct buf *err)
{
	return store_leaderboard(inner_of(s), platform, scope, game, min_games, limit, cb, ctx, err);
}

static int fence_leaderboards(struct store *s, const char *platform, const char *const *scopes,
			      size_t nscopes, const char *const *games, size_t ngames,
			      int64_t min_games, int limit, store_rating_cb cb, void *ctx,
			      struct buf *err)
{
	return store_leaderboards(inner_of(s), platform, scopes, nscopes, games, ngames, min_games,
				  limit, cb, ctx, err);
}

static int fence_player_ratings(struct store *s, const char *platform, const char *scope,
			      const char *player, store_rating_cb cb, void *ctx, struct buf *err)
{
	return store_player_ratings(inner_of(s), platform, scope, player, cb, ctx, err);
}

static int fence_rating_points(struct store *s, const char *platform, const char *scope,
			     const char *game, const char *player, int limit, store_point_cb cb,
			     void *ctx, struct buf *err)
{
	return store_rating_points(inner_of(s), platform, scope, game, player, limit, cb, ctx, err);
}

static int fence_results_recent(struct store *s, const char *platform, const char *room,
			      int limit, store_result_cb cb, void *ctx, struct buf *err)
{
	return store_results_recent(inner_of(s), platform, room, limit, cb, ctx, err);
}

static int fence_result_get(struct store *s, int64_t session, struct result_rec *out,
			  struct buf *err)
{
	return store_result_get(inner_of(s), session, out, err);
}

static int fence_player_hide(struct store *s, const char *platform, const char *player,
			   int hidden, struct buf *err)
{
	return store_player_hide(inner_of(s), platform, player, hidden, err);
}

static int fence_player_forget(struct store *s, const char *platform, const char *player,
			     struct buf *err)
{
	return store_player_forget(inner_of(s), platform, player, err);
}

static int fence_web_get(struct store *s, int64_t session, char *token, size_t tokensz,
			 struct buf *err)
{
	return store_web_get(inner_of(s), session, token, tokensz, err);
}

static int fence_web_put(struct store *s, int64_t session, const char *token, const char *hash,
			 int keep, struct buf *err)
{
	struct store *inner = inner_of(s);

	return inner->ops->web_put(inner, session, token, hash, keep, err);
}

static int fence_web_find(struct store *s, const char *hash, int64_t *session, struct buf *err)
{
	struct store *inner = inner_of(s);

	return inner->ops->web_find(inner, hash, session, err);
}

static int fence_web_marks(struct store *s, struct store_web_mark *marks, size_t n,
			   struct buf *err)
{
	struct store *inner = inner_of(s);

	return inner->ops->web_marks(inner, marks, n, err);
}

static const struct store_ops fence_ops = {
	.api_version = STORE_API_VERSION,
	.name = "fence",
	.caps = 0,
	.close = fence_close,
	.commit = fence_commit,
	.session_current = fence_session_current,
	.session_get = fence_session_get,
	.sessions_open = fence_sessions_open,
	.actions = fence_actions,
	.outbox_pending = fence_outbox_pending,
	.outbox_done = fence_outbox_done,
	.cursor_get = fence_cursor_get,
	.sessions_due = fence_sessions_due,
	.next_due = fence_next_due,
	.cursor_set = fence_cursor_set,
	.cursors_prefix = fence_cursors_prefix,
	.cursor_delete = fence_cursor_delete,
	.sessions_of_user = fence_sessions_of_user,
	.count_lobbies = fence_count_lobbies,
	.stats = fence_stats,
	.session_stamp = fence_session_stamp,
	.lease = fence_lease_op,
	.sessions_claim_due = fence_sessions_claim_due,
	.outbox_claim = fence_outbox_claim,
	.dump = fence_dump,
	.import = fence_import,
	.ratings_get = fence_ratings_get,
	.leaderboard = fence_leaderboard,
	.leaderboards = fence_leaderboards,
	.player_ratings = fence_player_ratings,
	.rating_points = fence_rating_points,
	.results_recent = fence_results_recent,
	.result_get = fence_result_get,
	.player_hide = fence_player_hide,
	.player_forget = fence_player_forget,
	.web_get = fence_web_get,
	.web_put = fence_web_put,
	.web_find = fence_web_find,
	.web_marks = fence_web_marks,
};

struct store *store_fence_wrap(struct store *inner, const char *lease, const char *holder)
{
	struct fence_store *fs;

	if (!inner || store_check_name(lease, "a fence lease", NULL) ||
	    store_check_name(holder, "a fence holder", NULL))
		return NULL;
	fs = xcalloc(1, sizeof(*fs));
	fs->base.ops = &fence_ops;
	fs->inner = inner;
	snprintf(fs->lease, sizeof(fs->lease), "%s", lease);
	snprintf(fs->holder, sizeof(fs->holder), "%s", holder);
	return &fs->base;
}
