//! The bit-matrix interference graph of out-of-ssa's first Sreedhar III
//! baseline (`out_of_ssa/interference_graph_bitmatrix.rs`, Boissinot et al.
//! §IV-D) against the interference relation computed independently, by
//! brute force, on generated programs (source-level and IR-level
//! generators, `QUICKCHECK_TESTS` programs of each, default 60):
//!
//! - liveness by path search: a value is live out of a block when a path
//!   from the block's end reaches a use (a phi argument on the edge taken,
//!   or a use in a block before any definition) without passing its
//!   definition. No dataflow, nothing of `liveness.rs`;
//! - interference: two values interfere when they meet at some program
//!   point: live together at a block's start (phi destinations and the
//!   entry's parameters included, all defined there), live together after
//!   an instruction (a parallel copy: all of it), or one defined by it while
//!   the other is live after it (an unused result still occupies its
//!   destination; two results of one parallel copy that both die at once do
//!   not meet). In strict SSA this is Lemma 1 of Pereira (one is live at
//!   the other's definition).
//!
//! The graph must hold exactly those pairs, its adjacency lists must agree
//! with its matrix, and on the copy- and phi-related variables it must
//! agree with the cheaper baseline's edge set (`coalescing::InterferenceGraph`).
//! The same is checked after Method I (parallel copies).

use ssaref::analysis::liveness::compute_liveness;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::entity::EntityRef;
use ssaref::generate::source::{GenConfig, TestCase};
use ssaref::generate::ssa::{IrCase, IrGenConfig};
use ssaref::ir::{Block, Function, Value};
use ssaref::out_of_ssa::coalescing::{InterferenceGraph, InterferenceQuery};
use ssaref::out_of_ssa::copy_insertion::insert_copies;
use ssaref::out_of_ssa::interference_graph_bitmatrix::BitMatrixGraph;
use ssaref::out_of_ssa::values::CopyGroups;
use std::collections::BTreeSet;

fn count() -> u64 {
    std::env::var("QUICKCHECK_TESTS").ok().and_then(|s| s.parse().ok()).unwrap_or(60)
}

/// Successor edges of `b` as (successor, index of the edge in its preds).
fn edges(f: &Function, b: Block) -> Vec<(Block, usize)> {
    let mut out = Vec::new();
    for s in f.blocks[b].term.successors() {
        // The k-th occurrence of `b` among the successors matches the k-th
        // occurrence among the successor's predecessors.
        let occurrence = out.iter().filter(|(t, _)| *t == s).count();
        let index = f.blocks[s]
            .preds
            .iter()
            .enumerate()
            .filter(|(_, &p)| p == b)
            .nth(occurrence)
            .map(|(i, _)| i)
            .expect("an edge is in the successor's predecessors");
        out.push((s, index));
    }
    out
}

/// True when `v` is defined in `s` (phi, instruction, or parameter of the entry).
fn defined_in(f: &Function, s: Block, v: Value) -> bool {
    let d = &f.blocks[s];
    d.phis.iter().any(|p| p.dest == v)
        || d.insts.iter().any(|i| i.dest == Some(v))
        || (s == Function::ENTRY && f.params.contains(&v))
}

/// True when an instruction or the terminator of `s` reads `v` before any
/// definition of `v` in `s`.
fn upward_exposed(f: &Function, s: Block, v: Value) -> bool {
    let d = &f.blocks[s];
    if d.phis.iter().any(|p| p.dest == v) {
        return false;
    }
    for inst in &d.insts {
        if inst.op.args().contains(&v) {
            return true;
        }
        if inst.dest == Some(v) {
            return false;
        }
    }
    d.term.arg() == Some(v)
}

/// `v` is live on some edge out of `b`: by search over paths.
fn live_out(f: &Function, b: Block, v: Value) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![b];
    while let Some(x) = stack.pop() {
        for (s, index) in edges(f, x) {
            // A phi argument is used on its edge only.
            if f.blocks[s].phis.iter().any(|p| p.args.get(index) == Some(&v)) {
                return true;
            }
            if upward_exposed(f, s, v) {
                return true;
            }
            if !defined_in(f, s, v) && seen.insert(s) {
                stack.push(s);
            }
        }
    }
    false
}

/// The pairs of values occupied together at some point of `f` (see the
/// module documentation); `groups` lists the parallel copies as
/// (block, start, end).
fn brute_force_pairs(f: &Function, groups: &[(Block, usize, usize)]) -> BTreeSet<(Value, Value)> {
    let values: Vec<Value> = (0..f.value_count).map(Value).collect();
    let mut pairs = BTreeSet::new();
    let clique = |set: &BTreeSet<Value>, pairs: &mut BTreeSet<(Value, Value)>| {
        for &a in set {
            for &b in set {
                if a < b {
                    pairs.insert((a, b));
                }
            }
        }
    };
    for (b, data) in f.blocks.iter() {
        let out: BTreeSet<Value> = values.iter().copied().filter(|&v| live_out(f, b, v)).collect();
        // Walk backward: live before each step.
        let mut live = out.clone();
        live.extend(data.term.arg());
        let mut i = data.insts.len();
        while i > 0 {
            let start = groups.iter().find(|&&(g, _, e)| g == b && e == i).map_or(i - 1, |&(_, s, _)| s);
            // Live together after the step, or one defined by it while the
            // other is live after it (two results of one parallel copy that
            // both die at once do not meet).
            clique(&live, &mut pairs);
            for inst in &data.insts[start..i] {
                if let Some(d) = inst.dest {
                    for &v in &live {
                        if v != d {
                            pairs.insert((d.min(v), d.max(v)));
                        }
                    }
                }
            }
            for inst in &data.insts[start..i] {
                if let Some(d) = inst.dest {
                    live.remove(&d);
                }
            }
            for inst in &data.insts[start..i] {
                live.extend(inst.op.args());
            }
            i = start;
        }
        let mut at_start = live;
        at_start.extend(data.phis.iter().map(|p| p.dest));
        if b == Function::ENTRY {
            at_start.extend(f.params.iter().copied());
        }
        clique(&at_start, &mut pairs);
    }
    pairs
}

fn graph_pairs(g: &BitMatrixGraph, n: u32) -> BTreeSet<(Value, Value)> {
    let mut pairs = BTreeSet::new();
    for a in 0..n {
        for b in a + 1..n {
            if g.contains(Value(a), Value(b)) {
                pairs.insert((Value(a), Value(b)));
            }
        }
    }
    pairs
}

/// Checks the graph of `f` (with the parallel copies `groups`) against the
/// brute force, its lists against its matrix, and the edge set on `universe`.
fn check(f: &Function, groups: &CopyGroups, origin: &str) -> usize {
    let live = compute_liveness(f);
    let g = BitMatrixGraph::build(f, &live, groups);
    let expected = brute_force_pairs(f, &groups.all_ranges(f));
    let got = graph_pairs(&g, f.value_count);
    assert_eq!(
        got.symmetric_difference(&expected).next(),
        None,
        "{origin}: the bit matrix and the brute force differ\n{}",
        ssaref::ssa_text::print_function(f)
    );
    assert_eq!(g.edge_count(), expected.len(), "{origin}: edge count");
    // What out-of-ssa reports as the baseline's edges (`OutOfSsaReport::graph_edges`).
    let query: &dyn InterferenceQuery = &g;
    assert_eq!(query.edge_count(), expected.len(), "{origin}: edge count through the query interface");
    for &(a, b) in expected.iter().take(64) {
        assert!(query.contains(a, b) && query.contains(b, a), "{origin}: {a}, {b} through the query interface");
    }
    for a in 0..f.value_count {
        let listed: BTreeSet<Value> = g.neighbors(Value(a)).iter().copied().collect();
        assert_eq!(listed.len(), g.neighbors(Value(a)).len(), "{origin}: v{a} listed twice");
        let from_matrix: BTreeSet<Value> = (0..f.value_count).map(Value).filter(|&b| g.contains(Value(a), b)).collect();
        assert_eq!(listed, from_matrix, "{origin}: adjacency list of v{a}");
    }
    // The cheaper baseline, on the copy- and phi-related variables.
    let mut universe = rustc_hash::FxHashSet::default();
    for d in f.blocks.values() {
        for inst in &d.insts {
            if let (Some(x), ssaref::ir::Op::Copy(y)) = (inst.dest, &inst.op) {
                universe.insert(x);
                universe.insert(*y);
            }
        }
        for phi in &d.phis {
            universe.insert(phi.dest);
            universe.extend(phi.args.iter().copied());
        }
    }
    let edge_set = InterferenceGraph::build(f, &live, groups, &universe);
    for &a in &universe {
        for &b in &universe {
            if a.index() < b.index() {
                assert_eq!(edge_set.contains(a, b), g.contains(a, b), "{origin}: edge set and bit matrix on {a}, {b}");
            }
        }
    }
    // The paper's baseline: the bit matrix over the same universe holds
    // exactly the full matrix's pairs inside it, and its lists agree.
    let related = BitMatrixGraph::build_over(f, &live, groups, &universe);
    assert_eq!(related.variable_count(), universe.len(), "{origin}: rows of the restricted matrix");
    let inside: BTreeSet<(Value, Value)> =
        expected.iter().copied().filter(|(a, b)| universe.contains(a) && universe.contains(b)).collect();
    assert_eq!(graph_pairs(&related, f.value_count), inside, "{origin}: restricted bit matrix");
    assert_eq!(related.edge_count(), inside.len(), "{origin}: restricted edge count");
    for a in (0..f.value_count).map(Value) {
        let listed: BTreeSet<Value> = related.neighbors(a).iter().copied().collect();
        let from_matrix: BTreeSet<Value> = (0..f.value_count).map(Value).filter(|&b| related.contains(a, b)).collect();
        assert_eq!(listed, from_matrix, "{origin}: restricted adjacency list of {a}");
    }
    expected.len()
}

fn has_duplicate_phi_edges(f: &Function) -> bool {
    f.blocks.values().any(|d| !d.phis.is_empty() && d.preds.iter().enumerate().any(|(i, p)| d.preds[..i].contains(p)))
}

#[test]
fn the_bit_matrix_is_the_brute_force_interference_relation_on_generated_programs() {
    let mut functions: Vec<(Function, String)> = Vec::new();
    for seed in 0..count() {
        let tc = TestCase::from_seed(seed, &GenConfig::default());
        for f in construct_program(&tc.program, &BraunOptions::all_on()).functions {
            functions.push((f, format!("gen seed {seed}")));
        }
        let case = IrCase::from_seed(seed, &IrGenConfig::default());
        for f in case.module.functions {
            functions.push((f, case.origin.clone()));
        }
    }
    let mut edges = 0;
    let mut with_copies = 0;
    for (f, origin) in &functions {
        edges += check(f, &CopyGroups::none(), origin);
        if !has_duplicate_phi_edges(f) {
            let mut g = f.clone();
            let inserted = insert_copies(&mut g);
            let groups = CopyGroups::from_inserted(&g, &inserted);
            edges += check(&g, &groups, &format!("{origin}, after Method I"));
            with_copies += 1;
        }
    }
    assert!(edges > 1000, "only {edges} edges checked");
    assert!(with_copies > functions.len() / 2, "only {with_copies} functions checked after Method I");
}

#[test]
fn a_hand_made_function_has_the_edges_worked_out_by_hand() {
    // v0 is live across the definitions of v1 and v2; v1 dies at v2's
    // definition; v3 is defined unused and still meets v0 and v2.
    let m = ssaref::ssa_text::parse_module(
        "fn f(v0) {\nb0:\n    v1 = add v0, v0\n    v2 = add v1, v0\n    v3 = add v0, v2\n    v4 = add v0, v2\n    ret v4\n}\n",
    )
    .expect("parses");
    let f = &m.functions[0];
    let g = BitMatrixGraph::build(f, &compute_liveness(f), &CopyGroups::none());
    let got = graph_pairs(&g, f.value_count);
    let want: BTreeSet<(Value, Value)> =
        [(0, 1), (0, 2), (0, 3), (2, 3)].into_iter().map(|(a, b)| (Value(a), Value(b))).collect();
    assert_eq!(got, want);
    assert_eq!(g.neighbors(Value(0)).len(), 3);
    assert!(g.footprint_bytes() >= 8, "the matrix takes at least one word");
}
