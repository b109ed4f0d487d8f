//! `tessera check` and `tessera eval` on sequence programs.

use super::image_cmds::{self, ImageArgs};
use super::CliResult;
use crate::seq::value::{format_value, from_json, random_value, to_json};
use crate::seq::{fast, interp, FlatValue};
use crate::seq::{load_program, Program, Value};
use crate::util::budget::Budget;
use crate::util::diag::Diagnostic;
use crate::util::rng::Rng;
use std::io::Write;
use std::path::Path;

/// `tessera check FILE.seq`.
pub fn check(file: &Path, json: bool) -> CliResult {
    let p = load_program(file)?;
    if json {
        let inputs: serde_json::Map<String, serde_json::Value> = p
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.ty.to_string().into()))
            .collect();
        let ops: serde_json::Map<String, serde_json::Value> = p
            .op_counts()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect();
        let out = serde_json::json!({
            "program": p.name,
            "inputs": inputs,
            "output": p.output_type().to_string(),
            "nodes": p.reachable().len(),
            "operators": ops,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("program {}", p.name);
        for i in &p.inputs {
            println!("  input  {} : {}", i.name, i.ty);
        }
        println!("  output : {}", p.output_type());
        let ops: Vec<String> = p
            .op_counts()
            .into_iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("  nodes  : {} ({})", p.reachable().len(), ops.join(", "));
    }
    Ok(0)
}

/// `tessera eval FILE.seq [--input FILE.json | --random SEED | --image [NAME=]FILE]
/// [-o OUT.png] [--json] [--reference]`.
///
/// The fast evaluator runs by default; `reference` selects the reference interpreter. Both
/// print the same text (the fast evaluator prints from its flat values, so a full-size
/// frame never becomes a tree). With `-o` the output is written as an image instead of
/// printed, and image inputs are named rather than printed.
pub fn eval(
    file: &Path,
    input: Option<&Path>,
    random: Option<u64>,
    (json, reference): (bool, bool),
    image: &ImageArgs,
    budget: Budget,
) -> CliResult {
    let p = load_program(file)?;
    image.check()?;
    budget.check(
        file,
        "evaluating one frame",
        fast::memory_estimate(&p, reference),
    )?;
    if reference && !image.any() {
        return eval_reference(&p, input, random, json);
    }
    let images = image_cmds::read_inputs(&p, &image.images)?;
    let (inputs, seed) = match (input, &images) {
        (_, Some(im)) => {
            let flat = p
                .inputs
                .iter()
                .enumerate()
                .map(|(k, d)| im.flat(k, &d.ty))
                .collect();
            (flat, None)
        }
        (Some(path), None) => {
            let values = read_inputs(&p, path)?;
            let flat = p
                .inputs
                .iter()
                .zip(&values)
                .map(|(d, v)| FlatValue::from_value(v, &d.ty))
                .collect();
            (flat, None)
        }
        (None, None) => {
            let seed = random.unwrap_or(0);
            let mut rng = Rng::new(seed);
            let flat: Vec<FlatValue> = p
                .inputs
                .iter()
                .map(|d| FlatValue::random(&d.ty, &mut rng))
                .collect();
            (flat, Some(seed))
        }
    };
    let out = if reference {
        let values: Vec<Value> = inputs.iter().map(FlatValue::to_value).collect();
        FlatValue::from_value(&interp::eval(&p, &values)?, p.output_type())
    } else {
        fast::eval_flat(&p, &inputs)?
    };
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    if let Some(path) = &image.output {
        let defaults = images.as_ref().map_or((None, None), |im| im.defaults());
        let line = image_cmds::write_output(
            path,
            |i| out.get(i),
            p.output_type(),
            (image.width.or(defaults.0), image.depth.or(defaults.1)),
        )?;
        if json {
            let ins: serde_json::Map<String, serde_json::Value> = p
                .inputs
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    let v = match &images {
                        Some(im) => {
                            serde_json::json!({"image": im.inputs[k].file.display().to_string()})
                        }
                        None => serde_json::json!({"random": seed}),
                    };
                    (d.name.clone(), v)
                })
                .collect();
            let doc = serde_json::json!({
                "program": p.name,
                "inputs": ins,
                "output_image": path.display().to_string(),
                "written": line,
            });
            writeln!(w, "{doc}")?;
        } else {
            writeln!(w, "{line}")?;
        }
        w.flush()?;
        return Ok(0);
    }
    // A frame prints as tens of megabytes: stream it rather than build the text.
    if json {
        // The same document as the reference path's, written without a JSON tree.
        write!(
            w,
            "{{\"program\":{},\"seed\":{},\"inputs\":{{",
            serde_json::Value::from(p.name.as_str()),
            serde_json::json!(seed)
        )?;
        for (k, (d, v)) in p.inputs.iter().zip(&inputs).enumerate() {
            let sep = if k > 0 { "," } else { "" };
            write!(
                w,
                "{sep}{}:{}",
                serde_json::Value::from(d.name.as_str()),
                v.json()
            )?;
        }
        writeln!(w, "}},\"output\":{}}}", out.json())?;
    } else {
        if let Some(seed) = seed {
            for (d, v) in p.inputs.iter().zip(&inputs) {
                writeln!(w, "input {} (random, seed {seed}) = {v}", d.name)?;
            }
        }
        if let Some(im) = &images {
            for (d, i) in p.inputs.iter().zip(&im.inputs) {
                let (w_, h) = i.size;
                writeln!(
                    w,
                    "input {} = {} ({w_}x{h} {})",
                    d.name,
                    i.file.display(),
                    i.kind
                )?;
            }
        }
        writeln!(w, "output = {out}")?;
    }
    w.flush()?;
    Ok(0)
}

fn eval_reference(p: &Program, input: Option<&Path>, random: Option<u64>, json: bool) -> CliResult {
    let (inputs, seed) = match input {
        Some(path) => (read_inputs(p, path)?, None),
        None => {
            let seed = random.unwrap_or(0);
            (random_inputs(p, seed), Some(seed))
        }
    };
    let out = interp::eval(p, &inputs)?;
    if json {
        let ins: serde_json::Map<String, serde_json::Value> = p
            .inputs
            .iter()
            .zip(&inputs)
            .map(|(d, v)| (d.name.clone(), to_json(v, &d.ty)))
            .collect();
        let doc = serde_json::json!({
            "program": p.name,
            "seed": seed,
            "inputs": ins,
            "output": to_json(&out, p.output_type()),
        });
        println!("{doc}");
    } else {
        if let Some(seed) = seed {
            for (d, v) in p.inputs.iter().zip(&inputs) {
                println!(
                    "input {} (random, seed {seed}) = {}",
                    d.name,
                    format_value(v, &d.ty)
                );
            }
        }
        println!("output = {}", format_value(&out, p.output_type()));
    }
    Ok(0)
}

/// Random values for every input of `p`, the same for the same seed on every machine.
pub fn random_inputs(p: &Program, seed: u64) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    p.inputs
        .iter()
        .map(|d| random_value(&d.ty, &mut rng))
        .collect()
}

/// Reads inputs from JSON: `{"NAME": value, ...}`, or a bare value for a one-input program.
pub fn read_inputs(p: &Program, path: &Path) -> Result<Vec<Value>, Diagnostic> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::file(&file, format!("cannot read the file: {e}")))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::at(
            &file,
            crate::util::diag::Pos {
                line: e.line() as u32,
                // serde_json counts columns from 1, and says 0 at the very start of a line
                // (an end of file after a newline): positions here start at 1
                col: e.column().max(1) as u32,
            },
            format!("invalid JSON: {e}"),
        )
    })?;
    let by_name = match &doc {
        serde_json::Value::Object(map)
            if p.inputs.len() > 1 || map.contains_key(&p.inputs[0].name) =>
        {
            for key in map.keys() {
                if !p.inputs.iter().any(|d| &d.name == key) {
                    return Err(Diagnostic::file(
                        &file,
                        format!("`{key}` is not an input of program {}", p.name),
                    ));
                }
            }
            Some(map)
        }
        _ if p.inputs.len() == 1 => None,
        _ => {
            return Err(Diagnostic::file(
                &file,
                format!(
                    "expected an object with the inputs {}",
                    p.inputs
                        .iter()
                        .map(|d| d.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
    };
    p.inputs
        .iter()
        .map(|d| {
            let j = match by_name {
                Some(map) => map.get(&d.name).ok_or_else(|| {
                    Diagnostic::file(&file, format!("the input `{}` is missing", d.name))
                })?,
                None => &doc,
            };
            from_json(j, &d.ty, &d.name).map_err(|m| Diagnostic::file(&file, m))
        })
        .collect()
}
