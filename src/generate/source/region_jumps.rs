//! The shape of [`Feature::RegionJump`](super::Feature::RegionJump): a
//! `goto` from outside into a region (an `if` branch, an `else` branch, a
//! `while` body or a bare block), forward or backward:
//!
//! ```text
//! (forward)   if (c) { goto L; } A; x = e; REGION(.. L: ..)
//! (backward)  REGION(.. L: ..) A; x = e; if (budget > 0 [&& c]) { budget = budget - 1; goto L; }
//! ```
//!
//! The label goes to any place of the region's statements, nested ones
//! included (first, last, alone, after another label, after a bare `return`,
//! `break` or `continue`), so that the block a `goto` enters is a branch's
//! first block, a join inside it, a loop header's predecessor, or code that
//! only the `goto` reaches. The assignment between the `goto` and the region
//! gives a variable different values on the two ways in, so that a
//! construction that took the region as entered only from where it starts
//! (the shortcut of note (h) of the construction's proof note, the sealing
//! of the label's block) reads the wrong one.
//!
//! Termination (see `mod.rs`): a forward `goto` closes no cycle, and a
//! backward one is guarded by the budget. The label never goes between a
//! label and an unguarded backward `goto` to it (the unreachable cycle of
//! `unreachable_cycle`), so that no `goto` makes such a cycle reachable.

use super::builders::{assign, guarded_goto};
use super::entropy::Entropy;
use super::generator::Generator;
use crate::ast::{Block, Stmt};

/// The four regions a `goto` can enter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Region {
    Then,
    Else,
    Loop,
    Block,
}

impl<E: Entropy> Generator<'_, E> {
    /// A region with a label somewhere inside, and a `goto` to it from
    /// outside (see the module comment).
    pub(super) fn region_jump(&mut self, depth: usize) -> Vec<Stmt> {
        let region = [Region::Then, Region::Else, Region::Loop, Region::Block][self.e.below(4) as usize];
        let backward = self.e.chance(50);
        let label = self.fresh_label();
        // A bare terminator before the label at the top of a block would
        // leave the code after the block to a backward `goto` that is
        // itself after the block: nothing would run there.
        let terminator_ok = !(backward && region == Region::Block);
        let stmts = self.region_with_label(depth, region, &label, terminator_ok);
        // Between the `goto` and the region: some code, and an assignment
        // to a variable the region may read.
        let mut between = self.filler(depth);
        let x = self.pool_var();
        let e = self.expr(1);
        between.push(assign(&x, e));
        let mut out = Vec::new();
        if backward {
            out.extend(stmts);
            out.extend(between);
            let extra = self.e.chance(50).then(|| self.nonconst_cond());
            out.push(guarded_goto(&label, extra));
        } else {
            let c = self.nonconst_cond();
            out.push(Stmt::If(c, Block::new(vec![Stmt::Goto(label)]), None));
            out.extend(between);
            out.extend(stmts);
        }
        out
    }

    /// The statement of `region` with `label` inside the part a `goto`
    /// enters.
    fn region_with_label(&mut self, depth: usize, region: Region, label: &str, terminator_ok: bool) -> Vec<Stmt> {
        match region {
            Region::Then | Region::Else => {
                let c = self.cond();
                let mut entered = self.region_body(depth, label, terminator_ok);
                if region == Region::Then {
                    let els = self.e.chance(50).then(|| Block::new(self.filler(depth)));
                    vec![Stmt::If(c, Block::new(entered), els)]
                } else {
                    let then = self.filler(depth);
                    // Sometimes the `else` of an `else if`.
                    if self.e.chance(25) {
                        let c2 = self.cond();
                        entered = vec![Stmt::If(c2, Block::new(entered), None)];
                    }
                    vec![Stmt::If(c, Block::new(then), Some(Block::new(entered)))]
                }
            }
            Region::Loop => {
                let cond = self.cond();
                self.loop_depth += 1;
                let body = self.region_body(depth, label, terminator_ok);
                self.loop_depth -= 1;
                vec![self.guarded_while(cond, body)]
            }
            Region::Block => vec![Stmt::Block(Block::new(self.region_body(depth, label, terminator_ok)))],
        }
    }

    /// Statements for the inside of a region, with `label` put somewhere in
    /// them: after a bare terminator (if `terminator_ok`) or next to another
    /// label sometimes.
    fn region_body(&mut self, depth: usize, label: &str, terminator_ok: bool) -> Vec<Stmt> {
        let mut body = self.filler(depth);
        let mut put = vec![Stmt::Label(label.to_string())];
        match self.e.below(8) {
            // Code only the `goto` reaches: the label after a bare
            // terminator.
            0 if terminator_ok => {
                let end = if self.loop_depth > 0 && self.e.chance(50) {
                    if self.e.chance(50) {
                        Stmt::Break
                    } else {
                        Stmt::Continue
                    }
                } else {
                    Stmt::Return(self.expr(1))
                };
                put.insert(0, end);
            }
            // Two labels in a row (the other one is never jumped to).
            1 => {
                let other = self.fresh_label();
                put.insert(usize::from(self.e.chance(50)), Stmt::Label(other));
            }
            _ => {}
        }
        insert_somewhere(self, &mut body, put);
        body
    }
}

/// Puts `put` at a place of `stmts` or of a statement list nested in them,
/// never inside the range of an unguarded backward `goto` (see the module
/// comment).
fn insert_somewhere<E: Entropy>(g: &mut Generator<'_, E>, stmts: &mut Vec<Stmt>, put: Vec<Stmt>) {
    let allowed = allowed_places(stmts);
    // Nested lists to go down into: those of `if`s, `while`s and blocks at
    // allowed places.
    let nested: Vec<usize> = (0..stmts.len())
        .filter(|&i| {
            allowed[i] && allowed[i + 1] && matches!(stmts[i], Stmt::If(..) | Stmt::While(..) | Stmt::Block(_))
        })
        .collect();
    if !nested.is_empty() && g.e.chance(35) {
        let i = nested[g.e.below(nested.len() as u64) as usize];
        let list = match &mut stmts[i] {
            Stmt::If(_, then, Some(els)) if g.e.chance(50) => &mut els.stmts,
            Stmt::If(_, then, _) => &mut then.stmts,
            Stmt::While(_, body) => &mut body.stmts,
            Stmt::Block(b) => &mut b.stmts,
            _ => unreachable!("filtered above"),
        };
        insert_somewhere(g, list, put);
        return;
    }
    let places: Vec<usize> = (0..=stmts.len()).filter(|&i| allowed[i]).collect();
    let at = places[g.e.below(places.len() as u64) as usize];
    stmts.splice(at..at, put);
}

/// For each place `0..=stmts.len()` (before statement `i`, or at the end),
/// whether a label may go there: not from just before an `L:` that an
/// unguarded `goto L` (bare, or alone under an `if`) later in the list
/// jumps back to, up to just before that `goto`.
fn allowed_places(stmts: &[Stmt]) -> Vec<bool> {
    let mut allowed = vec![true; stmts.len() + 1];
    for (j, s) in stmts.iter().enumerate() {
        let target = match s {
            Stmt::Goto(l) => Some(l),
            Stmt::If(_, then, None) => match then.stmts.as_slice() {
                [Stmt::Goto(l)] => Some(l),
                _ => None,
            },
            _ => None,
        };
        let Some(l) = target else { continue };
        if let Some(i) = stmts[..j].iter().position(|s| matches!(s, Stmt::Label(m) if m == l)) {
            // The cycle runs from the label through the `goto`: a label
            // just before it would fall into it, and its statements (nested
            // lists included) are off limits too.
            allowed[i..=j].iter_mut().for_each(|a| *a = false);
        }
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Expr;

    #[test]
    fn no_label_goes_inside_an_unguarded_cycle() {
        let g = |l: &str| Stmt::Goto(l.into());
        let lab = |l: &str| Stmt::Label(l.into());
        let out = Stmt::Out(Expr::Lit(1));
        // goto S; U: out 1; goto U; S: out 1;
        let stmts = [g("S"), lab("U"), out.clone(), g("U"), lab("S"), out.clone()];
        assert_eq!(allowed_places(&stmts), [true, false, false, false, true, true, true]);
        // A guarded backward goto (two statements under its `if`) leaves
        // every place allowed, and so does a forward one.
        let guarded = guarded_goto("U", None);
        let fwd = Stmt::If(Expr::Lit(1), Block::new(vec![g("V")]), None);
        let stmts = [fwd, lab("U"), out.clone(), guarded, lab("V")];
        assert!(allowed_places(&stmts).iter().all(|&a| a));
        // An unguarded one under an `if` closes a cycle.
        let under_if = Stmt::If(Expr::Lit(1), Block::new(vec![g("U")]), None);
        let stmts = [lab("U"), out, under_if];
        assert_eq!(allowed_places(&stmts), [false, false, false, true]);
    }
}
