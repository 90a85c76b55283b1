//! The error every pass and checker of the library returns.
//!
//! It lives here, below the passes, so that a pass can return it without
//! importing the pipeline that runs the pass (imports flow downward).

use std::fmt;

/// A pass produced IR that a checker rejects: a bug of ssaref.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PassError {
    /// The pass whose output failed (e.g. `braun[phi+scc]`).
    pub pass: String,
    /// The checker that failed (e.g. `verify`, `minimal`).
    pub check: &'static str,
    pub message: String,
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "after {}: check `{}` failed: {}", self.pass, self.check, self.message)
    }
}

impl std::error::Error for PassError {}
