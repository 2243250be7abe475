/*
 * mxhtml: the rich-text model (util/rich.h) as a Matrix m.notice: a plain
 * `body`, an `org.matrix.custom.html` `formatted_body`, and `m.mentions`.
 * Pure: no I/O, no globals.
 *
 * Rendering (mirrors rich_to_plain() for the body):
 *   TEXT     body: as is;      html: escaped (& < > " ').
 *   EMPH     body: as is;      html: <strong>escaped</strong>.
 *   MENTION  body: the display name (as is);
 *            html: <a href="https://matrix.to/#/@user:server">escaped name</a>
 *            when the id is a valid Matrix user id (@local:server, no
 *            characters that need escaping in a URL other than those the
 *            function percent-encodes); otherwise the escaped name.
 *   ROOM     body: the room's name, or its id when it has none (as is);
 *            html: <a href="https://matrix.to/#/%21opaque:server">escaped
 *            name or id</a> when the id is a Matrix room id ("!opaque:server")
 *            or alias ("#alias:server"), the id percent-encoded; otherwise
 *            the escaped name (or id).  Never in m.mentions.
 *   LINK     body: the address; html: <a href="address">address</a> when
 *            rich_link_safe() (nothing in it to escape), else as TEXT.
 *   NEWLINE  body: "\n";       html: "<br>".
 *   HEADING  body: the text on its own line; html: <h4>escaped</h4>.
 *   MONO     body: the block on its own lines; html: <pre><code>escaped</code></pre>.
 * Nothing a player typed (names, any span text) can open a tag, an entity,
 * or a link: every '<', '>', '&', '"', '\'' is escaped in the HTML.
 *
 * m.mentions: {"user_ids": [...]} with the MENTION spans' valid user ids,
 * first-seen order, no duplicates; never "room": true.  Always present
 * (empty list when nobody is mentioned), so clients never fall back to
 * scanning the body for names.
 */
#ifndef ADAPTERS_MATRIX_MXHTML_H
#define ADAPTERS_MATRIX_MXHTML_H

#include <stddef.h>

#include <jansson.h>

struct rich;

/* Matrix's limit on a whole event (JSON), bytes. */
#define MX_EVENT_MAX 65536
/* One message's body is kept under this many bytes (the HTML, escaped, may
 * be several times larger; both must fit in one event with room to spare). */
#define MX_BODY_SPLIT 12000

/* 1 when s is a syntactically valid Matrix user id ("@local:server"). */
int mx_user_id_valid(const char *s);

/*
 * The m.room.message contents for r: a JSON array of one or more objects
 * {"msgtype": "m.notice", "body": ..., "format": "org.matrix.custom.html",
 *  "formatted_body": ..., "m.mentions": {"user_ids": [...]}}.
 * Splits into several messages when r is too long for one event: at span
 * boundaries (NEWLINE preferred), never inside a UTF-8 sequence or an HTML
 * tag/entity (a mention or room link is never cut); a MONO block cut across
 * messages is closed and reopened so each message's HTML is balanced.
 * Every element serialises (compact) to less than MX_EVENT_MAX - 1024
 * bytes.  Each element's m.mentions lists only the users mentioned in that
 * element (room links never appear there).  Returns a new reference (never
 * NULL; an empty r gives one message with an empty body).
 */
json_t *mx_notice_contents(const struct rich *r);

/*
 * (Addition.) Appends to out the plain body r would have as one unsplit
 * message: what the "body"s of mx_notice_contents() add up to, less the
 * newlines dropped at cut points.  Malformed UTF-8 and control characters
 * other than tab and newline come out as U+FFFD, in the body and the HTML
 * alike.  Returns 0, or -1 when out hit its cap.
 */
struct buf;
int mx_plain_body(const struct rich *r, struct buf *out);

#endif
