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
	/* struct outmsg's controls (sent messages only; 0 / NULL for replies) */
	int64_t session, version;
	int64_t over_session;	/* a finished game's last board (Rematch) */
	char *locale;	/* copy, or NULL */
	/* the user ids of the message's mentions, in order, each followed
	 * by a space ("ana ben "); "" when none */
	char *mentions;
	/* pictures (capture_new_pictures): a message whose picture follows
	 * carries its follow id; what came for it is an entry of its own,
	 * with picture set (the file name; text "[picture NAME]"), or
	 * picture "" (none came: text is what came in its place, or "") */
	uint64_t follow;
	char *picture;
	size_t png_len;
};

struct capture_adapter {
	struct adapter base;
	struct captured *v;
	size_t n, cap;
	int confirm;
	const char *locale;	/* the locale commands carry (NULL: unknown) */
	const char *community;	/* the community commands carry (NULL: none) */
};

struct capture_adapter *capture_new(const char *platform);
/* The same taking pictures: answers with pictures (reply_image) and
 * pictures that follow their messages (the `picture` op, which confirms
 * an outbox message then).  A picture sent with its message is recorded
 * as an entry after it. */
struct capture_adapter *capture_new_pictures(const char *platform, unsigned caps);
/* The same with capability bits (ADAPTER_CAP_*).  Fakes with different
 * names or caps coexist (one ops table each, at most 8 kinds). */
struct capture_adapter *capture_new_caps(const char *platform, unsigned caps);
void capture_free(struct capture_adapter *c);
void capture_clear(struct capture_adapter *c);
/* Runs one command "user: text" in room through on_command. */
void capture_cmd(struct capture_adapter *c, const char *room, const char *user,
		 const char *text);
/* The same as a click on a control of a message showing session/version
 * (struct command's expect_session / expect_version). */
void capture_cmd_expect(struct capture_adapter *c, const char *room, const char *user,
			const char *text, int64_t session, int64_t version);
/* A click on the Rematch control of finished game rematch_of's last
 * board (struct command's rematch_of; text "rematch"). */
void capture_cmd_rematch(struct capture_adapter *c, const char *room, const char *user,
			 int64_t rematch_of);
/* The same sent in a private chat with the bot (struct command's direct). */
void capture_cmd_direct(struct capture_adapter *c, const char *room, const char *user,
			const char *text);
/* The same with a display name other than the user id (untrusted text). */
void capture_cmd_named(struct capture_adapter *c, const char *room, const char *user,
		       const char *name, const char *text);
void capture_cmd_len(struct capture_adapter *c, const char *room, const char *user,
		     const char *text, size_t len);
/* The number of messages since the last clear whose text holds needle, to
 * user (NULL: public only; "*": any). */
int capture_count(const struct capture_adapter *c, const char *user, const char *needle);
/* Everything public since the last clear, joined (for asserts on leaks). */
/* The last message (NULL: public; else private to user) whose text holds
 * needle, and that came from the outbox (sent) or not (replies); NULL if none. */
const struct captured *capture_last(const struct capture_adapter *c, const char *user,
				    int sent, const char *needle);
/* Whether message m mentions user (a RICH_MENTION span with that id). */
int capture_mentions(const struct captured *m, const char *user);
char *capture_public_text(const struct capture_adapter *c);
void capture_dump(const struct capture_adapter *c);

#endif
