//! What the CPU benches share: the assets they run on (real files from `../shared/assets` and
//! generated rigs), loading, crowds of staggered controllers, and the allocation and summary
//! records that `cargo xtask bench` joins with criterion's estimates.

#![allow(
    dead_code,
    reason = "each bench binary uses its own subset of the helpers"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benches")]

pub mod clock_probe;
pub mod rigs;

use std::path::PathBuf;
use std::sync::Arc;

use skel_anim::{AnimationController, AnimationData};

/// One benchmark asset: a shared glTF file and clip, or a generated rig.
#[derive(Debug, Clone, Copy)]
pub struct AssetSpec {
    /// Short name used in benchmark IDs.
    pub name: &'static str,
    /// Where it comes from.
    pub source: Source,
    /// ozz-animation 0.16's figure on this class of machine (ns/joint/frame, N = 100), where
    /// one was measured.
    pub ozz_ns: Option<f64>,
    /// The target for forward playback (ns/joint/frame at N = 100), when the issue sets one.
    pub target_ns: Option<f64>,
}

/// Where a benchmark asset comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A file under `../shared/assets` and the clip to play (by name; `None`: the first).
    Shared(&'static str, Option<&'static str>),
    /// A generated rig.
    Generated(rigs::RigSpec),
}

/// The benchmark assets, in the order of the tables in `docs/bench-cpu.md`.
pub const ASSETS: [AssetSpec; 5] = [
    AssetSpec {
        name: "CesiumMan",
        source: Source::Shared("CesiumMan/CesiumMan.glb", None),
        ozz_ns: Some(20.7),
        target_ns: Some(16.5),
    },
    AssetSpec {
        name: "Fox-Survey",
        source: Source::Shared("Fox/Fox.glb", Some("Survey")),
        ozz_ns: Some(17.4),
        target_ns: Some(14.0),
    },
    AssetSpec {
        name: "RiggedFigure",
        source: Source::Shared("RiggedFigure/RiggedFigure.glb", None),
        ozz_ns: Some(15.3),
        target_ns: Some(12.0),
    },
    AssetSpec {
        name: "Walk67",
        source: Source::Generated(rigs::WALK_67),
        ozz_ns: Some(17.6),
        target_ns: None,
    },
    AssetSpec {
        name: "Rig368",
        source: Source::Generated(rigs::RIG_368),
        ozz_ns: Some(14.8),
        target_ns: None,
    },
];

/// The asset named `name` in [`ASSETS`].
#[must_use]
pub fn asset(name: &str) -> AssetSpec {
    *ASSETS
        .iter()
        .find(|a| a.name == name)
        .expect("a benchmark asset of that name")
}

/// `../shared` beside the workspace root.
#[must_use]
pub fn shared_dir() -> PathBuf {
    skel_test_support::shared_root()
}

/// A loaded benchmark asset.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The spec it came from.
    pub spec: AssetSpec,
    /// Its animation data, shared by every controller.
    pub data: Arc<AnimationData>,
    /// The clip played.
    pub clip: usize,
    /// Distinct joint nodes over its skins: the "J" of ns/joint/frame (as `skel bench`).
    pub joints: usize,
    /// The whole glTF asset (meshes for the skinning benches), for shared files.
    pub gltf: Option<skel_gltf::GltfAsset>,
}

/// Loads `spec`, or returns `None` after a skip when its file is missing (fails instead when
/// `SKEL_REQUIRE_ASSETS=1`; `skel_test_support::shared_asset`).
#[must_use]
pub fn load(spec: AssetSpec) -> Option<Loaded> {
    let (data, gltf, clip) = match spec.source {
        Source::Generated(rig) => (rigs::generate(rig), None, 0),
        Source::Shared(file, clip) => {
            let path = skel_test_support::shared_asset(&format!("benchmark {}", spec.name), file)?;
            let options = skel_gltf::LoadOptions {
                decode_images: false,
                ..skel_gltf::LoadOptions::default()
            };
            let asset = skel_gltf::load_path(&path, &options).expect("shared asset loads");
            let clip = clip.map_or(0, |name| asset.clip_index(name).expect("clip exists"));
            (asset.animation.clone(), Some(asset), clip)
        }
    };
    let joints = distinct_joints(&data);
    Some(Loaded {
        spec,
        data: Arc::new(data),
        clip,
        joints,
        gltf,
    })
}

/// Distinct joint nodes over every skin binding (the node count without skins): the same
/// count `skel bench` divides by.
#[must_use]
pub fn distinct_joints(data: &AnimationData) -> usize {
    let mut seen = vec![false; data.nodes.len()];
    for binding in &data.skeletons {
        for &j in &binding.joints {
            seen[j] = true;
        }
    }
    match seen.iter().filter(|&&s| s).count() {
        0 => data.nodes.len(),
        j => j,
    }
}

/// The CPU kernels a measurement asks for: `SKEL_KERNELS=baseline` in the environment keeps
/// the baseline (SSE2) ones on a CPU with AVX2 + FMA, for A/B runs; otherwise the widest.
#[must_use]
pub fn kernels_from_env() -> skel_anim::CpuKernels {
    if std::env::var_os("SKEL_KERNELS").is_some_and(|v| v == "baseline") {
        skel_anim::CpuKernels::Baseline
    } else {
        skel_anim::CpuKernels::Detect
    }
}

/// The asset's unit in metres: glTF's unit is the metre (glTF 2.0, §3.4 "Coordinate System
/// and Units"), and the shared assets keep it except Fox, whose exporter wrote centimetres
/// (its hip stands 43 units above its root and each spine bone is 13–26 units long: a fox in
/// metres would be 40 m tall at the hip). The generated rigs are built in metres.
#[must_use]
pub fn unit_metres(asset: &str) -> f64 {
    if asset.starts_with("Fox") { 0.01 } else { 1.0 }
}

/// The rig a measurement asks for: the kernels of [`kernels_from_env`], and compressed clips
/// (ACL's default bound, 0.01 cm at 3 cm, in the asset's unit) with `SKEL_COMPRESSED=1`
/// (`KeyFormat::Fixed`) or `SKEL_COMPRESSED=variable` (`KeyFormat::Variable`) in the
/// environment.
#[must_use]
pub fn rig_from_env(asset: &Loaded) -> Arc<skel_anim::Rig> {
    let keys = match std::env::var("SKEL_COMPRESSED").as_deref() {
        Ok("1") => Some(skel_anim::KeyFormat::Fixed),
        Ok("variable") => Some(skel_anim::KeyFormat::Variable),
        _ => None,
    };
    #[expect(clippy::cast_possible_truncation, reason = "a unit, 0.01 or 1")]
    let compression = keys.map(|keys| skel_anim::Compression {
        keys,
        ..skel_anim::Compression::for_unit(unit_metres(asset.spec.name) as f32)
    });
    let options = skel_anim::RigOptions {
        kernels: kernels_from_env(),
        compression,
    };
    skel_anim::Rig::with_options(Arc::clone(&asset.data), &options).expect("valid data")
}

/// `n` controllers over one asset, playing its clip, staggered evenly through it (as
/// `skel bench` does), each warmed up by one tick so that cursors are placed; the rig as
/// [`rig_from_env`] builds it.
#[must_use]
pub fn crowd(asset: &Loaded, n: usize) -> Vec<AnimationController> {
    let rig = rig_from_env(asset);
    let mut first = AnimationController::from_rig(&rig);
    first.set_clip(Some(asset.clip)).expect("clip exists");
    let duration = first.duration();
    (0..n)
        .map(|i| {
            let mut c = first.clone();
            c.time = duration * i as f32 / n as f32;
            c.tick(0.0, &mut skel_anim::NullSink);
            c
        })
        .collect()
}

/// One frame at 60 fps, in milliseconds.
pub const FRAME_MS: f32 = 1000.0 / 60.0;

/// Where the benches write their side records (`SKEL_BENCH_DIR`, default `target/bench`).
#[must_use]
pub fn out_dir() -> PathBuf {
    std::env::var_os("SKEL_BENCH_DIR").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench")),
        PathBuf::from,
    )
}

/// What the summary needs to know about one benchmark besides its time: the criterion ID, the
/// characters and joints per frame it divides by, and the heap allocations one frame made.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseRecord {
    /// criterion's ID (`group/function/parameter`).
    pub id: String,
    /// Which target row this case measures (`forward`, `seek`, `scaling`, …).
    pub kind: &'static str,
    /// The asset's short name.
    pub asset: &'static str,
    /// Characters per iteration.
    pub characters: usize,
    /// Joints per character (the J of ns/joint/frame).
    pub joints: usize,
    /// Heap allocations per frame (all characters), averaged over the frames counted.
    pub allocations_per_frame: f64,
    /// ozz-animation's figure for the asset, when known.
    pub ozz_ns: Option<f64>,
    /// The target for the row, when it sets one.
    pub target_ns: Option<f64>,
}

/// Counts heap allocations made on this thread over `frames` calls of `frame`, per frame.
#[must_use]
pub fn allocations_per_frame(frames: usize, mut frame: impl FnMut()) -> f64 {
    let info = allocation_counter::measure(|| {
        for _ in 0..frames {
            frame();
        }
    });
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    let per = info.count_total as f64 / frames as f64;
    per
}

/// Writes the clock probe's readings (`(latency GHz, throughput GHz)` before and after the benches) to `clock.json` in
/// the bench output directory, for `cargo xtask bench` to print beside the table.
pub fn write_clock(before: (f64, f64), after: (f64, f64)) {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("bench output directory");
    let json = serde_json::json!({
        "ghz_before": before.0,
        "ghz_after": after.0,
        "throughput_ghz_before": before.1,
        "throughput_ghz_after": after.1,
        "method": "latency: dependent 64-bit x = x*x + k chain, 4 cycles a step; throughput: eight such chains, one imul a cycle"
    });
    std::fs::write(dir.join("clock.json"), json.to_string()).expect("write clock probe");
}

/// Writes `records` to `<out_dir>/<name>.json`.
pub fn write_records(name: &str, records: &[CaseRecord]) {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("bench output directory");
    let path = dir.join(format!("{name}.json"));
    let json = serde_json::to_string_pretty(records).expect("records serialise");
    std::fs::write(&path, json).expect("write bench records");
}
