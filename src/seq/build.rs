//! Checked construction of program nodes: every node added here gets its type from the
//! typing rules, so a [`Program`] built through this module is well typed by construction.
//! The front end, the derived forms and the tests all build programs this way.

use super::check;
use super::front::MAX_ATOMS;
use super::op::Op;
use super::program::{NodeId, Program};
use super::types::SeqType;

/// Adds a first-order operator applied to `args`, computing its type.
pub fn apply(p: &mut Program, op: Op, args: &[NodeId]) -> Result<NodeId, String> {
    if args.len() != op.arity() {
        return Err(format!(
            "{op}: takes {} input(s), found {}",
            op.arity(),
            args.len()
        ));
    }
    let tys: Vec<&SeqType> = args.iter().map(|a| p.ty(*a)).collect();
    let ty = within_limit(&op, check::result_type(&op, &tys)?)?;
    Ok(p.add(op, args.to_vec(), ty))
}

/// Rejects result types too large to interpret or build, naming the operator.
fn within_limit(what: &dyn std::fmt::Display, ty: SeqType) -> Result<SeqType, String> {
    if ty.atoms() > MAX_ATOMS {
        return Err(format!(
            "{what}: the result type {ty} holds more than {MAX_ATOMS} atoms"
        ));
    }
    Ok(ty)
}

/// Adds a constant.
pub fn constant(
    p: &mut Program,
    value: super::value::Value,
    ty: SeqType,
) -> Result<NodeId, String> {
    super::value::check_value(&value, &ty)?;
    Ok(p.add(Op::Const(value, ty.clone()), Vec::new(), ty))
}

/// Adds the placeholder for argument `index` of a function body.
pub fn arg(p: &mut Program, index: u8, ty: SeqType) -> NodeId {
    p.add(Op::Arg(index, ty.clone()), Vec::new(), ty)
}

/// Adds `map n body input`; `body` must take exactly the element type of `input`.
pub fn map(p: &mut Program, n: u64, body: NodeId, input: NodeId) -> Result<NodeId, String> {
    let what = format!("map {n}");
    let e = check::map_input(&what, p.ty(input), n)?.clone();
    check_body(p, &what, body, &[e])?;
    let ty = within_limit(&what, SeqType::seq(n, p.ty(body).clone()))?;
    Ok(p.add(Op::Map { n, body }, vec![input], ty))
}

/// Adds `map2 n body a b`.
pub fn map2(p: &mut Program, n: u64, body: NodeId, a: NodeId, b: NodeId) -> Result<NodeId, String> {
    let what = format!("map2 {n}");
    let ea = check::map_input(&what, p.ty(a), n)?.clone();
    let eb = check::map_input(&what, p.ty(b), n)?.clone();
    check_body(p, &what, body, &[ea, eb])?;
    let ty = within_limit(&what, SeqType::seq(n, p.ty(body).clone()))?;
    Ok(p.add(Op::Map2 { n, body }, vec![a, b], ty))
}

/// Adds `reduce n body input`; `body` takes the zipped pair of two elements and must return
/// the element type.
pub fn reduce(p: &mut Program, n: u64, body: NodeId, input: NodeId) -> Result<NodeId, String> {
    let (e, pair) = check::reduce_input(p.ty(input), n)?;
    check_body(p, &format!("reduce {n}"), body, &[pair])?;
    if *p.ty(body) != e {
        return Err(format!(
            "reduce {n}: the function must return the element type {e}, but returns {}",
            p.ty(body)
        ));
    }
    Ok(p.add(Op::Reduce { n, body }, vec![input], SeqType::seq(1, e)))
}

/// Adds `hmap n (list_to_seq f_0 .. f_n-1) input`: one body per element, each taking the
/// element type of `input`; all must return one type.
pub fn hmap(p: &mut Program, n: u64, bodies: &[NodeId], input: NodeId) -> Result<NodeId, String> {
    let what = format!("hmap {n}");
    let e = check::map_input(&what, p.ty(input), n)?.clone();
    if bodies.len() as u64 != n {
        return Err(format!(
            "{what}: needs {n} functions (one per element), found {}",
            bodies.len()
        ));
    }
    for (i, body) in bodies.iter().enumerate() {
        check_body(
            p,
            &format!("{what}, function {i}"),
            *body,
            std::slice::from_ref(&e),
        )?;
        if p.ty(*body) != p.ty(bodies[0]) {
            return Err(format!(
                "{what}: every function must return one type; function 0 returns {}, function {i} returns {}",
                p.ty(bodies[0]),
                p.ty(*body)
            ));
        }
    }
    let ty = SeqType::seq(n, p.ty(bodies[0]).clone());
    Ok(p.add(
        Op::HMap {
            n,
            bodies: bodies.to_vec(),
        },
        vec![input],
        ty,
    ))
}

/// Checks that a body's argument placeholders have the types its operator passes in.
fn check_body(p: &Program, what: &str, body: NodeId, params: &[SeqType]) -> Result<(), String> {
    for id in p.scope(body) {
        match &p.node(id).op {
            Op::Arg(i, t) => match params.get(usize::from(*i)) {
                Some(expected) if expected == t => {}
                Some(expected) => {
                    return Err(format!(
                        "{what}: the function's argument {i} has type {t}, but receives {expected}"
                    ))
                }
                None => {
                    return Err(format!(
                        "{what}: the function uses argument {i}, but receives only {} argument(s)",
                        params.len()
                    ))
                }
            },
            Op::Input(_) => {
                return Err(format!(
                    "{what}: a function body is closed, but this one reads a program input"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}
