//! The pass filetests: one folder per pass under `tests/filetests/passes/`,
//! each file an input, the pass's options, and the pass's output inline
//! (Cranelift's `test optimize` with `precise-output` is the model). A
//! reader opens `passes/phi-lifting/` and sees PhiLifting's input and what
//! it made of it.
//!
//! A file is, in order:
//!
//! - a comment saying what the file shows and which figure of which paper
//!   it comes from, holding the header lines of the pass's options
//!   (`// k: 2`, `// variants: value, sharing`; [`PASSES`] lists each
//!   pass's keys) and, optionally, `// args: 1 2`;
//! - the input: a program in the SSA text form (`docs/ssa-text-form.md`),
//!   a source program for the construction, or a parallel copy for its
//!   sequentialization (a `.pcopy` file); the input is exactly what the pass takes, or the
//!   file's comment names the passes the harness runs before it;
//! - the line `// output:` and the output, each line behind `// `.
//!
//! The harness checks the input (the SSA verifier, and CSSA for the passes
//! after PhiLifting), runs the pass by calling its public function, runs
//! the pass's checkers on the output (those its back end runs after it),
//! and, with `// args:`, runs input and output in the oracle (`interp/`)
//! with those arguments and requires the same outcome. The file must then
//! be its input followed by the output block; `SSAREF_BLESS=1 cargo test
//! --release --test suite pass_filetests` rewrites the output block
//! instead (review the diff before committing).

use crate::common::passes::allocate_regalloc2;
use ssaref::analysis::critical_edges::{has_critical_edges, split_critical_edges};
use ssaref::analysis::cssa::check_cssa;
use ssaref::analysis::dominance::DomTree;
use ssaref::analysis::liveness::compute_liveness;
use ssaref::analysis::loops::loop_depth;
use ssaref::analysis::pressure::max_pressure;
use ssaref::analysis::verifier::{verify_conventional, verify_function};
use ssaref::checkers::class_interference_check::{check_classes_do_not_interfere, check_cssa_independently};
use ssaref::checkers::{alloc_checker, coloring_check};
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::ir::{Function, Module, Value};
use ssaref::machine::x86_check::check_machine_code;
use ssaref::machine::x86_lower::{listing, lower_function_listed};
use ssaref::mir::{MFunction, MModule};
use ssaref::out_of_ssa::coalescing::{
    affinities, class_lists, coalesce, ClassTest, CoalescingOptions, CoalescingVariant,
};
use ssaref::out_of_ssa::conventional::linear_scan::linear_scan;
use ssaref::out_of_ssa::conventional::spill_everything::spill_everything;
use ssaref::out_of_ssa::copy_insertion::{insert_copies, ParallelCopyPlace};
use ssaref::out_of_ssa::renaming_constraints::Pins;
use ssaref::out_of_ssa::sequentialize::{execute, optimal_copy_count, sequentialize_parallel_copy};
use ssaref::out_of_ssa::translate_options::{OutOfSsaOptions, OutOfSsaReport};
use ssaref::out_of_ssa::values::{CopyGroups, LivenessSource, ValueInterference};
use ssaref::out_of_ssa::virtualization::translate_virtualized;
use ssaref::ssa_ra::coloring::{assign_registers, check_assignment, Assignment, ColoringOptions};
use ssaref::ssa_ra::one_argument_phis::lower_one_argument_phis;
use ssaref::ssa_ra::phi_lifting::phi_lifting;
use ssaref::ssa_ra::phi_mem_coalesce::phi_mem_coalesce;
use ssaref::ssa_ra::spill::{spill, SpillOptions, SpillResult};
use ssaref::ssa_ra::spill_during_coloring::{spill_during_coloring, SpillDuringColoringOptions};
use ssaref::ssa_ra::ssa_elimination::{eliminate_ssa, EliminationOptions};
use ssaref::ssa_text::{parse_module, print_function, print_module};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The comment line that starts the output block.
const OUTPUT: &str = "// output:";

/// A pass's options, from the header lines of a file.
struct Header(BTreeMap<String, String>);

impl Header {
    /// The value of a required key.
    fn get(&self, key: &str) -> Result<&str, String> {
        self.0.get(key).map(String::as_str).ok_or_else(|| format!("the header needs a line `// {key}: ...`"))
    }

    /// The register count `// k: N`.
    fn k(&self) -> Result<usize, String> {
        self.get("k")?.parse().map_err(|e| format!("`// k:` is not a number: {e}"))
    }

    /// The arguments of `// args:`, if any.
    fn args(&self) -> Result<Option<Vec<i64>>, String> {
        self.0
            .get("args")
            .map(|a| a.split_whitespace().map(|x| x.parse().map_err(|e| format!("`// args:` {x}: {e}"))).collect())
            .transpose()
    }
}

/// What a pass produced, and how to run it in the oracle.
enum Output {
    /// An SSA (or conventional-form) module and the text to print.
    Ssa(Module, String),
    /// Allocated machine IR and the text to print.
    Mir(MModule, String),
    /// Only text; the pass checked its output itself.
    Text(String),
}

/// A pass: its folder under `tests/filetests/passes/`, the header keys it
/// reads besides `args`, and the function that runs it on a file's input.
struct Pass {
    folder: &'static str,
    keys: &'static [&'static str],
    run: fn(&Header, &str) -> Result<Output, String>,
}

/// Every pass, in pipeline order per back end.
const PASSES: &[Pass] = &[
    Pass { folder: "braun", keys: &["options"], run: braun },
    Pass { folder: "one-argument-phis", keys: &[], run: one_argument_phis },
    Pass { folder: "critical-edges", keys: &[], run: critical_edges },
    Pass { folder: "phi-lifting", keys: &[], run: lifting },
    Pass { folder: "phi-mem-coalesce", keys: &[], run: mem_coalesce },
    Pass { folder: "spill", keys: &["k"], run: spill_separately },
    Pass { folder: "spill-during-coloring", keys: &["k"], run: spill_while_coloring },
    Pass { folder: "coloring", keys: &["k"], run: coloring },
    Pass { folder: "ssa-elimination", keys: &["k"], run: ssa_elimination },
    Pass { folder: "method-i", keys: &[], run: method_i },
    Pass { folder: "coalescing", keys: &["variants"], run: coalescing },
    Pass { folder: "sequentialize", keys: &["spare"], run: sequentialize },
    Pass { folder: "virtualization", keys: &[], run: virtualization },
    Pass { folder: "conventional/linear-scan", keys: &["k"], run: conventional_linear_scan },
    Pass { folder: "conventional/spill-everything", keys: &["k"], run: conventional_spill_everything },
    Pass { folder: "regalloc2", keys: &["k"], run: regalloc2 },
    Pass { folder: "x86", keys: &["k"], run: x86 },
];

// ---------------------------------------------------------------------------
// Inputs and checks
// ---------------------------------------------------------------------------

/// The input as an SSA module that passes the verifier.
fn ssa_input(input: &str) -> Result<Module, String> {
    let m = parse_module(input).map_err(|e| format!("the input does not parse: {e}"))?;
    for f in &m.functions {
        verify_function(f).map_err(|e| format!("the input fails the SSA verifier: {e}"))?;
    }
    Ok(m)
}

/// The input of a pass that runs after PhiLifting: valid SSA, in CSSA, and
/// without critical edges.
fn cssa_input(input: &str) -> Result<Module, String> {
    let m = ssa_input(input)?;
    for f in &m.functions {
        check_cssa(f).map_err(|e| format!("the input is not in CSSA, as PhiLifting leaves it: {e}"))?;
        if has_critical_edges(f) {
            return Err(format!("function `{}` has critical edges, which ssa-ra splits first", f.name));
        }
    }
    Ok(m)
}

/// `m` with every function replaced by `pass`'s result on it.
fn each_function(m: &Module, mut pass: impl FnMut(&mut Function) -> Result<(), String>) -> Result<Module, String> {
    let mut out = m.clone();
    for f in &mut out.functions {
        pass(f).map_err(|e| format!("function `{}`: {e}", f.name))?;
    }
    Ok(out)
}

fn verified(f: &Function) -> Result<(), String> {
    verify_function(f).map_err(|e| format!("the output fails the SSA verifier: {e}"))
}

/// The values of `set`, written `v1, v4` (or `none`).
fn value_list(set: impl IntoIterator<Item = Value>) -> String {
    let mut values: Vec<Value> = set.into_iter().collect();
    values.sort();
    if values.is_empty() {
        return "none".into();
    }
    values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------
// The passes
// ---------------------------------------------------------------------------

fn braun(h: &Header, input: &str) -> Result<Output, String> {
    let opts = BraunOptions::from_description(h.get("options")?)
        .ok_or("`// options:` is not a BraunOptions description such as `phi+scc` or `phi+scc+fold+cse`")?;
    let program =
        ssaref::frontend::parser::parse_program(input).map_err(|e| format!("the input does not parse: {e:?}"))?;
    let m = construct_program(&program, &opts);
    for f in &m.functions {
        verified(f)?;
        ssaref::checkers::ssa_properties::check_no_trivial_phis(f).map_err(|e| e.to_string())?;
    }
    if let Some(args) = h.args()? {
        let before = ssaref_interp::run_ast(&program, &args, ssaref_interp::DEFAULT_FUEL);
        let after = ssaref_interp::run_ssa(&m, &args, ssaref_interp::DEFAULT_FUEL);
        if before != after {
            return Err(format!("the source gives {before:?}, the SSA {after:?}"));
        }
    }
    let text = print_module(&m);
    Ok(Output::Text(text))
}

fn one_argument_phis(_: &Header, input: &str) -> Result<Output, String> {
    let m = each_function(&ssa_input(input)?, |f| {
        lower_one_argument_phis(f);
        verified(f)?;
        match f.blocks.values().flat_map(|d| &d.phis).find(|p| p.args.len() == 1) {
            Some(p) => Err(format!("{} is still a one-argument phi", p.dest)),
            None => Ok(()),
        }
    })?;
    let text = print_module(&m);
    Ok(Output::Ssa(m, text))
}

fn critical_edges(_: &Header, input: &str) -> Result<Output, String> {
    let m = each_function(&ssa_input(input)?, |f| {
        split_critical_edges(f);
        verified(f)?;
        if has_critical_edges(f) {
            return Err("a critical edge is left".into());
        }
        Ok(())
    })?;
    let text = print_module(&m);
    Ok(Output::Ssa(m, text))
}

/// PhiLifting with the checks ssa-ra runs after it: the verifier, CSSA, and
/// the register pressure not raised (Pereira, Theorem 1).
fn lift(f: &mut Function) -> Result<Vec<ssaref::ssa_ra::phi_lifting::LiftedCopy>, String> {
    if has_critical_edges(f) {
        return Err("the input has critical edges, which ssa-ra splits before PhiLifting".into());
    }
    let before = max_pressure(f, &compute_liveness(f));
    let lifted = phi_lifting(f);
    verified(f)?;
    check_cssa(f).map_err(|e| format!("not in CSSA after PhiLifting: {e}"))?;
    let after = max_pressure(f, &compute_liveness(f));
    if after > before {
        return Err(format!("PhiLifting raised the register pressure from {before} to {after}"));
    }
    Ok(lifted)
}

fn lifting(_: &Header, input: &str) -> Result<Output, String> {
    let m = each_function(&ssa_input(input)?, |f| lift(f).map(drop))?;
    let text = print_module(&m);
    Ok(Output::Ssa(m, text))
}

fn mem_coalesce(_: &Header, input: &str) -> Result<Output, String> {
    let mut text = String::new();
    let m = each_function(&ssa_input(input)?, |f| {
        let lifted = lift(f)?;
        text.push_str(&format!("after PhiLifting:\n{}", print_function(f)));
        let stats = phi_mem_coalesce(f, &lifted);
        verified(f)?;
        check_cssa(f).map_err(|e| format!("not in CSSA after PhiMemCoalesce: {e}"))?;
        check_cssa_independently(f).map_err(|e| e.to_string())?;
        text.push_str(&format!(
            "after PhiMemCoalesce ({} copies removed, {} kept):\n{}",
            stats.removed,
            stats.kept,
            print_function(f)
        ));
        Ok(())
    })?;
    Ok(Output::Ssa(m, text))
}

/// A spiller's result, checked as ssa-ra checks it: the verifier, CSSA, and
/// the register demand recounted by the coloring checker at most `k`.
fn spilled_text(f: &Function, s: &SpillResult, k: usize) -> Result<String, String> {
    verified(f)?;
    check_cssa(f).map_err(|e| format!("not in CSSA after spilling: {e}"))?;
    let demand = coloring_check::max_register_demand(f, &s.spilled, k);
    if demand > k {
        return Err(format!("the register demand after spilling is {demand}, above K = {k}"));
    }
    Ok(format!(
        "{}spilled: {}\nreloads: {}\nload-lowered phis: {}\nmax demand: {}\n",
        print_function(f),
        value_list(s.spilled.iter()),
        value_list(s.reloads.iter()),
        value_list(s.lowered.iter().copied()),
        s.max_demand
    ))
}

/// The options of `spill.rs` that ssa-ra uses by default.
fn spill_options(k: usize) -> SpillOptions {
    SpillOptions { k, load_lowering: true, recycle_reloads: true }
}

fn spill_separately(h: &Header, input: &str) -> Result<Output, String> {
    let k = h.k()?;
    let mut text = String::new();
    let m = each_function(&cssa_input(input)?, |f| {
        let s = spill(f, &spill_options(k)).map_err(|e| e.to_string())?;
        text.push_str(&spilled_text(f, &s, k)?);
        Ok(())
    })?;
    Ok(Output::Ssa(m, text))
}

fn spill_while_coloring(h: &Header, input: &str) -> Result<Output, String> {
    let k = h.k()?;
    let mut text = String::new();
    let m = each_function(&cssa_input(input)?, |f| {
        let s = spill_during_coloring(f, &SpillDuringColoringOptions::with_k(k)).map_err(|e| e.to_string())?;
        text.push_str(&spilled_text(f, &s, k)?);
        Ok(())
    })?;
    Ok(Output::Ssa(m, text))
}

/// Spilling during coloring and register assignment, with the checks
/// ssa-ra runs after each.
fn spill_and_assign(f: &mut Function, k: usize) -> Result<(SpillResult, Assignment), String> {
    let s = spill_during_coloring(f, &SpillDuringColoringOptions::with_k(k)).map_err(|e| e.to_string())?;
    spilled_text(f, &s, k)?;
    let opts = ColoringOptions { local_coalescing: true, global_coalescing: true, avoid_precolored: true };
    let a = assign_registers(f, &s, k, &opts).map_err(|e| e.to_string())?;
    check_assignment(f, &s, &a, k).map_err(|e| e.to_string())?;
    coloring_check::check_frugal(f, &a.slot).map_err(|e| e.to_string())?;
    Ok((s, a))
}

fn coloring(h: &Header, input: &str) -> Result<Output, String> {
    let k = h.k()?;
    let mut text = String::new();
    each_function(&cssa_input(input)?, |f| {
        let before = f.clone();
        let (s, a) = spill_and_assign(f, k)?;
        if *f != before {
            text.push_str(&format!("after spilling:\n{}", spilled_text(f, &s, k)?));
        }
        text.push_str(&format!("fn {}: {} registers, {} slots\n", f.name, a.registers_used, a.slot_count));
        for v in (0..f.value_count).map(Value) {
            match (a.reg[v], a.slot[v]) {
                (Some(r), Some(slot)) => text.push_str(&format!("    {v}: {r}, stored to {slot}\n")),
                (Some(r), None) => text.push_str(&format!("    {v}: {r}\n")),
                (None, Some(slot)) => text.push_str(&format!("    {v}: {slot}\n")),
                (None, None) => {}
            }
        }
        Ok(())
    })?;
    Ok(Output::Text(text))
}

/// The prefix of ssa-ra from spilling on, through SSA elimination, with
/// every option on and the checks ssa-ra runs after SSA elimination.
fn ssa_ra_from_spilling(f: &Function, k: usize) -> Result<MFunction, String> {
    let mut f = f.clone();
    let (s, a) = spill_and_assign(&mut f, k)?;
    let opts = EliminationOptions { store_hoisting: true, redundant_memory_transfer_elimination: true };
    let (mf, _) = eliminate_ssa(&f, &s, &a, k, &opts).map_err(|e| e.to_string())?;
    alloc_checker::check_no_scratch(&mf).map_err(|e| e.to_string())?;
    alloc_checker::check_allocation(&mf).map_err(|e| e.to_string())?;
    coloring_check::check_chordal_optimum(&f, &s.spilled, &mf).map_err(|e| e.to_string())?;
    Ok(mf)
}

fn ssa_elimination(h: &Header, input: &str) -> Result<Output, String> {
    let k = h.k()?;
    let m = cssa_input(input)?;
    let functions = m.functions.iter().map(|f| ssa_ra_from_spilling(f, k)).collect::<Result<Vec<_>, _>>()?;
    let mm = MModule { functions };
    let text = ssaref::mir::print_module(&mm);
    Ok(Output::Mir(mm, text))
}

fn method_i(_: &Header, input: &str) -> Result<Output, String> {
    let mut text = String::new();
    let m = each_function(&ssa_input(input)?, |f| {
        let inserted = insert_copies(f);
        verified(f)?;
        check_cssa(f).map_err(|e| format!("not in CSSA after Method I (Lemma 1): {e}"))?;
        text.push_str(&print_function(f));
        let mut places: Vec<ParallelCopyPlace> = Vec::new();
        for c in &inserted {
            if !places.contains(&c.place) {
                places.push(c.place);
            }
        }
        for place in places {
            let copies: Vec<_> = inserted.iter().filter(|c| c.place == place).collect();
            let dests: Vec<String> = copies.iter().map(|c| c.dest.to_string()).collect();
            let sources: Vec<String> = copies.iter().map(|c| c.source.to_string()).collect();
            let at = match place {
                ParallelCopyPlace::End(b) => format!("at the end of {b}"),
                ParallelCopyPlace::AfterPhis(b) => format!("after the phis of {b}"),
            };
            text.push_str(&format!("parallel copy {at}: ({}) = ({})\n", dests.join(", "), sources.join(", ")));
        }
        Ok(())
    })?;
    Ok(Output::Ssa(m, text))
}

fn coalescing(h: &Header, input: &str) -> Result<Output, String> {
    let variants = h
        .get("variants")?
        .split(',')
        .map(|s| {
            CoalescingVariant::from_slug(s.trim()).ok_or_else(|| format!("`{}` is no coalescing variant", s.trim()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut text = String::new();
    each_function(&ssa_input(input)?, |f| {
        let inserted = insert_copies(f);
        text.push_str(&format!("after Method I:\n{}", print_function(f)));
        let groups = CopyGroups::from_inserted(f, &inserted);
        let depth = loop_depth(f);
        let affs = affinities(f, &inserted, &depth);
        let live = compute_liveness(f);
        let dom = DomTree::compute(f);
        let ctx = ValueInterference::with_source(f, &dom, LivenessSource::Sets(&live), &groups);
        for &variant in &variants {
            let opts = CoalescingOptions { variant, class_test: ClassTest::Linear, cross_check: true };
            let result = coalesce(f, &ctx, None, &affs, opts, &Pins::none());
            if result.linear_mismatches > 0 {
                return Err(format!("{}: the linear class test disagrees with the pairwise one", variant.name()));
            }
            let lists = class_lists(&result, (0..f.value_count).map(Value));
            check_classes_do_not_interfere(f, &groups.all_ranges(f), &lists).map_err(|e| format!("{e:?}"))?;
            let left = inserted
                .iter()
                .filter(|c| result.class(c.dest) != result.class(c.source) && !result.shared.contains(&c.dest))
                .count();
            let classes: Vec<String> = lists.iter().map(|l| format!("{{{}}}", value_list(l.iter().copied()))).collect();
            text.push_str(&format!(
                "{}: {} of {} copies left; classes {}\n",
                variant.name(),
                left,
                inserted.len(),
                classes.join(" ")
            ));
        }
        Ok(())
    })?;
    Ok(Output::Text(text))
}

/// A parallel copy, one `DEST <- SOURCE` per line, the locations words.
fn sequentialize(h: &Header, input: &str) -> Result<Output, String> {
    let spare = h.get("spare")?;
    let mut copies: Vec<(&str, &str)> = Vec::new();
    for line in input.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//")) {
        let (d, s) = line.split_once("<-").ok_or_else(|| format!("`{line}` is not `DEST <- SOURCE`"))?;
        copies.push((d.trim(), s.trim()));
    }
    let dests: BTreeSet<&str> = copies.iter().map(|&(d, _)| d).collect();
    if dests.len() != copies.len() || copies.iter().any(|&(d, s)| d == spare || s == spare) {
        return Err("a parallel copy writes each location once and never names the spare".into());
    }
    let seq = sequentialize_parallel_copy(&copies, spare);
    // Run both on distinct initial contents: the sequence must leave every
    // destination as the parallel copy does, and use the fewest copies.
    let mut store: BTreeMap<&str, String> = BTreeMap::new();
    for &(d, s) in &copies {
        store.insert(d, format!("old {d}"));
        store.insert(s, format!("old {s}"));
    }
    let mut run = store.clone();
    execute(&seq, &mut run).map_err(|e| format!("the sequence reads an undefined location: {e:?}"))?;
    for &(d, s) in &copies {
        if run[d] != store[s] {
            return Err(format!("after the sequence {d} holds {}, not {}", run[d], store[s]));
        }
    }
    let fewest = optimal_copy_count(&copies);
    if seq.len() != fewest {
        return Err(format!("{} copies, but {fewest} suffice", seq.len()));
    }
    Ok(Output::Text(seq.iter().map(|(d, s)| format!("{d} <- {s}\n")).collect()))
}

fn virtualization(_: &Header, input: &str) -> Result<Output, String> {
    let opts = OutOfSsaOptions { renaming_constraints: false, ..OutOfSsaOptions::fast(CoalescingVariant::SreedharIII) };
    let mut m = ssa_input(input)?;
    for f in &mut m.functions {
        let (g, _, _) = translate_virtualized(f, f.clone(), Pins::none(), OutOfSsaReport::default(), &opts)
            .map_err(|e| e.to_string())?;
        verify_conventional(&g).map_err(|e| format!("the output fails the conventional-form verifier: {e}"))?;
        *f = g;
    }
    let text = print_module(&m);
    Ok(Output::Ssa(m, text))
}

/// A conventional allocator on a conventional-form input, with the
/// allocation checker on its output.
fn conventional(
    h: &Header,
    input: &str,
    allocate: fn(&Function, usize) -> Result<MFunction, ssaref::error::PassError>,
) -> Result<Output, String> {
    let k = h.k()?;
    let m = parse_module(input).map_err(|e| format!("the input does not parse: {e}"))?;
    let mut functions = Vec::new();
    for f in &m.functions {
        verify_conventional(f).map_err(|e| format!("the input fails the conventional-form verifier: {e}"))?;
        let mf = allocate(f, k).map_err(|e| e.to_string())?;
        alloc_checker::check_allocation(&mf).map_err(|e| e.to_string())?;
        functions.push(mf);
    }
    let mm = MModule { functions };
    let text = ssaref::mir::print_module(&mm);
    Ok(Output::Mir(mm, text))
}

fn conventional_linear_scan(h: &Header, input: &str) -> Result<Output, String> {
    conventional(h, input, linear_scan)
}

fn conventional_spill_everything(h: &Header, input: &str) -> Result<Output, String> {
    conventional(h, input, spill_everything)
}

fn regalloc2(h: &Header, input: &str) -> Result<Output, String> {
    let k = h.k()?;
    let m = ssa_input(input)?;
    let mut functions = Vec::new();
    for f in &m.functions {
        let (mf, _) = allocate_regalloc2(f, k).map_err(|e| e.to_string())?;
        alloc_checker::check_allocation(&mf).map_err(|e| e.to_string())?;
        functions.push(mf);
    }
    let mm = MModule { functions };
    let text = ssaref::mir::print_module(&mm);
    Ok(Output::Mir(mm, text))
}

/// x86-64 lowering of the machine IR that ssa-ra's passes make of the
/// input (one-argument phis, critical edges, PhiLifting, then spilling,
/// coloring and SSA elimination), with the machine-code checker.
fn x86(h: &Header, input: &str) -> Result<Output, String> {
    let k = h.k()?;
    let m = ssa_input(input)?;
    let mut text = String::new();
    let mut functions = Vec::new();
    for f in &m.functions {
        let mut g = f.clone();
        lower_one_argument_phis(&mut g);
        split_critical_edges(&mut g);
        lift(&mut g)?;
        let mf = ssa_ra_from_spilling(&g, k)?;
        let code = lower_function_listed(&mf).map_err(|e| e.to_string())?;
        check_machine_code(&code).map_err(|e| e.to_string())?;
        text.push_str(&format!("machine IR:\n{}x86-64:\n{}", ssaref::mir::print_function(&mf), listing(&code)));
        functions.push(mf);
    }
    Ok(Output::Mir(MModule { functions }, text))
}

// ---------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------

/// `tests/filetests/passes/`.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/filetests/passes")
}

/// The header of a file: its leading comment lines of the form
/// `// KEY: VALUE` whose key is `args` or one of `keys`.
fn header(text: &str, keys: &[&str]) -> Header {
    let mut map = BTreeMap::new();
    for line in text.lines().take_while(|l| l.starts_with("//")) {
        if let Some((key, value)) = line.trim_start_matches("//").trim().split_once(':') {
            if key == "args" || keys.contains(&key) {
                map.insert(key.to_string(), value.trim().to_string());
            }
        }
    }
    Header(map)
}

/// The file as it should be: its input followed by the output block of
/// `pass` on it.
fn expected_text(pass: &Pass, text: &str) -> Result<String, String> {
    if !text.starts_with("//") || text.starts_with(OUTPUT) {
        return Err("a pass filetest starts with a comment saying what it shows".into());
    }
    let input_lines: Vec<&str> = text.lines().take_while(|l| l.trim_end() != OUTPUT).collect();
    let input = input_lines.join("\n").trim_end().to_string() + "\n";
    let h = header(&input, pass.keys);
    let output = (pass.run)(&h, &input)?;
    if let Some(args) = h.args()? {
        // A conventional-form input runs in the oracle too; a source program
        // or a parallel copy does not parse, and its pass compares itself.
        let before = parse_module(&input).ok().map(|m| ssaref_interp::run_ssa(&m, &args, ssaref_interp::DEFAULT_FUEL));
        let after = match &output {
            Output::Ssa(m, _) => Some(ssaref_interp::run_ssa(m, &args, ssaref_interp::DEFAULT_FUEL)),
            Output::Mir(m, _) => Some(ssaref_interp::run_mir(m, &args, ssaref_interp::DEFAULT_FUEL)),
            Output::Text(_) => None,
        };
        if let (Some(before), Some(after)) = (before, after) {
            if before != after {
                return Err(format!("with args {args:?} the input gives {before:?}, the output {after:?}"));
            }
        }
    }
    let (Output::Ssa(_, out) | Output::Mir(_, out) | Output::Text(out)) = output;
    let mut want = format!("{input}\n{OUTPUT}\n");
    for line in out.lines() {
        want.push_str(&if line.is_empty() { "//".to_string() } else { format!("// {line}") });
        want.push('\n');
    }
    Ok(want)
}

/// The files of one folder, sorted.
fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.expect("readable entry").path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// Every folder under `dir` that holds a file, relative to `root`.
fn folders_with_files(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            folders_with_files(root, &path, out);
        } else if let Some(parent) = path.parent() {
            let rel = parent.strip_prefix(root).expect("under the root").to_string_lossy().replace('\\', "/");
            if !out.contains(&rel) {
                out.push(rel);
            }
        }
    }
}

#[test]
fn every_pass_filetest_holds_the_output_of_its_pass() {
    let bless = std::env::var("SSAREF_BLESS").is_ok_and(|v| v == "1");
    let root = root();
    let mut failures = Vec::new();
    let mut folders = Vec::new();
    folders_with_files(&root, &root, &mut folders);
    for folder in &folders {
        if !PASSES.iter().any(|p| p.folder == folder) {
            failures.push(format!("tests/filetests/passes/{folder}: not the folder of a pass"));
        }
    }
    let mut counts = BTreeMap::new();
    for pass in PASSES {
        let files = files_in(&root.join(pass.folder));
        counts.insert(pass.folder, files.len());
        for path in files {
            let name =
                format!("tests/filetests/passes/{}/{}", pass.folder, path.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&path).expect("readable filetest");
            match expected_text(pass, &text) {
                Err(e) => failures.push(format!("{name}: {e}")),
                Ok(want) if want == text => {}
                Ok(want) if bless => {
                    std::fs::write(&path, want).expect("write blessed filetest");
                    eprintln!("blessed {name}");
                }
                Ok(want) => failures.push(format!(
                    "{name}: the output block is not what the pass gives \
                     (< the file, > the file with the actual output; SSAREF_BLESS=1 writes the latter):\n{}",
                    pretty_assertions::StrComparison::new(&text, &want)
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{} pass filetests fail:\n\n{}", failures.len(), failures.join("\n\n"));
    for (folder, n) in &counts {
        assert!(*n >= 2, "tests/filetests/passes/{folder} holds {n} filetests; each pass has at least two");
    }
    eprintln!("pass filetests: {counts:?}");
}

#[test]
fn a_wrong_output_line_is_caught_and_a_missing_block_is_written() {
    let pass = PASSES.iter().find(|p| p.folder == "critical-edges").expect("the pass exists");
    let input = "// what\nfn main(v0) {\nb0:\n    br v0, b1, b2\nb1(b0):\n    jump b2\nb2(b0, b1):\n    v1 = phi v0, v0\n    ret v1\n}\n";
    let want = expected_text(pass, input).expect("a valid input");
    assert!(want.starts_with(input) && want.contains("\n// output:\n// fn main(v0) {\n"), "{want}");
    assert!(want.contains("// b3(b0):\n//     jump b2\n"), "the critical edge b0 -> b2 is split: {want}");
    assert_eq!(expected_text(pass, &want).as_deref(), Ok(want.as_str()), "a right file is kept");
    let wrong = want.replace("// b3(b0):\n//     jump b2", "// b3(b0):\n//     jump b1");
    assert_ne!(wrong, want);
    assert_eq!(expected_text(pass, &wrong).as_deref(), Ok(want.as_str()), "a wrong line is replaced");
    let invalid = "// what\nfn main(v0) {\nb0:\n    ret v1\n}\n";
    assert!(expected_text(pass, invalid).unwrap_err().contains("verifier"));
}

#[test]
fn an_output_that_computes_something_else_is_caught_by_the_oracle() {
    // A pass that returns a constant instead of its parameter.
    let wrong = Pass {
        folder: "wrong",
        keys: &[],
        run: |_, _| {
            let m = parse_module("fn main(v0) {\nb0:\n    v1 = const 0\n    ret v1\n}\n").expect("parses");
            let text = print_module(&m);
            Ok(Output::Ssa(m, text))
        },
    };
    let input = "// what\n// args: 7\nfn main(v0) {\nb0:\n    ret v0\n}\n";
    let error = expected_text(&wrong, input).unwrap_err();
    assert!(error.contains("with args [7] the input gives"), "{error}");
    // Without arguments the oracle is not asked.
    assert!(expected_text(&wrong, &input.replace("// args: 7\n", "")).is_ok());
}
