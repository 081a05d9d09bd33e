//! The synthetic mesh `skel bench gpu compute` skins, its vertex formats, and the check of a
//! skinned result against the CPU reference (`skel_anim::skin_vertices`).

use glam::Mat4;
use skel::anim::{VertexInfluences, skin_vertices};
use skel::gpu::{GpuContext, JointFormat, WeightFormat};

type Error = Box<dyn std::error::Error>;

/// Deterministic xorshift in [0, 1): every run skins the same mesh.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Synthetic mesh data: positions, normals, 16 joints and weights per vertex (the first 4 are
/// the 4-influence set), weights multiples of 1/255 (at most 63/255, so 4 sum to ≤ 1) so that
/// unorm8 and unorm16 represent them exactly and every format skins the same values. Joints
/// are independent per vertex (the worst case for workgroup-memory bank conflicts).
pub(super) struct Data {
    pub(super) positions: Vec<f32>,
    pub(super) normals: Vec<f32>,
    pub(super) joints: Vec<u32>,
    pub(super) weights: Vec<f32>,
}

impl Data {
    /// `n` vertices over `bones` bones (at least 1).
    pub(super) fn new(n: usize, bones: u32) -> Self {
        let mut rng = Rng(0x5EED_1234_ABCD_0001);
        let mut d = Self {
            positions: Vec::with_capacity(n * 3),
            normals: Vec::with_capacity(n * 3),
            joints: Vec::with_capacity(n * 16),
            weights: Vec::with_capacity(n * 16),
        };
        for _ in 0..n {
            for _ in 0..3 {
                d.positions.push(rng.next() * 2.0 - 1.0);
            }
            let (a, b) = (rng.next() * std::f32::consts::TAU, rng.next() * 2.0 - 1.0);
            let r = (1.0 - b * b).sqrt();
            d.normals.extend([r * a.cos(), r * a.sin(), b]);
            for _ in 0..16 {
                d.joints
                    .push(((rng.next() * bones as f32) as u32).min(bones - 1));
                d.weights.push((rng.next() * 63.0).round() / 255.0);
            }
        }
        d
    }
}

/// Joints as a real mesh has them: vertices stored near each other share bones. Runs of 512
/// vertices use a base bone each; a vertex's 16 joints are the base and the next 15 bones.
pub(super) fn clustered_joints(n: usize, bones: u32) -> Vec<u32> {
    let mut rng = Rng(0xC1_05E7);
    let mut base = 0;
    let mut out = Vec::with_capacity(n * 16);
    for v in 0..n {
        if v % 512 == 0 {
            base = ((rng.next() * bones as f32) as u32).min(bones - 1);
        }
        out.extend((0..16).map(|k| (base + k) % bones));
    }
    out
}

/// `bones` affine bone matrices (column-major 4×4): a rotation about z and a translation each.
pub(super) fn bone_matrices(bones: u32) -> Vec<Mat4> {
    (0..bones)
        .map(|b| {
            let (s, c) = (b as f32 * 0.1).sin_cos();
            Mat4::from_cols_array(&[
                c,
                s,
                0.0,
                0.0,
                -s,
                c,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                b as f32 * 0.01,
                0.5,
                -0.25,
                1.0,
            ])
        })
        .collect()
}

/// Influence set `set` (0 to 3) of the 16 stored per vertex.
pub(super) fn influence_set<T: Copy>(values: &[T], set: usize) -> Vec<T> {
    values
        .chunks_exact(16)
        .flat_map(|c| c[set * 4..set * 4 + 4].to_vec())
        .collect()
}

/// Joint indices in `format` (the caller checks that the bone count fits it).
pub(super) fn joint_bytes(joints: &[u32], format: JointFormat) -> Vec<u8> {
    match format {
        JointFormat::U8 => joints.iter().map(|&j| j as u8).collect(),
        JointFormat::U16 => joints
            .iter()
            .flat_map(|&j| (j as u16).to_le_bytes())
            .collect(),
        JointFormat::U32 => joints.iter().flat_map(|&j| j.to_le_bytes()).collect(),
    }
}

/// Weights in `format` (exact for multiples of 1/255, which [`Data`] draws).
pub(super) fn weight_bytes(weights: &[f32], format: WeightFormat) -> Vec<u8> {
    match format {
        WeightFormat::Unorm8 => weights.iter().map(|w| (w * 255.0).round() as u8).collect(),
        WeightFormat::Unorm16 => weights
            .iter()
            .flat_map(|w| ((w * 65535.0).round() as u16).to_le_bytes())
            .collect(),
        WeightFormat::F32 => bytemuck::cast_slice(weights).to_vec(),
    }
}

/// A buffer of `usage | COPY_DST` holding `bytes`.
pub(super) fn buffer(ctx: &GpuContext, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: skel::gpu::padded_buffer_size(bytes.len() as u64),
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if !bytes.is_empty() {
        ctx.queue.write_buffer(&b, 0, bytes);
        ctx.queue.submit([]);
    }
    b
}

/// The name of a joint format in tables and JSON.
pub(super) fn joint_label(f: JointFormat) -> &'static str {
    match f {
        JointFormat::U8 => "u8",
        JointFormat::U16 => "u16",
        JointFormat::U32 => "u32",
    }
}

/// The name of a weight format in tables and JSON.
pub(super) fn weight_label(f: WeightFormat) -> &'static str {
    match f {
        WeightFormat::Unorm8 => "unorm8",
        WeightFormat::Unorm16 => "unorm16",
        WeightFormat::F32 => "f32",
    }
}

/// What [`check`] compares: the mesh, the joints it was skinned with (16 per vertex), the bones
/// and the influences per vertex.
pub(super) struct Reference<'a> {
    pub(super) data: &'a Data,
    pub(super) joints: &'a [u32],
    pub(super) bones: &'a [Mat4],
    pub(super) per_vertex: usize,
}

/// Largest error of sampled skinned vertices (the first 4096 and the last 4096 of `n`) in
/// `out` against the CPU reference, relative to the bounding box diagonal of the sample: a
/// configuration that computes the wrong thing fast is caught here.
///
/// # Errors
/// A failed readback or a reference that does not fit the sample.
pub(super) fn check(
    ctx: &GpuContext,
    reference: &Reference<'_>,
    out: &wgpu::Buffer,
    n: usize,
) -> Result<f32, Error> {
    let head = n.min(4096);
    let tail_start = n - n.min(4096);
    let mut sample: Vec<usize> = (0..head).collect();
    sample.extend((tail_start..n).filter(|&v| v >= head));
    let read = |first: usize, count: usize| -> Result<Vec<f32>, Error> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let offset = first as u64 * 12;
        Ok(skel::gpu::readback::read_buffer_as(
            ctx,
            out,
            offset,
            count * 3,
        )?)
    };
    let mut got = read(0, head)?;
    got.extend(read(head.max(tail_start), n - head.max(tail_start))?);
    let pick = |v: &[f32], k: usize| -> Vec<f32> {
        sample
            .iter()
            .flat_map(|&i| v[i * k..i * k + k].to_vec())
            .collect()
    };
    let per_vertex = reference.per_vertex;
    let influences = VertexInfluences {
        per_vertex,
        joints: sample
            .iter()
            .flat_map(|&i| reference.joints[i * 16..i * 16 + per_vertex].to_vec())
            .collect(),
        weights: sample
            .iter()
            .flat_map(|&i| reference.data.weights[i * 16..i * 16 + per_vertex].to_vec())
            .collect(),
    };
    let positions = pick(&reference.data.positions, 3);
    let mut cpu = vec![0.0; positions.len()];
    skin_vertices(
        &positions,
        None,
        Some(&influences),
        bytemuck::cast_slice(reference.bones),
        None,
        &mut cpu,
        None,
    )?;
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in cpu.chunks_exact(3) {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let diagonal = (0..3)
        .map(|k| (hi[k] - lo[k]).powi(2))
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    Ok(cpu
        .iter()
        .zip(&got)
        .map(|(a, b)| {
            let e = (a - b).abs();
            if e.is_nan() { f32::INFINITY } else { e }
        })
        .fold(0.0, f32::max)
        / diagonal)
}
