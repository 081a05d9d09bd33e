//! Reading accessors into flat `f32`/`u32` arrays, for every component type glTF allows
//! (including `KHR_mesh_quantization`'s integer positions, normals and morph deltas), with
//! strides, sparse substitution, and every offset and count checked against the bytes that
//! exist before anything is allocated.

use gltf::json::accessor::{Accessor, ComponentType, Type};
use gltf::json::validation::Checked;

use crate::{GltfDocument, GltfError};

/// Most elements × components an accessor without a buffer view may declare: such an
/// accessor holds only zeros (plus sparse values), so its size is not backed by any bytes and
/// a larger count is treated as a malformed header rather than allocated.
pub(crate) const MAX_ZERO_FILLED_FLOATS: u64 = 1 << 24;

/// How integer components become floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntAs {
    /// As the accessor's `normalized` flag says (glTF 2.0 §3.6.2.3 for normalized ints).
    Flag,
    /// Always normalized (weights, rotations and normals are normalized when integer).
    Normalized,
}

/// Which accessors a use accepts: one type, a set of component types.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expect {
    pub ty: Type,
    pub components: &'static [ComponentType],
}

use ComponentType::{F32, I8, I16, U8, U16, U32};

/// `FLOAT` only.
pub(crate) const FLOAT: &[ComponentType] = &[F32];
/// Float and every integer type but `UNSIGNED_INT` (quantized positions and morph deltas,
/// texture coordinates).
pub(crate) const QUANTIZED: &[ComponentType] = &[F32, I8, U8, I16, U16];
/// Float or signed normalized integers (quantized normals, rotations).
pub(crate) const SIGNED_NORM: &[ComponentType] = &[F32, I8, I16];
/// Float or unsigned normalized integers (weights).
pub(crate) const UNSIGNED_NORM: &[ComponentType] = &[F32, U8, U16];
/// Float or any 8/16-bit normalized integer (animation rotation and weight outputs).
pub(crate) const ANY_NORM: &[ComponentType] = &[F32, I8, U8, I16, U16];
/// Joint indices.
pub(crate) const JOINT_INDEX: &[ComponentType] = &[U8, U16];
/// Vertex indices.
pub(crate) const VERTEX_INDEX: &[ComponentType] = &[U8, U16, U32];

fn component_name(c: ComponentType) -> &'static str {
    match c {
        I8 => "BYTE",
        U8 => "UNSIGNED_BYTE",
        I16 => "SHORT",
        U16 => "UNSIGNED_SHORT",
        U32 => "UNSIGNED_INT",
        F32 => "FLOAT",
    }
}

fn type_name(t: Type) -> &'static str {
    match t {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

fn expect_text(expect: Expect) -> String {
    let names: Vec<_> = expect
        .components
        .iter()
        .map(|&c| component_name(c))
        .collect();
    format!("{} of {}", type_name(expect.ty), names.join(" or "))
}

/// The value of a field the JSON parser recognised, `None` for an unknown enum value.
pub(crate) fn valid<T: Copy>(checked: &Checked<T>) -> Option<T> {
    match checked {
        Checked::Valid(v) => Some(*v),
        Checked::Invalid => None,
    }
}

/// The accessor's index-checked JSON.
pub(crate) fn accessor<'a>(
    doc: &'a GltfDocument,
    index: usize,
    used_by: &str,
) -> Result<&'a Accessor, GltfError> {
    doc.root
        .accessors
        .get(index)
        .ok_or_else(|| GltfError::MissingAccessor {
            used_by: used_by.to_owned(),
            accessor: index,
            accessor_count: doc.root.accessors.len(),
        })
}

/// The accessor's element count, checked to exist.
pub(crate) fn accessor_count(
    doc: &GltfDocument,
    index: usize,
    used_by: &str,
) -> Result<usize, GltfError> {
    let acc = accessor(doc, index, used_by)?;
    usize::try_from(acc.count.0).map_err(|_| GltfError::Invalid {
        path: format!("accessors[{index}].count"),
        reason: "does not fit in memory".into(),
    })
}

/// Checks accessor `accessor` has exactly `expected` elements (a vertex stream, a joint or
/// weight set: every one of a primitive's must have one element per vertex).
pub(crate) fn check_count(
    doc: &GltfDocument,
    accessor: usize,
    used_as: &str,
    expected: usize,
) -> Result<(), GltfError> {
    let got = accessor_count(doc, accessor, used_as)?;
    if got == expected {
        Ok(())
    } else {
        Err(GltfError::AccessorCount {
            accessor,
            used_as: used_as.to_owned(),
            expected,
            got,
        })
    }
}

/// One decoded component.
trait Component: Copy + Default {
    fn decode(ct: ComponentType, normalized: bool, bytes: &[u8]) -> Self;
}

impl Component for f32 {
    #[inline]
    fn decode(ct: ComponentType, normalized: bool, b: &[u8]) -> Self {
        match (ct, normalized) {
            (F32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            (I8, true) => (f32::from(b[0].cast_signed()) / 127.0).max(-1.0),
            (I8, false) => f32::from(b[0].cast_signed()),
            (U8, true) => f32::from(b[0]) / 255.0,
            (U8, false) => f32::from(b[0]),
            (I16, true) => (f32::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0),
            (I16, false) => f32::from(i16::from_le_bytes([b[0], b[1]])),
            (U16, true) => f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
            (U16, false) => f32::from(u16::from_le_bytes([b[0], b[1]])),
            #[expect(
                clippy::cast_precision_loss,
                reason = "glTF reads UNSIGNED_INT floats as f32"
            )]
            (U32, false) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
            #[expect(
                clippy::cast_precision_loss,
                reason = "normalized UNSIGNED_INT is lossy anyway"
            )]
            (U32, true) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32 / u32::MAX as f32,
        }
    }
}

impl Component for u32 {
    #[inline]
    fn decode(ct: ComponentType, _normalized: bool, b: &[u8]) -> Self {
        match ct {
            U8 => u32::from(b[0]),
            I8 => u32::from(b[0]),
            U16 | I16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            U32 | F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        }
    }
}

/// Reads accessor `index` as floats, `expect.ty.multiplicity()` per element, rejecting NaN
/// and infinities.
///
/// # Errors
/// Every accessor error: missing, wrong type, out of range, bad sparse part, not finite.
pub(crate) fn read_f32(
    doc: &GltfDocument,
    index: usize,
    used_as: &str,
    expect: Expect,
    int_as: IntAs,
) -> Result<Vec<f32>, GltfError> {
    let acc = accessor(doc, index, used_as)?;
    let force = int_as == IntAs::Normalized;
    let values: Vec<f32> = read_generic(doc, index, acc, used_as, expect, force)?;
    let n = expect.ty.multiplicity();
    if let Some(at) = values.iter().position(|v| !v.is_finite()) {
        return Err(GltfError::NotFinite {
            accessor: index,
            used_as: used_as.to_owned(),
            element: at / n,
        });
    }
    Ok(values)
}

/// Reads accessor `index` as unsigned integers (joint and vertex indices).
///
/// # Errors
/// Every accessor error: missing, wrong type, out of range, bad sparse part.
pub(crate) fn read_u32(
    doc: &GltfDocument,
    index: usize,
    used_as: &str,
    expect: Expect,
) -> Result<Vec<u32>, GltfError> {
    let acc = accessor(doc, index, used_as)?;
    read_generic(doc, index, acc, used_as, expect, false)
}

/// The bytes of buffer view `view`, checked to lie inside its buffer, and its stride.
pub(crate) fn view_bytes<'a>(
    doc: &'a GltfDocument,
    view: usize,
    used_by: &str,
) -> Result<(&'a [u8], Option<usize>), GltfError> {
    let v = doc
        .root
        .buffer_views
        .get(view)
        .ok_or_else(|| GltfError::BadReference {
            used_by: used_by.to_owned(),
            kind: "bufferView",
            index: view,
            count: doc.root.buffer_views.len(),
        })?;
    let buffer_index = v.buffer.value();
    let buffer = doc
        .buffers
        .get(buffer_index)
        .ok_or_else(|| GltfError::BadReference {
            used_by: format!("bufferViews[{view}]"),
            kind: "buffer",
            index: buffer_index,
            count: doc.buffers.len(),
        })?;
    let start = v.byte_offset.map_or(0, |o| o.0);
    let end = start.checked_add(v.byte_length.0);
    let range = end
        .filter(|&e| e <= buffer.len() as u64)
        .and_then(|e| Some(usize::try_from(start).ok()?..usize::try_from(e).ok()?));
    let Some(range) = range else {
        return Err(GltfError::BufferViewOutOfRange {
            view,
            buffer: buffer_index,
            start,
            end: end.unwrap_or(u64::MAX),
            buffer_len: buffer.len() as u64,
        });
    };
    Ok((&buffer[range], v.byte_stride.map(|s| s.0)))
}

/// Checks that `count` elements of `elem_size` bytes at `offset`, `stride` apart, fit in
/// `available` bytes; returns the stride.
fn check_fits(
    accessor: usize,
    view: usize,
    offset: u64,
    stride: usize,
    elem_size: usize,
    count: usize,
    available: usize,
) -> Result<(), GltfError> {
    let needed = if count == 0 {
        Some(offset)
    } else {
        (stride as u64)
            .checked_mul(count as u64 - 1)
            .and_then(|x| x.checked_add(elem_size as u64))
            .and_then(|x| x.checked_add(offset))
    };
    match needed {
        Some(n) if n <= available as u64 => Ok(()),
        _ => Err(GltfError::AccessorOutOfRange {
            accessor,
            view,
            needed: needed.unwrap_or(u64::MAX),
            available: available as u64,
        }),
    }
}

fn read_generic<T: Component>(
    doc: &GltfDocument,
    index: usize,
    acc: &Accessor,
    used_as: &str,
    expect: Expect,
    force_normalized: bool,
) -> Result<Vec<T>, GltfError> {
    let (Some(ty), Some(ct)) = (valid(&acc.type_), valid(&acc.component_type).map(|c| c.0)) else {
        return Err(GltfError::Invalid {
            path: format!("accessors[{index}]"),
            reason: "unknown type or componentType".into(),
        });
    };
    if ty != expect.ty || !expect.components.contains(&ct) {
        return Err(GltfError::AccessorType {
            accessor: index,
            used_as: used_as.to_owned(),
            expected: expect_text(expect),
            got: format!("{} of {}", type_name(ty), component_name(ct)),
        });
    }
    let normalized = acc.normalized || force_normalized;
    let count = accessor_count(doc, index, used_as)?;
    let n = ty.multiplicity();
    let csize = ct.size();
    let elem_size = n * csize;
    let mut out: Vec<T>;
    match acc.buffer_view {
        Some(view) => {
            let view = view.value();
            let (bytes, stride) = view_bytes(doc, view, &format!("accessors[{index}]"))?;
            let stride = stride.unwrap_or(elem_size);
            if stride < elem_size {
                return Err(GltfError::Invalid {
                    path: format!("bufferViews[{view}].byteStride"),
                    reason: format!(
                        "stride {stride} is smaller than accessor {index}'s element of {elem_size} bytes"
                    ),
                });
            }
            let offset = acc.byte_offset.map_or(0, |o| o.0);
            check_fits(index, view, offset, stride, elem_size, count, bytes.len())?;
            // check_fits proved offset + stride·(count−1) + elem_size ≤ bytes.len().
            let offset = usize::try_from(offset).unwrap_or(usize::MAX);
            out = Vec::with_capacity(count * n);
            for e in 0..count {
                let at = offset + e * stride;
                for c in 0..n {
                    let p = at + c * csize;
                    out.push(T::decode(ct, normalized, &bytes[p..p + csize]));
                }
            }
        }
        None => {
            let floats = (count as u64).saturating_mul(n as u64);
            if floats > MAX_ZERO_FILLED_FLOATS {
                return Err(GltfError::AccessorTooLarge {
                    accessor: index,
                    count: count as u64,
                    limit: MAX_ZERO_FILLED_FLOATS / n as u64,
                });
            }
            out = vec![T::default(); count * n];
        }
    }
    if let Some(sparse) = &acc.sparse {
        apply_sparse(doc, index, sparse, ct, normalized, n, count, &mut out)?;
    }
    Ok(out)
}

#[expect(
    clippy::too_many_arguments,
    reason = "one private helper of read_generic"
)]
fn apply_sparse<T: Component>(
    doc: &GltfDocument,
    index: usize,
    sparse: &gltf::json::accessor::sparse::Sparse,
    ct: ComponentType,
    normalized: bool,
    n: usize,
    count: usize,
    out: &mut [T],
) -> Result<(), GltfError> {
    let scount = usize::try_from(sparse.count.0).unwrap_or(usize::MAX);
    if scount > count {
        return Err(GltfError::Invalid {
            path: format!("accessors[{index}].sparse.count"),
            reason: format!("{scount} sparse elements in an accessor of {count}"),
        });
    }
    let Some(ict) = valid(&sparse.indices.component_type).map(|c| c.0) else {
        return Err(GltfError::Invalid {
            path: format!("accessors[{index}].sparse.indices.componentType"),
            reason: "unknown component type".into(),
        });
    };
    if !VERTEX_INDEX.contains(&ict) {
        return Err(GltfError::Invalid {
            path: format!("accessors[{index}].sparse.indices.componentType"),
            reason: format!("{} is not an index type", component_name(ict)),
        });
    }
    let used_by = format!("accessors[{index}].sparse");
    let iview = sparse.indices.buffer_view.value();
    let (ibytes, _) = view_bytes(doc, iview, &used_by)?;
    let ioff = sparse.indices.byte_offset.0;
    check_fits(
        index,
        iview,
        ioff,
        ict.size(),
        ict.size(),
        scount,
        ibytes.len(),
    )?;
    let vview = sparse.values.buffer_view.value();
    let (vbytes, _) = view_bytes(doc, vview, &used_by)?;
    let voff = sparse.values.byte_offset.0;
    let elem = n * ct.size();
    check_fits(index, vview, voff, elem, elem, scount, vbytes.len())?;
    let ioff = usize::try_from(ioff).unwrap_or(usize::MAX);
    let voff = usize::try_from(voff).unwrap_or(usize::MAX);
    for s in 0..scount {
        let p = ioff + s * ict.size();
        let target = u32::decode(ict, false, &ibytes[p..p + ict.size()]) as usize;
        if target >= count {
            return Err(GltfError::SparseIndexOutOfRange {
                accessor: index,
                index: target as u64,
                count,
            });
        }
        for c in 0..n {
            let p = voff + s * elem + c * ct.size();
            out[target * n + c] = T::decode(ct, normalized, &vbytes[p..p + ct.size()]);
        }
    }
    Ok(())
}
