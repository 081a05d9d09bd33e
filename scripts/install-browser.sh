#!/usr/bin/env bash
# Installs Debian's Chromium and its WebDriver (chromedriver) when missing, so that
# `cargo xtask web --check` (and `cargo xtask ci`) draw the demo page in a real headless browser:
# WebGPU and WebGL2 through SwiftShader, no GPU. Nothing downloads a browser of its own.
# Idempotent; quiet when present. About 440 MB installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-browser: installing chromium and chromium-driver (the browser check)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
