//! The four-node key block format and its reader: a quad (four nodes of the topological order,
//! one per lane) and its keys as rows of `Vec4`s, sampled at a key interval. What both four-node
//! passes (the single clip's in `pose/four_node.rs`, the layers' in `player/quad_mix.rs`) start
//! from; `compile/four_node.rs` builds the blocks.

use glam::{BVec4A, Vec4};
use skel_math::lanes::{Quatx4, Vec3x4};

use crate::data::NONE;
use crate::math::interpolate;
use crate::sample::cursor::Segment;

/// Rows per key of a quad: translation `x, y, z`, scale `x, y, z`, rotation `x, y, z, w`, each
/// a `Vec4` with one node per lane.
pub(crate) const ROWS: usize = 10;
pub(crate) const T_ROWS: usize = 0;
pub(crate) const S_ROWS: usize = 3;
pub(crate) const R_ROWS: usize = 6;

/// Four consecutive nodes of the topological order (fewer in the last quad).
#[derive(Debug, Clone)]
pub(crate) struct Quad {
    pub(crate) nodes: [u32; 4],
    pub(crate) parents: [u32; 4],
    pub(crate) lanes: usize,
    /// The key-time array all of the quad's tracks use, [`NONE`] when nothing in it is keyed
    /// (one key of rest values).
    pub(crate) timeline: u32,
    /// Where the quad's keys start in `QuadPlan::keys` (`ROWS` vectors per key).
    pub(crate) first: usize,
    /// Lanes whose translation / scale takes key `a` as it is: STEP tracks and untracked
    /// properties (rest values repeated in every key).
    pub(crate) t_hold: BVec4A,
    pub(crate) s_hold: BVec4A,
    /// Lanes whose rotation is STEP (key `a`, normalised, as the scalar path does).
    pub(crate) r_step: BVec4A,
    /// Lanes whose rotation is not keyed: the rest value, not normalised (as the scalar path).
    pub(crate) r_rest: BVec4A,
    /// Whether every lane's translation / scale / rotation is the same at every time (untracked,
    /// or keys all equal bit for bit): the frame takes [`Quad::held`] for those rows instead of
    /// loading and interpolating keys.
    pub(crate) t_const: bool,
    pub(crate) s_const: bool,
    pub(crate) r_const: bool,
    /// The rows every time gives where they are constant (`ROWS` rows as in the keys), bit for
    /// bit what sampling them would give: a lerp of equal keys is the key plus zero, a slerp of
    /// equal keys the normalised key (`interpolate::slerp`).
    pub(crate) held: [Vec4; ROWS],
    /// Where everything is constant: index of the quad's local matrices in
    /// `QuadPlan::fixed`, computed once; [`NONE`] otherwise.
    pub(crate) fixed: u32,
    /// Lanes whose translation / scale / rotation the clip keys (a track, STEP or not): what a
    /// layer of the clip contributes to; untracked lanes hold rest values it must not blend.
    pub(crate) t_keyed: BVec4A,
    pub(crate) s_keyed: BVec4A,
    pub(crate) r_keyed: BVec4A,
}

/// Four nodes' values in the rows of a quad key (`ROWS` vectors, one node per lane).
pub(crate) type QuadRows = [Vec4; ROWS];

/// Four nodes' transforms.
#[derive(Clone, Copy)]
pub(crate) struct Lanes {
    pub(crate) t: Vec3x4,
    pub(crate) r: Quatx4,
    pub(crate) s: Vec3x4,
}

impl Lanes {
    #[inline(always)]
    pub(crate) fn from_rows(h: &QuadRows) -> Self {
        Self {
            t: Vec3x4::new(h[T_ROWS], h[T_ROWS + 1], h[T_ROWS + 2]),
            r: Quatx4::new(h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3]),
            s: Vec3x4::new(h[S_ROWS], h[S_ROWS + 1], h[S_ROWS + 2]),
        }
    }
}

/// How a sample interpolates rotations: [`SLERP`], [`DIFFERENCES`] or [`NLERP`].
pub(crate) type Rot = u8;
/// The polynomial slerp, normalised (what every lossless pass plays).
pub(crate) const SLERP: Rot = 0;
/// The polynomial slerp not normalised: an additive layer's differences (unit within 2e-7;
/// the layer normalises the product they go into).
pub(crate) const DIFFERENCES: Rot = 1;
/// The normalised lerp (ozz-animation's rule): compressed clips whose error allows it.
pub(crate) const NLERP: Rot = 2;

/// Quad `q`'s transforms (its keys in `keys`) at the key intervals `segments`: held rows where
/// constant, the lerp (translation, scale) and polynomial slerp (rotation) of the interval's
/// keys elsewhere, STEP and untracked lanes as key `a`. Lane by lane bit for bit the
/// array-of-structures pass's values.
#[inline(always)]
pub(crate) fn sample(keys: &[Vec4], q: &Quad, segments: &[Segment]) -> Lanes {
    sample_keys::<SLERP>(keys, q, segments)
}

/// [`sample`] for an additive layer's differences: the rotations' slerps not normalised (unit
/// within 2e-7; the layer normalises the product they go into).
#[inline(always)]
pub(crate) fn sample_differences(keys: &[Vec4], q: &Quad, segments: &[Segment]) -> Lanes {
    sample_keys::<DIFFERENCES>(keys, q, segments)
}

/// The key interval of quad `q` in `segments` (key 0 for a quad without keys).
#[inline(always)]
pub(crate) fn segment_of(q: &Quad, segments: &[Segment]) -> Segment {
    if q.timeline == NONE {
        Segment::default()
    } else {
        segments[q.timeline as usize]
    }
}

/// [`sample`] from f32 keys, rotations by `ROT`.
#[inline(always)]
fn sample_keys<const ROT: Rot>(keys: &[Vec4], q: &Quad, segments: &[Segment]) -> Lanes {
    if q.fixed != NONE {
        return Lanes::from_rows(&q.held);
    }
    let seg = segment_of(q, segments);
    let a: &QuadRows = keys[q.first + seg.a as usize * ROWS..][..ROWS]
        .try_into()
        .unwrap_or_else(|_| unreachable!());
    let b: &QuadRows = keys[q.first + seg.b as usize * ROWS..][..ROWS]
        .try_into()
        .unwrap_or_else(|_| unreachable!());
    sample_rows::<ROT>(&RowPair { a, b }, q, seg)
}

/// The two keys of a quad's interval, read one group of rows at a time (a group is only read
/// where it moves): f32 rows as they are ([`RowPair`]), or compressed ones decoded
/// (`packed::PackedPair`).
pub(crate) trait KeyPair {
    /// Rows `FIRST..FIRST + R` of key `a` and of key `b`.
    fn rows<const FIRST: usize, const R: usize>(&self) -> ([Vec4; R], [Vec4; R]);
}

/// Two f32 keys of [`ROWS`] rows.
pub(crate) struct RowPair<'k> {
    pub(crate) a: &'k QuadRows,
    pub(crate) b: &'k QuadRows,
}

impl KeyPair for RowPair<'_> {
    #[inline(always)]
    fn rows<const FIRST: usize, const R: usize>(&self) -> ([Vec4; R], [Vec4; R]) {
        (
            std::array::from_fn(|c| self.a[FIRST + c]),
            std::array::from_fn(|c| self.b[FIRST + c]),
        )
    }
}

/// Translation or scale (rows `FIRST..FIRST + 3`) of quad `q` at `s`: held where constant,
/// key `a` in `hold` lanes, the lerp elsewhere.
#[inline(always)]
fn vec3<const FIRST: usize>(
    keys: &impl KeyPair,
    q: &Quad,
    hold: BVec4A,
    constant: bool,
    s: Vec4,
) -> Vec3x4 {
    let h = &q.held;
    if constant {
        return Vec3x4::new(h[FIRST], h[FIRST + 1], h[FIRST + 2]);
    }
    let (a, b) = keys.rows::<FIRST, 3>();
    let a = Vec3x4::new(a[0], a[1], a[2]);
    let b = Vec3x4::new(b[0], b[1], b[2]);
    let lerped = Vec3x4::lerp(a, b, s);
    if hold.any() {
        Vec3x4::select(hold, a, lerped)
    } else {
        lerped
    }
}

/// Quad `q`'s transforms between the two keys of `keys` at `seg.s` (rows of constant groups
/// are not read), rotations by `ROT`.
#[inline(always)]
pub(crate) fn sample_rows<const ROT: Rot>(keys: &impl KeyPair, q: &Quad, seg: Segment) -> Lanes {
    let h = &q.held;
    let s = Vec4::splat(seg.s);
    let r = if q.r_const {
        Quatx4::new(h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3])
    } else {
        let (ra, rb) = keys.rows::<R_ROWS, 4>();
        let copy = q.r_step | BVec4A::splat(seg.a == seg.b);
        let interpolated = Quatx4::from_rows(match ROT {
            SLERP => interpolate::slerp_soa(ra, rb, s, copy),
            DIFFERENCES => interpolate::slerp_soa_unnormalized(ra, rb, s, copy),
            _ => interpolate::nlerp_soa(ra, rb, s, copy),
        });
        if q.r_rest.any() {
            Quatx4::select(q.r_rest, Quatx4::from_rows(ra), interpolated)
        } else {
            interpolated
        }
    };
    Lanes {
        t: vec3::<T_ROWS>(keys, q, q.t_hold, q.t_const, s),
        r,
        s: vec3::<S_ROWS>(keys, q, q.s_hold, q.s_const, s),
    }
}
