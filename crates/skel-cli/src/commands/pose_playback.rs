//! What `skel pose` plays, shared by its reference poser (`pose.rs`) and its poser with foot
//! placement (`pose_terrain.rs`): the clip or layer stack, the bone-control hook, and what the
//! report says of the clip.

use skel::anim::{Interpolation, NullSink};
use skel::gltf::GltfAsset;

use super::pose_report::ClipSummary;
use crate::render::BoneOverride;

/// What `skel pose` plays: one clip (or the rest pose), or a layer stack with optional root
/// motion (the root held in place).
#[derive(Debug, Clone, Copy)]
pub struct Playback<'a> {
    /// The clip, without a stack.
    pub clip: Option<usize>,
    /// The layer stack.
    pub layers: Option<&'a [skel::anim::LayerDesc]>,
    /// Root motion extracted from the stack.
    pub root_motion: Option<skel::anim::RootMotion>,
    /// IK jobs solved after the stack's layers.
    pub ik: &'a [skel::anim::IkJob],
}

/// Enables bone control on `data`, applies `bones` and returns the hook that makes every
/// pose follow the seed's rules (`None` without overrides).
///
/// # Errors
/// A bone no skin of the asset names; what bone control refuses.
pub fn bone_hook(
    data: &std::sync::Arc<skel::anim::AnimationData>,
    bones: &[BoneOverride],
) -> Result<Option<std::sync::Arc<dyn skel::anim::PoseHook>>, Box<dyn std::error::Error>> {
    if bones.is_empty() {
        return Ok(None);
    }
    let control = skel::bone_control::enable_bone_control(data)?;
    for op in bones {
        let (BoneOverride::Hide(name) | BoneOverride::Rotate(name, _)) = op;
        let Some((skeleton, bone)) = control
            .skeletons()
            .iter()
            .find_map(|s| s.bone_index_by_name(name).map(|b| (s, b)))
        else {
            return Err(format!("no bone named {name:?} in any skin of the asset").into());
        };
        match op {
            BoneOverride::Hide(_) => skeleton.set_bone_visible(bone, false, &mut NullSink)?,
            BoneOverride::Rotate(_, q) => {
                skeleton.set_bone_rotation_quaternion(bone, *q, &mut NullSink)?;
            }
        }
    }
    Ok(Some(control.pose_hook()))
}

fn interpolation_name(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Step => "STEP",
        Interpolation::Linear => "LINEAR",
        Interpolation::CubicSpline => "CUBICSPLINE",
    }
}

/// What the report says of `clip` (index, name, length, channels, interpolations).
#[must_use]
pub fn clip_summary(asset: &GltfAsset, clip: Option<usize>) -> Option<ClipSummary> {
    let clips = &asset.animation.clips;
    clip.and_then(|c| clips.get(c).map(|data| (c, data)))
        .map(|(c, data)| {
            let mut interpolations: Vec<_> = data
                .samplers
                .iter()
                .map(|s| interpolation_name(s.interpolation()))
                .collect();
            interpolations.sort_unstable();
            interpolations.dedup();
            ClipSummary {
                index: c,
                name: data.name.clone(),
                duration: data.duration(),
                channels: data.channels.len(),
                interpolations,
            }
        })
}
