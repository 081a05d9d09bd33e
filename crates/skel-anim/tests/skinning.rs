//! CPU reference skinning (`skin_vertices`) against results worked out by hand: 4, 8 and 12
//! influences per vertex, morph target deltas applied before skinning, normals through the
//! skin matrix and renormalised, and the length checks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::assert_close;
use skel_anim::glam::{Mat4, Vec3};
use skel_anim::{
    AnimError, AnimationController, MorphTargets, RecordingSink, VertexInfluences, skin_vertices,
};

/// Four bone matrices:
/// 0: translate (1, 0, 0); 1: rotate 90° about z, (x, y, z) → (−y, x, z); 2: scale 2;
/// 3: translate (0, 0, 5).
fn bones() -> Vec<Mat4> {
    vec![
        Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0)),
        Mat4::from_cols_array(&[
            0.0, 1.0, 0.0, 0.0, //
            -1.0, 0.0, 0.0, 0.0, //
            0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0,
        ]),
        Mat4::from_scale(Vec3::splat(2.0)),
        Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0)),
    ]
}

fn skin(
    positions: &[f32],
    normals: Option<&[f32]>,
    influences: Option<&VertexInfluences>,
    morph: Option<(&MorphTargets, &[f32])>,
) -> (Vec<f32>, Vec<f32>) {
    let mut out_p = vec![f32::NAN; positions.len()];
    let mut out_n = vec![f32::NAN; positions.len()];
    skin_vertices(
        positions,
        normals,
        influences,
        &bones(),
        morph,
        &mut out_p,
        normals.map(|_| out_n.as_mut_slice()),
    )
    .unwrap();
    (out_p, out_n)
}

#[test]
fn four_influences() {
    // Vertex 0 at (1, 2, 3), normal (1, 0, 0), weights 0.5 / 0.25 / 0.25 / 0 on bones 0..3:
    //   0.5·(2, 2, 3) + 0.25·(−2, 1, 3) + 0.25·(2, 4, 6) = (1, 2.25, 3.75)
    //   normal: 0.5·(1, 0, 0) + 0.25·(0, 1, 0) + 0.25·(2, 0, 0) = (1, 0.25, 0) → /√1.0625
    // Vertex 1 at the origin, fully on bone 3: (0, 0, 5); its normal (0, 1, 0) unchanged.
    let influences = VertexInfluences {
        per_vertex: 4,
        joints: vec![0, 1, 2, 3, 3, 0, 0, 0],
        weights: vec![0.5, 0.25, 0.25, 0.0, 1.0, 0.0, 0.0, 0.0],
    };
    assert_eq!(influences.vertex_count(), 2);
    let (p, n) = skin(
        &[1.0, 2.0, 3.0, 0.0, 0.0, 0.0],
        Some(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
        Some(&influences),
        None,
    );
    assert_close(&p, &[1.0, 2.25, 3.75, 0.0, 0.0, 5.0], 1e-6, "positions");
    let l = 1.0625_f64.sqrt();
    assert_close(
        &n,
        &[1.0 / l, 0.25 / l, 0.0, 0.0, 1.0, 0.0],
        1e-6,
        "normals",
    );
}

#[test]
fn eight_influences_use_the_second_set() {
    // (1, 0, 0) with weight 0.25 on bone 0 in the first set and 0.25 each on bones 1, 2, 3 in
    // the second: 0.25·((2,0,0) + (0,1,0) + (2,0,0) + (1,0,5)) = (1.25, 0.25, 1.25).
    // (Reading only the first four would give (0.5, 0, 0).)
    let influences = VertexInfluences {
        per_vertex: 8,
        joints: vec![0, 0, 0, 0, 1, 2, 3, 0],
        weights: vec![0.25, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 0.0],
    };
    let (p, n) = skin(
        &[1.0, 0.0, 0.0],
        Some(&[0.0, 0.0, 1.0]),
        Some(&influences),
        None,
    );
    assert_close(&p, &[1.25, 0.25, 1.25], 1e-6, "position");
    // Normal (0, 0, 1): bones 0, 1, 3 keep it, bone 2 doubles it: 0.25·(1+1+2+1) = 1.25 → unit.
    assert_close(&n, &[0.0, 0.0, 1.0], 1e-6, "normal");
}

#[test]
fn twelve_influences_use_the_third_set() {
    // (1, 2, 3) with 0.5 on bone 1 and 0.5 on bone 2, both in the third set of four:
    // 0.5·(−2, 1, 3) + 0.5·(2, 4, 6) = (0, 2.5, 4.5).
    let mut joints = vec![3; 12];
    let mut weights = vec![0.0; 12];
    joints[8] = 1;
    weights[8] = 0.5;
    joints[11] = 2;
    weights[11] = 0.5;
    let influences = VertexInfluences {
        per_vertex: 12,
        joints,
        weights,
    };
    let (p, _) = skin(&[1.0, 2.0, 3.0], None, Some(&influences), None);
    assert_close(&p, &[0.0, 2.5, 4.5], 1e-6, "position");
}

#[test]
fn morph_deltas_apply_before_skinning() {
    // (1, 0, 0) with deltas (0, 1, 0) × 0.5 and (0, 0, 2) × 0.25 → (1, 0.5, 0.5); then fully on
    // bone 2 (scale 2) → (2, 1, 1). Morphing after skinning would give (2, 0.5, 0.5).
    // Normal (0, 0, 1) with delta (1, 0, 0) × 0.5 → (0.5, 0, 1) → ×2 → (1, 0, 2)/√5.
    let targets = MorphTargets {
        target_count: 2,
        positions: vec![0.0, 1.0, 0.0, 0.0, 0.0, 2.0],
        normals: vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    };
    let influences = VertexInfluences {
        per_vertex: 4,
        joints: vec![2, 0, 0, 0],
        weights: vec![1.0, 0.0, 0.0, 0.0],
    };
    let weights = [0.5, 0.25];
    let (p, n) = skin(
        &[1.0, 0.0, 0.0],
        Some(&[0.0, 0.0, 1.0]),
        Some(&influences),
        Some((&targets, &weights)),
    );
    assert_close(&p, &[2.0, 1.0, 1.0], 1e-6, "position");
    let r5 = 5.0_f64.sqrt();
    assert_close(&n, &[1.0 / r5, 0.0, 2.0 / r5], 1e-6, "normal");

    // Without influences the vertices are only morphed (normals renormalised).
    let (p, n) = skin(
        &[1.0, 0.0, 0.0],
        Some(&[0.0, 0.0, 1.0]),
        None,
        Some((&targets, &weights)),
    );
    assert_close(&p, &[1.0, 0.5, 0.5], 1e-6, "morph-only position");
    let l = 1.25_f64.sqrt();
    assert_close(&n, &[0.5 / l, 0.0, 1.0 / l], 1e-6, "morph-only normal");
}

#[test]
fn morph_targets_are_target_major() {
    // Two vertices, two targets: target t, vertex v at (t · 2 + v) · 3.
    let targets = MorphTargets {
        target_count: 2,
        positions: vec![
            1.0, 0.0, 0.0, // target 0, vertex 0
            0.0, 1.0, 0.0, // target 0, vertex 1
            0.0, 0.0, 1.0, // target 1, vertex 0
            2.0, 2.0, 2.0, // target 1, vertex 1
        ],
        normals: vec![],
    };
    let (p, _) = skin(&[0.0; 6], None, None, Some((&targets, &[1.0, 0.5])));
    assert_close(&p, &[1.0, 0.0, 0.5, 1.0, 2.0, 1.0], 0.0, "positions");
}

#[test]
fn rest_bones_of_a_controller_leave_the_mesh_in_place() {
    // End to end: the rest-pose bone matrices of a generated rig skin any vertex to itself.
    let data = common::generated_rig(10, 0, 5);
    let mut c = AnimationController::new(Arc::new(data)).unwrap();
    let mut sink = RecordingSink::default();
    c.tick(0.0, &mut sink);
    let positions = [0.3, -1.0, 2.0, 4.0, 0.5, -0.25];
    let influences = VertexInfluences {
        per_vertex: 4,
        joints: vec![0, 3, 7, 9, 2, 4, 5, 1],
        weights: vec![0.4, 0.3, 0.2, 0.1, 0.7, 0.1, 0.1, 0.1],
    };
    let mut out = [0.0; 6];
    skin_vertices(
        &positions,
        None,
        Some(&influences),
        &sink.bone_matrices[0],
        None,
        &mut out,
        None,
    )
    .unwrap();
    assert_close(
        &out,
        &positions.map(f64::from),
        1e-4,
        "rest-skinned positions",
    );
}

#[test]
fn length_errors_name_the_buffer() {
    let inf = VertexInfluences {
        per_vertex: 4,
        joints: vec![0; 4],
        weights: vec![1.0, 0.0, 0.0, 0.0],
    };
    let b = bones();
    let mut out = [0.0; 3];
    let e = skin_vertices(&[0.0; 3], None, Some(&inf), &b, None, &mut [0.0; 6], None).unwrap_err();
    assert_eq!(
        e,
        AnimError::LengthMismatch {
            what: "out_positions",
            expected: 3,
            got: 6
        }
    );
    let e = skin_vertices(&[0.0; 4], None, None, &b, None, &mut [0.0; 4], None).unwrap_err();
    assert!(matches!(
        e,
        AnimError::LengthMismatch {
            what: "positions",
            expected: 3,
            got: 4
        }
    ));
    let short = VertexInfluences {
        per_vertex: 4,
        joints: vec![0; 3],
        weights: vec![1.0; 4],
    };
    let e = skin_vertices(&[0.0; 3], None, Some(&short), &b, None, &mut out, None).unwrap_err();
    assert!(matches!(
        e,
        AnimError::LengthMismatch {
            what: "influence joints",
            ..
        }
    ));
    let far = VertexInfluences {
        per_vertex: 4,
        joints: vec![0, 4, 0, 0],
        weights: vec![1.0, 0.0, 0.0, 0.0],
    };
    let e = skin_vertices(&[0.0; 3], None, Some(&far), &b, None, &mut out, None).unwrap_err();
    assert_eq!(
        e,
        AnimError::LengthMismatch {
            what: "bone matrices for joint index",
            expected: 5,
            got: 4
        }
    );
    let e = skin_vertices(&[0.0; 3], Some(&[0.0; 6]), None, &b, None, &mut out, None).unwrap_err();
    assert!(matches!(
        e,
        AnimError::LengthMismatch {
            what: "normals",
            ..
        }
    ));
    let targets = MorphTargets {
        target_count: 2,
        positions: vec![0.0; 6],
        normals: vec![],
    };
    let e = skin_vertices(
        &[0.0; 3],
        None,
        None,
        &b,
        Some((&targets, &[1.0])),
        &mut out,
        None,
    )
    .unwrap_err();
    assert!(matches!(
        e,
        AnimError::LengthMismatch {
            what: "morph weights",
            expected: 2,
            got: 1
        }
    ));
    let e = skin_vertices(
        &[0.0; 3],
        None,
        None,
        &b,
        Some((
            &MorphTargets {
                target_count: 2,
                positions: vec![0.0; 3],
                normals: vec![],
            },
            &[1.0, 1.0],
        )),
        &mut out,
        None,
    )
    .unwrap_err();
    assert!(matches!(
        e,
        AnimError::LengthMismatch {
            what: "morph position deltas",
            ..
        }
    ));
}
