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
