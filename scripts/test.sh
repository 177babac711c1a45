#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need, then
# runs every test of every crate (unit, integration, adversarial, doc tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --locked --no-fail-fast
