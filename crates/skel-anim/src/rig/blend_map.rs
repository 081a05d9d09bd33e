//! Channel maps of a blend, built once per asset: every animated property (node × path) gets a
//! slot with a fixed place in the blend's accumulators, and every clip a flat list of
//! (sampler → slot) entries. A tick then walks plain arrays: no search, no hashing.

use crate::{AnimationData, ChannelPath, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// A translation, rotation or scale of one node: 3 floats (4 for a rotation) at `at` in the
/// TRS scratch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrsSlot {
    pub(crate) at: usize,
    pub(crate) rotation: bool,
}

/// The weights of one morph binding: the first `components` of them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MorphSlot {
    pub(crate) binding: usize,
    /// Offset of the slot's values in the blend's flat morph value buffers.
    pub(crate) values: usize,
    pub(crate) components: usize,
}

/// One TRS channel of one clip, resolved to its slot.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrsEntry {
    pub(crate) sampler: usize,
    pub(crate) slot: usize,
    pub(crate) components: usize,
    pub(crate) rotation: bool,
}

/// One weights channel of one clip, resolved to the slot of one morph binding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MorphEntry {
    pub(crate) sampler: usize,
    pub(crate) slot: usize,
    pub(crate) values: usize,
    pub(crate) components: usize,
}

/// Marks "no slot yet" and "no entry in this clip yet".
const NONE: usize = usize::MAX;

/// Entries of one kind for every clip, flat, with the slot-to-entry bookkeeping that lets a
/// later channel of a clip replace an earlier one on the same slot.
#[derive(Debug, Clone)]
struct EntryTable<E> {
    entries: Vec<E>,
    /// `entries[clip_start[c]..clip_start[c + 1]]` belong to clip `c`.
    clip_start: Vec<usize>,
    /// Entry index of each slot in the clip being mapped (build time only).
    entry_of_slot: Vec<usize>,
}

impl<E: Copy> EntryTable<E> {
    fn new(clips: usize) -> Self {
        Self {
            entries: Vec::new(),
            clip_start: Vec::with_capacity(clips + 1),
            entry_of_slot: Vec::new(),
        }
    }

    fn begin_clip(&mut self) {
        self.clip_start.push(self.entries.len());
    }

    fn push(&mut self, slot: usize, entry: E) {
        if self.entry_of_slot.len() <= slot {
            self.entry_of_slot.resize(slot + 1, NONE);
        }
        let clip_start = self.clip_start.last().copied().unwrap_or(0);
        match self.entry_of_slot[slot] {
            e if e != NONE && e >= clip_start => self.entries[e] = entry,
            _ => {
                self.entry_of_slot[slot] = self.entries.len();
                self.entries.push(entry);
            }
        }
    }

    fn finish(&mut self) {
        self.clip_start.push(self.entries.len());
        self.entry_of_slot = Vec::new();
    }

    #[inline]
    fn clip(&self, clip: usize) -> &[E] {
        match (self.clip_start.get(clip), self.clip_start.get(clip + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a..b],
            _ => &[],
        }
    }
}

/// Slots of every property any clip animates, and each clip's entries.
#[derive(Debug, Clone)]
pub(crate) struct ChannelMaps {
    pub(crate) trs_slots: Vec<TrsSlot>,
    pub(crate) morph_slots: Vec<MorphSlot>,
    trs: EntryTable<TrsEntry>,
    morph: EntryTable<MorphEntry>,
    /// Total floats of all morph slots.
    pub(crate) morph_value_len: usize,
    /// The largest morph slot.
    pub(crate) max_morph_components: usize,
}

impl ChannelMaps {
    /// Resolves every channel of every clip of validated `data`. Channels the pose pipeline
    /// ignores (weights on a node without a morph binding) are left out, a weights channel
    /// drives every morph binding on its node, and when a clip has two channels on one property
    /// the later one wins: all exactly as in [`apply_clip`](crate::apply_clip).
    pub(crate) fn new(data: &AnimationData) -> Self {
        let n = data.nodes.len();
        let mut bindings_of_node = vec![Vec::new(); n];
        for (i, mb) in data.morph_bindings.iter().enumerate() {
            bindings_of_node[mb.node].push(i);
        }
        let mut trs_slot_of = vec![NONE; n * 3];
        let mut morph_slot_of = vec![NONE; data.morph_bindings.len()];
        let mut maps = Self {
            trs_slots: Vec::new(),
            morph_slots: Vec::new(),
            trs: EntryTable::new(data.clips.len()),
            morph: EntryTable::new(data.clips.len()),
            morph_value_len: 0,
            max_morph_components: 0,
        };
        for clip in &data.clips {
            maps.trs.begin_clip();
            maps.morph.begin_clip();
            for ch in &clip.channels {
                let Some(sampler) = clip.samplers.get(ch.sampler) else {
                    continue;
                };
                let rec = ch.node * TRS_STRIDE;
                let (at, components, path_index) = match ch.path {
                    ChannelPath::Translation => (rec + T_OFF, 3, 0),
                    ChannelPath::Rotation => (rec + R_OFF, 4, 1),
                    ChannelPath::Scale => (rec + S_OFF, 3, 2),
                    ChannelPath::Weights => {
                        for &mb in &bindings_of_node[ch.node] {
                            let targets = data.morph_bindings[mb].default_weights.len();
                            maps.map_morph(
                                &mut morph_slot_of[mb],
                                mb,
                                targets.min(sampler.components()),
                                ch.sampler,
                            );
                        }
                        continue;
                    }
                };
                let rotation = ch.path == ChannelPath::Rotation;
                let slot_of = &mut trs_slot_of[ch.node * 3 + path_index];
                if *slot_of == NONE {
                    *slot_of = maps.trs_slots.len();
                    maps.trs_slots.push(TrsSlot { at, rotation });
                }
                let slot = *slot_of;
                maps.trs.push(
                    slot,
                    TrsEntry {
                        sampler: ch.sampler,
                        slot,
                        components,
                        rotation,
                    },
                );
            }
        }
        maps.trs.finish();
        maps.morph.finish();
        maps
    }

    fn map_morph(
        &mut self,
        slot_of: &mut usize,
        binding: usize,
        components: usize,
        sampler: usize,
    ) {
        if components == 0 {
            return;
        }
        if *slot_of == NONE {
            *slot_of = self.morph_slots.len();
            self.morph_slots.push(MorphSlot {
                binding,
                values: self.morph_value_len,
                components,
            });
            self.morph_value_len += components;
            self.max_morph_components = self.max_morph_components.max(components);
        }
        let slot = self.morph_slots[*slot_of];
        self.morph.push(
            *slot_of,
            MorphEntry {
                sampler,
                slot: *slot_of,
                values: slot.values,
                // Validation gives every weights sampler of a binding the same count.
                components: components.min(slot.components),
            },
        );
    }

    /// The most TRS entries any one clip has.
    pub(crate) fn max_trs_entries(&self) -> usize {
        self.trs
            .clip_start
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// The TRS entries of clip `clip` (empty for an index past the end).
    #[inline]
    pub(crate) fn trs_entries(&self, clip: usize) -> &[TrsEntry] {
        self.trs.clip(clip)
    }

    /// The morph entries of clip `clip` (empty for an index past the end).
    #[inline]
    pub(crate) fn morph_entries(&self, clip: usize) -> &[MorphEntry] {
        self.morph.clip(clip)
    }
}
