/*
 * rich: the small rich-text model every message is built in.  Games and the
 * session manager write it; each adapter converts it (console: plain text,
 * Discord: markdown, Matrix: HTML + plain body).  No platform syntax ever
 * appears inside the text of a span: converters escape what they must.
 *
 * A message is a flat list of spans.  Inline spans (TEXT, EMPH, MENTION,
 * ROOM) flow into the current paragraph; NEWLINE ends a line; HEADING and
 * MONO are whole blocks (a MONO span holds a preformatted block, lines
 * separated by '\n', shown in a fixed-width font).
 *
 * Ownership: a rich owns its spans and their strings; rich_release frees them.
 */
#ifndef UTIL_RICH_H
#define UTIL_RICH_H

#include <stddef.h>

#include <jansson.h>

#include "util/buf.h"

enum rich_kind {
	RICH_TEXT,
	RICH_EMPH,
	RICH_MENTION,	/* text = display name, user = platform user id */
	RICH_NEWLINE,
	RICH_HEADING,
	RICH_MONO,
	RICH_ROOM,	/* RICH_ROOM: user = platform room id; text = the room's
			 * display name, may be NULL or empty.  Each adapter
			 * renders it as a link to the room when the id is
			 * valid there, else as "#name" (or "#id") text. */
	RICH_LINK,	/* text = a web address the bot made (a game's page),
			 * never a player's text.  Shown as itself, and as a
			 * link where the platform has them (Discord: bare, so
			 * that no escape gets into it; Matrix: <a href>) when
			 * rich_link_safe() accepts it, else as TEXT. */
};

struct rich_span {
	enum rich_kind kind;
	char *text;
	char *user;	/* RICH_MENTION: user id; RICH_ROOM: room id; else NULL */
};

struct rich {
	struct rich_span *v;
	size_t n, cap;
};

#define RICH_INIT { 0 }

void rich_init(struct rich *r);
void rich_release(struct rich *r);
void rich_append(struct rich *dst, const struct rich *src);	/* deep copy */

void rich_text(struct rich *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rich_emph(struct rich *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rich_mention(struct rich *r, const char *user, const char *name);
/* A reference to a chat room (both strings copied; name may be NULL or
 * empty, a NULL room_id is taken as ""). */
void rich_room(struct rich *r, const char *room_id, const char *name);
/* A web address (copied), shown as a link: see RICH_LINK. */
void rich_link(struct rich *r, const char *url);
/* 1 when url is "http://" or "https://" and more, of letters, digits and
 * . _ ~ : / % - [ ] only (what bot/weblink.c makes): nothing a chat's
 * markup or an HTML attribute would read, so adapters may write it raw. */
int rich_link_safe(const char *url);
void rich_newline(struct rich *r);
void rich_heading(struct rich *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes a preformatted block (copied). */
void rich_mono(struct rich *r, const char *block);
/* A line of text followed by a newline. */
void rich_line(struct rich *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Plain text, as the console shows it (mentions as @name, rooms as #name,
 * or #<room id> when the room has no name). */
void rich_to_plain(const struct rich *r, struct buf *out);

/* JSON form, kept in the outbox: an array of {"k": kind, "t": text,
 * "u": user}; a room is {"k": "room", "u": id} plus "t": name when it has
 * one; a link is {"k": "link", "t": address}.  rich_to_json returns a new reference;
 * rich_from_json returns 0, or -1 on a malformed value (r left empty). */
json_t *rich_to_json(const struct rich *r);
int rich_from_json(struct rich *r, const json_t *j);

#endif
