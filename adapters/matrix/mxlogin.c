/*
 * mxlogin: the bot's login and its device.  Owns logging in with the
 * password (or checking the token with whoami), logging in again when the
 * token expires (relogin: the requests waiting for it are unparked), the
 * device id kept in the store (CURSOR_DEVICE) and starting end-to-end
 * encryption for that device (e2e_begin) before the first sync.
 */

#include "adapters/matrix/mxint.h"

/*
 * The bot's device is known: its encryption keys are loaded (or made and
 * uploaded).  Keys in the store that the pickle key does not open stop the
 * bot (MATRIX_EXIT_KEYS): making new ones would silently change the
 * device everybody trusts.  -1 then.
 */
static int e2e_begin(struct matrix *m)
{
	struct buf err = BUF_INIT;
	size_t i;

	if (mxe2e_started(m->e2e))
		return 0;
	if (!m->device[0]) {
		log_warn("matrix: the homeserver did not say which device the access token "
			 "belongs to: the bot cannot take part in encrypted rooms");
		return 0;
	}
	if (mxe2e_start(m->e2e, m->me, m->device, &err)) {
		log_err("matrix: the encryption keys in the store do not open (%s): restore "
			"MATRIX_PICKLE_KEY or the key file beside the store (docs/matrix.md, "
			"\"Encrypted rooms\") (exit %d)", buf_str(&err), MATRIX_EXIT_KEYS);
		m->exit_code = MATRIX_EXIT_KEYS;
		uv_stop(m->loop);
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	/* a crash between a command's commit and mxe2e_handled: the stored
	 * position names what ran */
	for (i = 0; i < m->nrefs; i++)
		mxe2e_handled(m->e2e, m->refs[i]);
	return 0;
}

void mxm_on_whoami(struct matrix *m, long status, const char *errcode, const char *body,
		   size_t len, void *ctx)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *uid = json_string_value(json_object_get(j, "user_id")), *dev;

	if (status != 200 || !uid || !mx_user_id_valid(uid)) {
		json_decref(j);
		if (status == 401 || status == 403)
			mxm_fatal(m, "the access token was refused");
		else
			mxm_fatal(m, "whoami failed: is MATRIX_HOMESERVER right?");
		return;
	}
	copy_id(m->me, MX_ID_SIZE, uid);
	log_info("matrix: logged in as %s", m->me);
	dev = json_string_value(json_object_get(j, "device_id"));
	if (dev && strlen(dev) < sizeof(m->device))
		snprintf(m->device, sizeof(m->device), "%s", dev);
	json_decref(j);
	if (e2e_begin(m))
		return;
	mxm_unpark(m);
	mxm_sync_now(m);
}

static void on_login(struct matrix *m, long status, const char *errcode, const char *body,
		     size_t len, void *ctx)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *tok = json_string_value(json_object_get(j, "access_token"));
	const char *uid = json_string_value(json_object_get(j, "user_id"));
	int first = !m->me[0];

	m->logging_in = 0;
	if (status != 200 || !tok || !uid || !mx_user_id_valid(uid)) {
		json_decref(j);
		if (status == 403 || status == 401)
			mxm_fatal(m, "the homeserver refused MATRIX_USER / MATRIX_PASSWORD");
		else
			mxm_fatal(m, "login failed: is MATRIX_HOMESERVER right?");
		return;
	}
	if (m->token) {
		memset(m->token, 0, strlen(m->token));
		free(m->token);
	}
	m->token = xstrdup(tok);
	copy_id(m->me, MX_ID_SIZE, uid);
	json_decref(j);
	log_info("matrix: logged in as %s (device %s)", m->me, m->device);
	if (e2e_begin(m))
		return;
	/* requests queued before the login (the outbox re-sent at start-up)
	 * or refused with the old token go now */
	mxm_unpark(m);
	if (first)
		mxm_sync_now(m);
}

void mxm_login(struct matrix *m)
{
	json_t *req = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:s}", "type", "m.login.password",
				"identifier", "type", "m.id.user", "user", m->user,
				"password", m->password, "device_id", m->device,
				"initial_device_display_name", "tabula");
	m->logging_in = 1;
	mxm_call_ex(m, "POST", API "/login", req, NULL, 0, REQ_NOAUTH, on_login, NULL, NULL, NULL);
	json_decref(req);
}

void mxm_relogin(struct matrix *m)
{
	if (m->logging_in)
		return;
	log_info("matrix: the access token expired; logging in again");
	if (m->token) {
		memset(m->token, 0, strlen(m->token));
		free(m->token);
		m->token = NULL;
	}
	mxm_login(m);
}

void mxm_load_device(struct matrix *m)
{
	struct buf v = BUF_INIT, err = BUF_INIT;

	if (store_cursor_get(m->store, CURSOR_DEVICE, &v, &err) < 0)
		log_warn("matrix: reading the device id: %s", buf_str(&err));
	if (v.len && v.len < sizeof(m->device)) {
		snprintf(m->device, sizeof(m->device), "%s", buf_str(&v));
	} else {
		snprintf(m->device, sizeof(m->device), "TABULA%08X", rng_next(&m->rng));
		if (store_cursor_set(m->store, CURSOR_DEVICE, m->device, &err))
			log_warn("matrix: storing the device id: %s", buf_str(&err));
	}
	buf_release(&v);
	buf_release(&err);
}
