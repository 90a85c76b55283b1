//! The AST engine: compiles a source function into flat code, then runs it.
//!
//! The flat code is a vector of simple register instructions. Every variable,
//! constant and expression temporary has a slot in one dense `i64` table:
//! first the parameters and variables (parameters first, in order), then the
//! constants (each distinct literal once, stored before the run starts), then
//! the temporaries. Structured control flow (`if`, `while`, `break`,
//! `continue`, `&&`, `||`) and `goto` become jumps to instruction positions;
//! a label is just the position of the next instruction, so a `goto` may
//! enter the middle of a loop or an `if`. `break` and `continue` are resolved
//! at compile time against the innermost `while` around them in the source
//! text, which is exactly their meaning.
//!
//! The compiler walks statements with an explicit work stack, so its stack
//! use does not grow with statement nesting; it recurses only on expressions,
//! whose depth it limits to [`MAX_EXPR_DEPTH`]. The runner is a `pc` loop.
//!
//! Fuel: each instruction carries the number of AST nodes whose execution it
//! stands for (the statement and the expression nodes it evaluates, leaves
//! included), so a run is charged one unit per executed statement and per
//! evaluated expression node. Jumps that only glue structured control flow
//! together cost nothing; every cycle of the flat code goes through a loop
//! condition or a `goto`/`continue`, which cost at least one unit.

use std::collections::HashMap;

use ssaref_types::ast::{Block, Expr, Function, Program, Stmt, MAX_CALL_DEPTH, MAX_EXPR_DEPTH};
use ssaref_types::op::{BinOp, UnOp};
use ssaref_types::outcome::{End, Outcome, Trap};

use crate::machine::{check_args, InterpError, Machine};
use crate::semantics;

/// An index into the slot table.
type Slot = u32;

/// A position in the instruction vector.
type Pos = u32;

/// One flat instruction.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `dst = src`.
    Copy { dst: Slot, src: Slot },
    /// `dst = op a`.
    Unary { op: UnOp, dst: Slot, a: Slot },
    /// `dst = a op b`, which may trap.
    Binary { op: BinOp, dst: Slot, a: Slot, b: Slot },
    /// `dst = (src != 0)`, the last step of `&&` and `||`.
    Bool { dst: Slot, src: Slot },
    /// `dst = mem[addr]`.
    Load { dst: Slot, addr: Slot },
    /// `mem[addr] = value`.
    Store { addr: Slot, value: Slot },
    /// Appends `src` to the trace.
    Out { src: Slot },
    /// Returns `src` to the caller, or ends the run with it in `main`.
    Return { src: Slot },
    /// `dst = func(args)`: calls function number `func` with the `argc`
    /// slots of `Code::call_args` from index `args` as its arguments.
    Call { func: u32, dst: Slot, args: u32, argc: u32 },
    /// Continues at `target`.
    Jump { target: Pos },
    /// Continues at `target` when `cond` is 0.
    JumpIfZero { cond: Slot, target: Pos },
    /// Continues at `target` when `cond` is not 0.
    JumpIfNotZero { cond: Slot, target: Pos },
}

/// An instruction and the fuel it costs.
#[derive(Clone, Copy, Debug)]
struct Insn {
    op: Op,
    cost: u32,
}

/// A compiled function, ready to run any number of times.
pub(super) struct Code {
    insns: Vec<Insn>,
    /// The slot table at entry: variables 0, constants set, temporaries 0.
    init: Vec<i64>,
    /// Number of parameters; they occupy slots `0..params`.
    params: usize,
    /// The argument slots of every call, each call's in one run
    /// (`Op::Call::args` is where its run starts).
    call_args: Vec<Slot>,
}

/// A compiled program: every function, and which one is `main`.
pub(super) struct ProgramCode {
    functions: Vec<Code>,
    main: usize,
}

/// Compiles every function of `program`.
pub(super) fn compile_program(program: &Program) -> Result<ProgramCode, InterpError> {
    let mut table: HashMap<&str, (u32, usize)> = HashMap::new();
    for (i, f) in program.functions.iter().enumerate() {
        let index = u32::try_from(i).map_err(|_| malformed("too many functions".into()))?;
        if table.insert(&f.name, (index, f.params.len())).is_some() {
            return Err(malformed(format!("two functions are named `{}`", f.name)));
        }
    }
    let main = table.get("main").ok_or(InterpError::NoMain)?.0 as usize;
    let functions = program.functions.iter().map(|f| compile(f, &table)).collect::<Result<_, _>>()?;
    Ok(ProgramCode { functions, main })
}

/// Compiles `func` into flat code; `table` gives each function of the
/// program its index and its number of parameters.
fn compile<'a>(func: &'a Function, table: &'a HashMap<&'a str, (u32, usize)>) -> Result<Code, InterpError> {
    let mut c = Compiler { table: Some(table), ..Compiler::default() };
    for p in &func.params {
        let slot = c.vars.len() as u32;
        if c.vars.insert(p, slot).is_some() {
            return Err(malformed(format!("parameter `{p}` of `{}` appears twice", func.name)));
        }
    }
    c.body(&func.body)?;
    c.finish(func.params.len())
}

/// A suspended caller: its function, where it resumes, its slots, and the
/// slot that receives the callee's return value.
struct Frame {
    func: usize,
    pc: usize,
    slots: Vec<i64>,
    dst: Slot,
}

impl ProgramCode {
    /// Runs `main` with the given arguments and fuel budget. One budget
    /// covers the whole call tree; a call deeper than [`MAX_CALL_DEPTH`]
    /// ends the run with [`End::CallDepthExceeded`].
    pub(super) fn run(&self, args: &[i64], fuel: u64) -> Result<Outcome, InterpError> {
        let mut func = self.main;
        let mut code = &self.functions[func];
        check_args(code.params, args)?;
        let mut slots = code.init.clone();
        slots[..args.len()].copy_from_slice(args);
        let mut callers: Vec<Frame> = Vec::new();
        let mut m = Machine::new(fuel);
        let mut pc = 0usize;
        let end = loop {
            let returned = match code.insns.get(pc) {
                // Falling off the end of a function returns 0.
                None => 0,
                Some(insn) => {
                    if !m.burn(u64::from(insn.cost)) {
                        break End::OutOfFuel;
                    }
                    pc += 1;
                    match insn.op {
                        Op::Return { src } => slots[src as usize],
                        Op::Call { func: callee, dst, args, argc } => {
                            if callers.len() + 1 >= MAX_CALL_DEPTH {
                                break End::CallDepthExceeded;
                            }
                            let target = &self.functions[callee as usize];
                            let mut frame = target.init.clone();
                            let arg_slots = &code.call_args[args as usize..(args + argc) as usize];
                            for (to, &from) in frame.iter_mut().zip(arg_slots) {
                                *to = slots[from as usize];
                            }
                            let caller = std::mem::replace(&mut slots, frame);
                            callers.push(Frame { func, pc, slots: caller, dst });
                            (func, code, pc) = (callee as usize, target, 0);
                            continue;
                        }
                        op => match step(op, &mut slots, &mut m, &mut pc) {
                            Ok(()) => continue,
                            Err(trap) => break End::Trap(trap),
                        },
                    }
                }
            };
            let Some(caller) = callers.pop() else {
                break End::Return(returned);
            };
            (func, pc, slots) = (caller.func, caller.pc, caller.slots);
            code = &self.functions[func];
            slots[caller.dst as usize] = returned;
        };
        Ok(m.finish(end))
    }
}

/// Executes one instruction that neither calls nor returns; `pc` already
/// points past it.
#[inline]
fn step(op: Op, slots: &mut [i64], m: &mut Machine, pc: &mut usize) -> Result<(), Trap> {
    match op {
        Op::Copy { dst, src } => slots[dst as usize] = slots[src as usize],
        Op::Unary { op, dst, a } => {
            slots[dst as usize] = semantics::unary(op, slots[a as usize]);
        }
        Op::Binary { op, dst, a, b } => {
            slots[dst as usize] = semantics::binary(op, slots[a as usize], slots[b as usize])?
        }
        Op::Bool { dst, src } => slots[dst as usize] = i64::from(slots[src as usize] != 0),
        Op::Load { dst, addr } => slots[dst as usize] = m.load(slots[addr as usize]),
        Op::Store { addr, value } => m.store(slots[addr as usize], slots[value as usize]),
        Op::Out { src } => m.trace.push(slots[src as usize]),
        Op::Jump { target } => *pc = target as usize,
        Op::JumpIfZero { cond, target } => {
            if slots[cond as usize] == 0 {
                *pc = target as usize;
            }
        }
        Op::JumpIfNotZero { cond, target } => {
            if slots[cond as usize] != 0 {
                *pc = target as usize;
            }
        }
        Op::Return { .. } | Op::Call { .. } => unreachable!("calls and returns are executed by the run loop"),
    }
    Ok(())
}

fn malformed(m: String) -> InterpError {
    InterpError::Malformed(m)
}

/// While compiling, a slot is tagged with its kind in the top two bits,
/// because the number of variables and constants is known only at the end;
/// [`Compiler::finish`] rewrites the tags into final slot numbers.
const TAG_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;
const TAG_VAR: u32 = 0;
const TAG_CONST: u32 = 1;
const TAG_TEMP: u32 = 2;

/// The target written into a jump before its destination is known.
const UNPATCHED: Pos = Pos::MAX;

/// Pending work of the statement walk.
enum Work<'a> {
    /// Statements still to compile, in order.
    Stmts(std::slice::Iter<'a, Stmt>),
    /// The then-block of an `if` is compiled; `branch` skips it.
    ThenDone { branch: usize, else_block: Option<&'a Block> },
    /// The else-block of an `if` is compiled; `jump` (the end of the
    /// then-block) skips it.
    ElseDone { jump: usize },
    /// The body of the `while` whose condition starts at `head` is compiled;
    /// `exit` is the conditional jump out of the loop.
    LoopDone { head: Pos, exit: usize },
}

/// An enclosing `while` during the walk.
struct Loop {
    /// Where its condition starts: the target of `continue`.
    head: Pos,
    /// The `break` jumps to patch with the loop's exit.
    breaks: Vec<usize>,
}

#[derive(Default)]
struct Compiler<'a> {
    insns: Vec<Insn>,
    vars: HashMap<&'a str, u32>,
    consts: HashMap<i64, u32>,
    const_values: Vec<i64>,
    /// Number of temporaries needed.
    temps: u32,
    labels: HashMap<&'a str, Pos>,
    gotos: Vec<(usize, &'a str)>,
    /// Each function of the program: its index and number of parameters.
    table: Option<&'a HashMap<&'a str, (u32, usize)>>,
    /// The argument slots of the calls compiled so far.
    call_args: Vec<Slot>,
}

impl<'a> Compiler<'a> {
    /// Compiles a function body.
    fn body(&mut self, body: &'a Block) -> Result<(), InterpError> {
        let mut work = vec![Work::Stmts(body.stmts.iter())];
        let mut loops: Vec<Loop> = Vec::new();
        while let Some(top) = work.last_mut() {
            let stmt = match top {
                Work::Stmts(iter) => match iter.next() {
                    Some(stmt) => stmt,
                    None => {
                        work.pop();
                        continue;
                    }
                },
                &mut Work::ThenDone { branch, else_block } => {
                    work.pop();
                    match else_block {
                        None => self.patch_here(branch)?,
                        Some(else_block) => {
                            let jump = self.emit(Op::Jump { target: UNPATCHED }, 0)?;
                            self.patch_here(branch)?;
                            work.push(Work::ElseDone { jump });
                            work.push(Work::Stmts(else_block.stmts.iter()));
                        }
                    }
                    continue;
                }
                &mut Work::ElseDone { jump } => {
                    work.pop();
                    self.patch_here(jump)?;
                    continue;
                }
                &mut Work::LoopDone { head, exit } => {
                    work.pop();
                    self.emit(Op::Jump { target: head }, 0)?;
                    self.patch_here(exit)?;
                    let done = loops.pop().ok_or_else(|| malformed("loop stack underflow".into()))?;
                    for b in done.breaks {
                        self.patch_here(b)?;
                    }
                    continue;
                }
            };
            match stmt {
                Stmt::Var(x, e) | Stmt::Assign(x, e) => {
                    let dst = self.var(x)?;
                    self.node(e, 0, dst, 1, 1)?;
                }
                Stmt::Store(addr, value) => {
                    let (a, ca) = self.operand(addr, 0, 1)?;
                    let (v, cv) = self.operand(value, Self::next_base(a, 0), 1)?;
                    self.emit(Op::Store { addr: a, value: v }, 1 + ca + cv)?;
                }
                Stmt::If(cond, then_block, else_block) => {
                    let (c, cc) = self.operand(cond, 0, 1)?;
                    let branch = self.emit(Op::JumpIfZero { cond: c, target: UNPATCHED }, 1 + cc)?;
                    work.push(Work::ThenDone { branch, else_block: else_block.as_ref() });
                    work.push(Work::Stmts(then_block.stmts.iter()));
                }
                Stmt::While(cond, loop_body) => {
                    let head = self.here()?;
                    let (c, cc) = self.operand(cond, 0, 1)?;
                    let exit = self.emit(Op::JumpIfZero { cond: c, target: UNPATCHED }, 1 + cc)?;
                    loops.push(Loop { head, breaks: Vec::new() });
                    work.push(Work::LoopDone { head, exit });
                    work.push(Work::Stmts(loop_body.stmts.iter()));
                }
                Stmt::Break => {
                    let jump = self.emit(Op::Jump { target: UNPATCHED }, 1)?;
                    let inner = loops.last_mut().ok_or_else(|| malformed("`break` outside a loop".into()))?;
                    inner.breaks.push(jump);
                }
                Stmt::Continue => {
                    let inner = loops.last().ok_or_else(|| malformed("`continue` outside a loop".into()))?;
                    let target = inner.head;
                    self.emit(Op::Jump { target }, 1)?;
                }
                Stmt::Goto(label) => {
                    let jump = self.emit(Op::Jump { target: UNPATCHED }, 1)?;
                    self.gotos.push((jump, label));
                }
                Stmt::Label(label) => {
                    let here = self.here()?;
                    if self.labels.insert(label, here).is_some() {
                        return Err(malformed(format!("label `{label}` is defined twice")));
                    }
                }
                Stmt::Out(e) => {
                    let (v, cv) = self.operand(e, 0, 1)?;
                    self.emit(Op::Out { src: v }, 1 + cv)?;
                }
                Stmt::Return(e) => {
                    let (v, cv) = self.operand(e, 0, 1)?;
                    self.emit(Op::Return { src: v }, 1 + cv)?;
                }
                Stmt::Block(b) => work.push(Work::Stmts(b.stmts.iter())),
                Stmt::Call(name, args) => {
                    // The unused result goes to a temporary; the statement
                    // and the call node cost one unit each.
                    let dst = self.temp(0)?;
                    self.call(name, args, 0, dst, 2, 1)?;
                }
            }
        }
        for &(jump, label) in &self.gotos {
            let target = *self.labels.get(label).ok_or_else(|| malformed(format!("`goto {label}` names no label")))?;
            Self::patch(&mut self.insns[jump], target);
        }
        Ok(())
    }

    /// Compiles `e` so that its value ends up in a slot, and returns the
    /// slot and the fuel still owed for `e` (1 for a leaf, which emits no
    /// instruction; the caller adds it to its own instruction's cost).
    /// Temporaries `base..` are free to use.
    fn operand(&mut self, e: &'a Expr, base: u32, depth: usize) -> Result<(Slot, u32), InterpError> {
        Self::check_depth(depth)?;
        match e {
            Expr::Lit(v) => Ok((self.constant(*v)?, 1)),
            Expr::Var(x) => Ok((self.var(x)?, 1)),
            _ => {
                let dst = self.temp(base)?;
                self.node(e, base, dst, 0, depth)?;
                Ok((dst, 0))
            }
        }
    }

    /// Compiles `e` to code that writes its value into `dst`, writing `dst`
    /// only as the last step. The instructions doing that last step also
    /// charge `extra` (the enclosing statement's own unit). `depth` is the
    /// depth of `e` in its expression tree.
    fn node(&mut self, e: &'a Expr, base: u32, dst: Slot, extra: u32, depth: usize) -> Result<(), InterpError> {
        Self::check_depth(depth)?;
        match e {
            Expr::Lit(_) | Expr::Var(_) => {
                let (src, cost) = self.operand(e, base, depth)?;
                self.emit(Op::Copy { dst, src }, cost + extra)?;
            }
            Expr::Load(addr) => {
                let (a, ca) = self.operand(addr, base, depth + 1)?;
                self.emit(Op::Load { dst, addr: a }, 1 + ca + extra)?;
            }
            Expr::Unary(op, arg) => {
                let (a, ca) = self.operand(arg, base, depth + 1)?;
                self.emit(Op::Unary { op: *op, dst, a }, 1 + ca + extra)?;
            }
            Expr::Binary(op, lhs, rhs) => {
                let (a, ca) = self.operand(lhs, base, depth + 1)?;
                let (b, cb) = self.operand(rhs, Self::next_base(a, base), depth + 1)?;
                self.emit(Op::Binary { op: *op, dst, a, b }, 1 + ca + cb + extra)?;
            }
            Expr::LogicalAnd(lhs, rhs) | Expr::LogicalOr(lhs, rhs) => {
                let is_and = matches!(e, Expr::LogicalAnd(..));
                // The left side decides when it is 0 (for `&&`) or not 0
                // (for `||`); then the result is that decision, 0 or 1.
                let (a, ca) = self.operand(lhs, base, depth + 1)?;
                let decided = if is_and {
                    self.emit(Op::JumpIfZero { cond: a, target: UNPATCHED }, 1 + ca)?
                } else {
                    self.emit(Op::JumpIfNotZero { cond: a, target: UNPATCHED }, 1 + ca)?
                };
                // The left value is dead from here on, so `base` is free.
                let (b, cb) = self.operand(rhs, base, depth + 1)?;
                self.emit(Op::Bool { dst, src: b }, cb + extra)?;
                let skip = self.emit(Op::Jump { target: UNPATCHED }, 0)?;
                self.patch_here(decided)?;
                let decision = self.constant(i64::from(!is_and))?;
                self.emit(Op::Copy { dst, src: decision }, extra)?;
                self.patch_here(skip)?;
            }
            Expr::Call(name, args) => self.call(name, args, base, dst, 1 + extra, depth)?,
        }
        Ok(())
    }

    /// Compiles a call of `name` whose node is at `depth`: the arguments
    /// left to right, each into its own slot, then the call, which writes
    /// `dst` when the callee returns and costs `cost` plus the arguments.
    fn call(
        &mut self,
        name: &str,
        args: &'a [Expr],
        base: u32,
        dst: Slot,
        cost: u32,
        depth: usize,
    ) -> Result<(), InterpError> {
        let table = self.table.ok_or_else(|| malformed("a call outside a program".into()))?;
        let &(func, params) = table.get(name).ok_or_else(|| malformed(format!("call of unknown function `{name}`")))?;
        if params != args.len() {
            return Err(malformed(format!("`{name}` takes {params} argument(s) but a call passes {}", args.len())));
        }
        let mut slots = Vec::with_capacity(args.len());
        let (mut next, mut total) = (base, cost);
        for arg in args {
            let (slot, c) = self.operand(arg, next, depth + 1)?;
            next = Self::next_base(slot, next);
            slots.push(slot);
            total += c;
        }
        let at = u32::try_from(self.call_args.len()).map_err(|_| malformed("too many call arguments".into()))?;
        self.call_args.extend(slots);
        self.emit(Op::Call { func, dst, args: at, argc: args.len() as u32 }, total)?;
        Ok(())
    }

    /// Fails for an expression node deeper than [`MAX_EXPR_DEPTH`], which
    /// also bounds the compiler's recursion.
    fn check_depth(depth: usize) -> Result<(), InterpError> {
        if depth > MAX_EXPR_DEPTH {
            Err(malformed(format!("expression deeper than {MAX_EXPR_DEPTH}")))
        } else {
            Ok(())
        }
    }

    /// The first free temporary after an operand computed with temporaries
    /// `base..`: the operand holds on to `base` if it is that temporary.
    fn next_base(operand: Slot, base: u32) -> u32 {
        if operand == (TAG_TEMP << TAG_SHIFT | base) {
            base + 1
        } else {
            base
        }
    }

    fn tagged(tag: u32, index: usize) -> Result<Slot, InterpError> {
        match u32::try_from(index) {
            Ok(i) if i <= INDEX_MASK => Ok(tag << TAG_SHIFT | i),
            _ => Err(malformed("too many variables or constants".into())),
        }
    }

    /// The slot of variable `x`, made on first use.
    fn var(&mut self, x: &'a str) -> Result<Slot, InterpError> {
        let next = self.vars.len();
        let index = *self.vars.entry(x).or_insert(next as u32);
        Self::tagged(TAG_VAR, index as usize)
    }

    /// The slot holding the constant `v`.
    fn constant(&mut self, v: i64) -> Result<Slot, InterpError> {
        let next = self.const_values.len();
        let index = *self.consts.entry(v).or_insert(next as u32);
        if index as usize == next {
            self.const_values.push(v);
        }
        Self::tagged(TAG_CONST, index as usize)
    }

    /// Temporary number `i`.
    fn temp(&mut self, i: u32) -> Result<Slot, InterpError> {
        self.temps = self.temps.max(i + 1);
        Self::tagged(TAG_TEMP, i as usize)
    }

    /// The position of the next instruction.
    fn here(&self) -> Result<Pos, InterpError> {
        match Pos::try_from(self.insns.len()) {
            Ok(p) if p != UNPATCHED => Ok(p),
            _ => Err(malformed("function too long".into())),
        }
    }

    /// Appends an instruction and returns its index.
    fn emit(&mut self, op: Op, cost: u32) -> Result<usize, InterpError> {
        self.here()?;
        self.insns.push(Insn { op, cost });
        Ok(self.insns.len() - 1)
    }

    /// Points the jump at index `at` to the next instruction.
    fn patch_here(&mut self, at: usize) -> Result<(), InterpError> {
        let here = self.here()?;
        Self::patch(&mut self.insns[at], here);
        Ok(())
    }

    fn patch(insn: &mut Insn, to: Pos) {
        match &mut insn.op {
            Op::Jump { target } | Op::JumpIfZero { target, .. } | Op::JumpIfNotZero { target, .. } => {
                *target = to;
            }
            _ => unreachable!("only jumps are patched"),
        }
    }

    /// Replaces tagged slots by final slot numbers and builds the initial
    /// slot table.
    fn finish(self, params: usize) -> Result<Code, InterpError> {
        let vars = self.vars.len();
        let consts = self.const_values.len();
        let total = vars + consts + self.temps as usize;
        if u32::try_from(total).is_err() {
            return Err(malformed("too many slots".into()));
        }
        let map = |s: &mut Slot| {
            let index = *s & INDEX_MASK;
            *s = match *s >> TAG_SHIFT {
                TAG_VAR => index,
                TAG_CONST => vars as u32 + index,
                _ => (vars + consts) as u32 + index,
            };
        };
        let mut insns = self.insns;
        let mut call_args = self.call_args;
        call_args.iter_mut().for_each(&map);
        for insn in &mut insns {
            match &mut insn.op {
                Op::Copy { dst, src: a }
                | Op::Unary { dst, a, .. }
                | Op::Bool { dst, src: a }
                | Op::Load { dst, addr: a } => {
                    map(dst);
                    map(a);
                }
                Op::Binary { dst, a, b, .. } => {
                    map(dst);
                    map(a);
                    map(b);
                }
                Op::Store { addr: a, value: b } => {
                    map(a);
                    map(b);
                }
                Op::Out { src } | Op::Return { src } | Op::Call { dst: src, .. } => map(src),
                Op::JumpIfZero { cond, .. } | Op::JumpIfNotZero { cond, .. } => map(cond),
                Op::Jump { .. } => {}
            }
        }
        let mut init = vec![0; total];
        init[vars..vars + consts].copy_from_slice(&self.const_values);
        Ok(Code { insns, init, params, call_args })
    }
}
