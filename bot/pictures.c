/*
 * pictures: boards as pictures.  Which form a room's boards take (the
 * `board` room setting, else the platform's default), the picture that
 * goes with a message (struct pic: the game's display list, the text board
 * it shows, and the whole message as text for when painting fails), its
 * place in the outbox payload, and painting it into what an adapter sends
 * (struct adapter_image).
 *
 * Painting happens after the commit, on the way out (deliver(), the
 * answers to `board` and `hand`): a commit never waits for a picture, and
 * a picture that cannot be painted becomes the text board, with a log
 * line.  It must not decide what a message says: outbox.c and play.c do;
 * the games describe and paint/ draws.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/session_int.h"
#include "paint/paint.h"
#include "util/logging.h"

enum board_mode board_mode(const struct session_rec *rec, const struct adapter *a)
{
	struct room_settings rs;

	settings_read(rec, &rs);
	if (rs.board != BOARD_DEFAULT)
		return rs.board;
	return a && (a->ops->caps & ADAPTER_CAP_IMAGES) ? BOARD_IMAGE : BOARD_TEXT;
}

const char *board_mode_word(enum board_mode b)
{
	switch (b) {
	case BOARD_TEXT:
		return "text";
	case BOARD_IMAGE:
		return "image";
	case BOARD_BOTH:
		return "both";
	case BOARD_DEFAULT:
		break;
	}
	return "default";
}

void pic_init(struct pic *p)
{
	memset(p, 0, sizeof(*p));
	scene_init(&p->scene);
	rich_init(&p->full);
}

void pic_release(struct pic *p)
{
	scene_release(&p->scene);
	rich_release(&p->full);
	free(p->alt);
	memset(p, 0, sizeof(*p));
}

int pic_build(const struct session *s, const void *st, int seat, enum locale loc,
	      const struct rich *view, const char *what, struct pic *out)
{
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct buf plain = BUF_INIT;

	pic_init(out);
	if (!s->ops->scene)
		return -1;
	view_init(s, loc, names, &v);
	if (s->ops->scene(st, seat, &v, &out->scene)) {
		pic_release(out);
		return -1;
	}
	rich_to_plain(view, &plain);
	out->alt = buf_detach(&plain);
	snprintf(out->name, sizeof(out->name), "%s-s%lld-m%lld.png", what, (long long)s->rec.id,
		 (long long)s->last_seq);
	return 0;
}

json_t *pic_payload(const struct rich *body, const struct pic *p)
{
	return json_pack("{s:o, s:o, s:o, s:s, s:s, s:b}", "body", rich_to_json(body),
			 "full", rich_to_json(&p->full), "scene", scene_to_json(&p->scene),
			 "alt", p->alt ? p->alt : "", "name", p->name, "tib", p->text_in_body);
}

int pic_from_payload(const json_t *j, struct rich *body, struct pic *out, struct buf *err)
{
	const char *alt = json_string_value(json_object_get(j, "alt"));
	const char *name = json_string_value(json_object_get(j, "name"));

	pic_init(out);
	rich_init(body);
	if (!alt || !name || strlen(name) >= sizeof(out->name) ||
	    rich_from_json(body, json_object_get(j, "body")) ||
	    rich_from_json(&out->full, json_object_get(j, "full")) ||
	    scene_from_json(&out->scene, json_object_get(j, "scene"), err)) {
		if (!err->len)
			buf_setf(err, "a picture's message is malformed");
		rich_release(body);
		pic_release(out);
		return -1;
	}
	out->alt = xstrdup(alt);
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->text_in_body = json_is_true(json_object_get(j, "tib"));
	return 0;
}

int pic_paint(const struct pic *p, struct paint_image *im, struct adapter_image *img,
	      struct buf *err)
{
	if (paint_scene(&p->scene, 0, im, err))
		return -1;
	memset(img, 0, sizeof(*img));
	img->png = im->png;
	img->len = im->len;
	img->width = im->width;
	img->height = im->height;
	img->name = p->name;
	img->alt = p->alt;
	img->text_in_body = p->text_in_body;
	return 0;
}

void reply_picture(struct adapter *a, const struct command *cmd, int priv,
		   const struct rich *body, const struct pic *p)
{
	struct paint_image im;
	struct adapter_image img;
	struct buf err = BUF_INIT;

	if (!adapter_has_reply_image(a)) {
		reply_rich(a, cmd, priv, &p->full);
		return;
	}
	if (pic_paint(p, &im, &img, &err)) {
		log_warn("picture %s for %s/%s failed: %s; answered with text", p->name,
			 cmd->platform, cmd->room, buf_str(&err));
		reply_rich(a, cmd, priv, &p->full);
		buf_release(&err);
		return;
	}
	if (adapter_reply_image(a, cmd, priv, body, &img, &err))
		log_warn("reply failed: %s", buf_str(&err));
	paint_image_release(&im);
	buf_release(&err);
}
