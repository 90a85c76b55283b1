/*
 * Released under the terms of the Apache 2.0 license with LLVM
 * exception. See `LICENSE` for details.
 */

//! Tests of Ion's work on functions shaped to make one dimension large:
//! each builds the function directly against the `Function` trait, runs
//! the allocator with a reused context, checks the result with the
//! checker, and bounds the steps that the allocator's own `Stats` count.

use crate::{
    checker::Checker, ion, Block, Ctx, Function, Inst, InstRange, MachineEnv, Operand, PReg,
    PRegSet, RegClass, VReg,
};
use alloc::vec;
use alloc::vec::Vec;

/// A function laid out block after block; each block's last instruction
/// is its branch or return.
struct ShapeFunc {
    insts: Vec<Vec<Operand>>,
    is_ret: Vec<bool>,
    is_branch: Vec<bool>,
    ranges: Vec<InstRange>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
    params: Vec<Vec<VReg>>,
    args: Vec<Vec<Vec<VReg>>>,
    num_vregs: usize,
}

impl ShapeFunc {
    fn new(num_blocks: usize, num_vregs: usize) -> Self {
        ShapeFunc {
            insts: vec![],
            is_ret: vec![],
            is_branch: vec![],
            ranges: vec![],
            succs: vec![vec![]; num_blocks],
            preds: vec![vec![]; num_blocks],
            params: vec![vec![]; num_blocks],
            args: vec![vec![]; num_blocks],
            num_vregs,
        }
    }

    /// Appends the next block: its parameters, its instructions, then a
    /// branch (with no operands) or a return of `ret`.
    fn block(&mut self, params: Vec<VReg>, insts: Vec<Vec<Operand>>, ret: Option<VReg>) {
        let b = self.ranges.len();
        let first = self.insts.len();
        for ops in insts {
            self.insts.push(ops);
            self.is_ret.push(false);
            self.is_branch.push(false);
        }
        match ret {
            Some(v) => self.insts.push(vec![Operand::reg_use(v)]),
            None => self.insts.push(vec![]),
        }
        self.is_ret.push(ret.is_some());
        self.is_branch.push(ret.is_none());
        self.params[b] = params;
        self.ranges.push(InstRange::new(
            Inst::new(first),
            Inst::new(self.insts.len()),
        ));
    }

    fn edge(&mut self, from: usize, to: usize, args: Vec<VReg>) {
        self.succs[from].push(Block::new(to));
        self.preds[to].push(Block::new(from));
        self.args[from].push(args);
    }
}

impl Function for ShapeFunc {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.ranges.len()
    }
    fn entry_block(&self) -> Block {
        Block::new(0)
    }
    fn block_insns(&self, block: Block) -> InstRange {
        self.ranges[block.index()]
    }
    fn block_succs(&self, block: Block) -> &[Block] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: Block) -> &[Block] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: Block) -> &[VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, insn: Inst) -> bool {
        self.is_ret[insn.index()]
    }
    fn is_branch(&self, insn: Inst) -> bool {
        self.is_branch[insn.index()]
    }
    fn branch_blockparams(&self, block: Block, _insn: Inst, succ_idx: usize) -> &[VReg] {
        &self.args[block.index()][succ_idx]
    }
    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        &self.insts[insn.index()]
    }
    fn inst_clobbers(&self, _insn: Inst) -> PRegSet {
        PRegSet::empty()
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn spillslot_size(&self, _regclass: RegClass) -> usize {
        1
    }
}

fn v(i: usize) -> VReg {
    VReg::new(i, RegClass::Int)
}

/// Four registers of class `Int`.
fn machine_env() -> MachineEnv {
    let mut int = PRegSet::empty();
    for i in 0..4 {
        int.add(PReg::new(i, RegClass::Int));
    }
    MachineEnv {
        preferred_regs_by_class: [int, PRegSet::empty(), PRegSet::empty()],
        non_preferred_regs_by_class: [PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: vec![],
    }
}

/// Allocates `f` in `ctx` and checks the result with the checker.
fn allocate_and_check(f: &ShapeFunc, ctx: &mut Ctx, validate_ssa: bool) {
    let env = machine_env();
    ion::run(f, &env, ctx, false, validate_ssa).expect("allocation succeeds");
    let mut checker = Checker::new(f, &env);
    checker.prepare(&ctx.output);
    checker.run().expect("checker accepts the allocation");
}

/// `n` loops nested in one another, laid out in reverse postorder with
/// each loop's exit right after its header: `entry, h_0, exit_0, pre_1,
/// h_1, exit_1, ..., h_{n-1}, exit_{n-1}, body`. Every header has one
/// block parameter, and each of them is live in a single range.
fn nested_loops(n: usize) -> ShapeFunc {
    let (limit, init) = (v(0), v(1));
    let param = |k: usize| v(2 + 2 * k);
    let cond = |k: usize| v(3 + 2 * k);
    let incremented = v(2 + 2 * n);
    let header = |k: usize| 1 + 3 * k;
    let exit = |k: usize| 2 + 3 * k;
    let pre = |k: usize| 3 * k;
    let body = 3 * n;
    let mut f = ShapeFunc::new(3 * n + 1, 3 + 2 * n);
    f.block(
        vec![],
        vec![vec![Operand::reg_def(limit), Operand::reg_def(init)]],
        None,
    );
    for k in 0..n {
        if k > 0 {
            f.block(vec![], vec![], None);
        }
        let compare = vec![
            Operand::reg_use(param(k)),
            Operand::reg_use(limit),
            Operand::reg_def(cond(k)),
        ];
        f.block(vec![param(k)], vec![compare], None);
        // Leaving loop `k` goes round loop `k - 1` again; leaving loop 0
        // returns.
        f.block(vec![], vec![], if k == 0 { Some(param(0)) } else { None });
    }
    f.block(
        vec![],
        vec![vec![
            Operand::reg_use(param(n - 1)),
            Operand::reg_def(incremented),
        ]],
        None,
    );
    f.edge(0, header(0), vec![init]);
    for k in 0..n {
        if k + 1 < n {
            f.edge(header(k), pre(k + 1), vec![]);
            f.edge(pre(k + 1), header(k + 1), vec![param(k)]);
        } else {
            f.edge(header(k), body, vec![]);
        }
        f.edge(header(k), exit(k), vec![]);
        if k > 0 {
            f.edge(exit(k), header(k - 1), vec![param(k)]);
        }
    }
    f.edge(body, header(n - 1), vec![incremented]);
    f
}

/// Matching block-parameter inputs to live ranges visits each entry of
/// `blockparam_ins` a bounded number of times, also when every block
/// parameter has a single live range (the scan of a vreg starts at its own
/// entries, not where an earlier vreg's scan stopped).
#[test]
fn blockparam_ins_scan_is_linear_on_nested_loops() {
    let mut ctx = Ctx::default();
    for n in [1, 2, 5, 50, 400] {
        let f = nested_loops(n);
        allocate_and_check(&f, &mut ctx, true);
        let stats = &ctx.output.stats;
        assert_eq!(stats.blockparam_ins_count, 2 * n);
        assert!(
            stats.blockparam_ins_scan_steps <= 4 * stats.blockparam_ins_count,
            "n = {n}: {} steps for {} entries",
            stats.blockparam_ins_scan_steps,
            stats.blockparam_ins_count
        );
    }
}

/// `wide_join(n)`: the entry defines `p`; test `i` compares `p` with `i`
/// and goes to its own block, which defines `x_i` and jumps to the join
/// with it, or to the next test; the last test's else block defines
/// `x_n`. The join has `n + 1` predecessors hanging off a chain of tests,
/// and one block parameter.
fn wide_join(n: usize) -> ShapeFunc {
    let p = v(0);
    let cond = |i: usize| v(1 + 2 * i);
    let value = |i: usize| v(2 + 2 * i);
    let joined = v(3 + 2 * n);
    let test = |i: usize| 1 + 2 * i;
    let then = |i: usize| 2 + 2 * i;
    let join = 2 + 2 * n;
    let mut f = ShapeFunc::new(2 * n + 3, 4 + 2 * n);
    f.block(vec![], vec![vec![Operand::reg_def(p)]], None);
    for i in 0..n {
        f.block(
            vec![],
            vec![vec![Operand::reg_use(p), Operand::reg_def(cond(i))]],
            None,
        );
        f.block(vec![], vec![vec![Operand::reg_def(value(i))]], None);
    }
    f.block(vec![], vec![vec![Operand::reg_def(value(n))]], None);
    f.block(vec![joined], vec![], Some(joined));
    f.edge(0, test(0), vec![]);
    for i in 0..n {
        f.edge(test(i), then(i), vec![]);
        f.edge(test(i), test(i + 1), vec![]);
        f.edge(then(i), join, vec![value(i)]);
    }
    f.edge(test(n), join, vec![value(n)]);
    f
}

/// The dominator tree is computed only for SSA validation, its only
/// reader, and the allocation is the same with and without it.
#[test]
fn domtree_only_for_ssa_validation() {
    let mut ctx = Ctx::default();
    for n in [1, 2, 5, 50, 400] {
        let f = wide_join(n);
        allocate_and_check(&f, &mut ctx, true);
        assert_eq!(ctx.cfginfo.domtree.len(), f.num_blocks());
        let validated = ctx.output.clone();
        allocate_and_check(&f, &mut ctx, false);
        assert!(
            ctx.cfginfo.domtree.is_empty(),
            "n = {}: domtree computed",
            n
        );
        assert_eq!(ctx.output.allocs, validated.allocs);
        assert_eq!(
            alloc::format!("{:?}", ctx.output.edits),
            alloc::format!("{:?}", validated.edits)
        );
        assert_eq!(ctx.output.num_spillslots, validated.num_spillslots);
    }
}

/// `params(n)`: the entry defines `n` values at once in any location (as
/// function parameters are), then adds them up one after another and
/// returns the sum: after the `k`-th addition `n - k` of them are live.
fn params(n: usize) -> ShapeFunc {
    let param = |i: usize| v(i);
    let sum = |i: usize| v(n + i);
    let mut insts = vec![(0..n).map(|i| Operand::any_def(param(i))).collect()];
    insts.push(vec![Operand::reg_def(sum(0))]);
    for i in 0..n {
        insts.push(vec![
            Operand::reg_use(sum(i)),
            Operand::reg_use(param(i)),
            Operand::reg_def(sum(i + 1)),
        ]);
    }
    let mut f = ShapeFunc::new(1, 2 * n + 1);
    f.block(vec![], insts, Some(sum(n)));
    f
}

/// A probe stops collecting the bundles that conflict with it after
/// `MAX_PROBE_CONFLICTS`: on `params`, a long bundle probing a register
/// meets every short bundle already there, and without the cutoff the
/// conflicts collected grow as `n^2`.
#[test]
fn probe_conflicts_are_cut_off() {
    let mut ctx = Ctx::default();
    for n in [1, 2, 5, 50, 400] {
        let f = params(n);
        allocate_and_check(&f, &mut ctx, true);
        let stats = &ctx.output.stats;
        assert!(
            stats.process_bundle_reg_probe_conflicts <= 64 * n,
            "n = {n}: {} conflicts in {} probes",
            stats.process_bundle_reg_probe_conflicts,
            stats.process_bundle_reg_probes_any
        );
        assert!(
            stats.process_bundle_reg_probes_any <= 40 * n,
            "n = {n}: {} probes",
            stats.process_bundle_reg_probes_any
        );
    }
}
