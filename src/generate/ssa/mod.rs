//! Random programs written directly in SSA form (`ir::Module`), for the
//! control flow and data flow that no source program produces.
//!
//! The source-level generator (`gen/`) goes through Braun et al.'s
//! construction, so its SSA has only the shapes a structured language with
//! `goto` yields: it never branches straight into a join block with a
//! value that the branch reads flowing into the join's phi from a sibling
//! edge (Boissinot et al., CGO 2009, Fig. 1, the branch-use problem), and
//! never makes `br c, B, B`. This generator writes the SSA itself:
//! - random CFGs (`cfg.rs`): a spanning tree for reachability, extra
//!   forward edges (joins, every kind of critical edge: from a branch into
//!   a join, `br c, B, B`, critical back edges, critical self loops), and
//!   guarded backward edges that close cycles, reducible or not, directly
//!   or through a latch block;
//! - values (`fill.rs`): phis whose operands are the predecessor's branch
//!   condition, other phis of the same block (swaps and rotations on back
//!   edges), or values made for that edge and dead after it; one-argument
//!   phis; `mem` loads and stores at aliasing addresses; `out` of phis so
//!   the trace shows the data flow; divisions that trap at a controlled
//!   rate; the branch-use shape placed on purpose.
//!
//! # Termination
//!
//! A fuel counter is threaded through the program as a value: its initial
//! value (a constant up to [`IrGenConfig::max_fuel`], or a parameter masked
//! to 0..=31) is defined in `b0`, every block with two or more predecessors
//! has a fuel phi, and every block with a guarded edge computes
//! `fuel' = fuel - 1` and passes it on both its edges. A guarded edge is
//! taken only when `fuel >= 1`. Every cycle of the CFG takes a guarded edge
//! (forward edges increase the block number; a latch is entered only by
//! its guarded edge), so a run takes at most `fuel + 1` trips, each through
//! at most every block once: a few thousand steps, far below the oracle's
//! default fuel.
//!
//! # Validity
//!
//! Every value is defined once and every use is dominated by its
//! definition (operands come from the block's dominators, phi arguments
//! from the end of their predecessor), every block is reachable, no
//! `undef`: every program passes `verifier::verify_module`, which
//! [`IrCase::from_entropy`] asserts in debug builds and the tests check
//! over thousands of seeds.
//!
//! # Files
//!
//! - `ssa_config.rs`: [`IrGenConfig`];
//! - `cfg.rs`: the control-flow skeleton;
//! - `fill.rs`: phis, instructions, conditions, fuel, phi arguments;
//! - `ir_calls.rs`: modules of several functions with calls
//!   ([`IrGenConfig::calls`]), recursion bounded by a depth argument;
//! - `call_shapes.rs`: the call situations of a module, for the statistics;
//! - `ir_case.rs`: [`IrCase`] from a seed or bytes, its `.ssa` text;
//! - `shapes.rs`: [`IrShapes`], the shapes of `generate/source/patterns.rs` and those
//!   of IR-level programs;
//! - `shape_stats.rs`: [`IrStats`], the table of `ssaref gen --ir --stats`.
//!
//! May import: the IR, `analysis/`, `oracle`, `outcome`, `gen/` (its
//! `Entropy` trait and `patterns`), `rand` and `arbitrary`. Files import
//! their siblings directly, never through this module.

pub mod call_shapes;
mod cfg;
mod fill;
pub mod ir_calls;
mod ir_case;
pub mod shape_stats;
pub mod shapes;
mod ssa_config;

pub use ir_case::IrCase;
pub use shape_stats::IrStats;
pub use shapes::IrShapes;
pub use ssa_config::IrGenConfig;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::verifier::verify_module;
    use crate::ssa_text::{parse_module, print_module};

    #[test]
    fn every_program_is_valid_ssa_and_reproducible() {
        let config = IrGenConfig::default();
        for seed in 0..3000 {
            let case = IrCase::from_seed(seed, &config);
            if let Err(e) = verify_module(&case.module) {
                panic!("seed {seed}: {e}\n{}", print_module(&case.module));
            }
            assert_eq!(case, IrCase::from_seed(seed, &config), "seed {seed} is reproducible");
            let text = print_module(&case.module);
            let mut back = parse_module(&text).expect("the printed program parses");
            let mut main = case.module.clone();
            back.functions[0].trim_value_count();
            main.functions[0].trim_value_count();
            assert_eq!(back, main, "seed {seed}: print then parse");
        }
    }

    #[test]
    fn every_byte_string_gives_a_valid_program() {
        let config = IrGenConfig::default();
        let mut bytes = Vec::new();
        for i in 0..2000u32 {
            bytes.push((i.wrapping_mul(2654435761) >> 13) as u8);
            let case = IrCase::from_bytes(&mut arbitrary::Unstructured::new(&bytes), &config);
            verify_module(&case.module).expect("valid SSA from bytes");
        }
        let empty = IrCase::from_bytes(&mut arbitrary::Unstructured::new(&[]), &config);
        verify_module(&empty.module).expect("valid SSA from no bytes");
    }
}
