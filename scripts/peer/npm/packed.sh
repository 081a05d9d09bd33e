#!/bin/sh
# The checks on the package as a user gets it: `npm pack` of target/npm/skel-anim (or $1), the
# tarball installed into a scratch project (no network: a local file), then check_three.mjs and
# check_babylon.mjs on node_modules/skel-anim there. Fails when the tarball lacks a file the
# adapters or the glue need.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pkg=${1:-$here/../../../target/npm/skel-anim}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$pkg" && npm pack --silent --pack-destination "$scratch" >/dev/null)
tarball=$(ls "$scratch"/skel-anim-*.tgz)
mkdir "$scratch/page"
cd "$scratch/page"
printf '{ "name": "page", "private": true, "type": "module" }\n' > package.json
npm install --silent --no-audit --no-fund --offline "$tarball"
echo "installed $(basename "$tarball"): $(ls node_modules/skel-anim | tr '\n' ' ')"
cd "$here"
export SKEL_NPM_PACKAGE="$scratch/page/node_modules/skel-anim"
status=0
node check_three.mjs > "$scratch/three.log" 2>&1 || status=1
tail -n 2 "$scratch/three.log"
node check_babylon.mjs > "$scratch/babylon.log" 2>&1 || status=1
tail -n 1 "$scratch/babylon.log"
exit $status
