/*
 * mxkeys: device tracking, trust on first use.  See mxkeys.h.
 */
#include "adapters/matrix/mxkeys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/mxcrypto.h"
#include "util/buf.h"
#include "util/logging.h"
#include "util/text.h"

void mxk_init(struct mxkeys *k, uint64_t k0, uint64_t k1)
{
	strmap_init(&k->users, k0, k1);
}

static void user_free(struct mxk_user *u)
{
	free(u->dev);
	free(u);
}

void mxk_release(struct mxkeys *k)
{
	size_t i;
	void *v;

	for (i = 0; (i = strmap_next(&k->users, i, &v));)
		user_free(v);
	strmap_release(&k->users);
}

struct mxk_user *mxk_get(const struct mxkeys *k, const char *user)
{
	return strmap_get(&k->users, user);
}

/* A string that fits size bytes, valid UTF-8, not empty. */
static const char *str_ok(const json_t *v, size_t size)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);

	return s && n && n < size && utf8_valid(s, n) ? s : NULL;
}

static struct mxk_device *dev_find(struct mxk_user *u, const char *id)
{
	size_t i;

	for (i = 0; i < u->ndev; i++)
		if (!strcmp(u->dev[i].id, id))
			return &u->dev[i];
	return NULL;
}

static struct mxk_device *dev_add(struct mxk_user *u, const char *id, const char *curve,
				  const char *ed)
{
	struct mxk_device *d;

	u->dev = xrealloc(u->dev, (u->ndev + 1) * sizeof(*u->dev));
	d = &u->dev[u->ndev++];
	memset(d, 0, sizeof(*d));
	snprintf(d->id, sizeof(d->id), "%s", id);
	snprintf(d->curve, sizeof(d->curve), "%s", curve);
	snprintf(d->ed, sizeof(d->ed), "%s", ed);
	return d;
}

struct mxk_user *mxk_add(struct mxkeys *k, const char *user, const char *stored)
{
	struct mxk_user *u = strmap_get(&k->users, user);
	json_t *j, *v;
	const char *id;

	if (u)
		return u;
	u = xcalloc(1, sizeof(*u) + strlen(user) + 1);
	memcpy(u->user, user, strlen(user) + 1);
	strmap_put(&k->users, u->user, u);
	j = stored ? json_loads(stored, 0, NULL) : NULL;
	{
		const char *msk = str_ok(json_object_get(j, "m"), MX_KEY_SIZE);
		const char *ssk = str_ok(json_object_get(j, "s"), MX_KEY_SIZE);
		json_int_t pin = json_integer_value(json_object_get(j, "pin"));

		if (msk)
			snprintf(u->msk, sizeof(u->msk), "%s", msk);
		if (ssk && msk)
			snprintf(u->ssk, sizeof(u->ssk), "%s", ssk);
		u->msk_bad = json_is_true(json_object_get(j, "mb"));
		u->pin = pin == MXK_PIN_NEXT ? MXK_PIN_NEXT : pin == MXK_PINNED ? MXK_PINNED :
			 MXK_UNPINNED;
	}
	json_object_foreach(json_object_get(j, "d"), id, v) {
		const char *c = str_ok(json_object_get(v, "c"), MX_KEY_SIZE);
		const char *e = str_ok(json_object_get(v, "e"), MX_KEY_SIZE);
		struct mxk_device *d;

		if (!c || !e || strlen(id) >= MXK_DEVICE_ID_SIZE || !*id || dev_find(u, id) ||
		    u->ndev >= MXK_DEVICES_MAX)
			continue;
		d = dev_add(u, id, c, e);
		d->blocked = json_is_true(json_object_get(v, "b"));
		d->gone = json_is_true(json_object_get(v, "g"));
		d->approved = json_is_true(json_object_get(v, "a"));
		d->xsigned = json_is_true(json_object_get(v, "x"));
		d->told = json_is_true(json_object_get(v, "t"));
	}
	json_decref(j);
	return u;
}

void mxk_drop(struct mxkeys *k, const char *user)
{
	struct mxk_user *u = strmap_del(&k->users, user);

	if (u)
		user_free(u);
}

/* One device of an answer: its identity keys when it is well formed and
 * signed by its own ed25519 key, else -1. */
static int check_device(const char *user, const char *id, const json_t *dk,
			const char **curve, const char **ed)
{
	const json_t *keys = json_object_get(dk, "keys"), *alg = json_object_get(dk, "algorithms");
	char ck[MXK_DEVICE_ID_SIZE + 16], ek[MXK_DEVICE_ID_SIZE + 16];
	int olm = 0, megolm = 0;
	const json_t *v;
	size_t i;

	if (!json_is_object(dk) || !json_is_object(keys) || !*id ||
	    strlen(id) >= MXK_DEVICE_ID_SIZE || !utf8_valid(id, strlen(id)) ||
	    !json_is_string(json_object_get(dk, "user_id")) ||
	    strcmp(json_string_value(json_object_get(dk, "user_id")), user) ||
	    !json_is_string(json_object_get(dk, "device_id")) ||
	    strcmp(json_string_value(json_object_get(dk, "device_id")), id))
		return -1;
	json_array_foreach(alg, i, v) {
		olm |= json_is_string(v) && !strcmp(json_string_value(v), MXC_OLM_ALGORITHM);
		megolm |= json_is_string(v) && !strcmp(json_string_value(v), MXC_MEGOLM_ALGORITHM);
	}
	snprintf(ck, sizeof(ck), "curve25519:%s", id);
	snprintf(ek, sizeof(ek), "ed25519:%s", id);
	*curve = str_ok(json_object_get(keys, ck), MX_KEY_SIZE);
	*ed = str_ok(json_object_get(keys, ek), MX_KEY_SIZE);
	if (!olm || !megolm || !*curve || !*ed || mxc_verify_json(dk, user, ek, *ed))
		return -1;
	return 0;
}

/* Whether dk (a device's keys, checked) is signed by u's self-signing key. */
static int cross_signed(const struct mxk_user *u, const json_t *dk)
{
	char kid[MX_KEY_SIZE + 16];

	if (!mxk_cross_usable(u))
		return 0;
	snprintf(kid, sizeof(kid), "ed25519:%s", u->ssk);
	return !mxc_verify_json(dk, u->user, kid, u->ssk);
}

/* The approvals a device list's change implies: a device gone or blocked
 * loses its own; one signed while cross-signing holds has one (it stays
 * trusted should the master key change); the list a pin waited for is
 * pinned. */
static int approvals(struct mxk_user *u)
{
	int changed = 0;
	size_t i;

	for (i = 0; i < u->ndev; i++) {
		struct mxk_device *d = &u->dev[i];
		int a = d->approved, t = d->told;

		if (!mxk_usable(d))
			d->approved = 0;
		else if (d->xsigned && mxk_cross_usable(u))
			d->approved = 1;
		if (d->gone)
			d->told = 0;	/* told again should it come back */
		changed |= a != d->approved || t != d->told;
	}
	if (u->pin == MXK_PIN_NEXT) {
		u->pin = MXK_UNPINNED;
		mxk_pin(u);
		changed = 1;
	}
	return changed;
}

int mxk_apply(struct mxk_user *u, const json_t *devices, const char *skip_device)
{
	const char *id, *curve, *ed;
	const json_t *dk;
	int changed = 0;
	size_t i;

	u->fresh = 1;
	for (i = 0; i < u->ndev; i++)
		u->dev[i].seen_mark = 0;
	json_object_foreach((json_t *)devices, id, dk) {
		struct mxk_device *d;

		if (skip_device && !strcmp(id, skip_device))
			continue;
		if (check_device(u->user, id, dk, &curve, &ed)) {
			log_info("matrix: a device whose keys are malformed or not signed by "
				 "itself; not trusted");
			continue;
		}
		d = dev_find(u, id);
		if (!d) {
			if (u->ndev >= MXK_DEVICES_MAX)
				continue;
			d = dev_add(u, id, curve, ed);
			changed = 1;
		} else if (strcmp(d->curve, curve) || strcmp(d->ed, ed)) {
			if (!d->blocked) {
				log_warn("matrix: the device %s of %s came back with other keys; it "
					 "gets no room key from now on", id, u->user);
				d->blocked = 1;
				changed = 1;
			}
		}
		if (!d->blocked && d->xsigned != cross_signed(u, dk)) {
			d->xsigned = !d->xsigned;
			changed = 1;
		}
		d->seen_mark = 1;
	}
	for (i = 0; i < u->ndev; i++) {
		int gone = !u->dev[i].seen_mark;

		if (gone != u->dev[i].gone) {
			u->dev[i].gone = gone;
			changed = 1;
		}
		if (gone && u->dev[i].xsigned) {
			u->dev[i].xsigned = 0;
			changed = 1;
		}
	}
	return approvals(u) | changed;
}

/* ---- cross-signing ---- */

/*
 * A cross-signing key object of user (master_keys.<user> or
 * self_signing_keys.<user>) with usage: its one ed25519 key, or NULL when
 * it is not one (absent, malformed, another user's, several keys).
 */
static const char *xkey(const char *user, const json_t *obj, const char *usage)
{
	const json_t *keys = json_object_get(obj, "keys"), *v;
	const char *kid, *key = NULL;
	int use = 0;
	size_t i;

	if (!json_is_object(obj) || !json_is_object(keys) || json_object_size(keys) != 1 ||
	    !json_is_string(json_object_get(obj, "user_id")) ||
	    strcmp(json_string_value(json_object_get(obj, "user_id")), user))
		return NULL;
	json_array_foreach(json_object_get(obj, "usage"), i, v)
		use |= json_is_string(v) && !strcmp(json_string_value(v), usage);
	json_object_foreach((json_t *)keys, kid, v) {
		key = str_ok(v, MX_KEY_SIZE);
		if (!key || strncmp(kid, "ed25519:", 8) || strcmp(kid + 8, key))
			key = NULL;
	}
	return use ? key : NULL;
}

/* The cross-signing part of an answer: see mxkeys.h.  1 when u changed. */
static int apply_cross(struct mxk_user *u, const json_t *answer)
{
	const json_t *mo = json_object_get(json_object_get(answer, "master_keys"), u->user);
	const json_t *so = json_object_get(json_object_get(answer, "self_signing_keys"), u->user);
	const char *msk = xkey(u->user, mo, "master"), *ssk = xkey(u->user, so, "self_signing");
	char old_ssk[MX_KEY_SIZE], kid[MX_KEY_SIZE + 16];
	int changed = 0;

	snprintf(old_ssk, sizeof(old_ssk), "%s", u->ssk);
	u->ssk[0] = '\0';
	if (mo && !msk)
		log_info("matrix: the cross-signing master key of %s is malformed; not used",
			 u->user);
	if (msk && !u->msk_bad) {
		if (!u->msk[0] && u->pin == MXK_PINNED) {
			/* the homeserver could make one up for a user who had
			 * none: their pinned devices decide, as before */
			log_warn("matrix: %s published cross-signing keys after their first "
				 "command; not trusted: their new devices need their approval",
				 u->user);
			u->msk_bad = 1;
			changed = 1;
		} else if (!u->msk[0]) {
			snprintf(u->msk, sizeof(u->msk), "%s", msk);
			log_info("matrix: trusting the cross-signing master key of %s (first seen)",
				 u->user);
			changed = 1;
		} else if (strcmp(u->msk, msk)) {
			log_warn("matrix: the cross-signing master key of %s changed; not trusted: "
				 "their new devices need their approval", u->user);
			u->msk_bad = 1;
			changed = 1;
		}
	}
	if (msk && !u->msk_bad && !strcmp(u->msk, msk) && ssk) {
		snprintf(kid, sizeof(kid), "ed25519:%s", u->msk);
		if (!mxc_verify_json(so, u->user, kid, u->msk))
			snprintf(u->ssk, sizeof(u->ssk), "%s", ssk);
		else
			log_info("matrix: the self-signing key of %s is not signed by their master "
				 "key; not used", u->user);
	}
	return changed || strcmp(old_ssk, u->ssk);
}

int mxk_apply_answer(struct mxk_user *u, const json_t *answer, const char *skip_device)
{
	int changed = apply_cross(u, answer);

	return mxk_apply(u, json_object_get(json_object_get(answer, "device_keys"), u->user),
			 skip_device) | changed;
}

int mxk_cross_usable(const struct mxk_user *u)
{
	return u && u->msk[0] && u->ssk[0] && !u->msk_bad;
}

int mxk_private_ok(const struct mxk_user *u, const struct mxk_device *d)
{
	if (!mxk_usable(d))
		return 0;
	if (mxk_cross_usable(u))
		return d->xsigned;
	return !u || u->pin != MXK_PINNED || d->approved;
}

int mxk_pending(const struct mxk_user *u, const struct mxk_device *d)
{
	return u && u->pin == MXK_PINNED && mxk_usable(d) && !mxk_private_ok(u, d);
}

int mxk_any_private(const struct mxk_user *u)
{
	size_t i;

	for (i = 0; i < u->ndev; i++)
		if (mxk_private_ok(u, &u->dev[i]))
			return 1;
	return 0;
}

int mxk_pin(struct mxk_user *u)
{
	size_t i;

	if (u->pin == MXK_PINNED || (u->pin == MXK_PIN_NEXT && !u->fresh))
		return 0;
	if (!u->fresh) {
		u->pin = MXK_PIN_NEXT;
		return 1;
	}
	for (i = 0; i < u->ndev; i++)
		if (mxk_private_ok(u, &u->dev[i]))
			u->dev[i].approved = 1;
	u->pin = MXK_PINNED;
	return 1;
}

enum mxk_approval mxk_approve(struct mxk_user *u, const char *id)
{
	struct mxk_device *d = dev_find(u, id);

	if (!d || !mxk_usable(d))
		return MXK_UNKNOWN;
	if (mxk_private_ok(u, d))
		return MXK_ALREADY;
	if (mxk_cross_usable(u))
		return MXK_USE_CROSS_SIGNING;
	d->approved = 1;
	return MXK_APPROVED;
}

const struct mxk_device *mxk_by_curve(const struct mxk_user *u, const char *curve)
{
	size_t i;

	for (i = 0; u && i < u->ndev; i++)
		if (!strcmp(u->dev[i].curve, curve))
			return &u->dev[i];
	return NULL;
}

int mxk_usable(const struct mxk_device *d)
{
	return d && !d->blocked && !d->gone;
}

int mxk_claimed(const json_t *answer, const char *user, const struct mxk_device *d,
		char out[MX_KEY_SIZE])
{
	const json_t *keys = json_object_get(json_object_get(json_object_get(answer,
							     "one_time_keys"), user), d->id);
	const json_t *k;
	const char *kid, *key;
	char sk[MXK_DEVICE_ID_SIZE + 16];

	out[0] = '\0';
	snprintf(sk, sizeof(sk), "ed25519:%s", d->id);
	json_object_foreach((json_t *)keys, kid, k) {
		if (strncmp(kid, "signed_curve25519:", 18))
			continue;
		key = str_ok(json_object_get(k, "key"), MX_KEY_SIZE);
		if (!key || mxc_verify_json(k, user, sk, d->ed))
			continue;
		snprintf(out, MX_KEY_SIZE, "%s", key);
		return 0;
	}
	return -1;
}

char *mxk_encode(const struct mxk_user *u)
{
	json_t *d = json_object(), *top;
	char *s;
	size_t i;

	for (i = 0; i < u->ndev; i++)
		json_object_set_new(d, u->dev[i].id,
				    json_pack("{s:s, s:s, s:b, s:b, s:b, s:b, s:b}",
					      "c", u->dev[i].curve, "e", u->dev[i].ed,
					      "b", u->dev[i].blocked, "g", u->dev[i].gone,
					      "a", u->dev[i].approved, "x", u->dev[i].xsigned,
					      "t", u->dev[i].told));
	top = json_pack("{s:o, s:i, s:b}", "d", d, "pin", (int)u->pin, "mb", u->msk_bad);
	if (u->msk[0])
		json_object_set_new(top, "m", json_string(u->msk));
	if (u->ssk[0])
		json_object_set_new(top, "s", json_string(u->ssk));
	s = json_dumps(top, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(top);
	return s;
}
