//! Images through the compiler: `test-image`, `eval --image` and `verify --image`, from the
//! command line as a user runs them. The RTL's output image must equal the interpreter's,
//! pixel for pixel, and bad image input must be a clear error (exit 2), never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("tessera runs")
}

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-images-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn run_ok(args: &[&str]) -> String {
    let o = tessera(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}:\n{}", text(&o));
    text(&o)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes the test scene of `kind` at `width` x `height` to `path`.
fn test_image(path: &Path, kind: &str, width: u32, height: u32) {
    let (w, h) = (width.to_string(), height.to_string());
    run_ok(&[
        "test-image",
        "--kind",
        kind,
        "--width",
        &w,
        "--height",
        &h,
        "-o",
        s(path),
    ]);
}

fn decode(p: &Path) -> image::DynamicImage {
    image::ImageReader::open(p).unwrap().decode().unwrap()
}

#[test]
fn the_test_scene_is_the_same_on_every_run() {
    let dir = work_dir("scene");
    for kind in ["gray", "rgb", "bayer-grbg"] {
        let (a, b) = (
            dir.join(format!("{kind}_a.png")),
            dir.join(format!("{kind}_b.pgm")),
        );
        let out = run_ok(&[
            "test-image",
            "--kind",
            kind,
            "--width",
            "64",
            "--height",
            "36",
            "-o",
            s(&a),
        ]);
        assert!(out.contains("64x36"), "{out}");
        let a2 = dir.join(format!("{kind}_a2.png"));
        test_image(&a2, kind, 64, 36);
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&a2).unwrap(),
            "{kind}"
        );
        let img = decode(&a);
        assert_eq!((img.width(), img.height()), (64, 36));
        assert_eq!(
            img.color().channel_count(),
            if kind == "rgb" { 3 } else { 1 }
        );
        if kind != "rgb" {
            // The same pixels through the PGM codec.
            test_image(&b, kind, 64, 36);
            assert_eq!(decode(&b).to_luma8(), img.to_luma8(), "{kind}");
        }
    }
}

/// A user error: exit 2, the message contains `want`, no panic.
fn refused(args: &[&str], want: &str) {
    let o = tessera(args);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}:\n{t}");
    assert!(t.contains(want), "{args:?}: expected `{want}` in:\n{t}");
    assert!(!t.contains("panicked"), "{t}");
}

#[test]
fn bad_image_input_is_a_clear_error() {
    let dir = work_dir("bad");
    let conv = "examples/small/big_real_32_conv2d_16x8.seq";
    let small = dir.join("small.png");
    test_image(&small, "gray", 8, 8);
    let rgb = dir.join("rgb.png");
    test_image(&rgb, "rgb", 16, 8);
    let junk = dir.join("junk.png");
    std::fs::write(&junk, "not an image").unwrap();
    let jpeg = dir.join("photo.png");
    std::fs::write(
        &jpeg,
        [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F', b'I', b'F', 0],
    )
    .unwrap();
    let deep = dir.join("deep.png");
    image::ImageBuffer::<image::Luma<u16>, _>::from_raw(4, 4, vec![40_000u16; 16])
        .unwrap()
        .save(&deep)
        .unwrap();
    let clear = dir.join("clear.png");
    image::ImageBuffer::<image::Rgba<u8>, _>::from_raw(16, 8, vec![0u8; 16 * 8 * 4])
        .unwrap()
        .save(&clear)
        .unwrap();
    let missing = dir.join("missing.png");
    for verb in [
        &["verify", conv, "--slowdown", "128", "--sim", "icarus"][..],
        &["eval", conv][..],
    ] {
        let with = |img: &Path| {
            let mut v: Vec<String> = verb.iter().map(|x| x.to_string()).collect();
            v.extend(["--image".to_string(), s(img).to_string()]);
            v
        };
        let call = |img: &Path, want: &str| {
            let v = with(img);
            let refs: Vec<&str> = v.iter().map(String::as_str).collect();
            refused(&refs, want);
        };
        call(&small, "takes 128 pixels, the image is 8x8 = 64 pixels");
        call(&rgb, "the image is RGB");
        call(&junk, "junk.png");
        call(&jpeg, "not supported");
        call(&missing, "cannot open");
        call(&dir, "is a directory");
        call(&clear, "transparent");
    }
    // 16-bit samples do not fit uint8 pixels.
    refused(
        &["eval", "examples/conv2d.seq", "--image", s(&deep)],
        "16-bit",
    );
    // Output names and options.
    let ok_in = dir.join("ok.png");
    test_image(&ok_in, "gray", 16, 8);
    refused(
        &[
            "verify",
            conv,
            "--slowdown",
            "128",
            "--image",
            s(&ok_in),
            "-o",
            s(&dir.join("o.jpg")),
        ],
        "end it in .png",
    );
    refused(
        &[
            "verify",
            conv,
            "--slowdowns",
            "64,128",
            "--image",
            s(&ok_in),
            "-o",
            s(&dir.join("o.png")),
        ],
        "give one slowdown",
    );
    refused(
        &[
            "verify",
            conv,
            "--slowdown",
            "128",
            "--image",
            &format!("J={}", s(&ok_in)),
        ],
        "J=",
    );
    refused(
        &[
            "verify",
            conv,
            "--slowdown",
            "128",
            "--image",
            s(&ok_in),
            "--image",
            s(&ok_in),
        ],
        "given twice",
    );
    refused(
        &["test-image", "--kind", "cmyk", "-o", s(&dir.join("t.png"))],
        "unknown kind",
    );
    refused(
        &["test-image", "--width", "0", "-o", s(&dir.join("t.png"))],
        "at least 1",
    );
}

/// The RTL's output image equals the interpreter's and the reference's, byte for byte, for
/// `app` at `slowdown` in simulator `sim`, its input the test scene `kind` (`width` x
/// `height`). Each app is its own test, so that the apps run in parallel.
fn rtl_image_equals_the_interpreters(
    app: &str,
    (kind, width, height): (&str, u32, u32),
    slowdown: &str,
    sim: &str,
) {
    let name = Path::new(app).file_stem().unwrap().to_str().unwrap();
    let dir = work_dir(&format!("rtl-{name}"));
    let input = dir.join(format!("{kind}.png"));
    test_image(&input, kind, width, height);
    let rtl = dir.join(format!("{name}_rtl.png"));
    let interp = dir.join(format!("{name}_interp.png"));
    let reference = dir.join(format!("{name}_reference.png"));
    let out = run_ok(&[
        "verify",
        app,
        "--slowdown",
        slowdown,
        "--sim",
        sim,
        "--frames",
        "2",
        "--image",
        s(&input),
        "-o",
        s(&rtl),
    ]);
    assert!(
        out.contains("PASS") && out.contains("output image"),
        "{out}"
    );
    run_ok(&["eval", app, "--image", s(&input), "-o", s(&interp)]);
    run_ok(&[
        "eval",
        app,
        "--reference",
        "--image",
        s(&input),
        "-o",
        s(&reference),
    ]);
    let bytes = std::fs::read(&rtl).unwrap();
    assert_eq!(
        bytes,
        std::fs::read(&interp).unwrap(),
        "{app}: RTL vs interpreter"
    );
    assert_eq!(
        bytes,
        std::fs::read(&reference).unwrap(),
        "{app}: RTL vs reference"
    );
    let img = decode(&rtl);
    assert_eq!((img.width(), img.height()), (width, height), "{app}");
    // Every app leaves its first row undefined: magenta there, the don't-care colour.
    assert_eq!(img.to_rgb8().get_pixel(0, 0).0, [255, 0, 255], "{app}");
}

const GRAY: (&str, u32, u32) = ("gray", 16, 8);
const BAYER: (&str, u32, u32) = ("bayer-grbg", 16, 8);

#[test]
fn the_rtl_image_of_conv2d_equals_the_interpreters() {
    rtl_image_equals_the_interpreters(
        "examples/small/big_real_32_conv2d_16x8.seq",
        GRAY,
        "128",
        "icarus",
    );
}

#[test]
fn the_rtl_image_of_conv2d_b2b_equals_the_interpreters() {
    rtl_image_equals_the_interpreters(
        "examples/small/big_real_32_conv2d_b2b_16x8.seq",
        GRAY,
        "32",
        "icarus",
    );
}

#[test]
fn the_rtl_image_of_sharpen_equals_the_interpreters() {
    rtl_image_equals_the_interpreters(
        "examples/small/big_real_32_sharpen_16x8.seq",
        GRAY,
        "128",
        "verilator",
    );
}

/// Verilator is two-state: the parts of an atom the program leaves undefined carry bits,
/// which the image must still show as don't care.
#[test]
fn the_rtl_image_of_demosaic_equals_the_interpreters() {
    rtl_image_equals_the_interpreters(
        "examples/small/demosaic_16x8.seq",
        BAYER,
        "128",
        "verilator",
    );
}

#[test]
fn the_rtl_image_of_camera_equals_the_interpreters() {
    rtl_image_equals_the_interpreters("examples/small/camera_16x8.seq", BAYER, "64", "icarus");
}

/// The blur that sums its uint8 pixels in uint16, on an 8x8 image.
#[test]
fn the_rtl_image_of_box5x5_u16_equals_the_interpreters() {
    rtl_image_equals_the_interpreters("examples/box5x5_u16.seq", ("gray", 8, 8), "16", "icarus");
}

/// Several inputs by name, 16-bit samples, RGB atom tuples, widths and depths.
#[test]
fn images_map_to_inputs_by_name_depth_and_channels() {
    let dir = work_dir("map");
    // map2 6 add x y: the output pixel is the sum of the two input pixels (mod 256).
    let (a, b) = (dir.join("a.png"), dir.join("b.pgm"));
    let pa: Vec<u8> = vec![1, 2, 3, 200, 100, 0];
    let pb: Vec<u8> = vec![10, 20, 30, 100, 155, 7];
    image::GrayImage::from_raw(3, 2, pa.clone())
        .unwrap()
        .save(&a)
        .unwrap();
    image::GrayImage::from_raw(3, 2, pb.clone())
        .unwrap()
        .save(&b)
        .unwrap();
    let sum = dir.join("sum.png");
    let prog = "examples/derivations/map2_nesting_lhs.seq";
    let out = run_ok(&[
        "eval",
        prog,
        "--image",
        &format!("y={}", s(&b)),
        "--image",
        &format!("x={}", s(&a)),
        "-o",
        s(&sum),
    ]);
    assert!(out.contains("3x2 gray 8-bit"), "{out}");
    let want: Vec<u8> = pa
        .iter()
        .zip(&pb)
        .map(|(x, y)| x.wrapping_add(*y))
        .collect();
    assert_eq!(decode(&sum).to_luma8().into_raw(), want);
    refused(&["eval", prog, "--image", s(&a)], "say which, as NAME=FILE");
    refused(
        &["eval", prog, "--image", &format!("x={}", s(&a))],
        "input `y` has no image",
    );
    // The width of the output image can be chosen; rows must divide the pixels.
    let wide = dir.join("wide.png");
    run_ok(&[
        "eval",
        prog,
        "--image",
        &format!("x={}", s(&a)),
        "--image",
        &format!("y={}", s(&b)),
        "-o",
        s(&wide),
        "--width",
        "6",
    ]);
    assert_eq!(decode(&wide).width(), 6);
    refused(
        &[
            "eval",
            prog,
            "--image",
            &format!("x={}", s(&a)),
            "--image",
            &format!("y={}", s(&b)),
            "-o",
            s(&wide),
            "--width",
            "4",
        ],
        "do not make rows of 4",
    );
    // 16-bit samples into uint16 inputs: reduce 6 add sums them (mod 2^16), a 16-bit output.
    let deep = dir.join("deep.png");
    let px: Vec<u16> = vec![60_000, 5_000, 1, 2, 3, 4];
    image::ImageBuffer::<image::Luma<u16>, _>::from_raw(6, 1, px.clone())
        .unwrap()
        .save(&deep)
        .unwrap();
    let total = dir.join("total.png");
    run_ok(&[
        "eval",
        "examples/derivations/reduce_nesting_lhs.seq",
        "--image",
        s(&deep),
        "-o",
        s(&total),
        "--width",
        "1",
    ]);
    let want = px.iter().fold(0u16, |acc, x| acc.wrapping_add(*x));
    assert_eq!(decode(&total).to_luma16().into_raw(), vec![want]);
    // RGB pixels are atom tuples, red first; a nested input takes its rows from the image.
    let rgb = dir.join("rgb.png");
    test_image(&rgb, "rgb", 16, 8);
    let swapped = dir.join("swapped.ppm");
    run_ok(&[
        "eval",
        "tests/data/images/rgb_swap.seq",
        "--image",
        s(&rgb),
        "-o",
        s(&swapped),
    ]);
    let (src, dst) = (decode(&rgb).to_rgb8(), decode(&swapped).to_rgb8());
    for (p, q) in src.pixels().zip(dst.pixels()) {
        assert_eq!([p.0[2], p.0[1], p.0[0]], q.0);
    }
    refused(
        &[
            "eval",
            "tests/data/images/rgb_swap.seq",
            "--image",
            s(&rgb),
            "-o",
            s(&dir.join("g.pgm")),
        ],
        "a .pgm file is grayscale",
    );
    let tall = dir.join("tall.png");
    test_image(&tall, "rgb", 8, 16);
    refused(
        &[
            "eval",
            "tests/data/images/rgb_swap.seq",
            "--image",
            s(&tall),
        ],
        "rows of 16 pixels",
    );
    // JSON names the files.
    let out = run_ok(&[
        "eval",
        "tests/data/images/rgb_swap.seq",
        "--image",
        s(&rgb),
        "-o",
        s(&swapped),
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(doc["output_image"], s(&swapped));
    assert_eq!(doc["inputs"]["I"]["image"], s(&rgb));
}
