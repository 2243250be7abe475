/*
 * harden: what the bot process does to itself before it reads a secret.
 *
 * A core dump of the bot would hold its tokens (Discord, Matrix) and the
 * hands of every game in memory, written to disk wherever the system puts
 * cores.  harden_process() sets RLIMIT_CORE to 0 and, on Linux, clears the
 * process's "dumpable" flag (PR_SET_DUMPABLE 0), which also stops other
 * processes of the same user from attaching a debugger to it or reading
 * its memory through /proc.  main() calls it first.
 */
#ifndef BOT_HARDEN_H
#define BOT_HARDEN_H

#include "util/buf.h"

/* 0, or -1 with err saying what could not be done (the caller warns and
 * goes on: it is a precaution, not a requirement to run). */
int harden_process(struct buf *err);

#endif
