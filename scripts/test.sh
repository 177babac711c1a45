#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need, then
# runs every test of every crate (unit, integration, adversarial, doc tests),
# and closes with one summary line over all test binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$log" || status=$?
# cargo prints one "test result:" line per test binary; the last one is often
# a crate's empty doc-test run, so sum them into one closing line.
awk '/^test result:/ { p += $4; f += $6; i += $8 }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, i }' "$log"
exit "$status"
