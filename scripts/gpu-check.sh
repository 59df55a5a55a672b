#!/usr/bin/env bash
# The GPU path, checked before a release package is built (docs/models.md,
# "GPU offload"): the narrator built with llama.cpp's Vulkan backend must
# plan the same kind of plan and write the same kind of prose with every
# layer on a Vulkan device as on the processor, and leave a software driver
# alone when left to itself. Where there is no card, Mesa's lavapipe (Vulkan
# on the processor) is the device. Not part of ./test.sh: the Vulkan build
# adds minutes that the cold test run cannot spare (docs/models.md).
#
# Usage: scripts/gpu-check.sh      Environment: CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/setup.sh          # tool chain, the default model
source scripts/vulkan-deps.sh
vulkan_deps

# lavapipe is a device of type CPU, which llama.cpp passes over unless it is
# named; a machine with a card uses the card (device 0).
export GGML_VK_VISIBLE_DEVICES="${GGML_VK_VISIBLE_DEVICES:-0}"
echo "== gpu-check: narrator with Vulkan, every layer on device $GGML_VK_VISIBLE_DEVICES" >&2
cargo test --release -p narratoria-narrator --features vulkan --test gpu_offload -- --nocapture --test-threads 1
