//! The SSA-level passes and analyses of Pereira's allocator (ssa-ra):
//! liveness (§4.1), critical-edge splitting, PhiLifting (§4.2), the
//! phi-congruence classes and the CSSA check (§4.3; Pereira and Palsberg
//! §3), intervals (§4.1), PhiMemCoalesce (§4.4), register pressure and loop
//! depth. The theorems checked here are argued in
//! `proofs-notes/phi-lifting.md`:
//!
//! - Theorem 1 (PhiLifting does not raise the register pressure, no
//!   critical edges and no one-argument phis):
//!   `corpus_pipeline_keeps_semantics_cssa_and_pressure`,
//!   `generated_programs_keep_semantics_cssa_and_pressure` and
//!   `one_argument_phis_become_copies_so_lifting_keeps_the_pressure`;
//! - PhiLifting yields CSSA, one class per phi: the same two tests, and
//!   `swap_problem_is_not_cssa_before_lifting_and_is_after`;
//! - PhiMemCoalesce keeps CSSA and never raises the pressure: the same.
//!
//! Every stage is also verified (`verifier::verify_function`), interpreted
//! against the source program, and its liveness compared with an
//! independent per-use path exploration, its intervals with Lemma 1
//! interference on every pair of values.

use crate::common::{case_files, parse_one, COUNTING_LOOP};

use ssaref::analysis::critical_edges::{has_critical_edges, split_critical_edges};
use ssaref::analysis::cssa::{check_cssa, phi_congruence_classes};
use ssaref::analysis::intervals::{compute_intervals, is_well_formed};
use ssaref::analysis::liveness::{
    compute_liveness, interfere, live_after_each_inst, live_before_each_inst, Interference,
};
use ssaref::analysis::loops::loop_depth;
use ssaref::analysis::pressure::{max_pressure, pressure_profile, pressure_profile_from_sets};
use ssaref::analysis::verifier::verify_function;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::entity::{EntityRef, EntitySet, SparseSet};
use ssaref::ir::{Block, Function, Module, Op, Value};
use ssaref::oracle::Oracle;
use ssaref::ssa_ra::one_argument_phis::lower_one_argument_phis;
use ssaref::ssa_ra::phi_lifting::{phi_lifting, LiftKind, LiftedCopy};
use ssaref::ssa_ra::phi_mem_coalesce::phi_mem_coalesce;
use ssaref::ssa_text::print_function;
use std::path::PathBuf;

const FUEL: u64 = 1_000_000;

fn members(s: &SparseSet<Value>) -> Vec<Value> {
    s.iter().collect()
}

fn set_of(values: &[u32]) -> Vec<Value> {
    let mut v: Vec<Value> = values.iter().map(|&n| Value(n)).collect();
    v.sort();
    v
}

// ---------------------------------------------------------------------------
// An independent liveness: per-use path exploration (the SSA-specific
// algorithm, Brandner et al.), written without the dataflow of liveness.rs.
// ---------------------------------------------------------------------------

fn reference_liveness(f: &Function) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
    let n = f.blocks.len();
    let defs = f.def_blocks();
    let mut live_in = vec![std::collections::BTreeSet::new(); n];
    let mut live_out = vec![std::collections::BTreeSet::new(); n];
    // Marks `v` live-in at `b` and walks up to its definition.
    let up = |v: Value,
              b: Block,
              live_in: &mut Vec<std::collections::BTreeSet<Value>>,
              live_out: &mut Vec<std::collections::BTreeSet<Value>>| {
        let mut stack = vec![b];
        while let Some(b) = stack.pop() {
            if defs[v] == Some(b) || !live_in[b.index()].insert(v) {
                continue;
            }
            for &p in &f.blocks[b].preds {
                live_out[p.index()].insert(v);
                stack.push(p);
            }
        }
    };
    for &p in &f.params {
        live_in[0].insert(p);
    }
    for (b, data) in f.blocks.iter() {
        for phi in &data.phis {
            live_in[b.index()].insert(phi.dest);
            for (&a, &p) in phi.args.iter().zip(&data.preds) {
                live_out[p.index()].insert(a);
                up(a, p, &mut live_in, &mut live_out);
            }
        }
        let mut uses = Vec::new();
        for inst in &data.insts {
            inst.op.for_each_arg(|a| uses.push(a));
        }
        uses.extend(data.term.arg());
        for a in uses {
            up(a, b, &mut live_in, &mut live_out);
        }
    }
    let to_vec = |s: Vec<std::collections::BTreeSet<Value>>| s.into_iter().map(|x| x.into_iter().collect()).collect();
    (to_vec(live_in), to_vec(live_out))
}

/// Compares liveness with the reference and intervals with interference
/// (Lemma 1) on every pair of values.
fn check_analyses(f: &Function, stage: &str) -> Result<(), String> {
    let live = compute_liveness(f);
    let (ref_in, ref_out) = reference_liveness(f);
    // The counting walk against the sizes of the sets of every point.
    let (counted, from_sets) = (pressure_profile(f, &live), pressure_profile_from_sets(f, &live));
    if counted != from_sets {
        return Err(format!("{stage}: pressure profile {counted:?}, the sets of the points say {from_sets:?}"));
    }
    for b in f.blocks.keys() {
        if members(&live.live_in[b]) != ref_in[b.index()] {
            return Err(format!(
                "{stage}: live_in[{b}] = {:?}, path exploration says {:?}",
                members(&live.live_in[b]),
                ref_in[b.index()]
            ));
        }
        if members(&live.live_out[b]) != ref_out[b.index()] {
            return Err(format!(
                "{stage}: live_out[{b}] = {:?}, path exploration says {:?}",
                members(&live.live_out[b]),
                ref_out[b.index()]
            ));
        }
    }
    let intervals = compute_intervals(f, &live);
    let interference = Interference::new(f, &live);
    let defined: Vec<Value> = {
        let defs = f.def_blocks();
        (0..f.value_count).map(Value).filter(|&v| defs[v].is_some()).collect()
    };
    for &a in &defined {
        if !is_well_formed(intervals.ranges(a)) || intervals.ranges(a).is_empty() {
            return Err(format!("{stage}: bad ranges of {a}: {:?}", intervals.ranges(a)));
        }
    }
    for (i, &a) in defined.iter().enumerate() {
        for &b in &defined[i + 1..] {
            let by_lemma = interference.interfere(a, b);
            let by_intervals = intervals.overlap(a, b);
            if by_lemma != by_intervals {
                return Err(format!(
                    "{stage}: {a} and {b}: interfere (Lemma 1) = {by_lemma}, ranges overlap = {by_intervals} \
                     ({:?} vs {:?})",
                    intervals.ranges(a),
                    intervals.ranges(b)
                ));
            }
        }
    }
    // The one-shot `interfere` agrees with the precomputed one (sampled: it
    // rescans the function on each call).
    for (i, &a) in defined.iter().enumerate().step_by(7) {
        for &b in defined[i + 1..].iter().step_by(5) {
            if interfere(f, &live, a, b) != interference.interfere(a, b) {
                return Err(format!("{stage}: interfere({a}, {b}) disagrees with Interference"));
            }
        }
    }
    Ok(())
}

/// The result of running the three passes on one module.
struct Stages {
    split: Module,
    lifted: Module,
    coalesced: Module,
    /// Per function: the pressure after splitting, after lifting and after
    /// coalescing, and the lifted copies removed and kept.
    per_function: Vec<(usize, usize, usize, usize, usize)>,
}

/// Runs split → lift → coalesce on every function, checking after each pass
/// the verifier, the analyses, no critical edges, CSSA (after lifting and
/// coalescing), Theorem 1 and that coalescing does not raise the pressure.
fn run_stages(m: &Module) -> Result<Stages, String> {
    let mut stages = Stages {
        split: Module { functions: Vec::new() },
        lifted: Module { functions: Vec::new() },
        coalesced: Module { functions: Vec::new() },
        per_function: Vec::new(),
    };
    for f in &m.functions {
        let name = &f.name;
        let mut split = f.clone();
        let inserted = split_critical_edges(&mut split);
        let ctx = |stage: &str, g: &Function| format!("`{name}` after {stage}:\n{}", print_function(g));
        verify_function(&split).map_err(|e| format!("{}\n{e}", ctx("split", &split)))?;
        if has_critical_edges(&split) {
            return Err(format!("{}\ncritical edges remain", ctx("split", &split)));
        }
        if split.block_count() != f.block_count() + inserted {
            return Err(format!("`{name}`: split reports {inserted} blocks"));
        }
        let mut again = split.clone();
        if split_critical_edges(&mut again) != 0 || again != split {
            return Err(format!("`{name}`: splitting twice changed something"));
        }
        check_analyses(&split, &format!("`{name}` split")).map_err(|e| format!("{}\n{e}", ctx("split", &split)))?;

        let mut lifted = split.clone();
        let copies = phi_lifting(&mut lifted);
        verify_function(&lifted).map_err(|e| format!("{}\n{e}", ctx("lifting", &lifted)))?;
        check_lifted_shape(&split, &lifted, &copies).map_err(|e| format!("{}\n{e}", ctx("lifting", &lifted)))?;
        check_cssa(&lifted).map_err(|e| format!("{}\n{e}", ctx("lifting", &lifted)))?;
        check_analyses(&lifted, &format!("`{name}` lifted"))
            .map_err(|e| format!("{}\n{e}", ctx("lifting", &lifted)))?;

        let mut coalesced = lifted.clone();
        let stats = phi_mem_coalesce(&mut coalesced, &copies);
        verify_function(&coalesced).map_err(|e| format!("{}\n{e}", ctx("coalescing", &coalesced)))?;
        check_cssa(&coalesced).map_err(|e| format!("{}\n{e}", ctx("coalescing", &coalesced)))?;
        check_analyses(&coalesced, &format!("`{name}` coalesced"))
            .map_err(|e| format!("{}\n{e}", ctx("coalescing", &coalesced)))?;
        if stats.removed + stats.kept != copies.len() || stats.kept_copies.len() != stats.kept {
            return Err(format!("`{name}`: coalescing stats {stats:?} for {} copies", copies.len()));
        }
        let copies_left =
            coalesced.blocks.values().flat_map(|d| &d.insts).filter(|i| matches!(i.op, Op::Copy(_))).count();
        let copies_before =
            split.blocks.values().flat_map(|d| &d.insts).filter(|i| matches!(i.op, Op::Copy(_))).count();
        if copies_left != copies_before + stats.kept {
            return Err(format!("`{name}`: {copies_left} copies left, expected {copies_before} + {}", stats.kept));
        }

        let p_split = max_pressure(&split, &compute_liveness(&split));
        let p_lifted = max_pressure(&lifted, &compute_liveness(&lifted));
        let p_coalesced = max_pressure(&coalesced, &compute_liveness(&coalesced));
        if p_lifted > p_split {
            return Err(format!(
                "{}\nTheorem 1 fails: pressure {p_split} before PhiLifting, {p_lifted} after",
                ctx("lifting", &lifted)
            ));
        }
        if p_coalesced > p_lifted {
            return Err(format!(
                "{}\nPhiMemCoalesce raised the pressure from {p_lifted} to {p_coalesced}",
                ctx("coalescing", &coalesced)
            ));
        }
        stages.per_function.push((p_split, p_lifted, p_coalesced, stats.removed, stats.kept));
        stages.split.functions.push(split);
        stages.lifted.functions.push(lifted);
        stages.coalesced.functions.push(coalesced);
    }
    Ok(stages)
}

/// After lifting: every phi's class is exactly the phi (its new destination
/// and its lifted arguments), every other value is alone, and the copies are
/// where the module documentation of phi_lifting.rs says.
fn check_lifted_shape(before: &Function, after: &Function, copies: &[LiftedCopy]) -> Result<(), String> {
    let classes = phi_congruence_classes(after);
    let mut in_phi = EntitySet::with_capacity(after.value_count as usize);
    for data in after.blocks.values() {
        for phi in &data.phis {
            let mut expected: Vec<Value> = phi.args.iter().copied().chain([phi.dest]).collect();
            expected.sort();
            let class = classes.members(classes.class_of(phi.dest));
            if class != expected.as_slice() {
                return Err(format!("the class of {} is {class:?}, expected {expected:?}", phi.dest));
            }
            for &v in &expected {
                in_phi.insert(v);
            }
        }
    }
    for v in (0..after.value_count).map(Value) {
        if !in_phi.contains(v) && classes.members(classes.class_of(v)).len() != 1 {
            return Err(format!("{v} is in no phi but not alone in its class"));
        }
    }
    if copies.len() != before.blocks.values().map(|d| d.phis.len() * (d.preds.len() + 1)).sum::<usize>() {
        return Err(format!("{} copies for the phis of the function", copies.len()));
    }
    for c in copies {
        let data = &after.blocks[c.block];
        let pos = data.insts.iter().position(|i| i.dest == Some(c.copy) && i.op == Op::Copy(c.source));
        let Some(pos) = pos else {
            return Err(format!("copy {c:?} not found"));
        };
        match c.kind {
            LiftKind::Arg { phi_block, phi_dest, edge } => {
                let phi = after.blocks[phi_block].phis.iter().find(|p| p.dest == phi_dest);
                if phi.map(|p| p.args[edge]) != Some(c.copy) || after.blocks[phi_block].preds[edge] != c.block {
                    return Err(format!("copy {c:?} does not feed its phi"));
                }
                // Only copies follow it.
                if data.insts[pos..].iter().any(|i| !matches!(i.op, Op::Copy(_))) {
                    return Err(format!("argument copy {c:?} is not at the end of {}", c.block));
                }
            }
            LiftKind::Dest { phi_block } => {
                if phi_block != c.block || !data.phis.iter().any(|p| p.dest == c.source) {
                    return Err(format!("destination copy {c:?} is not in its phi's block"));
                }
                if data.insts[..pos].iter().any(|i| !matches!(i.op, Op::Copy(_))) {
                    return Err(format!("destination copy {c:?} is not at the start of {}", c.block));
                }
            }
        }
    }
    Ok(())
}

/// Runs `main` of each stage and compares with the source's outcome.
fn check_semantics(program: &ssaref::ast::Program, args: &[i64], stages: &Stages) -> Result<(), String> {
    let expected = ssaref_interp::run_ast(program, args, FUEL).map_err(|e| e.to_string())?;
    if expected.end == ssaref::outcome::End::OutOfFuel {
        return Ok(());
    }
    let later = ssaref::differential::later_stage_fuel(FUEL);
    for (stage, m) in [("split", &stages.split), ("lifted", &stages.lifted), ("coalesced", &stages.coalesced)] {
        let got = crate::common::InterpOracle.run_ssa(m, args, later).map_err(|e| format!("{stage}: {e}"))?;
        if got != expected {
            return Err(format!("{stage}: outcome {} but the source gives {}", got.render(), expected.render()));
        }
    }
    Ok(())
}

#[test]
fn corpus_pipeline_keeps_semantics_cssa_and_pressure() {
    let mut failures = Vec::new();
    let mut totals = Totals::default();
    for path in case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = crate::common::parse_case(&text).expect("case header parses");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        for (variant, opts) in [("all_on", BraunOptions::all_on()), ("plain", BraunOptions::plain())] {
            let module = construct_program(&program, &opts);
            match run_stages(&module) {
                Ok(stages) => {
                    if let Err(e) = check_semantics(&program, &case.args, &stages) {
                        failures.push(format!("{name} [{variant}]: {e}"));
                    }
                    for (f, &(a, b, c, removed, kept)) in module.functions.iter().zip(&stages.per_function) {
                        eprintln!(
                            "{name} [{variant}] {}: pressure {a} -> lifted {b} -> coalesced {c}; \
                             lifted copies removed {removed}, kept {kept}",
                            f.name
                        );
                    }
                    totals.add(&stages);
                }
                Err(e) => failures.push(format!("{name} [{variant}]: {e}")),
            }
        }
    }
    eprintln!("corpus: {totals}");
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n\n"));
    assert!(totals.modules >= 2 * 36);
    assert!(totals.removed > 0 && totals.kept > 0, "coalescing both removes and keeps copies on the corpus");
}

/// Sums over many modules, for the report.
#[derive(Default)]
struct Totals {
    modules: usize,
    functions: usize,
    pressure_split: usize,
    pressure_lifted: usize,
    pressure_coalesced: usize,
    lower_after_lifting: usize,
    removed: usize,
    kept: usize,
}

impl Totals {
    fn add(&mut self, stages: &Stages) {
        self.modules += 1;
        for &(a, b, c, removed, kept) in &stages.per_function {
            self.functions += 1;
            self.pressure_split += a;
            self.pressure_lifted += b;
            self.pressure_coalesced += c;
            self.lower_after_lifting += usize::from(b < a);
            self.removed += removed;
            self.kept += kept;
        }
    }
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} modules, {} functions; sum of max pressure: split {}, lifted {}, coalesced {} \
             (lower after lifting in {} functions); lifted copies removed {}, kept {}",
            self.modules,
            self.functions,
            self.pressure_split,
            self.pressure_lifted,
            self.pressure_coalesced,
            self.lower_after_lifting,
            self.removed,
            self.kept
        )
    }
}

/// The same checks on programs of the random generator (`ssaref::generate::source`),
/// every shape in turn, both construction variants.
#[test]
fn generated_programs_keep_semantics_cssa_and_pressure() {
    use ssaref::generate::source::{Shape, TestCase};
    let mut failures = Vec::new();
    let mut totals = Totals::default();
    for seed in 0..300u64 {
        let shape = Shape::ALL[seed as usize % Shape::ALL.len()];
        let tc = TestCase::from_seed(seed, &shape.config());
        let opts = if seed % 2 == 0 { BraunOptions::all_on() } else { BraunOptions::plain() };
        let module = construct_program(&tc.program, &opts);
        match run_stages(&module) {
            Ok(stages) => {
                if let Err(e) = check_semantics(&tc.program, &tc.args, &stages) {
                    failures.push(format!(
                        "seed {seed} ({}, {}): {e}\n{}",
                        shape.name(),
                        opts.describe(),
                        tc.to_source()
                    ));
                }
                totals.add(&stages);
            }
            Err(e) => {
                failures.push(format!("seed {seed} ({}, {}): {e}\n{}", shape.name(), opts.describe(), tc.to_source()))
            }
        }
        if failures.len() >= 3 {
            break;
        }
    }
    eprintln!("generated: {totals}");
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------
// The swap problem: copy propagation makes the SSA non-CSSA.
// ---------------------------------------------------------------------------

#[test]
fn swap_problem_is_not_cssa_before_lifting_and_is_after() {
    let text = "fn main(n) { var x = 1; var y = 2; var i = 0; \
                while (i < n) { var t = x; x = y; y = t; i = i + 1; } out x; return y; }";
    let program = ssaref::frontend::parser::parse_program(text).expect("parses");
    let module = construct_program(&program, &BraunOptions::all_on());
    let mut f = module.main().expect("main").clone();
    split_critical_edges(&mut f);
    let err = check_cssa(&f).expect_err("the swap problem's phis interfere");
    assert!(err.to_string().contains("not in CSSA form"));
    // The header phis of x and y read each other on the back edge, so they
    // are in one class, and both are live at the header's start.
    let header = f.blocks.keys().find(|&b| f.blocks[b].phis.len() >= 2).expect("loop header");
    let phis = &f.blocks[header].phis;
    let dests: Vec<Value> =
        phis.iter().filter(|p| p.args.iter().any(|a| phis.iter().any(|q| q.dest == *a))).map(|p| p.dest).collect();
    assert_eq!(dests.len(), 2, "{}", print_function(&f));
    let classes = phi_congruence_classes(&f);
    assert!(dests.iter().all(|&d| classes.class_of(d) == err.class), "{err}");
    let live = compute_liveness(&f);
    assert!(interfere(&f, &live, dests[0], dests[1]));

    let copies = phi_lifting(&mut f);
    verify_function(&f).expect("lifted verifies");
    check_cssa(&f).expect("CSSA after lifting");
    let stats = phi_mem_coalesce(&mut f, &copies);
    check_cssa(&f).expect("CSSA after coalescing");
    assert!(stats.kept >= 1, "the swap needs a copy: {stats:?}");
    for n in 0..5 {
        let expected = ssaref_interp::run_ast(&program, &[n], FUEL).unwrap();
        let m = Module { functions: vec![f.clone()] };
        assert_eq!(ssaref_interp::run_ssa(&m, &[n], FUEL).unwrap(), expected, "n = {n}");
    }
}

#[test]
fn lost_copy_case_is_not_cssa_with_copy_propagation() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases/lost_copy.src");
    let program = ssaref::frontend::parser::parse_program(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut f = construct_program(&program, &BraunOptions::all_on()).main().unwrap().clone();
    split_critical_edges(&mut f);
    assert!(check_cssa(&f).is_err(), "y (the old x) is live after the loop with the new x");
    let copies = phi_lifting(&mut f);
    check_cssa(&f).unwrap();
    phi_mem_coalesce(&mut f, &copies);
    check_cssa(&f).unwrap();
    // Without copy propagation, the copy `y = x` keeps the program CSSA.
    let mut plain = construct_program(&program, &BraunOptions::plain()).main().unwrap().clone();
    split_critical_edges(&mut plain);
    check_cssa(&plain).unwrap();
}

// ---------------------------------------------------------------------------
// Liveness on hand-written IR.
// ---------------------------------------------------------------------------

#[test]
fn liveness_of_a_counting_loop() {
    let f = parse_one(COUNTING_LOOP);
    let live = compute_liveness(&f);
    let b = |i| Block(i);
    assert_eq!(members(&live.live_in[b(0)]), set_of(&[0]));
    // v1 flows into the phi from b0: live at the end of b0, not in b1's live-in.
    assert_eq!(members(&live.live_out[b(0)]), set_of(&[0, 1, 2]));
    assert_eq!(members(&live.live_in[b(1)]), set_of(&[0, 2, 3]));
    // v4 is the branch condition: used at the end of b1 but not live out.
    assert_eq!(members(&live.live_out[b(1)]), set_of(&[0, 2, 3]));
    assert_eq!(members(&live.live_in[b(2)]), set_of(&[0, 2, 3]));
    // v5 is the phi argument from b2; v3 dies in b2.
    assert_eq!(members(&live.live_out[b(2)]), set_of(&[0, 2, 5]));
    assert_eq!(members(&live.live_in[b(3)]), set_of(&[3]));
    assert!(live.live_out[b(3)].is_empty());

    let after = live_after_each_inst(&f, b(1), &live);
    assert_eq!(after.len(), 1);
    assert_eq!(members(&after[0]), set_of(&[0, 2, 3, 4]));
    let after = live_after_each_inst(&f, b(2), &live);
    assert_eq!(members(&after[0]), set_of(&[0, 2, 5]));
    let before = live_before_each_inst(&f, b(2), &live);
    assert_eq!(members(&before[0]), set_of(&[0, 2, 3]));

    // v3 dies at the add that defines v5: no interference. v1 dies at the
    // end of b0, where the phi v3 is not yet defined.
    assert!(!interfere(&f, &live, Value(3), Value(5)));
    assert!(!interfere(&f, &live, Value(1), Value(3)));
    assert!(interfere(&f, &live, Value(0), Value(3)));
    assert!(interfere(&f, &live, Value(2), Value(5)));
    assert!(interfere(&f, &live, Value(3), Value(4)));
    assert!(!interfere(&f, &live, Value(3), Value(3)));
    check_cssa(&f).expect("the loop is CSSA");
    assert_eq!(max_pressure(&f, &live), 4);
    let profile = pressure_profile(&f, &live);
    assert_eq!(profile[b(1)], vec![3, 4, 4]);
}

#[test]
fn phis_of_one_block_interfere_when_both_live_and_dead_phis_are_live_in() {
    let f = parse_one(
        "
fn main(v0) {
b0:
    v1 = const 1
    v2 = const 2
    br v0, b1, b2
b1(b0):
    jump b3
b2(b0):
    jump b3
b3(b1, b2):
    v3 = phi v1, v2
    v4 = phi v2, v1
    v5 = phi v1, v1
    v6 = add v3, v4
    ret v6
}
",
    );
    let live = compute_liveness(&f);
    // v5 is never used, but a phi destination is defined at the block start.
    assert_eq!(members(&live.live_in[Block(3)]), set_of(&[3, 4, 5]));
    assert!(interfere(&f, &live, Value(3), Value(4)));
    assert!(interfere(&f, &live, Value(3), Value(5)));
    // v1 and v2 are both phi arguments at the end of b1 and b2.
    assert!(interfere(&f, &live, Value(1), Value(2)));
    // No phi argument is live at the start of b3.
    assert!(!interfere(&f, &live, Value(1), Value(3)));
    // The class {v1, v2, v3, v4, v5} holds interfering values.
    let err = check_cssa(&f).expect_err("not CSSA");
    assert_eq!((err.a, err.b), (Value(1), Value(2)));
    let classes = phi_congruence_classes(&f);
    assert_eq!(classes.members(classes.class_of(Value(3))), set_of(&[1, 2, 3, 4, 5]).as_slice());
    assert_eq!(classes.class_count(), 7 - 4);
}

#[test]
fn liveness_on_an_irreducible_loop() {
    // b1 and b2 form a cycle entered at both; v1 is used in b2 only, and must
    // be live around the whole cycle.
    let f = parse_one(
        "
fn main(v0) {
b0:
    v1 = const 7
    br v0, b1, b2
b1(b0, b2):
    v2 = phi v0, v4
    jump b2
b2(b0, b1):
    v3 = phi v0, v2
    v4 = sub v3, v1
    br v4, b1, b3
b3(b2):
    ret v4
}
",
    );
    let live = compute_liveness(&f);
    assert_eq!(members(&live.live_in[Block(1)]), set_of(&[1, 2]));
    assert_eq!(members(&live.live_out[Block(1)]), set_of(&[1, 2]));
    assert_eq!(members(&live.live_in[Block(2)]), set_of(&[1, 3]));
    assert_eq!(members(&live.live_out[Block(2)]), set_of(&[1, 4]));
    assert_eq!(members(&live.live_out[Block(0)]), set_of(&[0, 1]));
    check_analyses(&f, "irreducible").unwrap();
    let depth = loop_depth(&f);
    assert_eq!(depth.values().copied().collect::<Vec<_>>(), vec![0, 1, 1, 0]);
}

// ---------------------------------------------------------------------------
// Critical edges.
// ---------------------------------------------------------------------------

#[test]
fn both_edges_of_a_branch_to_one_block_are_split_in_order() {
    let mut f = parse_one(
        "
fn main(v0) {
b0:
    v1 = const 10
    v2 = const 20
    br v0, b1, b1
b1(b0, b0):
    v3 = phi v1, v2
    ret v3
}
",
    );
    assert!(has_critical_edges(&f));
    assert_eq!(split_critical_edges(&mut f), 2);
    verify_function(&f).unwrap();
    assert!(!has_critical_edges(&f));
    assert_eq!(f.blocks[Block(1)].preds, vec![Block(2), Block(3)]);
    assert_eq!(f.succs(Block(0)), vec![Block(2), Block(3)]);
    for (arg, expected) in [(1, 10), (0, 20)] {
        let out = ssaref_interp::run_ssa(&Module { functions: vec![f.clone()] }, &[arg], FUEL).unwrap();
        assert_eq!(out.end, ssaref::outcome::End::Return(expected));
    }
    // A branch to a block with one predecessor is not split.
    let mut g = parse_one(COUNTING_LOOP);
    assert_eq!(split_critical_edges(&mut g), 0);
}

/// Theorem 1 needs the absence of critical edges: lifting the phi argument
/// across the critical edge b1 → b3 by hand (the copy `v8 = copy v1` at the
/// end of b1, where v1 stays live towards b4) raises the pressure from 4 to
/// 5, while splitting the edge first keeps it at 4. This also shows that the
/// Theorem 1 checks above can fail.
#[test]
fn lifting_across_a_critical_edge_can_raise_the_pressure() {
    let before = parse_one(
        "
fn main(v0) {
b0:
    v1 = const 1
    v2 = const 2
    v3 = const 3
    br v0, b1, b2
b1(b0):
    v4 = const 4
    br v4, b3, b4
b2(b0):
    jump b3
b3(b1, b2):
    v5 = phi v1, v2
    ret v5
b4(b1):
    v6 = add v1, v2
    v7 = add v6, v3
    ret v7
}
",
    );
    let lifted_by_hand = parse_one(
        "
fn main(v0) {
b0:
    v1 = const 1
    v2 = const 2
    v3 = const 3
    br v0, b1, b2
b1(b0):
    v4 = const 4
    v8 = copy v1
    br v4, b3, b4
b2(b0):
    v9 = copy v2
    jump b3
b3(b1, b2):
    v10 = phi v8, v9
    v5 = copy v10
    ret v5
b4(b1):
    v6 = add v1, v2
    v7 = add v6, v3
    ret v7
}
",
    );
    assert_eq!(max_pressure(&before, &compute_liveness(&before)), 4);
    assert_eq!(max_pressure(&lifted_by_hand, &compute_liveness(&lifted_by_hand)), 5);
    let mut split = before.clone();
    assert_eq!(split_critical_edges(&mut split), 1);
    phi_lifting(&mut split);
    verify_function(&split).unwrap();
    assert_eq!(max_pressure(&split, &compute_liveness(&split)), 4);
}

/// Theorem 1 also needs every block with phis to have two or more
/// predecessors: a one-argument phi below a `br` sits on an edge that is
/// not critical, so splitting leaves it, and lifting its argument by hand
/// to the end of b0 (`v4 = copy v1`, live across the branch while v1 and
/// v0 stay live towards b2) raises the pressure from 2 to 3. ssa-ra first
/// turns such phis into copies at the top of their block
/// (`ssa_ra/one_argument_phis.rs`, `proofs-notes/phi-lifting.md`,
/// "One-argument phis"); the pressure then stays at 2, the function is
/// CSSA, and every predecessor of a block with phis has one successor.
#[test]
fn one_argument_phis_become_copies_so_lifting_keeps_the_pressure() {
    let text = "
fn main(v0) {
b0:
    v1 = const 3
    br v0, b1, b2
b1(b0):
    v2 = phi v1
    v5 = phi v0
    v6 = add v2, v5
    ret v6
b2(b0):
    v3 = add v1, v0
    ret v3
}
";
    let before = parse_one(text);
    let lifted_by_hand = parse_one(
        "
fn main(v0) {
b0:
    v1 = const 3
    v4 = copy v1
    br v0, b1, b2
b1(b0):
    v2 = phi v4
    v5 = phi v0
    v6 = add v2, v5
    ret v6
b2(b0):
    v3 = add v1, v0
    ret v3
}
",
    );
    assert_eq!(max_pressure(&before, &compute_liveness(&before)), 2);
    assert_eq!(max_pressure(&lifted_by_hand, &compute_liveness(&lifted_by_hand)), 3);
    assert!(!has_critical_edges(&before), "b0 -> b1 is not critical: b1 has one predecessor");
    let mut f = before.clone();
    assert_eq!(lower_one_argument_phis(&mut f), 2);
    verify_function(&f).unwrap();
    assert!(f.blocks.values().all(|d| d.phis.is_empty()));
    let b1 = &f.blocks[Block(1)];
    assert_eq!(b1.insts[0].op, Op::Copy(Value(1)));
    assert_eq!(b1.insts[1].op, Op::Copy(Value(0)));
    for args in [[0i64], [1], [-7]] {
        let m = |f: &Function| Module { functions: vec![f.clone()] };
        let want = crate::common::InterpOracle.run_ssa(&m(&before), &args, FUEL).unwrap();
        assert_eq!(crate::common::InterpOracle.run_ssa(&m(&f), &args, FUEL).unwrap(), want, "args {args:?}");
    }
    assert_eq!(split_critical_edges(&mut f), 0);
    phi_lifting(&mut f);
    verify_function(&f).unwrap();
    check_cssa(&f).unwrap();
    assert_eq!(max_pressure(&f, &compute_liveness(&f)), 2);
}

// ---------------------------------------------------------------------------
// Intervals.
// ---------------------------------------------------------------------------

#[test]
fn lifting_and_coalescing_the_counting_loop() {
    let mut f = parse_one(COUNTING_LOOP);
    let copies = phi_lifting(&mut f);
    verify_function(&f).unwrap();
    // One phi with two arguments: two argument copies and one destination copy.
    assert_eq!(copies.len(), 3);
    assert!(matches!(copies[2].kind, LiftKind::Dest { phi_block: Block(1) }));
    assert_eq!(copies[2].copy, Value(3));
    let stats = phi_mem_coalesce(&mut f, &copies);
    verify_function(&f).unwrap();
    check_cssa(&f).unwrap();
    // v1 := const 0 and the phi never overlap, nor does the phi's
    // destination copy; v5 = add v3, v2 and the lifted v3 do not either: all
    // copies go.
    assert_eq!((stats.removed, stats.kept), (3, 0), "{}", print_function(&f));
    let m = Module { functions: vec![f] };
    assert_eq!(ssaref_interp::run_ssa(&m, &[4], FUEL).unwrap().end, ssaref::outcome::End::Return(4));
}

#[test]
#[should_panic(expected = "not a copy PhiLifting left")]
fn coalescing_rejects_copies_it_cannot_find() {
    let mut f = parse_one(COUNTING_LOOP);
    let mut copies = phi_lifting(&mut f);
    copies[0].source = Value(0);
    phi_mem_coalesce(&mut f, &copies);
}

// ---------------------------------------------------------------------------
// The dominance-forest CSSA check against every pair of every class.
// ---------------------------------------------------------------------------

#[test]
fn dominance_forest_cssa_check_agrees_with_the_pairwise_one() {
    use ssaref::analysis::cssa::check_cssa_pairwise;
    use ssaref::generate::source::{Shape, TestCase};
    let (mut not_cssa, mut cssa) = (0, 0);
    for seed in 0..200u64 {
        let shape = Shape::ALL[seed as usize % Shape::ALL.len()];
        let tc = TestCase::from_seed(seed, &shape.config());
        // Copy propagation makes many programs non-CSSA (the swap and
        // lost-copy problems); PhiLifting makes them CSSA again.
        for opts in [BraunOptions::all_on(), BraunOptions::plain()] {
            let module = construct_program(&tc.program, &opts);
            for f in &module.functions {
                let mut g = f.clone();
                split_critical_edges(&mut g);
                lower_one_argument_phis(&mut g);
                let lifted = {
                    let mut h = g.clone();
                    phi_lifting(&mut h);
                    h
                };
                for h in [f, &g, &lifted] {
                    let (fast, pairwise) = (check_cssa(h), check_cssa_pairwise(h));
                    assert_eq!(fast, pairwise, "seed {seed}:\n{}", print_function(h));
                    if pairwise.is_err() {
                        not_cssa += 1;
                    } else {
                        cssa += 1;
                    }
                }
            }
        }
    }
    assert!(not_cssa >= 20 && cssa >= 20, "{not_cssa} non-CSSA and {cssa} CSSA functions");
}
