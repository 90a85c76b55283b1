//! Where Algorithm 5 of Braun et al. ("Simple and Efficient Construction of
//! Static Single Assignment Form", CC 2013, §3.2) can act. The construction
//! skips it on a function whose CFG is reducible and whose values are each
//! bound once, to a variable of their own (`BraunStats::scc_needed` false):
//! there Theorem 1 of §4 leaves no redundant phi SCC (the argument is in
//! proofs-notes/ssa-construction.md, "Where Algorithm 5 can act"). These
//! tests run Algorithm 5 anyway (`Algorithm5::Always`) under every option
//! combination and check that, wherever the gate would skip it, it removes
//! nothing and the function is the same as with the gate.
//!
//! Programs: the CFGs of the bounded-exhaustive enumeration
//! (`exhaustive_cfg.rs`), each placement of definitions written three ways
//! (constants; `x = y`; `x = p` and `y = p`, so that copy propagation makes
//! one value the definition of several assignments, as in the paper's
//! remark at the end of §3.2), and generated programs. `cargo test` runs a
//! slice; `SSAREF_ALG5_GATE=full` runs every placement of every CFG of up
//! to 4 blocks and 2,000 generated programs.

use crate::exhaustive_cfg::{canonical_cfgs, program, Slot, SLOTS};
use ssaref::analysis::reducibility::is_reducible;
use ssaref::ast::{Block, Expr, Program, Stmt};
use ssaref::construction::braun::{construct_function, construct_function_with, Algorithm5, BraunOptions};
use ssaref::generate::source::{GenConfig, TestCase, WorstShape};

/// Every option combination with Algorithm 5 on (the witness cache changes
/// how triviality is checked, not what is built: it is left on).
fn options() -> Vec<BraunOptions> {
    BraunOptions::every_combination().into_iter().filter(|o| o.remove_redundant_sccs && o.witness_cache).collect()
}

/// What the check saw: functions where the gate skips Algorithm 5, where
/// it runs it, and where Algorithm 5 then removed at least one phi.
#[derive(Default, Debug)]
struct Seen {
    skipped: usize,
    needed: usize,
    acted: usize,
    irreducible_skipped: usize,
}

fn check_program(program: &Program, opts: &[BraunOptions], seen: &mut Seen) -> Result<(), String> {
    for o in opts {
        for f in &program.functions {
            let (always, stats) = construct_function_with(f, o, Algorithm5::Always);
            let (gated, gated_stats) = construct_function(f, o);
            if stats.scc_needed != gated_stats.scc_needed {
                return Err(format!("{}: the gate's answer depends on the run", o.describe()));
            }
            if stats.scc_removed > 0 {
                seen.acted += 1;
            }
            if stats.scc_needed {
                seen.needed += 1;
                continue;
            }
            seen.skipped += 1;
            if !is_reducible(&always) {
                seen.irreducible_skipped += 1;
                let phi_operand =
                    always.blocks.values().flat_map(|b| &b.phis).any(|p| {
                        p.args.iter().any(|a| always.blocks.values().flat_map(|b| &b.phis).any(|q| q.dest == *a))
                    });
                if phi_operand {
                    return Err(format!("{}: the gate skips an irreducible CFG with a phi cycle", o.describe()));
                }
            }
            if stats.scc_removed != 0 {
                return Err(format!(
                    "{}: the gate skips Algorithm 5, which removes {} phi(s) of {}",
                    o.describe(),
                    stats.scc_removed,
                    f.name
                ));
            }
            if gated != always {
                return Err(format!("{}: {} differs with and without the gate", o.describe(), f.name));
            }
        }
    }
    Ok(())
}

/// The definitions of `program` rewritten: `x = y` for every definition of
/// x (`mode` 1), or `x = p` and `y = p` (`mode` 2).
fn with_copies(program: &Program, mode: u8) -> Program {
    fn rewrite(stmts: &[Stmt], mode: u8) -> Vec<Stmt> {
        stmts
            .iter()
            .map(|s| match s {
                Stmt::Assign(name, Expr::Lit(_)) if mode == 1 && name == "x" => {
                    Stmt::Assign(name.clone(), Expr::Var("y".into()))
                }
                Stmt::Assign(name, Expr::Lit(_)) if mode == 2 => Stmt::Assign(name.clone(), Expr::Var("p".into())),
                Stmt::If(c, t, e) => Stmt::If(
                    c.clone(),
                    Block::new(rewrite(&t.stmts, mode)),
                    e.as_ref().map(|e| Block::new(rewrite(&e.stmts, mode))),
                ),
                other => other.clone(),
            })
            .collect()
    }
    let mut p = program.clone();
    for f in &mut p.functions {
        f.body = Block::new(rewrite(&f.body.stmts, mode));
    }
    p
}

#[test]
fn algorithm_5_removes_nothing_where_the_gate_skips_it() {
    let full = std::env::var("SSAREF_ALG5_GATE").is_ok_and(|v| v == "full");
    let opts = options();
    let mut seen = Seen::default();
    let mut programs = 0;
    for n in 1..=4 {
        // A slice: every placement for up to 2 blocks, then every 97th
        // placement with 3 blocks and every 7,919th with 4.
        let stride = match (full, n) {
            (true, _) | (false, 1 | 2) => 1,
            (false, 3) => 97,
            _ => 7919,
        };
        let mut k = 0usize;
        for cfg in canonical_cfgs(n) {
            let total = 9usize.pow(n as u32);
            for code in 0..total {
                k += 1;
                if !k.is_multiple_of(stride) {
                    continue;
                }
                let placement: Vec<(Slot, Slot)> =
                    (0..n).map(|i| (code / 9usize.pow(i as u32)) % 9).map(|d| (SLOTS[d % 3], SLOTS[d / 3])).collect();
                let base = program(&cfg, &placement);
                for mode in 0..3 {
                    let p = if mode == 0 { base.clone() } else { with_copies(&base, mode) };
                    programs += 1;
                    check_program(&p, &opts, &mut seen).unwrap_or_else(|e| {
                        panic!("CFG {cfg:?}, placement {placement:?}, copies {mode}: {e}\n{}", print(&p))
                    });
                }
            }
        }
    }
    let generated = if full { 2000 } else { 60 };
    let config = GenConfig::default();
    for seed in 0..generated {
        let tc = TestCase::from_seed(seed, &config);
        programs += 1;
        check_program(&tc.program, &opts, &mut seen)
            .unwrap_or_else(|e| panic!("generated seed {seed}: {e}\n{}", print(&tc.program)));
    }
    eprintln!("Algorithm 5 gate: {programs} programs × {} option sets: {seen:?}", opts.len());
    // Not vacuous: the gate skips Algorithm 5 on many functions, runs it on
    // many, and Algorithm 5 does remove phis among the latter.
    // Irreducible CFGs are skipped only when no phi has a phi operand.
    assert!(seen.skipped > 1000 && seen.needed > 1000 && seen.acted > 0, "{seen:?}");
}

fn print(p: &Program) -> String {
    ssaref::frontend::ast_print::print_program(p)
}

/// The shape that made Algorithm 5 quadratic: N nested loops. The gate
/// skips it there, under every option set, so nothing is searched.
#[test]
fn the_gate_skips_algorithm_5_on_nested_loops() {
    let p = ssaref::frontend::parser::parse_program(&WorstShape::NestedLoops.source(200)).expect("parses");
    for o in options() {
        let (_, stats) = construct_function(&p.functions[0], &o);
        assert!(!stats.scc_needed, "{}: {stats:?}", o.describe());
        assert_eq!(stats.scc_searched, 0, "{}: {stats:?}", o.describe());
    }
}
