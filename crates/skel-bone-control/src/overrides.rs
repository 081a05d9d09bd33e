//! The asset-wide override map: one preallocated record per node and a dense list of the nodes
//! that have one, so the per-tick hook walks only active overrides and never allocates.

use skel_anim::{R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// Mask bit: the translation override is set.
pub(crate) const MASK_TRANSLATION: u8 = 1;
/// Mask bit: the rotation override is set.
pub(crate) const MASK_ROTATION: u8 = 2;
/// Mask bit: the scaling override is set.
pub(crate) const MASK_SCALE: u8 = 4;
/// Mask bit: the bone is hidden. Its own bit (the seed's `BoneOverride.mask` bit 8), so showing
/// the bone again leaves an explicit scaling override alone.
pub(crate) const MASK_HIDDEN: u8 = 8;

/// The override record of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BoneOverride {
    /// Which of the fields below are set (`MASK_*` bits).
    pub(crate) mask: u8,
    pub(crate) translation: [f32; 3],
    pub(crate) rotation: [f32; 4],
    pub(crate) scale: [f32; 3],
}

impl BoneOverride {
    const NONE: Self = Self {
        mask: 0,
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };
}

/// What a bone's override state is, as a value (the internal record stays private).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoneOverrideState {
    /// Local translation override, when set.
    pub translation: Option<[f32; 3]>,
    /// Local rotation override `[x, y, z, w]` (normalised), when set.
    pub rotation: Option<[f32; 4]>,
    /// Local scaling override, when set.
    pub scaling: Option<[f32; 3]>,
    /// Whether the bone is hidden (scale 0 after channels).
    pub hidden: bool,
}

impl BoneOverrideState {
    /// Whether nothing is overridden.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl From<BoneOverride> for BoneOverrideState {
    fn from(o: BoneOverride) -> Self {
        Self {
            translation: (o.mask & MASK_TRANSLATION != 0).then_some(o.translation),
            rotation: (o.mask & MASK_ROTATION != 0).then_some(o.rotation),
            scaling: (o.mask & MASK_SCALE != 0).then_some(o.scale),
            hidden: o.mask & MASK_HIDDEN != 0,
        }
    }
}

/// Sentinel in `slot_of_node`: the node is not in the active list.
const NO_SLOT: usize = usize::MAX;

/// Overrides of every node of one asset. All three vectors are sized for the node count when
/// bone control is enabled; `active` never grows past its capacity (one entry per node at most),
/// so no write and no apply allocates.
#[derive(Debug)]
pub(crate) struct OverrideTable {
    per_node: Vec<BoneOverride>,
    /// Nodes with a non-zero mask, in no particular order.
    active: Vec<usize>,
    /// Position of each node in `active`, or [`NO_SLOT`].
    slot_of_node: Vec<usize>,
}

impl OverrideTable {
    pub(crate) fn new(node_count: usize) -> Self {
        Self {
            per_node: vec![BoneOverride::NONE; node_count],
            active: Vec::with_capacity(node_count),
            slot_of_node: vec![NO_SLOT; node_count],
        }
    }

    /// The record of `node` (the empty record for an index past the end).
    pub(crate) fn get(&self, node: usize) -> BoneOverride {
        self.per_node
            .get(node)
            .copied()
            .unwrap_or(BoneOverride::NONE)
    }

    /// Number of nodes with an override.
    pub(crate) fn active_count(&self) -> usize {
        self.active.len()
    }

    /// Changes the record of `node` with `edit` and keeps the active list in step.
    pub(crate) fn update(&mut self, node: usize, edit: impl FnOnce(&mut BoneOverride)) {
        let Some(record) = self.per_node.get_mut(node) else {
            return;
        };
        edit(record);
        let active = record.mask != 0;
        let slot = self.slot_of_node[node];
        if active && slot == NO_SLOT {
            self.slot_of_node[node] = self.active.len();
            self.active.push(node);
        } else if !active && slot != NO_SLOT {
            self.active.swap_remove(slot);
            if let Some(&moved) = self.active.get(slot) {
                self.slot_of_node[moved] = slot;
            }
            self.slot_of_node[node] = NO_SLOT;
        }
        if !active {
            *record = BoneOverride::NONE;
        }
    }

    /// Writes every translation, rotation and scaling override into the TRS scratch: the hook
    /// "before channels", so a clip then wins on the components it animates. Nodes past the end
    /// of `trs` are skipped.
    pub(crate) fn apply_transforms(&self, trs: &mut [f32]) {
        for &node in &self.active {
            let o = &self.per_node[node];
            if o.mask & (MASK_TRANSLATION | MASK_ROTATION | MASK_SCALE) == 0 {
                continue;
            }
            let base = node * TRS_STRIDE;
            let Some(rec) = trs.get_mut(base..base + TRS_STRIDE) else {
                continue;
            };
            if o.mask & MASK_TRANSLATION != 0 {
                rec[T_OFF..T_OFF + 3].copy_from_slice(&o.translation);
            }
            if o.mask & MASK_ROTATION != 0 {
                rec[R_OFF..R_OFF + 4].copy_from_slice(&o.rotation);
            }
            if o.mask & MASK_SCALE != 0 {
                rec[S_OFF..S_OFF + 3].copy_from_slice(&o.scale);
            }
        }
    }

    /// Zeroes the scale of every hidden node: the hook "after channels", so a clip with a scale
    /// track on the bone cannot bring it back.
    pub(crate) fn apply_visibility(&self, trs: &mut [f32]) {
        for &node in &self.active {
            if self.per_node[node].mask & MASK_HIDDEN == 0 {
                continue;
            }
            let base = node * TRS_STRIDE + S_OFF;
            if let Some(scale) = trs.get_mut(base..base + 3) {
                scale.fill(0.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_list_tracks_set_and_cleared_nodes() {
        let mut t = OverrideTable::new(5);
        t.update(1, |o| o.mask |= MASK_TRANSLATION);
        t.update(3, |o| o.mask |= MASK_HIDDEN);
        t.update(4, |o| o.mask |= MASK_SCALE);
        assert_eq!(t.active_count(), 3);
        t.update(1, |o| o.mask = 0);
        assert_eq!(t.active_count(), 2);
        // The node moved into slot 0 by swap_remove must still be removable.
        t.update(4, |o| o.mask = 0);
        t.update(3, |o| o.mask &= !MASK_HIDDEN);
        assert_eq!(t.active_count(), 0);
        assert_eq!(t.active.capacity(), 5, "the list never reallocates");
        // Clearing resets the stored values, not only the mask.
        assert_eq!(t.get(1), BoneOverride::NONE);
    }

    #[test]
    fn updating_an_active_node_does_not_duplicate_it() {
        let mut t = OverrideTable::new(2);
        t.update(0, |o| o.mask |= MASK_TRANSLATION);
        t.update(0, |o| o.mask |= MASK_ROTATION);
        assert_eq!(t.active, vec![0]);
    }

    #[test]
    fn out_of_range_nodes_are_ignored() {
        let mut t = OverrideTable::new(1);
        t.update(7, |o| o.mask |= MASK_HIDDEN);
        assert_eq!(t.active_count(), 0);
        t.update(0, |o| {
            o.mask |= MASK_HIDDEN | MASK_TRANSLATION;
            o.translation = [1.0, 2.0, 3.0];
        });
        // A TRS buffer shorter than the table: nothing is written, nothing panics.
        let mut short: [f32; 0] = [];
        t.apply_transforms(&mut short);
        t.apply_visibility(&mut short);
    }
}
