//! Live intervals (Pereira §4.1, `analysis/intervals.rs`) against point
//! sets, and loop depths (`analysis/loops.rs`) against natural loops: the
//! analyses ssa-ra's passes rest on, split from `tests/suite/cssa_passes.rs`.

use crate::common::{case_files, parse_one, COUNTING_LOOP};

use ssaref::analysis::critical_edges::split_critical_edges;
use ssaref::analysis::intervals::{compute_intervals, is_well_formed, merge, union_intersects};
use ssaref::analysis::liveness::{compute_liveness, interfere};
use ssaref::analysis::loops::{loop_depth, loop_depth_by_sccs};
use ssaref::analysis::pressure::max_pressure;
use ssaref::construction::braun::{construct_program, BraunOptions};
use ssaref::entity::EntityVec;
use ssaref::ir::{Block, Function, Op, Value};
use ssaref::ssa_text::print_function;

#[test]
fn interval_intersection_corner_cases() {
    assert!(!union_intersects(&[], &[]));
    assert!(!union_intersects(&[(1, 3)], &[]));
    // Touching: 3 and 4 are different points.
    assert!(!union_intersects(&[(1, 3)], &[(4, 5)]));
    assert!(!union_intersects(&[(4, 5)], &[(1, 3)]));
    // Sharing one end point.
    assert!(union_intersects(&[(1, 3)], &[(3, 5)]));
    assert!(union_intersects(&[(3, 5)], &[(1, 3)]));
    // Single points.
    assert!(union_intersects(&[(2, 2)], &[(2, 2)]));
    assert!(!union_intersects(&[(2, 2)], &[(3, 3)]));
    // Containment, and holes.
    assert!(union_intersects(&[(0, 10)], &[(4, 5)]));
    assert!(!union_intersects(&[(0, 1), (5, 6), (10, 12)], &[(2, 4), (7, 9), (13, 20)]));
    assert!(union_intersects(&[(0, 1), (5, 6), (10, 12)], &[(2, 4), (7, 9), (12, 20)]));
    assert!(!union_intersects(&[(0, u32::MAX - 1)], &[(u32::MAX, u32::MAX)]));
    assert_eq!(merge(&[(1, 3)], &[(4, 5)]), vec![(1, 5)]);
    assert_eq!(merge(&[(1, 2)], &[(4, 5)]), vec![(1, 2), (4, 5)]);
    assert_eq!(merge(&[(1, 10)], &[(2, 3), (5, 12)]), vec![(1, 12)]);
    assert_eq!(merge(&[], &[(7, 7)]), vec![(7, 7)]);
    assert_eq!(merge(&[(0, 0)], &[(u32::MAX, u32::MAX)]), vec![(0, 0), (u32::MAX, u32::MAX)]);
}

/// Random interval lists against bit sets.
#[test]
fn interval_merge_and_intersection_agree_with_point_sets() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x5eed);
    let random_list = |rng: &mut rand::rngs::SmallRng| {
        let mut points = [false; 40];
        for p in points.iter_mut() {
            *p = rng.gen_bool(0.3);
        }
        let mut list: Vec<(u32, u32)> = Vec::new();
        for (i, &on) in points.iter().enumerate() {
            if on {
                match list.last_mut() {
                    // Sometimes leave adjacent intervals apart: still well formed.
                    Some(last) if last.1 + 1 == i as u32 && rng.gen_bool(0.7) => last.1 = i as u32,
                    _ => list.push((i as u32, i as u32)),
                }
            }
        }
        (points, list)
    };
    for _ in 0..2000 {
        let (pa, a) = random_list(&mut rng);
        let (pb, b) = random_list(&mut rng);
        let expected = pa.iter().zip(&pb).any(|(x, y)| *x && *y);
        assert_eq!(union_intersects(&a, &b), expected, "{a:?} {b:?}");
        let m = merge(&a, &b);
        assert!(is_well_formed(&m));
        assert!(m.windows(2).all(|w| w[0].1 + 1 < w[1].0), "joined: {m:?}");
        for p in 0..40u32 {
            let inside = m.iter().any(|&(x, y)| x <= p && p <= y);
            assert_eq!(inside, pa[p as usize] || pb[p as usize], "{a:?} + {b:?} = {m:?} at {p}");
        }
    }
}

#[test]
fn a_value_that_dies_where_another_is_defined_does_not_overlap_it() {
    let f = parse_one(COUNTING_LOOP);
    let live = compute_liveness(&f);
    let iv = compute_intervals(&f, &live);
    // v3 dies at `v5 = add v3, v2` in b2.
    let p = iv.inst_point(Block(2), 0);
    assert!(iv.is_live_at(Value(5), p));
    assert!(!iv.is_live_at(Value(3), p));
    assert!(iv.is_live_at(Value(3), iv.block_start(Block(2))));
    assert!(!iv.overlap(Value(3), Value(5)));
    // The phi argument v5 is live at the end of b2 only, not at b1's start.
    assert!(iv.is_live_at(Value(5), iv.block_end(&f, Block(2))));
    assert!(!iv.is_live_at(Value(5), iv.block_start(Block(1))));
    // A dead result occupies the point after its instruction.
    let g = parse_one("fn main(v0) {\nb0:\n    v1 = add v0, v0\n    ret v0\n}\n");
    let live = compute_liveness(&g);
    let iv = compute_intervals(&g, &live);
    assert_eq!(iv.ranges(Value(1)), &[(1, 1)]);
    assert_eq!(iv.ranges(Value(0)), &[(0, 2)]);
    assert!(interfere(&g, &live, Value(0), Value(1)));
    assert_eq!(max_pressure(&g, &live), 2);
}

// ---------------------------------------------------------------------------
// PhiLifting and PhiMemCoalesce on a small function.
// ---------------------------------------------------------------------------

#[test]
fn loop_depth_matches_natural_loops_on_reducible_functions() {
    let mut compared = 0;
    for path in case_files() {
        let program = ssaref::frontend::parser::parse_program(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for opts in [BraunOptions::all_on(), BraunOptions::plain()] {
            for f in construct_program(&program, &opts).functions {
                let mut g = f.clone();
                split_critical_edges(&mut g);
                for h in [f, g] {
                    if ssaref::analysis::reducibility::is_reducible(&h) {
                        assert_eq!(loop_depth(&h), natural_loop_depth(&h), "{}", print_function(&h));
                        compared += 1;
                    } else {
                        // Every block on a cycle has depth at least 1.
                        let depth = loop_depth(&h);
                        for b in h.blocks.keys() {
                            let on_cycle =
                                ssaref::analysis::dominance::reverse_postorder(h.block_count(), b, |x| h.succs(x))
                                    .iter()
                                    .any(|&x| h.succs(x).contains(&b));
                            assert_eq!(depth[b] >= 1, on_cycle, "{b} in\n{}", print_function(&h));
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 50);
}

/// The dominator-tree computation of `loop_depth` (reducible CFGs) gives
/// Steensgaard's depths, and irreducible CFGs take Steensgaard's: on
/// generated programs of every shape (the `gotos` shape has irreducible
/// ones), with and without split critical edges, and on the nested loops of
/// `gen --shape nested-loops`.
#[test]
fn loop_depth_matches_steensgaard_on_generated_programs() {
    use ssaref::generate::source::{Shape, TestCase, WorstShape};
    let mut programs: Vec<ssaref::ast::Program> = (0..120u64)
        .map(|seed| TestCase::from_seed(seed, &Shape::ALL[seed as usize % Shape::ALL.len()].config()).program)
        .collect();
    for shape in WorstShape::ALL {
        programs.push(ssaref::frontend::parser::parse_program(&shape.source(40)).unwrap());
    }
    let (mut reducible, mut irreducible, mut deepest) = (0, 0, 0);
    for program in &programs {
        for f in construct_program(program, &BraunOptions::plain()).functions {
            let mut g = f.clone();
            split_critical_edges(&mut g);
            for h in [f, g] {
                let depth = loop_depth(&h);
                assert_eq!(depth, loop_depth_by_sccs(&h), "{}", print_function(&h));
                if ssaref::analysis::reducibility::is_reducible(&h) {
                    reducible += 1;
                } else {
                    irreducible += 1;
                }
                deepest = deepest.max(depth.values().copied().max().unwrap_or(0));
            }
        }
    }
    assert!(reducible > 100 && irreducible > 0 && deepest >= 40, "{reducible} {irreducible} {deepest}");
}

#[test]
fn loop_depth_of_nested_loops() {
    let program = ssaref::frontend::parser::parse_program(
        "fn main(n) { var i = 0; var s = 0; while (i < n) { var j = 0; while (j < i) { s = s + j; j = j + 1; } i = i + 1; } return s; }",
    )
    .unwrap();
    let f = construct_program(&program, &BraunOptions::plain()).main().unwrap().clone();
    let depth = loop_depth(&f);
    let max = depth.values().copied().max().unwrap();
    assert_eq!(max, 2, "{}", print_function(&f));
    assert_eq!(depth[Block(0)], 0);
    // The block with `s = s + j` is at depth 2.
    let inner = f.blocks.keys().find(|&b| {
        f.blocks[b].insts.iter().any(|i| matches!(i.op, Op::Binary(ssaref::ir::BinOp::Add, ..))) && depth[b] == 2
    });
    assert!(inner.is_some());
}

// ---------------------------------------------------------------------------
// Loops.
// ---------------------------------------------------------------------------

/// Natural-loop nesting depth, computed directly from back edges (edges to a
/// dominator) for a reducible function: the reference for `loop_depth`.
fn natural_loop_depth(f: &Function) -> EntityVec<Block, u32> {
    let dom = ssaref::analysis::dominance::DomTree::compute(f);
    let mut bodies: std::collections::BTreeMap<Block, std::collections::BTreeSet<Block>> = Default::default();
    for u in f.blocks.keys() {
        for h in f.succs(u) {
            if dom.dominates(h, u) {
                let body = bodies.entry(h).or_default();
                body.insert(h);
                let mut stack = vec![u];
                while let Some(x) = stack.pop() {
                    if body.insert(x) {
                        stack.extend(f.blocks[x].preds.iter().copied());
                    }
                }
            }
        }
    }
    let mut depth = EntityVec::from_elem(0u32, f.blocks.len());
    for body in bodies.values() {
        for &b in body {
            depth[b] += 1;
        }
    }
    depth
}

/// `tarjan_sccs_flat` (Braun et al.'s Algorithm 5 uses it) gives the
/// components of `tarjan_sccs`, in the same order, and both are the
/// strongly connected components: on graphs from a fixed-seed generator,
/// two nodes share a component exactly when each reaches the other, and a
/// component comes after every component it has an edge to.
#[test]
fn tarjan_flat_matches_nested_and_reachability() {
    use ssaref::analysis::scc::{tarjan_sccs, tarjan_sccs_flat};
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |bound: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % bound.max(1)
    };
    for round in 0..200 {
        let n = round % 23;
        let succs: Vec<Vec<usize>> = (0..n).map(|_| (0..next(4)).map(|_| next(n)).collect()).collect();
        let nested = tarjan_sccs(&succs);
        let mut starts = vec![0u32];
        let mut targets = Vec::new();
        for s in &succs {
            targets.extend(s.iter().map(|&t| t as u32));
            starts.push(targets.len() as u32);
        }
        let flat = tarjan_sccs_flat(&starts, &targets);
        assert_eq!(flat.len(), nested.len(), "round {round}");
        for (k, comp) in nested.iter().enumerate() {
            let f: Vec<usize> = flat.component(k).iter().map(|&v| v as usize).collect();
            assert_eq!(&f, comp, "round {round}, component {k}");
        }
        // Reachability by closure.
        let mut reach = vec![vec![false; n]; n];
        for (v, row) in reach.iter_mut().enumerate() {
            let mut stack = vec![v];
            row[v] = true;
            while let Some(u) = stack.pop() {
                for &w in &succs[u] {
                    if !row[w] {
                        row[w] = true;
                        stack.push(w);
                    }
                }
            }
        }
        let mut comp_of = vec![usize::MAX; n];
        for (k, comp) in nested.iter().enumerate() {
            for &v in comp {
                assert_eq!(comp_of[v], usize::MAX, "round {round}: {v} in two components");
                comp_of[v] = k;
            }
        }
        for u in 0..n {
            assert_ne!(comp_of[u], usize::MAX, "round {round}: {u} in no component");
            for v in 0..n {
                assert_eq!(comp_of[u] == comp_of[v], reach[u][v] && reach[v][u], "round {round}: {u} {v}");
            }
            for &w in &succs[u] {
                assert!(comp_of[w] <= comp_of[u], "round {round}: edge {u}->{w} goes to a later component");
            }
        }
    }
}

/// `compute_liveness` (path exploration, one value at a time) and
/// `compute_liveness_dataflow` (the iterative worklist) solve the same
/// equations: they give the same live-in and live-out sets on generated
/// programs' SSA (structured and pattern shapes), at every stage ssa-ra
/// checks (after critical-edge splitting, PhiLifting, PhiMemCoalesce and
/// spilling, with reloads), and on generated IR-level functions (arbitrary
/// CFGs, irreducible ones and unreachable blocks included).
#[test]
fn liveness_by_path_exploration_matches_the_dataflow() {
    use crate::common::passes::allocate_function_stages;
    use ssaref::analysis::liveness::compute_liveness_dataflow;
    use ssaref::generate::ssa::{IrCase, IrGenConfig};
    use ssaref::ssa_ra::regalloc::RegallocOptions;
    let same = |f: &Function, what: &str| {
        let (a, b) = (compute_liveness(f), compute_liveness_dataflow(f));
        for blk in f.blocks.keys() {
            assert_eq!(a.live_in[blk], b.live_in[blk], "{what}: live_in[{blk}]\n{}", print_function(f));
            assert_eq!(a.live_out[blk], b.live_out[blk], "{what}: live_out[{blk}]\n{}", print_function(f));
        }
    };
    let mut stages = 0;
    for seed in 0..40u64 {
        let Some((_, module, _)) = crate::common::seeded_ssa(seed, 100_000) else { continue };
        for f in &module.functions {
            same(f, &format!("seed {seed} `{}`", f.name));
            for k in [2, 4] {
                if let Ok((_, kept)) = allocate_function_stages(f, &RegallocOptions::with_k(k)) {
                    for (stage, g) in &kept {
                        same(g, &format!("seed {seed} `{}` K={k} after {stage}", f.name));
                        stages += 1;
                    }
                }
            }
        }
    }
    assert!(stages > 100, "only {stages} ssa-ra stages compared");
    let mut functions = 0;
    for seed in 0..150u64 {
        let case = IrCase::from_seed(seed, &IrGenConfig::default());
        for f in &case.module.functions {
            same(f, &format!("ir seed {seed} `{}`", f.name));
            functions += 1;
        }
    }
    assert!(functions >= 150, "only {functions} IR functions compared");
}

/// The edge table made in one pass (`liveness::OutEdges`, which liveness,
/// SSA elimination and the liveness check read) gives, for every block,
/// what the per-edge search of the successor's `preds` gives
/// (`out_edges`, `pred_index` for each occurrence): on generated IR-level
/// functions (a `br c, S, S` included when the generator makes one), on
/// the case files' functions, and on a join of many predecessors.
#[test]
fn edge_table_matches_the_per_edge_search() {
    use ssaref::analysis::liveness::{out_edges, pred_index, OutEdges};
    use ssaref::generate::ssa::{IrCase, IrGenConfig};
    let same = |f: &Function, what: &str| {
        let table = OutEdges::new(f);
        for b in f.blocks.keys() {
            assert_eq!(table.of(b), &out_edges(f, b)[..], "{what}: out-edges of {b}\n{}", print_function(f));
            for s in f.blocks.keys() {
                for occurrence in 0..3 {
                    assert_eq!(
                        table.pred_index(b, s, occurrence),
                        pred_index(f, b, s, occurrence),
                        "{what}: edge {b} -> {s}, occurrence {occurrence}"
                    );
                }
            }
        }
    };
    let mut double_edges = 0;
    for seed in 0..150u64 {
        let case = IrCase::from_seed(seed, &IrGenConfig::default());
        for f in &case.module.functions {
            same(f, &format!("ir seed {seed} `{}`", f.name));
            double_edges += f.blocks.keys().filter(|&b| matches!(&f.succs(b)[..], [x, y] if x == y)).count();
        }
    }
    let mut cases: Vec<_> =
        std::fs::read_dir("tests/cases").expect("tests/cases").map(|e| e.expect("entry").path()).collect();
    cases.retain(|p| p.extension().is_some_and(|e| e == "ssa"));
    cases.sort();
    for path in cases {
        let text = std::fs::read_to_string(&path).expect("readable");
        let Ok(m) = ssaref::ssa_text::parse_module(&text) else { continue };
        for f in &m.functions {
            same(f, &path.display().to_string());
            double_edges += f.blocks.keys().filter(|&b| matches!(&f.succs(b)[..], [x, y] if x == y)).count();
        }
    }
    assert!(double_edges > 0, "no `br c, S, S` among the functions compared");
    let wide =
        "fn main(v0) {\nb0:\n    br v0, b1, b2\nb1(b0):\n    v1 = const 1\n    jump b5\nb2(b0):\n    br v0, b3, b4\n\
                b3(b2):\n    v2 = const 2\n    jump b5\nb4(b2):\n    v3 = const 3\n    jump b5\n\
                b5(b1, b3, b4):\n    v4 = phi v1, v2, v3\n    ret v4\n}\n";
    same(&parse_one(wide), "a join of three predecessors");
}
