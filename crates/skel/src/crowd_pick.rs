//! Picking a CPU-posed [`Crowd`] on the CPU: the first triangle a ray hits over every drawn
//! instance, against each instance's own skinned (and morphed) triangles as its last
//! [`tick`](Crowd::tick) posed them.
//!
//! Each visible instance's placed box ([`Crowd::instance_box`], from the joints' spheres) is
//! tested first; the instances whose box the ray enters are taken nearest box first, tested
//! against their triangles' groups ([`skel_gltf::PickFilter`]: the box of the joints moving
//! each group of triangles, a conservative test finer than the whole box), and only those the
//! ray may hit are skinned; the search stops at the first box that starts farther than the
//! best hit. A ray through a crowd skins the few characters in its way, not the crowd.
//!
//! The GPU-posed path has its own picker ([`skel_gpu::CrowdPick`]), which answers the same.

use skel_anim::skin_vertices;
use skel_gltf::{
    PickFilter, PickFilterScratch, PickHit, PosedPositions, pick_primitives, ray_box_entry,
};
use skel_gpu::glam::{Mat4, Vec3};

use crate::{AssetContainer, Crowd, PickError, SkelError};

/// Where a ray first meets a crowd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdHit {
    /// The instance hit (its player is `crowd.players[instance]`).
    pub instance: u32,
    /// The triangle, barycentrics, and the distance and point in the world (after the
    /// instance's placement).
    pub hit: PickHit,
}

/// CPU picking of one crowd's instances: the per-primitive buffers one instance is skinned
/// into, made once, so that [`pick`](Self::pick) allocates nothing.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use skel::gpu::glam::{Mat4, Vec3};
/// let ctx = skel::gpu::GpuContext::new_headless()?;
/// let asset = skel::load_gltf(&ctx, std::path::Path::new("CesiumMan.glb"), &Default::default())?;
/// let mut crowd = skel::Crowd::new(&ctx, &asset, &skel::CrowdDescriptor {
///     instances: 3,
///     clip: Some(0),
///     ..Default::default()
/// })?;
/// let placements: Vec<Mat4> =
///     (0..3).map(|i| Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0))).collect();
/// let mut picker = skel::CrowdPicker::new(&asset);
/// crowd.tick(0.25);
/// // From in front of the second character, straight at its middle.
/// if let Some(hit) = picker.pick(&crowd, &asset, &placements, Vec3::new(1.0, 0.0, 0.7), Vec3::NEG_Y)? {
///     println!("instance {} triangle {} at {} m", hit.instance, hit.hit.triangle, hit.hit.distance);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct CrowdPicker {
    /// Per primitive of the asset: one instance's skinned positions in the character's world
    /// (before its placement); empty for a primitive a crowd does not draw (rigid ones).
    positions: Vec<Vec<f32>>,
    /// Per primitive: its skinned mesh node's rest world matrix, which carries a crowd's bone
    /// matrices (`inverse(meshWorld) · jointWorld · inverseBind`) into the character's world.
    mesh_world: Vec<Mat4>,
    /// The instances whose box the ray enters: `(distance to the box, instance)`.
    candidates: Vec<(f32, u32)>,
    /// The skinned triangles grouped by the joints that move them, tested before skinning.
    filter: PickFilter,
    /// Per skeleton binding: its skinned mesh node's rest world matrix.
    binding_world: Vec<Mat4>,
    /// Scratch for the filter: one matrix a joint.
    boxes: PickFilterScratch,
    /// Whether the filter runs (on by default).
    filtering: bool,
    work: PickWork,
}

/// What the last [`CrowdPicker::pick`] did: how many instances' boxes the ray entered, how
/// many of them were looked at before the search stopped, and how many of those were skinned
/// (the rest turned away by the joint groups' test).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PickWork {
    /// Visible instances whose placed box the ray enters.
    pub boxes_entered: u32,
    /// Of those, the ones looked at (nearest box first) before a box started past the best
    /// hit.
    pub considered: u32,
    /// Of those, the ones skinned and tested triangle by triangle.
    pub skinned: u32,
}

/// One instance's skinned positions, as [`pick_primitives`] reads them.
struct InstancePositions<'a>(&'a [Vec<f32>]);

impl PosedPositions for InstancePositions<'_> {
    fn posed_positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.0
            .get(primitive)
            .filter(|p| !p.is_empty())
            .map(|p| bytemuck::cast_slice(p.as_slice()))
    }
}

impl CrowdPicker {
    /// Buffers for picking crowds of `asset` (the container the crowds were built from).
    /// Allocates one instance's skinned positions.
    #[must_use]
    pub fn new(asset: &AssetContainer) -> Self {
        let rest = skel_gltf::rest_world_matrices(&asset.animation).unwrap_or_default();
        let mut positions = Vec::with_capacity(asset.primitives.len());
        let mut mesh_world = Vec::with_capacity(asset.primitives.len());
        for prim in &asset.primitives {
            let node = prim
                .skeleton_binding
                .filter(|_| prim.influences.is_some())
                .and_then(|b| asset.animation.skeletons.get(b))
                .map(|s| s.mesh_node);
            positions.push(match node {
                Some(_) => vec![0.0; prim.positions.len()],
                None => Vec::new(),
            });
            mesh_world.push(
                node.and_then(|n| rest.get(n).copied())
                    .unwrap_or(Mat4::IDENTITY),
            );
        }
        let binding_world = asset
            .animation
            .skeletons
            .iter()
            .map(|s| rest.get(s.mesh_node).copied().unwrap_or(Mat4::IDENTITY))
            .collect();
        Self {
            positions,
            mesh_world,
            candidates: Vec::new(),
            filter: PickFilter::new(&asset.primitives),
            binding_world,
            boxes: Vec::new(),
            filtering: true,
            work: PickWork::default(),
        }
    }

    /// Turns the joint groups' test before skinning on or off (on by default; the answers
    /// are the same either way, only the work differs: see [`work`](Self::work)).
    pub fn set_filtering(&mut self, on: bool) {
        self.filtering = on;
    }

    /// What the last [`pick`](Self::pick) did: boxes entered, instances considered, instances
    /// skinned.
    #[must_use]
    pub fn work(&self) -> PickWork {
        self.work
    }

    /// The first triangle that the ray from `origin` along `direction` hits, over the visible
    /// instances of `crowd` (after [`Crowd::cull`], the ones it kept), each placed by
    /// `placements[i]` as the renderer draws it, both faces counting; `None` for a miss.
    /// Call it after [`Crowd::tick`]. Allocates nothing once its candidate list has grown to
    /// the number of boxes one ray crosses.
    ///
    /// A morphing mesh is picked with the instance's own morph weights where the crowd keeps
    /// them (compute skinning), and with the mesh's default weights otherwise.
    ///
    /// # Errors
    /// [`PickError::PosedOnGpu`] for a GPU-posed crowd, [`PickError::Placements`] for fewer
    /// placements than instances, [`PickError::Ray`] for a NaN or infinite origin or
    /// direction, or a direction without length; [`SkelError::Anim`] when `asset` is not the
    /// container the crowd was built from (its streams disagree).
    pub fn pick(
        &mut self,
        crowd: &Crowd,
        asset: &AssetContainer,
        placements: &[Mat4],
        origin: Vec3,
        direction: Vec3,
    ) -> Result<Option<CrowdHit>, SkelError> {
        if crowd.posed_on_gpu() {
            return Err(PickError::PosedOnGpu.into());
        }
        if placements.len() < crowd.players.len() {
            return Err(PickError::Placements {
                given: placements.len(),
                instances: crowd.players.len(),
            }
            .into());
        }
        if !(origin.is_finite() && direction.is_finite()) {
            return Err(PickError::Ray(skel_gltf::RayError::NotFinite).into());
        }
        let dir = direction
            .try_normalize()
            .ok_or(PickError::Ray(skel_gltf::RayError::ZeroDirection))?;
        self.candidates.clear();
        for &i in crowd.visible() {
            let Some(placement) = placements.get(i as usize) else {
                continue;
            };
            let Some(((o, d), (min, max))) =
                into_instance(placement, origin, dir).zip(crowd.instance_box(i as usize))
            else {
                continue;
            };
            // `d` is the unit world direction seen from the instance, so the entry is in
            // world units.
            if let Some(entry) = ray_box_entry(o, d, min, max) {
                self.candidates.push((entry, i));
            }
        }
        self.candidates.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        self.work = PickWork {
            boxes_entered: u32::try_from(self.candidates.len()).unwrap_or(u32::MAX),
            ..PickWork::default()
        };
        let mut best: Option<CrowdHit> = None;
        for k in 0..self.candidates.len() {
            let (entry, i) = self.candidates[k];
            if best.is_some_and(|b| b.hit.distance < entry) {
                break;
            }
            self.work.considered += 1;
            let placement = placements[i as usize];
            let Some((o, d)) = into_instance(&placement, origin, dir) else {
                continue;
            };
            if self.filtering && !self.may_hit(crowd, i as usize, o, d) {
                continue;
            }
            self.work.skinned += 1;
            self.skin_instance(crowd, asset, i as usize)?;
            let posed = InstancePositions(&self.positions);
            let Some(mut hit) =
                pick_primitives(&asset.primitives, &posed, None, o, d).map_err(PickError::Ray)?
            else {
                continue;
            };
            hit.point = placement.transform_point3(hit.point);
            hit.distance = (hit.point - origin).dot(dir);
            if best.is_none_or(|b| hit.distance < b.hit.distance) {
                best = Some(CrowdHit { instance: i, hit });
            }
        }
        Ok(best)
    }

    /// Whether the ray (`o`, `d` in the instance's frame) may hit a skinned triangle of
    /// instance `instance`: the joint groups' boxes under its bones (a bone matrix carried by
    /// its mesh node's rest world matrix, as the instance is drawn). `true` where unsure.
    fn may_hit(&mut self, crowd: &Crowd, instance: usize, o: Vec3, d: Vec3) -> bool {
        let bones = crowd.bone_matrices(instance);
        let (spans, binding_world) = (&crowd.spans, &self.binding_world);
        let matrix = |binding: usize, joint: usize| {
            let span = spans.iter().find(|s| s.binding == binding)?;
            let bone = bones.get(span.first..span.first + span.count)?.get(joint)?;
            Some(*binding_world.get(binding)? * *bone)
        };
        self.filter.may_hit(matrix, o, d, &mut self.boxes)
    }

    /// Skins every drawn primitive of instance `instance` into `positions`, in the
    /// character's world.
    fn skin_instance(
        &mut self,
        crowd: &Crowd,
        asset: &AssetContainer,
        instance: usize,
    ) -> Result<(), SkelError> {
        let bones = crowd.bone_matrices(instance);
        for ((prim, out), mesh_world) in asset
            .primitives
            .iter()
            .zip(&mut self.positions)
            .zip(&self.mesh_world)
        {
            let (Some(binding), Some(influences)) = (prim.skeleton_binding, &prim.influences)
            else {
                continue;
            };
            if out.is_empty() {
                continue;
            }
            let Some(span) = crowd.spans.iter().find(|s| s.binding == binding) else {
                out.fill(f32::NAN);
                continue;
            };
            let span_bones = bones
                .get(span.first..span.first + span.count)
                .unwrap_or(&[]);
            let morph = match (&prim.morph_targets, prim.morph_binding) {
                (Some(targets), Some(b)) => crowd
                    .instance_morph_weights(instance, b)
                    .or_else(|| {
                        asset
                            .animation
                            .morph_bindings
                            .get(b)
                            .map(|m| m.default_weights.as_slice())
                    })
                    .map(|w| (targets, w)),
                _ => None,
            };
            skin_vertices(
                &prim.positions,
                None,
                Some(influences),
                span_bones,
                morph,
                out,
                None,
            )?;
            if *mesh_world != Mat4::IDENTITY {
                for p in out.chunks_exact_mut(3) {
                    let moved = mesh_world.transform_point3(Vec3::from_slice(p));
                    p.copy_from_slice(&moved.to_array());
                }
            }
        }
        Ok(())
    }
}

/// The ray seen from an instance placed by `placement`: origin and the unit world direction
/// carried by the inverse placement (not normalised again, so that distances along it stay
/// world distances); `None` for a placement without an inverse.
fn into_instance(placement: &Mat4, origin: Vec3, dir: Vec3) -> Option<(Vec3, Vec3)> {
    let inverse = placement.inverse();
    let o = inverse.transform_point3(origin);
    let d = inverse.transform_vector3(dir);
    (o.is_finite() && d.is_finite() && d != Vec3::ZERO).then_some((o, d))
}

impl Crowd {
    /// Instance `instance`'s weights of morph binding `binding`, where the crowd keeps them
    /// (CPU posing with compute skinning of a morphing mesh).
    pub(crate) fn instance_morph_weights(&self, instance: usize, binding: usize) -> Option<&[f32]> {
        let at = *self.morph_offsets.get(binding)? as usize;
        let count = self
            .players
            .first()?
            .rig()
            .data()
            .morph_bindings
            .get(binding)?
            .target_count();
        let chunk = self.morph_weights.chunks(self.morph_chunk).nth(instance)?;
        chunk.get(at..at + count)
    }
}
