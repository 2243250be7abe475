/*
 * mxpicture: pictures on their way (struct mximg).  Owns making one from
 * the adapter's image, its upload to the media repository (encrypted first,
 * under a key of its own, for an encrypted room: mxm_upload_encrypt and
 * mxm_unseal_key), completing the m.image event that waits for it with the
 * picture's mxc:// URI or `file`, and the text notice that takes its place
 * when the upload fails.
 */

#include "adapters/matrix/mxint.h"

/* A board posted in room: the answers above it stay as they are (no
 * later answer replaces them, see send_public_answer). */
void mxm_board_posted(struct matrix *m, const char *room)
{
	struct mroom *r = mxm_room_get(m, room, 0);

	if (r) {
		r->last_event[0] = '\0';
		r->last_title[0] = '\0';
		r->answer_pending = 0;
	}
}

/* A picture to send (one reference), from the adapter's borrowed one. */
struct mximg *mxm_img_new(const struct adapter_image *ai)
{
	struct mximg *im = xcalloc(1, sizeof(*im));
	struct rich r = RICH_INIT;
	struct buf alt = BUF_INIT;

	im->refs = 1;
	im->png = xmalloc(ai->len ? ai->len : 1);
	memcpy(im->png, ai->png, ai->len);
	im->len = ai->len;
	im->width = ai->width;
	im->height = ai->height;
	snprintf(im->name, sizeof(im->name), "%s", ai->name ? ai->name : "board.png");
	/* the text board as the event's body: its description for screen
	 * readers and clients that show no pictures, cut as a notice is */
	rich_text(&r, "%s", ai->alt && *ai->alt ? ai->alt : im->name);
	mx_plain_body(&r, &alt);
	if (alt.len > MX_BODY_SPLIT) {
		alt.len = MX_BODY_SPLIT;
		while (alt.len && ((unsigned char)alt.s[alt.len] & 0xC0) == 0x80)
			alt.len--;
		alt.s[alt.len] = '\0';
	}
	im->alt = buf_detach(&alt);
	rich_release(&r);
	return im;
}

/*
 * The events of a message with a picture: its body's notices (none when
 * it is empty), then the m.image, its url filled in once uploaded.  No
 * "filename": the body is then the picture's description (its text
 * board), which Element shows as alt text rather than as a caption under
 * the picture (docs/matrix.md, "Pictures").
 */
json_t *mxm_picture_contents(const struct rich *body, const struct mximg *im)
{
	json_t *c = body->n || !im ? mx_notice_contents(body) : json_array();

	if (im)
		json_array_append_new(c, json_pack("{s:s, s:s, s:s, s:{s:i, s:i, s:s, s:I}, "
						   "s:{s:[]}}",
						   "msgtype", "m.image", "body", im->alt, "url", "",
						   "info", "w", im->width, "h", im->height,
						   "mimetype", "image/png", "size",
						   (json_int_t)im->len, "m.mentions", "user_ids"));
	return c;
}

/* Replaces q's JSON body with c's text, the old one wiped (it may hold an
 * attachment key). */
static void set_body(struct mxreq *q, const json_t *c)
{
	if (q->body)
		explicit_bzero(q->body, strlen(q->body));
	free(q->body);
	q->body = json_dumps(c, JSON_COMPACT);
}

/* The upload's answer: the waiting event gets the picture's URI (its
 * `file` object when the upload was encrypted), or becomes a notice of the
 * text board. */
static void on_uploaded(struct matrix *m, long status, const char *errcode, const char *body,
			size_t len, void *ctx)
{
	struct mxreq *up = ctx;		/* the upload: alive while this runs */
	struct mximg *im = up->upload_of;
	struct mxreq *q = im->waiter;
	json_t *j = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
	const char *uri = json_string_value(json_object_get(j, "content_uri"));
	json_t *c;

	/* the event is the one right behind this upload in its lane; a
	 * waiter elsewhere (its chat stopped being private: it goes to a new
	 * one behind a new upload) or one already sealed is not this
	 * upload's to complete */
	c = q && q->body && !q->sealed && q->lane == up->lane ? json_loads(q->body, 0, NULL) : NULL;
	if (!c) {
		/* its event went back to its player's queue (a chat no longer
		 * private): it uploads again when it goes */
		json_decref(j);
		return;
	}
	if (uri && !strncmp(uri, "mxc://", 6) && strlen(uri) < 256) {
		json_t *file = up->att ? mxa_file_json(up->att, uri) : NULL;

		if (up->att && !file) {
			mxm_img_as_text(im);
			json_decref(c);
			json_decref(j);
			return;
		}
		/* an encrypted picture has no url: its file says where it is */
		json_object_del(c, up->att ? "url" : "file");
		if (file)
			json_object_set_new(c, "file", file);
		else
			json_object_set_new(c, "url", json_string(uri));
		q->has_key = up->att != NULL;
		set_body(q, c);
	} else {
		log_warn("matrix: a picture could not be uploaded (HTTP %ld%s%s); its board goes as "
			 "text", status, errcode ? " " : "", errcode ? errcode : "");
		mxm_img_as_text(im);
	}
	json_decref(c);
	json_decref(j);
}

/* A notice of im's text board (a new reference). */
static json_t *img_notice(const struct mximg *im)
{
	return json_pack("{s:s, s:s, s:{s:[]}}", "msgtype", "m.notice", "body", im->alt,
			 "m.mentions", "user_ids");
}

/* The event of im goes as a notice of its text board: now, when it is
 * waiting already, else when mxm_img_attach gives it. */
void mxm_img_as_text(struct mximg *im)
{
	struct mxreq *q = im->waiter;
	json_t *c;

	im->as_text = 1;
	if (!q || !q->body)
		return;		/* not attached yet, or back in its player's queue */
	c = img_notice(im);
	set_body(q, c);
	q->has_key = 0;
	json_decref(c);
}

/*
 * The upload q goes to an encrypted room: the media repository keeps what
 * it is given, so it gets the picture encrypted under a fresh key (an
 * encrypted attachment), which only the event's Megolm-sealed `file`
 * carries.  Once per upload: a retry sends the same bytes.  -1: it could
 * not be encrypted (nothing is uploaded).
 */
int mxm_upload_encrypt(struct mxreq *q)
{
	struct mxa_file *f = xcalloc(1, sizeof(*f));
	struct buf err = BUF_INIT;
	unsigned char *c = NULL;

	if (mxa_encrypt((const unsigned char *)q->body, q->body_len, &c, f, &err)) {
		log_warn("matrix: a picture could not be encrypted (%s); its board goes as text",
			 buf_str(&err));
		buf_release(&err);
		free(f);
		return -1;
	}
	explicit_bzero(q->body, q->body_len);	/* a hand, maybe */
	free(q->body);
	q->body = (char *)c;
	q->att = f;
	q->ctype = "application/octet-stream";
	/* the file name would tell the homeserver which game and move */
	free(q->path);
	q->path = xstrdup("/_matrix/media/v3/upload");
	return 0;
}

/* q, an m.image whose `file` holds its picture's key, was not sealed (its
 * room turned out not to be encrypted, or is being left): the key must not
 * go in clear, so the event is the text board. */
void mxm_unseal_key(struct mxreq *q)
{
	log_warn("matrix: an encrypted picture's event could not be encrypted; its board goes "
		 "as text");
	if (q->img)
		mxm_img_as_text(q->img);
	if (q->has_key) {
		json_t *c = json_pack("{s:s, s:s, s:{s:[]}}", "msgtype", "m.notice", "body",
				      q->img ? q->img->alt : "-", "m.mentions", "user_ids");

		set_body(q, c);
		json_decref(c);
		q->has_key = 0;
	}
}

/* Queues the upload of im in room's lane, just before its event (the next
 * request queued there, given to mxm_img_attach). */
void mxm_img_upload(struct matrix *m, struct mximg *im, const char *room)
{
	struct mxreq *q = xcalloc(1, sizeof(*q));
	struct buf path = BUF_INIT;

	buf_addstr(&path, "/_matrix/media/v3/upload?filename=");
	enc(&path, im->name);
	q->m = m;
	snprintf(q->method, sizeof(q->method), "POST");
	q->path = buf_detach(&path);
	q->body = xmalloc(im->len ? im->len : 1);
	memcpy(q->body, im->png, im->len);
	q->body_len = im->len;
	q->ctype = "image/png";
	q->auth = 1;
	q->cb = on_uploaded;
	q->ctx = q;
	q->upload_of = im;
	im->refs++;
	q->counted = 1;
	mxm_req_queue(m, q, room);
}

/* q (waiting behind im's upload) is the m.image event of im. */
void mxm_img_attach(struct mximg *im, struct mxreq *q)
{
	if (!im || !q)
		return;
	q->img = im;
	im->refs++;
	im->waiter = q;
	if (im->as_text)
		mxm_img_as_text(im);
}
