//! Rest alignment: the built-in character (arms down) walking on Superhero (T-pose) keeps
//! every mapped bone's world direction within 2° of the source's at every sampled time; without
//! alignment the arms stay out (and the result is Babylon.js's, see `babylon.rs`).

mod common;

use glam::{Mat4, Vec3};
use skel_anim::{AnimationData, PoseScratch, apply_clip, compute_world_matrices};
use skel_retarget::{
    BodySide, HumanBone, HumanoidMap, Limb, RetargetOptions, retarget, with_clips,
};

/// Bones as (joint, child) canonical pairs.
fn bones() -> Vec<(HumanBone, HumanBone)> {
    let mut v = vec![
        (HumanBone::Spine, HumanBone::Spine1),
        (HumanBone::Spine1, HumanBone::Chest),
        (HumanBone::Neck, HumanBone::Head),
    ];
    for side in [BodySide::Left, BodySide::Right] {
        let l = |limb| HumanBone::Limb(side, limb);
        v.extend([
            (l(Limb::Shoulder), l(Limb::UpperArm)),
            (l(Limb::UpperArm), l(Limb::LowerArm)),
            (l(Limb::LowerArm), l(Limb::Hand)),
            (l(Limb::UpperLeg), l(Limb::LowerLeg)),
            (l(Limb::LowerLeg), l(Limb::Foot)),
            (l(Limb::Foot), l(Limb::Toes)),
        ]);
    }
    v
}

fn worlds(data: &AnimationData, clip: usize, t: f32) -> Vec<Mat4> {
    let mut scratch = PoseScratch::new(data).unwrap_or_else(|e| panic!("{e}"));
    apply_clip(data, clip, t, &mut scratch);
    compute_world_matrices(data, &mut scratch);
    scratch.world.clone()
}

fn direction(w: &[Mat4], a: usize, b: usize) -> Vec3 {
    (w[b].w_axis - w[a].w_axis).truncate().normalize()
}

/// The largest angle (degrees) between a target bone and its source bone over the samples;
/// `None` only when the shared asset is missing (a skip, or a failure under
/// `SKEL_REQUIRE_ASSETS=1`). A map or clip that is not found fails the test.
fn worst_angle(align_rest: bool) -> Option<f32> {
    let target = common::asset("align::walk_on_superhero", common::SUPERHERO)?;
    let source = common::character();
    let (hs, ht) = (
        HumanoidMap::detect(&source).unwrap_or_else(|e| panic!("the character: {e}")),
        HumanoidMap::detect(&target).unwrap_or_else(|e| panic!("Superhero: {e}")),
    );
    let map = HumanoidMap::pair(&hs, &ht);
    let options = RetargetOptions {
        align_rest,
        clips: Some(vec!["Walk".into()]),
        ..RetargetOptions::default()
    };
    let baked = with_clips(
        &target,
        retarget(&source, &target, &map, &options).unwrap_or_else(|e| panic!("{e}")),
    );
    let walk_t = baked
        .clip_index("Walk")
        .unwrap_or_else(|| panic!("no baked Walk"));
    let walk_s = source
        .clip_index("Walk")
        .unwrap_or_else(|| panic!("the character has no Walk"));
    let mut worst = 0.0f32;
    for k in 0..=20 {
        let t = k as f32 * 0.05;
        let (ws, wt) = (worlds(&source, walk_s, t), worlds(&baked, walk_t, t));
        for (a, b) in bones() {
            let (Some(sa), Some(sb), Some(ta), Some(tb)) =
                (hs.get(a), hs.get(b), ht.get(a), ht.get(b))
            else {
                panic!("{a} or {b} missing")
            };
            let angle = direction(&ws, sa, sb)
                .angle_between(direction(&wt, ta, tb))
                .to_degrees();
            worst = worst.max(angle);
        }
    }
    Some(worst)
}

#[test]
fn aligned_walk_follows_the_source_bones() {
    let Some(worst) = worst_angle(true) else {
        return;
    };
    assert!(worst < 2.0, "worst bone direction {worst}°");
}

/// Without alignment Superhero keeps its T-pose arms where the character's hang: far apart.
#[test]
fn unaligned_walk_keeps_the_target_rest() {
    let Some(worst) = worst_angle(false) else {
        return;
    };
    assert!(worst > 45.0, "worst bone direction {worst}°");
}
