//! `skel retarget SOURCE TARGET --out OUT.glb [--map MAP.json | --auto] [--clips A,B,…]
//! [--root NODE --ground NODE] [--no-root-fix] [--align-rest] [--print-map]`: the source's
//! clips baked onto the target (Babylon.js's `retargetAnimationGroup` rule) and written as one
//! `.glb` holding the target asset as loaded, with the retargeted clips among its animations.

use std::path::PathBuf;

use clap::Args;
use skel::anim::{AnimationData, Handedness};
use skel::gltf::{GltfDocument, LoadOptions, load_document, load_path, write_glb_file};
use skel::retarget::{HumanoidMap, NodeMap, with_clips};

use super::retarget_map::MapArgs;

/// Arguments of `skel retarget`.
#[derive(Debug, Clone, Args)]
pub struct RetargetArgs {
    /// The asset whose clips are retargeted (`.gltf` or `.glb`).
    pub source: PathBuf,
    /// The asset the clips are made for (`.gltf` or `.glb`).
    pub target: PathBuf,
    /// The `.glb` to write (through a temporary file, renamed when complete).
    #[arg(long, value_name = "OUT.glb", required_unless_present = "print_map")]
    pub out: Option<PathBuf>,
    /// Only these source clips, by name, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub clips: Option<Vec<String>>,
    /// Print the node map (target → source, the --map format) and the unmatched joints.
    #[arg(long)]
    pub print_map: bool,
    #[command(flatten)]
    pub map: MapArgs,
}

/// How rigs are loaded for retargeting: node rest poses are the same in either handedness.
const RIG: LoadOptions = LoadOptions {
    handedness: Handedness::RightHanded,
    decode_images: false,
};

/// Prints the map as JSON, then the joints of each side's skins that it leaves out.
fn print_map(map: &NodeMap, source: &AnimationData, target: &AnimationData) {
    println!("{}", map.to_json(source, target));
    let joints = |data: &AnimationData| {
        let mut v: Vec<usize> = data
            .skeletons
            .iter()
            .flat_map(|s| s.joints.iter().copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let unmatched_t: Vec<&str> = joints(target)
        .into_iter()
        .filter(|&t| map.source_of(t).is_none())
        .map(|t| target.nodes[t].name.as_str())
        .collect();
    let unmatched_s: Vec<&str> = joints(source)
        .into_iter()
        .filter(|&s| map.target_of(s).is_none())
        .map(|s| source.nodes[s].name.as_str())
        .collect();
    eprintln!(
        "unmapped target joints (keep their rest): {}",
        unmatched_t.join(", ")
    );
    eprintln!(
        "unmapped source joints (dropped): {}",
        unmatched_s.join(", ")
    );
    if let Ok(h) = HumanoidMap::detect(target)
        && let Some((root, ground)) = h.root_and_ground(target)
    {
        eprintln!(
            "default root {:?}, ground reference {:?}",
            target.nodes[root].name, target.nodes[ground].name
        );
    }
}

/// Retargets and writes the file.
///
/// # Errors
/// When an asset cannot be loaded, the map or options are refused, or the file cannot be
/// written (nothing is left half-written).
pub fn run(args: &RetargetArgs) -> Result<(), Box<dyn std::error::Error>> {
    let source = load_path(&args.source, &RIG)?;
    let doc = GltfDocument::from_path(&args.target)?;
    let target = load_document(&doc, &RIG)?;
    if args.print_map {
        let (s, t) = (&source.animation, &target.animation);
        print_map(&args.map.node_map(s, t)?, s, t);
    }
    let Some(out) = &args.out else { return Ok(()) };
    let (baked, _) = args.map.bake(&source, &target, args.clips.clone())?;
    let names: Vec<String> = baked.iter().map(|c| c.name.clone()).collect();
    let all = with_clips(&target.animation, baked);
    write_glb_file(&doc, &all.clips, out)?;
    eprintln!(
        "wrote {} ({} clips retargeted: {})",
        out.display(),
        names.len(),
        names.join(", ")
    );
    Ok(())
}
