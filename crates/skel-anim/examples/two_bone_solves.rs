//! skel's two-bone IK on a fixed 3-joint arm, as a plain program: the same workload as
//! ozz-animation's `IKTwoBoneJob` in `scripts/ozz/two_bone.cc`, measured side by side by
//! `scripts/ozz/two_bone.sh` (docs/bench-ik.md).
//!
//! ```text
//! two_bone_solves run WARMUP SOLVES
//! two_bone_solves check
//! ```
//!
//! `run`: WARMUP + SOLVES solves, the target cycling through the 8 of `TARGETS` (5 within
//! reach, 3 not), pole +z, the arm's hinge as mid axis, weight 1, soften 1, no twist. A solve
//! is what a user does: [`TwoBoneIk::solve`] from the rest pose's model matrices, then the two
//! corrections multiplied onto the start and mid joints' local rotations. Prints
//! `solves N ns_per_solve T reached R checksum C` (T: wall clock of the SOLVES timed solves;
//! R: how many of them reached; C: the sum of every corrected rotation's components, so that
//! nothing is optimised away).
//!
//! `check`: one solve per target from the rest pose, then the arm's model matrices again from
//! the corrected locals; one line per target, `target I reached R mid X Y Z end X Y Z`.

use std::hint::black_box;
use std::time::Instant;

use glam::{Affine3A, Quat, Vec3, Vec4};
use skel_anim::{TwoBoneIk, TwoBoneSolution};

/// The arm's local translations (the start joint's parent is the model frame): the shoulder,
/// an upper arm of 0.3 along x, a forearm of 0.25. Reach: 0.05 to 0.55 from the shoulder.
const TRANSLATIONS: [Vec3; 3] = [
    Vec3::new(0.2, 1.4, 0.1),
    Vec3::new(0.3, 0.0, 0.0),
    Vec3::new(0.25, 0.0, 0.0),
];

/// Model-space targets: the first 5 within reach, the last 3 beyond it.
const TARGETS: [Vec3; 8] = [
    Vec3::new(0.55, 1.5, 0.1),
    Vec3::new(0.4, 1.1, 0.3),
    Vec3::new(0.1, 1.7, 0.35),
    Vec3::new(0.3, 1.35, -0.2),
    Vec3::new(0.45, 1.6, 0.4),
    Vec3::new(1.0, 1.5, 0.1),
    Vec3::new(0.2, 0.6, 0.3),
    Vec3::new(-0.5, 1.9, -0.3),
];

/// The local rotations: the shoulder turned 0.3 rad about y, the elbow bent 0.4 rad about z.
fn rest_rotations() -> [Quat; 3] {
    [
        Quat::from_axis_angle(Vec3::Y, 0.3),
        Quat::from_axis_angle(Vec3::Z, 0.4),
        Quat::IDENTITY,
    ]
}

/// Model matrices from the locals: `model[j] = model[j - 1] · T(t_j) · R(r_j)`.
fn models(rotations: &[Quat; 3]) -> [Affine3A; 3] {
    let local = |j: usize| Affine3A::from_rotation_translation(rotations[j], TRANSLATIONS[j]);
    let start = local(0);
    let mid = start * local(1);
    [start, mid, mid * local(2)]
}

/// One solve from the rest pose; the corrected start and mid local rotations.
#[inline]
fn solve(
    ik: &TwoBoneIk,
    rest: &[Affine3A; 3],
    rotations: &[Quat; 3],
) -> Result<(Quat, Quat, TwoBoneSolution), skel_anim::AnimError> {
    let s = ik.solve(&rest[0], &rest[1], &rest[2])?;
    Ok((
        rotations[0] * s.start_correction,
        rotations[1] * s.mid_correction,
        s,
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rotations = rest_rotations();
    let rest = models(&rotations);
    // The hinge: a positive turn about it opens the elbow (-z for this arm, ozz's mid_axis).
    let axis = TwoBoneIk::bend_axis(&rest[0], &rest[1], &rest[2]).ok_or("the arm is straight")?;
    if (axis - Vec3::NEG_Z).length() > 1e-6 {
        return Err(format!("the arm's hinge is {axis}, not -z as two_bone.cc assumes").into());
    }
    let ik = |target: Vec3| TwoBoneIk {
        target,
        pole: Vec3::Z,
        mid_axis: Some(axis),
        twist: 0.0,
        soften: 1.0,
        weight: 1.0,
    };
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["check"] => {
            for (i, &target) in TARGETS.iter().enumerate() {
                let (start, mid, s) = solve(&ik(target), &rest, &rotations)?;
                let m = models(&[start, mid, rotations[2]]);
                let (mid, end) = (m[1].translation, m[2].translation);
                println!(
                    "target {i} reached {} mid {:.6} {:.6} {:.6} end {:.6} {:.6} {:.6}",
                    u8::from(s.reached),
                    mid.x,
                    mid.y,
                    mid.z,
                    end.x,
                    end.y,
                    end.z
                );
            }
        }
        ["run", warmup, solves] => {
            let (warmup, solves): (usize, usize) = (warmup.parse()?, solves.parse()?);
            let mut sum = Vec4::ZERO;
            let mut reached = 0_usize;
            let mut begin = Instant::now();
            for i in 0..warmup + solves {
                if i == warmup {
                    begin = Instant::now();
                    reached = 0;
                }
                let (start, mid, s) = solve(&ik(black_box(TARGETS[i & 7])), &rest, &rotations)?;
                sum += Vec4::from(start) + Vec4::from(mid);
                reached += usize::from(s.reached);
            }
            let ns = begin.elapsed().as_secs_f64() * 1e9;
            #[expect(clippy::cast_precision_loss, reason = "a solve count")]
            let per = if solves > 0 { ns / solves as f64 } else { 0.0 };
            println!(
                "solves {solves} ns_per_solve {per:.3} reached {reached} checksum {:.6}",
                sum.element_sum()
            );
        }
        _ => return Err("usage: two_bone_solves run WARMUP SOLVES | two_bone_solves check".into()),
    }
    Ok(())
}
