//! The four-node pass against the array-of-structures fused pass and the reference
//! controller: the same bits per lane, on fixed rigs and random ones.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::sync::Arc;

use glam::Mat4;
use proptest::prelude::*;

use crate::math::interpolate::floats;
use crate::{
    AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation,
    NodeRest, NullSink, PoseScratch, Sampler, apply_clip, compute_world_matrices, reset_to_rest,
};

/// A random rig: `parents[i] < i` or none, rest poses, and one clip whose tracks (a random
/// subset of properties, LINEAR or STEP) share key times `times` (or use `other` for the
/// tracks flagged in `second_timeline`).
#[derive(Debug, Clone)]
struct Rig {
    parents: Vec<Option<usize>>,
    rest: Vec<[f32; 10]>,
    tracks: Vec<(usize, u8, bool, bool, Vec<f32>)>,
    times: Vec<f32>,
}

fn quat(v: [f32; 4]) -> [f32; 4] {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-3);
    v.map(|x| x / n)
}

fn rig() -> impl Strategy<Value = Rig> {
    (1usize..14, 2usize..7).prop_flat_map(|(nodes, keys)| {
        let parents = (0..nodes)
            .map(|i| {
                if i == 0 {
                    Just(None).boxed()
                } else {
                    prop::option::weighted(0.85, 0..i).boxed()
                }
            })
            .collect::<Vec<_>>();
        let rest = prop::collection::vec(prop::array::uniform10(-2.0f32..2.0), nodes);
        // A third of the tracks are constant (every key the first): the quads hold them.
        let track = (
            0..nodes,
            0u8..3,
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.1),
            prop::collection::vec(-2.0f32..2.0, keys * 4),
            prop::bool::weighted(0.35),
        )
            .prop_map(|(node, path, step, second, mut v, constant)| {
                if constant {
                    let width = if path == 1 { 4 } else { 3 };
                    let first = v[..width].to_vec();
                    for key in v.chunks_exact_mut(width) {
                        key.copy_from_slice(&first);
                    }
                }
                (node, path, step, second, v)
            });
        let tracks = prop::collection::vec(track, 0..nodes * 3);
        let gaps = prop::collection::vec(0.05f32..1.0, keys);
        (parents, rest, tracks, gaps).prop_map(|(parents, rest, tracks, gaps)| Rig {
            parents,
            rest,
            tracks,
            times: gaps
                .iter()
                .scan(0.0, |t, g| {
                    *t += g;
                    Some(*t)
                })
                .collect(),
        })
    })
}

fn data(rig: &Rig) -> AnimationData {
    let nodes = rig
        .parents
        .iter()
        .zip(&rig.rest)
        .enumerate()
        .map(|(i, (&parent, r))| NodeRest {
            translation: [r[0], r[1], r[2]],
            rotation: quat([r[3], r[4], r[5], r[6]]),
            scale: [r[7], r[8], r[9]],
            ..NodeRest::new(format!("n{i}"), parent)
        })
        .collect();
    let other: Vec<f32> = rig.times.iter().map(|t| t * 1.5).collect();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (node, path, step, second, values) in &rig.tracks {
        let (path, width) = match path {
            0 => (ChannelPath::Translation, 3),
            1 => (ChannelPath::Rotation, 4),
            _ => (ChannelPath::Scale, 3),
        };
        let keys = rig.times.len();
        let mut output = values[..keys * width].to_vec();
        if width == 4 {
            for q in output.chunks_exact_mut(4) {
                q.copy_from_slice(&quat([q[0], q[1], q[2], q[3]]));
            }
        }
        let times = if *second {
            other.clone()
        } else {
            rig.times.clone()
        };
        let interp = if *step {
            Interpolation::Step
        } else {
            Interpolation::Linear
        };
        channels.push(Channel {
            sampler: samplers.len(),
            node: *node,
            path,
        });
        samplers.push(Sampler::new(times, output, interp).unwrap());
    }
    AnimationData {
        nodes,
        clips: vec![Clip::new("c", samplers, channels)],
        skeletons: vec![],
        morph_bindings: vec![],
        handedness: Handedness::LeftHanded,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The structure-of-arrays pass with the baseline kernels (called explicitly, whatever
    /// this CPU has) gives the TRS and world matrices of the unfused steps (reset,
    /// `apply_clip`, `compute_world_matrices`) bit for bit, at times before, inside and
    /// after the keys, and is used whenever every quad has one key-time array.
    #[test]
    fn quads_give_the_unfused_bits(rig in rig(), times in prop::collection::vec(-0.5f32..8.0, 1..12)) {
        let data = Arc::new(data(&rig));
        let mut scratch = baseline_scratch(&data);
        let mut reference = PoseScratch::new(&data).unwrap();
        let plan = &scratch.plan.clips[0];
        let mixed = rig.tracks.iter().any(|t| t.3) && rig.tracks.iter().any(|t| !t.3);
        if !mixed {
            prop_assert!(plan.quads.is_some(), "one key-time array: the quad pass is built");
        }
        for &t in &times {
            prop_assert!(crate::pose::single_clip::pose_clip(&data, job(t), &mut scratch, &mut NullSink));
            crate::pose::steps::resolve_world(&mut scratch);
            reset_to_rest(&data, &mut reference);
            apply_clip(&data, 0, t, &mut reference);
            compute_world_matrices(&data, &mut reference);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&scratch.trs), bits(&reference.trs), "TRS at {}", t);
            prop_assert_eq!(bits(floats(&scratch.world)), bits(floats(&reference.world)), "world at {}", t);
        }
    }
}

/// A scratch for `data` whose plan runs the baseline kernels.
fn baseline_scratch(data: &AnimationData) -> PoseScratch {
    let mut plan = crate::rig::plan::PosePlan::new(data).unwrap();
    plan.kernels = crate::rig::kernels::Kernels::Baseline;
    for b in &mut plan.bindings {
        b.ibm_wide.clear();
    }
    PoseScratch::with_plan(data, Arc::new(plan))
}

/// Says nobody reads the local transforms.
struct MatricesOnly;

impl crate::PoseSink for MatricesOnly {
    fn bone_matrices(&mut self, _binding: usize, _matrices: &[Mat4]) {}
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
    fn wants_local_transforms(&self) -> bool {
        false
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A sink that does not read the TRS record gets the same world matrices, bit for bit,
    /// and leaves the record as the last pose that wrote it.
    #[test]
    fn skipping_the_record_keeps_the_matrices(rig in rig(), t in -0.5f32..8.0, u in -0.5f32..8.0) {
        let data = Arc::new(data(&rig));
        let mut recorded = AnimationController::new(Arc::clone(&data)).unwrap();
        recorded.set_clip(Some(0)).unwrap();
        let mut skipped = recorded.clone();
        recorded.evaluate_at(Some(0), u, &mut NullSink).unwrap();
        skipped.evaluate_at(Some(0), u, &mut NullSink).unwrap();
        let before = skipped.scratch().trs.clone();
        recorded.evaluate_at(Some(0), t, &mut NullSink).unwrap();
        skipped.evaluate_at(Some(0), t, &mut MatricesOnly).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(floats(recorded.world_matrices())), bits(floats(skipped.world_matrices())));
        prop_assert_eq!(bits(&skipped.scratch().trs), bits(&before));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The kernels this CPU runs against the baseline, explicitly: the same TRS records bit
    /// for bit, world and bone matrices within FMA's rounding (relative to the magnitudes
    /// multiplied). On a CPU without AVX2 + FMA both are the baseline.
    #[test]
    fn wide_kernels_agree_with_the_baseline(
        rig in rig(),
        ibm in prop::collection::vec(prop::array::uniform12(-3.0f32..3.0), 14),
        times in prop::collection::vec(-0.5f32..8.0, 1..6),
    ) {
        let mut data = data(&rig);
        let n = data.nodes.len();
        // An affine inverse bind per joint (random, not inverses: the product is what is
        // compared), on the first skin; the second binding has full ones.
        let affine: Vec<f32> = ibm[..n]
            .iter()
            .flat_map(|m| [m[0], m[1], m[2], 0.0, m[3], m[4], m[5], 0.0, m[6], m[7], m[8], 0.0, m[9], m[10], m[11], 1.0])
            .collect();
        let full: Vec<f32> = ibm[..n].iter().flat_map(|m| [m.as_slice(), &m[..4]].concat()).collect();
        // The mesh on a root of its own at rest: its inverse is taken the same way by both
        // (a near-singular animated mesh node would amplify any rounding difference).
        data.nodes.push(crate::NodeRest::new("mesh", None));
        data.skeletons = vec![
            crate::SkeletonBinding::new(0, n, (0..n).collect(), affine).unwrap(),
            crate::SkeletonBinding::new(0, n, (0..n).rev().collect(), full).unwrap(),
        ];
        let mut wide = PoseScratch::new(&data).unwrap();
        let mut base = baseline_scratch(&data);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for &t in &times {
            let (mut a, mut b) = (crate::RecordingSink::default(), crate::RecordingSink::default());
            if !crate::pose::single_clip::pose_clip(&data, job(t), &mut base, &mut a) {
                break;
            }
            prop_assert!(crate::pose::single_clip::pose_clip(&data, job(t), &mut wide, &mut b));
            prop_assert_eq!(bits(&wide.trs), bits(&base.trs));
            // FMA's error grows with each parent's magnitude times its child's (at most
            // 1 + 2 + 2 · 2: translations and scales in ±2), level by level.
            let mut bound = vec![0.0f32; n + 1];
            for step in &base.plan.steps {
                let (node, parent) = (step.node as usize, step.parent);
                let up = if parent == crate::data::NONE { 1.0 } else { bound[parent as usize] };
                let own = base.frame_world[16 * node..16 * node + 16].iter().fold(0.0f32, |m, v| m.max(v.abs()));
                bound[node] = (up * 7.0).max(own);
            }
            for (node, (x, y)) in base.frame_world.chunks_exact(16).zip(wide.frame_world.chunks_exact(16)).enumerate() {
                for (p, q) in x.iter().zip(y) {
                    prop_assert!((p - q).abs() <= 4e-6 * (1.0 + bound[node]), "world {}: {} vs {}", node, p, q);
                }
            }
            for (binding, (x, y)) in a.bone_matrices.iter().zip(&b.bone_matrices).enumerate() {
                let joints = &data.skeletons[binding].joints;
                for ((m, w), &j) in floats(x).chunks_exact(16).zip(floats(y).chunks_exact(16)).zip(joints) {
                    let world = &base.frame_world[16 * j..16 * j + 16];
                    // The product's own rounding, and the world matrix's (above) times the
                    // inverse bind's four terms of at most 3.
                    let scale = 1.0 + world.iter().map(|v| v.abs()).sum::<f32>() * 3.0;
                    let tol = 1e-6 * scale + 12.0 * 4e-6 * (1.0 + bound[j]);
                    for (p, q) in m.iter().zip(w) {
                        prop_assert!((p - q).abs() <= tol, "{} vs {} (tolerance {})", p, q, tol);
                    }
                }
            }
        }
    }
}

#[test]
fn a_copy_past_its_budget_keeps_the_vector_pass() {
    // One translation of 20 000 keys among four nodes: the quad repeats 9 rest rows in
    // every key, 10× the track's own bytes, past MAX_GROWTH (8×) plus the slack. With 2 000
    // keys the slack covers it.
    let rig = |keys: usize| Rig {
        parents: vec![None, Some(0), Some(1), Some(2)],
        rest: vec![[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]; 4],
        tracks: vec![(2, 0, false, false, vec![0.5; keys * 4])],
        #[expect(clippy::cast_precision_loss, reason = "test key times")]
        times: (0..keys).map(|k| k as f32).collect(),
    };
    let quads = |keys| {
        let c = AnimationController::new(Arc::new(data(&rig(keys)))).unwrap();
        c.scratch().plan.clips[0].quads.is_some()
    };
    assert!(quads(2_000));
    assert!(!quads(20_000));
}

#[test]
fn constant_tracks_are_held_and_still_quads_composed_once() {
    let rest = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
    let turn = [0.0, 0.0, 0.6, 0.8];
    // Nodes 0–3: a constant rotation (three equal keys) and a constant translation; nodes
    // 4–7: the same plus a moving translation on node 6.
    let mut tracks = vec![
        (1, 1, false, false, [turn; 3].concat()),
        (2, 0, false, false, [0.5, -0.0, 2.0].repeat(3)),
    ];
    let moving = |node| (node, 0, false, false, (0u8..12).map(f32::from).collect());
    let plan = |tracks: Vec<_>| {
        let rig = Rig {
            parents: (0usize..8).map(|i| i.checked_sub(1)).collect(),
            rest: vec![rest; 8],
            tracks,
            times: vec![0.0, 1.0, 2.0],
        };
        let c = AnimationController::new(Arc::new(data(&rig))).unwrap();
        c.scratch().plan.clips[0].quads.clone().unwrap()
    };
    let still = plan(tracks.clone());
    assert_eq!(
        still.fixed.len(),
        2,
        "nothing moves: both quads composed once"
    );
    assert!(
        still
            .quads
            .iter()
            .all(|q| q.t_const && q.s_const && q.r_const)
    );
    tracks.push(moving(6));
    let one = plan(tracks);
    assert_eq!(one.fixed.len(), 1);
    let q = &one.quads[1];
    assert!(!q.t_const && q.s_const && q.r_const);
    assert_eq!(q.fixed, crate::data::NONE);
    // The held translation of node 2 is the lerp's: −0 becomes +0.
    assert_eq!(one.quads[0].held[1].z.to_bits(), 0.0f32.to_bits());
}

#[test]
fn a_quad_that_mixes_key_time_arrays_keeps_the_vector_pass() {
    let rig = Rig {
        parents: vec![None, Some(0)],
        rest: vec![[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]; 2],
        tracks: vec![
            (0, 0, false, false, vec![0.0; 8]),
            (
                1,
                1,
                false,
                true,
                vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            ),
        ],
        times: vec![0.0, 1.0],
    };
    let controller = AnimationController::new(Arc::new(data(&rig))).unwrap();
    assert!(controller.scratch().plan.clips[0].quads.is_none());
    assert!(!controller.scratch().plan.clips[0].nodes.is_empty());
}

/// Clip 0 at `t` with its TRS records and no offset.
fn job(t: f32) -> crate::pose::single_clip::ClipPose<'static> {
    crate::pose::single_clip::ClipPose {
        clip: 0,
        time: t,
        record: true,
        offset: None,
    }
}
