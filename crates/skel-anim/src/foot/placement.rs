//! The foot placement job as built once per rig: validated joints, measured heights, the legs'
//! hinges from the rest pose.

use glam::{Affine3A, Vec3};

use super::config::{FootDesc, FootPlacementDesc};
use crate::rig::kernels::Kernels;
use crate::{
    AnimError, AnimationData, CpuKernels, TRS_STRIDE, TwoBoneIk, check_chain, model_matrix_from_trs,
};

/// One leg as the per-frame job reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Leg {
    pub(crate) hip: usize,
    pub(crate) knee: usize,
    pub(crate) ankle: usize,
    pub(crate) toe: Option<usize>,
    /// The ankle's and the toes' heights above the sole, in world units.
    pub(crate) ankle_height: f32,
    pub(crate) toe_height: f32,
    /// The knee's hinge in its local space, from the rest pose (`None` for a straight leg).
    pub(crate) bend_axis: Option<Vec3>,
    /// Whether the hip is the pelvis's child (its matrix is then one product away).
    pub(crate) under_pelvis: bool,
}

/// Foot placement for one rig (Unreal's and Unity's foot IK, ozz's foot-IK sample): each foot
/// raised or lowered onto the ground a [`GroundQuery`](crate::GroundQuery) reports and turned
/// to its slope, the pelvis lowered so that the lower foot reaches, a planted foot locked where
/// it touched down, every correction eased in and out. The [module docs](crate::foot) give the
/// algorithm, units and degenerate cases.
///
/// Built once from a [`FootPlacementDesc`] (validated here: nothing per frame can fail on the
/// description), shared by every character of the rig; what each character remembers between
/// frames is its [`FootPlacementState`](crate::FootPlacementState), and
/// [`solve`](Self::solve) runs on a local pose after the layers and IK, before local → world.
///
/// ```
/// use skel_anim::glam::{Affine3A, Vec3};
/// use skel_anim::*;
///
/// // A pelvis at 0.9 m with one straight leg (hip 0.8, knee 0.4, ankle 0.08 m).
/// let mut nodes = vec![NodeRest::new("pelvis", None)];
/// nodes[0].translation = [0.0, 0.9, 0.0];
/// for (name, parent, drop) in [("hip", 0, 0.1), ("knee", 1, 0.4), ("ankle", 2, 0.32)] {
///     let mut node = NodeRest::new(name, Some(parent));
///     node.translation = [0.0, -drop, 0.01]; // a slight bend picks the knee's side
///     nodes.push(node);
/// }
/// let data = AnimationData { nodes, ..AnimationData::default() };
/// let feet = FootPlacement::new(&data, &FootPlacementDesc::new(0, vec![FootDesc::new(1, 2, 3, None)]))?;
/// let mut state = FootPlacementState::new(&feet);
/// let mut pose = PoseScratch::new(&data)?;
/// // The ground 10 cm higher than the clip's: the foot is lifted onto it.
/// let ground = GroundPlane::new(Vec3::Y, -0.1)?;
/// feet.solve(&mut state, &data, &mut pose.trs, &Affine3A::IDENTITY, &ground, 1.0 / 60.0)?;
/// let ankle = model_matrix_from_trs(&data, &pose.trs, 3, &Affine3A::IDENTITY)?.translation;
/// assert!((ankle.y - (0.1 + 0.08)).abs() < 1e-4);
/// # Ok::<(), AnimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FootPlacement {
    pub(crate) desc: FootPlacementDesc,
    pub(crate) legs: Vec<Leg>,
    pub(crate) pelvis_parent: Option<usize>,
    pub(crate) node_count: usize,
    pub(crate) cos_max_tilt: f32,
    /// Which build of the per-frame job runs (see [`Self::with_kernels`]).
    pub(crate) kernels: Kernels,
}

impl FootPlacement {
    /// Validates `desc` against `data`'s nodes and measures what the rest pose says (heights
    /// left `None`, each knee's hinge). Allocates; do it once per rig.
    ///
    /// # Errors
    /// - [`AnimError::BadNode`] for a joint past the nodes; [`AnimError::IkNotAChain`] when a
    ///   knee's parent is not its hip, an ankle's not its knee or a toe's not its ankle;
    ///   [`AnimError::FootNotBelowPelvis`] when a hip does not descend from the pelvis.
    /// - [`AnimError::BadFootPlacement`] for no feet, a zero or non-finite up, a distance,
    ///   speed or time that is negative or not finite, a ray shorter than `max_step_up`, a
    ///   tilt outside 0..=90°, an extension
    ///   outside (0, 1], or a height (given or measured) that is negative or not finite.
    /// - [`AnimError::IkDegenerate`] for a leg bone of zero length in the rest pose;
    ///   [`AnimError::BadParent`] / [`AnimError::Cycle`] for a broken hierarchy.
    pub fn new(data: &AnimationData, desc: &FootPlacementDesc) -> Result<Self, AnimError> {
        let node_count = data.nodes.len();
        if desc.feet.is_empty() {
            return Err(bad("foot count", 0.0, "at least 1"));
        }
        check_node(node_count, desc.pelvis, "foot placement: pelvis")?;
        let up = desc.up.try_normalize().ok_or(bad(
            "up vector length",
            desc.up.length(),
            "finite and > 0",
        ))?;
        check_settings(desc)?;
        let rest = rest_trs(data);
        let mut legs = Vec::with_capacity(desc.feet.len());
        for (foot, f) in desc.feet.iter().enumerate() {
            legs.push(leg(data, &rest, desc.pelvis, up, foot, f)?);
        }
        Ok(Self {
            desc: FootPlacementDesc { up, ..desc.clone() },
            legs,
            pelvis_parent: data.nodes[desc.pelvis].parent,
            node_count,
            cos_max_tilt: desc.max_tilt.cos(),
            kernels: Kernels::detect(CpuKernels::Detect),
        })
    }

    /// The same placement run by the kernels `kernels` asks for. [`Self::new`] detects the
    /// widest this CPU runs: on x86-64 with AVX2 and FMA, [`solve`](Self::solve) is compiled
    /// with them (three-operand encodings; the same operations in the same order, so the
    /// same bits as the baseline, and about 16 % fewer instructions). `CpuKernels::Baseline`
    /// keeps the code as the crate was compiled, for comparing against.
    #[must_use]
    pub fn with_kernels(self, kernels: CpuKernels) -> Self {
        Self {
            kernels: Kernels::detect(kernels),
            ..self
        }
    }

    /// The description it was built from (with `up` normalised).
    #[must_use]
    pub fn desc(&self) -> &FootPlacementDesc {
        &self.desc
    }

    /// How many feet it places.
    #[must_use]
    pub fn foot_count(&self) -> usize {
        self.legs.len()
    }

    /// Foot `foot`'s ankle and toe heights above its sole, as given or measured at build.
    #[must_use]
    pub fn sole_heights(&self, foot: usize) -> Option<(f32, f32)> {
        self.legs.get(foot).map(|l| (l.ankle_height, l.toe_height))
    }
}

fn bad(what: &'static str, value: f32, rule: &'static str) -> AnimError {
    AnimError::BadFootPlacement { what, value, rule }
}

fn check_node(node_count: usize, node: usize, what: &str) -> Result<(), AnimError> {
    if node < node_count {
        Ok(())
    } else {
        Err(AnimError::BadNode {
            what: what.to_owned(),
            node,
            node_count,
        })
    }
}

fn check_settings(desc: &FootPlacementDesc) -> Result<(), AnimError> {
    let non_negative = [
        ("max step up", desc.max_step_up),
        ("max step down", desc.max_step_down),
        ("plant speed", desc.plant_speed),
        ("plant height", desc.plant_height),
        ("max lock distance", desc.max_lock_distance),
        ("ground time", desc.ground_time),
        ("pelvis time", desc.pelvis_time),
        ("release time", desc.release_time),
        ("fade time", desc.fade_time),
    ];
    for (what, value) in non_negative {
        if !(value.is_finite() && value >= 0.0) {
            return Err(bad(what, value, "finite and >= 0"));
        }
    }
    if !(desc.ray_length.is_finite() && desc.ray_length >= desc.max_step_up) {
        return Err(bad(
            "ray length",
            desc.ray_length,
            "finite and >= max step up",
        ));
    }
    if !(0.0..=std::f32::consts::FRAC_PI_2).contains(&desc.max_tilt) {
        return Err(bad("max tilt", desc.max_tilt, "in 0..=pi/2 radians"));
    }
    if !(desc.max_extension > 0.0 && desc.max_extension <= 1.0) {
        return Err(bad("max extension", desc.max_extension, "in (0, 1]"));
    }
    Ok(())
}

/// Every node's rest transform as a TRS buffer.
fn rest_trs(data: &AnimationData) -> Vec<f32> {
    let mut trs = vec![0.0; data.nodes.len() * TRS_STRIDE];
    for (rec, node) in trs.chunks_exact_mut(TRS_STRIDE).zip(&data.nodes) {
        rec[crate::T_OFF..crate::T_OFF + 3].copy_from_slice(&node.translation);
        rec[crate::R_OFF..crate::R_OFF + 4].copy_from_slice(&node.rotation);
        rec[crate::S_OFF..crate::S_OFF + 3].copy_from_slice(&node.scale);
    }
    trs
}

/// One foot's description checked and measured.
fn leg(
    data: &AnimationData,
    rest: &[f32],
    pelvis: usize,
    up: Vec3,
    foot: usize,
    f: &FootDesc,
) -> Result<Leg, AnimError> {
    let n = data.nodes.len();
    check_node(n, f.hip, "foot placement: hip")?;
    check_node(n, f.knee, "foot placement: knee")?;
    check_node(n, f.ankle, "foot placement: ankle")?;
    check_chain(data, f.hip, f.knee, f.ankle)?;
    if let Some(toe) = f.toe {
        check_node(n, toe, "foot placement: toe")?;
        if data.nodes[toe].parent != Some(f.ankle) {
            return Err(AnimError::IkNotAChain {
                node: toe,
                expected: f.ankle,
                parent: data.nodes[toe].parent,
            });
        }
    }
    // The hip must descend from the pelvis (a bounded walk: a cycle ends it too).
    let mut at = data.nodes[f.hip].parent;
    let mut steps = 0;
    while at.is_some_and(|p| p != pelvis) && steps < n {
        at = at.and_then(|p| data.nodes.get(p).and_then(|node| node.parent));
        steps += 1;
    }
    if at != Some(pelvis) {
        return Err(AnimError::FootNotBelowPelvis {
            foot,
            hip: f.hip,
            pelvis,
        });
    }
    let model = |node| model_matrix_from_trs(data, rest, node, &Affine3A::IDENTITY);
    let (hip, knee, ankle) = (model(f.hip)?, model(f.knee)?, model(f.ankle)?);
    let bone = |a: &Affine3A, b: &Affine3A| (b.translation - a.translation).length();
    if !(bone(&hip, &knee) > 0.0 && bone(&knee, &ankle) > 0.0) {
        return Err(AnimError::IkDegenerate {
            reason: "a leg bone has zero length in the rest pose",
        });
    }
    let height = |given: Option<f32>, node: Option<usize>, what| -> Result<f32, AnimError> {
        let value = match (given, node) {
            (Some(h), _) => h,
            (None, Some(node)) => up.dot(model(node)?.translation.into()),
            (None, None) => 0.0,
        };
        if value.is_finite() && value >= 0.0 {
            Ok(value)
        } else {
            Err(bad(
                what,
                value,
                "finite and >= 0 (give it in the FootDesc)",
            ))
        }
    };
    Ok(Leg {
        hip: f.hip,
        knee: f.knee,
        ankle: f.ankle,
        toe: f.toe,
        ankle_height: height(f.ankle_height, Some(f.ankle), "ankle height")?,
        toe_height: height(f.toe_height, f.toe, "toe height")?,
        bend_axis: TwoBoneIk::bend_axis(&hip, &knee, &ankle),
        under_pelvis: data.nodes[f.hip].parent == Some(pelvis),
    })
}
