/*
 * manager: the session manager's start and end (bot/session.h), where its
 * layers are wired: the core (bot/core.h) gets the hooks through which it
 * reaches the outbox and the due time above it, and each adapter gets
 * the command table.  The one file that names every layer's start-up.
 */
#include "bot/session.h"

#include "bot/commands.h"
#include "bot/core.h"
#include "bot/due.h"
#include "bot/outbox.h"
#include "bot/pictures.h"
#include "bot/record.h"
#include "bot/web.h"

static const struct session_hooks hooks = {
	.queue_updates = outbox_queue_updates,
	.deliver = outbox_deliver,
	.reply_actor_view = outbox_reply_actor_view,
	.due = due_compute,
	.record = record_build,
	.committed = web_committed,
};

void session_mgr_init(struct session_mgr *m, struct store *store, uint64_t seed)
{
	session_core_init(m, store, seed, &hooks);
}

void session_mgr_release(struct session_mgr *m)
{
	session_core_release(m);
	pic_streams_release(m);
}

void session_mgr_add_adapter(struct session_mgr *m, struct adapter *a)
{
	session_core_add_adapter(m, a);
	a->commands = commands_for_adapters();
}
