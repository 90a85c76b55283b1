//! The calling convention per K (`analysis/calling_convention.rs`,
//! docs/calling-convention.md): its invariants at every K, and System V's
//! register roles at K = 15, written out here by register name from the
//! ABI's Figure 3.4 rather than taken from the module.

use ssaref::machine::calling_convention::{ArgLocation, CallingConvention, STACK_ALIGNMENT};
use ssaref::mir::{Reg, MAX_REGS, MIN_REGS, REGISTER_NAMES};
use std::collections::BTreeSet;

fn names(regs: &[Reg]) -> Vec<&'static str> {
    regs.iter().map(|r| REGISTER_NAMES[usize::from(r.0)]).collect()
}

/// The invariants of one convention; `Err` names the first that fails.
fn check_invariants(c: &CallingConvention) -> Result<(), String> {
    let allocatable: BTreeSet<Reg> = (0..c.k as u8).map(Reg).collect();
    let caller: BTreeSet<Reg> = c.caller_saved.iter().copied().collect();
    let callee: BTreeSet<Reg> = c.callee_saved.iter().copied().collect();
    let args: BTreeSet<Reg> = c.arg_regs.iter().copied().collect();
    if args.len() != c.arg_regs.len() {
        return Err(format!("K = {}: an argument register repeats", c.k));
    }
    if !caller.is_disjoint(&callee) {
        return Err(format!("K = {}: caller- and callee-saved sets overlap", c.k));
    }
    if caller.union(&callee).copied().collect::<BTreeSet<_>>() != allocatable {
        return Err(format!("K = {}: caller- and callee-saved sets do not cover the K registers", c.k));
    }
    if !args.is_subset(&caller) || !caller.contains(&c.result) {
        return Err(format!("K = {}: an argument or the result register is callee-saved", c.k));
    }
    Ok(())
}

#[test]
fn every_k_has_a_convention_whose_register_sets_are_disjoint_and_cover_the_k_registers() {
    assert_eq!(CallingConvention::for_k(MIN_REGS - 1), None);
    assert_eq!(CallingConvention::for_k(MAX_REGS + 1), None);
    for k in MIN_REGS..=MAX_REGS {
        let c = CallingConvention::for_k(k).expect("a convention for every K");
        assert_eq!(check_invariants(&c), Ok(()));
        // A register keeps its role at every larger K.
        let bigger = CallingConvention::for_k(MAX_REGS).unwrap();
        for r in &c.callee_saved {
            assert!(bigger.callee_saved.contains(r), "K = {k}: {r} changes role");
        }
        let kept: Vec<Reg> = bigger.arg_regs.iter().copied().filter(|r| usize::from(r.0) < k).collect();
        assert_eq!(c.arg_regs, kept, "K = {k}: argument registers are System V's, in order, restricted to K");
    }
}

#[test]
fn the_invariant_check_rejects_overlapping_sets() {
    let mut c = CallingConvention::for_k(8).unwrap();
    c.callee_saved.push(c.caller_saved[0]);
    assert!(check_invariants(&c).is_err());
    let mut c = CallingConvention::for_k(8).unwrap();
    c.caller_saved.pop();
    assert!(check_invariants(&c).is_err());
}

#[test]
fn at_k_15_the_convention_is_system_v() {
    let c = CallingConvention::system_v();
    assert_eq!(c, CallingConvention::for_k(15).unwrap());
    assert_eq!(names(&c.arg_regs), ["rdi", "rsi", "rdx", "rcx", "r8", "r9"]);
    assert_eq!(REGISTER_NAMES[usize::from(c.result.0)], "rax");
    assert_eq!(names(&c.callee_saved), ["rbx", "rbp", "r12", "r13", "r14", "r15"]);
    assert_eq!(names(&c.caller_saved), ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"]);
    assert_eq!(c.arg_location(5), ArgLocation::Reg(c.arg_regs[5]));
    assert_eq!(c.arg_location(6), ArgLocation::Stack { offset: 8 });
    assert_eq!(c.arg_location(7), ArgLocation::Stack { offset: 16 });
    assert_eq!(c.stack_argument_bytes(6), 0);
    assert_eq!(c.stack_argument_bytes(7), STACK_ALIGNMENT);
    assert_eq!(c.stack_argument_bytes(9), 2 * STACK_ALIGNMENT);
}

#[test]
fn at_k_2_one_argument_goes_in_rcx_and_the_rest_on_the_stack() {
    let c = CallingConvention::for_k(2).unwrap();
    assert_eq!(names(&c.arg_regs), ["rcx"]);
    assert!(c.callee_saved.is_empty());
    assert_eq!(c.arg_location(1), ArgLocation::Stack { offset: 8 });
}
