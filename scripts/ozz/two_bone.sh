#!/usr/bin/env bash
# Two-bone IK, skel's TwoBoneIk against ozz-animation 0.16's IKTwoBoneJob (docs/bench-ik.md):
#
#   bash scripts/ozz/two_bone.sh OZZ [ROUNDS] [WORK]
#
# OZZ: a snapshot of ozz-animation holding the tag 0.16.0 (as for scripts/ozz/build.sh).
# ROUNDS: interleaved time rounds, default 5. WORK: where ozz is built, default
# /tmp/skel-ozz (nothing of ozz is written into this repository).
#
# 1. Builds ozz's side (scripts/ozz/two_bone.cc, through build.sh) and skel's
#    (crates/skel-anim/examples/two_bone_solves.rs): the same arm, targets and pole.
# 2. Checks that both compute the same thing: for each of the 8 targets, the solved mid and end
#    joints' model-space positions within 1e-4 and the same `reached`; exits 1 otherwise.
# 3. Instructions per solve: valgrind --tool=cachegrind --cache-sim=no on two runs that differ
#    only in the number of timed solves (1 000 warm-up, then 2 000 or 10 000):
#    (I_10000 - I_2000) / 8 000 (repeat runs agree within 0.3 per solve).
# 4. Time per solve: ROUNDS rounds, each running both sides once (1 000 000 solves after
#    10 000), which side goes first alternating; medians, and the median of per-round ratios.
# One line per measurement on stdout. Run it on a quiet machine; never run in CI.
set -euo pipefail
if [ $# -lt 1 ]; then
    sed -n '2,19p' "$0" >&2
    exit 2
fi
cd "$(dirname "$0")/../.."
snapshot=$1
rounds=${2:-5}
work=${3:-/tmp/skel-ozz}

bash scripts/ozz/build.sh "$snapshot" "$work" >/dev/null
cargo build --release -p skel-anim --example two_bone_solves
ozz=$work/two_bone
skel=${CARGO_TARGET_DIR:-target}/release/examples/two_bone_solves
command -v valgrind >/dev/null 2>&1 || {
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
    $SUDO apt-get install -y valgrind >/dev/null
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 2. The same solves.
"$ozz" check >"$tmp/ozz.check"
"$skel" check >"$tmp/skel.check"
python3 - "$tmp/ozz.check" "$tmp/skel.check" <<'EOF'
import sys
ozz = [l.split() for l in open(sys.argv[1])]
skel = [l.split() for l in open(sys.argv[2])]
assert len(ozz) == len(skel) == 8, (len(ozz), len(skel))
worst = 0.0
bad = []
for o, s in zip(ozz, skel):
    # target I reached R mid X Y Z end X Y Z
    if o[:4] != s[:4]:
        bad.append(f"target {o[1]}: ozz reached {o[3]}, skel {s[3]}")
    for k in (5, 6, 7, 9, 10, 11):
        d = abs(float(o[k]) - float(s[k]))
        worst = max(worst, d)
        if d > 1e-4:
            bad.append(f"target {o[1]}: {'mid' if k < 8 else 'end'} differs by {d:.2e}")
for b in bad:
    print("check FAIL", b)
print(f"check {'FAIL' if bad else 'ok'} 8 targets, largest mid or end difference {worst:.2e}"
      " (bound 1e-4), reached compared")
sys.exit(1 if bad else 0)
EOF

# 3. Instructions per solve.
irefs() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/cg.out" "$@" \
        >/dev/null 2>"$tmp/cg.err"
    awk '/^summary:/ {print $2}' "$tmp/cg.out"
}
for side in ozz skel; do
    prog=$ozz
    [ "$side" = skel ] && prog=$skel
    lo=$(irefs "$prog" run 1000 2000)
    hi=$(irefs "$prog" run 1000 10000)
    per=$(awk -v a="$lo" -v b="$hi" 'BEGIN {printf "%.1f", (b - a) / 8000}')
    echo "instructions $side $per per solve"
done

# 4. Interleaved time rounds.
ns() { awk '{for (i = 1; i < NF; i++) if ($i == "ns_per_solve") print $(i + 1)}'; }
: >"$tmp/times"
for round in $(seq "$rounds"); do
    order="ozz skel"
    [ $((round % 2)) = 0 ] && order="skel ozz"
    for side in $order; do
        prog=$ozz
        [ "$side" = skel ] && prog=$skel
        t=$("$prog" run 10000 1000000 | ns)
        echo "time round $round $side $t ns per solve"
        echo "$round $side $t" >>"$tmp/times"
    done
done
python3 - "$tmp/times" <<'EOF'
import statistics, sys
r = {}
for line in open(sys.argv[1]):
    k, side, t = line.split()
    r.setdefault(side, {})[k] = float(t)
o, s = statistics.median(r["ozz"].values()), statistics.median(r["skel"].values())
ratio = statistics.median(r["skel"][k] / r["ozz"][k] for k in r["ozz"])
print(f"time median ozz {o:.1f} ns skel {s:.1f} ns per solve, skel / ozz {ratio:.2f}"
      " (median of per-round ratios)")
EOF
