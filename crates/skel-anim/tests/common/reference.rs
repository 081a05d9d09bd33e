//! f64 reference implementations of the pose math, written independently of the library,
//! straight from the glTF 2.0 formulas.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel_anim::{AnimationData, ChannelPath, Handedness, Interpolation, Sampler};

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

/// A matrix as its 16 column-major floats: a `Mat4`, or a slice of 16 floats.
pub trait Floats {
    /// The floats.
    fn floats(&self) -> &[f32];
}

impl Floats for [f32] {
    fn floats(&self) -> &[f32] {
        self
    }
}

impl Floats for skel_anim::glam::Mat4 {
    fn floats(&self) -> &[f32] {
        self.as_ref()
    }
}

/// Largest absolute difference between an f32 matrix and an f64 one.
pub fn max_diff(got: &(impl Floats + ?Sized), want: &M64) -> f64 {
    let got = got.floats();
    assert_eq!(got.len(), 16, "a matrix is 16 floats");
    got.iter()
        .zip(want)
        .map(|(&g, &w)| (f64::from(g) - w).abs())
        .fold(0.0, f64::max)
}

/// Asserts that `got` is within `tol` of `want` in every element.
#[track_caller]
pub fn assert_mat_close(got: &(impl Floats + ?Sized), want: &M64, tol: f64, what: &str) {
    let d = max_diff(got, want);
    let got = got.floats();
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

/// Spherical linear interpolation in f64 along the short arc, of the keys made unit first (f32
/// keys a few ulps off unit length put their dot product past 1, where `acos` would see no
/// turn at all: CesiumMan's torso keys); the normalised lerp where the turn is too small for
/// `sin θ` to divide by.
pub fn slerp_f64(a: &[f64], b: &[f64], u: f64) -> Vec<f64> {
    let (a, b) = (&normalize_f64(a)[..], &normalize_f64(b)[..]);
    let mut cos = dot(a, b);
    let sign = if cos < 0.0 { -1.0 } else { 1.0 };
    cos *= sign;
    let theta = cos.min(1.0).acos();
    let (wa, wb) = if theta < 1e-9 {
        (1.0 - u, sign * u)
    } else {
        (
            ((1.0 - u) * theta).sin() / theta.sin(),
            sign * (u * theta).sin() / theta.sin(),
        )
    };
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

/// Matrices as their 16 column-major floats each, for comparing against f64 references.
pub fn flat(m: &[skel_anim::glam::Mat4]) -> &[f32] {
    bytemuck::cast_slice(m)
}
