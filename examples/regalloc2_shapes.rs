//! regalloc2 on three shapes of function where its own passes grow
//! quadratically, written against the regalloc2 crate's public API only
//! (nothing of ssaref), so that it can be handed to regalloc2's maintainers
//! as it is: `cargo run --release --example regalloc2_shapes [N ...]`.
//!
//! - `nested-loops N`: N `while` loops nested in one another, one value
//!   counted up in the innermost. Every loop header has a block parameter.
//! - `wide-join N`: N tests in a chain, each with a block that jumps to one
//!   join with its own value: a join of N + 1 predecessors and a block
//!   parameter of as many arguments.
//! - `params N`: N values defined at the entry (as parameters are) and
//!   added up one after another: N²/2 live at the program points in all,
//!   with four registers.
//!
//! For each shape and size it prints the time of `regalloc2::run` (Ion,
//! SSA validation off, best of three) and the growth against linear: the
//! time ratio divided by the size ratio to the previous size, 1 for a linear
//! pass. docs/scaling.md ("regalloc2") says where the time goes, and its
//! evidence what patching the two loops and the cutoff changes.

use regalloc2::{
    Block, Function, Inst, InstRange, MachineEnv, Operand, PReg, PRegSet, RegClass, RegallocOptions, VReg,
};
use std::time::{Duration, Instant};

/// One block of the function being built.
struct BlockData {
    insts: Vec<(Vec<Operand>, Term)>,
    succs: Vec<Block>,
    preds: Vec<Block>,
    params: Vec<VReg>,
    /// The block arguments passed to each successor, in `succs` order.
    args: Vec<Vec<VReg>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Term {
    No,
    Branch,
    Ret,
}

/// A function in regalloc2's terms: blocks laid out in order, each block's
/// instructions contiguous.
struct Func {
    blocks: Vec<BlockData>,
    ranges: Vec<InstRange>,
    operands: Vec<Vec<Operand>>,
    terms: Vec<Term>,
    vregs: usize,
}

impl Func {
    fn finish(blocks: Vec<BlockData>, vregs: usize) -> Func {
        let (mut ranges, mut operands, mut terms) = (Vec::new(), Vec::new(), Vec::new());
        for b in &blocks {
            let start = operands.len();
            for (ops, term) in &b.insts {
                operands.push(ops.clone());
                terms.push(*term);
            }
            ranges.push(InstRange::new(Inst::new(start), Inst::new(operands.len())));
        }
        Func { blocks, ranges, operands, terms, vregs }
    }
}

impl Function for Func {
    fn num_insts(&self) -> usize {
        self.operands.len()
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry_block(&self) -> Block {
        Block::new(0)
    }
    fn block_insns(&self, block: Block) -> InstRange {
        self.ranges[block.index()]
    }
    fn block_succs(&self, block: Block) -> &[Block] {
        &self.blocks[block.index()].succs
    }
    fn block_preds(&self, block: Block) -> &[Block] {
        &self.blocks[block.index()].preds
    }
    fn block_params(&self, block: Block) -> &[VReg] {
        &self.blocks[block.index()].params
    }
    fn is_ret(&self, insn: Inst) -> bool {
        self.terms[insn.index()] == Term::Ret
    }
    fn is_branch(&self, insn: Inst) -> bool {
        self.terms[insn.index()] == Term::Branch
    }
    fn branch_blockparams(&self, block: Block, _insn: Inst, succ_idx: usize) -> &[VReg] {
        &self.blocks[block.index()].args[succ_idx]
    }
    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        &self.operands[insn.index()]
    }
    fn inst_clobbers(&self, _insn: Inst) -> PRegSet {
        PRegSet::empty()
    }
    fn num_vregs(&self) -> usize {
        self.vregs
    }
    fn spillslot_size(&self, _regclass: RegClass) -> usize {
        1
    }
}

fn v(i: usize) -> VReg {
    VReg::new(i, RegClass::Int)
}

/// A block with its instructions; edges are added by [`edge`].
fn block(insts: Vec<(Vec<Operand>, Term)>, params: Vec<VReg>) -> BlockData {
    BlockData { insts, succs: Vec::new(), preds: Vec::new(), params, args: Vec::new() }
}

fn edge(blocks: &mut [BlockData], from: usize, to: usize, args: Vec<VReg>) {
    blocks[from].succs.push(Block::new(to));
    blocks[from].args.push(args);
    blocks[to].preds.push(Block::new(from));
}

/// `nested-loops n`, laid out in reverse postorder with each loop's exit
/// right after its header, as a compiler would lay it out: `entry, h_0,
/// exit_0, pre_1, h_1, exit_1, ..., pre_{n-1}, h_{n-1}, exit_{n-1}, body`.
/// Value numbers follow the layout, in the order a compiler creates them:
/// `v0 = n`, `v1` the initial count, then each header's parameter and
/// comparison, then the body's increment.
fn nested_loops(n: usize) -> Func {
    let (use_, def) = (Operand::reg_use, Operand::reg_def);
    let (limit, init) = (v(0), v(1));
    let param = |k: usize| v(2 + 2 * k);
    let cond = |k: usize| v(3 + 2 * k);
    let incremented = v(2 + 2 * n);
    // Block indices, k = 0..n (`pre` from 1).
    let header = |k: usize| 1 + 3 * k;
    let exit = |k: usize| 2 + 3 * k;
    let pre = |k: usize| 3 * k;
    let body = 3 * n;
    let jump = || (vec![], Term::Branch);
    let mut blocks = vec![block(vec![(vec![def(limit), def(init)], Term::No), jump()], vec![])];
    for k in 0..n {
        if k > 0 {
            blocks.push(block(vec![jump()], vec![]));
        }
        let compare = vec![use_(param(k)), use_(limit), def(cond(k))];
        blocks.push(block(vec![(compare, Term::No), (vec![use_(cond(k))], Term::Branch)], vec![param(k)]));
        // Leaving loop k goes round loop k - 1 again; leaving loop 0 returns.
        let last = if k == 0 { (vec![use_(param(0))], Term::Ret) } else { jump() };
        blocks.push(block(vec![last], vec![]));
    }
    blocks.push(block(vec![(vec![use_(param(n - 1)), def(incremented)], Term::No), jump()], vec![]));
    edge(&mut blocks, 0, header(0), vec![init]);
    for k in 0..n {
        // The header's branch: into the loop (the next header's pre-block, or
        // the body), else out of it.
        if k + 1 < n {
            edge(&mut blocks, header(k), pre(k + 1), vec![]);
            edge(&mut blocks, pre(k + 1), header(k + 1), vec![param(k)]);
        } else {
            edge(&mut blocks, header(k), body, vec![]);
        }
        edge(&mut blocks, header(k), exit(k), vec![]);
        if k > 0 {
            edge(&mut blocks, exit(k), header(k - 1), vec![param(k)]);
        }
    }
    edge(&mut blocks, body, header(n - 1), vec![incremented]);
    Func::finish(blocks, 3 + 2 * n)
}

/// `wide-join n`: `entry` defines `p`; test `i` (block `1 + 2i`) compares
/// `p` with `i` and goes to its own block (`2 + 2i`), which defines `x_i`
/// and jumps to the join with it, or to the next test; the last test's
/// else block defines `x_n`; the join returns its parameter.
fn wide_join(n: usize) -> Func {
    let (use_, def) = (Operand::reg_use, Operand::reg_def);
    let p = v(0);
    let cond = |i: usize| v(1 + 2 * i);
    let value = |i: usize| v(2 + 2 * i); // i = 0..=n
    let joined = v(3 + 2 * n);
    let test = |i: usize| 1 + 2 * i; // i = 0..=n; test n is the else block
    let then = |i: usize| 2 + 2 * i;
    let join = 2 + 2 * n;
    let mut blocks = Vec::new();
    blocks.push(block(vec![(vec![def(p)], Term::No), (vec![], Term::Branch)], vec![]));
    for i in 0..n {
        blocks.push(block(vec![(vec![use_(p), def(cond(i))], Term::No), (vec![use_(cond(i))], Term::Branch)], vec![]));
        blocks.push(block(vec![(vec![def(value(i))], Term::No), (vec![], Term::Branch)], vec![]));
    }
    blocks.push(block(vec![(vec![def(value(n))], Term::No), (vec![], Term::Branch)], vec![]));
    blocks.push(block(vec![(vec![use_(joined)], Term::Ret)], vec![joined]));
    edge(&mut blocks, 0, test(0), vec![]);
    for i in 0..n {
        edge(&mut blocks, test(i), then(i), vec![]);
        edge(&mut blocks, test(i), test(i + 1), vec![]);
        edge(&mut blocks, then(i), join, vec![value(i)]);
    }
    edge(&mut blocks, test(n), join, vec![value(n)]);
    Func::finish(blocks, 4 + 2 * n)
}

/// `params n`: the entry defines `n` values at once in any location (as
/// function parameters are), then adds them up one after another and
/// returns the sum: after the `k`-th addition `n - k` of them are live.
fn params(n: usize) -> Func {
    let (use_, def) = (Operand::reg_use, Operand::reg_def);
    let param = |i: usize| v(i);
    let sum = |i: usize| v(n + i); // i = 0..=n
    let mut insts = vec![((0..n).map(|i| Operand::any_def(param(i))).collect(), Term::No)];
    insts.push((vec![def(sum(0))], Term::No));
    for i in 0..n {
        insts.push((vec![use_(sum(i)), use_(param(i)), def(sum(i + 1))], Term::No));
    }
    insts.push((vec![use_(sum(n))], Term::Ret));
    Func::finish(vec![block(insts, vec![])], 2 * n + 1)
}

/// Four registers of class `Int`, no scratch register.
fn machine_env() -> MachineEnv {
    let mut int = PRegSet::empty();
    for i in 0..4 {
        int.add(PReg::new(i, RegClass::Int));
    }
    MachineEnv {
        preferred_regs_by_class: [int, PRegSet::empty(), PRegSet::empty()],
        non_preferred_regs_by_class: [PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: Vec::new(),
    }
}

/// Allocates `f`, best of three runs; checks the output with regalloc2's
/// own checker (outside the timed region).
fn time_allocation(f: &Func) -> Duration {
    let env = machine_env();
    let options = RegallocOptions { validate_ssa: false, ..RegallocOptions::default() };
    let mut best = Duration::MAX;
    let mut output = None;
    for _ in 0..3 {
        let start = Instant::now();
        let out = regalloc2::run(f, &env, &options).expect("regalloc2 allocates the shape");
        best = best.min(start.elapsed());
        output = Some(out);
    }
    let output = output.expect("three runs");
    let mut checker = regalloc2::checker::Checker::new(f, &env);
    checker.prepare(&output);
    checker.run().expect("regalloc2's checker accepts the allocation");
    best
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("sizes are numbers")).collect();
    let sizes = if sizes.is_empty() { vec![1000, 3000, 10000, 30000] } else { sizes };
    println!("regalloc2::run (Ion), best of 3; growth = time ratio / size ratio to the previous size");
    println!("{:<14} {:>8} {:>10} {:>8}", "shape", "size", "ms", "growth");
    type Build = fn(usize) -> Func;
    let shapes =
        [("nested-loops", nested_loops as Build), ("wide-join", wide_join as Build), ("params", params as Build)];
    for (name, build) in shapes {
        let mut previous: Option<(usize, f64)> = None;
        for &n in &sizes {
            let ms = time_allocation(&build(n)).as_secs_f64() * 1e3;
            let growth = previous.map(|(m, t)| format!("{:.2}", (ms / t) / (n as f64 / m as f64))).unwrap_or_default();
            println!("{name:<14} {n:>8} {ms:>10.2} {growth:>8}");
            previous = Some((n, ms));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both shapes are valid regalloc2 input (SSA validation on) and their
    /// allocations pass regalloc2's checker, at a few sizes.
    #[test]
    fn shapes_allocate_and_check() {
        for n in [1, 2, 5, 40] {
            for f in [nested_loops(n), wide_join(n), params(n)] {
                let env = machine_env();
                let options = RegallocOptions { validate_ssa: true, ..RegallocOptions::default() };
                let out = regalloc2::run(&f, &env, &options).expect("allocates");
                let mut checker = regalloc2::checker::Checker::new(&f, &env);
                checker.prepare(&out);
                checker.run().expect("checks");
            }
        }
    }
}
