//! Fields of any width from 0 to 32 bits in a byte stream, least significant bit first: how
//! bit-packed keys are laid out in memory (`sample/lane_bits.rs`) and in a file
//! (`compile/stored`). Neither is on a per-frame path: the decoder reads whole rows with one
//! load.

/// Appends fields to a byte stream.
pub(crate) struct BitWriter<'b> {
    bytes: &'b mut Vec<u8>,
    /// The bit the next field starts at.
    pub(crate) at: usize,
}

impl<'b> BitWriter<'b> {
    /// A writer whose first field starts at bit `at` of `bytes` (bits past it are zero).
    pub(crate) fn at(bytes: &'b mut Vec<u8>, at: usize) -> Self {
        Self { bytes, at }
    }

    /// Writes the low `width` bits of `value`.
    pub(crate) fn put(&mut self, value: u32, width: u8) {
        for b in 0..usize::from(width) {
            let byte = (self.at + b) >> 3;
            if byte >= self.bytes.len() {
                self.bytes.push(0);
            }
            if value >> b & 1 == 1 {
                self.bytes[byte] |= 1 << ((self.at + b) & 7);
            }
        }
        self.at += usize::from(width);
    }
}

/// The field of `width` bits at bit `at` of `bytes`; `None` past the end.
pub(crate) fn field(bytes: &[u8], at: usize, width: u8) -> Option<u32> {
    let mut value = 0_u32;
    for b in 0..usize::from(width) {
        let bit = at + b;
        let byte = *bytes.get(bit >> 3)?;
        value |= u32::from(byte >> (bit & 7) & 1) << b;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_as_written() {
        let fields = [
            (5_u32, 3_u8),
            (0, 0),
            (0xAB_CDEF, 24),
            (1, 1),
            (u32::MAX, 32),
            (9, 4),
        ];
        let mut bytes = Vec::new();
        let mut w = BitWriter::at(&mut bytes, 0);
        let mut at = Vec::new();
        for &(v, width) in &fields {
            at.push(w.at);
            w.put(v, width);
        }
        assert_eq!(w.at, 64);
        for (&(v, width), &bit) in fields.iter().zip(&at) {
            assert_eq!(field(&bytes, bit, width), Some(v));
        }
        assert_eq!(field(&bytes, 60, 8), None, "past the end");
    }
}
