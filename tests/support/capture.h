/*
 * A test adapter that records everything the bot says, as plain text, with
 * where it went.  `confirm` = 0 makes it accept outbox messages without
 * confirming them (as a platform that never answered), to test re-sending.
 */
#ifndef TESTS_CAPTURE_H
#define TESTS_CAPTURE_H

#include "adapters/adapter.h"

struct captured {
	char *room;	/* room it went to or came from */
	char *user;	/* NULL: public; else private to this user */
	char *text;
	char *key;	/* outbox key, NULL for replies */
	int64_t outbox_id;
};

struct capture_adapter {
	struct adapter base;
	struct captured *v;
	size_t n, cap;
	int confirm;
};

struct capture_adapter *capture_new(const char *platform);
void capture_free(struct capture_adapter *c);
void capture_clear(struct capture_adapter *c);
/* Runs one command "user: text" in room through on_command. */
void capture_cmd(struct capture_adapter *c, const char *room, const char *user,
		 const char *text);
void capture_cmd_len(struct capture_adapter *c, const char *room, const char *user,
		     const char *text, size_t len);
/* The number of messages since the last clear whose text holds needle, to
 * user (NULL: public only; "*": any). */
int capture_count(const struct capture_adapter *c, const char *user, const char *needle);
/* Everything public since the last clear, joined (for asserts on leaks). */
char *capture_public_text(const struct capture_adapter *c);
void capture_dump(const struct capture_adapter *c);

#endif
