//! Every user error names its file: the files a command was given, and the one its error
//! is printed with when the message itself names none.

use super::Command;
use std::path::PathBuf;

/// A user error that names none of the command's files gets the first (the program or
/// design the command is about) in front, so every error says which file it is about.
pub(super) fn naming_a_file(msg: &str, files: &[PathBuf]) -> String {
    match files.first() {
        Some(first) if !files.iter().any(|f| msg.contains(&f.display().to_string())) => {
            format!("{}: {msg}", first.display())
        }
        _ => msg.to_string(),
    }
}

impl Command {
    /// Every file and directory named on the command line, the one the command is about
    /// first.
    pub(super) fn files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        match self {
            Command::Rules { rules, .. } => out.extend(rules.clone()),
            Command::Prove { a, b, sat, .. } => {
                out.extend([a.clone(), b.clone()]);
                out.extend(sat.rules.clone());
            }
            Command::Saturate { file, sat, .. } => {
                out.push(file.clone());
                out.extend(sat.rules.clone());
            }
            Command::Explore { file, .. } | Command::Check { file, .. } => out.push(file.clone()),
            Command::Schedule { file, output, .. } => {
                out.push(file.clone());
                out.extend(output.clone());
            }
            Command::Eval {
                file, input, image, ..
            } => {
                out.push(file.clone());
                out.extend(input.clone());
                out.extend(image.files());
            }
            Command::Sim {
                design, program, ..
            } => out.extend([design.clone(), program.clone()]),
            Command::Area { source, .. } => out.push(source.file().to_path_buf()),
            Command::Fmax { source, work, .. } => {
                out.push(source.file().to_path_buf());
                out.extend(work.clone());
            }
            Command::Rtl { source, output, .. } => {
                out.extend([source.file().to_path_buf(), output.clone()]);
            }
            Command::Verify {
                design,
                program,
                work,
                image,
                vcd,
                ..
            } => {
                out.push(design.clone());
                out.extend(program.iter().chain(work).chain(vcd).cloned());
                out.extend(image.files());
            }
            Command::Dot { source, output } => {
                out.push(source.file().to_path_buf());
                out.extend(output.clone());
            }
            Command::TestImage { output, .. } => out.push(output.clone()),
            Command::Report(args) => out.extend(args.files()),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::naming_a_file;
    use std::path::PathBuf;

    #[test]
    fn an_error_without_a_file_gets_the_first() {
        let files = [PathBuf::from("a.seq"), PathBuf::from("out.st")];
        assert_eq!(
            naming_a_file("--frames must be at least 1", &files),
            "a.seq: --frames must be at least 1"
        );
        // one that names any of them is left as it is
        assert_eq!(
            naming_a_file("out.st: cannot write", &files),
            "out.st: cannot write"
        );
        assert_eq!(
            naming_a_file("a.seq:2:3: error: x", &files),
            "a.seq:2:3: error: x"
        );
        // a command without files (report of the default apps) adds nothing
        assert_eq!(naming_a_file("no apps", &[]), "no apps");
    }
}
