#!/bin/sh
# Runs each cmocka test binary given; prints a summary line; fails if any failed.
# $VALGRIND, when set, prefixes each run.
pass=0
fail=0
failed=""
for t in "$@"; do
	if $VALGRIND "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $t"
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ] || { echo "failed:$failed" >&2; exit 1; }
