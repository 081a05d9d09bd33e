#!/usr/bin/env bash
# Builds ACL 2.1's acl_compressor in $ACL_DIR (default /tmp/acl), never in the repository.
# Sources: the fetched mirrors under /work/.mirror when present, else git clones from GitHub.
# ACL is header-only; its compressor is built with g++ directly (no cmake needed).
set -euo pipefail
ACL_DIR=${ACL_DIR:-/tmp/acl}
ACL_TAG=${ACL_TAG:-v2.1.0}
MIRRORS=${MIRRORS:-/work/.mirror}
[ -x "$ACL_DIR/acl_compressor" ] && { echo "$ACL_DIR/acl_compressor"; exit 0; }
mkdir -p "$ACL_DIR"
src() { # repo -> git dir
  if [ -d "$MIRRORS/nfrechette+$1/repo" ]; then echo "$MIRRORS/nfrechette+$1/repo"
  else git clone --quiet --bare "https://github.com/nfrechette/$1" "$ACL_DIR/$1.git" && echo "$ACL_DIR/$1.git"; fi
}
acl=$(src acl)
git --git-dir="$acl" archive "$ACL_TAG" | tar -x -C "$ACL_DIR"
# The submodule commits ACL 2.1 pins.
for dep in rtm sjson-cpp; do
  commit=$(git --git-dir="$acl" ls-tree "$ACL_TAG:external" | awk -v d="$dep" '$4 == d {print $3}')
  mkdir -p "$ACL_DIR/external/$dep"
  git --git-dir="$(src "$dep")" archive "$commit" | tar -x -C "$ACL_DIR/external/$dep"
done
cd "$ACL_DIR"
g++ -std=c++14 -O2 -mavx2 -mfma -DNDEBUG -DACL_USE_SJSON -DACL_ON_ASSERT_ABORT -DRTM_ON_ASSERT_ABORT \
  -DSJSON_CPP_ON_ASSERT_ABORT -Iincludes -Iexternal/rtm/includes -Iexternal/sjson-cpp/includes \
  -Itools/acl_compressor/includes tools/acl_compressor/sources/*.cpp \
  tools/acl_compressor/main_generic/main.cpp -o acl_compressor -lpthread
echo "$ACL_DIR/acl_compressor"
