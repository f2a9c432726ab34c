#!/usr/bin/env bash
# The test command: builds in debug and runs every test (unit, integration, end to end).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f /usr/include/sqlite3.h ]; then
  echo "SQLite headers missing: run 'apt-get install -y libsqlite3-dev' (or .ci/run, which does it)" >&2
  exit 1
fi
swift build --build-tests
exec swift test --skip-build --parallel --num-workers 2 "$@"
