//! Tokens of the source language. (Filled in by the front-end work.)

/// The reserved words of the source language.
pub const KEYWORDS: [&str; 11] =
    ["fn", "var", "mem", "if", "else", "while", "break", "continue", "goto", "out", "return"];

/// True when `s` is a reserved word.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}
