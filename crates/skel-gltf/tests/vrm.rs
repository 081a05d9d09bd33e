//! The VRM fixtures under `fixtures/vrm/` (written by `cargo xtask fixtures`,
//! `xtask/src/fixtures/vrm/`) read back as the generator wrote them. Expected values are stated
//! from the generator's construction, not recomputed with the loader: the rig's humanoid is
//! nodes 0–19 (`Armature` 0, hips 1, spine 2, chest 3, neck 4, head 5, eyes 6–7, left arm 8–10,
//! left leg 11–13, right arm 14–16, right leg 17–19), chains are numbered from 20 in the order
//! the generator makes them, and the mesh node comes last.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "vrm/colliders.rs"]
mod colliders;
#[path = "vrm/malformed.rs"]
mod malformed;
#[path = "vrm/three_vrm.rs"]
mod three_vrm;
#[path = "vrm/v0.rs"]
mod v0;

use std::path::PathBuf;

use glam::Vec3;
use skel_anim::spring::{ColliderShape, SpringDesc, SpringJointDesc};
use skel_gltf::vrm::{
    AimAxis, ConstraintKind, ExpressionOverride, ExpressionPreset, HumanBone, LookAtType, RollAxis,
    Vrm, VrmSource,
};
use skel_gltf::{GltfAsset, LoadOptions, load_path};

/// `fixtures/vrm/`.
fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/vrm")
}

/// Loads `fixtures/vrm/{name}.vrm` (images not decoded).
pub(crate) fn load(name: &str) -> GltfAsset {
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    load_path(&dir().join(format!("{name}.vrm")), &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The VRM data of fixture `name`.
pub(crate) fn vrm(name: &str) -> Vrm {
    load(name)
        .vrm
        .unwrap_or_else(|| panic!("{name} has no VRM data"))
}

pub(crate) fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-6
}

pub(crate) fn close3(a: Vec3, b: [f32; 3]) -> bool {
    a.abs_diff_eq(Vec3::from(b), 1e-6)
}

/// The joints of `s` as `(node, child)`.
pub(crate) fn links(s: &SpringDesc) -> Vec<(usize, Option<usize>)> {
    s.joints.iter().map(|j| (j.node, j.child)).collect()
}

/// The links of a 1.0 spring over consecutive nodes `first..=last`.
fn run(first: usize, last: usize) -> Vec<(usize, Option<usize>)> {
    (first..last).map(|n| (n, Some(n + 1))).collect()
}

/// Asserts `j`'s settings (hit radius, stiffness, gravity power, gravity dir, drag).
pub(crate) fn settings(j: &SpringJointDesc, expect: (f32, f32, f32, [f32; 3], f32), what: &str) {
    let (hit, stiff, power, dir, drag) = expect;
    assert!(
        close(j.hit_radius.unwrap(), hit),
        "{what}: hit radius {j:?}"
    );
    assert!(
        close(j.stiffness.unwrap(), stiff),
        "{what}: stiffness {j:?}"
    );
    assert!(
        close(j.gravity_power.unwrap(), power),
        "{what}: gravity power {j:?}"
    );
    assert!(
        close3(j.gravity_dir.unwrap(), dir),
        "{what}: gravity dir {j:?}"
    );
    assert!(close(j.drag_force.unwrap(), drag), "{what}: drag {j:?}");
}

/// The generator's hair settings (`springs::HAIR`).
pub(crate) const HAIR: (f32, f32, f32, [f32; 3], f32) = (0.02, 1.0, 0.2, [0.0, -1.0, 0.0], 0.4);

#[test]
fn every_fixture_loads_as_a_vrm_with_the_full_humanoid() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".vrm"))
        .collect();
    names.sort();
    assert!(names.len() >= 24, "{names:?}");
    let expected = [
        (HumanBone::Hips, 1),
        (HumanBone::Spine, 2),
        (HumanBone::Chest, 3),
        (HumanBone::Neck, 4),
        (HumanBone::Head, 5),
        (HumanBone::LeftEye, 6),
        (HumanBone::RightEye, 7),
        (HumanBone::LeftUpperArm, 8),
        (HumanBone::LeftLowerArm, 9),
        (HumanBone::LeftHand, 10),
        (HumanBone::LeftUpperLeg, 11),
        (HumanBone::LeftLowerLeg, 12),
        (HumanBone::LeftFoot, 13),
        (HumanBone::RightUpperArm, 14),
        (HumanBone::RightLowerArm, 15),
        (HumanBone::RightHand, 16),
        (HumanBone::RightUpperLeg, 17),
        (HumanBone::RightLowerLeg, 18),
        (HumanBone::RightFoot, 19),
    ];
    for file in &names {
        let stem = file.trim_end_matches(".vrm");
        let asset = load(stem);
        let v = asset.vrm().unwrap_or_else(|| panic!("{stem}: no VRM"));
        assert_eq!(v.humanoid.bones.len(), 19, "{stem}");
        for (bone, node) in expected {
            assert_eq!(v.humanoid.node(bone), Some(node), "{stem}: {bone:?}");
        }
        assert_eq!(v.meta.name, stem, "{stem}: meta name");
        assert!(v.spring_bones.is_some(), "{stem}: springs");
        if stem != "v1_beta" {
            assert!(asset.warnings.is_empty(), "{stem}: {:?}", asset.warnings);
        }
        match (&v.source, stem.starts_with("v0_")) {
            (VrmSource::Vrm0 { spec_version }, true) => {
                assert_eq!(spec_version.as_deref(), Some("0.0"));
            }
            (VrmSource::Vrm1 { spec_version }, false) => {
                let want = if stem == "v1_beta" { "1.0-beta" } else { "1.0" };
                assert_eq!(spec_version, want, "{stem}");
            }
            (s, _) => panic!("{stem}: source {s:?}"),
        }
    }
}

#[test]
fn vrm1_meta_and_look_at_read_back() {
    let v = vrm("v1_hair");
    assert_eq!(v.meta.authors, ["skel cargo xtask fixtures"]);
    assert_eq!(
        v.meta.license_url.as_deref(),
        Some("https://vrm.dev/licenses/1.0/")
    );
    assert_eq!(v.meta.version.as_deref(), Some("1"));
    assert_eq!(v.meta.allow_redistribution, Some(true));
    let l = v.look_at.unwrap();
    assert_eq!(l.kind, LookAtType::Bone);
    assert!(close3(l.offset_from_head_bone, [0.0, 0.06, 0.0]));
    let maps = [
        l.horizontal_inner,
        l.horizontal_outer,
        l.vertical_down,
        l.vertical_up,
    ];
    for (m, out) in maps.iter().zip([10.0, 12.0, 8.0, 9.0]) {
        assert!(
            close(m.input_max_value, 90.0) && close(m.output_scale, out),
            "{m:?}"
        );
    }
}

#[test]
fn minimal_spring_leaves_every_setting_to_the_profile() {
    let sb = vrm("v1_minimal").spring_bones.unwrap();
    assert_eq!(sb.spec_version.as_deref(), Some("1.0"));
    assert_eq!(sb.desc.springs.len(), 1);
    let s = &sb.desc.springs[0];
    assert_eq!(s.name, "hair");
    // Three listed nodes are two joints: the last node is only a tail.
    assert_eq!(links(s), run(20, 22));
    for j in &s.joints {
        assert_eq!(*j, SpringJointDesc::new(j.node, j.child));
    }
    assert!(sb.desc.colliders.is_empty() && sb.desc.collider_groups.is_empty());
}

#[test]
fn hair_tail_and_skirt_chains_read_back() {
    let sb = vrm("v1_hair").spring_bones.unwrap().desc;
    assert_eq!(sb.springs.len(), 4);
    for (k, s) in sb.springs.iter().enumerate() {
        assert_eq!(s.name, format!("hair{k}"));
        assert_eq!(links(s), run(20 + 4 * k, 23 + 4 * k));
        assert_eq!(s.collider_groups, [0]);
        assert_eq!(s.center, None);
        for j in &s.joints {
            settings(j, HAIR, "hair");
        }
    }
    assert_eq!(sb.colliders.len(), 1);
    assert_eq!(sb.colliders[0].node, 5);
    assert_eq!(
        sb.colliders[0].shape,
        ColliderShape::Sphere {
            offset: Vec3::new(0.0, 0.1, 0.0),
            radius: 0.1,
            inside: false
        }
    );
    let names = vrm("v1_hair").spring_bones.unwrap().collider_group_names;
    assert_eq!(names, [Some("head".to_owned())]);

    let sb = vrm("v1_tail").spring_bones.unwrap().desc;
    assert_eq!(links(&sb.springs[0]), run(20, 25));
    for j in &sb.springs[0].joints {
        settings(j, (0.03, 1.5, 0.5, [0.0, -1.0, 0.0], 0.3), "tail");
    }
    let capsule = ColliderShape::Capsule {
        offset: Vec3::ZERO,
        tail: Vec3::new(0.0, -0.4, 0.0),
        radius: 0.07,
        inside: false,
    };
    assert_eq!(
        sb.colliders.iter().map(|c| c.node).collect::<Vec<_>>(),
        [11, 17]
    );
    assert!(sb.colliders.iter().all(|c| c.shape == capsule));
    assert_eq!(sb.collider_groups, [vec![0, 1]]);

    let sb = vrm("v1_skirt").spring_bones.unwrap().desc;
    assert_eq!(sb.springs.len(), 6);
    for (k, s) in sb.springs.iter().enumerate() {
        // skirt node 20, then chains of 3 from 21.
        assert_eq!(links(s), run(21 + 3 * k, 23 + 3 * k), "skirt{k}");
        assert_eq!(s.collider_groups, [0, 1]);
        settings(
            &s.joints[0],
            (0.02, 0.8, 0.3, [0.0, -1.0, 0.0], 0.5),
            "skirt",
        );
    }
    assert_eq!(
        sb.colliders.iter().map(|c| c.node).collect::<Vec<_>>(),
        [11, 17, 12, 18]
    );
    assert_eq!(sb.collider_groups, [vec![0, 1], vec![2, 3]]);
}

#[test]
fn nested_spring_keeps_file_order_and_its_own_settings() {
    let asset = load("v1_nested");
    let sb = asset.vrm().unwrap().spring_bones.clone().unwrap().desc;
    assert_eq!(sb.springs[0].name, "braid");
    assert_eq!(links(&sb.springs[0]), run(25, 27));
    assert_eq!(
        asset.nodes[25].parent,
        Some(21),
        "the braid hangs from outer's 2nd joint"
    );
    settings(
        &sb.springs[0].joints[0],
        (0.02, 0.5, 0.2, [0.0, -1.0, 0.0], 0.2),
        "braid",
    );
    assert_eq!(links(&sb.springs[1]), run(20, 24));
    settings(&sb.springs[1].joints[3], HAIR, "outer");
}

#[test]
fn center_gravity_extremes_scale_and_taper_read_back() {
    let sb = vrm("v1_center").spring_bones.unwrap().desc;
    let centers: Vec<_> = sb.springs.iter().map(|s| s.center).collect();
    assert_eq!(centers, [Some(1), None, Some(1)]);
    assert_eq!(links(&sb.springs[2]), run(28, 31));

    let sb = vrm("v1_gravity").spring_bones.unwrap().desc;
    let gravity = [
        ([0.0, -1.0, 0.0], 1.0),
        ([1.0, 0.0, 0.0], 1.0),
        ([0.0, 0.0, -1.0], 0.5),
        ([0.0, -1.0, 0.0], 0.0),
    ];
    for (s, (dir, power)) in sb.springs.iter().zip(gravity) {
        settings(&s.joints[0], (0.02, 1.0, power, dir, 0.4), &s.name);
    }

    let sb = vrm("v1_extremes").spring_bones.unwrap().desc;
    let extremes = [(0.0, 0.4), (4.0, 0.4), (1.0, 0.0), (1.0, 1.0)];
    for (s, (stiff, drag)) in sb.springs.iter().zip(extremes) {
        settings(
            &s.joints[2],
            (0.02, stiff, 0.2, [0.0, -1.0, 0.0], drag),
            &s.name,
        );
    }

    let asset = load("v1_scaled_root");
    assert_eq!(asset.animation.nodes[0].scale, [2.0; 3], "Armature scale");
    let sb = asset.vrm.unwrap().spring_bones.unwrap().desc;
    assert_eq!(sb.springs.len(), 4);
    assert_eq!(links(&sb.springs[3]), run(32, 36));
    assert_eq!(sb.springs[3].collider_groups, [1]);

    let sb = vrm("v1_taper").spring_bones.unwrap().desc;
    let s = &sb.springs[0];
    assert_eq!(links(s), run(20, 25));
    let taper = [
        (0.06, 0.5),
        (0.05, 0.75),
        (0.04, 1.0),
        (0.03, 1.25),
        (0.02, 1.5),
    ];
    for (j, (hit, stiff)) in s.joints.iter().zip(taper) {
        settings(j, (hit, stiff, 0.5, [0.0, -1.0, 0.0], 0.4), "taper");
    }
}

#[test]
fn node_constraints_read_back() {
    let v = vrm("v1_constraints");
    assert_eq!(v.constraints.len(), 3);
    assert_eq!(v.constraints[0].node, 23);
    assert_eq!(
        v.constraints[0].kind,
        ConstraintKind::Roll {
            source: 10,
            axis: RollAxis::X,
            weight: 0.5
        }
    );
    assert_eq!(v.constraints[1].node, 24);
    assert_eq!(
        v.constraints[1].kind,
        ConstraintKind::Aim {
            source: 16,
            axis: AimAxis::PositiveZ,
            weight: 1.0
        }
    );
    assert_eq!(v.constraints[2].node, 25);
    assert_eq!(
        v.constraints[2].kind,
        ConstraintKind::Rotation {
            source: 9,
            weight: 0.7
        }
    );
}

#[test]
fn expressions_read_back() {
    let v = vrm("v1_expressions");
    let find = |n: &str| v.expressions.iter().find(|e| e.name == n).unwrap();
    assert_eq!(v.expressions.len(), 4);
    let happy = find("happy");
    assert_eq!(happy.preset, Some(ExpressionPreset::Happy));
    assert!(!happy.is_binary);
    assert_eq!(happy.override_blink, ExpressionOverride::Block);
    assert_eq!(happy.override_look_at, ExpressionOverride::Blend);
    assert_eq!(happy.override_mouth, ExpressionOverride::None);
    let binds = |n: &str| -> Vec<(usize, usize, f32)> {
        find(n)
            .morph_target_binds
            .iter()
            .map(|b| (b.node, b.index, b.weight))
            .collect()
    };
    // The mesh node is 23: after the 20 rig nodes and 3 hair nodes.
    assert_eq!(binds("happy"), [(23, 0, 1.0)]);
    assert!(find("blink").is_binary);
    assert_eq!(binds("blink"), [(23, 1, 1.0)]);
    assert_eq!(find("aa").override_mouth, ExpressionOverride::Blend);
    assert_eq!(binds("aa"), [(23, 2, 0.8)]);
    assert_eq!(find("smirk").preset, None);
    assert_eq!(binds("smirk"), [(23, 0, 0.5), (23, 2, 0.25)]);
}

#[test]
fn a_beta_spec_version_loads_with_a_warning() {
    let asset = load("v1_beta");
    let paths: Vec<&str> = asset.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "extensions.VRMC_vrm.specVersion",
            "extensions.VRMC_springBone.specVersion"
        ]
    );
    assert!(
        asset.warnings[0].message.contains("1.0-beta"),
        "{}",
        asset.warnings[0]
    );
    let sb = asset.vrm.unwrap().spring_bones.unwrap();
    assert_eq!(sb.spec_version.as_deref(), Some("1.0-beta"));
    assert_eq!(sb.desc.springs.len(), 2);
}
