//! How pixels and a value's atoms meet: the atoms of a type in row-major order, each a
//! scalar (one gray sample) or an atom tuple of three scalars (red, green, blue).

use super::Picture;
use crate::seq::flat::Shape;
use crate::seq::types::{ScalarType, SeqType};
use crate::seq::value::scalar_to_int;

/// How a value's atoms are arranged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomShape {
    /// Number of atoms (sequence and seq-tuple elements multiply).
    pub atoms: u64,
    /// The length of the innermost sequence level if the type nests two or more: a row.
    pub row: Option<u64>,
    /// The scalar types of one atom, left to right.
    pub scalars: Vec<ScalarType>,
}

/// The atom shape of `t`.
pub fn shape_of(t: &SeqType) -> AtomShape {
    let flat = Shape::of(t);
    let mut levels = Vec::new();
    let mut cur = t;
    while let SeqType::Seq(n, e) | SeqType::STuple(n, e) = cur {
        levels.push(*n);
        cur = e;
    }
    AtomShape {
        atoms: flat.atoms as u64,
        row: (levels.len() >= 2).then(|| levels[levels.len() - 1]),
        scalars: flat.slots,
    }
}

fn atom_text(shape: &AtomShape) -> String {
    let names: Vec<&str> = shape.scalars.iter().map(|s| s.name()).collect();
    if names.len() == 1 {
        names[0].to_string()
    } else {
        format!("atom tuples of ({})", names.join(", "))
    }
}

/// Whether every sample of a `depth`-bit picture is a value of `t`.
fn holds(t: ScalarType, depth: u8) -> bool {
    let w = t.width();
    t.is_int() && (w > u32::from(depth) || (w == u32::from(depth) && !t.is_signed()))
}

/// The scalars of `pic` as the atoms of input `name : ty`, in the program's atom order (an
/// RGB pixel gives red, green, blue).
pub fn input_scalars(pic: &Picture, name: &str, ty: &SeqType) -> Result<Vec<u32>, String> {
    let shape = shape_of(ty);
    if shape.atoms != pic.pixels() {
        return Err(format!(
            "input `{name}` : {ty} takes {} pixels, the image is {}x{} = {} pixels",
            shape.atoms,
            pic.width,
            pic.height,
            pic.pixels()
        ));
    }
    if let Some(row) = shape.row {
        if row != u64::from(pic.width) {
            return Err(format!(
                "input `{name}` : {ty} has rows of {row} pixels, the image is {} pixels wide",
                pic.width
            ));
        }
    }
    let want = usize::from(pic.channels);
    if shape.scalars.len() != want {
        let has = if pic.channels == 1 {
            "grayscale"
        } else {
            "RGB"
        };
        return Err(format!(
            "input `{name}` takes {} per pixel and the image is {has}: a grayscale image \
             needs one scalar per pixel, an RGB image an atom tuple of three",
            atom_text(&shape)
        ));
    }
    if let Some(t) = shape.scalars.iter().find(|t| !holds(**t, pic.depth)) {
        return Err(format!(
            "input `{name}` holds {} samples, which cannot hold the image's {}-bit samples: \
             use an unsigned type of at least {} bits (or a wider signed one)",
            t.name(),
            pic.depth,
            pic.depth
        ));
    }
    Ok(pic.samples.iter().map(|&s| u32::from(s)).collect())
}

/// A picture made from an output value.
#[derive(Clone, Debug)]
pub struct OutputPicture {
    /// The picture (don't-care pixels marked).
    pub picture: Picture,
    /// Pixels with a sample outside `0 ..= 2^depth - 1`, written clamped into it.
    pub saturated: u64,
}

/// The picture of an output `ty` whose flat scalars `scalar(i)` gives (`None` for don't
/// care), `width` pixels per row (else the type's innermost row), samples of `depth` bits
/// (else 8 if every scalar type has at most 8 bits, 16 otherwise).
pub fn output_picture(
    scalar: impl Fn(usize) -> Option<u32>,
    ty: &SeqType,
    width: Option<u32>,
    depth: Option<u8>,
) -> Result<OutputPicture, String> {
    let shape = shape_of(ty);
    let channels = shape.scalars.len();
    if channels != 1 && channels != 3 {
        return Err(format!(
            "the output has {} per pixel; an image needs one scalar (gray) or an atom tuple of \
             three (RGB)",
            atom_text(&shape)
        ));
    }
    let width = match (width, shape.row) {
        (Some(w), _) => u64::from(w),
        (None, Some(r)) => r,
        (None, None) => {
            return Err(format!(
                "the output {ty} is one sequence of {} pixels: say how wide the image is \
                 with --width",
                shape.atoms
            ))
        }
    };
    if width == 0 || !shape.atoms.is_multiple_of(width) {
        return Err(format!(
            "the output's {} pixels do not make rows of {width}",
            shape.atoms
        ));
    }
    let height = shape.atoms / width;
    let (Ok(w32), Ok(h32)) = (u32::try_from(width), u32::try_from(height)) else {
        return Err(format!("an image of {width}x{height} pixels is too large"));
    };
    let depth = depth.unwrap_or(if shape.scalars.iter().all(|t| t.width() <= 8) {
        8
    } else {
        16
    });
    let max = (1i128 << depth) - 1;
    let n = shape.atoms as usize;
    let mut samples = Vec::with_capacity(n * channels);
    let mut dont_care = vec![false; n];
    let mut saturated = 0u64;
    for (k, dc) in dont_care.iter_mut().enumerate() {
        let mut clamped = false;
        for (c, t) in shape.scalars.iter().enumerate() {
            match scalar(k * channels + c) {
                Some(raw) => {
                    let v = scalar_to_int(u64::from(raw), *t);
                    clamped |= !(0..=max).contains(&v);
                    samples.push(v.clamp(0, max) as u16);
                }
                None => {
                    *dc = true;
                    samples.push(0);
                }
            }
        }
        saturated += u64::from(clamped && !*dc);
    }
    Ok(OutputPicture {
        picture: Picture {
            width: w32,
            height: h32,
            channels: channels as u8,
            depth,
            samples,
            dont_care,
        },
        saturated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gray(width: u32, height: u32, depth: u8) -> Picture {
        let n = (width * height) as usize;
        Picture {
            width,
            height,
            channels: 1,
            depth,
            samples: (0..n as u16).collect(),
            dont_care: Vec::new(),
        }
    }

    #[test]
    fn shapes_count_atoms_and_rows() {
        let t = SeqType::seq(4, SeqType::seq(6, SeqType::Scalar(ScalarType::UInt8)));
        assert_eq!(
            shape_of(&t),
            AtomShape {
                atoms: 24,
                row: Some(6),
                scalars: vec![ScalarType::UInt8]
            }
        );
        let rgb = SeqType::atuple(
            SeqType::Scalar(ScalarType::UInt32),
            SeqType::atuple(
                SeqType::Scalar(ScalarType::UInt16),
                SeqType::Scalar(ScalarType::UInt8),
            ),
        );
        let s = shape_of(&SeqType::seq(10, rgb));
        assert_eq!((s.atoms, s.row), (10, None));
        assert_eq!(
            s.scalars,
            vec![ScalarType::UInt32, ScalarType::UInt16, ScalarType::UInt8]
        );
    }

    #[test]
    fn input_size_rows_channels_and_depth_are_checked() {
        let u8s = |n| SeqType::seq(n, SeqType::Scalar(ScalarType::UInt8));
        let pic = gray(4, 3, 8);
        assert_eq!(input_scalars(&pic, "I", &u8s(12)).unwrap()[5], 5);
        let e = input_scalars(&pic, "I", &u8s(16)).unwrap_err();
        assert!(e.contains("takes 16 pixels, the image is 4x3 = 12"), "{e}");
        let nested = SeqType::seq(4, u8s(3));
        let e = input_scalars(&pic, "I", &nested).unwrap_err();
        assert!(
            e.contains("rows of 3 pixels, the image is 4 pixels wide"),
            "{e}"
        );
        let e = input_scalars(&gray(4, 3, 16), "I", &u8s(12)).unwrap_err();
        assert!(e.contains("uint8 samples") && e.contains("16-bit"), "{e}");
        let int8 = SeqType::seq(12, SeqType::Scalar(ScalarType::Int8));
        assert!(input_scalars(&pic, "I", &int8).is_err());
        let pair = SeqType::seq(
            12,
            SeqType::atuple(
                SeqType::Scalar(ScalarType::UInt8),
                SeqType::Scalar(ScalarType::UInt8),
            ),
        );
        let e = input_scalars(&pic, "I", &pair).unwrap_err();
        assert!(e.contains("grayscale"), "{e}");
    }

    #[test]
    fn outputs_clamp_mark_dont_cares_and_need_a_width() {
        let t = SeqType::seq(6, SeqType::Scalar(ScalarType::Int16));
        let raw = [
            Some(5u32),
            Some(0xffff),
            None,
            Some(300),
            Some(0),
            Some(255),
        ];
        let out = output_picture(|i| raw[i], &t, Some(3), Some(8)).unwrap();
        assert_eq!(out.picture.samples, vec![5, 0, 0, 255, 0, 255]);
        assert_eq!(
            out.picture.dont_care,
            vec![false, false, true, false, false, false]
        );
        assert_eq!(out.saturated, 2, "-1 and 300 are outside 0..=255");
        assert_eq!((out.picture.width, out.picture.height), (3, 2));
        let e = output_picture(|i| raw[i], &t, None, None).unwrap_err();
        assert!(e.contains("--width"), "{e}");
        let e = output_picture(|i| raw[i], &t, Some(4), None).unwrap_err();
        assert!(e.contains("do not make rows of 4"), "{e}");
        let wide = output_picture(|i| raw[i], &t, Some(3), None).unwrap();
        assert_eq!(wide.picture.depth, 16, "int16 outputs default to 16 bits");
    }
}
