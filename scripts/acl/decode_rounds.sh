#!/usr/bin/env bash
# ACL 2.1's decompression beside skel's KeyFormat::Variable playback on the same clips, in
# interleaved rounds (the order of the two flips every round), medians written to
# docs/results/acl_decode.json:
#   bash scripts/acl/decode_rounds.sh [ROUNDS]   # default 9
# ACL: scripts/acl/decompress_time.cpp (seek + decompress_tracks of every bone's local
# transform, every 1/60 s of the clip, one pose buffer, warm caches): ns per bone and pose.
# skel: pose_frames (one character, 60 fps: clock, sampling, local -> world, bone matrices):
# ns per joint-frame. skel's figure covers more work than ACL's.
# Needs compare.sh's export ($ACL_DIR/run/clips); never run in CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
ACL_DIR=${ACL_DIR:-/tmp/acl}
rounds=${1:-9}
bash scripts/acl/build.sh > /dev/null
[ -f "$ACL_DIR/run/clips/Rig368.acl.sjson" ] || { echo "run scripts/acl/compare.sh first" >&2; exit 1; }
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target} cargo build --release -p skel-gltf --example pose_frames
skel=${CARGO_TARGET_DIR:-target}/release/examples/pose_frames
acl="$ACL_DIR/decompress_time"
# pose_frames' asset name : the ACL clip it plays.
pairs="CesiumMan:CesiumMan-0 Fox-Survey:Fox-Survey Walk67:Walk67 Rig368:Rig368"
out=$(mktemp)
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  for pair in $pairs; do
    asset=${pair%%:*} clip=${pair#*:}
    run_acl() {
      "$acl" "$ACL_DIR/run/clips/$clip.acl.sjson" 400 |
        awk -v c="$clip" '{for (i = 1; i < NF; i++) if ($i == "ns_per_bone") print "acl", c, $(i + 1)}' >> "$out"
    }
    run_skel() {
      SKEL_COMPRESSED=variable "$skel" run "$asset" 1 120 6000 |
        awk -v c="$clip" '{for (i = 1; i < NF; i++) { if ($i == "joints") j = $(i + 1); if ($i == "ns_per_frame") t = $(i + 1) } print "skel", c, t / j}' >> "$out"
    }
    if [ $((round % 2)) -eq 0 ]; then run_acl; run_skel; else run_skel; run_acl; fi
  done
done
python3 - "$out" "$rounds" "$(git rev-parse --short HEAD)" <<'EOF'
import datetime, json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    side, clip, ns = line.split()
    rows.setdefault(clip, {}).setdefault(side, []).append(float(ns))
clips = []
print("| clip | ACL decompress (ns per bone) | skel whole pipeline (ns per joint-frame) | skel / ACL |")
print("|---|---|---|---|")
for clip, sides in rows.items():
    a, s = statistics.median(sides["acl"]), statistics.median(sides["skel"])
    clips.append({"clip": clip, "acl_ns_per_bone": round(a, 2), "skel_ns_per_joint_frame": round(s, 2),
                  "acl_rounds": sides["acl"], "skel_rounds": sides["skel"]})
    print(f"| {clip} | {a:.1f} | {s:.1f} | {s / a:.2f} |")
doc = {
    "what": "ACL 2.1 decompress_tracks (ns per bone and pose, warm, one clip) beside skel's "
            "KeyFormat::Variable pose pipeline (ns per joint-frame, one character); medians of "
            "interleaved rounds",
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "commit": sys.argv[3], "rounds": int(sys.argv[2]),
    "command": "bash scripts/acl/decode_rounds.sh", "clips": clips,
}
with open("docs/results/acl_decode.json", "w") as f:
    f.write(json.dumps(doc, indent=1) + "\n")
EOF
rm -f "$out"
