//! Options for compiling a [`Rig`](crate::Rig): which CPU kernels run, and whether clips are
//! compressed, with the report of what compression did to each clip.

use crate::{AnimError, CpuKernels};

/// How a [`Rig`](crate::Rig) is compiled ([`Rig::with_options`](crate::Rig::with_options)).
/// `Default` is what [`Rig::new`](crate::Rig::new) does: the widest kernels this CPU runs and
/// lossless keys.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RigOptions {
    /// The CPU kernels of the pose pass.
    pub kernels: CpuKernels,
    /// Compress the clips' keys within an error bound (`None`: lossless, bit for bit the keys
    /// of the asset).
    pub compression: Option<Compression>,
}

/// Lossy compression of a rig's clips, bounded by the error it may cause (the method of the
/// Animation Compression Library): for each joint, points at distance [`shell`](Self::shell)
/// along its three axes are taken to the rig's space by the lossless pose and by the
/// compressed one, and no point may move by more than [`bound`](Self::bound), at every key
/// time and a quarter, half and three quarters of the way between keys.
///
/// Within that bound each clip's keys are stored as [`keys`](Self::keys) says, and, group of
/// four nodes by group, rotations interpolate by normalised lerp instead of slerp where
/// [`nlerp`](Self::nlerp) allows it and that alone causes at most half the bound. Choosing
/// plays each clip once per trial, so building the rig costs time (milliseconds for a
/// 20-joint character, a few seconds for a 368-joint rig with [`KeyFormat::Variable`]): build
/// compressed rigs once, at load.
///
/// Units are the asset's: glTF's is the metre, so [`Compression::default`] is 0.01 cm at 3 cm
/// (ACL's defaults); [`Compression::for_unit`] scales them for an asset written in other
/// units. Compression applies to clips played four nodes at a time (LINEAR or STEP tracks
/// sharing key times per group of four nodes, as exporters write them); other clips, and the
/// paths that read tracks one by one (root motion, snapshots), keep the lossless keys.
///
/// ```
/// use std::sync::Arc;
/// use skel_anim::{AnimationData, Compression, NodeRest, Rig, RigOptions};
///
/// let data = Arc::new(AnimationData { nodes: vec![NodeRest::new("root", None)], ..Default::default() });
/// let options = RigOptions { compression: Some(Compression::default()), ..Default::default() };
/// let rig = Rig::with_options(data, &options)?;
/// assert_eq!(rig.node_count(), 1);
/// // A centimetre asset: the same 0.01 cm at 3 cm.
/// assert_eq!(Compression::for_unit(0.01).shell, 3.0);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compression {
    /// Distance of the measured points from each joint, in the asset's units: along the
    /// joint's world axes with the static scale above it taken out (`shell::ClipReference`).
    pub shell: f32,
    /// The largest distance any such point may move from where the clip itself puts it (glTF's
    /// interpolation, in f64), in the asset's units.
    pub bound: f32,
    /// Whether rotations may interpolate by normalised lerp (ozz-animation's rule: cheaper,
    /// and exact at keys and half-way) where its error is at most half the bound.
    pub nlerp: bool,
    /// How the keys are stored: fastest to decode, or smallest.
    pub keys: KeyFormat,
}

/// How compressed keys are stored ([`Compression::keys`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeyFormat {
    /// Per group of four nodes and property: **held** where it barely moves (stored once),
    /// else **quantised** to 8 or 16 bits per value, range-reduced per value over the clip,
    /// else f32; the first of those that keeps the bound, parents first. Decodes in fewer
    /// instructions than ozz-animation's lossless sampling; 1.2–3.5 times smaller than the
    /// keys. The default because it decodes in what lossless playback takes;
    /// [`Variable`](Self::Variable) is smaller and decodes in more.
    #[default]
    Fixed,
    /// The Animation Compression Library's variable bit rates: each node's translation, scale
    /// and rotation (`x, y, z`, `w` rebuilt, or stored where it comes near 0) **bit-packed**
    /// at its own width of 0 to 24 bits per value, chosen per segment of 8, 16 or 32 keys (or once for
    /// the clip), range-reduced over the clip and again, in 8 bits, over the segment. A width
    /// is the fewest bits that keep the value's own error within the bound scaled by how far
    /// it carries (a rotation's to the node's farthest descendant); one factor on all of them
    /// is bisected until the whole clip stays within the bound, then each group tries a
    /// coarser one. Smaller than ACL's clips at its default settings (0.96 of its bytes on 21
    /// clips); decoding takes 0.98–1.41 times the instructions of lossless playback, where
    /// [`Fixed`](Self::Fixed) takes 0.94–1.02 (docs/bench-compression.md).
    Variable,
}

impl Default for Compression {
    /// ACL's defaults for an asset in metres: 0.01 cm at 3 cm; normalised lerp allowed.
    fn default() -> Self {
        Self::for_unit(1.0)
    }
}

impl Compression {
    /// ACL's defaults (0.01 cm at 3 cm) for an asset whose unit is `metres_per_unit` metres
    /// (`1.0` for glTF's metre, `0.01` for an exporter that wrote centimetres).
    #[must_use]
    pub fn for_unit(metres_per_unit: f32) -> Self {
        Self {
            shell: 0.03 / metres_per_unit,
            bound: 0.0001 / metres_per_unit,
            nlerp: true,
            keys: KeyFormat::Fixed,
        }
    }

    pub(crate) fn check(&self) -> Result<(), AnimError> {
        let ok = |v: f32| v.is_finite() && v > 0.0;
        if ok(self.shell) && ok(self.bound) {
            Ok(())
        } else {
            Err(AnimError::BadCompression {
                shell: self.shell,
                bound: self.bound,
            })
        }
    }
}

/// What compression did to one clip ([`Rig::clip_compression`](crate::Rig::clip_compression)).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct ClipCompression {
    /// Bytes of the clip's translation, rotation and scale keys as f32 in the asset (key
    /// times not counted).
    pub raw_bytes: usize,
    /// Bytes of the lossless four-node key blocks the passes would read otherwise.
    pub lossless_bytes: usize,
    /// Bytes of the compressed clip as a file holds it: a header, what each node's
    /// translation, rotation and scale are (rest, constant or keyed), constant values, each
    /// bit-packed property's ranges, widths and fields, f32 keys where kept (the Animation
    /// Compression Library's accounting; the rig's own records, rebuilt at load, aside).
    pub compressed_bytes: usize,
    /// Bytes of the clip's [`StoredKeys`](crate::StoredKeys) (what a file written by
    /// `skel compress --out` holds for it), when the clip was loaded from them; 0 otherwise
    /// ([`Rig::stored_keys`](crate::Rig::stored_keys) writes them).
    pub stored_bytes: usize,
    /// Bytes the compressed keys take in memory: the decoder's records and streams.
    pub memory_bytes: usize,
    /// Groups (one property of four nodes) held constant by compression, beyond those the
    /// clip keeps constant itself.
    pub held: usize,
    /// Groups stored at 8 bits, 16 bits ([`KeyFormat::Fixed`]), bit-packed
    /// ([`KeyFormat::Variable`]) and as f32.
    pub bits8: usize,
    /// See [`bits8`](Self::bits8).
    pub bits16: usize,
    /// See [`bits8`](Self::bits8).
    pub packed: usize,
    /// See [`bits8`](Self::bits8).
    pub float32: usize,
    /// Groups of four nodes whose rotations interpolate by normalised lerp.
    pub nlerp: usize,
    /// The largest shell error measured while choosing (asset units), over every joint at the
    /// times the [`Compression`] docs name.
    pub max_error: f32,
}

impl ClipCompression {
    /// `raw_bytes / compressed_bytes` (infinite when nothing is stored).
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "a ratio of byte counts")]
    pub fn ratio(&self) -> f64 {
        self.raw_bytes as f64 / self.compressed_bytes as f64
    }
}
