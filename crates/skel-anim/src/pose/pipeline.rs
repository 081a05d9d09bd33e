//! The pose pipeline of one character over a compiled rig: the scratch buffers, the bone-control
//! hook, and the order of the steps (rest reset, overrides, channels, visibility, local → world,
//! bone matrices). [`Player`](crate::Player) drives it; keeping the order in one place is what
//! makes visibility beat animation in every pose path.

use std::sync::Arc;

use crate::inertial::Inertialization;
use crate::pose::single_clip::ClipPose;
use crate::{PoseHook, PoseScratch, PoseSink, Rig, apply_clip, reset_to_rest};

#[derive(Debug, Clone)]
pub(crate) struct Poser {
    pub(crate) rig: Arc<Rig>,
    pub(crate) scratch: PoseScratch,
    pub(crate) hook: Option<Arc<dyn PoseHook>>,
}

impl Poser {
    pub(crate) fn new(rig: &Arc<Rig>) -> Self {
        Self {
            scratch: PoseScratch::with_plan(rig.data(), Arc::clone(&rig.plan)),
            rig: Arc::clone(rig),
            hook: None,
        }
    }

    /// Poses `clip` (valid, or `None` for the rest pose) at `time`: the fused pass without a
    /// hook, the step by step pipeline with one.
    #[inline]
    pub(crate) fn pose(&mut self, clip: Option<usize>, time: f32, sink: &mut dyn PoseSink) {
        self.pose_offset(clip, time, None, sink);
    }

    /// [`pose`](Self::pose) with a running inertialization's offset added after the clip.
    /// The fused pass adds it four nodes at a time, so `offset` must be laid out over the
    /// clip's quads (`Rig::layer_quads`, with the clip among them); the step-by-step pipeline
    /// adds it node by node.
    #[inline]
    pub(crate) fn pose_offset(
        &mut self,
        clip: Option<usize>,
        time: f32,
        offset: Option<&Inertialization>,
        sink: &mut dyn PoseSink,
    ) {
        // Without a hook nothing needs the pose between its steps: sample straight into the
        // hierarchy pass.
        if let (None, Some(clip)) = (&self.hook, clip) {
            let data = &**self.rig.data();
            let job = ClipPose {
                clip,
                time,
                record: sink.wants_local_transforms(),
                offset,
            };
            if crate::pose::single_clip::pose_clip(data, job, &mut self.scratch, sink) {
                return;
            }
        }
        self.pose_with(sink, |rig, scratch| {
            if let Some(c) = clip {
                apply_clip(rig.data(), c, time, scratch);
            }
            if let Some(offset) = offset {
                offset.apply(&mut scratch.trs);
            }
        });
    }

    /// The pose pipeline with the channel step supplied by the caller: rest reset,
    /// `before_channels`, `channels`, `after_channels`, local → world, bone matrices and morph
    /// weights to `sink`.
    #[inline]
    pub(crate) fn pose_with(
        &mut self,
        sink: &mut dyn PoseSink,
        channels: impl FnOnce(&Rig, &mut PoseScratch),
    ) {
        let rig = &*self.rig;
        let data = &**rig.data();
        let scratch = &mut self.scratch;
        reset_to_rest(data, scratch);
        if let Some(hook) = &self.hook {
            hook.before_channels(&mut scratch.trs);
        }
        channels(rig, scratch);
        if let Some(hook) = &self.hook {
            hook.after_channels(&mut scratch.trs);
        }
        crate::pose::steps::compute_frame_matrices(scratch);
        crate::pose::bones::compute_frame_bone_matrices(data, scratch, sink);
    }
}
