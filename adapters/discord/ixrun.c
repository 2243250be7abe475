/*
 * discord ixrun: an interaction from the gateway run through the manager —
 * a slash command (deferred when late), /play's autocompletion, a button
 * or the select of moves — and refused, answered but not run, under
 * back-pressure.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/discord/discord_int.h"
#include "adapters/discord/interaction.h"
#include "games/game.h"
#include "util/logging.h"

/* Discord counts snowflake time from 2015-01-01. */
#define DISCORD_EPOCH_MS 1420070400000ULL

static uint64_t unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * The select of cmd->user's moves, for the private answer to `moves`: at
 * most 25 (more: the text list and /play's autocompletion), from the
 * manager's completion with nothing typed, named by the position they
 * belong to.  NULL when there is nothing to offer, or the command was a
 * click the manager refused as stale.
 */
static json_t *moves_menu(struct discord *d, const struct ix *x, const struct command *cmd)
{
	struct adapter_choice got[ADAPTER_CHOICES_MAX + 1];
	struct discord_choice ch[ADAPTER_CHOICES_MAX];
	struct command q;
	int64_t session, position;
	enum locale loc;
	size_t n, i;

	if (!d->base.on_complete || !d->base.on_position ||
	    d->base.on_position(d->base.ctx, &d->base, cmd, &session, &position))
		return NULL;
	if (cmd->expect_session > 0 &&
	    (cmd->expect_session != session || cmd->expect_version != position))
		return NULL;
	q = *cmd;
	q.text = "";
	q.text_len = 0;
	n = d->base.on_complete(d->base.ctx, &d->base, &q, got, ADAPTER_CHOICES_MAX + 1);
	if (!n || n > ADAPTER_CHOICES_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		ch[i].name = got[i].label[0] ? got[i].label : got[i].value;
		ch[i].value = got[i].value;
	}
	return discord_moves_components(session, position, cmd->user, ch, n,
					!locale_parse(x->in.locale, &loc) && loc == LOC_ES);
}

/* Puts the select of moves under the answer's request x->menu_req. */
static void attach_menu(struct discord *d, struct ix *x, const struct command *cmd)
{
	struct ixreq *r;
	json_t *menu, *msg;

	if (x->menu_req < (long)x->qhead || x->menu_req >= (long)x->qlen)
		return;
	r = &x->q[x->menu_req];
	if (!r->body || !(menu = moves_menu(d, x, cmd)))
		return;
	/* a callback wraps the message in {type, data}; edits and
	 * follow-ups are the message itself */
	msg = json_is_integer(json_object_get(r->body, "type"))
		? json_object_get(r->body, "data") : r->body;
	if (json_is_object(msg))
		json_object_set(msg, "components", menu);
	json_decref(menu);
}

/* Runs one command through the manager and answers its interaction. */
static void run_command(struct discord *d, struct ix *x, const char *text,
			int64_t expect_session, int64_t expect_version, int64_t rematch_of)
{
	struct command cmd;
	uint64_t born = (strtoull(x->in.id, NULL, 10) >> 22) + DISCORD_EPOCH_MS;
	uint64_t now = unix_ms();

	if (now > born && now - born > DISCORD_DEFER_AFTER_MS) {
		/* we are late already: take the 15-minute window now */
		json_t *r = discord_response_deferred(1);

		log_info("discord: interaction %llu ms old; deferred",
			 (unsigned long long)(now - born));
		dsc_ix_callback(x, r);
		json_decref(r);
		x->deferred = 1;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.platform = "discord";
	cmd.room = x->in.channel_id;
	cmd.user = x->in.user_id;
	cmd.name = x->in.user_name;
	cmd.locale = x->in.locale[0] ? x->in.locale : NULL;
	cmd.community = x->in.guild_id;	/* "" in a DM */
	cmd.text = text;
	cmd.text_len = strlen(text);
	cmd.reply_ctx = x;
	cmd.expect_session = expect_session;
	cmd.expect_version = expect_version;
	cmd.rematch_of = rematch_of;
	x->want_menu = !strcmp(text, "moves");
	x->menu_req = -1;
	x->collecting = 1;
	if (d->base.on_command)
		d->base.on_command(d->base.ctx, &d->base, &cmd);
	x->collecting = 0;
	attach_menu(d, x, &cmd);
	if (!x->responded) {
		json_t *r = discord_response_message(dsc_ack_text(&x->in), 1, NULL, NULL);

		dsc_ix_callback(x, r);
		json_decref(r);
	} else if (x->deferred && !x->original_filled) {
		dsc_ix_edit_original(x, dsc_ack_text(&x->in), NULL);
	}
	dsc_ix_pump(x);
}

static void run_autocomplete(struct discord *d, struct ix *x)
{
	struct adapter_choice got[ADAPTER_CHOICES_MAX];
	struct discord_choice ch[ADAPTER_CHOICES_MAX];
	struct command cmd;
	size_t n = 0, i;
	json_t *r;

	if (!strcmp(x->in.text, "play") && !strcmp(x->in.focused, "move") &&
	    d->base.on_complete) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.platform = "discord";
		cmd.room = x->in.channel_id;
		cmd.user = x->in.user_id;
		cmd.name = x->in.user_name;
		cmd.locale = x->in.locale[0] ? x->in.locale : NULL;
		cmd.community = x->in.guild_id;
		cmd.text = x->in.partial;
		cmd.text_len = strlen(x->in.partial);
		n = d->base.on_complete(d->base.ctx, &d->base, &cmd, got, ADAPTER_CHOICES_MAX);
	}
	for (i = 0; i < n; i++) {
		ch[i].name = got[i].label[0] ? got[i].label : got[i].value;
		ch[i].value = got[i].value;
	}
	r = discord_response_autocomplete(ch, n);
	dsc_ix_callback(x, r);
	json_decref(r);
	dsc_ix_pump(x);
}

static void refuse(struct ix *x, const char *en, const char *es)
{
	enum locale loc;
	json_t *r;

	r = discord_response_message(!locale_parse(x->in.locale, &loc) && loc == LOC_ES ? es : en,
				     1, NULL, NULL);
	dsc_ix_callback(x, r);
	json_decref(r);
	dsc_ix_pump(x);
}

static void run_component(struct discord *d, struct ix *x)
{
	struct discord_custom_id_parts p;
	char text[DISCORD_VALUE_SIZE + 8];

	if (discord_custom_id_parse(x->in.custom_id, &p)) {
		refuse(x, "That control is not one of this bot's current games.",
		       "Ese control no es de ninguna partida actual de este bot.");
		return;
	}
	if (!strcmp(p.kind, "hand") || !strcmp(p.kind, "moves")) {
		snprintf(text, sizeof(text), "%s", p.kind);
	} else if (!strcmp(p.kind, "text")) {
		/* under a board sent as a picture: its text, privately */
		snprintf(text, sizeof(text), "board text");
	} else if (!strcmp(p.kind, "play") && p.arg[0] && strcmp(p.arg, x->in.user_id)) {
		/* a select of someone else's moves (Discord shows it to them
		 * alone; a forged click gets here) */
		refuse(x, "That menu lists someone else's moves. Nothing changed; use My moves "
		       "for yours.",
		       "Ese menú es de las jugadas de otra persona. No ha cambiado nada; usa Mis "
		       "jugadas para ver las tuyas.");
		return;
	} else if (!strcmp(p.kind, "play") && x->in.nvalues == 1) {
		snprintf(text, sizeof(text), "play %s", x->in.values[0]);
	} else if (!strcmp(p.kind, "rematch") && !p.version && !p.arg[0]) {
		/* a finished game's: no position to hold it to; the manager
		 * opens its rematch, joins it, or refuses (rematch_of) */
		run_command(d, x, "rematch", 0, 0, p.session);
		return;
	} else {
		refuse(x, "That control is not one of this bot's current games.",
		       "Ese control no es de ninguna partida actual de este bot.");
		return;
	}
	run_command(d, x, text, p.session, p.version, 0);
}

void dsc_ix_handle(struct discord *d, const json_t *payload)
{
	struct buf err = BUF_INIT;
	struct ix *x = xcalloc(1, sizeof(*x));

	x->d = d;
	dsc_live_add(d, &x->live, dsc_ix_release);
	if (discord_interaction_decode(payload, d->base.commands, &x->in, &err)) {
		/* err never quotes the token; the id is harmless */
		log_warn("discord: interaction ignored: %s", buf_str(&err));
		buf_release(&err);
		dsc_ix_free(x);
		return;
	}
	buf_release(&err);
	if (x->in.type != DISCORD_INTERACTION_PING && dsc_rest_busy(d)) {
		/* back-pressure (discord.h): answer, run nothing */
		if (x->in.type == DISCORD_INTERACTION_AUTOCOMPLETE) {
			json_t *r = discord_response_autocomplete(NULL, 0);

			dsc_ix_callback(x, r);
			json_decref(r);
			dsc_ix_pump(x);
		} else {
			refuse(x, "Discord is slow to take the bot's messages right now, so nothing "
			       "was done. Try again in a minute.",
			       "Discord va lento aceptando los mensajes del bot, así que no se ha "
			       "hecho nada. Vuelve a intentarlo en un minuto.");
		}
		return;
	}
	switch (x->in.type) {
	case DISCORD_INTERACTION_COMMAND:
		run_command(d, x, x->in.text, 0, 0, 0);
		break;
	case DISCORD_INTERACTION_AUTOCOMPLETE:
		run_autocomplete(d, x);
		break;
	case DISCORD_INTERACTION_COMPONENT:
		run_component(d, x);
		break;
	default:	/* PING comes only to HTTP endpoints */
		dsc_ix_free(x);
		break;
	}
}
