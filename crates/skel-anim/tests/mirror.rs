//! Mirroring against an f64 reference on random rigs: a centre forest with left and right
//! limbs (chains and branches, some pairs at the root), stored in a shuffled node order under
//! a random rigid placement, so the plane is any plane.
//!
//! - Symmetric rests (the right side built as the reflection of the left): the plane found is
//!   the plane built, the rest mirrors onto itself, and any pose (non-uniform scale included)
//!   mirrors so that each node's world matrix is `R · W_partner · A_j`.
//! - Asymmetric rests (both sides random): the same world rule for poses with uniform scale,
//!   `A_j = rot(W_partner)⁻¹ · R · rot(W_j)` recomputed here from the rest rotations.
//! - Mirroring twice gives the pose back; a mirrored clip sampled at random times is the
//!   sampled clip mirrored, for STEP, LINEAR and CUBICSPLINE channels on any node.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{Rng, Trs64, arb_channel, channels_of, world_f64};
use proptest::prelude::*;
use skel_anim::glam::{DAffine3, DMat3, DMat4, DQuat, DVec3};
use skel_anim::{
    AnimationData, Clip, Handedness, MirrorMap, NodeRest, PoseScratch, R_OFF, S_OFF, T_OFF,
    TRS_STRIDE, apply_clip, mirror_clip, reset_to_rest,
};

/// Where a node of the design sits.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Centre,
    Left,
    Right,
}

/// A random rig, its plane (built: `normal · x = distance`) and its pairs.
#[derive(Debug, Clone)]
struct MirrorRig {
    data: AnimationData,
    normal: DVec3,
    distance: f64,
    pairs: Vec<(usize, usize)>,
}

/// `q` reflected through `x = 0`: `S · rot(q) · S` with `S = diag(-1, 1, 1)`.
fn reflect_x(q: [f32; 4]) -> [f32; 4] {
    [q[0], -q[1], -q[2], q[3]]
}

/// A rig from `seed`: in a design frame whose plane is `x = 0`, centre nodes sit on the plane
/// and turn about x only; each limb node gets a random rest and its right twin the reflection
/// (or, when `symmetric` is false, every node a random rest). Roots then take a random rigid
/// placement `G`, so the built plane is `G(x = 0)`.
fn mirror_rig(seed: u64, symmetric: bool) -> MirrorRig {
    let mut rng = Rng::new(seed);
    let pick = |rng: &mut Rng, n: usize| ((rng.range(0.0, 1.0) * n as f32) as usize).min(n - 1);
    // (name, design parent, side); `twin` pairs design indices.
    let mut design: Vec<(String, Option<usize>, Side)> = vec![("c0".into(), None, Side::Centre)];
    for i in 1..1 + pick(&mut rng, 3) {
        let parent = pick(&mut rng, design.len());
        design.push((format!("c{i}"), Some(parent), Side::Centre));
    }
    let mut twin: Vec<usize> = (0..design.len()).collect();
    for limb in 0..1 + pick(&mut rng, 3) {
        // Attach to a centre node, a left node (the right copy to its twin) or the root level.
        let choice = pick(&mut rng, design.len() + 1);
        let mut parents = match choice {
            c if c == design.len() => (None, None),
            c if design[c].2 == Side::Right => (Some(twin[c]), Some(c)),
            c => (Some(c), Some(twin[c])),
        };
        for k in 0..1 + pick(&mut rng, 3) {
            let (l, r) = (design.len(), design.len() + 1);
            design.push((format!("limb{limb}_{k}.L"), parents.0, Side::Left));
            design.push((format!("limb{limb}_{k}.R"), parents.1, Side::Right));
            twin.extend([r, l]);
            parents = (Some(l), Some(r));
        }
    }
    let n = design.len();
    // Stored order: a random permutation of the design order.
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        perm.swap(i, pick(&mut rng, i + 1));
    }
    let g_rot = DQuat::from_array(rng.quat().map(f64::from)).normalize();
    let g_t = DVec3::new(1.0, 1.0, 1.0) * f64::from(rng.range(-2.0, 2.0));
    let mut rests: Vec<([f32; 3], [f32; 4], [f32; 3])> = Vec::with_capacity(n);
    for (i, (_, _, side)) in design.iter().enumerate() {
        let random = |rng: &mut Rng| {
            (
                [0; 3].map(|_| rng.range(-1.0, 1.0)),
                rng.quat(),
                [0; 3].map(|_| rng.range(0.5, 1.5)),
            )
        };
        let rest = match (symmetric, side) {
            (false, _) | (true, Side::Left) => random(&mut rng),
            (true, Side::Right) => {
                let (t, q, s) = rests[twin[i]];
                ([-t[0], t[1], t[2]], reflect_x(q), s)
            }
            (true, Side::Centre) => {
                let angle = rng.range(-3.0, 3.0);
                let (s, c) = (0.5 * angle).sin_cos();
                let scale = [0; 3].map(|_| rng.range(0.5, 1.5));
                (
                    [0.0, rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)],
                    [s, 0.0, 0.0, c],
                    scale,
                )
            }
        };
        rests.push(rest);
    }
    let mut nodes = vec![NodeRest::new("", None); n];
    for (i, (name, parent, _)) in design.iter().enumerate() {
        let (mut t, mut q, s) = rests[i];
        if parent.is_none() {
            let td = g_rot * DVec3::from_array(t.map(f64::from)) + g_t;
            let qd = g_rot * DQuat::from_array(q.map(f64::from));
            t = td.as_vec3().to_array();
            q = qd.normalize().as_quat().to_array();
        }
        nodes[perm[i]] = NodeRest {
            name: name.clone(),
            parent: parent.map(|p| perm[p]),
            translation: t,
            rotation: q,
            scale: s,
        };
    }
    let pairs = (0..n)
        .filter(|&i| design[i].2 == Side::Left)
        .map(|i| (perm[i], perm[twin[i]]))
        .collect();
    let normal = g_rot * DVec3::X;
    MirrorRig {
        data: AnimationData {
            nodes,
            handedness: Handedness::RightHanded,
            ..AnimationData::default()
        },
        normal,
        distance: normal.dot(g_t),
        pairs,
    }
}

/// A random local pose: translations within ±2, any rotation, scale in 0.5..1.5 (the same on
/// every axis when `uniform`).
fn random_pose(n: usize, seed: u64, uniform: bool) -> Vec<f32> {
    let mut rng = Rng::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut trs = vec![0.0; n * TRS_STRIDE];
    for rec in trs.chunks_mut(TRS_STRIDE) {
        rec[T_OFF..T_OFF + 3].copy_from_slice(&[0; 3].map(|_| rng.range(-2.0, 2.0)));
        rec[R_OFF..R_OFF + 4].copy_from_slice(&rng.quat());
        let s = [0; 3].map(|_| rng.range(0.5, 1.5));
        let s = if uniform { [s[0]; 3] } else { s };
        rec[S_OFF..S_OFF + 3].copy_from_slice(&s);
    }
    trs
}

fn trs64(trs: &[f32]) -> Vec<Trs64> {
    trs.chunks(TRS_STRIDE)
        .map(|r| Trs64 {
            t: [r[0], r[1], r[2]].map(f64::from),
            r: [r[3], r[4], r[5], r[6]].map(f64::from),
            s: [r[7], r[8], r[9]].map(f64::from),
        })
        .collect()
}

fn mat(m: &[f64; 16]) -> DMat4 {
    DMat4::from_cols_array(m)
}

/// The reflection about `normal · x = distance`, in f64.
fn reflection(normal: DVec3, distance: f64) -> DMat4 {
    let n = normal.normalize();
    let linear = DMat3::IDENTITY - 2.0 * DMat3::from_cols(n * n.x, n * n.y, n * n.z);
    DMat4::from(DAffine3 {
        matrix3: linear,
        translation: 2.0 * distance * n,
    })
}

/// `A_j = rot(W_partner)⁻¹ · R · rot(W_j)` of every node, from the rest rotations alone.
fn reflections(data: &AnimationData, map: &MirrorMap, r: &DMat4) -> Vec<DMat3> {
    let n = data.nodes.len();
    let mut frame: Vec<Option<DMat3>> = vec![None; n];
    fn rot(data: &AnimationData, j: usize, memo: &mut Vec<Option<DMat3>>) -> DMat3 {
        if let Some(m) = memo[j] {
            return m;
        }
        let q = DQuat::from_array(data.nodes[j].rotation.map(f64::from)).normalize();
        let local = DMat3::from_quat(q);
        let m = match data.nodes[j].parent {
            Some(p) => rot(data, p, memo) * local,
            None => local,
        };
        memo[j] = Some(m);
        m
    }
    let r3 = DMat3::from_mat4(*r);
    (0..n)
        .map(|j| {
            let p = map.partner(j).unwrap();
            rot(data, p, &mut frame).transpose() * r3 * rot(data, j, &mut frame)
        })
        .collect()
}

/// Largest entry difference relative to the largest entry of `want` (at least 1).
fn rel_diff(got: &DMat4, want: &DMat4) -> f64 {
    let scale = want
        .to_cols_array()
        .iter()
        .fold(1.0_f64, |m, v| m.max(v.abs()));
    let d = (*got - *want)
        .to_cols_array()
        .iter()
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    d / scale
}

/// Worst difference between two TRS buffers (rotations compared up to sign).
fn trs_diff(a: &[f32], b: &[f32]) -> f32 {
    let mut worst = 0.0_f32;
    for (x, y) in a.chunks(TRS_STRIDE).zip(b.chunks(TRS_STRIDE)) {
        let d = |r: std::ops::Range<usize>, sign: f32| {
            r.map(|i| (x[i] - sign * y[i]).abs()).fold(0.0, f32::max)
        };
        let scale = x[..10].iter().fold(1.0_f32, |m, v| m.max(v.abs()));
        let rot = d(R_OFF..R_OFF + 4, 1.0).min(d(R_OFF..R_OFF + 4, -1.0));
        worst = worst.max((d(T_OFF..T_OFF + 3, 1.0).max(d(S_OFF..S_OFF + 3, 1.0))) / scale);
        worst = worst.max(rot);
    }
    worst
}

/// The world rule `W'_j = R · W_partner · A_j` for pose `trs` (within `slack` times f32's
/// share, plus `asymmetry`: how far the rest stands from its own mirror image about the plane
/// as found, see below), and mirroring twice.
fn check_pose(
    rig: &MirrorRig,
    map: &MirrorMap,
    trs: &[f32],
    slack: f64,
    asymmetry: f64,
) -> Result<(), TestCaseError> {
    let data = &rig.data;
    let r = reflection(
        map.plane().normal().as_dvec3(),
        f64::from(map.plane().distance()),
    );
    let a = reflections(data, map, &r);
    let mut mirrored = vec![0.0; trs.len()];
    map.mirror_pose(trs, &mut mirrored).unwrap();
    let source = world_f64(data, &trs64(trs));
    let got = world_f64(data, &trs64(&mirrored));
    for j in 0..data.nodes.len() {
        let p = map.partner(j).unwrap();
        let want = r * mat(&source[p]) * DMat4::from_mat3(a[j]);
        let d = rel_diff(&mat(&got[j]), &want);
        // The mirrored pose is f32: its rounding compounds down the random rigs' chains and
        // scales (a seed found 2.3e-5), and `A_j` here comes from the plane as found, which
        // a rig with its pairs close to the plane fixes less well (`slack`). A wrong rule is
        // off by the order of the pose itself. The rule holds exactly only for a rest that is
        // its own mirror image about the plane found; a plane found off by ε in distance and δ
        // in normal leaves partners 2 (ε + δ) of the rig's scale out of mirror (`asymmetry`).
        let tolerance = 5e-5 * slack + asymmetry;
        prop_assert!(
            d < tolerance,
            "node {j} (partner {p}): world off by {d:e} (tolerance {tolerance:e})"
        );
    }
    let mut twice = vec![0.0; trs.len()];
    map.mirror_pose(&mirrored, &mut twice).unwrap();
    let d = trs_diff(&twice, trs);
    prop_assert!(d < 1e-5, "mirrored twice: off by {d:e}");
    Ok(())
}

fn rest_trs(data: &AnimationData) -> Vec<f32> {
    let mut trs = vec![0.0; data.nodes.len() * TRS_STRIDE];
    for (n, rec) in data.nodes.iter().zip(trs.chunks_mut(TRS_STRIDE)) {
        rec[T_OFF..T_OFF + 3].copy_from_slice(&n.translation);
        rec[R_OFF..R_OFF + 4].copy_from_slice(&n.rotation);
        rec[S_OFF..S_OFF + 3].copy_from_slice(&n.scale);
    }
    trs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn symmetric_rigs_find_their_plane_and_mirror_poses_exactly(seed in any::<u64>(), pose in any::<u64>()) {
        let rig = mirror_rig(seed, true);
        let map = MirrorMap::from_names(&rig.data).unwrap();
        let mut got: Vec<(usize, usize)> = map.pairs().collect();
        let mut want: Vec<(usize, usize)> = rig.pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
        let plane = map.plane();
        let sign = plane.normal().as_dvec3().dot(rig.normal).signum();
        let normal_off = (plane.normal().as_dvec3() * sign - rig.normal).length();
        let distance_off = (f64::from(plane.distance()) * sign - rig.distance).abs();
        // The plane is found from f32 rest positions: a rig whose nodes stand far from the
        // origin rounds proportionally (f32 holds about 7 digits of each position), and each
        // position rounds once per level above it. Its size: the world-space length of every
        // bone, parents' scales included (they compound down a chain).
        let rest_world = world_f64(&rig.data, &trs64(&rest_trs(&rig.data)));
        let position = |j: usize| mat(&rest_world[j]).w_axis.truncate();
        let extent: f64 = (0..rig.data.nodes.len())
            .map(|j| match rig.data.nodes[j].parent {
                Some(p) => (position(j) - position(p)).length(),
                None => position(j).length(),
            })
            .sum::<f64>()
            .max(1.0);
        // The normal comes from the pairs' differences: pairs standing close to the plane
        // (their sum short against the rig) fix it less well, by their ratio.
        let separation: f64 = rig
            .pairs
            .iter()
            .map(|&(a, b)| (position(a) - position(b)).length())
            .sum();
        let slack = (extent / separation).max(1.0);
        let tolerance = 1e-5 * extent * slack;
        prop_assert!(
            normal_off < tolerance && distance_off < tolerance,
            "plane {plane:?}, built {:?} {} (tolerance {tolerance:e})",
            rig.normal,
            rig.distance
        );
        // The rest is its own mirror image, within what the plane's rounding allows: a plane
        // off by ε in distance and δ in normal moves a point's mirror image by up to
        // 2 (ε + δ |p|), that is 2 (ε + δ) of the record's scale as `trs_diff` measures it
        // (seed 5775118071118450695: a plane off by 2.6e-4 and 2.3e-4, within the plane's
        // tolerance, mirrors a translation 4.4e-4 of its scale off).
        let rest = rest_trs(&rig.data);
        let mut mirrored = vec![0.0; rest.len()];
        map.mirror_pose(&rest, &mut mirrored).unwrap();
        let d = f64::from(trs_diff(&mirrored, &rest));
        let rest_tolerance = 2.0 * (distance_off + normal_off) + 1e-5 * extent;
        prop_assert!(
            d < rest_tolerance,
            "rest mirrored: off by {d:e} (tolerance {rest_tolerance:e})"
        );
        check_pose(&rig, &map, &random_pose(rig.data.nodes.len(), pose, false), slack, 2.0 * (distance_off + normal_off))?;
    }

    #[test]
    fn any_rest_mirrors_poses_by_the_world_rule(seed in any::<u64>(), pose in any::<u64>()) {
        let rig = mirror_rig(seed, false);
        let map = MirrorMap::from_pairs(&rig.data, &rig.pairs).unwrap();
        check_pose(&rig, &map, &random_pose(rig.data.nodes.len(), pose, true), 1.0, 0.0)?;
    }

    #[test]
    fn mirrored_clips_sample_as_mirrored_poses(
        seed in any::<u64>(),
        symmetric in any::<bool>(),
        specs in prop::collection::vec(arb_channel(), 1..10),
        times in prop::collection::vec(-0.5_f32..5.0, 4),
    ) {
        let mut rig = mirror_rig(seed, symmetric);
        let n = rig.data.nodes.len();
        let (samplers, channels) = channels_of(specs, n);
        rig.data.clips.push(Clip::new("clip", samplers, channels));
        let map = MirrorMap::from_pairs(&rig.data, &rig.pairs).unwrap();
        let baked = mirror_clip(&rig.data, &map, 0).unwrap();
        let mut data = rig.data.clone();
        data.clips.push(baked);
        let mut scratch = PoseScratch::new(&data).unwrap();
        for t in times {
            reset_to_rest(&data, &mut scratch);
            apply_clip(&data, 0, t, &mut scratch);
            let mut want = vec![0.0; n * TRS_STRIDE];
            map.mirror_pose(&scratch.trs, &mut want).unwrap();
            reset_to_rest(&data, &mut scratch);
            apply_clip(&data, 1, t, &mut scratch);
            let d = trs_diff(&scratch.trs, &want);
            prop_assert!(d < 2e-5, "t = {t}: baked clip off by {d:e}");
        }
    }
}
