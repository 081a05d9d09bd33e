//! Creating a skeleton's GPU resources, checking every input first, and replacing its bone
//! matrices (the seed's `createSkeleton` / `updateSkeletonBoneMatrices`).

use std::sync::Mutex;

use glam::Mat4;

use super::{SkeletonGpu, SkeletonMirror, build_resources};
use crate::{BoneTextureLayout, GpuContext, GpuError, JointIndices};

/// Creates a skeleton's GPU resources (the seed's `createSkeleton`).
///
/// - `joints`, `weights`: `JOINTS_0`/`WEIGHTS_0`, 4 per vertex. Joints are widened to `u32`.
/// - `bone_count`: bones (skin joints); `bone_data`: their initial matrices (column-major, in
///   the mesh's units), one per bone.
/// - `joints1`, `weights1`: `JOINTS_1`/`WEIGHTS_1` for 8-influence skinning; both or neither.
///
/// Buffers are at least 4 bytes, with [`INFLUENCE_BUFFER_USAGE`](crate::INFLUENCE_BUFFER_USAGE); the bone texture is filled
/// from `bone_data`. The initial contents of the texture and every buffer are copied from one
/// staging buffer mapped at creation (the seed's `mappedAtCreation`, once per call rather than
/// once per buffer; see `staging.rs` for why), submitted before this returns.
///
/// # Errors
/// - [`GpuError::NoBones`], [`GpuError::TooManyBones`] (naming the device limit);
/// - [`GpuError::LengthMismatch`]: `bone_data` not `bone_count` matrices, joints not a
///   multiple of 4, weights not as many as joints, `JOINTS_1` not as long as `JOINTS_0`, or one
///   of `joints1`/`weights1` without the other;
/// - [`GpuError::JointOutOfRange`]: a joint index ≥ `bone_count` (with vertex and slot);
/// - [`GpuError::NotFinite`]: a NaN or infinite weight or matrix element (for a matrix, the
///   index counts elements, 16 per matrix);
/// - [`GpuError::MissingLimit`] (`max_buffer_size`), [`GpuError::Validation`],
///   [`GpuError::OutOfMemory`] from the device.
#[doc(alias = "createSkeleton")]
pub fn create_skeleton(
    ctx: &GpuContext,
    joints: JointIndices<'_>,
    weights: &[f32],
    bone_count: u32,
    bone_data: &[Mat4],
    joints1: Option<JointIndices<'_>>,
    weights1: Option<&[f32]>,
) -> Result<SkeletonGpu, GpuError> {
    let second = match (joints1, weights1) {
        (None, None) => None,
        (Some(joints), Some(weights)) => Some(InfluenceSet { joints, weights }),
        (Some(j1), None) => {
            return Err(GpuError::LengthMismatch {
                what: "weights1 (JOINTS_1 given without WEIGHTS_1)",
                expected: j1.len(),
                got: 0,
            });
        }
        (None, Some(w1)) => {
            return Err(GpuError::LengthMismatch {
                what: "joints1 (WEIGHTS_1 given without JOINTS_1)",
                expected: w1.len(),
                got: 0,
            });
        }
    };
    let mut sets = vec![InfluenceSet { joints, weights }];
    sets.extend(second);
    create_skeleton_with(
        ctx,
        &SkeletonDescriptor {
            bone_count,
            bone_data,
            influences: &sets,
        },
    )
}

/// One `JOINTS_n`/`WEIGHTS_n` pair: 4 joint indices and 4 weights per vertex.
#[derive(Debug, Clone, Copy)]
pub struct InfluenceSet<'a> {
    /// Joint indices, 4 per vertex, widened to `u32` on the GPU.
    pub joints: JointIndices<'a>,
    /// Weights, 4 per vertex (as many as `joints`).
    pub weights: &'a [f32],
}

/// What [`create_skeleton_with`] builds a skeleton from (the descriptor form of
/// [`create_skeleton`], which takes at most two influence sets).
///
/// ```no_run
/// use skel_gpu::*;
///
/// let ctx = GpuContext::new_headless()?;
/// let bones = [glam::Mat4::IDENTITY; 16];
/// // One vertex spread evenly over 16 bones: JOINTS_0..3 / WEIGHTS_0..3.
/// let joints: Vec<[u8; 4]> = (0..4u8).map(|s| [4 * s, 4 * s + 1, 4 * s + 2, 4 * s + 3]).collect();
/// let weights = [1.0 / 16.0; 4];
/// let sets: Vec<InfluenceSet<'_>> = joints
///     .iter()
///     .map(|j| InfluenceSet { joints: JointIndices::U8(j), weights: &weights })
///     .collect();
/// let skeleton = create_skeleton_with(
///     &ctx,
///     &SkeletonDescriptor { bone_count: 16, bone_data: &bones, influences: &sets },
/// )?;
/// assert_eq!(skeleton.influences_per_vertex(), 16);
/// # Ok::<(), GpuError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SkeletonDescriptor<'a> {
    /// Bones (skin joints).
    pub bone_count: u32,
    /// Their initial matrices (column-major, in the mesh's units), one per bone.
    pub bone_data: &'a [Mat4],
    /// The influence sets: 1 (4 influences per vertex), 2 (8) or 4 (16). glTF files with 3
    /// sets are padded to 4 by the loader (`skel_gltf::GpuInfluences`).
    pub influences: &'a [InfluenceSet<'a>],
}

/// Creates a skeleton's GPU resources from a [`SkeletonDescriptor`]: 4, 8 or 16 influences per
/// vertex. Everything [`create_skeleton`] says holds here too.
///
/// # Errors
/// As [`create_skeleton`]; [`GpuError::LengthMismatch`] also for a set count other than 1, 2
/// or 4, or a set with another vertex count than set 0.
pub fn create_skeleton_with(
    ctx: &GpuContext,
    desc: &SkeletonDescriptor<'_>,
) -> Result<SkeletonGpu, GpuError> {
    let bone_count = desc.bone_count;
    let layout = BoneTextureLayout::new(bone_count, ctx.limits.max_texture_dimension_2d)?;
    check_len(
        "bone_data (one matrix per bone)",
        bone_count as usize,
        desc.bone_data.len(),
    )?;
    check_finite("bone_data", bytemuck::cast_slice(desc.bone_data))?;
    let count = desc.influences.len();
    if !matches!(count, 1 | 2 | 4) {
        return Err(GpuError::LengthMismatch {
            what: "influence sets (1, 2 or 4)",
            expected: count.next_power_of_two().clamp(1, 4),
            got: count,
        });
    }
    let first_len = desc.influences[0].joints.len();
    if !first_len.is_multiple_of(4) {
        return Err(GpuError::LengthMismatch {
            what: "joints (4 per vertex)",
            expected: first_len / 4 * 4,
            got: first_len,
        });
    }
    const JOINT_NAMES: [&str; 4] = [
        "joints (as many as joints)",
        "joints1 (as many as joints)",
        "joints2 (as many as joints)",
        "joints3 (as many as joints)",
    ];
    const WEIGHT_NAMES: [&str; 4] = [
        "weights (one per joint index)",
        "weights1 (as many as joints1)",
        "weights2 (as many as joints2)",
        "weights3 (as many as joints3)",
    ];
    const FINITE_NAMES: [&str; 4] = ["weights", "weights1", "weights2", "weights3"];
    let mut sets = Vec::with_capacity(count);
    for (s, set) in desc.influences.iter().enumerate() {
        check_len(JOINT_NAMES[s], first_len, set.joints.len())?;
        check_len(WEIGHT_NAMES[s], set.joints.len(), set.weights.len())?;
        check_finite(FINITE_NAMES[s], set.weights)?;
        let joints = set.joints.widen();
        check_joints(&joints, 4 * s, bone_count)?;
        sets.push((joints, set.weights.to_vec()));
    }
    let mirror = SkeletonMirror { sets };
    let gpu = build_resources(ctx, &layout, &mirror, desc.bone_data)?;
    Ok(SkeletonGpu {
        layout,
        gpu,
        mirror,
        bone_matrices: Mutex::new(desc.bone_data.to_vec()),
        handle: None,
    })
}

/// Replaces a skeleton's bone matrices (the seed's `updateSkeletonBoneMatrices`): checks the
/// count, updates the CPU mirror and uploads the whole set.
///
/// `matrices`: one column-major matrix per bone (`jointWorld · inverseBind`), in the mesh's
/// units.
///
/// # Errors
/// [`GpuError::BoneCountMismatch`] unless `matrices` holds exactly `bone_count` matrices;
/// [`GpuError::NotFinite`] for a NaN or infinite element (its index counts elements, 16 per
/// matrix). Nothing is changed on error.
#[doc(alias = "updateSkeletonBoneMatrices")]
pub fn update_skeleton_bone_matrices(
    ctx: &GpuContext,
    skeleton: &mut SkeletonGpu,
    matrices: &[Mat4],
) -> Result<(), GpuError> {
    if matrices.len() != skeleton.bone_count() as usize {
        return Err(GpuError::BoneCountMismatch {
            expected: skeleton.bone_count(),
            got: matrices.len(),
        });
    }
    check_finite("bone matrices", bytemuck::cast_slice(matrices))?;
    skeleton.write_bone_matrices(&ctx.queue, matrices);
    Ok(())
}

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), GpuError> {
    if expected == got {
        Ok(())
    } else {
        Err(GpuError::LengthMismatch {
            what,
            expected,
            got,
        })
    }
}

fn check_finite(what: &'static str, values: &[f32]) -> Result<(), GpuError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(GpuError::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// Every joint index must name a bone; `first_slot` is 4 × the set (4 for `JOINTS_1`).
fn check_joints(joints: &[u32], first_slot: usize, bone_count: u32) -> Result<(), GpuError> {
    match joints.iter().position(|&j| j >= bone_count) {
        Some(i) => Err(GpuError::JointOutOfRange {
            vertex: i / 4,
            slot: first_slot + i % 4,
            joint: joints[i],
            bone_count,
        }),
        None => Ok(()),
    }
}
