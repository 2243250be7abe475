/*
 * mxcrypto: Olm and Megolm over libolm.  See mxcrypto.h.
 *
 * libolm's calls take caller-allocated memory and overwrite some of their
 * inputs (base64 is decoded in place: pickles, messages, imported keys), so
 * every input is copied into a scratch buffer that is wiped afterwards.
 */
#include "adapters/matrix/mxcrypto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <olm/inbound_group_session.h>
#include <olm/olm.h>
#include <olm/outbound_group_session.h>

#include "util/logging.h"

/* ---- memory ---- */

static void wipe(void *p, size_t n)
{
	if (p && n)
		explicit_bzero(p, n);
}

void mxc_free_secret(char *s)
{
	if (!s)
		return;
	wipe(s, strlen(s));
	free(s);
}

/* A wiped-on-free copy of n bytes of p, NUL-terminated. */
static char *scratch(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void scratch_free(char *s, size_t n)
{
	wipe(s, n);
	free(s);
}

void mxc_random(void *p, size_t n)
{
	unsigned char *b = p;

	while (n) {
		ssize_t got = getrandom(b, n, 0);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			log_err("no random bytes from the system: %s", strerror(errno));
			abort();
		}
		b += got;
		n -= (size_t)got;
	}
}

/* n random bytes in a wiped-on-free buffer (at least 1 byte long). */
static void *random_buf(size_t n)
{
	void *p = xmalloc(n ? n : 1);

	mxc_random(p, n);
	return p;
}

/* ---- the pickle key ---- */

void mxc_key_wipe(struct mxc_key *k)
{
	wipe(k, sizeof(*k));
}

static int key_from(struct mxc_key *out, const char *s, size_t n, const char *what,
		    struct buf *err)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n < MXC_PICKLE_KEY_MIN || n > MXC_PICKLE_KEY_MAX) {
		buf_setf(err, "%s must hold %d to %d bytes", what, MXC_PICKLE_KEY_MIN,
			 MXC_PICKLE_KEY_MAX);
		return -1;
	}
	memcpy(out->b, s, n);
	out->n = n;
	return 0;
}

static int key_file_create(const char *path, struct mxc_key *out, struct buf *err)
{
	unsigned char raw[32];
	char hex[65];
	size_t i;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0)
		return -1;	/* the caller looks at errno */
	mxc_random(raw, sizeof(raw));
	for (i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	hex[64] = '\n';
	if (fchmod(fd, 0600) || write(fd, hex, sizeof(hex)) != (ssize_t)sizeof(hex) ||
	    fsync(fd)) {
		buf_setf(err, "cannot write the key file %s: %s", path, strerror(errno));
		rc = -2;
	}
	close(fd);
	if (!rc) {
		rc = key_from(out, hex, 64, "the key file", err) ? -2 : 0;
		log_info("matrix: made the key file %s for the encryption keys in the store "
			 "(keep it with the store: without it they cannot be read)", path);
	} else {
		unlink(path);
	}
	wipe(raw, sizeof(raw));
	wipe(hex, sizeof(hex));
	return rc;
}

int mxc_pickle_key_load(const char *value, const char *path, struct mxc_key *out,
			struct buf *err)
{
	char data[MXC_PICKLE_KEY_MAX + 64];
	struct stat st;
	ssize_t n;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	if (value && *value)
		return key_from(out, value, strlen(value), "MATRIX_PICKLE_KEY", err);
	if (!path) {
		mxc_random(out->b, 32);
		out->n = 32;
		out->ephemeral = 1;
		return 0;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		rc = key_file_create(path, out, err);
		if (rc == 0)
			return 0;
		if (rc == -2)
			return -1;
		if (errno != EEXIST) {
			buf_setf(err, "cannot create the key file %s: %s", path, strerror(errno));
			return -1;
		}
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);	/* a race: read it */
	}
	if (fd < 0) {
		buf_setf(err, "cannot open the key file %s: %s", path,
			 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		buf_setf(err, "the key file %s must be a regular file owned by the bot's user",
			 path);
		close(fd);
		return -1;
	}
	if (st.st_mode & 077) {
		log_warn("matrix: the key file %s was readable by others; made it 0600", path);
		if (fchmod(fd, 0600)) {
			buf_setf(err, "cannot make the key file %s private: %s", path,
				 strerror(errno));
			close(fd);
			return -1;
		}
	}
	n = read(fd, data, sizeof(data));
	close(fd);
	if (n < 0) {
		buf_setf(err, "cannot read the key file %s: %s", path, strerror(errno));
		return -1;
	}
	rc = key_from(out, data, (size_t)n, "the key file", err);
	wipe(data, sizeof(data));
	return rc;
}

/* ---- canonical JSON and signatures ---- */

char *mxc_canonical(const json_t *obj)
{
	json_t *c;
	char *s;

	if (!json_is_object(obj))
		return NULL;
	c = json_copy((json_t *)obj);	/* shallow: members are only read */
	json_object_del(c, "signatures");
	json_object_del(c, "unsigned");
	s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	json_decref(c);
	return s;
}

int mxc_verify_json(const json_t *obj, const char *user, const char *key_id, const char *key)
{
	json_t *sig = json_object_get(json_object_get(json_object_get(obj, "signatures"), user),
				      key_id);
	char *canon, *sigbuf;
	void *mem;
	OlmUtility *u;
	size_t r, sn;

	if (!json_is_string(sig) || !key || !*key || strlen(key) >= MXC_KEY_SIZE)
		return -1;
	sn = json_string_length(sig);
	if (!sn || sn >= MXC_SIG_SIZE)
		return -1;
	canon = mxc_canonical(obj);
	if (!canon)
		return -1;
	mem = xmalloc(olm_utility_size());
	u = olm_utility(mem);
	sigbuf = scratch(json_string_value(sig), sn);	/* decoded in place */
	r = olm_ed25519_verify(u, key, strlen(key), canon, strlen(canon), sigbuf, sn);
	free(sigbuf);
	free(canon);
	olm_clear_utility(u);
	free(mem);
	return r == olm_error() ? -1 : 0;
}

/* ---- the account ---- */

struct mxc_account {
	OlmAccount *acc;
	void *mem;
	char curve[MXC_KEY_SIZE];
	char ed[MXC_KEY_SIZE];
};

static struct mxc_account *account_alloc(void)
{
	struct mxc_account *a = xcalloc(1, sizeof(*a));

	a->mem = xmalloc(olm_account_size());
	a->acc = olm_account(a->mem);
	return a;
}

void mxc_account_free(struct mxc_account *a)
{
	if (!a)
		return;
	olm_clear_account(a->acc);
	free(a->mem);
	free(a);
}

/* Reads the identity keys; -1 when libolm gives something unexpected. */
static int account_keys(struct mxc_account *a)
{
	size_t n = olm_account_identity_keys_length(a->acc);
	char *s = xmalloc(n + 1);
	json_t *j;
	const char *c, *e;
	int rc = -1;

	if (olm_account_identity_keys(a->acc, s, n) == olm_error()) {
		free(s);
		return -1;
	}
	s[n] = '\0';
	j = json_loads(s, 0, NULL);
	c = json_string_value(json_object_get(j, "curve25519"));
	e = json_string_value(json_object_get(j, "ed25519"));
	if (c && e && strlen(c) < MXC_KEY_SIZE && strlen(e) < MXC_KEY_SIZE) {
		snprintf(a->curve, sizeof(a->curve), "%s", c);
		snprintf(a->ed, sizeof(a->ed), "%s", e);
		rc = 0;
	}
	json_decref(j);
	free(s);
	return rc;
}

struct mxc_account *mxc_account_new(void)
{
	struct mxc_account *a = account_alloc();
	size_t n = olm_create_account_random_length(a->acc);
	void *rnd = random_buf(n);

	if (olm_create_account(a->acc, rnd, n) == olm_error() || account_keys(a)) {
		log_err("libolm could not create an account: %s",
			olm_account_last_error(a->acc));
		abort();	/* only a broken libolm gets here */
	}
	scratch_free(rnd, n);
	return a;
}

struct mxc_account *mxc_account_unpickle(const struct mxc_key *key, const char *pickle,
					 struct buf *err)
{
	struct mxc_account *a = account_alloc();
	size_t n = strlen(pickle);
	char *p = scratch(pickle, n);

	if (olm_unpickle_account(a->acc, key->b, key->n, p, n) == olm_error() ||
	    account_keys(a)) {
		buf_setf(err, "the account's pickle does not open (%s)",
			 olm_account_last_error(a->acc));
		scratch_free(p, n);
		mxc_account_free(a);
		return NULL;
	}
	scratch_free(p, n);
	return a;
}

char *mxc_account_pickle(struct mxc_account *a, const struct mxc_key *key)
{
	size_t n = olm_pickle_account_length(a->acc);
	char *s = xmalloc(n + 1);

	if (olm_pickle_account(a->acc, key->b, key->n, s, n) == olm_error()) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

const char *mxc_account_curve(const struct mxc_account *a)
{
	return a->curve;
}

const char *mxc_account_ed(const struct mxc_account *a)
{
	return a->ed;
}

/* The account's signature of n bytes of msg into sig. */
static int account_sign(struct mxc_account *a, const char *msg, size_t n,
			char sig[MXC_SIG_SIZE])
{
	size_t sn = olm_account_signature_length(a->acc);

	if (sn >= MXC_SIG_SIZE || olm_account_sign(a->acc, msg, n, sig, sn) == olm_error())
		return -1;
	sig[sn] = '\0';
	return 0;
}

int mxc_account_sign_json(struct mxc_account *a, json_t *obj, const char *user,
			  const char *device)
{
	char *canon = mxc_canonical(obj), sig[MXC_SIG_SIZE], kid[160];
	json_t *sigs, *mine;

	if (!canon || account_sign(a, canon, strlen(canon), sig)) {
		free(canon);
		return -1;
	}
	free(canon);
	sigs = json_object_get(obj, "signatures");
	if (!json_is_object(sigs)) {
		sigs = json_object();
		json_object_set_new(obj, "signatures", sigs);
	}
	mine = json_object_get(sigs, user);
	if (!json_is_object(mine)) {
		mine = json_object();
		json_object_set_new(sigs, user, mine);
	}
	snprintf(kid, sizeof(kid), "ed25519:%s", device);
	json_object_set_new(mine, kid, json_string(sig));
	return 0;
}

json_t *mxc_account_device_keys(struct mxc_account *a, const char *user, const char *device)
{
	char ck[160], ek[160];
	json_t *dk;

	snprintf(ck, sizeof(ck), "curve25519:%s", device);
	snprintf(ek, sizeof(ek), "ed25519:%s", device);
	dk = json_pack("{s:s, s:s, s:[s,s], s:{s:s, s:s}}", "user_id", user, "device_id", device,
		       "algorithms", MXC_OLM_ALGORITHM, MXC_MEGOLM_ALGORITHM,
		       "keys", ck, a->curve, ek, a->ed);
	mxc_account_sign_json(a, dk, user, device);
	return dk;
}

size_t mxc_account_max_otks(const struct mxc_account *a)
{
	return olm_account_max_number_of_one_time_keys(a->acc);
}

void mxc_account_generate_otks(struct mxc_account *a, size_t n)
{
	size_t rn = olm_account_generate_one_time_keys_random_length(a->acc, n);
	void *rnd = random_buf(rn);

	if (olm_account_generate_one_time_keys(a->acc, n, rnd, rn) == olm_error())
		log_warn("matrix: libolm could not make one-time keys: %s",
			 olm_account_last_error(a->acc));
	scratch_free(rnd, rn);
}

void mxc_account_generate_fallback(struct mxc_account *a)
{
	size_t rn = olm_account_generate_fallback_key_random_length(a->acc);
	void *rnd = random_buf(rn);

	if (olm_account_generate_fallback_key(a->acc, rnd, rn) == olm_error())
		log_warn("matrix: libolm could not make a fallback key: %s",
			 olm_account_last_error(a->acc));
	scratch_free(rnd, rn);
}

/* {"curve25519": {id: key}} from libolm -> signed_curve25519 objects. */
static json_t *signed_keys(struct mxc_account *a, const char *json, const char *user,
			   const char *device, int fallback)
{
	json_t *j = json_loads(json, 0, NULL), *out = json_object(), *v;
	const char *id;
	char kid[96];

	json_object_foreach(json_object_get(j, "curve25519"), id, v) {
		json_t *k;

		if (!json_is_string(v))
			continue;
		k = json_pack("{s:O}", "key", v);
		if (fallback)
			json_object_set_new(k, "fallback", json_true());
		mxc_account_sign_json(a, k, user, device);
		snprintf(kid, sizeof(kid), "signed_curve25519:%s", id);
		json_object_set_new(out, kid, k);
	}
	json_decref(j);
	return out;
}

json_t *mxc_account_otks(struct mxc_account *a, const char *user, const char *device)
{
	size_t n = olm_account_one_time_keys_length(a->acc);
	char *s = xmalloc(n + 1);
	json_t *out;

	if (olm_account_one_time_keys(a->acc, s, n) == olm_error()) {
		free(s);
		return json_object();
	}
	s[n] = '\0';
	out = signed_keys(a, s, user, device, 0);
	free(s);
	return out;
}

json_t *mxc_account_fallback(struct mxc_account *a, const char *user, const char *device)
{
	size_t n = olm_account_unpublished_fallback_key_length(a->acc);
	char *s = xmalloc(n + 1);
	json_t *out;

	if (olm_account_unpublished_fallback_key(a->acc, s, n) == olm_error()) {
		free(s);
		return json_object();
	}
	s[n] = '\0';
	out = signed_keys(a, s, user, device, 1);
	free(s);
	return out;
}

void mxc_account_published(struct mxc_account *a)
{
	olm_account_mark_keys_as_published(a->acc);
}

/* ---- Olm sessions ---- */

struct mxc_olm {
	OlmSession *s;
	void *mem;
	char id[MXC_SESSION_ID_SIZE];
};

static struct mxc_olm *olm_alloc(void)
{
	struct mxc_olm *o = xcalloc(1, sizeof(*o));

	o->mem = xmalloc(olm_session_size());
	o->s = olm_session(o->mem);
	return o;
}

void mxc_olm_free(struct mxc_olm *o)
{
	if (!o)
		return;
	olm_clear_session(o->s);
	free(o->mem);
	free(o);
}

static int olm_read_id(struct mxc_olm *o)
{
	size_t n = olm_session_id_length(o->s);

	if (n >= sizeof(o->id) || olm_session_id(o->s, o->id, n) == olm_error())
		return -1;
	o->id[n] = '\0';
	return 0;
}

const char *mxc_olm_id(const struct mxc_olm *o)
{
	return o->id;
}

struct mxc_olm *mxc_olm_outbound(struct mxc_account *a, const char *their_curve,
				 const char *their_otk, struct buf *err)
{
	struct mxc_olm *o = olm_alloc();
	size_t rn = olm_create_outbound_session_random_length(o->s);
	void *rnd = random_buf(rn);
	size_t r = olm_create_outbound_session(o->s, a->acc, their_curve, strlen(their_curve),
					       their_otk, strlen(their_otk), rnd, rn);

	scratch_free(rnd, rn);
	if (r == olm_error() || olm_read_id(o)) {
		buf_setf(err, "no Olm session to that device (%s)", olm_session_last_error(o->s));
		mxc_olm_free(o);
		return NULL;
	}
	return o;
}

struct mxc_olm *mxc_olm_inbound(struct mxc_account *a, const char *their_curve,
				const char *body, struct buf *err)
{
	struct mxc_olm *o = olm_alloc();
	size_t n = strlen(body);
	char *msg = scratch(body, n);
	size_t r = olm_create_inbound_session_from(o->s, a->acc, their_curve, strlen(their_curve),
						   msg, n);

	scratch_free(msg, n);
	if (r == olm_error() || olm_read_id(o)) {
		buf_setf(err, "a pre-key message that opens no session (%s)",
			 olm_session_last_error(o->s));
		mxc_olm_free(o);
		return NULL;
	}
	if (olm_remove_one_time_keys(a->acc, o->s) == olm_error())
		log_debug("matrix: an Olm session from a fallback key");
	return o;
}

int mxc_olm_matches(struct mxc_olm *o, const char *their_curve, const char *body)
{
	size_t n = strlen(body);
	char *msg = scratch(body, n);
	size_t r = olm_matches_inbound_session_from(o->s, their_curve, strlen(their_curve), msg, n);

	scratch_free(msg, n);
	return r == 1;
}

int mxc_olm_encrypt(struct mxc_olm *o, const char *plain, size_t n, int *type, char **out,
		    struct buf *err)
{
	size_t rn = olm_encrypt_random_length(o->s);
	size_t mn = olm_encrypt_message_length(o->s, n);
	void *rnd = random_buf(rn);
	char *m = xmalloc(mn + 1);

	*type = (int)olm_encrypt_message_type(o->s);
	if (olm_encrypt(o->s, plain, n, rnd, rn, m, mn) == olm_error()) {
		buf_setf(err, "Olm encryption failed (%s)", olm_session_last_error(o->s));
		scratch_free(rnd, rn);
		free(m);
		return -1;
	}
	scratch_free(rnd, rn);
	m[mn] = '\0';
	*out = m;
	return 0;
}

int mxc_olm_decrypt(struct mxc_olm *o, int type, const char *body, char **plain, size_t *plen,
		    struct buf *err)
{
	size_t n = strlen(body), max, r;
	char *msg = scratch(body, n), *p;

	*plain = NULL;
	*plen = 0;
	if (type != 0 && type != 1) {
		buf_setf(err, "an Olm message of unknown type %d", type);
		scratch_free(msg, n);
		return -1;
	}
	max = olm_decrypt_max_plaintext_length(o->s, (size_t)type, msg, n);
	scratch_free(msg, n);
	if (max == olm_error()) {
		buf_setf(err, "an Olm message that does not decode (%s)",
			 olm_session_last_error(o->s));
		return -1;
	}
	msg = scratch(body, n);
	p = xmalloc(max + 1);
	r = olm_decrypt(o->s, (size_t)type, msg, n, p, max);
	scratch_free(msg, n);
	if (r == olm_error()) {
		buf_setf(err, "an Olm message that does not decrypt (%s)",
			 olm_session_last_error(o->s));
		scratch_free(p, max + 1);
		return -1;
	}
	p[r] = '\0';
	*plain = p;
	*plen = r;
	return 0;
}

char *mxc_olm_pickle(struct mxc_olm *o, const struct mxc_key *key)
{
	size_t n = olm_pickle_session_length(o->s);
	char *s = xmalloc(n + 1);

	if (olm_pickle_session(o->s, key->b, key->n, s, n) == olm_error()) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

struct mxc_olm *mxc_olm_unpickle(const struct mxc_key *key, const char *pickle,
				 struct buf *err)
{
	struct mxc_olm *o = olm_alloc();
	size_t n = strlen(pickle);
	char *p = scratch(pickle, n);

	if (olm_unpickle_session(o->s, key->b, key->n, p, n) == olm_error() || olm_read_id(o)) {
		buf_setf(err, "an Olm session's pickle does not open (%s)",
			 olm_session_last_error(o->s));
		scratch_free(p, n);
		mxc_olm_free(o);
		return NULL;
	}
	scratch_free(p, n);
	return o;
}

/* ---- Megolm outbound ---- */

struct mxc_out {
	OlmOutboundGroupSession *s;
	void *mem;
	char id[MXC_SESSION_ID_SIZE];
};

static struct mxc_out *out_alloc(void)
{
	struct mxc_out *o = xcalloc(1, sizeof(*o));

	o->mem = xmalloc(olm_outbound_group_session_size());
	o->s = olm_outbound_group_session(o->mem);
	return o;
}

void mxc_out_free(struct mxc_out *o)
{
	if (!o)
		return;
	olm_clear_outbound_group_session(o->s);
	free(o->mem);
	free(o);
}

static int out_read_id(struct mxc_out *o)
{
	size_t n = olm_outbound_group_session_id_length(o->s);

	if (n >= sizeof(o->id) ||
	    olm_outbound_group_session_id(o->s, (uint8_t *)o->id, n) == olm_error())
		return -1;
	o->id[n] = '\0';
	return 0;
}

struct mxc_out *mxc_out_new(void)
{
	struct mxc_out *o = out_alloc();
	size_t rn = olm_init_outbound_group_session_random_length(o->s);
	void *rnd = random_buf(rn);

	if (olm_init_outbound_group_session(o->s, rnd, rn) == olm_error() || out_read_id(o)) {
		log_err("libolm could not make a Megolm session: %s",
			olm_outbound_group_session_last_error(o->s));
		abort();	/* only a broken libolm gets here */
	}
	scratch_free(rnd, rn);
	return o;
}

char *mxc_out_pickle(struct mxc_out *o, const struct mxc_key *key)
{
	size_t n = olm_pickle_outbound_group_session_length(o->s);
	char *s = xmalloc(n + 1);

	if (olm_pickle_outbound_group_session(o->s, key->b, key->n, s, n) == olm_error()) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

struct mxc_out *mxc_out_unpickle(const struct mxc_key *key, const char *pickle,
				 struct buf *err)
{
	struct mxc_out *o = out_alloc();
	size_t n = strlen(pickle);
	char *p = scratch(pickle, n);

	if (olm_unpickle_outbound_group_session(o->s, key->b, key->n, p, n) == olm_error() ||
	    out_read_id(o)) {
		buf_setf(err, "a Megolm session's pickle does not open (%s)",
			 olm_outbound_group_session_last_error(o->s));
		scratch_free(p, n);
		mxc_out_free(o);
		return NULL;
	}
	scratch_free(p, n);
	return o;
}

const char *mxc_out_id(const struct mxc_out *o)
{
	return o->id;
}

uint32_t mxc_out_index(struct mxc_out *o)
{
	return olm_outbound_group_session_message_index(o->s);
}

char *mxc_out_key(struct mxc_out *o)
{
	size_t n = olm_outbound_group_session_key_length(o->s);
	char *s = xmalloc(n + 1);

	if (olm_outbound_group_session_key(o->s, (uint8_t *)s, n) == olm_error()) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

char *mxc_out_encrypt(struct mxc_out *o, const char *plain, size_t n)
{
	size_t mn = olm_group_encrypt_message_length(o->s, n);
	char *m = xmalloc(mn + 1);

	if (olm_group_encrypt(o->s, (const uint8_t *)plain, n, (uint8_t *)m, mn) == olm_error()) {
		free(m);
		return NULL;
	}
	m[mn] = '\0';
	return m;
}

/* ---- Megolm inbound ---- */

struct mxc_in {
	OlmInboundGroupSession *s;
	void *mem;
	char id[MXC_SESSION_ID_SIZE];
};

static struct mxc_in *in_alloc(void)
{
	struct mxc_in *o = xcalloc(1, sizeof(*o));

	o->mem = xmalloc(olm_inbound_group_session_size());
	o->s = olm_inbound_group_session(o->mem);
	return o;
}

void mxc_in_free(struct mxc_in *o)
{
	if (!o)
		return;
	olm_clear_inbound_group_session(o->s);
	free(o->mem);
	free(o);
}

static int in_read_id(struct mxc_in *o)
{
	size_t n = olm_inbound_group_session_id_length(o->s);

	if (n >= sizeof(o->id) ||
	    olm_inbound_group_session_id(o->s, (uint8_t *)o->id, n) == olm_error())
		return -1;
	o->id[n] = '\0';
	return 0;
}

struct mxc_in *mxc_in_new(const char *session_key, int imported, struct buf *err)
{
	struct mxc_in *o = in_alloc();
	size_t n = strlen(session_key), r;
	char *k = scratch(session_key, n);

	r = imported ? olm_import_inbound_group_session(o->s, (uint8_t *)k, n)
		     : olm_init_inbound_group_session(o->s, (uint8_t *)k, n);
	scratch_free(k, n);
	if (r == olm_error() || in_read_id(o)) {
		buf_setf(err, "a room key that does not decode (%s)",
			 olm_inbound_group_session_last_error(o->s));
		mxc_in_free(o);
		return NULL;
	}
	return o;
}

char *mxc_in_pickle(struct mxc_in *o, const struct mxc_key *key)
{
	size_t n = olm_pickle_inbound_group_session_length(o->s);
	char *s = xmalloc(n + 1);

	if (olm_pickle_inbound_group_session(o->s, key->b, key->n, s, n) == olm_error()) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

struct mxc_in *mxc_in_unpickle(const struct mxc_key *key, const char *pickle,
			       struct buf *err)
{
	struct mxc_in *o = in_alloc();
	size_t n = strlen(pickle);
	char *p = scratch(pickle, n);

	if (olm_unpickle_inbound_group_session(o->s, key->b, key->n, p, n) == olm_error() ||
	    in_read_id(o)) {
		buf_setf(err, "a room key's pickle does not open (%s)",
			 olm_inbound_group_session_last_error(o->s));
		scratch_free(p, n);
		mxc_in_free(o);
		return NULL;
	}
	scratch_free(p, n);
	return o;
}

const char *mxc_in_id(const struct mxc_in *o)
{
	return o->id;
}

uint32_t mxc_in_first_index(const struct mxc_in *o)
{
	return olm_inbound_group_session_first_known_index(o->s);
}

int mxc_in_decrypt(struct mxc_in *o, const char *ciphertext, char **plain, size_t *plen,
		   uint32_t *index, struct buf *err)
{
	size_t n = strlen(ciphertext), max, r;
	char *msg, *p;

	*plain = NULL;
	*plen = 0;
	if (!n) {
		buf_setf(err, "an empty ciphertext");
		return -1;
	}
	msg = scratch(ciphertext, n);
	max = olm_group_decrypt_max_plaintext_length(o->s, (uint8_t *)msg, n);
	scratch_free(msg, n);
	if (max == olm_error()) {
		buf_setf(err, "a ciphertext that does not decode (%s)",
			 olm_inbound_group_session_last_error(o->s));
		return -1;
	}
	msg = scratch(ciphertext, n);
	p = xmalloc(max + 1);
	r = olm_group_decrypt(o->s, (uint8_t *)msg, n, (uint8_t *)p, max, index);
	scratch_free(msg, n);
	if (r == olm_error()) {
		buf_setf(err, "a message that does not decrypt (%s)",
			 olm_inbound_group_session_last_error(o->s));
		scratch_free(p, max + 1);
		return -1;
	}
	p[r] = '\0';
	*plain = p;
	*plen = r;
	return 0;
}

char *mxc_in_export(struct mxc_in *o)
{
	size_t n = olm_export_inbound_group_session_length(o->s);
	char *s = xmalloc(n + 1);

	if (olm_export_inbound_group_session(o->s, (uint8_t *)s, n, mxc_in_first_index(o)) ==
	    olm_error()) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}
