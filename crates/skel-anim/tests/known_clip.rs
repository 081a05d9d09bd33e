//! The seed's test 5: `tick` produces the right bone matrices for a known clip. The expected
//! values are worked out by hand below (no library code computes them), at key times, between
//! keys, before the first key and after the last, for STEP, LINEAR and CUBICSPLINE channels.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::f64::consts::FRAC_PI_2;
use std::sync::Arc;

use common::{M64, assert_close, assert_mat_close};
use skel_anim::{
    AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation,
    MorphBinding, NodeRest, RecordingSink, Sampler, SkeletonBinding,
};

const SQRT_HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Three nodes: `hips` (root, joint 0), `arm` (child of hips at rest translation (0, 1, 0),
/// joint 1), `mesh` (root at the identity, with two morph targets).
///
/// Clip 0 "known", duration 4 s:
/// - hips translation, LINEAR, keys t = 1, 2, 4: (0,0,0), (2,0,0), (2,4,0);
/// - arm rotation, STEP, keys t = 0, 1.5, 3: identity, 90° about z, 180° about z;
/// - arm scale, CUBICSPLINE, keys t = 0, 2: value (1,1,1) with out-tangent (2,0,0), value
///   (2,1,1) with in-tangent (1,0,0); the unused in-tangent of key 0 and out-tangent of key 1
///   are ±100, so using the wrong tangent shows at once;
/// - mesh weights, LINEAR, keys t = 0, 2: [0, 1], [1, 0].
///
/// Clip 1 "turn": arm rotation, LINEAR, keys t = 0, 1: identity, 90° about z.
fn known_data(handedness: Handedness) -> AnimationData {
    let mut arm = NodeRest::new("arm", Some(0));
    arm.translation = [0.0, 1.0, 0.0];
    let known = Clip::new(
        "known",
        vec![
            Sampler::new(
                vec![1.0, 2.0, 4.0],
                vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 4.0, 0.0],
                Interpolation::Linear,
            )
            .unwrap(),
            Sampler::new(
                vec![0.0, 1.5, 3.0],
                vec![
                    0.0, 0.0, 0.0, 1.0, //
                    0.0, 0.0, SQRT_HALF, SQRT_HALF, //
                    0.0, 0.0, 1.0, 0.0,
                ],
                Interpolation::Step,
            )
            .unwrap(),
            Sampler::new(
                vec![0.0, 2.0],
                vec![
                    100.0, 100.0, 100.0, // key 0 in-tangent (never used)
                    1.0, 1.0, 1.0, // key 0 value
                    2.0, 0.0, 0.0, // key 0 out-tangent
                    1.0, 0.0, 0.0, // key 1 in-tangent
                    2.0, 1.0, 1.0, // key 1 value
                    -100.0, -100.0, -100.0, // key 1 out-tangent (never used)
                ],
                Interpolation::CubicSpline,
            )
            .unwrap(),
            Sampler::new(
                vec![0.0, 2.0],
                vec![0.0, 1.0, 1.0, 0.0],
                Interpolation::Linear,
            )
            .unwrap(),
        ],
        vec![
            Channel {
                sampler: 0,
                node: 0,
                path: ChannelPath::Translation,
            },
            Channel {
                sampler: 1,
                node: 1,
                path: ChannelPath::Rotation,
            },
            Channel {
                sampler: 2,
                node: 1,
                path: ChannelPath::Scale,
            },
            Channel {
                sampler: 3,
                node: 2,
                path: ChannelPath::Weights,
            },
        ],
    );
    let turn = Clip::new(
        "turn",
        vec![
            Sampler::new(
                vec![0.0, 1.0],
                vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, SQRT_HALF, SQRT_HALF],
                Interpolation::Linear,
            )
            .unwrap(),
        ],
        vec![Channel {
            sampler: 0,
            node: 1,
            path: ChannelPath::Rotation,
        }],
    );
    // Rest worlds: hips the identity, arm a translation by (0, 1, 0); the inverse binds undo them.
    let mut ibm = Vec::new();
    ibm.extend(skel_math::IDENTITY);
    let mut arm_ibm = skel_math::IDENTITY;
    arm_ibm[13] = -1.0;
    ibm.extend(arm_ibm);
    AnimationData {
        nodes: vec![
            NodeRest::new("hips", None),
            arm,
            NodeRest::new("mesh", None),
        ],
        clips: vec![known, turn],
        skeletons: vec![SkeletonBinding::new(0, 2, vec![0, 1], ibm).unwrap()],
        morph_bindings: vec![MorphBinding {
            node: 2,
            default_weights: vec![0.25, 0.5],
        }],
        handedness,
    }
}

/// The channel values of clip "known" at one time, worked out by hand.
struct Expected {
    t: f32,
    /// hips translation (x, y); z stays 0.
    hips: (f64, f64),
    /// arm rotation about z, in degrees (STEP).
    arm_deg: f64,
    /// arm scale x (CUBICSPLINE); y and z stay 1.
    arm_sx: f64,
    /// morph weights.
    weights: [f64; 2],
}

/// The CUBICSPLINE scale between t = 0 and 2 (td = 2), s = t / 2, per glTF 2.0 Appendix C:
/// p = (2s³−3s²+1)·1 + td·(s³−2s²+s)·2 + (−2s³+3s²)·2 + td·(s³−s²)·1.
/// - t = 0.5, s = 0.25: 0.84375 + 2·0.140625·2 + 0.15625·2 + 2·(−0.046875) = 1.625
/// - t = 1.0, s = 0.5: 0.5 + 2·0.125·2 + 0.5·2 + 2·(−0.125) = 1.75
///   (unscaled tangents would give 1.625)
/// - t = 1.5, s = 0.75: 0.15625 + 2·0.046875·2 + 0.84375·2 + 2·(−0.140625) = 1.75
/// - t = 1.75, s = 0.875: 0.04296875 + 2·0.013671875·2 + 0.95703125·2 + 2·(−0.095703125)
///   = 1.8203125
const TABLE: [Expected; 10] = [
    // Before every first key: each channel holds its first value.
    Expected {
        t: -1.0,
        hips: (0.0, 0.0),
        arm_deg: 0.0,
        arm_sx: 1.0,
        weights: [0.0, 1.0],
    },
    Expected {
        t: 0.0,
        hips: (0.0, 0.0),
        arm_deg: 0.0,
        arm_sx: 1.0,
        weights: [0.0, 1.0],
    },
    // Translation still before its first key (t = 1).
    Expected {
        t: 0.5,
        hips: (0.0, 0.0),
        arm_deg: 0.0,
        arm_sx: 1.625,
        weights: [0.25, 0.75],
    },
    // Translation exactly on its first key.
    Expected {
        t: 1.0,
        hips: (0.0, 0.0),
        arm_deg: 0.0,
        arm_sx: 1.75,
        weights: [0.5, 0.5],
    },
    // Translation halfway from (0,0,0) to (2,0,0); rotation exactly on key 1.
    Expected {
        t: 1.5,
        hips: (1.0, 0.0),
        arm_deg: 90.0,
        arm_sx: 1.75,
        weights: [0.75, 0.25],
    },
    // STEP holds key 1 between keys.
    Expected {
        t: 1.75,
        hips: (1.5, 0.0),
        arm_deg: 90.0,
        arm_sx: 1.8203125,
        weights: [0.875, 0.125],
    },
    // Scale and weights on their last key.
    Expected {
        t: 2.0,
        hips: (2.0, 0.0),
        arm_deg: 90.0,
        arm_sx: 2.0,
        weights: [1.0, 0.0],
    },
    // Translation halfway from (2,0,0) to (2,4,0); rotation on its last key.
    Expected {
        t: 3.0,
        hips: (2.0, 2.0),
        arm_deg: 180.0,
        arm_sx: 2.0,
        weights: [1.0, 0.0],
    },
    Expected {
        t: 4.0,
        hips: (2.0, 4.0),
        arm_deg: 180.0,
        arm_sx: 2.0,
        weights: [1.0, 0.0],
    },
    // After every last key: each channel holds its last value.
    Expected {
        t: 5.0,
        hips: (2.0, 4.0),
        arm_deg: 180.0,
        arm_sx: 2.0,
        weights: [1.0, 0.0],
    },
];

/// bone 0 = world(hips) = T(x, y, 0) (the mesh is a root at the identity, so invMeshWorld only
/// undoes the handedness mirror).
fn bone0(x: f64, y: f64) -> M64 {
    let mut m = common::I64;
    m[12] = x;
    m[13] = y;
    m
}

/// bone 1 = T(x, y, 0) · T(0, 1, 0) · Rz(θ) · S(sx, 1, 1) · T(0, −1, 0), multiplied out by hand:
/// columns (c·sx, s·sx, 0, 0), (−s, c, 0, 0), (0, 0, 1, 0), (x + s, y + 1 − c, 0, 1).
fn bone1(x: f64, y: f64, deg: f64, sx: f64) -> M64 {
    let (s, c) = deg.to_radians().sin_cos();
    [
        c * sx,
        s * sx,
        0.0,
        0.0, //
        -s,
        c,
        0.0,
        0.0, //
        0.0,
        0.0,
        1.0,
        0.0, //
        x + s,
        y + 1.0 - c,
        0.0,
        1.0,
    ]
}

const TOL: f64 = 1e-5;

fn check(sink: &RecordingSink, e: &Expected, how: &str) {
    let what = format!("{how} at t = {}", e.t);
    let bones = &sink.bone_matrices[0];
    assert_eq!(bones.len(), 2);
    assert_mat_close(
        &bones[0],
        &bone0(e.hips.0, e.hips.1),
        TOL,
        &format!("bone 0 {what}"),
    );
    assert_mat_close(
        &bones[1],
        &bone1(e.hips.0, e.hips.1, e.arm_deg, e.arm_sx),
        TOL,
        &format!("bone 1 {what}"),
    );
    assert_close(
        &sink.morph_weights[0],
        &e.weights,
        TOL,
        &format!("weights {what}"),
    );
}

#[test]
fn evaluate_at_matches_the_hand_computed_table() {
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let mut c = AnimationController::new(Arc::new(known_data(handedness))).unwrap();
        for e in &TABLE {
            let mut sink = RecordingSink::default();
            c.evaluate_at(Some(0), e.t, &mut sink).unwrap();
            check(&sink, e, &format!("evaluate_at ({handedness:?})"));
        }
    }
}

#[test]
fn tick_walks_through_the_hand_computed_table() {
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let mut c = AnimationController::new(Arc::new(known_data(handedness))).unwrap();
        c.set_clip(Some(0)).unwrap();
        c.looping = false;
        let mut sink = RecordingSink::default();
        // From t = 0, steps that land on the table's times from 0.5 s on; the last step runs
        // past the end of the 4 s clip and clamps there.
        for (delta_ms, t) in [
            (500.0, 0.5),
            (500.0, 1.0),
            (500.0, 1.5),
            (250.0, 1.75),
            (250.0, 2.0),
            (1000.0, 3.0),
            (3000.0, 4.0),
        ] {
            c.tick(delta_ms, &mut sink);
            assert_eq!(c.time, t, "clock after a {delta_ms} ms tick");
            let e = TABLE.iter().find(|e| e.t == t).unwrap();
            check(&sink, e, &format!("tick ({handedness:?})"));
        }
    }
}

#[test]
fn world_matrices_of_the_known_clip() {
    // world(arm) = T(x, y + 1, 0) · Rz(θ) · S(sx, 1, 1); at t = 1.75: x = 1.5, y = 0, θ = 90°,
    // sx = 1.8203125. In the left-handed default every row 0 (x) is negated.
    let mut c = AnimationController::new(Arc::new(known_data(Handedness::RightHanded))).unwrap();
    c.evaluate_at(Some(0), 1.75, &mut RecordingSink::default())
        .unwrap();
    let arm_world: M64 = [
        0.0,
        1.820_312_5,
        0.0,
        0.0, //
        -1.0,
        0.0,
        0.0,
        0.0, //
        0.0,
        0.0,
        1.0,
        0.0, //
        1.5,
        1.0,
        0.0,
        1.0,
    ];
    assert_mat_close(&c.world_matrices()[1], &arm_world, TOL, "arm world (RH)");
    assert_mat_close(&c.world_matrices()[2], &common::I64, 0.0, "mesh world (RH)");

    let mut c = AnimationController::new(Arc::new(known_data(Handedness::LeftHanded))).unwrap();
    c.evaluate_at(Some(0), 1.75, &mut RecordingSink::default())
        .unwrap();
    let mirrored: M64 = std::array::from_fn(|i| {
        if i % 4 == 0 {
            -arm_world[i]
        } else {
            arm_world[i]
        }
    });
    assert_mat_close(&c.world_matrices()[1], &mirrored, TOL, "arm world (LH)");
}

#[test]
fn linear_rotation_is_a_slerp_not_a_lerp() {
    // Clip "turn": identity → 90° about z over 1 s. A quarter of the way a slerp has turned
    // 22.5° (a normalised lerp only ≈ 21.6°, which moves the arm's matrix by ≈ 0.015).
    let mut c = AnimationController::new(Arc::new(known_data(Handedness::RightHanded))).unwrap();
    for (t, deg) in [
        (0.25, 22.5),
        (0.5, 45.0),
        (0.75, 67.5),
        (1.0, 90.0),
        (2.0, 90.0),
    ] {
        let mut sink = RecordingSink::default();
        c.evaluate_at(Some(1), t, &mut sink).unwrap();
        assert_mat_close(
            &sink.bone_matrices[0][1],
            &bone1(0.0, 0.0, deg, 1.0),
            TOL,
            &format!("turn at t = {t}"),
        );
    }
    // The rotation keys come out unit length: the scratch holds the slerped quaternion
    // (sin 11.25°, cos 11.25°) about z at t = 0.25.
    c.evaluate_at(Some(1), 0.25, &mut RecordingSink::default())
        .unwrap();
    let r = &c.scratch().trs[skel_anim::TRS_STRIDE + skel_anim::R_OFF..][..4];
    let half = (FRAC_PI_2 / 8.0).sin_cos();
    assert_close(r, &[0.0, 0.0, half.0, half.1], 1e-6, "slerped quaternion");
}

#[test]
fn rest_pose_restores_morph_defaults_and_untouched_nodes() {
    // Without a clip the pose is the rest pose, and the morph weights are the mesh's defaults,
    // even after a clip has run (the rest reset happens every frame).
    let mut c = AnimationController::new(Arc::new(known_data(Handedness::LeftHanded))).unwrap();
    let mut sink = RecordingSink::default();
    c.evaluate_at(Some(0), 3.0, &mut sink).unwrap();
    c.evaluate_at(None, 3.0, &mut sink).unwrap();
    assert_close(&sink.morph_weights[0], &[0.25, 0.5], 0.0, "default weights");
    assert_mat_close(
        &sink.bone_matrices[0][0],
        &common::I64,
        0.0,
        "bone 0 at rest",
    );
    assert_mat_close(
        &sink.bone_matrices[0][1],
        &common::I64,
        1e-7,
        "bone 1 at rest",
    );
}
