//! Foot placement's edges: a ground answering NaN (the pose stays as the clip made it), NaN
//! or degenerate poses (a typed error, the pose untouched), every description error, the
//! grounds' own errors, a mirrored character frame, and no allocation per frame.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod foot_placement_biped;

use foot_placement_biped::*;
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{
    AnimError, FootDesc, FootPlacement, FootPlacementDesc, FootPlacementState, GroundHit,
    GroundPlane, GroundQuery, PoseScratch, R_OFF, T_OFF, TRS_STRIDE, TriangleGround, apply_clip,
};

/// A ground that answers with NaN, or with a zero normal.
struct Broken {
    point: Vec3,
    normal: Vec3,
}

impl GroundQuery for Broken {
    fn cast(&self, _: Vec3, _: Vec3, _: f32) -> Option<GroundHit> {
        Some(GroundHit {
            point: self.point,
            normal: self.normal,
        })
    }
}

#[test]
fn a_ground_answering_nan_leaves_the_pose_as_the_clip_made_it() {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    for ground in [
        Broken {
            point: Vec3::NAN,
            normal: Vec3::Y,
        },
        Broken {
            point: Vec3::ZERO,
            normal: Vec3::NAN,
        },
        Broken {
            point: Vec3::new(0.0, f32::INFINITY, 0.0),
            normal: Vec3::Y,
        },
        Broken {
            point: Vec3::ZERO,
            normal: Vec3::ZERO,
        },
    ] {
        // Nothing planted (so nothing locked): only the ground could move the feet.
        let unplanted = |_, s: &mut FootPlacementState| {
            s.set_planted(0, Some(false)).unwrap();
            s.set_planted(1, Some(false)).unwrap();
        };
        walk(
            &data,
            &placement,
            &ground,
            90,
            |_| Affine3A::IDENTITY,
            unplanted,
            |f| {
                assert_eq!(f.report.hits, 0);
                assert!(f.report.pelvis_drop < 1e-6, "{:?}", f.report);
                for (n, (a, c)) in f.at.iter().zip(&f.clip_at).enumerate() {
                    assert!(
                        (*a - *c).length() < 1e-5,
                        "node {n}: {a} against the clip's {c}"
                    );
                }
            },
        );
    }
}

/// A posed biped, its placement and a fresh state.
fn posed() -> (
    skel_anim::AnimationData,
    FootPlacement,
    FootPlacementState,
    Vec<f32>,
) {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    let state = FootPlacementState::new(&placement);
    let mut scratch = PoseScratch::new(&data).unwrap();
    apply_clip(&data, 0, 0.3, &mut scratch);
    (data, placement, state, scratch.trs)
}

fn bits(trs: &[f32]) -> Vec<u32> {
    trs.iter().map(|v| v.to_bits()).collect()
}

/// What is wrong with a pose, how to make it so, and the error it must give.
type Case = (&'static str, fn(&mut [f32]), fn(&AnimError) -> bool);

#[test]
fn a_nan_or_degenerate_pose_is_an_error_and_is_left_untouched() {
    let ground = GroundPlane::new(Vec3::Y, -0.1).unwrap();
    let cases: [Case; 4] = [
        (
            "NaN knee rotation",
            |trs| trs[KNEE[0] * TRS_STRIDE + R_OFF] = f32::NAN,
            |e| matches!(e, AnimError::NotFiniteValue { .. }),
        ),
        (
            "infinite pelvis",
            |trs| trs[PELVIS * TRS_STRIDE + T_OFF] = f32::INFINITY,
            |e| matches!(e, AnimError::NotFiniteValue { .. }),
        ),
        (
            "zero-length shin",
            |trs| {
                trs[ANKLE[1] * TRS_STRIDE + T_OFF..ANKLE[1] * TRS_STRIDE + T_OFF + 3].fill(0.0);
            },
            |e| matches!(e, AnimError::IkDegenerate { .. }),
        ),
        (
            "knee scaled to nothing",
            |trs| {
                trs[KNEE[0] * TRS_STRIDE + 7..KNEE[0] * TRS_STRIDE + 10].fill(0.0);
            },
            |e| matches!(e, AnimError::IkDegenerate { .. }),
        ),
    ];
    for (what, spoil, expected) in cases {
        let (data, placement, mut state, mut trs) = posed();
        // A good frame first, so that the state has something to lose.
        let root = Affine3A::IDENTITY;
        let good = trs.clone();
        placement
            .solve(&mut state, &data, &mut trs.clone(), &root, &ground, 0.016)
            .unwrap();
        let mut remembered = state.clone();
        spoil(&mut trs);
        let before = bits(&trs);
        let err = placement
            .solve(&mut state, &data, &mut trs, &root, &ground, 0.016)
            .unwrap_err();
        assert!(expected(&err), "{what}: {err}");
        assert_eq!(bits(&trs), before, "{what}: the pose was written");
        // The state is as it was: the next good frame comes out as if the bad one never was.
        let (mut after, mut reference) = (good.clone(), good);
        placement
            .solve(&mut state, &data, &mut after, &root, &ground, 0.016)
            .unwrap();
        placement
            .solve(
                &mut remembered,
                &data,
                &mut reference,
                &root,
                &ground,
                0.016,
            )
            .unwrap();
        assert_eq!(bits(&after), bits(&reference), "{what}: the state changed");
        assert_eq!(state.feet(), remembered.feet(), "{what}");
    }
}

#[test]
fn bad_frame_inputs_are_errors() {
    let (data, placement, mut state, mut trs) = posed();
    let ground = GroundPlane::new(Vec3::Y, 0.0).unwrap();
    let id = Affine3A::IDENTITY;
    let nan_root = Affine3A::from_translation(Vec3::NAN);
    let solve = |state: &mut FootPlacementState, trs: &mut [f32], root: &Affine3A, dt| {
        placement.solve(state, &data, trs, root, &ground, dt)
    };
    assert!(matches!(
        solve(&mut state, &mut trs, &id, f32::NAN),
        Err(AnimError::NotFiniteValue { .. })
    ));
    assert!(matches!(
        solve(&mut state, &mut trs, &nan_root, 0.01),
        Err(AnimError::NotFiniteValue { .. })
    ));
    let short = trs.len() - 1;
    assert!(matches!(
        solve(&mut state, &mut trs[..short], &id, 0.01),
        Err(AnimError::LengthMismatch { .. })
    ));
    // A state made for a one-footed placement.
    let one = FootPlacementDesc::new(PELVIS, vec![FootDesc::new(HIP[0], KNEE[0], ANKLE[0], None)]);
    let mut other = FootPlacementState::new(&FootPlacement::new(&data, &one).unwrap());
    assert!(matches!(
        solve(&mut other, &mut trs, &id, 0.01),
        Err(AnimError::LengthMismatch { .. })
    ));
    // A negative step is a zero step.
    assert!(solve(&mut state, &mut trs, &id, -1.0).is_ok());
    assert_eq!(
        state.set_planted(2, Some(true)),
        Err(AnimError::NoSuchFoot {
            foot: 2,
            foot_count: 2
        })
    );
}

#[test]
fn descriptions_that_cannot_work_are_refused() {
    let data = biped();
    let feet = |f: FootDesc| FootPlacementDesc::new(PELVIS, vec![f]);
    let leg = FootDesc::new(HIP[0], KNEE[0], ANKLE[0], Some(TOE[0]));
    let bad =
        |what: &str, desc: FootPlacementDesc| FootPlacement::new(&data, &desc).expect_err(what);
    let is_setting = |e: &AnimError, name: &str| matches!(e, AnimError::BadFootPlacement { what, .. } if *what == name);
    assert!(is_setting(
        &bad("no feet", FootPlacementDesc::new(PELVIS, vec![])),
        "foot count"
    ));
    assert!(is_setting(
        &bad(
            "up",
            FootPlacementDesc {
                up: Vec3::ZERO,
                ..desc()
            }
        ),
        "up vector length"
    ));
    assert!(is_setting(
        &bad(
            "step",
            FootPlacementDesc {
                max_step_down: -0.1,
                ..desc()
            }
        ),
        "max step down"
    ));
    assert!(is_setting(
        &bad(
            "time",
            FootPlacementDesc {
                ground_time: f32::NAN,
                ..desc()
            }
        ),
        "ground time"
    ));
    assert!(is_setting(
        &bad(
            "ray",
            FootPlacementDesc {
                ray_length: 0.1,
                ..desc()
            }
        ),
        "ray length"
    ));
    assert!(is_setting(
        &bad(
            "tilt",
            FootPlacementDesc {
                max_tilt: 2.0,
                ..desc()
            }
        ),
        "max tilt"
    ));
    assert!(is_setting(
        &bad(
            "extension",
            FootPlacementDesc {
                max_extension: 0.0,
                ..desc()
            }
        ),
        "max extension"
    ));
    let given = FootDesc {
        ankle_height: Some(-0.01),
        ..leg
    };
    assert!(is_setting(&bad("height", feet(given)), "ankle height"));
    assert_eq!(
        bad(
            "range",
            feet(FootDesc {
                toe: Some(99),
                ..leg
            })
        ),
        AnimError::BadNode {
            what: "foot placement: toe".into(),
            node: 99,
            node_count: 10
        }
    );
    assert_eq!(
        bad(
            "chain",
            feet(FootDesc {
                knee: KNEE[1],
                ..leg
            })
        ),
        AnimError::IkNotAChain {
            node: KNEE[1],
            expected: HIP[0],
            parent: Some(HIP[1])
        }
    );
    assert_eq!(
        bad(
            "toe",
            feet(FootDesc {
                toe: Some(KNEE[0]),
                ..leg
            })
        ),
        AnimError::IkNotAChain {
            node: KNEE[0],
            expected: ANKLE[0],
            parent: Some(HIP[0])
        }
    );
    let above = FootPlacementDesc::new(HIP[1], vec![leg]);
    assert_eq!(
        bad("pelvis", above),
        AnimError::FootNotBelowPelvis {
            foot: 0,
            hip: HIP[0],
            pelvis: HIP[1]
        }
    );
    // Heights measured from the rest pose: the biped stands on y = 0.
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    let (ankle, toe) = placement.sole_heights(1).unwrap();
    assert!(
        (f64::from(ankle) - ANKLE_HEIGHT).abs() < 1e-6
            && (f64::from(toe) - TOE_HEIGHT).abs() < 1e-6
    );
}

#[test]
fn grounds_refuse_what_is_not_a_surface() {
    for (normal, offset) in [
        (Vec3::ZERO, 0.0),
        (Vec3::NAN, 0.0),
        (Vec3::Y, f32::INFINITY),
    ] {
        assert!(matches!(
            GroundPlane::new(normal, offset),
            Err(AnimError::BadGroundPlane { offset: o, .. }) if o.to_bits() == offset.to_bits()
        ));
    }
    // Normalised: 2y − 2 = 0 is y = 1.
    let plane = GroundPlane::new(Vec3::new(0.0, 2.0, 0.0), -2.0).unwrap();
    assert_eq!((plane.normal(), plane.offset()), (Vec3::Y, -1.0));
    let corners = [Vec3::ZERO, Vec3::X, Vec3::Z];
    assert_eq!(
        TriangleGround::from_indexed(&corners, &[0, 1]),
        Err(AnimError::GroundIndexCount { count: 2 })
    );
    assert_eq!(
        TriangleGround::from_indexed(&corners, &[0, 1, 3]),
        Err(AnimError::GroundIndexOutOfRange {
            at: 2,
            index: 3,
            vertex_count: 3
        })
    );
    assert!(matches!(
        TriangleGround::new(vec![corners, [Vec3::NAN; 3]]),
        Err(AnimError::NotFinite { .. })
    ));
    // Below, facing down; the normal faces the ray's origin either way.
    let one = TriangleGround::from_indexed(&corners, &[0, 1, 2]).unwrap();
    let hit = one.cast(Vec3::new(0.2, -1.0, 0.2), Vec3::Y, 2.0).unwrap();
    assert_eq!(hit.normal, Vec3::NEG_Y);
    assert!(
        one.cast(Vec3::new(0.2, 1.0, 0.2), Vec3::NEG_Y, 0.5)
            .is_none(),
        "out of reach"
    );
    assert!(
        TriangleGround::new(vec![])
            .unwrap()
            .cast(Vec3::Y, Vec3::NEG_Y, 9.0)
            .is_none()
    );
}

#[test]
fn a_mirrored_character_frame_places_the_feet_alike() {
    // The left-handed convention puts diag(−1, 1, 1) in front of the roots: the biped walks
    // mirrored, and its feet must still meet a 20° ramp.
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    let a = 20_f32.to_radians();
    let ramp = GroundPlane::through(Vec3::ZERO, Vec3::new(-a.sin(), a.cos(), 0.0)).unwrap();
    let mirror = Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let ahead = forward(|_| 0.0);
    let mut planted = 0;
    walk(
        &data,
        &placement,
        &ramp,
        120,
        |t| ahead(t) * mirror,
        |_, _| {},
        |f| {
            for (status, ankle) in f.feet.iter().zip(ANKLE) {
                planted += usize::from(status.planted);
                let sole = f.at[ankle] - ramp.normal() * ANKLE_HEIGHT as f32;
                assert!(
                    ramp.distance(sole) > -1e-4,
                    "t {}: sole {}",
                    f.time,
                    ramp.distance(sole)
                );
                if status.reached {
                    assert!((f.at[ankle] - status.target).length() < 1e-4);
                }
            }
        },
    );
    assert!(planted > 100);
}

#[test]
fn solving_allocates_nothing() {
    let (data, placement, mut state, trs) = posed();
    let stairs = TriangleGround::new(
        (0..50)
            .map(|k| {
                let (y, z) = (k as f32 * 0.1, k as f32 * 0.2 - 5.0);
                [
                    Vec3::new(-3.0, y, z),
                    Vec3::new(3.0, y, z),
                    Vec3::new(0.0, y, z + 0.2),
                ]
            })
            .collect(),
    )
    .unwrap();
    let mut pose = trs.clone();
    let info = allocation_counter::measure(|| {
        for frame in 0..200 {
            pose.copy_from_slice(&trs);
            let root = Affine3A::from_translation(Vec3::new(0.0, 0.0, frame as f32 * 0.01));
            placement
                .solve(&mut state, &data, &mut pose, &root, &stairs, 1.0 / 60.0)
                .unwrap();
        }
    });
    assert_eq!(info.count_total, 0);
}
