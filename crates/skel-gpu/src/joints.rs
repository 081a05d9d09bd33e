//! Joint indices as glTF stores them (`JOINTS_n`: unsigned byte or short) and their widening to
//! the `u32` the `Uint32x4` vertex format reads.

/// Joint indices of a `JOINTS_n` attribute, 4 per vertex, in the width the file stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointIndices<'a> {
    /// `UNSIGNED_BYTE` joints (`Uint8Array` in the seed).
    U8(&'a [u8]),
    /// `UNSIGNED_SHORT` joints (`Uint16Array` in the seed).
    U16(&'a [u16]),
    /// Already widened (what `skel_anim::VertexInfluences` holds).
    U32(&'a [u32]),
}

impl JointIndices<'_> {
    /// Number of indices (4 per vertex).
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Self::U8(j) => j.len(),
            Self::U16(j) => j.len(),
            Self::U32(j) => j.len(),
        }
    }

    /// Whether there are no indices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The indices widened to `u32` (the seed's expansion to `Uint32Array`).
    #[must_use]
    pub fn widen(&self) -> Vec<u32> {
        match self {
            Self::U8(j) => j.iter().map(|&x| u32::from(x)).collect(),
            Self::U16(j) => j.iter().map(|&x| u32::from(x)).collect(),
            Self::U32(j) => j.to_vec(),
        }
    }
}

impl<'a> From<&'a [u8]> for JointIndices<'a> {
    fn from(joints: &'a [u8]) -> Self {
        Self::U8(joints)
    }
}

impl<'a> From<&'a [u16]> for JointIndices<'a> {
    fn from(joints: &'a [u16]) -> Self {
        Self::U16(joints)
    }
}

impl<'a> From<&'a [u32]> for JointIndices<'a> {
    fn from(joints: &'a [u32]) -> Self {
        Self::U32(joints)
    }
}
