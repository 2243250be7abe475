/*
 * webview: the game pages' view of a position (bot/web.h): the replay
 * cache of the sessions viewed (the moves parsed once, a state every
 * WEB_SNAP_EVERY positions, the last state stepped to, the public log with
 * the position each line led to) and what state.json says of a position.
 * Only the public view: render_public, the public scene, the public lines.
 */
#include "bot/web_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/core.h"
#include "bot/roomset.h"
#include "util/logging.h"
#include "util/rich.h"

/* ---- the replay cache ---- */

static uint64_t hash_act(const struct action_rec *a)
{
	uint64_t h = 1469598103934665603ULL;
	const char *p;

	h = (h ^ (uint64_t)a->seq) * 1099511628211ULL;
	h = (h ^ (uint64_t)(unsigned)a->seat) * 1099511628211ULL;
	for (p = a->move; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

static void game_forget_moves(struct web_game *g)
{
	size_t i;

	for (i = 0; i < g->nsnap; i++)
		free(g->snap[i]);
	free(g->snap);
	g->snap = NULL;
	g->nsnap = 0;
	for (i = 0; i < g->nlog; i++)
		free(g->log[i].text);
	free(g->log);
	g->log = NULL;
	g->nlog = g->logcap = 0;
	json_decref(g->log_json);
	g->log_json = NULL;
	free(g->log_text);
	g->log_text = NULL;
	free(g->mv);
	free(g->seat);
	free(g->hash);
	g->mv = NULL;
	g->seat = NULL;
	g->hash = NULL;
	g->nacts = g->actcap = 0;
	free(g->work);
	g->work = NULL;
	g->work_at = -1;
	g->broken = 0;
	g->lobby = 0;
	for (i = 0; i < WEB_PICS; i++) {
		free(g->pics[i].png);
		g->pics[i].png = NULL;
	}
	/* the positions may differ now (an undo, here or in another
	 * process): a picture being painted of one is not kept */
	g->gen++;
}

void webview_free(struct web_game *g)
{
	if (!g)
		return;
	game_forget_moves(g);
	session_rec_release(&g->rec);
	free(g);
}

/* The public lines of the replay, each with the position it led to;
 * private lines (seat >= 0) are dropped here, never stored. */
static void log_emit(struct game_log *log, int seat, const char *text)
{
	struct web_game *g = log->ctx;

	if (seat != LOG_PUBLIC)
		return;
	if (g->nlog == g->logcap) {
		g->logcap = g->logcap ? g->logcap * 2 : 64;
		g->log = xrealloc(g->log, g->logcap * sizeof(*g->log));
	}
	g->log[g->nlog].at = g->log_at;
	g->log[g->nlog].text = xstrdup(text);
	g->nlog++;
}

static void push_snap(struct web_game *g, const void *st)
{
	void *copy = xmalloc(g->ops->state_size);

	memcpy(copy, st, g->ops->state_size);
	g->snap = xrealloc(g->snap, (g->nsnap + 1) * sizeof(*g->snap));
	g->snap[g->nsnap++] = copy;
}

/* The stored moves of a session, read whole. */
struct acts {
	struct action_rec *v;
	size_t n, cap;
};

static int collect_act(void *ctx, const struct action_rec *a)
{
	struct acts *x = ctx;

	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 64;
		x->v = xrealloc(x->v, x->cap * sizeof(*x->v));
	}
	x->v[x->n++] = *a;
	return 0;
}

/* Whether rec's stored moves replay under its game's rules now (as
 * `log #<id>` asks, bot/stats.c). */
static int rules_match(const struct game_ops *ops, const struct session_rec *rec)
{
	struct room_settings rs;
	unsigned now = ops->rules_version ? ops->rules_version : 1;

	roomset_read(rec, &rs);
	return (unsigned)rs.rules == now;
}

/* The live snapshot as the one position of a game whose moves do not
 * replay.  0, or -1 + err. */
static int load_broken(struct web_game *g, const struct session_rec *rec, struct buf *err)
{
	json_t *j;
	json_error_t jerr;

	game_forget_moves(g);
	g->broken = 1;
	g->work = game_state_new(g->ops);
	g->work_at = 0;
	j = rec->state ? json_loads(rec->state, 0, &jerr) : NULL;
	if (!j) {
		buf_setf(err, "session %lld: no readable snapshot", (long long)rec->id);
		return -1;
	}
	if (g->ops->load(g->work, j, err)) {
		json_decref(j);
		return -1;
	}
	json_decref(j);
	return 0;
}

/* Steps g->work to position at (0..nacts), from the nearest snapshot or
 * from where it is when that is nearer. */
static const void *webview_state_at(struct web *w, struct web_game *g, long at)
{
	struct buf err = BUF_INIT;
	size_t k = (size_t)at / WEB_SNAP_EVERY;

	if (g->broken)
		return g->work;
	if (k >= g->nsnap)
		k = g->nsnap - 1;
	if (g->work_at < 0 || g->work_at > at || g->work_at < (long)(k * WEB_SNAP_EVERY)) {
		memcpy(g->work, g->snap[k], g->ops->state_size);
		g->work_at = (long)(k * WEB_SNAP_EVERY);
	}
	while (g->work_at < at) {
		size_t i = (size_t)g->work_at;

		/* these moves replayed once already: they apply */
		if (g->ops->apply(g->work, g->seat[i], g->mv[i], NULL, &err))
			log_err("web: session %lld move %zu no longer applies: %s",
				(long long)g->id, i + 1, buf_str(&err));
		g->work_at++;
		w->stats.steps++;
	}
	buf_release(&err);
	return g->work;
}

/* Replays the moves acts[g->nacts..n) onto the state at g->nacts, the
 * public lines into the log.  0, or -1 + err. */
static int replay_more(struct web_game *g, const struct acts *acts, struct buf *err)
{
	struct game_log log = { g->loc, g->names, log_emit, g };
	size_t i;

	for (i = g->nacts; i < acts->n; i++) {
		const struct action_rec *a = &acts->v[i];
		struct move mv;

		g->log_at = (long)i + 1;
		if (game_parse(g->ops, g->work, a->seat, a->move, LOC_EN, &mv, err) ||
		    g->ops->apply(g->work, a->seat, mv, &log, err)) {
			buf_printf(err, " (session %lld, move %lld '%s')", (long long)g->id,
				   (long long)a->seq, a->move);
			return -1;
		}
		if (g->nacts == g->actcap) {
			g->actcap = g->actcap ? g->actcap * 2 : 64;
			g->mv = xrealloc(g->mv, g->actcap * sizeof(*g->mv));
			g->seat = xrealloc(g->seat, g->actcap * sizeof(*g->seat));
			g->hash = xrealloc(g->hash, g->actcap * sizeof(*g->hash));
		}
		g->mv[g->nacts] = mv;
		g->seat[g->nacts] = a->seat;
		g->hash[g->nacts] = hash_act(a);
		g->nacts++;
		g->work_at = (long)g->nacts;
		if (g->nacts % WEB_SNAP_EVERY == 0)
			push_snap(g, g->work);
	}
	return 0;
}

static struct web_game *cache_get(struct web *w, int64_t id)
{
	struct web_game **slot = NULL;
	size_t i;

	for (i = 0; i < WEB_CACHE_GAMES; i++) {
		if (w->games[i] && w->games[i]->id == id)
			return w->games[i];
		if (!w->games[i])
			slot = slot ? slot : &w->games[i];
	}
	if (!slot) {		/* the least recently used goes */
		slot = &w->games[0];
		for (i = 1; i < WEB_CACHE_GAMES; i++)
			if (w->games[i]->used < (*slot)->used)
				slot = &w->games[i];
		webview_free(*slot);
	}
	*slot = xcalloc(1, sizeof(**slot));
	(*slot)->id = id;
	(*slot)->version = -1;
	(*slot)->work_at = -1;
	session_rec_init(&(*slot)->rec);
	return *slot;
}

const struct web_pic *webview_pic_get(struct web *w, struct web_game *g, long at)
{
	size_t i;

	for (i = 0; i < WEB_PICS; i++)
		if (g->pics[i].png && g->pics[i].at == at) {
			g->pics[i].used = ++w->clock;
			return &g->pics[i];
		}
	return NULL;
}

void webview_pic_put(struct web *w, struct web_game *g, long at, unsigned char *png, size_t len)
{
	struct web_pic *p = NULL, *q;
	size_t i;

	/* the same position's slot, else a free one, else the least
	 * recently used */
	for (i = 0; i < WEB_PICS; i++) {
		q = &g->pics[i];
		if (q->png && q->at == at) {
			p = q;
			break;
		}
		if (!p || (p->png && (!q->png || q->used < p->used)))
			p = q;
	}
	free(p->png);
	p->png = png;
	p->len = len;
	p->at = at;
	p->used = ++w->clock;
}

struct web_game *webview_cached(struct web *w, int64_t id)
{
	size_t i;

	for (i = 0; i < WEB_CACHE_GAMES; i++)
		if (w->games[i] && w->games[i]->id == id)
			return w->games[i];
	return NULL;
}

void webview_drop(struct web *w, int64_t id)
{
	size_t i;

	for (i = 0; i < WEB_CACHE_GAMES; i++)
		if (w->games[i] && w->games[i]->id == id) {
			webview_free(w->games[i]);
			w->games[i] = NULL;
		}
}

/* Replays rec's game from its first move into g (emptied).  0, or -1. */
static int replay_all(struct web *w, struct web_game *g, const struct acts *acts,
		      struct buf *err)
{
	struct game_log log = { g->loc, g->names, log_emit, g };

	game_forget_moves(g);
	w->stats.replays++;
	g->work = game_state_new(g->ops);
	if (g->ops->setup(g->work, g->rec.nseats, g->rec.seed, g->rec.options, err))
		return -1;
	g->log_at = 0;
	if (g->ops->intro)	/* what the table saw at the start */
		g->ops->intro(g->work, &log);
	push_snap(g, g->work);
	g->work_at = 0;
	return replay_more(g, acts, err);
}

/* Whether the cached moves are the first ones of acts. */
static int cached_prefix(const struct web_game *g, const struct acts *acts)
{
	size_t i;

	if (!g->nsnap || g->broken || g->lobby || acts->n < g->nacts)
		return 0;
	for (i = 0; i < g->nacts; i++)
		if (g->hash[i] != hash_act(&acts->v[i]))
			return 0;
	return 1;
}

/* The moves of rec since the cached ones, or all of them again. */
static int game_update_moves(struct web *w, struct web_game *g, const struct session_rec *rec,
			     struct buf *err)
{
	struct acts acts = { 0 };
	int r = 0;

	if (store_actions(w->m->store, rec->id, 0, collect_act, &acts, err)) {
		free(acts.v);
		return -1;
	}
	if (cached_prefix(g, &acts)) {
		if (acts.n > g->nacts) {
			w->stats.extended++;
			webview_state_at(w, g, (long)g->nacts);
			json_decref(g->log_json);
			g->log_json = NULL;
			free(g->log_text);
			g->log_text = NULL;
			r = replay_more(g, &acts, err);
		}
	} else {
		r = replay_all(w, g, &acts, err);
	}
	free(acts.v);
	return r;
}

/* The cached game of rec (read from the store just now), brought up to
 * rec's version; NULL + err when it cannot be shown. */
struct web_game *webview_game(struct web *w, const struct session_rec *rec, struct buf *err)
{
	const struct game_ops *ops = game_find(rec->game);
	struct web_game *g;
	int i;

	if (!ops) {
		buf_setf(err, "unknown game '%s'", rec->game);
		return NULL;
	}
	g = cache_get(w, rec->id);
	g->used = ++w->clock;
	if (g->version == rec->version && g->ops == ops)
		return g;
	if (g->ops != ops)
		game_forget_moves(g);
	g->ops = ops;
	session_rec_release(&g->rec);
	session_rec_copy(&g->rec, rec);
	free(g->rec.state);
	free(g->rec.votes);
	g->rec.state = g->rec.votes = NULL;
	if (locale_parse(rec->locale, &g->loc))
		g->loc = w->m->default_loc;
	for (i = 0; i < GAME_MAX_SEATS; i++)
		g->names[i] = i < g->rec.nseats ? g->rec.seats[i].name : NULL;
	g->version = -1;	/* until it is brought up to date */
	if (rec->status == SESSION_LOBBY || (!rec->state && rec->status == SESSION_ABORTED)) {
		game_forget_moves(g);
		g->lobby = 1;
	} else if (!rules_match(ops, rec) || game_update_moves(w, g, rec, err)) {
		if (rules_match(ops, rec))
			log_warn("web: %s; showing the last board only", buf_str(err));
		buf_reset(err);
		if (load_broken(g, rec, err))
			return NULL;
	}
	g->version = rec->version;
	return g;
}

long webview_positions(const struct web_game *g)
{
	return g->lobby ? 0 : g->broken ? 1 : (long)g->nacts + 1;
}

/* ---- the view of a position ---- */

/* The UI's words: web/README.md's table of keys, word for word (the
 * client's tests read it there). */
static const struct {
	const char *key, *text[LOC_COUNT];
} labels[] = {
	{ "skip", { "Skip to the board", "Ir al tablero" } },
	{ "players", { "Players", "Jugadores" } },
	{ "board", { "Board", "Tablero" } },
	{ "board_alt",
	  { "The board as a picture; the text board says the same",
	    "El tablero en imagen; el tablero en texto dice lo mismo" } },
	{ "text_board", { "Text board", "Tablero en texto" } },
	{ "log", { "Log", "Registro" } },
	{ "replay", { "Replay", "Repaso" } },
	{ "position", { "Position in the game", "Posición en la partida" } },
	{ "prev", { "Previous move", "Jugada anterior" } },
	{ "next", { "Next move", "Jugada siguiente" } },
	{ "live", { "Live", "En directo" } },
	{ "replaying", { "Replay", "Repaso" } },
	{ "back_live", { "Back to live", "Volver al directo" } },
	{ "move_of", { "Move {n} of {last}", "Jugada {n} de {last}" } },
	{ "start", { "Start of the game", "Inicio de la partida" } },
	{ "new_move", { "1 new move", "1 jugada nueva" } },
	{ "new_moves", { "{n} new moves", "{n} jugadas nuevas" } },
	{ "turn", { "Now playing", "Juega ahora" } },
	{ "winner", { "Winner", "Gana" } },
	{ "score", { "Score", "Puntos" } },
	{ "gone", { "This page is no longer available.", "Esta página ya no está disponible." } },
	{ "offline", { "Connection lost; trying again…", "Conexión perdida; reintentando…" } },
	{ "load_error",
	  { "Could not load this position; trying again…",
	    "No se pudo cargar esta posición; reintentando…" } },
	{ "footer",
	  { "Only what the whole table sees is shown here: never a hand or a hidden card.",
	    "Aquí solo se muestra lo que ve toda la mesa: nunca una mano ni una carta oculta." } },
};

static json_t *labels_json(enum locale loc)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		json_object_set_new(o, labels[i].key, json_string(labels[i].text[loc]));
	return o;
}

const char *webview_label(const char *key, enum locale loc)
{
	size_t i;

	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].key, key))
			return labels[i].text[loc];
	return NULL;
}

static const char *status_word(const struct session_rec *rec)
{
	struct room_settings rs;

	switch (rec->status) {
	case SESSION_LOBBY:
		return "lobby";
	case SESSION_FINISHED:
		return "finished";
	case SESSION_ABORTED:
		return "abandoned";
	default:
		roomset_read(rec, &rs);
		return rs.paused ? "paused" : "playing";
	}
}

static const char *seat_name(const struct web_game *g, int seat, char tmp[32])
{
	if (g->names[seat] && g->names[seat][0])
		return g->names[seat];
	snprintf(tmp, 32, "%s %d", L(g->loc, "Seat", "Asiento"), seat + 1);
	return tmp;
}

/* "Ana, Ben" of the seats in bits. */
static void seat_list(const struct web_game *g, unsigned bits, struct buf *out)
{
	char tmp[32];
	int i, k = 0;

	for (i = 0; i < g->rec.nseats; i++)
		if (bits & (1u << i))
			buf_printf(out, "%s%s", k++ ? ", " : "", seat_name(g, i, tmp));
}

/* One line: who is awaited at the position, or how it ended. */
static void status_text(const struct web_game *g, const struct session_rec *rec,
			const void *st, long at, long n, struct buf *out)
{
	enum locale loc = g->loc;
	struct game_result res;
	struct buf who = BUF_INIT;
	const char *word = status_word(rec);
	int last = at == n - 1;

	if (g->lobby) {
		buf_addstr(out, L(loc, "Waiting for players", "Esperando jugadores"));
	} else if (st && g->ops->result(st, &res)) {
		seat_list(g, res.winners, &who);
		if (!res.winners)
			buf_addstr(out, L(loc, "Game over", "Fin de la partida"));
		else if (res.winners & (res.winners - 1))
			buf_printf(out, L(loc, "Game over · winners: %s", "Fin de la partida · ganan: %s"),
				   buf_str(&who));
		else
			buf_printf(out, L(loc, "Game over · %s wins", "Fin de la partida · gana %s"),
				   buf_str(&who));
	} else if (last && !strcmp(word, "abandoned")) {
		buf_addstr(out, L(loc, "Game abandoned", "Partida abandonada"));
	} else if (last && !strcmp(word, "paused")) {
		buf_addstr(out, L(loc, "Paused", "En pausa"));
	} else if (st && g->ops->awaiting(st)) {
		seat_list(g, g->ops->awaiting(st), &who);
		buf_printf(out, L(loc, "Waiting for %s", "Esperando a %s"), buf_str(&who));
	}
	buf_release(&who);
}

/* A score in the game's units (score_decimals: 173 reads "17.3"). */
static void score_text(const struct game_ops *ops, int v, char out[32])
{
	int d = ops->score_decimals > 0 && ops->score_decimals < 9 ? ops->score_decimals : 0;
	int p = 1, i;
	char frac[16];

	if (!d) {
		snprintf(out, 32, "%d", v);
		return;
	}
	for (i = 0; i < d; i++)
		p *= 10;
	snprintf(frac, sizeof(frac), "%09d", abs(v) % p);
	snprintf(out, 32, "%s%d.%s", v < 0 ? "-" : "", abs(v) / p, frac + 9 - d);
}

static json_t *players_json(const struct web_game *g, const void *st)
{
	json_t *a = json_array();
	struct game_result res;
	unsigned aw = 0;
	int over = 0, i;

	if (st) {
		over = g->ops->result(st, &res);
		aw = over ? 0 : g->ops->awaiting(st);
	}
	for (i = 0; i < g->rec.nseats; i++) {
		char tmp[32], score[32] = "";

		/* the scores are public once the game is over: during it a
		 * hidden part (a vault) may count */
		if (over && i < res.nseats)
			score_text(g->ops, res.score[i], score);
		json_array_append_new(a, json_pack("{s:s, s:s, s:b, s:b}", "name",
						   seat_name(g, i, tmp), "score", score,
						   "turn", (aw >> i) & 1,
						   "winner", over && ((res.winners >> i) & 1)));
	}
	return a;
}

static json_t *log_json(struct web_game *g)
{
	size_t i;

	if (!g->log_json) {
		g->log_json = json_array();
		for (i = 0; i < g->nlog; i++)
			json_array_append_new(g->log_json, json_pack("{s:I, s:s}", "at",
					      (json_int_t)g->log[i].at, "text", g->log[i].text));
	}
	return json_incref(g->log_json);
}

static void board_text(const struct web_game *g, const void *st, struct buf *out)
{
	struct game_view v = { g->loc, g->rec.nseats, g->names };
	struct rich r = RICH_INIT;

	if (!st)
		return;
	g->ops->render_public(st, &v, &r);
	rich_to_plain(&r, out);
	rich_release(&r);
}

/* The view of position at without its log (the one part that is the
 * same at every position: state.json adds it as text kept per game). */
json_t *webview_of(struct web *w, const struct session_rec *rec, const char *base, long at,
		       long *npos, struct web_game **gout, struct buf *err)
{
	struct web_game *g = webview_game(w, rec, err);
	struct buf text = BUF_INIT, status = BUF_INIT, png = BUF_INIT;
	const void *st = NULL;
	json_t *j;
	long n;

	if (!g)
		return NULL;
	n = webview_positions(g);
	*npos = n;
	*gout = g;
	if (at < 0)
		at = n > 0 ? n - 1 : 0;
	else if (at >= n) {
		buf_setf(err, "no such position");
		return NULL;
	}
	if (n > 0)
		st = webview_state_at(w, g, at);
	board_text(g, st, &text);
	status_text(g, rec, st, at, n, &status);
	if (st && g->ops->scene)
		buf_printf(&png, "%s/board.png?at=%ld", base, at);
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:s, s:s, s:o}",
		      "game", g->ops->id, "title", g->ops->name[g->loc],
		      "lang", locale_code(g->loc), "status", status_word(rec),
		      "status_text", buf_str(&status), "players", players_json(g, st),
		      "positions", (json_int_t)n, "at", (json_int_t)at,
		      "board_text", buf_str(&text), "board_png", buf_str(&png),
		      "labels", labels_json(g->loc));
	buf_release(&text);
	buf_release(&status);
	buf_release(&png);
	return j;
}

json_t *web_view(struct web *w, const struct session_rec *rec, const char *base, long at,
		 long *npos, struct buf *err)
{
	struct web_game *g;
	json_t *j = webview_of(w, rec, base, at, npos, &g, err);

	if (j)
		json_object_set_new(j, "log", log_json(g));
	return j;
}

/* state.json: the view, then the log as kept text. */
void webview_state_json(struct web_game *g, json_t *view, struct buf *out)
{
	char *s = json_dumps(view, JSON_COMPACT);
	size_t n = strlen(s);

	if (!g->log_text) {
		json_t *log = log_json(g);

		g->log_text = json_dumps(log, JSON_COMPACT);
		json_decref(log);
	}
	/* s ends with the object's '}' */
	buf_add(out, s, n - 1);
	buf_printf(out, ",\"log\":%s}", g->log_text);
	free(s);
}

int web_scene(struct web *w, const struct session_rec *rec, long at, struct scene *out,
	      struct buf *err)
{
	struct web_game *g = webview_game(w, rec, err);
	struct game_view v;
	long n;

	if (!g)
		return -1;
	n = webview_positions(g);
	if (at < 0)
		at = n - 1;
	if (at < 0 || at >= n || !g->ops->scene) {
		buf_setf(err, "no such picture");
		return -1;
	}
	v.loc = g->loc;
	v.nseats = g->rec.nseats;
	v.names = g->names;
	if (g->ops->scene(webview_state_at(w, g, at), -1, &v, out)) {
		buf_setf(err, "no public picture");
		return -1;
	}
	return 0;
}
