/*
 * outbox: what a committed change tells the room and each player, and the
 * delivery of those messages.
 *
 * outbox_queue_updates() writes a change's messages (the public board update,
 * each player's private update) into the change, so that change_commit()
 * stores them in the same transaction as the moves; outbox_deliver() hands them
 * to their adapter after the commit; the adapter confirms (on_sent:
 * session_mgr_sent) and a restart re-sends what was never confirmed, with
 * its original idempotency key (session_mgr_flush_outbox).
 *
 * It must not send anything that is not committed: every message here
 * either belongs to a change or comes back from the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/core.h"
#include "bot/outbox.h"
#include "bot/pictures.h"
#include "bot/weblink.h"
#include "paint/paint.h"
#include "util/logging.h"

#define SELECT_MAX 25		/* moves listed with a turn notice (chat menus) */

/* ---- the outbox ---- */

void outbox_pending_add(struct session_mgr *m, struct pending *p, const struct session *s,
			const char *user, const struct rich *body, struct pic *pic)
{
	struct outbox_rec *o;
	json_t *j;

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = xrealloc(p->v, p->cap * sizeof(*p->v));
		p->bodies = xrealloc(p->bodies, p->cap * sizeof(*p->bodies));
		p->pics = xrealloc(p->pics, p->cap * sizeof(*p->pics));
	}
	rich_init(&p->bodies[p->n]);
	rich_append(&p->bodies[p->n], body);
	p->pics[p->n] = NULL;
	if (pic) {
		p->pics[p->n] = xmalloc(sizeof(*pic));
		*p->pics[p->n] = *pic;
		pic_init(pic);
	}
	o = &p->v[p->n++];
	memset(o, 0, sizeof(*o));
	session_copy_field(o->platform, sizeof(o->platform), s->rec.platform);
	session_copy_field(o->room, sizeof(o->room), s->rec.room);
	session_copy_field(o->user, sizeof(o->user), user ? user : "");
	/* unique by construction: a session's versions only grow, and a
	 * failed commit stores nothing, so its retry may reuse the key */
	snprintf(o->key, sizeof(o->key), "tabula.%lld.%lld.%lld.%zu", (long long)s->rec.id,
		 (long long)s->rec.version + 1, (long long)s->last_seq, p->n);
	/* a message with a picture keeps the picture's display list, not the
	 * picture: painted when it goes, again when it is sent again */
	j = p->pics[p->n - 1] ? pic_payload(body, p->pics[p->n - 1]) : rich_to_json(body);
	o->payload = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	o->created = session_now(m);
}

/* Reads back the session and the position (moves stored) that
 * outbox_pending_add() wrote into a key. */
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

/* The session version whose commit wrote the message of key (-1: not
 * one of outbox_pending_add's keys): the last commit's messages are the
 * final board of a finished game. */
static int64_t key_commit(const char *key)
{
	long long sid, ver, pos;
	size_t n;

	if (sscanf(key, "tabula.%lld.%lld.%lld.%zu", &sid, &ver, &pos, &n) != 4)
		return -1;
	return ver;
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
	s = session_find(m, o->platform, o->room, &err);
	buf_release(&err);
	if (!s)
		return;
	msg->locale = s->rec.locale[0] ? s->rec.locale : locale_code(m->default_loc);
	if (s->rec.id == sid && s->rec.status == SESSION_FINISHED && !o->user[0] &&
	    key_commit(o->key) == s->rec.version)
		msg->over_session = sid;	/* the last board: Rematch */
	if (s->rec.id != sid || !s->st || s->rec.status != SESSION_ACTIVE)
		return;
	msg->session = sid;
	msg->version = ver;
}

/* Hands o to its adapter; known: its message (known_pic its picture) when
 * the caller still has it (a fresh commit), else NULL (re-sent from the
 * store: parsed back).  A picture is painted after the commit: off the
 * loop, following the message's text (bot/pictures.c), where the program
 * and the adapter can; else here, before the message goes.  One that
 * cannot be painted goes as its text board. */
void outbox_deliver(struct session_mgr *m, const struct outbox_rec *o, const struct rich *known,
		    struct pic *known_pic)
{
	struct adapter *a = session_adapter(m, o->platform);
	struct buf err = BUF_INIT;
	struct rich body = RICH_INIT;
	struct pic pic;
	struct paint_image im;
	struct adapter_image img;
	struct outmsg msg;
	int painted = 0;

	if (!a)
		return;		/* that platform is not running now: stays pending */
	pic_init(&pic);
	memset(&im, 0, sizeof(im));
	if (!known) {
		json_t *j = json_loads(o->payload, 0, NULL);

		if (json_is_object(j) && !pic_from_payload(j, &body, &pic, &err)) {
			known_pic = &pic;
		} else if (!j || json_is_object(j) || rich_from_json(&body, j)) {
			log_warn("outbox %lld: unreadable payload; dropped%s%s", (long long)o->id,
				 err.len ? ": " : "", buf_str(&err));
			json_decref(j);
			session_mgr_sent(m, o->id);
			buf_release(&err);
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
	if (known_pic && pic_follows(m, a)) {
		/* the text now; the picture when it is painted, which confirms
		 * the message (a crash before: the next start sends both again,
		 * the text under its idempotency key) */
		memset(&img, 0, sizeof(img));
		img.name = known_pic->name;
		img.alt = known_pic->alt;
		img.text_in_body = known_pic->text_in_body;
		img.follow = pic_next_id(m);
		msg.image = &img;
		outmsg_controls(m, o, &msg);
		if (adapter_send(a, &msg, &err))
			log_warn("outbox %lld: send failed: %s", (long long)o->id, buf_str(&err));
		else
			pic_enqueue(m, a, img.follow, o->room, msg.user, o->id, known_pic);
		goto out;
	}
	if (known_pic) {
		if (!pic_paint(known_pic, &im, &img, &err)) {
			msg.image = &img;
			painted = 1;
		} else {
			log_warn("outbox %lld: picture %s failed: %s; sent as text",
				 (long long)o->id, known_pic->name, buf_str(&err));
			msg.body = &known_pic->full;
		}
		buf_reset(&err);
	}
	outmsg_controls(m, o, &msg);
	if (adapter_send(a, &msg, &err))
		log_warn("outbox %lld: send failed: %s", (long long)o->id, buf_str(&err));
	if (painted)
		paint_image_release(&im);
out:
	rich_release(&body);
	pic_release(&pic);
	buf_release(&err);
}

static int flush_one(void *ctx, const struct outbox_rec *o)
{
	outbox_deliver(ctx, o, NULL, NULL);
	return 0;
}

/*
 * Alone on its store, everything undelivered is this process's.  With
 * several processes, only the messages of no live node on the platforms
 * it serves: they become its own (store_outbox_claim), so a message is
 * delivered by one process, and a dead one's are taken over.
 */
int session_mgr_flush_outbox(struct session_mgr *m, struct buf *err)
{
	const char *plats[SESSION_MAX_ADAPTERS + 1];

	m->epoch++;
	if (!m->node[0])
		return store_outbox_pending(m->store, flush_one, m, err);
	if (!session_platforms(m, plats))
		return 0;
	return store_outbox_claim(m->store, m->node, plats, flush_one, m, err);
}

void session_mgr_sent(struct session_mgr *m, int64_t outbox_id)
{
	struct buf err = BUF_INIT;

	if (outbox_id > 0 && store_outbox_done(m->store, outbox_id, &err))
		log_warn("outbox %lld: could not mark delivered: %s", (long long)outbox_id,
			 buf_str(&err));
	buf_release(&err);
}

/* ---- turn messages ---- */

/* Appends "Waiting for @x: prompt" lines; mention=0 writes plain names. */
void outbox_add_waiting(const struct session *s, const void *st, enum locale loc,
			struct rich *r, unsigned mention)
{
	unsigned aw = s->ops->awaiting(st), done = 0;
	struct buf p = BUF_INIT, q = BUF_INIT;
	int i, k;

	/* seats asked the same thing at once (a secret vote, a reservation)
	 * share one line: "Waiting for @ana, @ben: <prompt>" */
	for (i = 0; i < s->rec.nseats; i++) {
		if (!(aw & (1u << i)) || (done & (1u << i)))
			continue;
		buf_reset(&p);
		s->ops->prompt(st, i, loc, &p);
		rich_text(r, "%s ", L(loc, "Waiting for", "Esperando a"));
		for (k = i; k < s->rec.nseats; k++) {
			const struct seat_rec *seat = &s->rec.seats[k];

			if (!(aw & (1u << k)) || (done & (1u << k)))
				continue;
			if (k != i) {
				buf_reset(&q);
				s->ops->prompt(st, k, loc, &q);
				if (strcmp(buf_str(&p), buf_str(&q)))
					continue;
				rich_text(r, ", ");
			}
			done |= 1u << k;
			if ((mention & (1u << k)) && !seat->is_bot)
				rich_mention(r, seat->user, seat->name);
			else
				rich_emph(r, "%s", seat->name);
		}
		rich_text(r, ": %s", buf_str(&p));
		rich_newline(r);
	}
	buf_release(&p);
	buf_release(&q);
}

void outbox_add_result(const struct session *s, const void *st, enum locale loc,
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
		if (s->ops->score_decimals > 0) {
			int d = s->ops->score_decimals, k, div = 1;
			int v = res.score[i];

			for (k = 0; k < d && div < 100000; k++)
				div *= 10;
			rich_text(r, " (%s%d%s%0*d)", v < 0 ? "-" : "", abs(v) / div,
				  loc == LOC_ES ? "," : ".", d, abs(v) % div);
		} else {
			rich_text(r, " (%d)", res.score[i]);
		}
	}
	rich_newline(r);
}

void outbox_add_rematch(const struct session *s, const void *st, enum locale loc,
			struct rich *r)
{
	struct game_result res;

	if (s->ops->result(st, &res))
		rich_line(r, "%s", L(loc, "Play again: `rematch`", "Otra partida: `rematch`"));
}

void outbox_add_moves(const struct session *s, const void *st, int seat, enum locale loc,
		      struct rich *r, int limit)
{
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf id = BUF_INIT, label = BUF_INIT, block = BUF_INIT;
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	int i;

	session_view_init(s, loc, names, &v);	/* labels name the players */
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
		game_move_label(s->ops, st, seat, ml->v[i], &v, &label);
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

/* ---- the short list (games with move_group) ---- */

#define GROUPS_MAX 32

struct move_group_acc {
	struct buf name, note, items, nums;
	int full, last, run;		/* run: the number a range began at */
};

/* Appends number k to a group's numbers, as ranges ("1–5, 7"). */
static void nums_add(struct move_group_acc *g, int k)
{
	if (g->last && k == g->last + 1) {
		g->last = k;
		return;
	}
	if (g->last && g->last != g->run)
		buf_printf(&g->nums, "–%d", g->last);
	buf_printf(&g->nums, "%s%d", g->nums.len ? ", " : "", k);
	g->run = g->last = k;
}

static void nums_end(struct move_group_acc *g)
{
	if (g->last && g->last != g->run)
		buf_printf(&g->nums, "–%d", g->last);
	g->run = g->last;
}

void outbox_add_moves_short(const struct session *s, const void *st, int seat, enum locale loc,
			    struct rich *r, int brief)
{
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct move_group_acc *g = xcalloc(GROUPS_MAX, sizeof(*g));
	struct buf name = BUF_INIT, note = BUF_INIT, item = BUF_INIT, more = BUF_INIT;
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	int i, k, ng = 0, nnamed = 0;

	session_view_init(s, loc, names, &v);
	s->ops->moves(st, seat, ml);
	if (!ml->n) {
		rich_line(r, "%s", L(loc, "You have nothing to decide now.",
				     "No tienes nada que decidir ahora."));
		goto out;
	}
	for (i = 0; i < ml->n; i++) {
		int full;

		buf_reset(&name);
		buf_reset(&note);
		buf_reset(&item);
		full = s->ops->move_group(st, seat, ml->v[i], loc, &name, &note, &item);
		if (full < 0 || !name.len) {
			/* alone, by its label (by its id among the others
			 * after a step): a group of its own with no name */
			buf_reset(&name);
			buf_reset(&item);
			game_move_label(s->ops, st, seat, ml->v[i], &v, &item);
			full = -1;
		}
		for (k = 0; k < ng && name.len; k++)
			if (!strcmp(buf_str(&g[k].name), buf_str(&name)) &&
			    !strcmp(buf_str(&g[k].note), buf_str(&note)))
				break;
		if (k == ng || !name.len) {
			if (ng == GROUPS_MAX)
				k = ng - 1;	/* never with today's games */
			else
				k = ng++;
			buf_reset(&g[k].name);
			buf_addstr(&g[k].name, buf_str(&name));
			buf_addstr(&g[k].note, buf_str(&note));
			g[k].full = full;
		}
		buf_printf(&g[k].items, "%s%d %s", g[k].items.len ? " · " : "", i + 1, buf_str(&item));
		if (full < 0) {
			buf_reset(&item);
			s->ops->move_id(st, seat, ml->v[i], &item);
			buf_printf(&g[k].nums, "%d %s", i + 1, buf_str(&item));
		} else {
			nums_add(&g[k], i + 1);
		}
	}
	if (!brief)
		rich_line(r, "%s", L(loc, "Your moves (`play` a number or a name; `moves` explains each):",
				     "Tus jugadas (`play` y un número o un nombre; `moves` las explica):"));
	for (k = 0; k < ng; k++)
		nnamed += g[k].name.len > 0;
	for (k = 0; k < ng; k++) {
		nums_end(&g[k]);
		if (brief && g[k].full < 0 && nnamed) {
			/* alone: by its number and id */
			buf_printf(&more, "%s%s", more.len ? " · " : "", buf_str(&g[k].nums));
			continue;
		}
		if (brief && !g[k].full) {
			buf_printf(&more, "%s%s %s", more.len ? " · " : "", buf_str(&g[k].name),
				   buf_str(&g[k].nums));
			continue;
		}
		if (!g[k].name.len)
			rich_line(r, "%s", buf_str(&g[k].items));
		else if (g[k].note.len)
			rich_line(r, "%s: %s; %s", buf_str(&g[k].name), buf_str(&g[k].items),
				  buf_str(&g[k].note));
		else
			rich_line(r, "%s: %s", buf_str(&g[k].name), buf_str(&g[k].items));
	}
	if (more.len)
		rich_line(r, L(loc, "More: %s", "Más: %s"), buf_str(&more));
out:
	for (k = 0; k < GROUPS_MAX; k++) {
		buf_release(&g[k].name);
		buf_release(&g[k].note);
		buf_release(&g[k].items);
		buf_release(&g[k].nums);
	}
	buf_release(&name);
	buf_release(&note);
	buf_release(&item);
	buf_release(&more);
	free(g);
	free(ml);
}

/* The lines of seat's private view in st that its view in before does not
 * have, in their order: what a step within a turn changed. */
static void private_changes(const struct session *s, const void *before, const void *st,
			    int seat, const struct game_view *v, struct rich *out)
{
	struct rich a = RICH_INIT, b = RICH_INIT;
	struct buf ta = BUF_INIT, tb = BUF_INIT;
	const char *p, *e;

	s->ops->render_private(before, seat, v, &a);
	s->ops->render_private(st, seat, v, &b);
	rich_to_plain(&a, &ta);
	rich_to_plain(&b, &tb);
	for (p = buf_str(&tb); *p; p = *e ? e + 1 : e) {
		const char *q = buf_str(&ta), *hit = NULL;
		size_t n;

		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (!n)
			continue;
		/* the same whole line in the view before */
		while (*q) {
			const char *qe = strchr(q, '\n');
			size_t qn = qe ? (size_t)(qe - q) : strlen(q);

			if (qn == n && !memcmp(q, p, n)) {
				hit = q;
				break;
			}
			q = qe ? qe + 1 : q + qn;
		}
		if (!hit)
			rich_line(out, "%.*s", (int)n, p);
	}
	rich_release(&a);
	rich_release(&b);
	buf_release(&ta);
	buf_release(&tb);
}

/* The public lines of cap: a human's all, AI seats' the last
 * max_log_lines after a note. */
static void add_lines(struct session_mgr *m, const struct session *s, const struct capture *cap,
		      enum locale loc, struct rich *r)
{
	size_t i, nai = 0, skip = 0, skipped = 0;

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
}

/*
 * A message of three parts, head (what happened), the text board (view)
 * and tail (the result, who is asked, moves), as body and, when a picture
 * goes with it (has_pic), the picture's fallback: the whole of it in
 * pic->full, and in body the text board only with BOARD_BOTH.
 */
static void compose(const struct rich *head, const struct rich *view, const struct rich *tail,
		    enum pic_board_mode mode, int has_pic, struct rich *body, struct pic *pic)
{
	rich_append(body, head);
	if (!has_pic || mode == BOARD_BOTH)
		rich_append(body, view);
	rich_append(body, tail);
	if (!has_pic)
		return;
	rich_append(&pic->full, head);
	rich_append(&pic->full, view);
	rich_append(&pic->full, tail);
	pic->text_in_body = mode == BOARD_BOTH;
}

/* newly: the seats that have just become awaited, the only ones pinged;
 * mode: the room's form of boards; link: the game's web link goes under
 * it (the start, the final board); *has_pic: pic was built (release it) */
static void public_update(struct session_mgr *m, const struct session *s, const void *st,
			  const struct capture *cap, unsigned newly, enum pic_board_mode mode,
			  int link, struct rich *r, struct pic *pic, int *has_pic)
{
	enum locale loc = session_loc(s, m);
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct rich head = RICH_INIT, view = RICH_INIT, tail = RICH_INIT;

	session_view_init(s, loc, names, &v);
	add_lines(m, s, cap, loc, &head);
	s->ops->render_public(st, &v, &view);
	outbox_add_result(s, st, loc, &tail);
	outbox_add_rematch(s, st, loc, &tail);
	outbox_add_waiting(s, st, loc, &tail, newly);
	if (link)
		weblink_add_line(m, s, loc, &tail);
	*has_pic = mode != BOARD_TEXT && !pic_build(s, st, -1, loc, &view, "board", pic);
	compose(&head, &view, &tail, mode, *has_pic, r, pic);
	rich_release(&head);
	rich_release(&view);
	rich_release(&tail);
}

/* The private message of one seat after a change: its private log lines,
 * and its view and moves when it is awaited (the view also as a picture,
 * *has_pic, as the room's boards go). */
static int private_update(struct session_mgr *m, const struct session *s, const void *before,
			  int brief, const void *st, int seat, const struct capture *cap, int awaited,
			  enum pic_board_mode mode, struct rich *r, struct pic *pic, int *has_pic)
{
	enum locale loc = session_loc(s, m);
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct rich head = RICH_INIT, view = RICH_INIT, tail = RICH_INIT;
	size_t i;
	int any = 0;

	*has_pic = 0;
	for (i = 0; cap && i < cap->n; i++) {
		if (cap->v[i].seat != seat)
			continue;
		rich_line(&head, "%s", cap->v[i].text);
		any = 1;
	}
	if (!awaited) {
		rich_append(r, &head);
		rich_release(&head);
		return any;
	}
	session_view_init(s, loc, names, &v);
	if (s->ops->move_group && before) {
		/* what changed in the seat's view (the room's board shows the
		 * rest), and its moves grouped: within a turn only those that
		 * matter next */
		private_changes(s, before, st, seat, &v, &view);
		outbox_add_moves_short(s, st, seat, loc, &view, brief);
		rich_append(r, &head);
		rich_append(r, &view);
		rich_release(&head);
		rich_release(&view);
		return 1;
	}
	s->ops->render_private(st, seat, &v, &view);
	if (s->ops->move_group)
		outbox_add_moves_short(s, st, seat, loc, &tail, 0);
	else
		outbox_add_moves(s, st, seat, loc, &tail, SELECT_MAX);
	*has_pic = mode != BOARD_TEXT && !pic_build(s, st, seat, loc, &view, "hand", pic);
	compose(&head, &view, &tail, mode, *has_pic, r, pic);
	rich_release(&head);
	rich_release(&view);
	rich_release(&tail);
	return 1;
}

static int private_lines(const struct capture *cap, int seat)
{
	size_t i;

	for (i = 0; cap && i < cap->n; i++)
		if (cap->v[i].seat == seat)
			return 1;
	return 0;
}

/* Whether the public board of st and of st2 read the same in loc. */
static int same_board(const struct session *s, const void *st, const void *st2,
		      enum locale loc)
{
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct rich a = RICH_INIT, b = RICH_INIT;
	struct buf ta = BUF_INIT, tb = BUF_INIT;
	int same;

	session_view_init(s, loc, names, &v);
	s->ops->render_public(st, &v, &a);
	s->ops->render_public(st2, &v, &b);
	rich_to_plain(&a, &ta);
	rich_to_plain(&b, &tb);
	same = !strcmp(buf_str(&ta), buf_str(&tb));
	rich_release(&a);
	rich_release(&b);
	buf_release(&ta);
	buf_release(&tb);
	return same;
}

/* Whether seat's private view and moves read the same in st and st2. */
static int same_private(const struct session *s, const void *st, const void *st2, int seat,
			enum locale loc)
{
	struct rich a = RICH_INIT, b = RICH_INIT;
	struct buf ta = BUF_INIT, tb = BUF_INIT;
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	int same;

	session_view_init(s, loc, names, &v);
	s->ops->render_private(st, seat, &v, &a);
	outbox_add_moves(s, st, seat, loc, &a, SELECT_MAX);
	s->ops->render_private(st2, seat, &v, &b);
	outbox_add_moves(s, st2, seat, loc, &b, SELECT_MAX);
	rich_to_plain(&a, &ta);
	rich_to_plain(&b, &tb);
	same = !strcmp(buf_str(&ta), buf_str(&tb));
	rich_release(&a);
	rich_release(&b);
	buf_release(&ta);
	buf_release(&tb);
	return same;
}

/*
 * Adds the update messages of a game change to c->out.
 *
 * A step that tells the table nothing (no public line, the same board)
 * posts nothing, or only who is awaited now when that changed: a secret
 * choice made in several steps (Sylla's vote: a thumb, an amount, then
 * confirm) must not show the room how many steps it took.  Likewise a seat
 * still awaited whose view and moves did not change gets no new private
 * message (a simultaneous decision otherwise re-sends everyone's moves at
 * each seat's step); the actor always gets theirs.
 */
void outbox_queue_updates(struct session_mgr *m, struct change *c, const struct capture *cap)
{
	struct adapter *a = session_adapter(m, c->rec.platform);
	int on_demand;
	unsigned before, aw = c->s->ops->awaiting(c->st);
	struct session tmp = *c->s;
	struct rich r = RICH_INIT;
	struct pic pic;
	enum pic_board_mode mode = pic_board_mode(&c->rec, a);
	enum locale loc;
	size_t i, npub = 0;
	int seat, was_live, within, quiet = 0, has_pic = 0, link;

	pic_init(&pic);
	/* the position these messages show: after this change's moves */
	tmp.last_seq = c->s->last_seq + (int64_t)c->nactions;
	tmp.rec = c->rec;	/* shallow: names and locale of the new record */
	loc = session_loc(&tmp, m);
	/* a player still deciding (several steps of one turn) is not pinged
	 * again; whoever has just become awaited is */
	was_live = c->s->st && c->s->rec.status == SESSION_ACTIVE;
	before = was_live ? c->s->ops->awaiting(c->s->st) : 0;
	for (i = 0; cap && i < cap->n; i++)
		npub += cap->v[i].seat == LOG_PUBLIC;
	if (was_live && aw && !npub && same_board(&tmp, c->s->st, c->st, loc))
		quiet = aw == before ? 2 : 1;
	else if (was_live && aw && aw == before && c->s->ops->turn &&
		 c->s->ops->turn(c->s->st) == c->s->ops->turn(c->st))
		quiet = 3;
	if (quiet == 1) {
		outbox_add_waiting(&tmp, c->st, loc, &r, aw & ~before);
	} else if (quiet == 3) {
		/* a step inside the same turn (a Craftsman's second action, the
		 * next action of a Builders turn): what happened and who goes
		 * on; the whole board comes when the turn passes (or `board`),
		 * and so does its picture */
		add_lines(m, &tmp, cap, loc, &r);
		outbox_add_waiting(&tmp, c->st, loc, &r, 0);
	} else if (!quiet) {
		/* the game's web link, when it starts and on its final board */
		link = (c->s->rec.status == SESSION_LOBBY && c->rec.status == SESSION_ACTIVE) ||
		       (c->s->rec.status != SESSION_FINISHED && c->rec.status == SESSION_FINISHED);
		public_update(m, &tmp, c->st, cap, aw & ~before, mode, link, &r, &pic, &has_pic);
	}
	if (quiet != 2)
		outbox_pending_add(m, &c->out, &tmp, NULL, &r, has_pic ? &pic : NULL);
	rich_release(&r);
	pic_release(&pic);
	/* a seat deciding on within the same turn sees only the moves that
	 * matter next (games with move_group) */
	within = was_live && c->s->ops->turn && c->s->ops->turn(c->s->st) == c->s->ops->turn(c->st);
	on_demand = a && (a->ops->caps & ADAPTER_CAP_PRIVATE_ON_DEMAND);
	for (seat = 0; seat < c->rec.nseats; seat++) {
		const struct seat_rec *sr = &c->rec.seats[seat];

		if (sr->is_bot)
			continue;
		if (on_demand && c->actor && !strcmp(sr->user, c->actor) && !c->has_actor_view) {
			c->has_actor_view = private_update(m, &tmp, was_live ? c->s->st : NULL,
							   within && (before & aw & (1u << seat)),
							   c->st, seat, cap,
							   !!(aw & (1u << seat)), mode,
							   &c->actor_view, &c->actor_pic,
							   &c->has_actor_pic);
			continue;
		}
		if (on_demand && !sr->notify_dm)
			continue;	/* they look when they want (buttons, `hand`) */
		if (was_live && (aw & before & (1u << seat)) &&
		    !(c->actor && !strcmp(sr->user, c->actor)) && !private_lines(cap, seat) &&
		    same_private(&tmp, c->s->st, c->st, seat, loc))
			continue;	/* still deciding, nothing new to show */
		rich_init(&r);
		pic_init(&pic);
		if (private_update(m, &tmp, was_live ? c->s->st : NULL,
				   within && (before & aw & (1u << seat)), c->st, seat, cap, !!(aw & (1u << seat)), mode, &r,
				   &pic, &has_pic))
			outbox_pending_add(m, &c->out, &tmp, sr->user, &r, has_pic ? &pic : NULL);
		rich_release(&r);
		pic_release(&pic);
	}
}

/* After a successful commit: the acting player's private update, if the
 * platform shows it as an answer rather than a message. */
void outbox_reply_actor_view(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			     struct change *c)
{
	if (c->has_actor_view && c->has_actor_pic)
		pic_reply_picture(m, a, cmd, 1, &c->actor_view, &c->actor_pic);
	else if (c->has_actor_view)
		session_reply_rich(a, cmd, 1, &c->actor_view);
}
