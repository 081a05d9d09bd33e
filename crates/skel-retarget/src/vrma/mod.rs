//! `.vrma` clips (`VRMC_vrm_animation` 1.0) on any avatar: a VRM (1.0, or 0.x converted),
//! paired bone by bone through both humanoid maps, or any other character through the
//! humanoid auto-map. The rules are three-vrm-animation 3.5's (`VRMAnimationLoaderPlugin`,
//! `createVRMAnimationClip`) over three-vrm's normalized humanoid; `keys` states them.
//!
//! ```
//! use skel_gltf::LoadOptions;
//! use skel_retarget::Vrma;
//!
//! let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/vrm");
//! let vrma = Vrma::load_path(&dir.join("walk.vrma"), &LoadOptions::default())?;
//! let avatar = skel_gltf::load_path(&dir.join("v1_expressions.vrm"), &LoadOptions::default())?;
//! let clips = skel_retarget::retarget_vrma(&vrma, &avatar)?;
//! assert_eq!(clips[0].name, "walk");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bones;
mod expressions;
mod keys;
mod load;

use std::collections::BTreeMap;

use glam::DMat4;
use skel_anim::{Channel, ChannelPath, Clip, Sampler};
use skel_gltf::GltfAsset;
use skel_gltf::vrm::{HumanBone as VrmBone, VrmSource, humanoid_parent};

pub use bones::VrmaPair;
pub use load::Vrma;

use crate::error::{RetargetError, Side};
use crate::rest::{RestPose, checked_inverse};
use keys::{HipsRule, RotationRule, rotation_of};

/// The bones a `.vrma` drives on `target`: by VRM bone name when `target` is a VRM, else
/// through [`HumanoidMap::detect`](crate::HumanoidMap::detect) (VRM's spine, chest and
/// upperChest paired end to end with the joints the auto-map found).
///
/// # Errors
/// [`RetargetError::NotHumanoid`] when a character without VRM data is not recognised as a
/// humanoid.
pub fn vrma_pairs(vrma: &Vrma, target: &GltfAsset) -> Result<Vec<VrmaPair>, RetargetError> {
    let bones = &vrma.animation.human_bones;
    match target.vrm() {
        Some(vrm) => Ok(bones::pair_vrm(bones, vrm)),
        None => bones::pair_auto(bones, &target.animation),
    }
}

/// Every clip of a `.vrma` retargeted onto `target`, in the `.vrma`'s clip order and names.
///
/// Each clip has a rotation channel per paired bone the clip rotates, the hips' translation,
/// and, on a VRM avatar, one weights channel per mesh node its expressions reach (the
/// `.vrma`'s expression weights through the avatar's morph target binds). Other channels of
/// the `.vrma` (non-humanoid nodes, translations of other bones, scales) are dropped, as
/// three-vrm-animation drops them. The look-at track is not applied.
///
/// # Errors
/// [`RetargetError::NotHumanoid`] (see [`vrma_pairs`]), [`RetargetError::EmptyMap`] when no
/// bone pairs, [`RetargetError::InvalidRig`] for a broken hierarchy,
/// [`RetargetError::VrmaHips`] when the hips are driven and the `.vrma`'s sit at height 0,
/// [`RetargetError::Singular`] for a degenerate rest matrix above the avatar's hips.
pub fn retarget_vrma(vrma: &Vrma, target: &GltfAsset) -> Result<Vec<Clip>, RetargetError> {
    let pairs = vrma_pairs(vrma, target)?;
    if pairs.is_empty() {
        return Err(RetargetError::EmptyMap);
    }
    let source = &vrma.asset.animation;
    let src = RestPose::new(source, Side::Source)?;
    let tgt = RestPose::new(&target.animation, Side::Target)?;
    let vrm0 = matches!(
        target.vrm().map(|v| &v.source),
        Some(VrmSource::Vrm0 { .. })
    );
    let bones = &vrma.animation.human_bones;
    let hips = VrmBone::Hips;
    let hips_parent = bones
        .get(&hips)
        .map_or(DMat4::IDENTITY, |&h| src.parent_world(h));
    let mut rules: BTreeMap<usize, Vec<(usize, RotationRule)>> = BTreeMap::new();
    let mut hips_rule = None;
    for p in &pairs {
        let mut up = humanoid_parent(p.bone);
        while let Some(b) = up.filter(|b| !bones.contains_key(b)) {
            up = humanoid_parent(b);
        }
        let l = up.map_or(rotation_of(hips_parent), |b| {
            rotation_of(src.world[bones[&b]])
        });
        let pt = rotation_of(tgt.parent_world(p.target));
        let rule = RotationRule {
            l,
            r: rotation_of(src.world[p.source]).inverse(),
            a: pt.inverse(),
            c: pt * tgt.local[p.target].r,
            vrm0,
        };
        rules.entry(p.source).or_default().push((p.target, rule));
        if p.bone == hips {
            hips_rule = Some(hips_translation(&src, &tgt, p, vrm0)?);
        }
    }
    let mut out = Vec::with_capacity(source.clips.len());
    for clip in &source.clips {
        let mut samplers: Vec<Sampler> = Vec::new();
        let mut channels = Vec::new();
        let mut push = |samplers: &mut Vec<Sampler>, node, path, s: Option<Sampler>| {
            if let Some(s) = s {
                samplers.push(s);
                channels.push(Channel {
                    sampler: samplers.len() - 1,
                    node,
                    path,
                });
            }
        };
        for ch in &clip.channels {
            let sampler = &clip.samplers[ch.sampler];
            match ch.path {
                ChannelPath::Rotation => {
                    for (t, rule) in rules.get(&ch.node).into_iter().flatten() {
                        push(&mut samplers, *t, ch.path, rule.rewrite(sampler));
                    }
                }
                ChannelPath::Translation if bones.get(&hips) == Some(&ch.node) => {
                    if let Some((t, rule)) = &hips_rule {
                        push(&mut samplers, *t, ch.path, rule.rewrite(sampler));
                    }
                }
                _ => {}
            }
        }
        if let Some(avatar) = target.vrm() {
            let tracks = vrma.animation.expression_tracks(clip);
            for (node, s) in expressions::weight_channels(&tracks, avatar, &target.animation) {
                push(&mut samplers, node, ChannelPath::Weights, Some(s));
            }
        }
        let mut c = Clip::new(clip.name.clone(), samplers, channels);
        c.markers = clip.markers.clone();
        out.push(c);
    }
    Ok(out)
}

/// The hips' translation rule for pair `p` (the hips): the ratio of rest hips heights.
fn hips_translation(
    src: &RestPose,
    tgt: &RestPose,
    p: &VrmaPair,
    vrm0: bool,
) -> Result<(usize, HipsRule), RetargetError> {
    let source_y = src.position(p.source).y;
    if source_y.abs() < 1e-9 {
        return Err(RetargetError::VrmaHips {
            side: Side::Source,
            node: src.names[p.source].clone(),
        });
    }
    let rule = HipsRule {
        source_parent: src.parent_world(p.source),
        inv_target_parent: checked_inverse(
            tgt.parent_world(p.target),
            Side::Target,
            &tgt.names[p.target],
        )?,
        ratio: tgt.position(p.target).y / source_y,
        vrm0,
    };
    Ok((p.target, rule))
}
