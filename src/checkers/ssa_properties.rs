//! Independent checkers for the properties an SSA construction promises:
//! pruned (Choi, Cytron and Ferrante, POPL 1991; Braun et al., CC 2013, §4),
//! free of trivial phis (Braun et al., §2.2) and minimal in the strict sense
//! of Braun et al., §3.2 (no redundant set of phis).
//!
//! The checkers look only at the finished function: they share no code with
//! either construction (`braun/`, `cytron.rs`), and [`check_minimal`]
//! decides redundancy exactly by its definition, without Algorithm 5, so it
//! catches a wrong Algorithm 5.
//!
//! Every checker accepts any [`Function`] without panicking (value numbers
//! past `value_count` are tolerated), returns the offending phis and values
//! in its [`PropertyError`], and uses explicit worklists: no recursion grows with
//! the size of the function. Their verdicts are meaningful for functions that
//! pass the SSA verifier.

use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{Block, Function, Module, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;

/// A property that does not hold, with the function and the phis or values
/// that break it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PropertyError {
    /// The name of the function that breaks the property.
    pub function: String,
    /// What is wrong, naming the offending phis and values.
    pub message: String,
}

impl fmt::Display for PropertyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function `{}`: {}", self.function, self.message)
    }
}

impl std::error::Error for PropertyError {}

impl PropertyError {
    fn new(func: &Function, message: String) -> Self {
        PropertyError { function: func.name.clone(), message }
    }
}

/// How many items a message lists before it says "and N more".
const LISTED: usize = 20;

/// Lists items as `a, b, c`, at most [`LISTED`] of them.
fn list<T: fmt::Display>(items: &[T]) -> String {
    let mut s: Vec<String> = items.iter().take(LISTED).map(|i| i.to_string()).collect();
    if items.len() > LISTED {
        s.push(format!("and {} more", items.len() - LISTED));
    }
    s.join(", ")
}

/// A phi named by its value and its block, for messages.
struct PhiName(Value, Block);

impl fmt::Display for PhiName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (in {})", self.0, self.1)
    }
}

/// One more than the largest value number the function mentions, and at
/// least `value_count`: a safe size for maps keyed by value.
fn value_capacity(func: &Function) -> usize {
    let mut cap = func.value_count as usize;
    let mut see = |v: Value| cap = cap.max(v.index() + 1);
    func.params.iter().for_each(|&p| see(p));
    for data in func.blocks.values() {
        for phi in &data.phis {
            see(phi.dest);
            phi.args.iter().for_each(|&a| see(a));
        }
        for inst in &data.insts {
            inst.dest.into_iter().for_each(&mut see);
            inst.op.for_each_arg(&mut see);
        }
        data.term.arg().into_iter().for_each(&mut see);
    }
    cap
}

/// Where each phi is: its block and its index there. When a value is the
/// destination of several phis (not a valid function), the last one counts.
fn phi_locations(func: &Function, cap: usize) -> EntityVec<Value, Option<(Block, usize)>> {
    let mut at = EntityVec::from_elem(None, cap);
    for (b, data) in func.blocks.iter() {
        for (i, phi) in data.phis.iter().enumerate() {
            at[phi.dest] = Some((b, i));
        }
    }
    at
}

/// The phis that transitively feed a non-phi use (an instruction operand or
/// a terminator operand): the phis a pruned function keeps.
pub fn useful_phis(func: &Function) -> EntitySet<Value> {
    let cap = value_capacity(func);
    let at = phi_locations(func, cap);
    let mut useful: EntitySet<Value> = EntitySet::with_capacity(cap);
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, useful: &mut EntitySet<Value>, work: &mut Vec<Value>| {
        if at[v].is_some() && useful.insert(v) {
            work.push(v);
        }
    };
    for data in func.blocks.values() {
        for inst in &data.insts {
            inst.op.for_each_arg(|a| mark(a, &mut useful, &mut work));
        }
        if let Some(a) = data.term.arg() {
            mark(a, &mut useful, &mut work);
        }
    }
    while let Some(p) = work.pop() {
        let Some((b, i)) = at[p] else { continue };
        for &a in &func.blocks[b].phis[i].args {
            mark(a, &mut useful, &mut work);
        }
    }
    useful
}

/// Checks that the function is in pruned SSA form: every phi transitively
/// feeds a non-phi use, that is an instruction operand or a terminator
/// operand, possibly through other phis (Braun et al., §4, after Choi et al.).
///
/// Marks the phis read by instructions and terminators, then the phi
/// arguments of marked phis, with a worklist; the unmarked phis are dead.
/// Time O(size of the function).
pub fn check_pruned(func: &Function) -> Result<(), PropertyError> {
    crate::pass_manager::self_checks::count();
    let useful = useful_phis(func);
    let dead: Vec<PhiName> = func
        .blocks
        .iter()
        .flat_map(|(b, data)| data.phis.iter().map(move |phi| (b, phi.dest)))
        .filter(|&(_, v)| !useful.contains(v))
        .map(|(b, v)| PhiName(v, b))
        .collect();
    if dead.is_empty() {
        return Ok(());
    }
    Err(PropertyError::new(
        func,
        format!(
            "not pruned: {} phi(s) feed no instruction or terminator, not even through other phis: {}",
            dead.len(),
            list(&dead)
        ),
    ))
}

/// Checks that no phi is trivial: a phi is trivial when its arguments,
/// ignoring the phi itself, are all one value `v` (Braun et al., §2.2), or
/// when it has no argument other than itself.
///
/// Time O(number of phi arguments).
pub fn check_no_trivial_phis(func: &Function) -> Result<(), PropertyError> {
    crate::pass_manager::self_checks::count();
    let mut trivial: Vec<String> = Vec::new();
    for (b, data) in func.blocks.iter() {
        for phi in &data.phis {
            let mut others = phi.args.iter().copied().filter(|&a| a != phi.dest);
            let first = others.next();
            if others.all(|a| Some(a) == first) {
                trivial.push(match first {
                    Some(v) => format!("{} merges only itself and {v}", PhiName(phi.dest, b)),
                    None => format!("{} merges only itself", PhiName(phi.dest, b)),
                });
            }
        }
    }
    if trivial.is_empty() {
        return Ok(());
    }
    Err(PropertyError::new(func, format!("{} trivial phi(s): {}", trivial.len(), list(&trivial))))
}

/// Checks that the function has no redundant set of phis (Braun et al.,
/// §3.2): no non-empty set `P` of phis and value `v` such that every argument
/// of every phi in `P` is in `P ∪ {v}`. A trivial phi is a redundant set of
/// one, so this implies [`check_no_trivial_phis`]; by Lemma 1 it also covers
/// every redundant strongly connected component, nested ones included (the
/// inner SCC of Fig. 6).
///
/// # Method: dominators of the value-flow graph
///
/// Let `G` be the graph whose nodes are a virtual root `r`, every phi, and
/// every non-phi value that is a phi argument (a *leaf*), with an edge
/// `r → w` for every leaf `w` and an edge `a → p` for every phi `p` and every
/// argument `a` of `p` (the value flows from `a` into `p`).
///
/// **Claim.** For a phi `p` and a value `v ≠ p`, some redundant set with
/// respect to `v` contains `p` if and only if every path from `r` to `p` in
/// `G` passes through `v` (vacuously so when no path reaches `p`).
///
/// * (only if) Let `P ∋ p` be redundant with respect to `v`, and take a path
///   `r = n0 → n1 → … → nk = p`. If `nj` is in `P` (`j ≥ 1`), it is a phi,
///   so `n(j-1)` is one of its arguments (the root only points to leaves,
///   which are not phis), hence in `P ∪ {v}`. Walking back from `nk ∈ P`,
///   the path stays in `P` until it meets `v`; it must meet `v`, since
///   `n0 = r` is not in `P`.
/// * (if) Let `P` be the set of phis `q ≠ v` such that every path from `r`
///   to `q` passes through `v`; `p ∈ P`. Take `q ∈ P` and an argument `a` of
///   `q` with `a ≠ v`. If some path from `r` to `a` avoided `v`, extending
///   it by `a → q` would give a path to `q` avoiding `v`. So every path to
///   `a` passes through `v`; `a` is not a leaf (the path `r → a` avoids
///   `v`), so `a` is a phi, and `a ∈ P`. Hence `P` is redundant for `v`.
///
/// So a redundant set exists iff (1) some phi is unreachable from `r` (then
/// the phis unreachable from `r` reference only each other: a phi argument
/// that is a leaf or a reachable phi would make the phi reachable), or
/// (2) some reachable phi `p` has a dominator in `G` other than `r` and
/// itself, i.e. its immediate dominator is not `r`. (A redundant set whose
/// only member is `v` itself means `v`'s arguments are all `v`: `v` is then
/// unreachable from `r`, case 1.) The checker computes the dominators of `G`
/// and tests (1) and (2). When it finds a candidate `v = idom(p)`, it
/// computes the witness it reports, `P_v`, the largest redundant set with
/// respect to `v`, as a greatest fixpoint (start from all phis, remove any
/// phi with an argument outside the current set ∪ {v}, re-examine its phi
/// users); it reports only a non-empty `P_v`, which satisfies the definition
/// by construction.
///
/// # Complexity
///
/// With Φ phis and A phi arguments: building `G`, its depth-first order and
/// the witness are O(Φ + A), and the dominators, by Lengauer and Tarjan's
/// algorithm with path compression, O(A log Φ). (Cooper, Harvey and
/// Kennedy's iteration walks the dominator chain at each merge, once per
/// round, and needs as many rounds as the loop connectedness of `G`: on the
/// phis of nested loops, a chain of cycles, it is quadratic.)
pub fn check_minimal(func: &Function) -> Result<(), PropertyError> {
    crate::pass_manager::self_checks::count();
    let graph = FlowGraph::new(func);
    let idom = graph.immediate_dominators();

    let unreachable: Vec<PhiName> = (0..graph.nodes.len())
        .filter(|&n| graph.nodes[n].phi_block.is_some() && idom[n].is_none())
        .map(|n| graph.phi_name(n))
        .collect();
    if !unreachable.is_empty() {
        return Err(PropertyError::new(
            func,
            format!(
                "not minimal: redundant set of {} phi(s) whose arguments are only each other \
                 (Braun et al. §3.2): {}",
                unreachable.len(),
                list(&unreachable)
            ),
        ));
    }
    for (node, &d) in graph.nodes.iter().zip(&idom) {
        if node.phi_block.is_none() {
            continue;
        }
        let Some(d) = d else { continue };
        if d == ROOT {
            continue;
        }
        let v = graph.nodes[d].value.expect("only the root has no value");
        let witness = graph.largest_redundant_set(v);
        if witness.is_empty() {
            // The claim above says this cannot happen; report nothing rather
            // than a set that the definition would not confirm.
            continue;
        }
        let members: Vec<PhiName> = witness.iter().map(|&m| graph.phi_name(m)).collect();
        return Err(PropertyError::new(
            func,
            format!(
                "not minimal: redundant set of {} phi(s) whose arguments are only each other and {v} \
                 (Braun et al. §3.2): {}",
                members.len(),
                list(&members)
            ),
        ));
    }
    Ok(())
}

/// The root of a [`FlowGraph`].
const ROOT: usize = 0;

/// A node of a [`FlowGraph`]: the root, a phi or a leaf.
struct FlowNode {
    /// The value; `None` for the root.
    value: Option<Value>,
    /// The block of a phi; `None` for the root and leaves.
    phi_block: Option<Block>,
    /// The nodes with an edge into this one: a phi's arguments (with
    /// repeats), the root for a leaf.
    preds: Vec<usize>,
    /// The nodes this one has an edge to: the phis it is an argument of (with
    /// repeats), every leaf for the root.
    succs: Vec<usize>,
}

/// The value-flow graph `G` of [`check_minimal`]. Node indices are local to
/// this module.
struct FlowGraph {
    nodes: Vec<FlowNode>,
}

impl FlowGraph {
    fn new(func: &Function) -> Self {
        let cap = value_capacity(func);
        let mut node_of: EntityVec<Value, Option<usize>> = EntityVec::from_elem(None, cap);
        let mut nodes = vec![FlowNode { value: None, phi_block: None, preds: Vec::new(), succs: Vec::new() }];
        // Phis first, in block order; a value defined by several phis (not a
        // valid function) is one node with the arguments of all of them.
        for (b, data) in func.blocks.iter() {
            for phi in &data.phis {
                if node_of[phi.dest].is_none() {
                    node_of[phi.dest] = Some(nodes.len());
                    nodes.push(FlowNode {
                        value: Some(phi.dest),
                        phi_block: Some(b),
                        preds: Vec::new(),
                        succs: Vec::new(),
                    });
                }
            }
        }
        for data in func.blocks.values() {
            for phi in &data.phis {
                let p = node_of[phi.dest].expect("phi nodes were made above");
                for &a in &phi.args {
                    let an = match node_of[a] {
                        Some(an) => an,
                        None => {
                            let leaf = nodes.len();
                            node_of[a] = Some(leaf);
                            nodes.push(FlowNode {
                                value: Some(a),
                                phi_block: None,
                                preds: vec![ROOT],
                                succs: Vec::new(),
                            });
                            nodes[ROOT].succs.push(leaf);
                            leaf
                        }
                    };
                    nodes[p].preds.push(an);
                    nodes[an].succs.push(p);
                }
            }
        }
        FlowGraph { nodes }
    }

    fn phi_name(&self, n: usize) -> PhiName {
        let node = &self.nodes[n];
        PhiName(node.value.expect("a phi has a value"), node.phi_block.expect("a phi has a block"))
    }

    /// The nodes reachable from the root in depth-first pre-order, and the
    /// number of each node's parent in that order (`usize::MAX` for the
    /// root); `number` maps a node to its number, `usize::MAX` when the root
    /// does not reach it.
    fn depth_first(&self) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let mut number = vec![usize::MAX; self.nodes.len()];
        let (mut vertex, mut parent) = (Vec::new(), Vec::new());
        number[ROOT] = 0;
        vertex.push(ROOT);
        parent.push(usize::MAX);
        let mut stack: Vec<(usize, usize)> = vec![(ROOT, 0)];
        while let Some((n, next)) = stack.last_mut() {
            let n = *n;
            if let Some(&s) = self.nodes[n].succs.get(*next) {
                *next += 1;
                if number[s] == usize::MAX {
                    number[s] = vertex.len();
                    vertex.push(s);
                    parent.push(number[n]);
                    stack.push((s, 0));
                }
            } else {
                stack.pop();
            }
        }
        (vertex, parent, number)
    }

    /// The immediate dominator of each node reachable from the root (the
    /// root is its own); `None` for unreachable nodes. Lengauer and
    /// Tarjan's algorithm (A Fast Algorithm for Finding Dominators in a
    /// Flowgraph, TOPLAS 1979), in its simple version: semidominators in
    /// reverse pre-order, each found by `eval` on a forest with path
    /// compression, then the immediate dominators from them (§3, Theorem 4
    /// and Corollary 1), on depth-first numbers.
    fn immediate_dominators(&self) -> Vec<Option<usize>> {
        let (vertex, parent, number) = self.depth_first();
        let m = vertex.len();
        let mut semi: Vec<usize> = (0..m).collect();
        let mut forest = Forest { ancestor: vec![usize::MAX; m], label: (0..m).collect(), path: Vec::new() };
        let mut dom = vec![0usize; m];
        let mut bucket: Vec<Vec<usize>> = vec![Vec::new(); m];
        for w in (1..m).rev() {
            for &p in &self.nodes[vertex[w]].preds {
                // A predecessor the root does not reach has no number.
                if number[p] != usize::MAX {
                    let u = forest.eval(number[p], &semi);
                    semi[w] = semi[w].min(semi[u]);
                }
            }
            bucket[semi[w]].push(w);
            forest.ancestor[w] = parent[w];
            for v in std::mem::take(&mut bucket[parent[w]]) {
                let u = forest.eval(v, &semi);
                dom[v] = if semi[u] < semi[v] { u } else { parent[w] };
            }
        }
        for w in 1..m {
            if dom[w] != semi[w] {
                dom[w] = dom[dom[w]];
            }
        }
        let mut idom: Vec<Option<usize>> = vec![None; self.nodes.len()];
        idom[ROOT] = Some(ROOT);
        for w in 1..m {
            idom[vertex[w]] = Some(vertex[dom[w]]);
        }
        idom
    }

    /// `P_v`: the largest set of phis whose arguments all lie in the set or
    /// are `v`, by greatest fixpoint. Sets with this property are closed
    /// under union, so the largest exists; it is empty when no redundant set
    /// with respect to `v` exists. Returns phi nodes in block order.
    fn largest_redundant_set(&self, v: Value) -> Vec<usize> {
        let is_phi = |n: usize| self.nodes[n].phi_block.is_some();
        let is_v = |n: usize| self.nodes[n].value == Some(v);
        let mut member: Vec<bool> = (0..self.nodes.len()).map(is_phi).collect();
        // A phi leaves the set when an argument is neither `v` nor a member.
        let mut work: Vec<usize> = (0..self.nodes.len())
            .filter(|&n| member[n] && self.nodes[n].preds.iter().any(|&a| !is_phi(a) && !is_v(a)))
            .collect();
        for &n in &work {
            member[n] = false;
        }
        while let Some(n) = work.pop() {
            if is_v(n) {
                // `v` itself may be a phi; its removal does not affect its
                // users, since `v` is always allowed as an argument.
                continue;
            }
            for &user in &self.nodes[n].succs {
                if member[user] {
                    member[user] = false;
                    work.push(user);
                }
            }
        }
        (0..self.nodes.len()).filter(|&n| member[n]).collect()
    }
}

/// The forest of Lengauer and Tarjan's `link` and `eval`, on depth-first
/// numbers: `ancestor` is the parent in the forest (`usize::MAX` for a
/// tree root), `label` the node of least semidominator number on the
/// compressed path.
struct Forest {
    ancestor: Vec<usize>,
    label: Vec<usize>,
    /// Scratch for `eval`: the path it compresses.
    path: Vec<usize>,
}

impl Forest {
    /// The node of least semidominator number on the forest path from `v`
    /// up to (not including) its tree root, or `v` itself when it is a
    /// root. Compresses the path, as the paper's recursive `COMPRESS`,
    /// with an explicit list: from the node nearest the root down to `v`.
    fn eval(&mut self, v: usize, semi: &[usize]) -> usize {
        if self.ancestor[v] == usize::MAX {
            return v;
        }
        self.path.clear();
        let mut x = v;
        while self.ancestor[self.ancestor[x]] != usize::MAX {
            self.path.push(x);
            x = self.ancestor[x];
        }
        while let Some(x) = self.path.pop() {
            let a = self.ancestor[x];
            if semi[self.label[a]] < semi[self.label[x]] {
                self.label[x] = self.label[a];
            }
            self.ancestor[x] = self.ancestor[a];
        }
        self.label[v]
    }
}

/// Checks that the Braun construction places at most as many phis as the
/// Cytron construction, function by function (matched by name): Cytron et
/// al.'s placement is minimal in their sense, and Braun et al.'s is minimal
/// in the stricter sense of §3.2 (Lemma 1, Theorem 1).
pub fn compare_phi_counts(braun: &Module, cytron: &Module) -> Result<(), PropertyError> {
    crate::pass_manager::self_checks::count();
    // Functions by name: a search of the list for each function would be
    // quadratic in a module of many functions.
    let cytron_by_name: FxHashMap<&str, &Function> = cytron.functions.iter().map(|cf| (cf.name.as_str(), cf)).collect();
    for bf in &braun.functions {
        let Some(cf) = cytron_by_name.get(bf.name.as_str()) else {
            return Err(PropertyError::new(bf, "is missing from the Cytron module".to_string()));
        };
        let (b, c) = (bf.phi_count(), cf.phi_count());
        if b > c {
            return Err(PropertyError::new(bf, format!("Braun construction has {b} phi(s), more than Cytron's {c}")));
        }
    }
    let braun_names: FxHashSet<&str> = braun.functions.iter().map(|bf| bf.name.as_str()).collect();
    if let Some(cf) = cytron.functions.iter().find(|cf| !braun_names.contains(cf.name.as_str())) {
        return Err(PropertyError::new(cf, "is missing from the Braun module".to_string()));
    }
    Ok(())
}
