/* Encrypted attachments: AES-256-CTR, SHA-256 and the `file` object (see
 * mxattach.h). */
#include "adapters/matrix/mxattach.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "util/buf.h"

int mxa_ctr(const struct mxa_file *f, const unsigned char *in, size_t n, unsigned char *out,
	    struct buf *err)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int rc = -1, len = 0;

	if (!c) {
		buf_addstr(err, "AES-256-CTR: no cipher context");
		return -1;
	}
	if (EVP_EncryptInit_ex(c, EVP_aes_256_ctr(), NULL, f->key, f->iv) != 1) {
		buf_addstr(err, "AES-256-CTR: cannot start");
		goto out;
	}
	/* EVP takes an int length: a larger file goes in pieces */
	while (n) {
		size_t k = n > (size_t)INT_MAX / 2 ? (size_t)INT_MAX / 2 : n;

		if (EVP_EncryptUpdate(c, out, &len, in, (int)k) != 1 || (size_t)len != k) {
			buf_addstr(err, "AES-256-CTR: failed");
			goto out;
		}
		in += k;
		out += k;
		n -= k;
	}
	rc = 0;
out:
	EVP_CIPHER_CTX_free(c);	/* clears the expanded key */
	return rc;
}

int mxa_sha256(const unsigned char *in, size_t n, unsigned char out[MXA_SHA256_BYTES],
	       struct buf *err)
{
	unsigned int len = 0;

	if (EVP_Digest(in, n, out, &len, EVP_sha256(), NULL) != 1 || len != MXA_SHA256_BYTES) {
		buf_addstr(err, "SHA-256 failed");
		return -1;
	}
	return 0;
}

int mxa_encrypt(const unsigned char *in, size_t n, unsigned char **out, struct mxa_file *f,
		struct buf *err)
{
	unsigned char *c;

	memset(f, 0, sizeof(*f));
	/* the IV's high 64 bits are random; the low 64 are the block counter,
	 * from zero (the spec's form, which some clients insist on) */
	if (RAND_bytes(f->key, MXA_KEY_BYTES) != 1 || RAND_bytes(f->iv, MXA_IV_BYTES / 2) != 1) {
		buf_addstr(err, "no random bytes for an attachment key");
		mxa_wipe(f);
		return -1;
	}
	c = xmalloc(n ? n : 1);
	if (mxa_ctr(f, in, n, c, err) || mxa_sha256(c, n, f->sha256, err)) {
		free(c);
		mxa_wipe(f);
		return -1;
	}
	*out = c;
	return 0;
}

/* Unpadded base64 of n bytes (url: the URL-safe alphabet) into b. */
static void b64(struct buf *b, const unsigned char *p, size_t n, int url)
{
	static const char std[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char safe[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const char *a = url ? safe : std;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned long v = (unsigned long)p[i] << 16 | (unsigned long)p[i + 1] << 8 | p[i + 2];

		buf_addch(b, a[v >> 18 & 63]);
		buf_addch(b, a[v >> 12 & 63]);
		buf_addch(b, a[v >> 6 & 63]);
		buf_addch(b, a[v & 63]);
	}
	if (n - i == 1) {
		buf_addch(b, a[p[i] >> 2]);
		buf_addch(b, a[(p[i] & 3) << 4]);
	} else if (n - i == 2) {
		buf_addch(b, a[p[i] >> 2]);
		buf_addch(b, a[(p[i] & 3) << 4 | p[i + 1] >> 4]);
		buf_addch(b, a[(p[i + 1] & 15) << 2]);
	}
}

json_t *mxa_file_json(const struct mxa_file *f, const char *mxc)
{
	struct buf k = BUF_INIT, iv = BUF_INIT, h = BUF_INIT;
	json_t *o;

	b64(&k, f->key, MXA_KEY_BYTES, 1);
	b64(&iv, f->iv, MXA_IV_BYTES, 0);
	b64(&h, f->sha256, MXA_SHA256_BYTES, 0);
	o = json_pack("{s:s, s:s, s:{s:s, s:[s, s], s:s, s:s, s:b}, s:s, s:{s:s}}", "v", "v2",
		      "url", mxc, "key", "kty", "oct", "key_ops", "encrypt", "decrypt", "alg",
		      "A256CTR", "k", buf_str(&k), "ext", 1, "iv", buf_str(&iv), "hashes", "sha256",
		      buf_str(&h));
	if (k.s)
		explicit_bzero(k.s, k.len);
	buf_release(&k);
	buf_release(&iv);
	buf_release(&h);
	return o;
}

void mxa_wipe(struct mxa_file *f)
{
	explicit_bzero(f, sizeof(*f));
}
