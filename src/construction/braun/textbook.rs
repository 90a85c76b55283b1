//! Start here: Braun, Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and
//! Efficient Construction of Static Single Assignment Form" (CC 2013),
//! Algorithms 1 to 4 (§2) and Algorithm 5 (§3.2), as printed.
//!
//! This is the paper's pseudo-code turned into Rust line by line: recursive,
//! with plain maps for `currentDef`, `sealedBlocks` and `incompletePhis`, the
//! functions named as in the paper, and each step marked with the line it
//! implements. It makes no on-the-fly optimization and takes no shortcut.
//! The fast builder of this folder (`lookup.rs` and its neighbours), with
//! its optimizations off, places the same phis with Algorithm 5 on both
//! sides; without it, the same on reducible CFGs and at most as many on
//! irreducible ones (`mod.rs` says why). `tests/suite/braun_textbook.rs`
//! checks both.
//! The AST walk that drives these functions, filling and sealing blocks as
//! §2.3 describes, is `textbook_walk.rs`.
//!
//! The lines are numbered as printed, counting every non-blank line of an
//! algorithm's listing (comments included) from its first header:
//!
//! ```text
//! Algorithm 1
//!  1 writeVariable(variable, block, value):
//!  2     currentDef[variable][block] ← value
//!  3 readVariable(variable, block):
//!  4     if currentDef[variable] contains block:
//!  5         # local value numbering
//!  6         return currentDef[variable][block]
//!  7     # global value numbering
//!  8     return readVariableRecursive(variable, block)
//!
//! Algorithm 2
//!  1 readVariableRecursive(variable, block):
//!  2     if block not in sealedBlocks:
//!  3         # Incomplete CFG
//!  4         val ← new Phi(block)
//!  5         incompletePhis[block][variable] ← val
//!  6     else if |block.preds| = 1:
//!  7         # Optimize the common case of one predecessor: No phi needed
//!  8         val ← readVariable(variable, block.preds[0])
//!  9     else:
//! 10         # Break potential cycles with operandless phi
//! 11         val ← new Phi(block)
//! 12         writeVariable(variable, block, val)
//! 13         val ← addPhiOperands(variable, val)
//! 14     writeVariable(variable, block, val)
//! 15     return val
//! 16 addPhiOperands(variable, phi):
//! 17     # Determine operands from predecessors
//! 18     for pred in phi.block.preds:
//! 19         phi.appendOperand(readVariable(variable, pred))
//! 20     return tryRemoveTrivialPhi(phi)
//!
//! Algorithm 3
//!  1 tryRemoveTrivialPhi(phi):
//!  2     same ← None
//!  3     for op in phi.operands:
//!  4         if op = same || op = phi:
//!  5             continue # Unique value or self-reference
//!  6         if same ≠ None:
//!  7             return phi # The phi merges at least two values: not trivial
//!  8         same ← op
//!  9     if same = None:
//! 10         same ← new Undefined() # The phi is unreachable or in the start block
//! 11     users ← phi.users.remove(phi) # Remember all users except the phi itself
//! 12     phi.replaceBy(same) # Reroute all uses of phi to same and remove phi
//! 13     # Try to recursively remove all phi users, which might have become trivial
//! 14     for use in users:
//! 15         if use is a Phi:
//! 16             tryRemoveTrivialPhi(use)
//! 17     return same
//!
//! Algorithm 4
//!  1 sealBlock(block):
//!  2     for variable in incompletePhis[block]:
//!  3         addPhiOperands(variable, incompletePhis[block][variable])
//!  4     sealedBlocks.add(block)
//!
//! Algorithm 5
//!  1 proc removeRedundantPhis(phiFunctions):
//!  2     sccs ← computePhiSCCs(inducedSubgraph(phiFunctions))
//!  3     for scc in topologicalSort(sccs):
//!  4         processSCC(scc)
//!  5 proc processSCC(scc):
//!  6     if len(scc) = 1: return # we already handled trivial ϕ functions
//!  7     inner ← set()
//!  8     outerOps ← set()
//!  9     for phi in scc:
//! 10         isInner ← True
//! 11         for operand in phi.getOperands():
//! 12             if operand not in scc:
//! 13                 outerOps.add(operand)
//! 14                 isInner ← False
//! 15         if isInner:
//! 16             inner.add(phi)
//! 17     if len(outerOps) = 1:
//! 18         replaceSCCByValue(scc, outerOps.pop())
//! 19     else if len(outerOps) > 1:
//! 20         removeRedundantPhis(inner)
//! ```
//!
//! Three places where the printed text cannot be followed literally; each is
//! marked "Correction" where it acts, and
//! `proofs-notes/ssa-construction.md`, §5, argues it:
//! - (a) Alg. 3, line 8: `same ← op` belongs inside the loop (the extracted
//!   text indents it after the loop, which would make every phi trivial).
//! - (b) Alg. 5, line 6: a singleton SCC is not skipped but tested again by
//!   Alg. 3, because contracting an earlier SCC can have made it trivial.
//! - (c) Alg. 3, line 15: a phi whose operands `addPhiOperands` is still
//!   collecting is not tested; it is tested when its operands are all in.
//!
//! What the paper leaves to the IR, made concrete here:
//! - `phi.replaceBy(v)` records a forwarding link, and every value read from
//!   `currentDef` or from an operand list is followed through these links
//!   (`resolve`): that reroutes every use at once. `phi.users` keeps only the
//!   phi users, the only ones Alg. 3 acts on.
//! - Every variable is defined in the entry block before the body starts: a
//!   parameter by its argument, any other variable by a constant 0 (the
//!   language's rule). So a look-up that reaches the entry finds a
//!   definition, and `new Undefined()` is left to blocks no path reaches.
//! - The paper says nothing about unreachable code. It is built like any
//!   code, in blocks without predecessors; when the function is finished,
//!   those blocks are removed with the phi operands they fed, and the phis
//!   that lost operands are tested again by Alg. 3 (`finish`).
//! - Algorithm 5 runs once, on all phis, after that; then the phis that no
//!   instruction uses, even through other phis, are dropped (only unreachable
//!   code can have been their users), so the result is pruned (§4).
//!
//! Every step recurses, so the size of a function is limited
//! ([`MAX_BLOCKS`], [`MAX_STATEMENTS`]); a larger one is refused with
//! [`TextbookError::TooLarge`] before anything is built.

use crate::analysis::scc::tarjan_sccs;
use crate::ast;
use crate::entity::EntityRef;
use crate::ir::{self, Block, Inst, Op, Terminator, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;

/// The largest number of blocks a function may need. The look-up recurses
/// about three calls deep per block it walks back through (Alg. 1 and 2),
/// and Algs. 3 and 5 recurse at most once per phi of one variable, so this
/// bounds the stack the construction needs (well within a 2 MiB thread).
pub const MAX_BLOCKS: usize = 2_000;
/// The largest number of statements (nested ones included) a function may
/// have: the AST walk recurses once per nesting level.
pub const MAX_STATEMENTS: usize = 4_000;

/// Why the textbook construction refused a function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TextbookError {
    /// The function needs more blocks or has more statements than the
    /// recursion of the printed algorithms is allowed to handle.
    TooLarge { function: String, blocks: usize, statements: usize },
}

impl fmt::Display for TextbookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextbookError::TooLarge { function, blocks, statements } => write!(
                f,
                "`{function}` is too large for the recursive textbook construction: up to {blocks} blocks \
                 and {statements} statements (limits {MAX_BLOCKS} and {MAX_STATEMENTS})"
            ),
        }
    }
}

impl std::error::Error for TextbookError {}

/// Builds SSA for every function of a valid program with Algorithms 1-4,
/// and Algorithm 5 when `remove_redundant_phis` is set.
pub fn construct_program(program: &ast::Program, remove_redundant_phis: bool) -> Result<ir::Module, TextbookError> {
    let functions = program.functions.iter().map(|f| construct_function(f, remove_redundant_phis));
    Ok(ir::Module { functions: functions.collect::<Result<_, _>>()? })
}

/// Builds SSA for one function of a valid program (see
/// [`construct_program`]).
pub fn construct_function(func: &ast::Function, remove_redundant_phis: bool) -> Result<ir::Function, TextbookError> {
    let (blocks, statements) = size_of(func);
    if blocks > MAX_BLOCKS || statements > MAX_STATEMENTS {
        return Err(TextbookError::TooLarge { function: func.name.clone(), blocks, statements });
    }
    let mut t = Textbook::new(func);
    t.build_body(&func.body);
    Ok(t.finish(&func.name, remove_redundant_phis))
}

/// The number of blocks the AST walk makes for `func` at most, and its
/// number of statements (nested ones included).
fn size_of(func: &ast::Function) -> (usize, usize) {
    fn short_circuits(e: &ast::Expr) -> usize {
        use ast::Expr;
        match e {
            Expr::Lit(_) | Expr::Var(_) => 0,
            Expr::Load(a) | Expr::Unary(_, a) => short_circuits(a),
            Expr::Binary(_, a, b) => short_circuits(a) + short_circuits(b),
            Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => 1 + short_circuits(a) + short_circuits(b),
            Expr::Call(_, args) => args.iter().map(short_circuits).sum(),
        }
    }
    let (mut blocks, mut statements) = (1, 0);
    ast::walk_stmts(&func.body, |s, _| {
        statements += 1;
        let (own, exprs): (usize, [Option<&ast::Expr>; 2]) = match s {
            ast::Stmt::Var(_, e) | ast::Stmt::Assign(_, e) | ast::Stmt::Out(e) => (0, [Some(e), None]),
            ast::Stmt::Store(a, v) => (0, [Some(a), Some(v)]),
            ast::Stmt::Return(e) => (1, [Some(e), None]),
            ast::Stmt::If(c, ..) | ast::Stmt::While(c, _) => (3, [Some(c), None]),
            ast::Stmt::Break | ast::Stmt::Continue | ast::Stmt::Goto(_) | ast::Stmt::Label(_) => (1, [None, None]),
            ast::Stmt::Block(_) => (0, [None, None]),
            ast::Stmt::Call(_, args) => {
                blocks += args.iter().map(|e| 2 * short_circuits(e)).sum::<usize>();
                return;
            }
        };
        blocks += own + exprs.iter().flatten().map(|e| 2 * short_circuits(e)).sum::<usize>();
    });
    (blocks, statements)
}

/// A variable: a source name, or the hidden variable of one `&&` / `||`
/// evaluated for its value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(super) struct TextbookVar(u32);

/// A phi while it is built.
struct Phi {
    block: Block,
    operands: Vec<Value>,
    /// The phis that have this phi as an operand (with repetitions).
    users: Vec<Value>,
}

/// A block while it is built.
#[derive(Default)]
pub(super) struct TextbookBlock {
    pub(super) preds: Vec<Block>,
    /// The phis placed in the block, in the order they were made (removed
    /// ones included; `finish` keeps the live ones).
    phis: Vec<Value>,
    pub(super) insts: Vec<Inst>,
    pub(super) term: Option<Terminator>,
}

/// The state of the construction of one function.
pub(super) struct Textbook {
    pub(super) blocks: Vec<TextbookBlock>,
    /// `currentDef[variable][block]`.
    current_def: HashMap<TextbookVar, HashMap<Block, Value>>,
    /// `sealedBlocks`.
    sealed_blocks: HashSet<Block>,
    /// `incompletePhis[block][variable]`.
    incomplete_phis: HashMap<Block, BTreeMap<TextbookVar, Value>>,
    /// The phis that are alive.
    phis: HashMap<Value, Phi>,
    /// `replaceBy`: the value each removed phi was replaced by.
    replaced_by: HashMap<Value, Value>,
    /// The phis whose operands `addPhiOperands` is collecting (correction
    /// (c)).
    collecting: HashSet<Value>,
    /// The values defined at the start of the entry block: the constant 0
    /// of each variable that is not a parameter, and the `Undefined`s.
    entry_values: Vec<Inst>,
    params: Vec<Value>,
    value_count: u32,
    names: HashMap<String, TextbookVar>,
    var_count: u32,
}

impl Textbook {
    /// The state before the body is walked: the entry block, sealed, where
    /// every variable of the function is defined (see the module comment).
    fn new(func: &ast::Function) -> Textbook {
        let mut t = Textbook {
            blocks: Vec::new(),
            current_def: HashMap::new(),
            sealed_blocks: HashSet::new(),
            incomplete_phis: HashMap::new(),
            phis: HashMap::new(),
            replaced_by: HashMap::new(),
            collecting: HashSet::new(),
            entry_values: Vec::new(),
            params: Vec::new(),
            value_count: 0,
            names: HashMap::new(),
            var_count: 0,
        };
        let entry = t.new_block();
        t.seal_block(entry);
        for p in &func.params {
            let (var, value) = (t.var(p), t.new_value());
            t.params.push(value);
            t.write_variable(var, entry, value);
        }
        // Every name the body assigns or reads, in the order met.
        let mut names: Vec<&str> = Vec::new();
        ast::walk_stmts(&func.body, |s, _| {
            let (assigned, exprs): (Option<&str>, [Option<&ast::Expr>; 2]) = match s {
                ast::Stmt::Var(x, e) | ast::Stmt::Assign(x, e) => (Some(x), [Some(e), None]),
                ast::Stmt::Store(a, v) => (None, [Some(a), Some(v)]),
                ast::Stmt::If(c, ..) | ast::Stmt::While(c, _) => (None, [Some(c), None]),
                ast::Stmt::Out(e) | ast::Stmt::Return(e) => (None, [Some(e), None]),
                _ => (None, [None, None]),
            };
            names.extend(assigned);
            exprs.into_iter().flatten().for_each(|e| e.for_each_var(&mut |x| names.push(x)));
        });
        for x in names {
            let var = t.var(x);
            if !t.current_def.get(&var).is_some_and(|defs| defs.contains_key(&entry)) {
                let zero = t.new_value();
                t.entry_values.push(Inst { dest: Some(zero), op: Op::Const(0) });
                t.write_variable(var, entry, zero);
            }
        }
        t
    }

    // ----- Algorithm 1: local value numbering (§2.1) -----

    /// `writeVariable(variable, block, value)`.
    pub(super) fn write_variable(&mut self, variable: TextbookVar, block: Block, value: Value) {
        // Alg. 1, line 2: currentDef[variable][block] ← value
        self.current_def.entry(variable).or_default().insert(block, value);
    }

    /// `readVariable(variable, block)`.
    pub(super) fn read_variable(&mut self, variable: TextbookVar, block: Block) -> Value {
        // Alg. 1, line 4: if currentDef[variable] contains block:
        if let Some(&value) = self.current_def.get(&variable).and_then(|defs| defs.get(&block)) {
            // Alg. 1, lines 5-6: local value numbering, return
            // currentDef[variable][block] (through replaceBy's links).
            return self.resolve(value);
        }
        // Alg. 1, lines 7-8: global value numbering.
        self.read_variable_recursive(variable, block)
    }

    // ----- Algorithm 2: global value numbering (§2.2, §2.3) -----

    /// `readVariableRecursive(variable, block)`.
    fn read_variable_recursive(&mut self, variable: TextbookVar, block: Block) -> Value {
        let val;
        if !self.sealed_blocks.contains(&block) {
            // Alg. 2, lines 2-3: an incomplete CFG.
            // Alg. 2, line 4: val ← new Phi(block)
            val = self.new_phi(block);
            // Alg. 2, line 5: incompletePhis[block][variable] ← val
            self.incomplete_phis.entry(block).or_default().insert(variable, val);
        } else if self.blocks[block.index()].preds.len() == 1 {
            // Alg. 2, lines 6-7: one predecessor, no phi needed.
            // Alg. 2, line 8: val ← readVariable(variable, block.preds[0])
            let pred = self.blocks[block.index()].preds[0];
            val = self.read_variable(variable, pred);
        } else {
            // Alg. 2, lines 9-10: break potential cycles with an operandless
            // phi (also for a block without predecessors: unreachable code).
            // Alg. 2, line 11: val ← new Phi(block)
            let phi = self.new_phi(block);
            // Alg. 2, line 12: writeVariable(variable, block, val)
            self.write_variable(variable, block, phi);
            // Alg. 2, line 13: val ← addPhiOperands(variable, val)
            val = self.add_phi_operands(variable, phi);
        }
        // Alg. 2, line 14: writeVariable(variable, block, val)
        self.write_variable(variable, block, val);
        // Alg. 2, line 15: return val
        val
    }

    /// `addPhiOperands(variable, phi)`.
    fn add_phi_operands(&mut self, variable: TextbookVar, phi: Value) -> Value {
        self.collecting.insert(phi);
        // Alg. 2, lines 17-18: for pred in phi.block.preds:
        let preds = self.blocks[self.phis[&phi].block.index()].preds.clone();
        for pred in preds {
            // Alg. 2, line 19: phi.appendOperand(readVariable(variable, pred))
            let operand = self.read_variable(variable, pred);
            self.append_operand(phi, operand);
        }
        self.collecting.remove(&phi);
        // Alg. 2, line 20: return tryRemoveTrivialPhi(phi)
        self.try_remove_trivial_phi(phi)
    }

    // ----- Algorithm 3: trivial phis (§2.2) -----

    /// `tryRemoveTrivialPhi(phi)`.
    fn try_remove_trivial_phi(&mut self, phi: Value) -> Value {
        // Alg. 3, line 2: same ← None
        let mut same: Option<Value> = None;
        // Alg. 3, line 3: for op in phi.operands:
        for op in self.phis[&phi].operands.clone() {
            let op = self.resolve(op);
            // Alg. 3, lines 4-5: if op = same || op = phi: continue
            if Some(op) == same || op == phi {
                continue;
            }
            // Alg. 3, lines 6-7: if same ≠ None: return phi (the phi merges
            // at least two values: not trivial)
            if same.is_some() {
                return phi;
            }
            // Alg. 3, line 8: same ← op. Correction (a): inside the loop.
            same = Some(op);
        }
        // Alg. 3, lines 9-10: if same = None: same ← new Undefined() (the
        // phi is unreachable or in the start block).
        let same = match same {
            Some(same) => same,
            None => self.new_undefined(),
        };
        // Alg. 3, line 11: users ← phi.users.remove(phi)
        let users: Vec<Value> = self.phis[&phi].users.iter().copied().filter(|&u| u != phi).collect();
        // Alg. 3, line 12: phi.replaceBy(same)
        self.replace_by(phi, same);
        // Alg. 3, lines 13-14: try to recursively remove all phi users,
        // which might have become trivial: for use in users:
        for used_by in users {
            // Alg. 3, line 15: if use is a Phi (still alive). Correction
            // (c): and has all its operands.
            if self.phis.contains_key(&used_by) && !self.collecting.contains(&used_by) {
                // Alg. 3, line 16: tryRemoveTrivialPhi(use)
                self.try_remove_trivial_phi(used_by);
            }
        }
        // Alg. 3, line 17: return same
        same
    }

    // ----- Algorithm 4: sealing (§2.3) -----

    /// `sealBlock(block)`: no predecessor will be added to `block`.
    pub(super) fn seal_block(&mut self, block: Block) {
        // Alg. 4, line 2: for variable in incompletePhis[block]: (the
        // operand look-ups of one variable never add an incomplete phi to
        // `block` for another, so the map can be read once)
        let incomplete = self.incomplete_phis.remove(&block).unwrap_or_default();
        for (variable, phi) in incomplete {
            // Alg. 4, line 3: addPhiOperands(variable,
            // incompletePhis[block][variable])
            self.add_phi_operands(variable, phi);
        }
        // Alg. 4, line 4: sealedBlocks.add(block)
        self.sealed_blocks.insert(block);
    }

    // ----- Algorithm 5: redundant phi SCCs (§3.2) -----

    /// `removeRedundantPhis(phiFunctions)`.
    fn remove_redundant_phis(&mut self, phi_functions: &[Value]) {
        // Alg. 5, line 2: sccs ← computePhiSCCs(inducedSubgraph(phiFunctions))
        let index: HashMap<Value, usize> = phi_functions.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        let mut operand_graph: Vec<Vec<usize>> = Vec::new();
        for &phi in phi_functions {
            let operands = self.phis[&phi].operands.clone();
            let in_set = operands.into_iter().filter_map(|op| index.get(&self.resolve(op)).copied());
            operand_graph.push(in_set.collect());
        }
        // Tarjan's algorithm gives each SCC after every SCC its phis use:
        // the topological order that puts operands first.
        let sccs = tarjan_sccs(&operand_graph);
        // Alg. 5, line 3: for scc in topologicalSort(sccs):
        for scc in sccs {
            // Processing an earlier SCC can have removed phis of this one
            // (through correction (b)): only the live ones are left.
            let scc: Vec<Value> = scc.iter().map(|&i| phi_functions[i]).filter(|p| self.phis.contains_key(p)).collect();
            // Alg. 5, line 4: processSCC(scc)
            self.process_scc(&scc);
        }
    }

    /// `processSCC(scc)`.
    fn process_scc(&mut self, scc: &[Value]) {
        // Alg. 5, line 6: if len(scc) = 1: return. Correction (b): a
        // singleton is tested again by Alg. 3 instead.
        if let [phi] = *scc {
            self.try_remove_trivial_phi(phi);
            return;
        }
        let members: HashSet<Value> = scc.iter().copied().collect();
        // Alg. 5, lines 7-8: inner ← set(), outerOps ← set()
        let mut inner: Vec<Value> = Vec::new();
        let mut outer_ops: BTreeSet<Value> = BTreeSet::new();
        // Alg. 5, line 9: for phi in scc:
        for &phi in scc {
            // Alg. 5, line 10: isInner ← True
            let mut is_inner = true;
            // Alg. 5, line 11: for operand in phi.getOperands():
            for operand in self.phis[&phi].operands.clone() {
                let operand = self.resolve(operand);
                // Alg. 5, lines 12-14: if operand not in scc:
                // outerOps.add(operand), isInner ← False
                if !members.contains(&operand) {
                    outer_ops.insert(operand);
                    is_inner = false;
                }
            }
            // Alg. 5, lines 15-16: if isInner: inner.add(phi)
            if is_inner {
                inner.push(phi);
            }
        }
        if outer_ops.len() == 1 {
            // Alg. 5, lines 17-18: replaceSCCByValue(scc, outerOps.pop())
            let value = outer_ops.pop_first().expect("one outer operand");
            for &phi in scc {
                self.replace_by(phi, value);
            }
        } else if outer_ops.len() > 1 {
            // Alg. 5, lines 19-20: removeRedundantPhis(inner)
            self.remove_redundant_phis(&inner);
        }
        // No outer operand: the blocks are unreachable, which `finish` has
        // ruled out before Alg. 5 runs.
    }

    // ----- finishing the function -----

    /// Removes unreachable code with the phi operands it fed, runs Alg. 5
    /// when asked, drops dead phis and numbers the rest densely.
    fn finish(&mut self, name: &str, remove_redundant_phis: bool) -> ir::Function {
        debug_assert!(self.incomplete_phis.is_empty(), "every block is sealed at the end");
        let mut reachable = vec![false; self.blocks.len()];
        let mut stack = vec![ir::Function::ENTRY];
        reachable[0] = true;
        while let Some(b) = stack.pop() {
            for s in self.blocks[b.index()].term.as_ref().expect("every block is terminated").successors() {
                if !std::mem::replace(&mut reachable[s.index()], true) {
                    stack.push(s);
                }
            }
        }
        // The edges from unreachable blocks go, with the operands they
        // carried; each phi that lost one is tested again by Alg. 3.
        let mut lost_operands = Vec::new();
        for b in (0..self.blocks.len()).filter(|&b| reachable[b]) {
            let keep: Vec<bool> = self.blocks[b].preds.iter().map(|p| reachable[p.index()]).collect();
            if keep.iter().all(|&k| k) {
                continue;
            }
            self.blocks[b].preds.retain(|p| reachable[p.index()]);
            for &phi in &self.blocks[b].phis {
                if let Some(node) = self.phis.get_mut(&phi) {
                    let mut k = keep.iter();
                    node.operands.retain(|_| *k.next().expect("one operand per edge"));
                    lost_operands.push(phi);
                }
            }
        }
        for phi in lost_operands {
            if self.phis.contains_key(&phi) {
                self.try_remove_trivial_phi(phi);
            }
        }
        let live_phis = |t: &Textbook| -> Vec<Value> {
            let blocks = (0..t.blocks.len()).filter(|&b| reachable[b]);
            blocks.flat_map(|b| t.blocks[b].phis.iter().copied().filter(|p| t.phis.contains_key(p))).collect()
        };
        if remove_redundant_phis {
            let all = live_phis(self);
            self.remove_redundant_phis(&all);
        }
        // Pruned form (§4): keep the phis that an instruction or terminator
        // of reachable code uses, directly or through other phis.
        let mut used: HashSet<Value> = HashSet::new();
        let mut work: Vec<Value> = Vec::new();
        for b in (0..self.blocks.len()).filter(|&b| reachable[b]) {
            let block = &self.blocks[b];
            block.insts.iter().for_each(|i| i.op.for_each_arg(|a| work.push(a)));
            work.extend(block.term.as_ref().and_then(Terminator::arg));
        }
        while let Some(v) = work.pop() {
            let v = self.resolve(v);
            if used.insert(v) {
                if let Some(node) = self.phis.get(&v) {
                    work.extend(node.operands.iter().copied());
                }
            }
        }
        self.emit(name, &reachable, &used)
    }

    /// The final function: reachable blocks in the order they were made,
    /// values numbered in order of definition (parameters first), constants
    /// and `Undefined`s that nothing uses dropped.
    fn emit(&self, name: &str, reachable: &[bool], used: &HashSet<Value>) -> ir::Function {
        let mut block_number = vec![None; self.blocks.len()];
        for (n, b) in (0..self.blocks.len()).filter(|&b| reachable[b]).enumerate() {
            block_number[b] = Some(Block::new(n));
        }
        let kept =
            |inst: &Inst| !matches!(inst.op, Op::Const(_) | Op::Undef) || inst.dest.is_some_and(|d| used.contains(&d));
        let mut number: HashMap<Value, Value> = HashMap::new();
        let mut define = |v: Value| {
            let n = Value::new(number.len());
            number.insert(v, n);
        };
        self.params.iter().for_each(|&p| define(p));
        for b in (0..self.blocks.len()).filter(|&b| reachable[b]) {
            let entry_values = if b == 0 { &self.entry_values[..] } else { &[] };
            let block = &self.blocks[b];
            block.phis.iter().filter(|&p| self.phis.contains_key(p) && used.contains(p)).for_each(|&p| define(p));
            entry_values.iter().chain(&block.insts).filter(|i| kept(i)).filter_map(|i| i.dest).for_each(&mut define);
        }
        let rename = |v: Value| number[&self.resolve(v)];
        let mut out =
            ir::Function { name: name.to_string(), params: Vec::new(), blocks: Default::default(), value_count: 0 };
        out.params = self.params.iter().map(|&p| rename(p)).collect();
        for b in (0..self.blocks.len()).filter(|&b| reachable[b]) {
            let entry_values = if b == 0 { &self.entry_values[..] } else { &[] };
            let block = &self.blocks[b];
            let phis = block.phis.iter().filter(|&p| self.phis.contains_key(p) && used.contains(p));
            let phis = phis.map(|&p| ir::Phi {
                dest: rename(p),
                args: self.phis[&p].operands.iter().map(|&a| rename(a)).collect(),
            });
            let mut insts: Vec<Inst> = entry_values.iter().chain(&block.insts).filter(|i| kept(i)).cloned().collect();
            for inst in &mut insts {
                inst.dest = inst.dest.map(rename);
                inst.op.map_args(rename);
            }
            let mut term = block.term.clone().expect("every block is terminated");
            term.map_arg(rename);
            term.map_successors(|s| block_number[s.index()].expect("a reachable successor"));
            let preds = block.preds.iter().map(|p| block_number[p.index()].expect("a reachable predecessor")).collect();
            out.blocks.push(ir::BlockData { preds, phis: phis.collect(), insts, term });
        }
        out.value_count = u32::try_from(number.len()).expect("fewer than 2^32 values");
        out
    }

    // ----- the IR operations the algorithms use -----

    fn new_value(&mut self) -> Value {
        let v = Value(self.value_count);
        self.value_count += 1;
        v
    }

    pub(super) fn new_block(&mut self) -> Block {
        self.blocks.push(TextbookBlock::default());
        Block::new(self.blocks.len() - 1)
    }

    pub(super) fn is_sealed(&self, block: Block) -> bool {
        self.sealed_blocks.contains(&block)
    }

    /// The variable of a source name.
    pub(super) fn var(&mut self, name: &str) -> TextbookVar {
        if let Some(&v) = self.names.get(name) {
            return v;
        }
        let v = self.hidden_var();
        self.names.insert(name.to_string(), v);
        v
    }

    /// A fresh variable without a source name.
    pub(super) fn hidden_var(&mut self) -> TextbookVar {
        self.var_count += 1;
        TextbookVar(self.var_count - 1)
    }

    /// Appends an instruction that defines a value to `block`.
    pub(super) fn emit_value(&mut self, block: Block, op: Op) -> Value {
        let dest = self.new_value();
        self.blocks[block.index()].insts.push(Inst { dest: Some(dest), op });
        dest
    }

    /// `new Phi(block)`: an operandless phi at the start of `block`.
    fn new_phi(&mut self, block: Block) -> Value {
        let phi = self.new_value();
        self.phis.insert(phi, Phi { block, operands: Vec::new(), users: Vec::new() });
        self.blocks[block.index()].phis.push(phi);
        phi
    }

    /// `new Undefined()`: a value defined on entry that no executed path
    /// reads.
    fn new_undefined(&mut self) -> Value {
        let v = self.new_value();
        self.entry_values.push(Inst { dest: Some(v), op: Op::Undef });
        v
    }

    /// `phi.appendOperand(operand)`, which makes `phi` a user of `operand`.
    fn append_operand(&mut self, phi: Value, operand: Value) {
        let operand = self.resolve(operand);
        self.phis.get_mut(&phi).expect("a live phi").operands.push(operand);
        if let Some(op) = self.phis.get_mut(&operand) {
            op.users.push(phi);
        }
    }

    /// `phi.replaceBy(value)`: removes `phi` and reroutes its uses to
    /// `value` (the forwarding link of the module comment; its phi users
    /// become users of `value`).
    fn replace_by(&mut self, phi: Value, value: Value) {
        let removed = self.phis.remove(&phi).expect("a live phi");
        self.replaced_by.insert(phi, value);
        if let Some(v) = self.phis.get_mut(&value) {
            v.users.extend(removed.users.into_iter().filter(|&u| u != phi));
        }
    }

    /// The value that stands for `v` now: `v`, or what `replaceBy` replaced
    /// it with, followed to the end.
    fn resolve(&self, mut v: Value) -> Value {
        while let Some(&next) = self.replaced_by.get(&v) {
            v = next;
        }
        v
    }
}
