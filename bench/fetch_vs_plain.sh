#!/usr/bin/env bash
# Side by side: a 1 MB page from a loopback server through ploy's guarded
# fetcher (text check, resolve, address check, pinned dial, fixed headers,
# streamed capped body, charset decode) versus a plain hyper GET of the same
# page. Both open a new connection per request. Prints both medians and the
# ratio (target: guarded / plain <= 1.10).
#
# Usage: bench/fetch_vs_plain.sh   (from the repository root or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

cargo bench -p ploy-egress --bench fetch -- --warm-up-time 1 --measurement-time 3 >/dev/null

dir=target/criterion/fetch_1mb
median() {
    # criterion's estimates.json: median.point_estimate in nanoseconds.
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median"]["point_estimate"])' "$1"
}
guarded=$(median "$dir/guarded/new/estimates.json")
plain=$(median "$dir/plain_hyper/new/estimates.json")
python3 - "$guarded" "$plain" <<'PY'
import sys
guarded, plain = (float(x) for x in sys.argv[1:3])
ratio = guarded / plain
print(f"guarded fetch of 1 MB: {guarded / 1e6:.3f} ms (median)")
print(f"plain hyper GET of 1 MB: {plain / 1e6:.3f} ms (median)")
print(f"ratio guarded/plain: {ratio:.3f} ({(ratio - 1) * 100:+.1f}%) target <= 1.10")
PY
