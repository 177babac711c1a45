#!/usr/bin/env bash
# `ploy mcp` `proof_check` round trip after start (target: under 1 ms): the
# release binary as a real MCP server over stdio, a JSON-RPC client in
# Python that initialises once, then times N `tools/call proof_check`
# requests one after the other (send, wait for the answer). Prints the
# median and the 90th and 99th percentiles. The criterion bench
# `cargo bench -p ploy-mcp --bench proof_check` measures the same call
# in-process (rmcp's own client over an in-memory pipe).
#
# Needs: python3, a release build (`cargo build --release -p ploy`).
# Usage: bench/mcp_proof_check.sh [N]   (PLOY=path/to/ploy to compare builds)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-2000}"
ploy="$(realpath -m "${PLOY:-target/release/ploy}")"
[ -x "$ploy" ] || cargo build --release -p ploy
root="$(mktemp -d /tmp/ploy-mcp-bench-XXXXXX)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/config" "$root/state" "$root/proj"
echo '{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}' > "$root/config/settings.json"
PLOY_CONFIG_DIR="$root/config" PLOY_STATE_DIR="$root/state" python3 - "$ploy" "$root/proj" "$n" <<'PY'
import json, os, statistics, subprocess, sys, time
ploy, proj, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.Popen([ploy, "mcp", "--project", proj], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
def send(msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
def recv():
    return json.loads(p.stdout.readline())
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
line = 'cargo test -q --all && grep -q "fn main" src/main.rs'
times = []
for i in range(1, n + 1):
    t = time.perf_counter()
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "proof_check", "arguments": {"line": line}}})
    reply = recv()
    times.append((time.perf_counter() - t) * 1000)
    assert reply["id"] == i and reply["result"]["structuredContent"]["verdict"] == "accepted", reply
p.stdin.close(); p.wait()
times.sort()
pct = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"ploy mcp proof_check round trip over stdio, {n} calls: median {statistics.median(times):.3f} ms, p90 {pct(0.9):.3f} ms, p99 {pct(0.99):.3f} ms")
print(f"median / target 1 ms: {statistics.median(times):.2f}")
print(f"load average: {open('/proc/loadavg').read().split()[0]} (on {os.cpu_count()} cores)")
PY
