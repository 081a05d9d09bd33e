//! Animation samplers read from their accessors: key times checked, outputs decoded to the
//! width of the path or property they drive, each glTF sampler decoded once per width.

use gltf::json::accessor::Type;
use gltf::json::animation::Interpolation as JsonInterpolation;
use skel_anim::{ChannelPath, Interpolation, Sampler};

use crate::accessor::{ANY_NORM, Expect, FLOAT, IntAs, accessor_count, read_f32, valid};
use crate::{GltfDocument, GltfError};

/// glTF sampler → skel sampler, per path kind (a sampler shared by two paths of different
/// widths would need two decodings; sharing within one kind is kept).
#[derive(Default)]
pub(crate) struct SamplerCache {
    made: Vec<(usize, Shape, usize)>,
    pub samplers: Vec<Sampler>,
}

impl SamplerCache {
    /// The skel sampler of glTF sampler `si` read as `shape`, decoded once.
    pub(crate) fn get(
        &mut self,
        doc: &GltfDocument,
        ai: usize,
        si: usize,
        anim: &gltf::json::Animation,
        shape: Shape,
    ) -> Result<usize, GltfError> {
        if let Some(&(_, _, k)) = self.made.iter().find(|&&(s, p, _)| s == si && p == shape) {
            return Ok(k);
        }
        let sampler = read_sampler(doc, ai, si, anim, shape)?;
        self.samplers.push(sampler);
        self.made.push((si, shape, self.samplers.len() - 1));
        Ok(self.samplers.len() - 1)
    }
}

/// How a sampler's output is read: a joint path (weights with their target count) or a
/// property of `n` floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Path(ChannelPath, usize),
    Floats(usize),
}

fn read_sampler(
    doc: &GltfDocument,
    ai: usize,
    si: usize,
    anim: &gltf::json::Animation,
    shape: Shape,
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
    let output_use = match shape {
        Shape::Path(path, _) => format!("animations[{ai}].samplers[{si}].output ({path:?})"),
        Shape::Floats(n) => format!("animations[{ai}].samplers[{si}].output ({n} floats)"),
    };
    let (ty, components, int_as, per_element) = match shape {
        Shape::Path(ChannelPath::Translation | ChannelPath::Scale, _) => {
            (Type::Vec3, FLOAT, IntAs::Flag, 1)
        }
        Shape::Path(ChannelPath::Rotation, _) => (Type::Vec4, ANY_NORM, IntAs::Normalized, 1),
        Shape::Path(ChannelPath::Weights, targets) => {
            (Type::Scalar, ANY_NORM, IntAs::Normalized, targets)
        }
        // Pointer outputs: floats, or integers (bools, ints) read as their values.
        Shape::Floats(n) => (
            match n {
                1 => Type::Scalar,
                2 => Type::Vec2,
                3 => Type::Vec3,
                _ => Type::Vec4,
            },
            ANY_NORM,
            IntAs::Flag,
            1,
        ),
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
    if matches!(shape, Shape::Path(ChannelPath::Rotation, _)) {
        sampler.normalize_rotation_keys();
    }
    Ok(sampler)
}
