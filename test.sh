#!/usr/bin/env bash
# Installs what is needed and runs every test of Narratoria: the engine's unit
# tests, the black-box tests of the narratoria binary, the built-in skills,
# the narrator with the real default model, and the desktop app in a real
# window (NARRATORIA_E2E=0 leaves that last part out).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh

# Tests never touch the user's own skill choices or sessions.
export NARRATORIA_HOME="$(mktemp -d)"
trap 'rm -rf "$NARRATORIA_HOME"' EXIT

echo "== building the built-in skills' scripts" >&2
scripts/install-skills.sh >&2

echo "== unit, black-box, skill and narrator tests" >&2
# The default members: everything but the desktop shell, which scripts/e2e.sh
# builds after installing WebKit.
cargo test --locked 2>&1
# The storyteller built with its own model (cargo feature own-model: used
# only when the host lends none), which the default build leaves out: the
# tests whose outcome the feature changes.
cargo test --locked -p narratoria-storyteller --features own-model --lib --test narrate_via_narratoria 2>&1

# The desktop app in a real window (installs WebKit, Node.js, Xvfb,
# tauri-driver and the UI's npm packages, builds the app and its .deb,
# installs and opens it, then removes it; screenshots go to the build folder).
if [ "${NARRATORIA_E2E:-1}" != 0 ]; then
  echo "== desktop end-to-end tests" >&2
  scripts/e2e.sh 2>&1
fi
