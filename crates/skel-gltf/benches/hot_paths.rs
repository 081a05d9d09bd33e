//! The pose pipeline's hot functions one by one, on real assets: keyframe sampling (binary
//! search against the forward-playback cursor), quaternion interpolation (slerp, nlerp), the
//! hierarchy pass (local → world), bone matrices and CPU reference skinning.
//!
//! Each iteration is one call over a whole character (every channel, every node, every bone,
//! every vertex), so criterion's time divides by the counts printed in the IDs.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benches")]

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use skel_anim::{
    AnimationController, ChannelPath, NullSink, PoseScratch, SamplerCursor, apply_clip,
    compute_bone_matrices, compute_world_matrices, evaluate_sampler, evaluate_sampler_cursor,
    skin_vertices,
};
use skel_test_support::cpu_clock::ThreadCpu;
use support::{CaseRecord, FRAME_MS, Loaded};

/// Every channel of the asset's clip, evaluated at a time that moves forward by one 60 fps
/// frame per iteration: by binary search, and with one cursor per sampler.
fn sampler(c: &mut Criterion<ThreadCpu>, asset: &Loaded, records: &mut Vec<CaseRecord>) {
    let clip = &asset.data.clips[asset.clip];
    let duration = clip.duration();
    let mut out = vec![0.0_f32; 64];
    let channels: Vec<(usize, usize, bool)> = clip
        .channels
        .iter()
        .filter_map(|ch| match ch.path {
            ChannelPath::Translation | ChannelPath::Scale => Some((ch.sampler, 3, false)),
            ChannelPath::Rotation => Some((ch.sampler, 4, true)),
            ChannelPath::Weights => None,
        })
        .collect();
    let mut g = c.benchmark_group("sampler");
    g.throughput(Throughput::Elements(channels.len() as u64));
    let mut t = 0.0_f32;
    let step = FRAME_MS / 1000.0;
    g.bench_function(BenchmarkId::new("search", asset.spec.name), |b| {
        b.iter(|| {
            t = (t + step) % duration;
            for &(s, n, rot) in &channels {
                evaluate_sampler(&clip.samplers[s], t, n, rot, &mut out, 0);
            }
            black_box(&out);
        });
    });
    let mut cursors = vec![SamplerCursor::default(); clip.samplers.len()];
    g.bench_function(BenchmarkId::new("cursor", asset.spec.name), |b| {
        b.iter(|| {
            t = (t + step) % duration;
            for &(s, n, rot) in &channels {
                evaluate_sampler_cursor(&clip.samplers[s], t, n, rot, &mut out, 0, &mut cursors[s]);
            }
            black_box(&out);
        });
    });
    // The whole clip through the pose pipeline's step 2: tracks sharing key times share one
    // key search, rotations four at a time.
    let mut scratch = posed(asset);
    g.bench_function(BenchmarkId::new("apply_clip", asset.spec.name), |b| {
        b.iter(|| {
            t = (t + step) % duration;
            apply_clip(&asset.data, asset.clip, t, black_box(&mut scratch));
        });
    });
    g.finish();
    records.push(per_item("sampler/search", asset, channels.len()));
    records.push(per_item("sampler/cursor", asset, channels.len()));
    records.push(per_item("sampler/apply_clip", asset, channels.len()));
}

fn per_item(group: &str, asset: &Loaded, items: usize) -> CaseRecord {
    CaseRecord {
        id: format!("{group}/{}", asset.spec.name),
        kind: "hot",
        asset: asset.spec.name,
        characters: 1,
        joints: items,
        allocations_per_frame: 0.0,
        ozz_ns: None,
        target_ns: None,
    }
}

/// Quaternion interpolation of 1 024 key pairs (unit quaternions up to 0.5 rad apart, as in
/// sampled animation) at varying fractions.
fn quaternions(c: &mut Criterion<ThreadCpu>, records: &mut Vec<CaseRecord>) {
    const PAIRS: usize = 1024;
    let pairs: Vec<([f32; 4], [f32; 4], f32)> = (0..PAIRS)
        .map(|i| {
            let f = i as f32;
            let axis = glam::Vec3::new(f.sin(), f.cos(), 0.5).normalize();
            let a = glam::Quat::from_axis_angle(axis, f * 0.01);
            let b = a * glam::Quat::from_axis_angle(
                glam::Vec3::new(axis.y, axis.z, axis.x),
                0.5 * (f * 0.37).sin(),
            );
            (a.to_array(), b.to_array(), (f * 0.618).fract())
        })
        .collect();
    let mut out = vec![0.0_f32; PAIRS * 4];
    let mut g = c.benchmark_group("quat");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.bench_function("slerp", |b| {
        b.iter(|| {
            for (i, &(a, q, t)) in pairs.iter().enumerate() {
                skel_math::slerp_into(&mut out, i * 4, a, q, t);
            }
            black_box(&out);
        });
    });
    g.bench_function("nlerp", |b| {
        b.iter(|| {
            for (i, &(a, q, t)) in pairs.iter().enumerate() {
                skel_math::nlerp_into(&mut out, i * 4, a, q, t);
            }
            black_box(&out);
        });
    });
    g.finish();
    for name in ["slerp", "nlerp"] {
        records.push(CaseRecord {
            id: format!("quat/{name}"),
            kind: "hot",
            asset: "key pairs",
            characters: 1,
            joints: PAIRS,
            allocations_per_frame: 0.0,
            ozz_ns: None,
            target_ns: None,
        });
    }
}

/// A posed scratch of one character (its clip at mid-duration).
fn posed(asset: &Loaded) -> PoseScratch {
    let mut controller = AnimationController::new(std::sync::Arc::clone(&asset.data)).unwrap();
    controller.set_clip(Some(asset.clip)).unwrap();
    let mid = controller.duration() * 0.5;
    controller
        .evaluate_at(Some(asset.clip), mid, &mut NullSink)
        .unwrap();
    controller.scratch().clone()
}

/// Local → world over every node, and bone matrices of every binding.
fn matrices(c: &mut Criterion<ThreadCpu>, asset: &Loaded, records: &mut Vec<CaseRecord>) {
    let mut scratch = posed(asset);
    let nodes = asset.data.nodes.len();
    let bones: usize = asset.data.skeletons.iter().map(|s| s.joints.len()).sum();
    let mut g = c.benchmark_group("hierarchy");
    g.throughput(Throughput::Elements(nodes as u64));
    g.bench_function(asset.spec.name, |b| {
        b.iter(|| compute_world_matrices(&asset.data, black_box(&mut scratch)));
    });
    g.finish();
    let mut g = c.benchmark_group("bones");
    g.throughput(Throughput::Elements(bones as u64));
    g.bench_function(asset.spec.name, |b| {
        b.iter(|| compute_bone_matrices(&asset.data, black_box(&mut scratch), &mut NullSink));
    });
    g.finish();
    records.push(per_item("hierarchy", asset, nodes));
    records.push(per_item("bones", asset, bones));
}

/// CPU reference skinning of the asset's first skinned primitive (positions and normals).
fn skinning(c: &mut Criterion<ThreadCpu>, asset: &Loaded, records: &mut Vec<CaseRecord>) {
    let Some(gltf) = &asset.gltf else { return };
    let Some(prim) = gltf.primitives.iter().find(|p| p.is_skinned()) else {
        return;
    };
    let scratch = posed(asset);
    let bones = &scratch.bones[prim.skeleton_binding.unwrap_or(0)];
    let n = prim.vertex_count();
    let mut out_p = vec![0.0_f32; n * 3];
    let mut out_n = vec![0.0_f32; n * 3];
    let mut g = c.benchmark_group("skinning");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(asset.spec.name, |b| {
        b.iter(|| {
            skin_vertices(
                &prim.positions,
                prim.normals.as_deref(),
                prim.influences.as_ref(),
                bones,
                None,
                &mut out_p,
                Some(&mut out_n),
            )
            .unwrap();
            black_box(&out_p);
        });
    });
    g.finish();
    records.push(per_item("skinning", asset, n));
}

fn main() {
    let mut c = Criterion::default()
        .with_measurement(ThreadCpu)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30)
        .configure_from_args();
    let mut records = Vec::new();
    for name in ["CesiumMan", "Fox-Survey", "Rig368"] {
        if let Some(asset) = support::load(support::asset(name)) {
            sampler(&mut c, &asset, &mut records);
            matrices(&mut c, &asset, &mut records);
            skinning(&mut c, &asset, &mut records);
        }
    }
    quaternions(&mut c, &mut records);
    support::write_records("hot_paths", &records);
    c.final_summary();
}
