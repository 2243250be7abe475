/*
 * markdown: the rich-text model (util/rich.h) as Discord message content,
 * and the allowed_mentions object that goes with it.  A pure module: no I/O,
 * no global state.
 *
 * The rule is that nothing a player typed (a TEXT/EMPH/HEADING span, a
 * display name, the body of a MONO block) can format the message or ping
 * anyone.  Only MENTION spans with a numeric user id become real mentions,
 * and discord_allowed_mentions() lists exactly those, so even a rendering
 * bug cannot reach roles, @everyone or @here.
 *
 * Rendering, span by span (mirrors rich_to_plain()):
 *   TEXT     escaped (below).
 *   EMPH     **escaped**  (nothing for an empty span).
 *   MENTION  <@id> when id is a Discord snowflake (1-20 ASCII digits);
 *            otherwise "@name" escaped like TEXT (never a raw <@...>).
 *   ROOM     <#id> when id is a snowflake: Discord shows a channel link,
 *            which pings nobody and so is never in allowed_mentions;
 *            otherwise "#name" (or "#id" without a name) escaped like TEXT.
 *   LINK     the address as is when rich_link_safe() (Discord links it;
 *            an escape would land inside the link), else escaped like TEXT.
 *   NEWLINE  "\n".
 *   HEADING  **escaped** on a line of its own.  Chosen over "### " because a
 *            Discord heading is very large for the short titles games use,
 *            and bold reads the same on every client.
 *   MONO     a fenced block "```\n...\n```" on lines of its own; inside it
 *            every backtick that follows a backtick gets a U+200B ZERO WIDTH
 *            SPACE in between, so no ``` in the block can close the fence.
 * Trailing newlines are dropped, as in rich_to_plain().
 *
 * Escaping of user text:
 *   - always backslash-escaped:   \ * _ ~ ` | [ ]
 *     ([ ] is enough to break a masked link [x](url), so ( ) are left be);
 *   - escaped at the start of a line (after blanks only): # > - +
 *     (headings, quotes, -# subtext, lists) and the '.' of "12. "
 *     (ordered lists);
 *   - after '<', a U+200B goes in before a letter or one of @ # : / so no
 *     <@id>, <@&role>, <#channel>, <:emoji:id>, <t:...>, </cmd:id> survives;
 *   - "@everyone" and "@here" (any case) get a U+200B after the '@'.  This
 *     last one runs over the whole rendered message, so it also catches
 *     one spread over two spans ("@every" + "one").
 * Discord renders "\c" as "c" for any ASCII punctuation c, so the escapes are
 * invisible to readers; U+200B is invisible too.
 */
#ifndef ADAPTERS_DISCORD_MARKDOWN_H
#define ADAPTERS_DISCORD_MARKDOWN_H

#include <stddef.h>

#include <jansson.h>

struct buf;
struct rich;

#define DISCORD_CONTENT_MAX	2000	/* code points in one message */
#define DISCORD_SPLIT_MIN	64	/* smallest max discord_split accepts */
#define DISCORD_MENTION_USERS_MAX 100	/* Discord's limit for allowed_mentions.users */

/*
 * Appends r as Discord content to out (borrows both).  Returns 0, or -1 when
 * out hit its cap (out then holds a truncated message: do not send it).
 * The result may be longer than DISCORD_CONTENT_MAX: see discord_split().
 */
int discord_markdown(const struct rich *r, struct buf *out);

/*
 * Called once per chunk with a NUL-terminated chunk of len bytes (borrowed:
 * valid only during the call).  Return 0 to go on, anything else to stop.
 */
typedef int (*discord_chunk_fn)(void *ctx, const char *chunk, size_t len);

/*
 * Splits content (UTF-8, borrowed) into messages of at most max code points
 * each (DISCORD_CONTENT_MAX for Discord) and hands them to fn in order.
 *   - Cuts at line ends where possible; a line longer than a whole message
 *     is hard-split, at a space in its second half when there is one, never
 *     inside a UTF-8 sequence, after an escaping backslash or inside a
 *     <@id>-style token (<#id> room links included).
 *   - A fenced code block (a line starting with ``` opens one, the next
 *     such line closes it) cut across messages is closed with ``` at the end
 *     of one message and reopened with its opening fence line at the start
 *     of the next, so every message has balanced fences.
 *   - Blank lines at the start and end of a message are dropped (Discord
 *     trims them anyway); empty messages are never produced, so an empty
 *     content makes no call.
 * Returns 0; the first non-zero value fn returned; or -1 when max is below
 * DISCORD_SPLIT_MIN (no call made).
 */
int discord_split(const char *content, size_t max, discord_chunk_fn fn, void *ctx);

/*
 * The allowed_mentions object for r: {"parse": [], "users": [...]}, users
 * being the ids of r's MENTION spans that discord_markdown() renders as real
 * mentions, first-seen order, without duplicates, at most
 * DISCORD_MENTION_USERS_MAX.  "parse": [] turns off role, @everyone and
 * @here pings whatever the content says.  Returns a new reference.
 */
json_t *discord_allowed_mentions(const struct rich *r);

#endif
