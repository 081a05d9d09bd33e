//! Mirrored clips at load time: every clip replaced by its mirror image (`skel … --mirror`),
//! or every clip's mirror image added beside it (what a graph's `"mirror": true` plays). The
//! rule and its limits are `skel_anim::mirror`'s; pairs come from the asset's joint names.

use skel_anim::{AnimError, AnimationData, MirrorMap, mirror_clip};
use skel_gltf::MorphNames;

/// Which mirrored clips [`load_gltf`](crate::load_gltf) bakes into the asset (see
/// [`mirror_clips`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ClipMirroring {
    /// The clips as the file has them.
    #[default]
    None,
    /// Every clip replaced by its mirror image, keeping its name: the asset plays left for
    /// right everywhere (layers, graphs, crowds).
    Replace,
    /// Every clip's mirror image appended as `"<name>.mirror"`: a graph's `"mirror": true`
    /// finds them.
    Append,
}

/// Bakes `data`'s mirrored clips as `how` says, with the left/right pairs found from the
/// joint names ([`MirrorMap::from_names`]). Baked clips cost nothing per frame, mirror root
/// motion with them, and mirroring twice gives the clips back.
///
/// # Errors
/// What [`MirrorMap::from_names`] and [`mirror_clip`] report (no pairs found, a pair that
/// breaks the hierarchy); `data` is left as it was.
///
/// ```
/// use skel::{ClipMirroring, mirror_clips};
/// use skel::anim::*;
///
/// let leg = |name: &str, x: f32| NodeRest { translation: [x, -1.0, 0.0], ..NodeRest::new(name, Some(0)) };
/// let swing = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 1.0, 0.3, 0.0, 0.0, 0.954], Interpolation::Linear)?;
/// let mut data = AnimationData {
///     nodes: vec![NodeRest::new("Hips", None), leg("Leg.L", 0.2), leg("Leg.R", -0.2)],
///     clips: vec![Clip::new("step", vec![swing], vec![Channel { sampler: 0, node: 1, path: ChannelPath::Rotation }])],
///     ..AnimationData::default()
/// };
/// mirror_clips(&mut data, ClipMirroring::Replace)?;
/// assert_eq!(data.clips[0].name, "step");
/// assert_eq!(data.clips[0].channels[0].node, 2); // the right leg swings now
/// # Ok::<(), AnimError>(())
/// ```
pub fn mirror_clips(data: &mut AnimationData, how: ClipMirroring) -> Result<(), AnimError> {
    mirror_clips_named(data, &[], how)
}

/// Each morph binding's node with its targets' names, for
/// [`MirrorMap::with_morph_target_names`]: `morph_names` is `GltfAsset::morph_names` (one
/// entry per morph binding of `data`, in order); meshes without names are left out.
#[must_use]
pub fn morph_target_names(
    data: &AnimationData,
    morph_names: &[MorphNames],
) -> Vec<(usize, Vec<String>)> {
    data.morph_bindings
        .iter()
        .zip(morph_names)
        .filter_map(|(binding, names)| Some((binding.node, names.targets.clone()?)))
        .collect()
}

/// [`mirror_clips`] with the names of the asset's morph targets (`GltfAsset::morph_names`,
/// one entry per morph binding of `data`, in order): sided targets swap by name
/// ([`MirrorMap::with_morph_target_names`]), so that a wink of the left eye plays as a wink
/// of the right. What [`load_gltf`](crate::load_gltf) and `skel … --mirror` run.
///
/// # Errors
/// As [`mirror_clips`].
///
/// ```
/// use skel::anim::*;
/// use skel::gltf::MorphNames;
/// use skel::{ClipMirroring, mirror_clips_named};
///
/// // A head whose mesh has a blink on each side; the clip winks the left eye.
/// let eye = |name: &str, x: f32| NodeRest { translation: [x, 0.0, 0.0], ..NodeRest::new(name, Some(0)) };
/// let wink = Sampler::new(vec![0.0], vec![1.0, 0.0], Interpolation::Step)?;
/// let mut data = AnimationData {
///     nodes: vec![NodeRest::new("Head", None), eye("Eye.L", 0.1), eye("Eye.R", -0.1)],
///     morph_bindings: vec![MorphBinding { node: 0, default_weights: vec![0.0; 2] }],
///     clips: vec![Clip::new("wink", vec![wink], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Weights }])],
///     ..AnimationData::default()
/// };
/// let mut names = MorphNames::default();
/// names.targets = Some(vec!["Blink_L".into(), "Blink_R".into()]);
/// mirror_clips_named(&mut data, &[names], ClipMirroring::Replace)?;
/// assert_eq!(data.clips[0].samplers[0].output(), &[0.0, 1.0]); // the right eye winks
/// # Ok::<(), AnimError>(())
/// ```
pub fn mirror_clips_named(
    data: &mut AnimationData,
    morph_names: &[MorphNames],
    how: ClipMirroring,
) -> Result<(), AnimError> {
    if how == ClipMirroring::None || data.clips.is_empty() {
        return Ok(());
    }
    let map =
        MirrorMap::from_names(data)?.with_morph_target_names(morph_target_names(data, morph_names));
    match how {
        ClipMirroring::None => {}
        ClipMirroring::Append => {
            let all: Vec<usize> = (0..data.clips.len()).collect();
            data.append_mirrored_clips(&map, &all)?;
        }
        ClipMirroring::Replace => {
            // A mirrored clip keeps its source's name.
            let mirrored = (0..data.clips.len())
                .map(|c| mirror_clip(data, &map, c))
                .collect::<Result<Vec<_>, AnimError>>()?;
            data.clips = mirrored;
        }
    }
    Ok(())
}
