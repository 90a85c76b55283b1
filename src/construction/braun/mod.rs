//! SSA construction straight from the AST, after Braun, Buchwald, Hack,
//! Leißa, Mallon and Zwinkau, "Simple and Efficient Construction of Static
//! Single Assignment Form" (CC 2013).
//!
//! What is here, by the paper's numbering:
//! - local value numbering, `write_variable` / `read_variable` (§2.1, Alg. 1);
//! - global value numbering with operandless phis that break cycles (§2.2,
//!   Alg. 2), sealed and filled blocks and incomplete phis (§2.3, Alg. 4);
//!   `while`, `if`, `break` and `continue` seal as §2.3 describes, and a label
//!   block is sealed once the fall-through edge and every `goto` to it exist;
//! - recursive trivial-phi removal (§2.2, Alg. 3) with the witness cache of
//!   §3.1 ([`BraunOptions::witness_cache`]);
//! - removal of redundant phi SCCs after construction (§3.2, Alg. 5), which
//!   makes the result minimal on irreducible control flow too;
//! - the marker algorithm of §3.3 ([`BraunOptions::marker`]);
//! - the on-the-fly optimizations of §3.1, each switchable: constant folding,
//!   arithmetic simplification, common subexpression elimination by local
//!   value numbering, copy propagation.
//!
//! Departures from the printed pseudo-code, each checked by the tests named
//! in `proofs-notes/ssa-construction.md`:
//! - Nothing recurses per block or per phi: the look-up of Alg. 2 runs on an
//!   explicit stack of `PredecessorsLookup`s, the re-check of phi users of Alg. 3 and the
//!   nested SCCs of Alg. 5 use worklists. A replaced phi becomes an *alias*
//!   of its replacement (a union-find link), and every operand is read
//!   through `Builder::resolve`; that is the `replaceBy` of Alg. 3.
//! - The operandless phi that Alg. 2 places in a sealed block before
//!   recursing is *provisional* (`lookup.rs`): it gets its value number and
//!   its place in the block's phi list at once, as in the paper, but its
//!   operands are collected in a scratch range of the look-up and it enters
//!   the phi table only when something uses it (the look-up went round a
//!   cycle and met it: it becomes an operand, so it must record its users)
//!   or when it turns out non-trivial. A provisional phi that is trivial
//!   when its operands are in dies with an alias link and nothing else (at
//!   100,000 statements, all on, 265,116 of the 316,283 phis created are
//!   removed as trivial; those of unsealed blocks and those a cycle made
//!   real go through the table as before).
//!   The output is the same: numbering, block lists, operands, the users
//!   lists (a phi records itself as a user of its operands when it appends
//!   them, provisional or not) and the triviality tests are those of the
//!   printed algorithm; a phi that nothing uses cannot be re-checked by
//!   Alg. 3 (only users are), and while incomplete it would be skipped
//!   anyway. Unlike the marker algorithm of §3.3, which places a phi only
//!   where definitions differ and so can number values differently, the
//!   provisional phi stands where Alg. 2 places it, so the output of the
//!   phi variant does not change (`emit --stage ssa` was compared before
//!   and after, see `docs/scaling.md`).
//! - A phi whose operands are still being collected is never tested for
//!   triviality (the recursive re-check of users can reach it); it is tested
//!   when it is complete.
//! - Alg. 5 re-checks singleton SCCs: contracting an earlier SCC can make a
//!   singleton phi trivial. It starts from the live phis that have a phi
//!   operand: one without is a singleton whose operands no contraction can
//!   change (note (b) of the proof note). A singleton is re-checked only
//!   once some phi has died since Alg. 5 began: before that, its operands
//!   are as Alg. 3 left them (note (b) too; checked by a debug assertion).
//! - In the marker variant (§3.3), the phi placed at a join because its
//!   predecessors gave different definitions goes without the test of
//!   Alg. 3: two operands differ and neither is the new phi, so it is not
//!   trivial (a debug assertion checks it); with the witness cache on, the
//!   first two differing operands are recorded as its witnesses, as Alg. 3
//!   would record them.
//! - Unreachable code (after `return`, a dead `goto` cycle, a folded branch)
//!   is built like any code, in blocks without predecessors, and removed when
//!   the function is finished, together with the phi operands it fed. Braun
//!   et al.'s `Undefined` values live only there. Edges out of a block known
//!   to be unreachable (sealed, no predecessors, not the entry) are not
//!   recorded, so its `Undefined` never keeps a live join's phi non-trivial
//!   until the end (note (g) of the proof note).
//! - A read that only the variable's initial value can reach returns that
//!   value without the walk of Alg. 2, recording nothing and placing no phi:
//!   a variable the function never assigns, and, in a function without
//!   labels, a read in a block filled outside every loop before the
//!   variable's first assignment (checked at every block of a walk too, so
//!   the operand of a loop header's phi from the pre-header is found at
//!   once). The walk would have placed only trivial phis there. On `gen
//!   --seed 1 --shape structured --size 10000` this took the writes to the
//!   `currentDef` table from 3.0 million to 0.11 million and the phis
//!   created from 1.04 million to 0.03 million; the argument is note (f) of
//!   `proofs-notes/ssa-construction.md`.
//! - A read that reaches the header of a `while` that holds no label and
//!   assigns the variable nowhere (`region_assignments.rs`)
//!   continues to the loop's entry edge instead of placing an incomplete
//!   phi (unsealed header) or asking every predecessor (sealed header): the
//!   phi would be trivial, and the walk of `sealBlock` back through the body
//!   was 30% of the instructions at 100,000 statements. Likewise a read that
//!   reaches the join of an `if` that holds no label and assigns the
//!   variable nowhere (in its condition or branches) continues to the block the `if` started in, and
//!   the same for a loop's exit, the blocks a condition branches to and the
//!   join of a `&&` / `||` value (for source variables, which no expression
//!   assigns). Note (h) of the proof note.
//! - On-the-fly simplification can discard the only use of a phi (`x - x`),
//!   so the function ends with dead-phi removal to stay pruned (§4).
//!
//! Where each part is:
//! - `options.rs`: [`BraunOptions`] (the switches) and [`BraunStats`];
//! - `current_defs.rs`: `CurrentDefs`, the `currentDef` table of Alg. 1,
//!   per variable in pages of blocks (its module comment says why);
//! - `region_assignments.rs`: which `while` and `if` assigns which
//!   variable, by statement numbers;
//! - `state.rs`: the builder state (`Builder`, `BlockState`, `PhiData`,
//!   `PhiTable`, `Var`, the look-up's `PredecessorsLookup`) and its entity helpers
//!   (`new_phi`, `resolve`, `remove_phi`, `undef_value`);
//! - `on_the_fly.rs`: `Operand`, instructions and the on-the-fly
//!   optimizations of §3.1 (folding, simplification, CSE);
//! - `trivial_phi.rs`: `tryRemoveTrivialPhi` (Alg. 3) and the witness cache;
//! - `lookup.rs`: `writeVariable` / `readVariable` (Alg. 1, 2) on the
//!   explicit `PredecessorsLookup` stack, the marker variant (§3.3) and `sealBlock`
//!   (Alg. 4);
//! - `ast_walk.rs`: expressions, conditions and statements (with copy
//!   propagation), which drive the look-ups and the sealing;
//! - `scc_removal.rs`: `removeRedundantPhis` (Alg. 5);
//! - `finish.rs`: unreachable code removal, dead-phi removal, renumbering.
//!
//! May import: the data types (`ast`, `ir`, `entity`), `analysis` and
//! `construction::fold`, nothing else of the crate. Inside the folder,
//! dependencies (imports, and calls of `Builder` methods defined in another
//! file) go one way: a file uses only files listed before it (`lookup.rs`
//! calls into `trivial_phi.rs` and `on_the_fly.rs`, `finish.rs` into
//! `scc_removal.rs` and `trivial_phi.rs`), and children import their
//! siblings directly, never through this `mod.rs`.

mod ast_walk;
mod current_defs;
mod finish;
mod lookup;
mod on_the_fly;
mod options;
mod region_assignments;
mod scc_removal;
mod state;
pub mod textbook;
mod textbook_walk;
mod trivial_phi;

pub use options::{BraunOptions, BraunStats};

use crate::ast;
use crate::ir;
use state::Builder;

/// Builds SSA for every function of a valid program.
///
/// Precondition: `program.validate()` holds (the parser guarantees it).
pub fn construct_program(program: &ast::Program, opts: &BraunOptions) -> ir::Module {
    debug_assert!(program.validate().is_ok(), "construct_program needs a valid program");
    ir::Module { functions: program.functions.iter().map(|f| construct_function(f, opts).0).collect() }
}

/// Builds SSA for one function and reports what the construction did.
///
/// Never inlined, so that a profiler can count what it costs as a whole
/// (`valgrind --tool=callgrind --toggle-collect=...construct_function`, as
/// `docs/scaling.md` does).
#[inline(never)]
pub fn construct_function(func: &ast::Function, opts: &BraunOptions) -> (ir::Function, BraunStats) {
    let mut b = Builder::new(func, *opts);
    b.build_body(func);
    let f = b.finish(&func.name);
    (f, b.stats)
}
