//! The `graph_json` target: arbitrary text as an animation-graph file, compiled against a
//! small rig built here; what compiles is played: a [`GraphPlayer`] ticks with every parameter
//! moving, triggers fired and travel requested, and its invariants are checked on every tick.
//!
//! Checked beyond "no panic": a compiled graph attaches to its rig; each layer's clip weights
//! lie in 0..=1 and sum to 1 (or the layer plays nothing); clip times are finite and within
//! the clip; the layer weights lie in 0..=1; the bone matrices stay finite.

use std::sync::{Arc, OnceLock};

use skel_anim::glam::Mat4;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, Marker, NodeRest, Player,
    PoseSink, Rig, Sampler, SkeletonBinding,
};
use skel_graph::{Graph, GraphPlayer, ParamKind, ParamValue};

/// Clip names (the seeds in `fuzz/seeds/graph_json/` use them) and lengths in seconds.
pub const CLIPS: [(&str, f32); 7] = [
    ("Idle", 1.0),
    ("Walking", 1.2),
    ("Running", 0.8),
    ("Jump", 1.0),
    ("Wave", 2.0),
    ("Strafe", 1.6),
    ("Back", 0.0),
];

/// Node names: a chain root → spine → arm → hand, and the mesh.
pub const NODES: [&str; 5] = ["root", "spine", "arm", "hand", "mesh"];

fn clip(name: &str, len: f32, k: f32) -> Clip {
    let input = if len > 0.0 {
        vec![0.0, len * 0.5, len]
    } else {
        vec![0.0]
    };
    let output: Vec<f32> = input.iter().flat_map(|&t| [k * t, 0.1 * k, 0.0]).collect();
    let rot: Vec<f32> = input
        .iter()
        .flat_map(|&t| {
            let (s, c) = (0.3 * k * t).sin_cos();
            [0.0, 0.0, s, c]
        })
        .collect();
    let samplers = [
        Sampler::new(input.clone(), output, Interpolation::Linear),
        Sampler::new(input, rot, Interpolation::Linear),
    ];
    let samplers: Vec<Sampler> = samplers.into_iter().filter_map(Result::ok).collect();
    let channels = vec![
        Channel {
            sampler: 0,
            node: 0,
            path: ChannelPath::Translation,
        },
        Channel {
            sampler: 1,
            node: 2,
            path: ChannelPath::Rotation,
        },
    ];
    let m = |name: &str, time: f32| Marker {
        name: name.into(),
        time,
    };
    let clip = Clip::new(name, samplers, channels);
    match name {
        "Walking" => clip.with_markers([m("foot_l", 0.1), m("foot_r", 0.7)]),
        "Running" => clip.with_markers([m("foot_l", 0.2), m("foot_r", 0.6)]),
        "Strafe" => clip.with_markers([m("foot_r", 0.5), m("foot_l", 1.3), m("foot_l", 1.5)]),
        _ => clip,
    }
}

/// The rig every input compiles against (built once per process).
pub fn rig() -> Option<Arc<Rig>> {
    static RIG: OnceLock<Option<Arc<Rig>>> = OnceLock::new();
    RIG.get_or_init(|| {
        let parents = [None, Some(0), Some(1), Some(2), None];
        let nodes = NODES
            .iter()
            .zip(parents)
            .map(|(n, p)| NodeRest::new(*n, p))
            .collect();
        let data = AnimationData {
            nodes,
            clips: CLIPS
                .iter()
                .enumerate()
                .map(|(i, (n, l))| clip(n, *l, i as f32 + 1.0))
                .collect(),
            skeletons: vec![SkeletonBinding::new(4, 4, vec![0, 1, 2, 3], vec![]).ok()?],
            morph_bindings: vec![],
            handedness: Handedness::RightHanded,
        };
        Rig::new(Arc::new(data)).ok()
    })
    .clone()
}

/// Checks that every bone matrix is finite.
struct FiniteSink;

impl PoseSink for FiniteSink {
    fn bone_matrices(&mut self, binding: usize, matrices: &[Mat4]) {
        assert!(
            matrices.iter().all(|m| m.is_finite()),
            "binding {binding}: a bone matrix is not finite"
        );
    }
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
}

/// Values the parameters take in turn (extremes included: the graph must clamp or cope).
const VALUES: [f32; 8] = [0.0, 1.0, -1.0, 0.5, 3.5, 1e6, -1e-7, 2.25];

/// Compiles `bytes` as a graph file and plays what compiles.
pub fn run_bytes(bytes: &[u8]) {
    let Some(rig) = rig() else { return };
    let text = String::from_utf8_lossy(bytes);
    let Ok(graph) = Graph::from_json(&text, &rig) else {
        return;
    };
    let mut gp = match GraphPlayer::new(&graph, Player::new(&rig)) {
        Ok(gp) => gp,
        Err(e) => panic!("a graph compiled against the rig does not attach: {e}"),
    };
    let params: Vec<_> = graph.params().map(|(id, _, kind)| (id, kind)).collect();
    let seed = bytes
        .iter()
        .fold(0_usize, |h, &b| h.wrapping_mul(31).wrapping_add(b.into()));
    for tick in 0..90_usize {
        let i = gp.instance_mut();
        for (k, &(id, kind)) in params.iter().enumerate() {
            let v = VALUES[(tick / 7 + k + seed) % VALUES.len()];
            let value = match kind {
                ParamKind::Float => ParamValue::Float(v),
                ParamKind::Int => ParamValue::Int(v as i32),
                ParamKind::Bool => ParamValue::Bool(v > 0.0),
                ParamKind::Trigger => ParamValue::Trigger((tick + k) % 11 == 0),
                // A point a few units around the character, each axis its own value.
                ParamKind::Vec3 => ParamValue::Vec3(skel_anim::glam::Vec3::new(
                    v,
                    VALUES[(tick + k + seed + 1) % VALUES.len()],
                    VALUES[(tick + k + seed + 2) % VALUES.len()],
                )),
            };
            assert!(
                i.set(id, value).is_ok(),
                "a value of the parameter's own kind is refused"
            );
        }
        if tick % 23 == 5 {
            let layer = (seed + tick) % graph.layer_count();
            let states = graph.state_names(layer).count();
            i.travel_to(layer, (seed + tick) % states.max(1));
        }
        let dt = [1.0 / 60.0, 0.0, 0.25, 1.0 / 30.0, 3.0][(tick + seed) % 5];
        gp.tick(dt, &mut FiniteSink);
        check(&gp, &graph);
    }
}

fn check(gp: &GraphPlayer, graph: &Graph) {
    let i = gp.instance();
    for layer in 0..graph.layer_count() {
        let mut sum = 0.0;
        let mut any = false;
        for c in i.clips(layer) {
            assert!(
                (0.0..=1.0 + 1e-5).contains(&c.weight),
                "weight {}",
                c.weight
            );
            let len = CLIPS[c.clip].1;
            assert!(
                c.time.is_finite() && (0.0..=len + 1e-4).contains(&c.time),
                "time {}",
                c.time
            );
            sum += c.weight;
            any = true;
        }
        assert!(
            !any || (sum - 1.0).abs() < 1e-3,
            "layer {layer}: weights sum to {sum}"
        );
        let w = i.layer_weight(layer);
        assert!((0.0..=1.0).contains(&w), "layer weight {w}");
        assert!(i.state(layer).is_some());
    }
}
