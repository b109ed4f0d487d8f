//! Image files in and out of programs: a picture read from PNG or PGM/PPM becomes the
//! atoms of one program input, and the atoms of an output become a picture.
//!
//! The codecs are the `image` crate's; this module only decides how pixels and atoms meet
//! ([`shape`]) and how the compiler's don't-care values are shown. A grayscale picture gives
//! one scalar per pixel, an RGB picture three (an atom tuple such as
//! `(atuple uint8 (atuple uint8 uint8))`, red first). Pixels are row-major, the program's
//! atom order.

pub mod scene;
pub mod shape;

use image::{DynamicImage, ImageBuffer, ImageFormat, Luma, Rgb};
use std::path::Path;

/// The colour a don't-care pixel is written in where the file can hold colour: magenta,
/// which no grayscale output and few real pictures contain.
pub const DONT_CARE_RGB: [u16; 3] = [u16::MAX, 0, u16::MAX];

/// A decoded picture: samples row-major, `channels` per pixel, each below `2^depth`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// 1 (grayscale) or 3 (RGB).
    pub channels: u8,
    /// Bits per sample: 8 or 16.
    pub depth: u8,
    /// `width * height * channels` samples.
    pub samples: Vec<u16>,
    /// Per pixel: true if the program leaves it undefined (don't care). Empty for a picture
    /// read from a file.
    pub dont_care: Vec<bool>,
}

impl Picture {
    /// Number of pixels.
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// Pixels marked don't care.
    pub fn dont_care_pixels(&self) -> u64 {
        self.dont_care.iter().filter(|&&d| d).count() as u64
    }

    /// `gray 8-bit` / `RGB 16-bit`: how the picture's pixels are stored.
    pub fn kind(&self) -> String {
        format!(
            "{} {}-bit",
            if self.channels == 1 { "gray" } else { "RGB" },
            self.depth
        )
    }
}

/// Reads a PNG or PGM/PPM file (the format is read from its contents). Palette and
/// low-bit-depth PNGs are expanded to 8 bits; an alpha channel is accepted only if every
/// pixel is opaque.
pub fn read(path: &Path) -> Result<Picture, String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("{shown}: is a directory, not an image file"));
    }
    let reader = image::ImageReader::open(path)
        .map_err(|e| format!("{shown}: cannot open: {e}"))?
        .with_guessed_format()
        .map_err(|e| format!("{shown}: cannot read: {e}"))?;
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Pnm) => {}
        Some(other) => {
            return Err(format!(
                "{shown}: {other:?} images are not supported (PNG, PGM and PPM are)"
            ))
        }
        None => {
            return Err(format!(
                "{shown}: not a PNG, PGM or PPM file (unrecognised contents)"
            ))
        }
    }
    let img = reader
        .decode()
        .map_err(|e| format!("{shown}: cannot decode: {e}"))?;
    let (width, height) = (img.width(), img.height());
    let opaque = |all_opaque: bool| {
        if all_opaque {
            Ok(())
        } else {
            Err(format!(
                "{shown}: the image has transparent pixels; save it without an alpha channel"
            ))
        }
    };
    let (channels, depth, samples): (u8, u8, Vec<u16>) = match img {
        DynamicImage::ImageLuma8(b) => (1, 8, b.into_raw().into_iter().map(u16::from).collect()),
        DynamicImage::ImageLuma16(b) => (1, 16, b.into_raw()),
        DynamicImage::ImageRgb8(b) => (3, 8, b.into_raw().into_iter().map(u16::from).collect()),
        DynamicImage::ImageRgb16(b) => (3, 16, b.into_raw()),
        DynamicImage::ImageLumaA8(b) => {
            opaque(b.pixels().all(|p| p.0[1] == u8::MAX))?;
            (1, 8, b.pixels().map(|p| u16::from(p.0[0])).collect())
        }
        DynamicImage::ImageLumaA16(b) => {
            opaque(b.pixels().all(|p| p.0[1] == u16::MAX))?;
            (1, 16, b.pixels().map(|p| p.0[0]).collect())
        }
        DynamicImage::ImageRgba8(b) => {
            opaque(b.pixels().all(|p| p.0[3] == u8::MAX))?;
            let s = b.pixels().flat_map(|p| p.0[..3].to_vec()).map(u16::from);
            (3, 8, s.collect())
        }
        DynamicImage::ImageRgba16(b) => {
            opaque(b.pixels().all(|p| p.0[3] == u16::MAX))?;
            (3, 16, b.pixels().flat_map(|p| p.0[..3].to_vec()).collect())
        }
        other => {
            return Err(format!(
                "{shown}: {:?} samples are not supported (8- and 16-bit integer gray or RGB are)",
                other.color()
            ))
        }
    };
    Ok(Picture {
        width,
        height,
        channels,
        depth,
        samples,
        dont_care: Vec::new(),
    })
}

/// The formats [`write`] chooses from by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutFormat {
    Png,
    /// `.pgm`: grayscale only.
    Pgm,
    /// `.ppm`: always RGB.
    Ppm,
    /// `.pnm`: gray or RGB as the picture is.
    Pnm,
}

/// Checks, before any work, that [`write`] can tell the format of `path` from its name.
pub fn check_output_name(path: &Path) -> Result<(), String> {
    out_format(path).map(|_| ())
}

fn out_format(path: &Path) -> Result<OutFormat, String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => Ok(OutFormat::Png),
        Some("pgm") => Ok(OutFormat::Pgm),
        Some("ppm") => Ok(OutFormat::Ppm),
        Some("pnm") => Ok(OutFormat::Pnm),
        _ => Err(format!(
            "{}: cannot tell the image format from the name: end it in .png, .pgm, .ppm or .pnm",
            path.display()
        )),
    }
}

/// Writes `pic` to `path`, the format chosen by its extension (.png, .pgm, .ppm, .pnm), and
/// returns a description of what was written for the user.
///
/// Don't-care pixels are [`DONT_CARE_RGB`] (magenta) wherever the format can hold colour,
/// which makes a grayscale output with don't-cares an RGB file (gray pixels stay gray); a
/// `.pgm` file cannot, and shows them black.
pub fn write(path: &Path, pic: &Picture) -> Result<String, String> {
    let format = out_format(path)?;
    let marked = pic.dont_care_pixels();
    let rgb = match format {
        OutFormat::Pgm if pic.channels == 3 => {
            return Err(format!(
                "{}: a .pgm file is grayscale and this output is RGB: write .png or .ppm",
                path.display()
            ))
        }
        OutFormat::Pgm => false,
        OutFormat::Ppm => true,
        OutFormat::Png | OutFormat::Pnm => pic.channels == 3 || marked > 0,
    };
    let samples = if rgb {
        rgb_samples(pic)
    } else {
        gray_samples(pic)
    };
    let img = match (rgb, pic.depth) {
        (false, 8) => DynamicImage::ImageLuma8(
            ImageBuffer::<Luma<u8>, _>::from_raw(pic.width, pic.height, narrow(&samples))
                .expect("sample count matches the size"),
        ),
        (false, _) => DynamicImage::ImageLuma16(
            ImageBuffer::<Luma<u16>, _>::from_raw(pic.width, pic.height, samples)
                .expect("sample count matches the size"),
        ),
        (true, 8) => DynamicImage::ImageRgb8(
            ImageBuffer::<Rgb<u8>, _>::from_raw(pic.width, pic.height, narrow(&samples))
                .expect("sample count matches the size"),
        ),
        (true, _) => DynamicImage::ImageRgb16(
            ImageBuffer::<Rgb<u16>, _>::from_raw(pic.width, pic.height, samples)
                .expect("sample count matches the size"),
        ),
    };
    let image_format = if format == OutFormat::Png {
        ImageFormat::Png
    } else {
        ImageFormat::Pnm
    };
    img.save_with_format(path, image_format)
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    let mut what = format!(
        "{}x{} {} {}-bit",
        pic.width,
        pic.height,
        if rgb { "RGB" } else { "gray" },
        pic.depth
    );
    if marked > 0 {
        let how = if rgb {
            "magenta"
        } else {
            "black (.pgm has no colour)"
        };
        what.push_str(&format!(", {marked} don't-care pixels in {how}"));
    }
    Ok(what)
}

fn narrow(samples: &[u16]) -> Vec<u8> {
    // Samples of an 8-bit picture are below 256 by construction.
    samples.iter().map(|&s| s as u8).collect()
}

fn gray_samples(pic: &Picture) -> Vec<u16> {
    let mut s = pic.samples.clone();
    for (k, &d) in pic.dont_care.iter().enumerate() {
        if d {
            s[k] = 0;
        }
    }
    s
}

fn rgb_samples(pic: &Picture) -> Vec<u16> {
    let max = if pic.depth == 8 { 255 } else { u16::MAX };
    let mark = DONT_CARE_RGB.map(|c| c.min(max));
    let n = pic.pixels() as usize;
    let mut out = Vec::with_capacity(n * 3);
    for k in 0..n {
        if pic.dont_care.get(k).copied().unwrap_or(false) {
            out.extend_from_slice(&mark);
        } else if pic.channels == 3 {
            out.extend_from_slice(&pic.samples[3 * k..3 * k + 3]);
        } else {
            out.extend_from_slice(&[pic.samples[k]; 3]);
        }
    }
    out
}
