//! A synthetic biped for the foot placement tests and bench (1 unit = 1 m): a root, a pelvis
//! and two legs (hip, knee, ankle, toe), facing +z, and an in-place walking clip whose planted
//! foot slides back at exactly [`SPEED`], so a character moved forward at that speed keeps the
//! planted foot still in the world. Each foot is planted for half the cycle.

#![allow(
    dead_code,
    reason = "each test binary uses its own subset of the helpers"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::f64::consts::PI;

use skel_anim::glam::{Affine3A, DQuat, Vec3};
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, FootDesc, FootPlacement, FootPlacementDesc,
    FootPlacementState, FootReport, FootStatus, GroundQuery, Handedness, Interpolation, NodeRest,
    PoseScratch, Sampler, apply_clip, model_matrix_from_trs, reset_to_rest,
};

/// Node indices.
pub const ROOT: usize = 0;
/// The pelvis.
pub const PELVIS: usize = 1;
/// Left and right hips.
pub const HIP: [usize; 2] = [2, 6];
/// Knees.
pub const KNEE: [usize; 2] = [3, 7];
/// Ankles.
pub const ANKLE: [usize; 2] = [4, 8];
/// Toes.
pub const TOE: [usize; 2] = [5, 9];
/// Thigh and shin length.
pub const BONE: f64 = 0.42;
/// The ankle's and the toe's rest heights above the sole.
pub const ANKLE_HEIGHT: f64 = 0.08;
/// See [`ANKLE_HEIGHT`].
pub const TOE_HEIGHT: f64 = 0.03;
/// Pelvis height while walking (lower than at rest: the knees stay bent).
pub const WALK_PELVIS: f64 = 0.92;
/// Seconds per cycle (one stride per leg).
pub const CYCLE: f64 = 1.0;
/// Ankle travel relative to the hip during a stance (half a cycle).
pub const STRIDE: f64 = 0.5;
/// The speed at which the planted foot slides back in the clip: move the character forward
/// at it.
pub const SPEED: f64 = STRIDE / (CYCLE / 2.0);
/// Peak swing lift of the ankle.
pub const LIFT: f64 = 0.1;
/// Keys per cycle.
const KEYS: usize = 60;

/// The left ankle relative to its hip at cycle phase `u` in `0..1` (stance in `0..0.5`):
/// `(forward, down)`. The swing is a cubic Hermite leaving and arriving at the stance's
/// velocity, lifted by a half sine.
pub fn ankle_path(u: f64) -> (f64, f64) {
    let hip_height = WALK_PELVIS - 0.05;
    let down = hip_height - ANKLE_HEIGHT;
    let u = u.rem_euclid(1.0);
    if u < 0.5 {
        (STRIDE / 2.0 - STRIDE * (u / 0.5), down)
    } else {
        let s = (u - 0.5) / 0.5;
        let (p0, p1, m) = (-STRIDE / 2.0, STRIDE / 2.0, -STRIDE);
        let (s2, s3) = (s * s, s * s * s);
        let z = (2.0 * s3 - 3.0 * s2 + 1.0) * p0
            + (s3 - 2.0 * s2 + s) * m
            + (-2.0 * s3 + 3.0 * s2) * p1
            + (s3 - s2) * m;
        (z, down - LIFT * (PI * s).sin())
    }
}

/// Thigh, knee and ankle angles about x (planar two-bone IK, knee forward, foot level) that
/// put the ankle at `ankle_path(u)`.
fn leg_angles(u: f64) -> [f64; 3] {
    let (forward, down) = ankle_path(u);
    let d = forward.hypot(down);
    let alpha = forward.atan2(down);
    let beta = (d / (2.0 * BONE)).min(1.0).acos();
    let thigh = -(alpha + beta);
    let knee = 2.0 * beta;
    [thigh, knee, -(thigh + knee)]
}

fn node(name: &str, parent: Option<usize>, t: [f64; 3]) -> NodeRest {
    let mut n = NodeRest::new(name, parent);
    n.translation = t.map(|v| v as f32);
    n
}

/// The biped and its `walk` clip (clip 0).
pub fn biped() -> AnimationData {
    let rest_pelvis = 0.05 + 2.0 * BONE + ANKLE_HEIGHT;
    let mut nodes = vec![
        node("root", None, [0.0; 3]),
        node("pelvis", Some(ROOT), [0.0, rest_pelvis, 0.0]),
    ];
    for (side, x) in [("l", 0.1), ("r", -0.1)] {
        let hip = nodes.len();
        nodes.push(node(&format!("hip_{side}"), Some(PELVIS), [x, -0.05, 0.0]));
        nodes.push(node(&format!("knee_{side}"), Some(hip), [0.0, -BONE, 0.0]));
        nodes.push(node(
            &format!("ankle_{side}"),
            Some(hip + 1),
            [0.0, -BONE, 0.0],
        ));
        nodes.push(node(
            &format!("toe_{side}"),
            Some(hip + 2),
            [0.0, TOE_HEIGHT - ANKLE_HEIGHT, 0.12],
        ));
    }
    let times: Vec<f32> = (0..=KEYS)
        .map(|k| (k as f64 * CYCLE / KEYS as f64) as f32)
        .collect();
    let mut samplers = vec![
        Sampler::new(
            vec![0.0, CYCLE as f32],
            [0.0, WALK_PELVIS, 0.0, 0.0, WALK_PELVIS, 0.0]
                .map(|v| v as f32)
                .to_vec(),
            Interpolation::Linear,
        )
        .unwrap(),
    ];
    let mut channels = vec![Channel {
        sampler: 0,
        node: PELVIS,
        path: ChannelPath::Translation,
    }];
    for (leg, shift) in [(0, 0.0), (1, 0.5)] {
        for (joint, nodes) in [(0, HIP), (1, KNEE), (2, ANKLE)] {
            let mut out = Vec::new();
            for k in 0..=KEYS {
                let angle = leg_angles(k as f64 / KEYS as f64 + shift)[joint];
                let q = DQuat::from_rotation_x(angle).as_quat();
                out.extend_from_slice(&q.to_array());
            }
            channels.push(Channel {
                sampler: samplers.len(),
                node: nodes[leg],
                path: ChannelPath::Rotation,
            });
            samplers.push(Sampler::new(times.clone(), out, Interpolation::Linear).unwrap());
        }
    }
    AnimationData {
        nodes,
        clips: vec![Clip::new("walk", samplers, channels)],
        handedness: Handedness::RightHanded,
        ..AnimationData::default()
    }
}

/// Both feet, heights measured from the rest pose.
pub fn desc() -> FootPlacementDesc {
    let feet = (0..2)
        .map(|i| FootDesc::new(HIP[i], KNEE[i], ANKLE[i], Some(TOE[i])))
        .collect();
    FootPlacementDesc::new(PELVIS, feet)
}

/// One posed frame: every node's world position, and what the job reported.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Seconds since the start.
    pub time: f64,
    /// The character's placement.
    pub root: Affine3A,
    /// World position of every node after placement.
    pub at: Vec<Vec3>,
    /// World position of every node as the clip made it.
    pub clip_at: Vec<Vec3>,
    /// The feet after the frame.
    pub feet: Vec<FootStatus>,
    /// The frame's report.
    pub report: FootReport,
}

/// World positions of every node of a pose.
pub fn positions(data: &AnimationData, trs: &[f32], root: &Affine3A) -> Vec<Vec3> {
    (0..data.nodes.len())
        .map(|n| {
            model_matrix_from_trs(data, trs, n, root)
                .unwrap()
                .translation
                .into()
        })
        .collect()
}

/// Plays the walk for `frames` frames at 60 Hz on `ground`, the character placed by
/// `place(time)`, each frame handed to `each`; `before` may change the state first (plant
/// overrides, switching off).
pub fn walk(
    data: &AnimationData,
    placement: &FootPlacement,
    ground: &dyn GroundQuery,
    frames: usize,
    place: impl Fn(f64) -> Affine3A,
    before: impl FnMut(usize, &mut FootPlacementState),
    each: impl FnMut(&Frame),
) {
    play(
        data,
        placement,
        ground,
        frames,
        |t| t % CYCLE,
        place,
        before,
        each,
    );
}

/// [`walk`] with the clip at `clip_time(time)` (a constant holds a pose).
#[expect(clippy::too_many_arguments, reason = "a test driver")]
pub fn play(
    data: &AnimationData,
    placement: &FootPlacement,
    ground: &dyn GroundQuery,
    frames: usize,
    clip_time: impl Fn(f64) -> f64,
    place: impl Fn(f64) -> Affine3A,
    mut before: impl FnMut(usize, &mut FootPlacementState),
    mut each: impl FnMut(&Frame),
) {
    let mut state = FootPlacementState::new(placement);
    let mut scratch = PoseScratch::new(data).unwrap();
    let dt = 1.0 / 60.0;
    for f in 0..frames {
        let time = f as f64 * dt;
        reset_to_rest(data, &mut scratch);
        apply_clip(data, 0, clip_time(time) as f32, &mut scratch);
        let root = place(time);
        let clip_at = positions(data, &scratch.trs, &root);
        before(f, &mut state);
        let report = placement
            .solve(&mut state, data, &mut scratch.trs, &root, ground, dt as f32)
            .unwrap();
        assert!(
            scratch.trs.iter().all(|v| v.is_finite()),
            "frame {f}: NaN in the pose"
        );
        each(&Frame {
            time,
            root,
            at: positions(data, &scratch.trs, &root),
            clip_at,
            feet: state.feet().to_vec(),
            report,
        });
    }
}

/// The character walking along +z at [`SPEED`], its root at `height(z)` over the ground.
pub fn forward(height: impl Fn(f64) -> f64) -> impl Fn(f64) -> Affine3A {
    move |t| {
        let z = SPEED * t;
        Affine3A::from_translation(Vec3::new(0.0, height(z) as f32, z as f32))
    }
}
