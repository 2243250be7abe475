#!/bin/sh
# The lints (translations, layers, paths), then integration tests through the real
# binary: console transcripts and the text they send per decision against
# a budget per game (text_budget.py), then the Discord and Matrix adapters against
# loopback fakes (tests/fakes/; the Matrix interop tests' players are
# matrix-sdk-crypto in Node, tests/interop/), and several processes on one PostgreSQL
# (cluster_test.py: the server is TABULA_TEST_PG, see scripts/pg-test-server.sh),
# then the operators' HTTP listener (metrics_test.py: promtool checks /metrics),
# then the game page in a browser (tests/browser/page_test.py).
# usage: tests/integration/run.sh ./tabula
bin=${1:-./tabula}
cd "$(dirname "$0")/../.."
# The tests' files (databases, logs, pictures: hundreds of MB a run) go under
# one directory, removed when every test passed, kept and named when not.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/tabula-tests.XXXXXX") || exit 1
chmod 755 "$TMPDIR"
export TMPDIR
rc=0
python3 tests/lint/translations.py || rc=1
python3 tests/lint/layers.py --self-test || rc=1
python3 tests/lint/layers.py || rc=1
python3 tests/lint/budgets.py --self-test || rc=1
python3 tests/lint/budgets.py || rc=1
python3 tests/lint/paths.py --self-test || rc=1
python3 tests/lint/paths.py || rc=1
python3 tests/integration/transcript.py "$bin" tests/data/*/*.txt || rc=1
python3 tests/integration/text_budget.py "$bin" || rc=1
python3 tests/integration/console_scan_test.py "$bin" || rc=1
python3 tests/integration/console_pictures_test.py "$bin" || rc=1
python3 tests/integration/at_rest_test.py "$bin" || rc=1
python3 tests/integration/discord_test.py "$bin" || rc=1
python3 tests/integration/paint_test.py "$bin" || rc=1
python3 tests/integration/matrix_test.py "$bin" || rc=1
python3 tests/integration/matrix_e2e_test.py "$bin" || rc=1
python3 tests/integration/matrix_interop_test.py "$bin" || rc=1
python3 tests/integration/matrix_devices_test.py "$bin" || rc=1
python3 tests/integration/builders_platforms_test.py "$bin" || rc=1
python3 tests/integration/crash_test.py "$bin" || rc=1
python3 tests/integration/record_test.py "$bin" || rc=1
python3 tests/integration/season_test.py "$bin" || rc=1
python3 tests/integration/cluster_test.py "$bin" || rc=1
python3 tests/integration/strong_ai_test.py "$bin" || rc=1
python3 tests/integration/metrics_test.py "$bin" || rc=1
# the game page (web/) in headless chromium: against a mock of the bot's
# pages, then against the bot itself on the console, all four games
python3 tests/browser/page_test.py --bot "$bin" || rc=1
if [ $rc = 0 ]; then
	rm -rf "$TMPDIR"
else
	echo "integration: the tests' files are kept in $TMPDIR" >&2
fi
exit $rc
