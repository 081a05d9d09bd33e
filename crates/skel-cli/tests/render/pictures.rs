//! Reading and comparing the rendered frames: which pixels are the model, how far two
//! pictures are apart.

use std::path::Path;

use image::RgbaImage;

/// The demo renderer's clear colour, as written to the sRGB target (#262a34 after rounding).
pub(crate) const BACKGROUND: [u8; 3] = [38, 42, 52];
/// A pixel further than this (max over channels) from the background belongs to the model.
pub(crate) const MODEL_THRESHOLD: u8 = 16;

pub(crate) fn frame(dir: &Path, index: usize) -> RgbaImage {
    image::open(dir.join(format!("frame_{index:04}.png")))
        .unwrap()
        .into_rgba8()
}

pub(crate) fn max_channel_diff(a: &image::Rgba<u8>, b: [u8; 3]) -> u8 {
    (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0)
}

/// Pixels that are not background.
pub(crate) fn model_pixels(image: &RgbaImage) -> usize {
    image
        .pixels()
        .filter(|p| max_channel_diff(p, BACKGROUND) > MODEL_THRESHOLD)
        .count()
}

/// Bounding box of the model pixels: (min x, min y, max x, max y).
pub(crate) fn model_box(image: &RgbaImage) -> (u32, u32, u32, u32) {
    let mut b = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in image.enumerate_pixels() {
        if max_channel_diff(p, BACKGROUND) > MODEL_THRESHOLD {
            b = (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y));
        }
    }
    b
}

/// Mean absolute difference per channel and the 99th percentile of the per-pixel maximum
/// channel difference, over the pixels where either image shows the model (so the numbers do
/// not shrink with the share of background in the frame).
pub(crate) fn compare(a: &RgbaImage, b: &RgbaImage) -> (f64, u8) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut sum = 0_u64;
    let mut per_pixel: Vec<u8> = Vec::with_capacity(a.len() / 4);
    for (p, q) in a.pixels().zip(b.pixels()) {
        if max_channel_diff(p, BACKGROUND) <= MODEL_THRESHOLD
            && max_channel_diff(q, BACKGROUND) <= MODEL_THRESHOLD
        {
            continue;
        }
        let d: Vec<u8> = (0..3).map(|c| p[c].abs_diff(q[c])).collect();
        sum += d.iter().map(|&x| u64::from(x)).sum::<u64>();
        per_pixel.push(d.into_iter().max().unwrap());
    }
    if per_pixel.is_empty() {
        return (0.0, 0);
    }
    per_pixel.sort_unstable();
    let p99 = per_pixel[(per_pixel.len() - 1) * 99 / 100];
    #[allow(clippy::cast_precision_loss, reason = "pixel counts")]
    let mean = sum as f64 / (per_pixel.len() * 3) as f64;
    (mean, p99)
}

pub(crate) fn fraction(count: usize, image: &RgbaImage) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "pixel counts")]
    let f = count as f64 / f64::from(image.width() * image.height());
    f
}

pub(crate) fn silhouette_change(a: &RgbaImage, b: &RgbaImage) -> f64 {
    let changed = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| {
            (max_channel_diff(p, BACKGROUND) > MODEL_THRESHOLD)
                != (max_channel_diff(q, BACKGROUND) > MODEL_THRESHOLD)
        })
        .count();
    fraction(changed, a)
}
