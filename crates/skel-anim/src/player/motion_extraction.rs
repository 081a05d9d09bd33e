//! Root motion: the motion of a chosen root node, taken out of the pose (the character animates
//! in place) and handed back per tick as a delta the application applies to the character's
//! transform (ozz-animation's `MotionExtractor` / `MotionBlendingJob`, Unity's root motion).
//!
//! A layer's root motion over a tick is the rigid motion `M(t0)⁻¹ · M(t1)` of the root's
//! extracted components (translation on the chosen axes, rotation about +y) along the path its
//! playhead took: a tick that wraps a loop adds the whole loop's motion instead of jumping back,
//! a backward tick undoes motion, a ping-pong return leg walks back, and a seek moves no one.
//! Blend layers mix their deltas with the normalised weights of their poses
//! (`weight × fade × mask(root)`; below a total of 1 the rest, which does not move, fills in);
//! additive layers add theirs at their weight. Layer groups follow the pose's rule: an override
//! group's members are normalised among themselves (its snapshot counting as a member that
//! does not move, the motion below filling a total under 1) and lerped over the motion below by
//! the group's weight × mask(root); an additive group's members add theirs at their weight ×
//! the group's weight × mask(root).

use glam::{DQuat, DVec3, Quat, Vec3, Vec4};

use super::events::{Sweep, whole_count};
use crate::{
    AnimError, AnimationData, ChannelPath, Clip, LoopMode, PlaybackClock, evaluate_sampler,
};

/// Which components of the root's motion are extracted. glTF's up axis is +y.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RootMotion {
    /// The root node (a hips or root bone).
    pub node: usize,
    /// Translation axes extracted, `[x, y, z]` in the root's parent space (`[true, false,
    /// true]`: the ground plane).
    pub translation: [bool; 3],
    /// Whether rotation about +y (yaw) is extracted.
    pub yaw: bool,
}

/// A rigid motion on the extracted components: a yaw about +y, then a translation, in the
/// root's parent space. What [`Player::root_motion_delta`](crate::Player::root_motion_delta)
/// returns: apply it to the character as `character = character · delta`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RootDelta {
    /// Translation, in the frame of the character at the start of the tick.
    pub translation: Vec3,
    /// Rotation about +y (identity without yaw extraction).
    pub rotation: Quat,
}

/// `(yaw, translation)` composed as rigid motions, in f64 so that long runs accumulate exactly.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Motion {
    yaw: f64,
    t: DVec3,
}

impl Motion {
    /// The motion as rates over `dt` seconds: yaw per second and translation per second
    /// (zero for a step that is not positive).
    pub(crate) fn rates(self, dt: f64) -> (f64, DVec3) {
        if dt > 0.0 && dt.is_finite() {
            (self.yaw / dt, self.t / dt)
        } else {
            (0.0, DVec3::ZERO)
        }
    }

    /// A yaw and a translation.
    pub(crate) fn new(yaw: f64, t: DVec3) -> Self {
        Self { yaw, t }
    }

    /// `self · other`: `other` happens in `self`'s frame.
    pub(crate) fn then(self, other: Self) -> Self {
        Self {
            yaw: self.yaw + other.yaw,
            t: self.t + DQuat::from_rotation_y(self.yaw) * other.t,
        }
    }

    fn inverse(self) -> Self {
        Self {
            yaw: -self.yaw,
            t: -(DQuat::from_rotation_y(-self.yaw) * self.t),
        }
    }

    /// `self` composed `n` times (by squaring: a tick of a million loops costs 20 steps).
    fn pow(self, mut n: u64) -> Self {
        let (mut acc, mut base) = (Self::default(), self);
        while n > 0 {
            if n & 1 == 1 {
                acc = acc.then(base);
            }
            base = base.then(base);
            n >>= 1;
        }
        acc
    }

    pub(crate) fn scaled(self, w: f64) -> Self {
        Self {
            yaw: self.yaw * w,
            t: self.t * w,
        }
    }

    pub(crate) fn plus(self, other: Self) -> Self {
        Self {
            yaw: self.yaw + other.yaw,
            t: self.t + other.t,
        }
    }

    pub(crate) fn delta(self) -> RootDelta {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "f64 accumulators handed out as f32"
        )]
        RootDelta {
            translation: self.t.as_vec3(),
            rotation: Quat::from_rotation_y(self.yaw as f32),
        }
    }
}

/// Where a clip's root channels are (last channel wins, as in the pose).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RootChannels {
    translation: Option<usize>,
    rotation: Option<usize>,
}

/// Root motion resolved against a rig: the root's channels per clip and its rest values.
#[derive(Debug, Clone)]
pub(crate) struct RootPlan {
    pub(crate) config: RootMotion,
    channels: Vec<RootChannels>,
    rest_t: Vec3,
    rest_r: Quat,
    /// The root's translation and rotation at each clip's time 0 (what the pose holds),
    /// sampled once here rather than every tick.
    start: Vec<(Vec3, Quat)>,
}

impl RootPlan {
    pub(crate) fn new(data: &AnimationData, config: RootMotion) -> Result<Self, AnimError> {
        let node = data
            .nodes
            .get(config.node)
            .ok_or_else(|| AnimError::BadNode {
                what: "root motion".into(),
                node: config.node,
                node_count: data.nodes.len(),
            })?;
        let channels = data
            .clips
            .iter()
            .map(|clip| {
                let mut c = RootChannels::default();
                for ch in clip.channels.iter().filter(|ch| ch.node == config.node) {
                    match ch.path {
                        ChannelPath::Translation => c.translation = Some(ch.sampler),
                        ChannelPath::Rotation => c.rotation = Some(ch.sampler),
                        _ => {}
                    }
                }
                c
            })
            .collect();
        let mut plan = Self {
            config,
            channels,
            rest_t: Vec3::from_array(node.translation),
            rest_r: Quat::from_array(node.rotation),
            start: Vec::new(),
        };
        plan.start = data
            .clips
            .iter()
            .enumerate()
            .map(|(index, clip)| plan.sample(clip, index, 0.0))
            .collect();
        Ok(plan)
    }

    /// The root's local translation and rotation in `clip` at `time`.
    fn sample(&self, clip: &Clip, index: usize, time: f32) -> (Vec3, Quat) {
        let c = self.channels[index];
        let mut out = [0.0_f32; 4];
        let t = match c.translation {
            Some(s) => {
                evaluate_sampler(&clip.samplers[s], time, 3, false, &mut out, 0);
                Vec3::new(out[0], out[1], out[2])
            }
            None => self.rest_t,
        };
        let r = match c.rotation {
            Some(s) => {
                evaluate_sampler(&clip.samplers[s], time, 4, true, &mut out, 0);
                Quat::from_array(out)
            }
            None => self.rest_r,
        };
        (t, r)
    }

    /// The extracted components at `time` as a rigid motion.
    fn motion(&self, clip: &Clip, index: usize, time: f64) -> Motion {
        #[expect(clippy::cast_possible_truncation, reason = "clip times are f32")]
        let (t, r) = self.sample(clip, index, time as f32);
        let mask = self.config.translation;
        let t = DVec3::new(
            if mask[0] { f64::from(t.x) } else { 0.0 },
            if mask[1] { f64::from(t.y) } else { 0.0 },
            if mask[2] { f64::from(t.z) } else { 0.0 },
        );
        Motion {
            yaw: if self.config.yaw { yaw_of(r) } else { 0.0 },
            t,
        }
    }

    /// The root motion of one layer over one advance of its clock.
    pub(crate) fn layer_delta(
        &self,
        clip: &Clip,
        index: usize,
        before: &PlaybackClock,
        after: &PlaybackClock,
        step: f64,
    ) -> Motion {
        let Some(sweep) = Sweep::between(before, after, step) else {
            return Motion::default();
        };
        let (a, b, len, from) = sweep.parts();
        let m = |offset: f64| self.motion(clip, index, from + offset);
        let rel = |x: f64, y: f64| m(x).inverse().then(m(y));
        match sweep.mode() {
            LoopMode::Once => rel(a, b),
            LoopMode::Repeat => {
                // Loop k covers [k·len, (k+1)·len); a whole loop is m(0)⁻¹ · m(len).
                let whole = rel(0.0, len);
                let (ka, kb) = ((a / len).floor(), (b / len).floor());
                let (ta, tb) = (a - ka * len, b - kb * len);
                if ka == kb {
                    return rel(ta, tb);
                }
                if b > a {
                    let n = (kb - ka - 1.0).max(0.0);
                    rel(ta, len)
                        .then(whole.pow(whole_count(n)))
                        .then(rel(0.0, tb))
                } else {
                    let n = (ka - kb - 1.0).max(0.0);
                    rel(ta, 0.0)
                        .then(whole.inverse().pow(whole_count(n)))
                        .then(rel(len, tb))
                }
            }
            LoopMode::PingPong => {
                // Leg k covers [k·len, (k+1)·len) of the phase: even legs play the clip
                // forwards, odd ones backwards; neighbouring legs meet at the same clip time.
                let time_of = |u: f64, k: f64| {
                    let x = (u - k * len).clamp(0.0, len);
                    if k.rem_euclid(2.0) == 0.0 { x } else { len - x }
                };
                let (ka, kb) = ((a / len).floor(), (b / len).floor());
                if ka == kb {
                    return rel(time_of(a, ka), time_of(b, ka));
                }
                let forward = b > a;
                let leave = if forward { (ka + 1.0) * len } else { ka * len };
                let enter = if forward { kb * len } else { (kb + 1.0) * len };
                let first = rel(time_of(a, ka), time_of(leave, ka));
                let last = rel(time_of(enter, kb), time_of(b, kb));
                // Whole legs in between alternate W = m(0)⁻¹·m(len) and its inverse, so pairs
                // cancel; an odd count leaves the last one.
                let whole = (kb - ka).abs() - 1.0;
                let middle = if whole.rem_euclid(2.0) == 1.0 {
                    let k = if forward { kb - 1.0 } else { kb + 1.0 };
                    let plays_forward = (k.rem_euclid(2.0) == 0.0) == forward;
                    if plays_forward {
                        rel(0.0, len)
                    } else {
                        rel(len, 0.0)
                    }
                } else {
                    Motion::default()
                };
                first.then(middle).then(last)
            }
        }
    }

    /// The root's sampled local translation with the extracted axes held at `clip`'s time 0.
    pub(crate) fn in_place_translation(&self, index: usize, value: Vec4) -> Vec4 {
        let (t0, _) = self.start[index];
        let m = self.config.translation;
        Vec4::new(
            if m[0] { t0.x } else { value.x },
            if m[1] { t0.y } else { value.y },
            if m[2] { t0.z } else { value.z },
            value.w,
        )
    }

    /// The root's sampled local rotation with its yaw held at `clip`'s time 0.
    pub(crate) fn in_place_rotation(&self, index: usize, value: Vec4) -> Vec4 {
        if !self.config.yaw {
            return value;
        }
        let (_, r0) = self.start[index];
        let q = Quat::from_vec4(value);
        let out = yaw_quat(r0) * yaw_quat(q).conjugate() * q;
        Vec4::from(out.normalize())
    }
}

/// Running sums of one tick's root motion: blend layers normalised by their total weight
/// (when above 1), additive layers at their weight.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MotionMix {
    blend: Motion,
    blend_weight: f64,
    additive: Motion,
}

impl MotionMix {
    pub(crate) fn add_blend(&mut self, w: f64, d: Motion) {
        if w > 0.0 {
            self.blend = self.blend.plus(d.scaled(w));
            self.blend_weight += w;
        }
    }

    pub(crate) fn add_additive(&mut self, w: f64, d: Motion) {
        self.additive = self.additive.plus(d.scaled(w));
    }

    pub(crate) fn finish(self) -> Motion {
        let norm = self.blend_weight.max(1.0);
        self.blend.scaled(1.0 / norm).plus(self.additive)
    }

    /// The blend layers' part of [`finish`](Self::finish).
    pub(crate) fn blend_part(self) -> Motion {
        self.blend.scaled(1.0 / self.blend_weight.max(1.0))
    }

    /// The additive layers' part of [`finish`](Self::finish).
    pub(crate) fn additive_part(self) -> Motion {
        self.additive
    }

    /// A layer group's own motion: its blend members and a still member of weight `frozen`
    /// (its snapshot) normalised, `below` filling a total under 1; `None` when nothing in the
    /// group has weight.
    pub(crate) fn blend_over(self, below: Motion, frozen: f64) -> Option<Motion> {
        let total = self.blend_weight + frozen;
        if total <= 0.0 {
            None
        } else if total >= 1.0 {
            Some(self.blend.scaled(1.0 / total))
        } else {
            Some(self.blend.plus(below.scaled(1.0 - total)))
        }
    }
}

/// The rotation of `q` about +y (its twist), as an angle.
fn yaw_of(q: Quat) -> f64 {
    let (y, w) = (f64::from(q.y), f64::from(q.w));
    if y == 0.0 && w == 0.0 {
        0.0
    } else {
        2.0 * y.atan2(w)
    }
}

/// The rotation of `q` about +y, as a quaternion.
fn yaw_quat(q: Quat) -> Quat {
    let len = (q.y * q.y + q.w * q.w).sqrt();
    if len > 0.0 {
        Quat::from_xyzw(0.0, q.y / len, 0.0, q.w / len)
    } else {
        Quat::IDENTITY
    }
}

/// Root motion of a player: what is extracted, where its slots are, and the deltas.
#[derive(Debug, Clone)]
pub(crate) struct RootState {
    pub(crate) plan: RootPlan,
    /// The blend slots of the root's translation and rotation (`usize::MAX`: no clip animates
    /// it).
    pub(crate) t_slot: usize,
    pub(crate) r_slot: usize,
    pub(crate) delta: Motion,
    pub(crate) total: Motion,
    /// Seconds of the last advance that moved (what `delta` covers).
    pub(crate) delta_seconds: f64,
}
