//! The state of a GPU-posed crowd's GPU cull ([`GpuCull`]): the culling pass over the crowd's
//! bones and the asset's joint spheres, and the readback of the visible count. The crowd's
//! methods that drive it are in `crowd_gpu_cull`.

use skel_gpu::{CrowdBones, CrowdCull, CrowdCullDescriptor, CrowdDispatch, CullInputs, GpuContext};

use crate::{AssetContainer, SkelError};

/// A GPU-posed crowd's culling pass and the readback of its count.
#[derive(Debug)]
pub(crate) struct GpuCull {
    /// `None` when the character has no joint sphere: such a crowd is never culled, as on the
    /// CPU path.
    pub(crate) pass: Option<CrowdCull>,
    /// The joint spheres the pass boxes, by bone (for a baked pose pass's boxes).
    pub(crate) inputs: CullInputs,
    /// Bytes of the visible list (count and one entry per instance).
    pub(crate) list_bytes: u64,
    pub(crate) count: CountReadback,
    /// The skinning chunks' indirect dispatch arguments, from the list's count on the GPU
    /// (`None` until the crowd's meshes are made).
    pub(crate) dispatch: Option<CrowdDispatch>,
}

impl GpuCull {
    /// The culling pass over `bones` for `asset`'s joint spheres.
    pub(crate) fn new(
        ctx: &GpuContext,
        asset: &AssetContainer,
        bones: &CrowdBones,
        max_chunk_bytes: Option<u64>,
    ) -> Result<Self, SkelError> {
        let inputs = CullInputs::new(&asset.animation, asset.bounds.parts())?;
        let pass = if inputs.parts.is_empty() {
            None
        } else {
            Some(
                CrowdCull::new(
                    ctx,
                    bones,
                    &CrowdCullDescriptor {
                        parts: &inputs.parts,
                        bones: &inputs.bones,
                        // The facade's renderer writes its own draws' arguments; these go
                        // unused.
                        index_count: 0,
                        first_index: 0,
                        base_vertex: 0,
                        max_chunk_bytes,
                    },
                )
                .map_err(SkelError::gpu("crowd GPU cull"))?,
            )
        };
        Ok(Self {
            pass,
            inputs,
            list_bytes: (u64::from(bones.instance_count()) + 1) * 4,
            count: CountReadback::new(ctx),
            dispatch: None,
        })
    }

    /// The indirect dispatch of `meshes`' skinning chunks, in the order
    /// [`Crowd::skin`](crate::Crowd::skin) records them, over `bones`' visible list.
    pub(crate) fn set_dispatch(
        &mut self,
        ctx: &GpuContext,
        bones: &CrowdBones,
        meshes: &[crate::CrowdMesh],
    ) {
        let chunks: Vec<(u32, u32, u32)> = meshes
            .iter()
            .flat_map(|m| &m.compute)
            .map(|b| (b.vertex_count(), b.slots().0, b.slots().1))
            .collect();
        self.dispatch = Some(CrowdDispatch::new(ctx, bones.instances_buffer(), &chunks));
    }
}

/// The visible count on its way back to the CPU: copied after the cull into a mappable buffer
/// when no earlier copy is in flight, read when the GPU has delivered it.
#[derive(Debug)]
pub(crate) struct CountReadback {
    buffer: wgpu::Buffer,
    in_flight: bool,
    last: Option<u32>,
}

impl CountReadback {
    fn new(ctx: &GpuContext) -> Self {
        Self {
            buffer: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("skel crowd visible count readback"),
                size: 4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            in_flight: false,
            last: None,
        }
    }

    /// Records the copy of the list's count, unless one is still in flight.
    pub(crate) fn record(&mut self, encoder: &mut wgpu::CommandEncoder, list: &wgpu::Buffer) {
        if self.in_flight {
            return;
        }
        encoder.copy_buffer_to_buffer(list, 0, &self.buffer, 0, 4);
        encoder.map_buffer_on_submit(&self.buffer, wgpu::MapMode::Read, ..4, |_| {});
        self.in_flight = true;
    }

    /// The latest delivered count; polls the device without waiting.
    pub(crate) fn poll(&mut self, ctx: &GpuContext) -> Option<u32> {
        if self.in_flight {
            let _ = ctx.device.poll(wgpu::PollType::Poll);
            if let Ok(view) = self.buffer.get_mapped_range(..4) {
                let count: &[u32] = bytemuck::cast_slice(&view);
                self.last = count.first().copied();
                drop(view);
                self.buffer.unmap();
                self.in_flight = false;
            }
        }
        self.last
    }
}
