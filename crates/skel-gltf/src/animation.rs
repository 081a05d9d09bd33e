//! Animation clips: glTF animations → skel-anim [`Clip`]s, every path and interpolation, with
//! key times checked and rotation keys normalised.

use gltf::json::accessor::Type;
use gltf::json::animation::{Interpolation as JsonInterpolation, Property};
use skel_anim::{Channel, ChannelPath, Clip, Interpolation, Marker, MorphBinding, Sampler};

use crate::accessor::{ANY_NORM, Expect, FLOAT, IntAs, accessor_count, read_f32, valid};
use crate::{GltfDocument, GltfError};

/// Reads every animation. Weights channels aimed at a node without morph targets in the shown
/// scene animate nothing and are left out.
pub(crate) fn read_clips(
    doc: &GltfDocument,
    node_count: usize,
    morph_bindings: &[MorphBinding],
) -> Result<Vec<Clip>, GltfError> {
    doc.root
        .animations
        .iter()
        .enumerate()
        .map(|(ai, anim)| read_clip(doc, ai, anim, node_count, morph_bindings))
        .collect()
}

fn read_clip(
    doc: &GltfDocument,
    ai: usize,
    anim: &gltf::json::Animation,
    node_count: usize,
    morph_bindings: &[MorphBinding],
) -> Result<Clip, GltfError> {
    let mut samplers: Vec<Sampler> = Vec::new();
    // glTF sampler → skel sampler, per path kind (a sampler shared by two paths of different
    // widths would need two decodings; sharing within one kind is kept).
    let mut made: Vec<(usize, ChannelPath, usize)> = Vec::new();
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
        let si = ch.sampler.value();
        let sampler_index =
            if let Some(&(_, _, k)) = made.iter().find(|&&(s, p, _)| s == si && p == path) {
                k
            } else {
                let sampler = read_sampler(doc, ai, si, anim, path, targets)?;
                samplers.push(sampler);
                made.push((si, path, samplers.len() - 1));
                samplers.len() - 1
            };
        channels.push(Channel {
            sampler: sampler_index,
            node,
            path,
        });
    }
    let markers = read_markers(ai, anim)?;
    Ok(Clip::new(anim.name.clone().unwrap_or_default(), samplers, channels).with_markers(markers))
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

fn read_sampler(
    doc: &GltfDocument,
    ai: usize,
    si: usize,
    anim: &gltf::json::Animation,
    path: ChannelPath,
    targets: usize,
) -> Result<Sampler, GltfError> {
    let s = anim
        .samplers
        .get(si)
        .ok_or_else(|| GltfError::BadReference {
            used_by: format!("animations[{ai}].channels"),
            kind: "sampler",
            index: si,
            count: anim.samplers.len(),
        })?;
    let interpolation = match valid(&s.interpolation) {
        Some(JsonInterpolation::Linear) => Interpolation::Linear,
        Some(JsonInterpolation::Step) => Interpolation::Step,
        Some(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
        None => {
            return Err(GltfError::Invalid {
                path: format!("animations[{ai}].samplers[{si}].interpolation"),
                reason: "not one of LINEAR, STEP, CUBICSPLINE".into(),
            });
        }
    };
    let input_acc = s.input.value();
    let input_use = format!("animations[{ai}].samplers[{si}].input");
    let times = read_f32(
        doc,
        input_acc,
        &input_use,
        Expect {
            ty: Type::Scalar,
            components: FLOAT,
        },
        IntAs::Flag,
    )?;
    if times.is_empty() {
        return Err(GltfError::AccessorCount {
            accessor: input_acc,
            used_as: input_use,
            expected: 1,
            got: 0,
        });
    }
    if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(GltfError::KeyTimesNotIncreasing {
            accessor: input_acc,
            key: k + 1,
            time: times[k + 1],
        });
    }
    let output_acc = s.output.value();
    let output_use = format!("animations[{ai}].samplers[{si}].output ({path:?})");
    let (ty, components, int_as, per_element) = match path {
        ChannelPath::Translation | ChannelPath::Scale => (Type::Vec3, FLOAT, IntAs::Flag, 1),
        ChannelPath::Rotation => (Type::Vec4, ANY_NORM, IntAs::Normalized, 1),
        ChannelPath::Weights => (Type::Scalar, ANY_NORM, IntAs::Normalized, targets),
    };
    let expected = times.len() * interpolation.outputs_per_key() * per_element;
    let got = accessor_count(doc, output_acc, &output_use)?;
    if got != expected {
        return Err(GltfError::SamplerOutputCount {
            animation: ai,
            sampler: si,
            accessor: output_acc,
            keys: times.len(),
            expected,
            got,
        });
    }
    let values = read_f32(
        doc,
        output_acc,
        &output_use,
        Expect { ty, components },
        int_as,
    )?;
    let mut sampler = Sampler::new(times, values, interpolation)?;
    if path == ChannelPath::Rotation {
        sampler.normalize_rotation_keys();
    }
    Ok(sampler)
}
