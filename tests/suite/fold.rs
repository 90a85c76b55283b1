//! `construction/fold.rs` against the oracle's own operator semantics
//! (`interp/src/semantics.rs`): the two implementations share no code
//! (ARCHITECTURE.md), so a folding or simplification mistake shows up here
//! as a disagreement instead of being compared with itself.

use ssaref::construction::fold::{binary, simplify, unary, Simplified, Term};
use ssaref::op::{BinOp, UnOp};
use ssaref_interp::semantics;

const SAMPLES: [i64; 15] = [i64::MIN, i64::MIN + 1, -65, -64, -63, -2, -1, 0, 1, 2, 63, 64, 65, i64::MAX - 1, i64::MAX];

/// Every simplification rule (`x op c`, `c op x`, `x op x`) gives what the
/// oracle computes for `a op b`, and never removes a trap: a rule applies
/// only where the oracle does not trap.
#[test]
fn simplification_rules_agree_with_evaluation() {
    let mut applied = 0;
    for op in BinOp::ALL {
        for &x in &SAMPLES {
            for &c in &SAMPLES {
                let cases = [
                    (Term::Value(0), Term::Const(c), x, c),
                    (Term::Const(c), Term::Value(0), c, x),
                    (Term::Value(0), Term::Value(0), x, x),
                ];
                for (a, b, va, vb) in cases {
                    let Some(s) = simplify(op, a, b) else { continue };
                    applied += 1;
                    let got = match s {
                        Simplified::Left => va,
                        Simplified::Right => vb,
                        Simplified::Const(k) => k,
                    };
                    assert_eq!(semantics::binary(op, va, vb), Ok(got), "{op:?} {a:?} {b:?} with x = {x}, c = {c}");
                }
            }
        }
    }
    assert!(applied > 1000, "the rules applied only {applied} times");
}

/// Constant folding agrees with the oracle, and folds nothing that traps.
#[test]
fn constant_folding_agrees_with_evaluation() {
    for op in BinOp::ALL {
        for &a in &SAMPLES {
            for &b in &SAMPLES {
                assert_eq!(binary(op, a, b), semantics::binary(op, a, b).ok(), "{op:?} {a} {b}");
            }
        }
    }
    for op in UnOp::ALL {
        for &a in &SAMPLES {
            assert_eq!(unary(op, a), semantics::unary(op, a), "{op:?} {a}");
        }
    }
}
