/*
 * roomset: a room's settings as stored with its session
 * (session_rec.settings, a JSON object: the reminder and timeout hours,
 * what a timeout does, the pause, the idle clock, the AI's strength, the
 * form of boards, whether the room plays rated, whether the game has a web
 * page, the seats counted last).  It reads and writes them; it must not act on them
 * (reminders and timeouts are due.c's, the AI's strength ai.c's, pictures
 * pictures.c's) nor offer them to users (`game settings`: settings.c).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bot/core.h"
#include "bot/roomset.h"

#define DEFAULT_REMIND_H 24

const char *roomset_board_mode_word(enum pic_board_mode b)
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

void roomset_read(const struct session_rec *rec, struct room_settings *o)
{
	json_t *j = rec->settings[0] ? json_loads(rec->settings, 0, NULL) : NULL;
	json_t *v;

	o->since = 0;
	o->remind_h = DEFAULT_REMIND_H;
	o->timeout_h = 0;
	o->timeout_ai = 1;
	o->paused = 0;
	o->reminded = 0;
	o->ai_strong = 0;
	o->rules = 1;
	o->board = BOARD_DEFAULT;
	o->rated = 1;
	o->web = 1;
	o->last = 0;
	if (!json_is_object(j)) {
		json_decref(j);
		return;
	}
	if (json_is_integer(v = json_object_get(j, "remind")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= 24 * 30)
		o->remind_h = (int)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "timeout")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= 24 * 60)
		o->timeout_h = (int)json_integer_value(v);
	if (json_is_string(v = json_object_get(j, "on_timeout")))
		o->timeout_ai = strcmp(json_string_value(v), "pause") != 0;
	o->paused = json_is_true(json_object_get(j, "paused"));
	if (json_is_integer(v = json_object_get(j, "since")) && json_integer_value(v) > 0)
		o->since = (int64_t)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "reminded")) && json_integer_value(v) >= 0)
		o->reminded = (int)json_integer_value(v);
	if (json_is_string(v = json_object_get(j, "ai")))
		o->ai_strong = !strcmp(json_string_value(v), "strong");
	if (json_is_integer(v = json_object_get(j, "rules")) && json_integer_value(v) >= 1 &&
	    json_integer_value(v) <= 1000000)
		o->rules = (int)json_integer_value(v);
	if (json_is_string(v = json_object_get(j, "board")))
		o->board = !strcmp(json_string_value(v), "text") ? BOARD_TEXT
			 : !strcmp(json_string_value(v), "image") ? BOARD_IMAGE
			 : !strcmp(json_string_value(v), "both") ? BOARD_BOTH : BOARD_DEFAULT;
	o->rated = !json_is_false(json_object_get(j, "rated"));
	o->web = !json_is_false(json_object_get(j, "web"));
	if (json_is_integer(v = json_object_get(j, "last")) && json_integer_value(v) > 0 &&
	    json_integer_value(v) < (1 << STORE_MAX_SEATS))
		o->last = (unsigned)json_integer_value(v);
	json_decref(j);
}

void roomset_write(struct session_rec *rec, const struct room_settings *in)
{
	json_t *j = json_pack("{s:i, s:i, s:s, s:b, s:i, s:I}", "remind", in->remind_h,
			      "timeout", in->timeout_h, "on_timeout",
			      in->timeout_ai ? "ai" : "pause", "paused", in->paused,
			      "reminded", in->reminded, "since", (json_int_t)in->since);

	/* only when set, so that the settings of older rooms read the same */
	if (in->ai_strong)
		json_object_set_new(j, "ai", json_string("strong"));
	if (in->rules > 1)
		json_object_set_new(j, "rules", json_integer(in->rules));
	if (in->board != BOARD_DEFAULT)
		json_object_set_new(j, "board", json_string(roomset_board_mode_word(in->board)));
	if (!in->rated)
		json_object_set_new(j, "rated", json_false());
	if (!in->web)
		json_object_set_new(j, "web", json_false());
	if (in->last)
		json_object_set_new(j, "last", json_integer((json_int_t)in->last));
	char *t = json_dumps(j, JSON_COMPACT);

	session_copy_field(rec->settings, sizeof(rec->settings), t);
	free(t);
	json_decref(j);
}
