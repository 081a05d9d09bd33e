//! Bind group layout entries of the buffers the compute and crowd passes bind: one place for
//! the `wgpu::BindGroupLayoutEntry` boilerplate, so that each pass lists only its bindings.

/// A uniform buffer binding.
pub(crate) const UNIFORM: wgpu::BufferBindingType = wgpu::BufferBindingType::Uniform;
/// A read-only storage buffer binding.
pub(crate) const READ: wgpu::BufferBindingType =
    wgpu::BufferBindingType::Storage { read_only: true };
/// A read-write storage buffer binding.
pub(crate) const WRITE: wgpu::BufferBindingType =
    wgpu::BufferBindingType::Storage { read_only: false };

/// Buffer binding `binding` of kind `ty`, seen by `visibility`, without a dynamic offset or a
/// minimum size.
pub(crate) fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// [`buffer_entry`] for a compute shader.
pub(crate) fn compute_entry(
    binding: u32,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, wgpu::ShaderStages::COMPUTE, ty)
}

/// A bind group of `layout` whose bindings are `resources` in order (binding `i` is
/// `resources[i]`), as every chunk of a chunked pass binds them.
pub(crate) fn numbered_bind_group<const N: usize>(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: [wgpu::BindingResource<'_>; N],
) -> wgpu::BindGroup {
    let mut binding = 0;
    let entries = resources.map(|resource| {
        let entry = wgpu::BindGroupEntry { binding, resource };
        binding += 1;
        entry
    });
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}
