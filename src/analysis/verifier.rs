//! The SSA verifier: checks that an `ir::Function` is well-formed SSA.
//!
//! Every pass's output goes through [`verify_function`] (or
//! [`verify_module`]), so the checks below are the contract between passes.
//! The first failure is reported. The checks run in the order below, except
//! that the range and agreement checks of 2 run before the entry and
//! reachability checks of 1, which rely on them.
//!
//! 1. The function has blocks; the entry `b0` has no predecessors; every
//!    block is reachable from `b0`.
//! 2. Every successor and every `preds` entry names an existing block, and
//!    `preds` agrees with the terminators: for every block `B`, the multiset
//!    `B.preds` equals the multiset of blocks `P` whose terminator has an
//!    edge to `B` (so `br c, B, B` makes `P` a predecessor twice).
//! 3. Every value number mentioned is below `value_count`; every value is
//!    defined at most once (by a parameter, a phi or an instruction); an
//!    instruction names a result exactly when its operation has one
//!    (`Op::has_result`).
//! 4. The entry block has no phi (a phi chooses a value by the edge a
//!    block was entered through, and `b0` is entered only from the caller,
//!    whose values are the parameters; zero arguments for its zero
//!    predecessors would make a value defined by nothing). Every other phi
//!    has exactly one argument per predecessor. (That phis come
//!    before the other instructions of a block, and that nothing follows the
//!    terminator, hold by construction: `BlockData` keeps phis,
//!    instructions and the terminator in separate fields.)
//! 5. Every used value is defined, and its definition dominates the use.
//!    Parameters are defined on entry, before everything. In a block, the
//!    phis come before all instructions, and an instruction's definition must
//!    come strictly before the instruction that uses it. A terminator uses
//!    its value at the end of its block, and the `i`-th argument of a phi in
//!    `B` is used at the end of `B.preds[i]`, on the edge into `B`.
//! 6. No instruction is `Op::Undef`. Braun et al.'s `Undefined` values only
//!    live in unreachable code, which construction removes, so verified IR
//!    never contains them.
//!
//! [`verify_module`] also checks that no two functions share a name (the
//! source language forbids it, and `Module::main` finds functions by name),
//! and that every call names a function of the module and passes it as
//! many arguments as it has parameters ([`verify_function`] sees one
//! function and cannot know its callees).
//!
//! The verifier never panics, whatever it is given: the range checks of
//! steps 2 and 3 run before anything indexes by a block or a value, and value
//! tables are hash maps, so a huge `value_count` costs no memory.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use crate::analysis::dominance::DomTree;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function, Module, Op, Value};
use crate::pass_manager::sampling;
use crate::ssa_text::{format_inst, format_phi, format_terminator, op_mnemonic};

/// Why a function is not well-formed SSA.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// The function's name.
    pub function: String,
    /// The block the problem is in, when there is one.
    pub block: Option<Block>,
    /// The value the problem is about, when there is one.
    pub value: Option<Value>,
    /// What is wrong, naming the values and blocks involved.
    pub message: String,
}

impl fmt::Display for VerifyError {
    /// `function `main`, block b2: MESSAGE`, or without the block part.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function `{}`", self.function)?;
        if let Some(b) = self.block {
            write!(f, ", block {b}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Checks every function of `m` and that function names are unique.
pub fn verify_module(m: &Module) -> Result<(), VerifyError> {
    let mut names = HashSet::new();
    for f in &m.functions {
        if !names.insert(f.name.as_str()) {
            return Err(VerifyError {
                function: f.name.clone(),
                block: None,
                value: None,
                message: "another function of the module has the same name".to_string(),
            });
        }
        verify_function(f)?;
    }
    let arity: HashMap<&str, usize> = m.functions.iter().map(|f| (f.name.as_str(), f.params.len())).collect();
    for f in &m.functions {
        for (b, data) in f.blocks.iter() {
            for inst in &data.insts {
                let Op::Call(call) = &inst.op else { continue };
                if let Some(message) = crate::ast::check_call(&arity, &call.callee, call.args.len()) {
                    let message = format!("`{}`: {message}", format_inst(inst));
                    return Err(VerifyError { function: f.name.clone(), block: Some(b), value: inst.dest, message });
                }
            }
        }
    }
    Ok(())
}

/// Checks that `f` is well-formed SSA; see the module documentation for the
/// list of checks.
pub fn verify_function(f: &Function) -> Result<(), VerifyError> {
    let v = Verifier { f };
    let dom = v.check_cfg()?;
    let defs = v.check_definitions()?;
    v.check_phi_arities()?;
    v.check_uses(&defs, &dom)?;
    v.check_no_undef()
}

/// Where a value is defined.
#[derive(Clone, Copy, Debug)]
enum Def {
    /// The `i`-th parameter.
    Param(usize),
    /// The `i`-th phi of the block.
    Phi(Block, usize),
    /// The `i`-th instruction of the block.
    Inst(Block, usize),
}

impl Def {
    fn block(self) -> Block {
        match self {
            Def::Param(_) => Function::ENTRY,
            Def::Phi(b, _) | Def::Inst(b, _) => b,
        }
    }

    /// The definition's place in its block: parameters first, then the
    /// phis, then the instructions in order. A use is at the instruction's
    /// place, or at the block's end (see [`Verifier::end_of`]).
    fn place(self) -> usize {
        match self {
            Def::Param(_) => 0,
            Def::Phi(..) => 1,
            Def::Inst(_, i) => i.saturating_add(2),
        }
    }
}

/// The definition of each value (see `check_definitions`).
enum Defs {
    Dense(Vec<Option<Def>>),
    Sparse(HashMap<Value, Def>),
}

impl Defs {
    fn get(&self, v: Value) -> Option<Def> {
        match self {
            Defs::Dense(d) => d.get(v.index()).copied().flatten(),
            Defs::Sparse(m) => m.get(&v).copied(),
        }
    }

    fn insert(&mut self, v: Value, def: Def) {
        match self {
            Defs::Dense(d) => d[v.index()] = Some(def),
            Defs::Sparse(m) => {
                m.insert(v, def);
            }
        }
    }
}

/// Where a value is used: at `place` (as numbered by [`Def::place`]) in
/// `block`. Errors name `reported_in`, the block of the using phi or
/// instruction, which differs from `block` for a phi argument.
#[derive(Clone, Copy, Debug)]
struct UseSite {
    reported_in: Block,
    block: Block,
    place: usize,
}

/// "1 time", "2 times".
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

struct Verifier<'a> {
    f: &'a Function,
}

impl Verifier<'_> {
    fn error(&self, block: Option<Block>, value: Option<Value>, message: String) -> VerifyError {
        VerifyError { function: self.f.name.clone(), block, value, message }
    }

    /// The place of a use at the end of block `b` (after its last
    /// instruction); `b` must exist.
    fn end_of(&self, b: Block) -> usize {
        self.f.blocks[b].insts.len().saturating_add(2)
    }

    /// Describes a definition for messages.
    fn describe(&self, def: Def) -> String {
        match def {
            Def::Param(i) => format!("parameter {i}"),
            Def::Phi(b, i) => format!("`{}` in {b}", format_phi(&self.f.blocks[b].phis[i])),
            Def::Inst(b, i) => format!("`{}` in {b}", format_inst(&self.f.blocks[b].insts[i])),
        }
    }

    /// Checks 1 and 2: the control-flow graph. Returns its dominator tree.
    fn check_cfg(&self) -> Result<DomTree, VerifyError> {
        let f = self.f;
        let n = f.blocks.len();
        if n == 0 {
            return Err(self.error(None, None, "the function has no blocks (it needs the entry b0)".to_string()));
        }
        // Successors and predecessors in range, before anything indexes by them.
        for (b, data) in f.blocks.iter() {
            for s in data.term.successors() {
                if s.index() >= n {
                    return Err(self.error(
                        Some(b),
                        None,
                        format!("the terminator `{}` names {s}, which does not exist", format_terminator(&data.term)),
                    ));
                }
            }
            for &p in &data.preds {
                if p.index() >= n {
                    return Err(self.error(Some(b), None, format!("predecessor {p} does not exist")));
                }
            }
        }
        // `preds` agrees with the edges, as multisets.
        let mut edges: Vec<Vec<Block>> = vec![Vec::new(); n];
        for (b, data) in f.blocks.iter() {
            for s in data.term.successors() {
                edges[s.index()].push(b);
            }
        }
        for (b, data) in f.blocks.iter() {
            let mut counts: BTreeMap<Block, (usize, usize)> = BTreeMap::new();
            for &p in &data.preds {
                counts.entry(p).or_default().0 += 1;
            }
            for &p in &edges[b.index()] {
                counts.entry(p).or_default().1 += 1;
            }
            if let Some((p, (listed, actual))) = counts.into_iter().find(|(_, (l, a))| l != a) {
                return Err(self.error(
                    Some(b),
                    None,
                    format!(
                        "`preds` lists {p} {}, but the terminator of {p} has {} to {b}",
                        plural(listed, "time"),
                        plural(actual, "edge")
                    ),
                ));
            }
        }
        let entry = &f.blocks[Function::ENTRY];
        if let Some(&p) = entry.preds.first() {
            return Err(self.error(
                Some(Function::ENTRY),
                None,
                format!("the entry block has a predecessor, {p}; b0 must have none"),
            ));
        }
        let dom = DomTree::compute(f);
        if let Some(b) = f.blocks.keys().find(|&b| !dom.is_reachable(b)) {
            return Err(self.error(Some(b), None, format!("{b} is not reachable from the entry b0")));
        }
        Ok(dom)
    }

    /// Every value mentioned is below `value_count`.
    fn check_value_range(&self) -> Result<(), VerifyError> {
        let f = self.f;
        let in_range = |block: Option<Block>, v: Value| {
            if v.0 < f.value_count {
                Ok(())
            } else {
                Err(self.error(
                    block,
                    Some(v),
                    format!("{v} is mentioned, but value_count is {} (values must be below it)", f.value_count),
                ))
            }
        };
        for &p in &f.params {
            in_range(None, p)?;
        }
        for (b, data) in f.blocks.iter() {
            for phi in &data.phis {
                in_range(Some(b), phi.dest)?;
                for &a in &phi.args {
                    in_range(Some(b), a)?;
                }
            }
            for inst in &data.insts {
                if let Some(d) = inst.dest {
                    in_range(Some(b), d)?;
                }
                for a in inst.op.args() {
                    in_range(Some(b), a)?;
                }
            }
            if let Some(a) = data.term.arg() {
                in_range(Some(b), a)?;
            }
        }
        Ok(())
    }

    /// Check 3: value numbers in range, single definitions, results where
    /// the operation has one. Returns each value's definition.
    fn check_definitions(&self) -> Result<Defs, VerifyError> {
        let f = self.f;
        self.check_value_range()?;

        // Indexed by value number when the numbers are dense, as they are
        // in every function a pass makes (a hash map would be a large part
        // of the verifier's time); a map when a few numbers are huge (a bad
        // input may define `v4000000000`).
        let (mut limit, mut count) = (0usize, 0usize);
        let mut note = |v: Value| {
            limit = limit.max(v.index() + 1);
            count += 1;
        };
        f.params.iter().for_each(|&p| note(p));
        for data in f.blocks.values() {
            data.phis.iter().for_each(|phi| note(phi.dest));
            data.insts.iter().filter_map(|i| i.dest).for_each(&mut note);
        }
        let mut defs =
            if limit <= 2 * count + 1024 { Defs::Dense(vec![None; limit]) } else { Defs::Sparse(HashMap::new()) };
        let mut define = |v: Value, def: Def| {
            if let Some(first) = defs.get(v) {
                // A parameter belongs to the function rather than to a block.
                let block = match def {
                    Def::Param(_) => None,
                    Def::Phi(b, _) | Def::Inst(b, _) => Some(b),
                };
                return Err(self.error(
                    block,
                    Some(v),
                    format!("{v} is defined twice: by {} and by {}", self.describe(first), self.describe(def)),
                ));
            }
            defs.insert(v, def);
            Ok(())
        };
        for (i, &p) in f.params.iter().enumerate() {
            define(p, Def::Param(i))?;
        }
        for (b, data) in f.blocks.iter() {
            for (i, phi) in data.phis.iter().enumerate() {
                define(phi.dest, Def::Phi(b, i))?;
            }
            for (i, inst) in data.insts.iter().enumerate() {
                let mnemonic = op_mnemonic(&inst.op);
                match (inst.dest, inst.op.has_result()) {
                    (Some(d), true) => define(d, Def::Inst(b, i))?,
                    (None, false) => {}
                    (Some(d), false) => {
                        return Err(self.error(
                            Some(b),
                            Some(d),
                            format!("`{}` names a result, but `{mnemonic}` defines no value", format_inst(inst)),
                        ));
                    }
                    (None, true) => {
                        return Err(self.error(
                            Some(b),
                            None,
                            format!("`{}` names no result, but `{mnemonic}` defines a value", format_inst(inst)),
                        ));
                    }
                }
            }
        }
        Ok(defs)
    }

    /// Check 4: no phi in the entry block, one phi argument per predecessor.
    fn check_phi_arities(&self) -> Result<(), VerifyError> {
        if let Some(phi) = self.f.blocks[Function::ENTRY].phis.first() {
            return Err(self.error(
                Some(Function::ENTRY),
                Some(phi.dest),
                format!(
                    "`{}` is a phi in the entry block: b0 is entered once, from the caller, with no edge for a phi to choose",
                    format_phi(phi)
                ),
            ));
        }
        for (b, data) in self.f.blocks.iter() {
            for phi in &data.phis {
                if phi.args.len() != data.preds.len() {
                    return Err(self.error(
                        Some(b),
                        Some(phi.dest),
                        format!(
                            "`{}` has {}, but {b} has {}",
                            format_phi(phi),
                            plural(phi.args.len(), "argument"),
                            plural(data.preds.len(), "predecessor")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Check 5 for one use of `v`: it is defined, and its definition comes
    /// before `site` (is in the same block and earlier, or in a block that
    /// strictly dominates it). `user` describes the use for messages.
    fn check_use(
        &self,
        defs: &Defs,
        dom: &DomTree,
        v: Value,
        site: UseSite,
        user: &dyn Fn() -> String,
    ) -> Result<(), VerifyError> {
        let Some(def) = defs.get(v) else {
            return Err(self.error(Some(site.reported_in), Some(v), format!("{v} {} but is never defined", user())));
        };
        let d = def.block();
        let at = site.block;
        let ok = if d == at { def.place() < site.place } else { dom.strictly_dominates(d, at) };
        if ok {
            return Ok(());
        }
        let why = if d == at {
            format!("its definition {} does not come before the use", self.describe(def))
        } else {
            format!("its definition {} does not dominate {at}", self.describe(def))
        };
        Err(self.error(Some(site.reported_in), Some(v), format!("{v} {}, but {why}", user())))
    }

    fn check_uses(&self, defs: &Defs, dom: &DomTree) -> Result<(), VerifyError> {
        for (b, data) in self.f.blocks.iter() {
            for phi in &data.phis {
                for (&a, &p) in phi.args.iter().zip(&data.preds) {
                    let user = || format!("flows into `{}` from {p}", format_phi(phi));
                    let site = UseSite { reported_in: b, block: p, place: self.end_of(p) };
                    self.check_use(defs, dom, a, site, &user)?;
                }
            }
            for (i, inst) in data.insts.iter().enumerate() {
                for a in inst.op.args() {
                    let user = || format!("is used by `{}` in {b}", format_inst(inst));
                    let site = UseSite { reported_in: b, block: b, place: i.saturating_add(2) };
                    self.check_use(defs, dom, a, site, &user)?;
                }
            }
            if let Some(a) = data.term.arg() {
                let user = || format!("is used by `{}` in {b}", format_terminator(&data.term));
                let site = UseSite { reported_in: b, block: b, place: self.end_of(b) };
                self.check_use(defs, dom, a, site, &user)?;
            }
        }
        Ok(())
    }

    /// Check 6: no `undef`.
    fn check_no_undef(&self) -> Result<(), VerifyError> {
        for (b, data) in self.f.blocks.iter() {
            if let Some(inst) = data.insts.iter().find(|i| i.op == Op::Undef) {
                return Err(self.error(
                    Some(b),
                    inst.dest,
                    format!(
                        "`{}`: verified IR has no undef (construction removes the unreachable code it lives in)",
                        format_inst(inst)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Checks that `f` is a well-formed program in *conventional* (non-SSA)
/// form, the output of out-of-SSA translation (`out_of_ssa.rs`): a value
/// number names a variable that may be assigned several times. The checks
/// are those of the SSA verifier that still make sense:
///
/// 1. and 2. as for SSA (entry without predecessors, every block reachable,
///    `preds` agreeing with the terminators);
/// 3. no phi; every value number below `value_count`; an instruction names a
///    result exactly when its operation has one;
/// 4. every use is reached by a definition on every path: a forward
///    must-be-defined dataflow (parameters defined on entry, the meet an
///    intersection over the predecessors) finds each operand defined before
///    the instruction or terminator that reads it;
/// 5. no `undef`.
///
/// The SSA verifier stays as it is; this check is separate so that it can
/// never weaken it.
pub fn verify_conventional(f: &Function) -> Result<(), VerifyError> {
    crate::pass_manager::self_checks::count();
    let v = Verifier { f };
    let dom = v.check_cfg()?;
    let n = f.value_count as usize;
    v.check_conventional_shape()?;
    // Must-be-defined sets at block entry, as bit vectors over the values
    // checked: all of them, or above `sampling::SAMPLE_ABOVE` instructions
    // (unless `--full-checks`) every `step`-th value, about
    // `SAMPLED_VALUES` of them (the sets cost (blocks) × (values) bits,
    // quadratic in the function's size). The test of one value does not
    // depend on the others, so it is exact for the values checked.
    const SAMPLED_VALUES: usize = 4096;
    let size = f.blocks.values().map(|d| d.insts.len()).sum::<usize>();
    let step = if sampling::should_sample(size) && n > SAMPLED_VALUES { n.div_ceil(SAMPLED_VALUES) } else { 1 };
    if step > 1 {
        sampling::note_sampled(format!(
            "the conventional-form verifier: defined on every path to each use, for one value in {step} ({} of {n})",
            n.div_ceil(step)
        ));
    }
    let bit = |x: Value| x.index().is_multiple_of(step).then_some(x.index() / step);
    let words = n.div_ceil(step).div_ceil(64);
    let din = must_be_defined_at_entry(f, &dom, &bit, words);
    let has = |set: &[u64], x: Value| bit(x).is_none_or(|i| set[i / 64] & (1 << (i % 64)) != 0);
    for &b in &dom.rpo {
        let mut set = din[b].clone();
        let data = &f.blocks[b];
        for inst in &data.insts {
            let mut missing = None;
            inst.op.for_each_arg(|a| {
                if !has(&set, a) && missing.is_none() {
                    missing = Some(a);
                }
            });
            if let Some(a) = missing {
                return Err(v.error(
                    Some(b),
                    Some(a),
                    format!("{a} is used by `{}` but not defined on every path to it", format_inst(inst)),
                ));
            }
            if inst.op == Op::Undef {
                return Err(v.error(Some(b), inst.dest, "conventional form has no undef".into()));
            }
            if let Some(i) = inst.dest.and_then(bit) {
                set[i / 64] |= 1 << (i % 64);
            }
        }
        if let Some(a) = data.term.arg() {
            if !has(&set, a) {
                return Err(v.error(
                    Some(b),
                    Some(a),
                    format!("{a} is used by `{}` but not defined on every path to it", format_terminator(&data.term)),
                ));
            }
        }
    }
    Ok(())
}

impl Verifier<'_> {
    /// Checks 3 of [`verify_conventional`]: no phi, every value number
    /// below `value_count`, a result exactly with an operation that has one.
    fn check_conventional_shape(&self) -> Result<(), VerifyError> {
        let n = self.f.value_count as usize;
        for (b, data) in self.f.blocks.iter() {
            if let Some(phi) = data.phis.first() {
                return Err(self.error(Some(b), Some(phi.dest), "conventional form has no phis".into()));
            }
            for inst in &data.insts {
                if inst.dest.is_some() != inst.op.has_result() {
                    return Err(self.error(
                        Some(b),
                        inst.dest,
                        format!("`{}` names a result exactly when its operation has one", format_inst(inst)),
                    ));
                }
            }
        }
        let mut too_big = None;
        self.f.for_each_value_mention(|x| {
            if x.index() >= n && too_big.is_none() {
                too_big = Some(x);
            }
        });
        if let Some(x) = too_big {
            return Err(self.error(None, Some(x), format!("{x} is not below value_count {n}")));
        }
        Ok(())
    }
}

/// The must-be-defined sets at the entry of each block, as bit vectors of
/// `words` words over the values `bit` numbers: parameters defined on
/// entry, the meet an intersection over the predecessors, iterated in
/// reverse post-order to the greatest fixpoint.
fn must_be_defined_at_entry(
    f: &Function,
    dom: &DomTree,
    bit: &impl Fn(Value) -> Option<usize>,
    words: usize,
) -> EntityVec<Block, Vec<u64>> {
    let full = vec![u64::MAX; words];
    let mut din: EntityVec<Block, Vec<u64>> = EntityVec::from_elem(full, f.blocks.len());
    let mut entry = vec![0u64; words];
    for &p in &f.params {
        if let Some(i) = bit(p) {
            entry[i / 64] |= 1 << (i % 64);
        }
    }
    din[Function::ENTRY] = entry;
    let transfer = |b: Block, set: &mut Vec<u64>| {
        for inst in &f.blocks[b].insts {
            if let Some(i) = inst.dest.and_then(bit) {
                set[i / 64] |= 1 << (i % 64);
            }
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &dom.rpo {
            let mut out = din[b].clone();
            transfer(b, &mut out);
            for s in f.succs(b) {
                if s == Function::ENTRY {
                    continue;
                }
                for (w, &o) in din[s].iter_mut().zip(&out) {
                    let nw = *w & o;
                    if nw != *w {
                        *w = nw;
                        changed = true;
                    }
                }
            }
        }
    }
    din
}
