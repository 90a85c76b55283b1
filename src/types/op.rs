//! The operators shared by the source language and the IR.
//!
//! This module only names operators. Their meaning is given in
//! docs/source-language.md ("Semantics") and implemented twice on purpose:
//! once in `fold.rs` (constant folding inside the construction) and once in
//! the oracle, `interp/`, which must not share code with the passes it
//! checks.

use std::fmt;

/// A binary operator that evaluates both operands (so not `&&` or `||`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Truncating division; traps on a zero divisor and on `MIN / -1`.
    Div,
    /// Remainder of truncating division; traps like `Div`.
    Rem,
    /// Shift left by the count modulo 64.
    Shl,
    /// Arithmetic shift right by the count modulo 64.
    Shr,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A unary operator.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum UnOp {
    /// Two's complement negation, `-x`.
    Neg,
    /// Logical not, `!x`: 1 when x is 0, else 0.
    Not,
    /// Bitwise complement, `~x`.
    BitNot,
}

impl BinOp {
    /// Every binary operator, in declaration order.
    pub const ALL: [BinOp; 16] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
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

    /// The operator as written in the source language.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }

    /// The mnemonic used by the IR text form (`add`, `lt`, ...).
    pub fn mnemonic(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => "rem",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            BinOp::Ge => "ge",
        }
    }

    /// Parses an IR mnemonic.
    pub fn from_mnemonic(s: &str) -> Option<BinOp> {
        BinOp::ALL.into_iter().find(|op| op.mnemonic() == s)
    }

    /// Binding strength in the source grammar: 3 is `|`, 10 is `* / %`.
    /// (`||` is 1 and `&&` is 2; they are not `BinOp`s.)
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 3,
            BinOp::Xor => 4,
            BinOp::And => 5,
            BinOp::Eq | BinOp::Ne => 6,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
        }
    }

    /// True for `/` and `%`, the operators that can trap.
    pub fn can_trap(self) -> bool {
        matches!(self, BinOp::Div | BinOp::Rem)
    }

    /// True when `a op b == b op a` for all a, b.
    pub fn is_commutative(self) -> bool {
        matches!(self, BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Eq | BinOp::Ne)
    }
}

impl UnOp {
    /// Every unary operator.
    pub const ALL: [UnOp; 3] = [UnOp::Neg, UnOp::Not, UnOp::BitNot];

    /// The operator as written in the source language.
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
        }
    }

    /// The mnemonic used by the IR text form.
    pub fn mnemonic(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "not",
            UnOp::BitNot => "bitnot",
        }
    }

    /// Parses an IR mnemonic.
    pub fn from_mnemonic(s: &str) -> Option<UnOp> {
        UnOp::ALL.into_iter().find(|op| op.mnemonic() == s)
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

impl fmt::Display for UnOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}
