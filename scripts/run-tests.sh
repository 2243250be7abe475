#!/bin/sh
# Runs each cmocka test binary given; prints a summary line; fails if any failed.
# $VALGRIND, when set, prefixes each run.  Each binary's time goes to a line
# of its own, so a slow suite shows in the CI log.
pass=0
fail=0
failed=""
for t in "$@"; do
	t0=$(date +%s)
	if $VALGRIND "$t"; then
		pass=$((pass + 1))
		echo "unit: ok   $t ($(($(date +%s) - t0))s)"
	else
		fail=$((fail + 1))
		failed="$failed $t"
		echo "unit: FAIL $t ($(($(date +%s) - t0))s)"
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ] || { echo "failed:$failed" >&2; exit 1; }
