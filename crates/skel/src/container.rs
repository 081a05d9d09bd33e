//! [`load_gltf`]: a glTF file to an [`AssetContainer`] of GPU-ready meshes, skeletons, morph
//! targets and animation groups (the seed's `loadGltf` with its skeleton integration).

use std::sync::Arc;

use skel_anim::{AnimationData, AnimationGroup, NullSink, Player, PoseScratch, PoseSink, Rig};
use skel_gltf::{CharacterBounds, GltfAsset, ImageSlot, NodeInfo, PrimitiveData, SkinInfo};
use skel_gpu::glam::Vec3;
use skel_gpu::{BufferInit, GpuContext, JointIndices, MorphGpu, SkeletonGpu};

use crate::mesh::{MeshStreams, concatenate};
use crate::{LoadOptions, Mesh, MeshMorph, MeshSkeleton, SkelError, Source};

/// A loaded asset: what a renderer draws and what the animation API drives.
///
/// - [`meshes`](Self::meshes): one per mesh node of the scene, with vertex buffers, its GPU
///   skeleton (skinned meshes) and morph targets;
/// - [`animation`](Self::animation): the shared keyframes and hierarchy (an `Arc`: more
///   characters from the same file cost no keyframe copies);
/// - [`animation_groups`](Self::animation_groups): one stopped group per clip;
/// - `skeletons` (feature `bone-control`, when enabled at load): one handle per skinned mesh;
/// - [`primitives`](Self::primitives): the CPU streams, for bounds, picking, CPU skinning.
#[derive(Debug)]
#[non_exhaustive]
pub struct AssetContainer {
    /// Nodes at rest, clips, skeleton and morph bindings.
    pub animation: Arc<AnimationData>,
    /// The asset compiled for playback, once: make players with [`player`](Self::player).
    pub rig: Arc<Rig>,
    /// GPU meshes, one per mesh node of the scene, in node order.
    pub meshes: Vec<Mesh>,
    /// One group per clip, in clip order, stopped at time 0.
    pub animation_groups: Vec<AnimationGroup>,
    /// The CPU vertex streams of every primitive, in the order of the golden files.
    pub primitives: Vec<PrimitiveData>,
    /// Every node's links and contents.
    pub nodes: Vec<NodeInfo>,
    /// Every skin.
    pub skins: Vec<SkinInfo>,
    /// Spheres around the geometry each joint (and each rigid primitive) moves, made at load:
    /// they box any pose without skinning a vertex ([`world_box`](Self::world_box),
    /// [`Crowd::instance_box`](crate::Crowd::instance_box); docs/bounds.md).
    pub bounds: CharacterBounds,
    /// Decoded base-colour images, one slot per glTF image.
    pub images: Vec<ImageSlot>,
    /// What each property slot of the clips' property tracks animates
    /// (`KHR_animation_pointer`); sample them with
    /// [`Player::sample_properties`](skel_anim::Player::sample_properties).
    pub properties: Vec<skel_gltf::PropertyTarget>,
    /// What loading skipped, with JSON paths (see [`AssetContainer::warnings`]).
    pub warnings: Vec<skel_gltf::LoadWarning>,
    /// A VRM's spring bones and node constraints (empty otherwise, or when
    /// [`LoadOptions::secondary`] turns them off); [`player`](Self::player) attaches them.
    pub secondary: crate::SecondaryMotion,
    /// Bone control of the asset (when enabled in [`LoadOptions`]).
    #[cfg(feature = "bone-control")]
    pub bone_control: Option<skel_bone_control::BoneControlAsset>,
    /// One handle per skinned mesh (skeleton binding order); empty without bone control.
    #[cfg(feature = "bone-control")]
    pub skeletons: Vec<Arc<skel_bone_control::Skeleton>>,
}

/// Loads a glTF asset and creates its GPU resources on `ctx`: per mesh node, vertex and index
/// buffers; per skinned mesh, a [`SkeletonGpu`] (bone texture filled with the rest pose,
/// joint/weight buffers for 4, 8 or 16 influences); per mesh with morph targets, a [`MorphGpu`];
/// one [`AnimationGroup`] per clip; and, with bone control on, the skeleton handles with the
/// override hook installed on every group.
///
/// # Errors
/// [`SkelError::Gltf`] for an unreadable or malformed file, [`SkelError::Gpu`] when a GPU
/// resource cannot be created (naming the node), [`SkelError::InconsistentMesh`] when a
/// mesh's primitives cannot share buffers, [`SkelError::Anim`] when the animation data does not
/// validate.
#[doc(alias = "loadGltf")]
pub fn load_gltf<'a>(
    ctx: &GpuContext,
    source: impl Into<Source<'a>>,
    options: &LoadOptions,
) -> Result<AssetContainer, SkelError> {
    let gltf_options = options.gltf();
    let asset = match source.into() {
        Source::Path(path) => skel_gltf::load_path(path, &gltf_options)?,
        Source::Bytes { bytes, base_dir } => skel_gltf::load_slice(bytes, base_dir, &gltf_options)?,
    };
    from_asset(ctx, asset, options)
}

/// [`load_gltf`] for an asset already loaded on the CPU by `skel_gltf`.
///
/// # Errors
/// As [`load_gltf`], less the file errors.
#[cfg_attr(
    target_arch = "wasm32",
    expect(
        clippy::arc_with_non_send_sync,
        reason = "wgpu's resources are not Send + Sync on wasm32 without atomics; the Arc shares \
                  them between the meshes of one thread there"
    )
)]
pub fn from_asset(
    ctx: &GpuContext,
    asset: GltfAsset,
    options: &LoadOptions,
) -> Result<AssetContainer, SkelError> {
    let secondary = crate::SecondaryMotion::from_asset(&asset, &options.secondary)?;
    let GltfAsset {
        animation,
        nodes,
        skins,
        meshes: mesh_infos,
        primitives,
        images,
        properties,
        warnings,
        morph_names,
        ..
    } = asset;
    let mut animation = animation;
    crate::mirror_clips_named(&mut animation, &morph_names, options.mirror)?;
    let animation = Arc::new(animation);
    // Compiled once: every player, group and bone control of the asset shares it.
    let rig = Rig::with_options(Arc::clone(&animation), &options.rig)?;

    // Rest-pose bone matrices: what the bone textures hold before the first tick.
    let mut rest = PoseScratch::for_rig(&rig);
    skel_anim::reset_to_rest(&animation, &mut rest);
    skel_anim::compute_world_matrices(&animation, &mut rest);
    skel_anim::compute_bone_matrices(&animation, &mut rest, &mut NullSink);

    #[cfg(feature = "bone-control")]
    let bone_control = if options.bone_control {
        Some(skel_bone_control::enable_bone_control_for_rig(&rig))
    } else {
        None
    };

    // Primitives grouped by node, in node order (they arrive ordered by node).
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, p) in primitives.iter().enumerate() {
        match groups.last_mut() {
            Some((node, list)) if *node == p.node => list.push(i),
            _ => groups.push((p.node, vec![i])),
        }
    }

    let mut meshes = Vec::with_capacity(groups.len());
    for (node, sources) in &groups {
        let streams = concatenate(*node, &primitives, sources)?;
        if streams.vertex_count() == 0 {
            continue;
        }
        let first = &primitives[sources[0]];
        let skeleton = match first.skeleton_binding {
            Some(binding) => {
                #[allow(unused_mut, reason = "stamped only with the bone-control feature")]
                let mut gpu =
                    create_mesh_skeleton(ctx, *node, &animation, binding, &rest, &streams)?;
                // The opt-in builder's one association write per binding.
                #[cfg(feature = "bone-control")]
                if let Some(bc) = &bone_control {
                    gpu.handle = bc.association(binding);
                }
                Some(MeshSkeleton {
                    gpu: Arc::new(gpu),
                    binding,
                })
            }
            None => None,
        };
        let morph = match first.morph_binding {
            Some(binding) if streams.target_count > 0 => {
                let weights = rest.morph_weights.get(binding).cloned().unwrap_or_default();
                Some(MeshMorph {
                    gpu: Arc::new(create_mesh_morph(
                        ctx,
                        *node,
                        &streams,
                        &weights,
                        options.morph_deltas_on(ctx),
                    )?),
                    binding,
                })
            }
            _ => None,
        };
        let (positions, normals, uvs, indices) = create_vertex_buffers(ctx, *node, &streams)?;
        meshes.push(Mesh {
            name: mesh_infos
                .get(first.mesh)
                .map(|m| m.name.clone())
                .unwrap_or_default(),
            node: *node,
            mesh: first.mesh,
            visible: true,
            vertex_count: u32::try_from(streams.vertex_count()).unwrap_or(u32::MAX),
            primitives: streams.primitives,
            positions,
            normals,
            uvs,
            indices,
            skeleton,
            morph,
        });
    }

    #[allow(unused_mut, reason = "mutated only with the bone-control feature")]
    let mut animation_groups = skel_anim::create_animation_groups_for(&rig)?;
    #[cfg(feature = "bone-control")]
    if let Some(bc) = &bone_control {
        for group in &mut animation_groups {
            group.set_pose_hook(Some(bc.pose_hook()));
        }
    }
    Ok(AssetContainer {
        #[cfg(feature = "bone-control")]
        skeletons: bone_control
            .as_ref()
            .map(|bc| bc.skeletons().to_vec())
            .unwrap_or_default(),
        #[cfg(feature = "bone-control")]
        bone_control,
        animation,
        properties,
        warnings,
        secondary,
        rig,
        meshes,
        animation_groups,
        bounds: CharacterBounds::from_primitives(&primitives, &skins),
        primitives,
        nodes,
        skins,
        images,
    })
}

fn create_mesh_skeleton(
    ctx: &GpuContext,
    node: usize,
    animation: &AnimationData,
    binding: usize,
    rest: &PoseScratch,
    streams: &MeshStreams,
) -> Result<SkeletonGpu, SkelError> {
    let bone_count = animation
        .skeletons
        .get(binding)
        .map_or(0, skel_anim::SkeletonBinding::bone_count);
    let bone_count = u32::try_from(bone_count).map_err(|_| SkelError::InconsistentMesh {
        node,
        reason: format!("{bone_count} bones"),
    })?;
    let bone_data = rest.bones.get(binding).map_or(&[][..], Vec::as_slice);
    let sets: Vec<skel_gpu::InfluenceSet<'_>> = streams
        .influence_sets
        .iter()
        .map(|(joints, weights)| skel_gpu::InfluenceSet {
            joints: JointIndices::U32(joints),
            weights,
        })
        .collect();
    skel_gpu::create_skeleton_with(
        ctx,
        &skel_gpu::SkeletonDescriptor {
            bone_count,
            bone_data,
            influences: &sets,
        },
    )
    .map_err(SkelError::gpu(format!("skeleton of mesh node {node}")))
}

fn create_mesh_morph(
    ctx: &GpuContext,
    node: usize,
    streams: &MeshStreams,
    weights: &[f32],
    storage: skel_gpu::MorphDeltaStorage,
) -> Result<MorphGpu, SkelError> {
    let targets = skel_anim::MorphTargets {
        target_count: streams.target_count,
        positions: streams.morph_positions.clone(),
        normals: streams.morph_normals.clone(),
    };
    skel_gpu::create_morph_with(ctx, &targets, streams.vertex_count(), weights, storage)
        .map_err(SkelError::gpu(format!("morph targets of mesh node {node}")))
}

/// Usage of the meshes' vertex buffers: drawn as vertex buffers, readable by compute skinning
/// (`STORAGE`) and by readback (`COPY_SRC`).
pub const VERTEX_BUFFER_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_SRC);

type VertexBuffers = (
    wgpu::Buffer,
    wgpu::Buffer,
    wgpu::Buffer,
    Option<wgpu::Buffer>,
);

/// The mesh's vertex and index buffers, filled from one staging buffer
/// ([`skel_gpu::create_buffers_init`]: one temporary allocation per mesh, not one per buffer,
/// which keeps later per-frame uploads fast when many meshes are loaded).
fn create_vertex_buffers(
    ctx: &GpuContext,
    node: usize,
    streams: &MeshStreams,
) -> Result<VertexBuffers, SkelError> {
    // STORAGE: `skel::gpu::ComputeSkinning` can read them as they are; COPY_SRC: tools and
    // tests can read them back.
    let vertex = |label, contents| BufferInit {
        label,
        usage: VERTEX_BUFFER_USAGE,
        contents,
    };
    let mut inits = vec![
        vertex("skel positions", bytemuck::cast_slice(&streams.positions)),
        vertex("skel normals", bytemuck::cast_slice(&streams.normals)),
        vertex("skel uvs", bytemuck::cast_slice(&streams.uvs)),
    ];
    let indexed = !streams.indices.is_empty();
    if indexed {
        inits.push(BufferInit {
            label: "skel indices",
            usage: wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST,
            contents: bytemuck::cast_slice(&streams.indices),
        });
    }
    let mut buffers = skel_gpu::create_buffers_init(ctx, "skel::load_gltf vertex buffers", &inits)
        .map_err(SkelError::gpu(format!(
            "vertex buffers of mesh node {node}"
        )))?
        .into_iter();
    let mut next = || {
        buffers.next().ok_or_else(|| SkelError::InconsistentMesh {
            node,
            reason: "fewer vertex buffers than requested".into(),
        })
    };
    let (positions, normals, uvs) = (next()?, next()?, next()?);
    let indices = if indexed { Some(next()?) } else { None };
    Ok((positions, normals, uvs, indices))
}

impl AssetContainer {
    /// The world box `(min, max)` of every vertex `player` draws in the pose it last
    /// computed (skinned, morphed and rigid primitives alike): [`bounds`](Self::bounds) under
    /// the player's node world matrices, a few nanoseconds per joint, no vertex skinned.
    /// `None` without geometry or with non-finite matrices. Allocates nothing (the player
    /// resolves its world matrices if it has not yet).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let ctx = skel::gpu::GpuContext::new_headless()?;
    /// let path = std::path::Path::new("CesiumMan.glb");
    /// let asset = skel::load_gltf(&ctx, path, &skel::LoadOptions::default())?;
    /// let mut player = skel::anim::Player::new(&asset.rig);
    /// player.add_layer(skel::anim::LayerDesc::new(0))?;
    /// player.tick(0.5, &mut skel::anim::NullSink);
    /// let (min, max) = asset.world_box(&mut player).expect("geometry");
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn world_box(&self, player: &mut Player) -> Option<(Vec3, Vec3)> {
        self.bounds.world_box(player.world_matrices())
    }

    /// The mesh drawn at node `node`.
    #[must_use]
    pub fn mesh_for_node(&self, node: usize) -> Option<&Mesh> {
        self.meshes.iter().find(|m| m.node == node)
    }

    /// What loading skipped or could not apply, each with its JSON path: channels skel does
    /// not animate (untargeted, unknown pointers), images it could not decode, codecs without
    /// fallbacks. A file is never refused for a part skel does not use.
    #[must_use]
    pub fn warnings(&self) -> &[skel_gltf::LoadWarning] {
        &self.warnings
    }

    /// The index of the clip named `name`.
    #[must_use]
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.animation.clip_index(name)
    }

    /// Advances animation group `group` by `delta_ms` and uploads its pose to this container's
    /// meshes (the seed's `tickAnimation(group, deltaMs, engine)`). Returns `false` when there
    /// is no such group.
    pub fn tick_animation(&mut self, group: usize, delta_ms: f32, queue: &wgpu::Queue) -> bool {
        let Some(g) = self.animation_groups.get_mut(group) else {
            return false;
        };
        let mut sink = MeshPoseSink::new(queue, &mut self.meshes);
        skel_anim::tick_animation(g, delta_ms, &mut sink);
        true
    }

    /// A sink that uploads poses to this container's meshes.
    pub fn pose_sink<'a>(&'a mut self, queue: &'a wgpu::Queue) -> MeshPoseSink<'a> {
        MeshPoseSink::new(queue, &mut self.meshes)
    }
}

/// Uploads a pose to the meshes that draw it: bone matrices of skeleton binding `i` to the
/// mesh whose skeleton has binding `i`, morph weights of morph binding `j` to the mesh whose
/// morph targets have binding `j`. Allocates nothing; build one per frame.
///
/// Clones of a mesh (see [`Mesh`]) share one skeleton and one morph buffer: the sink uploads
/// each shared one once per pose, however many of the meshes hold it.
///
/// Bindings without a mesh (none in a loaded container) and size mismatches are counted in
/// [`skipped`](Self::skipped).
#[derive(Debug)]
pub struct MeshPoseSink<'a> {
    queue: &'a wgpu::Queue,
    meshes: &'a mut [Mesh],
    skipped: u32,
}

impl<'a> MeshPoseSink<'a> {
    /// A sink over `meshes` (usually `&mut container.meshes`).
    #[must_use]
    pub fn new(queue: &'a wgpu::Queue, meshes: &'a mut [Mesh]) -> Self {
        Self {
            queue,
            meshes,
            skipped: 0,
        }
    }

    /// Uploads skipped since the sink was made.
    #[must_use]
    pub fn skipped(&self) -> u32 {
        self.skipped
    }
}

impl PoseSink for MeshPoseSink<'_> {
    fn bone_matrices(&mut self, binding: usize, matrices: &[skel_anim::glam::Mat4]) {
        let skeleton_of = |mesh| skeleton_for(mesh, binding);
        let mut written = false;
        for (i, mesh) in self.meshes.iter().enumerate() {
            let Some(gpu) = skeleton_of(mesh) else {
                continue;
            };
            // A clone of an earlier mesh: that upload already posed this one.
            let shared = self.meshes[..i]
                .iter()
                .filter_map(skeleton_of)
                .any(|earlier| Arc::ptr_eq(earlier, gpu));
            if !shared {
                written |= gpu.write_bone_matrices(self.queue, matrices);
            }
        }
        if !written {
            self.skipped += 1;
        }
    }

    fn morph_weights(&mut self, binding: usize, weights: &[f32]) {
        let morph_of = |mesh| morph_for(mesh, binding, weights.len());
        let mut written = false;
        for (i, mesh) in self.meshes.iter().enumerate() {
            let Some(gpu) = morph_of(mesh) else {
                continue;
            };
            let shared = self.meshes[..i]
                .iter()
                .filter_map(morph_of)
                .any(|earlier| Arc::ptr_eq(earlier, gpu));
            if !shared {
                gpu.write_weights(self.queue, weights);
            }
            written = true;
        }
        if !written {
            self.skipped += 1;
        }
    }
}

/// `mesh`'s skeleton when it receives skeleton binding `binding`.
fn skeleton_for(mesh: &Mesh, binding: usize) -> Option<&Arc<SkeletonGpu>> {
    mesh.skeleton
        .as_ref()
        .filter(|s| s.binding == binding)
        .map(|s| &s.gpu)
}

/// `mesh`'s morph targets when they receive morph binding `binding` with `weights` weights.
fn morph_for(mesh: &Mesh, binding: usize, weights: usize) -> Option<&Arc<MorphGpu>> {
    mesh.morph
        .as_ref()
        .filter(|m| m.binding == binding && m.gpu.target_count() == weights)
        .map(|m| &m.gpu)
}
