/*
 * fuzz_discord_gateway: the Discord gateway state machine on hostile frames.
 *
 * Input: [mode byte][frame bytes...].  The low three bits of the mode pick
 * the state the machine is driven into first with well-formed traffic:
 *   0 DISCONNECTED   1 WAIT_HELLO   2 IDENTIFYING   3 CONNECTED
 *   4 RESUMING       5 CLOSING (after op 7)   6 DEAD (4004)
 *   7 CONNECTED with a heartbeat in flight
 * Bit 3 set: the frame is fed through gateway_frame_append() in pieces of
 * 1 + (mode >> 4) * 37 bytes (the last one final); else one
 * gateway_on_text().  Every event's actions are drained and released (the
 * DISPATCH payloads serialised).  Afterwards a late timer, a close and a
 * reopen run so whatever the frame left behind is exercised too.
 */
#define _GNU_SOURCE	/* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "adapters/discord/gateway.h"

#define TOKEN "Bot.SECRET-fuzz-token"

static const char hello[] = "{\"op\":10,\"d\":{\"heartbeat_interval\":41250}}";
static const char ready[] =
	"{\"op\":0,\"s\":1,\"t\":\"READY\",\"d\":{\"v\":10,"
	"\"session_id\":\"sess1\","
	"\"resume_gateway_url\":\"wss://resume.example.gg\","
	"\"user\":{\"id\":\"9\"},\"application\":{\"id\":\"123\",\"flags\":0}}}";
static const char reconnect[] = "{\"op\":7,\"d\":null}";

/* the input, so a token-like string the input itself carries is not
 * taken for a leak */
static const uint8_t *in_data;
static size_t in_size;

static void drain(struct gateway *g)
{
	struct gateway_action a;
	int n = 0;

	while (gateway_next_action(g, &a)) {
		if ((a.kind == GATEWAY_LOG || a.kind == GATEWAY_FATAL) && a.text &&
		    strstr(a.text, "SECRET") && !memmem(in_data, in_size, "SECRET", 6)) {
			fprintf(stderr, "fuzz_discord_gateway: the token leaked: %s\n", a.text);
			abort();
		}
		if (a.kind == GATEWAY_DISPATCH && a.d)
			free(json_dumps(a.d, JSON_COMPACT | JSON_ENCODE_ANY));
		gateway_action_release(&a);
		if (++n > 100000) {
			fprintf(stderr, "fuzz_discord_gateway: the action queue never empties\n");
			abort();
		}
	}
}

static void text(struct gateway *g, const char *s, uint64_t now)
{
	gateway_on_text(g, s, strlen(s), now);
	drain(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gateway g;
	uint64_t now = 1000;
	unsigned mode;
	const char *frame;
	size_t len;

	if (size < 1)
		return 0;
	in_data = data;
	in_size = size;
	mode = data[0];
	frame = (const char *)data + 1;
	len = size - 1;

	gateway_init(&g, TOKEN, GATEWAY_INTENTS_DEFAULT, 0, 1, 7);
	drain(&g);
	switch (mode & 7) {
	case 0:
		break;
	case 1:
		gateway_on_open(&g, now);
		drain(&g);
		break;
	case 2:
		gateway_on_open(&g, now);
		drain(&g);
		text(&g, hello, now);
		break;
	case 3: case 4: case 5: case 6: case 7:
		gateway_on_open(&g, now);
		drain(&g);
		text(&g, hello, now);
		text(&g, ready, now += 10);
		if ((mode & 7) == 4) {
			gateway_on_close(&g, 1006, now += 10);
			drain(&g);
			gateway_on_open(&g, now += 5000);
			drain(&g);
			text(&g, hello, now);
		} else if ((mode & 7) == 5) {
			text(&g, reconnect, now += 10);
		} else if ((mode & 7) == 6) {
			gateway_on_close(&g, 4004, now += 10);
			drain(&g);
		} else if ((mode & 7) == 7) {
			gateway_on_timer(&g, now += 41250);
			drain(&g);
		}
		break;
	}

	if (mode & 8) {
		size_t piece = 1 + (size_t)(mode >> 4) * 37, off = 0;

		do {
			size_t n = len - off < piece ? len - off : piece;

			gateway_frame_append(&g, frame + off, n, off + n == len, now);
			drain(&g);
			off += n;
		} while (off < len);
	} else {
		gateway_on_text(&g, frame, len, now);
		drain(&g);
	}

	gateway_on_timer(&g, now += 100000);
	drain(&g);
	gateway_on_close(&g, 1006, now += 10);
	drain(&g);
	gateway_on_open(&g, now += 70000);
	drain(&g);
	text(&g, hello, now);
	gateway_release(&g);
	return 0;
}
