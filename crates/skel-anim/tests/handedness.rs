//! The seed's test 7: root nodes get `diag(-1, 1, 1, 1)` pre-multiplied in the default
//! left-handed mode, and nothing in the right-handed (glTF-native) mode.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{MIRROR_X64, assert_mat_close, compose_f32_in, flat, mul_f64};
use skel_anim::{AnimationController, AnimationData, Handedness, NodeRest, RecordingSink};

fn two_roots_and_a_child(handedness: Handedness) -> AnimationData {
    let mut a = NodeRest::new("a", None);
    a.translation = [1.0, 2.0, 3.0];
    a.rotation = [0.0, 0.0, 0.6, 0.8];
    let mut b = NodeRest::new("b", Some(2));
    b.translation = [0.5, 0.0, -1.0];
    b.scale = [2.0, 1.0, 1.0];
    let mut c = NodeRest::new("c", None);
    c.translation = [-4.0, 0.0, 0.0];
    c.rotation = [0.6, 0.0, 0.0, 0.8];
    AnimationData {
        nodes: vec![a, b, c],
        handedness,
        ..AnimationData::default()
    }
}

#[test]
fn left_handed_is_the_default() {
    assert_eq!(Handedness::default(), Handedness::LeftHanded);
    assert_eq!(AnimationData::default().handedness, Handedness::LeftHanded);
    assert_eq!(
        skel_math::RH_TO_LH,
        [
            -1.0, 0.0, 0.0, 0.0, //
            0.0, 1.0, 0.0, 0.0, //
            0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0,
        ]
    );
}

#[test]
fn roots_get_the_mirror_pre_multiplied_once() {
    let data = two_roots_and_a_child(Handedness::LeftHanded);
    let local = |i: usize| {
        let n = &data.nodes[i];
        compose_f32_in(n.translation, n.rotation, n.scale)
    };
    let mut c = AnimationController::new(Arc::new(data.clone())).unwrap();
    c.tick(0.0, &mut RecordingSink::default());
    let w = flat(c.world_matrices());
    assert_mat_close(&w[0..16], &mul_f64(&MIRROR_X64, &local(0)), 1e-6, "root a");
    assert_mat_close(&w[32..48], &mul_f64(&MIRROR_X64, &local(2)), 1e-6, "root c");
    // The child inherits the mirror through its parent; it is not applied a second time.
    let child = mul_f64(&mul_f64(&MIRROR_X64, &local(2)), &local(1));
    assert_mat_close(&w[16..32], &child, 1e-6, "child b");
    // A mirror flips the sign of the determinant: x of a root's translation is negated.
    assert_eq!(w[12], -1.0);
    assert_eq!(w[13], 2.0);
    assert_eq!(w[14], 3.0);
}

#[test]
fn right_handed_applies_no_mirror() {
    let data = two_roots_and_a_child(Handedness::RightHanded);
    let mut c = AnimationController::new(Arc::new(data.clone())).unwrap();
    c.tick(0.0, &mut RecordingSink::default());
    let w = flat(c.world_matrices());
    let n = &data.nodes;
    assert_mat_close(
        &w[0..16],
        &compose_f32_in(n[0].translation, n[0].rotation, n[0].scale),
        1e-6,
        "root a",
    );
    assert_eq!(&w[12..15], &[1.0, 2.0, 3.0]);
}

#[test]
fn left_handed_world_is_the_mirror_times_right_handed_world_while_bones_agree() {
    // On an animated 40-joint rig at several times: every LH world matrix is H · the RH one,
    // and the bone matrices are identical, because invMeshWorld cancels the mirror.
    let mut lh = common::generated_rig(40, 3, 99);
    lh.handedness = Handedness::LeftHanded;
    let mut rh = lh.clone();
    rh.handedness = Handedness::RightHanded;
    let mut cl = AnimationController::new(Arc::new(lh)).unwrap();
    let mut cr = AnimationController::new(Arc::new(rh)).unwrap();
    for t in [0.0, 0.37, 1.1, 2.5] {
        let mut sl = RecordingSink::default();
        let mut sr = RecordingSink::default();
        cl.evaluate_at(Some(0), t, &mut sl).unwrap();
        cr.evaluate_at(Some(0), t, &mut sr).unwrap();
        for (node, (wl, wr)) in flat(cl.world_matrices())
            .chunks_exact(16)
            .zip(flat(cr.world_matrices()).chunks_exact(16))
            .enumerate()
        {
            let wr: common::M64 = std::array::from_fn(|i| f64::from(wr[i]));
            assert_mat_close(
                wl,
                &mul_f64(&MIRROR_X64, &wr),
                0.0,
                &format!("node {node} at {t}"),
            );
        }
        let diff = flat(&sl.bone_matrices[0])
            .iter()
            .zip(flat(&sr.bone_matrices[0]))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(
            diff < 1e-4,
            "bones differ by {diff} between LH and RH at t = {t}"
        );
        assert_eq!(sl.morph_weights, sr.morph_weights);
    }
}
