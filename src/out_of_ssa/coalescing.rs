//! Aggressive coalescing of the copies of a CSSA program: Boissinot et al.,
//! "Revisiting Out-of-SSA Translation for Correctness, Code Quality, and
//! Efficiency" (CGO 2009), §III-B (weights, independent sets, copy sharing)
//! and the seven variants of §III-E, over the class tests of §IV-B.
//!
//! Needs: a function in CSSA form after Method I (`copy_insertion.rs`), its
//! [`ValueInterference`] (values, dominance, liveness from the sets or from
//! the liveness check, the parallel copies), and the loop depth of every
//! block (`loops.rs`).
//!
//! # Classes and affinities
//!
//! A congruence class is a set of variables that will share one name. At
//! the start, the variables of each phi (`a'0`, ..., `a'n` after Method I)
//! form one class (the paper's "φ-node"), every other variable is alone.
//! Every copy `b = copy a` of the program (those Method I inserted and those
//! already there) is an *affinity* of weight `10^depth`, `depth` the loop
//! depth of the block holding it (a static estimate of how often it runs,
//! §III-B). Coalescing an affinity merges the classes `X` of `a` and `Y` of
//! `b` when the [`CoalescingVariant`] says they may be merged; the copy then
//! becomes a self-copy and disappears when the classes are renamed.
//!
//! # Variants (§III-E)
//!
//! - `Intersect`: no `x ∈ X`, `y ∈ Y` intersect.
//! - `SreedharI`: the same, except the pair `(a, b)` of the copy itself.
//! - `Chaitin`: no `x`, `y` where one is live at the other's definition and
//!   that definition is not a copy from the other.
//! - `Value`: no `x`, `y` intersect with different values (§III-A).
//! - `SreedharIII`: the copies of one phi at a time, the phi's operands
//!   merged into its class by an independent-set search, with the
//!   `SreedharI` test (the copy of an operand into the phi is what Method III
//!   would not insert, so that pair is not checked); then the other copies
//!   with the `SreedharI` test. See "Virtualization" below.
//! - `ValueIs`: like `SreedharIII` with the `Value` test.
//! - `Sharing`: `ValueIs`, then copy sharing: a remaining copy `a ↦ b` goes
//!   when a variable `c` with the value of `a` is live just after it and (1)
//!   `c` is already in `b`'s class, or (2) `c`'s class can be merged with
//!   `b`'s; `c` (the *witness*) is not a destination of the same parallel
//!   copy whose own copy was already removed by sharing, or two copies of
//!   one value could go each because of the other
//!   (`proofs-notes/out-of-ssa.md`, "Copy sharing").
//!
//! Affinities are processed in decreasing weight (ties in program order),
//! so that copies in inner loops are removed first. The independent-set
//! search of a phi takes the candidate classes that do not interfere with
//! the phi's class, then repeatedly keeps the candidate with the fewest
//! interferences among the remaining candidates (ties: heavier first) and
//! drops the candidates it interferes with.
//!
//! # Class tests
//!
//! [`ClassTest::Linear`] uses the linear test of `class_interference_linear.rs`
//! (Algorithm 2 with the equal intersecting ancestors) for the variants whose
//! interference is an intersection or value-based interference (in value
//! mode walked only near the smaller class, `class_interference_local.rs`,
//! over the classes of `congruence_classes.rs`); the
//! variants that exclude a pair (`SreedharI`, `SreedharIII`) or use
//! Chaitin's test are not of that form and always test every pair.
//! [`ClassTest::Quadratic`] tests every pair; [`ClassTest::Graph`] and
//! [`ClassTest::BitMatrix`] test every pair against an explicit
//! interference graph built from the live sets, the two Sreedhar III
//! baselines of §IV-D: a hash set of edges over the copy- and phi-related
//! variables ([`InterferenceGraph`], the cheaper one), or every variable in
//! a bit matrix with adjacency lists (`interference_graph_bitmatrix.rs`, the
//! graph the paper's baseline used). With `cross_check`, every query to
//! which the linear test applies is answered by both the linear test and
//! the pairwise one (quadratic, or against the graph), and disagreements
//! are counted.
//!
//! # Virtualization
//!
//! The paper's §IV-C emulates Method I: copies are materialized only when a
//! virtual copy cannot be coalesced. The translation (`out_of_ssa.rs`) runs
//! `SreedharIII` that way, in `virtualization.rs`: no Method I copy is
//! inserted, each phi's virtual variables are one class member, and only
//! the copies that cannot be coalesced get a variable. The `SreedharIII`
//! of this module, on the program with every copy of Method I inserted, is
//! the emulation of that algorithm; it is kept as a test oracle
//! (`tests/suite/virtualization.rs` compares the copies left).
//!
//! # Register renaming constraints (§III-D)
//!
//! With [`Coalescer::with_pins`], the variables `renaming_constraints.rs`
//! pinned around each division and call start in classes labeled `rax`,
//! `rdx` and the argument roles of the calling convention. Every class
//! test first compares labels: two labeled classes with different labels
//! interfere, and merging an unlabeled class into a labeled one also
//! requires that none of its members is live where a division or a call
//! destroys the label's register (its clobbers). The pinning copies are
//! then coalesced like every other copy.

use crate::analysis::liveness::{live_at_end, Liveness};
use crate::analysis::reach::{hit, Path};
use crate::entity::EntityVec;
use crate::ir::{Block, Function, Op, Value};
use crate::out_of_ssa::class_interference_linear::{classes_interfere_linear, InterferenceMode};
use crate::out_of_ssa::clobber_masks::ClobberMasks;
use crate::out_of_ssa::congruence_classes::CongruenceClasses;
use crate::out_of_ssa::copy_insertion::InsertedCopy;
use crate::out_of_ssa::copy_sharing_witnesses::{witnesses, CopyPair};
use crate::out_of_ssa::phi_candidate_conflicts::{check_conflicts, greedy_independent_set_lists, pairs_to_test};
use crate::out_of_ssa::renaming_constraints::{clobbers, ClobberIndex, FixedReg, Pins};
use crate::out_of_ssa::values::{intersect, CopyGroups, ValueInterference};
use rustc_hash::{FxHashMap, FxHashSet};

/// The coalescing variants of §III-E.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CoalescingVariant {
    Intersect,
    SreedharI,
    Chaitin,
    Value,
    SreedharIII,
    ValueIs,
    Sharing,
}

impl CoalescingVariant {
    /// Every variant, in the order of the paper's Fig. 5.
    pub const ALL: [CoalescingVariant; 7] = [
        CoalescingVariant::Intersect,
        CoalescingVariant::SreedharI,
        CoalescingVariant::Chaitin,
        CoalescingVariant::Value,
        CoalescingVariant::SreedharIII,
        CoalescingVariant::ValueIs,
        CoalescingVariant::Sharing,
    ];

    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CoalescingVariant::Intersect => "Intersect",
            CoalescingVariant::SreedharI => "Sreedhar I",
            CoalescingVariant::Chaitin => "Chaitin",
            CoalescingVariant::Value => "Value",
            CoalescingVariant::SreedharIII => "Sreedhar III",
            CoalescingVariant::ValueIs => "Value + IS",
            CoalescingVariant::Sharing => "Sharing",
        }
    }

    /// The name in stage names and on the command line: lower case, no
    /// spaces (`intersect`, `sreedhar-i`, `chaitin`, `value`,
    /// `sreedhar-iii`, `value+is`, `sharing`).
    pub fn slug(self) -> &'static str {
        match self {
            CoalescingVariant::Intersect => "intersect",
            CoalescingVariant::SreedharI => "sreedhar-i",
            CoalescingVariant::Chaitin => "chaitin",
            CoalescingVariant::Value => "value",
            CoalescingVariant::SreedharIII => "sreedhar-iii",
            CoalescingVariant::ValueIs => "value+is",
            CoalescingVariant::Sharing => "sharing",
        }
    }

    /// The variant whose [`slug`](Self::slug) is `s`.
    pub fn from_slug(s: &str) -> Option<CoalescingVariant> {
        CoalescingVariant::ALL.into_iter().find(|v| v.slug() == s)
    }

    /// The pairwise test the variant merges classes with.
    fn rule(self) -> Rule {
        match self {
            CoalescingVariant::Intersect => Rule::Intersect,
            CoalescingVariant::SreedharI | CoalescingVariant::SreedharIII => Rule::IntersectExceptCopy,
            CoalescingVariant::Chaitin => Rule::Chaitin,
            CoalescingVariant::Value | CoalescingVariant::ValueIs | CoalescingVariant::Sharing => Rule::Value,
        }
    }

    /// True when the variant handles the copies of one phi at a time with
    /// an independent-set search.
    fn per_phi(self) -> bool {
        matches!(self, CoalescingVariant::SreedharIII | CoalescingVariant::ValueIs | CoalescingVariant::Sharing)
    }
}

/// How the interference of two classes is decided.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ClassTest {
    /// The linear test of §IV-B where it applies, every pair otherwise.
    Linear,
    /// Every pair, with the variable test.
    Quadratic,
    /// Every pair, against the cheaper of the two baselines' graphs: a hash
    /// set of edges over the copy- and phi-related variables only, built
    /// from the live sets ([`InterferenceGraph`]; needs
    /// [`Coalescer::with_graph`]).
    Graph,
    /// Every pair, against the graph the paper's baseline used (§IV-D):
    /// every variable, a triangular bit matrix plus adjacency lists, built
    /// from the live sets (`interference_graph_bitmatrix.rs`; needs
    /// [`Coalescer::with_graph`]).
    BitMatrix,
    /// Every pair, against the graph as the paper's §IV-D baseline built
    /// it: the bit matrix and adjacency lists of
    /// `interference_graph_bitmatrix.rs` over the copy- and phi-related
    /// variables only, the universe of [`ClassTest::Graph`]. Not in
    /// [`ClassTest::ALL`]: it answers every query as `Graph` does, and only
    /// the §IV-D measurement (`evaluation/out_of_ssa_bench.rs`) asks for it.
    BitMatrixRelated,
}

impl ClassTest {
    /// The class tests the fuzz campaign rotates through, in a fixed order
    /// (see [`ClassTest::BitMatrixRelated`] for the one left out).
    pub const ALL: [ClassTest; 4] = [ClassTest::Linear, ClassTest::Quadratic, ClassTest::Graph, ClassTest::BitMatrix];

    /// The class test whose [`name`](Self::name) is `s`.
    pub fn from_name(s: &str) -> Option<ClassTest> {
        ClassTest::ALL.into_iter().chain([ClassTest::BitMatrixRelated]).find(|t| t.name() == s)
    }

    /// `linear`, `quadratic`, `graph-edge-set`, `graph-bitmatrix` or
    /// `graph-bitmatrix-related`: the
    /// name in stage names, case-file headers and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ClassTest::Linear => "linear",
            ClassTest::Quadratic => "quadratic",
            ClassTest::Graph => "graph-edge-set",
            ClassTest::BitMatrix => "graph-bitmatrix",
            ClassTest::BitMatrixRelated => "graph-bitmatrix-related",
        }
    }

    /// True for the tests that read an explicit graph.
    pub fn uses_graph(self) -> bool {
        matches!(self, ClassTest::Graph | ClassTest::BitMatrix | ClassTest::BitMatrixRelated)
    }
}

/// An explicit interference graph that class tests can ask about pairs:
/// [`InterferenceGraph`] (the cheaper baseline) or the bit matrix of
/// `interference_graph_bitmatrix.rs` (the paper's baseline).
pub trait InterferenceQuery {
    /// True when `a` and `b` intersect.
    fn contains(&self, a: Value, b: Value) -> bool;
    /// Number of edges.
    fn edge_count(&self) -> usize;
}

/// The pairwise tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rule {
    Intersect,
    IntersectExceptCopy,
    Chaitin,
    Value,
}

/// An affinity: a copy `dest = copy source` of the CSSA program.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Affinity {
    pub dest: Value,
    pub source: Value,
    /// `10^depth` of the block holding the copy (saturating).
    pub weight: u64,
    /// The block holding the copy and its index there.
    pub block: Block,
    pub inst: usize,
    /// For a copy Method I inserted, the block of its phi and the phi's
    /// destination `a'0`.
    pub phi: Option<(Block, Value)>,
}

/// The weight of a copy at loop depth `depth`: `10^depth`, saturating.
pub fn depth_weight(depth: u32) -> u64 {
    10u64.checked_pow(depth).unwrap_or(u64::MAX)
}

/// Every copy of `f` as an affinity, weighted by the loop depth of its
/// block; `inserted` tells which ones belong to a phi.
pub fn affinities(f: &Function, inserted: &[InsertedCopy], depth: &EntityVec<Block, u32>) -> Vec<Affinity> {
    let phi_of: FxHashMap<Value, (Block, Value)> =
        inserted.iter().map(|c| (c.dest, (c.phi_block, c.phi_dest))).collect();
    let mut out = Vec::new();
    for (b, data) in f.blocks.iter() {
        for (i, inst) in data.insts.iter().enumerate() {
            if let (Some(dest), Op::Copy(source)) = (inst.dest, &inst.op) {
                out.push(Affinity {
                    dest,
                    source: *source,
                    weight: depth_weight(depth.get(b).copied().unwrap_or(0)),
                    block: b,
                    inst: i,
                    phi: phi_of.get(&dest).copied(),
                });
            }
        }
    }
    out
}

/// The cheaper of out-of-ssa's two Sreedhar III baselines: an explicit
/// interference graph over the variables that take part in a copy or a phi
/// (the restricted universe of the paper's Fig. 7, §IV-D), built from the
/// live sets: an edge when one variable is live at the definition of the
/// other. Stored as a hash set of pairs, without adjacency lists. The
/// paper's own baseline, every variable in a bit matrix with adjacency
/// lists, is `interference_graph_bitmatrix.rs`.
#[derive(Clone, Debug, Default)]
pub struct InterferenceGraph {
    edges: FxHashSet<(Value, Value)>,
}

impl InterferenceGraph {
    /// Builds the graph of `f` for the variables of `universe`, with the
    /// parallel copies `groups` defining their destinations at their end.
    pub fn build(f: &Function, live: &Liveness, groups: &CopyGroups, universe: &FxHashSet<Value>) -> Self {
        let mut edges = FxHashSet::default();
        let add = |a: Value, b: Value, edges: &mut FxHashSet<(Value, Value)>| {
            if a != b && universe.contains(&a) && universe.contains(&b) {
                edges.insert((a.min(b), a.max(b)));
            }
        };
        for (b, data) in f.blocks.iter() {
            let mut cur = live_at_end(f, b, live);
            let mut i = data.insts.len();
            while i > 0 {
                // The instructions `start..i` execute together: a parallel
                // copy, or one instruction.
                let start =
                    groups.ranges(b).iter().find(|&&(_, e)| e as usize == i).map_or(i - 1, |&(s, _)| s as usize);
                let dests: Vec<Value> = data.insts[start..i].iter().filter_map(|x| x.dest).collect();
                for &d in &dests {
                    if universe.contains(&d) {
                        for v in cur.iter() {
                            add(d, v, &mut edges);
                        }
                    }
                }
                for &d in &dests {
                    cur.remove(d);
                }
                for inst in &data.insts[start..i] {
                    inst.op.for_each_arg(|a| {
                        cur.insert(a);
                    });
                }
                i = start;
            }
            let mut at_start: Vec<Value> = data.phis.iter().map(|p| p.dest).collect();
            if b == Function::ENTRY {
                at_start.extend(f.params.iter().copied());
            }
            for &d in &at_start {
                if universe.contains(&d) {
                    for v in live.live_in[b].iter() {
                        add(d, v, &mut edges);
                    }
                }
            }
        }
        InterferenceGraph { edges }
    }

    /// True when `a` and `b` intersect.
    pub fn contains(&self, a: Value, b: Value) -> bool {
        self.edges.contains(&(a.min(b), a.max(b)))
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
}

impl InterferenceQuery for InterferenceGraph {
    fn contains(&self, a: Value, b: Value) -> bool {
        InterferenceGraph::contains(self, a, b)
    }

    fn edge_count(&self) -> usize {
        self.edges.len()
    }
}

/// Options of [`coalesce`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CoalescingOptions {
    pub variant: CoalescingVariant,
    pub class_test: ClassTest,
    /// Answer every class query to which the linear test applies with
    /// both the linear and the quadratic (or graph) test, and count
    /// disagreements.
    pub cross_check: bool,
}

/// What [`coalesce`] decided and counted.
#[derive(Clone, Debug, Default)]
pub struct Coalescing {
    /// The class representative of every variable (union-find parents,
    /// fully compressed).
    pub class_of: FxHashMap<Value, Value>,
    /// Destinations of copies removed by copy sharing (their class already
    /// holds the value where they are defined).
    pub shared: FxHashSet<Value>,
    /// Affinities whose classes were merged (or already equal).
    pub coalesced: usize,
    /// Class interference queries made.
    pub class_queries: usize,
    /// Linear queries whose quadratic answer differed (with `cross_check`).
    pub linear_mismatches: usize,
}

impl Coalescing {
    /// The representative of `v`'s class.
    pub fn class(&self, v: Value) -> Value {
        self.class_of.get(&v).copied().unwrap_or(v)
    }
}

/// A candidate class of the independent-set search: its root, the summed
/// weight of its copies into the phi, and those copies as (source,
/// destination) pairs.
type Candidate = (Value, u64, Vec<(Value, Value)>);

/// Up to this many candidates, a phi's independent-set search tests every
/// pair of them.
const FEW_CANDIDATES: usize = 16;

/// The coalescing state.
pub struct Coalescer<'c, 'a> {
    ctx: &'c ValueInterference<'a>,
    graph: Option<&'c dyn InterferenceQuery>,
    opts: CoalescingOptions,
    parent: FxHashMap<Value, Value>,
    /// The members of each class and their `equal_anc_in`, kept from one
    /// linear value test to the next (`congruence_classes.rs`; §IV-B,
    /// "Finally, in case of coalescing...").
    classes: CongruenceClasses,
    /// The source of every copy, by destination (for Chaitin's test).
    copy_source: FxHashMap<Value, Value>,
    /// The register label of each labeled class, by root (§III-D).
    labels: FxHashMap<Value, FixedReg>,
    /// The registers constrained divisions and calls destroy (§III-D, see
    /// `renaming_constraints.rs`), and who is live there.
    masks: ClobberMasks,
    out: Coalescing,
}

impl<'c, 'a> Coalescer<'c, 'a> {
    /// A coalescer where each phi's variables form one class.
    pub fn new(f: &Function, ctx: &'c ValueInterference<'a>, affinities: &[Affinity], opts: CoalescingOptions) -> Self {
        let mut c = Coalescer {
            ctx,
            graph: None,
            opts,
            parent: FxHashMap::default(),
            classes: CongruenceClasses::default(),
            copy_source: affinities.iter().map(|a| (a.dest, a.source)).collect(),
            labels: FxHashMap::default(),
            masks: ClobberMasks::default(),
            out: Coalescing::default(),
        };
        for data in f.blocks.values() {
            for phi in &data.phis {
                for &a in &phi.args {
                    let (x, y) = (c.find(phi.dest), c.find(a));
                    if x != y {
                        c.union(x, y);
                    }
                }
            }
        }
        c
    }

    /// Honors the renaming constraints of `pins` (§III-D): the variables
    /// pinned to one register are pre-coalesced into one class labeled by
    /// it; classes with different labels interfere, and a class takes a
    /// label only if none of its members is live where a constrained
    /// division of `f` destroys that register.
    pub fn with_pins(mut self, f: &Function, pins: &Pins) -> Self {
        self.masks = ClobberMasks::new(ClobberIndex::new(clobbers(f, pins), self.ctx));
        for r in FixedReg::ALL {
            let mut root: Option<Value> = None;
            for (v, _) in pins.iter().filter(|&(_, p)| p == r) {
                let x = self.find(v);
                root = Some(match root.map(|q| self.find(q)) {
                    Some(q) if q != x => self.union(q, x),
                    _ => x,
                });
            }
            if let Some(q) = root {
                let q = self.find(q);
                self.labels.insert(q, r);
            }
        }
        self
    }

    /// Uses `graph` for [`ClassTest::Graph`] and [`ClassTest::BitMatrix`].
    pub fn with_graph(mut self, graph: &'c dyn InterferenceQuery) -> Self {
        self.graph = Some(graph);
        self
    }

    fn find(&mut self, v: Value) -> Value {
        find_root(&mut self.parent, v)
    }

    fn class_members(&self, root: Value) -> Vec<Value> {
        self.classes.members(self.ctx, root)
    }

    /// Merges two distinct classes; returns the new root.
    fn union(&mut self, x: Value, y: Value) -> Value {
        let (root, child) = if x < y { (x, y) } else { (y, x) };
        hit(Path::Merge);
        let (classes, ctx) = (&self.classes, self.ctx);
        self.masks.merge(ctx, root, child, |r| classes.members(ctx, r));
        self.classes.merge(self.ctx, x, y, root);
        self.parent.insert(child, root);
        if let Some(l) = self.labels.remove(&child) {
            self.labels.insert(root, l);
        }
        root
    }

    /// True when the labels of classes `x` and `y` (roots, distinct) forbid
    /// merging them: two different registers, or one register that a
    /// member of the unlabeled class is live across a clobber of.
    fn labels_conflict(&mut self, x: Value, y: Value) -> bool {
        let (label, other) = match (self.labels.get(&x), self.labels.get(&y)) {
            (Some(a), Some(b)) => return a != b,
            (Some(&a), None) => (a, y),
            (None, Some(&b)) => (b, x),
            (None, None) => return false,
        };
        let (classes, ctx) = (&self.classes, self.ctx);
        self.masks.class_conflicts(ctx, label, other, || classes.members(ctx, other))
    }

    /// True when variables `x` and `y` (of different classes) may not share
    /// a class under `rule`; `skip` lists the pairs not checked.
    fn pair_interferes(&self, rule: Rule, x: Value, y: Value, skip: &[(Value, Value)]) -> bool {
        let graph_intersect = |a: Value, b: Value| match (self.opts.class_test, self.graph) {
            (ClassTest::Graph | ClassTest::BitMatrix | ClassTest::BitMatrixRelated, Some(g)) => g.contains(a, b),
            _ => intersect(self.ctx, a, b),
        };
        match rule {
            Rule::Intersect => graph_intersect(x, y),
            Rule::IntersectExceptCopy => {
                if skip.iter().any(|&(a, b)| (a == x && b == y) || (a == y && b == x)) {
                    // The rule's own case: counted when it spares a pair
                    // that does intersect.
                    if graph_intersect(x, y) {
                        hit(Path::ExceptedPair);
                    }
                    return false;
                }
                graph_intersect(x, y)
            }
            Rule::Value => {
                if self.ctx.value_of(x) != self.ctx.value_of(y) {
                    return graph_intersect(x, y);
                }
                if graph_intersect(x, y) {
                    hit(Path::SameValue);
                }
                false
            }
            Rule::Chaitin => {
                let copy_of = |d: Value, s: Value| self.copy_source.get(&d) == Some(&s);
                let spared = |d: Value, s: Value| self.ctx.live_at_def(s, d) && copy_of(d, s);
                if spared(y, x) || spared(x, y) {
                    hit(Path::ChaitinCopy);
                }
                (self.ctx.live_at_def(x, y) && !copy_of(y, x)) || (self.ctx.live_at_def(y, x) && !copy_of(x, y))
            }
        }
    }

    /// True when the classes `x` and `y` (roots, distinct) interfere under
    /// `rule`.
    fn classes_interfere(&mut self, rule: Rule, x: Value, y: Value, skip: &[(Value, Value)]) -> bool {
        self.out.class_queries += 1;
        if self.labels_conflict(x, y) {
            return true;
        }
        let linear_mode = match rule {
            Rule::Intersect => Some(InterferenceMode::Intersection),
            Rule::Value => Some(InterferenceMode::Value),
            _ => None,
        };
        let members = |s: &Self| (s.class_members(x), s.class_members(y));
        let quadratic = |s: &Self, mx: &[Value], my: &[Value]| {
            mx.iter().any(|&a| my.iter().any(|&b| s.pair_interferes(rule, a, b, skip)))
        };
        if let (ClassTest::Linear, Some(InterferenceMode::Value)) = (self.opts.class_test, linear_mode) {
            // The walk near the smaller class (`class_interference_local.rs`):
            // the members are not listed unless cross-checked.
            let answer = self.classes.value_interfere(self.ctx, x, y);
            if answer {
                hit(Path::LinearInterference);
            }
            if self.opts.cross_check && self.classes.cross_check_now(self.ctx, x, y) {
                let (mx, my) = members(self);
                if answer != quadratic(self, &mx, &my) {
                    self.out.linear_mismatches += 1;
                }
            }
            return answer;
        }
        let (mx, my) = members(self);
        let quadratic = |s: &Self| quadratic(s, &mx, &my);
        match (self.opts.class_test, linear_mode) {
            (ClassTest::Linear, Some(mode)) => {
                let answer = classes_interfere_linear(&mx, &my, self.ctx, mode);
                if answer {
                    hit(Path::LinearInterference);
                }
                let sampled = self.opts.cross_check && self.classes.cross_check_now(self.ctx, x, y);
                if sampled && answer != quadratic(self) {
                    self.out.linear_mismatches += 1;
                }
                answer
            }
            // The quadratic and graph tests are cross-checked the other way:
            // the linear test must give their answer.
            (_, Some(mode)) if self.opts.cross_check => {
                let answer = quadratic(self);
                if answer != classes_interfere_linear(&mx, &my, self.ctx, mode) {
                    self.out.linear_mismatches += 1;
                }
                if answer {
                    hit(Path::PairInterference);
                }
                answer
            }
            _ => {
                let answer = quadratic(self);
                if answer {
                    hit(Path::PairInterference);
                }
                answer
            }
        }
    }

    /// Coalesces the affinity `a` if the variant allows it; true when the
    /// copy is gone.
    fn try_affinity(&mut self, a: &Affinity) -> bool {
        let (x, y) = (self.find(a.source), self.find(a.dest));
        if x == y {
            return true;
        }
        let rule = self.opts.variant.rule();
        if self.classes_interfere(rule, x, y, &[(a.source, a.dest)]) {
            return false;
        }
        self.union(x, y);
        true
    }

    /// The independent-set search for the copies of one phi (see the module
    /// documentation).
    fn coalesce_phi(&mut self, copies: &[&Affinity]) {
        let rule = self.opts.variant.rule();
        let Some(first) = copies.first() else { return };
        let Some((_, phi_dest)) = first.phi else { return };
        let phi_class = self.find(phi_dest);
        // Candidate classes: the operand side of each copy (the argument of
        // an end copy, the old phi destination of the copy after the phis),
        // with their weights and the copy pairs not to check.
        let mut cands: Vec<Candidate> = Vec::new();
        let mut index: FxHashMap<Value, usize> = FxHashMap::default();
        for a in copies {
            let operand = if self.find(a.dest) == phi_class { a.source } else { a.dest };
            let k = self.find(operand);
            if k == phi_class {
                continue;
            }
            match index.get(&k) {
                Some(&i) => {
                    cands[i].1 = cands[i].1.saturating_add(a.weight);
                    cands[i].2.push((a.source, a.dest));
                }
                None => {
                    index.insert(k, cands.len());
                    cands.push((k, a.weight, vec![(a.source, a.dest)]));
                }
            }
        }
        let mut alive: Vec<bool> = Vec::with_capacity(cands.len());
        for c in &cands {
            let skip = c.2.clone();
            alive.push(!self.classes_interfere(rule, phi_class, c.0, &skip));
        }
        // A phi of many candidates tests only the pairs that can conflict
        // (`phi_candidate_conflicts.rs`), which costs listing the members
        // of every candidate; a phi of a few tests every pair, as the class
        // test costs about the smaller class.
        let n = cands.len();
        let on: Vec<usize> = (0..n).filter(|&i| alive[i]).collect();
        let pairs = if on.len() <= FEW_CANDIDATES {
            on.iter().enumerate().flat_map(|(k, &i)| on[k + 1..].iter().map(move |&j| (i, j))).collect()
        } else {
            let members: Vec<Vec<Value>> = cands
                .iter()
                .zip(&alive)
                .map(|(c, &on)| if on { self.class_members(c.0) } else { Vec::new() })
                .collect();
            let labeled: Vec<bool> = cands.iter().map(|c| self.labels.contains_key(&c.0)).collect();
            pairs_to_test(self.ctx, &members, &labeled)
        };
        let mut conflicts: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, j) in pairs {
            if self.classes_interfere(rule, cands[i].0, cands[j].0, &[]) {
                conflicts[i].push(j);
                conflicts[j].push(i);
            }
        }
        let queries = self.out.class_queries;
        check_conflicts(&alive, &conflicts, |i, j| self.classes_interfere(rule, cands[i].0, cands[j].0, &[]));
        self.out.class_queries = queries;
        let weights: Vec<u64> = cands.iter().map(|c| c.1).collect();
        let alive_count = alive.iter().filter(|&&a| a).count();
        let chosen = greedy_independent_set_lists(alive, &weights, &conflicts);
        if chosen.len() < alive_count {
            hit(Path::IndependentSetDrop);
        }
        for i in chosen {
            let root = self.find(phi_class);
            let k = self.find(cands[i].0);
            if root != k && !self.classes_interfere(rule, root, k, &cands[i].2.clone()) {
                self.union(root, k);
            }
        }
    }

    /// Copy sharing (§III-B, the `Sharing` variant of §III-E) on the copies
    /// still present.
    fn share(&mut self, affinities: &[&Affinity]) {
        // The copy-related variables of each value, sorted.
        let mut by_value: FxHashMap<Value, Vec<Value>> = FxHashMap::default();
        for &v in self.copy_source.keys().chain(self.copy_source.values()) {
            by_value.entry(self.ctx.value_of(v)).or_default().push(v);
        }
        let mut groups: Vec<Vec<Value>> = Vec::with_capacity(by_value.len());
        let mut group_index: FxHashMap<Value, usize> = FxHashMap::default();
        for (value, mut list) in by_value {
            list.sort();
            list.dedup();
            group_index.insert(value, groups.len());
            groups.push(list);
        }
        // The witnesses that may remove each copy still present: a variable
        // with the source's value, live at the copy, whose definition
        // dominates it (strictness), found in `copy_sharing_witnesses.rs`.
        // Copies gone now stay gone, so they need none.
        let mut group_of: Vec<Option<usize>> = Vec::with_capacity(affinities.len());
        for a in affinities {
            let present = self.find(a.source) != self.find(a.dest);
            group_of.push(if present { group_index.get(&self.ctx.value_of(a.source)).copied() } else { None });
        }
        let copies: Vec<CopyPair> = affinities.iter().map(|a| CopyPair { dest: a.dest, source: a.source }).collect();
        let lists = witnesses(self.ctx, &copies, &groups, &group_of);
        for (a, cands) in affinities.iter().zip(&lists) {
            let (x, y) = (self.find(a.source), self.find(a.dest));
            if x == y {
                continue;
            }
            for &c in cands {
                // `c` must hold its value in the renamed program. A `c`
                // whose own copy was removed by sharing holds it through
                // its witness; at the same point (one parallel copy) that
                // witness may be `a.dest` itself, and the two copies would
                // go each because of the other (tests/cases/
                // out_of_ssa_sharing_miscompile.ssa). A `c` defined earlier
                // has a witness defined no later than `c`, never `a.dest`.
                if self.out.shared.contains(&c) && self.ctx.def_point(c) == self.ctx.def_point(a.dest) {
                    continue;
                }
                let z = self.find(c);
                let y = self.find(a.dest);
                let x = self.find(a.source);
                if z == y && y != x {
                    hit(Path::Shared);
                    self.out.shared.insert(a.dest);
                    break;
                }
                if z != x && z != y && !self.classes_interfere(Rule::Value, y, z, &[]) {
                    self.union(y, z);
                    hit(Path::Shared);
                    self.out.shared.insert(a.dest);
                    break;
                }
            }
        }
    }

    /// Runs the variant over `affinities` and returns the classes.
    pub fn run(mut self, affinities: &[Affinity]) -> Coalescing {
        let mut order: Vec<&Affinity> = affinities.iter().collect();
        order.sort_by_key(|a| std::cmp::Reverse(a.weight));
        if self.opts.variant.per_phi() {
            // The phis, heaviest copy first, each with its copies.
            let mut phis: Vec<(Value, Vec<&Affinity>)> = Vec::new();
            let mut index: FxHashMap<Value, usize> = FxHashMap::default();
            for a in &order {
                if let Some((_, d)) = a.phi {
                    let k = *index.entry(d).or_insert_with(|| {
                        phis.push((d, Vec::new()));
                        phis.len() - 1
                    });
                    phis[k].1.push(a);
                }
            }
            for (_, copies) in &phis {
                self.coalesce_phi(copies);
            }
        }
        for a in &order {
            if self.try_affinity(a) {
                self.out.coalesced += 1;
            }
        }
        if self.opts.variant == CoalescingVariant::Sharing {
            self.share(&order);
        }
        let keys: Vec<Value> = self.parent.keys().copied().collect();
        for v in keys {
            let r = self.find(v);
            self.out.class_of.insert(v, r);
        }
        self.out
    }
}

/// The root of `x` in the union-find forest `parent` (a member without an
/// entry is a root), compressing the path to it.
pub(crate) fn find_root<T: Copy + Eq + std::hash::Hash>(parent: &mut FxHashMap<T, T>, x: T) -> T {
    let mut root = x;
    while let Some(&p) = parent.get(&root) {
        root = p;
    }
    let mut y = x;
    while let Some(&p) = parent.get(&y) {
        if p == root {
            break;
        }
        parent.insert(y, root);
        y = p;
    }
    root
}

/// The independent-set search of one phi (module documentation): among
/// the candidates still `alive`, repeatedly the one with the fewest
/// conflicts with the other alive candidates (ties: heavier `weights`, then
/// the first), dropping the candidates it conflicts with. Returns the
/// chosen candidates in the order chosen. `conflict` is symmetric.
///
/// The search itself runs on conflict lists
/// (`phi_candidate_conflicts.rs`), at the cost of the conflicts.
pub fn greedy_independent_set(alive: Vec<bool>, weights: &[u64], conflict: &[Vec<bool>]) -> Vec<usize> {
    let n = alive.len();
    let lists: Vec<Vec<usize>> = conflict.iter().map(|row| (0..n).filter(|&j| row[j]).collect()).collect();
    greedy_independent_set_lists(alive, weights, &lists)
}

/// Coalesces the affinities of `f` (see the module documentation).
pub fn coalesce(
    f: &Function,
    ctx: &ValueInterference<'_>,
    graph: Option<&dyn InterferenceQuery>,
    affinities: &[Affinity],
    opts: CoalescingOptions,
    pins: &Pins,
) -> Coalescing {
    let mut c = Coalescer::new(f, ctx, affinities, opts).with_pins(f, pins);
    if let Some(g) = graph {
        c = c.with_graph(g);
    }
    c.run(affinities)
}

/// The members of every class of `result` with more than one member, each
/// sorted by value number; `values` limits the variables considered.
pub fn class_lists(result: &Coalescing, values: impl Iterator<Item = Value>) -> Vec<Vec<Value>> {
    let mut by_root: FxHashMap<Value, Vec<Value>> = FxHashMap::default();
    for v in values {
        by_root.entry(result.class(v)).or_default().push(v);
    }
    let mut lists: Vec<Vec<Value>> = by_root.into_values().filter(|l| l.len() > 1).collect();
    for l in &mut lists {
        l.sort();
    }
    lists.sort();
    lists
}
