//! Constant folding and arithmetic simplification for the on-the-fly
//! optimizations of Braun et al. §3.1.
//!
//! The operator semantics (docs/source-language.md, "Semantics") are
//! implemented here for the passes, and separately in the oracle
//! (`interp/`), which must not share this code: a folding bug then shows up
//! as a disagreement.

use crate::op::{BinOp, UnOp};

/// Evaluates a unary operator.
pub fn unary(op: UnOp, x: i64) -> i64 {
    match op {
        UnOp::Neg => x.wrapping_neg(),
        UnOp::Not => (x == 0) as i64,
        UnOp::BitNot => !x,
    }
}

/// Evaluates a binary operator, or `None` when it traps (division or
/// remainder by zero, `i64::MIN / -1`, `i64::MIN % -1`): a trapping operation
/// is never folded, so that the trap still happens at run time.
pub fn binary(op: BinOp, x: i64, y: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x.checked_div(y)?,
        BinOp::Rem => x.checked_rem(y)?,
        BinOp::Shl => x.wrapping_shl((y & 63) as u32),
        BinOp::Shr => x.wrapping_shr((y & 63) as u32),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Eq => (x == y) as i64,
        BinOp::Ne => (x != y) as i64,
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
    })
}

/// An operand as the simplifier sees it: a known constant or an opaque
/// value (identified by number, so equal numbers are the same value).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Term {
    Const(i64),
    Value(u32),
}

/// What a simplification rule turned `a op b` into.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Simplified {
    /// The left operand.
    Left,
    /// The right operand.
    Right,
    /// A constant.
    Const(i64),
}

/// Peephole rules that hold for every value of the opaque operands and never
/// remove a trap: `x + 0`, `x - x`, `x * 0`, `x * 1`, `x / 1`, `x % 1`,
/// `x & 0`, `x & -1`, `x & x`, `x | 0`, `x | -1`, `x | x`, `x ^ 0`, `x ^ x`,
/// shifts by a multiple of 64, shifts of 0, and comparisons of a value with
/// itself.
pub fn simplify(op: BinOp, a: Term, b: Term) -> Option<Simplified> {
    use Simplified::{Const, Left, Right};
    let same = a == b && matches!(a, Term::Value(_));
    let k = |t: Term, c: i64| t == Term::Const(c);
    Some(match op {
        BinOp::Add if k(b, 0) => Left,
        BinOp::Add if k(a, 0) => Right,
        BinOp::Sub if k(b, 0) => Left,
        BinOp::Sub if same => Const(0),
        BinOp::Mul if k(a, 0) || k(b, 0) => Const(0),
        BinOp::Mul if k(b, 1) => Left,
        BinOp::Mul if k(a, 1) => Right,
        BinOp::Div if k(b, 1) => Left,
        BinOp::Rem if k(b, 1) => Const(0),
        BinOp::And if k(a, 0) || k(b, 0) => Const(0),
        BinOp::And if k(b, -1) || same => Left,
        BinOp::And if k(a, -1) => Right,
        BinOp::Or if k(a, -1) || k(b, -1) => Const(-1),
        BinOp::Or if k(b, 0) || same => Left,
        BinOp::Or if k(a, 0) => Right,
        BinOp::Xor if k(b, 0) => Left,
        BinOp::Xor if k(a, 0) => Right,
        BinOp::Xor if same => Const(0),
        BinOp::Shl | BinOp::Shr if matches!(b, Term::Const(c) if c & 63 == 0) => Left,
        BinOp::Shl | BinOp::Shr if k(a, 0) => Const(0),
        BinOp::Eq | BinOp::Le | BinOp::Ge if same => Const(1),
        BinOp::Ne | BinOp::Lt | BinOp::Gt if same => Const(0),
        _ => return None,
    })
}
