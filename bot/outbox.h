/*
 * outbox: what a change tells the room and each player, and the messages
 * of a commit on their way out: delivery, confirmation and re-send
 * (bot/outbox.c).  A service above the session core (bot/core.h).
 */
#ifndef BOT_OUTBOX_H
#define BOT_OUTBOX_H

#include "bot/core.h"

/* Adds a message for the room (user NULL) or one user; body is copied;
 * pic (may be NULL): its picture, taken (*pic is left empty). */
void outbox_pending_add(struct session_mgr *m, struct pending *p, const struct session *s,
			const char *user, const struct rich *body, struct pic *pic);
/* Hands o to its adapter; known: its message (and known_pic its picture,
 * or NULL) when the caller still has it (a fresh commit), else NULL
 * (re-sent from the store: parsed back).  A picture that follows takes
 * known_pic's scene. */
void outbox_deliver(struct session_mgr *m, const struct outbox_rec *o, const struct rich *known,
		    struct pic *known_pic);

/* Appends "Waiting for @x: prompt" lines; mention: the seats to ping
 * (the others are written plain). */
void outbox_add_waiting(const struct session *s, const void *st, enum locale loc, struct rich *r,
			unsigned mention);
void outbox_add_result(const struct session *s, const void *st, enum locale loc, struct rich *r);
/* Under a finished game's result: the line that offers `rematch`. */
void outbox_add_rematch(const struct session *s, const void *st, enum locale loc,
			struct rich *r);
/* seat's legal moves; limit > 0: past that many, only their number. */
void outbox_add_moves(const struct session *s, const void *st, int seat, enum locale loc,
		      struct rich *r, int limit);
/* The moves of seat grouped as the game's move_group says, a group on a
 * line; brief (a step within a turn): the groups that matter next in full,
 * the others by their numbers. */
void outbox_add_moves_short(const struct session *s, const void *st, int seat, enum locale loc,
			    struct rich *r, int brief);
/* Adds the update messages of a game change to c->out. */
void outbox_queue_updates(struct session_mgr *m, struct change *c, const struct capture *cap);
/* After a successful commit: the acting player's private update, if the
 * platform shows it as an answer rather than a message. */
void outbox_reply_actor_view(struct session_mgr *m, struct adapter *a, const struct command *cmd,
			     struct change *c);

#endif
