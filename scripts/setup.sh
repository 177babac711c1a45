#!/usr/bin/env bash
# Installs what ploy's build and tests need on a fresh Debian machine, from the
# package registries only. Idempotent: already-present packages are skipped, so
# a warm machine does not touch the network at all.
set -euo pipefail

# Debian packages the tests use:
#   iproute2        `ip` for tests that build their own network namespaces
#   ca-certificates TLS roots for the first `cargo fetch`
#   chromium        headless browser for the gateway's cross-origin test (GW-2/3)
#   e2fsprogs       `chattr` for the store's read-only database test (TAINT-3)
#   tmux            renders the interactive terminal for its screen test (issue 17)
DEB_PACKAGES=(iproute2 ca-certificates chromium e2fsprogs tmux)

missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

# The proof validator's tests run the real programs of its allowlist (the
# option tables are compared with them; the differential test runs them
# under strace in the sandbox). Installed only when the command is missing,
# so a Node.js or git from elsewhere is left alone:
#   strace          the differential test (issue 12)
#   ripgrep jq yq   checkers of the allowlist
#   make git        make <target>, read-only git
#   golang-go       go test|vet in the sandbox
#   nodejs npm      npm test in the sandbox
#   python3-pytest  python3 -m pytest in the sandbox (Debian's python3)
for pair in strace:strace rg:ripgrep jq:jq yq:yq make:make git:git go:golang-go node:nodejs npm:npm; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import pytest' 2>/dev/null || missing+=(python3-pytest)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v cargo >/dev/null || { echo "setup: cargo not found; install the Rust toolchain (rustup) first" >&2; exit 1; }
for comp in rustfmt clippy; do
  if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
    rustup component add "$comp"
  fi
done

# Fetch crates once, with the committed lock file, so later steps can run offline.
cargo fetch --locked
