#!/usr/bin/env bash
# Builds the built-in skills' scripts (crates narratoria-skills-builtin and
# narratoria-storyteller) and copies each binary to
# skills/<skill>/scripts/<script> with mode 0755.
# Copies, not symlinks: skill discovery rejects symlinks that lead out of a
# skill folder.
#
# Usage: scripts/install-skills.sh [--release]
# Honours CARGO_TARGET_DIR (default: the workspace's target/).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile=debug
cargo_flags=()
case "${1:-}" in
  --release) profile=release; cargo_flags+=(--release) ;;
  "") ;;
  *) echo "usage: $0 [--release]" >&2; exit 2 ;;
esac

# skill folder -> its scripts (each a bin of narratoria-skills-builtin)
declare -A scripts=(
  [dice-roller]="roll-dice"
  [reputation]="update-reputation query-reputation"
  [memory]="store-memory recall-memory"
  [game-master]="direct-turn"
)
# skill folder -> its scripts (each a bin of narratoria-storyteller)
declare -A storyteller_scripts=(
  [storyteller]="narrate"
)

# One build of the default workspace members, so the bins share one feature
# resolution (and one llama.cpp build) with the narratoria command and the tests.
(cd "$root" && cargo build --quiet "${cargo_flags[@]}" --bins)
for skill in "${!storyteller_scripts[@]}"; do scripts[$skill]="${storyteller_scripts[$skill]}"; done
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac

for skill in "${!scripts[@]}"; do
  mkdir -p "$root/skills/$skill/scripts"
  for s in ${scripts[$skill]}; do
    dest="$root/skills/$skill/scripts/$s"
    # replace by rename so a running script is never overwritten in place;
    # stripped: debug builds carry ≈ 100 MB of debug info per script, which
    # the installer would otherwise ship
    install -s -m 0755 "$target/$profile/$s" "$dest.tmp"
    mv -f "$dest.tmp" "$dest"
    echo "installed $dest"
  done
done
