/*
 * web: each game's page, its JSON, its pictures and its events (bot/web.h):
 * the replay cache of the sessions viewed, the public view of a position,
 * and the answers to the routes.  A services-layer file: it reads the
 * session core's records and the store, and the core reaches it only
 * through session_hooks.committed.
 */
#include "bot/web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/httpd.h"
#include "bot/core.h"
#include "bot/roomset.h"
#include "paint/paint.h"
#include "util/logging.h"
#include "util/rich.h"

/* ---- the replay cache ---- */

struct web_line {
	long at;		/* the position the line led to (0: the intro) */
	char *text;
};

struct web_game {
	int64_t id, version;
	const struct game_ops *ops;
	struct session_rec rec;		/* without state and votes */
	enum locale loc;
	const char *names[GAME_MAX_SEATS];	/* into rec.seats */
	int lobby;			/* no board yet: no position */
	/* the moves replayed: nacts of them, parsed once */
	size_t nacts, actcap;
	struct move *mv;
	int *seat;
	uint64_t *hash;			/* of (seq, seat, move id): a prefix check */
	void **snap;			/* snap[k]: the state at position k * WEB_SNAP_EVERY */
	size_t nsnap;
	void *work;			/* the last state stepped to */
	long work_at;			/* its position, -1: none */
	/* the replay failed (a move no longer replays): one position, the
	 * stored snapshot */
	int broken;
	struct web_line *log;
	size_t nlog, logcap;
	long log_at;			/* the position lines written now lead to */
	json_t *log_json;		/* the log as state.json says it, or NULL */
	char *log_text;			/* log_json as JSON text, or NULL */
	/* the last picture painted */
	unsigned char *png;
	size_t png_len;
	long png_at;
	uint64_t used;
};

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
	free(g->png);
	g->png = NULL;
	g->png_len = 0;
	g->png_at = -1;
}

static void game_free(struct web_game *g)
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
static const void *state_at(struct web *w, struct web_game *g, long at)
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
		game_free(*slot);
	}
	*slot = xcalloc(1, sizeof(**slot));
	(*slot)->id = id;
	(*slot)->version = -1;
	(*slot)->work_at = -1;
	(*slot)->png_at = -1;
	session_rec_init(&(*slot)->rec);
	return *slot;
}

static void cache_drop(struct web *w, int64_t id)
{
	size_t i;

	for (i = 0; i < WEB_CACHE_GAMES; i++)
		if (w->games[i] && w->games[i]->id == id) {
			game_free(w->games[i]);
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
			state_at(w, g, (long)g->nacts);
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
static struct web_game *game_get(struct web *w, const struct session_rec *rec, struct buf *err)
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

static long positions(const struct web_game *g)
{
	return g->lobby ? 0 : g->broken ? 1 : (long)g->nacts + 1;
}

/* ---- the view of a position ---- */

/* The UI's words (web/README.md lists the keys the page uses). */
static const struct {
	const char *key, *text[LOC_COUNT];
} labels[] = {
	{ "players", { "Players", "Jugadores" } },
	{ "board", { "Board", "Tablero" } },
	{ "board_picture", { "The board at this position", "El tablero en esta posición" } },
	{ "board_text", { "The board as text", "El tablero en texto" } },
	{ "log", { "Log", "Registro" } },
	{ "replay", { "Replay", "Repetición" } },
	{ "position", { "Position", "Posición" } },
	{ "first", { "First", "Primera" } },
	{ "previous", { "Previous", "Anterior" } },
	{ "next", { "Next", "Siguiente" } },
	{ "last", { "Last", "Última" } },
	{ "live", { "Live", "En directo" } },
	{ "to_play", { "to play", "le toca" } },
	{ "winner", { "winner", "ganador" } },
	{ "score", { "Score", "Puntos" } },
	{ "reconnecting", { "Reconnecting…", "Reconectando…" } },
	{ "gone", { "This page is no longer available.", "Esta página ya no está disponible." } },
	{ "intro", { "Start", "Inicio" } },
};

static json_t *labels_json(enum locale loc)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		json_object_set_new(o, labels[i].key, json_string(labels[i].text[loc]));
	return o;
}

static const char *label(const char *key, enum locale loc)
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
static json_t *view_of(struct web *w, const struct session_rec *rec, const char *base, long at,
		       long *npos, struct web_game **gout, struct buf *err)
{
	struct web_game *g = game_get(w, rec, err);
	struct buf text = BUF_INIT, status = BUF_INIT, png = BUF_INIT;
	const void *st = NULL;
	json_t *j;
	long n;

	if (!g)
		return NULL;
	n = positions(g);
	*npos = n;
	*gout = g;
	if (at < 0)
		at = n > 0 ? n - 1 : 0;
	else if (at >= n) {
		buf_setf(err, "no such position");
		return NULL;
	}
	if (n > 0)
		st = state_at(w, g, at);
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
	json_t *j = view_of(w, rec, base, at, npos, &g, err);

	if (j)
		json_object_set_new(j, "log", log_json(g));
	return j;
}

/* state.json: the view, then the log as kept text. */
static void state_json(struct web_game *g, json_t *view, struct buf *out)
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
	struct web_game *g = game_get(w, rec, err);
	struct game_view v;
	long n;

	if (!g)
		return -1;
	n = positions(g);
	if (at < 0)
		at = n - 1;
	if (at < 0 || at >= n || !g->ops->scene) {
		buf_setf(err, "no such picture");
		return -1;
	}
	v.loc = g->loc;
	v.nseats = g->rec.nseats;
	v.names = g->names;
	if (g->ops->scene(state_at(w, g, at), -1, &v, out)) {
		buf_setf(err, "no public picture");
		return -1;
	}
	return 0;
}

/* ---- the answers ---- */

#define NOT_FOUND "Not found\n"

void web_answer_init(struct web_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->status = 200;
	buf_init(&a->body, 0);
}

void web_answer_release(struct web_answer *a)
{
	buf_release(&a->body);
}

static void answer_text(struct web_answer *out, int status, const char *text)
{
	out->status = status;
	out->type = "text/plain; charset=utf-8";
	buf_reset(&out->body);
	buf_addstr(&out->body, text);
}

/* Every "no such page" is this one answer, whatever the reason. */
static void not_found(struct web_answer *out)
{
	answer_text(out, 404, NOT_FOUND);
}

static int token_ok(const char *t, size_t n)
{
	size_t i;

	if (n < WEB_TOKEN_MIN || n > WEB_TOKEN_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
		      (t[i] >= '0' && t[i] <= '9') || t[i] == '-' || t[i] == '_'))
			return 0;
	return 1;
}

int web_enabled(const struct session_rec *rec)
{
	struct room_settings rs;

	roomset_read(rec, &rs);
	return rs.web;
}

/* The session of token into rec: 1, 0 when there is none to show (no
 * such token, or the page is off), -1 + err (the store). */
static int session_of(struct web *w, const char *token, struct session_rec *rec,
		      struct buf *err)
{
	int64_t id;
	int r = store_web_find(w->m->store, token, &id, err);

	if (r)
		return r == 1 ? 0 : -1;
	r = store_session_get(w->m->store, id, rec, err);
	if (r <= 0)
		return r;
	return web_enabled(rec) ? 1 : 0;
}

/*
 * The query's `at`: -1 when absent, else a position (0 or more), or -2
 * when it is no whole number.  The rest of the query is ignored.
 */
static long query_at(const char *q)
{
	while (q && *q) {
		const char *amp = strchr(q, '&');
		size_t n = amp ? (size_t)(amp - q) : strlen(q);

		if (n >= 3 && !memcmp(q, "at=", 3)) {
			long v = 0;
			size_t i;

			if (n == 3 || n > 3 + 9)
				return -2;
			for (i = 3; i < n; i++) {
				if (q[i] < '0' || q[i] > '9')
					return -2;
				v = v * 10 + (q[i] - '0');
			}
			return v;
		}
		q = amp ? amp + 1 : NULL;
	}
	return -1;
}

static void bad_at(struct web_answer *out, long npos)
{
	char msg[128];

	if (npos > 0)
		snprintf(msg, sizeof(msg),
			 "Bad request: at must be a whole number from 0 to %ld.\n", npos - 1);
	else
		snprintf(msg, sizeof(msg), "Bad request: this game has no position yet.\n");
	answer_text(out, 400, msg);
}

static void html_escape(struct buf *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			buf_addstr(out, "&amp;");
			break;
		case '<':
			buf_addstr(out, "&lt;");
			break;
		case '>':
			buf_addstr(out, "&gt;");
			break;
		case '"':
			buf_addstr(out, "&quot;");
			break;
		case '\'':
			buf_addstr(out, "&#39;");
			break;
		default:
			buf_addch(out, *s);
		}
}

static const struct web_asset *asset(const char *name)
{
	size_t i;

	for (i = 0; i < web_nassets; i++)
		if (!strcmp(web_assets[i].name, name))
			return &web_assets[i];
	return NULL;
}

/* The value of placeholder key ("title", "t:log") from the view, or NULL
 * (left as it is). */
static const char *placeholder(const json_t *view, const char *base, const char *key,
			       size_t n, enum locale loc)
{
	static const char *const fields[] = { "lang", "title", "board_text", "status_text" };
	char k[64];
	size_t i;

	if (n >= sizeof(k))
		return NULL;
	memcpy(k, key, n);
	k[n] = 0;
	if (!strcmp(k, "base"))
		return base;
	if (!strncmp(k, "t:", 2))
		return label(k + 2, loc);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(k, fields[i]))
			return json_string_value(json_object_get(view, k));
	return NULL;
}

/* web/page.html with its placeholders filled from the latest view. */
static void page_html(const json_t *view, const char *base, struct web_answer *out)
{
	const struct web_asset *tpl = asset("page.html");
	const char *p, *open, *close;
	enum locale loc = LOC_EN;

	locale_parse(json_string_value(json_object_get(view, "lang")), &loc);
	out->type = "text/html; charset=utf-8";
	p = tpl ? (const char *)tpl->data : "";
	while ((open = strstr(p, "{{")) && (close = strstr(open + 2, "}}"))) {
		const char *v = placeholder(view, base, open + 2, (size_t)(close - open - 2), loc);

		buf_add(&out->body, p, (size_t)(open - p));
		if (v)
			html_escape(&out->body, v);
		else
			buf_add(&out->body, open, (size_t)(close + 2 - open));
		p = close + 2;
	}
	buf_addstr(&out->body, p);
}

/* board.png of position at (-1: the latest); the last one painted is
 * kept. */
static void board_png(struct web *w, const struct session_rec *rec, long at,
		      struct web_answer *out)
{
	struct web_game *g;
	struct scene sc;
	struct paint_image im;
	struct buf err = BUF_INIT;

	g = game_get(w, rec, &err);
	if (!g || !positions(g) || !g->ops->scene) {
		not_found(out);
		goto out;
	}
	if (at < 0)
		at = positions(g) - 1;
	if (at >= positions(g)) {
		bad_at(out, positions(g));
		goto out;
	}
	if (g->png && g->png_at == at) {
		w->stats.paint_hits++;
	} else {
		scene_init(&sc);
		memset(&im, 0, sizeof(im));
		if (web_scene(w, rec, at, &sc, &err) || paint_scene(&sc, 0, &im, &err)) {
			log_warn("web: session %lld position %ld: no picture: %s",
				 (long long)rec->id, at, buf_str(&err));
			scene_release(&sc);
			answer_text(out, 500, "The picture could not be painted.\n");
			goto out;
		}
		scene_release(&sc);
		free(g->png);
		g->png = im.png;	/* taken */
		g->png_len = im.len;
		g->png_at = at;
		im.png = NULL;
		paint_image_release(&im);
		w->stats.paints++;
	}
	out->type = "image/png";
	buf_init(&out->body, g->png_len + 1);
	buf_add(&out->body, g->png, g->png_len);
out:
	buf_release(&err);
}

void web_game_answer(struct web *w, const char *rest, const char *query,
		     struct web_answer *out)
{
	const char *slash = strchr(rest, '/');
	size_t tn = slash ? (size_t)(slash - rest) : strlen(rest);
	const char *what = slash ? slash + 1 : "";
	char token[WEB_TOKEN_MAX + 1], base[WEB_TOKEN_MAX + 8];
	struct session_rec rec;
	struct buf err = BUF_INIT;
	long at = query_at(query), npos = -1;
	struct web_game *g = NULL;
	json_t *view;
	int r;

	session_rec_init(&rec);
	if (!token_ok(rest, tn) || (strcmp(what, "") && strcmp(what, "state.json") &&
				    strcmp(what, "board.png") && strcmp(what, "events"))) {
		not_found(out);
		goto out;
	}
	memcpy(token, rest, tn);
	token[tn] = 0;
	snprintf(base, sizeof(base), "/g/%s", token);
	r = session_of(w, token, &rec, &err);
	if (r < 0) {
		log_warn("web: the store: %s", buf_str(&err));
		answer_text(out, 503, "The bot cannot read its store just now; try again.\n");
		goto out;
	}
	if (r == 0) {
		not_found(out);
		goto out;
	}
	if (!strcmp(what, "events")) {
		out->type = "text/event-stream";
		snprintf(out->stream, sizeof(out->stream), "g:%lld", (long long)rec.id);
		buf_addstr(&out->body, "retry: 5000\n\n");
		goto out;
	}
	if (at == -2 && strcmp(what, "")) {
		game_get(w, &rec, &err);
		bad_at(out, positions(cache_get(w, rec.id)));
		goto out;
	}
	if (!strcmp(what, "board.png")) {
		board_png(w, &rec, at, out);
		goto out;
	}
	view = view_of(w, &rec, base, what[0] ? at : -1, &npos, &g, &err);
	if (!view && npos >= 0) {	/* the one failure once the game is read */
		bad_at(out, npos);
	} else if (!view) {
		log_warn("web: session %lld: %s", (long long)rec.id, buf_str(&err));
		not_found(out);
	} else if (!what[0]) {
		page_html(view, base, out);
	} else {
		out->type = "application/json";
		state_json(g, view, &out->body);
	}
	json_decref(view);
out:
	session_rec_release(&rec);
	buf_release(&err);
}

void web_static_answer(const char *name, struct web_answer *out)
{
	const struct web_asset *a = asset(name);
	size_t n = strlen(name);

	/* the template is no page of its own */
	if (!a || (n >= 5 && !strcmp(name + n - 5, ".html"))) {
		not_found(out);
		return;
	}
	out->type = a->type;
	out->cache_seconds = WEB_STATIC_MAX_AGE;
	buf_add(&out->body, a->data, a->len);
}

/* ---- events ---- */

static void topic_of(int64_t id, char out[32])
{
	snprintf(out, 32, "g:%lld", (long long)id);
}

void web_gone(struct session_mgr *m, int64_t session)
{
	struct web *w = m->web;
	char topic[32];

	if (!w)
		return;
	cache_drop(w, session);
	if (!w->close_topic)
		return;
	topic_of(session, topic);
	w->close_topic(w->pub_ctx, topic, "event: gone\ndata: {}\n\n");
	w->stats.closed++;
}

void web_committed(struct session_mgr *m, const struct change *c)
{
	struct web *w = m->web;
	const struct session_rec *old = &c->s->rec;
	struct room_settings a, b;
	char topic[32], ev[96];
	int64_t last;
	int n;

	if (!w || !c->rec.id || c->rec.status == SESSION_LOBBY)
		return;
	if (!web_enabled(&c->rec)) {
		if (web_enabled(old) || old->id != c->rec.id)
			web_gone(m, c->rec.id);
		return;
	}
	roomset_read(old, &a);
	roomset_read(&c->rec, &b);
	/* what the page shows changed: a move (or an undo), the game's
	 * status, the pause */
	if (!c->nactions && !c->truncate && old->id == c->rec.id && old->status == c->rec.status &&
	    a.paused == b.paused)
		return;
	if (!w->publish)
		return;
	last = (c->truncate ? c->truncate_after : c->s->last_seq) + (int64_t)c->nactions;
	topic_of(c->rec.id, topic);
	n = snprintf(ev, sizeof(ev), "event: move\ndata: {\"positions\":%lld}\n\n",
		     (long long)last + 1);
	w->publish(w->pub_ctx, topic, ev, (size_t)n);
	w->stats.published++;
}

/* ---- on the HTTP server ---- */

static size_t http_publish(void *ctx, const char *topic, const char *text, size_t len)
{
	return httpd_publish(ctx, topic, text, len);
}

static void http_close_topic(void *ctx, const char *topic, const char *text)
{
	httpd_close_topic(ctx, topic, text);
}

static void to_response(struct web *w, const struct web_answer *a, struct httpd_response *rs)
{
	rs->status = a->status;
	rs->type = a->type;
	rs->cache_seconds = a->cache_seconds;
	buf_reset(&rs->body);
	if (a->body.len)
		buf_add(&rs->body, a->body.s, a->body.len);
	if (a->stream[0]) {	/* httpd copies it when the handler returns */
		snprintf(w->topic, sizeof(w->topic), "%s", a->stream);
		rs->stream = w->topic;
	}
}

static void serve_game(void *ctx, const struct httpd_request *rq, struct httpd_response *rs)
{
	struct web *w = ctx;
	struct web_answer a;

	web_answer_init(&a);
	web_game_answer(w, rq->rest, rq->query, &a);
	to_response(w, &a, rs);
	web_answer_release(&a);
}

static void serve_static(void *ctx, const struct httpd_request *rq, struct httpd_response *rs)
{
	struct web_answer a;

	web_answer_init(&a);
	web_static_answer(rq->rest, &a);
	to_response(ctx, &a, rs);
	web_answer_release(&a);
}

int web_attach(struct web *w, struct httpd *h, struct buf *err)
{
	if (httpd_route_prefix(h, "/g/", serve_game, w) ||
	    httpd_route_prefix(h, "/static/", serve_static, w)) {
		buf_setf(err, "the HTTP server's route table is full");
		return -1;
	}
	w->publish = http_publish;
	w->close_topic = http_close_topic;
	w->pub_ctx = h;
	return 0;
}

/* ---- set-up ---- */

/* session_mgr.web_gone: `game web off` or `game web reset` took the
 * page away (bot/settings.c). */
static void page_taken_away(void *ctx, const struct session *s)
{
	web_gone(ctx, s->rec.id);
}

void web_init(struct web *w, struct session_mgr *m)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	m->web = w;
	m->web_gone = page_taken_away;
	m->web_gone_ctx = m;
}

void web_release(struct web *w)
{
	size_t i;

	for (i = 0; i < WEB_CACHE_GAMES; i++)
		game_free(w->games[i]);
	if (w->m && w->m->web == w) {
		w->m->web = NULL;
		w->m->web_gone = NULL;
		w->m->web_gone_ctx = NULL;
	}
	memset(w, 0, sizeof(*w));
}
