//! `skel pick`: the first triangle a ray hits on the posed character (skinned and morphed, the
//! CPU reference pose), tested against the pose's world box first.

use clap::Args;
use serde_json::json;
use skel::anim::glam::Vec3;
use skel::gltf::{CharacterBounds, CpuPoser, pick};

use super::asset_args::{AssetArgs, resolve_clip};

/// `skel pick ASSET [--clip C] --time T --ray OX,OY,OZ,DX,DY,DZ [--json]`.
#[derive(Debug, Args)]
pub struct PickArgs {
    #[command(flatten)]
    asset: AssetArgs,
    /// Clip to pose, by index or name; the rest pose when absent.
    #[arg(long)]
    clip: Option<String>,
    /// Time in seconds.
    #[arg(long, default_value = "0")]
    time: f32,
    /// The ray in the world (the `--handedness` one): origin and direction, six numbers.
    #[arg(long, value_name = "OX,OY,OZ,DX,DY,DZ", value_parser = parse_ray, allow_hyphen_values = true)]
    ray: [f32; 6],
    /// Print JSON: the hit's `mesh`, `primitive`, `triangle`, `barycentric`, `distance` and
    /// `point`, or `"hit": null`.
    #[arg(long)]
    json: bool,
}

fn parse_ray(text: &str) -> Result<[f32; 6], String> {
    let values: Vec<f32> = text
        .split(',')
        .map(|v| v.trim().parse::<f32>().map_err(|e| format!("{v:?}: {e}")))
        .collect::<Result<_, _>>()?;
    values
        .try_into()
        .map_err(|v: Vec<f32>| format!("six numbers, got {}", v.len()))
}

/// Poses the asset and prints the first hit.
///
/// # Errors
/// An unreadable asset or clip name, a pose that fails, a ray with NaN or no direction.
pub fn run(args: &PickArgs) -> Result<(), Box<dyn std::error::Error>> {
    let asset = args.asset.load()?;
    let clip = args
        .clip
        .as_deref()
        .map(|c| resolve_clip(&asset, c))
        .transpose()?;
    let mut poser = CpuPoser::new(&asset)?;
    poser.pose(&asset, clip, args.time)?;
    let bounds = CharacterBounds::new(&asset).world_box(poser.node_world_matrices());
    let [ox, oy, oz, dx, dy, dz] = args.ray;
    let hit = pick(
        &asset,
        &poser,
        bounds,
        Vec3::new(ox, oy, oz),
        Vec3::new(dx, dy, dz),
    )
    .map_err(|e| format!("--ray: {e}"))?;
    if args.json {
        let hit = hit.map(|h| {
            json!({
                "mesh": h.mesh,
                "primitive": h.primitive,
                "key": asset.primitives[h.primitive].key,
                "triangle": h.triangle,
                "barycentric": h.barycentric,
                "distance": h.distance,
                "point": h.point.to_array(),
            })
        });
        println!("{}", serde_json::to_string_pretty(&json!({ "hit": hit }))?);
    } else {
        match hit {
            Some(h) => println!(
                "hit: mesh {} primitive {} ({}) triangle {} at distance {} point {:?}",
                h.mesh,
                h.primitive,
                asset.primitives[h.primitive].key,
                h.triangle,
                h.distance,
                h.point.to_array()
            ),
            None => println!("hit: none"),
        }
    }
    Ok(())
}
