#!/usr/bin/env bash
# The test command: sets up, builds everything in debug, runs every test (unit, integration,
# end to end through the built executables). Extra arguments go to `swift test` (e.g. --filter).
set -euo pipefail
case "${1:-}" in
  -h|--help)
    cat <<'EOF'
usage: Tools/test.sh [SWIFT-TEST-ARGUMENT...]
The test command: installs what is missing (Tools/setup.sh), builds everything in debug, runs
every test (unit, integration, end to end through the built executables). Arguments go to
`swift test --skip-build --disable-xctest` (e.g. --filter SUITE).
options:
  -h, --help  this text
example: Tools/test.sh --filter ToolArgumentsTests
EOF
    exit 0 ;;
esac
cd "$(dirname "$0")/.."
./Tools/setup.sh
swift build --build-tests
# Every test is written with Swift Testing; the XCTest pass would only report "0 tests".
exec swift test --skip-build --disable-xctest "$@"
