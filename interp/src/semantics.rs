//! The meaning of the operators, implemented independently of ssaref.
//!
//! ssaref's constant folder implements the same rules; this copy exists so
//! that a mistake there is caught by differential testing instead of being
//! shared by the oracle.

use ssaref_types::ast::MEM_WORDS;
use ssaref_types::op::{BinOp, UnOp};
use ssaref_types::outcome::Trap;

/// Applies a binary operator. Only `/` and `%` can trap.
#[inline]
pub fn binary(op: BinOp, a: i64, b: i64) -> Result<i64, Trap> {
    Ok(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        // `checked_div` and `checked_rem` return `None` exactly for a zero
        // divisor and for `i64::MIN / -1`, the two cases that trap.
        BinOp::Div => a.checked_div(b).ok_or(Trap::DivideError)?,
        BinOp::Rem => a.checked_rem(b).ok_or(Trap::DivideError)?,
        // The count is taken modulo 64, as x86-64 does for 64-bit shifts.
        BinOp::Shl => a.wrapping_shl((b & 63) as u32),
        BinOp::Shr => a.wrapping_shr((b & 63) as u32),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Eq => i64::from(a == b),
        BinOp::Ne => i64::from(a != b),
        BinOp::Lt => i64::from(a < b),
        BinOp::Le => i64::from(a <= b),
        BinOp::Gt => i64::from(a > b),
        BinOp::Ge => i64::from(a >= b),
    })
}

/// Applies a unary operator. None of them traps.
#[inline]
pub fn unary(op: UnOp, a: i64) -> i64 {
    match op {
        UnOp::Neg => a.wrapping_neg(),
        UnOp::Not => i64::from(a == 0),
        UnOp::BitNot => !a,
    }
}

/// The word of `mem` that address `addr` names: `addr & 4095`, so negative
/// addresses wrap around.
#[inline]
pub fn mem_index(addr: i64) -> usize {
    // The mask is applied to the two's complement bits, so this is the same
    // as `(addr & 4095) as usize` for negative addresses too.
    (addr & (MEM_WORDS as i64 - 1)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_truncates_and_traps() {
        assert_eq!(binary(BinOp::Div, -7, 2), Ok(-3));
        assert_eq!(binary(BinOp::Rem, -7, 2), Ok(-1));
        assert_eq!(binary(BinOp::Rem, 7, -2), Ok(1));
        assert_eq!(binary(BinOp::Div, 1, 0), Err(Trap::DivideError));
        assert_eq!(binary(BinOp::Rem, 1, 0), Err(Trap::DivideError));
        assert_eq!(binary(BinOp::Div, i64::MIN, -1), Err(Trap::DivideError));
        assert_eq!(binary(BinOp::Rem, i64::MIN, -1), Err(Trap::DivideError));
        assert_eq!(binary(BinOp::Div, i64::MIN, 1), Ok(i64::MIN));
    }

    #[test]
    fn shifts_take_the_count_modulo_64() {
        assert_eq!(binary(BinOp::Shl, 3, 64), Ok(3));
        assert_eq!(binary(BinOp::Shl, 3, 65), Ok(6));
        assert_eq!(binary(BinOp::Shl, 1, -1), Ok(i64::MIN));
        assert_eq!(binary(BinOp::Shr, -8, 1), Ok(-4));
        assert_eq!(binary(BinOp::Shr, i64::MIN, 63), Ok(-1));
        assert_eq!(binary(BinOp::Shr, 8, 66), Ok(2));
    }

    #[test]
    fn mem_index_wraps() {
        assert_eq!(mem_index(-1), 4095);
        assert_eq!(mem_index(4096), 0);
        assert_eq!(mem_index(i64::MIN), 0);
        assert_eq!(mem_index(i64::MAX), 4095);
    }
}
