//! Pixel classes of a picture of the built-in character on a `--terrain` ground, shared by
//! the render and view tests: the ground's grey-green checker and the character's red shoes.

/// Pixels of the ground's default style (`skel::render::GroundStyle`: a light grey-green
/// checker once lit and sRGB-encoded), told apart from the background, the teal shirt, the
/// blue jeans, the skin (red above green) and the red shoes.
pub fn ground_pixels(image: &image::RgbImage) -> usize {
    image
        .pixels()
        .filter(|p| {
            let [r, g, b] = p.0;
            r > 110 && g > 110 && b > 100 && g >= r && g >= b && g - b.min(r) < 48
        })
        .count()
}

/// Rows (from the top) of the built-in character's red shoes: red with almost no green or
/// blue (the brown hair and the lips have more green than this).
pub fn shoe_rows(image: &image::RgbImage) -> Vec<u32> {
    image
        .enumerate_pixels()
        .filter(|(_, _, p)| p.0[0] > 120 && p.0[1] < 50 && p.0[2] < 60)
        .map(|(_, y, _)| y)
        .collect()
}
