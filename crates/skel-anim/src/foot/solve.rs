//! The per-frame foot placement job: ground under each foot, plant and lock, pelvis drop, one
//! two-bone solve per leg, the sole turned onto the ground.

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::ground::GroundQuery;
use super::leg::{inverse, local, read_leg, solve_leg};
use super::legs_x4::solve_legs;
use super::placement::FootPlacement;
use super::rays::{Probe, clearance, toe_clear};
use super::state::{FootPlacementState, FootReport, FootStatus};
use crate::ik::{apply_correction_inline, finite1};
use crate::rig::kernels::Kernels;
use crate::{AnimError, AnimationData, T_OFF, TRS_STRIDE, model_matrix_from_trs};

/// A released lock's offset shorter than this (world units) is gone.
const RELEASED: f32 = 1e-5;

/// The on/off fade's weight below this is off (the pose is the clip's again).
const FADED: f32 = 1e-3;

impl FootPlacement {
    /// Places the feet of one character's local pose `trs` ([`TRS_STRIDE`] floats per node of
    /// `data`, the asset this was built for) on `ground`, `dt` seconds after the last call.
    ///
    /// `root` maps the pose into the ground's world frame: what the hierarchy pass puts in
    /// front of root nodes (the identity or [`skel_math::RH_TO_LH`], see
    /// [`model_matrix_from_trs`]) with the character's placement in the world in front of
    /// that. The clip's own ground is the plane through `root`'s translation perpendicular to
    /// up: a clip whose feet touch `y = 0` walks on it.
    ///
    /// Writes the pelvis's local translation and the local rotations of each hip, knee and
    /// ankle; reads no other node's record but their ancestors'. Allocates nothing; casts one
    /// ray per foot, two with a toe.
    ///
    /// # Errors
    /// The pose is then left exactly as it was, and `state` unchanged:
    /// - [`AnimError::LengthMismatch`] when `trs` is too short, `data` has another node count
    ///   than the rig this was built for, or `state` was made for another placement;
    /// - [`AnimError::NotFiniteValue`] for a NaN or infinite `dt`, `root` or joint matrix
    ///   (NaN in the pose);
    /// - [`AnimError::IkDegenerate`] for a leg bone of zero length, a joint scaled to nothing,
    ///   or a pelvis whose parent cannot be inverted.
    ///
    /// A ground that answers NaN is not an error: that foot has no ground this frame.
    pub fn solve(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &mut [f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<FootReport, AnimError> {
        match self.kernels {
            Kernels::Baseline => {}
            #[cfg(target_arch = "x86_64")]
            #[allow(
                unsafe_code,
                reason = "calls a #[target_feature] function after detection"
            )]
            Kernels::Avx2Fma => {
                // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
                // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
                return unsafe { self.solve_avx2(state, data, trs, root, ground, dt) };
            }
        }
        self.solve_with(state, data, trs, root, ground, dt)
    }

    /// [`Self::solve`] compiled for AVX2 and FMA: the same steps, three-operand encodings
    /// (the results are the same bits: nothing here is fused that the baseline rounds twice).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[allow(
        unsafe_code,
        reason = "a #[target_feature] function: called only after run-time detection"
    )]
    unsafe fn solve_avx2(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &mut [f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<FootReport, AnimError> {
        self.solve_with(state, data, trs, root, ground, dt)
    }

    /// The body of [`Self::solve`], inlined into each build of it.
    #[inline(always)]
    fn solve_with(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &mut [f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<FootReport, AnimError> {
        self.check_inputs(state, data, trs, root, dt)?;
        let dt = dt.max(0.0);
        let d = &self.desc;
        let weight = if state.active { 1.0 } else { 0.0 };
        let weight = if weight == state.weight {
            weight
        } else {
            state.weight + (weight - state.weight) * ease(dt, d.fade_time)
        };
        let weight = if weight < FADED && !state.active {
            0.0
        } else {
            weight
        };
        let parent = match self.pelvis_parent {
            Some(p) => model_matrix_from_trs(data, trs, p, root)?,
            None => *root,
        };
        let pelvis = parent * local(trs, d.pelvis);
        for (leg, work) in self.legs.iter().zip(&mut state.work) {
            read_leg(data, trs, root, &pelvis, leg, work)?;
        }
        if weight == 0.0 {
            return Ok(rest_off(state));
        }
        let mut report = FootReport {
            weight,
            ..FootReport::default()
        };
        self.place_feet(state, trs, root, ground, dt, weight, &mut report);
        let drop = self.pelvis_drop(state, dt);
        let shift = -d.up * drop;
        let shift_local = inverse(&parent.matrix3)?.mul_vec3(shift);
        // Four legs at a time in SIMD lanes; a leg the lanes cannot take exactly as the f32
        // two-bone path would goes through the scalar solve (which also reports errors).
        for first in (0..self.legs.len()).step_by(4) {
            let last = (first + 4).min(self.legs.len());
            let lanes = solve_legs(
                &self.legs[first..last],
                &state.work[first..last],
                shift.into(),
            );
            for (i, lane) in (first..last).zip(lanes) {
                let work = &mut state.work[i];
                let reached = match lane {
                    Some((hip_fix, knee_fix, ankle_fix, reached)) => {
                        work.hip_fix = hip_fix;
                        work.knee_fix = knee_fix;
                        work.ankle_fix = ankle_fix;
                        reached
                    }
                    None => solve_leg(&self.legs[i], work, shift)?,
                };
                state.next_status[i].reached = reached;
            }
        }
        // Everything is known and finite: write.
        if drop > 0.0 {
            let at = self.desc.pelvis * TRS_STRIDE + T_OFF;
            let t = Vec3::from_slice(&trs[at..at + 3]) + shift_local;
            t.write_to_slice(&mut trs[at..at + 3]);
        }
        for (leg, work) in self.legs.iter().zip(&state.work) {
            apply_correction_inline(trs, leg.hip, work.hip_fix)?;
            apply_correction_inline(trs, leg.knee, work.knee_fix)?;
            apply_correction_inline(trs, leg.ankle, work.ankle_fix)?;
        }
        state.memory.copy_from_slice(&state.next);
        state.status.copy_from_slice(&state.next_status);
        state.pelvis_drop = drop;
        state.weight = weight;
        state.fresh = false;
        report.pelvis_drop = drop;
        Ok(report)
    }

    fn check_inputs(
        &self,
        state: &FootPlacementState,
        data: &AnimationData,
        trs: &[f32],
        root: &Affine3A,
        dt: f32,
    ) -> Result<(), AnimError> {
        if state.memory.len() != self.legs.len() {
            return Err(AnimError::LengthMismatch {
                what: "foot placement state (feet)",
                expected: self.legs.len(),
                got: state.memory.len(),
            });
        }
        if data.nodes.len() != self.node_count {
            return Err(AnimError::LengthMismatch {
                what: "foot placement rig (nodes)",
                expected: self.node_count,
                got: data.nodes.len(),
            });
        }
        if trs.len() < self.node_count * TRS_STRIDE {
            return Err(AnimError::LengthMismatch {
                what: "foot placement TRS records",
                expected: self.node_count * TRS_STRIDE,
                got: trs.len(),
            });
        }
        finite1("foot placement dt", dt)?;
        for value in root.to_cols_array() {
            finite1("foot placement root matrix", value)?;
        }
        Ok(())
    }

    /// Each foot's ground, plant decision, lock and target, into `state.next`,
    /// `state.next_status` and `state.work`.
    #[expect(
        clippy::too_many_arguments,
        reason = "one call site, the frame's inputs"
    )]
    #[inline(always)]
    fn place_feet(
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

    /// How far the pelvis goes down this frame: what the foot furthest out of reach needs,
    /// within `0..=max_step_down`; down at once (the targets it follows are eased already, so
    /// this moves smoothly, and a planted foot stays reachable), back up eased.
    #[inline(always)]
    fn pelvis_drop(&self, state: &FootPlacementState, dt: f32) -> f32 {
        let up = Vec3A::from(self.desc.up);
        let mut need = 0.0_f32;
        for work in &state.work {
            let (hip, knee, ankle) = (
                work.hip.translation,
                work.knee.translation,
                work.ankle.translation,
            );
            let length = (knee - hip).length() + (ankle - knee).length();
            let reach = (length * self.desc.max_extension).max((ankle - hip).length());
            need = need.max(drop_to_reach(hip - work.target, up, reach));
        }
        let need = need.clamp(0.0, self.desc.max_step_down);
        if state.fresh || need >= state.pelvis_drop {
            return need;
        }
        let follow = ease(dt, self.desc.pelvis_time);
        (state.pelvis_drop + (need - state.pelvis_drop) * follow)
            .clamp(0.0, self.desc.max_step_down)
    }
}

/// The switched-off frame: the pose stays the clip's; speeds keep being tracked, the ground
/// and locks are forgotten so that switching on eases in from the clip.
fn rest_off(state: &mut FootPlacementState) -> FootReport {
    for ((mem, status), work) in state
        .memory
        .iter_mut()
        .zip(&mut state.status)
        .zip(&state.work)
    {
        let ankle = work.ankle.translation;
        mem.prev_ankle = ankle;
        mem.height = 0.0;
        mem.slide = Vec3A::ZERO;
        mem.planted = false;
        *status = FootStatus {
            target: ankle.into(),
            offset: Vec3::ZERO,
            ..FootStatus::IDLE
        };
    }
    state.pelvis_drop = 0.0;
    state.weight = 0.0;
    state.fresh = false;
    FootReport::default()
}

/// The fraction of the way to a new value taken in `dt` with time constant `time`
/// (exponential smoothing: frame-rate independent, all of it for `time` 0).
#[inline]
fn ease(dt: f32, time: f32) -> f32 {
    if time > 0.0 {
        1.0 - (-dt / time).exp()
    } else {
        1.0
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

/// The least `d ≥ 0` with `|v − d·up| ≤ reach` (`v` from the target to the hip): how far the
/// hip must go down for the leg to reach. Where no drop brings it in reach, the drop that
/// brings it closest.
fn drop_to_reach(v: Vec3A, up: Vec3A, reach: f32) -> f32 {
    let length_sq = v.length_squared();
    if length_sq <= reach * reach {
        return 0.0;
    }
    let along = v.dot(up);
    if along <= 0.0 {
        return 0.0;
    }
    let disc = along * along - (length_sq - reach * reach);
    if disc < 0.0 {
        along
    } else {
        along - disc.sqrt()
    }
}
