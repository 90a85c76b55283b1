//! Planted mistakes at calls, found by a short `--calls` campaign and
//! reduced: a back end written against the public `Backend` trait only
//! (as `examples/naive_allocator.rs` is) wraps the regalloc2 route and
//! breaks its machine IR the way an allocator that gets calls wrong would:
//! - `ForgetRestore`: the first reload after a call (before the next one)
//!   is dropped, so a register is used after the call as if it had kept
//!   its value across it (a caller-saved value not kept across a call);
//! - `SwapArguments`: the locations of a call's first two arguments are
//!   exchanged (the annotations still say which value each must hold).
//!
//! The campaign (source programs with calls, K = 2 and 4, that back end
//! alone) must find the mistake; the reducer must shrink the first case to
//! a program that still fails the same way and is small.

use crate::common::InterpOracle;
use ssaref::backend::regalloc2::Regalloc2;
use ssaref::backend::{Backend, Prepared};
use ssaref::campaign::driver::{run_campaign, CampaignConfig};
use ssaref::differential::DiffConfig;
use ssaref::error::PassError;
use ssaref::ir::Module;
use ssaref::mir::{MInst, MModule};
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::runner::Observer;
use ssaref::reduce::source::{reduce_with, Failure, ReduceConfig};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mistake {
    ForgetRestore,
    SwapArguments,
}

/// regalloc2 with `mistake` planted in its output (`None`: none).
struct Planted {
    mistake: Option<Mistake>,
}

/// Plants `mistake` in every function of `mir`.
fn plant(mir: &mut MModule, mistake: Mistake) {
    for f in &mut mir.functions {
        for block in f.blocks.values_mut() {
            let insts = &mut block.insts;
            let calls: Vec<usize> = (0..insts.len()).filter(|&i| matches!(insts[i].inst, MInst::Call(_))).collect();
            for (n, &at) in calls.iter().enumerate().rev() {
                match mistake {
                    Mistake::SwapArguments => {
                        if let MInst::Call(call) = &mut insts[at].inst {
                            if call.args.len() >= 2 {
                                call.args.swap(0, 1);
                            }
                        }
                    }
                    Mistake::ForgetRestore => {
                        let end = calls.get(n + 1).copied().unwrap_or(insts.len());
                        if let Some(r) = (at + 1..end).find(|&i| matches!(insts[i].inst, MInst::Reload { .. })) {
                            insts.remove(r);
                        }
                    }
                }
            }
        }
    }
}

impl Backend for Planted {
    fn name(&self) -> String {
        match self.mistake {
            Some(m) => format!("planted[{m:?}]"),
            None => "planted".to_string(),
        }
    }

    fn allocate(
        &self,
        ssa: &Module,
        prepared: &Prepared,
        k: usize,
        flags: Flags,
        stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError> {
        let mut mir = Regalloc2.allocate(ssa, prepared, k, flags, stages)?;
        if let Some(m) = self.mistake {
            plant(&mut mir, m);
        }
        Ok(mir)
    }

    fn handles_calls(&self) -> bool {
        true
    }
}

const REGS: [usize; 2] = [2, 4];

/// A campaign of `count` source programs with calls on the planted back
/// end alone; returns its failing cases.
fn campaign(mistake: Option<Mistake>, count: u64, dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let _ = std::fs::remove_dir_all(dir);
    let config = CampaignConfig::new(dir)
        .with_max_programs(count)
        .with_seed(1)
        .with_regs(REGS.to_vec())
        .with_ir_share(0.0)
        .with_calls(true)
        .with_routes(false, Vec::new(), false)
        .with_backends(vec![Arc::new(Planted { mistake })]);
    let summary = run_campaign(&config, &InterpOracle, &AtomicBool::new(false));
    assert!(summary.call_programs * 10 >= summary.programs * 9, "{}", summary.render(1));
    summary.failures
}

fn found_and_reduced(mistake: Mistake, tag: &str) {
    let started = std::time::Instant::now();
    let dir = std::env::temp_dir().join(format!("ssaref-calls-planted-{tag}-{}", std::process::id()));
    let failures = campaign(Some(mistake), 60, &dir);
    let first = failures.first().unwrap_or_else(|| panic!("the campaign finds {mistake:?}"));
    let text = std::fs::read_to_string(first).expect("the case is on disk");
    let file = ssaref::frontend::case_file::CaseFile::parse(&text).expect("a valid case file");
    let tc = file.test_case(first.display().to_string());
    let config = ReduceConfig { max_tests: 3_000, fuel: 1_000_000 };
    let diff = DiffConfig::standard(&REGS, config.fuel).only(vec![Arc::new(Planted { mistake: Some(mistake) })]);
    let red = reduce_with(&tc, &REGS, &InterpOracle, &config, &diff).expect("the case fails, so it reduces");
    assert_eq!(Failure::of(&red.verdict).as_ref(), Some(&red.failure), "the reduced case still fails");
    let program = &red.case.program;
    let mut statements = 0;
    for f in &program.functions {
        ssaref::ast::walk_stmts(&f.body, |_, _| statements += 1);
    }
    let text = ssaref::frontend::ast_print::print_program(program);
    assert!(program.has_calls(), "the reduced case keeps a call:\n{text}");
    assert!(statements <= 12, "{statements} statements after reduction:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{mistake:?}: found and reduced to {statements} statement(s) in {:.1?}:\n{text}", started.elapsed());
}

#[test]
fn without_a_mistake_the_wrapped_route_agrees_on_programs_with_calls() {
    let dir = std::env::temp_dir().join(format!("ssaref-calls-planted-none-{}", std::process::id()));
    assert!(campaign(None, 40, &dir).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_restore_forgotten_after_a_call_is_found_and_reduced() {
    found_and_reduced(Mistake::ForgetRestore, "restore");
}

#[test]
fn arguments_swapped_at_a_call_are_found_and_reduced() {
    found_and_reduced(Mistake::SwapArguments, "swap");
}
