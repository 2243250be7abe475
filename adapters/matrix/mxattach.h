/*
 * mxattach: the Matrix spec's encrypted attachments (client-server API,
 * "Sending encrypted attachments"), over OpenSSL's libcrypto.  A file is
 * encrypted with AES-256-CTR under a fresh random key and a 128-bit IV whose
 * low 64 bits (the block counter) start at zero; the event that shows it
 * carries, instead of a `url`, a `file` object with the mxc:// URI of the
 * ciphertext, the key as a JSON Web Key, the IV and the ciphertext's
 * SHA-256.  That event must only ever travel Megolm-encrypted: whoever
 * reads it can decrypt the file.
 *
 * Secrets.  The key is a secret: it lives in struct mxa_file, which
 * mxa_wipe() clears, and in the `file` object the caller seals; nothing here
 * logs.  Random bytes come from libcrypto's generator (seeded by the
 * system), never from the bot's seeded one.
 *
 * Errors: -1 (or NULL) with a message in err; nothing here aborts.
 */
#ifndef ADAPTERS_MATRIX_MXATTACH_H
#define ADAPTERS_MATRIX_MXATTACH_H

#include <stddef.h>

#include <jansson.h>

#include "util/buf.h"

#define MXA_KEY_BYTES 32
#define MXA_IV_BYTES 16
#define MXA_SHA256_BYTES 32

/* What a reader needs to fetch, check and decrypt one file. */
struct mxa_file {
	unsigned char key[MXA_KEY_BYTES];	/* AES-256: a secret */
	unsigned char iv[MXA_IV_BYTES];		/* the low 8 bytes are zero */
	unsigned char sha256[MXA_SHA256_BYTES];	/* of the ciphertext */
};

/*
 * Encrypts the n bytes of in under a fresh key and IV (into f): *out is the
 * ciphertext, n bytes, malloc'd (the caller frees it), and f->sha256 its
 * hash.
 */
int mxa_encrypt(const unsigned char *in, size_t n, unsigned char **out, struct mxa_file *f,
		struct buf *err);

/*
 * AES-256-CTR of n bytes of in under f->key and f->iv into out (n bytes;
 * in == out is allowed): encrypts and decrypts alike.  mxa_encrypt is this
 * with a fresh key and IV, then the hash.
 */
int mxa_ctr(const struct mxa_file *f, const unsigned char *in, size_t n, unsigned char *out,
	    struct buf *err);

/* The SHA-256 of n bytes of in into out. */
int mxa_sha256(const unsigned char *in, size_t n, unsigned char out[MXA_SHA256_BYTES],
	       struct buf *err);

/*
 * The event's `file` object for f, its ciphertext at mxc (a new reference):
 * {"v": "v2", "url", "key": {JWK}, "iv", "hashes": {"sha256"}}, the key in
 * unpadded base64url, the IV and hash in unpadded base64.  It holds the key:
 * it goes into an event that is encrypted before it leaves.
 */
json_t *mxa_file_json(const struct mxa_file *f, const char *mxc);

/* Clears f (its key). */
void mxa_wipe(struct mxa_file *f);

#endif
