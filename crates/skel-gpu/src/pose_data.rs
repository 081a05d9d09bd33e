//! What the GPU pose pass reads: an asset's [`GpuClipSet`] in storage buffers ([`GpuClips`]),
//! and the 32 bytes of state of each instance ([`PoseInstance`]).

use skel_anim::LoopMode;

use crate::buffers::{BufferInit, create_buffers_init};
use crate::clip_set::{BakedClips, GpuClipSet, POSE_NODE_VEC4S};
use crate::{GpuContext, GpuError};

/// The WGSL of the pose pass (entry points `skel_pose_advance`, `skel_pose_bones`,
/// `skel_pose_characters`, `skel_pose_nodes`; see the file's header), followed by its bounds
/// entry point `skel_pose_nodes_bounds` (`skel_pose_bounds.wgsl`), its baked entry points
/// (`skel_pose_baked.wgsl`) and the baked pass over the cull's visible list
/// (`skel_pose_listed.wgsl`).
pub const POSE_WGSL: &str = concat!(
    include_str!("../shaders/skel_pose.wgsl"),
    include_str!("../shaders/skel_pose_bounds.wgsl"),
    include_str!("../shaders/skel_pose_baked.wgsl"),
    include_str!("../shaders/skel_pose_listed.wgsl")
);

/// What [`GpuCrowdPose::new`](crate::GpuCrowdPose::new) sets up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuCrowdPoseDescriptor {
    /// The bone pass's thread layout.
    pub layout: PoseLayout,
    /// The largest chunk of the bone buffer one dispatch binds, in bytes; `None`: the device's
    /// `max_storage_buffer_binding_size`. Smaller values exercise the chunking.
    pub max_chunk_bytes: Option<u64>,
}

/// Posed nodes the one-thread-per-character layout holds in private memory (and the per-node
/// layout in workgroup memory).
pub const POSE_MAX_CHARACTER_NODES: u32 = 64;

/// Clips a [`PoseInstance`] can name (16 bits each).
pub const POSE_MAX_CLIPS: usize = 1 << 16;

/// An asset's resampled clips, posed hierarchy and bone constants in storage buffers, built once
/// and shared by every crowd of the asset.
#[derive(Debug)]
pub struct GpuClips {
    pub(crate) clips: wgpu::Buffer,
    pub(crate) frames: wgpu::Buffer,
    pub(crate) parents: wgpu::Buffer,
    pub(crate) bone_nodes: wgpu::Buffer,
    pub(crate) bone_matrices: wgpu::Buffer,
    pub(crate) node_count: u32,
    /// Longest parent chain of the posed nodes (barriers of [`PoseLayout::PerNode`]).
    ///
    /// [`PoseLayout::PerNode`]: crate::PoseLayout::PerNode
    pub(crate) levels: u32,
    pub(crate) bone_count: u32,
    pub(crate) row_vec4s: u32,
    pub(crate) morph_vec4s: u32,
    pub(crate) has_mesh_inverse: bool,
    pub(crate) durations: Vec<f32>,
    /// The clips baked to skinning matrices ([`upload_baked`](Self::upload_baked)), which
    /// [`PoseLayout::Baked`] reads.
    pub(crate) baked: Option<BakedBuffers>,
}

/// [`BakedClips`] on the GPU.
#[derive(Debug)]
pub(crate) struct BakedBuffers {
    /// Per clip: first row vec4, frames, rate, duration.
    pub(crate) table: wgpu::Buffer,
    pub(crate) rows: wgpu::Buffer,
    /// The frames' boxes, when they were baked ([`BakedClips::bake_boxes`]).
    pub(crate) boxes: Option<wgpu::Buffer>,
}

impl GpuClips {
    /// Uploads `set` (one staging buffer for all of it).
    ///
    /// # Errors
    /// [`GpuError::NoBones`] for a set without bones or clips, [`GpuError::OutOfRange`] for
    /// more than [`POSE_MAX_CLIPS`] clips; [`GpuError::MissingLimit`] (`max_buffer_size`,
    /// `max_storage_buffer_binding_size`) and [`GpuError::Validation`] from the buffers.
    pub fn new(ctx: &GpuContext, set: &GpuClipSet) -> Result<Self, GpuError> {
        if set.bone_nodes.is_empty() || set.clips.is_empty() {
            return Err(GpuError::NoBones);
        }
        if set.clips.len() > POSE_MAX_CLIPS {
            return Err(GpuError::OutOfRange {
                what: "clips in a GPU clip set",
                got: set.clips.len().to_string(),
                expected: "at most 65536",
            });
        }
        let clips: Vec<[u32; 4]> = set
            .clips
            .iter()
            .map(|c| [c.offset, c.frames, c.rate.to_bits(), c.duration.to_bits()])
            .collect();
        let matrices: Vec<glam::Mat4> = set
            .mesh_inverses
            .iter()
            .zip(&set.inverse_binds)
            .flat_map(|(m, i)| [*m, *i])
            .collect();
        let bone_nodes = bone_nodes_of(set);
        let frame_bytes: &[u8] = bytemuck::cast_slice(&set.frames);
        ctx.require_limit(
            "max_storage_buffer_binding_size",
            frame_bytes.len() as u64,
            |l| l.max_storage_buffer_binding_size,
        )?;
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let init = |label, contents| BufferInit {
            label,
            usage,
            contents,
        };
        let parents_levels: Vec<u32> = set
            .parents
            .iter()
            .copied()
            .chain(set.node_levels())
            .collect();
        let buffers = create_buffers_init(
            ctx,
            "GpuClips::new",
            &[
                init("skel pose clips", bytemuck::cast_slice(&clips)),
                init("skel pose frames", frame_bytes),
                // The parents, then each node's level (the per-node layouts read it).
                init("skel pose parents", bytemuck::cast_slice(&parents_levels)),
                init("skel pose bone nodes", bytemuck::cast_slice(&bone_nodes)),
                init("skel pose bone matrices", bytemuck::cast_slice(&matrices)),
            ],
        )?;
        let [clips, frames, parents, bone_nodes, bone_matrices]: [wgpu::Buffer; 5] =
            buffers.try_into().map_err(|_| GpuError::LengthMismatch {
                what: "GPU clip set buffers",
                expected: 5,
                got: 0,
            })?;
        Ok(Self {
            clips,
            frames,
            parents,
            bone_nodes,
            bone_matrices,
            node_count: set.nodes.len() as u32,
            levels: set.depth(),
            bone_count: set.bone_count(),
            row_vec4s: set.row_vec4s,
            morph_vec4s: set.morph_count.div_ceil(4),
            has_mesh_inverse: set.mesh_inverses.iter().any(|m| *m != glam::Mat4::IDENTITY),
            durations: set.clips.iter().map(|c| c.duration).collect(),
            baked: None,
        })
    }

    /// Uploads `baked` (made from the rig and clip set of these clips), so that crowds of
    /// these clips can pose with [`PoseLayout::Baked`]; replaces an earlier upload (crowds
    /// made before keep reading the earlier one).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for baked clips of another bone or clip count;
    /// [`GpuError::MissingLimit`] and [`GpuError::Validation`] from the buffers.
    pub fn upload_baked(&mut self, ctx: &GpuContext, baked: &BakedClips) -> Result<(), GpuError> {
        for (what, expected, got) in [
            (
                "baked bones",
                self.bone_count as usize,
                baked.bones as usize,
            ),
            ("baked clips", self.durations.len(), baked.clips.len()),
        ] {
            if expected != got {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected,
                    got,
                });
            }
        }
        let table: Vec<[u32; 4]> = baked
            .clips
            .iter()
            .map(|c| [c.offset, c.frames, c.rate.to_bits(), c.duration.to_bits()])
            .collect();
        let rows: &[u8] = bytemuck::cast_slice(&baked.rows);
        ctx.require_limit("max_storage_buffer_binding_size", rows.len() as u64, |l| {
            l.max_storage_buffer_binding_size
        })?;
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let boxes: &[u8] = bytemuck::cast_slice(&baked.boxes);
        let mut buffers = create_buffers_init(
            ctx,
            "GpuClips::upload_baked",
            &[
                BufferInit {
                    label: "skel pose baked clips",
                    usage,
                    contents: bytemuck::cast_slice(&table),
                },
                BufferInit {
                    label: "skel pose baked rows",
                    usage,
                    contents: rows,
                },
                BufferInit {
                    label: "skel pose baked boxes",
                    usage,
                    contents: boxes,
                },
            ],
        )?
        .into_iter();
        let mut next = || {
            buffers.next().ok_or(GpuError::LengthMismatch {
                what: "baked clip buffers",
                expected: 3,
                got: 0,
            })
        };
        let (table, rows, boxes_buffer) = (next()?, next()?, next()?);
        self.baked = Some(BakedBuffers {
            table,
            rows,
            boxes: (!boxes.is_empty()).then_some(boxes_buffer),
        });
        Ok(())
    }

    /// Whether [`upload_baked`](Self::upload_baked) has run ([`PoseLayout::Baked`] needs it).
    #[must_use]
    pub fn has_baked(&self) -> bool {
        self.baked.is_some()
    }

    /// Writes `set`'s reduced joint set ([`GpuClipSet::set_reduced_joints`]) to the GPU: the
    /// instances posed with [`PoseInstance::reduced`] use it from the next pose pass on. `set`
    /// must be the set these clips were made from (the same bones).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for a set of another bone count.
    pub fn update_reduced_joints(
        &self,
        ctx: &GpuContext,
        set: &GpuClipSet,
    ) -> Result<(), GpuError> {
        if set.bone_count() != self.bone_count {
            return Err(GpuError::LengthMismatch {
                what: "reduced joint set bones",
                expected: self.bone_count as usize,
                got: set.bone_count() as usize,
            });
        }
        ctx.queue.write_buffer(
            &self.bone_nodes,
            0,
            bytemuck::cast_slice(&bone_nodes_of(set)),
        );
        Ok(())
    }

    /// Bones per instance.
    #[must_use]
    pub fn bone_count(&self) -> u32 {
        self.bone_count
    }

    /// Posed nodes (joints and their ancestors).
    #[must_use]
    pub fn node_count(&self) -> u32 {
        self.node_count
    }

    /// Morph weights per instance as the pass writes them (rounded up to whole vec4s).
    #[must_use]
    pub fn morph_floats(&self) -> u32 {
        self.morph_vec4s * 4
    }

    /// Clips in the set.
    #[must_use]
    pub fn clip_count(&self) -> usize {
        self.durations.len()
    }

    /// First morph vec4 in a frame row.
    pub(crate) fn morph_first(&self) -> u32 {
        self.node_count * POSE_NODE_VEC4S
    }
}

/// Per bone: its posed node, and the bone it takes in the reduced joint set.
fn bone_nodes_of(set: &GpuClipSet) -> Vec<[u32; 2]> {
    set.bone_nodes
        .iter()
        .zip(&set.reduced_bones)
        .map(|(&n, &r)| [n, r])
        .collect()
}

/// One instance's playback on the GPU, 32 bytes: up to two clips (a cross-fade or a 1D blend),
/// each with a playhead, a speed and a loop mode, the weight of the second clip, and the pose
/// update rate. The GPU advances the playheads every frame; write an instance only when it
/// changes ([`GpuCrowdPose::write_instances`](crate::GpuCrowdPose::write_instances)).
///
/// ```
/// use skel_gpu::PoseInstance;
/// use skel_anim::LoopMode;
///
/// let walk_to_run = PoseInstance::new(0, 0.25)
///     .speed(1.5)
///     .blend(1, 0.0, 1.0, 0.3)
///     .loop_modes(LoopMode::Repeat, LoopMode::Repeat)
///     .update_every(2);
/// assert_eq!(bytemuck::bytes_of(&walk_to_run).len(), 32);
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PoseInstance {
    clips: u32,
    flags: u32,
    time_a: f32,
    time_b: f32,
    speed_a: f32,
    speed_b: f32,
    weight: f32,
    _pad: u32,
}

impl PoseInstance {
    /// Plays `clip` from `time` seconds at speed 1, repeating, posed every frame.
    #[must_use]
    pub fn new(clip: u16, time: f32) -> Self {
        Self {
            clips: u32::from(clip) | (u32::from(clip) << 16),
            flags: 0,
            time_a: time,
            time_b: time,
            speed_a: 1.0,
            speed_b: 1.0,
            weight: 0.0,
            _pad: 0,
        }
    }

    /// The first clip's speed (negative plays backwards).
    #[must_use]
    pub fn speed(mut self, speed: f32) -> Self {
        self.speed_a = speed;
        self
    }

    /// Blends in `clip` from `time` at `speed` with `weight` (0: the first clip alone, 1: this
    /// one alone), as the CPU player blends two layers of weights `1 − weight` and `weight`.
    #[must_use]
    pub fn blend(mut self, clip: u16, time: f32, speed: f32, weight: f32) -> Self {
        self.clips = (self.clips & 0xffff) | (u32::from(clip) << 16);
        self.time_b = time;
        self.speed_b = speed;
        self.weight = weight;
        self
    }

    /// Loop modes of the two clips. A ping-pong playhead is a phase over twice the duration:
    /// set it with the time going forwards.
    #[must_use]
    pub fn loop_modes(mut self, a: LoopMode, b: LoopMode) -> Self {
        self.flags = (self.flags & !0xf) | loop_bits(a) | (loop_bits(b) << 2);
        self
    }

    /// Poses this instance every `frames`-th frame (1, 2, 4 or 8; others round down to one of
    /// them), staggered across the crowd by blocks of 64 instances (instance `i` poses when
    /// `(frame + i / 64) % frames == 0`) so that the cost per frame is flat and a skipped block
    /// saves whole GPU warps. The playheads still advance every frame.
    #[must_use]
    pub fn update_every(mut self, frames: u32) -> Self {
        let shift = match frames {
            0..=1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            _ => 3,
        };
        self.flags = (self.flags & !0x30) | (shift << 4);
        self
    }

    /// The clip ids (first, second).
    #[must_use]
    pub fn clips(&self) -> (u16, u16) {
        ((self.clips & 0xffff) as u16, (self.clips >> 16) as u16)
    }

    /// The playheads (first, second) as last written (the GPU's copy moves on).
    #[must_use]
    pub fn times(&self) -> (f32, f32) {
        (self.time_a, self.time_b)
    }

    /// The second clip's weight.
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Poses this instance with the clip set's reduced joint set
    /// ([`GpuClipSet::set_reduced_joints`](crate::GpuClipSet::set_reduced_joints)), or with
    /// every joint.
    #[must_use]
    pub fn reduced(mut self, reduced: bool) -> Self {
        self.flags = (self.flags & !0x40) | (u32::from(reduced) << 6);
        self
    }

    /// Frames between two poses of this instance (1, 2, 4 or 8).
    #[must_use]
    pub fn update_interval(&self) -> u32 {
        1 << ((self.flags >> 4) & 3)
    }
}

fn loop_bits(mode: LoopMode) -> u32 {
    match mode {
        LoopMode::Repeat => 0,
        LoopMode::Once => 1,
        LoopMode::PingPong => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pose_module_is_valid_wgsl() {
        // `cargo xtask validate-shaders` validates the file too; this keeps the crate's own
        // tests honest without a GPU.
        let module = naga::front::wgsl::parse_str(POSE_WGSL)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(POSE_WGSL)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(POSE_WGSL)));
    }

    #[test]
    fn an_instance_is_32_bytes_and_keeps_its_fields() {
        let i = PoseInstance::new(3, 0.5)
            .blend(7, 0.25, -1.0, 0.4)
            .update_every(4);
        assert_eq!(size_of::<PoseInstance>(), 32);
        assert_eq!(i.clips(), (3, 7));
        assert_eq!(i.times(), (0.5, 0.25));
        assert_eq!(i.weight(), 0.4);
        assert_eq!(i.update_interval(), 4);
        assert_eq!(i.update_every(3).update_interval(), 2);
        assert_eq!(i.update_every(100).update_interval(), 8);
    }
}

/// How the bone pass spreads its work over GPU threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoseLayout {
    /// One thread per bone of each instance, walking from the bone's node to its root (every
    /// ancestor sampled again for each bone below it; no barriers, no scratch memory, bone
    /// writes coalesced).
    #[default]
    PerBone,
    /// One thread per instance, walking the posed nodes parents first with the model
    /// transforms in private memory (each node sampled once; at most
    /// [`POSE_MAX_CHARACTER_NODES`] posed nodes).
    PerCharacter,
    /// One workgroup per `64 / posed nodes` instances, one thread per (instance, node): nodes
    /// sampled once into workgroup memory, one level per barrier, then one 16-byte column per
    /// thread, consecutive threads on consecutive columns (≤ [`POSE_MAX_CHARACTER_NODES`] nodes).
    PerNode,
    /// One thread per bone of each instance, as [`PerBone`](Self::PerBone), reading the clips
    /// baked to skinning matrices ([`GpuClips::upload_baked`], [`BakedClips`]): an instance
    /// that plays one clip lerps its bone's matrices of the two frames around its time (no
    /// local transforms, no hierarchy); an instance that blends two clips (a weight above 0)
    /// is posed exactly as [`PerBone`](Self::PerBone) poses it, from the local frames. Both
    /// stay within the clip set's error budget of the player.
    Baked,
}
