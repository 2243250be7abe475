/*
 * mxcrypto: the Olm and Megolm machinery the Matrix adapter needs, over
 * libolm, and the pickle key that seals it in the store.  No I/O except the
 * key file and the system's random bytes; no globals.
 *
 *   - an account (the bot's device): identity keys, signatures, one-time
 *     keys and a fallback key, in the shapes /keys/upload takes;
 *   - Olm sessions (to-device messages between two devices);
 *   - Megolm sessions: outbound (the bot's, one per encrypted room) and
 *     inbound (everybody's, one per sender and session);
 *   - canonical JSON, signing and checking signatures (device keys,
 *     one-time keys);
 *   - pickles: every object serialises to text encrypted with the pickle
 *     key (libolm's AES-256 + HMAC-SHA-256 under a key derived from it), and
 *     back.
 *
 * Secrets.  Pickles, session keys, the pickle key and plaintexts are
 * secrets.  Functions returning one return a malloc'd NUL-terminated string
 * the caller owns and frees with mxc_free_secret(), which wipes it first.
 * Objects wipe their libolm state when freed.  Random bytes come from the
 * system (getrandom), never from the bot's seeded generator: TABULA_SEED
 * fixes games, not keys.
 *
 * Errors: -1 (or NULL) with a message in err; nothing here aborts on bad
 * input (a ciphertext, a pickle or a key that does not decode is an
 * ordinary error).  Only a system without random bytes aborts, like
 * xmalloc without memory.
 */
#ifndef ADAPTERS_MATRIX_MXCRYPTO_H
#define ADAPTERS_MATRIX_MXCRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"

#define MXC_KEY_SIZE 64		/* a curve25519/ed25519 key, unpadded base64 + NUL */
#define MXC_SIG_SIZE 96		/* an ed25519 signature, unpadded base64 + NUL */
#define MXC_SESSION_ID_SIZE 64	/* a Megolm or Olm session id + NUL */

#define MXC_OLM_ALGORITHM "m.olm.v1.curve25519-aes-sha2"
#define MXC_MEGOLM_ALGORITHM "m.megolm.v1.aes-sha2"

/* ---- the pickle key ---- */

#define MXC_PICKLE_KEY_MIN 16	/* bytes: shorter keys are refused */
#define MXC_PICKLE_KEY_MAX 256

struct mxc_key {
	unsigned char b[MXC_PICKLE_KEY_MAX];
	size_t n;
	int ephemeral;		/* made up for this process (a store in memory) */
};

/*
 * The key pickles are sealed with.  value (MATRIX_PICKLE_KEY), when set and
 * not empty, is the key (at least MXC_PICKLE_KEY_MIN bytes).  Otherwise the
 * key file at path: read when it exists (a regular file owned by the
 * process's user; a symbolic link is refused; a file others could read is
 * made 0600), else created 0600 with 32 random bytes (hex).  path NULL (a
 * store in memory): a random key for this process only.  The key is never
 * logged.  -1 with err on failure.
 */
int mxc_pickle_key_load(const char *value, const char *path, struct mxc_key *out,
			struct buf *err);
/* Wipes the key. */
void mxc_key_wipe(struct mxc_key *k);

/* n random bytes from the system. */
void mxc_random(void *p, size_t n);

/* Wipes and frees a secret string (NULL is fine). */
void mxc_free_secret(char *s);

/* ---- canonical JSON and signatures ---- */

/*
 * The canonical JSON of obj without its "signatures" and "unsigned" members
 * (keys sorted, no white space, UTF-8 as is): what Matrix signs.  A new
 * string (free()), or NULL when obj is not an object.
 */
char *mxc_canonical(const json_t *obj);

/*
 * Whether obj carries a valid ed25519 signature by key (base64) under
 * signatures.<user>.<key_id>: 0 yes, -1 no (missing, malformed, wrong).
 */
int mxc_verify_json(const json_t *obj, const char *user, const char *key_id, const char *key);

/* ---- the account ---- */

struct mxc_account;

/* A new account with fresh identity keys. */
struct mxc_account *mxc_account_new(void);
/* The account pickled in pickle, or NULL with err (a wrong key, a broken
 * pickle). */
struct mxc_account *mxc_account_unpickle(const struct mxc_key *key, const char *pickle,
					 struct buf *err);
/* The account pickled with key: a secret (mxc_free_secret). */
char *mxc_account_pickle(struct mxc_account *a, const struct mxc_key *key);
void mxc_account_free(struct mxc_account *a);

/* The identity keys (borrowed, valid while a lives). */
const char *mxc_account_curve(const struct mxc_account *a);
const char *mxc_account_ed(const struct mxc_account *a);

/* Adds the account's signature to obj (an object): signatures.<user>.
 * "ed25519:<device>".  0, or -1 when obj is not an object. */
int mxc_account_sign_json(struct mxc_account *a, json_t *obj, const char *user,
			  const char *device);

/* The signed device_keys object for /keys/upload (new reference). */
json_t *mxc_account_device_keys(struct mxc_account *a, const char *user, const char *device);

/* How many one-time keys the account holds at most. */
size_t mxc_account_max_otks(const struct mxc_account *a);
/* Makes n new one-time keys (unpublished until mxc_account_published). */
void mxc_account_generate_otks(struct mxc_account *a, size_t n);
/* Makes a new fallback key (the previous one stays usable for a while). */
void mxc_account_generate_fallback(struct mxc_account *a);
/*
 * The unpublished one-time keys, signed, as /keys/upload's one_time_keys
 * ({"signed_curve25519:<id>": {"key": ..., "signatures": ...}}), and the
 * unpublished fallback key as its fallback_keys (with "fallback": true);
 * new references, empty objects when there is none.
 */
json_t *mxc_account_otks(struct mxc_account *a, const char *user, const char *device);
json_t *mxc_account_fallback(struct mxc_account *a, const char *user, const char *device);
/* The keys above are on the server now. */
void mxc_account_published(struct mxc_account *a);

/* ---- Olm sessions ---- */

struct mxc_olm;

/* A session to the device with identity key their_curve, from one of its
 * one-time (or fallback) keys. */
struct mxc_olm *mxc_olm_outbound(struct mxc_account *a, const char *their_curve,
				 const char *their_otk, struct buf *err);
/*
 * A session from a pre-key message (type 0) body sent by their_curve; the
 * one-time key it used is removed from the account (the caller stores the
 * account again).  NULL with err when the message does not open one.
 */
struct mxc_olm *mxc_olm_inbound(struct mxc_account *a, const char *their_curve,
				const char *body, struct buf *err);
/* Whether a pre-key message body from their_curve belongs to s. */
int mxc_olm_matches(struct mxc_olm *s, const char *their_curve, const char *body);
/* Encrypts n bytes: *type (0 pre-key, 1 message) and *out (base64, free()). */
int mxc_olm_encrypt(struct mxc_olm *s, const char *plain, size_t n, int *type, char **out,
		    struct buf *err);
/* Decrypts a message of type: *plain is a secret (mxc_free_secret), NUL-
 * terminated, *plen bytes. */
int mxc_olm_decrypt(struct mxc_olm *s, int type, const char *body, char **plain, size_t *plen,
		    struct buf *err);
/* The session id (borrowed). */
const char *mxc_olm_id(const struct mxc_olm *s);
char *mxc_olm_pickle(struct mxc_olm *s, const struct mxc_key *key);
struct mxc_olm *mxc_olm_unpickle(const struct mxc_key *key, const char *pickle,
				 struct buf *err);
void mxc_olm_free(struct mxc_olm *s);

/* ---- Megolm: the bot's outbound sessions ---- */

struct mxc_out;

struct mxc_out *mxc_out_new(void);
char *mxc_out_pickle(struct mxc_out *s, const struct mxc_key *key);
struct mxc_out *mxc_out_unpickle(const struct mxc_key *key, const char *pickle,
				 struct buf *err);
void mxc_out_free(struct mxc_out *s);
const char *mxc_out_id(const struct mxc_out *s);
/* The index the next message gets. */
uint32_t mxc_out_index(struct mxc_out *s);
/* The session key at the current index, for m.room_key: a secret. */
char *mxc_out_key(struct mxc_out *s);
/* Encrypts n bytes: the base64 ciphertext (free()). */
char *mxc_out_encrypt(struct mxc_out *s, const char *plain, size_t n);

/* ---- Megolm: inbound sessions ---- */

struct mxc_in;

/* A session from an m.room_key session key, or (imported) an exported one
 * (m.forwarded_room_key).  NULL with err when the key does not decode. */
struct mxc_in *mxc_in_new(const char *session_key, int imported, struct buf *err);
char *mxc_in_pickle(struct mxc_in *s, const struct mxc_key *key);
struct mxc_in *mxc_in_unpickle(const struct mxc_key *key, const char *pickle,
			       struct buf *err);
void mxc_in_free(struct mxc_in *s);
const char *mxc_in_id(const struct mxc_in *s);
uint32_t mxc_in_first_index(const struct mxc_in *s);
/* Decrypts a base64 ciphertext: *plain a secret (mxc_free_secret),
 * NUL-terminated, *plen bytes; *index the message's index. */
int mxc_in_decrypt(struct mxc_in *s, const char *ciphertext, char **plain, size_t *plen,
		   uint32_t *index, struct buf *err);
/* The session exported at its first known index (tests: what a
 * forwarded key carries): a secret. */
char *mxc_in_export(struct mxc_in *s);

#endif
