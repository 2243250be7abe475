#include "adapters/console/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/text.h"

#define LINE_MAX_BYTES (64 * 1024)	/* longer lines are refused whole */
#define READ_CHUNK 4096

/* A message whose picture follows (adapter_image.follow): where it goes,
 * and the outbox message it confirms once the picture is out. */
struct held {
	struct held *next;
	uint64_t follow;
	int64_t outbox_id;
	char tag[320];
	char room[128];
	char user[128];		/* "": the room */
};

struct console {
	struct adapter base;
	struct held *held;
	int in;
	FILE *out;
	uv_loop_t *loop;
	uv_fs_t req;
	char chunk[READ_CHUNK];
	/*
	 * The console is one stream, read by people and scripts in order: a
	 * line is read only once the pictures of the lines before it are out
	 * (the texts still go at once, the picture after them).  Reading
	 * pauses at chunk[pos..n) while a picture is held and resumes from
	 * `resume` (a turn of the loop later: console_picture is called from
	 * inside the session manager, which a command must not re-enter).
	 */
	ssize_t pos, n;
	int paused;
	uv_timer_t resume;
	int resume_open;
	struct buf line;
	int overflow;		/* discarding a too-long line up to its newline */
	int reading;
	char last_user[128];
	char *boards;		/* console_set_boards_dir; NULL: "boards" */
};

static struct console *console_downcast(struct adapter *a);
static void console_error(struct console *c, const char *msg);
static void on_resume(uv_timer_t *t);

static void write_tagged(struct console *c, const char *tag, const struct rich *body)
{
	struct buf text = BUF_INIT;
	const char *p, *nl;

	rich_to_plain(body, &text);
	p = buf_str(&text);
	do {
		nl = strchr(p, '\n');
		fprintf(c->out, "%s %.*s\n", tag, nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl + 1;
	} while (nl);
	fflush(c->out);
	buf_release(&text);
}

static void room_tag(const char *room, char *tag, size_t n)
{
	if (!strcmp(room, CONSOLE_DEFAULT_ROOM))
		snprintf(tag, n, "[room]");
	else
		snprintf(tag, n, "[room #%s]", room);
}

/* mkdir -p of dir (0700 for what it creates). */
static int make_dirs(const char *dir)
{
	struct buf b = BUF_INIT;
	size_t i;
	int rc = 0;

	buf_addstr(&b, dir);
	for (i = 1; i <= b.len && !rc; i++) {
		if (i < b.len && b.s[i] != '/')
			continue;
		b.s[i] = '\0';
		if (mkdir(b.s, 0700) && errno != EEXIST)
			rc = -1;
		if (i < b.len)
			b.s[i] = '/';
	}
	buf_release(&b);
	return rc;
}

/* A file name's part from untrusted text: letters, digits, '.', '_', '-'. */
static void name_part(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addch(out, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			  (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-' ? *s : '_');
}

/* Writes img under the boards directory and prints its path with tag. */
static int write_picture(struct console *c, const char *tag, const char *room, const char *user,
			 const struct adapter_image *img, struct buf *err)
{
	const char *dir = c->boards ? c->boards : "boards";
	struct buf path = BUF_INIT;
	size_t done = 0;
	int fd, rc = -1;

	if (make_dirs(dir)) {
		buf_setf(err, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	buf_printf(&path, "%s/", dir);
	name_part(&path, room);
	if (user) {
		buf_addch(&path, '-');
		name_part(&path, user);
	}
	buf_addch(&path, '-');
	name_part(&path, img->name ? img->name : "board.png");
	fd = open(buf_str(&path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		buf_setf(err, "cannot write %s: %s", buf_str(&path), strerror(errno));
		goto out;
	}
	while (done < img->len) {
		ssize_t n = write(fd, img->png + done, img->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (close(fd) || done < img->len) {
		buf_setf(err, "cannot write %s", buf_str(&path));
		goto out;
	}
	fprintf(c->out, "%s %s %s (%dx%d)\n", tag, "picture:", buf_str(&path), img->width,
		img->height);
	fflush(c->out);
	rc = 0;
out:
	buf_release(&path);
	return rc;
}

/* The picture of a message follows: it is held until console_picture. */
static void hold(struct console *c, const char *tag, const char *room, const char *user,
		 uint64_t follow, int64_t outbox_id)
{
	struct held *h = xcalloc(1, sizeof(*h)), **at = &c->held;

	h->follow = follow;
	h->outbox_id = outbox_id;
	snprintf(h->tag, sizeof(h->tag), "%s", tag);
	snprintf(h->room, sizeof(h->room), "%s", room);
	snprintf(h->user, sizeof(h->user), "%s", user ? user : "");
	while (*at)
		at = &(*at)->next;
	*at = h;
}

static int console_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	struct console *c = console_downcast(a);
	char tag[320];

	if (m->user)
		snprintf(tag, sizeof(tag), "[dm %s]", m->user);
	else
		room_tag(m->room, tag, sizeof(tag));
	if (m->body->n)
		write_tagged(c, tag, m->body);
	if (m->image && m->image->follow) {
		hold(c, tag, m->room, m->user, m->image->follow, m->outbox_id);
		return 0;	/* confirmed with its picture */
	}
	if (m->image && write_picture(c, tag, m->room, m->user, m->image, err)) {
		/* the text board instead, so nothing is lost */
		struct rich r = RICH_INIT;

		rich_line(&r, "%s", m->image->alt ? m->image->alt : "");
		write_tagged(c, tag, &r);
		rich_release(&r);
		fprintf(c->out, "[console] %s\n", buf_str(err));
		buf_reset(err);
	}
	if (m->outbox_id && a->on_sent)
		a->on_sent(a->ctx, a, m->outbox_id);
	return 0;
}

static int console_reply(struct adapter *a, const struct command *cmd, int private_,
			 const struct rich *body, struct buf *err)
{
	struct console *c = console_downcast(a);
	char tag[320];

	if (private_)
		snprintf(tag, sizeof(tag), "[dm %s]", cmd->user);
	else
		room_tag(cmd->room, tag, sizeof(tag));
	write_tagged(c, tag, body);
	return 0;
}

static int console_reply_image(struct adapter *a, const struct command *cmd, int private_,
			       const struct rich *body, const struct adapter_image *img,
			       struct buf *err)
{
	struct console *c = console_downcast(a);
	char tag[320];

	if (private_)
		snprintf(tag, sizeof(tag), "[dm %s]", cmd->user);
	else
		room_tag(cmd->room, tag, sizeof(tag));
	if (body->n)
		write_tagged(c, tag, body);
	if (img->follow) {
		hold(c, tag, cmd->room, private_ ? cmd->user : NULL, img->follow, 0);
		return 0;
	}
	if (write_picture(c, tag, cmd->room, private_ ? cmd->user : NULL, img, err)) {
		struct rich r = RICH_INIT;

		rich_line(&r, "%s", img->alt ? img->alt : "");
		write_tagged(c, tag, &r);
		rich_release(&r);
		console_error(c, buf_str(err));
		buf_reset(err);
	}
	return 0;
}

/* A held message's picture: the file and its line, else the text in its
 * place (painting failed, or the file cannot be written); then the
 * message is confirmed. */
static int console_picture(struct adapter *a, uint64_t follow, const struct adapter_image *img,
			   const struct rich *text, struct buf *err)
{
	struct console *c = console_downcast(a);
	struct held **at = &c->held, *h;

	while (*at && (*at)->follow != follow)
		at = &(*at)->next;
	if (!(h = *at))
		return 0;
	*at = h->next;
	if (img && write_picture(c, h->tag, h->room, h->user[0] ? h->user : NULL, img, err)) {
		struct rich r = RICH_INIT;

		rich_line(&r, "%s", img->alt ? img->alt : "");
		write_tagged(c, h->tag, &r);
		rich_release(&r);
		console_error(c, buf_str(err));
		buf_reset(err);
	} else if (!img && text && text->n) {
		write_tagged(c, h->tag, text);
	}
	if (h->outbox_id && a->on_sent)
		a->on_sent(a->ctx, a, h->outbox_id);
	free(h);
	if (c->paused && !c->held && c->resume_open)
		uv_timer_start(&c->resume, on_resume, 0, 0);
	return 0;
}

void console_set_boards_dir(struct adapter *a, const char *dir)
{
	struct console *c = console_downcast(a);

	free(c->boards);
	c->boards = dir && *dir ? xstrdup(dir) : NULL;
}

static void console_error(struct console *c, const char *msg)
{
	fprintf(c->out, "[console] %s\n", msg);
	fflush(c->out);
}

/* A name or room as typed: one word of visible characters, no separator
 * of the line's syntax (':' ends the name, '#' starts a room, '@' is a
 * mention). */
static int valid_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 64)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch <= ' ' || ch == ':' || ch == '#' || ch == '@' || ch == 0x7f)
			return 0;
	}
	return 1;
}

/*
 * Names and rooms are untrusted text: a line separator (U+2028, NEL), a
 * bidi override or a zero-width character in one would forge or disguise
 * lines of the output.  The typed word is cleaned (text_clean_name) and
 * must still be a valid word; the cleaned form is both the id and the
 * display name, as on the console you are whoever you type, and what is
 * shown is what you are.  Writes it to out (n bytes).  Returns NULL, or
 * why the word cannot be a name.
 */
static const char *clean_word(const char *s, size_t len, char *out, size_t n)
{
	size_t k = text_clean_name(s, len, out, n);

	if (!k)
		return "that name has no visible character";
	if (!valid_name(out, k))
		return "a name is one word: no spaces or line breaks of any kind";
	return NULL;
}

void console_feed_line(struct adapter *a, const char *line, size_t len)
{
	struct console *c = console_downcast(a);
	char room[128] = CONSOLE_DEFAULT_ROOM, user[128];
	const char *p = line, *end = line + len, *colon, *sp, *why;
	struct command cmd;

	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || (*p == '#' && (p + 1 == end || p[1] == ' ')))
		return;		/* blank or comment */
	if (end - p > 7 && !memcmp(p, "@clock ", 7) && a->on_clock) {
		char num[32];
		char *e;
		long long t;

		snprintf(num, sizeof(num), "%.*s", (int)(end - p - 7), p + 7);
		t = strtoll(num, &e, 10);
		if (*e || t <= 0)
			console_error(c, "@clock takes unix seconds");
		else
			a->on_clock(a->ctx, a, (int64_t)t);
		return;
	}
	if (memchr(p, '\0', (size_t)(end - p))) {
		console_error(c, "that line holds a NUL byte; ignored");
		return;
	}
	if (*p == '#') {
		sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp || !valid_name(p + 1, (size_t)(sp - p - 1))) {
			console_error(c, "a room is written #name, then a space");
			return;
		}
		why = clean_word(p + 1, (size_t)(sp - p - 1), room, sizeof(room));
		if (why) {
			console_error(c, why);
			return;
		}
		p = sp + 1;
		while (p < end && *p == ' ')
			p++;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	sp = memchr(p, ' ', (size_t)(end - p));
	if (colon && (!sp || colon < sp) && valid_name(p, (size_t)(colon - p))) {
		why = clean_word(p, (size_t)(colon - p), user, sizeof(user));
		if (why) {
			console_error(c, why);
			return;
		}
		snprintf(c->last_user, sizeof(c->last_user), "%s", user);
		p = colon + 1;
	} else if (c->last_user[0]) {
		snprintf(user, sizeof(user), "%s", c->last_user);
	} else {
		console_error(c, "write \"name: command\", e.g. \"ana: game new fortuna\"");
		return;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '!')
		p++;
	memset(&cmd, 0, sizeof(cmd));
	cmd.platform = "console";
	cmd.room = room;
	cmd.community = "";
	cmd.user = user;
	cmd.name = user;
	cmd.locale = NULL;
	cmd.text_len = (size_t)(end - p);
	{
		char *text = xmalloc(cmd.text_len + 1);

		memcpy(text, p, cmd.text_len);
		text[cmd.text_len] = '\0';
		cmd.text = text;
		if (a->on_command)
			a->on_command(a->ctx, a, &cmd);
		free(text);
	}
}

static void console_read(struct console *c);

/* Feeds the lines of chunk[pos..n); pauses after a line that left a
 * picture held (console_picture resumes), else reads on. */
static void feed_chunk(struct console *c)
{
	while (c->pos < c->n) {
		char ch = c->chunk[c->pos++];

		if (ch == '\n') {
			if (c->overflow)
				console_error(c, "that line is too long; ignored");
			else
				console_feed_line(&c->base, buf_str(&c->line), c->line.len);
			buf_reset(&c->line);
			c->overflow = 0;
			if (c->held) {
				c->paused = 1;
				return;
			}
		} else if (!c->overflow && buf_addch(&c->line, ch)) {
			c->overflow = 1;
			buf_reset(&c->line);
		}
	}
	console_read(c);
}

static void on_read(uv_fs_t *req)
{
	struct console *c = req->data;
	ssize_t n = req->result;

	uv_fs_req_cleanup(req);
	c->reading = 0;
	if (n <= 0) {	/* end of input (or an error): the last line, then stop
			 * (main waits for the pictures still to come) */
		if (c->line.len && !c->overflow)
			console_feed_line(&c->base, c->line.s, c->line.len);
		buf_reset(&c->line);
		uv_stop(c->loop);
		return;
	}
	c->pos = 0;
	c->n = n;
	feed_chunk(c);
}

static void on_resume(uv_timer_t *t)
{
	struct console *c = t->data;

	if (c->paused && !c->held) {
		c->paused = 0;
		feed_chunk(c);
	}
}

static void console_read(struct console *c)
{
	uv_buf_t b = uv_buf_init(c->chunk, sizeof(c->chunk));

	c->req.data = c;
	if (uv_fs_read(c->loop, &c->req, c->in, &b, 1, -1, on_read)) {
		uv_stop(c->loop);
		return;
	}
	c->reading = 1;
}

static int console_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	struct console *c = console_downcast(a);

	c->loop = loop;
	uv_timer_init(loop, &c->resume);
	c->resume.data = c;	/* active only while it is due */
	c->resume_open = 1;
	console_read(c);
	return 0;
}

static void console_stop(struct adapter *a)
{
	struct console *c = console_downcast(a);

	if (c->reading)
		uv_cancel((uv_req_t *)&c->req);
	if (c->resume_open) {
		uv_close((uv_handle_t *)&c->resume, NULL);
		c->resume_open = 0;
	}
}

static void console_free(struct adapter *a)
{
	struct console *c = console_downcast(a);

	while (c->held) {
		struct held *h = c->held;

		c->held = h->next;
		free(h);
	}
	buf_release(&c->line);
	free(c->boards);
	free(c);
}

static const struct adapter_ops console_ops = {
	.api_version = ADAPTER_API_VERSION,
	.name = "console",
	.caps = ADAPTER_CAP_ONE_STREAM,
	.start = console_start,
	.stop = console_stop,
	.send = console_send,
	.reply = console_reply,
	.free = console_free,
	.reply_image = console_reply_image,
	.picture = console_picture,
};

static struct console *console_downcast(struct adapter *a)
{
	if (a->ops != &console_ops)
		abort();	/* BUG: not a console adapter */
	return (struct console *)a;
}

struct adapter *console_adapter_new(int in, FILE *out)
{
	struct console *c = xcalloc(1, sizeof(*c));

	c->base.ops = &console_ops;
	c->in = in;
	c->out = out;
	buf_init(&c->line, LINE_MAX_BYTES);
	return &c->base;
}
