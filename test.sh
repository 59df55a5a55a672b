#!/usr/bin/env bash
# Installs what is needed and runs every test of Narratoria.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh

# Tests never touch the user's own skill choices or sessions.
export NARRATORIA_HOME="$(mktemp -d)"
trap 'rm -rf "$NARRATORIA_HOME"' EXIT

echo "== unit and black-box tests" >&2
cargo test --workspace --locked 2>&1
