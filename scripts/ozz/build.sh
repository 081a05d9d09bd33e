#!/usr/bin/env bash
# Builds ozz-animation 0.16.0 and our harness (scripts/ozz/harness.cc) in a work folder, then
# converts glTF files with ozz's own gltf2ozz (its default, optimised animations).
#
#   scripts/ozz/build.sh SNAPSHOT WORK [NAME=FILE.gltf|glb ...]
#
# SNAPSHOT: a git directory of ozz-animation holding the tag 0.16.0 (bare or not; e.g. what
#   the `fetch` tool leaves under /work/.mirror/guillaumeblanc+ozz-animation/repo), or a source
#   tree already at 0.16.0 (a folder with CMakeLists.txt and include/ozz).
# WORK: where everything goes (nothing of ozz is written into this repository); created if
#   missing. A second call with the same WORK reuses the build and only converts.
# NAME=FILE: each file is converted into WORK/assets/NAME/ (skeleton.ozz and one CLIP.ozz per
#   animation, named as gltf2ozz names them).
#
# OZZ_CXXFLAGS (environment): extra compiler flags for ozz and the harness, e.g. "-g" so that
#   scripts/ozz/profile.py can see inside ozz's jobs (GCC's -g does not change the code; the
#   instruction counts stay the same). A WORK built with other flags is rebuilt.
#
# Also builds WORK/two_bone (scripts/ozz/two_bone.cc: ozz's two-bone IK, which
# scripts/ozz/two_bone.sh measures). Prints the harness's path on stdout and progress on
# stderr; `cargo xtask bench --vs-ozz SNAPSHOT` drives it.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
snapshot=$1
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
tag=0.16.0

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "ozz: installing $2 with apt-get" >&2
        SUDO=""
        if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
        $SUDO apt-get install -y "$2" >/dev/null 2>&1 ||
            { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y "$2" >/dev/null; }
    fi
}
need cmake cmake
need c++ g++
need git git

mkdir -p "$work"
work=$(cd "$work" && pwd)
src=$work/src
build=$work/build

# 1. Sources at the tag (only what the libraries and gltf2ozz need: media/ holds large files a
#    snapshot may lack).
if [ ! -f "$src/.skel-tag" ] || [ "$(cat "$src/.skel-tag")" != "$tag" ]; then
    rm -rf "$src"
    mkdir -p "$src"
    if git -C "$snapshot" rev-parse --verify -q "refs/tags/$tag" >/dev/null 2>&1; then
        echo "ozz: extracting $tag from $snapshot" >&2
        # A snapshot may lack media/'s large files; git archive names them even though they
        # are not asked for: only those complaints are dropped.
        git -C "$snapshot" archive --format=tar "$tag" \
            CMakeLists.txt LICENSE.md build-utils extern include src \
            2> >(grep -v "^error: invalid object .* for 'media/" >&2) | tar -x -C "$src"
    elif [ -f "$snapshot/CMakeLists.txt" ] && [ -d "$snapshot/include/ozz" ]; then
        grep -q "OZZ_VERSION_MINOR 16)" "$snapshot/CMakeLists.txt" ||
            { echo "ozz: $snapshot is not ozz-animation 0.16" >&2; exit 1; }
        echo "ozz: copying the source tree $snapshot" >&2
        cp -r "$snapshot/CMakeLists.txt" "$snapshot/build-utils" "$snapshot/extern" \
            "$snapshot/include" "$snapshot/src" "$src/"
    else
        echo "ozz: $snapshot has neither the tag $tag nor an ozz source tree" >&2
        exit 1
    fi
    echo "$tag" >"$src/.skel-tag"
fi

# 2. ozz's libraries and gltf2ozz: its defaults, in Release (-O3 -DNDEBUG), SSE2 as ozz's
#    SIMD layer picks it for x86-64 (no -march, as skel's build).
jobs=$(nproc 2>/dev/null || echo 2)
flags=${OZZ_CXXFLAGS:-}
if [ "$(cat "$work/.skel-flags" 2>/dev/null)" != "flags=$flags" ]; then
    rm -rf "$build" "$work/harness" "$work/two_bone"
fi
if [ ! -x "$build/src/animation/offline/gltf/gltf2ozz" ]; then
    echo "ozz: configuring and building (a few minutes)" >&2
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$flags" \
        -Dozz_build_samples=OFF -Dozz_build_howtos=OFF -Dozz_build_tests=OFF \
        -Dozz_build_fbx=OFF -Dozz_build_gltf=ON -Dozz_build_tools=ON >"$work/cmake.log" 2>&1 ||
        { tail -30 "$work/cmake.log" >&2; exit 1; }
    cmake --build "$build" -j "$jobs" --target gltf2ozz >"$work/build.log" 2>&1 ||
        { tail -30 "$work/build.log" >&2; exit 1; }
    echo "flags=$flags" >"$work/.skel-flags"
fi

# 3. The harness and two_bone, compiled as ozz compiles itself (Release flags), against its
#    static libraries.
lib() {
    find "$build/src" -name "lib$1*.a" | head -1
}
harness=$work/harness
if [ ! -x "$harness" ] || [ "$here/harness.cc" -nt "$harness" ]; then
    echo "ozz: building the harness" >&2
    # shellcheck disable=SC2086 # flags are words
    c++ -std=c++17 -O3 -DNDEBUG -g $flags -I"$src/include" "$here/harness.cc" \
        "$(lib ozz_animation_offline)" "$(lib ozz_animation)" "$(lib ozz_base)" -o "$harness"
fi
# The two-bone IK reference (scripts/ozz/two_bone.cc, run by scripts/ozz/two_bone.sh), built
# the same way into WORK/two_bone.
if [ ! -x "$work/two_bone" ] || [ "$here/two_bone.cc" -nt "$work/two_bone" ]; then
    echo "ozz: building two_bone" >&2
    # shellcheck disable=SC2086 # flags are words
    c++ -std=c++17 -O3 -DNDEBUG -g $flags -I"$src/include" "$here/two_bone.cc" \
        "$(lib ozz_animation)" "$(lib ozz_base)" -o "$work/two_bone"
fi

# 4. Conversions with gltf2ozz's defaults (optimised animations).
gltf2ozz=$build/src/animation/offline/gltf/gltf2ozz
for pair in "$@"; do
    name=${pair%%=*}
    file=${pair#*=}
    out=$work/assets/$name
    rm -rf "$out"
    mkdir -p "$out"
    config="{\"skeleton\":{\"filename\":\"$out/skeleton.ozz\"},\"animations\":[{\"clip\":\"*\",\"filename\":\"$out/*.ozz\"}]}"
    echo "ozz: gltf2ozz $name ($file)" >&2
    "$gltf2ozz" --file="$file" --config="$config" >"$out/gltf2ozz.log" 2>&1 ||
        { cat "$out/gltf2ozz.log" >&2; exit 1; }
done
echo "$harness"
