#!/bin/sh
# Runs the libFuzzer targets built by `make fuzz` (docs/fuzzing.md).
#   tests/fuzz/run.sh BINDIR SECONDS TARGET...
# For each target: replays tests/fuzz/regressions/<target>/ (every file must
# run clean), then fuzzes for SECONDS starting from tests/fuzz/corpus/<target>/
# (new inputs go to BINDIR/corpus/<target>, crashes to BINDIR/crashes/<target>).
# Prints one line per target:
#   fuzz <target> ok <execs> execs (<execs/s>/s, cov: <n>, ft: <n>, corpus: <n>)
#   fuzz <target> FAILED: <what> (log: <file>)
# and exits 1 when any target failed.
set -u
bindir=$1
secs=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
# leaks are bugs too
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for t in "$@"; do
	bin=$bindir/fuzz_$t
	work=$bindir/corpus/$t
	crashes=$bindir/crashes/$t
	log=$bindir/fuzz_$t.log
	mkdir -p "$work" "$crashes"
	if [ ! -x "$bin" ]; then
		echo "fuzz $t FAILED: no $bin"
		status=1
		continue
	fi
	reg=$root/tests/fuzz/regressions/$t
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg" 2>/dev/null)" ]; then
		bad=""
		for f in "$reg"/*; do
			[ -f "$f" ] || continue
			case $f in *.md) continue ;; esac
			if ! "$bin" -runs=1 "$f" >"$log" 2>&1; then
				bad=$f
				break
			fi
		done
		if [ -n "$bad" ]; then
			echo "fuzz $t FAILED: regression ${bad#"$root"/} crashes (log: $log)"
			status=1
			continue
		fi
	fi
	# -timeout: one input taking this long is a hang; -rss_limit_mb: the
	# default 2 GiB, explicit
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		"$work" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	if [ "$rc" -eq 0 ]; then
		echo "fuzz $t ok ${execs:-?} execs (${rate:-?}/s, cov: ${cov:-?}, ft: ${ft:-?}, corpus: ${corp:-?})"
	else
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		what=$(grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^fuzz_[a-z_]*: ' "$log" | cut -c1-200)
		echo "fuzz $t FAILED: ${what:-exit $rc} input ${art:-?} (log: $log)"
		status=1
	fi
done
exit $status
