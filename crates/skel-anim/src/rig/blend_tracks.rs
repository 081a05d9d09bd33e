//! Where a blend layer's sampled tracks go: for every clip, the blend slot of each of its
//! translation/scale and rotation tracks (in the clip plan's track order), and the channels
//! left to the per-channel path (CUBICSPLINE). Built once per asset with the blend; a tick then
//! samples each layer with [`sample_tracks`](crate::pose::tracks::sample_tracks), one key search per
//! key-time array, and adds the samples to their slots.

use std::collections::HashMap;

use crate::Interpolation;
use crate::rig::blend_map::{ChannelMaps, TrsEntry};
use crate::rig::plan::PosePlan;
use crate::{AnimationData, Clip};

/// "No slot": a track whose property the blend does not map (never happens for validated
/// data, where every transform channel has a slot; skipped if it did).
pub(crate) const NO_SLOT: usize = usize::MAX;

/// The slots of one clip's tracks.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClipTrackSlots {
    /// Slot of each `vec3` track.
    pub(crate) vec3: Vec<usize>,
    /// Slot of each `quat` track.
    pub(crate) quat: Vec<usize>,
    /// The clip's TRS entries that are not tracks (CUBICSPLINE), for the per-channel path.
    pub(crate) generic: Vec<TrsEntry>,
}

/// [`ClipTrackSlots`] of every clip, plus the buffer sizes a blend's mix needs.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrackSlots {
    pub(crate) clips: Vec<ClipTrackSlots>,
}

impl TrackSlots {
    pub(crate) fn new(data: &AnimationData, plan: &PosePlan, maps: &ChannelMaps) -> Self {
        let slot_at: HashMap<usize, usize> = maps
            .trs_slots
            .iter()
            .enumerate()
            .map(|(i, s)| (s.at, i))
            .collect();
        let slot = |dst: u32| slot_at.get(&(dst as usize)).copied().unwrap_or(NO_SLOT);
        let clips = data
            .clips
            .iter()
            .zip(&plan.clips)
            .enumerate()
            .map(|(ci, (clip, cp))| ClipTrackSlots {
                vec3: cp.vec3.iter().map(|t| slot(t.dst)).collect(),
                quat: cp.quat.iter().map(|t| slot(t.dst)).collect(),
                generic: generic_entries(clip, maps.trs_entries(ci)),
            })
            .collect();
        Self { clips }
    }
}

/// The entries sampled one by one: those whose sampler is CUBICSPLINE (every LINEAR or STEP
/// entry is a track of the clip plan, which resolves "last channel wins" the same way).
fn generic_entries(clip: &Clip, entries: &[TrsEntry]) -> Vec<TrsEntry> {
    entries
        .iter()
        .filter(|e| {
            clip.samplers
                .get(e.sampler)
                .is_some_and(|s| s.interpolation() == Interpolation::CubicSpline)
        })
        .copied()
        .collect()
}
