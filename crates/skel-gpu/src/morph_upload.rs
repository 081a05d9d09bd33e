//! The GPU resources of one mesh's morph targets and their first upload: the weights uniform
//! (its layout is the constants here) and the deltas, in a storage buffer or a texture
//! ([`MorphDeltaStorage`]), filled from one staging buffer (see the `staging` module).

use skel_anim::MorphTargets;

use crate::buffers::create_buffer_for;
use crate::morph_texture::{create_texture, texels};
use crate::staging::{Contents, InitialUpload};
use crate::{GpuContext, GpuError, MorphDeltaStorage, MorphTextureLayout};

/// The most morph targets one mesh may have: 256.
///
/// Every vertex reads every weight, so the weights live in a uniform buffer (broadcast to all
/// invocations) as `array<vec4<f32>, 64>`, 1 KiB. 256 covers the rigs seen in practice (ARKit's
/// 52 face blend shapes, the glTF samples' 8 at most, large facial rigs of 100–200) while
/// staying far under WebGPU's guaranteed 64 KiB uniform binding and its 16 KiB downlevel one.
/// Shaders loop only over the asset's own `target_count` and skip zero weights, so the cap
/// costs nothing per vertex. The seed's 4 targets are the special case of one vec4.
pub const MAX_MORPH_TARGETS: usize = 256;

/// Byte offset of `target_count`, `vertex_count`, `normal_offset` (three `u32`) in the morph
/// uniform, right after the weights.
pub const MORPH_COUNTS_OFFSET: u64 = MAX_MORPH_TARGETS as u64 * 4;

/// Size of the morph uniform: weights, then the three counts and one padding `u32`.
pub const MORPH_PARAMS_SIZE: u64 = MORPH_COUNTS_OFFSET + 16;

/// A morph target set's deltas on the GPU.
#[derive(Debug)]
pub(crate) enum Deltas {
    /// `f32` storage buffer: positions, then normals.
    Buffer(wgpu::Buffer),
    /// Texture of one delta per texel, with the view bind groups take.
    Texture {
        texture: wgpu::Texture,
        view: wgpu::TextureView,
        layout: MorphTextureLayout,
    },
}

impl Deltas {
    /// Where these deltas live.
    pub(crate) fn storage(&self) -> MorphDeltaStorage {
        match self {
            Self::Buffer(_) => MorphDeltaStorage::Buffer,
            Self::Texture { .. } => MorphDeltaStorage::Texture,
        }
    }
}

/// Creates the morph uniform (weights zero-padded, then counts) and the deltas in `storage`,
/// filled from one staging buffer (see the `staging` module). The counts' `normal_offset` is
/// in the unit the deltas are indexed by: floats in the buffer, texels in the texture.
pub(crate) fn build(
    ctx: &GpuContext,
    targets: &MorphTargets,
    vertex_count: usize,
    weights: &[f32],
    storage: MorphDeltaStorage,
) -> Result<(wgpu::Buffer, Deltas), GpuError> {
    let target_count = targets.target_count;
    let deltas_len = targets.positions.len() + targets.normals.len();
    let per_delta = match storage {
        MorphDeltaStorage::Buffer => 3,
        MorphDeltaStorage::Texture => 1,
    };
    // Check the limit of the resource first: the counts below only fit u32 where it is met.
    let layout = match storage {
        MorphDeltaStorage::Buffer => {
            ctx.require_limit(
                "max_storage_buffer_binding_size",
                deltas_len as u64 * 4,
                |l| l.max_storage_buffer_binding_size,
            )?;
            None
        }
        MorphDeltaStorage::Texture => Some(MorphTextureLayout::new(
            deltas_len as u64 / 3,
            ctx.limits.max_texture_dimension_2d,
        )?),
    };
    let too_big = |_| GpuError::MissingLimit {
        name: match storage {
            MorphDeltaStorage::Buffer => "max_storage_buffer_binding_size",
            MorphDeltaStorage::Texture => "max_texture_dimension_2d",
        },
        needed: (target_count * vertex_count * 24) as u64,
        available: match storage {
            MorphDeltaStorage::Buffer => ctx.limits.max_storage_buffer_binding_size,
            MorphDeltaStorage::Texture => u64::from(ctx.limits.max_texture_dimension_2d),
        },
    };
    let vc = u32::try_from(vertex_count).map_err(too_big)?;
    let normal_offset = if targets.normals.is_empty() {
        0
    } else {
        u32::try_from(target_count * vertex_count * per_delta).map_err(too_big)?
    };
    let mut params_bytes = vec![0u8; MORPH_PARAMS_SIZE as usize];
    let weight_bytes: &[u8] = bytemuck::cast_slice(weights);
    params_bytes[..weight_bytes.len()].copy_from_slice(weight_bytes);
    let counts = [target_count as u32, vc, normal_offset, 0];
    params_bytes[MORPH_COUNTS_OFFSET as usize..].copy_from_slice(bytemuck::cast_slice(&counts));

    let deltas_floats = match &layout {
        None => [&targets.positions[..], &targets.normals[..]].concat(),
        Some(layout) => texels(targets, layout),
    };
    let deltas_bytes: &[u8] = bytemuck::cast_slice(&deltas_floats);

    ctx.capture("create_morph", || {
        let contents = [
            Contents::Bytes(&params_bytes),
            Contents::Bytes(deltas_bytes),
        ];
        let mut upload = InitialUpload::new("skel morph staging", &contents);
        let params = create_buffer_for(
            ctx,
            "skel morph params",
            wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            params_bytes.len(),
        )?;
        upload.copy_to_buffer(0, &params);
        let deltas = match layout {
            None => {
                let buffer = create_buffer_for(
                    ctx,
                    "skel morph deltas",
                    wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC,
                    deltas_bytes.len(),
                )?;
                upload.copy_to_buffer(1, &buffer);
                Deltas::Buffer(buffer)
            }
            Some(layout) => {
                let texture = create_texture(&ctx.device, &layout);
                upload.copy_to_texture(1, &texture, layout.bytes_per_row());
                let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
                Deltas::Texture {
                    texture,
                    view,
                    layout,
                }
            }
        };
        upload.submit(ctx)?;
        Ok((params, deltas))
    })?
}
