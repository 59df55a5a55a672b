#!/usr/bin/env bash
# What building the narrator with llama.cpp's Vulkan backend needs on a
# Debian 12 machine (docs/models.md, "GPU offload"). Sourced by
# scripts/package.sh (release) and scripts/gpu-check.sh; defines
#
#   vulkan_deps   installs glslc, libvulkan-dev, spirv-headers and Mesa's
#                 Vulkan drivers (lavapipe: Vulkan on the processor, what
#                 the GPU check runs on where there is no card) when
#                 missing, and exports CPATH so that llama.cpp compiles
#                 against Vulkan headers new enough for it.
#
# Debian 12's Vulkan headers (1.3.239) lack VK_EXT_layer_settings, which
# llama.cpp's Vulkan backend compiles against. The headers of Debian 13's
# libvulkan-dev (1.4.309) are taken instead: the .deb is fetched with apt
# (signed by the Debian archive key, through a private package list so the
# machine's sources are untouched), only its usr/include is unpacked into
# the build cache, and the program still links Debian 12's libvulkan.so.1.

vulkan_headers_version="1.4.309.0-1"

vulkan_deps() {
  local need=() sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  command -v glslc >/dev/null 2>&1 || need+=(glslc)
  [ -e /usr/include/vulkan/vulkan.h ] || need+=(libvulkan-dev)
  [ -e /usr/share/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake ] || need+=(spirv-headers)
  ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
  if [ ${#need[@]} -gt 0 ]; then
    echo "vulkan-deps: apt-get install ${need[*]}" >&2
    $sudo apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2 || return 1
  fi

  local cache="${CARGO_TARGET_DIR:-$HOME/.cache/narratoria/target}/../vulkan-headers-$vulkan_headers_version"
  if [ ! -e "$cache/usr/include/vulkan/vulkan.hpp" ]; then
    echo "vulkan-deps: fetching the Vulkan headers of Debian 13 ($vulkan_headers_version)" >&2
    local work lists
    work="$(mktemp -d)"
    lists="$work/lists"
    mkdir -p "$lists/partial"
    echo "deb http://deb.debian.org/debian trixie main" > "$work/trixie.list"
    local apt_opts=(-o "Dir::Etc::sourcelist=$work/trixie.list" -o "Dir::Etc::sourceparts=/dev/null"
      -o "Dir::State::Lists=$lists" -o "Dir::Cache::archives=$work")
    if ! apt-get "${apt_opts[@]}" update -qq >&2 \
      || ! (cd "$work" && apt-get "${apt_opts[@]}" download "libvulkan-dev=$vulkan_headers_version" >&2); then
      echo "vulkan-deps: could not fetch libvulkan-dev $vulkan_headers_version from Debian 13" >&2
      rm -rf "$work"
      return 1
    fi
    rm -rf "$cache"
    mkdir -p "$cache"
    dpkg-deb -x "$work"/libvulkan-dev_*.deb "$work/unpacked"
    mv "$work/unpacked/usr" "$cache/usr"
    rm -rf "$work"
  fi
  export CPATH="$(cd "$cache/usr/include" && pwd)${CPATH:+:$CPATH}"
}
