#!/usr/bin/env bash
# Sandbox start-up overhead: `ploy sandbox run -- true` against bare `true`
# and against bubblewrap with comparable isolation (all namespaces, read-only
# system folders, the project bound, private /tmp, fresh /proc, minimal /dev,
# new session, die with parent). ploy additionally applies Landlock, seccomp,
# rlimits and an overlayfs self-test on every run, which bwrap here does not.
#
# Needs: hyperfine, bwrap (Debian: apt-get install hyperfine bubblewrap),
# python3, and a release build (`cargo build --release -p ploy`).
# Usage: bench/sandbox_startup.sh [RUNS]
#   PLOY=path/to/ploy and PLOY_HELPER=path/to/ploy-sandbox-run compare other
#   builds (e.g. a saved copy from before a change).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
ploy="$(realpath -m "${PLOY:-target/release/ploy}")"
helper="$(realpath -m "${PLOY_HELPER:-target/release/ploy-sandbox-run}")"
for tool in hyperfine bwrap python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine bubblewrap)" >&2; exit 2; }
done
[ -x "$ploy" ] || cargo build --release -p ploy
project="$(mktemp -d /tmp/ploy-bench-XXXXXX)"
trap 'rm -rf "$project" "$project.json"' EXIT
cd "$project"
bwrap_cmd="bwrap --unshare-all --die-with-parent --new-session \
 --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib \
 --symlink usr/lib64 /lib64 --ro-bind /etc /etc --tmpfs /tmp --bind $project $project \
 --proc /proc --dev /dev --chdir $project /usr/bin/true"
"$ploy" doctor >/dev/null || { echo "ploy doctor: the sandbox cannot run here" >&2; exit 1; }
# The small helper launcher (same library, 1 MB instead of the full CLI)
# shows how much of the time is the size of the binary exec'd twice.
extra=()
[ -x "$helper" ] && extra=(-n "ploy-sandbox-run -- true" "$helper -- /usr/bin/true")
hyperfine -N --warmup 10 --runs "$runs" --export-json "$project.json" \
  -n true /usr/bin/true \
  -n "ploy sandbox run -- true" "$ploy sandbox run -- /usr/bin/true" \
  -n "bwrap true" "$bwrap_cmd" "${extra[@]}" >/dev/null
python3 - "$project.json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {name: r["median"] * 1000 for name, r in results.items()}
for name, ms in med.items():
    r = results[name]
    cpu = (r.get("user", 0) + r.get("system", 0)) * 1000
    print(f"{name:28s} median {ms:7.2f} ms   mean CPU (user+sys) {cpu:6.2f} ms")
print(f"load average: {open('/proc/loadavg').read().split()[0]} (on {__import__('os').cpu_count()} cores)")
bare, ploy, bwrap = med["true"], med["ploy sandbox run -- true"], med["bwrap true"]
print(f"ploy overhead over bare true: {ploy - bare:.2f} ms (ratio {ploy / bare:.1f}x)")
print(f"ploy / bwrap: {ploy / bwrap:.2f}x (bwrap overhead {bwrap - bare:.2f} ms)")
PY
