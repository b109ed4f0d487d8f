//! Image files on the command line: `--image [NAME=]FILE` for program inputs, `-o FILE` for
//! the output (`eval`, `verify`), and `test-image`, which makes the synthetic test scene.

use super::CliResult;
use crate::imageio;
use crate::imageio::scene::{scene, SceneKind};
use crate::imageio::shape::{input_scalars, output_picture};
use crate::seq::types::SeqType;
use crate::seq::{FlatValue, Program};
use std::path::{Path, PathBuf};

/// Image options of `eval` and `verify`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ImageArgs {
    /// An image file (PNG, PGM or PPM) as a program input: FILE for a program with one
    /// input, NAME=FILE for each input of a program with several. A grayscale pixel is one
    /// scalar, an RGB pixel an atom tuple of three (red first); 16-bit images need 16-bit
    /// (or wider) inputs. The image's width x height must be the input's length, and its
    /// width the row length of an input that nests sequences.
    #[arg(long = "image", value_name = "[NAME=]FILE")]
    pub images: Vec<String>,
    /// Write the output as an image file (.png, .pgm, .ppm or .pnm; the extension says
    /// which). Pixels the program leaves undefined (don't care) are magenta (a grayscale
    /// output with such pixels becomes an RGB file; .pgm shows them black); samples outside
    /// the image's range are clamped, and counted.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Pixels per row of the output image (default: the input image's width, else the
    /// length of the output's innermost sequence).
    #[arg(long, value_name = "N", requires = "output")]
    pub width: Option<u32>,
    /// Bits per output sample, 8 or 16 (default: the input image's; else 8 for outputs of at
    /// most 8 bits and 16 for wider ones).
    #[arg(long, value_name = "BITS", requires = "output", value_parser = parse_depth)]
    pub depth: Option<u8>,
}

impl ImageArgs {
    /// The image files named: inputs (`NAME=` dropped) and the output.
    pub fn files(&self) -> Vec<PathBuf> {
        self.images
            .iter()
            .map(|i| PathBuf::from(i.split_once('=').map_or(i.as_str(), |(_, f)| f)))
            .chain(self.output.clone())
            .collect()
    }
}

fn parse_depth(s: &str) -> Result<u8, String> {
    match s {
        "8" => Ok(8),
        "16" => Ok(16),
        _ => Err(format!("`{s}`: the depth is 8 or 16 bits")),
    }
}

impl ImageArgs {
    /// True if an input image or an output image was asked for.
    pub fn any(&self) -> bool {
        !self.images.is_empty() || self.output.is_some()
    }

    /// Checks what can be checked before any work: the output image's name.
    pub fn check(&self) -> Result<(), String> {
        self.output
            .as_deref()
            .map_or(Ok(()), imageio::check_output_name)
    }
}

/// One input's image: where it came from, what it is, and its pixels as the input's flat
/// scalars (the decoded samples are not kept beside them).
#[derive(Clone, Debug)]
pub struct InputImage {
    /// The file.
    pub file: PathBuf,
    /// Pixels per row, rows.
    pub size: (u32, u32),
    /// Bits per sample.
    pub depth: u8,
    /// `gray 8-bit`, `RGB 16-bit`, ...
    pub kind: String,
    /// The input's scalars, in the program's atom order.
    pub scalars: Vec<u32>,
}

/// The images given for a program's inputs, read and checked against the input types.
#[derive(Clone, Debug)]
pub struct InputImages {
    /// Per program input, in declaration order.
    pub inputs: Vec<InputImage>,
}

impl InputImages {
    /// The output image's default width and depth: the first input image's.
    pub fn defaults(&self) -> (Option<u32>, Option<u8>) {
        self.inputs
            .first()
            .map_or((None, None), |im| (Some(im.size.0), Some(im.depth)))
    }

    /// Input `k` (of type `ty`) as a flat value.
    pub fn flat(&self, k: usize, ty: &SeqType) -> FlatValue {
        let scalars = self.inputs[k].scalars.clone();
        FlatValue {
            ty: ty.clone(),
            undef: vec![false; scalars.len()],
            scalars,
        }
    }
}

/// Reads the `--image` files of `p`'s inputs: `None` if there are none.
pub fn read_inputs(p: &Program, specs: &[String]) -> Result<Option<InputImages>, String> {
    if specs.is_empty() {
        return Ok(None);
    }
    let names: Vec<&str> = p.inputs.iter().map(|i| i.name.as_str()).collect();
    let mut files: Vec<Option<PathBuf>> = vec![None; names.len()];
    for spec in specs {
        let named = spec
            .split_once('=')
            .and_then(|(n, f)| names.iter().position(|&x| x == n).map(|k| (k, f)));
        let (k, file) = match named {
            Some((k, f)) => (k, f),
            None if names.len() == 1 => (0, spec.as_str()),
            None => {
                return Err(format!(
                    "--image {spec}: the program has {} inputs ({}): say which, as NAME=FILE",
                    names.len(),
                    names.join(", ")
                ))
            }
        };
        if files[k].is_some() {
            return Err(format!("--image: input `{}` is given twice", names[k]));
        }
        files[k] = Some(PathBuf::from(file));
    }
    let mut inputs = Vec::new();
    for (k, file) in files.into_iter().enumerate() {
        let file = file.ok_or_else(|| {
            format!(
                "input `{}` has no image: give --image {}=FILE for each input",
                names[k], names[k]
            )
        })?;
        let pic = imageio::read(&file)?;
        let scalars = input_scalars(&pic, names[k], &p.inputs[k].ty)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        inputs.push(InputImage {
            file,
            size: (pic.width, pic.height),
            depth: pic.depth,
            kind: pic.kind(),
            scalars,
        });
    }
    Ok(Some(InputImages { inputs }))
}

/// Writes an output of type `ty`, whose flat scalars `scalar(i)` gives (`None` for don't
/// care), as the image `path`; returns the line that tells the user what was written.
pub fn write_output(
    path: &Path,
    scalar: impl Fn(usize) -> Option<u32>,
    ty: &SeqType,
    (width, depth): (Option<u32>, Option<u8>),
) -> Result<String, String> {
    let out = output_picture(scalar, ty, width, depth)?;
    let what = imageio::write(path, &out.picture)?;
    let mut line = format!("output image {}: {what}", path.display());
    if out.saturated > 0 {
        line.push_str(&format!(
            "; {} pixels outside 0..={} clamped",
            out.saturated,
            (1u32 << out.picture.depth) - 1
        ));
    }
    Ok(line)
}

/// `tessera test-image`: writes the synthetic test scene.
pub fn test_image(out: &Path, width: u32, height: u32, kind: &str) -> CliResult {
    let kind = SceneKind::named(kind).ok_or_else(|| {
        let names: Vec<&str> = SceneKind::NAMED.iter().map(|(n, _)| *n).collect();
        format!(
            "--kind: unknown kind `{kind}` (known: {})",
            names.join(", ")
        )
    })?;
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > 1 << 26 {
        return Err(format!(
            "a test image of {width}x{height} pixels: both sides must be at least 1 and the \
             image at most 2^26 pixels"
        )
        .into());
    }
    let what = imageio::write(out, &scene(width, height, kind))?;
    println!("wrote {}: {what}", out.display());
    Ok(0)
}
