#!/usr/bin/env bash
# Installs what is needed and starts Narratoria: the desktop window when a
# display exists, the terminal story otherwise.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh

echo "== building the built-in skills' scripts" >&2
scripts/install-skills.sh --release >&2

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x scripts/desktop.sh ]; then
  exec scripts/desktop.sh "$@"
fi

echo "== building the narratoria command" >&2
cargo build --release --locked -p narratoria-cli >&2
exec "$CARGO_TARGET_DIR/release/narratoria" play "$@"
