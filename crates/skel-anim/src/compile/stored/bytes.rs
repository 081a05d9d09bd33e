//! Little-endian fields in and out of a byte buffer, for the stored-keys format: a reader
//! that names what ran out instead of panicking on short or corrupt input.

use glam::Vec4;

/// Appends little-endian fields.
#[derive(Default)]
pub(super) struct Out(pub(super) Vec<u8>);

impl Out {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }

    pub(super) fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub(super) fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub(super) fn vec4(&mut self, v: Vec4) {
        for x in v.to_array() {
            self.f32(x);
        }
    }
}

/// Reads little-endian fields; every read past the end is an error naming the field.
pub(super) struct In<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> In<'b> {
    pub(super) fn new(bytes: &'b [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Bytes not read yet.
    pub(super) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'b [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "ends inside {what} (byte {} of {})",
                    self.at,
                    self.bytes.len()
                )
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let b = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    pub(super) fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(super) fn u16(&mut self, what: &str) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(super) fn f32(&mut self, what: &str) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }

    pub(super) fn vec4(&mut self, what: &str) -> Result<Vec4, String> {
        Ok(Vec4::new(
            self.f32(what)?,
            self.f32(what)?,
            self.f32(what)?,
            self.f32(what)?,
        ))
    }
}
