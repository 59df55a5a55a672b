#!/usr/bin/env bash
# Installs what is needed and starts Narratoria: the desktop window when a
# display exists, the terminal story otherwise.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh

cargo build --release --locked -p narratoria-cli >&2
exec "$CARGO_TARGET_DIR/release/narratoria" play "$@"
