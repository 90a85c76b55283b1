//! The control-flow skeleton of an IR-level program: which block goes
//! where, before any value exists.
//!
//! Blocks `b0 .. b(n-1)` are made in order. Each block `i >= 1` first gets
//! a spanning-tree parent `j < i` (at most two children per parent), so
//! every block is reachable from `b0`. A block's terminator holds the edges
//! to its children and, when it has room, random extra edges:
//! - *forward* edges go to a higher-numbered block of the skeleton (joins,
//!   critical edges, `br c, B, B` double edges, branches into joins);
//! - a *guarded* edge goes backward, to a block `h` with `1 <= h <= i`
//!   (`h = i` is a self loop), possibly through a *latch* (a block appended
//!   after the skeleton that only jumps to `h`). A guarded edge is always
//!   one side of a `br` whose other side is a forward edge; the filler
//!   (`fill.rs`) makes its condition false once the fuel is used up.
//!
//! Forward edges strictly increase the block number, and a latch is
//! entered only through its guarded edge, so every cycle of the CFG takes
//! a guarded edge: that is the termination argument of the module
//! documentation. Any edge may close an irreducible cycle: nothing keeps
//! `h` from being entered from outside the cycle.

use super::ssa_config::IrGenConfig;
use crate::generate::source::Entropy;
use crate::ir::Block;

/// Which side of a `br` is the guarded (cycle-closing) edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    /// Both sides are forward edges.
    None,
    /// The then-edge is guarded.
    Then,
    /// The else-edge is guarded.
    Else,
}

/// How a block of the skeleton ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    Return,
    Jump(Block),
    Branch { then_dest: Block, else_dest: Block, guard: Guard },
}

impl Exit {
    /// The successors, one per edge, then-edge first.
    pub(super) fn successors(self) -> Vec<Block> {
        match self {
            Exit::Return => vec![],
            Exit::Jump(b) => vec![b],
            Exit::Branch { then_dest, else_dest, .. } => vec![then_dest, else_dest],
        }
    }
}

/// The blocks' exits and predecessor lists.
#[derive(Clone, Debug)]
pub(super) struct Skeleton {
    /// The exit of each block; latch blocks come after the others.
    pub exits: Vec<Exit>,
    /// The predecessors of each block, one per edge, in a random order
    /// (the phi argument order).
    pub preds: Vec<Vec<Block>>,
}

/// A random skeleton.
pub(super) fn random_skeleton(e: &mut dyn Entropy, config: &IrGenConfig) -> Skeleton {
    let n = e.range(config.min_blocks.max(2), config.max_blocks.max(2)) as usize;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 1..n {
        // Block i - 1 has no child yet, so there is always a candidate.
        let lo = i.saturating_sub(config.parent_window.max(1));
        let candidates: Vec<usize> = (lo..i).filter(|&j| children[j].len() < 2).collect();
        let j = candidates[e.below(candidates.len() as u64) as usize];
        children[j].push(i);
    }
    let mut exits = Vec::with_capacity(n);
    let mut latches: Vec<Block> = Vec::new();
    let block = |i: usize| Block(i as u32);
    for (j, kids) in children.iter().enumerate() {
        let forward = |e: &mut dyn Entropy| block(j + 1 + e.below((n - j - 1) as u64) as usize);
        let exit = match kids.len() {
            2 => {
                let (a, b) = if e.chance(50) { (kids[0], kids[1]) } else { (kids[1], kids[0]) };
                Exit::Branch { then_dest: block(a), else_dest: block(b), guard: Guard::None }
            }
            1 => {
                let c = block(kids[0]);
                let choice = e.weighted(&[3, 3, 1, if j >= 1 { 4 } else { 0 }]);
                match choice {
                    0 => Exit::Jump(c),
                    1 => {
                        let f = forward(e);
                        two_way(e, c, f)
                    }
                    2 => Exit::Branch { then_dest: c, else_dest: c, guard: Guard::None },
                    _ => guarded(e, config, j, c, n, &mut latches),
                }
            }
            _ if j + 1 == n => Exit::Return,
            _ => {
                let choice = e.weighted(&[2, 2, 2, if j >= 1 { 4 } else { 0 }]);
                match choice {
                    0 => Exit::Return,
                    1 => Exit::Jump(forward(e)),
                    2 => {
                        let (a, b) = (forward(e), forward(e));
                        two_way(e, a, b)
                    }
                    _ => {
                        let f = forward(e);
                        guarded(e, config, j, f, n, &mut latches)
                    }
                }
            }
        };
        exits.push(exit);
    }
    exits.extend(latches.iter().map(|&h| Exit::Jump(h)));
    let mut preds: Vec<Vec<Block>> = vec![Vec::new(); exits.len()];
    for (b, exit) in exits.iter().enumerate() {
        for s in exit.successors() {
            preds[s.0 as usize].push(block(b));
        }
    }
    for p in &mut preds {
        // Fisher-Yates: the phi argument order is not the block order.
        for i in (1..p.len()).rev() {
            let k = e.below(i as u64 + 1) as usize;
            p.swap(i, k);
        }
    }
    Skeleton { exits, preds }
}

/// `br c, a, b` or `br c, b, a`, both forward.
fn two_way(e: &mut dyn Entropy, a: Block, b: Block) -> Exit {
    let (t, f) = if e.chance(50) { (a, b) } else { (b, a) };
    Exit::Branch { then_dest: t, else_dest: f, guard: Guard::None }
}

/// A `br` from block `j` with one forward edge to `forward` and one guarded
/// edge back to a block `h` in `1..=j`, directly or through a new latch.
fn guarded(
    e: &mut dyn Entropy,
    config: &IrGenConfig,
    j: usize,
    forward: Block,
    n: usize,
    latches: &mut Vec<Block>,
) -> Exit {
    // Mostly short loops (h close to j), sometimes far jumps back.
    let h = if e.chance(60) { j - e.below(j.min(3) as u64) as usize } else { 1 + e.below(j as u64) as usize };
    let mut back = Block(h as u32);
    if e.chance(config.latch_percent) {
        latches.push(back);
        back = Block((n + latches.len() - 1) as u32);
    }
    if e.chance(50) {
        Exit::Branch { then_dest: back, else_dest: forward, guard: Guard::Then }
    } else {
        Exit::Branch { then_dest: forward, else_dest: back, guard: Guard::Else }
    }
}
