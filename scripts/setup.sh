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
DEB_PACKAGES=(iproute2 ca-certificates chromium e2fsprogs)

missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
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
