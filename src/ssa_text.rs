//! The SSA text form (`*.ssa`): its printer and its parser.
//!
//! The specification below is `docs/ssa-text-form.md`, included here so
//! that it exists in one copy, which the parser follows.
#![doc = include_str!("../docs/ssa-text-form.md")]

use std::fmt::{self, Write as _};

use crate::diag::{Diag, Pos};
use crate::entity::EntityVec;
use crate::ir::{BinOp, Block, BlockData, Call, Function, Inst, Module, Op, Phi, Terminator, UnOp, Value};

// ---------------------------------------------------------------------------
// Printer
// ---------------------------------------------------------------------------

/// Prints a module in the canonical text form: its functions, one after the
/// other.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    for f in &m.functions {
        write_function(&mut out, f);
    }
    out
}

/// Prints one function in the canonical text form.
pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    write_function(&mut out, f);
    out
}

/// The mnemonic that names an operation in the text form (`const`, `add`,
/// `store`, ...).
pub fn op_mnemonic(op: &Op) -> &'static str {
    match op {
        Op::Const(_) => "const",
        Op::Undef => "undef",
        Op::Copy(_) => "copy",
        Op::Unary(u, _) => u.mnemonic(),
        Op::Binary(b, _, _) => b.mnemonic(),
        Op::Load(_) => "load",
        Op::Store { .. } => "store",
        Op::Out(_) => "out",
        Op::Call(_) => "call",
    }
}

/// One phi as the text form writes it, without indentation or newline:
/// `v4 = phi v2, v6`.
pub fn format_phi(phi: &Phi) -> String {
    let mut out = String::new();
    write_phi(&mut out, phi);
    out
}

/// One instruction as the text form writes it, without indentation or
/// newline: `v3 = add v0, v2`, `store v3, v2`.
pub fn format_inst(inst: &Inst) -> String {
    let mut out = String::new();
    write_inst(&mut out, inst);
    out
}

/// One terminator as the text form writes it, without indentation or
/// newline: `br v5, b2, b3`.
pub fn format_terminator(term: &Terminator) -> String {
    let mut out = String::new();
    write_terminator(&mut out, term);
    out
}

/// Writes `items` separated by `, `.
fn write_list<T: std::fmt::Display>(out: &mut String, items: &[T]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        // Writing to a `String` cannot fail.
        let _ = write!(out, "{item}");
    }
}

fn write_function(out: &mut String, f: &Function) {
    let _ = write!(out, "fn {}(", f.name);
    write_list(out, &f.params);
    out.push_str(") {\n");
    for (b, data) in f.blocks.iter() {
        let _ = write!(out, "{b}");
        if !data.preds.is_empty() {
            out.push('(');
            write_list(out, &data.preds);
            out.push(')');
        }
        out.push_str(":\n");
        for phi in &data.phis {
            out.push_str("    ");
            write_phi(out, phi);
            out.push('\n');
        }
        for inst in &data.insts {
            out.push_str("    ");
            write_inst(out, inst);
            out.push('\n');
        }
        out.push_str("    ");
        write_terminator(out, &data.term);
        out.push('\n');
    }
    out.push_str("}\n");
}

fn write_phi(out: &mut String, phi: &Phi) {
    let _ = write!(out, "{} = phi", phi.dest);
    if !phi.args.is_empty() {
        out.push(' ');
        write_list(out, &phi.args);
    }
}

fn write_inst(out: &mut String, inst: &Inst) {
    if let Some(d) = inst.dest {
        let _ = write!(out, "{d} = ");
    }
    out.push_str(op_mnemonic(&inst.op));
    let _ = match inst.op {
        Op::Const(c) => write!(out, " {c}"),
        Op::Undef => Ok(()),
        Op::Copy(a) | Op::Unary(_, a) | Op::Load(a) | Op::Out(a) => write!(out, " {a}"),
        Op::Binary(_, a, b) => write!(out, " {a}, {b}"),
        Op::Store { addr, value } => write!(out, " {addr}, {value}"),
        Op::Call(ref call) => {
            let _ = write!(out, " {}(", call.callee);
            write_list(out, &call.args);
            out.push(')');
            Ok(())
        }
    };
}

fn write_terminator(out: &mut String, term: &Terminator) {
    let _ = match *term {
        Terminator::Jump(b) => write!(out, "jump {b}"),
        Terminator::Branch { cond, then_dest, else_dest } => {
            write!(out, "br {cond}, {then_dest}, {else_dest}")
        }
        Terminator::Return(v) => write!(out, "ret {v}"),
    };
}

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

/// What kind of token a [`Token`] is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TokKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Word,
    /// `-?[0-9][A-Za-z0-9_]*`, checked further when it is used.
    Int,
    /// One of `( ) , : = { }`.
    Punct(char),
}

/// A token of one line: its kind, its text and its 1-based column.
#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: TokKind,
    text: &'a str,
    col: usize,
}

/// Converts a 1-based line and column to a diagnostic position, saturating
/// on texts too large for `u32` positions.
fn pos(line: usize, col: usize) -> Pos {
    Pos { line: u32::try_from(line).unwrap_or(u32::MAX), col: u32::try_from(col).unwrap_or(u32::MAX) }
}

/// True for the characters that may continue a word or an integer.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits one line (without its `\n`) into tokens, dropping whitespace and
/// the comment.
fn lex_line(text: &str, line: usize) -> Result<Cursor<'_>, Diag> {
    let mut toks = Vec::new();
    let mut chars = text.char_indices().peekable();
    // The 0-based character column of the next character.
    let mut col = 0usize;
    let mut end_col = 1usize;
    while let Some(&(start, c)) = chars.peek() {
        let start_col = col + 1;
        let rest = &text[start..];
        if c == ' ' || c == '\t' || c == '\r' {
            chars.next();
            col += 1;
            continue;
        }
        if rest.starts_with("//") {
            break;
        }
        let starts_int = c.is_ascii_digit() || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit()));
        if c.is_ascii_alphabetic() || c == '_' || starts_int {
            chars.next();
            col += 1;
            let mut end = start + c.len_utf8();
            while let Some(&(i, d)) = chars.peek() {
                if !is_word_char(d) {
                    break;
                }
                chars.next();
                col += 1;
                end = i + d.len_utf8();
            }
            let kind = if starts_int { TokKind::Int } else { TokKind::Word };
            toks.push(Token { kind, text: &text[start..end], col: start_col });
        } else if "(),:={}".contains(c) {
            chars.next();
            col += 1;
            toks.push(Token { kind: TokKind::Punct(c), text: &text[start..start + 1], col: start_col });
        } else {
            return Err(Diag::new(pos(line, start_col), format!("unexpected character {c:?}")));
        }
        end_col = col + 1;
    }
    Ok(Cursor { toks, next: 0, line, end_col })
}

// ---------------------------------------------------------------------------
// Token cursor
// ---------------------------------------------------------------------------

/// The tokens of one line and a read position among them.
struct Cursor<'a> {
    toks: Vec<Token<'a>>,
    next: usize,
    line: usize,
    /// The column just past the last token, where "end of line" is.
    end_col: usize,
}

/// A number of the text form that does not parse: `what` is `value`,
/// `block` or `integer`, `word` the token.
#[derive(Clone, PartialEq, Eq, Debug)]
enum NumberError<'a> {
    /// The digits are malformed (integers only).
    Malformed { word: &'a str },
    /// The digits start with a zero and are more than one.
    LeadingZeros { what: &'static str, word: &'a str },
    /// The number of a `PREFIX N` word is larger than `max`.
    OutOfRange { what: &'static str, word: &'a str, prefix: char, max: u32 },
    /// The integer `-0`.
    MinusZero,
    /// The integer does not fit in 64 bits.
    TooLarge { word: &'a str },
}

impl fmt::Display for NumberError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberError::Malformed { word } => write!(f, "bad integer `{word}`"),
            NumberError::LeadingZeros { what, word } => write!(f, "bad {what} `{word}`: no leading zeros allowed"),
            NumberError::OutOfRange { what, word, prefix, max } => {
                write!(f, "{what} `{word}` is out of range (the largest is {prefix}{max})")
            }
            NumberError::MinusZero => f.write_str("bad integer `-0`: write `0`"),
            NumberError::TooLarge { word } => write!(f, "integer `{word}` does not fit in 64 bits"),
        }
    }
}

/// Parses `word` as `PREFIX N` (`v17`, `b3`). Returns `None` when the word
/// does not have that shape, and an error when the number is malformed or
/// larger than `max`.
fn numbered<'a>(word: &'a str, prefix: char, max: u32, what: &'static str) -> Option<Result<u32, NumberError<'a>>> {
    let digits = word.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Some(Err(NumberError::LeadingZeros { what, word }));
    }
    Some(match digits.parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(NumberError::OutOfRange { what, word, prefix, max }),
    })
}

/// The largest value number the text form accepts: `value_count` must be
/// able to count one more.
const MAX_VALUE: u32 = u32::MAX - 1;

/// Parses the text of an integer token.
fn parse_int(text: &str) -> Result<i64, NumberError<'_>> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::Malformed { word: text });
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(NumberError::LeadingZeros { what: "integer", word: text });
    }
    if text == "-0" {
        return Err(NumberError::MinusZero);
    }
    text.parse::<i64>().map_err(|_| NumberError::TooLarge { word: text })
}

impl<'a> Cursor<'a> {
    fn is_empty(&self) -> bool {
        self.toks.is_empty()
    }

    fn peek(&self) -> Option<Token<'a>> {
        self.toks.get(self.next).copied()
    }

    fn peek_second(&self) -> Option<Token<'a>> {
        self.toks.get(self.next + 1).copied()
    }

    fn bump(&mut self) -> Option<Token<'a>> {
        let t = self.peek();
        if t.is_some() {
            self.next += 1;
        }
        t
    }

    /// The column of the next token, or of the end of the line.
    fn here(&self) -> usize {
        self.peek().map_or(self.end_col, |t| t.col)
    }

    /// A diagnostic at the next token.
    fn error(&self, message: impl Into<String>) -> Diag {
        Diag::new(pos(self.line, self.here()), message)
    }

    /// A diagnostic at column `col` of this line.
    fn error_at(&self, col: usize, message: impl Into<String>) -> Diag {
        Diag::new(pos(self.line, col), message)
    }

    /// Describes the next token for "expected X, found Y" messages.
    fn found(&self) -> String {
        match self.peek() {
            Some(t) => format!("`{}`", t.text),
            None => "end of line".to_string(),
        }
    }

    fn next_is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(t) if t.kind == TokKind::Punct(c))
    }

    /// Consumes the punctuation `c` if it comes next.
    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.next_is_punct(c);
        if yes {
            self.next += 1;
        }
        yes
    }

    fn expect_punct(&mut self, c: char) -> Result<(), Diag> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}`, found {}", self.found())))
        }
    }

    fn expect_end(&self) -> Result<(), Diag> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error(format!("expected end of line, found {}", self.found()))),
        }
    }

    fn expect_value(&mut self) -> Result<Value, Diag> {
        let parsed = match self.peek() {
            Some(t) if t.kind == TokKind::Word => numbered(t.text, 'v', MAX_VALUE, "value"),
            _ => None,
        };
        match parsed {
            Some(Ok(n)) => {
                self.next += 1;
                Ok(Value(n))
            }
            Some(Err(e)) => Err(self.error(e.to_string())),
            None => Err(self.error(format!("expected a value such as `v0`, found {}", self.found()))),
        }
    }

    fn expect_block(&mut self) -> Result<Block, Diag> {
        let parsed = match self.peek() {
            Some(t) if t.kind == TokKind::Word => numbered(t.text, 'b', u32::MAX, "block"),
            _ => None,
        };
        match parsed {
            Some(Ok(n)) => {
                self.next += 1;
                Ok(Block(n))
            }
            Some(Err(e)) => Err(self.error(e.to_string())),
            None => Err(self.error(format!("expected a block such as `b0`, found {}", self.found()))),
        }
    }

    fn expect_int(&mut self) -> Result<i64, Diag> {
        match self.peek() {
            Some(t) if t.kind == TokKind::Int => {
                let n = parse_int(t.text).map_err(|e| self.error(e.to_string()))?;
                self.next += 1;
                Ok(n)
            }
            _ => Err(self.error(format!("expected an integer, found {}", self.found()))),
        }
    }

    /// Parses `VALUE ("," VALUE)*`, or nothing when the line ends here.
    fn value_list_to_end(&mut self) -> Result<Vec<Value>, Diag> {
        let mut values = Vec::new();
        if self.peek().is_none() {
            return Ok(values);
        }
        values.push(self.expect_value()?);
        while self.eat_punct(',') {
            values.push(self.expect_value()?);
        }
        Ok(values)
    }

    /// Parses `VALUE "," VALUE`.
    fn value_pair(&mut self) -> Result<(Value, Value), Diag> {
        let a = self.expect_value()?;
        self.expect_punct(',')?;
        let b = self.expect_value()?;
        Ok((a, b))
    }
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

/// The body line of a block, once parsed.
enum Item {
    Phi(Phi),
    /// An instruction, and for a call the column of its callee's name.
    Inst(Inst, Option<usize>),
    Term(Terminator),
}

/// A call met by the parser: its callee, its number of arguments, and
/// where the callee's name is.
struct CallSite {
    callee: String,
    argc: usize,
    pos: Pos,
}

/// A block whose lines are still being read.
struct OpenBlock {
    id: Block,
    preds: Vec<Block>,
    phis: Vec<Phi>,
    insts: Vec<Inst>,
    term: Option<Terminator>,
}

/// A function whose lines are still being read.
struct OpenFunction {
    func: Function,
    block: Option<OpenBlock>,
}

/// The parser's state between lines.
#[derive(Default)]
struct Parser {
    functions: Vec<Function>,
    /// The line of each function's header, for `parse_function`'s errors.
    header_lines: Vec<usize>,
    open: Option<OpenFunction>,
    /// Every call, for `parse_module`'s check of callees and arities.
    calls: Vec<CallSite>,
}

/// Parses a module in the text form. See the module documentation for the
/// grammar and for what is left to the verifier.
pub fn parse_module(src: &str) -> Result<Module, Diag> {
    let parser = parse_all(src)?;
    let arity: std::collections::HashMap<&str, usize> =
        parser.functions.iter().map(|f| (f.name.as_str(), f.params.len())).collect();
    for call in &parser.calls {
        if let Some(message) = crate::ast::check_call(&arity, &call.callee, call.argc) {
            return Err(Diag::new(call.pos, message));
        }
    }
    Ok(Module { functions: parser.functions })
}

/// Parses a text that holds exactly one function.
pub fn parse_function(src: &str) -> Result<Function, Diag> {
    let parser = parse_all(src)?;
    match parser.functions.len() {
        1 => Ok(parser.functions.into_iter().next().expect("one function")),
        0 => Err(Diag::new(Pos::START, "expected one function, found none")),
        _ => Err(Diag::new(pos(parser.header_lines[1], 1), "expected one function, found a second one")),
    }
}

fn parse_all(src: &str) -> Result<Parser, Diag> {
    let mut parser = Parser::default();
    let mut eof = Pos::START;
    for (index, text) in src.split('\n').enumerate() {
        let line = index + 1;
        eof = pos(line, text.chars().count() + 1);
        let mut cursor = lex_line(text, line)?;
        if !cursor.is_empty() {
            parser.line(&mut cursor)?;
        }
    }
    if let Some(open) = &parser.open {
        return Err(Diag::new(
            eof,
            format!("unexpected end of input: function `{}` is not closed by `}}`", open.func.name),
        ));
    }
    Ok(parser)
}

impl Parser {
    /// Parses one non-empty line.
    fn line(&mut self, cur: &mut Cursor<'_>) -> Result<(), Diag> {
        let Some(open) = &mut self.open else {
            let func = function_header(cur)?;
            self.header_lines.push(cur.line);
            self.open = Some(OpenFunction { func, block: None });
            return Ok(());
        };
        let first = cur.peek().expect("the line is not empty");
        match first.kind {
            TokKind::Punct('}') => {
                cur.bump();
                cur.expect_end()?;
                open.close_block(cur, first.col)?;
                let mut func = self.open.take().expect("a function is open").func;
                func.trim_value_count();
                self.functions.push(func);
                Ok(())
            }
            TokKind::Word if first.text == "fn" => {
                Err(cur
                    .error(format!("function `{}` is not closed: expected `}}` before the next `fn`", open.func.name)))
            }
            TokKind::Word if numbered(first.text, 'b', u32::MAX, "block").is_some() => open.block_header(cur),
            _ => {
                let item = body_line(cur)?;
                if let Item::Inst(Inst { op: Op::Call(call), .. }, Some(col)) = &item {
                    let pos = pos(cur.line, *col);
                    self.calls.push(CallSite { callee: call.callee.clone(), argc: call.args.len(), pos });
                }
                open.add(cur, first.col, item)
            }
        }
    }
}

/// Parses `fn NAME(PARAMS) {`.
fn function_header(cur: &mut Cursor<'_>) -> Result<Function, Diag> {
    match cur.peek() {
        Some(t) if t.kind == TokKind::Word && t.text == "fn" => {
            cur.bump();
        }
        _ => return Err(cur.error(format!("expected `fn`, found {}", cur.found()))),
    }
    let name = match cur.peek() {
        Some(t) if t.kind == TokKind::Word => {
            cur.bump();
            t.text.to_string()
        }
        _ => return Err(cur.error(format!("expected a function name, found {}", cur.found()))),
    };
    cur.expect_punct('(')?;
    let mut params = Vec::new();
    if !cur.eat_punct(')') {
        params.push(cur.expect_value()?);
        while cur.eat_punct(',') {
            params.push(cur.expect_value()?);
        }
        cur.expect_punct(')')?;
    }
    cur.expect_punct('{')?;
    cur.expect_end()?;
    Ok(Function { name, params, blocks: EntityVec::new(), value_count: 0 })
}

/// Parses a phi, an instruction or a terminator.
fn body_line(cur: &mut Cursor<'_>) -> Result<Item, Diag> {
    let first = cur.peek().expect("the line is not empty");
    let second_is_eq = matches!(cur.peek_second(), Some(t) if t.kind == TokKind::Punct('='));
    let looks_like_value = first.kind == TokKind::Word && numbered(first.text, 'v', MAX_VALUE, "value").is_some();
    let dest = if second_is_eq {
        let v = cur.expect_value()?;
        cur.bump();
        Some(v)
    } else if looks_like_value {
        return Err(cur.error_at(first.col, format!("expected `=` after `{}`", first.text)));
    } else {
        None
    };
    let mnemonic = match cur.peek() {
        Some(t) if t.kind == TokKind::Word => t,
        _ => return Err(cur.error(format!("expected an instruction, found {}", cur.found()))),
    };
    cur.bump();
    let op = match mnemonic.text {
        "phi" => {
            let Some(dest) = dest else {
                return Err(cur.error_at(mnemonic.col, "a phi must define a value: write `vN = phi ...`"));
            };
            let args = cur.value_list_to_end()?;
            cur.expect_end()?;
            return Ok(Item::Phi(Phi { dest, args }));
        }
        "jump" | "br" | "ret" => {
            if dest.is_some() {
                return Err(cur.error_at(first.col, "a terminator defines no value"));
            }
            let term = match mnemonic.text {
                "jump" => Terminator::Jump(cur.expect_block()?),
                "br" => {
                    let cond = cur.expect_value()?;
                    cur.expect_punct(',')?;
                    let then_dest = cur.expect_block()?;
                    cur.expect_punct(',')?;
                    let else_dest = cur.expect_block()?;
                    Terminator::Branch { cond, then_dest, else_dest }
                }
                _ => Terminator::Return(cur.expect_value()?),
            };
            cur.expect_end()?;
            return Ok(Item::Term(term));
        }
        "const" => Op::Const(cur.expect_int()?),
        "undef" => Op::Undef,
        "copy" => Op::Copy(cur.expect_value()?),
        "load" => Op::Load(cur.expect_value()?),
        "out" => Op::Out(cur.expect_value()?),
        "store" => {
            let (addr, value) = cur.value_pair()?;
            Op::Store { addr, value }
        }
        "call" => {
            let (op, col) = call_operands(cur)?;
            cur.expect_end()?;
            return Ok(Item::Inst(Inst { dest, op }, Some(col)));
        }
        other => {
            if let Some(u) = UnOp::from_mnemonic(other) {
                Op::Unary(u, cur.expect_value()?)
            } else if let Some(b) = BinOp::from_mnemonic(other) {
                let (x, y) = cur.value_pair()?;
                Op::Binary(b, x, y)
            } else {
                return Err(cur.error_at(mnemonic.col, format!("unknown mnemonic `{other}`")));
            }
        }
    };
    cur.expect_end()?;
    Ok(Item::Inst(Inst { dest, op }, None))
}

/// Parses `NAME "(" [VALUE ("," VALUE)*] ")"` after `call`; returns the
/// operation and the column of the name.
fn call_operands(cur: &mut Cursor<'_>) -> Result<(Op, usize), Diag> {
    let (callee, col) = match cur.peek() {
        Some(t) if t.kind == TokKind::Word => {
            cur.bump();
            (t.text.to_string(), t.col)
        }
        _ => return Err(cur.error(format!("expected the name of the function called, found {}", cur.found()))),
    };
    cur.expect_punct('(')?;
    let mut args = Vec::new();
    if !cur.eat_punct(')') {
        args.push(cur.expect_value()?);
        while cur.eat_punct(',') {
            args.push(cur.expect_value()?);
        }
        cur.expect_punct(')')?;
    }
    Ok((Op::Call(Box::new(Call { callee, args })), col))
}

impl OpenFunction {
    /// Ends the open block, if any, at a line starting at column `col` (a
    /// block header or the closing `}`).
    fn close_block(&mut self, cur: &Cursor<'_>, col: usize) -> Result<(), Diag> {
        let Some(block) = self.block.take() else {
            return Ok(());
        };
        let Some(term) = block.term else {
            return Err(cur.error_at(col, format!("block {} has no terminator", block.id)));
        };
        self.func.blocks.push(BlockData { preds: block.preds, phis: block.phis, insts: block.insts, term });
        Ok(())
    }

    /// Parses `bN:` or `bN(P1, P2, ...):` and opens that block.
    fn block_header(&mut self, cur: &mut Cursor<'_>) -> Result<(), Diag> {
        let col = cur.here();
        let id = cur.expect_block()?;
        let mut preds = Vec::new();
        if cur.eat_punct('(') {
            if cur.next_is_punct(')') {
                return Err(
                    cur.error(format!("empty predecessor list: write `{id}:` for a block without predecessors"))
                );
            }
            preds.push(cur.expect_block()?);
            while cur.eat_punct(',') {
                preds.push(cur.expect_block()?);
            }
            cur.expect_punct(')')?;
        }
        cur.expect_punct(':')?;
        cur.expect_end()?;
        self.close_block(cur, col)?;
        let expected = self.func.blocks.len();
        if id.0 as usize != expected {
            return Err(cur.error_at(
                col,
                format!("expected block b{expected}, found {id}: blocks must appear in order b0, b1, ... without gaps"),
            ));
        }
        self.block = Some(OpenBlock { id, preds, phis: Vec::new(), insts: Vec::new(), term: None });
        Ok(())
    }

    /// Adds a parsed body line, which starts at column `col`, to the open
    /// block.
    fn add(&mut self, cur: &Cursor<'_>, col: usize, item: Item) -> Result<(), Diag> {
        let Some(block) = &mut self.block else {
            return Err(cur.error_at(col, "instruction before the first block header `b0:`"));
        };
        if let Some(term) = &block.term {
            let message = match item {
                Item::Term(_) => format!(
                    "duplicate terminator in block {}: it already ends with `{}`",
                    block.id,
                    format_terminator(term)
                ),
                _ => format!("instruction after the terminator of block {}", block.id),
            };
            return Err(cur.error_at(col, message));
        }
        match item {
            Item::Phi(phi) => {
                if !block.insts.is_empty() {
                    return Err(cur.error_at(
                        col,
                        format!("phi after a non-phi instruction in block {}: phis come first", block.id),
                    ));
                }
                block.phis.push(phi);
            }
            Item::Inst(inst, _) => block.insts.push(inst),
            Item::Term(term) => block.term = Some(term),
        }
        Ok(())
    }
}
