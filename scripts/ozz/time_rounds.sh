#!/usr/bin/env bash
# Time per joint-frame of skel lossless, skel KeyFormat::Variable and ozz-animation 0.16 in the
# same interleaved rounds (the order of the three rotates every round), N = 100 characters, 60
# warm-up and 300 timed frames, medians written to docs/results/time_variable_vs_ozz.json:
#   bash scripts/ozz/time_rounds.sh [ROUNDS]   # default 11
# Needs the harness and converted assets that `cargo xtask bench --vs-ozz OZZ` leaves in
# target/ozz (run that once first). Divides by skel's joint count on both sides, as the xtask
# does. Never run in CI; run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-11}
[ -x target/ozz/harness ] || { echo "run cargo xtask bench --vs-ozz OZZ first" >&2; exit 1; }
cargo build --release -p skel-gltf --example pose_frames
skel=target/release/examples/pose_frames
ns() { awk '{for (i = 1; i < NF; i++) if ($i == "ns_per_frame") print $(i + 1)}'; }
out=$(mktemp)
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  for asset in CesiumMan Fox-Survey RiggedFigure Walk67 Rig368; do
    case $((round % 3)) in 0) order="L V O" ;; 1) order="V O L" ;; *) order="O L V" ;; esac
    for side in $order; do
      case $side in
        L) t=$("$skel" run "$asset" 100 60 300 | ns) ;;
        V) t=$(SKEL_COMPRESSED=variable "$skel" run "$asset" 100 60 300 | ns) ;;
        O) t=$(target/ozz/harness "target/ozz/assets/$asset" 100 60 300 | ns) ;;
      esac
      echo "$asset $side $t" >> "$out"
    done
  done
done
python3 - "$out" "$rounds" "$(git rev-parse --short HEAD)" <<'EOF'
import datetime, json, statistics, sys
joints = {"CesiumMan": 19, "Fox-Survey": 24, "RiggedFigure": 19, "Walk67": 67, "Rig368": 368}
runs = {}
for line in open(sys.argv[1]):
    asset, side, ns = line.split()
    runs.setdefault(asset, {}).setdefault(side, []).append(float(ns) / 100 / joints[asset])
rows = []
print("| asset | lossless (ns) | variable (ns) | ozz (ns) | lossless / ozz | variable / ozz | variable / lossless |")
print("|---|---|---|---|---|---|---|")
for asset, r in runs.items():
    m = {s: statistics.median(v) for s, v in r.items()}
    ratio = lambda a, b: statistics.median(x / y for x, y in zip(r[a], r[b]))
    row = {"asset": asset, "joints": joints[asset],
           "lossless_ns": round(m["L"], 3), "variable_ns": round(m["V"], 3), "ozz_ns": round(m["O"], 3),
           "lossless_over_ozz": round(ratio("L", "O"), 3), "variable_over_ozz": round(ratio("V", "O"), 3),
           "variable_over_lossless": round(ratio("V", "L"), 3),
           "rounds_ns": {"lossless": r["L"], "variable": r["V"], "ozz": r["O"]}}
    rows.append(row)
    print(f"| {asset} | {m['L']:.2f} | {m['V']:.2f} | {m['O']:.2f} | {row['lossless_over_ozz']:.3f} "
          f"| {row['variable_over_ozz']:.3f} | {row['variable_over_lossless']:.3f} |")
doc = {"what": "ns per joint-frame, N = 100, 60 fps forward playback, 300 timed frames after 60; "
               "medians of interleaved rounds; ratios are medians of per-round ratios",
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
       "commit": sys.argv[3], "rounds": int(sys.argv[2]),
       "command": "bash scripts/ozz/time_rounds.sh", "rows": rows}
with open("docs/results/time_variable_vs_ozz.json", "w") as f:
    f.write(json.dumps(doc, indent=1) + "\n")
EOF
rm -f "$out"
