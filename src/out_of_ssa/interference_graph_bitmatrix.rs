//! The interference graph of a compiler of the time, as the baseline of
//! Boissinot et al., "Revisiting Out-of-SSA Translation for Correctness,
//! Code Quality, and Efficiency" (CGO 2009), §IV-D measured it: "Sreedhar
//! III: Method III of Sreedhar et al. [...] Both use an interference graph
//! stored as a bit-matrix and liveness sets", the graph "stored using a
//! half-size bit-matrix", and, as §IV says of a compiler that coalesces,
//! "a graph representation with adjacency lists (in addition to the bit
//! matrix)". §IV-A: "The classic approach consists in computing the
//! interference relation, which is stored as a bit matrix. Building such
//! interference graph implies a costly traversal of the program and
//! requires the liveness sets. Then, interference queries are O(1)."
//!
//! Needs: a function and its live-in and live-out sets (`liveness.rs`), and
//! the parallel copies of the program (`values::CopyGroups`). Gives: the
//! interference relation of the variables of a universe, as the paper's
//! baseline builds it over the φ- and copy-related variables
//! ([`BitMatrixGraph::build_over`], with
//! [`ClassTest::BitMatrixRelated`](crate::out_of_ssa::coalescing::ClassTest::BitMatrixRelated)),
//! or of *every* variable of the function ([`BitMatrixGraph::build`], with
//! [`ClassTest::BitMatrix`](crate::out_of_ssa::coalescing::ClassTest::BitMatrix)):
//! a triangular bit matrix, one bit per unordered pair of its variables,
//! and an adjacency list per variable. A third Sreedhar III baseline
//! ([`ClassTest::Graph`](crate::out_of_ssa::coalescing::ClassTest::Graph),
//! `coalescing::InterferenceGraph`) keeps a hash set of edges over the
//! φ- and copy-related variables instead.
//!
//! # Construction (Chaitin's, one backward walk per block)
//!
//! For each block, the set of live values starts as its live-out set plus
//! the terminator's operand, and the instructions are visited backward, a
//! parallel copy as one step: every value the step defines interferes with
//! every value live after it (an unused result too: it still occupies its
//! destination there), then the definitions leave the set and the operands
//! join it. At the block start, every phi destination (and, in the entry
//! block, every parameter) interferes with every value of the live-in set.
//! An edge is added once: when its bit was clear, the bit is set and each
//! end joins the other's adjacency list. This is the relation
//! `coalescing::InterferenceGraph::build` computes over its smaller
//! universe; `tests/suite/interference_bitmatrix.rs` checks it against a brute
//! force over the program points.
//!
//! # Cost
//!
//! Time `O(Σ_points |live| + V)` for the walk plus the matrix; memory
//! `⌈V(V−1)/2 / 64⌉` words for the matrix, the paper's "⌈#variables/8⌉ ×
//! #variables/2" bytes, plus two entries per edge for the lists. This is
//! quadratic in the number of variables on purpose: it is what the paper's
//! fast configuration avoids.
//!
//! # Departures from the paper's baseline
//!
//! - The paper's Sreedhar III adds the variables it materializes to the
//!   matrix, which "grows dynamically". out-of-ssa's virtualized Sreedhar III
//!   (`virtualization.rs`) decides the interference of a materialized
//!   variable from its definition point instead, so the matrix is sized
//!   once, for the variables of the function.
//! - The paper's baseline holds the φ- and copy-related variables
//!   (`build_over`); the graph of every variable (`build`) is what a
//!   compiler that also allocates registers from it would build, measured
//!   beside it.
//! - Sreedhar III asks only pair queries; the adjacency lists are built (and
//!   cost their time and memory, as in the compiler measured) and read by
//!   [`BitMatrixGraph::neighbors`], not by the coalescing.

use crate::analysis::liveness::{live_at_end, Liveness};
use crate::entity::EntityRef;
use crate::ir::{Function, Value};
use crate::out_of_ssa::coalescing::InterferenceQuery;
use crate::out_of_ssa::values::CopyGroups;
use rustc_hash::FxHashSet;

/// The interference graph of the variables of a function, all of them or
/// those of a universe: a triangular bit matrix and adjacency lists (see
/// the module documentation).
#[derive(Clone, Debug, Default)]
pub struct BitMatrixGraph {
    /// Number of variables in the graph.
    n: usize,
    /// The row of each value number in the matrix, [`NOT_IN_GRAPH`] for a
    /// value outside the universe; empty when the graph holds every
    /// variable, each value number being its own row.
    rows: Vec<u32>,
    /// Bit `i(i−1)/2 + j` for the pair of rows `(i, j)`, `i > j`.
    bits: Vec<u64>,
    /// The neighbours of every row, in the order the edges were found.
    adjacency: Vec<Vec<Value>>,
    edges: usize,
}

/// The row of a value outside the graph's universe.
const NOT_IN_GRAPH: u32 = u32::MAX;

/// The bit of the unordered pair `{a, b}`, `a ≠ b`.
fn pair_bit(a: usize, b: usize) -> usize {
    let (i, j) = if a > b { (a, b) } else { (b, a) };
    i * (i - 1) / 2 + j
}

impl BitMatrixGraph {
    /// An empty graph over `n` variables.
    pub fn with_variables(n: usize) -> Self {
        let pairs = n.saturating_mul(n.saturating_sub(1)) / 2;
        BitMatrixGraph {
            n,
            rows: Vec::new(),
            bits: vec![0; pairs.div_ceil(64)],
            adjacency: vec![Vec::new(); n],
            edges: 0,
        }
    }

    /// Builds the graph of every variable of `f` from its liveness `live`,
    /// with the parallel copies `groups` defining their destinations
    /// together.
    pub fn build(f: &Function, live: &Liveness, groups: &CopyGroups) -> Self {
        let mut g = BitMatrixGraph::with_variables(f.value_count as usize);
        g.fill(f, live, groups);
        g
    }

    /// Builds the graph of the variables of `universe` only (the paper's
    /// Sreedhar III baseline takes the φ- and copy-related ones): a matrix
    /// of `|universe|` rows, numbered in value order.
    pub fn build_over(f: &Function, live: &Liveness, groups: &CopyGroups, universe: &FxHashSet<Value>) -> Self {
        let mut members: Vec<Value> = universe.iter().copied().filter(|v| v.0 < f.value_count).collect();
        members.sort_unstable();
        let mut g = BitMatrixGraph::with_variables(members.len());
        g.rows = vec![NOT_IN_GRAPH; f.value_count as usize];
        for (row, v) in members.iter().enumerate() {
            g.rows[v.index()] = row as u32;
        }
        g.fill(f, live, groups);
        g
    }

    /// The row of `v`, `None` outside the graph.
    fn row(&self, v: Value) -> Option<usize> {
        if self.rows.is_empty() {
            return (v.index() < self.n).then_some(v.index());
        }
        self.rows.get(v.index()).filter(|&&r| r != NOT_IN_GRAPH).map(|&r| r as usize)
    }

    /// Adds the edges of `f`'s interference (see the module documentation).
    fn fill(&mut self, f: &Function, live: &Liveness, groups: &CopyGroups) {
        let g = self;
        for (b, data) in f.blocks.iter() {
            let mut cur = live_at_end(f, b, live);
            let mut i = data.insts.len();
            while i > 0 {
                // The instructions `start..i` execute together: a parallel
                // copy, or one instruction.
                let start =
                    groups.ranges(b).iter().find(|&&(_, e)| e as usize == i).map_or(i - 1, |&(s, _)| s as usize);
                for inst in &data.insts[start..i] {
                    if let Some(d) = inst.dest.filter(|&d| g.row(d).is_some()) {
                        for v in cur.iter() {
                            g.add_edge(d, v);
                        }
                    }
                }
                for inst in &data.insts[start..i] {
                    if let Some(d) = inst.dest {
                        cur.remove(d);
                    }
                }
                for inst in &data.insts[start..i] {
                    inst.op.for_each_arg(|a| {
                        cur.insert(a);
                    });
                }
                i = start;
            }
            let params = if b == Function::ENTRY { f.params.as_slice() } else { &[] };
            for d in data.phis.iter().map(|p| p.dest).chain(params.iter().copied()) {
                if g.row(d).is_some() {
                    for v in live.live_in[b].iter() {
                        g.add_edge(d, v);
                    }
                }
            }
        }
    }

    /// Adds the edge `{a, b}` (nothing for `a = b`, or for a variable
    /// outside the graph).
    pub fn add_edge(&mut self, a: Value, b: Value) {
        let (Some(ra), Some(rb)) = (self.row(a), self.row(b)) else { return };
        if ra == rb {
            return;
        }
        let bit = pair_bit(ra, rb);
        let (w, m) = (bit / 64, 1u64 << (bit % 64));
        if self.bits[w] & m == 0 {
            self.bits[w] |= m;
            self.adjacency[ra].push(b);
            self.adjacency[rb].push(a);
            self.edges += 1;
        }
    }

    /// True when `a` and `b` interfere: one bit read.
    pub fn contains(&self, a: Value, b: Value) -> bool {
        let (Some(ra), Some(rb)) = (self.row(a), self.row(b)) else { return false };
        if ra == rb {
            return false;
        }
        let bit = pair_bit(ra, rb);
        self.bits[bit / 64] & (1u64 << (bit % 64)) != 0
    }

    /// The variables that interfere with `v`.
    pub fn neighbors(&self, v: Value) -> &[Value] {
        self.row(v).map_or(&[], |r| self.adjacency[r].as_slice())
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    /// Number of variables in the graph.
    pub fn variable_count(&self) -> usize {
        self.n
    }

    /// Bytes of the matrix and of the adjacency lists (their entries).
    pub fn footprint_bytes(&self) -> usize {
        self.bits.len() * 8 + self.rows.capacity() * 4 + self.adjacency.iter().map(|l| l.capacity() * 4).sum::<usize>()
    }
}

impl InterferenceQuery for BitMatrixGraph {
    fn contains(&self, a: Value, b: Value) -> bool {
        BitMatrixGraph::contains(self, a, b)
    }

    fn edge_count(&self) -> usize {
        self.edges
    }
}
