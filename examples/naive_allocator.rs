//! Testing your own allocator with ssaref: a deliberately naive register
//! allocator, written outside the crate through its public API only, put
//! under ssaref's differential campaign.
//!
//! The allocator ([`Naive`]) keeps every SSA value in a spill slot of its
//! own, reloads the operands of each instruction into rax and rcx, and
//! stores each result back: correct for every K, and slow. Phis become
//! copies at the end of each predecessor (critical edges split first, with
//! ssaref's `split_critical_edges`), done in two rounds through a staging
//! slot per phi, because the copies of one block's phis happen in parallel.
//!
//! The planted bug: with `planted_bug` on, the allocator forgets that, and
//! copies each argument straight into its phi's slot, one phi after the
//! other. When one phi's argument is another phi of the same block (a loop
//! that swaps two variables: the swap problem of Briggs et al.), the later
//! copy reads the slot the earlier one already overwrote. ssaref's
//! generator produces such loops on purpose, so a short campaign finds the
//! bug; ssaref's allocation checker rejects the allocation, and the
//! reducer shrinks the case to a few statements.
//!
//! Design: the allocator and its test live in this one file. The example
//! is declared with `test = true` in `Cargo.toml`, so `cargo test` also
//! compiles it as a test and runs the `#[test]`s at the end (the campaign
//! finds the bug, the case is on disk, `reduce_with` shrinks it), while
//! `cargo run --release --example naive_allocator -- [--planted-bug]
//! [--count N] [--seed S] [--shard I/N] [--out DIR]` runs the campaign by hand, reduces
//! the first failing case, and exits with 1 when a case failed. No code is
//! shared through `#[path]` or a copy, and the test uses the allocator
//! exactly as a user's crate would.

use ssaref::backend::{Backend, Prepared};
use ssaref::campaign::driver::{run_campaign, CampaignConfig, CampaignSummary};
use ssaref::differential::DiffConfig;
use ssaref::entity::{EntityRef, EntityVec};
use ssaref::error::{CheckError, EliminationError, PassError};
use ssaref::ir::{Block, Function, Module, Op, Terminator, Value};
use ssaref::mir::{Annot, Loc, MBlock, MFunction, MInst, MInstA, MModule, MTerm, PhiAnnot, Reg, Slot};
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::runner::Observer;
use std::sync::Arc;

/// The naive allocator. `planted_bug` turns on the bug described in the
/// module documentation.
pub struct Naive {
    pub planted_bug: bool,
}

const R0: Reg = Reg(0);
const R1: Reg = Reg(1);

fn inst(inst: MInst, reads: Vec<Value>, defines: Option<Value>) -> MInstA {
    MInstA { inst, annot: Annot { reads, defines } }
}

fn transfer(i: MInst) -> MInstA {
    inst(i, Vec::new(), None)
}

impl Naive {
    fn allocate_function(&self, f: &Function, k: usize) -> Result<MFunction, PassError> {
        let fail = |error: CheckError| PassError::new(format!("naive[k={k}]"), "input", error);
        let mut f = f.clone();
        ssaref::analysis::critical_edges::split_critical_edges(&mut f);
        // Annotations name copy-canonical values (`mir.rs`): a copy is its
        // source, and lives in its source's slot.
        let mut copy_of: Vec<Option<Value>> = vec![None; f.value_count as usize];
        for data in f.blocks.values() {
            for i in &data.insts {
                if let (Some(d), Op::Copy(s)) = (i.dest, &i.op) {
                    copy_of[d.index()] = Some(*s);
                }
            }
        }
        let canon = |mut v: Value| {
            while let Some(s) = copy_of[v.index()] {
                v = s;
            }
            v
        };
        let slot = |v: Value| Slot(canon(v).index() as u32);
        let max_phis = f.blocks.values().map(|b| b.phis.len()).max().unwrap_or(0);
        let staging = |j: usize| Slot(f.value_count + j as u32);
        let mut blocks: EntityVec<Block, MBlock> = EntityVec::new();
        for (b, data) in f.blocks.iter() {
            let mut code = Vec::new();
            let reload = |code: &mut Vec<MInstA>, r: Reg, v: Value| {
                code.push(transfer(MInst::Reload { dst: r, slot: slot(v) }));
                canon(v)
            };
            for i in &data.insts {
                let d = i.dest.map(canon);
                match i.op {
                    Op::Copy(_) => continue,
                    Op::Const(imm) => code.push(inst(MInst::Const { dst: R0, imm }, vec![], d)),
                    // Never executed (Braun et al.'s undefined value).
                    Op::Undef => code.push(inst(MInst::Const { dst: R0, imm: 0 }, vec![], d)),
                    Op::Unary(op, a) => {
                        let a = reload(&mut code, R0, a);
                        code.push(inst(MInst::Unary { op, dst: R0, src: R0 }, vec![a], d));
                    }
                    Op::Binary(op, a, b) => {
                        let a = reload(&mut code, R0, a);
                        let b = reload(&mut code, R1, b);
                        code.push(inst(MInst::Binary { op, dst: R0, a: R0, b: R1 }, vec![a, b], d));
                    }
                    Op::Load(a) => {
                        let a = reload(&mut code, R0, a);
                        code.push(inst(MInst::Load { dst: R0, addr: R0 }, vec![a], d));
                    }
                    Op::Store { addr, value } => {
                        let a = reload(&mut code, R0, addr);
                        let v = reload(&mut code, R1, value);
                        code.push(inst(MInst::Store { addr: R0, src: R1 }, vec![a, v], None));
                    }
                    Op::Out(v) => {
                        let v = reload(&mut code, R0, v);
                        code.push(inst(MInst::Out { src: R0 }, vec![v], None));
                    }
                    Op::Call(_) => {
                        let error = CheckError::CallsNotSupported { function: f.name.clone(), stage: "naive" };
                        return Err(fail(error));
                    }
                }
                if let Some(d) = d {
                    code.push(transfer(MInst::Spill { slot: slot(d), src: R0 }));
                }
            }
            // The phis of the successor: copies at the end of this block.
            if let Terminator::Jump(s) = data.term {
                let succ = &f.blocks[s];
                let edge = succ
                    .preds
                    .iter()
                    .position(|&p| p == b)
                    .ok_or_else(|| fail(EliminationError::NotAPredecessor { pred: b, succ: s }.into()))?;
                if self.planted_bug {
                    for phi in &succ.phis {
                        code.push(transfer(MInst::Reload { dst: R0, slot: slot(phi.args[edge]) }));
                        code.push(transfer(MInst::Spill { slot: slot(phi.dest), src: R0 }));
                    }
                } else {
                    for (j, phi) in succ.phis.iter().enumerate() {
                        code.push(transfer(MInst::Reload { dst: R0, slot: slot(phi.args[edge]) }));
                        code.push(transfer(MInst::Spill { slot: staging(j), src: R0 }));
                    }
                    for (j, phi) in succ.phis.iter().enumerate() {
                        code.push(transfer(MInst::Reload { dst: R0, slot: staging(j) }));
                        code.push(transfer(MInst::Spill { slot: slot(phi.dest), src: R0 }));
                    }
                }
            } else if let Some(&s) = data.term.successors().iter().find(|&&s| !f.blocks[s].phis.is_empty()) {
                let successors = data.term.successors().len();
                return Err(fail(EliminationError::PhisOnBranchingEdge { pred: b, succ: s, successors }.into()));
            }
            let (term, term_reads) = match data.term {
                Terminator::Jump(s) => (MTerm::Jump(s), None),
                Terminator::Branch { cond, then_dest, else_dest } => {
                    let c = reload(&mut code, R0, cond);
                    (MTerm::Branch { cond: R0, then_dest, else_dest }, Some(c))
                }
                Terminator::Return(v) => {
                    let v = reload(&mut code, R0, v);
                    (MTerm::Return(R0), Some(v))
                }
            };
            let phis = data
                .phis
                .iter()
                .map(|p| PhiAnnot {
                    dest: p.dest,
                    loc: Loc::Slot(slot(p.dest)),
                    args: p.args.iter().map(|&a| canon(a)).collect(),
                })
                .collect();
            blocks.push(MBlock { preds: data.preds.clone(), phis, insts: code, term, term_reads });
        }
        let params = f.params.iter().map(|&p| (Loc::Slot(slot(p)), p)).collect();
        Ok(MFunction { name: f.name.clone(), k, slot_count: f.value_count + max_phis as u32, params, blocks })
    }
}

impl Backend for Naive {
    fn name(&self) -> String {
        "naive".to_string()
    }

    fn allocate(
        &self,
        ssa: &Module,
        _prepared: &Prepared,
        k: usize,
        _flags: Flags,
        _stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError> {
        let functions = ssa.functions.iter().map(|f| self.allocate_function(f, k)).collect::<Result<_, _>>()?;
        Ok(MModule { functions })
    }
}

/// A campaign over `count` generated programs from `seed` on the naive
/// allocator alone, failing cases written to `out`.
pub fn campaign(planted_bug: bool, count: u64, seed: u64, out: &std::path::Path) -> CampaignSummary {
    let config = campaign_config(planted_bug, count, seed, out);
    run_campaign(&config, &ssaref_interp::Interp, &std::sync::atomic::AtomicBool::new(false))
}

/// The configuration of [`campaign`].
pub fn campaign_config(planted_bug: bool, count: u64, seed: u64, out: &std::path::Path) -> CampaignConfig {
    // Only the naive allocator (no route), with K = 2 and 4 on every
    // program; the construction variant still rotates.
    CampaignConfig::new(out)
        .with_max_programs(count)
        .with_seed(seed)
        .with_regs(vec![2, 4])
        .with_fuel(ssaref_interp::DEFAULT_FUEL)
        .with_routes(false, Vec::new(), false)
        .with_backends(vec![Arc::new(Naive { planted_bug })])
}

/// Reduces a case written by [`campaign`] against the naive allocator alone.
pub fn reduce_case(
    case: &std::path::Path,
    planted_bug: bool,
) -> Result<ssaref::reduce::source::Reduction, Box<dyn std::error::Error>> {
    use ssaref::reduce::source::{reduce_with, ReduceConfig};
    let text = std::fs::read_to_string(case)?;
    let file = ssaref::frontend::case_file::CaseFile::parse(&text).map_err(|d| d.to_string())?;
    let regs = file.regs.clone().unwrap_or_else(|| vec![2, 4]);
    let tc = file.test_case(case.display().to_string());
    let config = ReduceConfig { max_tests: 5_000, fuel: ssaref_interp::DEFAULT_FUEL };
    let diff = DiffConfig::standard(&regs, config.fuel).only(vec![Arc::new(Naive { planted_bug })]);
    Ok(reduce_with(&tc, &regs, &ssaref_interp::Interp, &config, &diff)?)
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: &str| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| default.into())
    };
    let planted_bug = args.iter().any(|a| a == "--planted-bug");
    let count: u64 = value("--count", "300").parse().expect("--count N");
    let seed: u64 = value("--seed", "1").parse().expect("--seed S");
    let out = std::path::PathBuf::from(value("--out", "naive-cases"));
    // `--shard I/N` runs one shard, as `ssaref fuzz` does, and the summary
    // file lets `ssaref fuzz-merge` add the shards up (.ci/slurm plants
    // the bug in a Slurm array job this way).
    let shard: ssaref::campaign::shard::Shard = value("--shard", "0/1").parse().expect("--shard I/N");
    let config = campaign_config(planted_bug, count, seed, &out).with_shard(shard);
    let summary = run_campaign(&config, &ssaref_interp::Interp, &std::sync::atomic::AtomicBool::new(false));
    print!("{}", summary.render(1));
    match ssaref::campaign::summary_file::write(&config, 1, &summary) {
        Ok(path) => println!("summary for fuzz-merge: {}", path.display()),
        Err(e) => println!("{}: cannot write the summary: {e}", out.display()),
    }
    let Some(first) = summary.failures.first() else { return std::process::ExitCode::SUCCESS };
    match reduce_case(first, planted_bug) {
        Ok(red) => {
            println!("reduced {}: {}", first.display(), red.failure);
            println!("  statements: {} -> {}", red.stats.statements_before, red.stats.statements_after);
            print!("{}", ssaref::frontend::ast_print::print_program(&red.case.program));
        }
        Err(e) => println!("could not reduce {}: {e}", first.display()),
    }
    std::process::ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ssaref-naive-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn without_the_bug_every_stage_agrees() {
        let dir = temp_dir("clean");
        let summary = campaign(false, 80, 1, &dir);
        assert!(summary.failures.is_empty(), "{}", summary.render(1));
        assert!(summary.stages > 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_campaign_finds_the_planted_bug_and_reduce_shrinks_it() {
        let dir = temp_dir("bug");
        let summary = campaign(true, 300, 1, &dir);
        let first = summary.failures.first().unwrap_or_else(|| panic!("no failure found:\n{}", summary.render(1)));
        let text = std::fs::read_to_string(first).expect("the case is on disk");
        assert!(text.contains("naive[k="), "{text}");
        let red = reduce_case(first, true).expect("the case fails, so it reduces");
        assert!(red.stats.statements_after < red.stats.statements_before, "{:?}", red.stats);
        // Still the same failure, and the correct allocator passes it.
        assert_eq!(ssaref::reduce::source::Failure::of(&red.verdict).as_ref(), Some(&red.failure));
        let diff = DiffConfig::standard(&red.regs, ssaref_interp::DEFAULT_FUEL)
            .only(vec![Arc::new(Naive { planted_bug: false })]);
        let clean =
            ssaref::differential::differential_full(&red.case.program, &red.case.args, &ssaref_interp::Interp, &diff);
        assert!(clean.is_ok(), "{clean:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
