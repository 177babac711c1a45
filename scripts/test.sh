#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need, then
# runs every test of every crate (unit, integration, adversarial, doc tests),
# and closes with one summary line over all test binaries.
#
# A test that cannot get a real part it needs (Chromium, root, chattr…) calls
# ploy_testkit::require_part!, which appends one `SKIP <test>: missing <part>:
# <reason>` line to $PLOY_TEST_SKIP_LOG (cargo hides a passing test's output);
# those lines are printed here and counted as skipped, not passed. With
# PLOY_TEST_STRICT=1 (CI) such a test fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
log=$(mktemp)
skips=$(mktemp)
trap 'rm -f "$log" "$skips"' EXIT
export PLOY_TEST_SKIP_LOG="$skips"
status=0
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$log" || status=$?
runtime_skips=$(grep -c '^SKIP ' "$skips" || true)
if [ "$runtime_skips" -gt 0 ]; then
  echo "skipped at run time (a real part was missing):"
  grep '^SKIP ' "$skips"
fi
# cargo prints one "test result:" line per test binary; the last one is often
# a crate's empty doc-test run, so sum them into one closing line. A test that
# skipped at run time returned early, so cargo counted it as passed: it is
# moved from passed to skipped.
awk -v r="$runtime_skips" '/^test result:/ { p += $4; f += $6; i += $8 }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p - r, f, i + r }' "$log"
exit "$status"
