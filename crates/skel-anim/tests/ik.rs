//! IK solvers against an f64 reference of their geometric conditions: random chains (random
//! rest transforms, bone lengths from equal to 100:1, a root frame that is rotated, uniformly
//! scaled and mirrored or not), random targets inside and outside reach, random poles.
//! Corrections are applied to an f32 TRS buffer with the public apply functions and the
//! positions recomputed in f64 from that buffer.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use skel_anim::{AimIk, R_OFF, S_OFF, T_OFF, TRS_STRIDE, TwoBoneIk, TwoBoneSolution};

/// Node 0 the root frame (rotation, uniform scale, maybe a mirror), 1 start, 2 mid, 3 end.
#[derive(Debug, Clone)]
struct Chain {
    trs: Vec<f32>,
    upper: f64,
    lower: f64,
}

fn write(trs: &mut [f32], node: usize, t: Vec3, r: Quat, s: Vec3) {
    let rec = &mut trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    rec[T_OFF..T_OFF + 3].copy_from_slice(&t.to_array());
    rec[R_OFF..R_OFF + 4].copy_from_slice(&r.normalize().to_array());
    rec[S_OFF..S_OFF + 3].copy_from_slice(&s.to_array());
}

fn read(trs: &[f32], node: usize) -> (Vec3, Quat, Vec3) {
    let rec = &trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    (
        Vec3::from_slice(&rec[T_OFF..]),
        Quat::from_slice(&rec[R_OFF..]),
        Vec3::from_slice(&rec[S_OFF..]),
    )
}

/// Model matrices in f32, as a pose pipeline computes them (parent · local down the chain).
fn models_f32(trs: &[f32], count: usize) -> Vec<Affine3A> {
    let mut out: Vec<Affine3A> = Vec::new();
    for node in 0..count {
        let (t, r, s) = read(trs, node);
        let local = Affine3A::from_scale_rotation_translation(s, r, t);
        out.push(out.last().map_or(local, |p| *p * local));
    }
    out
}

/// The f64 reference: model matrices recomputed from the f32 records.
fn models_f64(trs: &[f32], count: usize) -> Vec<DAffine3> {
    let mut out: Vec<DAffine3> = Vec::new();
    for node in 0..count {
        let (t, r, s) = read(trs, node);
        let local = DAffine3::from_scale_rotation_translation(
            s.as_dvec3(),
            r.as_dquat().normalize(),
            t.as_dvec3(),
        );
        out.push(out.last().map_or(local, |p| *p * local));
    }
    out
}

fn quat(v: [f64; 4]) -> Quat {
    let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]);
    if q.length() < 1e-3 {
        Quat::IDENTITY
    } else {
        q.normalize().as_quat()
    }
}

fn unit(v: [f64; 3]) -> DVec3 {
    DVec3::from_array(v).try_normalize().unwrap_or(DVec3::X)
}

prop_compose! {
    /// Bone lengths 0.05..5 each (so up to 100:1), random rotations everywhere, a root frame
    /// translated within the chain's size, scaled 0.5..2 and mirrored half the time.
    fn chain()(
        root_r in prop::array::uniform4(-1.0..1.0f64),
        root_t in prop::array::uniform3(-1.0..1.0f64),
        scale in 0.5..2.0f64,
        mirror in any::<bool>(),
        start_r in prop::array::uniform4(-1.0..1.0f64),
        start_t in prop::array::uniform3(-1.0..1.0f64),
        mid_r in prop::array::uniform4(-1.0..1.0f64),
        mid_dir in prop::array::uniform3(-1.0..1.0f64),
        end_r in prop::array::uniform4(-1.0..1.0f64),
        end_dir in prop::array::uniform3(-1.0..1.0f64),
        log_upper in (0.05f64).ln()..(5.0f64).ln(),
        log_lower in (0.05f64).ln()..(5.0f64).ln(),
    ) -> Chain {
        let (upper, lower) = (log_upper.exp(), log_lower.exp());
        let size = upper + lower;
        let mut trs = vec![0.0; 4 * TRS_STRIDE];
        let s = if mirror { Vec3::new(-1.0, 1.0, 1.0) } else { Vec3::ONE } * scale as f32;
        write(&mut trs, 0, (DVec3::from_array(root_t) * size).as_vec3(), quat(root_r), s);
        write(&mut trs, 1, (DVec3::from_array(start_t) * size).as_vec3(), quat(start_r), Vec3::ONE);
        write(&mut trs, 2, (unit(mid_dir) * upper).as_vec3(), quat(mid_r), Vec3::ONE);
        write(&mut trs, 3, (unit(end_dir) * lower).as_vec3(), quat(end_r), Vec3::ONE);
        // Lengths as the f32 records hold them, in model units.
        let m = models_f64(&trs, 4);
        let upper = (m[2].translation - m[1].translation).length();
        let lower = (m[3].translation - m[2].translation).length();
        Chain { trs, upper, lower }
    }
}

/// A target at `reach` (a fraction of the way from |a - b| to a + b when below 1, a multiple
/// of a + b when above) in direction `dir` from the start joint, and a pole at least ~11°
/// away from start → target.
fn target_and_pole(c: &Chain, dir: [f64; 3], reach: f64, pole: [f64; 3]) -> Option<(Vec3, Vec3)> {
    let m = models_f64(&c.trs, 4);
    let (a, b) = (c.upper, c.lower);
    let dist = if reach <= 1.0 {
        (a - b).abs() + reach * (a + b - (a - b).abs())
    } else {
        reach * (a + b)
    };
    // At least 5 % of the chain from the start joint: closer, the start → target axis (and so
    // the pole's half-plane) is set by a vector shorter than the f32 pose's rounding can place
    // (fresh runs drew targets at 0.08 % and 1 %: the knee was up to 6e-5 of the chain off a
    // plane whose axis was known to 1e-4 rad). Folding onto the start joint itself is tested
    // in `ik_cases.rs`.
    let dist = dist.max(0.05 * (a + b));
    let d = unit(dir);
    let p = unit(pole);
    if d.cross(p).length() < 0.2 {
        return None;
    }
    Some(((m[1].translation + d * dist).as_vec3(), p.as_vec3()))
}

fn solve_and_apply(c: &Chain, ik: &TwoBoneIk) -> (TwoBoneSolution, Vec<f32>) {
    let m = models_f32(&c.trs, 4);
    let s = ik.solve(&m[1], &m[2], &m[3]).unwrap();
    let mut trs = c.trs.clone();
    s.apply(&mut trs, 1, 2).unwrap();
    (s, trs)
}

/// Signed out-of-plane distance and signed in-plane side of `point` relative to the half-plane
/// from `origin` spanned by `axis` and `pole` (side > 0: the pole's side).
fn half_plane(origin: DVec3, axis: DVec3, pole: DVec3, point: DVec3) -> (f64, f64) {
    let t = axis.normalize();
    let p = (pole - t * t.dot(pole)).normalize();
    let v = point - origin;
    (t.cross(p).dot(v), p.dot(v))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Reachable target, weight 1, soften 1: end on target, lengths kept, knee on the pole's
    /// half-plane, `reached`.
    #[test]
    fn two_bone_reaches(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                        reach in 0.02..0.98f64, pole in prop::array::uniform3(-1.0..1.0f64)) {
        let Some((target, pole)) = target_and_pole(&c, dir, reach, pole) else { return Ok(()) };
        let ik = TwoBoneIk { target, pole, ..TwoBoneIk::default() };
        let (s, trs) = solve_and_apply(&c, &ik);
        prop_assert!(s.reached);
        let m = models_f64(&trs, 4);
        let (start, mid, end) = (m[1].translation, m[2].translation, m[3].translation);
        let len = c.upper + c.lower;
        let miss = (end - target.as_dvec3()).length() / len;
        prop_assert!(miss <= 1e-5, "end misses the target by {miss} of the chain");
        prop_assert!(((mid - start).length() - c.upper).abs() <= 1e-6 * c.upper);
        prop_assert!(((end - mid).length() - c.lower).abs() <= 1e-6 * c.lower);
        let (off, side) = half_plane(start, target.as_dvec3() - start, pole.as_dvec3(), mid);
        prop_assert!(off.abs() <= 1e-5 * len, "knee {off} out of the pole plane");
        prop_assert!(side >= -1e-5 * len, "knee {side} on the wrong side of the pole");
    }

    /// Out of reach: the chain straightens towards the target, `reached` is false.
    #[test]
    fn two_bone_straightens(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                            reach in 1.01..4.0f64, pole in prop::array::uniform3(-1.0..1.0f64)) {
        let Some((target, pole)) = target_and_pole(&c, dir, reach, pole) else { return Ok(()) };
        let ik = TwoBoneIk { target, pole, ..TwoBoneIk::default() };
        let (s, trs) = solve_and_apply(&c, &ik);
        prop_assert!(!s.reached);
        let m = models_f64(&trs, 4);
        let start = m[1].translation;
        let len = c.upper + c.lower;
        let toward = (target.as_dvec3() - start).normalize();
        let straight = start + toward * len;
        let miss = (m[3].translation - straight).length() / len;
        prop_assert!(miss <= 1e-5, "straight end off by {miss} of the chain");
        let mid_on_line = start + toward * c.upper;
        prop_assert!((m[2].translation - mid_on_line).length() <= 1e-5 * len);
    }

    /// Weight 0 changes nothing; with soften 1 the end-to-target distance never grows as the
    /// weight rises from 0 to 1 (softening aims at a point short of the target: the distance
    /// to the target itself may then dip first); weights outside 0..=1 are clamped.
    #[test]
    fn two_bone_weight(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                       reach in 0.02..2.0f64, pole in prop::array::uniform3(-1.0..1.0f64),
                       twist in -3.0..3.0f32, soften in 0.0..1.0f32) {
        let Some((target, pole)) = target_and_pole(&c, dir, reach, pole) else { return Ok(()) };
        let base = TwoBoneIk { target, pole, twist, soften, ..TwoBoneIk::default() };
        let zero = TwoBoneIk { weight: 0.0, ..base };
        let (s, trs) = solve_and_apply(&c, &zero);
        prop_assert_eq!(s, TwoBoneSolution::IDENTITY);
        let before = models_f64(&c.trs, 4);
        let after = models_f64(&trs, 4);
        for node in 1..4 {
            prop_assert!((after[node].translation - before[node].translation).length()
                <= 1e-6 * (c.upper + c.lower));
        }
        let len = c.upper + c.lower;
        let mut last = f64::INFINITY;
        for step in 0..=20 {
            let weight = step as f32 / 20.0;
            let (_, trs) = solve_and_apply(&c, &TwoBoneIk { weight, soften: 1.0, ..base });
            let d = (models_f64(&trs, 4)[3].translation - target.as_dvec3()).length();
            prop_assert!(d <= last + 1e-5 * len, "weight {weight}: distance {d} after {last}");
            last = d;
        }
        let over = solve_and_apply(&c, &TwoBoneIk { weight: 7.0, ..base }).0;
        prop_assert_eq!(over, solve_and_apply(&c, &base).0);
        let under = solve_and_apply(&c, &TwoBoneIk { weight: -3.0, ..base }).0;
        prop_assert_eq!(under, TwoBoneSolution::IDENTITY);
    }

    /// Soften < 1: the end stays on the start → target ray, never beyond the target nor the
    /// chain's length, and the knee still on the pole's side.
    #[test]
    fn two_bone_soften(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                       reach in 0.5..3.0f64, pole in prop::array::uniform3(-1.0..1.0f64),
                       soften in 0.0..1.0f32) {
        let Some((target, pole)) = target_and_pole(&c, dir, reach, pole) else { return Ok(()) };
        let ik = TwoBoneIk { target, pole, soften, ..TwoBoneIk::default() };
        let (_, trs) = solve_and_apply(&c, &ik);
        let m = models_f64(&trs, 4);
        let (start, end) = (m[1].translation, m[3].translation);
        let len = c.upper + c.lower;
        let toward = target.as_dvec3() - start;
        let reach_now = (end - start).dot(toward.normalize());
        prop_assert!((end - start - toward.normalize() * reach_now).length() <= 1e-5 * len);
        prop_assert!(reach_now <= toward.length() + 1e-5 * len);
        prop_assert!(reach_now <= len * (1.0 + 1e-6));
    }

    /// The same chain posed in two model frames related by a random affine map (rotation,
    /// uniform scale, mirror, translation), target and pole mapped with it, twist sign flipped
    /// with a mirror: same two-bone and aim corrections.
    #[test]
    fn two_bone_any_frame(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                          reach in 0.02..2.0f64, pole in prop::array::uniform3(-1.0..1.0f64),
                          b_r in prop::array::uniform4(-1.0..1.0f64),
                          b_t in prop::array::uniform3(-1.0..1.0f64),
                          b_s in 0.5..2.0f64, b_mirror in any::<bool>()) {
        let Some((target, pole)) = target_and_pole(&c, dir, reach, pole) else { return Ok(()) };
        let len = (c.upper + c.lower) as f32;
        let s = if b_mirror { Vec3::new(1.0, 1.0, -1.0) } else { Vec3::ONE } * b_s as f32;
        let b = Affine3A::from_scale_rotation_translation(s, quat(b_r), Vec3::from_array(b_t.map(|x| x as f32)) * len);
        let m = models_f32(&c.trs, 4);
        let ik = TwoBoneIk { target, pole, twist: 0.3, ..TwoBoneIk::default() };
        // Twist is right-handed in the model frame: a mirrored frame turns the other way.
        let twist = ik.twist * b.matrix3.determinant().signum();
        let ik_b = TwoBoneIk { target: b.transform_point3(target), pole: b.transform_vector3(pole), twist, ..ik };
        let s1 = ik.solve(&m[1], &m[2], &m[3]).unwrap();
        let s2 = ik_b.solve(&(b * m[1]), &(b * m[2]), &(b * m[3])).unwrap();
        let aim = AimIk { target, pole, twist: 0.3, up: Vec3::X, offset: Vec3::new(0.0, 0.01, 0.0), ..AimIk::default() };
        let aim_b = AimIk { target: ik_b.target, pole: ik_b.pole, twist, ..aim };
        let a1 = aim.solve(&m[3]).unwrap().correction;
        let a2 = aim_b.solve(&(b * m[3])).unwrap().correction;
        for (q1, q2) in [(s1.start_correction, s2.start_correction), (s1.mid_correction, s2.mid_correction), (a1, a2)] {
            prop_assert!(q1.dot(q2).abs() >= 1.0 - 1e-6, "{q1:?} vs {q2:?}");
        }
    }

    /// Aim with weight 1: forward at the target within 1e-4 rad, up in the pole's half-plane
    /// about the aiming line; with an offset, the offset line passes through the target.
    #[test]
    fn aim_points(c in chain(), target_dir in prop::array::uniform3(-1.0..1.0f64),
                  dist in 0.1..10.0f64, fwd in prop::array::uniform3(-1.0..1.0f64),
                  up in prop::array::uniform3(-1.0..1.0f64), pole in prop::array::uniform3(-1.0..1.0f64),
                  offset in prop::array::uniform3(-0.05..0.05f64), use_offset in any::<bool>()) {
        let (fwd, up, pole) = (unit(fwd), unit(up), unit(pole));
        let dir = unit(target_dir);
        if fwd.cross(up).length() < 0.2 || dir.cross(pole).length() < 0.2 {
            return Ok(());
        }
        let m = models_f32(&c.trs, 3);
        let node = m[2].translation.as_dvec3();
        let target = node + dir * dist;
        let offset = if use_offset { DVec3::from_array(offset) } else { DVec3::ZERO };
        // A target within reach of the offset itself has no aiming line through it: the
        // documented degenerate case (see `AimIk`), tested on its own in `ik_cases.rs`.
        if m[2].transform_vector3(offset.as_vec3()).length() as f64 * 2.0 >= dist {
            return Ok(());
        }
        let aim = AimIk {
            target: target.as_vec3(), forward: fwd.as_vec3(), up: up.as_vec3(),
            pole: pole.as_vec3(), offset: offset.as_vec3(), ..AimIk::default()
        };
        let s = aim.solve(&m[2]).unwrap();
        prop_assert!(s.reached);
        let mut trs = c.trs.clone();
        s.apply(&mut trs, 2).unwrap();
        let node_m = models_f64(&trs, 3)[2];
        let f = node_m.transform_vector3(fwd.as_vec3().as_dvec3());
        let o = node_m.transform_point3(offset.as_vec3().as_dvec3());
        if use_offset {
            let miss = (target - o).reject_from(f).length();
            // Relative to the larger of the target's distance and the rig's unit size: the pose is
            // f32, so positions near 1 carry ~1e-7 of rounding whatever the target's distance.
            prop_assert!(miss <= 1e-5 * dist.max(1.0), "offset line misses by {miss}");
            prop_assert!((target - o).dot(f) > 0.0);
        } else {
            let angle = f.angle_between(target - node);
            prop_assert!(angle <= 1e-4, "forward {angle} rad off the target");
            let u = node_m.transform_vector3(up.as_vec3().as_dvec3()).normalize();
            let (off, side) = half_plane(DVec3::ZERO, target - node, pole, u);
            prop_assert!(off.abs() <= 1e-5 && side >= 0.0, "up off the pole plane: {off}, {side}");
        }
        let zero = AimIk { weight: 0.0, ..aim }.solve(&m[2]).unwrap();
        prop_assert_eq!(zero.correction, Quat::IDENTITY);
    }

    /// Garbage in (NaN, infinities, zeros, huge values, weights outside 0..=1): a typed error
    /// or a finite result, never a panic or NaN in the pose.
    #[test]
    fn degenerate_inputs_stay_finite(c in chain(),
                                     target in prop::array::uniform3(odd_float()),
                                     pole in prop::array::uniform3(odd_float()),
                                     axis in prop::option::of(prop::array::uniform3(odd_float())),
                                     scalars in prop::array::uniform3(odd_float()),
                                     collapse in 0..4usize) {
        let mut trs = c.trs.clone();
        if collapse == 1 {
            trs[3 * TRS_STRIDE + T_OFF..3 * TRS_STRIDE + T_OFF + 3].fill(0.0); // zero lower bone
        } else if collapse == 2 {
            trs[S_OFF..S_OFF + 3].fill(0.0); // root scaled to nothing
        }
        let m = models_f32(&trs, 4);
        let ik = TwoBoneIk {
            target: Vec3::from_array(target), pole: Vec3::from_array(pole),
            mid_axis: axis.map(Vec3::from_array),
            twist: scalars[0], soften: scalars[1], weight: scalars[2],
        };
        if let Ok(s) = ik.solve(&m[1], &m[2], &m[3]) {
            prop_assert!(s.start_correction.is_finite() && s.mid_correction.is_finite());
            s.apply(&mut trs, 1, 2).unwrap();
            prop_assert!(trs.iter().all(|x| x.is_finite()));
        }
        let aim = AimIk {
            target: Vec3::from_array(target), pole: Vec3::from_array(pole),
            forward: axis.map_or(Vec3::Z, Vec3::from_array), twist: scalars[0],
            weight: scalars[2], ..AimIk::default()
        };
        if let Ok(s) = aim.solve(&m[2]) {
            prop_assert!(s.correction.is_finite() && s.correction.is_normalized());
        }
    }
}

fn odd_float() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => -3.0..3.0f32,
        1 => Just(0.0f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(-1e30f32),
        1 => Just(1e-30f32),
    ]
}

/// The worst errors over 2048 random reachable chains and aims, printed for the record
/// (`cargo test -p skel-anim --test ik worst -- --nocapture`) and held to the same bounds.
#[test]
fn worst_errors_over_many_chains() {
    let mut runner = TestRunner::new(Config {
        cases: 2048,
        ..Config::default()
    });
    let worst = std::cell::Cell::new([0.0_f64; 4]);
    let strategy = (
        chain(),
        prop::array::uniform3(-1.0..1.0f64),
        0.0..1.0f64,
        prop::array::uniform3(-1.0..1.0f64),
        prop::array::uniform3(-1.0..1.0f64),
    );
    runner
        .run(&strategy, |(c, dir, reach, pole, fwd)| {
            let Some((target, pole)) = target_and_pole(&c, dir, reach, pole) else {
                return Ok(());
            };
            let ik = TwoBoneIk {
                target,
                pole,
                ..TwoBoneIk::default()
            };
            let (_, trs) = solve_and_apply(&c, &ik);
            let m = models_f64(&trs, 4);
            let len = c.upper + c.lower;
            let (start, mid, end) = (m[1].translation, m[2].translation, m[3].translation);
            let reach_miss = (end - target.as_dvec3()).length() / len;
            let lengths = ((mid - start).length() / c.upper - 1.0)
                .abs()
                .max(((end - mid).length() / c.lower - 1.0).abs());
            let (off, side) = half_plane(start, target.as_dvec3() - start, pole.as_dvec3(), mid);
            let plane = off.abs().max(-side) / len;
            let fwd = unit(fwd).as_vec3();
            let models = models_f32(&c.trs, 3);
            let aim = AimIk {
                target,
                forward: fwd,
                up: fwd.any_orthonormal_vector(),
                ..AimIk::default()
            };
            let s = aim.solve(&models[2]).unwrap();
            let mut trs = c.trs.clone();
            s.apply(&mut trs, 2).unwrap();
            let node = models_f64(&trs, 3)[2];
            let angle = node
                .transform_vector3(fwd.as_dvec3())
                .angle_between(target.as_dvec3() - node.translation);
            let mut w = worst.get();
            for (slot, v) in w.iter_mut().zip([reach_miss, lengths, plane, angle]) {
                *slot = slot.max(v);
            }
            worst.set(w);
            // The issue bounds reach (1e-5) and lengths (1e-6); the knee's distance from the pole's
            // half-plane gets 1e-4 of the chain (its axis comes from f32 positions).
            prop_assert!(reach_miss <= 1e-5 && lengths <= 1e-6 && plane <= 1e-4 && angle <= 1e-4);
            Ok(())
        })
        .unwrap();
    let [reach, lengths, plane, angle] = worst.get();
    eprintln!(
        "2048 chains: worst reach miss {reach:.2e} of the chain, bone length change {lengths:.2e}, \
         knee off its half-plane {plane:.2e} of the chain, aim angle {angle:.2e} rad"
    );
}
