#!/usr/bin/env bash
# `ploy hook claude-code` from process start to answer (target: median under
# 5 ms), next to the binary's bare start-up (`ploy --version`) and `true`.
# Events: a Bash call in a clean session (settings, trust, store read, shell
# parse, assert), the same in a marked session (the answer is `ask`, so the
# reason is redacted and printed), a Read, a Write to a protected path, and a
# WebFetch (which writes the mark: one SQLite commit with fsync).
#
# Needs: hyperfine, python3, a release build (`cargo build --release -p ploy`).
# Usage: bench/hook_startup.sh [RUNS]   (PLOY=… PLOY_HOOK=… to compare builds)
# `ploy-hook claude-code` is what `ploy hook install` puts in Claude Code's
# settings (the small binary: same judge); `ploy hook claude-code` is the
# same command inside the full binary.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-300}"
ploy="$(realpath -m "${PLOY:-target/release/ploy}")"
hook="$(realpath -m "${PLOY_HOOK:-target/release/ploy-hook}")"
for tool in hyperfine python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine)" >&2; exit 2; }
done
[ -x "$ploy" ] && [ -x "$hook" ] || cargo build --release -p ploy
root="$(mktemp -d /tmp/ploy-hook-bench-XXXXXX)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/config" "$root/state" "$root/proj/src" "$root/proj/.git/hooks"
cat > "$root/config/settings.json" <<'JSON'
{"security_profile": {"sandbox": "workspace-write", "approval": "ask"},
 "permissions": {"shell": {"allow": ["cargo test*", "cargo build*", "git status", "git diff*"],
                           "deny": ["git push*", "rm -rf /*"]},
                 "edit": {"allow": ["src/**"]}}}
JSON
export PLOY_CONFIG_DIR="$root/config" PLOY_STATE_DIR="$root/state"
event() { # session tool input-json
  printf '{"session_id":"%s","transcript_path":"/dev/null","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"toolu_1"}' \
    "$1" "$root/proj" "$2" "$3"
}
event clean Bash '{"command":"cargo test --all"}' > "$root/bash.json"
event marked Bash '{"command":"cargo test --all"}' > "$root/bash-marked.json"
event clean Read '{"file_path":"src/main.rs"}' > "$root/read.json"
event clean Write '{"file_path":".git/hooks/pre-commit","content":"x"}' > "$root/protected.json"
event fetcher WebFetch '{"url":"https://docs.example.org/","prompt":"p"}' > "$root/webfetch.json"
# A store with a marked session (and the clean one's lookups hitting a real file).
event marked WebFetch '{"url":"https://docs.example.org/","prompt":"p"}' | "$ploy" hook claude-code >/dev/null
[ -n "$("$ploy" hook claude-code < "$root/bash-marked.json")" ] || { echo "the marked session did not ask" >&2; exit 1; }
cd "$root/proj"
# hyperfine 1.15 cannot feed stdin per command: each case runs as
# `sh -c 'exec CMD < FILE'`, and `sh -c 'exec true < FILE'` is measured too,
# so the shell's own start-up can be taken off (`adjusted` below). `-i`:
# `ploy-hook` alone exits 2 (usage); the hook itself always exits 0.
feed() { echo "sh -c 'exec \"\$0\" \"\$@\" < $1' $2"; }
hyperfine -N -i --warmup 20 --runs "$runs" --export-json "$root/out.json" \
  -n "true" /usr/bin/true \
  -n "ploy --version" "$ploy --version" \
  -n "sh: true < input" "$(feed "$root/bash.json" /usr/bin/true)" \
  -n "ploy-hook (usage error)" "$hook" \
  -n "hook Bash (clean)" "$(feed "$root/bash.json" "$hook claude-code")" \
  -n "hook Bash (marked: ask)" "$(feed "$root/bash-marked.json" "$hook claude-code")" \
  -n "hook Read" "$(feed "$root/read.json" "$hook claude-code")" \
  -n "hook Write .git/hooks (ask)" "$(feed "$root/protected.json" "$hook claude-code")" \
  -n "hook WebFetch (marks)" "$(feed "$root/webfetch.json" "$hook claude-code")" \
  -n "hook Bash (clean), full ploy" "$(feed "$root/bash.json" "$ploy hook claude-code")" >/dev/null
python3 - "$root/out.json" <<'PY'
import json, sys, os
results = json.load(open(sys.argv[1]))["results"]
med = {r["command"]: r["median"] * 1000 for r in results}
shell = med["sh: true < input"] - med["true"]
for r in results:
    cpu = (r.get("user", 0) + r.get("system", 0)) * 1000
    name = r["command"]
    adjusted = f"  adjusted {med[name] - shell:6.2f} ms" if name.startswith("hook") else ""
    print(f"{name:30s} median {med[name]:7.2f} ms (min {r['min']*1000:.2f}, max {r['max']*1000:.2f}){adjusted}  mean CPU {cpu:5.2f} ms")
print(f"load average: {open('/proc/loadavg').read().split()[0]} (on {os.cpu_count()} cores)")
clean = med["hook Bash (clean)"] - shell
print(f"hook Bash (clean), shell taken off: {clean:.2f} ms = {clean / 5:.2f} x the 5 ms target; "
      f"{clean - med['ploy-hook (usage error)']:.2f} ms more than ploy-hook's bare start-up")
PY
