#!/usr/bin/env bash
# The model gateway side by side with a direct call and with nginx as a plain
# reverse proxy, all against the same loopback upstream test server
# (crates/service/examples/bench_upstream.rs). Issue 6 performance targets:
# gateway throughput >= nginx's, added p99 latency < 1 ms, and a 60-second
# full-speed run through the gateway with zero errors and flat memory.
#
# Usage: bench/gateway_vs_nginx.sh [SECONDS_PER_RUN] [SOAK_SECONDS]   (default 10 60)
# Env:   PLOY_BIN / UPSTREAM_BIN to skip the release builds;
#        CONNECTIONS (default 32), THREADS (default 2).
# Needs: wrk, nginx, curl (Debian: apt-get install -y wrk nginx-light curl).
set -euo pipefail

secs="${1:-10}"
soak="${2:-60}"
conns="${CONNECTIONS:-32}"
threads="${THREADS:-2}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/ploy-gateway-bench.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool (apt-get install -y wrk nginx-light curl)" >&2; exit 2; }
done
if [[ -z "${PLOY_BIN:-}" ]]; then
  echo "building ploy (release)..." >&2
  cargo build --release -p ploy --bin ploy --manifest-path "$root/Cargo.toml" >&2
  PLOY_BIN="$root/target/release/ploy"
fi
if [[ -z "${UPSTREAM_BIN:-}" ]]; then
  cargo build --release -p ploy-service --example bench_upstream --manifest-path "$root/Cargo.toml" >&2
  UPSTREAM_BIN="$root/target/release/examples/bench_upstream"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_line() { # file pattern
  for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "timed out waiting for '$2' in $1" >&2; cat "$1" >&2; exit 1
}

# 1. The upstream.
"$UPSTREAM_BIN" 0 >"$work/upstream.log" 2>&1 &
pids+=($!)
wait_line "$work/upstream.log" listening
up_port="$(sed -n 's/^listening 127.0.0.1:\([0-9]*\).*/\1/p' "$work/upstream.log")"
upstream="http://127.0.0.1:$up_port/v1/chat/completions"

# 2. ploy serve in front of it; the token reaches this script only the way
#    it reaches any agent: through `ploy exec`.
export PLOY_STATE_DIR="$work/state" PLOY_CONFIG_DIR="$work/config"
mkdir -p "$PLOY_CONFIG_DIR"
"$PLOY_BIN" serve --upstream "$upstream" >"$work/serve.log" 2>&1 &
serve_pid=$!
pids+=($serve_pid)
wait_line "$work/serve.log" "ploy serve: running"
gw_url="$("$PLOY_BIN" exec -- sh -c 'printf %s "$OPENAI_BASE_URL"')/chat/completions"
TOKEN="$("$PLOY_BIN" exec -- sh -c 'printf %s "$OPENAI_API_KEY"')"
export TOKEN

# 3. nginx as a plain reverse proxy (default proxy settings, buffering off so
#    streams pass through).
ngx_port="$(free_port)"
mkdir -p "$work/nginx/logs"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 2;
error_log $work/nginx/logs/error.log warn;
pid $work/nginx/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$ngx_port;
    location = /v1/chat/completions {
      proxy_pass http://127.0.0.1:$up_port;
      proxy_buffering off;
    }
  }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
sleep 0.5
ngx_url="http://127.0.0.1:$ngx_port/v1/chat/completions"

run_wrk() { # name url duration token [threads connections]
  local out
  out="$(TOKEN="$4" wrk -t"${5:-$threads}" -c"${6:-$conns}" -d"$3"s --latency -s "$root/bench/gateway_post.lua" "$2")"
  local rps p50 p99 errors non2xx
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p50="$(awk '$1=="50%" {print $2}' <<<"$out")"
  p99="$(awk '$1=="99%" {print $2}' <<<"$out")"
  errors="$(awk '/Socket errors/ {print $0}' <<<"$out")"
  non2xx="$(awk '/Non-2xx/ {print $NF}' <<<"$out")"
  printf '%-8s rps=%-10s p50=%-9s p99=%-9s non2xx=%s %s\n' "$1" "$rps" "$p50" "$p99" "${non2xx:-0}" "${errors:-socket_errors=0}"
}

ttfb() { # name url token
  local body='{"model":"bench","stream":true,"messages":[{"role":"user","content":"hi"}]}'
  local times=()
  for _ in $(seq 1 20); do
    times+=("$(curl -s -o /dev/null -N -w '%{time_starttransfer} %{time_total}' \
      -H 'content-type: application/json' ${3:+-H "x-ploy-token: $3"} -d "$body" "$2")")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$1" '
    { ttfb[NR]=$1*1000; total[NR]=$2*1000 }
    END { printf "%-8s stream ttfb p50=%.2fms max=%.2fms  total p50=%.1fms (upstream sends 6 events, 50 ms apart)\n", n, ttfb[int(NR/2)+1], ttfb[NR], total[int(NR/2)+1] }'
}

echo "== small non-streaming POSTs: wrk -t$threads -c$conns -d${secs}s (same upstream) =="
wrk -t1 -c4 -d2s -s "$root/bench/gateway_post.lua" "$upstream" >/dev/null  # warm-up
run_wrk direct "$upstream" "$secs" ""
run_wrk gateway "$gw_url" "$secs" "$TOKEN"
run_wrk nginx "$ngx_url" "$secs" ""
echo "== added latency at low load: one connection, wrk -t1 -c1 -d${secs}s =="
run_wrk direct "$upstream" "$secs" "" 1 1
run_wrk gateway "$gw_url" "$secs" "$TOKEN" 1 1
run_wrk nginx "$ngx_url" "$secs" "" 1 1
echo "== streaming time to first byte (curl, 20 runs) =="
ttfb direct "$upstream" ""
ttfb gateway "$gw_url" "$TOKEN"
ttfb nginx "$ngx_url" ""

echo "== ${soak}s full-speed run through the gateway =="
rss() { awk '/VmRSS/ {print $2" "$3}' "/proc/$serve_pid/status"; }
echo "ploy serve RSS at start: $(rss)"
run_wrk gateway "$gw_url" "$soak" "$TOKEN"
echo "ploy serve RSS at end:   $(rss)"
echo "refused without token (expect 403): $(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' "$gw_url")"
