//! Boxes written by the pose pass, and the pose pass's workgroup size: what
//! [`GpuCrowdPose::with_options`](crate::GpuCrowdPose::with_options) takes beyond its
//! descriptor ([`PoseOptions`]).
//!
//! **Why the pose pass boxes.** [`CrowdCull`]'s matrix pass reads every part's bone matrix of
//! every instance back from the bone buffer (one thread an instance, strided reads) to rebuild
//! each joint's matrix; the per-node pose pass already holds every joint's model transform in
//! workgroup memory. With [`PoseBounds`] it boxes each instance there and writes 32 bytes an
//! instance into the cull's boxes buffer, and [`CrowdCull::encode_from_boxes`] only tests them.
//!
//! **The same matrix.** The matrix pass boxes a part of bone `b` under
//! `J = placement · left_b · S_b · right_b` with `S_b = meshInverse_s · model_s · inverseBind_s`
//! (`s`: the bone whose matrix `b` takes, `b` itself or in the reduced joint set its kept
//! ancestor). [`PoseBoundsTable`] folds the constant ends into two affine matrices per part,
//! `L = left_b · meshInverse_s` and `K = inverseBind_s · right_b` (in f64), so the shader's
//! `placement · L · model_s · K` is the same matrix: no assumption that the mesh inverse undoes
//! the mesh node's world.

use glam::Mat4;

use crate::{CrowdCull, CullInputs, GpuClipSet, GpuError};

/// Floats of one part on the GPU: `L`'s three rows, `K`'s three rows, centre and radius.
const PART_FLOATS: usize = 28;

/// The WGSL override constant of the per-node pose pass's workgroup size
/// ([`PoseTuning::group_threads`]).
pub const POSE_GROUP_CONSTANT: &str = "SKEL_POSE_GROUP";

/// Workgroup sizes the per-node pose pass can be built with.
pub const POSE_GROUP_THREADS: [u32; 3] = [64, 128, 256];

/// How the per-node pose pass ([`PoseLayout::PerNode`](crate::PoseLayout::PerNode)) is
/// dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoseTuning {
    /// Threads per workgroup: 64 (the default), 128 or 256. A workgroup poses
    /// `group_threads / posed nodes` instances, one thread per (instance, node); with 22 posed
    /// nodes (CesiumMan) 64 threads hold 2 instances (44 busy), 256 hold 11 (242 busy). The
    /// other layouts keep 64.
    pub group_threads: u32,
}

impl Default for PoseTuning {
    fn default() -> Self {
        Self { group_threads: 64 }
    }
}

impl PoseTuning {
    /// Fails unless [`group_threads`](Self::group_threads) is one of [`POSE_GROUP_THREADS`]
    /// and the device allows a workgroup that large.
    pub(crate) fn check(&self, limits: &wgpu::Limits) -> Result<(), GpuError> {
        if !POSE_GROUP_THREADS.contains(&self.group_threads) {
            return Err(GpuError::OutOfRange {
                what: "PoseTuning::group_threads",
                got: self.group_threads.to_string(),
                expected: "64, 128 or 256",
            });
        }
        let available = limits
            .max_compute_invocations_per_workgroup
            .min(limits.max_compute_workgroup_size_x);
        if available < self.group_threads {
            return Err(GpuError::MissingLimit {
                name: "max_compute_invocations_per_workgroup",
                needed: u64::from(self.group_threads),
                available: u64::from(available),
            });
        }
        Ok(())
    }
}

/// The character's bounding spheres as the pose pass boxes them (see the module docs): per
/// posed node, the parts whose bone's node it is (with every joint, and with the reduced joint
/// set), so a thread loops over its own node's parts only.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseBoundsTable {
    /// Per posed node: first part and count with every joint, then with the reduced set.
    pub(crate) nodes: Vec<[u32; 4]>,
    /// The parts with every joint (by node), then with the reduced set (by node).
    pub(crate) parts: Vec<[f32; PART_FLOATS]>,
}

impl PoseBoundsTable {
    /// The table of `inputs` (the [`CrowdCull`]'s parts and bones) for `set`'s posed nodes,
    /// bones and reduced joint set as they are now. After
    /// [`GpuClipSet::set_reduced_joints`] build it again.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for no parts or another bone count than `set`'s;
    /// [`GpuError::OutOfRange`] for a part's bone past them or a bone node past the posed
    /// nodes; [`GpuError::NotFinite`] for a part's centre or radius (or a folded matrix) that
    /// is not finite.
    pub fn new(set: &GpuClipSet, inputs: &CullInputs) -> Result<Self, GpuError> {
        let bones = set.bone_count();
        if inputs.parts.is_empty() {
            return Err(GpuError::LengthMismatch {
                what: "pose bounds parts",
                expected: 1,
                got: 0,
            });
        }
        if inputs.bones.len() != bones as usize {
            return Err(GpuError::LengthMismatch {
                what: "pose bounds bones (one per bone of the clip set)",
                expected: bones as usize,
                got: inputs.bones.len(),
            });
        }
        crate::cull_inputs::check_parts(&inputs.parts, bones)?;
        let node_count = set.nodes.len();
        let mut nodes = vec![[0u32; 4]; node_count];
        let mut parts = Vec::new();
        for reduced in [false, true] {
            // (node, record) for every part, then sorted by node (stable: part order kept).
            let mut records = Vec::with_capacity(inputs.parts.len());
            for part in &inputs.parts {
                let b = part.bone as usize;
                let source = if reduced {
                    set.reduced_bones.get(b).map_or(b, |&s| s as usize)
                } else {
                    b
                };
                let node = set.bone_nodes.get(source).map_or(u32::MAX, |&n| n);
                if node as usize >= node_count {
                    return Err(GpuError::OutOfRange {
                        what: "pose bounds bone node",
                        got: node.to_string(),
                        expected: "below the clip set's posed nodes",
                    });
                }
                let bone = inputs.bones[b];
                let mesh_inverse = set
                    .mesh_inverses
                    .get(source)
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                let inverse_bind = set
                    .inverse_binds
                    .get(source)
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                let left = (bone.left.as_dmat4() * mesh_inverse.as_dmat4()).as_mat4();
                let right = (inverse_bind.as_dmat4() * bone.right.as_dmat4()).as_mat4();
                let mut record = [0f32; PART_FLOATS];
                for r in 0..3 {
                    record[r * 4..r * 4 + 4].copy_from_slice(&left.row(r).to_array());
                    record[12 + r * 4..16 + r * 4].copy_from_slice(&right.row(r).to_array());
                }
                record[24..27].copy_from_slice(&part.center.to_array());
                record[27] = part.radius;
                if let Some(index) = record.iter().position(|v| !v.is_finite()) {
                    return Err(GpuError::NotFinite {
                        what: "pose bounds parts (folded matrices, centre, radius)",
                        index: records.len() * PART_FLOATS + index,
                    });
                }
                records.push((node, record));
            }
            records.sort_by_key(|&(node, _)| node);
            let (first_field, count_field) = if reduced { (2, 3) } else { (0, 1) };
            for (node, record) in records {
                let entry = &mut nodes[node as usize];
                if entry[count_field] == 0 {
                    entry[first_field] = parts.len() as u32;
                }
                entry[count_field] += 1;
                parts.push(record);
            }
        }
        Ok(Self { nodes, parts })
    }

    /// Posed nodes the table covers.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Parts with every joint (the reduced set lists each again).
    #[must_use]
    pub fn part_count(&self) -> usize {
        self.parts.len() / 2
    }
}

/// Where the pose pass writes its boxes: the [`CrowdCull`] of the same crowd (its placements
/// are read, its boxes written), and the table of the character's parts.
#[derive(Debug, Clone, Copy)]
pub struct PoseBounds<'a> {
    /// The character's parts by posed node.
    pub table: &'a PoseBoundsTable,
    /// The crowd's culling pass, whose [`placements_buffer`](CrowdCull::placements_buffer) the
    /// boxes are placed by and whose [`boxes_buffer`](CrowdCull::boxes_buffer) they go to.
    pub cull: &'a CrowdCull,
}

/// What [`GpuCrowdPose::with_options`](crate::GpuCrowdPose::with_options) takes beyond its
/// descriptor.
#[derive(Debug, Clone, Copy, Default)]
pub struct PoseOptions<'a> {
    /// The per-node pass's workgroup size.
    pub tuning: PoseTuning,
    /// Boxes written by the pose pass ([`PoseLayout::PerNode`](crate::PoseLayout::PerNode),
    /// from `table`, and [`PoseLayout::Baked`](crate::PoseLayout::Baked), from the boxes of
    /// the baked frames, [`BakedClips::bake_boxes`](crate::BakedClips::bake_boxes), which
    /// leaves `table` unread); `None`: none.
    pub bounds: Option<PoseBounds<'a>>,
    /// Pose only the instances the camera sees ([`PoseLayout::Baked`](crate::PoseLayout::Baked)
    /// with `bounds` only). A baked box needs an instance's time, not its bones, so the
    /// advance pass boxes every instance, a
    /// [`CrowdCull::encode_from_boxes`](CrowdCull::encode_from_boxes) recorded between
    /// [`record_advance`](crate::GpuCrowdPose::record_advance) and
    /// [`record_bones`](crate::GpuCrowdPose::record_bones) lists the instances in view, and the
    /// bone pass runs over that list only (dispatched indirectly: an unseen instance launches
    /// no thread and keeps its matrices as they were). An instance whose update rate
    /// ([`PoseInstance::update_every`](crate::PoseInstance::update_every)) skips this frame
    /// poses anyway on the frame it comes into view.
    ///
    /// Whatever else reads the bone buffer then reads stale matrices for the instances out of
    /// view: a shadow pass with its own frustum, or a pick ray past the far plane.
    /// [`GpuCrowdPose::record`](crate::GpuCrowdPose::record) poses every instance; with no cull
    /// between `record_advance` and `record_bones`, the bone pass poses the last cull's list.
    /// The crowd's bind groups then hold one more storage buffer (the list).
    pub skip_unseen: bool,
}

impl PoseOptions<'_> {
    /// Fails unless [`skip_unseen`](Self::skip_unseen) is off, or the pass is baked with
    /// bounds: the unseen are known before the bones only from a baked pass's boxes.
    pub(crate) fn check_skip_unseen(&self, layout: crate::PoseLayout) -> Result<(), GpuError> {
        if self.skip_unseen && (layout != crate::PoseLayout::Baked || self.bounds.is_none()) {
            return Err(GpuError::OutOfRange {
                what: "PoseOptions::skip_unseen",
                got: format!(
                    "{layout:?} {} bounds",
                    if self.bounds.is_some() {
                        "with"
                    } else {
                        "without"
                    }
                ),
                expected: "PoseLayout::Baked with PoseOptions::bounds",
            });
        }
        Ok(())
    }
}
