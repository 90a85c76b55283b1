//! What every engine of the oracle shares: its error type (defined with
//! the `Oracle` trait in `ssaref-types`), the check of `main`'s arguments,
//! and the machine state (the trace, `mem`, the fuel left).

use crate::semantics;
use ssaref_types::outcome::{End, Outcome};

/// A failure of the oracle to run a program (the error of the `Oracle`
/// trait, defined with it in `ssaref-types`).
pub use ssaref_types::oracle::OracleError as InterpError;

/// Fails when `main` gets more arguments than it has parameters.
pub(crate) fn check_args(params: usize, args: &[i64]) -> Result<(), InterpError> {
    if args.len() > params {
        Err(InterpError::TooManyArguments { expected: params, got: args.len() })
    } else {
        Ok(())
    }
}

/// The state every engine shares: the trace, `mem` and the fuel left.
pub(crate) struct Machine {
    pub(crate) trace: Vec<i64>,
    pub(crate) mem: Vec<i64>,
    pub(crate) fuel: u64,
}

impl Machine {
    pub(crate) fn new(fuel: u64) -> Self {
        Machine { trace: Vec::new(), mem: vec![0; ssaref_types::ast::MEM_WORDS], fuel }
    }

    /// Takes `cost` units of fuel; false (taking nothing) when too few are left.
    #[inline(always)]
    pub(crate) fn burn(&mut self, cost: u64) -> bool {
        if self.fuel < cost {
            false
        } else {
            self.fuel -= cost;
            true
        }
    }

    #[inline(always)]
    pub(crate) fn load(&self, addr: i64) -> i64 {
        self.mem[semantics::mem_index(addr)]
    }

    #[inline(always)]
    pub(crate) fn store(&mut self, addr: i64, value: i64) {
        self.mem[semantics::mem_index(addr)] = value;
    }

    pub(crate) fn finish(self, end: End) -> Outcome {
        Outcome { trace: self.trace, end, mem: self.mem }
    }
}
