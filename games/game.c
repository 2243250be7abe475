/*
 * The generic layer over struct game_ops: forgiving move parsing and the
 * small helpers games share (log lines, names, locales, rule topics, saving
 * a state by a table of fields).
 */
#include "games/game.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

const char *locale_code(enum locale loc)
{
	return loc == LOC_ES ? "es" : "en";
}

int locale_parse(const char *code, enum locale *out)
{
	if (!code)
		return -1;
	if (!strncmp(code, "en", 2) && (code[2] == '\0' || code[2] == '-' || code[2] == '_')) {
		*out = LOC_EN;
		return 0;
	}
	if (!strncmp(code, "es", 2) && (code[2] == '\0' || code[2] == '-' || code[2] == '_')) {
		*out = LOC_ES;
		return 0;
	}
	return -1;
}

void game_logf(struct game_log *log, int seat, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!log || !log->emit)
		return;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	log->emit(log, seat, buf_str(&b));
	buf_release(&b);
}

static const char *const seat_names[GAME_MAX_SEATS] = {
	"Seat 1", "Seat 2", "Seat 3", "Seat 4", "Seat 5", "Seat 6", "Seat 7", "Seat 8",
};

const char *game_log_name(const struct game_log *log, int seat)
{
	if (seat < 0 || seat >= GAME_MAX_SEATS)
		return "?";
	if (log && log->names && log->names[seat])
		return log->names[seat];
	return seat_names[seat];
}

const char *game_view_name(const struct game_view *v, int seat)
{
	if (seat < 0 || seat >= GAME_MAX_SEATS)
		return "?";
	if (v && v->names && seat < v->nseats && v->names[seat])
		return v->names[seat];
	return seat_names[seat];
}

void game_move_label(const struct game_ops *ops, const void *st, int seat, struct move m,
		     const struct game_view *v, struct buf *out)
{
	if (ops->move_label_view)
		ops->move_label_view(st, seat, m, v, out);
	else
		ops->move_label(st, seat, m, v && v->loc < LOC_COUNT ? v->loc : LOC_EN, out);
}

void *game_state_new(const struct game_ops *ops)
{
	return xcalloc(1, ops->state_size);
}

/* ---- forgiving parsing ---- */

/* The texts a move answers to, folded: its id and its label in each locale. */
static void move_texts(const struct game_ops *ops, const void *st, int seat,
		       struct move m, struct buf folded[1 + LOC_COUNT])
{
	struct buf raw = BUF_INIT;
	int l;

	ops->move_id(st, seat, m, &raw);
	text_fold(buf_str(&raw), &folded[0]);
	for (l = 0; l < LOC_COUNT; l++) {
		buf_reset(&raw);
		ops->move_label(st, seat, m, (enum locale)l, &raw);
		text_fold(buf_str(&raw), &folded[1 + l]);
	}
	buf_release(&raw);
}

static int is_number(const char *s, int *out)
{
	int v = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000)
			return 0;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 1;
}

#define MAX_CANDIDATES_SHOWN 10

/* The word-th word (0-based) of folded text, into w (n bytes); 0 if none. */
static int nth_word(const char *s, int word, char *w, size_t n)
{
	int k = 0;

	while (*s) {
		const char *e = strchr(s, ' ');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (k++ == word) {
			if (len >= n)
				len = n - 1;
			memcpy(w, s, len);
			w[len] = '\0';
			return 1;
		}
		s += len + (e ? 1 : 0);
	}
	return 0;
}

static int word_count(const char *s)
{
	int n = *s != '\0';

	for (; *s; s++)
		n += *s == ' ';
	return n;
}

static int all_digits(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (*w < '0' || *w > '9')
			return 0;
	return 1;
}

/*
 * An amount the moves do not take: "offer -3", "give 3x", "bid 2.5",
 * "offer 999999".  When a word of the folded input looks like a number
 * and is not a whole number of 0 or more, err says so; and when moves
 * have the same words with a number in its place ("offer 4" ... "offer
 * 7"), err says which amounts are possible now.  Returns 1 with err
 * written, 0 when the input holds no such word (nothing written).
 */
static int amount_refusal(const struct game_ops *ops, const void *st, int seat,
			  const struct move_list *ml, const char *in, enum locale loc,
			  struct buf *err)
{
	char w[64], a[64], b[64];
	struct buf id = BUF_INIT, folded = BUF_INIT;
	int nw = word_count(in), j, i, k, lo = -1, hi = -1, count = 0, more = 0, bad;

	for (j = 0; j < nw && nth_word(in, j, w, sizeof(w)); j++)
		if ((w[0] >= '0' && w[0] <= '9') ||
		    ((w[0] == '-' || w[0] == '+') && w[1] >= '0' && w[1] <= '9'))
			break;
	if (j == nw)
		return 0;
	bad = !all_digits(w) || strlen(w) > 6;
	/* the same words with a whole number in place of word j */
	for (i = 0; i < ml->n; i++) {
		buf_reset(&id);
		buf_reset(&folded);
		ops->move_id(st, seat, ml->v[i], &id);
		text_fold(buf_str(&id), &folded);
		if (!strcmp(buf_str(&folded), "more"))
			more = 1;
		if (word_count(buf_str(&folded)) != nw)
			continue;
		for (k = 0; k < nw; k++) {
			nth_word(in, k, a, sizeof(a));
			nth_word(buf_str(&folded), k, b, sizeof(b));
			if (k == j ? !all_digits(b) || strlen(b) > 6 : strcmp(a, b) != 0)
				break;
		}
		if (k < nw)
			continue;
		nth_word(buf_str(&folded), j, b, sizeof(b));
		k = atoi(b);
		lo = count && lo < k ? lo : k;
		hi = count && hi > k ? hi : k;
		count++;
	}
	buf_release(&id);
	buf_release(&folded);
	if (!bad && !count)
		return 0;	/* a plain number no move has: "No move matches" */
	if (w[0] == '-')
		buf_setf(err, L(loc, "\"%s\" is not an amount: amounts are whole numbers, 0 or more.",
				"«%s» no es una cantidad: las cantidades son números enteros, de 0 en adelante."),
			 w);
	else if (bad && all_digits(w))
		buf_setf(err, L(loc, "%s is far more than any amount here.",
				"%s es mucho más que cualquier cantidad posible."), w);
	else if (bad)
		buf_setf(err, L(loc, "\"%s\" is not a whole number.", "«%s» no es un número entero."), w);
	else
		buf_setf(err, L(loc, "No move matches \"%s\".", "Ninguna jugada coincide con \"%s\"."),
			 in);
	if (!count) {
		buf_addstr(err, L(loc, " Type `moves` to see yours.", " Escribe `moves` para ver las tuyas."));
		return 1;
	}
	if (count == 1)
		buf_printf(err, L(loc, " The amount possible now: %d.", " La cantidad posible ahora: %d."), lo);
	else if (hi - lo + 1 == count)
		buf_printf(err, L(loc, " Amounts possible now: %d to %d.", " Cantidades posibles ahora: de %d a %d."),
			   lo, hi);
	else
		buf_printf(err, L(loc, " Amounts possible now: %d of %d to %d (see `moves`).",
				  " Cantidades posibles ahora: %d entre %d y %d (ver `moves`)."), count, lo, hi);
	if (more)
		buf_addstr(err, L(loc, " `more` lists higher ones.", " `more` muestra otras mayores."));
	return 1;
}

/* The index of the move whose folded text k (0: id; 1..: a label) is
 * exactly `folded`, -1 if none. */
static int exact_move(const struct game_ops *ops, const void *st, int seat,
		      const struct move_list *ml, const char *folded, int ids_only)
{
	struct buf t[1 + LOC_COUNT];
	int i, k, hit = -1;

	for (k = 0; k < 1 + LOC_COUNT; k++)
		buf_init(&t[k], 0);
	for (i = 0; i < ml->n && hit < 0 && *folded; i++) {
		for (k = 0; k < 1 + LOC_COUNT; k++)
			buf_reset(&t[k]);
		move_texts(ops, st, seat, ml->v[i], t);
		for (k = 0; k < (ids_only ? 1 : 1 + LOC_COUNT); k++)
			if (!strcmp(buf_str(&t[k]), folded))
				hit = i;
	}
	for (k = 0; k < 1 + LOC_COUNT; k++)
		buf_release(&t[k]);
	return hit;
}

/*
 * A line pasted whole from the `moves` list: " 3. hide fortuna  — Keep
 * Fortuna card face down" (its number, its id, an em dash, its label; any
 * of them may be missing).  Players copy what the bot showed them, so the
 * line is read as the move its id (or else its label) names; the number
 * is ignored, since the list may have changed since it was shown.  Returns
 * the move's index, -1 when the text is not such a line or names no move,
 * -2 when its id and label name two different moves.
 */
static int pasted_line(const struct game_ops *ops, const void *st, int seat,
		       const struct move_list *ml, const char *text)
{
	static const char dash[] = "\xe2\x80\x94";	/* U+2014, as add_moves writes */
	const char *p = text, *d;
	struct buf id = BUF_INIT, label = BUF_INIT;
	int by_id = -1, by_label = -1, numbered = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p >= '0' && *p <= '9') {
		const char *q = p;

		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '.' || *q == ')') {
			p = q + 1;
			numbered = 1;
		}
	}
	d = strstr(p, dash);
	if (!d && !numbered)
		return -1;
	if (d) {
		struct buf raw = BUF_INIT;

		buf_add(&raw, p, (size_t)(d - p));
		text_fold(buf_str(&raw), &id);
		text_fold(d + strlen(dash), &label);
		buf_release(&raw);
	} else {
		text_fold(p, &id);
	}
	by_id = exact_move(ops, st, seat, ml, buf_str(&id), 1);
	by_label = exact_move(ops, st, seat, ml, buf_str(&label), 0);
	if (by_id < 0 && !label.len)	/* "3. hide fortuna": also a label */
		by_id = exact_move(ops, st, seat, ml, buf_str(&id), 0);
	buf_release(&id);
	buf_release(&label);
	if (by_id >= 0 && by_label >= 0 && by_id != by_label)
		return -2;
	return by_id >= 0 ? by_id : by_label;
}

/* The game's reason why the folded text cannot be played now, in err:
 * 1, or 0 when the game has none. */
static int near_miss(const struct game_ops *ops, const void *st, int seat, const char *folded,
		     enum locale loc, struct buf *err)
{
	struct buf why = BUF_INIT;
	int any;

	ops->near_miss(st, seat, folded, loc, &why);
	any = why.len > 0;
	if (any) {
		buf_setf(err, "%s", buf_str(&why));
		buf_addstr(err, L(loc, " Type `moves` to see yours.", " Escribe `moves` para ver las tuyas."));
	}
	buf_release(&why);
	return any;
}

int game_parse(const struct game_ops *ops, const void *st, int seat,
	       const char *text, enum locale loc, struct move *out, struct buf *err)
{
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf in = BUF_INIT, t[1 + LOC_COUNT];
	int i, k, exact = -1, nprefix = 0, number, ret = -1;
	int *prefix = NULL;

	for (k = 0; k < 1 + LOC_COUNT; k++)
		buf_init(&t[k], 0);
	if (seat < 0 || !(ops->awaiting(st) & (1u << seat))) {
		buf_setf(err, "%s", L(loc, "It is not your turn to decide.",
				      "No te toca decidir ahora."));
		goto out;
	}
	ops->moves(st, seat, ml);
	text_fold(text, &in);
	if (!in.len) {
		buf_setf(err, "%s", L(loc, "Which move? Type `moves` to see them.",
				      "¿Qué jugada? Escribe `moves` para verlas."));
		goto out;
	}
	prefix = xcalloc((size_t)ml->n + 1, sizeof(*prefix));
	for (i = 0; i < ml->n && exact < 0; i++) {
		int is_prefix = 0;

		for (k = 0; k < 1 + LOC_COUNT; k++)
			buf_reset(&t[k]);
		move_texts(ops, st, seat, ml->v[i], t);
		for (k = 0; k < 1 + LOC_COUNT; k++) {
			const char *s = buf_str(&t[k]);

			if (!strcmp(s, buf_str(&in)))
				exact = i;
			else if (!strncmp(s, buf_str(&in), in.len))
				is_prefix = 1;
		}
		if (is_prefix)
			prefix[nprefix++] = i;
	}
	if (exact >= 0) {
		*out = ml->v[exact];
		ret = 0;
	} else if (nprefix == 1) {
		*out = ml->v[prefix[0]];
		ret = 0;
	} else if (nprefix == 0 && is_number(buf_str(&in), &number) &&
		   number >= 1 && number <= ml->n) {
		*out = ml->v[number - 1];
		ret = 0;
	} else if ((k = pasted_line(ops, st, seat, ml, text)) >= 0) {
		*out = ml->v[k];
		ret = 0;
	} else if (k == -2) {
		buf_setf(err, "%s", L(loc, "That line's move and its description do not match. "
				      "Type `moves` for the current list.",
				      "La jugada de esa línea y su descripción no coinciden. "
				      "Escribe `moves` para ver la lista actual."));
	} else if (nprefix == 0 && ops->near_miss && near_miss(ops, st, seat, buf_str(&in), loc, err)) {
		/* the game says why that move is not possible now */
	} else if (nprefix == 0 && amount_refusal(ops, st, seat, ml, buf_str(&in), loc, err)) {
		/* a negative or malformed amount, or one no move takes */
	} else if (nprefix == 0) {
		buf_setf(err, L(loc, "No move matches \"%s\". Type `moves` to see yours.",
				"Ninguna jugada coincide con \"%s\". Escribe `moves` para ver las tuyas."),
			 buf_str(&in));
	} else {
		struct buf label = BUF_INIT;

		buf_setf(err, "%s", L(loc, "That could be several moves:",
				      "Eso puede ser varias jugadas:"));
		for (i = 0; i < nprefix && i < MAX_CANDIDATES_SHOWN; i++) {
			buf_reset(&label);
			ops->move_id(st, seat, ml->v[prefix[i]], &label);
			buf_printf(err, "\n- %s", buf_str(&label));
		}
		if (nprefix > MAX_CANDIDATES_SHOWN)
			buf_printf(err, L(loc, "\n(and %d more)", "\n(y %d más)"),
				   nprefix - MAX_CANDIDATES_SHOWN);
		buf_release(&label);
	}
out:
	for (k = 0; k < 1 + LOC_COUNT; k++)
		buf_release(&t[k]);
	buf_release(&in);
	free(prefix);
	free(ml);
	return ret;
}

int game_play(const struct game_ops *ops, void *st, int seat, const char *text,
	      struct game_log *log, enum locale loc, struct buf *err)
{
	struct move m;

	if (game_parse(ops, st, seat, text, loc, &m, err))
		return -1;
	return ops->apply(st, seat, m, log, err);
}

int game_lookup(const char *query, int n, game_key_fn key, int *cand, int *nc)
{
	struct buf fk = BUF_INIT, fq = BUF_INIT;
	const char *folded;
	size_t qlen;
	int tier, i, k;

	*nc = 0;
	text_fold(query, &fq);
	folded = buf_str(&fq);
	qlen = strlen(folded);
	if (!qlen) {
		buf_release(&fq);
		return -1;
	}
	/* tier 0: exact name; 1: exact id; 2: prefix of anything */
	for (tier = 0; tier < 3 && !*nc; tier++) {
		for (i = 0; i < n && *nc < GAME_LOOKUP_MAX; i++) {
			int hit = 0;

			for (k = 0; k < 3 && !hit; k++) {
				if ((tier == 0 && k == 0) || (tier == 1 && k != 0))
					continue;
				buf_reset(&fk);
				key(i, k, &fk);
				if (tier < 2)
					hit = !strcmp(buf_str(&fk), folded);
				else
					hit = !strncmp(buf_str(&fk), folded, qlen);
			}
			if (hit)
				cand[(*nc)++] = i;
		}
	}
	buf_release(&fk);
	buf_release(&fq);
	return *nc == 1 ? cand[0] : -1;
}

int game_card_unknown(const char *name, const int *cand, int nc, game_name_fn name_of,
		      enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int i;

	if (nc == 0) {
		rich_line(out, L(loc, "No such card: %s", "No existe la carta: %s"),
			  name ? name : "");
		return -1;
	}
	rich_line(out, "%s", L(loc, "Which card do you mean?", "¿Qué carta quieres decir?"));
	for (i = 0; i < nc; i++) {
		buf_reset(&b);
		name_of(cand[i], loc, &b);
		rich_line(out, "\xe2\x80\xa2 %s", buf_str(&b));	/* a bullet */
	}
	buf_release(&b);
	return -1;
}

void game_rich_lines(const char *text, struct rich *out)
{
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);

		rich_line(out, "%.*s", n, p);
		p += n;
		if (*p)
			p++;
	}
}

static void topic_list(const struct game_topic *topics, int n, enum locale loc,
		       struct rich *out)
{
	struct buf b = BUF_INIT;
	int i;

	rich_heading(out, "%s", L(loc, "Topics", "Temas"));
	for (i = 0; i < n; i++) {
		buf_addpad(&b, topics[i].id, 12);
		buf_printf(&b, "%s%s", topics[i].name[loc], i + 1 < n ? "\n" : "");
	}
	rich_mono(out, buf_str(&b));
	buf_release(&b);
}

int game_rules_render(const char *game, const struct game_topic *topics, int n, int t,
		      const char *query, enum locale loc, struct rich *out)
{
	if (t == -2) {
		rich_line(out, L(loc, "No such topic: %s", "No existe el tema: %s"), query);
		topic_list(topics, n, loc, out);
		return -1;
	}
	if (t < 0)
		rich_heading(out, L(loc, "%s: overview", "%s: resumen"), game);
	else
		rich_heading(out, "%s: %s", game, topics[t].name[loc]);
	game_rich_lines(topics[t < 0 ? 0 : t].text[loc], out);
	if (topics[t < 0 ? 0 : t].extra)
		topics[t < 0 ? 0 : t].extra(loc, out);
	if (t < 0)
		topic_list(topics, n, loc, out);
	return 0;
}

/* ---- save() and load() by a table of fields ---- */

static json_t *field_byte(uint8_t v, int nullable)
{
	return json_integer(nullable && v == GAME_FIELD_NONE ? -1 : v);
}

static json_t *field_bytes(const uint8_t *v, int n, int nullable)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, field_byte(v[i], nullable));
	return a;
}

void game_fields_save(json_t *obj, const void *base, const struct game_field *f, size_t n,
		      int nplayers)
{
	const uint8_t *b = base;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		const uint8_t *v = b + f[i].off;
		json_t *val = NULL;
		uint16_t w;
		int32_t d;

		switch (f[i].kind) {
		case GAME_FIELD_U8:
			val = field_byte(*v, f[i].nullable);
			break;
		case GAME_FIELD_U16:
			memcpy(&w, v, sizeof(w));
			val = json_integer(w);
			break;
		case GAME_FIELD_I32:
			memcpy(&d, v, sizeof(d));
			val = json_integer(d);
			break;
		case GAME_FIELD_FIXED:
			val = field_bytes(v, f[i].len, f[i].nullable);
			break;
		case GAME_FIELD_COUNTED:
			val = field_bytes(v, b[f[i].count_off], 0);
			break;
		case GAME_FIELD_SEATS:
			val = field_bytes(v, nplayers, 0);
			break;
		case GAME_FIELD_GRID:
			val = json_array();
			for (r = 0; r < f[i].rows; r++)
				json_array_append_new(val, field_bytes(v + r * f[i].len,
								       f[i].len, 0));
			break;
		case GAME_FIELD_NAME:
			val = json_string(*v < f[i].len ? f[i].names[*v] : "?");
			break;
		}
		json_object_set_new(obj, f[i].name, val);
	}
}

int game_json_int(const json_t *v, json_int_t lo, json_int_t hi, json_int_t *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	if (x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int load_byte(const json_t *v, int max, int nullable, uint8_t *out)
{
	json_int_t x;

	if (game_json_int(v, nullable ? -1 : 0, max, &x))
		return -1;
	*out = x < 0 ? GAME_FIELD_NONE : (uint8_t)x;
	return 0;
}

/* An array of minlen..maxlen bytes into out; its length to *len (may be NULL). */
static int load_bytes(const json_t *a, int minlen, int maxlen, int max, int nullable,
		      uint8_t *out, int *len)
{
	size_t i, n;

	if (!json_is_array(a))
		return -1;
	n = json_array_size(a);
	if (n < (size_t)minlen || n > (size_t)maxlen)
		return -1;
	for (i = 0; i < n; i++)
		if (load_byte(json_array_get(a, i), max, nullable, &out[i]))
			return -1;
	if (len)
		*len = (int)n;
	return 0;
}

static int load_name(const json_t *v, const char *const *names, int n, uint8_t *out)
{
	int k;

	if (!json_is_string(v))
		return -1;
	for (k = 0; k < n; k++)
		if (names[k] && !strcmp(json_string_value(v), names[k])) {
			*out = (uint8_t)k;
			return 0;
		}
	return -1;
}

static int load_field(const json_t *v, uint8_t *b, const struct game_field *f, int nplayers)
{
	uint8_t *dst = b + f->off;
	json_int_t x;
	uint16_t w;
	int32_t d;
	int r, len;

	switch (f->kind) {
	case GAME_FIELD_U8:
		return load_byte(v, f->max, f->nullable, dst);
	case GAME_FIELD_U16:
		if (game_json_int(v, 0, f->max, &x))
			return -1;
		w = (uint16_t)x;
		memcpy(dst, &w, sizeof(w));
		return 0;
	case GAME_FIELD_I32:
		if (game_json_int(v, f->min, f->max, &x))
			return -1;
		d = (int32_t)x;
		memcpy(dst, &d, sizeof(d));
		return 0;
	case GAME_FIELD_FIXED:
		return load_bytes(v, f->len, f->len, f->max, f->nullable, dst, NULL);
	case GAME_FIELD_COUNTED:
		if (load_bytes(v, 0, f->len, f->max, 0, dst, &len))
			return -1;
		b[f->count_off] = (uint8_t)len;
		return 0;
	case GAME_FIELD_SEATS:
		return load_bytes(v, nplayers, nplayers, f->max, 0, dst, NULL);
	case GAME_FIELD_GRID:
		if (!json_is_array(v) || json_array_size(v) != (size_t)f->rows)
			return -1;
		for (r = 0; r < f->rows; r++)
			if (load_bytes(json_array_get(v, (size_t)r), f->len, f->len, f->max, 0,
				       dst + r * f->len, NULL))
				return -1;
		return 0;
	case GAME_FIELD_NAME:
		return load_name(v, f->names, f->len, dst);
	}
	return -1;
}

int game_fields_load(const json_t *obj, void *base, const struct game_field *f, size_t n,
		     int nplayers, const struct game_field **bad)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (load_field(json_object_get(obj, f[i].name), base, &f[i], nplayers)) {
			*bad = &f[i];
			return -1;
		}
	return 0;
}
