//! Lowering of the AST to a control-flow graph over variables, not in SSA
//! form: the input that Cytron et al.'s construction (`cytron.rs`) needs.
//!
//! Braun, Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient
//! Construction of Static Single Assignment Form" (CC 2013), §1, call this "a detour through a non-SSA CFG": the classic algorithm of
//! Cytron, Ferrante, Rosen, Wegman and Zadeck (TOPLAS 1991) places phis on a
//! finished CFG whose instructions still read and write source variables.
//!
//! # The representation
//!
//! A [`VarCfg`] has two kinds of names:
//!
//! * A [`Var`] is a variable: a source name (parameters included) or a hidden
//!   variable made for one `&&`/`||` evaluated for its value. Variables are
//!   read with [`CfgInst::Read`] and assigned with [`CfgInst::Write`], any
//!   number of times: they are what SSA construction renames.
//! * A [`Temp`] is the result of one expression node. Each temporary is
//!   defined exactly once and its definition dominates its uses, because an
//!   expression is evaluated along a single-entry region of the CFG. So the
//!   temporaries already are in SSA form and need no renaming.
//!
//! # The block shape
//!
//! The shape is the one of Braun et al.'s construction (`braun/`), block
//! for block, so that the phi counts of the two constructions can be
//! compared:
//!
//! * The body starts in the entry block, which has no predecessors.
//! * `if (c) T else E` creates the then-block, the join block and the
//!   else-block (if any) in that order (the order of `braun/`, so that
//!   block numbers agree too), lowers `c` as jumping code, fills `T` then
//!   jumps to the join, fills `E` then jumps to the join, and goes on in the
//!   join.
//! * Jumping code for `c` with targets `(t, f)`: `a && b` creates a block `B`
//!   and lowers `a` with targets `(B, f)`, then `b` in `B` with `(t, f)`;
//!   `a || b` lowers `a` with `(t, B)`, then `b` in `B`; `!a` lowers `a` with
//!   `(f, t)`; anything else is evaluated and ends the block with a branch.
//! * `a && b` for its value uses a fresh hidden variable `h`: evaluate `a`,
//!   set `h = 0`, branch to a new block `rhs` (when `a` is not 0) or a new
//!   block `join`; in `rhs` evaluate `b`, set `h = (b != 0)`, jump to `join`;
//!   the value is a read of `h` in `join`. `a || b` sets `h = 1` first and
//!   branches the other way round.
//! * `while (c) B` jumps to a new header block, lowers `c` there as jumping
//!   code to a new body block and a new exit block, fills `B`, jumps back to
//!   the header and goes on in the exit block. `continue` jumps to the header
//!   and `break` to the exit of the innermost loop.
//! * Each label has a block of its own, made when the label is first named;
//!   `L:` jumps to it and goes on there, `goto L` jumps to it.
//! * After `goto`, `break`, `continue` and `return`, lowering goes on in a
//!   fresh block without predecessors.
//! * The body ends with `return 0`.
//! * No optimization: `x = y` makes a copy, and each literal is a fresh
//!   constant. (`x = a && b` names the value read from the hidden variable,
//!   as `braun/` does.)
//!
//! Blocks unreachable from the entry are then removed, together with the
//! edges leaving them; the others are numbered densely in the order they were
//! made, and each block's predecessors are listed in the order in which the
//! edges were made (a branch makes its then-edge before its else-edge).
//!
//! Architecture invariant: statements are lowered with an explicit work
//! stack, so nesting depth costs heap, not call stack. Expressions are lowered
//! recursively, which is bounded by [`ast::MAX_EXPR_DEPTH`].

use crate::ast::{self, Expr, Stmt};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::Block;
use crate::op::{BinOp, UnOp};
// The same fast non-cryptographic hasher as the Braun et al. construction
// (`braun/state.rs`): the keys are the program's own names, and the two
// constructions are timed against each other (`bench-construction`), so
// they look names up alike.
use rustc_hash::FxHashMap as HashMap;

crate::entity!(
    /// A variable of a [`VarCfg`]: a source variable or parameter, or a
    /// hidden variable of one `&&`/`||` evaluated for its value.
    Var,
    "x"
);
crate::entity!(
    /// A temporary of a [`VarCfg`]: the result of one expression node,
    /// defined exactly once.
    Temp,
    "t"
);

/// One function as a control-flow graph over variables.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VarCfg {
    /// The source function's name.
    pub name: String,
    /// The variables holding the parameters, in order. Every other variable
    /// holds 0 on entry.
    pub params: Vec<Var>,
    /// Each variable's source name; `None` for hidden variables.
    pub vars: EntityVec<Var, Option<String>>,
    /// One more than the largest temporary number. Numbers of temporaries
    /// that were only defined in removed blocks are not used.
    pub temp_count: u32,
    /// The blocks, all reachable from `Block(0)`, the entry.
    pub blocks: EntityVec<Block, CfgBlock>,
}

/// One basic block of a [`VarCfg`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CfgBlock {
    /// Predecessors, one entry per incoming edge, in the order the edges
    /// were made.
    pub preds: Vec<Block>,
    pub insts: Vec<CfgInst>,
    pub term: CfgTerm,
}

/// An instruction of a [`VarCfg`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CfgInst {
    /// `dest = var`: the current value of a variable.
    Read {
        dest: Temp,
        var: Var,
    },
    /// `var = src`.
    Write {
        var: Var,
        src: Temp,
    },
    Const {
        dest: Temp,
        value: i64,
    },
    Copy {
        dest: Temp,
        src: Temp,
    },
    Unary {
        dest: Temp,
        op: UnOp,
        arg: Temp,
    },
    Binary {
        dest: Temp,
        op: BinOp,
        lhs: Temp,
        rhs: Temp,
    },
    Load {
        dest: Temp,
        addr: Temp,
    },
    /// `dest = callee(args)`.
    Call {
        dest: Temp,
        callee: String,
        args: Vec<Temp>,
    },
    Store {
        addr: Temp,
        value: Temp,
    },
    Out {
        value: Temp,
    },
}

/// How a block of a [`VarCfg`] ends.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CfgTerm {
    Jump(Block),
    /// Goes to `then_dest` when `cond` is not 0, else to `else_dest`.
    Branch {
        cond: Temp,
        then_dest: Block,
        else_dest: Block,
    },
    Return(Temp),
}

impl CfgTerm {
    /// The successor blocks, one per outgoing edge, in order.
    pub fn successors(&self) -> Vec<Block> {
        match *self {
            CfgTerm::Jump(b) => vec![b],
            CfgTerm::Branch { then_dest, else_dest, .. } => vec![then_dest, else_dest],
            CfgTerm::Return(_) => Vec::new(),
        }
    }
}

impl VarCfg {
    /// Successors of `b`, one per edge.
    pub fn succs(&self, b: Block) -> Vec<Block> {
        self.blocks[b].term.successors()
    }
}

/// Lowers one source function. Precondition: the function belongs to a
/// program for which `ast::Program::validate` succeeds (labels exist and are
/// unique, `break`/`continue` are inside loops, expressions are shallow).
pub fn lower_function(func: &ast::Function) -> VarCfg {
    let mut lowering = Lowering::new(func);
    lowering.lower_body(&func.body);
    lowering.finish(func.name.clone())
}

/// The blocks as they are made, before unreachable ones are removed.
mod raw {
    crate::entity!(
        /// A block of the lowering in the order of making, before
        /// unreachable blocks are removed and the rest renumbered.
        RawBlock,
        "r"
    );
}
use raw::RawBlock;

/// A terminator over [`RawBlock`]s.
#[derive(Clone, Copy)]
enum RawTerm {
    Jump(RawBlock),
    Branch(Temp, RawBlock, RawBlock),
    Return(Temp),
}

struct RawBlockData {
    insts: Vec<CfgInst>,
    term: Option<RawTerm>,
}

/// What is left to do after the statement being lowered, kept on a heap
/// stack instead of the call stack.
enum Task<'a> {
    /// Lower the remaining statements of a block.
    Stmts(std::slice::Iter<'a, Stmt>),
    /// End the current block with a jump to `jump_to`, then go on in
    /// `continue_in`: the end of an `if` arm or of a loop body.
    Finish { jump_to: RawBlock, continue_in: RawBlock },
    /// Leave the innermost loop.
    PopLoop,
}

/// The innermost enclosing loops: where `continue` and `break` go.
struct LoopTargets {
    header: RawBlock,
    exit: RawBlock,
}

struct Lowering<'a> {
    blocks: EntityVec<RawBlock, RawBlockData>,
    /// Every edge, in the order of making.
    edges: Vec<(RawBlock, RawBlock)>,
    current: RawBlock,
    vars: EntityVec<Var, Option<String>>,
    var_of_name: HashMap<&'a str, Var>,
    params: Vec<Var>,
    labels: HashMap<&'a str, RawBlock>,
    loops: Vec<LoopTargets>,
    temp_count: u32,
}

impl<'a> Lowering<'a> {
    fn new(func: &'a ast::Function) -> Self {
        let mut lowering = Lowering {
            blocks: EntityVec::new(),
            edges: Vec::new(),
            current: RawBlock(0),
            vars: EntityVec::new(),
            var_of_name: HashMap::default(),
            params: Vec::new(),
            labels: HashMap::default(),
            loops: Vec::new(),
            temp_count: 0,
        };
        let entry = lowering.new_block();
        lowering.current = entry;
        for p in &func.params {
            let v = lowering.var(p);
            lowering.params.push(v);
        }
        lowering
    }

    fn new_block(&mut self) -> RawBlock {
        self.blocks.push(RawBlockData { insts: Vec::new(), term: None })
    }

    fn new_temp(&mut self) -> Temp {
        let t = Temp(self.temp_count);
        self.temp_count += 1;
        t
    }

    /// The variable of a source name, made on first sight.
    fn var(&mut self, name: &'a str) -> Var {
        if let Some(&v) = self.var_of_name.get(name) {
            return v;
        }
        let v = self.vars.push(Some(name.to_string()));
        self.var_of_name.insert(name, v);
        v
    }

    /// The block of a label, made on first sight.
    fn label_block(&mut self, name: &'a str) -> RawBlock {
        if let Some(&b) = self.labels.get(name) {
            return b;
        }
        let b = self.new_block();
        self.labels.insert(name, b);
        b
    }

    fn emit(&mut self, inst: CfgInst) {
        let block = &mut self.blocks[self.current];
        debug_assert!(block.term.is_none(), "instruction after the terminator of {:?}", self.current);
        block.insts.push(inst);
    }

    /// Ends the current block and records its outgoing edges.
    fn terminate(&mut self, term: RawTerm) {
        let from = self.current;
        assert!(self.blocks[from].term.is_none(), "block {from:?} is terminated twice");
        self.blocks[from].term = Some(term);
        match term {
            RawTerm::Jump(to) => self.edges.push((from, to)),
            RawTerm::Branch(_, then_dest, else_dest) => {
                self.edges.push((from, then_dest));
                self.edges.push((from, else_dest));
            }
            RawTerm::Return(_) => {}
        }
    }

    /// Ends the current block and goes on in a fresh block without
    /// predecessors (the code after a `goto`, `break`, `continue` or
    /// `return`).
    fn terminate_and_continue_unreachable(&mut self, term: RawTerm) {
        self.terminate(term);
        self.current = self.new_block();
    }

    fn lower_body(&mut self, body: &'a ast::Block) {
        let mut tasks = vec![Task::Stmts(body.stmts.iter())];
        while let Some(task) = tasks.pop() {
            match task {
                Task::Stmts(mut stmts) => {
                    if let Some(stmt) = stmts.next() {
                        tasks.push(Task::Stmts(stmts));
                        self.lower_stmt(stmt, &mut tasks);
                    }
                }
                Task::Finish { jump_to, continue_in } => {
                    self.terminate(RawTerm::Jump(jump_to));
                    self.current = continue_in;
                }
                Task::PopLoop => {
                    self.loops.pop();
                }
            }
        }
        let zero = self.constant(0);
        self.terminate(RawTerm::Return(zero));
    }

    /// Lowers one statement; nested statement lists are pushed on `tasks`
    /// rather than lowered here.
    fn lower_stmt(&mut self, stmt: &'a Stmt, tasks: &mut Vec<Task<'a>>) {
        match stmt {
            Stmt::Var(name, e) | Stmt::Assign(name, e) => {
                let mut value = self.value(e);
                if matches!(e, Expr::Var(_)) {
                    // `x = y` makes a copy: no copy propagation.
                    let copy = self.new_temp();
                    self.emit(CfgInst::Copy { dest: copy, src: value });
                    value = copy;
                }
                let var = self.var(name);
                self.emit(CfgInst::Write { var, src: value });
            }
            Stmt::Store(addr, value) => {
                let addr = self.value(addr);
                let value = self.value(value);
                self.emit(CfgInst::Store { addr, value });
            }
            Stmt::If(cond, then_stmts, else_stmts) => {
                let then_block = self.new_block();
                let join = self.new_block();
                let else_block = else_stmts.as_ref().map(|_| self.new_block());
                self.jumping(cond, then_block, else_block.unwrap_or(join));
                self.current = then_block;
                match (else_stmts, else_block) {
                    (Some(else_stmts), Some(else_block)) => {
                        tasks.push(Task::Finish { jump_to: join, continue_in: join });
                        tasks.push(Task::Stmts(else_stmts.stmts.iter()));
                        tasks.push(Task::Finish { jump_to: join, continue_in: else_block });
                    }
                    _ => tasks.push(Task::Finish { jump_to: join, continue_in: join }),
                }
                tasks.push(Task::Stmts(then_stmts.stmts.iter()));
            }
            Stmt::While(cond, body) => {
                let header = self.new_block();
                self.terminate(RawTerm::Jump(header));
                self.current = header;
                let body_block = self.new_block();
                let exit = self.new_block();
                self.jumping(cond, body_block, exit);
                self.current = body_block;
                self.loops.push(LoopTargets { header, exit });
                tasks.push(Task::PopLoop);
                tasks.push(Task::Finish { jump_to: header, continue_in: exit });
                tasks.push(Task::Stmts(body.stmts.iter()));
            }
            Stmt::Break => {
                let exit = self.loops.last().expect("`break` outside a loop (validate the program)").exit;
                self.terminate_and_continue_unreachable(RawTerm::Jump(exit));
            }
            Stmt::Continue => {
                let header = self.loops.last().expect("`continue` outside a loop (validate the program)").header;
                self.terminate_and_continue_unreachable(RawTerm::Jump(header));
            }
            Stmt::Goto(label) => {
                let target = self.label_block(label);
                self.terminate_and_continue_unreachable(RawTerm::Jump(target));
            }
            Stmt::Label(label) => {
                let target = self.label_block(label);
                self.terminate(RawTerm::Jump(target));
                self.current = target;
            }
            Stmt::Out(e) => {
                let value = self.value(e);
                self.emit(CfgInst::Out { value });
            }
            Stmt::Return(e) => {
                let value = self.value(e);
                self.terminate_and_continue_unreachable(RawTerm::Return(value));
            }
            Stmt::Block(block) => tasks.push(Task::Stmts(block.stmts.iter())),
            Stmt::Call(name, args) => {
                self.call(name, args);
            }
        }
    }

    /// A call: the arguments left to right, then the call.
    fn call(&mut self, name: &str, args: &'a [Expr]) -> Temp {
        let args = args.iter().map(|a| self.value(a)).collect();
        let dest = self.new_temp();
        self.emit(CfgInst::Call { dest, callee: name.to_string(), args });
        dest
    }

    fn constant(&mut self, value: i64) -> Temp {
        let dest = self.new_temp();
        self.emit(CfgInst::Const { dest, value });
        dest
    }

    /// Lowers `e` for its value, in the current block (and in new blocks for
    /// `&&`/`||`), and returns the temporary holding it. Recursion depth is
    /// bounded by the expression depth.
    fn value(&mut self, e: &'a Expr) -> Temp {
        match e {
            Expr::Lit(n) => self.constant(*n),
            Expr::Var(name) => {
                let var = self.var(name);
                let dest = self.new_temp();
                self.emit(CfgInst::Read { dest, var });
                dest
            }
            Expr::Load(addr) => {
                let addr = self.value(addr);
                let dest = self.new_temp();
                self.emit(CfgInst::Load { dest, addr });
                dest
            }
            Expr::Unary(op, arg) => {
                let arg = self.value(arg);
                let dest = self.new_temp();
                self.emit(CfgInst::Unary { dest, op: *op, arg });
                dest
            }
            Expr::Binary(op, lhs, rhs) => {
                let lhs = self.value(lhs);
                let rhs = self.value(rhs);
                let dest = self.new_temp();
                self.emit(CfgInst::Binary { dest, op: *op, lhs, rhs });
                dest
            }
            Expr::LogicalAnd(a, b) => self.short_circuit_value(a, b, true),
            Expr::LogicalOr(a, b) => self.short_circuit_value(a, b, false),
            Expr::Call(name, args) => self.call(name, args),
        }
    }

    /// `a && b` (when `is_and`) or `a || b` for its value, through a fresh
    /// hidden variable that the join block reads.
    fn short_circuit_value(&mut self, a: &'a Expr, b: &'a Expr, is_and: bool) -> Temp {
        let lhs = self.value(a);
        let hidden = self.vars.push(None);
        let early = self.constant(if is_and { 0 } else { 1 });
        self.emit(CfgInst::Write { var: hidden, src: early });
        let rhs_block = self.new_block();
        let join = self.new_block();
        let term = if is_and { RawTerm::Branch(lhs, rhs_block, join) } else { RawTerm::Branch(lhs, join, rhs_block) };
        self.terminate(term);
        self.current = rhs_block;
        let rhs = self.value(b);
        let zero = self.constant(0);
        let truth = self.new_temp();
        self.emit(CfgInst::Binary { dest: truth, op: BinOp::Ne, lhs: rhs, rhs: zero });
        self.emit(CfgInst::Write { var: hidden, src: truth });
        self.terminate(RawTerm::Jump(join));
        self.current = join;
        let dest = self.new_temp();
        self.emit(CfgInst::Read { dest, var: hidden });
        dest
    }

    /// Lowers `cond` as jumping code: control goes to `if_true` when it is
    /// not 0 and to `if_false` otherwise. Ends the current block.
    fn jumping(&mut self, cond: &'a Expr, if_true: RawBlock, if_false: RawBlock) {
        match cond {
            Expr::LogicalAnd(a, b) => {
                let second = self.new_block();
                self.jumping(a, second, if_false);
                self.current = second;
                self.jumping(b, if_true, if_false);
            }
            Expr::LogicalOr(a, b) => {
                let second = self.new_block();
                self.jumping(a, if_true, second);
                self.current = second;
                self.jumping(b, if_true, if_false);
            }
            Expr::Unary(UnOp::Not, a) => self.jumping(a, if_false, if_true),
            _ => {
                let value = self.value(cond);
                self.terminate(RawTerm::Branch(value, if_true, if_false));
            }
        }
    }

    /// Removes the blocks unreachable from the entry, with their edges, and
    /// numbers the rest densely in the order they were made.
    fn finish(mut self, name: String) -> VarCfg {
        let n = self.blocks.len();
        let mut reachable: EntityVec<RawBlock, bool> = EntityVec::from_elem(false, n);
        let entry = RawBlock(0);
        reachable[entry] = true;
        let mut stack = vec![entry];
        while let Some(b) = stack.pop() {
            let succs = match self.blocks[b].term.expect("every block made is terminated") {
                RawTerm::Jump(t) => [Some(t), None],
                RawTerm::Branch(_, t, f) => [Some(t), Some(f)],
                RawTerm::Return(_) => [None, None],
            };
            for s in succs.into_iter().flatten() {
                if !reachable[s] {
                    reachable[s] = true;
                    stack.push(s);
                }
            }
        }
        let mut new_number: EntityVec<RawBlock, Option<Block>> = EntityVec::from_elem(None, n);
        let mut count = 0;
        for b in self.blocks.keys() {
            if reachable[b] {
                new_number[b] = Some(Block::new(count));
                count += 1;
            }
        }
        let renumber = |b: RawBlock| new_number[b].expect("successor of a reachable block is reachable");
        let mut preds: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), count);
        for &(from, to) in &self.edges {
            if reachable[from] {
                preds[renumber(to)].push(renumber(from));
            }
        }
        let mut blocks: EntityVec<Block, CfgBlock> = EntityVec::new();
        for (b, data) in self.blocks.iter_mut() {
            let Some(new) = new_number[b] else { continue };
            let term = match data.term.expect("every block made is terminated") {
                RawTerm::Jump(t) => CfgTerm::Jump(renumber(t)),
                RawTerm::Branch(cond, t, f) => CfgTerm::Branch { cond, then_dest: renumber(t), else_dest: renumber(f) },
                RawTerm::Return(v) => CfgTerm::Return(v),
            };
            let pushed = blocks.push(CfgBlock {
                preds: std::mem::take(&mut preds[new]),
                insts: std::mem::take(&mut data.insts),
                term,
            });
            debug_assert_eq!(pushed, new);
        }
        VarCfg { name, params: self.params, vars: self.vars, temp_count: self.temp_count, blocks }
    }
}
