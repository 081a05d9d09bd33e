//! `skel mirror IN OUT [--pairs PAIRS.json | --humanoid] [--plane NX,NY,NZ,D] [--clips A,B,…]
//! [--append]`: the asset's clips mirrored left/right (`skel_anim::mirror`: pairs from the
//! node names, the plane from the rest pose) and written as one `.glb` holding the asset as
//! loaded. By default each clip is replaced by its mirror under the same name; `--append`
//! keeps the clips and adds `<name>.mirror`.

use std::path::PathBuf;

use clap::Args;
use skel::anim::glam::Vec3;
use skel::anim::mirror::{merge_pairs, pairs_by_name};
use skel::anim::{AnimationData, Handedness, MirrorMap, MirrorPlane, mirror_clip};
use skel::gltf::{GltfDocument, LoadOptions, load_document, write_glb_file};
use skel::retarget::HumanoidMap;

/// Arguments of `skel mirror`.
#[derive(Debug, Clone, Args)]
pub struct MirrorArgs {
    /// The asset whose clips are mirrored (`.gltf` or `.glb`).
    pub input: PathBuf,
    /// The `.glb` to write (through a temporary file, renamed when complete).
    pub out: PathBuf,
    /// A JSON object `{"left node": "right node", …}`: these pairs replace the name pairs of
    /// the nodes they name (a node name that several nodes have means the first of them).
    #[arg(long, value_name = "PAIRS.json", conflicts_with = "humanoid")]
    pub pairs: Option<PathBuf>,
    /// Pair the canonical humanoid joints (the map `skel retarget --auto` uses), and the other
    /// nodes by their names.
    #[arg(long)]
    pub humanoid: bool,
    /// The mirror plane as `NX,NY,NZ,D` (the points x with n · x = D, in the asset's frame);
    /// by default it is found from the rest pose, between the pairs.
    #[arg(long, value_name = "NX,NY,NZ,D")]
    pub plane: Option<String>,
    /// Only these clips, by name, comma-separated (the others are written as they are).
    #[arg(long, value_delimiter = ',')]
    pub clips: Option<Vec<String>>,
    /// Keep the clips and add each mirror as `<name>.mirror`.
    #[arg(long)]
    pub append: bool,
}

/// A pairs file, plane or clip name that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MirrorArgError {
    /// The pairs file cannot be read.
    #[error("--pairs {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The pairs file is not a JSON object of node names.
    #[error("--pairs: {reason}")]
    PairsJson {
        /// What is wrong.
        reason: String,
    },
    /// A node name in the pairs file that the asset does not have.
    #[error("--pairs: the asset has no node named {name:?}")]
    NoSuchNode {
        /// The name.
        name: String,
    },
    /// `--plane` is not four finite numbers.
    #[error("--plane {text:?}: expected four numbers NX,NY,NZ,D")]
    Plane {
        /// What was given.
        text: String,
    },
    /// `--clips` names a clip the asset does not have.
    #[error("--clips: no clip named {clip:?} (the asset has: {names})")]
    NoSuchClip {
        /// The name asked for.
        clip: String,
        /// The clips of the asset.
        names: String,
    },
}

/// Node rest poses are the same in either handedness: load in glTF's own frame, where the
/// plane is written.
const RIG: LoadOptions = LoadOptions {
    handedness: Handedness::RightHanded,
    decode_images: false,
};

impl MirrorArgs {
    /// The pairs asked for: the file's or the humanoid map's laid over the name pairs.
    fn mirror_pairs(
        &self,
        data: &AnimationData,
    ) -> Result<Vec<(usize, usize)>, Box<dyn std::error::Error>> {
        let names = pairs_by_name(&data.nodes)?;
        let chosen = if let Some(path) = &self.pairs {
            let text = std::fs::read_to_string(path).map_err(|source| MirrorArgError::Read {
                path: path.display().to_string(),
                source,
            })?;
            pairs_from_json(&text, data)?
        } else if self.humanoid {
            HumanoidMap::detect(data)?.mirror_pairs()
        } else {
            return Ok(names);
        };
        Ok(merge_pairs(&chosen, &names))
    }

    fn mirror_plane(&self) -> Result<Option<MirrorPlane>, Box<dyn std::error::Error>> {
        let Some(text) = &self.plane else {
            return Ok(None);
        };
        let bad = || MirrorArgError::Plane { text: text.clone() };
        let v: Vec<f32> = text
            .split(',')
            .map(|s| s.trim().parse::<f32>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let [x, y, z, d] = v[..] else {
            return Err(bad().into());
        };
        Ok(Some(MirrorPlane::new(Vec3::new(x, y, z), d)?))
    }

    /// Indices of `--clips`, or every clip.
    fn chosen_clips(&self, data: &AnimationData) -> Result<Vec<usize>, MirrorArgError> {
        let Some(names) = &self.clips else {
            return Ok((0..data.clips.len()).collect());
        };
        names
            .iter()
            .map(|name| {
                data.clip_index(name)
                    .ok_or_else(|| MirrorArgError::NoSuchClip {
                        clip: name.clone(),
                        names: data
                            .clips
                            .iter()
                            .map(|c| format!("{:?}", c.name))
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect()
    }
}

/// `{"left node": "right node", …}` as node index pairs.
fn pairs_from_json(
    text: &str,
    data: &AnimationData,
) -> Result<Vec<(usize, usize)>, MirrorArgError> {
    let json = |reason: String| MirrorArgError::PairsJson { reason };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| json(e.to_string()))?;
    let object = value
        .as_object()
        .ok_or_else(|| json("expected an object {\"left node\": \"right node\", …}".into()))?;
    let node = |name: &str| {
        data.nodes
            .iter()
            .position(|n| n.name == name)
            .ok_or_else(|| MirrorArgError::NoSuchNode {
                name: name.to_owned(),
            })
    };
    object
        .iter()
        .map(|(left, right)| {
            let right = right
                .as_str()
                .ok_or_else(|| json(format!("the value of {left:?} is not a string")))?;
            Ok((node(left)?, node(right)?))
        })
        .collect()
}

/// Mirrors and writes the file.
///
/// # Errors
/// When the asset cannot be loaded, the pairs, plane or clips are refused (pairs that break
/// the hierarchy name the node), or the file cannot be written (nothing is left half-written).
pub fn run(args: &MirrorArgs) -> Result<(), Box<dyn std::error::Error>> {
    let doc = GltfDocument::from_path(&args.input)?;
    let asset = load_document(&doc, &RIG)?;
    let mut data = asset.animation;
    let pairs = args.mirror_pairs(&data)?;
    let map = match args.mirror_plane()? {
        Some(plane) => MirrorMap::with_plane(&data, &pairs, plane)?,
        None => MirrorMap::from_pairs(&data, &pairs)?,
    }
    .with_morph_target_names(skel::morph_target_names(&data, &asset.morph_names));
    let chosen = args.chosen_clips(&data)?;
    let names: Vec<String> = chosen.iter().map(|&c| data.clips[c].name.clone()).collect();
    if args.append {
        data.append_mirrored_clips(&map, &chosen)?;
    } else {
        let mirrored = chosen
            .iter()
            .map(|&c| mirror_clip(&data, &map, c))
            .collect::<Result<Vec<_>, _>>()?;
        for (&c, clip) in chosen.iter().zip(mirrored) {
            data.clips[c] = clip;
        }
    }
    write_glb_file(&doc, &data.clips, &args.out)?;
    let plane = map.plane();
    eprintln!(
        "wrote {} ({} clips mirrored: {}; {} pairs, plane normal {:.4?} at distance {:.4})",
        args.out.display(),
        names.len(),
        names.join(", "),
        map.pairs().count(),
        plane.normal().to_array(),
        plane.distance()
    );
    Ok(())
}
