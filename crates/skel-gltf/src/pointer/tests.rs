//! `parse_pointer` and `rest_value` against the pointers glTF's KHR_animation_pointer
//! names, and what they must refuse.

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
        parse_pointer("/materials/2/extensions/KHR_materials_emissive_strength/emissiveStrength"),
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
