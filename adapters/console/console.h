/*
 * The console adapter: local play and tests on stdin/stdout.
 *
 * Input lines:  [#room ]user: command   (a leading '!' on the command is
 * optional; "# text" is a comment; a line without "user:" reuses the last
 * user).  Output: every line of a message is tagged with where it would go,
 * "[room]" for the default room, "[room #name]" for another room, and
 * "[dm user]" for a private message.  Errors about the input line itself are
 * tagged "[console]".
 */
#ifndef ADAPTERS_CONSOLE_H
#define ADAPTERS_CONSOLE_H

#include <stdio.h>

#include "adapters/adapter.h"

#define CONSOLE_DEFAULT_ROOM "main"

/* A new console adapter reading fd `in` and writing to `out` (borrowed).
 * The loop stops when input ends.  Free with adapter_free(). */
struct adapter *console_adapter_new(int in, FILE *out);

/*
 * Where pictures go (dir, copied; created 0700 when missing): a board or a
 * private view painted for the console is written there as
 * "<room>[-<user>]-<name>" (mode 0600: a private view is a secret) and its
 * path printed in its place.  Unset, pictures are written to "boards" in
 * the working directory.
 */
void console_set_boards_dir(struct adapter *a, const char *dir);

/* Handles one input line as if read (tests use it without a loop). */
void console_feed_line(struct adapter *a, const char *line, size_t len);

#endif
