#!/usr/bin/env bash
# Runs every benchmark under Tools/ once, in one release build, one after another (one quiet run),
# and keeps each one's output in a folder. The figures in docs/performance.md come from here.
#
#   Tools/benchmarks.sh                 # all of them, full length (about 5 minutes on a quiet 2-core machine, after the build)
#   Tools/benchmarks.sh --quick         # a short run of each, to check they work
#   Tools/benchmarks.sh hooks-bench     # only the ones named
#
# Output: bench-results/<date>/<benchmark>.txt. Each benchmark prints the load average it ran
# under (Tools/BenchmarkSupport), since its ratios are only comparable between quiet runs.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
names=()
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    -h|--help)
      cat <<'EOF'
usage: Tools/benchmarks.sh [--quick] [BENCHMARK...]
Runs every benchmark under Tools/ (or the ones named) once in one release build, one after
another, and keeps each one's output in bench-results/<date>/<benchmark>.txt; the figures in
docs/performance.md come from here. Each benchmark's own options: .build/release/NAME --help.
options:
  --quick     a short run of each, to check they work
  -h, --help  this text
example: Tools/benchmarks.sh --quick md5-bench json-bench
EOF
      exit 0 ;;
    -*) echo "Tools/benchmarks.sh: unknown option $a (see --help)" >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done
all=(md5-bench viewpath-bench hooks-bench kvc-bench match-bench json-bench transport-bench http-bench pipeline-bench ingest-bench store-bench analytics-bench pg-bench gtk-bench objc-bench snapshot-memory-bench)
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
for n in "${names[@]}"; do
  [ -d "Tools/$n" ] || { echo "Tools/benchmarks.sh: no benchmark Tools/$n; these exist: ${all[*]}" >&2; exit 2; }
done

echo "building the benchmarks (release)..." >&2
for n in "${names[@]}"; do
  swift build -c release --product "$n" >&2
  # It measures the collector as a process of its own, built beside it.
  [ "$n" != snapshot-memory-bench ] || swift build -c release --product autotrack-collector >&2
done

out="bench-results/$(date -u +%Y-%m-%dT%H%M%SZ)"
mkdir -p "$out"
git rev-parse --short HEAD > "$out/commit.txt" 2>/dev/null || true
for n in "${names[@]}"; do
  args=("${quick[@]}")
  echo "== $n" | tee "$out/$n.txt" >&2
  ".build/release/$n" "${args[@]}" 2>&1 | tee -a "$out/$n.txt"
done
echo "results in $out" >&2
