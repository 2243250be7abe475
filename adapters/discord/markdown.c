/*
 * markdown: rich text -> Discord content, message splitting, allowed_mentions.
 * The rules are in markdown.h.
 */
#include "adapters/discord/markdown.h"

#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/rich.h"

#define ZWSP "\xe2\x80\x8b"	/* U+200B ZERO WIDTH SPACE */
#define FENCE_LINE_MAX 16	/* longest line read as a fence, in bytes */

/* ---- rendering -------------------------------------------------------- */

static int is_snowflake(const char *id)
{
	size_t n;

	if (!id)
		return 0;
	for (n = 0; id[n]; n++)
		if (id[n] < '0' || id[n] > '9')
			return 0;
	return n >= 1 && n <= 20;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char last_byte(const struct buf *out)
{
	return out->len ? out->s[out->len - 1] : '\0';
}

/*
 * Looks at the byte already written rather than at the input, so a '<' that
 * ends one span and an '@' that starts the next are caught too.  Our own
 * <@id> never goes through here.
 */
static void guard_angle(struct buf *out, char c)
{
	if (last_byte(out) == '<' && (is_alpha(c) || c == '@' || c == '#' ||
				      c == ':' || c == '/'))
		buf_addstr(out, ZWSP);
}

static void escape_text(struct buf *out, const char *s, int *bol)
{
	while (*s) {
		char c = *s;

		guard_angle(out, c);
		if (c == '\n') {
			buf_addch(out, c);
			*bol = 1;
			s++;
			continue;
		}
		if (*bol) {
			if (c == ' ' || c == '\t') {
				buf_addch(out, c);
				s++;
				continue;
			}
			*bol = 0;
			if (c == '#' || c == '>' || c == '-' || c == '+') {
				buf_addch(out, '\\');
				buf_addch(out, c);
				s++;
				continue;
			}
			if (is_digit(c)) {
				const char *d = s;

				while (is_digit(*d))
					d++;
				if (*d == '.' && (d[1] == ' ' || d[1] == '\t' ||
						  d[1] == '\n' || d[1] == '\0')) {
					buf_add(out, s, (size_t)(d - s));
					buf_addstr(out, "\\.");
					s = d + 1;
					continue;
				}
			}
		}
		if (strchr("\\*_~`|[]", c))
			buf_addch(out, '\\');
		buf_addch(out, c);
		s++;
	}
}

/* Inside a fence only ``` matters: no two backticks stay adjacent. */
static void escape_mono(struct buf *out, const char *s)
{
	for (; *s; s++) {
		guard_angle(out, *s);
		if (*s == '`' && last_byte(out) == '`')
			buf_addstr(out, ZWSP);
		buf_addch(out, *s);
	}
}

static int is_mass_ping(const char *after_at)
{
	return !strncasecmp(after_at, "everyone", 8) || !strncasecmp(after_at, "here", 4);
}

/*
 * Last pass over what this call wrote: Discord matches @everyone and @here
 * in the raw content, wherever the pieces came from.  We never write them
 * on purpose, so every match gets broken.
 */
static void break_mass_pings(struct buf *out, size_t from)
{
	size_t i, n;
	char *tail;

	for (i = from; i < out->len; i++)
		if (out->s[i] == '@' && is_mass_ping(out->s + i + 1))
			break;
	if (i >= out->len)
		return;
	n = out->len - from;
	tail = xmalloc(n + 1);
	memcpy(tail, out->s + from, n + 1);
	out->len = from;
	out->s[from] = '\0';
	for (i = 0; i < n; i++) {
		buf_addch(out, tail[i]);
		if (tail[i] == '@' && is_mass_ping(tail + i + 1))
			buf_addstr(out, ZWSP);
	}
	free(tail);
}

int discord_markdown(const struct rich *r, struct buf *out)
{
	size_t from = out->len, i;
	int bol = !from || last_byte(out) == '\n';

	for (i = 0; i < r->n; i++) {
		const struct rich_span *s = &r->v[i];
		const char *t = s->text ? s->text : "";

		switch (s->kind) {
		case RICH_TEXT:
			escape_text(out, t, &bol);
			break;
		case RICH_EMPH:
			if (!*t)
				break;
			buf_addstr(out, "**");
			escape_text(out, t, &bol);
			buf_addstr(out, "**");
			bol = 0;
			break;
		case RICH_MENTION:
			if (is_snowflake(s->user)) {
				buf_printf(out, "<@%s>", s->user);
			} else {
				escape_text(out, "@", &bol);
				escape_text(out, *t ? t : s->user ? s->user : "?", &bol);
			}
			bol = 0;
			break;
		case RICH_ROOM:
			/* a channel link; it never pings, so not in allowed_mentions */
			if (is_snowflake(s->user)) {
				buf_printf(out, "<#%s>", s->user);
			} else {
				escape_text(out, "#", &bol);
				escape_text(out, *t ? t : s->user && *s->user ? s->user : "?",
					    &bol);
			}
			bol = 0;
			break;
		case RICH_LINK:
			/* bare: Discord links a URL it finds in the text, and an
			 * escape would become part of the address */
			if (rich_link_safe(t))
				buf_addstr(out, t);
			else
				escape_text(out, t, &bol);
			bol = 0;
			break;
		case RICH_NEWLINE:
			buf_addch(out, '\n');
			bol = 1;
			break;
		case RICH_HEADING:
		case RICH_MONO:
			if (!*t)
				break;
			if (!bol)
				buf_addch(out, '\n');
			if (s->kind == RICH_HEADING) {
				buf_addstr(out, "**");
				escape_text(out, t, &bol);
				buf_addstr(out, "**\n");
			} else {
				buf_addstr(out, "```\n");
				escape_mono(out, t);
				if (last_byte(out) != '\n')
					buf_addch(out, '\n');
				buf_addstr(out, "```\n");
			}
			bol = 1;
			break;
		}
	}
	/* no trailing newline: callers frame the message */
	while (out->len > from && out->s[out->len - 1] == '\n')
		out->s[--out->len] = '\0';
	break_mass_pings(out, from);
	return out->toobig ? -1 : 0;
}

/* ---- splitting -------------------------------------------------------- */

struct splitter {
	discord_chunk_fn fn;
	void *ctx;
	size_t max;
	struct buf chunk;
	size_t cp;		/* code points in chunk */
	size_t nlines;		/* lines in chunk, a reopening fence included */
	size_t body;		/* lines (or pieces) taken from the content */
	int in_code;		/* inside a fence after the chunk's last line */
	char fence[FENCE_LINE_MAX + 1];	/* the open block's fence line */
	int last_opens;		/* chunk's last line is that opening fence */
	size_t last_off, last_cp;	/* chunk before its last line */
	int rc;
};

static size_t utf8_count(const char *p, size_t n)
{
	size_t i, cp = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)p[i] & 0xc0) != 0x80)
			cp++;
	return cp;
}

static int is_fence(const char *p, size_t n)
{
	size_t i;

	if (n < 3 || n > FENCE_LINE_MAX || memcmp(p, "```", 3))
		return 0;
	for (i = 3; i < n; i++)
		if (p[i] == '`')
			return 0;	/* ```inline``` on one line, or a longer fence */
	return 1;
}

static void add_line(struct splitter *sp, const char *p, size_t n, size_t cpn)
{
	sp->last_off = sp->chunk.len;
	sp->last_cp = sp->cp;
	if (sp->nlines) {
		buf_addch(&sp->chunk, '\n');
		sp->cp++;
	}
	buf_add(&sp->chunk, p, n);
	sp->cp += cpn;
	sp->nlines++;
}

/* Sends the chunk (closing an open block) and starts the next (reopening it). */
static int flush(struct splitter *sp)
{
	struct buf *c = &sp->chunk;
	int close = sp->in_code;

	if (sp->last_opens) {
		/* A fence with nothing after it: the next chunk opens it instead. */
		c->len = sp->last_off;
		sp->cp = sp->last_cp;
		sp->body--;
		close = 0;
	}
	if (close) {
		buf_addstr(c, "\n```");
	} else {
		while (c->len && c->s[c->len - 1] == '\n')
			c->len--;
	}
	if (c->s)
		c->s[c->len] = '\0';
	if (sp->body && c->len) {
		sp->rc = sp->fn(sp->ctx, c->s, c->len);
		if (sp->rc)
			return -1;
	}
	buf_reset(c);
	sp->cp = sp->nlines = sp->body = 0;
	sp->last_opens = 0;
	if (sp->in_code)
		add_line(sp, sp->fence, strlen(sp->fence), utf8_count(sp->fence, strlen(sp->fence)));
	return 0;
}

/*
 * Where to cut a line that cannot fit: after `avail` code points at most,
 * moved back to a space in the second half, out of a <@id>, <@!id>, <@&id>
 * or <#id> token and off an escaping backslash.  Never returns 0.
 */
static size_t hard_cut(const char *p, size_t n, size_t avail, int in_code)
{
	size_t i, cut = 0, cp = 0, j;

	for (i = 0; i < n; i++) {
		if (((unsigned char)p[i] & 0xc0) != 0x80) {
			if (cp == avail)
				break;
			cp++;
		}
	}
	cut = i;
	if (in_code)
		return cut;
	for (j = cut; j > cut / 2; j--) {
		if (p[j - 1] == ' ') {
			cut = j;
			break;
		}
	}
	for (j = cut; j > 0 && cut - j < 24; j--) {
		char c = p[j - 1];

		if (!is_digit(c) && c != '@' && c != '&' && c != '#' && c != '!')
			break;
	}
	/* j == cut: the cut would fall just after the '<' of a token */
	if (j > 1 && p[j - 1] == '<')
		cut = j - 1;
	for (j = cut; j > 0 && p[j - 1] == '\\'; j--)
		;
	if ((cut - j) % 2 && cut > 1)
		cut--;
	return cut;
}

static int split_line(struct splitter *sp, const char *p, size_t n)
{
	size_t cpn = utf8_count(p, n);

	for (;;) {
		int fence = is_fence(p, n);
		int after = fence ? !sp->in_code : sp->in_code;
		size_t need, avail, cut;

		if (!sp->body && !sp->in_code && !n)
			return 0;	/* blank line at the top of a chunk */
		need = sp->cp + (sp->nlines ? 1 : 0) + cpn + (after ? 4 : 0);
		if (need <= sp->max) {
			add_line(sp, p, n, cpn);
			sp->body++;
			sp->last_opens = fence && after;
			if (sp->last_opens) {
				memcpy(sp->fence, p, n);
				sp->fence[n] = '\0';
			}
			sp->in_code = after;
			return 0;
		}
		if (sp->body) {
			if (flush(sp))
				return -1;
			continue;
		}
		/* Too long for a message of its own.  With max >=
		 * DISCORD_SPLIT_MIN, a reopened fence still leaves room. */
		avail = sp->max - sp->cp - (sp->nlines ? 1 : 0) - (sp->in_code ? 4 : 0);
		cut = hard_cut(p, n, avail, sp->in_code);
		add_line(sp, p, cut, utf8_count(p, cut));
		sp->body++;
		sp->last_opens = 0;
		if (flush(sp))
			return -1;
		p += cut;
		n -= cut;
		cpn = utf8_count(p, n);
	}
}

int discord_split(const char *content, size_t max, discord_chunk_fn fn, void *ctx)
{
	struct splitter sp;
	const char *p = content;

	if (max < DISCORD_SPLIT_MIN)
		return -1;
	memset(&sp, 0, sizeof(sp));
	sp.fn = fn;
	sp.ctx = ctx;
	sp.max = max;
	buf_init(&sp.chunk, 0);
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (split_line(&sp, p, n))
			goto out;
		if (!nl)
			break;
		p = nl + 1;
	}
	flush(&sp);
out:
	buf_release(&sp.chunk);
	return sp.rc;
}

/* ---- allowed_mentions -------------------------------------------------- */

json_t *discord_allowed_mentions(const struct rich *r)
{
	json_t *am = json_object();
	json_t *users = json_array();
	size_t i, k;

	for (i = 0; i < r->n && json_array_size(users) < DISCORD_MENTION_USERS_MAX; i++) {
		const struct rich_span *s = &r->v[i];
		int seen = 0;

		if (s->kind != RICH_MENTION || !is_snowflake(s->user))
			continue;
		for (k = 0; k < json_array_size(users); k++)
			if (!strcmp(json_string_value(json_array_get(users, k)), s->user))
				seen = 1;
		if (!seen)
			json_array_append_new(users, json_string(s->user));
	}
	json_object_set_new(am, "parse", json_array());
	json_object_set_new(am, "users", users);
	return am;
}
