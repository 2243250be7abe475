/*
 * mxbatch: the sync loop and its batches.  Owns the /sync request and its
 * position (m->since, loaded from and saved to the store), the batch being
 * handled (m->batch): the gaps of limited timelines read back with
 * /messages first (backfill, one room at a time, newest page first), a
 * skipped response's rooms asked with /joined_rooms, then its items in
 * order; pausing while the send queue is full and while its room keys are
 * checked; and telling players about encrypted messages that never came.
 * What one item does is mxdispatch's (mxm_handle_item).
 */

#include "adapters/matrix/mxint.h"

static void e2e_tell(struct matrix *m);

static void unit_free(struct unit *u)
{
	mx_sync_release(&u->s);
	free(u->before_join);
	free(u);
}

void mxm_units_free(struct unit *u)
{
	struct unit *next;

	for (; u; u = next) {
		next = u->next;
		unit_free(u);
	}
}

/* Handles the run list until it is empty (1), or the send queue is full
 * or the adapter stops (0). */
static int run_units(struct matrix *m)
{
	struct batch *b = &m->batch;
	struct unit *u;

	while ((u = b->run)) {
		while (u->done < u->s.nitems) {
			size_t i = u->reverse ? u->s.nitems - 1 - u->done : u->done;

			if (mxm_sendq_len(m) >= m->sendq_max) {
				b->paused = 1;
				if (!m->sendq_full_told)
					log_warn("matrix: %zu messages are waiting for the homeserver; "
						 "new commands wait until half of them are sent",
						 mxm_sendq_len(m));
				m->sendq_full_told = 1;
				return 0;
			}
			u->done++;
			mxm_handle_item(m, &u->s.items[i], b->initial,
					u->before_join && u->before_join[i], u->gap);
			if (m->stopping)
				return 0;
		}
		b->run = u->next;
		unit_free(u);
	}
	return 1;
}

struct gapctx {
	struct live live;	/* first */
	char room[MX_ID_SIZE];
};

static void gapctx_release(struct live *l)
{
	live_del(l);
	free(l);
}

static void on_gap_page(struct matrix *m, long status, const char *errcode, const char *body,
			size_t len, void *ctx)
{
	struct gapctx *c = ctx;
	struct batch *b = &m->batch;
	struct buf err = BUF_INIT;
	struct unit *u = xcalloc(1, sizeof(*u));
	size_t i;

	live_del(&c->live);
	b->fetching = 0;
	if (status != 200 || mx_messages_parse(body, len, c->room, &u->s, &err)) {
		log_warn("matrix: could not read back a room's history (HTTP %ld%s%s); "
			 "the messages in that gap are skipped", status, err.len ? ": " : "",
			 buf_str(&err));
		b->gap_ended = 1;
		unit_free(u);
	} else {
		/* the senders' names (lazy-loaded members, in "state"), for
		 * those the bot does not know */
		for (i = 0; i < u->s.nitems; i++) {
			const struct mx_item *it = &u->s.items[i];
			struct mroom *r;

			if (it->kind == MX_MEMBER && !it->from_timeline &&
			    !mx_members_get(&(r = mxm_room_get(m, it->room, 1))->mem, it->state_key))
				mx_members_set(&r->mem, it->state_key, MXM_NONE, it->displayname);
		}
		/* newest first: stop at the bot's own join, what is older was
		 * said before it came */
		for (i = 0; i < u->s.nitems; i++) {
			if (mxm_is_my_join(m, &u->s.items[i], 0)) {
				u->s.nitems = i + 1;
				b->gap_ended = 1;
				break;
			}
		}
		if (!u->s.next_batch[0] || !u->s.nitems)
			b->gap_ended = 1;
		u->reverse = 1;
		u->gap = 1;
		b->page_events += u->s.nitems;
		u->next = b->pages;	/* the head is the oldest page */
		b->pages = u;
	}
	buf_release(&err);
	free(c);
	mxm_batch_step(m);
}

/* Reads the next page of the gap being read back.  1: a request is out,
 * its answer goes on; 0: nothing to fetch now (pages queued to run). */
static int gap_fetch_next(struct matrix *m)
{
	struct batch *b = &m->batch;
	struct buf path = BUF_INIT;
	struct gapctx *c;
	json_t *f;
	char *ftext;

	if (b->gap_ended || b->page_events >= BACKFILL_MAX) {
		if (!b->gap_ended)
			log_warn("matrix: more than %d events in a room while the bot was away; "
				 "the older ones are skipped", BACKFILL_MAX);
		b->run = b->pages;
		b->pages = NULL;
		b->page_events = 0;
		b->gap_ended = 0;
		b->gap_next++;
		return 0;
	}
	if (b->gap_next >= b->ngap)
		return 0;
	c = xcalloc(1, sizeof(*c));
	copy_id(c->room, MX_ID_SIZE, b->gap_room[b->gap_next]);
	live_add(m, &c->live, gapctx_release);
	f = mx_messages_filter();
	ftext = json_dumps(f, JSON_COMPACT);
	buf_addstr(&path, API "/rooms/");
	enc(&path, c->room);
	buf_addstr(&path, "/messages?dir=b&limit=");
	buf_printf(&path, "%d&from=", BACKFILL_PAGE);
	enc(&path, b->pages ? b->pages->s.next_batch : b->gap_from[b->gap_next]);
	buf_addstr(&path, "&to=");
	enc(&path, m->since);
	buf_addstr(&path, "&filter=");
	enc(&path, ftext);
	b->fetching = 1;
	mxm_call(m, "GET", buf_str(&path), NULL, NULL, 0, on_gap_page, c);
	free(ftext);
	json_decref(f);
	buf_release(&path);
	return 1;
}

static void add_gap(struct batch *b, const char *room, const char *from)
{
	b->gap_room = xrealloc(b->gap_room, (b->ngap + 1) * sizeof(*b->gap_room));
	b->gap_from = xrealloc(b->gap_from, (b->ngap + 1) * sizeof(*b->gap_from));
	copy_id(b->gap_room[b->ngap], MX_ID_SIZE, room);
	copy_id(b->gap_from[b->ngap], MX_ID_SIZE, from);
	b->ngap++;
}

static void batch_end(struct matrix *m)
{
	struct batch *b = &m->batch;

	mxm_after_batch(m);
	e2e_tell(m);
	m->synced = 1;
	free(m->since);
	m->since = xstrdup(b->main.next_batch);
	m->ndone = 0;
	m->nrefs = 0;	/* each was marked handled after its commit */
	mxm_save_since(m, m->since);
	mx_sync_release(&b->main);
	free(b->main_before_join);
	free(b->gap_room);
	free(b->gap_from);
	memset(b, 0, sizeof(*b));
	m->mode = SYNC_NORMAL;
	if (!m->stopping)
		mxm_sync_now(m);
}

/* Takes the batch one step further: reads gaps back, handles items, ends
 * it; returns when it waits for an answer or the send queue. */
void mxm_batch_step(struct matrix *m)
{
	struct batch *b = &m->batch;

	while (b->on && !b->fetching && !b->paused && !b->keywait && !m->stopping) {
		if (b->run) {
			if (!run_units(m))
				return;
		} else if (b->pages || b->gap_next < b->ngap) {
			if (gap_fetch_next(m))
				return;
		} else if (!b->main_queued) {
			struct unit *u = xcalloc(1, sizeof(*u));

			u->s = b->main;		/* moved: main keeps next_batch only */
			u->before_join = b->main_before_join;
			memset(&b->main, 0, sizeof(b->main));
			memcpy(b->main.next_batch, u->s.next_batch, sizeof(b->main.next_batch));
			b->main_before_join = NULL;
			b->main_queued = 1;
			b->run = u;
		} else {
			batch_end(m);
			return;
		}
	}
}

static void on_joined_rooms(struct matrix *m, long status, const char *errcode,
			    const char *body, size_t len, void *ctx)
{
	struct batch *b = &m->batch;
	json_t *j = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
	json_t *rooms = json_object_get(j, "joined_rooms"), *v;
	size_t i;

	b->fetching = 0;
	if (!json_is_array(rooms))
		log_warn("matrix: could not list the bot's rooms (HTTP %ld); what was said in "
			 "them meanwhile is skipped", status);
	json_array_foreach(rooms, i, v)
		if (json_is_string(v) && json_string_length(v) < MX_ID_SIZE)
			add_gap(b, json_string_value(v), b->main.next_batch);
	log_info("matrix: reading back %zu rooms' history over the skipped response", b->ngap);
	json_decref(j);
	mxm_batch_step(m);
}

struct unread {
	struct matrix *m;
	char (*pairs)[2][MX_ID_SIZE];	/* room, sender: told once each */
	size_t n;
};

static void on_never_came(void *ctx, const char *room, const char *sender)
{
	struct unread *u = ctx;
	size_t i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->pairs[i][0], room) && !strcmp(u->pairs[i][1], sender))
			return;
	u->pairs = xrealloc(u->pairs, (u->n + 1) * sizeof(*u->pairs));
	copy_id(u->pairs[u->n][0], MX_ID_SIZE, room);
	copy_id(u->pairs[u->n][1], MX_ID_SIZE, sender);
	u->n++;
}

/*
 * Held events whose keys never came are dropped; their senders, and those
 * whose encrypted events were pushed out of the held list or not held at
 * all, are told (a command of theirs may be among them).  At the start of
 * a batch and at its end, so that nobody waits for the next sync to hear.
 */
static void e2e_tell(struct matrix *m)
{
	struct unread u = { m, NULL, 0 };
	size_t i;

	if (!mxe2e_started(m->e2e))
		return;
	mxe2e_expire(m->e2e, on_never_came, &u);
	for (i = 0; i < u.n; i++) {
		struct rich body = RICH_INIT;
		char name[MX_NAME_SIZE];

		rich_mention(&body, u.pairs[i][1], mxm_display_name(m, u.pairs[i][0], u.pairs[i][1],
								 name, sizeof(name)));
		rich_text(&body, ": I could not read an encrypted message of yours: its key never "
			  "reached me. If it was a command, send it again. / No he podido leer un "
			  "mensaje cifrado tuyo: su clave nunca me llegó. Si era una orden, vuelve a "
			  "enviarla.");
		mxm_send_notice(m, u.pairs[i][0], &body);
		rich_release(&body);
	}
	free(u.pairs);
}

/*
 * The encryption side of a sync response, before any of its events: room
 * keys from to-device messages, device lists, key counts; then the held
 * events whose keys are here now go first in the batch's run (e2e_tell
 * first).
 */
static void e2e_batch(struct matrix *m, struct batch *b)
{
	struct unit **tail = &b->run;
	struct mx_sync ready;

	if (!mxe2e_started(m->e2e))
		return;
	mxe2e_sync(m->e2e, &b->main);
	e2e_tell(m);
	if (b->initial)
		return;
	while (*tail)
		tail = &(*tail)->next;
	while (mxe2e_take_ready(m->e2e, &ready)) {
		struct unit *un = xcalloc(1, sizeof(*un));

		un->s = ready;
		*tail = un;
		tail = &un->next;
	}
}

static void batch_go(struct matrix *m);

static void on_keys_checked(void *ctx)
{
	struct matrix *m = ctx;

	m->batch.keywait = 0;
	if (!m->stopping && m->batch.on)
		batch_go(m);
}

/* A sync response to handle: s moves into the batch. */
static void batch_begin(struct matrix *m, struct mx_sync *s, int initial)
{
	struct batch *b = &m->batch;

	memset(b, 0, sizeof(*b));
	b->on = 1;
	b->initial = initial;
	b->main = *s;
	memset(s, 0, sizeof(*s));
	if (b->main.direct)
		mxm_merge_direct(m, b->main.direct);
	b->main_before_join = mxm_before_join_of(m, &b->main);
	mxm_apply_members(m, &b->main);
	if (mxe2e_started(m->e2e)) {
		mxe2e_sync(m->e2e, &b->main);
		/* the room keys that came are checked (their senders' devices
		 * or membership asked for) before the events they open */
		if (mxe2e_checking(m->e2e, on_keys_checked, m)) {
			b->keywait = 1;
			return;
		}
	}
	batch_go(m);
}

/* The rest of batch_begin, once the room keys that came are checked. */
static void batch_go(struct matrix *m)
{
	struct batch *b = &m->batch;
	int initial = b->initial;
	size_t i;

	e2e_batch(m, b);
	if (!m->rooms_known) {
		/* whether their rooms are encrypted is known now */
		m->rooms_known = 1;
		mxm_unpark_early(m);
	}
	if (!initial && m->since && m->mode != SYNC_SKIP) {
		/* limited timelines: the gap back to m->since is read first,
		 * unless the bot joined in it (nothing before is for it) */
		for (i = 0; i < b->main.nitems; i++) {
			const struct mx_item *it = &b->main.items[i];

			if (it->kind == MX_LIMITED && it->prev_batch[0] && !b->main_before_join[i])
				add_gap(b, it->room, it->prev_batch);
		}
		if (b->ngap)
			log_info("matrix: %zu room timelines were limited; reading their gaps back",
				 b->ngap);
	}
	if (m->mode == SYNC_SKIP && !initial && m->since) {
		/* every joined room's history over the skipped response */
		b->fetching = 1;
		mxm_call(m, "GET", API "/joined_rooms", NULL, NULL, 0, on_joined_rooms, NULL);
		return;
	}
	mxm_batch_step(m);
}

static void on_sync_timer(uv_timer_t *t)
{
	mxm_sync_now(t->data);
}

static void on_sync(struct matrix *m, long status, const char *errcode, const char *body,
		    size_t len, void *ctx)
{
	struct buf err = BUF_INIT;
	struct mx_sync s;
	int initial = m->since == NULL;
	int bad = status == STATUS_TOO_BIG;

	if (status == 200 && mx_sync_parse(body, len, m->me, &s, &err)) {
		mx_sync_release(&s);
		bad = 1;
	}
	if (bad) {
		/* the same request would get the same answer: never again */
		const char *what = status == STATUS_TOO_BIG ? "over the 8 MiB cap" : "unreadable";

		switch (m->mode) {
		case SYNC_NORMAL:
			log_warn("matrix: a sync response was %s%s%s; asking again with smaller "
				 "timelines", what, err.len ? ": " : "", buf_str(&err));
			m->mode = SYNC_TIGHT;
			mxm_sync_now(m);
			break;
		case SYNC_TIGHT:
			log_warn("matrix: the sync response was %s again; stepping over it: "
				 "invitations in it are lost, messages in the bot's rooms are read "
				 "back from their history", what);
			m->mode = SYNC_SKIP;
			mxm_sync_now(m);
			break;
		case SYNC_SKIP:
			log_err("matrix: even a sync without rooms was %s; again in %d ms", what,
				SYNC_RETRY_MS);
			uv_timer_start(&m->sync_timer, on_sync_timer, SYNC_RETRY_MS, 0);
			break;
		}
		buf_release(&err);
		return;
	}
	if (status != 200) {
		metric_set(&met_platform_connected, METER_MATRIX, 0, 0);
		log_warn("matrix: sync failed (HTTP %ld); again in %d ms", status, SYNC_RETRY_MS);
		uv_timer_start(&m->sync_timer, on_sync_timer, SYNC_RETRY_MS, 0);
		buf_release(&err);
		return;
	}
	metric_set(&met_platform_connected, METER_MATRIX, 0, 1);
	metric_set(&met_matrix_last_sync, 0, 0, meters_unix_ms());
	if (initial)
		log_info("matrix: first sync; earlier messages are not commands");
	log_debug("matrix: sync: %zu items", s.nitems);
	buf_release(&err);
	batch_begin(m, &s, initial);
}

void mxm_sync_now(struct matrix *m)
{
	struct buf path = BUF_INIT;
	enum mx_filter kind = m->mode == SYNC_SKIP ? MX_FILTER_SKIP :
			      m->mode == SYNC_TIGHT ? MX_FILTER_TIGHT : MX_FILTER_NORMAL;
	json_t *f = mx_sync_filter(kind);
	char *ftext = json_dumps(f, JSON_COMPACT);

	/* a retry after a response too large goes at once */
	buf_printf(&path, API "/sync?timeout=%d&filter=",
		   m->since && m->mode == SYNC_NORMAL ? MATRIX_SYNC_TIMEOUT_MS : 0);
	enc(&path, ftext);
	if (m->since) {
		buf_addstr(&path, "&since=");
		enc(&path, m->since);
		/* a new process knows no encryption or members yet */
		if (!m->synced && m->mode != SYNC_SKIP)
			buf_addstr(&path, "&full_state=true");
	}
	mxm_call_ex(m, "GET", buf_str(&path), NULL, NULL, MATRIX_SYNC_TIMEOUT_MS + 30000,
		    REQ_UNCOUNTED, on_sync, NULL, NULL, NULL);
	free(ftext);
	json_decref(f);
	buf_release(&path);
}
/* Reads back the sync position: the token, then the events of its batch
 * already handled (a crash in the middle of a batch). */
void mxm_load_since(struct matrix *m)
{
	struct buf v = BUF_INIT, err = BUF_INIT;
	const char *p, *nl;

	if (store_cursor_get(m->store, CURSOR_SINCE, &v, &err) < 0)
		log_warn("matrix: reading the sync position: %s", buf_str(&err));
	/* "token", then one line per event already handled */
	for (p = buf_str(&v); v.len && *p; p = nl + 1) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (!m->since) {
			m->since = xmalloc(n + 1);
			memcpy(m->since, p, n);
			m->since[n] = '\0';
		} else if (*p == '+') {
			/* an encrypted command's ref: e2e_begin marks it again */
			if (m->nrefs < DONE_MAX && n - 1 < MXE_REF_SIZE) {
				m->refs = xrealloc(m->refs, (m->nrefs + 1) * sizeof(*m->refs));
				snprintf(m->refs[m->nrefs++], MXE_REF_SIZE, "%.*s", (int)(n - 1),
					 p + 1);
			}
		} else if (m->ndone < DONE_MAX) {
			snprintf(m->done[m->ndone++], MX_ID_SIZE, "%.*s", (int)n, p);
		}
		if (!nl)
			break;
	}
	buf_release(&v);
	buf_release(&err);
}
