/*
 * mxhtml: rich text -> Matrix m.notice contents (body, HTML, m.mentions),
 * split into events that fit.  The rules are in mxhtml.h.
 *
 * How it works: the rich is first cut into tokens (runs of text without a
 * newline, newlines, mentions and room links, tag opens and closes).
 * Messages are then filled greedily a "line" at a time (a line ends after a
 * newline or a block's close), so cuts fall at line ends whenever a line
 * fits in a message of its own; a longer line is cut between code points.
 * The cost of everything is counted exactly as jansson will serialise it, so
 * the budget check is a promise, not an estimate.  A tag open at a cut
 * (<strong>, <h4>, <pre><code>) is closed at the end of one message and
 * reopened at the start of the next.
 */
#include "adapters/matrix/mxhtml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/rich.h"
#include "util/text.h"

/* Serialised bytes allowed for body + formatted_body + user ids: the rest of
 * the object (keys, msgtype, format, brackets) takes < 160 bytes. */
#define MSG_JSON_BUDGET (MX_EVENT_MAX - 1024 - 512)
/* Room kept for closing an open tag at a cut. */
#define CLOSE_RESERVE 32
/* A mention or room whose name is longer than this is shown as plain text. */
#define MENTION_NAME_MAX 1024
#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

enum ctx { CTX_NONE, CTX_STRONG, CTX_H4, CTX_PRE };

static const char *const open_tag[] = {
	[CTX_NONE] = "", [CTX_STRONG] = "<strong>", [CTX_H4] = "<h4>",
	[CTX_PRE] = "<pre><code>",
};
static const char *const close_tag[] = {
	[CTX_NONE] = "", [CTX_STRONG] = "</strong>", [CTX_H4] = "</h4>",
	[CTX_PRE] = "</code></pre>",
};

/* ---- user and room ids ------------------------------------------------ */

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Historical user id localparts allow a little more than today's
 * [a-z0-9._=/+-]; upper case is kept, anything else is refused. */
static int localpart_char(char c)
{
	return is_alnum(c) || strchr("._=-/+", c) != NULL;
}

/* "host[:port]" at s, the whole rest of the string. */
static int server_name_valid(const char *host)
{
	size_t i;

	if (*host == '[') {
		for (i = 1; host[i] && host[i] != ']'; i++)
			if (!is_hex(host[i]) && host[i] != ':' && host[i] != '.')
				return 0;
		if (i == 1 || host[i] != ']')
			return 0;
		i++;
	} else {
		for (i = 0; host[i] && host[i] != ':'; i++)
			if (!is_alnum(host[i]) && host[i] != '-' && host[i] != '.')
				return 0;
		if (i == 0)
			return 0;
	}
	if (host[i] == ':') {
		size_t d;

		for (d = 0, i++; host[i]; i++, d++)
			if (host[i] < '0' || host[i] > '9')
				return 0;
		if (d < 1 || d > 5)
			return 0;
	}
	return host[i] == '\0';
}

int mx_user_id_valid(const char *s)
{
	size_t i;

	if (!s || s[0] != '@' || strlen(s) > 255)
		return 0;
	for (i = 1; s[i] && s[i] != ':'; i++)
		if (!localpart_char(s[i]))
			return 0;
	if (i == 1 || s[i] != ':')
		return 0;
	return server_name_valid(s + i + 1);
}

/*
 * A room id "!opaque:server" or alias "#alias:server".  The part before the
 * first ':' may be any printable ASCII but ':' (add_link_target
 * percent-encodes what a URL cannot hold); no spaces, controls or non-ASCII.
 */
static int room_id_valid(const char *s)
{
	size_t i;

	if (!s || (s[0] != '!' && s[0] != '#') || strlen(s) > 255)
		return 0;
	for (i = 1; s[i] && s[i] != ':'; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return 0;
	if (i == 1 || s[i] != ':')
		return 0;
	return server_name_valid(s + i + 1);
}

/* The matrix.to link of a valid id: only [A-Za-z0-9.-_~@:] stay as they are. */
static void add_link_target(struct buf *b, const char *id);

/* A span's link target: a LINK's own address (rich_link_safe() checked
 * it: nothing to escape), a mention's or a room's matrix.to address. */
static void add_span_target(struct buf *b, const struct rich_span *span)
{
	if (span->kind == RICH_LINK)
		buf_addstr(b, span->text);
	else
		add_link_target(b, span->user);
}

static void add_link_target(struct buf *b, const char *id)
{
	static const char hex[] = "0123456789ABCDEF";

	buf_addstr(b, "https://matrix.to/#/");
	for (; *id; id++) {
		unsigned char c = (unsigned char)*id;

		if (is_alnum((char)c) || strchr(".-_~@:", c)) {
			buf_addch(b, (char)c);
		} else {
			buf_addch(b, '%');
			buf_addch(b, hex[c >> 4]);
			buf_addch(b, hex[c & 15]);
		}
	}
}

/* ---- code points ------------------------------------------------------ */

/*
 * Renders the code point at s (n > 0 bytes left): its body bytes and its
 * HTML.  Malformed UTF-8 and control characters other than tab become U+FFFD
 * (jansson refuses the former, clients mangle the latter).  Returns the
 * number of input bytes consumed.
 */
static size_t render_cp(const char *s, size_t n, const char **body, size_t *bn,
			const char **html, size_t *hn, char tmp[4])
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;
	size_t k = utf8_decode(u, n, &cp);

	if (!k || (k == 1 && ((u[0] < 0x20 && u[0] != '\t') || u[0] == 0x7f))) {
		*body = *html = REPLACEMENT;
		*bn = *hn = 3;
		return k ? k : 1;
	}
	memcpy(tmp, s, k);
	*body = tmp;
	*bn = k;
	*html = tmp;
	*hn = k;
	if (k == 1) {
		switch (s[0]) {
		case '&': *html = "&amp;"; *hn = 5; break;
		case '<': *html = "&lt;"; *hn = 4; break;
		case '>': *html = "&gt;"; *hn = 4; break;
		case '"': *html = "&quot;"; *hn = 6; break;
		case '\'': *html = "&#39;"; *hn = 5; break;
		default: break;
		}
	}
	return k;
}

/* Bytes jansson writes for these string bytes (inside the quotes). */
static size_t json_cost(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\' || ch == '\n' || ch == '\t' || ch == '\r' ||
		    ch == '\b' || ch == '\f')
			c += 2;
		else if (ch < 0x20)
			c += 6;
		else
			c++;
	}
	return c;
}

/* ---- tokens ----------------------------------------------------------- */

enum tok_kind {
	TK_TEXT,	/* s[0..n): no '\n' */
	TK_NL,		/* body "\n"; HTML "<br>", or "\n" inside <pre> */
	TK_MENTION,	/* span: a valid id, a short name */
	TK_ROOM,	/* span: a valid room id or alias, a short name */
	TK_LINK,	/* span: a web address rich_link_safe() accepts */
	TK_OPEN,	/* HTML open tag of ctx */
	TK_CLOSE,	/* HTML close tag of ctx; body "\n" after a block */
	TK_BNL,		/* body-only "\n" before a block */
};

struct tok {
	enum tok_kind kind;
	enum ctx ctx;
	const char *s;
	size_t n;
	const struct rich_span *span;
};

struct toks {
	struct tok *v;
	size_t n, cap;
};

static void tok_push(struct toks *t, enum tok_kind kind, enum ctx ctx, const char *s,
		     size_t n, const struct rich_span *span)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n].kind = kind;
	t->v[t->n].ctx = ctx;
	t->v[t->n].s = s;
	t->v[t->n].n = n;
	t->v[t->n].span = span;
	t->n++;
}

/* Text with its newlines as TK_NL. */
static void tok_text(struct toks *t, enum ctx ctx, const char *s, size_t n)
{
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n;

		if (k)
			tok_push(t, TK_TEXT, ctx, s, k, NULL);
		if (!nl)
			break;
		tok_push(t, TK_NL, ctx, NULL, 0, NULL);
		s += k + 1;
		n -= k + 1;
	}
}

static const char *mention_name(const struct rich_span *s)
{
	if (s->text && *s->text)
		return s->text;
	return s->user && *s->user ? s->user : "?";
}

static void tokenize(const struct rich *r, struct toks *t)
{
	size_t i;
	int at_bol = 1;

	for (i = 0; i < r->n; i++) {
		const struct rich_span *s = &r->v[i];
		const char *txt = s->text ? s->text : "";
		size_t n = strlen(txt);

		switch (s->kind) {
		case RICH_TEXT:
			tok_text(t, CTX_NONE, txt, n);
			at_bol = 0;
			break;
		case RICH_EMPH:
			if (!n)
				break;
			tok_push(t, TK_OPEN, CTX_STRONG, NULL, 0, NULL);
			tok_text(t, CTX_STRONG, txt, n);
			tok_push(t, TK_CLOSE, CTX_STRONG, NULL, 0, NULL);
			at_bol = 0;
			break;
		case RICH_MENTION: {
			const char *name = mention_name(s);

			if (mx_user_id_valid(s->user) && strlen(name) <= MENTION_NAME_MAX)
				tok_push(t, TK_MENTION, CTX_NONE, NULL, 0, s);
			else
				tok_text(t, CTX_NONE, name, strlen(name));
			at_bol = 0;
			break;
		}
		case RICH_ROOM: {
			const char *name = mention_name(s);

			if (room_id_valid(s->user) && strlen(name) <= MENTION_NAME_MAX)
				tok_push(t, TK_ROOM, CTX_NONE, NULL, 0, s);
			else
				tok_text(t, CTX_NONE, name, strlen(name));
			at_bol = 0;
			break;
		}
		case RICH_LINK:
			if (rich_link_safe(txt))
				tok_push(t, TK_LINK, CTX_NONE, NULL, 0, s);
			else
				tok_text(t, CTX_NONE, txt, n);
			at_bol = 0;
			break;
		case RICH_NEWLINE:
			tok_push(t, TK_NL, CTX_NONE, NULL, 0, NULL);
			at_bol = 1;
			break;
		case RICH_HEADING:
		case RICH_MONO: {
			enum ctx c = s->kind == RICH_HEADING ? CTX_H4 : CTX_PRE;

			if (!n)
				break;
			if (!at_bol)
				tok_push(t, TK_BNL, CTX_NONE, NULL, 0, NULL);
			tok_push(t, TK_OPEN, c, NULL, 0, NULL);
			if (c == CTX_PRE && txt[n - 1] == '\n')
				n--;	/* the close ends the block's last line */
			tok_text(t, c, txt, n);
			tok_push(t, TK_CLOSE, c, NULL, 0, NULL);
			at_bol = 1;
			break;
		}
		}
	}
}

/* ---- messages --------------------------------------------------------- */

struct msg {
	struct buf body, html;
	json_t *users;
	size_t json;		/* serialised cost of body + html + users */
	enum ctx open;		/* tag open at the end of html */
	int content;		/* anything besides a reopened tag */
};

struct out {
	json_t *arr;
	struct msg m;
	int split;		/* 0: one message, no limits (mx_plain_body) */
};

static void msg_start(struct out *o, enum ctx reopen)
{
	struct msg *m = &o->m;

	buf_init(&m->body, 0);
	buf_init(&m->html, 0);
	m->users = json_array();
	m->json = 0;
	m->content = 0;
	m->open = reopen;
	if (reopen != CTX_NONE) {
		buf_addstr(&m->html, open_tag[reopen]);
		m->json += json_cost(open_tag[reopen], strlen(open_tag[reopen]));
	}
}

static int fits(const struct out *o, size_t body, size_t json)
{
	const struct msg *m = &o->m;

	if (!o->split)
		return 1;
	return m->body.len + body < MX_BODY_SPLIT &&
	       m->json + json + CLOSE_RESERVE <= MSG_JSON_BUDGET;
}

static void add_body(struct msg *m, const char *s, size_t n)
{
	buf_add(&m->body, s, n);
	m->json += json_cost(s, n);
}

static void add_html(struct msg *m, const char *s, size_t n)
{
	buf_add(&m->html, s, n);
	m->json += json_cost(s, n);
}

static int has_user(const json_t *users, const char *id)
{
	size_t i;

	for (i = 0; i < json_array_size(users); i++)
		if (!strcmp(json_string_value(json_array_get(users, i)), id))
			return 1;
	return 0;
}

static int ends_with(const struct buf *b, const char *suffix)
{
	size_t n = strlen(suffix);

	return b->len >= n && !memcmp(b->s + b->len - n, suffix, n);
}

static void trim(struct buf *b, const char *suffix)
{
	while (ends_with(b, suffix))
		b->len -= strlen(suffix);
	if (b->s)
		b->s[b->len] = '\0';
}

/* Ends the current message (closing its open tag) into o->arr. */
static void msg_finish(struct out *o)
{
	struct msg *m = &o->m;
	json_t *c = json_object(), *mentions = json_object();
	json_t *body, *html;

	trim(&m->body, "\n");
	if (m->open == CTX_PRE)
		trim(&m->html, "\n");
	else
		trim(&m->html, "<br>");
	buf_addstr(&m->html, close_tag[m->open]);
	body = json_stringn(buf_str(&m->body), m->body.len);
	html = json_stringn(buf_str(&m->html), m->html.len);
	/* every byte went through render_cp: cannot be invalid UTF-8 */
	json_object_set_new(c, "msgtype", json_string("m.notice"));
	json_object_set_new(c, "body", body ? body : json_string(""));
	json_object_set_new(c, "format", json_string("org.matrix.custom.html"));
	json_object_set_new(c, "formatted_body", html ? html : json_string(""));
	json_object_set_new(mentions, "user_ids", m->users);
	json_object_set_new(c, "m.mentions", mentions);
	json_array_append_new(o->arr, c);
	buf_release(&m->body);
	buf_release(&m->html);
	m->users = NULL;
}

/* Cuts here: this message ends, the next one reopens the open tag. */
static void msg_cut(struct out *o)
{
	enum ctx open = o->m.open;

	msg_finish(o);
	msg_start(o, open);
}

/* Body bytes and serialised cost of a token (t->n bytes from off for text). */
static void tok_cost(const struct tok *t, const struct msg *m, size_t *body, size_t *json)
{
	char tmp[4];

	*body = *json = 0;
	switch (t->kind) {
	case TK_TEXT: {
		size_t i = 0;

		while (i < t->n) {
			const char *b, *h;
			size_t bn, hn;

			i += render_cp(t->s + i, t->n - i, &b, &bn, &h, &hn, tmp);
			*body += bn;
			*json += json_cost(b, bn) + json_cost(h, hn);
		}
		break;
	}
	case TK_NL:
		*body = 1;
		*json = 2 + (t->ctx == CTX_PRE ? 2 : 4);
		break;
	case TK_BNL:
		*body = 1;
		*json = 2;
		break;
	case TK_OPEN:
		*json = strlen(open_tag[t->ctx]);
		break;
	case TK_CLOSE:
		*json = strlen(close_tag[t->ctx]);
		if (t->ctx == CTX_H4 || t->ctx == CTX_PRE) {
			*body = 1;
			*json += 2;
		}
		break;
	case TK_MENTION:
	case TK_ROOM:
	case TK_LINK: {
		struct buf a = BUF_INIT;
		const char *name = mention_name(t->span);
		size_t n = strlen(name), i = 0;

		add_span_target(&a, t->span);
		*json = json_cost(a.s, a.len) + 2 * 2 + strlen("<a href=>") + strlen("</a>");
		buf_release(&a);
		while (i < n) {
			const char *b, *h;
			size_t bn, hn;

			i += render_cp(name + i, n - i, &b, &bn, &h, &hn, tmp);
			*body += bn;
			*json += json_cost(b, bn) + json_cost(h, hn);
		}
		if (t->kind == TK_MENTION && !has_user(m->users, t->span->user))
			*json += json_cost(t->span->user, strlen(t->span->user)) + 3;
		break;
	}
	}
}

/* Appends s[*off..n); stops (returns 1) when the message is full. */
static int emit_text(struct out *o, const char *s, size_t n, size_t *off)
{
	char tmp[4];

	while (*off < n) {
		const char *b, *h;
		size_t bn, hn, k;

		k = render_cp(s + *off, n - *off, &b, &bn, &h, &hn, tmp);
		if (!fits(o, bn, json_cost(b, bn) + json_cost(h, hn)))
			return 1;
		add_body(&o->m, b, bn);
		add_html(&o->m, h, hn);
		*off += k;
	}
	return 0;
}

static void emit(struct out *o, const struct tok *t)
{
	struct msg *m = &o->m;
	size_t off = 0;

	m->content = 1;
	switch (t->kind) {
	case TK_TEXT:
		emit_text(o, t->s, t->n, &off);
		break;
	case TK_NL:
		add_body(m, "\n", 1);
		if (t->ctx == CTX_PRE)
			add_html(m, "\n", 1);
		else
			add_html(m, "<br>", 4);
		break;
	case TK_BNL:
		add_body(m, "\n", 1);
		break;
	case TK_OPEN:
		add_html(m, open_tag[t->ctx], strlen(open_tag[t->ctx]));
		m->open = t->ctx;
		break;
	case TK_CLOSE:
		if (t->ctx == CTX_PRE)
			trim(&m->html, "\n");
		add_html(m, close_tag[t->ctx], strlen(close_tag[t->ctx]));
		if (t->ctx == CTX_H4 || t->ctx == CTX_PRE)
			add_body(m, "\n", 1);
		m->open = CTX_NONE;
		break;
	case TK_MENTION:
	case TK_ROOM:
	case TK_LINK: {
		const char *name = mention_name(t->span);
		const char *id = t->span->user;
		size_t from = m->html.len;

		buf_addstr(&m->html, "<a href=\"");
		add_span_target(&m->html, t->span);
		buf_addstr(&m->html, "\">");
		m->json += json_cost(m->html.s + from, m->html.len - from);
		emit_text(o, name, strlen(name), &off);
		add_html(m, "</a>", 4);
		/* a room link notifies nobody: only mentions go in m.mentions */
		if (t->kind == TK_MENTION && !has_user(m->users, id)) {
			json_array_append_new(m->users, json_string(id));
			m->json += json_cost(id, strlen(id)) + 3;
		}
		break;
	}
	}
}

/* A line ends after a newline or a block: the preferred cut points. */
static size_t line_end(const struct toks *t, size_t i)
{
	for (; i < t->n; i++) {
		const struct tok *k = &t->v[i];

		if (k->kind == TK_NL ||
		    (k->kind == TK_CLOSE && (k->ctx == CTX_H4 || k->ctx == CTX_PRE)))
			return i + 1;
	}
	return t->n;
}

/* A line too long for any message: token by token, text cut between code
 * points. */
static void emit_hard(struct out *o, const struct tok *t)
{
	size_t body, json, off = 0;

	if (t->kind != TK_TEXT) {
		tok_cost(t, &o->m, &body, &json);
		if (!fits(o, body, json) && o->m.content)
			msg_cut(o);
		emit(o, t);
		return;
	}
	o->m.content = 1;
	while (emit_text(o, t->s, t->n, &off))
		msg_cut(o);
}

static void render(const struct rich *r, struct out *o)
{
	struct toks t = { 0 };
	size_t i = 0;

	tokenize(r, &t);
	msg_start(o, CTX_NONE);
	while (i < t.n) {
		size_t j = line_end(&t, i), k, body = 0, json = 0;

		for (k = i; k < j; k++) {
			size_t b, js;

			tok_cost(&t.v[k], &o->m, &b, &js);
			body += b;
			json += js;
		}
		if (fits(o, body, json)) {
			for (k = i; k < j; k++)
				emit(o, &t.v[k]);
			i = j;
			continue;
		}
		if (o->m.content) {
			msg_cut(o);
			continue;
		}
		for (k = i; k < j; k++)
			emit_hard(o, &t.v[k]);
		i = j;
	}
	msg_finish(o);
	free(t.v);
}

json_t *mx_notice_contents(const struct rich *r)
{
	struct out o;

	memset(&o, 0, sizeof(o));
	o.arr = json_array();
	o.split = 1;
	render(r, &o);
	return o.arr;
}

int mx_plain_body(const struct rich *r, struct buf *out)
{
	struct out o;
	const char *body;

	memset(&o, 0, sizeof(o));
	o.arr = json_array();
	render(r, &o);
	body = json_string_value(json_object_get(json_array_get(o.arr, 0), "body"));
	buf_addstr(out, body ? body : "");
	json_decref(o.arr);
	return out->toobig ? -1 : 0;
}
