//! A screenshot as a silhouette: which pixels differ from the background, and how two
//! silhouettes compare.

use super::limits::INK_LEVELS;

/// Which pixels of a screenshot differ from its background (the top-left pixel's colour).
pub(super) struct Silhouette {
    pub(super) width: u32,
    pub(super) height: u32,
    ink: Vec<bool>,
}

impl Silhouette {
    pub(super) fn from_png(png: &[u8]) -> Result<Self, String> {
        let image = image::load_from_memory(png)
            .map_err(|e| format!("screenshot: {e}"))?
            .to_rgb8();
        let background = image.get_pixel(0, 0).0;
        let ink = image
            .pixels()
            .map(|p| {
                p.0.iter()
                    .zip(background)
                    .any(|(a, b)| (i32::from(*a) - i32::from(b)).abs() > INK_LEVELS)
            })
            .collect();
        Ok(Self {
            width: image.width(),
            height: image.height(),
            ink,
        })
    }

    /// Whether pixel (`x`, `y`), inside the image, is drawn.
    pub(super) fn ink_at(&self, x: i64, y: i64) -> bool {
        usize::try_from(y * i64::from(self.width) + x)
            .ok()
            .and_then(|i| self.ink.get(i))
            .copied()
            .unwrap_or(false)
    }

    #[expect(clippy::cast_precision_loss, reason = "pixel counts")]
    pub(super) fn coverage(&self) -> f64 {
        self.ink.iter().filter(|i| **i).count() as f64 / self.ink.len().max(1) as f64
    }

    /// The mean row of the drawn pixels (rows count down from the top), none when nothing
    /// is drawn.
    #[expect(clippy::cast_precision_loss, reason = "pixel counts and rows")]
    pub(super) fn mean_ink_row(&self) -> Option<f64> {
        let width = self.width.max(1) as usize;
        let (sum, count) = self
            .ink
            .iter()
            .enumerate()
            .filter(|(_, drawn)| **drawn)
            .fold((0.0, 0_usize), |(sum, n), (i, _)| {
                (sum + (i / width) as f64, n + 1)
            });
        (count > 0).then(|| sum / count as f64)
    }

    /// The framing camera puts the character in the middle, most of the canvas tall.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a screenshot has far fewer than 2^32 pixels"
    )]
    pub(super) fn check_character(&self) -> Result<(), String> {
        let coverage = self.coverage();
        if !(0.02..=0.6).contains(&coverage) {
            return Err(format!(
                "{:.1} % of the canvas differs from the background (a character covers 2–60 %)",
                coverage * 100.0
            ));
        }
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for (i, _) in self.ink.iter().enumerate().filter(|(_, i)| **i) {
            let (x, y) = (i as u32 % self.width, i as u32 / self.width);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let centre = (
            f64::from(x0 + x1) / 2.0 / f64::from(self.width),
            f64::from(y0 + y1) / 2.0 / f64::from(self.height),
        );
        let tall = f64::from(y1 - y0) / f64::from(self.height);
        if (centre.0 - 0.5).abs() > 0.2 || (centre.1 - 0.5).abs() > 0.2 || tall < 0.4 {
            return Err(format!(
                "the drawn pixels span x {x0}..{x1}, y {y0}..{y1} of {}×{}: not a framed character",
                self.width, self.height
            ));
        }
        Ok(())
    }

    /// Intersection over union of two silhouettes of the same size (0 when sizes differ).
    #[expect(clippy::cast_precision_loss, reason = "pixel counts")]
    pub(super) fn iou(&self, other: &Self) -> f64 {
        if (self.width, self.height) != (other.width, other.height) {
            return 0.0;
        }
        let both = self
            .ink
            .iter()
            .zip(&other.ink)
            .filter(|(a, b)| **a && **b)
            .count();
        let either = self
            .ink
            .iter()
            .zip(&other.ink)
            .filter(|(a, b)| **a || **b)
            .count();
        both as f64 / either.max(1) as f64
    }
}
