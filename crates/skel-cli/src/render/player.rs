//! What plays the asset's animation during a render: one clip's animation group, a weighted
//! blend of several clips, or the rest pose.

use std::sync::Arc;

use skel::anim::{AnimationController, AnimationGroup, PoseHook, PoseSink, WeightedBlend};

/// The animation source of a render.
#[derive(Debug, Clone)]
pub enum Player {
    /// One clip (`--clip`), played with the playback API users drive.
    Group(Box<AnimationGroup>),
    /// A weighted blend of clips (`--blend`).
    Blend(Box<WeightedBlend>),
    /// No clip: the rest pose (with any bone overrides).
    Rest(Box<AnimationController>),
}

impl Player {
    /// Advances by `delta_ms` and writes the pose to `sink`.
    /// The renderer places meshes by their nodes' world matrices, so they are brought up to
    /// date here too.
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        match self {
            Self::Group(g) => {
                skel::anim::tick_animation(g, delta_ms, sink);
                g.resolve_world_matrices();
            }
            Self::Blend(b) => {
                b.tick(delta_ms, sink);
                b.resolve_world_matrices();
            }
            Self::Rest(c) => {
                c.tick(delta_ms, sink);
                c.resolve_world_matrices();
            }
        }
    }

    /// World matrices of every node from the last pose.
    #[must_use]
    pub fn world_matrices(&self) -> &[f32] {
        match self {
            Self::Group(g) => &g.controller().scratch().world,
            Self::Blend(b) => &b.scratch().world,
            Self::Rest(c) => &c.scratch().world,
        }
    }

    /// Bone matrices of skeleton binding `binding` from the last pose.
    #[must_use]
    pub fn bone_matrices(&self, binding: usize) -> Option<&[f32]> {
        match self {
            Self::Group(g) => g.controller().bone_matrices(binding),
            Self::Blend(b) => b.bone_matrices(binding),
            Self::Rest(c) => c.bone_matrices(binding),
        }
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        match self {
            Self::Group(g) => g.controller().morph_weights(binding),
            Self::Blend(b) => b.morph_weights(binding),
            Self::Rest(c) => c.morph_weights(binding),
        }
    }

    /// How long one loop lasts in seconds: the clip's duration, the longest blended clip's,
    /// or 0 for the rest pose.
    #[must_use]
    pub fn duration(&self) -> f32 {
        match self {
            Self::Group(g) => g.clock().to() - g.clock().from(),
            Self::Blend(b) => b
                .layers()
                .iter()
                .map(|l| l.clock().to() - l.clock().from())
                .fold(0.0, f32::max),
            Self::Rest(_) => 0.0,
        }
    }

    /// Installs a bone-control hook on whatever plays.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        match self {
            Self::Group(g) => g.set_pose_hook(hook),
            Self::Blend(b) => b.set_pose_hook(hook),
            Self::Rest(c) => c.set_pose_hook(hook),
        }
    }
}
