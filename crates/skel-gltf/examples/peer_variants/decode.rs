//! (1) Decoding, against glTF-Transform's decode (`goldens/*.json` beside the script): per
//! primitive the vertex and index counts, and min, max, sum and sum of squares of every
//! POSITION and TEXCOORD_0 component in accessor space (order-free, so a Draco decoder may
//! order vertices its own way).

use serde_json::Value;
use skel_gltf::{GltfAsset, PrimitiveData};

/// min, max, sum, sum of squares per component of `data` in elements of `n`.
fn stats(data: &[f32], n: usize) -> [Vec<f64>; 4] {
    let mut s = [
        vec![f64::INFINITY; n],
        vec![f64::NEG_INFINITY; n],
        vec![0.0; n],
        vec![0.0; n],
    ];
    for el in data.chunks_exact(n) {
        for (k, &v) in el.iter().enumerate() {
            let v = f64::from(v);
            s[0][k] = s[0][k].min(v);
            s[1][k] = s[1][k].max(v);
            s[2][k] += v;
            s[3][k] += v * v;
        }
    }
    s
}

/// The worst relative difference between skel's statistics and the golden's (`None` when the
/// golden has no such attribute); sums are compared relative to the sum of magnitudes.
fn stats_error(ours: Option<&[f32]>, golden: &Value, n: usize) -> Result<f64, String> {
    match (ours, golden.is_null()) {
        (None, true) => return Ok(0.0),
        (Some(_), true) | (None, false) => return Err("attribute present on one side only".into()),
        _ => {}
    }
    let data = ours.unwrap_or_default();
    let count = golden["count"].as_u64().unwrap_or(0) as usize;
    if data.len() != count * n {
        return Err(format!("{} elements, golden {count}", data.len() / n));
    }
    let s = stats(data, n);
    let mut worst = 0.0_f64;
    for (i, key) in ["min", "max", "sum", "sq"].iter().enumerate() {
        for k in 0..n {
            let g = golden[key][k].as_f64().unwrap_or(f64::NAN);
            let scale = match i {
                0 | 1 => 1.0_f64.max(g.abs()),
                _ => (count as f64).max(g.abs()),
            };
            worst = worst.max((s[i][k] - g).abs() / scale);
        }
    }
    Ok(worst)
}

fn find(asset: &GltfAsset, mesh: usize, primitive: usize) -> Option<&PrimitiveData> {
    asset
        .primitives
        .iter()
        .find(|p| p.mesh == mesh && p.primitive == primitive)
}

pub fn decoding(asset: &GltfAsset, golden: &Value) -> Result<f64, String> {
    let mut worst = 0.0_f64;
    for g in golden["primitives"].as_array().into_iter().flatten() {
        let (m, p) = (
            g["mesh"].as_u64().unwrap_or(0) as usize,
            g["primitive"].as_u64().unwrap_or(0) as usize,
        );
        let Some(prim) = find(asset, m, p) else {
            return Err(format!("no primitive {m}/{p}"));
        };
        let indices = prim.indices.as_ref().map(Vec::len);
        if indices.map(|n| n as u64) != g["indices"].as_u64() {
            return Err(format!(
                "{m}/{p}: {indices:?} indices, golden {}",
                g["indices"]
            ));
        }
        worst = worst.max(stats_error(Some(&prim.positions), &g["position"], 3)?);
        // skel reads the UV set the base colour texture samples: compare set 0 only there.
        if prim
            .material
            .base_color_texture
            .is_none_or(|t| t.uv_set() == 0)
        {
            worst = worst.max(stats_error(prim.uvs.as_deref(), &g["texcoord0"], 2)?);
        }
    }
    Ok(worst)
}
