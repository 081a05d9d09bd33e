//! The pose pass's pipelines and bind groups ([`GpuCrowdPose`](crate::GpuCrowdPose)): which
//! entry point poses the bones, with which override constants, and what each chunk binds
//! (bindings 9–12 only when the pass writes boxes).

use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::compute_pass::compute_pipelines_with;
use crate::pose_bounds::{POSE_GROUP_CONSTANT, PoseBounds};
use crate::pose_data::{GpuClips, POSE_WGSL, PoseInstance, PoseLayout};
use crate::{BoneLayout, GpuContext, GpuError};

/// Storage buffers the pose pass binds without bounds (bindings 1–8) and with them (1–12).
const STORAGE_BUFFERS: u32 = 8;
const STORAGE_BUFFERS_WITH_BOUNDS: u32 = 12;

/// The pose pass's GPU copy of a [`PoseBoundsTable`](crate::PoseBoundsTable) and the
/// [`CrowdCull`](crate::CrowdCull) buffers it reads and writes.
pub(crate) struct BoundsBindings<'a> {
    pub placements: &'a wgpu::Buffer,
    pub boxes: &'a wgpu::Buffer,
    pub nodes: wgpu::Buffer,
    pub parts: wgpu::Buffer,
}

impl<'a> BoundsBindings<'a> {
    /// Uploads `bounds.table` for a crowd of `instances` posing `clips`.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for a table of other posed nodes than `clips` or a cull of
    /// another instance count; [`GpuError::OutOfRange`] for a layout other than
    /// [`PoseLayout::PerNode`]; [`GpuError::MissingLimit`] when the device binds fewer than 12
    /// storage buffers to a compute shader.
    pub fn new(
        ctx: &GpuContext,
        clips: &GpuClips,
        instances: u32,
        layout: PoseLayout,
        bounds: &PoseBounds<'a>,
    ) -> Result<Self, GpuError> {
        if layout != PoseLayout::PerNode {
            return Err(GpuError::OutOfRange {
                what: "pose layout of a pose pass that writes bounds",
                got: format!("{layout:?}"),
                expected: "PoseLayout::PerNode",
            });
        }
        for (what, expected, got) in [
            (
                "pose bounds table nodes (the clip set's posed nodes)",
                clips.node_count as usize,
                bounds.table.nodes.len(),
            ),
            (
                "pose bounds cull instances (the crowd's)",
                instances as usize,
                bounds.cull.instance_count() as usize,
            ),
        ] {
            if expected != got {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected,
                    got,
                });
            }
        }
        ctx.require_limit(
            "max_storage_buffers_per_shader_stage",
            u64::from(STORAGE_BUFFERS_WITH_BOUNDS),
            |l| u64::from(l.max_storage_buffers_per_shader_stage),
        )?;
        let buffers = crate::buffers::create_buffers_init(
            ctx,
            "GpuCrowdPose bounds",
            &[
                crate::BufferInit {
                    label: "skel pose bounds nodes",
                    usage: wgpu::BufferUsages::STORAGE,
                    contents: bytemuck::cast_slice(&bounds.table.nodes),
                },
                crate::BufferInit {
                    label: "skel pose bounds parts",
                    usage: wgpu::BufferUsages::STORAGE,
                    contents: bytemuck::cast_slice(&bounds.table.parts),
                },
            ],
        )?;
        let [nodes, parts]: [wgpu::Buffer; 2] =
            buffers.try_into().map_err(|_| GpuError::LengthMismatch {
                what: "pose bounds buffers",
                expected: 2,
                got: 0,
            })?;
        Ok(Self {
            placements: bounds.cull.placements_buffer(),
            boxes: bounds.cull.boxes_buffer(),
            nodes,
            parts,
        })
    }

    /// The chunk's bindings 9–12.
    pub fn resources(&self) -> [wgpu::BindingResource<'_>; 4] {
        [
            self.placements.as_entire_binding(),
            self.boxes.as_entire_binding(),
            self.nodes.as_entire_binding(),
            self.parts.as_entire_binding(),
        ]
    }
}

/// Fails on a clip id past `clips`.
pub(crate) fn check_clips(clips: &GpuClips, instances: &[PoseInstance]) -> Result<(), GpuError> {
    let count = clips.clip_count();
    if let Some(bad) = instances.iter().find_map(|i| {
        let (a, b) = i.clips();
        [a, b].into_iter().find(|&c| usize::from(c) >= count)
    }) {
        return Err(GpuError::OutOfRange {
            what: "PoseInstance clip id",
            got: bad.to_string(),
            expected: "below the clip set's clip count",
        });
    }
    Ok(())
}

/// What the pose pipelines are built for.
pub(crate) struct PosePipelineKey {
    pub layout: PoseLayout,
    pub bone_layout: BoneLayout,
    /// Threads per workgroup of the per-node entry points.
    pub group_threads: u32,
    /// Whether the bone pass writes boxes (`skel_pose_nodes_bounds`, bindings 9–12).
    pub bounds: bool,
}

/// The bind group layout and the two pipelines (advance, bones) of `key`.
pub(crate) fn pipelines(
    ctx: &GpuContext,
    key: &PosePipelineKey,
) -> (
    wgpu::BindGroupLayout,
    wgpu::ComputePipeline,
    wgpu::ComputePipeline,
) {
    let storage = if key.bounds {
        STORAGE_BUFFERS_WITH_BOUNDS
    } else {
        STORAGE_BUFFERS
    };
    // Binding 0 the uniform; 1–5 read, 6–8 written; with bounds 9 read, 10 written, 11–12 read.
    let entries: Vec<wgpu::BindGroupLayoutEntry> = std::iter::once(compute_entry(0, UNIFORM))
        .chain(
            (1..=storage)
                .map(|b| compute_entry(b, if matches!(b, 6..=8 | 10) { WRITE } else { READ })),
        )
        .collect();
    let group_layout = ctx
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel pose"),
            entries: &entries,
        });
    let bones_entry = match (key.layout, key.bounds) {
        (PoseLayout::PerBone, _) => "skel_pose_bones",
        (PoseLayout::PerCharacter, _) => "skel_pose_characters",
        (PoseLayout::PerNode, false) => "skel_pose_nodes",
        (PoseLayout::PerNode, true) => "skel_pose_nodes_bounds",
    };
    let [bone_vec4s] = key.bone_layout.constants();
    let constants = [
        bone_vec4s,
        (POSE_GROUP_CONSTANT, f64::from(key.group_threads)),
    ];
    // The per-node entry points write every workgroup word they read (a node's transform
    // before the barrier after which its children read it, a character's flags before the
    // output reads them, a node's box before the barrier after which its instance folds it),
    // so WebGPU's zeroing of workgroup memory at each workgroup's start is work for nothing:
    // 2 % of the pass at 1 000 000 CesiumMan on the H200 (docs/gpu-posing.md).
    let [advance, bones] = compute_pipelines_with(
        ctx,
        "skel pose",
        POSE_WGSL.into(),
        &[&group_layout],
        ["skel_pose_advance", bones_entry],
        false,
        &constants,
    );
    (group_layout, advance, bones)
}
