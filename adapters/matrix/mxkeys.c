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
		d->seen_mark = 1;
	}
	for (i = 0; i < u->ndev; i++) {
		int gone = !u->dev[i].seen_mark;

		if (gone != u->dev[i].gone) {
			u->dev[i].gone = gone;
			changed = 1;
		}
	}
	return changed;
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
				    json_pack("{s:s, s:s, s:b, s:b}", "c", u->dev[i].curve,
					      "e", u->dev[i].ed, "b", u->dev[i].blocked,
					      "g", u->dev[i].gone));
	top = json_pack("{s:o}", "d", d);
	s = json_dumps(top, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(top);
	return s;
}
