//! Retargeting: RobotExpressive's `Walking` baked onto `Superhero_Male_FullBody`, a rig with
//! other names, proportions and rest pose, and written as one `.glb`.
//!
//! ```text
//! cargo run -p skel --example retarget -- [SOURCE] [TARGET] [CLIP] [OUT.glb]
//! ```
//!
//! Defaults: the two sample models in `../shared/assets` (both CC0), `Walking`,
//! `target/retarget.glb`. The joints are paired by the humanoid auto-mapper (Mixamo, Unreal,
//! Rigify, VRM and plain English names); each key is rewritten with Babylon.js's rule and the
//! root's motion is scaled by the height ratio. `skel render target/retarget.glb --clip
//! Walking` draws the result.

use std::path::PathBuf;

use skel::anim::{AnimationData, Handedness, PoseScratch, apply_clip, compute_world_matrices};
use skel::gltf::{GltfDocument, LoadOptions, load_document, write_glb_file};
use skel::retarget::{
    BodySide, HumanBone, HumanoidMap, Limb, RetargetOptions, retarget, with_clips,
};

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/assets/");

/// The angle (degrees) between the bone `from` → `to` and straight down, at time `t`.
fn swing(data: &AnimationData, clip: usize, (from, to): (usize, usize), t: f32) -> f32 {
    let Ok(mut scratch) = PoseScratch::new(data) else {
        return 0.0;
    };
    apply_clip(data, clip, t, &mut scratch);
    compute_world_matrices(data, &mut scratch);
    let bone = scratch.world[to].w_axis - scratch.world[from].w_axis;
    bone.truncate()
        .angle_between(glam::Vec3::NEG_Y)
        .to_degrees()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let source = args.next().map_or_else(
        || PathBuf::from(ASSETS).join("RobotExpressive/RobotExpressive.glb"),
        PathBuf::from,
    );
    let target = args.next().map_or_else(
        || PathBuf::from(ASSETS).join("Superhero_Male_FullBody/Superhero_Male_FullBody.gltf"),
        PathBuf::from,
    );
    let clip = args.next().unwrap_or_else(|| "Walking".into());
    let out = args.next().unwrap_or_else(|| "target/retarget.glb".into());

    // Node rest poses do not depend on the handedness; glTF's own space is used here.
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    let source = load_document(&GltfDocument::from_path(&source)?, &opts)?.animation;
    let doc = GltfDocument::from_path(&target)?;
    let target = load_document(&doc, &opts)?.animation;

    let (from, to) = (HumanoidMap::detect(&source)?, HumanoidMap::detect(&target)?);
    let map = HumanoidMap::pair(&from, &to);
    let mut joints: Vec<usize> = target
        .skeletons
        .iter()
        .flat_map(|s| s.joints.clone())
        .collect();
    joints.sort_unstable();
    joints.dedup();
    let joints = joints.len();
    println!(
        "{} of the target's {joints} joints paired; the others keep their rest",
        map.len()
    );

    let options = RetargetOptions {
        clips: Some(vec![clip.clone()]),
        ..RetargetOptions::default()
    };
    let baked = with_clips(&target, retarget(&source, &target, &map, &options)?);

    // The left thigh swings as the source's does.
    let leg = |limb| {
        to.get(HumanBone::Limb(BodySide::Left, limb))
            .ok_or("no left leg")
    };
    let thigh = (leg(Limb::UpperLeg)?, leg(Limb::LowerLeg)?);
    let index = baked.clip_index(&clip).ok_or("no clip")?;
    let duration = baked.clips[index].duration();
    let angles: Vec<f32> = (0..=24)
        .map(|k| swing(&baked, index, thigh, duration * k as f32 / 24.0))
        .collect();
    let (lo, hi) = angles
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), &y| (l.min(y), h.max(y)));
    println!("{clip}: {duration:.2} s, left thigh between {lo:.0}° and {hi:.0}° from vertical");

    write_glb_file(&doc, &baked.clips, std::path::Path::new(&out))?;
    println!("wrote {out}");
    Ok(())
}
