//! The expression half of the generator: expressions, divisions that trap
//! only when the program may trap, literals, addresses, conditions, and
//! the values and conditions that do not fold.

use super::builders::{and, bin, lit, var};
use super::calls::CALL_EXPR_WEIGHT;
use super::entropy::Entropy;
use super::generator::Generator;
use super::source_config::Feature;
use crate::ast::{BinOp, Expr, UnOp};

/// Weight of an arithmetic, bitwise or comparison node among the inner
/// expression nodes.
const BINARY_WEIGHT: u32 = 20;
/// Weight of a unary node among the inner expression nodes.
const UNARY_WEIGHT: u32 = 3;

/// Binary operators that cannot trap.
pub(crate) const SAFE_BINOPS: [BinOp; 14] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
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

/// The comparison operators.
pub(crate) const COMPARISONS: [BinOp; 6] = [BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge];

/// Literals that often find edge cases.
const INTERESTING: [i64; 16] = [0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 4095, 4096, 1 << 31, 1 << 32, i64::MAX];

impl<E: Entropy> Generator<'_, E> {
    // ----- expressions -----

    /// An expression whose root is at level `depth` (0 for a statement's
    /// own expression).
    pub(super) fn expr(&mut self, depth: usize) -> Expr {
        let max = self.cfg.max_expr_depth.max(1);
        if depth + 1 >= max || self.e.chance(30 + 15 * depth as u64) {
            return self.leaf();
        }
        const BINARY: usize = 0;
        const UNARY: usize = 1;
        const DIVISION: usize = 2;
        const LOGICAL: usize = 3;
        const LOAD: usize = 4;
        const CALL: usize = 5;
        let call = if self.callees.is_empty() { 0 } else { CALL_EXPR_WEIGHT };
        let weights = [
            BINARY_WEIGHT,
            UNARY_WEIGHT,
            self.w(Feature::Trapping),
            self.w(Feature::Logical),
            self.w(Feature::Mem),
            call,
        ];
        match self.e.weighted(&weights) {
            BINARY => {
                let op = SAFE_BINOPS[self.e.below(SAFE_BINOPS.len() as u64) as usize];
                let a = self.expr(depth + 1);
                let b = self.expr(depth + 1);
                bin(op, a, b)
            }
            UNARY => {
                let op = UnOp::ALL[self.e.below(3) as usize];
                Expr::Unary(op, Box::new(self.expr(depth + 1)))
            }
            DIVISION => self.division(depth),
            LOGICAL => {
                let a = self.expr(depth + 1);
                let b = self.expr(depth + 1);
                if self.e.chance(50) {
                    and(a, b)
                } else {
                    Expr::LogicalOr(Box::new(a), Box::new(b))
                }
            }
            LOAD => Expr::Load(Box::new(self.expr(depth + 1))),
            CALL => self.call_expr(depth),
            _ => unreachable!("six weights"),
        }
    }

    /// `a / b` or `a % b`. The divisor cannot be 0 or -1 unless this program
    /// may trap.
    fn division(&mut self, depth: usize) -> Expr {
        let op = if self.e.chance(50) { BinOp::Rem } else { BinOp::Div };
        let a = self.expr(depth + 1);
        let b = if self.traps && self.e.chance(60) {
            match self.e.below(4) {
                0 => Expr::Lit(0),
                1 => lit(-1),
                _ => self.expr(depth + 1),
            }
        } else if self.e.chance(50) {
            Expr::Lit(self.e.range(2, 9) as i64)
        } else {
            let d = self.expr(depth + 1);
            bin(BinOp::Add, bin(BinOp::And, d, Expr::Lit(15)), Expr::Lit(1))
        };
        bin(op, a, b)
    }

    fn leaf(&mut self) -> Expr {
        if self.e.chance(55) {
            let v = self.readable_var();
            var(&v)
        } else {
            self.literal()
        }
    }

    fn literal(&mut self) -> Expr {
        match self.e.below(10) {
            0..=5 => Expr::Lit(self.e.range(0, 10) as i64),
            6 => Expr::Lit(INTERESTING[self.e.below(INTERESTING.len() as u64) as usize]),
            7 => Expr::Lit((self.e.bits() >> 1) as i64),
            8 => lit(-(self.e.range(1, 5) as i64)),
            _ => lit(i64::MIN),
        }
    }

    /// An address: usually a small constant, so that stores and loads meet.
    pub(super) fn addr(&mut self) -> Expr {
        if self.e.chance(50) {
            Expr::Lit(self.e.range(0, 15) as i64)
        } else {
            self.expr(1)
        }
    }

    /// A condition: usually a comparison.
    pub(super) fn cond(&mut self) -> Expr {
        match self.e.below(6) {
            0..=2 => self.comparison(),
            3 => self.expr(0),
            4 if self.on(Feature::Logical) => {
                let a = self.comparison();
                let b = self.comparison();
                if self.e.chance(50) {
                    and(a, b)
                } else {
                    Expr::LogicalOr(Box::new(a), Box::new(b))
                }
            }
            _ => Expr::Unary(UnOp::Not, Box::new(self.comparison())),
        }
    }

    fn comparison(&mut self) -> Expr {
        let op = COMPARISONS[self.e.below(6) as usize];
        let a = self.expr(1);
        let b = self.expr(2);
        bin(op, a, b)
    }

    /// An expression that constant folding and arithmetic simplification
    /// cannot turn into a constant: a parameter or a load, maybe with a
    /// constant added or xor-ed in. (In a program with neither parameters
    /// nor memory, a variable, which may fold.)
    pub(super) fn nonconst(&mut self) -> Expr {
        let base = if !self.params.is_empty() && (!self.on(Feature::Mem) || self.e.chance(60)) {
            let i = self.e.below(self.params.len() as u64) as usize;
            var(&self.params[i])
        } else if self.on(Feature::Mem) {
            Expr::Load(Box::new(self.addr()))
        } else {
            // No parameter and no memory: nothing is unknown to the
            // construction but what loops compute.
            let v = self.readable_var();
            var(&v)
        };
        match self.e.below(4) {
            0 => bin(BinOp::Add, base, Expr::Lit(self.e.range(1, 9) as i64)),
            1 => bin(BinOp::Xor, base, Expr::Lit(self.e.range(1, 9) as i64)),
            _ => base,
        }
    }

    /// A condition that does not fold (both ways can be taken).
    pub(super) fn nonconst_cond(&mut self) -> Expr {
        let x = self.nonconst();
        match self.e.below(3) {
            0 => bin(BinOp::And, x, Expr::Lit(1)),
            1 => bin(COMPARISONS[self.e.below(6) as usize], x, Expr::Lit(self.e.range(0, 6) as i64)),
            _ => x,
        }
    }
}
