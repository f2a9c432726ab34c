#!/usr/bin/env bash
# The test command: sets up, builds everything in debug, runs every test (unit, integration,
# end to end through the built executables). Extra arguments go to `swift test` (e.g. --filter).
set -euo pipefail
cd "$(dirname "$0")/.."
./Tools/setup.sh
swift build --build-tests
# Every test is written with Swift Testing; the XCTest pass would only report "0 tests".
exec swift test --skip-build --disable-xctest "$@"
