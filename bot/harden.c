/*
 * harden: no core dumps, no debugger attaching (bot/harden.h), before the
 * process reads a secret.  A precaution: it must not stop the bot when the
 * system refuses.
 */
#include "bot/harden.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

int harden_process(struct buf *err)
{
	struct rlimit none = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &none)) {
		buf_setf(err, "cannot turn core dumps off (setrlimit): %s", strerror(errno));
		return -1;
	}
#ifdef __linux__
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		buf_setf(err, "cannot turn core dumps off (prctl): %s", strerror(errno));
		return -1;
	}
#endif
	return 0;
}
