//! The statement half of the generator: the program's body and
//! arguments, the statement kinds, loops bounded by the budget, and the
//! shapes (control flow with `goto`, the out-of-SSA situations, register
//! pressure, data flow through memory). The shapes fill their insides with ordinary statements, and
//! a statement may be a shape, so the two recurse into each other and
//! stay in one file.

use super::builders::{and, assign, bin, budget_left, decrement, guarded_goto, var, ACC_VAR, BUDGET_VAR};
use super::calls::{CALL_PRESSURE_WEIGHT, CALL_STMT_WEIGHT};
use super::entropy::Entropy;
use super::expr::{COMPARISONS, SAFE_BINOPS};
use super::generator::Generator;
use super::size::{statements_in, static_cost};
use super::source_config::Feature;
use crate::ast::{BinOp, Block, Expr, Function, Program, Stmt, UnOp};

/// Which kind of statement to generate next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Assign,
    Copy,
    Store,
    Out,
    If,
    While,
    Break,
    Continue,
    Return,
    Block,
    Goto,
    Irreducible,
    GotoIntoLoop,
    RegionJump,
    UnreachableCode,
    UnreachableCycle,
    Swap,
    LostCopy,
    BranchUse,
    Rotation,
    FanOut,
    Pressure,
    MemWeb,
    CallStmt,
    CallPressure,
}

/// Weight of a plain assignment among the statement kinds.
const ASSIGN_WEIGHT: u32 = 30;
/// The longest block the generator makes at once.
const MAX_BLOCK_LEN: u64 = 4;

impl<E: Entropy> Generator<'_, E> {
    // ----- the program -----

    pub(super) fn program(mut self) -> (Program, Vec<i64>) {
        let nparams = self.e.below(self.cfg.max_params as u64 + 1) as usize;
        self.params = (0..nparams).map(|i| format!("p{i}")).collect();
        let body = self.body();
        let program = Program {
            functions: vec![Function { name: "main".to_string(), params: self.params.clone(), body: Block::new(body) }],
        };
        let args = (0..nparams).map(|_| self.arg()).collect();
        (program, args)
    }

    /// The statements of a function whose parameters are `self.params`:
    /// the budget, first values, statements and shapes, and a `return`.
    pub(super) fn body(&mut self) -> Vec<Stmt> {
        let mut body = Vec::new();
        // Give some pool variables a first value, from the parameters when
        // there are some.
        let inits = self.e.range(1, self.pool.len() as u64) as usize;
        for i in 0..inits {
            let name = self.pool[i].clone();
            let e = self.expr(1);
            body.push(Stmt::Var(name, e));
        }
        self.remaining = self.remaining.saturating_sub(inits);
        while self.remaining > 0 {
            let (stmts, _) = self.stmt(0);
            body.extend(stmts);
        }
        // Keep some values used at the end.
        if self.on(Feature::Out) {
            for _ in 0..self.e.range(1, 2) {
                let v = self.readable_var();
                body.push(Stmt::Out(var(&v)));
            }
        }
        let mut ret = self.expr(1);
        if self.acc_used {
            ret = bin(BinOp::Xor, ret, var(ACC_VAR));
        }
        body.push(Stmt::Return(ret));
        // The budget: as large as allowed, and small enough that a run stays
        // below the step target.
        let cost = static_cost(&body).max(1);
        let budget = (self.cfg.step_target / (2 * cost)).clamp(2, self.cfg.budget.max(2));
        body.insert(0, Stmt::Var(BUDGET_VAR.to_string(), Expr::Lit(budget as i64)));
        body
    }

    fn arg(&mut self) -> i64 {
        match self.e.below(8) {
            0..=3 => self.e.range(0, 24) as i64 - 4,
            4 | 5 => {
                const EDGES: [i64; 8] = [0, 1, -1, i64::MIN, i64::MAX, 4095, 4096, 1 << 32];
                EDGES[self.e.below(EDGES.len() as u64) as usize]
            }
            _ => self.e.bits() as i64,
        }
    }

    // ----- statements -----

    /// One statement or shape, at nesting `depth`. Also says whether it ends
    /// the block (a bare `break`, `continue` or `return`).
    fn stmt(&mut self, depth: usize) -> (Vec<Stmt>, bool) {
        let before = self.produced;
        let (stmts, ends) = self.stmt_inner(depth);
        // Charge the statements the shape made itself (those of nested
        // blocks were charged when they were made).
        let nested = self.produced - before;
        let total = statements_in(&stmts);
        let own = total.saturating_sub(nested).max(1);
        self.remaining = self.remaining.saturating_sub(own);
        self.produced += own;
        (stmts, ends)
    }

    fn stmt_inner(&mut self, depth: usize) -> (Vec<Stmt>, bool) {
        // Once the size is reached, only simple statements, so that the
        // blocks still open end soon.
        let nest = depth < self.cfg.max_nesting && self.remaining > 0;
        let in_loop = self.loop_depth > 0;
        let mut kinds: Vec<(Kind, u32)> = vec![
            (Kind::Assign, ASSIGN_WEIGHT),
            (Kind::Copy, self.w(Feature::Copies)),
            (Kind::Store, self.w(Feature::Mem)),
            (Kind::Out, self.w(Feature::Out)),
            (Kind::Return, self.w(Feature::Return)),
            (Kind::CallStmt, if self.callees.is_empty() { 0 } else { CALL_STMT_WEIGHT }),
        ];
        if in_loop {
            kinds.push((Kind::Break, self.w(Feature::Break)));
            kinds.push((Kind::Continue, self.w(Feature::Continue)));
        }
        if nest {
            kinds.extend([
                (Kind::If, self.w(Feature::If)),
                (Kind::While, self.w(Feature::While)),
                (Kind::Block, self.w(Feature::NestedBlock)),
                (Kind::Goto, self.w(Feature::Goto)),
                (Kind::Irreducible, self.w(Feature::Irreducible)),
                (Kind::GotoIntoLoop, self.w(Feature::GotoIntoLoop)),
                (Kind::RegionJump, self.w(Feature::RegionJump)),
                (Kind::UnreachableCode, self.w(Feature::UnreachableCode)),
                (Kind::UnreachableCycle, self.w(Feature::UnreachableCycle)),
                (Kind::Swap, self.w(Feature::Swap)),
                (Kind::LostCopy, self.w(Feature::LostCopy)),
                (Kind::BranchUse, self.w(Feature::BranchUse)),
                (Kind::Rotation, self.w(Feature::Rotation)),
                (Kind::FanOut, self.w(Feature::FanOut)),
                (Kind::Pressure, self.w(Feature::Pressure)),
                // A refinement of `mem`: a program without `mem` has no
                // load or store at all.
                (Kind::MemWeb, if self.on(Feature::Mem) { self.w(Feature::MemWeb) } else { 0 }),
                (Kind::CallPressure, if self.callees.is_empty() { 0 } else { CALL_PRESSURE_WEIGHT }),
            ]);
        }
        let weights: Vec<u32> = kinds.iter().map(|k| k.1).collect();
        let kind = kinds[self.e.weighted(&weights)].0;
        let one = |s: Stmt| (vec![s], false);
        match kind {
            Kind::Assign => {
                let x = self.pool_var();
                let e = self.expr(0);
                one(if self.e.chance(25) { Stmt::Var(x, e) } else { Stmt::Assign(x, e) })
            }
            Kind::Copy => {
                let x = self.pool_var();
                let y = self.readable_var();
                one(assign(&x, var(&y)))
            }
            Kind::Store => {
                let a = self.addr();
                let v = self.expr(0);
                one(Stmt::Store(a, v))
            }
            Kind::Out => {
                let e = self.expr(0);
                one(Stmt::Out(e))
            }
            Kind::Return => {
                let e = self.expr(1);
                self.maybe_bare(depth, Stmt::Return(e))
            }
            Kind::Break => self.maybe_bare(depth, Stmt::Break),
            Kind::Continue => self.maybe_bare(depth, Stmt::Continue),
            Kind::If => one(self.if_stmt(depth)),
            Kind::While => (self.while_stmt(depth), false),
            Kind::Block => {
                let b = self.block(depth + 1, 3);
                one(Stmt::Block(Block::new(b)))
            }
            Kind::Goto => (self.goto_shape(depth), false),
            Kind::Irreducible => (self.irreducible(depth), false),
            Kind::GotoIntoLoop => (self.goto_into_loop(depth), false),
            Kind::RegionJump => (self.region_jump(depth), false),
            Kind::UnreachableCode => (self.unreachable_code(depth), false),
            Kind::UnreachableCycle => (self.unreachable_cycle(depth), false),
            Kind::Swap => (self.rotation(depth, 2), false),
            Kind::Rotation => {
                let k = self.e.range(3, self.cfg.max_rotation.max(3) as u64) as usize;
                (self.rotation(depth, k), false)
            }
            Kind::LostCopy => (self.lost_copy(depth), false),
            Kind::BranchUse => (self.branch_use(depth), false),
            Kind::FanOut => (self.fan_out(depth), false),
            Kind::Pressure => (self.pressure(depth), false),
            Kind::MemWeb => (self.mem_web(depth), false),
            Kind::CallStmt => one(self.call_stmt()),
            Kind::CallPressure => (self.call_pressure(), false),
        }
    }

    /// `stmt` bare (ending the block) or under an `if` on a condition that
    /// does not fold. At the top level of `main` and inside a shape it is
    /// always under an `if`.
    fn maybe_bare(&mut self, depth: usize, stmt: Stmt) -> (Vec<Stmt>, bool) {
        if depth > 0 && self.in_shape == 0 && self.e.chance(25) {
            (vec![stmt], true)
        } else {
            let c = self.nonconst_cond();
            (vec![Stmt::If(c, Block::new(vec![stmt]), None)], false)
        }
    }

    /// A block of 1 to `max_len` statements at nesting `depth`. After a
    /// bare terminator it stops, or goes on with unreachable code.
    fn block(&mut self, depth: usize, max_len: u64) -> Vec<Stmt> {
        let len = self.e.range(1, max_len);
        let mut out = Vec::new();
        for _ in 0..len {
            if self.remaining == 0 && !out.is_empty() {
                break;
            }
            let (stmts, ends) = self.stmt(depth);
            out.extend(stmts);
            if ends && !(self.on(Feature::UnreachableCode) && self.e.chance(30)) {
                break;
            }
        }
        out
    }

    /// A block inside a shape: no bare terminator at its top level, so that
    /// the statements of the shape after it stay reachable.
    pub(super) fn filler(&mut self, depth: usize) -> Vec<Stmt> {
        self.in_shape += 1;
        let b = if self.e.chance(25) { Vec::new() } else { self.block(depth + 1, 3) };
        self.in_shape -= 1;
        b
    }

    fn if_stmt(&mut self, depth: usize) -> Stmt {
        let c = self.cond();
        let then = self.block(depth + 1, MAX_BLOCK_LEN);
        let els = if self.e.chance(u64::from(self.w(Feature::Else))) {
            if depth + 1 < self.cfg.max_nesting && self.e.chance(25) {
                // `else if`.
                Some(Block::new(vec![self.if_stmt(depth + 1)]))
            } else {
                Some(Block::new(self.block(depth + 1, MAX_BLOCK_LEN)))
            }
        } else {
            None
        };
        Stmt::If(c, Block::new(then), els)
    }

    /// A `while` bounded by the budget, often counting a pool variable.
    fn while_stmt(&mut self, depth: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        let counter = self.e.chance(50).then(|| self.pool_var());
        let cond = match &counter {
            Some(i) => {
                out.push(assign(i, Expr::Lit(0)));
                let bound = self.e.range(1, 8) as i64;
                bin(BinOp::Lt, var(i), Expr::Lit(bound))
            }
            None => self.cond(),
        };
        self.loop_depth += 1;
        let mut body = self.block(depth + 1, MAX_BLOCK_LEN + 1);
        self.loop_depth -= 1;
        if let Some(i) = &counter {
            body.push(assign(i, bin(BinOp::Add, var(i), Expr::Lit(1))));
        }
        out.push(self.guarded_while(cond, body));
        out
    }

    /// `while (cond) { body }` with the budget test and decrement added.
    pub(super) fn guarded_while(&mut self, cond: Expr, body: Vec<Stmt>) -> Stmt {
        let mut full = Vec::with_capacity(body.len() + 2);
        let cond = match self.e.below(5) {
            0..=2 => {
                full.push(decrement());
                and(budget_left(), cond)
            }
            3 => {
                full.push(decrement());
                and(cond, budget_left())
            }
            _ => {
                let out = bin(BinOp::Lt, var(BUDGET_VAR), Expr::Lit(1));
                full.push(Stmt::If(out, Block::new(vec![Stmt::Break]), None));
                full.push(decrement());
                cond
            }
        };
        full.extend(body);
        Stmt::While(cond, Block::new(full))
    }

    /// A loop around `body` that the budget bounds: a `while` (with
    /// `cond`), or, when `goto` is on, a label and a guarded backward
    /// `goto`. The body is generated inside the loop by `make`.
    fn some_loop(&mut self, depth: usize, cond: Expr, make: impl FnOnce(&mut Self, usize) -> Vec<Stmt>) -> Vec<Stmt> {
        if !self.on(Feature::Goto) || self.e.chance(70) {
            self.loop_depth += 1;
            let body = make(self, depth);
            self.loop_depth -= 1;
            vec![self.guarded_while(cond, body)]
        } else {
            let l = self.fresh_label();
            let mut out = vec![Stmt::Label(l.clone())];
            out.extend(make(self, depth));
            out.push(guarded_goto(&l, Some(cond)));
            out
        }
    }

    /// A statement that keeps `e` used: `out e;`, or `acc = acc ^ e;` when
    /// `out` is off.
    pub(super) fn use_value(&mut self, e: Expr) -> Stmt {
        if self.on(Feature::Out) {
            Stmt::Out(e)
        } else {
            self.acc_used = true;
            assign(ACC_VAR, bin(BinOp::Xor, var(ACC_VAR), e))
        }
    }

    // ----- control-flow shapes -----

    /// Forward `goto` over some code, `goto` out of a loop, or a
    /// single-entry loop closed by a backward `goto`.
    fn goto_shape(&mut self, depth: usize) -> Vec<Stmt> {
        let l = self.fresh_label();
        match self.e.below(3) {
            0 => {
                let c = self.cond();
                let mut out = vec![Stmt::If(c, Block::new(vec![Stmt::Goto(l.clone())]), None)];
                out.extend(self.filler(depth));
                out.push(Stmt::Label(l));
                out
            }
            1 => {
                // Out of a loop, past its exit.
                let c = self.nonconst_cond();
                let cond = self.cond();
                let out_of_loop = Stmt::If(c, Block::new(vec![Stmt::Goto(l.clone())]), None);
                let mut out = self.some_loop(depth, cond, |g, d| {
                    let mut b = g.filler(d);
                    b.push(out_of_loop);
                    b.extend(g.filler(d));
                    b
                });
                out.push(Stmt::Label(l));
                out
            }
            _ => {
                let mut out = vec![Stmt::Label(l.clone())];
                out.extend(self.filler(depth));
                let c = self.cond();
                out.push(guarded_goto(&l, Some(c)));
                out
            }
        }
    }

    /// A cycle with two entries: `if (c) goto MID; TOP: A; MID: B; if
    /// (budget..) goto TOP;`. Neither label dominates the other.
    fn irreducible(&mut self, depth: usize) -> Vec<Stmt> {
        let top = self.fresh_label();
        let mid = self.fresh_label();
        let c = self.nonconst_cond();
        let mut out = vec![Stmt::If(c, Block::new(vec![Stmt::Goto(mid.clone())]), None), Stmt::Label(top.clone())];
        out.extend(self.filler(depth));
        out.push(Stmt::Label(mid));
        out.extend(self.filler(depth));
        let extra = self.e.chance(50).then(|| self.nonconst_cond());
        out.push(guarded_goto(&top, extra));
        out
    }

    /// `if (c) goto IN; while (..) { A; IN: B; }`: a loop with two entries.
    fn goto_into_loop(&mut self, depth: usize) -> Vec<Stmt> {
        let into = self.fresh_label();
        let c = self.nonconst_cond();
        let mut out = vec![Stmt::If(c, Block::new(vec![Stmt::Goto(into.clone())]), None)];
        let cond = self.cond();
        self.loop_depth += 1;
        let mut body = self.filler(depth);
        body.push(Stmt::Label(into));
        body.extend(self.filler(depth));
        self.loop_depth -= 1;
        out.push(self.guarded_while(cond, body));
        out
    }

    /// Code no path reaches: after a `return` or `continue` under an `if`,
    /// or (when `goto` is on) jumped over by a `goto`.
    fn unreachable_code(&mut self, depth: usize) -> Vec<Stmt> {
        let kind = self.e.below(3);
        if self.on(Feature::Goto) && (kind == 0 || (kind == 1 && self.loop_depth == 0)) {
            let skip = self.fresh_label();
            let mut out = vec![Stmt::Goto(skip.clone())];
            out.extend(self.filler(depth));
            out.push(Stmt::Label(skip));
            return out;
        }
        let c = self.nonconst_cond();
        let mut then = self.filler(depth);
        then.push(if kind == 1 && self.loop_depth > 0 { Stmt::Continue } else { Stmt::Return(self.expr(1)) });
        then.extend(self.filler(depth));
        vec![Stmt::If(c, Block::new(then), None)]
    }

    /// `goto SKIP; U: A; goto U; SKIP:`: a cycle no path reaches (its
    /// `goto` is not guarded, or only by a condition).
    fn unreachable_cycle(&mut self, depth: usize) -> Vec<Stmt> {
        let skip = self.fresh_label();
        let u = self.fresh_label();
        let mut out = vec![Stmt::Goto(skip.clone()), Stmt::Label(u.clone())];
        out.extend(self.filler(depth));
        if self.e.chance(50) {
            out.push(Stmt::Goto(u));
        } else {
            let c = self.cond();
            out.push(Stmt::If(c, Block::new(vec![Stmt::Goto(u)]), None));
            out.extend(self.filler(depth));
        }
        out.push(Stmt::Label(skip));
        out
    }

    // ----- the out-of-SSA situations -----

    /// `k` fresh variables with distinct values, then a loop whose body ends
    /// by rotating them (`t = a; a = b; b = t;` for `k = 2`, the swap
    /// problem). Copy propagation makes each header phi's back-edge
    /// argument the next phi.
    fn rotation(&mut self, depth: usize, k: usize) -> Vec<Stmt> {
        let vars: Vec<String> = (0..k).map(|_| self.fresh_var()).collect();
        let tmp = self.fresh_var();
        let mut out = self.distinct_values(&vars);
        let cond = if self.e.chance(50) {
            bin(COMPARISONS[self.e.below(6) as usize], var(&vars[0]), self.expr(2))
        } else {
            self.cond()
        };
        out.extend(self.some_loop(depth, cond, |g, d| {
            let mut body = g.filler(d);
            body.push(assign(&tmp, var(&vars[0])));
            for j in 0..k - 1 {
                body.push(assign(&vars[j], var(&vars[j + 1])));
            }
            body.push(assign(&vars[k - 1], var(&tmp)));
            body
        }));
        let mut used = var(&vars[0]);
        for v in &vars[1..] {
            used = bin(BinOp::Sub, used, var(v));
        }
        out.push(self.use_value(used));
        out
    }

    /// `vars[0] = e; vars[i] = vars[0] ^ i;`: values that are distinct
    /// whatever `e` is, so that the phis over them are not redundant.
    fn distinct_values(&mut self, vars: &[String]) -> Vec<Stmt> {
        let first = self.expr(1);
        let mut out = vec![assign(&vars[0], first)];
        for (i, v) in vars.iter().enumerate().skip(1) {
            out.push(assign(v, bin(BinOp::Xor, var(&vars[0]), Expr::Lit(i as i64))));
        }
        out
    }

    /// A loop closed by a conditional branch, with the value from before the
    /// back edge used after the loop (the lost-copy problem):
    ///
    /// ```text
    /// goto IN; TOP: while (x > k) { goto OUT; IN: break; }
    /// A; y = x; x = x + s; B;
    /// if (budget > 0) { budget = budget - 1; goto TOP; }
    /// OUT: out y;
    /// ```
    ///
    /// The `while` header branches straight back to the block after the
    /// loop (the loop's real header, where `x` has its phi), and `y`, that
    /// phi, is used on the other side of the branch.
    fn lost_copy(&mut self, depth: usize) -> Vec<Stmt> {
        let x = self.fresh_var();
        let y = self.fresh_var();
        let (top, into, exit) = (self.fresh_label(), self.fresh_label(), self.fresh_label());
        let init = self.expr(1);
        let mut out = vec![assign(&x, init), Stmt::Goto(into.clone()), Stmt::Label(top.clone())];
        let limit = self.e.range(1, 40) as i64;
        let test = bin(if self.e.chance(50) { BinOp::Gt } else { BinOp::Ge }, var(&x), Expr::Lit(limit));
        out.push(Stmt::While(test, Block::new(vec![Stmt::Goto(exit.clone()), Stmt::Label(into), Stmt::Break])));
        out.extend(self.filler(depth));
        out.push(assign(&y, var(&x)));
        let step = self.e.range(1, 5) as i64;
        let next = match self.e.below(3) {
            0 => bin(BinOp::Add, var(&x), Expr::Lit(step)),
            1 => bin(BinOp::Add, bin(BinOp::Mul, var(&x), Expr::Lit(3)), Expr::Lit(step)),
            _ => bin(BinOp::Xor, var(&x), Expr::Lit(step)),
        };
        out.push(assign(&x, next));
        out.extend(self.filler(depth));
        out.push(guarded_goto(&top, None));
        out.push(Stmt::Label(exit));
        out.push(self.use_value(var(&y)));
        out
    }

    /// `u = e; w = f; if (u) { A; w = u; }` then a use of `w`: the branch
    /// reads `u`, and the phi of `w` at the join gets `u` from the
    /// then-block and `f` straight from the branching block (Boissinot et
    /// al., Fig. 1).
    fn branch_use(&mut self, depth: usize) -> Vec<Stmt> {
        let u = self.fresh_var();
        let w = self.fresh_var();
        let ue = self.nonconst();
        let we = self.expr(1);
        let mut out = vec![assign(&u, ue), assign(&w, we)];
        let cond = match self.e.below(4) {
            0 if self.on(Feature::Logical) => and(self.cond(), var(&u)),
            1 => Expr::Unary(UnOp::Not, Box::new(var(&u))),
            _ => var(&u),
        };
        let mut then = self.filler(depth);
        then.push(assign(&w, var(&u)));
        then.extend(self.filler(depth));
        out.push(Stmt::If(cond, Block::new(then), None));
        out.push(self.use_value(var(&w)));
        out
    }

    /// One value assigned to two to four variables that then meet in phis:
    /// at a loop header (the back edge brings the value to every phi) or at
    /// the join of an `if`.
    fn fan_out(&mut self, depth: usize) -> Vec<Stmt> {
        if self.e.chance(50) {
            return self.copy_chain(depth);
        }
        let n = self.e.range(2, 4) as usize;
        let targets: Vec<String> = (0..n).map(|_| self.fresh_var()).collect();
        let src = self.fresh_var();
        let mut out = self.distinct_values(&targets);
        let copies = |g: &mut Self, d: usize| {
            let mut b = g.filler(d);
            let e = g.expr(1);
            b.push(assign(&src, e));
            for t in &targets {
                b.push(assign(t, var(&src)));
            }
            b
        };
        if self.e.chance(50) {
            let cond = self.cond();
            out.extend(self.some_loop(depth, cond, copies));
        } else {
            let c = self.nonconst_cond();
            let then = copies(self, depth);
            let els = if self.e.chance(50) { Some(Block::new(self.filler(depth))) } else { None };
            out.push(Stmt::If(c, Block::new(then), els));
        }
        let mut used = var(&targets[0]);
        for t in &targets[1..] {
            used = bin(BinOp::Add, used, var(t));
        }
        out.push(self.use_value(used));
        out
    }

    /// A chain of copies of one value, `c1 = s; c2 = c1; c3 = c2;`, all
    /// live across the join of an `if` or round a loop in which some of
    /// them get a new value (from an operation, or a copy of another member
    /// of the chain) on one path only, and all used after it. Each phi then
    /// merges a copy of the value with a different value while the other
    /// copies still hold it: the copies that copy sharing (Boissinot et al.,
    /// CGO 2009, §III-B) removes by finding another variable of the same
    /// value live at the copy.
    fn copy_chain(&mut self, depth: usize) -> Vec<Stmt> {
        let n = self.e.range(2, 4) as usize;
        let src = self.fresh_var();
        let chain: Vec<String> = (0..n).map(|_| self.fresh_var()).collect();
        let first = self.expr(1);
        let mut out = vec![assign(&src, first), assign(&chain[0], var(&src))];
        for i in 1..n {
            out.push(assign(&chain[i], var(&chain[i - 1])));
        }
        let updates = |g: &mut Self, d: usize| {
            let mut b = g.filler(d);
            let k = g.e.range(1, (n - 1) as u64) as usize;
            for _ in 0..k {
                let i = g.e.below(n as u64) as usize;
                let e = if g.e.chance(50) {
                    let op = SAFE_BINOPS[g.e.below(8) as usize];
                    bin(op, var(&chain[i]), var(&src))
                } else {
                    var(&chain[g.e.below(n as u64) as usize])
                };
                b.push(assign(&chain[i], e));
            }
            b
        };
        if self.e.chance(50) {
            let cond = self.cond();
            out.extend(self.some_loop(depth, cond, updates));
        } else {
            let c = self.nonconst_cond();
            let then = updates(self, depth);
            let els = if self.e.chance(50) { Some(Block::new(updates(self, depth))) } else { None };
            out.push(Stmt::If(c, Block::new(then), els));
        }
        let mut used = var(&src);
        for c in &chain {
            used = bin(BinOp::Add, used, var(c));
        }
        out.push(self.use_value(used));
        out
    }

    /// Many fresh values, all updated round a loop (one of them under a
    /// branch) and all used after it, so that they are live at once.
    /// At least `min` (and at most the configured pressure) fresh
    /// variables, each assigned an expression or its predecessor plus a
    /// constant: the variables and their assignments.
    pub(super) fn values_for_pressure(&mut self, min: usize) -> (Vec<String>, Vec<Stmt>) {
        let k = self.e.range(min as u64, self.cfg.pressure_values.max(min) as u64) as usize;
        let vars: Vec<String> = (0..k).map(|_| self.fresh_var()).collect();
        let mut out = Vec::new();
        for (i, v) in vars.iter().enumerate() {
            let e = if i == 0 || self.e.chance(50) {
                self.expr(2)
            } else {
                bin(BinOp::Add, var(&vars[i - 1]), Expr::Lit(i as i64))
            };
            out.push(assign(v, e));
        }
        (vars, out)
    }

    fn pressure(&mut self, depth: usize) -> Vec<Stmt> {
        let (vars, mut out) = self.values_for_pressure(6);
        let k = vars.len();
        let cond = self.cond();
        out.extend(self.some_loop(depth, cond, |g, d| {
            let mut body = g.filler(d);
            for i in 0..k {
                let op = SAFE_BINOPS[g.e.below(8) as usize];
                body.push(assign(&vars[i], bin(op, var(&vars[i]), var(&vars[(i + 1) % k]))));
            }
            let c = g.nonconst_cond();
            let (a, b) = (g.e.below(k as u64) as usize, g.e.below(k as u64) as usize);
            body.push(Stmt::If(c, Block::new(vec![assign(&vars[a], var(&vars[b]))]), None));
            body
        }));
        let mut sum = var(&vars[0]);
        for v in &vars[1..] {
            sum = bin(BinOp::Add, sum, var(v));
        }
        out.push(self.use_value(sum));
        out
    }

    // ----- data flow through memory -----

    /// Two loads of one address with a store to it between them, whose
    /// values meet in one phi. `a` is a fresh variable,
    /// `a'` and `a''` are `a` or an alias of it (`a + 4096`, ...), and
    /// `k` is not 0, so the two loads give different values:
    ///
    /// ```text
    /// (diamond)  x = mem[a]; A; mem[a'] = x + k; y = mem[a'']; w = x;
    ///            if (c) { B; w = y; } use(w - x);
    /// (branch)   x = mem[a]; w = x; if (c) { A; mem[a'] = x ^ k; w = mem[a'']; }
    ///            use(w - x);
    /// (loop)     x = mem[a]; t = x; loop { A; mem[a'] = x + k; x = mem[a'']; B; }
    ///            use(x - t);
    /// ```
    ///
    /// After copy propagation the phi of `w` (or of `x` at the loop
    /// header) has both loads as arguments, and the first load stays live
    /// past the second: a value numbering that took two loads of one
    /// address as equal would coalesce them, and the use would read the
    /// second value for the first.
    fn mem_web(&mut self, depth: usize) -> Vec<Stmt> {
        let a = self.fresh_var();
        let x = self.fresh_var();
        let w = self.fresh_var();
        let address = if self.e.chance(40) { Expr::Lit(self.e.range(0, 15) as i64) } else { self.nonconst() };
        let mut out = vec![assign(&a, address)];
        let first = self.alias_of(&a);
        out.push(assign(&x, Expr::Load(Box::new(first))));
        let k = Expr::Lit(self.e.range(1, 9) as i64);
        // The loop, where the loaded value is carried round the back edge,
        // half of the time.
        match self.e.below(4) {
            0 => {
                out.extend(self.filler(depth));
                let store_at = self.alias_of(&a);
                out.push(Stmt::Store(store_at, bin(BinOp::Add, var(&x), k)));
                let y = self.fresh_var();
                let again = self.alias_of(&a);
                out.push(assign(&y, Expr::Load(Box::new(again))));
                out.push(assign(&w, var(&x)));
                let c = self.nonconst_cond();
                let mut then = self.filler(depth);
                then.push(assign(&w, var(&y)));
                out.push(Stmt::If(c, Block::new(then), None));
                out.push(self.use_value(bin(BinOp::Sub, var(&w), var(&x))));
            }
            1 => {
                out.push(assign(&w, var(&x)));
                let c = self.nonconst_cond();
                let mut then = self.filler(depth);
                let store_at = self.alias_of(&a);
                then.push(Stmt::Store(store_at, bin(BinOp::Xor, var(&x), k)));
                let again = self.alias_of(&a);
                then.push(assign(&w, Expr::Load(Box::new(again))));
                out.push(Stmt::If(c, Block::new(then), None));
                out.push(self.use_value(bin(BinOp::Sub, var(&w), var(&x))));
            }
            _ => {
                let t = self.fresh_var();
                out.push(assign(&t, var(&x)));
                let cond = self.cond();
                let (store_at, again) = (self.alias_of(&a), self.alias_of(&a));
                out.extend(self.some_loop(depth, cond, |g, d| {
                    let mut body = g.filler(d);
                    body.push(Stmt::Store(store_at, bin(BinOp::Add, var(&x), k)));
                    body.push(assign(&x, Expr::Load(Box::new(again))));
                    body.extend(g.filler(d));
                    body
                }));
                out.push(self.use_value(bin(BinOp::Sub, var(&x), var(&t))));
            }
        }
        out
    }

    /// `a` itself, or an address that names the same word of `mem`
    /// (`a + 4096 m`, `a - 4096`: addresses are taken `& 4095`).
    fn alias_of(&mut self, a: &str) -> Expr {
        match self.e.below(4) {
            0 | 1 => var(a),
            2 => bin(BinOp::Add, var(a), Expr::Lit(4096 * self.e.range(1, 3) as i64)),
            _ => bin(BinOp::Sub, var(a), Expr::Lit(4096)),
        }
    }
}
