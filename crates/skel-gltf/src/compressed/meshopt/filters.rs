//! The filters of Appendix B of the `KHR_meshopt_compression` README, undone in place on
//! decoded attribute bytes: octahedral unit vectors, quaternions, exponential floats and
//! `YCoCg` colours.
//!
//! The README fixes the octahedral, quaternion and colour results only to one unit in the last
//! place (decoders may use fast reciprocals); the exponential filter is exact. These follow
//! the arithmetic of meshoptimizer's SSE decoder (the same operations in the same order, and
//! its round-half-to-even float-to-integer conversion), so they give its bytes except where
//! it uses an approximate reciprocal square root (8-bit octahedral) or reciprocal (8-bit
//! colour): there a component may differ by one.

/// meshoptimizer's float-to-integer conversion (`cvtps2dq`): round half to even; NaN and
/// values out of `i32`'s range give `i32::MIN`, whose low bits are zero.
#[inline]
fn round_to_int(v: f32) -> i32 {
    const LIMIT: f32 = 2_147_483_648.0;
    if v.abs() < LIMIT {
        #[expect(clippy::cast_possible_truncation, reason = "in range: checked above")]
        let r = v.round_ties_even() as i32;
        r
    } else {
        i32::MIN
    }
}

/// Reads component `i` of a 4-component element of 8- or 16-bit little-endian integers, sign
/// extended.
#[inline]
fn signed(element: &[u8], wide: bool, i: usize) -> i32 {
    if wide {
        i32::from(i16::from_le_bytes([element[2 * i], element[2 * i + 1]]))
    } else {
        i32::from(element[i].cast_signed())
    }
}

/// Reads component `i` as an unsigned integer.
#[inline]
fn unsigned(element: &[u8], wide: bool, i: usize) -> i32 {
    if wide {
        i32::from(u16::from_le_bytes([element[2 * i], element[2 * i + 1]]))
    } else {
        i32::from(element[i])
    }
}

/// Writes the low 8 or 16 bits of `v` as component `i`.
#[inline]
fn store(element: &mut [u8], wide: bool, i: usize, v: i32) {
    let bytes = v.to_le_bytes();
    if wide {
        element[2 * i..2 * i + 2].copy_from_slice(&bytes[..2]);
    } else {
        element[i] = bytes[0];
    }
}

/// Checks that `data` holds whole elements of a stride the filter allows.
fn check(data: &[u8], stride: usize, allowed: &[usize], name: &str) -> Result<(), String> {
    if !allowed.contains(&stride) {
        return Err(format!(
            "filter {name} needs byteStride {allowed:?}, not {stride}"
        ));
    }
    if !data.len().is_multiple_of(stride) {
        return Err(format!(
            "{} bytes are not whole {stride}-byte elements",
            data.len()
        ));
    }
    Ok(())
}

/// Undoes the octahedral filter on 4-byte (8-bit) or 8-byte (16-bit) elements: x and y in
/// octahedral coordinates, z holding 1.0 at the element's own bit count, w passed through.
/// The vector is unfolded, normalised and stored as signed normalised x, y, z.
///
/// # Errors
/// A stride other than 4 or 8, or `data` not whole elements.
pub fn decode_filter_oct(data: &mut [u8], stride: usize) -> Result<(), String> {
    check(data, stride, &[4, 8], "OCTAHEDRAL")?;
    let wide = stride == 8;
    let max = if wide { 32767.0 } else { 127.0 };
    for element in data.chunks_exact_mut(stride) {
        #[expect(
            clippy::cast_precision_loss,
            reason = "16-bit integers are exact in f32"
        )]
        let [mut x, mut y, one] = [0, 1, 2].map(|i| signed(element, wide, i) as f32);
        let z = one - (x.abs() + y.abs());
        // The lower hemisphere is folded over the diagonals: unfold it.
        let t = z.min(0.0);
        x += if x.is_sign_negative() { -t } else { t };
        y += if y.is_sign_negative() { -t } else { t };
        let scale = max / (x * x + (y * y + z * z)).sqrt();
        for (i, v) in [x, y, z].into_iter().enumerate() {
            store(element, wide, i, round_to_int(v * scale));
        }
    }
    Ok(())
}

/// Undoes the quaternion filter on 8-byte elements: three 16-bit components scaled by √2
/// (the largest one left out), and a fourth holding 1.0 at the element's bit count with the
/// left-out component's index in its low 2 bits. The left-out component is rebuilt as the
/// positive square root that makes the quaternion unit length.
///
/// # Errors
/// A stride other than 8, or `data` not whole elements.
pub fn decode_filter_quat(data: &mut [u8], stride: usize) -> Result<(), String> {
    check(data, stride, &[8], "QUATERNION")?;
    let scale = 32767.0 / 2.0_f32.sqrt();
    for element in data.chunks_exact_mut(8) {
        let stored = signed(element, true, 3);
        #[expect(
            clippy::cast_precision_loss,
            reason = "16-bit integers are exact in f32"
        )]
        let one = (stored | 3) as f32;
        #[expect(
            clippy::cast_precision_loss,
            reason = "16-bit integers are exact in f32"
        )]
        let [x, y, z] = [0, 1, 2].map(|i| signed(element, true, i) as f32);
        // Unscaled: |q|² = 2·one² in these units.
        let ww = one * (one + one) - (x * x + (y * y + z * z));
        let w = ww.max(0.0).sqrt();
        let s = scale / one;
        #[expect(clippy::cast_sign_loss, reason = "the low 2 bits: 0..=3")]
        let largest = (stored & 3) as usize;
        for (i, v) in [w, x, y, z].into_iter().enumerate() {
            store(element, true, (largest + i) & 3, round_to_int(v * s));
        }
    }
    Ok(())
}

/// Undoes the exponential filter on 32-bit values: an 8-bit signed exponent over a 24-bit
/// signed mantissa, decoded exactly as `mantissa × 2^exponent` (IEEE 754 single). The stride
/// does not matter (each value stands alone) but must be a multiple of 4.
///
/// # Errors
/// A stride that is not a positive multiple of 4, or `data` not whole elements.
pub fn decode_filter_exp(data: &mut [u8], stride: usize) -> Result<(), String> {
    if stride == 0 || !stride.is_multiple_of(4) || !data.len().is_multiple_of(stride) {
        return Err(format!(
            "filter EXPONENTIAL needs a byteStride that is a multiple of 4, not {stride}"
        ));
    }
    for value in data.chunks_exact_mut(4) {
        let v = i32::from_le_bytes([value[0], value[1], value[2], value[3]]);
        let exponent = v >> 24;
        let mantissa = (v << 8) >> 8;
        // 2^exponent built from its bits, as meshoptimizer does (an exponent of -128 gives
        // -∞ there and here; the README allows only -100..=100).
        let power = f32::from_bits((exponent + 127).cast_unsigned() << 23);
        #[expect(
            clippy::cast_precision_loss,
            reason = "24-bit mantissas are exact in f32"
        )]
        let decoded = power * mantissa as f32;
        value.copy_from_slice(&decoded.to_le_bytes());
    }
    Ok(())
}

/// Undoes the colour filter on 4-byte (8-bit) or 8-byte (16-bit) elements: Y, Co, Cg at K
/// bits and alpha at K−1 bits whose top set bit marks K. RGB is rebuilt in integers, alpha
/// widened by one bit, and all four scaled to the full unsigned normalised range.
///
/// # Errors
/// A stride other than 4 or 8, or `data` not whole elements.
pub fn decode_filter_color(data: &mut [u8], stride: usize) -> Result<(), String> {
    check(data, stride, &[4, 8], "COLOR")?;
    let wide = stride == 8;
    let max = if wide { 65535.0 } else { 255.0 };
    for element in data.chunks_exact_mut(stride) {
        let y = unsigned(element, wide, 0);
        let (co, cg) = (signed(element, wide, 1), signed(element, wide, 2));
        let alpha = unsigned(element, wide, 3);
        // Every bit below alpha's top bit set: the K-bit maximum.
        let mut full = alpha;
        for shift in [1, 2, 4, 8] {
            full |= full >> shift;
        }
        let a = ((alpha << 1) & full) | (alpha & 1);
        #[expect(
            clippy::cast_precision_loss,
            reason = "17-bit integers are exact in f32"
        )]
        let scale = max / full as f32;
        let rgba = [y + co - cg, y + cg, y - co - cg, a];
        for (i, v) in rgba.into_iter().enumerate() {
            #[expect(
                clippy::cast_precision_loss,
                reason = "18-bit integers are exact in f32"
            )]
            store(element, wide, i, round_to_int(v as f32 * scale));
        }
    }
    Ok(())
}
