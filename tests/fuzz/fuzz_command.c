/*
 * fuzz_command: arbitrary command text through the session manager.
 *
 * Every input gets a fresh manager on a fresh SQLite store (a copy of a
 * template made once, in /dev/shm when there is one), with the tests'
 * capture adapter (tests/support/capture.c) as a "console" and four rooms
 * made with ordinary commands:
 *   "lobby"  Fortuna opened by ana, ben seated, not started;
 *   "f"      Fortuna in play, ana and ben;
 *   "g"      Glory to Rome in play, ana and ben;
 *   "b"      The Builders in play, ana and ben.
 * Input: [mode byte][line]\n[line]\n... (at most 8 lines; a line may hold
 * NULs: text_len carries its length).  The mode byte picks:
 *   bits 0-1  the room: lobby, f, g, or "new" (no game); with bit 7 set,
 *             f is replaced by b (the four rooms fit in the byte);
 *   bits 2-3  the user: ana, ben, cy (not seated), zed;
 *   bit 4     "play " is put before every line, so game_parse and the
 *             games' apply() see the text;
 *   bit 5     the command comes from a private chat (struct command direct);
 *   bit 6     the command carries the "es-ES" locale;
 *   bit 7     afterwards the clock jumps two days and session_mgr_tick()
 *             runs whatever is due (reminders, timeouts, AI moves).
 * Each line is also handed to session_mgr_complete() (autocompletion).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/session.h"
#include "state/store.h"
#include "tests/support/capture.h"
#include "util/buf.h"

#define MAX_LINES 8

static int64_t clock_now;

static int64_t fake_now(void *ctx)
{
	return clock_now;
}

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
}

static void on_sent(void *ctx, struct adapter *a, int64_t id)
{
	session_mgr_sent(ctx, id);
}

static void run(struct capture_adapter *c, const char *room, const char *user,
		const char *text, size_t len, int direct, const char *locale)
{
	struct command cmd = {
		.platform = c->base.ops->name, .room = room, .user = user, .name = user,
		.text = text, .text_len = len, .direct = direct, .locale = locale,
	};

	c->base.on_command(c->base.ctx, &c->base, &cmd);
}

static void setup_cmd(struct capture_adapter *c, const char *room, const char *user,
		      const char *text)
{
	run(c, room, user, text, strlen(text), 0, NULL);
}

/*
 * The three rooms are made once, in a template database file; every input
 * starts from a fresh copy of it (much faster than replaying the setup
 * commands: game start and its messages dominate).  The manager loads the
 * sessions from the store on demand, as after a restart.
 */
static char dir[64], work_db[96];
static char *template_bytes;
static size_t template_len;

static void rm_db(const char *path)
{
	char side[128];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

static void cleanup(void)
{
	rm_db(work_db);
	rmdir(dir);
}

static struct store *open_store(const char *path)
{
	struct buf err = BUF_INIT;
	struct store *st = store_sqlite_open(path, &err);

	if (!st) {
		fprintf(stderr, "fuzz_command: store %s: %s\n", path, buf_str(&err));
		abort();
	}
	buf_release(&err);
	return st;
}

static struct capture_adapter *attach(struct session_mgr *m, struct store *store)
{
	struct capture_adapter *c;

	clock_now = 1700000000;
	session_mgr_init(m, store, 12345);
	m->now = fake_now;
	c = capture_new("console");
	c->base.on_command = on_command;
	c->base.on_sent = on_sent;
	c->base.ctx = m;
	session_mgr_add_adapter(m, &c->base);
	return c;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct session_mgr *m = calloc(1, sizeof(*m));	/* 32 KiB of buckets */
	struct capture_adapter *c;
	struct store *store;
	FILE *f;
	long n;

	snprintf(dir, sizeof(dir), "%s/tabula-fuzz-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		perror("fuzz_command: mkdtemp");
		abort();
	}
	snprintf(work_db, sizeof(work_db), "%s/work.db", dir);
	atexit(cleanup);

	store = open_store(work_db);
	c = attach(m, store);
	setup_cmd(c, "lobby", "ana", "game new fortuna");
	setup_cmd(c, "lobby", "ben", "game join");
	setup_cmd(c, "f", "ana", "game new fortuna");
	setup_cmd(c, "f", "ben", "game join");
	setup_cmd(c, "f", "ana", "game start");
	setup_cmd(c, "g", "ana", "game new gtr");
	setup_cmd(c, "g", "ben", "game join");
	setup_cmd(c, "g", "ana", "game start");
	setup_cmd(c, "b", "ana", "game new builders");
	setup_cmd(c, "b", "ben", "game join");
	setup_cmd(c, "b", "ana", "game start");
	if (c->n == 0 || !session_mgr_find(m, "console", "g", NULL) ||
	    !session_mgr_find(m, "console", "b", NULL)) {
		fprintf(stderr, "fuzz_command: the setup commands did nothing\n");
		abort();
	}
	session_mgr_release(m);
	capture_free(c);
	store_close(store);	/* checkpoints: everything is in the main file */
	free(m);

	f = fopen(work_db, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		perror("fuzz_command: template");
		abort();
	}
	template_len = (size_t)n;
	template_bytes = malloc(template_len);
	if (fread(template_bytes, 1, template_len, f) != template_len) {
		perror("fuzz_command: template read");
		abort();
	}
	fclose(f);
	rm_db(work_db);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const rooms[] = { "lobby", "f", "g", "new", "lobby", "b", "g", "new" };
	static const char *const users[] = { "ana", "ben", "cy", "zed" };
	static struct session_mgr *m;
	struct store *store;
	struct capture_adapter *c;
	struct buf line = BUF_INIT;
	struct adapter_choice choices[ADAPTER_CHOICES_MAX];
	const uint8_t *p, *end = data + size;
	unsigned mode;
	int nlines = 0;
	FILE *f;

	if (size < 1)
		return 0;
	mode = data[0];
	if (!m)
		m = malloc(sizeof(*m));
	memset(m, 0, sizeof(*m));
	rm_db(work_db);
	f = fopen(work_db, "wb");
	if (!f || fwrite(template_bytes, 1, template_len, f) != template_len || fclose(f)) {
		perror("fuzz_command: work copy");
		abort();
	}
	store = open_store(work_db);
	c = attach(m, store);

	for (p = data + 1; p <= end && nlines < MAX_LINES; nlines++) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *room = rooms[(mode & 3) | ((mode >> 5) & 4)], *user = users[(mode >> 2) & 3];
		const char *locale = (mode & 0x40) ? "es-ES" : NULL;

		buf_reset(&line);
		if (mode & 0x10)
			buf_addstr(&line, "play ");
		buf_add(&line, p, n);
		run(c, room, user, line.s ? line.s : "", line.len, !!(mode & 0x20), locale);
		{
			struct command cmd = {
				.platform = "console", .room = room, .user = user, .name = user,
				.text = line.s ? line.s : "", .text_len = line.len,
				.locale = locale,
			};

			session_mgr_complete(m, &cmd, choices, ADAPTER_CHOICES_MAX);
		}
		capture_clear(c);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (mode & 0x80) {
		clock_now += 2 * 86400;
		session_mgr_tick(m);
	}

	session_mgr_release(m);
	capture_free(c);
	store_close(store);
	buf_release(&line);
	return 0;
}
