//! Parallel copies over locations and their location transfer graphs, after
//! Pereira and Palsberg, "SSA Elimination after Register Allocation" (CC
//! 2009), §3 and §4.
//!
//! After register allocation, each column of a ϕ-matrix is a parallel copy
//! `(l1, ..., ln) := (l1', ..., ln')` between locations (registers and spill
//! slots), [`ParallelCopy`]. The paper calls it *well defined* when its
//! destinations are pairwise distinct, and *spartan* (§3) when moreover
//!
//! 1. its sources are pairwise distinct, and
//! 2. for all indices `a`, `b` such that `la` and `lb'` are memory
//!    locations, `la = lb'` if and only if `a = b`.
//!
//! Theorem 1 says that a frugal allocation of a program in CSSA form only
//! produces spartan parallel copies; the allocator's pipeline checks it on
//! every copy it hands over, with [`ParallelCopy::check_spartan`].
//!
//! Definition 2 (§4) turns a well-defined copy into its *location transfer
//! graph*, [`LocationTransferGraph`]: one node per location, one edge
//! `(la', la)` per move. Well-defined copies give *windmills* (each connected
//! component is a cycle with trees sprouting from it); the graph is
//! *spartan* when its components are paths and cycles, every cycle is made
//! of registers or is a memory self loop `(m, m)`, only the first and last
//! nodes of a path may be memory, and there is no edge `(m1, m2)` with
//! `m1 ≠ m2` ([`LocationTransferGraph::check_spartan_graph`]). Theorem 2: a
//! spartan parallel copy has a spartan location transfer graph (the converse
//! holds for well-defined copies too; see
//! `proofs-notes/spill-free-ssa-elimination.md`).
//!
//! [`LocationTransferGraph::components`] splits a graph into [`Component`]s,
//! the input of Algorithm 1 (`implement_spartan.rs`). A windmill that is not
//! a union of paths and cycles, or a cycle through memory, is reported as an
//! error: nothing in this module panics on a parallel copy, however
//! malformed.
//!
//! [`ParallelCopy::apply`] is the parallel semantics
//! `ρ[l1 ← ρ(l1'), ..., ln ← ρ(ln')]` of §3 over a [`Store`]; it is the
//! oracle against which the tests and the fuzzer run the sequential code.

use crate::mir::{Loc, Reg};
use std::fmt;

/// A parallel copy `(l1, ..., ln) := (l1', ..., ln')`: every destination
/// receives, at the same time, the value its source held before the copy.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ParallelCopy {
    /// The moves, as `(destination, source)` pairs `(la, la')`.
    pub moves: Vec<(Loc, Loc)>,
}

/// A store `ρ`: the values held by some locations. Reading a location the
/// store does not define is an error, not a default value, so that a test
/// notices code that reads a location it was not given.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Store {
    /// The defined locations and their values, sorted by location (a
    /// parallel copy names few locations, so a sorted vector is the cheap
    /// map here).
    values: Vec<(Loc, i64)>,
}

impl Store {
    /// The empty store.
    pub fn new() -> Self {
        Store::default()
    }

    /// A store in which the `i`-th location of `locs` holds `base + i`, so
    /// that distinct locations hold distinct values.
    pub fn distinct(locs: &[Loc], base: i64) -> Self {
        let mut s = Store::new();
        for (i, &l) in locs.iter().enumerate() {
            s.set(l, base + i as i64);
        }
        s
    }

    /// The value held by `l`, if the store defines it.
    pub fn get(&self, l: Loc) -> Option<i64> {
        self.values.binary_search_by_key(&l, |&(k, _)| k).ok().map(|i| self.values[i].1)
    }

    /// Makes `l` hold `v`.
    pub fn set(&mut self, l: Loc, v: i64) {
        match self.values.binary_search_by_key(&l, |&(k, _)| k) {
            Ok(i) => self.values[i].1 = v,
            Err(i) => self.values.insert(i, (l, v)),
        }
    }

    /// The defined locations and their values, in location order.
    pub fn iter(&self) -> impl Iterator<Item = (Loc, i64)> + '_ {
        self.values.iter().copied()
    }
}

impl fmt::Display for ParallelCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dsts: Vec<String> = self.moves.iter().map(|(d, _)| d.to_string()).collect();
        let srcs: Vec<String> = self.moves.iter().map(|(_, s)| s.to_string()).collect();
        write!(f, "({}) := ({})", dsts.join(", "), srcs.join(", "))
    }
}

impl ParallelCopy {
    /// The parallel copy made of `moves`, given as `(destination, source)`.
    pub fn new(moves: Vec<(Loc, Loc)>) -> Self {
        ParallelCopy { moves }
    }

    /// The locations the copy names, sources and destinations, sorted and
    /// without repetition.
    pub fn locations(&self) -> Vec<Loc> {
        let mut locs: Vec<Loc> = self.moves.iter().flat_map(|&(d, s)| [d, s]).collect();
        locs.sort_unstable();
        locs.dedup();
        locs
    }

    /// True when the destinations are pairwise distinct (§3, "well
    /// defined").
    pub fn is_well_defined(&self) -> bool {
        self.repeated_destination().is_none()
    }

    /// Like [`ParallelCopy::is_well_defined`], and names the destination
    /// written twice.
    pub fn check_well_defined(&self) -> Result<(), CopyError> {
        match self.repeated_destination() {
            None => Ok(()),
            Some(violation) => Err(CopyError { copy: self.clone(), violation }),
        }
    }

    /// True when the copy is well defined and spartan; the same test as
    /// [`ParallelCopy::check_spartan`], without building a message.
    pub fn is_spartan(&self) -> bool {
        self.spartan_violation().is_none()
    }

    /// Checks that the copy is well defined and spartan, with the two
    /// conditions of the paper's definition (§3) read literally:
    ///
    /// 1. for all `la'`, `lb'`: if `la' = lb'` then `a = b`;
    /// 2. for all `la`, `lb'` that are memory locations: `la = lb'` if and
    ///    only if `a = b`.
    ///
    /// The error names the condition and the moves that break it.
    pub fn check_spartan(&self) -> Result<(), CopyError> {
        crate::pass_manager::self_checks::count();
        self.spartan_or_error()
    }

    /// [`ParallelCopy::check_spartan`] as a precondition of a pass that
    /// needs a spartan copy (`implement_spartan`), not counted as a check.
    pub(crate) fn spartan_or_error(&self) -> Result<(), CopyError> {
        match self.spartan_violation() {
            None => Ok(()),
            Some(violation) => Err(CopyError { copy: self.clone(), violation }),
        }
    }

    /// The first pair of moves `a < b` with the same destination.
    fn repeated_destination(&self) -> Option<CopyViolation> {
        for (a, &(la, _)) in self.moves.iter().enumerate() {
            for (b, &(lb, _)) in self.moves.iter().enumerate().skip(a + 1) {
                if la == lb {
                    return Some(CopyViolation::RepeatedDestination(a, b));
                }
            }
        }
        None
    }

    /// The first violation of well-definedness or of the two conditions.
    fn spartan_violation(&self) -> Option<CopyViolation> {
        if let Some(v) = self.repeated_destination() {
            return Some(v);
        }
        let moves = &self.moves;
        for (a, &(_, sa)) in moves.iter().enumerate() {
            for (b, &(_, sb)) in moves.iter().enumerate().skip(a + 1) {
                if sa == sb {
                    return Some(CopyViolation::RepeatedSource(a, b));
                }
            }
        }
        for (a, &(la, _)) in moves.iter().enumerate() {
            for (b, &(_, lb_src)) in moves.iter().enumerate() {
                let (Loc::Slot(_), Loc::Slot(_)) = (la, lb_src) else {
                    continue;
                };
                if (la == lb_src) != (a == b) {
                    return Some(CopyViolation::Memory(a, b));
                }
            }
        }
        None
    }

    /// The parallel semantics of §3: the store `ρ[l1 ← ρ(l1'), ..., ln ←
    /// ρ(ln')]`. Every source is read before any destination is written.
    /// Fails when the copy is not well defined (its meaning would depend on
    /// an order) or when `store` does not define a source.
    pub fn apply(&self, store: &Store) -> Result<Store, ApplyError> {
        self.check_well_defined().map_err(ApplyError::NotWellDefined)?;
        let mut out = store.clone();
        for &(dst, src) in &self.moves {
            let v = store.get(src).ok_or_else(|| ApplyError::Undefined { src, copy: self.clone() })?;
            out.set(dst, v);
        }
        Ok(out)
    }
}

/// Why [`ParallelCopy::apply`] fails.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ApplyError {
    /// The copy is not well defined: its meaning would depend on an order.
    NotWellDefined(CopyError),
    /// The store does not define the source `src` of `copy`.
    Undefined { src: Loc, copy: ParallelCopy },
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::NotWellDefined(e) => e.fmt(f),
            ApplyError::Undefined { src, copy } => write!(f, "the store does not define the source {src} of {copy}"),
        }
    }
}

impl std::error::Error for ApplyError {}

/// A parallel copy that is not well defined or not spartan, and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CopyError {
    pub copy: ParallelCopy,
    pub violation: CopyViolation,
}

impl fmt::Display for CopyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.violation.describe(&self.copy))
    }
}

impl std::error::Error for CopyError {}

/// Why a parallel copy is not well defined or not spartan, by the indices
/// of the moves at fault; the message is only built when it is asked for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CopyViolation {
    /// Moves `a < b` write the same location.
    RepeatedDestination(usize, usize),
    /// Moves `a < b` read the same location (condition 1).
    RepeatedSource(usize, usize),
    /// Memory `la = lb'` with `a ≠ b`, or memory `la ≠ la'` (condition 2).
    Memory(usize, usize),
}

impl CopyViolation {
    fn describe(self, pc: &ParallelCopy) -> String {
        match self {
            CopyViolation::RepeatedDestination(a, b) => {
                format!("not well defined: {} is the destination of moves {a} and {b} of {pc}", pc.moves[a].0)
            }
            CopyViolation::RepeatedSource(a, b) => {
                format!("not spartan (condition 1): {} is the source of moves {a} and {b} of {pc}", pc.moves[a].1)
            }
            CopyViolation::Memory(a, b) if a == b => format!(
                "not spartan (condition 2): move {a} copies memory {} to memory {} in {pc}",
                pc.moves[a].1, pc.moves[a].0
            ),
            CopyViolation::Memory(a, b) => format!(
                "not spartan (condition 2): memory {} is the destination of move {a} and the \
                 source of move {b} of {pc}",
                pc.moves[a].0
            ),
        }
    }
}

/// A connected component of a location transfer graph whose nodes all have
/// in-degree and out-degree at most 1: the input of Algorithm 1.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Component {
    /// A path `l1 → l2 → ... → ln`, `n ≥ 2`: the edges `(l1, l2)`, ...,
    /// `(l(n-1), ln)`; `l1` has no incoming edge and `ln` no outgoing one.
    /// A spartan graph has registers in the middle of its paths and no edge
    /// between two slots; a `Path` as such does not promise it.
    Path(Vec<Loc>),
    /// A cycle `r1 → r2 → ... → rn → r1` of `n ≥ 2` distinct registers.
    Cycle(Vec<Reg>),
    /// An edge `(l, l)`: a location copied to itself, register or memory.
    /// It needs no instruction.
    SelfLoop(Loc),
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Component::Path(nodes) => {
                let s: Vec<String> = nodes.iter().map(|l| l.to_string()).collect();
                write!(f, "path {}", s.join(" -> "))
            }
            Component::Cycle(regs) => {
                let s: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
                write!(f, "cycle {} -> {}", s.join(" -> "), regs[0])
            }
            Component::SelfLoop(l) => write!(f, "self loop {l} -> {l}"),
        }
    }
}

/// The location transfer graph of a well-defined parallel copy (Definition
/// 2): the nodes are the locations the copy names, and each move `la :=
/// la'` is an edge `(la', la)`, from the source to the destination.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LocationTransferGraph {
    /// The nodes, sorted; a node is named by its index here.
    nodes: Vec<Loc>,
    /// The edges `(source, destination)` as node indices, sorted by source.
    edges: Vec<(usize, usize)>,
    /// The outgoing edges of node `i` are `edges[first_out[i]..first_out[i
    /// + 1]]`.
    first_out: Vec<usize>,
    /// The source of the one edge entering each node, if any (a
    /// well-defined copy writes each destination once).
    pred: Vec<Option<usize>>,
}

impl LocationTransferGraph {
    /// The graph of `pc`; fails when `pc` is not well defined, because then
    /// a node would have in-degree 2 and the copy no meaning.
    pub fn new(pc: &ParallelCopy) -> Result<Self, CopyError> {
        pc.check_well_defined()?;
        let nodes = pc.locations();
        let index = |l: Loc| nodes.binary_search(&l).expect("every location of the copy is a node");
        let mut edges: Vec<(usize, usize)> = pc.moves.iter().map(|&(d, s)| (index(s), index(d))).collect();
        edges.sort_unstable();
        let mut first_out = vec![0; nodes.len() + 1];
        for &(s, _) in &edges {
            first_out[s + 1] += 1;
        }
        for i in 0..nodes.len() {
            first_out[i + 1] += first_out[i];
        }
        let mut pred = vec![None; nodes.len()];
        for &(s, d) in &edges {
            pred[d] = Some(s);
        }
        Ok(LocationTransferGraph { nodes, edges, first_out, pred })
    }

    /// The nodes, sorted.
    pub fn nodes(&self) -> &[Loc] {
        &self.nodes
    }

    /// The edges `(source, destination)`, sorted.
    pub fn edges(&self) -> Vec<(Loc, Loc)> {
        self.edges.iter().map(|&(s, d)| (self.nodes[s], self.nodes[d])).collect()
    }

    /// The successors of node `i`.
    fn succs(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges[self.first_out[i]..self.first_out[i + 1]].iter().map(|&(_, d)| d)
    }

    /// The connected components, when every node has out-degree at most 1
    /// and no cycle of two or more nodes goes through memory: first the
    /// paths, by their first node, then the cycles and self loops, by their
    /// smallest node (a cycle is listed from its smallest register). The
    /// order does not matter to Algorithm 2, since components share no
    /// location; it is fixed so that the output is reproducible.
    ///
    /// A well-defined copy whose graph is a windmill with a tree (a
    /// location copied to two places) or a cycle through memory is not made
    /// of paths and cycles of registers; the error names the culprit.
    pub fn components(&self) -> Result<Vec<Component>, GraphError> {
        self.try_components().map_err(|violation| GraphError { graph: self.clone(), violation })
    }

    /// True when the graph is spartan; the same test as
    /// [`Self::check_spartan_graph`], without building a message.
    pub fn is_spartan_graph(&self) -> bool {
        self.try_spartan_components().is_ok()
    }

    /// Checks the four conditions of a spartan graph (§4):
    ///
    /// 1. the connected components are cycles and paths;
    /// 2. a cycle is all registers or a self loop `(m, m)`;
    /// 3. in a path, only the first and the last node may be memory;
    /// 4. there is no edge `(m1, m2)` with `m1 ≠ m2`.
    ///
    /// Conditions 1 and 2 are those under which [`Self::components`]
    /// succeeds. Condition 4 adds something to 1-3 only for a path of two
    /// nodes, since every edge of a longer path or of a cycle has a register
    /// end; it is checked on every edge anyway, as the paper states it.
    pub fn check_spartan_graph(&self) -> Result<(), GraphError> {
        crate::pass_manager::self_checks::count();
        self.spartan_components().map(|_| ())
    }

    /// The components of a spartan graph ([`Self::components`]), after the
    /// check of [`Self::check_spartan_graph`]: what Algorithm 2 iterates
    /// over.
    pub fn spartan_components(&self) -> Result<Vec<Component>, GraphError> {
        self.try_spartan_components().map_err(|violation| GraphError { graph: self.clone(), violation })
    }

    fn try_components(&self) -> Result<Vec<Component>, GraphViolation> {
        let n = self.nodes.len();
        if let Some(i) = (0..n).find(|&i| self.first_out[i + 1] - self.first_out[i] > 1) {
            return Err(GraphViolation::Windmill(i));
        }
        let next = |i: usize| self.succs(i).next();
        let mut seen = vec![false; n];
        let mut components = Vec::new();
        for start in 0..n {
            if self.pred[start].is_some() {
                continue;
            }
            // Every node has an edge, so a node without a predecessor starts
            // a path of at least two nodes; out-degrees are at most 1, so the
            // walk is the whole component.
            let mut path = vec![self.nodes[start]];
            seen[start] = true;
            let mut i = start;
            while let Some(j) = next(i) {
                seen[j] = true;
                path.push(self.nodes[j]);
                i = j;
            }
            components.push(Component::Path(path));
        }
        for start in 0..n {
            if seen[start] {
                continue;
            }
            // The remaining nodes all have in-degree 1 and out-degree 1, so
            // they lie on cycles.
            let mut regs = Vec::new();
            let mut i = start;
            loop {
                seen[i] = true;
                match self.nodes[i] {
                    Loc::Reg(r) => regs.push(r),
                    Loc::Slot(_) if next(i) == Some(i) => {}
                    Loc::Slot(_) => return Err(GraphViolation::MemoryCycle(i)),
                }
                i = next(i).expect("a node on a cycle has a successor");
                if i == start {
                    break;
                }
            }
            components.push(if next(start) == Some(start) {
                Component::SelfLoop(self.nodes[start])
            } else {
                Component::Cycle(regs)
            });
        }
        Ok(components)
    }

    fn try_spartan_components(&self) -> Result<Vec<Component>, GraphViolation> {
        let components = self.try_components()?;
        for c in &components {
            if let Component::Path(nodes) = c {
                if let Some(&m) = nodes[1..nodes.len() - 1].iter().find(|l| matches!(l, Loc::Slot(_))) {
                    return Err(GraphViolation::MemoryInsidePath(m, nodes[0]));
                }
            }
        }
        for &(s, d) in &self.edges {
            if let (Loc::Slot(_), Loc::Slot(_)) = (self.nodes[s], self.nodes[d]) {
                if s != d {
                    return Err(GraphViolation::MemoryToMemory(s, d));
                }
            }
        }
        Ok(components)
    }
}

/// A location transfer graph that is not spartan, and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GraphError {
    pub graph: LocationTransferGraph,
    pub violation: GraphViolation,
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.violation.describe(&self.graph))
    }
}

impl std::error::Error for GraphError {}

/// Why a location transfer graph is not spartan, by the nodes at fault
/// (indices into the graph's sorted nodes); the message is only built when
/// it is asked for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GraphViolation {
    /// Node `i` has two or more successors.
    Windmill(usize),
    /// Memory node `i` lies on a cycle of two or more nodes.
    MemoryCycle(usize),
    /// Memory `m` is an inner node of the path that starts at the second
    /// location.
    MemoryInsidePath(Loc, Loc),
    /// An edge between two distinct memory nodes.
    MemoryToMemory(usize, usize),
}

impl GraphViolation {
    fn describe(self, g: &LocationTransferGraph) -> String {
        let list = |ls: Vec<Loc>, sep: &str| {
            let s: Vec<String> = ls.iter().map(|l| l.to_string()).collect();
            s.join(sep)
        };
        match self {
            GraphViolation::Windmill(i) => {
                let out: Vec<Loc> = g.succs(i).map(|d| g.nodes[d]).collect();
                format!(
                    "not spartan: {} is copied to {} locations ({}), so its component is a \
                     windmill, not a path or a cycle",
                    g.nodes[i],
                    out.len(),
                    list(out, ", ")
                )
            }
            GraphViolation::MemoryCycle(i) => {
                let mut cycle = vec![g.nodes[i]];
                let mut j = g.succs(i).next().expect("on a cycle");
                while j != i {
                    cycle.push(g.nodes[j]);
                    j = g.succs(j).next().expect("on a cycle");
                }
                format!(
                    "not spartan: the cycle {} -> {} goes through memory; it would need a \
                     memory swap or a scratch location",
                    list(cycle, " -> "),
                    g.nodes[i]
                )
            }
            GraphViolation::MemoryInsidePath(m, first) => format!(
                "not spartan: memory {m} is an inner node of the path from {first}; only the \
                 ends of a path may be memory"
            ),
            GraphViolation::MemoryToMemory(s, d) => {
                format!("not spartan: the edge ({}, {}) copies memory to other memory", g.nodes[s], g.nodes[d])
            }
        }
    }
}
