#!/usr/bin/env bash
# Installs what Narratoria needs on a Debian machine. Idempotent: it only
# installs what is missing. Sourced by ./run.sh and ./test.sh.
set -euo pipefail

need_apt=()
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: a Rust toolchain (cargo, rustc ≥ 1.80) is required; install it with rustup" >&2
    exit 1
  fi
fi

# Builds are shared between checkouts (and CI runs) of this machine.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/narratoria/target}"
mkdir -p "$CARGO_TARGET_DIR"
