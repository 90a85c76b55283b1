//! Shrinking test cases, and `quickcheck::Arbitrary` for [`TestCase`].
//!
//! A failing property is only useful once its program is small. The
//! candidates of [`candidates`] are smaller versions of a test case, most
//! aggressive first:
//! 1. remove statements: whole blocks, halves, quarters, ..., single ones;
//! 2. unwrap a compound statement: an `if` becomes its then- or else-block,
//!    a `while` or `{ .. }` its body, spliced into the enclosing block; an
//!    `if` loses its else-block;
//! 3. drop a label together with every `goto` to it;
//! 4. replace an expression by `0`, `1`, one of its operands, or (for a
//!    literal) half of it: a call by one of its arguments or a constant;
//!    remove a call statement (in 1);
//! 5. set an argument to 0 or halve it; drop a parameter that nothing
//!    mentions, with its argument at every call of its function (and in
//!    the case's arguments for `main`); drop a function other than `main`
//!    (valid only once nothing calls it).
//!
//! Every candidate is checked with [`crate::ast::Program::validate`] and
//! dropped if invalid (a `break` left outside its loop, a `goto` to a label
//! removed alone). Candidates are built lazily: an edit is a few numbers and
//! a path, and the program is cloned and edited only when the candidate is
//! asked for.
//!
//! Shrinking keeps termination ([`ShrinkOptions::keep_budget`], on for
//! quickcheck): it never removes the decrement of the loop
//! budget ([`BUDGET_VAR`]) or an `if` that breaks out of a loop when the
//! budget is spent, never unwraps an `if` whose condition reads the budget,
//! and never rewrites an expression node that reads it (only its
//! budget-free operands). Removing statements cannot turn a forward `goto`
//! into a backward one, so every cycle keeps its budget test. A user that
//! rejects non-terminating candidates itself (the reducer, `reduce.rs`,
//! which discards every candidate whose source run ends out of fuel) turns
//! the protection off, so that the budget machinery can go too.
//!
//! Walks over statements use explicit stacks; expression paths are followed
//! with loops.

use super::builders::BUDGET_VAR;
use super::source_config::{GenConfig, Shape};
use crate::ast::{Block, Expr, Stmt};
use crate::frontend::case_file::TestCase;

/// Which block of a compound statement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Child {
    Then,
    Else,
    /// The body of a `while`, or the block of `{ .. }`.
    Body,
}

/// One step from a block to a block nested in one of its statements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Step {
    index: usize,
    child: Child,
}

/// A way to make a test case smaller. `func` indexes the program's
/// functions, `path` leads from its body to a block.
#[derive(Clone, Debug)]
enum Edit {
    Remove {
        func: usize,
        path: Vec<Step>,
        start: usize,
        len: usize,
    },
    Unwrap {
        func: usize,
        path: Vec<Step>,
        index: usize,
        child: Child,
    },
    DropLabel {
        func: usize,
        label: String,
    },
    /// Replaces the node at `at` (operand indices from the root) of the
    /// `slot`-th expression of statement `index`.
    Replace {
        func: usize,
        path: Vec<Step>,
        index: usize,
        slot: usize,
        at: Vec<u8>,
        with: Expr,
    },
    Arg {
        index: usize,
        value: i64,
    },
    DropElse {
        func: usize,
        path: Vec<Step>,
        index: usize,
    },
    DropParam {
        func: usize,
        index: usize,
    },
    DropFunction {
        func: usize,
    },
}

/// What the candidates may touch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ShrinkOptions {
    /// Keep the statements and expressions that bound loops by
    /// [`BUDGET_VAR`] (see the module comment).
    pub keep_budget: bool,
}

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions { keep_budget: true }
    }
}

/// The smaller versions of a test case as an indexed list: candidate `i`
/// is built (cloned and edited) only when [`Candidates::get`] asks for it.
pub struct Candidates {
    base: TestCase,
    edits: Vec<Edit>,
}

impl Candidates {
    /// The candidates of `tc`, in the order of the module comment.
    pub fn new(tc: &TestCase, options: ShrinkOptions) -> Self {
        Candidates { base: tc.clone(), edits: edits(tc, options) }
    }

    /// The number of edits; some of them may give invalid programs.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Candidate `i`, or `None` if its edit gives an invalid program.
    pub fn get(&self, i: usize) -> Option<TestCase> {
        apply(&self.base, self.edits.get(i)?)
    }
}

/// The smaller versions of `tc`, most aggressive first, all valid.
pub fn candidates(tc: &TestCase) -> impl Iterator<Item = TestCase> {
    let list = Candidates::new(tc, ShrinkOptions::default());
    (0..list.len()).filter_map(move |i| list.get(i))
}

/// Greedy minimization: while some candidate still `fails`, move to the
/// first such candidate. Returns the last failing case (`tc` itself if no
/// candidate fails).
pub fn minimize(tc: &TestCase, mut fails: impl FnMut(&TestCase) -> bool) -> TestCase {
    let mut cur = tc.clone();
    'outer: loop {
        for c in candidates(&cur) {
            if fails(&c) {
                cur = c;
                continue 'outer;
            }
        }
        return cur;
    }
}

impl quickcheck::Arbitrary for TestCase {
    /// A seed and a [`Shape`] drawn from `g`; the program size scales with
    /// `g.size()` (`QUICKCHECK_GENERATOR_SIZE`, 100 by default, gives the
    /// shape's own size).
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        let seed = u64::arbitrary(g);
        let shape = *g.choose(&Shape::ALL).expect("shapes exist");
        let mut config: GenConfig = shape.config();
        config.size = (config.size * g.size() / 100).max(4);
        let mut tc = TestCase::from_seed(seed, &config);
        tc.origin = format!("seed {seed}, shape {}, size {}", shape.name(), config.size);
        tc
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(candidates(self))
    }
}

/// True when `e` reads the budget variable.
fn reads_budget(e: &Expr) -> bool {
    let mut found = false;
    e.for_each_var(&mut |v| found |= v == BUDGET_VAR);
    found
}

/// Statements that keep loops bounded: the budget decrement, and the `if`
/// that leaves a loop when the budget is spent.
fn protected(s: &Stmt) -> bool {
    match s {
        Stmt::Assign(x, e) | Stmt::Var(x, e) => x == BUDGET_VAR && reads_budget(e),
        Stmt::If(c, t, _) => reads_budget(c) && t.stmts.iter().any(|s| matches!(s, Stmt::Break)),
        _ => false,
    }
}

/// Every block of a function body with its path, outer blocks first.
fn blocks_of(body: &Block) -> Vec<(Vec<Step>, &Block)> {
    let mut out = Vec::new();
    let mut queue = std::collections::VecDeque::from([(Vec::new(), body)]);
    while let Some((path, b)) = queue.pop_front() {
        for (index, s) in b.stmts.iter().enumerate() {
            let step = |child: Child| {
                let mut p = path.clone();
                p.push(Step { index, child });
                p
            };
            match s {
                Stmt::If(_, t, e) => {
                    queue.push_back((step(Child::Then), t));
                    if let Some(e) = e {
                        queue.push_back((step(Child::Else), e));
                    }
                }
                Stmt::While(_, body) | Stmt::Block(body) => queue.push_back((step(Child::Body), body)),
                _ => {}
            }
        }
        out.push((path, b));
    }
    out
}

/// The expressions of a statement, by slot.
fn slots(s: &Stmt) -> Vec<&Expr> {
    match s {
        Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e) => vec![e],
        Stmt::If(c, _, _) | Stmt::While(c, _) => vec![c],
        Stmt::Store(a, v) => vec![a, v],
        Stmt::Call(_, args) => args.iter().collect(),
        Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) | Stmt::Block(_) => vec![],
    }
}

fn slot_mut(s: &mut Stmt, slot: usize) -> Option<&mut Expr> {
    match (s, slot) {
        (Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) | Stmt::Return(e), 0) => Some(e),
        (Stmt::If(c, _, _) | Stmt::While(c, _), 0) => Some(c),
        (Stmt::Store(a, _), 0) => Some(a),
        (Stmt::Store(_, v), 1) => Some(v),
        (Stmt::Call(_, args), i) => args.get_mut(i),
        _ => None,
    }
}

/// The operands of an expression node.
fn operands(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Lit(_) | Expr::Var(_) => vec![],
        Expr::Load(a) | Expr::Unary(_, a) => vec![a],
        Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => vec![a, b],
        Expr::Call(_, args) => args.iter().collect(),
    }
}

/// Every edit of a test case, in the order of the module comment.
fn edits(tc: &TestCase, options: ShrinkOptions) -> Vec<Edit> {
    let guarded = |e: &Expr| options.keep_budget && reads_budget(e);
    let untouchable = |s: &Stmt| options.keep_budget && protected(s);
    let mut removals = Vec::new();
    let mut unwraps = Vec::new();
    let mut labels = Vec::new();
    let mut replaces = Vec::new();
    for (func, f) in tc.program.functions.iter().enumerate() {
        for (path, b) in blocks_of(&f.body) {
            let n = b.stmts.len();
            // Chunks of decreasing size, then single statements.
            let mut size = n;
            while size >= 1 {
                let mut start = 0;
                while start + size <= n {
                    if !b.stmts[start..start + size].iter().any(untouchable) {
                        removals.push(Edit::Remove { func, path: path.clone(), start, len: size });
                    }
                    start += size;
                }
                if size == 1 {
                    break;
                }
                size /= 2;
            }
            for (index, s) in b.stmts.iter().enumerate() {
                match s {
                    Stmt::If(c, _, e) if !guarded(c) => {
                        unwraps.push(Edit::Unwrap { func, path: path.clone(), index, child: Child::Then });
                        if e.is_some() {
                            unwraps.push(Edit::Unwrap { func, path: path.clone(), index, child: Child::Else });
                            unwraps.push(Edit::DropElse { func, path: path.clone(), index });
                        }
                    }
                    Stmt::While(..) | Stmt::Block(_) => {
                        unwraps.push(Edit::Unwrap { func, path: path.clone(), index, child: Child::Body })
                    }
                    Stmt::Label(l) => labels.push(Edit::DropLabel { func, label: l.clone() }),
                    _ => {}
                }
                for (slot, root) in slots(s).into_iter().enumerate() {
                    expr_edits(root, options.keep_budget, &mut |at, with| {
                        replaces.push(Edit::Replace { func, path: path.clone(), index, slot, at, with })
                    });
                }
            }
        }
    }
    let mut all = removals;
    all.append(&mut unwraps);
    all.append(&mut labels);
    all.append(&mut replaces);
    for (index, &a) in tc.args.iter().enumerate() {
        if a != 0 {
            all.push(Edit::Arg { index, value: 0 });
        }
        if !(-2..=2).contains(&a) {
            all.push(Edit::Arg { index, value: a / 2 });
        }
    }
    for (func, f) in tc.program.functions.iter().enumerate() {
        for (index, p) in f.params.iter().enumerate().rev() {
            if !mentions(&f.body, p) {
                all.push(Edit::DropParam { func, index });
            }
        }
        if f.name != "main" {
            all.push(Edit::DropFunction { func });
        }
    }
    all
}

/// Calls `out(path, replacement)` for each node of `root`, outer nodes
/// first: `0`, `1`, each operand, half a literal. With `keep_budget`, a
/// node that reads the budget is left alone, and so is a literal operand of
/// such a node (the `1` of `budget - 1`, the `0` of `budget > 0`).
fn expr_edits(root: &Expr, keep_budget: bool, out: &mut impl FnMut(Vec<u8>, Expr)) {
    let mut stack: Vec<(Vec<u8>, &Expr, bool)> = vec![(Vec::new(), root, false)];
    while let Some((at, e, parent_reads_budget)) = stack.pop() {
        let kept = keep_budget && (reads_budget(e) || (parent_reads_budget && matches!(e, Expr::Lit(_))));
        if !kept {
            if *e != Expr::Lit(0) {
                out(at.clone(), Expr::Lit(0));
            }
            if !matches!(e, Expr::Lit(0) | Expr::Lit(1)) {
                out(at.clone(), Expr::Lit(1));
            }
            if let Expr::Lit(v) = e {
                if *v > 2 {
                    out(at.clone(), Expr::Lit(v / 2));
                }
            }
            for o in operands(e) {
                out(at.clone(), o.clone());
            }
        }
        let reads = reads_budget(e);
        for (i, o) in operands(e).into_iter().enumerate().rev() {
            let mut p = at.clone();
            p.push(i as u8);
            stack.push((p, o, reads));
        }
    }
}

/// True when a statement of `body` reads or assigns `name`.
fn mentions(body: &Block, name: &str) -> bool {
    let mut found = false;
    crate::ast::walk_stmts(body, |s, _| {
        if let Stmt::Var(x, _) | Stmt::Assign(x, _) = s {
            found |= x == name;
        }
        for e in slots(s) {
            e.for_each_var(&mut |v| found |= v == name);
        }
    });
    found
}

/// The block at `path` in `body`.
fn block_at<'a>(body: &'a mut Block, path: &[Step]) -> Option<&'a mut Block> {
    let mut b = body;
    for step in path {
        b = match (b.stmts.get_mut(step.index)?, step.child) {
            (Stmt::If(_, t, _), Child::Then) => t,
            (Stmt::If(_, _, Some(e)), Child::Else) => e,
            (Stmt::While(_, body) | Stmt::Block(body), Child::Body) => body,
            _ => return None,
        };
    }
    Some(b)
}

/// The node at `at` in `root`.
fn node_at<'a>(root: &'a mut Expr, at: &[u8]) -> Option<&'a mut Expr> {
    let mut e = root;
    for &i in at {
        e = match (e, i) {
            (Expr::Load(a) | Expr::Unary(_, a), 0) => &mut **a,
            (Expr::Binary(_, a, _) | Expr::LogicalAnd(a, _) | Expr::LogicalOr(a, _), 0) => &mut **a,
            (Expr::Binary(_, _, b) | Expr::LogicalAnd(_, b) | Expr::LogicalOr(_, b), 1) => &mut **b,
            (Expr::Call(_, args), i) => args.get_mut(usize::from(i))?,
            _ => return None,
        };
    }
    Some(e)
}

/// Removes every `label:` and `goto label;` of a function body.
fn drop_label(body: &mut Block, label: &str) {
    visit_blocks_mut(body, |b| b.stmts.retain(|s| !matches!(s, Stmt::Label(l) | Stmt::Goto(l) if l == label)));
}

/// Calls `visit` on `body` and on every block nested in it, each before
/// the blocks nested in it, with an explicit stack.
fn visit_blocks_mut(body: &mut Block, mut visit: impl FnMut(&mut Block)) {
    let mut stack: Vec<&mut Block> = vec![body];
    while let Some(b) = stack.pop() {
        visit(b);
        for s in b.stmts.iter_mut() {
            match s {
                Stmt::If(_, t, e) => {
                    stack.push(t);
                    if let Some(e) = e {
                        stack.push(e);
                    }
                }
                Stmt::While(_, body) | Stmt::Block(body) => stack.push(body),
                _ => {}
            }
        }
    }
}

/// Removes argument `index` from every call of `callee` in a function
/// body.
fn drop_call_args(body: &mut Block, callee: &str, index: usize) {
    fn in_expr(e: &mut Expr, callee: &str, index: usize) {
        match e {
            Expr::Lit(_) | Expr::Var(_) => {}
            Expr::Load(a) | Expr::Unary(_, a) => in_expr(a, callee, index),
            Expr::Binary(_, a, b) | Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => {
                in_expr(a, callee, index);
                in_expr(b, callee, index);
            }
            Expr::Call(name, args) => {
                if name == callee && index < args.len() {
                    args.remove(index);
                }
                args.iter_mut().for_each(|a| in_expr(a, callee, index));
            }
        }
    }
    visit_blocks_mut(body, |b| {
        for s in b.stmts.iter_mut() {
            if let Stmt::Call(name, args) = s {
                if name == callee && index < args.len() {
                    args.remove(index);
                }
            }
            for slot in 0.. {
                let Some(e) = slot_mut(s, slot) else { break };
                in_expr(e, callee, index);
            }
        }
    });
}

/// `tc` with `edit` applied, if the result is a valid program.
fn apply(tc: &TestCase, edit: &Edit) -> Option<TestCase> {
    let mut t = tc.clone();
    apply_to(&mut t, edit)?;
    t.program.validate().ok()?;
    if !t.origin.ends_with(", shrunk") {
        t.origin.push_str(", shrunk");
    }
    Some(t)
}

fn apply_to(t: &mut TestCase, edit: &Edit) -> Option<()> {
    match edit {
        Edit::Remove { func, path, start, len } => {
            let b = block_at(&mut t.program.functions.get_mut(*func)?.body, path)?;
            b.stmts.drain(*start..*start + *len);
        }
        Edit::Unwrap { func, path, index, child } => {
            let b = block_at(&mut t.program.functions.get_mut(*func)?.body, path)?;
            let inner = match (b.stmts.get_mut(*index)?, child) {
                (Stmt::If(_, then, _), Child::Then) => std::mem::take(&mut then.stmts),
                (Stmt::If(_, _, Some(els)), Child::Else) => std::mem::take(&mut els.stmts),
                (Stmt::While(_, body) | Stmt::Block(body), Child::Body) => std::mem::take(&mut body.stmts),
                _ => return None,
            };
            b.stmts.splice(*index..*index + 1, inner);
        }
        Edit::DropLabel { func, label } => drop_label(&mut t.program.functions.get_mut(*func)?.body, label),
        Edit::Replace { func, path, index, slot, at, with } => {
            let b = block_at(&mut t.program.functions.get_mut(*func)?.body, path)?;
            let root = slot_mut(b.stmts.get_mut(*index)?, *slot)?;
            *node_at(root, at)? = with.clone();
        }
        Edit::Arg { index, value } => *t.args.get_mut(*index)? = *value,
        Edit::DropElse { func, path, index } => {
            let b = block_at(&mut t.program.functions.get_mut(*func)?.body, path)?;
            match b.stmts.get_mut(*index)? {
                Stmt::If(_, _, els @ Some(_)) => *els = None,
                _ => return None,
            }
        }
        Edit::DropParam { func, index } => {
            let f = t.program.functions.get_mut(*func)?;
            if *index >= f.params.len() {
                return None;
            }
            f.params.remove(*index);
            let name = f.name.clone();
            if name == "main" && *index < t.args.len() {
                t.args.remove(*index);
            }
            for g in &mut t.program.functions {
                drop_call_args(&mut g.body, &name, *index);
            }
        }
        Edit::DropFunction { func } => {
            if *func >= t.program.functions.len() {
                return None;
            }
            t.program.functions.remove(*func);
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parser::parse_program;

    fn case(src: &str, args: Vec<i64>) -> TestCase {
        TestCase { program: parse_program(src).expect("parses"), args, origin: "test".into() }
    }

    #[test]
    fn every_candidate_is_valid_and_smaller() {
        let tc = case(
            "fn main(p0, p1) { var budget = 9; L: if (p0 > 1) { out p0 / 3; } else { mem[2] = 5; } \
             while (budget > 0 && p0 < 3) { budget = budget - 1; if (p0) { break; } } \
             if (budget > 0) { budget = budget - 1; goto L; } return 7; }",
            vec![5, 100],
        );
        let nodes = |t: &TestCase| {
            let mut n = 0;
            crate::ast::walk_stmts(&t.program.functions[0].body, |s, _| {
                n += slots(s).into_iter().map(super::super::size::expr_nodes).sum::<u64>()
            });
            n
        };
        let mut n = 0;
        for c in candidates(&tc) {
            assert_eq!(c.program.validate(), Ok(()));
            assert!(c != tc, "a candidate changes something:\n{c:?}");
            assert!(c.statement_count() <= tc.statement_count() && nodes(&c) <= nodes(&tc), "{c:?}");
            assert!(c.origin.ends_with("shrunk"));
            n += 1;
        }
        assert!(n > 30, "only {n} candidates");
    }

    #[test]
    fn the_budget_decrement_is_never_removed() {
        let tc = case("fn main() { var budget = 3; while (budget > 0) { budget = budget - 1; out 1; } }", vec![]);
        for c in candidates(&tc) {
            let text = crate::frontend::ast_print::print_program(&c.program);
            if text.contains("while") {
                assert!(text.contains("budget = budget - 1;"), "{text}");
                assert!(text.contains("while (budget > 0)"), "{text}");
            }
        }
    }

    #[test]
    fn dropping_a_label_drops_its_gotos() {
        let tc = case("fn main(p0) { if (p0) { goto L; } out 1; L: out 2; }", vec![1]);
        let dropped: Vec<TestCase> = candidates(&tc)
            .filter(|c| !crate::frontend::ast_print::print_program(&c.program).contains("L:"))
            .filter(|c| c.statement_count() == 3)
            .collect();
        assert!(
            dropped.iter().any(|c| !crate::frontend::ast_print::print_program(&c.program).contains("goto")),
            "no candidate drops the label and its goto"
        );
    }

    #[test]
    fn calls_shrink_to_an_argument_and_parameters_leave_every_call_site() {
        let tc = case(
            "fn f(a, b, c) { return b + 1; }\nfn main(x) { out f(x, 2, 3); f(1, x, 5); return f(f(1, 2, 3), 4, x); }",
            vec![7],
        );
        let texts: Vec<String> =
            candidates(&tc).map(|c| crate::frontend::ast_print::print_program(&c.program)).collect();
        // A parameter nothing mentions goes with its argument at every call.
        assert!(
            texts.iter().any(|t| t.contains("fn f(b, c)") && t.contains("f(2, 3)") && t.contains("f(x, 5)")),
            "no candidate drops `a` everywhere"
        );
        assert!(texts.iter().any(|t| t.contains("fn f(a, b)") && t.contains("return f(f(1, 2), 4);")));
        // A call replaced by one of its arguments, and a call statement removed.
        assert!(texts.iter().any(|t| t.contains("out x;")));
        assert!(texts.iter().any(|t| !t.contains("f(1, x, 5);") && t.contains("out f(x, 2, 3);")));
        // `f` is called, so it is never dropped alone.
        assert!(texts.iter().all(|t| t.contains("fn f(")));
    }

    #[test]
    fn minimize_reaches_a_small_program() {
        // "Contains a division" shrinks to a one-statement program plus the
        // budget and the final return at most.
        let has_div = |t: &TestCase| crate::frontend::ast_print::print_program(&t.program).contains('/');
        let config = GenConfig::default().with(super::super::source_config::Feature::Trapping, 30);
        let tc = (0..100).map(|s| TestCase::from_seed(s, &config)).find(has_div).expect("some program divides");
        let small = minimize(&tc, has_div);
        assert!(has_div(&small));
        assert!(small.statement_count() <= 2, "{small:?}");
    }
}
