//! Up to four legs (of one character or several) solved side by side: the two-bone solve (as
//! `TwoBoneIk`'s f32 path solves a leg: weight 1, soften 1, no twist, the knee kept on its
//! side) and the ankle's turn onto the ground, one leg per SIMD lane.
//!
//! A lane the four-lane solve cannot take exactly as the f32 path would (a leg bent by less
//! than the f32 path's bound before or after, a badly conditioned joint frame, an arc past a
//! quarter turn, which the f32 path takes in f64, or anything not finite) is answered `None`
//! and solved by the scalar path ([`super::leg::solve_leg`]), which also reports its errors.
//! The lanes round differently from the scalar path (the reach rule in f32, inverses applied
//! as adjugate rows), within the solve's tolerances (the foot placement tests hold both).

use glam::{BVec4A, Mat3A, Quat, Vec3A, Vec4};
use skel_math::lanes::{Quatx4, Vec3x4};

use super::lanes::{
    InverseRows, Mat3x4, cross, finite, finite3, length, quat_from_mat, rotate, turn_between,
};
use super::leg::knee_side;
use super::placement::Leg;
use super::state::LegWork;
use crate::ik::BENT;

/// One leg's corrections: hip, knee and ankle, and whether the ankle reached its target.
pub(crate) type LegFix = (Quat, Quat, Quat, bool);

/// One leg in a lane: its joints, its frame's work, and its pelvis's move.
#[derive(Clone, Copy)]
pub(crate) struct LegLane<'a> {
    pub(crate) leg: &'a Leg,
    pub(crate) work: &'a LegWork,
    pub(crate) shift: Vec3A,
}

/// Solves the legs of `lanes` (from one character or several); answer `i` is lane `i`'s,
/// `None` for an empty lane and where the scalar path must solve the leg.
#[inline(always)]
pub(crate) fn solve_legs(lanes: &[Option<LegLane<'_>>; 4]) -> [Option<LegFix>; 4] {
    // Empty lanes repeat the first full one (finite numbers; their answers are dropped).
    let Some(first) = lanes.iter().flatten().next() else {
        return [None; 4];
    };
    let pick = |i: usize| lanes[i].as_ref().unwrap_or(first);
    let at = [pick(0), pick(1), pick(2), pick(3)];
    let shift = gather(&at, |l| l.shift);
    let hip_t = gather(&at, |l| l.work.hip.translation) + shift;
    let knee_t = gather(&at, |l| l.work.knee.translation) + shift;
    let ankle_t = gather(&at, |l| l.work.ankle.translation) + shift;
    let hip = gather_m3(&at, |l| l.work.hip.matrix3);
    let knee = gather_m3(&at, |l| l.work.knee.matrix3);
    let target = gather(&at, |l| l.work.target);
    let mid_axis = gather(&at, |l| l.leg.bend_axis.map_or(Vec3A::ZERO, Vec3A::from));

    // The joint frames' inverses, conditioned as the f32 path requires.
    let (hip_inv, hip_det) = InverseRows::of(&hip);
    let (knee_inv, knee_det) = InverseRows::of(&knee);
    let mut ok = conditioned(&hip, hip_det) & conditioned(&knee, knee_det);

    // The triangle at the knee, in the hip's units.
    let mid_ss = hip_inv.mul_vec(knee_t - hip_t);
    let end_ss = hip_inv.mul_vec(ankle_t - hip_t);
    let (p, q) = (-mid_ss, end_ss - mid_ss);
    let (a, b) = (length(p), length(q));
    let chain = a + b;
    let tiny = Vec4::splat(1e-6) * chain;
    let far = target.dot(target).max(hip_t.dot(hip_t));
    ok &= a.cmpgt(tiny) & b.cmpgt(tiny) & chain.cmplt(Vec4::splat(1e15));
    ok &= far.cmplt(Vec4::splat(1e30));
    let ab = a * b;
    let sin_now = length(cross(p, q)) / ab;
    ok &= sin_now.cmpgt(Vec4::splat(BENT));
    let cos_now = (p.dot(q) / ab).clamp(Vec4::NEG_ONE, Vec4::ONE);

    // The hinge in knee space, turned to the rest pose's side.
    let u = knee_inv.mul_vec(hip_t - knee_t);
    let v = knee_inv.mul_vec(ankle_t - knee_t);
    let normal_raw = cross(u, v);
    let normal_len = length(normal_raw);
    ok &= normal_len.cmpgt(Vec4::ZERO) & normal_len.cmplt(Vec4::INFINITY);
    let normal = normal_raw * (Vec4::ONE / normal_len);
    let flip = mid_axis.dot(normal).cmplt(Vec4::ZERO);
    let sign = Vec4::select(flip, Vec4::NEG_ONE, Vec4::ONE);
    let axis = normal * sign;
    let now = (cos_now, sin_now * sign);

    // Reach (soften 1: the target itself, held between the bones' difference and their sum).
    let target_ss = hip_inv.mul_vec(target - hip_t);
    let dist = length(target_ss);
    let shortest = (a - b).abs();
    let reached = dist.cmple(chain) & dist.cmpgt(shortest);
    let reach = Vec4::select(
        dist.cmpgt(chain),
        chain,
        Vec4::select(
            dist.cmpgt(Vec4::ZERO) & dist.cmplt(shortest),
            shortest,
            dist,
        ),
    );
    let scale = Vec4::select(dist.cmpgt(Vec4::ZERO), reach / dist, Vec4::ONE);
    let aim = target_ss * scale;
    let aim_len = length(aim);
    let cos_goal = ((a * a + b * b - aim_len * aim_len) / (Vec4::splat(2.0) * ab))
        .clamp(Vec4::NEG_ONE, Vec4::ONE);
    let sin_goal =
        crate::sample::lane_bits::sqrt((Vec4::ONE - cos_goal * cos_goal).max(Vec4::ZERO));
    ok &= sin_goal.cmpgt(Vec4::splat(BENT));
    let mid_rot = turn_between(axis, now, (cos_goal, sin_goal));

    // The hip's turn: the solved ankle onto the aim, then the knee's plane onto the pole's.
    let lower_ss = hip_inv.mul_vec(knee.mul_vec(rotate(mid_rot, v)));
    let end_new = mid_ss + lower_ss;
    let end_len = length(end_new);
    let turns = aim_len.cmpgt(tiny) & end_len.cmpgt(tiny);
    let dir = aim * (Vec4::ONE / aim_len);
    let from = end_new * (Vec4::ONE / end_len);
    let c = from.dot(dir);
    // Past a quarter turn the f32 path takes the arc in f64.
    ok &= !turns | c.cmpgt(Vec4::splat(-0.5));
    let arc_v = cross(from, dir);
    let onto = Quatx4::new(arc_v.x, arc_v.y, arc_v.z, Vec4::ONE + c).normalize_or(Quatx4::IDENTITY);
    let pole = gather(&at, |l| {
        let w = l.work;
        knee_side(w.hip.translation, w.knee.translation, w.ankle.translation)
    });
    let pole_ss = hip_inv.mul_vec(pole);
    let relative_axis = hip_inv.mul_vec(knee.mul_vec(axis));
    let signs = hip_det.signum() * knee_det.signum();
    let hinge = rotate(onto, relative_axis) * signs;
    let pole_normal = cross(dir, pole_ss);
    let plane = turn_about(dir, hinge, pole_normal);
    let start_rot = Quatx4::select(turns, plane * onto, Quatx4::IDENTITY);
    let (start_rot, start_ok) = unit(start_rot);
    let (mid_rot, mid_ok) = unit(mid_rot);
    ok &= start_ok & mid_ok;

    // The ankle's world frame after the solve, and the turn onto the ground's.
    let knee_local = gather_m3(&at, |l| l.work.knee_local.matrix3);
    let ankle_local = gather_m3(&at, |l| l.work.ankle_local.matrix3);
    let ankle_world = gather_m3(&at, |l| l.work.ankle.matrix3);
    let align = gather_quat(&at, |l| l.work.align);
    let now_m = hip
        .mul(&Mat3x4::from_quat(start_rot))
        .mul(&knee_local)
        .mul(&Mat3x4::from_quat(mid_rot))
        .mul(&ankle_local);
    let want = Mat3x4::from_quat(align).mul(&ankle_world);
    let (now_inv, now_det) = InverseRows::of(&now_m);
    let scale3 = length(now_m.c[0]) * length(now_m.c[1]) * length(now_m.c[2]);
    ok &= now_det.abs().cmpgt(Vec4::splat(1e-6) * scale3) & scale3.cmpgt(Vec4::ZERO);
    ok &= now_det.cmplt(Vec4::INFINITY) & now_det.cmpgt(Vec4::NEG_INFINITY);
    let turn = now_inv.mul_mat(&want);
    let unit_cols = Mat3x4 {
        c: [
            turn.c[0] * (Vec4::ONE / length(turn.c[0])),
            turn.c[1] * (Vec4::ONE / length(turn.c[1])),
            turn.c[2] * (Vec4::ONE / length(turn.c[2])),
        ],
    };
    ok &= finite3(unit_cols.c[0]) & finite3(unit_cols.c[1]) & finite3(unit_cols.c[2]);
    let fix = quat_from_mat(&unit_cols).normalize_or(Quatx4::new(
        Vec4::NAN,
        Vec4::NAN,
        Vec4::NAN,
        Vec4::NAN,
    ));
    ok &= finite3(Vec3x4::new(fix.x, fix.y, fix.z)) & finite(fix.w);

    let ok = ok.bitmask();
    let reached = reached.bitmask();
    let answer = |i: usize| {
        (lanes[i].is_some() && ok & (1 << i) != 0).then(|| {
            (
                lane(start_rot, i),
                lane(mid_rot, i),
                lane(fix, i),
                reached & (1 << i) != 0,
            )
        })
    };
    [answer(0), answer(1), answer(2), answer(3)]
}

/// `f` of each lane's leg (`at[i]`: lane `i`, or the stand-in for an empty one).
#[inline(always)]
fn gather(at: &[&LegLane<'_>; 4], f: impl Fn(&LegLane<'_>) -> Vec3A) -> Vec3x4 {
    let (a, b, c, d) = (f(at[0]), f(at[1]), f(at[2]), f(at[3]));
    Vec3x4::new(
        Vec4::new(a.x, b.x, c.x, d.x),
        Vec4::new(a.y, b.y, c.y, d.y),
        Vec4::new(a.z, b.z, c.z, d.z),
    )
}

/// The 3×3 matrix `f` of each lane's leg.
#[inline(always)]
fn gather_m3(at: &[&LegLane<'_>; 4], f: impl Fn(&LegLane<'_>) -> Mat3A) -> Mat3x4 {
    let (a, b, c, d) = (f(at[0]), f(at[1]), f(at[2]), f(at[3]));
    let column = |k: usize| {
        let (a, b, c, d) = (a.col(k), b.col(k), c.col(k), d.col(k));
        Vec3x4::new(
            Vec4::new(a.x, b.x, c.x, d.x),
            Vec4::new(a.y, b.y, c.y, d.y),
            Vec4::new(a.z, b.z, c.z, d.z),
        )
    };
    Mat3x4 {
        c: [column(0), column(1), column(2)],
    }
}

/// The quaternion `f` of each lane's leg.
#[inline(always)]
fn gather_quat(at: &[&LegLane<'_>; 4], f: impl Fn(&LegLane<'_>) -> Quat) -> Quatx4 {
    let (a, b, c, d) = (
        Vec4::from(f(at[0])),
        Vec4::from(f(at[1])),
        Vec4::from(f(at[2])),
        Vec4::from(f(at[3])),
    );
    Quatx4::new(
        Vec4::new(a.x, b.x, c.x, d.x),
        Vec4::new(a.y, b.y, c.y, d.y),
        Vec4::new(a.z, b.z, c.z, d.z),
        Vec4::new(a.w, b.w, c.w, d.w),
    )
}

/// Lane `i` of `q`.
#[inline(always)]
fn lane(q: Quatx4, i: usize) -> Quat {
    let pick = |v: Vec4| match i {
        0 => v.x,
        1 => v.y,
        2 => v.z,
        _ => v.w,
    };
    Quat::from_xyzw(pick(q.x), pick(q.y), pick(q.z), pick(q.w))
}

/// Whether each lane's frame is finite and its determinant above 1e-4 of its columns'
/// lengths' product (the f32 path's test).
#[inline(always)]
fn conditioned(m: &Mat3x4, det: Vec4) -> BVec4A {
    let [x, y, z] = m.c;
    let scale2 = x.dot(x) * y.dot(y) * z.dot(z);
    let finite = finite3(x) & finite3(y) & finite3(z);
    finite & (det * det).cmpgt(Vec4::splat(1e-8) * scale2)
}

/// Each lane with w ≥ 0, normalised, and whether it is finite.
#[inline(always)]
fn unit(q: Quatx4) -> (Quatx4, BVec4A) {
    let q = Quatx4::select(q.w.cmplt(Vec4::ZERO), -q, q);
    let len = crate::sample::lane_bits::sqrt(q.length_squared());
    let q = q * (Vec4::ONE / len);
    let finite = finite3(Vec3x4::new(q.x, q.y, q.z)) & finite(q.w);
    (q, finite)
}

/// The turn about unit `axis` taking `from`'s part across it onto `to`'s, the identity where
/// either part is too short to have a direction (the f32 path's `turn_about`).
#[inline(always)]
fn turn_about(axis: Vec3x4, from: Vec3x4, to: Vec3x4) -> Quatx4 {
    let f = from - axis * axis.dot(from);
    let t = to - axis * axis.dot(to);
    let (ff, tt) = (length(f), length(t));
    let ok = ff.cmpgt(Vec4::splat(1e-6) * length(from)) & tt.cmpgt(Vec4::splat(1e-6) * length(to));
    let norm = ff * tt;
    let turn = turn_between(
        axis,
        (Vec4::ONE, Vec4::ZERO),
        (f.dot(t) / norm, axis.dot(cross(f, t)) / norm),
    );
    Quatx4::select(ok, turn, Quatx4::IDENTITY)
}
