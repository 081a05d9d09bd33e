//! The output of `skel pose`: the report in the shape of the golden files of `../shared/golden`
//! (format `peer-ref-golden/1`), built from anything that [`Poses`], and the summary printed
//! without `--json`.

use serde::Serialize;
use serde::ser::SerializeMap as _;
use skel::anim::Handedness;
use skel::gltf::GltfAsset;

/// Serialises `(index, value)` pairs as a JSON object keyed by the index, in index order
/// (the golden files' `nodes` and `skins`).
#[derive(Debug)]
struct IndexMap<T>(Vec<(usize, T)>);

impl<T: Serialize> Serialize for IndexMap<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(&k.to_string(), v)?;
        }
        map.end()
    }
}

/// The whole output of `skel pose --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoseReport {
    format: &'static str,
    engine: &'static str,
    engine_version: &'static str,
    asset: String,
    handedness: &'static str,
    /// The clip posed, with `--clip`.
    pub clip: Option<ClipSummary>,
    /// The blended clips and weights, with `--blend` (absent otherwise, as in the golden files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blend: Option<Vec<BlendItem>>,
    /// The layer-stack file, with `--layers`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers_file: Option<String>,
    /// The graph file, with `--graph`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_file: Option<String>,
    /// The spring joints, their step and the display rate, when a VRM's springs ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub springs: Option<SpringSummary>,
    clip_count: usize,
    times: Vec<f32>,
    meshes: Vec<MeshHeader>,
    frames: Vec<Frame>,
}

/// What the report says of the springs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpringSummary {
    /// The spring joints' nodes, in update order.
    pub joints: Vec<usize>,
    /// The springs' fixed step, seconds.
    pub step: f32,
    /// The display rate the character was played at.
    pub fps: f64,
    /// Whether node constraints ran.
    pub constraints: bool,
}

/// The clip posed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClipSummary {
    /// Its index.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its length in seconds.
    pub duration: f32,
    /// How many channels it has.
    pub channels: usize,
    /// Its interpolations, sorted.
    pub interpolations: Vec<&'static str>,
}

/// One clip of `--blend`.
#[derive(Debug, Serialize)]
pub struct BlendItem {
    /// Its index.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its weight.
    pub weight: f32,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MeshHeader {
    key: String,
    node: usize,
    mesh: usize,
    primitive: usize,
    name: String,
    skinned: bool,
    vertex_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    skin: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    joints: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    influence_sets: Option<usize>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SkinPose {
    joints: Vec<usize>,
    joint_world: Vec<f32>,
    skin_matrices: Vec<f32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MeshPose {
    key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    morph_weights: Option<Vec<f32>>,
    positions: Vec<f32>,
}

#[derive(Debug, Serialize)]
struct Frame {
    t: f32,
    /// The character's world box from its joints' spheres (`skel_gltf::CharacterBounds`):
    /// every skinned and morphed vertex lies inside. Absent without geometry.
    #[serde(skip_serializing_if = "Option::is_none")]
    bounds: Option<Bounds>,
    nodes: IndexMap<Vec<f32>>,
    skins: IndexMap<SkinPose>,
    meshes: Vec<MeshPose>,
}

/// A world box.
#[derive(Debug, Serialize)]
struct Bounds {
    min: [f32; 3],
    max: [f32; 3],
}

/// What a report poses with: something posed at a time, then read (the CPU reference poser
/// over a clip or layer stack, or `--graph`'s player).
pub trait Poses {
    /// Poses `asset` at `t` seconds.
    ///
    /// # Errors
    /// What posing finds.
    fn pose_at(&mut self, asset: &GltfAsset, t: f32) -> Result<(), Box<dyn std::error::Error>>;
    /// World matrices by node.
    fn world(&self) -> &[skel::anim::glam::Mat4];
    /// `jointWorld · inverseBind` of skin `skin`.
    fn skin_matrices(&self, skin: usize) -> Option<&[skel::anim::glam::Mat4]>;
    /// World positions of primitive `primitive`'s vertices.
    fn positions(&self, primitive: usize) -> Option<&[skel::anim::glam::Vec3]>;
    /// Morph weights of binding `binding`.
    fn morph_weights(&self, binding: usize) -> Option<&[f32]>;
}

/// A pose made by a [`Player`](skel::anim::Player) and skinned on the CPU: what `--terrain`,
/// springs and `--graph` pose with. Each says how it brings its player to a time; reading the
/// pose back is the same for all (the blanket [`Poses`] below).
pub trait PlayedPose {
    /// Brings the player to `t` seconds (its layers evaluated; world matrices not yet
    /// resolved).
    ///
    /// # Errors
    /// What playing finds (a time the player cannot go to).
    fn play_to(&mut self, t: f32) -> Result<(), Box<dyn std::error::Error>>;
    /// The player and the skinned meshes.
    fn parts(&self) -> (&skel::anim::Player, &skel::gltf::SkinnedPose);
    /// The same, to write.
    fn parts_mut(&mut self) -> (&mut skel::anim::Player, &mut skel::gltf::SkinnedPose);
}

impl<T: PlayedPose> Poses for T {
    fn pose_at(&mut self, asset: &GltfAsset, t: f32) -> Result<(), Box<dyn std::error::Error>> {
        self.play_to(t)?;
        let (player, skinned) = self.parts_mut();
        player.resolve_world_matrices();
        let scratch = player.scratch();
        skinned.skin(asset, &scratch.world, &scratch.morph_weights)?;
        Ok(())
    }

    fn world(&self) -> &[skel::anim::glam::Mat4] {
        &self.parts().0.scratch().world
    }

    fn skin_matrices(&self, skin: usize) -> Option<&[skel::anim::glam::Mat4]> {
        self.parts().1.skin_matrices(skin)
    }

    fn positions(&self, primitive: usize) -> Option<&[skel::anim::glam::Vec3]> {
        self.parts().1.positions(primitive)
    }

    fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.parts().0.morph_weights(binding)
    }
}

/// The meshes' headers of the report.
fn mesh_headers(asset: &GltfAsset) -> Vec<MeshHeader> {
    asset
        .primitives
        .iter()
        .map(|p| MeshHeader {
            key: p.key.clone(),
            node: p.node,
            mesh: p.mesh,
            primitive: p.primitive,
            name: asset
                .meshes
                .get(p.mesh)
                .map(|m| m.name.clone())
                .unwrap_or_default(),
            skinned: p.is_skinned(),
            vertex_count: p.vertex_count(),
            skin: p.skin.filter(|_| p.is_skinned()),
            joints: p
                .skin
                .filter(|_| p.is_skinned())
                .and_then(|s| asset.skins.get(s))
                .map(|s| s.joints.clone()),
            influence_sets: p.is_skinned().then_some(p.influence_sets),
        })
        .collect()
}

/// The report of `poser` posing `asset` at every time (no clip summary).
///
/// # Errors
/// What posing finds.
pub fn report_with(
    asset: &GltfAsset,
    name: &str,
    times: &[f32],
    poser: &mut dyn Poses,
) -> Result<PoseReport, Box<dyn std::error::Error>> {
    let clips = &asset.animation.clips;
    let meshes = mesh_headers(asset);
    let boxes = skel::gltf::CharacterBounds::new(asset);
    let mut frames = Vec::with_capacity(times.len());
    for &t in times {
        poser.pose_at(asset, t)?;
        let world = poser.world();
        let bounds = boxes.world_box(world).map(|(min, max)| Bounds {
            min: min.to_array(),
            max: max.to_array(),
        });
        let nodes = IndexMap(
            (0..asset.nodes.len())
                .map(|n| (n, world[n].to_cols_array().to_vec()))
                .collect(),
        );
        let skins = IndexMap(
            asset
                .skins
                .iter()
                .enumerate()
                .map(|(s, skin)| {
                    let joint_world = skin
                        .joints
                        .iter()
                        .flat_map(|&j| world[j].to_cols_array())
                        .collect();
                    let pose = SkinPose {
                        joints: skin.joints.clone(),
                        joint_world,
                        skin_matrices: bytemuck::cast_slice(
                            poser.skin_matrices(s).unwrap_or_default(),
                        )
                        .to_vec(),
                    };
                    (s, pose)
                })
                .collect(),
        );
        let meshes = asset
            .primitives
            .iter()
            .enumerate()
            .map(|(i, p)| MeshPose {
                key: p.key.clone(),
                morph_weights: p
                    .morph_binding
                    .and_then(|b| poser.morph_weights(b))
                    .map(<[f32]>::to_vec),
                positions: bytemuck::cast_slice(poser.positions(i).unwrap_or_default()).to_vec(),
            })
            .collect();
        frames.push(Frame {
            t,
            bounds,
            nodes,
            skins,
            meshes,
        });
    }
    Ok(PoseReport {
        format: "peer-ref-golden/1",
        engine: "skel",
        engine_version: env!("CARGO_PKG_VERSION"),
        asset: name.to_owned(),
        handedness: match asset.animation.handedness {
            Handedness::LeftHanded => "left-handed: root nodes mirrored in x (diag(-1,1,1,1))",
            Handedness::RightHanded => "right-handed: glTF native, no conversion",
        },
        clip: None,
        blend: None,
        layers_file: None,
        graph_file: None,
        springs: None,
        clip_count: clips.len(),
        times: times.to_vec(),
        meshes,
        frames,
    })
}

/// Without `--json`: the world-space bounds of every primitive at every time.
pub fn write_summary(out: &mut impl std::io::Write, report: &PoseReport) -> std::io::Result<()> {
    match (&report.clip, &report.blend) {
        _ if report.graph_file.is_some() => {
            writeln!(
                out,
                "graph {}",
                report.graph_file.as_deref().unwrap_or_default()
            )?;
        }
        _ if report.layers_file.is_some() => {
            writeln!(
                out,
                "layers {}",
                report.layers_file.as_deref().unwrap_or_default()
            )?;
        }
        (_, Some(items)) => {
            write!(out, "blend")?;
            for b in items {
                write!(out, " {} {:?}={}", b.index, b.name, b.weight)?;
            }
            writeln!(out)?;
        }
        (Some(c), None) => writeln!(out, "clip {} {:?} ({} s)", c.index, c.name, c.duration)?,
        (None, None) => writeln!(out, "rest pose")?,
    }
    for frame in &report.frames {
        writeln!(out, "t = {}", frame.t)?;
        for m in &frame.meshes {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in m.positions.chunks_exact(3) {
                for c in 0..3 {
                    lo[c] = lo[c].min(v[c]);
                    hi[c] = hi[c].max(v[c]);
                }
            }
            write!(out, "  {}: bounds {lo:?} .. {hi:?}", m.key)?;
            if let Some(w) = &m.morph_weights {
                write!(out, ", morph weights {w:?}")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}
