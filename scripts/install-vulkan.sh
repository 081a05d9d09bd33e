#!/usr/bin/env bash
# Installs Mesa's software Vulkan driver (lavapipe) and the Vulkan loader when they are missing,
# so that wgpu finds an adapter on a machine without a GPU. Idempotent; quiet when present.
set -euo pipefail
if ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 && ldconfig -p | grep -q 'libvulkan.so.1'; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-vulkan: installing mesa-vulkan-drivers and libvulkan1 (software Vulkan for wgpu)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
