//! The shared device, deterministic test data and readback helpers.

use std::sync::OnceLock;

use skel_gpu::{GpuContext, HeadlessOptions};

/// A device made with `options`, or `None` after the skip (`skel_test_support::gpu`: a
/// failure instead when `SKEL_REQUIRE_GPU=1`). One skip stands for every test of this binary
/// that shares the device.
fn make(options: &HeadlessOptions) -> Option<GpuContext> {
    let ctx = skel_test_support::gpu(
        "skel-gpu tests/gpu (every test on this device)",
        GpuContext::new_headless_with(options),
    )?;
    eprintln!(
        "skel-gpu tests: adapter {:?} ({:?}, {:?}), max_texture_dimension_2d {}",
        ctx.adapter_info.name,
        ctx.adapter_info.device_type,
        ctx.adapter_info.backend,
        ctx.limits.max_texture_dimension_2d
    );
    Some(ctx)
}

/// The device every test shares (the adapter's full limits), or `None` after a loud SKIP.
pub fn ctx() -> Option<&'static GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        make(&HeadlessOptions {
            optional_features: wgpu::Features::TIMESTAMP_QUERY,
            ..HeadlessOptions::default()
        })
    })
    .as_ref()
}

/// A second shared device with WebGPU's default limits (`max_texture_dimension_2d` 8192, so
/// 2048 bones per bone texture row): what a browser-class device sees.
pub fn default_limits_ctx() -> Option<&'static GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        make(&HeadlessOptions {
            required_limits: Some(wgpu::Limits::default()),
            ..HeadlessOptions::default()
        })
    })
    .as_ref()
}

/// A third shared device whose `max_texture_dimension_2d` is 1000: bone texture rows of 1000
/// texels, 16 000 bytes, not a multiple of the 256-byte row alignment of buffer-to-texture
/// copies.
pub fn narrow_rows_ctx() -> Option<&'static GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        make(&HeadlessOptions {
            required_limits: Some(wgpu::Limits {
                max_texture_dimension_2d: 1000,
                ..wgpu::Limits::default()
            }),
            ..HeadlessOptions::default()
        })
    })
    .as_ref()
}

/// A fresh device of its own, for tests that destroy it.
pub fn own_ctx() -> Option<GpuContext> {
    make(&HeadlessOptions::default())
}

/// Deterministic pseudo-random numbers in [-1, 1) (xorshift), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_f32() + 1.0) * 0.5 * n as f32) as u32).min(n - 1)
    }
}

/// `count` distinct bone matrices whose every element differs (element e of bone b encodes b
/// and e), so a wrong texel shows up as a wrong value.
pub fn tagged_bone_matrices(count: u32) -> Vec<glam::Mat4> {
    (0..count)
        .map(|b| glam::Mat4::from_cols_array(&std::array::from_fn(|e| b as f32 + e as f32 / 16.0)))
        .collect()
}

/// The column-major elements of `matrices`, 16 per matrix (what a texture readback or a
/// `skel_anim` pose holds).
pub fn floats(matrices: &[glam::Mat4]) -> &[f32] {
    bytemuck::cast_slice(matrices)
}

/// `count` random affine bone matrices (rotation-ish 3×3 with scale near 1, translation).
pub fn random_affine_bones(count: u32, rng: &mut Rng) -> Vec<glam::Mat4> {
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let axis =
            glam::Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32() + 1.5).normalize();
        let m = glam::Mat4::from_scale_rotation_translation(
            glam::Vec3::splat(1.0 + 0.2 * rng.next_f32()),
            glam::Quat::from_axis_angle(axis, 3.0 * rng.next_f32()),
            glam::Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32()) * 2.0,
        );
        out.push(m);
    }
    out
}

/// Reads a buffer back as `f32`/`u32`.
pub fn read_f32(ctx: &GpuContext, buffer: &wgpu::Buffer, bytes: u64) -> Vec<f32> {
    skel_gpu::readback::read_buffer_as(ctx, buffer, 0, bytes as usize / 4).unwrap()
}

/// Reads a buffer back as `u32`.
pub fn read_u32(ctx: &GpuContext, buffer: &wgpu::Buffer, bytes: u64) -> Vec<u32> {
    skel_gpu::readback::read_buffer_as(ctx, buffer, 0, bytes as usize / 4).unwrap()
}

/// A `STORAGE | VERTEX | COPY_SRC | COPY_DST` buffer holding `data`.
pub fn storage_buffer(ctx: &GpuContext, data: &[u8]) -> wgpu::Buffer {
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test data"),
        size: skel_gpu::padded_buffer_size(data.len() as u64),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::VERTEX
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&buffer, 0, data);
    buffer
}

/// An empty output buffer of `bytes`.
pub fn output_buffer(ctx: &GpuContext, bytes: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test output"),
        size: bytes.max(4),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The workspace's `../shared/assets` directory, or `None` after a skip (failing when
/// `SKEL_REQUIRE_ASSETS=1`).
pub fn assets_dir() -> Option<std::path::PathBuf> {
    skel_test_support::shared("skel-gpu tests/gpu (shared assets)", "assets")
}
