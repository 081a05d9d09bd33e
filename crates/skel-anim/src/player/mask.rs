//! Per-node layer masks: subtrees to include and exclude, and float weights for single nodes
//! (ozz-animation's `joint_weights`, bevy's mask groups, Babylon's `AnimationGroupMask`).

use crate::{AnimError, Rig};

/// Which nodes a layer affects, and how much.
///
/// A node's weight is 1 when it lies in the subtree of a node in `include` (every node when
/// `include` is empty) and not in the subtree of a node in `exclude`, 0 otherwise; a node listed
/// in `joint_weights` takes that weight instead (clamped to `0..=1`; for that node alone, not
/// its subtree). The layer's weight is multiplied by its node's weight, property by property.
///
/// ```
/// use skel_anim::Mask;
/// // The upper body (subtree of node 3) without the head (node 7), the neck (node 6) at 25 %.
/// let mask = Mask::default().include([3]).exclude([7]).joint_weight(6, 0.25);
/// assert_eq!(mask.include, vec![3]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mask {
    /// Subtree roots the layer affects (empty: every node).
    pub include: Vec<usize>,
    /// Subtree roots taken out of the included set.
    pub exclude: Vec<usize>,
    /// Single nodes with a weight of their own, replacing their 0 or 1.
    pub joint_weights: Vec<(usize, f32)>,
}

impl Mask {
    /// Adds subtree roots to include.
    #[must_use]
    pub fn include(mut self, roots: impl IntoIterator<Item = usize>) -> Self {
        self.include.extend(roots);
        self
    }

    /// Adds subtree roots to exclude.
    #[must_use]
    pub fn exclude(mut self, roots: impl IntoIterator<Item = usize>) -> Self {
        self.exclude.extend(roots);
        self
    }

    /// Gives `node` (alone) the weight `weight`.
    #[must_use]
    pub fn joint_weight(mut self, node: usize, weight: f32) -> Self {
        self.joint_weights.push((node, weight));
        self
    }

    /// The weight of every node of `rig`.
    ///
    /// # Errors
    /// [`AnimError::BadNode`] for a node index past the end, [`AnimError::NotFiniteValue`]
    /// for a NaN or infinite joint weight, [`AnimError::MaskSelectsNothing`] when every node
    /// ends up at weight 0.
    pub(crate) fn resolve(&self, rig: &Rig, clip: usize) -> Result<Box<[f32]>, AnimError> {
        self.node_weights(rig, || AnimError::MaskSelectsNothing { clip })
    }

    /// The weight of every node of `rig`; `nothing` is the error when every weight is 0.
    ///
    /// # Errors
    /// As [`resolve`](Self::resolve), with `nothing()` for a mask selecting nothing.
    pub(crate) fn node_weights(
        &self,
        rig: &Rig,
        nothing: impl FnOnce() -> AnimError,
    ) -> Result<Box<[f32]>, AnimError> {
        let n = rig.node_count();
        let check = |node: usize, what: &str| {
            if node < n {
                Ok(node)
            } else {
                Err(AnimError::BadNode {
                    what: format!("layer mask ({what})"),
                    node,
                    node_count: n,
                })
            }
        };
        let mut weights = vec![if self.include.is_empty() { 1.0 } else { 0.0 }; n];
        let mut in_subtree = vec![false; n];
        let mut mark = |roots: &[usize], value: f32, what: &str| -> Result<(), AnimError> {
            if roots.is_empty() {
                return Ok(());
            }
            in_subtree.fill(false);
            for &root in roots {
                in_subtree[check(root, what)?] = true;
            }
            // Parents come first in the topological order: one pass marks whole subtrees.
            for &node in rig.topo_order() {
                if let Some(parent) = rig.data().nodes[node].parent
                    && in_subtree[parent]
                {
                    in_subtree[node] = true;
                }
                if in_subtree[node] {
                    weights[node] = value;
                }
            }
            Ok(())
        };
        mark(&self.include, 1.0, "include")?;
        mark(&self.exclude, 0.0, "exclude")?;
        for &(node, w) in &self.joint_weights {
            if !w.is_finite() {
                return Err(AnimError::NotFiniteValue {
                    what: "mask joint weight",
                    value: w,
                });
            }
            weights[check(node, "joint_weights")?] = w.clamp(0.0, 1.0);
        }
        if n > 0 && weights.iter().all(|&w| w == 0.0) {
            return Err(nothing());
        }
        Ok(weights.into_boxed_slice())
    }
}

/// A mask's weights per blend slot, then per morph slot.
pub(crate) type SlotMask = (Box<[f32]>, Box<[f32]>);

/// Per-node weights `m` per blend slot, then per morph slot, of `rig` (what a tick reads: one
/// lookup per property instead of slot → node → weight).
pub(crate) fn slot_mask(rig: &Rig, m: &[f32]) -> SlotMask {
    let trs = rig.slot_nodes.iter().map(|&n| m[n as usize]).collect();
    let morph = rig
        .morph_slot_nodes
        .iter()
        .map(|&n| m[n as usize])
        .collect();
    (trs, morph)
}
