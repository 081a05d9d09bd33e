//! The render loop's view of a [`Player`] of layers (built in [`playing`](super::playing) from
//! `--clip` (one layer), `--blend` (blend layers), `--layers` (a layer-stack file) or nothing:
//! the first clip, or the rest pose).

use skel::Animate;
pub use skel::anim::Player;
use skel::anim::PoseSink;
use skel::anim::glam::Mat4;

/// What the render loop asks of its playback besides the facade's frame
/// ([`skel::Frame::advance`]): posing a clone on the CPU to frame the clip (through the same
/// [`skel::advance_pose`] as the frame), the loop's length, and the root-motion instance.
/// Seconds throughout.
pub trait RenderPlayback: Animate {
    /// Advances by `dt` seconds, writes the pose to `sink` and resolves the world matrices,
    /// as the facade's frame does.
    fn tick_s(&mut self, dt: f32, sink: &mut dyn PoseSink) {
        skel::advance_pose(self, dt, sink, &mut |_| {});
    }

    /// How long one loop lasts in seconds: the longest layer's range, 0 for the rest pose.
    fn loop_duration(&self) -> f32;

    /// With root motion: the world transform that moves the in-place character by the motion
    /// accumulated so far ([`skel::root_motion_instance`]). `None` without root motion.
    fn root_instance(&self) -> Option<Mat4> {
        skel::root_motion_instance(self.player())
    }
}

impl RenderPlayback for Player {
    fn loop_duration(&self) -> f32 {
        self.layers()
            .iter()
            .map(|l| l.clock().to() - l.clock().from())
            .fold(0.0, f32::max)
    }
}
