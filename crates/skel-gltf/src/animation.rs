//! Animation clips: glTF animations → skel-anim [`Clip`]s, every path and interpolation, with
//! key times checked and rotation keys normalised.

use gltf::json::animation::Property;
use skel_anim::{Channel, ChannelPath, Clip, Marker, MorphBinding};

use crate::accessor::valid;
use crate::property_tracks::{PropertyReader, read_set_aside};
use crate::samplers::{SamplerCache, Shape};
use crate::{GltfDocument, GltfError, LoadWarning, PropertyTarget};

/// Every animation, the property targets their property tracks' slots stand for, and what was
/// skipped.
pub(crate) struct Animations {
    pub clips: Vec<Clip>,
    pub properties: Vec<PropertyTarget>,
    pub warnings: Vec<LoadWarning>,
}

/// Reads every animation. Weights channels aimed at a node without morph targets in the shown
/// scene animate nothing and are left out; pointer channels become joint channels or property
/// tracks, and channels skel does not apply are reported in the warnings.
pub(crate) fn read_clips(
    doc: &GltfDocument,
    node_count: usize,
    morph_bindings: &[MorphBinding],
) -> Result<Animations, GltfError> {
    let mut reader = PropertyReader::default();
    let clips = doc
        .root
        .animations
        .iter()
        .enumerate()
        .map(|(ai, anim)| read_clip(doc, ai, anim, node_count, morph_bindings, &mut reader))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Animations {
        clips,
        properties: reader.targets,
        warnings: reader.warnings,
    })
}

fn read_clip(
    doc: &GltfDocument,
    ai: usize,
    anim: &gltf::json::Animation,
    node_count: usize,
    morph_bindings: &[MorphBinding],
    reader: &mut PropertyReader,
) -> Result<Clip, GltfError> {
    let mut cache = SamplerCache::default();
    let mut channels = Vec::with_capacity(anim.channels.len());
    for (k, ch) in anim.channels.iter().enumerate() {
        // The file's own channel index (channels gltf-json cannot read were set aside).
        let ci = doc
            .channels
            .kept
            .get(ai)
            .and_then(|kept| kept.get(k))
            .copied()
            .unwrap_or(k);
        let node = ch.target.node.value();
        if node >= node_count {
            return Err(GltfError::BadReference {
                used_by: format!("animations[{ai}].channels[{ci}].target.node"),
                kind: "node",
                index: node,
                count: node_count,
            });
        }
        let path = match valid(&ch.target.path) {
            Some(Property::Translation) => ChannelPath::Translation,
            Some(Property::Rotation) => ChannelPath::Rotation,
            Some(Property::Scale) => ChannelPath::Scale,
            Some(Property::MorphTargetWeights) => ChannelPath::Weights,
            None => {
                return Err(GltfError::Invalid {
                    path: format!("animations[{ai}].channels[{ci}].target.path"),
                    reason: "not one of translation, rotation, scale, weights".into(),
                });
            }
        };
        let targets = if path == ChannelPath::Weights {
            match morph_bindings.iter().find(|m| m.node == node) {
                Some(m) => m.target_count(),
                None => continue,
            }
        } else {
            0
        };
        let sampler_index = cache.get(
            doc,
            ai,
            ch.sampler.value(),
            anim,
            Shape::Path(path, targets),
        )?;
        channels.push(Channel {
            sampler: sampler_index,
            node,
            path,
        });
    }
    let properties = read_set_aside(
        doc,
        ai,
        anim,
        node_count,
        morph_bindings,
        &mut cache,
        &mut channels,
        reader,
    )?;
    let markers = read_markers(ai, anim)?;
    Ok(Clip::new(
        anim.name.clone().unwrap_or_default(),
        cache.samplers,
        channels,
    )
    .with_markers(markers)
    .with_properties(properties))
}

/// The animation's markers from its `extras`: `{"markers": [{"name": "step_l", "time": 0.25}]}`.
/// Extras without `markers` are someone else's data and are left alone; a `markers` entry that
/// is not a list of named finite times is an error naming it.
fn read_markers(ai: usize, anim: &gltf::json::Animation) -> Result<Vec<Marker>, GltfError> {
    #[derive(serde::Deserialize)]
    struct Extras {
        markers: Option<Vec<MarkerJson>>,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct MarkerJson {
        name: String,
        time: f32,
    }
    let Some(raw) = &anim.extras else {
        return Ok(Vec::new());
    };
    let path = format!("animations[{ai}].extras.markers");
    let extras: Extras = match serde_json::from_str(raw.get()) {
        Ok(e) => e,
        // Extras that are not an object (or whose `markers` is malformed) — tell which.
        Err(e) if raw.get().contains("\"markers\"") => {
            return Err(GltfError::Invalid {
                path,
                reason: format!("expected a list of {{\"name\": string, \"time\": seconds}}: {e}"),
            });
        }
        Err(_) => return Ok(Vec::new()),
    };
    let markers = extras.markers.unwrap_or_default();
    if let Some((i, m)) = markers
        .iter()
        .enumerate()
        .find(|(_, m)| !m.time.is_finite())
    {
        return Err(GltfError::Invalid {
            path: format!("{path}[{i}].time"),
            reason: format!("{} is not a finite time", m.time),
        });
    }
    Ok(markers
        .into_iter()
        .map(|m| Marker {
            name: m.name,
            time: m.time,
        })
        .collect())
}
