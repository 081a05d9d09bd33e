//! A cap on what one asset may make the loader allocate. Every accessor is checked against
//! the bytes that back it, but a small file can still ask for a lot by reuse: one accessor
//! named by a thousand morph targets or influence sets, one large mesh instanced by ten
//! thousand nodes, one skin bound by every node. The budget turns that into an error instead
//! of an out-of-memory abort.

use crate::GltfError;

/// Floats (4 bytes each) one asset's decoded vertex streams and skeleton bindings may hold:
/// 2²⁷ = 512 MiB, some twenty times what a million-vertex, eight-influence mesh needs.
pub(crate) const MAX_ASSET_FLOATS: u64 = 1 << 27;

/// What is left of the budget while one asset loads.
#[derive(Debug)]
pub(crate) struct Budget {
    used: u64,
}

impl Budget {
    pub(crate) fn new() -> Self {
        Self { used: 0 }
    }

    /// Reserves `floats` for `what` (a JSON path), or fails with [`GltfError::TooLarge`].
    pub(crate) fn take(&mut self, what: &dyn Fn() -> String, floats: u64) -> Result<(), GltfError> {
        match self.used.checked_add(floats) {
            Some(total) if total <= MAX_ASSET_FLOATS => {
                self.used = total;
                Ok(())
            }
            _ => Err(GltfError::TooLarge {
                what: what(),
                floats,
                limit: MAX_ASSET_FLOATS,
            }),
        }
    }
}
