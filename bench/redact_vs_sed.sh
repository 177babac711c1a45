#!/usr/bin/env bash
# Throughput of `ploy redact` against GNU sed doing the same 100 replacements
# on a 256 MiB log-like file (issue 2, REDACT-1 performance target: >= 1 GB/s
# on one core and faster than sed). Both run pinned to one core when taskset
# exists; both write to a file; the two outputs are compared byte for byte.
#
# Usage: bench/redact_vs_sed.sh [SIZE_MIB]   (default 256)
# Env:   PLOY_BIN=path/to/ploy to skip the release build; it may also be
#        the ploy-secrets example `redact_stdin` (`cargo build --release -p
#        ploy-secrets --example redact_stdin`), which makes the same library
#        calls as `ploy redact --secret-file` without building the whole CLI.
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

# Wall time is what a user waits; CPU time (user + sys) is what one core
# spends, and stays meaningful on a busy machine. dd gives the floor: the same
# bytes read and written with no work on them.
TIMEFORMAT='%R %U %S'
timed() { { time "$@" 2>/dev/null; } 2>&1 | tail -1; }

ploy_to_file() {
  env -i "${pin[@]}" "$PLOY_BIN" redact --secret-file "$work/secrets.txt" <"$work/input.txt" >"$work/ploy.out"
}
ploy_to_null() {
  env -i "${pin[@]}" "$PLOY_BIN" redact --secret-file "$work/secrets.txt" <"$work/input.txt" >/dev/null
}
sed_to_file() {
  LC_ALL=C "${pin[@]}" sed -f "$work/script.sed" "$work/input.txt" >"$work/sed.out"
}

copy_t=$(timed dd if="$work/input.txt" of="$work/copy.out" bs=1M)
ploy_t=$(timed ploy_to_file)
null_t=$(timed ploy_to_null)
sed_t=$(timed sed_to_file)

if cmp -s "$work/ploy.out" "$work/sed.out"; then same="identical"; else same="DIFFERENT"; fi
leaks=$(grep -c -F -f "$work/secrets.txt" "$work/ploy.out" || true)

awk -v b="$bytes" -v copy="$copy_t" -v ploy="$ploy_t" -v null="$null_t" -v sed="$sed_t" \
    -v same="$same" -v leaks="$leaks" 'BEGIN {
  split(copy, c, " "); split(ploy, p, " "); split(null, n, " "); split(sed, s, " ");
  line = "%-28s wall %7.3f s %8.1f MB/s | cpu %7.3f s %8.1f MB/s\n";
  printf line, "dd copy (floor)", c[1], b / c[1] / 1e6, c[2] + c[3], b / (c[2] + c[3]) / 1e6;
  printf line, "ploy redact -> file", p[1], b / p[1] / 1e6, p[2] + p[3], b / (p[2] + p[3]) / 1e6;
  printf line, "ploy redact -> /dev/null", n[1], b / n[1] / 1e6, n[2] + n[3], b / (n[2] + n[3]) / 1e6;
  printf line, "sed (100 s///g) -> file", s[1], b / s[1] / 1e6, s[2] + s[3], b / (s[2] + s[3]) / 1e6;
  printf "ratio (-> file): ploy is %.1fx faster than sed (wall), %.1fx (cpu)\n", s[1] / p[1], (s[2] + s[3]) / (p[2] + p[3]);
  printf "outputs: %s; secrets left in ploy output: %d\n", same, leaks;
}'
