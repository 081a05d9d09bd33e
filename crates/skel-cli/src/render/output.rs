//! What `skel render` writes: one PNG per frame, an animated GIF and a contact sheet.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use image::{RgbaImage, imageops};

use super::RenderError;

/// Frames shown on the contact sheet.
pub const SHEET_FRAMES: usize = 8;
/// Contact sheet columns (two rows of four).
const SHEET_COLUMNS: u32 = 4;
/// Longest side of one contact-sheet tile in pixels (frames larger than this are scaled down).
const SHEET_TILE: u32 = 320;
/// NeuQuant sampling speed for the GIF palette (1 best … 30 fastest); 10 is gif's default.
const GIF_QUANTIZE_SPEED: i32 = 10;

/// The file name of frame `index`: `frame_0000.png`, `frame_0001.png`, …
#[must_use]
pub fn frame_file_name(index: usize) -> String {
    format!("frame_{index:04}.png")
}

/// Which of `frames` rendered frames go on the contact sheet: [`SHEET_FRAMES`] evenly spaced
/// ones starting at the first (all of them when there are fewer).
#[must_use]
pub fn sheet_indices(frames: usize) -> Vec<usize> {
    let n = frames.min(SHEET_FRAMES);
    (0..n).map(|i| i * frames / n).collect()
}

/// Writes frames as they are rendered and assembles the GIF and the contact sheet.
pub struct FrameWriter {
    dir: PathBuf,
    width: u32,
    height: u32,
    gif: gif::Encoder<BufWriter<File>>,
    gif_delay_cs: u16,
    sheet_picks: Vec<usize>,
    sheet_tiles: Vec<RgbaImage>,
    written: Vec<PathBuf>,
}

impl std::fmt::Debug for FrameWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameWriter")
            .field("dir", &self.dir)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("frames_written", &self.written.len())
            .finish_non_exhaustive()
    }
}

/// The paths `skel render` produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// `frame_0000.png …`, in order.
    pub frames: Vec<PathBuf>,
    /// The animated GIF (`anim.gif`).
    pub gif: PathBuf,
    /// The contact sheet (`contact_sheet.png`).
    pub contact_sheet: PathBuf,
}

impl FrameWriter {
    /// Creates `dir` (and parents) and opens `anim.gif` for `frame_count` frames of
    /// `width × height` played at `fps`.
    ///
    /// # Errors
    /// [`RenderError::Io`] when the directory or file cannot be created,
    /// [`RenderError::Gif`] when the GIF header cannot be written, [`RenderError::BadSize`]
    /// when a side does not fit GIF's 16-bit sizes.
    pub fn new(
        dir: &Path,
        width: u32,
        height: u32,
        frame_count: usize,
        fps: f32,
    ) -> Result<Self, RenderError> {
        let max = u32::from(u16::MAX);
        let (Ok(w16), Ok(h16)) = (u16::try_from(width), u16::try_from(height)) else {
            return Err(RenderError::BadSize { width, height, max });
        };
        std::fs::create_dir_all(dir).map_err(|source| RenderError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let gif_path = dir.join("anim.gif");
        let file = File::create(&gif_path).map_err(|source| RenderError::Io {
            path: gif_path.clone(),
            source,
        })?;
        let gif_err = |source| RenderError::Gif {
            path: gif_path.clone(),
            source,
        };
        let mut gif = gif::Encoder::new(BufWriter::new(file), w16, h16, &[]).map_err(gif_err)?;
        gif.set_repeat(gif::Repeat::Infinite).map_err(gif_err)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            width,
            height,
            gif,
            gif_delay_cs: gif_delay_centiseconds(fps),
            sheet_picks: sheet_indices(frame_count),
            sheet_tiles: Vec::new(),
            written: Vec::with_capacity(frame_count),
        })
    }

    /// Writes frame `index` (tightly packed RGBA8, top row first) as a PNG, appends it to the
    /// GIF and keeps a tile of it when it belongs on the contact sheet.
    ///
    /// # Errors
    /// [`RenderError::Image`] / [`RenderError::Gif`] when encoding or writing fails.
    pub fn push(&mut self, index: usize, rgba: &[u8]) -> Result<(), RenderError> {
        let path = self.dir.join(frame_file_name(index));
        image::save_buffer_with_format(
            &path,
            rgba,
            self.width,
            self.height,
            image::ExtendedColorType::Rgba8,
            image::ImageFormat::Png,
        )
        .map_err(|source| RenderError::Image {
            path: path.clone(),
            source,
        })?;
        self.written.push(path);

        let mut pixels = rgba.to_vec();
        let (w, h) = (self.gif_side(self.width), self.gif_side(self.height));
        let mut frame = gif::Frame::from_rgba_speed(w, h, &mut pixels, GIF_QUANTIZE_SPEED);
        frame.delay = self.gif_delay_cs;
        self.gif
            .write_frame(&frame)
            .map_err(|source| RenderError::Gif {
                path: self.dir.join("anim.gif"),
                source,
            })?;

        if self.sheet_picks.contains(&index) {
            let image = RgbaImage::from_raw(self.width, self.height, rgba.to_vec()).ok_or(
                RenderError::BadSize {
                    width: self.width,
                    height: self.height,
                    max: 0,
                },
            )?;
            let (tw, th) = tile_size(self.width, self.height);
            let tile = if (tw, th) == (self.width, self.height) {
                image
            } else {
                imageops::resize(&image, tw, th, imageops::FilterType::Triangle)
            };
            self.sheet_tiles.push(tile);
        }
        Ok(())
    }

    /// Sizes were checked to fit `u16` in [`FrameWriter::new`].
    fn gif_side(&self, side: u32) -> u16 {
        u16::try_from(side).unwrap_or(u16::MAX)
    }

    /// Closes the GIF and writes `contact_sheet.png`.
    ///
    /// # Errors
    /// [`RenderError::Gif`] / [`RenderError::Image`] / [`RenderError::Io`] when writing fails.
    pub fn finish(self) -> Result<Outputs, RenderError> {
        let gif_path = self.dir.join("anim.gif");
        let mut writer = self.gif.into_inner().map_err(|source| RenderError::Io {
            path: gif_path.clone(),
            source,
        })?;
        std::io::Write::flush(&mut writer).map_err(|source| RenderError::Io {
            path: gif_path.clone(),
            source,
        })?;
        let sheet_path = self.dir.join("contact_sheet.png");
        let sheet = contact_sheet(&self.sheet_tiles);
        sheet
            .save_with_format(&sheet_path, image::ImageFormat::Png)
            .map_err(|source| RenderError::Image {
                path: sheet_path.clone(),
                source,
            })?;
        Ok(Outputs {
            frames: self.written,
            gif: gif_path,
            contact_sheet: sheet_path,
        })
    }
}

/// GIF frame delays are centiseconds; browsers treat delays below 2 as 10, so 2 is the floor.
#[must_use]
pub fn gif_delay_centiseconds(fps: f32) -> u16 {
    let cs = (100.0 / fps).round();
    if cs.is_finite() {
        // Saturating float → int conversion; the clamp keeps it in u16.
        cs.clamp(2.0, f32::from(u16::MAX)) as u16
    } else {
        2
    }
}

/// The size of one contact-sheet tile: the frame scaled so its longer side is at most
/// [`SHEET_TILE`], keeping the aspect ratio.
#[must_use]
pub fn tile_size(width: u32, height: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= SHEET_TILE {
        return (width, height);
    }
    let scale = |side: u32| {
        let scaled = u64::from(side) * u64::from(SHEET_TILE) / u64::from(longest);
        u32::try_from(scaled.max(1)).unwrap_or(SHEET_TILE)
    };
    (scale(width), scale(height))
}

/// Lays `tiles` out left to right, top to bottom, [`SHEET_COLUMNS`] to a row.
#[must_use]
pub fn contact_sheet(tiles: &[RgbaImage]) -> RgbaImage {
    let Some(first) = tiles.first() else {
        return RgbaImage::new(1, 1);
    };
    let (tw, th) = first.dimensions();
    let count = u32::try_from(tiles.len()).unwrap_or(u32::MAX);
    let columns = count.min(SHEET_COLUMNS);
    let rows = count.div_ceil(SHEET_COLUMNS);
    // Empty cells (fewer than 8 frames) take the first frame's corner colour: the background.
    let mut sheet = RgbaImage::from_pixel(tw * columns, th * rows, *first.get_pixel(0, 0));
    for (i, tile) in (0_u32..).zip(tiles) {
        let (x, y) = ((i % SHEET_COLUMNS) * tw, (i / SHEET_COLUMNS) * th);
        imageops::replace(&mut sheet, tile, i64::from(x), i64::from(y));
    }
    sheet
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_names_are_zero_padded() {
        assert_eq!(frame_file_name(0), "frame_0000.png");
        assert_eq!(frame_file_name(42), "frame_0042.png");
        assert_eq!(frame_file_name(12345), "frame_12345.png");
    }

    #[test]
    fn sheet_picks_eight_evenly_spaced_frames() {
        assert_eq!(sheet_indices(16), vec![0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(sheet_indices(60), vec![0, 7, 15, 22, 30, 37, 45, 52]);
        assert_eq!(sheet_indices(3), vec![0, 1, 2]);
        assert_eq!(sheet_indices(1), vec![0]);
        assert!(sheet_indices(0).is_empty());
    }

    #[test]
    fn gif_delay_follows_fps_with_a_floor() {
        assert_eq!(gif_delay_centiseconds(25.0), 4);
        assert_eq!(gif_delay_centiseconds(30.0), 3);
        assert_eq!(gif_delay_centiseconds(100.0), 2);
        assert_eq!(gif_delay_centiseconds(0.0), 2);
        assert_eq!(gif_delay_centiseconds(0.5), 200);
    }

    #[test]
    fn tiles_keep_aspect_and_sheet_is_four_by_two() {
        assert_eq!(tile_size(640, 320), (320, 160));
        assert_eq!(tile_size(200, 100), (200, 100));
        let tiles: Vec<RgbaImage> = (0..8)
            .map(|i| RgbaImage::from_pixel(10, 5, image::Rgba([i * 30, 0, 0, 255])))
            .collect();
        let sheet = contact_sheet(&tiles);
        assert_eq!(sheet.dimensions(), (40, 10));
        assert_eq!(sheet.get_pixel(0, 0)[0], 0);
        assert_eq!(sheet.get_pixel(35, 0)[0], 90);
        assert_eq!(sheet.get_pixel(0, 7)[0], 120);
        assert_eq!(sheet.get_pixel(39, 9)[0], 210);
    }
}
