//! VRM 0.x fixtures converted as three-vrm 3.5 converts them
//! (`VRMSpringBoneLoaderPlugin._v0Import`, `VRMExpressionLoaderPlugin._v0Import`,
//! `VRMLookAtLoaderPlugin._v0Import`), checked rule by rule:
//! - every node below a bone group root is a joint (three.js `traverse`: node, then children in
//!   order); its child is its first child; a leaf's child is `None` (7 cm virtual tail);
//! - one spring per root, with the group's settings (`stiffiness` → stiffness) and collider
//!   groups; `center` −1 is none; a missing `gravityDir` is (0, −1, 0);
//! - a collider sphere's offset z is negated; colliders are numbered group by group;
//! - a blend shape bind names a mesh: one bind per node using it, weight / 100; a preset's
//!   0.x name becomes its 1.0 name (`joy` → `happy`), an `unknown` preset keeps the group name;
//! - `firstPersonBoneOffset` z is negated; degree maps become range maps (xRange → input,
//!   yRange → output).

use glam::Vec3;
use skel_anim::spring::ColliderShape;
use skel_gltf::vrm::{ExpressionPreset, LookAtType};

use super::{HAIR, close, close3, links, settings, vrm};

/// A leaf's link: no child node.
fn leaf(n: usize) -> (usize, Option<usize>) {
    (n, None)
}

#[test]
fn hair_roots_become_springs_and_collider_z_is_negated() {
    let sb = vrm("v0_hair").spring_bones.unwrap();
    assert_eq!(sb.spec_version, None);
    let d = sb.desc;
    assert_eq!(d.springs.len(), 4, "one spring per root");
    for (k, s) in d.springs.iter().enumerate() {
        let r = 20 + 3 * k;
        // Three nodes are three joints: the leaf swings too, towards its virtual tail.
        assert_eq!(
            links(s),
            [(r, Some(r + 1)), (r + 1, Some(r + 2)), leaf(r + 2)]
        );
        assert_eq!(s.name, "hair");
        assert_eq!(s.center, None, "center -1 is none");
        assert_eq!(s.collider_groups, [0]);
        for j in &s.joints {
            settings(j, HAIR, "hair");
        }
    }
    // Written offsets (0, 0.1, 0.02) and (0, 0.05, −0.04).
    let expect = [([0.0, 0.1, -0.02], 0.1), ([0.0, 0.05, 0.04], 0.08)];
    assert_eq!(d.colliders.len(), 2);
    for (c, (offset, radius)) in d.colliders.iter().zip(expect) {
        assert_eq!(c.node, 5);
        let ColliderShape::Sphere {
            offset: o,
            radius: r,
            inside,
        } = c.shape
        else {
            panic!("{c:?}");
        };
        assert!(close3(o, offset) && close(r, radius) && !inside, "{c:?}");
    }
    assert_eq!(d.collider_groups, [vec![0, 1]]);
}

#[test]
fn every_descendant_is_a_joint_and_branches_follow_the_first_child() {
    let d = vrm("v0_branching").spring_bones.unwrap().desc;
    assert_eq!(d.springs.len(), 2);
    // Root 20 (`skirt`) with six chains of three (21–23, 24–26, …, 36–38), depth first.
    let mut skirt = vec![(20, Some(21))];
    for k in 0..6 {
        let c = 21 + 3 * k;
        skirt.extend([(c, Some(c + 1)), (c + 1, Some(c + 2)), leaf(c + 2)]);
    }
    assert_eq!(links(&d.springs[0]), skirt);
    // Ponytail 39–41 with a branch 42–43 under 40: 40 follows its first child, 41.
    assert_eq!(
        links(&d.springs[1]),
        [
            (39, Some(40)),
            (40, Some(41)),
            leaf(41),
            (42, Some(43)),
            leaf(43)
        ]
    );
    for s in &d.springs {
        assert_eq!(s.collider_groups, [0, 1]);
        settings(
            &s.joints[0],
            (0.02, 0.8, 0.2, [0.0, -1.0, 0.0], 0.5),
            "branching",
        );
    }
    // Zero z offsets stay zero.
    for c in &d.colliders {
        assert_eq!(c.shape.offset(), Vec3::new(0.0, -0.1, 0.0));
    }
    assert_eq!(
        d.colliders.iter().map(|c| c.node).collect::<Vec<_>>(),
        [11, 17]
    );
}

#[test]
fn a_bone_group_without_settings_leaves_them_to_the_profile() {
    let d = vrm("v0_defaults").spring_bones.unwrap().desc;
    let s = &d.springs[0];
    assert_eq!(
        links(s),
        [(20, Some(21)), (21, Some(22)), (22, Some(23)), leaf(23)]
    );
    for j in &s.joints {
        assert_eq!(j.stiffness, None);
        assert_eq!(j.drag_force, None);
        assert_eq!(j.gravity_power, None);
        assert_eq!(j.hit_radius, None);
        // three-vrm sets the direction itself when `gravityDir` is absent.
        assert_eq!(j.gravity_dir, Some(Vec3::new(0.0, -1.0, 0.0)));
    }
    assert_eq!(s.center, None);
    assert!(s.collider_groups.is_empty() && d.colliders.is_empty());
}

#[test]
fn center_gravity_and_collider_groups_convert() {
    let d = vrm("v0_center_colliders").spring_bones.unwrap().desc;
    assert_eq!(d.springs.len(), 3, "two hair roots and a tail");
    for s in &d.springs[..2] {
        assert_eq!(s.center, Some(1));
        assert_eq!(s.collider_groups, [0]);
        settings(&s.joints[0], (0.02, 1.0, 0.5, [1.0, 0.0, 0.0], 0.4), "hair");
    }
    let tail = &d.springs[2];
    assert_eq!(tail.center, None);
    assert_eq!(tail.joints.len(), 5);
    assert_eq!(tail.joints[4].child, None);
    settings(
        &tail.joints[2],
        (0.03, 1.5, 0.5, [0.0, -1.0, 0.0], 0.3),
        "tail",
    );
    assert_eq!(tail.collider_groups, [1, 2]);
    assert_eq!(d.collider_groups, [vec![0], vec![1, 2], vec![3, 4]]);
    let nodes: Vec<usize> = d.colliders.iter().map(|c| c.node).collect();
    assert_eq!(nodes, [5, 11, 11, 17, 17]);
    // Written z 0.03 on the leg spheres.
    assert!(close3(d.colliders[1].shape.offset(), [0.0, -0.1, -0.03]));
    assert!(close3(d.colliders[4].shape.offset(), [0.0, -0.3, -0.03]));
}

#[test]
fn blend_shapes_become_expressions_and_first_person_a_look_at() {
    let v = vrm("v0_expressions");
    let names: Vec<&str> = v.expressions.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["happy", "blink", "aa", "Smirk"]);
    let binds = |i: usize| -> Vec<(usize, usize, f32)> {
        v.expressions[i]
            .morph_target_binds
            .iter()
            .map(|b| (b.node, b.index, b.weight))
            .collect()
    };
    // Mesh 0 is used by node 23 (20 rig nodes, 3 hair nodes); weights 100, 100, 80, 50, 25.
    assert_eq!(binds(0), [(23, 0, 1.0)]);
    assert_eq!(v.expressions[0].preset, Some(ExpressionPreset::Happy));
    assert!(v.expressions[1].is_binary);
    assert_eq!(binds(2), [(23, 2, 0.8)]);
    assert_eq!(v.expressions[3].preset, None);
    assert_eq!(binds(3), [(23, 0, 0.5), (23, 2, 0.25)]);

    let l = v.look_at.unwrap();
    assert_eq!(l.kind, LookAtType::Bone);
    assert!(close3(l.offset_from_head_bone, [0.0, 0.06, 0.0]));
    assert!(close(l.horizontal_outer.input_max_value, 90.0));
    assert!(close(l.horizontal_outer.output_scale, 12.0));
    assert!(close(l.vertical_up.output_scale, 9.0));
    assert_eq!(v.meta.authors, ["skel cargo xtask fixtures"]);
    assert_eq!(v.meta.license_name.as_deref(), Some("CC0"));
}
