/*
 * stats: the commands that read the record of finished games (issue 26,
 * docs/ratings.md "Commands"): `stats [player] [game]`, `stats hide |
 * show | forget`, `leaderboard [game]`, `history [n]`, and `log #<game id>`
 * (an old game's log, replayed from its seed and stored moves like `log`).
 *
 * It reads the store's results and ratings (state/store.h, API 5) and
 * writes only a player's own flags: hiding, the forget confirmation (a
 * cursor) and forgetting.  The ratings themselves are written when a game
 * ends, elsewhere.  `stats` and `leaderboard` come with a picture where the
 * platform takes pictures (a scene: tables and a rating chart), with the
 * same numbers as text.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/session_int.h"
#include "util/logging.h"
#include "util/text.h"

#define STATS_MIN_GAMES 3	/* rated games to appear on a leaderboard */
#define BOARD_TOP 10		/* rows of a leaderboard */
#define HISTORY_DEFAULT 5	/* `history` without a number... */
#define HISTORY_MAX 20		/* ...and its most */
#define FORGET_WINDOW_S 300	/* `stats forget confirm` within this */
#define STATS_GAMES_MAX 64	/* rating rows of one player in one scope read */
#define NAME_LOOKBACK 50	/* finished games of the room a name is looked up in */
#define FORGET_KEY "stats.forget/"

/* cmd's community (a Discord guild, a Matrix space): the ratings' scope
 * besides the platform's; "" when none.  Borrowed from cmd. */
const char *stats_community(const struct command *cmd)
{
	return cmd->community ? cmd->community : "";
}

/* ---- small formatting ---- */

static const char *const mon_en[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const char *const mon_es[12] = { "ene", "feb", "mar", "abr", "may", "jun",
					"jul", "ago", "sep", "oct", "nov", "dic" };

/* "2026-04-14" (UTC) */
static void fmt_date(int64_t t, char out[16])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(out, 16, "%Y-%m-%d", &tm))
		snprintf(out, 16, "?");
}

/* "14 Apr" / "14 abr" (UTC), a chart's x label */
static void fmt_day(int64_t t, enum locale loc, char out[16])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm)) {
		snprintf(out, 16, "?");
		return;
	}
	snprintf(out, 16, "%d %s", tm.tm_mday, (loc == LOC_ES ? mon_es : mon_en)[tm.tm_mon]);
}

/* A count of wins: shared wins are fractions ("4", "2.33"). */
static void fmt_wins(double w, char out[32])
{
	size_t n;

	if (fabs(w - round(w)) < 1e-9) {
		snprintf(out, 32, "%.0f", w);
		return;
	}
	snprintf(out, 32, "%.2f", w);
	n = strlen(out);
	if (out[n - 1] == '0')
		out[n - 1] = '\0';	/* 2.5, not 2.50 */
}

/* "W3", "L2", "–" */
static void fmt_streak(int64_t s, enum locale loc, char out[32])
{
	if (s > 0)
		snprintf(out, 32, "%s%lld", L(loc, "W", "G"), (long long)s);
	else if (s < 0)
		snprintf(out, 32, "%s%lld", L(loc, "L", "P"), (long long)-s);
	else
		snprintf(out, 32, "–");
}

/* "1 h 05 min", "3 d 2 h", "12 min" */
static void fmt_length(int64_t secs, enum locale loc, char out[32])
{
	int64_t m = secs > 0 ? secs / 60 : 0;

	if (m >= 24 * 60)
		snprintf(out, 32, L(loc, "%lld d %lld h", "%lld días %lld h"), (long long)(m / 1440),
			 (long long)(m % 1440 / 60));
	else if (m >= 60)
		snprintf(out, 32, "%lld h %02lld min", (long long)(m / 60), (long long)(m % 60));
	else
		snprintf(out, 32, "%lld min", (long long)m);
}

static const char *game_name(const char *id, enum locale loc)
{
	const struct game_ops *g = game_find(id);

	return g ? g->name[loc] : id;
}

/* How a player is shown: their name, "AI basic", or a former player. */
static const char *player_label(const char *player, const char *name, enum locale loc)
{
	if (!strcmp(player, "ai:basic"))
		return L(loc, "AI basic", "IA básica");
	if (!strcmp(player, "ai:strong"))
		return L(loc, "AI strong", "IA fuerte");
	if (!player[0] || !name[0])
		return L(loc, "a former player", "un antiguo jugador");
	return name;
}

static const char *scope_label(const char *scope, const char *platform, enum locale loc,
			       char out[64])
{
	if (scope[0])
		snprintf(out, 64, "%s", L(loc, "This community", "Esta comunidad"));
	else if (!strcmp(platform, "discord"))
		snprintf(out, 64, "%s", L(loc, "Everyone on Discord", "Todos en Discord"));
	else if (!strcmp(platform, "matrix"))
		snprintf(out, 64, "%s", L(loc, "Everyone on Matrix", "Todos en Matrix"));
	else
		snprintf(out, 64, "%s", L(loc, "Everyone here", "Todos aquí"));
	return out;
}

/* ---- reading ratings ---- */

struct rows {
	struct rating_rec v[STATS_GAMES_MAX];
	size_t n;
};

static int collect_rating(void *ctx, const struct rating_rec *r)
{
	struct rows *rows = ctx;

	if (rows->n == STATS_GAMES_MAX)
		return 1;
	rows->v[rows->n++] = *r;
	return 0;
}

/* ---- whom a `stats` argument names ---- */

struct who {
	char id[128];
	char name[128];
};

struct name_hunt {
	const char *want;
	struct who *out;
	int found;
};

static int hunt_result(void *ctx, const struct result_rec *r)
{
	struct name_hunt *h = ctx;
	int i;

	for (i = 0; i < r->nseats; i++) {
		const struct result_seat_rec *st = &r->seats[i];

		if (st->player[0] && !st->is_bot &&
		    (!strcmp(st->player, h->want) || text_eq(st->name, h->want))) {
			snprintf(h->out->id, sizeof(h->out->id), "%s", st->player);
			snprintf(h->out->name, sizeof(h->out->name), "%s", st->name);
			h->found = 1;
			return 1;
		}
	}
	return 0;
}

/*
 * The player arg names (the caller when empty): "ai basic" / "ai strong",
 * a <@id> mention, a user id, or a display name (an "@" before it is
 * dropped) of a seat of the room's game or of its finished games.  A
 * name is looked up only in this room, so nobody can be found by a name
 * they never used here.  1 found, 0 not (out->name: what was asked).
 */
static int resolve_player(const struct cmd_ctx *x, const char *arg, struct who *out)
{
	struct session_mgr *m = x->m;
	struct name_hunt h = { NULL, out, 0 };
	struct buf err = BUF_INIT;
	char want[128];
	size_t n = strlen(arg);
	int i;

	memset(out, 0, sizeof(*out));
	if (!n) {
		snprintf(out->id, sizeof(out->id), "%s", x->cmd->user);
		snprintf(out->name, sizeof(out->name), "%s", x->cmd->name);
		return 1;
	}
	if (text_eq(arg, "ai basic") || text_eq(arg, "ai:basic") || text_eq(arg, "ia básica") ||
	    text_eq(arg, "ai strong") || text_eq(arg, "ai:strong") || text_eq(arg, "ia fuerte")) {
		int strong = strstr(arg, "strong") || strstr(arg, "fuerte");

		snprintf(out->id, sizeof(out->id), "%s", strong ? "ai:strong" : "ai:basic");
		snprintf(out->name, sizeof(out->name), "%s", player_label(out->id, "", x->loc));
		return 1;
	}
	if (n > 3 && n < sizeof(want) && arg[0] == '<' && arg[1] == '@' && arg[n - 1] == '>')
		snprintf(want, sizeof(want), "%.*s", (int)(n - 3 - (arg[2] == '!')),
			 arg + 2 + (arg[2] == '!'));
	else
		snprintf(want, sizeof(want), "%.127s", arg[0] == '@' ? arg + 1 : arg);
	snprintf(out->name, sizeof(out->name), "%s", want);
	if (x->s)
		for (i = 0; i < x->s->rec.nseats; i++) {
			const struct seat_rec *st = &x->s->rec.seats[i];

			if (!st->is_bot && (!strcmp(st->user, want) || text_eq(st->name, want))) {
				snprintf(out->id, sizeof(out->id), "%s", st->user);
				snprintf(out->name, sizeof(out->name), "%s", st->name);
				return 1;
			}
		}
	h.want = want;
	if (store_results_recent(m->store, x->cmd->platform, x->cmd->room, NAME_LOOKBACK,
				 hunt_result, &h, &err))
		log_warn("stats: looking up %s: %s", want, buf_str(&err));
	buf_release(&err);
	return h.found;
}

/* ---- the picture ---- */

struct chart_ctx {
	struct scene *sc;
	enum locale loc;
};

static int add_point(void *ctx, const struct rating_point_rec *p)
{
	struct chart_ctx *c = ctx;
	char day[16];

	fmt_day(p->at, c->loc, day);
	scene_chart_point(c->sc, day, p->mu, p->mu - 3 * p->sigma, p->mu + 3 * p->sigma);
	return 0;
}

/* Whether the answer takes a picture: the platform takes them, and the
 * room did not choose text boards (`game settings board text`: text
 * here too). */
static int takes_picture(const struct cmd_ctx *x)
{
	return (x->a->ops->caps & ADAPTER_CAP_IMAGES) &&
	       !(x->s && pic_board_mode(&x->s->rec, x->a) == BOARD_TEXT);
}

/* Answers with r, and with the picture sc where the platform and the
 * room take pictures (sc is taken either way). */
static void reply_with_picture(const struct cmd_ctx *x, int priv, const struct rich *r,
			       struct scene *sc, const char *what)
{
	struct buf plain = BUF_INIT;
	struct pic pic;

	if (!takes_picture(x)) {
		session_reply_rich(x->a, x->cmd, priv, r);
		scene_release(sc);
		return;
	}
	pic_init(&pic);
	pic.scene = *sc;
	scene_init(sc);
	rich_to_plain(r, &plain);
	pic.alt = buf_detach(&plain);
	rich_append(&pic.view, r);
	rich_append(&pic.full, r);
	pic.text_in_body = 1;
	snprintf(pic.name, sizeof(pic.name), "%s.png", what);
	pic_reply_picture(x->m, x->a, x->cmd, priv, r, &pic);
	pic_release(&pic);
}

/* ---- stats ---- */

struct totals {
	int64_t games, last_at;
	double wins;
	const struct rating_rec *fav;
};

static void sum_rows(const struct rows *rows, struct totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < rows->n; i++) {
		const struct rating_rec *r = &rows->v[i];

		t->games += r->games;
		t->wins += r->wins;
		if (r->last_at > t->last_at)
			t->last_at = r->last_at;
		if (!t->fav || r->games > t->fav->games)
			t->fav = r;
	}
}

/* Whether two scopes hold the same numbers (games played per game). */
static int rows_same(const struct rows *a, const struct rows *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].game, b->v[i].game) || a->v[i].games != b->v[i].games)
			return 0;
	return 1;
}

/* One game's line of numbers. */
static void game_line(struct rich *out, const struct rating_rec *r, enum locale loc)
{
	char wins[32], streak[32], day[16];

	fmt_wins(r->wins, wins);
	fmt_streak(r->streak, loc, streak);
	fmt_date(r->last_at, day);
	rich_text(out, "%s: ", game_name(r->game, loc));
	rich_text(out, L(loc, "%lld games, %s wins (%.0f%%), average place %.1f, average score %.1f, "
			 "best score %lld; rating %.1f ± %.1f (μ − 3σ %.1f); streak %s; last %s",
			 "%lld partidas, %s victorias (%.0f%%), puesto medio %.1f, puntuación media "
			 "%.1f, mejor puntuación %lld; puntuación de nivel %.1f ± %.1f (μ − 3σ %.1f); "
			 "racha %s; última %s"),
		  (long long)r->games, wins, r->games ? 100.0 * r->wins / (double)r->games : 0.0,
		  r->games ? (double)r->place_sum / (double)r->games : 0.0,
		  r->games ? (double)r->score_sum / (double)r->games : 0.0,
		  (long long)r->best_score, r->mu, r->sigma, r->conservative, streak, day);
	rich_newline(out);
}

/* One scope's section of `stats`; 0 when the player has no rated game in it. */
static int stats_scope(struct rich *out, const struct rows *rows, const char *game,
		       const char *title, enum locale loc)
{
	struct totals t;
	char wins[32], day[16];
	size_t i, shown = 0;

	for (i = 0; i < rows->n; i++)
		shown += !game || !strcmp(rows->v[i].game, game);
	if (!shown)
		return 0;
	rich_emph(out, "%s", title);
	rich_newline(out);
	if (!game) {
		sum_rows(rows, &t);
		fmt_wins(t.wins, wins);
		fmt_date(t.last_at, day);
		rich_line(out, L(loc, "%lld games, %s wins (%.0f%%); favourite: %s; last played %s",
				 "%lld partidas, %s victorias (%.0f%%); favorito: %s; última partida %s"),
			  (long long)t.games, wins, t.games ? 100.0 * t.wins / (double)t.games : 0.0,
			  game_name(t.fav->game, loc), day);
	}
	for (i = 0; i < rows->n; i++)
		if (!game || !strcmp(rows->v[i].game, game))
			game_line(out, &rows->v[i], loc);
	return 1;
}

/* The picture of `stats`: the figures as chips, the rating as a chart. */
static void stats_scene(const struct cmd_ctx *x, const struct who *w, const struct rows *rows,
			const char *scope, const char *game, struct scene *sc)
{
	enum locale loc = x->loc;
	struct chart_ctx cc = { sc, loc };
	struct buf err = BUF_INIT;
	struct scene_item *ch;
	const struct rating_rec *r = NULL;
	struct totals t;
	char a[32], b[32];
	size_t i;

	sum_rows(rows, &t);
	for (i = 0; i < rows->n; i++)
		if (game && !strcmp(rows->v[i].game, game))
			r = &rows->v[i];
	if (!game)
		r = t.fav;
	scene_title(sc, "%s · %s", player_label(w->id, w->name, loc),
		    game ? game_name(game, loc) : L(loc, "all games", "todos los juegos"));
	scene_row(sc, "%s", "");
	snprintf(a, sizeof(a), "%lld", (long long)(game ? (r ? r->games : 0) : t.games));
	scene_chip(sc, SCOL_NONE, L(loc, "Played", "Jugadas"), a);
	fmt_wins(game ? (r ? r->wins : 0) : t.wins, b);
	scene_chip(sc, SCOL_GOLD, L(loc, "Wins", "Victorias"), b);
	if (r && game) {
		snprintf(a, sizeof(a), "%.1f", r->games ? (double)r->place_sum / (double)r->games : 0.0);
		scene_chip(sc, SCOL_NONE, L(loc, "Average place", "Puesto medio"), a);
		fmt_streak(r->streak, loc, b);
		scene_chip(sc, SCOL_NONE, L(loc, "Streak", "Racha"), b);
	}
	if (!r)
		return;
	scene_line(sc, SCENE_NOTE, L(loc, "%s: rating %.1f ± %.1f (μ − 3σ: %.1f)",
				     "%s: puntuación de nivel %.1f ± %.1f (μ − 3σ: %.1f)"),
		   game_name(r->game, loc), r->mu, r->sigma, r->conservative);
	ch = scene_chart(sc, SCOL_NONE, game_name(r->game, loc), L(loc, "Rating μ", "Nivel μ"));
	scene_set_band(ch, "%s", L(loc, "uncertainty μ ± 3σ", "incertidumbre μ ± 3σ"));
	scene_set_corner(ch, "%s", L(loc, "No rated games yet", "Aún no hay partidas puntuadas"));
	if (store_rating_points(x->m->store, x->cmd->platform, scope, r->game, w->id,
				SCENE_CHART_POINTS, add_point, &cc, &err))
		log_warn("stats: rating points: %s", buf_str(&err));
	buf_release(&err);
}

/* Splits `stats` arguments into a player and a game (the last word, when
 * it names one). */
static const char *split_game(const char *args, char *player, size_t n)
{
	const char *sp = strrchr(args, ' ');
	const char *last = sp ? sp + 1 : args;
	const struct game_ops *g = *last ? game_find(last) : NULL;

	if (!g || (!sp && text_eq(args, "ai"))) {
		snprintf(player, n, "%s", args);
		return NULL;
	}
	snprintf(player, n, "%.*s", sp ? (int)(sp - args) : 0, args);
	return g->id;
}

static void stats_forget(const struct cmd_ctx *x, const char *rest);

void cmd_stats(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	const struct command *cmd = x->cmd;
	enum locale loc = x->loc;
	const char *community = stats_community(cmd), *game, *args = x->args;
	const char *scopes[2];
	struct rows *rows = xcalloc(2, sizeof(*rows));
	struct rich r = RICH_INIT;
	struct scene sc = SCENE_INIT;
	struct buf err = BUF_INIT, msg = BUF_INIT;
	char word[16], player[256], title[64];
	struct who w;
	int k, nscopes = 0, any = 0;

	text_word(&args, word, sizeof(word));
	if (text_eq(word, "hide") || text_eq(word, "show")) {
		int hide = text_eq(word, "hide");

		if (*args) {
			session_reply_text(x->a, cmd, 1, L(loc, "Usage: `stats hide` or `stats show`.",
							   "Uso: `stats hide` o `stats show`."));
		} else if (store_player_hide(m->store, cmd->platform, cmd->user, hide, &err)) {
			log_err("stats %s: %s", word, buf_str(&err));
			session_reply_text(x->a, cmd, 1, L(loc, "That could not be stored (an internal error). Nothing changed.",
							   "No se pudo guardar (un error interno). No ha cambiado nada."));
		} else {
			session_reply_text(x->a, cmd, 1, hide
				? L(loc, "You no longer appear on leaderboards. Your stats stay, and anyone "
				    "can still ask for them; `stats show` brings you back.",
				    "Ya no apareces en las clasificaciones. Tus estadísticas siguen, y "
				    "cualquiera puede pedirlas; `stats show` te devuelve a ellas.")
				: L(loc, "You appear on leaderboards again.",
				    "Vuelves a aparecer en las clasificaciones."));
		}
		goto out;
	}
	if (text_eq(word, "forget")) {
		stats_forget(x, args);
		goto out;
	}
	game = split_game(x->args, player, sizeof(player));
	if (!resolve_player(x, player, &w)) {
		buf_setf(&msg, L(loc, "No player called “%s” has played here. Usage: `stats [player] [game]` "
				 "(a name, @mention, `ai basic` or `ai strong`).",
				 "Ningún jugador llamado «%s» ha jugado aquí. Uso: `stats [jugador] [juego]` "
				 "(un nombre, @mención, `ai basic` o `ai strong`)."), w.name);
		session_reply_text(x->a, cmd, 1, buf_str(&msg));
		goto out;
	}
	if (community[0])
		scopes[nscopes++] = community;
	scopes[nscopes++] = "";
	for (k = 0; k < nscopes; k++)
		if (store_player_ratings(m->store, cmd->platform, scopes[k], w.id, collect_rating,
					 &rows[k], &err)) {
			log_err("stats: %s", buf_str(&err));
			session_reply_text(x->a, cmd, 1, L(loc, "The stats could not be read (an internal error).",
							   "No se pudieron leer las estadísticas (un error interno)."));
			goto out;
		}
	rich_heading(&r, "%s · %s", player_label(w.id, w.name, loc),
		     game ? game_name(game, loc) : L(loc, "all games", "todos los juegos"));
	for (k = 0; k < nscopes; k++) {
		/* the platform's section when it says the same as the community's
		 * (the player played nowhere else) is left out */
		if (k && any && rows_same(&rows[0], &rows[1]))
			continue;
		any |= stats_scope(&r, &rows[k], game, scope_label(scopes[k], cmd->platform, loc, title),
				   loc);
	}
	if (!any) {
		rich_line(&r, "%s", L(loc, "No rated games yet.", "Aún no hay partidas puntuadas."));
		session_reply_rich(x->a, cmd, 1, &r);
		goto out;
	}
	/* the picture's chart reads the rating curve: not for a text answer */
	if (takes_picture(x))
		stats_scene(x, &w, rows[0].n ? &rows[0] : &rows[nscopes - 1],
			    rows[0].n ? scopes[0] : "", game, &sc);
	reply_with_picture(x, 1, &r, &sc, "stats");
out:
	free(rows);
	rich_release(&r);
	scene_release(&sc);
	buf_release(&err);
	buf_release(&msg);
}

/* `stats forget` tells what goes and asks for `stats forget confirm`
 * within FORGET_WINDOW_S (the time asked is a cursor, so the answer may
 * come to another process or after a restart). */
static void stats_forget(const struct cmd_ctx *x, const char *rest)
{
	struct session_mgr *m = x->m;
	const struct command *cmd = x->cmd;
	enum locale loc = x->loc;
	struct buf key = BUF_INIT, val = BUF_INIT, err = BUF_INIT;
	char now[32];
	int64_t at;
	int got;

	buf_setf(&key, FORGET_KEY "%s/%s", cmd->platform, cmd->user);
	if (!*rest) {
		snprintf(now, sizeof(now), "%lld", (long long)session_now(m));
		if (store_cursor_set(m->store, buf_str(&key), now, &err)) {
			log_err("stats forget: %s", buf_str(&err));
			session_reply_text(x->a, cmd, 1, L(loc, "That could not be stored (an internal error). Nothing changed.",
							   "No se pudo guardar (un error interno). No ha cambiado nada."));
		} else {
			session_reply_text(x->a, cmd, 1, L(loc,
				"This erases your ratings and their history here, and your name in past "
				"games becomes “a former player”; the games themselves stay. It cannot be "
				"undone. Type `stats forget confirm` within 5 minutes to go on.",
				"Esto borra tus puntuaciones de nivel y su historia aquí, y tu nombre en las "
				"partidas pasadas pasa a ser «un antiguo jugador»; las partidas siguen. No se "
				"puede deshacer. Escribe `stats forget confirm` en menos de 5 minutos para seguir."));
		}
		goto out;
	}
	if (!text_eq(rest, "confirm")) {
		session_reply_text(x->a, cmd, 1, L(loc, "Usage: `stats forget`, then `stats forget confirm`.",
						   "Uso: `stats forget`, y después `stats forget confirm`."));
		goto out;
	}
	got = store_cursor_get(m->store, buf_str(&key), &val, &err);
	at = got == 1 ? strtoll(buf_str(&val), NULL, 10) : 0;
	if (got < 0) {
		log_err("stats forget: %s", buf_str(&err));
		session_reply_text(x->a, cmd, 1, L(loc, "That could not be read (an internal error). Nothing changed.",
						   "No se pudo leer (un error interno). No ha cambiado nada."));
		goto out;
	}
	if (got != 1 || session_now(m) - at > FORGET_WINDOW_S || session_now(m) < at) {
		session_reply_text(x->a, cmd, 1, L(loc, "Nothing to confirm: type `stats forget` first.",
						   "Nada que confirmar: escribe antes `stats forget`."));
		goto out;
	}
	if (store_player_forget(m->store, cmd->platform, cmd->user, &err)) {
		log_err("stats forget: %s", buf_str(&err));
		session_reply_text(x->a, cmd, 1, L(loc, "That could not be stored (an internal error). Nothing changed.",
						   "No se pudo guardar (un error interno). No ha cambiado nada."));
		goto out;
	}
	buf_reset(&err);
	if (store_cursor_delete(m->store, buf_str(&key), &err))
		log_warn("stats forget: %s", buf_str(&err));
	session_reply_text(x->a, cmd, 1, L(loc, "Your record here is erased.",
					   "Tu historial aquí está borrado."));
out:
	buf_release(&key);
	buf_release(&val);
	buf_release(&err);
}

/* ---- leaderboard ---- */

/* One row of a leaderboard, as text and as a table row. */
static void board_row(struct rich *r, struct scene *sc, int n, const struct rating_rec *rr,
		      const char *user, enum locale loc)
{
	const char *who = player_label(rr->player, rr->name, loc);
	int mine = !strcmp(rr->player, user);
	double rate = rr->games ? 100.0 * rr->wins / (double)rr->games : 0.0;
	struct scene_item *it;

	rich_text(r, "%d. ", n);
	if (mine)
		rich_emph(r, "%s", who);
	else
		rich_text(r, "%s", who);
	rich_text(r, L(loc, " %.1f (μ %.1f ± %.1f), %lld games, %.0f%% wins",
		       " %.1f (μ %.1f ± %.1f), %lld partidas, %.0f%% victorias"),
		  rr->conservative, rr->mu, rr->sigma, (long long)rr->games, rate);
	if (mine)
		rich_text(r, "%s", L(loc, " ← you", " ← tú"));
	rich_newline(r);
	scene_cell(sc, "%d", n);
	it = scene_cell(sc, "%s", who);
	if (mine)
		it->flags |= SCENE_MARKED;
	scene_cell(sc, "%.1f", rr->conservative);
	scene_cell(sc, "%.1f ± %.1f", rr->mu, rr->sigma);
	scene_cell(sc, "%lld", (long long)rr->games);
	scene_cell(sc, "%.0f%%", rate);
}

/* The leaderboards read: BOARD_TOP rows per scope and game. */
struct board_rows {
	struct rating_rec v[BOARD_TOP];
	size_t n;
};

struct boards {
	const char *const *scopes;
	const char *games[STORE_BOARDS_MAX];
	int nscopes, ngames;
	struct board_rows *rows;	/* [scope * ngames + game] */
};

static int collect_board(void *ctx, const struct rating_rec *x)
{
	struct boards *b = ctx;
	int k, g;

	for (k = 0; k < b->nscopes && strcmp(b->scopes[k], x->scope); k++)
		;
	for (g = 0; g < b->ngames && strcmp(b->games[g], x->game); g++)
		;
	if (k < b->nscopes && g < b->ngames) {
		struct board_rows *br = &b->rows[k * b->ngames + g];

		if (br->n < BOARD_TOP)
			br->v[br->n++] = *x;
	}
	return 0;
}

/* Game g's leaderboards (this community's, the platform's) from b into r
 * and sc when anyone is on them: the number of rows. */
static int board_game(const struct cmd_ctx *x, const struct game_ops *ops, const struct boards *b,
		      int g, struct rich *r, struct scene *sc)
{
	enum locale loc = x->loc;
	char title[64];
	int k, total = 0;
	size_t i;

	for (k = 0; k < b->nscopes; k++)
		total += (int)b->rows[k * b->ngames + g].n;
	if (total <= 0)
		return 0;
	rich_heading(r, L(loc, "Leaderboard · %s", "Clasificación · %s"), ops->name[loc]);
	scene_title(sc, L(loc, "Leaderboard · %s", "Clasificación · %s"), ops->name[loc]);
	for (k = 0; k < b->nscopes; k++) {
		const struct board_rows *rows = &b->rows[k * b->ngames + g];

		rich_emph(r, "%s", scope_label(b->scopes[k], x->cmd->platform, loc, title));
		rich_newline(r);
		scene_line(sc, SCENE_NOTE, L(loc, "%s · conservative rating μ − 3σ · at least %d games",
					     "%s · nivel prudente μ − 3σ · al menos %d partidas"),
			   title, STATS_MIN_GAMES);
		if (!rows->n) {
			rich_line(r, L(loc, "Nobody has %d rated games yet.",
				       "Nadie tiene aún %d partidas puntuadas."), STATS_MIN_GAMES);
			continue;
		}
		scene_table(sc, 6, SCENE_EMPH);
		scene_cell(sc, "#");
		scene_cell(sc, "%s", L(loc, "Player", "Jugador"));
		scene_cell(sc, "%s", L(loc, "Rating", "Nivel"));
		scene_cell(sc, "μ ± σ");
		scene_cell(sc, "%s", L(loc, "Games", "Partidas"));
		scene_cell(sc, "%s", L(loc, "Win rate", "Victorias"));
		for (i = 0; i < rows->n; i++)
			board_row(r, sc, (int)i + 1, &rows->v[i], x->cmd->user, loc);
	}
	return total;
}

/* `leaderboard [game]`: anyone, anywhere; one game, or every game with
 * players on it. */
void cmd_leaderboard(const struct cmd_ctx *x)
{
	const struct game_ops *const *all = game_all();
	const struct game_ops *one = NULL, *ops[STORE_BOARDS_MAX];
	const char *community = stats_community(x->cmd), *scopes[2];
	enum locale loc = x->loc;
	struct boards b = { .scopes = scopes };
	struct rich r = RICH_INIT;
	struct scene sc = SCENE_INIT;
	struct buf msg = BUF_INIT, err = BUF_INIT;
	int shown = 0, g;
	size_t i;

	if (*x->args && !(one = game_find(x->args))) {
		buf_setf(&msg, L(loc, "Usage: `leaderboard [game]`. Games: %s.",
				 "Uso: `leaderboard [juego]`. Juegos: %s."), lobby_game_ids());
		session_reply_text(x->a, x->cmd, 1, buf_str(&msg));
		goto out;
	}
	if (community[0])
		scopes[b.nscopes++] = community;
	scopes[b.nscopes++] = "";
	for (i = 0; all[i] && b.ngames < STORE_BOARDS_MAX; i++)
		if (!one || all[i] == one) {
			ops[b.ngames] = all[i];
			b.games[b.ngames++] = all[i]->id;
		}
	b.rows = xcalloc((size_t)(b.nscopes * b.ngames), sizeof(*b.rows));
	/* every board in one read: one round trip on PostgreSQL, not one
	 * per game and scope (docs/performance.md, issue 26) */
	if (store_leaderboards(x->m->store, x->cmd->platform, scopes, (size_t)b.nscopes, b.games,
			       (size_t)b.ngames, STATS_MIN_GAMES, BOARD_TOP, collect_board, &b,
			       &err)) {
		log_err("leaderboard: %s", buf_str(&err));
		session_reply_text(x->a, x->cmd, 1, L(loc, "The leaderboard could not be read (an internal error).",
						      "No se pudo leer la clasificación (un error interno)."));
		goto out;
	}
	for (g = 0; g < b.ngames; g++)
		shown += board_game(x, ops[g], &b, g, &r, &sc);
	if (!shown) {
		rich_release(&r);
		rich_init(&r);
		rich_line(&r, L(loc, "No leaderboard yet: a player appears after %d rated games%s%s.",
				"Aún no hay clasificación: un jugador aparece tras %d partidas puntuadas%s%s."),
			  STATS_MIN_GAMES, one ? L(loc, " of ", " de ") : "", one ? one->name[loc] : "");
		session_reply_rich(x->a, x->cmd, cmd_private(x), &r);
		goto out;
	}
	reply_with_picture(x, cmd_private(x), &r, &sc, "leaderboard");
out:
	free(b.rows);
	rich_release(&r);
	scene_release(&sc);
	buf_release(&msg);
	buf_release(&err);
}

/* ---- history ---- */

struct hist_ctx {
	struct rich *r;
	enum locale loc;
	int n;
};

static int hist_row(void *ctx, const struct result_rec *res)
{
	struct hist_ctx *h = ctx;
	enum locale loc = h->loc;
	struct buf winners = BUF_INIT;
	char day[16], len[32];
	int i;

	h->n++;
	fmt_date(res->finished_at, day);
	fmt_length(res->finished_at - res->created, loc, len);
	rich_emph(h->r, "#%lld", (long long)res->session);
	rich_text(h->r, L(loc, " · %s · %s · %lld moves, %s%s", " · %s · %s · %lld jugadas, %s%s"),
		  day, game_name(res->game, loc), (long long)res->moves, len,
		  res->rated ? "" : L(loc, " · unrated", " · sin puntuar"));
	rich_newline(h->r);
	for (i = 0; i < res->nseats; i++) {
		const struct result_seat_rec *st = &res->seats[i];
		const char *who = player_label(st->player, st->name, loc);

		rich_text(h->r, "%s%s %lld", i ? ", " : "  ", who, (long long)st->score);
		if (st->winner)
			buf_printf(&winners, "%s%s", winners.len ? ", " : "", who);
	}
	rich_newline(h->r);
	if (winners.len)
		rich_line(h->r, L(loc, "  won by %s", "  ganó %s"), buf_str(&winners));
	else
		rich_line(h->r, "%s", L(loc, "  no winner", "  sin ganador"));
	buf_release(&winners);
	return 0;
}

/* `history [n]`: anyone, anywhere: the room's last finished games. */
void cmd_history(const struct cmd_ctx *x)
{
	const struct adapter_arg *count = commands_arg(x->def, "count");
	enum locale loc = x->loc;
	struct rich r = RICH_INIT;
	struct buf err = BUF_INIT;
	struct hist_ctx h = { &r, loc, 0 };
	long n = HISTORY_DEFAULT;

	if (*x->args) {
		char *end;

		n = strtol(x->args, &end, 10);
		if (*end || n < count->min || n > count->max) {
			session_reply_text(x->a, x->cmd, 1, L(loc, "Usage: `history [n]` (n from 1 to 20).",
							      "Uso: `history [n]` (n de 1 a 20)."));
			goto out;
		}
	}
	rich_heading(&r, "%s", L(loc, "Finished games here", "Partidas terminadas aquí"));
	if (store_results_recent(x->m->store, x->cmd->platform, x->cmd->room, (int)n, hist_row, &h,
				 &err)) {
		log_err("history: %s", buf_str(&err));
		session_reply_text(x->a, x->cmd, 1, L(loc, "The history could not be read (an internal error).",
						      "No se pudo leer el historial (un error interno)."));
		goto out;
	}
	if (!h.n)
		rich_line(&r, "%s", L(loc, "No finished games here yet.",
				      "Aún no hay partidas terminadas aquí."));
	else
		rich_line(&r, "%s", L(loc, "`log #<id>` reads a game's log.",
				      "`log #<id>` lee el registro de una partida."));
	session_reply_rich(x->a, x->cmd, cmd_private(x), &r);
out:
	rich_release(&r);
	buf_release(&err);
}

/* ---- log of an old game ---- */

/* Whether rec's stored moves replay under its game's rules now. */
static int rec_replays(const struct game_ops *g, const struct session_rec *rec)
{
	struct room_settings rs;
	unsigned now = g->rules_version ? g->rules_version : 1;

	roomset_read(rec, &rs);
	return (unsigned)rs.rules == now;
}

/*
 * `log #<id> [n|all]`: a finished or aborted game of this platform, read
 * as `log` reads the room's: the public lines to whoever asks, the
 * caller's own private lines (if they sat in it) to them alone.
 */
static void log_old(const struct cmd_ctx *x)
{
	struct session_mgr *m = x->m;
	const struct command *cmd = x->cmd;
	enum locale loc = x->loc;
	const char *args = x->args + 1, *names[GAME_MAX_SEATS];
	const struct game_ops *g = NULL;
	struct session_rec rec;
	struct capture cap;
	struct rich pub = RICH_INIT, priv = RICH_INIT;
	struct buf err = BUF_INIT;
	char word[24], *end;
	void *st = NULL;
	long long id;
	long n = 10;
	size_t i, npub = 0, first = 0, seen = 0;
	int seat = -1, export = 0, got, k;

	session_rec_init(&rec);
	text_word(&args, word, sizeof(word));
	id = strtoll(word, &end, 10);
	if (!word[0] || *end || id <= 0) {
		session_reply_text(x->a, cmd, 1, L(loc, "Usage: `log #<game id> [n|all]` (the id `history` shows).",
						   "Uso: `log #<id de partida> [n|all]` (el id que muestra `history`)."));
		goto out;
	}
	if (text_eq(args, "all")) {
		n = LONG_MAX / 2;
		export = 1;
	} else if (*args) {
		n = strtol(args, &end, 10);
		if (*end || n < 1 || n > 500) {
			session_reply_text(x->a, cmd, 1, L(loc, "Usage: `log #<game id> [n|all]` (n from 1 to 500).",
							   "Uso: `log #<id de partida> [n|all]` (n de 1 a 500)."));
			goto out;
		}
	}
	got = store_session_get(m->store, id, &rec, &err);
	if (got < 0)
		log_err("log #%lld: %s", id, buf_str(&err));
	if (got == 1)
		g = game_find(rec.game);
	/* another platform's games are not this one's to show */
	if (got != 1 || strcmp(rec.platform, cmd->platform) || !g ||
	    (rec.status != SESSION_FINISHED && rec.status != SESSION_ABORTED)) {
		buf_setf(&err, L(loc, "There is no finished game #%lld here.",
				 "No hay ninguna partida terminada #%lld aquí."), id);
		session_reply_text(x->a, cmd, 1, buf_str(&err));
		goto out;
	}
	if (!rec_replays(g, &rec)) {
		session_reply_text(x->a, cmd, 1, L(loc,
			"That game was played under an earlier version of the bot's rules, so its log "
			"cannot be replayed.",
			"Esa partida se jugó con una versión anterior de las reglas del bot, así que su "
			"registro no se puede reproducir."));
		goto out;
	}
	for (k = 0; k < rec.nseats; k++)
		if (!rec.seats[k].is_bot && !strcmp(rec.seats[k].user, cmd->user))
			seat = k;
	for (k = 0; k < GAME_MAX_SEATS; k++)
		names[k] = k < rec.nseats ? (rec.seats[k].name[0] ? rec.seats[k].name
					     : L(loc, "a former player", "un antiguo jugador")) : NULL;
	session_capture_init(&cap, loc, names);
	st = game_state_new(g);
	if (session_replay_marked(g, &rec, m->store, st, &cap.log, &cap, NULL, NULL, &err)) {
		log_err("log #%lld replay failed: %s", id, buf_str(&err));
		session_reply_text(x->a, cmd, 1, L(loc, "The log could not be read (an internal error).",
						   "No se pudo leer el registro (un error interno)."));
		goto release;
	}
	for (i = 0; i < cap.n; i++)
		npub += cap.v[i].seat == LOG_PUBLIC;
	for (i = 0; i < cap.n; i++)
		if (cap.v[i].seat == LOG_PUBLIC && seen++ + (size_t)n >= npub) {
			first = i;
			break;
		}
	if (!npub)
		first = cap.n;
	rich_heading(&pub, L(loc, "Log of #%lld · %s", "Registro de #%lld · %s"), id, g->name[loc]);
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
	session_reply_rich(x->a, cmd, export, &pub);
	if (priv.n)
		session_reply_rich(x->a, cmd, 1, &priv);
release:
	session_capture_release(&cap);
out:
	free(st);
	session_rec_release(&rec);
	rich_release(&pub);
	rich_release(&priv);
	buf_release(&err);
}

/* `log`: `log #<id>` reads an old game anywhere; the rest is the room's
 * game's log (bot/info.c), which needs a game with a board. */
void cmd_log_any(const struct cmd_ctx *x)
{
	if (x->args[0] == '#') {
		log_old(x);
		return;
	}
	if (!x->s || x->s->rec.status == SESSION_LOBBY || !x->s->st) {
		cmd_refused(x->m);
		session_reply_text(x->a, x->cmd, 1, L(x->loc, "No game is being played here.",
						      "Aquí no se está jugando ninguna partida."));
		return;
	}
	cmd_log(x);
}
