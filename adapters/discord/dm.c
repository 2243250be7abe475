/*
 * discord dm: direct messages of outbox posts — the DM channel opened and
 * cached per user, and a refused DM (50007) turned into a mention in the
 * game's channel with the buttons that show the same thing privately.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord_int.h"
#include "adapters/discord/interaction.h"
#include "adapters/discord/markdown.h"
#include "util/logging.h"

/* The DM was refused: a mention in the game's channel, with the buttons
 * that show the same thing privately.  Never the private text itself. */
void dsc_post_fallback(struct post *p)
{
	char line[512];
	struct rich r = RICH_INIT;
	struct buf md = BUF_INIT;

	/* the picture was of the player's private view: never in the channel
	 * (one that follows is not waited for) */
	dsc_post_drop_picture(p);
	dsc_chunks_release(&p->more);
	if (p->follow) {
		dsc_follow_forget(p->d, p, NULL);
		p->follow = 0;
		p->awaiting = 0;
	}
	rich_mention(&r, p->user, p->user);
	rich_text(&r, "%s", p->es
		  ? " no puedo enviarte mensajes directos (tu configuración de privacidad los "
		    "rechaza). Usa los botones para ver tu mano y tus jugadas."
		  : " I cannot send you direct messages (your privacy settings refuse them). "
		    "Use the buttons to see your hand and your moves.");
	discord_markdown(&r, &md);
	snprintf(line, sizeof(line), "%s", buf_str(&md));
	dsc_chunks_release(&p->ch);
	dsc_collect_chunk(&p->ch, line, strlen(line));
	json_decref(p->mentions);
	p->mentions = discord_allowed_mentions(&r);
	json_decref(p->components);
	p->components = p->session > 0
		? discord_board_components(p->session, p->version, p->es) : NULL;
	p->user[0] = '\0';
	/* a new key: this is another message than the refused one */
	if (strlen(p->key) + 4 <= sizeof(p->key))
		memcpy(p->key + strlen(p->key), "#fb", 4);
	dsc_post_chunks(p, p->room);
	rich_release(&r);
	buf_release(&md);
}

const char *dsc_dm_lookup(struct discord *d, const char *user)
{
	size_t i;

	for (i = 0; i < d->ndms; i++)
		if (!strcmp(d->dms[i].user, user))
			return d->dms[i].channel;
	return NULL;
}

void dsc_on_dm_channel(const struct discord_rest_resp *resp, void *ctx)
{
	struct post *p = ctx;
	struct discord *d = p->d;
	json_t *j;
	const char *id;

	if (d->stopping) {
		dsc_post_free(p);
		return;
	}
	if (resp->status == 403 && dsc_error_code(resp->body) == 50007) {
		dsc_post_fallback(p);
		return;
	}
	j = resp->status >= 200 && resp->status < 300 ? json_loads(buf_str(resp->body), 0, NULL)
						       : NULL;
	id = json_string_value(json_object_get(j, "id"));
	if (!id || !dsc_is_snowflake(id)) {
		log_warn("discord: cannot open a DM channel (HTTP %ld); outbox %lld kept",
			 resp->status, (long long)p->outbox_id);
		json_decref(j);
		dsc_post_free(p);
		return;
	}
	if (d->ndms < DM_CACHE_MAX) {
		snprintf(d->dms[d->ndms].user, sizeof(d->dms[d->ndms].user), "%s", p->user);
		snprintf(d->dms[d->ndms].channel, sizeof(d->dms[d->ndms].channel), "%s", id);
		d->ndms++;
	}
	dsc_post_chunks(p, id);
	json_decref(j);
}
