//! The values of an IR-level program: phis, instructions, branch
//! conditions and the fuel counter, laid over a skeleton (`cfg.rs`).
//!
//! Three passes over the blocks:
//! 1. every block gets its phi destinations: a fuel phi in every block
//!    with two or more predecessors, and up to `max_phis` others (one or
//!    two in some single-predecessor blocks: one-argument phis);
//! 2. in reverse post-order (a block's immediate dominator first), the
//!    instructions: random operations over the values available there
//!    (parameters, everything its dominators define, what the block defined
//!    before), `mem` loads and stores at small constant addresses (so they
//!    alias), `out`s of the block's phis, values made only to feed the phis
//!    of a successor, the fuel decrement and guard of a guarded edge, and
//!    the terminator's operand;
//! 3. the phi arguments, each from the values available at the end of its
//!    predecessor, drawn with a bias towards the shapes of the module
//!    documentation: the predecessor's branch condition, another phi of the
//!    same block (then on some back edges a swap or a rotation among them),
//!    a value made for that edge only; and the branch-use shape (Boissinot
//!    et al., Fig. 1) placed on purpose.
//!
//! In a module with calls (`ir_calls.rs`), pass 2 also places calls of the
//! module's helpers among the random instructions ([`Calls`]).
//!
//! Every use is dominated by its definition by construction, so the
//! result passes `verify_function`.

use super::cfg::{Exit, Guard, Skeleton};
use super::ssa_config::IrGenConfig;
use crate::analysis::dominance::DomTree;
use crate::entity::EntityVec;
use crate::generate::source::{Entropy, COMPARISONS, SAFE_BINOPS};
use crate::ir::{BinOp, Block, BlockData, Call, Function, Inst, Op, Phi, Terminator, UnOp, Value};

/// The calls a function of a module with calls may make: the helpers it
/// may call (name and parameter count, the depth included), and the depth
/// each call passes.
#[derive(Clone, Debug)]
pub(super) struct Calls {
    pub callees: Vec<(String, usize)>,
    /// Whether the function is a helper, whose first parameter is the
    /// depth `d`: its calls pass `d - 1`. `main`'s pass a constant from 0
    /// to `max_depth`.
    pub in_helper: bool,
    pub max_depth: u64,
    /// The most calls placed in the function.
    pub max_calls: u64,
}

/// The function `name` with `nparams` parameters over `skeleton`, with the
/// calls `calls` allows.
pub(super) fn fill(
    e: &mut dyn Entropy,
    config: &IrGenConfig,
    skeleton: &Skeleton,
    nparams: usize,
    name: &str,
    calls: Option<&Calls>,
) -> Function {
    let mut f = Function { name: name.into(), params: Vec::new(), blocks: EntityVec::new(), value_count: 0 };
    for _ in 0..nparams {
        let v = f.new_value();
        f.params.push(v);
    }
    for (b, exit) in skeleton.exits.iter().enumerate() {
        // Placeholder operands; pass 2 sets them.
        let term = match *exit {
            Exit::Return => Terminator::Return(Value(0)),
            Exit::Jump(t) => Terminator::Jump(t),
            Exit::Branch { then_dest, else_dest, .. } => Terminator::Branch { cond: Value(0), then_dest, else_dest },
        };
        f.blocks.push(BlockData { preds: skeleton.preds[b].clone(), phis: Vec::new(), insts: Vec::new(), term });
    }
    let dom = DomTree::compute(&f);
    let n = f.blocks.len();
    let mut filler = Filler {
        e,
        config,
        skeleton,
        f,
        dom,
        defs: vec![Vec::new(); n],
        phis: vec![Vec::new(); n],
        fuel_in: vec![None; n],
        fuel_out: vec![None; n],
        feeds: vec![Vec::new(); n],
        conds: vec![None; n],
        calls,
        placed_calls: 0,
        depth_arg: None,
    };
    filler.place_phis();
    for b in filler.dom.rpo.clone() {
        filler.fill_block(b);
    }
    filler.phi_arguments();
    filler.f
}

struct Filler<'a> {
    e: &'a mut dyn Entropy,
    config: &'a IrGenConfig,
    skeleton: &'a Skeleton,
    f: Function,
    dom: DomTree,
    /// The values each block defines (phis, then instructions), in order.
    defs: Vec<Vec<Value>>,
    /// Each block's phis other than the fuel phi.
    phis: Vec<Vec<Value>>,
    /// The fuel on entry to each block and on its outgoing edges.
    fuel_in: Vec<Option<Value>>,
    fuel_out: Vec<Option<Value>>,
    /// Values made only to feed the phis on a block's outgoing edges.
    feeds: Vec<Vec<Value>>,
    /// The condition of each block's `br`.
    conds: Vec<Option<Value>>,
    calls: Option<&'a Calls>,
    placed_calls: u64,
    /// In a helper, `d - 1`, defined in the entry block.
    depth_arg: Option<Value>,
}

impl Filler<'_> {
    /// Pass 1: phi destinations.
    fn place_phis(&mut self) {
        for b in 0..self.f.blocks.len() {
            let npreds = self.skeleton.preds[b].len();
            let extra = match npreds {
                0 => 0,
                1 if self.e.chance(self.config.one_arg_phi_percent) => 1 + self.e.below(2),
                1 => 0,
                _ => self.e.range(0, self.config.max_phis),
            };
            let block = Block(b as u32);
            if npreds >= 2 {
                let fuel = self.f.new_value();
                self.f.blocks[block].phis.push(Phi { dest: fuel, args: Vec::new() });
                self.fuel_in[b] = Some(fuel);
                self.defs[b].push(fuel);
            }
            for _ in 0..extra {
                let v = self.f.new_value();
                self.f.blocks[block].phis.push(Phi { dest: v, args: Vec::new() });
                self.phis[b].push(v);
                self.defs[b].push(v);
            }
        }
    }

    /// The parameters and the values of the strict dominators of `b`.
    fn dominating_values(&self, b: Block) -> Vec<Value> {
        let mut out = self.f.params.clone();
        let mut cur = self.dom.idom[b];
        while let Some(d) = cur {
            out.extend_from_slice(&self.defs[d.0 as usize]);
            cur = self.dom.idom[d];
        }
        out
    }

    /// Every value available at the end of `b`.
    fn values_at_end(&self, b: Block) -> Vec<Value> {
        let mut out = self.dominating_values(b);
        out.extend_from_slice(&self.defs[b.0 as usize]);
        out
    }

    fn pick(&mut self, from: &[Value]) -> Value {
        // Half the time one of the latest values: short live ranges too.
        let n = from.len() as u64;
        let i = if self.e.chance(50) { n - 1 - self.e.below(n.min(3)) } else { self.e.below(n) };
        from[i as usize]
    }

    /// Appends `dest = op` to `b` and returns `dest`.
    fn def(&mut self, b: Block, op: Op) -> Value {
        let v = self.f.new_value();
        self.f.blocks[b].insts.push(Inst { dest: Some(v), op });
        self.defs[b.0 as usize].push(v);
        v
    }

    fn effect(&mut self, b: Block, op: Op) {
        self.f.blocks[b].insts.push(Inst { dest: None, op });
    }

    fn small_const(&mut self) -> i64 {
        match self.e.below(10) {
            0 => self.e.bits() as i64,
            1 => [i64::MIN, i64::MAX, -1, 63, 64][self.e.below(5) as usize],
            _ => self.e.range(0, 24) as i64 - 8,
        }
    }

    /// An address: mostly a fresh constant from 0 to 7, so that loads and
    /// stores meet at the same words.
    fn address(&mut self, b: Block) -> Value {
        if self.e.chance(70) {
            let a = self.e.below(8) as i64;
            self.def(b, Op::Const(a))
        } else {
            let avail = self.values_at_end(b);
            self.pick(&avail)
        }
    }

    /// Pass 2: the instructions and the terminator of `b`.
    fn fill_block(&mut self, b: Block) {
        let bi = b.0 as usize;
        if self.fuel_in[bi].is_none() {
            self.fuel_in[bi] = match self.skeleton.preds[bi].first() {
                // The single predecessor dominates `b`: it came first.
                Some(&p) => self.fuel_out[p.0 as usize],
                None => Some(self.initial_fuel(b)),
            };
        }
        if self.skeleton.preds[bi].is_empty() && self.calls.is_some_and(|c| c.in_helper) {
            let one = self.def(b, Op::Const(1));
            self.depth_arg = Some(self.def(b, Op::Binary(BinOp::Sub, self.f.params[0], one)));
        }
        let fuel = self.fuel_in[bi].expect("fuel on entry");
        // `out` some phis, so the trace shows what flowed in.
        for v in self.phis[bi].clone() {
            if self.e.chance(45) {
                self.effect(b, Op::Out(v));
            }
        }
        let count = self.e.range(0, self.config.max_insts);
        for _ in 0..count {
            self.random_inst(b);
        }
        // Values only for the phis of a successor, dead after the edge.
        for s in self.skeleton.exits[bi].successors() {
            if !self.phis[s.0 as usize].is_empty() && self.e.chance(40) {
                let avail = self.values_at_end(b);
                let (x, y) = (self.pick(&avail), self.pick(&avail));
                let op = SAFE_BINOPS[self.e.below(SAFE_BINOPS.len() as u64) as usize];
                let v = self.def(b, Op::Binary(op, x, y));
                self.feeds[bi].push(v);
            }
        }
        self.fuel_out[bi] = Some(fuel);
        let term = match self.skeleton.exits[bi] {
            Exit::Return => {
                let avail = self.values_at_end(b);
                Terminator::Return(self.pick(&avail))
            }
            Exit::Jump(t) => Terminator::Jump(t),
            Exit::Branch { then_dest, else_dest, guard } => {
                let cond = match guard {
                    Guard::None => self.condition(b),
                    Guard::Then | Guard::Else => self.guard(b, fuel, guard),
                };
                self.conds[bi] = Some(cond);
                Terminator::Branch { cond, then_dest, else_dest }
            }
        };
        self.f.blocks[b].term = term;
    }

    /// The fuel of `b0`: a constant, or a parameter masked to `0..=31`
    /// (`0..=7` in a module with calls; never in a helper).
    fn initial_fuel(&mut self, b: Block) -> Value {
        // A helper's depth parameter decides its calls, so its fuel is a
        // constant; with calls, a parameter gives at most 7.
        let helper = self.calls.is_some_and(|c| c.in_helper);
        if !self.f.params.is_empty() && !helper && self.e.chance(30) {
            let p = self.f.params[self.e.below(self.f.params.len() as u64) as usize];
            let mask = self.def(b, Op::Const(if self.calls.is_some() { 7 } else { 31 }));
            self.def(b, Op::Binary(BinOp::And, p, mask))
        } else {
            let fuel = self.e.range(0, self.config.max_fuel) as i64;
            self.def(b, Op::Const(fuel))
        }
    }

    fn random_inst(&mut self, b: Block) {
        let avail = self.values_at_end(b);
        let call = match self.calls {
            Some(c) if self.placed_calls < c.max_calls && !c.callees.is_empty() => 3,
            _ => 0,
        };
        match self.e.weighted(&[2, 6, 1, 2, 2, 2, 1, call]) {
            0 => {
                let c = self.small_const();
                self.def(b, Op::Const(c));
            }
            1 => {
                let op = SAFE_BINOPS[self.e.below(SAFE_BINOPS.len() as u64) as usize];
                let (x, y) = (self.pick(&avail), self.pick(&avail));
                self.def(b, Op::Binary(op, x, y));
            }
            2 => {
                let op = UnOp::ALL[self.e.below(3) as usize];
                let x = self.pick(&avail);
                self.def(b, Op::Unary(op, x));
            }
            3 => {
                let a = self.address(b);
                self.def(b, Op::Load(a));
            }
            4 => {
                let a = self.address(b);
                let v = self.pick(&avail);
                self.effect(b, Op::Store { addr: a, value: v });
            }
            5 => {
                let v = self.pick(&avail);
                self.effect(b, Op::Out(v));
            }
            7 => self.call(b),
            _ => {
                let op = if self.e.chance(50) { BinOp::Div } else { BinOp::Rem };
                let x = self.pick(&avail);
                let d = if self.e.chance(self.config.trap_percent) {
                    self.pick(&avail)
                } else if self.e.chance(50) {
                    let c = self.e.range(2, 9) as i64;
                    self.def(b, Op::Const(c))
                } else {
                    // (y & 15) | 1: odd, from 1 to 15, never 0 or -1.
                    let y = self.pick(&avail);
                    let m = self.def(b, Op::Const(15));
                    let t = self.def(b, Op::Binary(BinOp::And, y, m));
                    let one = self.def(b, Op::Const(1));
                    self.def(b, Op::Binary(BinOp::Or, t, one))
                };
                self.def(b, Op::Binary(op, x, d));
            }
        }
    }

    /// A call of a helper in `b`, in one of the shapes of `ir_calls.rs`: its
    /// arguments drawn from the values available, or the function's own
    /// parameters permuted; many values made before it and all used after
    /// it; its result used by later instructions or left unused.
    fn call(&mut self, b: Block) {
        let Some(calls) = self.calls else { return };
        self.placed_calls += 1;
        let (name, arity) = calls.callees[self.e.below(calls.callees.len() as u64) as usize].clone();
        let depth = match self.depth_arg {
            Some(d) if calls.in_helper => d,
            _ => {
                let d = self.e.range(0, calls.max_depth) as i64;
                self.def(b, Op::Const(d))
            }
        };
        let pressure = self.e.chance(25);
        let mut live = Vec::new();
        if pressure {
            // Eight to twelve values, all live across the call.
            for _ in 0..self.e.range(8, 12) {
                let avail = self.values_at_end(b);
                let (x, y) = (self.pick(&avail), self.pick(&avail));
                let op = SAFE_BINOPS[self.e.below(SAFE_BINOPS.len() as u64) as usize];
                live.push(self.def(b, Op::Binary(op, x, y)));
            }
        }
        let own: Vec<Value> = self.f.params.iter().copied().skip(usize::from(calls.in_helper)).collect();
        let mut args = vec![depth];
        if own.len() >= 2 && self.e.chance(40) {
            // The caller's parameters in another order: reversed, then
            // cycled to fill the arity.
            let mut order: Vec<Value> = own.iter().rev().copied().collect();
            let turn = self.e.below(order.len() as u64) as usize;
            order.rotate_left(turn);
            args.extend(order.iter().cycle().take(arity - 1));
        } else {
            let avail = self.values_at_end(b);
            for _ in 1..arity {
                args.push(self.pick(&avail));
            }
        }
        let op = Op::Call(Box::new(Call { callee: name, args }));
        if self.e.chance(25) {
            // The result is never read.
            let v = self.f.new_value();
            self.f.blocks[b].insts.push(Inst { dest: Some(v), op });
        } else {
            self.def(b, op);
        }
        if let Some((&first, rest)) = live.split_first() {
            let mut acc = first;
            for &v in rest {
                acc = self.def(b, Op::Binary(BinOp::Add, acc, v));
            }
            self.effect(b, Op::Out(acc));
        }
    }

    /// The condition of an unguarded `br`: a fresh comparison, a value from
    /// a dominator (which then may also reach a join from another path:
    /// the branch-use shape), a phi of the block, or any value.
    fn condition(&mut self, b: Block) -> Value {
        let older = self.dominating_values(b);
        let phis = self.phis[b.0 as usize].clone();
        match self.e.weighted(&[4, 3, if phis.is_empty() { 0 } else { 2 }, 1]) {
            0 => {
                let avail = self.values_at_end(b);
                let op = COMPARISONS[self.e.below(6) as usize];
                let (x, y) = (self.pick(&avail), self.pick(&avail));
                self.def(b, Op::Binary(op, x, y))
            }
            1 if !older.is_empty() => self.pick(&older),
            2 => self.pick(&phis),
            _ => {
                let avail = self.values_at_end(b);
                self.pick(&avail)
            }
        }
    }

    /// The decrement and test of a guarded edge: `fuel' = fuel - 1`, and a
    /// condition that takes the guarded edge only when `fuel >= 1` (and,
    /// mostly, some random comparison holds). Sets the block's outgoing
    /// fuel to `fuel'`.
    fn guard(&mut self, b: Block, fuel: Value, side: Guard) -> Value {
        let one = self.def(b, Op::Const(1));
        let next = self.def(b, Op::Binary(BinOp::Sub, fuel, one));
        self.fuel_out[b.0 as usize] = Some(next);
        let positive = self.def(b, Op::Binary(BinOp::Ge, fuel, one));
        let take = if self.e.chance(70) {
            let avail = self.values_at_end(b);
            let op = COMPARISONS[self.e.below(6) as usize];
            let (x, y) = (self.pick(&avail), self.pick(&avail));
            let r = self.def(b, Op::Binary(op, x, y));
            self.def(b, Op::Binary(BinOp::And, positive, r))
        } else {
            positive
        };
        match side {
            // `br take, back, forward`.
            Guard::Then => take,
            // `br !take, forward, back`: back exactly when `take` holds.
            _ => self.def(b, Op::Unary(UnOp::Not, take)),
        }
    }

    /// Pass 3: the phi arguments.
    fn phi_arguments(&mut self) {
        for bi in 0..self.f.blocks.len() {
            let b = Block(bi as u32);
            let preds = self.skeleton.preds[bi].clone();
            let ends: Vec<Vec<Value>> = preds.iter().map(|&p| self.values_at_end(p)).collect();
            let phis = self.phis[bi].clone();
            let mut args: Vec<Vec<Value>> = Vec::new();
            for _ in &phis {
                let mut row = Vec::with_capacity(preds.len());
                for (i, &p) in preds.iter().enumerate() {
                    row.push(self.phi_argument(b, p, &ends[i]));
                }
                args.push(row);
            }
            // Swaps and rotations among the phis on back edges.
            for (i, &p) in preds.iter().enumerate() {
                if phis.len() >= 2 && self.dom.dominates(b, p) && self.e.chance(45) {
                    let k = if phis.len() >= 3 && self.e.chance(50) { 3 } else { 2 };
                    let mut chosen: Vec<usize> = (0..phis.len()).collect();
                    for j in 0..k {
                        let r = j + self.e.below((chosen.len() - j) as u64) as usize;
                        chosen.swap(j, r);
                    }
                    for j in 0..k {
                        args[chosen[j]][i] = phis[chosen[(j + 1) % k]];
                    }
                }
            }
            // Boissinot et al.'s Fig. 1: `br u` in a predecessor P, `u`
            // into a phi from another predecessor, something else from P.
            for (i, &p) in preds.iter().enumerate() {
                let Some(u) = self.conds[p.0 as usize] else { continue };
                if phis.is_empty() || !self.e.chance(40) {
                    continue;
                }
                let others: Vec<usize> = (0..preds.len()).filter(|&j| preds[j] != p && ends[j].contains(&u)).collect();
                if others.is_empty() {
                    continue;
                }
                let k = self.e.below(phis.len() as u64) as usize;
                let j = others[self.e.below(others.len() as u64) as usize];
                args[k][j] = u;
                for (m, &q) in preds.iter().enumerate() {
                    if q == p && args[k][m] == u {
                        let not_u: Vec<Value> = ends[m].iter().copied().filter(|&v| v != u).collect();
                        if !not_u.is_empty() {
                            args[k][m] = self.pick(&not_u);
                        }
                    }
                }
                let _ = i;
            }
            let block = &mut self.f.blocks[b];
            for phi in block.phis.iter_mut() {
                if Some(phi.dest) == self.fuel_in[bi] {
                    phi.args = preds.iter().map(|&p| self.fuel_out[p.0 as usize].expect("fuel out")).collect();
                } else {
                    let k = phis.iter().position(|&v| v == phi.dest).expect("a phi of the block");
                    phi.args = std::mem::take(&mut args[k]);
                }
            }
        }
    }

    /// One argument of a phi of `b` on an edge from `p`.
    fn phi_argument(&mut self, b: Block, p: Block, end: &[Value]) -> Value {
        let pi = p.0 as usize;
        let feeds = self.feeds[pi].clone();
        let cond = self.conds[pi];
        let own = if self.dom.dominates(b, p) { self.phis[b.0 as usize].clone() } else { Vec::new() };
        let w = [
            if feeds.is_empty() { 0 } else { 3 },
            if cond.is_some() { 2 } else { 0 },
            if own.is_empty() { 0 } else { 2 },
            4,
        ];
        match self.e.weighted(&w) {
            0 => self.pick(&feeds),
            1 => cond.expect("weighted"),
            2 => self.pick(&own),
            _ => self.pick(end),
        }
    }
}
