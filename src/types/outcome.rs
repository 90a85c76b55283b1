//! The observable outcome of a run, shared by every engine.
//!
//! docs/source-language.md, "Semantics": the outcome is the output trace,
//! then the return value or the trap, and the final contents of `mem`.
//! Every stage of the pipeline is compared on exactly this.

use std::fmt;

/// How a run ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum End {
    /// `return v`, or falling off the end of `main` (0).
    Return(i64),
    /// A program trap.
    Trap(Trap),
    /// The fuel budget ran out. Not a program outcome: a run that ends this
    /// way is inconclusive, and comparisons discard it (see `pipeline.rs`).
    OutOfFuel,
    /// A call would have made the call stack deeper than
    /// [`crate::ast::MAX_CALL_DEPTH`]. Not a program outcome either: like
    /// running out of fuel, it is a limit of the harness, and a run that
    /// ends this way is inconclusive.
    CallDepthExceeded,
}

impl End {
    /// True when the run hit a limit of the harness (fuel or call depth)
    /// rather than ending as the program says: such a run is inconclusive.
    pub fn is_inconclusive(self) -> bool {
        matches!(self, End::OutOfFuel | End::CallDepthExceeded)
    }
}

/// The traps the language defines.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Trap {
    /// Division or remainder by zero, or `i64::MIN / -1` (and `% -1`).
    DivideError,
}

/// Everything a run shows: trace, end, final memory.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// The values of the executed `out` statements, in order.
    pub trace: Vec<i64>,
    pub end: End,
    /// The final contents of `mem`, `ast::MEM_WORDS` words.
    pub mem: Vec<i64>,
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trap::DivideError => f.write_str("divide-error"),
        }
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            End::Return(v) => write!(f, "return {v}"),
            End::Trap(t) => write!(f, "trap {t}"),
            End::OutOfFuel => f.write_str("out-of-fuel"),
            End::CallDepthExceeded => f.write_str("call-depth-exceeded"),
        }
    }
}

impl Outcome {
    /// The words of `mem` that are not 0, as `(index, value)`.
    pub fn nonzero_mem(&self) -> Vec<(usize, i64)> {
        self.mem.iter().enumerate().filter(|(_, &v)| v != 0).map(|(i, &v)| (i, v)).collect()
    }

    /// The format of `ssaref run`: one decimal line per `out`, then the end.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for v in &self.trace {
            s.push_str(&v.to_string());
            s.push('\n');
        }
        s.push_str(&self.end.to_string());
        s.push('\n');
        s
    }

    /// `render()` followed by one `mem[i] = v` line per non-zero word: the
    /// complete outcome as text, used by test expectations and diffs.
    pub fn render_full(&self) -> String {
        let mut s = self.render();
        for (i, v) in self.nonzero_mem() {
            s.push_str(&format!("mem[{i}] = {v}\n"));
        }
        s
    }
}
