//! Malformed VRM extensions, made by editing a fixture's JSON: each gives the typed
//! [`VrmError`] that names the JSON path of the bad field, never a panic.

use serde_json::{Value, json};
use skel_gltf::vrm::VrmError;
use skel_gltf::{GltfAsset, GltfError, LoadOptions, load_slice};
use skel_test_support::glb::Glb;

use super::dir;

/// Fixture `name` with its JSON changed by `edit`, loaded.
fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> Result<GltfAsset, GltfError> {
    let bytes = std::fs::read(dir().join(format!("{name}.vrm"))).unwrap();
    load_slice(&Glb::edited(&bytes, edit), None, &LoadOptions::default())
}

/// The VRM error of loading the edited fixture.
fn vrm_error(name: &str, edit: impl FnOnce(&mut Value)) -> VrmError {
    match edited(name, edit) {
        Err(GltfError::Vrm(e)) => e,
        Err(other) => panic!("{name}: not a VRM error: {other}"),
        Ok(_) => panic!("{name}: loaded"),
    }
}

fn at<'a>(v: &'a mut Value, pointer: &str) -> &'a mut Value {
    v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"))
}

const SB: &str = "/extensions/VRMC_springBone";

#[test]
fn a_joint_node_out_of_range_names_its_path() {
    let e = vrm_error("v1_everything", |j| {
        *at(j, &format!("{SB}/springs/2/joints/0/node")) = json!(999);
    });
    assert_eq!(
        e,
        VrmError::NodeOutOfRange {
            path: "extensions.VRMC_springBone.springs[2].joints[0].node".into(),
            node: 999,
            node_count: 55,
        }
    );
    assert!(
        e.to_string()
            .starts_with("extensions.VRMC_springBone.springs[2].joints[0].node")
    );
}

#[test]
fn wrong_types_missing_fields_and_bad_indices_are_named() {
    let e = vrm_error("v1_hair", |j| {
        *at(j, &format!("{SB}/springs/1/joints/2/stiffness")) = json!("soft");
    });
    assert_eq!(
        e,
        VrmError::WrongType {
            path: "extensions.VRMC_springBone.springs[1].joints[2].stiffness".into(),
            expected: "a finite number",
        }
    );
    let e = vrm_error("v1_hair", |j| {
        at(j, &format!("{SB}/springs/0"))
            .as_object_mut()
            .unwrap()
            .remove("joints");
    });
    assert_eq!(
        e,
        VrmError::Missing {
            path: "extensions.VRMC_springBone.springs[0].joints".into()
        }
    );
    let e = vrm_error("v1_hair", |j| {
        *at(j, &format!("{SB}/springs/3/colliderGroups/0")) = json!(4);
    });
    assert!(
        matches!(&e, VrmError::IndexOutOfRange { path, index: 4, len: 1, .. }
            if path == "extensions.VRMC_springBone.springs[3].colliderGroups[0]"),
        "{e}"
    );
    let e = vrm_error("v1_hair", |j| {
        *at(j, &format!("{SB}/colliderGroups/0/colliders/0")) = json!(-1);
    });
    assert!(
        matches!(e, VrmError::IndexOutOfRange { index: -1, .. }),
        "{e}"
    );
    let e = vrm_error("v1_hair", |j| {
        *at(j, &format!("{SB}/springs/0/joints/0/gravityDir")) = json!([0.0, 1.0]);
    });
    assert!(
        matches!(&e, VrmError::WrongType { path, .. } if path.ends_with("joints[0].gravityDir")),
        "{e}"
    );
}

#[test]
fn negative_radii_and_shapeless_colliders_are_refused() {
    let e = vrm_error("v1_hair", |j| {
        *at(j, &format!("{SB}/colliders/0/shape/sphere/radius")) = json!(-0.1);
    });
    assert_eq!(
        e,
        VrmError::NegativeRadius {
            path: "extensions.VRMC_springBone.colliders[0].shape.sphere.radius".into(),
            radius: -0.1,
        }
    );
    let e = vrm_error("v1_inside_capsule", |j| {
        let p = format!(
            "{SB}/colliders/0/extensions/VRMC_springBone_extended_collider/shape/capsule/radius"
        );
        *at(j, &p) = json!(-2.0);
    });
    assert!(
        matches!(&e, VrmError::NegativeRadius { path, .. }
            if path == "extensions.VRMC_springBone.colliders[0].extensions.VRMC_springBone_extended_collider.shape.capsule.radius"),
        "{e}"
    );
    let e = vrm_error("v1_tail", |j| {
        *at(j, &format!("{SB}/springs/0/joints/1/hitRadius")) = json!(-0.5);
    });
    assert!(matches!(e, VrmError::NegativeRadius { .. }), "{e}");
    let e = vrm_error("v1_tail", |j| {
        *at(j, &format!("{SB}/colliders/1/shape")) = json!({});
    });
    assert_eq!(
        e,
        VrmError::NoShape {
            path: "extensions.VRMC_springBone.colliders[1]".into()
        }
    );
}

#[test]
fn humanoid_and_constraint_errors_are_named() {
    let e = vrm_error("v1_minimal", |j| {
        at(j, "/extensions/VRMC_vrm/humanoid/humanBones")
            .as_object_mut()
            .unwrap()
            .remove("hips");
    });
    assert!(
        matches!(&e, VrmError::MissingHumanBones { path, missing }
            if path == "extensions.VRMC_vrm.humanoid.humanBones" && missing.len() == 1),
        "{e}"
    );
    let e = vrm_error("v1_minimal", |j| {
        *at(j, "/extensions/VRMC_vrm/humanoid/humanBones/head/node") = json!(77);
    });
    assert!(
        matches!(&e, VrmError::NodeOutOfRange { path, node: 77, .. }
            if path == "extensions.VRMC_vrm.humanoid.humanBones.head.node"),
        "{e}"
    );
    let e = vrm_error("v1_constraints", |j| {
        *at(
            j,
            "/nodes/23/extensions/VRMC_node_constraint/constraint/roll/rollAxis",
        ) = json!("W");
    });
    assert!(
        matches!(&e, VrmError::UnknownValue { path, value, .. }
            if path == "nodes[23].extensions.VRMC_node_constraint.constraint.roll.rollAxis" && value == "W"),
        "{e}"
    );
    let e = vrm_error("v1_constraints", |j| {
        *at(j, "/nodes/24/extensions/VRMC_node_constraint/constraint") = json!({});
    });
    assert_eq!(
        e,
        VrmError::NoConstraint {
            path: "nodes[24].extensions.VRMC_node_constraint.constraint".into()
        }
    );
    let e = vrm_error("v1_expressions", |j| {
        *at(
            j,
            "/extensions/VRMC_vrm/expressions/preset/happy/morphTargetBinds/0/node",
        ) = json!(-4);
    });
    assert!(
        matches!(&e, VrmError::NodeOutOfRange { path, node: -4, .. }
            if path == "extensions.VRMC_vrm.expressions.preset.happy.morphTargetBinds[0].node"),
        "{e}"
    );
}

#[test]
fn a_negative_morph_target_index_is_a_wrong_type() {
    let e = vrm_error("v1_expressions", |j| {
        *at(
            j,
            "/extensions/VRMC_vrm/expressions/custom/smirk/morphTargetBinds/1/index",
        ) = json!(-1);
    });
    assert_eq!(
        e,
        VrmError::WrongType {
            path: "extensions.VRMC_vrm.expressions.custom.smirk.morphTargetBinds[1].index".into(),
            expected: "a non-negative integer",
        }
    );
    // A bind past the mesh's three targets is skipped with a warning, as three-vrm skips it.
    let asset = edited("v1_expressions", |j| {
        *at(
            j,
            "/extensions/VRMC_vrm/expressions/preset/aa/morphTargetBinds/0/index",
        ) = json!(3);
    })
    .unwrap();
    let aa = asset
        .vrm
        .as_ref()
        .unwrap()
        .expressions
        .iter()
        .find(|x| x.name == "aa");
    assert!(aa.unwrap().morph_target_binds.is_empty());
    assert_eq!(
        asset.warnings[0].path,
        "extensions.VRMC_vrm.expressions.preset.aa.morphTargetBinds[0]"
    );
}

#[test]
fn vrm0_errors_are_named() {
    let e = vrm_error("v0_branching", |j| {
        *at(j, "/extensions/VRM/secondaryAnimation/boneGroups/0/bones/1") = json!(-3);
    });
    assert!(
        matches!(&e, VrmError::NodeOutOfRange { path, node: -3, .. }
            if path == "extensions.VRM.secondaryAnimation.boneGroups[0].bones[1]"),
        "{e}"
    );
    let e = vrm_error("v0_hair", |j| {
        *at(
            j,
            "/extensions/VRM/secondaryAnimation/colliderGroups/0/colliders/1/radius",
        ) = json!(-0.5);
    });
    assert!(
        matches!(&e, VrmError::NegativeRadius { path, .. }
            if path == "extensions.VRM.secondaryAnimation.colliderGroups[0].colliders[1].radius"),
        "{e}"
    );
    let e = vrm_error("v0_hair", |j| {
        *at(
            j,
            "/extensions/VRM/secondaryAnimation/boneGroups/0/gravityDir",
        ) = json!([0, -1, 0]);
    });
    assert!(
        matches!(&e, VrmError::WrongType { path, .. }
            if path == "extensions.VRM.secondaryAnimation.boneGroups[0].gravityDir"),
        "{e}"
    );
}

#[test]
fn an_unknown_spec_version_skips_the_extension_with_a_warning() {
    let asset = edited("v1_hair", |j| {
        *at(j, &format!("{SB}/specVersion")) = json!("2.0");
    })
    .unwrap();
    let v = asset.vrm.as_ref().unwrap();
    assert!(v.spring_bones.is_none());
    assert_eq!(asset.warnings.len(), 1);
    assert_eq!(
        asset.warnings[0].path,
        "extensions.VRMC_springBone.specVersion"
    );
    // A pre-release other than three-vrm's "1.0-beta" also loads, warned.
    let asset = edited("v1_constraints", |j| {
        *at(j, "/nodes/25/extensions/VRMC_node_constraint/specVersion") = json!("1.0-draft");
    })
    .unwrap();
    assert_eq!(asset.vrm.unwrap().constraints.len(), 3);
    assert_eq!(
        asset.warnings[0].path,
        "nodes[25].extensions.VRMC_node_constraint.specVersion"
    );
}
