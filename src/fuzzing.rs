//! The library entry points of the cargo-fuzz targets in `fuzz/`.
//!
//! Each target in `fuzz/fuzz_targets/` is a thin wrapper around one function
//! of this module, so the same checks also run in ordinary tests (more
//! targets are added as the pipeline grows). A function here panics exactly
//! when it finds a bug.

use crate::ast_print::print_program;
use crate::implement_spartan::{check_implementation, implement_spartan, ElimOptions, SkipHooks};
use crate::location_transfer_graph::{LocationTransferGraph, ParallelCopy};
use crate::mir::{Loc, Reg, Slot};
use crate::parser::parse_program;
use arbitrary::Unstructured;

/// Parses `data` as (lossy UTF-8) source text. Parsing must never panic, a
/// program that parses must be valid, and it must print to text that parses
/// back to itself.
pub fn fuzz_parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(program) = parse_program(&src) else {
        return;
    };
    if let Err(e) = program.validate() {
        panic!("the parser accepted an invalid program ({e}):\n{src}");
    }
    let printed = print_program(&program);
    let reparsed = parse_program(&printed);
    assert!(
        reparsed.as_ref() == Ok(&program),
        "print/parse round trip failed\n--- input:\n{src}\n--- printed:\n{printed}\n--- reparsed:\n{reparsed:?}"
    );
}

/// Builds a parallel copy from `data` and checks spill-free SSA elimination
/// on it (`implement_spartan.rs`, Pereira and Palsberg, CC 2009, §3-§6):
///
/// - the copy has a location transfer graph exactly when it is well defined,
///   and then `check_spartan` and `check_spartan_graph` agree (Theorem 2
///   and its converse);
/// - `implement_spartan` fails exactly on copies that are not spartan, and
///   never panics;
/// - on a spartan copy, with the options and omission hooks the bytes pick,
///   the code is correct, uses no location outside the copy and has the
///   least number of instructions (`check_implementation`).
///
/// The copy ranges over up to 15 registers and 4 slots. Half of the inputs
/// (by the first byte) keep only the moves that leave the copy spartan, so
/// that large spartan copies are common; their spartan-ness is then itself
/// checked.
pub fn fuzz_implement_spartan(data: &[u8]) {
    fn build(u: &mut Unstructured<'_>) -> arbitrary::Result<(bool, ParallelCopy, ElimOptions, u32, u32)> {
        let constructive: bool = u.arbitrary()?;
        let regs: u8 = u.int_in_range(1..=15)?;
        let slots: u32 = u.int_in_range(0..=4)?;
        let opts = ElimOptions { store_hoisting: u.arbitrary()?, load_lowering: u.arbitrary()? };
        let (store_mask, load_mask): (u32, u32) = (u.arbitrary()?, u.arbitrary()?);
        let loc = |i: u32| if i < u32::from(regs) { Loc::Reg(Reg(i as u8)) } else { Loc::Slot(Slot(i - u32::from(regs))) };
        let count = u32::from(regs) + slots;
        let mut moves: Vec<(Loc, Loc)> = Vec::new();
        let n: usize = u.int_in_range(0..=24)?;
        for _ in 0..n {
            let d = loc(u.int_in_range(0..=count - 1)?);
            let s = loc(u.int_in_range(0..=count - 1)?);
            if constructive {
                // Keep the copy spartan: destinations and sources stay
                // distinct, a slot is either a self loop or only read or
                // only written, and no move goes from a slot to another.
                let dst_used = moves.iter().any(|&(md, _)| md == d);
                let src_used = moves.iter().any(|&(_, ms)| ms == s);
                let both_slots = matches!((d, s), (Loc::Slot(_), Loc::Slot(_)));
                let slot_read_elsewhere = matches!(d, Loc::Slot(_)) && moves.iter().any(|&(_, ms)| ms == d);
                let slot_written_elsewhere = matches!(s, Loc::Slot(_)) && moves.iter().any(|&(md, _)| md == s);
                if dst_used || src_used || (both_slots && d != s) || slot_read_elsewhere || slot_written_elsewhere {
                    continue;
                }
            }
            moves.push((d, s));
        }
        Ok((constructive, ParallelCopy::new(moves), opts, store_mask, load_mask))
    }

    let Ok((constructive, pc, opts, store_mask, load_mask)) = build(&mut Unstructured::new(data)) else {
        return;
    };
    let bit = |mask: u32, m: Slot, r: Reg| mask >> ((m.0 * 15 + u32::from(r.0)) % 32) & 1 == 1;
    let skip_store = |m: Slot, r: Reg| bit(store_mask, m, r);
    let skip_load = |m: Slot, r: Reg| bit(load_mask, m, r);
    let hooks = SkipHooks { skip_store: &skip_store, skip_load: &skip_load };

    let graph = LocationTransferGraph::new(&pc);
    assert_eq!(graph.is_ok(), pc.is_well_defined(), "graph construction and well-definedness disagree on {pc}");
    let spartan = pc.check_spartan();
    if constructive {
        assert!(spartan.is_ok(), "a copy built to be spartan is rejected: {}", spartan.unwrap_err());
    }
    if let Ok(graph) = &graph {
        let spartan_graph = graph.check_spartan_graph();
        assert_eq!(
            spartan.is_ok(),
            spartan_graph.is_ok(),
            "Theorem 2 (or its converse) fails on {pc}: check_spartan says {spartan:?}, \
             check_spartan_graph says {spartan_graph:?}"
        );
    }
    match (implement_spartan(&pc, &opts, &hooks), &spartan) {
        (Ok(insts), Ok(())) => {
            if let Err(e) = check_implementation(&pc, &opts, &hooks, &insts) {
                panic!("spill-free SSA elimination is wrong: {e}");
            }
            // Without options, and with hooks that would allow everything,
            // nothing is omitted.
            let plain = implement_spartan(&pc, &ElimOptions::default(), &SkipHooks::ALWAYS)
                .expect("a spartan copy is implemented");
            if let Err(e) = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &plain) {
                panic!("spill-free SSA elimination is wrong without options: {e}");
            }
        }
        (Err(_), Err(_)) => {}
        (Ok(insts), Err(e)) => panic!("implement_spartan accepted a copy that is not spartan ({e}): {pc} gave {insts:?}"),
        (Err(e), Ok(())) => panic!("implement_spartan rejected the spartan copy {pc}: {e}"),
    }
}
