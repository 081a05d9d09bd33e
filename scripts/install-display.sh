#!/usr/bin/env bash
# Installs an X server without a screen (Xvfb) and xdotool when they are missing, so that the
# `skel view` tests open a real window and press real keys on a machine without a display.
# Idempotent; quiet when present.
set -euo pipefail
if command -v Xvfb >/dev/null 2>&1 && command -v xdotool >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-display: installing xvfb and xdotool (skel view tests)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq xvfb xdotool >/dev/null
