/* adapters/matrix/mxroom: members, "exactly the bot and the player", "alone",
 * and the names the bot shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "adapters/matrix/mxroom.h"

#define BOT "@bot:s"
#define ANA "@ana:s"
#define EVE "@eve:s"

static void test_set_and_counts(void **state)
{
	struct mx_members ms;
	const struct mx_member *mm;
	char user[32];
	int i;

	mx_members_init(&ms, 1, 2);
	assert_null(mx_members_get(&ms, ANA));
	mx_members_set(&ms, ANA, MXM_INVITE, "Ana");
	mx_members_set(&ms, ANA, MXM_JOIN, NULL);	/* keeps the name */
	mm = mx_members_get(&ms, ANA);
	assert_int_equal(mm->membership, MXM_JOIN);
	assert_string_equal(mm->name, "Ana");
	assert_int_equal(ms.joined, 1);
	assert_int_equal(ms.invited, 0);
	mx_members_set(&ms, ANA, MXM_JOIN, "A\xe2\x80\xae\nna");	/* cleaned */
	assert_string_equal(mx_members_get(&ms, ANA)->name, "A na");
	mx_members_set(&ms, ANA, MXM_JOIN, "\xe2\x80\x8b");	/* nothing visible */
	assert_null(mx_members_get(&ms, ANA)->name);
	mx_members_set(&ms, ANA, MXM_LEAVE, NULL);
	assert_int_equal(ms.joined, 0);
	/* many members: counted, each found */
	for (i = 0; i < 3000; i++) {
		snprintf(user, sizeof(user), "@u%d:s", i);
		mx_members_set(&ms, user, i % 3 ? MXM_JOIN : MXM_INVITE, user);
	}
	assert_int_equal(ms.joined, 2000);
	assert_int_equal(ms.invited, 1000);
	assert_string_equal(mx_members_get(&ms, "@u2999:s")->name, "@u2999:s");
	mx_members_clear(&ms);
	assert_int_equal(ms.joined + ms.invited, 0);
	assert_null(mx_members_get(&ms, "@u1:s"));
	mx_members_release(&ms);

	assert_int_equal(mx_membership_of("join"), MXM_JOIN);
	assert_int_equal(mx_membership_of("knock"), MXM_KNOCK);
	assert_int_equal(mx_membership_of("joined"), MXM_NONE);
	assert_int_equal(mx_membership_of(NULL), MXM_NONE);
}

static void test_exactly(void **state)
{
	struct mx_members ms;

	mx_members_init(&ms, 3, 4);
	/* nothing known */
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_UNKNOWN);
	mx_members_set(&ms, BOT, MXM_JOIN, NULL);
	mx_members_set(&ms, ANA, MXM_INVITE, NULL);
	/* both there, nothing else known: still unknown (lazy loading) */
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_UNKNOWN);
	/* the summary says two: yes */
	mx_members_summary(&ms, 1, 1);
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_YES);
	assert_int_equal(mx_members_exactly(&ms, BOT, BOT), MX_NO);
	/* a third member invited, not joined: no */
	mx_members_set(&ms, EVE, MXM_INVITE, NULL);
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_NO);
	mx_members_set(&ms, EVE, MXM_LEAVE, NULL);
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_YES);
	/* the summary counts three, though the third is unknown: no */
	mx_members_summary(&ms, 2, -1);
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_NO);
	mx_members_summary(&ms, 1, -1);
	/* the player left: the room is not theirs */
	mx_members_set(&ms, ANA, MXM_LEAVE, NULL);
	mx_members_summary(&ms, 1, 0);
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_UNKNOWN);
	ms.complete = 1;
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_NO);
	mx_members_release(&ms);

	/* a complete list, no summary */
	mx_members_init(&ms, 3, 4);
	mx_members_set(&ms, BOT, MXM_JOIN, NULL);
	mx_members_set(&ms, ANA, MXM_JOIN, NULL);
	ms.complete = 1;
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_YES);
	assert_int_equal(mx_members_exactly(&ms, BOT, EVE), MX_NO);
	/* the bot not joined (only invited): no */
	mx_members_set(&ms, BOT, MXM_INVITE, NULL);
	assert_int_equal(mx_members_exactly(&ms, BOT, ANA), MX_NO);
	mx_members_release(&ms);
}

static void test_alone(void **state)
{
	struct mx_members ms;

	mx_members_init(&ms, 5, 6);
	assert_int_equal(mx_members_alone(&ms, BOT), MX_NO);	/* not joined */
	mx_members_set(&ms, BOT, MXM_JOIN, NULL);
	assert_int_equal(mx_members_alone(&ms, BOT), MX_UNKNOWN);
	mx_members_summary(&ms, 3, 0);	/* lazy loading: others unseen */
	assert_int_equal(mx_members_alone(&ms, BOT), MX_NO);
	mx_members_summary(&ms, 1, 1);
	assert_int_equal(mx_members_alone(&ms, BOT), MX_NO);
	mx_members_summary(&ms, 1, 0);
	assert_int_equal(mx_members_alone(&ms, BOT), MX_YES);
	mx_members_set(&ms, ANA, MXM_INVITE, NULL);	/* known to be there */
	assert_int_equal(mx_members_alone(&ms, BOT), MX_NO);
	mx_members_set(&ms, ANA, MXM_LEAVE, NULL);
	assert_int_equal(mx_members_alone(&ms, BOT), MX_YES);
	mx_members_release(&ms);

	mx_members_init(&ms, 5, 6);
	mx_members_set(&ms, BOT, MXM_JOIN, NULL);
	ms.complete = 1;
	assert_int_equal(mx_members_alone(&ms, BOT), MX_YES);
	mx_members_release(&ms);
}

static void test_clean_name(void **state)
{
	char out[128];

	assert_string_equal(mx_clean_name("Ana", ANA, out, sizeof(out)), "Ana");
	/* a forged line: newline, bidi override, zero-width space */
	assert_string_equal(mx_clean_name("Eve\n\xe2\x80\xae" "Winner: Eve\xe2\x80\x8b", EVE, out,
					  sizeof(out)), "Eve Winner: Eve");
	/* nothing visible: the localpart */
	assert_string_equal(mx_clean_name("\xe2\x80\x8b\xe2\x80\xae \n", "@zed:s", out, sizeof(out)),
			    "zed");
	assert_string_equal(mx_clean_name(NULL, "@zed:s", out, sizeof(out)), "zed");
	assert_string_equal(mx_clean_name("", "nocolon", out, sizeof(out)), "nocolon");
	/* a localpart with controls (a hostile server's user id) */
	assert_string_equal(mx_clean_name(NULL, "@a\nb:s", out, sizeof(out)), "a b");
	assert_string_equal(mx_clean_name(NULL, "@\xe2\x80\x8b:s", out, sizeof(out)), "?");
	assert_string_equal(mx_clean_name(NULL, NULL, out, sizeof(out)), "?");
	/* capped */
	assert_int_equal(strlen(mx_clean_name("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
					      ANA, out, sizeof(out))), 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_counts),
		cmocka_unit_test(test_exactly),
		cmocka_unit_test(test_alone),
		cmocka_unit_test(test_clean_name),
	};

	return cmocka_run_group_tests_name("matrix_room", tests, NULL, NULL);
}
