//! The parser of the source language: text to [`Program`].
//!
//! Statements are parsed without recursion: the blocks that are open at a
//! point of the text live on an explicit stack (see `BodyParser`), so nesting
//! depth and program length cost heap, not thread stack. Expressions are
//! parsed by recursive descent, but the recursion only grows at `(` and
//! `mem[`, and both that nesting and the height of the tree being built are
//! checked against [`MAX_EXPR_DEPTH`] before going deeper. Binary operators
//! are combined by a loop with an explicit operand stack (operator
//! precedence parsing), and a run of prefix operators is collected in a
//! list, so neither `1+1+1+...` nor `------x` recurses.
//!
//! Besides syntax, the parser checks what [`Program::validate`] checks,
//! each error at the offending token: unknown and duplicate labels (labels
//! are per function), `break`/`continue` outside a loop, literals outside
//! `0..=i64::MAX`, too deep expressions, a missing `main`, duplicate function
//! names and duplicate parameter names. It also refuses statements nested
//! deeper than [`MAX_NESTING`], a bound of the text form only.

use crate::ast::{BinOp, Block, Expr, Function, Program, Stmt, UnOp, MAX_EXPR_DEPTH, MAX_NESTING};
use crate::diag::{Diag, Pos};
use crate::frontend::lexer::{Lexer, Token, TokenKind};
use std::collections::{HashMap, HashSet};

/// Parses a whole program.
pub fn parse_program(src: &str) -> Result<Program, Diag> {
    Parser::new(src)?.program()
}

type PResult<T> = Result<T, Diag>;

/// The message of every "expression too deep" error.
fn too_deep(pos: Pos) -> Diag {
    Diag::new(pos, format!("expression nested deeper than {MAX_EXPR_DEPTH}"))
}

/// An infix operator: a [`BinOp`] or one of the short-circuit operators.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Infix {
    LogicalOr,
    LogicalAnd,
    Binary(BinOp),
}

impl Infix {
    /// The infix operator a token stands for, if any.
    fn of(kind: TokenKind) -> Option<Infix> {
        let op = match kind {
            TokenKind::PipePipe => return Some(Infix::LogicalOr),
            TokenKind::AmpAmp => return Some(Infix::LogicalAnd),
            TokenKind::Pipe => BinOp::Or,
            TokenKind::Caret => BinOp::Xor,
            TokenKind::Amp => BinOp::And,
            TokenKind::EqEq => BinOp::Eq,
            TokenKind::Ne => BinOp::Ne,
            TokenKind::Lt => BinOp::Lt,
            TokenKind::Le => BinOp::Le,
            TokenKind::Gt => BinOp::Gt,
            TokenKind::Ge => BinOp::Ge,
            TokenKind::Shl => BinOp::Shl,
            TokenKind::Shr => BinOp::Shr,
            TokenKind::Plus => BinOp::Add,
            TokenKind::Minus => BinOp::Sub,
            TokenKind::Star => BinOp::Mul,
            TokenKind::Slash => BinOp::Div,
            TokenKind::Percent => BinOp::Rem,
            _ => return None,
        };
        Some(Infix::Binary(op))
    }

    /// Binding strength: 1 for `||`, 2 for `&&`, then [`BinOp::precedence`].
    fn precedence(self) -> u8 {
        match self {
            Infix::LogicalOr => 1,
            Infix::LogicalAnd => 2,
            Infix::Binary(op) => op.precedence(),
        }
    }
}

/// The prefix operator a token stands for, if any.
fn prefix_op(kind: TokenKind) -> Option<UnOp> {
    match kind {
        TokenKind::Minus => Some(UnOp::Neg),
        TokenKind::Bang => Some(UnOp::Not),
        TokenKind::Tilde => Some(UnOp::BitNot),
        _ => None,
    }
}

/// An expression together with its tree height ([`Expr::depth`]), which is
/// tracked while building so that it never needs a recursive walk.
struct Operand {
    expr: Expr,
    height: usize,
}

impl Operand {
    fn leaf(expr: Expr) -> Self {
        Operand { expr, height: 1 }
    }

    /// A node over one child, or an error at `pos` when it would be too deep.
    fn unary(self, pos: Pos, make: impl FnOnce(Box<Expr>) -> Expr) -> PResult<Operand> {
        let height = self.height + 1;
        if height > MAX_EXPR_DEPTH {
            return Err(too_deep(pos));
        }
        Ok(Operand { expr: make(Box::new(self.expr)), height })
    }

    /// `lhs op rhs`, or an error at the operator when it would be too deep.
    fn infix(lhs: Operand, op: Infix, pos: Pos, rhs: Operand) -> PResult<Operand> {
        let height = lhs.height.max(rhs.height) + 1;
        if height > MAX_EXPR_DEPTH {
            return Err(too_deep(pos));
        }
        let (a, b) = (Box::new(lhs.expr), Box::new(rhs.expr));
        let expr = match op {
            Infix::LogicalOr => Expr::LogicalOr(a, b),
            Infix::LogicalAnd => Expr::LogicalAnd(a, b),
            Infix::Binary(op) => Expr::Binary(op, a, b),
        };
        Ok(Operand { expr, height })
    }
}

/// The token-level state: the lexer, one token of lookahead and the
/// expression nesting depth.
struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The current, not yet consumed token.
    tok: Token<'a>,
    /// How many `(` and `mem[` enclose the expression being parsed.
    nesting: usize,
    /// Every call parsed so far: callee, number of arguments, and the
    /// position of the callee's name. They are checked once every function
    /// is known, since a call may name a function defined after it.
    calls: Vec<(&'a str, usize, Pos)>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> PResult<Self> {
        let mut lexer = Lexer::new(src);
        let tok = lexer.next_token()?;
        Ok(Parser { lexer, tok, nesting: 0, calls: Vec::new() })
    }

    /// Consumes the current token and returns it.
    fn bump(&mut self) -> PResult<Token<'a>> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    /// True when the current token is `kind`.
    fn at(&self, kind: TokenKind) -> bool {
        self.tok.kind == kind
    }

    /// An error at the current token: "expected WHAT, found TOKEN".
    fn unexpected(&self, what: &str) -> Diag {
        Diag::new(self.tok.pos, format!("expected {what}, found {}", self.tok.describe()))
    }

    /// Consumes a token of kind `kind`, or fails.
    fn expect(&mut self, kind: TokenKind) -> PResult<Token<'a>> {
        if self.at(kind) {
            self.bump()
        } else {
            Err(self.unexpected(&kind.describe()))
        }
    }

    /// Consumes an identifier, or fails.
    fn ident(&mut self) -> PResult<Token<'a>> {
        self.expect(TokenKind::Ident)
    }

    /// `program = function { function }`.
    fn program(mut self) -> PResult<Program> {
        let mut functions = Vec::new();
        let mut names: HashSet<&'a str> = HashSet::new();
        loop {
            functions.push(self.function(&mut names)?);
            if self.at(TokenKind::Eof) {
                break;
            }
        }
        if !names.contains("main") {
            return Err(Diag::new(self.tok.pos, "no function named `main`"));
        }
        let arity: HashMap<&str, usize> = functions.iter().map(|f| (f.name.as_str(), f.params.len())).collect();
        for &(callee, argc, pos) in &self.calls {
            if let Some(message) = crate::ast::check_call(&arity, callee, argc) {
                return Err(Diag::new(pos, message));
            }
        }
        Ok(Program { functions })
    }

    /// `"fn" ident "(" [ ident { "," ident } ] ")" block`. `names` holds the
    /// names of the functions before this one.
    fn function(&mut self, names: &mut HashSet<&'a str>) -> PResult<Function> {
        self.expect(TokenKind::Fn)?;
        let name = self.ident()?;
        if !names.insert(name.text) {
            return Err(Diag::new(name.pos, format!("duplicate function `{}`", name.text)));
        }
        self.expect(TokenKind::LParen)?;
        let mut params: Vec<String> = Vec::new();
        let mut seen: HashSet<&'a str> = HashSet::new();
        if !self.at(TokenKind::RParen) {
            loop {
                let param = self.ident()?;
                if !seen.insert(param.text) {
                    return Err(Diag::new(param.pos, format!("duplicate parameter `{}`", param.text)));
                }
                params.push(param.text.to_string());
                if !self.at(TokenKind::Comma) {
                    break;
                }
                self.bump()?;
            }
        }
        self.expect(TokenKind::RParen)?;
        self.expect(TokenKind::LBrace)?;
        let body = BodyParser::new(self).parse()?;
        Ok(Function { name: name.text.to_string(), params, body })
    }

    /// `expr`: a loop over infix operators with an explicit stack of pending
    /// left operands. An operand is reduced into its left neighbour while
    /// that neighbour's operator binds at least as tightly as the next one,
    /// which makes every operator left-associative.
    fn expr(&mut self) -> PResult<Operand> {
        let mut pending: Vec<(Operand, Infix, Pos)> = Vec::new();
        let mut current = self.unary()?;
        loop {
            let next = Infix::of(self.tok.kind);
            let binds_tighter = |top: &Infix| next.is_some_and(|n| n.precedence() > top.precedence());
            while let Some((lhs, op, pos)) = pending.pop_if(|(_, top, _)| !binds_tighter(top)) {
                current = Operand::infix(lhs, op, pos, current)?;
            }
            let Some(op) = next else {
                return Ok(current);
            };
            let pos = self.bump()?.pos;
            pending.push((current, op, pos));
            current = self.unary()?;
        }
    }

    /// `{ ("-" | "!" | "~") } primary`, without recursion on the operators.
    fn unary(&mut self) -> PResult<Operand> {
        let mut prefixes: Vec<(UnOp, Pos)> = Vec::new();
        while let Some(op) = prefix_op(self.tok.kind) {
            // Each operator adds a level above a primary of height >= 1, so
            // with this one the node of the first would be too tall.
            if prefixes.len() + 1 >= MAX_EXPR_DEPTH {
                let first = prefixes.first().map_or(self.tok.pos, |&(_, pos)| pos);
                return Err(too_deep(first));
            }
            prefixes.push((op, self.tok.pos));
            self.bump()?;
        }
        let mut operand = self.primary()?;
        while let Some((op, pos)) = prefixes.pop() {
            operand = operand.unary(pos, |e| Expr::Unary(op, e))?;
        }
        Ok(operand)
    }

    /// `literal | ident | "mem" "[" expr "]" | "(" expr ")"`.
    fn primary(&mut self) -> PResult<Operand> {
        match self.tok.kind {
            TokenKind::Int => {
                let tok = self.bump()?;
                match tok.text.parse::<i64>() {
                    Ok(v) => Ok(Operand::leaf(Expr::Lit(v))),
                    Err(_) => Err(Diag::new(tok.pos, "literal out of range")),
                }
            }
            TokenKind::Ident => {
                let tok = self.bump()?;
                if self.at(TokenKind::LParen) {
                    let (args, height) = self.call_args(tok)?;
                    return Ok(Operand { expr: Expr::Call(tok.text.to_string(), args), height });
                }
                Ok(Operand::leaf(Expr::Var(tok.text.to_string())))
            }
            TokenKind::Mem => {
                let mem = self.bump()?;
                self.expect(TokenKind::LBracket)?;
                let addr = self.nested(mem.pos)?;
                self.expect(TokenKind::RBracket)?;
                addr.unary(mem.pos, Expr::Load)
            }
            TokenKind::LParen => {
                let open = self.bump()?;
                let inner = self.nested(open.pos)?;
                self.expect(TokenKind::RParen)?;
                Ok(inner)
            }
            _ => Err(self.unexpected("expression")),
        }
    }

    /// An expression one `(` or `mem[` deeper, or an error at `open` when
    /// that nesting exceeds [`MAX_EXPR_DEPTH`]. This is the only place where
    /// expression parsing recurses.
    fn nested(&mut self, open: Pos) -> PResult<Operand> {
        if self.nesting >= MAX_EXPR_DEPTH {
            return Err(too_deep(open));
        }
        self.nesting += 1;
        let result = self.expr();
        self.nesting -= 1;
        result
    }

    /// `"(" [ expr { "," expr } ] ")"` after the callee `name` of a call:
    /// the arguments and the height of the call node. Each argument is one
    /// nesting level deeper, like a parenthesised expression.
    fn call_args(&mut self, name: Token<'a>) -> PResult<(Vec<Expr>, usize)> {
        let open = self.expect(TokenKind::LParen)?;
        let (mut args, mut height) = (Vec::new(), 1);
        if !self.at(TokenKind::RParen) {
            loop {
                let arg = self.nested(open.pos)?;
                height = height.max(arg.height + 1);
                args.push(arg.expr);
                if !self.at(TokenKind::Comma) {
                    break;
                }
                self.bump()?;
            }
        }
        self.expect(TokenKind::RParen)?;
        if height > MAX_EXPR_DEPTH {
            return Err(too_deep(name.pos));
        }
        self.calls.push((name.text, args.len(), name.pos));
        Ok((args, height))
    }

    /// `"(" expr ")"` as in `if` and `while` headers.
    fn condition(&mut self) -> PResult<Expr> {
        self.expect(TokenKind::LParen)?;
        let cond = self.expr()?.expr;
        self.expect(TokenKind::RParen)?;
        Ok(cond)
    }

    /// An expression followed by `;`.
    fn expr_semi(&mut self) -> PResult<Expr> {
        let e = self.expr()?.expr;
        self.expect(TokenKind::Semi)?;
        Ok(e)
    }
}

/// The `if`s of an `else if` chain that enclose the `if` being parsed,
/// outermost first: each is a condition and a then-block whose else-block
/// is the next `if` of the chain.
type ElseIfChain = Vec<(Expr, Block)>;

/// Wraps a finished `if` statement into the `if`s of its `else if` chain.
fn wrap_else_if_chain(mut chain: ElseIfChain, mut stmt: Stmt) -> Stmt {
    while let Some((cond, then)) = chain.pop() {
        stmt = Stmt::If(cond, then, Some(Block::new(vec![stmt])));
    }
    stmt
}

/// A construct whose block is open, waiting for its `}`.
enum Open {
    /// A nested `{ .. }` statement.
    Block,
    /// The then-block of `if (cond)`.
    Then { cond: Expr, chain: ElseIfChain },
    /// The else-block of `if (cond) { then } else`.
    Else { cond: Expr, then: Block, chain: ElseIfChain },
    /// The body of `while (cond)`.
    While(Expr),
}

/// An open construct and the statements of the block around it, parsed so
/// far.
struct Frame {
    open: Open,
    outer: Vec<Stmt>,
    /// The levels of the tree this block adds: one, and one more per `if`
    /// of its `else if` chain.
    levels: usize,
}

/// Parses one function body without recursion: `stack` holds the open
/// constructs, innermost last, and `stmts` the statements of the innermost
/// open block.
struct BodyParser<'p, 'a> {
    p: &'p mut Parser<'a>,
    stack: Vec<Frame>,
    stmts: Vec<Stmt>,
    /// Number of `While` frames on the stack.
    loops: usize,
    /// How deep the innermost open block is in the tree: the sum of the
    /// frames' `levels`.
    depth: usize,
    labels: HashSet<&'a str>,
    /// Every `goto`: its label and the position of the `goto` keyword.
    gotos: Vec<(&'a str, Pos)>,
}

impl<'p, 'a> BodyParser<'p, 'a> {
    fn new(p: &'p mut Parser<'a>) -> Self {
        BodyParser {
            p,
            stack: Vec::new(),
            stmts: Vec::new(),
            loops: 0,
            depth: 0,
            labels: HashSet::new(),
            gotos: Vec::new(),
        }
    }

    /// Parses statements up to the `}` that closes the body (the `{` is
    /// already consumed), then checks the `goto`s.
    fn parse(mut self) -> PResult<Block> {
        let body = loop {
            if let Some(body) = self.step()? {
                break body;
            }
        };
        let unknown = self.gotos.iter().find(|(l, _)| !self.labels.contains(l));
        if let Some((label, pos)) = unknown {
            return Err(Diag::new(*pos, format!("unknown label `{label}`")));
        }
        Ok(body)
    }

    /// Parses one statement, or the head of a compound statement, or one
    /// `}`. Returns the body once its own `}` is consumed.
    fn step(&mut self) -> PResult<Option<Block>> {
        let tok = self.p.tok;
        let stmt = match tok.kind {
            TokenKind::RBrace => {
                self.p.bump()?;
                return self.close();
            }
            TokenKind::LBrace => {
                self.p.bump()?;
                self.open(Open::Block, tok.pos)?;
                return Ok(None);
            }
            TokenKind::If => {
                self.if_head(ElseIfChain::new())?;
                return Ok(None);
            }
            TokenKind::While => {
                self.p.bump()?;
                let cond = self.p.condition()?;
                self.p.expect(TokenKind::LBrace)?;
                self.loops += 1;
                self.open(Open::While(cond), tok.pos)?;
                return Ok(None);
            }
            TokenKind::Var => {
                self.p.bump()?;
                let name = self.p.ident()?;
                self.p.expect(TokenKind::Assign)?;
                Stmt::Var(name.text.to_string(), self.p.expr_semi()?)
            }
            TokenKind::Ident => {
                self.p.bump()?;
                match self.p.tok.kind {
                    TokenKind::Assign => {
                        self.p.bump()?;
                        Stmt::Assign(tok.text.to_string(), self.p.expr_semi()?)
                    }
                    TokenKind::Colon => {
                        self.p.bump()?;
                        if !self.labels.insert(tok.text) {
                            let message = format!("duplicate label `{}`", tok.text);
                            return Err(Diag::new(tok.pos, message));
                        }
                        Stmt::Label(tok.text.to_string())
                    }
                    TokenKind::LParen => {
                        let (args, _) = self.p.call_args(tok)?;
                        self.p.expect(TokenKind::Semi)?;
                        Stmt::Call(tok.text.to_string(), args)
                    }
                    _ => return Err(self.p.unexpected("`=`, `:` or `(`")),
                }
            }
            TokenKind::Mem => {
                self.p.bump()?;
                self.p.expect(TokenKind::LBracket)?;
                let addr = self.p.expr()?.expr;
                self.p.expect(TokenKind::RBracket)?;
                self.p.expect(TokenKind::Assign)?;
                Stmt::Store(addr, self.p.expr_semi()?)
            }
            TokenKind::Break | TokenKind::Continue => {
                self.p.bump()?;
                if self.loops == 0 {
                    let message = format!("`{}` outside a loop", tok.text);
                    return Err(Diag::new(tok.pos, message));
                }
                self.p.expect(TokenKind::Semi)?;
                if tok.kind == TokenKind::Break {
                    Stmt::Break
                } else {
                    Stmt::Continue
                }
            }
            TokenKind::Goto => {
                self.p.bump()?;
                let label = self.p.ident()?;
                self.p.expect(TokenKind::Semi)?;
                self.gotos.push((label.text, tok.pos));
                Stmt::Goto(label.text.to_string())
            }
            TokenKind::Out => {
                self.p.bump()?;
                Stmt::Out(self.p.expr_semi()?)
            }
            TokenKind::Return => {
                self.p.bump()?;
                Stmt::Return(self.p.expr_semi()?)
            }
            TokenKind::Eof => return Err(self.p.unexpected("`}`")),
            _ => return Err(self.p.unexpected("statement")),
        };
        self.stmts.push(stmt);
        Ok(None)
    }

    /// `"if" "(" expr ")" "{"`: opens the then-block of an `if` that is the
    /// last of `chain`'s else-blocks.
    fn if_head(&mut self, chain: ElseIfChain) -> PResult<()> {
        let pos = self.p.expect(TokenKind::If)?.pos;
        let cond = self.p.condition()?;
        self.p.expect(TokenKind::LBrace)?;
        self.open(Open::Then { cond, chain }, pos)
    }

    /// Starts a new innermost block for `open`, the construct that starts
    /// at `pos`; an error there when the block would be nested deeper
    /// than [`MAX_NESTING`].
    fn open(&mut self, open: Open, pos: Pos) -> PResult<()> {
        let levels = match &open {
            Open::Then { chain, .. } | Open::Else { chain, .. } => 1 + chain.len(),
            Open::Block | Open::While(_) => 1,
        };
        if self.depth + levels > MAX_NESTING {
            return Err(Diag::new(pos, format!("statements nested deeper than {MAX_NESTING} levels")));
        }
        self.depth += levels;
        let outer = std::mem::take(&mut self.stmts);
        self.stack.push(Frame { open, outer, levels });
        Ok(())
    }

    /// Handles a consumed `}`: finishes the innermost block, or returns the
    /// body when no construct is open.
    fn close(&mut self) -> PResult<Option<Block>> {
        let block = Block::new(std::mem::take(&mut self.stmts));
        let Some(Frame { open, outer, levels }) = self.stack.pop() else {
            return Ok(Some(block));
        };
        self.depth -= levels;
        self.stmts = outer;
        let stmt = match open {
            Open::Block => Stmt::Block(block),
            Open::While(cond) => {
                self.loops -= 1;
                Stmt::While(cond, block)
            }
            Open::Else { cond, then, chain } => wrap_else_if_chain(chain, Stmt::If(cond, then, Some(block))),
            Open::Then { cond, chain } => {
                if self.p.at(TokenKind::Else) {
                    self.else_head(cond, block, chain)?;
                    return Ok(None);
                }
                wrap_else_if_chain(chain, Stmt::If(cond, block, None))
            }
        };
        self.stmts.push(stmt);
        Ok(None)
    }

    /// `"else" ( "{" | if-head )` after the then-block of `if (cond)`.
    fn else_head(&mut self, cond: Expr, then: Block, mut chain: ElseIfChain) -> PResult<()> {
        self.p.expect(TokenKind::Else)?;
        match self.p.tok.kind {
            TokenKind::LBrace => {
                let pos = self.p.bump()?.pos;
                self.open(Open::Else { cond, then, chain }, pos)
            }
            TokenKind::If => {
                chain.push((cond, then));
                self.if_head(chain)
            }
            _ => Err(self.p.unexpected("`{` or `if`")),
        }
    }
}
