#!/usr/bin/env bash
# The proof validator on a 400-character line (issue 12 target: under 100 µs
# per line). Prints, for the accepted benchmark line and for a hostile one:
# CPU time per call of the bash parse alone (ploy-shell / brush-parser) and
# of the whole validator, the validator's share beyond the parse, and, when
# valgrind is installed, the instructions per call (a count that does not
# swell on a loaded machine the way times do).
#
# Usage: bench/validate_400.sh [N]   (N calls per measurement, default 3000)
# For criterion's wall times as well:
#   cargo bench -p ploy-validate --bench validate -- --warm-up-time 1 --measurement-time 3
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-3000}"
CARGO_INCREMENTAL=0 cargo build -q --release -p ploy-validate --example cpu_time
bin=target/release/examples/cpu_time
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
# Three rounds; the lowest CPU time of each is the least disturbed.
for round in 1 2 3; do N="$n" "$bin"; done | awk '
  { name = $1; sub(":", "", name); cpu = $2 + 0
    if (!(name in best) || cpu < best[name]) best[name] = cpu }
  END {
    printf "%-18s %8s\n", "per call", "CPU µs"
    split("analyze validate analyze_refused validate_refused", order, " ")
    for (i = 1; i <= 4; i++) printf "%-18s %8.1f\n", order[i], best[order[i]]
    printf "accepted line: validator beyond the bash parse %.1f µs (%.0f%% of the total); target 100 µs: %s\n",
      best["validate"] - best["analyze"], 100 * (1 - best["analyze"] / best["validate"]),
      (best["validate"] < 100 ? "met" : "NOT met on this run")
  }'
if command -v valgrind >/dev/null; then
  for only in analyze validate; do
    calls=200
    total=$(ONLY="$only" N="$calls" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 |
      awk '/Collected :/ { print $4 }')
    echo "$only: $(( total / (calls + 1) )) instructions per call (callgrind)"
  done
fi
