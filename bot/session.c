/*
 * session: the session core (bot/core.h): finding, loading and committing
 * sessions (the public API: bot/session.h; the other files of the manager
 * are listed in bot/session_int.h, their layers in tests/lint/layers.py).
 *
 * Owns the cache of sessions by room (a hash table, loaded lazily from the
 * store), the replay of a game from its stored moves, the log capture that
 * replays and changes write into, and struct change: the one way a session
 * changes, committed to the store before anything is sent, with what it
 * carries (its messages and their pictures, as data).  It also holds the
 * core's part of the manager's lifecycle and the small helpers every file
 * uses.
 *
 * It must not know any command, nor call any file above it: what a
 * commit needs from above (the updates of a move, delivery, the due time)
 * it calls through m->hooks (struct session_hooks, set by bot/manager.c).
 */
#include "bot/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/core.h"
#include "bot/roomset.h"
#include "bot/votes.h"
#include "util/logging.h"
#include "util/meters.h"
#include "util/text.h"

#define MAX_LOG_LINES_DEFAULT 30

/* ---- small helpers ---- */

int64_t session_now(struct session_mgr *m)
{
	return m->now(m->now_ctx);
}

static int64_t default_now(void *ctx)
{
	uv_timeval64_t tv;

	(void)ctx;
	if (uv_gettimeofday(&tv))
		return 0;
	return tv.tv_sec;
}

static int64_t default_now_ms(void *ctx)
{
	(void)ctx;
	return (int64_t)(uv_hrtime() / 1000000);
}

static unsigned hash_room(const char *platform, const char *room)
{
	unsigned h = 2166136261u;
	const char *p;

	for (p = platform; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h = (h ^ '/') * 16777619u;
	for (p = room; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h % SESSION_BUCKETS;
}

int session_copy_field(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	if (len >= n)
		return -1;
	memcpy(dst, src, len + 1);
	return 0;
}

enum locale session_loc(const struct session *s, struct session_mgr *m)
{
	enum locale loc;

	if (s && !locale_parse(s->rec.locale, &loc))
		return loc;
	return m->default_loc;
}

enum locale cmd_loc(struct session_mgr *m, const struct command *cmd,
		    const struct session *s)
{
	enum locale loc;

	if (s && s->rec.locale[0] && !locale_parse(s->rec.locale, &loc))
		return loc;
	if (cmd->locale && !locale_parse(cmd->locale, &loc))
		return loc;
	return m->default_loc;
}

struct adapter *session_adapter(struct session_mgr *m, const char *platform)
{
	int i;

	for (i = 0; i < m->nadapters; i++)
		if (!strcmp(m->adapters[i]->ops->name, platform))
			return m->adapters[i];
	return NULL;
}

int session_seat_of(const struct session *s, const char *user)
{
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		if (!s->rec.seats[i].is_bot && !strcmp(s->rec.seats[i].user, user))
			return i;
	return -1;
}

void session_seat_names(const struct session *s, const char *names[GAME_MAX_SEATS])
{
	int i;

	for (i = 0; i < GAME_MAX_SEATS; i++)
		names[i] = i < s->rec.nseats ? s->rec.seats[i].name : NULL;
}

/* A game view of the session: its seats' names (names: GAME_MAX_SEATS slots). */
void session_view_init(const struct session *s, enum locale loc, const char **names,
		       struct game_view *v)
{
	session_seat_names(s, names);
	v->loc = loc;
	v->nseats = s->rec.nseats;
	v->names = names;
}

void session_reply_text(struct adapter *a, const struct command *cmd, int priv,
			const char *text)
{
	struct rich r = RICH_INIT;
	struct buf err = BUF_INIT;
	const char *p = text, *nl;

	/* one rich line per text line, so every renderer keeps the breaks */
	while ((nl = strchr(p, '\n'))) {
		rich_text(&r, "%.*s", (int)(nl - p), p);
		rich_newline(&r);
		p = nl + 1;
	}
	rich_text(&r, "%s", p);
	if (adapter_reply(a, cmd, priv, &r, &err))
		log_warn("reply failed: %s", buf_str(&err));
	rich_release(&r);
	buf_release(&err);
}

void session_reply_rich(struct adapter *a, const struct command *cmd, int priv,
			const struct rich *r)
{
	struct buf err = BUF_INIT;

	if (adapter_reply(a, cmd, priv, r, &err))
		log_warn("reply failed: %s", buf_str(&err));
	buf_release(&err);
}

/* ---- the cache ---- */

void session_free(struct session *s)
{
	if (!s)
		return;
	session_rec_release(&s->rec);
	free(s->st);
	free(s);
}

void session_cache_put(struct session_mgr *m, struct session *s)
{
	unsigned h = hash_room(s->rec.platform, s->rec.room);
	struct session **pp;

	for (pp = &m->buckets[h]; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->rec.platform, s->rec.platform) &&
		    !strcmp((*pp)->rec.room, s->rec.room)) {
			struct session *old = *pp;

			/* a newer copy of the same game: its AI job is still out */
			if (old->rec.id == s->rec.id)
				s->thinking |= old->thinking;
			s->next = old->next;
			*pp = s;
			session_free(old);
			return;
		}
	}
	s->next = m->buckets[h];
	m->buckets[h] = s;
}

static int count_action(void *ctx, const struct action_rec *a)
{
	struct session *s = ctx;

	s->last_seq = a->seq;
	s->last_at = a->at;
	return 0;
}

/* Builds the in-memory session from a stored record: the game state comes
 * from the snapshot, else (damaged snapshot) from replaying the log. */
static struct session *session_from_rec(struct session_mgr *m, const struct session_rec *rec,
					struct buf *err)
{
	struct session *s = xcalloc(1, sizeof(*s));

	session_rec_copy(&s->rec, rec);
	s->last_at = rec->updated;	/* no move yet: since the start */
	if (store_actions(m->store, rec->id, 0, count_action, s, err))
		goto fail;
	{
		struct room_settings rs;

		roomset_read(rec, &rs);
		if (rs.since)
			s->last_at = rs.since;
	}
	s->ops = game_find(rec->game);
	if (!s->ops) {
		buf_setf(err, "unknown game '%s' in the store", rec->game);
		goto fail;
	}
	if (rec->status == SESSION_LOBBY || rec->status == SESSION_ABORTED) {
		if (!rec->state)
			return s;
	}
	s->st = game_state_new(s->ops);
	if (rec->state) {
		json_error_t jerr;
		json_t *j = json_loads(rec->state, 0, &jerr);
		struct buf lerr = BUF_INIT;
		int ok = j && !s->ops->load(s->st, j, &lerr);

		json_decref(j);
		if (ok) {
			buf_release(&lerr);
			return s;
		}
		log_warn("session %lld: snapshot unreadable (%s); replaying its log",
			 (long long)rec->id, j ? buf_str(&lerr) : jerr.text);
		buf_release(&lerr);
		memset(s->st, 0, s->ops->state_size);
	}
	if (session_replay(s->ops, rec, m->store, s->st, NULL, err))
		goto fail;
	return s;
fail:
	session_free(s);
	return NULL;
}

/* The cached session of a room, or NULL (the store is not read). */
struct session *session_cache_get(struct session_mgr *m, const char *platform, const char *room)
{
	struct session *s;

	for (s = m->buckets[hash_room(platform, room)]; s; s = s->next)
		if (!strcmp(s->rec.platform, platform) && !strcmp(s->rec.room, room))
			return s;
	return NULL;
}

/*
 * Whether the cached s is what the store holds: with several processes
 * another one may have changed the game, or opened a new one in the room.
 * Asked once per epoch (an entry point: a command, a tick, a callback);
 * a stale copy is asked again at once.  An error keeps the copy (the
 * commit's version check still refuses a stale change).
 */
static int cache_fresh(struct session_mgr *m, struct session *s)
{
	struct buf err = BUF_INIT;
	int64_t id, version;
	int r;

	if (s->stale)
		return 0;
	if (!m->node[0] || s->checked == m->epoch)
		return 1;
	r = store_session_stamp(m->store, s->rec.platform, s->rec.room, &id, &version, &err);
	if (r < 0) {
		log_warn("checking %s/%s: %s", s->rec.platform, s->rec.room, buf_str(&err));
		buf_release(&err);
		return 1;
	}
	buf_release(&err);
	if (r == 1 && id == s->rec.id && version == s->rec.version) {
		s->checked = m->epoch;
		return 1;
	}
	log_debug("%s/%s changed elsewhere: reloading", s->rec.platform, s->rec.room);
	return 0;
}

struct session *session_find(struct session_mgr *m, const char *platform, const char *room,
			     struct buf *err)
{
	struct session *s = session_cache_get(m, platform, room);
	struct session_rec rec;
	int r;

	if (s && cache_fresh(m, s))
		return s;
	session_rec_init(&rec);
	r = store_session_current(m->store, platform, room, &rec, err);
	if (r <= 0) {
		session_rec_release(&rec);
		return NULL;
	}
	s = session_from_rec(m, &rec, err);
	session_rec_release(&rec);
	if (s) {
		s->checked = m->epoch;
		session_cache_put(m, s);
	}
	return s;
}

struct session *session_mgr_find(struct session_mgr *m, const char *platform,
				 const char *room, struct buf *err)
{
	/* an entry point of its own (main's on_position, tests): a cached
	 * copy another process may have changed is checked again */
	m->epoch++;
	return session_find(m, platform, room, err);
}

struct session *session_mgr_cached(struct session_mgr *m, const char *platform,
				   const char *room)
{
	return session_cache_get(m, platform, room);
}

/* ---- replay ---- */

struct replay_ctx {
	const struct game_ops *ops;
	void *st;
	struct game_log *log;
	struct capture *marks;	/* NULL, or told each action's seq and mover */
	const char *user;	/* NULL, or: the seq of this user's last action */
	int64_t user_last;
	struct buf *err;
	int64_t seq;
	int failed;
};

static int replay_action(void *ctx, const struct action_rec *a)
{
	struct replay_ctx *rc = ctx;
	struct move mv;

	rc->seq = a->seq;
	if (rc->marks)
		session_capture_mark(rc->marks, a->seq, !a->user[0]);
	if (rc->user && !strcmp(rc->user, a->user))
		rc->user_last = a->seq;
	if (game_parse(rc->ops, rc->st, a->seat, a->move, LOC_EN, &mv, rc->err) ||
	    rc->ops->apply(rc->st, a->seat, mv, rc->log, rc->err)) {
		buf_printf(rc->err, " (replaying move %lld '%s')", (long long)a->seq, a->move);
		rc->failed = 1;
		return 1;
	}
	return 0;
}

int session_replay_marked(const struct game_ops *ops, const struct session_rec *rec,
			  struct store *store, void *st, struct game_log *log,
			  struct capture *marks, const char *user, int64_t *user_last,
			  struct buf *err)
{
	struct replay_ctx rc = { ops, st, log, marks, user, 0, err, 0, 0 };

	if (ops->setup(st, rec->nseats, rec->seed, rec->options, err))
		return -1;
	if (ops->intro && log)		/* what the table saw at the start */
		ops->intro(st, log);
	if (store_actions(store, rec->id, 0, replay_action, &rc, err))
		return -1;
	if (user_last)
		*user_last = rc.user_last;
	return rc.failed ? -1 : 0;
}

int session_replay(const struct game_ops *ops, const struct session_rec *rec,
		   struct store *store, void *st, struct game_log *log, struct buf *err)
{
	return session_replay_marked(ops, rec, store, st, log, NULL, NULL, NULL, err);
}

/* ---- log capture ---- */

static void capture_emit(struct game_log *log, int seat, const char *text)
{
	struct capture *c = log->ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n].seat = seat;
	c->v[c->n].by_ai = c->by_ai;
	c->v[c->n].seq = c->seq;
	c->v[c->n].text = xstrdup(text);
	c->n++;
}

void session_capture_mark(struct capture *c, int64_t seq, int by_ai)
{
	c->seq = seq;
	c->by_ai = by_ai;
}

void session_capture_init(struct capture *c, enum locale loc, const char *const *names)
{
	memset(c, 0, sizeof(*c));
	c->log.loc = loc;
	c->log.names = names;
	c->log.emit = capture_emit;
	c->log.ctx = c;
}

void session_capture_release(struct capture *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].text);
	free(c->v);
}

/* ---- what a change carries: its messages and their pictures (outbox.c
 * and pictures.c make and send them; the core keeps and frees them) ---- */

void pic_init(struct pic *p)
{
	memset(p, 0, sizeof(*p));
	scene_init(&p->scene);
	rich_init(&p->view);
	rich_init(&p->full);
}

void pic_release(struct pic *p)
{
	scene_release(&p->scene);
	rich_release(&p->view);
	rich_release(&p->full);
	free(p->alt);
	memset(p, 0, sizeof(*p));
}

void session_pending_release(struct pending *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		outbox_rec_release(&p->v[i]);
		rich_release(&p->bodies[i]);
		if (p->pics[i]) {
			pic_release(p->pics[i]);
			free(p->pics[i]);
		}
	}
	free(p->v);
	free(p->bodies);
	free(p->pics);
	memset(p, 0, sizeof(*p));
}

/* ---- commit ---- */

void change_init(struct change *c, struct session *s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	session_rec_init(&c->rec);
	session_rec_copy(&c->rec, &s->rec);
}

void change_release(struct change *c)
{
	rich_release(&c->actor_view);
	if (c->has_actor_pic)
		pic_release(&c->actor_pic);
	session_rec_release(&c->rec);
	free(c->st);
	free(c->actions);
	session_pending_release(&c->out);
}

void change_action(struct change *c, int seat, const char *move_id,
		   const char *user, int64_t at)
{
	struct action_rec *a;

	if (c->nactions == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->actions = xrealloc(c->actions, c->cap * sizeof(*c->actions));
	}
	a = &c->actions[c->nactions++];
	memset(a, 0, sizeof(*a));
	a->seq = c->s->last_seq + (int64_t)c->nactions;
	a->seat = seat;
	session_copy_field(a->move, sizeof(a->move), move_id);
	session_copy_field(a->user, sizeof(a->user), user);
	a->at = at;
}

void change_copy_state(struct change *c)
{
	c->st = xmalloc(c->s->ops->state_size);
	memcpy(c->st, c->s->st, c->s->ops->state_size);
}

void change_moved(struct session_mgr *m, struct change *c, const struct capture *cap)
{
	if (!c->s->ops->awaiting(c->st))
		c->rec.status = SESSION_FINISHED;
	m->hooks->queue_updates(m, c, cap);
}

/* Stores the change; on success the live session takes the new record and
 * state, and the messages are delivered.  On failure nothing changes. */
int change_commit(struct session_mgr *m, struct change *c, struct buf *err)
{
	struct store_commit sc;
	struct store_result *result = NULL;
	/* a move, an undo or the start: the idle clock starts again */
	int moved = c->nactions || c->truncate ||
		    (c->s->rec.status != SESSION_ACTIVE && c->rec.status == SESSION_ACTIVE);
	/* one reading: the stored and the live idle clock are the same instant */
	int64_t now = session_now(m);
	uint64_t t0;
	size_t i;

	/* the room's community as its latest command tells it (the last move
	 * may come from an AI or a timeout: the record reads it here) */
	if (m->current && m->current->community && m->current->community[0] &&
	    !strcmp(m->current->platform, c->rec.platform) &&
	    !strcmp(m->current->room, c->rec.room))
		session_copy_field(c->rec.community, sizeof(c->rec.community),
				   m->current->community);
	/* a finished game is recorded (and rated) in this same transaction */
	if (m->hooks->record && m->hooks->record(m, c, &result, err)) {
		m->last_commit = -1;
		m->outcome = METER_FAILED;
		log_warn("commit failed for %s/%s: %s", c->rec.platform, c->rec.room,
			 buf_str(err));
		return -1;
	}
	c->rec.version++;
	c->rec.updated = now;
	if (moved) {
		struct room_settings rs;

		/* stored, so a restart does not move it */
		roomset_read(&c->rec, &rs);
		rs.reminded = 0;
		rs.since = now;
		roomset_write(&c->rec, &rs);
	}
	/* a vote leaves with its voter, and with the game */
	if (c->rec.votes)
		votes_save(&c->rec, votes_load(&c->rec));
	if (c->st) {
		json_t *j = c->s->ops->save(c->st);

		free(c->rec.state);
		c->rec.state = json_dumps(j, JSON_COMPACT);
		json_decref(j);
	}
	/* the due time goes to the store with the rest: start-up and the
	 * timer read it there, without loading any game */
	c->rec.due = m->hooks->due(&c->rec, c->s->ops, c->st ? c->st : c->s->st,
				   c->s->last_at);
	memset(&sc, 0, sizeof(sc));
	sc.session = &c->rec;
	sc.actions = c->actions;
	sc.nactions = c->nactions;
	sc.outbox = c->out.v;
	sc.noutbox = c->out.n;
	sc.truncate = c->truncate;
	sc.truncate_after = c->truncate_after;
	sc.result = result;
	if (m->current && m->current->cursor_key) {
		sc.cursor_key = m->current->cursor_key;
		sc.cursor_value = m->current->cursor_value;
	}
	sc.owner = m->node[0] ? m->node : NULL;
	for (i = 0; i < (size_t)m->nfences; i++)
		if (!strcmp(m->fences[i].platform, c->rec.platform)) {
			sc.fence_lease = m->fences[i].lease;
			sc.fence_holder = m->fences[i].holder;
		}
	t0 = uv_hrtime();
	m->last_commit = store_commit(m->store, &sc, err);
	free(result);
	metric_observe(&met_commit_seconds, 0, 0, meters_since_us(t0));
	metric_inc(&met_commits, !m->last_commit ? METER_COMMIT_OK
		   : m->last_commit == STORE_CONFLICT ? METER_COMMIT_CONFLICT
		   : m->last_commit == STORE_FENCED ? METER_COMMIT_FENCED : METER_COMMIT_FAILED, 0);
	/* the command's outcome: any failure that is not retried decides it */
	if (m->last_commit && !(m->last_commit == STORE_CONFLICT && m->may_retry))
		m->outcome = METER_FAILED;
	else if (!m->last_commit && m->outcome != METER_FAILED)
		m->outcome = METER_OK;
	if (m->last_commit) {
		if (m->last_commit == STORE_CONFLICT) {
			/* another process changed the game: reload before use */
			c->s->stale = 1;
			m->conflicted = 1;
			m->conflicts++;
			log_info("%s/%s was changed by another process: %s", c->rec.platform,
				 c->rec.room, m->may_retry ? "running the command again"
				 : "nothing stored");
		} else {
			log_warn("commit failed for %s/%s: %s", c->rec.platform, c->rec.room,
				 buf_str(err));
		}
		return -1;
	}
	c->s->checked = m->epoch;
	if (m->hooks->committed)
		m->hooks->committed(m, c);
	if (moved)
		c->s->last_at = now;
	if (c->truncate)
		c->s->last_seq = c->truncate_after;
	session_rec_release(&c->s->rec);
	session_rec_copy(&c->s->rec, &c->rec);
	c->s->last_seq += (int64_t)c->nactions;
	if (c->st) {
		free(c->s->st);
		c->s->st = c->st;
		c->st = NULL;
	}
	for (i = 0; i < c->out.n; i++)
		m->hooks->deliver(m, &c->out.v[i], &c->out.bodies[i], c->out.pics[i]);
	return 0;
}

void change_commit_answer(struct session_mgr *m, struct change *c, struct adapter *a,
			  const struct command *cmd, enum locale loc)
{
	struct buf err = BUF_INIT;

	if (change_commit(m, c, &err))	/* logged there */
		session_reply_commit_failed(m, a, cmd, loc);
	else
		m->hooks->reply_actor_view(m, a, cmd, c);
	buf_release(&err);
}

void session_reply_commit_failed(struct session_mgr *m, struct adapter *a, const struct command *cmd,
				 enum locale loc)
{
	/* a process that lost its lease answers nothing: the one holding
	 * it now reads the same command and answers it */
	if (m->last_commit == STORE_FENCED)
		return;
	if (m->last_commit == STORE_CONFLICT) {
		if (m->may_retry)
			return;		/* handle() runs the command again */
		session_reply_text(a, cmd, 1, L(loc,
			"The game changed at the same moment (another move came first), so nothing "
			"changed. Please look at the board and try again.",
			"La partida cambió en ese mismo momento (otra jugada llegó antes), así que "
			"nada ha cambiado. Mira el tablero e inténtalo de nuevo."));
		return;
	}
	session_reply_text(a, cmd, 1, L(loc,
		"The bot could not save that, so nothing changed. Please try again in a moment.",
		"El bot no pudo guardar eso, así que nada ha cambiado. Inténtalo de nuevo en un momento."));
}

/* ---- lifecycle ---- */

void session_core_init(struct session_mgr *m, struct store *store, uint64_t seed,
		       const struct session_hooks *hooks)
{
	memset(m, 0, sizeof(*m));
	m->store = store;
	m->hooks = hooks;
	rng_seed(&m->rng, seed, 0x7461627561ULL);
	m->now = default_now;
	m->now_ms = default_now_ms;
	m->default_loc = LOC_EN;
	m->max_log_lines = MAX_LOG_LINES_DEFAULT;
	m->max_lobbies_user = SESSION_LOBBIES_PER_USER;
	m->max_lobbies_platform = SESSION_LOBBIES_PER_PLATFORM;
	throttle_init(&m->throttle, 0, 0);
	{
		/* the picture streams' hash key: from the seed, not from m->rng
		 * (whose draws are the games' seeds) */
		struct rng k;
		uint64_t k0, k1;

		rng_seed(&k, seed, 0x70696373ULL);
		k0 = (uint64_t)rng_next(&k) << 32 | rng_next(&k);
		k1 = (uint64_t)rng_next(&k) << 32 | rng_next(&k);
		strmap_init(&m->pic_streams, k0, k1);
	}
}

void session_mgr_set_throttle(struct session_mgr *m, unsigned burst, int64_t period_ms)
{
	throttle_release(&m->throttle);
	throttle_init(&m->throttle, burst, period_ms);
}

void session_core_release(struct session_mgr *m)
{
	size_t i;

	for (i = 0; i < SESSION_BUCKETS; i++) {
		struct session *s = m->buckets[i], *next;

		for (; s; s = next) {
			next = s->next;
			session_free(s);
		}
		m->buckets[i] = NULL;
	}
	throttle_release(&m->throttle);
}

void session_core_add_adapter(struct session_mgr *m, struct adapter *a)
{
	if (m->nadapters < SESSION_MAX_ADAPTERS)
		m->adapters[m->nadapters++] = a;
}

void session_mgr_remove_adapter(struct session_mgr *m, struct adapter *a)
{
	int i;

	for (i = 0; i < m->nadapters; i++)
		if (m->adapters[i] == a) {
			memmove(&m->adapters[i], &m->adapters[i + 1],
				(size_t)(m->nadapters - i - 1) * sizeof(m->adapters[0]));
			m->nadapters--;
			return;
		}
}

void session_mgr_set_node(struct session_mgr *m, const char *node)
{
	snprintf(m->node, sizeof(m->node), "%s", node ? node : "");
}

void session_mgr_set_fence(struct session_mgr *m, const char *platform, const char *lease,
			   const char *holder)
{
	struct session_fence *f = NULL;
	int i;

	for (i = 0; i < m->nfences; i++)
		if (!strcmp(m->fences[i].platform, platform))
			f = &m->fences[i];
	if (!f) {
		if (m->nfences == SESSION_MAX_FENCES)
			return;
		f = &m->fences[m->nfences++];
	}
	snprintf(f->platform, sizeof(f->platform), "%s", platform);
	snprintf(f->lease, sizeof(f->lease), "%s", lease);
	snprintf(f->holder, sizeof(f->holder), "%s", holder);
}

int session_platforms(struct session_mgr *m, const char *out[SESSION_MAX_ADAPTERS + 1])
{
	int i;

	for (i = 0; i < m->nadapters; i++)
		out[i] = m->adapters[i]->ops->name;
	out[i] = NULL;
	return i;
}
