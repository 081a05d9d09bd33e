//! Layer groups: several layers whose pose is mixed on its own (a state mid-fade, a blend
//! space) and then laid over the pose below with the group's weight and mask (Unity's
//! override and additive layers, Godot's `AnimationNodeBlend2` over a sub-tree). The rule is
//! in [`group_mix`](super::group_mix); this file holds the group's state and its API.

use super::Player;
use super::accumulators::Snapshot;
use super::layer::{LayerMode, MAX_WEIGHT};
use super::mask::{Mask, SlotMask};
use super::motion_extraction::{Motion, MotionMix};
use crate::{AnimError, Rig};

/// How a [`LayerGroup`] combines with the pose below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupMode {
    /// Unity's Override: `pose ← lerp(pose below, group pose, weight × mask)`, where the group
    /// pose is the normalised blend of its members (blend layers).
    #[default]
    Override,
    /// Its members (additive layers) are added at their weights times the group's weight and
    /// mask, at the group's place in the order.
    Additive,
}

impl GroupMode {
    fn name(self) -> &'static str {
        match self {
            Self::Override => "an override group",
            Self::Additive => "an additive group",
        }
    }
}

/// Everything a new [`LayerGroup`] needs. [`GroupDesc::new`] gives an override group of
/// weight 1 over every node.
///
/// ```
/// use skel_anim::{GroupDesc, GroupMode, Mask};
/// let upper_body = GroupDesc::new().weight(0.8).mask(Mask::default().include([3]));
/// assert_eq!(upper_body.mode, GroupMode::Override);
/// assert_eq!(GroupDesc::new().additive().mode, GroupMode::Additive);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDesc {
    /// The group's weight (see [`LayerGroup::set_weight`]).
    pub weight: f32,
    /// Override or additive.
    pub mode: GroupMode,
    /// Which nodes the group affects; `None`: all of them.
    pub mask: Option<Mask>,
}

impl Default for GroupDesc {
    fn default() -> Self {
        Self::new()
    }
}

impl GroupDesc {
    /// An override group of weight 1, without a mask.
    #[must_use]
    pub fn new() -> Self {
        Self {
            weight: 1.0,
            mode: GroupMode::Override,
            mask: None,
        }
    }

    /// With weight `weight`.
    #[must_use]
    pub fn weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }

    /// Restricted to `mask`.
    #[must_use]
    pub fn mask(mut self, mask: Mask) -> Self {
        self.mask = Some(mask);
        self
    }

    /// As an additive group.
    #[must_use]
    pub fn additive(mut self) -> Self {
        self.mode = GroupMode::Additive;
        self
    }
}

/// A group of layers inside a [`Player`]: a weight, a mode, an optional mask and a snapshot
/// (see [`Player::capture_group_snapshot`]): an override group's own pose, an additive
/// group's own change.
/// Layers join a group when they are added ([`LayerDesc::group`](crate::LayerDesc::group)).
#[derive(Debug, Clone)]
pub struct LayerGroup {
    pub(crate) weight: f32,
    pub(crate) mode: GroupMode,
    /// Per-node weights in `0..=1` (`None`: 1 everywhere).
    pub(crate) mask: Option<Box<[f32]>>,
    /// The same weights per blend slot, then per morph slot.
    pub(crate) slot_mask: Option<SlotMask>,
    /// The group's frozen pose (override) or change (additive), one more member at its own
    /// weight.
    pub(crate) snapshot: Snapshot,
    /// An additive group's next snapshot while a capture evaluates (empty for override
    /// groups, which capture straight from their accumulators).
    pub(crate) spare: Snapshot,
    /// This tick's root motion of the members (scratch of the root-motion step).
    pub(crate) motion: MotionMix,
}

impl LayerGroup {
    fn new(rig: &Rig, group: usize, desc: &GroupDesc) -> Result<Self, AnimError> {
        if !desc.weight.is_finite() {
            return Err(AnimError::NotFiniteValue {
                what: "group weight",
                value: desc.weight,
            });
        }
        let mask = match &desc.mask {
            Some(m) => Some(m.node_weights(rig, || AnimError::GroupMaskSelectsNothing { group })?),
            None => None,
        };
        let mut g = Self {
            weight: 0.0,
            mode: desc.mode,
            slot_mask: mask.as_deref().map(|m| super::mask::slot_mask(rig, m)),
            mask,
            snapshot: Snapshot::new(rig),
            spare: match desc.mode {
                GroupMode::Override => Snapshot::empty(),
                GroupMode::Additive => Snapshot::new(rig),
            },
            motion: MotionMix::default(),
        };
        g.set_weight(desc.weight);
        Ok(g)
    }

    /// The group's weight.
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Sets the weight. NaN counts as 0. An override group's weight is a lerp factor, clamped
    /// to `0..=1`; an additive group's scales its members like an additive layer's weight
    /// (negative subtracts; magnitudes above [`MAX_WEIGHT`] count as `MAX_WEIGHT`).
    pub fn set_weight(&mut self, weight: f32) {
        let w = if weight.is_nan() { 0.0 } else { weight };
        self.weight = match self.mode {
            GroupMode::Override => w.clamp(0.0, 1.0),
            GroupMode::Additive => w.clamp(-MAX_WEIGHT, MAX_WEIGHT),
        };
    }

    /// Override or additive.
    #[must_use]
    pub fn mode(&self) -> GroupMode {
        self.mode
    }

    /// The mask's weight of `node` (1 without a mask or past the end of the nodes).
    #[must_use]
    pub fn mask_weight(&self, node: usize) -> f32 {
        self.mask
            .as_ref()
            .and_then(|m| m.get(node).copied())
            .unwrap_or(1.0)
    }

    /// Whether the group has a mask.
    #[must_use]
    pub fn has_mask(&self) -> bool {
        self.mask.is_some()
    }

    /// The weight of the group's snapshot (0: ignored).
    #[must_use]
    pub fn snapshot_weight(&self) -> f32 {
        self.snapshot.weight
    }

    /// Whether a snapshot has been captured (and not cleared).
    #[must_use]
    pub fn has_snapshot(&self) -> bool {
        !self.snapshot.trs_slots.is_empty() || !self.snapshot.morph_slots.is_empty()
    }

    /// Whether layer mode `mode` may join this group.
    fn takes(&self, mode: LayerMode) -> bool {
        matches!(
            (self.mode, mode),
            (GroupMode::Override, LayerMode::Blend) | (GroupMode::Additive, LayerMode::Additive(_))
        )
    }
}

/// The root motion of a tick with groups: the ungrouped blend layers' motion (`base`, the
/// rest filling below 1, which does not move), then each group in order by its rule (an
/// override group's members normalised, the motion below filling a total below 1 and the
/// group's snapshot counting as a member that does not move, then lerped in by weight × mask
/// at `node`; an additive group's members added), then the ungrouped additive layers.
pub(crate) fn group_motion(base: MotionMix, groups: &mut [LayerGroup], node: usize) -> Motion {
    let mut motion = base.blend_part();
    for g in groups {
        let members = std::mem::take(&mut g.motion);
        match g.mode {
            GroupMode::Override => {
                let a = f64::from(g.weight * g.mask_weight(node));
                let frozen = if g.has_snapshot() {
                    f64::from(g.snapshot.weight)
                } else {
                    0.0
                };
                if let Some(own) = members.blend_over(motion, frozen)
                    && a > 0.0
                {
                    motion = motion.scaled(1.0 - a).plus(own.scaled(a));
                }
            }
            GroupMode::Additive => motion = motion.plus(members.additive_part()),
        }
    }
    motion.plus(base.additive_part())
}

impl Player {
    /// Adds a layer group above the others and returns its index. Allocates (its mask and
    /// snapshot storage): do it at set-up. Groups apply bottom to top in the order they were
    /// added, over the pose of the ungrouped blend layers, below the ungrouped additive layers.
    ///
    /// # Errors
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite weight, what [`Mask`] resolution
    /// finds (unknown node; [`AnimError::GroupMaskSelectsNothing`]). Nothing is added on error.
    pub fn add_group(&mut self, desc: GroupDesc) -> Result<usize, AnimError> {
        let index = self.groups.len();
        let group = LayerGroup::new(&self.poser.rig, index, &desc)?;
        self.groups.push(group);
        Ok(index)
    }

    /// The layer groups, bottom first.
    #[must_use]
    pub fn groups(&self) -> &[LayerGroup] {
        &self.groups
    }

    /// Group `group`, to change its weight.
    ///
    /// # Errors
    /// [`AnimError::NoSuchGroup`] for an index past the end.
    pub fn group_mut(&mut self, group: usize) -> Result<&mut LayerGroup, AnimError> {
        let group_count = self.groups.len();
        self.groups
            .get_mut(group)
            .ok_or(AnimError::NoSuchGroup { group, group_count })
    }

    /// Sets the weight of group `group` (see [`LayerGroup::set_weight`]).
    ///
    /// # Errors
    /// [`AnimError::NoSuchGroup`] for an index past the end.
    pub fn set_group_weight(&mut self, group: usize, weight: f32) -> Result<(), AnimError> {
        self.group_mut(group)?.set_weight(weight);
        Ok(())
    }

    /// Whether this evaluation's groups reduce to a plain stack: one override group at weight
    /// 1 without a mask or snapshot over nothing (no ungrouped blend layer, no player
    /// snapshot), every other layer at weight 0 but the ungrouped additive ones. Its members
    /// then blend exactly as ungrouped blend layers would (a lerp at 1 over a pose whose fill
    /// is the rest), so the player's plain paths pose it, four nodes at a time where they can:
    /// the usual shape of a graph whose upper layers are off.
    // Out of line: `evaluate` of a player without groups stays as small as before (measured).
    #[inline(never)]
    pub(super) fn groups_are_a_plain_stack(&self) -> bool {
        if self.snapshot.weight > 0.0 {
            return false;
        }
        let mut active = None;
        for (g, group) in self.groups.iter().enumerate() {
            // A group at weight 0 shows nothing, whatever its members and snapshot hold.
            if group.weight == 0.0 {
                continue;
            }
            let frozen = group.snapshot.weight > 0.0;
            let has_members = self
                .layers
                .iter()
                .any(|l| l.group == Some(g) && l.effective_weight() != 0.0);
            if !has_members && !frozen {
                continue;
            }
            let plain = group.mode == GroupMode::Override
                && group.weight >= 1.0
                && group.mask.is_none()
                && !frozen;
            if !plain || active.is_some() {
                return false;
            }
            active = Some(g);
        }
        // The plain paths know no groups: every layer they see counts.
        self.layers.iter().all(|l| match l.group {
            None => l.mode != LayerMode::Blend || l.effective_weight() == 0.0,
            Some(g) => Some(g) == active || l.effective_weight() == 0.0,
        })
    }

    /// Checks that a layer of mode `mode` may join group `group`.
    pub(super) fn check_member(&self, group: usize, mode: LayerMode) -> Result<(), AnimError> {
        let g = self.groups.get(group).ok_or(AnimError::NoSuchGroup {
            group,
            group_count: self.groups.len(),
        })?;
        if g.takes(mode) {
            return Ok(());
        }
        Err(AnimError::GroupModeMismatch {
            group,
            group_mode: g.mode.name(),
            what: match mode {
                LayerMode::Blend => "a blend layer",
                LayerMode::Additive(_) => "an additive layer",
            },
        })
    }

    /// Sets the weight of group `group`'s snapshot as a member (negative, NaN and infinite
    /// weights count as 0, weights above [`MAX_WEIGHT`] as `MAX_WEIGHT`): in an override
    /// group a blend weight among the members', in an additive group the weight its frozen
    /// change is added at (times the group's weight and mask, as a member's).
    ///
    /// # Errors
    /// [`AnimError::NoSuchGroup`] for an index past the end.
    pub fn set_group_snapshot_weight(
        &mut self,
        group: usize,
        weight: f32,
    ) -> Result<(), AnimError> {
        self.group_mut(group)?.snapshot.weight = if weight.is_finite() && weight > 0.0 {
            weight.min(MAX_WEIGHT)
        } else {
            0.0
        };
        Ok(())
    }

    /// The weight of group `group`'s snapshot.
    ///
    /// # Errors
    /// [`AnimError::NoSuchGroup`] for an index past the end.
    pub fn group_snapshot_weight(&self, group: usize) -> Result<f32, AnimError> {
        self.groups
            .get(group)
            .map(LayerGroup::snapshot_weight)
            .ok_or(AnimError::NoSuchGroup {
                group,
                group_count: self.groups.len(),
            })
    }

    /// Drops group `group`'s snapshot (weight 0, nothing captured).
    ///
    /// # Errors
    /// [`AnimError::NoSuchGroup`] for an index past the end.
    pub fn clear_group_snapshot(&mut self, group: usize) -> Result<(), AnimError> {
        let s = &mut self.group_mut(group)?.snapshot;
        s.weight = 0.0;
        s.trs_slots.clear();
        s.morph_slots.clear();
        Ok(())
    }
}
