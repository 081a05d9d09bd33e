//! The channels gltf-json did not see (see [`crate::channel_split`]): pointer channels become
//! joint channels or property tracks; what skel does not apply is reported, never fatal.

use gltf::json::animation::Interpolation as JsonInterpolation;
use skel_anim::{Channel, ChannelPath, MorphBinding, PropertyTrack};

use crate::accessor::valid;
use crate::channel_split::SetAsideTarget;
use crate::pointer::{Pointed, PropertyTarget, parse_pointer, rest_value};
use crate::samplers::{SamplerCache, Shape};
use crate::{GltfDocument, GltfError, LoadWarning};

/// The property slots met so far (one per distinct target, shared by every clip) and the
/// warnings of every animation.
#[derive(Default)]
pub(crate) struct PropertyReader {
    pub targets: Vec<PropertyTarget>,
    pub warnings: Vec<LoadWarning>,
}

impl PropertyReader {
    fn slot(&mut self, target: PropertyTarget) -> usize {
        if let Some(i) = self.targets.iter().position(|t| *t == target) {
            return i;
        }
        self.targets.push(target);
        self.targets.len() - 1
    }
}

/// Whether the object `target` names exists in the file.
fn target_exists(doc: &GltfDocument, target: PropertyTarget, node_count: usize) -> bool {
    let count = |pointer: &str| {
        doc.raw
            .pointer(pointer)
            .and_then(serde_json::Value::as_array)
            .map_or(0, Vec::len)
    };
    match target {
        PropertyTarget::NodeVisible { node } => node < node_count,
        PropertyTarget::Material { material, .. } => material < doc.root.materials.len(),
        PropertyTarget::Camera { camera, .. } => camera < count("/cameras"),
        PropertyTarget::Light { light, .. } => {
            light < count("/extensions/KHR_lights_punctual/lights")
        }
    }
}

/// Reads animation `ai`'s set-aside channels: joint channels are appended to `channels`, the
/// property tracks returned, the rest reported in `reader.warnings`.
#[expect(
    clippy::too_many_arguments,
    reason = "the clip reader's state, passed through"
)]
pub(crate) fn read_set_aside(
    doc: &GltfDocument,
    ai: usize,
    anim: &gltf::json::Animation,
    node_count: usize,
    morph_bindings: &[MorphBinding],
    cache: &mut SamplerCache,
    channels: &mut Vec<Channel>,
    reader: &mut PropertyReader,
) -> Result<Vec<PropertyTrack>, GltfError> {
    let mut tracks = Vec::new();
    for ch in doc.channels.set_aside.iter().filter(|c| c.animation == ai) {
        let path = format!("animations[{ai}].channels[{}]", ch.channel);
        let mut skip = |message: String| reader.warnings.push(LoadWarning::new(&path, message));
        let pointer = match &ch.target {
            SetAsideTarget::Pointer(p) => p.clone(),
            SetAsideTarget::PointerMissing => {
                skip("path \"pointer\" without KHR_animation_pointer's pointer: ignored".into());
                continue;
            }
            SetAsideTarget::Untargeted => {
                skip("no target node: ignored (glTF 2.0: such a channel is skipped)".into());
                continue;
            }
            SetAsideTarget::NodePath { node, path: p } => {
                skip(format!(
                    "node {node}, path {p:?}: not a path skel animates, ignored"
                ));
                continue;
            }
        };
        let Some(si) = ch.sampler.filter(|&s| s < anim.samplers.len()) else {
            skip(format!("pointer {pointer}: no valid sampler, ignored"));
            continue;
        };
        match parse_pointer(&pointer) {
            None => skip(format!(
                "pointer {pointer}: not a property skel animates, ignored"
            )),
            Some(Pointed::Node(node, p)) => {
                if node >= node_count {
                    skip(format!(
                        "pointer {pointer}: node {node} of {node_count}, ignored"
                    ));
                    continue;
                }
                let targets = if p == ChannelPath::Weights {
                    match morph_bindings.iter().find(|m| m.node == node) {
                        Some(m) => m.target_count(),
                        None => continue,
                    }
                } else {
                    0
                };
                let sampler = cache.get(doc, ai, si, anim, Shape::Path(p, targets))?;
                channels.push(Channel {
                    sampler,
                    node,
                    path: p,
                });
            }
            Some(Pointed::Property(target)) => {
                if !target_exists(doc, target, node_count) {
                    skip(format!(
                        "pointer {pointer}: names no object of the file, ignored"
                    ));
                    continue;
                }
                let kind = target.kind();
                let step = valid(&anim.samplers[si].interpolation) == Some(JsonInterpolation::Step);
                if !kind.blends() && !step {
                    skip(format!(
                        "pointer {pointer}: a {kind:?} must use STEP interpolation \
                         (KHR_animation_pointer), ignored"
                    ));
                    continue;
                }
                let sampler = cache.get(doc, ai, si, anim, Shape::Floats(kind.components()))?;
                let slot = reader.slot(target);
                tracks.push(PropertyTrack {
                    slot,
                    kind,
                    sampler,
                    rest: rest_value(&doc.raw, &pointer, target),
                    node: target.node(),
                });
            }
        }
    }
    Ok(tracks)
}
