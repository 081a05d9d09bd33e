//! The pose pass's pipelines and bind groups ([`GpuCrowdPose`](crate::GpuCrowdPose)): which
//! entry point poses the bones, with which override constants, and what each chunk binds
//! (bindings 9–12 only when the pass writes boxes, 16 when it poses the cull's visible list).

use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::compute_pass::{compute_pipelines_with, groups_2d};
use crate::pose_bounds::{POSE_GROUP_CONSTANT, PoseBounds};
use crate::pose_data::{BakedBuffers, GpuClips, POSE_WGSL, PoseInstance, PoseLayout};
use crate::{BoneLayout, GpuContext, GpuError};

/// Storage buffers the pose pass binds without bounds (bindings 1–8).
const STORAGE_BUFFERS: u32 = 8;

/// The bindings of the baked clips' table and rows ([`PoseLayout::Baked`]), and of their
/// frames' boxes (with bounds).
pub(crate) const BAKED_BINDINGS: [u32; 2] = [13, 14];
pub(crate) const BAKED_BOXES_BINDING: u32 = 15;

/// The binding of the cull's visible list, which the listed bone pass reads
/// ([`PoseOptions::skip_unseen`](crate::PoseOptions::skip_unseen)).
pub(crate) const LISTED_BINDING: u32 = 16;

/// The storage bindings of a pose pass of `layout`, with or without `bounds`, and posing the
/// cull's visible list or not (`listed`), in order.
pub(crate) fn storage_bindings(
    layout: PoseLayout,
    bounds: bool,
    listed: bool,
) -> impl Iterator<Item = u32> {
    let baked = layout == PoseLayout::Baked;
    let with_bounds: &[u32] = match (bounds, baked) {
        (false, _) => &[],
        (true, false) => &[9, 10, 11, 12],
        (true, true) => &[9, 10, BAKED_BOXES_BINDING],
    };
    let baked: &'static [u32] = if baked { &BAKED_BINDINGS } else { &[] };
    (1..=STORAGE_BUFFERS)
        .chain(with_bounds.iter().copied())
        .chain(baked.iter().copied())
        .chain(listed.then_some(LISTED_BINDING))
}

/// What the pose pass binds to write boxes: the [`CrowdCull`](crate::CrowdCull) buffers it
/// reads and writes, and the parts it boxes: a [`PoseBoundsTable`](crate::PoseBoundsTable)'s
/// GPU copy ([`PoseLayout::PerNode`]) or the baked frames' boxes ([`PoseLayout::Baked`]).
pub(crate) struct BoundsBindings<'a> {
    pub placements: &'a wgpu::Buffer,
    pub boxes: &'a wgpu::Buffer,
    pub parts: BoundsParts<'a>,
    /// The cull's visible list, for a bone pass that poses only it.
    pub visible: Option<&'a wgpu::Buffer>,
}

/// The parts a pose pass boxes (see [`BoundsBindings`]).
pub(crate) enum BoundsParts<'a> {
    /// Per posed node its parts, and the parts (bindings 11 and 12).
    Table {
        nodes: wgpu::Buffer,
        parts: wgpu::Buffer,
    },
    /// The baked frames' boxes (binding 15).
    Baked(&'a wgpu::Buffer),
}

impl<'a> BoundsBindings<'a> {
    /// Uploads `bounds.table` for a crowd of `instances` posing `clips` (per-node), or takes
    /// the boxes baked with `clips` (baked); with `listed`, binds the cull's visible list too.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for a table of other posed nodes than `clips` or a cull of
    /// another instance count; [`GpuError::OutOfRange`] for a layout other than
    /// [`PoseLayout::PerNode`] and [`PoseLayout::Baked`], or baked clips without boxes;
    /// [`GpuError::MissingLimit`] when the device binds fewer storage buffers to a compute
    /// shader than the pass needs.
    pub fn new(
        ctx: &GpuContext,
        clips: &'a GpuClips,
        instances: u32,
        layout: PoseLayout,
        bounds: &PoseBounds<'a>,
        listed: bool,
    ) -> Result<Self, GpuError> {
        if !matches!(layout, PoseLayout::PerNode | PoseLayout::Baked) {
            return Err(GpuError::OutOfRange {
                what: "pose layout of a pose pass that writes bounds",
                got: format!("{layout:?}"),
                expected: "PoseLayout::PerNode or PoseLayout::Baked",
            });
        }
        if bounds.cull.instance_count() != instances {
            return Err(GpuError::LengthMismatch {
                what: "pose bounds cull instances (the crowd's)",
                expected: instances as usize,
                got: bounds.cull.instance_count() as usize,
            });
        }
        let storage = storage_bindings(layout, true, listed).count() as u64;
        ctx.require_limit("max_storage_buffers_per_shader_stage", storage, |l| {
            u64::from(l.max_storage_buffers_per_shader_stage)
        })?;
        let parts = if layout == PoseLayout::Baked {
            let boxes = clips.baked.as_ref().and_then(|b| b.boxes.as_ref());
            BoundsParts::Baked(boxes.ok_or(GpuError::OutOfRange {
                what: "baked clips of a pose pass that writes bounds",
                got: "clips baked without boxes".into(),
                expected: "BakedClips::bake_boxes before GpuClips::upload_baked",
            })?)
        } else {
            Self::table(ctx, clips, bounds)?
        };
        Ok(Self {
            placements: bounds.cull.placements_buffer(),
            boxes: bounds.cull.boxes_buffer(),
            parts,
            visible: listed.then(|| bounds.cull.visible_buffer()),
        })
    }

    /// The per-node pass's parts: `bounds.table` uploaded.
    fn table(
        ctx: &GpuContext,
        clips: &GpuClips,
        bounds: &PoseBounds<'a>,
    ) -> Result<BoundsParts<'a>, GpuError> {
        if clips.node_count as usize != bounds.table.nodes.len() {
            return Err(GpuError::LengthMismatch {
                what: "pose bounds table nodes (the clip set's posed nodes)",
                expected: clips.node_count as usize,
                got: bounds.table.nodes.len(),
            });
        }
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
        Ok(BoundsParts::Table { nodes, parts })
    }

    /// The chunk's bounds bindings, numbered.
    pub fn resources(&self) -> Vec<(wgpu::BindingResource<'_>, u32)> {
        let mut out = vec![
            (self.placements.as_entire_binding(), 9),
            (self.boxes.as_entire_binding(), 10),
        ];
        match &self.parts {
            BoundsParts::Table { nodes, parts } => {
                out.extend([
                    (nodes.as_entire_binding(), 11),
                    (parts.as_entire_binding(), 12),
                ]);
            }
            BoundsParts::Baked(boxes) => {
                out.push((boxes.as_entire_binding(), BAKED_BOXES_BINDING));
            }
        }
        out.extend(
            self.visible
                .map(|v| (v.as_entire_binding(), LISTED_BINDING)),
        );
        out
    }
}

/// The baked clips' buffers of a pass of `layout` (`None` unless [`PoseLayout::Baked`]).
///
/// # Errors
/// [`GpuError::OutOfRange`] for baked posing of clips that were not baked;
/// [`GpuError::MissingLimit`] when the device binds fewer storage buffers than the pass needs.
pub(crate) fn baked_buffers<'a>(
    ctx: &GpuContext,
    clips: &'a GpuClips,
    layout: PoseLayout,
) -> Result<Option<&'a BakedBuffers>, GpuError> {
    if layout != PoseLayout::Baked {
        return Ok(None);
    }
    let Some(baked) = &clips.baked else {
        return Err(GpuError::OutOfRange {
            what: "clips of a crowd posed with PoseLayout::Baked",
            got: "clips without baked matrices".into(),
            expected: "clips after GpuClips::upload_baked",
        });
    };
    let storage = storage_bindings(layout, false, false).count() as u64;
    ctx.require_limit("max_storage_buffers_per_shader_stage", storage, |l| {
        u64::from(l.max_storage_buffers_per_shader_stage)
    })?;
    Ok(Some(baked))
}

/// How a pose pass's bone dispatches cover a chunk of instances.
pub(crate) struct ChunkShape {
    pub layout: PoseLayout,
    /// Bones per instance.
    pub bones: u32,
    /// Threads per workgroup, and instances per workgroup of the per-node pass.
    pub group_threads: u32,
    pub group_characters: u32,
    /// The device's workgroups per dimension.
    pub max_x: u32,
}

impl ChunkShape {
    /// Per chunk of `per_chunk` instances of `count`: its first instance, instances and
    /// workgroups (x, y).
    pub fn chunks(&self, count: u32, per_chunk: u32) -> Vec<(u32, u32, u32, u32)> {
        (0..count.div_ceil(per_chunk))
            .map(|c| {
                let first = c * per_chunk;
                let n = per_chunk.min(count - first);
                let threads = match self.layout {
                    PoseLayout::PerBone | PoseLayout::Baked => u64::from(n) * u64::from(self.bones),
                    PoseLayout::PerCharacter => u64::from(n),
                    PoseLayout::PerNode => {
                        u64::from(n.div_ceil(self.group_characters)) * u64::from(self.group_threads)
                    }
                };
                let (x, y) = groups_2d(threads, self.max_x, self.group_threads);
                (first, n, x, y)
            })
            .collect()
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
    /// Whether the pass writes boxes (bindings 9–12 per-node, 9, 10 and 15 baked): the bone
    /// pass (`skel_pose_nodes_bounds`) or, baked, the advance pass.
    pub bounds: bool,
    /// Whether the baked bone pass poses only the instances the cull kept: the cull's
    /// visible list (`skel_pose_baked_listed`, binding 16).
    pub skip_unseen: bool,
}

/// The override constants of the pose module for `key`.
pub(crate) fn constants(key: &PosePipelineKey) -> [(&'static str, f64); 2] {
    let [bone_vec4s] = key.bone_layout.constants();
    [
        bone_vec4s,
        (POSE_GROUP_CONSTANT, f64::from(key.group_threads)),
    ]
}

/// The pipelines of a pose pass and the layout of its chunks' bind groups.
pub(crate) struct PosePipelines {
    pub group_layout: wgpu::BindGroupLayout,
    pub advance: wgpu::ComputePipeline,
    /// The bone pass over every instance.
    pub bones: wgpu::ComputePipeline,
    /// With `skip_unseen`, the bone pass over the cull's visible list.
    pub listed: Option<wgpu::ComputePipeline>,
}

/// The pipelines of `key` (see [`PosePipelines`]).
pub(crate) fn pipelines(ctx: &GpuContext, key: &PosePipelineKey) -> PosePipelines {
    // Binding 0 the uniform; 1–5 read, 6–8 written; with bounds 9 read, 10 written, 11–12 read
    // (per-node) or 15 read (baked); baked, 13–14 read; listed, 16 read.
    let entries: Vec<wgpu::BindGroupLayoutEntry> = std::iter::once(compute_entry(0, UNIFORM))
        .chain(
            storage_bindings(key.layout, key.bounds, key.skip_unseen)
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
        (PoseLayout::Baked, _) => "skel_pose_baked",
    };
    // A baked box needs an instance's time, not its bones: the advance pass makes it
    // (skel_pose_baked.wgsl says why).
    let advance_entry = if key.layout == PoseLayout::Baked && key.bounds {
        "skel_pose_advance_baked_bounds"
    } else {
        "skel_pose_advance"
    };
    let constants = constants(key);
    // The per-node entry points write every workgroup word they read (a node's transform
    // before the barrier after which its children read it, a character's flags before the
    // output reads them, a node's box before the barrier after which its instance folds it),
    // so WebGPU's zeroing of workgroup memory at each workgroup's start is work for nothing:
    // 2 % of the pass at 1 000 000 CesiumMan on the H200 (docs/gpu-posing.md).
    let (source, layouts) = (POSE_WGSL, [&group_layout]);
    let (advance, bones, listed) = if key.skip_unseen {
        let entries = [advance_entry, bones_entry, "skel_pose_baked_listed"];
        let [advance, bones, listed] = compute_pipelines_with(
            ctx,
            "skel pose",
            source.into(),
            &layouts,
            entries,
            false,
            &constants,
        );
        (advance, bones, Some(listed))
    } else {
        let [advance, bones] = compute_pipelines_with(
            ctx,
            "skel pose",
            source.into(),
            &layouts,
            [advance_entry, bones_entry],
            false,
            &constants,
        );
        (advance, bones, None)
    };
    PosePipelines {
        group_layout,
        advance,
        bones,
        listed,
    }
}
