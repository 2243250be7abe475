/*
 * adapters/matrix/mxsync: a room's m.space.parent (what makes a Matrix
 * room part of a community, whose games are rated together): read from
 * the state and the timeline of joined rooms as MX_SPACE_PARENT items
 * whose state_key is the space's room id; a parent without `via` (removed)
 * or with a state key that is no room id is no item.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "adapters/matrix/mxsync.h"
#include "util/buf.h"

#define ME "@bot:example.org"

static const char body[] =
	"{\"next_batch\":\"s1\",\"rooms\":{\"join\":{"
	"\"!game:example.org\":{"
	" \"state\":{\"events\":["
	"  {\"type\":\"m.space.parent\",\"state_key\":\"!space:example.org\","
	"   \"sender\":\"@ann:example.org\",\"event_id\":\"$p1\","
	"   \"content\":{\"via\":[\"example.org\"],\"canonical\":true}},"
	"  {\"type\":\"m.space.parent\",\"state_key\":\"!gone:example.org\","
	"   \"sender\":\"@ann:example.org\",\"event_id\":\"$p2\",\"content\":{}},"
	"  {\"type\":\"m.space.parent\",\"state_key\":\"#alias:example.org\","
	"   \"sender\":\"@ann:example.org\",\"event_id\":\"$p3\","
	"   \"content\":{\"via\":[\"example.org\"]}},"
	"  {\"type\":\"m.space.parent\",\"state_key\":7,"
	"   \"sender\":\"@ann:example.org\",\"event_id\":\"$p4\","
	"   \"content\":{\"via\":[\"example.org\"]}}"
	" ]},"
	" \"timeline\":{\"events\":["
	"  {\"type\":\"m.space.parent\",\"state_key\":\"!other:example.org\","
	"   \"sender\":\"@ann:example.org\",\"event_id\":\"$p5\","
	"   \"content\":{\"via\":[\"example.org\"]}}"
	" ]}},"
	"\"!plain:example.org\":{\"timeline\":{\"events\":["
	"  {\"type\":\"m.room.message\",\"sender\":\"@ann:example.org\",\"event_id\":\"$m1\","
	"   \"content\":{\"msgtype\":\"m.text\",\"body\":\"!game new fortuna\"}}"
	"]}}}}}";

static void test_space_parent_items(void **state)
{
	struct mx_sync s;
	struct buf err = BUF_INIT;
	const struct mx_item *seen[4];
	size_t i, n = 0;

	(void)state;
	assert_int_equal(mx_sync_parse(body, strlen(body), ME, &s, &err), 0);
	for (i = 0; i < s.nitems; i++)
		if (s.items[i].kind == MX_SPACE_PARENT) {
			assert_true(n < 4);
			seen[n++] = &s.items[i];
		}
	assert_int_equal(n, 2);
	assert_string_equal(seen[0]->room, "!game:example.org");
	assert_string_equal(seen[0]->state_key, "!space:example.org");
	assert_int_equal(seen[0]->from_timeline, 0);
	assert_string_equal(seen[1]->state_key, "!other:example.org");
	assert_int_equal(seen[1]->from_timeline, 1);
	/* the room in no space has a message and no parent */
	for (i = 0; i < s.nitems; i++)
		if (!strcmp(s.items[i].room, "!plain:example.org"))
			assert_int_equal(s.items[i].kind, MX_MESSAGE);
	mx_sync_release(&s);
	buf_release(&err);
}

/* The filters ask for it, in the state and in the timeline. */
static void test_filters_ask_for_it(void **state)
{
	json_t *f = mx_sync_filter(MX_FILTER_NORMAL);
	json_t *room = json_object_get(f, "room");
	const char *where[2] = { "state", "timeline" };
	size_t i, k;
	int found;

	(void)state;
	for (k = 0; k < 2; k++) {
		json_t *types = json_object_get(json_object_get(room, where[k]), "types");

		found = 0;
		for (i = 0; i < json_array_size(types); i++)
			found |= !strcmp(json_string_value(json_array_get(types, i)),
					 "m.space.parent");
		assert_true(found);
	}
	json_decref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_space_parent_items),
		cmocka_unit_test(test_filters_ask_for_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
