#include "util/rich.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void rich_init(struct rich *r)
{
	memset(r, 0, sizeof(*r));
}

void rich_release(struct rich *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].text);
		free(r->v[i].user);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void rich_push(struct rich *r, enum rich_kind kind, char *text, char *user)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n].kind = kind;
	r->v[r->n].text = text;
	r->v[r->n].user = user;
	r->n++;
}

static void rich_vpush(struct rich *r, enum rich_kind kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void rich_vpush(struct rich *r, enum rich_kind kind, const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;

	buf_vprintf(&b, fmt, ap);
	rich_push(r, kind, buf_detach(&b), NULL);
}

void rich_append(struct rich *dst, const struct rich *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		rich_push(dst, src->v[i].kind,
			  src->v[i].text ? xstrdup(src->v[i].text) : NULL,
			  src->v[i].user ? xstrdup(src->v[i].user) : NULL);
}

void rich_text(struct rich *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rich_vpush(r, RICH_TEXT, fmt, ap);
	va_end(ap);
}

void rich_emph(struct rich *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rich_vpush(r, RICH_EMPH, fmt, ap);
	va_end(ap);
}

void rich_heading(struct rich *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rich_vpush(r, RICH_HEADING, fmt, ap);
	va_end(ap);
}

void rich_line(struct rich *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rich_vpush(r, RICH_TEXT, fmt, ap);
	va_end(ap);
	rich_newline(r);
}

void rich_mention(struct rich *r, const char *user, const char *name)
{
	rich_push(r, RICH_MENTION, xstrdup(name), xstrdup(user));
}

void rich_room(struct rich *r, const char *room_id, const char *name)
{
	rich_push(r, RICH_ROOM, name ? xstrdup(name) : NULL,
		  xstrdup(room_id ? room_id : ""));
}

void rich_link(struct rich *r, const char *url)
{
	rich_push(r, RICH_LINK, xstrdup(url ? url : ""), NULL);
}

int rich_link_safe(const char *url)
{
	const char *p;

	if (!url)
		return 0;
	if (!strncmp(url, "https://", 8))
		p = url + 8;
	else if (!strncmp(url, "http://", 7))
		p = url + 7;
	else
		return 0;
	if (!*p || strlen(p) > 1000)
		return 0;
	for (; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._~:/%-[]", c)))
			return 0;
	}
	return 1;
}

void rich_newline(struct rich *r)
{
	rich_push(r, RICH_NEWLINE, NULL, NULL);
}

void rich_mono(struct rich *r, const char *block)
{
	rich_push(r, RICH_MONO, xstrdup(block), NULL);
}

void rich_to_plain(const struct rich *r, struct buf *out)
{
	size_t i;
	int at_bol = 1;

	for (i = 0; i < r->n; i++) {
		const struct rich_span *s = &r->v[i];

		switch (s->kind) {
		case RICH_TEXT:
		case RICH_LINK:
			buf_addstr(out, s->text);
			at_bol = 0;
			break;
		case RICH_EMPH:
			buf_printf(out, "*%s*", s->text);
			at_bol = 0;
			break;
		case RICH_MENTION:
			buf_printf(out, "@%s", s->text);
			at_bol = 0;
			break;
		case RICH_ROOM:
			buf_printf(out, "#%s", s->text && *s->text ? s->text :
				   s->user ? s->user : "");
			at_bol = 0;
			break;
		case RICH_NEWLINE:
			buf_addch(out, '\n');
			at_bol = 1;
			break;
		case RICH_HEADING:
		case RICH_MONO:
			if (!at_bol)
				buf_addch(out, '\n');
			if (s->kind == RICH_HEADING)
				buf_printf(out, "== %s ==", s->text);
			else
				buf_addstr(out, s->text);
			if (out->len && out->s[out->len - 1] != '\n')
				buf_addch(out, '\n');
			at_bol = 1;
			break;
		}
	}
	/* no trailing newline: callers frame the message */
	while (out->len && out->s[out->len - 1] == '\n')
		out->s[--out->len] = '\0';
}

static const char *const rich_kind_names[] = {
	[RICH_TEXT] = "text", [RICH_EMPH] = "emph", [RICH_MENTION] = "mention",
	[RICH_NEWLINE] = "nl", [RICH_HEADING] = "heading", [RICH_MONO] = "mono",
	[RICH_ROOM] = "room", [RICH_LINK] = "link",
};

json_t *rich_to_json(const struct rich *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "k", json_string(rich_kind_names[r->v[i].kind]));
		if (r->v[i].text)
			json_object_set_new(o, "t", json_string(r->v[i].text));
		if (r->v[i].user)
			json_object_set_new(o, "u", json_string(r->v[i].user));
		json_array_append_new(a, o);
	}
	return a;
}

int rich_from_json(struct rich *r, const json_t *j)
{
	size_t i, k;
	json_t *o;

	rich_init(r);
	if (!json_is_array(j))
		return -1;
	json_array_foreach(j, i, o) {
		const char *kn = json_string_value(json_object_get(o, "k"));
		const json_t *tj = json_object_get(o, "t");
		const char *t = json_string_value(tj);
		const char *u = json_string_value(json_object_get(o, "u"));
		int found = -1;

		if (!kn)
			goto fail;
		for (k = 0; k < sizeof(rich_kind_names) / sizeof(*rich_kind_names); k++)
			if (!strcmp(kn, rich_kind_names[k]))
				found = (int)k;
		if (found < 0)
			goto fail;
		if (found == RICH_ROOM) {
			/* the name is optional, but a string when present */
			if (tj && !t)
				goto fail;
		} else if (found != RICH_NEWLINE && !t) {
			goto fail;
		}
		if ((found == RICH_MENTION || found == RICH_ROOM) && !u)
			goto fail;
		rich_push(r, (enum rich_kind)found, t ? xstrdup(t) : NULL,
			  found == RICH_MENTION || found == RICH_ROOM ? xstrdup(u) : NULL);
	}
	return 0;
fail:
	rich_release(r);
	return -1;
}
