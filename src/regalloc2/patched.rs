//! The regalloc2 route on the patched crate (feature `regalloc2-patched`):
//! regalloc2 0.15.2 with the three patches of `upstream/regalloc2/patches`
//! (its README says what each changes). The patched crate is a second
//! crate with its own types, so the adapter's input is copied into them
//! through the `Function` trait ([`View`]), and the output is copied back
//! into the stock crate's types, bit for bit, for `to_mir` and the
//! checkers. The copies are linear in the function.
//!
//! **Comparison with the stock crate.** With the environment variable
//! `SSAREF_REGALLOC2_COMPARE_STOCK` set to a file name, every allocation
//! also runs the stock crate on the same input and appends one line to that
//! file: `same` when the two outputs (allocations, edits, spill slots,
//! debug locations) are identical, else `differs cutoffs=N`, N the probes
//! that the third patch cut off. The first two patches keep every decision,
//! so an allocation without a cut-off probe must be `same`.

use crate::regalloc2::adapter::Adapter;
use crate::regalloc2::env::machine_env;
use regalloc2::Function as _;
use regalloc2_patched as patched;
use std::io::Write;

/// The adapter's function in the patched crate's types.
struct View {
    blocks: Vec<ViewBlock>,
    operands: Vec<patched::Operand>,
    /// Per instruction: its operands' range in `operands`, clobbers, and
    /// whether it returns or branches.
    insts: Vec<(usize, usize, patched::PRegSet, bool, bool)>,
    labels: Vec<(patched::VReg, patched::Inst, patched::Inst, u32)>,
    entry: patched::Block,
    num_vregs: usize,
    spillslot_sizes: [usize; 3],
    multi_spillslot_named_by_last_slot: bool,
    allow_multiple_vreg_defs: bool,
}

struct ViewBlock {
    insts: patched::InstRange,
    succs: Vec<patched::Block>,
    preds: Vec<patched::Block>,
    params: Vec<patched::VReg>,
    /// The block arguments of the block's last instruction, per successor.
    args: Vec<Vec<patched::VReg>>,
}

fn block(b: regalloc2::Block) -> patched::Block {
    patched::Block::new(b.index())
}

fn inst(i: regalloc2::Inst) -> patched::Inst {
    patched::Inst::new(i.index())
}

fn vreg(v: regalloc2::VReg) -> patched::VReg {
    patched::VReg::from_bits(v.bits() as u32)
}

fn class(c: regalloc2::RegClass) -> patched::RegClass {
    match c {
        regalloc2::RegClass::Int => patched::RegClass::Int,
        regalloc2::RegClass::Float => patched::RegClass::Float,
        regalloc2::RegClass::Vector => patched::RegClass::Vector,
    }
}

fn preg(p: regalloc2::PReg) -> patched::PReg {
    patched::PReg::new(p.hw_enc(), class(p.class()))
}

fn preg_set(s: regalloc2::PRegSet) -> patched::PRegSet {
    let mut out = patched::PRegSet::empty();
    for p in s {
        out.add(preg(p));
    }
    out
}

impl View {
    fn new(a: &Adapter) -> View {
        let mut operands = Vec::new();
        let mut insts = Vec::with_capacity(a.num_insts());
        for i in 0..a.num_insts() {
            let i = regalloc2::Inst::new(i);
            let start = operands.len();
            operands.extend(a.inst_operands(i).iter().map(|o| patched::Operand::from_bits(o.bits())));
            insts.push((start, operands.len(), preg_set(a.inst_clobbers(i)), a.is_ret(i), a.is_branch(i)));
        }
        let blocks = (0..a.num_blocks())
            .map(|b| {
                let b = regalloc2::Block::new(b);
                let range = a.block_insns(b);
                let first = range.first().index();
                let succs = a.block_succs(b);
                ViewBlock {
                    insts: patched::InstRange::new(patched::Inst::new(first), patched::Inst::new(first + range.len())),
                    succs: succs.iter().copied().map(block).collect(),
                    preds: a.block_preds(b).iter().copied().map(block).collect(),
                    params: a.block_params(b).iter().copied().map(vreg).collect(),
                    args: (0..succs.len())
                        .map(|s| a.branch_blockparams(b, range.last(), s).iter().copied().map(vreg).collect())
                        .collect(),
                }
            })
            .collect();
        let labels =
            a.debug_value_labels().iter().map(|&(v, from, to, l)| (vreg(v), inst(from), inst(to), l)).collect();
        let sizes = [regalloc2::RegClass::Int, regalloc2::RegClass::Float, regalloc2::RegClass::Vector];
        View {
            blocks,
            operands,
            insts,
            labels,
            entry: block(a.entry_block()),
            num_vregs: a.num_vregs(),
            spillslot_sizes: sizes.map(|c| a.spillslot_size(c)),
            multi_spillslot_named_by_last_slot: a.multi_spillslot_named_by_last_slot(),
            allow_multiple_vreg_defs: a.allow_multiple_vreg_defs(),
        }
    }
}

impl patched::Function for View {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry_block(&self) -> patched::Block {
        self.entry
    }
    fn block_insns(&self, b: patched::Block) -> patched::InstRange {
        self.blocks[b.index()].insts
    }
    fn block_succs(&self, b: patched::Block) -> &[patched::Block] {
        &self.blocks[b.index()].succs
    }
    fn block_preds(&self, b: patched::Block) -> &[patched::Block] {
        &self.blocks[b.index()].preds
    }
    fn block_params(&self, b: patched::Block) -> &[patched::VReg] {
        &self.blocks[b.index()].params
    }
    fn is_ret(&self, i: patched::Inst) -> bool {
        self.insts[i.index()].3
    }
    fn is_branch(&self, i: patched::Inst) -> bool {
        self.insts[i.index()].4
    }
    fn branch_blockparams(&self, b: patched::Block, _i: patched::Inst, succ: usize) -> &[patched::VReg] {
        &self.blocks[b.index()].args[succ]
    }
    fn inst_operands(&self, i: patched::Inst) -> &[patched::Operand] {
        let (start, end, ..) = self.insts[i.index()];
        &self.operands[start..end]
    }
    fn inst_clobbers(&self, i: patched::Inst) -> patched::PRegSet {
        self.insts[i.index()].2
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn debug_value_labels(&self) -> &[(patched::VReg, patched::Inst, patched::Inst, u32)] {
        &self.labels
    }
    fn spillslot_size(&self, c: patched::RegClass) -> usize {
        self.spillslot_sizes[c as usize]
    }
    fn multi_spillslot_named_by_last_slot(&self) -> bool {
        self.multi_spillslot_named_by_last_slot
    }
    fn allow_multiple_vreg_defs(&self) -> bool {
        self.allow_multiple_vreg_defs
    }
}

fn machine_env_patched(k: usize) -> patched::MachineEnv {
    let env = machine_env(k);
    patched::MachineEnv {
        preferred_regs_by_class: env.preferred_regs_by_class.map(preg_set),
        non_preferred_regs_by_class: env.non_preferred_regs_by_class.map(preg_set),
        scratch_by_class: env.scratch_by_class.map(|p| p.map(preg)),
        fixed_stack_slots: env.fixed_stack_slots.into_iter().map(preg).collect(),
    }
}

/// An allocation in the stock crate's types. `Allocation::from_bits`
/// would do it, but its debug assertion rejects every valid encoding in
/// 0.15.2 (it tests the kind bits against 5, and the kinds are 0 to 2).
fn alloc_back(a: patched::Allocation) -> regalloc2::Allocation {
    if let Some(p) = a.as_reg() {
        regalloc2::Allocation::reg(regalloc2::PReg::new(p.hw_enc(), class_back(p.class())))
    } else if let Some(slot) = a.as_stack() {
        regalloc2::Allocation::stack(regalloc2::SpillSlot::new(slot.index()))
    } else {
        regalloc2::Allocation::none()
    }
}

fn class_back(c: patched::RegClass) -> regalloc2::RegClass {
    match c {
        patched::RegClass::Int => regalloc2::RegClass::Int,
        patched::RegClass::Float => regalloc2::RegClass::Float,
        patched::RegClass::Vector => regalloc2::RegClass::Vector,
    }
}

fn point_back(p: patched::ProgPoint) -> regalloc2::ProgPoint {
    regalloc2::ProgPoint::from_index(p.to_index())
}

/// The patched crate's output in the stock crate's types (its statistics
/// left at zero: the stock crate's `Stats` has other fields).
fn output_back(o: &patched::Output) -> regalloc2::Output {
    regalloc2::Output {
        num_spillslots: o.num_spillslots,
        edits: o
            .edits
            .iter()
            .map(|(p, patched::Edit::Move { from, to })| {
                (point_back(*p), regalloc2::Edit::Move { from: alloc_back(*from), to: alloc_back(*to) })
            })
            .collect(),
        allocs: o.allocs.iter().copied().map(alloc_back).collect(),
        inst_alloc_offsets: o.inst_alloc_offsets.clone(),
        debug_locations: o
            .debug_locations
            .iter()
            .map(|&(l, from, to, a)| (l, point_back(from), point_back(to), alloc_back(a)))
            .collect(),
        stats: Default::default(),
    }
}

fn error_back(e: patched::RegAllocError) -> regalloc2::RegAllocError {
    use patched::RegAllocError as P;
    use regalloc2::RegAllocError as S;
    let block_back = |b: patched::Block| regalloc2::Block::new(b.index());
    let inst_back = |i: patched::Inst| regalloc2::Inst::new(i.index());
    match e {
        P::CritEdge(a, b) => S::CritEdge(block_back(a), block_back(b)),
        P::SSA(v, i) => S::SSA(regalloc2::VReg::from_bits(v.bits() as u32), inst_back(i)),
        P::BB(b) => S::BB(block_back(b)),
        P::Branch(i) => S::Branch(inst_back(i)),
        P::EntryLivein => S::EntryLivein,
        P::DisallowedBranchArg(i) => S::DisallowedBranchArg(inst_back(i)),
        P::TooManyLiveRegs => S::TooManyLiveRegs,
        P::TooManyOperands => S::TooManyOperands,
    }
}

/// Whether two outputs in the stock crate's types make the same decisions.
fn same_output(a: &regalloc2::Output, b: &regalloc2::Output) -> bool {
    let edits = |o: &regalloc2::Output| -> Vec<(u32, u32, u32)> {
        o.edits.iter().map(|(p, regalloc2::Edit::Move { from, to })| (p.to_index(), from.bits(), to.bits())).collect()
    };
    a.num_spillslots == b.num_spillslots
        && a.allocs == b.allocs
        && a.inst_alloc_offsets == b.inst_alloc_offsets
        && a.debug_locations == b.debug_locations
        && edits(a) == edits(b)
}

/// The patched crate's allocation of `adapter` in the first `k` registers,
/// compared with the stock crate's when `SSAREF_REGALLOC2_COMPARE_STOCK`
/// names a file (the module documentation).
pub fn run(
    adapter: &Adapter,
    k: usize,
    options: &regalloc2::RegallocOptions,
) -> Result<regalloc2::Output, regalloc2::RegAllocError> {
    let algorithm = match options.algorithm {
        regalloc2::Algorithm::Ion => patched::Algorithm::Ion,
        regalloc2::Algorithm::Fastalloc => patched::Algorithm::Fastalloc,
    };
    let patched_options =
        patched::RegallocOptions { verbose_log: options.verbose_log, validate_ssa: options.validate_ssa, algorithm };
    let view = View::new(adapter);
    let result = patched::run(&view, &machine_env_patched(k), &patched_options);
    let output = result.as_ref().map(output_back).map_err(|e| error_back(e.clone()));
    if let Some(path) = std::env::var_os("SSAREF_REGALLOC2_COMPARE_STOCK") {
        let stock = regalloc2::run(adapter, &machine_env(k), options);
        let line = match (&output, &stock, &result) {
            (Ok(a), Ok(b), _) if same_output(a, b) => "same".to_string(),
            (Err(a), Err(b), _) if format!("{a:?}") == format!("{b:?}") => "same".to_string(),
            (_, _, Ok(o)) => format!("differs cutoffs={}", o.stats.process_bundle_reg_probe_cutoffs),
            (_, _, Err(_)) => "differs cutoffs=unknown".to_string(),
        };
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
        // One write per line, so that jobs appending to the same file do not
        // interleave within a line.
        if let Err(e) = file.and_then(|mut f| f.write_all(format!("{line}\n").as_bytes())) {
            eprintln!("SSAREF_REGALLOC2_COMPARE_STOCK: {e}");
        }
    }
    output
}
