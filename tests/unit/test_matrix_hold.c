/* adapters/matrix/mxhold: encrypted events waiting for their key, bounded so
 * that strangers can neither push out a player's waiting command nor make
 * the bot work for them (issue 22, attack 5). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/mxcrypto.h"
#include "adapters/matrix/mxhold.h"
#include "adapters/matrix/mxsync.h"
#include "util/buf.h"

#define ANA "@ana:s"
#define ROOM "!r:s"
#define FLOOD "!flood:s"

/* An MX_CIPHER item into *s (release it): ctlen bytes of ciphertext. */
static void cipher_item(struct mx_sync *s, const char *room, const char *sender,
			const char *event_id, const char *session, size_t ctlen)
{
	char *ct = malloc(ctlen + 1);
	json_t *ev, *page;
	char *text;
	struct buf err = BUF_INIT;

	memset(ct, 'A', ctlen);
	ct[ctlen] = '\0';
	ev = json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}}", "type", "m.room.encrypted",
		       "sender", sender, "event_id", event_id, "content", "algorithm",
		       MXC_MEGOLM_ALGORITHM, "sender_key", "CURVEOFTHESENDER", "session_id",
		       session, "ciphertext", ct);
	page = json_pack("{s:[o]}", "chunk", ev);
	text = json_dumps(page, JSON_COMPACT);
	assert_int_equal(mx_messages_parse(text, strlen(text), room, s, &err), 0);
	free(text);
	json_decref(page);
	buf_release(&err);
	free(ct);
}

/* mxh_add of one event; the dropped one (if any) into *who ("" none). */
static enum mxh_added add(struct mxh *h, const char *room, const char *sender,
			  const char *event_id, int64_t now, char *who, size_t n)
{
	struct mx_sync s;
	struct mxh_event dropped;
	int nd;
	enum mxh_added r;

	cipher_item(&s, room, sender, event_id, "S", 10);
	r = mxh_add(h, &s.items[0], now, &dropped, &nd, NULL);
	mx_sync_release(&s);
	if (who)
		snprintf(who, n, "%s", nd ? dropped.event_id : "");
	if (nd)
		json_decref(dropped.ev);
	return r;
}

static size_t count_from(const struct mxh *h, const char *sender)
{
	size_t i, n = 0;

	for (i = 0; i < h->n; i++)
		n += !strcmp(h->v[i].sender, sender);
	return n;
}

static void test_hold_once_and_not_too_long(void **state)
{
	struct mxh h;
	struct mx_sync s;
	struct mxh_event dropped;
	const struct mxh_event *added;
	int nd;

	mxh_init(&h, 20, 1000);
	cipher_item(&s, ROOM, ANA, "$a", "S1", 100);
	assert_int_equal(mxh_add(&h, &s.items[0], 10, &dropped, &nd, &added), MXH_ADDED);
	assert_non_null(added);
	assert_string_equal(added->event_id, "$a");
	assert_string_equal(added->sender_key, "CURVEOFTHESENDER");
	assert_int_equal(mxh_add(&h, &s.items[0], 11, &dropped, &nd, &added), MXH_KNOWN);
	mx_sync_release(&s);
	cipher_item(&s, ROOM, ANA, "$big", "S1", MXH_CIPHER_MAX + 1);
	assert_int_equal(mxh_add(&h, &s.items[0], 10, &dropped, &nd, NULL), MXH_TOO_LONG);
	mx_sync_release(&s);
	assert_int_equal(h.n, 1);
	mxh_release(&h);
}

/* A sender over its share loses its own oldest, nobody else's. */
static void test_hold_sender_share(void **state)
{
	struct mxh h;
	char id[32], who[MX_ID_SIZE];
	size_t i;

	mxh_init(&h, 0, 0);
	add(&h, ROOM, ANA, "$ana", 1, NULL, 0);
	for (i = 0; i < MXH_PER_SENDER + 3; i++) {
		snprintf(id, sizeof(id), "$eve%zu", i);
		assert_int_equal(add(&h, FLOOD, "@eve:s", id, 2 + (int64_t)i, who, sizeof(who)),
				 MXH_ADDED);
		if (i >= MXH_PER_SENDER) {
			snprintf(id, sizeof(id), "$eve%zu", i - MXH_PER_SENDER);
			assert_string_equal(who, id);
		} else {
			assert_string_equal(who, "");
		}
	}
	assert_true(mxh_has(&h, "$ana"));
	assert_int_equal(count_from(&h, "@eve:s"), MXH_PER_SENDER);
	mxh_release(&h);
}

/*
 * A room over its share loses an event of that room: the oldest of whoever
 * holds the most there.  Seventeen senders flooding the room a player's
 * command waits in do not push it out (on main the oldest of all went).
 */
static void test_hold_room_share(void **state)
{
	struct mxh h;
	char id[64], sender[32], who[MX_ID_SIZE];
	size_t i, k, lost = 0;

	mxh_init(&h, 0, 0);
	add(&h, ROOM, ANA, "$ana", 1, NULL, 0);
	add(&h, FLOOD, "@bystander:s", "$by", 1, NULL, 0);
	for (i = 0; i < 8; i++)
		for (k = 0; k < 17; k++) {
			snprintf(sender, sizeof(sender), "@flood%zu:s", k);
			snprintf(id, sizeof(id), "$f%zu-%zu", k, i);
			assert_int_equal(add(&h, ROOM, sender, id, 10, who, sizeof(who)), MXH_ADDED);
			assert_string_not_equal(who, "$ana");
			assert_string_not_equal(who, "$by");	/* another room */
			lost += who[0] != '\0';
		}
	assert_true(mxh_has(&h, "$ana"));
	assert_true(mxh_has(&h, "$by"));
	assert_int_equal(lost, 1 + 8 * 17 - MXH_PER_ROOM);
	for (i = k = 0; i < h.n; i++)
		k += !strcmp(h.v[i].room, ROOM);
	assert_int_equal(k, MXH_PER_ROOM);
	/* the biggest sender there gives way, the most recent on a tie */
	mxh_release(&h);
	mxh_init(&h, 0, 0);
	for (k = 0; k < 4; k++)
		for (i = 0; i < (k < 3 ? MXH_PER_SENDER : MXH_PER_ROOM - 2 - 3 * MXH_PER_SENDER);
		     i++) {
			snprintf(sender, sizeof(sender), "@big%zu:s", k);
			snprintf(id, sizeof(id), "$big%zu-%zu", k, i);
			add(&h, ROOM, sender, id, 10, NULL, 0);
		}
	add(&h, ROOM, ANA, "$ana", 11, NULL, 0);
	add(&h, ROOM, "@ben:s", "$ben", 12, NULL, 0);
	assert_int_equal(add(&h, ROOM, "@cy:s", "$cy", 13, who, sizeof(who)), MXH_ADDED);
	assert_string_equal(who, "$big2-0");
	mxh_release(&h);
}

/* A full list refuses a new event of someone who holds none, rather than
 * push out a stranger's; a sender who holds some gives up its own. */
static void test_hold_full_list_refuses_strangers(void **state)
{
	struct mxh h;
	char id[32], sender[32], who[MX_ID_SIZE];
	size_t i;

	mxh_init(&h, 20, 0);
	add(&h, ROOM, ANA, "$ana", 1, NULL, 0);
	for (i = 0; i < 19; i++) {
		snprintf(sender, sizeof(sender), "@f%zu:s", i % 5);
		snprintf(id, sizeof(id), "$f%zu", i);
		snprintf(who, sizeof(who), "!room%zu:s", i % 4);
		assert_int_equal(add(&h, who, sender, id, 2, NULL, 0), MXH_ADDED);
	}
	assert_int_equal(h.n, 20);
	assert_int_equal(add(&h, FLOOD, "@new:s", "$new", 3, who, sizeof(who)), MXH_FULL);
	assert_string_equal(who, "");
	assert_false(mxh_has(&h, "$new"));
	assert_int_equal(add(&h, FLOOD, "@f1:s", "$f1b", 3, who, sizeof(who)), MXH_ADDED);
	assert_string_equal(who, "$f1");	/* its own oldest */
	assert_true(mxh_has(&h, "$ana"));
	assert_int_equal(h.n, 20);
	mxh_release(&h);
}

/* A token bucket per sender: a burst, then one every MXH_RATE_MS; logged
 * once a while; a clock gone back does not lock anybody out. */
static void test_hold_rate(void **state)
{
	struct mxh h;
	int i, log_it;
	int64_t t = 1000000;

	mxh_init(&h, 0, 0);
	for (i = 0; i < MXH_RATE_BURST; i++) {
		assert_int_equal(mxh_rate(&h, "@eve:s", t, &log_it), 1);
		assert_int_equal(log_it, 0);
	}
	assert_int_equal(mxh_rate(&h, "@eve:s", t, &log_it), 0);
	assert_int_equal(log_it, 1);
	assert_int_equal(mxh_rate(&h, "@eve:s", t + 10, &log_it), 0);
	assert_int_equal(log_it, 0);				/* logged once */
	assert_int_equal(mxh_rate(&h, ANA, t, &log_it), 1);	/* others unaffected */
	assert_int_equal(mxh_rate(&h, "@eve:s", t + MXH_RATE_MS, &log_it), 1);
	assert_int_equal(mxh_rate(&h, "@eve:s", t + MXH_RATE_MS, &log_it), 0);
	assert_int_equal(log_it, 0);
	assert_int_equal(mxh_rate(&h, "@eve:s", t + MXH_RATE_LOG_MS + 1, &log_it), 1);
	for (i = 0; i < 50; i++)
		mxh_rate(&h, "@eve:s", t + MXH_RATE_LOG_MS + 1, &log_it);
	assert_int_equal(log_it, 0);
	assert_int_equal(mxh_rate(&h, "@eve:s", t + 2 * MXH_RATE_LOG_MS + 2, &log_it), 1);
	for (i = 0; i < MXH_RATE_BURST; i++)
		mxh_rate(&h, "@eve:s", t + 2 * MXH_RATE_LOG_MS + 2, &log_it);
	assert_int_equal(log_it, 1);				/* a new period */
	/* the clock went back an hour: a full bucket, not an hour's wait */
	assert_int_equal(mxh_rate(&h, "@eve:s", t - 3600000, &log_it), 1);
	/* many senders: the table stays bounded, a full bucket is forgotten */
	for (i = 0; i < 3 * MXH_TRACK_MAX; i++) {
		char who[32];

		snprintf(who, sizeof(who), "@s%d:s", i);
		assert_int_equal(mxh_rate(&h, who, t + i * (int64_t)MXH_RATE_MS * MXH_RATE_BURST,
					  &log_it), 1);
	}
	assert_true(h.nrate <= MXH_TRACK_MAX);
	mxh_release(&h);
}

static void test_hold_tell_once_a_while(void **state)
{
	struct mxh h;
	int i;
	int64_t t = 5000;

	mxh_init(&h, 0, 0);
	assert_int_equal(mxh_tell(&h, ROOM, ANA, t), 1);
	assert_int_equal(mxh_tell(&h, ROOM, ANA, t + 1), 0);
	assert_int_equal(mxh_tell(&h, FLOOD, ANA, t + 1), 1);		/* another room */
	assert_int_equal(mxh_tell(&h, ROOM, "@ben:s", t + 1), 1);	/* another sender */
	assert_int_equal(mxh_tell(&h, ROOM, ANA, t + MXH_TELL_MS - 1), 0);
	assert_int_equal(mxh_tell(&h, ROOM, ANA, t + MXH_TELL_MS), 1);
	for (i = 0; i < 2 * MXH_TRACK_MAX; i++) {
		char who[32];

		snprintf(who, sizeof(who), "@s%d:s", i);
		assert_int_equal(mxh_tell(&h, ROOM, who, t), 1);
	}
	assert_true(h.ntold <= MXH_TRACK_MAX);
	mxh_release(&h);
}

static void test_hold_ready_and_expire(void **state)
{
	struct mxh h;
	struct mx_sync s, r;
	struct mxh_event dropped;
	int nd;
	size_t i;
	char id[32];

	mxh_init(&h, 0, 1000);
	for (i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "$x%zu", i);
		cipher_item(&s, ROOM, ANA, id, i == 1 ? "S2" : "S1", 10);
		mxh_add(&h, &s.items[0], 1000 + 900 * (int64_t)i, &dropped, &nd, NULL);
		mx_sync_release(&s);
	}
	assert_int_equal(mxh_ready(&h, ROOM, "S1", &r), 2);
	assert_int_equal(r.items[0].kind, MX_CIPHER);
	assert_string_equal(r.items[0].event_id, "$x0");
	assert_string_equal(r.items[0].sender_key, "CURVEOFTHESENDER");
	mx_sync_release(&r);
	assert_int_equal(mxh_ready(&h, ROOM, NULL, &r), 3);
	mx_sync_release(&r);
	assert_int_equal(mxh_ready(&h, "!other:s", NULL, &r), 0);
	mx_sync_release(&r);
	assert_int_equal(mxh_expire(&h, 2100, NULL, NULL), 1);
	assert_false(mxh_has(&h, "$x0"));
	assert_true(mxh_remove(&h, "$x1"));
	assert_false(mxh_remove(&h, "$x1"));
	mxh_release(&h);
}

static int converted;

static void on_converted(void *ctx, const struct mxh_event *e)
{
	converted++;
	assert_non_null(e->ev);
}

/* One row per event and back, in order by age; the old single list read
 * once (its entries have no "k": the event's content says). */
static void test_hold_rows(void **state)
{
	struct mxh h, back;
	struct mx_sync s;
	struct mxh_event dropped;
	int nd;
	char *row, *text;
	size_t i;
	json_t *list;

	mxh_init(&h, 0, 0);
	cipher_item(&s, ROOM, ANA, "$old", "S1", 50);
	mxh_add(&h, &s.items[0], 100, &dropped, &nd, NULL);
	mx_sync_release(&s);
	cipher_item(&s, ROOM, "@ben:s", "$new", "S2", 50);
	mxh_add(&h, &s.items[0], 200, &dropped, &nd, NULL);
	mx_sync_release(&s);
	mxh_init(&back, 2, 0);
	row = mxh_row(&h.v[1]);
	assert_int_equal(mxh_restore(&back, "$new", row), MXH_ADDED);
	assert_int_equal(mxh_restore(&back, "$new", row), MXH_KNOWN);
	assert_int_equal(mxh_restore(&back, "$other", row), MXH_BAD);	/* not its row */
	free(row);
	row = mxh_row(&h.v[0]);
	assert_int_equal(mxh_restore(&back, "$old", row), MXH_ADDED);
	free(row);
	assert_string_equal(back.v[0].event_id, "$old");	/* by age */
	assert_string_equal(back.v[1].sender_key, "CURVEOFTHESENDER");
	assert_string_equal(back.v[1].sender, "@ben:s");
	assert_string_equal(back.v[1].session_id, "S2");
	assert_int_equal(back.v[1].since, 200);
	cipher_item(&s, ROOM, ANA, "$third", "S1", 50);
	mxh_add(&h, &s.items[0], 300, &dropped, &nd, NULL);
	mx_sync_release(&s);
	row = mxh_row(&h.v[2]);
	assert_int_equal(mxh_restore(&back, "$third", row), MXH_FULL);	/* max 2 */
	free(row);
	assert_int_equal(mxh_restore(&back, NULL, "[1, 2]"), MXH_BAD);
	assert_int_equal(mxh_restore(&back, NULL, "{\"r\": 2}"), MXH_BAD);
	assert_int_equal(mxh_restore(&back, NULL, "not json"), MXH_BAD);
	mxh_release(&back);

	/* the old list, as versions before one row per event wrote it */
	list = json_array();
	for (i = 0; i < h.n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:I, s:O}", "r", h.v[i].room,
						      "s", h.v[i].session_id,
						      "t", (json_int_t)h.v[i].since,
						      "e", h.v[i].ev));
	json_array_append_new(list, json_pack("{s:i}", "r", 2));
	json_array_append_new(list, json_integer(7));
	text = json_dumps(list, JSON_COMPACT);
	json_decref(list);
	mxh_init(&back, 0, 0);
	converted = 0;
	assert_int_equal(mxh_restore_list(&back, text, on_converted, NULL), 0);
	assert_int_equal(converted, 3);
	assert_int_equal(back.n, 3);
	assert_string_equal(back.v[2].sender_key, "CURVEOFTHESENDER");
	converted = 0;
	assert_int_equal(mxh_restore_list(&back, text, on_converted, NULL), 0);
	assert_int_equal(converted, 0);		/* held already: not again */
	assert_int_equal(mxh_restore_list(&back, "{\"not\": \"a list\"}", NULL, NULL), -1);
	free(text);
	mxh_release(&back);
	mxh_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_once_and_not_too_long),
		cmocka_unit_test(test_hold_sender_share),
		cmocka_unit_test(test_hold_room_share),
		cmocka_unit_test(test_hold_full_list_refuses_strangers),
		cmocka_unit_test(test_hold_rate),
		cmocka_unit_test(test_hold_tell_once_a_while),
		cmocka_unit_test(test_hold_ready_and_expire),
		cmocka_unit_test(test_hold_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
