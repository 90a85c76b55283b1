//! The witness search of copy sharing (`out_of_ssa/copy_sharing_witnesses.rs`,
//! Boissinot et al. CGO 2009 §III-B): its walk down the dominator tree from
//! each variable finds, for every copy, exactly the variables that the
//! pairwise test (same value, not the copy's own two, definition dominating
//! the copy, live at it) accepts, with the liveness from the sets and from
//! the liveness check, on the case files and on generated programs.

use crate::common::case_files;
use ssaref::analysis::critical_edges::split_critical_edges;
use ssaref::analysis::dominance::DomTree;
use ssaref::analysis::liveness::compute_liveness;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::ir::{Function, Module, Op, Value};
use ssaref::out_of_ssa::copy_insertion::insert_copies;
use ssaref::out_of_ssa::copy_sharing_witnesses::{witnesses, CopyPair};
use ssaref::out_of_ssa::liveness_check::LivenessCheck;
use ssaref::out_of_ssa::values::{CopyGroups, LivenessSource, ValueInterference};
use std::collections::BTreeMap;

#[derive(Default, Debug)]
struct Counts {
    copies: usize,
    witnesses: usize,
    /// Copies given no candidate list, which must get no witness.
    without_list: usize,
}

/// The pairwise test, written out from the definition.
fn pairwise(ctx: &ValueInterference<'_>, c: Value, p: CopyPair) -> bool {
    if c == p.dest || c == p.source {
        return false;
    }
    let both_reachable = ctx.def_order(c).is_some() && ctx.def_order(p.dest).is_some();
    if both_reachable && !ctx.def_dominates(c, p.dest) {
        return false;
    }
    ctx.live_at_def(c, p.dest)
}

fn compare_function(f: &Function, counts: &mut Counts) -> Result<(), String> {
    let mut g = f.clone();
    split_critical_edges(&mut g);
    let inserted = insert_copies(&mut g);
    let parallel = CopyGroups::from_inserted(&g, &inserted);
    let dom = DomTree::compute(&g);
    let sets = compute_liveness(&g);
    let check = LivenessCheck::new(&g);
    let copies: Vec<CopyPair> = g
        .blocks
        .values()
        .flat_map(|d| d.insts.iter())
        .filter_map(|i| match (i.dest, &i.op) {
            (Some(dest), Op::Copy(source)) => Some(CopyPair { dest, source: *source }),
            _ => None,
        })
        .collect();
    for source in [LivenessSource::Sets(&sets), LivenessSource::Check(&check)] {
        let ctx = ValueInterference::with_source(&g, &dom, source, &parallel);
        let mut by_value: BTreeMap<Value, Vec<Value>> = BTreeMap::new();
        for p in &copies {
            for v in [p.dest, p.source] {
                by_value.entry(ctx.value_of(v)).or_default().push(v);
            }
        }
        let mut index = BTreeMap::new();
        let mut lists: Vec<Vec<Value>> = Vec::new();
        for (value, mut list) in by_value {
            list.sort();
            list.dedup();
            index.insert(value, lists.len());
            lists.push(list);
        }
        // Every third copy gets no list.
        let group_of: Vec<Option<usize>> =
            copies.iter().enumerate().map(|(i, p)| (i % 3 != 2).then(|| index[&ctx.value_of(p.source)])).collect();
        let got = witnesses(&ctx, &copies, &lists, &group_of);
        for (i, p) in copies.iter().enumerate() {
            let expected: Vec<Value> = match group_of[i] {
                Some(k) => lists[k].iter().copied().filter(|&c| pairwise(&ctx, c, *p)).collect(),
                None => {
                    counts.without_list += 1;
                    Vec::new()
                }
            };
            if got[i] != expected {
                return Err(format!(
                    "copy {} = copy {}: witnesses {:?}, the pairwise test gives {:?}",
                    p.dest, p.source, got[i], expected
                ));
            }
            counts.copies += 1;
            counts.witnesses += expected.len();
        }
    }
    Ok(())
}

fn compare_module(m: &Module, counts: &mut Counts) -> Result<(), String> {
    for f in &m.functions {
        compare_function(f, counts).map_err(|e| format!("function {}: {e}", f.name))?;
    }
    Ok(())
}

#[test]
fn witnesses_are_the_pairwise_tests_answers_on_the_cases() {
    let mut counts = Counts::default();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let program = ssaref::frontend::parser::parse_program(&text).expect("case parses");
        for opts in [BraunOptions::all_on(), BraunOptions::plain()] {
            if let Err(e) = compare_module(&construct_program(&program, &opts), &mut counts) {
                panic!("{}: {e}", path.display());
            }
        }
    }
    eprintln!("cases: {counts:?}");
    assert!(counts.witnesses > 0 && counts.without_list > 0, "{counts:?}");
}

#[test]
fn witnesses_are_the_pairwise_tests_answers_on_generated_programs() {
    use ssaref::generate::source::{GenConfig, Shape, TestCase};
    let mut counts = Counts::default();
    for seed in 0..120u64 {
        let config = if seed % 2 == 0 { Shape::Patterns.config() } else { GenConfig::default() };
        let tc = TestCase::from_seed(seed, &config);
        let opts = if seed % 4 < 2 { BraunOptions::all_on() } else { BraunOptions::plain() };
        if let Err(e) = compare_module(&construct_program(&tc.program, &opts), &mut counts) {
            panic!("seed {seed}: {e}\n{}", tc.to_source());
        }
    }
    eprintln!("generated: {counts:?}");
    assert!(counts.witnesses > 100, "{counts:?}");
}
