//! `--terrain plane:NX,NY,NZ,D` or `--terrain mesh:FILE.glb`: the ground a graph's foot
//! placement queries (`"ground": "plane"` or `"mesh"`), in the character's world space, and
//! without a graph the foot placement of the legs the humanoid map finds.

use std::path::Path;
use std::sync::Arc;

use glam::Vec3;
use skel::anim::{GroundPlane, GroundQuery, Handedness, TriangleGround};
use skel::gltf::{LoadOptions, PrimitiveMode, load_path, rest_world_matrices};

/// What `--terrain` cannot use: the text itself, or an asset with no legs to stand on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TerrainError {
    /// The text is neither `plane:NX,NY,NZ,D` nor `mesh:FILE.glb`, or names a bad ground.
    #[error("--terrain {spec:?}: {reason}")]
    BadSpec {
        /// The value as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The humanoid map finds no humanoid in the asset's joints, so there are no legs.
    #[error(
        "--terrain without a foot-placement graph stands the humanoid's legs on the ground, \
         and this asset has none: {source}"
    )]
    NotHumanoid {
        /// Why the joints are not a humanoid.
        #[source]
        source: skel::retarget::RetargetError,
    },
    /// The humanoid map lacks a joint of the legs (hips, upper leg, lower leg, foot).
    #[error(
        "--terrain without a foot-placement graph stands the humanoid's legs on the ground; \
         the humanoid map finds no {bone} joint in this asset"
    )]
    MissingLegJoint {
        /// The missing joint, as the humanoid map names it (`LeftFoot`).
        bone: String,
    },
    /// Foot placement refuses the legs found (a zero-length bone, a broken chain).
    #[error("--terrain: foot placement refuses the humanoid's legs: {0}")]
    Placement(#[source] skel::anim::AnimError),
}

/// A ground read from `--terrain`: the name a graph binds it to, the ground its foot
/// placement queries, and its shape for drawing.
#[derive(Clone)]
pub struct Terrain {
    name: &'static str,
    ground: Arc<dyn GroundQuery>,
    shape: Shape,
}

impl std::fmt::Debug for Terrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terrain")
            .field("name", &self.name)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

/// What a terrain looks like.
#[derive(Debug, Clone)]
enum Shape {
    /// An endless plane: drawn as a square of it around the character.
    Plane(GroundPlane),
    /// A mesh's triangles in the character's world space.
    Mesh(Arc<[[Vec3; 3]]>),
}

impl Terrain {
    /// Reads `plane:NX,NY,NZ,D` or `mesh:FILE.glb`; a mesh is placed in the character's world
    /// (`handedness`: a left-handed world mirrors its roots in x, as the character's).
    ///
    /// # Errors
    /// [`TerrainError::BadSpec`]: not `plane:` with four numbers and a non-zero normal, nor a
    /// readable `mesh:` file with triangles.
    pub fn parse(spec: &str, handedness: Handedness) -> Result<Self, TerrainError> {
        let bad = |why: &str| TerrainError::BadSpec {
            spec: spec.to_owned(),
            reason: why.to_owned(),
        };
        if let Some(numbers) = spec.strip_prefix("plane:") {
            let n: Vec<f32> = numbers
                .split(',')
                .map(|x| x.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad("expected plane:NX,NY,NZ,D (four numbers: N·p + D = 0)"))?;
            let [nx, ny, nz, d] = n[..] else {
                return Err(bad("expected plane:NX,NY,NZ,D (four numbers: N·p + D = 0)"));
            };
            let plane =
                GroundPlane::new(Vec3::new(nx, ny, nz), d).map_err(|e| bad(&e.to_string()))?;
            return Ok(Self {
                name: "plane",
                ground: Arc::new(plane),
                shape: Shape::Plane(plane),
            });
        }
        if let Some(file) = spec.strip_prefix("mesh:") {
            let triangles = mesh(Path::new(file), handedness).map_err(|e| bad(&e))?;
            let ground = TriangleGround::new(triangles.clone()).map_err(|e| bad(&e.to_string()))?;
            return Ok(Self {
                name: "mesh",
                ground: Arc::new(ground),
                shape: Shape::Mesh(triangles.into()),
            });
        }
        Err(bad("expected plane:NX,NY,NZ,D or mesh:FILE.glb"))
    }

    /// The ground name a graph's foot placement binds (`"plane"` or `"mesh"`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The ground foot placement queries.
    #[must_use]
    pub fn ground(&self) -> Arc<dyn GroundQuery> {
        Arc::clone(&self.ground)
    }

    /// Triangles to draw it with (`skel::render::GroundRenderer`) under a character whose
    /// points span `lo..hi`: a plane's square around the point of it nearest their middle,
    /// their largest extent on a side (a plane has no edge of its own; this one shows
    /// the ground a step around the feet), a mesh's own triangles.
    #[must_use]
    pub fn triangles_around(&self, lo: Vec3, hi: Vec3) -> Vec<[Vec3; 3]> {
        match &self.shape {
            Shape::Plane(plane) => {
                let half = 0.5 * (hi - lo).max_element();
                skel::render::plane_patch(plane, (lo + hi) * 0.5, half).to_vec()
            }
            Shape::Mesh(triangles) => triangles.to_vec(),
        }
    }
}

/// Foot placement on the legs of `rig`'s humanoid map (the hips, and each side's upper leg,
/// lower leg, foot and toes, found from the joint names as `skel retarget --auto` finds
/// them), standing on `ground`. What `--terrain` means where no graph places feet.
///
/// # Errors
/// [`TerrainError::NotHumanoid`] (a quadruped, a rig without legs),
/// [`TerrainError::MissingLegJoint`], [`TerrainError::Placement`].
pub fn humanoid_feet(
    rig: &skel::anim::Rig,
    ground: Arc<dyn GroundQuery>,
) -> Result<skel::anim::FootPlacementJob, TerrainError> {
    use skel::retarget::{BodySide, HumanBone, HumanoidMap, Limb};
    let map =
        HumanoidMap::detect(rig.data()).map_err(|source| TerrainError::NotHumanoid { source })?;
    let bone = |b: HumanBone| {
        map.get(b).ok_or_else(|| TerrainError::MissingLegJoint {
            bone: b.to_string(),
        })
    };
    let mut feet = Vec::new();
    for side in [BodySide::Left, BodySide::Right] {
        let limb = |l: Limb| bone(HumanBone::Limb(side, l));
        feet.push(skel::anim::FootDesc::new(
            limb(Limb::UpperLeg)?,
            limb(Limb::LowerLeg)?,
            limb(Limb::Foot)?,
            map.get(HumanBone::Limb(side, Limb::Toes)),
        ));
    }
    let desc = skel::anim::FootPlacementDesc::new(bone(HumanBone::Hips)?, feet);
    let placement =
        skel::anim::FootPlacement::new(rig.data(), &desc).map_err(TerrainError::Placement)?;
    Ok(skel::anim::FootPlacementJob::new(placement, ground))
}

/// [`Terrain::parse`] in the rig's handedness, then [`humanoid_feet`]: `--terrain` where no
/// graph places feet.
///
/// # Errors
/// What those two report.
pub fn humanoid_feet_on(
    rig: &skel::anim::Rig,
    spec: &str,
) -> Result<skel::anim::FootPlacementJob, TerrainError> {
    let terrain = Terrain::parse(spec, rig.data().handedness)?;
    humanoid_feet(rig, terrain.ground())
}

/// The triangles of every mesh of `path` at rest, placed by their nodes in `handedness`'s
/// world (the character's).
fn mesh(path: &Path, handedness: Handedness) -> Result<Vec<[Vec3; 3]>, String> {
    let options = LoadOptions {
        handedness,
        decode_images: false,
    };
    let asset = load_path(path, &options).map_err(|e| e.to_string())?;
    let world = rest_world_matrices(&asset.animation).map_err(|e| e.to_string())?;
    let mut triangles = Vec::new();
    for p in asset
        .primitives
        .iter()
        .filter(|p| p.mode == PrimitiveMode::Triangles)
    {
        let place = world.get(p.node).copied().unwrap_or(glam::Mat4::IDENTITY);
        let vertex = |i: u32| {
            let at = i as usize * 3;
            p.positions
                .get(at..at + 3)
                .map(|v| place.transform_point3(Vec3::from_slice(v)))
        };
        let count = p.positions.len() / 3;
        let indices: Vec<u32> = match &p.indices {
            Some(ix) => ix.clone(),
            None => (0..u32::try_from(count).unwrap_or(0)).collect(),
        };
        for t in indices.chunks_exact(3) {
            if let (Some(a), Some(b), Some(c)) = (vertex(t[0]), vertex(t[1]), vertex(t[2])) {
                triangles.push([a, b, c]);
            }
        }
    }
    Ok(triangles)
}
