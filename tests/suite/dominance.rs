//! `DomTree` (`analysis/dominance.rs`, Lengauer and Tarjan) against
//! dominance by path enumeration, bounded-exhaustively: `a` dominates `b`
//! when every path from the entry to `b` goes through `a`, decided by
//! listing every simple path (a path with a cycle contains a simple path
//! through a subset of its blocks, so simple paths suffice).
//!
//! The CFGs: each block ends in a return, a jump to any block, or a branch
//! to any ordered pair of blocks (the same block twice included), so out-
//! degree at most 2, as in the IR. Every such CFG of 1 to 4 blocks is
//! checked (3^1 + 7^2 + 13^3 + 21^4 = 196,730 of them); of the 31^5 CFGs of
//! 5 blocks, every 61st in enumeration order (469,331 of them), a fixed,
//! deterministic sample. `SSAREF_EXHAUSTIVE=full` checks all 5-block CFGs.

use ssaref::analysis::dominance::DomTree;
use ssaref::entity::EntityRef;
use ssaref::ir::Block;

/// The successors of each block, from the index of its terminator among
/// `1 + n + n^2` choices.
fn cfg(n: usize, mut code: u64) -> Vec<Vec<usize>> {
    let choices = (1 + n + n * n) as u64;
    (0..n)
        .map(|_| {
            let t = (code % choices) as usize;
            code /= choices;
            match t {
                0 => vec![],
                t if t <= n => vec![t - 1],
                t => vec![(t - 1 - n) / n, (t - 1 - n) % n],
            }
        })
        .collect()
}

/// For each block reachable from block 0, the set (as a bit mask) of blocks
/// on every simple path from block 0 to it; `None` for unreachable blocks.
fn dominators_by_paths(succs: &[Vec<usize>]) -> Vec<Option<u32>> {
    let n = succs.len();
    let mut dom: Vec<Option<u32>> = vec![None; n];
    // Depth-first enumeration of simple paths: (block, blocks on the path,
    // index of the next successor to try).
    let mut stack: Vec<(usize, u32, usize)> = vec![(0, 1, 0)];
    dom[0] = Some(1);
    while let Some(top) = stack.last_mut() {
        let (b, on_path, i) = *top;
        if i == succs[b].len() {
            stack.pop();
            continue;
        }
        top.2 += 1;
        let s = succs[b][i];
        if on_path & (1 << s) != 0 {
            continue;
        }
        let path = on_path | (1 << s);
        dom[s] = Some(dom[s].map_or(path, |d| d & path));
        stack.push((s, path, 0));
    }
    dom
}

fn check(succs: &[Vec<usize>]) {
    let n = succs.len();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(Block::new(b));
        }
    }
    let tree = DomTree::compute_from_edges(
        n,
        Block::new(0),
        |b| succs[b.index()].iter().map(|&s| Block::new(s)).collect(),
        |b| preds[b.index()].clone(),
    );
    let expect = dominators_by_paths(succs);
    for b in 0..n {
        let bb = Block::new(b);
        assert_eq!(tree.is_reachable(bb), expect[b].is_some(), "reachability of b{b} in {succs:?}");
        for a in 0..n {
            let want = expect[b].is_some_and(|d| d & (1 << a) != 0);
            assert_eq!(tree.dominates(Block::new(a), bb), want, "b{a} dom b{b} in {succs:?}");
            assert_eq!(tree.strictly_dominates(Block::new(a), bb), want && a != b, "b{a} sdom b{b} in {succs:?}");
        }
        // The immediate dominator: the strict dominator that every other
        // strict dominator dominates.
        let idom = expect[b].filter(|_| b != 0).and_then(|d| {
            let strict = d & !(1 << b);
            (0..n).find(|&c| strict & (1 << c) != 0 && expect[c].is_some_and(|dc| dc & strict == strict))
        });
        assert_eq!(tree.idom[bb].map(|x| x.index()), idom, "idom of b{b} in {succs:?}");
    }
}

#[test]
fn dom_tree_agrees_with_path_enumeration_on_every_cfg_of_up_to_4_blocks() {
    let mut count = 0u64;
    for n in 1..=4usize {
        let total = ((1 + n + n * n) as u64).pow(n as u32);
        for code in 0..total {
            check(&cfg(n, code));
            count += 1;
        }
    }
    assert_eq!(count, 3 + 7u64.pow(2) + 13u64.pow(3) + 21u64.pow(4));
}

#[test]
fn dom_tree_agrees_with_path_enumeration_on_5_block_cfgs() {
    let full = std::env::var("SSAREF_EXHAUSTIVE").is_ok_and(|v| v == "full");
    let step = if full { 1 } else { 61 };
    let total = 31u64.pow(5);
    let mut count = 0u64;
    let mut code = 0;
    while code < total {
        check(&cfg(5, code));
        count += 1;
        code += step;
    }
    assert_eq!(count, total.div_ceil(step));
}
