//! Parity with three-vrm-animation 3.5.5: `scripts/peer/vrm/vrma.mjs` played the fixture
//! `.vrma` clips on fixture avatars in Node (three 0.187, `createVRMAnimationClip`, an
//! `AnimationMixer`, `vrm.humanoid.update()`) and recorded every humanoid bone's world position
//! at seven times (`goldens/vrma.json`). skel's retargeted clip, posed at the same times, must
//! put every bone within 0.1 mm of three-vrm's.

use serde_json::Value;
use skel_gltf::vrm::HumanBone;
use skel_retarget::retarget_vrma;

use super::{avatar, vrma, world_at};

#[test]
fn humanoid_bones_land_where_three_vrm_animation_puts_them() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/peer/vrm/goldens/vrma.json");
    let golden: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(golden["threeVrmAnimation"], "3.5.5");
    let cases = golden["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    let mut worst = 0.0f64;
    for case in cases {
        let (a, v) = (
            case["avatar"].as_str().unwrap(),
            case["vrma"].as_str().unwrap(),
        );
        let target = avatar(a);
        let src = vrma(v);
        let clip = &retarget_vrma(&src, &target).unwrap()[0];
        let vrm = target.vrm().unwrap();
        let mut compared = 0;
        for frame in case["frames"].as_array().unwrap() {
            let t = frame["time"].as_f64().unwrap() as f32;
            let world = world_at(&target.animation, clip, t);
            for (name, p) in frame["positions"].as_object().unwrap() {
                let node = vrm
                    .humanoid
                    .node(HumanBone::from_name(name).unwrap())
                    .unwrap();
                let theirs = glam::DVec3::new(
                    p[0].as_f64().unwrap(),
                    p[1].as_f64().unwrap(),
                    p[2].as_f64().unwrap(),
                );
                let d = (world[node].w_axis.truncate() - theirs).length();
                assert!(d < 1e-4, "{a} + {v}, {name} at {t}: {d} m from three-vrm");
                worst = worst.max(d);
                compared += 1;
            }
        }
        assert_eq!(compared, 7 * 19, "{a} + {v}");
    }
    println!(
        "worst distance from three-vrm-animation: {:.3} µm",
        worst * 1e6
    );
}
