//! `.vrma` clips (`VRMC_vrm_animation` 1.0) under `fixtures/vrm/` read back as the generator
//! (`xtask/src/fixtures/vrm/animation.rs`) wrote them: the humanoid is nodes 1–19 of the
//! avatars' rig (hips 1, spine 2, chest 3, neck 4, head 5, eyes 6–7, left arm 8–10, left leg
//! 11–13, right arm 14–16, right leg 17–19), then the expression nodes `happy` 20, `blink` 21,
//! `smirk` 22 (listed by name: blink, happy, smirk) and the look-at node 23. Malformed extensions are typed errors naming the path.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;

use serde_json::{Value, json};
use skel_anim::ChannelPath;
use skel_gltf::vrm::{HumanBone, VrmAnimation, VrmError, humanoid_parent};
use skel_gltf::{GltfAsset, GltfDocument, load_document};
use skel_gltf::{GltfError, LoadOptions};

use skel_test_support::glb::Glb;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../fixtures/vrm/{name}"))
}

/// A `.vrma` as the CLI would load it: the glTF and the extension from one parse.
struct Vrma {
    asset: GltfAsset,
    animation: VrmAnimation,
}

fn load_slice(bytes: &[u8]) -> Result<Vrma, GltfError> {
    let doc = GltfDocument::from_slice(bytes, None)?;
    let mut asset = load_document(&doc, &LoadOptions::default())?;
    let animation = VrmAnimation::read(&doc, &mut asset.warnings)?;
    Ok(Vrma { asset, animation })
}

fn load(name: &str) -> Vrma {
    load_slice(&std::fs::read(path(name)).unwrap()).unwrap()
}

#[test]
fn humanoid_expressions_and_look_at_read_back() {
    for name in ["walk.vrma", "walk_tall.vrma"] {
        let vrma = load(name);
        let a = &vrma.animation;
        assert_eq!(a.spec_version, "1.0");
        assert_eq!(a.human_bones.len(), 19, "{name}");
        for (bone, node) in [
            ("hips", 1),
            ("spine", 2),
            ("chest", 3),
            ("neck", 4),
            ("head", 5),
            ("leftEye", 6),
            ("rightEye", 7),
            ("leftUpperArm", 8),
            ("leftHand", 10),
            ("leftUpperLeg", 11),
            ("leftFoot", 13),
            ("rightUpperArm", 14),
            ("rightFoot", 19),
        ] {
            let b = HumanBone::from_name(bone).unwrap();
            assert_eq!(a.human_bones.get(&b), Some(&node), "{name} {bone}");
            assert_eq!(a.bone_of(node), Some(b));
        }
        let e: Vec<(&str, bool, usize)> = a
            .expressions
            .iter()
            .map(|e| (e.name.as_str(), e.preset, e.node))
            .collect();
        assert_eq!(
            e,
            [
                ("blink", true, 21),
                ("happy", true, 20),
                ("smirk", false, 22)
            ]
        );
        assert_eq!(a.look_at, Some(23));
        assert!(
            vrma.asset
                .warnings
                .iter()
                .all(|w| !w.path.contains("VRMC_vrm_animation"))
        );
    }
}

#[test]
fn expression_and_look_at_tracks_come_from_their_nodes() {
    let vrma = load("walk.vrma");
    let clip = &vrma.asset.animation.clips[0];
    assert_eq!(clip.name, "walk");
    let tracks = vrma.animation.expression_tracks(clip);
    let names: Vec<&str> = tracks.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["blink", "happy", "smirk"]);
    // happy = 0.5 − 0.5 cos(2πt) over 17 keys: 0 at t = 0, 1 at t = 0.5 (key 8).
    let happy = &tracks[1].1;
    assert_eq!(happy.input().len(), 17);
    assert_eq!(happy.output().len(), 17);
    assert!(happy.output()[0].abs() < 1e-6);
    assert!((happy.output()[8] - 1.0).abs() < 1e-6);
    // smirk = 0.25 (1 + sin(2πt)): 0.5 at t = 0.25 (key 4).
    assert!((tracks[2].1.output()[4] - 0.5).abs() < 1e-6);
    let look = vrma.animation.look_at_track(clip).unwrap();
    assert_eq!(look.output().len(), 17 * 4);
    // Key 4 (t = 0.25): a turn of 0.3 rad about y.
    let q = &look.output()[16..20];
    assert!((q[1] - (0.15f32).sin()).abs() < 1e-5, "{q:?}");
    // The look-at node is the only one rotated there besides the humanoid.
    assert!(
        clip.channels
            .iter()
            .any(|c| c.node == 23 && c.path == ChannelPath::Rotation)
    );
}

#[test]
fn the_humanoid_parent_map_is_three_vrms() {
    let p = |b: &str| humanoid_parent(HumanBone::from_name(b).unwrap()).map(HumanBone::name);
    assert_eq!(p("hips"), None);
    assert_eq!(p("spine"), Some("hips"));
    assert_eq!(p("neck"), Some("upperChest"));
    assert_eq!(p("leftShoulder"), Some("upperChest"));
    assert_eq!(p("rightUpperArm"), Some("rightShoulder"));
    assert_eq!(p("leftFoot"), Some("leftLowerLeg"));
    assert_eq!(p("rightToes"), Some("rightFoot"));
    assert_eq!(p("leftThumbMetacarpal"), Some("leftHand"));
    assert_eq!(p("leftThumbDistal"), Some("leftThumbProximal"));
    assert_eq!(p("rightIndexProximal"), Some("rightHand"));
    assert_eq!(p("rightLittleDistal"), Some("rightLittleIntermediate"));
    assert_eq!(p("leftEye"), Some("head"));
    assert_eq!(p("jaw"), Some("head"));
    // Every bone but the hips has a parent, and the walk up ends at the hips.
    for b in HumanBone::all() {
        let mut cur = b;
        let mut steps = 0;
        while let Some(up) = humanoid_parent(cur) {
            cur = up;
            steps += 1;
            assert!(steps <= 10, "{b:?}");
        }
        assert_eq!(cur, HumanBone::Hips, "{b:?}");
    }
}

/// `walk.vrma` with its JSON changed by `edit`, loaded.
fn edited(edit: impl FnOnce(&mut Value)) -> Result<Vrma, GltfError> {
    load_slice(&Glb::edited(
        &std::fs::read(path("walk.vrma")).unwrap(),
        edit,
    ))
}

fn vrm_error(edit: impl FnOnce(&mut Value)) -> VrmError {
    match edited(edit) {
        Err(GltfError::Vrm(e)) => e,
        Err(other) => panic!("not a VRM error: {other}"),
        Ok(_) => panic!("loaded"),
    }
}

const EXT: &str = "/extensions/VRMC_vrm_animation";

#[test]
fn malformed_extensions_name_their_path() {
    let e = vrm_error(|j| {
        j["extensions"]
            .as_object_mut()
            .unwrap()
            .remove("VRMC_vrm_animation");
    });
    assert_eq!(
        e,
        VrmError::Missing {
            path: "extensions.VRMC_vrm_animation".into()
        }
    );
    let e = vrm_error(|j| {
        j.pointer_mut(EXT).unwrap()["humanoid"]["humanBones"]["head"]["node"] = json!(99)
    });
    assert_eq!(
        e,
        VrmError::NodeOutOfRange {
            path: "extensions.VRMC_vrm_animation.humanoid.humanBones.head.node".into(),
            node: 99,
            node_count: 24,
        }
    );
    assert_eq!(
        e.to_string(),
        "extensions.VRMC_vrm_animation.humanoid.humanBones.head.node: node 99 out of range (the file has 24 nodes)"
    );
    let e =
        vrm_error(|j| j.pointer_mut(EXT).unwrap()["expressions"]["custom"]["smirk"] = json!({}));
    assert_eq!(
        e,
        VrmError::Missing {
            path: "extensions.VRMC_vrm_animation.expressions.custom.smirk.node".into()
        }
    );
    let e = vrm_error(|j| j.pointer_mut(EXT).unwrap()["lookAt"] = json!([1]));
    assert_eq!(
        e,
        VrmError::WrongType {
            path: "extensions.VRMC_vrm_animation.lookAt".into(),
            expected: "an object"
        }
    );
    let e = vrm_error(|j| j.pointer_mut(EXT).unwrap()["humanoid"] = json!({}));
    assert_eq!(
        e,
        VrmError::Missing {
            path: "extensions.VRMC_vrm_animation.humanoid.humanBones".into()
        }
    );
    let e = vrm_error(|j| j.pointer_mut(EXT).unwrap()["specVersion"] = json!("2.0"));
    assert!(
        matches!(&e, VrmError::UnknownValue { path, value, .. }
            if path == "extensions.VRMC_vrm_animation.specVersion" && value == "2.0"),
        "{e:?}"
    );
    let e = vrm_error(|j| {
        j.pointer_mut(EXT)
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("specVersion");
    });
    assert_eq!(
        e,
        VrmError::Missing {
            path: "extensions.VRMC_vrm_animation.specVersion".into()
        }
    );
}

#[test]
fn unknown_names_and_prerelease_versions_are_warnings() {
    let vrma = edited(|j| {
        let ext = j.pointer_mut(EXT).unwrap();
        ext["specVersion"] = json!("1.0-beta");
        ext["humanoid"]["humanBones"]["tail"] = json!({ "node": 20 });
        ext["expressions"]["preset"]["grin"] = json!({ "node": 21 });
    })
    .unwrap();
    let paths: Vec<&str> = vrma
        .asset
        .warnings
        .iter()
        .map(|w| w.path.as_str())
        .collect();
    for p in [
        "extensions.VRMC_vrm_animation.specVersion",
        "extensions.VRMC_vrm_animation.humanoid.humanBones.tail",
        "extensions.VRMC_vrm_animation.expressions.preset.grin",
    ] {
        assert!(paths.contains(&p), "{p} not in {paths:?}");
    }
    assert_eq!(vrma.animation.human_bones.len(), 19);
    assert_eq!(vrma.animation.expressions.len(), 3);
}

#[test]
fn skel_says_it_reads_the_vrma_extension() {
    assert!(matches!(
        skel_gltf::extension_support("VRMC_vrm_animation"),
        skel_gltf::ExtensionSupport::Applied(_)
    ));
}
