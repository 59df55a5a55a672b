#!/usr/bin/env bash
# Builds Narratoria's desktop app (web UI embedded) and starts it on the
# current display with this checkout's skills and model.
# Arguments are passed to the app. Needs a display ($DISPLAY or $WAYLAND_DISPLAY);
# installs what the build needs when it is missing (scripts/desktop-deps.sh:
# WebKitGTK's development files, Node.js with npm, ui/'s npm packages).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/narratoria/target}"

source scripts/desktop-deps.sh
desktop_deps || exit 1
[ -f "models/SmolLM2-135M-Instruct.Q4_1.gguf" ] || scripts/fetch-model.sh >&2
export TAURI_APP_PATH="$root/src-tauri" TAURI_FRONTEND_PATH="$root/ui"
(cd ui && npx tauri build --no-bundle >&2)

export NARRATORIA_SKILLS_DIR="${NARRATORIA_SKILLS_DIR:-$root/skills}"
if [ -z "${NARRATORIA_MODEL+set}" ]; then
  export NARRATORIA_MODEL="$root/models/SmolLM2-135M-Instruct.Q4_1.gguf"
fi
exec "$CARGO_TARGET_DIR/release/narratoria-desktop" "$@"
