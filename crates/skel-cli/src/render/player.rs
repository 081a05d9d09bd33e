//! What plays the asset's animation during a render: one [`Player`] of layers, built from
//! `--clip` (one layer), `--blend` (blend layers), `--layers` (a layer-stack file) or nothing
//! (the first clip, or the rest pose).

use skel::AssetContainer;
pub use skel::anim::Player;
use skel::anim::glam::Mat4;
use skel::anim::{LayerDesc, PoseSink};

use super::clips::{Animation, clip_list, resolve_clip};
use super::error::RenderError;

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

/// The player for `animation` over `container`'s rig, and a line saying what it plays.
///
/// # Errors
/// An unknown clip, a bad `--blend` spec or a bad layer-stack file.
pub fn make_player(
    container: &AssetContainer,
    animation: &Animation,
    asset: &str,
) -> Result<(Player, String), RenderError> {
    let data = &container.animation;
    let mut player = Player::new(&container.rig);
    let what = match animation {
        Animation::Default if data.clips.is_empty() => "rest pose (no clips)".to_owned(),
        Animation::Default => {
            player.add_layer(LayerDesc::new(0))?;
            format!("clip 0 {:?}", data.clips[0].name)
        }
        Animation::Clip(requested) => {
            let clip = resolve_clip(container, requested, asset)?;
            player.add_layer(LayerDesc::new(clip))?;
            format!("clip {clip} {:?}", data.clips[clip].name)
        }
        Animation::Blend(spec) => {
            let weights =
                skel::anim::parse_blend_spec(data, spec).map_err(|e| RenderError::BadBlend {
                    asset: asset.to_owned(),
                    spec: spec.clone(),
                    reason: e.to_string(),
                    available: clip_list(container),
                })?;
            for (clip, weight) in weights {
                player.add_layer(LayerDesc::new(clip).weight(weight))?;
            }
            format!("blend {spec}")
        }
        Animation::Layers(path) => {
            let stack = crate::layer_file::load(path, data)?;
            let count = stack.layers.len();
            for desc in stack.layers {
                player.add_layer(desc)?;
            }
            for job in stack.ik {
                player.add_ik(job)?;
            }
            player.set_root_motion(stack.root_motion)?;
            format!("{count} layers from {}", path.display())
        }
    };
    Ok((player, what))
}
