#!/usr/bin/env bash
# Builds the release .deb of Narratoria's desktop app (docs/desktop.md,
# "Installing a packaged build"). The package holds:
#  - the window (release build, web UI embedded) as /usr/bin/narratoria-desktop;
#  - a clean copy of the built-in skills (their manifests, prompts, schemas
#    and compiled scripts; never a data/ folder, a config.json — the
#    player's settings, which may hold secrets — or a build folder);
#  - the default narrator model and the memory skill's embedder, so the app
#    works offline from the first start;
#  - settings.json, the read-only defaults the player's own settings
#    (~/.config/narratoria/settings.json) are layered over.
# The release package's narrator carries llama.cpp's Vulkan backend (layers
# go to a graphics card when there is one); scripts/gpu-check.sh checks that
# path first (docs/models.md, "GPU offload"). --no-gpu leaves both out: the
# package scripts/e2e.sh builds and installs in the test run, which cannot
# spare the Vulkan build's minutes.
# Everything is installed under /usr/lib/Narratoria/ and never written to:
# sessions, skill data, choices and logs go to the player's folders.
#
# Usage: scripts/package.sh [--debug] [--no-gpu]   (prints the .deb's path on stdout)
#   --debug   the same package from a debug build (quicker to build), without
#             the Vulkan backend
#   --no-gpu  a release package without the Vulkan backend and its check
# Environment: CARGO_TARGET_DIR (default ~/.cache/narratoria/target).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
profile=release
gpu=1
for arg in "$@"; do
  case "$arg" in
    --debug) profile=debug; gpu=0 ;;
    --no-gpu) gpu=0 ;;
    *) echo "usage: scripts/package.sh [--debug] [--no-gpu]" >&2; exit 2 ;;
  esac
done
source scripts/setup.sh           # tool chain, models (fetch scripts)
source scripts/desktop-deps.sh    # WebKitGTK, Node.js, ui/'s npm packages
desktop_deps || exit 1
features=()
if [ "$gpu" = 1 ]; then
  source scripts/vulkan-deps.sh
  vulkan_deps || exit 1
  echo "== package: the GPU path (scripts/gpu-check.sh)" >&2
  scripts/gpu-check.sh >&2
  features=(--features vulkan)
fi

echo "== package: building the built-in skills' scripts ($profile)" >&2
if [ "$profile" = release ]; then
  scripts/install-skills.sh --release >&2
else
  scripts/install-skills.sh >&2
fi

stage="$CARGO_TARGET_DIR/package-stage"
echo "== package: staging a clean copy in $stage" >&2
rm -rf "$stage"
mkdir -p "$stage/skills" "$stage/models"
# Only what a skill is made of: no player data or settings, no build output,
# no editor or half-installed files.
tar -C skills \
  --exclude='./*/data' --exclude='./*/config.json' --exclude='target' \
  --exclude='.git*' --exclude='*.tmp' --exclude='*.swp' \
  -cf - . | tar -C "$stage/skills" -xf -
for s in dice-roller/scripts/roll-dice storyteller/scripts/narrate memory/scripts/recall-memory game-master/scripts/direct-turn; do
  [ -x "$stage/skills/$s" ] || { echo "package: $s was not built" >&2; exit 1; }
done
cp models/SmolLM2-135M-Instruct.Q4_1.gguf "$stage/models/"
mkdir -p "$stage/models/all-MiniLM-L6-v2"
cp models/all-MiniLM-L6-v2/{model.safetensors,tokenizer.json,config.json} "$stage/models/all-MiniLM-L6-v2/"
# The bundle's defaults; the player's own settings file wins key by key.
printf '{\n  "model": "smollm2"\n}\n' > "$stage/settings.json"

# The bundle's resources are the staged copy (the checkout's folders, which
# may hold a developer's data and settings, are taken out of the list).
cat > "$stage/tauri.package.json" <<JSON
{
  "bundle": {
    "active": true,
    "targets": ["deb"],
    "resources": {
      "../skills/": null,
      "../models/SmolLM2-135M-Instruct.Q4_1.gguf": null,
      "$stage/skills/": "skills/",
      "$stage/models/": "models/",
      "$stage/settings.json": "settings.json"
    },
    "linux": { "deb": { "depends": ["xdg-utils"] } }
  }
}
JSON

echo "== package: tauri build --bundles deb ($profile)" >&2
export TAURI_APP_PATH="$root/src-tauri" TAURI_FRONTEND_PATH="$root/ui"
build_args=(--bundles deb --config "$stage/tauri.package.json" "${features[@]}")
[ "$profile" = debug ] && build_args+=(--debug)
rm -f "$CARGO_TARGET_DIR/$profile"/bundle/deb/*.deb
(cd ui && npx tauri build "${build_args[@]}" >&2)

deb="$(ls -t "$CARGO_TARGET_DIR/$profile"/bundle/deb/*.deb | head -1)"
# The package holds what it must and nothing it must not.
contents="$(dpkg-deb -c "$deb")"
for want in skills/dice-roller/skill.json skills/memory/scripts/recall-memory \
  models/SmolLM2-135M-Instruct.Q4_1.gguf models/all-MiniLM-L6-v2/model.safetensors settings.json; do
  grep -q "usr/lib/Narratoria/$want\$" <<<"$contents" || { echo "package: $want is missing from $deb" >&2; exit 1; }
done
if grep -E '/skills/[^/]+/(data/|config\.json$)|/target/' <<<"$contents" >&2; then
  echo "package: $deb holds player data or settings (above)" >&2
  exit 1
fi
echo "package: $(du -h "$deb" | cut -f1) $deb" >&2
echo "$deb"
