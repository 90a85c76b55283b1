//! The textbook construction (`construction/braun/textbook.rs`, Braun et
//! al.'s Algorithms 1-5 as printed) is the oracle of the fast builder: with
//! the on-the-fly optimizations off, both place the same phis (same number,
//! same blocks, same operands up to a renaming of the values) with
//! Algorithm 5 on both sides, and without it on reducible CFGs (on
//! irreducible ones the fast builder places at most as many: see
//! [`compare`]). Checked on three corpora: every program of `tests/cases/`
//! and `tests/corpus/`, the CFG enumeration of `exhaustive_cfg.rs`, shared
//! with that file (every CFG of up to 4 blocks with
//! every placement of definitions and uses of 2 variables), and generated
//! programs. The textbook's output also passes the SSA verifier and the
//! construction checkers (pruned, no trivial phi, minimal with Algorithm
//! 5), and on a sample it runs to the AST interpreter's outcome.
//!
//! `cargo test` runs a slice of the enumeration (every CFG of up to 3
//! blocks, every 61st case with 4) and 10,000 generated programs;
//! `SSAREF_TEXTBOOK=full` runs the whole enumeration and
//! `SSAREF_TEXTBOOK_SEEDS=n` sets the number of generated programs. Each
//! test prints how many programs it compared.
//!
//! The comparison maps blocks by number (both builders make the blocks in
//! the same order, and the test checks that the CFGs are equal), constants
//! by block and value (where the entry's constants for the variables' initial
//! 0 stand depends on when a look-up first needs them), and every other
//! value by unification: parameters by position, instructions by their
//! position among the block's non-constant instructions, phis through the
//! operands and instructions that use them. Every phi of each side must be
//! matched, one to one, with a phi of the same block and matching operands.

use crate::common::{case_files, corpus_files, on_small_stack, InterpOracle};
use crate::exhaustive_cfg::{canonical_cfgs, program as enumerated_program, Cfg, SLOTS};
use ssaref::analysis::reducibility::is_reducible;
use ssaref::analysis::verifier::verify_function;
use ssaref::ast::Program;
use ssaref::checkers::ssa_properties as checkers;
use ssaref::construction::braun::textbook::{self, TextbookError, MAX_BLOCKS};
use ssaref::construction::braun::{construct_function, BraunOptions};
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::ir::{Block, Function, Module, Op, Value};
use ssaref::oracle::Oracle;
use std::collections::HashMap;

/// What defines a value, as the comparison sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Def {
    Param(usize),
    Phi(Block),
    Inst(Block),
    Const(Block, i64),
    Undef,
}

fn defs(f: &Function) -> HashMap<Value, Def> {
    let mut d: HashMap<Value, Def> = f.params.iter().enumerate().map(|(i, &p)| (p, Def::Param(i))).collect();
    for (b, data) in f.blocks.iter() {
        d.extend(data.phis.iter().map(|p| (p.dest, Def::Phi(b))));
        for inst in &data.insts {
            let def = match inst.op {
                Op::Const(c) => Def::Const(b, c),
                Op::Undef => Def::Undef,
                _ => Def::Inst(b),
            };
            d.extend(inst.dest.map(|v| (v, def)));
        }
    }
    d
}

/// A one-to-one map from the textbook's values to the fast builder's.
struct Matching {
    defs: (HashMap<Value, Def>, HashMap<Value, Def>),
    map: HashMap<Value, Value>,
    back: HashMap<Value, Value>,
    phis_to_compare: Vec<(Value, Value)>,
}

impl Matching {
    fn unify(&mut self, t: Value, f: Value) -> Result<(), String> {
        let (dt, df) = (self.defs.0[&t], self.defs.1[&f]);
        if dt != df {
            return Err(format!("textbook {t} ({dt:?}) stands where the fast builder has {f} ({df:?})"));
        }
        if matches!(dt, Def::Const(..) | Def::Undef) {
            return Ok(());
        }
        match (self.map.get(&t), self.back.get(&f)) {
            (None, None) => {
                self.map.insert(t, f);
                self.back.insert(f, t);
                if matches!(dt, Def::Phi(_)) {
                    self.phis_to_compare.push((t, f));
                }
                Ok(())
            }
            (Some(&f2), _) if f2 == f => Ok(()),
            _ => Err(format!("textbook {t} and fast {f} are matched with other values already")),
        }
    }
}

/// Checks that the two functions have the same CFG, the same instructions
/// and the same phis up to value renaming; the error says where they differ.
fn same_up_to_renaming(t: &Function, f: &Function) -> Result<(), String> {
    if t.blocks.len() != f.blocks.len() {
        return Err(format!("{} blocks against {}", t.blocks.len(), f.blocks.len()));
    }
    let mut m =
        Matching { defs: (defs(t), defs(f)), map: HashMap::new(), back: HashMap::new(), phis_to_compare: vec![] };
    for (&a, &b) in t.params.iter().zip(&f.params) {
        m.unify(a, b)?;
    }
    for ((b, bt), (_, bf)) in t.blocks.iter().zip(f.blocks.iter()) {
        if bt.preds != bf.preds || bt.term.successors() != bf.term.successors() {
            return Err(format!("{b}: the CFGs differ"));
        }
        if bt.phis.len() != bf.phis.len() {
            return Err(format!("{b}: {} phis against {}", bt.phis.len(), bf.phis.len()));
        }
        let real = |i: &&ssaref::ir::Inst| !matches!(i.op, Op::Const(_) | Op::Undef);
        let (it, jf): (Vec<_>, Vec<_>) =
            (bt.insts.iter().filter(real).collect(), bf.insts.iter().filter(real).collect());
        if it.len() != jf.len() {
            return Err(format!("{b}: {} instructions against {}", it.len(), jf.len()));
        }
        for (i, j) in it.iter().zip(&jf) {
            let shape = |op: &Op| {
                let mut op = op.clone();
                op.map_args(|_| Value(0));
                op
            };
            if shape(&i.op) != shape(&j.op) || i.dest.is_some() != j.dest.is_some() {
                return Err(format!("{b}: {:?} against {:?}", i.op, j.op));
            }
            if let (Some(x), Some(y)) = (i.dest, j.dest) {
                m.unify(x, y)?;
            }
            for (x, y) in i.op.args().into_iter().zip(j.op.args()) {
                m.unify(x, y)?;
            }
        }
        if let (Some(x), Some(y)) = (bt.term.arg(), bf.term.arg()) {
            m.unify(x, y)?;
        }
    }
    let phi_args = |g: &Function, v: Value| -> Vec<Value> {
        g.blocks.values().flat_map(|d| &d.phis).find(|p| p.dest == v).expect("a phi").args.clone()
    };
    while let Some((p, q)) = m.phis_to_compare.pop() {
        for (x, y) in phi_args(t, p).into_iter().zip(phi_args(f, q)) {
            m.unify(x, y).map_err(|e| format!("operands of textbook {p} and fast {q}: {e}"))?;
        }
    }
    for (b, data) in t.blocks.iter() {
        if let Some(p) = data.phis.iter().find(|p| !m.map.contains_key(&p.dest)) {
            return Err(format!("{b}: the textbook's {} matches no phi of the fast builder", p.dest));
        }
    }
    Ok(())
}

/// What [`compare`] found beyond agreement.
#[derive(Default)]
struct Tally {
    /// Functions compared (each with and without Algorithm 5).
    functions: usize,
    /// Irreducible functions, where only the results with Algorithm 5 must
    /// agree.
    irreducible: usize,
    /// Irreducible functions where, without Algorithm 5, the fast builder
    /// placed fewer phis than the printed algorithm.
    fewer_without_alg5: usize,
}

/// Runs `work(k, THREADS)` on two threads (worker `k` of `THREADS` takes
/// its share of the inputs) and sums what they return: the programs each
/// compared and its [`Tally`].
fn on_two_threads(work: impl Fn(usize, usize) -> (usize, Tally) + Sync) -> (usize, Tally) {
    const THREADS: usize = 2;
    std::thread::scope(|s| {
        let work = &work;
        let workers: Vec<_> = (0..THREADS).map(|k| s.spawn(move || work(k, THREADS))).collect();
        workers.into_iter().map(|w| w.join().expect("no failure")).fold((0, Tally::default()), |(n, a), (m, b)| {
            let tally = Tally {
                functions: a.functions + b.functions,
                irreducible: a.irreducible + b.irreducible,
                fewer_without_alg5: a.fewer_without_alg5 + b.fewer_without_alg5,
            };
            (n + m, tally)
        })
    })
}

/// Builds `program` both ways, with and without Algorithm 5, compares the
/// results, and checks the textbook's output. Returns the textbook's module
/// with Algorithm 5.
///
/// Without Algorithm 5 the results must agree only on reducible CFGs, where
/// both are minimal (Theorem 1). On an irreducible CFG the printed
/// algorithm leaves redundant phi cycles (Fig. 5), and the fast builder
/// leaves fewer: it answers a read of a variable the function never assigns
/// with its initial value, without the walk that would place them. There the
/// fast builder must place at most as many phis.
fn compare(program: &Program, tally: &mut Tally) -> Result<Module, String> {
    let mut with_alg5 = Vec::new();
    for func in &program.functions {
        tally.functions += 1;
        for alg5 in [true, false] {
            let fast_options = BraunOptions { remove_redundant_sccs: alg5, ..BraunOptions::plain() };
            let t = textbook::construct_function(func, alg5).map_err(|e| e.to_string())?;
            let (f, _) = construct_function(func, &fast_options);
            let which = if alg5 { "with" } else { "without" };
            let reducible = is_reducible(&t);
            match same_up_to_renaming(&t, &f) {
                Ok(()) => {}
                Err(e) if alg5 || reducible || f.phi_count() >= t.phi_count() => {
                    return Err(format!("`{}` {which} Algorithm 5: {e}", func.name))
                }
                Err(_) => tally.fewer_without_alg5 += 1,
            }
            verify_function(&t).map_err(|e| format!("textbook output of `{}`: {e}", func.name))?;
            checkers::check_pruned(&t).map_err(|e| e.to_string())?;
            if alg5 || reducible {
                checkers::check_no_trivial_phis(&t).map_err(|e| e.to_string())?;
                checkers::check_minimal(&t).map_err(|e| e.to_string())?;
            }
            if alg5 {
                tally.irreducible += usize::from(!reducible);
                with_alg5.push(t);
            }
        }
    }
    Ok(Module { functions: with_alg5 })
}

/// Runs the textbook's SSA and the AST on `args` and compares the outcomes.
fn same_outcome(program: &Program, module: &Module, args: &[i64]) -> Result<(), String> {
    const FUEL: u64 = 1_000_000;
    let expected = InterpOracle.run_source(program, args, FUEL).map_err(|e| e.to_string())?;
    let got = InterpOracle.run_ssa(module, args, FUEL).map_err(|e| e.to_string())?;
    if got != expected {
        return Err(format!("the textbook's SSA gives {} instead of {}", got.render_full(), expected.render_full()));
    }
    Ok(())
}

#[test]
fn both_constructions_place_the_same_phis_on_every_case() {
    let (mut compared, mut tally) = (0, Tally::default());
    for path in case_files().into_iter().chain(corpus_files()) {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = crate::common::parse_case(&text).expect("a case header");
        let program = ssaref::frontend::parser::parse_program(&text).expect("a valid program");
        let module = compare(&program, &mut tally).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        same_outcome(&program, &module, &case.args).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        compared += 1;
    }
    eprintln!(
        "textbook against fast builder: {compared} programs of tests/cases and tests/corpus, {} functions, \
         {} irreducible, {} with fewer phis in the fast builder without Algorithm 5",
        tally.functions, tally.irreducible, tally.fewer_without_alg5
    );
    assert!(compared >= 90, "only {compared} programs");
}

#[test]
fn both_constructions_place_the_same_phis_on_generated_programs() {
    let count: u64 = std::env::var("SSAREF_TEXTBOOK_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let (compared, tally) = on_two_threads(|k, threads| {
        let config = GenConfig::default();
        let (mut compared, mut tally) = (0, Tally::default());
        for seed in (k as u64..count).step_by(threads) {
            let tc = TestCase::from_seed(seed, &config);
            let module = compare(&tc.program, &mut tally).unwrap_or_else(|e| panic!("seed {seed}: {e}{tc:?}"));
            if seed % 50 == 0 {
                same_outcome(&tc.program, &module, &tc.args).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            }
            compared += 1;
        }
        (compared, tally)
    });
    let (compared, irreducible, fewer) = (compared as u64, tally.irreducible, tally.fewer_without_alg5);
    eprintln!(
        "textbook against fast builder: {compared} generated programs (seeds 0..{count}), {irreducible} irreducible, \
         {fewer} with fewer phis in the fast builder without Algorithm 5"
    );
    assert_eq!(compared, count);
}

#[test]
fn both_constructions_place_the_same_phis_on_the_exhaustive_cfg_enumeration() {
    let full = std::env::var("SSAREF_TEXTBOOK").is_ok_and(|v| v == "full");
    let counts: Vec<usize> = (1..=4).map(|n| canonical_cfgs(n).len()).collect();
    assert_eq!(counts, [2, 8, 70, 802], "the CFG classes of exhaustive_cfg.rs");
    let mut jobs: Vec<(Cfg, usize)> = Vec::new();
    for n in 1..=4 {
        jobs.extend(canonical_cfgs(n).into_iter().map(|cfg| (cfg, if n == 4 && !full { 61 } else { 1 })));
    }
    let (compared, tally) = on_two_threads(|k, threads| {
        let (mut compared, mut tally) = (0, Tally::default());
        for (cfg, stride) in jobs.iter().skip(k).step_by(threads) {
            let n = cfg.len();
            for code in (0..9usize.pow(n as u32)).step_by(*stride) {
                let placement: Vec<(usize, usize)> =
                    (0..n).map(|i| code / 9usize.pow(i as u32) % 9).map(|d| (d % 3, d / 3)).collect();
                // A placement and its mirror image (x and y exchanged) are
                // the same program up to renaming.
                let (xs, ys): (Vec<usize>, Vec<usize>) = placement.iter().copied().unzip();
                if xs > ys {
                    continue;
                }
                let slots: Vec<_> = placement.iter().map(|&(x, y)| (SLOTS[x], SLOTS[y])).collect();
                let program = enumerated_program(cfg, &slots);
                let module = compare(&program, &mut tally)
                    .unwrap_or_else(|e| panic!("CFG {cfg:?}, placement {placement:?}: {e}"));
                if compared % 50 == 0 {
                    for p in [0x2B6D_5A3C_9E17_4F81, !0x2B6D_5A3C_9E17_4F81] {
                        same_outcome(&program, &module, &[p])
                            .unwrap_or_else(|e| panic!("CFG {cfg:?}, placement {placement:?}: {e}"));
                    }
                }
                compared += 1;
            }
        }
        (compared, tally)
    });
    let (irreducible, fewer) = (tally.irreducible, tally.fewer_without_alg5);
    eprintln!(
        "textbook against fast builder: {compared} programs of the CFG enumeration ({}), {irreducible} irreducible, \
         {fewer} with fewer phis in the fast builder without Algorithm 5",
        if full { "full" } else { "every CFG up to 3 blocks, every 61st case with 4" }
    );
    assert!(compared > 0 && irreducible > 0);
}

#[test]
fn the_comparison_sees_a_changed_phi() {
    let text = std::fs::read_to_string(case_files().into_iter().find(|p| p.ends_with("collatz.src")).expect("collatz"))
        .expect("readable case");
    let program = ssaref::frontend::parser::parse_program(&text).expect("a valid program");
    let (f, _) = construct_function(&program.functions[0], &BraunOptions::plain());
    let t = textbook::construct_function(&program.functions[0], true).expect("small enough");
    assert_eq!(same_up_to_renaming(&t, &f), Ok(()));
    let (b, phi) =
        f.blocks.iter().find_map(|(b, d)| d.phis.first().map(|p| (b, p.clone()))).expect("collatz has a phi");
    // An operand exchanged, and a phi dropped (with its uses renamed to its
    // first operand): both are differences.
    let mut swapped = f.clone();
    swapped.blocks[b].phis[0].args.reverse();
    assert!(phi.args[0] != phi.args[1] && same_up_to_renaming(&t, &swapped).is_err());
    let mut dropped = f.clone();
    dropped.blocks[b].phis.remove(0);
    assert!(same_up_to_renaming(&t, &dropped).is_err());
}

#[test]
fn the_textbook_refuses_a_function_too_large_for_recursion_and_handles_the_largest_allowed() {
    use ssaref::ast::{Block as Body, Expr, Function as AstFunction, Stmt};
    // `n` ifs in a row, each assigning x, then a read of x: the look-up walks
    // back through every join, three recursive calls per `if`.
    let chain = |n: usize| {
        let mut stmts = vec![Stmt::Assign("x".into(), Expr::Lit(1))];
        for _ in 0..n {
            let assign = Stmt::Assign("x".into(), Expr::Lit(2));
            stmts.push(Stmt::If(Expr::Var("p".into()), Body::new(vec![assign]), None));
        }
        stmts.push(Stmt::Out(Expr::Var("x".into())));
        AstFunction { name: "main".into(), params: vec!["p".into()], body: Body::new(stmts) }
    };
    let largest = (MAX_BLOCKS - 1) / 3;
    let built = on_small_stack(move || textbook::construct_function(&chain(largest), true).map(|f| f.phi_count()));
    assert_eq!(built, Ok(largest));
    match textbook::construct_function(&chain(largest + 1), true) {
        Err(TextbookError::TooLarge { blocks, .. }) => assert!(blocks > MAX_BLOCKS),
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

/// Programs that jump into every kind of region (the generator's
/// `goto-into-region` shape weighted up, `region_jumps.rs`): the region
/// shortcut of note (h) (a join or loop header passed as if entered only
/// from where its statement starts), the sealing of label blocks (a label's
/// block sealed at its last `goto`, backward ones included) and code only a
/// `goto` reaches. On each program the fast builder places the textbook's
/// phis (`compare`), and the source, Cytron et al.'s SSA and the fast
/// builder's construction variants (all 128 on every 8th program, the
/// standard ones on the others) run to the same outcome. Every kind of jump
/// (`jump_kinds.rs`) must occur in a twentieth of the programs at least.
/// `SSAREF_REGION_JUMP_SEEDS=n` sets the number of programs (default 800).
#[test]
fn jumps_into_every_kind_of_region_agree_with_the_textbook_and_cytron() {
    use ssaref::differential::{differential, Verdict};
    use ssaref::generate::source::jump_kinds::{JumpKinds, REGIONS};
    use ssaref::generate::source::{construction_variants, Feature};
    let count: u64 = std::env::var("SSAREF_REGION_JUMP_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(800);
    let all_variants = BraunOptions::every_combination();
    let standard = construction_variants();
    let config = GenConfig::default().with(Feature::RegionJump, 40);
    let work = |k: u64| {
        let (mut compared, mut tally, mut kinds) = (0, Tally::default(), [[0u64; 2]; 4]);
        for seed in (k..count).step_by(2) {
            let tc = TestCase::from_seed(seed, &config);
            compare(&tc.program, &mut tally).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let jumps = JumpKinds::of_program(&tc.program);
            for (n, on) in kinds.iter_mut().flatten().zip(jumps.into.iter().flatten()) {
                *n += u64::from(*on);
            }
            let variants = if seed % 8 == 0 { &all_variants } else { &standard };
            match differential(&tc.program, &tc.args, &InterpOracle, variants, 1_000_000) {
                Verdict::Agree { .. } | Verdict::Inconclusive => {}
                other => panic!("seed {seed}: {other}"),
            }
            compared += 1;
        }
        (compared, tally, kinds)
    };
    let results: Vec<(usize, Tally, [[u64; 2]; 4])> = std::thread::scope(|s| {
        let work = &work;
        let workers: Vec<_> = (0..2).map(|k| s.spawn(move || work(k))).collect();
        workers.into_iter().map(|w| w.join().expect("no failure")).collect()
    });
    let compared: usize = results.iter().map(|r| r.0).sum();
    let mut kinds = [[0u64; 2]; 4];
    for r in &results {
        for (a, b) in kinds.iter_mut().flatten().zip(r.2.iter().flatten()) {
            *a += b;
        }
    }
    eprintln!("jumps into regions: {compared} generated programs agree (textbook, Cytron, Braun variants); programs per kind (forward, backward): {}",
        REGIONS.iter().zip(kinds).map(|(r, [f, b])| format!("{r} {f}/{b}")).collect::<Vec<_>>().join(", "));
    assert_eq!(compared as u64, count);
    for (r, [f, b]) in REGIONS.iter().zip(kinds) {
        assert!(f * 20 >= count && b * 20 >= count, "jumps into {r}: {f} forward, {b} backward of {count}");
    }
}
