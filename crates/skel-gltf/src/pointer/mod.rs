//! `KHR_animation_pointer` targets: a JSON pointer into the glTF document, read into the typed
//! properties skel animates.
//!
//! Node transforms and morph weights become plain joint channels (the spec says a pointer to
//! `/nodes/N/rotation` is the same animation as a `rotation` channel); every other property
//! skel knows becomes a [`PropertyTarget`], one slot per distinct target across the asset's
//! clips. A pointer skel does not apply is skipped with a warning.

use serde_json::Value;
use skel_anim::{ChannelPath, PropertyKind};

/// A texture slot of a material (where a `KHR_texture_transform` sits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureSlot {
    /// `pbrMetallicRoughness.baseColorTexture`.
    BaseColor,
    /// `pbrMetallicRoughness.metallicRoughnessTexture`.
    MetallicRoughness,
    /// `normalTexture`.
    Normal,
    /// `occlusionTexture`.
    Occlusion,
    /// `emissiveTexture`.
    Emissive,
}

impl TextureSlot {
    /// Every slot with its JSON path inside a material.
    pub const ALL: [(Self, &'static str); 5] = [
        (Self::BaseColor, "pbrMetallicRoughness/baseColorTexture"),
        (
            Self::MetallicRoughness,
            "pbrMetallicRoughness/metallicRoughnessTexture",
        ),
        (Self::Normal, "normalTexture"),
        (Self::Occlusion, "occlusionTexture"),
        (Self::Emissive, "emissiveTexture"),
    ];
}

/// A field of `KHR_texture_transform`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UvField {
    /// `offset` (2 floats).
    Offset,
    /// `rotation` (radians, counter-clockwise).
    Rotation,
    /// `scale` (2 floats).
    Scale,
}

/// A material property skel animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaterialField {
    /// `pbrMetallicRoughness.baseColorFactor` (linear RGBA).
    BaseColorFactor,
    /// `emissiveFactor` (linear RGB).
    EmissiveFactor,
    /// `pbrMetallicRoughness.metallicFactor`.
    MetallicFactor,
    /// `pbrMetallicRoughness.roughnessFactor`.
    RoughnessFactor,
    /// `alphaCutoff`.
    AlphaCutoff,
    /// `normalTexture.scale`.
    NormalScale,
    /// `occlusionTexture.strength`.
    OcclusionStrength,
    /// `KHR_materials_emissive_strength.emissiveStrength`.
    EmissiveStrength,
    /// A texture slot's `KHR_texture_transform` field.
    TextureTransform(TextureSlot, UvField),
}

/// A camera property (`perspective` or `orthographic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CameraField {
    /// `perspective.yfov` (radians).
    Yfov,
    /// `znear` of either projection.
    Znear,
    /// `zfar` of either projection.
    Zfar,
    /// `orthographic.xmag`.
    Xmag,
    /// `orthographic.ymag`.
    Ymag,
}

/// A `KHR_lights_punctual` light property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LightField {
    /// `color` (linear RGB).
    Color,
    /// `intensity`.
    Intensity,
    /// `range`.
    Range,
    /// `spot.innerConeAngle`.
    InnerConeAngle,
    /// `spot.outerConeAngle`.
    OuterConeAngle,
}

/// What a property slot animates: the meaning of slot `i` of
/// [`GltfAsset::properties`](crate::GltfAsset::properties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PropertyTarget {
    /// `KHR_node_visibility` `visible` of a node (a hidden node hides its meshes and its
    /// children's).
    NodeVisible {
        /// The node.
        node: usize,
    },
    /// A material's property.
    Material {
        /// The material.
        material: usize,
        /// Which.
        field: MaterialField,
    },
    /// A camera's property.
    Camera {
        /// The camera.
        camera: usize,
        /// Which.
        field: CameraField,
    },
    /// A light's property.
    Light {
        /// The light (`KHR_lights_punctual.lights` index).
        light: usize,
        /// Which.
        field: LightField,
    },
}

impl PropertyTarget {
    /// What it holds.
    #[must_use]
    pub fn kind(self) -> PropertyKind {
        use MaterialField as M;
        match self {
            Self::NodeVisible { .. } => PropertyKind::Bool,
            Self::Material { field, .. } => match field {
                M::BaseColorFactor => PropertyKind::Float(4),
                M::EmissiveFactor => PropertyKind::Float(3),
                M::TextureTransform(_, UvField::Offset | UvField::Scale) => PropertyKind::Float(2),
                _ => PropertyKind::Float(1),
            },
            Self::Camera { .. } => PropertyKind::Float(1),
            Self::Light { field, .. } => match field {
                LightField::Color => PropertyKind::Float(3),
                _ => PropertyKind::Float(1),
            },
        }
    }

    /// The value glTF gives the property when the file does not write it.
    #[must_use]
    pub fn default_value(self) -> [f32; 4] {
        use MaterialField as M;
        match self {
            Self::NodeVisible { .. } => [1.0, 0.0, 0.0, 0.0],
            Self::Material { field, .. } => match field {
                M::BaseColorFactor => [1.0; 4],
                M::EmissiveFactor => [0.0; 4],
                M::AlphaCutoff => [0.5, 0.0, 0.0, 0.0],
                M::TextureTransform(_, UvField::Offset | UvField::Rotation) => [0.0; 4],
                _ => [1.0, 1.0, 0.0, 0.0],
            },
            Self::Camera { field, .. } => match field {
                CameraField::Znear => [0.01, 0.0, 0.0, 0.0],
                CameraField::Zfar => [f32::MAX, 0.0, 0.0, 0.0],
                _ => [1.0, 0.0, 0.0, 0.0],
            },
            Self::Light { field, .. } => match field {
                LightField::Color | LightField::Intensity => [1.0, 1.0, 1.0, 0.0],
                LightField::Range => [f32::MAX, 0.0, 0.0, 0.0],
                LightField::InnerConeAngle => [0.0; 4],
                LightField::OuterConeAngle => [std::f32::consts::FRAC_PI_4, 0.0, 0.0, 0.0],
            },
        }
    }

    /// The node masks weigh it by, if any.
    #[must_use]
    pub fn node(self) -> Option<usize> {
        match self {
            Self::NodeVisible { node } => Some(node),
            _ => None,
        }
    }
}

/// What a pointer animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointed {
    /// A node's translation, rotation, scale or morph weights: a joint channel.
    Node(usize, ChannelPath),
    /// A property skel samples.
    Property(PropertyTarget),
}

fn index(s: &str) -> Option<usize> {
    // JSON-pointer array indices: decimal without a sign or leading zeros.
    (!s.is_empty() && (s == "0" || !s.starts_with('0')) && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn material_field(rest: &[&str]) -> Option<MaterialField> {
    use MaterialField as M;
    Some(match rest {
        ["pbrMetallicRoughness", "baseColorFactor"] => M::BaseColorFactor,
        ["pbrMetallicRoughness", "metallicFactor"] => M::MetallicFactor,
        ["pbrMetallicRoughness", "roughnessFactor"] => M::RoughnessFactor,
        ["emissiveFactor"] => M::EmissiveFactor,
        ["alphaCutoff"] => M::AlphaCutoff,
        ["normalTexture", "scale"] => M::NormalScale,
        ["occlusionTexture", "strength"] => M::OcclusionStrength,
        [
            "extensions",
            "KHR_materials_emissive_strength",
            "emissiveStrength",
        ] => M::EmissiveStrength,
        _ => {
            let (field, slot_path) = match rest.split_last_chunk::<3>() {
                Some((slot, ["extensions", "KHR_texture_transform", f])) => (*f, slot),
                _ => return None,
            };
            let field = match field {
                "offset" => UvField::Offset,
                "rotation" => UvField::Rotation,
                "scale" => UvField::Scale,
                _ => return None,
            };
            let joined = slot_path.join("/");
            let slot = TextureSlot::ALL
                .iter()
                .find(|(_, p)| *p == joined)
                .map(|(s, _)| *s)?;
            M::TextureTransform(slot, field)
        }
    })
}

/// Reads `pointer` (`/materials/0/pbrMetallicRoughness/baseColorFactor`, …); `None` for a
/// pointer skel does not apply.
#[must_use]
pub fn parse_pointer(pointer: &str) -> Option<Pointed> {
    let parts: Vec<&str> = pointer.strip_prefix('/')?.split('/').collect();
    match parts.as_slice() {
        ["nodes", n, path] => {
            let node = index(n)?;
            let path = match *path {
                "translation" => ChannelPath::Translation,
                "rotation" => ChannelPath::Rotation,
                "scale" => ChannelPath::Scale,
                "weights" => ChannelPath::Weights,
                _ => return None,
            };
            Some(Pointed::Node(node, path))
        }
        ["nodes", n, "extensions", "KHR_node_visibility", "visible"] => {
            Some(Pointed::Property(PropertyTarget::NodeVisible {
                node: index(n)?,
            }))
        }
        ["materials", m, rest @ ..] => Some(Pointed::Property(PropertyTarget::Material {
            material: index(m)?,
            field: material_field(rest)?,
        })),
        ["cameras", c, projection, field] => {
            let field = match (*projection, *field) {
                ("perspective", "yfov") => CameraField::Yfov,
                ("perspective" | "orthographic", "znear") => CameraField::Znear,
                ("perspective" | "orthographic", "zfar") => CameraField::Zfar,
                ("orthographic", "xmag") => CameraField::Xmag,
                ("orthographic", "ymag") => CameraField::Ymag,
                _ => return None,
            };
            Some(Pointed::Property(PropertyTarget::Camera {
                camera: index(c)?,
                field,
            }))
        }
        ["extensions", "KHR_lights_punctual", "lights", l, rest @ ..] => {
            let field = match rest {
                ["color"] => LightField::Color,
                ["intensity"] => LightField::Intensity,
                ["range"] => LightField::Range,
                ["spot", "innerConeAngle"] => LightField::InnerConeAngle,
                ["spot", "outerConeAngle"] => LightField::OuterConeAngle,
                _ => return None,
            };
            Some(Pointed::Property(PropertyTarget::Light {
                light: index(l)?,
                field,
            }))
        }
        _ => None,
    }
}

/// The property's value as the file writes it (the pointer resolved in the raw JSON), else
/// glTF's default.
pub(crate) fn rest_value(raw: &Value, pointer: &str, target: PropertyTarget) -> [f32; 4] {
    let mut v = target.default_value();
    #[expect(
        clippy::cast_possible_truncation,
        reason = "glTF stores these properties as f32"
    )]
    match raw.pointer(pointer) {
        Some(Value::Array(a)) => {
            for (slot, x) in v.iter_mut().zip(a) {
                if let Some(x) = x.as_f64() {
                    *slot = x as f32;
                }
            }
        }
        Some(Value::Number(n)) => {
            if let Some(x) = n.as_f64() {
                v[0] = x as f32;
            }
        }
        Some(Value::Bool(b)) => v[0] = if *b { 1.0 } else { 0.0 },
        _ => {}
    }
    v
}

#[cfg(test)]
mod tests;
