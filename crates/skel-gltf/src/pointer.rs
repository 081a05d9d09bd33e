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
mod tests {
    use super::*;

    #[test]
    fn every_target_kind_of_the_spec_parses() {
        use MaterialField as M;
        let mat = |field| {
            Some(Pointed::Property(PropertyTarget::Material {
                material: 2,
                field,
            }))
        };
        assert_eq!(
            parse_pointer("/nodes/3/rotation"),
            Some(Pointed::Node(3, ChannelPath::Rotation))
        );
        assert_eq!(
            parse_pointer("/nodes/1/weights"),
            Some(Pointed::Node(1, ChannelPath::Weights))
        );
        assert_eq!(
            parse_pointer("/nodes/4/extensions/KHR_node_visibility/visible"),
            Some(Pointed::Property(PropertyTarget::NodeVisible { node: 4 }))
        );
        assert_eq!(
            parse_pointer("/materials/2/pbrMetallicRoughness/baseColorFactor"),
            mat(M::BaseColorFactor)
        );
        assert_eq!(
            parse_pointer("/materials/2/emissiveFactor"),
            mat(M::EmissiveFactor)
        );
        assert_eq!(
            parse_pointer("/materials/2/alphaCutoff"),
            mat(M::AlphaCutoff)
        );
        assert_eq!(
            parse_pointer("/materials/2/normalTexture/scale"),
            mat(M::NormalScale)
        );
        assert_eq!(
            parse_pointer("/materials/2/occlusionTexture/strength"),
            mat(M::OcclusionStrength)
        );
        assert_eq!(
            parse_pointer(
                "/materials/2/extensions/KHR_materials_emissive_strength/emissiveStrength"
            ),
            mat(M::EmissiveStrength)
        );
        assert_eq!(
            parse_pointer(
                "/materials/2/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"
            ),
            mat(M::TextureTransform(TextureSlot::BaseColor, UvField::Offset))
        );
        assert_eq!(
            parse_pointer("/materials/2/emissiveTexture/extensions/KHR_texture_transform/rotation"),
            mat(M::TextureTransform(
                TextureSlot::Emissive,
                UvField::Rotation
            ))
        );
        assert_eq!(
            parse_pointer("/cameras/0/perspective/yfov"),
            Some(Pointed::Property(PropertyTarget::Camera {
                camera: 0,
                field: CameraField::Yfov
            }))
        );
        assert_eq!(
            parse_pointer("/cameras/1/orthographic/ymag"),
            Some(Pointed::Property(PropertyTarget::Camera {
                camera: 1,
                field: CameraField::Ymag
            }))
        );
        assert_eq!(
            parse_pointer("/extensions/KHR_lights_punctual/lights/0/spot/outerConeAngle"),
            Some(Pointed::Property(PropertyTarget::Light {
                light: 0,
                field: LightField::OuterConeAngle
            }))
        );
        for unknown in [
            "",
            "nodes/0/rotation",
            "/nodes/01/rotation",
            "/nodes/-1/rotation",
            "/nodes/0/matrix",
            "/materials/0/pbrMetallicRoughness/baseColorTexture/index",
            "/materials/0/extensions/KHR_materials_volume/thicknessFactor",
            "/cameras/0/perspective/aspectRatio",
            "/meshes/0/weights",
        ] {
            assert_eq!(parse_pointer(unknown), None, "{unknown}");
        }
    }

    /// What a file that leaves a field out means, from the specification of each: glTF 2.0's
    /// material (`baseColorFactor` [1, 1, 1, 1], `emissiveFactor` [0, 0, 0], `alphaCutoff`
    /// 0.5, metallic, roughness, normal scale and occlusion strength 1),
    /// `KHR_materials_emissive_strength` (1), `KHR_texture_transform` (offset 0, rotation 0,
    /// scale 1), a camera without `zfar` (an infinite projection) and `KHR_lights_punctual`
    /// (colour white, intensity 1, range infinite, cones 0 and π/4), `KHR_node_visibility`
    /// (visible). An infinite value is `f32::MAX`.
    #[test]
    fn a_field_the_file_leaves_out_takes_its_specification_default() {
        use MaterialField as M;
        let empty = serde_json::json!({});
        let m = |field| PropertyTarget::Material { material: 0, field };
        let uv = |f| m(M::TextureTransform(TextureSlot::BaseColor, f));
        let cam = |field| PropertyTarget::Camera { camera: 0, field };
        let light = |field| PropertyTarget::Light { light: 0, field };
        let cases: [(PropertyTarget, &[f32]); 17] = [
            (m(M::BaseColorFactor), &[1.0, 1.0, 1.0, 1.0]),
            (m(M::EmissiveFactor), &[0.0, 0.0, 0.0]),
            (m(M::AlphaCutoff), &[0.5]),
            (m(M::MetallicFactor), &[1.0]),
            (m(M::RoughnessFactor), &[1.0]),
            (m(M::NormalScale), &[1.0]),
            (m(M::OcclusionStrength), &[1.0]),
            (m(M::EmissiveStrength), &[1.0]),
            (uv(UvField::Offset), &[0.0, 0.0]),
            (uv(UvField::Rotation), &[0.0]),
            (uv(UvField::Scale), &[1.0, 1.0]),
            (cam(CameraField::Zfar), &[f32::MAX]),
            (light(LightField::Color), &[1.0, 1.0, 1.0]),
            (light(LightField::Intensity), &[1.0]),
            (light(LightField::Range), &[f32::MAX]),
            (light(LightField::InnerConeAngle), &[0.0]),
            (
                light(LightField::OuterConeAngle),
                &[std::f32::consts::FRAC_PI_4],
            ),
        ];
        for (target, want) in cases {
            let got = rest_value(&empty, "/materials/0/absent", target);
            assert_eq!(&got[..want.len()], want, "{target:?}");
        }
        let visible = PropertyTarget::NodeVisible { node: 3 };
        assert_eq!(rest_value(&empty, "/nodes/3/absent", visible)[0], 1.0);
        // A node the file hides starts hidden.
        let hidden = serde_json::json!({"nodes": [{}, {}, {}, {"extensions":
            {"KHR_node_visibility": {"visible": false}}}]});
        let path = "/nodes/3/extensions/KHR_node_visibility/visible";
        assert_eq!(rest_value(&hidden, path, visible)[0], 0.0);
        // skel's own fallback for a camera without the (required) znear: a near plane of
        // 1 cm, never 0, which would make the projection singular.
        let znear = rest_value(&empty, "/cameras/0/absent", cam(CameraField::Znear))[0];
        assert!(znear > 0.0 && znear <= 0.01, "{znear}");
    }

    /// A visibility track is weighed by its node's mask; every other property by none.
    #[test]
    fn only_a_node_property_names_its_node() {
        assert_eq!(PropertyTarget::NodeVisible { node: 7 }.node(), Some(7));
        assert_eq!(PropertyTarget::NodeVisible { node: 0 }.node(), Some(0));
        let colour = PropertyTarget::Material {
            material: 7,
            field: MaterialField::BaseColorFactor,
        };
        let camera = PropertyTarget::Camera {
            camera: 7,
            field: CameraField::Yfov,
        };
        let light = PropertyTarget::Light {
            light: 7,
            field: LightField::Range,
        };
        for target in [colour, camera, light] {
            assert_eq!(target.node(), None, "{target:?}");
        }
    }

    #[test]
    fn rest_values_come_from_the_file_else_the_spec_default() {
        let raw: Value = serde_json::from_str(
            r#"{"materials":[{"pbrMetallicRoughness":{"baseColorFactor":[0.5,0.25,1,0.75]}}]}"#,
        )
        .unwrap();
        let colour = PropertyTarget::Material {
            material: 0,
            field: MaterialField::BaseColorFactor,
        };
        assert_eq!(
            rest_value(
                &raw,
                "/materials/0/pbrMetallicRoughness/baseColorFactor",
                colour
            ),
            [0.5, 0.25, 1.0, 0.75]
        );
        let rough = PropertyTarget::Material {
            material: 0,
            field: MaterialField::RoughnessFactor,
        };
        assert_eq!(
            rest_value(
                &raw,
                "/materials/0/pbrMetallicRoughness/roughnessFactor",
                rough
            )[0],
            1.0
        );
    }
}
