//! A clip's compressed keys as bytes: what a file keeps of a compressed clip instead of its
//! f32 keys, and what a [`Rig`](crate::Rig) plays without compressing again.

use std::sync::Arc;

/// A clip's compressed four-node keys in skel's stored format, as
/// [`Rig::stored_keys`](crate::Rig::stored_keys) writes them and a file carries them.
///
/// Attached to a [`Clip`](crate::Clip) with
/// [`AnimationData::attach_stored_keys`](crate::AnimationData::attach_stored_keys), which
/// checks them against the clip and writes their decoded keys into its samplers; a rig built
/// from that data then plays these keys, bit for bit what the compressor measured, instead of
/// the samplers' keys. The bytes are read when attached: corrupt ones are an error there,
/// never a panic.
///
/// The format (little endian, versioned) is described in `compile/stored/mod.rs` and in
/// docs/compression.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKeys(Arc<[u8]>);

impl StoredKeys {
    /// Bytes as written by [`Rig::stored_keys`](crate::Rig::stored_keys) (not checked until
    /// attached).
    #[must_use]
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Self {
        Self(bytes.into())
    }

    /// The bytes, to write to a file.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}
