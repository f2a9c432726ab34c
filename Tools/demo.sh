#!/usr/bin/env bash
# The main job, end to end: the GTK shop (a real GTK 4 app with no tracking code) runs under a
# virtual display (Xvfb), tracked through `autotrack-agent run` (LD_PRELOAD), driven by real
# synthesized input (xdotool, XTest); its events go over TCP (ATLP/1) to a collector on a loopback
# port with a temporary database, whose report is printed at the end.
#
#   ./Tools/demo.sh               the GTK shop session, then the report (table)
#   ./Tools/demo.sh --format html the report in another format (table, json, csv, html)
#   ./Tools/demo.sh --simulated   the simulated UIKit shop instead: `autotrack-agent demo` (extra
#                                 arguments go to it)
#   ./Tools/demo.sh --studio      the GTK shop session with snapshots (circle mode forced on), then
#                                 leaves the collector running with its studio (docs/studio.md) and
#                                 prints the studio's address and token (STUDIO_PORT picks the port)
set -euo pipefail
case "${1:-}" in
  -h|--help)
    cat <<'EOF'
usage: Tools/demo.sh [--format table|json|csv|html] [--studio]
       Tools/demo.sh --simulated [ARGUMENT...]
The main job end to end: the GTK shop under Xvfb, tracked through `autotrack-agent run`
(LD_PRELOAD), driven by real input (xdotool); its events go over ATLP/1 to a collector on a
loopback port, whose report is printed at the end.
options:
  --format F         the report's format: table (default), json, csv or html
  --studio           record snapshots, then leave the collector and its studio running and print
                     its address and token (STUDIO_PORT picks the port)
  --simulated ARG... the simulated UIKit shop instead (`autotrack-agent demo ARG...`)
  -h, --help         this text
example: Tools/demo.sh --format json
EOF
    exit 0 ;;
esac
cd "$(dirname "$0")/.."
./Tools/setup.sh
if [ "${1:-}" = "--simulated" ]; then
  shift
  exec swift run autotrack-agent demo "$@"
fi
FORMAT=table
STUDIO=""
while [ $# -gt 0 ]; do
  case "$1" in
    --format) [ -n "${2:-}" ] || { echo "demo: --format needs table, json, csv or html" >&2; exit 2; }; FORMAT=$2; shift 2 ;;
    --studio) STUDIO=1; shift ;;
    *) echo "demo: unknown argument '$1'; use --format table|json|csv|html, --studio or --simulated (see the top of $0)" >&2; exit 2 ;;
  esac
done

swift build --product autotrack-agent >&2
swift build --product autotrack-collector >&2
swift build --product autotrack-gtk-shop >&2
swift build --product AutotrackPreload >&2
B=$(swift build --show-bin-path)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/autotrack-gtk-demo.XXXXXX")
PIDS=()
KEEP="" # with --studio: the collector and its database stay once the demo is done
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -n "$KEEP" ] || rm -rf "$WORK"
}
trap cleanup EXIT

# A display of our own: the first free number from :90.
N=90
while [ -e "/tmp/.X$N-lock" ] || [ -e "/tmp/.X11-unix/X$N" ]; do N=$((N + 1)); done
Xvfb ":$N" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -e "/tmp/.X11-unix/X$N" ] && break; sleep 0.05; done
export DISPLAY=":$N"

# The collector, on a free loopback port; the admin token lets the plan's rules in for the report.
STUDIO_ARGS=()
# With --studio the shop runs with --snapshots: its collector takes the pictures it sends unasked.
[ -z "$STUDIO" ] || STUDIO_ARGS=(--studio "127.0.0.1:${STUDIO_PORT:-0}" --accept-snapshots)
"$B/autotrack-collector" serve --listen 127.0.0.1:0 --db "$WORK/shop.sqlite" --admin-token demo "${STUDIO_ARGS[@]}" \
  >"$WORK/collector.out" 2>"$WORK/collector.err" &
COLLECTOR=$!
PIDS+=($COLLECTOR)
for _ in $(seq 200); do grep -q '^listening on ' "$WORK/collector.out" 2>/dev/null && break; sleep 0.05; done
ADDRESS=$(sed -n 's/^listening on //p' "$WORK/collector.out" | head -1)
[ -n "$ADDRESS" ] || { echo "demo: the collector did not start: $(cat "$WORK/collector.err")" >&2; exit 1; }
"$B/autotrack-collector" rules publish Examples/gtk-shop-rules.json --to "$ADDRESS" --token demo >&2

echo "demo: the GTK shop on $DISPLAY, tracked into the collector at $ADDRESS" >&2
SNAPSHOTS=()
[ -z "$STUDIO" ] || SNAPSHOTS=(--snapshots)
"$B/autotrack-agent" run --to "$ADDRESS" --app-key shop --app-version 1.2.0 "${SNAPSHOTS[@]}" \
  --config Examples/gtk-shop-events.json --config Examples/gtk-shop-rules.json \
  --spool "$WORK/spool" --tree-dir "$WORK/trees" -- "$B/autotrack-gtk-shop" 2>"$WORK/shop.err" &
SHOP=$!
PIDS+=($SHOP)

# Where to click: the centre of a node of a page's tree (found by id or title), in window coordinates.
center() { # tree-file key value
  python3 - "$@" <<'PY'
import json, sys
tree, key, value = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
stack = [tree]
while stack:
    n = stack.pop(0)
    if n.get(key) == value and "frame" in n:
        x, y, w, h = n["frame"]; print(x + w // 2, y + h // 2); sys.exit(0)
    stack.extend(n.get("children", []))
sys.exit(f"demo: no shown node with {key} {value!r} in {sys.argv[1]}")
PY
}
wait_for() { # file
  for _ in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.05; done
  echo "demo: $1 did not appear; the shop said: $(cat "$WORK/shop.err")" >&2; exit 1
}
WINDOW=""
tap() { # tree-file key value what
  read -r X Y < <(center "$1" "$2" "$3")
  echo "demo: $4" >&2
  xdotool mousemove --window "$WINDOW" "$X" "$Y" click 1
  sleep 0.4
}

HOME_TREE="$WORK/trees/GtkBox(home).json"
DETAIL_TREE="$WORK/trees/GtkBox(detail).json"
wait_for "$HOME_TREE"
WINDOW=$(xdotool search --sync --onlyvisible --name '^Autotrack Shop$' | head -1)
sleep 0.5
tap "$HOME_TREE" id fav "favourite the Teapot from the list"
tap "$HOME_TREE" title Kettle "open the Kettle"
wait_for "$DETAIL_TREE"
tap "$DETAIL_TREE" id gift "gift wrap on"
tap "$DETAIL_TREE" id picture "tap the picture"
tap "$DETAIL_TREE" id addToCart "add to cart"
tap "$DETAIL_TREE" id share "share"
rm -f "$HOME_TREE"
tap "$DETAIL_TREE" id back "back to the list"
wait_for "$HOME_TREE"
tap "$HOME_TREE" title Mug "open the Mug"
rm -f "$HOME_TREE"
tap "$DETAIL_TREE" id back "back to the list"
wait_for "$HOME_TREE"
echo "demo: quit (Ctrl+Q); the spool is flushed at exit" >&2
xdotool key ctrl+q
STATUS=0
wait "$SHOP" || STATUS=$?
[ "$STATUS" -eq 0 ] || { echo "demo: the shop exited $STATUS: $(cat "$WORK/shop.err")" >&2; exit 1; }

if [ -n "$STUDIO" ]; then
  # The collector stays: leave it out of the cleanup, and keep its database.
  KEEP=1
  OTHERS=()
  for pid in "${PIDS[@]}"; do [ "$pid" = "$COLLECTOR" ] || OTHERS+=("$pid"); done
  PIDS=("${OTHERS[@]}")
  STUDIO_URL=$(sed -n 's/^studio //p' "$WORK/collector.out" | head -1)
  echo "demo: the studio is at $STUDIO_URL (log in with the admin token: demo)"
  echo "demo: the collector keeps running (pid $COLLECTOR, ATLP at $ADDRESS, database $WORK/shop.sqlite);"
  echo "demo: stop it with: kill $COLLECTOR"
  exit 0
fi
kill -TERM "$COLLECTOR"
wait "$COLLECTOR" || true
"$B/autotrack-collector" report --db "$WORK/shop.sqlite" --format "$FORMAT"
