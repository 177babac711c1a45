#!/usr/bin/env bash
# ploy's main job on a fresh machine: install what is missing, build the
# release binary, report which sandbox layers work here, then run
# `ploy redteam`: every attack scenario against this ploy, with a model that
# obeys every injection, in a private network namespace (no model, no
# network needed). Then it says how to start the agent with a local model.
# Extra arguments go to `ploy redteam` (e.g. --json, --scenario NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --locked -p ploy
# The sandbox's init, started for every sandboxed command, linked static-pie:
# no dynamic loader and no shared libraries to map at each start (about half
# a millisecond per command; docs/proofs.md "Sandbox start-up"). Only this
# binary: ploy itself stays dynamic (it asks NSS for users). Without glibc's
# static library (libc6-dev) the dynamic init from the line above stays.
cargo rustc --release --locked -p ploy --bin ploy-sandbox-init -- -C target-feature=+crt-static \
  || echo "run.sh: the static sandbox init was not built; the dynamic one is used" >&2
./target/release/ploy doctor || echo "run.sh: proofs cannot run here (see above)" >&2
status=0
./target/release/ploy redteam "$@" || status=$?
cat <<'NEXT'

Next: the agent with a local model (README "Run the agent with a local model"):
  ollama serve & ollama pull qwen2.5-coder:7b        # or: llama-server --jinja -m MODEL.gguf --port 8080
  mkdir -p ~/.config/ploy && echo '{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}' > ~/.config/ploy/settings.json
  cd your-project && /path/to/ploy -p "what does this project do?"   # add --upstream URL for llama.cpp
  ploy serve     # the local service: API, model gateway, key panel
NEXT
exit "$status"
