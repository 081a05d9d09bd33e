//! Look-at spread over several joints against an f64 reference: random lists of 1 to 5 joints
//! (random rest transforms, a root frame rotated, scaled and mirrored or not), random shares
//! and limits, eye offsets and targets. The reference turns model-frame points and directions
//! about each joint's position (no local frames, no code shared with the solver); the solver's
//! corrections are applied to an f32 TRS buffer and the head re-read in f64 from it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;
use skel_anim::ik::{JointShare, LookAtIk};
use skel_anim::{AnimError, R_OFF, S_OFF, T_OFF, TRS_STRIDE, apply_correction};

fn quat(v: [f64; 4]) -> Quat {
    let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]);
    if q.length() < 1e-3 {
        Quat::IDENTITY
    } else {
        q.normalize().as_quat()
    }
}

fn write(trs: &mut [f32], node: usize, t: Vec3, r: Quat, s: Vec3) {
    let rec = &mut trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    rec[T_OFF..T_OFF + 3].copy_from_slice(&t.to_array());
    rec[R_OFF..R_OFF + 4].copy_from_slice(&r.normalize().to_array());
    rec[S_OFF..S_OFF + 3].copy_from_slice(&s.to_array());
}

/// Model matrices (f32, as a pose computes them, or f64 from the f32 records) of nodes
/// `1..=n` below a root frame at node 0.
fn models(trs: &[f32], n: usize) -> (Vec<Affine3A>, Vec<DAffine3>) {
    let (mut f, mut d): (Vec<Affine3A>, Vec<DAffine3>) = (Vec::new(), Vec::new());
    for node in 0..=n {
        let rec = &trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
        let (t, r, s) = (
            Vec3::from_slice(&rec[T_OFF..]),
            Quat::from_slice(&rec[R_OFF..]),
            Vec3::from_slice(&rec[S_OFF..]),
        );
        let m = Affine3A::from_scale_rotation_translation(s, r, t);
        f.push(f.last().map_or(m, |p| *p * m));
        let m = DAffine3::from_scale_rotation_translation(
            s.as_dvec3(),
            r.as_dquat().normalize(),
            t.as_dvec3(),
        );
        d.push(d.last().map_or(m, |p| *p * m));
    }
    (f.split_off(1), d.split_off(1))
}

/// The reference: joint positions, the eye and the forward direction turned in the model frame.
fn reference(
    m: &[DAffine3],
    shares: &[JointShare],
    forward: DVec3,
    offset: DVec3,
    target: DVec3,
) -> (DVec3, DVec3) {
    let n = m.len();
    let mut joints: Vec<DVec3> = m.iter().map(|a| a.translation).collect();
    let head = m[n - 1];
    let mut eye = head.transform_point3(offset);
    let mut dir = head.transform_vector3(forward).normalize();
    let mut left: f64 = shares.iter().map(|s| f64::from(s.weight.max(0.0))).sum();
    for i in 0..n {
        let w = f64::from(shares[i].weight.max(0.0));
        let part = if left > 0.0 { w / left } else { 0.0 };
        left -= w;
        let pivot = joints[i];
        // The point of the eye's line as far from the pivot as the target: turned onto it.
        let (o, t) = (eye - pivot, target - pivot);
        let along = dir.dot(o);
        let across2 = (o.length_squared() - along * along).max(0.0);
        if t.length_squared() <= across2 || t.length() < 1e-9 {
            continue;
        }
        let from = o + dir * ((t.length_squared() - across2).sqrt() - along);
        let full = DQuat::from_rotation_arc(from.normalize(), t.normalize());
        let (axis, angle) = full.to_axis_angle();
        let q = DQuat::from_axis_angle(axis, (angle * part).min(f64::from(shares[i].max_angle)));
        for p in &mut joints[i + 1..] {
            *p = pivot + q * (*p - pivot);
        }
        eye = pivot + q * (eye - pivot);
        dir = q * dir;
    }
    (eye, dir)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The head's eye and forward axis after the solve match the reference's within 1e-4 (of
    /// the chain's size, and in radians); with no limit in the way and the target outside the
    /// eye's circle the head aims at the target; no joint turns past its limit nor, with
    /// weight 0, at all.
    #[test]
    fn look_at_matches_the_reference(n in 1usize..=5,
                                     rots in prop::collection::vec(prop::array::uniform4(-1.0..1.0f64), 6),
                                     offsets in prop::collection::vec(prop::array::uniform3(-0.5..0.5f32), 6),
                                     shares in prop::collection::vec((0.0..2.0f32, 0.0..3.0f32), 5),
                                     zero in prop::collection::vec(any::<bool>(), 5),
                                     eye in prop::array::uniform3(-0.1..0.1f32),
                                     forward in prop::array::uniform3(-1.0..1.0f32),
                                     target in prop::array::uniform3(-4.0..4.0f32),
                                     scale in 0.5..2.0f32, mirror in any::<bool>()) {
        let forward = Vec3::from_array(forward);
        prop_assume!(forward.length() > 0.1);
        let mut trs = vec![0.0; (n + 1) * TRS_STRIDE];
        let s = if mirror { Vec3::new(-scale, scale, scale) } else { Vec3::splat(scale) };
        write(&mut trs, 0, Vec3::ZERO, quat(rots[0]), s);
        for j in 1..=n {
            write(&mut trs, j, Vec3::from_array(offsets[j]) + Vec3::Y * 0.3, quat(rots[j]), Vec3::ONE);
        }
        let shares: Vec<JointShare> = (0..n)
            .map(|j| JointShare { weight: if zero[j] { 0.0 } else { shares[j].0 }, max_angle: shares[j].1 })
            .collect();
        let ik = LookAtIk {
            target: Vec3::from_array(target),
            forward,
            offset: Vec3::from_array(eye),
            weight: 1.0,
        };
        let (f32_models, f64_models) = models(&trs, n);
        let mut corrections = vec![Quat::NAN; n];
        let s = ik.solve(&f32_models, &shares, &mut corrections).unwrap();
        for (j, q) in corrections.iter().enumerate() {
            let angle = 2.0 * q.as_dquat().normalize().w.abs().min(1.0).acos();
            prop_assert!(angle <= f64::from(shares[j].max_angle) + 1e-5, "joint {j} turned {angle}");
            if shares[j].weight == 0.0 {
                prop_assert!(angle <= 1e-6, "joint {j} of weight 0 turned {angle}");
            }
            apply_correction(&mut trs, j + 1, *q).unwrap();
        }
        let (_, after) = models(&trs, n);
        let head = after[n - 1];
        let (eye_now, dir_now) = (head.transform_point3(ik.offset.as_dvec3()), head.transform_vector3(forward.as_dvec3()).normalize());
        let (eye_ref, dir_ref) = reference(&f64_models, &shares, forward.as_dvec3().normalize(), ik.offset.as_dvec3(), ik.target.as_dvec3());
        let size = scale as f64 * n as f64;
        prop_assert!((eye_now - eye_ref).length() <= 1e-4 * size, "eye {eye_now} vs {eye_ref}");
        prop_assert!(dir_now.angle_between(dir_ref) <= 1e-4, "forward {dir_now} vs {dir_ref}");
        if s.reached {
            let to = ik.target.as_dvec3() - eye_now;
            let miss = (to - dir_now * dir_now.dot(to)).length();
            prop_assert!(dir_now.dot(to) > 0.0 && miss <= 1e-3 * to.length(), "reached but misses by {miss}");
        }
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let m = [Affine3A::IDENTITY, Affine3A::from_translation(Vec3::Y)];
    let shares = [JointShare::default(); 2];
    let mut out = [Quat::IDENTITY; 2];
    let ik = LookAtIk::default();
    assert!(matches!(
        ik.solve(&[], &[], &mut []),
        Err(AnimError::IkJointCount { got: 0, .. })
    ));
    assert!(matches!(
        ik.solve(&m, &shares[..1], &mut out),
        Err(AnimError::LengthMismatch { .. })
    ));
    let nan = LookAtIk {
        target: Vec3::NAN,
        ..ik
    };
    assert!(matches!(
        nan.solve(&m, &shares, &mut out),
        Err(AnimError::NotFiniteValue {
            what: "look-at target",
            ..
        })
    ));
    let zero = LookAtIk {
        forward: Vec3::ZERO,
        ..ik
    };
    assert!(matches!(
        zero.solve(&m, &shares, &mut out),
        Err(AnimError::IkDegenerate { .. })
    ));
    // A target on the head: no direction, nothing turns.
    let on_head = LookAtIk {
        target: Vec3::Y,
        ..ik
    };
    let s = on_head.solve(&m, &shares, &mut out).unwrap();
    assert_eq!(out, [Quat::IDENTITY; 2]);
    assert!(!s.reached);
}
