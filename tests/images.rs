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
        run_ok(&[
            "test-image",
            "--kind",
            kind,
            "--width",
            "64",
            "--height",
            "36",
            "-o",
            s(&a2),
        ]);
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
            run_ok(&[
                "test-image",
                "--kind",
                kind,
                "--width",
                "64",
                "--height",
                "36",
                "-o",
                s(&b),
            ]);
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
    run_ok(&[
        "test-image",
        "--width",
        "8",
        "--height",
        "8",
        "-o",
        s(&small),
    ]);
    let rgb = dir.join("rgb.png");
    run_ok(&[
        "test-image",
        "--kind",
        "rgb",
        "--width",
        "16",
        "--height",
        "8",
        "-o",
        s(&rgb),
    ]);
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
    run_ok(&[
        "test-image",
        "--width",
        "16",
        "--height",
        "8",
        "-o",
        s(&ok_in),
    ]);
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
