#!/usr/bin/env bash
# Sandbox start-up overhead: `ploy sandbox run -- true` against bare `true`
# and against bubblewrap with comparable isolation (all namespaces, read-only
# system folders, the project bound, private /tmp, fresh /proc, minimal /dev,
# new session, die with parent). ploy additionally applies Landlock, seccomp,
# rlimits, the capability drop, a copy-on-write overlay of the project, the
# hiding of /etc's secrets and of credentials, the PERM-7 locks and the
# memory-summing init on every run, which bwrap here does not.
#
# Two accountings are printed (issue 13):
# * as run: each command timed as it is. bwrap never waits for the
#   sandbox's PID 1 (it exits on the program's status and the kernel kills
#   PID 1 after it), so bwrap's CPU figure misses the whole sandbox-side
#   set-up; ploy waits for its init, so ploy's includes it.
# * reaped: both run under bench/reap.c, a subreaper that waits for every
#   process a command leaves behind, so both are charged for everything
#   they start (the wrapper costs both sides the same fork and exec).
#
# Needs: hyperfine, bwrap, cc, python3 (Debian: apt-get install hyperfine
# bubblewrap gcc), and a release build (`cargo build --release -p ploy`).
# Usage: bench/sandbox_startup.sh [RUNS]
#   PLOY=path/to/ploy and PLOY_HELPER=path/to/ploy-sandbox-run compare other
#   builds (e.g. a saved copy from before a change).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
ploy="$(realpath -m "${PLOY:-target/release/ploy}")"
helper="$(realpath -m "${PLOY_HELPER:-target/release/ploy-sandbox-run}")"
for tool in hyperfine bwrap cc python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine bubblewrap gcc)" >&2; exit 2; }
done
[ -x "$ploy" ] || cargo build --release -p ploy
project="$(mktemp -d /tmp/ploy-bench-XXXXXX)"
tools="$(mktemp -d /tmp/ploy-bench-tools-XXXXXX)"
trap 'rm -rf "$project" "$project.json" "$tools"' EXIT
reap="$tools/reap"
cc -O2 -o "$reap" bench/reap.c
cd "$project"
bwrap_cmd="bwrap --unshare-all --die-with-parent --new-session \
 --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib \
 --symlink usr/lib64 /lib64 --ro-bind /etc /etc --tmpfs /tmp --bind $project $project \
 --proc /proc --dev /dev --chdir $project /usr/bin/true"
"$ploy" doctor >/dev/null || { echo "ploy doctor: the sandbox cannot run here" >&2; exit 1; }
# The small helper launcher (same library, 1.7 MB instead of the full CLI,
# serving as its own init) shows how much of the time is the CLI's own.
extra=()
[ -x "$helper" ] && extra=(-n "ploy-sandbox-run -- true" "$helper -- /usr/bin/true"
  -n "reaped ploy-sandbox-run -- true" "$reap $helper -- /usr/bin/true")
hyperfine -N --warmup 10 --runs "$runs" --export-json "$project.json" \
  -n true /usr/bin/true \
  -n "ploy sandbox run -- true" "$ploy sandbox run -- /usr/bin/true" \
  -n "bwrap true" "$bwrap_cmd" \
  -n "reaped ploy sandbox run -- true" "$reap $ploy sandbox run -- /usr/bin/true" \
  -n "reaped bwrap true" "$reap $bwrap_cmd" "${extra[@]}" >/dev/null
python3 - "$project.json" <<'PY'
import json, os, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {name: r["median"] * 1000 for name, r in results.items()}
cpu = {name: (r.get("user", 0) + r.get("system", 0)) * 1000 for name, r in results.items()}
for name, ms in med.items():
    print(f"{name:34s} median {ms:7.2f} ms   mean CPU (user+sys) {cpu[name]:6.2f} ms")
print(f"load average: {open('/proc/loadavg').read().split()[0]} (on {os.cpu_count()} cores)")
def ratio(a, b, label):
    if a in med and b in med:
        print(f"{label}: wall {med[a] / med[b]:.2f}x, CPU {cpu[a] / cpu[b]:.2f}x")
ratio("ploy sandbox run -- true", "bwrap true", "ploy / bwrap, as run (bwrap's PID 1 not counted)")
ratio("reaped ploy sandbox run -- true", "reaped bwrap true", "ploy / bwrap, reaped (every process counted)")
ratio("ploy-sandbox-run -- true", "bwrap true", "helper / bwrap, as run")
ratio("reaped ploy-sandbox-run -- true", "reaped bwrap true", "helper / bwrap, reaped")
PY
