/*
 * pictures: boards as pictures (bot/pictures.c): the room's form of
 * boards on a platform, a message's picture in the outbox payload,
 * painting it after the commit and the streams in which pictures follow
 * their text.  A service above the session core (bot/core.h).
 */
#ifndef BOT_PICTURES_H
#define BOT_PICTURES_H

#include "bot/core.h"
#include "bot/roomset.h"

/* The room's form of boards on adapter a (NULL: not running: text). */
enum pic_board_mode pic_board_mode(const struct session_rec *rec, const struct adapter *a);

/* The picture of seat's view (-1: the board) of st in loc; view: its text
 * form (render_public / render_private), for alt; what: "board", "hand"
 * (the file's name, with the session and position of s).  The caller
 * fills full.  Returns 0, or -1 when the game has no pictures (out empty). */
int pic_build(const struct session *s, const void *st, int seat, enum locale loc,
	      const struct rich *view, const char *what, struct pic *out);
/* The outbox payload of a message with a picture (a new reference), and
 * back: 0, or -1 with err (body and out left empty). */
json_t *pic_payload(const struct rich *body, const struct pic *p);
int pic_from_payload(const json_t *j, struct rich *body, struct pic *out, struct buf *err);
/* Paints p into *im (release it) and describes it in *img (borrowing im
 * and p).  0, or -1 with err. */
struct paint_image;
int pic_paint(const struct pic *p, struct paint_image *im, struct adapter_image *img,
	      struct buf *err);
/* Answers cmd with body and the picture p; p->full as text where the
 * platform takes no pictures or painting fails (logged).  Where pictures
 * follow (pic_follows), body goes now and the picture when it is painted;
 * p's scene is taken then (p is left without it). */
void pic_reply_picture(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		       int priv, const struct rich *body, struct pic *p);

/* Whether a's pictures are painted off the loop and follow their text. */
int pic_follows(const struct session_mgr *m, const struct adapter *a);
/*
 * The next follow id (adapter_image.follow) and the picture of p that
 * follows its message, sent with that id and img (see struct
 * adapter_image): painted in turn in its stream (the room, or a player's
 * private messages there: platform, room, user ("" for the room); the
 * whole platform when the adapter reads as one stream), then handed to
 * the adapter.  outbox_id: the message's (0: an answer, which no newer
 * board supersedes).  p's scene is taken.
 */
uint64_t pic_next_id(struct session_mgr *m);
void pic_enqueue(struct session_mgr *m, struct adapter *a, uint64_t id, const char *room,
		 const char *user, int64_t outbox_id, struct pic *p);
/* Frees every picture still queued (session_mgr_release). */
void pic_streams_release(struct session_mgr *m);

#endif
