//! Mirroring's refusals and its small cases: pairs that break the hierarchy (named by node),
//! conflicting pairs, no plane to be found, a map used on another asset, buffers too short,
//! morph weights moved onto another target count; `mirror_pose` allocating nothing; what a
//! mirrored clip keeps (names, markers, weights, properties), the model-space helpers, a given
//! plane.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel_anim::glam::{DMat3, Quat, Vec3};
use skel_anim::mirror::{merge_pairs, pairs_by_name};
use skel_anim::{
    AnimError, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, Marker,
    MirrorMap, MirrorPlane, MorphBinding, NodeRest, PropertyKind, PropertyTrack, Sampler, T_OFF,
    TRS_STRIDE, mirror_clip,
};

fn node(name: &str, parent: Option<usize>, x: f32) -> NodeRest {
    NodeRest {
        translation: [x, 1.0, 0.0],
        ..NodeRest::new(name, parent)
    }
}

fn rig(nodes: Vec<NodeRest>) -> AnimationData {
    AnimationData {
        nodes,
        handedness: Handedness::RightHanded,
        ..AnimationData::default()
    }
}

/// Hips (0), arm_L_1 (1) → arm_L_2 (2), arm_R_1 (3) → arm_R_2 (4).
fn arms() -> AnimationData {
    rig(vec![
        node("Hips", None, 0.0),
        node("arm_L_1", Some(0), 1.0),
        node("arm_L_2", Some(1), 1.0),
        node("arm_R_1", Some(0), -1.0),
        node("arm_R_2", Some(3), -1.0),
    ])
}

#[test]
fn pairs_across_the_hierarchy_name_the_node() {
    let mut data = arms();
    // CesiumMan's way: one side numbered from the hand.
    data.nodes[3].name = "arm_R_2".into();
    data.nodes[4].name = "arm_R_1".into();
    assert_eq!(
        MirrorMap::from_names(&data),
        Err(AnimError::MirrorPairBreaksHierarchy {
            node: 1,
            partner: 4,
            partner_parent: Some(3),
            expected: Some(0),
        })
    );
    // A centre node below a paired one.
    assert_eq!(
        MirrorMap::from_pairs(&arms(), &[(1, 3)]),
        Err(AnimError::MirrorPairBreaksHierarchy {
            node: 2,
            partner: 2,
            partner_parent: Some(1),
            expected: Some(3),
        })
    );
    // Given pairs fix it.
    assert!(MirrorMap::from_pairs(&data, &[(1, 3), (2, 4)]).is_ok());
}

#[test]
fn conflicting_and_unknown_pairs_are_refused() {
    let data = arms();
    assert_eq!(
        MirrorMap::from_pairs(&data, &[(1, 3), (2, 4), (1, 4)]),
        Err(AnimError::MirrorPairConflict {
            node: 1,
            first: 3,
            second: 4,
        })
    );
    assert_eq!(
        MirrorMap::from_pairs(&data, &[(1, 3), (1, 3), (2, 4)]).map(|m| m.partner(1)),
        Ok(Some(3))
    );
    assert!(matches!(
        MirrorMap::from_pairs(&data, &[(1, 9)]),
        Err(AnimError::BadNode {
            node: 9,
            node_count: 5,
            ..
        })
    ));
}

#[test]
fn a_plane_needs_a_pair_apart_or_a_given_plane() {
    let mut data = arms();
    for n in &mut data.nodes {
        n.translation = [0.0; 3];
    }
    assert_eq!(
        MirrorMap::from_names(&data),
        Err(AnimError::MirrorPlaneUnknown { pairs: 1 })
    );
    assert_eq!(
        MirrorMap::from_pairs(&data, &[]),
        Err(AnimError::MirrorPlaneUnknown { pairs: 0 })
    );
    for (normal, distance) in [(Vec3::ZERO, 0.0), (Vec3::X, f32::NAN), (Vec3::NAN, 1.0)] {
        assert!(matches!(
            MirrorPlane::new(normal, distance),
            Err(AnimError::BadMirrorPlane { .. })
        ));
    }
    // Every node a centre node about a given plane: a root at x = 3 lands at x = 1 about x = 2.
    let single = rig(vec![node("root", None, 3.0)]);
    let plane = MirrorPlane::new(Vec3::X * 2.0, 4.0).unwrap();
    let map = MirrorMap::with_plane(&single, &[], plane).unwrap();
    let mut trs = vec![0.0; TRS_STRIDE];
    trs[..3].copy_from_slice(&[3.0, 1.0, 0.0]);
    trs[6] = 1.0;
    trs[7..10].fill(1.0);
    let mut out = vec![0.0; TRS_STRIDE];
    map.mirror_pose(&trs, &mut out).unwrap();
    assert!((Vec3::from_slice(&out[T_OFF..]) - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6);
}

#[test]
fn a_map_is_for_its_own_asset_and_buffers() {
    let data = arms();
    let map = MirrorMap::from_names(&data).unwrap();
    let mut other = arms();
    other.nodes.push(NodeRest::new("extra", None));
    other.clips.push(Clip::new("c", vec![], vec![]));
    assert_eq!(
        mirror_clip(&other, &map, 0),
        Err(AnimError::MirrorMapMismatch {
            map_nodes: 5,
            data_nodes: 6,
        })
    );
    assert!(matches!(
        mirror_clip(&data, &map, 0),
        Err(AnimError::NoSuchClip {
            clip: 0,
            clip_count: 0
        })
    ));
    let input = vec![0.0; 5 * TRS_STRIDE];
    let mut short = vec![7.0; 4 * TRS_STRIDE];
    assert_eq!(
        map.mirror_pose(&input, &mut short),
        Err(AnimError::LengthMismatch {
            what: "mirror output TRS records",
            expected: 5 * TRS_STRIDE,
            got: 4 * TRS_STRIDE,
        })
    );
    assert!(short.iter().all(|&v| v == 7.0), "nothing written");
    // Every frame: no allocation.
    let mut output = vec![0.0; 5 * TRS_STRIDE];
    let allocations = allocation_counter::measure(|| {
        map.mirror_pose(&input, &mut output).unwrap();
    });
    assert_eq!(allocations.count_total, 0);
}

/// `arms()` with meshes on both hands (2 and 3 targets, or `right` targets) and a clip that
/// animates the left mesh's weights, a property of the left arm and has a marker.
fn with_meshes(right: usize) -> AnimationData {
    let mut data = arms();
    data.morph_bindings = vec![
        MorphBinding {
            node: 2,
            default_weights: vec![0.0; 2],
        },
        MorphBinding {
            node: 4,
            default_weights: vec![0.0; right],
        },
    ];
    let weights = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 1.0, 1.0, 0.0],
        Interpolation::Linear,
    );
    let visible = Sampler::new(vec![0.0], vec![1.0], Interpolation::Step).unwrap();
    let clip = Clip::new(
        "Wave",
        vec![weights.unwrap(), visible],
        vec![Channel {
            sampler: 0,
            node: 2,
            path: ChannelPath::Weights,
        }],
    )
    .with_markers([Marker {
        name: "peak".into(),
        time: 0.5,
    }])
    .with_properties([PropertyTrack {
        slot: 0,
        kind: PropertyKind::Bool,
        sampler: 1,
        rest: [1.0, 0.0, 0.0, 0.0],
        node: Some(1),
    }]);
    data.clips.push(clip);
    data
}

#[test]
fn weights_properties_and_markers_follow_the_pairs() {
    let mut data = with_meshes(2);
    let map = MirrorMap::from_names(&data).unwrap();
    let added = data.append_mirrored_clips(&map, &[0, 0]).unwrap();
    assert_eq!(added, vec![1, 2]);
    let m = &data.clips[1];
    assert_eq!(m.name, "Wave.mirror");
    assert_eq!(m.markers, data.clips[0].markers);
    assert_eq!(m.channels.len(), 1, "a symmetric rest adds no track");
    assert_eq!(
        (m.channels[0].node, m.channels[0].path),
        (4, ChannelPath::Weights)
    );
    assert_eq!(m.samplers[m.channels[0].sampler], data.clips[0].samplers[0]);
    assert_eq!(m.properties[0].node, Some(3));
    assert_eq!(m.samplers[m.properties[0].sampler].output(), &[1.0]);
    data.validate().unwrap();

    let mut data = with_meshes(3);
    assert_eq!(
        data.append_mirrored_clips(&map, &[0]),
        Err(AnimError::MirrorMorphTargets {
            node: 2,
            partner: 4,
            targets: 2,
            partner_targets: 3,
        })
    );
    assert_eq!(data.clips.len(), 1, "nothing appended");
}

#[test]
fn an_asymmetric_rest_gets_a_track_where_it_differs() {
    let mut data = arms();
    data.nodes[4].translation[1] = 1.5; // the right forearm is longer
    let pairs = pairs_by_name(&data.nodes).unwrap();
    let map = MirrorMap::with_plane(&data, &pairs, MirrorPlane::X).unwrap();
    data.clips.push(Clip::new("none", vec![], vec![]));
    let m = mirror_clip(&data, &map, 0).unwrap();
    let tracks: Vec<(usize, ChannelPath)> = m.channels.iter().map(|c| (c.node, c.path)).collect();
    assert_eq!(
        tracks,
        vec![(2, ChannelPath::Translation), (4, ChannelPath::Translation)]
    );
    let on = |node: usize| &m.samplers[m.channels.iter().find(|c| c.node == node).unwrap().sampler];
    assert!((on(2).output()[1] - 1.5).abs() < 1e-6);
    assert!((on(4).output()[1] - 1.0).abs() < 1e-6);
}

#[test]
fn model_space_helpers_reflect_through_the_plane() {
    let plane = MirrorPlane::new(Vec3::new(1.0, 2.0, -0.5), 0.7).unwrap();
    let n = plane.normal().as_dvec3();
    let r = DMat3::IDENTITY - 2.0 * DMat3::from_cols(n * n.x, n * n.y, n * n.z);
    for q in [
        Quat::from_rotation_y(0.5),
        Quat::from_axis_angle(Vec3::new(0.3, -1.0, 0.2).normalize(), 2.0),
        Quat::from_xyzw(0.1, 0.7, -0.1, 0.7).normalize(),
    ] {
        let want = r * DMat3::from_quat(q.as_dquat()) * r;
        let got = DMat3::from_quat(plane.reflect_rotation(q).as_dquat());
        assert!((got - want).abs_diff_eq(DMat3::ZERO, 1e-6), "{q}");
    }
    let p = Vec3::new(0.4, -2.0, 3.0);
    let m = plane.matrix();
    assert!((m.transform_point3(p) - plane.reflect_point(p)).length() < 1e-6);
    assert!((plane.reflect_point(plane.reflect_point(p)) - p).length() < 1e-5);
    // The midpoint of a point and its image lies on the plane.
    let mid = (p + plane.reflect_point(p)) * 0.5;
    assert!((plane.normal().dot(mid) - plane.distance()).abs() < 1e-6);
    let lh = plane.for_handedness(Handedness::LeftHanded);
    let flip = Vec3::new(-1.0, 1.0, 1.0);
    assert!((lh.reflect_point(p * flip) - plane.reflect_point(p) * flip).length() < 1e-5);
    let data = arms();
    let map = MirrorMap::from_names(&data).unwrap();
    assert!(
        (map.mirror_point(Vec3::new(2.0, 1.0, 0.0)) - Vec3::new(-2.0, 1.0, 0.0)).length() < 1e-6
    );
    assert!(map.mirror_vector(Vec3::Z).abs_diff_eq(Vec3::Z, 1e-6));
    let turn = map.mirror_rotation(Quat::from_rotation_y(0.3));
    assert!(turn.abs_diff_eq(Quat::from_rotation_y(-0.3), 1e-6));
}

#[test]
fn chosen_pairs_replace_name_pairs() {
    let data = arms();
    let names = pairs_by_name(&data.nodes).unwrap();
    assert_eq!(names, vec![(1, 3), (2, 4)]);
    assert_eq!(merge_pairs(&[(3, 1)], &names), vec![(3, 1), (2, 4)]);
}

/// Sided morph targets swap by name: on a centre mesh between its own targets, and on a
/// mesh moving to its partner between the two meshes' names; CUBICSPLINE tangents with their
/// values; twice is the clip again; unnamed meshes keep their order.
#[test]
fn morph_targets_swap_by_name() {
    let mut data = with_meshes(2);
    // A centre mesh on the body (node 0) with a blink on each side and a smile.
    data.morph_bindings.push(MorphBinding {
        node: 0,
        default_weights: vec![0.0; 3],
    });
    let face = Sampler::new(
        vec![0.0, 1.0],
        // Per key: in-tangents, values, out-tangents of the three targets.
        (0..18).map(|v| v as f32).collect(),
        Interpolation::CubicSpline,
    )
    .unwrap();
    data.clips[0].samplers.push(face);
    data.clips[0].channels.push(Channel {
        sampler: 2,
        node: 0,
        path: ChannelPath::Weights,
    });
    let plain = MirrorMap::from_names(&data).unwrap();
    let named = plain.clone().with_morph_target_names([
        (0, vec!["Blink_R".into(), "Smile".into(), "Blink_L".into()]),
        (2, vec!["thumbUp_L".into(), "fist".into()]),
        (4, vec!["fist".into(), "thumbUp_R".into()]),
    ]);
    let m = mirror_clip(&data, &named, 0).unwrap();
    let on = |m: &Clip, node: usize| {
        let c = m
            .channels
            .iter()
            .find(|c| c.node == node && c.path == ChannelPath::Weights);
        m.samplers[c.unwrap().sampler].output().to_vec()
    };
    // The centre mesh: the blinks swap in every element (tangents too), the smile stays.
    let want: Vec<f32> = (0..6)
        .flat_map(|e| [3 * e + 2, 3 * e + 1, 3 * e].map(|v| v as f32))
        .collect();
    assert_eq!(on(&m, 0), want);
    // The left hand's weights [thumbUp_L, fist] land on the right hand as [fist, thumbUp_R].
    assert_eq!(on(&m, 4), vec![1.0, 0.0, 0.0, 1.0]);
    // Without names: in order, as before.
    let p = mirror_clip(&data, &plain, 0).unwrap();
    assert_eq!(on(&p, 0), (0..18).map(|v| v as f32).collect::<Vec<_>>());
    assert_eq!(on(&p, 4), vec![0.0, 1.0, 1.0, 0.0]);
    // Twice: the clip's weights again.
    let mut twice = data.clone();
    twice.clips = vec![m];
    let back = mirror_clip(&twice, &named, 0).unwrap();
    assert_eq!(on(&back, 0), on(&data.clips[0], 0));
    assert_eq!(on(&back, 2), on(&data.clips[0], 2));
}
