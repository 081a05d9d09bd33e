//! Collider shapes read back: spheres and capsules with offsets (`VRMC_springBone`), and the
//! extended ones (`VRMC_springBone_extended_collider`: inside sphere, inside capsule, plane).

use glam::Vec3;
use skel_anim::spring::ColliderShape;

use super::{close, close3, links, run, settings, vrm};

#[test]
fn sphere_and_capsule_colliders_read_back() {
    let sb = vrm("v1_sphere_colliders").spring_bones.unwrap().desc;
    let spheres = [
        (5, [0.0, 0.08, -0.02], 0.09),
        (3, [0.0, 0.1, -0.05], 0.12),
        (8, [0.1, 0.0, 0.0], 0.05),
        (14, [-0.1, 0.0, 0.0], 0.05),
    ];
    for (c, (node, offset, radius)) in sb.colliders.iter().zip(spheres) {
        assert_eq!(c.node, node);
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
    assert_eq!(sb.collider_groups, [vec![0], vec![1, 2, 3]]);
    assert_eq!(sb.springs[0].collider_groups, [0, 1]);
    assert_eq!(sb.springs[1].collider_groups, [1]);

    let sb = vrm("v1_capsule_colliders").spring_bones.unwrap().desc;
    let capsules = [
        (3, [0.08, 0.05, -0.05], [-0.08, 0.05, -0.05], 0.08),
        (5, [0.0, 0.05, 0.0], [0.0, 0.15, 0.0], 0.09),
        (8, [0.0; 3], [0.25, 0.0, 0.0], 0.04),
        (14, [0.0; 3], [-0.25, 0.0, 0.0], 0.04),
    ];
    for (c, (node, offset, tail, radius)) in sb.colliders.iter().zip(capsules) {
        assert_eq!(c.node, node);
        let ColliderShape::Capsule {
            offset: o,
            tail: t,
            radius: r,
            inside,
        } = c.shape
        else {
            panic!("{c:?}");
        };
        assert!(close3(o, offset) && close3(t, tail) && close(r, radius) && !inside);
    }
    assert_eq!(links(&sb.springs[1]), run(25, 29));
}

#[test]
fn extended_colliders_read_back() {
    let sb = vrm("v1_inside_sphere").spring_bones.unwrap().desc;
    assert_eq!(sb.colliders[0].node, 5);
    assert_eq!(
        sb.colliders[0].shape,
        ColliderShape::Sphere {
            offset: Vec3::new(0.0, 0.0, -0.05),
            radius: 0.3,
            inside: true
        }
    );
    settings(
        &sb.springs[0].joints[0],
        (0.02, 1.0, 1.0, [0.0, -1.0, 0.0], 0.4),
        "hair",
    );

    let sb = vrm("v1_inside_capsule").spring_bones.unwrap().desc;
    assert_eq!(sb.colliders[0].node, 1);
    assert_eq!(
        sb.colliders[0].shape,
        ColliderShape::Capsule {
            offset: Vec3::new(0.0, -0.05, -0.05),
            tail: Vec3::new(0.0, -0.15, -0.5),
            radius: 0.12,
            inside: true
        }
    );

    let sb = vrm("v1_plane").spring_bones.unwrap().desc;
    assert_eq!(links(&sb.springs[0]), run(20, 27));
    let planes = [
        (1, [0.0, 0.2, 0.0], [0.0, 1.0, 0.0]),
        (3, [0.0, 0.0, -0.12], [0.0, 0.6, -0.8]),
    ];
    for (c, (node, offset, normal)) in sb.colliders.iter().zip(planes) {
        assert_eq!(c.node, node);
        let ColliderShape::Plane {
            offset: o,
            normal: n,
        } = c.shape
        else {
            panic!("{c:?}");
        };
        assert!(close3(o, offset) && close3(n, normal), "{c:?}");
    }

    let sb = vrm("v1_everything").spring_bones.unwrap().desc;
    assert_eq!(sb.colliders.len(), 6);
    assert_eq!(sb.springs.len(), 9);
    assert!(matches!(
        sb.colliders[3].shape,
        ColliderShape::Sphere { inside: true, .. }
    ));
    assert!(matches!(
        sb.colliders[4].shape,
        ColliderShape::Capsule { inside: true, .. }
    ));
    assert!(matches!(sb.colliders[5].shape, ColliderShape::Plane { .. }));
    assert_eq!(
        sb.collider_groups,
        [vec![0, 3], vec![1, 2], vec![4], vec![5]]
    );
    assert_eq!(links(&sb.springs[4]), run(36, 40), "tail");
    for (k, s) in sb.springs[5..].iter().enumerate() {
        // Skirt node 41, chains of 3 from 42.
        assert_eq!(links(s), run(42 + 3 * k, 44 + 3 * k));
        assert_eq!(s.center, Some(1));
        assert_eq!(s.collider_groups, [1, 3]);
    }
}
