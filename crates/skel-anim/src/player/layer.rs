//! One layer of a [`Player`](crate::Player): a clip with its own clock, a weight, a mode
//! (blend or additive) and an optional per-node mask; and the descriptor that creates it.

use glam::Vec4;

use crate::player::mask::{Mask, SlotMask};
use std::sync::Arc;

use crate::rig::four_node::QuadPlan;
use crate::sample::cursor::{Segment, TimeCursor};
use crate::sample::four_node::{QuadRows, R_ROWS, S_ROWS, T_ROWS};
use crate::{AnimError, LoopMode, PlaybackClock, PoseScratch, Rig, SamplerCursor};

/// The largest weight a layer or snapshot takes; larger finite weights count as this.
///
/// Blending is relative, and past a ratio of about 1e7 the lighter contributor is lost in f32
/// rounding anyway; capping keeps every weighted sum finite (two layers at `f32::MAX / 2`
/// would otherwise sum to infinity and blend into NaN bone matrices: found by the
/// `controller_api` fuzz target).
pub const MAX_WEIGHT: f32 = 1e12;

/// How a layer combines with the layers below it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum LayerMode {
    /// Part of the normalised weighted average of every blend layer animating a property
    /// (three.js `NormalAnimationBlendMode`).
    #[default]
    Blend,
    /// Added on top of the blend, in layer order, as the difference between the clip and a
    /// reference pose (three.js `AdditiveAnimationBlendMode` over `makeClipAdditive`).
    Additive(Reference),
}

/// The pose an additive layer's clip is made relative to: `clip` sampled at `time` seconds
/// (clamped to that clip), the rest value for properties `clip` does not animate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reference {
    /// The reference clip; `None`: the layer's own clip (three.js's default, at time 0).
    pub clip: Option<usize>,
    /// Time in the reference clip, in seconds.
    pub time: f32,
}

/// Everything a new layer needs (wgpu-style descriptor). [`LayerDesc::new`] gives a blend
/// layer of weight 1, playing and looping from time 0 at speed 1, over every node.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerDesc {
    /// The clip to play.
    pub clip: usize,
    /// The layer's weight (see [`Layer::set_weight`] for the accepted range).
    pub weight: f32,
    /// Blend or additive.
    pub mode: LayerMode,
    /// Which nodes the layer affects; `None`: all of them.
    pub mask: Option<Mask>,
    /// Playback speed (negative plays backwards).
    pub speed: f32,
    /// What the clock does at the ends of the clip.
    pub loop_mode: LoopMode,
    /// Start time in seconds (clamped to the clip).
    pub start: f32,
    /// The [`LayerGroup`](crate::LayerGroup) the layer is a member of; `None`: ungrouped.
    pub group: Option<usize>,
}

impl LayerDesc {
    /// A blend layer of weight 1 playing `clip`.
    #[must_use]
    pub fn new(clip: usize) -> Self {
        Self {
            clip,
            weight: 1.0,
            mode: LayerMode::Blend,
            mask: None,
            speed: 1.0,
            loop_mode: LoopMode::Repeat,
            start: 0.0,
            group: None,
        }
    }

    /// With weight `weight`.
    #[must_use]
    pub fn weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }

    /// As an additive layer relative to `reference`.
    #[must_use]
    pub fn additive(mut self, reference: Reference) -> Self {
        self.mode = LayerMode::Additive(reference);
        self
    }

    /// Restricted to `mask`.
    #[must_use]
    pub fn mask(mut self, mask: Mask) -> Self {
        self.mask = Some(mask);
        self
    }

    /// At playback speed `speed`.
    #[must_use]
    pub fn speed(mut self, speed: f32) -> Self {
        self.speed = speed;
        self
    }

    /// With loop mode `mode`.
    #[must_use]
    pub fn loop_mode(mut self, mode: LoopMode) -> Self {
        self.loop_mode = mode;
        self
    }

    /// Starting at `start` seconds.
    #[must_use]
    pub fn start(mut self, start: f32) -> Self {
        self.start = start;
        self
    }

    /// As a member of the player's group `group` (see [`Player::add_group`]): an override
    /// group takes blend layers, an additive group additive layers.
    ///
    /// [`Player::add_group`]: crate::Player::add_group
    #[must_use]
    pub fn group(mut self, group: usize) -> Self {
        self.group = Some(group);
        self
    }
}

/// A weight ramp owned by the player (a cross-fade in or out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Fade {
    pub(crate) from: f32,
    pub(crate) to: f32,
    pub(crate) elapsed: f32,
    pub(crate) duration: f32,
    /// Whether the layer is removed when a ramp to 0 ends ([`Player::crossfade_to`]'s
    /// outgoing layers), or kept at factor 0 ([`Player::fade_layer_to`]).
    ///
    /// [`Player::crossfade_to`]: crate::Player::crossfade_to
    /// [`Player::fade_layer_to`]: crate::Player::fade_layer_to
    pub(crate) remove_at_zero: bool,
}

impl Fade {
    pub(crate) fn factor(&self) -> f32 {
        if self.duration <= 0.0 || self.elapsed >= self.duration {
            self.to
        } else {
            self.from + (self.to - self.from) * (self.elapsed / self.duration)
        }
    }

    pub(crate) fn done(&self) -> bool {
        self.duration <= 0.0 || self.elapsed >= self.duration
    }
}

/// An additive layer's reference values, one per blend slot of the rig (rest values where the
/// reference clip does not animate the property).
#[derive(Debug, Clone)]
pub(crate) struct ReferencePose {
    pub(crate) trs: Vec<Vec4>,
    pub(crate) morph: Vec<f32>,
    /// The whole reference pose four nodes at a time (rest values where the reference clip
    /// does not animate), for the layered structure-of-arrays pass; `None` when the rig has
    /// no quads.
    pub(crate) quads: Option<Box<[QuadRows]>>,
    /// The layer's clip relative to the reference, four nodes at a time (`QuadPlan::relative_to`,
    /// shared by clones of the layer): what the layered structure-of-arrays pass samples.
    pub(crate) deltas: Option<Arc<QuadPlan>>,
}

/// One clip playing inside a [`Player`](crate::Player): its clock, weight, mode and mask.
#[derive(Debug, Clone)]
pub struct Layer {
    pub(crate) clip: usize,
    pub(crate) weight: f32,
    pub(crate) mode: LayerMode,
    pub(crate) clock: PlaybackClock,
    /// Per-node weights in `0..=1` (`None`: 1 everywhere).
    pub(crate) mask: Option<Box<[f32]>>,
    /// The same weights per blend slot, then per morph slot, of the rig (what a tick reads:
    /// one lookup per property instead of slot → node → weight).
    pub(crate) slot_mask: Option<SlotMask>,
    pub(crate) reference: Option<ReferencePose>,
    pub(crate) fade: Option<Fade>,
    /// The fade's current factor (1 without a fade).
    pub(crate) fade_factor: f32,
    pub(crate) cursors: Vec<SamplerCursor>,
    /// One cursor per key-time array of the clip (its tracks share them).
    pub(crate) time_cursors: Vec<TimeCursor>,
    /// The mask's weights four nodes at a time (padding lanes 0), for the layered
    /// structure-of-arrays pass; `None` without a mask or quads.
    pub(crate) quad_mask: Option<Box<[Vec4]>>,
    /// The key interval of each key-time array at the layer's time, for the layered
    /// structure-of-arrays pass (which locates every layer's before it walks the nodes).
    pub(crate) segments: Vec<Segment>,
    /// The player's group the layer belongs to (`None`: ungrouped).
    pub(crate) group: Option<usize>,
    /// Whether the layer's markers fire events.
    pub(crate) fires_events: bool,
}

impl Layer {
    /// Builds the layer `desc` describes over `rig`: resolves the mask, samples the additive
    /// reference. Allocates (the layer's cursors, mask and reference values). Players make
    /// their layers with [`Player::add_layer`](crate::Player::add_layer); this is for driving
    /// [`mix_layers`](crate::mix_layers) yourself (which knows no groups: it mixes every layer
    /// as ungrouped, whatever `desc.group` says; the player checks and uses the group).
    ///
    /// # Errors
    /// As [`Player::add_layer`](crate::Player::add_layer), less the group checks.
    pub fn new(rig: &Rig, desc: &LayerDesc) -> Result<Self, AnimError> {
        rig.check_clip(desc.clip)?;
        let finite = |what: &'static str, value: f32| {
            if value.is_finite() {
                Ok(value)
            } else {
                Err(AnimError::NotFiniteValue { what, value })
            }
        };
        finite("layer weight", desc.weight)?;
        finite("layer speed", desc.speed)?;
        finite("layer start time", desc.start)?;
        let mask = match &desc.mask {
            Some(m) => Some(m.resolve(rig, desc.clip)?),
            None => None,
        };
        let reference = match desc.mode {
            LayerMode::Blend => None,
            LayerMode::Additive(r) => Some(reference_pose(rig, r.clip.unwrap_or(desc.clip), {
                finite("reference time", r.time)?
            })?),
        };
        let reference = reference.map(|mut r| {
            if rig.layers_four_nodes_at_a_time(desc.clip)
                && let (Some(rows), Some(plan)) = (&r.quads, &rig.plan.clips[desc.clip].quads)
            {
                r.deltas = Some(Arc::new(plan.relative_to(rows)));
            }
            r
        });
        let slot_mask = mask
            .as_deref()
            .map(|m| crate::player::mask::slot_mask(rig, m));
        let quad_mask = match (&mask, &rig.layer_quads) {
            (Some(m), Some(lq)) => Some(lq.per_lane(|node| m[node])),
            _ => None,
        };
        let clip = &rig.data().clips[desc.clip];
        let timelines = rig.plan.clips[desc.clip].timelines.len();
        let duration = rig.clip_duration(desc.clip).unwrap_or(0.0);
        let mut clock = PlaybackClock::new(duration);
        clock.set_speed_ratio(desc.speed);
        clock.set_loop_mode(desc.loop_mode);
        clock.seek(desc.start);
        clock.play();
        let mut layer = Self {
            clip: desc.clip,
            weight: 0.0,
            mode: desc.mode,
            clock,
            mask,
            slot_mask,
            reference,
            fade: None,
            fade_factor: 1.0,
            cursors: vec![SamplerCursor::default(); clip.samplers.len()],
            time_cursors: vec![TimeCursor::default(); timelines],
            quad_mask,
            segments: vec![Segment::default(); timelines],
            group: desc.group,
            fires_events: true,
        };
        layer.set_weight(desc.weight);
        Ok(layer)
    }

    /// The clip this layer plays.
    #[must_use]
    pub fn clip(&self) -> usize {
        self.clip
    }

    /// The layer's weight, as set (fades not included).
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// The weight the layer contributes with now: its weight times its cross-fade factor.
    #[must_use]
    pub fn effective_weight(&self) -> f32 {
        self.weight * self.fade_factor
    }

    /// Sets the weight. NaN counts as 0 and magnitudes above [`MAX_WEIGHT`] as `MAX_WEIGHT`.
    /// Blend layers take weights from 0 up (negative counts as 0: a negative share of an
    /// average means nothing); additive layers take negative weights too (weight −1 subtracts
    /// what +1 adds).
    pub fn set_weight(&mut self, weight: f32) {
        let w = if weight.is_nan() {
            0.0
        } else {
            weight.clamp(-MAX_WEIGHT, MAX_WEIGHT)
        };
        self.weight = match self.mode {
            LayerMode::Blend => w.max(0.0),
            LayerMode::Additive(_) => w,
        };
    }

    /// Blend or additive.
    #[must_use]
    pub fn mode(&self) -> LayerMode {
        self.mode
    }

    /// The player's group the layer belongs to (`None`: ungrouped).
    #[must_use]
    pub fn group(&self) -> Option<usize> {
        self.group
    }

    /// Whether the markers this layer's playhead passes fire events (true unless turned off).
    #[must_use]
    pub fn fires_events(&self) -> bool {
        self.fires_events
    }

    /// Turns the layer's events on or off: a follower in a synchronised blend plays its clip
    /// in step with a leader whose markers alone should fire. Root motion and the pose are
    /// unaffected.
    pub fn set_fires_events(&mut self, fires: bool) {
        self.fires_events = fires;
    }

    /// The mask's weight of `node` (1 without a mask or past the end of the nodes).
    #[must_use]
    pub fn mask_weight(&self, node: usize) -> f32 {
        self.mask
            .as_ref()
            .and_then(|m| m.get(node).copied())
            .unwrap_or(1.0)
    }

    /// The cross-fade factor the weight is multiplied by now (1 without a fade).
    #[must_use]
    pub fn fade_factor(&self) -> f32 {
        self.fade_factor
    }

    /// Progress of the ramp on this layer's weight in `0..=1`, while one runs.
    #[must_use]
    pub fn fade_progress(&self) -> Option<f32> {
        self.fade.map(|f| {
            if f.duration > 0.0 {
                (f.elapsed / f.duration).min(1.0)
            } else {
                1.0
            }
        })
    }

    /// Whether a cross-fade is ramping this layer's weight.
    #[must_use]
    pub fn is_fading(&self) -> bool {
        self.fade.is_some()
    }

    /// The layer's playback clock.
    #[must_use]
    pub fn clock(&self) -> &PlaybackClock {
        &self.clock
    }

    /// The layer's playback clock (play, pause, seek, speed, loop mode, range).
    pub fn clock_mut(&mut self) -> &mut PlaybackClock {
        &mut self.clock
    }

    /// Advances the clock by `dt` seconds (times its speed) and a running fade by `dt` seconds
    /// of real time.
    // Out of line, with the clock step inlined into it: the arrangement the instruction counts
    // of docs/bench-layers.md were measured with (left to LLVM, the choice moves as the crate's
    // files fall differently into codegen units).
    #[inline(never)]
    pub fn advance(&mut self, dt: f64) {
        self.clock.advance_seconds(dt);
        if let Some(fade) = &mut self.fade {
            if dt.is_finite() && dt > 0.0 {
                #[expect(clippy::cast_possible_truncation, reason = "seconds of a frame")]
                let step = dt as f32;
                fade.elapsed += step;
            }
            self.fade_factor = fade.factor();
        }
    }
}

/// The reference pose of an additive layer: `clip` at `time` (clamped to it) over the rest pose.
fn reference_pose(rig: &Rig, clip: usize, time: f32) -> Result<ReferencePose, AnimError> {
    rig.check_clip(clip)?;
    let data = rig.data();
    let duration = rig.clip_duration(clip).unwrap_or(0.0);
    let mut scratch = PoseScratch::with_plan(data, std::sync::Arc::clone(&rig.plan));
    crate::reset_to_rest(data, &mut scratch);
    crate::apply_clip(data, clip, time.clamp(0.0, duration), &mut scratch);
    let trs = rig
        .maps
        .trs_slots
        .iter()
        .map(|slot| {
            let v = &scratch.trs[slot.at..slot.at + 4];
            Vec4::new(v[0], v[1], v[2], if slot.rotation { v[3] } else { 0.0 })
        })
        .collect();
    let mut morph = vec![0.0; rig.maps.morph_value_len];
    for slot in &rig.maps.morph_slots {
        let n = slot.components;
        morph[slot.values..slot.values + n]
            .copy_from_slice(&scratch.morph_weights[slot.binding][..n]);
    }
    let quads = rig.layer_quads.as_ref().map(|lq| {
        let mut rows = lq.rest.clone().into_boxed_slice();
        for (node, &at) in lq.lane_of.iter().enumerate() {
            if at == crate::data::NONE {
                continue;
            }
            let (q, lane) = (at as usize / 4, at as usize % 4);
            let rec = &crate::rig::layout::records(&scratch.trs)[node][..10];
            // Record order t(3) r(4) s(3); row order t(3) s(3) r(4).
            for (c, &v) in rec.iter().enumerate() {
                let row = match c {
                    0..3 => T_ROWS + c,
                    3..7 => R_ROWS + c - 3,
                    _ => S_ROWS + c - 7,
                };
                let mut lanes = rows[q][row].to_array();
                lanes[lane] = v;
                rows[q][row] = Vec4::from_array(lanes);
            }
        }
        rows
    });
    Ok(ReferencePose {
        trs,
        morph,
        quads,
        deltas: None,
    })
}
