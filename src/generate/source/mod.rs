//! Random source programs for differential testing: one generator core,
//! driven either by a seed or by raw bytes.
//!
//! # What it makes
//!
//! [`TestCase`] is a program (a single `main`) and the arguments to run it
//! with. The same core builds it from a `u64` seed ([`TestCase::from_seed`],
//! a [`SmallRng`](rand::rngs::SmallRng)) or from the bytes of a fuzzer
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
//!   several phis (fan-out) or down a chain of copies live across a join
//!   (copy sharing's shape), and critical edges;
//! - high register pressure: a dozen or more values live at once across a
//!   loop and a branch, so that an allocator with few registers must spill,
//!   phi operands included;
//! - data flow through memory (the memory web): two loads of
//!   one word of `mem` (through the same address, or through aliases such
//!   as `a` and `a + 4096`) with a store to it between them, whose
//!   different values meet in one phi at a join or round a loop, the first
//!   still live: value-based interference must not take them as equal.
//!
//! [`patterns`] recognises these situations on the SSA form, and [`pattern_stats`]
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
//! [`ast::MAX_EXPR_DEPTH`](crate::ast::MAX_EXPR_DEPTH)).
//!
//! # Files
//!
//! - `source_config.rs`: [`Feature`], [`GenConfig`] and [`Shape`];
//! - `entropy.rs`: the [`Entropy`] trait over a seed or bytes;
//! - `builders.rs`: AST builders, [`BUDGET_VAR`] and [`ACC_VAR`];
//! - `calls.rs`: programs of several functions with calls, bounded by a
//!   decreasing depth argument, and [`calls::CallFeatures`];
//! - `size.rs`: statement counts and static cost;
//! - `generator.rs`: the generator's state and its choice of variables;
//! - `expr.rs`: the expressions it makes;
//! - `stmt.rs`: the program, its statements and the shapes;
//! - `test_case.rs`: [`TestCase`] from a seed or bytes,
//!   [`construction_variants`], [`describe_failure`];
//! - `worst_case.rs`: [`WorstShape`], functions of extreme shape as text;
//! - `shrink.rs`, `patterns.rs`, `pattern_stats.rs`: shrinking, the out-of-SSA
//!   situations and memory webs on the SSA form, and the statistics of
//!   `ssaref gen --stats`.
//!
//! May import: `ast`, `frontend` (for [`TestCase`] and printing), the
//! analyses and the IR, `construction` and `pipeline`, `oracle`, `outcome`,
//! and `rand`, `arbitrary` and `quickcheck`. Files import their siblings
//! directly, never through this module, and the sibling imports form no
//! cycle.

mod builders;
pub mod calls;
mod entropy;
mod expr;
mod generator;
pub mod jump_kinds;
pub mod pattern_stats;
pub mod patterns;
mod region_jumps;
pub mod shrink;
mod size;
mod source_config;
mod stmt;
mod test_case;
mod worst_case;

/// The operators both generators draw from (the IR-level one too).
pub(crate) use expr::{COMPARISONS, SAFE_BINOPS};

pub use crate::frontend::case_file::TestCase;
pub use builders::{ACC_VAR, BUDGET_VAR};
pub use entropy::Entropy;
pub use size::statement_count;
pub use source_config::{Feature, GenConfig, Shape, Weights};
pub use test_case::{construction_variants, describe_failure, describe_verdict};
pub use worst_case::WorstShape;
