//! A synthetic test scene: the same picture for the same size on every machine, made of
//! what image pipelines are judged on: smooth gradients (where a blur must change
//! nothing), hard edges at every angle (where it must soften them and a sharpen must
//! ring), fine periodic detail up to one pixel (where resampling aliases) and saturated
//! colours (where a demosaic shows its fringes).
//!
//! Integer arithmetic only, so the bytes never depend on a math library.

use super::Picture;

/// What kind of test picture to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneKind {
    /// RGB, 8 bits per sample.
    Rgb,
    /// The RGB scene's luma (BT.601 weights), 8 bits.
    Gray,
    /// The RGB scene sampled through a G R / B G colour filter (a raw sensor frame, as the
    /// `demosaic` and `camera` apps take it): one 8-bit sample per pixel.
    BayerGrbg,
}

impl SceneKind {
    /// Every kind with its name, as `tessera test-image --kind` takes it.
    pub const NAMED: [(&'static str, SceneKind); 3] = [
        ("rgb", SceneKind::Rgb),
        ("gray", SceneKind::Gray),
        ("bayer-grbg", SceneKind::BayerGrbg),
    ];

    /// Parses a name of [`SceneKind::NAMED`].
    pub fn named(name: &str) -> Option<SceneKind> {
        Self::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, k)| k)
    }
}

/// The scene at `width` x `height` (both at least 1).
pub fn scene(width: u32, height: u32, kind: SceneKind) -> Picture {
    let (w, h) = (i64::from(width.max(1)), i64::from(height.max(1)));
    let mut rgb = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            rgb.extend(pixel(x, y, w, h));
        }
    }
    let n = (w * h) as usize;
    let samples: Vec<u16> = match kind {
        SceneKind::Rgb => rgb.iter().map(|&s| s as u16).collect(),
        SceneKind::Gray => (0..n)
            .map(|k| {
                let [r, g, b] = [rgb[3 * k], rgb[3 * k + 1], rgb[3 * k + 2]];
                ((77 * r + 150 * g + 29 * b + 128) >> 8) as u16
            })
            .collect(),
        SceneKind::BayerGrbg => (0..n)
            .map(|k| {
                let (y, x) = (k as i64 / w, k as i64 % w);
                // G R on even rows, B G on odd rows.
                let channel = match (y % 2, x % 2) {
                    (0, 1) => 0,
                    (1, 0) => 2,
                    _ => 1,
                };
                rgb[3 * k + channel] as u16
            })
            .collect(),
    };
    Picture {
        width: w as u32,
        height: h as u32,
        channels: if kind == SceneKind::Rgb { 3 } else { 1 },
        depth: 8,
        samples,
        dont_care: Vec::new(),
    }
}

/// One pixel of the scene; later layers paint over earlier ones.
fn pixel(x: i64, y: i64, w: i64, h: i64) -> [i64; 3] {
    let unit = (w.min(h) / 16).max(1);
    // Background: a diagonal colour ramp.
    let mut c = [
        40 + 180 * x / w,
        40 + 160 * y / h,
        200 - 120 * (x + y) / (w + h),
    ];
    // A band of vertical bars whose period falls from 16 pixels to 2 across the width.
    let band = (h * 3 / 4, h * 3 / 4 + 2 * unit);
    if (band.0..band.1).contains(&y) {
        let period = (16 - 14 * x / w).max(2);
        let v = if (x / (period / 2).max(1)) % 2 == 0 {
            235
        } else {
            20
        };
        c = [v, v, v];
    }
    // A checkerboard in the top right.
    let (cx0, cy0, side) = (w - 6 * unit, unit, 4 * unit);
    if (cx0..cx0 + side).contains(&x) && (cy0..cy0 + side).contains(&y) {
        let cell = (unit / 2).max(1);
        let dark = ((x - cx0) / cell + (y - cy0) / cell) % 2 == 0;
        c = if dark { [30, 30, 30] } else { [240, 240, 240] };
    }
    // A red disc with a hard edge.
    let (dx, dy, r) = (x - w / 4, y - h / 3, 3 * unit);
    if dx * dx + dy * dy <= r * r {
        c = [230, 50, 40];
    }
    // Equal-area rings (a zone plate's edges): the rings get thinner outwards.
    let (dx, dy, r) = (x - w / 2, y - h / 2, 4 * unit);
    let d2 = dx * dx + dy * dy;
    if d2 <= r * r {
        let ring = d2 * 24 / (r * r).max(1);
        c = if ring % 2 == 0 {
            [250, 230, 70]
        } else {
            [20, 60, 160]
        };
    }
    // A green triangle: edges at two slants.
    let (tx, ty, s) = (w * 3 / 4, h / 2, 3 * unit);
    if y >= ty && y - ty <= s && (x - tx).abs() * 2 <= (y - ty) {
        c = [40, 200, 90];
    }
    c.map(|v| v.clamp(0, 255))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_have_their_sizes_and_kinds() {
        let rgb = scene(64, 36, SceneKind::Rgb);
        assert_eq!((rgb.width, rgb.height, rgb.channels), (64, 36, 3));
        assert_eq!(rgb.samples.len(), 64 * 36 * 3);
        let gray = scene(64, 36, SceneKind::Gray);
        assert_eq!(gray.samples.len(), 64 * 36);
        // The scene is not flat: it has dark and bright pixels.
        assert!(gray.samples.iter().any(|&s| s < 50) && gray.samples.iter().any(|&s| s > 200));
    }

    #[test]
    fn the_bayer_frame_samples_g_r_b_g() {
        let (w, h) = (16u32, 8u32);
        let rgb = scene(w, h, SceneKind::Rgb);
        let raw = scene(w, h, SceneKind::BayerGrbg);
        let at = |x: usize, y: usize, ch: usize| rgb.samples[3 * (y * w as usize + x) + ch];
        assert_eq!(raw.samples[0], at(0, 0, 1), "green at (0, 0)");
        assert_eq!(raw.samples[1], at(1, 0, 0), "red at (1, 0)");
        assert_eq!(raw.samples[w as usize], at(0, 1, 2), "blue at (0, 1)");
        assert_eq!(raw.samples[w as usize + 1], at(1, 1, 1), "green at (1, 1)");
    }
}
