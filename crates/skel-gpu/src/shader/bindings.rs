//! How a fragment is bound: its bind group layout and entries, and its vertex buffers (the
//! influence sets as vertex attributes).

use std::num::NonZeroU64;

use super::ShaderFragment;
use crate::{
    GpuContext, GpuError, INFLUENCE_STRIDE, MORPH_PARAMS_SIZE, MorphDeltaStorage, MorphGpu,
    SkeletonGpu,
};

impl ShaderFragment {
    /// Layout entries for the fragment's resources, visible to `visibility`.
    #[must_use]
    pub fn bind_group_layout_entries(
        &self,
        visibility: wgpu::ShaderStages,
    ) -> Vec<wgpu::BindGroupLayoutEntry> {
        let mut entries = Vec::with_capacity(3);
        if let Some(binding) = self.bone_texture_binding() {
            entries.push(bone_texture_layout_entry(binding, visibility));
        }
        if let (Some(params), Some(deltas)) =
            (self.morph_params_binding(), self.morph_deltas_binding())
        {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: params,
                visibility,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: NonZeroU64::new(MORPH_PARAMS_SIZE),
                },
                count: None,
            });
            entries.push(match self.morph_deltas() {
                MorphDeltaStorage::Buffer => wgpu::BindGroupLayoutEntry {
                    binding: deltas,
                    visibility,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: NonZeroU64::new(4),
                    },
                    count: None,
                },
                // Read with textureLoad like the bone texture: the same kind of entry.
                MorphDeltaStorage::Texture => bone_texture_layout_entry(deltas, visibility),
            });
        }
        if let Some(first) = self.influence_storage_binding() {
            entries.extend((0..4).map(|k| wgpu::BindGroupLayoutEntry {
                binding: first + k,
                visibility,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: NonZeroU64::new(crate::INFLUENCE_STRIDE),
                },
                count: None,
            }));
        }
        entries
    }

    /// A bind group layout with only the fragment's entries (for a group of its own).
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] (`max_storage_buffers_per_shader_stage`);
    /// [`GpuError::Validation`].
    pub fn create_bind_group_layout(
        &self,
        ctx: &GpuContext,
        visibility: wgpu::ShaderStages,
    ) -> Result<wgpu::BindGroupLayout, GpuError> {
        ctx.require_limit(
            "max_storage_buffers_per_shader_stage",
            u64::from(self.storage_buffer_count()),
            |l| u64::from(l.max_storage_buffers_per_shader_stage),
        )?;
        let entries = self.bind_group_layout_entries(visibility);
        ctx.capture("ShaderFragment::create_bind_group_layout", || {
            ctx.device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("skel fragment"),
                    entries: &entries,
                })
        })
    }

    /// Bind group entries for `skeleton` and `morph`, matching
    /// [`bind_group_layout_entries`](Self::bind_group_layout_entries).
    ///
    /// # Errors
    /// [`GpuError::MissingBinding`] when the variant needs a skeleton or morph targets that
    /// were not given; [`GpuError::InfluenceMismatch`] for a variant with more influences than
    /// the skeleton (a 4-influence variant may draw an 8-influence skeleton's first set, so
    /// fewer is allowed); [`GpuError::MorphDeltaMismatch`] when `morph` keeps its deltas in
    /// another kind of resource than the fragment reads
    /// ([`with_morph_deltas`](Self::with_morph_deltas)).
    pub fn bind_group_entries<'a>(
        &self,
        skeleton: Option<&'a SkeletonGpu>,
        morph: Option<&'a MorphGpu>,
    ) -> Result<Vec<wgpu::BindGroupEntry<'a>>, GpuError> {
        self.entries(skeleton, morph, true)
    }

    /// [`bind_group_entries`](Self::bind_group_entries); `check_influences` is off for compute
    /// skinning, whose influences come from its own input buffers rather than the skeleton's.
    pub(crate) fn entries<'a>(
        &self,
        skeleton: Option<&'a SkeletonGpu>,
        morph: Option<&'a MorphGpu>,
        check_influences: bool,
    ) -> Result<Vec<wgpu::BindGroupEntry<'a>>, GpuError> {
        let mut entries = Vec::with_capacity(7);
        if let Some(binding) = self.bone_texture_binding() {
            let skeleton = skeleton.ok_or(GpuError::MissingBinding {
                what: "a skeleton (bone texture)",
            })?;
            let shader = self.variant.influences.count();
            if check_influences && shader > skeleton.influences_per_vertex() {
                return Err(GpuError::InfluenceMismatch {
                    shader,
                    skeleton: skeleton.influences_per_vertex(),
                });
            }
            entries.push(skeleton.bone_texture_entry(binding));
        }
        if let (Some(params), Some(deltas)) =
            (self.morph_params_binding(), self.morph_deltas_binding())
        {
            let morph = morph.ok_or(GpuError::MissingBinding {
                what: "morph targets",
            })?;
            if morph.delta_storage() != self.morph_deltas() {
                return Err(GpuError::MorphDeltaMismatch {
                    shader: self.morph_deltas(),
                    morph: morph.delta_storage(),
                });
            }
            entries.push(wgpu::BindGroupEntry {
                binding: params,
                resource: morph.params_buffer().as_entire_binding(),
            });
            entries.push(wgpu::BindGroupEntry {
                binding: deltas,
                resource: morph.deltas_binding(),
            });
        }
        if let (Some(first), Some(skeleton)) = (self.influence_storage_binding(), skeleton) {
            let shader = self.variant.influences.count();
            let mismatch = GpuError::InfluenceMismatch {
                shader,
                skeleton: skeleton.influences_per_vertex(),
            };
            let sets = [2, 3].map(|s| skeleton.influence_buffers(s));
            let [Some((j2, w2)), Some((j3, w3))] = sets else {
                return Err(mismatch);
            };
            for (k, buffer) in [j2, w2, j3, w3].into_iter().enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: first + k as u32,
                    resource: buffer.as_entire_binding(),
                });
            }
        }
        Ok(entries)
    }

    /// A bind group over [`create_bind_group_layout`](Self::create_bind_group_layout)'s layout.
    ///
    /// # Errors
    /// As [`bind_group_entries`](Self::bind_group_entries); [`GpuError::Validation`].
    pub fn create_bind_group(
        &self,
        ctx: &GpuContext,
        layout: &wgpu::BindGroupLayout,
        skeleton: Option<&SkeletonGpu>,
        morph: Option<&MorphGpu>,
    ) -> Result<wgpu::BindGroup, GpuError> {
        let entries = self.bind_group_entries(skeleton, morph)?;
        ctx.capture("ShaderFragment::create_bind_group", || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("skel fragment"),
                layout,
                entries: &entries,
            })
        })
    }

    /// Vertex buffer layouts for `SkelInfluences`: joints0, weights0 (and joints1, weights1 for
    /// 8 and 16 influences), one buffer each, matching the skeleton's buffers.
    #[must_use]
    pub fn influence_vertex_buffer_layouts(&self) -> Vec<wgpu::VertexBufferLayout<'_>> {
        let sets = self.attribute_sets() as usize;
        self.attributes[..sets * 2]
            .iter()
            .map(|attribute| wgpu::VertexBufferLayout {
                array_stride: INFLUENCE_STRIDE,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: std::slice::from_ref(attribute),
            })
            .collect()
    }

    /// Binds the skeleton's joints and weights buffers at vertex buffer slots `first_slot..`, in
    /// the order of [`influence_vertex_buffer_layouts`](Self::influence_vertex_buffer_layouts).
    ///
    /// # Errors
    /// [`GpuError::InfluenceMismatch`] when the variant reads more sets than the skeleton has.
    pub fn set_influence_vertex_buffers(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        first_slot: u32,
        skeleton: &SkeletonGpu,
    ) -> Result<(), GpuError> {
        let sets = self.attribute_sets();
        let second = skeleton.joints1_buffer().zip(skeleton.weights1_buffer());
        if sets == 2 && second.is_none() {
            return Err(GpuError::InfluenceMismatch {
                shader: self.variant.influences.count(),
                skeleton: skeleton.influences_per_vertex(),
            });
        }
        if sets >= 1 {
            pass.set_vertex_buffer(first_slot, skeleton.joints_buffer().slice(..));
            pass.set_vertex_buffer(first_slot + 1, skeleton.weights_buffer().slice(..));
        }
        if let (2, Some((joints1, weights1))) = (sets, second) {
            pass.set_vertex_buffer(first_slot + 2, joints1.slice(..));
            pass.set_vertex_buffer(first_slot + 3, weights1.slice(..));
        }
        Ok(())
    }
}

impl ShaderFragment {
    /// Influence sets that arrive as vertex attributes: 0, 1 or 2 (16 influences read sets 2
    /// and 3 from storage buffers).
    #[must_use]
    pub fn attribute_sets(&self) -> u32 {
        self.variant.influences.sets().min(2)
    }
}

/// The layout entry of a bone texture at `binding`: a 2D float texture, not filterable
/// (`rgba32float` is filterable only with `FLOAT32_FILTERABLE`; it is read with `textureLoad`).
#[must_use]
pub fn bone_texture_layout_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}
