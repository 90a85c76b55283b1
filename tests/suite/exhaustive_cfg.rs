//! Bounded-exhaustive check of SSA construction (proofs-notes/ssa-construction.md).
//!
//! Every control-flow graph of up to 4 blocks (each block with 0, 1 or 2
//! successors, the entry fixed, every block reachable, one representative
//! per isomorphism class of the non-entry blocks) is combined with every
//! placement of definitions and uses of 2 variables (in each block, each
//! variable is untouched, defined or used: 9 placements per block; one of
//! each pair of placements that differ by exchanging x and y) and
//! written as a source program with labels and `goto`. Each program is built
//! by Cytron et al.'s construction and by four variants of Braun et al.'s
//! (phi and marker, with and without on-the-fly optimizations, all with
//! Algorithm 5) plus the plain phi variant without Algorithm 5; every result
//! must pass the checkers (SSA, pruned, no trivial phi, minimal where the
//! theory says so, phi count ≤ Cytron's and equal on reducible CFGs without
//! optimizations), and all of them must run to the AST interpreter's outcome
//! on two inputs that steer the branches differently.
//!
//! `cargo test` runs a slice (all CFGs of up to 3 blocks and every 61st
//! case with 4 blocks); `SSAREF_EXHAUSTIVE=full cargo test --release --test
//! suite exhaustive_cfg -- --nocapture` runs all of it and prints the counts.

use crate::common::InterpOracle;
use ssaref::analysis::reducibility::is_reducible;
use ssaref::analysis::verifier::verify_module;
use ssaref::ast::{BinOp, Block, Expr, Function, Program, Stmt};
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::construction::cytron::construct_cytron;
use ssaref::oracle::Oracle;
use ssaref::pipeline::check_construction_against;
use std::collections::HashSet;

/// A CFG: for each block, its successors (0, 1 or 2 distinct blocks).
pub(crate) type Cfg = Vec<Vec<usize>>;

/// What a block does with one variable.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(usize)]
pub(crate) enum Slot {
    None,
    Def,
    Use,
}

pub(crate) const SLOTS: [Slot; 3] = [Slot::None, Slot::Def, Slot::Use];

fn successor_options(n: usize) -> Vec<Vec<usize>> {
    let mut opts = vec![vec![]];
    opts.extend((0..n).map(|t| vec![t]));
    for a in 0..n {
        for b in a + 1..n {
            opts.push(vec![a, b]);
        }
    }
    opts
}

fn all_reachable(cfg: &Cfg) -> bool {
    let mut seen = vec![false; cfg.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(b) = stack.pop() {
        for &s in &cfg[b] {
            if !seen[s] {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    seen.iter().all(|&s| s)
}

fn permutations(items: Vec<usize>) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.clone();
        let x = rest.remove(i);
        for mut p in permutations(rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

/// The smallest relabeling of the non-entry blocks: one CFG per class.
fn canonical(cfg: &Cfg) -> Cfg {
    let n = cfg.len();
    let mut best: Option<Cfg> = None;
    for perm in permutations((1..n).collect()) {
        let mut map = vec![0];
        map.extend(perm);
        let mut new = vec![Vec::new(); n];
        for b in 0..n {
            let mut s: Vec<usize> = cfg[b].iter().map(|&t| map[t]).collect();
            s.sort();
            new[map[b]] = s;
        }
        if best.as_ref().is_none_or(|b| new < *b) {
            best = Some(new);
        }
    }
    best.expect("at least one permutation")
}

pub(crate) fn canonical_cfgs(n: usize) -> Vec<Cfg> {
    let opts = successor_options(n);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut idx = vec![0usize; n];
    loop {
        let cfg: Cfg = idx.iter().map(|&i| opts[i].clone()).collect();
        if all_reachable(&cfg) {
            let c = canonical(&cfg);
            if seen.insert(c.clone()) {
                out.push(c);
            }
        }
        let mut k = 0;
        loop {
            if k == n {
                return out;
            }
            idx[k] += 1;
            if idx[k] < opts.len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

fn var(name: &str) -> Expr {
    Expr::Var(name.into())
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn label(i: usize) -> String {
    format!("L{i}")
}

/// Writes the CFG with a placement as a program. Each block counts steps in
/// `mem[0]` and returns after 12 of them, so every program terminates; a
/// two-way branch tests a bit of the parameter `p` chosen by the step count.
pub(crate) fn program(cfg: &Cfg, placement: &[(Slot, Slot)]) -> Program {
    let mut stmts = Vec::new();
    for (i, succs) in cfg.iter().enumerate() {
        stmts.push(Stmt::Label(label(i)));
        let step = Expr::Load(Box::new(Expr::Lit(0)));
        stmts.push(Stmt::Store(Expr::Lit(0), bin(BinOp::Add, step.clone(), Expr::Lit(1))));
        stmts.push(Stmt::If(
            bin(BinOp::Gt, step.clone(), Expr::Lit(12)),
            Block::new(vec![Stmt::Return(Expr::Lit(0))]),
            None,
        ));
        for (name, slot) in [("x", placement[i].0), ("y", placement[i].1)] {
            match slot {
                Slot::None => {}
                Slot::Def => stmts.push(Stmt::Assign(name.into(), Expr::Lit((10 * i + name.len() + 1) as i64))),
                Slot::Use => stmts.push(Stmt::Out(var(name))),
            }
        }
        match succs.as_slice() {
            [] => stmts.push(Stmt::Return(Expr::Lit(0))),
            [t] => stmts.push(Stmt::Goto(label(*t))),
            [a, b] => {
                let bit =
                    bin(BinOp::And, bin(BinOp::Shr, var("p"), bin(BinOp::And, step, Expr::Lit(63))), Expr::Lit(1));
                stmts.push(Stmt::If(bit, Block::new(vec![Stmt::Goto(label(*a))]), None));
                stmts.push(Stmt::Goto(label(*b)));
            }
            _ => unreachable!("at most two successors"),
        }
    }
    Program { functions: vec![Function { name: "main".into(), params: vec!["p".into()], body: Block::new(stmts) }] }
}

fn variants() -> Vec<BraunOptions> {
    vec![
        BraunOptions::plain(),
        BraunOptions { marker: true, ..BraunOptions::plain() },
        BraunOptions::all_on(),
        BraunOptions { marker: true, ..BraunOptions::all_on() },
        BraunOptions { remove_redundant_sccs: false, ..BraunOptions::plain() },
    ]
}

const INPUTS: [i64; 2] = [0x2B6D_5A3C_9E17_4F81, !0x2B6D_5A3C_9E17_4F81];

/// Checks one program; returns an error describing the first failure.
fn check_one(program: &Program, variants: &[BraunOptions]) -> Result<bool, String> {
    let cytron = construct_cytron(program);
    verify_module(&cytron).map_err(|e| format!("cytron: {e}"))?;
    let reducible = cytron.functions.iter().all(is_reducible);
    let mut modules = vec![("cytron".to_string(), cytron.clone())];
    for opts in variants {
        let m = construct_program(program, opts);
        check_construction_against(&m, opts, &cytron).map_err(|e| e.to_string())?;
        modules.push((opts.describe(), m));
    }
    for &p in &INPUTS {
        let expected = InterpOracle.run_source(program, &[p], 100_000).map_err(|e| e.to_string())?;
        for (name, m) in &modules {
            let got = InterpOracle.run_ssa(m, &[p], 1_000_000).map_err(|e| e.to_string())?;
            if got != expected {
                return Err(format!(
                    "{name} with p = {p}: {} instead of {}",
                    got.render_full(),
                    expected.render_full()
                ));
            }
        }
    }
    Ok(reducible)
}

/// Runs the enumeration; `stride` > 1 checks every stride-th placement of
/// the 4-block CFGs only. Returns (cases, irreducible cases).
fn run(stride: usize) -> (usize, usize) {
    let variants = variants();
    let mut jobs: Vec<(Cfg, usize)> = Vec::new();
    for n in 1..=4 {
        for cfg in canonical_cfgs(n) {
            jobs.push((cfg, if n == 4 { stride } else { 1 }));
        }
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let chunks: Vec<Vec<(Cfg, usize)>> =
        (0..threads).map(|t| jobs.iter().skip(t).step_by(threads).cloned().collect()).collect();
    let results: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let variants = variants.clone();
                s.spawn(move || {
                    let (mut cases, mut irreducible) = (0, 0);
                    for (cfg, stride) in chunk {
                        let n = cfg.len();
                        let total = 9usize.pow(n as u32);
                        for code in (0..total).step_by(stride) {
                            let placement: Vec<(Slot, Slot)> = (0..n)
                                .map(|i| (code / 9usize.pow(i as u32)) % 9)
                                .map(|d| (SLOTS[d % 3], SLOTS[d / 3]))
                                .collect();
                            // x and y play symmetric roles (same constants,
                            // same kind of statements), so a placement and
                            // its mirror image are the same program up to
                            // renaming: check one of each pair.
                            let xs: Vec<usize> = placement.iter().map(|p| p.0 as usize).collect();
                            let ys: Vec<usize> = placement.iter().map(|p| p.1 as usize).collect();
                            if xs > ys {
                                continue;
                            }
                            let program = program(&cfg, &placement);
                            match check_one(&program, &variants) {
                                Ok(reducible) => {
                                    cases += 1;
                                    irreducible += usize::from(!reducible);
                                }
                                Err(e) => panic!(
                                    "CFG {cfg:?}, placement {placement:?}: {e}\n{}",
                                    ssaref::frontend::ast_print::print_program(&program)
                                ),
                            }
                        }
                    }
                    (cases, irreducible)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker panicked")).collect()
    });
    results.iter().fold((0, 0), |(a, b), &(c, d)| (a + c, b + d))
}

#[test]
fn canonical_cfg_counts_match_the_enumeration() {
    // One representative per isomorphism class of reachable CFGs; the
    // counts were computed independently (by a Python script) before this
    // enumeration was written.
    let counts: Vec<usize> = (1..=4).map(|n| canonical_cfgs(n).len()).collect();
    assert_eq!(counts, vec![2, 8, 70, 802]);
}

#[test]
fn every_small_cfg_and_placement_constructs_correctly() {
    let full = std::env::var("SSAREF_EXHAUSTIVE").is_ok_and(|v| v == "full");
    let stride = if full { 1 } else { 61 };
    let start = std::time::Instant::now();
    let (cases, irreducible) = run(stride);
    eprintln!(
        "exhaustive CFG check ({}): {cases} programs, {irreducible} with irreducible control flow, {:.1}s",
        if full { "full" } else { "slice: every CFG up to 3 blocks, every 61st case with 4" },
        start.elapsed().as_secs_f64()
    );
    assert!(cases > 0 && irreducible > 0);
}
