//! Bitwise logic packed into LUTs: `and`, `or`, `not` and `if` after a LUT whose inputs
//! leave room for theirs are the same LUT, as technology mapping builds them, and add no
//! logic level of their own.

use super::{Signal, Walk};
use crate::seq::op::AtomOp;
use crate::st::delay::Known;
use crate::st::op::StOp;

/// Each bit of a signal computed by one LUT of `inputs` input bits that arrive by `at`:
/// bitwise logic after it (`and`, `or`, `not`, `if`) with few enough inputs in all is
/// the same LUT, as technology mapping packs it, and adds no level of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cone {
    pub(super) at: f64,
    pub(super) inputs: u8,
}

impl Walk<'_> {
    /// The operands of bitwise logic `op` (`not`, `and`, `or`, `if`: each output bit a
    /// function of one bit of each) whose atom input is `x`; `None` for other operators.
    pub(super) fn bitwise_operands(&self, op: AtomOp, x: &Signal) -> Option<Vec<Signal>> {
        match op {
            AtomOp::Not => Some(vec![x.clone()]),
            AtomOp::And | AtomOp::Or => Some(self.pair_of(x).to_vec()),
            AtomOp::If => {
                let [c, pair] = self.pair_of(x);
                let mut ops = vec![c];
                ops.extend(self.pair_of(&pair));
                Some(ops)
            }
            _ => None,
        }
    }

    /// The two fields of atom tuple `x` as they arrive where `x` is used. Where the walk
    /// built the tuple, its fields as they were (a tuple realigned through a FIFO,
    /// [`Walk::aligned`], brings them at its own arrival); otherwise (a body's parameter)
    /// `x` itself twice, with what is known of each part.
    fn pair_of(&self, x: &Signal) -> [Signal; 2] {
        if let Some(fields) = self.fields.get(&x.node) {
            if let [a, b] = fields.as_slice() {
                let realigned = a.ns > x.ns || b.ns > x.ns;
                let arriving = |f: &Signal| {
                    let mut f = f.clone();
                    if realigned {
                        f.ns = x.ns;
                        f.cone = None;
                    }
                    f
                };
                return [arriving(a), arriving(b)];
            }
        }
        let (ka, kb) = x.known.parts();
        let part = |known: Known| Signal {
            known,
            cone: None,
            ..x.clone()
        };
        [part(ka), part(kb)]
    }

    /// Bitwise logic `op` over `operands` (of its atom input `args[0]`), packed into the
    /// LUT of an operand computed by one ([`Cone`]) where the inputs fit: it then adds no
    /// level. Registered in front where even that overruns the stage.
    pub(super) fn lut(
        &mut self,
        op: &StOp,
        args: Vec<Signal>,
        operands: &[Signal],
        known: Known,
        name: String,
        may_register: bool,
    ) -> Result<Signal, String> {
        let lut_ns = self.t.lut_ns;
        // constants are folded into the LUT's function
        let live: Vec<&Signal> = operands.iter().filter(|o| !o.known.is_const()).collect();
        let mut inputs = live.len();
        let mut packed = vec![false; live.len()];
        let mut latest_first: Vec<usize> = (0..live.len())
            .filter(|&i| live[i].cone.is_some())
            .collect();
        latest_first.sort_by(|&i, &j| live[j].ns.total_cmp(&live[i].ns));
        for i in latest_first {
            let more = usize::from(live[i].cone.map_or(1, |c| c.inputs));
            if inputs - 1 + more <= usize::from(self.t.lut_inputs) {
                inputs = inputs - 1 + more;
                packed[i] = true;
            }
        }
        let at = live
            .iter()
            .zip(&packed)
            .map(|(o, &p)| match (p, o.cone) {
                (true, Some(c)) => c.at,
                _ => o.ns,
            })
            .fold(0.0, f64::max);
        let (late, unregistered) = (args[0].ns, args[0].node);
        let d = (at + lut_ns - late).clamp(0.0, lut_ns);
        let fitted = self.fit(op, args, d, may_register)?;
        let (ns, cone) = if fitted[0].node == unregistered {
            (
                at + lut_ns,
                Cone {
                    at,
                    inputs: inputs as u8,
                },
            )
        } else {
            // the operands come from registers: a LUT of its own
            (
                lut_ns,
                Cone {
                    at: 0.0,
                    inputs: live.len() as u8,
                },
            )
        };
        let node = self.out.add(op.clone(), &[fitted[0].node])?;
        let from = fitted[0].trail.clone();
        Ok(Signal {
            node,
            ns,
            known,
            trail: self.step(name, &from),
            cone: (cone.inputs <= self.t.lut_inputs).then_some(cone),
        })
    }
}
