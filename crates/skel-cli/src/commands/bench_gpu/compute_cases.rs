//! The configurations `skel bench gpu compute` times, and how one is timed and checked.

use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;
use skel::gpu::{
    BoneCacheLayout, ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, ComputeTuning,
    GpuContext, Influences, JointFormat, SkeletonGpu, SkinningVariant, WeightFormat,
};

use super::compute_data::{
    Data, Reference, buffer, check, influence_set, joint_bytes, joint_label, weight_bytes,
    weight_label,
};
use super::compute_timing::{Timing, time_passes};

type Error = Box<dyn std::error::Error>;

/// One timed configuration.
#[derive(Debug, Clone, Copy)]
pub(super) struct Case {
    pub(super) config: ComputeSkinningConfig,
    pub(super) tuning: ComputeTuning,
    pub(super) vertices: u32,
    /// Joints clustered as in a real mesh (runs of 512 vertices share bones) instead of
    /// drawn independently per vertex.
    pub(super) clustered: bool,
}

/// A compute-skinning configuration without morph targets.
pub(super) fn config(
    influences: Influences,
    normals: bool,
    joint_format: JointFormat,
    weight_format: WeightFormat,
) -> ComputeSkinningConfig {
    ComputeSkinningConfig {
        variant: SkinningVariant {
            influences,
            morph: false,
        },
        normals,
        joint_format,
        weight_format,
    }
}

/// The tunings the sweep compares: the baseline (skel's first kernel), each lever alone, the
/// default, and its neighbours.
pub(super) fn sweep_tunings() -> Vec<ComputeTuning> {
    use BoneCacheLayout::{AffineRows as A, Columns as C};
    let t = |bone_cache, tiles, k, skip| ComputeTuning {
        bone_cache,
        tiles_per_workgroup: tiles,
        vertices_per_iteration: k,
        skip_zero_weights: skip,
    };
    vec![
        ComputeTuning::baseline(),
        t(C, Some(1), 1, false),
        t(C, None, 2, true),
        t(A, Some(1), 1, true),
        t(A, Some(1), 1, false),
        t(A, None, 1, true),
        t(A, None, 1, false),
        ComputeTuning::default(),
        t(A, None, 2, false),
        t(A, None, 4, true),
        t(A, Some(32), 2, true),
    ]
}

/// A tuning in one short line: cache layout, zero-weight skipping, tiles, vertices per
/// iteration.
pub(super) fn tuning_label(t: &ComputeTuning) -> String {
    format!(
        "{}{}/tiles {}/k {}",
        match t.bone_cache {
            BoneCacheLayout::AffineRows => "affine",
            BoneCacheLayout::Columns => "columns",
        },
        if t.skip_zero_weights { "+skip0" } else { "" },
        t.tiles_per_workgroup
            .map_or_else(|| "auto".to_owned(), |n| n.to_string()),
        t.vertices_per_iteration()
    )
}

/// A tuning in the JSON report.
#[derive(Debug, Serialize)]
pub(super) struct TuningReport {
    bone_cache: String,
    tiles_per_workgroup: Option<u32>,
    vertices_per_iteration: u32,
    skip_zero_weights: bool,
}

impl TuningReport {
    pub(super) fn new(t: &ComputeTuning) -> Self {
        Self {
            bone_cache: format!("{:?}", t.bone_cache),
            tiles_per_workgroup: t.tiles_per_workgroup,
            vertices_per_iteration: t.vertices_per_iteration(),
            skip_zero_weights: t.skip_zero_weights,
        }
    }
}

/// One configuration's result (a row of the table, an element of `results` or `sweep`).
#[derive(Debug, Serialize)]
pub(super) struct Row {
    vertices: u32,
    influences: u32,
    normals: bool,
    /// `random` or `clustered`.
    joints: &'static str,
    joint_format: &'static str,
    weight_format: &'static str,
    tuning: TuningReport,
    tuning_label: String,
    workgroups: [u32; 2],
    tiles_per_workgroup: u32,
    bytes_per_vertex: u64,
    pub(super) median_ms: f64,
    round_medians_ms: Vec<f64>,
    best_ms: f64,
    vertices_per_second: f64,
    best_vertices_per_second: f64,
    effective_gb_per_second: f64,
    share_of_copy_bandwidth: Option<f64>,
    max_error_of_diagonal: f32,
}

/// One round's measurement of a case.
struct Measured {
    median: f64,
    best: f64,
    error: Option<f32>,
    workgroups: (u32, u32),
    tiles: u32,
}

/// Everything the runs share: device, data, bones, rest and output buffers, and influence
/// buffers per (joint set, format) made on first use.
pub(super) struct Bench {
    pub(super) ctx: GpuContext,
    pub(super) timing: Timing,
    pub(super) rounds: u32,
    pub(super) data: Data,
    pub(super) clustered: Vec<u32>,
    pub(super) bones: Vec<glam::Mat4>,
    pub(super) skeleton: SkeletonGpu,
    pub(super) rest_p: wgpu::Buffer,
    pub(super) rest_n: wgpu::Buffer,
    pub(super) out_p: wgpu::Buffer,
    pub(super) out_n: wgpu::Buffer,
    pub(super) joint_buffers: HashMap<(bool, usize, JointFormat), wgpu::Buffer>,
    pub(super) weight_buffers: HashMap<(usize, WeightFormat), wgpu::Buffer>,
}

impl Bench {
    fn ensure_buffers(&mut self, case: &Case) {
        let storage = wgpu::BufferUsages::STORAGE;
        for s in 0..case.config.variant.influences.sets() as usize {
            let key = (case.clustered, s, case.config.joint_format);
            if !self.joint_buffers.contains_key(&key) {
                let source = if case.clustered {
                    &self.clustered
                } else {
                    &self.data.joints
                };
                let bytes = joint_bytes(&influence_set(source, s), case.config.joint_format);
                let b = buffer(&self.ctx, &bytes, storage);
                self.joint_buffers.insert(key, b);
            }
            let wkey = (s, case.config.weight_format);
            if !self.weight_buffers.contains_key(&wkey) {
                let bytes = weight_bytes(
                    &influence_set(&self.data.weights, s),
                    case.config.weight_format,
                );
                let b = buffer(&self.ctx, &bytes, storage);
                self.weight_buffers.insert(wkey, b);
            }
        }
    }

    /// Times `case` once (one round), and checks it against the CPU when `check_it`.
    fn run(&mut self, case: &Case, check_it: bool) -> Result<Measured, Error> {
        self.ensure_buffers(case);
        let config = case.config;
        let sets = config.variant.influences.sets() as usize;
        let joint = |s: usize| {
            self.joint_buffers
                .get(&(case.clustered, s, config.joint_format))
        };
        let weight = |s: usize| self.weight_buffers.get(&(s, config.weight_format));
        let pipeline = ComputeSkinning::with_tuning(&self.ctx, config, case.tuning)?;
        let inputs = ComputeSkinningInputs {
            vertex_count: case.vertices,
            rest_positions: &self.rest_p,
            rest_normals: config.normals.then_some(&self.rest_n),
            joints: std::array::from_fn(|s| (sets > s).then(|| joint(s)).flatten()),
            weights: std::array::from_fn(|s| (sets > s).then(|| weight(s)).flatten()),
            out_positions: &self.out_p,
            out_normals: config.normals.then_some(&self.out_n),
        };
        let bindings = pipeline.bind(&self.ctx, &inputs, Some(&self.skeleton), None)?;
        let (median, best) = time_passes(&self.ctx, self.timing, &|encoder, ts| {
            pipeline.encode(encoder, &bindings, ts);
        })?;
        let error = if check_it {
            // Zero the output, skin once more, then compare: a configuration that wrote
            // nothing cannot pass on the previous one's results.
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            encoder.clear_buffer(&self.out_p, 0, None);
            pipeline.encode(&mut encoder, &bindings, None);
            self.ctx.queue.submit([encoder.finish()]);
            let reference = Reference {
                data: &self.data,
                joints: if case.clustered {
                    &self.clustered
                } else {
                    &self.data.joints
                },
                bones: &self.bones,
                per_vertex: config.variant.influences.count() as usize,
            };
            Some(check(
                &self.ctx,
                &reference,
                &self.out_p,
                case.vertices as usize,
            )?)
        } else {
            None
        };
        if let Some(e) = self.ctx.take_uncaptured_error() {
            return Err(format!("wgpu: {e}").into());
        }
        Ok(Measured {
            median,
            best,
            error,
            workgroups: bindings.workgroups(),
            tiles: bindings.tiles_per_workgroup(),
        })
    }

    /// Runs every case for `rounds` rounds (all cases per round, in order), prints a table of
    /// them to `out` and returns each one's row.
    ///
    /// # Errors
    /// A pipeline the device refuses, a failed wait or readback, a wgpu validation error.
    pub(super) fn run_all(
        &mut self,
        cases: &[Case],
        copy_gbps: Option<f64>,
        what: &str,
        out: &mut dyn Write,
    ) -> Result<Vec<Row>, Error> {
        let mut medians = vec![Vec::new(); cases.len()];
        let mut bests = vec![f64::MAX; cases.len()];
        let mut errors = vec![0.0f32; cases.len()];
        let mut shapes = vec![((0, 0), 0); cases.len()];
        for round in 0..self.rounds {
            for (i, case) in cases.iter().enumerate() {
                let m = self.run(case, round == 0)?;
                medians[i].push(m.median);
                bests[i] = bests[i].min(m.best);
                if let Some(e) = m.error {
                    errors[i] = e;
                }
                shapes[i] = (m.workgroups, m.tiles);
            }
            eprintln!("{what}: round {round} done");
        }
        writeln!(
            out,
            "\n{what}\n{:>9} infl normals joints formats        tuning                       median ms  G vert/s  B/vert  GB/s  %copy  error",
            "vertices"
        )?;
        let mut rows = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let median = super::report::median(&mut medians[i].clone());
            let c = &case.config;
            let per_vertex = c.bytes_per_vertex();
            let gbps = per_vertex as f64 * f64::from(case.vertices) / median / 1e9;
            let share = copy_gbps.map(|copy| gbps / copy);
            let joints = if case.clustered {
                "clustered"
            } else {
                "random"
            };
            writeln!(
                out,
                "{:>9} {:>4} {:<7} {:<9} {:>3}/{:<8} {:<28} {:>9.3}  {:>8.2}  {:>6}  {:>4.0}  {:>5}  {:.1e}",
                case.vertices,
                c.variant.influences.count(),
                c.normals,
                joints,
                joint_label(c.joint_format),
                weight_label(c.weight_format),
                tuning_label(&case.tuning),
                median * 1e3,
                f64::from(case.vertices) / median / 1e9,
                per_vertex,
                gbps,
                share.map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0)),
                errors[i]
            )?;
            rows.push(Row {
                vertices: case.vertices,
                influences: c.variant.influences.count(),
                normals: c.normals,
                joints,
                joint_format: joint_label(c.joint_format),
                weight_format: weight_label(c.weight_format),
                tuning: TuningReport::new(&case.tuning),
                tuning_label: tuning_label(&case.tuning),
                workgroups: [shapes[i].0.0, shapes[i].0.1],
                tiles_per_workgroup: shapes[i].1,
                bytes_per_vertex: per_vertex,
                median_ms: median * 1e3,
                round_medians_ms: medians[i].iter().map(|m| m * 1e3).collect(),
                best_ms: bests[i] * 1e3,
                vertices_per_second: f64::from(case.vertices) / median,
                best_vertices_per_second: f64::from(case.vertices) / bests[i],
                effective_gb_per_second: gbps,
                share_of_copy_bandwidth: share,
                max_error_of_diagonal: errors[i],
            });
        }
        Ok(rows)
    }
}
