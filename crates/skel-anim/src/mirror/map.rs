//! [`MirrorMap`]: the pairs, the plane and the constant per-node terms of the mirror, built
//! once from the rest pose.

use glam::{DAffine3, DMat3, DQuat, DVec3, Mat3, Quat, Vec3};

use super::names::pairs_by_name;
use super::plane::MirrorPlane;
use crate::{AnimError, AnimationData, compute_topo_order};

/// What node `j` of a mirrored pose is made of: its partner's local transform with
/// `t' = translate · t + offset`, `q' = before · q · after`, `s' = scale · s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NodeTerms {
    /// The partner whose local transform is read.
    pub(crate) source: usize,
    /// `A_parent⁻¹`: the reflection in the parent's frame, inverted (`R` for a root).
    pub(crate) translate: Mat3,
    /// The plane's offset `2 d n` for a root, zero below.
    pub(crate) offset: Vec3,
    /// The quaternion of `-A_parent⁻¹`.
    pub(crate) before: Quat,
    /// The quaternion of `-A_j`.
    pub(crate) after: Quat,
    /// Row `i` holds the squares of column `i` of `A_j`: the diagonal of `A_j⁻¹ · S · A_j`.
    pub(crate) scale: Mat3,
    /// `A_j`, the node's reflection in its own frame.
    pub(crate) reflection: Mat3,
}

impl NodeTerms {
    /// A translation value (`offset` applies) or tangent (it does not).
    #[inline]
    pub(crate) fn translation(&self, t: Vec3, value: bool) -> Vec3 {
        let moved = self.translate * t;
        if value { moved + self.offset } else { moved }
    }

    /// A rotation value or tangent (the map is linear in the quaternion's components).
    #[inline]
    pub(crate) fn rotation(&self, q: Quat) -> Quat {
        self.before * q * self.after
    }

    /// A scale value or tangent.
    #[inline]
    pub(crate) fn scale(&self, s: Vec3) -> Vec3 {
        self.scale * s
    }
}

/// The left/right mirror of one asset: which node pairs with which, the plane, and the
/// constant reflection of each node's local frame that turns a local pose into its mirror
/// image (see [the module](crate::mirror) for the rule and its limits).
///
/// Build it once per asset; [`mirror_pose`](Self::mirror_pose) then mirrors a pose without
/// allocating, and [`mirror_clip`](crate::mirror_clip) bakes a mirrored clip.
///
/// ```
/// use skel_anim::{AnimationData, MirrorMap, NodeRest};
///
/// // Hips with a left and a right leg, one unit either side of x = 0.
/// let leg = |name: &str, x: f32| NodeRest { translation: [x, -1.0, 0.0], ..NodeRest::new(name, Some(0)) };
/// let data = AnimationData {
///     nodes: vec![NodeRest::new("Hips", None), leg("LeftLeg", 1.0), leg("RightLeg", -1.0)],
///     ..AnimationData::default()
/// };
/// let map = MirrorMap::from_names(&data)?;
/// assert_eq!(map.partner(1), Some(2));
/// assert_eq!(map.partner(0), Some(0)); // a centre node
/// assert!((map.plane().normal().x.abs() - 1.0).abs() < 1e-6);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MirrorMap {
    plane: MirrorPlane,
    terms: Vec<NodeTerms>,
    /// The largest distance of a rest node from the origin: the rig's size, in asset units.
    extent: f32,
    /// Morph-binding nodes and their targets' names, for swapping sided targets
    /// ([`MirrorMap::with_morph_target_names`]).
    morph_names: Vec<(usize, Vec<String>)>,
}

impl MirrorMap {
    /// Pairs from node names ([`pairs_by_name`](crate::mirror::pairs_by_name): `.L/.R`,
    /// `_l/_r`, `Left/Right`, `L_`/`R_`, …), the plane from the rest pose.
    ///
    /// # Errors
    /// As [`MirrorMap::from_pairs`].
    pub fn from_names(data: &AnimationData) -> Result<Self, AnimError> {
        Self::from_pairs(data, &pairs_by_name(&data.nodes)?)
    }

    /// Pairs given as `(left, right)` node indices (either order; a node left out, or paired
    /// with itself, is a centre node), the plane from the rest pose: its normal the average
    /// direction from right to left over the pairs at the top of their limbs (whose parents
    /// are centre nodes: shoulders, thighs), through the average of their midpoints. Pairs of
    /// skin joints only, when there are any: mesh nodes and helpers are often placed without
    /// symmetry, and a limb bent differently on each side at rest says nothing of the plane.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds; [`AnimError::BadNode`] for a pair naming a
    /// node that does not exist, [`AnimError::MirrorPairConflict`] for a node in two pairs,
    /// [`AnimError::MirrorPairBreaksHierarchy`] naming the first node (parents first) whose
    /// parent's partner is not its partner's parent, [`AnimError::MirrorPlaneUnknown`] when
    /// no pair is apart at rest.
    pub fn from_pairs(data: &AnimationData, pairs: &[(usize, usize)]) -> Result<Self, AnimError> {
        Self::build(data, pairs, None)
    }

    /// The same map, swapping morph targets by name when clips are mirrored: on the mesh a
    /// weights channel moves to, a target whose name has a side (`Blink_L`, `eyeBlinkLeft`,
    /// `mouthSmile.R`: the side words of [`mirrored_name`](crate::mirror::mirrored_name))
    /// takes the weights of the target with the mirrored name on the mesh the channel comes
    /// from; a target without a side, or whose mirrored name that mesh lacks, takes the
    /// weights of its own name. `names` lists morph-binding nodes with their targets' names
    /// in target order (glTF's `mesh.extras.targetNames`, which skel-gltf reads into
    /// `GltfAsset::morph_names`); a channel between nodes not listed, or listed with another
    /// number of names than its sampler has weights, keeps its weights in order.
    ///
    /// ```
    /// use skel_anim::*;
    ///
    /// // A face (node 0) with a blink on each side and a smile.
    /// let blink = Sampler::new(vec![0.0], vec![1.0, 0.0, 0.5], Interpolation::Step)?;
    /// let data = AnimationData {
    ///     nodes: vec![NodeRest::new("Head", None), NodeRest::new("Eye.L", Some(0)), NodeRest::new("Eye.R", Some(0))],
    ///     morph_bindings: vec![MorphBinding { node: 0, default_weights: vec![0.0; 3] }],
    ///     clips: vec![Clip::new("wink", vec![blink], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Weights }])],
    ///     ..AnimationData::default()
    /// };
    /// let names = vec!["Blink_L".to_owned(), "Blink_R".to_owned(), "Smile".to_owned()];
    /// let map = MirrorMap::with_plane(&data, &[(1, 2)], MirrorPlane::X)?.with_morph_target_names([(0, names)]);
    /// let mirrored = mirror_clip(&data, &map, 0)?;
    /// assert_eq!(mirrored.samplers[0].output(), &[0.0, 1.0, 0.5]); // the right eye winks
    /// # Ok::<(), AnimError>(())
    /// ```
    #[must_use]
    pub fn with_morph_target_names(
        mut self,
        names: impl IntoIterator<Item = (usize, Vec<String>)>,
    ) -> Self {
        self.morph_names = names.into_iter().collect();
        self
    }

    /// For a weights channel moving from node `from` to node `to` with `count` weights: which
    /// of `from`'s weights each of `to`'s takes, or `None` to keep them in order (see
    /// [`MirrorMap::with_morph_target_names`]).
    pub(crate) fn morph_order(&self, from: usize, to: usize, count: usize) -> Option<Vec<usize>> {
        let names = |node: usize| {
            self.morph_names
                .iter()
                .find(|(n, list)| *n == node && list.len() == count)
                .map(|(_, list)| list)
        };
        let (source, dest) = (names(from)?, names(to)?);
        let position = |name: &str| source.iter().position(|s| s == name);
        let order: Vec<usize> = dest
            .iter()
            .enumerate()
            .map(|(i, name)| {
                crate::mirror::mirrored_name(name)
                    .and_then(|(other, _)| position(&other))
                    .or_else(|| position(name))
                    .unwrap_or(i)
            })
            .collect();
        (order.iter().enumerate().any(|(i, &j)| i != j)).then_some(order)
    }

    /// Pairs as [`MirrorMap::from_pairs`], about a given plane (in the asset's frame).
    ///
    /// # Errors
    /// As [`MirrorMap::from_pairs`], without [`AnimError::MirrorPlaneUnknown`].
    pub fn with_plane(
        data: &AnimationData,
        pairs: &[(usize, usize)],
        plane: MirrorPlane,
    ) -> Result<Self, AnimError> {
        Self::build(data, pairs, Some(plane))
    }

    fn build(
        data: &AnimationData,
        pairs: &[(usize, usize)],
        plane: Option<MirrorPlane>,
    ) -> Result<Self, AnimError> {
        data.validate()?;
        let nodes = &data.nodes;
        let n = nodes.len();
        let order = compute_topo_order(nodes)?;
        let partner = partners(n, pairs)?;
        for &j in &order {
            let expected = nodes[j].parent.map(|p| partner[p]);
            let partner_parent = nodes[partner[j]].parent;
            if expected != partner_parent {
                return Err(AnimError::MirrorPairBreaksHierarchy {
                    node: j,
                    partner: partner[j],
                    partner_parent,
                    expected,
                });
            }
        }
        // Rest world transforms in f64: rotations alone (scale removed) for the node frames,
        // full affine for the positions the plane is found from.
        let mut frame = vec![DQuat::IDENTITY; n];
        let mut world = vec![DAffine3::IDENTITY; n];
        for &j in &order {
            let rest = &nodes[j];
            let q = DQuat::from_array(rest.rotation.map(f64::from));
            let q = if q.length() > 1e-12 {
                q.normalize()
            } else {
                DQuat::IDENTITY
            };
            let local = DAffine3::from_scale_rotation_translation(
                DVec3::from_array(rest.scale.map(f64::from)),
                q,
                DVec3::from_array(rest.translation.map(f64::from)),
            );
            (frame[j], world[j]) = match rest.parent {
                Some(p) => (frame[p] * q, world[p] * local),
                None => (q, local),
            };
        }
        let extent = world
            .iter()
            .map(|w| w.translation.length())
            .fold(0.0, f64::max) as f32;
        let plane = match plane {
            Some(p) => p,
            None => {
                let positions: Vec<DVec3> = world.iter().map(|w| w.translation).collect();
                // The pairs at the top of their limbs (their parents centre nodes, or roots):
                // their rest places hang on the centre alone, not on how the limbs are posed
                // at rest (RobotExpressive's arms are bent differently on each side). Skin
                // joints among them when there are: mesh nodes and helpers are placed freely
                // (its arm meshes sit a metre from each other's reflection).
                let mut joint = vec![false; n];
                for &j in data.skeletons.iter().flat_map(|s| &s.joints) {
                    joint[j] = true;
                }
                let tops: Vec<(usize, usize)> = pairs
                    .iter()
                    .copied()
                    .filter(|&(a, b)| a != b && nodes[a].parent.is_none_or(|p| partner[p] == p))
                    .collect();
                let joint_tops: Vec<(usize, usize)> = tops
                    .iter()
                    .copied()
                    .filter(|&(a, b)| joint[a] && joint[b])
                    .collect();
                let from = if joint_tops.is_empty() {
                    &tops
                } else {
                    &joint_tops
                };
                MirrorPlane::between(&positions, from)?
            }
        };
        let normal = plane.normal().as_dvec3().normalize();
        let n_quat = DQuat::from_xyzw(normal.x, normal.y, normal.z, 0.0);
        // `-A_k` as a quaternion: A_k = rot(W_p(k))⁻¹ · R · rot(W_k) and R = -rot(n_quat)
        // (a reflection is a half turn about its normal, negated). Written this way,
        // r_p(k) = -conj(r_k) holds for every node, centre nodes included (w = 0), which makes
        // mirroring twice give each rotation back with its sign.
        let r: Vec<DQuat> = (0..n)
            .map(|k| frame[partner[k]].conjugate() * n_quat * frame[k])
            .collect();
        let offset = (2.0 * f64::from(plane.distance()) * normal).as_vec3();
        let terms = (0..n)
            .map(|j| {
                let parent_r = nodes[j].parent.map_or(n_quat, |p| r[p]);
                let before = parent_r.conjugate();
                let reflection = -DMat3::from_quat(r[j]);
                let squared = |c: DVec3| (c * c).as_vec3();
                NodeTerms {
                    source: partner[j],
                    translate: (-DMat3::from_quat(before)).as_mat3(),
                    offset: if nodes[j].parent.is_none() {
                        offset
                    } else {
                        Vec3::ZERO
                    },
                    before: before.as_quat(),
                    after: r[j].as_quat(),
                    scale: Mat3::from_cols(
                        squared(reflection.x_axis),
                        squared(reflection.y_axis),
                        squared(reflection.z_axis),
                    )
                    .transpose(),
                    reflection: reflection.as_mat3(),
                }
            })
            .collect();
        Ok(Self {
            plane,
            terms,
            extent,
            morph_names: Vec::new(),
        })
    }

    /// The partner of `node` (itself for a centre node); `None` past the asset's nodes.
    #[must_use]
    pub fn partner(&self, node: usize) -> Option<usize> {
        self.terms.get(node).map(|t| t.source)
    }

    /// Every pair of distinct nodes once, `(lower index, higher index)`, in node order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.terms
            .iter()
            .enumerate()
            .filter(|&(j, t)| j < t.source)
            .map(|(j, t)| (j, t.source))
    }

    /// How many nodes the asset it was built for has.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.terms.len()
    }

    /// The plane, in the asset's frame (found from the rest pose or given).
    #[must_use]
    pub fn plane(&self) -> MirrorPlane {
        self.plane
    }

    /// `A_j`, node `j`'s reflection in its own frame (determinant −1): a mirrored pose's
    /// world matrix of `j` is `R · W_partner · A_j`, `W_partner` the source pose's world
    /// matrix of the partner. `None` past the asset's nodes.
    #[must_use]
    pub fn reflection(&self, node: usize) -> Option<Mat3> {
        self.terms.get(node).map(|t| t.reflection)
    }

    /// A model-space point (an IK target, a look-at point) reflected through the plane.
    #[inline]
    #[must_use]
    pub fn mirror_point(&self, p: Vec3) -> Vec3 {
        self.plane.reflect_point(p)
    }

    /// A model-space displacement (a root-motion translation, a pole) reflected.
    #[inline]
    #[must_use]
    pub fn mirror_vector(&self, v: Vec3) -> Vec3 {
        self.plane.reflect_vector(v)
    }

    /// A model-space rotation (a root-motion turn) reflected: same angle, reflected axis,
    /// the other way round.
    #[inline]
    #[must_use]
    pub fn mirror_rotation(&self, q: Quat) -> Quat {
        self.plane.reflect_rotation(q)
    }

    pub(crate) fn terms(&self) -> &[NodeTerms] {
        &self.terms
    }

    pub(crate) fn extent(&self) -> f32 {
        self.extent
    }

    /// `Ok` when the map was built for an asset of `data`'s node count.
    pub(crate) fn check_asset(&self, data: &AnimationData) -> Result<(), AnimError> {
        if self.terms.len() == data.nodes.len() {
            Ok(())
        } else {
            Err(AnimError::MirrorMapMismatch {
                map_nodes: self.terms.len(),
                data_nodes: data.nodes.len(),
            })
        }
    }
}

/// Each node's partner (itself when unpaired).
fn partners(n: usize, pairs: &[(usize, usize)]) -> Result<Vec<usize>, AnimError> {
    let mut partner: Vec<usize> = (0..n).collect();
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for node in [a, b] {
            if node >= n {
                return Err(AnimError::BadNode {
                    what: format!("mirror pair {i}"),
                    node,
                    node_count: n,
                });
            }
        }
        for (node, other) in [(a, b), (b, a)] {
            let first = partner[node];
            let paired = first != node || pairs[..i].iter().any(|&(x, y)| x == node && y == node);
            if paired && first != other {
                return Err(AnimError::MirrorPairConflict {
                    node,
                    first,
                    second: other,
                });
            }
        }
        partner[a] = b;
        partner[b] = a;
    }
    Ok(partner)
}
