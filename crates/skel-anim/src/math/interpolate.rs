//! The arithmetic of the pose hot path on SIMD registers: key interpolation (a polynomial
//! slerp), TRS → matrix composition and affine matrix products.
//!
//! Matrices here are four `Vec4` columns, column-major like everything else in skel. Products of
//! two matrices whose last row is `(0, 0, 0, 1)` (every node transform built from TRS, and almost
//! every inverse-bind matrix) skip that row: 12 multiply-adds of columns instead of 16.

use glam::{BVec4A, Mat4, Vec4};

/// `m`'s matrices as the 16 column-major floats each that the passes read and write: a free
/// view (a `Mat4` is sixteen `f32`s, 16-byte aligned).
#[inline(always)]
#[must_use]
pub(crate) fn floats(m: &[Mat4]) -> &[f32] {
    // Through `[f32; 16]` rows (the same size, so the length is kept, not recomputed from
    // bytes), then flattened.
    bytemuck::cast_slice::<Mat4, [f32; 16]>(m).as_flattened()
}

/// [`floats`] for writing.
#[inline(always)]
#[must_use]
pub(crate) fn floats_mut(m: &mut [Mat4]) -> &mut [f32] {
    bytemuck::cast_slice_mut::<Mat4, [f32; 16]>(m).as_flattened_mut()
}

/// Four columns of a column-major 4×4 matrix.
pub(crate) type Cols = [Vec4; 4];

/// `cos θ` from which [`slerp_weights`] uses the polynomial (θ ≤ 25.8°, i.e. key rotations up to
/// 51.7° apart); below it the weights come from `acos` and `sin`.
pub(crate) const POLY_SLERP_MIN_COS: f32 = 0.9;

/// Coefficients `u_i = 1 / (i (2i + 1))` and `v_i = i / (2i + 1)`, i = 1..4, of Eberly's series
/// for `sin(tθ) / sin θ` in powers of `cos θ − 1` ("A Fast and Accurate Algorithm for Computing
/// SLERP", Journal of Graphics, GPU, and Game Tools 15(3), 2011).
const U: [f32; 4] = [1.0 / 3.0, 1.0 / 10.0, 1.0 / 21.0, 1.0 / 36.0];
const V: [f32; 4] = [1.0 / 3.0, 2.0 / 5.0, 3.0 / 7.0, 4.0 / 9.0];

/// `sin(tθ) / sin θ` for `x = cos θ ≥ 0.9` by four terms of Eberly's series (truncation error
/// below 5e-8 there; see the tests).
#[inline]
#[must_use]
fn sin_ratio(x_minus_1: f32, t: f32) -> f32 {
    let t2 = t * t;
    let mut r = 1.0;
    r = 1.0 + r * (U[3] * t2 - V[3]) * x_minus_1;
    r = 1.0 + r * (U[2] * t2 - V[2]) * x_minus_1;
    r = 1.0 + r * (U[1] * t2 - V[1]) * x_minus_1;
    r = 1.0 + r * (U[0] * t2 - V[0]) * x_minus_1;
    t * r
}

/// The slerp weights `(sin((1−t)θ) / sin θ, sin(tθ) / sin θ)` for `cos = cos θ ∈ [0, 1]`: by
/// the polynomial from [`POLY_SLERP_MIN_COS`] up, by `acos`/`sin` below, and `(1 − t, t)` (lerp)
/// when θ is too small for `sin θ` to divide by.
#[inline]
#[must_use]
pub(crate) fn slerp_weights(cos: f32, t: f32) -> (f32, f32) {
    if cos >= POLY_SLERP_MIN_COS {
        let xm1 = cos - 1.0;
        (sin_ratio(xm1, 1.0 - t), sin_ratio(xm1, t))
    } else {
        let theta = cos.max(-1.0).acos();
        let sin = theta.sin();
        (((1.0 - t) * theta).sin() / sin, (t * theta).sin() / sin)
    }
}

/// Shortest-path slerp of unit quaternions `a` → `b` by `t`, normalised (a zero or non-finite
/// result becomes the identity, as [`skel_math::normalize_quat_into`] does).
#[inline]
#[must_use]
pub(crate) fn slerp(a: Vec4, b: Vec4, t: f32) -> Vec4 {
    if a == b {
        // Equal keys (a constant track): the copy, exactly, whatever `t`. The quad pass holds
        // constant tracks at this value without sampling them.
        return normalize_quat(a);
    }
    let cos = a.dot(b);
    let (b, cos) = if cos < 0.0 { (-b, -cos) } else { (b, cos) };
    let (wa, wb) = slerp_weights(cos, t);
    normalize_quat(a * wa + b * wb)
}

/// [`slerp`] of four key pairs at once, lanes in registers (structure of arrays): lane `i` of
/// the result is bit for bit `slerp(a[i], b[i], s[i])`, or `normalize_quat(a[i])` where
/// `copy[i]` (STEP keys, or a time clamped to an end key) or `a[i] == b[i]`, because every lane runs the scalar
/// version's operations in the scalar version's order.
#[inline]
#[must_use]
pub(crate) fn slerp4(a: [Vec4; 4], b: [Vec4; 4], s: Vec4, copy: BVec4A) -> [Vec4; 4] {
    transpose(slerp_soa(transpose(a), transpose(b), s, copy))
}

/// The 4×4 transpose of four `Vec4`s: quaternions (or columns) per lane ↔ components per lane.
#[inline]
#[must_use]
pub(crate) fn transpose(v: [Vec4; 4]) -> [Vec4; 4] {
    let t = Mat4::from_cols(v[0], v[1], v[2], v[3]).transpose();
    [t.x_axis, t.y_axis, t.z_axis, t.w_axis]
}

/// [`slerp4`] on quaternions already split into components (`a = [x, y, z, w]`, one lane per
/// key pair) and returning them so: what the structure-of-arrays pose pass feeds straight into
/// [`compose_soa`], with no transposes.
#[inline(always)]
#[must_use]
pub(crate) fn slerp_soa(a: [Vec4; 4], b: [Vec4; 4], s: Vec4, copy: BVec4A) -> [Vec4; 4] {
    normalize_quat_soa(slerp_soa_unnormalized(a, b, s, copy))
}

/// [`slerp_soa`] before its normalisation: unit within 2e-7 for unit keys (the polynomial's
/// weights are that close to the exact ones), for a caller that normalises a product of it
/// anyway (an additive layer's differences).
#[inline(always)]
#[must_use]
pub(crate) fn slerp_soa_unnormalized(
    a: [Vec4; 4],
    b: [Vec4; 4],
    s: Vec4,
    copy: BVec4A,
) -> [Vec4; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    // Equal keys copy, as in `slerp`.
    let copy = copy | (ax.cmpeq(bx) & ay.cmpeq(by) & az.cmpeq(bz) & aw.cmpeq(bw));
    // glam's Vec4::dot adds (x + z) + (y + w).
    let cos = (ax * bx + az * bz) + (ay * by + aw * bw);
    let flip = cos.cmplt(Vec4::ZERO);
    let cos = Vec4::select(flip, -cos, cos);
    let sign = Vec4::select(flip, Vec4::NEG_ONE, Vec4::ONE);
    let (wa, wb) = slerp_weights_soa(cos, s);
    let wa = Vec4::select(copy, Vec4::ONE, wa);
    // Negating b (the short way round) is the same as negating its weight.
    let wb = Vec4::select(copy, Vec4::ZERO, wb * sign);
    [
        ax * wa + bx * wb,
        ay * wa + by * wb,
        az * wa + bz * wb,
        aw * wa + bw * wb,
    ]
}

/// The normalised lerp of unit quaternions four at a time (ozz-animation's interpolation):
/// `normalize(a · (1 − s) ± b · s)`, `b` negated when on the other hemisphere, lanes in `copy`
/// (and equal keys) `a` normalised, as [`slerp_soa`]. Meets the slerp at `s = 0, ½, 1` and
/// strays by about `φ³/64` of the keys' angle `φ` a quarter of the way: only for compressed
/// clips whose measured error allows it.
#[inline(always)]
#[must_use]
pub(crate) fn nlerp_soa(a: [Vec4; 4], b: [Vec4; 4], s: Vec4, copy: BVec4A) -> [Vec4; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    let copy = copy | (ax.cmpeq(bx) & ay.cmpeq(by) & az.cmpeq(bz) & aw.cmpeq(bw));
    let cos = (ax * bx + az * bz) + (ay * by + aw * bw);
    let sign = Vec4::select(cos.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
    let wa = Vec4::select(copy, Vec4::ONE, Vec4::ONE - s);
    let wb = Vec4::select(copy, Vec4::ZERO, s * sign);
    normalize_quat_soa([
        ax * wa + bx * wb,
        ay * wa + by * wb,
        az * wa + bz * wb,
        aw * wa + bw * wb,
    ])
}

/// [`slerp_weights`] of four lanes: the polynomial where `cos ≥ POLY_SLERP_MIN_COS`, the
/// scalar function's other branches lane by lane elsewhere; the same bits as the scalar one.
#[inline(always)]
fn slerp_weights_soa(cos: Vec4, s: Vec4) -> (Vec4, Vec4) {
    let (mut wa, mut wb) = slerp_weights_soa_near(cos, s);
    let far = cos.cmplt(Vec4::splat(POLY_SLERP_MIN_COS));
    if far.any() {
        let (mut wa_l, mut wb_l) = (wa.to_array(), wb.to_array());
        let (c, t) = (cos.to_array(), s.to_array());
        for lane in 0..4 {
            if far.test(lane) {
                (wa_l[lane], wb_l[lane]) = slerp_weights(c[lane], t[lane]);
            }
        }
        (wa, wb) = (Vec4::from_array(wa_l), Vec4::from_array(wb_l));
    }
    (wa, wb)
}

/// The polynomial of [`slerp_weights_soa`] in every lane (meaningful where
/// `cos ≥ POLY_SLERP_MIN_COS`).
#[inline(always)]
pub(crate) fn slerp_weights_soa_near(cos: Vec4, s: Vec4) -> (Vec4, Vec4) {
    let xm1 = cos - Vec4::ONE;
    let ratio = |t: Vec4| {
        let t2 = t * t;
        let mut r = Vec4::ONE;
        r = Vec4::ONE + r * (Vec4::splat(U[3]) * t2 - Vec4::splat(V[3])) * xm1;
        r = Vec4::ONE + r * (Vec4::splat(U[2]) * t2 - Vec4::splat(V[2])) * xm1;
        r = Vec4::ONE + r * (Vec4::splat(U[1]) * t2 - Vec4::splat(V[1])) * xm1;
        r = Vec4::ONE + r * (Vec4::splat(U[0]) * t2 - Vec4::splat(V[0])) * xm1;
        t * r
    };
    (ratio(Vec4::ONE - s), ratio(s))
}

/// [`normalize_quat`]'s rule on four quaternions split into components, lane by lane (so the
/// lanes keep its bits): a slerp of unit keys is unit within rounding, and one Newton step from
/// 1 rescales it without the square root and division that were the slerp's slowest
/// instructions; zero or non-finite lanes become the identity.
#[inline(always)]
fn normalize_quat_soa([rx, ry, rz, rw]: [Vec4; 4]) -> [Vec4; 4] {
    let len_sq = (rx * rx + rz * rz) + (ry * ry + rw * rw);
    let near = (len_sq - Vec4::ONE).abs().cmple(Vec4::splat(NEWTON_BAND));
    let newton = Vec4::splat(1.5) - Vec4::splat(0.5) * len_sq;
    let ok = near | (len_sq.cmpgt(Vec4::ZERO) & len_sq.cmplt(Vec4::INFINITY));
    let inv = if near.all() {
        newton
    } else {
        Vec4::select(near, newton, Vec4::ONE / len_sq.map(f32::sqrt))
    };
    if ok.all() {
        return [rx * inv, ry * inv, rz * inv, rw * inv];
    }
    [
        Vec4::select(ok, rx * inv, Vec4::ZERO),
        Vec4::select(ok, ry * inv, Vec4::ZERO),
        Vec4::select(ok, rz * inv, Vec4::ZERO),
        Vec4::select(ok, rw * inv, Vec4::ONE),
    ]
}

/// How far `|q|²` may be from 1 for [`normalize_quat`] to rescale by one Newton step,
/// `q · (1.5 − 0.5 |q|²)`, instead of dividing by `|q|`: the step's relative error is
/// `3/8 (|q|² − 1)²`, at most 4e-9 here, far below f32 rounding.
pub(crate) const NEWTON_BAND: f32 = 1e-4;

/// `q / |q|`, or the identity for a zero or non-finite `q`. Near-unit quaternions (every slerp
/// of unit keys) are rescaled by one Newton step (see [`NEWTON_BAND`]), others divided.
#[inline]
#[must_use]
pub(crate) fn normalize_quat(q: Vec4) -> Vec4 {
    let len_sq = q.length_squared();
    if (len_sq - 1.0).abs() <= NEWTON_BAND {
        q * (1.5 - 0.5 * len_sq)
    } else if len_sq > 0.0 && len_sq.is_finite() {
        q * (1.0 / len_sq.sqrt())
    } else {
        Vec4::W
    }
}

/// `T · R · S` from a translation (`xyz` of `t`), a unit quaternion `[x, y, z, w]` and a scale
/// (`xyz` of `s`), with the last row exactly `(0, 0, 0, 1)`.
#[inline]
#[must_use]
pub(crate) fn compose(t: Vec4, q: Vec4, s: Vec4) -> Cols {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    [
        Vec4::new(1.0 - (yy + zz), xy + wz, xz - wy, 0.0) * s.x,
        Vec4::new(xy - wz, 1.0 - (xx + zz), yz + wx, 0.0) * s.y,
        Vec4::new(xz + wy, yz - wx, 1.0 - (xx + yy), 0.0) * s.z,
        Vec4::new(t.x, t.y, t.z, 1.0),
    ]
}

/// [`compose`] of four nodes at once: the rotation part is computed lane by lane (one node per
/// lane) and transposed back into columns; bit for bit the scalar version's results.
#[inline]
#[must_use]
pub(crate) fn compose4(t: &[Vec4; 4], q: &[Vec4; 4], s: &[Vec4; 4]) -> [Cols; 4] {
    let [tx, ty, tz, _] = transpose(*t);
    let [sx, sy, sz, _] = transpose(*s);
    compose_soa([tx, ty, tz], transpose(*q), [sx, sy, sz])
}

/// [`compose`] of four nodes given as components (`t = [x, y, z]`, `q = [x, y, z, w]`,
/// `s = [x, y, z]`, one node per lane); the result is per node, in columns. Bit for bit the
/// scalar version's results: every element sees the same operations in the same order.
#[inline]
#[must_use]
pub(crate) fn compose_soa(t: [Vec4; 3], q: [Vec4; 4], s: [Vec4; 3]) -> [Cols; 4] {
    let (e, zero) = compose_rows(t, q, s);
    let one = Vec4::ONE;
    let c0 = transpose([e[0][0], e[1][0], e[2][0], zero[0]]);
    let c1 = transpose([e[0][1], e[1][1], e[2][1], zero[1]]);
    let c2 = transpose([e[0][2], e[1][2], e[2][2], zero[2]]);
    let c3 = transpose([e[0][3], e[1][3], e[2][3], one]);
    [
        [c0[0], c1[0], c2[0], c3[0]],
        [c0[1], c1[1], c2[1], c3[1]],
        [c0[2], c1[2], c2[2], c3[2]],
        [c0[3], c1[3], c2[3], c3[3]],
    ]
}

/// The elements of [`compose_soa`]'s matrices without transposing them: `e[r][c]` holds row
/// `r`, column `c` of the four nodes' matrices (one node per lane), and `zero[c]` the last row's
/// columns 0–2 (`0 · s`, a signed zero). What a product with a parent on the left needs: each
/// element broadcast from its lane.
#[inline]
#[must_use]
pub(crate) fn compose_rows(
    t: [Vec4; 3],
    q: [Vec4; 4],
    s: [Vec4; 3],
) -> ([[Vec4; 4]; 3], [Vec4; 3]) {
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let one = Vec4::ONE;
    let [sx, sy, sz] = s;
    (
        [
            [(one - (yy + zz)) * sx, (xy - wz) * sy, (xz + wy) * sz, t[0]],
            [(xy + wz) * sx, (one - (xx + zz)) * sy, (yz - wx) * sz, t[1]],
            [(xz - wy) * sx, (yz + wx) * sy, (one - (xx + yy)) * sz, t[2]],
        ],
        [Vec4::ZERO * sx, Vec4::ZERO * sy, Vec4::ZERO * sz],
    )
}

/// `a · b` for matrices whose last row is `(0, 0, 0, 1)` (the result's is too).
#[inline]
#[must_use]
pub(crate) fn mul_affine(a: &Cols, b: &Cols) -> Cols {
    let col = |v: Vec4| a[0] * v.x + a[1] * v.y + a[2] * v.z;
    [col(b[0]), col(b[1]), col(b[2]), col(b[3]) + a[3]]
}

/// `a · b` for any matrices.
#[inline]
#[must_use]
pub(crate) fn mul_full(a: &Cols, b: &Cols) -> Cols {
    let m = Mat4::from_cols(a[0], a[1], a[2], a[3]) * Mat4::from_cols(b[0], b[1], b[2], b[3]);
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

/// A buffer of column-major 4×4 matrices (16 floats each: the layout of glTF, glam and WGSL
/// `mat4x4<f32>`) as matrices; a trailing partial matrix is not part of it.
#[inline(always)]
#[must_use]
pub(crate) fn matrices(buf: &[f32]) -> &[[f32; 16]] {
    buf.as_chunks::<16>().0
}

/// [`matrices`] for writing.
#[inline(always)]
#[must_use]
pub(crate) fn matrices_mut(buf: &mut [f32]) -> &mut [[f32; 16]] {
    buf.as_chunks_mut::<16>().0
}

/// A column-major matrix's 16 floats as columns.
#[inline]
#[must_use]
pub(crate) fn load(m: &[f32; 16]) -> Cols {
    [
        Vec4::from_slice(&m[0..4]),
        Vec4::from_slice(&m[4..8]),
        Vec4::from_slice(&m[8..12]),
        Vec4::from_slice(&m[12..16]),
    ]
}

/// Writes `m` as a column-major matrix's 16 floats.
#[inline]
pub(crate) fn store(d: &mut [f32; 16], m: &Cols) {
    m[0].write_to_slice(&mut d[0..4]);
    m[1].write_to_slice(&mut d[4..8]);
    m[2].write_to_slice(&mut d[8..12]);
    m[3].write_to_slice(&mut d[12..16]);
}

/// Whether the last row of `m` is exactly `(0, 0, 0, 1)`.
#[inline]
#[must_use]
pub(crate) fn is_affine(m: &Cols) -> bool {
    m[0].w == 0.0 && m[1].w == 0.0 && m[2].w == 0.0 && m[3].w == 1.0
}

#[cfg(test)]
#[path = "interpolate_tests.rs"]
mod tests;
