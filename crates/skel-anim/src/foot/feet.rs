//! Each foot of a frame: the ground under the ankle and the toes, the plant decision, the
//! lock and its release, and the target and turn the leg is solved onto.

use glam::{Affine3A, Quat, Vec3A};

use super::ground::GroundQuery;
use super::placement::FootPlacement;
use super::rays::{Probe, clearance, toe_clear};
use super::solve::ease;
use super::state::{FootPlacementState, FootReport, FootStatus};
use crate::{T_OFF, TRS_STRIDE};

/// A released lock's offset shorter than this (world units) is gone.
const RELEASED: f32 = 1e-5;

impl FootPlacement {
    /// Each foot's ground, plant decision, lock and target, into `state.next`,
    /// `state.next_status` and `state.work`.
    #[expect(
        clippy::too_many_arguments,
        reason = "one call site, the frame's inputs"
    )]
    #[inline(always)]
    pub(super) fn place_feet(
        &self,
        state: &mut FootPlacementState,
        trs: &[f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
        weight: f32,
        report: &mut FootReport,
    ) {
        let d = &self.desc;
        let up = Vec3A::from(d.up);
        let origin = root.translation;
        let fresh = state.fresh;
        let follow = if fresh { 1.0 } else { ease(dt, d.ground_time) };
        // How much of a released lock's offset is left after `dt` (asked once, if at all).
        let mut keep = None;
        let mut keep = || {
            *keep.get_or_insert_with(|| {
                if d.release_time > 0.0 {
                    (-dt / d.release_time).exp()
                } else {
                    0.0
                }
            })
        };
        let probe = Probe {
            ground,
            up,
            origin,
            above: d.max_step_up,
            below: d.ray_length - d.max_step_up,
        };
        for (i, leg) in self.legs.iter().enumerate() {
            let work = &mut state.work[i];
            let mem = state.memory[i];
            let ankle = work.ankle.translation;
            let lift = up.dot(ankle - origin) - leg.ankle_height;
            let hit = probe.height_under(ankle);
            // Speed across the ground: motion along up is the character climbing (the clip's
            // foot rides its root) or the lift, which `plant_height` judges.
            let moved = ankle - mem.prev_ankle;
            let moved = moved - up * up.dot(moved);
            let by_speed = !fresh
                && dt > 0.0
                && moved.length() <= d.plant_speed * dt
                && lift <= d.plant_height;
            let planted = state.overrides[i].unwrap_or(by_speed);

            // The ground under the foot, eased; no ground eases back to the clip's.
            let (raw_height, raw_normal) = hit.unwrap_or((0.0, up));
            let eased = mem.height + (raw_height - mem.height) * follow;
            let normal = (mem.normal + (raw_normal - mem.normal) * follow)
                .try_normalize()
                .unwrap_or(raw_normal);
            let n = limit_tilt(normal, up, d.max_tilt, self.cos_max_tilt);
            let align = arc(up, n);
            let sole = (n - up) * leg.ankle_height;
            // Never below the ground: the sole (lifted as the clip lifts it) and the toes.
            let sole_floor =
                hit.map_or(f32::NEG_INFINITY, |(ground_height, _)| ground_height - lift);
            let mut floor = sole_floor;
            // The toes (only their position matters: a joint's rotation does not move it).
            let toe_at = leg.toe.map(|toe| {
                let at = toe * TRS_STRIDE + T_OFF;
                work.ankle
                    .transform_point3a(Vec3A::from_slice(&trs[at..at + 3]))
            });
            if let Some((toe_at, (toe_ground, toe_normal))) =
                toe_at.and_then(|at| Some((at, probe.height_under(at)?)))
            {
                let toe_moved = ankle + sole + align * (toe_at - ankle);
                let toe_rise = up.dot(toe_moved - origin);
                let clear = clearance(leg.toe_height, toe_normal, up);
                floor = floor.max(toe_ground + clear - toe_rise);
            }
            let height = eased.max(floor);
            let free = ankle + up * height + sole;

            // Lock where the foot touched down (where it is on screen: a release still under
            // way hands over without a jump). A held foot keeps its place on the ground and
            // rises and falls only as the clip lifts it (a heel coming up), never into the
            // ground; a lock the clip pulls too far away follows on a leash of
            // `max_lock_distance`. Released, the lock's offset from the free target decays:
            // the foot moves with the clip at once and slides back onto its path.
            let (lock, lock_lift, slide, target) = if planted {
                let (mut lock, lock_lift) = if mem.planted {
                    (mem.lock, mem.lock_lift)
                } else {
                    (free + mem.slide, lift)
                };
                let away = lock - free;
                if away.length() > d.max_lock_distance {
                    lock = free + away.normalize_or_zero() * d.max_lock_distance;
                }
                let held = lock + up * (lift - lock_lift);
                // (The toes are the turn's business below, not the lock's.)
                let under = up.dot(free - held) - (height - sole_floor);
                (lock, lock_lift, Vec3A::ZERO, held + up * under.max(0.0))
            } else {
                let from = if mem.planted {
                    mem.lock + up * (lift - mem.lock_lift) - free
                } else {
                    mem.slide
                };
                // Never below the clip's path: a lifting foot rises with the clip at once (and
                // so never into the ground); what was held across or above it fades.
                let slide = if from == Vec3A::ZERO {
                    from
                } else {
                    from * keep()
                };
                let slide = slide - up * up.dot(slide).min(0.0);
                let slide = if slide.length() < RELEASED {
                    Vec3A::ZERO
                } else {
                    slide
                };
                (Vec3A::ZERO, 0.0, slide, free + slide)
            };

            // A held foot cannot rise: where the clip tips its toes into the ground, the foot
            // turns up about the ankle instead.
            let align = match (planted, toe_at) {
                (true, Some(toe_at)) => {
                    let reach = align * (toe_at - ankle);
                    toe_clear(&probe, target, reach, leg.toe_height) * align
                }
                _ => align,
            };
            // The on/off fade scales the whole correction, locks included.
            let target = ankle + (target - ankle) * weight;
            work.target = target;
            work.align = if weight >= 1.0 {
                align
            } else {
                Quat::IDENTITY.lerp(align, weight)
            };
            state.next[i] = super::state::FootMemory {
                prev_ankle: ankle,
                height,
                normal,
                planted,
                lock,
                lock_lift,
                slide,
            };
            state.next_status[i] = FootStatus {
                hit: hit.is_some(),
                planted,
                locked: planted || slide != Vec3A::ZERO,
                reached: false,
                target: target.into(),
                offset: (target - ankle).into(),
                normal: n.into(),
            };
            report.hits += usize::from(hit.is_some());
            report.planted += usize::from(planted);
        }
    }
}

/// The shortest rotation from unit `from` to unit `to`, which are less than 90° apart. (glam's
/// `from_rotation_arc` returns the identity below about 7e-4 rad, a slope of 0.04°.)
fn arc(from: Vec3A, to: Vec3A) -> Quat {
    let c = from.cross(to);
    let q = Quat::from_xyzw(c.x, c.y, c.z, 1.0 + from.dot(to)).normalize();
    if q.is_finite() { q } else { Quat::IDENTITY }
}

/// `n` turned towards `up` until it is at most `max` radians from it.
fn limit_tilt(n: Vec3A, up: Vec3A, max: f32, cos_max: f32) -> Vec3A {
    if n.dot(up) >= cos_max {
        return n;
    }
    match up.cross(n).try_normalize() {
        Some(axis) => Quat::from_axis_angle(axis.into(), max) * up,
        None => up,
    }
}
