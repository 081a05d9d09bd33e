//! Opt-in skeleton discovery (the seed's list): skipped non-joint ancestors, out-of-order joints,
//! roots, association identity, clones, unavailable handles, recovery-style replacement.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{FakeGpu, TestMesh, bone, node, rig_arc};
use skel_anim::{AnimationData, NodeRest, SkeletonBinding};
use skel_bone_control::{
    BoneControlError, MeshSkeleton, collect_skeletons, enable_bone_control, get_mesh_skeleton,
};

#[test]
fn bones_follow_joint_order_not_node_order() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let names: Vec<&str> = asset.skeletons()[0]
        .bones()
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    // Skin 0 lists [head, hips, arm, spine, prop]: the bone index is the joint's position there.
    assert_eq!(names, ["head", "hips", "arm", "spine", "prop"]);
    assert_eq!(
        asset.skeletons()[0].joint_node(bone::SPINE).unwrap(),
        node::SPINE
    );
}

#[test]
fn parent_is_nearest_joint_ancestor_skipping_non_joints() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let bones = asset.skeletons()[0].bones();
    // spine's node parent is "spacer" (not a joint): its bone parent is hips, one node further up.
    assert_eq!(bones[bone::SPINE].parent, Some(bone::HIPS));
    // head and arm hang directly under spine.
    assert_eq!(bones[bone::HEAD].parent, Some(bone::SPINE));
    assert_eq!(bones[bone::ARM].parent, Some(bone::SPINE));
}

#[test]
fn parent_index_is_a_bone_index_not_a_node_index() {
    // Joints [c, a, b] over a chain a → b → c: node indices and bone indices differ everywhere.
    let data = Arc::new(AnimationData {
        nodes: vec![
            NodeRest::new("a", None),
            NodeRest::new("b", Some(0)),
            NodeRest::new("c", Some(1)),
            NodeRest::new("mesh", None),
        ],
        skeletons: vec![SkeletonBinding::new(0, 3, vec![2, 0, 1], vec![]).unwrap()],
        ..Default::default()
    });
    let asset = enable_bone_control(&data).unwrap();
    let parents: Vec<Option<usize>> = asset.skeletons()[0]
        .bones()
        .iter()
        .map(|b| b.parent)
        .collect();
    // c's parent is b = bone 2; a is a root; b's parent is a = bone 1.
    assert_eq!(parents, [Some(2), None, Some(1)]);
}

#[test]
fn roots_have_no_parent_even_under_non_joint_nodes() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let bones = asset.skeletons()[0].bones();
    // hips sits under the non-joint "Armature"; prop is a scene root.
    assert_eq!(bones[bone::HIPS].parent, None);
    assert_eq!(bones[bone::PROP].parent, None);
}

#[test]
fn a_joint_of_another_skin_is_not_a_parent() {
    // b is a joint of skin 1 only; c (skin 0) must skip it and find a.
    let data = Arc::new(AnimationData {
        nodes: vec![
            NodeRest::new("a", None),
            NodeRest::new("b", Some(0)),
            NodeRest::new("c", Some(1)),
            NodeRest::new("mesh0", None),
            NodeRest::new("mesh1", None),
        ],
        skeletons: vec![
            SkeletonBinding::new(0, 3, vec![0, 2], vec![]).unwrap(),
            SkeletonBinding::new(1, 4, vec![1], vec![]).unwrap(),
        ],
        ..Default::default()
    });
    let asset = enable_bone_control(&data).unwrap();
    assert_eq!(asset.skeletons()[0].bones()[1].parent, Some(0));
    assert_eq!(asset.skeletons()[1].bones()[0].parent, None);
}

#[test]
fn one_handle_per_binding_found_by_binding_and_mesh_node() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    assert_eq!(asset.skeletons().len(), 2, "two skinned meshes, one skin");
    let body = asset.skeleton_for_mesh_node(node::BODY_MESH).unwrap();
    let eyes = asset.skeleton_for_mesh_node(node::EYES_MESH).unwrap();
    assert!(Arc::ptr_eq(body, asset.skeleton_for_binding(0).unwrap()));
    assert!(Arc::ptr_eq(eyes, asset.skeleton_for_binding(1).unwrap()));
    assert!(!Arc::ptr_eq(body, eyes), "one handle per skinned mesh");
    assert!(
        body.shares_overrides_with(eyes),
        "one override map per asset"
    );
    assert_eq!((body.skin(), eyes.skin()), (0, 0));
    assert!(asset.skeleton_for_mesh_node(node::STATUE_MESH).is_none());
    assert!(asset.skeleton_for_binding(2).is_none());
}

fn meshes(asset: &skel_bone_control::BoneControlAsset) -> Vec<TestMesh> {
    vec![
        TestMesh {
            name: "body",
            visible: true,
            skeleton: Some(asset.attach(FakeGpu { generation: 0 }, 0)),
        },
        TestMesh {
            name: "eyes",
            visible: true,
            skeleton: Some(asset.attach(FakeGpu { generation: 0 }, 1)),
        },
        TestMesh {
            name: "statue",
            visible: true,
            skeleton: None,
        },
    ]
}

#[test]
fn association_identity_is_the_handle_of_the_binding() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let scene = meshes(&asset);
    let body = get_mesh_skeleton(&scene[0]).unwrap();
    assert!(Arc::ptr_eq(&body, &asset.skeletons()[0]));
    // Reading twice gives the same handle, not a new wrapper.
    assert!(Arc::ptr_eq(&body, &get_mesh_skeleton(&scene[0]).unwrap()));
    assert!(Arc::ptr_eq(
        &get_mesh_skeleton(&scene[1]).unwrap(),
        &asset.skeletons()[1]
    ));
}

#[test]
fn clones_share_the_handle_and_the_override_state() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let scene = meshes(&asset);
    let clone = scene[0].clone();
    let original = get_mesh_skeleton(&scene[0]).unwrap();
    let cloned = get_mesh_skeleton(&clone).unwrap();
    assert!(Arc::ptr_eq(&original, &cloned));
    // An override through the clone's handle is the original's override.
    cloned
        .set_bone_pose_deferred(bone::ARM, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0])
        .unwrap();
    assert_eq!(
        original.bone_override(bone::ARM).unwrap().translation,
        Some([1.0, 2.0, 3.0])
    );
}

#[test]
fn enumeration_dedupes_by_identity() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let mut scene = meshes(&asset);
    scene.push(scene[0].clone());
    scene.push(scene[1].clone());
    let found = collect_skeletons(&scene);
    assert_eq!(found.len(), 2, "clones count once, the statue not at all");
    assert!(Arc::ptr_eq(&found[0], &asset.skeletons()[0]));
    assert!(Arc::ptr_eq(&found[1], &asset.skeletons()[1]));
}

#[test]
fn unavailable_handles() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let scene = meshes(&asset);
    // Not skinned.
    assert!(get_mesh_skeleton(&scene[2]).is_none());
    // The same skin loaded without bone control, and skeleton data made by hand.
    let without = TestMesh {
        name: "body, no bone control",
        visible: true,
        skeleton: Some(MeshSkeleton::new(FakeGpu { generation: 0 }, 0)),
    };
    assert!(get_mesh_skeleton(&without).is_none());
    let by_hand: MeshSkeleton<FakeGpu> = MeshSkeleton::new(FakeGpu { generation: 7 }, 0);
    assert!(get_mesh_skeleton(&by_hand).is_none());
    // A binding the asset does not have.
    assert!(get_mesh_skeleton(&asset.attach(FakeGpu { generation: 0 }, 9)).is_none());
    assert!(collect_skeletons([&without]).is_empty());
}

#[test]
fn recovery_replaces_gpu_fields_and_keeps_the_handle() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let mut scene = meshes(&asset);
    let before = get_mesh_skeleton(&scene[0]).unwrap();
    let sk = scene[0].skeleton.as_mut().unwrap();
    // Recovery by assignment of the GPU fields…
    sk.gpu = FakeGpu { generation: 1 };
    // …and by replacement.
    let old = sk.replace_gpu(FakeGpu { generation: 2 });
    assert_eq!(old.generation, 1);
    assert_eq!(sk.gpu.generation, 2);
    assert_eq!(sk.binding(), 0);
    let after = get_mesh_skeleton(&scene[0]).unwrap();
    assert!(Arc::ptr_eq(&before, &after));
    // Bones and their parents are the same objects as before.
    assert!(std::ptr::eq(before.bones(), after.bones()));
}

#[test]
fn enabling_invalid_data_is_an_error_not_a_panic() {
    let data = Arc::new(AnimationData {
        nodes: vec![NodeRest::new("a", Some(0))],
        ..Default::default()
    });
    assert!(matches!(
        enable_bone_control(&data),
        Err(BoneControlError::Anim(_))
    ));
}

#[test]
fn the_type_erased_slot_of_skel_gpu_reads_back_the_same_handle() {
    use skel_bone_control::{HasMeshSkeleton, SkeletonAssociation};
    let asset = enable_bone_control(&rig_arc()).unwrap();
    // What the loader stamps into `SkeletonGpu::handle` (a slot skel-gpu cannot type).
    let slot: Option<SkeletonAssociation> = asset.association(1);
    let handle = get_mesh_skeleton(&slot).unwrap();
    assert!(Arc::ptr_eq(&handle, &asset.skeletons()[1]));
    // A slot that is empty, or holds something else, has no handle.
    let empty: Option<SkeletonAssociation> = None;
    assert!(empty.mesh_skeleton().is_none());
    let other: SkeletonAssociation = Arc::new(42_u32);
    assert!(other.mesh_skeleton().is_none());
    assert!(asset.association(5).is_none());
}

#[test]
fn set_mesh_visible_hides_one_mesh_and_writes_no_override() {
    use skel_bone_control::set_mesh_visible;
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let mut scene = meshes(&asset);
    set_mesh_visible(&mut scene[1], false);
    assert!(!scene[1].visible);
    assert!(scene[0].visible, "the other mesh of the split skin stays");
    let body = get_mesh_skeleton(&scene[0]).unwrap();
    for b in 0..body.bone_count() {
        assert!(body.bone_override(b).unwrap().is_empty(), "bone {b}");
    }
    set_mesh_visible(&mut scene[1], true);
    assert!(scene[1].visible);
}
