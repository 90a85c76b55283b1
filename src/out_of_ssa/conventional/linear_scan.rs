//! Linear-scan register allocation for out-of-ssa: Poletto and Sarkar,
//! "Linear Scan Register Allocation" (TOPLAS 1999), over lifetime intervals
//! with holes as in Traub, Holloway and Smith, "Quality and Speed in
//! Linear-scan Register Allocation" (PLDI 1998), with copy coalescing and
//! with spill code that fits inside the K registers.
//!
//! Needs: a out-of-ssa function (no phis; a value number is a variable that
//! may be defined several times; copies are `Op::Copy`), validated by
//! `conventional_alloc::validate_input`.
//!
//! # Positions and lifetime intervals
//!
//! The blocks are laid out in reverse post-order (unreachable blocks last).
//! Instruction `i` of the layout (the terminator of a block counts as one)
//! reads its operands at position `2i` and writes its result at `2i + 1`;
//! the parameters are written at position 1, before the first block. The
//! lifetime interval of a variable is the set of positions where it is
//! live or written, as a sorted list of closed ranges: holes are where the
//! variable is dead, for instance between its last use in one branch and a
//! redefinition. Block liveness comes from `liveness.rs`, whose dataflow
//! (upward-exposed uses and definitions per block) is the classical one
//! when there are no phis and is correct for variables defined several
//! times; the ranges inside a block come from one backward walk. Two
//! variables whose intervals share no position never hold values that are
//! needed at once, so they may share a register.
//!
//! # Coalescing ([`coalesce_copies`])
//!
//! Before allocation, for each copy `a = copy b` (in layout order), the
//! classes of `a` and `b` are merged when their intervals are disjoint,
//! and then every variable is renamed to its class and the copies that
//! became `c = copy c` are deleted. Disjoint intervals are the common case
//! of Boissinot et al.'s copies: `b` dies at the copy (its interval ends at
//! `2i`) and `a` starts there (at `2i + 1`). Renaming is sound because
//! between a write of a variable `x` and a read of it, `x` is live, so a
//! write of another member of its class there would be a position shared
//! by their intervals. Coalescing is a program transformation whose output
//! is again a out-of-ssa function: the allocator and the checker work on it,
//! and `tests/suite/conventional_alloc.rs` runs it in the oracle. The classes'
//! intervals are ordered sets merged small into large, with their clobber
//! tests cached (`class_intervals.rs`).
//!
//! # The scan, and spilling inside K
//!
//! There is no scratch register (architecture invariant), so a spilled
//! variable must still be in a register at each instruction that reads or
//! writes it. The design: a spilled variable lives in its own slot for its
//! whole lifetime, and each of its occurrences gets a *temporary interval*
//! of one position that takes part in the scan like any other interval: a
//! read at instruction `i` is a temporary at `2i` (reloaded just before the
//! instruction), a write is a temporary at `2i + 1` (stored right after).
//! A copy never needs a temporary for its destination: it stores its source
//! register (or the source's temporary) into the destination's slot, or
//! reloads the source's slot straight into the destination's register.
//! At any position at most two temporaries overlap (the two operands of a
//! binary operation or a store), and K is at least 2, so every temporary
//! can get a register by evicting variables; a temporary is never evicted.
//!
//! Intervals are scanned by increasing start (temporaries first on equal
//! starts). An interval gets the first register on which no interval
//! assigned so far overlaps it. When there is none, the cheapest register
//! to free is the one whose overlapping intervals (all variables; a
//! register with an overlapping temporary cannot be freed, nor one whose
//! variable has a temporary fixed to it at this position) have the least
//! total spill priority (use and definition count weighted by 10 per loop
//! level, divided by the interval's size). If the current interval is a
//! variable at least as cheap as that, it is spilled and its temporaries
//! join the scan (they start no earlier than it). Otherwise the variables
//! on that register are evicted, as in Poletto and Sarkar's scan, which
//! never goes back: each victim is spilled, its temporaries from the
//! current position on join the scan, and each of its temporaries before
//! the current position gets the victim's own register, which the victim
//! alone held at that position (an occurrence of a variable lies in its
//! interval). The scan thus visits each interval once; restarting it from
//! the beginning after each eviction, as LLVM's old linear scan
//! backtracked, would make it quadratic in the number of spills.
//!
//! # Renaming constraints
//!
//! [`linear_scan_pinned`] takes the variables Boissinot et al.'s
//! translation pinned to rax and rdx (§III-D, `renaming_constraints.rs`;
//! pins to a register at or above K are dropped, so `%` at K = 2 is a
//! general division). A pinned variable's interval may only get its
//! register; a spilled pinned operand of a constrained division gets a
//! temporary fixed to that register at the division. Each constrained
//! division also blocks, for everyone else, rdx at its read position (`cqo`
//! overwrites rdx before `idiv` reads the divisor, so neither the divisor
//! nor a variable live across may be there) and, for `%`, rax at its write
//! position (the unused quotient): these *clobbers* are positions where
//! the register is taken from the start and never freed (kept apart from
//! the assigned intervals, sorted by position, so that testing an interval
//! against them costs its ranges times a logarithm). Coalescing does not merge classes
//! pinned to different registers, nor a class whose interval meets a
//! clobber of the register of the pinned one. Scan order on equal starts:
//! fixed temporaries, temporaries, pinned variables, variables; a fixed
//! temporary never meets another fixed temporary or a clobber of its
//! register (dividend at the read position in rax, result at the write
//! position in rax for `/` and rdx for `%`), so the scan cannot get stuck.
//! Pins that clash (a pinned variable live across a clobber of its
//! register) only cost spills: such a variable cannot get its register and
//! is spilled. The emitter then writes each constrained division as
//! `MInst::FixedDiv` (and fails if the scan did not place its operands).
//!
//! # Calls
//!
//! Under the calling convention (`call_pins.rs`), [`linear_scan_in`] first
//! splits every call the translation did not pin, and the register
//! parameters, into short pinned variables (roles resolved at K by
//! `FixedReg::reg_at`; a role on the stack at K is no pin). A call at
//! instruction `i` clobbers, as fixed intervals of one position, rax at
//! `2i` (no register argument is in rax; the variables live across the
//! call meet it, and a stack argument read there takes another register)
//! and every other caller-saved register at `2i + 1` (only the result is
//! written there, in rax): a variable live across a call therefore gets
//! a callee-saved register or is spilled, the classic answer of linear
//! scan to clobbers. A spilled register argument gets a temporary fixed to
//! its argument register at `2i`, a spilled result one fixed to rax at
//! `2i + 1`, and a spilled register parameter one fixed to its argument
//! register at position 1, stored to its slot at the entry. Stack
//! arguments need no temporary: a call reads them from a register or a
//! slot. None of these fixed temporaries meets another on its register or
//! a clobber of it, so the scan cannot get stuck; the argument registers
//! are distinct and at most K - 1 (rax is none of them).
//!
//! # Emission and annotations
//!
//! `linear_scan_emit.rs` writes the code. Operations are annotated with
//! the variables they read and define; a
//! copy is one transfer (a move, a reload into the destination's register,
//! or a store into the destination's slot) with the copy annotation of
//! `alloc_checker.rs` ("out-of-ssa: copy annotations"); reloads into
//! temporaries and stores after operations carry nothing. Parameters
//! arrive in their register, or in their slot when spilled; they are all
//! written at position 1, so their intervals overlap and their locations
//! are distinct.

use crate::analysis::calling_convention::CallingConvention;
use crate::analysis::dominance::reverse_postorder;
use crate::analysis::liveness::compute_liveness;
use crate::analysis::loops::loop_depth;
use crate::entity::{EntityRef, EntityVec};
use crate::error::{ConventionalAllocError, PassError};
use crate::ir::{BinOp, Block, Function, Op, Terminator, Value};
use crate::mir::{Loc, MBlock, MFunction, MInst, MTerm, Reg, Slot, MAX_REGS, RAX, RDX};
use crate::out_of_ssa::class_intervals::ClassIntervals;
use crate::out_of_ssa::conventional::alloc_input::{fail, validate_input};
use crate::out_of_ssa::conventional::call_pins::{convention_for, split_for_convention};
use crate::out_of_ssa::conventional::linear_scan_emit::{def_pos, push, use_pos, Allocation, Emitter, Pos, PARAM_DEF};
use crate::out_of_ssa::renaming_constraints::{is_constrained, is_constrained_division, Pins};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// A set of positions: sorted, disjoint, non-adjacent closed ranges.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Ranges(Vec<(Pos, Pos)>);

impl Ranges {
    /// Sorts and merges `raw`.
    fn normalize(raw: Vec<(Pos, Pos)>) -> Ranges {
        Ranges(crate::analysis::intervals::normalize(raw))
    }

    fn point(p: Pos) -> Ranges {
        Ranges(vec![(p, p)])
    }

    /// The first position, or `None` when empty.
    pub fn start(&self) -> Option<Pos> {
        self.0.first().map(|r| r.0)
    }

    /// The last position, or `None` when empty.
    pub fn end(&self) -> Option<Pos> {
        self.0.last().map(|r| r.1)
    }

    /// The ranges, sorted.
    pub fn ranges(&self) -> &[(Pos, Pos)] {
        &self.0
    }

    /// True when the two sets share a position: each range of the set with
    /// fewer ranges is looked up in the other by binary search (a class of
    /// out-of-ssa renamed to one variable may have thousands of ranges, and
    /// the scan tests it against every interval that starts in its span).
    pub fn overlaps(&self, other: &Ranges) -> bool {
        let (few, many) = if self.0.len() <= other.0.len() { (&self.0, &other.0) } else { (&other.0, &self.0) };
        few.iter().any(|&(from, to)| {
            let i = many.partition_point(|r| r.1 < from);
            many.get(i).is_some_and(|r| r.0 <= to)
        })
    }

    /// The number of positions covered.
    fn size(&self) -> u64 {
        self.0.iter().map(|&(a, b)| u64::from(b - a) + 1).sum()
    }
}

/// The layout: the block order and the instruction index of each block's
/// first instruction and of its terminator.
struct Layout {
    order: Vec<Block>,
    first: EntityVec<Block, u32>,
    term: EntityVec<Block, u32>,
}

fn layout(f: &Function) -> Layout {
    let n = f.blocks.len();
    let mut order = reverse_postorder(n, Function::ENTRY, |b| f.succs(b));
    let mut seen = vec![false; n];
    for &b in &order {
        seen[b.index()] = true;
    }
    order.extend(f.blocks.keys().filter(|b| !seen[b.index()]));
    let mut first = EntityVec::from_elem(0, n);
    let mut term = EntityVec::from_elem(0, n);
    // Index 0 is the parameters' pseudo-instruction.
    let mut next = 1u32;
    for &b in &order {
        first[b] = next;
        next += f.blocks[b].insts.len() as u32;
        term[b] = next;
        next += 1;
    }
    Layout { order, first, term }
}

/// The lifetime interval of every variable (module documentation).
fn lifetime_intervals(f: &Function, lay: &Layout) -> EntityVec<Value, Ranges> {
    let liveness = compute_liveness(f);
    let n = f.value_count as usize;
    let mut raw: EntityVec<Value, Vec<(Pos, Pos)>> = EntityVec::from_elem(Vec::new(), n);
    for &p in &f.params {
        raw[p].push((PARAM_DEF, PARAM_DEF));
    }
    for &b in &lay.order {
        let data = &f.blocks[b];
        let (start, end) = (use_pos(lay.first[b]), def_pos(lay.term[b]));
        // The end of the current live range of each live variable.
        let mut live_end: HashMap<Value, Pos> = HashMap::new();
        for v in liveness.live_out[b].iter() {
            live_end.insert(v, end);
        }
        if let Some(a) = data.term.arg() {
            live_end.entry(a).or_insert(use_pos(lay.term[b]));
        }
        for (j, inst) in data.insts.iter().enumerate().rev() {
            let i = lay.first[b] + j as u32;
            if let Some(d) = inst.dest {
                let p = def_pos(i);
                let e = live_end.remove(&d).unwrap_or(p);
                raw[d].push((p, e));
            }
            inst.op.for_each_arg(|a| {
                live_end.entry(a).or_insert(use_pos(i));
            });
        }
        for (v, e) in live_end {
            let from = if b == Function::ENTRY && f.params.contains(&v) { PARAM_DEF } else { start };
            raw[v].push((from, e));
        }
    }
    raw.values().map(|r| Ranges::normalize(r.clone())).collect()
}

/// Merges copy-related variables whose lifetime intervals are disjoint,
/// renames every variable to its class and deletes the copies that became
/// `c = copy c` (module documentation, "Coalescing"). The result is a
/// out-of-ssa function with the same outcome as `f`. `f` must satisfy
/// `conventional_alloc::validate_input`; otherwise it is returned unchanged.
pub fn coalesce_copies(f: &Function) -> Function {
    coalesce_copies_pinned(f, &Pins::none(), MAX_REGS).0
}

/// [`coalesce_copies`] honoring the pins (module documentation, "Renaming
/// constraints"): two classes pinned to different registers are not
/// merged, nor a class whose interval meets a clobber of the register the
/// other is pinned to. Returns the renamed pins too.
pub fn coalesce_copies_pinned(f: &Function, pins: &Pins, k: usize) -> (Function, Pins) {
    if validate_input(f, crate::mir::MIN_REGS, "linear-scan").is_err() {
        return (f.clone(), pins.clone());
    }
    let pins = &usable_pins(f, pins, k);
    let lay = layout(f);
    let mut class_ranges = ClassIntervals::new(lifetime_intervals(f, &lay).values().map(|r| r.0.clone()));
    let n = f.value_count as usize;
    let mut label: EntityVec<Value, Option<Reg>> = EntityVec::from_elem(None, n);
    // `usable_pins` kept only variables below `value_count`.
    for (v, r) in pins.iter() {
        label[v] = r.reg_at(k);
    }
    let clobbers = clobbers_by_reg(&clobber_positions(f, &lay, pins, k), k);
    let no_clobbers: Vec<Pos> = Vec::new();
    let clobbers_of = |reg: Reg| clobbers.get(usize::from(reg.0)).unwrap_or(&no_clobbers);
    let mut parent: EntityVec<Value, Value> = (0..n).map(Value::new).collect();
    let find = |parent: &mut EntityVec<Value, Value>, mut v: Value| {
        while parent[v] != v {
            let grand = parent[parent[v]];
            parent[v] = grand;
            v = grand;
        }
        v
    };
    for &b in &lay.order {
        for inst in &f.blocks[b].insts {
            if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                let (x, y) = (find(&mut parent, d), find(&mut parent, *s));
                if x == y || class_ranges.overlaps(x.index(), y.index()) {
                    continue;
                }
                let merged_label = match (label[x], label[y]) {
                    (Some(a), Some(b)) if a != b => continue,
                    (a, b) => a.or(b),
                };
                // The merged interval meets a clobber when one of the two does.
                if let Some(r) = merged_label {
                    let (reg, positions) = (usize::from(r.0), clobbers_of(r));
                    if class_ranges.meets(x.index(), reg, positions) || class_ranges.meets(y.index(), reg, positions) {
                        continue;
                    }
                }
                parent[y] = x;
                class_ranges.merge_into(x.index(), y.index());
                label[x] = merged_label;
            }
        }
    }
    let mut g = f.clone();
    let mut rename: EntityVec<Value, Value> = EntityVec::from_elem(Value(0), n);
    for v in (0..n).map(Value::new) {
        rename[v] = find(&mut parent, v);
    }
    for p in &mut g.params {
        *p = rename[*p];
    }
    for data in g.blocks.values_mut() {
        let insts = std::mem::take(&mut data.insts);
        for mut inst in insts {
            inst.dest = inst.dest.map(|d| rename[d]);
            inst.op.map_args(|a| rename[a]);
            if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                if d == *s {
                    continue;
                }
            }
            data.insts.push(inst);
        }
        data.term.map_arg(|a| rename[a]);
    }
    let pins = pins.renamed(|v| rename.get(v).copied().unwrap_or(v));
    (g, pins)
}

/// The pins of registers below `k` that name a variable of `f`.
fn usable_pins(f: &Function, pins: &Pins, k: usize) -> Pins {
    let mut out = Pins::none();
    for (v, r) in pins.iter() {
        if v.0 < f.value_count && r.reg_at(k).is_some() {
            out.pin(v, r);
        }
    }
    out
}

/// The register and the position where each constrained division of `f`
/// destroys a register that is allocatable with `k` registers: rdx at the
/// division's read position (`cqo` runs before `idiv` reads its divisor),
/// and, for `%`, rax at its write position (the unused quotient); and
/// where each call destroys the caller-saved registers of the convention
/// of `k` (module documentation, "Calls").
fn clobber_positions(f: &Function, lay: &Layout, pins: &Pins, k: usize) -> Vec<(Reg, Pos)> {
    let mut out = Vec::new();
    let convention = CallingConvention::for_k(k);
    for &b in &lay.order {
        for (j, inst) in f.blocks[b].insts.iter().enumerate() {
            let i = lay.first[b] + j as u32;
            if let (Op::Call(_), Some(c)) = (&inst.op, &convention) {
                out.push((RAX, use_pos(i)));
                out.extend(c.caller_saved.iter().filter(|&&r| r != RAX).map(|&r| (r, def_pos(i))));
            }
            if !is_constrained_division(inst, pins) {
                continue;
            }
            if usize::from(RDX.0) < k {
                out.push((RDX, use_pos(i)));
            }
            if matches!(inst.op, Op::Binary(BinOp::Rem, ..)) {
                out.push((RAX, def_pos(i)));
            }
        }
    }
    out
}

/// The positions of the clobbers of each register below `k`, sorted.
fn clobbers_by_reg(clobbers: &[(Reg, Pos)], k: usize) -> Vec<Vec<Pos>> {
    let mut out: Vec<Vec<Pos>> = vec![Vec::new(); k];
    for &(r, p) in clobbers {
        if let Some(list) = out.get_mut(usize::from(r.0)) {
            list.push(p);
        }
    }
    for list in &mut out {
        list.sort_unstable();
    }
    out
}

/// True when one of the sorted `positions` lies in `ranges`.
fn meets(ranges: &Ranges, positions: &[Pos]) -> bool {
    ranges.ranges().iter().any(|&(from, to)| {
        let i = positions.partition_point(|&p| p < from);
        positions.get(i).is_some_and(|&p| p <= to)
    })
}

/// Who an interval of the scan belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Owner {
    Var(Value),
    /// The temporary register of a spilled variable at one position.
    Temp(Pos, Value),
}

struct Interval {
    ranges: Ranges,
    owner: Owner,
    /// The only register the interval may get (a pinned variable, the
    /// temporary of a pinned operand of a constrained division).
    fixed: Option<Reg>,
}

impl Interval {
    /// The scan order on equal starts: fixed temporaries, temporaries,
    /// pinned variables, variables.
    fn rank(&self) -> u8 {
        match (self.owner, self.fixed.is_some()) {
            (Owner::Temp(..), true) => 0,
            (Owner::Temp(..), false) => 1,
            (_, true) => 2,
            (_, false) => 3,
        }
    }
}

/// The occurrences of each variable that need a temporary when it is
/// spilled: reads at `2i` (and at the terminator), writes by operations at
/// `2i + 1`. A copy's destination needs none, nor a call's stack argument;
/// under a `convention`, a register parameter needs one at its arrival.
fn temp_positions(f: &Function, lay: &Layout, convention: Option<&CallingConvention>) -> EntityVec<Value, Vec<Pos>> {
    let mut temps: EntityVec<Value, Vec<Pos>> = EntityVec::from_elem(Vec::new(), f.value_count as usize);
    let in_registers = convention.map_or(0, |c| c.arg_regs.len());
    for &p in f.params.iter().take(in_registers) {
        temps[p].push(PARAM_DEF);
    }
    for &b in &lay.order {
        let data = &f.blocks[b];
        for (j, inst) in data.insts.iter().enumerate() {
            let i = lay.first[b] + j as u32;
            let read = match &inst.op {
                Op::Call(call) => call.args[..call.args.len().min(in_registers)].to_vec(),
                op => op.args(),
            };
            for a in read {
                if temps[a].last() != Some(&use_pos(i)) {
                    temps[a].push(use_pos(i));
                }
            }
            if let (Some(d), false) = (inst.dest, matches!(inst.op, Op::Copy(_))) {
                temps[d].push(def_pos(i));
            }
        }
        if let Some(a) = data.term.arg() {
            temps[a].push(use_pos(lay.term[b]));
        }
    }
    temps
}

/// The spill priority of every variable: its reads and writes, each
/// weighted by 10 per loop level, divided by the size of its interval.
fn priorities(f: &Function, lay: &Layout, intervals: &EntityVec<Value, Ranges>) -> EntityVec<Value, f64> {
    let depth = loop_depth(f);
    let mut cost: EntityVec<Value, f64> = EntityVec::from_elem(0.0, f.value_count as usize);
    for &b in &lay.order {
        let data = &f.blocks[b];
        let w = 10f64.powi(depth[b].min(6) as i32);
        for inst in &data.insts {
            inst.op.for_each_arg(|a| cost[a] += w);
            if let Some(d) = inst.dest {
                cost[d] += w;
            }
        }
        if let Some(a) = data.term.arg() {
            cost[a] += w;
        }
    }
    cost.iter().map(|(v, &c)| c / intervals[v].size().max(1) as f64).collect()
}

struct Scanner<'a> {
    k: usize,
    intervals: &'a EntityVec<Value, Ranges>,
    temps: &'a EntityVec<Value, Vec<Pos>>,
    priority: &'a EntityVec<Value, f64>,
    /// The register of each pinned variable.
    pins: &'a Pins,
    /// The register of the temporaries of pinned operands of constrained
    /// divisions.
    fixed_temps: &'a HashMap<(Pos, Value), Reg>,
    clobbers: &'a [(Reg, Pos)],
}

/// The scan's state: every interval queued so far, its register, and the
/// intervals on each register.
struct ScanState {
    all: Vec<Interval>,
    assigned: Vec<Option<Reg>>,
    /// (start, rank, index into `all`)
    unhandled: BinaryHeap<Reverse<(Pos, u8, usize)>>,
    /// The ranges of the intervals on each register, by start: (end, index
    /// into `all`). The intervals on one register never overlap, so the
    /// ranges that meet a given range are consecutive here: finding them
    /// costs a logarithm, where a list of the intervals on the register
    /// (Poletto and Sarkar's active list) costs its length, which the
    /// long, holed intervals of out-of-ssa's classes make large.
    on_reg: Vec<BTreeMap<Pos, (Pos, usize)>>,
    /// The order in which each interval got its register (the order of
    /// the active list, which the choice of victims follows).
    seq: Vec<u64>,
    next_seq: u64,
    spilled: EntityVec<Value, bool>,
}

impl ScanState {
    /// An empty scan over `k` registers and `values` variables.
    fn new(k: usize, values: usize) -> ScanState {
        ScanState {
            all: Vec::new(),
            assigned: Vec::new(),
            unhandled: BinaryHeap::new(),
            on_reg: vec![BTreeMap::new(); k],
            seq: Vec::new(),
            next_seq: 0,
            spilled: EntityVec::from_elem(false, values),
        }
    }

    /// The result of a finished scan over `values` variables: the register
    /// of each variable and temporary, and the spilled variables.
    fn into_allocation(self, values: usize) -> Result<Allocation, PassError> {
        let mut alloc =
            Allocation { reg: EntityVec::from_elem(None, values), spilled: self.spilled, temp: HashMap::new() };
        for (iv, r) in self.all.iter().zip(self.assigned) {
            match (iv.owner, r) {
                (Owner::Var(v), Some(r)) => alloc.reg[v] = Some(r),
                (Owner::Temp(p, v), Some(r)) => {
                    alloc.temp.insert((p, v), r);
                }
                // Spilled when it was scanned or evicted later: its
                // temporaries stand for it.
                (Owner::Var(_), None) => {}
                (Owner::Temp(p, v), None) => {
                    return Err(fail(
                        "linear-scan",
                        "scan",
                        ConventionalAllocError::TemporaryWithoutRegister { value: v, position: p },
                    ))
                }
            }
        }
        Ok(alloc)
    }

    fn add(&mut self, iv: Interval) {
        if let Some(start) = iv.ranges.start() {
            self.unhandled.push(Reverse((start, iv.rank(), self.all.len())));
            self.all.push(iv);
            self.assigned.push(None);
            self.seq.push(0);
        }
    }

    /// Puts interval `j` on register `r`.
    fn put_on(&mut self, r: usize, j: usize) {
        self.assigned[j] = Some(Reg(r as u8));
        for &(from, to) in self.all[j].ranges.ranges() {
            self.on_reg[r].insert(from, (to, j));
        }
        self.seq[j] = self.next_seq;
        self.next_seq += 1;
    }

    /// Takes interval `j` off register `r`.
    fn take_off(&mut self, r: usize, j: usize) {
        for &(from, _) in self.all[j].ranges.ranges() {
            self.on_reg[r].remove(&from);
        }
    }

    /// The intervals on register `r` that overlap interval `cur`, in the
    /// order they got the register.
    fn overlapping(&self, r: usize, cur: usize) -> Vec<usize> {
        let mut hits = Vec::new();
        for &(from, to) in self.all[cur].ranges.ranges() {
            for (_, &(end, j)) in self.on_reg[r].range(..=to).rev() {
                if end < from {
                    break;
                }
                hits.push(j);
            }
        }
        hits.sort_by_key(|&j| self.seq[j]);
        hits.dedup();
        hits
    }
}

impl Scanner<'_> {
    fn temps_of(&self, v: Value) -> impl Iterator<Item = Interval> + '_ {
        self.temps[v].iter().map(move |&p| Interval {
            ranges: Ranges::point(p),
            owner: Owner::Temp(p, v),
            fixed: self.fixed_temps.get(&(p, v)).copied(),
        })
    }

    /// Spills the variables `victims`, which hold register `r` up to the
    /// current position `now` (module documentation, "The scan"): their
    /// temporaries before `now` get `r`, the others join the scan.
    fn evict(&self, st: &mut ScanState, r: usize, victims: &[usize], now: Pos) -> Result<(), PassError> {
        for &j in victims {
            st.take_off(r, j);
        }
        for &j in victims {
            let Owner::Var(v) = st.all[j].owner else {
                return Err(fail("linear-scan", "scan", ConventionalAllocError::NonVariableEvicted));
            };
            st.spilled[v] = true;
            st.assigned[j] = None;
            for iv in self.temps_of(v) {
                let p = iv.ranges.start().unwrap_or(now);
                if p < now {
                    if iv.fixed.is_some_and(|f| usize::from(f.0) != r) {
                        return Err(fail(
                            "linear-scan",
                            "scan",
                            ConventionalAllocError::TemporaryFixedElsewhere { value: v, position: p },
                        ));
                    }
                    st.all.push(iv);
                    st.assigned.push(Some(Reg(r as u8)));
                    st.seq.push(0);
                } else {
                    st.add(iv);
                }
            }
        }
        Ok(())
    }

    fn run(&self) -> Result<Allocation, PassError> {
        let mut st = ScanState::new(self.k, self.intervals.len());
        // The clobbers of each register, by position. They are not in
        // `on_reg`: there each would stay from the start of the scan to its
        // position and be tested against every interval, (intervals) ×
        // (divisions) tests.
        let clobbered = clobbers_by_reg(self.clobbers, self.k);
        for (v, r) in self.intervals.iter() {
            let fixed = self.pins.get(v).and_then(|p| p.reg_at(self.k));
            st.add(Interval { ranges: r.clone(), owner: Owner::Var(v), fixed });
        }
        while let Some(Reverse((start, _, cur))) = st.unhandled.pop() {
            let all = &st.all;
            let overlapping = |r: usize| st.overlapping(r, cur);
            // True when a clobber of register `r` lies in the current interval.
            let hits_clobber = |r: usize| meets(&all[cur].ranges, &clobbered[r]);
            let fixed = all[cur].fixed;
            let allowed = |r: &usize| fixed.is_none_or(|f| usize::from(f.0) == *r);
            if let Some(r) = (0..self.k).filter(allowed).find(|&r| !hits_clobber(r) && overlapping(r).is_empty()) {
                st.put_on(r, cur);
                continue;
            }
            // No register is free: the cheapest one to free.
            let mut best: Option<(f64, usize, Vec<usize>)> = None;
            for r in (0..self.k).filter(allowed) {
                let mut cost = 0.0;
                let mut victims = Vec::new();
                let mut evictable = !hits_clobber(r);
                for j in overlapping(r) {
                    match all[j].owner {
                        // A variable with a fixed temporary here would
                        // need this register again, for that temporary.
                        Owner::Var(v) if self.fixed_temps.contains_key(&(start, v)) => evictable = false,
                        Owner::Var(v) => {
                            cost += self.priority[v];
                            victims.push(j);
                        }
                        Owner::Temp(..) => evictable = false,
                    }
                }
                if evictable && best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                    best = Some((cost, r, victims));
                }
            }
            let take = match (all[cur].owner, best) {
                (Owner::Var(v), best) if best.as_ref().is_none_or(|(c, _, _)| *c >= self.priority[v]) => {
                    st.spilled[v] = true;
                    for iv in self.temps_of(v) {
                        st.add(iv);
                    }
                    None
                }
                (_, Some((_, r, victims))) => Some((r, victims)),
                (Owner::Temp(p, v), None) => {
                    return Err(fail(
                        "linear-scan",
                        "scan",
                        ConventionalAllocError::NoRegisterForTemporary { value: v, position: p },
                    ))
                }
                (Owner::Var(_), None) => None,
            };
            if let Some((r, victims)) = take {
                self.evict(&mut st, r, &victims, start)?;
                st.put_on(r, cur);
            }
        }
        st.into_allocation(self.intervals.len())
    }
}

/// Allocates `f` with `k` registers: coalescing, lifetime intervals, the
/// scan and the emission (module documentation). The result is
/// annotated with the variables of [`coalesce_copies`]`(f)`.
pub fn linear_scan(f: &Function, k: usize) -> Result<MFunction, PassError> {
    linear_scan_pinned(f, &Pins::none(), k)
}

/// [`linear_scan`] with the variables of `pins` in their registers (module
/// documentation, "Renaming constraints"): every constrained division
/// becomes a [`MInst::FixedDiv`]. `f` is taken as a module of its own
/// ([`linear_scan_in`]).
pub fn linear_scan_pinned(f: &Function, pins: &Pins, k: usize) -> Result<MFunction, PassError> {
    linear_scan_in(f, pins, false, k)
}

/// [`linear_scan_pinned`] on a function of a module, which has calls when
/// `module_has_calls`: then the parameters, arguments and results follow
/// the calling convention of `k` (module documentation, "Calls").
pub fn linear_scan_in(f: &Function, pins: &Pins, module_has_calls: bool, k: usize) -> Result<MFunction, PassError> {
    validate_input(f, k, "linear-scan")?;
    let convention = convention_for(f, module_has_calls, k);
    let (f, pins) = match split_for_convention(f, pins, module_has_calls) {
        Some((g, p)) => coalesce_copies_pinned(&g, &p, k),
        None => coalesce_copies_pinned(f, pins, k),
    };
    let lay = layout(&f);
    let intervals = lifetime_intervals(&f, &lay);
    let temps = temp_positions(&f, &lay, convention.as_ref());
    let priority = priorities(&f, &lay, &intervals);
    let clobbers = clobber_positions(&f, &lay, &pins, k);
    let fixed_temps = fixed_temporaries(&f, &lay, &pins, k, convention.as_ref());
    let alloc = Scanner {
        k,
        intervals: &intervals,
        temps: &temps,
        priority: &priority,
        pins: &pins,
        fixed_temps: &fixed_temps,
        clobbers: &clobbers,
    }
    .run()?;
    let mut slot: EntityVec<Value, Option<Slot>> = EntityVec::from_elem(None, intervals.len());
    let mut slot_count = 0u32;
    for (v, &s) in alloc.spilled.iter() {
        if s {
            slot[v] = Some(Slot(slot_count));
            slot_count += 1;
        }
    }
    let em = Emitter { alloc: &alloc, slot, pins: &pins, convention };
    // A spilled register parameter arrives in its temporary, the argument
    // register, and is stored to its slot first thing.
    let mut entry_stores = Vec::new();
    let mut params = Vec::with_capacity(f.params.len());
    for &p in &f.params {
        params.push(match em.loc(p)? {
            Loc::Slot(slot) if em.alloc.temp.contains_key(&(PARAM_DEF, p)) => {
                let t = em.temp(PARAM_DEF, p)?;
                push(&mut entry_stores, MInst::Spill { slot, src: t }, vec![], None);
                (Loc::Reg(t), p)
            }
            loc => (loc, p),
        });
    }
    let mut blocks = EntityVec::new();
    for (b, data) in f.blocks.iter() {
        let mut out = if b == Function::ENTRY { std::mem::take(&mut entry_stores) } else { Vec::new() };
        for (j, inst) in data.insts.iter().enumerate() {
            em.inst(inst, lay.first[b] + j as u32, &mut out)?;
        }
        let t = use_pos(lay.term[b]);
        let (term, term_reads) = match data.term {
            Terminator::Jump(target) => (MTerm::Jump(target), None),
            Terminator::Branch { cond, then_dest, else_dest } => {
                (MTerm::Branch { cond: em.operand(cond, t, &mut out)?, then_dest, else_dest }, Some(cond))
            }
            Terminator::Return(v) => (MTerm::Return(em.operand(v, t, &mut out)?), Some(v)),
        };
        blocks.push(MBlock { preds: data.preds.clone(), phis: Vec::new(), insts: out, term, term_reads });
    }
    Ok(MFunction { name: f.name.clone(), k, slot_count, params, blocks })
}

/// The register each fixed temporary must get: the dividend (rax) and the
/// pinned result of every constrained division; under a `convention`, the
/// register arguments and the result (rax) of every call, and the register
/// parameters at their arrival (module documentation, "Calls").
fn fixed_temporaries(
    f: &Function,
    lay: &Layout,
    pins: &Pins,
    k: usize,
    convention: Option<&CallingConvention>,
) -> HashMap<(Pos, Value), Reg> {
    let mut fixed_temps = HashMap::new();
    let arg_regs = convention.map_or(&[][..], |c| &c.arg_regs[..]);
    for (&p, &r) in f.params.iter().zip(arg_regs) {
        fixed_temps.insert((PARAM_DEF, p), r);
    }
    for &b in &lay.order {
        for (j, inst) in f.blocks[b].insts.iter().enumerate() {
            let i = lay.first[b] + j as u32;
            match (is_constrained(inst, pins), inst.dest, &inst.op) {
                (true, Some(d), Op::Binary(_, a, _)) => {
                    fixed_temps.insert((use_pos(i), *a), RAX);
                    if let Some(r) = pins.get(d).and_then(|r| r.reg_at(k)) {
                        fixed_temps.insert((def_pos(i), d), r);
                    }
                }
                (_, Some(d), Op::Call(call)) => {
                    for (&a, &r) in call.args.iter().zip(arg_regs) {
                        fixed_temps.insert((use_pos(i), a), r);
                    }
                    fixed_temps.insert((def_pos(i), d), RAX);
                }
                _ => {}
            }
        }
    }
    fixed_temps
}
