/*
 * discord pressure: the REST queue as the adapter uses it — back-pressure
 * (discord.h: commands refused and posts kept while only the reserve is
 * free), the queue's down state, requests whose answer is only a log line
 * when they fail (notes), and Discord's error code in an answer.
 */

#include <stdio.h>
#include <stdlib.h>

#include "adapters/discord/discord_int.h"
#include "util/logging.h"

/* The REST queue's slots kept for answering interactions. */
static size_t rest_reserve(const struct discord *d)
{
	return d->rest_max / 8 > 4 ? d->rest_max / 8 : 4;
}

/* What one command may post besides its answer (a board of a few
 * messages, a DM): a command is taken only when that much is free. */
#define COMMAND_HEADROOM 4

/*
 * Back-pressure (discord.h): 1 while only the reserve and a command's
 * headroom are free, until half the queue is; each change logged once.
 * In a small queue half of it is about where busy begins: there it ends
 * a command's headroom lower, or one more request (a picture's edit
 * following its text) would turn it on and off again, logged each time.
 */
int dsc_rest_busy(struct discord *d)
{
	size_t pending = discord_rest_pending(d->rest);
	size_t on = d->rest_max - rest_reserve(d) - COMMAND_HEADROOM;
	size_t off = d->rest_max / 2;

	if (off + COMMAND_HEADROOM > on)
		off = on > COMMAND_HEADROOM ? on - COMMAND_HEADROOM : 0;
	if (discord_rest_down(d->rest))
		return 1;	/* dsc_on_rest_down() logs it */
	if (!d->busy && pending > on) {
		d->busy = 1;
		log_warn("discord: %zu requests wait for Discord (the queue holds %zu); until half "
			 "of them are through, commands are answered \"try again\" without being run "
			 "and posts that do not fit stay in the outbox for the next start", pending,
			 d->rest_max);
	} else if (d->busy && pending <= off) {
		d->busy = 0;
		log_info("discord: the request queue drained (%zu waiting); commands are taken "
			 "again", pending);
	}
	return d->busy;
}

/* The REST queue's down state (rest.h): logged once each way. */
void dsc_on_rest_down(void *ctx, int down)
{
	struct discord *d = ctx;

	if (down)
		log_warn("discord: Discord does not answer %s (%d failures in a row); until it "
			 "does, commands are answered \"try again\" without being run, and what "
			 "waits to be sent is kept and tried again every %d s",
			 d->api_proxy ? "through the REST proxy (DISCORD_API_URL)" : "REST requests",
			 DISCORD_REST_DOWN_AFTER, DISCORD_REST_DOWN_RETRY_MS / 1000);
	else
		log_info("discord: Discord answers again%s (%zu requests waiting); commands are "
			 "taken again", d->api_proxy ? " through the REST proxy" : "",
			 discord_rest_pending(d->rest));
}

/* Room for n more requests that are not interaction answers? */
int dsc_rest_fits(struct discord *d, size_t n)
{
	dsc_rest_busy(d);
	return discord_rest_pending(d->rest) + n + rest_reserve(d) <= d->rest_max;
}

/* A request whose answer only needs a log line when it fails. */
struct note {
	struct live live;	/* first: the list links notes by it */
	char what[64];
};

static void note_release(struct live *l)
{
	free(l);
}

struct note *dsc_note_new(struct discord *d, const char *what)
{
	struct note *n = xcalloc(1, sizeof(*n));

	snprintf(n->what, sizeof(n->what), "%s", what);
	dsc_live_add(d, &n->live, note_release);
	return n;
}

void dsc_on_noted(const struct discord_rest_resp *resp, void *ctx)
{
	struct note *n = ctx;

	dsc_live_del(&n->live);
	if (resp->error || resp->status < 200 || resp->status >= 300)
		log_warn("discord: %s failed (HTTP %ld%s%s)", n->what, resp->status,
			 resp->error ? ": " : "", resp->error ? resp->error : "");
	free(n);
}

void dsc_submit_noted(struct discord *d, const char *method, const char *path,
		      json_t *body, const char *what)
{
	struct buf err = BUF_INIT;
	struct note *n = dsc_note_new(d, what);
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;

	if (discord_rest_submit(d->rest, method, path, text, dsc_on_noted, n, &err)) {
		log_warn("discord: %s not sent: %s", what, buf_str(&err));
		dsc_live_del(&n->live);
		free(n);
	}
	free(text);
	buf_release(&err);
}

/* Discord's error code in a JSON error body, or 0. */
long dsc_error_code(const struct buf *body)
{
	json_t *j = json_loads(buf_str(body), 0, NULL);
	long code = 0;

	if (j && json_is_integer(json_object_get(j, "code")))
		code = (long)json_integer_value(json_object_get(j, "code"));
	json_decref(j);
	return code;
}
