#!/usr/bin/env bash
# ploy's main job on a fresh machine: install what is missing, build the
# release binary, report which sandbox layers work here, then start the local
# service (API + model gateway) in the foreground until Ctrl-C / SIGTERM.
# Extra arguments go to `ploy serve` (e.g. --upstream URL, --listen ADDR:PORT).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --locked -p ploy
./target/release/ploy doctor || echo "run.sh: proofs cannot run here (see above); the service still starts" >&2
exec ./target/release/ploy serve "$@"
