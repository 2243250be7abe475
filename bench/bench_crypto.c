/*
 * The cost of Matrix end-to-end encryption per message (issue 18), with
 * libolm through adapters/matrix/mxcrypto.h, one core:
 *
 *   crypto.megolm.encrypt.p50   us  a 2 KB board (its m.room.message JSON)
 *                                   encrypted with the room's outbound session
 *   crypto.megolm.seal.p50      us  what mxe2e_seal adds per message: the
 *                                   encryption, the session pickled and
 *                                   stored (a cursor in a file store, WAL,
 *                                   synchronous=normal) before it goes
 *   crypto.megolm.decrypt.p50   us  a command (200 bytes) decrypted with an
 *                                   inbound session
 *   crypto.olm.share.p50        us  one device's room key share: an Olm
 *                                   session from a claimed one-time key, the
 *                                   m.room_key encrypted, the session
 *                                   pickled (a key share costs this per
 *                                   device without a session yet)
 *   crypto.olm.reshare.p50      us  the same over an existing Olm session
 *
 * BENCH_CRYPTO_REPS (default 2000; 200 for the Olm figures).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapters/matrix/mxcrypto.h"
#include "state/store.h"
#include "util/buf.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double p50_us(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2] * 1e6;
}

/* A board's worth of text: n bytes of lines. */
static char *board_json(size_t n)
{
	struct buf b = BUF_INIT;
	json_t *j;
	char *s;

	while (b.len < n)
		buf_addstr(&b, "Ana: 3 coins, hand 4 cards; Basílica, Forum, Templum; waiting.\n");
	j = json_pack("{s:s, s:{s:s, s:s}, s:s}", "type", "m.room.message", "content", "msgtype",
		      "m.text", "body", buf_str(&b), "room_id", "!room:example.org");
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	buf_release(&b);
	return s;
}

int main(void)
{
	const char *env = getenv("BENCH_CRYPTO_REPS");
	int reps = env && *env ? atoi(env) : 2000, olm_reps, i;
	const char *tmp = getenv("TMPDIR");
	char path[512];
	struct buf err = BUF_INIT, k = BUF_INIT;
	struct mxc_key key;
	struct store *store;
	struct mxc_out *out;
	struct mxc_in *in;
	struct mxc_account *bot, *player;
	struct mxc_olm *olm = NULL;
	char *board = board_json(2048), *skey, *cmd = board_json(200), *ct;
	char **cts;
	double *t;
	json_t *otks, *v;
	const char *id;
	int fd;

	if (reps < 10)
		reps = 10;
	olm_reps = reps / 10 < 10 ? 10 : reps / 10;
	t = calloc((size_t)reps, sizeof(*t));
	cts = calloc((size_t)reps, sizeof(*cts));
	snprintf(path, sizeof(path), "%s/tabula-bench-crypto-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !t || !cts) {
		perror("bench_crypto");
		return 1;
	}
	close(fd);
	unlink(path);
	store = store_sqlite_open(path, &err);
	if (!store || mxc_pickle_key_load("a bench pickle key, 32 bytes...", NULL, &key, &err)) {
		fprintf(stderr, "bench_crypto: %s\n", buf_str(&err));
		return 1;
	}
	out = mxc_out_new();
	skey = mxc_out_key(out);
	in = mxc_in_new(skey, 0, &err);

	for (i = 0; i < reps; i++) {
		double t0 = now_s();

		ct = mxc_out_encrypt(out, board, strlen(board));
		t[i] = now_s() - t0;
		free(ct);
	}
	printf("crypto.megolm.encrypt.p50 %.1f us\n", p50_us(t, reps));

	for (i = 0; i < reps; i++) {
		double t0 = now_s();
		char *p;

		cts[i] = mxc_out_encrypt(out, board, strlen(board));
		p = mxc_out_pickle(out, &key);
		if (store_cursor_set(store, "matrix.e2e.BENCH.out.!room:example.org", p, &err)) {
			fprintf(stderr, "bench_crypto: %s\n", buf_str(&err));
			return 1;
		}
		mxc_free_secret(p);
		t[i] = now_s() - t0;
	}
	printf("crypto.megolm.seal.p50 %.1f us\n", p50_us(t, reps));
	for (i = 0; i < reps; i++)
		free(cts[i]);

	for (i = 0; i < reps; i++)
		cts[i] = mxc_out_encrypt(out, cmd, strlen(cmd));
	for (i = 0; i < reps; i++) {
		double t0 = now_s();
		char *p;
		size_t n;
		uint32_t idx;

		if (mxc_in_decrypt(in, cts[i], &p, &n, &idx, &err)) {
			fprintf(stderr, "bench_crypto: %s\n", buf_str(&err));
			return 1;
		}
		t[i] = now_s() - t0;
		mxc_free_secret(p);
		free(cts[i]);
	}
	printf("crypto.megolm.decrypt.p50 %.1f us\n", p50_us(t, reps));

	/* key shares: the bot claims one of the player's one-time keys */
	bot = mxc_account_new();
	player = mxc_account_new();
	mxc_account_generate_otks(player, mxc_account_max_otks(player));
	otks = mxc_account_otks(player, "@p:example.org", "P");
	i = 0;
	json_object_foreach(otks, id, v) {
		double t0;
		char *p;
		int type;

		if (i == olm_reps)
			break;
		t0 = now_s();
		mxc_olm_free(olm);
		olm = mxc_olm_outbound(bot, mxc_account_curve(player),
				       json_string_value(json_object_get(v, "key")), &err);
		if (!olm || mxc_olm_encrypt(olm, skey, strlen(skey), &type, &ct, &err)) {
			fprintf(stderr, "bench_crypto: %s\n", buf_str(&err));
			return 1;
		}
		p = mxc_olm_pickle(olm, &key);
		t[i++] = now_s() - t0;
		free(ct);
		mxc_free_secret(p);
	}
	printf("crypto.olm.share.p50 %.1f us\n", p50_us(t, i));
	for (i = 0; i < olm_reps; i++) {
		double t0 = now_s();
		char *p;
		int type;

		if (mxc_olm_encrypt(olm, skey, strlen(skey), &type, &ct, &err)) {
			fprintf(stderr, "bench_crypto: %s\n", buf_str(&err));
			return 1;
		}
		p = mxc_olm_pickle(olm, &key);
		t[i] = now_s() - t0;
		free(ct);
		mxc_free_secret(p);
	}
	printf("crypto.olm.reshare.p50 %.1f us\n", p50_us(t, olm_reps));

	json_decref(otks);
	mxc_olm_free(olm);
	mxc_account_free(bot);
	mxc_account_free(player);
	mxc_in_free(in);
	mxc_out_free(out);
	mxc_free_secret(skey);
	mxc_key_wipe(&key);
	store_close(store);
	buf_printf(&k, "%s-wal", path);
	unlink(buf_str(&k));
	buf_reset(&k);
	buf_printf(&k, "%s-shm", path);
	unlink(buf_str(&k));
	unlink(path);
	free(board);
	free(cmd);
	free(t);
	free(cts);
	buf_release(&k);
	buf_release(&err);
	return 0;
}
