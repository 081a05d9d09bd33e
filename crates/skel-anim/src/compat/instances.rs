//! Many characters over one asset: each instance has its own clock and pose scratch, and all of
//! them read the same keyframes through one [`Arc<AnimationData>`] (no per-instance copies).

use std::sync::Arc;

use crate::{
    AnimError, AnimationController, AnimationData, AnimationGroup, CrossFade, PoseSink,
    WeightedBlend,
};

/// Anything that turns a time step into a pose: the single-clip [`AnimationController`], an
/// [`AnimationGroup`], a [`WeightedBlend`] or a [`CrossFade`]. Lets [`tick_all`] (and
/// `par_tick_all` with the `rayon` feature) drive a crowd of any of them.
pub trait Animate {
    /// Advances by `delta_ms` milliseconds and writes the pose to `sink`; allocates nothing.
    fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink);
}

impl Animate for AnimationController {
    fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        AnimationController::tick(self, delta_ms, sink);
    }
}

impl Animate for AnimationGroup {
    fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        AnimationGroup::tick(self, delta_ms, sink);
    }
}

impl Animate for WeightedBlend {
    fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        WeightedBlend::tick(self, delta_ms, sink);
    }
}

impl Animate for CrossFade {
    fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        CrossFade::tick(self, delta_ms, sink);
    }
}

/// `count` controllers over `data`, all playing `clip` from time 0. The asset is validated once
/// and the first controller cloned: every instance shares the keyframes (the same `Arc`) and
/// owns only its clock and scratch (a few floats per node and bone).
///
/// # Errors
/// What [`AnimationData::validate`] finds, or [`AnimError::NoSuchClip`].
pub fn instantiate(
    data: Arc<AnimationData>,
    clip: Option<usize>,
    count: usize,
) -> Result<Vec<AnimationController>, AnimError> {
    let mut first = AnimationController::new(data)?;
    first.set_clip(clip)?;
    Ok(vec![first; count])
}

pub(crate) fn check_sinks(items: usize, sinks: usize) -> Result<(), AnimError> {
    if items == sinks {
        Ok(())
    } else {
        Err(AnimError::LengthMismatch {
            what: "sinks (one per animated instance)",
            expected: items,
            got: sinks,
        })
    }
}

/// Ticks every instance by `delta_ms`, instance `i` writing to `sinks[i]`, on this thread.
///
/// # Errors
/// [`AnimError::LengthMismatch`] when there is not one sink per instance (nothing is ticked).
pub fn tick_all<A: Animate, S: PoseSink>(
    instances: &mut [A],
    delta_ms: f32,
    sinks: &mut [S],
) -> Result<(), AnimError> {
    check_sinks(instances.len(), sinks.len())?;
    for (instance, sink) in instances.iter_mut().zip(sinks.iter_mut()) {
        instance.tick(delta_ms, sink);
    }
    Ok(())
}
