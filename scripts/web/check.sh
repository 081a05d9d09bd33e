#!/usr/bin/env bash
# Builds the demo page and checks it in Debian's headless chromium (WebGPU must reach
# data-skel-ready; WebGL2 must end in ready or a shown error, never a hang or a panic).
# Needs: chromium + chromium-driver (apt), node ≥ 18 (no npm packages). Screenshots go to
# target/web-check/. Usage: scripts/web/check.sh [extra check.mjs args]
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in chromium chromedriver node; do
  command -v "$tool" >/dev/null || { echo "check.sh: $tool not found (apt-get install -y --no-install-recommends chromium chromium-driver nodejs)" >&2; exit 2; }
done
cargo xtask web --out target/web
exec node scripts/web/check.mjs --dir target/web --shots target/web-check --require webgpu "$@"
