#include "bot/session.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/logging.h"
#include "bot/think.h"
#include "util/text.h"

#define MAX_LOG_LINES_DEFAULT 30
#define MAX_BOT_MOVES 100000	/* a whole all-AI game fits; a runaway does not */
#define SELECT_MAX 25		/* moves listed with a turn notice (chat menus) */
#define LOG_DEFAULT_LINES 10	/* `log` without a number... */
#define LOG_SINCE_MAX 100	/* ...or all since the caller's last move, to this */

/* ---- small helpers ---- */

static int64_t mgr_now(struct session_mgr *m)
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

static int copy_field(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	if (len >= n)
		return -1;
	memcpy(dst, src, len + 1);
	return 0;
}

static enum locale session_loc(const struct session *s, struct session_mgr *m)
{
	enum locale loc;

	if (s && !locale_parse(s->rec.locale, &loc))
		return loc;
	return m->default_loc;
}

static enum locale cmd_loc(struct session_mgr *m, const struct command *cmd,
			   const struct session *s)
{
	enum locale loc;

	if (s && s->rec.locale[0] && !locale_parse(s->rec.locale, &loc))
		return loc;
	if (cmd->locale && !locale_parse(cmd->locale, &loc))
		return loc;
	return m->default_loc;
}

static struct adapter *mgr_adapter(struct session_mgr *m, const char *platform)
{
	int i;

	for (i = 0; i < m->nadapters; i++)
		if (!strcmp(m->adapters[i]->ops->name, platform))
			return m->adapters[i];
	return NULL;
}

static int seat_of(const struct session *s, const char *user)
{
	int i;

	for (i = 0; i < s->rec.nseats; i++)
		if (!s->rec.seats[i].is_bot && !strcmp(s->rec.seats[i].user, user))
			return i;
	return -1;
}

static void seat_names(const struct session *s, const char *names[GAME_MAX_SEATS])
{
	int i;

	for (i = 0; i < GAME_MAX_SEATS; i++)
		names[i] = i < s->rec.nseats ? s->rec.seats[i].name : NULL;
}

/* A game view of the session: its seats' names (names: GAME_MAX_SEATS slots). */
static void view_init(const struct session *s, enum locale loc, const char **names,
		      struct game_view *v)
{
	seat_names(s, names);
	v->loc = loc;
	v->nseats = s->rec.nseats;
	v->names = names;
}

static void reply_text(struct adapter *a, const struct command *cmd, int priv,
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

static void reply_rich(struct adapter *a, const struct command *cmd, int priv,
		       const struct rich *r)
{
	struct buf err = BUF_INIT;

	if (adapter_reply(a, cmd, priv, r, &err))
		log_warn("reply failed: %s", buf_str(&err));
	buf_release(&err);
}

/* ---- room settings (session_rec.settings, a JSON object) ---- */

#define DEFAULT_REMIND_H 24
#define KICK_IDLE_DEFAULT_H 48	/* `game kick` when no timeout is set */

struct room_settings {
	int64_t since;		/* when the idle clock started (0: unknown) */
	int remind_h;		/* 0: no reminders */
	int timeout_h;		/* 0: no timeout */
	int timeout_ai;		/* at the timeout: 1 the AI decides, 0 pause */
	int paused;
	int reminded;		/* reminders sent since the last move */
	int ai_strong;		/* AI seats search (games/search.h) */
};

static void settings_read(const struct session_rec *rec, struct room_settings *o)
{
	json_t *j = rec->settings[0] ? json_loads(rec->settings, 0, NULL) : NULL;
	json_t *v;

	o->since = 0;
	o->remind_h = DEFAULT_REMIND_H;
	o->timeout_h = 0;
	o->timeout_ai = 1;
	o->paused = 0;
	o->reminded = 0;
	o->ai_strong = 0;
	if (!json_is_object(j)) {
		json_decref(j);
		return;
	}
	if (json_is_integer(v = json_object_get(j, "remind")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= 24 * 30)
		o->remind_h = (int)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "timeout")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= 24 * 60)
		o->timeout_h = (int)json_integer_value(v);
	if (json_is_string(v = json_object_get(j, "on_timeout")))
		o->timeout_ai = strcmp(json_string_value(v), "pause") != 0;
	o->paused = json_is_true(json_object_get(j, "paused"));
	if (json_is_integer(v = json_object_get(j, "since")) && json_integer_value(v) > 0)
		o->since = (int64_t)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "reminded")) && json_integer_value(v) >= 0)
		o->reminded = (int)json_integer_value(v);
	if (json_is_string(v = json_object_get(j, "ai")))
		o->ai_strong = !strcmp(json_string_value(v), "strong");
	json_decref(j);
}

static void settings_write(struct session_rec *rec, const struct room_settings *in)
{
	json_t *j = json_pack("{s:i, s:i, s:s, s:b, s:i, s:I}", "remind", in->remind_h,
			      "timeout", in->timeout_h, "on_timeout",
			      in->timeout_ai ? "ai" : "pause", "paused", in->paused,
			      "reminded", in->reminded, "since", (json_int_t)in->since);

	/* only when set, so that the settings of older rooms read the same */
	if (in->ai_strong)
		json_object_set_new(j, "ai", json_string("strong"));
	char *t = json_dumps(j, JSON_COMPACT);

	copy_field(rec->settings, sizeof(rec->settings), t);
	free(t);
	json_decref(j);
}

/* ---- votes (session_rec.votes, a JSON object keyed by user ids) ----
 *
 * {"abort": [voter, ...],
 *  "kick": {voter: target, ...},
 *  "set": {"timeout": {voter: value, ...}, "ontimeout": {...}, ...}}
 *
 * A vote is a user's, never a seat's: it counts only while its voter holds
 * a human seat of the game (and a kick vote only while its target does),
 * and votes_save() drops the others, so a vote leaves with its voter
 * (leaving the lobby, the AI taking the seat).  Each voter has one kick
 * vote and one vote per setting: a new one replaces their own, never
 * anyone else's.  Stored with the session, so a restart keeps them.
 */

static int human_seated(const struct session_rec *rec, const char *user)
{
	int i;

	for (i = 0; i < rec->nseats; i++)
		if (!rec->seats[i].is_bot && !strcmp(rec->seats[i].user, user))
			return 1;
	return 0;
}

static int humans_of(const struct session_rec *rec)
{
	int i, n = 0;

	for (i = 0; i < rec->nseats; i++)
		n += !rec->seats[i].is_bot;
	return n;
}

/* The votes of rec, a new object ({} when there are none or they do not
 * parse: a damaged record loses its votes, never its game). */
static json_t *votes_load(const struct session_rec *rec)
{
	json_t *v = rec->votes && rec->votes[0] ? json_loads(rec->votes, 0, NULL) : NULL;

	if (!json_is_object(v)) {
		json_decref(v);
		v = json_object();
	}
	return v;
}

/* The object at v[key], created when missing (borrowed). */
static json_t *votes_obj(json_t *v, const char *key)
{
	json_t *o = json_object_get(v, key);

	if (!json_is_object(o)) {
		o = json_object();
		json_object_set_new(v, key, o);
	}
	return o;
}

/* Drops from the object o every vote whose voter (key) is not a seated
 * human, whose value is not a string, or (targets: kick) that names a
 * target who is not a seated human. */
static void votes_prune_obj(const struct session_rec *rec, json_t *o, int targets)
{
	const char *voter;
	json_t *val;
	void *tmp;

	json_object_foreach_safe(o, tmp, voter, val) {
		if (!json_is_string(val) || !human_seated(rec, voter) ||
		    (targets && !human_seated(rec, json_string_value(val))))
			json_object_del(o, voter);
	}
}

/* Writes v into rec->votes, without the votes that no longer count (and
 * none at all once the game is over).  Takes v's reference. */
static void votes_save(struct session_rec *rec, json_t *v)
{
	json_t *abort_, *kept, *set;
	const char *key;
	json_t *o;
	void *tmp;
	size_t i;
	char *t = NULL;

	free(rec->votes);
	rec->votes = NULL;
	if (rec->status != SESSION_LOBBY && rec->status != SESSION_ACTIVE)
		goto out;
	abort_ = json_object_get(v, "abort");
	kept = json_array();
	for (i = 0; json_is_array(abort_) && i < json_array_size(abort_); i++) {
		json_t *u = json_array_get(abort_, i);

		if (json_is_string(u) && human_seated(rec, json_string_value(u)))
			json_array_append(kept, u);
	}
	json_object_set_new(v, "abort", kept);
	votes_prune_obj(rec, votes_obj(v, "kick"), 1);
	set = votes_obj(v, "set");
	json_object_foreach_safe(set, tmp, key, o) {
		if (json_is_object(o))
			votes_prune_obj(rec, o, 0);
		if (!json_is_object(o) || !json_object_size(o))
			json_object_del(set, key);
	}
	json_object_foreach_safe(v, tmp, key, o) {
		if ((json_is_array(o) && !json_array_size(o)) ||
		    (json_is_object(o) && !json_object_size(o)) ||
		    (strcmp(key, "abort") && strcmp(key, "kick") && strcmp(key, "set")))
			json_object_del(v, key);
	}
	/* bounded by the seats: a handful of user ids per kind of vote */
	if (json_object_size(v))
		t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (t && strlen(t) <= STORE_VOTES_MAX)
		rec->votes = t;
	else
		free(t);
out:
	json_decref(v);
}

/* Drops the kick votes against user: they were about an idle spell that
 * user's own move has just ended. */
static void votes_drop_kicks_of(struct session_rec *rec, const char *user)
{
	json_t *v, *kick;
	const char *voter;
	json_t *target;
	void *tmp;

	if (!rec->votes)
		return;
	v = votes_load(rec);
	kick = votes_obj(v, "kick");
	json_object_foreach_safe(kick, tmp, voter, target)
		if (json_is_string(target) && !strcmp(json_string_value(target), user))
			json_object_del(kick, voter);
	votes_save(rec, v);
}

/* Adds user's vote to abort (a second one changes nothing). */
static void vote_abort(json_t *v, const char *user)
{
	json_t *a = json_object_get(v, "abort");
	size_t i;

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(v, "abort", a);
	}
	for (i = 0; i < json_array_size(a); i++)
		if (json_is_string(json_array_get(a, i)) &&
		    !strcmp(json_string_value(json_array_get(a, i)), user))
			return;
	json_array_append_new(a, json_string(user));
}

/* The seated humans who voted to abort. */
static int count_abort(const struct session_rec *rec, json_t *v)
{
	json_t *a = json_object_get(v, "abort");
	size_t i;
	int n = 0;

	for (i = 0; json_is_array(a) && i < json_array_size(a); i++) {
		json_t *u = json_array_get(a, i);

		n += json_is_string(u) && human_seated(rec, json_string_value(u));
	}
	return n;
}

/* The seated humans, other than `except` (NULL: none), whose vote in the
 * object o is value. */
static int count_for(const struct session_rec *rec, json_t *o, const char *value,
		     const char *except)
{
	const char *voter;
	json_t *val;
	int n = 0;

	json_object_foreach(o, voter, val)
		n += json_is_string(val) && !strcmp(json_string_value(val), value) &&
		     human_seated(rec, voter) && (!except || strcmp(voter, except));
	return n;
}

/* ---- the cache ---- */

static void session_free(struct session *s)
{
	if (!s)
		return;
	session_rec_release(&s->rec);
	free(s->st);
	free(s);
}

static void cache_put(struct session_mgr *m, struct session *s)
{
	unsigned h = hash_room(s->rec.platform, s->rec.room);
	struct session **pp;

	for (pp = &m->buckets[h]; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->rec.platform, s->rec.platform) &&
		    !strcmp((*pp)->rec.room, s->rec.room)) {
			struct session *old = *pp;

			s->next = old->next;
			*pp = s;
			session_free(old);
			return;
		}
	}
	s->next = m->buckets[h];
	m->buckets[h] = s;
}

/* Builds the in-memory session from a stored record: the game state comes
 * from the snapshot, else (damaged snapshot) from replaying the log. */
static int count_action(void *ctx, const struct action_rec *a)
{
	struct session *s = ctx;

	s->last_seq = a->seq;
	s->last_at = a->at;
	return 0;
}

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

		settings_read(rec, &rs);
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
static struct session *cache_get(struct session_mgr *m, const char *platform, const char *room)
{
	struct session *s;

	for (s = m->buckets[hash_room(platform, room)]; s; s = s->next)
		if (!strcmp(s->rec.platform, platform) && !strcmp(s->rec.room, room))
			return s;
	return NULL;
}

struct session *session_mgr_find(struct session_mgr *m, const char *platform,
				 const char *room, struct buf *err)
{
	struct session *s = cache_get(m, platform, room);
	struct session_rec rec;
	int r;

	if (s)
		return s;
	session_rec_init(&rec);
	r = store_session_current(m->store, platform, room, &rec, err);
	if (r <= 0) {
		session_rec_release(&rec);
		return NULL;
	}
	s = session_from_rec(m, &rec, err);
	session_rec_release(&rec);
	if (s)
		cache_put(m, s);
	return s;
}

/* ---- replay ---- */

struct capture;

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

static void capture_mark(struct capture *c, int64_t seq, int by_ai);

static int replay_action(void *ctx, const struct action_rec *a)
{
	struct replay_ctx *rc = ctx;
	struct move mv;

	rc->seq = a->seq;
	if (rc->marks)
		capture_mark(rc->marks, a->seq, !a->user[0]);
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

/* session_replay, also marking each line with its action (marks) and
 * finding the seq of user's last action (*user_last, 0 when none). */
static int replay_marked(const struct game_ops *ops, const struct session_rec *rec,
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
	return replay_marked(ops, rec, store, st, log, NULL, NULL, NULL, err);
}

/* ---- log capture ---- */

/* One log line, with where it came from: the action (seq; 0 when not
 * known) and whether an AI seat's decision wrote it (a room update may
 * shorten those; a human's outcome is never cut). */
struct line {
	int seat;
	int by_ai;
	int64_t seq;
	char *text;
};

struct capture {
	struct game_log log;
	struct line *v;
	size_t n, cap;
	int by_ai;		/* lines written now are an AI seat's */
	int64_t seq;
};

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

static void capture_mark(struct capture *c, int64_t seq, int by_ai)
{
	c->seq = seq;
	c->by_ai = by_ai;
}

static void capture_init(struct capture *c, enum locale loc, const char *const *names)
{
	memset(c, 0, sizeof(*c));
	c->log.loc = loc;
	c->log.names = names;
	c->log.emit = capture_emit;
	c->log.ctx = c;
}

static void capture_release(struct capture *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].text);
	free(c->v);
}

/* ---- outbox ---- */

struct pending {
	struct outbox_rec *v;
	struct rich *bodies;	/* v[i]'s message, kept to deliver it without
				 * parsing its JSON back */
	size_t n, cap;
};

static void pending_add(struct session_mgr *m, struct pending *p, const struct session *s,
			const char *user, const struct rich *body)
{
	struct outbox_rec *o;
	json_t *j;

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = xrealloc(p->v, p->cap * sizeof(*p->v));
		p->bodies = xrealloc(p->bodies, p->cap * sizeof(*p->bodies));
	}
	rich_init(&p->bodies[p->n]);
	rich_append(&p->bodies[p->n], body);
	o = &p->v[p->n++];
	memset(o, 0, sizeof(*o));
	copy_field(o->platform, sizeof(o->platform), s->rec.platform);
	copy_field(o->room, sizeof(o->room), s->rec.room);
	copy_field(o->user, sizeof(o->user), user ? user : "");
	/* unique by construction: a session's versions only grow, and a
	 * failed commit stores nothing, so its retry may reuse the key */
	snprintf(o->key, sizeof(o->key), "tabula.%lld.%lld.%lld.%zu", (long long)s->rec.id,
		 (long long)s->rec.version + 1, (long long)s->last_seq, p->n);
	j = rich_to_json(body);
	o->payload = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	o->created = mgr_now(m);
}

static void pending_release(struct pending *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		outbox_rec_release(&p->v[i]);
		rich_release(&p->bodies[i]);
	}
	free(p->v);
	free(p->bodies);
	memset(p, 0, sizeof(*p));
}

/* Copies src into dst (n bytes), cut at a character boundary if needed. */
static void copy_utf8(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	if (len >= n) {
		len = n - 1;
		while (len && ((unsigned char)src[len] & 0xC0) == 0x80)
			len--;
	}
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Up to max moves of seat whose folded id or label contains the folded
 * filter (NULL or "": all), those starting with it first.  Values are the
 * canonical ids; an id too long for a choice is offered by its number.
 * Meta moves (conceding) only when with_meta: never in a one-click menu. */
static size_t move_choices(const struct session *s, int seat, enum locale loc,
			   const char *filter, int with_meta, struct adapter_choice *out,
			   size_t max)
{
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf id = BUF_INIT, label = BUF_INIT, fid = BUF_INIT, flabel = BUF_INIT;
	struct buf ff = BUF_INIT;
	size_t n = 0;
	int pass, i;

	text_fold(filter ? filter : "", &ff);
	s->ops->moves(s->st, seat, ml);
	/* pass 0: prefix matches; pass 1: matches elsewhere */
	for (pass = 0; pass < 2 && n < max; pass++) {
		for (i = 0; i < ml->n - (with_meta ? 0 : ml->nmeta) && n < max; i++) {
			const char *hi, *hl;
			int at;

			buf_reset(&id);
			buf_reset(&label);
			buf_reset(&fid);
			buf_reset(&flabel);
			s->ops->move_id(s->st, seat, ml->v[i], &id);
			s->ops->move_label(s->st, seat, ml->v[i], loc, &label);
			text_fold(buf_str(&id), &fid);
			text_fold(buf_str(&label), &flabel);
			hi = strstr(buf_str(&fid), buf_str(&ff));
			hl = strstr(buf_str(&flabel), buf_str(&ff));
			if (!hi && !hl)
				continue;
			at = (hi == buf_str(&fid)) || (hl == buf_str(&flabel));
			if (at != (pass == 0))
				continue;
			if (id.len < ADAPTER_CHOICE_SIZE && id.len <= 100)
				snprintf(out[n].value, sizeof(out[n].value), "%s", buf_str(&id));
			else
				snprintf(out[n].value, sizeof(out[n].value), "%d", i + 1);
			copy_utf8(out[n].label, sizeof(out[n].label), buf_str(&label));
			n++;
		}
	}
	buf_release(&id);
	buf_release(&label);
	buf_release(&fid);
	buf_release(&flabel);
	buf_release(&ff);
	free(ml);
	return n;
}

/* Reads back the session and the position (moves stored) that
 * pending_add() wrote into a key. */
static int key_parse(const char *key, int64_t *session, int64_t *position)
{
	long long sid, ver, pos;
	size_t n;

	if (sscanf(key, "tabula.%lld.%lld.%lld.%zu", &sid, &ver, &pos, &n) != 4 || sid <= 0 ||
	    pos < 0)
		return -1;
	*session = sid;
	*position = pos;
	return 0;
}

/* Fills msg's controls (see struct outmsg) while its game is in play. */
static void outmsg_controls(struct session_mgr *m, const struct outbox_rec *o,
			    struct outmsg *msg)
{
	struct buf err = BUF_INIT;
	struct session *s;
	int64_t sid, ver;

	if (key_parse(o->key, &sid, &ver))
		return;
	s = session_mgr_find(m, o->platform, o->room, &err);
	buf_release(&err);
	if (!s)
		return;
	msg->locale = s->rec.locale[0] ? s->rec.locale : locale_code(m->default_loc);
	if (s->rec.id != sid || !s->st || s->rec.status != SESSION_ACTIVE)
		return;
	msg->session = sid;
	msg->version = ver;
}

/* Hands o to its adapter; known: its message when the caller still has
 * it (a fresh commit), else NULL (re-sent from the store: parsed back). */
static void deliver(struct session_mgr *m, const struct outbox_rec *o,
		    const struct rich *known)
{
	struct adapter *a = mgr_adapter(m, o->platform);
	struct buf err = BUF_INIT;
	struct rich body = RICH_INIT;
	struct outmsg msg;

	if (!a)
		return;		/* that platform is not running now: stays pending */
	if (!known) {
		json_t *j = json_loads(o->payload, 0, NULL);

		if (!j || rich_from_json(&body, j)) {
			log_warn("outbox %lld: unreadable payload; dropped", (long long)o->id);
			json_decref(j);
			session_mgr_sent(m, o->id);
			return;
		}
		json_decref(j);
		known = &body;
	}
	memset(&msg, 0, sizeof(msg));
	msg.outbox_id = o->id;
	msg.room = o->room;
	msg.user = o->user[0] ? o->user : NULL;
	msg.key = o->key;
	msg.body = known;
	outmsg_controls(m, o, &msg);
	if (adapter_send(a, &msg, &err))
		log_warn("outbox %lld: send failed: %s", (long long)o->id, buf_str(&err));
	rich_release(&body);
	buf_release(&err);
}

static int flush_one(void *ctx, const struct outbox_rec *o)
{
	deliver(ctx, o, NULL);
	return 0;
}

int session_mgr_flush_outbox(struct session_mgr *m, struct buf *err)
{
	return store_outbox_pending(m->store, flush_one, m, err);
}

void session_mgr_sent(struct session_mgr *m, int64_t outbox_id)
{
	struct buf err = BUF_INIT;

	if (outbox_id > 0 && store_outbox_done(m->store, outbox_id, &err))
		log_warn("outbox %lld: could not mark delivered: %s", (long long)outbox_id,
			 buf_str(&err));
	buf_release(&err);
}

/* ---- commit ---- */

struct change {
	struct session *s;		/* the live session (or a new one) */
	struct session_rec rec;		/* its new record */
	void *st;			/* new game state, owned until applied */
	struct action_rec *actions;
	size_t nactions, cap;
	struct pending out;
	/* On platforms with ADAPTER_CAP_PRIVATE_ON_DEMAND the acting user's
	 * private update is answered to their command after the commit. */
	const char *actor;		/* borrowed user id, or NULL */
	struct rich actor_view;
	int has_actor_view;
	int truncate;			/* undo: drop actions after truncate_after */
	int64_t truncate_after;
};

static void change_init(struct change *c, struct session *s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	session_rec_init(&c->rec);
	session_rec_copy(&c->rec, &s->rec);
}

static void change_release(struct change *c)
{
	rich_release(&c->actor_view);
	session_rec_release(&c->rec);
	free(c->st);
	free(c->actions);
	pending_release(&c->out);
}

static void change_action(struct change *c, int seat, const char *move_id,
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
	copy_field(a->move, sizeof(a->move), move_id);
	copy_field(a->user, sizeof(a->user), user);
	a->at = at;
}

static int64_t compute_due(const struct session_rec *rec, const struct game_ops *ops,
			   const void *st, int64_t last_at);

/* Stores the change; on success the live session takes the new record and
 * state, and the messages are delivered.  On failure nothing changes. */
static int change_commit(struct session_mgr *m, struct change *c, struct buf *err)
{
	struct store_commit sc;
	size_t i;

	c->rec.version++;
	c->rec.updated = mgr_now(m);
	if (c->nactions || c->truncate ||
	    (c->s->rec.status != SESSION_ACTIVE && c->rec.status == SESSION_ACTIVE)) {
		struct room_settings rs;

		/* a move (or the start) starts the idle clock again; it is
		 * stored, so a restart does not move it */
		settings_read(&c->rec, &rs);
		rs.reminded = 0;
		rs.since = mgr_now(m);
		settings_write(&c->rec, &rs);
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
	c->rec.due = compute_due(&c->rec, c->s->ops, c->st ? c->st : c->s->st,
				 c->s->last_at);
	memset(&sc, 0, sizeof(sc));
	sc.session = &c->rec;
	sc.actions = c->actions;
	sc.nactions = c->nactions;
	sc.outbox = c->out.v;
	sc.noutbox = c->out.n;
	sc.truncate = c->truncate;
	sc.truncate_after = c->truncate_after;
	if (m->current && m->current->cursor_key) {
		sc.cursor_key = m->current->cursor_key;
		sc.cursor_value = m->current->cursor_value;
	}
	if (store_commit(m->store, &sc, err)) {
		log_warn("commit failed for %s/%s: %s", c->rec.platform, c->rec.room,
			 buf_str(err));
		return -1;
	}
	if (c->nactions || c->truncate ||
	    (c->s->rec.status != SESSION_ACTIVE && c->rec.status == SESSION_ACTIVE))
		c->s->last_at = mgr_now(m);
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
		deliver(m, &c->out.v[i], &c->out.bodies[i]);
	return 0;
}

static void reply_commit_failed(struct adapter *a, const struct command *cmd, enum locale loc)
{
	reply_text(a, cmd, 1, L(loc,
		"The bot could not save that, so nothing changed. Please try again in a moment.",
		"El bot no pudo guardar eso, así que nada ha cambiado. Inténtalo de nuevo en un momento."));
}

/* ---- turn messages ---- */

/* Appends "Waiting for @x: prompt" lines; mention=0 writes plain names. */
static void add_waiting(const struct session *s, const void *st, enum locale loc,
			struct rich *r, unsigned mention)
{
	unsigned aw = s->ops->awaiting(st);
	struct buf p = BUF_INIT;
	int i;

	for (i = 0; i < s->rec.nseats; i++) {
		const struct seat_rec *seat = &s->rec.seats[i];

		if (!(aw & (1u << i)))
			continue;
		buf_reset(&p);
		s->ops->prompt(st, i, loc, &p);
		rich_text(r, "%s ", L(loc, "Waiting for", "Esperando a"));
		if ((mention & (1u << i)) && !seat->is_bot)
			rich_mention(r, seat->user, seat->name);
		else
			rich_emph(r, "%s", seat->name);
		rich_text(r, ": %s", buf_str(&p));
		rich_newline(r);
	}
	buf_release(&p);
}

static void add_result(const struct session *s, const void *st, enum locale loc,
		       struct rich *r)
{
	struct game_result res;
	int i, first = 1;

	if (!s->ops->result(st, &res))
		return;
	rich_heading(r, "%s", L(loc, "Game over", "Fin de la partida"));
	if (!res.winners) {
		rich_line(r, "%s", L(loc, "Nobody wins.", "Nadie gana."));
		return;
	}
	rich_text(r, "%s ", L(loc, "Winner:", "Gana:"));
	for (i = 0; i < res.nseats && i < s->rec.nseats; i++) {
		if (!(res.winners & (1u << i)))
			continue;
		if (!first)
			rich_text(r, ", ");
		first = 0;
		if (s->rec.seats[i].is_bot)
			rich_emph(r, "%s", s->rec.seats[i].name);
		else
			rich_mention(r, s->rec.seats[i].user, s->rec.seats[i].name);
		rich_text(r, " (%d)", res.score[i]);
	}
	rich_newline(r);
}

static void add_moves(const struct session *s, const void *st, int seat, enum locale loc,
		      struct rich *r, int limit)
{
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf id = BUF_INIT, label = BUF_INIT, block = BUF_INIT;
	int i;

	s->ops->moves(st, seat, ml);
	if (limit && ml->n > limit) {
		rich_line(r, L(loc, "%d possible moves: type `moves` to list them.",
			       "%d jugadas posibles: escribe `moves` para verlas."), ml->n);
		goto out;
	}
	for (i = 0; i < ml->n; i++) {
		buf_reset(&id);
		buf_reset(&label);
		s->ops->move_id(st, seat, ml->v[i], &id);
		s->ops->move_label(st, seat, ml->v[i], loc, &label);
		buf_printf(&block, "%2d. %s", i + 1, buf_str(&id));
		if (strcmp(buf_str(&id), buf_str(&label)))
			buf_printf(&block, "  — %s", buf_str(&label));
		buf_addch(&block, '\n');
	}
	if (ml->n) {
		rich_text(r, "%s", L(loc, "Your moves (`play <move>`, a prefix or the number):",
				     "Tus jugadas (`play <jugada>`, un prefijo o el número):"));
		rich_newline(r);
		rich_mono(r, buf_str(&block));
	} else {
		rich_line(r, "%s", L(loc, "You have nothing to decide now.",
				     "No tienes nada que decidir ahora."));
	}
out:
	buf_release(&id);
	buf_release(&label);
	buf_release(&block);
	free(ml);
}

/* The public message after a change: what happened, the board, who is next.
 * Every line of a human's decision is shown; when AI seats wrote more than
 * max_log_lines, only their last ones are, after a note (`log` has all). */
/* newly: the seats that have just become awaited, the only ones pinged */
static void public_update(struct session_mgr *m, const struct session *s, const void *st,
			  const struct capture *cap, unsigned newly, struct rich *r)
{
	enum locale loc = session_loc(s, m);
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	size_t i, nai = 0, skip = 0, skipped = 0;

	view_init(s, loc, names, &v);
	for (i = 0; cap && i < cap->n; i++)
		nai += cap->v[i].seat == LOG_PUBLIC && cap->v[i].by_ai;
	if (nai > m->max_log_lines)
		skip = nai - m->max_log_lines;
	for (i = 0; cap && i < cap->n; i++) {
		if (cap->v[i].seat != LOG_PUBLIC)
			continue;
		if (cap->v[i].by_ai && skipped < skip) {
			if (!skipped++)
				rich_line(r, L(loc, "(%zu lines of AI turns: see `log`)",
					       "(%zu líneas de turnos de la IA: ver `log`)"), skip);
			continue;
		}
		rich_line(r, "%s", cap->v[i].text);
	}
	s->ops->render_public(st, &v, r);
	add_result(s, st, loc, r);
	add_waiting(s, st, loc, r, newly);
}

/* The private message of one seat after a change: its private log lines,
 * and its view and moves when it is awaited. */
static int private_update(struct session_mgr *m, const struct session *s, const void *st,
			  int seat, const struct capture *cap, int awaited, struct rich *r)
{
	enum locale loc = session_loc(s, m);
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	size_t i;
	int any = 0;

	for (i = 0; cap && i < cap->n; i++) {
		if (cap->v[i].seat != seat)
			continue;
		rich_line(r, "%s", cap->v[i].text);
		any = 1;
	}
	if (!awaited)
		return any;
	view_init(s, loc, names, &v);
	s->ops->render_private(st, seat, &v, r);
	add_moves(s, st, seat, loc, r, SELECT_MAX);
	return 1;
}

static unsigned bot_seats(const struct session_rec *rec)
{
	unsigned b = 0;
	int i;

	for (i = 0; i < rec->nseats; i++)
		if (rec->seats[i].is_bot)
			b |= 1u << i;
	return b;
}

/* Whether the AI seats of this record search (`game settings ai strong`):
 * only games that can hide what a seat cannot see (determinize). */
static int ai_searches(const struct session_rec *rec, const struct game_ops *ops)
{
	struct room_settings rs;

	if (!ops->determinize)
		return 0;
	settings_read(rec, &rs);
	return rs.ai_strong;
}

static void search_params_of(const struct session_mgr *m, const struct game_ops *ops,
			     struct search_params *p)
{
	search_defaults(ops, p);
	if (m->search_iterations > 0)
		p->iterations = m->search_iterations;
}

/* Records an AI decision mv of seat in c (applied to c->st). */
static int ai_record(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
		     struct move mv, struct buf *err)
{
	const struct game_ops *ops = c->s->ops;
	struct buf id = BUF_INIT;

	ops->move_id(c->st, seat, mv, &id);
	/* an AI seat's lines may be summarised in the room; the AI standing
	 * in for an idle human writes what happened to a human: kept */
	capture_mark(cap, c->s->last_seq + (int64_t)c->nactions + 1, c->rec.seats[seat].is_bot);
	if (ops->apply(c->st, seat, mv, &cap->log, err)) {
		capture_mark(cap, 0, 0);
		buf_release(&id);
		return -1;
	}
	capture_mark(cap, 0, 0);
	change_action(c, seat, buf_str(&id), "", mgr_now(m));
	buf_release(&id);
	return 0;
}

/* One AI decision for seat, recorded in c.  Seeded by the game and the move
 * number, so an AI's choice does not depend on the process's history (nor
 * on whether it ran on a worker: bot/think.h).  search: the searching AI,
 * else the game's own bot_move. */
static int ai_step_as(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
		      int search, struct buf *err)
{
	struct search_params p;
	struct move mv;

	search_params_of(m, c->s->ops, &p);
	if (think_decide(c->s->ops, c->st, seat, search, &p, c->rec.seed,
			 c->s->last_seq + (int64_t)c->nactions + 1, &mv)) {
		buf_setf(err, "no AI move for seat %d", seat + 1);
		return -1;
	}
	return ai_record(m, c, cap, seat, mv, err);
}

static int ai_step(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
		   struct buf *err)
{
	return ai_step_as(m, c, cap, seat, ai_searches(&c->rec, c->s->ops), err);
}

/* Plays AI seats while only AI seats are awaited, recording their moves.
 * Searching AI seats are left awaited when the program thinks on a worker
 * (m->think): their due time is now, and session_mgr_tick sends the job. */
static int run_bots(struct session_mgr *m, struct change *c, struct capture *cap,
		    struct buf *err)
{
	const struct game_ops *ops = c->s->ops;
	int guard = 0;

	if (m->think && ai_searches(&c->rec, ops))
		return 0;
	for (;;) {
		unsigned aw = ops->awaiting(c->st);
		int seat;

		for (seat = 0; seat < c->rec.nseats; seat++)
			if ((aw & (1u << seat)) && c->rec.seats[seat].is_bot)
				break;
		if (seat == c->rec.nseats)
			return 0;	/* over, or a human is awaited */
		if (ai_step(m, c, cap, seat, err))
			return -1;
		if (++guard > MAX_BOT_MOVES) {
			buf_setf(err, "AI seats did not finish");
			return -1;
		}
	}
}

/* Adds the update messages of a game change to c->out. */
static void queue_updates(struct session_mgr *m, struct change *c, const struct capture *cap)
{
	struct adapter *a;
	int on_demand;
	unsigned before, aw = c->s->ops->awaiting(c->st);
	struct session tmp = *c->s;
	struct rich r = RICH_INIT;
	int seat;

	/* the position these messages show: after this change's moves */
	tmp.last_seq = c->s->last_seq + (int64_t)c->nactions;
	tmp.rec = c->rec;	/* shallow: names and locale of the new record */
	/* a player still deciding (several steps of one turn) is not pinged
	 * again; whoever has just become awaited is */
	before = c->s->st && c->s->rec.status == SESSION_ACTIVE ? c->s->ops->awaiting(c->s->st) : 0;
	public_update(m, &tmp, c->st, cap, aw & ~before, &r);
	pending_add(m, &c->out, &tmp, NULL, &r);
	rich_release(&r);
	a = mgr_adapter(m, c->rec.platform);
	on_demand = a && (a->ops->caps & ADAPTER_CAP_PRIVATE_ON_DEMAND);
	for (seat = 0; seat < c->rec.nseats; seat++) {
		const struct seat_rec *sr = &c->rec.seats[seat];

		if (sr->is_bot)
			continue;
		if (on_demand && c->actor && !strcmp(sr->user, c->actor) && !c->has_actor_view) {
			c->has_actor_view = private_update(m, &tmp, c->st, seat, cap,
							   !!(aw & (1u << seat)), &c->actor_view);
			continue;
		}
		if (on_demand && !sr->notify_dm)
			continue;	/* they look when they want (buttons, `hand`) */
		rich_init(&r);
		if (private_update(m, &tmp, c->st, seat, cap, !!(aw & (1u << seat)), &r))
			pending_add(m, &c->out, &tmp, sr->user, &r);
		rich_release(&r);
	}
}

/* After a successful commit: the acting player's private update, if the
 * platform shows it as an answer rather than a message. */
static void reply_actor_view(struct adapter *a, const struct command *cmd, struct change *c)
{
	if (c->has_actor_view)
		reply_rich(a, cmd, 1, &c->actor_view);
}

/* ---- commands ---- */

static struct session *session_new(struct session_mgr *m, const struct command *cmd,
				   const struct game_ops *ops)
{
	struct session *s = xcalloc(1, sizeof(*s));

	session_rec_init(&s->rec);
	copy_field(s->rec.platform, sizeof(s->rec.platform), cmd->platform);
	copy_field(s->rec.room, sizeof(s->rec.room), cmd->room);
	copy_field(s->rec.game, sizeof(s->rec.game), ops->id);
	copy_field(s->rec.creator, sizeof(s->rec.creator), cmd->user);
	s->rec.status = SESSION_LOBBY;
	s->rec.created = mgr_now(m);
	{
		/* the room's language: the caller's client (Discord) or the
		 * bot's default; `game settings locale` changes it */
		enum locale loc;

		if (!cmd->locale || locale_parse(cmd->locale, &loc))
			loc = m->default_loc;
		copy_field(s->rec.locale, sizeof(s->rec.locale), locale_code(loc));
	}
	s->ops = ops;
	return s;
}

static int add_seat(struct session_rec *rec, const char *user, const char *name, int is_bot)
{
	struct seat_rec *seat;

	if (rec->nseats >= STORE_MAX_SEATS)
		return -1;
	seat = &rec->seats[rec->nseats];
	memset(seat, 0, sizeof(*seat));
	if (copy_field(seat->user, sizeof(seat->user), user) ||
	    copy_field(seat->name, sizeof(seat->name), name))
		return -1;
	seat->is_bot = is_bot;
	rec->nseats++;
	return 0;
}

static const char *status_word(enum session_status st, enum locale loc)
{
	switch (st) {
	case SESSION_LOBBY:
		return L(loc, "lobby", "sala de espera");
	case SESSION_ACTIVE:
		return L(loc, "in play", "en juego");
	case SESSION_FINISHED:
		return L(loc, "finished", "terminada");
	case SESSION_ABORTED:
		return L(loc, "aborted", "cancelada");
	}
	return "?";
}

/* "fortuna, gtr": the registered game ids, for help and errors. */
static const char *game_ids(void)
{
	static char ids[256];
	const struct game_ops *const *all = game_all();
	size_t i, len = 0;

	if (ids[0])
		return ids;
	for (i = 0; all[i]; i++)
		len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", i ? ", " : "",
					all[i]->id);
	return ids;
}

static int is_open(const struct session *s)
{
	return s && (s->rec.status == SESSION_LOBBY || s->rec.status == SESSION_ACTIVE);
}

static void lobby_summary(struct session_mgr *m, const struct session *s, enum locale loc,
			  struct rich *r)
{
	int i;

	rich_heading(r, "%s — %s", s->ops->name[loc], status_word(s->rec.status, loc));
	if (s->rec.options[0])
		rich_line(r, "%s %s", L(loc, "Options:", "Opciones:"), s->rec.options);
	rich_text(r, L(loc, "Seats (%d of %d–%d):", "Asientos (%d de %d–%d):"),
		  s->rec.nseats, s->ops->min_players, s->ops->max_players);
	for (i = 0; i < s->rec.nseats; i++)
		rich_text(r, "%s%s%s", i ? ", " : " ", s->rec.seats[i].name,
			  s->rec.seats[i].is_bot ? L(loc, " (AI)", " (IA)") : "");
	rich_newline(r);
	if (s->rec.status == SESSION_LOBBY)
		rich_line(r, "%s", L(loc,
			"`game join` to take a seat, `game addbot` for an AI, `game start` to begin.",
			"`game join` para sentarte, `game addbot` para una IA, `game start` para empezar."));
}

/*
 * A game's options are words ("nofunctions original-circus"): each word is
 * folded on its own (case, accents) and keeps its inner hyphens, so that
 * "Original-Circus" and "original_circus" both read "original-circus".
 * (text_fold alone would split a hyphenated word in two.)
 */
static void options_normalise(const char *args, struct buf *out)
{
	struct buf f = BUF_INIT;
	char word[64];
	size_t i;

	while (text_word(&args, word, sizeof(word))) {
		buf_reset(&f);
		text_fold(word, &f);
		for (i = 0; i < f.len; i++)
			if (f.s[i] == ' ')
				f.s[i] = '-';
		if (f.len)
			buf_printf(out, "%s%s", out->len ? " " : "", buf_str(&f));
	}
	buf_release(&f);
}

static int count_lobby(void *ctx, const struct session_rec *rec)
{
	*(unsigned *)ctx += rec->status == SESSION_LOBBY;
	return 0;
}

/*
 * The lobby caps (docs/async.md, "Limits"): the open lobbies cmd's user is
 * seated in on this platform (checked by `game new` and `game join`), and
 * all the open lobbies of the platform (`game new`).  Lobbies cost nothing
 * to open and live until started or left, so without them one user (or a
 * few accounts) could fill the store.  Returns 1, with the user told why
 * privately, when the command must be refused.
 */
static int lobby_cap_reached(struct session_mgr *m, struct adapter *a,
			     const struct command *cmd, enum locale loc, int opening)
{
	struct buf err = BUF_INIT, msg = BUF_INIT;
	unsigned mine = 0;
	int64_t all = 0;
	int full = 1;

	if (store_sessions_of_user(m->store, cmd->platform, cmd->user, count_lobby, &mine, &err) ||
	    store_count_lobbies(m->store, cmd->platform, &all, &err)) {
		log_err("counting lobbies on %s: %s", cmd->platform, buf_str(&err));
		reply_text(a, cmd, 1, L(loc, "The bot could not check its lobbies (an internal "
					"error); nothing changed. Please try again in a moment.",
					"El bot no pudo revisar sus salas de espera (un error interno); "
					"nada ha cambiado. Inténtalo de nuevo en un momento."));
	} else if (m->max_lobbies_user && mine >= m->max_lobbies_user) {
		buf_setf(&msg, L(loc, "You are already waiting in %u lobbies here, the most one "
				 "player may have. Start one of them, or `game leave` one (`mygames` "
				 "lists them), before you open another.",
				 "Ya esperas en %u salas de espera aquí, el máximo por jugador. Empieza "
				 "una, o deja una con `game leave` (`mygames` las lista), antes de "
				 "abrir otra."), mine);
		reply_text(a, cmd, 1, buf_str(&msg));
	} else if (opening && m->max_lobbies_platform &&
		   all >= (int64_t)m->max_lobbies_platform) {
		log_warn("%s has %lld open lobbies (the cap): `game new` refused", cmd->platform,
			 (long long)all);
		reply_text(a, cmd, 1, L(loc, "Too many games are waiting for players right now, "
					"so no new one can open. Join one, or try again later.",
					"Ahora mismo hay demasiadas partidas esperando jugadores, así "
					"que no se puede abrir otra. Únete a una, o inténtalo más tarde."));
	} else {
		full = 0;
	}
	buf_release(&err);
	buf_release(&msg);
	return full;
}

static void cmd_game_new(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			 struct session *cur, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, cur);
	char gname[64];
	const struct game_ops *ops;
	struct session *s;
	struct change c;
	struct buf err = BUF_INIT, opts = BUF_INIT;
	void *probe;
	struct rich r = RICH_INIT;

	if (is_open(cur)) {
		buf_setf(&err, L(loc, "A game of %s is already open here (%s). "
				 "Finish it or `game abort` first.",
				 "Ya hay una partida de %s abierta aquí (%s). "
				 "Termínala o usa `game abort` antes."),
			 cur->ops->name[loc], status_word(cur->rec.status, loc));
		reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	if (!text_word(&args, gname, sizeof(gname))) {
		buf_setf(&err, L(loc, "Which game? `game new <game>`; games: %s",
				 "¿Qué juego? `game new <juego>`; juegos: %s"), game_ids());
		reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	ops = game_find(gname);
	if (!ops) {
		buf_setf(&err, L(loc, "Unknown game \"%s\". Games: %s",
				 "Juego desconocido \"%s\". Juegos: %s"), gname, game_ids());
		reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	/* normalise the options and let the game judge them now, not at start */
	options_normalise(args, &opts);
	probe = game_state_new(ops);
	if (opts.len >= sizeof(cur->rec.options) ||
	    ops->setup(probe, ops->max_players, 1, buf_str(&opts), &err)) {
		struct buf msg = BUF_INIT;

		buf_printf(&msg, "%s %s", buf_str(&err), ops->options_help ? ops->options_help : "");
		reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		free(probe);
		goto out;
	}
	free(probe);
	if (lobby_cap_reached(m, a, cmd, loc, 1))
		goto out;
	s = session_new(m, cmd, ops);
	copy_field(s->rec.options, sizeof(s->rec.options), buf_str(&opts));
	copy_field(s->rec.locale, sizeof(s->rec.locale), locale_code(loc));
	change_init(&c, s);
	if (add_seat(&c.rec, cmd->user, cmd->name, 0)) {
		reply_text(a, cmd, 1, L(loc, "Your name is too long.", "Tu nombre es demasiado largo."));
		change_release(&c);
		session_free(s);
		goto out;
	}
	if (change_commit(m, &c, &err)) {
		reply_commit_failed(a, cmd, loc);
		change_release(&c);
		session_free(s);
		goto out;
	}
	change_release(&c);
	cache_put(m, s);
	lobby_summary(m, s, loc, &r);
	reply_rich(a, cmd, 0, &r);
out:
	rich_release(&r);
	buf_release(&err);
	buf_release(&opts);
}

/* Commits a lobby change built by `edit` and answers with the summary. */
static void lobby_commit(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			 struct change *c, enum locale loc)
{
	struct buf err = BUF_INIT;
	struct rich r = RICH_INIT;

	if (change_commit(m, c, &err)) {
		reply_commit_failed(a, cmd, loc);
	} else {
		lobby_summary(m, c->s, loc, &r);
		reply_rich(a, cmd, 0, &r);
	}
	rich_release(&r);
	buf_release(&err);
}

static int need_lobby(struct adapter *a, const struct command *cmd, struct session *s,
		      enum locale loc)
{
	if (!s || s->rec.status != SESSION_LOBBY) {
		reply_text(a, cmd, 1, L(loc,
			"There is no game waiting for players here. Open one with `game new <game>`.",
			"Aquí no hay ninguna partida esperando jugadores. Abre una con `game new <juego>`."));
		return -1;
	}
	return 0;
}

static void cmd_game_join(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			  struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct change c;

	if (need_lobby(a, cmd, s, loc))
		return;
	if (seat_of(s, cmd->user) >= 0) {
		reply_text(a, cmd, 1, L(loc, "You already have a seat.", "Ya tienes asiento."));
		return;
	}
	if (s->rec.nseats >= s->ops->max_players) {
		reply_text(a, cmd, 1, L(loc, "The game is full.", "La partida está completa."));
		return;
	}
	if (lobby_cap_reached(m, a, cmd, loc, 0))
		return;
	change_init(&c, s);
	if (add_seat(&c.rec, cmd->user, cmd->name, 0))
		reply_text(a, cmd, 1, L(loc, "Your name is too long.", "Tu nombre es demasiado largo."));
	else
		lobby_commit(m, a, cmd, &c, loc);
	change_release(&c);
}

static void cmd_game_leave(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			   struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct change c;
	int seat;

	if (s && s->rec.status == SESSION_ACTIVE) {
		reply_text(a, cmd, 1, L(loc,
			"The game has started: seats can no longer be left. `game abort` ends it.",
			"La partida ya empezó: no se puede dejar el asiento. `game abort` la termina."));
		return;
	}
	if (need_lobby(a, cmd, s, loc))
		return;
	seat = seat_of(s, cmd->user);
	if (seat < 0) {
		reply_text(a, cmd, 1, L(loc, "You have no seat here.", "No tienes asiento aquí."));
		return;
	}
	change_init(&c, s);
	memmove(&c.rec.seats[seat], &c.rec.seats[seat + 1],
		(size_t)(c.rec.nseats - seat - 1) * sizeof(c.rec.seats[0]));
	c.rec.nseats--;
	if (humans_of(&c.rec)) {
		lobby_commit(m, a, cmd, &c, loc);
	} else {
		/* nobody is left to start it, nor to abort it: it would hold
		 * the room (and count as a lobby) for ever */
		struct buf err = BUF_INIT;

		c.rec.status = SESSION_ABORTED;
		if (change_commit(m, &c, &err))
			reply_commit_failed(a, cmd, loc);
		else
			reply_text(a, cmd, 0, L(loc,
				"Nobody is seated any more: the lobby is closed. `game new <game>` opens another.",
				"Ya no queda nadie sentado: la sala de espera se cierra. "
				"`game new <juego>` abre otra."));
		buf_release(&err);
	}
	change_release(&c);
}

static void cmd_game_addbot(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			    struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s);
	char word[16];
	struct change c;
	int n = 1, i;

	if (need_lobby(a, cmd, s, loc))
		return;
	if (seat_of(s, cmd->user) < 0) {
		reply_text(a, cmd, 1, L(loc, "Only a seated player can add AI players.",
					"Solo un jugador sentado puede añadir jugadores IA."));
		return;
	}
	if (text_word(&args, word, sizeof(word))) {
		char *end;
		long v = strtol(word, &end, 10);

		if (*end || v < 1 || v > GAME_MAX_SEATS || *args) {
			reply_text(a, cmd, 1, L(loc, "Usage: `game addbot [n]`, n a small number.",
						"Uso: `game addbot [n]`, n un número pequeño."));
			return;
		}
		n = (int)v;
	}
	if (s->rec.nseats + n > s->ops->max_players) {
		struct buf msg = BUF_INIT;

		buf_setf(&msg, L(loc, "Only %d seat(s) left.", "Solo quedan %d asiento(s)."),
			 s->ops->max_players - s->rec.nseats);
		reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		return;
	}
	change_init(&c, s);
	for (i = 0; i < n; i++) {
		char name[32];
		int k, idx = 1, taken;

		do {	/* the first free "AI n" name */
			snprintf(name, sizeof(name), L(loc, "AI %d", "IA %d"), idx++);
			taken = 0;
			for (k = 0; k < c.rec.nseats; k++)
				taken |= !strcmp(c.rec.seats[k].name, name);
		} while (taken);
		add_seat(&c.rec, "", name, 1);
	}
	lobby_commit(m, a, cmd, &c, loc);
	change_release(&c);
}

static void cmd_game_start(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			   struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct buf err = BUF_INIT;
	struct capture cap;
	const char *names[GAME_MAX_SEATS];
	struct change c;

	if (need_lobby(a, cmd, s, loc))
		return;
	if (seat_of(s, cmd->user) < 0) {
		reply_text(a, cmd, 1, L(loc, "Only a seated player can start the game.",
					"Solo un jugador sentado puede empezar la partida."));
		return;
	}
	if (s->rec.nseats < s->ops->min_players || s->rec.nseats > s->ops->max_players) {
		buf_setf(&err, L(loc, "%s needs %d to %d players; there are %d.",
				 "%s necesita de %d a %d jugadores; hay %d."),
			 s->ops->name[loc], s->ops->min_players, s->ops->max_players,
			 s->rec.nseats);
		reply_text(a, cmd, 1, buf_str(&err));
		buf_release(&err);
		return;
	}
	change_init(&c, s);
	seat_names(s, names);
	capture_init(&cap, loc, names);
	c.rec.seed = ((uint64_t)rng_next(&m->rng) << 32) | rng_next(&m->rng);
	c.rec.status = SESSION_ACTIVE;
	c.st = game_state_new(s->ops);
	if (s->ops->setup(c.st, c.rec.nseats, c.rec.seed, c.rec.options, &err) ||
	    (s->ops->intro && (s->ops->intro(c.st, &cap.log), 0)) ||
	    run_bots(m, &c, &cap, &err)) {
		log_err("start of %s/%s failed: %s", s->rec.platform, s->rec.room, buf_str(&err));
		reply_text(a, cmd, 1, L(loc, "The game could not start (an internal error).",
					"La partida no pudo empezar (un error interno)."));
		goto out;
	}
	if (!s->ops->awaiting(c.st))
		c.rec.status = SESSION_FINISHED;
	c.actor = cmd->user;
	queue_updates(m, &c, &cap);
	if (change_commit(m, &c, &err))
		reply_commit_failed(a, cmd, loc);
	else
		reply_actor_view(a, cmd, &c);
out:
	capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}

static void cmd_game_status(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			    struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct rich r = RICH_INIT;

	if (!s) {
		reply_text(a, cmd, 0, L(loc, "No game here yet. Open one with `game new fortuna`.",
					"Aún no hay partida aquí. Abre una con `game new fortuna`."));
		return;
	}
	lobby_summary(m, s, loc, &r);
	if (s->st && s->rec.status == SESSION_ACTIVE) {
		add_waiting(s, s->st, loc, &r, 0);
		rich_line(&r, L(loc, "Moves so far: %lld.", "Jugadas hasta ahora: %lld."),
			  (long long)s->last_seq);
	}
	reply_rich(a, cmd, 0, &r);
	rich_release(&r);
}

/*
 * `game abort`.  Its creator ends a game alone while they hold a human seat
 * of it; anyone else seated votes, and more than half of the seated humans
 * end it.  Nobody outside the game has a say: not a passer-by, not a
 * creator who left the lobby or whose seat the AI took (the remaining
 * players decide).  Votes are stored (session_rec.votes) and count only
 * while their voter is seated.
 */
static void cmd_game_abort(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			   struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct change c;
	struct buf err = BUF_INIT;
	json_t *v;
	int humans, votes;

	if (!is_open(s)) {
		reply_text(a, cmd, 1, L(loc, "There is no open game here.",
					"Aquí no hay ninguna partida abierta."));
		return;
	}
	if (seat_of(s, cmd->user) < 0) {
		reply_text(a, cmd, 1, L(loc,
			"Only the players seated in this game can abort it: its creator alone, "
			"or more than half of the seated players.",
			"Solo los jugadores sentados en esta partida pueden cancelarla: su creador, "
			"o más de la mitad de los jugadores sentados."));
		return;
	}
	change_init(&c, s);
	if (strcmp(s->rec.creator, cmd->user)) {
		v = votes_load(&c.rec);
		vote_abort(v, cmd->user);
		humans = humans_of(&c.rec);
		votes = count_abort(&c.rec, v);
		votes_save(&c.rec, v);
		if (votes * 2 <= humans) {
			/* the vote is stored: a restart keeps it */
			if (change_commit(m, &c, &err)) {
				reply_commit_failed(a, cmd, loc);
			} else {
				buf_setf(&err, L(loc,
					 "Vote to abort recorded (%d of %d; more than half needed).",
					 "Voto para cancelar registrado (%d de %d; hace falta más de la mitad)."),
					 votes, humans);
				reply_text(a, cmd, 0, buf_str(&err));
			}
			goto out;
		}
	}
	c.rec.status = SESSION_ABORTED;
	if (change_commit(m, &c, &err))
		reply_commit_failed(a, cmd, loc);
	else
		reply_text(a, cmd, 0, L(loc, "The game was aborted. Nobody wins.",
					"La partida se canceló. Nadie gana."));
out:
	change_release(&c);
	buf_release(&err);
}

static int need_game(struct adapter *a, const struct command *cmd, struct session *s,
		     enum locale loc, int any_status)
{
	if (!s || !s->st || (!any_status && s->rec.status != SESSION_ACTIVE)) {
		reply_text(a, cmd, 1, L(loc, "No game is being played here.",
					"Aquí no se está jugando ninguna partida."));
		return -1;
	}
	return 0;
}

static int need_seat(struct adapter *a, const struct command *cmd, struct session *s,
		     enum locale loc)
{
	int seat = seat_of(s, cmd->user);

	if (seat < 0)
		reply_text(a, cmd, 1, L(loc, "You are not playing in this game.",
					"No juegas en esta partida."));
	return seat;
}

/* While a game is paused nothing moves: answers so and returns 1. */
static int refuse_if_paused(struct adapter *a, const struct command *cmd,
			    const struct session *s, enum locale loc)
{
	struct room_settings rs;

	settings_read(&s->rec, &rs);
	if (!rs.paused)
		return 0;
	reply_text(a, cmd, 1, L(loc, "The game is paused. `game resume` to go on.",
				"La partida está en pausa. `game resume` para seguir."));
	return 1;
}

static void cmd_play(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		     struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct buf err = BUF_INIT, id = BUF_INIT;
	const char *names[GAME_MAX_SEATS];
	struct capture cap;
	struct change c;
	struct move mv;
	int seat;

	if (need_game(a, cmd, s, loc, 0))
		return;
	seat = need_seat(a, cmd, s, loc);
	if (seat < 0)
		return;
	if (refuse_if_paused(a, cmd, s, loc))
		return;
	if (!*args) {
		reply_text(a, cmd, 1, L(loc, "Usage: `play <move>`. Type `moves` to see yours.",
					"Uso: `play <jugada>`. Escribe `moves` para ver las tuyas."));
		return;
	}
	if (game_parse(s->ops, s->st, seat, args, loc, &mv, &err)) {
		reply_text(a, cmd, 1, buf_str(&err));
		buf_release(&err);
		return;
	}
	change_init(&c, s);
	seat_names(s, names);
	capture_init(&cap, session_loc(s, m), names);
	c.st = xmalloc(s->ops->state_size);
	memcpy(c.st, s->st, s->ops->state_size);
	s->ops->move_id(c.st, seat, mv, &id);
	if (s->ops->apply(c.st, seat, mv, &cap.log, &err)) {
		reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	change_action(&c, seat, buf_str(&id), cmd->user, mgr_now(m));
	votes_drop_kicks_of(&c.rec, cmd->user);
	if (run_bots(m, &c, &cap, &err)) {
		log_err("AI in %s/%s failed: %s", s->rec.platform, s->rec.room, buf_str(&err));
		reply_text(a, cmd, 1, L(loc, "An AI player failed (an internal error); nothing changed.",
					"Un jugador IA falló (un error interno); nada ha cambiado."));
		goto out;
	}
	if (!s->ops->awaiting(c.st))
		c.rec.status = SESSION_FINISHED;
	c.actor = cmd->user;
	queue_updates(m, &c, &cap);
	if (change_commit(m, &c, &err))
		reply_commit_failed(a, cmd, loc);
	else
		reply_actor_view(a, cmd, &c);
out:
	capture_release(&cap);
	change_release(&c);
	buf_release(&err);
	buf_release(&id);
}

static void cmd_moves(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		      struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct rich r = RICH_INIT;
	struct buf p = BUF_INIT;
	int seat;

	if (need_game(a, cmd, s, loc, 0))
		return;
	seat = need_seat(a, cmd, s, loc);
	if (seat < 0)
		return;
	if (s->ops->awaiting(s->st) & (1u << seat)) {
		s->ops->prompt(s->st, seat, loc, &p);
		rich_line(&r, "%s", buf_str(&p));
	}
	add_moves(s, s->st, seat, loc, &r, 0);
	reply_rich(a, cmd, 1, &r);
	rich_release(&r);
	buf_release(&p);
}

static void cmd_hand(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		     struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct rich r = RICH_INIT;
	int seat;

	if (need_game(a, cmd, s, loc, 1))
		return;
	seat = need_seat(a, cmd, s, loc);
	if (seat < 0)
		return;
	view_init(s, loc, names, &v);
	s->ops->render_private(s->st, seat, &v, &r);
	reply_rich(a, cmd, 1, &r);
	rich_release(&r);
}

static void cmd_board(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		      struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct rich r = RICH_INIT;

	if (need_game(a, cmd, s, loc, 1))
		return;
	view_init(s, loc, names, &v);
	s->ops->render_public(s->st, &v, &r);
	add_result(s, s->st, loc, &r);
	add_waiting(s, s->st, loc, &r, 0);
	reply_rich(a, cmd, 0, &r);
	rich_release(&r);
}

static void cmd_log(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		    struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const char *names[GAME_MAX_SEATS];
	struct capture cap;
	struct buf err = BUF_INIT;
	struct rich pub = RICH_INIT, priv = RICH_INIT;
	void *st;
	size_t i, npub = 0, first = 0, seen = 0, since = 0;
	long n = LOG_DEFAULT_LINES;
	int seat, export = 0, asked = *args != '\0';
	int64_t mine = 0;

	if (need_game(a, cmd, s, loc, 1))
		return;
	if (text_eq(args, "all")) {
		/* the whole game, to the caller only: an export, not a post */
		n = LONG_MAX / 2;
		export = 1;
	} else if (*args) {
		char *end;

		n = strtol(args, &end, 10);
		if (*end || n < 1 || n > 500) {
			reply_text(a, cmd, 1, L(loc, "Usage: `log [n]` (n from 1 to 500) or `log all`.",
						"Uso: `log [n]` (n de 1 a 500) o `log all`."));
			return;
		}
	}
	seat = seat_of(s, cmd->user);
	seat_names(s, names);
	capture_init(&cap, loc, names);
	st = game_state_new(s->ops);
	if (replay_marked(s->ops, &s->rec, m->store, st, &cap.log, &cap,
			  seat >= 0 ? cmd->user : NULL, &mine, &err)) {
		log_err("log replay of %s/%s failed: %s", s->rec.platform, s->rec.room,
			buf_str(&err));
		reply_text(a, cmd, 1, L(loc, "The log could not be read (an internal error).",
					"No se pudo leer el registro (un error interno)."));
		goto out;
	}
	for (i = 0; i < cap.n; i++) {
		npub += cap.v[i].seat == LOG_PUBLIC;
		since += cap.v[i].seat == LOG_PUBLIC && mine && cap.v[i].seq >= mine;
	}
	/* plain `log` from a player: everything since their last decision
	 * (its own outcome included), however many AI turns followed */
	if (!asked && since > (size_t)n)
		n = since < LOG_SINCE_MAX ? (long)since : LOG_SINCE_MAX;
	/* index of the first public line shown; private lines from there on */
	for (i = 0; i < cap.n; i++) {
		if (cap.v[i].seat != LOG_PUBLIC)
			continue;
		if (seen++ + (size_t)n >= npub) {
			first = i;
			break;
		}
	}
	if (!npub)
		first = cap.n;
	rich_heading(&pub, "%s", L(loc, "Log", "Registro"));
	for (i = first; i < cap.n; i++) {
		if (cap.v[i].seat == LOG_PUBLIC)
			rich_line(&pub, "%s", cap.v[i].text);
		else if (seat >= 0 && cap.v[i].seat == seat && export)
			rich_line(&pub, "(%s) %s", L(loc, "private", "privado"), cap.v[i].text);
		else if (seat >= 0 && cap.v[i].seat == seat)
			rich_line(&priv, "%s", cap.v[i].text);
	}
	if (!npub)
		rich_line(&pub, "%s", L(loc, "Nothing yet.", "Nada todavía."));
	else if (!asked && since > LOG_SINCE_MAX)
		rich_line(&pub, "%s", L(loc, "(more since your last move: `log all`)",
					"(hay más desde tu última jugada: `log all`)"));
	reply_rich(a, cmd, export, &pub);
	if (priv.n)
		reply_rich(a, cmd, 1, &priv);
out:
	free(st);
	capture_release(&cap);
	rich_release(&pub);
	rich_release(&priv);
	buf_release(&err);
}

static void cmd_help(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		     struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct rich r = RICH_INIT;

	rich_heading(&r, "%s", L(loc, "tabula commands", "Órdenes de tabula"));
	rich_mono(&r, L(loc,
		"game new <game> [options]  open a game here\n"
		"game join | game leave     take or give up a seat before the start\n"
		"game addbot [n]            add AI players\n"
		"game start                 start the game\n"
		"game status                lobby or game summary\n"
		"game abort                 end the game (creator, or a majority)\n"
		"game settings [key value]  locale, dm, remind, timeout, ontimeout\n"
		"game pause | game resume   stop and restart the clock (holidays)\n"
		"game kick <player>         the AI replaces an idle player (majority)\n"
		"mygames                    your games and where it is your turn\n"
		"undo                       take back your last decision\n"
		"rules <game> [topic]       rule summaries\n"
		"card <name>                a card's text\n"
		"moves                      your legal moves now (private)\n"
		"play <move>                make a decision (id, label, prefix or number)\n"
		"hand                       your private view\n"
		"board                      show the board\n"
		"log [n] | log all          the log since your move, or n lines; all, privately\n"
		"help [game]                this text; a game's rules",
		"game new <juego> [opciones] abre una partida aquí\n"
		"game join | game leave     sentarse o dejar el asiento antes de empezar\n"
		"game addbot [n]            añade jugadores IA\n"
		"game start                 empieza la partida\n"
		"game status                resumen de la sala o de la partida\n"
		"game abort                 termina la partida (creador, o mayoría)\n"
		"game settings [clave valor] locale, dm, remind, timeout, ontimeout\n"
		"game pause | game resume   para y reanuda el reloj (vacaciones)\n"
		"game kick <jugador>        la IA sustituye a un ausente (mayoría)\n"
		"mygames                    tus partidas y dónde te toca\n"
		"undo                       deshace tu última decisión\n"
		"rules <juego> [tema]       resúmenes de reglas\n"
		"card <nombre>              el texto de una carta\n"
		"moves                      tus jugadas legales ahora (privado)\n"
		"play <jugada>              toma una decisión (id, texto, prefijo o número)\n"
		"hand                       tu vista privada\n"
		"board                      muestra el tablero\n"
		"log [n] | log all          el registro desde tu jugada, o n líneas; todo, en privado\n"
		"help [juego]               este texto; las reglas de un juego"));
	rich_line(&r, L(loc, "Games: %s.", "Juegos: %s."), game_ids());
	reply_rich(a, cmd, 1, &r);
	rich_release(&r);
}

/*
 * Room settings that decide what happens to other players' seats and
 * notifications: once the game has started they change only when more than
 * half of the seated humans ask for the same value (docs/async.md, "Who
 * may change what").  `dm` (the caller's own notifications) and `locale`
 * (the room's language: it changes no seat and no outcome, and anyone
 * seated changes it back) take effect at once.
 */
static int setting_voted(const char *key)
{
	return text_eq(key, "timeout") || text_eq(key, "ontimeout") || text_eq(key, "remind") ||
	       text_eq(key, "ai");
}

/*
 * Checks `key value` of a room setting; writes its canonical key and value
 * (the words votes compare) to ckey and cval.  0, or -1 when it is not one.
 */
static int setting_parse(const char *key, const char *val, char *ckey, char *cval, size_t n)
{
	if ((text_eq(key, "remind") || text_eq(key, "timeout")) && val[0] &&
	    strspn(val, "0123456789") == strlen(val) && strlen(val) <= 4 &&
	    atoi(val) <= (text_eq(key, "remind") ? 24 * 30 : 24 * 60)) {
		snprintf(ckey, n, "%s", text_eq(key, "remind") ? "remind" : "timeout");
		snprintf(cval, n, "%d", atoi(val));
		return 0;
	}
	if (text_eq(key, "ontimeout") && (text_eq(val, "ai") || text_eq(val, "pause"))) {
		snprintf(ckey, n, "ontimeout");
		snprintf(cval, n, "%s", text_eq(val, "ai") ? "ai" : "pause");
		return 0;
	}
	if (text_eq(key, "ai") && (text_eq(val, "basic") || text_eq(val, "strong"))) {
		snprintf(ckey, n, "ai");
		snprintf(cval, n, "%s", text_eq(val, "basic") ? "basic" : "strong");
		return 0;
	}
	return -1;
}

/* The canonical value of a room setting now (as setting_parse writes it). */
static void setting_now(const struct session_rec *rec, const char *key, char *out, size_t n)
{
	struct room_settings rs;

	settings_read(rec, &rs);
	if (!strcmp(key, "remind"))
		snprintf(out, n, "%d", rs.remind_h);
	else if (!strcmp(key, "timeout"))
		snprintf(out, n, "%d", rs.timeout_h);
	else if (!strcmp(key, "ontimeout"))
		snprintf(out, n, "%s", rs.timeout_ai ? "ai" : "pause");
	else
		snprintf(out, n, "%s", rs.ai_strong ? "strong" : "basic");
}

/* Writes a checked room setting into rec and what to say about it to msg. */
static void setting_apply(const struct session *s, struct session_rec *rec, const char *key,
			  const char *val, enum locale loc, struct buf *msg)
{
	struct room_settings rs;
	int h = atoi(val);

	settings_read(rec, &rs);
	if (!strcmp(key, "remind") || !strcmp(key, "timeout")) {
		if (!strcmp(key, "remind"))
			rs.remind_h = h;
		else
			rs.timeout_h = h;
		if (!h)
			buf_setf(msg, "%s", !strcmp(key, "remind")
				 ? L(loc, "Reminders off.", "Recordatorios desactivados.")
				 : L(loc, "No timeout.", "Sin límite de tiempo."));
		else
			buf_setf(msg, !strcmp(key, "remind")
				 ? L(loc, "Reminders every %d hours.", "Recordatorios cada %d horas.")
				 : L(loc, "Timeout: %d hours without a move.",
				     "Límite: %d horas sin jugar."), h);
	} else if (!strcmp(key, "ontimeout")) {
		rs.timeout_ai = !strcmp(val, "ai");
		buf_setf(msg, "%s", rs.timeout_ai
			 ? L(loc, "At the timeout the AI decides for the idle player.",
			     "Al agotarse el tiempo, la IA decide por el jugador ausente.")
			 : L(loc, "At the timeout the game pauses.",
			     "Al agotarse el tiempo, la partida se pausa."));
	} else {
		rs.ai_strong = !strcmp(val, "strong");
		if (rs.ai_strong && !s->ops->determinize)
			buf_setf(msg, "%s", L(loc,
				 "This game has no searching AI yet: its AI players stay basic.",
				 "Este juego aún no tiene IA que busque: sus jugadores IA siguen básicos."));
		else
			buf_setf(msg, "%s", rs.ai_strong
				 ? L(loc, "AI players now search before each decision "
				     "(stronger; they take up to a second per decision).",
				     "Los jugadores IA ahora buscan antes de cada decisión "
				     "(más fuertes; tardan hasta un segundo por decisión).")
				 : L(loc, "AI players now play the quick basic way.",
				     "Los jugadores IA juegan ahora de la forma básica y rápida."));
	}
	settings_write(rec, &rs);
}

/* `game settings` alone: the settings, privately. */
static void settings_show(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			  const struct session *s, int seat, enum locale loc)
{
	struct room_settings rs;
	struct buf msg = BUF_INIT;

	settings_read(&s->rec, &rs);
	buf_printf(&msg, L(loc, "Settings: locale %s; your DM notifications: %s.\n",
			   "Ajustes: idioma %s; tus avisos por mensaje directo: %s.\n"),
		   locale_code(session_loc(s, m)),
		   s->rec.seats[seat].notify_dm ? L(loc, "on", "sí") : L(loc, "off", "no"));
	if (rs.remind_h)
		buf_printf(&msg, L(loc, "Reminders every %d h. ", "Recordatorios cada %d h. "),
			   rs.remind_h);
	else
		buf_printf(&msg, "%s", L(loc, "No reminders. ", "Sin recordatorios. "));
	if (rs.timeout_h)
		buf_printf(&msg, L(loc, "After %d h idle: %s.", "Tras %d h sin jugar: %s."),
			   rs.timeout_h, rs.timeout_ai ? L(loc, "the AI decides", "decide la IA")
			   : L(loc, "the game pauses", "la partida se pausa"));
	else
		buf_printf(&msg, "%s", L(loc, "No timeout.", "Sin límite de tiempo."));
	buf_printf(&msg, "%s", rs.ai_strong
		   ? L(loc, " AI players: strong (they search).",
		       " Jugadores IA: fuertes (buscan).")
		   : L(loc, " AI players: basic (quick).", " Jugadores IA: básicos (rápidos)."));
	buf_printf(&msg, "%s", L(loc,
		"\nChange them with `game settings locale en|es`, `dm on|off`, `remind <hours>` "
		"(0: off), `timeout <hours>` (0: off), `ontimeout ai|pause`, `ai basic|strong`.",
		"\nCámbialos con `game settings locale en|es`, `dm on|off`, `remind <horas>` "
		"(0: no), `timeout <horas>` (0: no), `ontimeout ai|pause`, `ai basic|strong`."));
	if (s->rec.status == SESSION_ACTIVE && humans_of(&s->rec) > 1)
		buf_printf(&msg, "%s", L(loc,
			" Once the game has started, remind, timeout, ontimeout and ai change when "
			"more than half of the seated players ask for the same value.",
			" Con la partida empezada, remind, timeout, ontimeout y ai cambian cuando "
			"más de la mitad de los jugadores sentados piden el mismo valor."));
	reply_text(a, cmd, 1, buf_str(&msg));
	buf_release(&msg);
}

/*
 * A vote for a room setting in a game that has started.  Returns 1 when it
 * does not (yet) decide the setting: the vote is committed and answered;
 * 0 when the caller's vote makes the majority: the setting's votes are
 * cleared in c->rec and the caller applies it (with `agreed` appended to
 * its message).
 */
static int setting_vote(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			struct change *c, const char *who, const char *key, const char *val,
			enum locale loc, struct buf *agreed)
{
	struct buf err = BUF_INIT, msg = BUF_INIT;
	json_t *v = votes_load(&c->rec), *set = votes_obj(v, "set");
	int humans = humans_of(&c->rec), votes;

	json_object_set_new(votes_obj(set, key), cmd->user, json_string(val));
	votes = count_for(&c->rec, votes_obj(set, key), val, NULL);
	if (votes * 2 > humans) {
		json_object_del(set, key);	/* decided: every vote on it is done */
		votes_save(&c->rec, v);
		if (humans > 1)
			buf_setf(agreed, L(loc, " (Agreed by %d of %d players.)",
					   " (Acordado por %d de %d jugadores.)"), votes, humans);
		return 0;
	}
	votes_save(&c->rec, v);
	if (change_commit(m, c, &err)) {
		reply_commit_failed(a, cmd, loc);
	} else {
		buf_setf(&msg, L(loc, "%s asks for `game settings %s %s`: %d of %d players "
				 "(more than half needed). The others agree by typing the same.",
				 "%s pide `game settings %s %s`: %d de %d jugadores (hace falta más "
				 "de la mitad). Los demás lo aprueban escribiendo lo mismo."),
			 who, key, val, votes, humans);
		reply_text(a, cmd, 0, buf_str(&msg));
	}
	buf_release(&err);
	buf_release(&msg);
	return 1;
}

/* `game settings [key value]`: per-player DM notifications (seat flag),
 * the room's language and its rules for reminders, timeouts and AI seats.
 * Seated players only. */
static void cmd_game_settings(struct session_mgr *m, struct adapter *a,
			      const struct command *cmd, struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s), nl;
	char key[32], val[32], ckey[16], cval[16], now[16];
	struct buf err = BUF_INIT, msg = BUF_INIT, agreed = BUF_INIT;
	struct change c;
	int seat;

	if (!s || (s->rec.status != SESSION_LOBBY && s->rec.status != SESSION_ACTIVE)) {
		reply_text(a, cmd, 1, L(loc, "There is no game here. Start one with `game new <game>`.",
					"No hay partida aquí. Abre una con `game new <juego>`."));
		return;
	}
	seat = need_seat(a, cmd, s, loc);
	if (seat < 0)
		return;
	text_word(&args, key, sizeof(key));
	text_word(&args, val, sizeof(val));
	if (*args)
		key[0] = '?';	/* trailing words: show the usage */
	if (!key[0]) {
		settings_show(m, a, cmd, s, seat, loc);
		return;
	}
	change_init(&c, s);
	if (text_eq(key, "dm") && (text_eq(val, "on") || text_eq(val, "off"))) {
		c.rec.seats[seat].notify_dm = text_eq(val, "on");
		buf_setf(&msg, c.rec.seats[seat].notify_dm
			 ? L(loc, "DM notifications on: I will message you privately when it is your turn.",
			     "Avisos por mensaje directo activados: te escribiré en privado cuando te toque.")
			 : L(loc, "DM notifications off.", "Avisos por mensaje directo desactivados."));
	} else if (text_eq(key, "locale") && !locale_parse(val, &nl) && strlen(val) == 2) {
		snprintf(c.rec.locale, sizeof(c.rec.locale), "%s", locale_code(nl));
		loc = nl;
		buf_setf(&msg, "%s", L(loc, "This room now plays in English.",
				       "Esta sala juega ahora en español."));
	} else if (setting_voted(key) && !setting_parse(key, val, ckey, cval, sizeof(ckey))) {
		if (s->rec.status == SESSION_ACTIVE) {
			setting_now(&s->rec, ckey, now, sizeof(now));
			if (!strcmp(now, cval)) {
				reply_text(a, cmd, 1, L(loc, "That is the setting already.",
							"Ese ya es el ajuste."));
				goto out;
			}
			if (setting_vote(m, a, cmd, &c, s->rec.seats[seat].name, ckey, cval, loc,
					 &agreed))
				goto out;
		}
		setting_apply(s, &c.rec, ckey, cval, loc, &msg);
		buf_addstr(&msg, buf_str(&agreed));
	} else {
		reply_text(a, cmd, 1, L(loc, "Usage: `game settings`, `game settings dm on|off`, "
					"`game settings locale en|es`, `remind <hours>`, `timeout <hours>`, "
					"`ontimeout ai|pause` or `ai basic|strong`.",
					"Uso: `game settings`, `game settings dm on|off`, "
					"`game settings locale en|es`, `remind <horas>`, `timeout <horas>`, "
					"`ontimeout ai|pause` o `ai basic|strong`."));
		goto out;
	}
	if (change_commit(m, &c, &err))
		reply_commit_failed(a, cmd, loc);
	else
		reply_text(a, cmd, text_eq(key, "dm"), buf_str(&msg));
out:
	change_release(&c);
	buf_release(&err);
	buf_release(&msg);
	buf_release(&agreed);
}

/* ---- pause, resume, kick ---- */

static void cmd_game_pause(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			   struct session *s, int pause)
{
	enum locale loc = cmd_loc(m, cmd, s);
	struct room_settings rs;
	struct buf err = BUF_INIT;
	struct change c;

	if (need_game(a, cmd, s, loc, 0) || need_seat(a, cmd, s, loc) < 0)
		return;
	settings_read(&s->rec, &rs);
	if (rs.paused == pause) {
		reply_text(a, cmd, 1, pause ? L(loc, "The game is already paused.",
						"La partida ya está en pausa.")
			   : L(loc, "The game is not paused.", "La partida no está en pausa."));
		return;
	}
	change_init(&c, s);
	rs.paused = pause;
	rs.reminded = 0;
	if (!pause)
		rs.since = mgr_now(m);	/* the clock starts again, stored */
	settings_write(&c.rec, &rs);
	if (change_commit(m, &c, &err)) {
		reply_commit_failed(a, cmd, loc);
	} else {
		if (!pause)
			s->last_at = mgr_now(m);	/* the clock starts again */
		reply_text(a, cmd, 0, pause
			   ? L(loc, "Game paused: no reminders, no timeouts, no moves until `game resume`.",
			       "Partida en pausa: sin recordatorios, sin límites y sin jugadas hasta "
			       "`game resume`.")
			   : L(loc, "Game resumed.", "Partida reanudada."));
	}
	change_release(&c);
	buf_release(&err);
}

/* The seat a `game kick` argument names: a user id, a <@id> mention, or a
 * display name (folded); -1 if none. */
static int seat_named(const struct session *s, const char *arg)
{
	char id[128];
	size_t n = strlen(arg);
	int i;

	if (n > 3 && arg[0] == '<' && arg[1] == '@' && arg[n - 1] == '>') {
		snprintf(id, sizeof(id), "%.*s", (int)(n - 3), arg + 2);
		arg = id;
	}
	for (i = 0; i < s->rec.nseats; i++)
		if (!s->rec.seats[i].is_bot && (!strcmp(s->rec.seats[i].user, arg) ||
						 text_eq(s->rec.seats[i].name, arg) ||
						 (arg[0] == '@' && text_eq(s->rec.seats[i].name,
									   arg + 1))))
			return i;
	return -1;
}

static int hours_idle_for_kick(const struct session *s)
{
	struct room_settings rs;

	settings_read(&s->rec, &rs);
	return rs.timeout_h ? rs.timeout_h : KICK_IDLE_DEFAULT_H;
}

static void cmd_game_kick(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			  struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const char *names[GAME_MAX_SEATS];
	struct buf err = BUF_INIT, msg = BUF_INIT;
	struct capture cap;
	struct change c;
	json_t *v;
	int seat, target, others, votes, idle_h = 0;

	if (need_game(a, cmd, s, loc, 0))
		return;
	seat = need_seat(a, cmd, s, loc);
	if (seat < 0)
		return;
	if (refuse_if_paused(a, cmd, s, loc))
		return;
	target = seat_named(s, args);
	if (target < 0 || target == seat) {
		reply_text(a, cmd, 1, L(loc, "Usage: `game kick <player>`: another seated player.",
					"Uso: `game kick <jugador>`: otro jugador sentado."));
		return;
	}
	idle_h = hours_idle_for_kick(s);
	if (!(s->ops->awaiting(s->st) & (1u << target)) ||
	    mgr_now(m) - s->last_at < (int64_t)idle_h * 3600) {
		buf_setf(&msg, L(loc, "%s can be replaced by the AI only after %d hours without "
				 "deciding while it is their turn.",
				 "%s solo puede pasar a la IA tras %d horas sin decidir cuando le toca."),
			 s->rec.seats[target].name, idle_h);
		reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		return;
	}
	/* the caller's one kick vote: for this target now */
	change_init(&c, s);
	v = votes_load(&c.rec);
	json_object_set_new(votes_obj(v, "kick"), cmd->user,
			    json_string(s->rec.seats[target].user));
	others = humans_of(&c.rec) - 1;
	votes = count_for(&c.rec, votes_obj(v, "kick"), s->rec.seats[target].user,
			  s->rec.seats[target].user);
	votes_save(&c.rec, v);
	if (votes * 2 <= others) {
		if (change_commit(m, &c, &err)) {
			reply_commit_failed(a, cmd, loc);
		} else {
			buf_setf(&msg, L(loc, "Vote to replace %s by the AI: %d of %d (more than half "
					 "needed).",
					 "Voto para que la IA sustituya a %s: %d de %d (hace falta más "
					 "de la mitad)."),
				 s->rec.seats[target].name, votes, others);
			reply_text(a, cmd, 0, buf_str(&msg));
		}
		change_release(&c);
		buf_release(&msg);
		buf_release(&err);
		return;
	}
	c.rec.seats[target].is_bot = 1;
	c.rec.seats[target].notify_dm = 0;
	seat_names(s, names);
	capture_init(&cap, session_loc(s, m), names);
	c.st = xmalloc(s->ops->state_size);
	memcpy(c.st, s->st, s->ops->state_size);
	game_logf(&cap.log, LOG_PUBLIC, L(session_loc(s, m), "The AI now plays for %s.",
					  "La IA juega ahora por %s."), s->rec.seats[target].name);
	if (run_bots(m, &c, &cap, &err)) {
		log_err("AI in %s/%s failed: %s", s->rec.platform, s->rec.room, buf_str(&err));
		reply_text(a, cmd, 1, L(loc, "An AI player failed (an internal error); nothing changed.",
					"Un jugador IA falló (un error interno); nada ha cambiado."));
	} else {
		if (!s->ops->awaiting(c.st))
			c.rec.status = SESSION_FINISHED;
		queue_updates(m, &c, &cap);
		/* the votes against them go with the seat (change_commit) */
		if (change_commit(m, &c, &err))
			reply_commit_failed(a, cmd, loc);
	}
	capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}

/* ---- undo ---- */

struct action_list {
	struct action_rec *v;
	size_t n, cap;
};

static int collect_action(void *ctx, const struct action_rec *a)
{
	struct action_list *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = *a;
	return 0;
}

/* The state after the first n of the session's actions, in st (zeroed). */
static int replay_first(const struct session *s, const struct action_list *l, size_t n,
			void *st, struct buf *err)
{
	size_t i;

	if (s->ops->setup(st, s->rec.nseats, s->rec.seed, s->rec.options, err))
		return -1;
	for (i = 0; i < n; i++) {
		struct move mv;

		if (game_parse(s->ops, st, l->v[i].seat, l->v[i].move, LOC_EN, &mv, err) ||
		    s->ops->apply(st, l->v[i].seat, mv, NULL, err))
			return -1;
	}
	return 0;
}

static char *secrets_of(const struct session *s, const void *st)
{
	struct buf b = BUF_INIT;

	if (s->ops->secrets) {
		s->ops->secrets(st, LOC_EN, &b);
		s->ops->secrets(st, LOC_ES, &b);
	}
	return buf_detach(&b);
}

static void cmd_undo(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		     struct session *s)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const char *names[GAME_MAX_SEATS];
	struct action_list l = { 0 };
	struct buf err = BUF_INIT;
	struct capture cap;
	struct change c;
	void *prev = NULL, *again = NULL;
	char *sec_prev = NULL, *sec_now = NULL;
	json_t *ja = NULL, *jb = NULL;
	const struct action_rec *last;
	size_t i;
	int seat, why = 0;

	if (need_game(a, cmd, s, loc, 0))
		return;
	seat = need_seat(a, cmd, s, loc);
	if (seat < 0)
		return;
	if (refuse_if_paused(a, cmd, s, loc))
		goto out;
	if (store_actions(m->store, s->rec.id, 0, collect_action, &l, &err)) {
		log_err("undo in %s/%s: %s", s->rec.platform, s->rec.room, buf_str(&err));
		reply_text(a, cmd, 1, L(loc, "The log could not be read (an internal error).",
					"No se pudo leer el registro (un error interno)."));
		goto out;
	}
	last = l.n ? &l.v[l.n - 1] : NULL;
	if (!last || last->seat != seat || strcmp(last->user, cmd->user)) {
		reply_text(a, cmd, 1, L(loc,
			"Only the last decision can be taken back, by the player who made it, "
			"before anyone else acts.",
			"Solo se puede deshacer la última decisión, quien la tomó y antes de que "
			"nadie más actúe."));
		goto out;
	}
	prev = game_state_new(s->ops);
	again = game_state_new(s->ops);
	seat_names(s, names);
	capture_init(&cap, LOC_EN, names);
	if (replay_first(s, &l, l.n - 1, prev, &err) || replay_first(s, &l, l.n - 1, again, &err)) {
		why = 1;
	} else {
		struct move mv;

		/* apply the last move again, watching what it did */
		if (game_parse(s->ops, again, seat, last->move, LOC_EN, &mv, &err) ||
		    s->ops->apply(again, seat, mv, &cap.log, &err))
			why = 1;
	}
	if (!why) {
		ja = s->ops->save(again);
		jb = s->ops->save(s->st);
		if (!json_equal(ja, jb))
			why = 1;	/* the log does not rebuild this game */
	}
	if (!why) {
		json_t *ra = json_object_get(ja, "rng");
		json_t *rb = s->ops->save(prev);

		/* dice, draws from a shuffle: the move used chance */
		if (!ra || !json_equal(ra, json_object_get(rb, "rng")))
			why = 2;
		json_decref(rb);
	}
	for (i = 0; !why && i < cap.n; i++)
		if (cap.v[i].seat != LOG_PUBLIC)
			why = 3;	/* someone learned something privately */
	if (!why) {
		sec_prev = secrets_of(s, prev);
		sec_now = secrets_of(s, s->st);
		if (strcmp(sec_prev, sec_now))
			why = 3;	/* hidden information changed hands */
	}
	capture_release(&cap);
	if (why) {
		reply_text(a, cmd, 1, why == 2
			   ? L(loc, "That decision used chance (dice, a draw), so it cannot be taken back.",
			       "Esa decisión usó el azar (dados, un robo), así que no se puede deshacer.")
			   : why == 3
			   ? L(loc, "That decision revealed or moved hidden information, so it cannot be "
			       "taken back.",
			       "Esa decisión reveló o movió información oculta, así que no se puede "
			       "deshacer.")
			   : L(loc, "That decision cannot be taken back.",
			       "Esa decisión no se puede deshacer."));
		if (why == 1)
			log_warn("undo in %s/%s: %s", s->rec.platform, s->rec.room, buf_str(&err));
		goto out;
	}
	change_init(&c, s);
	c.st = prev;
	prev = NULL;
	c.truncate = 1;
	c.truncate_after = last->seq - 1;
	capture_init(&cap, session_loc(s, m), names);
	game_logf(&cap.log, LOG_PUBLIC, L(session_loc(s, m), "%s takes back their last decision.",
					  "%s deshace su última decisión."), s->rec.seats[seat].name);
	c.actor = cmd->user;
	{
		/* the messages show the position before the undone move */
		int64_t keep = s->last_seq;

		s->last_seq = last->seq - 1;
		queue_updates(m, &c, &cap);
		s->last_seq = keep;
	}
	if (change_commit(m, &c, &err))
		reply_commit_failed(a, cmd, loc);
	else
		reply_actor_view(a, cmd, &c);
	capture_release(&cap);
	change_release(&c);
out:
	json_decref(ja);
	json_decref(jb);
	free(sec_prev);
	free(sec_now);
	free(prev);
	free(again);
	free(l.v);
	buf_release(&err);
}

/* ---- mygames ---- */

struct mine {
	struct session_mgr *m;
	const struct command *cmd;
	enum locale loc;
	struct rich *r;
	int n;
};

static int list_mine(void *ctx, const struct session_rec *rec)
{
	struct mine *f = ctx;
	struct buf err = BUF_INIT;
	struct session *s;
	int i, seat = -1;

	for (i = 0; i < rec->nseats; i++)
		if (!rec->seats[i].is_bot && !strcmp(rec->seats[i].user, f->cmd->user))
			seat = i;
	if (seat < 0)
		return 0;
	s = session_mgr_find(f->m, rec->platform, rec->room, &err);
	buf_release(&err);
	if (!s || s->rec.id != rec->id)
		return 0;
	f->n++;
	rich_text(f->r, "%s ", s->ops->name[f->loc]);
	rich_room(f->r, rec->room, NULL);
	if (s->rec.status == SESSION_LOBBY) {
		rich_text(f->r, "%s", L(f->loc, ": in the lobby", ": en la sala de espera"));
	} else {
		unsigned aw = s->st ? s->ops->awaiting(s->st) : 0;
		int64_t h = (mgr_now(f->m) - s->last_at) / 3600;

		if (aw & (1u << seat)) {
			rich_text(f->r, ": ");
			rich_emph(f->r, "%s", L(f->loc, "your turn", "te toca"));
		}
		else
			rich_text(f->r, "%s", L(f->loc, ": waiting for others",
						": esperando a otros"));
		rich_text(f->r, L(f->loc, ", since %lld h", ", desde hace %lld h"), (long long)h);
	}
	rich_newline(f->r);
	return 0;
}

static void cmd_mygames(struct session_mgr *m, struct adapter *a, const struct command *cmd)
{
	struct mine f;
	struct rich r = RICH_INIT;
	struct buf err = BUF_INIT;

	memset(&f, 0, sizeof(f));
	f.m = m;
	f.cmd = cmd;
	f.loc = cmd_loc(m, cmd, NULL);
	f.r = &r;
	rich_heading(&r, "%s", L(f.loc, "Your games", "Tus partidas"));
	if (store_sessions_of_user(m->store, cmd->platform, cmd->user, list_mine, &f, &err))
		log_warn("mygames: %s", buf_str(&err));
	if (!f.n)
		rich_line(&r, "%s", L(f.loc, "You are not in any game here.",
				      "No juegas ninguna partida aquí."));
	reply_rich(a, cmd, 1, &r);
	rich_release(&r);
	buf_release(&err);
}

/* ---- rules and cards ---- */

static void cmd_rules(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		      struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const struct game_ops *g = NULL;
	struct rich r = RICH_INIT;
	char word[64];

	text_word(&args, word, sizeof(word));
	if (word[0])
		g = game_find(word);
	else if (s)
		g = s->ops;
	if (!g || !g->rules) {
		struct buf msg = BUF_INIT;

		buf_setf(&msg, L(loc, "Usage: `rules <game> [topic]`. Games: %s.",
				 "Uso: `rules <juego> [tema]`. Juegos: %s."), game_ids());
		reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
		return;
	}
	g->rules(*args ? args : NULL, loc, &r);
	reply_rich(a, cmd, 1, &r);
	rich_release(&r);
}

static void cmd_card(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		     struct session *s, const char *args)
{
	enum locale loc = cmd_loc(m, cmd, s);
	const struct game_ops *const *all = game_all();
	struct rich r = RICH_INIT;
	size_t i;

	if (!*args) {
		reply_text(a, cmd, 1, L(loc, "Usage: `card <name>`.", "Uso: `card <nombre>`."));
		return;
	}
	/* the room's game first (with its options: a variant's card text),
	 * then every game */
	if (s && s->ops->card && !s->ops->card(args, s->rec.options, loc, &r)) {
		reply_rich(a, cmd, 1, &r);
		rich_release(&r);
		return;
	}
	for (i = 0; all[i]; i++) {
		rich_release(&r);
		rich_init(&r);
		if (all[i]->card && all[i] != (s ? s->ops : NULL) &&
		    !all[i]->card(args, NULL, loc, &r)) {
			reply_rich(a, cmd, 1, &r);
			rich_release(&r);
			return;
		}
	}
	rich_release(&r);
	rich_init(&r);
	if (s && s->ops->card)
		s->ops->card(args, s->rec.options, loc, &r);	/* its "no such card" or candidates */
	else
		rich_line(&r, "%s", L(loc, "No such card.", "No existe esa carta."));
	reply_rich(a, cmd, 1, &r);
	rich_release(&r);
}

/* ---- reminders and timeouts ---- */

/* When s next needs attention (unix seconds), or 0. */
/* When a session in this state next needs attention (unix seconds), or 0. */
static int64_t compute_due(const struct session_rec *rec, const struct game_ops *ops,
			   const void *st, int64_t last_at)
{
	struct room_settings rs;
	unsigned aw;
	int64_t due = 0, t;
	int i, human = 0;

	if (rec->status != SESSION_ACTIVE || !st)
		return 0;
	settings_read(rec, &rs);
	if (rs.paused)
		return 0;
	aw = ops->awaiting(st);
	if ((aw & bot_seats(rec)) && ai_searches(rec, ops))
		return last_at > 0 ? last_at : 1;	/* AI seats to think (run_bots): now */
	for (i = 0; i < rec->nseats; i++)
		human |= (aw & (1u << i)) && !rec->seats[i].is_bot;
	if (!human)
		return 0;
	if (rs.since)
		last_at = rs.since;
	if (rs.remind_h)
		due = last_at + (int64_t)rs.remind_h * 3600 * (rs.reminded + 1);
	if (rs.timeout_h) {
		t = last_at + (int64_t)rs.timeout_h * 3600;
		if (!due || t < due)
			due = t;
	}
	return due;
}

static int64_t session_due(const struct session *s)
{
	return compute_due(&s->rec, s->ops, s->st, s->last_at);
}

/* The AI decides for the idle humans (their pending decisions only). */
static int play_for_idle(struct session_mgr *m, struct change *c, struct capture *cap,
			 unsigned idle, struct buf *err)
{
	int guard = 0;

	for (;;) {
		unsigned aw = c->s->ops->awaiting(c->st) & idle;
		int seat;

		if (!aw)
			return run_bots(m, c, cap, err);
		for (seat = 0; !(aw & (1u << seat)); seat++)
			;
		/* the quick AI: this runs on the loop, and only hours apart */
		if (ai_step_as(m, c, cap, seat, 0, err))
			return -1;
		if (++guard > MAX_BOT_MOVES) {
			buf_setf(err, "the AI did not finish for an idle player");
			return -1;
		}
		/* the AI finishes the idle player's turn; then the others */
		if (run_bots(m, c, cap, err))
			return -1;
	}
}

/* ---- searching AI seats (bot/think.h) ---- */

/* Stores the decisions of a job that comes back to s, as one change, if the
 * game is still where the job started; else they are dropped (a new job
 * follows from the due time). */
static void ai_apply(struct session_mgr *m, struct session *s, const struct think_job *job)
{
	enum locale loc;
	const char *names[GAME_MAX_SEATS];
	struct room_settings rs;
	struct buf err = BUF_INIT;
	struct capture cap;
	struct change c;
	int i;

	if (!s || s->rec.id != job->session_id || s->rec.status != SESSION_ACTIVE || !s->st ||
	    s->last_seq != job->seq)
		return;		/* moved, undone, aborted or replaced meanwhile */
	settings_read(&s->rec, &rs);
	if (rs.paused)
		return;		/* resuming makes it due again */
	loc = session_loc(s, m);
	change_init(&c, s);
	seat_names(s, names);
	capture_init(&cap, loc, names);
	c.st = xmalloc(s->ops->state_size);
	memcpy(c.st, s->st, s->ops->state_size);
	for (i = 0; i < job->n; i++)
		if (ai_record(m, &c, &cap, job->v[i].seat, job->v[i].mv, &err)) {
			log_err("AI move of %s/%s refused: %s", s->rec.platform, s->rec.room,
				buf_str(&err));
			goto out;
		}
	if (job->failed) {
		/* cannot happen with a sound game; pausing beats retrying
		 * forever, and tells the players */
		log_err("the AI found no move in %s/%s", s->rec.platform, s->rec.room);
		game_logf(&cap.log, LOG_PUBLIC, "%s", L(loc,
			  "The AI could not decide: the game is paused (`game resume` to retry).",
			  "La IA no pudo decidir: la partida queda en pausa (`game resume` para reintentar)."));
		settings_read(&c.rec, &rs);
		rs.paused = 1;
		settings_write(&c.rec, &rs);
	}
	if (!s->ops->awaiting(c.st))
		c.rec.status = SESSION_FINISHED;
	queue_updates(m, &c, &cap);
	if (change_commit(m, &c, &err))
		log_warn("AI moves for %s/%s not stored: %s", s->rec.platform, s->rec.room,
			 buf_str(&err));
out:
	capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}

/* The searching AI seats of s are awaited: hands their decisions to the
 * program's worker (m->think), or makes them here when there is none. */
static void ai_think(struct session_mgr *m, struct session *s)
{
	struct think_job *job;

	if (s->thinking)
		return;
	job = think_new(s->ops, s->st);
	job->session_id = s->rec.id;
	job->seq = s->last_seq;
	copy_field(job->platform, sizeof(job->platform), s->rec.platform);
	copy_field(job->room, sizeof(job->room), s->rec.room);
	job->seats = bot_seats(&s->rec);
	job->search = 1;
	search_params_of(m, s->ops, &job->params);
	job->seed = s->rec.seed;
	if (m->think && !m->think(m->think_ctx, job)) {
		s->thinking = 1;
		m->thinking++;
		return;
	}
	think_run(job);
	ai_apply(m, s, job);
	think_free(job);
}

void session_mgr_ai_done(struct session_mgr *m, struct think_job *job)
{
	struct buf err = BUF_INIT;
	struct session *s = session_mgr_find(m, job->platform, job->room, &err);

	if (m->thinking > 0)
		m->thinking--;
	if (s && s->rec.id == job->session_id)
		s->thinking = 0;
	ai_apply(m, s, job);
	think_free(job);
	buf_release(&err);
}

static void session_attend(struct session_mgr *m, struct session *s)
{
	enum locale loc = session_loc(s, m);
	const char *names[GAME_MAX_SEATS];
	struct room_settings rs;
	struct buf err = BUF_INIT;
	struct capture cap;
	struct change c;
	unsigned aw = s->ops->awaiting(s->st), idle = 0;
	int64_t now = mgr_now(m);
	int i;

	if ((aw & bot_seats(&s->rec)) && ai_searches(&s->rec, s->ops)) {
		ai_think(m, s);
		return;
	}
	settings_read(&s->rec, &rs);
	for (i = 0; i < s->rec.nseats; i++)
		if ((aw & (1u << i)) && !s->rec.seats[i].is_bot)
			idle |= 1u << i;
	change_init(&c, s);
	seat_names(s, names);
	capture_init(&cap, loc, names);
	if (rs.timeout_h && now >= s->last_at + (int64_t)rs.timeout_h * 3600) {
		for (i = 0; i < s->rec.nseats; i++)
			if (idle & (1u << i))
				game_logf(&cap.log, LOG_PUBLIC, rs.timeout_ai
					  ? L(loc, "%s did not decide within %d hours: the AI decides for them.",
					      "%s no decidió en %d horas: la IA decide por él.")
					  : L(loc, "%s did not decide within %d hours: the game is paused "
					      "(`game resume` to go on).",
					      "%s no decidió en %d horas: la partida queda en pausa "
					      "(`game resume` para seguir)."),
					  s->rec.seats[i].name, rs.timeout_h);
		if (rs.timeout_ai) {
			c.st = xmalloc(s->ops->state_size);
			memcpy(c.st, s->st, s->ops->state_size);
			if (play_for_idle(m, &c, &cap, idle, &err)) {
				log_err("timeout AI in %s/%s: %s", s->rec.platform, s->rec.room,
					buf_str(&err));
				goto out;
			}
			if (!s->ops->awaiting(c.st))
				c.rec.status = SESSION_FINISHED;
			queue_updates(m, &c, &cap);
		} else {
			struct rich r = RICH_INIT;

			rs.paused = 1;
			settings_write(&c.rec, &rs);
			for (i = 0; i < (int)cap.n; i++)
				rich_line(&r, "%s", cap.v[i].text);
			pending_add(m, &c.out, s, NULL, &r);
			rich_release(&r);
		}
	} else {
		struct rich r = RICH_INIT;

		/* a reminder: the awaited humans, pinged, with what is asked;
		 * after a long downtime one reminder stands for the missed ones */
		rs.reminded = (int)((now - s->last_at) / ((int64_t)rs.remind_h * 3600));
		if (rs.reminded < 1)
			rs.reminded = 1;
		settings_write(&c.rec, &rs);
		rich_line(&r, L(loc, "Reminder: no decision for %lld hours.",
				"Recordatorio: %lld horas sin decidir."),
			  (long long)((now - s->last_at) / 3600));
		add_waiting(s, s->st, loc, &r, idle);
		pending_add(m, &c.out, s, NULL, &r);
		rich_release(&r);
	}
	if (change_commit(m, &c, &err))
		log_warn("reminder for %s/%s not stored: %s", s->rec.platform, s->rec.room,
			 buf_str(&err));
out:
	capture_release(&cap);
	change_release(&c);
	buf_release(&err);
}

int session_mgr_load_open(struct session_mgr *m, struct buf *err)
{
	/* nothing to load: due times live in the store, games load lazily */
	return 0;
}

int64_t session_mgr_next_due(struct session_mgr *m)
{
	struct buf err = BUF_INIT;
	int64_t next = 0, now;

	if (store_next_due(m->store, &next, &err)) {
		log_warn("reading due times: %s", buf_str(&err));
		next = 0;
	}
	buf_release(&err);
	/* a game whose AI is thinking stays due until the answer is stored:
	 * look again in a second rather than spin on it (the answer re-arms
	 * the timer itself) */
	if (m->thinking && next && next <= (now = mgr_now(m)))
		next = now + 1;
	return next;
}

struct due_list {
	struct session_mgr *m;
	struct {
		char platform[16];
		char room[256];
		int64_t id;
	} v[64];
	size_t n;
};

static int collect_due(void *ctx, const struct session_rec *rec)
{
	struct due_list *l = ctx;
	struct session *s = cache_get(l->m, rec->platform, rec->room);

	if (s && s->thinking && s->rec.id == rec->id)
		return 0;	/* due until its answer is stored; not a slot */
	copy_field(l->v[l->n].platform, sizeof(l->v[l->n].platform), rec->platform);
	copy_field(l->v[l->n].room, sizeof(l->v[l->n].room), rec->room);
	l->v[l->n].id = rec->id;
	return ++l->n == sizeof(l->v) / sizeof(l->v[0]);	/* the rest: next tick */
}

int64_t session_mgr_tick(struct session_mgr *m)
{
	int64_t now = mgr_now(m);
	struct due_list *l = xcalloc(1, sizeof(*l));
	struct buf err = BUF_INIT;
	size_t i;

	l->m = m;
	/* collected first: attending commits, which rewrites the rows read */
	if (store_sessions_due(m->store, now, collect_due, l, &err))
		log_warn("reading due sessions: %s", buf_str(&err));
	for (i = 0; i < l->n; i++) {
		struct session *s;
		int64_t d;

		buf_reset(&err);
		s = session_mgr_find(m, l->v[i].platform, l->v[i].room, &err);
		if (!s || s->rec.id != l->v[i].id) {
			/* an old game of the room: it needs nothing any more */
			if (s)
				continue;
			log_warn("due session %lld: %s", (long long)l->v[i].id, buf_str(&err));
			continue;
		}
		d = session_due(s);
		if (d && d <= now) {
			session_attend(m, s);
		} else {
			/* the stored due time is stale: store the right one, so
			 * the timer does not spin on it */
			struct change c;

			change_init(&c, s);
			if (change_commit(m, &c, &err))
				log_warn("refreshing the due time: %s", buf_str(&err));
			change_release(&c);
		}
	}
	free(l);
	buf_release(&err);
	return session_mgr_next_due(m);
}

static void handle(struct session_mgr *m, struct adapter *a, const struct command *cmd);

struct seated {
	char room[256];
	int n;
};

/* sessions_of_user's callback: the first room, and whether there are more
 * (two are enough to know). */
static int find_seated(void *ctx, const struct session_rec *rec)
{
	struct seated *f = ctx;

	if (!f->n++)
		copy_field(f->room, sizeof(f->room), rec->room);
	return f->n > 1;
}

/*
 * The per-user throttle (docs/async.md, "Limits").  Returns 1 when the
 * command must not run: the first refusal of a flood tells the user,
 * privately, to slow down and how long to wait; the later ones are answered
 * only where every command must be answered anyway and the answer costs no
 * message in any room (Discord's interactions: ADAPTER_CAP_PRIVATE_ON_DEMAND);
 * elsewhere that one notice covers them, so a flood cannot make the bot
 * flood back.  Either way a refused command changes nothing, and nobody
 * else's commands are slowed.
 */
static int throttled(struct session_mgr *m, struct adapter *a, const struct command *cmd)
{
	enum throttle_verdict v;
	struct buf msg = BUF_INIT;
	int64_t wait_ms;
	enum locale loc;

	if (!m->throttle.burst || !cmd->platform || !cmd->user)
		return 0;
	v = throttle_take(&m->throttle, cmd->platform, cmd->user, m->now_ms(m->now_ms_ctx),
			  &wait_ms);
	if (v == THROTTLE_OK)
		return 0;
	if (v == THROTTLE_WARN)
		log_info("throttle: %s user %s sends commands too fast; refusing them for %lld ms",
			 cmd->platform, cmd->user, (long long)wait_ms);
	else
		log_debug("throttle: %s user %s: command refused", cmd->platform, cmd->user);
	if (v == THROTTLE_WARN || (a->ops->caps & ADAPTER_CAP_PRIVATE_ON_DEMAND)) {
		loc = cmd_loc(m, cmd, NULL);
		buf_setf(&msg, L(loc,
			"Slow down: you are sending commands faster than the bot takes them "
			"(%u at once, then one every %lld seconds). That command was not run, nor "
			"will the next ones be for %lld seconds.",
			"Más despacio: envías órdenes más rápido de lo que el bot las acepta "
			"(%u seguidas, después una cada %lld segundos). Esa orden no se ejecutó, "
			"ni se ejecutarán las siguientes durante %lld segundos."),
			 m->throttle.burst, (long long)((m->throttle.period_ms + 999) / 1000),
			 (long long)((wait_ms + 999) / 1000));
		reply_text(a, cmd, 1, buf_str(&msg));
		buf_release(&msg);
	}
	return 1;
}

/* The display name the bot may show for cmd's user: the adapter's name
 * cleaned again (util/text.h: no controls, bidi or zero-width characters,
 * one line, 32 characters), else their cleaned user id, else "player". */
static void clean_name(const struct command *cmd, char *out, size_t n)
{
	if (cmd->name && text_clean_name(cmd->name, strlen(cmd->name), out, n))
		return;
	if (cmd->user && text_clean_name(cmd->user, strlen(cmd->user), out, n))
		return;
	snprintf(out, n, "player");
}

void session_mgr_handle(struct session_mgr *m, struct adapter *a, const struct command *in)
{
	struct buf err = BUF_INIT;
	struct command clean, routed;
	const struct command *cmd = &clean;
	char name[sizeof(((struct seat_rec *)0)->name)];
	struct seated f;
	struct session *s;

	if (throttled(m, a, in))
		return;
	/* names are untrusted text: defence in depth behind the adapters */
	clean = *in;
	clean_name(in, name, sizeof(name));
	clean.name = name;
	m->current = cmd;
	if (cmd->direct && cmd->user && cmd->platform && cmd->room &&
	    !((s = session_mgr_find(m, cmd->platform, cmd->room, &err)) &&
	      (s->rec.status == SESSION_LOBBY || s->rec.status == SESSION_ACTIVE))) {
		/* a private chat with the bot: the command is for the player's
		 * game, if there is exactly one */
		memset(&f, 0, sizeof(f));
		buf_reset(&err);
		if (store_sessions_of_user(m->store, cmd->platform, cmd->user, find_seated, &f,
					   &err))
			log_warn("listing games: %s", buf_str(&err));
		if (f.n == 1) {
			routed = *cmd;
			routed.room = f.room;
			routed.direct = 0;
			m->current = &routed;
			handle(m, a, &routed);
			m->current = NULL;
			buf_release(&err);
			return;
		}
		if (f.n > 1) {
			enum locale loc = cmd_loc(m, cmd, NULL);

			reply_text(a, cmd, 1, L(loc,
				"You play in several rooms: send the command in the game's room "
				"(with the prefix).",
				"Juegas en varias salas: envía la orden en la sala de la partida "
				"(con el prefijo)."));
			m->current = NULL;
			buf_release(&err);
			return;
		}
	}
	buf_release(&err);
	handle(m, a, cmd);
	m->current = NULL;
}

static void handle(struct session_mgr *m, struct adapter *a, const struct command *cmd)
{
	struct buf err = BUF_INIT;
	char word[32], sub[32];
	const char *args;
	struct session *s;
	enum locale loc;

	if (cmd->text_len > COMMAND_MAX_BYTES) {
		loc = cmd_loc(m, cmd, NULL);
		reply_text(a, cmd, 1, L(loc, "That message is too long for a command.",
					"Ese mensaje es demasiado largo para una orden."));
		return;
	}
	if (!utf8_valid(cmd->text, cmd->text_len) || !utf8_valid(cmd->name, strlen(cmd->name)) ||
	    !utf8_valid(cmd->user, strlen(cmd->user))) {
		loc = cmd_loc(m, cmd, NULL);
		reply_text(a, cmd, 1, L(loc, "That message is not valid text (UTF-8).",
					"Ese mensaje no es texto válido (UTF-8)."));
		return;
	}
	if (strlen(cmd->platform) >= sizeof(s->rec.platform) ||
	    strlen(cmd->room) >= sizeof(s->rec.room) || strlen(cmd->user) >= 128 ||
	    strlen(cmd->name) >= 128 || !cmd->user[0]) {
		loc = cmd_loc(m, cmd, NULL);
		reply_text(a, cmd, 1, L(loc, "Your user or room name is too long.",
					"Tu nombre de usuario o de sala es demasiado largo."));
		return;
	}
	s = session_mgr_find(m, cmd->platform, cmd->room, &err);
	if (!s && err.len) {
		log_err("loading %s/%s: %s", cmd->platform, cmd->room, buf_str(&err));
		loc = cmd_loc(m, cmd, NULL);
		reply_text(a, cmd, 1, L(loc, "This room's game could not be loaded (an internal error).",
					"No se pudo cargar la partida de esta sala (un error interno)."));
		buf_release(&err);
		return;
	}
	loc = cmd_loc(m, cmd, s);
	if (cmd->expect_session > 0 &&
	    (!s || s->rec.id != cmd->expect_session || s->last_seq != cmd->expect_version ||
	     s->rec.status != SESSION_ACTIVE)) {
		/* a click on an older board: answering it could act on a
		 * position the player no longer sees.  Positions count moves,
		 * so a settings change does not age the board. */
		reply_text(a, cmd, 1, !s || s->rec.id != cmd->expect_session ||
			   s->rec.status != SESSION_ACTIVE
			   ? L(loc, "That button belongs to a game that is over. Nothing changed.",
			       "Ese botón es de una partida que ya terminó. No ha cambiado nada.")
			   : L(loc, "That board is out of date: the game has moved on, so nothing "
			       "changed. Use the newest board, or `moves`.",
			       "Ese tablero está desfasado: la partida ha avanzado, así que no ha "
			       "cambiado nada. Usa el tablero más reciente, o `moves`."));
		return;
	}
	args = cmd->text;
	text_word(&args, word, sizeof(word));
	if (text_eq(word, "game")) {
		text_word(&args, sub, sizeof(sub));
		if (text_eq(sub, "new"))
			cmd_game_new(m, a, cmd, s, args);
		else if (text_eq(sub, "join"))
			cmd_game_join(m, a, cmd, s);
		else if (text_eq(sub, "leave"))
			cmd_game_leave(m, a, cmd, s);
		else if (text_eq(sub, "addbot"))
			cmd_game_addbot(m, a, cmd, s, args);
		else if (text_eq(sub, "start"))
			cmd_game_start(m, a, cmd, s);
		else if (text_eq(sub, "status"))
			cmd_game_status(m, a, cmd, s);
		else if (text_eq(sub, "abort"))
			cmd_game_abort(m, a, cmd, s);
		else if (text_eq(sub, "settings"))
			cmd_game_settings(m, a, cmd, s, args);
		else if (text_eq(sub, "pause"))
			cmd_game_pause(m, a, cmd, s, 1);
		else if (text_eq(sub, "resume"))
			cmd_game_pause(m, a, cmd, s, 0);
		else if (text_eq(sub, "kick"))
			cmd_game_kick(m, a, cmd, s, args);
		else
			reply_text(a, cmd, 1, L(loc,
				"Unknown `game` command. Try: new, join, leave, addbot, start, status, abort, "
				"settings, pause, resume, kick.",
				"Orden `game` desconocida. Prueba: new, join, leave, addbot, start, status, "
				"abort, settings, pause, resume, kick."));
	} else if (text_eq(word, "play")) {
		cmd_play(m, a, cmd, s, args);
	} else if (text_eq(word, "moves")) {
		cmd_moves(m, a, cmd, s);
	} else if (text_eq(word, "hand")) {
		cmd_hand(m, a, cmd, s);
	} else if (text_eq(word, "board")) {
		cmd_board(m, a, cmd, s);
	} else if (text_eq(word, "log")) {
		cmd_log(m, a, cmd, s, args);
	} else if (text_eq(word, "help") && *args && game_find(args)) {
		cmd_rules(m, a, cmd, s, args);	/* `help fortuna`: its rules */
	} else if (text_eq(word, "help")) {
		cmd_help(m, a, cmd, s);
	} else if (text_eq(word, "undo")) {
		cmd_undo(m, a, cmd, s);
	} else if (text_eq(word, "mygames")) {
		cmd_mygames(m, a, cmd);
	} else if (text_eq(word, "rules")) {
		cmd_rules(m, a, cmd, s, args);
	} else if (text_eq(word, "card")) {
		cmd_card(m, a, cmd, s, args);
	} else {
		buf_setf(&err, L(loc, "Unknown command \"%s\". Type `help`.",
				 "Orden desconocida \"%s\". Escribe `help`."), word);
		reply_text(a, cmd, 1, buf_str(&err));
	}
	buf_release(&err);
}

size_t session_mgr_complete(struct session_mgr *m, const struct command *cmd,
			    struct adapter_choice *out, size_t max)
{
	struct buf err = BUF_INIT;
	struct session *s;
	int seat;

	if (!utf8_valid(cmd->text, cmd->text_len))
		return 0;
	s = session_mgr_find(m, cmd->platform, cmd->room, &err);
	buf_release(&err);
	if (!s || !s->st || s->rec.status != SESSION_ACTIVE)
		return 0;
	seat = seat_of(s, cmd->user);
	if (seat < 0)
		return 0;
	return move_choices(s, seat, cmd_loc(m, cmd, s), cmd->text, 1, out, max);
}

/* ---- lifecycle ---- */

void session_mgr_init(struct session_mgr *m, struct store *store, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->store = store;
	rng_seed(&m->rng, seed, 0x7461627561ULL);
	m->now = default_now;
	m->now_ms = default_now_ms;
	m->default_loc = LOC_EN;
	m->max_log_lines = MAX_LOG_LINES_DEFAULT;
	m->max_lobbies_user = SESSION_LOBBIES_PER_USER;
	m->max_lobbies_platform = SESSION_LOBBIES_PER_PLATFORM;
	throttle_init(&m->throttle, 0, 0);
}

void session_mgr_set_throttle(struct session_mgr *m, unsigned burst, int64_t period_ms)
{
	throttle_release(&m->throttle);
	throttle_init(&m->throttle, burst, period_ms);
}

void session_mgr_release(struct session_mgr *m)
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

void session_mgr_add_adapter(struct session_mgr *m, struct adapter *a)
{
	if (m->nadapters < SESSION_MAX_ADAPTERS)
		m->adapters[m->nadapters++] = a;
}
