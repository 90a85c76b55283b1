//! Which kinds of jump into a region a program has, and where its labels
//! stand, read off the AST (for `ssaref gen --stats`, `pattern_stats.rs`).
//!
//! A region is an `if` branch, an `else` branch, a `while` body or a bare
//! block. A `goto` enters every region that holds its label but not the
//! `goto` itself; it is forward when the label comes after it in the text.
//! A label's place is the kind of statement list it is in (the function's
//! body or one of the four regions) and its position there: first, last,
//! alone, in the middle, right after another label, right after a bare
//! `goto`, `return`, `break` or `continue`.

use crate::ast::{Block, Program, Stmt};
use std::collections::HashMap;

/// The kinds of region, in the order of [`JumpKinds::into`].
pub const REGIONS: [&str; 4] = ["if branch", "else branch", "loop body", "block"];

/// The positions of a label, in the order of [`JumpKinds::label_at`].
pub const POSITIONS: [&str; 6] = ["first", "last", "alone", "middle", "after a label", "after a jump"];

/// The statement lists a label can be in, in the order of
/// [`JumpKinds::label_in`]: the function's body, then [`REGIONS`].
pub const LISTS: [&str; 5] = ["function body", "if branch", "else branch", "loop body", "block"];

/// What one program has.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct JumpKinds {
    /// `into[r][0]`: a forward `goto` enters a region of kind `REGIONS[r]`;
    /// `into[r][1]`: a backward one.
    pub into: [[bool; 2]; 4],
    /// A label at each of [`POSITIONS`].
    pub label_at: [bool; 6],
    /// A label in each of [`LISTS`].
    pub label_in: [bool; 5],
}

/// A `goto` or a label: its number in text order and the regions around
/// it, innermost last (each as its number and kind).
struct Place {
    index: usize,
    regions: Vec<(usize, usize)>,
}

struct Walk {
    next_stmt: usize,
    next_region: usize,
    open: Vec<(usize, usize)>,
    gotos: Vec<(String, Place)>,
    labels: HashMap<String, Place>,
    kinds: JumpKinds,
}

impl JumpKinds {
    /// The kinds of every function of `program`, together.
    pub fn of_program(program: &Program) -> JumpKinds {
        let mut all = JumpKinds::default();
        for f in &program.functions {
            let mut w = Walk {
                next_stmt: 0,
                next_region: 0,
                open: Vec::new(),
                gotos: Vec::new(),
                labels: HashMap::new(),
                kinds: JumpKinds::default(),
            };
            w.list(&f.body, None);
            for (label, goto) in &w.gotos {
                let Some(target) = w.labels.get(label) else { continue };
                let direction = usize::from(target.index < goto.index);
                for r in &target.regions {
                    if !goto.regions.contains(r) {
                        w.kinds.into[r.1][direction] = true;
                    }
                }
            }
            all.merge(&w.kinds);
        }
        all
    }

    fn merge(&mut self, other: &JumpKinds) {
        for (a, b) in self.into.iter_mut().flatten().zip(other.into.iter().flatten()) {
            *a |= b;
        }
        for (a, b) in self.label_at.iter_mut().zip(other.label_at) {
            *a |= b;
        }
        for (a, b) in self.label_in.iter_mut().zip(other.label_in) {
            *a |= b;
        }
    }
}

impl Walk {
    /// The statements of `block`, a region of kind `region` (an index of
    /// [`REGIONS`]) or the function's body (`None`).
    fn list(&mut self, block: &Block, region: Option<usize>) {
        if let Some(kind) = region {
            self.open.push((self.next_region, kind));
            self.next_region += 1;
        }
        let stmts = &block.stmts;
        for (i, s) in stmts.iter().enumerate() {
            let index = self.next_stmt;
            self.next_stmt += 1;
            match s {
                Stmt::Goto(l) => self.gotos.push((l.clone(), Place { index, regions: self.open.clone() })),
                Stmt::Label(l) => {
                    self.labels.insert(l.clone(), Place { index, regions: self.open.clone() });
                    let k = &mut self.kinds;
                    k.label_in[region.map_or(0, |r| r + 1)] = true;
                    let n = stmts.len();
                    let pos = if n == 1 {
                        2
                    } else if i == 0 {
                        0
                    } else if i == n - 1 {
                        1
                    } else {
                        3
                    };
                    k.label_at[pos] = true;
                    if i > 0 {
                        match stmts[i - 1] {
                            Stmt::Label(_) => k.label_at[4] = true,
                            Stmt::Goto(_) | Stmt::Return(_) | Stmt::Break | Stmt::Continue => k.label_at[5] = true,
                            _ => {}
                        }
                    }
                }
                Stmt::If(_, then, els) => {
                    self.list(then, Some(0));
                    if let Some(els) = els {
                        self.list(els, Some(1));
                    }
                }
                Stmt::While(_, body) => self.list(body, Some(2)),
                Stmt::Block(b) => self.list(b, Some(3)),
                _ => {}
            }
        }
        if region.is_some() {
            self.open.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> JumpKinds {
        JumpKinds::of_program(&crate::frontend::parser::parse_program(src).expect("valid"))
    }

    #[test]
    fn each_region_forward_and_backward() {
        let k = kinds("fn main(p) { if (p) { goto A; } if (p) { A: out 1; } else { B: out 2; } goto B; }");
        assert_eq!(k.into[0], [true, false]);
        assert_eq!(k.into[1], [false, true]);
        assert_eq!(k.into[2], [false, false]);
        let k = kinds("fn main(p) { while (p) { L: p = p - 1; } { M: } if (p) { goto L; } goto M; }");
        assert_eq!(k.into[2], [false, true]);
        assert_eq!(k.into[3], [false, true]);
        // A jump inside its own region enters nothing.
        let k = kinds("fn main(p) { while (p) { p = p - 1; L: if (p) { goto L; } } }");
        assert_eq!(k.into, [[false; 2]; 4]);
        assert!(k.label_in[3] && k.label_at[3]);
    }

    #[test]
    fn label_positions() {
        let k = kinds("fn main(p) { L: if (p) { M: } while (p) { p = 0; break; N: O: } }");
        assert!(k.label_in[0] && k.label_in[1] && k.label_in[3] && !k.label_in[2] && !k.label_in[4]);
        assert_eq!(k.label_at, [true; 6]);
    }
}
