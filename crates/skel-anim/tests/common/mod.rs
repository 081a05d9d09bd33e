//! Helpers shared by the skel-anim integration tests: f64 reference implementations of the pose
//! math (written independently of the library, straight from the glTF 2.0 formulas), rig
//! generators, and proptest strategies for random hierarchies and clips.

#![allow(
    dead_code,
    reason = "each test binary uses its own subset of the helpers"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

pub mod clips;

use proptest::prelude::*;
use proptest::sample::Index;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, MorphBinding, NodeRest,
    Sampler, SkeletonBinding,
};

/// A column-major 4×4 matrix in f64.
pub type M64 = [f64; 16];

/// The identity in f64.
pub const I64: M64 = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// `diag(-1, 1, 1, 1)` in f64, written out here rather than taken from skel-math.
pub const MIRROR_X64: M64 = [
    -1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// `T · R · S` from the glTF 2.0 rotation-matrix formula of a unit quaternion `[x, y, z, w]`.
pub fn compose_f64(t: [f64; 3], r: [f64; 4], s: [f64; 3]) -> M64 {
    let [x, y, z, w] = r;
    let cols = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let mut m = [0.0; 16];
    for c in 0..3 {
        for row in 0..3 {
            m[c * 4 + row] = cols[c][row] * s[c];
        }
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1.0;
    m
}

/// [`compose_f64`] from f32 inputs.
pub fn compose_f32_in(t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> M64 {
    compose_f64(t.map(f64::from), r.map(f64::from), s.map(f64::from))
}

/// `a · b`, column-major.
pub fn mul_f64(a: &M64, b: &M64) -> M64 {
    let mut o = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    o
}

/// The inverse by Gauss–Jordan elimination with partial pivoting. Panics on a singular matrix.
pub fn invert_f64(m: &M64) -> M64 {
    // Row-major working copy [A | I].
    let mut a = [[0.0_f64; 8]; 4];
    for (r, row) in a.iter_mut().enumerate() {
        for c in 0..4 {
            row[c] = m[c * 4 + r];
        }
        row[4 + r] = 1.0;
    }
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap();
        assert!(a[pivot][col].abs() > 1e-12, "singular matrix {m:?}");
        a.swap(col, pivot);
        let p = a[col][col];
        for v in &mut a[col] {
            *v /= p;
        }
        for r in 0..4 {
            if r != col {
                let f = a[r][col];
                let pivot_row = a[col];
                for (v, pv) in a[r].iter_mut().zip(pivot_row) {
                    *v -= f * pv;
                }
            }
        }
    }
    let mut inv = [0.0; 16];
    for (r, row) in a.iter().enumerate() {
        for c in 0..4 {
            inv[c * 4 + r] = row[4 + c];
        }
    }
    inv
}

/// Rounds an f64 matrix to f32.
pub fn to_f32(m: &M64) -> [f32; 16] {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "rounding to f32 on purpose"
    )]
    m.map(|v| v as f32)
}

/// Largest absolute difference between an f32 matrix (16 floats) and an f64 one.
pub fn max_diff(got: &[f32], want: &M64) -> f64 {
    assert_eq!(got.len(), 16, "a matrix is 16 floats");
    got.iter()
        .zip(want)
        .map(|(&g, &w)| (f64::from(g) - w).abs())
        .fold(0.0, f64::max)
}

/// Asserts that `got` (16 floats) is within `tol` of `want` in every element.
#[track_caller]
pub fn assert_mat_close(got: &[f32], want: &M64, tol: f64, what: &str) {
    let d = max_diff(got, want);
    assert!(
        d <= tol,
        "{what}: differs by {d} (tolerance {tol})\n got  {got:?}\n want {want:?}"
    );
}

/// Asserts that two float slices agree within `tol`, element by element.
#[track_caller]
pub fn assert_close(got: &[f32], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(g) - w).abs() <= tol,
            "{what}[{i}]: {g} vs {w} (tolerance {tol})\n got  {got:?}\n want {want:?}"
        );
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Normalises a quaternion in f64.
pub fn normalize_f64(q: &[f64]) -> Vec<f64> {
    let n = dot(q, q).sqrt();
    q.iter().map(|v| v / n).collect()
}

/// Spherical linear interpolation in f64 along the short arc.
pub fn slerp_f64(a: &[f64], b: &[f64], u: f64) -> Vec<f64> {
    let mut cos = dot(a, b);
    let sign = if cos < 0.0 { -1.0 } else { 1.0 };
    cos *= sign;
    let theta = cos.min(1.0).acos();
    if theta < 1e-9 {
        return normalize_f64(a);
    }
    let wa = ((1.0 - u) * theta).sin() / theta.sin();
    let wb = sign * (u * theta).sin() / theta.sin();
    normalize_f64(
        &a.iter()
            .zip(b)
            .map(|(x, y)| wa * x + wb * y)
            .collect::<Vec<_>>(),
    )
}

/// Evaluates `sampler` at `t` in f64, independently of the library: a linear scan for the key
/// interval, then STEP, LINEAR (slerp for rotations) or the CUBICSPLINE formula of glTF 2.0
/// Appendix C with the tangents scaled by the key interval. Before the first key and after the
/// last the end values hold.
pub fn sample_f64(sampler: &Sampler, t: f32, is_rotation: bool) -> Vec<f64> {
    let input = sampler.input();
    let output = sampler.output();
    let c = sampler.components();
    let per_key = match sampler.interpolation() {
        Interpolation::CubicSpline => 3,
        Interpolation::Step | Interpolation::Linear => 1,
    };
    let element = |k: usize, slot: usize| -> Vec<f64> {
        let at = (k * per_key + slot) * c;
        output[at..at + c].iter().map(|&v| f64::from(v)).collect()
    };
    let value_slot = if per_key == 3 { 1 } else { 0 };
    let last = input.len() - 1;
    let t = f64::from(t);
    let v = if t.is_nan() || t <= f64::from(input[0]) {
        element(0, value_slot)
    } else if t >= f64::from(input[last]) {
        element(last, value_slot)
    } else {
        let k = (0..last).rev().find(|&k| f64::from(input[k]) <= t).unwrap();
        let t0 = f64::from(input[k]);
        let td = f64::from(input[k + 1]) - t0;
        let u = (t - t0) / td;
        match sampler.interpolation() {
            Interpolation::Step => element(k, 0),
            Interpolation::Linear if is_rotation => {
                slerp_f64(&element(k, 0), &element(k + 1, 0), u)
            }
            Interpolation::Linear => element(k, 0)
                .iter()
                .zip(element(k + 1, 0))
                .map(|(a, b)| a + (b - a) * u)
                .collect(),
            Interpolation::CubicSpline => {
                let (u2, u3) = (u * u, u * u * u);
                let vk = element(k, 1);
                let bk = element(k, 2);
                let vk1 = element(k + 1, 1);
                let ak1 = element(k + 1, 0);
                (0..c)
                    .map(|i| {
                        (2.0 * u3 - 3.0 * u2 + 1.0) * vk[i]
                            + td * (u3 - 2.0 * u2 + u) * bk[i]
                            + (-2.0 * u3 + 3.0 * u2) * vk1[i]
                            + td * (u3 - u2) * ak1[i]
                    })
                    .collect()
            }
        }
    };
    if is_rotation { normalize_f64(&v) } else { v }
}

/// A node's TRS in f64.
#[derive(Debug, Clone, Copy)]
pub struct Trs64 {
    /// Translation.
    pub t: [f64; 3],
    /// Rotation `[x, y, z, w]`.
    pub r: [f64; 4],
    /// Scale.
    pub s: [f64; 3],
}

/// The animated TRS of every node and the morph weights of every binding: rest values, then
/// every channel of `clip` in channel order (a later channel on the same property wins).
pub fn pose_f64(data: &AnimationData, clip: Option<usize>, t: f32) -> (Vec<Trs64>, Vec<Vec<f64>>) {
    let mut trs: Vec<Trs64> = data
        .nodes
        .iter()
        .map(|n| Trs64 {
            t: n.translation.map(f64::from),
            r: n.rotation.map(f64::from),
            s: n.scale.map(f64::from),
        })
        .collect();
    let mut weights: Vec<Vec<f64>> = data
        .morph_bindings
        .iter()
        .map(|m| m.default_weights.iter().map(|&w| f64::from(w)).collect())
        .collect();
    if let Some(c) = clip {
        let clip = &data.clips[c];
        for ch in &clip.channels {
            let sampler = &clip.samplers[ch.sampler];
            let v = sample_f64(sampler, t, ch.path == ChannelPath::Rotation);
            let node = &mut trs[ch.node];
            match ch.path {
                ChannelPath::Translation => node.t = [v[0], v[1], v[2]],
                ChannelPath::Rotation => node.r = [v[0], v[1], v[2], v[3]],
                ChannelPath::Scale => node.s = [v[0], v[1], v[2]],
                ChannelPath::Weights => {
                    for (mb, w) in data.morph_bindings.iter().zip(&mut weights) {
                        if mb.node == ch.node {
                            let count = w.len();
                            w.copy_from_slice(&v[..count]);
                        }
                    }
                }
            }
        }
    }
    (trs, weights)
}

/// World matrices by recursion over parent links (memoised): `world(n) = world(parent) ·
/// local(n)`, roots `H · local` with `H = diag(-1, 1, 1, 1)` when left-handed.
pub fn world_f64(data: &AnimationData, trs: &[Trs64]) -> Vec<M64> {
    fn world(n: usize, data: &AnimationData, trs: &[Trs64], memo: &mut Vec<Option<M64>>) -> M64 {
        if let Some(m) = memo[n] {
            return m;
        }
        let local = compose_f64(trs[n].t, trs[n].r, trs[n].s);
        let parent = match data.nodes[n].parent {
            Some(p) => world(p, data, trs, memo),
            None => match data.handedness {
                Handedness::LeftHanded => MIRROR_X64,
                Handedness::RightHanded => I64,
            },
        };
        let m = mul_f64(&parent, &local);
        memo[n] = Some(m);
        m
    }
    let mut memo = vec![None; data.nodes.len()];
    (0..data.nodes.len())
        .map(|n| world(n, data, trs, &mut memo))
        .collect()
}

/// Bone matrices `inverse(world[mesh]) · world[joint] · inverseBind` of every binding.
pub fn bones_f64(data: &AnimationData, world: &[M64]) -> Vec<Vec<M64>> {
    data.skeletons
        .iter()
        .map(|sk| {
            let inv_mesh = invert_f64(&world[sk.mesh_node]);
            sk.joints
                .iter()
                .enumerate()
                .map(|(i, &j)| {
                    let ibm: M64 =
                        std::array::from_fn(|k| f64::from(sk.inverse_bind_matrices[i * 16 + k]));
                    mul_f64(&mul_f64(&inv_mesh, &world[j]), &ibm)
                })
                .collect()
        })
        .collect()
}

/// Rest-pose world matrices in glTF's own (right-handed) space, whatever `data.handedness`
/// says: what a glTF exporter inverts to get the inverse bind matrices.
pub fn rest_world_gltf_f64(data: &AnimationData) -> Vec<M64> {
    let mut rh = data.clone();
    rh.handedness = Handedness::RightHanded;
    rh.clips.clear();
    let (trs, _) = pose_f64(&rh, None, 0.0);
    world_f64(&rh, &trs)
}

/// Inverse bind matrices that invert each joint's rest world (glTF space), flattened.
pub fn inverse_binds_of_rest(data: &AnimationData, joints: &[usize]) -> Vec<f32> {
    let world = rest_world_gltf_f64(data);
    joints
        .iter()
        .flat_map(|&j| to_f32(&invert_f64(&world[j])))
        .collect()
}

/// A tiny deterministic generator (xorshift64*) for building rigs without proptest.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
        #[expect(clippy::cast_precision_loss, reason = "24 random bits fit an f32")]
        let unit = bits as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// A unit quaternion.
    pub fn quat(&mut self) -> [f32; 4] {
        loop {
            let q = [0; 4].map(|_| self.range(-1.0, 1.0));
            let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            if n > 0.2 {
                return q.map(|v| v / n);
            }
        }
    }
}

fn keys(rng: &mut Rng, count: usize, start: f32) -> Vec<f32> {
    let mut t = start;
    (0..count)
        .map(|_| {
            let k = t;
            t += rng.range(0.1, 0.5);
            k
        })
        .collect()
}

/// Values for one sampler: `count` keys of `components` floats (× 3 for CUBICSPLINE), made by
/// `value` for values and `tangent` for tangents.
fn values(
    count: usize,
    interpolation: Interpolation,
    mut value: impl FnMut() -> Vec<f32>,
    mut tangent: impl FnMut() -> Vec<f32>,
) -> Vec<f32> {
    let mut out = Vec::new();
    for _ in 0..count {
        if interpolation == Interpolation::CubicSpline {
            out.extend(tangent());
            out.extend(value());
            out.extend(tangent());
        } else {
            out.extend(value());
        }
    }
    out
}

/// A generated skinned, morphed rig: node 0 is the mesh (a root with `morph_targets` targets),
/// nodes `1..=joint_count` the joints of a branching tree, stored children-first in places so
/// that array order is not a topological order. One clip animates translation, rotation and
/// scale of every joint (interpolations rotate through STEP, LINEAR and CUBICSPLINE) and the
/// mesh's morph weights. Inverse binds invert the rest joint worlds.
pub fn generated_rig(joint_count: usize, morph_targets: usize, seed: u64) -> AnimationData {
    let mut rng = Rng::new(seed);
    // Joint j (0-based) of the tree hangs under joint parent_of(j) < j; storing joint j at node
    // index 1 + (joint_count - 1 - j) puts every child before its parent in the array.
    let node_of = |j: usize| 1 + (joint_count - 1 - j);
    let parent_of = |j: usize| if j.is_multiple_of(5) { j / 3 } else { j - 1 };
    let mut nodes = vec![NodeRest::new("mesh", None); joint_count + 1];
    for j in 0..joint_count {
        let mut n = NodeRest::new(format!("joint{j}"), (j > 0).then(|| node_of(parent_of(j))));
        n.translation = [
            rng.range(-1.0, 1.0),
            rng.range(0.2, 1.0),
            rng.range(-1.0, 1.0),
        ];
        n.rotation = rng.quat();
        n.scale = [
            rng.range(0.8, 1.2),
            rng.range(0.8, 1.2),
            rng.range(0.8, 1.2),
        ];
        nodes[node_of(j)] = n;
    }
    let interps = [
        Interpolation::Linear,
        Interpolation::Step,
        Interpolation::CubicSpline,
    ];
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for j in 0..joint_count {
        let node = node_of(j);
        for (p, path) in [
            ChannelPath::Translation,
            ChannelPath::Rotation,
            ChannelPath::Scale,
        ]
        .into_iter()
        .enumerate()
        {
            let interpolation = interps[(j + p) % 3];
            let count = 2 + (j + p) % 7;
            let start = rng.range(0.0, 0.2);
            let input = keys(&mut rng, count, start);
            let mut r2 = rng.clone();
            // Consecutive rotation keys in one hemisphere keep CUBICSPLINE rotations away from
            // the zero quaternion.
            let mut prev = [0.0, 0.0, 0.0, 1.0_f32];
            let output = match path {
                ChannelPath::Translation => values(
                    count,
                    interpolation,
                    || {
                        vec![
                            rng.range(-1.0, 1.0),
                            rng.range(0.0, 1.0),
                            rng.range(-1.0, 1.0),
                        ]
                    },
                    || vec![r2.range(-1.0, 1.0); 3],
                ),
                ChannelPath::Rotation => values(
                    count,
                    interpolation,
                    || {
                        let mut q = rng.quat();
                        if q.iter().zip(prev).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                            q = q.map(|v| -v);
                        }
                        prev = q;
                        q.to_vec()
                    },
                    || vec![r2.range(-0.2, 0.2); 4],
                ),
                _ => values(
                    count,
                    interpolation,
                    || vec![rng.range(0.7, 1.3); 3],
                    || vec![r2.range(-0.3, 0.3); 3],
                ),
            };
            channels.push(Channel {
                sampler: samplers.len(),
                node,
                path,
            });
            samplers.push(Sampler::new(input, output, interpolation).unwrap());
        }
    }
    if morph_targets > 0 {
        let count = 5;
        let input = keys(&mut rng, count, 0.0);
        let output = (0..count * morph_targets)
            .map(|_| rng.range(0.0, 1.0))
            .collect();
        channels.push(Channel {
            sampler: samplers.len(),
            node: 0,
            path: ChannelPath::Weights,
        });
        samplers.push(Sampler::new(input, output, Interpolation::Linear).unwrap());
    }
    let mut data = AnimationData {
        nodes,
        clips: vec![Clip::new("generated", samplers, channels)],
        skeletons: vec![],
        morph_bindings: if morph_targets > 0 {
            vec![MorphBinding {
                node: 0,
                default_weights: vec![0.0; morph_targets],
            }]
        } else {
            vec![]
        },
        handedness: Handedness::LeftHanded,
    };
    let joints: Vec<usize> = (0..joint_count).map(node_of).collect();
    let ibm = inverse_binds_of_rest(&data, &joints);
    data.skeletons = vec![SkeletonBinding::new(0, 0, joints, ibm).unwrap()];
    data
}

// ---------------------------------------------------------------------------------------------
// proptest strategies
// ---------------------------------------------------------------------------------------------

/// Parent links of a random forest of 1..`max_nodes` nodes, in a shuffled node order (a child
/// may come before its parent in the array).
pub fn arb_forest(max_nodes: usize) -> impl Strategy<Value = Vec<Option<usize>>> {
    (1..=max_nodes).prop_flat_map(|n| {
        (
            prop::collection::vec((any::<Index>(), prop::bool::weighted(0.15)), n),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        )
            .prop_map(|(links, perm)| {
                // In canonical order node i hangs under some node < i (or is a root); perm[i]
                // is where canonical node i is stored.
                let mut parents = vec![None; links.len()];
                for (i, (pick, root)) in links.iter().enumerate() {
                    let parent = (i > 0 && !root).then(|| pick.index(i));
                    parents[perm[i]] = parent.map(|p| perm[p]);
                }
                parents
            })
    })
}

/// A unit quaternion (never degenerate).
pub fn arb_unit_quat() -> impl Strategy<Value = [f32; 4]> {
    prop::array::uniform4(-1.0_f32..1.0)
        .prop_filter("non-degenerate", |q| {
            q.iter().map(|v| v * v).sum::<f32>() > 0.04
        })
        .prop_map(|q| {
            let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            q.map(|v| v / n)
        })
}

/// A rest transform: translation in ±2, unit rotation, scale in [0.5, 1.5].
pub fn arb_rest() -> impl Strategy<Value = ([f32; 3], [f32; 4], [f32; 3])> {
    (
        prop::array::uniform3(-2.0_f32..2.0),
        arb_unit_quat(),
        prop::array::uniform3(0.5_f32..1.5),
    )
}

/// One of the three interpolations.
pub fn arb_interpolation() -> impl Strategy<Value = Interpolation> {
    prop_oneof![
        Just(Interpolation::Step),
        Just(Interpolation::Linear),
        Just(Interpolation::CubicSpline),
    ]
}

/// Key times: `count` strictly increasing times starting in [0, 1], gaps in [0.05, 1].
pub fn arb_key_times(count: usize) -> impl Strategy<Value = Vec<f32>> {
    (
        0.0_f32..1.0,
        prop::collection::vec(0.05_f32..1.0, count.saturating_sub(1)),
    )
        .prop_map(|(start, gaps)| {
            let mut t = start;
            let mut times = vec![t];
            for g in gaps {
                t += g;
                times.push(t);
            }
            times
        })
}

/// A random translation, rotation or scale channel (the node is picked later from `Index`).
#[derive(Debug, Clone)]
pub struct ChannelSpec {
    /// Which node, out of however many the rig has.
    pub node: Index,
    /// Translation, rotation or scale.
    pub path: ChannelPath,
    /// The sampler.
    pub sampler: Sampler,
}

/// A random TRS sampler for `path` with 1..6 keys and a random interpolation. Rotation values
/// are unit quaternions with random signs (a sign flip is the same rotation, so LINEAR must take
/// the short arc); for CUBICSPLINE they are kept in one hemisphere with small tangents so that
/// the spline never passes near the zero quaternion (where normalising is ill-conditioned).
pub fn arb_trs_sampler(path: ChannelPath) -> impl Strategy<Value = Sampler> {
    (arb_interpolation(), 1_usize..6).prop_flat_map(move |(interpolation, count)| {
        let components = if path == ChannelPath::Rotation { 4 } else { 3 };
        let per_key = interpolation.outputs_per_key();
        (
            arb_key_times(count),
            prop::collection::vec(arb_unit_quat(), count),
            prop::collection::vec(any::<bool>(), count),
            prop::collection::vec(-1.0_f32..1.0, count * per_key * components),
        )
            .prop_map(move |(times, quats, flips, raw)| {
                let mut output = Vec::with_capacity(raw.len());
                let mut prev: Option<[f32; 4]> = None;
                for k in 0..count {
                    for slot in 0..per_key {
                        let is_value = per_key == 1 || slot == 1;
                        let r = &raw[(k * per_key + slot) * components..][..components];
                        match path {
                            ChannelPath::Rotation if is_value => {
                                let mut q = quats[k];
                                let cubic = interpolation == Interpolation::CubicSpline;
                                let dot = prev.map_or(1.0, |p| {
                                    p.iter().zip(q).map(|(a, b)| a * b).sum::<f32>()
                                });
                                if (cubic && dot < 0.0) || (!cubic && flips[k]) {
                                    q = q.map(|v| -v);
                                }
                                prev = Some(q);
                                output.extend(q);
                            }
                            ChannelPath::Rotation => output.extend(r.iter().map(|v| v * 0.25)),
                            ChannelPath::Scale if is_value => {
                                output.extend(r.iter().map(|v| 1.0 + 0.5 * v));
                            }
                            _ if is_value => output.extend(r.iter().map(|v| 3.0 * v)),
                            _ => output.extend(r.iter().map(|v| 2.0 * v)),
                        }
                    }
                }
                Sampler::new(times, output, interpolation).unwrap()
            })
    })
}

/// A random TRS channel.
pub fn arb_channel() -> impl Strategy<Value = ChannelSpec> {
    prop_oneof![
        Just(ChannelPath::Translation),
        Just(ChannelPath::Rotation),
        Just(ChannelPath::Scale),
    ]
    .prop_flat_map(|path| {
        (any::<Index>(), arb_trs_sampler(path)).prop_map(move |(node, sampler)| ChannelSpec {
            node,
            path,
            sampler,
        })
    })
}

/// A random rig: a shuffled forest with random rest transforms, a random clip of up to
/// `max_channels` TRS channels, a skeleton binding over a random subset of the nodes with
/// random inverse binds and a random mesh node, and a random handedness.
pub fn arb_animated_rig(
    max_nodes: usize,
    max_channels: usize,
) -> impl Strategy<Value = AnimationData> {
    arb_forest(max_nodes).prop_flat_map(move |parents| {
        let n = parents.len();
        (
            Just(parents),
            prop::collection::vec(arb_rest(), n),
            prop::collection::vec(arb_channel(), 0..=max_channels),
            prop::collection::vec(any::<Index>(), 1..6),
            prop::collection::vec(arb_rest(), 5),
            any::<Index>(),
            any::<bool>(),
        )
            .prop_map(
                |(parents, rests, specs, joint_picks, ibm_trs, mesh, left)| {
                    let n = parents.len();
                    let nodes = parents
                        .iter()
                        .zip(rests)
                        .enumerate()
                        .map(|(i, (&parent, (t, r, s)))| NodeRest {
                            name: format!("n{i}"),
                            parent,
                            translation: t,
                            rotation: r,
                            scale: s,
                        })
                        .collect();
                    let mut samplers = Vec::new();
                    let mut channels = Vec::new();
                    for spec in specs {
                        channels.push(Channel {
                            sampler: samplers.len(),
                            node: spec.node.index(n),
                            path: spec.path,
                        });
                        samplers.push(spec.sampler);
                    }
                    let joints: Vec<usize> = joint_picks.iter().map(|j| j.index(n)).collect();
                    let ibm = joints
                        .iter()
                        .enumerate()
                        .flat_map(|(i, _)| {
                            let (t, r, s) = ibm_trs[i % ibm_trs.len()];
                            to_f32(&compose_f32_in(t, r, s))
                        })
                        .collect();
                    AnimationData {
                        nodes,
                        clips: vec![Clip::new("random", samplers, channels)],
                        skeletons: vec![
                            SkeletonBinding::new(0, mesh.index(n), joints, ibm).unwrap(),
                        ],
                        morph_bindings: vec![],
                        handedness: if left {
                            Handedness::LeftHanded
                        } else {
                            Handedness::RightHanded
                        },
                    }
                },
            )
    })
}
