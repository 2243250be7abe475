#!/bin/sh
# Integration tests: console transcripts through the real binary.
# usage: tests/integration/run.sh ./tabula
set -e
bin=${1:-./tabula}
cd "$(dirname "$0")/../.."
exec python3 tests/integration/transcript.py "$bin" tests/data/*/*.txt
