//! SSA construction straight from the AST, after Braun, Buchwald, Hack,
//! Leißa, Mallon and Zwinkau, "Simple and Efficient Construction of Static
//! Single Assignment Form" (CC 2013).
//!
//! Start here: [`textbook`] is the paper's Algorithms 1 to 5 as printed,
//! recursive, with plain maps and each step marked with the line it
//! implements. The rest of this folder is the fast builder, which computes
//! the same phis (`tests/suite/braun_textbook.rs` checks it against the
//! textbook) on an explicit stack, for functions of any size, with the
//! paper's variants and optimizations as switches.
//!
//! What the fast builder does, by the paper's numbering:
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
//! Departures from the printed pseudo-code (the printed version of each is
//! in [`textbook`]; the arguments are in `proofs-notes/ssa-construction.md`,
//! §5, which also names the tests):
//! - No recursion per block or per phi: the look-up of Alg. 2 runs on an
//!   explicit stack (`lookup.rs`), the re-check of phi users of Alg. 3 and
//!   the nested SCCs of Alg. 5 use worklists, so deep programs need no deep
//!   call stack. `replaceBy` of Alg. 3 is an alias link (union-find) that
//!   every operand is read through (`Builder::resolve`).
//! - The operandless phi that Alg. 2 places in a sealed block before
//!   recursing is *provisional*: numbered and listed in its block at once, as
//!   in the paper, but its operands wait in a scratch range of the look-up,
//!   and it enters the phi table only when something uses it or it turns
//!   out non-trivial. Most such phis are trivial and die without ever
//!   entering the table. The output is unchanged: numbering, operands, users
//!   and triviality tests are those of the printed algorithm.
//! - A phi whose operands are still being collected is never tested for
//!   triviality; it is tested when it is complete (note (c): tested on a
//!   partial operand list, it could look trivial and be wrongly replaced).
//! - Alg. 5 re-checks singleton SCCs instead of skipping them (note (b):
//!   contracting an earlier SCC can make a singleton trivial). It starts
//!   from the live phis that have a phi operand, and re-checks a singleton
//!   only once some phi has died since it began; before that, no operand can
//!   have changed (checked by a debug assertion).
//! - In the marker variant (§3.3), the phi placed at a join because its
//!   predecessors gave different definitions skips the test of Alg. 3: two
//!   operands differ and neither is the new phi, so it is not trivial (a
//!   debug assertion checks it); the pair is recorded as its witnesses.
//! - Unreachable code (after `return`, a dead `goto` cycle, a folded branch)
//!   is built like any code, in blocks without predecessors, and removed when
//!   the function is finished, with the phi operands it fed (the paper does
//!   not say what to do with it). Edges out of a block known to be
//!   unreachable (sealed, no predecessors, not the entry) are not recorded,
//!   so its `Undefined` never keeps a live join's phi non-trivial (note (g)).
//! - A read that only the variable's initial value can reach returns that
//!   value without the walk of Alg. 2 (note (f)): a variable the function
//!   never assigns, and, in a function without labels, a read in a block
//!   filled outside every loop before the variable's first assignment. On
//!   reducible CFGs the walk would place only trivial phis there. On
//!   irreducible ones, without Alg. 5, it can leave a redundant phi cycle
//!   for a variable that is never assigned (Fig. 5), which the fast builder
//!   does not place: there it has fewer phis than the printed algorithm.
//! - A read that reaches the header of a `while`, the join of an `if` (or a
//!   loop's exit, the blocks a condition branches to, the join of a
//!   `&&` / `||` value) whose statement holds no label and assigns the
//!   variable nowhere continues to the block the statement was entered from,
//!   instead of placing an incomplete phi or asking every predecessor: the
//!   phi would be trivial, and `sealBlock` would walk back through the whole
//!   loop body for it (note (h), `region_assignments.rs`).
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
//! - `triviality_recomputation.rs`: the self-check of the witness cache
//!   and the alias links against the phi's operands;
//! - `trivial_phi.rs`: `tryRemoveTrivialPhi` (Alg. 3) and the witness cache;
//! - `lookup.rs`: `writeVariable` / `readVariable` (Alg. 1, 2) on the
//!   explicit `PredecessorsLookup` stack, the marker variant (§3.3) and `sealBlock`
//!   (Alg. 4);
//! - `ast_walk.rs`: expressions, conditions and statements (with copy
//!   propagation), which drive the look-ups and the sealing;
//! - `scc_removal.rs`: `removeRedundantPhis` (Alg. 5);
//! - `finish.rs`: unreachable code removal, dead-phi removal, renumbering;
//! - `textbook.rs` and `textbook_walk.rs`: the printed algorithms and the
//!   AST walk that drives them, apart from the rest (they import nothing of
//!   the fast builder, and it imports nothing of them; the two call each
//!   other, as an algorithm and the front end that drives it do).
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
mod triviality_recomputation;

pub use options::{Algorithm5, BraunOptions, BraunStats};

use crate::ast;
use crate::ir;
use state::Builder;

/// Builds SSA for every function of a valid program.
///
/// Precondition: `program.validate()` holds (the parser guarantees it).
pub fn construct_program(program: &ast::Program, opts: &BraunOptions) -> ir::Module {
    if crate::pass_manager::self_checks::in_checked_pass() {
        debug_assert!(program.validate().is_ok(), "construct_program needs a valid program");
    }
    ir::Module { functions: program.functions.iter().map(|f| construct_function(f, opts).0).collect() }
}

/// Builds SSA for one function and reports what the construction did.
/// Algorithm 5 runs only where it can act ([`Algorithm5::WhereItCanAct`]).
///
/// Never inlined, so that a profiler can count what it costs as a whole
/// (`valgrind --tool=callgrind --toggle-collect=...construct_function`).
#[inline(never)]
pub fn construct_function(func: &ast::Function, opts: &BraunOptions) -> (ir::Function, BraunStats) {
    construct_function_with(func, opts, Algorithm5::WhereItCanAct)
}

/// [`construct_function`] with a choice of when Algorithm 5 runs.
pub fn construct_function_with(
    func: &ast::Function,
    opts: &BraunOptions,
    algorithm_5: Algorithm5,
) -> (ir::Function, BraunStats) {
    // The AST walk (with the look-ups and the on-the-fly optimizations),
    // then `finish`'s phases (`pass_manager/clock.rs`).
    let mut b = crate::pass_manager::clock::phase("AST walk", || {
        let mut b = Builder::new(func, *opts);
        b.algorithm_5 = algorithm_5;
        b.build_body(func);
        b
    });
    let f = b.finish(&func.name);
    (f, b.stats)
}
