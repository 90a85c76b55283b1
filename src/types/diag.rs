//! Diagnostics of the front end: an error message with a source position.
//!
//! Lines and columns are 1-based. A column counts characters (not bytes)
//! from the start of the line, so a position points at the same place in
//! any editor. A diagnostic prints as `LINE:COL: message`, or with
//! [`Diag::with_file`] as `FILE:LINE:COL: message`.

use std::fmt;

/// A position in the source text: 1-based line and 1-based character column.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// The first character of the text.
    pub const START: Pos = Pos { line: 1, col: 1 };
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// An error found in the source text, with the position of the offending token.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Diag {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Diag {
    /// A diagnostic at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        Diag { line: pos.line, col: pos.col, message: message.into() }
    }

    /// The position the diagnostic points at.
    pub fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }

    /// The diagnostic prefixed by a file name: `FILE:LINE:COL: message`.
    pub fn with_file(&self, file: &str) -> String {
        format!("{file}:{self}")
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for Diag {}
