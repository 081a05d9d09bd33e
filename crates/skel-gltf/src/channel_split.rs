//! Channels gltf-json cannot read, set aside before it parses the file.
//!
//! gltf-json 1.4 requires `target.node`, but `KHR_animation_pointer` channels have none (their
//! target is a JSON pointer), and some exporters write untargeted channels. The core spec and
//! the pointer spec say such a channel SHOULD be ignored, never fatal. So the raw JSON is read
//! first: every channel that is not a plain node channel (translation, rotation, scale,
//! weights on a node) leaves the array gltf-json sees, and is kept here with its original
//! index, so that every JSON path reported still names the file's own channel.

use serde_json::Value;

/// The target of a channel that is not a plain node channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetAsideTarget {
    /// `target.path` is `"pointer"` with `extensions.KHR_animation_pointer.pointer`.
    Pointer(String),
    /// `target.path` is `"pointer"` but the extension or its pointer is missing.
    PointerMissing,
    /// Neither a node nor a pointer (an untargeted channel).
    Untargeted,
    /// A node with a path that is not translation, rotation, scale or weights.
    NodePath {
        /// The node.
        node: usize,
        /// The path as written.
        path: String,
    },
}

/// A channel set aside from gltf-json's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAsideChannel {
    /// The animation it belongs to.
    pub animation: usize,
    /// Its index in the file's `channels` array.
    pub channel: usize,
    /// Its `sampler` index, `None` when missing or not an index.
    pub sampler: Option<usize>,
    /// What it animates.
    pub target: SetAsideTarget,
}

/// What the split leaves: the channels set aside, and for each animation the file indices of
/// the channels gltf-json keeps, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelSplit {
    /// Channels gltf-json does not see.
    pub set_aside: Vec<SetAsideChannel>,
    /// `kept[a][k]`: the file index of the `k`-th channel of animation `a` as gltf-json sees it.
    pub kept: Vec<Vec<usize>>,
}

const NODE_PATHS: [&str; 4] = ["translation", "rotation", "scale", "weights"];

fn index(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
}

fn classify(channel: &Value) -> Option<SetAsideTarget> {
    let target = channel.get("target");
    let node = index(target.and_then(|t| t.get("node")));
    let path = target.and_then(|t| t.get("path")).and_then(Value::as_str);
    match (node, path) {
        (Some(_), Some(p)) if NODE_PATHS.contains(&p) => None,
        (_, Some("pointer")) => Some(
            target
                .and_then(|t| t.pointer("/extensions/KHR_animation_pointer/pointer"))
                .and_then(Value::as_str)
                .map_or(SetAsideTarget::PointerMissing, |p| {
                    SetAsideTarget::Pointer(p.to_owned())
                }),
        ),
        (Some(node), Some(p)) => Some(SetAsideTarget::NodePath {
            node,
            path: p.to_owned(),
        }),
        // A node channel without a path is malformed JSON of a kind gltf-json reports.
        (Some(_), None) => None,
        (None, _) => Some(SetAsideTarget::Untargeted),
    }
}

/// Removes from `root`'s animations every channel that is not a plain node channel, and
/// returns them with the indices of those kept. JSON that is not shaped like glTF is left for
/// gltf-json to report.
pub fn split_channels(root: &mut Value) -> ChannelSplit {
    let mut split = ChannelSplit::default();
    let Some(animations) = root.get_mut("animations").and_then(Value::as_array_mut) else {
        return split;
    };
    for (ai, anim) in animations.iter_mut().enumerate() {
        let Some(channels) = anim.get_mut("channels").and_then(Value::as_array_mut) else {
            split.kept.push(Vec::new());
            continue;
        };
        let mut kept = Vec::with_capacity(channels.len());
        let mut kept_values = Vec::with_capacity(channels.len());
        for (ci, ch) in std::mem::take(channels).into_iter().enumerate() {
            match classify(&ch) {
                None => {
                    kept.push(ci);
                    kept_values.push(ch);
                }
                Some(target) => split.set_aside.push(SetAsideChannel {
                    animation: ai,
                    channel: ci,
                    sampler: index(ch.get("sampler")),
                    target,
                }),
            }
        }
        *channels = kept_values;
        split.kept.push(kept);
    }
    split
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_untargeted_and_odd_paths_are_set_aside_with_their_file_indices() {
        let mut v: Value = serde_json::from_str(
            r#"{"animations":[{"channels":[
                {"sampler":0,"target":{"node":1,"path":"rotation"}},
                {"sampler":1,"target":{"path":"pointer","extensions":{"KHR_animation_pointer":
                    {"pointer":"/materials/0/pbrMetallicRoughness/baseColorFactor"}}}},
                {"sampler":2,"target":{"path":"translation"}},
                {"sampler":3,"target":{"node":0,"path":"visibility"}},
                {"sampler":4,"target":{"path":"pointer"}},
                {"sampler":5,"target":{"node":2,"path":"weights"}}
            ],"samplers":[]}]}"#,
        )
        .unwrap();
        let split = split_channels(&mut v);
        assert_eq!(split.kept, vec![vec![0, 5]]);
        let targets: Vec<_> = split
            .set_aside
            .iter()
            .map(|c| (c.channel, c.sampler, c.target.clone()))
            .collect();
        assert_eq!(
            targets,
            vec![
                (
                    1,
                    Some(1),
                    SetAsideTarget::Pointer(
                        "/materials/0/pbrMetallicRoughness/baseColorFactor".into()
                    )
                ),
                (2, Some(2), SetAsideTarget::Untargeted),
                (
                    3,
                    Some(3),
                    SetAsideTarget::NodePath {
                        node: 0,
                        path: "visibility".into()
                    }
                ),
                (4, Some(4), SetAsideTarget::PointerMissing),
            ]
        );
        assert_eq!(v["animations"][0]["channels"].as_array().unwrap().len(), 2);
    }
}
