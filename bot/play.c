/*
 * play: the game in play, seat by seat: `play`, `moves`, `hand`, `board`
 * and `undo`, and the completion of a typed move (session_mgr_complete:
 * Discord's autocomplete).
 *
 * A move is applied to a copy of the state, with the AI seats' answers,
 * and committed as one change before anyone is told (bot/session.c).
 * What may run when is the table's (bot/commands.c): these handlers start
 * after its state, seat and pause checks; the game itself refuses a seat
 * it does not await.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

/* The answer to a move from a seat the game does not await: the game's
 * reason when it has one ("You have confirmed your choice."), else that
 * it is not the seat's turn; then who is awaited. */
static void not_awaited(const struct session *s, int seat, enum locale loc, struct buf *out)
{
	unsigned aw = s->ops->awaiting(s->st);
	int i, n = 0;

	buf_reset(out);
	if (s->ops->idle_reason)
		s->ops->idle_reason(s->st, seat, loc, out);
	if (!out->len)
		buf_addstr(out, L(loc, "It is not your turn to decide.", "No te toca decidir ahora."));
	for (i = 0; i < s->rec.nseats; i++)
		if (aw & (1u << i))
			buf_printf(out, "%s%s", n++ ? ", " : L(loc, " Waiting for ", " Esperando a "),
				   s->rec.seats[i].name);
	if (n)
		buf_addch(out, '.');
}

/* `play <move>`: a game in play, not paused, a seated caller (the table). */
void cmd_play(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	const char *args = x->args;
	enum locale loc = x->loc;
	struct buf err = BUF_INIT, id = BUF_INIT;
	const char *names[GAME_MAX_SEATS];
	struct capture cap;
	struct change c;
	struct move mv;
	int seat = x->seat;

	if (!*args) {
		cmd_refused(m);
		session_reply_text(a, cmd, 1, L(loc, "Usage: `play <move>`. Type `moves` to see yours.",
						"Uso: `play <jugada>`. Escribe `moves` para ver las tuyas."));
		return;
	}
	if (seat < 0 || !(s->ops->awaiting(s->st) & (1u << seat))) {
		not_awaited(s, seat, loc, &err);
		session_reply_text(a, cmd, 1, buf_str(&err));
		buf_release(&err);
		return;
	}
	if (game_parse(s->ops, s->st, seat, args, loc, &mv, &err)) {
		cmd_refused(m);
		session_reply_text(a, cmd, 1, buf_str(&err));
		buf_release(&err);
		return;
	}
	change_init(&c, s);
	session_seat_names(s, names);
	session_capture_init(&cap, session_loc(s, m), names);
	change_copy_state(&c);
	s->ops->move_id(c.st, seat, mv, &id);
	if (s->ops->apply(c.st, seat, mv, &cap.log, &err)) {
		cmd_refused(m);
		session_reply_text(a, cmd, 1, buf_str(&err));
		goto out;
	}
	change_action(&c, seat, buf_str(&id), cmd->user, session_now(m));
	votes_drop_kicks_of(&c.rec, cmd->user);
	if (ai_run_bots(m, &c, &cap, &err)) {
		log_err("AI in %s/%s failed: %s", s->rec.platform, s->rec.room, buf_str(&err));
		m->outcome = METER_FAILED;
		session_reply_text(a, cmd, 1, L(loc, "An AI player failed (an internal error); nothing changed.",
						"Un jugador IA falló (un error interno); nada ha cambiado."));
		goto out;
	}
	c.actor = cmd->user;
	change_moved(m, &c, &cap);
	change_commit_answer(m, &c, a, cmd, loc);
out:
	session_capture_release(&cap);
	change_release(&c);
	buf_release(&err);
	buf_release(&id);
}

/* `moves`: a game in play, a seated caller (the table). */
void cmd_moves(const struct cmd_ctx *x)
{
	struct session *s = x->s;
	enum locale loc = x->loc;
	struct rich r = RICH_INIT;
	struct buf p = BUF_INIT;
	int seat = x->seat;

	if (s->ops->awaiting(s->st) & (1u << seat)) {
		s->ops->prompt(s->st, seat, loc, &p);
		rich_line(&r, "%s", buf_str(&p));
	}
	outbox_add_moves(s, s->st, seat, loc, &r, 0);
	session_reply_rich(x->a, x->cmd, cmd_private(x), &r);
	rich_release(&r);
	buf_release(&p);
}

/* `hand`: a game with a board, a seated caller (the table).  A picture
 * of the view too, as the room's boards go. */
void cmd_hand(const struct cmd_ctx *x)
{
	struct session *s = x->s;
	enum locale loc = x->loc;
	const char *names[GAME_MAX_SEATS];
	enum pic_board_mode mode = pic_board_mode(&s->rec, x->a);
	struct game_view v;
	struct rich r = RICH_INIT, empty = RICH_INIT;
	struct pic pic;

	session_view_init(s, loc, names, &v);
	s->ops->render_private(s->st, x->seat, &v, &r);
	if (mode != BOARD_TEXT && !pic_build(s, s->st, x->seat, loc, &r, "hand", &pic)) {
		rich_append(&pic.full, &r);
		pic.text_in_body = mode == BOARD_BOTH;
		pic_reply_picture(x->m, x->a, x->cmd, cmd_private(x), mode == BOARD_BOTH ? &r : &empty, &pic);
		pic_release(&pic);
	} else {
		session_reply_rich(x->a, x->cmd, cmd_private(x), &r);
	}
	rich_release(&r);
}

/*
 * `board [text|image]`: a game with a board, anyone (the table).  Plain
 * `board` posts it as the room's boards go; `board image` posts its
 * picture; `board text` answers with its text privately (Discord's Text
 * button under a picture), since the room has just seen the board.
 */
void cmd_board(const struct cmd_ctx *x)
{
	struct session *s = x->s;
	enum locale loc = x->loc;
	const char *names[GAME_MAX_SEATS];
	enum pic_board_mode mode = pic_board_mode(&s->rec, x->a);
	struct game_view v;
	struct rich view = RICH_INIT, tail = RICH_INIT, r = RICH_INIT;
	struct pic pic;
	char word[16];
	const char *args = x->args;
	int priv = cmd_private(x);

	text_word(&args, word, sizeof(word));
	if (*args || (word[0] && !text_eq(word, "text") && !text_eq(word, "image"))) {
		session_reply_text(x->a, x->cmd, 1, L(loc, "Usage: `board`, `board text` (the text board, for "
						      "you) or `board image` (its picture).",
						      "Uso: `board`, `board text` (el tablero en texto, para ti) "
						      "o `board image` (su imagen)."));
		return;
	}
	if (text_eq(word, "text")) {
		mode = BOARD_TEXT;
		priv = 1;
	} else if (text_eq(word, "image")) {
		mode = BOARD_IMAGE;
	}
	session_view_init(s, loc, names, &v);
	s->ops->render_public(s->st, &v, &view);
	outbox_add_result(s, s->st, loc, &tail);
	outbox_add_rematch(s, s->st, loc, &tail);
	outbox_add_waiting(s, s->st, loc, &tail, 0);
	if (s->rec.status == SESSION_FINISHED)
		weblink_add_line(x->m, s, loc, &tail);	/* the final board, again */
	if (mode != BOARD_TEXT && !pic_build(s, s->st, -1, loc, &view, "board", &pic)) {
		rich_append(&pic.full, &view);
		rich_append(&pic.full, &tail);
		pic.text_in_body = mode == BOARD_BOTH;
		if (mode == BOARD_BOTH)
			rich_append(&r, &view);
		rich_append(&r, &tail);
		pic_reply_picture(x->m, x->a, x->cmd, priv, &r, &pic);
		pic_release(&pic);
	} else {
		rich_append(&r, &view);
		rich_append(&r, &tail);
		session_reply_rich(x->a, x->cmd, priv, &r);
	}
	rich_release(&view);
	rich_release(&tail);
	rich_release(&r);
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

/* `undo`: a game in play, not paused, a seated caller (the table); the
 * last decision, its own, and only when it showed nobody anything new. */
void cmd_undo(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	struct adapter *a = x->a;
	const struct command *cmd = x->cmd;
	struct session *s = x->s;
	enum locale loc = x->loc;
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
	int seat = x->seat, why = 0;

	if (store_actions(m->store, s->rec.id, 0, collect_action, &l, &err)) {
		log_err("undo in %s/%s: %s", s->rec.platform, s->rec.room, buf_str(&err));
		session_reply_text(a, cmd, 1, L(loc, "The log could not be read (an internal error).",
						"No se pudo leer el registro (un error interno)."));
		goto out;
	}
	last = l.n ? &l.v[l.n - 1] : NULL;
	if (!last || last->seat != seat || strcmp(last->user, cmd->user)) {
		session_reply_text(a, cmd, 1, L(loc,
			"Only the last decision can be taken back, by the player who made it, "
			"before anyone else acts.",
			"Solo se puede deshacer la última decisión, quien la tomó y antes de que "
			"nadie más actúe."));
		goto out;
	}
	if (!session_log_replays(s)) {
		session_reply_text(a, cmd, 1, L(loc,
			"This game began under an earlier version of the bot's rules: its moves "
			"cannot be replayed, so none can be taken back.",
			"Esta partida empezó con una versión anterior de las reglas del bot: sus "
			"jugadas no se pueden reproducir, así que ninguna se puede deshacer."));
		goto out;
	}
	prev = game_state_new(s->ops);
	again = game_state_new(s->ops);
	session_seat_names(s, names);
	session_capture_init(&cap, LOC_EN, names);
	if (replay_first(s, &l, l.n - 1, prev, &err)) {
		why = 1;
	} else {
		struct move mv;

		/* apply the last move again to a copy, watching what it did */
		memcpy(again, prev, s->ops->state_size);
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
	session_capture_release(&cap);
	if (why) {
		session_reply_text(a, cmd, 1, why == 2
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
	session_capture_init(&cap, session_loc(s, m), names);
	game_logf(&cap.log, LOG_PUBLIC, L(session_loc(s, m), "%s takes back their last decision.",
					  "%s deshace su última decisión."), s->rec.seats[seat].name);
	c.actor = cmd->user;
	{
		/* the messages show the position before the undone move */
		int64_t keep = s->last_seq;

		s->last_seq = last->seq - 1;
		outbox_queue_updates(m, &c, &cap);
		s->last_seq = keep;
	}
	change_commit_answer(m, &c, a, cmd, loc);
	session_capture_release(&cap);
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

/* ---- completion ---- */

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
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	size_t n = 0;
	int pass, i;

	session_view_init(s, loc, names, &v);	/* labels name the players */
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
			game_move_label(s->ops, s->st, seat, ml->v[i], &v, &label);
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

size_t session_mgr_complete(struct session_mgr *m, const struct command *cmd,
			    struct adapter_choice *out, size_t max)
{
	struct buf err = BUF_INIT;
	struct session *s;
	int seat;

	m->epoch++;	/* an entry point: cached games are checked again */
	if (!utf8_valid(cmd->text, cmd->text_len))
		return 0;
	s = session_find(m, cmd->platform, cmd->room, &err);
	buf_release(&err);
	if (!s || !s->st || s->rec.status != SESSION_ACTIVE)
		return 0;
	seat = session_seat_of(s, cmd->user);
	if (seat < 0)
		return 0;
	return move_choices(s, seat, cmd_loc(m, cmd, s), cmd->text, 1, out, max);
}
