//! (4) skel's pose of a file against three.js r187's pose of the same file
//! (`scripts/peer/compressed/goldens/three/<file>.<clip>.json`, `peer-ref-golden/1` with
//! sampled vertices): at each golden time (0, 0.3713·D and D, D the original's clip duration)
//! every skin's joint world and skin matrices, and the skinned world positions of the sampled
//! vertices. Golden keys `n<node>/p<primitive>` name skel's primitives by their `key`, as
//! `tests/golden.rs` maps them; indices are those of the file itself.
//!
//! Errors are fractions of a bounding-box diagonal over the clip (the golden's own sampled
//! positions at its three times, as the shared golden README says): positions (Euclidean
//! distance) of their primitive's; joints of the union of the primitives the skin deforms.
//! A joint world matrix counts as its translation error over that diagonal and its 3×3 part's
//! largest element error over the part's largest column length (a point one diagonal from the
//! joint moves by that fraction of the diagonal); a skin matrix as the largest displacement it
//! gives a corner of its primitives' bind-space box.
//!
//! On gltfpack's files (and the Draco file made from one) the committed goldens differ from
//! skel by up to ~1.2e-4 although both pose the same file: gltfpack stores rotation keys as
//! normalised int16 (|q|² = 1 ± ~4e-5 after dequantising); skel normalises them at load, three
//! r187 keeps them (its `slerpFlat` renormalises on its lerp branch only), so three's joints
//! carry a scale of |q|² that compounds down the chain. `unit_quat_goldens.mjs` beside this
//! file writes the same goldens with the keys normalised; against those every file is within
//! 1.7e-6.

use glam::{DVec3, DVec4, Mat4};
use serde_json::{Value, json};
use skel_gltf::{CpuPoser, GltfAsset};

/// The target: every error within 1e-4 of the diagonal.
pub const TOLERANCE: f64 = 1e-4;

fn nums(v: &Value) -> Result<Vec<f64>, String> {
    v.as_array()
        .ok_or_else(|| format!("not an array: {v:.40}"))?
        .iter()
        .map(|x| x.as_f64().ok_or_else(|| format!("not a number: {x}")))
        .collect()
}

fn index(v: &Value, what: &str) -> Result<usize, String> {
    v.as_u64()
        .map(|n| n as usize)
        .ok_or_else(|| format!("{what}: not an index"))
}

/// An axis-aligned box that grows by points.
#[derive(Clone, Copy)]
struct Bounds {
    lo: DVec3,
    hi: DVec3,
}

impl Bounds {
    const EMPTY: Self = Self {
        lo: DVec3::INFINITY,
        hi: DVec3::NEG_INFINITY,
    };

    fn add(&mut self, p: DVec3) {
        self.lo = self.lo.min(p);
        self.hi = self.hi.max(p);
    }

    fn union(self, o: Self) -> Self {
        Self {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    fn diagonal(&self) -> f64 {
        (self.hi - self.lo).length().max(f64::from(f32::EPSILON))
    }

    fn corners(&self) -> [DVec3; 8] {
        std::array::from_fn(|i| {
            DVec3::new(
                if i & 1 == 0 { self.lo.x } else { self.hi.x },
                if i & 2 == 0 { self.lo.y } else { self.hi.y },
                if i & 4 == 0 { self.lo.z } else { self.hi.z },
            )
        })
    }
}

/// Worst errors of one file and clip, per golden time, as fractions of the diagonals.
#[derive(Default)]
struct Worst {
    joint_translation: Vec<f64>,
    joint_linear: Vec<f64>,
    skin_matrices: Vec<f64>,
    positions: Vec<f64>,
    positions_at: String,
    joints_at: String,
    /// The worst joint and position errors so far (where `*_at` points).
    joint_max: f64,
    position_max: f64,
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

fn column(m: &[f64], c: usize) -> DVec4 {
    DVec4::new(m[c * 4], m[c * 4 + 1], m[c * 4 + 2], m[c * 4 + 3])
}

fn ours_f64(m: &Mat4) -> [f64; 16] {
    m.to_cols_array().map(f64::from)
}

/// Translation error and relative 3×3 error of one joint world matrix.
fn joint_error(golden: &[f64], ours: &Mat4) -> (f64, f64) {
    let o = ours_f64(ours);
    let dt = (column(golden, 3) - column(&o, 3)).truncate().length();
    let scale = (0..3)
        .map(|c| column(golden, c).truncate().length())
        .fold(f64::from(f32::EPSILON), f64::max);
    let dl = (0..3)
        .flat_map(|c| (0..3).map(move |r| c * 4 + r))
        .map(|k| (golden[k] - o[k]).abs())
        .fold(0.0, f64::max);
    (dt, dl / scale)
}

/// The largest displacement the difference of two skin matrices gives a corner of `bind`.
fn skin_error(golden: &[f64], ours: &Mat4, bind: &Bounds) -> f64 {
    let o = ours_f64(ours);
    let d: Vec<f64> = golden.iter().zip(o).map(|(g, o)| g - o).collect();
    bind.corners()
        .iter()
        .map(|c| {
            (column(&d, 0) * c.x + column(&d, 1) * c.y + column(&d, 2) * c.z + column(&d, 3))
                .truncate()
                .length()
        })
        .fold(0.0, f64::max)
}

/// skel's primitive index of each golden mesh, checked against the golden's description.
fn primitive_map(asset: &GltfAsset, meshes: &[Value]) -> Result<Vec<usize>, String> {
    meshes
        .iter()
        .map(|m| {
            let key = m["key"].as_str().unwrap_or_default();
            let i = asset
                .primitives
                .iter()
                .position(|p| p.key == key)
                .ok_or_else(|| format!("skel has no primitive {key}"))?;
            let p = &asset.primitives[i];
            if m["vertexCount"].as_u64() != Some(p.vertex_count() as u64) {
                return Err(format!("{key}: {} vertices in skel", p.vertex_count()));
            }
            let skin = m["skin"].as_u64().map(|s| s as usize);
            if m["skinned"].as_bool() != Some(p.is_skinned()) || (p.is_skinned() && skin != p.skin)
            {
                return Err(format!(
                    "{key}: skinned {} skin {:?}",
                    p.is_skinned(),
                    p.skin
                ));
            }
            Ok(i)
        })
        .collect()
}

/// Compares skel's pose of `asset` with three's (`golden`) and returns the JSON row.
pub fn compare(asset: &GltfAsset, file: &str, golden: &Value) -> Result<Value, String> {
    let clip = index(&golden["clip"]["index"], "clip.index")?;
    let ours_clip = asset
        .animation
        .clips
        .get(clip)
        .ok_or_else(|| format!("skel has no clip {clip}"))?;
    if let Some(name) = golden["clip"]["name"].as_str()
        && name != ours_clip.name
    {
        return Err(format!(
            "clip {clip}: three {name:?}, skel {:?}",
            ours_clip.name
        ));
    }
    let meshes = golden["meshes"].as_array().ok_or("no meshes")?;
    let frames = golden["frames"].as_array().ok_or("no frames")?;
    let prims = primitive_map(asset, meshes)?;
    let sampled: Vec<Vec<usize>> = meshes
        .iter()
        .map(|m| {
            Ok(nums(&m["sampledIndices"])?
                .iter()
                .map(|&v| v as usize)
                .collect())
        })
        .collect::<Result<_, String>>()?;
    // Each golden mesh's box over the clip, from three's sampled positions.
    let mut boxes = vec![Bounds::EMPTY; meshes.len()];
    for f in frames {
        for (i, fm) in f["meshes"]
            .as_array()
            .ok_or("frame without meshes")?
            .iter()
            .enumerate()
        {
            for p in nums(&fm["positions"])?.chunks_exact(3) {
                boxes[i].add(DVec3::new(p[0], p[1], p[2]));
            }
        }
    }
    // Per skin: the union of its primitives' boxes (world, over the clip) and bind-space box.
    let mut skin_box = vec![Bounds::EMPTY; asset.skins.len()];
    let mut bind_box = vec![Bounds::EMPTY; asset.skins.len()];
    for (i, &pi) in prims.iter().enumerate() {
        let p = &asset.primitives[pi];
        if let (true, Some(s)) = (p.is_skinned(), p.skin) {
            skin_box[s] = skin_box[s].union(boxes[i]);
            for v in p.positions.chunks_exact(3) {
                bind_box[s].add(DVec3::new(v[0].into(), v[1].into(), v[2].into()));
            }
        }
    }
    let mut poser = CpuPoser::new(asset).map_err(|e| e.to_string())?;
    let mut w = Worst::default();
    let (mut n_joints, mut n_vertices) = (0, 0);
    for f in frames {
        let t = f["t"].as_f64().ok_or("frame without t")?;
        poser
            .pose(asset, Some(clip), t as f32)
            .map_err(|e| e.to_string())?;
        let world = poser.node_world_matrices();
        let (mut jt, mut jl, mut sm) = (0.0_f64, 0.0_f64, 0.0_f64);
        for (key, s) in f["skins"].as_object().ok_or("frame without skins")? {
            let si: usize = key.parse().map_err(|_| format!("skin key {key}"))?;
            let joints: Vec<usize> = nums(&s["joints"])?.iter().map(|&j| j as usize).collect();
            if asset.skins.get(si).map(|s| &s.joints) != Some(&joints) {
                return Err(format!("skin {si}: joints differ from skel's"));
            }
            let diag = skin_box[si].diagonal();
            let (jw, skm) = (nums(&s["jointWorld"])?, nums(&s["skinMatrices"])?);
            let ours_skin = poser.skin_matrices(si).ok_or("no skin matrices")?;
            for (k, &j) in joints.iter().enumerate() {
                let (dt, dl) = joint_error(&jw[k * 16..k * 16 + 16], &world[j]);
                let ds = skin_error(&skm[k * 16..k * 16 + 16], &ours_skin[k], &bind_box[si]);
                let e = (dt / diag).max(dl).max(ds / diag);
                if e > w.joint_max {
                    w.joint_max = e;
                    w.joints_at = format!("skin {si} joint node {j} t={t}");
                }
                jt = jt.max(dt / diag);
                jl = jl.max(dl);
                sm = sm.max(ds / diag);
            }
            n_joints += joints.len();
        }
        let mut pos = 0.0_f64;
        for (i, fm) in f["meshes"]
            .as_array()
            .ok_or("frame without meshes")?
            .iter()
            .enumerate()
        {
            let ours = poser.positions(prims[i]).ok_or("no positions")?;
            let g = nums(&fm["positions"])?;
            let diag = boxes[i].diagonal();
            for (k, &v) in sampled[i].iter().enumerate() {
                let o = ours
                    .get(v)
                    .ok_or_else(|| format!("vertex {v} out of range"))?;
                let d = (DVec3::new(g[k * 3], g[k * 3 + 1], g[k * 3 + 2]) - o.as_dvec3()).length()
                    / diag;
                if d > w.position_max {
                    w.position_max = d;
                    w.positions_at = format!("{} vertex {v} t={t}", asset.primitives[prims[i]].key);
                }
                pos = pos.max(d);
            }
            n_vertices += sampled[i].len();
        }
        w.joint_translation.push(jt);
        w.joint_linear.push(jl);
        w.skin_matrices.push(sm);
        w.positions.push(pos);
    }
    let joints = max(&w.joint_translation)
        .max(max(&w.joint_linear))
        .max(max(&w.skin_matrices));
    let positions = max(&w.positions);
    let times: Vec<f64> = frames.iter().filter_map(|f| f["t"].as_f64()).collect();
    Ok(json!({
        "check": "three",
        "file": file,
        "clip": clip,
        "clip_name": ours_clip.name,
        "clip_duration_skel": ours_clip.duration(),
        "clip_duration_three": golden["clip"]["duration"],
        "times": times,
        "joints_of_diagonal": joints,
        "positions_of_diagonal": positions,
        "pass": joints <= TOLERANCE && positions <= TOLERANCE,
        "per_time": {
            "joint_translation": w.joint_translation,
            "joint_linear": w.joint_linear,
            "skin_matrices": w.skin_matrices,
            "positions": w.positions,
        },
        "joints_worst_at": w.joints_at,
        "positions_worst_at": w.positions_at,
        "joint_matrices_checked": n_joints,
        "vertices_checked": n_vertices,
    }))
}
