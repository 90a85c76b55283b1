//! Reduction of SSA-level cases (`*.ssa`, `ssaref reduce`): the candidate
//! edits of an [`IrCase`], for the greedy reducer of `reduce.rs`.
//!
//! A `.ssa` case is an SSA module and the arguments of its `main`; its
//! verdict is `differential::differential_ssa` (every back end against the
//! oracle's run of the SSA itself), and a candidate is kept only when it
//! fails with the same `reduce::Failure` (the same first failing stage up
//! to K, the same kind of wrong result; panics compared with `vN`/`bN`
//! normalized) — the predicate of source-level reduction.
//!
//! The edits, on `main`, most aggressive first:
//! - drop another function of the module;
//! - empty a block: delete all its instructions;
//! - bypass a block `B` (not the entry) towards one of its successors `S`:
//!   `B`'s other outgoing edge (if any) is dropped, every predecessor of `B`
//!   jumps to `S` instead, and `S`'s phis take, on each new edge, what they
//!   took from `B`, read through `B`'s phis; `B` is then unreachable;
//! - end a block with `ret 0`, dropping its outgoing edges;
//! - merge a block into its only predecessor when that predecessor jumps
//!   to it (one-argument phis become their argument);
//! - simplify a branch to a jump to one of its successors, dropping the
//!   other edge and the phi operands it carried;
//! - delete a phi, its uses replaced by one of its operands or by 0;
//! - delete an instruction, its uses replaced by one of its operands or by
//!   the constant 0 or 1;
//! - drop a parameter of `main` (uses replaced by 0) with its argument;
//!   zero or halve an argument.
//!
//! The constants that replace a value are defined at the top of the entry
//! block, which dominates every use (an existing `const 0` there is
//! reused). After each edit, blocks no longer reachable are removed with
//! their edges and phi operands (values they defined become 0 where still
//! used), blocks and values are renumbered densely in order, and the
//! result must pass the SSA verifier; an edit that fails it (a use no
//! longer dominated by its definition, say) is no candidate. Every
//! candidate is strictly smaller in the order of [`measure`] (blocks,
//! edges, phis and non-constant instructions, constants, then the bits of
//! constants and arguments), so the reduction reaches a fixpoint.

use crate::analysis::verifier::verify_module;
use crate::differential::{differential_ssa_catching, DiffConfig, Verdict};
use crate::entity::{EntityRef, EntityVec};
use crate::generate::ssa::IrCase;
use crate::ir::{Block, BlockData, Function, Inst, Module, Op, Terminator, Value};
use crate::oracle::Oracle;
use crate::reduce::source::{reduce_with, CandidateList, ReduceConfig, ReduceError, Reducible, Reduction};

/// Reduces a failing `.ssa` case (see `reduce.rs` for the algorithm):
/// every candidate runs [`DiffConfig::standard`] with regalloc2 through
/// `differential::differential_ssa`.
pub fn reduce_ssa(
    case: &IrCase,
    regs: &[usize],
    oracle: &dyn Oracle,
    config: &ReduceConfig,
) -> Result<Reduction<IrCase>, ReduceError> {
    reduce_with(case, regs, oracle, config, &DiffConfig::standard(regs, config.fuel).with_regalloc2())
}

/// What replaces the uses of a deleted value.
#[derive(Clone, Copy, Debug)]
enum Repl {
    /// The `i`-th operand of the deleted phi or instruction.
    Operand(usize),
    /// A constant defined at the top of the entry block.
    Const(i64),
}

/// One edit of `main` (blocks and indices of the case the edit was made
/// for).
#[derive(Clone, Copy, Debug)]
enum Edit {
    DropFunction(usize),
    ClearBlock(Block),
    /// Bypass the block towards its `n`-th successor.
    Bypass(Block, usize),
    /// End the block with `ret 0`.
    Return(Block),
    /// Append the block to its only predecessor, which jumps to it.
    Merge(Block),
    /// Turn the block's branch into a jump to its `n`-th successor.
    BranchToJump(Block, usize),
    DeletePhi(Block, usize, Repl),
    DeleteInst(Block, usize, Repl),
    DropParam(usize),
    SetArg(usize, i64),
}

/// The candidates of an SSA case.
pub struct SsaCandidates {
    base: IrCase,
    edits: Vec<Edit>,
}

impl CandidateList<IrCase> for SsaCandidates {
    fn len(&self) -> usize {
        self.edits.len()
    }

    fn get(&self, i: usize) -> Option<IrCase> {
        let edit = *self.edits.get(i)?;
        let mut case = self.base.clone();
        apply(&mut case, edit)?;
        if let Some(f) = main_mut(&mut case.module) {
            prune(f);
            renumber_values(f);
        }
        verify_module(&case.module).ok()?;
        case.module.main()?;
        (measure(&case) < measure(&self.base)).then_some(case)
    }
}

impl Reducible for IrCase {
    type Candidates = SsaCandidates;

    fn verdict(&self, oracle: &dyn Oracle, diff: &DiffConfig) -> Verdict {
        differential_ssa_catching(&self.module, &self.args, oracle, diff)
    }

    fn candidates(&self) -> SsaCandidates {
        SsaCandidates { base: self.clone(), edits: edits(self) }
    }

    fn same_as(&self, other: &Self) -> bool {
        self.module == other.module && self.args == other.args
    }

    fn size(&self) -> usize {
        self.module.functions.iter().map(|f| f.phi_count() + f.inst_count()).sum()
    }

    fn origin_mut(&mut self) -> &mut String {
        &mut self.origin
    }
}

/// The well-founded order every candidate goes down in: blocks, edges,
/// phis and non-constant instructions, constants, then the bits of the
/// constants and arguments (all functions of the module).
pub fn measure(case: &IrCase) -> (usize, usize, usize, usize, u64) {
    let bits = |c: i64| u64::from(64 - c.unsigned_abs().leading_zeros());
    let mut m = (0, 0, 0, 0, case.args.iter().map(|&a| bits(a)).sum::<u64>());
    for f in &case.module.functions {
        m.0 += f.blocks.len();
        for b in f.blocks.values() {
            m.1 += b.preds.len();
            m.2 += b.phis.len();
            for inst in &b.insts {
                match inst.op {
                    Op::Const(c) => {
                        m.3 += 1;
                        m.4 += bits(c);
                    }
                    _ => m.2 += 1,
                }
            }
        }
    }
    m
}

fn main_index(m: &Module) -> Option<usize> {
    m.functions.iter().position(|f| f.name == "main")
}

fn main_mut(m: &mut Module) -> Option<&mut Function> {
    let i = main_index(m)?;
    m.functions.get_mut(i)
}

/// The edits of a case, most aggressive first.
fn edits(case: &IrCase) -> Vec<Edit> {
    let mut out = Vec::new();
    let Some(mi) = main_index(&case.module) else { return out };
    out.extend((0..case.module.functions.len()).filter(|&i| i != mi).map(Edit::DropFunction));
    let f = &case.module.functions[mi];
    out.extend(f.blocks.iter().filter(|(_, d)| !d.insts.is_empty()).map(|(b, _)| Edit::ClearBlock(b)));
    for (b, d) in f.blocks.iter() {
        if !d.term.successors().is_empty() {
            out.push(Edit::Return(b));
        }
    }
    for (b, d) in f.blocks.iter() {
        if b != Function::ENTRY {
            out.extend((0..d.term.successors().len()).map(|n| Edit::Bypass(b, n)));
        }
    }
    for (b, d) in f.blocks.iter() {
        if let [p] = d.preds[..] {
            if p != b && f.blocks[p].term == Terminator::Jump(b) {
                out.push(Edit::Merge(b));
            }
        }
    }
    for (b, d) in f.blocks.iter() {
        if matches!(d.term, Terminator::Branch { .. }) {
            out.extend([Edit::BranchToJump(b, 0), Edit::BranchToJump(b, 1)]);
        }
    }
    for (b, d) in f.blocks.iter() {
        for (i, phi) in d.phis.iter().enumerate() {
            out.extend((0..phi.args.len()).map(|k| Edit::DeletePhi(b, i, Repl::Operand(k))));
            out.push(Edit::DeletePhi(b, i, Repl::Const(0)));
        }
    }
    for (b, d) in f.blocks.iter() {
        for (i, inst) in d.insts.iter().enumerate() {
            if inst.dest.is_none() {
                out.push(Edit::DeleteInst(b, i, Repl::Const(0)));
                continue;
            }
            out.extend((0..inst.op.args().len()).map(|k| Edit::DeleteInst(b, i, Repl::Operand(k))));
            out.extend([Edit::DeleteInst(b, i, Repl::Const(0)), Edit::DeleteInst(b, i, Repl::Const(1))]);
        }
    }
    out.extend((0..f.params.len()).map(Edit::DropParam));
    for (i, &a) in case.args.iter().enumerate() {
        if a != 0 {
            out.push(Edit::SetArg(i, 0));
            if a / 2 != 0 {
                out.push(Edit::SetArg(i, a / 2));
            }
        }
    }
    out
}

/// Applies an edit; `None` when it does not apply.
fn apply(case: &mut IrCase, edit: Edit) -> Option<()> {
    if let Edit::DropFunction(i) = edit {
        case.module.functions.remove(i);
        return Some(());
    }
    if let Edit::SetArg(i, a) = edit {
        *case.args.get_mut(i)? = a;
        return Some(());
    }
    let f = main_mut(&mut case.module)?;
    match edit {
        Edit::DropFunction(_) | Edit::SetArg(..) => unreachable!("handled above"),
        Edit::ClearBlock(b) => {
            f.blocks.get(b)?;
            let insts = std::mem::take(&mut f.blocks[b].insts);
            for d in insts.iter().filter_map(|i| i.dest) {
                replace_by_const(f, d, 0);
            }
        }
        Edit::Bypass(b, n) => bypass(f, b, n)?,
        Edit::Return(b) => {
            for n in (0..f.blocks.get(b)?.term.successors().len()).rev() {
                let to = f.blocks[b].term.successors()[n];
                let at = pred_index(f, b, n)?;
                remove_pred(f, to, at);
            }
            let zero = entry_const(f, 0);
            f.blocks[b].term = Terminator::Return(zero);
        }
        Edit::Merge(b) => merge(f, b)?,
        Edit::BranchToJump(b, n) => branch_to_jump(f, b, n)?,
        Edit::DeletePhi(b, i, repl) => {
            let phi = f.blocks.get(b)?.phis.get(i)?.clone();
            f.blocks[b].phis.remove(i);
            match repl {
                Repl::Operand(k) => replace_uses(f, phi.dest, *phi.args.get(k).filter(|&&a| a != phi.dest)?),
                Repl::Const(c) => replace_by_const(f, phi.dest, c),
            }
        }
        Edit::DeleteInst(b, i, repl) => {
            let inst = f.blocks.get(b)?.insts.get(i)?.clone();
            f.blocks[b].insts.remove(i);
            if let Some(d) = inst.dest {
                match repl {
                    Repl::Operand(k) => replace_uses(f, d, *inst.op.args().get(k)?),
                    Repl::Const(c) => replace_by_const(f, d, c),
                }
            }
        }
        Edit::DropParam(i) => {
            if i >= f.params.len() {
                return None;
            }
            let p = f.params.remove(i);
            replace_by_const(f, p, 0);
            if i < case.args.len() {
                case.args.remove(i);
            }
        }
    }
    Some(())
}

/// A value holding `c`, defined at the top of the entry block (an existing
/// `const c` there, else a new one).
fn entry_const(f: &mut Function, c: i64) -> Value {
    let entry = &f.blocks[Function::ENTRY];
    if let Some(v) = entry.insts.iter().find(|i| i.op == Op::Const(c)).and_then(|i| i.dest) {
        return v;
    }
    let v = f.new_value();
    f.blocks[Function::ENTRY].insts.insert(0, Inst { dest: Some(v), op: Op::Const(c) });
    v
}

/// Replaces every read of `old` by a constant `c` at the top of the entry
/// block, made only when `old` is read at all.
fn replace_by_const(f: &mut Function, old: Value, c: i64) {
    if is_read(f, old) {
        let by = entry_const(f, c);
        replace_uses(f, old, by);
    }
}

/// True when some phi, instruction or terminator reads `v`.
fn is_read(f: &Function, v: Value) -> bool {
    f.blocks.values().any(|d| {
        d.phis.iter().any(|p| p.args.contains(&v))
            || d.insts.iter().any(|i| i.op.args().contains(&v))
            || d.term.arg() == Some(v)
    })
}

/// Replaces every read of `old` by `new`.
fn replace_uses(f: &mut Function, old: Value, new: Value) {
    let map = |v: Value| if v == old { new } else { v };
    for d in f.blocks.values_mut() {
        for phi in &mut d.phis {
            phi.args.iter_mut().for_each(|a| *a = map(*a));
        }
        for inst in &mut d.insts {
            inst.op.map_args(map);
        }
        d.term.map_arg(map);
    }
}

/// The index in `to.preds` of the `n`-th outgoing edge of `from` (the
/// interpreter's convention: the second occurrence of `from` is the else
/// edge of `br c, to, to`).
fn pred_index(f: &Function, from: Block, n: usize) -> Option<usize> {
    let succs = f.blocks.get(from)?.term.successors();
    let to = *succs.get(n)?;
    let occurrence = succs[..n].iter().filter(|&&s| s == to).count();
    f.blocks.get(to)?.preds.iter().enumerate().filter(|(_, &p)| p == from).map(|(i, _)| i).nth(occurrence)
}

/// Removes entry `i` of `b`'s predecessors and the phi operands it carries.
fn remove_pred(f: &mut Function, b: Block, i: usize) {
    let d = &mut f.blocks[b];
    d.preds.remove(i);
    for phi in &mut d.phis {
        phi.args.remove(i);
    }
}

/// `br c, X, Y` of `b` becomes `jump` to its `keep`-th successor.
fn branch_to_jump(f: &mut Function, b: Block, keep: usize) -> Option<()> {
    let succs = f.blocks.get(b)?.term.successors();
    if succs.len() != 2 || keep > 1 {
        return None;
    }
    let drop = 1 - keep;
    let at = pred_index(f, b, drop)?;
    remove_pred(f, succs[drop], at);
    f.blocks[b].term = Terminator::Jump(succs[keep]);
    Some(())
}

/// Appends `b` to its only predecessor `p`, which jumps to it: `b`'s phis
/// (one argument each) become that argument, its instructions and
/// terminator move to `p`, and its successors see `p` where they saw `b`.
/// `b` is then unreachable.
fn merge(f: &mut Function, b: Block) -> Option<()> {
    let [p] = f.blocks.get(b)?.preds[..] else { return None };
    if p == b || f.blocks[p].term != Terminator::Jump(b) {
        return None;
    }
    for phi in f.blocks[b].phis.clone() {
        replace_uses(f, phi.dest, *phi.args.first()?);
    }
    let mut d = std::mem::replace(&mut f.blocks[b], BlockData::new(Value(0)));
    for s in d.term.successors() {
        f.blocks[s].preds.iter_mut().filter(|q| **q == b).for_each(|q| *q = p);
    }
    let pd = &mut f.blocks[p];
    pd.insts.append(&mut d.insts);
    pd.term = d.term;
    Some(())
}

/// Every predecessor of `b` goes to `b`'s `n`-th successor instead (see
/// the module comment).
fn bypass(f: &mut Function, b: Block, n: usize) -> Option<()> {
    if b == Function::ENTRY {
        return None;
    }
    if f.blocks.get(b)?.term.successors().len() == 2 {
        branch_to_jump(f, b, n)?;
    }
    let Terminator::Jump(s) = f.blocks[b].term else { return None };
    let preds = f.blocks[b].preds.clone();
    // A predecessor that already reaches `s` would give it two edges whose
    // order no longer matches the terminator's.
    if s == b || preds.iter().any(|&p| p == s || f.blocks[p].term.successors().contains(&s)) {
        return None;
    }
    let at = f.blocks[s].preds.iter().position(|&p| p == b)?;
    let b_phis = f.blocks[b].phis.clone();
    let through = |v: Value, k: usize| b_phis.iter().find(|phi| phi.dest == v).map_or(v, |phi| phi.args[k]);
    let sd = &mut f.blocks[s];
    sd.preds.splice(at..=at, preds.iter().copied());
    for phi in &mut sd.phis {
        let v = phi.args[at];
        phi.args.splice(at..=at, (0..preds.len()).map(|k| through(v, k)));
    }
    let mut seen = Vec::new();
    for &p in &preds {
        if !seen.contains(&p) {
            seen.push(p);
            f.blocks[p].term.map_successors(|t| if t == b { s } else { t });
        }
    }
    f.blocks[b].preds.clear();
    f.blocks[b].phis.clear();
    Some(())
}

/// Removes the blocks not reachable from the entry, with their edges and
/// phi operands; values they defined read as 0 where still used. Blocks
/// are renumbered in order.
fn prune(f: &mut Function) {
    let n = f.blocks.len();
    if n == 0 {
        return;
    }
    let mut reach = vec![false; n];
    let mut stack = vec![Function::ENTRY];
    reach[0] = true;
    while let Some(b) = stack.pop() {
        for s in f.succs(b) {
            if s.index() < n && !std::mem::replace(&mut reach[s.index()], true) {
                stack.push(s);
            }
        }
    }
    if reach.iter().all(|&r| r) {
        return;
    }
    let mut dead_values = Vec::new();
    for (b, d) in f.blocks.iter() {
        if !reach[b.index()] {
            dead_values.extend(d.phis.iter().map(|p| p.dest));
            dead_values.extend(d.insts.iter().filter_map(|i| i.dest));
        }
    }
    for b in f.blocks.keys() {
        if reach[b.index()] {
            while let Some(i) = f.blocks[b].preds.iter().position(|p| !reach[p.index()]) {
                remove_pred(f, b, i);
            }
        }
    }
    let mut new_index = vec![None; n];
    let mut blocks: EntityVec<Block, BlockData> = EntityVec::new();
    for (b, d) in f.blocks.iter() {
        if reach[b.index()] {
            new_index[b.index()] = Some(blocks.push(d.clone()));
        }
    }
    let renum = |b: Block| new_index.get(b.index()).copied().flatten().unwrap_or(b);
    for d in blocks.values_mut() {
        d.preds.iter_mut().for_each(|p| *p = renum(*p));
        d.term.map_successors(renum);
    }
    f.blocks = blocks;
    for v in dead_values {
        replace_by_const(f, v, 0);
    }
}

/// Renumbers the values densely in the order of their first mention
/// (parameters, then block by block).
fn renumber_values(f: &mut Function) {
    let mut map: Vec<Option<u32>> = vec![None; f.value_count as usize];
    let mut next = 0u32;
    f.for_each_value_mention(|v| {
        if let Some(slot) = map.get_mut(v.index()) {
            if slot.is_none() {
                *slot = Some(next);
                next += 1;
            }
        }
    });
    let m = |v: Value| map.get(v.index()).copied().flatten().map_or(v, Value);
    f.params.iter_mut().for_each(|p| *p = m(*p));
    for d in f.blocks.values_mut() {
        for phi in &mut d.phis {
            phi.dest = m(phi.dest);
            phi.args.iter_mut().for_each(|a| *a = m(*a));
        }
        for inst in &mut d.insts {
            inst.dest = inst.dest.map(m);
            inst.op.map_args(m);
        }
        d.term.map_arg(m);
    }
    f.value_count = next;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa_text::{parse_module, print_module};

    fn case(text: &str) -> IrCase {
        IrCase { module: parse_module(text).expect("parses"), args: vec![0, -1], origin: "test".into() }
    }

    const FIG1: &str = "fn main(v0, v1) {\nb0:\n    v2 = const 1\n    v3 = add v1, v2\n    br v0, b1, b2\n\
                        b1(b0):\n    jump b3\nb2(b0):\n    v6 = const 7\n    v4 = add v3, v6\n    br v3, b3, b4\n\
                        b3(b1, b2):\n    v5 = phi v3, v4\n    out v5\n    ret v5\nb4(b2):\n    out v3\n    out v4\n    ret v4\n}\n";

    #[test]
    fn every_candidate_is_valid_and_smaller() {
        let c = case(FIG1);
        let list = c.candidates();
        let valid: Vec<IrCase> = (0..list.len()).filter_map(|i| list.get(i)).collect();
        assert!(valid.len() >= 10, "{} candidates", valid.len());
        for v in &valid {
            verify_module(&v.module).expect("valid");
            assert!(measure(v) < measure(&c));
        }
    }

    #[test]
    fn bypass_reads_phis_through_the_bypassed_block() {
        // b1 is bypassed towards b3: b0 jumps to b3, and b3's phi takes v3
        // (what b1 forwarded) on the new edge.
        let c = case(FIG1);
        let mut got = c.clone();
        apply(&mut got, Edit::Bypass(Block(1), 0)).expect("applies");
        let f = main_mut(&mut got.module).expect("main");
        prune(f);
        verify_module(&got.module).expect("valid");
        let text = print_module(&got.module);
        assert!(text.contains("br v0, b2, b1"), "{text}");
        assert!(text.contains("b2(b0, b1):\n    v5 = phi v3, v4"), "{text}");
    }

    #[test]
    fn a_branch_becomes_a_jump_and_its_edge_goes() {
        let c = case(FIG1);
        let mut got = c.clone();
        apply(&mut got, Edit::BranchToJump(Block(2), 1)).expect("applies");
        let f = main_mut(&mut got.module).expect("main");
        prune(f);
        verify_module(&got.module).expect("valid");
        let text = print_module(&got.module);
        assert!(text.contains("b3(b1):\n    v5 = phi v3\n"), "{text}");
        assert!(text.contains("jump b4"), "{text}");
    }

    #[test]
    fn a_double_edge_loses_the_right_operand() {
        let text = "fn main(v0) {\nb0:\n    v1 = const 1\n    v2 = const 2\n    br v0, b1, b1\n\
                    b1(b0, b0):\n    v3 = phi v1, v2\n    ret v3\n}\n";
        let base = IrCase { module: parse_module(text).expect("parses"), args: vec![0], origin: "t".into() };
        // Keeping the else edge keeps the operand of the second occurrence.
        let mut got = base.clone();
        apply(&mut got, Edit::BranchToJump(Block(0), 1)).expect("applies");
        let out = print_module(&got.module);
        assert!(out.contains("b1(b0):\n    v3 = phi v2\n"), "{out}");
    }
}
