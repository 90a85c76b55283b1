//! Random source programs for differential testing: one generator core,
//! driven either by a seed or by raw bytes.
//!
//! # What it makes
//!
//! [`TestCase`] is a program (a single `main`) and the arguments to run it
//! with. The same core builds it from a `u64` seed ([`TestCase::from_seed`],
//! a [`SmallRng`]) or from the bytes of a fuzzer
//! ([`TestCase::from_bytes`], an [`arbitrary::Unstructured`]); both go
//! through the [`Entropy`] trait, so the same seed or the same bytes always
//! give the same program. A byte string that runs out is read as zeros, and
//! every choice is laid out so that a zero picks the simplest option, so
//! every byte string, the empty one included, gives a valid program.
//!
//! The shapes it produces on purpose, each behind a [`Feature`] with a
//! weight in [`GenConfig`]:
//! - structured code: nested `if`/`else`, `while`, `break`, `continue`,
//!   `&&`/`||`, `mem` loads and stores, every operator, the trapping `/` and
//!   `%` included;
//! - arbitrary control flow with labels and `goto`: forward and backward
//!   jumps, loops with two entries (irreducible: a two-entry `goto` cycle, or
//!   a `goto` into the body of a `while`), unreachable code and unreachable
//!   cycles;
//! - the situations of the out-of-SSA papers, which copy propagation turns
//!   into interfering phi operands (Boissinot, Darte, Rastello, Dupont de
//!   Dinechin and Guillon, "Revisiting Out-of-SSA Translation for Correctness,
//!   Code Quality, and Efficiency", CGO 2009, §II-A; after Briggs, Cooper,
//!   Harvey and Simpson, SP&E 1998): the swap problem (two loop-carried
//!   values exchanged), longer rotations, the lost-copy problem (a loop whose
//!   back edge is a conditional branch, with the value from before the back
//!   edge used after the loop), a conditional branch on a value that also
//!   flows into a phi of its successor (their Fig. 1), one value copied into
//!   several phis (fan-out), and critical edges;
//! - high register pressure: a dozen or more values live at once across a
//!   loop and a branch, so that an allocator with few registers must spill,
//!   phi operands included.
//!
//! [`patterns`] recognises these situations on the SSA form, and [`stats`]
//! measures how often each program has them (`ssaref gen --stats`).
//!
//! # Swarm testing
//!
//! Groce, Zhang, Eide, Chen and Regehr, "Swarm Testing" (ISSTA 2012): a
//! generator that puts every feature in every program explores less than
//! one whose programs each leave out a random subset of the features, since
//! some bugs need a feature to be absent (a loop without `break`, a program
//! without stores) or another to be frequent. With [`GenConfig::swarm`] on
//! (the default), each program keeps each enabled feature with probability
//! 1/2.
//!
//! # Termination and defined behaviour by construction
//!
//! Every loop is bounded by one hidden counter, the variable [`BUDGET_VAR`],
//! set once at the start of `main`. Every `while` whose body can reach its
//! end tests it (`budget > 0 && cond`, or `if (budget < 1) { break; }` at
//! the top of its body) and decrements it at the top of the body, and every
//! `goto` to a label before it is guarded the same way: `if (budget > 0) {
//! budget = budget - 1; goto L; }`. (The `while` of the lost-copy shape
//! always leaves by `goto` or `break`, so it closes no cycle by itself.)
//! Every cycle of the control-flow graph has a backward edge in text order
//! (a `while` back edge, a `continue`, or a backward `goto`), and each is
//! followed by a test and a decrement, so no run takes more than
//! `budget + 1` trips round a cycle, and between two trips it runs at most
//! about twice the program's length. The budget is sized from the program's
//! static cost so that a run stays far below [`GenConfig::step_target`]
//! steps. Gotos into unreachable cycles are the one exception: they are not
//! guarded, and can only run after a shrinker made their code reachable (the
//! run then ends out of fuel, which the differential check calls
//! inconclusive).
//!
//! Traps are kept, at a controlled rate: `/` and `%` get a divisor that
//! cannot be 0 or -1 (`(e & 15) + 1`, or a literal from 2 to 9), except in
//! the [`GenConfig::trap_percent`] percent of programs that may trap, where
//! some divisors are arbitrary, 0 or -1.
//!
//! # Recursion
//!
//! The generator recurses once per nesting level of the program it builds,
//! which [`GenConfig::max_nesting`] bounds, and once per expression level,
//! which [`GenConfig::max_expr_depth`] bounds (far below
//! [`ast::MAX_EXPR_DEPTH`]).

pub mod patterns;
pub mod shrink;
pub mod stats;

use crate::ast::{self, BinOp, Block, Expr, Function, Program, Stmt, UnOp};
use crate::construction::braun::BraunOptions;
pub use crate::frontend::case_file::TestCase;
use crate::pipeline::Verdict;
use arbitrary::{Arbitrary, Unstructured};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fmt;

/// The hidden variable that bounds every loop (see the module comment).
pub const BUDGET_VAR: &str = "budget";

/// The hidden variable that collects values when `out` is left out, so
/// that they stay used.
pub const ACC_VAR: &str = "acc";

/// A source of choices for the generator.
///
/// Every choice the generator makes goes through [`Entropy::below`] and
/// [`Entropy::bits`]. A finite source that is used up answers 0, and the
/// provided methods map 0 to the simplest option (no, the lower bound, the
/// first option), so every source yields a valid program.
pub trait Entropy {
    /// A number in `0..n`; 0 when `n <= 1` or when the source is used up.
    fn below(&mut self, n: u64) -> u64;

    /// 64 bits; 0 when the source is used up.
    fn bits(&mut self) -> u64;

    /// True with the given probability in percent. A used-up source says no
    /// (unless `percent >= 100`).
    fn chance(&mut self, percent: u64) -> bool {
        percent >= 100 || self.below(100) >= 100 - percent
    }

    /// A number in `lo..=hi` (`lo` when the source is used up).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            lo + self.below(hi - lo + 1)
        }
    }

    /// An index into `weights`, drawn in proportion to them; the first
    /// non-zero weight when the source is used up. All weights 0 gives 0.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total == 0 {
            return 0;
        }
        let mut r = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if r < u64::from(w) {
                return i;
            }
            r -= u64::from(w);
        }
        weights.len() - 1
    }
}

impl Entropy for SmallRng {
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            0
        } else {
            self.gen_range(0..n)
        }
    }

    fn bits(&mut self) -> u64 {
        self.gen()
    }
}

impl Entropy for Unstructured<'_> {
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            0
        } else {
            self.int_in_range(0..=n - 1).unwrap_or(0)
        }
    }

    fn bits(&mut self) -> u64 {
        u64::arbitrary(self).unwrap_or(0)
    }
}

/// A shape the generator can put in a program. Each has a weight in
/// [`GenConfig`]; 0 turns it off.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Feature {
    /// `x = y;`, which copy propagation turns into a second name for a value.
    Copies,
    /// `mem[a] = v;` statements and `mem[a]` loads.
    Mem,
    /// `out e;` statements.
    Out,
    /// `if` statements.
    If,
    /// An `else` part; its weight is the percentage of `if`s that get one.
    Else,
    /// `while` loops.
    While,
    /// `break;` (usually under an `if`).
    Break,
    /// `continue;` (usually under an `if`).
    Continue,
    /// `return e;` before the end (usually under an `if`).
    Return,
    /// A bare `{ .. }` block.
    NestedBlock,
    /// `&&` and `||` in expressions and conditions.
    Logical,
    /// `/` and `%`; whether they may trap is [`GenConfig::trap_percent`].
    Trapping,
    /// Forward `goto`s, `goto`s out of loops, and single-entry `goto` loops.
    Goto,
    /// A cycle of labels with two entries (irreducible).
    Irreducible,
    /// A `goto` into the body of a `while` (a second loop entry).
    GotoIntoLoop,
    /// Code after `return`, `goto`, `break` or `continue`.
    UnreachableCode,
    /// A cycle that no path from the entry reaches.
    UnreachableCycle,
    /// Two loop-carried values exchanged (the swap problem).
    Swap,
    /// A loop closed by a conditional branch whose pre-back-edge value is
    /// used after the loop (the lost-copy problem).
    LostCopy,
    /// `w = v; if (u) { w = u; }`: the branch on `u` and the phi merging `u`
    /// (Boissinot et al., Fig. 1).
    BranchUse,
    /// Three or more loop-carried values rotated.
    Rotation,
    /// One value assigned to several variables that meet in phis.
    FanOut,
    /// Many values live at once across a loop and a branch.
    Pressure,
}

impl Feature {
    /// Every feature, in declaration order.
    pub const ALL: [Feature; 23] = [
        Feature::Copies,
        Feature::Mem,
        Feature::Out,
        Feature::If,
        Feature::Else,
        Feature::While,
        Feature::Break,
        Feature::Continue,
        Feature::Return,
        Feature::NestedBlock,
        Feature::Logical,
        Feature::Trapping,
        Feature::Goto,
        Feature::Irreducible,
        Feature::GotoIntoLoop,
        Feature::UnreachableCode,
        Feature::UnreachableCycle,
        Feature::Swap,
        Feature::LostCopy,
        Feature::BranchUse,
        Feature::Rotation,
        Feature::FanOut,
        Feature::Pressure,
    ];

    /// Number of features.
    pub const COUNT: usize = Feature::ALL.len();

    /// A short lower-case name, e.g. `lost-copy`.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Copies => "copies",
            Feature::Mem => "mem",
            Feature::Out => "out",
            Feature::If => "if",
            Feature::Else => "else",
            Feature::While => "while",
            Feature::Break => "break",
            Feature::Continue => "continue",
            Feature::Return => "return",
            Feature::NestedBlock => "block",
            Feature::Logical => "logical",
            Feature::Trapping => "trapping",
            Feature::Goto => "goto",
            Feature::Irreducible => "irreducible",
            Feature::GotoIntoLoop => "goto-into-loop",
            Feature::UnreachableCode => "unreachable-code",
            Feature::UnreachableCycle => "unreachable-cycle",
            Feature::Swap => "swap",
            Feature::LostCopy => "lost-copy",
            Feature::BranchUse => "branch-use",
            Feature::Rotation => "rotation",
            Feature::FanOut => "fan-out",
            Feature::Pressure => "pressure",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The knobs of the generator. `Default` is [`Shape::Swarm`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GenConfig {
    /// Roughly how many statements `main` gets (nested ones included).
    pub size: usize,
    /// How deep statements nest (blocks inside blocks).
    pub max_nesting: usize,
    /// How deep an expression tree grows before the operands of a safe
    /// divisor (at most 2 more).
    pub max_expr_depth: usize,
    /// The most parameters `main` gets (at least 0).
    pub max_params: usize,
    /// Ordinary variables (`v0`, `v1`, ...) that statements assign.
    pub pool_vars: usize,
    /// The most trips round loops a run may take.
    pub budget: u64,
    /// The number of interpreter steps a run should stay below; the budget
    /// of a program is lowered so that `budget * 2 * cost` stays below this,
    /// where `cost` is its static size in statements and expression nodes.
    pub step_target: u64,
    /// Percentage of programs whose divisions may trap (in those, the
    /// divisions are on whatever swarm testing says). About a third of them
    /// do trap.
    pub trap_percent: u64,
    /// The most values the register-pressure shape keeps live (at least 6).
    pub pressure_values: usize,
    /// The longest rotation (at least 3).
    pub max_rotation: usize,
    /// Swarm testing: each program keeps each enabled feature with
    /// probability 1/2 (Groce et al., ISSTA 2012).
    pub swarm: bool,
    /// The weight of each feature (see [`GenConfig::weight`]).
    pub weights: Weights,
}

/// A weight per [`Feature`], indexed by the feature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Weights([u32; Feature::COUNT]);

impl std::ops::Index<Feature> for Weights {
    type Output = u32;
    fn index(&self, f: Feature) -> &u32 {
        &self.0[f.index()]
    }
}

impl std::ops::IndexMut<Feature> for Weights {
    fn index_mut(&mut self, f: Feature) -> &mut u32 {
        &mut self.0[f.index()]
    }
}

impl Default for GenConfig {
    fn default() -> Self {
        Shape::Swarm.config()
    }
}

impl GenConfig {
    /// The weight of a feature: for statement kinds and shapes, its relative
    /// frequency among the statements the generator can pick at a given
    /// point (a plain assignment has weight 30); for [`Feature::Else`], the
    /// percentage of `if`s with an `else`; for [`Feature::Logical`],
    /// [`Feature::Trapping`] and the loads of [`Feature::Mem`], the relative
    /// frequency among inner expression nodes (other binary operators have
    /// weight 20). 0 turns the feature off.
    pub fn weight(&self, f: Feature) -> u32 {
        self.weights[f]
    }

    /// Sets the weight of a feature (see [`GenConfig::weight`]).
    pub fn set_weight(&mut self, f: Feature, w: u32) {
        self.weights[f] = w;
    }

    /// This configuration with one weight changed.
    pub fn with(mut self, f: Feature, w: u32) -> Self {
        self.set_weight(f, w);
        self
    }

    /// This configuration with every feature not in `keep` turned off.
    pub fn only(mut self, keep: &[Feature]) -> Self {
        for f in Feature::ALL {
            if !keep.contains(&f) {
                self.set_weight(f, 0);
            }
        }
        self
    }

    /// The default weights (see [`GenConfig::weight`]).
    fn default_weights() -> Weights {
        let mut w = Weights([0; Feature::COUNT]);
        for f in Feature::ALL {
            w[f] = match f {
                Feature::Copies => 8,
                Feature::Mem => 5,
                Feature::Out => 6,
                Feature::If => 10,
                Feature::Else => 50,
                Feature::While => 6,
                Feature::Break => 3,
                Feature::Continue => 3,
                Feature::Return => 2,
                Feature::NestedBlock => 2,
                Feature::Logical => 3,
                Feature::Trapping => 3,
                Feature::Goto => 3,
                Feature::Irreducible => 3,
                Feature::GotoIntoLoop => 2,
                Feature::UnreachableCode => 2,
                Feature::UnreachableCycle => 2,
                Feature::Swap => 3,
                Feature::LostCopy => 3,
                Feature::BranchUse => 3,
                Feature::Rotation => 2,
                Feature::FanOut => 3,
                Feature::Pressure => 1,
            };
        }
        w
    }
}

/// Named configurations, so that a test or a command line can ask for a
/// kind of program.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    /// Every feature enabled, swarm testing on: the default.
    Swarm,
    /// Every feature in every program (swarm testing off).
    Everything,
    /// Structured code only: no `goto`, no label.
    Structured,
    /// Mostly labels and `goto`: irreducible loops, unreachable cycles.
    Gotos,
    /// Mostly the out-of-SSA situations (swap, rotation, lost copy,
    /// branch-use, fan-out).
    Patterns,
    /// Mostly register pressure, with bigger programs.
    Pressure,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 6] =
        [Shape::Swarm, Shape::Everything, Shape::Structured, Shape::Gotos, Shape::Patterns, Shape::Pressure];

    /// The name `ssaref gen --shape` takes.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Swarm => "swarm",
            Shape::Everything => "everything",
            Shape::Structured => "structured",
            Shape::Gotos => "gotos",
            Shape::Patterns => "patterns",
            Shape::Pressure => "pressure",
        }
    }

    /// The shape of a name, if any.
    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The configuration of this shape.
    pub fn config(self) -> GenConfig {
        let base = GenConfig {
            size: 36,
            max_nesting: 4,
            max_expr_depth: 4,
            max_params: 3,
            pool_vars: 6,
            budget: 200,
            step_target: 200_000,
            trap_percent: 12,
            pressure_values: 16,
            max_rotation: 5,
            swarm: true,
            weights: GenConfig::default_weights(),
        };
        match self {
            Shape::Swarm => base,
            Shape::Everything => GenConfig { swarm: false, ..base },
            Shape::Structured => base
                .with(Feature::Goto, 0)
                .with(Feature::Irreducible, 0)
                .with(Feature::GotoIntoLoop, 0)
                .with(Feature::UnreachableCycle, 0)
                .with(Feature::LostCopy, 0),
            Shape::Gotos => base
                .with(Feature::Goto, 10)
                .with(Feature::Irreducible, 10)
                .with(Feature::GotoIntoLoop, 8)
                .with(Feature::UnreachableCycle, 6)
                .with(Feature::UnreachableCode, 6),
            Shape::Patterns => base
                .with(Feature::Swap, 10)
                .with(Feature::Rotation, 8)
                .with(Feature::LostCopy, 10)
                .with(Feature::BranchUse, 10)
                .with(Feature::FanOut, 10),
            Shape::Pressure => GenConfig { size: 60, pressure_values: 28, ..base.with(Feature::Pressure, 10) },
        }
    }
}

impl TestCase {
    /// The program of a seed.
    pub fn from_seed(seed: u64, config: &GenConfig) -> TestCase {
        let mut rng = SmallRng::seed_from_u64(seed);
        TestCase::from_entropy(&mut rng, config, format!("seed {seed}"))
    }

    /// The program of a byte string (for fuzzers). Bytes that run out read
    /// as zeros.
    pub fn from_bytes(u: &mut Unstructured<'_>, config: &GenConfig) -> TestCase {
        TestCase::from_entropy(u, config, "bytes".to_string())
    }

    /// The program of any source of choices.
    pub fn from_entropy<E: Entropy>(e: &mut E, config: &GenConfig, origin: String) -> TestCase {
        let (program, args) = Generator::new(e, config).program();
        debug_assert!(program.validate().is_ok(), "generated an invalid program: {:?}", program.validate());
        TestCase { program, args, origin }
    }

    /// The program as `.src` text, preceded by comment lines giving its
    /// origin and its arguments in the `// args:` form of `tests/cases/`.
    pub fn to_source(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        format!(
            "// generated by ssaref ({})\n// args:{}{}\n{}",
            self.origin,
            if args.is_empty() { "" } else { " " },
            args.join(" "),
            crate::frontend::ast_print::print_program(&self.program)
        )
    }

    /// Number of statements of the program, nested ones included.
    pub fn statement_count(&self) -> usize {
        statement_count(&self.program)
    }
}

impl fmt::Debug for TestCase {
    /// The program as `.src` text with its arguments, so that a failing
    /// property prints a program that `ssaref run` accepts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.to_source())
    }
}

impl<'a> Arbitrary<'a> for TestCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(TestCase::from_bytes(u, &GenConfig::default()))
    }
}

/// Number of statements of a program, nested ones included.
pub fn statement_count(p: &Program) -> usize {
    let mut n = 0;
    for f in &p.functions {
        ast::walk_stmts(&f.body, |_, _| n += 1);
    }
    n
}

/// The construction variants the property suites and the `construct` fuzz
/// target compare with the interpreter: the phi and marker variants, with
/// and without Algorithm 5, with no on-the-fly optimization, with each one
/// alone, with all of them and with all but each one, and without the
/// witness cache.
pub fn construction_variants() -> Vec<BraunOptions> {
    let plain = BraunOptions::plain();
    let all = BraunOptions::all_on();
    vec![
        plain,
        BraunOptions { marker: true, ..plain },
        all,
        BraunOptions { marker: true, ..all },
        BraunOptions { remove_redundant_sccs: false, ..plain },
        BraunOptions { remove_redundant_sccs: false, marker: true, ..plain },
        BraunOptions { remove_redundant_sccs: false, ..all },
        BraunOptions { witness_cache: false, ..all },
        BraunOptions { fold_constants: true, ..plain },
        BraunOptions { simplify_arithmetic: true, ..plain },
        BraunOptions { cse: true, ..plain },
        BraunOptions { copy_propagation: true, ..plain },
        BraunOptions { fold_constants: false, ..all },
        BraunOptions { simplify_arithmetic: false, ..all },
        BraunOptions { cse: false, ..all },
        BraunOptions { copy_propagation: false, ..all },
    ]
}

/// A readable account of a verdict that is not ok, for fuzz targets and
/// tests: the program with its arguments, then what went wrong.
pub fn describe_failure(tc: &TestCase, verdict: &Verdict) -> String {
    let what = match verdict {
        Verdict::Agree { .. } | Verdict::Inconclusive => "no failure".to_string(),
        Verdict::Diverge { stage, expected, got } => {
            let got = match got {
                Ok(o) => o.render_full(),
                Err(e) => format!("error: {e}\n"),
            };
            format!("stage {stage} diverges from the source\n--- source\n{}--- {stage}\n{got}", expected.render_full())
        }
        Verdict::CheckFailed(e) => format!("check failed: {e}\n"),
        Verdict::SourceError(e) => format!("the oracle cannot run the source: {e}\n"),
        Verdict::Panic(m) => format!("ssaref panicked: {m}\n"),
    };
    format!("{}\n{what}", tc.to_source())
}

// ----- the generator core -----

/// Which kind of statement to generate next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Assign,
    Copy,
    Store,
    Out,
    If,
    While,
    Break,
    Continue,
    Return,
    Block,
    Goto,
    Irreducible,
    GotoIntoLoop,
    UnreachableCode,
    UnreachableCycle,
    Swap,
    LostCopy,
    BranchUse,
    Rotation,
    FanOut,
    Pressure,
}

/// Weight of a plain assignment among the statement kinds.
const ASSIGN_WEIGHT: u32 = 30;
/// Weight of an arithmetic, bitwise or comparison node among the inner
/// expression nodes.
const BINARY_WEIGHT: u32 = 20;
/// Weight of a unary node among the inner expression nodes.
const UNARY_WEIGHT: u32 = 3;
/// The longest block the generator makes at once.
const MAX_BLOCK_LEN: u64 = 4;
/// How many template variables later statements may read.
const MAX_READABLE_EXTRA: usize = 12;

/// Binary operators that cannot trap.
const SAFE_BINOPS: [BinOp; 14] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
];

/// The comparison operators.
const COMPARISONS: [BinOp; 6] = [BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge];

/// Literals that often find edge cases.
const INTERESTING: [i64; 16] = [0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 4095, 4096, 1 << 31, 1 << 32, i64::MAX];

/// Builders for expressions and statements.
fn lit(v: i64) -> Expr {
    if v >= 0 {
        Expr::Lit(v)
    } else if v == i64::MIN {
        bin(BinOp::Sub, Expr::Unary(UnOp::Neg, Box::new(Expr::Lit(i64::MAX))), Expr::Lit(1))
    } else {
        Expr::Unary(UnOp::Neg, Box::new(Expr::Lit(-v)))
    }
}

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn and(a: Expr, b: Expr) -> Expr {
    Expr::LogicalAnd(Box::new(a), Box::new(b))
}

fn assign(name: &str, e: Expr) -> Stmt {
    Stmt::Assign(name.to_string(), e)
}

/// `budget = budget - 1;`
fn decrement() -> Stmt {
    assign(BUDGET_VAR, bin(BinOp::Sub, var(BUDGET_VAR), Expr::Lit(1)))
}

/// `budget > 0`
fn budget_left() -> Expr {
    bin(BinOp::Gt, var(BUDGET_VAR), Expr::Lit(0))
}

/// `if (budget > 0 [&& extra]) { budget = budget - 1; goto label; }`: a
/// backward `goto` that the budget bounds.
fn guarded_goto(label: &str, extra: Option<Expr>) -> Stmt {
    let cond = match extra {
        Some(c) => and(budget_left(), c),
        None => budget_left(),
    };
    Stmt::If(cond, Block::new(vec![decrement(), Stmt::Goto(label.to_string())]), None)
}

/// The generator: the choices, the configuration, and what it has made so
/// far.
struct Generator<'a, E: Entropy> {
    e: &'a mut E,
    cfg: &'a GenConfig,
    /// The features this program uses (after swarm selection).
    on: [bool; Feature::COUNT],
    params: Vec<String>,
    /// Variables ordinary statements assign.
    pool: Vec<String>,
    /// Variables of shapes that later statements may read (not assign).
    extra: Vec<String>,
    /// Statements still to generate.
    remaining: usize,
    /// Statements generated so far.
    produced: usize,
    next_label: usize,
    next_var: usize,
    /// Number of enclosing `while`s of the statement being generated.
    loop_depth: usize,
    /// Greater than 0 while filling the inside of a shape, where a bare
    /// `return`, `break` or `continue` would cut the shape.
    in_shape: usize,
    /// This program's divisions may trap.
    traps: bool,
    /// `acc` collects values (when `out` is off).
    acc_used: bool,
}

impl<'a, E: Entropy> Generator<'a, E> {
    fn new(e: &'a mut E, cfg: &'a GenConfig) -> Self {
        // Swarm testing: a coin per feature and program, all from one draw
        // (so that a fuzzer's first 8 bytes choose the subset).
        let coins = if cfg.swarm { e.bits() } else { u64::MAX };
        let mut on = [false; Feature::COUNT];
        for f in Feature::ALL {
            on[f.index()] = cfg.weight(f) > 0 && coins >> f.index() & 1 == 1;
        }
        // Whether this program may trap is drawn apart from the swarm
        // coins, so that the trap rate does not depend on swarm testing.
        let traps = cfg.weight(Feature::Trapping) > 0 && e.chance(cfg.trap_percent);
        if traps {
            on[Feature::Trapping.index()] = true;
        }
        Generator {
            e,
            cfg,
            on,
            params: Vec::new(),
            pool: (0..cfg.pool_vars.max(1)).map(|i| format!("v{i}")).collect(),
            extra: Vec::new(),
            remaining: cfg.size,
            produced: 0,
            next_label: 0,
            next_var: 0,
            loop_depth: 0,
            in_shape: 0,
            traps,
            acc_used: false,
        }
    }

    fn on(&self, f: Feature) -> bool {
        self.on[f.index()]
    }

    /// The weight of `f` for this program: 0 when swarm left it out.
    fn w(&self, f: Feature) -> u32 {
        if self.on(f) {
            self.cfg.weight(f)
        } else {
            0
        }
    }

    fn fresh_label(&mut self) -> String {
        let l = format!("L{}", self.next_label);
        self.next_label += 1;
        l
    }

    /// A fresh variable for a shape; later statements may read it.
    fn fresh_var(&mut self) -> String {
        let v = format!("t{}", self.next_var);
        self.next_var += 1;
        self.extra.push(v.clone());
        if self.extra.len() > MAX_READABLE_EXTRA {
            self.extra.remove(0);
        }
        v
    }

    fn pool_var(&mut self) -> String {
        let i = self.e.below(self.pool.len() as u64) as usize;
        self.pool[i].clone()
    }

    /// Any variable statements may read: a parameter, a pool variable, or a
    /// variable of an earlier shape.
    fn readable_var(&mut self) -> String {
        let n = self.params.len() + self.pool.len() + self.extra.len();
        let i = self.e.below(n as u64) as usize;
        if i < self.params.len() {
            self.params[i].clone()
        } else if i < self.params.len() + self.pool.len() {
            self.pool[i - self.params.len()].clone()
        } else {
            self.extra[i - self.params.len() - self.pool.len()].clone()
        }
    }

    // ----- the program -----

    fn program(mut self) -> (Program, Vec<i64>) {
        let nparams = self.e.below(self.cfg.max_params as u64 + 1) as usize;
        self.params = (0..nparams).map(|i| format!("p{i}")).collect();
        let mut body = Vec::new();
        // Give some pool variables a first value, from the parameters when
        // there are some.
        let inits = self.e.range(1, self.pool.len() as u64) as usize;
        for i in 0..inits {
            let name = self.pool[i].clone();
            let e = self.expr(1);
            body.push(Stmt::Var(name, e));
        }
        self.remaining = self.remaining.saturating_sub(inits);
        while self.remaining > 0 {
            let (stmts, _) = self.stmt(0);
            body.extend(stmts);
        }
        // Keep some values used at the end.
        if self.on(Feature::Out) {
            for _ in 0..self.e.range(1, 2) {
                let v = self.readable_var();
                body.push(Stmt::Out(var(&v)));
            }
        }
        let mut ret = self.expr(1);
        if self.acc_used {
            ret = bin(BinOp::Xor, ret, var(ACC_VAR));
        }
        body.push(Stmt::Return(ret));
        // The budget: as large as allowed, and small enough that a run stays
        // below the step target.
        let mut program = Program {
            functions: vec![Function {
                name: "main".to_string(),
                params: self.params.clone(),
                body: Block::new(Vec::new()),
            }],
        };
        let cost = static_cost(&body).max(1);
        let budget = (self.cfg.step_target / (2 * cost)).clamp(2, self.cfg.budget.max(2));
        body.insert(0, Stmt::Var(BUDGET_VAR.to_string(), Expr::Lit(budget as i64)));
        program.functions[0].body = Block::new(body);
        let args = (0..nparams).map(|_| self.arg()).collect();
        (program, args)
    }

    fn arg(&mut self) -> i64 {
        match self.e.below(8) {
            0..=3 => self.e.range(0, 24) as i64 - 4,
            4 | 5 => {
                const EDGES: [i64; 8] = [0, 1, -1, i64::MIN, i64::MAX, 4095, 4096, 1 << 32];
                EDGES[self.e.below(EDGES.len() as u64) as usize]
            }
            _ => self.e.bits() as i64,
        }
    }

    // ----- statements -----

    /// One statement or shape, at nesting `depth`. Also says whether it ends
    /// the block (a bare `break`, `continue` or `return`).
    fn stmt(&mut self, depth: usize) -> (Vec<Stmt>, bool) {
        let before = self.produced;
        let (stmts, ends) = self.stmt_inner(depth);
        // Charge the statements the shape made itself (those of nested
        // blocks were charged when they were made).
        let nested = self.produced - before;
        let total = statements_in(&stmts);
        let own = total.saturating_sub(nested).max(1);
        self.remaining = self.remaining.saturating_sub(own);
        self.produced += own;
        (stmts, ends)
    }

    fn stmt_inner(&mut self, depth: usize) -> (Vec<Stmt>, bool) {
        // Once the size is reached, only simple statements, so that the
        // blocks still open end soon.
        let nest = depth < self.cfg.max_nesting && self.remaining > 0;
        let in_loop = self.loop_depth > 0;
        let mut kinds: Vec<(Kind, u32)> = vec![
            (Kind::Assign, ASSIGN_WEIGHT),
            (Kind::Copy, self.w(Feature::Copies)),
            (Kind::Store, self.w(Feature::Mem)),
            (Kind::Out, self.w(Feature::Out)),
            (Kind::Return, self.w(Feature::Return)),
        ];
        if in_loop {
            kinds.push((Kind::Break, self.w(Feature::Break)));
            kinds.push((Kind::Continue, self.w(Feature::Continue)));
        }
        if nest {
            kinds.extend([
                (Kind::If, self.w(Feature::If)),
                (Kind::While, self.w(Feature::While)),
                (Kind::Block, self.w(Feature::NestedBlock)),
                (Kind::Goto, self.w(Feature::Goto)),
                (Kind::Irreducible, self.w(Feature::Irreducible)),
                (Kind::GotoIntoLoop, self.w(Feature::GotoIntoLoop)),
                (Kind::UnreachableCode, self.w(Feature::UnreachableCode)),
                (Kind::UnreachableCycle, self.w(Feature::UnreachableCycle)),
                (Kind::Swap, self.w(Feature::Swap)),
                (Kind::LostCopy, self.w(Feature::LostCopy)),
                (Kind::BranchUse, self.w(Feature::BranchUse)),
                (Kind::Rotation, self.w(Feature::Rotation)),
                (Kind::FanOut, self.w(Feature::FanOut)),
                (Kind::Pressure, self.w(Feature::Pressure)),
            ]);
        }
        let weights: Vec<u32> = kinds.iter().map(|k| k.1).collect();
        let kind = kinds[self.e.weighted(&weights)].0;
        let one = |s: Stmt| (vec![s], false);
        match kind {
            Kind::Assign => {
                let x = self.pool_var();
                let e = self.expr(0);
                one(if self.e.chance(25) { Stmt::Var(x, e) } else { Stmt::Assign(x, e) })
            }
            Kind::Copy => {
                let x = self.pool_var();
                let y = self.readable_var();
                one(assign(&x, var(&y)))
            }
            Kind::Store => {
                let a = self.addr();
                let v = self.expr(0);
                one(Stmt::Store(a, v))
            }
            Kind::Out => {
                let e = self.expr(0);
                one(Stmt::Out(e))
            }
            Kind::Return => {
                let e = self.expr(1);
                self.maybe_bare(depth, Stmt::Return(e))
            }
            Kind::Break => self.maybe_bare(depth, Stmt::Break),
            Kind::Continue => self.maybe_bare(depth, Stmt::Continue),
            Kind::If => one(self.if_stmt(depth)),
            Kind::While => (self.while_stmt(depth), false),
            Kind::Block => {
                let b = self.block(depth + 1, 3);
                one(Stmt::Block(Block::new(b)))
            }
            Kind::Goto => (self.goto_shape(depth), false),
            Kind::Irreducible => (self.irreducible(depth), false),
            Kind::GotoIntoLoop => (self.goto_into_loop(depth), false),
            Kind::UnreachableCode => (self.unreachable_code(depth), false),
            Kind::UnreachableCycle => (self.unreachable_cycle(depth), false),
            Kind::Swap => (self.rotation(depth, 2), false),
            Kind::Rotation => {
                let k = self.e.range(3, self.cfg.max_rotation.max(3) as u64) as usize;
                (self.rotation(depth, k), false)
            }
            Kind::LostCopy => (self.lost_copy(depth), false),
            Kind::BranchUse => (self.branch_use(depth), false),
            Kind::FanOut => (self.fan_out(depth), false),
            Kind::Pressure => (self.pressure(depth), false),
        }
    }

    /// `stmt` bare (ending the block) or under an `if` on a condition that
    /// does not fold. At the top level of `main` and inside a shape it is
    /// always under an `if`.
    fn maybe_bare(&mut self, depth: usize, stmt: Stmt) -> (Vec<Stmt>, bool) {
        if depth > 0 && self.in_shape == 0 && self.e.chance(25) {
            (vec![stmt], true)
        } else {
            let c = self.nonconst_cond();
            (vec![Stmt::If(c, Block::new(vec![stmt]), None)], false)
        }
    }

    /// A block of 1 to `max_len` statements at nesting `depth`. After a
    /// bare terminator it stops, or goes on with unreachable code.
    fn block(&mut self, depth: usize, max_len: u64) -> Vec<Stmt> {
        let len = self.e.range(1, max_len);
        let mut out = Vec::new();
        for _ in 0..len {
            if self.remaining == 0 && !out.is_empty() {
                break;
            }
            let (stmts, ends) = self.stmt(depth);
            out.extend(stmts);
            if ends && !(self.on(Feature::UnreachableCode) && self.e.chance(30)) {
                break;
            }
        }
        out
    }

    /// A block inside a shape: no bare terminator at its top level, so that
    /// the statements of the shape after it stay reachable.
    fn filler(&mut self, depth: usize) -> Vec<Stmt> {
        self.in_shape += 1;
        let b = if self.e.chance(25) { Vec::new() } else { self.block(depth + 1, 3) };
        self.in_shape -= 1;
        b
    }

    fn if_stmt(&mut self, depth: usize) -> Stmt {
        let c = self.cond();
        let then = self.block(depth + 1, MAX_BLOCK_LEN);
        let els = if self.e.chance(u64::from(self.w(Feature::Else))) {
            if depth + 1 < self.cfg.max_nesting && self.e.chance(25) {
                // `else if`.
                Some(Block::new(vec![self.if_stmt(depth + 1)]))
            } else {
                Some(Block::new(self.block(depth + 1, MAX_BLOCK_LEN)))
            }
        } else {
            None
        };
        Stmt::If(c, Block::new(then), els)
    }

    /// A `while` bounded by the budget, often counting a pool variable.
    fn while_stmt(&mut self, depth: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        let counter = self.e.chance(50).then(|| self.pool_var());
        let cond = match &counter {
            Some(i) => {
                out.push(assign(i, Expr::Lit(0)));
                let bound = self.e.range(1, 8) as i64;
                bin(BinOp::Lt, var(i), Expr::Lit(bound))
            }
            None => self.cond(),
        };
        self.loop_depth += 1;
        let mut body = self.block(depth + 1, MAX_BLOCK_LEN + 1);
        self.loop_depth -= 1;
        if let Some(i) = &counter {
            body.push(assign(i, bin(BinOp::Add, var(i), Expr::Lit(1))));
        }
        out.push(self.guarded_while(cond, body));
        out
    }

    /// `while (cond) { body }` with the budget test and decrement added.
    fn guarded_while(&mut self, cond: Expr, body: Vec<Stmt>) -> Stmt {
        let mut full = Vec::with_capacity(body.len() + 2);
        let cond = match self.e.below(5) {
            0..=2 => {
                full.push(decrement());
                and(budget_left(), cond)
            }
            3 => {
                full.push(decrement());
                and(cond, budget_left())
            }
            _ => {
                let out = bin(BinOp::Lt, var(BUDGET_VAR), Expr::Lit(1));
                full.push(Stmt::If(out, Block::new(vec![Stmt::Break]), None));
                full.push(decrement());
                cond
            }
        };
        full.extend(body);
        Stmt::While(cond, Block::new(full))
    }

    /// A loop around `body` that the budget bounds: a `while` (with
    /// `cond`), or, when `goto` is on, a label and a guarded backward
    /// `goto`. The body is generated inside the loop by `make`.
    fn some_loop(&mut self, depth: usize, cond: Expr, make: impl FnOnce(&mut Self, usize) -> Vec<Stmt>) -> Vec<Stmt> {
        if !self.on(Feature::Goto) || self.e.chance(70) {
            self.loop_depth += 1;
            let body = make(self, depth);
            self.loop_depth -= 1;
            vec![self.guarded_while(cond, body)]
        } else {
            let l = self.fresh_label();
            let mut out = vec![Stmt::Label(l.clone())];
            out.extend(make(self, depth));
            out.push(guarded_goto(&l, Some(cond)));
            out
        }
    }

    /// A statement that keeps `e` used: `out e;`, or `acc = acc ^ e;` when
    /// `out` is off.
    fn use_value(&mut self, e: Expr) -> Stmt {
        if self.on(Feature::Out) {
            Stmt::Out(e)
        } else {
            self.acc_used = true;
            assign(ACC_VAR, bin(BinOp::Xor, var(ACC_VAR), e))
        }
    }

    // ----- control-flow shapes -----

    /// Forward `goto` over some code, `goto` out of a loop, or a
    /// single-entry loop closed by a backward `goto`.
    fn goto_shape(&mut self, depth: usize) -> Vec<Stmt> {
        let l = self.fresh_label();
        match self.e.below(3) {
            0 => {
                let c = self.cond();
                let mut out = vec![Stmt::If(c, Block::new(vec![Stmt::Goto(l.clone())]), None)];
                out.extend(self.filler(depth));
                out.push(Stmt::Label(l));
                out
            }
            1 => {
                // Out of a loop, past its exit.
                let c = self.nonconst_cond();
                let cond = self.cond();
                let out_of_loop = Stmt::If(c, Block::new(vec![Stmt::Goto(l.clone())]), None);
                let mut out = self.some_loop(depth, cond, |g, d| {
                    let mut b = g.filler(d);
                    b.push(out_of_loop);
                    b.extend(g.filler(d));
                    b
                });
                out.push(Stmt::Label(l));
                out
            }
            _ => {
                let mut out = vec![Stmt::Label(l.clone())];
                out.extend(self.filler(depth));
                let c = self.cond();
                out.push(guarded_goto(&l, Some(c)));
                out
            }
        }
    }

    /// A cycle with two entries: `if (c) goto MID; TOP: A; MID: B; if
    /// (budget..) goto TOP;`. Neither label dominates the other.
    fn irreducible(&mut self, depth: usize) -> Vec<Stmt> {
        let top = self.fresh_label();
        let mid = self.fresh_label();
        let c = self.nonconst_cond();
        let mut out = vec![Stmt::If(c, Block::new(vec![Stmt::Goto(mid.clone())]), None), Stmt::Label(top.clone())];
        out.extend(self.filler(depth));
        out.push(Stmt::Label(mid));
        out.extend(self.filler(depth));
        let extra = self.e.chance(50).then(|| self.nonconst_cond());
        out.push(guarded_goto(&top, extra));
        out
    }

    /// `if (c) goto IN; while (..) { A; IN: B; }`: a loop with two entries.
    fn goto_into_loop(&mut self, depth: usize) -> Vec<Stmt> {
        let into = self.fresh_label();
        let c = self.nonconst_cond();
        let mut out = vec![Stmt::If(c, Block::new(vec![Stmt::Goto(into.clone())]), None)];
        let cond = self.cond();
        self.loop_depth += 1;
        let mut body = self.filler(depth);
        body.push(Stmt::Label(into));
        body.extend(self.filler(depth));
        self.loop_depth -= 1;
        out.push(self.guarded_while(cond, body));
        out
    }

    /// Code no path reaches: after a `return` or `continue` under an `if`,
    /// or (when `goto` is on) jumped over by a `goto`.
    fn unreachable_code(&mut self, depth: usize) -> Vec<Stmt> {
        let kind = self.e.below(3);
        if self.on(Feature::Goto) && (kind == 0 || (kind == 1 && self.loop_depth == 0)) {
            let skip = self.fresh_label();
            let mut out = vec![Stmt::Goto(skip.clone())];
            out.extend(self.filler(depth));
            out.push(Stmt::Label(skip));
            return out;
        }
        let c = self.nonconst_cond();
        let mut then = self.filler(depth);
        then.push(if kind == 1 && self.loop_depth > 0 { Stmt::Continue } else { Stmt::Return(self.expr(1)) });
        then.extend(self.filler(depth));
        vec![Stmt::If(c, Block::new(then), None)]
    }

    /// `goto SKIP; U: A; goto U; SKIP:`: a cycle no path reaches (its
    /// `goto` is not guarded, or only by a condition).
    fn unreachable_cycle(&mut self, depth: usize) -> Vec<Stmt> {
        let skip = self.fresh_label();
        let u = self.fresh_label();
        let mut out = vec![Stmt::Goto(skip.clone()), Stmt::Label(u.clone())];
        out.extend(self.filler(depth));
        if self.e.chance(50) {
            out.push(Stmt::Goto(u));
        } else {
            let c = self.cond();
            out.push(Stmt::If(c, Block::new(vec![Stmt::Goto(u)]), None));
            out.extend(self.filler(depth));
        }
        out.push(Stmt::Label(skip));
        out
    }

    // ----- the out-of-SSA situations -----

    /// `k` fresh variables with distinct values, then a loop whose body ends
    /// by rotating them (`t = a; a = b; b = t;` for `k = 2`, the swap
    /// problem). Copy propagation makes each header phi's back-edge
    /// argument the next phi.
    fn rotation(&mut self, depth: usize, k: usize) -> Vec<Stmt> {
        let vars: Vec<String> = (0..k).map(|_| self.fresh_var()).collect();
        let tmp = self.fresh_var();
        let mut out = self.distinct_values(&vars);
        let cond = if self.e.chance(50) {
            bin(COMPARISONS[self.e.below(6) as usize], var(&vars[0]), self.expr(2))
        } else {
            self.cond()
        };
        out.extend(self.some_loop(depth, cond, |g, d| {
            let mut body = g.filler(d);
            body.push(assign(&tmp, var(&vars[0])));
            for j in 0..k - 1 {
                body.push(assign(&vars[j], var(&vars[j + 1])));
            }
            body.push(assign(&vars[k - 1], var(&tmp)));
            body
        }));
        let mut used = var(&vars[0]);
        for v in &vars[1..] {
            used = bin(BinOp::Sub, used, var(v));
        }
        out.push(self.use_value(used));
        out
    }

    /// `vars[0] = e; vars[i] = vars[0] ^ i;`: values that are distinct
    /// whatever `e` is, so that the phis over them are not redundant.
    fn distinct_values(&mut self, vars: &[String]) -> Vec<Stmt> {
        let first = self.expr(1);
        let mut out = vec![assign(&vars[0], first)];
        for (i, v) in vars.iter().enumerate().skip(1) {
            out.push(assign(v, bin(BinOp::Xor, var(&vars[0]), Expr::Lit(i as i64))));
        }
        out
    }

    /// A loop closed by a conditional branch, with the value from before the
    /// back edge used after the loop (the lost-copy problem):
    ///
    /// ```text
    /// goto IN; TOP: while (x > k) { goto OUT; IN: break; }
    /// A; y = x; x = x + s; B;
    /// if (budget > 0) { budget = budget - 1; goto TOP; }
    /// OUT: out y;
    /// ```
    ///
    /// The `while` header branches straight back to the block after the
    /// loop (the loop's real header, where `x` has its phi), and `y`, that
    /// phi, is used on the other side of the branch.
    fn lost_copy(&mut self, depth: usize) -> Vec<Stmt> {
        let x = self.fresh_var();
        let y = self.fresh_var();
        let (top, into, exit) = (self.fresh_label(), self.fresh_label(), self.fresh_label());
        let init = self.expr(1);
        let mut out = vec![assign(&x, init), Stmt::Goto(into.clone()), Stmt::Label(top.clone())];
        let limit = self.e.range(1, 40) as i64;
        let test = bin(if self.e.chance(50) { BinOp::Gt } else { BinOp::Ge }, var(&x), Expr::Lit(limit));
        out.push(Stmt::While(test, Block::new(vec![Stmt::Goto(exit.clone()), Stmt::Label(into), Stmt::Break])));
        out.extend(self.filler(depth));
        out.push(assign(&y, var(&x)));
        let step = self.e.range(1, 5) as i64;
        let next = match self.e.below(3) {
            0 => bin(BinOp::Add, var(&x), Expr::Lit(step)),
            1 => bin(BinOp::Add, bin(BinOp::Mul, var(&x), Expr::Lit(3)), Expr::Lit(step)),
            _ => bin(BinOp::Xor, var(&x), Expr::Lit(step)),
        };
        out.push(assign(&x, next));
        out.extend(self.filler(depth));
        out.push(guarded_goto(&top, None));
        out.push(Stmt::Label(exit));
        out.push(self.use_value(var(&y)));
        out
    }

    /// `u = e; w = f; if (u) { A; w = u; }` then a use of `w`: the branch
    /// reads `u`, and the phi of `w` at the join gets `u` from the
    /// then-block and `f` straight from the branching block (Boissinot et
    /// al., Fig. 1).
    fn branch_use(&mut self, depth: usize) -> Vec<Stmt> {
        let u = self.fresh_var();
        let w = self.fresh_var();
        let ue = self.nonconst();
        let we = self.expr(1);
        let mut out = vec![assign(&u, ue), assign(&w, we)];
        let cond = match self.e.below(4) {
            0 if self.on(Feature::Logical) => and(self.cond(), var(&u)),
            1 => Expr::Unary(UnOp::Not, Box::new(var(&u))),
            _ => var(&u),
        };
        let mut then = self.filler(depth);
        then.push(assign(&w, var(&u)));
        then.extend(self.filler(depth));
        out.push(Stmt::If(cond, Block::new(then), None));
        out.push(self.use_value(var(&w)));
        out
    }

    /// One value assigned to two to four variables that then meet in phis:
    /// at a loop header (the back edge brings the value to every phi) or at
    /// the join of an `if`.
    fn fan_out(&mut self, depth: usize) -> Vec<Stmt> {
        let n = self.e.range(2, 4) as usize;
        let targets: Vec<String> = (0..n).map(|_| self.fresh_var()).collect();
        let src = self.fresh_var();
        let mut out = self.distinct_values(&targets);
        let copies = |g: &mut Self, d: usize| {
            let mut b = g.filler(d);
            let e = g.expr(1);
            b.push(assign(&src, e));
            for t in &targets {
                b.push(assign(t, var(&src)));
            }
            b
        };
        if self.e.chance(50) {
            let cond = self.cond();
            out.extend(self.some_loop(depth, cond, copies));
        } else {
            let c = self.nonconst_cond();
            let then = copies(self, depth);
            let els = if self.e.chance(50) { Some(Block::new(self.filler(depth))) } else { None };
            out.push(Stmt::If(c, Block::new(then), els));
        }
        let mut used = var(&targets[0]);
        for t in &targets[1..] {
            used = bin(BinOp::Add, used, var(t));
        }
        out.push(self.use_value(used));
        out
    }

    /// Many fresh values, all updated round a loop (one of them under a
    /// branch) and all used after it, so that they are live at once.
    fn pressure(&mut self, depth: usize) -> Vec<Stmt> {
        let k = self.e.range(6, self.cfg.pressure_values.max(6) as u64) as usize;
        let vars: Vec<String> = (0..k).map(|_| self.fresh_var()).collect();
        let mut out = Vec::new();
        for (i, v) in vars.iter().enumerate() {
            let e = if i == 0 || self.e.chance(50) {
                self.expr(2)
            } else {
                bin(BinOp::Add, var(&vars[i - 1]), Expr::Lit(i as i64))
            };
            out.push(assign(v, e));
        }
        let cond = self.cond();
        out.extend(self.some_loop(depth, cond, |g, d| {
            let mut body = g.filler(d);
            for i in 0..k {
                let op = SAFE_BINOPS[g.e.below(8) as usize];
                body.push(assign(&vars[i], bin(op, var(&vars[i]), var(&vars[(i + 1) % k]))));
            }
            let c = g.nonconst_cond();
            let (a, b) = (g.e.below(k as u64) as usize, g.e.below(k as u64) as usize);
            body.push(Stmt::If(c, Block::new(vec![assign(&vars[a], var(&vars[b]))]), None));
            body
        }));
        let mut sum = var(&vars[0]);
        for v in &vars[1..] {
            sum = bin(BinOp::Add, sum, var(v));
        }
        out.push(self.use_value(sum));
        out
    }

    // ----- expressions -----

    /// An expression whose root is at level `depth` (0 for a statement's
    /// own expression).
    fn expr(&mut self, depth: usize) -> Expr {
        let max = self.cfg.max_expr_depth.max(1);
        if depth + 1 >= max || self.e.chance(30 + 15 * depth as u64) {
            return self.leaf();
        }
        const BINARY: usize = 0;
        const UNARY: usize = 1;
        const DIVISION: usize = 2;
        const LOGICAL: usize = 3;
        const LOAD: usize = 4;
        let weights =
            [BINARY_WEIGHT, UNARY_WEIGHT, self.w(Feature::Trapping), self.w(Feature::Logical), self.w(Feature::Mem)];
        match self.e.weighted(&weights) {
            BINARY => {
                let op = SAFE_BINOPS[self.e.below(SAFE_BINOPS.len() as u64) as usize];
                let a = self.expr(depth + 1);
                let b = self.expr(depth + 1);
                bin(op, a, b)
            }
            UNARY => {
                let op = UnOp::ALL[self.e.below(3) as usize];
                Expr::Unary(op, Box::new(self.expr(depth + 1)))
            }
            DIVISION => self.division(depth),
            LOGICAL => {
                let a = self.expr(depth + 1);
                let b = self.expr(depth + 1);
                if self.e.chance(50) {
                    and(a, b)
                } else {
                    Expr::LogicalOr(Box::new(a), Box::new(b))
                }
            }
            LOAD => Expr::Load(Box::new(self.expr(depth + 1))),
            _ => unreachable!("five weights"),
        }
    }

    /// `a / b` or `a % b`. The divisor cannot be 0 or -1 unless this program
    /// may trap.
    fn division(&mut self, depth: usize) -> Expr {
        let op = if self.e.chance(50) { BinOp::Rem } else { BinOp::Div };
        let a = self.expr(depth + 1);
        let b = if self.traps && self.e.chance(60) {
            match self.e.below(4) {
                0 => Expr::Lit(0),
                1 => lit(-1),
                _ => self.expr(depth + 1),
            }
        } else if self.e.chance(50) {
            Expr::Lit(self.e.range(2, 9) as i64)
        } else {
            let d = self.expr(depth + 1);
            bin(BinOp::Add, bin(BinOp::And, d, Expr::Lit(15)), Expr::Lit(1))
        };
        bin(op, a, b)
    }

    fn leaf(&mut self) -> Expr {
        if self.e.chance(55) {
            let v = self.readable_var();
            var(&v)
        } else {
            self.literal()
        }
    }

    fn literal(&mut self) -> Expr {
        match self.e.below(10) {
            0..=5 => Expr::Lit(self.e.range(0, 10) as i64),
            6 => Expr::Lit(INTERESTING[self.e.below(INTERESTING.len() as u64) as usize]),
            7 => Expr::Lit((self.e.bits() >> 1) as i64),
            8 => lit(-(self.e.range(1, 5) as i64)),
            _ => lit(i64::MIN),
        }
    }

    /// An address: usually a small constant, so that stores and loads meet.
    fn addr(&mut self) -> Expr {
        if self.e.chance(50) {
            Expr::Lit(self.e.range(0, 15) as i64)
        } else {
            self.expr(1)
        }
    }

    /// A condition: usually a comparison.
    fn cond(&mut self) -> Expr {
        match self.e.below(6) {
            0..=2 => self.comparison(),
            3 => self.expr(0),
            4 if self.on(Feature::Logical) => {
                let a = self.comparison();
                let b = self.comparison();
                if self.e.chance(50) {
                    and(a, b)
                } else {
                    Expr::LogicalOr(Box::new(a), Box::new(b))
                }
            }
            _ => Expr::Unary(UnOp::Not, Box::new(self.comparison())),
        }
    }

    fn comparison(&mut self) -> Expr {
        let op = COMPARISONS[self.e.below(6) as usize];
        let a = self.expr(1);
        let b = self.expr(2);
        bin(op, a, b)
    }

    /// An expression that constant folding and arithmetic simplification
    /// cannot turn into a constant: a parameter or a load, maybe with a
    /// constant added or xor-ed in. (In a program with neither parameters
    /// nor memory, a variable, which may fold.)
    fn nonconst(&mut self) -> Expr {
        let base = if !self.params.is_empty() && (!self.on(Feature::Mem) || self.e.chance(60)) {
            let i = self.e.below(self.params.len() as u64) as usize;
            var(&self.params[i])
        } else if self.on(Feature::Mem) {
            Expr::Load(Box::new(self.addr()))
        } else {
            // No parameter and no memory: nothing is unknown to the
            // construction but what loops compute.
            let v = self.readable_var();
            var(&v)
        };
        match self.e.below(4) {
            0 => bin(BinOp::Add, base, Expr::Lit(self.e.range(1, 9) as i64)),
            1 => bin(BinOp::Xor, base, Expr::Lit(self.e.range(1, 9) as i64)),
            _ => base,
        }
    }

    /// A condition that does not fold (both ways can be taken).
    fn nonconst_cond(&mut self) -> Expr {
        let x = self.nonconst();
        match self.e.below(3) {
            0 => bin(BinOp::And, x, Expr::Lit(1)),
            1 => bin(COMPARISONS[self.e.below(6) as usize], x, Expr::Lit(self.e.range(0, 6) as i64)),
            _ => x,
        }
    }
}

/// Calls `f` on every statement of `stmts`, nested ones included, without
/// recursion.
fn for_each_stmt<'s>(stmts: &'s [Stmt], mut f: impl FnMut(&'s Stmt)) {
    let mut stack: Vec<&Stmt> = stmts.iter().collect();
    while let Some(s) = stack.pop() {
        f(s);
        match s {
            Stmt::If(_, t, e) => {
                stack.extend(&t.stmts);
                if let Some(e) = e {
                    stack.extend(&e.stmts);
                }
            }
            Stmt::While(_, b) | Stmt::Block(b) => stack.extend(&b.stmts),
            _ => {}
        }
    }
}

/// Number of statements in `stmts`, nested ones included.
fn statements_in(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    for_each_stmt(stmts, |_| n += 1);
    n
}

/// Static cost of statements: one per statement and one per expression
/// node, the units the AST interpreter charges.
fn static_cost(stmts: &[Stmt]) -> u64 {
    let mut cost = 0u64;
    for_each_stmt(stmts, |s| {
        cost += 1;
        let mut add = |e: &Expr| cost += expr_nodes(e);
        match s {
            Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) => add(e),
            Stmt::If(c, _, _) | Stmt::While(c, _) => add(c),
            Stmt::Store(a, v) => {
                add(a);
                add(v);
            }
            Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) | Stmt::Block(_) => {}
        }
    });
    cost
}

/// Number of nodes of an expression tree.
pub(crate) fn expr_nodes(e: &Expr) -> u64 {
    match e {
        Expr::Lit(_) | Expr::Var(_) => 1,
        Expr::Load(a) | Expr::Unary(_, a) => 1 + expr_nodes(a),
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => 1 + expr_nodes(a) + expr_nodes(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_used_up_source_answers_the_simplest_option() {
        let mut u = Unstructured::new(&[]);
        assert_eq!(u.below(10), 0);
        assert!(!u.chance(99));
        assert!(u.chance(100));
        assert_eq!(u.range(3, 9), 3);
        assert_eq!(u.weighted(&[0, 5, 7]), 1);
    }

    #[test]
    fn weighted_follows_the_weights() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[rng.weighted(&[1, 0, 2])] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!(counts[2] > counts[0] * 3 / 2, "{counts:?}");
    }

    #[test]
    fn the_empty_byte_string_gives_a_valid_program() {
        let tc = TestCase::from_bytes(&mut Unstructured::new(&[]), &GenConfig::default());
        assert_eq!(tc.program.validate(), Ok(()));
        assert!(tc.args.is_empty());
    }

    #[test]
    fn literals_are_never_negative_and_min_is_spelled_as_a_subtraction() {
        assert_eq!(lit(-3), Expr::Unary(UnOp::Neg, Box::new(Expr::Lit(3))));
        assert_eq!(crate::frontend::ast_print::print_expr(&lit(i64::MIN)), "-9223372036854775807 - 1");
    }
}
