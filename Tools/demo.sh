#!/usr/bin/env bash
# The main job, end to end on the embedded defaults: a scripted shop session through the hooks,
# the example tracking plan and TCP into a collector on a loopback port with a temporary
# database, then that collector's report. Extra arguments go to `autotrack-agent demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
./Tools/setup.sh
exec swift run autotrack-agent demo "$@"
