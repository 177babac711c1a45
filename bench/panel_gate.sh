#!/usr/bin/env bash
# B-3: the key panel's gate does the same work on every denial path. Runs the
# criterion bench of `Gate::check` and prints each case's median and its
# ratio to "wrong in the first byte": a token wrong in its last byte, a Host
# failure (with the right token) and the lockout should all sit near 1.00.
#
# Usage: bench/panel_gate.sh   (from the repository root or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

cargo bench -p ploy-service --bench panel_gate -- --warm-up-time 1 --measurement-time 4 >/dev/null

python3 - <<'PY'
import json
base = "target/criterion/panel_gate"
names = ["wrong_first_byte", "wrong_last_byte", "host_failure", "locked_right_token", "admitted"]
median = {n: json.load(open(f"{base}/{n}/new/estimates.json"))["median"]["point_estimate"] for n in names}
ref = median["wrong_first_byte"]
for n in names:
    print(f"{n:<20} {median[n]:8.1f} ns   ratio to wrong_first_byte {median[n] / ref:.3f}")
PY
