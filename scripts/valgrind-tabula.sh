#!/bin/sh
# Runs the tabula binary named by $VG_TABULA_BIN under valgrind memcheck, with
# this script's arguments: `make valgrind` passes this script to
# tests/integration/run.sh as "the binary".  (The tests hand the bot an
# environment without TABULA_*, DISCORD_* and MATRIX_*, hence the VG_ prefix.)
#
# The exit status is the bot's own (the tests check it), or 99 when memcheck
# found an error or a definite leak.  Each process also logs to
# $VG_LOGDIR/vg.<pid>.log (when set): empty unless memcheck found something,
# so that `make valgrind` also sees the errors of processes whose exit status
# nobody reads (kill -9 in the crash tests, stderr sent to /dev/null).
: "${VG_TABULA_BIN:?VG_TABULA_BIN: the tabula binary to run}"
if [ -n "$VG_LOGDIR" ]; then
	set -- --log-file="$VG_LOGDIR/vg.%p.log" "$VG_TABULA_BIN" "$@"
else
	set -- "$VG_TABULA_BIN" "$@"
fi
exec valgrind -q --tool=memcheck --error-exitcode=99 \
	--leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --num-callers=30 "$@"
