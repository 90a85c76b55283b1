//! The lexer of the source language: turns text into tokens with positions.
//!
//! Tokens are produced on demand by [`Lexer::next_token`], so lexing a large
//! program needs no token buffer. A token borrows its text from the source.
//! Whitespace is space, `\t`, `\r` and `\n`; a line ends at `\n`, `\r\n` or
//! a `\r` alone ([`lines`] splits text the same way); a comment runs from
//! `//` to the end of the line. Any other character that starts no token is an error.
//! Literals are sequences of decimal digits; their range is checked by the
//! parser, which reports "literal out of range" at the literal.

pub use crate::ast::{is_keyword, KEYWORDS};
use crate::diag::{Diag, Pos};

/// The kind of a token.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TokenKind {
    /// An identifier that is not a keyword.
    Ident,
    /// A sequence of decimal digits (its value may be out of range).
    Int,
    Fn,
    Var,
    Mem,
    If,
    Else,
    While,
    Break,
    Continue,
    Goto,
    Out,
    Return,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Assign,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    EqEq,
    /// `!=`
    Ne,
    /// `&`
    Amp,
    /// `&&`
    AmpAmp,
    /// `|`
    Pipe,
    /// `||`
    PipePipe,
    /// `^`
    Caret,
    /// `!`
    Bang,
    /// `~`
    Tilde,
    /// The end of the text. Once reached, the lexer keeps returning it.
    Eof,
}

impl TokenKind {
    /// The fixed spelling of a keyword or punctuation token, `None` for
    /// identifiers, literals and the end of file.
    pub fn spelling(self) -> Option<&'static str> {
        use TokenKind::*;
        let s = match self {
            Ident | Int | Eof => return None,
            Fn => "fn",
            Var => "var",
            Mem => "mem",
            If => "if",
            Else => "else",
            While => "while",
            Break => "break",
            Continue => "continue",
            Goto => "goto",
            Out => "out",
            Return => "return",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            LBracket => "[",
            RBracket => "]",
            Semi => ";",
            Comma => ",",
            Colon => ":",
            Assign => "=",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            EqEq => "==",
            Ne => "!=",
            Amp => "&",
            AmpAmp => "&&",
            Pipe => "|",
            PipePipe => "||",
            Caret => "^",
            Bang => "!",
            Tilde => "~",
        };
        Some(s)
    }

    /// How an expected token of this kind is named in a message:
    /// "`;`", "identifier", "end of file".
    pub fn describe(self) -> String {
        match self {
            TokenKind::Ident => "identifier".to_string(),
            TokenKind::Int => "literal".to_string(),
            TokenKind::Eof => "end of file".to_string(),
            other => format!("`{}`", other.spelling().unwrap_or_default()),
        }
    }

    /// The keyword token spelled `s`, if `s` is a keyword.
    pub fn keyword(s: &str) -> Option<TokenKind> {
        use TokenKind::*;
        let kind = match s {
            "fn" => Fn,
            "var" => Var,
            "mem" => Mem,
            "if" => If,
            "else" => Else,
            "while" => While,
            "break" => Break,
            "continue" => Continue,
            "goto" => Goto,
            "out" => Out,
            "return" => Return,
            _ => return None,
        };
        Some(kind)
    }
}

/// A token: its kind, its text in the source and the position of its first
/// character.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a str,
    pub pos: Pos,
}

/// The longest identifier or literal text quoted in full by a message.
const MAX_QUOTED_CHARS: usize = 32;

impl Token<'_> {
    /// How the token is named in a message: "`;`", "identifier `x`",
    /// "literal `12`", "end of file". Long texts are shortened.
    pub fn describe(&self) -> String {
        let quote = || {
            let mut chars = self.text.chars();
            let mut short: String = chars.by_ref().take(MAX_QUOTED_CHARS).collect();
            if chars.next().is_some() {
                short.push_str("...");
            }
            short
        };
        match self.kind {
            TokenKind::Ident => format!("identifier `{}`", quote()),
            TokenKind::Int => format!("literal `{}`", quote()),
            kind => kind.describe(),
        }
    }
}

/// An on-demand tokenizer over a source text.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next unread character.
    offset: usize,
    /// Position of the next unread character.
    pos: Pos,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer { src, offset: 0, pos: Pos::START }
    }

    /// The next token, or an error at a character that starts no token.
    /// After the end of the text, every call returns an [`TokenKind::Eof`].
    pub fn next_token(&mut self) -> Result<Token<'a>, Diag> {
        self.skip_trivia();
        let start = self.offset;
        let pos = self.pos;
        let bytes = self.src.as_bytes();
        let Some(&first) = bytes.get(start) else {
            return Ok(Token { kind: TokenKind::Eof, text: "", pos });
        };
        let second = bytes.get(start + 1).copied();
        let kind = if first.is_ascii_alphabetic() || first == b'_' {
            self.advance_while(|b| b.is_ascii_alphanumeric() || b == b'_');
            TokenKind::keyword(&self.src[start..self.offset]).unwrap_or(TokenKind::Ident)
        } else if first.is_ascii_digit() {
            self.advance_while(|b| b.is_ascii_digit());
            TokenKind::Int
        } else {
            let (kind, len) = match (first, second) {
                (b'<', Some(b'<')) => (TokenKind::Shl, 2),
                (b'>', Some(b'>')) => (TokenKind::Shr, 2),
                (b'<', Some(b'=')) => (TokenKind::Le, 2),
                (b'>', Some(b'=')) => (TokenKind::Ge, 2),
                (b'=', Some(b'=')) => (TokenKind::EqEq, 2),
                (b'!', Some(b'=')) => (TokenKind::Ne, 2),
                (b'&', Some(b'&')) => (TokenKind::AmpAmp, 2),
                (b'|', Some(b'|')) => (TokenKind::PipePipe, 2),
                (b'(', _) => (TokenKind::LParen, 1),
                (b')', _) => (TokenKind::RParen, 1),
                (b'{', _) => (TokenKind::LBrace, 1),
                (b'}', _) => (TokenKind::RBrace, 1),
                (b'[', _) => (TokenKind::LBracket, 1),
                (b']', _) => (TokenKind::RBracket, 1),
                (b';', _) => (TokenKind::Semi, 1),
                (b',', _) => (TokenKind::Comma, 1),
                (b':', _) => (TokenKind::Colon, 1),
                (b'=', _) => (TokenKind::Assign, 1),
                (b'+', _) => (TokenKind::Plus, 1),
                (b'-', _) => (TokenKind::Minus, 1),
                (b'*', _) => (TokenKind::Star, 1),
                (b'/', _) => (TokenKind::Slash, 1),
                (b'%', _) => (TokenKind::Percent, 1),
                (b'<', _) => (TokenKind::Lt, 1),
                (b'>', _) => (TokenKind::Gt, 1),
                (b'&', _) => (TokenKind::Amp, 1),
                (b'|', _) => (TokenKind::Pipe, 1),
                (b'^', _) => (TokenKind::Caret, 1),
                (b'!', _) => (TokenKind::Bang, 1),
                (b'~', _) => (TokenKind::Tilde, 1),
                _ => {
                    let c = self.src[start..].chars().next().unwrap_or_default();
                    return Err(Diag::new(pos, format!("unexpected character `{}`", c.escape_debug())));
                }
            };
            // Every punctuation token is ASCII, so it spans `len` columns.
            self.offset += len;
            self.pos.col = self.pos.col.saturating_add(len as u32);
            kind
        };
        Ok(Token { kind, text: &self.src[start..self.offset], pos })
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) {
        let bytes = self.src.as_bytes();
        while let Some(&b) = bytes.get(self.offset) {
            match b {
                // A line ends at `\n`, `\r\n` or a `\r` alone.
                b'\n' | b'\r' if b == b'\n' || bytes.get(self.offset + 1) != Some(&b'\n') => {
                    self.offset += 1;
                    self.pos.line = self.pos.line.saturating_add(1);
                    self.pos.col = 1;
                }
                b' ' | b'\t' | b'\r' => {
                    self.offset += 1;
                    self.pos.col = self.pos.col.saturating_add(1);
                }
                b'/' if bytes.get(self.offset + 1) == Some(&b'/') => {
                    // The comment may hold any character; columns count the
                    // characters, that is the bytes that do not continue a
                    // UTF-8 sequence.
                    while let Some(&c) = bytes.get(self.offset) {
                        if c == b'\n' || c == b'\r' {
                            break;
                        }
                        self.offset += 1;
                        if c & 0xC0 != 0x80 {
                            self.pos.col = self.pos.col.saturating_add(1);
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// Advances over ASCII bytes satisfying `pred`, on the current line.
    fn advance_while(&mut self, pred: impl Fn(u8) -> bool) {
        let bytes = self.src.as_bytes();
        while bytes.get(self.offset).is_some_and(|&b| pred(b)) {
            self.offset += 1;
            self.pos.col = self.pos.col.saturating_add(1);
        }
    }
}

/// The lines of `text`, each ended by `\n`, `\r\n` or a `\r` alone (the
/// line breaks of the lexer's positions), without their ends.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = if rest[end..].starts_with("\r\n") { 2 } else { usize::from(end < rest.len()) };
        rest = &rest[end + skip..];
        Some(line)
    })
}

/// All tokens of `src`, ending with one [`TokenKind::Eof`].
pub fn tokenize(src: &str) -> Result<Vec<Token<'_>>, Diag> {
    let mut lexer = Lexer::new(src);
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token()?;
        tokens.push(token);
        if token.kind == TokenKind::Eof {
            return Ok(tokens);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_agree_with_keyword_tokens() {
        for k in KEYWORDS {
            let kind = TokenKind::keyword(k).expect("every keyword has a token");
            assert_eq!(kind.spelling(), Some(k));
        }
        assert_eq!(TokenKind::keyword("main"), None);
    }

    #[test]
    fn positions_count_characters() {
        let tokens = tokenize("// é\n  x <= 10 // ü\n\ty").unwrap();
        let seen: Vec<(TokenKind, &str, u32, u32)> =
            tokens.iter().map(|t| (t.kind, t.text, t.pos.line, t.pos.col)).collect();
        assert_eq!(
            seen,
            [
                (TokenKind::Ident, "x", 2, 3),
                (TokenKind::Le, "<=", 2, 5),
                (TokenKind::Int, "10", 2, 8),
                (TokenKind::Ident, "y", 3, 2),
                (TokenKind::Eof, "", 3, 3),
            ]
        );
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        let tokens = tokenize("// c\rx\r\ny\rz").unwrap();
        let seen: Vec<(&str, u32, u32)> = tokens.iter().map(|t| (t.text, t.pos.line, t.pos.col)).collect();
        assert_eq!(seen, [("x", 2, 1), ("y", 3, 1), ("z", 4, 1), ("", 4, 2)]);
        assert_eq!(lines("a\rb\r\nc\nd\r").collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    }

    #[test]
    fn bad_character_is_an_error() {
        let err = tokenize("x = é;").unwrap_err();
        assert_eq!(err.to_string(), "1:5: unexpected character `é`");
    }
}
