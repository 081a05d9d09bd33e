//! Properties of the rule, against `f64` references: a rig onto itself, rest onto rest, a
//! re-oriented target joint (inverse bind compensated), a uniformly scaled target.

use glam::{DMat4, DQuat, DVec3, Mat4};
use proptest::prelude::*;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, NodeRest, PoseScratch,
    Sampler, SkeletonBinding, apply_clip, compute_world_matrices,
};
use skel_retarget::{NodeMap, RetargetOptions, retarget};

const JOINTS: usize = 4;

fn quat() -> impl Strategy<Value = [f32; 4]> {
    (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0)
        .prop_filter("not tiny", |(x, y, z, w)| {
            x * x + y * y + z * z + w * w > 0.1
        })
        .prop_map(|(x, y, z, w)| {
            DQuat::from_xyzw(x, y, z, w)
                .normalize()
                .as_quat()
                .to_array()
        })
}

fn vec3(r: f32) -> impl Strategy<Value = [f32; 3]> {
    [-r..r, -r..r, -r..r]
}

/// A chain of `JOINTS` joints (uniform scales) and a mesh node bound to them.
fn rig() -> impl Strategy<Value = AnimationData> {
    prop::collection::vec((vec3(1.0), quat(), 0.5f32..2.0), JOINTS).prop_map(|rests| {
        let mut nodes: Vec<NodeRest> = rests
            .iter()
            .enumerate()
            .map(|(i, &(t, r, s))| NodeRest {
                translation: t,
                rotation: r,
                scale: [s; 3],
                ..NodeRest::new(format!("j{i}"), i.checked_sub(1))
            })
            .collect();
        nodes.push(NodeRest::new("mesh", None));
        let joints: Vec<usize> = (0..JOINTS).collect();
        AnimationData {
            nodes,
            skeletons: vec![
                SkeletonBinding::new(0, JOINTS, joints, vec![]).unwrap_or_else(|e| panic!("{e}")),
            ],
            handedness: Handedness::RightHanded,
            ..AnimationData::default()
        }
    })
}

/// Rotation keys on every joint and translation keys on the root, three keys each.
fn clip() -> impl Strategy<Value = Clip> {
    (
        prop::collection::vec([quat(), quat(), quat()], JOINTS),
        [vec3(1.0), vec3(1.0), vec3(1.0)],
    )
        .prop_map(|(rotations, translations)| {
            let times = vec![0.0, 0.5, 1.0];
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            for (node, keys) in rotations.iter().enumerate() {
                let out = keys.iter().flatten().copied().collect();
                samplers.push(
                    Sampler::new(times.clone(), out, Interpolation::Linear)
                        .unwrap_or_else(|e| panic!("{e}")),
                );
                channels.push(Channel {
                    sampler: node,
                    node,
                    path: ChannelPath::Rotation,
                });
            }
            let out = translations.iter().flatten().copied().collect();
            samplers.push(
                Sampler::new(times, out, Interpolation::Linear).unwrap_or_else(|e| panic!("{e}")),
            );
            channels.push(Channel {
                sampler: JOINTS,
                node: 0,
                path: ChannelPath::Translation,
            });
            Clip::new("clip", samplers, channels)
        })
}

fn identity_map(_: &AnimationData) -> NodeMap {
    let mut map = NodeMap::new();
    for j in 0..JOINTS {
        map.insert(j, j);
    }
    map
}

fn root_options() -> RetargetOptions {
    RetargetOptions {
        root: Some("j0".into()),
        ground: Some(format!("j{}", JOINTS - 1)),
        ..RetargetOptions::default()
    }
}

/// World matrices of `data` playing clip 0 at `t`.
fn worlds(data: &AnimationData, t: f32) -> Vec<Mat4> {
    let mut scratch = PoseScratch::new(data).unwrap_or_else(|e| panic!("{e}"));
    apply_clip(data, 0, t, &mut scratch);
    compute_world_matrices(data, &mut scratch);
    scratch.world.clone()
}

fn close(a: Mat4, b: Mat4, tol: f32) -> bool {
    a.abs_diff_eq(b, tol)
}

/// Whether the root's height ratio is far from degenerate (the ratio divides by it).
fn tall(data: &AnimationData) -> bool {
    let mut w = DMat4::IDENTITY;
    let mut ys = Vec::new();
    for n in &data.nodes[..JOINTS] {
        let m = DMat4::from_scale_rotation_translation(
            DVec3::from(n.scale.map(f64::from)),
            DQuat::from_array(n.rotation.map(f64::from)),
            DVec3::from(n.translation.map(f64::from)),
        );
        w *= m;
        ys.push(w.w_axis.truncate());
    }
    let d = (ys[0] - ys[JOINTS - 1]).abs();
    d.max_element() > 0.2
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A rig onto itself returns its clips: every pose equal up to rounding.
    #[test]
    fn onto_itself(data in rig(), clip in clip()) {
        prop_assume!(tall(&data));
        let mut source = data.clone();
        source.clips.push(clip);
        let clips = retarget(&source, &data, &identity_map(&data), &root_options()).unwrap_or_else(|e| panic!("{e}"));
        let mut out = data.clone();
        out.clips = clips;
        for t in [0.0, 0.3, 0.5, 1.0] {
            for (a, b) in worlds(&source, t).iter().zip(worlds(&out, t)) {
                prop_assert!(close(*a, b, 2e-4), "t={t}: {a} vs {b}");
            }
        }
    }

    /// A source standing at its rest puts the target at the target's rest.
    #[test]
    fn rest_to_rest(source in rig(), target in rig()) {
        let mut source = source;
        let times = vec![0.0, 1.0];
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for node in 0..JOINTS {
            let r = source.nodes[node].rotation;
            samplers.push(Sampler::new(times.clone(), [r, r].concat(), Interpolation::Linear).unwrap_or_else(|e| panic!("{e}")));
            channels.push(Channel { sampler: node, node, path: ChannelPath::Rotation });
        }
        source.clips.push(Clip::new("rest", samplers, channels));
        let options = RetargetOptions { fix_root_position: false, ..RetargetOptions::default() };
        let clips = retarget(&source, &target, &identity_map(&target), &options).unwrap_or_else(|e| panic!("{e}"));
        let mut out = target.clone();
        out.clips = clips;
        let mut rest = target.clone();
        rest.clips = vec![Clip::new("none", vec![], vec![])];
        for (a, b) in worlds(&out, 0.5).iter().zip(worlds(&rest, 0.0)) {
            prop_assert!(close(*a, b, 1e-4), "{a} vs {b}");
        }
    }

    /// Turning a target joint's local frame by `x` (children and inverse bind compensated)
    /// leaves every skinning matrix, hence every skinned vertex, unchanged.
    #[test]
    fn reoriented_joint_skins_the_same(source in rig(), target in rig(), clip in clip(), x in quat(), joint in 0..JOINTS) {
        let mut source = source;
        source.clips.push(clip);
        let x = DQuat::from_array(x.map(f64::from));
        let mut turned = target.clone();
        let r = DQuat::from_array(turned.nodes[joint].rotation.map(f64::from));
        turned.nodes[joint].rotation = (r * x).normalize().as_quat().to_array();
        if joint + 1 < JOINTS {
            let child = &mut turned.nodes[joint + 1];
            let t = DVec3::from(child.translation.map(f64::from));
            child.translation = (x.inverse() * t).as_vec3().to_array();
            let rc = DQuat::from_array(child.rotation.map(f64::from));
            child.rotation = (x.inverse() * rc).normalize().as_quat().to_array();
        }
        let mut ib = vec![Mat4::IDENTITY; JOINTS];
        ib[joint] = Mat4::from_quat(x.inverse().as_quat());
        turned.skeletons[0].inverse_bind_matrices = ib.iter().flat_map(|m| m.to_cols_array()).collect();
        let options = RetargetOptions { fix_root_position: false, ..RetargetOptions::default() };
        let bake = |t: &AnimationData| {
            let mut out = t.clone();
            out.clips = retarget(&source, t, &identity_map(t), &options).unwrap_or_else(|e| panic!("{e}"));
            out
        };
        let (a, b) = (bake(&target), bake(&turned));
        for t in [0.0, 0.4, 1.0] {
            let (wa, wb) = (worlds(&a, t), worlds(&b, t));
            for j in 0..JOINTS {
                let bone_b = wb[j] * ib[j];
                let scale = wa[j].x_axis.length().max(1.0) * 4.0;
                prop_assert!(close(wa[j], bone_b, 2e-4 * scale), "joint {j} t={t}: {} vs {}", wa[j], bone_b);
            }
        }
    }

    /// A uniformly scaled copy of the target gets `k` times the root motion.
    #[test]
    fn scaled_target_scales_root_motion(source in rig(), target in rig(), clip in clip(), k in 0.25f32..4.0) {
        prop_assume!(tall(&source) && tall(&target));
        let mut source = source;
        source.clips.push(clip);
        let mut scaled = target.clone();
        scaled.nodes[0].scale = scaled.nodes[0].scale.map(|s| s * k);
        scaled.nodes[0].translation = scaled.nodes[0].translation.map(|t| t * k);
        let bake = |t: &AnimationData| {
            let mut out = t.clone();
            out.clips = retarget(&source, t, &identity_map(t), &root_options()).unwrap_or_else(|e| panic!("{e}"));
            out
        };
        let (a, b) = (bake(&target), bake(&scaled));
        let rest_a = worlds(&a, 0.0)[0].w_axis;
        let rest_b = worlds(&b, 0.0)[0].w_axis;
        for t in [0.25, 0.5, 1.0] {
            let da = (worlds(&a, t)[0].w_axis - rest_a).truncate();
            let db = (worlds(&b, t)[0].w_axis - rest_b).truncate();
            prop_assert!((da * k).abs_diff_eq(db, 1e-3 * (1.0 + db.length())), "t={t}: {da} × {k} vs {db}");
        }
    }
}
