#!/usr/bin/env bash
# Throughput of `ploy redact` against GNU sed doing the same 100 replacements
# on a 256 MiB log-like file (issue 2, REDACT-1 performance target: >= 1 GB/s
# on one core and faster than sed). Both run pinned to one core when taskset
# exists; both write to a file; the two outputs are compared byte for byte.
#
# Usage: bench/redact_vs_sed.sh [SIZE_MIB]   (default 256)
# Env:   PLOY_BIN=path/to/ploy to skip the release build.
set -euo pipefail

size_mib="${1:-256}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/ploy-redact-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if [[ -z "${PLOY_BIN:-}" ]]; then
  echo "building ploy (release)..." >&2
  cargo build --release -p ploy --manifest-path "$root/Cargo.toml" >&2
  PLOY_BIN="$root/target/release/ploy"
fi

pin=()
if command -v taskset >/dev/null 2>&1; then pin=(taskset -c 0); fi

# 100 key-like secrets: letters, digits and '-' only, so sed needs no escaping.
for i in $(seq -w 0 99); do
  printf 'sk-bench-%s-%s\n' "$i" "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
done >"$work/secrets.txt"
sed 's/.*/s|&|[REDACTED]|g/' "$work/secrets.txt" >"$work/script.sed"

# A 1 MiB block of log lines, one secret every ~50 lines, repeated to SIZE.
perl -e '
  open my $fh, "<", $ARGV[0] or die; my @s = <$fh>; chomp @s; my $n = 0; my $out = "";
  while (length($out) < 1048576) {
    $out .= sprintf("2026-11-29T16:%02d:%02dZ INFO req=%06d path=/api/v1/items/%d status=200 bytes=%d user=caf\x{e9} ok\n",
                    $n % 60, ($n * 7) % 60, $n, $n * 31 % 9973, $n * 17 % 65536);
    $out .= "auth header Bearer $s[$n % 100] accepted\n" if $n % 50 == 0;
    $n++;
  }
  print substr($out, 0, rindex(substr($out, 0, 1048576), "\n") + 1);
' "$work/secrets.txt" >"$work/block.txt"
for _ in $(seq 1 "$size_mib"); do cat "$work/block.txt"; done >"$work/input.txt"
bytes=$(stat -c %s "$work/input.txt")
count=$(grep -c 'Bearer sk-bench' "$work/input.txt")
echo "input: $bytes bytes, $count secret occurrences of 100 distinct secrets"

now() { date +%s.%N; }

t0=$(now)
env -i "${pin[@]}" "$PLOY_BIN" redact --secret-file "$work/secrets.txt" <"$work/input.txt" >"$work/ploy.out"
t1=$(now)
LC_ALL=C "${pin[@]}" sed -f "$work/script.sed" "$work/input.txt" >"$work/sed.out"
t2=$(now)

if cmp -s "$work/ploy.out" "$work/sed.out"; then same="identical"; else same="DIFFERENT"; fi
leaks=$(grep -c -F -f "$work/secrets.txt" "$work/ploy.out" || true)

awk -v b="$bytes" -v p0="$t0" -v p1="$t1" -v s1="$t2" -v same="$same" -v leaks="$leaks" 'BEGIN {
  tp = p1 - p0; ts = s1 - p1;
  printf "ploy redact: %.3f s  %8.1f MB/s\n", tp, b / tp / 1e6;
  printf "sed        : %.3f s  %8.1f MB/s\n", ts, b / ts / 1e6;
  printf "ratio      : ploy is %.1fx faster than sed\n", ts / tp;
  printf "outputs    : %s; secrets left in ploy output: %d\n", same, leaks;
}'
