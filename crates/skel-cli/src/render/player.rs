//! The render loop's view of a [`Player`] of layers (built in [`playing`](super::playing) from
//! `--clip` (one layer), `--blend` (blend layers), `--layers` (a layer-stack file) or nothing:
//! the first clip, or the rest pose).

pub use skel::anim::Player;
use skel::anim::PoseSink;
use skel::anim::glam::Mat4;

/// The render loop's view of a player: milliseconds per frame, world matrices resolved every
/// tick (the renderer places meshes by their nodes).
pub trait RenderPlayback {
    /// Advances by `delta_ms`, writes the pose to `sink` and resolves the world matrices.
    fn tick_ms(&mut self, delta_ms: f32, sink: &mut dyn PoseSink);
    /// World matrices of every node as of the last tick.
    fn resolved_world(&self) -> &[Mat4];
    /// How long one loop lasts in seconds: the longest layer's range, 0 for the rest pose.
    fn loop_duration(&self) -> f32;
    /// With root motion: the world transform that moves the in-place character by the motion
    /// accumulated so far (`P · motion · P⁻¹`, `P` the root's parent's world matrix, or the
    /// handedness mirror for a root without parent). `None` without root motion.
    fn root_instance(&self) -> Option<skel::anim::glam::Mat4>;
}

impl RenderPlayback for Player {
    fn tick_ms(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        self.tick(delta_ms / 1000.0, sink);
        self.resolve_world_matrices();
    }

    fn resolved_world(&self) -> &[Mat4] {
        &self.scratch().world
    }

    fn loop_duration(&self) -> f32 {
        self.layers()
            .iter()
            .map(|l| l.clock().to() - l.clock().from())
            .fold(0.0, f32::max)
    }

    fn root_instance(&self) -> Option<skel::anim::glam::Mat4> {
        use skel::anim::glam::Vec3;
        let config = self.root_motion()?;
        let total = self.root_motion_total();
        let motion = Mat4::from_rotation_translation(total.rotation, total.translation);
        let data = self.data();
        let parent = match data.nodes.get(config.node).and_then(|n| n.parent) {
            Some(p) => self
                .resolved_world()
                .get(p)
                .copied()
                .unwrap_or(Mat4::IDENTITY),
            None => match data.handedness {
                skel::anim::Handedness::LeftHanded => Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
                skel::anim::Handedness::RightHanded => Mat4::IDENTITY,
            },
        };
        let det = parent.determinant();
        (det != 0.0 && det.is_finite()).then(|| parent * motion * parent.inverse())
    }
}
