//! Shared test helpers: a hand-built rig that exercises every discovery case, a sink that
//! counts uploads, a facade-like mesh type, matrix helpers.
#![allow(dead_code, reason = "each test binary uses a different subset")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::glam::Mat4;

use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, MorphBinding, NodeRest,
    PoseSink, Sampler, SkeletonBinding,
};
use skel_bone_control::{HasMeshSkeleton, MeshSkeleton, MeshVisibility, Skeleton};

/// Node indices of [`rig`].
pub mod node {
    pub const ARMATURE: usize = 0;
    pub const HIPS: usize = 1;
    pub const SPACER: usize = 2;
    pub const SPINE: usize = 3;
    pub const HEAD: usize = 4;
    pub const ARM: usize = 5;
    pub const BODY_MESH: usize = 6;
    pub const EYES_MESH: usize = 7;
    pub const PROP: usize = 8;
    pub const STATUE_MESH: usize = 9;
}

/// Bone indices of skin 0 in [`rig`] (joints listed out of node order).
pub mod bone {
    pub const HEAD: usize = 0;
    pub const HIPS: usize = 1;
    pub const ARM: usize = 2;
    pub const SPINE: usize = 3;
    pub const PROP: usize = 4;
}

/// Clip indices of [`rig`].
pub mod clip {
    /// Rotation of the head, translation of the hips, a constant scale 1 on every joint (as
    /// every Mixamo export has).
    pub const MIXAMO_LIKE: usize = 0;
}

pub fn quat_axis_angle(axis: [f32; 3], angle: f32) -> [f32; 4] {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let s = (angle / 2.0).sin() / n;
    [axis[0] * s, axis[1] * s, axis[2] * s, (angle / 2.0).cos()]
}

fn rest(name: &str, parent: Option<usize>, t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> NodeRest {
    let mut n = NodeRest::new(name, parent);
    n.translation = t;
    n.rotation = r;
    n.scale = s;
    n
}

/// A small character with every discovery case:
///
/// ```text
/// 0 Armature (non-joint; rotated, uniform scale 0.5)
/// └ 1 hips (joint)
///   └ 2 spacer (non-joint)
///     └ 3 spine (joint)
///       ├ 4 head (joint)
///       └ 5 arm (joint)
/// 6 body mesh, 7 eyes mesh (both skinned by skin 0: a split skin)
/// 8 prop (joint of skin 0, a second root)
/// 9 statue mesh (not skinned)
/// ```
///
/// Skin 0 lists its joints out of node order: `[head, hips, arm, spine, prop]`.
pub fn rig(handedness: Handedness) -> AnimationData {
    let nodes = vec![
        rest(
            "Armature",
            None,
            [0.5, 0.0, -1.0],
            quat_axis_angle([1.0, 0.0, 0.0], -std::f32::consts::FRAC_PI_2),
            [0.5; 3],
        ),
        rest(
            "hips",
            Some(node::ARMATURE),
            [0.0, 0.0, 2.0],
            quat_axis_angle([0.0, 0.0, 1.0], 0.3),
            [1.0; 3],
        ),
        rest(
            "spacer",
            Some(node::HIPS),
            [0.0, 0.2, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [1.0; 3],
        ),
        rest(
            "spine",
            Some(node::SPACER),
            [0.0, 0.8, 0.0],
            quat_axis_angle([1.0, 0.0, 0.0], 0.2),
            [1.0; 3],
        ),
        rest(
            "head",
            Some(node::SPINE),
            [0.0, 0.6, 0.1],
            [0.0, 0.0, 0.0, 1.0],
            [1.0; 3],
        ),
        rest(
            "arm",
            Some(node::SPINE),
            [0.4, 0.5, 0.0],
            quat_axis_angle([0.0, 1.0, 0.0], -0.7),
            [1.0; 3],
        ),
        rest("body", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        rest("eyes", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        rest(
            "prop",
            None,
            [2.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [1.0; 3],
        ),
        rest("statue", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
    ];
    let joints = vec![node::HEAD, node::HIPS, node::ARM, node::SPINE, node::PROP];
    let skeletons = vec![
        SkeletonBinding::new(0, node::BODY_MESH, joints.clone(), vec![]).unwrap(),
        SkeletonBinding::new(0, node::EYES_MESH, joints, vec![]).unwrap(),
    ];
    let times = vec![0.0, 1.0];
    let mut samplers = vec![
        Sampler::new(
            times.clone(),
            [
                quat_axis_angle([0.0, 1.0, 0.0], 0.0),
                quat_axis_angle([0.0, 1.0, 0.0], 1.0),
            ]
            .concat(),
            Interpolation::Linear,
        )
        .unwrap(),
        Sampler::new(
            times.clone(),
            vec![0.0, 0.0, 2.0, 0.0, 0.5, 2.0],
            Interpolation::Linear,
        )
        .unwrap(),
    ];
    let mut channels = vec![
        Channel {
            sampler: 0,
            node: node::HEAD,
            path: ChannelPath::Rotation,
        },
        Channel {
            sampler: 1,
            node: node::HIPS,
            path: ChannelPath::Translation,
        },
    ];
    for joint in [node::HEAD, node::HIPS, node::ARM, node::SPINE, node::PROP] {
        channels.push(Channel {
            sampler: samplers.len(),
            node: joint,
            path: ChannelPath::Scale,
        });
        samplers.push(Sampler::new(times.clone(), vec![1.0; 6], Interpolation::Step).unwrap());
    }
    AnimationData {
        nodes,
        clips: vec![Clip::new("mixamo_like", samplers, channels)],
        skeletons,
        morph_bindings: vec![MorphBinding {
            node: node::STATUE_MESH,
            default_weights: vec![0.25, 0.75],
        }],
        handedness,
    }
}

pub fn rig_arc() -> Arc<AnimationData> {
    Arc::new(rig(Handedness::LeftHanded))
}

/// A sink that keeps every call: how many uploads happened and what the last ones were.
#[derive(Debug, Default, Clone)]
pub struct CountingSink {
    pub bone_calls: usize,
    pub morph_calls: usize,
    /// Last matrices per binding.
    pub bones: Vec<Vec<f32>>,
    /// Bindings in the order of calls since the last [`CountingSink::take_order`].
    pub order: Vec<usize>,
}

impl CountingSink {
    pub fn take_order(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.order)
    }
}

impl PoseSink for CountingSink {
    fn bone_matrices(&mut self, binding: usize, matrices: &[Mat4]) {
        self.bone_calls += 1;
        self.order.push(binding);
        if self.bones.len() <= binding {
            self.bones.resize_with(binding + 1, Vec::new);
        }
        self.bones[binding] = floats(matrices);
    }
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {
        self.morph_calls += 1;
    }
}

/// Matrices as their 16 column-major floats each.
pub fn floats(m: &[Mat4]) -> Vec<f32> {
    m.iter().flat_map(Mat4::to_cols_array).collect()
}

/// Matrix `i` of a flat list.
pub fn mat(list: &[f32], i: usize) -> [f32; 16] {
    list[i * 16..i * 16 + 16].try_into().unwrap()
}

/// Length of column `c` (the scale along that axis).
pub fn column_len(m: &[f32; 16], c: usize) -> f32 {
    (m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]).sqrt()
}

pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Stand-in for the GPU skeleton (bone texture and buffers): `generation` tells a rebuilt one
/// from the original.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeGpu {
    pub generation: u32,
}

/// A mesh shaped as the facade's should be (see `skel_bone_control::mesh` docs).
#[derive(Debug, Clone)]
pub struct TestMesh {
    pub name: &'static str,
    pub visible: bool,
    pub skeleton: Option<MeshSkeleton<FakeGpu>>,
}

impl HasMeshSkeleton for TestMesh {
    fn mesh_skeleton(&self) -> Option<Arc<Skeleton>> {
        self.skeleton.mesh_skeleton()
    }
}

impl MeshVisibility for TestMesh {
    fn set_visible(&mut self, visible: bool) {
        self.visible = visible;
    }
}

/// Loads `../shared/assets/<rel>` (pose data only, no images). `None`, after a skip, when the
/// shared folder is missing, unless `SKEL_REQUIRE_ASSETS=1` (`skel_test_support::shared_asset`).
pub fn load_asset(rel: &str, handedness: skel_anim::Handedness) -> Option<skel_gltf::GltfAsset> {
    let path = skel_test_support::shared_asset(&format!("skel-bone-control tests ({rel})"), rel)?;
    let opts = skel_gltf::LoadOptions {
        handedness,
        decode_images: false,
    };
    Some(skel_gltf::load_path(&path, &opts).unwrap())
}

/// Bones in an order where every parent comes before its children.
pub fn parents_first(bones: &[skel_bone_control::Bone]) -> Vec<usize> {
    let depth = |mut b: usize| {
        let mut d = 0;
        while let Some(p) = bones[b].parent {
            b = p;
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (0..bones.len()).collect();
    order.sort_by_key(|&b| depth(b));
    order
}
