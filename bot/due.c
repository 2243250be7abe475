/*
 * due: idle players.  When a session next needs the bot (compute_due,
 * stored with every commit so that start-up reads one row), what happens
 * then (a reminder, or at the timeout the AI decides or the game pauses:
 * session_attend) and the timer's side (session_mgr_tick, next_due)
 * (docs/async.md).  The players' commands about idleness (`game pause`,
 * `game resume`, `game kick`) are bot/pause.c's.
 *
 * It must not run a timer of its own: the program arms one from
 * session_mgr_next_due() and calls session_mgr_tick() (bot/main.c).
 */
#include <stdio.h>
#include <string.h>

#include "bot/ai.h"
#include "bot/core.h"
#include "bot/due.h"
#include "bot/outbox.h"
#include "bot/roomset.h"
#include "bot/votes.h"
#include "util/logging.h"
#include "util/text.h"

/* ---- reminders and timeouts ---- */

/* When the idle clock started: the time stored with the settings (a
 * restart keeps it), else the last move's.  The due time and what is due
 * then are both read from it. */
static int64_t idle_since(const struct room_settings *rs, int64_t last_at)
{
	return rs->since ? rs->since : last_at;
}

/* When a session in this state next needs attention (unix seconds), or 0. */
int64_t due_compute(const struct session_rec *rec, const struct game_ops *ops,
		    const void *st, int64_t last_at)
{
	struct room_settings rs;
	unsigned aw;
	int64_t due = 0, t;
	int i, human = 0;

	if (rec->status != SESSION_ACTIVE || !st)
		return 0;
	roomset_read(rec, &rs);
	if (rs.paused)
		return 0;
	aw = ops->awaiting(st);
	if ((aw & ai_bot_seats(rec)) && ai_searches(rec, ops))
		return last_at > 0 ? last_at : 1;	/* AI seats to think (run_bots): now */
	for (i = 0; i < rec->nseats; i++)
		human |= (aw & (1u << i)) && !rec->seats[i].is_bot;
	if (!human)
		return 0;
	last_at = idle_since(&rs, last_at);
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
	return due_compute(&s->rec, s->ops, s->st, s->last_at);
}

/* Does what is due in s now.  0, or -1 when it could not be stored (s
 * stays due). */
static int session_attend(struct session_mgr *m, struct session *s)
{
	enum locale loc = session_loc(s, m);
	const char *names[GAME_MAX_SEATS];
	struct room_settings rs;
	struct buf err = BUF_INIT;
	struct capture cap;
	struct change c;
	unsigned aw = s->ops->awaiting(s->st), idle = 0;
	int64_t now = session_now(m), since;
	int i, ret = -1;

	if ((aw & ai_bot_seats(&s->rec)) && ai_searches(&s->rec, s->ops)) {
		ai_think(m, s);
		return 0;
	}
	roomset_read(&s->rec, &rs);
	since = idle_since(&rs, s->last_at);
	for (i = 0; i < s->rec.nseats; i++)
		if ((aw & (1u << i)) && !s->rec.seats[i].is_bot)
			idle |= 1u << i;
	change_init(&c, s);
	session_seat_names(s, names);
	session_capture_init(&cap, loc, names);
	if (rs.timeout_h && now >= since + (int64_t)rs.timeout_h * 3600) {
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
			/* the AI's decision is not theirs: the record counts
			 * them last (bot/record.c) */
			rs.last |= idle;
			roomset_write(&c.rec, &rs);
			change_copy_state(&c);
			if (ai_play_for_idle(m, &c, &cap, idle, &err)) {
				log_err("timeout AI in %s/%s: %s", s->rec.platform, s->rec.room,
					buf_str(&err));
				goto out;
			}
			change_moved(m, &c, &cap);
		} else {
			struct rich r = RICH_INIT;

			rs.paused = 1;
			roomset_write(&c.rec, &rs);
			for (i = 0; i < (int)cap.n; i++)
				rich_line(&r, "%s", cap.v[i].text);
			outbox_pending_add(m, &c.out, s, NULL, &r, NULL);
			rich_release(&r);
		}
	} else if (rs.remind_h) {
		struct rich r = RICH_INIT;

		/* a reminder: the awaited humans, pinged, with what is asked;
		 * after a long downtime one reminder stands for the missed ones */
		rs.reminded = (int)((now - since) / ((int64_t)rs.remind_h * 3600));
		if (rs.reminded < 1)
			rs.reminded = 1;
		roomset_write(&c.rec, &rs);
		rich_line(&r, L(loc, "Reminder: no decision for %lld hours.",
				"Recordatorio: %lld horas sin decidir."),
			  (long long)((now - since) / 3600));
		outbox_add_waiting(s, s->st, loc, &r, idle);
		outbox_pending_add(m, &c.out, s, NULL, &r, NULL);
		rich_release(&r);
	}	/* else nothing was due yet: the commit stores the right due time */
	if (change_commit(m, &c, &err))
		log_warn("reminder for %s/%s not stored: %s", s->rec.platform, s->rec.room,
			 buf_str(&err));
	else
		ret = 0;
out:
	session_capture_release(&cap);
	change_release(&c);
	buf_release(&err);
	return ret;
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
	 * the timer itself).  With several processes the earliest due time
	 * may be another live node's work, which this one cannot claim: the
	 * same one-second look. */
	if ((m->thinking || m->node[0]) && next && next <= (now = session_now(m)))
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
	struct session *s = session_cache_get(l->m, rec->platform, rec->room);

	if (s && s->thinking && s->rec.id == rec->id)
		return 0;	/* due until its answer is stored; not a slot */
	session_copy_field(l->v[l->n].platform, sizeof(l->v[l->n].platform), rec->platform);
	session_copy_field(l->v[l->n].room, sizeof(l->v[l->n].room), rec->room);
	l->v[l->n].id = rec->id;
	return ++l->n == sizeof(l->v) / sizeof(l->v[0]);	/* the rest: next tick */
}

int64_t session_mgr_tick(struct session_mgr *m)
{
	int64_t now = session_now(m);
	struct due_list *l = xcalloc(1, sizeof(*l));
	struct buf err = BUF_INIT;
	int64_t next;
	size_t i;
	int failed = 0;

	l->m = m;
	m->epoch++;	/* an entry point: cached games are checked again */
	/* collected first: attending commits, which rewrites the rows read.
	 * Several processes: only what this node claims (docs/deploy.md,
	 * "Due work"): its own, the unclaimed and dead nodes' work on the
	 * platforms it serves; the version check settles any overlap. */
	if (m->node[0]) {
		const char *plats[SESSION_MAX_ADAPTERS + 1];

		if (session_platforms(m, plats) &&
		    store_sessions_claim_due(m->store, now, m->node, plats, collect_due, l, &err))
			log_warn("claiming due sessions: %s", buf_str(&err));
	} else if (store_sessions_due(m->store, now, collect_due, l, &err)) {
		log_warn("reading due sessions: %s", buf_str(&err));
	}
	for (i = 0; i < l->n; i++) {
		struct session *s;
		int64_t d;

		buf_reset(&err);
		s = session_find(m, l->v[i].platform, l->v[i].room, &err);
		if (!s || s->rec.id != l->v[i].id) {
			/* an old game of the room: it needs nothing any more */
			if (s)
				continue;
			log_warn("due session %lld: %s", (long long)l->v[i].id, buf_str(&err));
			failed = 1;
			continue;
		}
		d = session_due(s);
		if (d && d <= now) {
			failed |= session_attend(m, s) != 0;
		} else {
			/* the stored due time is stale: store the right one, so
			 * the timer does not spin on it */
			struct change c;

			change_init(&c, s);
			if (change_commit(m, &c, &err)) {
				log_warn("refreshing the due time: %s", buf_str(&err));
				failed = 1;
			}
			change_release(&c);
		}
	}
	free(l);
	buf_release(&err);
	next = session_mgr_next_due(m);
	/* what could not be stored (or loaded) is still due: try again in a
	 * second, not at once, or a failing store makes the timer spin */
	if (failed && next && next <= now)
		next = now + 1;
	return next;
}
