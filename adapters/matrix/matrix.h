/*
 * matrix: the Matrix adapter (struct adapter_ops) over the client-server API
 * (v3), with the HTTP client (adapters/http.h) on the program's one loop.
 * docs/matrix.md walks through it.
 *
 *   - logs in with an access token, or a user and password (m.login.password
 *     with a device id kept in the store), and again when the token expires;
 *   - long-polls /sync; the sync token and the events already handled are
 *     stored with each command's own commit (struct command.cursor_*), so a
 *     restart neither replays nor misses a command; the first sync only
 *     records where "now" is;
 *   - joins invited rooms (optionally only from an allowlist), leaves rooms
 *     where it is alone;
 *   - takes part in end-to-end encrypted rooms with a device of its own
 *     (adapters/matrix/mxe2e.h): decrypts commands, encrypts everything it
 *     sends there, and creates its direct chats encrypted;
 *   - commands are messages starting with the prefix ("!"), or any message
 *     in the player's DM room with the bot;
 *   - sends m.notice with HTML (adapters/matrix/mxhtml.h) and exact
 *     m.mentions, PUT with the outbox key as txnId, one room at a time and in
 *     order, honouring 429 (M_LIMIT_EXCEEDED) and retrying 5xx and network
 *     errors with backoff;
 *   - private messages go to one DM room per player, created by the bot
 *     (is_direct, trusted_private_chat), recorded in m.direct and the store,
 *     and only while its joined and invited members are exactly the bot
 *     and the player; otherwise a new one is made;
 *   - a /sync response over the size cap or unreadable is asked again with
 *     smaller timelines, then stepped over (the rooms' messages read back
 *     with /messages), never retried as it is;
 *   - the send queue is bounded: while it is full, commands wait.
 *
 * Secrets: the password and access tokens go only into request bodies and
 * Authorization lines; no log line contains them.
 */
#ifndef ADAPTERS_MATRIX_MATRIX_H
#define ADAPTERS_MATRIX_MATRIX_H

#include <stdint.h>

#include "adapters/adapter.h"
#include "state/store.h"
#include "util/buf.h"

#define MATRIX_SYNC_TIMEOUT_MS 30000
/* The send queue's bound: requests waiting for the homeserver plus private
 * messages waiting for their direct chat.  When it is reached, commands
 * wait (the sync batch pauses) until it is down to half. */
#define MATRIX_SENDQ_MAX 512
/* Exit status when the homeserver refuses the credentials. */
#define MATRIX_EXIT_AUTH 15
/* Exit status when the stored encryption keys do not open with the pickle
 * key (MATRIX_PICKLE_KEY or the key file). */
#define MATRIX_EXIT_KEYS 16

struct matrix_config {
	const char *homeserver;		/* https://..., or http:// to loopback */
	const char *access_token;	/* either this ... */
	const char *user;		/* ... or user + password */
	const char *password;
	const char *prefix;		/* NULL: "!" */
	/* Whose invites are accepted: comma-separated user ids ("@ana:x.org")
	 * and server names ("x.org"); NULL or "": everyone's. */
	const char *allow;
	struct store *store;		/* borrowed: device id, sync token, DM rooms */
	uint64_t seed;
	size_t sendq_max;		/* 0: MATRIX_SENDQ_MAX (tests set less) */
	/* The key the encryption keys are sealed with in the store: pickle_key
	 * (MATRIX_PICKLE_KEY, at least 16 bytes) when set, else the key file
	 * key_file (made 0600 when missing; NULL: a store in memory, a key for
	 * this process only).  Never logged. */
	const char *pickle_key;
	const char *key_file;
	/* Encrypted events waiting for their key: at most hold_max, each for
	 * at most hold_ms (0: mxhold.h's defaults; tests set less). */
	size_t hold_max;
	int64_t hold_ms;
	/* Tests only (TABULA_TEST_CLOCK): the clock (unix seconds) that room
	 * key rotation and held events go by.  NULL: the real one. */
	int64_t (*now)(void *ctx);
	void *now_ctx;
};

/* A new, unstarted adapter (strings copied), or NULL with err filled. */
struct adapter *matrix_adapter_new(const struct matrix_config *cfg, struct buf *err);

/* 0 while running, else the exit status (MATRIX_EXIT_AUTH, MATRIX_EXIT_KEYS). */
int matrix_adapter_exit_code(const struct adapter *a);

/* Whether an invite from inviter to room passes the allowlist (exposed for
 * tests).  allow NULL or "": 1. */
int matrix_allowed(const char *allow, const char *inviter, const char *room);

#endif
